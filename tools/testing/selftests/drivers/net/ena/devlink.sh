#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# devlink of our driver (iproute2's devlink, JSON output): `devlink dev
# info` names driver ena, the serial number is the MAC address, and the
# device's versions are there; `devlink health show` lists the reporters
# tx, rx, admin and device.  A fault of each of three classes (keep-alive
# loss: device; TX completions swallowed: tx; a dropped admin completion:
# admin) raises its reporter's error count, leaves a dump naming the reset
# reason, and the device recovers (ping).  With auto_recover false a fault
# (a FATAL_ERROR event: device) leaves the interface down (no carrier, no
# ping) until `devlink health recover`; within the grace period after a
# recovery a second fault is not recovered automatically either.
# The stock driver has no devlink: skipped, with the reason.
. "$(dirname "$0")/ena_lib.sh"

cleanup() {
	model_set_many ena0 keepalive-ms 1000 fault-tx-swallow 0 fault-drop-next 0 \
		hint-keepalive-ms 0 hint-missing-tx-ms 0 hint-missed-tx 0 >/dev/null 2>&1
	pair_teardown
	ena_unload 2>/dev/null
}
trap cleanup EXIT

NCASES=12
ktap_header $NCASES
d0=$(dmesg_lines)
ktap_diag "driver: $ENA_DRIVER, kernel $(uname -r), $(devlink -V 2>&1)"

# skip_rest REASON: every case left but the log check is skipped
skip_rest() {
	while [ "$KTAP_N" -lt $((NCASES - 1)) ]; do ktap_skip "devlink case $((KTAP_N + 1))" "$1"; done
	ktap_check "no kernel warnings" dmesg_clean "$d0"
	ktap_finish
}
is_ours || skip_rest "the stock driver registers no devlink instance"
command -v devlink >/dev/null || skip_rest "no devlink tool (iproute2)"

# shorter keep-alive and missing-TX timeouts (read at probe): each fault
# is seen within about 2 s
model_set_many ena0 hint-keepalive-ms 2000 hint-missing-tx-ms 2000 hint-missed-tx 1 >/dev/null
ktap_check "load $ENA_DRIVER driver" ena_load
ktap_check "both devices bound" ena_wait_ifaces 2
pair_setup || ktap_diag "pair setup failed"
ktap_check "carrier up on both, ping" eval 'wait_carrier "$A" && wait_carrier "$B" 15 ena-peer && ping_ok'
DL=pci/$(ena_bdf "$A")
ktap_diag "$A is $DL"

# dlpy CODE JSON ARGS...: python on devlink's JSON output, exit status = verdict
dlpy() { python3 -S -c "import json, sys; $1" "${@:2}"; }

info_check() {
	local j mac
	j=$(devlink -j dev info "$DL") || return 1
	mac=$(cat "/sys/class/net/$A/address")
	echo "dev info: $j"
	dlpy '
d = next(iter(json.loads(sys.argv[1])["info"].values()))
mac = sys.argv[2]
v = d.get("versions", {})
errs = []
drv, sn = d.get("driver"), d.get("serial_number")
if drv != "ena": errs.append(f"driver {drv!r}")
if sn != mac: errs.append(f"serial {sn!r} != MAC {mac}")
run, fixed = v.get("running", {}), v.get("fixed", {})
for k in ("fw", "fw.spec", "driver"):
    if not run.get(k): errs.append(f"no running version {k}")
if not fixed.get("asic.id"): errs.append("no fixed version asic.id")
sys.exit("; ".join(errs) or None)
' "$j" "$mac"
}
ktap_check "devlink dev info: driver ena, serial = MAC, device and driver versions" info_check

# rep_field REPORTER FIELD: a field of `devlink health show` (error,
# recover, state, auto_recover, grace_period: the name/value pairs from
# "state" on; a state "error" is no key); awk, not python: this runs often,
# and every process start costs under TCG
rep_field() {
	devlink health show "$DL" reporter "$1" |
		awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == "state") break
			for (; i < NF; i += 2) if ($i == k) { print $(i + 1); exit } }'
}
reporters_check() {
	local j
	# iproute2 6.1 names no device without a reporter: all, then ours
	j=$(devlink -j health show) || return 1
	echo "health show: $j"
	dlpy '
rs = {r["reporter"]: r for r in json.loads(sys.argv[1])["health"].get(sys.argv[2], [])}
want = {"tx", "rx", "admin", "device"}
if set(rs) != want: sys.exit(f"reporters {sorted(rs)}, expected {sorted(want)}")
for n, r in rs.items():
    if r["state"] != "healthy" or r["error"] != 0 or r["grace_period"] != 0 or r["auto_recover"] is not True:
        sys.exit(f"{n}: {r}, expected healthy, no error, grace 0, auto_recover on")
' "$j" "$DL"
}
ktap_check "devlink health show: reporters tx, rx, admin, device; healthy, grace 0, auto-recover on" reporters_check

