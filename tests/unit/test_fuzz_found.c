/* test_fuzz_found.c - regression tests for what fuzzing (tests/fuzz,
 * docs/FUZZING.md) found in the parsers: one test per finding checks the
 * fixed behaviour, and every input kept as tests/fuzz/corpus/<target>/
 * crash-* is replayed through its target's entry point, so `make check`
 * (ASan + UBSan) catches the crash coming back. */
#include "t.h"

#include "core/buf.h"
#include "core/fileio.h"
#include "core/redact.h"
#include "data/image.h"
#include "data/labels.h"
#include "data/npy.h"
#include "data/npz.h"
#include "exec/csvread.h"
#include "exec/events.h"
#include "exec/tasks.h"
#include "model/onnx.h"
#include "model/pb.h"
#include "profile/flops.h"
#include "profile/profile.h"
#include "profile/trace.h"
#include "regress/regress.h"
#include "report/console.h"
#include "report/csv.h"
#include "report/html.h"
#include "report/loadrep.h"
#include "report/markdown.h"
#include "report/rutil.h"
#include "runner/child.h"

#include <dirent.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[256];

static const char *write_tmp(const char *name, const void *data, size_t n)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n)
        T_FAIL_("cannot write %s", path);
    if (f)
        fclose(f);
    return path;
}

static void put_int(mb__buf *b, uint32_t num, uint64_t v)
{
    mb__pb_put_tag(b, num, MB_PB_VARINT);
    mb__pb_put_varint(b, v);
}

static void put_str(mb__buf *b, uint32_t num, const char *s)
{
    mb__pb_put_bytes(b, num, s, strlen(s));
}

static void put_msg(mb__buf *b, uint32_t num, mb__buf *m)
{
    mb__pb_put_bytes(b, num, m->data, m->len);
    mb__buf_free(m);
}

/* Finding 1 (fuzz_onnx, UBSan): an initializer whose external_data has a
 * "location" key with no value passed a NULL payload to memchr, and the
 * empty location then named the model's directory as its data file. */
static void an_external_location_without_value_is_no_location(void)
{
    mb__buf m = MB_BUF_INIT, g = MB_BUF_INIT, t = MB_BUF_INIT, kv = MB_BUF_INIT;
    put_str(&kv, 1, "location"); /* key, no value */
    put_int(&t, 1, 4);           /* dims [4] */
    put_int(&t, 2, 1);           /* float */
    put_str(&t, 8, "w");
    put_msg(&t, 13, &kv);
    put_int(&t, 14, 1); /* data_location = EXTERNAL */
    put_msg(&g, 5, &t);
    put_str(&g, 2, "g");
    put_int(&m, 1, 8);
    put_msg(&m, 7, &g);
    mb__buf ops = MB_BUF_INIT;
    put_str(&ops, 1, "");
    put_int(&ops, 2, 17);
    put_msg(&m, 8, &ops);
    const char *path = write_tmp("noloc.onnx", m.data, m.len);
    mb__buf_free(&m);
    json_t *o = NULL;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__onnx_inspect(path, &o, &err), MB_OK);
    if (!o)
        printf("# %s\n", err.msg);
    json_t *ext = json_object_get(o, "external_data");
    EXPECT_EQ_INT(json_array_size(json_object_get(ext, "files")), 0);
    EXPECT_STR(
        json_string_value(json_array_get(json_object_get(ext, "missing"), 0)),
        "(no location)");
    EXPECT_EQ_INT(json_integer_value(json_object_get(ext, "bytes")), 0);
    json_decref(o);
}

/* Finding 2 (fuzz_onnx_tensor, ASan allocation-size-too-big): a 37-byte
 * TensorProto whose dims claim 6.4e15 bytes was allocated before its data
 * was looked at. */
