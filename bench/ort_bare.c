/* ort_bare.c - mbench's reported median against a bare C loop around the
 * ONNX Runtime Run call on the same model and inputs, interleaved in one
 * process: blocks of the bare loop and blocks of mbench's measurement loop
 * alternate, so that drift affects both alike.
 * Usage: ort_bare MODEL [BATCH]   (goal: medians within 1%) */
#include "backend/ort_abi.h"
#include "runner/runner.h"

#include "core/alloc.h"
#include "core/clock.h"
#include "core/stats.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIE(...)                                                               \
    do {                                                                       \
        fprintf(stderr, "ort_bare: " __VA_ARGS__);                             \
        fputc('\n', stderr);                                                   \
        exit(1);                                                               \
    } while (0)
#define OK(call)                                                               \
    do {                                                                       \
        OrtStatus *st_ = (call);                                               \
        if (st_)                                                               \
            DIE("%s: %s", #call, api.GetErrorMessage(st_));                    \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 2)
        DIE("usage: ort_bare MODEL [BATCH]");
    const char *model = argv[1];
    int64_t batch = argc > 2 ? atoll(argv[2]) : 1;
    const char *lib = getenv("MBENCH_ORT_LIB");
    if (!lib)
        lib = "build/ort/libonnxruntime.so.1";

    /* mbench's side: the library's own loop, exactly as `mbench run`. */
    mb__plan p;
    mb__plan_defaults(&p);
    p.model_path = mb__strdup(model);
    p.ort_lib = mb__strdup(lib);
    mb__plan_set_opt(&p, "threads", "1");
    mb__bench *b;
    mb_err e = {0};
    if (mb__bench_open(&p, batch, &b, &e))
        DIE("%s", e.msg);
    size_t n_in;
    const mb_tensor *in = mb__bench_inputs(b, &n_in);
    size_t n_out;
    const mb_io_desc *od = mb__bench_describe(b, 1, &n_out);
    const mb_io_desc *id = mb__bench_describe(b, 0, &n_in);

    /* The bare side: the same library, its own session, same inputs. */
    void *dl = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!dl)
        DIE("%s", dlerror());
    void *sym = dlsym(dl, "OrtGetApiBase");
    ort_get_api_base_fn gb;
    memcpy(&gb, &sym, sizeof sym);
    const void *const *tbl = gb()->GetApi(MB_ORT_MAX_API);
    ort_api api;
#define R(slot, name, ret, params)                                             \
    memcpy(&api.name, &tbl[slot], sizeof api.name);
    MB_ORT_SLOTS(R)
#undef R
    OrtEnv *env;
    OrtSessionOptions *so;
    OrtSession *sess;
    OrtMemoryInfo *mem;
    OK(api.CreateEnvWithCustomLogger(NULL, NULL, ORT_LOG_ERROR, "bare", &env));
    OK(api.CreateSessionOptions(&so));
    OK(api.SetIntraOpNumThreads(so, 1));
    OK(api.CreateSession(env, model, so, &sess));
    OK(api.CreateCpuMemoryInfo(ORT_ALLOC_DEVICE, ORT_MEM_DEFAULT, &mem));
    OrtValue **vals = calloc(n_in, sizeof *vals);
    const char **in_names = calloc(n_in, sizeof *in_names);
    const char **out_names = calloc(n_out, sizeof *out_names);
    OrtValue **outs = calloc(n_out, sizeof *outs);
    for (size_t i = 0; i < n_in; i++) {
        in_names[i] = id[i].name;
        OK(api.CreateTensorWithDataAsOrtValue(mem, in[i].data, in[i].nbytes,
                                              in[i].dims, (size_t)in[i].rank,
                                              (int)in[i].dtype, &vals[i]));
    }
    for (size_t i = 0; i < n_out; i++)
        out_names[i] = od[i].name;

    enum { BLOCK = 200, ROUNDS = 25 };
    double *bare = mb__calloc(BLOCK * ROUNDS, sizeof *bare);
    double *mine = mb__calloc(BLOCK * ROUNDS, sizeof *mine);
    int64_t tmp[BLOCK];
    for (int w = 0; w < 50; w++) { /* warm both */
        OK(api.Run(sess, NULL, in_names, (const OrtValue *const *)vals, n_in,
                   out_names, n_out, outs));
        for (size_t k = 0; k < n_out; k++) {
            api.ReleaseValue(outs[k]);
            outs[k] = NULL;
        }
        mb__bench_iterate(b, 1, tmp, &e);
    }
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < BLOCK; i++) {
            int64_t t0 = mb_now_ns();
            OK(api.Run(sess, NULL, in_names, (const OrtValue *const *)vals,
                       n_in, out_names, n_out, outs));
            for (size_t k = 0; k < n_out; k++) {
                api.ReleaseValue(outs[k]);
                outs[k] = NULL;
            }
            bare[r * BLOCK + i] = (double)(mb_now_ns() - t0);
        }
        if (mb__bench_iterate(b, BLOCK, tmp, &e))
            DIE("%s", e.msg);
        for (int i = 0; i < BLOCK; i++)
            mine[r * BLOCK + i] = (double)tmp[i];
    }
    mb__summary sb, sm;
    mb__summarize(bare, BLOCK * ROUNDS, &sb);
    mb__summarize(mine, BLOCK * ROUNDS, &sm);
    double diff = (sm.median - sb.median) / sb.median * 100;
    printf("ort_bare: %s, batch %lld, 1 thread, %d interleaved blocks of %d\n",
           model, (long long)batch, ROUNDS, BLOCK);
    printf("  bare C loop around Run:  median %.0f ns [95%% CI %.0f, %.0f]\n",
           sb.median, sb.median_ci_lo, sb.median_ci_hi);
    printf("  mbench measurement loop: median %.0f ns [95%% CI %.0f, %.0f]\n",
           sm.median, sm.median_ci_lo, sm.median_ci_hi);
    printf("  difference: %+.2f%% (goal: within 1%%): %s\n", diff,
           diff < 1 && diff > -1 ? "met" : "NOT met");
    for (size_t i = 0; i < n_in; i++)
        api.ReleaseValue(vals[i]);
    api.ReleaseSession(sess);
    api.ReleaseSessionOptions(so);
    api.ReleaseMemoryInfo(mem);
    api.ReleaseEnv(env);
    mb__bench_close(b);
    mb__plan_free(&p);
    free(bare);
    free(mine);
    free(vals);
    free(in_names);
    free(out_names);
    free(outs);
    return 0;
}
