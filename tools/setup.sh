#!/bin/bash
# make setup: prepare a Debian 12 machine (as root) to build, test and benchmark
# the driver. Idempotent: every step checks what is already there, and
# downloads are cached under $ENA_CACHE (default /var/cache/ena-fast).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tools/lib.sh"

step() { printf '==> setup: %s\n' "$*"; current_step="$*"; }
trap 'echo "setup: FAILED in step: ${current_step:-start}" >&2' ERR

[ "$(id -u)" = 0 ] || { echo "setup: must run as root" >&2; exit 1; }
mkdir -p "$ENA_CACHE"

step "apt sources (bookworm-backports, deb-src)"
src=/etc/apt/sources.list.d/ena-dev.sources
want=$(cat <<'EOS'
Types: deb deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOS
)
stamp=$ENA_CACHE/apt-update.stamp
if [ ! -f "$src" ] || [ "$(cat "$src")" != "$want" ]; then
	printf '%s\n' "$want" > "$src"
	rm -f "$stamp"
fi
# Refresh the package lists at most every 6 hours: a re-run stays fast.
if [ -z "$(find "$stamp" -mmin -360 2>/dev/null)" ]; then
	step "apt-get update"
	apt-get update -q -o Acquire::Retries=3 >/dev/null 2>"$ENA_CACHE/apt-update.err" || {
		# third-party sources this project does not use may fail; ours must not
		if grep -q 'deb.debian.org' "$ENA_CACHE/apt-update.err"; then
			cat "$ENA_CACHE/apt-update.err" >&2; exit 1
		fi
	}
	touch "$stamp"
fi

step "packages"
pkgs=(build-essential bc flex bison libelf-dev libssl-dev kmod sparse coccinelle
      ethtool iproute2 iputils-ping busybox-static cpio socat python3 gnuplot-nox
      ninja-build pkg-config libglib2.0-dev libpixman-1-dev libslirp-dev libfdt-dev
      libcap-ng-dev libattr1-dev python3-venv dpkg-dev
      seabios ipxe-qemu qemu-system-data dkms gcc-12 xz-utils linux-source-6.12
      dwarves python3-docutils iperf3 sockperf kexec-tools python3-yaml ocaml-nox)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	# kexec-tools is for the guests (shutdown.sh kexecs a guest): the host
	# keeps rebooting through its firmware, not into a loaded kernel
	echo "kexec-tools kexec-tools/load_kexec boolean false" | debconf-set-selections
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# make deb (tools/mkdeb.sh): Debian's packaging tools
deb_pkgs=(debhelper dh-dkms lintian)
missing=()
for p in "${deb_pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
[ ${#missing[@]} = 0 ] ||
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
# QEMU 10.0 needs meson >= 1.5: bookworm-backports has it.
if ! meson --version 2>/dev/null | grep -qE "^(1\.([5-9]|[1-9][0-9])|[2-9])" || ! dpkg-query -W python3-pycotap >/dev/null 2>&1; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends -t bookworm-backports meson python3-pycotap
fi

step "resolve kernel releases"
# The archive keeps only the newest kernel of each suite: ask the meta
# packages which release they point at today.
resolve() { # $1: extra apt options
	apt-cache depends $1 linux-image-amd64 |
		awk '/Depends: linux-image-[0-9]/{sub("linux-image-","",$2); sub("-amd64$","",$2); print $2; exit}'
}
k61=$(resolve "")
k612=$(resolve "-t bookworm-backports")
[ -n "$k61" ] && [ -n "$k612" ] || { echo "setup: cannot resolve kernel releases" >&2; exit 1; }
case $k61 in 6.1.*) ;; *) echo "setup: bookworm kernel is $k61, not 6.1" >&2; exit 1;; esac
case $k612 in 6.12.*) ;; *) echo "setup: backports kernel is $k612, not 6.12" >&2; exit 1;; esac
echo "    6.1  -> $k61-amd64"
echo "    6.12 -> $k612-amd64"

fetch_extract() { # $1: dest root, $2: apt target option, rest: packages
	local dest=$1 tgt=$2; shift 2
	local tmp; tmp=$(mktemp -d); chmod 755 "$tmp"; chown _apt "$tmp" 2>/dev/null || true
	(cd "$tmp" && apt-get download $tgt "$@" >/dev/null)
	mkdir -p "$dest"
	for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$dest"; done
	rm -rf "$tmp"
}

