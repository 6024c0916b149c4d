# ena-fast: an out-of-tree ENA driver, its QEMU device model and test rig.
#
#   make setup   prepare this machine (root, Debian 12): packages, kernels, QEMU
#   make         build ena.ko for every supported kernel: build/<release>/ena.ko
#                (5.10, 6.1, 6.12 and the newest Debian kernel; each with its
#                release's compiler, in a build root where that is not ours)
#   make check   W=1 -Werror, sparse, coccicheck, checkpatch --strict, the
#                harness's own tests (tools/testing/harness/selftest)
#   make test    make check, then the selftests in guests; ends "N passed, N failed"
#                (time-bounded loops; at most 45 minutes on a slow machine)
#   make test-long  the same with full loop counts and the long-only tests
#   make setup-debug  build the debug kernel (KASAN, lockdep, kmemleak, ...)
#   make test-debug   make test's selftests of our driver on the debug kernel
#   make deb     the Debian package: build/deb/ena-fast-dkms_<version>_all.deb
#   make run     the demo: two devices, our driver, ping, a short report
#   make bench   benchmarks into bench/results/
#
# KDIR=/path/to/headers builds for one other kernel tree instead.

ENA_CACHE ?= /var/cache/ena-fast
export ENA_CACHE
TOP := $(abspath .)
SRC_FILES := Kbuild $(shell find drivers include -type f \( -name '*.[ch]' -o -name Kbuild \) 2>/dev/null | sort)
DRV_DIR := drivers/net/ethernet/ena

ifdef KDIR
RELEASES := $(shell $(MAKE) -s -C $(KDIR) kernelrelease 2>/dev/null)
kdir_of = $(KDIR)
in_root_of =
else
RELEASES := $(sort $(notdir $(wildcard $(ENA_CACHE)/headers/*-amd64)))
kdir_of = $(ENA_CACHE)/headers/$(1)/usr/src/linux-headers-$(1)
# a kernel whose compiler is not this machine's (5.10, the newest) builds
# in the build root of its Debian release that make setup made: its
# headers' .chroot file names it (tools/in-chroot)
in_root_of = $(if $(wildcard $(ENA_CACHE)/headers/$(1)/.chroot),$(TOP)/tools/in-chroot $(file <$(ENA_CACHE)/headers/$(1)/.chroot))
endif
MODULES := $(foreach r,$(RELEASES),build/$(r)/ena.ko)
JOBS ?= 2

.PHONY: all modules tools setup setup-debug check test test-long test-debug run bench clean dkms-check deb FORCE
all: modules tools

# the boot bench's opener (bench/guest-boot.sh), a host binary the guests run
# from this tree (their root is the host's)
ENA_UP := build/tools/ena_up
ENA_UP_SRC := tools/testing/selftests/drivers/net/ena/ena_up.c
tools: $(ENA_UP)
$(ENA_UP): $(ENA_UP_SRC)
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra -Werror -o $@ $<

modules: $(if $(wildcard $(DRV_DIR)/Kbuild),$(MODULES),no-driver)

no-driver:
	@echo "make: no driver sources yet ($(DRV_DIR)/Kbuild missing)"

ifeq ($(RELEASES),)
$(MODULES) check: need-setup
need-setup:
	@echo "make: no kernel headers in $(ENA_CACHE)/headers: run 'make setup'" >&2; exit 1
endif

# Each kernel gets its own copy of the sources so builds never share objects.
build/%/ena.ko: $(SRC_FILES) FORCE
	@mkdir -p build/$*/src
	@tar cf - $(SRC_FILES) | tar xf - -C build/$*/src --touch --keep-newer-files 2>/dev/null || \
		tar cf - $(SRC_FILES) | tar xf - -C build/$*/src
	@# a failed build leaves no ena.ko behind: nothing may test an older one
	$(call in_root_of,$*) $(MAKE) -s -C $(call kdir_of,$*) M=$(TOP)/build/$*/src W=1 \
		KCFLAGS="$(KCFLAGS) -Werror" -j$(JOBS) modules || \
		{ rm -f $@ build/$*/src/$(DRV_DIR)/ena.ko; exit 1; }
	@cmp -s build/$*/src/$(DRV_DIR)/ena.ko $@ || { cp build/$*/src/$(DRV_DIR)/ena.ko $@.tmp && mv $@.tmp $@; }

setup:
	tools/setup.sh

# the static checks, then the harness's own tests (seconds, no guest)
check: modules
	@rc=0; tools/check.sh $(RELEASES) || rc=1; \
	tools/testing/harness/selftest || rc=1; exit $$rc

test:
	tools/testing/run-tests

test-long:
	ENA_TEST_LONG=1 tools/testing/run-tests

setup-debug:
	tools/setup-debug.sh

test-debug: setup-debug
	ENA_TEST_DEBUG=1 tools/testing/run-tests

run:
	tools/demo.sh

bench:
	bench/run.sh

dkms-check:
	tools/dkms-check.sh

deb:
	tools/mkdeb.sh

clean:
	rm -rf build
