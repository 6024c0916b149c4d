#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Native XDP (ndo_bpf, ndo_xdp_xmit) as a user sees it, the in-tree driver
# being the reference. The guest has no clang, bpftool or libbpf: xdp_prog.py
# assembles five tiny programs (pass, drop, aborted, tx: swap the MACs and
# XDP_TX, redirect: the same swap and bpf_redirect to the interface itself,
# so frames leave through ndo_xdp_xmit), loads them with bpf(2) and attaches
# them in driver mode through rtnetlink, with the kernel's extack message.
#
# What the in-tree driver does and ours must do too:
# - an XDP program needs room for the XDP TX queues: with more than half the
#   maximum channels (`ethtool -l` "Pre-set maximums") the attach is refused
#   with a message, and nothing is attached; at half it is taken;
# - one frame must fit a page: with an MTU above PAGE_SIZE - 598 (3498 at 4
#   KiB pages: Ethernet header, FCS, VLAN tag, XDP headroom, skb_shared_info)
#   the attach is refused with an extack message; while a program is
#   attached, `ip -d link` shows maxmtu 3498 and MTU 4000 is refused; after
#   the detach the device's maximum is back;
# - each verdict is counted per RX queue in `ethtool -S`
#   (queue_<q>_rx_xdp_{pass,drop,tx,aborted,redirect,invalid}), the frames
#   the XDP TX queues send as queue_<N+q>_xdp_tx_cnt (N channels): pings
#   through "pass" grow xdp_pass; pings from the peer through "drop" and
#   "aborted" get no reply and grow xdp_drop, xdp_aborted; frames the peer
#   sends through "tx" and "redirect" come back to it (xdp_prog.py
#   echo-check on an AF_PACKET socket in the peer's netns: at least 90%,
#   unchanged but for the swapped MACs), growing xdp_tx and xdp_tx_cnt, or
#   xdp_redirect;
# - a replace needs no detach; after the detach traffic takes the stack's
#   path again (no verdict counted) and `xdp_prog.py query` says 0;
# - a program attached while the interface is down runs once it is up;
# - with a third device (--ena 3), a redirect into it: the frames come back
#   to the peer through it, counted by its XDP TX queues;
# - attach and detach, twice, under a TCP stream: the stream completes;
# - the XDP actions announced over netdev netlink (6.12): basic and
#   redirect, and ndo-xmit (a redirect target) only while attached.
#
# Multi-buffer XDP (ours; the in-tree driver refuses every program above
# MTU 3498): with both ends at MTU 9000 a program loaded with
# BPF_F_XDP_HAS_FRAGS is taken and maxmtu stays the device's, while one
# without it is refused with an extack message; 8000-byte pings through
# "pass" are answered and counted (queue_<q>_xdp_multibuf), frames whose
# first buffer the device cut to 8 bytes (model fault-rx-runt) are dropped
# and counted without a crash, 9000-byte
# frames come back through "tx" (a descriptor per buffer) and through
# "redirect" to itself (ndo_xdp_xmit of a frame with fragments; 6.1's
# core refuses to redirect such frames, a SKIP there), and
# "drop" drops jumbo pings; afterwards both ends are back at MTU 1500.
#
# Ours only (the in-tree driver differs by design; its numbers are printed
# and the case is a SKIP): attaching and detaching keep the carrier
# (carrier_changes unchanged; the in-tree driver restarts the interface),
# a replace restarts no queue (the sum of queue_<q>_starts unchanged;
# the in-tree driver has no such counter), and XDP runs with every channel
# when the device has an XDP TX queue for each (ours limits by the device's
# queues; the in-tree driver also by its own channel maximum, which follows
# the CPU count).
#
# The device under test offers 2 queues (model property max-queues) for
# the cases both drivers share, so that the limit is the same for both:
# with 2 channels the attach is refused, with 1 it is taken. The last
# cases load the driver again on the model's default 8 queues. The test
# runs at MTU 1500. The peer keeps a permanent neighbour entry for
# 10.77.0.1, so that pings from it are sent as ICMP whatever the program
# does to ARP: 3 pings mean 3 frames for the drop and aborted counters.
# ENA_XDP_ECHO_FRAMES (100) frames per echo check. The test ends with the
# channel count and MTU it found, no program attached, the module unloaded
# and a clean kernel log; a device with a single channel skips every case
# that needs a program.
. "$(dirname "$0")/ena_lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
ECHO_N=${ENA_XDP_ECHO_FRAMES:-100}
MTU=1500
CH0='' CMAX='' HALF='' MTU0='' MAXMTU0='' MAC_A='' NOXDP='' CC0='' CC1='' REPLACED=0
QMAX0='' QTEST=2 FEAT_ON='' FEAT_OFF='' C=''

xp() { python3 -S "$here/xdp_prog.py" "$@"; }
peer() { ip netns exec ena-peer "$@"; }

