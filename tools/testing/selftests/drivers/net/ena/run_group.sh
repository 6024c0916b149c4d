#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# run_group.sh TEST...: run selftests of this directory one after the other
# in one guest (each prints its own KTAP and cleans up after itself), with
# each one's wall time as a diagnostic line. Exits non-zero when any failed.
#
# On a kernel with kmemleak (the debug kernel of make test-debug), objects
# left over from before the tests are marked first, and after the last test
# (which unloads the module) a scan must find no new unreferenced object:
# one more KTAP document, "kmemleak".
here=$(cd "$(dirname "$0")" && pwd)
kml=/sys/kernel/debug/kmemleak
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug 2>/dev/null
if [ -w "$kml" ]; then
	echo scan > "$kml"; echo clear > "$kml"
else
	kml=
fi
rc=0
for t in "$@"; do
	t0=$SECONDS
	"$here/$t" || rc=1
	echo "# $t: $((SECONDS - t0)) s"
done
if [ -n "$kml" ]; then
	# an object is reported once it stayed unreferenced over two scans
	echo scan > "$kml"; sleep 5; echo scan > "$kml"
	leaks=$(cat "$kml")
	echo "TAP version 13"
	echo "1..1"
	if [ -z "$leaks" ]; then
		echo "ok 1 kmemleak: no object left unreferenced by the tests"
	else
		echo "# $(grep -c '^unreferenced object' <<< "$leaks") unreferenced objects:"
		head -n 80 <<< "$leaks" | sed 's/^/# /'
		echo "not ok 1 kmemleak: no object left unreferenced by the tests"
		rc=1
	fi
fi
exit $rc
