#!/bin/bash
# make deb: the Debian package a user installs, ena-fast-dkms_<version>_all.deb
# in build/deb/, built with Debian's own tooling (debhelper with dh-dkms,
# make setup installs both) from a copy of the driver's sources, then
# checked by lintian (any error or warning fails). The version is
# dkms.conf's; debian/changelog must name the same.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
cver=$(dpkg-parsechangelog -S Version)
[ "$ver" = "$cver" ] || {
	echo "deb: dkms.conf says $ver, debian/changelog $cver" >&2; exit 1; }
out=$top/build/deb
src=$out/ena-fast-$ver
rm -rf "$out"; mkdir -p "$src"
tar cf - debian dkms.conf Kbuild drivers include | tar xf - -C "$src"
(cd "$src" && dpkg-buildpackage -b -us -uc > "$out/build.log" 2>&1) || {
	tail -n 30 "$out/build.log" >&2; echo "deb: dpkg-buildpackage failed" >&2; exit 1; }
deb=$out/ena-fast-dkms_${ver}_all.deb
[ -f "$deb" ] || { echo "deb: no $deb" >&2; exit 1; }
rm -rf "$src"
# lintian: tags of errors (E), warnings (W); info and pedantic ones pass
if ! lint=$(lintian --fail-on error,warning "$deb" 2>&1); then
	echo "$lint" >&2; echo "deb: lintian" >&2; exit 1
fi
[ -z "$lint" ] || echo "$lint"
echo "deb: $deb"