cleanup() {
	[ -f /tmp/ena-xdp-iperf.pid ] && kill "$(cat /tmp/ena-xdp-iperf.pid)" 2>/dev/null
	rm -f /tmp/ena-xdp-iperf.pid
	if [ -n "${A:-}" ] && [ -e "/sys/class/net/$A" ]; then
		xp detach "$A" >/dev/null 2>&1
		[ -n "$MTU0" ] && ip link set "$A" mtu "$MTU0" 2>/dev/null
		[ -n "$CH0" ] && [ "$(chan Current)" != "$CH0" ] &&
			ethtool -L "$A" combined "$CH0" 2>/dev/null
	fi
	pair_teardown
	ena_unload 2>/dev/null
	model_set_many ena0 fault-status-after 0 fault-status-times 0 \
		fault-status-opcode -1 >/dev/null 2>&1
	[ -n "$QMAX0" ] && model_set ena0 max-queues "$QMAX0"
}
trap cleanup EXIT

# --- what the interface shows ------------------------------------------------

V_NAMES=(pass drop tx aborted redirect invalid xdp_tx_cnt starts)
# counts: the V_NAMES counters of $A from one ethtool -S: each verdict summed
# over the RX queues, the XDP TX queues' packets, the queue starts (ours)
counts() {
	ethtool -S "$A" | awk '
		{ k = $1; sub(/:$/, "", k) }
		k ~ /^queue_[0-9]+_rx_xdp_[a-z]+$/ { sub(/^queue_[0-9]+_rx_xdp_/, "", k); c[k] += $2 }
		k ~ /^queue_[0-9]+_xdp_tx_cnt$/ { c["xdp_tx_cnt"] += $2 }
		k ~ /^queue_[0-9]+_starts$/ { c["starts"] += $2 }
		END { print c["pass"] + 0, c["drop"] + 0, c["tx"] + 0, c["aborted"] + 0,
			c["redirect"] + 0, c["invalid"] + 0, c["xdp_tx_cnt"] + 0, c["starts"] + 0 }'
}
# snap ARRAY: the counters now
snap() { local -n _s=$1; read -r -a _s < <(counts); }
# d NAME: the growth of counter NAME from snapshot S0 to S1
d() {
	local i
	for i in "${!V_NAMES[@]}"; do
		[ "${V_NAMES[i]}" = "$1" ] && { echo $(( ${S1[i]:-0} - ${S0[i]:-0} )); return; }
	done
	echo 0
}
deltas() {
	local i out=
	for i in "${!V_NAMES[@]}"; do out+=" ${V_NAMES[i]} +$(( ${S1[i]:-0} - ${S0[i]:-0} ))"; done
	echo "counters grew:$out"
}
cc() { cat "/sys/class/net/$A/carrier_changes"; }
maxmtu() { ip -d link show "$A" | sed -n 's/.* maxmtu \([0-9]*\).*/\1/p'; }
prog_id() { xp query "$A"; }
# feats: the XDP actions $A announces (netdev netlink dev-get), one line,
# "-" when the kernel has no netdev family (6.1)
feats() {
	local j
	j=$(python3 -S "$here/ena_nl.py" netdev dev-get \
		--ifindex "$(cat "/sys/class/net/$A/ifindex")" 2>/dev/null) || { echo -; return; }
	python3 -S -c 'import json,sys; o=json.load(sys.stdin); print(" ".join(o[0].get("xdp-features", [])) if o else "?")' <<< "$j"
}
# replies N [NS DST]: how many of N IPv4 pings (from here to the peer, or
# from netns NS to DST) were answered
replies() {
	local n
	n=$(nsx "${2:-}" ping -q -c "$1" -i 0.2 -W 1 "${3:-10.77.0.2}" 2>/dev/null |
		sed -n 's/.* \([0-9]\+\) received.*/\1/p')
	echo "${n:-0}"
}
peer_replies() { replies "$1" ena-peer 10.77.0.1; }
# set_channels N: N combined channels, link up again
set_channels() {
	[ "$(chan Current)" = "$1" ] && return 0
	ethtool -L "$A" combined "$1" && wait_carrier "$A"
}

# xcheck NAME CMD...: a case that needs an attachable program; a SKIP when
# the device cannot have one ($NOXDP says why)
xcheck() {
	if [ -n "$NOXDP" ]; then ktap_skip "$1" "$NOXDP"; else ktap_check "$@"; fi
}
# mtu_case NAME CMD...: a case that needs MTU 4000 from the device
mtu_case() {
	if [ -z "$NOXDP" ] && [ "${MAXMTU0:-0}" -lt 4000 ]; then
		ktap_skip "$1" "the device's max MTU is $MAXMTU0"
	else
		xcheck "$@"
	fi
}
# ours_only NAME WHY CMD...: a case where the in-tree driver differs by
# design (WHY): for it the check runs for its diagnostics and is a SKIP
ours_only() {
	local name=$1 why=$2; shift 2
	if [ -n "$NOXDP" ]; then ktap_skip "$name" "$NOXDP"; return; fi
	if is_ours; then ktap_check "$name" "$@"; return; fi
	ktap_run "$@" && ktap_diag "(the in-tree driver held it this time)"
	ktap_skip "$name" "ours only: $why"
}

