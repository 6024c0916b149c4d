#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What the driver tells the core through the standard interfaces, read back
# over the `netdev` generic netlink family (ena_nl.py netdev, no ynl needed):
# every open queue names its NAPI and each NAPI the IRQ /proc/interrupts
# shows as <ifname>-Tx-Rx-<n>, also after ethtool -L; per-queue statistics
# (qstats-get) sum to the rtnl interface counters, also with history in
# queues closed by -L (the base stats); page-pool-get lists one pool per
# open queue, bound to that queue's NAPI, also after ethtool -G.
# A kernel without the family or an operation (6.1) skips; so does a driver
# without the feature (the stock driver), with the reason.
. "$(dirname "$0")/ena_lib.sh"
NL="$(dirname "$0")/ena_nl.py"

cleanup() {
	pair_teardown
	ena_unload 2>/dev/null
}
trap cleanup EXIT

NCASES=13
ktap_header $NCASES
d0=$(dmesg_lines)
ktap_diag "driver: $ENA_DRIVER, kernel $(uname -r)"
ktap_check "load $ENA_DRIVER driver" ena_load
ktap_check "both devices bound" ena_wait_ifaces 2
pair_setup || ktap_diag "pair setup failed"
ktap_check "carrier up on both" eval 'wait_carrier "$A" && wait_carrier "$B" 15 ena-peer'

# skip_rest REASON: every case left is skipped for REASON
skip_rest() {
	while [ "$KTAP_N" -lt $((NCASES - 1)) ]; do ktap_skip "netdev netlink case $((KTAP_N + 1))" "$1"; done
	ktap_check "no kernel warnings" dmesg_clean "$d0"
	ktap_finish
}
if ! ops=$("$NL" netdev ops 2>/dev/null); then
	skip_rest "kernel $(uname -r) has no netdev generic netlink family"
