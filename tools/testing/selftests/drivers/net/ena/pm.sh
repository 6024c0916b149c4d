#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Power management: the interface comes back from a sleep with its
# configuration (queue count, ring sizes, MTU, RSS table), passing traffic,
# with its ring memory back at the baseline, and the device was reset in
# between (nothing of it kept running or writing to memory while asleep).
#
# Two ways to sleep:
#  - The kernel's PM test mode (/sys/power/pm_test = devices, then
#    `echo freeze > /sys/power/state`, or `disk` for hibernation's
#    freeze/thaw: every driver's callbacks run, the machine does not sleep).
#    A virtio device reset across the sleep leaves a guest whose root is on
#    virtio-9p (no restore callback) without its files (seen: a hang right
#    after "crng reseeded on system resumption"). Two ways around it: the
#    runner gives the 9p devices PCI PM's No_Soft_Reset, which kernels from
#    6.9 on honour on suspend/resume (not on freeze/thaw), and `run
#    --ramroot 1` runs the test from a root in memory, where no 9p file is
#    touched. So the suspend case runs on a RAM root (every kernel) or where
#    p9_keeps_state says the 9p root survives (6.12), hibernation on a RAM
#    root only; elsewhere both are skipped with the reason (ENA_PM_TEST=1
#    forces them).
#  - Our driver's debugfs hook pm_cycle: its suspend and resume callbacks,
#    back to back, under the device lock as the PM core calls them (the PCI
#    core's own config-space save and power state change are not part of
#    it). The stock driver has no such hook: skipped for it.
. "$(dirname "$0")/ena_lib.sh"

cleanup() {
	echo none > /sys/power/pm_test 2>/dev/null
	pair_teardown; ena_unload 2>/dev/null
}
trap cleanup EXIT

# config: what must survive a sleep, one line
config() {
	echo "combined $(chan Current)" "rings RX:$(ring Current RX) TX:$(ring Current TX) " \
		"mtu $(cat "/sys/class/net/$A/mtu")" \
		"rss $(ethtool -x "$A" | awk '/^ *[0-9]+:/{for (i = 2; i <= NF; i++) printf "%s", $i}' | md5sum | cut -c1-8)"
}
# memory: our driver's ring bytes and coherent allocations still held
memory() {
	ethtool -S "$A" | awk '$1 == "ring_bytes:" {r = $2} $1 == "dma_coherent_allocs:" {a = $2}
		$1 == "dma_coherent_frees:" {f = $2} END {print "ring_bytes", r, "coherent_held", a - f}'
}

