#!/bin/bash
# make check: static checks of the driver, for each kernel release given.
#  - W=1 with -Werror (the module build itself, done by make before this)
#  - sparse (C=2): no report on our files
#  - coccinelle: the kernel's semantic patches in report mode
#  - checkpatch --strict, kernel-doc -none on every source file
# A checker that is missing or fails (sparse, spatch: make setup installs
# both) is a failure of make check, never a clean result.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tools/lib.sh"
cd "$top"
drv=drivers/net/ethernet/ena
lt=$ENA_CACHE/linux-tools
rc=0
files=$(ls $drv/*.[ch] include/*.h 2>/dev/null)

for tool in sparse spatch; do
	command -v "$tool" > /dev/null ||
		{ echo "check: $tool missing (make setup installs it)"; rc=1; }
done
for rel in "$@"; do
	# a cloud flavour builds the same sources as its generic kernel (make
	# builds it with W=1 -Werror); sparse once per kernel version is enough
	case $rel in *-cloud-*) [ -z "${KDIR:-}" ] && continue;; esac
	kdir=${KDIR:-$ENA_CACHE/headers/$rel/usr/src/linux-headers-$rel}
	# a kernel built in its release's build root is checked there too,
	# by that release's sparse (tools/in-chroot)
	in_root=()
	[ -z "${KDIR:-}" ] && [ -f "$ENA_CACHE/headers/$rel/.chroot" ] &&
		in_root=("$top/tools/in-chroot" "$(cat "$ENA_CACHE/headers/$rel/.chroot")")
	all=$("${in_root[@]}" make -s -j"$(nproc)" -C "$kdir" M="$top/build/$rel/src" W=1 C=2 modules 2>&1); mrc=$?
	out=$(grep -E "(^|/)($drv|include)/" <<< "$all" | grep -vE '^\s*(CC|LD|MODPOST|CHECK)|^Skipping BTF')
	if [ $mrc != 0 ]; then
		# sparse missing or dying fails make: never a clean result
		grep -vE '^Skipping BTF' <<< "$all" | tail -n 20
		echo "check: sparse run failed ($rel: make C=2 exit status $mrc)"; rc=1
	elif [ -n "$out" ]; then echo "$out"; echo "check: sparse reports ($rel)"; rc=1; else echo "check: sparse clean ($rel)"; fi
done

# every CPU: one spatch per semantic patch, each starts slowly
jobs=$(nproc)
ccs=$(find "$lt/scripts/coccinelle" -name '*.cocci' | sort | while read -r cocci; do
	# only scripts with a report mode; skip the ones that need the whole tree
	grep -q 'virtual report' "$cocci" || continue
	case $cocci in */tests/*|*/misc/minmax.cocci) continue;; esac
	echo "$cocci"
done)
# semantic patches with OCaml scripts need an OCaml compiler, which the
# coccinelle package does not pull in (make setup installs ocaml-nox):
# without one they are skipped, by name, on every run (spatch would stop
# on them: "No OCaml compiler found")
ocaml_skip=
if ! command -v ocamlopt > /dev/null && ! command -v ocamlopt.opt > /dev/null; then
	ocaml_skip=$(grep -l '^@ *\(script\|initialize\|finalize\):ocaml' $ccs 2>/dev/null)
	[ -z "$ocaml_skip" ] || ccs=$(grep -vxF "$ocaml_skip" <<< "$ccs")
fi
n=$(echo "$ccs" | grep -c .)
# each spatch's errors and exit status are kept: a semantic patch that did
# not run (spatch missing, a parse error, the timeout) is a failure
cdir=$(mktemp -d /tmp/ena-check.XXXXXX)
trap 'rm -rf "$cdir"' EXIT
res=$(echo "$ccs" | xargs -r -P "$jobs" -I{} sh -c \
	'e=$1/$(basename "$2"); timeout "$3" spatch --very-quiet -D report --no-show-diff \
		--sp-file "$2" --dir "$4" -I include --include-headers 2> "$e.err"; r=$?
	 [ $r = 0 ] || echo "exit status $r$([ $r = 124 ] && echo " (timeout $3 s)")" > "$e.rc"' \
	cocci "$cdir" {} "${ENA_CHECK_SPATCH_TIMEOUT:-300}" $drv | grep -v '^$')
crc=0
[ -n "$res" ] && { echo "$res"; crc=1; rc=1; }
cerr=0
for e in "$cdir"/*.rc; do
	[ -e "$e" ] || continue
	e=${e%.rc}; cerr=$((cerr + 1))
	[ $cerr -le 10 ] || continue
	echo "check: spatch failed on ${e##*/}: $(cat "$e.rc")"; tail -n 5 "$e.err" | sed 's/^/  /'
