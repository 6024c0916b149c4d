#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shutdown, as kexec runs it: with both interfaces up and passing traffic,
# the guest kexecs into the same kernel (`kexec -l`, `kexec -e`: the
# kernel's device_shutdown() calls the driver's .shutdown). After the
# jump, before any driver binds, the device must hold no guest address it
# could still write to or read from (admin queue, completions, AENQ, MMIO
# read response, host info, IO queues) and bus mastering must be off: a
# device left running would write its keep-alives into the new kernel's
# memory. Then the new kernel's driver binds both devices and traffic
# passes, the kernel log clean.
#
# The test runs twice, once per kernel: the first run records where it
# stopped in the runner's shared directory (/run/ena-vm), which survives
# the jump; the guest's second stage runs the command again after the new
# kernel boots, and this run picks up from there. Needs the runner's
# 9p root (not --ramroot) and kexec-tools (make setup installs it).
. "$(dirname "$0")/ena_lib.sh"

state=/run/ena-vm/shutdown.state
cleanup() {
	pair_teardown; ena_unload 2>/dev/null
}

# targets DEV: the model's list of what the device would still DMA to
targets() { model_get "$1" dma-targets; }
# bus_master BDF: the PCI command register's bus master bit, as the guest
# reads it from config space
bus_master() {
	local cmd
	cmd=$(od -An -tx2 -j4 -N2 "/sys/bus/pci/devices/$1/config" | tr -d ' ')
	(( 0x$cmd & 4 )) && echo on || echo off
}

before() {
	local i
	for ((i = 0; i < ENA_NDEV; i++)); do echo "ena$i: $(targets ena$i)"; done
	ping_ok 5 && targets ena0 | grep -q 'aenq .*bus-master on'
}
# jump: load the running kernel with its own initrd and command line, and
# execute it (returns only on failure)
jump() {
	local k=$ENA_CACHE/kernels/$ENA_RELEASE
	kexec -l "$k/boot/vmlinuz-$ENA_RELEASE" --initrd="$k/initrd.img" \
		--command-line="$(cat /proc/cmdline)" || return 1
	# the new kernel starts the command again: it continues from here
	echo "KTAP_N=$KTAP_N KTAP_PASS=$KTAP_PASS KTAP_FAIL=$KTAP_FAIL KTAP_SKIP=$KTAP_SKIP KTAP_XFAIL=$KTAP_XFAIL" > "$state"
	sync
	echo "kexec -e"
	kexec -e
	rm -f "$state"
	echo "kexec -e returned"
	return 1
}
# quiet: after the jump, before a driver binds, every device holds no DMA
# target and has bus mastering off
quiet() {
	local i t bdf bm ok=0
	for ((i = 0; i < ENA_NDEV; i++)); do
		t=$(targets ena$i)
		echo "ena$i: $t"
		[ "$t" = "bus-master off" ] || ok=1
	done
	for bdf in $(ena_pci_devs | cut -d' ' -f1); do
		bm=$(bus_master "$bdf")
		echo "$bdf: bus mastering $bm (config space)"
		[ "$bm" = off ] || ok=1
	done
	return $ok
}
setup_pair() {
	ena_load && ena_wait_ifaces "$ENA_NDEV" 20 && pair_setup || return 1
	wait_carrier "$A" 20 && ping_ok 5
}
unload_clean() {
	pair_teardown
	ena_rmmod || return 1
	dmesg_clean 1 || return 1
	! dmesg | grep -E 'DMAR: \[DMA|PTE (Read|Write) access'
}

if [ ! -f "$state" ]; then
	trap cleanup EXIT
	ktap_header 5
	why=
	[ -e /sys/kernel/kexec_loaded ] || why="this kernel has no kexec"
	command -v kexec >/dev/null || why="no kexec (make setup installs kexec-tools)"
	if [ -n "$why" ]; then
		for c in "before: traffic passes, the device has its DMA targets" \
			 "kexec into the same kernel: device_shutdown() runs .shutdown" \
			 "after kexec: no DMA target on the device, bus mastering off" \
			 "after kexec: the driver binds every device, traffic passes" \
			 "after kexec: module unloads, kernel log clean (no DMAR fault)"; do
			ktap_skip "$c" "$why"
		done
		ktap_finish
	fi
	if ! ktap_run setup_pair; then
		ktap_fail "before: traffic passes, the device has its DMA targets"
	else
		ktap_check "before: traffic passes, the device has its DMA targets" before
	fi
	# leave the interfaces up: the shutdown must stop a running device
	trap - EXIT
	ktap_run jump
	ktap_fail "kexec into the same kernel: device_shutdown() runs .shutdown"
	cleanup
	ktap_finish
fi

# the second run, in the new kernel
eval "$(cat "$state")"
rm -f "$state"
trap cleanup EXIT
ktap_pass "kexec into the same kernel: device_shutdown() runs .shutdown"
ktap_check "after kexec: no DMA target on the device, bus mastering off" quiet
ktap_check "after kexec: the driver binds every device, traffic passes" setup_pair
ktap_check "after kexec: module unloads, kernel log clean (no DMAR fault)" unload_clean
ktap_finish
