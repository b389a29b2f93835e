/* test_api_contract.c - the promises of include/mbench.h that every call
 * shares: err may be NULL in every call (same status, no crash; `make
 * check` runs this under ASan + UBSan), the variants of mb_runner_compare
 * go through the command line's parser (same refusals and messages), a
 * baseline that names no variant is an error, the numeric version and the
 * log callback.  Only the null backend and files that do not exist: no
 * runtime needed. */
#include "t.h"

#include "mbench.h"
#include "mbench_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CALL (an expression using ERR for its mb_err *) fails with status want
 * both with a message and with ERR == NULL, and leaves no document. */
#define FAILS_BOTH_WAYS(want, CALL)                                            \
    do {                                                                       \
        mb_err e_ = {0}, *ERR = &e_;                                           \
        char *J = (char *)"untouched";                                         \
        mb_status with_ = (CALL);                                              \
        EXPECT_EQ_INT(with_, (want));                                          \
        EXPECT(e_.msg[0] != '\0');                                             \
        EXPECT(J == NULL || strcmp(J, "untouched") == 0);                      \
        ERR = NULL;                                                            \
        J = (char *)"untouched";                                               \
        mb_status without_ = (CALL);                                           \
        EXPECT_EQ_INT(without_, (want));                                       \
        EXPECT(J == NULL || strcmp(J, "untouched") == 0);                      \
        if (with_ != (want))                                                   \
            printf("#   message: %s\n", e_.msg);                               \
    } while (0)

