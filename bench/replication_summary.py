#!/usr/bin/env python3
"""The figures of bench/replication.sh from its rows (OUT/times.txt,
OUT/load.log, OUT/docs/*.json): coverage of the reference ratio, A/A false
claims and regressions, slowdowns caught, two-run A/A CIs that hold 1, each
with the load it met.  Every figure is recomputed from the documents
(the intervals and verdicts mbench wrote), not from a model of them.

usage: replication_summary.py OUT COMPARES PAIRS
"""
import json
import math
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def t_quantile(df):
    """t(0.975, df) from scipy when it is there (bench machines have it)."""
    from scipy import stats
    return stats.t.ppf(0.975, df)


def main():
    out, n_cmp, n_pairs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    docs = os.path.join(out, "docs")
    times = {}
    for ln in open(os.path.join(out, "times.txt")):
        p = ln.split()
        times[p[0]] = (float(p[1]), float(p[3]), float(p[2]), float(p[4]), int(p[5]))
    phases = []
    if os.path.exists(os.path.join(out, "load.log")):
        for ln in open(os.path.join(out, "load.log")):
            a, b, s = ln.split()
            phases.append((float(a), float(b), s == "on"))

    def loaded_share(name):
        t0, t1 = times[name][0], times[name][1]
        on = sum(max(0.0, min(b, t1) - max(a, t0)) for a, b, s in phases if s)
        return on / (t1 - t0) if t1 > t0 else float("nan")

    def ratio(doc):
        v = doc["comparison"]["variants"][1]
        s = v["speedup_median"]
        return 1 / s["value"], 1 / s["ci95"][1], 1 / s["ci95"][0], v

    refs = []
    for name in ("ref1", "ref2"):
        d = load(os.path.join(docs, name + ".json"))
        if d:
            r, lo, hi, _ = ratio(d)
            refs.append(r)
            print(f"reference {name}: twin/base {r:.4f} (95% CI {lo:.4f}..{hi:.4f}, "
                  f"{d['runs'][0]['replication']['processes']} processes a side, "
                  f"load average {times[name][2]:.1f}..{times[name][3]:.1f}, "
                  f"loaded {100 * loaded_share(name):.0f}% of its time)")
    if refs:
        truth = math.exp(sum(math.log(r) for r in refs) / len(refs))
        print(f"reference ratio (geometric mean of the two): {truth:.4f}")
    elif n_cmp:
        print("no reference: the compares cannot be summarised")
        return 1

    rows = []
    for kind in ("pl", "aa"):
        for i in range(1, n_cmp + 1):
            d = load(os.path.join(docs, f"{kind}{i}.json"))
            g = load(os.path.join(docs, f"{kind}{i}-gate.json"))
            if not d or f"{kind}{i}" not in times:
                continue
            r, lo, hi, v = ratio(d)
            sig = v["significance"]
            gm = [m for m in g["comparisons"][0]["metrics"] if m["metric"] == "p50"][0] if g else {}
            # The plain paired t over rounds (before blocks), for contrast.
            la = [math.log(x) for x in d["runs"][0]["replication"]["per_process"]["median"]]
            lb = [math.log(x) for x in d["runs"][1]["replication"]["per_process"]["median"]]
            dl = [y - x for x, y in zip(la, lb)]
            k = len(dl)
            mean = sum(dl) / k
            se = (sum((x - mean) ** 2 for x in dl) / (k - 1) / k) ** 0.5
            h = t_quantile(k - 1) * se
            rows.append(dict(kind=kind, i=i, r=r, lo=lo, hi=hi, verdict=sig["verdict"],
                             plo=math.exp(mean - h), phi=math.exp(mean + h),
                             claim=sig["significant"], k=sig["replicates"],
                             drift=(sig.get("blocks") or {}).get("drift_p"),
                             gate=g["exit_code"] if g else None,
                             load0=times[f"{kind}{i}"][2], load1=times[f"{kind}{i}"][3],
                             loaded=loaded_share(f"{kind}{i}"),
                             secs=times[f"{kind}{i}"][1] - times[f"{kind}{i}"][0],
                             warned=any("load changed" in w for w in d.get("warnings", []))))
    pl = [x for x in rows if x["kind"] == "pl"]
    aa = [x for x in rows if x["kind"] == "aa"]

    def pct(a, n):
        return f"{a}/{n} ({100 * a / n:.1f}%)" if n else "0/0"

    def loads(xs):
        la = sorted((x["load0"] + x["load1"]) / 2 for x in xs)
        sh = [x["loaded"] for x in xs]
        return (f"load average {la[0]:.1f}..{la[-1]:.1f} (median {la[len(la) // 2]:.1f}); "
                f"loaded by the generator {100 * sum(sh) / len(sh):.0f}% of the time; "
                f"processes {min(x['k'] for x in xs)}..{max(x['k'] for x in xs)}")
    if pl:
        cov = sum(x["lo"] <= truth <= x["hi"] for x in pl)
        caught = sum(x["verdict"] == "slower" for x in pl)
        gcaught = sum(x["gate"] == 1 for x in pl)
        half = sorted((x["hi"] / x["lo"]) ** 0.5 - 1 for x in pl)
        print(f"planted twin, {len(pl)} interleaved compares ({loads(pl)}):")
        print(f"  95% CI of the ratio holds the reference {truth:.4f}: {pct(cov, len(pl))}; "
              f"median half-width {100 * half[len(half) // 2]:.1f}%")
        print(f"    the plain paired t over rounds (no blocks) on the same compares: holds "
              f"{pct(sum(x['plo'] <= truth <= x['phi'] for x in pl), len(pl))}")
        for j, ref in enumerate(refs):
            print(f"    against reference {j + 1} alone ({ref:.4f}): holds "
                  f"{pct(sum(x['lo'] <= ref <= x['hi'] for x in pl), len(pl))}")
        for lab, sel in (("fully loaded (>90%)", lambda x: x["loaded"] > 0.9),
                         ("fully quiet (<10%)", lambda x: x["loaded"] < 0.1),
                         ("mixed", lambda x: 0.1 <= x["loaded"] <= 0.9)):
            xs = [x for x in pl if sel(x)]
            if xs:
                print(f"    compares {lab}: holds {pct(sum(x['lo'] <= truth <= x['hi'] for x in xs), len(xs))}")
        print(f"  slowdown caught: compare says 'slower' in {pct(caught, len(pl))}; "
              f"gate --current exits 1 (p50 +5%) in {pct(gcaught, len(pl))}, "
              f"passes in {sum(x['gate'] == 0 for x in pl)}; "
              f"ratios {min(x['r'] for x in pl):.3f}..{max(x['r'] for x in pl):.3f}")
        print(f"  drift between blocks established (F test p < 0.05) in "
              f"{sum(1 for x in pl if x['drift'] is not None and x['drift'] < 0.05)}; "
              f"'load changed' warned in {sum(x['warned'] for x in pl)}; "
              f"wall time median {sorted(x['secs'] for x in pl)[len(pl) // 2]:.0f} s")
    if aa:
        claims = sum(bool(x["claim"]) for x in aa)
        hold = sum(x["lo"] <= 1 <= x["hi"] for x in aa)
        freg = sum(x["gate"] == 1 for x in aa)
        gpass = sum(x["gate"] == 0 for x in aa)
        print(f"A/A, {len(aa)} interleaved compares ({loads(aa)}):")
        print(f"  a difference claimed in {pct(claims, len(aa))}; the CI holds 1 in {pct(hold, len(aa))}; "
              f"gate --current: {freg} false regressions, {gpass} pass, "
              f"{sum(x['gate'] == 4 for x in aa)} inconclusive")

    for label, prefix in (("the default between-run term", "two"),
                          ("the term from the stored history", "twohist")):
        hold = n = reg = passed = 0
        srcs = {}
        for i in range(1, n_pairs + 1):
            g = load(os.path.join(docs, f"{prefix}{i}.json"))
            if not g or not g.get("comparisons"):
                continue
            m = [m for m in g["comparisons"][0]["metrics"] if m["metric"] == "p50"][0]
            br = m.get("between_run") or {}
            srcs[br.get("source")] = srcs.get(br.get("source"), 0) + 1
            if m.get("ci95"):
                n += 1
                hold += m["ci95"][0] <= 1 <= m["ci95"][1]
            reg += g["exit_code"] == 1
            passed += g["exit_code"] == 0
        if n:
            la = sorted(times[f"run{i}a"][2] for i in range(1, n_pairs + 1) if f"run{i}a" in times)
            print(f"two separate runs, A/A, {label}: the CI holds 1 in {pct(hold, n)}; "
                  f"{reg} false regressions, {passed} pass (p50 5%); term from {srcs}; "
                  f"load average {la[0]:.1f}..{la[-1]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
