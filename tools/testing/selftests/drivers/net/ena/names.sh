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
# The model advertises the ENI statistics, customer metrics and ENA Express
# capabilities (set here before the first load, cleared at the end), so the
# device statistics the in-tree driver reads with GET_STATS are listed:
# their names must be in ours, stock's names must come in stock's order in
# ours, and each value set in the model must read back the same under both
# drivers, also after the model changes it. A last pass drops the customer
# metrics capability (the in-tree driver then reads the ENI statistics) and
# compares again.
#
# Two in-tree names are left out of ours on purpose and not compared:
# queue_<n>_rx_dma_mapping_err (page_pool maps ours' RX pages, and a page
# it cannot map is a failed allocation, counted in page_alloc_fail; see
# ena-fast.rst, Counters), and 5.10's queue_<n>_rx_bad_csum, the old name
# of the in-tree driver's queue_<n>_rx_csum_bad, which ours lists (later
# kernels' in-tree driver has only the new name).
#
# Compares the two drivers itself: with ENA_DRIVER=stock it only skips.
. "$(dirname "$0")/ena_lib.sh"
npings=20
tmp=$(mktemp -d)
devs="ena0 ena1"
# the model knob behind each device statistic; values are distinct and
# one needs more than 32 bits, so a swapped or truncated word shows
declare -A knob=(
	[bw_in_allowance_exceeded]=eni-bw-in-exceeded
	[bw_out_allowance_exceeded]=eni-bw-out-exceeded
	[pps_allowance_exceeded]=eni-pps-exceeded
	[conntrack_allowance_exceeded]=eni-conntrack-exceeded
	[linklocal_allowance_exceeded]=eni-linklocal-exceeded
	[conntrack_allowance_available]=eni-conntrack-available
	[ena_srd_mode]=srd-mode
	[ena_srd_tx_pkts]=srd-tx-pkts
	[ena_srd_eligible_tx_pkts]=srd-eligible-tx-pkts
	[ena_srd_rx_pkts]=srd-rx-pkts
	[ena_srd_resource_utilization]=srd-resource-utilization
)
declare -A want=(
	[bw_in_allowance_exceeded]=1000001
	[bw_out_allowance_exceeded]=1000002
	[pps_allowance_exceeded]=1000003
	[conntrack_allowance_exceeded]=1000004
	[linklocal_allowance_exceeded]=1000005
	[conntrack_allowance_available]=4294967301
	[ena_srd_mode]=3
	[ena_srd_tx_pkts]=2000001
	[ena_srd_eligible_tx_pkts]=2000002
	[ena_srd_rx_pkts]=2000003
	[ena_srd_resource_utilization]=42
)
# after the load: the model changes this one, both drivers must follow
live_name=bw_in_allowance_exceeded live_val=7000007
# stock's names ours does not list on purpose (see above)
absent='^queue_[0-9]+_rx_(dma_mapping_err|bad_csum)$'

# model_caps on|off [customer-metrics on|off]: the capabilities, for the
# next probe, and the values (one monitor call per device)
model_caps() {
	local d n on=false cm=false args=()
	[ "$1" = on ] && on=true
	[ "${2:-$1}" = on ] && cm=true
	args=(eni-stats $on ena-express $on customer-metrics $cm)
	for n in "${!knob[@]}"; do
		args+=("${knob[$n]}" "$([ $on = true ] && echo "${want[$n]}" || echo 0)")
	done
	for d in $devs; do
		qmp qom-set "$d" "${args[@]}" || return 1
	done
}

