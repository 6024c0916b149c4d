#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Drop-in behaviour no other test looks at, each checked the way a user or a
# script would see it, for the stock driver and ours alike (the stock
# driver is the reference): every PCI ID of the in-tree table binds, a
# device with an invalid MAC gets a random one, `ethtool -i`, autoload by
# the device's modalias (ours from an updates/ directory, as DKMS installs
# it), the host information the device receives, `ethtool -K` toggles,
# the RX hash the stack receives, timestamping info, IRQ affinity hints,
# netconsole (netpoll), the stack's TX watchdog resetting a device that
# stopped sending, a FATAL_ERROR event (ours only: the in-tree driver
# ignores it), linearizing packets of more buffers than the device takes,
# TX descriptors in host memory when the device offers no LLQ, a MAC
# address that changed across a reset (refused), and (ours only: the
# in-tree driver does not reconcile) a device that offers fewer queues and
# smaller rings after a reset.
#
# Five devices (tests.list gives each a PCI ID of the in-tree table with
# --ena-prop I:device-id=..., and device 4 the invalid MAC); devices 0 and 1
# carry the traffic, the peer in netns ena-peer.
. "$(dirname "$0")/ena_lib.sh"

ids="0ec2 1ec2 ec20 ec21 0051"
tmpd=$(mktemp -d)
cleanup() {
	ip netns pids ena-peer 2>/dev/null | xargs -r kill 2>/dev/null
	modprobe -r netconsole 2>/dev/null
	model_set_many ena0 tx-hold false llq true max-tx-sgl 32 2>/dev/null
	model_set_many ena1 llq true max-tx-sgl 32 2>/dev/null
	[ -n "${QMAX0:-}" ] && model_set_many ena0 max-queues "$QMAX0" max-depth "$DMAX0" 2>/dev/null
	pair_teardown; ena_unload 2>/dev/null
	rm -rf "$tmpd"
}
trap cleanup EXIT

# iface_of BDF: the interface the device's driver made, if any
iface_of() { ls "/sys/bus/pci/devices/$1/net" 2>/dev/null | head -n1; }
# iface_by_mac MAC: the interface with that address
iface_by_mac() {
	local d
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address")" = "$1" ] && { basename "$d"; return 0; }
	done
	return 1
}

