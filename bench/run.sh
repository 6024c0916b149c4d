#!/bin/bash
# make bench: measure side by side, in one guest per kernel, alternating
# variants, and write bench/results/<date>-<kernel>.md plus PNG plots.
#   BENCH_REPS (10), BENCH_LATENCIES ("0 10 50 200 1000 5000"), BENCH_KERNELS ("6.1 6.12")
#   BENCH_PARTS ("probe reconfig boot recovery"): which parts run, e.g. BENCH_PARTS=boot make bench;
#   "recovery" (a device reset under a steady flow: time to traffic and
#   datagrams lost, stock vs ours; BENCH_RECOVERY_KERNELS ("6.12"), BENCH_REPS rounds);
#   "datapath" (stock vs ours throughput, packets, latency, interrupts, CPU;
#   BENCH_DP_KERNELS ("6.12"), BENCH_REPS rounds, BENCH_DP_SECONDS per test)
#   runs only when asked
#   BENCH_TAG: appended to the probe, boot and datapath parts' file names, so a focused run
#   (e.g. BENCH_LATENCIES=50 BENCH_REPS=20 BENCH_TAG=50us) keeps the sweep
#   boot part: BENCH_BOOT_DEVICES (4), BENCH_BOOT_SMP (guest vCPUs, 2: each
#   driver opens one queue pair per vCPU, up to the model's 8),
#   BENCH_BOOT_LATENCY (model admin latency, 50 us); a run that changes one
#   of them gets "-<devices>dev-<smp>cpu-<latency>us" in its file names
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tools/lib.sh"
cd "$top"
# timings without the memory and DMA checkers the selftest guests run with
export ENA_VM_CHECKERS=${ENA_VM_CHECKERS:-0}
make -s
date=$(date +%Y-%m-%d)
# which driver every record measured (the guests put it in each record)
BENCH_COMMIT=$(git describe --always --dirty --abbrev=7 2>/dev/null || echo unknown)
export BENCH_COMMIT
# index_run PART REPORT: one row in bench/results/README.md's list of runs
index_run() {
	local set
	set=$(env | grep -E '^BENCH_[A-Z0-9_]*=' | grep -vE '^BENCH_(COMMIT|OUT|HOST_LOAD)=' | sort | tr '\n' ' ')
	printf '| %s | %s | [%s](%s) | %s | `%sbench/run.sh` |\n' "$date" "$1" "$(basename "$2")" \
		"$(basename "$2")" "$BENCH_COMMIT" "$set" >> bench/results/README.md
}
raw=bench/results/raw; mkdir -p "$raw"
parts=" ${BENCH_PARTS:-probe reconfig boot recovery} "
part() { [[ $parts == *" $1 "* ]]; }
# snapshot_ko REL: measure a stripped copy of the module, not whatever a
# rebuild leaves behind; sets ko
snapshot_ko() {
	ko=$raw/ena-$1.ko
	cp "build/$1/ena.ko" "$ko"
	strip --strip-debug "$ko"
}
if part probe; then
for k in ${BENCH_KERNELS:-6.1 6.12}; do
	rel=$(ena_kernel_release "$k")
	tag=$date-$rel${BENCH_TAG:+-$BENCH_TAG}
	out=$raw/$tag-probe.jsonl
	: > "$out"
	snapshot_ko "$rel"
	echo "bench: probe time vs admin latency on $rel"
	ENA_KO=$top/$ko BENCH_OUT=$top/$out tools/testing/vm/run --kernel "$k" --ena 1 --timeout 3600 -- bench/guest-probe.sh
	python3 bench/report.py probe "$out" "bench/results/$tag"
	index_run probe "bench/results/$tag.md"
