/*
 * python_overhead.c - mbench's median against a bare Python loop around
 * the framework call, on the same model in the same process.
 *
 * mbench's side is its own measurement loop (mb__bench_iterate through the
 * python plugin: the loop of `mbench run`).  The bare side is what a user
 * would write, run in the interpreter the plugin started, on the model
 * object the plugin built (mbench.frameworks.last_session):
 *   torch:  with torch.inference_mode(): t = perf_counter_ns(); model(x); ...
 *   jax:    f = jax.jit(fn); t = perf_counter_ns();
 *           jax.block_until_ready(f(params, x)); ...
 * mbench's side includes what every call into the plugin costs (taking
 * and giving back the GIL); the bare loop runs inside Python, holding it.
 * The two alternate in blocks (which goes first alternates too), so that
 * drift and the other load on the machine hit both alike.  Reported: both
 * medians, their ratio, and the per-block ratio of medians with a 95% CI
 * (Student t over the paired blocks).
 *
 * Usage: python_overhead SPEC VENV NAME=D0,D1,... [BLOCKS [BLOCK]]
 *        (goal: mbench's median within +-2% of the bare loop's)
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "core/alloc.h"
#include "core/stats.h"
#include "plan/plan.h"
#include "runner/runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "python_overhead: %s: %s\n", what, msg);
    exit(1);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Student t quantile 0.975 (df >= 1): a table to 30, then the limit. */
static double t975(int df)
{
    static const double t[] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447,
                               2.365, 2.306,  2.262, 2.228, 2.201, 2.179, 2.160,
                               2.145, 2.131,  2.120, 2.110, 2.101, 2.093, 2.086,
                               2.080, 2.074,  2.069, 2.064, 2.060, 2.056, 2.052,
                               2.048, 2.045,  2.042};
    return df <= 30 ? t[df] : 1.95996 + 2.37 / df;
}

/* The bare loops, one per framework, defined in the plugin's
 * interpreter. */
static const char kBare[] =
    "import time\n"
    "import mbench.frameworks as F\n"
    "s = F.last_session\n"
    "ns = time.perf_counter_ns\n"
    "if s.framework == 'torch':\n"
    "    import torch\n"
    "    m, args = s.model, s.args\n"
    "    def bare(n):\n"
    "        out = [0] * n\n"
    "        with torch.inference_mode():\n"
    "            for i in range(n):\n"
    "                t = ns(); m(*args); out[i] = ns() - t\n"
    "        return out\n"
    "elif s.framework == 'jax':\n"
    "    import jax\n"
    "    f, args, wait = jax.jit(s.raw), s.args, jax.block_until_ready\n"
    "    def bare(n):\n"
    "        out = [0] * n\n"
    "        for i in range(n):\n"
    "            t = ns(); wait(f(*args)); out[i] = ns() - t\n"
    "        return out\n"
    "else:\n"
    "    fn, args = s.fn, s.args\n"
    "    def bare(n):\n"
    "        out = [0] * n\n"
    "        for i in range(n):\n"
    "            t = ns(); fn(*args); out[i] = ns() - t\n"
    "        return out\n";

/* (The plugin gives the GIL back after every call: take it here too.) */
static PyObject *bare_fn(void)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *g = PyDict_New();
    PyDict_SetItemString(g, "__builtins__", PyEval_GetBuiltins());
    PyObject *r = PyRun_String(kBare, Py_file_input, g, g);
    if (!r) {
        PyErr_Print();
        die("bare loop", "cannot define it");
    }
    Py_DECREF(r);
    PyObject *f = PyDict_GetItemString(g, "bare");
    Py_XINCREF(f);
    Py_DECREF(g);
    PyGILState_Release(gil);
    return f;
}

static void bare_block(PyObject *bare, int n, double *out)
{
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject *l = PyObject_CallFunction(bare, "i", n);
    if (!l) {
        PyErr_Print();
        die("bare loop", "failed");
    }
    for (int i = 0; i < n; i++)
        out[i] = PyLong_AsDouble(PyList_GET_ITEM(l, i));
    Py_DECREF(l);
    PyGILState_Release(gil);
}