# --- the cases -----------------------------------------------------------------

# setup: the pair at MTU $MTU (the XDP bound needs it below 3498), our
# device offering $QTEST queues
setup() {
	QMAX0=$(model_get ena0 max-queues) || return 1
	model_set ena0 max-queues "$QTEST" || return 1
	ena_load && ena_wait_ifaces || return 1
	C=$(ena_ifaces | sed -n 3p)	# before pair_setup moves the second away
	pair_setup || return 1
	MTU0=$(cat "/sys/class/net/$A/mtu")
	[ "$MTU0" = "$MTU" ] || ip link set "$A" mtu "$MTU" || return 1
	wait_carrier "$A" && wait_carrier "$B" 15 ena-peer && ping_ok || return 1
	MAC_A=$(cat "/sys/class/net/$A/address")
	peer ip neigh replace 10.77.0.1 lladdr "$MAC_A" dev "$B" nud permanent
}

# attach_refused WHY: an attach of "pass" fails with a message, leaves
# nothing attached and traffic passing (REQUIRE_EXTACK=1: the kernel's
# extack message is required)
attach_refused() {
	local out rc
	out=$(xp attach "$A" pass 2>&1); rc=$?
	echo "$1: attach exit $rc: ${out//$'\n'/ | }"
	if [ "$rc" = 0 ]; then
		xp detach "$A"
		echo "the attach was taken"; return 1
	fi
	if [[ $out != *"extack:"* ]]; then
		echo "no extack message from the kernel"
		[ "${REQUIRE_EXTACK:-0}" = 1 ] && return 1
	fi
	[ "$(prog_id)" = 0 ] || { echo "a program is attached after the refusal"; return 1; }
	ping_ok || { echo "no ping after the refusal"; return 1; }
}

chan_refused() {
	set_channels "$CMAX" || return 1
	REQUIRE_EXTACK=0 attach_refused "$(chan Current) of $CMAX channels"
}

chan_half() {
	set_channels "$HALF" || return 1
	echo "channels: $(chan Current) of $CMAX"
	[ "$(chan Current)" = "$HALF" ] && ping_ok
}

mtu_refused() {
	local rc
	ip link set "$A" mtu 4000 || return 1
	REQUIRE_EXTACK=1 attach_refused "MTU 4000 (XDP bound $XDP_MTU)"; rc=$?
	ip link set "$A" mtu "$MTU" && wait_carrier "$A" && ping_ok || return 1
	return "$rc"
}

attach_pass() {
	local id n np
	CC0=$(cc) CC1=''
	xp attach "$A" pass && wait_carrier "$A" || return 1
	id=$(prog_id)
	snap S0; n=$(replies 5); np=$(peer_replies 3); snap S1
	CC1=$(cc) FEAT_ON=$(feats)
	deltas
	echo "native prog id $id; $n of 5 pings answered, $np of 3 from the peer"
	[ "${id:-0}" != 0 ] && [ "$n" -ge 1 ] && [ "$np" -ge 1 ] || return 1
	[ "$(d pass)" -ge $((n + np)) ] || { echo "xdp_pass grew less than the replies"; return 1; }
}

# carrier_kept WHAT: carrier_changes CC0 -> CC1 unchanged
carrier_kept() {
	[ -n "$CC1" ] || { echo "no reading: the $1 failed"; return 1; }
	echo "carrier_changes across $1: $CC0 -> $CC1"
	[ "$CC0" = "$CC1" ]
}

mtu_attached() {
	local m out
	m=$(maxmtu)
	echo "maxmtu with a program: $m (expected $XDP_MTU; without one $MAXMTU0)"
	[ "$m" = "$XDP_MTU" ] || return 1
	if out=$(ip link set "$A" mtu 4000 2>&1); then
		echo "MTU 4000 taken with a program attached"
		ip link set "$A" mtu "$MTU"; return 1
	fi
	echo "MTU 4000 refused: $out"
	[ "$(cat "/sys/class/net/$A/mtu")" = "$MTU" ] && ping_ok
}

replace_drop() {
	local n id0 id1
	id0=$(prog_id)
	snap S0; CC0=$(cc) CC1=''
	xp attach "$A" drop || return 1
	REPLACED=1
	n=$(peer_replies 3)
	snap S1; CC1=$(cc)
	id1=$(prog_id)
	deltas
	echo "prog id $id0 -> $id1; $n of 3 pings from the peer answered"
	[ "${id1:-0}" != 0 ] && [ "$id1" != "$id0" ] && [ "$n" = 0 ] && [ "$(d drop)" -ge 3 ]
}