all_ids_bound() {
	local bdf id seen= n=0 drv ifc
	while read -r bdf id; do
		drv=$(basename "$(readlink -f "/sys/bus/pci/devices/$bdf/driver")")
		ifc=$(iface_of "$bdf")
		echo "$bdf 1d0f:$id driver ${drv:-none} interface ${ifc:-none}"
		[ "$drv" = ena ] && [ -n "$ifc" ] && seen+=" $id" && n=$((n + 1))
	done < <(ena_pci_devs)
	for id in $ids; do
		[[ " $seen " == *" $id "* ]] || { echo "1d0f:$id not bound"; return 1; }
	done
}
# the device given 01:00:5e:00:00:01 (multicast: not a valid station
# address) gets a random one, marked so (addr_assign_type 1)
random_mac() {
	local bdf ifc mac t
	bdf=$(ena_pci_devs | awk '$2 == "0051" {print $1}')
	ifc=$(iface_of "$bdf")
	[ -n "$ifc" ] || { echo "no interface for $bdf"; return 1; }
	mac=$(cat "/sys/class/net/$ifc/address") t=$(cat "/sys/class/net/$ifc/addr_assign_type")
	echo "$ifc: $mac, addr_assign_type $t"
	[ "$t" = 1 ] && [ "$mac" != 01:00:5e:00:00:01 ] || return 1
	# unicast and locally administered
	(( (0x${mac:0:2} & 3) == 2 )) || return 1
	# and the open's address check (ndo_validate_addr) takes it
	ip link set "$ifc" up && ip link set "$ifc" down
}
drvinfo() {
	local out
	out=$(ethtool -i "$A") || return 1
	echo "$out" | grep -E '^(driver|bus-info):'
	grep -qx 'driver: ena' <<< "$out" && grep -qx "bus-info: $(ena_bdf "$A")" <<< "$out"
}
# host_info: the host-info page device 0 holds (the model reads it back)
# names this OS, kernel, CPU count and PCI address, as the in-tree driver's
host_info() {
	local hi bdf kv
	hi=$(model_get ena0 host-info) || return 1
	echo "$hi"
	bdf=$(ena_bdf "$A") kv=$(uname -v)
	grep -qx 'os_type=1' <<< "$hi" &&
		grep -qxF "os_dist_str=$(uname -r)" <<< "$hi" &&
		grep -qxF "kernel_ver_str=${kv:0:31}" <<< "$hi" &&
		grep -qx "num_cpus=$(nproc)" <<< "$hi" &&
		grep -qx "bdf=${bdf#*:}" <<< "$hi"
}
# hi_features: the interface's features as the host-info page shows them
hi_features() { model_get ena0 host-info | sed -n 's/^supported_network_features=//p'; }
# host_info_features: the page follows the interface's features, rewritten
# every second as in-tree: GRO off flips one bit within 3 s, on flips it back
host_info_features() {
	local f0 f1 f2 i
	f0=$(hi_features)
	echo "features $f0"
	[ -n "$f0" ] && [ "$((f0))" != 0 ] || { echo "no features in the page"; return 1; }
	ethtool -K "$A" gro off || return 1
	for ((i = 0; i < 15; i++)); do
		f1=$(hi_features)
		[ "$f1" != "$f0" ] && break
		sleep 0.2
	done
	ethtool -K "$A" gro on || return 1
	for ((i = 0; i < 15; i++)); do
		f2=$(hi_features)
		[ "$f2" = "$f0" ] && break
		sleep 0.2
	done
	echo "gro off: $f1, on again: $f2"
	# one bit apart (x & (x - 1) clears the lowest set bit)
	local x=$((f0 ^ f1))
	[ "$x" != 0 ] && [ $((x & (x - 1))) = 0 ] && [ "$f2" = "$f0" ]
}
# mac_changed: across a reset the device reports another MAC address; the
# driver refuses it (the interface keeps its address, as the in-tree driver
# does), and ours brings the interface back once the device reports the old
# address again (its recovery retries a failed reset; the in-tree driver
# leaves the device down, so for it the refusal is all that is checked)
mac_changed() {
	local r0 mac0 k0 i
	mac0=$(cat "/sys/class/net/$A/address") r0=$(model_get ena0 stat-resets)
	k0=$(model_get ena0 keepalive-ms)
	# the reset: keep-alives stop (both drivers reset on that; the in-tree
	# one ignores the fatal status bit)
	model_set_many ena0 mac-reported 52:54:00:e0:00:99 keepalive-ms 0 || return 1
	wait_model_reset "$r0" 30 >/dev/null
	model_set ena0 keepalive-ms "$k0"
	for ((i = 0; i < 40; i++)); do
		dmesg | grep -qE "MAC address changed across the reset|mac address are different" && break
		sleep 0.25
	done
	dmesg | grep -E "MAC address changed across the reset|mac address are different" | tail -n 1
	echo "interface address $(cat "/sys/class/net/$A/address") (was $mac0)"
	model_set ena0 mac-reported ""
	dmesg | grep -qE "MAC address changed across the reset|mac address are different" &&
		[ "$(cat "/sys/class/net/$A/address")" = "$mac0" ] || return 1
	is_ours || return 0
	wait_carrier "$A" 30 && ping_ok 5
}
# modalias_autoload: unloaded, `modprobe <modalias>` of one device loads
# ena and every device binds again. Ours is resolved from a module tree
# that holds only it in updates/ (where DKMS installs it; a depmod of the
# whole distro tree takes minutes under TCG), the stock one from the
# distro's own index.
modalias_autoload() {
	local alias rel mroot
	alias=$(cat "/sys/bus/pci/devices/$(ena_bdf "$A")/modalias")
	pair_teardown; ena_unload || return 1
	if is_ours; then
		rel=$(uname -r) mroot=$tmpd/mods
		mkdir -p "$mroot/lib/modules/$rel/updates"
		cp "$ENA_KO" "$mroot/lib/modules/$rel/updates/ena.ko" &&
			cp "/lib/modules/$rel"/modules.{order,builtin,builtin.modinfo} "$mroot/lib/modules/$rel/" 2>/dev/null
		depmod -b "$mroot" "$rel" || return 1
		modprobe -d "$mroot" "$alias" || { echo "modprobe $alias failed"; return 1; }
	else
		modprobe "$alias" || { echo "modprobe $alias failed"; return 1; }
	fi
	grep -q '^ena ' /proc/modules || { echo "modprobe $alias loaded no ena"; return 1; }
	if is_ours; then
		# ours, not the in-tree one: an out-of-tree module (taint O)
		echo "modprobe -d $mroot $alias: ena, taint '$(cat /sys/module/ena/taint)'"
		grep -q O /sys/module/ena/taint || return 1
	else
		echo "modprobe $alias: $(modinfo -F filename ena)"
	fi
	ena_wait_ifaces 5 || { echo "not every device came back"; return 1; }
	setup_pair
}
setup_pair() {
	local a b
	a=$(iface_by_mac 52:54:00:e0:00:01) b=$(iface_by_mac 52:54:00:e0:00:02) || return 1
	pair_setup "$a" "$b" && wait_carrier "$A" && wait_carrier "$B" 20 ena-peer && ping_ok
}
# toggles: each feature `ethtool -k` shows as changeable goes off (and is
# off), traffic passes, and it comes back on
toggles() {
	local f st n=0 rc=0
	while read -r f st; do
		ethtool -K "$A" "$f" off || { echo "$f: ethtool -K off failed"; rc=1; continue; }
		[ "$(ethtool -k "$A" | awk -v k="$f:" '$1 == k {print $2}')" = off ] ||
			{ echo "$f: still on"; rc=1; }
		ping_ok || { echo "$f off: no ping reply"; rc=1; }
		ethtool -K "$A" "$f" on || { echo "$f: ethtool -K on failed"; rc=1; }
		n=$((n + 1))
	done < <(ethtool -k "$A" | awk '$2 == "on" && $3 != "[fixed]" {sub(":", "", $1); print $1, $2}' |
		grep -vE '^(highdma|generic-segmentation-offload|generic-receive-offload|tx-gso-list|rx-gro-list|rx-udp-gro-forwarding|tx-nocache-copy)' )
	echo "$n driver features toggled"
	[ $n -gt 0 ] && [ $rc = 0 ] && ping_ok
}
ts_info() {
	local out
	out=$(ethtool -T "$A") || return 1
	echo "$out" | grep -E 'software-(receive|transmit)|PTP Hardware Clock' | tr -s '\t ' ' '
	grep -q software-receive <<< "$out"
}
# affinity_hints: every queue vector of $A (in-tree name <if>-Tx-Rx-<n>)
# publishes a non-empty affinity hint
affinity_hints() {
	local irq n=0 h
	for irq in $(awk -v k="$A-Tx-Rx-" 'index($NF, k) == 1 {sub(":", "", $1); print $1}' /proc/interrupts); do
		h=$(cat "/proc/irq/$irq/affinity_hint")
		echo "irq $irq hint $h"
		[ -n "${h//[0,]/}" ] || return 1
		n=$((n + 1))
	done
	[ $n -gt 0 ]
}
# netconsole: a kernel message sent by netpoll through $A reaches the peer
netcons() {
	local mac msg=ena-dropin-netconsole-$$ i
	mac=$(ip netns exec ena-peer cat "/sys/class/net/$B/address")
	ip netns exec ena-peer python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.77.0.2", 6666)); s.settimeout(15)
try:
    while True:
        d = s.recv(4096)
        sys.stdout.write(d.decode(errors="replace")); sys.stdout.flush()
except socket.timeout:
    pass' > "$tmpd/nc.out" &
	sleep 1
	modprobe netconsole "netconsole=6665@10.77.0.1/$A,6666@10.77.0.2/$mac" ||
		{ echo "modprobe netconsole failed"; return 1; }
	for ((i = 0; i < 20; i++)); do
		echo "<4>$msg" > /dev/kmsg
		grep -q "$msg" "$tmpd/nc.out" && break
		sleep 0.5
	done
	modprobe -r netconsole
	grep -m1 "$msg" "$tmpd/nc.out" || { echo "the peer received: $(head -c 300 "$tmpd/nc.out")"; return 1; }
	ping_ok
}
# tx_watchdog: the device stops sending (tx-hold); a burst fills the queue,
# which stops; after the stack's TX watchdog (5 s) the driver counts
# tx_timeout and resets the device; traffic passes once the device sends
# again. The device's missing-completion hint is set long (60 s, at load)
# so that the watchdog, not that check, notices first.
tx_watchdog() {
	local r0 t0=$SECONDS
	r0=$(model_get ena0 stat-resets)
	# the device sends again as soon as the watchdog fired: the qdisc's
	# backlog must not stop the restarted queue a second time
	tx_stall 5000 30
	wait_model_reset "$r0" 10 >/dev/null
	echo "tx_timeout $TXTO0 -> $TXTO1 after $((SECONDS - t0)) s, device resets $r0 -> $(model_get ena0 stat-resets)"
	[ "${TXTO1:-0}" -gt "${TXTO0:-0}" ] && [ "$(model_get ena0 stat-resets)" -gt "$r0" ] || return 1
	wait_carrier "$A" 20 && ping_ok 5
}
# aenq_fatal: a FATAL_ERROR event from the device leads to a reset, and
# traffic passes after it
aenq_fatal() {
	local r0
	r0=$(model_get ena0 stat-resets)
	model_set ena0 fault-aenq-fatal true || return 1
	wait_model_reset "$r0" 20 >/dev/null
	dmesg | grep -i "fatal error event" | tail -n 1
	echo "device resets $r0 -> $(model_get ena0 stat-resets)"
	[ "$(model_get ena0 stat-resets)" -gt "$r0" ] || return 1
	wait_carrier "$A" 20 && ping_ok 5
}
# fewer_after_reset: the device comes back from a reset offering one queue
# and 256-entry rings; the interface follows, says so, and passes traffic
fewer_after_reset() {
	local r0 i q rx tx
	QMAX0=$(model_get ena0 max-queues) DMAX0=$(model_get ena0 max-depth)
	r0=$(model_get ena0 stat-resets)
	model_set_many ena0 max-queues 1 max-depth 256 fault-fatal true
	wait_model_reset "$r0" 20 >/dev/null
	model_set ena0 fault-fatal false
	wait_carrier "$A" 20
	for ((i = 0; i < 40; i++)); do
		q=$(chan Current)
		[ "$q" = 1 ] && break
		sleep 0.25
	done
	rx=$(ring Current RX) tx=$(ring Current TX)
	echo "after the reset: combined $q, rings RX $rx TX $tx"
	dmesg | grep -E "$A: (device offers|rings .* after the reset)" | tail -n 2
	[ "$q" = 1 ] && [ "$rx" -le 256 ] && [ "$tx" -le 256 ] || return 1
	dmesg | grep -q "$A: device offers 1 queues after the reset" || return 1
	ping_ok 5 || return 1
	# back to the full device at the next load
	model_set_many ena0 max-queues "$QMAX0" max-depth "$DMAX0"
}
# rx_hash: the hash the device computed for a received datagram reaches
# the stack (the skb's hash, marked L4 for UDP), equal to the Toeplitz hash
# of the 4-tuple under the key ethtool -x reports; none with rx-hashing off
rx_hash() {
	local rc
	ip netns exec ena-peer ethtool -k "$B" | grep '^receive-hashing:'
	python3 "$(dirname "$0")/rx_hash.py" ena-peer "$B" 8 on || return 1
	ip netns exec ena-peer ethtool -K "$B" rx-hashing off || return 1
	python3 "$(dirname "$0")/rx_hash.py" ena-peer "$B" 4 off
	rc=$?
	ip netns exec ena-peer ethtool -K "$B" rx-hashing on
	return $rc
}
# linearize: the device takes 2 buffers per packet (max-tx-sgl, read at
# load); TCP sent with sendfile at MTU 9000 makes packets of 3 or more page
# fragments, which the driver linearizes (queue_<n>_tx_linearize), so the
# device sees no packet over its limit (the model counts and drops those)
# and the data arrives intact
linearize() {
	local l0 l1 o0 o1 srv rc=0
	pair_teardown; ena_unload || return 1
	model_set ena0 max-tx-sgl 2 && model_set ena1 max-tx-sgl 2 || return 1
	ena_load && ena_wait_ifaces 5 && setup_pair || return 1
	ip link set "$A" mtu 9000 && ip -n ena-peer link set "$B" mtu 9000 || return 1
	head -c 8M /dev/urandom > "$tmpd/lin-tx"
	l0=$(eth_stat_sum "$A" '^queue_[0-9]+_tx_linearize$') o0=$(model_get ena0 stat-tx-over-sgl)
	ip netns exec ena-peer socat -u TCP-LISTEN:5002,reuseaddr "OPEN:$tmpd/lin-rx,creat,trunc" &
	srv=$!
	peer_wait_listen 5002
	timeout $((60 * ${ENA_TIMEOUT_SCALE:-1})) python3 -c '
import socket, sys
s = socket.create_connection(("10.77.0.2", 5002))
with open(sys.argv[1], "rb") as f:
    s.sendfile(f)
s.close()' "$tmpd/lin-tx" || { echo "8 MiB not sent"; rc=1; }
	wait $srv || rc=1
	l1=$(eth_stat_sum "$A" '^queue_[0-9]+_tx_linearize$') o1=$(model_get ena0 stat-tx-over-sgl)
	echo "linearized $l0 -> $l1 (failed: $(eth_stat_sum "$A" '^queue_[0-9]+_tx_linearize_failed$')), packets over the device's limit $o0 -> $o1"
	[ "$(sha256sum < "$tmpd/lin-tx")" = "$(sha256sum < "$tmpd/lin-rx")" ] || { echo "the data differs"; rc=1; }
	model_set ena0 max-tx-sgl 32; model_set ena1 max-tx-sgl 32
	[ $rc = 0 ] && [ "$l1" -gt "$l0" ] && [ "$o1" = "$o0" ]
}
# no_llq: with LLQ not offered, the TX queues keep their descriptors in
# host memory (the model's queue list says where) and traffic passes
no_llq() {
	local q
	pair_teardown; ena_unload || return 1
	model_set ena0 llq false && model_set ena1 llq false || return 1
	ena_load && ena_wait_ifaces 5 && setup_pair || return 1
	q=$(model_get ena0 queues | grep '^sq [0-9]* tx')
	echo "$q"
	[ -n "$q" ] && ! grep -qv ' host$' <<< "$q" || return 1
	ping_ok 10
}
# pci_order_names: device 0's admin commands 5 ms slower than the others',
# so its probe would end last with the devices probing in parallel (ours
# with probe_parallel=1); the interfaces still get their names in PCI order
# (eth<N> numbered as the addresses sort), as a probe one device after the
# other (stock, ours' default) gives them
pci_order_names() {
	local bdf ifc n prev=-1 rc=0
	pair_teardown; ena_unload || return 1
	model_set ena0 admin-latency-us 5000 || return 1
	if is_ours; then ena_load probe_parallel=1; else ena_load; fi &&
		ena_wait_ifaces 5 20 || rc=1
	model_set ena0 admin-latency-us 0
	[ $rc = 0 ] || return 1
	while read -r bdf _; do
		ifc=$(iface_of "$bdf") n=
		[[ $ifc =~ ([0-9]+)$ ]] && n=${BASH_REMATCH[1]}
		echo "$bdf: ${ifc:-no interface}"
		{ [ -n "$n" ] && [ "$n" -gt "$prev" ]; } || rc=1
		prev=${n:-$prev}
	done < <(ena_pci_devs)
	if is_ours; then
		echo "probe_parallel=$(cat /sys/module/ena/parameters/probe_parallel)"
		[ "$(cat /sys/module/ena/parameters/probe_parallel)" = Y ] || rc=1
	fi
	[ $rc = 0 ] && setup_pair
}

