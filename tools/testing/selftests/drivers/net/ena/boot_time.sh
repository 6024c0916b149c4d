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
. "$(dirname "$0")/ena_lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
loads=${ENA_LOADS:-20}

cleanup() {
	trace_reset
	ena_unload 2>/dev/null
}
trap cleanup EXIT

ktap_header 2
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
ktap_check "kernel log clean" dmesg_clean "$d0"
ktap_finish
