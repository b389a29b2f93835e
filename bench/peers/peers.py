"""bench/peers/peers.py - mbench against the tools users would otherwise run,
each pair interleaved in one run (make bench-peers; docs/PERFORMANCE.md).

  peers.py WHAT TMPDIR [PAIRS]     WHAT: openvino | ort | metrics | ssim | python | loadgen

Run with the peers venv's python (make frameworks).  The environment names
the tools: MBENCH (the binary), MBENCH_ROOT, OV_VENV (the openvino venv:
benchmark_app), ORT_LIB (the onnxruntime wheel's libonnxruntime, so that
mbench and InferenceSession run the same library).

Every pair runs the two sides back to back, alternating which goes first,
PAIRS times; the figure is the median over pairs of the per-pair ratio
(mbench / peer), with its range, and each side's median of medians.  The
load average is printed at the start and the end of each pair.  Prints
Markdown.
"""
import json
import os
import statistics
import subprocess
import sys
import time

MBENCH = os.environ.get("MBENCH", "build/mbench")
ROOT = os.environ.get("MBENCH_ROOT", ".")


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def run(cmd):
    """Runs cmd; returns (wall seconds, stdout).  Exits on failure."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate()
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("peers.py: %s failed (%d): %s" % (" ".join(cmd), p.returncode, err.strip()[-600:]))
    return wall, out


def timed_rss(cmd):
    """Runs cmd (stdout discarded); returns its wall time and its own peak
    RSS in KiB (os.wait4: the rusage of that child alone).  Exit 1 is a
    verdict (a failed gate), not an error."""
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        try:
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        sys.exit("peers.py: %s failed" % " ".join(cmd))
    CPU.append(ru.ru_utime + ru.ru_stime)
    return wall, ru.ru_maxrss


HEADER = ("| pair | mbench | peer | median ratio mbench/peer (range) | geometric mean "
          "[95% CI] | pairs | load |\n|---|---:|---:|---:|---:|---:|---:|")

CPU = []  # CPU seconds (user + system) of every timed_rss child, in order


def geo_ci(r):
    """Geometric mean of the ratios and its 95% CI (Student t over the
    pairs' log ratios: each pair is one replicate, its two sides run back
    to back under the same load)."""
    import math
    from scipy.stats import t as student
    lg = [math.log(x) for x in r]
    m = statistics.fmean(lg)
    if len(lg) < 2:
        return math.exp(m), float("nan"), float("nan")
    h = student.ppf(0.975, len(lg) - 1) * statistics.stdev(lg) / math.sqrt(len(lg))
    return math.exp(m), math.exp(m - h), math.exp(m + h)


def summary(name, unit, a, b, a_name, b_name, loads, note=""):
    r = [x / y for x, y in zip(a, b)]
    g, lo, hi = geo_ci(r)
    print("| %s | %s %.4g %s | %s %.4g %s | **%.4g** (%.4g-%.4g) | %.4g [%.4g, %.4g] | %d | %.1f-%.1f |%s" % (
        name, a_name, statistics.median(a), unit, b_name, statistics.median(b), unit,
        statistics.median(r), min(r), max(r), g, lo, hi, len(r), min(loads), max(loads), note))
    return statistics.median(r)


# ---- OpenVINO: mbench's openvino backend vs benchmark_app -------------------

def openvino(tmp, pairs, secs=6):
    model = os.path.join(tmp, "mobilenetv2.onnx")
    cfg = os.path.join(tmp, "ov_config.json")
    with open(cfg, "w") as f:
        json.dump({"CPU": {"PERFORMANCE_HINT": "LATENCY", "NUM_STREAMS": "1",
                           "INFERENCE_NUM_THREADS": "1", "ENABLE_CPU_PINNING": "NO"}}, f)
    # benchmark_app's own main() through bapp_raw.py, which keeps the
    # per-iteration latencies it measured: its reports round them to 0.01 ms.
    ovpy = os.path.join(os.environ["OV_VENV"], "bin", "python")
    raw = os.path.join(tmp, "bapp_raw.json")
    rep = os.path.join(tmp, "bapp")
    os.makedirs(rep, exist_ok=True)
    mcmd = [MBENCH, "run", model, "--backend", "openvino", "--threads", "1",
            "--backend-opt", "streams=1", "--backend-opt", "hint=latency",
            "--backend-opt", "pinning=0", "--processes", "1", "--warmup", "1",
            "--min-time", "%ds" % secs, "--max-time", "%ds" % (secs + 1),
            "--max-iterations", "100000", "--json", os.path.join(tmp, "ov.json"), "-q"]
    bcmd = [ovpy, os.path.join(ROOT, "bench", "peers", "bapp_raw.py"), raw, "-m", model, "-d", "CPU", "-api", "sync", "-t", str(secs),
            "-load_config", cfg, "-shape", "[1,3,224,224]", "-json_stats",
            "-report_type", "no_counters", "-report_folder", rep]
    a, b, loads = [], [], []

    def side_m():
        run(mcmd)
        d = json.load(open(os.path.join(tmp, "ov.json")))
        a.append(d["runs"][0]["latency"]["median"] / 1e6)

    rounded = []

    def side_b():
        run(bcmd)
        b.append(json.load(open(raw))["median_ms"])
        d = json.load(open(os.path.join(rep, "benchmark_report.json")))
        rounded.append(float(d["execution_results"]["latency (ms)"]))

    for i in range(pairs):
        loads.append(loadavg())
        for side in ((side_m, side_b) if i % 2 == 0 else (side_b, side_m)):
            side()
        loads.append(loadavg())
    print("OpenVINO %s, MobileNetV2 1x3x224x224 (ONNX, random weights), latency hint, "
          "1 stream, 1 thread, no pinning, sync API, %d s per side per pair\n" %
          (json.load(open(os.path.join(tmp, "ov.json")))["runs"][0]["runtime"]["version"], secs))
    print(HEADER)
    summary("mbench run --backend openvino vs benchmark_app (median latency, its raw "
            "per-iteration latencies)", "ms", a, b, "", "", loads)
    print("\nper pair (ms): mbench %s; benchmark_app (median of its per-iteration "
          "latencies) %s; benchmark_app's JSON report (rounded to 0.01 ms) %s" %
          (" ".join("%.4f" % x for x in a), " ".join("%.4f" % x for x in b),
           " ".join("%.2f" % x for x in rounded)))


# ---- ONNX Runtime: mbench vs a Python InferenceSession.run loop ---------------

ORT_LOOP = r"""
import sys, time, statistics, numpy as np, onnxruntime as ort
model, secs = sys.argv[1], float(sys.argv[2])
so = ort.SessionOptions()
so.intra_op_num_threads = 1
so.inter_op_num_threads = 1
so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
s = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
i = s.get_inputs()[0]
x = np.random.default_rng(42).random([1] + list(i.shape[1:]), dtype=np.float32)
feed = {i.name: x}
for _ in range(10):
    s.run(None, feed)
