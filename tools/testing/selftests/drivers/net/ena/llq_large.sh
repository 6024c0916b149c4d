#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Large LLQ entries: ethtool's tx-push-buf-len (ETHTOOL_A_RINGS_TX_PUSH_BUF_LEN,
# kernels from 6.4 on; set through push_buf_len.py, Debian's ethtool is too
# old to know it) switches the TX descriptors pushed into the device's BAR 2
# from 128-byte to 256-byte entries (224 bytes of pushed header) and back
# (96). With the large entries IPv4 pings of 56 and 1400 bytes and 8 MiB of
# TCP must pass intact, and so must a TCP stream inside VXLAN (116 bytes of
# headers: more than the 96 of the small entries, within the 224 of the
# large ones) in both modes; a length other than 96 and 224 is refused. The
# model offers both entry sizes. A kernel without the attribute (6.1) skips
# the cases that need it. Last, the device recommends 256-byte entries
# (model property llq-recommend-large): a fresh load takes them without
# being asked (the in-tree 6.12 driver does not read the recommendation:
# an expected failure for it).
. "$(dirname "$0")/ena_lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
SRV=

cleanup() {
	[ -n "$SRV" ] && kill "$SRV" 2>/dev/null
	pair_teardown
	ena_unload 2>/dev/null
	rm -f /tmp/ena-llq-tx /tmp/ena-llq-rx
	ip link del ena-vx0 2>/dev/null
}
trap cleanup EXIT

push_len() { python3 "$here/push_buf_len.py" "$A" ${1:+"$1"}; }
tx_rings() { ethtool -g "$A" | awk '/^TX:/{printf "%s ", $2}'; }
# tcp_xfer SIZE ADDR PORT: SIZE of random bytes over TCP from here to a
# listener in the peer at ADDR:PORT arrive intact
tcp_xfer() {
	head -c "$1" /dev/urandom > /tmp/ena-llq-tx
	ip netns exec ena-peer socat -u "TCP-LISTEN:$3,reuseaddr" OPEN:/tmp/ena-llq-rx,creat,trunc &
	SRV=$!
	peer_wait_listen "$3"
	timeout 120 socat -u OPEN:/tmp/ena-llq-tx "TCP:$2:$3" || { kill "$SRV"; SRV=; return 1; }
	wait "$SRV" || return 1
	SRV=
	cmp /tmp/ena-llq-tx /tmp/ena-llq-rx
}
tcp_8m() { tcp_xfer 8M 10.77.0.2 5301; }
# vxlan_up: a VXLAN tunnel over the pair, 10.78.0.1 here, 10.78.0.2 in the peer
vxlan_up() {
	ip link show ena-vx0 > /dev/null 2>&1 && return 0
	ip link add ena-vx0 type vxlan id 42 local 10.77.0.1 remote 10.77.0.2 dstport 4789 dev "$A" &&
	ip addr add 10.78.0.1/24 dev ena-vx0 && ip link set ena-vx0 up &&
	ip -n ena-peer link add ena-vx0 type vxlan id 42 local 10.77.0.2 remote 10.77.0.1 dstport 4789 dev "$B" &&
	ip -n ena-peer addr add 10.78.0.2/24 dev ena-vx0 && ip -n ena-peer link set ena-vx0 up
}
# vxlan_tcp: 4 MiB over TCP inside the tunnel arrive intact, no TX drop
vxlan_tcp() {
	local d0 d1 rc
	vxlan_up || return 1
	d0=$(cat "/sys/class/net/$A/statistics/tx_dropped")
	tcp_xfer 4M 10.78.0.2 5302; rc=$?
	d1=$(cat "/sys/class/net/$A/statistics/tx_dropped")
	echo "tx-push-buf-len $(push_len): 4 MiB through VXLAN, tx_dropped ${d0:-?} -> ${d1:-?}"
	[ $rc = 0 ] && [ "${d0:-0}" = "${d1:-0}" ]
}
big_ping() { ping -q -c 3 -i 0.2 -W 2 -s 1400 10.77.0.2 >/dev/null; }

ktap_header 14
d0=$(dmesg_lines)
ktap_diag "driver: $ENA_DRIVER, kernel $(uname -r)"
setup() { ena_load && ena_wait_ifaces 2 && pair_setup && wait_carrier "$A" && ping_ok; }
ktap_check "load, pair, ping" setup
tx_before=$(tx_rings)
ktap_diag "TX ring max/current with 128-byte entries: $tx_before"
IFS=. read -r kmaj kmin _ <<< "$(uname -r)"
why=
if [ $((kmaj * 100 + kmin)) -lt 604 ]; then
	why="kernel $(uname -r) has no ETHTOOL_A_RINGS_TX_PUSH_BUF_LEN"