done
[ -z "$ocaml_skip" ] || echo "check: coccinelle: SKIP $(echo "$ocaml_skip" | xargs -n1 basename | paste -sd' ') (OCaml scripts, no ocamlopt)"
if [ $cerr != 0 ] || [ "$n" = 0 ]; then
	echo "check: coccinelle did not run ($cerr of $n semantic patches failed)"; rc=1
elif [ $crc = 0 ]; then echo "check: coccinelle clean ($n semantic patches)"; else echo "check: coccinelle reports"; fi

cp_out=$(perl "$lt/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG -f $files 2>&1 | grep -vE '^total: 0 errors, 0 warnings, 0 checks')
if [ -n "$cp_out" ]; then echo "$cp_out"; echo "check: checkpatch reports"; rc=1; else echo "check: checkpatch --strict clean"; fi

# every device the in-tree driver claims: the same PCI aliases in modinfo
for rel in "$@"; do
	stock=$(find "$ENA_CACHE/kernels/$rel/lib/modules" -path '*/amazon/ena/ena.ko*' 2>/dev/null | head -n1)
	[ -n "$stock" ] || { echo "check: no in-tree ena.ko for $rel (aliases not compared)"; continue; }
	if diff <(modinfo -F alias "$stock" | sort) <(modinfo -F alias "build/$rel/ena.ko" | sort) >/dev/null; then
		echo "check: PCI aliases equal the in-tree module's ($rel, $(modinfo -F alias "$stock" | wc -l))"
	else
		diff <(modinfo -F alias "$stock" | sort) <(modinfo -F alias "build/$rel/ena.ko" | sort)
		echo "check: PCI aliases differ from the in-tree module's ($rel: < in-tree, > ours)"; rc=1
	fi
done

# one version: dkms.conf, the driver (ethtool -i, host info) and the README
h=drivers/net/ethernet/ena/ena.h
drv_ver=$(for f in MAJOR MINOR SUBMINOR; do sed -n "s/^#define ENA_DRV_VERSION_$f[[:space:]]*\([0-9]*\).*/\1/p" $h; done | paste -sd.)
pkg_ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
readme_vers=$(grep -oE 'ena-fast[-/][0-9]+\.[0-9]+\.[0-9]+' README.md | sed 's/^ena-fast.//' | sort -u)
if [ "$drv_ver" = "$pkg_ver" ] && [ -z "$(grep -vx "$pkg_ver" <<< "$readme_vers")" ]; then
	echo "check: one version string ($pkg_ver: dkms.conf, $h, README)"
else
	echo "check: versions differ: dkms.conf $pkg_ver, $h $drv_ver, README $(echo $readme_vers)"; rc=1
fi

rst=$(find Documentation -name '*.rst' | sort)
rst_out=$(for f in $rst; do /usr/bin/python3 -m docutils --halt=warning --report=warning "$f" /dev/null 2>&1; done)
if [ -n "$rst_out" ]; then echo "$rst_out"; echo "check: RST reports"; rc=1; else echo "check: RST renders clean ($(echo $rst | wc -w) files)"; fi

# every script of the tree parses (a syntax error would show only in the
# guest that runs it): bash -n, and Python compiled without writing bytecode
sh_bad= py_bad= nsh=0 npy=0
while read -r f; do
	case $f in
	*.py) kind=py;;
	*.sh) kind=sh;;
	*)
		case $(head -n1 "$f" 2>/dev/null) in
		'#!'*python*) kind=py;;
		'#!'*sh*) kind=sh;;
		*) continue;;
		esac;;
	esac
	if [ $kind = sh ]; then
		nsh=$((nsh + 1)); bash -n "$f" 2>&1 || sh_bad="$sh_bad $f"
	else
		npy=$((npy + 1))
		python3 -c 'import sys; compile(open(sys.argv[1]).read(), sys.argv[1], "exec")' "$f" 2>&1 ||
			py_bad="$py_bad $f"
	fi
done < <(git ls-files 2>/dev/null | grep -vE '^(bench/results|Documentation)/')
if [ -n "$sh_bad$py_bad" ]; then
	echo "check: scripts that do not parse:$sh_bad$py_bad"; rc=1
else
	echo "check: scripts parse ($nsh shell, $npy Python)"
fi

# the bench report's statistics against rounds whose answer is known
if bt=$(python3 bench/report_test.py 2>&1); then
	echo "check: bench statistics self-test ok"
else
	echo "$bt"; echo "check: bench statistics self-test failed"; rc=1
fi

kd=$(perl "$lt/scripts/kernel-doc" -none $files 2>&1)
if [ -n "$kd" ]; then echo "$kd"; echo "check: kernel-doc reports"; rc=1; else echo "check: kernel-doc clean"; fi
exit $rc
