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
      dwarves python3-docutils iperf3 sockperf kexec-tools python3-yaml ocaml-nox
      mmdebstrap)
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

# apt_private NAME SUITE...: a private apt state, $ENA_CACHE/apt-NAME, for
# Debian suites this machine does not use ("debian trixie main", ...); the
# system's sources stay as they are. Its lists are refreshed when the
# suites change or are older than 6 hours. Sets apt_opts (an array) to the
# options that select it.
apt_private() {
	local name=$1; shift
	local ax=$ENA_CACHE/apt-$name want
	mkdir -p "$ax/lists/partial" "$ax/cache/archives/partial"
	apt_opts=(-o "Dir::Etc::SourceList=$ax/sources.list" -o Dir::Etc::SourceParts=/dev/null
		  -o "Dir::State::Lists=$ax/lists" -o "Dir::Cache=$ax/cache" -o Dir::State::status=/dev/null)
	want=$(printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/%s\n' "$@")
	if [ "$(cat "$ax/sources.list" 2>/dev/null)" != "$want" ]; then
		printf '%s\n' "$want" > "$ax/sources.list"
		rm -f "$ax/update.stamp"
	fi
	if [ -z "$(find "$ax/update.stamp" -mmin -360 2>/dev/null)" ]; then
		echo "    apt-get update (private state apt-$name: $*)"
		apt-get "${apt_opts[@]}" update -q -o Acquire::Retries=3 >/dev/null
		touch "$ax/update.stamp"
	fi
}

step "resolve kernel releases"
# The archive keeps only the newest kernel of each suite: ask the meta
# packages which release they point at today.
resolve() { # $@: extra apt options
	apt-cache depends "$@" linux-image-amd64 |
		awk '/Depends: linux-image-[0-9]/{sub("linux-image-","",$2); sub("-amd64$","",$2); print $2; exit}'
}
k61=$(resolve)
k612=$(resolve -t bookworm-backports)
[ -n "$k61" ] && [ -n "$k612" ] || { echo "setup: cannot resolve kernel releases" >&2; exit 1; }
case $k61 in 6.1.*) ;; *) echo "setup: bookworm kernel is $k61, not 6.1" >&2; exit 1;; esac
case $k612 in 6.12.*) ;; *) echo "setup: backports kernel is $k612, not 6.12" >&2; exit 1;; esac
echo "    6.1  -> $k61-amd64"
echo "    6.12 -> $k612-amd64"
# Bullseye's 5.10, the oldest kernel EC2 users run, and the newest Debian
# kernel, trixie-backports' or sid's, whichever is newer. Each from a
# private apt state.
apt_private bullseye "debian bullseye main" "debian-security bullseye-security main"
ao_510="${apt_opts[*]}"
k510=$(resolve "${apt_opts[@]}")
apt_private trixie "debian trixie main" "debian trixie-backports main"
ao_trixie="${apt_opts[*]}"
ktbpo=$(resolve "${apt_opts[@]}" -t trixie-backports)
apt_private sid "debian sid main"
ao_sid="${apt_opts[*]}"
ksid=$(resolve "${apt_opts[@]}")
case $k510 in 5.10.*) ;; *) echo "setup: bullseye kernel is '$k510', not 5.10" >&2; exit 1;; esac
[ -n "$ktbpo" ] && [ -n "$ksid" ] || { echo "setup: cannot resolve the newest kernel" >&2; exit 1; }
if dpkg --compare-versions "$ksid" gt "$ktbpo"; then
	knew=$ksid knew_ao=$ao_sid knew_suite=sid
else
	knew=$ktbpo knew_ao="$ao_trixie -t trixie-backports" knew_suite=trixie
fi
echo "    5.10 -> $k510-amd64"
echo "    newest -> $knew-amd64 ($knew_suite; trixie-backports $ktbpo, sid $ksid)"