static void huge_dims_over_little_data_fail_before_allocating(void)
{
    static const uint8_t crash[] = {
        0x08, 0x02, 0x10, 0x0a, 0x2a, 0x06, 0x80, 0xe7, 0x01, 0x80,
        0xe8, 0x01, 0x42, 0x01, 0x68, 0x08, 0xea, 0xea, 0xea, 0xea,
        0xea, 0xea, 0xea, 0x02, 0x10, 0x0a, 0x2a, 0x06, 0x80, 0xe7,
        0x01, 0x80, 0xe8, 0x01, 0x42, 0x01, 0x68};
    mb_tensor t;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__onnx_tensor_decode(crash, sizeof crash, NULL, &t, &err),
                  MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "only 37 bytes");
    EXPECT(t.data == NULL);
    /* raw_data that does not match the dims: refused before allocating */
    mb__buf b = MB_BUF_INIT;
    put_int(&b, 1, 1000000000);
    put_int(&b, 1, 1000);
    put_int(&b, 2, 1);
    mb__pb_put_bytes(&b, 9, "abcd", 4);
    EXPECT_EQ_INT(
        mb__onnx_tensor_decode((const uint8_t *)b.data, b.len, NULL, &t, &err),
        MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "raw_data holds 4 bytes");
    mb__buf_free(&b);
    /* dims whose byte count overflows */
    put_int(&b, 1, (uint64_t)1 << 62);
    put_int(&b, 1, 8);
    put_int(&b, 2, 1);
    EXPECT_EQ_INT(
        mb__onnx_tensor_decode((const uint8_t *)b.data, b.len, NULL, &t, &err),
        MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "too large");
    mb__buf_free(&b);
}

/* The same defect on the external data path (not fuzzed: the harness
 * skips external tensors, see docs/FUZZING.md): the dims are checked
 * against the file before the tensor is allocated. */
static void huge_dims_over_a_small_external_file_fail_before_allocating(void)
{
    static const char data[12] = {0};
    write_tmp("w.bin", data, sizeof data);
    mb__buf b = MB_BUF_INIT, e = MB_BUF_INIT;
    put_int(&b, 1, 1000000000);
    put_int(&b, 1, 1000);
    put_int(&b, 2, 1);
    put_str(&e, 1, "location");
    put_str(&e, 2, "w.bin");
    put_msg(&b, 13, &e);
    put_int(&b, 14, 1);
    mb_tensor t;
    mb_err err = {0};
    EXPECT_EQ_INT(mb__onnx_tensor_decode((const uint8_t *)b.data, b.len, tmpdir,
                                         &t, &err),
                  MB_EFORMAT);
    EXPECT_CONTAINS(err.msg, "holds 12 bytes");
    EXPECT(t.data == NULL);
    mb__buf_free(&b);
}

/* Finding 3 (fuzz_result, UBSan): a run whose latency.outliers.high is -1
 * (or batch_size is negative or 1e300) was converted to an integer as is:
 * undefined, and on x86 an outlier count of 2^64-1 in the warnings. */
static void negative_or_huge_counts_in_a_result_are_ignored(void)
{
    const char *text =
        "{\"schema\":\"mbench.result/1\",\"runs\":["
        "{\"variant\":\"a\",\"batch_size\":-5,\"latency\":{\"count\":300,"
        "\"outliers\":{\"low\":0,\"high\":-1}}},"
        "{\"variant\":\"b\",\"batch_size\":1e300,\"latency\":{\"count\":300,"
        "\"outliers\":{\"low\":1e300,\"high\":2}}}]}";
    json_error_t je;
    json_t *doc = json_loads(text, 0, &je);
    EXPECT(doc != NULL);
    const json_t *docs[1] = {doc};
    mb__rview v;
    EXPECT_EQ_INT(mb__rview_build(docs, 1, &v), 0);
    EXPECT_EQ_INT(v.n_runs, 2);
    if (v.n_runs == 2) {
        EXPECT_EQ_INT(v.runs[0].batch, -1);
        EXPECT_EQ_INT(v.runs[0].outliers, 0);
        EXPECT_EQ_INT(v.runs[1].batch, -1);
        EXPECT_EQ_INT(v.runs[1].outliers, 2);
    }
    for (size_t i = 0; i < v.n_warnings; i++)
        if (strstr(v.warnings[i], "outliers"))
            T_FAIL_("unexpected warning: %s", v.warnings[i]);
    mb__rview_free(&v);
    json_decref(doc);
}

