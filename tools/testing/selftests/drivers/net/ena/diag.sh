#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Diagnostics as a user sees them, on the pair of interfaces (10.77.0.1 here,
# the peer in netns ena-peer):
#  - `ethtool -d` dumps the device's registers: VERSION and
#    CONTROLLER_VERSION as the model has them (0.10 and 0.1.1), the admin,
#    completion and AENQ queue capabilities the driver programmed (32, 32
#    and 16 entries of 64 bytes), DEV_STS ready, MMIO_READ holding the
#    readless request that read it (the dump takes the driver's readless
#    path), no register marked unreadable; a device that does not answer
#    readless reads (model fault-mmio-drop, as while it resets) costs the
#    dump one read timeout, and the dump marks every register unreadable;
#  - `ethtool -s msglvl`: the in-tree default (drv probe ifdown ifup rx_err
#    tx_err), a value set reads back, an unknown class is refused and
#    changes nothing; msglvl link logs a link change, without it none;
#  - `ethtool -T` lists software transmit and receive stamps, and a UDP
#    socket asking for SO_TIMESTAMPING software TX stamps gets one on its
#    error queue (SCM_TSTAMP_SND, taken by the driver's xmit);
#  - a macvlan's unicast address on the interface (IFF_UNICAST_FLT) leaves
#    it out of promiscuous mode;
#  - `ethtool IFACE` shows autonegotiation as the device reports it in
#    LINK_CONFIG (the model's link-autoneg, off then on);
#  - counters the in-tree driver lists: admin_q_pause counts an admin
#    command that never completes (the device is then reset and traffic
#    comes back), the XDP TX queues' prepare_ctx_err count the frames an
#    XDP_TX program sent into a full ring (the device holding its TX,
#    model tx-hold, for about a second).
# With ENA_DRIVER=stock (the reference) the register dump is skipped (the
# in-tree driver has no get_regs), as is the link message (it logs link
# changes at debug level only).
. "$(dirname "$0")/ena_lib.sh"
here=$(cd "$(dirname "$0")" && pwd)

xp() { python3 -S "$here/xdp_prog.py" "$@"; }
peer() { ip netns exec ena-peer "$@"; }

cleanup() {
	if [ -n "${A:-}" ] && [ -e "/sys/class/net/$A" ]; then
		xp detach "$A" >/dev/null 2>&1
		ip link del ena-mv0 2>/dev/null
	fi
	model_set_many ena0 tx-hold false link-autoneg false fault-mmio-drop 0 >/dev/null 2>&1
	pair_teardown
	ena_unload 2>/dev/null
}
trap cleanup EXIT

# check NAME CMD...: ktap_check, and the case's wall time as a diagnostic
check() {
	local t0=$SECONDS
	ktap_check "$@"
	ktap_diag "$((SECONDS - t0)) s"
}

ktap_header 12
d0=$(dmesg_lines)
ena_load && ena_wait_ifaces 2 && pair_setup && wait_carrier "$A" &&
	wait_carrier "$B" 15 ena-peer || { ktap_diag "setup failed"; ktap_finish; }

# --- ethtool -d ---------------------------------------------------------------