mkdir -p "$ENA_CACHE/kernels" "$ENA_CACHE/headers"
for pair in "6.1:$k61:" "6.12:$k612:-t bookworm-backports"; do
	short=${pair%%:*}; rest=${pair#*:}; base=${rest%%:*}; tgt=${rest#*:}
	rel=$base-amd64
	kdir=$ENA_CACHE/kernels/$rel
	if [ ! -f "$kdir/.done" ]; then
		step "kernel image $rel (extracted, not installed)"
		rm -rf "$kdir"
		fetch_extract "$kdir" "$tgt" "linux-image-$rel"
		depmod -b "$kdir" "$rel"
		touch "$kdir/.done"
	fi
	ln -sfn "$rel" "$ENA_CACHE/kernels/$short"
	kbuild=$(apt-cache depends $tgt "linux-headers-$rel" | awk '/Depends: linux-kbuild-/{print $2; exit}')
	for flav in amd64 cloud-amd64; do
		hrel=$base-$flav
		hdir=$ENA_CACHE/headers/$hrel
		if [ ! -f "$hdir/.done" ]; then
			step "kernel headers $hrel (extracted)"
			rm -rf "$hdir"
			fetch_extract "$hdir" "$tgt" "linux-headers-$hrel" "linux-headers-$base-common" "$kbuild"
			[ -f "$hdir/usr/src/linux-headers-$hrel/Makefile" ] || { echo "setup: headers for $hrel incomplete" >&2; exit 1; }
			# the flavour's Makefile includes the common one by absolute path
			sed -i "s|^include /usr/src/|include $hdir/usr/src/|" "$hdir/usr/src/linux-headers-$hrel/Makefile"
			touch "$hdir/.done"
		fi
	done
	step "guest initramfs for $rel"
	"$top/tools/testing/vm/mkinitrd" "$rel"
done
# drop releases the archive no longer serves
for d in "$ENA_CACHE"/kernels/* "$ENA_CACHE"/headers/*; do
	[ -L "$d" ] && continue
	r=$(basename "$d")
	# the debug kernel (make setup-debug) is not from the archive: keep it
	case $r in "$k61"-*|"$k612"-*|*-ena-debug) ;; *) rm -rf "$d";; esac
done

step "kernel tools for make check (checkpatch, coccinelle scripts)"
lt=$ENA_CACHE/linux-tools
srcball=$(ls /usr/src/linux-source-6.12.tar.* | head -n1)
if [ "$(cat "$lt/.from" 2>/dev/null)" != "$srcball $(stat -c %Y "$srcball")" ]; then
	rm -rf "$lt"; mkdir -p "$lt"
	tar -C "$lt" --strip-components=1 -xf "$srcball" --wildcards \
		'linux-source-6.12/scripts/checkpatch.pl' 'linux-source-6.12/scripts/spelling.txt' \
		'linux-source-6.12/scripts/const_structs.checkpatch' 'linux-source-6.12/scripts/coccinelle/*' \
		'linux-source-6.12/scripts/kernel-doc'
	echo "$srcball $(stat -c %Y "$srcball")" > "$lt/.from"
fi

step "the kernel's own driver selftests (make test's kernel_drv.sh)"
# tools/testing/selftests/drivers/net of linux-source-6.12, unmodified, with
# what its Python library imports in a source tree: selftests/net/lib, the
# YNL library (tools/net/ynl) and its netlink specs
kst=$ENA_CACHE/kselftest-6.12
if [ "$(cat "$kst/.from" 2>/dev/null)" != "$srcball $(stat -c %Y "$srcball")" ]; then
	rm -rf "$kst"; mkdir -p "$kst"
	tar -C "$kst" --strip-components=1 -xf "$srcball" \
		linux-source-6.12/tools/testing/selftests/drivers/net \
		linux-source-6.12/tools/testing/selftests/net/lib \
		linux-source-6.12/tools/net/ynl \
		linux-source-6.12/Documentation/netlink/specs
	echo "$srcball $(stat -c %Y "$srcball")" > "$kst/.from"
fi

step "a newer ethtool for the kernel's driver selftests (trixie's, extracted)"
# bookworm's ethtool 6.1 has no --json for -c and -x, which rss_ctx.py
# uses; trixie's binary runs on bookworm's libc and is only extracted, for
# kernel_drv.sh (the system keeps its own). A private apt state: the
# system's sources stay as they are.
et=$ENA_CACHE/ethtool-trixie
if [ ! -x "$et/usr/sbin/ethtool" ]; then
	ax=$ENA_CACHE/apt-trixie
	mkdir -p "$ax/lists/partial" "$ax/cache/archives/partial" "$ax/deb"
	echo 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main' \
		> "$ax/sources.list"
	ao=(-o "Dir::Etc::SourceList=$ax/sources.list" -o Dir::Etc::SourceParts=/dev/null
	    -o "Dir::State::Lists=$ax/lists" -o "Dir::Cache=$ax/cache" -o Dir::State::status=/dev/null)
	apt-get "${ao[@]}" update -q -o Acquire::Retries=3 >/dev/null
	rm -f "$ax"/deb/*.deb
	(cd "$ax/deb" && apt-get "${ao[@]}" download ethtool 2>/dev/null)
	rm -rf "$et"
	dpkg-deb -x "$ax"/deb/ethtool_*.deb "$et"
	"$et/usr/sbin/ethtool" --version
fi

step "QEMU 10.0 source (bookworm-backports)"
mkdir -p "$ENA_CACHE/src"
if ! ls "$ENA_CACHE"/src/qemu_10.0*.orig.tar.* >/dev/null 2>&1; then
	(cd "$ENA_CACHE/src" && apt-get source --download-only --tar-only qemu/bookworm-backports)
fi

step "QEMU with the ENA model"
"$top/tools/qemu/build.sh"

step "done"
echo "setup: ok (cache: $ENA_CACHE)"
