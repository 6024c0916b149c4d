#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Receive side scaling against the model: TCP streams from the first
# interface to the second (in netns ena-peer) spread over more than one RX
# queue of the receiver with the default indirection table; a table that
# names one queue (ethtool -X weight) sends every stream to that queue, for
# each queue in turn; ethtool -X default spreads them again. The receiver's
# per-queue packet counts are the in-tree ethtool -S names
# (queue_<n>_rx_cnt), so the same test runs for both drivers.
#
# The hash key and function: a key set with ethtool -X hkey is the one
# ethtool -x reports, and UDP flows land on the queue its Toeplitz hash and
# the table say (rss_flows.py computes it); hfunc crc32 is taken and shown,
# hfunc xor refused (the device offers Toeplitz and CRC32), and after
# hfunc toeplitz and a down/up the key still steers as predicted.
#
# The hash fields (ethtool -N rx-flow-hash): udp4 "sd" is what ethtool -n
# then shows, and every UDP flow, whatever its ports, lands on the queue the
# hash of the addresses alone says; a field the device does not hash (the
# L3 protocol) is refused; udp4 "sdfn" spreads the flows as before.
#
# Each round sends ENA_RSS_FLOWS (16) connections of 256 KiB. The rounds that
# steer to one queue are bounded by count (every queue, at most 8) and time
# (at least 2, none added after ENA_RSS_BUDGET_S (60) seconds);
# ENA_TEST_LONG=1 runs all.
. "$(dirname "$0")/ena_lib.sh"
flows=${ENA_RSS_FLOWS:-16}
budget=${ENA_RSS_BUDGET_S:-60}
port=5201
SRV=

cleanup() {
	[ -n "$SRV" ] && kill "$SRV" 2>/dev/null
	pair_teardown
	ena_unload 2>/dev/null
}
trap cleanup EXIT

peer() { ip netns exec ena-peer "$@"; }
# rx_counts: the receiver's queue_<n>_rx_cnt, one per line, queue order
rx_counts() {
	peer ethtool -S "$B" | awk '$1 ~ /^queue_[0-9]+_rx_cnt:$/ {
		q = $1; sub(/^queue_/, "", q); sub(/_rx_cnt:$/, "", q); c[q + 0] = $2; if (q + 1 > n) n = q + 1 }
		END { for (q = 0; q < n; q++) print c[q] + 0 }'
}
# send_flows: $flows connections from here to the listener, 256 KiB each;
# sets DELTA to the packets each receiver queue got meanwhile
send_flows() {
	local before after i
	mapfile -t before < <(rx_counts)
	for ((i = 0; i < flows; i++)); do
		head -c 256K /dev/zero | timeout 60 socat -u STDIN "TCP:10.77.0.2:$port" &
	done
	wait_clients || return 1
	mapfile -t after < <(rx_counts)
	DELTA=()
	for i in "${!after[@]}"; do DELTA[i]=$(( after[i] - ${before[i]:-0} )); done
	echo "packets per receiver queue: ${DELTA[*]}"
}
# wait_clients: every background socat client of send_flows succeeded
wait_clients() {
	local p rc=0
	for p in $(jobs -p); do
		[ "$p" = "$SRV" ] && continue
		wait "$p" || rc=1
	done
	[ $rc = 0 ] || echo "a TCP connection failed"
	return $rc
}
spread() {
	local q used=0 total=0
	send_flows || return 1
	for q in "${DELTA[@]}"; do total=$((total + q)); [ "$q" -gt 0 ] && used=$((used + 1)); done
	echo "$flows flows used $used of $NQ queues"
	[ "$total" -gt 0 ] && [ "$used" -ge 2 ]
}
# steered Q: every stream lands on queue Q (at least 95% of the packets;
# neighbour discovery and the like may go elsewhere)
steered() {
	local q=$1 w=() i total=0
	for ((i = 0; i < NQ; i++)); do w+=($([ "$i" = "$q" ] && echo 1 || echo 0)); done
	peer ethtool -X "$B" weight "${w[@]}" || return 1
	send_flows || return 1
	for i in "${DELTA[@]}"; do total=$((total + i)); done
	echo "queue $q got ${DELTA[q]} of $total packets"
	[ "$total" -gt 0 ] && [ $(( DELTA[q] * 100 )) -ge $(( total * 95 )) ]
}
restored() { peer ethtool -X "$B" default && spread; }
# predicted: UDP flows land where key and table say
predicted() { python3 "$here/rss_flows.py" ena-peer "$B" "${1:-6}"; }
KEY=$(for i in $(seq 40); do printf '%02x\n' $(( (i * 37 + 11) % 256 )); done | paste -sd:)
key_set() {
	local got
	peer ethtool -X "$B" hkey "$KEY" || return 1
	got=$(peer ethtool -x "$B" | awk '/^RSS hash key:/ { getline; print; exit }')
	echo "set $KEY, ethtool -x: $got"
	[ "$got" = "$KEY" ]
}
crc32_set() {
	peer ethtool -X "$B" hfunc crc32 || return 1
	peer ethtool -x "$B" | grep -E '^ *(toeplitz|crc32|xor):'
	peer ethtool -x "$B" | grep -qE '^ *crc32: on' && ping_ok
}
xor_refused() {
	! peer ethtool -X "$B" hfunc xor && peer ethtool -x "$B" | grep -qE '^ *crc32: on'
}
# flow_hash_show TYPE: the fields ethtool -n shows, one line
flow_hash_show() { peer ethtool -n "$B" rx-flow-hash "$1" | sed -n 's/^\(IP\|L4\|L2\|L3\|VLAN\)/\1/p' | paste -sd,; }
flow_hash_sd() {
	local got
	echo "udp4 before: $(flow_hash_show udp4)"
	peer ethtool -N "$B" rx-flow-hash udp4 sd || return 1
	got=$(flow_hash_show udp4)
	echo "udp4 after rx-flow-hash udp4 sd: $got"
	[ "$got" = "IP SA,IP DA" ] || return 1
	python3 "$here/rss_flows.py" ena-peer "$B" 4 sd
}
# (Debian 12's ethtool exits 0 when the kernel refuses rx-flow-hash: the
# refusal is its error line)
flow_hash_refused() {
	local out
	if out=$(peer ethtool -N "$B" rx-flow-hash udp4 sdt 2>&1) && [[ $out != *"Cannot change"* ]]; then
		echo "udp4 sdt (L3 protocol) was taken"; return 1
	fi
	echo "udp4 sdt refused ($out); udp4: $(flow_hash_show udp4)"
	[ "$(flow_hash_show udp4)" = "IP SA,IP DA" ]
}
flow_hash_back() {
	peer ethtool -N "$B" rx-flow-hash udp4 sdfn || return 1
	echo "udp4: $(flow_hash_show udp4)"
	predicted 4
}
key_kept() {
	peer ethtool -X "$B" hfunc toeplitz || return 1
	peer ip link set "$B" down && peer ip link set "$B" up &&
		wait_carrier "$B" 15 ena-peer && ping_ok && predicted 4
}