# after replace_drop: no queue started, carrier kept
no_restart() {
	[ "$REPLACED" = 1 ] || { echo "no reading: the replace failed"; return 1; }
	echo "queue starts (sum) grew by $(d starts); carrier_changes $CC0 -> $CC1"
	[ "$(d starts)" = 0 ] && [ "$CC0" = "$CC1" ]
}

aborted() {
	local n
	snap S0
	xp attach "$A" aborted || return 1
	n=$(peer_replies 3)
	snap S1
	deltas
	echo "$n of 3 pings from the peer answered"
	[ "$n" = 0 ] && [ "$(d aborted)" -ge 3 ]
}

# echo_case PROG COUNTER: the peer's frames come back through PROG, which
# counts them as COUNTER
echo_case() {
	local rc want=$((ECHO_N * 9 / 10))
	xp attach "$A" "$1" || return 1
	snap S0
	peer python3 -S "$here/xdp_prog.py" echo-check "$B" "$MAC_A" "$ECHO_N"; rc=$?
	snap S1
	deltas
	[ "$rc" = 0 ] || return 1
	[ "$(d "$2")" -ge "$want" ] || { echo "xdp_$2 grew less than $want"; return 1; }
	if [ "$1" = tx ] && [ "$(d xdp_tx_cnt)" -lt "$want" ]; then
		echo "the XDP TX queues sent fewer than $want (queue_<n>_xdp_tx_cnt)"; return 1
	fi
}

# xdp_tx_sum IFACE: frames IFACE's XDP TX queues sent
xdp_tx_sum() {
	ethtool -S "$1" | awk '$1 ~ /^queue_[0-9]+_xdp_tx_cnt:$/ {n += $2} END {print n + 0}'
}

# redirect into our other device: $C (up, one channel, "pass" attached so
# that it has XDP TX queues) sends the frames $A's program redirects to it
# (only frames to $A's MAC: on the model's hub $A sees $C's frames too)
redirect_other() {
	local rc want=$((ECHO_N * 9 / 10)) c0 c1
	ip link set "$C" up && wait_carrier "$C" || return 1
	if [ "$(ethtool -l "$C" | awk '$1 == "Combined:" {n = $2} END {print n}')" != 1 ]; then
		ethtool -L "$C" combined 1 && wait_carrier "$C" || return 1
	fi
	xp attach "$C" pass || return 1
	xp attach "$A" redirect --ifindex-target "$(cat "/sys/class/net/$C/ifindex")" \
		--only-to "$MAC_A" || return 1
	c0=$(xdp_tx_sum "$C")
	snap S0
	peer python3 -S "$here/xdp_prog.py" echo-check "$B" "$MAC_A" "$ECHO_N"; rc=$?
	snap S1
	c1=$(xdp_tx_sum "$C")
	deltas
	echo "$C's XDP TX queues sent $((c1 - c0))"
	xp detach "$A" && xp detach "$C" && ip link set "$C" down || return 1
	[ "$rc" = 0 ] || return 1
	[ "$(d redirect)" -ge "$want" ] || { echo "xdp_redirect grew less than $want"; return 1; }
	[ $((c1 - c0)) -ge "$want" ] || { echo "$C sent fewer than $want"; return 1; }
}

detach() {
	local id m n np
	CC0=$(cc) CC1=''
	xp detach "$A" && wait_carrier "$A" || return 1
	id=$(prog_id) m=$(maxmtu)
	snap S0; n=$(replies 5); np=$(peer_replies 3); snap S1
	CC1=$(cc) FEAT_OFF=$(feats)
	deltas
	echo "after the detach: prog id $id, maxmtu $m (before: $MAXMTU0);" \
		"$n of 5 pings answered, $np of 3 from the peer"
	[ "$id" = 0 ] && [ "$n" -ge 1 ] && [ "$np" -ge 1 ] || return 1
	[ "$m" = "$MAXMTU0" ] || { echo "maxmtu not restored"; return 1; }
	[ "$(d pass)" = 0 ] || { echo "XDP verdicts counted with no program"; return 1; }
}

down_attach_up() {
	local id n
	ip link set "$A" down && wait_no_carrier "$A" || return 1
	xp attach "$A" pass || { ip link set "$A" up; return 1; }
	ip link set "$A" up && wait_carrier "$A" || return 1
	id=$(prog_id)
	snap S0; n=$(replies 5); snap S1
	deltas
	echo "attached while down: prog id $id; up: $n of 5 pings answered"
	[ "${id:-0}" != 0 ] && [ "$n" -ge 1 ] && [ "$(d pass)" -ge "$n" ] || return 1
	xp detach "$A" && wait_carrier "$A" && [ "$(prog_id)" = 0 ] && ping_ok
}

