#!/bin/bash
# Runs inside one guest (tools/testing/vm/run --ena 4): multi-device boot.
# Each load: the driver is loaded with a netlink listener that sets every new
# ena interface up the instant RTM_NEWLINK announces it; the load ends when
# all $ENA_NDEV interfaces have carrier. The listener is build/tools/ena_up
# (C; BENCH_BOOT_LISTENER=c, the default) or ena_nl.py --up (=py, the
# listener of the runs before 2026-12-06, which spent 3 to 5 ms of CPU per
# device on its own loop under TCG).
# Variants, alternating (the order rotates every round): stock (modprobe ena),
# ours (insmod $ENA_KO), ours-asyncopen (insmod $ENA_KO open_async=1: a work
# item starts the device queues after ndo_open; ours-syncopen, open_sync=1,
# named the in-tree way in the runs of f38a663, whose default was async), ours-par (insmod $ENA_KO
# probe_parallel=1: the devices probe in parallel, registered in PCI order), and
# stock-async/ours-async with the kernel's generic module parameter
# async_probe=1 (every device probes in its own async work, and the load
# command does not wait for the probes).
# One JSON line per load to $BENCH_OUT; round 0 is a warm-up (page cache,
# module files), kept in the raw data with rep=0 and left out of the report.
#   BENCH_REPS (10), BENCH_BOOT_VARIANTS, BENCH_BOOT_LATENCY (model admin
#   latency in us, 50), BENCH_BOOT_SCRUB_MB (128; 0 = off): after each
#   unload, a process writes this much fresh memory, so that the next load
#   does not get the pages the unloaded driver just freed (scrub_freed in
#   ena_lib.sh).
#   BENCH_BOOT_PATH (load): how the devices come up: "load", the module
#   loaded with the devices present (a boot); "bind", the module loaded
#   first (not measured), the devices unbound, then bound again through
#   sysfs one after the other (hot attach: a second ENI attached later).
#   BENCH_BOOT_BURST (1024; 0 = off): every variant also runs a burst load:
#   each device's model sends this many frames at once into the first RX
#   queue the driver starts, the moment its first buffers are posted (the
#   model's rx-burst); the frames that found no buffer are lost, as on a
#   device that drops on an empty ring. The quiet loads (no frame at all)
#   give the times, including every RX ring full; the burst loads the loss.
#   BENCH_BOOT_BURST_DELAY_US (0): the burst comes this long after that first
#   doorbell (the model's rx-burst-delay-us, virtual time).
set -u
here=$(cd "$(dirname "$0")" && pwd)
st=$here/../tools/testing/selftests/drivers/net/ena
. "$st/ena_lib.sh"
reps=${BENCH_REPS:-10}
variants=(${BENCH_BOOT_VARIANTS:-stock ours stock-async ours-par})
lat=${BENCH_BOOT_LATENCY:-50}
out=${BENCH_OUT:?}
ndev=$ENA_NDEV
path=${BENCH_BOOT_PATH:-load}
burst=${BENCH_BOOT_BURST:-1024}
burst_delay=${BENCH_BOOT_BURST_DELAY_US:-0}
case $path in load|bind) ;; *) echo "bench: BENCH_BOOT_PATH is load or bind" >&2; exit 1;; esac
modes=(quiet)
[ "$burst" -gt 0 ] && modes+=(burst)

# a variant NAME+P=V+P2=V2 loads NAME with the module parameters P=V P2=V2
load_cmd() {
	local base=${1%%+*} a=
	case $base in *-async) a=async_probe=1;; *-par) a=probe_parallel=1;; *-syncopen) a=open_sync=1;; *-asyncopen) a=open_async=1;; esac
	[ "$base" = "$1" ] || a="$a ${1#*+}"
	a=${a//+/ }
	case $base in
	stock*) echo "modprobe ena $a";;
	ours*) echo "insmod $ENA_KO $a";;
	esac
}