fetch_extract() { # $1: dest root, $2: apt options (words), rest: packages
	local dest=$1 tgt=$2; shift 2
	local tmp; tmp=$(mktemp -d); chmod 755 "$tmp"; chown _apt "$tmp" 2>/dev/null || true
	# shellcheck disable=SC2086 # $tgt is a list of options
	(cd "$tmp" && apt-get download $tgt "$@" >/dev/null)
	mkdir -p "$dest"
	for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$dest"; done
	rm -rf "$tmp"
}

# build_root SUITE PACKAGES: a minimal Debian SUITE tree (mmdebstrap) with
# make, libc, libelf, sparse, pahole (BTF of modules) and PACKAGES (the
# compiler the headers want), for the kernels whose compiler and kbuild
# tools are not bookworm's: make builds their modules inside it
# (tools/in-chroot). Cached under $ENA_CACHE/chroots/SUITE-KEY, KEY a hash
# of what it holds: rebuilt only when that changes. Sets build_root_dir.
build_root() {
	local suite=$1 pkgs="make libc6-dev libelf-dev sparse dwarves $2" key root
	local kr="[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]"
	local -a mirrors=("deb $kr http://deb.debian.org/debian $suite main")
	[ "$suite" = bullseye ] && mirrors+=("deb $kr http://deb.debian.org/debian-security bullseye-security main")
	key=$(printf '%s\n' v1 "$suite" "$pkgs" "${mirrors[@]}" | sha256sum | cut -c1-12)
	root=$ENA_CACHE/chroots/$suite-$key
	if [ ! -f "$root/.done" ]; then
		step "build root $suite: $pkgs (mmdebstrap, cached)"
		rm -rf "$root" "$root.tmp"
		mkdir -p "$ENA_CACHE/chroots"
		mmdebstrap --quiet --mode=root --variant=minbase --include="${pkgs// /,}" \
			--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
			--dpkgopt='path-exclude=/usr/share/locale/*' \
			"$suite" "$root.tmp" "${mirrors[@]}"
		rm -rf "$root.tmp/var/lib/apt/lists/"* "$root.tmp/var/cache/apt/"*.bin
		mv "$root.tmp" "$root"
		touch "$root/.done"
	fi
	build_root_dir=$root
}

# kernel_headers BASE APT-OPTIONS [SUITE]: the generic and cloud headers of
# kernel BASE, extracted under $ENA_CACHE/headers/<release>. With SUITE,
# its modules build in a build root of SUITE with the compiler its headers
# name (their .chroot file says which root).
kernel_headers() {
	local base=$1 tgt=$2 suite=${3:-} kbuild cc flav hrel hdir
	# shellcheck disable=SC2086 # $tgt is a list of options
	kbuild=$(apt-cache depends $tgt "linux-headers-$base-amd64" | awk '/Depends: linux-kbuild-/{print $2; exit}')
	for flav in amd64 cloud-amd64; do
		hrel=$base-$flav
		hdir=$ENA_CACHE/headers/$hrel
		if [ ! -f "$hdir/.done" ]; then
			step "kernel headers $hrel (extracted)"
			rm -rf "$hdir"
			fetch_extract "$hdir" "$tgt" "linux-headers-$hrel" "linux-headers-$base-common" "$kbuild"
			[ -f "$hdir/usr/src/linux-headers-$hrel/Makefile" ] || { echo "setup: headers for $hrel incomplete" >&2; exit 1; }
			# the flavour's Makefile names the common tree (and, from 6.x,
			# its own output directory) by absolute path
			sed -i "s@^\(include \|KBUILD_OUTPUT=\)/usr/src/@\1$hdir/usr/src/@" \
				"$hdir/usr/src/linux-headers-$hrel/Makefile"
			touch "$hdir/.done"
		fi
		[ -n "$suite" ] || { rm -f "$hdir/.chroot"; continue; }
		# the compiler: gcc-N as the headers' package depends on it
		# (directly, as gcc-N-for-host, or through linux-compiler-gcc-N-x86)
		# shellcheck disable=SC2086
		cc=$(apt-cache show $tgt "linux-headers-$hrel" | sed -n 's/^Depends: //p' | head -n1 |
			grep -oE '(^|[ -])gcc-[0-9]+(-for-host)?' | sed 's/^[ -]//' | sort -u | paste -sd' ')
		[ -n "$cc" ] || { echo "setup: no compiler named by linux-headers-$hrel" >&2; exit 1; }
		build_root "$suite" "$cc"
		echo "$build_root_dir" > "$hdir/.chroot"
	done
}