# regs: the dump as 32-bit words, one per line (word n: offset 4n)
regs() { ethtool -d "$A" raw on | od -An -v -tx4 | tr -s ' ' '\n' | sed '/^$/d'; }
regs_ok() {
	local -a w
	local hex
	hex=$(ethtool -d "$A") || return 1
	[ -n "$hex" ] || { echo "ethtool -d printed nothing"; return 1; }
	mapfile -t w < <(regs)
	echo "words: ${#w[@]}; VERSION ${w[0]} CTRL_VERSION ${w[1]} AQ_CAPS ${w[6]}" \
		"ACQ_CAPS ${w[10]} AENQ_CAPS ${w[13]} DEV_STS ${w[22]} MMIO_READ ${w[23]}" \
		"read ${w[28]} unreadable ${w[29]}"
	[ "${#w[@]}" = 30 ] || { echo "expected 30 words"; return 1; }
	[ "${w[0]}" = 0000000a ] && [ "${w[1]}" = 00000101 ] || { echo "versions are not the model's"; return 1; }
	[ "${w[6]}" = 00400020 ] && [ "${w[10]}" = 00400020 ] && [ "${w[13]}" = 00400010 ] ||
		{ echo "queue capabilities are not what the driver programs"; return 1; }
	(( 0x${w[22]} & 1 )) || { echo "DEV_STS not ready"; return 1; }
	(( (0x${w[23]} >> 16) == 0x5c )) || { echo "MMIO_READ does not name its own offset"; return 1; }
	[ "${w[28]}" != 00000000 ] && [ "${w[29]}" = 00000000 ] || { echo "registers unread or unreadable"; return 1; }
}
# a device that does not answer readless reads: the dump ends at its first
# read, after one read timeout (200 ms), not one per register
regs_dead() {
	local -a w
	local t0 ms
	model_set ena0 fault-mmio-drop 3
	t0=$(date +%s%N)
	mapfile -t w < <(regs)
	ms=$((($(date +%s%N) - t0) / 1000000))
	model_set ena0 fault-mmio-drop 0
	echo "dump in $ms ms: VERSION ${w[0]} DEV_STS ${w[22]} read ${w[28]} unreadable ${w[29]}"
	[ "${#w[@]}" = 30 ] && [ "${w[0]}" = ffffffff ] && [ "${w[29]}" = "${w[28]}" ] || return 1
	[ "$ms" -lt 3000 ] || { echo "took longer than one read timeout"; return 1; }
	regs_ok > /dev/null || { echo "the next dump is not whole again"; return 1; }
}
if is_ours; then
	check "ethtool -d: versions, queue caps, DEV_STS ready, read through the readless path" regs_ok
	check "ethtool -d, device not answering: one timeout, every register marked unreadable" regs_dead
else
	ktap_skip "ethtool -d: versions, queue caps, DEV_STS ready, read through the readless path" \
		"the in-tree driver has no register dump ($(ethtool -d "$A" 2>&1 | head -1))"
	ktap_skip "ethtool -d, device not answering: one timeout, every register marked unreadable" \
		"the in-tree driver has no register dump"
fi

# --- msglvl -----------------------------------------------------------------------

msglvl() { ethtool "$A" 2>/dev/null | awk '/Current message level:/ { print $4; exit }'; }
msg_ok() {
	local m want=0x000000f3 names="drv probe ifdown ifup rx_err tx_err"
	# the 6.1 in-tree driver's default: tx_done where 6.12 has ifdown
	! is_ours && [[ $(uname -r) == 6.1.* ]] && want=0x000004e3 names="drv probe ifup rx_err tx_err tx_done"
	m=$(msglvl); echo "default: $m"
	[ "$m" = $want ] || { echo "expected $want ($names)"; return 1; }
	ethtool -s "$A" msglvl 0x4 && m=$(msglvl) && echo "after msglvl 0x4: $m" && [ "$m" = 0x00000004 ] || return 1
	ethtool -s "$A" msglvl tx_err on && m=$(msglvl) && echo "after tx_err on: $m" && [ "$m" = 0x00000084 ] || return 1
	if ethtool -s "$A" msglvl nosuchclass on 2>/dev/null; then echo "an unknown class was taken"; return 1; fi
	m=$(msglvl); echo "after the refused class: $m"
	[ "$m" = 0x00000084 ] || return 1
	ethtool -s "$A" msglvl $want && [ "$(msglvl)" = $want ]
}
check "ethtool msglvl: in-tree default, set and read back, unknown class refused" msg_ok

# flap: the model pulls ena0's cable and puts it back; prints how many
# "link down" lines the driver logged meanwhile
flap() {
	local n0
	n0=$(dmesg_lines)
	model_link ena0 off && wait_no_carrier "$A" >/dev/null && model_link ena0 on &&
		wait_carrier "$A" >/dev/null || { echo "link flap failed"; return 1; }
	dmesg | tail -n +"$((n0 + 1))" | awk -v m="$A: device reports link down" 'index($0, m) { n++ } END { print n + 0 }'
}
link_msg() {
	local on off
	ethtool -s "$A" msglvl link on && on=$(flap) || return 1
	ethtool -s "$A" msglvl link off && off=$(flap) || return 1
	echo "link down lines: $on with msglvl link, $off without"
	[ "$on" = 1 ] && [ "$off" = 0 ]
}
if is_ours; then
	check "msglvl link: a link change logged with it, not without" link_msg
