#!/bin/bash
# make run: one guest, two ENA model devices, the stock driver and ours in
# turn, both links up, a ping across, and a short report.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
make -s modules tools
# the demo shows timings: no memory/DMA checkers (the selftests run them)
ENA_VM_CHECKERS=${ENA_VM_CHECKERS:-0} exec tools/testing/vm/run --kernel "${ENA_KERNEL:-6.12}" --ena 2 -- tools/demo-guest.sh
