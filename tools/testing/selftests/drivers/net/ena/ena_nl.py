#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
# (-S: only the standard library is used, and under TCG the host's site .pth
# hooks cost about half a second per start)
"""Watch rtnetlink while a command loads or binds a driver; query the
netdev generic netlink family.

  ena_nl.py [--up] [--flap] [--oper] [--check] [--count N] [--timeout S] -- CMD...
  ena_nl.py netdev ops
  ena_nl.py netdev queue-get|napi-get|page-pool-get [--ifindex N]
  ena_nl.py netdev qstats-get [--ifindex N] [--scope queue]
  ena_nl.py netdev dev-get [--ifindex N]

Subscribes to RTNLGRP_LINK, runs CMD, and for every new interface bound to
the ena driver records (microseconds after CMD started): when RTM_NEWLINK
announced it, when it was UP, when it had carrier, when its operstate was
"up" (what `ip link` prints as "state UP"). With --up it brings each new
interface up the instant RTM_NEWLINK announces it, as udev or
NetworkManager would; with --flap it then sets it down and up again at once.
Waits until N interfaces have carrier (with --oper: operstate up too) or
the timeout, and prints one JSON object: {"cmd_us": ..., "cmd_rc": ...,
"ifaces": {name: {...}}, "order": [names by MAC address], "t0_mono_us": ...,
"cpu_us": ...}. cpu_us is this listener's own CPU time
(CLOCK_PROCESS_CPUTIME_ID, the opens it ran in its ioctls included) from
CMD's start to the end.
t0_mono_us is the instant CMD started on CLOCK_MONOTONIC (the clock of the
tracer's trace_clock "mono"), so t0_mono_us + carrier_us lands on the time
line of a trace recorded with that clock (bench/guest-boot.sh, make run).

--check: exit 1 (reason on stderr) unless CMD succeeded and N interfaces
are, when it returns, administratively up with carrier and operstate "up"
as sysfs reports them; a test needs no process of its own for that.

"netdev" speaks the `netdev` generic netlink family (what ynl's netdev.yaml
describes) without ynl: "ops" prints the names of the operations the
running kernel has (exit 2 when the family does not exist, as on 6.1);
the others dump objects (filtered by --ifindex where the kernel takes a
filter, else here) and print a JSON list, one object per reply, keyed by
the spec's attribute names.
"""
import argparse
import fcntl
import json
import os
import socket
import struct
import subprocess
import sys
import time

RTMGRP_LINK = 1
RTM_NEWLINK = 16
IFF_UP = 0x1
IFF_LOWER_UP = 0x10000
IFLA_IFNAME = 3
IFLA_OPERSTATE = 16
IF_OPER_UP = 6
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914


def now_us(t0):
    return int((time.monotonic() - t0) * 1e6)


def driver_of(name):
    try:
        return os.path.basename(os.readlink(f"/sys/class/net/{name}/device/driver"))
    except OSError:
        return None


def set_up(name, up):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        ifr = struct.pack("16sH14x", name.encode(), 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(s, SIOCGIFFLAGS, ifr))[1]
        flags = (flags | IFF_UP) if up else (flags & ~IFF_UP)
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack("16sH14x", name.encode(), flags))
        return True
    except OSError as e:
        print(f"# ena_nl: set {name} {'up' if up else 'down'}: {e}", file=sys.stderr)
        return False
    finally:
        s.close()


