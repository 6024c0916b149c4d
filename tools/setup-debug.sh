#!/bin/bash
# make setup-debug: build the debug kernel that make test-debug boots, from
# Debian's linux-source-6.12 (installed by make setup): x86_64_defconfig
# with tools/testing/vm/debug.config merged over it (KASAN, lockdep,
# kmemleak, DMA-API debugging, UBSAN, atomic-sleep checks, and what the
# guests need, built in). About an hour of both CPUs on this machine kind.
#
# The result sits beside the Debian kernels, so the guest runner boots it as
# `--kernel 6.12-debug`: $ENA_CACHE/kernels/<release>/{boot,lib/modules}
# and the link $ENA_CACHE/kernels/6.12-debug. The build tree stays, as the
# kernel tree our module builds against: $ENA_CACHE/debug-kernel/current
# (make KDIR=$ENA_CACHE/debug-kernel/current). Cached by the source package
# and the configuration: run again, it does nothing unless one of them
# changed (a new fragment rebuilds in place, a new source from scratch). ENA_DEBUG_NICE (default 10): the build's nice level, so that it
# does not slow guests running beside it more than it must.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tools/lib.sh"
frag=$top/tools/testing/vm/debug.config
# the selftests' own list of what they need (kselftest's config file): each
# option of it must be built in or a module in the debug kernel
stcfg=$top/tools/testing/selftests/drivers/net/ena/config
srcball=$(ls /usr/src/linux-source-6.12.tar.* 2>/dev/null | head -n1)
[ -n "$srcball" ] || { echo "setup-debug: no /usr/src/linux-source-6.12.tar.*: run 'make setup'" >&2; exit 1; }

base=$ENA_CACHE/debug-kernel
tree=$base/linux-source-6.12
src_id=$(stat -c '%n %s %Y' "$srcball")
# the build is up to date when neither the source package nor the fragment
# changed; a changed fragment rebuilds in place (make redoes what changed)
want=$( (echo "$src_id"; cat "$frag" "$stcfg") | sha256sum | cut -c1-16)
mk() { nice -n "${ENA_DEBUG_NICE:-10}" make -s -C "$tree" "$@"; }

# install_kernel - copy the built kernel and its modules where the guest
# runner boots them, and record what was built
install_kernel() {
	local rel kroot

	rel=$(mk kernelrelease)
	kroot=$ENA_CACHE/kernels/$rel
	rm -rf "$kroot"; mkdir -p "$kroot/boot"
	mk INSTALL_MOD_PATH="$kroot" INSTALL_MOD_STRIP=1 modules_install
	cp "$tree/arch/x86/boot/bzImage" "$kroot/boot/vmlinuz-$rel"
	cp "$tree/.config" "$kroot/boot/config-$rel"
	echo "$want $rel" > "$base/installed"
	ln -sfn linux-source-6.12 "$base/current"
	ln -sfn "$rel" "$ENA_CACHE/kernels/6.12-debug"
	echo "setup-debug: $kroot (boot it with --kernel 6.12-debug)"
}

if [ "$(cat "$base/installed" 2>/dev/null | cut -d' ' -f1)" = "$want" ]; then
	rel=$(cut -d' ' -f2 "$base/installed")
	if [ -f "$ENA_CACHE/kernels/$rel/boot/vmlinuz-$rel" ]; then
		ln -sfn linux-source-6.12 "$base/current"
		ln -sfn "$rel" "$ENA_CACHE/kernels/6.12-debug"
		echo "setup-debug: up to date ($rel)"
		exit 0
	fi
	# built, but the installed copy is gone (an older make setup pruned
	# it): install again from the build tree, no rebuild
	echo "setup-debug: $rel built but not installed: installing it"
	install_kernel
	exit 0
fi

if [ ! -f "$tree/Makefile" ] || [ "$(cat "$base/source" 2>/dev/null)" != "$src_id" ]; then
	echo "setup-debug: extracting $(basename "$srcball")"
	rm -rf "$base"; mkdir -p "$base"
	tar -C "$base" -xf "$srcball"
	echo "$src_id" > "$base/source"
fi
rm -f "$base/installed"
echo "setup-debug: configuring (x86_64_defconfig + $(basename "$frag"))"
mk x86_64_defconfig
(cd "$tree" && scripts/kconfig/merge_config.sh -m -O "$tree" "$tree/.config" "$frag" > /dev/null)
mk olddefconfig
# every setting of the fragment must have survived the dependency checks
bad=$(grep -E '^(CONFIG_[A-Z0-9_]+=|# CONFIG_[A-Z0-9_]+ is not set)' "$frag" | while read -r line; do
	case $line in
	'# '*) opt=${line#\# }; opt=${opt% is not set}
	       grep -q "^$opt=[ym]" "$tree/.config" && echo "$opt still set";;
	*) grep -qx "$line" "$tree/.config" || echo "$line not taken";;
	esac
done || true)
need=$(sed -n 's/^\(CONFIG_[A-Z0-9_]*\)=[ym]$/\1/p' "$stcfg" | while read -r opt; do
	grep -qE "^$opt=[ym]" "$tree/.config" || echo "$opt (needed by the selftests' config) not set"
done || true)
bad=$(printf '%s\n%s\n' "$bad" "$need" | sed '/^$/d')
[ -z "$bad" ] || { echo "$bad" | sed 's/^/setup-debug: /' >&2; exit 1; }

echo "setup-debug: building on $(nproc) CPUs"
mk -j"$(nproc)" bzImage modules
# after the build: kernelrelease reads the configuration the build synced
install_kernel