/* Finding 5 (fuzz_result, UBSan float-cast-overflow, at once): a load
 * document without load.threads, load.sessions or search.repeat had them
 * converted from NaN to integers for the console line. */
static void a_load_document_without_counts_renders(void)
{
    const char *text = "{\"schema\":\"mbench.result/1\",\"kind\":\"load\","
                       "\"load\":{\"steps\":[],\"search\":{\"met\":true}}}";
    json_error_t je;
    json_t *doc = json_loads(text, 0, &je);
    EXPECT(doc != NULL && mb__is_load_doc(doc));
    mb__buf b = MB_BUF_INIT;
    mb__report_load_console(doc, 80, &b);
    EXPECT_CONTAINS(b.data, "? serving threads, ? sessions");
    mb__buf_free(&b);
    json_decref(doc);
}

/* ---- replay of the kept crash inputs --------------------------------- */

static void replay(const char *target, const uint8_t *d, size_t n)
{
    mb_err err = {0};
    if (!strcmp(target, "pb")) {
        mb__pb r;
        mb__pb_field f;
        mb__pb_init(&r, n ? d : NULL, n);
        while (mb__pb_next(&r, &f, &err) == MB_OK && f.num)
            ;
    } else if (!strcmp(target, "onnx")) {
        json_t *o = NULL;
        const char *path = write_tmp("replay.onnx", d, n);
        if (mb__onnx_inspect(path, &o, &err) == MB_OK)
            json_decref(o);
    } else if (!strcmp(target, "onnx_tensor")) {
        mb_tensor t;
        if (mb__onnx_tensor_decode(n ? d : NULL, n, tmpdir, &t, &err) == MB_OK)
            mb_tensor_clear(&t);
    } else if (!strcmp(target, "npy")) {
        mb_tensor t;
        if (mb__npy_read_mem(d, n, "replay.npy", &t, &err) == MB_OK)
            mb_tensor_clear(&t);
    } else if (!strcmp(target, "npz")) {
        mb_tensor *ts;
        size_t k;
        if (mb__npz_read_mem(d, n, "replay.npz", &ts, &k, &err) == MB_OK)
            mb__npz_free(ts, k);
    } else if (!strcmp(target, "labels")) {
        int64_t *v;
        size_t k;
        if (mb__labels_parse(d, n, "replay", &v, &k, &err) == MB_OK)
            free(v);
    } else if (!strcmp(target, "csv")) {
        mb__csv c;
        if (mb__csv_parse((const char *)d, n, "replay.csv", &c, &err) == MB_OK)
            mb__csv_free(&c);
    } else if (!strcmp(target, "tasks")) {
        mb__tasks t;
        if (mb__tasks_parse((const char *)d, n, "replay.csv", NULL, &t, &err) ==
            MB_OK)
            mb__tasks_free(&t);
    } else if (!strcmp(target, "events")) {
        mb__events ev;
        mb__events_init(&ev);
        if (n > 1)
            mb__events_feed(&ev, (const char *)d + 1, n - 1, 1000);
        mb__events_finish(&ev, 2000);
        mb__events_free(&ev);
    } else if (!strcmp(target, "result")) {
        json_error_t je;
        json_t *doc = json_loadb((const char *)d, n, 0, &je);
        if (doc && mb__regress_check_doc(doc, "replay", &err) == MB_OK) {
            mb__regress_opts o;
            mb__regress_defaults(&o);
            for (int m = 0; m < MB_GM_COUNT; m++)
                o.threshold[m] = 0.05;
            json_t *v = NULL;
            int code;
            if (mb__regress_run(doc, doc, &o, &v, &code, &err) == MB_OK)
                json_decref(v);
            /* what fuzz_result.c renders */
            const json_t *docs[2] = {doc, doc};
            mb__buf b = MB_BUF_INIT;
            (void)mb__report_md(docs, 2, &b, &err);
            mb__buf_free(&b);
            (void)mb__report_html(docs, 1, &b, &err);
            mb__buf_free(&b);
            mb__report_csv(doc, 1, &b);
            mb__buf_free(&b);
            mb__console_opts co = {80, 1};
            mb__report_console(doc, &co, &b);
            mb__buf_free(&b);
        }
        if (doc && mb__is_load_doc(doc)) { /* and its load writers */
            mb__buf b = MB_BUF_INIT;
            mb__report_load_console(doc, 80, &b);
            mb__buf_free(&b);
            mb__report_load_md(doc, &b);
            mb__buf_free(&b);
            mb__report_load_csv(doc, 1, &b);
            mb__buf_free(&b);
            (void)mb__report_load_html(doc, &b, &err);
            mb__buf_free(&b);
        }
        json_decref(doc);
    } else if (!strcmp(target, "machine") && n > 0) {
        /* what fuzz_machine.c feeds a machine record to */
        json_t *m = json_loadb((const char *)d + 1, n - 1, 0, NULL);
        json_t *prof =
            json_pack("{s:{s:f},s:{s:f,s:f}}", "runs", "used", 10.0, "work",
                      "flops_per_run", 2e9, "macs_per_run", 1e9);
        mb__profile_ctx ctx = {1e6, 1, 0, m, NULL};
        mb__profile_finish(prof, &ctx);
        json_decref(prof);
        json_decref(m);
    } else if (!strcmp(target, "trace")) {
        /* what fuzz_trace.c analyses (not its views) */
        mb__trace *t = NULL;
        if (mb__trace_parse((const char *)d, n, "replay", &t, &err) == MB_OK) {
            json_t *prof = NULL;
            if (mb__trace_profile(t, mb__trace_runs(t) > 1 ? 1 : 0, &prof,
                                  &err) == MB_OK) {
                mb__profile_ctx ctx = {1e6, 1, 0, NULL, NULL};
                mb__profile_finish(prof, &ctx);
                json_decref(prof);
            }
            mb__trace_free(t);
        }
    } else if (!strcmp(target, "image")) {
        /* what fuzz_image.c decodes (issue 37: damaged JPEGs) */
        mb__image im;
        if (mb__image_decode_max(d, n, "replay", (size_t)1 << 20, &im, &err) ==
            MB_OK)
            mb__image_free(&im);
    } else if (!strcmp(target, "redact")) {
        char *s = malloc(n + 1);
        if (s) {
            memcpy(s, d, n);
            s[n] = '\0';
            free(mb__redact(s));
            free(s);
        }
    } else {
        T_FAIL_("no replay for fuzz target %s", target);
    }
}

