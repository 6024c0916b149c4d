#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of the recovery benchmark (make bench, BENCH_PARTS=recovery;
# make run shows one round): what a device reset costs a steady flow.  Two
# model devices on one wire, the second in netns "ena-peer"; the peer sends
# BENCH_RECOVERY_PPS UDP datagrams a second (bench/flow.py) to an echo on
# the first, so the flow crosses the device under reset both ways.  A
# second after the flow's first echo (a Python start under TCG may take
# longer than that second) the model is made to need a reset of the first
# device, by one of these triggers:
#   keepalive  the device's keep-alive events stop until its next reset
#              (both drivers reset after the keep-alive timeout, 2 s by
#              the device's hint)
#   fatal      a FATAL_ERROR AENQ event; the model's IO stops with it, as
#              a device in a fatal state does, until a reset
#   request    a DEVICE_REQUEST_RESET AENQ event (the device asks for a
#              reset; its IO goes on)
# then the flow runs a window more: 8 s, 16 s for fatal.  (The in-tree
# driver does not act on a FATAL_ERROR event.  With the device's IO
# stopped no request reaches the echo, so hardly any TX is pending and its
# missing-TX check, which wants more than 128 completions missing, does not
# fire either: in a 15 s trial its TX watchdog reset the device after 9 s,
# in 2 rounds of 16 s nothing did.)  Per driver,
# round and trigger one JSON line into $BENCH_OUT: flow.py's figures (the
# longest silence after the trigger, trigger to the first echo after it,
# datagrams lost), the device resets the model counted and the reason of
# the first.  The drivers alternate round by round (odd rounds stock
# first) in this one guest.
#   BENCH_REPS rounds (10), BENCH_RECOVERY_TRIGGERS ("keepalive fatal
#   request"), BENCH_RECOVERY_PPS (500), BENCH_RECOVERY_WINDOW (s, every
#   trigger's window)
set -uo pipefail
. "$ENA_TOP/tools/testing/selftests/drivers/net/ena/ena_lib.sh"
out=${BENCH_OUT:?}
reps=${BENCH_REPS:-10}
triggers=${BENCH_RECOVERY_TRIGGERS:-keepalive fatal request}
pps=${BENCH_RECOVERY_PPS:-500}
# window NAME: seconds the flow runs after the trigger
window() {
	if [ -n "${BENCH_RECOVERY_WINDOW:-}" ]; then echo "$BENCH_RECOVERY_WINDOW"
	elif [ "$1" = fatal ]; then echo 16
	else echo 8; fi
}
flow=$ENA_TOP/bench/flow.py
tfile=$ENA_TOP/build/tmp/recovery-trigger.$$
mkdir -p "$(dirname "$tfile")"

cleanup() {
	model_set_many ena0 keepalive-ms 1000 fault-fatal false >/dev/null 2>&1
	rm -f "$tfile"
	pair_teardown
	ena_unload
}
trap cleanup EXIT

record() { "$ENA_TOP/bench/benchrec.py" kernel="$(uname -r)" commit="${BENCH_COMMIT:-unknown}" "$@" >> "$out"; }

# trigger NAME: make the model need a reset of ena0's device
trigger() {
	case $1 in
	keepalive) model_set ena0 keepalive-ms 0;;
	fatal) model_set ena0 fault-aenq-fatal true;;
	request) model_set ena0 aenq-inject device-request-reset &&
		echo "event: $(model_get ena0 aenq-inject)";;
	*) return 1;;
	esac
}

# undo NAME: the device well again (after the window, whatever happened)
undo() {
	case $1 in
	keepalive) model_set ena0 keepalive-ms 1000;;
	fatal) model_set ena0 fault-fatal false;;
	esac
} >/dev/null

# keepalive_back N END: keep-alives resume once the model has counted more
# than N resets (a one-time loss, not a device that stays silent), or at
# END (SECONDS)
keepalive_back() {
	while [ $SECONDS -lt "$2" ] && [ "$(model_get ena0 stat-resets)" -le "$1" ]; do
		sleep 0.5
	done
	model_set ena0 keepalive-ms 1000 >/dev/null
}

# first_reason N: the reason of the first reset after the model's N-th
first_reason() {
	model_get ena0 reset-reasons | tr ' ,' '\n\n' |
		awk -F: -v n="$1" '$1 + 0 > n {print $2; exit}'
}

# one_trigger DRIVER ROUND NAME: the flow through one trigger, one record
one_trigger() {
	local drv=$1 round=$2 t=$3 r0 r1 res pid ev reason window i
	window=$(window "$t")
	rm -f "$tfile" "$tfile.ready"
	r0=$(model_get ena0 stat-resets)
	python3 "$flow" echo --bind 10.77.0.1 --seconds $((window + 10)) &
	pid=$!
	sleep 0.3
	ip netns exec ena-peer python3 "$flow" send --to 10.77.0.1 --pps "$pps" \
		--seconds $((window + 8)) --after "$window" \
		--trigger-file "$tfile" --ready-file "$tfile.ready" > "$tfile.json" &
	local spid=$!
	for ((i = 0; i < 50; i++)); do
		[ -e "$tfile.ready" ] && break
		sleep 0.1
	done
	sleep 1
	echo "$EPOCHREALTIME" > "$tfile"
	if [ -e "$tfile.ready" ]; then
		ev=$(trigger "$t" 2>&1) || ev="trigger failed: $ev"
	else
		ev="trigger failed: no echo within 5 s"
	fi
	[ "$t" = keepalive ] && keepalive_back "$r0" $((SECONDS + window))
	wait "$spid"
	res=$(cat "$tfile.json" 2>/dev/null)
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	undo "$t"
	r1=$(model_get ena0 stat-resets)
	reason=$(first_reason "$r0")
	echo "# $drv round $round $t: $res, $((r1 - r0)) resets (first reason ${reason:--})${ev:+, $ev}"
	if [ -z "$res" ] || [[ $ev == "trigger failed"* ]]; then
		record driver="$drv" round="$round" test="$t" failed=true
	else
		# shellcheck disable=SC2086 # flow.py's KEY=VALUE pairs
		record driver="$drv" round="$round" test="$t" resets=$((r1 - r0)) reason="${reason:--1}" \
			pps="$pps" window_s="$window" $res
	fi
	rm -f "$tfile.json" "$tfile.ready"
	# the next trigger starts from a device that passes traffic
	wait_carrier "$A" 30 && ping_within 30 ||
		echo "# $drv round $round $t: no traffic 30 s after the window"
}

one_driver() {
	local drv=$1 round=$2 t
	export ENA_DRIVER=$drv
	# both drivers read the hints at probe: a 2 s keep-alive timeout and
	# missing-TX timeout, the same for both
	model_set_many ena0 hint-keepalive-ms 2000 hint-missing-tx-ms 2000 >/dev/null
	if ! { ena_load && ena_wait_ifaces 2 && pair_setup && wait_carrier "$A" &&
		wait_carrier "$B" 15 ena-peer && ping_ok; }; then
		echo "# $drv round $round: no link"
		for t in $triggers; do record driver="$drv" round="$round" test="$t" failed=true; done
		pair_teardown; ena_unload
		return
	fi
	for t in $triggers; do one_trigger "$drv" "$round" "$t"; done
	pair_teardown
	ena_unload
	model_set_many ena0 hint-keepalive-ms 0 hint-missing-tx-ms 0 >/dev/null
}

for ((round = 1; round <= reps; round++)); do
	if [ $((round % 2)) = 1 ]; then order="stock ours"; else order="ours stock"; fi
	for d in $order; do one_driver "$d" "$round"; done
done