# ours: on the model's default queue count every channel keeps an XDP TX
# queue; the attach is taken at the channel maximum and passes traffic
full_channels() {
	local cmax n
	pair_teardown
	ena_unload || return 1
	model_set ena0 max-queues "$QMAX0" || return 1
	ena_load && ena_wait_ifaces && pair_setup || return 1
	wait_carrier "$A" && wait_carrier "$B" 15 ena-peer || return 1
	cmax=$(chan Pre-set)
	set_channels "$cmax" || return 1
	echo "device queues $QMAX0, channels $(chan Current) of $cmax"
	xp attach "$A" pass && wait_carrier "$A" || return 1
	snap S0; n=$(replies 5); snap S1
	deltas
	echo "$n of 5 pings answered"
	xp detach "$A" && wait_carrier "$A" || return 1
	[ "$n" -ge 1 ] && [ "$(d pass)" -ge "$n" ]
}

# a TCP stream from the peer while "pass" is attached, detached, attached
# and detached again: the stream ends well (iperf3 exit 0) and the carrier
# never dropped and the ring memory is back to what it was (ours; the
# in-tree driver restarts the interface each time: its numbers are
# printed). The iperf3 server lives only as long as
# the check (it would hold ktap_run's pipe open).
under_load() {
	local rc cc0 cc1 out rb0 rb1
	rb0=$(eth_stat "$A" ring_bytes)
	iperf3 -s -D -B 10.77.0.1 --pidfile /tmp/ena-xdp-iperf.pid > /dev/null 2>&1 || return 1
	sleep 0.5
	cc0=$(cc)
	peer iperf3 -c 10.77.0.1 -t 8 > /tmp/ena-xdp-iperf.out 2>&1 &
	local pid=$!
	sleep 1.5
	xp attach "$A" pass && sleep 1.5 && xp detach "$A" && sleep 1 &&
		xp attach "$A" pass && sleep 1 && xp detach "$A"; rc=$?
	wait "$pid" || rc=1
	cc1=$(cc)
	kill "$(cat /tmp/ena-xdp-iperf.pid)"; rm -f /tmp/ena-xdp-iperf.pid
	out=$(grep -E "receiver|error" /tmp/ena-xdp-iperf.out); rm -f /tmp/ena-xdp-iperf.out
	rb1=$(eth_stat "$A" ring_bytes)
	echo "iperf3: ${out:-no result}; carrier_changes $cc0 -> $cc1"
	[ "$rc" = 0 ] && [[ $out == *receiver* ]] || return 1
	wait_carrier "$A" && ping_ok || return 1
	is_ours || return 0
	echo "ring_bytes before $rb0, after $rb1 (ours: the XDP TX rings are gone again)"
	[ "$cc0" = "$cc1" ] && [ -n "$rb0" ] && [ "$rb0" = "$rb1" ]
}

# the XDP actions announced: basic and redirect with a channel count XDP
# takes, ndo-xmit (redirect target) only while a program is attached
features() {
	echo "xdp-features attached: '$FEAT_ON'; detached: '$FEAT_OFF'"
	[[ " $FEAT_ON " == *" basic "* && " $FEAT_ON " == *" redirect "* &&
		" $FEAT_ON " == *" ndo-xmit "* ]] || return 1
	[[ " $FEAT_OFF " == *" basic "* && " $FEAT_OFF " == *" redirect "* &&
		" $FEAT_OFF " != *" ndo-xmit "* ]] || return 1
	is_ours || return 0
	# ours: multi-buffer RX always, multi-buffer ndo_xdp_xmit while attached
	[[ " $FEAT_ON " == *" rx-sg "* && " $FEAT_ON " == *" ndo-xmit-sg "* &&
		" $FEAT_OFF " == *" rx-sg "* && " $FEAT_OFF " != *" ndo-xmit-sg "* ]] ||
		{ echo "ours: rx-sg, or ndo-xmit-sg while attached, missing"; return 1; }
}

# ours, after full_channels (2 channels): the attach rebuilds queue 0 (its
# TX, RX and XDP TX SQs are created) and then fails on queue 1's TX SQ
# (model fault): the attach is refused, queue 0 goes back to its old rings,
# no program is attached, traffic passes with no verdict counted and the
# carrier stayed; a retry works
attach_rollback() {
	local out rc cc0
	[ "$(chan Current)" = 2 ] || { echo "needs 2 channels, $(chan Current) set"; return 1; }
	cc0=$(cc)
	model_set_many ena0 fault-status-after 3 fault-status-times 1 fault-status-opcode 1
	out=$(xp attach "$A" pass 2>&1); rc=$?
	model_set_many ena0 fault-status-after 0 fault-status-times 0 fault-status-opcode -1
	echo "attach with CREATE_SQ failing on queue 1: exit $rc: ${out//$'\n'/ | }"
	[ "$rc" != 0 ] || { echo "the attach was taken"; return 1; }
	[ "$(prog_id)" = 0 ] || { echo "a program is attached after the failure"; return 1; }
	snap S0; ping_ok || { echo "no traffic after the failed attach"; return 1; }; snap S1
	deltas
	[ "$(d pass)" = 0 ] || { echo "verdicts counted: a queue kept the XDP rings"; return 1; }
	echo "carrier_changes $cc0 -> $(cc)"
	[ "$(cc)" = "$cc0" ] || return 1
	xp attach "$A" pass && wait_carrier "$A" || return 1
	snap S0; ping_ok || return 1; snap S1
	deltas
	xp detach "$A" && wait_carrier "$A" && [ "$(d pass)" -ge 3 ]
}

