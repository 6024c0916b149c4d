#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The package a user installs (make deb: ena-fast-dkms_<version>_all.deb),
# installed the way the README says, in a disposable copy of the guest's
# root: an overlay with the host's root (over 9p) below and memory above,
# so apt, dpkg and DKMS write as on a machine of their own and nothing
# reaches the host. The guest kernel's module tree is an overlay too, and
# its headers are where linux-headers-<release> puts them (the build link
# to the headers make setup extracted).
#  1. `apt-get install ./<deb>`: DKMS builds the module for the running
#     kernel in its postinst and installs it in updates/dkms;
#  2. `modinfo -n ena` names that module and `modprobe ena` loads it (ours:
#     it has the admin_poll parameter) and binds the device; what a reboot
#     would load, without the reboot (the guest's root would not survive it);
#  3. headers of a second kernel, installed later: the hook their package
#     runs (/etc/kernel/header_postinst.d/dkms) builds the module for it;
#  4. `apt-get remove` takes the module away for both kernels and modprobe
#     loads the in-tree driver again.
# ENA_DEB: the package (default: build/deb/ena-fast-dkms_*_all.deb of the
# tree). Our driver only: it is our package.
# Not in tests.list yet: its first run on 6.12 (TCG) spent 800 s in apt and
# DKMS and the module was not there afterwards (make.log now printed).
. "$(dirname "$0")/ena_lib.sh"
top=$ENA_TOP
rel=$(uname -r)
deb=${ENA_DEB:-$(ls "$top"/build/deb/ena-fast-dkms_*_all.deb 2>/dev/null | tail -n1)}
o=/run/ena-pkg
m=$o/root

cleanup() {
	chroot "$m" modprobe -r ena > /dev/null 2>&1
	local d
	for d in $(awk -v m="$m" '$2 ~ "^"m { print $2 }' /proc/mounts | sort -r); do
		umount -l "$d" 2>/dev/null
	done
	umount -l "$o" 2>/dev/null
}
trap cleanup EXIT

