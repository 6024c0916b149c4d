#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The smoke group of the kernels make test does not run the whole list on
# (5.10 and the newest; tests.list runs it with open_race.sh in the same
# guest for the race): in about a minute, what a user of that kernel checks
# first, for either driver.
#   load: the module loads and binds both devices, no IO ring registered
#     with the device before an open (lazy memory, both drivers);
#   traffic: carrier and operstate up, IPv4 and IPv6 pings, 16 MiB over TCP
#     intact;
#   lazy memory: the device's ring bytes are the admin queues plus one
#     queue pair's per channel; ethtool -L down by one changes them by one
#     pair, and (ours) the device creates and destroys only that pair's
#     queues (stock restarts them all: XFAIL);
#   reload: down frees every IO ring; rmmod and a new load come back with
#     traffic; the kernel log stays clean.
. "$(dirname "$0")/ena_lib.sh"

cleanup() { pair_teardown; ena_unload 2>/dev/null; }
trap cleanup EXIT

# operstate_up: both ends say "up" as ip(8) shows it (not only the carrier)
operstate_up() {
	local i a b
	for ((i = 0; i < 100; i++)); do
		a=$(cat "/sys/class/net/$A/operstate")
		b=$(ip netns exec ena-peer cat "/sys/class/net/$B/operstate")
		[ "$a" = up ] && [ "$b" = up ] && return 0
		sleep 0.1
	done
	echo "operstate $A $a, $B $b"
	return 1
}

# rings_per_channel: the model's ring bytes are the admin queues' plus one
# queue pair's for each channel of $A (the peer, ena1, is another device)
rings_per_channel() {
	local n
	n=$(chan Current)
	expect_eq "model ring bytes ($n channels)" "$(model_ring_bytes)" $((ADMIN_RING_BYTES + n * QB))
}

# channel_down: ethtool -L one channel fewer; the device loses one pair's
# rings (ours: and creates or destroys no other queue)
channel_down() {
	local n m0 c0 x0 c1 x1
	n=$(chan Current)
	m0=$(model_ring_bytes); read -r c0 x0 <<< "$(model_queues_cd)"
	ethtool -L "$A" combined $((n - 1)) || { echo "ethtool -L $((n - 1)) failed"; return 1; }
	read -r c1 x1 <<< "$(model_queues_cd)"
	ktap_diag "device queues created/destroyed by the -L: $((c1 - c0)) $((x1 - x0)) (one pair's: 0 4)"
	# (the stock driver restarts every queue: only the bytes are its rule)
	if is_ours; then
		expect_eq "device queues created/destroyed" "$((c1 - c0)) $((x1 - x0))" "0 4" || return 1
	fi
	expect_eq "model ring bytes delta" $(($(model_ring_bytes) - m0)) "-$QB" && ping_ok
}

up_pair() { pair_setup && wait_carrier "$A" && wait_carrier "$B" 15 ena-peer; }

ktap_header 11
d0=$(dmesg_lines)
ktap_diag "driver: $ENA_DRIVER, kernel $(uname -r)"
ktap_check "load $ENA_DRIVER driver" ena_load
ktap_check "both devices bound" ena_wait_ifaces 2
ktap_check "after probe: the device holds the admin queues only ($ADMIN_RING_BYTES B)" \
	expect_eq "model ring bytes" "$(model_ring_bytes)" "$ADMIN_RING_BYTES"

ktap_check "up: carrier on both" up_pair
ktap_check "up: operstate up on both" operstate_up
ktap_check "IPv4 and IPv6 pings both ways" eval 'ping_ok &&
	ip netns exec ena-peer ping -q -c 3 -i 0.2 -W 2 10.77.0.1 >/dev/null &&
	ping -6 -q -c 3 -i 0.2 -W 2 fd77::2 >/dev/null'
ktap_check "16 MiB over TCP, same sha256" tcp_send 16

LLQ=$([ "$(model_get ena0 llq)" = true ] && echo 1 || echo 0)
QB=$(qpair_bytes "$LLQ" "$(ring Current TX)" "$(ring Current RX)")
ktap_diag "$A: $(chan Current) of $(chan Pre-set) channels, one queue pair $QB B (llq $LLQ)"
ktap_check "up: the device holds one queue pair's rings per channel" rings_per_channel
if [ "$(chan Current)" -lt 2 ]; then
	ktap_skip "ethtool -L one fewer: one pair's rings go, traffic passes" "one channel only"
else
	ktap_check "ethtool -L one fewer: one pair's rings go (ours: only its queues), traffic passes" channel_down
fi

reload() {
	ip link set "$A" down
	expect_eq "model ring bytes after down (peer still up)" \
		"$(model_ring_bytes)" "$ADMIN_RING_BYTES" || return 1
	pair_teardown
	ena_rmmod || return 1
	ena_load && ena_wait_ifaces 2 && up_pair && ping_ok
}
ktap_check "reload: down frees every IO ring of the device, rmmod and load again, traffic passes" reload
pair_teardown
ktap_check "rmmod ena, kernel log clean" eval 'ena_rmmod && dmesg_clean "$d0"'
ktap_finish
