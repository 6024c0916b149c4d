#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The probe/open race: cycles alternating a module reload (rmmod; insmod)
# and a PCI unbind/bind of the first device, with a netlink listener that
# brings each new interface up the instant RTM_NEWLINK announces it (every
# 5th cycle it also downs and ups it again at once). Every cycle must end
# with the interface UP, carrier on, operstate "up" (what `ip link` shows as
# "state UP") and a ping passing. Run at admin latency 0 and again at
# ENA_RACE_LATENCY_US (default 2000) to widen any window.
#
# Each phase is bounded by count and by time: at least ENA_RACE_MIN_CYCLES
# (30) and at most ENA_RACE_CYCLES (300) cycles, adding none once
# ENA_RACE_BUDGET_S (40) seconds are spent; the slow phase likewise with
# ENA_RACE_SLOW_MIN_CYCLES (5), ENA_RACE_SLOW_CYCLES (a tenth of the cycles)
# and ENA_RACE_SLOW_BUDGET_S (10). ENA_TEST_LONG=1 runs the full counts. The
# KTAP diagnostics say how many cycles ran, why they stopped, and split the
# mean cycle time into its phases.
#
# A cycle starts as few processes as it can (each exec costs tens of ms
# under TCG): the listener checks the interfaces' state itself, the peer
# namespace lives for the whole test, one ip(8) per namespace.
. "$(dirname "$0")/ena_lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
cycles=${ENA_RACE_CYCLES:-300}
floor=${ENA_RACE_MIN_CYCLES:-30}
budget=${ENA_RACE_BUDGET_S:-40}
slow=${ENA_RACE_LATENCY_US:-2000}
slow_cycles=${ENA_RACE_SLOW_CYCLES:-$(( (cycles + 9) / 10 ))}
slow_floor=${ENA_RACE_SLOW_MIN_CYCLES:-5}
slow_budget=${ENA_RACE_SLOW_BUDGET_S:-10}

cleanup() {
	for d in ena0 ena1; do model_set $d admin-latency-us 0 >/dev/null 2>&1; done
	pair_teardown; ena_unload 2>/dev/null
}
trap cleanup EXIT

if is_ours; then load=(insmod "$ENA_KO"); else load=(modprobe ena); fi

# where a cycle's time goes: PHASE_US[name] += microseconds since the last tick
declare -A PHASE_US
tick() {
	local now=${EPOCHREALTIME/./}
	PHASE_US[$1]=$(( ${PHASE_US[$1]:-0} + now - TICK ))
	TICK=$now
}

# listen N CMD...: run CMD under the netlink listener, which brings the new
# interfaces up at once and checks that N of them are up with carrier and
# operstate up; sets A (and B) to them in MAC order
listen() {
	local n=$1 j re='"order": \["([^"]+)"(, "([^"]+)")?'; shift
	j=$("$here/ena_nl.py" --up $flap --check --count "$n" --timeout 20 -- "$@") ||
		{ echo "# cycle $i: $j"; return 1; }
	[[ $j =~ $re ]] || { echo "# cycle $i: no interface: $j"; return 1; }
	A=${BASH_REMATCH[1]} B=${BASH_REMATCH[3]}
	[ "$n" = 1 ] || [ -n "$B" ] || { echo "# cycle $i: one interface of $n: $j"; return 1; }
}

# one_cycle N: returns 0 when the cycle ended UP with traffic passing
one_cycle() {
	local i=$1 flap=
	(( i % 5 == 0 )) && flap=--flap
	TICK=${EPOCHREALTIME/./}
	if (( i % 2 )); then
		# the peer interface goes with the module; its namespace stays
		rmmod ena || return 1
		tick remove
		listen 2 "${load[@]}" || return 1
		tick load_to_carrier
		ip -b - <<-EOF || { echo "# cycle $i: addresses failed"; return 1; }
			link set $B netns ena-peer
			addr add 10.77.0.1/24 dev $A
		EOF
		ip -n ena-peer -b - <<-EOF || { echo "# cycle $i: peer set-up failed"; return 1; }
			addr add 10.77.0.2/24 dev $B
			link set $B up
		EOF
	else
		echo "$BDF" > /sys/bus/pci/drivers/ena/unbind || return 1
		tick remove
		listen 1 sh -c "echo $BDF > /sys/bus/pci/drivers/ena/bind" || return 1
		tick load_to_carrier
		ip addr add 10.77.0.1/24 dev "$A" || { echo "# cycle $i: address failed"; return 1; }
	fi
	tick check_and_addresses
	ping -q -c 1 -W 2 10.77.0.2 >/dev/null 2>&1 || ping -q -c 2 -W 2 10.77.0.2 >/dev/null 2>&1 ||
		{ echo "# cycle $i: ping failed"; return 1; }
	tick ping
}

run_phase() { # $1: admin latency us, $2: cycles at most, $3: at least, $4: budget s
	local lat=$1 n=$2 i fails=0 t0 t1 p split=
	PHASE_US=()
	for d in ena0 ena1; do model_set $d admin-latency-us "$lat"; done
	t0=$SECONDS
	budget_start "$4"
	for ((i = 0; i < n; i++)); do
		budget_more "$i" "$3" || break
		one_cycle "$((i + 1))" || fails=$((fails + 1))
	done
	t1=$SECONDS
	for p in remove load_to_carrier check_and_addresses ping; do
		split+=" $p $(( ${PHASE_US[$p]:-0} / (i ? i : 1) / 1000 ))"
	done
	ktap_diag "driver=$ENA_DRIVER latency=${lat}us cycles=$i of $n failures=$fails ($((t1 - t0)) s): $(budget_why "$i" "$n")"
	ktap_diag "mean ms per cycle:$split"
	[ $fails = 0 ] && [ "$i" -gt 0 ]
}

ktap_header 3
d0=$(dmesg_lines)
ena_load && ena_wait_ifaces 2 && pair_setup && wait_carrier "$A" || ktap_diag "initial setup failed"
BDF=$(ena_bdf "$A")
ktap_check "$floor..$cycles cycles at admin latency 0: every one ends UP, carrier, operstate up, ping" \
	run_phase 0 "$cycles" "$floor" "$budget"
ktap_check "$slow_floor..$slow_cycles cycles at admin latency ${slow} us: every one ends UP, carrier, operstate up, ping" \
	run_phase "$slow" "$slow_cycles" "$slow_floor" "$slow_budget"
pair_teardown; ena_unload
ktap_check "kernel log clean" dmesg_clean "$d0"
ktap_finish
