#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Check that UDP flows land on the RX queue the receiver's RSS says.

  rss_flows.py NETNS IFACE FLOWS [FIELDS]

The receiver IFACE (in NETNS) reports its Toeplitz key and indirection
table with ethtool -x. For FLOWS flows (10.77.0.1:<port> -> 10.77.0.2:9000,
ports chosen so that the predicted queues take turns over the queues) this
computes the Toeplitz hash of the IPv4 4-tuple with that key, picks the
table entry hash % table size, sends datagrams one
flow at a time and checks that this queue's queue_<n>_rx_cnt grew by at
least the datagrams sent and no other queue's did. Exit status 0 when every
flow landed where predicted.

FIELDS is what the receiver hashes for UDP over IPv4 (ethtool -N
rx-flow-hash udp4): "sdfn" (the default: addresses and ports) or "sd" (the
addresses only: every flow of the run then has one hash and one queue).
"""
import re
import socket
import subprocess
import sys
import time

SADDR, DADDR, DPORT, SPORT0, DGRAMS = "10.77.0.1", "10.77.0.2", 9000, 20000, 20


def toeplitz(key, data):
    """The Toeplitz hash of data under key (Microsoft RSS definition)."""
    k, kbits, h = int.from_bytes(key, "big"), len(key) * 8, 0
    for i, byte in enumerate(data):
        for b in range(8):
            if byte & (0x80 >> b):
                h ^= (k >> (kbits - 32 - i * 8 - b)) & 0xFFFFFFFF
    return h


def peer(ns, *cmd):
    return subprocess.run(["ip", "netns", "exec", ns, *cmd], check=True,
                          capture_output=True, text=True).stdout


def rss_config(ns, iface):
    out = peer(ns, "ethtool", "-x", iface)
    table = []
    for m in re.finditer(r"^\s*\d+:((?:\s+\d+)+)\s*$", out, re.M):
        table += [int(v) for v in m.group(1).split()]
    m = re.search(r"RSS hash key:\s*\n\s*([0-9a-f:]+)", out)
    func = re.findall(r"^\s*(\w+):\s+on\s*$", out, re.M)
    if not table or not m:
        sys.exit("cannot read table and key from ethtool -x:\n" + out)
    return table, bytes.fromhex(m.group(1).replace(":", "")), func


def rx_counts(ns, iface):
    out = peer(ns, "ethtool", "-S", iface)
    return {int(q): int(v) for q, v in re.findall(r"queue_(\d+)_rx_cnt:\s+(\d+)", out)}


def main(ns, iface, flows, fields="sdfn"):
    table, key, func = rss_config(ns, iface)
    print("hash function %s, key %s, table of %d" % (",".join(func), key.hex(), len(table)))
    if func != ["toeplitz"]:
        print("the receiver does not use Toeplitz: no prediction")
        return 1
    # source ports whose predicted queues take turns over every queue of
    # the table, so that a wrong key or function cannot pass by luck
    by_queue = {}
    for j in range(400):
        sport = SPORT0 + 97 * j
        tup = socket.inet_aton(SADDR) + socket.inet_aton(DADDR)
        if fields == "sdfn":
            tup += sport.to_bytes(2, "big") + DPORT.to_bytes(2, "big")
        h = toeplitz(key, tup)
        by_queue.setdefault(table[h % len(table)], []).append((sport, h))
    if fields == "sd":
        # one queue for all: take the flows as they come
        picks = next(iter(by_queue.values()))[:flows]
        print("addresses only: every flow hashes to 0x%08x" % picks[0][1])
    else:
        picks = [f for batch in zip(*by_queue.values()) for f in batch][:flows]
    if (fields != "sd" and len(by_queue) < 2) or len(picks) < flows:
        print("no %d flows over more than one queue: %s" % (flows, sorted(by_queue)))
        return 1
    ok = True
    for sport, h in picks:
        want = table[h % len(table)]
        before = rx_counts(ns, iface)
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((SADDR, sport))
        for _ in range(DGRAMS):
            s.sendto(b"x" * 64, (DADDR, DPORT))
            time.sleep(0.002)
        s.close()
        time.sleep(0.3)
        after = rx_counts(ns, iface)
        delta = {q: after[q] - before.get(q, 0) for q in after}
        got = max(delta, key=delta.get)
        good = got == want and delta[want] >= DGRAMS
        ok &= good
        print("flow %d: hash 0x%08x -> entry %d -> queue %d; per-queue packets %s%s" %
              (sport, h, h % len(table), want, [delta[q] for q in sorted(delta)],
               "" if good else "  <- not where predicted"))
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5) or (len(sys.argv) == 5 and sys.argv[4] not in ("sd", "sdfn")):
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2], int(sys.argv[3]), *sys.argv[4:]))