static void kept_crash_inputs_no_longer_crash(void)
{
    const char *root = getenv("MBENCH_ROOT");
    char dir[600];
    snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus", root ? root : ".");
    DIR *top = opendir(dir);
    if (!top) {
        T_FAIL_("cannot open %s (set MBENCH_ROOT)", dir);
        return;
    }
    size_t replayed = 0;
    struct dirent *e;
    while ((e = readdir(top))) {
        if (e->d_name[0] == '.')
            continue;
        char sub[900];
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        DIR *d = opendir(sub);
        if (!d)
            continue;
        struct dirent *f;
        while ((f = readdir(d))) {
            if (strncmp(f->d_name, "crash-", 6) != 0)
                continue;
            char path[1200];
            snprintf(path, sizeof path, "%s/%s", sub, f->d_name);
            char *data;
            size_t n;
            mb_err err = {0};
            if (mb__read_file(path, &data, &n, &err) != MB_OK) {
                T_FAIL_("%s", err.msg);
                continue;
            }
            replay(e->d_name, (const uint8_t *)data, n);
            free(data);
            replayed++;
        }
        closedir(d);
    }
    closedir(top);
    printf("# replayed %zu crash inputs\n", replayed);
    EXPECT(replayed >= 2);
}

/* fuzz_child (issue 26): the parent allocated the length a worker's reply
 * header claimed (h.len + 1: 2^64 - 1 wrapped to a 1-byte buffer that the
 * read then overran; 1 GiB for a stream of a few bytes).  The length is
 * now bounded and memory grows with the bytes that arrive. */