# --- multi-buffer XDP (ours): programs loaded with BPF_F_XDP_HAS_FRAGS ------

JUMBO=9000 MB_ON=0 MB_RB0=''

# both ends at MTU $JUMBO with a multi-buffer "pass": taken (maxmtu stays
# the device's); a program without multi-buffer support is then refused
# with an extack message and the first stays attached
mb_attach() {
	local out rc id0
	MB_RB0=$(eth_stat "$A" ring_bytes)
	ip link set "$A" mtu "$JUMBO" && peer ip link set "$B" mtu "$JUMBO" || return 1
	MB_ON=1
	wait_carrier "$A" && ping_ok || return 1
	xp attach "$A" pass --frags && wait_carrier "$A" || return 1
	id0=$(prog_id)
	out=$(xp attach "$A" drop 2>&1); rc=$?
	echo "MTU $(cat "/sys/class/net/$A/mtu"), maxmtu $(maxmtu) (device $MAXMTU0);" \
		"multi-buffer pass: prog id $id0; single-buffer drop: exit $rc: ${out//$'\n'/ | }"
	[ "${id0:-0}" != 0 ] && [ "$(maxmtu)" = "$MAXMTU0" ] || return 1
	[ "$rc" != 0 ] && [[ $out == *"extack:"* ]] || { echo "the single-buffer program was not refused with a message"; return 1; }
	[ "$(prog_id)" = "$id0" ] || { echo "the multi-buffer program is gone"; return 1; }
}

# multi-buffer counter of $A (summed over the RX queues)
mb_count() {
	ethtool -S "$A" | awk '$1 ~ /^queue_[0-9]+_xdp_multibuf:$/ {n += $2} END {print n + 0}'
}

# jumbo pings from the peer (8000 bytes of ICMP payload: three buffers)
# through the multi-buffer "pass": answered, each counted as a passed
# multi-buffer frame
mb_pass() {
	local n m0 m1
	[ "$MB_ON" = 1 ] && [ "$(prog_id)" != 0 ] || { echo "no reading: the attach failed"; return 1; }
	m0=$(mb_count); snap S0
	n=$(nsx ena-peer ping -q -c 3 -i 0.2 -W 2 -s 8000 -M do 10.77.0.1 2>/dev/null |
		sed -n 's/.* \([0-9]\+\) received.*/\1/p')
	snap S1; m1=$(mb_count)
	deltas
	echo "${n:-0} of 3 jumbo pings from the peer answered; multi-buffer frames +$((m1 - m0))"
	[ "${n:-0}" -ge 1 ] && [ "$(d pass)" -ge "$n" ] && [ $((m1 - m0)) -ge "$n" ]
}

# untrusted device input: frames whose first buffer holds 8 bytes (model
# fault-rx-runt: the Ethernet header split over buffers) reach the
# multi-buffer "pass" as multi-buffer frames; they are dropped and counted
# (rx_dropped), nothing crashes, and traffic passes afterwards
mb_runt() {
	local d0 d1 left n
	[ "$MB_ON" = 1 ] && [ "$(prog_id)" != 0 ] || { echo "no reading: the attach failed"; return 1; }
	d0=$(cat "/sys/class/net/$A/statistics/rx_dropped")
	model_set ena0 fault-rx-runt 3 || return 1
	n=$(peer_replies 3)
	left=$(model_get ena0 fault-rx-runt)
	model_set ena0 fault-rx-runt 0
	d1=$(cat "/sys/class/net/$A/statistics/rx_dropped")
	echo "runt frames sent $((3 - left)), rx_dropped +$((d1 - d0)), $n of 3 pings answered"
	[ "$left" -lt 3 ] || { echo "no frame reached the device"; return 1; }
	[ $((d1 - d0)) -ge $((3 - left)) ] || return 1
	ping_ok || { echo "no ping after the runt frames"; return 1; }
}

# $ECHO_N frames of $JUMBO bytes from the peer come back through the
# multi-buffer PROG (tx: XDP_TX, a descriptor per buffer; redirect: to
# itself through ndo_xdp_xmit), counted as COUNTER
mb_echo() {
	local rc want=$((ECHO_N * 9 / 10)) m0 m1
	[ "$MB_ON" = 1 ] || { echo "no reading: the attach failed"; return 1; }
	xp attach "$A" "$1" --frags || return 1
	m0=$(mb_count); snap S0
	peer python3 -S "$here/xdp_prog.py" echo-check "$B" "$MAC_A" "$ECHO_N" --size "$JUMBO"; rc=$?
	snap S1; m1=$(mb_count)
	deltas
	echo "multi-buffer frames +$((m1 - m0))"
	[ "$rc" = 0 ] || return 1
	[ "$(d "$2")" -ge "$want" ] && [ $((m1 - m0)) -ge "$want" ] ||
		{ echo "xdp_$2 or xdp_multibuf grew less than $want"; return 1; }
}

