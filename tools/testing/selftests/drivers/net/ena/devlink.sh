#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# devlink of our driver (iproute2's devlink, JSON output): `devlink dev
# info` names driver ena, the serial number is the MAC address, and the
# device's versions are there; `devlink health show` lists the reporters
# tx, rx, admin and device.  A fault of each class (keep-alive loss:
# device; TX completions swallowed: tx; a dropped admin completion: admin;
# an RX completion with a bad request id: rx) raises its reporter's error
# count, leaves a dump naming the reset reason, and the device recovers
# (ping).  With auto_recover false a fault
# (a FATAL_ERROR event: device) leaves the interface down (no carrier, no
# ping) until `devlink health recover`; within the grace period after a
# recovery a second fault is not recovered automatically either.
# Parameters: `devlink dev param show` lists each with its default; the
# runtime ones (admin wait policy, open_async) round-trip; bad values are
# refused with EINVAL and the driver's message; the wait policy "fixed"
# at 5000 us makes each admin command wait one 5 ms sleep where linear
# takes several short ones; the driverinit admin_irq applies only at
# `devlink dev reload`, which keeps the interface and its settings (RSS
# key and table, coalescing, channels, rings, MTU) and passes traffic;
# a reload while down stays down (and applies large_llq_header); one
# while a reset is pending is refused; devlink counts the reloads.  The
# module parameters, deprecated aliases, still set the starting values.
# The stock driver has no devlink: skipped, with the reason.
. "$(dirname "$0")/ena_lib.sh"

cleanup() {
	model_set_many ena0 keepalive-ms 1000 fault-tx-swallow 0 fault-drop-next 0 fault-rx-bad-reqid 0 \
		hint-keepalive-ms 0 hint-missing-tx-ms 0 hint-missed-tx 0 \
		admin-latency-us 0 >/dev/null 2>&1
	pair_teardown
	ena_unload 2>/dev/null
}
trap cleanup EXIT

NCASES=23
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
	rx) model_set ena0 fault-rx-bad-reqid 1; ping -q -c 4 -i 0.2 -W 1 10.77.0.2;;
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
ktap_check "rx reporter: an RX completion naming a buffer not posted counted, dump has reason 4, device reset, ping" \
	timed fault_case rx rx 4
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