here=$(cd "$(dirname "$0")" && pwd)
ktap_header 16
d0=$(dmesg_lines)
ktap_diag "driver: $ENA_DRIVER, kernel $(uname -r)"
setup() {
	ena_load && ena_wait_ifaces 2 && pair_setup && wait_carrier "$A" &&
		wait_carrier "$B" 15 ena-peer && ping_ok
}
listening() { peer_wait_listen "$port" || { echo "no listener"; return 1; }; }
ktap_check "load, pair, ping" setup
# the listener is started here, not by a test case, and is no child of this
# shell: ktap_run waits for its children and for its output pipe
SRV=$(ip netns exec ena-peer socat -u "TCP-LISTEN:$port,reuseaddr,fork" OPEN:/dev/null \
	</dev/null >/dev/null 2>&1 & echo $!)
ktap_check "TCP listener in the peer namespace" listening
NQ=$(rx_counts | wc -l)
ktap_diag "receiver $B: $NQ queues; table: $(peer ethtool -x "$B" | awk '/^ *[0-9]+:/{for (i = 2; i <= NF; i++) print $i}' | sort -n | uniq -c | awk '{printf "q%s x%s ", $2, $1}')"
if [ "$NQ" -lt 2 ]; then
	for t in "default table spreads $flows flows" "one-queue tables steer every flow" "ethtool -X default spreads again"; do
		ktap_skip "$t" "the receiver has $NQ queue(s)"
	done
else
	ktap_check "default table spreads $flows flows over more than one queue" spread
	budget_start "$budget"
	max=$(( NQ < 8 ? NQ : 8 )) ok=1
	for ((q = 0; q < max; q++)); do
		budget_more "$q" 2 || break
		ktap_run steered "$q" || { ok=0; ktap_diag "queue $q: not steered"; }
	done
	ktap_diag "steered to $q of $max queues: $(budget_why "$q" "$max")"
	if [ $ok = 1 ]; then ktap_pass "one-queue tables steer every flow to that queue"
	else ktap_fail "one-queue tables steer every flow to that queue"; fi
	ktap_check "ethtool -X default spreads again" restored
fi
kill "$SRV" 2>/dev/null; SRV=
ktap_check "ethtool -X hkey sets the key ethtool -x shows" key_set
if [ "$NQ" -lt 2 ]; then
	ktap_skip "UDP flows land on the queue the Toeplitz hash of the key says" "the receiver has $NQ queue(s)"
else
	ktap_check "UDP flows land on the queue the Toeplitz hash of the key says" predicted
fi
ktap_check "ethtool -X hfunc crc32 is taken and shown, traffic passes" crc32_set
ktap_check "ethtool -X hfunc xor is refused, crc32 stays" xor_refused
if [ "$NQ" -lt 2 ]; then
	ktap_skip "back to toeplitz, after down/up the key still steers as predicted" "the receiver has $NQ queue(s)"
else
	ktap_check "back to toeplitz, after down/up the key still steers as predicted" key_kept
fi
if [ "$NQ" -lt 2 ]; then
	for t in "ethtool -N rx-flow-hash udp4 sd: shown, flows steered by the addresses alone" \
		 "ethtool -N rx-flow-hash udp4 sdt (L3 protocol) refused" \
		 "ethtool -N rx-flow-hash udp4 sdfn: flows steered by the 4-tuple again"; do
		ktap_skip "$t" "the receiver has $NQ queue(s)"
	done
else
	ktap_check "ethtool -N rx-flow-hash udp4 sd: shown, flows steered by the addresses alone" flow_hash_sd
	ktap_check_xfail_stock "ethtool -N rx-flow-hash udp4 sdt (L3 protocol) refused" \
		"the in-tree driver drops the fields it cannot hash and takes the rest" flow_hash_refused
	ktap_check "ethtool -N rx-flow-hash udp4 sdfn: flows steered by the 4-tuple again" flow_hash_back
fi
ktap_check "traffic passes" ping_ok
pair_teardown
ktap_check "rmmod ena" ena_unload
ktap_check "kernel log clean (no BUG/WARNING/Oops/leak)" dmesg_clean "$d0"
ktap_finish