def parse(buf):
    """Yield (ifindex, name, flags, operstate) for each RTM_NEWLINK in buf.

    The kernel puts the name and the operstate among the first attributes;
    the walk stops at them (under TCG, reading the other forty or so cost the
    listener milliseconds of CPU per interface, time a boot bench counts)."""
    off = 0
    while off + 16 <= len(buf):
        ln, typ, _, _, _ = struct.unpack_from("IHHII", buf, off)
        if ln < 16:
            break
        if typ == RTM_NEWLINK:
            _, _, idx, flags, _ = struct.unpack_from("BxHiII", buf, off + 16)
            name = oper = None
            a = off + 32
            while a + 4 <= off + ln:
                alen, atyp = struct.unpack_from("HH", buf, a)
                if alen < 4:
                    break
                if atyp == IFLA_IFNAME:
                    name = buf[a + 4:a + alen].split(b"\0")[0].decode()
                elif atyp == IFLA_OPERSTATE and alen >= 5:
                    oper = buf[a + 4]
                if name is not None and oper is not None:
                    break
                a += (alen + 3) & ~3
            yield idx, name, flags, oper
        off += (ln + 3) & ~3


def sysfs(name, attr):
    try:
        with open(f"/sys/class/net/{name}/{attr}") as f:
            return f.read().strip()
    except OSError:
        return ""


def check(ifaces, count, cmd_rc):
    """The interfaces' state as a user reads it: None when all is well."""
    if cmd_rc != 0:
        return f"command exited with {cmd_rc}"
    good = []
    for name in ifaces:
        flags = int(sysfs(name, "flags") or "0", 16)
        carrier, oper = sysfs(name, "carrier"), sysfs(name, "operstate")
        if flags & IFF_UP and carrier == "1" and oper == "up":
            good.append(name)
        else:
            print(f"# ena_nl: {name}: flags {flags:#x} carrier {carrier or '-'} "
                  f"operstate {oper or '-'}", file=sys.stderr)
    if len(good) < count:
        return f"{len(good)} of {count} interfaces up with carrier and operstate up"
    return None


# --- the netdev generic netlink family ---------------------------------------

NETLINK_GENERIC = 16
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 0x1, 0x4, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME, CTRL_ATTR_OPS = 1, 2, 6
CTRL_ATTR_OP_ID = 1
NLA_F_NESTED = 0x8000

# command ids and attribute names (uapi/linux/netdev.h, 6.12)
NETDEV_CMDS = {"dev-get": 1, "page-pool-get": 5, "page-pool-stats-get": 9,
               "queue-get": 10, "napi-get": 11, "qstats-get": 12, "bind-rx": 13}
NETDEV_ATTRS = {
    "dev-get": ["ifindex", None, "xdp-features", "xdp-zc-max-segs",
                "xdp-rx-metadata-features", "xsk-features"],
    "page-pool-get": ["id", "ifindex", "napi-id", "inflight", "inflight-mem",
                      "detach-time", "dmabuf"],
    "napi-get": ["ifindex", "id", "irq", "pid"],
    "queue-get": ["id", "ifindex", "type", "napi-id", "dmabuf"],
    "qstats-get": ["ifindex", "queue-type", "queue-id", "scope", None, None,
                   None, "rx-packets", "rx-bytes", "tx-packets", "tx-bytes",
                   "rx-alloc-fail", "rx-hw-drops", "rx-hw-drop-overruns",
                   "rx-csum-complete", "rx-csum-unnecessary", "rx-csum-none",
                   "rx-csum-bad", "rx-hw-gro-packets", "rx-hw-gro-bytes",
                   "rx-hw-gro-wire-packets", "rx-hw-gro-wire-bytes",
                   "rx-hw-drop-ratelimits", "tx-hw-drops", "tx-hw-drop-errors",
                   "tx-csum-none", "tx-needs-csum", "tx-hw-gso-packets",
                   "tx-hw-gso-bytes", "tx-hw-gso-wire-packets",
                   "tx-hw-gso-wire-bytes", "tx-hw-drop-ratelimits", "tx-stop",
                   "tx-wake"],
}
# filters a dump request takes (attribute id, value packing)
NETDEV_FILTERS = {"dev-get": None, "page-pool-get": None, "napi-get": 1, "queue-get": 2,
                  "qstats-get": 1}
