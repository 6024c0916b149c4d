#!/bin/bash
. "$(dirname "$0")/lib.sh"
probe_ms() {
	local t0 t1
	t0=$(date +%s%N); modprobe ena; t1=$(date +%s%N)
	echo $(( (t1-t0)/1000000 ))
}
echo "=== admin latency vs probe time"
for lat in 0 1000 5000 0; do
	$Q qom-set ena0 admin-latency-us $lat; $Q qom-set ena1 admin-latency-us $lat
	$Q qom-set ena0 stat-reset true
	ms=$(probe_ms)
	echo "admin-latency-us=$lat modprobe_ms=$ms admin_cmds(ena0)=$($Q qom-get ena0 stat-admin-cmds) react_median_ns=$($Q qom-get ena0 stat-react-median-ns)"
	rmmod ena
done
pair_up
chk ping -q -c 2 -W 3 10.0.0.2
echo "=== keepalive-ms=0"
dmesg -C
r0=$($Q qom-get ena0 stat-resets)
$Q qom-set ena0 keepalive-ms 0
sleep 9
$Q qom-set ena0 keepalive-ms 1000
sleep 4
r1=$($Q qom-get ena0 stat-resets)
echo "resets $r0 -> $r1"; chk test "$r1" -gt "$r0"
dmesg | grep -iE 'ena|keep' | tail -15
chk ping -q -c 2 -W 3 10.0.0.2
echo "=== fault-drop-next=1"
dmesg -C
r0=$($Q qom-get ena0 stat-resets)
$Q qom-set ena0 fault-drop-next 1
ethtool eth0 > /dev/null 2>&1; echo "ethtool rc $?"
sleep 6
r1=$($Q qom-get ena0 stat-resets)
echo "resets $r0 -> $r1"; chk test "$r1" -gt "$r0"
dmesg | grep -iE 'ena' | tail -15
chk ping -q -c 2 -W 3 10.0.0.2
echo "=== fault-status-feature=27 (link config)"
$Q qom-set ena0 fault-status-feature 27
ethtool eth0 2>&1 | head -3
$Q qom-set ena0 fault-status-feature -1
chk ping -q -c 2 -W 3 10.0.0.2
echo "=== fault-fatal"
dmesg -C
$Q qom-set ena0 fault-fatal true; sleep 4; $Q qom-set ena0 fault-fatal false; sleep 4
dmesg | grep -iE 'ena' | tail -8
chk ping -q -c 2 -W 3 10.0.0.2
for knob in fault-tx-bad-reqid fault-rx-bad-reqid; do
	echo "=== $knob=1"
	dmesg -C
	$Q qom-set ena0 $knob 1
	ping -q -c 2 -W 3 10.0.0.2 >/dev/null; sleep 5
	dmesg | grep -iE 'ena' | tail -6
	chk ping -q -c 2 -W 3 10.0.0.2
done
ip netns exec ns1 ip link set eth1 netns 1
chk rmmod ena
echo "FAILURES: $fail"