else
	# a TX ring at the 128-byte maximum first: 256-byte entries halve the
	# maximum the device allows (seen: 4096 -> 2048), and both drivers lower
	# the ring to the new maximum
	ethtool -G "$A" tx "${tx_before%% *}" && wait_carrier "$A"
	tx_full=$(tx_rings)
	out=$(push_len 224 2>&1)
	rc=$?
	[ -n "$out" ] && ktap_diag "$out"
	tx_after=$(tx_rings)
	ktap_diag "set rc $rc, TX ring max/current: $tx_full-> $tx_after"
	read -r max_a cur_a <<< "$tx_after"
	[ "$max_a" -lt "${tx_before%% *}" ] && [ "$cur_a" = "$max_a" ] || rc=1
	now=$(push_len)
	ktap_diag "tx-push-buf-len now: $now"
	[ "$now" = 224 ] || rc=1
	if [ $rc = 0 ]; then
		ktap_pass "tx-push-buf-len 224 (256-byte LLQ entries) accepted"
	else
		ktap_fail "tx-push-buf-len 224 (256-byte LLQ entries) accepted"
	fi
fi
if [ -n "$why" ]; then
	for t in "tx-push-buf-len 224 accepted" "large entries: ping 56 and 1400 bytes" \
		"large entries: 8 MiB over TCP intact" "large entries: TCP in VXLAN intact" \
		"tx-push-buf-len 100 refused" \
		"tx-push-buf-len 96 back, ping" "128-byte entries: TCP in VXLAN intact" \
		"a failed switch changes no ring" "unbind during a switch's re-init" \
		"unbind during switches" \
		"the device recommends 256-byte entries: a fresh load takes them"; do
		ktap_skip "$t" "$why"
	done
