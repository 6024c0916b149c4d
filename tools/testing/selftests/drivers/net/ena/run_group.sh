#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run_group.sh TEST...: run selftests of this directory one after the other
# in one guest (each prints its own KTAP and cleans up after itself), with
# each one's wall time as a diagnostic line. Exits non-zero when any failed.
here=$(cd "$(dirname "$0")" && pwd)
rc=0
for t in "$@"; do
	t0=$SECONDS
	"$here/$t" || rc=1
	echo "# $t: $((SECONDS - t0)) s"
done
exit $rc
