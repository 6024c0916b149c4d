# Shared shell settings for the project's scripts (sourced, not run).
ENA_CACHE=${ENA_CACHE:-/var/cache/ena-fast}
ENA_TOP=${ENA_TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
export ENA_CACHE ENA_TOP

# ena_kernel_release 6.1|6.12|<release>: the full generic release name
ena_kernel_release() {
	local k=$1
	if [ -L "$ENA_CACHE/kernels/$k" ]; then
		readlink "$ENA_CACHE/kernels/$k"
	elif [ -d "$ENA_CACHE/kernels/$k" ]; then
		echo "$k"
	else
		echo "no kernel '$k' in $ENA_CACHE/kernels: run 'make setup'" >&2
		return 1
	fi
}

# ena_qemu_hash: content hash of everything the QEMU build depends on
ena_qemu_hash() {
	(cd "$ENA_TOP" && cat tools/qemu/build.sh tools/qemu/*.c tools/qemu/*.h \
		tools/qemu/trace-events tools/qemu/Kconfig 2>/dev/null;
	 ls "$ENA_CACHE"/src/qemu_10.0*.orig.tar.* 2>/dev/null) | sha256sum | cut -c1-16
}

# ena_qemu_bin: the QEMU build of this tree's model. Not qemu/current: that
# link follows the newest build, which another checkout's run (another
# model) may have just made.
ena_qemu_bin() {
	echo "$ENA_CACHE/qemu/$(ena_qemu_hash)/qemu-system-x86_64"
}