# after each unload (and before the first load): ena_lib.sh scrub_freed
scrub_mb=${BENCH_BOOT_SCRUB_MB:-128}
scrub() { scrub_freed "$scrub_mb"; }

case ${BENCH_BOOT_LISTENER:-c} in
c) listener=("$here/../build/tools/ena_up");;
py) listener=("$st/ena_nl.py" --up);;
*) echo "bench: BENCH_BOOT_LISTENER is c or py" >&2; exit 1;;
esac
[ -x "${listener[0]}" ] || { echo "bench: no ${listener[0]} (make)" >&2; exit 1; }

# unbind_all: the devices left unbound, the module loaded
unbind_all() {
	local bdf
	for bdf in $(ena_pci_devs | awk '{print $1}'); do
		[ -e /sys/bus/pci/drivers/ena/"$bdf" ] && echo "$bdf" > /sys/bus/pci/drivers/ena/unbind
	done
	return 0
}
# measure VARIANT: the measured command, which the listener runs, into
# cmd[]; the bind path binds every ENA function to the loaded driver, one
# after the other
bdfs=$(ena_pci_devs | awk '{print $1}' | tr '\n' ' ')
measure() {
	if [ "$path" = bind ]; then
		cmd=(sh -c "for b in $bdfs; do echo \$b > /sys/bus/pci/drivers/ena/bind || exit 1; done")
	else
		read -ra cmd <<< "$(load_cmd "$1")"
	fi
}

# boot_trace_setup / trace_reset: ena_lib.sh (make run uses them too)
[ -f "$ENA_KO" ] || { echo "bench: no $ENA_KO" >&2; exit 1; }
ena_unload
scrub
for ((d = 0; d < ndev; d++)); do
	model_set_many ena$d admin-latency-us "$lat" rx-burst-delay-us "$burst_delay" > /dev/null
done
boot_trace_setup || { echo "bench: no kprobe tracing" >&2; exit 1; }
trap trace_reset EXIT
nv=${#variants[@]}
for ((r = 0; r <= reps; r++)); do
	for ((i = 0; i < nv; i++)); do
	for mode in "${modes[@]}"; do
		v=${variants[$(( (i + r) % nv ))]}
		if [ "$path" = bind ]; then
			$(load_cmd "$v") || { echo "bench: cannot load $v" >&2; exit 1; }
			unbind_all
		fi
		"$here/boot-record.py" reset "$ndev"
		n=0
		[ "$mode" = burst ] && n=$burst
		for ((d = 0; d < ndev; d++)); do model_set ena$d rx-burst "$n" > /dev/null; done
		dmesg -C
		echo > $TR/trace
		measure "$v"
		j=$("${listener[@]}" --count "$ndev" --timeout 60 -- "${cmd[@]}")
		full=-1
		[ "$mode" = quiet ] && full=$(model_rx_full "$ndev")
		bad=$(dmesg | grep -cE 'BUG|WARNING|Oops|Call Trace')
		# queue pairs the first interface opened (one per vCPU, up to the device's)
		if1=$(ena_ifaces | head -1)
		qs=$(ls -d /sys/class/net/"$if1"/queues/rx-* 2>/dev/null | wc -l)
		depth=$(A=$if1 ring Current RX 2>/dev/null)
		"$here/boot-record.py" record $TR/trace "$j" kernel="$(uname -r)" commit="${BENCH_COMMIT:-unknown}" variant="$v" \
			rep=$r ndev="$ndev" latency_us="$lat" dmesg_bad="$bad" \
			smp="$(nproc)" queues="$qs" rx_depth="${depth:-0}" path="$path" mode="$mode" \
			burst="$n" burst_delay_us="$burst_delay" model_full="$full" \
			host_load="${BENCH_HOST_LOAD:-?}" scrub_mb="$scrub_mb" \
			listener="${BENCH_BOOT_LISTENER:-c}" >> "$out"
		ena_unload || { echo "bench: rmmod failed after $v" >&2; exit 1; }
		scrub
		sleep 0.2
	done
	done
	echo "# boot: round $r of $reps done" >&2
done
