#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Self-test of report.py's datapath, boot readiness and recovery statistics,
and of flow.py's outage (run by make check).

Synthetic rounds whose answer is known: the verdicts must follow the
paired intervals, the pairing must count (rounds that differ a lot from
each other while ours is 10% ahead in every one of them), and failed
measurements must be counted, not dropped. Exits non-zero on a mismatch.
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report  # noqa: E402
import flow  # noqa: E402


def recovery_checks(expect, base):
    """flow.py's outage from send and echo times, and report.py's recovery
    table and intervals on rounds whose answer is known."""
    sent = [i * 0.01 for i in range(1000)]  # 100 a second, 10 s
    # the sender held up 0.6 s from 2.0 s (nothing sent), then 0.3 s of
    # datagrams lost from 5.0 s
    sent = [t for t in sent if not 2.0 <= t < 2.6]
    echo = [None if 5.0 <= t < 5.3 else t + 0.002 for t in sent]
    r = flow.analyse(sent, echo, 1.0)
    expect("flow: a held-up sender is no outage, the lost run is",
           (r["outage_ms"], r["lost_after"], r["back"]), (310.0, 30, True))
    expect("flow: time to traffic ends at the run's first echo", r["resume_ms"], 4302.0)
    r = flow.analyse(sent, [None if t >= 5.0 else t + 0.002 for t in sent], 1.0)
    expect("flow: never back", (r["back"], r["resume_ms"]), (False, None))
    r = flow.analyse(sent, [t + 0.002 for t in sent], 1.0)
    expect("flow: nothing lost", (r["outage_ms"], r["resume_ms"]), (0.0, None))
    recs = []
    for i, b in enumerate(base, 1):
        for d, resume, lost, resets in (("stock", 20 * b, b, 1), ("ours", 2.1 * b, b / 10, 1)):
            recs.append({"driver": d, "round": i, "test": "keepalive", "resets": resets, "back": True,
                         "resume_ms": resume, "outage_ms": resume / 2, "lost_after": lost})
        recs.append({"driver": "stock", "round": i, "test": "request", "resets": 0, "back": True,
                     "resume_ms": None, "outage_ms": 0.0, "lost_after": 0})
        recs.append({"driver": "ours", "round": i, "test": "request", "resets": 1, "back": True,
                     "resume_ms": 150.0, "outage_ms": 30.0, "lost_after": 7})
    lines, cells = report.recovery_intervals(recs)
    text = "\n".join(lines)
    expect("recovery: paired time to traffic", "| keep-alive loss | time to traffic | 10 | 0.105 "
           "(0.105..0.105) | ours ahead |" in text, True)
    expect("recovery: no stock reset, no ratio",
           "| DEVICE_REQUEST_RESET event | time to traffic | 0 | - |" in text, True)
    table = "\n".join(report.recovery_table(recs))
    expect("recovery: stock's request row", "| DEVICE_REQUEST_RESET event | stock | 10 | 0 | 0 | - | 0 | 0 |"
           in table, True)


def rounds(test, stock, ours, failed_ours=()):
    recs = []
    for i, (s, o) in enumerate(zip(stock, ours), 1):
        recs.append({"driver": "stock", "round": i, "test": test, "value": s})
        if i in failed_ours:
            recs.append({"driver": "ours", "round": i, "test": test, "failed": True})
        else:
            recs.append({"driver": "ours", "round": i, "test": test, "value": o})
    return recs


def verdict_of(recs, test, key="value"):
    r, lo, hi = report.paired_ci(report.paired_ratios(recs, test, key))
    return report.verdict(key, test, lo, hi)


def main():
    bad = []

    def expect(what, got, want):
        if got != want:
            bad.append(f"{what}: {got!r}, expected {want!r}")
    # the host's speed swings 3x between rounds; ours is 1.1x stock in each
    base = [100, 300, 120, 280, 90, 310, 150, 260, 110, 290]
    recs = rounds("tcp1", base, [b * 1.1 for b in base])
    expect("paired, ours 10% ahead in every round", verdict_of(recs, "tcp1"), "ours ahead")
    lo, hi = report.boot_ci([b * 1.1 for b in base], base)
    expect("the unpaired interval of the same data holds 1", lo <= 1 <= hi, True)
    recs = rounds("tcp1", base, [b * 0.9 for b in base])
    expect("throughput 10% lower", verdict_of(recs, "tcp1"), "ours behind")
    recs = rounds("rr_us", base, [b * 0.9 for b in base])
    expect("latency 10% lower", verdict_of(recs, "rr_us"), "ours ahead")
    noise = [1.05, 0.95, 1.02, 0.97, 1.04, 0.96, 1.01, 0.99, 1.03, 0.98]
    recs = rounds("tcp1", base, [b * x for b, x in zip(base, noise)])
    expect("ratios around 1", verdict_of(recs, "tcp1"), "no measured difference")
    recs = rounds("tcp1", base, [b * 1.1 for b in base], failed_ours=(3, 7))
    expect("pairs with a failed side left out", len(report.paired_ratios(recs, "tcp1", "value")), 8)

    # the whole report: n, failures and the generated summary
    with tempfile.TemporaryDirectory() as d:
        raw = os.path.join(d, "raw.jsonl")
        import json
        with open(raw, "w") as f:
            for r in recs:
                r.update(kernel="k", commit="c")
                f.write(json.dumps(r) + "\n")
        report.subprocess.run = lambda *a, **k: None  # no plot
        report.datapath(raw, os.path.join(d, "out"))
        md = open(os.path.join(d, "out.md")).read()
        expect("row with n and failures", "| TCP, 1 stream | 8 | 0 / 2 |" in md, True)
        expect("generated summary", "**Ours ahead** on 1 of" in md, True)

    # boot readiness: per round, ours is up at 0.4x stock's time and fills its
    # rings 1.5x later, while the host's speed swings from round to round
    by = {"stock": [], "ours": []}
    for i, b in enumerate(base, 1):
        for v, up, full in (("stock", b, b * 1.2), ("ours", b * 0.4, b * 1.8)):
            by[v].append({"rep": i, "ok": True, "boot_us": up * 1000, "all_oper_us": up * 1100,
                          "all_full_us": full * 1000, "model_full": 1, "rings_full_us": [full * 1000],
                          "carrier_us": [up * 1000], "oper_us": [up * 1100]})
    lines = "\n".join(report.boot_readiness(by, ["stock", "ours"], []))
    expect("readiness: carrier ratio paired", "| ours / stock | 0.40 (0.40..0.40, n=10)" in lines, True)
    expect("readiness: summary from the intervals",
           "ours carrier: sooner than stock, 0.40x (all of its interval at or under 0.5x)" in lines
           and "ours rings full: later than stock, 1.50x" in lines, True)
    recovery_checks(expect, base)
    for b in bad:
        print("report_test: " + b)
    print(f"report_test: {'FAIL' if bad else 'ok'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
