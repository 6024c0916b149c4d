#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot-time measurement: load the driver ENA_LOADS times (default 20) with a
# netlink listener that brings every new interface up the instant it is
# announced, as udev/NetworkManager would. For each load, KTAP diagnostics
# give the module init time as initcall_debug reports it (probe of every
# device is synchronous inside it), the time to netdev registered
# (RTM_NEWLINK) and to carrier up, and the admin commands the model saw.
# Asserts only correctness: every load reaches carrier and operstate up on
# every device. At least 3 loads, none added after ENA_LOADS_BUDGET_S (10)
# seconds (ENA_TEST_LONG=1: all ENA_LOADS).
# Our driver: debugfs admin_ping (the probe bench's admin-wait benchmark)
# sends exactly the commands it is asked for and refuses 0 and 1001.
. "$(dirname "$0")/ena_lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
loads=${ENA_LOADS:-20}

cleanup() {
	trace_reset
	ena_unload 2>/dev/null
}
trap cleanup EXIT

ktap_header 3
d0=$(dmesg_lines)
ena_unload
ktime_setup || ktap_diag "no kprobe tracing: in-kernel times unavailable"
if is_ours; then load=(insmod "$ENA_KO"); else load=(modprobe ena); fi
budget_start "${ENA_LOADS_BUDGET_S:-10}"
bad=0
for ((i = 1; i <= loads; i++)); do
	budget_more $((i - 1)) 3 || break
	c0=$(model_get ena0 stat-admin-cmds 2>/dev/null)
	j=$("$here/ena_nl.py" --up --oper --count "$ENA_NDEV" --timeout 30 -- "${load[@]}")
	c1=$(model_get ena0 stat-admin-cmds 2>/dev/null)
	read -r init_us kreg_us nreg <<< "$(ktime_read)"
	line=$(python3 -S -c '
import json, sys
j = json.loads(sys.argv[1])
ifs = j["ifaces"]
reg = max((v.get("newlink_us", -1) for v in ifs.values()), default=-1)
car = max((v.get("carrier_us", -1) for v in ifs.values()), default=-1)
ok = (len(ifs) >= int(sys.argv[2]) and j["cmd_rc"] == 0 and
      all("carrier_us" in v and "oper_us" in v for v in ifs.values()))
print(ok, reg, car)' "$j" "$ENA_NDEV")
	read -r ok reg car <<< "$line"
	ktap_diag "load $i: init_us=$init_us registered_us=$kreg_us netdevs=$nreg newlink_us=$reg carrier_us=$car admin_cmds_dev0=$(( ${c1:-0} - ${c0:-0} ))"
	[ "$ok" = True ] || { bad=$((bad + 1)); ktap_diag "load $i failed: $j"; }
	ena_unload || { ktap_diag "rmmod failed"; bad=$((bad + 1)); break; }
done
n=$((i - 1))
ktap_diag "$n of $loads loads: $(budget_why "$n" "$loads")"
if [ $bad = 0 ] && [ $n -gt 0 ]; then ktap_pass "$n loads: every device reached carrier and operstate up"
else ktap_fail "$bad of $n loads: a device did not reach carrier and operstate up"; fi
# admin_ping: N writes, N more admin commands at the device; 0, 1001 refused
admin_ping() {
	local f c0 c1
	ena_load && ena_wait_ifaces 1 || return 1
	f=/sys/kernel/debug/ena/$(ena_bdf "$(ena_ifaces | head -1)")/admin_ping
	c0=$(model_get ena0 stat-admin-cmds) || return 1
	echo 50 > "$f" || { echo "write 50 failed"; return 1; }
	c1=$(model_get ena0 stat-admin-cmds)
	echo "admin commands at the device for 50 pings: $((c1 - c0))"
	[ $((c1 - c0)) = 50 ] || return 1
	if echo 0 > "$f" 2>/dev/null; then echo "0 accepted"; return 1; fi
	if echo 1001 > "$f" 2>/dev/null; then echo "1001 accepted"; return 1; fi
	[ "$(model_get ena0 stat-admin-cmds)" = "$c1" ] || { echo "a refused write sent commands"; return 1; }
	ena_unload
}
if is_ours; then
	ktap_check "debugfs admin_ping: 50 commands reach the device, 0 and 1001 refused" admin_ping
else
	ktap_skip "debugfs admin_ping" "our driver's hook"
fi
ktap_check "kernel log clean" dmesg_clean "$d0"
ktap_finish
