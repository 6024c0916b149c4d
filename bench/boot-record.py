#!/usr/bin/python3 -S
"""Guest side of the multi-device boot benchmark (bench/guest-boot.sh).

  boot-record.py reset NDEV
      zero the model's counters of ena0..ena<NDEV-1> (one process, not NDEV)
  boot-record.py record TRACE NL_JSON KEY=VALUE...
      one JSON line: the load's time line from the trace (trace_clock mono,
      events set up by boot_trace_setup in ena_lib.sh) and from the JSON
      the listener printed (its t0_mono_us puts its times on the trace's
      clock), plus the model's counters of every device; KEY=VALUE pairs
      are copied in as benchrec.py reads them. ndev=... must be among them;
      path=bind (devices bound to the loaded module: no ena_init in the
      trace) times from the trace's first probe; rx_depth=N (the RX ring
      size the interfaces use) lets it say when every ring was full.

Rings full: each RX fill call (ours' ena_rx_refill, stock's
ena_refill_rx_bufs) is traced with its ring and the buffers it posted. A
ring's first fill runs in or right after its device's open (the listener
opens one device at a time), which tells the device; a ring is full at the
return of the fill that brings its posted count to rx_depth - 1 (the most
a ring holds: one slot stays empty). Meaningful in loads without traffic;
with the rx-burst the frames consume buffers and the fills go on.

Times in the record are microseconds from the first probe ("first probe" =
the first entry of local_pci_probe(), the PCI core's call of the driver's
probe routine, after the ena_init initcall started), except load_us, which
is from the start of the load command (modprobe/insmod).
"""
import importlib.machinery
import importlib.util
import json
import os
import re
import sys

from benchrec import fields

QMP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../tools/testing/vm/qmp")
LINE = re.compile(r"^\s*(.+)-(\d+)\s+\[(\d+)\](?:\s+\S+)?\s+(\d+\.\d+):\s+(\w+):\s*(.*)$")


