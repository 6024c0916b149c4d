#!/bin/bash
# Runs inside one guest (tools/testing/vm/run --smp 4 --ena 1
# --ena-prop max-queues=32): the cost of each reconfiguration step, stock
# ena.ko vs ours, alternating, REPS rounds. One JSON line per step to $OUT.
#
# Steps: load (modprobe / insmod), ip link set up, ethtool -L combined 4 -> 2,
# 2 -> 4, ethtool -G rx 4096, ip link set mtu 9000, ip link set down.
#
# What is counted, the same way for both drivers (the stock one has no
# counters of its own): kprobes in tracefs on the DMA API, filtered in the
# kernel to the ENA device by name (struct device -> kobj.name):
#   dma_alloc_attrs / dma_free_attrs     coherent memory: rings, admin queues,
#                                        host info, RSS tables (calls, bytes)
#   dma_map_page_attrs / dma_unmap_page_attrs with dir != DMA_TO_DEVICE
#                                        RX buffers: every fresh buffer is
#                                        mapped once, whether it comes from
#                                        alloc_page (stock, DMA_BIDIRECTIONAL
#                                        for XDP) or page_pool (ours,
#                                        DMA_FROM_DEVICE); TX maps excluded
# plus the model's stat-admin-cmds (delta) and stat-ring-bytes (after the
# step), the wall time of the command, and its kernel time: the function
# graph tracer, hooked to nothing but the kernel entry of each step
# (do_init_module, __dev_open, ethnl_default_set_doit / ethnl_set_channels /
# ethnl_set_rings, dev_set_mtu_ext, __dev_close_many) at depth 1, sums the
# durations of those calls.  The wall time includes starting the command
# (exec over 9p under TCG: tens to hundreds of ms, the same for both
# drivers); the kernel time is what the driver and the core spend on it.
set -u
st=$ENA_TOP/tools/testing/selftests/drivers/net/ena
. "$st/ena_lib.sh"
reps=${BENCH_REPS:-10}
variants=${BENCH_VARIANTS:-stock ours}
out=${OUT:?}

[ -f "$ENA_KO" ] || variants=stock
ena_unload
bdf=$(grep -l 0x0ec2 /sys/bus/pci/devices/*/device | head -1 | xargs dirname | xargs basename)
[ -n "$bdf" ] || { echo "bench: no ENA device" >&2; exit 1; }

# the DMA API kprobes, filtered to our device, and the function graph of the
# steps' kernel entries (trace_setup / trace_reset: ena_lib.sh)
probes_setup() {
	local e f fns=
	trace_setup local \
		'p:ena_dalloc dma_alloc_attrs dev=+0(+0(%di)):string size=%si:u64' \
		'p:ena_dfree dma_free_attrs dev=+0(+0(%di)):string size=%si:u64' \
		'p:ena_map dma_map_page_attrs dev=+0(+0(%di)):string size=%cx:u64 dir=%r8:u32' \
		'p:ena_unmap dma_unmap_page_attrs dev=+0(+0(%di)):string size=%dx:u64 dir=%cx:u32' ||
		return 1
	echo 16384 > $TR/buffer_size_kb
	for e in ena_dalloc ena_dfree; do
		echo "dev == \"$bdf\"" > $TR/events/kprobes/$e/filter
	done
	for e in ena_map ena_unmap; do
		echo "dev == \"$bdf\" && dir != 1" > $TR/events/kprobes/$e/filter
	done
	# the kernel time of each step: only these functions hooked, depth 1
	for f in $KFUNCS; do
		grep -qx "$f" $TR/available_filter_functions && fns="$fns $f"
	done
	if [ -n "$fns" ]; then
		printf '%s\n' $fns > $TR/set_ftrace_filter
		printf '%s\n' $fns > $TR/set_graph_function
		echo 1 > $TR/max_graph_depth
		echo function_graph > $TR/current_tracer
		echo funcgraph-tail > $TR/trace_options
	fi
	echo > $TR/trace
	trace_on
}
KFUNCS="do_init_module __dev_open __dev_close_many ethnl_default_set_doit ethnl_set_channels ethnl_set_rings dev_set_mtu_ext"
# counts of the trace since the last clear:
# "allocs frees alloc_bytes free_bytes maps unmaps map_bytes lost kernel_us"
trace_counts() {
	awk '
	/ ena_dalloc:/ { a++; match($0, /size=[0-9]+/); ab += substr($0, RSTART + 5, RLENGTH - 5) }
	/ ena_dfree:/  { f++; match($0, /size=[0-9]+/); fb += substr($0, RSTART + 5, RLENGTH - 5) }
	/ ena_map:/    { m++; match($0, /size=[0-9]+/); mb += substr($0, RSTART + 5, RLENGTH - 5) }
	/ ena_unmap:/  { u++ }
	/LOST/ { lost = 1 }
	# function graph, depth 1: "D us | f();" or, when split, "D us | } /* f */"
	/ us +\| +(\} \/\* [a-z_]+ \*\/|[a-z_]+\(\);)/ {
		match($0, /[0-9]+\.[0-9]+ us/); k += substr($0, RSTART, RLENGTH - 3)
	}
	END { printf "%d %d %d %d %d %d %d %d %d\n", a, f, ab, fb, m, u, mb, lost, k }' $TR/trace
}
now_us() { echo $(( $(date +%s%N) / 1000 )); }

