#!/bin/bash
# Guest side of the datapath benchmark (make bench, BENCH_PARTS=datapath):
# two model devices on one wire, the second in netns "ena-peer", both driven
# by the driver under test; the stock driver and ours alternate round by
# round (odd rounds stock first, even rounds ours first) in this one guest.
# Each round and driver: TCP 1 and 4 streams (iperf3), UDP with 64-byte
# payloads at full rate (received packets per second), and UDP ping-pong
# latency (sockperf, the median of its half round trips), and the frames a
# native XDP program drops per second at the receiver (the peer device, one
# channel, tools/.../xdp_prog.py "drop") under a pktgen flood of 60-byte
# frames from the first, with two vCPUs and again with CPU 1 offline. Beside
# each: the
# ena IO interrupts of both devices per packet both devices moved, and the
# guest's busy CPU time (user, system, irq, softirq) per GB received.
# (A UDP line at a fixed offered rate was removed: at 8000 packets/s both
# drivers received all of it, so it could not tell them apart, and 15000
# was more than either reached on a slow host of this kind.)
# One JSON line per driver, round and test into $BENCH_OUT; a measurement
# that fails is recorded too (failed=true, no value), so the report counts
# it per cell instead of dropping it.
#   BENCH_REPS rounds (10), BENCH_DP_SECONDS per test (10)
set -uo pipefail
. "$ENA_TOP/tools/testing/selftests/drivers/net/ena/ena_lib.sh"
out=${BENCH_OUT:?}
reps=${BENCH_REPS:-10}
secs=${BENCH_DP_SECONDS:-10}

# ena IO interrupts so far, every CPU, both devices
io_irqs() {
	awk '$NF ~ /-Tx-Rx-[0-9]+$/ {for (i = 2; i < NF; i++) if ($i ~ /^[0-9]+$/) s += $i} END {print s + 0}' \
		/proc/interrupts
}
# packets both interfaces moved (RX + TX of each)
packets() {
	local a b
	a=$(($(cat "/sys/class/net/$A/statistics/rx_packets") + $(cat "/sys/class/net/$A/statistics/tx_packets")))
	b=$(ip netns exec ena-peer cat "/sys/class/net/$B/statistics/rx_packets" \
		"/sys/class/net/$B/statistics/tx_packets" | paste -sd+ | bc)
	echo $((a + b))
}
# NAPI polls and unmasks of both interfaces (the in-tree names, which both
# drivers print): "polls unmasks"
napi_counts() {
	{ ethtool -S "$A"; ip netns exec ena-peer ethtool -S "$B"; } | awk '
		$1 ~ /^queue_[0-9]+_tx_tx_poll:$/ {p += $2}
		$1 ~ /^queue_[0-9]+_tx_unmask_interrupt:$/ {u += $2}
		END {print p + 0, u + 0}'
}
# the model's unmasks of both devices and the RX delays they asked for (in
# the device's unit, 1 us here): "unmasks delay_sum"
model_unmasks() {
	local d
	for d in ena0 ena1; do
		qmp qom-get "$d" stat-io-unmasks stat-io-unmask-rx-delay | paste -sd' '
	done | awk '{u += $1; s += $2} END {print u + 0, s + 0}'
}
# busy CPU time of the guest in jiffies (USER_HZ)
cpu_busy() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8; exit}' /proc/stat; }

# record_failed TEST...: this driver's round of each TEST failed (no value)
record_failed() {
	local t
	for t in "$@"; do
		echo "# $ENA_DRIVER round $round $t: failed"
		"$ENA_TOP/bench/benchrec.py" kernel="$(uname -r)" commit="${BENCH_COMMIT:-unknown}" \
			driver="$ENA_DRIVER" round="$round" test="$t" failed=true >> "$out"
	done
}
all_tests="tcp1 tcp4 udp64_pps rr_us xdp_drop_pps xdp_drop_1cpu_pps"
xdp_tests="xdp_drop_pps xdp_drop_1cpu_pps"

