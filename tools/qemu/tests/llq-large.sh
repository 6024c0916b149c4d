#!/bin/bash
# 256-byte LLQ entries (6.12: ethtool -G tx-push-buf-len 224), then traffic.
. "$(dirname "$0")/lib.sh"
pair_up
chk ping -q -c 2 -W 3 10.0.0.2
chk python3 ${ENA_TOP:-/work/main}/tools/qemu/tests/push-buf-len.py eth0 224
ethtool -g eth0 | grep -iE "^TX:"; dmesg | grep -i "large\|llq" | tail -3
sleep 2
chk ping -q -c 2 -W 3 10.0.0.2
chk ping -q -c 2 -W 3 -s 1400 10.0.0.2
head -c 8M /dev/urandom > /tmp/a; ip netns exec ns1 socat -u TCP-LISTEN:5001,reuseaddr OPEN:/tmp/b,creat,trunc &
sleep 1; socat -u OPEN:/tmp/a TCP:10.0.0.2:5001,retry=20,interval=0.5; wait
chk cmp /tmp/a /tmp/b
chk python3 ${ENA_TOP:-/work/main}/tools/qemu/tests/push-buf-len.py eth0 96
sleep 2
chk ping -q -c 2 -W 3 10.0.0.2
dmesg | grep -iE 'ena' | grep -vE 'version|found at' | tail -8
echo "FAILURES: $fail"
