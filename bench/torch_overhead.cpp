/*
 * torch_overhead.cpp - what mbench adds to a bare LibTorch forward loop.
 *
 * In one process, on the same TorchScript model, the same inputs and the
 * same intra-op threads: a bare C++ loop (module.forward under
 * c10::InferenceMode, timed with the same clock) and mbench's own
 * measurement loop (mb__bench_iterate through the torch plugin: the loop of
 * `mbench run`) alternate in blocks, so that drift and other load affect
 * both alike.  Reported: both medians, and the difference with a 95% CI
 * from the per-round ratios of medians (Student t over the paired rounds,
 * the round being the unit of replication).
 *
 * Usage: torch_overhead MODEL.pt [BATCH [THREADS]]   (goal: within 1%)
 */
extern "C" {
#include "core/alloc.h"
#include "core/clock.h"
#include "core/stats.h"
#include "plan/plan.h"
#include "runner/runner.h"
}

#include <ATen/Parallel.h>
#include <torch/script.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace
{

[[noreturn]] void die(const std::string &m)
{
    fprintf(stderr, "torch_overhead: %s\n", m.c_str());
    exit(1);
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Student t quantile 0.975 for df degrees of freedom (df >= 2; a table
 * for small df, the normal limit with a first-order term beyond). */
double t975(int df)
{
    static const double t[] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447,
                               2.365, 2.306,  2.262, 2.228, 2.201, 2.179, 2.160,
                               2.145, 2.131,  2.120, 2.110, 2.101, 2.093, 2.086,
                               2.080, 2.074,  2.069, 2.064, 2.060, 2.056, 2.052,
                               2.048, 2.045,  2.042};
    if (df <= 30)
        return t[df];
    return 1.95996 + 2.37 / df;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2)
        die("usage: torch_overhead MODEL.pt [BATCH [THREADS]]");
    const char *model = argv[1];
    int64_t batch = argc > 2 ? atoll(argv[2]) : 1;
    const char *threads = argc > 3 ? argv[3] : "1";

    /* mbench's side: the library's own loop, exactly as `mbench run`. */
    mb__plan p;
    mb__plan_defaults(&p);
    p.model_path = mb__strdup(model);
    mb__plan_set_opt(&p, "threads", threads);
    mb__bench *b;
    mb_err e = {};
    if (mb__bench_open(&p, batch, &b, &e))
        die(e.msg);
    size_t n_in;
    const mb_tensor *in = mb__bench_inputs(b, &n_in);

    /* The bare side: its own module, the same inputs, the same threads
     * (at::set_num_threads is process-wide: the plugin set it). */
    torch::jit::Module m;
    try {
        m = torch::jit::load(model);
        m.eval();
    } catch (const std::exception &ex) {
        die(ex.what());
    }
    std::vector<c10::IValue> args;
    for (size_t i = 0; i < n_in; i++) {
        if (in[i].dtype != MB_DTYPE_FLOAT32)
            die("the bare loop feeds float32 inputs only");
        std::vector<int64_t> dims(in[i].dims, in[i].dims + in[i].rank);
        args.emplace_back(torch::from_blob(in[i].data, dims, torch::kFloat));
    }

    enum { BLOCK = 100, ROUNDS = 25 };
    std::vector<double> bare, mine, ratio;
    std::vector<int64_t> tmp(BLOCK);
    auto bare_once = [&] {
        c10::InferenceMode guard;
        c10::IValue out = m.forward(args);
        (void)out;
    };
    for (int w = 0; w < 50; w++) { /* warm both (the profiling executor) */
        bare_once();
        if (mb__bench_iterate(b, 1, tmp.data(), &e))
            die(e.msg);
    }
    for (int r = 0; r < ROUNDS; r++) {
        std::vector<double> rb, rm;
        for (int i = 0; i < BLOCK; i++) {
            int64_t t0 = mb_now_ns();
            bare_once();
            rb.push_back((double)(mb_now_ns() - t0));
        }
        if (mb__bench_iterate(b, BLOCK, tmp.data(), &e))
            die(e.msg);
        for (int i = 0; i < BLOCK; i++)
            rm.push_back((double)tmp[i]);
        ratio.push_back(std::log(median(rm) / median(rb)));
        bare.insert(bare.end(), rb.begin(), rb.end());
        mine.insert(mine.end(), rm.begin(), rm.end());
    }
    mb__summary sb, sm;
    mb__summarize(bare.data(), bare.size(), &sb);
    mb__summarize(mine.data(), mine.size(), &sm);
    double mean = 0, var = 0;
    for (double x : ratio)
        mean += x / ROUNDS;
    for (double x : ratio)
        var += (x - mean) * (x - mean) / (ROUNDS - 1);
    double half = t975(ROUNDS - 1) * std::sqrt(var / ROUNDS);
    double diff = (sm.median - sb.median) / sb.median * 100;
    printf("torch_overhead: %s, batch %lld, %s intra-op thread(s) (LibTorch "
           "reports %d), %d interleaved blocks of %d\n",
           model, (long long)batch, threads, at::get_num_threads(), ROUNDS,
           BLOCK);
    printf("  bare C++ forward loop:   median %.0f ns [95%% CI %.0f, %.0f]\n",
           sb.median, sb.median_ci_lo, sb.median_ci_hi);
    printf("  mbench measurement loop: median %.0f ns [95%% CI %.0f, %.0f]\n",
           sm.median, sm.median_ci_lo, sm.median_ci_hi);
    printf("  difference of the medians: %+.2f%%; per-round ratio %+.2f%% "
           "[95%% CI %+.2f%%, %+.2f%%] over %d paired rounds\n",
           diff, (std::exp(mean) - 1) * 100, (std::exp(mean - half) - 1) * 100,
           (std::exp(mean + half) - 1) * 100, ROUNDS);
    double hi = (std::exp(mean + half) - 1) * 100;
    printf("  goal (mbench adds less than 1%%): %s by the medians; %s\n",
           diff < 1 ? "met" : "NOT met",
           hi < 1 ? "established by the paired CI (upper bound below 1%)"
                  : "the paired CI is wider than 1% (load from other work?): "
                    "not established by it");
    mb__bench_close(b);
    mb__plan_free(&p);
    return 0;
}
