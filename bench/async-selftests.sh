#!/bin/bash
# Does our driver pass the selftests when every device probes asynchronously?
# Runs each tests.list line for the driver (ENA_DRIVER, default ours) in its
# own guest, like make test, but with the kernel's default for modules set to
# async probing first (/sys/module/module/parameters/async_probe, the
# runtime knob of module.async_probe=1: an insmod/modprobe without
# async_probe= then probes every device in its own async work).
# An entry "a.sh+b.sh" runs both in one guest (run_group.sh), as make test.
#   BENCH_KERNELS ("6.12"), ENA_DRIVER (ours), ENA_TEST_ONLY (all),
#   ENA_TEST_LIST (tests.list), ENA_TEST_LOG_DIR (build/test-logs)
# Ends with "N passed, N failed, N skipped" over the KTAP lines (SKIP and
# XFAIL are skips; a document short of its plan fails, as in make test);
# logs in build/test-logs/async-*.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tools/lib.sh"
. "$top/tools/testing/ktap.sh"
cd "$top"
st=tools/testing/selftests/drivers/net/ena
drv=${ENA_DRIVER:-ours}
list=${ENA_TEST_LIST:-$st/tests.list}
# a correctness run: the guests' checkers stay on (bench/run.sh turns them
# off for its timings)
[ "${ENA_VM_CHECKERS:-1}" = 1 ] ||
	{ echo "async-selftests: ENA_VM_CHECKERS=$ENA_VM_CHECKERS would run the guests without their checkers; unset it" >&2; exit 1; }
log=${ENA_TEST_LOG_DIR:-build/test-logs}; mkdir -p "$log"
pass=0 fail=0 skip=0
tmo=$(sed -n 's/^timeout=//p' "$st/settings" 2>/dev/null); tmo=${tmo:-600}
for k in ${BENCH_KERNELS:-6.12}; do
	while read -r name ndev drivers extra; do
		case $name in ''|'#'*) continue;; esac
		[[ ",$drivers," == *",$drv,"* ]] || continue
		[ -n "${ENA_TEST_ONLY:-}" ] && [[ " $ENA_TEST_ONLY " != *" $name "* ]] && continue
		envs=() ropts=() tk="6.1 6.12"
		for x in $extra; do
			case $x in
			KERNELS=*) tk=${x#KERNELS=}; tk=${tk//,/ };;
			--*=*) ropts+=("${x%%=*}" "${x#*=}");;
			*=*) envs+=("$x");;
			esac
		done
		[[ " $tk " == *" $k "* ]] || continue
		out=$log/async-${name//[.+]/_}-$k-$drv.ktap
		echo "=== $name [$k, $drv, async probe${extra:+, $extra}]"
		env "${envs[@]}" ENA_DRIVER="$drv" tools/testing/vm/run --kernel "$k" --ena "$ndev" \
			--timeout "$tmo" "${ropts[@]}" -- sh -c \
			'echo 1 > /sys/module/module/parameters/async_probe && exec "$0" "$@"' \
			"$top/$st/run_group.sh" ${name//+/ } > "$out" 2>&1
		rc=$?
		grep -E '^(not ok|# Totals)' "$out"
		ktap_count "$out"
		[ $rc != 0 ] && [ "$ktap_f" = 0 ] && ktap_f=1 && echo "not ok - $name: exit status $rc"
		pass=$((pass + ktap_p)) fail=$((fail + ktap_f)) skip=$((skip + ktap_s))
	done < "$list"
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
