#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Drop-in names: what scripts and monitoring agents read from the in-tree
# driver must be there, with the same meaning, when ours replaces it. The
# stock driver is loaded first over the same model: its `ethtool -S` names
# and IRQ names (/proc/interrupts, interface name and PCI address replaced
# by placeholders) are recorded, with the same channel count on both. Then
# ours: any name stock has and ours lacks fails the test. A few counters are
# checked for meaning on both drivers: interface_up/interface_down follow an
# administrative down and up, and the per-queue tx_cnt/rx_cnt sums follow a
# known number of pings.
#
# Compares the two drivers itself: with ENA_DRIVER=stock it only skips.
. "$(dirname "$0")/ena_lib.sh"
npings=20
tmp=$(mktemp -d)

cleanup() { pair_teardown; ena_unload 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

ktap_header 6
names=("stock: names recorded" "ethtool -S: every stock name in ours"
	"IRQ names: every stock name in ours"
	"interface_up/interface_down follow down and up (stock, ours)"
	"queue tx_cnt/rx_cnt sums follow $npings pings (stock, ours)"
	"kernel log clean")
if ! is_ours; then
	for n in "${names[@]}"; do ktap_skip "$n" "compares both drivers: runs with ENA_DRIVER=ours"; done
	ktap_finish
fi

# snap DRV: load DRV, set up the pair with 2 channels, record names and
# the meaning checks into $tmp/DRV.*
snap() {
	local drv=$1 bdf up0 dn0 tx0 rx0
	ENA_DRIVER=$drv ena_load && ena_wait_ifaces 2 && pair_setup || { echo "$drv: setup failed"; return 1; }
	wait_carrier "$A" && wait_carrier "$B" 15 ena-peer || return 1
	ethtool -L "$A" combined 2 || { echo "$drv: ethtool -L combined 2 failed"; return 1; }
	wait_carrier "$A" || return 1
	bdf=$(ena_bdf "$A")
	ethtool -S "$A" | awk -F: 'NR > 1 { gsub(/^ +/, "", $1); print $1 }' | sort > "$tmp/$drv.stats"
	# the last column of /proc/interrupts is the name; keep this device's
	awk '{ print $NF }' /proc/interrupts |
		grep -E "(^|[^[:alnum:]])($A|$bdf)([^[:alnum:]]|\$)" |
		sed -e "s/$bdf/<bdf>/" -e "s/^$A-/<if>-/" | sort -u > "$tmp/$drv.irqs"
	echo "$drv: $(wc -l < "$tmp/$drv.stats") ethtool -S names, IRQs: $(paste -sd' ' "$tmp/$drv.irqs")"

	up0=$(eth_stat "$A" interface_up) dn0=$(eth_stat "$A" interface_down)
	ip link set "$A" down && ip link set "$A" up && ip addr replace 10.77.0.1/24 dev "$A" &&
		wait_carrier "$A" || return 1
	echo "$drv updown $(( $(eth_stat "$A" interface_up) - up0 )) $(( $(eth_stat "$A" interface_down) - dn0 ))" \
		>> "$tmp/meaning"

	tx0=$(eth_stat_sum "$A" '^queue_[0-9]+_tx_cnt$') rx0=$(eth_stat_sum "$A" '^queue_[0-9]+_rx_cnt$')
	ping -q -c "$npings" -i 0.05 -W 2 10.77.0.2 > /dev/null || echo "$drv: pings lost"
	echo "$drv pings $(( $(eth_stat_sum "$A" '^queue_[0-9]+_tx_cnt$') - tx0 ))" \
		"$(( $(eth_stat_sum "$A" '^queue_[0-9]+_rx_cnt$') - rx0 ))" >> "$tmp/meaning"
	pair_teardown
	ena_unload
}

d0=$(dmesg_lines)
: > "$tmp/meaning"
stock_ok() { snap stock && [ -s "$tmp/stock.stats" ] && [ -s "$tmp/stock.irqs" ]; }
ktap_check "${names[0]}" stock_ok
ktap_run snap ours || ktap_diag "ours: setup failed"

# missing KIND: names in stock's list and not in ours'
missing() {
	local m
	[ -s "$tmp/ours.$1" ] || { echo "ours: no names recorded"; return 1; }
	m=$(comm -23 "$tmp/stock.$1" "$tmp/ours.$1")
	[ -z "$m" ] && return 0
	echo "missing in ours: $(echo "$m" | paste -sd' ')"
	return 1
}
ktap_check "${names[1]}" missing stats
ktap_check "${names[2]}" missing irqs

# meaning WHAT CHECK: each driver's line for WHAT passes CHECK
updown_ok() { [ "$2" = 1 ] && [ "$3" = 1 ]; }
# at least the pings, at most a few more (ARP/ND, IPv6 router solicitations)
pings_ok() { [ "$2" -ge $npings ] && [ "$2" -le $((npings + 12)) ] && [ "$3" -ge $npings ] && [ "$3" -le $((npings + 12)) ]; }
meaning() {
	local what=$1 check=$2 drv rc=0 line
	for drv in stock ours; do
		line=$(awk -v d="$drv" -v w="$what" '$1 == d && $2 == w { $1 = $2 = ""; print }' "$tmp/meaning")
		echo "$drv $what:$line"
		# shellcheck disable=SC2086
		[ -n "$line" ] && "$check" "$drv" $line || rc=1
	done
	return $rc
}
ktap_check "${names[3]}" meaning updown updown_ok
ktap_check "${names[4]}" meaning pings pings_ok
ktap_check "${names[5]}" dmesg_clean "$d0"
ktap_finish
