#!/usr/bin/env python3
"""A controlled load generator for the replication benchmark.

Loads the machine about half of the time: phases of load and of rest
alternate, each of a random length (exponential, mean MEAN seconds, seeded),
until DURATION seconds have passed or SIGTERM arrives.  During a load phase
WORKERS processes run: the even ones multiply 256x256 matrices (arithmetic,
cache-resident), the odd ones copy 32 MiB arrays (memory traffic), which is
what other people's builds and tests do to a shared machine.  Every phase is
logged to LOG as "START_EPOCH END_EPOCH on|off" so that the rounds of a
measurement can be matched to the load they met.

usage: loadgen.py LOG [DURATION_S] [MEAN_S] [WORKERS] [SEED]
"""
import os
import random
import signal
import sys
import time


def worker(kind):
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    import numpy as np

    if kind == 0:
        a = np.random.default_rng(1).random((256, 256))
        while True:
            a = a @ a
            a /= np.abs(a).max() + 1.0
    else:
        src = np.ones(4 << 20)
        dst = np.empty_like(src)
        while True:
            np.copyto(dst, src)
            np.copyto(src, dst)


def start_workers(n):
    pids = []
    for i in range(n):
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            try:
                worker(i % 2)
            finally:
                os._exit(0)
        pids.append(pid)
    return pids


def stop_workers(pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for pid in pids:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def main():
    log = sys.argv[1]
    duration = float(sys.argv[2]) if len(sys.argv) > 2 else 3600.0
    mean = float(sys.argv[3]) if len(sys.argv) > 3 else 6.0
    workers = int(sys.argv[4]) if len(sys.argv) > 4 else 2
    rng = random.Random(int(sys.argv[5]) if len(sys.argv) > 5 else 24)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    end = time.time() + duration
    on = False
    with open(log, "w", buffering=1) as f:
        while not stop and time.time() < end:
            length = min(rng.expovariate(1.0 / mean), 4 * mean)
            t0 = time.time()
            pids = start_workers(workers) if on else []
            deadline = min(t0 + length, end)
            while not stop and time.time() < deadline:
                time.sleep(min(0.1, max(0.0, deadline - time.time())))
            stop_workers(pids)
            f.write(f"{t0:.3f} {time.time():.3f} {'on' if on else 'off'}\n")
            on = not on


if __name__ == "__main__":
    main()