mkdir -p "$ENA_CACHE/kernels" "$ENA_CACHE/headers"
# the guest kernels: image, headers, initramfs, and the short name the
# guest runner uses (kernels/5.10, 6.1, 6.12, newest); 5.10 and the
# newest build in a root of their own release (kernel_headers' SUITE)
for k in "5.10|$k510|$ao_510|bullseye" "6.1|$k61||" "6.12|$k612|-t bookworm-backports|" \
	 "newest|$knew|$knew_ao|$knew_suite"; do
	IFS='|' read -r short base tgt suite <<< "$k"
	rel=$base-amd64
	kdir=$ENA_CACHE/kernels/$rel
	if [ ! -f "$kdir/.done" ]; then
		step "kernel image $rel (extracted, not installed)"
		rm -rf "$kdir"
		# (from 7.x the image package is empty: the kernel and its modules
		# are in packages it depends on, under usr/lib, merged-/usr)
		# shellcheck disable=SC2086 # $tgt is a list of options
		fetch_extract "$kdir" "$tgt" "linux-image-$rel" $(apt-cache depends $tgt "linux-image-$rel" |
			awk -v r="$rel" '$1 == "Depends:" && $2 ~ /^linux-(binary|modules|base)-/ &&
			substr($2, length($2) - length(r) + 1) == r {print $2}')
		# the runner's paths: lib/modules/$rel and boot/vmlinuz-$rel
		[ -d "$kdir/lib/modules" ] || ln -s usr/lib "$kdir/lib"
		[ -f "$kdir/boot/vmlinuz-$rel" ] ||
			{ mkdir -p "$kdir/boot"; ln -s "../lib/modules/$rel/vmlinuz" "$kdir/boot/vmlinuz-$rel"; }
		[ -f "$kdir/boot/vmlinuz-$rel" ] || { echo "setup: no kernel image in linux-image-$rel" >&2; exit 1; }
		depmod -b "$kdir" "$rel"
		touch "$kdir/.done"
	fi
	ln -sfn "$rel" "$ENA_CACHE/kernels/$short"
	kernel_headers "$base" "$tgt" "$suite"
	step "guest initramfs for $rel"
	"$top/tools/testing/vm/mkinitrd" "$rel"
done
# drop releases the archive no longer serves, and unused build roots
for d in "$ENA_CACHE"/kernels/* "$ENA_CACHE"/headers/*; do
	[ -L "$d" ] && continue
	r=$(basename "$d")
	# the debug kernel (make setup-debug) is not from the archive: keep it
	case $r in "$k61"-*|"$k612"-*|"$k510"-*|"$knew"-*|*-ena-debug) ;; *) rm -rf "$d";; esac
done
for d in "$ENA_CACHE"/chroots/*; do
	[ -d "$d" ] || continue
	grep -qxF "$d" "$ENA_CACHE"/headers/*/.chroot 2>/dev/null || rm -rf "$d"
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
	apt_private trixie "debian trixie main" "debian trixie-backports main"
	ax=$ENA_CACHE/apt-trixie
	mkdir -p "$ax/deb"
	rm -f "$ax"/deb/*.deb
	(cd "$ax/deb" && apt-get "${apt_opts[@]}" download ethtool/trixie 2>/dev/null)
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