static mb_runner *null_runner(void)
{
    mb_runner *r = mb_runner_new();
    mb_err e = {0};
    EXPECT(r != NULL);
    EXPECT_EQ_INT(mb_runner_set(r, "backend", "null", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(r, "processes", "2", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(r, "iterations", "5", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(r, "warmup", "0", &e), MB_OK);
    return r;
}

static void set_fails_the_same_without_err(void)
{
    mb_runner *r = null_runner();
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_set(r, NULL, "1", ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_set(r, "batch", NULL, ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_set(NULL, "batch", "1", ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_set(r, "batch", "0", ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_set(r, "min-time", "soon", ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_set(r, "tolerance", "2", ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_set(r, "no-peak", "7", ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_set(r, "candidate-opt", "x", ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_set(r, "precision", "fp99", ERR));
    mb_runner_free(r);
}

static void run_fails_the_same_without_err(void)
{
    mb_runner *r = null_runner();
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_run(r, NULL, &J, ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_run(NULL, "none", &J, ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_run(r, "none", NULL, ERR));
    mb_runner *o = mb_runner_new(); /* the ort backend, a missing file */
    FAILS_BOTH_WAYS(MB_EIO, mb_runner_run(o, "/nonexistent/m.onnx", &J, ERR));
    mb_runner_free(o);
    mb_runner *u = mb_runner_new();
    mb_err e = {0};
    EXPECT_EQ_INT(mb_runner_set(u, "backend", "no-such-backend", &e), MB_OK);
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_run(u, "none", &J, ERR));
    mb_runner_free(u);
    mb_runner *t = mb_runner_new(); /* min-time above max-time */
    EXPECT_EQ_INT(mb_runner_set(t, "backend", "null", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(t, "min-time", "2s", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(t, "max-time", "1s", &e), MB_OK);
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_run(t, "none", &J, ERR));
    mb_runner_free(t);
    mb_runner_free(r);
}

static void compare_fails_the_same_without_err(void)
{
    mb_runner *r = null_runner();
    const char *two[] = {"a=none", "b=none"};
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_compare(r, two, 1, &J, ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_compare(r, NULL, 2, &J, ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_compare(NULL, two, 2, &J, ERR));
    const char *holes[] = {"a=none", NULL};
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_compare(r, holes, 2, &J, ERR));
    const char *same[] = {"a=none", "a=none"};
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_compare(r, same, 2, &J, ERR));
    const char *unknown[] = {"a=none", "b=none,speed=9"};
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_compare(r, unknown, 2, &J, ERR));
    const char *times[] = {"a=none", "b=none,min-time=2s,max-time=1s"};
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_compare(r, times, 2, &J, ERR));
    const char *noname[] = {"none", "b=none"};
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_compare(r, noname, 2, &J, ERR));
    mb_err e = {0};
    mb_runner *b = null_runner(); /* a baseline that names no variant */
    EXPECT_EQ_INT(mb_runner_set(b, "baseline", "c", &e), MB_OK);
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_compare(b, two, 2, &J, ERR));
    mb_runner_free(b);
    mb_runner *l = null_runner(); /* an unreadable labels file */
    EXPECT_EQ_INT(mb_runner_set(l, "labels", "/nonexistent/l.npy", &e), MB_OK);
    FAILS_BOTH_WAYS(MB_EIO, mb_runner_compare(l, two, 2, &J, ERR));
    mb_runner_free(l);
    mb_runner_free(r);
}

static void profile_validate_load_fail_the_same_without_err(void)
{
    mb_runner *r = null_runner();
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_profile(r, NULL, &J, ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_profile(NULL, "none", &J, ERR));
    mb_runner *o = mb_runner_new();
    FAILS_BOTH_WAYS(MB_EIO,
                    mb_runner_profile(o, "/nonexistent/m.onnx", &J, ERR));
    int passed = 7;
    FAILS_BOTH_WAYS(MB_EINVAL,
                    mb_runner_validate(r, "none", NULL, &passed, &J, ERR));
    EXPECT_EQ_INT(passed, 0);
    FAILS_BOTH_WAYS(MB_EINVAL,
                    mb_runner_validate(NULL, "a", "b", &passed, &J, ERR));
    FAILS_BOTH_WAYS(MB_EIO,
                    mb_runner_validate(o, "/nonexistent/a.onnx",
                                       "/nonexistent/b.onnx", NULL, &J, ERR));
    const char *bad_kv[] = {"concurrency"};
    const char *unknown[] = {"speed=9"};
    const char *zero[] = {"concurrency=0"};
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_load(r, "none", bad_kv, 1, &J, ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_load(r, "none", unknown, 1, &J, ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_load(r, "none", zero, 1, &J, ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_load(r, "none", NULL, 1, &J, ERR));
    FAILS_BOTH_WAYS(MB_EINVAL, mb_runner_load(r, NULL, NULL, 0, &J, ERR));
    FAILS_BOTH_WAYS(MB_EIO,
                    mb_runner_load(o, "/nonexistent/m.onnx", NULL, 0, &J, ERR));
    mb_runner_free(o);
    mb_runner_free(r);
}

static void the_other_calls_fail_the_same_without_err(void)
{
    mb_err e = {0};
    EXPECT(mb_backend_find("no-such-backend", &e) == NULL);
    EXPECT(e.msg[0] != '\0');
    EXPECT(mb_backend_find("no-such-backend", NULL) == NULL);
    EXPECT(mb_backend_find("/nonexistent/plugin.so", NULL) == NULL);
    mb_tensor t = {0};
    int64_t dims[1] = {-1};
    FAILS_BOTH_WAYS(MB_EINVAL,
                    mb_tensor_alloc(&t, MB_DTYPE_FLOAT32, 99, dims, "x", ERR));
}

/* The command line says the same (tests/integration/compare.sh checks its
 * side): one parser behind both. */
static void compare_refusals_name_what_is_wrong(void)
{
    mb_runner *r = null_runner();
    mb_err e = {0};
    char *json = NULL;
    const char *same[] = {"a=none", "a=none"};
    EXPECT_EQ_INT(mb_runner_compare(r, same, 2, &json, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "two variants are named 'a'");
    const char *unknown[] = {"a=none", "b=none,speed=9"};
    EXPECT_EQ_INT(mb_runner_compare(r, unknown, 2, &json, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "unknown variant option 'speed'");
    const char *times[] = {"a=none", "b=none,min-time=2s,max-time=1s"};
    EXPECT_EQ_INT(mb_runner_compare(r, times, 2, &json, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "variant 'b': min-time is longer than max-time");
    EXPECT_EQ_INT(mb_runner_set(r, "baseline", "c", &e), MB_OK);
    const char *two[] = {"a=none", "b=none"};
    EXPECT_EQ_INT(mb_runner_compare(r, two, 2, &json, &e), MB_EINVAL);
    EXPECT_CONTAINS(e.msg, "baseline c names no variant; name one of: a, b");
    EXPECT(json == NULL);
    /* The baseline that is named is used. */
    EXPECT_EQ_INT(mb_runner_set(r, "baseline", "b", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_compare(r, two, 2, &json, NULL), MB_OK);
    EXPECT_CONTAINS(json ? json : "", "\"baseline\": \"b\"");
    free(json);
    mb_runner_free(r);
}

static void the_version_is_a_number_too(void)
{
    EXPECT_EQ_INT(MB_VERSION_NUMBER, MB_VERSION_MAJOR * 10000 +
                                         MB_VERSION_MINOR * 100 +
                                         MB_VERSION_PATCH);
    EXPECT_EQ_INT(mb_version_number(), MB_VERSION_NUMBER);
    char s[32];
    snprintf(s, sizeof s, "%d.%d.%d", mb_version_number() / 10000,
             mb_version_number() / 100 % 100, mb_version_number() % 100);
    EXPECT_STR(s, mb_version());
}

typedef struct {
    int calls, max_level;
    char last[256];
} log_seen;

static void on_log(void *user, int level, const char *msg)
{
    log_seen *l = user;
    l->calls++;
    if (level > l->max_level)
        l->max_level = level;
    snprintf(l->last, sizeof l->last, "%s", msg);
}

/* The callback gets what --verbose sends to stderr: ONNX Runtime's
 * warnings, here that a model's initializer is unused (a model made with
 * Python's onnx).  Without the runtime or onnx nothing is run. */
static void the_log_callback_receives_the_runtime_s_lines(void)
{
    const char *ort = getenv("MBENCH_ORT_LIB");
    const char *tmp = getenv("MBENCH_TEST_TMP");
    char model[1024], cmd[2048], *json = NULL;
    snprintf(model, sizeof model, "%s/unused_init.onnx", tmp ? tmp : "/tmp");
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c 'import sys, numpy as np, onnx\n"
             "from onnx import helper as h, TensorProto as T, numpy_helper "
             "as nh\n"
             "v = lambda n: h.make_tensor_value_info(n, T.FLOAT, [1, 4])\n"
             "g = h.make_graph([h.make_node(\"Relu\", [\"x\"], [\"y\"])],"
             " \"g\", [v(\"x\")], [v(\"y\")], "
             "[nh.from_array(np.zeros(3, np.float32), \"unused_w\")])\n"
             "m = h.make_model(g, opset_imports=[h.make_opsetid(\"\", 13)])\n"
             "m.ir_version = 8\n"
             "onnx.save(m, sys.argv[1])' %s 2>/dev/null",
             model);
    log_seen seen = {0, -1, ""};
    mb_runner *r = mb_runner_new();
    mb_err e = {0};
    mb_runner_set_log(r, on_log, &seen);
    mb_runner_set_log(NULL, on_log, &seen); /* a no-op */
    EXPECT_EQ_INT(mb_runner_set(r, "processes", "1", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(r, "iterations", "2", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(r, "warmup", "0", &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_set(r, "verbose", "1", &e), MB_OK);
    if (!ort || !tmp || system(cmd) != 0) {
        T_SKIP("needs MBENCH_ORT_LIB, MBENCH_TEST_TMP and Python's onnx");
        mb_runner_free(r);
        return;
    }
    EXPECT_EQ_INT(mb_runner_set(r, "ort-lib", ort, &e), MB_OK);
    EXPECT_EQ_INT(mb_runner_run(r, model, &json, &e), MB_OK);
    EXPECT(seen.calls > 0);
    EXPECT_EQ_INT(seen.max_level, 2); /* a warning */
    EXPECT_CONTAINS(seen.last, "unused_w");
    EXPECT(strchr(seen.last, '\n') == NULL);
    free(json);
    mb_runner_free(r);
}

int main(void)
{
    RUN(set_fails_the_same_without_err);
    RUN(run_fails_the_same_without_err);
    RUN(compare_fails_the_same_without_err);
    RUN(profile_validate_load_fail_the_same_without_err);
    RUN(the_other_calls_fail_the_same_without_err);
    RUN(compare_refusals_name_what_is_wrong);
    RUN(the_version_is_a_number_too);
    RUN(the_log_callback_receives_the_runtime_s_lines);
    return T_DONE();
}
