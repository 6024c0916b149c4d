#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The device model against a hostile client: with no driver loaded, the
# first ENA device gets random register writes, admin commands (random
# opcodes, features, sizes; DMA addresses in a locked buffer, beyond guest
# RAM, or 0), IO doorbells, LLQ writes, readless reads and resets
# (model_fuzz.py). QEMU must survive every round (the monitor still
# answers), and afterwards the driver under test (ENA_DRIVER) must bind
# both devices, the fuzzed one included, and pass traffic: a device reset
# leaves nothing of the fuzz behind.
#
# Rounds of ENA_FUZZ_STEPS (1000) steps, each with its own seed: at least
# ENA_FUZZ_MIN_ROUNDS (3), at most ENA_FUZZ_ROUNDS (20, the old 20000
# steps), none added after ENA_FUZZ_BUDGET_S (60) seconds; ENA_TEST_LONG=1
# runs all. The device's IOMMU group is switched to identity while the
# fuzz runs (so its DMA reaches the buffer; addresses beyond RAM still
# fault: run with ENA_CHECKER_XFAIL=DMAR), and back afterwards.
. "$(dirname "$0")/ena_lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
rounds=${ENA_FUZZ_ROUNDS:-20}
floor=${ENA_FUZZ_MIN_ROUNDS:-3}
steps=${ENA_FUZZ_STEPS:-1000}
budget=${ENA_FUZZ_BUDGET_S:-60}
seed0=${ENA_FUZZ_SEED:-1}

DEV= GROUP= GROUP_TYPE=
# restore_group: the IOMMU group's default domain as it was before the fuzz
restore_group() {
	[ -n "$GROUP_TYPE" ] || return 0
	local t=$GROUP_TYPE
	GROUP_TYPE=
	echo "$t" > "$GROUP/type"
}
cleanup() {
	[ -n "$DEV" ] && echo 0 > "$DEV/enable" 2>/dev/null
	restore_group 2>/dev/null
	pair_teardown
	ena_unload 2>/dev/null
}
trap cleanup EXIT

# the first ENA device of the model (ena0, lowest PCI address)
first_ena_dev() {
	local d
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor")" = 0x1d0f ] && { echo "$d"; return 0; }
	done
	return 1
}

# unbound: no driver holds the device, memory decoding on, and (with an
# IOMMU) its group translating 1:1
unbound() {
	ena_unload || return 1
	DEV=$(first_ena_dev) || { echo "no ENA device"; return 1; }
	[ -e "$DEV/driver" ] && { echo "$DEV is bound to $(basename "$(readlink "$DEV/driver")")"; return 1; }
	echo 1 > "$DEV/enable" || return 1
	echo "device $(basename "$DEV")"
	[ -e "$DEV/iommu_group" ] || { echo "no IOMMU: DMA addresses are physical"; return 0; }
	GROUP=$(readlink -f "$DEV/iommu_group")
	local t
	t=$(cat "$GROUP/type" 2>/dev/null)
	case $t in
	identity) echo "IOMMU group already identity"; return 0;;
	DMA|DMA-FQ) ;;
	*) echo "IOMMU group type '$t' cannot be switched"; return 1;;
	esac
	if [ "$(ls "$GROUP/devices" | wc -l)" != 1 ]; then
		echo "IOMMU group $(basename "$GROUP") holds other devices"; return 1
	fi
	echo identity > "$GROUP/type" || return 1
	GROUP_TYPE=$t
	echo "IOMMU group $(basename "$GROUP"): $t -> identity"
}

# fuzz_round SEED: one round; the monitor must answer afterwards
fuzz_round() {
	timeout 300 python3 "$here/model_fuzz.py" "$DEV" "$steps" "$1" || return 1
	model_get ena0 stat-resets >/dev/null || { echo "QEMU monitor does not answer"; return 1; }
}

ktap_header 6
d0=$(dmesg_lines)
ktap_diag "driver: $ENA_DRIVER, kernel $(uname -r)"
ktap_check "no driver, device memory enabled, DMA 1:1" unbound

budget_start "$budget"
ok=1
# every kind of protocol error is what the fuzz is for, until it ends
model_expect_errors ena0 all
for ((i = 0; i < rounds; i++)); do
	budget_more "$i" "$floor" || break
	out=$(fuzz_round $((seed0 + i)) 2>&1) || { ok=0; echo "$out" | sed 's/^/# /'; i=$((i + 1)); break; }
done
ktap_diag "ran $i of $rounds rounds of $steps steps: $(budget_why "$i" "$rounds")"
model_expect_errors ena0 ""
ktap_diag "model after the fuzz: $(model_get ena0 stat-admin-cmds) admin commands, $(model_get ena0 stat-resets) resets, protocol errors $(model_get ena0 guest-errors-expected)"
if [ $ok = 1 ] && [ "$i" -gt 0 ]; then ktap_pass "$i fuzz rounds, QEMU survives each"
else ktap_fail "$i fuzz rounds, QEMU survives each"; fi

echo 0 > "$DEV/enable"
ktap_check "IOMMU group back to its default domain" restore_group
driver_up() { ena_load && ena_wait_ifaces 2 && pair_setup && wait_carrier "$A" && ping_ok; }
ktap_check "$ENA_DRIVER driver binds both devices after the fuzz, traffic passes" driver_up
pair_teardown
ktap_check "rmmod ena" ena_unload
ktap_check "kernel log clean (no BUG/WARNING/Oops/leak)" dmesg_clean "$d0"
ktap_finish
