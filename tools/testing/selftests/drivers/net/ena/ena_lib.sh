#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared helpers of the ENA selftests: KTAP output, loading the driver under
# test (ENA_DRIVER=stock|ours), finding its interfaces, talking to the QEMU
# model through the monitor. Tests run as root inside a guest started by
# tools/testing/vm/run.

ENA_DRIVER=${ENA_DRIVER:-ours}
ENA_TOP=${ENA_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../../../.." && pwd)}
ENA_RELEASE=${ENA_RELEASE:-$(uname -r)}
ENA_NDEV=${ENA_NDEV:-2}
ENA_KO=${ENA_KO:-$ENA_TOP/build/$ENA_RELEASE/ena.ko}
# the monitor client (tools/testing/vm/qmp.sh: no Python start per call)
QMP="$ENA_TOP/tools/testing/vm/qmp.sh"

KTAP_N=0 KTAP_PASS=0 KTAP_FAIL=0 KTAP_SKIP=0 KTAP_XFAIL=0

ktap_header() { # $1: planned number of test cases
	echo "TAP version 13"
	echo "1..$1"
}
ktap_diag() { echo "# $*"; }
ktap_pass() { KTAP_N=$((KTAP_N + 1)); KTAP_PASS=$((KTAP_PASS + 1)); echo "ok $KTAP_N $*"; }
ktap_fail() { KTAP_N=$((KTAP_N + 1)); KTAP_FAIL=$((KTAP_FAIL + 1)); echo "not ok $KTAP_N $*"; }
ktap_skip() { KTAP_N=$((KTAP_N + 1)); KTAP_SKIP=$((KTAP_SKIP + 1)); echo "ok $KTAP_N $1 # SKIP ${*:2}"; }
ktap_xfail() { KTAP_N=$((KTAP_N + 1)); KTAP_XFAIL=$((KTAP_XFAIL + 1)); echo "ok $KTAP_N $1 # XFAIL ${*:2}"; }
# ktap_run CMD...: a command's exit status; its output becomes KTAP
# diagnostic lines
ktap_run() {
	local rc
	{ "$@"; } > >(sed -u 's/^/# /') 2>&1
	rc=$?
	wait
	return $rc
}
# ktap_check NAME CMD...: one test case from a command's exit status
ktap_check() {
	local name=$1; shift
	if ktap_run "$@"; then ktap_pass "$name"; else ktap_fail "$name"; fi
}
# ktap_check_xfail_stock NAME REASON CMD...: as ktap_check, but a failure of
# the stock driver is an XFAIL for REASON (a known defect of that driver)
ktap_check_xfail_stock() {
	local name=$1 why=$2; shift 2
	if ktap_run "$@"; then ktap_pass "$name"
	elif is_ours; then ktap_fail "$name"
	else ktap_xfail "$name" "$why"; fi
}
ktap_finish() {
	echo "# Totals: pass:$KTAP_PASS fail:$KTAP_FAIL xfail:$KTAP_XFAIL xpass:0 skip:$KTAP_SKIP error:0"
	[ "$KTAP_FAIL" -eq 0 ]
	exit $?
}

# --- loops bounded by time as well as count ----------------------------------
# A loop runs at least a floor of iterations, then stops adding iterations
# once its time budget is spent, and says how many it ran and why it
# stopped. ENA_TEST_LONG=1 (make test-long) lifts every budget: full counts.
# ENA_BUDGET_SCALE (percent, default 100) scales every budget.
#
#   budget_start SECONDS
#   for ((i = 0; i < max; i++)); do budget_more "$i" FLOOR || break; ...; done
#   ktap_diag "ran $i of $max: $(budget_why "$i" "$max")"

budget_start() {
	BUDGET_S=$(( $1 * ${ENA_BUDGET_SCALE:-100} / 100 ))
	BUDGET_T0=$SECONDS BUDGET_HIT=0
	[ "${ENA_TEST_LONG:-0}" = 1 ] && BUDGET_S=0
	return 0
}
# budget_more DONE FLOOR: true while another iteration is due
budget_more() {
	[ "$1" -lt "$2" ] && return 0
	[ "$BUDGET_S" = 0 ] && return 0
	[ $((SECONDS - BUDGET_T0)) -lt "$BUDGET_S" ] && return 0
	BUDGET_HIT=1
	return 1
}
# budget_why DONE MAX: why a loop stopped, for its KTAP diagnostics
budget_why() {
	if [ "$BUDGET_HIT" = 1 ]; then
		echo "stopped by the time budget (${BUDGET_S} s, $((SECONDS - BUDGET_T0)) s spent; ENA_TEST_LONG=1 runs all $2)"
	elif [ "$BUDGET_S" = 0 ]; then
		echo "full count, no time budget"
	else
		echo "full count within the time budget (${BUDGET_S} s)"
	fi
}

# --- the driver under test -------------------------------------------------

is_ours() { [ "$ENA_DRIVER" = ours ]; }

# ena_load [module parameters...]
ena_load() {
	if is_ours; then
		[ -f "$ENA_KO" ] || { echo "# no $ENA_KO: run make" >&2; return 1; }
		insmod "$ENA_KO" "$@"
	else
		modprobe ena "$@"
	fi
}

# ena_rmmod: unload the module within 30 s (times ENA_TIMEOUT_SCALE: the
# debug kernel's unload takes tens of seconds), saying so when it did not
ena_rmmod() {
	local t=$((30 * ${ENA_TIMEOUT_SCALE:-1}))
	timeout "$t" rmmod ena || { echo "rmmod ena failed or took over $t s"; return 1; }
}

ena_unload() {
	grep -q '^ena ' /proc/modules || return 0
	rmmod ena
}

# ena_ifaces: interface names bound to the ena driver, ordered by MAC
ena_ifaces() {
	local d
	for d in /sys/class/net/*; do
		[ "$(basename "$(readlink -f "$d/device/driver" 2>/dev/null)")" = ena ] || continue
		echo "$(cat "$d/address") $(basename "$d")"
	done | sort | awk '{print $2}'
}

# ena_pci_devs: "bdf device-id" of every Amazon ENA function, by address
ena_pci_devs() {
	local d
	for d in /sys/bus/pci/devices/*; do
		[ "$(cat "$d/vendor")" = 0x1d0f ] || continue
		echo "$(basename "$d") $(cut -c3- "$d/device")"
	done
}

# ena_wait_ifaces [N] [timeout s]: wait until N ena interfaces exist
ena_wait_ifaces() {
	local n=${1:-$ENA_NDEV} t=${2:-20} i
	for ((i = 0; i < t * 20; i++)); do
		[ "$(ena_ifaces | wc -l)" -ge "$n" ] && return 0
		sleep 0.05
	done
	return 1
}

# link_wait IFACE up|down [timeout s] [ns]: wait until the link is up as a
# user sees it (carrier 1 and operstate "up", what `ip link` prints as
# "state UP"), or down (no carrier, operstate not "up")
link_wait() {
	local dev=$1 want=$2 t=${3:-15} ns=${4:-} i st= c o
	for ((i = 0; i < t * 20; i++)); do
		st=$(nsx "$ns" cat "/sys/class/net/$dev/carrier" "/sys/class/net/$dev/operstate" 2>/dev/null)
		c=${st%%$'\n'*} o=${st##*$'\n'}
		if [ "$want" = up ]; then [ "$c/$o" = 1/up ] && return 0
		else [ "$c" != 1 ] && [ "$o" != up ] && return 0; fi
		sleep 0.05
	done
	echo "$dev: link not $want within ${t}s: carrier/operstate ${st//$'\n'//}"
	return 1
}
wait_carrier() { link_wait "$1" up "${@:2}"; }      # IFACE [timeout s] [ns]
wait_no_carrier() { link_wait "$1" down "${@:2}"; } # IFACE [timeout s] [ns]

# ena_bdf IFACE: the PCI address of the device behind IFACE
ena_bdf() { basename "$(readlink -f "/sys/class/net/$1/device")"; }

# nsx NS CMD...: run CMD in netns NS, or here when NS is empty
nsx() {
	local ns=$1; shift
	if [ -n "$ns" ]; then ip netns exec "$ns" "$@"; else "$@"; fi
}

# --- the QEMU model ----------------------------------------------------------

qmp() { "$QMP" "$@"; }
model_get() { "$QMP" qom-get "$1" "$2"; }     # model_get ena0 stat-admin-cmds
model_set() { "$QMP" qom-set "$1" "$2" "$3"; } # model_set ena0 admin-latency-us 50
# model_rx_full NDEV: 1 when the model says every live RX queue of ena0..
# ena<NDEV-1> has held depth - 1 posted buffers at once (the most a ring
# holds; the frames of the wire use some, and the driver refills them in
# batches), waiting up to 10 s for fills still running; 0 otherwise
model_rx_full() {
	local end=$((SECONDS + 10)) d short
	while :; do
		short=0
		for ((d = 0; d < $1; d++)); do
			short=$((short + $(model_get ena$d rx-fill |
				awk '$6 + 1 < $8 { n++ } END { print n + 0 }')))
		done
		[ "$short" = 0 ] && { echo 1; return; }
		[ $SECONDS -ge $end ] && { echo 0; return; }
		sleep 0.05
	done
}
# model_set_many DEV PROP VALUE [PROP VALUE...]: in order, one process start
model_set_many() { "$QMP" qom-set "$@"; }
# model_expect_errors DEV KINDS: protocol errors of these kinds (comma
# separated: mmio, admin, feature, queue, doorbell, tx, llq, rx; or "all")
# are what the test provokes from here on, and do not fail the guest;
# model_expect_errors DEV "" ends that phase (the guest runner fails a
# guest whose model logged an unexpected protocol error)
model_expect_errors() { "$QMP" qom-set "$1" expect-guest-errors "$2"; }
model_link() { "$QMP" set_link "$1" "$2"; }  # model_link ena0 off
# wait_model_reset N0 [SECONDS]: true once device ena0 has counted more than
# N0 resets (its stat-resets), polled every 0.25 s for SECONDS (default 20)
wait_model_reset() {
	local n0=$1 end=$((SECONDS + ${2:-20}))
	while [ $SECONDS -lt $end ]; do
		[ "$(model_get ena0 stat-resets)" -gt "$n0" ] && return 0
		sleep 0.25
	done
	echo "no device reset within ${2:-20}s"
	return 1
}

# udp_burst N: N datagrams of 1000 bytes to 10.77.0.2:5004, as fast as the
# socket takes them (a 64 MiB send buffer, forced), stopping at the first
# one it refuses: fills a TX queue the device does not serve (tx-hold)
udp_burst() {
	python3 - "$1" <<-'PY'
		import socket, sys
		s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
		s.setsockopt(socket.SOL_SOCKET, 32, 64 << 20)
		s.setblocking(False)
		for i in range(int(sys.argv[1])):
		    try:
		        s.sendto(b"w" * 1000, ("10.77.0.2", 5004))
		    except OSError:
		        break
	PY
}

# tx_stall N S: the device stops sending (tx-hold), N datagrams (udp_burst)
# fill the queue, and the stack's TX watchdog must have the driver count a
# tx_timeout within S seconds; the device sends again after, either way.
# TXTO0 and TXTO1: tx_timeout before and after
tx_stall() {
	local i
	TXTO0=$(eth_stat "$A" tx_timeout)
	model_set ena0 tx-hold true
	udp_burst "$1"
	for ((i = 0; i < $2 * 5; i++)); do
		TXTO1=$(eth_stat "$A" tx_timeout)
		[ "${TXTO1:-0}" -gt "${TXTO0:-0}" ] && break
		sleep 0.2
	done
	model_set ena0 tx-hold false
	[ "${TXTO1:-0}" -gt "${TXTO0:-0}" ]
}

# pktgen_to IFACE PEER NS [THREAD]: pktgen's THREAD (default: the last
# kpktgend) sends 60-byte frames out of IFACE to 10.77.0.2 at the MAC of
# PEER (in netns NS), until stopped (count 0); start and stop through
# /proc/net/pktgen/pgctrl. Sets PKTGEN_TH to the thread (rem_device_all
# there undoes it).
pktgen_to() {
	local dev=$1 peer=$2 ns=$3 th=${4:-} mac pg=/proc/net/pktgen l
	modprobe pktgen 2>/dev/null && [ -d $pg ] || { echo "no pktgen"; return 1; }
	[ -n "$th" ] || th=$(basename "$(ls -d $pg/kpktgend_* | sort -V | tail -1)")
	mac=$(ip netns exec "$ns" cat "/sys/class/net/$peer/address") || return 1
	echo rem_device_all > "$pg/$th" && echo "add_device $dev" > "$pg/$th" || return 1
	PKTGEN_TH=$th
	for l in "count 0" "pkt_size 60" "dst 10.77.0.2" "dst_mac $mac"; do
		echo "$l" > "$pg/$dev" || return 1
	done
}

# --- two hosts on one wire ---------------------------------------------------

# pair_setup [IF_A IF_B]: first interface (IF_A, or the first of ena_ifaces)
# stays here as 10.77.0.1 / fd77::1, the second moves into netns "ena-peer"
# as 10.77.0.2 / fd77::2. Sets A and B.
pair_setup() {
	local ifs
	if [ $# = 2 ]; then ifs=("$1" "$2"); else mapfile -t ifs < <(ena_ifaces); fi
	[ "${#ifs[@]}" -ge 2 ] || return 1
	A=${ifs[0]} B=${ifs[1]}
	# a new namespace takes init_net's "all"/"default" IPv6 settings, so
	# no DAD there either; one ip(8) per namespace (every exec costs tens
	# of ms under TCG)
	sysctl -qw net.core.devconf_inherit_init_net=1 \
		net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
	ip netns add ena-peer || return 1
	ip link set "$B" netns ena-peer || return 1
	ip -n ena-peer -b - <<-EOF || return 1
		link set lo up
		addr add 10.77.0.2/24 dev $B
		addr add fd77::2/64 dev $B nodad
		link set $B up
	EOF
	ip -b - <<-EOF || return 1
		addr add 10.77.0.1/24 dev $A
		addr add fd77::1/64 dev $A nodad
		link set $A up
	EOF
}

# pair_teardown: bring the peer interface home so the module can unload
pair_teardown() {
	[ -e /run/netns/ena-peer ] || return 0
	[ -n "${B:-}" ] && ip -n ena-peer link set "$B" netns 1 2>/dev/null
	ip netns del ena-peer
}

# ring SECTION KEY: the ethtool -g value KEY (RX, TX) of $A in the section
# whose title starts with SECTION (Current, Pre-set)
ring() { ethtool -g "$A" | awk -v s="$1" -v k="$2:" '$0 ~ "^" s {c=1} c && $1 == k {print $2; exit}'; }
# chan SECTION: the combined channel count of $A in that ethtool -l section
chan() { ethtool -l "$A" | awk -v s="$1" '$0 ~ "^" s {c=1} c && $1 == "Combined:" {print $2; exit}'; }
# model_ring_bytes [DEV]: the bytes of rings device DEV (ena0) has
# registered, its admin queues included
model_ring_bytes() { model_get "${1:-ena0}" stat-ring-bytes; }
# model_queues_cd [DEV]: "created destroyed", the IO queues DEV counted
model_queues_cd() {
	echo "$(model_get "${1:-ena0}" stat-queues-created) $(model_get "${1:-ena0}" stat-queues-destroyed)"
}
# qpair_bytes LLQ TXD RXD: the bytes one queue pair of TXD/RXD entries
# registers (lazy_dma.sh's header works them out; a TX SQ in LLQ is 0)
qpair_bytes() { echo $(( ($1 ? 0 : $2 * 16) + $2 * 8 + $3 * 16 + $3 * 16 )); }
# the model's admin queues: AQ 32 x 64 + ACQ 32 x 64 + AENQ 16 x 64 B, the
# same for both drivers
ADMIN_RING_BYTES=5120
# expect_eq NAME GOT WANT: true when equal, else says both
expect_eq() {
	[ "$2" = "$3" ] && return 0
	echo "$1: got $2, expected $3"
	return 1
}
# eth_stat IFACE NAME: one ethtool -S counter (empty when absent)
eth_stat() { ethtool -S "$1" 2>/dev/null | awk -v k="$2:" '$1 == k {print $2; exit}'; }
# eth_stat_sum IFACE REGEX: the sum of the ethtool -S counters whose name matches
eth_stat_sum() {
	ethtool -S "$1" | awk -v re="$2" '{ k = $1; sub(/:$/, "", k) } k ~ re { s += $2 } END { print s + 0 }'
}

# peer_wait_listen PORT: true once a TCP socket listens on PORT in the peer
# namespace (5 s)
peer_wait_listen() {
	local i
	for ((i = 0; i < 50; i++)); do
		ip netns exec ena-peer ss -ltn | grep -q ":$1 " && return 0
		sleep 0.1
	done
	return 1
}

# tcp_send MIB: that many MiB over TCP to the peer, checked by sha256
tcp_send() {
	head -c "$1"M /dev/urandom > /tmp/ena-tx
	ip netns exec ena-peer socat -u TCP-LISTEN:5001,reuseaddr OPEN:/tmp/ena-rx,creat,trunc &
	local srv=$! t0 t1
	peer_wait_listen 5001
	t0=$(date +%s.%N)
	# ENA_TIMEOUT_SCALE: the debug kernel (make test-debug) moves data
	# several times slower
	timeout $((120 * ${ENA_TIMEOUT_SCALE:-1})) socat -u OPEN:/tmp/ena-tx TCP:10.77.0.2:5001 ||
		{ echo "$1 MiB not sent within $((120 * ${ENA_TIMEOUT_SCALE:-1})) s"; return 1; }
	wait $srv || return 1
	t1=$(date +%s.%N)
	ktap_diag "$1 MiB in $(echo "$t1 - $t0" | bc) s"
	[ "$(sha256sum < /tmp/ena-tx)" = "$(sha256sum < /tmp/ena-rx)" ]
}

# ping_ok [count]: IPv4 ping from here to the peer
ping_ok() { ping -q -c "${1:-3}" -i 0.2 -W 2 10.77.0.2 >/dev/null 2>&1; }
# ping_within S: one ping to the peer passes within S seconds (the link
# may bounce first), tried every half second
ping_within() {
	local end=$((SECONDS + $1))
	while [ $SECONDS -lt $end ]; do
		ping -q -c 1 -W 1 10.77.0.2 >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	echo "no ping reply within $1 s"
	return 1
}

# dmesg_clean [since-line]: no BUG/WARNING/Oops/leak reports in the kernel log
# (a kmemleak kernel's own boot line, which a kexec'd kernel prints again,
# is not a report)
dmesg_clean() {
	! dmesg | tail -n +"${1:-1}" |
		grep -v 'kmemleak: Kernel memory leak detector initialized' |
		grep -E 'BUG|WARNING|Oops|leak|Call Trace' >&2
}
dmesg_lines() { dmesg | wc -l; }

# --- tracefs: one set-up for every tracing user (boot_time.sh, bench/, make run)
TR=/sys/kernel/tracing

# trace_reset: tracing off and everything these helpers or their users set
# (events, kprobes, tracer, function filters, graph depth, clock) back to
# the default, the buffer emptied
trace_reset() {
	[ -d $TR/events ] || mount -t tracefs tracefs $TR || return 1
	echo 0 > $TR/tracing_on
	echo nop > $TR/current_tracer
	echo 0 > $TR/events/enable
	echo > $TR/kprobe_events
	echo > $TR/set_ftrace_filter 2>/dev/null
	echo > $TR/set_graph_function 2>/dev/null
	echo 0 > $TR/max_graph_depth 2>/dev/null
	echo nofuncgraph-tail > $TR/trace_options 2>/dev/null
	echo local > $TR/trace_clock
	echo > $TR/trace
}

# trace_setup CLOCK ITEM...: trace_reset, then the trace clock (local,
# mono, ...) and each ITEM enabled: a kprobe definition ("p:NAME FUNC ..."
# or "r:NAME FUNC ..."; its event is kprobes/NAME) or an event
# ("GROUP/NAME"); tracing stays off until trace_on. Fails (1) when the
# kernel has no tracefs, the clock or a probe.
trace_setup() {
	local clock=$1 it
	shift
	trace_reset || return 1
	echo "$clock" > $TR/trace_clock || return 1
	for it in "$@"; do
		case $it in
		[pr]:*)
			echo "$it" >> $TR/kprobe_events || return 1
			it=${it#?:} it=kprobes/${it%% *}
			;;
		esac
		echo 1 > "$TR/events/$it/enable" || return 1
	done
	echo > $TR/trace
}
trace_on() { echo 1 > $TR/tracing_on; }
trace_off() { echo 0 > $TR/tracing_on; }

# --- in-kernel timing of a driver load ------------------------------------
# The initcall tracepoints fire for module init too (probe of every device is
# synchronous inside it), and a return probe on register_netdevice marks each
# netdev registration: the same clock for the stock driver and ours.
ktime_setup() {
	trace_setup local 'r:ena_registered register_netdevice ret=$retval' \
		initcall/initcall_start initcall/initcall_finish && trace_on
}

# ktime_read: "init_us registered_us" of the last ena_init in the trace
# (registered = last netdev registration, from the start of module init)
ktime_read() {
	python3 -S - $TR/trace <<'PY'
import re, sys
start = finish = None
regs = []
for line in open(sys.argv[1]):
    m = re.search(r"\s(\d+\.\d+):\s+(\S+):\s+(.*)", line)
    if not m:
        continue
    t, ev, rest = float(m[1]), m[2], m[3]
    if ev == "initcall_start" and "ena_init" in rest:
        start, finish, regs = t, None, []
    elif ev == "initcall_finish" and "ena_init" in rest and start is not None:
        finish = t
    elif ev == "ena_registered" and start is not None and re.search(r"ret=(0x)?0\b", rest):
        regs.append(t)
us = lambda a, b: int(round((b - a) * 1e6)) if a is not None and b is not None else -1
print(us(start, finish), us(start, max(regs)) if regs else -1, len(regs))
PY
	echo > $TR/trace
}

# scrub_freed MB: a process writes MB MiB of fresh memory and exits, which
# takes the pages the last driver unload freed out of the free lists.  A
# real boot loads the driver once, into memory nothing ran from; loads that
# follow each other in one guest get the pages the last one freed (its
# module text among them), and under QEMU's TCG the first write to a page
# that held translated code invalidates that code, which stalled one open
# per load by 30..60 ms (4 of 6 loads without this, 1 of 6 with it; both
# drivers).  For the timed loads of the boot bench and make run.
scrub_freed() {
	[ "${1:-0}" -gt 0 ] || return 0
	python3 -S -c 'import sys
b = bytearray(int(sys.argv[1]) << 20)
for i in range(0, len(b), 4096):
    b[i] = 1' "$1"
}

# boot_trace_setup: the time line of a driver load (bench/guest-boot.sh,
# make run; bench/boot-record.py reads it), on CLOCK_MONOTONIC (trace_clock
# mono) so that the netlink listener's user-space times land on it: module
# init (initcall tracepoints), each entry to and return from
# local_pci_probe() (the PCI core calling the driver's probe, on whichever
# task runs it), each register_netdevice() return, each __dev_open()
# (the listener's "up", which runs the driver's ndo_open under RTNL), and
# each call of the driver's RX buffer fill with the buffers it posted: ours'
# ena_rx_refill(), stock's ena_refill_rx_bufs() (the same point in both:
# the buffers are posted and the doorbell rung when it returns). The fill
# probes name the module "ena": the kernel arms each when a module of that
# name loads and has the function (the other driver's is left unarmed);
# their ring is read from %di, the first argument on x86-64 at the entry
# (a probe on a module not loaded yet cannot name $arg1).
boot_trace_setup() {
	trace_setup mono 'p:ena_bprobe local_pci_probe' \
		'r:ena_bprobe_ret local_pci_probe ret=$retval' \
		'r:ena_breg register_netdevice ret=$retval' \
		'p:ena_bopen __dev_open' 'r:ena_bopen_ret __dev_open ret=$retval' \
		'p:ena_bfill_o ena:ena_rx_refill ring=%di' \
		'r:ena_bfill_o_ret ena:ena_rx_refill ret=$retval' \
		'p:ena_bfill_s ena:ena_refill_rx_bufs ring=%di' \
		'r:ena_bfill_s_ret ena:ena_refill_rx_bufs ret=$retval' \
		initcall/initcall_start initcall/initcall_finish && trace_on
}
