#!/bin/bash
. "$(dirname "$0")/lib.sh"
pair_up
chk ping -q -c 2 -W 3 10.0.0.2
for m in 1 2; do
	echo "=== fault-malformed=$m"
	dmesg -C; r0=$($Q qom-get ena0 stat-resets)
	$Q qom-set ena0 fault-malformed $m
	ethtool eth0 >/dev/null 2>&1; echo "ethtool rc $?"
	sleep 6
	r1=$($Q qom-get ena0 stat-resets); echo "resets $r0 -> $r1"; chk test "$r1" -gt "$r0"
	dmesg | grep -iE 'ena' | grep -vE 'queue_|ena_admin_q|_cnt|: [0-9]+$' | tail -6
	chk ping -q -c 2 -W 3 10.0.0.2
done
echo "=== fault-delay-next-ms=500"
$Q qom-set ena0 fault-delay-next-ms 500
t0=$(date +%s%N); ethtool eth0 >/dev/null; t1=$(date +%s%N); echo "ethtool took $(( (t1-t0)/1000000 )) ms"
echo "=== fault-status-opcode=3 (CREATE_CQ)"
dmesg -C
$Q qom-set ena0 fault-status-opcode 3
ethtool -L eth0 combined 1; echo "ethtool -L rc $?"
$Q qom-set ena0 fault-status-opcode -1
sleep 6
dmesg | grep -iE 'ena' | grep -vE 'queue_|ena_admin_q|_cnt|: [0-9]+$' | tail -6
ip link set eth0 down; ip link set eth0 up; sleep 2
chk ping -q -c 2 -W 3 10.0.0.2
echo "=== jitter: latency 300 jitter 3000, channel changes"
$Q qom-set ena0 admin-latency-us 300; $Q qom-set ena0 admin-jitter-us 3000
chk ethtool -L eth0 combined 1; chk ping -q -c 2 -W 3 10.0.0.2
chk ethtool -L eth0 combined 2; chk ping -q -c 2 -W 3 10.0.0.2
chk ethtool -G eth0 rx 512 tx 512; chk ping -q -c 2 -W 3 10.0.0.2
echo "by-opcode: $($Q qom-get ena0 stat-admin-by-opcode)"
ip netns exec ns1 ip link set eth1 netns 1
chk rmmod ena
dmesg | grep -iE 'warn|call trace|bug' | tail
echo "FAILURES: $fail"
