#!/bin/bash
# Build qemu-system-x86_64 (QEMU 10.0 from Debian's source package) with the
# ENA device model from this directory. The result is cached by a hash of the
# model's sources: $ENA_CACHE/qemu/<hash>/qemu-system-x86_64, and
# $ENA_CACHE/qemu/current points at the newest build. The configured build
# tree is kept, so a change to the model rebuilds one file.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tools/lib.sh"

hash=$(ena_qemu_hash)
out=$ENA_CACHE/qemu/$hash
if [ -x "$out/qemu-system-x86_64" ]; then
	ln -sfn "$hash" "$ENA_CACHE/qemu/current"
	touch "$out"	# in use: the pruning below keeps it
	exit 0
fi
# one build at a time: two checkouts share the configured tree
mkdir -p "$ENA_CACHE/qemu"
exec 9> "$ENA_CACHE/qemu/.build.lock"
flock 9
if [ -x "$out/qemu-system-x86_64" ]; then
	ln -sfn "$hash" "$ENA_CACHE/qemu/current"
	exit 0
fi

tarball=$(ls "$ENA_CACHE"/src/qemu_10.0*.orig.tar.* 2>/dev/null | tail -n1)
[ -n "$tarball" ] || { echo "build.sh: no QEMU source in $ENA_CACHE/src: run 'make setup'" >&2; exit 1; }
work=$ENA_CACHE/qemu-tree
src=$work/src
if [ "$(cat "$work/tarball" 2>/dev/null)" != "$tarball" ]; then
	echo "build.sh: extracting $(basename "$tarball")"
	rm -rf "$work"; mkdir -p "$work"
	tar -C "$work" -xf "$tarball"
	mv "$work"/qemu-* "$src"
	cp "$src/hw/net/trace-events" "$src/hw/net/trace-events.orig"
	# the dfsg source has no firmware blobs: do not try to unpack EDK2 images
	sed -i 's/unpack_edk2_blobs = bzip2.found()/unpack_edk2_blobs = false/' "$src/meson.build"
	cat >> "$src/hw/net/meson.build" <<'EOM'

# ENA device model (out-of-tree, copied in by ena-fast tools/qemu/build.sh)
system_ss.add(when: 'CONFIG_ENA_MODEL', if_true: files('ena.c'))
EOM
	cat >> "$src/hw/net/Kconfig" <<'EOM'

config ENA_MODEL
    bool
    default y if PCI_DEVICES
    depends on PCI && MSI_NONBROKEN
EOM
	echo "$tarball" > "$work/tarball"
fi

# Copy the model in (every tools/qemu/*.c and *.h); leave unchanged files
# untouched so ninja stays incremental.
install_if_changed() {
	cmp -s "$1" "$2" || cp "$1" "$2"
}
shopt -s nullglob
model=() units=()
for f in "$top"/tools/qemu/*.c "$top"/tools/qemu/*.h; do
	f=${f##*/}
	# hw/net has QEMU's own devices: the model's files must not clash with them
	case $f in
	ena*) model+=("$f") ;;
	*) echo "build.sh: tools/qemu/$f: model files must be named ena*" >&2; exit 1 ;;
	esac
	case $f in *.c) units+=("$f") ;; esac
done
if [ ${#units[@]} -eq 0 ]; then
	# no model yet: build an empty unit so the tree still configures
	printf '/* placeholder: tools/qemu/ena.c not present */\n' > "$src/hw/net/ena.c.new"
	install_if_changed "$src/hw/net/ena.c.new" "$src/hw/net/ena.c"
	units=(ena.c)
fi
for f in "${model[@]}"; do
	install_if_changed "$top/tools/qemu/$f" "$src/hw/net/$f"
done
# units and headers of an older or newer layout must not stay behind
for f in "$src"/hw/net/ena*.c "$src"/hw/net/ena*.h; do
	b=${f##*/} keep=
	for m in "${model[@]}" "${units[@]}"; do
		[ "$m" = "$b" ] && keep=1
	done
	[ -n "$keep" ] || { echo "build.sh: removing stale hw/net/$b"; rm -f "$f"; }
done
shopt -u nullglob
# hw/net/meson.build: the ENA line lists exactly the model's units (the file
# is written only when that changes, so meson does not reconfigure for nothing)
ena_line="system_ss.add(when: 'CONFIG_ENA_MODEL', if_true: files($(printf '%s\n' "${units[@]}" |
	LC_ALL=C sort | sed "s/.*/'&'/" | paste -sd, - | sed 's/,/, /g')))"
awk -v line="$ena_line" '
	/^system_ss\.add\(when: .CONFIG_ENA_MODEL.,/ { if (!done) print line; done = 1; next }
	{ print }
	END { if (!done) { print ""; print "# ENA device model (out-of-tree, copied in by ena-fast tools/qemu/build.sh)"; print line } }
' "$src/hw/net/meson.build" > "$src/hw/net/meson.build.new"
install_if_changed "$src/hw/net/meson.build.new" "$src/hw/net/meson.build"
cat "$src/hw/net/trace-events.orig" "$top/tools/qemu/trace-events" 2>/dev/null > "$src/hw/net/trace-events.new" ||
	cp "$src/hw/net/trace-events.orig" "$src/hw/net/trace-events.new"
install_if_changed "$src/hw/net/trace-events.new" "$src/hw/net/trace-events"

bld=$src/build
if [ ! -f "$bld/build.ninja" ]; then
	echo "build.sh: configuring QEMU (x86_64-softmmu, tcg, slirp, virtfs)"
	mkdir -p "$bld"
	(cd "$bld" && ../configure --target-list=x86_64-softmmu \
		--without-default-features --enable-tcg --disable-kvm \
		--enable-slirp --enable-virtfs --enable-attr --enable-cap-ng \
		--enable-fdt=system --disable-install-blobs --disable-docs --disable-werror \
		--disable-download --python=/usr/bin/python3 \
		--enable-trace-backends=log) > "$work/configure.log" 2>&1 ||
		{ tail -40 "$work/configure.log" >&2; echo "build.sh: configure failed" >&2; exit 1; }
fi
echo "build.sh: building qemu-system-x86_64 (model hash $hash)"
ninja -C "$bld" qemu-system-x86_64 > "$work/build.log" 2>&1 ||
	{ grep -E 'error|Error' -A3 "$work/build.log" | head -60 >&2; echo "build.sh: build failed (log: $work/build.log)" >&2; exit 1; }

mkdir -p "$out.tmp"
cp "$bld/qemu-system-x86_64" "$out.tmp/"
rm -rf "$out"; mv "$out.tmp" "$out"
ln -sfn "$hash" "$ENA_CACHE/qemu/current"
# keep the newest few builds, and any build a checkout used within two days
# (a test run of another checkout boots its own build until it ends)
# (an if, not `[ ] && rm`: a false test as the loop's last command would
# fail the pipeline, and set -e the whole build after it succeeded)
ls -1dt "$ENA_CACHE"/qemu/*/ | tail -n +6 | while read -r d; do
	if [ -n "$(find "$d" -maxdepth 0 -mmin +2880)" ]; then rm -rf "$d"; fi
done
echo "build.sh: $out/qemu-system-x86_64"
