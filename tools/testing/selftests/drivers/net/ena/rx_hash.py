#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check the RX hash the driver hands to the stack.

  rx_hash.py NETNS IFACE FLOWS on|off

Sends FLOWS UDP flows (10.77.0.1:<port> -> 10.77.0.2:9000, one datagram
each, 333 bytes of payload) to IFACE in NETNS and reads the kernel's
net:napi_gro_receive_entry trace event for each datagram IFACE received
(its hash and l4_hash fields: what the driver set with skb_set_hash()).

"on": every datagram carries the Toeplitz hash of its IPv4 4-tuple under
the key `ethtool -x` reports for IFACE, marked as an L4 hash.
"off" (rx-hashing off): no datagram carries a hash.

Exit status 0 when every datagram was seen and matched.
"""
import re
import socket
import sys
import time

from rss_flows import toeplitz, rss_config

SADDR, DADDR, DPORT, SPORT0, PAYLOAD = "10.77.0.1", "10.77.0.2", 9000, 21000, 333
TRACE = "/sys/kernel/tracing"
EVENT = TRACE + "/events/net/napi_gro_receive_entry"


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def main():
    ns, iface, flows, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    _, key, func = rss_config(ns, iface)
    if func != ["toeplitz"]:
        print(f"hash function {','.join(func)}, not Toeplitz: no prediction")
        return 1
    write(TRACE + "/trace", "")
    write(EVENT + "/filter", f'name == "{iface}"')
    write(EVENT + "/enable", "1")
    try:
        for i in range(flows):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.bind((SADDR, SPORT0 + i))
            s.sendto(b"h" * PAYLOAD, (DADDR, DPORT))
            s.close()
            time.sleep(0.05)
        time.sleep(0.5)
    finally:
        write(EVENT + "/enable", "0")
        write(EVENT + "/filter", "0")
    with open(TRACE + "/trace") as f:
        trace = f.read()
    seen = []
    for line in trace.splitlines():
        m = re.search(r"hash=0x([0-9a-f]+) l4_hash=(\d) len=(\d+)", line)
        if m and int(m.group(3)) == 20 + 8 + PAYLOAD:
            seen.append((int(m.group(1), 16), int(m.group(2))))
    bad = 0
    if len(seen) != flows:
        print(f"saw {len(seen)} datagrams of {flows}")
        bad += 1
    want = []
    for i in range(flows):
        t = (socket.inet_aton(SADDR) + socket.inet_aton(DADDR) +
             (SPORT0 + i).to_bytes(2, "big") + DPORT.to_bytes(2, "big"))
        want.append((toeplitz(key, t), 1) if mode == "on" else (0, 0))
    for i, (got, exp) in enumerate(zip(seen, want)):
        ok = got == exp
        bad += not ok
        if not ok or i < 3:
            print(f"flow {i}: hash {got[0]:#010x} l4 {got[1]}, "
                  f"expected {exp[0]:#010x} l4 {exp[1]}{'' if ok else '  MISMATCH'}")
    print(f"{len(seen)} datagrams, {bad} wrong (rx-hashing {mode})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