# measure TEST CMD...: run one test, write its record; CMD prints
# "VALUE BYTES" (BYTES: payload received, for CPU per GB)
measure() {
	local test=$1 i0 p0 c0 res i1 p1 c1 value bytes n0 u0 n1 u1 m0 d0 m1 d1
	shift
	read -r n0 u0 <<< "$(napi_counts)"
	read -r m0 d0 <<< "$(model_unmasks)"
	i0=$(io_irqs) p0=$(packets) c0=$(cpu_busy)
	res=$("$@") || res=""
	i1=$(io_irqs) p1=$(packets) c1=$(cpu_busy)
	read -r n1 u1 <<< "$(napi_counts)"
	read -r m1 d1 <<< "$(model_unmasks)"
	read -r value bytes <<< "$res"
	if [ -z "$value" ]; then
		record_failed "$test"
		return
	fi
	# (report.py derives irq_per_pkt and cpu_s_per_gb from these)
	"$ENA_TOP/bench/benchrec.py" kernel="$(uname -r)" commit="${BENCH_COMMIT:-unknown}" driver="$ENA_DRIVER" round="$round" \
		test="$test" value="$value" bytes="${bytes:-0}" irqs=$((i1 - i0)) packets=$((p1 - p0)) \
		cpu_jiffies=$((c1 - c0)) napi_polls=$((n1 - n0)) unmasks=$((u1 - u0)) \
		model_unmasks=$((m1 - m0)) model_rx_delay=$((d1 - d0)) >> "$out"
	echo "# $ENA_DRIVER round $round $test: $value ($((i1 - i0)) irqs, $((p1 - p0)) packets," \
		"$((n1 - n0)) NAPI polls, $((u1 - u0)) unmasks, RX delay asked $(((d1 - d0) / (m1 > m0 ? m1 - m0 : 1))) us)"
}

# iperf3 client against the peer; prints "Mbit/s bytes" or "pps bytes"
tcp() {
	iperf3 -c 10.77.0.2 -t "$secs" -P "$1" -J 2>/dev/null | python3 -c 'import json, sys
s = json.load(sys.stdin)["end"]["sum_received"]
print(s["bits_per_second"] / 1e6, s["bytes"])'
}
udp64() {
	iperf3 -c 10.77.0.2 -u -b 0 -l 64 -t "$secs" -J 2>/dev/null | python3 -c 'import json, sys
s = json.load(sys.stdin)["end"]["sum_received"]
print((s["packets"] - s["lost_packets"]) / s["seconds"], s["bytes"])'
}
# half round trip in us, median
rr() {
	sockperf ping-pong -i 10.77.0.2 -p 11111 -t "$secs" 2>/dev/null |
		awk '/percentile 50.000 =/ {print $NF, 0; found = 1} END {exit !found}'
}

# the CPU the interrupt named $1 (a /proc/interrupts name) is delivered to
irq_cpu() {
	local n
	n=$(awk -v name="$1" '$NF == name {sub(":", "", $1); print $1}' /proc/interrupts)
	[ -n "$n" ] && cat "/proc/irq/$n/effective_affinity_list" 2>/dev/null
}