lat = []
end = time.perf_counter() + secs
while time.perf_counter() < end:
    t0 = time.perf_counter_ns()
    s.run(None, feed)
    lat.append(time.perf_counter_ns() - t0)
print(statistics.median(lat) / 1e6, len(lat), min(lat) / 1e6)
"""


def ort_pair(tmp, pairs, secs=5):
    model = os.path.join(tmp, "mobilenetv2.onnx")
    lib = os.environ["ORT_LIB"]
    mcmd = [MBENCH, "run", model, "--ort-lib", lib, "--threads", "1", "--processes", "1",
            "--warmup", "10", "--min-time", "%ds" % secs, "--max-time", "%ds" % (secs + 1),
            "--max-iterations", "100000", "--json", os.path.join(tmp, "ort.json"), "-q"]
    pcmd = [sys.executable, "-c", ORT_LOOP, model, str(secs)]
    a, b, loads = [], [], []

    def side_m():
        run(mcmd)
        lat = json.load(open(os.path.join(tmp, "ort.json")))["runs"][0]["latency"]
        a.append(lat["median"] / 1e6)

    def side_p():
        o = run(pcmd)[1].split()
        b.append(float(o[0]))

    for i in range(pairs):
        loads.append(loadavg())
        for side in ((side_m, side_p) if i % 2 == 0 else (side_p, side_m)):
            side()
        loads.append(loadavg())
    import onnxruntime
    print("ONNX Runtime %s (the wheel's libonnxruntime for both), MobileNetV2 batch 1, "
          "1 intra-op thread, sequential, %d s per side per pair\n" % (onnxruntime.__version__, secs))
    print(HEADER)
    summary("mbench run vs InferenceSession.run loop (median latency)", "ms", a, b, "", "", loads)
    print("\nper pair (ms): mbench %s; Python loop %s" %
          (" ".join("%.2f" % x for x in a), " ".join("%.2f" % x for x in b)))


# ---- Python callables: mbench's python backend vs pyperf and pytest-benchmark -

CALLABLE = r"""
import numpy as np

