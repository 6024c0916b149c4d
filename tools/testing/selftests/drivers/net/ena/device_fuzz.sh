#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The driver against a hostile device: the model's device fuzzing
# (fuzz-seed) corrupts, while traffic runs both ways, one thing at a time:
# an RX completion's request id or length, a TX completion's request id,
# an admin completion's command id, the queue limits the device answers
# (impossible ones), or an IO interrupt (lost); after each,
# nothing more until the driver has reset the device. On top, one IO
# interrupt in eight comes twice. The driver must notice every corruption
# (its own counter for each kind matches the model's count), recover each
# time, pass traffic again at the end, and leave nothing behind: ring
# memory as before, and once the interface is down, every page and every
# coherent DMA allocation given back. The kernel log must stay free of
# oops, WARN and checker reports.
#
# Corruptions: at least ENA_DEVFUZZ_MIN (50), at most ENA_DEVFUZZ_COUNT
# (5000), none added after ENA_DEVFUZZ_BUDGET_S (150) seconds;
# ENA_TEST_LONG=1 runs all. ENA_DEVFUZZ_KINDS picks the kinds (default:
# all but irq-drop, see below). ENA_DEVFUZZ_SEED (1) seeds the model; each
# corruption comes after 0..ENA_DEVFUZZ_GAP (16) clean events of its kind.
# Our driver only: the stock one trusts the RX completion length (see
# faults.sh, stock_skip) and has none of the counters compared here.
. "$(dirname "$0")/ena_lib.sh"
count=${ENA_DEVFUZZ_COUNT:-5000}
floor=${ENA_DEVFUZZ_MIN:-50}
budget=${ENA_DEVFUZZ_BUDGET_S:-150}
seed=${ENA_DEVFUZZ_SEED:-1}
stall_s=${ENA_DEVFUZZ_STALL_S:-60}
gap=${ENA_DEVFUZZ_GAP:-16}	# events of a kind let through before its corruption: 0..gap
# the model's kinds, in its bit order (fuzz-kinds)
kinds="rx-reqid rx-len tx-reqid admin-id irq-drop admin-size"
# Lost interrupts stay out by default: each one takes the driver's
# lost-interrupt check two watchdog periods (2-3 s) to find, against about
# 0.1 s for the other kinds, so they would take most of a run's budget.
# ENA_DEVFUZZ_KINDS=irq-drop runs them alone (51 of 51 found in 156 s on
# 6.1 once queue start schedules its first poll; before that, about one in
# 50 went unnoticed); faults.sh missed-irq tests the detection on its own.
use=${ENA_DEVFUZZ_KINDS:-rx-reqid rx-len tx-reqid admin-id admin-size}
mask=0 bit=0
for k in $kinds; do
	[[ " ${use//,/ } " == *" $k "* ]] && mask=$((mask | 1 << bit))
	bit=$((bit + 1))
done

