#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NUMA placement, in a guest of two nodes whose ENA devices sit on node 1
# (the runner's --numa 2): the interface's single queue takes its ring
# memory on the node of the CPU its interrupt is hinted to, as the kernel's
# per-node memory counters show when the interface opens with large RX
# rings; ours spreads its queues from the device's node (queue 0 on a CPU
# of node 1), the in-tree driver puts queue n on CPU n whatever the node
# and takes its RX pages where the refilling CPU runs (both xfail for it).
. "$(dirname "$0")/ena_lib.sh"

cleanup() {
	pair_teardown; ena_unload 2>/dev/null
}
trap cleanup EXIT

# node_used N: MiB of node N's memory in use, less the slab and the page
# cache: the ring's pages are neither, while the test's own tools refill
# the dentry and inode caches (on a debug kernel, whose slab objects carry
# redzones and tracking, about 10 MiB on the node the tools run on)
node_used() {
	awk '/MemUsed:/ {u = $4} / FilePages:/ {f = $4} / Slab:/ {s = $4}
	     END {print int((u - f - s) / 1024)}' "/sys/devices/system/node/node$1/meminfo"
}
# hint_cpu IFACE Q: the CPU queue Q's interrupt is hinted to (the first of
# its hint list; its affinity when there is no hint)
hint_cpu() {
	local irq
	irq=$(awk -v n="$1-Tx-Rx-$2" '$NF == n {sub(":", "", $1); print $1}' /proc/interrupts)
	[ -n "$irq" ] || return 1
	python3 - "$irq" <<-'PY'
		import sys
		irq = sys.argv[1]
		with open(f"/proc/irq/{irq}/affinity_hint") as f:
		    m = int(f.read().strip().replace(",", ""), 16)
		if m:
		    print((m & -m).bit_length() - 1)
		else:
		    with open(f"/proc/irq/{irq}/smp_affinity_list") as f:
		        print(f.read().split(",")[0].split("-")[0].strip())
	PY
}
cpu_node() { basename "$(ls -d /sys/devices/system/cpu/cpu"$1"/node* | head -n1)" | tr -dc 0-9; }

on_node1() {
	local bdf n rc=0
	ls -d /sys/devices/system/node/node[0-9]* | xargs -n1 basename | paste -sd' '
	for bdf in $(for i in $(ena_ifaces); do ena_bdf "$i"; done); do
		n=$(cat "/sys/bus/pci/devices/$bdf/numa_node")
		echo "$bdf: numa_node $n"
		[ "$n" = 1 ] || rc=1
	done
	[ -d /sys/devices/system/node/node1 ] && [ $rc = 0 ]
}
hint_on_node() {
	local c
	c=$(hint_cpu "$A" 0) || { echo "no IRQ named $A-Tx-Rx-0"; return 1; }
	echo "queue 0: CPU $c, node $(cpu_node "$c")"
	[ "$(cpu_node "$c")" = 1 ]
}
# rings_on_node: one queue, the largest RX ring the device offers; opening
# the interface (from a CPU of the other node, so that a driver taking
# memory where the caller runs is caught) takes its memory on the node of
# queue 0's CPU
rings_on_node() {
	local c want other u0 u1 w0 w1 max d_want d_other oc i n
	ip link set "$A" down
	ethtool -L "$A" combined 1 || return 1
	max=$(ring Pre-set RX)
	ethtool -G "$A" rx "$max" || return 1
	# queue 0's CPU: its interrupt exists while the interface is up (ours
	# requests it at open)
	ip link set "$A" up && wait_carrier "$A" 20 || { echo "no link"; return 1; }
	c=$(hint_cpu "$A" 0) || { echo "no IRQ named $A-Tx-Rx-0"; return 1; }
	ip link set "$A" down
	want=$(cpu_node "$c") other=$((1 - want))
	oc=$(cut -d, -f1 "/sys/devices/system/node/node$other/cpulist" | cut -d- -f1)
	sync; echo 3 > /proc/sys/vm/drop_caches
	sleep 1
	u0=$(node_used "$want") w0=$(node_used "$other")
	taskset -c "$oc" ip link set "$A" up || return 1
	wait_carrier "$A" 20
	# a driver may fill the ring after the open (ours does, from NAPI):
	# read once the memory in use stops growing (1 s apart, within 1 MiB)
	u1=$(node_used "$want")
	for ((i = 0; i < 30; i++)); do
		sleep 1
		n=$(node_used "$want")
		[ $((n - u1)) -le 1 ] && break
		u1=$n
	done
	u1=$(node_used "$want") w1=$(node_used "$other")
	d_want=$((u1 - u0)) d_other=$((w1 - w0))
	echo "RX ring $max: queue 0 on CPU $c (node $want), opened from CPU $oc: node $want +$d_want MiB, node $other +$d_other MiB"
	# ours: 16384 RX buffers of 2 KiB, 32 MiB
	[ "$d_want" -ge 16 ] && [ "$d_want" -ge $((4 * d_other)) ] && ping_ok 5
}

ktap_header 5
d0=$(dmesg_lines)
if ena_load && ena_wait_ifaces 2 20 && pair_setup && wait_carrier "$A" 20; then
	ktap_pass "load: two interfaces, link up"
else
	ktap_fail "load: two interfaces, link up"
fi
ktap_check "the devices are on node 1 of two" on_node1
ktap_check_xfail_stock "queue 0's interrupt is hinted to a CPU of the device's node" \
	"the in-tree driver puts queue n on CPU n, whatever the device's node" hint_on_node
ktap_check_xfail_stock "one queue, the largest RX ring: its memory on the node of its CPU, traffic passes" \
	"the in-tree driver takes RX pages where the CPU filling the ring runs (dev_alloc_page)" rings_on_node
unload_clean() { pair_teardown; ena_rmmod && dmesg_clean "$d0"; }
ktap_check "module unloads, kernel log clean" unload_clean
ktap_finish