# wait_errors REPORTER N: the reporter's error count passes N within 20 s
wait_errors() {
	local end=$((SECONDS + 20)) e
	while [ $SECONDS -lt $end ]; do
		e=$(rep_field "$1" error) && [ "$e" -gt "$2" ] && return 0
		sleep 0.5
	done
	echo "$1: error count still ${e:-?} (was $2) after 20 s"
	return 1
}
# dump_reason REPORTER: the reset reason in the reporter's stored dump
dump_reason() {
	devlink -j health dump show "$DL" reporter "$1" | dlpy '
def find(o):
    if isinstance(o, dict):
        if "reset" in o and isinstance(o["reset"], dict): return o["reset"]
        for v in o.values():
            r = find(v)
            if r: return r
    if isinstance(o, list):
        for v in o:
            r = find(v)
            if r: return r
r = find(json.load(sys.stdin))
print(r["reason"] if r else "none")'
}
# timed CMD...: CMD, then its wall time; the driver's last log lines when
# it failed
timed() {
	local t0=$SECONDS rc
	"$@"; rc=$?
	echo "took $((SECONDS - t0)) s"
	[ $rc = 0 ] || dmesg | grep -E ' ena |devlink' | tail -n 12
	return $rc
}
# inject FAULT: start one fault on ena0 (A's device)
inject() {
	case $1 in
	keepalive) model_set ena0 keepalive-ms 0;;
	tx) model_set ena0 fault-tx-swallow 4; ping -q -c 4 -i 0.2 -W 1 10.77.0.2;;
	admin) model_set ena0 fault-drop-next 1; ip link set "$A" mtu 1400;;
	fatal) model_set ena0 aenq-inject fatal-error;;
	esac >/dev/null 2>&1
}
# fault_case REPORTER FAULT REASON: the fault raises REPORTER's error
# count, its dump names REASON, the device is reset and recovers
fault_case() {
	local rep=$1 fault=$2 reason=$3 e0 c0 r0 got
	devlink health dump clear "$DL" reporter "$rep" 2>/dev/null
	e0=$(rep_field "$rep" error) c0=$(rep_field "$rep" recover) r0=$(model_get ena0 stat-resets)
	inject "$fault"
	wait_errors "$rep" "$e0" || return 1
	[ "$fault" = keepalive ] && model_set ena0 keepalive-ms 1000 >/dev/null
	wait_model_reset "$r0" || return 1
	got=$(dump_reason "$rep")
	echo "$rep: error $e0 -> $(rep_field "$rep" error), recover $c0 -> $(rep_field "$rep" recover), dump reason $got"
	[ "$got" = "$reason" ] || { echo "dump reason $got, expected $reason"; return 1; }
	ping_within 15 || return 1
	[ "$(rep_field "$rep" recover)" -gt "$c0" ] || { echo "recover count did not rise"; return 1; }
	[ "$(rep_field "$rep" state)" = healthy ] || { echo "$rep not healthy after recovery"; return 1; }
}
ktap_check "device reporter: keep-alive loss counted, dump has reason 1, device reset, ping" \
	timed fault_case device keepalive 1
ktap_check "tx reporter: missing TX completions counted, dump has reason 3, device reset, ping" \
	timed fault_case tx tx 3
ktap_check "admin reporter: admin timeout counted, dump has reason 2, device reset, ping" \
	timed fault_case admin admin 2
ip link set "$A" mtu 1500 2>/dev/null

# parked_case REPORTER FAULT: after the fault the reporter counts an error
# and is not recovered: the interface stays down (no carrier for 4 s, no
# ping; the device is reset once to stop its DMA as the queues are freed,
# not brought up again); then `devlink health recover` resets the device
# and traffic passes
parked_case() {
	local rep=$1 fault=$2 e0 r0 r1 c0 i
	e0=$(rep_field "$rep" error) r0=$(model_get ena0 stat-resets) c0=$(rep_field "$rep" recover)
	inject "$fault"
	wait_errors "$rep" "$e0" || return 1
	[ "$fault" = keepalive ] && model_set ena0 keepalive-ms 1000 >/dev/null
	wait_no_carrier "$A" 10 || return 1
	for ((i = 0; i < 8; i++)); do
		[ "$(cat "/sys/class/net/$A/carrier" 2>/dev/null)" = 1 ] &&
			{ echo "carrier back without devlink health recover"; return 1; }
		sleep 0.5
	done
	[ "$(rep_field "$rep" state)" = error ] || { echo "$rep: state $(rep_field "$rep" state), expected error"; return 1; }
	[ "$(rep_field "$rep" recover)" = "$c0" ] || { echo "$rep: recovered automatically"; return 1; }
	if ping -q -c 2 -i 0.3 -W 1 10.77.0.2 >/dev/null 2>&1; then
		echo "ping passes while the device should be down"; return 1
	fi
	r1=$(model_get ena0 stat-resets)
	echo "$rep: down after the fault (error $e0 -> $(rep_field "$rep" error), device resets $r0 -> $r1); recovering"
	devlink health recover "$DL" reporter "$rep" || { echo "devlink health recover failed"; return 1; }
	wait_model_reset "$r1" 10 || return 1
	ping_within 15 || return 1
	[ "$(rep_field "$rep" state)" = healthy ] || { echo "$rep not healthy after recover"; return 1; }
}
devlink health set "$DL" reporter device auto_recover false
ktap_check "auto_recover false: a fatal error event leaves the device down until devlink health recover" \
	parked_case device fatal
devlink health set "$DL" reporter device auto_recover true

# grace_case: a fault auto-recovered, then with a 60 s grace period a
# second fault is not recovered until devlink health recover
grace_case() {
	fault_case device fatal 13 || return 1
	devlink health set "$DL" reporter device grace_period 60000 || return 1
	parked_case device fatal
}
ktap_check "grace period 60 s: a second fault within it is not auto-recovered" timed grace_case
devlink health set "$DL" reporter device grace_period 0
ktap_diag "reporters at the end: $(devlink health show | tr -s '\n ' ' ')"

pair_teardown
ktap_check "module unloads" ena_rmmod
ktap_check "no kernel warnings" dmesg_clean "$d0"
ktap_finish