# the multi-buffer "drop": jumbo pings unanswered, xdp_drop grows
mb_drop() {
	local n m0 m1
	[ "$MB_ON" = 1 ] || { echo "no reading: the attach failed"; return 1; }
	xp attach "$A" drop --frags || return 1
	m0=$(mb_count); snap S0
	n=$(nsx ena-peer ping -q -c 3 -i 0.2 -W 1 -s 8000 10.77.0.1 2>/dev/null |
		sed -n 's/.* \([0-9]\+\) received.*/\1/p')
	snap S1; m1=$(mb_count)
	deltas
	echo "${n:-0} of 3 jumbo pings from the peer answered through drop; multi-buffer frames +$((m1 - m0))"
	[ "${n:-0}" = 0 ] && [ "$(d drop)" -ge 3 ] && [ $((m1 - m0)) -ge 3 ]
}

# detach, both ends back to MTU $MTU, ping (whatever the cases above did);
# ours: the ring memory is what it was before the multi-buffer cases
mb_restore() {
	local rc=0 rb
	xp detach "$A" >/dev/null && wait_carrier "$A" || rc=1
	ip link set "$A" mtu "$MTU" || rc=1
	peer ip link set "$B" mtu "$MTU" || rc=1
	MB_ON=0
	wait_carrier "$A" && wait_carrier "$B" 15 ena-peer && ping_ok || rc=1
	rb=$(eth_stat "$A" ring_bytes)
	echo "prog id $(prog_id), MTU $(cat "/sys/class/net/$A/mtu"); ring_bytes ${MB_RB0:-?} -> ${rb:-?}"
	[ "$(prog_id)" = 0 ] || rc=1
	if is_ours && [ "$rb" != "$MB_RB0" ]; then
		echo "ring_bytes not back"; rc=1
	fi
	return "$rc"
}

chan_restore() {
	set_channels "$CH0" || return 1
	[ "$MTU0" = "$MTU" ] || ip link set "$A" mtu "$MTU0" || return 1
	echo "channels: $(chan Current) (found $CH0), MTU $(cat "/sys/class/net/$A/mtu");" \
		"prog id $(prog_id)"
	[ "$(chan Current)" = "$CH0" ] && ping_ok
}

# --- the run ---------------------------------------------------------------------

ktap_header 30
d0=$(dmesg_lines)
ktap_diag "driver: $ENA_DRIVER, kernel $(uname -r)"
if ktap_run setup; then
	ktap_pass "load, pair, ping"
else
	ktap_fail "load, pair, ping"
	ktap_finish
fi
CH0=$(chan Current) CMAX=$(chan Pre-set) MAXMTU0=$(maxmtu)
HALF=$(( CMAX / 2 > 0 ? CMAX / 2 : 1 ))
XDP_MTU=$(( $(getconf PAGESIZE) - 14 - 4 - 4 - 256 - 320 ))
ktap_diag "$A: channels $CH0 of $CMAX (XDP: at most $HALF), MTU $MTU (found $MTU0," \
	"max ${MAXMTU0:-?}; with XDP $XDP_MTU), page size $(getconf PAGESIZE)"
[ $((HALF * 2)) -le "$CMAX" ] ||
	NOXDP="the device offers $CMAX channel(s): XDP needs at most half of them"

if [ "$CMAX" -ge 2 ]; then
	ktap_check "attach refused with more than half the maximum channels" chan_refused
else
	ktap_skip "attach refused with more than half the maximum channels" \
		"the device offers $CMAX channel(s): no count above half"
fi
xcheck "ethtool -L combined $HALF (half the maximum)" chan_half
mtu_case "attach refused with MTU 4000, extack message" mtu_refused
xcheck "pass: attached, pings both ways grow xdp_pass" attach_pass
ours_only "pass: the attach keeps the carrier" \
	"the in-tree driver restarts the interface on the first attach" carrier_kept attach
mtu_case "with a program: maxmtu $XDP_MTU, MTU 4000 refused" mtu_attached
xcheck "replace pass -> drop: the peer's pings get no reply, xdp_drop grows" replace_drop
ours_only "replace: no queue restarted (queue_<q>_starts, carrier_changes)" \
	"the in-tree driver has no queue_<q>_starts counter" no_restart
xcheck "aborted: the peer's pings get no reply, xdp_aborted grows" aborted
xcheck "tx: $ECHO_N frames from the peer come back (>= 90%), xdp_tx and xdp_tx_cnt grow" \
	echo_case tx tx
