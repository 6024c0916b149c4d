#!/usr/bin/env python3
"""Turn the benchmark's JSON lines into a markdown table and gnuplot PNGs.

  report.py probe RAW.jsonl OUTPREFIX   -> OUTPREFIX.md, OUTPREFIX-probe.png, ...
  report.py reconfig RAW.jsonl OUTPREFIX -> OUTPREFIX.md (the reconfiguration table)
"""
import json
import statistics as st
import subprocess
import sys
from collections import defaultdict


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def med(xs):
    return st.median(xs) if xs else float("nan")


def spread(xs):
    if len(xs) < 2:
        return "-"
    q = st.quantiles(xs, n=10)
    return f"{q[0]:.0f}..{q[-1]:.0f}"


def probe(*args):
    *raws, prefix = args
    raw = ", ".join(raws)
    recs = [r for f in raws for r in load(f)]
    kernel = recs[0]["kernel"] if recs else "?"
    by = defaultdict(list)
    for r in recs:
        by[(r["variant"], r["latency_us"])].append(r)
    variants = sorted({r["variant"] for r in recs}, key=lambda v: (v != "stock", v))
    lats = sorted({r["latency_us"] for r in recs})
    lines = [f"# Probe time vs model admin latency ({kernel})", "",
             f"Raw data: `{raw}` ({len(recs)} loads, alternating variants, 1 ENA device).",
             "init = module init (probe is synchronous inside it), from the initcall tracepoints;",
             "registered = start of module init to the last register_netdevice() return (kprobe);",
             "admin cmds = commands the model saw during probe and the first open;",
             "react = the model's time from a posted admin completion to the driver's next admin",
             "doorbell (median over those commands); wakeups/cmd and admin wait = the driver's own",
             "counters (ours only). Guest under QEMU/TCG on a shared 2-core host: absolute times",
             "are slow and noisy, compare within a row group.",
             "The floor of init at latency L is (probe commands) x L: probe sends 18 admin",
             "commands (stock) or 16 (ours); the plot draws 16 x L.", ""]
    lines.append("| latency us | variant | n | ok | init us (median, p10..p90) | registered us | "
                 "admin cmds | react median us | wakeups/cmd | admin wait us |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    plot = defaultdict(list)
    for lat in lats:
        for v in variants:
            rs = by.get((v, lat), [])
            if not rs:
                continue
            init = [r["init_us"] for r in rs]
            reg = [r["registered_us"] for r in rs]
            cmds = med([r["admin_cmds"] for r in rs])
            react = med([r["react_med_ns"] / 1000 for r in rs])
            ours = v != "stock"
            wk = [r["drv_wakeups"] / r["drv_cmds"] for r in rs if ours and r.get("drv_cmds")]
            wt = [r["drv_wait_ns"] / 1000 for r in rs if ours and "drv_wait_ns" in r]
            ok = sum(1 for r in rs if r["ok"])
            wks = f"{med(wk):.2f}" if wk else "-"
            wts = f"{med(wt):.0f}" if wt else "-"
            lines.append(f"| {lat} | {v} | {len(rs)} | {ok} | {med(init):.0f} ({spread(init)}) | "
                         f"{med(reg):.0f} | {cmds:.0f} | {react:.1f} | {wks} | {wts} |")
            plot[v].append((max(lat, 1), med(init), med(wk) if wk else None, 16 * max(lat, 1)))
    # ratios at each latency against stock
    lines += ["", "## Ratios (median init time, stock / variant)", "",
              "| latency us | " + " | ".join(v for v in variants if v != "stock") + " |",
              "|---|" + "---|" * (len(variants) - 1)]
    for lat in lats:
        s = by.get(("stock", lat))
        if not s:
            continue
        sm = med([r["init_us"] for r in s])
        row = []
        for v in variants:
            if v == "stock":
                continue
            rs = by.get((v, lat))
            row.append(f"{sm / med([r['init_us'] for r in rs]):.2f}x" if rs else "-")
        lines.append(f"| {lat} | " + " | ".join(row) + " |")
    with open(prefix + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    # plots
    dat = prefix + "-probe.dat"
    with open(dat, "w") as f:
        for v, pts in plot.items():
            f.write(f'"{v}"\n')
            for lat, init, wk, floor in pts:
                f.write(f"{lat} {init} {wk if wk is not None else 'NaN'} {floor}\n")
            f.write("\n\n")
    names = list(plot)
    gp = [f'set terminal pngcairo size 900,600', f'set output "{prefix}-probe.png"',
          'set logscale xy', 'set xlabel "model admin latency (us; 0 plotted at 1)"',
          'set ylabel "module init incl. probe (us)"', f'set title "Probe time vs admin latency ({kernel})"',
          'set key left top', 'set grid']
    series = [f'"{dat}" index {i} using 1:2 with linespoints title "{n}"' for i, n in enumerate(names)]
    if names:
        series.append(f'"{dat}" index 0 using 1:4 with lines dashtype 2 title "floor (16 probe commands x latency)"')
    gp.append("plot " + ", ".join(series))
    gp += [f'set output "{prefix}-wakeups.png"', 'set ylabel "poll wakeups per admin command"',
           f'set title "Wakeups per admin command ({kernel}, ours)"', 'unset logscale y', 'set logscale x']
    ws = [f'"{dat}" index {i} using 1:3 with linespoints title "{n}"' for i, n in enumerate(names) if n != "stock"]
    if ws:
        gp.append("plot " + ", ".join(ws))
    subprocess.run(["gnuplot"], input="\n".join(gp), text=True, check=True)
    print(f"report: {prefix}.md")


RECONFIG_STEPS = ["load", "up", "channels 4->2", "channels 2->4", "rx ring 4096", "mtu 9000", "down"]


def reconfig(raw, prefix):
    recs = load(raw)
    kernel = recs[0]["kernel"] if recs else "?"
    by = defaultdict(list)
    for r in recs:
        by[(r["step"], r["variant"])].append(r)
    variants = sorted({r["variant"] for r in recs}, key=lambda v: (v != "stock", v))
    steps = [s for s in RECONFIG_STEPS if any((s, v) in by for v in variants)]
    reps = max((r["rep"] for r in recs), default=0)
    lines = [f"# Reconfiguration cost, stock vs ours ({kernel})", "",
             f"Raw data: `{raw}` ({reps} rounds, variants alternating, one ENA device, "
             "4 vCPUs, model max-queues=32, LLQ on; medians).",
             "DMA allocs/frees/bytes: kprobes on dma_alloc_attrs / dma_free_attrs filtered to the ENA "
             "device (coherent memory: rings, admin queues, ...). RX maps/unmaps: dma_map_page_attrs / "
             "dma_unmap_page_attrs on that device, all directions but DMA_TO_DEVICE (each fresh RX buffer: "
             "stock maps alloc_page pages DMA_BIDIRECTIONAL, ours page_pool pages DMA_FROM_DEVICE). Admin = the model's stat-admin-cmds during the step; ring KiB = the "
             "model's stat-ring-bytes after it (admin queues + host-memory IO rings). Wall = the command's "
             "wall time under TCG (ratios matter, not absolutes).", ""]
    cols = ["DMA allocs", "DMA frees", "alloc KiB", "RX maps", "RX unmaps", "admin", "ring KiB", "wall ms"]
    lines.append("| step | " + " | ".join(f"{c} {v}" for c in cols for v in variants) + " |")
    lines.append("|---|" + "---|" * (len(cols) * len(variants)))
    for s in steps:
        row = []
        for c in cols:
            for v in variants:
                rs = by.get((s, v), [])
                if not rs:
                    row.append("-")
                    continue
                val = {
                    "DMA allocs": lambda r: r["dma_allocs"],
                    "DMA frees": lambda r: r["dma_frees"],
                    "alloc KiB": lambda r: r["dma_alloc_bytes"] / 1024,
                    "RX maps": lambda r: r["rx_maps"],
                    "RX unmaps": lambda r: r["rx_unmaps"],
                    "admin": lambda r: r["admin_cmds"],
                    "ring KiB": lambda r: r["model_ring_bytes"] / 1024,
                    "wall ms": lambda r: r["wall_us"] / 1000,
                }[c]
                m = med([val(r) for r in rs])
                row.append(f"{m:.1f}" if c in ("wall ms", "alloc KiB", "ring KiB") and m != int(m) else f"{m:.0f}")
        lines.append(f"| {s} | " + " | ".join(row) + " |")
    bad = [r for r in recs if not r.get("ok", True) or r.get("trace_lost")]
    if bad:
        lines += ["", f"{len(bad)} steps failed or lost trace events: "
                  + ", ".join(sorted({r["variant"] + " " + r["step"] for r in bad}))]
    if "stock" in variants and len(variants) > 1:
        lines += ["", "## Wall time ratio (median stock / median variant)", "",
                  "| step | " + " | ".join(v for v in variants if v != "stock") + " |",
                  "|---|" + "---|" * (len(variants) - 1)]
        for s in steps:
            sm = med([r["wall_us"] for r in by.get((s, "stock"), [])])
            row = []
            for v in variants:
                if v == "stock":
                    continue
                vm = med([r["wall_us"] for r in by.get((s, v), [])])
                row.append(f"{sm / vm:.2f}x" if vm and vm == vm and sm == sm else "-")
            lines.append(f"| {s} | " + " | ".join(row) + " |")
    with open(prefix + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"report: {prefix}.md")


if __name__ == "__main__":
    {"probe": probe, "reconfig": reconfig}[sys.argv[1]](*sys.argv[2:])