cleanup() { pair_teardown; ena_unload 2>/dev/null; model_caps off > /dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT

ktap_header 11
names=("stock: names recorded" "ethtool -S: every stock name in ours"
	"ethtool -S: stock's names in stock's order in ours"
	"IRQ names: every stock name in ours"
	"interface_up/interface_down follow down and up (stock, ours)"
	"queue tx_cnt/rx_cnt sums follow $npings pings (stock, ours)"
	"device statistics: model values read back the same (stock, ours)"
	"ENI statistics without customer metrics: same names and values (stock, ours)"
	"ip -d link: numtxqueues and numrxqueues the same as stock's"
	"ethtool -g: TX Push the same as stock's (LLQ: descriptors and headers pushed)"
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
	# the netdev's queue counts (mq makes a qdisc per TX queue): "TX RX"
	echo "$drv queues $(ip -d link show "$A" | grep -Eo 'num[tr]xqueues [0-9]+' |
		awk '{ print $2 }' | paste -sd' ')" >> "$tmp/meaning"
	# LLQ pushes the descriptors and headers: ethtool -g's "TX Push"
	echo "$drv txpush $(ethtool -g "$A" | awk -F: '/^TX Push:/ { gsub(/[ \t]/, "", $2); print $2 }')" \
		>> "$tmp/meaning"
	ethtool -S "$A" | awk -F: 'NR > 1 { gsub(/^ +/, "", $1); print $1 }' |
		grep -Ev "$absent" > "$tmp/$drv.order"
	sort "$tmp/$drv.order" > "$tmp/$drv.stats"
	devstats "$drv" > "$tmp/$drv.dev"
	model_set ena0 "${knob[$live_name]}" $live_val
	echo "$drv live $(eth_stat "$A" $live_name)" >> "$tmp/meaning"
	model_set ena0 "${knob[$live_name]}" "${want[$live_name]}"
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

# devstats DRV: "name value" of the device statistics $A lists, in order
devstats() {
	ethtool -S "$A" | awk 'NR > 1 { k = $1; sub(/:$/, "", k); print k, $2 }' |
		grep -E "^($(IFS='|'; echo "${!knob[*]}")) "
}

d0=$(dmesg_lines)
: > "$tmp/meaning"
model_caps on || ktap_diag "model: could not set the capabilities"
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
# in_order: stock's names, as a subsequence of ours, keep stock's order
in_order() {
	[ -s "$tmp/ours.order" ] || { echo "ours: no names recorded"; return 1; }
	awk 'NR == FNR { s[$0] = 1; next } $0 in s' "$tmp/stock.order" "$tmp/ours.order" > "$tmp/ours.sub"
	diff -u "$tmp/stock.order" "$tmp/ours.sub" | head -40 && return 0
	echo "(- stock's order, + ours)"
	return 1
}
ktap_check "${names[2]}" in_order
ktap_check "${names[3]}" missing irqs

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
ktap_check "${names[4]}" meaning updown updown_ok
ktap_check "${names[5]}" meaning pings pings_ok

# devstats_same FILE...: each stock line (name value) is in ours, each
# value is the model's, and stock lists at least the ENI statistics
devstats_same() {
	local st=$1 ou=$2 n v rc=0
	echo "stock: $(paste -sd' ' "$st")"
	echo "ours:  $(paste -sd' ' "$ou")"
	[ "$(wc -l < "$st")" -ge 5 ] || { echo "stock lists $(wc -l < "$st") device statistics, expected 5 or more"; rc=1; }
	while read -r n v; do
		grep -qx "$n $v" "$ou" || { echo "$n: stock $v, ours $(awk -v n="$n" '$1 == n { print $2 }' "$ou")"; rc=1; }
		[ "$v" = "${want[$n]}" ] || { echo "$n: $v, the model has ${want[$n]}"; rc=1; }
	done < "$st"
	return $rc
}
live_ok() { [ "$2" = $live_val ]; }
dev_values() {
	local rc=0
	devstats_same "$tmp/stock.dev" "$tmp/ours.dev" || rc=1
	meaning live live_ok || rc=1
	return $rc
}
ktap_check "${names[6]}" dev_values

# without customer metrics: load, read the device statistics, unload
eni_snap() {
	local drv=$1
	ENA_DRIVER=$drv ena_load && ena_wait_ifaces 2 || { echo "$drv: load failed"; return 1; }
	A=$(ena_ifaces | head -n1)
	devstats "$drv" > "$tmp/$drv.eni"
	ena_unload
}
eni_only() {
	model_caps on off || return 1
	eni_snap stock && eni_snap ours || return 1
	devstats_same "$tmp/stock.eni" "$tmp/ours.eni" || return 1
	# ours lists exactly what the device has: the five ENI and ENA Express
	[ "$(awk '$1 == "conntrack_allowance_available"' "$tmp/ours.eni")" = "" ] ||
		{ echo "ours: conntrack_allowance_available without customer metrics"; return 1; }
	[ "$(wc -l < "$tmp/ours.eni")" = 10 ] || { echo "ours lists $(wc -l < "$tmp/ours.eni") device statistics, expected 10"; return 1; }
}
ktap_check "${names[7]}" eni_only
# same_value KEY LABEL [EMPTY_OK]: stock's and ours' values of KEY in
# $tmp/meaning agree (without EMPTY_OK both must have one)
same_value() {
	local st ou
	st=$(awk -v k="$1" '$1 == "stock" && $2 == k { $1 = $2 = ""; print substr($0, 3) }' "$tmp/meaning")
	ou=$(awk -v k="$1" '$1 == "ours" && $2 == k { $1 = $2 = ""; print substr($0, 3) }' "$tmp/meaning")
	echo "$2: stock ${st:-(not shown)}, ours ${ou:-(not shown)}"
	[ -n "$st" ] || [ -n "${3:-}" ] || return 1
	[ "$st" = "$ou" ]
}
ktap_check "${names[8]}" same_value queues "numtxqueues numrxqueues"
ktap_check "${names[9]}" same_value txpush "TX Push" empty-ok
model_caps off || ktap_diag "model: could not clear the capabilities"
ktap_check "${names[10]}" dmesg_clean "$d0"
ktap_finish
