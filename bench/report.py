#!/usr/bin/env python3
"""Turn the benchmark's JSON lines into a markdown table and gnuplot PNGs.

  report.py probe RAW.jsonl OUTPREFIX   -> OUTPREFIX.md, OUTPREFIX-probe.png, ...
  report.py reconfig RAW.jsonl OUTPREFIX -> OUTPREFIX.md (the reconfiguration table)
  report.py boot RAW.jsonl... OUTPREFIX  -> OUTPREFIX.md, OUTPREFIX.png (multi-device boot)
  report.py datapath RAW.jsonl OUTPREFIX -> OUTPREFIX.md, OUTPREFIX.png (stock vs ours datapath)
  report.py recovery RAW.jsonl OUTPREFIX -> OUTPREFIX.md (a device reset under a steady flow)
  report.py recovery-text RAW.jsonl      -> the recovery table as plain text (make run)
"""
import json
import statistics as st
import subprocess
import sys
from collections import defaultdict


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def commit_line(recs):
    """Which driver commit the records measured (bench/run.sh's BENCH_COMMIT)."""
    cs = sorted({str(r.get("commit", "not recorded")) for r in recs})
    return f"Driver: commit {', '.join(cs)} (`git describe --always --dirty` when the run started)."


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
             commit_line(recs),
             "init = module init (probe is synchronous inside it), from the initcall tracepoints;",
             "registered = start of module init to the last register_netdevice() return (kprobe);",
             "admin cmds = commands the model saw during probe and the first open;",
             "react = the model's time from a posted admin completion to the driver's next admin",
             "doorbell (median over those commands; probe: over probe's commands only, the samples",
             "before the first CREATE_CQ); wakeups/cmd and admin wait = the driver's own",
             "counters (ours only); sleep asked/taken = the mean sleep per wakeup the wait policy",
             "asked for and what it really took (timer and scheduler overshoot), probe and first",
             "open; spin us/cmd = CPU time spent busy-polling before the first sleep per",
             "command (ours-spinN: admin_poll_spin_us=N).",
             "Guest under QEMU/TCG on a 2-core host: absolute times are slow and noisy,",
             "compare within a row group.",
             "The floor of init at latency L is (probe commands) x L: probe sends 18 admin",
             "commands (stock) or 16 (ours); the plot draws 16 x L.", ""]
    lines.append("| latency us | variant | n | ok | init us (median, p10..p90) | registered us | "
                 "admin cmds | react median us | react probe us | wakeups/cmd | admin wait us | sleep asked/taken us | spin us/cmd |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
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
            rp = [r["react_probe_med_ns"] / 1000 for r in rs if "react_probe_med_ns" in r]
            rps = f"{med(rp):.1f}" if rp else "-"
            ours = v != "stock"
            wk = [r["drv_wakeups"] / r["drv_cmds"] for r in rs if ours and r.get("drv_cmds")]
            wt = [r["drv_wait_ns"] / 1000 for r in rs if ours and "drv_wait_ns" in r]
            ok = sum(1 for r in rs if r["ok"])
            wks = f"{med(wk):.2f}" if wk else "-"
            wts = f"{med(wt):.0f}" if wt else "-"
            sl = [r for r in rs if ours and r.get("drv_sleeps")]
            sls = "-"
            if sl:
                asked = med([r["drv_sleep_asked_ns"] / r["drv_sleeps"] / 1000 for r in sl])
                taken = med([r["drv_sleep_ns"] / r["drv_sleeps"] / 1000 for r in sl])
                sls = f"{asked:.0f}/{taken:.0f}"
            sp = [r["drv_spin_ns"] / r["drv_cmds"] / 1000 for r in rs
                  if ours and r.get("drv_cmds") and "drv_spin_ns" in r]
            sps = f"{med(sp):.1f}" if sp else "-"
            lines.append(f"| {lat} | {v} | {len(rs)} | {ok} | {med(init):.0f} ({spread(init)}) | "
                         f"{med(reg):.0f} | {cmds:.0f} | {react:.1f} | {rps} | {wks} | {wts} | {sls} | {sps} |")
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
    # the driver issue's targets: probe (to netdev registered) of ours against
    # stock and against ours replaying the old fixed 5 ms sleep
    tgt = [lat for lat in lats if by.get(("ours", lat))]

    def registered(v, lat):
        """median time to netdev registered of variant v at latency lat, or None"""
        rs = by.get((v, lat))
        return med([r["registered_us"] for r in rs]) if rs else None

    if tgt:
        lines += ["", "## Probe to netdev registered: ours against stock and against ours-fixed5ms", "",
                  "| latency us | ours ms | stock ms | ours/stock | ours-fixed5ms ms | ours/fixed5ms |",
                  "|---|---|---|---|---|---|"]
        for lat in tgt:
            o = registered("ours", lat)
            cells = [f"{o / 1000:.2f}"]
            for v in ("stock", "ours-fixed5ms"):
                m = registered(v, lat)
                if m is not None:
                    cells += [f"{m / 1000:.2f}", f"{o / m:.3f}"]
                else:
                    cells += ["-", "-"]
            lines.append(f"| {lat} | " + " | ".join(cells) + " |")
        # At model latency 0 a command completes before the driver first looks,
        # so ours waits (almost) nothing for admin commands: what is left is
        # the CPU time of the probe under TCG plus its reset and readless-read
        # waits.  Against the fixed 5 ms replay that bounds the ours/fixed5ms
        # ratio any wait policy could reach on this host.
        zero = by.get(("ours", 0))
        fixed = [lat for lat in tgt if lat > 0 and by.get(("ours-fixed5ms", lat))]
        if zero and fixed:
            z = registered("ours", 0)
            zw = [r["drv_wait_ns"] / 1000 for r in zero if "drv_wait_ns" in r]
            zo = [r["drv_other_wait_ns"] / 1000 for r in zero if "drv_other_wait_ns" in r]
            cpu = med([(r["registered_us"] - (r["drv_wait_ns"] + r["drv_other_wait_ns"]) / 1000)
                       for r in zero if "drv_other_wait_ns" in r]) if zo else None
            waits = f"{med(zw):.0f} us of admin wait" if zw else "an unknown admin wait"
            if zo:
                waits += f" and {med(zo):.0f} us of reset and readless-read wait"
            lines += ["", "## The probe without admin waits: the lowest ours/fixed5ms this host allows", "",
                      f"ours at model latency 0: {z / 1000:.2f} ms to netdev registered, with {waits} "
                      "(medians; the driver's counters cover probe and the first open)."]
            if cpu is not None:
                lines.append(f"Registered minus all of those waits, per load: {cpu / 1000:.2f} ms (median).")
            lines += ["No wait policy can make the probe shorter than its time without waits.", "",
                      "| latency us | ours-fixed5ms ms | ours at latency 0 / ours-fixed5ms | "
                      "the same without any wait / ours-fixed5ms |", "|---|---|---|---|"]
            for lat in fixed:
                m = registered("ours-fixed5ms", lat)
                nw = f"{cpu / m:.3f}" if cpu is not None else "-"
                lines.append(f"| {lat} | {m / 1000:.2f} | {z / m:.3f} | {nw} |")
        # and the driver's reaction during probe, as the model measures it
        # (runs recorded before the model had this measure have no rows)
        rows = []
        for lat in tgt:
            o = [r["react_probe_med_ns"] / 1000 for r in by[("ours", lat)] if "react_probe_med_ns" in r]
            s_ = [r["react_probe_med_ns"] / 1000 for r in by.get(("stock", lat), [])
                  if "react_probe_med_ns" in r]
            if o and s_:
                rows.append(f"| {lat} | {med(o):.1f} | {med(s_):.1f} | {med(o) / med(s_):.2f} |")
        if rows:
            lines += ["", "## Driver reaction during probe: ours against stock", "",
                      "Median over loads of each load's median time from a posted admin completion "
                      "to the driver's next admin doorbell, probe's commands only.", "",
                      "| latency us | ours us | stock us | ours/stock |", "|---|---|---|---|"] + rows
        # the same samples' mean per doorbell (their sum over their count,
        # per load): every gap counts, not only the middle one, so the
        # latency the wait adds shows as the difference against latency 0
        # (runs recorded before the model had the count have no rows)
        def mean_react(v, lat):
            return [r["react_probe_total_ns"] / r["react_probe_n"] / 1000
                    for r in by.get((v, lat), []) if r.get("react_probe_n")]
        rows = []
        for v in [v for v in variants if mean_react(v, 0)]:
            z = mean_react(v, 0)
            for lat in [lat for lat in tgt if lat > 0 and mean_react(v, lat)]:
                x = mean_react(v, lat)
                lo, hi = boot_diff_ci(x, z)
                n = med([r["react_probe_n"] for r in by[(v, lat)] if r.get("react_probe_n")])
                rows.append(f"| {v} | {lat} | {med(z):.1f} | {med(x):.1f} | {med(x) - med(z):+.1f} "
                            f"({lo:+.1f}..{hi:+.1f}) | {n:.0f} |")
        if rows:
            lines += ["", "## What the admin wait adds to the driver's reaction during probe", "",
                      "Per load: the model's probe reaction samples (posted completion to the driver's "
                      "next admin doorbell) summed and divided by their count, i.e. the mean per "
                      "doorbell; median over loads. The latency-0 column is the driver's own work "
                      "between doorbells; the difference is what waiting for a device of that latency "
                      "adds (95% interval: bootstrap of the difference of medians).", "",
                      "| variant | latency us | mean react at 0 us | mean react at latency us | "
                      "added us (95%) | samples per probe |", "|---|---|---|---|---|---|"] + rows
        # the same gap against itself: the samples in order, position by
        # position (runs recorded before the model listed them have no rows)
        gap_rows = []
        for v in variants:
            z = react_positions(by.get((v, 0), []))
            for lat in [lat for lat in tgt if lat > 0]:
                x = react_positions(by.get((v, lat), []))
                if not z or not x or len(z[0]) != len(x[0]):
                    continue
                add, lo, hi = position_added(x, z)
                gaps = " ".join(f"{med([r[i] for r in x]) - med([r[i] for r in z]):+.0f}"
                                for i in range(len(x[0])))
                gap_rows.append(f"| {v} | {lat} | {len(z)}/{len(x)} | {gaps} | "
                                f"{add:+.1f} ({lo:+.1f}..{hi:+.1f}) |")
        # the admin wait alone: ours' debugfs admin_ping, commands back to
        # back (runs recorded before it existed have no rows)
        def ping(v, lat, key):
            return [r[key] for r in by.get((v, lat), []) if r.get("ping_react_n")]
        ping_rows = []
        for v in variants:
            z = [x / 1000 for x in ping(v, 0, "ping_react_med_ns")]
            if not z:
                continue
            for lat in tgt:
                x = [x / 1000 for x in ping(v, lat, "ping_react_med_ns")]
                if not x:
                    continue
                cmds = sum(ping(v, lat, "ping_cmds"))
                # a driver counter summed over the loads, per command
                def per_cmd(key):
                    return sum(ping(v, lat, key)) / cmds if cmds else float("nan")
                wk, hits = per_cmd("ping_wakeups"), per_cmd("ping_spin_hits")
                spin = per_cmd("ping_spin_ns") / 1000
                if lat:
                    lo, hi = boot_diff_ci(x, z)
                    added = f"{med(x) - med(z):+.1f} ({lo:+.1f}..{hi:+.1f})"
                else:
                    added = "-"
                p90 = med([x / 1000 for x in ping(v, lat, "ping_react_p90_ns")])
                ping_rows.append(f"| {v} | {lat} | {len(x)} | {med(x):.1f} | {p90:.1f} | {added} "
                                 f"| {wk:.3f} | {hits:.3f} | {spin:.1f} |")
        if gap_rows:
            lines += ["", "## The same, gap by gap", "",
                      "The probe's reaction samples in the order they were taken "
                      "(`stat-react-probe-samples`): the same position is the same gap of the probe "
                      "(the same command answered, the same driver work before the next doorbell) in "
                      "every load, so its latency-0 value is that gap's own work, and the difference "
                      "at a latency is what the wait adds there, without the spread between the gaps "
                      "that the per-load figures above carry. Per position: median over loads at the "
                      "latency minus median at 0 (us); added = their mean (95% interval: bootstrap "
                      "over the loads of each latency). Loads with another number of samples than "
                      "the most common are left out.", "",
                      "| variant | latency us | loads at 0 / at latency | added per position us | "
                      "added us (95%) |", "|---|---|---|---|---|"] + gap_rows
        if ping_rows:
            lines += ["", "## The admin wait alone: commands back to back", "",
                      "After each load's probe and open, ours sends 200 GET_FEATURE commands one after "
                      "the other with nothing between them (debugfs `admin_ping`, under RTNL as an "
                      "ethtool command), so the model's reaction samples (posted completion to the next "
                      "doorbell) are the wait's own: noticing the completion, returning, posting the "
                      "next command. Per load the median and p90 of those samples, then the median over "
                      "loads; added = the median at a latency minus at 0 (95% bootstrap interval). "
                      "The driver's counters over the same commands: wakeups (sleeps the wait took) "
                      "and spin hits (completions the bounded spin caught) per command, spin time per "
                      "command. Under TCG part of what a latency adds is the emulator's: each PAUSE "
                      "(`cpu_relax()`) of the spin leaves the translated code and retakes QEMU's global "
                      "lock, and the management interrupt lands on the spinning vCPU when its affinity "
                      "says so (ena-fast-design-notes.rst, Admin spin of 100 us).", "",
                      "| variant | latency us | loads | reaction us | p90 us | added us (95%) "
                      "| wakeups/cmd | spin hits/cmd | spin us/cmd |",
                      "|---|---|---|---|---|---|---|---|---|"] + ping_rows
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
    has_k = any("kernel_us" in r for r in recs)
    lines = [f"# Reconfiguration cost, stock vs ours ({kernel})", "",
             f"Raw data: `{raw}` ({reps} rounds, variants alternating, one ENA device, "
             "4 vCPUs, model max-queues=32, LLQ on; medians).",
             commit_line(recs),
             "DMA allocs/frees/bytes: kprobes on dma_alloc_attrs / dma_free_attrs filtered to the ENA "
             "device (coherent memory: rings, admin queues, ...). RX maps/unmaps: dma_map_page_attrs / "
             "dma_unmap_page_attrs on that device, all directions but DMA_TO_DEVICE (each fresh RX buffer: "
             "stock maps alloc_page pages DMA_BIDIRECTIONAL, ours page_pool pages DMA_FROM_DEVICE). Admin = the model's stat-admin-cmds during the step; ring KiB = the "
             "model's stat-ring-bytes after it (admin queues + host-memory IO rings). Wall = the command's "
             "wall time under TCG, including starting the command (ratios matter, not absolutes)."
             + (" Kernel = the time spent in the step's kernel entry (do_init_module, __dev_open, "
                "the ethtool netlink set handler, dev_set_mtu_ext, __dev_close_many), from the function "
                "graph tracer at depth 1." if has_k else ""), ""]
    cols = ["DMA allocs", "DMA frees", "alloc KiB", "RX maps", "RX unmaps", "admin", "ring KiB", "wall ms"]
    if has_k:
        cols.append("kernel ms")
    getters = {
        "DMA allocs": lambda r: r["dma_allocs"],
        "DMA frees": lambda r: r["dma_frees"],
        "alloc KiB": lambda r: r["dma_alloc_bytes"] / 1024,
        "RX maps": lambda r: r["rx_maps"],
        "RX unmaps": lambda r: r["rx_unmaps"],
        "admin": lambda r: r["admin_cmds"],
        "ring KiB": lambda r: r["model_ring_bytes"] / 1024,
        "wall ms": lambda r: r["wall_us"] / 1000,
        "kernel ms": lambda r: r.get("kernel_us", float("nan")) / 1000,
    }

    def m(step, v, c):
        rs = by.get((step, v), [])
        return med([getters[c](r) for r in rs]) if rs else float("nan")

    lines.append("| step | " + " | ".join(f"{c} {v}" for c in cols for v in variants) + " |")
    lines.append("|---|" + "---|" * (len(cols) * len(variants)))
    for s in steps:
        row = []
        for c in cols:
            for v in variants:
                x = m(s, v, c)
                if x != x:
                    row.append("-")
                    continue
                row.append(f"{x:.1f}" if c in ("wall ms", "kernel ms", "alloc KiB", "ring KiB") and x != int(x)
                           else f"{x:.0f}")
        lines.append(f"| {s} | " + " | ".join(row) + " |")
    bad = [r for r in recs if not r.get("ok", True) or r.get("trace_lost")]
    if bad:
        lines += ["", f"{len(bad)} steps failed or lost trace events: "
                  + ", ".join(sorted({r["variant"] + " " + r["step"] for r in bad}))]
    others = [v for v in variants if v != "stock"]
    if "stock" in variants and others:
        tcols = ["wall ms"] + (["kernel ms"] if has_k else [])
        lines += ["", "## Time ratio (median stock / median variant; above 1: the variant is faster)", "",
                  "| step | " + " | ".join(f"{c[:-3]} {v}" for c in tcols for v in others) + " |",
                  "|---|" + "---|" * (len(tcols) * len(others))]
        for s in steps:
            row = []
            for c in tcols:
                for v in others:
                    sm, vm = m(s, "stock", c), m(s, v, c)
                    row.append(f"{sm / vm:.2f}x" if vm and vm == vm and sm == sm else "-")
            lines.append(f"| {s} | " + " | ".join(row) + " |")
        # the issue's targets: on each -L change at most half the stock admin
        # commands and DMA allocations (coherent + RX maps); faster on every step
        lines += ["", "## Targets", ""]
        for v in others:
            for s in steps:
                if s.startswith("channels"):
                    for c, what in (("admin", "admin commands"), ("DMA allocs", "DMA allocations"),
                                    ("RX maps", "RX buffer maps")):
                        sv, vv = m(s, "stock", c), m(s, v, c)
                        ok = vv <= sv / 2
                        lines.append(f"- {v}, {s}: {what} {vv:.0f} vs stock {sv:.0f}: "
                                     f"{'at most half' if ok else 'MORE than half'} {'✓' if ok else '✗'}")
            for c in tcols:
                slower = [s for s in steps if not m(s, v, c) < m(s, "stock", c)]
                lines.append(f"- {v} faster than stock on every step by median {c[:-3]} time: "
                             + ("yes ✓" if not slower else "no ✗ (" + ", ".join(slower) + ")"))
    with open(prefix + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"report: {prefix}.md")


BOOT_VARIANTS = ["stock", "ours", "ours-asyncopen", "ours-syncopen", "ours-par", "ours-sync", "stock-async", "ours-async"]


def pct(xs, p):
    """p-th percentile (0..100), linear between order statistics."""
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * p / 100
    i = int(k)
    return xs[i] + (xs[min(i + 1, len(xs) - 1)] - xs[i]) * (k - i)


def boot_ci(xs, ys, n=2000, seed=1):
    """95% bootstrap interval of median(xs) / median(ys)."""
    import random
    rnd = random.Random(seed)
    rs = sorted(med(rnd.choices(xs, k=len(xs))) / med(rnd.choices(ys, k=len(ys))) for _ in range(n))
    return rs[int(0.025 * n)], rs[int(0.975 * n) - 1]


def react_positions(recs):
    """Each load's probe reaction samples (us, in order), the loads with the most common count."""
    loads = [[int(x) / 1000 for x in str(r["react_probe_samples"]).split(",")]
             for r in recs if r.get("react_probe_samples") not in (None, "")]
    if not loads:
        return []
    counts = [len(x) for x in loads]
    common = max(set(counts), key=counts.count)
    return [x for x in loads if len(x) == common]


def position_added(xs, zs, n=2000, seed=1):
    """Mean over positions of median(xs[.][i]) - median(zs[.][i]), with its 95% bootstrap interval."""
    import random
    rnd = random.Random(seed)

    def added(a, b):
        k = len(a[0])
        return sum(med([r[i] for r in a]) - med([r[i] for r in b]) for i in range(k)) / k
    rs = sorted(added(rnd.choices(xs, k=len(xs)), rnd.choices(zs, k=len(zs))) for _ in range(n))
    return added(xs, zs), rs[int(0.025 * n)], rs[int(0.975 * n) - 1]


def boot_diff_ci(xs, ys, n=2000, seed=1):
    """95% bootstrap interval of median(xs) - median(ys)."""
    import random
    rnd = random.Random(seed)
    rs = sorted(med(rnd.choices(xs, k=len(xs))) - med(rnd.choices(ys, k=len(ys))) for _ in range(n))
    return rs[int(0.025 * n)], rs[int(0.975 * n) - 1]


def boot(*args):
    """Multi-device boot: first probe to carrier on all devices, per variant."""
    *raws, prefix = args
    recs = [r for f in raws for r in load(f)]
    warm = [r for r in recs if r["rep"] == 0]
    recs = [r for r in recs if r["rep"] > 0]
    # loads with the rx-burst give the loss only; every time is from the quiet ones
    bursts = [r for r in recs if r.get("mode") == "burst"]
    recs = [r for r in recs if r.get("mode") != "burst"]
    kernel = recs[0]["kernel"] if recs else "?"
    ndev = recs[0]["ndev"] if recs else 0
    lat = recs[0]["latency_us"] if recs else 0
    smp = recs[0].get("smp", 2) if recs else 2
    qpairs = "/".join(sorted({str(r.get("queues", "?")) for r in recs})) or "?"
    loads = sorted({r.get("host_load", "?") for r in recs})
    by = defaultdict(list)
    for r in recs:
        by[r["variant"]].append(r)
    variants = [v for v in BOOT_VARIANTS if v in by] + sorted(v for v in by if v not in BOOT_VARIANTS)
    reps = max((r["rep"] for r in recs), default=0)
    ms = lambda us: us / 1000  # noqa: E731
    good = lambda v, k: [r[k] for r in by[v] if r["ok"] and r[k] >= 0]  # noqa: E731
    # records before 2026-12-06 carry no listener field: ena_nl.py's
    kinds = sorted({r.get("listener", "py") for r in recs})
    listener = " and ".join({"c": "`build/tools/ena_up`, C", "py": "`ena_nl.py --up`, Python"}.get(k, k)
                            for k in kinds)
    path = recs[0].get("path", "load") if recs else "load"
    how = ("the module loaded with the devices present" if path == "load" else
           "devices bound one after the other (sysfs bind) to the loaded module, as an ENI attached later")
    lines = [f"# Multi-device boot: {ndev} ENA devices, first probe to all links up ({kernel})", "",
             f"Path: **{path}**, {how}. Each variant's module was loaded (not measured) and its devices "
             "unbound before each bind load; time zero is then the first probe of the binds."
             if path == "bind" else f"Path: **{path}**, {how}.", "",
             f"Raw data: `{', '.join(raws)}` ({len(recs)} loads in {reps} rounds, variants alternating "
             f"with the order rotated each round; a warm-up round of {len(warm)} loads is in the raw "
             "data as rep 0 and left out here).",
             commit_line(recs),
             f"Guest: `tools/testing/vm/run --kernel {kernel.split('.')[0]}.{kernel.split('.')[1]} --ena {ndev} "
             f"--smp {smp}` ({smp} vCPUs, QEMU/TCG), model admin latency {lat} us on every device, model "
             f"defaults otherwise (8 queue pairs offered, LLQ on); each interface opened {qpairs} queue "
             "pairs (one per vCPU). Host load average (1/5/15 min) when the guest started: "
             f"{'; '.join(loads)}.", "",
             f"Each load runs the load command under a netlink listener ({listener}) that sets every new ena interface up the instant RTM_NEWLINK "
             "announces it, as udev/NetworkManager would, and waits for carrier on all of them. "
             "stock = `modprobe ena` (the distro's ena.ko), ours = `insmod ena.ko` (this tree; the devices "
             "probe one after the other, as stock's); ours-par = `insmod ena.ko probe_parallel=1` (the "
             "devices probe in parallel, interfaces registered in PCI order); ours-sync = the name of "
             "`insmod ena.ko probe_sync=1` in the runs of commit beef463, whose default was parallel; "
             "ours-asyncopen = `insmod ena.ko open_async=1` (ndo_open allocates the queues and returns, "
             "a work item starts them and the carrier comes on once they run; ours' default, as in-tree, "
             "starts them in ndo_open); ours-syncopen = `insmod ena.ko open_sync=1`, the in-tree way, in "
             "the runs of commit f38a663, whose default was the asynchronous start; "
             "-async = the same with the kernel's generic module parameter `async_probe=1`, which makes "
             "the driver core probe each device in its own async work (the probes ran on kworkers, "
             "see 'parallel').", "",
             "Time zero of every load is the **first probe**: the first entry of `local_pci_probe()` "
             "(kprobe; the PCI core calling the driver's probe routine for the first of the devices) "
             "after the `ena_init` initcall started. It excludes reading, decompressing and linking "
             "the module file, which differ between modprobe of the distro's .ko.xz and insmod of ours. "
             "All times share CLOCK_MONOTONIC (trace_clock mono for the kernel events, the listener's "
             "own clock for the netlink events).", "",
             "- **all up**: first probe to the listener receiving carrier (IFF_LOWER_UP) on the last of "
             "the devices (the figure of merit);",
             "- **probes done**: first probe to the last return of `local_pci_probe()`;",
             "- **module init**: the `ena_init` initcall, start to finish (with async_probe=1 it returns "
             "before the probes run);",
             "- **last newlink**: first probe to the listener seeing RTM_NEWLINK of the last device;",
             "- **probe each**: median duration of one device's probe (entry to return on the same task);",
             "- **open each**: median duration of one `__dev_open()` (the listener's up: the driver's "
             "ndo_open, under RTNL, so the opens of the devices never overlap);",
             "- **parallel**: most probes in flight at once; **admin cmds**: per device, probe and first "
             "open (the model's counter);",
             "- **from command**: start of the load command to all up (includes module loading);",
             "- **listener CPU**: the listener's own CPU time from the load command's start to its end "
             "(CLOCK_PROCESS_CPUTIME_ID; the opens it runs in its ioctls included).", "",
             "| variant | n | ok | all up ms (median, p10..p90) | probes done ms | module init ms | "
             "last newlink ms | probe each ms | open each ms | parallel | admin cmds/dev | from command ms "
             "| listener CPU ms |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for v in variants:
        rs = by[v]
        b = [ms(x) for x in good(v, "boot_us")]
        fmt = lambda xs: f"{med(xs):.1f}" if xs else "-"  # noqa: E731
        sp = f"{pct(b, 10):.1f}..{pct(b, 90):.1f}" if len(b) > 1 else "-"
        each = [ms(d) for r in rs if r["ok"] for d in r.get("probe_dur_us", [])]
        opens = [ms(d) for r in rs if r["ok"] for d in r.get("open_dur_us", [])]
        par = max((r.get("probe_parallel", 0) for r in rs), default=0)
        cmds = [sum(r["admin_cmds"]) / len(r["admin_cmds"]) for r in rs if r["admin_cmds"]]
        lines.append(
            f"| {v} | {len(rs)} | {sum(1 for r in rs if r['ok'])} | {fmt(b)} ({sp}) | "
            f"{fmt([ms(x) for x in good(v, 'probe_span_us')])} | {fmt([ms(x) for x in good(v, 'init_us')])} | "
            f"{fmt([ms(max(r['newlink_us'])) for r in rs if r['ok'] and r.get('newlink_us')])} | "
            f"{fmt(each)} | {fmt(opens)} | {par} | {med(cmds):.0f} | {fmt([ms(x) for x in good(v, 'load_us')])} "
            f"| {fmt([ms(r['listener_cpu_us']) for r in rs if r['ok'] and r.get('listener_cpu_us', -1) >= 0])} |")
    bad = [r for r in recs if not r["ok"] or r.get("dmesg_bad")]
    if bad:
        lines += ["", f"{len(bad)} loads failed or logged a kernel warning: "
                  + ", ".join(f"{r['variant']} rep {r['rep']}" for r in bad)]
    medb = {v: med([ms(x) for x in good(v, "boot_us")]) for v in variants}
    pairs = [("ours", "stock"), ("ours-asyncopen", "stock"), ("ours-syncopen", "stock"),
             ("stock", "ours"), ("ours-asyncopen", "ours"), ("ours-syncopen", "ours"), ("stock", "ours-par"), ("ours", "ours-par"),
             ("stock", "ours-sync"), ("ours-sync", "ours"),
             ("stock-async", "ours-async"), ("stock", "stock-async"),
             ("ours", "ours-async"), ("stock", "ours-async")]
    # a variant with module parameters (NAME+PARAM=VALUE) against stock, and ours against it
    pairs += [p for v in variants if v.startswith("ours+") for p in ((v, "stock"), ("ours", v))]
    rows = [(a, b) for a, b in pairs if a in medb and b in medb]
    if rows:
        lines += ["", "## Ratios (median all up, first / second)", "",
                  "95% interval: bootstrap of the ratio of medians (2000 resamples of each variant's "
                  "loads, fixed seed); an interval that contains 1.00 is no measured difference.", "",
                  "| | ratio | 95% interval |", "|---|---|---|"]
        for a, b in rows:
            lo, hi = boot_ci([ms(x) for x in good(a, "boot_us")], [ms(x) for x in good(b, "boot_us")])
            lines.append(f"| {a} / {b} | {medb[a] / medb[b]:.2f}x | {lo:.2f}..{hi:.2f} |")
    # RTNL held by one open (ndo_open runs under it): ours against stock
    opn = {v: [ms(d) for r in by[v] if r["ok"] for d in r.get("open_dur_us", [])] for v in variants}
    orows = [(a, b) for a, b in (("ours", "stock"), ("ours-asyncopen", "stock"), ("ours-syncopen", "stock"),
                                 ("ours-par", "stock"),
                                 ("ours-sync", "stock"), ("ours-async", "stock-async"),
                                 *((v, "stock") for v in variants if v.startswith("ours+")))
             if opn.get(a) and opn.get(b)]
    if orows:
        lines += ["", "## RTNL held by one open (median open each, first / second)", "",
                  "| | ours ms | stock ms | ratio | 95% interval |", "|---|---|---|---|---|"]
        for a, b in orows:
            lo, hi = boot_ci(opn[a], opn[b])
            lines.append(f"| {a} / {b} | {med(opn[a]):.2f} | {med(opn[b]):.2f} | "
                         f"{med(opn[a]) / med(opn[b]):.2f}x | {lo:.2f}..{hi:.2f} |")
    lines += boot_readiness(by, variants, bursts)
    with open(prefix + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    # plot: per variant, box (p25..p75, whiskers p10..p90, median) of all up and of
    # probes done, and every load as a point
    dat = prefix + ".dat"
    with open(dat, "w") as f:
        for k in ("boot_us", "probe_span_us"):
            for i, v in enumerate(variants):
                xs = [ms(x) for x in good(v, k)]
                if xs:
                    off = -0.17 if k == "boot_us" else 0.17
                    f.write(f"{i + off} {pct(xs, 10)} {pct(xs, 25)} {med(xs)} {pct(xs, 75)} {pct(xs, 90)}\n")
            f.write("\n\n")
        for k in ("boot_us", "probe_span_us"):
            for i, v in enumerate(variants):
                off = -0.17 if k == "boot_us" else 0.17
                for x in good(v, k):
                    f.write(f"{i + off} {ms(x)}\n")
            f.write("\n\n")
    xt = ", ".join(f'"{v}" {i}' for i, v in enumerate(variants))
    gp = ["set terminal pngcairo size 900,600", f'set output "{prefix}.png"',
          f'set title "{ndev} ENA devices: first probe to all links up ({kernel}, admin latency {lat} us)"',
          "set ylabel \"ms from first probe\"", f"set xtics ({xt})", f"set xrange [-0.6:{len(variants) - 0.4}]",
          "set yrange [0:*]", "set offsets 0, 0, graph 0.18, 0", "set grid ytics", "set boxwidth 0.25",
          "set key left top", "set style fill empty",
          f'plot "{dat}" index 0 using 1:3:2:6:5 with candlesticks whiskerbars lc rgb "#1f77b4" '
          'title "all links up (p10, p25, p75, p90)", '
          f'"{dat}" index 0 using 1:4:4:4:4 with candlesticks lw 3 lc rgb "#1f77b4" notitle, '
          f'"{dat}" index 1 using 1:3:2:6:5 with candlesticks whiskerbars lc rgb "#d62728" '
          'title "probes done", '
          f'"{dat}" index 1 using 1:4:4:4:4 with candlesticks lw 3 lc rgb "#d62728" notitle, '
          f'"{dat}" index 2 using 1:2 with points pt 7 ps 0.5 lc rgb "#1f77b4" title "each load", '
          f'"{dat}" index 3 using 1:2 with points pt 7 ps 0.5 lc rgb "#d62728" notitle']
    subprocess.run(["gnuplot"], input="\n".join(gp), text=True, check=True)
    print(f"report: {prefix}.md")


READY = [("boot_us", "carrier"), ("all_oper_us", "operstate up"), ("all_full_us", "rings full")]


def boot_readiness(by, variants, bursts):
    """The readiness section of the boot report: carrier, operstate up and
    every RX ring full, all devices and device by device, with paired
    ratios against stock, and the frames a burst at the first RX buffers
    loses."""
    ms = lambda us: us / 1000  # noqa: E731
    fmt = lambda xs: f"{med(xs):.1f} ({pct(xs, 10):.1f}..{pct(xs, 90):.1f})" if xs else "-"  # noqa: E731
    if not any("all_full_us" in r for v in variants for r in by[v]):
        return []
    out = ["", "## Readiness: carrier, operstate up, every RX ring full", "",
           "Each figure is from the first probe, ms, median (p10..p90) over the quiet loads (no frame "
           "sent). **carrier**: the listener sees IFF_LOWER_UP on the last device; **operstate up**: "
           "RTM_NEWLINK with operstate UP on the last device (the kernel's link watch sets it after "
           "the carrier: what `ip link` and NetworkManager wait for); **rings full**: the return of the "
           "RX fill call (ours' `ena_rx_refill()`, stock's `ena_refill_rx_bufs()`, kprobes) that "
           "brings the last ring of the last device to depth - 1 posted buffers. **model full**: "
           "loads in which the device model saw every live RX ring holding depth - 1 buffers within "
           "10 s of the listener's end (its own count, not the driver's).", "",
           "| variant | n | carrier | operstate up | rings full | model full |", "|---|---|---|---|---|---|"]
    for v in variants:
        rs = [r for r in by[v] if r["ok"]]
        cols = [fmt([ms(r[k]) for r in rs if r.get(k, -1) >= 0]) for k, _ in READY]
        mf = sum(1 for r in rs if r.get("model_full") == 1)
        out.append(f"| {v} | {len(rs)} | " + " | ".join(cols) + f" | {mf}/{len(rs)} |")
    ndev = max((len(r.get("rings_full_us", [])) for v in variants for r in by[v]), default=0)
    if ndev:
        out += ["", "Device by device (in the order the listener opened them; carrier and operstate "
                "are the k-th device to get there), ms from the first probe, medians:", "",
                "| variant | " + " | ".join(f"dev {k + 1}: carrier / oper / full" for k in range(ndev)) + " |",
                "|---|" + "---|" * ndev]
        for v in variants:
            rs = [r for r in by[v] if r["ok"]]
            cells = []
            for k in range(ndev):
                trip = []
                for key in ("carrier_us", "oper_us", "rings_full_us"):
                    xs = [ms(r[key][k]) for r in rs if len(r.get(key, [])) > k and r[key][k] >= 0]
                    trip.append(f"{med(xs):.1f}" if xs else "-")
                cells.append(" / ".join(trip))
            out.append(f"| {v} | " + " | ".join(cells) + " |")
    # paired: a round measured every variant, so ours / stock per round
    others = [v for v in variants if v.startswith("ours")]
    if "stock" in variants and others:
        out += ["", "Ratios ours / stock, paired: the median of the rounds' own ratios, 95% interval a "
                "bootstrap of whole rounds (4000 resamples); below 1 ours is sooner.", "",
                "| | " + " | ".join(name for _, name in READY) + " |", "|---|" + "---|" * len(READY)]
        summary = []
        for o in others:
            cells = []
            for k, name in READY:
                rat = round_ratios(((r["rep"], v, r[k]) for v in (o, "stock") for r in by[v]
                                    if r["ok"] and r.get(k, -1) > 0), o, "stock")
                if not rat:
                    cells.append("-")
                    continue
                m, lo, hi = paired_ci(rat)
                cells.append(f"{m:.2f} ({lo:.2f}..{hi:.2f}, n={len(rat)})")
                if len(rat) < 5:
                    summary.append(f"{o} {name}: {m:.2f}x from {len(rat)} rounds, too few for a verdict")
                    continue
                what = ("no measured difference from stock" if lo <= 1 <= hi else
                        "sooner than stock" if hi < 1 else "later than stock")
                half = (" (all of its interval at or under 0.5x)" if hi <= 0.5 else
                        " (0.5x inside its interval)" if lo <= 0.5 else "")
                summary.append(f"{o} {name}: {what}, {m:.2f}x{half}")
            out.append(f"| {o} / stock | " + " | ".join(cells) + " |")
        out += ["", "Generated from the intervals: " + "; ".join(summary) + "."]
    if bursts:
        bv = defaultdict(list)
        for r in bursts:
            if r["ok"] and r.get("burst_sent"):
                bv[r["variant"]].append(r)
        delay = sorted({r.get("burst_delay_us", 0) for r in bursts})
        out += ["", "## Frames lost to a burst at the first RX buffers", "",
                "Burst loads: each device's model sends its rx-burst frames at once into the first RX "
                "queue the driver starts, the moment that queue's first buffers are posted (before or "
                f"at the carrier) plus {'/'.join(map(str, delay))} us; a frame that finds no posted "
                "buffer is dropped, as on the device. "
                "Lost = the model's count of dropped burst frames, all devices of a load.", "",
                "| variant | n | frames sent per load | lost per load (median, p10..p90) | lost share |",
                "|---|---|---|---|---|"]
        for v in [x for x in variants if x in bv]:
            sent = [sum(r["burst_sent"]) for r in bv[v]]
            lost = [sum(r["burst_lost"]) for r in bv[v]]
            out.append(f"| {v} | {len(bv[v])} | {med(sent):.0f} | {med(lost):.0f} "
                       f"({pct(lost, 10):.0f}..{pct(lost, 90):.0f}) | {sum(lost) / max(sum(sent), 1):.1%} |")
    return out


DP_TESTS = [("tcp1", "TCP, 1 stream", "Mbit/s", "TCP x1"), ("tcp4", "TCP, 4 streams", "Mbit/s", "TCP x4"),
            ("udp64_pps", "UDP 64 B received", "packets/s", "UDP 64 B"),
            ("udp64_fixed_pps", "UDP 64 B received at a fixed offered rate", "packets/s", "UDP 64 B fixed"),
            ("rr_us", "UDP ping-pong, half round trip", "us", "ping-pong"),
            ("xdp_drop_pps", "XDP_DROP at the receiver (pktgen 60 B)", "packets/s", "XDP_DROP"),
            ("xdp_drop_1cpu_pps", "XDP_DROP, one vCPU (CPU 1 offline)", "packets/s", "XDP_DROP 1 CPU")]


def round_ratios(rows, a, b):
    """rows: (round, name, value); per round that has both A's and B's
    value (B's not 0): A / B, in the order of the rounds."""
    by = defaultdict(dict)
    for rnd, name, value in rows:
        by[rnd][name] = value
    return [v[a] / v[b] for _, v in sorted(by.items()) if a in v and b in v and v[b]]


def paired_ratios(recs, test, key):
    """Per round with both drivers' value of KEY for TEST: ours / stock."""
    return round_ratios(((r["round"], r["driver"], r[key]) for r in recs
                         if r["test"] == test and r.get(key) is not None and not r.get("failed")),
                        "ours", "stock")


def paired_ci(ratios, n=4000, seed=1):
    """Median of the per-round ratios, with the 95% bootstrap interval of
    that median: whole rounds resampled, so each resample keeps the pairing
    of the two drivers measured side by side in a round."""
    import random
    rnd = random.Random(seed)
    rs = sorted(med(rnd.choices(ratios, k=len(ratios))) for _ in range(n))
    return med(ratios), rs[int(0.025 * n)], rs[int(0.975 * n) - 1]


# figures where a lower value is the better one (the rest: higher is better)
LOWER_BETTER = {"rr_us", "irq_per_pkt", "cpu_s_per_gb", "resume_ms", "outage_ms", "lost_after"}


def verdict(key, test, lo, hi):
    """What an interval of ours / stock says: ours ahead, behind, or no measured difference."""
    if lo <= 1 <= hi:
        return "no measured difference"
    lower = key in LOWER_BETTER or (key == "value" and test in LOWER_BETTER)
    return "ours ahead" if (hi < 1) == lower else "ours behind"


def dp_summary(cells):
    """The summary sentences, generated from the paired intervals only.

    cells: (figure name, verdict, ratio, lo, hi, n) per figure."""
    out = []
    for v in ("ours ahead", "no measured difference", "ours behind"):
        hit = [f"{name} {r:.2f} ({lo:.2f}..{hi:.2f}, n={n})" for name, vv, r, lo, hi, n in cells if vv == v]
        if hit:
            out.append(f"**{v[0].upper() + v[1:]}** on {len(hit)} of {len(cells)} figures: " + "; ".join(hit) + ".")
    few = [name for name, vv, _, _, _, n in cells if vv == "no measured difference" and n < 10]
    if few:
        out.append("Fewer than 10 paired rounds behind an interval that holds 1 (more rounds could "
                   "still tell the drivers apart): " + ", ".join(few) + ".")
    return out


def dp_derived(r):
    """A datapath record with its derived fields (older raw data carries them)."""
    if "cpu_jiffies" in r:  # /proc/stat's USER_HZ
        r.setdefault("cpu_s", r["cpu_jiffies"] / 100)
    if "irq_per_pkt" not in r and "irqs" in r:
        r["irq_per_pkt"] = r["irqs"] / r["packets"] if r.get("packets") else None
    if "cpu_s_per_gb" not in r and "cpu_s" in r and "bytes" in r:
        r["cpu_s_per_gb"] = r["cpu_s"] / (r["bytes"] / 1e9) if r["bytes"] else None
    return r


def datapath(raw, prefix):
    recs = [dp_derived(r) for r in load(raw)]
    kernel = recs[0]["kernel"] if recs else "?"
    rounds = max((r["round"] for r in recs), default=0)

    def vals(drv, test, key="value"):
        return [r[key] for r in recs if r["driver"] == drv and r["test"] == test and r.get(key) is not None]

    def rng(xs):
        return f"{min(xs):.4g}..{max(xs):.4g}" if xs else "-"

    lines = [f"# Datapath, stock vs ours ({kernel})", "",
             commit_line(recs), "",
             f"Raw data: `{raw}`; {rounds} rounds in one guest, the drivers alternating (odd rounds",
             "stock first); two model devices on one wire, the second in a netns, both driven by the",
             "driver under test. Medians over the rounds, the range after them; ratio = ours / stock",
             "(above 1 is better for throughput and packets, below 1 for latency, interrupts and CPU).",
             "irq/pkt = ena IO interrupts of both devices per packet both moved; CPU s/GB = the",
             "guest's busy CPU time per GB received (TCP and the fixed-rate UDP only). Under TCG:",
             "compare ratios, not absolute figures.", "",
             "| test | unit | stock | ours | ours/stock | range stock | range ours "
             "| irq/pkt stock | irq/pkt ours | CPU s/GB stock | CPU s/GB ours |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    ratios = []
    for test, name, unit, short in DP_TESTS:
        s, o = vals("stock", test), vals("ours", test)
        if not s and not o:
            continue
        ratio = med(o) / med(s) if s and o and med(s) else float("nan")
        ip_s, ip_o = vals("stock", test, "irq_per_pkt"), vals("ours", test, "irq_per_pkt")
        cg_s, cg_o = vals("stock", test, "cpu_s_per_gb"), vals("ours", test, "cpu_s_per_gb")
        irq_ratio = med(ip_o) / med(ip_s) if ip_s and ip_o and med(ip_s) else float("nan")
        ratios.append((short, ratio, irq_ratio))
        cg = (f"{med(cg_s):.3g} | {med(cg_o):.3g}"
              if (test.startswith("tcp") or test == "udp64_fixed_pps") and cg_s and cg_o
              else "- | -")
        lines.append(f"| {name} | {unit} | {med(s):.4g} | {med(o):.4g} | {ratio:.2f} | {rng(s)} | {rng(o)} "
                     f"| {med(ip_s):.3f} | {med(ip_o):.3f} | {cg} |")
    lines += ["", "Ratios ours / stock, paired: each round measured both drivers side by side, its",
              "ratio is ours / stock of that round; the figure is the median of the rounds' ratios",
              "and its 95% bootstrap interval (4000 resamples of whole rounds). Where an interval",
              "holds 1, the run cannot tell the drivers apart on that figure. n: rounds with both",
              "drivers measured; failed: measurements that gave no value (stock / ours).", "",
              "| test | n | failed | result | irq/pkt | CPU s/GB |", "|---|---|---|---|---|---|"]
    cells = []

    def ci(test, key, name):
        rs = paired_ratios(recs, test, key)
        if len(rs) < 2:
            return "-"
        r, lo, hi = paired_ci(rs)
        v = verdict(key, test, lo, hi)
        cells.append((name, v, r, lo, hi, len(rs)))
        return f"{r:.2f} ({lo:.2f}..{hi:.2f}) {v}"

    def nfail(drv, test):
        return sum(1 for r in recs if r["driver"] == drv and r["test"] == test and r.get("failed"))
    for test, name, _, short in DP_TESTS:
        if not vals("stock", test) or not vals("ours", test):
            continue
        n = len(paired_ratios(recs, test, "value"))
        res = ci(test, "value", short)
        irq = ci(test, "irq_per_pkt", f"{short} irq/pkt")
        cpu = (ci(test, "cpu_s_per_gb", f"{short} CPU/GB")
               if test.startswith("tcp") or test == "udp64_fixed_pps" else "-")
        lines.append(f"| {name} | {n} | {nfail('stock', test)} / {nfail('ours', test)} | {res} | {irq} | {cpu} |")
    lines += ["", "Summary (generated from the paired intervals above):"]
    for sentence in dp_summary(cells):
        lines += ["", sentence]
    lines += ["", "NAPI behaviour (medians): packets per NAPI poll and IO interrupts per poll, both",
              "devices; the two drivers print the same in-tree counters (`tx_poll`, `unmask_interrupt`).",
              "RX delay/unmask: the mean RX delay (us) the unmasks asked the device for, as the",
              "model counts them (DIM's choice under adaptive-rx).",
              "", "| test | pkts/poll stock | pkts/poll ours | irqs/poll stock | irqs/poll ours "
              "| unmasks/irq stock | unmasks/irq ours | RX delay/unmask stock | RX delay/unmask ours |",
              "|---|---|---|---|---|---|---|---|---|"]

    def per(drv, test, num, den):
        xs = [r[num] / r[den] for r in recs if r["driver"] == drv and r["test"] == test
              and r.get(num) is not None and r.get(den)]
        return f"{med(xs):.3g}" if xs else "-"
    for test, name, _, _ in DP_TESTS:
        if not vals("stock", test) and not vals("ours", test):
            continue
        lines.append(f"| {name} | {per('stock', test, 'packets', 'napi_polls')} "
                     f"| {per('ours', test, 'packets', 'napi_polls')} "
                     f"| {per('stock', test, 'irqs', 'napi_polls')} | {per('ours', test, 'irqs', 'napi_polls')} "
                     f"| {per('stock', test, 'unmasks', 'irqs')} | {per('ours', test, 'unmasks', 'irqs')} "
                     f"| {per('stock', test, 'model_rx_delay', 'model_unmasks')} "
                     f"| {per('ours', test, 'model_rx_delay', 'model_unmasks')} |")
    with open(prefix + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    dat = prefix + ".dat"
    with open(dat, "w") as f:
        for i, (name, ratio, irq_ratio) in enumerate(ratios):
            f.write(f'{i} "{name}" {ratio} {irq_ratio}\n')
    gp = ["set terminal pngcairo size 900,500", f'set output "{prefix}.png"',
          f'set title "Datapath, ours / stock ({kernel}, medians of {rounds} alternating rounds)"',
          "set ylabel \"ours / stock\"", "set style data histogram", "set style histogram clustered",
          "set style fill solid 0.6", "set boxwidth 0.8", "set yrange [0:*]", "set grid ytics",
          "set key below",
          f'plot "{dat}" using 3:xtic(2) title "result (throughput, pps, latency)", '
          f'"" using 4 title "IO interrupts per packet", 1 with lines lc rgb "black" notitle']
    subprocess.run(["gnuplot"], input="\n".join(gp), text=True, check=True)
    print(f"report: {prefix}.md")


RECOVERY_TRIGGERS = [("keepalive", "keep-alive loss"), ("fatal", "FATAL_ERROR event (IO stops)"),
                     ("request", "DEVICE_REQUEST_RESET event")]


def recovery_rows(recs):
    """Per trigger and driver: (n, recovered, resets, time to traffic ms,
    outage ms, frames lost) as medians over the rounds that measured it;
    time to traffic over the recovered ones only."""
    rows = {}
    for t, _ in RECOVERY_TRIGGERS:
        for d in ("stock", "ours"):
            rs = [r for r in recs if r["test"] == t and r["driver"] == d and not r.get("failed")]
            if not rs:
                continue
            reset = [r for r in rs if r.get("resets", 0) > 0]
            timed = [r for r in reset if r.get("resume_ms") is not None]
            rows[t, d] = {"n": len(rs), "failed": sum(1 for r in recs if r["test"] == t and r["driver"] == d
                                                       and r.get("failed")),
                          "reset": len(reset),
                          "back": sum(1 for r in reset if r.get("back")),
                          "timed": len(timed),
                          "resume": med([r["resume_ms"] for r in timed]),
                          "outage": med([r["outage_ms"] for r in rs]),
                          "lost": med([r["lost_after"] for r in rs])}
    return rows


def recovery_table(recs):
    """The per-trigger table, as markdown lines."""
    rows = recovery_rows(recs)
    out = ["| trigger | driver | rounds | reset | back | time to traffic, ms | outage, ms "
           "| datagrams lost |", "|---|---|---|---|---|---|---|---|"]
    for t, name in RECOVERY_TRIGGERS:
        for d in ("stock", "ours"):
            c = rows.get((t, d))
            if not c:
                continue
            resume = f"{c['resume']:.0f}" if c["timed"] else "-"
            out.append(f"| {name} | {d} | {c['n']} | {c['reset']} | {c['back']} | {resume} "
                       f"| {c['outage']:.0f} | {c['lost']:.0f} |")
    return out


def recovery_intervals(recs):
    """Paired ratios ours / stock per trigger: time to traffic over the
    rounds both drivers recovered in, the outage and the datagrams lost
    over the rounds stock had one in.  Returns the table lines and the cells
    for the summary."""
    lines = ["| trigger | figure | n | ours / stock (95% interval) | verdict |", "|---|---|---|---|---|"]
    cells = []
    for t, name in RECOVERY_TRIGGERS:
        rs = [r for r in recs if r["test"] == t and not r.get("failed")]
        back = [r for r in rs if r.get("resume_ms") is not None and r.get("resets", 0) > 0]
        # (a round without a reset, or whose reset lost nothing, has no time to traffic)
        for key, fig, src in (("resume_ms", "time to traffic", back), ("outage_ms", "outage", rs),
                              ("lost_after", "datagrams lost", rs)):
            ratios = round_ratios(((r["round"], r["driver"], r[key]) for r in src), "ours", "stock")
            if len(ratios) < 2:
                lines.append(f"| {name} | {fig} | {len(ratios)} | - | too few paired rounds |")
                continue
            r, lo, hi = paired_ci(ratios)
            v = verdict(key, t, lo, hi)
            cells.append((f"{name}, {fig}", v, r, lo, hi, len(ratios)))
            lines.append(f"| {name} | {fig} | {len(ratios)} | {r:.3f} ({lo:.3f}..{hi:.3f}) | {v} |")
    return lines, cells


def recovery(raw, prefix):
    recs = load(raw)
    kernel = recs[0]["kernel"] if recs else "?"
    rounds = max((r["round"] for r in recs), default=0)
    pps = sorted({r["pps"] for r in recs if "pps" in r})
    win = sorted({r["window_s"] for r in recs if "window_s" in r})
    lines = [f"# Recovery from a device reset, stock vs ours ({kernel})", "",
             commit_line(recs), "",
             f"Raw data: `{raw}`; {rounds} rounds in one guest, the drivers alternating (odd rounds",
             "stock first). Two model devices on one wire, the second in a netns; the peer sends",
             f"{', '.join(map(str, pps))} UDP datagrams a second to an echo behind the first device",
             "(bench/flow.py), so the flow crosses it both ways. A second into the flow the model",
             "needs a reset of the first device (bench/guest-recovery.sh: keep-alives stop until",
             "the next reset; a FATAL_ERROR event, after which the model's IO stops until a reset;",
             f"a DEVICE_REQUEST_RESET event); the flow runs {', '.join(map(str, win))} s more. Both drivers",
             "read the same hints at probe (keep-alive and missing-TX timeouts 2 s).", "",
             "reset: rounds in which the model saw a device reset; back: rounds in which the flow",
             "came back after one. Outage: the longest run of datagrams lost after the trigger, in",
             "send time, from the last one echoed before it to the first echoed after it (runs of",
             "lost datagrams, not of silence: a sender the guest holds up loses nothing). Time to",
             "traffic: from the trigger to the echo that ended that run (so it holds the detection,",
             "e.g. the keep-alive timeout); none where nothing was lost. Datagrams lost: sent after",
             "the trigger, never echoed. Medians over the rounds; time to traffic over the rounds",
             "that have one.", ""]
    lines += recovery_table(recs)
    ci_lines, cells = recovery_intervals(recs)
    lines += ["", "Paired ratios ours / stock: per round, ours' figure over stock's; the median of",
              "the rounds' ratios and its 95% bootstrap interval (4000 resamples of whole rounds).",
              "Lower is better for every figure. Rounds where stock lost nothing give no ratio.", ""]
    lines += ci_lines
    lines += ["", "Summary (generated from the paired intervals above):"]
    for sentence in dp_summary(cells):
        lines += ["", sentence]
    with open(prefix + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"report: {prefix}.md")


def recovery_text(raw):
    """make run's short table: the same figures, plain text."""
    rows = recovery_rows(load(raw))
    print("%-32s %-6s %6s %18s %10s %8s" % ("device reset by", "driver", "reset", "time to traffic ms",
                                            "outage ms", "lost"))
    for t, name in RECOVERY_TRIGGERS:
        for d in ("stock", "ours"):
            c = rows.get((t, d))
            if c:
                resume = ("%.0f" % c["resume"] if c["timed"] else
                          "not back" if c["back"] < c["reset"] else "-")
                print("%-32s %-6s %3d/%-2d %18s %10.0f %8.0f" % (name, d, c["reset"], c["n"], resume,
                                                                c["outage"], c["lost"]))


if __name__ == "__main__":
    {"probe": probe, "reconfig": reconfig, "boot": boot,
     "datapath": datapath, "recovery": recovery,
     "recovery-text": recovery_text}[sys.argv[1]](*sys.argv[2:])