_W = np.random.default_rng(0).standard_normal((256, 256)).astype(np.float32)


def f(x):
    return np.tanh(x @ _W)


def make():
    return f
"""

PYPERF = r"""
import numpy as np, pyperf
import fn  # beside this script: its directory is sys.path[0]
x = np.random.default_rng(1).random((1, 256), dtype=np.float32)
pyperf.Runner().bench_func("f", fn.f, x)
"""

PYTEST = r"""
import numpy as np
import fn
x = np.random.default_rng(1).random((1, 256), dtype=np.float32)


def test_f(benchmark):
    benchmark(fn.f, x)
"""


def python_pair(tmp, pairs, secs=2):
    """One numpy function, f(x) = tanh(x @ W) on [1, 256] float32, timed by
    mbench's python backend (in the peers venv), pyperf's bench_func and
    pytest-benchmark's fixture; the figure is each tool's median per call."""
    d = os.path.join(tmp, "pyfn")
    os.makedirs(d, exist_ok=True)
    for name, text in (("fn.py", CALLABLE), ("pyperf_f.py", PYPERF), ("test_fn.py", PYTEST)):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    venv = os.path.dirname(os.path.dirname(sys.executable))
    mj, pj, tj = (os.path.join(d, n) for n in ("m.json", "pyperf.json", "pytest.json"))
    mcmd = [MBENCH, "run", os.path.join(d, "fn.py") + ":make", "--backend-opt", "python=" + venv,
            "--shape", "x=1,256", "--processes", "1", "--min-time", "%ds" % secs,
            "--max-time", "%ds" % (secs + 1), "--json", mj, "-q"]
    # pyperf: 3 worker processes of 3 values each (each value the mean per
    # call over a loop calibrated to 100 ms); its median is the median of
    # those means, so it is set beside mbench's mean as well as its median.
    pcmd = [sys.executable, os.path.join(d, "pyperf_f.py"), "--processes", "3",
            "--values", "3", "--quiet", "-o", pj]
    tcmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", d,
            os.path.join(d, "test_fn.py"), "--benchmark-max-time=%d" % secs,
            "--benchmark-json=" + tj]
    m, mm, pp, pt, loads = [], [], [], [], []

    def side_m():
        run(mcmd)
        lat = json.load(open(mj))["runs"][0]["latency"]
        m.append(lat["median"] / 1e3)
        mm.append(lat["mean"] / 1e3)

    def side_pyperf():
        if os.path.exists(pj):
            os.unlink(pj)
        run(pcmd)
        import pyperf
        pp.append(pyperf.Benchmark.load(pj).median() * 1e6)

    def side_pytest():
        run(tcmd)
        pt.append(json.load(open(tj))["benchmarks"][0]["stats"]["median"] * 1e6)

    for i in range(pairs):
        loads.append(loadavg())
        order = (side_m, side_pyperf, side_pytest)
        for side in (order if i % 2 == 0 else order[::-1]):
            side()
        loads.append(loadavg())
    import numpy
    import pyperf
    import pytest_benchmark
    print("f(x) = tanh(x @ W), x [1, 256] float32, numpy %s, one thread of the caller; "
          "mbench %d s per pair (--processes 1), pyperf %s (3 processes x 3 values), "
          "pytest-benchmark %s (--benchmark-max-time=%d)\n" %
          (numpy.__version__, secs, pyperf.__version__, pytest_benchmark.__version__, secs))
    print(HEADER)
    summary("mbench run FILE.py:make (python backend) vs pyperf bench_func (median per call)",
            "us", m, pp, "", "", loads)
    summary("mbench's mean per call vs pyperf's median of loop means", "us", mm, pp, "", "",
            loads)
    summary("mbench run FILE.py:make (python backend) vs pytest-benchmark (median per call)",
            "us", m, pt, "", "", loads)
    print("\nper pair (us): mbench median %s; mbench mean %s; pyperf %s; pytest-benchmark %s" %
          (" ".join("%.2f" % x for x in m), " ".join("%.2f" % x for x in mm),
           " ".join("%.2f" % x for x in pp),
           " ".join("%.2f" % x for x in pt)))


# ---- metrics: mbench diff vs reading the files, numpy and scikit-image --------

READ = r"""
import sys, time, numpy as np
t = time.perf_counter()
a = np.load(sys.argv[1]); b = np.load(sys.argv[2])
s = float(a.flat[-1]) + float(b.flat[-1])
print(time.perf_counter() - t)
"""

NUMPY_SET = r"""
import sys, time, numpy as np
t = time.perf_counter()
a = np.load(sys.argv[1]).astype(np.float64); b = np.load(sys.argv[2]).astype(np.float64)
fa, fb = np.isfinite(a), np.isfinite(b); m = fa & fb
x, y = a[m], b[m]; d = y - x; ad = np.abs(d)
mae = ad.mean(); mse = (d * d).mean(); mx = ad.max(); ia = int(np.argmax(ad))
na, nb = np.linalg.norm(x), np.linalg.norm(y)
cos = np.dot(x, y) / (na * nb); rel = np.linalg.norm(d) / na
p = np.corrcoef(x, y)[0, 1]
fail = int((~np.isclose(b, a)).sum())
R = x.max() - x.min(); psnr = 10 * np.log10(R * R / mse)
print(time.perf_counter() - t, repr(float(mae)), repr(float(p)))
"""

SKIMAGE = r"""
import sys, time, numpy as np
from skimage.metrics import structural_similarity
x = np.load(sys.argv[1]); y = np.load(sys.argv[2])
R = float(x.max() - x.min())
kw = dict(gaussian_weights=True, sigma=1.5, use_sample_covariance=False, data_range=R)
out = []
for dt in (np.float32, np.float64):  # the float32 pair as given, then in float64
    a, b = x.astype(dt), y.astype(dt)
    t = time.perf_counter()
    v = structural_similarity(a, b, **kw)
    out += [time.perf_counter() - t, float(v)]
