#!/bin/bash
# The demo's guest side (make run): the stock driver, then ours, on the same
# two model devices; for each, load with a netlink listener that brings the
# interfaces up as soon as they appear, ping across, and collect the figures.
st=$ENA_TOP/tools/testing/selftests/drivers/net/ena
. "$st/ena_lib.sh"
declare -A R
measure() { # $1: stock|ours
	ENA_DRIVER=$1
	ena_unload
	model_set ena0 stat-reset true >/dev/null
	ktime_setup
	local j
	if is_ours; then j=$("$st/ena_nl.py" --up --count 2 -- insmod "$ENA_KO")
	else j=$("$st/ena_nl.py" --up --count 2 -- modprobe ena); fi
	read -r init reg _ <<< "$(ktime_read)"
	ktime_teardown
	R[$1,init]=$init R[$1,reg]=$reg
	R[$1,carrier]=$(python3 -c 'import json,sys; print(max(v.get("carrier_us",-1) for v in json.loads(sys.argv[1])["ifaces"].values()))' "$j")
	R[$1,cmds]=$(model_get ena0 stat-admin-cmds)
	R[$1,react]=$(( $(model_get ena0 stat-react-median-ns) / 1000 ))
	pair_setup && wait_carrier "$A" && wait_carrier "$B" 15 ena-peer
	if ping -q -c 3 -i 0.2 -W 2 10.77.0.2 >/dev/null; then R[$1,ping]=ok; else R[$1,ping]=FAILED; fi
	R[$1,ring]=$(model_get ena0 stat-ring-bytes)
	if is_ours; then
		R[$1,wake]=$(ethtool -S "$A" | awk '/ admin_poll_wakeups:/{print $2}')
		R[$1,dcmds]=$(ethtool -S "$A" | awk '/ admin_cmds:/{print $2}')
		R[$1,dring]=$(ethtool -S "$A" | awk '/ ring_bytes:/{print $2; exit}')
		R[$1,probe]=$(dmesg | grep 'probe done in' | tail -n1 | sed 's/.*\] //')
	fi
	pair_teardown
	ena_unload
}
measure stock
measure ours
printf '\nena-fast demo: 2 ENA model devices, kernel %s, QEMU/TCG (absolute times are slow; ratios matter)\n' "$(uname -r)"
printf '%-44s %14s %14s\n' "" "stock ena.ko" "ours"
row() { printf '%-44s %14s %14s\n' "$1" "${R[stock,$2]:--}" "${R[ours,$2]:--}"; }
row "module init incl. probe of both (us)" init
row "last netdev registered (us after init start)" reg
row "both carriers up (us after insmod spawn)" carrier
row "admin commands seen by device 0" cmds
row "model: median completion->next doorbell (us)" react
row "ring memory registered with device 0 (bytes)" ring
row "ping across the wire" ping
printf '%-44s %14s %14s\n' "our counters: admin cmds / poll wakeups" "" "${R[ours,dcmds]:-?} / ${R[ours,wake]:-?}"
printf '%-44s %14s %14s\n' "our counters: ring bytes allocated (dev 0)" "" "${R[ours,dring]:-?}"
echo "our log: ${R[ours,probe]:-?}"
[ "${R[stock,ping]}" = ok ] && [ "${R[ours,ping]}" = ok ]