def qmp():
    loader = importlib.machinery.SourceFileLoader("qmp", QMP)
    spec = importlib.util.spec_from_loader("qmp", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def qom(q, dev, prop, value=None):
    path = "/machine/peripheral/" + dev
    if value is None:
        r = q.call({"execute": "qom-get", "arguments": {"path": path, "property": prop}})
    else:
        r = q.call({"execute": "qom-set", "arguments": {"path": path, "property": prop, "value": value}})
    if "error" in r:
        raise SystemExit(f"boot-record: {dev} {prop}: {r['error']}")
    return r.get("return")


def parse_trace(path, bind=False):
    """The events of the last ena_init in the trace (bind: all of them),
    absolute mono seconds."""
    ev = None
    for line in open(path):
        if line.startswith("#"):
            continue
        m = LINE.match(line)
        if not m:
            continue
        comm, pid, t, name, rest = m[1].strip(), int(m[2]), float(m[4]), m[5], m[6]
        if name == "initcall_start" and "ena_init" in rest or ev is None and bind:
            ev = {"init_start": t, "init_finish": None, "probe_in": [], "probe_out": [], "reg": [],
                  "open_in": [], "open_out": [], "fill_in": [], "fill_out": []}
            if name == "initcall_start":
                continue
        if ev is None:
            continue
        elif name == "initcall_finish" and "ena_init" in rest:
            ev["init_finish"] = t
        elif name == "ena_bprobe":
            ev["probe_in"].append((t, pid, comm))
        elif name == "ena_bprobe_ret":
            r = re.search(r"ret=(\S+)", rest)
            ev["probe_out"].append((t, pid, int(r[1], 0) if r else -1))
        elif name == "ena_bopen":
            ev["open_in"].append((t, pid, comm))
        elif name == "ena_bopen_ret":
            r = re.search(r"ret=(\S+)", rest)
            ev["open_out"].append((t, pid, int(r[1], 0) if r else -1))
        elif name in ("ena_bfill_o", "ena_bfill_s"):
            r = re.search(r"ring=(\S+)", rest)
            ev["fill_in"].append((t, pid, r[1] if r else "?"))
        elif name in ("ena_bfill_o_ret", "ena_bfill_s_ret"):
            r = re.search(r"ret=(\S+)", rest)
            ev["fill_out"].append((t, pid, int(r[1], 0) if r else 0))
        elif name == "ena_breg":
            r = re.search(r"ret=(\S+)", rest)
            if r and int(r[1], 0) == 0:
                ev["reg"].append(t)
    return ev


def pairs(ins, outs):
    """Each entry (t, pid, x) with the next return (t2, pid2, y) on the same
    task: (t, t2, pid, x, y), in the order of the entries (calls of one
    function do not nest)."""
    out, left = [], list(outs)
    for t, pid, x in ins:
        for i, (t2, pid2, y) in enumerate(left):
            if pid2 == pid and t2 >= t:
                out.append((t, t2, pid, x, y))
                del left[i]
                break
    return out


def durations(ins, outs):
    """Entry to the next return on the same task, per entry (us)."""
    return [int(round((t2 - t) * 1e6)) for t, t2, _, _, _ in pairs(ins, outs)]


def fills(ev, us, depth):
    """Per device (open order): when its last ring became full (us), and
    the rings seen and full; -1 where a ring never filled."""
    opens = sorted(t for t, _, _ in ev["open_in"])
    posted, full, dev = {}, {}, {}
    for t, t2, _, ring, n in pairs(sorted(ev["fill_in"]), sorted(ev["fill_out"])):
        if ring not in dev:
            # the device whose open began last before the ring's first fill:
            # inside that open (the fill in ndo_open) or after it (a start
            # in a work item, ours' open_async)
            dev[ring] = max((k for k, a in enumerate(opens) if a <= t), default=-1)
        posted[ring] = posted.get(ring, 0) + max(n & 0xffffffff if n >= 0 else n, 0)
        if ring not in full and depth and posted[ring] >= depth - 1:
            full[ring] = us(t2)
    per_dev = []
    for k in range(len(opens)):
        rings = [r for r in dev if dev[r] == k]
        done = [full[r] for r in rings if r in full]
        per_dev.append(max(done) if rings and len(done) == len(rings) else -1)
    return per_dev, len(posted), len(full), sorted(posted.values())


def record(trace, nl_json, kv):
    rec = fields(kv)
    ndev = rec["ndev"]
    try:
        nl = json.loads(nl_json)
    except ValueError:
        nl = {"cmd_rc": "no-json", "ifaces": {}, "t0_mono_us": -1}
    bind = rec.get("path") == "bind"
    ev = parse_trace(trace, bind)
    ifs = nl.get("ifaces", {})
    rec["cmd_rc"] = nl.get("cmd_rc")
    rec["cmd_us"] = nl.get("cmd_us")
    # the listener's own CPU (its opens included), -1 from a listener without it
    rec["listener_cpu_us"] = nl.get("cpu_us", -1)
    ok = nl.get("cmd_rc") == 0 and len(ifs) == ndev and all("carrier_us" in v for v in ifs.values())
    if ev and ev["probe_in"]:
        p0 = min(t for t, _, _ in ev["probe_in"])
        us = lambda t: int(round((t - p0) * 1e6))  # noqa: E731
        rec["init_start_us"] = us(ev["init_start"])
        rec["init_finish_us"] = us(ev["init_finish"]) if ev["init_finish"] else -1
        rec["init_us"] = rec["init_finish_us"] - rec["init_start_us"] if ev["init_finish"] else -1
        ins = sorted(ev["probe_in"])
        outs = sorted(ev["probe_out"])
        rec["probe_start_us"] = [us(t) for t, _, _ in ins]
        rec["probe_end_us"] = [us(t) for t, _, _ in outs]
        rec["probe_ret"] = [r for _, _, r in outs]
        rec["probe_comm"] = sorted({re.sub(r"\d+", "N", c) for _, _, c in ins})
        rec["probe_dur_us"] = durations(ins, outs)
        # the opens (ndo_open under RTNL), one after the other
        rec["open_dur_us"] = durations(sorted(ev["open_in"]), sorted(ev["open_out"]))
        rec["open_end_us"] = [us(t) for t, _, _ in sorted(ev["open_out"])]
        # how many probes ran at once, at most
        edges = sorted([(t, 1) for t, _, _ in ins] + [(t, -1) for t, _, _ in outs])
        cur = peak = 0
        for _, d in edges:
            cur += d
            peak = max(peak, cur)
        rec["probe_parallel"] = peak
        rec["probe_span_us"] = us(max(t for t, _, _ in outs)) if outs else -1
        rec["registered_us"] = sorted(us(t) for t in ev["reg"])
        t0 = nl.get("t0_mono_us", -1) / 1e6
        rel = lambda k: sorted(us(t0 + v[k] / 1e6) for v in ifs.values() if k in v)  # noqa: E731
        rec["newlink_us"] = rel("newlink_us")
        rec["up_sent_us"] = rel("up_sent_us")
        rec["carrier_us"] = rel("carrier_us")
        rec["oper_us"] = rel("oper_us")
        depth = rec.get("rx_depth", 0)
        rec["rings_full_us"], rec["rings_seen"], rec["rings_full"], rec["rings_posted"] = \
            fills(ev, us, depth if isinstance(depth, int) else 0)
        rec["all_full_us"] = max(rec["rings_full_us"]) if rec["rings_full_us"] and \
            min(rec["rings_full_us"]) >= 0 and rec["rings_seen"] else -1
        rec["all_oper_us"] = max(rec["oper_us"]) if len(rec["oper_us"]) == ndev else -1
        rec["first_probe_from_cmd_us"] = int(round((p0 - t0) * 1e6))
        rec["boot_us"] = max(rec["carrier_us"]) if ok and rec["carrier_us"] else -1
        ok = ok and len(ins) == ndev and len(outs) == ndev and all(r == 0 for r in rec["probe_ret"]) \
            and t0 > 0
        rec["init_start_us"] = rec["init_start_us"] if not bind else -1
    else:
        ok = False
    rec["load_us"] = max((v.get("carrier_us", -1) for v in ifs.values()), default=-1)
    q = qmp()
    rec["admin_cmds"] = [qom(q, f"ena{d}", "stat-admin-cmds") for d in range(ndev)]
    if rec.get("burst", 0):
        rec["burst_sent"] = [qom(q, f"ena{d}", "stat-rx-burst-sent") for d in range(ndev)]
        rec["burst_lost"] = [qom(q, f"ena{d}", "stat-rx-burst-dropped") for d in range(ndev)]
    rec["ok"] = bool(ok)
    print(json.dumps(rec, sort_keys=True))


def main():
    if sys.argv[1] == "reset":
        q = qmp()
        for d in range(int(sys.argv[2])):
            qom(q, f"ena{d}", "stat-reset", True)
    elif sys.argv[1] == "record":
        record(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