fi
ktap_diag "netdev family operations: $ops"
has_op() { [[ $ops == *\"$1\"* ]]; }
IFX=$(cat "/sys/class/net/$A/ifindex")
max=$(ethtool -l "$A" | awk '/^Pre-set/{p=1} p && /^Combined/{print $2; exit}')
ktap_diag "$A: ifindex $IFX, max combined channels $max"

# nlpy CODE ARGS...: python on the JSON outputs, exit status = verdict
nlpy() { python3 -S -c "import json, sys; $1" "${@:2}"; }

# --- queues, NAPIs and their interrupts -------------------------------------

# queue_napi_check N: each of queues 0..N-1 (rx and tx) has a NAPI id, rx
# and tx of a pair share it, pairs differ, no further queues are listed
queue_napi_check() {
	local q
	q=$("$NL" netdev queue-get --ifindex "$IFX") || return 1
	echo "queue-get: $q"
	nlpy '
qs, n = json.loads(sys.argv[1]), int(sys.argv[2])
ids = {(q["type"], q["id"]): q.get("napi-id") for q in qs}
want = {(t, i) for t in ("rx", "tx") for i in range(n)}
if set(ids) != want:
    sys.exit(f"queues listed {sorted(ids)}, expected {sorted(want)}")
miss = sorted(k for k, v in ids.items() if not v)
if miss:
    sys.exit(f"queues without a NAPI id: {miss}")
for i in range(n):
    r, t = ids["rx", i], ids["tx", i]
    if r != t:
        sys.exit(f"pair {i}: rx NAPI {r} != tx NAPI {t}")
if len({ids["rx", i] for i in range(n)}) != n:
    sys.exit("two queue pairs share a NAPI")
' "$q" "$1"
}

# napi_irq_check N: the NAPI of each pair n reports an IRQ, and that IRQ
# is <ifname>-Tx-Rx-<n> in /proc/interrupts; no other NAPI of the device
napi_irq_check() {
	local q n
	q=$("$NL" netdev queue-get --ifindex "$IFX") || return 1
	n=$("$NL" netdev napi-get --ifindex "$IFX") || return 1
	echo "napi-get: $n"
	nlpy '
qs, napis, cnt, ifname = json.loads(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
irqname = {}
for line in open("/proc/interrupts"):
    f = line.split()
    if f and f[0].rstrip(":").isdigit():
        irqname[int(f[0].rstrip(":"))] = f[-1]
by_id = {n["id"]: n for n in napis}
pair = {q["id"]: q.get("napi-id") for q in qs if q["type"] == "rx"}
bad = []
for i in range(cnt):
    nid = pair.get(i)
    n = by_id.get(nid)
    irq = n.get("irq") if n else None
    want = f"{ifname}-Tx-Rx-{i}"
    if n is None:
        bad.append(f"pair {i}: NAPI {nid} not in napi-get")
    elif irq is None:
        bad.append(f"pair {i}: NAPI {nid} reports no IRQ")
    elif irqname.get(irq) != want:
        bad.append(f"pair {i}: IRQ {irq} is {irqname.get(irq)!r} in /proc/interrupts, not {want}")
    else:
        print(f"pair {i}: NAPI {nid}, IRQ {irq} {want}")
if len(napis) != cnt:
    bad.append(f"{len(napis)} NAPIs listed for {cnt} open queue pairs")
if bad:
    sys.exit("; ".join(bad))
' "$q" "$n" "$1" "$A"
}

have_queue_napi=0
if ! has_op queue-get; then
	ktap_skip "every open queue reports its NAPI id" "kernel has no queue-get"
elif "$NL" netdev queue-get --ifindex "$IFX" | grep -q napi-id; then
	have_queue_napi=1
	ktap_check "every open queue reports its NAPI id" queue_napi_check "$max"
elif is_ours; then
	ktap_check "every open queue reports its NAPI id" queue_napi_check "$max"
else
	ktap_skip "every open queue reports its NAPI id" "stock driver links no queue to a NAPI (no netif_queue_set_napi)"
fi

have_napi_irq=0
if ! has_op napi-get; then
	ktap_skip "each NAPI reports the IRQ named <ifname>-Tx-Rx-<n>" "kernel has no napi-get"
elif [ $have_queue_napi = 0 ] && ! is_ours; then
	ktap_skip "each NAPI reports the IRQ named <ifname>-Tx-Rx-<n>" "no queue-to-NAPI links to follow"
elif "$NL" netdev napi-get --ifindex "$IFX" | grep -q '"irq"' || is_ours; then
	have_napi_irq=1
	ktap_check "each NAPI reports the IRQ named <ifname>-Tx-Rx-<n>" napi_irq_check "$max"
else
	ktap_skip "each NAPI reports the IRQ named <ifname>-Tx-Rx-<n>" "stock driver sets no NAPI IRQ (no netif_napi_set_irq)"
fi

# links follow ethtool -L: queues start and stop lazily, per pair
channels_follow() {
	ethtool -L "$A" combined 1 || return 1
	queue_napi_check 1 && { [ $have_napi_irq = 0 ] || napi_irq_check 1; } || return 1
	ethtool -L "$A" combined "$max" || return 1
	queue_napi_check "$max" && { [ $have_napi_irq = 0 ] || napi_irq_check "$max"; } &&
		ping_ok
}
if [ $have_queue_napi = 1 ] || { is_ours && has_op queue-get; }; then
	ktap_check "queue/NAPI/IRQ links follow ethtool -L 1 and back to $max" channels_follow
else
	ktap_skip "queue/NAPI/IRQ links follow ethtool -L 1 and back to $max" "no queue-to-NAPI links (see above)"
fi

# --- per-queue statistics ------------------------------------------------------

# some traffic on several queues: pings both ways, then UDP datagrams to
# 16 ports (16 flows spread over the TX queues; bash's /dev/udp, no
# process per flow); the peer's port-unreachable replies come back too
traffic() {
	local p i
	ping -q -c 20 -i 0.05 -W 2 10.77.0.2 >/dev/null || return 1
	ip netns exec ena-peer ping -q -c 20 -i 0.05 -W 2 10.77.0.1 >/dev/null || return 1
	for ((p = 5101; p <= 5116; p++)); do
		for ((i = 0; i < 8; i++)); do echo "ena $p $i" > /dev/udp/10.77.0.2/$p; done
	done
	ping_ok
}

# qstats_sum_check: the rtnl counters (sysfs) against qstats: per-queue sum
# plus the base (the device scope, which the core builds from both); read
# until two qstats reads bracket an unchanged rtnl read (stray IPv6 packets)
qstats_sum_check() {
	local i dev qs rx tx dev2
	for ((i = 0; i < 10; i++)); do
		dev=$("$NL" netdev qstats-get --ifindex "$IFX") || return 1
		qs=$("$NL" netdev qstats-get --ifindex "$IFX" --scope queue) || return 1
		rx=$(cat "/sys/class/net/$A/statistics/rx_packets")
		tx=$(cat "/sys/class/net/$A/statistics/tx_packets")
		dev2=$("$NL" netdev qstats-get --ifindex "$IFX") || return 1
		[ "$dev" = "$dev2" ] && break
		sleep 0.2
	done
	echo "device: $dev"
	echo "queues: $qs"
	nlpy '
dev, qs, rx, tx, closed = json.loads(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
d = dev[0] if dev else {}
qrx = sum(q.get("rx-packets", 0) for q in qs if q["queue-type"] == "rx")
qtx = sum(q.get("tx-packets", 0) for q in qs if q["queue-type"] == "tx")
busy = sum(1 for q in qs if q.get("rx-packets", 0) or q.get("tx-packets", 0))
drx, dtx = d.get("rx-packets"), d.get("tx-packets")
print(f"rtnl rx {rx} tx {tx}; device scope rx {drx} tx {dtx}; "
      f"queue sum rx {qrx} tx {qtx} over {len(qs)} queues ({busy} with packets)")
if drx != rx or dtx != tx:
    sys.exit("device-scope qstats differ from the rtnl counters")
if closed:
    if qrx >= rx and qtx >= tx:
        sys.exit("closed queues had traffic, but no packets are in the base stats")
elif qrx != rx or qtx != tx:
    sys.exit("per-queue sums differ from the rtnl counters")
if not rx or not tx:
    sys.exit("no traffic counted")
' "$dev" "$qs" "$rx" "$tx" "${1:-0}"
}

# csum_check: per queue, RX csum-unnecessary + csum-bad + csum-none equal
# the packets (ICMP has no checksum the device checks: csum-none > 0), and
# the UDP datagrams sent count in TX needs-csum when the device computes
# their checksum (tx-checksumming on)
csum_check() {
	local qs txcsum
	qs=$("$NL" netdev qstats-get --ifindex "$IFX" --scope queue) || return 1
	txcsum=$(ethtool -k "$A" | awk '$1 == "tx-checksumming:" {print $2}')
	nlpy '
qs, txcsum = json.loads(sys.argv[1]), sys.argv[2] == "on"
bad = []
for q in qs:
    if q["queue-type"] != "rx":
        continue
    n = sum(q.get(k, 0) for k in ("rx-csum-unnecessary", "rx-csum-bad", "rx-csum-none"))
    if n != q.get("rx-packets", 0):
        bad.append("rx queue %s: csum verdicts %d != packets %d" % (q.get("queue-id"), n, q.get("rx-packets", 0)))
none = sum(q.get("rx-csum-none", 0) for q in qs)
need = sum(q.get("tx-needs-csum", 0) for q in qs)
print(f"rx-csum-none {none}, tx-needs-csum {need} (tx-checksumming {sys.argv[2]})")
if bad:
    sys.exit("; ".join(bad))
if not none:
    sys.exit("ICMP received, but rx-csum-none is 0")
if txcsum and not need:
    sys.exit("UDP sent with tx-checksumming on, but tx-needs-csum is 0")
' "$qs" "$txcsum"
}

if ! has_op qstats-get; then
	ktap_skip "traffic on several queues" "kernel has no qstats-get"
	ktap_skip "qstats checksum counters: csum-none, needs-csum" "kernel has no qstats-get"
	ktap_skip "per-queue qstats sum to the rtnl counters" "kernel has no qstats-get"
	ktap_skip "after ethtool -L 1: base + queue qstats equal the rtnl counters" "kernel has no qstats-get"
else
	ktap_check "traffic on several queues" traffic
	if "$NL" netdev qstats-get --ifindex "$IFX" 2>&1 | grep -q packets || is_ours; then
		ktap_check "per-queue qstats sum to the rtnl counters" qstats_sum_check 0
		ktap_check "qstats checksum counters: csum-none, needs-csum" csum_check
		closed_check() { ethtool -L "$A" combined 1 && ping_ok && qstats_sum_check 1; }
		ktap_check "after ethtool -L 1: base + queue qstats equal the rtnl counters" closed_check
		ethtool -L "$A" combined "$max"
	else
		ktap_skip "per-queue qstats sum to the rtnl counters" "stock driver has no netdev_stat_ops"
		ktap_skip "qstats checksum counters: csum-none, needs-csum" "stock driver has no netdev_stat_ops"
		ktap_skip "after ethtool -L 1: base + queue qstats equal the rtnl counters" "stock driver has no netdev_stat_ops"
	fi
fi

# --- page pools ----------------------------------------------------------------

# pool_check: one pool per open queue bound to the interface, each naming
# the NAPI of one of its queues
pool_check() {
	local p q
	p=$("$NL" netdev page-pool-get) || return 1
	q=$("$NL" netdev queue-get --ifindex "$IFX") || return 1
	echo "page pools of ifindex $IFX: $(nlpy 'print([p for p in json.loads(sys.argv[1]) if p.get("ifindex") == int(sys.argv[2])])' "$p" "$IFX")"
	nlpy '
pools, qs, ifx, n = json.loads(sys.argv[1]), json.loads(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
mine = [p for p in pools if p.get("ifindex") == ifx and "detach-time" not in p]
napis = {q.get("napi-id") for q in qs if q["type"] == "rx"}
if len(mine) != n:
    sys.exit(f"{len(mine)} live pools bound to ifindex {ifx}, expected {n}")
have = sorted(p.get("napi-id", 0) for p in mine)
if have != sorted(napis):
    sys.exit(f"pool NAPI ids {have} != queue NAPI ids {sorted(napis)}")
' "$p" "$q" "$IFX" "$max"
}
pool_after_g() {
	ethtool -G "$A" rx 512 tx 512 && ping_ok && pool_check
}
if ! has_op page-pool-get; then
	ktap_skip "page-pool-get: one pool per open queue, on its NAPI" "kernel has no page-pool-get"
	ktap_skip "page-pool-get after ethtool -G: same" "kernel has no page-pool-get"
elif "$NL" netdev page-pool-get | grep -q "\"ifindex\": $IFX\b" || is_ours; then
	ktap_check "page-pool-get: one pool per open queue, on its NAPI" pool_check
	ktap_check "page-pool-get after ethtool -G: same" pool_after_g
else
	ktap_skip "page-pool-get: one pool per open queue, on its NAPI" "stock driver has no page_pool"
	ktap_skip "page-pool-get after ethtool -G: same" "stock driver has no page_pool"
fi

ktap_check "no kernel warnings" dmesg_clean "$d0"
ktap_finish
