#!/bin/bash
. "$(dirname "$0")/lib.sh"
pair_up
ethtool -l eth0 | grep Combined
ethtool -x eth0 | head -8
for i in 1 2 3 4 5 6 7 8; do
	ip netns exec ns1 socat -u TCP-LISTEN:$((5000+i)),reuseaddr OPEN:/dev/null &
done
sleep 1
for i in 1 2 3 4 5 6 7 8; do
	head -c 2M /dev/zero | socat -u STDIN TCP:10.0.0.2:$((5000+i)),retry=20,interval=0.5 &
done
wait
ip netns exec ns1 ethtool -S eth1 | grep -E 'queue_._rx_cnt|queue_._tx_cnt|csum'
echo "ring bytes: $($Q qom-get ena1 stat-ring-bytes)"