ktap_header 21
d0=$(dmesg_lines)
[ "$(ena_pci_devs | wc -l)" = 5 ] || echo "# expected 5 devices (tests.list gives their IDs)"
# the missing-completion check waits 60 s (the device's hint), so the TX
# watchdog case sees the watchdog first
model_set ena0 hint-missing-tx-ms 60000; model_set ena1 hint-missing-tx-ms 60000
if ! { ena_load && ena_wait_ifaces 5 20; } >/dev/null 2>&1; then
	ktap_fail "load: every device gets an interface"
else
	ktap_pass "load: every device gets an interface"
fi
ktap_check "every PCI ID of the in-tree table binds (1d0f:${ids// /, 1d0f:})" all_ids_bound
ktap_check "an invalid MAC from the device: a random unicast one, addr_assign_type 1, the interface opens" random_mac
if ! ktap_run setup_pair; then
	ktap_fail "traffic between devices 0 and 1"
else
	ktap_pass "traffic between devices 0 and 1"
fi
ktap_check "ethtool -i: driver ena, bus-info the PCI address" drvinfo
ktap_check "host info to the device: OS type, release, kernel version, CPUs, PCI address" host_info
ktap_check "host info follows the interface's features: gro off and on, within 3 s each" host_info_features
ktap_check "ethtool -K: each changeable feature goes off and on, traffic passes" toggles
ktap_check "RX hash to the stack: the device's Toeplitz hash, L4 for UDP; none with rx-hashing off" rx_hash
ktap_check "ethtool -T: software receive timestamps" ts_info
ktap_check "every queue IRQ ($A-Tx-Rx-<n>) has an affinity hint" affinity_hints
if grep -q '/netconsole.ko' "/lib/modules/$(uname -r)/modules.builtin" 2>/dev/null; then
	ktap_skip "netconsole (netpoll) through the interface" "netconsole built into this kernel: configured at boot only"
