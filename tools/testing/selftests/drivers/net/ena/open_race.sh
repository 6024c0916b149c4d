#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The probe/open race: ENA_RACE_CYCLES cycles (default 300), alternating a
# module reload (rmmod; insmod) and a PCI unbind/bind of the first device,
# with a netlink listener that brings each new interface up the instant
# RTM_NEWLINK announces it (every 5th cycle it also downs and ups it again at
# once). Every cycle must end with the interface UP, carrier on and a ping
# passing. Run at admin latency 0 and again, ENA_RACE_SLOW_CYCLES times
# (default a tenth), at ENA_RACE_LATENCY_US (default 2000) to widen any
# window. The stock driver's figures are reported too. A diagnostic line
# splits the mean cycle time into its phases.
. "$(dirname "$0")/ena_lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
cycles=${ENA_RACE_CYCLES:-300}
slow=${ENA_RACE_LATENCY_US:-2000}
slow_cycles=${ENA_RACE_SLOW_CYCLES:-$(( (cycles + 9) / 10 ))}

cleanup() {
	for d in ena0 ena1; do model_set $d admin-latency-us 0 >/dev/null 2>&1; done
	pair_teardown; ena_unload 2>/dev/null
}
trap cleanup EXIT

if is_ours; then load=(insmod "$ENA_KO"); else load=(modprobe ena); fi
is_up() { # IFACE: administratively up with carrier
	local f
	f=$(cat "/sys/class/net/$1/flags" 2>/dev/null) || return 1
	(( f & 1 )) && [ "$(cat "/sys/class/net/$1/carrier" 2>/dev/null)" = 1 ]
}

# where a cycle's time goes: PHASE_US[name] += microseconds since the last tick
declare -A PHASE_US
tick() {
	local now=${EPOCHREALTIME/./}
	PHASE_US[$1]=$(( ${PHASE_US[$1]:-0} + now - TICK ))
	TICK=$now
}

# one_cycle N: returns 0 when the cycle ended UP with traffic passing
one_cycle() {
	local i=$1 flap= j bdf n want
	(( i % 5 == 0 )) && flap=--flap
	TICK=${EPOCHREALTIME/./}
	if (( i % 2 )); then
		pair_teardown
		ena_unload || return 1
		tick remove
		want=2
		j=$("$here/ena_nl.py" --up $flap --count 2 --timeout 20 -- "${load[@]}")
	else
		bdf=$(basename "$(readlink -f "/sys/class/net/$A/device")")
		echo "$bdf" > /sys/bus/pci/drivers/ena/unbind || return 1
		tick remove
		want=1
		j=$("$here/ena_nl.py" --up $flap --count 1 --timeout 20 -- \
			sh -c "echo $bdf > /sys/bus/pci/drivers/ena/bind")
	fi
	tick load_to_carrier
	n=$(grep -o '"carrier_us"' <<< "$j" | wc -l)
	if [ "$n" -lt "$want" ]; then echo "# cycle $i: only $n of $want interfaces reached carrier: $j"; return 1; fi
	if (( i % 2 )); then
		mapfile -t ifs < <(ena_ifaces)
		for f in "${ifs[@]}"; do is_up "$f" || { echo "# cycle $i: $f not UP with carrier"; return 1; }; done
		pair_setup >/dev/null 2>&1 || { echo "# cycle $i: pair setup failed"; return 1; }
	else
		A=$(ena_ifaces | head -n1)
		is_up "$A" || { echo "# cycle $i: $A not UP with carrier after bind"; return 1; }
		ip addr add 10.77.0.1/24 dev "$A"
	fi
	tick check_and_addresses
	ping -q -c 1 -W 2 10.77.0.2 >/dev/null 2>&1 || ping -q -c 2 -W 2 10.77.0.2 >/dev/null 2>&1 ||
		{ echo "# cycle $i: ping failed"; return 1; }
	tick ping
}

run_phase() { # $1: admin latency us, $2: cycles
	local lat=$1 n=$2 i fails=0 t0 t1 p split=
	PHASE_US=()
	for d in ena0 ena1; do model_set $d admin-latency-us "$lat"; done
	t0=$(date +%s)
	for ((i = 1; i <= n; i++)); do
		one_cycle "$i" || fails=$((fails + 1))
	done
	t1=$(date +%s)
	for p in remove load_to_carrier check_and_addresses ping; do
		split+=" $p $(( ${PHASE_US[$p]:-0} / n / 1000 ))"
	done
	ktap_diag "driver=$ENA_DRIVER latency=${lat}us cycles=$n failures=$fails ($((t1 - t0)) s)"
	ktap_diag "mean ms per cycle:$split"
	[ $fails = 0 ]
}

ktap_header 3
d0=$(dmesg_lines)
ena_load && ena_wait_ifaces 2 && pair_setup && wait_carrier "$A" || ktap_diag "initial setup failed"
ktap_check "$cycles cycles at admin latency 0: every one ends UP, carrier, ping" run_phase 0 "$cycles"
ktap_check "$slow_cycles cycles at admin latency ${slow} us: every one ends UP, carrier, ping" run_phase "$slow" "$slow_cycles"
pair_teardown; ena_unload
ktap_check "kernel log clean" dmesg_clean "$d0"
ktap_finish
