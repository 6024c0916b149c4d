#!/bin/bash
Q=${ENA_TOP:-/work/main}/tools/testing/vm/qmp
modprobe ena; rmmod ena    # warm the module cache
declare -A res
for rep in 1 2 3; do
	for lat in 0 500 2000 10000; do
		for d in ena0 ena1; do $Q qom-set $d admin-latency-us $lat; done
		t0=$(date +%s%N); modprobe ena; t1=$(date +%s%N)
		res[$lat]+=" $(( (t1-t0)/1000000 ))"
		rmmod ena
	done
done
for lat in 0 500 2000 10000; do echo "admin-latency-us=$lat modprobe_ms:${res[$lat]}"; done
echo "admin cmds per probe (ena0, last): see by-opcode $($Q qom-get ena0 stat-admin-by-opcode)"