# inroot CMD...: run in the disposable root
inroot() { chroot "$m" env DEBIAN_FRONTEND=noninteractive PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
# headers_for REL: REL's headers as linux-headers-REL installs them
headers_for() {
	local h=$ENA_CACHE/headers/$1/usr/src/linux-headers-$1
	[ -f "$h/Makefile" ] || return 1
	mkdir -p "$m/lib/modules/$1" && ln -sfn "$h" "$m/lib/modules/$1/build"
}
# ours_loaded: the ena module in the kernel is ours
ours_loaded() { [ -e /sys/module/ena/parameters/admin_poll ]; }
bound() { ls /sys/bus/pci/drivers/ena 2>/dev/null | grep -c '^0000:'; }

# the cases before "log clean", in order
cases=("apt install builds the module for the running kernel"
	"modprobe loads the DKMS module and it binds the device"
	"a second kernel's headers: DKMS builds for it"
	"apt remove takes the module away for both kernels"
	"modprobe loads the in-tree driver again")
ktap_header 6
if ! is_ours; then
	for t in "${cases[@]}" "log clean"; do ktap_skip "$t" "our package only"; done
	ktap_finish
fi
d0=$(dmesg_lines)
ena_unload
ok=0
if [ -f "$deb" ] && mkdir -p "$o" && mount -t tmpfs -o size=2g ena-pkg "$o" &&
	mkdir -p "$o"/{up,work,root,mup,mwork} &&
	mount -t overlay ena-pkg -o lowerdir=/,upperdir="$o/up",workdir="$o/work" "$m" &&
	mount --bind /proc "$m/proc" && mount --bind /sys "$m/sys" && mount --bind /dev "$m/dev" &&
	mkdir -p "$m/lib/modules/$rel" &&
	mount -t overlay ena-pkg-mod -o lowerdir="/lib/modules/$rel",upperdir="$o/mup",workdir="$o/mwork" \
		"$m/lib/modules/$rel" &&
	headers_for "$rel"; then
	ok=1
fi
ktap_diag "package: ${deb:-none}; kernel $rel"
if [ $ok = 1 ]; then
	# dpkg triggers of the host's packages that a test has no use for and
	# that take minutes in a TCG guest: man-db's index
	rm -f "$m/var/lib/man-db/auto-update"
	cp "$deb" "$m/tmp/" && t0=$SECONDS &&
		inroot timeout 900 apt-get install -y -q --no-install-recommends \
			"/tmp/$(basename "$deb")" > "$o/install.log" 2>&1
	rc=$?
	grep -E '^(Setting up|Building|Installing|Processing|Unpacking)|dkms' "$o/install.log" |
		head -n 20 | sed 's/^/# apt: /'
	ktap_diag "apt-get install: exit $rc in $((SECONDS - t0)) s"
	[ $rc = 0 ] || tail -n 20 "$o/install.log" | sed 's/^/# /'
	ls "$m/lib/modules/$rel/updates/dkms/ena.ko"* > /dev/null 2>&1
	built=$?
	[ $built = 0 ] || tail -n 30 "$m"/var/lib/dkms/ena-fast/*/build/make.log 2>/dev/null | sed 's/^/# make.log: /'
	ktap_check "apt install builds the module for the running kernel" test $built = 0 -a $rc = 0

	path=$(inroot modinfo -n ena 2>/dev/null)
	ktap_diag "modinfo -n ena: $path"
	inroot modprobe ena && sleep 1
	ktap_check "modprobe loads the DKMS module and it binds the device" \
		eval '[[ $path == /lib/modules/$rel/updates/dkms/ena.ko* ]] && ours_loaded && [ "$(bound)" -ge 1 ]'
	inroot modprobe -r ena

	# the other kernel the guests boot (its headers build with the host's
	# compiler, as they would on a machine of that release)
	rel2=$(for d in "$ENA_CACHE"/kernels/*; do [ -L "$d" ] && readlink "$d"; done |
		grep -vx "$rel" | head -n1)
	if [ -n "$rel2" ] && headers_for "$rel2"; then
		t0=$SECONDS
		inroot /etc/kernel/header_postinst.d/dkms "$rel2" > "$o/second.log" 2>&1
		rc=$?
		ktap_diag "header_postinst.d/dkms $rel2: exit $rc in $((SECONDS - t0)) s"
		[ $rc = 0 ] || tail -n 20 "$o/second.log" | sed 's/^/# /'
		ls "$m/lib/modules/$rel2/updates/dkms/ena.ko"* > /dev/null 2>&1
		ktap_check "a second kernel's headers: DKMS builds for it" test $? = 0
	else
		ktap_skip "a second kernel's headers: DKMS builds for it" "no second kernel's headers"
		rel2=
	fi

	inroot apt-get remove -y -q ena-fast-dkms > "$o/remove.log" 2>&1
	rc=$?
	left=$(ls "$m/lib/modules/$rel/updates/dkms/ena.ko"* ${rel2:+"$m/lib/modules/$rel2/updates/dkms/ena.ko"*} 2>/dev/null)
	[ $rc = 0 ] || tail -n 20 "$o/remove.log" | sed 's/^/# /'
	ktap_check "apt remove takes the module away for both kernels" test $rc = 0 -a -z "$left"

	path=$(inroot modinfo -n ena 2>/dev/null)
	ktap_diag "modinfo -n ena: $path"
	inroot modprobe ena && sleep 1
	ktap_check "modprobe loads the in-tree driver again" \
		eval '[[ $path == /lib/modules/$rel/kernel/* ]] && ! ours_loaded && [ "$(bound)" -ge 1 ]'
	inroot modprobe -r ena
else
	for t in "${cases[@]}"; do ktap_fail "$t"; done
fi
cleanup
ktap_check "log clean" dmesg_clean "$d0"
ktap_finish