# frames per second the peer's XDP drop program drops under a pktgen flood;
# pktgen's thread runs on another CPU than the peer's RX interrupt (both
# drivers put queue 0's on CPU 0), so the rate is the receiver's, not the
# share of one CPU the sender leaves it
# (the program is attached and detached outside measure(): the in-tree
# driver restarts its queues for either, which zeroes its ring counters)
xdp_prog() {
	ip netns exec ena-peer python3 -S \
		"$ENA_TOP/tools/testing/selftests/drivers/net/ena/xdp_prog.py" "$@" > /dev/null
}
xdp_drop() {
	local pg=/proc/net/pktgen d0 d1 t0 t1 pid th=${1:-kpktgend_0}
	modprobe pktgen 2>/dev/null && [ -d $pg ] || return 1
	[ -z "${1:-}" ] && [ "$(irq_cpu "$B-Tx-Rx-0")" = 0 ] && [ -e $pg/kpktgend_1 ] &&
		th=kpktgend_1
	pktgen_to "$A" "$B" ena-peer "$th" >&2 || return 1
	echo "delay 0" > "$pg/$A"
	echo "# xdp_drop: pktgen on $th, $B's RX interrupt on CPU $(irq_cpu "$B-Tx-Rx-0")" >&2
	d0=$(ip netns exec ena-peer ethtool -S "$B" | awk '$1 ~ /_rx_xdp_drop:$/ {n += $2} END {print n + 0}')
	t0=${EPOCHREALTIME/./}
	echo start > $pg/pgctrl &
	pid=$!
	sleep "$secs"
	echo stop > $pg/pgctrl
	wait "$pid"
	t1=${EPOCHREALTIME/./}
	d1=$(ip netns exec ena-peer ethtool -S "$B" | awk '$1 ~ /_rx_xdp_drop:$/ {n += $2} END {print n + 0}')
	echo rem_device_all > $pg/$th
	echo "$(( (d1 - d0) * 1000000 / (t1 - t0) )) 0"
}

# the same with CPU 1 offline for the measurement: the sender, the
# completions and the drop program share CPU 0, so the rate is what the two
# drivers' work per frame allows on one CPU; with two vCPUs it also follows
# how the host (2 CPUs for the two vCPUs and QEMU's main loop) shares its
# CPUs between them (bench/README.md). The interrupts moved off CPU 1 stay
# on CPU 0 afterwards; this is the driver's last test before its unload.
xdp_drop_1cpu() {
	local c=/sys/devices/system/cpu/cpu1/online r rc=0
	[ -w $c ] && [ "$(cat $c)" = 1 ] || return 1
	echo 0 > $c || return 1
	r=$(xdp_drop kpktgend_0) || rc=1
	echo 1 > $c
	[ $rc = 0 ] && echo "$r"
}

one_driver() {
	export ENA_DRIVER=$1
	# shellcheck disable=SC2086 # lists of test names
	ena_load || { echo "# $1: load failed"; record_failed $all_tests; return; }
	# shellcheck disable=SC2086
	ena_wait_ifaces 2 || { echo "# $1: interfaces missing"; record_failed $all_tests; ena_unload; return; }
	pair_setup && wait_carrier "$A" && wait_carrier "$B" 15 ena-peer && ping_ok ||
		{ echo "# $1: no link"; record_failed $all_tests; pair_teardown; ena_unload; return; }
	ip netns exec ena-peer iperf3 -s -D -B 10.77.0.2 --pidfile /tmp/ena-iperf3.pid
	ip netns exec ena-peer sockperf server -i 10.77.0.2 -p 11111 > /dev/null 2>&1 &
	local sp=$!
	sleep 1
	measure tcp1 tcp 1
	measure tcp4 tcp 4
	measure udp64_pps udp64
	measure rr_us rr
	# the in-tree driver takes XDP with half its channels at most
	if ip netns exec ena-peer ethtool -L "$B" combined 1 && wait_carrier "$B" 15 ena-peer &&
		xdp_prog attach "$B" drop && wait_carrier "$B" 15 ena-peer; then
		measure xdp_drop_pps xdp_drop
		measure xdp_drop_1cpu_pps xdp_drop_1cpu
		xdp_prog detach "$B"
	else
		# shellcheck disable=SC2086
		record_failed $xdp_tests
	fi
	kill "$sp" "$(cat /tmp/ena-iperf3.pid)" 2>/dev/null
	wait "$sp" 2>/dev/null
	pair_teardown
	ena_unload
}

for ((round = 1; round <= reps; round++)); do
	if [ $((round % 2)) = 1 ]; then order="stock ours"; else order="ours stock"; fi
	for d in $order; do one_driver "$d"; done
done