load_cmd() {
	case $1 in
	stock) echo "modprobe ena";;
	ours) echo "insmod $ENA_KO";;
	esac
}

# step VARIANT REP NAME CMD...: run one measured step, append a JSON line
step() {
	local v=$1 r=$2 name=$3 t0 t1 rc c0 c1 rb
	shift 3
	c0=$(model_get ena0 stat-admin-cmds)
	echo > $TR/trace
	t0=$(now_us)
	"$@" >/dev/null 2>&1; rc=$?
	[ "$name" = load ] && { ena_wait_ifaces 1 10; IF=$(ena_ifaces | head -1); }
	t1=$(now_us)
	c1=$(model_get ena0 stat-admin-cmds)
	rb=$(model_get ena0 stat-ring-bytes)
	read -r da df dab dfb mp um mpb lost ku <<< "$(trace_counts)"
	"$ENA_TOP/bench/benchrec.py" kernel="$(uname -r)" commit="${BENCH_COMMIT:-unknown}" variant="$v" rep="$r" step="$name" \
		ok="$([ $rc = 0 ] && echo true || echo false)" wall_us=$((t1 - t0)) kernel_us="$ku" \
		dma_allocs="$da" dma_frees="$df" dma_alloc_bytes="$dab" dma_free_bytes="$dfb" \
		rx_maps="$mp" rx_unmaps="$um" rx_map_bytes="$mpb" admin_cmds=$((c1 - c0)) \
		model_ring_bytes="$rb" trace_lost="$lost" >> "$out"
}

probes_setup || { echo "bench: no kprobe tracing" >&2; exit 1; }
for ((r = 1; r <= reps; r++)); do
	for v in $variants; do
		IF=
		step "$v" "$r" load $(load_cmd "$v")
		[ -n "$IF" ] || { echo "bench: $v: no interface" >&2; ena_unload; continue; }
		# both drivers default to min(CPUs, device queues) = 4 channels
		[ "$(ethtool -l "$IF" | awk '/^Current/{c=1} c && /^Combined:/{print $2; exit}')" = 4 ] ||
			ethtool -L "$IF" combined 4
		step "$v" "$r" up ip link set "$IF" up
		step "$v" "$r" "channels 4->2" ethtool -L "$IF" combined 2
		step "$v" "$r" "channels 2->4" ethtool -L "$IF" combined 4
		step "$v" "$r" "rx ring 4096" ethtool -G "$IF" rx 4096
		step "$v" "$r" "mtu 9000" ip link set "$IF" mtu 9000
		step "$v" "$r" down ip link set "$IF" down
		ena_unload
	done
	echo "# round $r done" >&2
done
trace_reset