elif modinfo netconsole >/dev/null 2>&1; then
	ktap_check "netconsole (netpoll) through the interface: the message reaches the peer" netcons
else
	ktap_skip "netconsole (netpoll) through the interface" "no netconsole module in this kernel"
fi
ktap_check "TX watchdog: a device that stopped sending is counted (tx_timeout) and reset, traffic back" tx_watchdog
if is_ours; then
	ktap_check "a FATAL_ERROR event from the device: reset, traffic back" aenq_fatal
else
	ktap_skip "a FATAL_ERROR event from the device" "the in-tree driver logs it as an unknown event (features table)"
fi
if is_ours; then
	ktap_check "a device offering 1 queue and 256-entry rings after a reset: interface follows, logged, traffic" \
		fewer_after_reset
else
	ktap_skip "a device offering fewer queues after a reset" "the in-tree driver does not reconcile (features table)"
fi
ktap_check "a device taking 2 buffers per packet: 3-fragment packets linearized (counted), none over the limit, data intact" \
	linearize
ktap_check "no LLQ offered: TX descriptors in host memory, traffic passes" no_llq
ktap_check "device 0's probe the slowest: interface names still in PCI order$(is_ours && echo ' (probe_parallel=1)')" \
	pci_order_names
ktap_check "a MAC address changed across a reset is refused$(is_ours && echo ', the interface back once the device reports the old one')" mac_changed
ktap_check "modprobe by the device's modalias loads this ena$(is_ours && echo ' (from updates/)'), every device binds" \
	modalias_autoload
pair_teardown
unload_clean() { ena_rmmod && dmesg_clean "$d0"; }
ktap_check "module unloads, kernel log clean" unload_clean
ktap_finish
