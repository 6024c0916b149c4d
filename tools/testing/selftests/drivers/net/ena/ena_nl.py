#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
# (-S: only the standard library is used, and under TCG the host's site .pth
# hooks cost about half a second per start)
"""Watch rtnetlink while a command loads or binds a driver.

  ena_nl.py [--up] [--flap] [--oper] [--check] [--count N] [--timeout S] -- CMD...

Subscribes to RTNLGRP_LINK, runs CMD, and for every new interface bound to
the ena driver records (microseconds after CMD started): when RTM_NEWLINK
announced it, when it was UP, when it had carrier, when its operstate was
"up" (what `ip link` prints as "state UP"). With --up it brings each new
interface up the instant RTM_NEWLINK announces it, as udev or
NetworkManager would; with --flap it then sets it down and up again at once.
Waits until N interfaces have carrier (with --oper: operstate up too) or
the timeout, and prints one JSON object: {"cmd_us": ..., "cmd_rc": ...,
"ifaces": {name: {...}}, "order": [names by MAC address]}.

--check: exit 1 (reason on stderr) unless CMD succeeded and N interfaces
are, when it returns, administratively up with carrier and operstate "up"
as sysfs reports them; a test needs no process of its own for that.
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
    """Yield (ifindex, name, flags, operstate) for each RTM_NEWLINK in buf."""
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


def main():
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
    order = sorted(ifaces, key=lambda n: sysfs(n, "address"))
    print(json.dumps({"cmd_us": cmd_us, "cmd_rc": cmd_rc, "ifaces": ifaces,
                      "order": order}, sort_keys=True))
    if a.check:
        why = check(ifaces, a.count, cmd_rc)
        if why:
            print(f"# ena_nl: {why}", file=sys.stderr)
            sys.exit(1)


if __name__ == "__main__":
    main()
