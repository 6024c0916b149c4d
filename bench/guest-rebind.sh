#!/bin/bash
# Runs inside one guest (tools/testing/vm/run --ena 1): where a probe's CPU
# time goes under TCG.  Each round loads our module (new code that QEMU has
# not run yet) and then unbinds and binds the device BENCH_REBINDS times (3;
# the same code again); after each probe it prints the driver's own step
# marks (debugfs `probe`, us since probe entry).  BENCH_LATENCY: model admin
# latency in us (default 50); BENCH_REPS rounds (default 4).  BENCH_TRACE=1:
# the last round's insmod also runs under the function graph tracer, limited
# to our module and the PCI/net core calls a probe makes, and prints the time
# of each call made directly by ena_probe() (the tracer adds its own cost).
set -u
st=$ENA_TOP/tools/testing/selftests/drivers/net/ena
. "$st/ena_lib.sh"
ko=${ENA_KO:-$ENA_TOP/build/$(uname -r)/ena.ko}

# (TR, trace_reset, trace_on, trace_off: ena_lib.sh)
graph_start() {
	trace_reset || return 1
	echo function_graph > $TR/current_tracer
	printf '%s\n' ':mod:ena' pci_enable_device_mem pci_request_selected_regions \
		pci_set_master alloc_etherdev_mqs pci_ioremap_bar pci_ioremap_wc_bar \
		pci_alloc_irq_vectors request_threaded_irq register_netdev > $TR/set_ftrace_filter
	trace_on
}

# ena_probe's own calls are indented two columns deeper than ena_probe; a
# call with traced children opens a block whose closing brace has the time
graph_report() {
	trace_off
	awk -F'|' '{ i = match($2, /[^ ]/); t = $2; sub(/^ +/, "", t) }
		/ena_probe/ && !d { d = i + 2; next }
		!d || i != d { next }
		t ~ /\{ *$/ { sub(/ *\{ *$/, "", t); open = t; next }
		t ~ /^}/ { t = open }
		{ print "  " $1 "| " t }' $TR/trace
	trace_reset
}

steps() { echo "$1: $(tr '\n' ' ' < /sys/kernel/debug/ena/*/probe)"; }

model_set ena0 admin-latency-us "${BENCH_LATENCY:-50}"
ena_unload
reps=${BENCH_REPS:-4}
for ((r = 1; r <= reps; r++)); do
	trace=0
	[ "${BENCH_TRACE:-0}" = 1 ] && [ $r = "$reps" ] && trace=1
	[ $trace = 1 ] && graph_start
	insmod "$ko" || exit 1
	steps insmod
	[ $trace = 1 ] && graph_report
	bdf=$(basename "$(readlink -f /sys/bus/pci/drivers/ena/0000:*)")
	for ((i = 0; i < ${BENCH_REBINDS:-3}; i++)); do
		echo "$bdf" > /sys/bus/pci/drivers/ena/unbind
		echo "$bdf" > /sys/bus/pci/drivers/ena/bind
		steps rebind
	done
	ena_unload
done
