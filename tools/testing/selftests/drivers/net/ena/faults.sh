#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fault injection through the model's knobs. For each fault the driver must
# either recover (a device reset the model counts, then carrier and a ping
# within ENA_RECOVER_S seconds) or fail the one request cleanly and keep
# working; never oops, WARN, hang or leak.
# ENA_FAULTS selects a subset (names below); default: all.
. "$(dirname "$0")/ena_lib.sh"
recover_s=${ENA_RECOVER_S:-15}
all="keepalive drop delay status malformed-id stale-phase fatal rx-reqid rx-len tx-reqid"
faults=${ENA_FAULTS:-$all}

cleanup() {
	model_set ena0 keepalive-ms 1000 >/dev/null 2>&1
	model_set ena0 fault-status-opcode -1 >/dev/null 2>&1
	model_set ena0 fault-fatal false >/dev/null 2>&1
	pair_teardown
	ena_unload 2>/dev/null
}
trap cleanup EXIT

# recovered: ping passes within the limit (the link may bounce first)
recovered() {
	local i
	for ((i = 0; i < recover_s * 2; i++)); do
		ping -q -c 1 -W 1 10.77.0.2 >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	return 1
}
# resets_since N: the model saw more than N device resets
wait_reset() {
	local n0=$1 i
	for ((i = 0; i < recover_s * 4; i++)); do
		[ "$(model_get ena0 stat-resets)" -gt "$n0" ] && return 0
		sleep 0.25
	done
	return 1
}
# an admin command the driver sends while up: set the MTU (SET_FEATURE MTU)
admin_poke() { ip link set "$A" mtu "$1" 2>&1; }

ktap_header $(( $(echo $faults | wc -w) * 2 + 2 ))
d0=$(dmesg_lines)
ena_load && ena_wait_ifaces 2 && pair_setup && wait_carrier "$A" && wait_carrier "$B" 15 ena-peer
ktap_check "baseline: traffic passes" recovered

mtu=1500
for f in $faults; do
	r0=$(model_get ena0 stat-resets)
	l0=$(dmesg_lines)
	mtu=$(( mtu == 1500 ? 1400 : 1500 ))
	case $f in
	keepalive)
		model_set ena0 keepalive-ms 0
		ktap_check "$f: device reset after keep-alives stop" wait_reset "$r0"
		model_set ena0 keepalive-ms 1000;;
	drop)
		model_set ena0 fault-drop-next 1
		admin_poke $mtu >/dev/null
		ktap_check "$f: admin timeout leads to a reset" wait_reset "$r0";;
	delay)
		model_set ena0 fault-delay-next-ms 300
		ktap_check "$f: a 300 ms late completion is still served" admin_poke $mtu;;
	status)
		model_set ena0 fault-status-opcode 9
		out=$(admin_poke $mtu); rc=$?
		model_set ena0 fault-status-opcode -1
		[ $rc != 0 ] && ktap_pass "$f: failing SET_FEATURE is reported: ${out//$'\n'/ }" ||
			ktap_fail "$f: ip link set mtu succeeded despite an error status";;
	malformed-id|stale-phase)
		model_set ena0 fault-malformed $([ $f = malformed-id ] && echo 1 || echo 2)
		admin_poke $mtu >/dev/null
		ktap_check "$f: bad completion leads to a reset" wait_reset "$r0";;
	fatal)
		model_set ena0 fault-fatal true
		ktap_check "$f: fatal DEV_STS leads to a reset" wait_reset "$r0"
		model_set ena0 fault-fatal false;;
	rx-reqid|rx-len|tx-reqid)
		model_set ena0 "fault-$f" 1
		ping -q -c 3 -i 0.2 -W 1 10.77.0.2 >/dev/null 2>&1
		ip netns exec ena-peer ping -q -c 3 -i 0.2 -W 1 10.77.0.1 >/dev/null 2>&1
		ktap_check "$f: bad IO completion leads to a reset" wait_reset "$r0";;
	esac
	ktap_check "$f: traffic passes within ${recover_s}s" recovered
	dmesg | tail -n +"$l0" | grep -iE 'ena|reset|timeout' | head -4 | sed 's/^/#   /'
done
pair_teardown
ena_unload
ktap_check "kernel log clean, module unloaded" dmesg_clean "$d0"
ktap_finish