TRAFFIC=()
stop_traffic() {
	[ ${#TRAFFIC[@]} -gt 0 ] || return 0
	kill "${TRAFFIC[@]}" 2>/dev/null
	wait "${TRAFFIC[@]}" 2>/dev/null
	TRAFFIC=()
}
cleanup() {
	model_set ena0 fuzz-seed 0 >/dev/null 2>&1
	stop_traffic
	pair_teardown
	ena_unload 2>/dev/null
}
trap cleanup EXIT

ktap_header 6
if ! is_ours; then
	for t in "traffic before the fuzzing" "corruptions injected and recovered from" \
		"every corruption detected by the driver's own counter" \
		"traffic after the fuzzing" "ring memory, pages and DMA allocations back to baseline" \
		"unload, log clean"; do
		ktap_skip "$t" "our driver only (the stock driver trusts the RX length)"
	done
	ktap_finish
fi

# driver_counts: the driver's count for each of $kinds, in that order
driver_counts() {
	ethtool -S "$A" | awk '
		{ k = $1; sub(/:$/, "", k) }
		k ~ /^queue_[0-9]+_rx_bad_req_id$/ { rq += $2 }
		k ~ /^queue_[0-9]+_recv_bad_len$/ { rl += $2 }
		k ~ /^queue_[0-9]+_tx_bad_req_id$/ { tq += $2 }
		k == "admin_malformed" { ai = $2 }
		k == "missed_interrupts" { mi = $2 }
		k == "admin_bad_answers" { as = $2 }
		END { print rq + 0, rl + 0, tq + 0, ai + 0, mi + 0, as + 0 }'
}
# model_counts: the model's count of each of $kinds
model_counts() {
	local k props=()
	for k in $kinds; do props+=("stat-fuzz-$k"); done
	qmp qom-get ena0 "${props[@]}" | tr '\n' ' '
}
# reset_times SINCE: the driver's reset durations logged since that line
reset_times() {
	dmesg | tail -n +"$1" | sed -n 's/.*device reset done in \([0-9]*\) us/\1/p' | sort -n |
		awk '{ v[NR] = $1 } END { if (NR) printf "%d resets, median %d us, max %d us", NR, v[int((NR + 1) / 2)], v[NR]; else print "none" }'
}
# stall_report: what model and driver hold when the fuzzing stalls
stall_report() {
	ktap_diag "model: $(model_get ena0 queues | tr '\n' ';')"
	ktap_diag "armed: $(qmp qom-get ena0 stat-fuzz-total stat-resets | tr '\n' ' ')"
	cat /sys/kernel/debug/ena/*/queues 2>/dev/null | sed 's/^/# driver: /'
	dmesg | tail -n 25 | sed 's/^/# dmesg: /'
}
# stat NAME: one global ethtool -S counter of $A
stat() { eth_stat "$A" "$1"; }

d0=$(dmesg_lines)
base_ok=0
if { ena_load && ena_wait_ifaces 2 && pair_setup && wait_carrier "$A" && ping_ok; } >/dev/null 2>&1; then
	base_ok=1
	ktap_pass "traffic before the fuzzing"
else
	ktap_fail "traffic before the fuzzing"
fi
if [ $base_ok = 1 ]; then
	ring0=$(stat ring_bytes)
	model_set ena0 stat-reset true >/dev/null
	# counters since load are all zero; check it rather than assume it
	ktap_diag "driver counts at the start ($kinds): $(driver_counts)"
	# traffic both ways, as fast as the replies come (ping -f)
	ping -f -q 10.77.0.2 >/dev/null 2>&1 & TRAFFIC+=($!)
	ip netns exec ena-peer ping -f -q 10.77.0.1 >/dev/null 2>&1 & TRAFFIC+=($!)
	t0=$SECONDS
	ktap_diag "kinds: ${use//,/ } (fuzz-kinds $mask)"
	model_set_many ena0 fuzz-gap-max "$gap" fuzz-kinds "$mask" fuzz-seed "$seed" >/dev/null
	budget_start "$budget"
	n=0 last=0 last_t=$SECONDS why=
	while [ "$n" -lt "$count" ] && budget_more "$n" "$floor"; do
		sleep 2
		n=$(model_get ena0 stat-fuzz-total) || { why="QEMU monitor does not answer"; break; }
		if [ "$n" != "$last" ]; then
			last=$n last_t=$SECONDS
		elif [ $((SECONDS - last_t)) -ge "$stall_s" ]; then
			why="no new corruption for ${stall_s} s: the driver does not recover"
			stall_report
			break
		fi
	done
	model_set ena0 fuzz-seed 0 >/dev/null
	# before any ktap_check: its wait would wait for these too
	stop_traffic
	secs=$((SECONDS - t0))
	[ -n "$why" ] || n=$(model_get ena0 stat-fuzz-total)
	ktap_diag "$n corruptions in $secs s, seed $seed: ${why:-$(budget_why "$n" "$count")}"
	ktap_diag "driver's resets: $(reset_times "$d0")"
	ktap_diag "by kind ($kinds): $(model_counts); duplicate interrupts: $(model_get ena0 stat-fuzz-irq-dup)"
	ktap_check "corruptions injected and recovered from" test -z "$why" -a "$n" -ge "$(( floor < count ? floor : count ))"

	# the last corruption may still be on its way through the driver
	want=$(model_counts) got=
	end=$((SECONDS + 30))
	while [ $SECONDS -lt $end ]; do
		got=$(driver_counts)
		[ "$got" = "${want% }" ] && break
		sleep 1
	done
	resets=$(model_get ena0 stat-resets)
	ktap_diag "model ($kinds): ${want% }; driver: $got; device resets: $resets (driver: $(stat resets), failed: $(stat reset_fail))"
	ktap_check "every corruption detected by the driver's own counter" test "$got" = "${want% }"

	ok=0
	wait_carrier "$A" 30 >/dev/null 2>&1 && ping_ok 5 && ok=1
	ktap_check "traffic after the fuzzing" test $ok = 1

	ring1=$(stat ring_bytes)
	ip link set "$A" down
	left="ring_bytes $ring0 -> $ring1, down: $(stat ring_bytes); pages $(stat page_allocs)/$(stat page_frees); dma $(stat dma_coherent_allocs)/$(stat dma_coherent_frees)"
	ktap_diag "$left (running ring bytes, then allocations/frees with the interface down)"
	ktap_check "ring memory, pages and DMA allocations back to baseline" \
		test "$ring1" = "$ring0" -a "$(stat ring_bytes)" = 0 \
		-a "$(stat page_allocs)" = "$(stat page_frees)" \
		-a "$(stat dma_coherent_allocs)" = "$(stat dma_coherent_frees)"
	ip link set "$A" up
else
	for t in "corruptions injected and recovered from" \
		"every corruption detected by the driver's own counter" \
		"traffic after the fuzzing" "ring memory, pages and DMA allocations back to baseline"; do
		ktap_skip "$t" "no baseline"
	done
fi
cleanup
ktap_check "unload, log clean" dmesg_clean "$d0"
ktap_finish
