#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Admin commands that answer late and out of rhythm: the model answers
# every admin command after ENA_JITTER_LATENCY_US (300) plus a uniform
# random 0..ENA_JITTER_US (3000) us, on both devices, from before the load.
# Probe must bind both devices, and rounds of channel and ring changes
# (ethtool -L 1, -L max, -G 512, -G back) and a down/up must each keep
# traffic passing; no admin command may time out or reset the device.
#
# Rounds: at least 2, at most ENA_JITTER_ROUNDS (10), none added after
# ENA_JITTER_BUDGET_S (90) seconds; ENA_TEST_LONG=1 runs all.
. "$(dirname "$0")/ena_lib.sh"
lat=${ENA_JITTER_LATENCY_US:-300}
jit=${ENA_JITTER_US:-3000}
rounds=${ENA_JITTER_ROUNDS:-10}
budget=${ENA_JITTER_BUDGET_S:-90}

knobs() { # knobs LATENCY JITTER: on both devices
	local d
	for d in ena0 ena1; do
		model_set $d admin-latency-us "$1" >/dev/null && model_set $d admin-jitter-us "$2" >/dev/null || return 1
	done
}
cleanup() { pair_teardown; ena_unload 2>/dev/null; knobs 0 0 2>/dev/null; }
trap cleanup EXIT

# round: every change, each followed by a ping
round() {
	ethtool -L "$A" combined 1 && ping_ok || { echo "-L combined 1"; return 1; }
	ethtool -L "$A" combined "$CMAX" && ping_ok || { echo "-L combined $CMAX"; return 1; }
	ethtool -G "$A" rx 512 tx 512 && ping_ok || { echo "-G 512"; return 1; }
	ethtool -G "$A" rx "$RX0" tx "$TX0" && ping_ok || { echo "-G $RX0/$TX0"; return 1; }
}

ktap_header 7
d0=$(dmesg_lines)
ktap_diag "driver: $ENA_DRIVER, kernel $(uname -r); admin latency $lat us + 0..$jit us"
ktap_check "model knobs set on both devices" knobs "$lat" "$jit"
probe() { ena_load && ena_wait_ifaces 2 60; }
t0=$(date +%s%N)
ktap_check "probe binds both devices" probe
ktap_diag "load took $(( ($(date +%s%N) - t0) / 1000000 )) ms"
r0=$(model_get ena0 stat-resets)
up() { pair_setup && wait_carrier "$A" 30 && wait_carrier "$B" 30 ena-peer && ping_ok; }
ktap_check "links up, ping" up
CMAX=$(chan Pre-set) RX0=$(ring Current RX) TX0=$(ring Current TX)

budget_start "$budget"
ok=1
for ((i = 0; i < rounds; i++)); do
	budget_more "$i" 2 || break
	ktap_run round || { ok=0; ktap_diag "round $((i + 1)) failed"; i=$((i + 1)); break; }
done
ktap_diag "ran $i of $rounds rounds: $(budget_why "$i" "$rounds")"
ktap_diag "admin commands by opcode (ena0): $(model_get ena0 stat-admin-by-opcode)"
if [ $ok = 1 ] && [ "$i" -gt 0 ]; then ktap_pass "$i rounds of -L 1/-L $CMAX/-G 512/-G back, traffic after each"
else ktap_fail "$i rounds of -L 1/-L $CMAX/-G 512/-G back, traffic after each"; fi
downup() { ip link set "$A" down && ip link set "$A" up && wait_carrier "$A" 30 && ping_ok; }
no_reset() {
	local r1
	r1=$(model_get ena0 stat-resets)
	echo "device resets since probe: $((r1 - r0))"
	[ "$r1" = "$r0" ] && ! dmesg | tail -n +"$d0" | grep -iE 'ena.*(timeout|timed out|reset scheduled)'
}
ktap_check "down/up, ping; no admin timeout, no device reset" eval "downup && no_reset"
pair_teardown
ktap_check "rmmod ena" ena_unload
ktap_check "kernel log clean (no BUG/WARNING/Oops/leak)" dmesg_clean "$d0"
ktap_finish
