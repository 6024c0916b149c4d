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
# admin commands of one admin_ping (ours)
ping=200
# "waits wakeups spin_ns spin_hits" of our driver's admin waits (debugfs poll)
admin_counters() {
	awk '$1 == "admin" && $2 == "waits" {
		for (i = 2; i < NF; i += 2) v[$i] = $(i + 1)
		print v["waits"], v["wakeups"], v["spin_ns"], v["spin_hits"]; exit }' \
		/sys/kernel/debug/ena/*/poll
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
				stat-react-probe-median-ns stat-react-probe-total-ns \
				stat-react-probe-count stat-react-probe-samples)
			f=(kernel="$(uname -r)" commit="${BENCH_COMMIT:-unknown}" variant="$v" latency_us="$lat" rep="$r"
				init_us="${init_us:-0}" registered_us="${kreg_us:--1}"
				admin_cmds="${m[0]}" react_n="${m[1]}" react_med_ns="${m[2]}"
				react_p90_ns="${m[3]}" react_max_ns="${m[4]}")
			[ "${m[5]:--1}" -ge 0 ] && f+=(react_probe_med_ns="${m[5]}")
			# and the samples themselves, in order ("ns,ns,...")
			[ "${m[7]:-0}" -gt 0 ] && f+=(react_probe_total_ns="${m[6]}" react_probe_n="${m[7]}"
				react_probe_samples="${m[8]:-}")
			[ "${wait_ns:--1}" -ge 0 ] && f+=(drv_wait_ns="$wait_ns"
				drv_sleep_asked_ns="$asked_ns" drv_sleep_ns="$slept_ns" drv_sleeps="$sleeps"
				drv_other_wait_ns="$other_ns" drv_spin_ns="$spin_ns")
			[[ $probe_line =~ probe\ done\ in\ ([0-9]+)\ us:\ ([0-9]+)\ admin\ commands,\ ([0-9]+)\ poll\ wakeups ]] &&
				f+=(probe_us="${BASH_REMATCH[1]}" drv_cmds="${BASH_REMATCH[2]}"
					drv_wakeups="${BASH_REMATCH[3]}")
			# the admin wait alone (ours: debugfs admin_ping): $ping commands
			# back to back with nothing between them, so the model's reaction
			# samples are the wait's own; the driver's counters around it
			pf=$(ls /sys/kernel/debug/ena/*/admin_ping 2>/dev/null | head -1)
			if [ -n "$pf" ]; then
				read -r w0 k0 s0 h0 <<< "$(admin_counters)"
				model_set ena0 stat-reset true
				if echo "$ping" > "$pf"; then
					read -r w1 k1 s1 h1 <<< "$(admin_counters)"
					mapfile -t m < <("$QMP" qom-get ena0 stat-react-count \
						stat-react-median-ns stat-react-p90-ns)
					f+=(ping_cmds=$((w1 - w0)) ping_wakeups=$((k1 - k0))
						ping_spin_ns=$((s1 - s0)) ping_spin_hits=$((h1 - h0))
						ping_react_n="${m[0]}" ping_react_med_ns="${m[1]}"
						ping_react_p90_ns="${m[2]}")
				fi
			fi
			"$ENA_TOP/bench/benchrec.py" --nl "$j" "${f[@]}" >> "$out"
			ena_unload
		done
	done
	echo "# latency $lat us done" >&2
done
trace_reset
