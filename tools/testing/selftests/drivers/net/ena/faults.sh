#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fault injection through the model's knobs, each fault on a freshly loaded
# driver. For each fault the driver must either recover (a device reset the
# model counts, then a ping within ENA_RECOVER_S seconds) or fail the one
# request cleanly and keep working; the module must then unload, and the
# kernel log must hold no oops, WARN or leak report.
# ENA_FAULTS selects a subset (names below); default: all.
. "$(dirname "$0")/ena_lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
recover_s=${ENA_RECOVER_S:-15}
detect_s=${ENA_DETECT_S:-30}
all="keepalive drop delay status malformed-id stale-phase fatal rx-reqid rx-len tx-reqid destroy-fail rx-starve rx-runt bad-db bad-db-async rings-rollback missed-tx missed-irq channels-rollback link-config cq-depth no-unmask llq-tiny rx-sgl xdp-missed-tx fewer-queues destroy-late destroy-reset-fail shrink-destroy-fail up-fail mtu-shrink never-ready aenq-hints aenq-hints-wd aenq-request-reset reason-no-ext aenq-refresh-caps aenq-disabled admin-irq-lost"
faults=${ENA_FAULTS:-$all}
faults=${faults//,/ }
QMAX0=$(model_get ena0 max-queues)   # fewer-queues changes it
# Faults the stock driver is known not to act on: it never polls DEV_STS, so
# a fatal status alone goes unnoticed (the model stops its IO with it, as a
# device in a fatal state does: when a TX queue the device no longer serves
# fills, the stack's TX watchdog resets the device, reason 10, which may or
# may not come within the case's wait); when DESTROY_SQ fails on close it
# frees the rings of a queue the device still runs (destroy-fail,
# shrink-destroy-fail). It looks for a lost interrupt only before a queue's
# first one (later, only its TX watchdog may catch one, if that queue's
# traffic stalls). When -L's new queue cannot be created (CREATE_CQ fails),
# it reports the new count and the interface passes no traffic (seen on
# 6.12). It does not compare the depth a CREATE_CQ answer reports with the
# depth it asked for (read from its source). When the reset after a failed
# DESTROY fails too, it frees the rings with bus mastering on (DMAR faults,
# seen on 6.12). It has no handler for a FATAL_ERROR event, so up-fail,
# mtu-shrink and never-ready do not reset it (seen on 6.12); after a reset
# it would refuse a device whose largest MTU is below the interface's and
# not retry a failed bring-up (read from its source). Its result there is
# reported as xfail. It does not enable the DEVICE_REQUEST_RESET and
# REFRESH_CAPABILITIES groups, so the model does not post those events and
# nothing resets (aenq-request-reset, aenq-refresh-caps; seen on 6.12). An
# admin command whose completion interrupt is lost waits for the next
# management interrupt (a keep-alive event: SET MTU took 2.9 s with
# keep-alives every 3 s, and succeeded), or fails at its 3 s admin timeout;
# lost interrupts in a row never reset the device (admin-irq-lost, seen on
# 6.12). It does apply UPDATE_HINTS (aenq-hints and aenq-hints-wd pass).
stock_gaps="fatal destroy-fail shrink-destroy-fail rings-rollback missed-irq channels-rollback cq-depth destroy-reset-fail up-fail mtu-shrink never-ready aenq-request-reset reason-no-ext aenq-refresh-caps admin-irq-lost"
# Faults not run for the stock driver, because they crash the guest. It
# writes to the doorbell offset a CREATE_SQ completion gives, with no bound
# check (read from its source), and that write would oops the guest. It
# trusts the RX completion length: skb_put() past the buffer, "kernel BUG
# at net/core/skbuff.c:209" in its NAPI poll (seen on 6.12). A CREATE_CQ
# answer without an unmask register offset leaves its unmask pointer NULL,
# and it writes through it at the first unmask (read from its source). It
# refuses a device whose TX queue maximum (the LLQ depth with LLQ) is below
# 256 at probe, so llq-tiny has no baseline (read from its source), and it
# does not bound its MTU by the RX buffers a frame may fill (rx-sgl: not
# run, as its RX buffer size differs from ours and the case names ours).
# xdp-missed-tx needs an XDP program attached at the channel count the
# in-tree driver takes XDP with; xdp.sh covers its XDP (not run here).
# fewer-queues resets through a fatal DEV_STS, which the stock driver does
# not poll (see stock_gaps).
stock_skip="bad-db bad-db-async rx-len no-unmask llq-tiny rx-sgl xdp-missed-tx fewer-queues"
# The reason our driver gives (DEV_CTL bits 31:28, and bits 27:24 as bits 7:4
# of reasons above 15 on a device with extended reset reasons, as the in-tree
# names go) in the first device reset after each fault that leads to one; the
# model records the reason of every reset (reset-reasons). 0 normal (the
# device asked for its capabilities to be read again), 1 keep-alive timeout, 2
# admin timeout (a DESTROY completing after its timeout too), 3 missing TX
# completions, 4 invalid RX req_id, 5 invalid TX req_id, 6 too many RX
# descriptors (an impossible RX length), 8 driver invalid state (a malformed
# admin completion, a failed DESTROY), 13 generic (a fatal DEV_STS or
# FATAL_ERROR event, also when READY is late after it), 14 missing interrupt,
# 18 missing admin interrupt, 19 the device asked for a reset (13 on a device
# without extended reset reasons); 10 the stack's TX watchdog; 7 init error (a
# failed re-init after a doorbell error). "none": the fault is handled without
# a device reset. Other faults' resets, and every reset of the stock driver,
# are printed only.
declare -A want_reason=([keepalive]=1 [drop]=2 [malformed-id]=8 [fatal]=13
	[missed-tx]=3 [xdp-missed-tx]=3 [fewer-queues]=13 [shrink-destroy-fail]=8 [rx-reqid]=4 [tx-reqid]=5 [rx-len]=6 [missed-irq]=14
	[aenq-hints]=1 [aenq-hints-wd]=10 [aenq-request-reset]=19 [reason-no-ext]=13 [aenq-refresh-caps]=0 [admin-irq-lost]=18
	[stale-phase]=2 [bad-db-async]=7 [destroy-fail]=8 [destroy-reset-fail]=8
	[mtu-shrink]=13 [up-fail]=13 [destroy-late]=2 [never-ready]=13
	[delay]=none [status]=none [link-config]=none [rx-starve]=none [rx-sgl]=none
	[no-unmask]=none [bad-db]=none [channels-rollback]=none [cq-depth]=none
	[llq-tiny]=none [rings-rollback]=none [rx-runt]=none [aenq-disabled]=none)

# expect NAME CMD...: ktap_check, but an expected failure for a stock gap
expect() {
	local name=$1; shift
	if ! is_ours && [[ " $stock_gaps " == *" $f "* ]]; then
		if "$@" >/dev/null 2>&1; then ktap_pass "$name"
		else ktap_xfail "$name" "a known gap of the stock driver (see stock_gaps)"; fi
	else
		ktap_check "$name" "$@"
	fi
}

clear_faults() {
	# one qom-set of every knob: a process start costs about as much as
	# a monitor round trip under TCG, and this runs three times a fault
	local k args=(keepalive-ms 1000 fault-status-opcode -1 fault-status-feature -1 fault-fatal false
		fault-drop-next 0 fault-malformed 0 hint-missing-tx-ms 0 hint-missed-tx 0
		hint-keepalive-ms 0 hint-admin-ms 0 hint-mmio-read-ms 0 hint-netdev-wd-ms 0
		tx-hold false ext-reset-reasons true aenq-supported-groups 255
		llq-max-depth 0 max-rx-sgl 32 max-queues "$QMAX0"
		fault-reset-ignore false fault-never-ready false max-mtu 9216 expect-guest-errors "")
	for k in rx-bad-reqid rx-bad-len tx-bad-reqid status-after status-times rx-runt bad-db \
		tx-swallow io-irq-drop cq-depth cq-no-unmask admin-irq-lost; do
		args+=("fault-$k" 0)
	done
	model_set_many ena0 "${args[@]}"
} >/dev/null 2>&1
cleanup() { clear_faults; pair_teardown; ena_unload 2>/dev/null; }
trap cleanup EXIT

# recovered: a ping passes within the limit (the link may bounce first)
recovered() { ping_within "$recover_s"; }
# wait_reset N: the model sees more than N device resets within detect_s
wait_reset() { wait_model_reset "$1" "$detect_s"; }
# an admin command the driver sends while up: SET_FEATURE MTU
set_mtu() { ip link set "$A" mtu "$1"; }
fails_cleanly() { ! "$@"; }
# delay_served MS: an MTU change (to another MTU than the current one, so
# that the driver sends SET_FEATURE) is served although its completion
# comes MS ms late, and the model's one-shot delay did fire: the request
# took at least MS ms and fault-delay-next-ms is back at 0
delay_served() {
	local cur mtu t0 ms left
	cur=$(cat "/sys/class/net/$A/mtu"); mtu=$((cur == 1400 ? 1300 : 1400))
	t0=${EPOCHREALTIME/./}
	set_mtu "$mtu" || { echo "MTU $cur -> $mtu failed"; return 1; }
	ms=$(( (${EPOCHREALTIME/./} - t0) / 1000 ))
	left=$(model_get ena0 fault-delay-next-ms)
	echo "MTU $cur -> $mtu in $ms ms, fault-delay-next-ms now $left"
	[ "$left" = 0 ] || { echo "the delay did not fire: no admin command reached the device"; return 1; }
	[ "$ms" -ge "$1" ] || { echo "served in $ms ms, under the $1 ms delay"; return 1; }
}
# no_live_sq: the model runs no submission queue (none left to DMA)
no_live_sq() {
	local q end=$((SECONDS + detect_s))
	while [ $SECONDS -lt $end ]; do
		q=$(model_get ena0 queues | grep '^sq ') || return 0
		sleep 0.25
	done
	echo "queues the device still runs after close:"; echo "$q"
	return 1
}
# rx_posted: RX buffers each queue of $A has posted ("q:n ...")
rx_posted() {
	ethtool -S "$A" | awk '$1 ~ /^queue_[0-9]+_page_(allocs|frees):$/ {
		split($1, p, "_"); v[p[2]] += ($1 ~ /allocs/ ? $2 : -$2); if (p[2] + 1 > n) n = p[2] + 1 }
		END { for (q = 0; q < n; q++) printf "%d:%d ", q, v[q] }'
}
# refilled: within detect_s every queue has RX buffers posted again, with
# nothing sent from here (IPv6 off on $A): no TX completion interrupt can
# run NAPI, only the driver's own retry
refilled() {
	local end=$((SECONDS + detect_s)) p
	while [ $SECONDS -lt $end ]; do
		p=$(rx_posted)
		[[ " $p" == *":0 "* ]] || return 0
		sleep 0.5
	done
	echo "RX rings still empty (queue:posted) $p"
	return 1
}
rx_starve() {
	local dbg=/sys/kernel/debug/ena/$BDF/inject_rx_alloc_fail
	sysctl -qw "net.ipv6.conf.$A.disable_ipv6=1"
	echo 1000000 > "$dbg" || return 1
	ip link set "$A" down && ip link set "$A" up || return 1
	echo "with every allocation failing: $(rx_posted)"
	echo 0 > "$dbg"
	refilled
	local rc=$?
	sysctl -qw "net.ipv6.conf.$A.disable_ipv6=0"
	return $rc
}
# runt: frames whose first RX buffer holds 8 bytes (the Ethernet header
# split over buffers) are dropped and counted; nothing crashes
runt() {
	local d0 d1 left
	d0=$(cat "/sys/class/net/$A/statistics/rx_dropped")
	model_set ena0 fault-rx-runt 5
	io_both_ways
	left=$(model_get ena0 fault-rx-runt)
	d1=$(cat "/sys/class/net/$A/statistics/rx_dropped")
	echo "runt frames sent $((5 - left)), rx_dropped +$((d1 - d0))"
	[ "$left" -lt 5 ] || { echo "no frame reached the device"; return 1; }
	! is_ours || [ $((d1 - d0)) -ge $((5 - left)) ]
}
# bad_db: an out-of-BAR doorbell offset in a CREATE_SQ answer (once). By
# default the open fails cleanly and the next open works. With open_async=1
# the open returns before the queues start: their failed start must lead to
# a device reset, after which they start (the device answers properly
# again) and the carrier comes on, with no second open.
bad_db() {
	local async
	async=$(cat /sys/module/ena/parameters/open_async)
	ip link set "$A" down
	model_set ena0 fault-bad-db 1
	if [ "$async" = Y ]; then
		ip link set "$A" up || { echo "open failed"; return 1; }
		wait_reset "$r0" || { echo "no device reset after the failed queue start"; return 1; }
	else
		if ip link set "$A" up 2>&1; then echo "open with a bad doorbell offset succeeded"; return 1; fi
	fi
	[ "$(model_get ena0 fault-bad-db)" = 0 ] || { echo "the device was not asked"; return 1; }
	if [ "$async" != Y ]; then ip link set "$A" up || return 1; fi
	wait_carrier "$A"
}
# no_unmask: CREATE_CQ answers without an interrupt unmask register (a
# vector that would stay masked after its first interrupt: endless
# missed-interrupt resets) fail the open cleanly; the next open works
no_unmask() {
	ip link set "$A" down
	model_set ena0 fault-cq-no-unmask 64
	if ip link set "$A" up 2>&1; then echo "open without unmask registers succeeded"; return 1; fi
	model_set ena0 fault-cq-no-unmask 0
	ip link set "$A" up || return 1
	wait_carrier "$A"
}
# llq_tiny: an LLQ of 2 entries (read at probe) holds less than two of the
# largest packets (4 entries each with 128-byte entries): a TX ring that
# small stops for good. The driver keeps its TX descriptors in host memory
# instead, says so, and traffic passes (the baseline pinged already).
llq_tiny() {
	local q
	q=$("$QMP" qom-get ena0 queues | grep ' tx ')
	grep -q ' host' <<< "$q" && ! grep -q ' llq' <<< "$q" || { echo "TX queues: $q"; return 1; }
	dmesg | tail -n +"$d0" | grep -q "LLQ depth 2 is below two packets" || { echo "no log line"; return 1; }
	ping_ok 10
}
# rx_sgl: a device that fills at most 2 RX buffers with a frame (read at
# probe) drops a longer one: the MTU must stop where 2 of our 2 KiB
# buffers end (ip link refuses 9000), and frames of that MTU pass both ways
rx_sgl() {
	local max d0m rc=0
	max=$(ip -d link show "$A" | grep -o 'maxmtu [0-9]*' | cut -d' ' -f2)
	echo "max MTU $max with 2 RX buffers per frame"
	if ip link set "$A" mtu 9000 2>/dev/null; then echo "MTU 9000 accepted"; rc=1; fi
	[ -n "$max" ] && [ "$max" -lt 9000 ] && [ "$max" -ge 1500 ] || return 1
	d0m=$(model_get ena0 stat-rx-dropped)
	ip link set "$A" mtu "$max" && ip -n ena-peer link set "$B" mtu "$max" || return 1
	ping -q -c 3 -i 0.2 -W 2 -M do -s $((max - 28)) 10.77.0.2 >/dev/null || { echo "ping out failed"; rc=1; }
	ip netns exec ena-peer ping -q -c 3 -i 0.2 -W 2 -M do -s $((max - 28)) 10.77.0.1 >/dev/null ||
		{ echo "ping back failed"; rc=1; }
	[ "$(model_get ena0 stat-rx-dropped)" = "$d0m" ] || { echo "the device dropped frames"; rc=1; }
	ip link set "$A" mtu 1500; ip -n ena-peer link set "$B" mtu 1500
	return $rc
}
# ring_sizes: "-g current rx/tx" plus, for ours, every queue's depths
ring_sizes() {
	echo -n "RX:$(ring Current RX) TX:$(ring Current TX) "
	is_ours && awk '/^q[0-9]/{split($6, t, "/"); split($8, r, "/"); printf "%s:%s:%s:%s ", $1, $2, t[1], r[1]}' \
		"/sys/kernel/debug/ena/$(ena_bdf "$A")/queues"
}
# rings_rollback: -G where the second queue's new TX SQ cannot be created
# must fail and leave every queue at the old size, and work when retried
rings_rollback() {
	local before after
	before=$(ring_sizes)
	model_set ena0 fault-status-after 2     # queue 0: TX and RX SQ pass
	model_set ena0 fault-status-times 1     # queue 1: its TX SQ fails once
	model_set ena0 fault-status-opcode 1    # CREATE_SQ
	if ethtool -G "$A" rx 512 tx 512 2>&1; then echo "-G succeeded although CREATE_SQ failed"; return 1; fi
	clear_faults
	after=$(ring_sizes)
	echo "before: $before"; echo "after:  $after"
	[ "$before" = "$after" ] || { echo "sizes changed by a failed -G"; return 1; }
	ping_ok || { echo "no traffic after the failed -G"; return 1; }
	ethtool -G "$A" rx 512 tx 512 || return 1
	echo "retried: $(ring_sizes)"
	[[ "$(ring_sizes)" == "RX:512 TX:512 "* ]]
}
# channels_rollback: -L adding a queue pair whose CREATE_CQ fails must fail,
# leave the old count running and passing traffic, and work when retried
channels_rollback() {
	ethtool -L "$A" combined 1 || return 1
	ping_ok || { echo "no traffic on one queue pair"; return 1; }
	model_set ena0 fault-status-opcode 3    # CREATE_CQ
	if ethtool -L "$A" combined 2 2>&1; then echo "-L succeeded although CREATE_CQ failed"; return 1; fi
	clear_faults
	echo "after the failed -L: combined $(chan Current)"
	[ "$(chan Current)" = 1 ] || { echo "the count changed by a failed -L"; return 1; }
	ping_ok || { echo "no traffic after the failed -L"; return 1; }
	ethtool -L "$A" combined 2 || return 1
	echo "retried: combined $(chan Current)"
	[ "$(chan Current)" = 2 ] && ping_ok
}
# cq_depth: -L adding a queue pair whose CREATE_CQ answer reports another
# depth than asked must fail and leave no queue of it in the device (the
# misreported CQ destroyed: created - destroyed back to what it was), keep
# the old count passing traffic, and work when retried
cq_depth() {
	local q0 q1
	ethtool -L "$A" combined 1 || return 1
	q0=$(( $(model_get ena0 stat-queues-created) - $(model_get ena0 stat-queues-destroyed) ))
	model_set ena0 fault-cq-depth 1
	if ethtool -L "$A" combined 2 2>&1; then echo "-L succeeded although the CQ depth was wrong"; return 1; fi
	clear_faults
	q1=$(( $(model_get ena0 stat-queues-created) - $(model_get ena0 stat-queues-destroyed) ))
	echo "device queues live: $q0 before the failed -L, $q1 after; combined $(chan Current)"
	[ "$q1" = "$q0" ] || { echo "the failed -L left $((q1 - q0)) queue(s) in the device"; return 1; }
	[ "$(chan Current)" = 1 ] || { echo "the count changed by a failed -L"; return 1; }
	ping_ok || { echo "no traffic after the failed -L"; return 1; }
	ethtool -L "$A" combined 2 || return 1
	[ "$(chan Current)" = 2 ] && ping_ok
}
# link_config: GET_FEATURE LINK_CONFIG fails: the link query (`ethtool
# IFACE`) answers with an unknown speed or fails, with no device reset
link_config() {
	local out rc
	model_set ena0 fault-status-feature 27
	out=$(ethtool "$A" 2>&1); rc=$?
	clear_faults
	echo "ethtool $A: status $rc, $(grep -E 'Speed:' <<< "$out" | tr -s ' \t' ' ')"
	[ "$(model_get ena0 stat-resets)" = "$r0" ] || { echo "the device was reset"; return 1; }
	! is_ours || { [ $rc = 0 ] && grep -q 'Speed: Unknown' <<< "$out"; }
}
# missed_tx: two TX packets get no completion; with the device's hints
# (2 s, threshold 1, set before the load) the driver resets the device
missed_tx() {
	model_set ena0 fault-tx-swallow 2
	io_both_ways
	wait_reset "$r0" || return 1
	is_ours || return 0
	local n
	n=$(eth_stat_sum "$A" '^queue_[0-9]+_tx_missed_tx$')
	echo "queue_*_tx_missed_tx: $n"
	[ "$n" -ge 1 ]
}
# xdp_missed_tx: completions of frames sent back by an XDP_TX program (the
# pair's XDP TX ring, its own SQ and CQ on the pair's vector) never come:
# found as an skb's are, and the device reset (IPv6 off on A so that only
# the echoed frames leave it while the device swallows completions)
xdp_missed_tx() {
	local mac rc=0 n
	mac=$(cat "/sys/class/net/$A/address")
	sysctl -qw "net.ipv6.conf.$A.disable_ipv6=1"
	python3 -S "$here/xdp_prog.py" attach "$A" tx --only-to "$mac" && wait_carrier "$A" || rc=1
	if [ $rc = 0 ]; then
		model_set ena0 fault-tx-swallow 2
		ip netns exec ena-peer python3 -S "$here/xdp_prog.py" echo-check "$B" "$mac" 20 --min-pct 0 >/dev/null 2>&1
		wait_reset "$r0" || rc=1
	fi
	n=$(eth_stat_sum "$A" '^queue_[0-9]+_tx_missed_tx$')
	echo "queue_*_tx_missed_tx: $n, XDP_TX verdicts: $(eth_stat_sum "$A" '^queue_[0-9]+_.*xdp_tx$')"
	python3 -S "$here/xdp_prog.py" detach "$A"
	sysctl -qw "net.ipv6.conf.$A.disable_ipv6=0"
	[ $rc = 0 ] && [ "$n" -ge 1 ]
}
# fewer_queues: the device comes back from a reset with one queue pair:
# ethtool -l must offer 1 from then on, and -L combined 2 be refused
fewer_queues() {
	local max rc=0
	model_set_many ena0 max-queues 1 fault-fatal true >/dev/null
	wait_reset "$r0" || rc=1
	model_set ena0 fault-fatal false >/dev/null
	wait_carrier "$A" 30 || rc=1
	max=$(chan Pre-set)
	echo "after the reset: max combined $max, combined $(chan Current)"
	[ "$max" = 1 ] || rc=1
	if ethtool -L "$A" combined 2 2>/dev/null; then echo "-L combined 2 taken"; rc=1; fi
	return $rc
}
# missed_irq: one IO interrupt is lost (the vector stays masked in the
# device): the waiting completions are seen and the device reset
missed_irq() {
	model_set ena0 fault-io-irq-drop 1
	io_both_ways
	wait_reset "$r0" || return 1
	is_ours || return 0
	echo "missed_interrupts: $(eth_stat "$A" missed_interrupts)"
	[ "$(eth_stat "$A" missed_interrupts)" -ge 1 ]
}
# io_from_peer: frames for $A reach its device, whether $A is up or not
io_from_peer() {
	ip netns exec ena-peer ping -q -c 3 -i 0.2 -W 1 10.77.0.1 >/dev/null 2>&1
	return 0
}
# cut_off: the device can reach nothing the driver freed: bus mastering
# is off, or it runs no queue
cut_off() {
	local t
	t=$(model_get ena0 dma-targets)
	echo "dma-targets: $t"
	[[ "$t" == *"bus-master off" ]] || ! grep -qE '(^| )[sc]q[0-9]+ ' <<< "$t"
}
# udp_flood SECONDS: datagrams from $A to the peer on 16 sockets (each
# hashes to its own TX queue) for SECONDS, sends that fail ignored
udp_flood() {
	python3 -S -c 'import socket, sys, time
end = time.monotonic() + float(sys.argv[1])
socks = [socket.socket(socket.AF_INET, socket.SOCK_DGRAM) for _ in range(16)]
while time.monotonic() < end:
    for i, s in enumerate(socks):
        try:
            s.sendto(b"x" * 200, ("10.77.0.2", 9000 + i))
        except OSError:
            pass' "$1"
}
# shrink_destroy_fail: -L (up to 4) -> 1 under TX traffic with every DESTROY_SQ
# failing: the stop of a removed pair resets the device while the pairs
# that stay still run; none of them may touch the reset device (a
# doorbell, an unmask of a queue it no longer has), and a reset brings the
# interface back at one pair
shrink_destroy_fail() {
	local n pid perr
	n=$(chan Pre-set)
	[ "$n" -gt 4 ] && n=4
	[ "$n" -ge 2 ] || { echo "at most $n queue pair: nothing to remove"; return 1; }
	ethtool -L "$A" combined "$n" || return 1
	udp_flood 3 & pid=$!
	sleep 1
	model_set ena0 fault-status-opcode 2
	ethtool -L "$A" combined 1
	echo "-L 1 under a failing DESTROY_SQ: exit $?"
	model_set ena0 fault-status-opcode -1
	wait "$pid"
	wait_reset "$r0" || { echo "no reset after the failed DESTROY"; return 1; }
	wait_carrier "$A" >/dev/null
	perr=$(model_get ena0 guest-errors)
	echo "combined $(chan Current), protocol errors: ${perr:-none}"
	[ -z "$perr" ] && [ "$(chan Current)" = 1 ]
}
# up_again: once the device reset again, $A comes up (an open may fail
# while the driver still holds the device dead)
up_again() {
	local end=$((SECONDS + detect_s))
	wait_reset "$r0" >/dev/null
	until ip link set "$A" up 2>/dev/null; do
		[ $SECONDS -lt $end ] || { echo "$A does not come up"; return 1; }
		sleep 0.5
	done
}
# up_retried: after a reset whose bring-up failed, the carrier comes back
# (for ours: a second reset counted, the failed one in reset_fail)
up_retried() {
	wait_reset "$r0" || return 1
	wait_carrier "$A" "$detect_s" || { echo "no carrier after the failed bring-up"; return 1; }
	is_ours || return 0
	echo "driver: resets $(eth_stat "$A" resets), reset_fail $(eth_stat "$A" reset_fail)"
	[ "$(eth_stat "$A" resets)" -ge 2 ] && [ "$(eth_stat "$A" reset_fail)" -ge 1 ]
}
# not_ready_quiet: after the reset that ends without READY, the driver
# sends the device no admin command (it polls DEV_STS only)
not_ready_quiet() {
	local db
	wait_reset "$r0" || return 1
	sleep 1
	db=$(model_get ena0 stat-admin-doorbells)
	sleep 4
	echo "admin doorbells in 4 s while not ready: $(( $(model_get ena0 stat-admin-doorbells) - db ))"
	[ "$(model_get ena0 stat-admin-doorbells)" = "$db" ]
}
# mtu_shrunk: after the reset $A runs at the device's new largest MTU
mtu_shrunk() {
	local l
	wait_reset "$r0" || return 1
	wait_carrier "$A" "$recover_s" || { echo "no carrier after the reset"; return 1; }
	l=$(ip -d link show "$A")
	echo "after the reset: $(grep -oE '(^| )(mtu|maxmtu) [0-9]+' <<< "$l" | paste -sd' ')"
	grep -q ' mtu 4000 ' <<< "$l" && grep -q 'maxmtu 4000' <<< "$l"
}
# aenq_inject EVENT: one AENQ event from the model (aenq-inject), and what
# became of it: posted, disabled (a group the driver did not enable),
# full or not-ready
aenq_inject() {
	model_set ena0 aenq-inject "$1" >/dev/null || return 1
	model_get ena0 aenq-inject
}
# reset_asked EVENT: the event is posted, the device reset follows and the
# carrier comes back
reset_asked() {
	local got
	got=$(aenq_inject "$1")
	echo "$1: $got"
	[ "$got" = posted ] || return 1
	wait_reset "$r0" || return 1
	wait_carrier "$A" "$recover_s"
}
# hints_posted WHAT LOG...: an UPDATE_HINTS event with the model's hint-*
# values is posted; ours must then have logged each LOG (a regex)
hints_posted() {
	local got l
	got=$(aenq_inject notification:2)
	echo "UPDATE_HINTS ($1): $got"
	[ "$got" = posted ] || return 1
	sleep 0.5
	is_ours || return 0
	for l in "${@:2}"; do
		dmesg | tail -n +"$d0" | grep -q "$l" || { echo "not logged: $l"; return 1; }
	done
}
# hints_keepalive: UPDATE_HINTS with a keep-alive timeout of 2500 ms (ours
# first gets 100 ms, which it must clamp to 2000 and say so once), then the
# keep-alives stop: the driver must give up on them within about 2.5 s plus
# a watchdog period (its log line, on the guest's clock from the moment they
# stopped: the model's polling under a loaded host does not count), well
# before the default 6 s would allow
hints_keepalive() {
	local t0 ms line
	if is_ours; then
		model_set ena0 hint-keepalive-ms 100 >/dev/null
		hints_posted "keep-alive 100 ms" "hint keep-alive timeout of 100 ms out of 2000" || return 1
		[ "$(model_get ena0 stat-resets)" = "$r0" ] || { echo "a reset after the clamped hint"; return 1; }
	fi
	model_set ena0 hint-keepalive-ms 2500 >/dev/null
	hints_posted "keep-alive 2500 ms" "device hints: keep-alive timeout 2500 ms" || return 1
	model_set ena0 keepalive-ms 0
	t0=$(cut -d' ' -f1 /proc/uptime)
	wait_reset "$r0" || return 1
	model_set ena0 keepalive-ms 1000
	if is_ours; then
		line=$(dmesg | tail -n +"$d0" | grep -m1 "no keep-alive event for") || true
		[[ "$line" == *"for 2500 ms"* ]] || { echo "the watchdog did not use the hint: $line"; return 1; }
	else
		line=$(dmesg | tail -n +"$d0" | grep -m1 "Keep alive watchdog timeout") || true
	fi
	ms=$(awk -v t0="$t0" -F'[][]' '{ printf "%d", ($2 - t0) * 1000 }' <<< "$line")
	echo "keep-alive timeout logged ${ms:-?} ms after the keep-alives stopped (hint 2500 ms, default 6000 ms)"
	# the default would take 6 s or more: 5.5 leaves a loaded guest 3 s
	[ -n "$ms" ] && [ "$ms" -lt 5500 ]
}
# hints_tx_watchdog: UPDATE_HINTS sets the stack's TX watchdog to 1000 ms
# and turns the missing-TX check off (0xffff); ours must also clamp a
# register read timeout of 6000 ms to 5000 and say so once. After the
# watchdog timer has run once with the new period (it was armed with the
# old 5 s), the device stops sending (tx-hold) and a UDP burst fills the
# queue: the stack's watchdog must call the driver's tx_timeout within
# about 1 to 2 s of the queue's last transmit (it rounds its timer to whole
# seconds), well before the default 5 s would allow. The figure is the
# kernel's own ("transmit queue N timed out M ms", since 6.7); an older
# kernel's line has none, and the time from the burst to the driver's
# tx_timeout count stands for it
hints_tx_watchdog() {
	local t0 ms line
	model_set_many ena0 hint-missing-tx-ms 65535 hint-netdev-wd-ms 1000 \
		hint-mmio-read-ms 6000 >/dev/null
	hints_posted "TX watchdog 1000 ms, missing TX off" \
		"register read timeout of 6000 ms out of 10..5000 ms, clamped" \
		"device hints: .*register read timeout 5000 ms, TX watchdog 1000 ms" || return 1
	sleep 5.5
	t0=$(cut -d' ' -f1 /proc/uptime)
	tx_stall 1200 12
	ms=$(awk -v t0="$t0" '{ printf "%d", ($1 - t0) * 1000 }' /proc/uptime)
	line=$(dmesg | tail -n +"$d0" | grep -m1 "NETDEV WATCHDOG") || true
	echo "${line:-no NETDEV WATCHDOG line}"
	if [[ "$line" =~ timed\ out\ ([0-9]+)\ ms ]]; then
		ms=${BASH_REMATCH[1]}
		echo "tx_timeout $TXTO0 -> $TXTO1, the queue timed out after ${ms} ms by the stack's count (hint 1000 ms, default 5000 ms)"
	else
		echo "tx_timeout $TXTO0 -> $TXTO1, ${ms} ms after the burst started (hint 1000 ms, default 5000 ms)"
	fi
	[ "${TXTO1:-0}" -gt "${TXTO0:-0}" ] && [ "$ms" -lt 4500 ]
}
# aenq_disabled: the device offers no DEVICE_REQUEST_RESET group (set before
# the load), so no driver enables it: the event is dropped, counted by the
# device, and nothing resets. A WARNING and a CONF_NOTIFICATIONS event
# (groups ours enables) are only logged and counted: no reset either
aenq_disabled() {
	local n0 got ev
	n0=$(model_get ena0 stat-aenq-disabled)
	got=$(aenq_inject device-request-reset)
	echo "device-request-reset with the group not enabled: $got"
	[ "$got" = disabled ] || return 1
	[ "$(model_get ena0 stat-aenq-disabled)" = $((n0 + 1)) ] || { echo "not counted"; return 1; }
	for ev in warning:7 conf-notifications:0:5; do
		echo "$ev: $(aenq_inject "$ev")"
	done
	sleep 2
	[ "$(model_get ena0 stat-resets)" = "$r0" ] || { echo "the device was reset"; return 1; }
	if is_ours; then
		echo "aenq_warnings $(eth_stat "$A" aenq_warnings), aenq_conf_notifications $(eth_stat "$A" aenq_conf_notifications)"
		[ "$(eth_stat "$A" aenq_warnings)" = 1 ] && [ "$(eth_stat "$A" aenq_conf_notifications)" = 1 ] || return 1
		dmesg | tail -n +"$d0" | grep -q "sub-optimal configuration: 0x5" || { echo "no log line"; return 1; }
	fi
	ping_ok
}
# admin_irq_lost: admin completions 20 ms after the doorbell (past the
# driver's spin); the next one is posted with no MSI-X message: the command
# (SET MTU) must still complete, with no reset. Then lost ones in a row: the
# management vector is deemed broken and the device reset (ours, after
# three). A keep-alive event raises the same vector: one that comes while a
# command waits wakes it as its interrupt would (not a lost interrupt for
# the driver), so keep-alives come every 3 s here (the timeout is 6 s) and
# a command that met one is tried again
admin_irq_lost() {
	local lat l0 rc=0 i mtu
	lat=$(model_get ena0 admin-latency-us)
	l0=$(model_get ena0 stat-admin-irqs-lost)
	model_set_many ena0 keepalive-ms 3000 admin-latency-us 20000 >/dev/null
	for mtu in 1400 1450 1400; do
		model_set ena0 fault-admin-irq-lost 1 >/dev/null
		set_mtu $mtu || { echo "SET MTU with a lost interrupt failed"; rc=1; break; }
		is_ours || break
		[ "$(eth_stat "$A" admin_irq_missed)" -ge 1 ] && break
	done
	echo "interrupts lost: $(( $(model_get ena0 stat-admin-irqs-lost) - l0 ))"
	[ "$(model_get ena0 fault-admin-irq-lost)" = 0 ] || { echo "the completion was not posted"; rc=1; }
	if is_ours; then
		dmesg | tail -n +"$d0" | grep -q "completed without an interrupt" || { echo "no log line"; rc=1; }
		echo "admin_irq_missed: $(eth_stat "$A" admin_irq_missed)"
		[ "$(eth_stat "$A" admin_irq_missed)" = 1 ] || rc=1
	fi
	sleep 1
	[ "$(model_get ena0 stat-resets)" = "$r0" ] || { echo "one lost interrupt reset the device"; rc=1; }
	# one lost interrupt per command, so none is left for the bring-up
	for i in 1300 1200 1500 1300 1200 1500; do
		model_set ena0 fault-admin-irq-lost 1 >/dev/null
		set_mtu $i 2>/dev/null
		[ "$(model_get ena0 stat-resets)" = "$r0" ] || break
	done
	wait_reset "$r0" || rc=1
	model_set_many ena0 admin-latency-us "$lat" fault-admin-irq-lost 0 keepalive-ms 1000 >/dev/null
	wait_carrier "$A" "$recover_s" || rc=1
	return $rc
}
io_both_ways() {
	ping -q -c 3 -i 0.2 -W 1 10.77.0.2 >/dev/null 2>&1
	ip netns exec ena-peer ping -q -c 3 -i 0.2 -W 1 10.77.0.1 >/dev/null 2>&1
	return 0
}