QUEUE_TYPES = ["rx", "tx"]
# enum netdev_xdp_act, bit by bit
XDP_ACTS = ["basic", "redirect", "ndo-xmit", "xsk-zerocopy", "hw-offload",
            "rx-sg", "ndo-xmit-sg"]
QSTATS_SCOPE_QUEUE = 1


def nla(typ, payload):
    ln = 4 + len(payload)
    return struct.pack("HH", ln, typ) + payload + b"\0" * ((4 - ln % 4) % 4)


def nla_parse(buf, off=0, end=None):
    """{type: payload} of the attributes in buf[off:end] (nested flag cleared)."""
    end = len(buf) if end is None else end
    out = {}
    while off + 4 <= end:
        ln, typ = struct.unpack_from("HH", buf, off)
        if ln < 4:
            break
        out[typ & ~NLA_F_NESTED] = buf[off + 4:off + ln]
        off += (ln + 3) & ~3
    return out


def nla_uint(p):
    return {1: lambda: p[0], 2: lambda: struct.unpack("H", p)[0],
            4: lambda: struct.unpack("I", p)[0],
            8: lambda: struct.unpack("Q", p)[0]}[len(p)]()


class Genl:
    def __init__(self):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
        self.s.bind((0, 0))
        self.seq = 0

    def request(self, family, cmd, attrs=b"", dump=False):
        """Replies' genl payloads (after the 4-byte genl header)."""
        self.seq += 1
        flags = NLM_F_REQUEST | (NLM_F_DUMP if dump else NLM_F_ACK)
        body = struct.pack("BBxx", cmd, 1) + attrs
        self.s.send(struct.pack("IHHII", 16 + len(body), family, flags,
                                self.seq, 0) + body)
        replies = []
        while True:
            buf = self.s.recv(1 << 20)
            off = 0
            while off + 16 <= len(buf):
                ln, typ, _, seq, _ = struct.unpack_from("IHHII", buf, off)
                if ln < 16:
                    return replies
                if typ == NLMSG_DONE:
                    return replies
                if typ == NLMSG_ERROR:
                    err = struct.unpack_from("i", buf, off + 16)[0]
                    if err:
                        raise OSError(-err, os.strerror(-err))
                    return replies
                replies.append(buf[off + 20:off + ln])
                off += (ln + 3) & ~3

    def family(self, name):
        """(family id, set of operation ids), or None when absent."""
        try:
            r = self.request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                             nla(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))
        except OSError:
            return None
        a = nla_parse(r[0])
        ops = set()
        for op in nla_parse(a.get(CTRL_ATTR_OPS, b"")).values():
            oid = nla_parse(op).get(CTRL_ATTR_OP_ID)
            if oid is not None:
                ops.add(nla_uint(oid))
        return nla_uint(a[CTRL_ATTR_FAMILY_ID]), ops


def netdev_decode(op, payload):
    names = NETDEV_ATTRS[op]
    obj = {}
    for typ, p in nla_parse(payload).items():
        name = names[typ - 1] if 0 < typ <= len(names) else None
        if name is None or name == "dmabuf":
            continue
        v = nla_uint(p) if len(p) in (1, 2, 4, 8) else p.hex()
        if name in ("type", "queue-type"):
            v = QUEUE_TYPES[v] if v < len(QUEUE_TYPES) else v
        if name == "xdp-features":
            v = [n for i, n in enumerate(XDP_ACTS) if v >> i & 1]
        obj[name] = v
    return obj