else
	ktap_skip "msglvl link: a link change logged with it, not without" \
		"the in-tree driver logs link changes at debug level only"
fi

# --- timestamps -----------------------------------------------------------------

ts_caps() {
	local t
	t=$(ethtool -T "$A") || return 1
	echo "$t" | grep -E 'software-(transmit|receive)' | sed 's/^[[:space:]]*//'
	grep -q software-transmit <<< "$t" && grep -q software-receive <<< "$t"
}
check "ethtool -T: software transmit and receive timestamps" ts_caps

# a UDP datagram to the peer with SOF_TIMESTAMPING_TX_SOFTWARE: the stamp
# of its transmission (SCM_TSTAMP_SND) must come back on the error queue
tx_stamp() {
	python3 -S - <<-'PY'
		import select, socket, struct, time
		SO_TIMESTAMPING = 37                       # also SCM_TIMESTAMPING
		TX_SOFTWARE, SOFTWARE, OPT_TSONLY = 1 << 1, 1 << 4, 1 << 11
		MSG_ERRQUEUE = 0x2000
		s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
		s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPING,
		             TX_SOFTWARE | SOFTWARE | OPT_TSONLY)
		t0 = time.time()
		s.sendto(b"stamp me", ("10.77.0.2", 9))
		end = time.time() + 3
		while time.time() < end:
		    select.select([], [], [s], 0.2)
		    try:
		        _, anc, _, _ = s.recvmsg(0, 512, MSG_ERRQUEUE | socket.MSG_DONTWAIT)
		    except BlockingIOError:
		        continue
		    stamp = info = None
		    for lvl, typ, data in anc:
		        if lvl == socket.SOL_SOCKET and typ == SO_TIMESTAMPING:
		            sec, nsec = struct.unpack_from("qq", data)
		            stamp = sec + nsec / 1e9
		        elif lvl == socket.IPPROTO_IP and typ == 11:   # IP_RECVERR
		            _, origin, _, _, info, _ = struct.unpack_from("IBBBxII", data)
		    print("stamp %s, ee_info %s (0: SCM_TSTAMP_SND)" % (stamp, info))
		    if stamp and info == 0 and abs(stamp - t0) < 60:
		        raise SystemExit(0)
		print("no software TX stamp on the error queue within 3 s")
		raise SystemExit(1)
	PY
}
check "SO_TIMESTAMPING: a UDP datagram's software TX stamp on the error queue" tx_stamp

# --- IFF_UNICAST_FLT --------------------------------------------------------------

promisc() { ip -d link show "$A" | grep -o 'promiscuity [0-9]*' | awk '{ print $2 }'; }
uc_filter() {
	local mac=02:00:00:00:77:01 n0 p
	n0=$(dmesg_lines)
	modprobe macvlan 2>/dev/null
	ip link add link "$A" name ena-mv0 address $mac type macvlan mode bridge &&
		ip link set ena-mv0 up || { echo "no macvlan"; return 1; }
	p=$(promisc)
	echo "macvlan $mac up: promiscuity $p; $A's unicast list: $(bridge fdb show dev "$A" | grep -ci "$mac") entry"
	bridge fdb show dev "$A" | grep -qi "$mac" || { echo "the address is not on $A"; return 1; }
	dmesg | tail -n +"$((n0 + 1))" | grep "$A.*promiscuous" && return 1
	ip link del ena-mv0
	[ "$p" = 0 ]
}
check "a macvlan's unicast address: no promiscuous mode (IFF_UNICAST_FLT)" uc_filter

# --- autoneg ----------------------------------------------------------------------

autoneg() { ethtool "$A" | awk '/Auto-negotiation:/ { print $2; exit }'; }
autoneg_ok() {
	local off on
	off=$(autoneg)
	model_set ena0 link-autoneg true && on=$(autoneg)
	model_set ena0 link-autoneg false
	echo "Auto-negotiation: model off: $off; model on: $on"
	[ "$off" = off ] && [ "$on" = on ]
}
check "ethtool: Auto-negotiation as LINK_CONFIG reports it" autoneg_ok

