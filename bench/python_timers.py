"""mbench's median beside torch.utils.benchmark, pyperf and a bare loop, on
the same small CNN (tests/fixtures/python/models.py:torch_conv, batch 1,
one intra-op thread), side by side in rounds, the load average beside each
figure (docs/FRAMEWORKS.md, "mbench's median and other Python timers").

    build/frameworks/torch/bin/python bench/python_timers.py [ROUNDS]

Runs in the torch venv of `make frameworks`; pyperf comes from the peers
venv (scripts/frameworks.sh: FRAMEWORKS=peers), a pure-Python package put
on PYTHONPATH.  Prints one line per tool and round, then each tool's
median over rounds.  Nothing here is judged: it shows what each tool's
figure is.
"""
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(ROOT, "tests", "fixtures", "python")
MBENCH = os.environ.get("MBENCH", os.path.join(ROOT, "build", "mbench"))
FW = os.environ.get("MBENCH_FRAMEWORKS_DIR", os.path.join(ROOT, "build", "frameworks"))

SETUP = f"""
import sys, torch
sys.path.insert(0, {FIX!r})
import models
torch.set_num_threads(1)
m = models.torch_conv()
x = torch.rand(1, 3, 32, 32)
torch.inference_mode().__enter__()
for _ in range(50):
    m(x)
"""

PYPERF = SETUP + """
import pyperf
pyperf.Runner().bench_func("conv", m, x)
"""


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def side_mbench(d):
    out = os.path.join(d, "m.json")
    subprocess.run([MBENCH, "run", os.path.join(FIX, "models.py") + ":torch_conv",
                    "--backend-opt", "python=" + os.path.join(FW, "torch"),
                    "--threads", "1", "--processes", "5", "--min-time", "2s",
                    "--json", out, "-q"], check=True, stderr=subprocess.DEVNULL)
    lat = json.load(open(out))["runs"][0]["latency"]
    return {"median": lat["median_ci95"]["estimate"] / 1e3,
            "mean": lat["mean"] / 1e3}


def side_loop(_d):
    code = SETUP + """
import time, statistics, json
ts = []
for _ in range(3000):
    t = time.perf_counter_ns(); m(x); ts.append(time.perf_counter_ns() - t)
print(json.dumps({"median": statistics.median(ts) / 1e3, "mean": statistics.fmean(ts) / 1e3}))
"""
    p = subprocess.run([sys.executable, "-c", code], check=True,
                       stdout=subprocess.PIPE, text=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def side_torch(_d):
    code = SETUP + """
import json
import torch.utils.benchmark as tb
r = tb.Timer(stmt="m(x)", globals={"m": m, "x": x}, num_threads=1).blocked_autorange(min_run_time=2)
print(json.dumps({"median": r.median * 1e6, "mean": r.mean * 1e6, "blocks": len(r.times),
                  "per_block": r.number_per_run}))
"""
    p = subprocess.run([sys.executable, "-c", code], check=True,
                       stdout=subprocess.PIPE, text=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def side_pyperf(d):
    peers = glob.glob(os.path.join(FW, "peers", "lib", "python3*", "site-packages"))
    if not peers:
        return None
    script, out = os.path.join(d, "pp.py"), os.path.join(d, "pp.json")
    with open(script, "w") as f:
        f.write(PYPERF)
    if os.path.exists(out):
        os.unlink(out)
    # pyperf alone on the path: the peers venv's numpy 2 breaks Debian's torch
    only = os.path.join(d, "pyperf-only")
    if not os.path.exists(only):
        os.makedirs(only)
        os.symlink(os.path.join(peers[0], "pyperf"), os.path.join(only, "pyperf"))
    env = dict(os.environ, PYTHONPATH=only)
    subprocess.run([sys.executable, script, "--processes", "3", "--values", "3",
                    "--quiet", "-o", out], check=True, env=env)
    sys.path.insert(0, only)
    import pyperf
    b = pyperf.Benchmark.load(out)
    return {"median": b.median() * 1e6, "mean": b.mean() * 1e6}


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    sides = [("mbench", side_mbench), ("loop", side_loop),
             ("torch.utils.benchmark", side_torch), ("pyperf", side_pyperf)]
    got = {n: [] for n, _ in sides}
    with tempfile.TemporaryDirectory() as d:
        for r in range(rounds):
            order = sides[r % len(sides):] + sides[:r % len(sides)]
            for name, fn in order:
                la = loadavg()
                t0 = time.time()
                res = fn(d)
                if res is None:
                    print(f"round {r} {name}: skipped (no peers venv with pyperf)")
                    continue
                res["load"] = la
                got[name].append(res)
                print(f"round {r} {name:<22} median {res['median']:8.1f} us  "
                      f"mean {res['mean']:8.1f} us  load {la:5.2f}  "
                      f"({time.time() - t0:.0f} s)", flush=True)
    print("median over rounds (us): " + ", ".join(
        f"{n} {statistics.median(x['median'] for x in v):.1f}"
        for n, v in got.items() if v))


if __name__ == "__main__":
    main()