xcheck "redirect to itself: $ECHO_N frames from the peer come back (>= 90%), xdp_redirect grows" \
	echo_case redirect redirect
if [ -z "$C" ]; then
	ktap_skip "redirect into our other device: frames come back through it" \
		"no third ENA device (tools/testing/vm/run --ena 3)"
else
	xcheck "redirect into our other device: frames come back through it, its XDP TX counts them" \
		redirect_other
fi
xcheck "detach: query 0, maxmtu back, pings pass with no verdict counted" detach
ours_only "detach keeps the carrier" \
	"the in-tree driver restarts the interface on the detach" carrier_kept detach
if [ -z "$NOXDP" ] && [ "$(feats)" = - ]; then
	ktap_skip "xdp-features: basic, redirect; ndo-xmit while attached (ours: rx-sg, ndo-xmit-sg)" \
		"no netdev netlink family (6.1): nothing announces XDP features"
else
	xcheck "xdp-features: basic, redirect; ndo-xmit while attached (ours: rx-sg, ndo-xmit-sg)" features
fi
xcheck "attach while down, then up: pings grow xdp_pass; detach" down_attach_up
xcheck "attach/detach twice under a TCP stream: it completes (ours: carrier kept, ring bytes back)" \
	under_load
why="the in-tree driver takes no XDP program above MTU $XDP_MTU, multi-buffer or not"
# multi-buffer XDP (programs loaded with BPF_F_XDP_HAS_FRAGS) came in 5.18:
# before it the kernel refuses such a program, for any driver
NOMB=
[ -n "$NOXDP" ] || xp can-load --frags 2>/dev/null ||
	NOMB="this kernel has no multi-buffer XDP (BPF_F_XDP_HAS_FRAGS, 5.18): it refuses the program"
# mb_case NAME FN ARGS...: a multi-buffer case, ours only
mb_case() {
	if [ -n "$NOMB" ]; then ktap_skip "$1" "$NOMB"; else ours_only "$1" "$why" "${@:2}"; fi
}
mb_case "multi-buffer: a --frags program at MTU $JUMBO; a single-buffer one refused (extack)" mb_attach
mb_case "multi-buffer pass: jumbo pings from the peer answered, xdp_pass and xdp_multibuf grow" mb_pass
mb_case "multi-buffer pass: frames with an 8-byte first buffer dropped and counted, no crash" mb_runt
mb_case "multi-buffer tx: $ECHO_N frames of $JUMBO bytes come back (>= 90%)" mb_echo tx tx
t="multi-buffer redirect to itself (ndo_xdp_xmit): $ECHO_N frames of $JUMBO bytes come back"
if [ -z "$NOXDP" ] && [ -z "$NOMB" ] && [ "$(feats)" = - ]; then
	# 6.1's xdp_do_redirect() refuses frames with fragments (but to a
	# cpumap); 6.3 lets them go to a device announcing ndo-xmit-sg
	ktap_skip "$t" "this kernel (no netdev netlink family: before 6.3) refuses XDP_REDIRECT of multi-buffer frames"
else
	mb_case "$t" mb_echo redirect redirect
fi
mb_case "multi-buffer drop: jumbo pings unanswered, xdp_drop grows" mb_drop
if [ -n "$NOMB" ]; then
	ktap_skip "multi-buffer cases undone: no program, MTU $MTU on both ends, ping" "$NOMB"
else
	xcheck "multi-buffer cases undone: no program, MTU $MTU on both ends, ping" mb_restore
fi
ktap_check "channels and MTU back as found, no program, ping" chan_restore
ours_only "every channel with XDP on an 8-queue device" \
	"the in-tree driver allows half its channel maximum (CPU count)" full_channels
ours_only "attach failing on queue 1's CREATE_SQ keeps the old rings; a retry works" \
	"the in-tree driver allows one of 2 channels with XDP (needs 2 here)" attach_rollback
pair_teardown
ktap_check "rmmod ena" ena_unload
# The in-tree driver of 6.1 warns at rmmod after these cases (make
# test-long, stock on 6.1: "WARNING: ... ena_del_napi_in_range"): its
# known defect, an expected failure when that warning and its trace are
# all the log holds.
t="kernel log clean (no BUG/WARNING/Oops/leak)"
if ! is_ours && [[ $(uname -r) == 6.1.* ]] &&
	dmesg | tail -n +"$d0" | grep -q 'WARNING:.*ena_del_napi_in_range'; then
	if dmesg | tail -n +"$d0" | sed -n '/WARNING:.*ena_del_napi_in_range/,/end trace/!p' |
		grep -qE 'BUG|WARNING|Oops|leak|Call Trace'; then
		ktap_check "$t" dmesg_clean "$d0"
	else
		ktap_xfail "$t" "the in-tree driver of 6.1 warns in ena_del_napi_in_range() at rmmod after XDP use"
	fi
else
	ktap_check "$t" dmesg_clean "$d0"
fi
ktap_finish
