#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Link state from the model's monitor (set_link) must reach the interface as
# a user reads it: carrier, operstate and `ip link`'s "state UP/DOWN". Off
# and on once, then up to ENA_LINK_FLAPS (50) flaps in a row (at least 10,
# none added after ENA_LINK_BUDGET_S (60) seconds; ENA_TEST_LONG=1: all),
# an administrative down and up, and traffic still passes afterwards.
# Then opens against slow admin completions: out of order (latency plus
# jitter), where our driver sends the CREATE commands of all its queues
# together (the model counts the most it held at once), and against a device
# that works on one admin command at a time (admin-parallel=1).
. "$(dirname "$0")/ena_lib.sh"
flaps=${ENA_LINK_FLAPS:-50}

cleanup() { pair_teardown; ena_unload 2>/dev/null; }
trap cleanup EXIT

# ip_state IFACE WANT: `ip link` prints "state WANT" for IFACE
ip_state() {
	local l
	l=$(ip -o link show dev "$1") || return 1
	[[ $l == *" state $2 "* ]] && return 0
	echo "ip link: ${l#*: }"
	return 1
}
link_is() { # IFACE up|down
	link_wait "$1" "$2" 10 &&
		ip_state "$1" "${2^^}"
}

ktap_header 11
d0=$(dmesg_lines)
ena_load && ena_wait_ifaces 2 && pair_setup || ktap_diag "setup failed"
ktap_check "link up: carrier, operstate up, ip link state UP" link_is "$A" up
set_link() { "$QMP" set_link ena0 "$1" && link_is "$A" "$2"; }
ktap_check "set_link off: carrier drops, operstate down, ip link state DOWN" set_link off down
ktap_check "set_link on: carrier returns, operstate up, ip link state UP" set_link on up
flap() {
	local i
	budget_start "${ENA_LINK_BUDGET_S:-10}"
	for ((i = 0; i < flaps; i++)); do
		budget_more "$i" 5 || break
		"$QMP" set_link ena0 off && wait_no_carrier "$A" 10 || { echo "flap $i: link stayed up"; return 1; }
		"$QMP" set_link ena0 on && wait_carrier "$A" 10 || { echo "flap $i: link stayed down"; return 1; }
	done
	echo "$i of $flaps flaps: $(budget_why "$i" "$flaps")"
}
ktap_check "flaps: carrier and operstate follow each" flap
admin_cycle() {
	ip link set "$A" down && wait_no_carrier "$A" 10 && ip_state "$A" DOWN &&
		ip link set "$A" up && link_is "$A" up
}
ktap_check "ip link set down: operstate down; up again: operstate up" admin_cycle
ktap_check "traffic passes after the flaps" ping_ok 5

# reopen IFACE; prints how long `ip link set up` took
reopen() {
	local t0 t1
	ip link set "$A" down && wait_no_carrier "$A" 10 || return 1
	t0=${EPOCHREALTIME/./}
	ip link set "$A" up || return 1
	t1=${EPOCHREALTIME/./}
	link_is "$A" up && ping_ok 3 || { echo "no traffic after the open"; return 1; }
	echo "ip link set up: $(((t1 - t0) / 1000)) ms"
}
nq=$(chan Current)
slow_open() {
	model_set ena0 stat-reset true >/dev/null &&
		model_set_many ena0 admin-latency-us 300 admin-jitter-us 600 >/dev/null ||
		return 1
	reopen || return 1
	inflight=$(model_get ena0 stat-admin-max-inflight)
	echo "$nq queue pairs; the device held at most $inflight admin commands at once"
}
ktap_check "open with slow admin completions out of order: link up, traffic passes" slow_open
pipelined() { # every CQ of the open went to the device together
	[ "${inflight:-0}" -ge $((2 * ${nq:-1})) ] ||
		{ echo "at most ${inflight:-?} admin commands at once, want >= $((2 * ${nq:-1})) (the CQs of $nq queue pairs)"; return 1; }
	echo "at most $inflight admin commands at once ($nq queue pairs)"
}
if is_ours; then
	ktap_check "open sends the CREATE_CQs of all queues together" pipelined
else
	ktap_skip "open sends the CREATE_CQs of all queues together" \
		"the in-tree driver waits for each admin command ($inflight at once)"
fi
serial_open() {
	model_set_many ena0 admin-parallel 1 admin-jitter-us 0 >/dev/null && reopen
}
ktap_check "a device that works on one admin command at a time: open works, traffic passes" serial_open
model_set_many ena0 admin-latency-us 0 admin-jitter-us 0 admin-parallel 0 >/dev/null
pair_teardown
ktap_check "rmmod ena" ena_unload
ktap_check "kernel log clean" dmesg_clean "$d0"
ktap_finish