# --- parameters and reload -------------------------------------------------
T_DL=$SECONDS
# dlp NAME: a parameter's value (its only cmode); dlset NAME VALUE CMODE
dlp() { devlink dev param show "$DL" name "$1" | awk '$1 == "cmode" { print $4; exit }'; }
dlset() { devlink dev param set "$DL" name "$1" value "$2" cmode "$3"; }
POLL_DEFAULTS="admin_poll_mode=linear admin_poll_first_us=10 admin_poll_step_us=10 admin_poll_max_us=1000 admin_poll_spin_us=100"
DEFAULTS="$POLL_DEFAULTS admin_irq=true open_async=false"
# poll_restore: the wait policy's defaults, in an order valid at each step
poll_restore() {
	dlset admin_poll_first_us 10 runtime && dlset admin_poll_mode linear runtime &&
		dlset admin_poll_max_us 1000 runtime && dlset admin_poll_step_us 10 runtime &&
		dlset admin_poll_spin_us 100 runtime
}
# expect_values NAME=VALUE...: each parameter shows its value
expect_values() {
	local kv got rc=0
	for kv in "$@"; do
		got=$(dlp "${kv%%=*}")
		[ "$got" = "${kv#*=}" ] || { echo "${kv%%=*}: $got, expected ${kv#*=}"; rc=1; }
	done
	return $rc
}
defaults_check() {
	local names
	# iproute2 shows a device's parameters one by one, or all devices'
	names=$(devlink dev param show | awk -v d="$DL:" '/^[^ ]/ { c = $1 == d }
		c && $1 == "name" { print $2 }' | sort | paste -sd' ')
	echo "parameters: $names"
	[ "$names" = "admin_irq admin_poll_first_us admin_poll_max_us admin_poll_mode admin_poll_spin_us admin_poll_step_us large_llq_header open_async" ] ||
		{ echo "unexpected parameter list"; return 1; }
	LLQ0=$(dlp large_llq_header)
	echo "large_llq_header $LLQ0 (the entry size probe chose)"
	[ "$LLQ0" = true ] || [ "$LLQ0" = false ] || return 1
	expect_values $DEFAULTS
}
ktap_check "devlink dev param show: every parameter, at its default" defaults_check

roundtrip_check() {
	dlset admin_poll_max_us 3000 runtime && dlset admin_poll_step_us 25 runtime &&
		dlset admin_poll_first_us 40 runtime && dlset admin_poll_spin_us 0 runtime &&
		dlset admin_poll_mode exp runtime && dlset open_async true runtime || return 1
	expect_values admin_poll_mode=exp admin_poll_first_us=40 admin_poll_step_us=25 \
		admin_poll_max_us=3000 admin_poll_spin_us=0 open_async=true || return 1
	grep -q '^policy exp' "$DBG/poll" || { echo "debugfs poll: $(head -1 "$DBG/poll")"; return 1; }
	poll_restore && dlset open_async false runtime && expect_values $DEFAULTS
}
DBG=/sys/kernel/debug/ena/$(ena_bdf "$A")
ktap_check "runtime parameters round-trip: set, show (and debugfs), restore" roundtrip_check

# refused NAME VALUE CMODE MESSAGE: the set fails with EINVAL and MESSAGE
refused() {
	local out before
	before=$(dlp "$1")
	if out=$(dlset "$1" "$2" "$3" 2>&1); then
		echo "$1 $2 accepted"; return 1
	fi
	echo "$1 $2: $out" | tr '\n' ' '; echo
	grep -qF "$4" <<< "$out" || { echo "no message '$4'"; return 1; }
	grep -q "Invalid argument" <<< "$out" || { echo "not EINVAL"; return 1; }
	[ "$(dlp "$1")" = "$before" ] || { echo "$1 changed to $(dlp "$1")"; return 1; }
}
bad_values_check() {
	refused admin_poll_mode bogus runtime "unknown admin_poll_mode: use linear, fixed or exp" &&
	refused admin_poll_spin_us 201 runtime "admin_poll_spin_us above 200" &&
	refused admin_poll_step_us 0 runtime "admin_poll_step_us 0: linear sleeps would not grow" &&
	refused admin_poll_first_us 0 runtime "sleep out of range 1..100000 us" &&
	refused admin_poll_max_us 100001 runtime "sleep out of range 1..100000 us" &&
	refused admin_poll_max_us 5 runtime "admin_poll_first_us above admin_poll_max_us" &&
	refused admin_poll_first_us 2000 runtime "admin_poll_first_us above admin_poll_max_us"
}
ktap_check "bad values refused with EINVAL and the driver's message, value unchanged" bad_values_check

# astat NAME: an admin counter (ethtool -S)
astat() { eth_stat "$A" "$1"; }
driverinit_check() {
	local irq0 pol0 irq1 pol1
	dlset admin_irq false driverinit || return 1
	irq0=$(astat admin_cmds_irq)
	ip link set "$A" mtu 1400 && ip link set "$A" mtu 1500 || return 1
	irq1=$(astat admin_cmds_irq)
	grep -q 'admin_completion_mode interrupt' "$DBG/poll" && [ "$irq1" -gt "$irq0" ] ||
		{ echo "admin_irq false applied before the reload (irq cmds $irq0 -> $irq1)"; return 1; }
	echo "admin_irq shows $(dlp admin_irq) before the reload"
	timed devlink dev reload "$DL" action driver_reinit || return 1
	expect_values admin_irq=false || return 1
	grep -q 'admin_completion_mode polling' "$DBG/poll" || { echo "debugfs: $(grep completion "$DBG/poll")"; return 1; }
	irq0=$(astat admin_cmds_irq) pol0=$(astat admin_cmds_polled)
	ip link set "$A" mtu 1400 && ip link set "$A" mtu 1500 || return 1
	irq1=$(astat admin_cmds_irq) pol1=$(astat admin_cmds_polled)
	echo "after the reload: irq cmds $irq0 -> $irq1, polled cmds $pol0 -> $pol1"
	[ "$irq1" = "$irq0" ] && [ "$pol1" -gt "$pol0" ] && ping_within 15
}
ktap_check "driverinit admin_irq false: applied by devlink dev reload only, then admin commands polled" driverinit_check

# ping_admin N: N admin commands (debugfs admin_ping); prints the commands,
# wakeups and mean wait in us they added
ping_admin() {
	local c0 w0 t0 c1 w1 t1
	c0=$(astat admin_cmds) w0=$(astat admin_poll_wakeups) t0=$(astat admin_wait_total_ns)
	echo "$1" > "$DBG/admin_ping" || return 1
	c1=$(astat admin_cmds) w1=$(astat admin_poll_wakeups) t1=$(astat admin_wait_total_ns)
	echo "$((c1 - c0)) $((w1 - w0)) $(( (t1 - t0) / 1000 / (c1 - c0 > 0 ? c1 - c0 : 1) ))"
}
# the policy's effect, admin commands polled (admin_irq false since the
# last case), no spin, the device answering after 1000 us: linear polls
# several times per command, fixed 5000 sleeps once, 5 ms.  (At 300 us a
# guest on a loaded host woke about 4 times per command, 2x the bound: a
# wakeup that costs the guest over 300 us would leave one.)
policy_check() {
	local lin fix
	model_set ena0 admin-latency-us 1000 >/dev/null || return 1
	dlset admin_poll_spin_us 0 runtime || return 1
	read -r -a lin < <(ping_admin 20)
	dlset admin_poll_mode fixed runtime && dlset admin_poll_first_us 5000 runtime || return 1
	read -r -a fix < <(ping_admin 20)
	poll_restore || return 1
	model_set ena0 admin-latency-us 0 >/dev/null
	echo "linear: ${lin[0]} commands, ${lin[1]} wakeups, mean wait ${lin[2]} us;" \
		"fixed 5000: ${fix[0]} commands, ${fix[1]} wakeups, mean wait ${fix[2]} us"
	[ "${lin[0]}" = 20 ] && [ "${fix[0]}" = 20 ] || return 1
	[ "${lin[1]}" -ge 40 ] || { echo "linear: under 2 wakeups per command"; return 1; }
	[ "${fix[1]}" -le 30 ] || { echo "fixed: over 1.5 wakeups per command"; return 1; }
	[ "${fix[2]}" -ge 5000 ] && [ "${lin[2]}" -lt 5000 ] || { echo "mean waits not as the policies sleep"; return 1; }
}
ktap_check "wait policy at run time: fixed 5000 us waits one 5 ms sleep per admin command, linear several short ones" policy_check

# settings: what a reload must keep
settings() {
	ethtool -x "$A"; ethtool -c "$A"; ethtool -l "$A"; ethtool -g "$A"
	cat "/sys/class/net/$A/mtu"
}
RKEY=$(for i in $(seq 40); do printf '%02x\n' $(( (i * 53 + 7) % 256 )); done | paste -sd:)
reload_up_check() {
	local before after max
	RX0=$(ring Current RX) TX0=$(ring Current TX) max=$(chan Pre-set)
	[ "$max" -gt 1 ] && { ethtool -L "$A" combined $((max - 1)) || return 1; }
	ethtool -G "$A" rx 512 tx 512 && ethtool -C "$A" adaptive-rx off rx-usecs 80 tx-usecs 40 &&
		ethtool -X "$A" hkey "$RKEY" equal 1 && ip link set "$A" mtu 1400 || return 1
	dlset admin_irq true driverinit || return 1
	before=$(settings)
	timed devlink dev reload "$DL" action driver_reinit || return 1
	after=$(settings)
	[ "$before" = "$after" ] || { echo "settings changed:"; diff <(echo "$before") <(echo "$after"); return 1; }
	echo "RSS key and table, coalescing, channels ($(chan Current)), rings, MTU kept"
	grep -q 'admin_completion_mode interrupt' "$DBG/poll" || { echo "admin_irq true not applied"; return 1; }
	wait_carrier "$A" 10 && ping_within 15 || return 1
	[ "$(cat "/sys/class/net/$A/operstate")" = up ] || { echo "operstate $(cat "/sys/class/net/$A/operstate")"; return 1; }
}
ktap_check "reload while up: RSS key/table, coalescing, channels, rings, MTU kept; operstate up, ping" reload_up_check
ip link set "$A" mtu 1500; ethtool -X "$A" default
ethtool -C "$A" adaptive-rx on rx-usecs 20 tx-usecs 64 2>/dev/null
ethtool -L "$A" combined "$(chan Pre-set)" 2>/dev/null
ethtool -G "$A" rx "$RX0" tx "$TX0" 2>/dev/null

# reload_down_check: with the interface down a reload leaves it down and
# applies large_llq_header (to the other entry size, when the device
# offers both); back up with the original size, by a reload while up
llq_bytes() { dmesg | grep 'devlink reload done' | tail -n 1 | sed -n 's/.*LLQ entries of \([0-9]*\) bytes.*/\1/p'; }
reload_down_check() {
	local flip=false sz0 sz1
	[ "$LLQ0" = false ] && flip=true
	sz0=$(llq_bytes)
	ip link set "$A" down || return 1
	if ! dlset large_llq_header $flip driverinit 2>/dev/null; then
		echo "the device offers one LLQ entry size: large_llq_header stays $LLQ0"; flip=$LLQ0
	fi
	timed devlink dev reload "$DL" action driver_reinit || return 1
	sz1=$(llq_bytes)
	echo "large_llq_header $LLQ0 -> $flip: LLQ entries $sz0 -> $sz1 bytes"
	[ "$(cat "/sys/class/net/$A/operstate")" = down ] || { echo "operstate $(cat "/sys/class/net/$A/operstate")"; return 1; }
	ip link show "$A" | grep -q '[<,]UP[,>]' && { echo "interface came up"; return 1; }
	[ "$flip" = "$LLQ0" ] || [ "$sz1" != "$sz0" ] || { echo "entry size did not change"; return 1; }
	dlset large_llq_header "$LLQ0" driverinit && ip link set "$A" up || return 1
	timed devlink dev reload "$DL" action driver_reinit || return 1
	[ "$(llq_bytes)" = "$sz0" ] || { echo "entry size $(llq_bytes), expected $sz0"; return 1; }
	wait_carrier "$A" 10 && ping_within 15
}
ktap_check "reload while down stays down and applies large_llq_header; back up by a reload while up" reload_down_check

# reload_busy_check: while a fault is parked (auto_recover false) a reset
# is pending, and a reload is refused with EBUSY and the driver's message;
# devlink health recover then brings the device back
reload_busy_check() {
	local e0 r1 out rc=0
	devlink health set "$DL" reporter device auto_recover false || return 1
	e0=$(rep_field device error)
	inject fatal
	wait_errors device "$e0" && wait_no_carrier "$A" 10 || rc=1
	if [ $rc = 0 ] && out=$(devlink dev reload "$DL" action driver_reinit 2>&1); then
		echo "reload accepted while a reset is pending"; rc=1
	elif [ $rc = 0 ]; then
		echo "reload: $out" | tr '\n' ' '; echo
		grep -qF "a device reset is pending: reload after it" <<< "$out" &&
			grep -q "Device or resource busy" <<< "$out" || { echo "not EBUSY with the message"; rc=1; }
	fi
	devlink health set "$DL" reporter device auto_recover true
	r1=$(model_get ena0 stat-resets)
	devlink health recover "$DL" reporter device || return 1
	wait_model_reset "$r1" 10 && ping_within 15 && return $rc
}
ktap_check "reload refused (EBUSY, message) while a fault is parked; devlink health recover, ping" timed reload_busy_check

# reload_count: devlink's count of driver_reinit reloads (`devlink -s dev
# show`: every number under a driver_reinit key, remote reloads left out)
reload_count() {
	local j
	j=$(devlink -s -j dev show "$DL") || return 1
	echo "devlink -s dev show: $j" >&2
	dlpy '
def walk(o, inside=False):
    if isinstance(o, bool): return 0
    if isinstance(o, int): return o if inside else 0
    if isinstance(o, dict):
        return sum(walk(v, inside or k == "driver_reinit")
                   for k, v in o.items() if not k.startswith("remote"))
    if isinstance(o, list): return sum(walk(v, inside) for v in o)
    return 0
print(walk(json.loads(sys.argv[1])))' "$j"
}
count_check() {
	local n
	n=$(reload_count)
	echo "driver_reinit reloads: $n"
	[ "$n" = 4 ]
}
ktap_check "devlink counts the 4 reloads (driver_reinit)" count_check
ktap_diag "parameter and reload cases: $((SECONDS - T_DL)) s"

pair_teardown
ktap_check "module unloads" ena_rmmod

# alias_check: the deprecated module parameters still set each device's
# starting values, and the load logs one line naming them
alias_check() {
	local d1 n
	d1=$(dmesg_lines)
	ena_load admin_poll=fixed admin_poll_spin_us=50 open_async=1 && ena_wait_ifaces 2 || return 1
	DL=pci/$(ena_bdf "$(ena_ifaces | head -1)")
	expect_values admin_poll_mode=fixed admin_poll_first_us=5000 admin_poll_spin_us=50 \
		open_async=true admin_irq=true || return 1
	n=$(dmesg | tail -n +"$d1" | grep -c 'module parameters admin_poll\* open_async are deprecated')
	echo "deprecation lines: $n"
	[ "$n" = 1 ] && ena_rmmod
}
ktap_check "deprecated module parameters set the devlink parameters at probe, one log line" alias_check
ktap_check "no kernel warnings" dmesg_clean "$d0"
ktap_finish