done
fi
# reconfiguration cost, stock vs ours: one guest, 6.12, 4 vCPUs, 32 device queues
if part reconfig; then
rel=$(ena_kernel_release 6.12)
out=$raw/$date-$rel-reconfig.jsonl
: > "$out"
echo "bench: reconfiguration cost on $rel"
# (the runner hands only ENA_*/KSFT_* variables to the guest: pass OUT and REPS on the command)
tools/testing/vm/run --kernel 6.12 --ena 1 --smp 4 --ena-prop max-queues=32 --timeout 3600 \
	-- env OUT="$top/$out" BENCH_REPS="${BENCH_REPS:-10}" bench/guest-reconfig.sh
python3 bench/report.py reconfig "$out" "bench/results/$date-$rel-reconfig"
index_run reconfig "bench/results/$date-$rel-reconfig.md"
fi
# multi-device boot: 4 devices (BENCH_BOOT_DEVICES) in one guest, first probe to all links up,
# stock vs ours, each with and without async_probe=1
# (BENCH_BOOT_PATHS, "load bind": the module loaded with the devices present, and the
# devices bound one after the other to the loaded module, the bind path's names end in -bind)
if part boot; then
for bpath in ${BENCH_BOOT_PATHS:-load bind}; do
for k in ${BENCH_KERNELS:-6.1 6.12}; do
	rel=$(ena_kernel_release "$k")
	bdev=${BENCH_BOOT_DEVICES:-4} bsmp=${BENCH_BOOT_SMP:-2} blat=${BENCH_BOOT_LATENCY:-50}
	btag=
	[ "$bdev/$bsmp/$blat" = 4/2/50 ] || btag=-${bdev}dev-${bsmp}cpu-${blat}us
	[ "$bpath" = load ] || btag=$btag-$bpath
	btag=$btag${BENCH_TAG:+-$BENCH_TAG}
	out=$raw/$date-$rel-boot$btag.jsonl
	: > "$out"
	snapshot_ko "$rel"
	echo "bench: multi-device boot on $rel ($bdev devices, $bsmp vCPUs, admin latency $blat us)"
	# the host's load average goes into every record (the host is shared)
	BENCH_HOST_LOAD=$(cut -d' ' -f1-3 /proc/loadavg) ENA_KO=$top/$ko BENCH_OUT=$top/$out \
		BENCH_BOOT_LATENCY=$blat BENCH_BOOT_PATH=$bpath tools/testing/vm/run --kernel "$k" --ena "$bdev" \
		--smp "$bsmp" --timeout 3600 -- bench/guest-boot.sh
	python3 bench/report.py boot "$out" "bench/results/$date-$rel-boot$btag"
	index_run boot "bench/results/$date-$rel-boot$btag.md"
done
done
fi
# two_dev_part PART KERNELS SCRIPT: the parts whose guest has two devices on
# one wire (the second in a netns) and alternates stock and ours round by
# round: one guest per kernel running SCRIPT, then PART's report and index row
two_dev_part() {
	local part=$1 script=$3 k rel tag out
	for k in $2; do
		rel=$(ena_kernel_release "$k")
		tag=$date-$rel-$part${BENCH_TAG:+-$BENCH_TAG}
		out=$raw/$tag.jsonl
		: > "$out"
		snapshot_ko "$rel"
		echo "bench: $part on $rel"
		ENA_KO=$top/$ko BENCH_OUT=$top/$out BENCH_REPS=${BENCH_REPS:-10} \
			tools/testing/vm/run --kernel "$k" --ena 2 --timeout 7200 -- "$script"
		python3 bench/report.py "$part" "$out" "bench/results/$tag"
		index_run "$part" "bench/results/$tag.md"
	done
}
# datapath: throughput, packets, latency, interrupts, CPU
if part datapath; then
	two_dev_part datapath "${BENCH_DP_KERNELS:-6.12}" bench/guest-datapath.sh
fi
# recovery from a device reset (keep-alive loss, FATAL_ERROR event, device
# request) under a steady flow: time to traffic, outage, datagrams lost
if part recovery; then
	two_dev_part recovery "${BENCH_RECOVERY_KERNELS:-6.12}" bench/guest-recovery.sh
fi