# sleep_and_check HOW...: one sleep (the command HOW...), then the checks
sleep_and_check() {
	local c0 c1 m0 m1 r0 r1 s0 s1 u0 u1 rc t0
	c0=$(config) m0=$(memory)
	r0=$(model_get ena0 stat-resets)
	s0=$(eth_stat "$A" suspend) u0=$(eth_stat "$A" resume)
	t0=${EPOCHREALTIME/./}
	"$@"; rc=$?
	echo "$*: status $rc, $(( (${EPOCHREALTIME/./} - t0) / 1000 )) ms"
	[ $rc = 0 ] || return 1
	wait_carrier "$A" || return 1
	ping_ok || { echo "no ping reply after resume"; return 1; }
	c1=$(config) m1=$(memory)
	r1=$(model_get ena0 stat-resets)
	s1=$(eth_stat "$A" suspend) u1=$(eth_stat "$A" resume)
	echo "before: $c0; $m0"
	echo "after:  $c1; $m1"
	echo "device resets $r0 -> $r1, ethtool -S suspend $s0 -> $s1, resume $u0 -> $u1"
	[ "$c0" = "$c1" ] || { echo "the configuration changed"; return 1; }
	is_ours || return 0
	[ "$m0" = "$m1" ] || { echo "ring memory differs from before the sleep"; return 1; }
	[ "$r1" -gt "$r0" ] || { echo "the device was not reset across the sleep"; return 1; }
	[ $((s1 - s0)) = 1 ] && [ $((u1 - u0)) = 1 ] || { echo "suspend/resume not counted once each"; return 1; }
}
pm_test_sleep() { # STATE
	echo devices > /sys/power/pm_test || return 1
	echo "$1" > /sys/power/state
	local rc=$?
	echo none > /sys/power/pm_test
	return $rc
}
# pci_no_soft_reset DEV: the PCI device (sysfs path) has a PM capability
# whose control register says No_Soft_Reset
pci_no_soft_reset() {
	local b pos id n=0
	read -ra b < <(od -An -v -tu1 -N256 "$1/config" | tr -s ' \n' ' ')
	[ ${#b[@]} -ge 64 ] && (( b[6] & 0x10 )) || return 1	# capability list
	pos=$(( b[0x34] & ~3 ))
	while [ "$pos" -ge 64 ] && [ $((n++)) -lt 48 ]; do
		id=${b[pos]}
		[ "$id" = 1 ] && return $(( !(b[pos + 4] & 0x08) ))	# PM: PMCSR bit 3
		pos=$(( b[pos + 1] & ~3 ))
	done
	return 1
}
# p9_keeps_state: every 9p share's virtio device keeps its state across a
# suspend to idle (No_Soft_Reset, honoured by the kernel from 6.9 on)
p9_keeps_state() {
	local d n=0 maj min
	IFS=. read -r maj min _ <<< "$(uname -r)"
	[ "$maj" -gt 6 ] || { [ "$maj" = 6 ] && [ "${min%%[!0-9]*}" -ge 9 ]; } || return 1
	for d in /sys/bus/virtio/drivers/9pnet_virtio/virtio*; do
		[ -e "$d" ] || continue
		pci_no_soft_reset "$(readlink -f "$d/..")" || return 1
		n=$((n + 1))
	done
	[ $n -gt 0 ]
}
# root_in_memory: this guest's root is a tmpfs (run --ramroot 1), not 9p
root_in_memory() { [ "$(stat -f -c %T /)" = tmpfs ]; }
pm_cycle() { echo 1 > "/sys/kernel/debug/ena/$(ena_bdf "$A")/pm_cycle"; }

ktap_header 5
d0=$(dmesg_lines)
if ! { ena_load && ena_wait_ifaces 2 && pair_setup && wait_carrier "$A" && ping_ok; } >/dev/null 2>&1; then
	ktap_fail "baseline (load, link, ping)"
else
	# a configuration other than the defaults, read back: a setting that
	# did not apply would leave the sleeps comparing defaults to defaults
	c_def=$(config)
	if { ethtool -G "$A" rx 512 tx 512 && ip link set "$A" mtu 1400 &&
	     ethtool -X "$A" weight 1 3 && ping_ok; } >/dev/null 2>&1 &&
	   [ "$(ring Current RX) $(ring Current TX) $(cat "/sys/class/net/$A/mtu")" = "512 512 1400" ] &&
	   [ "${c_def##*rss }" != "$(config | sed 's/.*rss //')" ]; then
		ktap_pass "baseline (load, link, ping; rings 512, MTU 1400, RSS weight 1 3)"
	else
		ktap_diag "defaults: $c_def"
		ktap_diag "now:      $(config)"
		ktap_fail "baseline (load, link, ping; rings 512, MTU 1400, RSS weight 1 3): the settings did not all apply"
	fi
fi
if is_ours; then
	ktap_check "suspend and resume callbacks (debugfs pm_cycle): config, memory and traffic back, device reset" \
		sleep_and_check pm_cycle
else
	ktap_skip "suspend and resume callbacks (debugfs pm_cycle)" "our driver's hook"
fi
t="system sleep (s2idle, pm_test=devices): config and traffic back"
if [ ! -w /sys/power/pm_test ]; then
	ktap_skip "$t" "no /sys/power/pm_test (CONFIG_PM_DEBUG)"
elif [ "${ENA_PM_TEST:-0}" = 1 ] || root_in_memory || p9_keeps_state; then
	ktap_check "$t" sleep_and_check pm_test_sleep freeze
else
	ktap_skip "$t" "this kernel resets the guest's virtio-9p root on resume (No_Soft_Reset is honoured from 6.9 on): runs on a RAM root (run --ramroot 1)"
fi
t="hibernation freeze/thaw (pm_test=devices): config and traffic back"
if [ ! -w /sys/power/pm_test ]; then
	ktap_skip "$t" "no /sys/power/pm_test (CONFIG_PM_DEBUG)"
elif [ "${ENA_PM_TEST:-0}" = 1 ] || root_in_memory; then
	ktap_check "$t" sleep_and_check pm_test_sleep disk
else
	ktap_skip "$t" "freeze/thaw resets every virtio device, and this guest's 9p root has no restore: runs on a RAM root (run --ramroot 1)"
fi
pair_teardown
unload_clean() { ena_rmmod && dmesg_clean "$d0"; }
ktap_check "module unloads, kernel log clean" unload_clean
ktap_finish
