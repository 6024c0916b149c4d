#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""model_fuzz.py SYSFS_DEV N SEED: hammer one ENA model device that no
driver holds with N random steps: register writes, admin commands (random
opcodes, features and sizes, with DMA addresses in a locked buffer of this
process, beyond guest RAM, or 0), IO doorbells and unmasks, LLQ (BAR 2)
writes, readless reads and device resets.  Helper of model_fuzz.sh.

Before it exits it resets the device and clears memory decoding and bus
mastering, so no queue the fuzz created can DMA into pages this process
gives back.  Exit status 0 when all N steps were written."""
import ctypes
import mmap
import os
import random
import struct
import sys

PAGES = 64
BOGUS = 0xfff0_0000_0000     # 48-bit address far beyond guest RAM
REG_AQ_DB, REG_DEV_CTL, REG_MMIO_READ, REG_MMIO_RESP = 0x2c, 0x54, 0x5c, 0x60

dev, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(seed)

cfg = os.open(dev + "/config", os.O_RDWR)
pci_cmd = struct.unpack("<H", os.pread(cfg, 2, 4))[0]
os.pwrite(cfg, struct.pack("<H", pci_cmd | 0x6), 4)   # memory + bus master
bar0 = mmap.mmap(os.open(dev + "/resource0", os.O_RDWR | os.O_SYNC), 16384)
bar2 = None
if os.path.exists(dev + "/resource2"):
    bar2 = mmap.mmap(os.open(dev + "/resource2", os.O_RDWR | os.O_SYNC),
                     min(os.path.getsize(dev + "/resource2"), 1 << 20))

buf = mmap.mmap(-1, PAGES * 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS |
                mmap.MAP_POPULATE)
base_va = ctypes.addressof(ctypes.c_char.from_buffer(buf))
libc = ctypes.CDLL(None)
if libc.mlock(ctypes.c_void_p(base_va), ctypes.c_size_t(PAGES * 4096)):
    sys.exit("mlock failed")
pagemap = os.open("/proc/self/pagemap", os.O_RDONLY)
phys = []
for i in range(PAGES):
    e = struct.unpack("<Q", os.pread(pagemap, 8, ((base_va >> 12) + i) * 8))[0]
    if not e >> 63:
        sys.exit("page %d not present" % i)
    phys.append((e & ((1 << 55) - 1)) << 12)


def w32(off, v):
    bar0[off:off + 4] = struct.pack("<I", v & 0xffffffff)


def dma_addr():
    r = rnd.random()
    if r < 0.8:
        return phys[rnd.randrange(PAGES)] + rnd.randrange(0, 4096, 64)
    if r < 0.9:
        return BOGUS + rnd.randrange(1 << 20)
    return 0


def setup_admin():
    aq, acq, aenq = phys[0], phys[1], phys[2]
    w32(0x10, aq); w32(0x14, aq >> 32)
    w32(0x20, acq); w32(0x24, acq >> 32)
    w32(0x18, 32 | (64 << 16)); w32(0x28, 32 | (64 << 16))
    w32(0x38, aenq); w32(0x3c, aenq >> 32); w32(0x34, 16 | (64 << 16))
    w32(0x40, 16)
    w32(REG_MMIO_RESP, phys[3]); w32(REG_MMIO_RESP + 4, phys[3] >> 32)


def admin_cmd(tail):
    e = bytearray(rnd.randbytes(64))
    e[2] = rnd.choice([1, 2, 3, 4, 8, 9, 11, rnd.randrange(256)])
    e[3] = (e[3] & ~1) | (0 if (tail // 32) & 1 else 1)
    if rnd.random() < 0.7:
        e[17] = rnd.choice([1, 2, 3, 4, 7, 10, 11, 12, 14, 18, 20, 26, 27, 28,
                            rnd.randrange(256)])
    a = dma_addr()
    struct.pack_into("<IH", e, 8, a & 0xffffffff, (a >> 32) & 0xffff)
    struct.pack_into("<I", e, 4, rnd.choice([0, 8, 48, 256, 512, rnd.randrange(1 << 32)]))
    if e[2] in (1, 3):     # CREATE_SQ / CREATE_CQ: queue bases and depths
        a = dma_addr()
        struct.pack_into("<IH", e, 12, a & 0xffffffff, (a >> 32) & 0xffff)
        struct.pack_into("<H", e, 6 if e[2] == 3 else 10,
                         rnd.choice([1, 2, 4, 8, 16, 64, 256, 1024, rnd.randrange(65536)]))
        if e[2] == 3:
            e[5] = rnd.choice([2, 4, rnd.randrange(32)])
            struct.pack_into("<I", e, 8, rnd.choice([0, 1, 2, 3, rnd.randrange(1 << 32)]))
        else:
            e[4] = rnd.choice([0x20, 0x40, rnd.randrange(256)])
            e[6] = rnd.choice([1, 3, rnd.randrange(256)])
            struct.pack_into("<H", e, 8, rnd.randrange(20))
    off = (tail % 32) * 64
    buf[off:off + 64] = bytes(e)


def stop_device():
    w32(REG_DEV_CTL, 1)
    w32(REG_DEV_CTL, 0)
    os.pwrite(cfg, struct.pack("<H", pci_cmd & ~0x6), 4)


setup_admin()
tail = 0
try:
    for it in range(n):
        r = rnd.random()
        if r < 0.45:
            admin_cmd(tail)
            tail = (tail + 1) & 0xffff
            w32(REG_AQ_DB, tail)
        elif r < 0.75:
            # IO doorbells and unmasks, over descriptor memory sometimes random
            p = rnd.randrange(4, PAGES)
            if rnd.random() < 0.3:
                buf[p * 4096:(p + 1) * 4096] = rnd.randbytes(4096)
            w32(rnd.choice([0x1000, 0x1000, 0x2000, 0x2800, 0x3000]) +
                4 * rnd.choice([rnd.randrange(256), rnd.randrange(20)]),
                rnd.choice([rnd.randrange(1 << 32), rnd.randrange(64)]))
        elif r < 0.85 and bar2 is not None:
            o = rnd.randrange(len(bar2) - 8) & ~7
            bar2[o:o + 8] = rnd.randbytes(8)
        elif r < 0.93:
            w32(REG_MMIO_READ, rnd.randrange(1 << 32))   # readless read of anything
        elif r < 0.96:
            w32(rnd.randrange(0, 0x70, 4), rnd.randrange(1 << 32))
            if rnd.random() < 0.5:
                setup_admin()
        elif r < 0.98:
            w32(0x68, rnd.randrange(1 << 32))
        else:
            w32(REG_DEV_CTL, 1)
            setup_admin()
            w32(REG_DEV_CTL, 0)
            os.sched_yield()
            setup_admin()
            tail = 0
finally:
    stop_device()
print("%d steps, seed %d" % (n, seed))
