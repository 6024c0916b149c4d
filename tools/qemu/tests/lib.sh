#!/bin/bash
# Shared preamble of the model's smoke scripts (run inside a guest with
# --ena 2): the monitor client, a check helper, and the stock driver bound
# with eth1 moved into netns ns1 (10.0.0.1 <-> 10.0.0.2).
Q=${ENA_TOP:-/work/main}/tools/testing/vm/qmp
fail=0
chk() { if "$@"; then echo "ok: $*"; else echo "FAIL: $*"; fail=1; fi; }
pair_up() {
	modprobe ena; sleep 1
	ip netns add ns1
	ip link set eth1 netns ns1
	ip addr add 10.0.0.1/24 dev eth0; ip link set eth0 up
	ip netns exec ns1 ip addr add 10.0.0.2/24 dev eth1
	ip netns exec ns1 ip link set eth1 up
	sleep 2
}
