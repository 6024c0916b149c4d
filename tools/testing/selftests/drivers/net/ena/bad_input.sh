#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bad configuration input: channel counts 0 and beyond the maximum, ring
# sizes 0, beyond the maximum and not a power of two, MTU below the minimum
# and beyond the device maximum, an unknown private flag. Each request must
# be rejected with a message (ethtool/ip print the extack or the errno) and
# leave channels, rings and MTU as they were - or, where a driver rounds a
# value instead (the stock driver clamps ring sizes to 256..max and rounds
# them down to a power of two), land on a valid value, which is reported.
# After each request the interface still passes traffic.
. "$(dirname "$0")/ena_lib.sh"

cleanup() { pair_teardown; ena_unload 2>/dev/null; }
trap cleanup EXIT

state() { echo "combined $(chan Current) rx $(ring Current RX) tx $(ring Current TX) mtu $(cat /sys/class/net/$A/mtu)"; }
pow2() { [ "$1" -gt 0 ] && [ $(($1 & ($1 - 1))) = 0 ]; }

# bad NAME KIND REQ CMD...: run CMD; KIND says what rounding would be valid
# (ring:<rx|tx>:<requested> or none); two test cases: outcome, then ping
bad() {
	local name=$1 kind=$2 s0 s1 out rc what ok=1 f want
	shift 2
	s0=$(state)
	out=$("$@" 2>&1); rc=$?
	s1=$(state)
	[ -n "$out" ] && echo "$out" | sed 's/^/# /'
	if [ $rc != 0 ]; then
		what="rejected (rc $rc)"
		[ -n "$out" ] || { ktap_diag "no message"; ok=0; }
		[ "$s0" = "$s1" ] || { ktap_diag "state changed: $s0 -> $s1"; ok=0; }
	elif [ "$kind" = none ]; then
		what="ACCEPTED"
		ktap_diag "accepted, state $s0 -> $s1"
		ok=0
	else
		# ring:RX|TX:requested: the new size must be a power of two within
		# 256..max, at most the request unless the request was below 256
		local dir=${kind#ring:} req
		req=${dir#*:} dir=${dir%%:*}
		f=$(ring Current "$dir") want=$(ring Pre-set "$dir")
		what="rounded: $dir $req -> $f"
		pow2 "$f" && [ "$f" -ge 256 ] && [ "$f" -le "$want" ] || ok=0
		[ "$req" -lt 256 ] && [ "$f" != 256 ] && ok=0
		[ "$req" -ge 256 ] && [ "$f" -gt "$req" ] && ok=0
		ktap_diag "accepted without error, state $s0 -> $s1"
	fi
	if [ $ok = 1 ]; then ktap_pass "$name: $what"; else ktap_fail "$name: $what"; fi
	ktap_check "$name: traffic passes after" ping_ok
	# back to the starting state for the next case
	ethtool -G "$A" rx "$RX0" tx "$TX0" >/dev/null 2>&1
	ethtool -L "$A" combined "$C0" >/dev/null 2>&1
	ip link set "$A" mtu 1500
}

ktap_header 23
d0=$(dmesg_lines)
ktap_diag "driver: $ENA_DRIVER, kernel $(uname -r)"
setup() { ena_load && ena_wait_ifaces 2 && pair_setup && wait_carrier "$A" && ping_ok; }
if ! setup >/dev/null 2>&1; then
	ktap_fail "load, pair, ping"
	ktap_finish
fi
ktap_pass "load, pair, ping"
C0=$(chan Current) RX0=$(ring Current RX) TX0=$(ring Current TX)
CMAX=$(chan Pre-set) RXMAX=$(ring Pre-set RX) TXMAX=$(ring Pre-set TX)
MAXMTU=$(ip -d link show "$A" | sed -n 's/.* maxmtu \([0-9]*\).*/\1/p')
MINMTU=$(ip -d link show "$A" | sed -n 's/.* minmtu \([0-9]*\).*/\1/p')
ktap_diag "$(state); max combined $CMAX rx $RXMAX tx $TXMAX; mtu $MINMTU..$MAXMTU"

bad "ethtool -L combined 0" none ethtool -L "$A" combined 0
bad "ethtool -L combined $((CMAX + 1)) (max $CMAX)" none ethtool -L "$A" combined $((CMAX + 1))
bad "ethtool -G rx 0" ring:RX:0 ethtool -G "$A" rx 0
bad "ethtool -G tx 0" ring:TX:0 ethtool -G "$A" tx 0
bad "ethtool -G rx $((RXMAX * 2)) (max $RXMAX)" none ethtool -G "$A" rx $((RXMAX * 2))
bad "ethtool -G tx $((TXMAX + 1)) (max $TXMAX)" none ethtool -G "$A" tx $((TXMAX + 1))
bad "ethtool -G rx 1000 (not a power of 2)" ring:RX:1000 ethtool -G "$A" rx 1000
bad "ip link set mtu 67 (min $MINMTU)" none ip link set "$A" mtu 67
bad "ip link set mtu $((MAXMTU + 1)) (max $MAXMTU)" none ip link set "$A" mtu $((MAXMTU + 1))
bad "ethtool --set-priv-flags nosuchflag on" none ethtool --set-priv-flags "$A" nosuchflag on
# indir_queues: the queues the RSS indirection table names, sorted
indir_queues() {
	ethtool -x "$A" | awk '/^ *[0-9]+:/{for (i = 2; i <= NF; i++) print $i}' | sort -un | tr '\n' ' '
}
# a table the user set survives a channel change (IFF_RXFH_CONFIGURED)
rss_kept() {
	local q rc=0
	ethtool -L "$A" combined 1 && ethtool -X "$A" weight 1 && ethtool -L "$A" combined 2 || return 1
	q=$(indir_queues)
	echo "after -X weight 1 on one queue, then -L combined 2: table names queues $q"
	[ "$q" = "0 " ] || { echo "the user's table was replaced"; rc=1; }
	ethtool -X "$A" default; ethtool -L "$A" combined "$C0"
	q=$(indir_queues)
	echo "after -X default, -L combined $C0: queues $q"
	ping_ok || rc=1
	return $rc
}
if [ "$CMAX" -ge 2 ]; then
	ktap_check_xfail_stock "a user-set RSS table survives ethtool -L" \
		"the in-tree driver spreads the table over the new queues on -L (seen on 6.12)" rss_kept
else
	ktap_skip "a user-set RSS table survives ethtool -L" "one channel only"
fi
ktap_check "dmesg: no warning" dmesg_clean "$d0"
ktap_finish
