#!/bin/bash
# Model acceptance run against the stock driver.
Q=${ENA_TOP:-/work/main}/tools/testing/vm/qmp
say() { echo "=== $*"; }
fail=0
chk() { if "$@"; then echo "ok: $*"; else echo "FAIL: $*"; fail=1; fi; }
t0=$(date +%s%N)
modprobe ena
t1=$(date +%s%N); echo "modprobe took $(( (t1-t0)/1000000 )) ms"
sleep 1
ip netns add ns1
ip link set eth1 netns ns1
ip addr add 10.0.0.1/24 dev eth0
ip -6 addr add fd00::1/64 dev eth0 nodad
ip link set eth0 up
ip netns exec ns1 ip addr add 10.0.0.2/24 dev eth1
ip netns exec ns1 ip -6 addr add fd00::2/64 dev eth1 nodad
ip netns exec ns1 ip link set eth1 up
ip netns exec ns1 ip link set lo up
sleep 2
traffic() {
	chk ping -q -c 2 -W 3 10.0.0.2
	chk ip netns exec ns1 ping -q -c 2 -W 3 10.0.0.1
	chk ping -6 -q -c 2 -W 3 fd00::2
	chk ip netns exec ns1 ping -6 -q -c 2 -W 3 fd00::1
}
say carrier $(cat /sys/class/net/eth0/carrier) $(ip netns exec ns1 cat /sys/class/net/eth1/carrier)
traffic
say tcp 64MiB
head -c 64M /dev/urandom > /tmp/src.bin
sha256sum /tmp/src.bin | cut -c1-64 > /tmp/src.sum
ip netns exec ns1 socat -u TCP-LISTEN:5000,reuseaddr OPEN:/tmp/dst.bin,creat,trunc &
sleep 1
ts=$(date +%s%N)
socat -u OPEN:/tmp/src.bin TCP:10.0.0.2:5000,retry=20,interval=0.5
wait
te=$(date +%s%N); echo "transfer $(( (te-ts)/1000000 )) ms"
sha256sum /tmp/dst.bin | cut -c1-64 > /tmp/dst.sum
chk cmp /tmp/src.sum /tmp/dst.sum
cat /tmp/src.sum /tmp/dst.sum
rm -f /tmp/dst.bin
say ethtool -l; ethtool -l eth0 | tail -5
chk ethtool -L eth0 combined 1; traffic
max=$(ethtool -l eth0 | awk '/Combined/{print $2; exit}')
chk ethtool -L eth0 combined $max; traffic
say ethtool -g; ethtool -g eth0 | head -12
chk ethtool -G eth0 rx 256 tx 256; traffic
chk ethtool -G eth0 rx 4096 tx 4096; traffic
ethtool -g eth0 | tail -6
chk ethtool -G eth0 rx 1024 tx 1024
say mtu 9000
chk ip link set eth0 mtu 9000
chk ip netns exec ns1 ip link set eth1 mtu 9000
sleep 1
chk ping -q -c 2 -W 3 -s 8000 -M do 10.0.0.2
chk ip netns exec ns1 ping -q -c 2 -W 3 -s 8000 -M do 10.0.0.1
chk ping -6 -q -c 2 -W 3 -s 8000 fd00::2
traffic
say set_link
$Q set_link ena0 off; sleep 1
c=$(cat /sys/class/net/eth0/carrier); echo "carrier after off: $c"; chk test "$c" = 0
$Q set_link ena0 on; sleep 1
c=$(cat /sys/class/net/eth0/carrier); echo "carrier after on: $c"; chk test "$c" = 1
traffic
say stats
for p in stat-admin-cmds stat-admin-by-opcode stat-admin-doorbells stat-io-doorbells stat-queues-created stat-queues-destroyed stat-ring-bytes stat-resets stat-tx-packets stat-rx-packets stat-rx-dropped stat-react-count stat-react-median-ns stat-react-p90-ns stat-react-max-ns; do
	echo "$p = $($Q qom-get ena0 $p)"
done
say rmmod
ip netns exec ns1 ip link set eth1 netns 1 2>/dev/null
chk rmmod ena
dmesg | grep -iE 'ena|warn|error|timeout|call trace|bug' | grep -vE 'unknown parameter|Command line|RCU|ACPI|AppArmor|xstate|Serial|audit' | tail -40
echo "FAILURES: $fail"