else
	ktap_diag "TX ring max/current with 256-byte entries: $(tx_rings)"
	dmesg | tail -n +"$d0" | grep -iE 'llq|large' | tail -3 | sed 's/^/# /'
	large_ping() { wait_carrier "$A" && ping_ok && big_ping; }
	ktap_check "large entries: ping 56 and 1400 bytes" large_ping
	ktap_check "large entries: 8 MiB over TCP intact" tcp_8m
	ktap_check "large entries: TCP in VXLAN intact (116-byte headers)" vxlan_tcp
	refused() {
		if push_len 100; then echo "100 taken"; return 1; fi
		[ "$(push_len)" = 224 ]
	}
	ktap_check "tx-push-buf-len 100 refused" refused
	back() { push_len 96 && [ "$(push_len)" = 96 ] && wait_carrier "$A" && ping_ok && big_ping; }
	ktap_check "tx-push-buf-len 96 back, ping" back
	ktap_check "128-byte entries: TCP in VXLAN intact (116-byte headers)" vxlan_tcp
	# a switch whose re-init fails (the device refuses the LLQ feature
	# once) leaves the entry size and every ring size as they were, and
	# the recovery reset brings the interface back with them (the TX ring
	# at the 128-byte maximum, which 256-byte entries would have halved)
	rollback() {
		local before after r0 rc=0
		ethtool -G "$A" tx "${tx_before%% *}" && wait_carrier "$A" || return 1
		before="$(push_len) $(tx_rings)"
		r0=$(model_get ena0 stat-resets)
		model_set_many ena0 fault-status-times 1 fault-status-feature 4 >/dev/null
		if push_len 224 >/dev/null 2>&1; then echo "224 taken although the LLQ feature failed"; rc=1; fi
		model_set_many ena0 fault-status-feature -1 fault-status-times 0 >/dev/null
		wait_model_reset "$((r0 + 1))" 30 >/dev/null
		wait_carrier "$A" 30 || rc=1
		after="$(push_len) $(tx_rings)"
		echo "tx-push-buf-len, TX max/current before: $before; after the failed switch and the recovery: $after"
		[ $rc = 0 ] && [ "$after" = "$before" ] && ping_ok
	}
	if is_ours; then
		ktap_check "a failed switch to 224 changes no ring: entry size and TX ring as before after the recovery" rollback
	else
		ktap_skip "a failed switch changes no ring" "our driver's re-init path"
	fi
	# unbind while entry-size switches (each a device re-init under RTNL)
	# run back to back: remove quiesces the management vector, and a
	# switch in flight must not arm it again (admin commands would then
	# wait for an interrupt that never comes, 100 ms each): every unbind
	# ends in a bounded time, and the kernel log shows no unbalanced IRQ
	# rebound BDF: A is the interface of BDF again, addressed and up
	rebound() {
		local j
		for ((j = 0; j < 50; j++)); do
			A=$(basename /sys/bus/pci/devices/"$1"/net/* 2>/dev/null)
			[ -e "/sys/class/net/$A" ] && break
			sleep 0.1
		done
		ip addr add 10.77.0.1/24 dev "$A" && ip addr add fd77::1/64 dev "$A" nodad &&
			ip link set "$A" up && wait_carrier "$A"
	}
	# unbind_in_reinit: the unbind lands while a switch re-initialises
	# the device (its ring message seen; 50 ms per admin command
	# holds the re-init open): remove must wait for the switch, not
	# quiesce the management vector under it, after which the switch arms
	# the vector again and its commands and the close's find no interrupt
	unbind_in_reinit() {
		local bdf pid i rc=0 d
		d=$(($(dmesg_lines) + 1))
		bdf=$(ena_bdf "$A")
		model_set ena0 admin-latency-us 50000 >/dev/null
		push_len 224 >/dev/null 2>&1 &
		pid=$!
		for ((i = 0; i < 300; i++)); do
			dmesg | tail -n +"$d" | grep -q 'TX ring [0-9]* lowered' && break
			sleep 0.01
		done
		echo "$bdf" > /sys/bus/pci/drivers/ena/unbind
		wait "$pid"
		model_set ena0 admin-latency-us 0 >/dev/null
		echo "unbind after $i looks for the switch's start"
		echo "$bdf" > /sys/bus/pci/drivers/ena/bind && rebound "$bdf" || rc=1
		dmesg | tail -n +"$d" | grep -E 'without an interrupt|Unbalanced enable|irq [0-9]+: nobody' && rc=1
		[ $rc = 0 ] && ping_ok
	}
	unbind_race() {
		local bdf i pid t0 ms worst=0 rc=0 d
		d=$(($(dmesg_lines) + 1))
		for ((i = 0; i < 4; i++)); do
			bdf=$(ena_bdf "$A")
			( while :; do push_len 224; push_len 96; done ) >/dev/null 2>&1 &
			pid=$!
			sleep 0.$((3 + RANDOM % 7))
			t0=$(date +%s%N)
			echo "$bdf" > /sys/bus/pci/drivers/ena/unbind
			ms=$(( ($(date +%s%N) - t0) / 1000000 ))
			kill "$pid"; wait "$pid" 2>/dev/null
			[ "$ms" -gt "$worst" ] && worst=$ms
			echo "$bdf" > /sys/bus/pci/drivers/ena/bind || { rc=1; break; }
			rebound "$bdf" || { rc=1; break; }
		done
		echo "unbind during switches: $i rounds, slowest $worst ms"
		dmesg | tail -n +"$d" | grep -E 'Unbalanced enable|irq [0-9]+: nobody' && rc=1
		# bounded: well under the 3 s admin timeout an unbind that
		# waited for a lost completion would take (133 ms seen)
		[ $rc = 0 ] && [ "$worst" -lt 2500 ] && ping_ok
	}
	if is_ours; then
		ktap_check "unbind during a switch's re-init: the switch ends first, no admin command without its interrupt" unbind_in_reinit
	else
		ktap_skip "unbind during a switch's re-init" "our driver's re-init path"
	fi
	if is_ours; then
		ktap_check "unbind during tx-push-buf-len switches: each unbind bounded, no unbalanced IRQ" unbind_race
	else
		ktap_skip "unbind during switches" "our driver's re-init path"
	fi
	recommended() {
		local n
		ip link del ena-vx0 2>/dev/null
		pair_teardown; ena_unload || return 1
		model_set ena0 llq-recommend-large true
		ena_load && ena_wait_ifaces 2 && pair_setup && wait_carrier "$A" || return 1
		n=$(push_len)
		echo "fresh load with the recommendation: tx-push-buf-len $n, TX ring max/current $(tx_rings)"
		model_set ena0 llq-recommend-large false
		[ "$n" = 224 ] && ping_ok && big_ping
	}
	ktap_check_xfail_stock "the device recommends 256-byte entries: a fresh load takes them" \
		"the in-tree 6.12 driver does not read the recommendation" recommended
fi
ip link del ena-vx0 2>/dev/null
pair_teardown
ktap_check "rmmod ena" ena_unload
ktap_check "kernel log clean (no BUG/WARNING/Oops/leak)" dmesg_clean "$d0"
ktap_finish