# --- counters ---------------------------------------------------------------------

# an admin completion the device drops: the MTU change waits out the admin
# timeout (3 s), the queue is stopped and counted, the device reset
admin_pause() {
	local p0 p r0 end
	p0=$(eth_stat "$A" admin_q_pause) r0=$(model_get ena0 stat-resets)
	[ -n "$p0" ] || { echo "no admin_q_pause"; return 1; }
	model_set ena0 fault-drop-next 1
	ip link set "$A" mtu 1400 2>/dev/null
	wait_model_reset "$r0" || return 1
	ping_within 20 || return 1
	end=$((SECONDS + 10))
	while p=$(eth_stat "$A" admin_q_pause); [ "$p" = "$p0" ] && [ $SECONDS -lt $end ]; do sleep 0.5; done
	echo "admin_q_pause $p0 -> $p, device resets $r0 -> $(model_get ena0 stat-resets)"
	ip link set "$A" mtu 1500
	[ "$p" = $((p0 + 1)) ]
}
check "admin_q_pause: an admin command that never completes is counted, reset, traffic back" admin_pause

# sum REGEX: the sum of $A's ethtool -S counters matching REGEX
sum() { eth_stat_sum "$A" "$1"; }
xdp_full() {
	local mac e f i t0=$SECONDS steps=
	# one channel (the in-tree driver takes XDP with at most half its
	# channels) of 256-entry TX rings, so XDP TX rings: a few hundred
	# frames fill it
	ethtool -L "$A" combined 1 && ethtool -G "$A" tx 256 && wait_carrier "$A" || return 1
	steps+=" -L/-G $((SECONDS - t0)) s"
	xp attach "$A" tx > /dev/null && wait_carrier "$A" || return 1
	steps+=", attach $((SECONDS - t0)) s"
	mac=$(cat "/sys/class/net/$A/address")
	model_set ena0 tx-hold true
	peer python3 -S - "$B" "$mac" 400 <<-'PY'
		# the same 64-byte frame N times, from IFACE to MAC (ethertype 0x88b5)
		import socket, sys
		dev, mac, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
		with open("/sys/class/net/%s/address" % dev) as f:
		    src = bytes.fromhex(f.read().strip().replace(":", ""))
		frame = bytes.fromhex(mac.replace(":", "")) + src + b"\x88\xb5" + bytes(50)
		s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
		s.bind((dev, 0))
		for _ in range(n):
		    s.send(frame)
	PY
	# held until the ring overflowed (or 10 s): the RX path of a slow
	# guest may take longer than the peer to go through the 400 frames
	for ((i = 0; i < 50; i++)); do
		e=$(sum '^queue_[0-9]+_xdp_tx_prepare_ctx_err$')
		[ "${e:-0}" -gt 0 ] && break
		sleep 0.2
	done
	model_set ena0 tx-hold false
	steps+=", frames sent $((SECONDS - t0)) s"
	e=$(sum '^queue_[0-9]+_xdp_tx_prepare_ctx_err$') f=$(sum '^queue_[0-9]+_xdp_ring_full$')
	echo "XDP TX prepare_ctx_err $e (ours' xdp_ring_full: $f)"
	xp detach "$A" > /dev/null && wait_carrier "$A" || return 1
	echo "time:$steps, detached $((SECONDS - t0)) s"
	[ "${e:-0}" -gt 0 ]
}
check "prepare_ctx_err: XDP_TX frames into a full XDP TX ring are counted" xdp_full

no_rx_map_err() {
	local n
	n=$(ethtool -S "$A" | grep -c '^ *queue_[0-9]*_rx_dma_mapping_err:')
	echo "queue_<n>_rx_dma_mapping_err listed $n times"
	[ "$n" = 0 ]
}
if is_ours; then
	check "ethtool -S: no RX dma_mapping_err (page_pool maps RX pages)" no_rx_map_err
else
	ktap_skip "ethtool -S: no RX dma_mapping_err (page_pool maps RX pages)" "the in-tree driver maps RX pages itself"
fi

check "kernel log clean" dmesg_clean "$d0"
pair_teardown
ktap_run ena_rmmod || ktap_diag "rmmod failed"
ktap_finish