# reset_reason N: the reason of the model's Nth device reset
reset_reason() { model_get ena0 reset-reasons | tr ' ' '\n' | sed -n "s/^$1://p"; }
# check_reason: the first reset after the fault ($r0) gave want_reason[$f]
check_reason() {
	local got
	got=$(reset_reason $((r0 + 1)))
	echo "first reset after the fault: reason ${got:-none}, want ${want_reason[$f]}"
	[ "${got:-none}" = "${want_reason[$f]}" ]
}

ktap_header $(( $(echo $faults | wc -w) * 4 ))
for f in $faults; do
	if ! is_ours && [[ " $stock_skip " == *" $f "* ]]; then
		for t in "fault" "reset reason" "recovery" "unload, log clean"; do
			ktap_skip "$f: $t" "not run for the stock driver (see stock_skip)"
		done
		continue
	fi
	d0=$(dmesg_lines) t0=$SECONDS
	clear_faults
	# hints the driver reads at probe
	case $f in
	missed-tx|xdp-missed-tx)
		model_set_many ena0 hint-missing-tx-ms 2000 hint-missed-tx 1 >/dev/null;;
	llq-tiny) model_set ena0 llq-max-depth 2 >/dev/null;;
	rx-sgl) model_set ena0 max-rx-sgl 2 >/dev/null;;
	aenq-disabled) model_set ena0 aenq-supported-groups 127 >/dev/null;;
	reason-no-ext) model_set ena0 ext-reset-reasons false >/dev/null;;
	esac
	load_args=()
	[ "$f" = bad-db-async ] && load_args=(open_async=1)
	if ! { ena_load "${load_args[@]}" && ena_wait_ifaces 2 && pair_setup && wait_carrier "$A" && recovered; } >/dev/null 2>&1; then
		ktap_fail "$f: baseline (load, link, ping)"; ktap_skip "$f: reset reason" "no baseline"
		ktap_skip "$f: recovery" "no baseline"
		cleanup; ktap_skip "$f: unload, log clean" "no baseline"; continue
	fi
	r0=$(model_get ena0 stat-resets) t1=$SECONDS
	case $f in
	keepalive)
		model_set ena0 keepalive-ms 0
		ktap_check "$f: device reset after keep-alives stop" wait_reset "$r0"
		model_set ena0 keepalive-ms 1000;;
	drop)
		model_set ena0 fault-drop-next 1
		set_mtu 1400 >/dev/null 2>&1
		ktap_check "$f: admin timeout leads to a reset" wait_reset "$r0";;
	delay)
		model_set ena0 fault-delay-next-ms 300
		ktap_check "$f: a 300 ms late completion is still served" delay_served 300;;
	status)
		model_set ena0 fault-status-opcode 9
		ktap_check "$f: a failing SET_FEATURE fails the request" fails_cleanly set_mtu 1400
		model_set ena0 fault-status-opcode -1;;
	malformed-id|stale-phase)
		model_set ena0 fault-malformed $([ $f = malformed-id ] && echo 1 || echo 2)
		set_mtu 1400 >/dev/null 2>&1
		ktap_check "$f: the bad completion leads to a reset" wait_reset "$r0";;
	fatal)
		model_set ena0 fault-fatal true
		expect "$f: fatal DEV_STS leads to a reset" wait_reset "$r0"
		model_set ena0 fault-fatal false;;
	destroy-fail)
		# every DESTROY_SQ fails: the close must stop the device before
		# it frees the rings and pages the device still owns
		model_set ena0 fault-status-opcode 2
		ip link set "$A" down
		expect "$f: close with failing DESTROY_SQ leaves no queue live in the device" no_live_sq
		model_set ena0 fault-status-opcode -1
		ip link set "$A" up
		wait_carrier "$A" >/dev/null;;
	shrink-destroy-fail)
		expect "$f: -L N -> 1 whose DESTROY fails resets the device with no access from the pairs still running" shrink_destroy_fail;;
	destroy-late)
		# the first DESTROY of the close completes 5 s late, after the
		# driver's admin timeout (3 s): the device runs that queue until
		# then, and its memory must not be freed before the device stops
		model_set ena0 fault-delay-next-ms 5000
		ip link set "$A" down
		io_from_peer
		expect "$f: a DESTROY that times out leaves no queue live in the device" no_live_sq
		up_again >/dev/null;;
	destroy-reset-fail)
		# DESTROY_SQ fails and the device ignores the reset that follows:
		# the close must cut the device off memory (bus mastering off)
		# before it frees rings the device still runs; frames for $A then
		# find their descriptors unreadable (protocol errors rx, tx)
		model_expect_errors ena0 rx,tx >/dev/null
		model_set_many ena0 fault-status-opcode 2 fault-reset-ignore true >/dev/null
		ip link set "$A" down
		io_from_peer
		expect "$f: a close whose DESTROY and reset fail leaves the device no freed memory" cut_off
		model_set_many ena0 fault-status-opcode -1 fault-reset-ignore false >/dev/null
		# the queues the ignored reset left run on, cut off, until the
		# next reset completes: frames meanwhile are the same errors
		up_again
		model_expect_errors ena0 "" >/dev/null;;
	up-fail)
		# the first CREATE_SQ after a reset (a FATAL_ERROR event) fails:
		# the bring-up after that reset must be tried again
		model_set_many ena0 fault-status-opcode 1 fault-status-times 1 fault-aenq-fatal true >/dev/null
		expect "$f: a bring-up failing after a reset is retried: carrier back" up_retried;;
	mtu-shrink)
		# MTU 9000, then the device's largest MTU shrinks to 4000 across a
		# reset (a FATAL_ERROR event): the interface comes back at 4000
		set_mtu 9000
		model_set_many ena0 max-mtu 4000 fault-aenq-fatal true >/dev/null
		expect "$f: a device whose largest MTU shrank comes back at that MTU" mtu_shrunk;;
	never-ready)
		# a reset (after a FATAL_ERROR event) completes but READY does not
		# come back until the fault is cleared: no admin command meanwhile,
		# then the driver's retries bring the interface back
		model_set_many ena0 fault-never-ready true fault-aenq-fatal true >/dev/null
		expect "$f: a device not ready after its reset gets no admin command" not_ready_quiet
		model_set ena0 fault-never-ready false >/dev/null;;
	rx-starve)
		# every RX allocation fails while the queues start, then memory
		# is back: the rings must refill without any traffic
		if is_ours; then
			BDF=$(ena_bdf "$A")
			ktap_check "$f: RX rings empty after failed allocations refill without traffic" rx_starve
		else
			ktap_skip "$f: RX rings refill without traffic" "needs our driver's allocation failure hook"
		fi;;
	rx-runt)
		ktap_check "$f: frames split inside the Ethernet header are dropped, nothing crashes" runt;;
	bad-db)
		ktap_check "$f: a doorbell offset outside BAR 0 fails the open cleanly, the next open works" bad_db;;
	bad-db-async)
		ktap_check "$f: with open_async=1 a doorbell offset outside BAR 0 fails the queue start, a device reset starts them" bad_db;;
	rings-rollback)
		expect "$f: -G failing on the second queue changes no queue, a retry works" rings_rollback;;
	missed-tx)
		ktap_check "$f: TX completions that never come are counted and lead to a reset" missed_tx;;
	fewer-queues)
		ktap_check "$f: a device back with one queue pair: ethtool -l offers 1, -L 2 refused" fewer_queues;;
	xdp-missed-tx)
		ktap_check "$f: XDP_TX completions that never come are counted and lead to a reset" xdp_missed_tx;;
	channels-rollback)
		expect "$f: -L failing on the new queue's CREATE_CQ keeps the old count, a retry works" channels_rollback;;
	cq-depth)
		expect "$f: a CREATE_CQ answer with the wrong depth fails -L, leaves no queue in the device" cq_depth;;
	llq-tiny)
		ktap_check "$f: an LLQ too shallow for two packets is declined, TX descriptors in host memory, traffic passes" llq_tiny;;
	rx-sgl)
		ktap_check "$f: 2 RX buffers per frame bound the MTU, frames of that MTU pass both ways" rx_sgl;;
	no-unmask)
		ktap_check "$f: CREATE_CQ answers without an unmask register fail the open cleanly, the next open works" no_unmask;;
	link-config)
		ktap_check "$f: a failing LINK_CONFIG query answers without a reset" link_config;;
	missed-irq)
		expect "$f: a lost IO interrupt is detected and leads to a reset" missed_irq;;
	aenq-hints)
		ktap_check "$f: UPDATE_HINTS shortens the keep-alive timeout: the reset comes within the hint" hints_keepalive;;
	aenq-hints-wd)
		ktap_check "$f: UPDATE_HINTS shortens the stack's TX watchdog: a device that stopped sending is reset within the hint" hints_tx_watchdog;;
	aenq-request-reset)
		expect "$f: DEVICE_REQUEST_RESET resets the device, carrier back" reset_asked device-request-reset;;
	reason-no-ext)
		# a device without the extended reset reasons (DEVICE_ATTRIBUTES
		# capability bit 3): the device-requested reset's reason (19)
		# does not fit DEV_CTL's 4 bits and goes as GENERIC (13)
		expect "$f: DEVICE_REQUEST_RESET on a device without extended reset reasons resets it, carrier back" reset_asked device-request-reset;;
	aenq-refresh-caps)
		expect "$f: REFRESH_CAPABILITIES resets the device, carrier back" reset_asked refresh-capabilities;;
	aenq-disabled)
		ktap_check "$f: an event of a group not enabled is dropped and counted by the device; warnings and configuration notices are logged; no reaction" aenq_disabled;;
	admin-irq-lost)
		expect "$f: an admin completion without its interrupt completes; three in a row reset the device" admin_irq_lost;;
	rx-reqid|rx-len|tx-reqid)
		model_set ena0 "fault-${f%-*}-bad-${f#*-}" 1
		io_both_ways
		ktap_check "$f: the bad IO completion leads to a reset" wait_reset "$r0";;
	esac
	t2=$SECONDS
	if is_ours && [ -n "${want_reason[$f]:-}" ]; then
		if [ "${want_reason[$f]}" = none ]; then
			ktap_check "$f: handled without a device reset" check_reason
		else
			ktap_check "$f: the reset gives reason ${want_reason[$f]}" check_reason
		fi
	else
		ktap_skip "$f: reset reason" "printed only: resets $(model_get ena0 reset-reasons |
			tr ' ' '\n' | awk -F: -v r="$r0" '$1 > r' | paste -sd' ' | sed 's/^$/none/')"
	fi
	expect "$f: traffic passes within ${recover_s}s" recovered
	t3=$SECONDS
	dmesg | tail -n +"$((d0 + 1))" | grep -iE 'ena .*(reset|timeout|time out|timed out|fail|error|invalid|keep)' |
		head -3 | sed 's/^/#   /'
	# which fault a protocol error came with (the runner fails the guest)
	perr=$(model_get ena0 guest-errors)
	[ -z "$perr" ] || echo "# $f: protocol errors so far (unexpected): $perr"
	clear_faults
	pair_teardown
	ktap_check "$f: module unloads, kernel log clean" bash -c \
		"timeout $((30 * ${ENA_TIMEOUT_SCALE:-1})) rmmod ena && ! dmesg | tail -n +$d0 | grep -E 'BUG|WARNING|Oops|leak|Call Trace'"
	echo "# $f: $((SECONDS - t0)) s (load and baseline $((t1 - t0)), fault $((t2 - t1)), recovery $((t3 - t2)), unload $((SECONDS - t3)))"
done
ktap_finish