def netdev_main(argv):
    ap = argparse.ArgumentParser(prog="ena_nl.py netdev")
    ap.add_argument("op", choices=["ops"] + sorted(NETDEV_ATTRS))
    ap.add_argument("--ifindex", type=int)
    ap.add_argument("--scope", choices=["queue"])
    a = ap.parse_args(argv)
    g = Genl()
    fam = g.family("netdev")
    if fam is None:
        print("# ena_nl: no netdev generic netlink family", file=sys.stderr)
        sys.exit(2)
    fid, ops = fam
    if a.op == "ops":
        print(json.dumps(sorted(n for n, i in NETDEV_CMDS.items() if i in ops)))
        return
    if NETDEV_CMDS[a.op] not in ops:
        print(f"# ena_nl: the kernel's netdev family has no {a.op}", file=sys.stderr)
        sys.exit(2)
    attrs = b""
    if a.ifindex is not None and NETDEV_FILTERS[a.op]:
        attrs += nla(NETDEV_FILTERS[a.op], struct.pack("I", a.ifindex))
    if a.scope == "queue":
        attrs += nla(4, struct.pack("I", QSTATS_SCOPE_QUEUE))
    try:
        replies = g.request(fid, NETDEV_CMDS[a.op], attrs, dump=True)
    except OSError as e:
        print(f"# ena_nl: {a.op}: {e}", file=sys.stderr)
        sys.exit(1)
    objs = [netdev_decode(a.op, r) for r in replies]
    if a.ifindex is not None:
        objs = [o for o in objs if o.get("ifindex") == a.ifindex]
    print(json.dumps(objs, sort_keys=True))


def main():
    if sys.argv[1:2] == ["netdev"]:
        netdev_main(sys.argv[2:])
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--up", action="store_true")
    ap.add_argument("--flap", action="store_true")
    ap.add_argument("--oper", action="store_true")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd

    nl = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    nl.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    nl.bind((0, RTMGRP_LINK))
    nl.settimeout(0.05)
    before = set(os.listdir("/sys/class/net"))
    ifaces = {}
    t0 = time.monotonic()
    c0 = time.process_time()
    proc = subprocess.Popen(cmd)
    cmd_us = cmd_rc = None
    deadline = t0 + a.timeout
    while time.monotonic() < deadline:
        if cmd_rc is None and proc.poll() is not None:
            cmd_rc, cmd_us = proc.returncode, now_us(t0)
        try:
            buf = nl.recv(1 << 16)
        except socket.timeout:
            buf = b""
        for idx, name, flags, oper in parse(buf):
            if not name or name in before:
                continue
            st = ifaces.get(name)
            if st is None:
                if driver_of(name) != "ena":
                    continue
                st = ifaces[name] = {"newlink_us": now_us(t0)}
                if a.up:
                    set_up(name, True)
                    st["up_sent_us"] = now_us(t0)
                    if a.flap:
                        set_up(name, False)
                        set_up(name, True)
            if flags & IFF_UP and "up_us" not in st:
                st["up_us"] = now_us(t0)
            if flags & IFF_LOWER_UP and "carrier_us" not in st:
                st["carrier_us"] = now_us(t0)
            if oper == IF_OPER_UP and "oper_us" not in st:
                st["oper_us"] = now_us(t0)
        key = "oper_us" if a.oper or a.check else "carrier_us"
        done = sum(1 for s in ifaces.values() if "carrier_us" in s and key in s)
        if cmd_rc is not None and done >= a.count:
            break
    if cmd_rc is None:
        try:
            cmd_rc = proc.wait(timeout=max(0.1, deadline - time.monotonic() + 5))
        except subprocess.TimeoutExpired:
            cmd_rc = "timeout"
        cmd_us = now_us(t0)
    cpu_us = int((time.process_time() - c0) * 1e6)
    order = sorted(ifaces, key=lambda n: sysfs(n, "address"))
    print(json.dumps({"cmd_us": cmd_us, "cmd_rc": cmd_rc, "ifaces": ifaces,
                      "order": order, "t0_mono_us": int(t0 * 1e6),
                      "cpu_us": cpu_us}, sort_keys=True))
    if a.check:
        why = check(ifaces, a.count, cmd_rc)
        if why:
            print(f"# ena_nl: {why}", file=sys.stderr)
            sys.exit(1)


if __name__ == "__main__":
    main()