static void a_worker_reply_claiming_huge_lengths_is_refused(void)
{
    int fd[2];
    EXPECT(pipe(fd) == 0);
    struct {
        int32_t status;
        uint32_t pad;
        uint64_t len;
    } h = {0, 0, UINT64_MAX};
    EXPECT(write(fd[1], &h, sizeof h) == (ssize_t)sizeof h);
    h.len = (uint64_t)1 << 29; /* within the bound, but only 5 bytes come */
    EXPECT(write(fd[1], &h, sizeof h) == (ssize_t)sizeof h);
    EXPECT(write(fd[1], "12345", 5) == 5);
    close(fd[1]);
    int32_t st;
    char *data = NULL;
    size_t len;
    EXPECT_EQ_INT(mb__child_read_reply(fd[0], &st, &data, &len),
                  MB__REPLY_TOO_LONG);
    EXPECT(data == NULL);
    EXPECT_EQ_INT(mb__child_read_reply(fd[0], &st, &data, &len), MB__REPLY_EOF);
    EXPECT(data == NULL);
    close(fd[0]);
}

/* fuzz_machine (issue 26): a profile without kernel times (a hand-made
 * one, or a machine record whose peaks the harness fed in) made
 * lat - kern NaN, converted to an integer: undefined behaviour. */
static void a_profile_without_kernel_times_finishes_with_nulls(void)
{
    json_t *prof = json_pack("{s:{s:f},s:{s:f},s:{}}", "runs", "used", 1.0,
                             "work", "flops_per_run", 1e9, "reconcile");
    mb__profile_ctx ctx = {1e6, 1, 0, NULL, NULL};
    mb__profile_finish(prof, &ctx);
    EXPECT(json_is_null(json_object_get(json_object_get(prof, "reconcile"),
                                        "unaccounted_vs_latency_ns")));
    json_decref(prof);
}

/* fuzz_trace (issue 26): a Gemm whose first input's shape the trace
 * gave as no array (rank -1, unknown) read dims[-3] (UBSan
 * index out of bounds in mb__flops_macs). */
static void an_input_of_unknown_rank_has_unknown_macs(void)
{
    mb__tshape in[2] = {{"float", -1, {0}}, {"float", 1, {10}}};
    mb__tshape out[1] = {{"float", 2, {1, 10}}};
    int64_t macs = 7;
    EXPECT_EQ_INT(mb__flops_macs("Gemm", in, 2, out, 1, &macs),
                  MB_FLOPS_UNKNOWN);
    EXPECT_EQ_INT(macs, 0);
    in[0] = (mb__tshape){"float", 2, {1, 5}};
    out[0].rank = -1;
    EXPECT_EQ_INT(mb__flops_macs("MatMul", in, 2, out, 1, &macs),
                  MB_FLOPS_UNKNOWN);
    in[0] = (mb__tshape){"float", 2, {1, 5}};
    out[0] = (mb__tshape){"float", 2, {1, 10}};
    EXPECT_EQ_INT(mb__flops_macs("Gemm", in, 2, out, 1, &macs), MB_FLOPS_EXACT);
    EXPECT_EQ_INT(macs, 50);
}

int main(void)
{
    RUN(an_input_of_unknown_rank_has_unknown_macs);
    RUN(a_worker_reply_claiming_huge_lengths_is_refused);
    RUN(a_profile_without_kernel_times_finishes_with_nulls);
    const char *base = getenv("MBENCH_TEST_TMP");
    snprintf(tmpdir, sizeof tmpdir, "%s/fuzz-found.XXXXXX",
             base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        printf("not ok 1 - cannot create a temporary directory\n");
        return 1;
    }
    RUN(an_external_location_without_value_is_no_location);
    RUN(huge_dims_over_little_data_fail_before_allocating);
    RUN(huge_dims_over_a_small_external_file_fail_before_allocating);
    RUN(negative_or_huge_counts_in_a_result_are_ignored);
    RUN(a_load_document_without_counts_renders);
    RUN(kept_crash_inputs_no_longer_crash);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", tmpdir);
    return T_DONE();
}
