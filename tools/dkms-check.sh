#!/bin/bash
# make dkms-check: `dkms add/build/install` of this tree for every kernel
# whose headers `make setup` extracted and this machine's compiler builds,
# into a scratch DKMS tree and install tree (a framework.conf.d snippet
# that exists only while this runs), then, in a guest of each generic
# kernel, with the installed module in /lib/modules/<release>/updates/dkms
# and depmod run, `modprobe ena` must load it rather than the in-tree
# driver (only ours has the admin_poll parameter) and bind the device.
# KTAP output.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/tools/lib.sh"
cd "$top"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"/\1/p' dkms.conf)
# under build/: the guest sees the project, not the host's /tmp
rm -rf "$top/build/dkms-check"; tmp=$top/build/dkms-check; mkdir -p "$tmp"
conf=/etc/dkms/framework.conf.d/zz-ena-fast-check.conf
cleanup() { rm -f "$conf"; rm -rf "$tmp"; }
trap cleanup EXIT
mkdir -p "$tmp"/{src,dkms,lib/modules} /etc/dkms/framework.conf.d
printf 'source_tree="%s"\ndkms_tree="%s"\ninstall_tree="%s"\n' "$tmp/src" "$tmp/dkms" "$tmp/lib/modules" > "$conf"
mkdir -p "$tmp/src/$name-$ver"
tar cf - dkms.conf Kbuild drivers include | tar xf - -C "$tmp/src/$name-$ver"

# DKMS builds with this machine's compiler: the kernels that make builds in
# a build root of their own release (5.10, the newest; tools/in-chroot)
# are left out
rels=$(for d in "$ENA_CACHE"/headers/*; do [ -f "$d/.chroot" ] || basename "$d"; done)
# make test builds the generic kernels only (the cloud flavours build the
# same sources, and make builds them too); make dkms-check and make
# test-long build every kernel whose headers are there
[ "${ENA_DKMS_GENERIC_ONLY:-0}" = 1 ] && rels=$(grep -v -- '-cloud-' <<< "$rels")
n=0 fail=0
ok() { n=$((n + 1)); if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fail=1; fi; }
echo "TAP version 13"
# the guest check: both kernels (make test boots 6.12 only, through
# ENA_DKMS_GUEST_KERNELS; the DKMS builds cover every kernel)
guest_kernels=${ENA_DKMS_GUEST_KERNELS:-6.1 6.12}
echo "1..$(( $(echo $rels | wc -w) + 1 + $(echo $guest_kernels | wc -w) ))"
dkms add -m "$name" -v "$ver" >/dev/null; ok $? "dkms add $name/$ver"
for rel in $rels; do
	kdir=$ENA_CACHE/headers/$rel/usr/src/linux-headers-$rel
	mkdir -p "$tmp/lib/modules/$rel"
	log=$tmp/$rel.log
	dkms build -m "$name" -v "$ver" -k "$rel" --kernelsourcedir "$kdir" > "$log" 2>&1 &&
		dkms install -m "$name" -v "$ver" -k "$rel" --kernelsourcedir "$kdir" --no-depmod >> "$log" 2>&1 &&
		ls "$tmp/lib/modules/$rel/updates/dkms/ena.ko"* >/dev/null 2>&1
	rc=$?; [ $rc = 0 ] || sed 's/^/# /' "$log"
	ok $rc "dkms build+install for $rel"
done
for k in $guest_kernels; do
	rel=$(ena_kernel_release $k)
	ko=$(ls "$tmp/lib/modules/$rel/updates/dkms/ena.ko"* | head -n1)
	# The kernel's module tree plus what dkms installed, indexed by depmod
	# here on the host (depmod over 9p in a TCG guest takes minutes); the
	# guest binds it over its /lib/modules/<release>.
	mods=$tmp/root/lib/modules/$rel
	mkdir -p "$mods"
	cp -al "$ENA_CACHE/kernels/$rel/lib/modules/$rel/." "$mods/"
	mkdir -p "$mods/updates/dkms" && cp "$ko" "$mods/updates/dkms/"
	depmod -b "$tmp/root" "$rel"
	out=$(tools/testing/vm/run --kernel $k --ena 1 --timeout 300 -- bash -c "
		mount --bind $mods /lib/modules/$rel &&
		echo path=\$(modinfo -n ena) && modprobe ena &&
		echo ours=\$([ -e /sys/module/ena/parameters/admin_poll ] && echo yes || echo no) &&
		sleep 1 && ls /sys/bus/pci/drivers/ena | grep -c '^0000:'" 2>&1)
	echo "$out" | sed 's/^/# /'
	echo "$out" | grep -q "path=/lib/modules/$rel/updates/dkms/ena.ko" &&
		echo "$out" | grep -qx 'ours=yes' && [ "$(echo "$out" | tail -n1)" = 1 ]
	ok $? "$k: modprobe prefers the DKMS module and it binds the device"
done
exit $fail