int main(int argc, char **argv)
{
    if (argc < 4)
        die("usage", "python_overhead SPEC VENV NAME=D0,D1,... [BLOCKS "
                     "[BLOCK]]");
    int rounds = argc > 4 ? atoi(argv[4]) : 60;
    int block = argc > 5 ? atoi(argv[5]) : 200;
    if (rounds < 2 || block < 1)
        die("usage", "BLOCKS >= 2 and BLOCK >= 1");
    mb__plan p;
    mb__plan_defaults(&p);
    p.model_path = mb__strdup(argv[1]);
    mb__plan_set_opt(&p, "python", argv[2]);
    mb__plan_set_opt(&p, "threads", "1");
    const char *eq = strchr(argv[3], '=');
    int64_t dims[MB_MAX_RANK];
    int rank = 0;
    for (const char *c = eq ? eq + 1 : ""; *c && rank < MB_MAX_RANK;) {
        dims[rank++] = strtoll(c, (char **)&c, 10);
        c += *c == ',';
    }
    char name[64];
    snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - argv[3]) : 0, argv[3]);
    mb__plan_set_shape(&p, name, dims, rank);
    mb__bench *b;
    mb_err e = {0};
    if (mb__bench_open(&p, 1, &b, &e))
        die(argv[1], e.msg);
    PyObject *bare = bare_fn();
    double *rb = mb__calloc((size_t)block, sizeof *rb);
    double *rm = mb__calloc((size_t)block, sizeof *rm);
    double *all_b = mb__calloc((size_t)(block * rounds), sizeof *all_b);
    double *all_m = mb__calloc((size_t)(block * rounds), sizeof *all_m);
    double *lr = mb__calloc((size_t)rounds, sizeof *lr);
    int64_t *tmp = mb__calloc((size_t)block, sizeof *tmp);
    if (!rb || !rm || !all_b || !all_m || !lr || !tmp)
        die("memory", "out of memory");
    bare_block(bare, 50, rb); /* warm both */
    if (mb__bench_iterate(b, 50 < block ? 50 : block, tmp, &e))
        die("mbench loop", e.msg);
    for (int r = 0; r < rounds; r++) {
        for (int side = 0; side < 2; side++) {
            if ((side == 0) == (r % 2 == 0)) {
                bare_block(bare, block, rb);
            } else {
                if (mb__bench_iterate(b, block, tmp, &e))
                    die("mbench loop", e.msg);
                for (int i = 0; i < block; i++)
                    rm[i] = (double)tmp[i];
            }
        }
        memcpy(all_b + (size_t)r * block, rb, (size_t)block * sizeof *rb);
        memcpy(all_m + (size_t)r * block, rm, (size_t)block * sizeof *rm);
        lr[r] = log(median(rm, (size_t)block) / median(rb, (size_t)block));
    }
    size_t n = (size_t)rounds * (size_t)block;
    double mb_med = median(all_m, n), bare_med = median(all_b, n);
    double mean = 0, var = 0;
    for (int r = 0; r < rounds; r++)
        mean += lr[r] / rounds;
    for (int r = 0; r < rounds; r++)
        var += (lr[r] - mean) * (lr[r] - mean) / (rounds - 1);
    double half = t975(rounds - 1) * sqrt(var / rounds);
    double ratio = mb_med / bare_med;
    json_t *rt = mb__bench_runtime_json(b);
    printf("python_overhead: %s [%s %s], batch 1, 1 thread, %d interleaved "
           "blocks of %d\n",
           argv[1], json_string_value(json_object_get(rt, "name")),
           json_string_value(json_object_get(rt, "version")), rounds, block);
    printf("  bare Python loop:        median %.0f ns\n", bare_med);
    printf("  mbench measurement loop: median %.0f ns\n", mb_med);
    printf("  ratio of the medians: %.4f (%+.2f%%); per-block ratio %+.2f%% "
           "[95%% CI %+.2f%%, %+.2f%%]\n",
           ratio, (ratio - 1) * 100, (exp(mean) - 1) * 100,
           (exp(mean - half) - 1) * 100, (exp(mean + half) - 1) * 100);
    printf("  goal (within +-2%%): %s\n",
           fabs(ratio - 1) <= 0.02 ? "met" : "NOT met");
    json_decref(rt);
    PyGILState_STATE gil = PyGILState_Ensure();
    Py_DECREF(bare);
    PyGILState_Release(gil);
    free(rb);
    free(rm);
    free(all_b);
    free(all_m);
    free(lr);
    free(tmp);
    mb__bench_close(b);
    mb__plan_free(&p);
    return fabs(ratio - 1) <= 0.02 ? 0 : 3;
}
