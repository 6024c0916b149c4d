#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Link state from the model's monitor (set_link) must reach the carrier:
# off/on once, then 50 flaps in a row, and traffic still passes afterwards.
. "$(dirname "$0")/ena_lib.sh"

cleanup() { pair_teardown; ena_unload 2>/dev/null; }
trap cleanup EXIT

ktap_header 7
d0=$(dmesg_lines)
ena_load && ena_wait_ifaces 2 && pair_setup || { ktap_diag "setup failed"; }
ktap_check "carrier up" wait_carrier "$A"
ktap_check "set_link off: carrier drops" bash -c "$(declare -f wait_no_carrier nsx); $QMP set_link ena0 off && wait_no_carrier $A 10"
ktap_check "set_link on: carrier returns" bash -c "$(declare -f wait_carrier nsx); $QMP set_link ena0 on && wait_carrier $A 10"
flaps() {
	local i
	for ((i = 0; i < 50; i++)); do
		"$QMP" set_link ena0 off && wait_no_carrier "$A" 10 || { ktap_diag "flap $i: carrier stayed up"; return 1; }
		"$QMP" set_link ena0 on && wait_carrier "$A" 10 || { ktap_diag "flap $i: carrier stayed down"; return 1; }
	done
}
ktap_check "50 flaps, carrier follows each" flaps
ktap_check "traffic passes after the flaps" ping_ok 5
pair_teardown
ktap_check "rmmod ena" ena_unload
ktap_check "kernel log clean" dmesg_clean "$d0"
ktap_finish
