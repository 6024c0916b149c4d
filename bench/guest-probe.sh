#!/bin/bash
# Runs inside one guest (tools/testing/vm/run): for each model admin latency,
# REPS rounds; in each round every driver variant is loaded once, in turn
# (alternating, so drift hits all alike). One JSON line per load to $OUT.
# Variants: stock (the distro ena.ko) and ours with each wait policy.
set -u
st=$ENA_TOP/tools/testing/selftests/drivers/net/ena
. "$st/ena_lib.sh"
lat_list=${BENCH_LATENCIES:-0 10 50 200 1000 5000}
reps=${BENCH_REPS:-10}
variants=${BENCH_VARIANTS:-stock ours ours-fixed5ms ours-fixed10us ours-exp}
out=${BENCH_OUT:?}
ndev=$ENA_NDEV

load_cmd() {
	case $1 in
	stock) echo "modprobe ena";;
	ours) echo "insmod $ENA_KO";;
	ours-fixed5ms) echo "insmod $ENA_KO admin_poll=fixed admin_poll_us=5000";;
	ours-fixed10us) echo "insmod $ENA_KO admin_poll=fixed admin_poll_us=10";;
	ours-exp) echo "insmod $ENA_KO admin_poll=exp";;
	# a bounded spin before the first sleep of an admin wait (issue 16)
	ours-spin*) echo "insmod $ENA_KO admin_poll_spin_us=${1#ours-spin}";;
	esac
}
[ -f "$ENA_KO" ] || variants=stock
ena_unload
ktime_setup || { echo "bench: no kprobe tracing" >&2; exit 1; }
for lat in $lat_list; do
	for ((d = 0; d < ndev; d++)); do model_set ena$d admin-latency-us "$lat"; done
	for ((r = 1; r <= reps; r++)); do
		for v in $variants; do
			model_set ena0 stat-reset true
			dmesg -C
			j=$("$st/ena_nl.py" --up --count "$ndev" --timeout 60 -- $(load_cmd $v))
			read -r init_us kreg_us _ <<< "$(ktime_read)"
			probe_line=$(dmesg | grep -m1 -E 'probe done in' || true)
			# our driver's own account of its admin waits and of what its
			# sleeps were asked to take and really took (debugfs; probe and
			# first open; other = the reset and readless-read waits)
			read -r wait_ns asked_ns slept_ns sleeps other_ns spin_ns <<< "$(cat /sys/kernel/debug/ena/*/stats 2>/dev/null |
				awk '$1 ~ /^admin_wait_total_ns:?$/ {t=$2; n=1} $1 ~ /^admin_sleep_asked_ns:?$/ {a=$2}
				     $1 ~ /^admin_sleep_ns:?$/ {s=$2} $1 ~ /^admin_poll_wakeups:?$/ {w=$2}
				     $1 ~ /^(reset|mmio)_wait_total_ns:?$/ {r+=$2} $1 ~ /^admin_spin_ns:?$/ {p=$2}
				     END {print (n ? t : -1), a+0, s+0, w+0, r+0, p+0}')"
			mapfile -t m < <("$QMP" qom-get ena0 stat-admin-cmds stat-react-count \
				stat-react-median-ns stat-react-p90-ns stat-react-max-ns \
				stat-react-probe-median-ns)
			python3 -S - "$j" "$v" "$lat" "$r" "${init_us:-0}" "$probe_line" "${kreg_us:--1}" \
				"${m[@]:0:5}" "$(uname -r)" "${wait_ns:--1}" "${asked_ns:-0}" "${slept_ns:-0}" "${sleeps:-0}" "${m[5]:--1}" "${other_ns:-0}" "${spin_ns:-0}" >> "$out" <<'PY'
import json, re, sys
j = json.loads(sys.argv[1])
ifs = j["ifaces"].values()
m = re.search(r"probe done in (\d+) us: (\d+) admin commands, (\d+) poll wakeups", sys.argv[6])
rec = {
    "kernel": sys.argv[13], "variant": sys.argv[2], "latency_us": int(sys.argv[3]),
    "rep": int(sys.argv[4]), "init_us": int(sys.argv[5]),
    "registered_us": int(sys.argv[7]),
    "newlink_us": max((v.get("newlink_us", -1) for v in ifs), default=-1),
    "carrier_us": max((v.get("carrier_us", -1) for v in ifs), default=-1),
    "ok": j["cmd_rc"] == 0 and all("carrier_us" in v for v in ifs),
    "admin_cmds": int(sys.argv[8]), "react_n": int(sys.argv[9]),
    "react_med_ns": int(sys.argv[10]), "react_p90_ns": int(sys.argv[11]),
    "react_max_ns": int(sys.argv[12]),
}
if int(sys.argv[14]) >= 0:
    rec["drv_wait_ns"] = int(sys.argv[14])
    rec["drv_sleep_asked_ns"] = int(sys.argv[15])
    rec["drv_sleep_ns"] = int(sys.argv[16])
    rec["drv_sleeps"] = int(sys.argv[17])
    rec["drv_other_wait_ns"] = int(sys.argv[19])
    rec["drv_spin_ns"] = int(sys.argv[20])
if int(sys.argv[18]) >= 0:
    rec["react_probe_med_ns"] = int(sys.argv[18])
if m:
    rec.update(probe_us=int(m[1]), drv_cmds=int(m[2]), drv_wakeups=int(m[3]))
print(json.dumps(rec))
PY
			ena_unload
		done
	done
	echo "# latency $lat us done" >&2
done
ktime_teardown