print(" ".join(repr(v) for v in out))
"""


def make_data(tmp):
    import numpy as np
    rng = np.random.default_rng(1)
    a = rng.standard_normal(10**8, dtype=np.float32) * np.float32(3)
    b = a + rng.standard_normal(10**8, dtype=np.float32) * np.float32(0.01)
    np.save(tmp + "/a.npy", a)
    np.save(tmp + "/b.npy", b)
    np.save(tmp + "/a2.npy", a.reshape(100, 10**6))
    np.save(tmp + "/b2.npy", b.reshape(100, 10**6))
    del a, b
    img = rng.random((2048, 2048), dtype=np.float32)
    np.save(tmp + "/ia.npy", img)
    np.save(tmp + "/ib.npy", img + rng.standard_normal(img.shape, dtype=np.float32) * np.float32(0.05))


def thread_split(tmp):
    """CPU time of each thread of `mbench diff` with 1 and 2 threads, from
    perf's cpu-clock samples per thread (4 kHz): what the slowest thread
    needs is the wall time on free cores, which a loaded machine with
    autogroup scheduling cannot show directly."""
    import shutil
    if not shutil.which("perf"):
        print("\n(perf is not installed: no per-thread CPU times)")
        return
    data = os.path.join(tmp, "perf.data")
    rows = []
    for name, fa, fb in (("[10^8]", "a", "b"), ("[100, 10^6]", "a2", "b2")):
        per = {}
        for t in (1, 2):
            run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "4000", "-o", data, "--",
                 MBENCH, "diff", tmp + "/%s.npy" % fa, tmp + "/%s.npy" % fb, "-q",
                 "--threads", str(t)])
            tids = run(["perf", "script", "-i", data, "-F", "tid"])[1].split()
            per[t] = sorted((tids.count(x) / 4000.0 for x in set(tids)), reverse=True)
        rows.append("%s: 1 thread %.3f s; 2 threads %s s, the slowest %.3f s: **%.2fx** on free cores" % (
            name, per[1][0], " + ".join("%.3f" % x for x in per[2]), per[2][0], per[1][0] / per[2][0]))
    print("\nCPU time per thread (perf cpu-clock samples): " + "; ".join(rows))


def ssim_pairs(tmp, pairs):
    """SSIM of a 2048x2048 float32 pair, call against call: mbench's SSIM
    call (bench/ssim_time.c: the files read first, then mb__ssim_images
    timed in-process) against scikit-image's structural_similarity call on
    the float32 arrays (and on them in float64, whose value mbench's, in
    float64, must equal to 1e-9), the two processes alternating which goes
    first; and a whole `mbench diff` process (every metric)."""
    py = sys.executable
    A, B = tmp + "/ia.npy", tmp + "/ib.npy"
    ssim_bin = os.path.join(os.path.dirname(MBENCH), "bench", "ssim_time")
    d, c, p32, p64, loads, v64, v32 = [], [], [], [], [], [], []
    mv = cv = float("nan")
    for i in range(pairs):
        loads.append(loadavg())
        for o in ([0, 1, 2] if i % 2 == 0 else [2, 1, 0]):
            if o == 0:
                t0 = time.perf_counter()
                out = run([MBENCH, "diff", A, B, "--json", "-"])[1]
                d.append(time.perf_counter() - t0)
                mv = json.loads(out)["outputs"][0]["ssim"]
            elif o == 1:
                kv = dict(x.split("=") for x in run([ssim_bin, A, B])[1].split())
                c.append(float(kv["seconds"]))
                cv = float(kv["value"])
            else:
                t32, s32, t64, s64 = (float(x) for x in run([py, "-c", SKIMAGE, A, B])[1].split())
                p32.append(t32)
                p64.append(t64)
                v32.append(s32)
                v64.append(s64)
        loads.append(loadavg())
    import skimage
    note = " SSIM mbench %.15f, scikit-image %s float64 %.15f (difference %.1e; float32 call %.15f)" % (
        cv, skimage.__version__, v64[0], abs(cv - v64[0]), v32[0])
    summary("SSIM 2048x2048: mbench's SSIM call vs scikit-image's call on the float32 pair",
            "s", c, p32, "", "", loads, note)
    summary("SSIM 2048x2048: mbench's SSIM call vs scikit-image's call in float64", "s",
            c, p64, "", "", loads)
    summary("SSIM 2048x2048: a whole `mbench diff` process (every metric) vs scikit-image's "
            "float32 call", "s", d, p32, "", "", loads, " diff's SSIM %.15f" % mv)
    if abs(cv - v64[0]) > 1e-9:
        print("\n**SSIM values differ by more than 1e-9**")


def metrics(tmp, pairs):
    make_data(tmp)
    py = sys.executable
    print("Inputs: two float32 .npy files of 10^8 values (400 MB each), the same bytes "
          "shaped [10^8] and [100, 10^6] (large-vocabulary logits: elementwise metrics, "
          "top-1/top-5 and the KL of the softmaxes per row), and a 2048x2048 image pair. "
          "mbench figures are whole `mbench diff` processes (wall time, peak RSS); the "
          "Python figures are timed inside the interpreter (its start-up and imports "
          "excluded). The page cache holds the files.\n")
    print(HEADER)
    rss = {}
    for name, fa, fb in (("[10^8]", "a", "b"), ("[100, 10^6]", "a2", "b2")):
        A, B = tmp + "/%s.npy" % fa, tmp + "/%s.npy" % fb
        d, r, n, t1, loads = [], [], [], [], []
        for i in range(pairs):
            loads.append(loadavg())
            order = [0, 1] if i % 2 == 0 else [1, 0]
            for o in order:
                if o == 0:
                    w, m = timed_rss([MBENCH, "diff", A, B, "-q"])
                    d.append(w)
                    rss[name] = max(rss.get(name, 0), m)
                else:
                    r.append(float(run([py, "-c", READ, A, B])[1]))
            loads.append(loadavg())
        summary("`mbench diff` %s vs reading both files (np.load)" % name, "s", d, r, "", "", loads)
        c1, c2 = [], []
        for i in range(pairs):
            loads.append(loadavg())
            for o in ([0, 1] if i % 2 == 0 else [1, 0]):
                if o == 0:
                    t1.append(timed_rss([MBENCH, "diff", A, B, "-q", "--threads", "1"])[0])
                    c1.append(CPU[-1])
                else:
                    n.append(timed_rss([MBENCH, "diff", A, B, "-q", "--threads", "2"])[0])
                    c2.append(CPU[-1])
            loads.append(loadavg())
        summary("`mbench diff` %s, 2 threads vs 1 thread (wall)" % name, "s", n, t1, "", "",
                loads, " CPU s (user+sys) 1 thread %.3f, 2 threads %.3f" %
                (statistics.median(c1), statistics.median(c2)))
    thread_split(tmp)
    # numpy computing the elementwise set, and scikit-image's SSIM
    A, B = tmp + "/a.npy", tmp + "/b.npy"
    d, p, loads = [], [], []
    for i in range(max(3, pairs // 2)):
        loads.append(loadavg())
        for o in ([0, 1] if i % 2 == 0 else [1, 0]):
            if o == 0:
                d.append(timed_rss([MBENCH, "diff", A, B, "-q"])[0])
            else:
                p.append(float(run([py, "-c", NUMPY_SET, A, B])[1].split()[0]))
        loads.append(loadavg())
    summary("`mbench diff` [10^8] vs numpy computing the elementwise set (float64)", "s",
            d, p, "", "", loads)
    ssim_pairs(tmp, pairs)
    print("\npeak RSS of `mbench diff` (inputs 800 MB, 763 MiB): %s" %
          ", ".join("%s %.0f MiB (%.2fx the inputs)" % (k, v / 1024, v * 1024 / 8e8)
                    for k, v in rss.items()))


def ssim_only(tmp, pairs):
    """The SSIM pairs alone (peers.py ssim TMPDIR PAIRS)."""
    import numpy as np
    rng = np.random.default_rng(1)
    img = rng.random((2048, 2048), dtype=np.float32)
    np.save(tmp + "/ia.npy", img)
    np.save(tmp + "/ib.npy", img + rng.standard_normal(img.shape, dtype=np.float32) * np.float32(0.05))
    print(HEADER)
    ssim_pairs(tmp, pairs)


# ---- MLPerf LoadGen: mbench load vs LoadGen (bench/loadgen_peer.py) ----------

def loadgen(tmp, pairs):
    """mbench load beside MLPerf LoadGen (the peers venv's mlcommons-loadgen,
    bench/loadgen_peer.py its SUT) on the same workloads, each pair the two
    tools back to back, alternating which goes first: the null SUT in the
    Server scenario at 1000/s (p99) and Offline (samples/s), the
    Fashion-MNIST CNN in Server at 1000/s (p99; mbench at its default
    priority and at --realtime none) and Offline, and the issue rate (the
    null SUT offered 200000/s).  mbench runs the onnxruntime wheel's
    library, as LoadGen's SUT does."""
    model = os.path.join(ROOT, os.environ.get("MBENCH_BUILD", "build"), "bench", "models",
                         "fashion_cnn.onnx")
    if not os.path.exists(model):
        print("(skipped: no %s; bench/models/make_fashion.py)" % model)
        return
    env = dict(os.environ, MBENCH_ORT_LIB=os.environ.get("ORT_LIB", ""))
    peer = os.path.join(ROOT, "bench", "loadgen_peer.py")
    mj = os.path.join(tmp, "lgm.json")

    def m_side(args, key):
        cmd = [MBENCH, "load"] + args + ["--records", "0", "--quiet", "--json", mj]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("peers.py: %s failed: %s" % (" ".join(cmd), p.stderr.strip()[-400:]))
        st = json.load(open(mj))["load"]["steps"][-1]
        return st["achieved_qps"] if key == "qps" else st["latency"]["p99"] / 1e6

    def l_side(args, key):
        out = run([sys.executable, peer] + args + ["--outdir", os.path.join(tmp, "lg")])[1]
        r = json.loads(out)
        if key == "qps":
            return r.get("completed_qps", r.get("offline_qps"))
        return r["p99_ns"] / 1e6

    fash = [model, "--concurrency", "1", "--threads", "1"]
    work = [
        ("null SUT, Server 1000/s: p99 latency", "ms", "p99",
         ["x", "--backend", "null", "--qps", "1000", "--concurrency", "1", "--min-time", "2s"],
         ["--sut", "null", "--scenario", "server", "--qps", "1000", "--duration-ms", "2000"]),
        ("null SUT, Offline 200000 queries: samples/s", "/s", "qps",
         ["x", "--backend", "null", "--offline", "--requests", "200000", "--concurrency", "1"],
         ["--sut", "null", "--scenario", "offline", "--qps", "200000", "--duration-ms", "1000",
          "--min-queries", "200000"]),
        ("Fashion CNN, Server 1000/s: p99 latency (mbench at its default priority)", "ms",
         "p99", fash + ["--qps", "1000", "--min-time", "2s"],
         ["--sut", "onnx", "--model", model, "--scenario", "server", "--qps", "1000",
          "--duration-ms", "2000"]),
        ("Fashion CNN, Server 1000/s: p99 latency (mbench --realtime none)", "ms", "p99",
         fash + ["--qps", "1000", "--min-time", "2s", "--realtime", "none"],
         ["--sut", "onnx", "--model", model, "--scenario", "server", "--qps", "1000",
          "--duration-ms", "2000"]),
        ("Fashion CNN, Offline 20000 queries: samples/s", "/s", "qps",
         fash + ["--offline", "--requests", "20000"],
         ["--sut", "onnx", "--model", model, "--scenario", "offline", "--qps", "20000",
          "--duration-ms", "1000", "--min-queries", "20000"]),
        ("issue rate: null SUT offered 200000/s, achieved", "/s", "qps",
         ["x", "--backend", "null", "--qps", "200000", "--concurrency", "1", "--min-time", "1s"],
         ["--sut", "null", "--scenario", "server", "--qps", "200000", "--duration-ms", "1000",
          "--min-queries", "100000"]),
    ]
    from importlib.metadata import version
    print("mlcommons-loadgen %s (Python bindings, a Python callback per query), mbench load; "
          "one serving thread; LoadGen's figures from its own summary, mbench's from its "
          "document; %d alternating pairs per row\n" % (version("mlcommons-loadgen"), pairs))
    print(HEADER)
    for name, unit, key, margs, largs in work:
        a, b, loads = [], [], []
        for i in range(pairs):
            loads.append(loadavg())
            for side in ("ml" if i % 2 == 0 else "lm"):
                if side == "m":
                    a.append(m_side(margs, key))
                else:
                    b.append(l_side(largs, key))
            loads.append(loadavg())
        summary(name, unit, a, b, "", "", loads)


def main():
    what, tmp = sys.argv[1], sys.argv[2]
    pairs = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    {"openvino": openvino, "ort": ort_pair, "metrics": metrics,
     "ssim": ssim_only, "python": python_pair, "loadgen": loadgen}[what](tmp, pairs)


if __name__ == "__main__":
    main()
