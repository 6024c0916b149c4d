#!/usr/bin/env python3
"""fuzz.py [N] [SEED]: hammer an unbound ENA model device (no driver loaded)
with random register writes and random admin commands whose DMA addresses
point either at a private locked buffer or at non-existent memory.  The
device must not crash QEMU; prints "survived" at the end."""
import glob
import mmap
import os
import random
import struct
import sys

N = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
random.seed(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
PAGES = 64
BOGUS = 0xfff0_0000_0000     # 48-bit address far beyond guest RAM


def find_dev():
    for d in glob.glob("/sys/bus/pci/devices/*"):
        if open(d + "/vendor").read().strip() == "0x1d0f":
            return d
    sys.exit("no ENA device")


dev = find_dev()
open(dev + "/enable", "w").write("1")
cfg = os.open(dev + "/config", os.O_RDWR)
cmd = struct.unpack("<H", os.pread(cfg, 2, 4))[0]
os.pwrite(cfg, struct.pack("<H", cmd | 0x6), 4)      # memory + bus master
fd0 = os.open(dev + "/resource0", os.O_RDWR | os.O_SYNC)
bar0 = mmap.mmap(fd0, 16384)
bar2 = None
if os.path.exists(dev + "/resource2"):
    fd2 = os.open(dev + "/resource2", os.O_RDWR | os.O_SYNC)
    bar2 = mmap.mmap(fd2, min(os.path.getsize(dev + "/resource2"), 1 << 20))

buf = mmap.mmap(-1, PAGES * 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | mmap.MAP_POPULATE)
buf.write(b"\0" * (PAGES * 4096))
import ctypes
libc = ctypes.CDLL(None)
addr = ctypes.c_void_p.from_buffer(buf)
libc.mlock(ctypes.addressof(ctypes.c_char.from_buffer(buf)), PAGES * 4096)
pm = os.open("/proc/self/pagemap", os.O_RDONLY)
base_va = ctypes.addressof(ctypes.c_char.from_buffer(buf))
phys = []
for i in range(PAGES):
    e = struct.unpack("<Q", os.pread(pm, 8, ((base_va >> 12) + i) * 8))[0]
    phys.append((e & ((1 << 55) - 1)) << 12)


def w32(off, v):
    bar0[off:off + 4] = struct.pack("<I", v & 0xffffffff)


def page_addr():
    r = random.random()
    if r < 0.8:
        return phys[random.randrange(PAGES)] + random.randrange(0, 4096, 64)
    if r < 0.9:
        return BOGUS + random.randrange(1 << 20)
    return 0


def setup_admin():
    aq, acq, aenq = phys[0], phys[1], phys[2]
    w32(0x10, aq); w32(0x14, aq >> 32)
    w32(0x20, acq); w32(0x24, acq >> 32)
    w32(0x18, 32 | (64 << 16)); w32(0x28, 32 | (64 << 16))
    w32(0x38, aenq); w32(0x3c, aenq >> 32); w32(0x34, 16 | (64 << 16))
    w32(0x40, 16)
    w32(0x60, phys[3]); w32(0x64, phys[3] >> 32)


setup_admin()
tail = 0
for it in range(N):
    r = random.random()
    if r < 0.45:
        # random admin command
        e = bytearray(random.randbytes(64))
        e[2] = random.choice([1, 2, 3, 4, 8, 9, 11, random.randrange(256)])
        e[3] = (e[3] & ~1) | (0 if (tail // 32) & 1 else 1)
        if random.random() < 0.7:
            e[17] = random.choice([1, 2, 3, 4, 7, 10, 11, 12, 14, 18, 20, 26, 27, 28, random.randrange(256)])
        a = page_addr()
        struct.pack_into("<IH", e, 8, a & 0xffffffff, (a >> 32) & 0xffff)
        struct.pack_into("<I", e, 4, random.choice([0, 8, 48, 256, 512, random.randrange(1 << 32)]))
        if e[2] in (1, 3):     # queue bases
            a = page_addr()
            struct.pack_into("<IH", e, 12, a & 0xffffffff, (a >> 32) & 0xffff)
            struct.pack_into("<H", e, 6 if e[2] == 3 else 10, random.choice([1, 2, 4, 8, 16, 64, 256, 1024, random.randrange(65536)]))
            if e[2] == 3:
                e[5] = random.choice([2, 4, random.randrange(32)])
                struct.pack_into("<I", e, 8, random.choice([0, 1, 2, 3, random.randrange(1 << 32)]))
            else:
                e[4] = random.choice([0x20, 0x40, random.randrange(256)])
                e[6] = random.choice([1, 3, random.randrange(256)])
                struct.pack_into("<H", e, 8, random.randrange(20))
        off = (tail % 32) * 64
        buf[off:off + 64] = bytes(e)
        tail = (tail + 1) & 0xffff
        w32(0x2c, tail)
    elif r < 0.75:
        # random SQ doorbell / unmask, with random descriptor memory
        p = random.randrange(4, PAGES)
        buf[p * 4096:(p + 1) * 4096] = random.randbytes(4096) if random.random() < 0.3 else buf[p * 4096:(p + 1) * 4096]
        # keep buffer addresses in descriptors harmless for RX-like writes: none (no RX traffic here)
        w32(random.choice([0x1000, 0x1000, 0x2000, 0x2800, 0x3000]) +
            4 * random.choice([random.randrange(256), random.randrange(20)]),
            random.choice([random.randrange(1 << 32), random.randrange(64)]))
    elif r < 0.85 and bar2 is not None:
        o = random.randrange(len(bar2) - 8) & ~7
        bar2[o:o + 8] = random.randbytes(8)
    elif r < 0.93:
        w32(0x5c, random.randrange(1 << 32))     # readless read of anything
    elif r < 0.96:
        w32(random.randrange(0, 0x70, 4), random.randrange(1 << 32))
        setup_admin() if random.random() < 0.5 else None
    elif r < 0.98:
        w32(0x68, random.randrange(1 << 32))
    else:
        w32(0x54, 1); w32(0x60, phys[3]); w32(0x64, phys[3] >> 32); w32(0x54, 0)
        os.sched_yield()
        setup_admin()
        tail = 0
    if it % 5000 == 0:
        print("iteration", it, flush=True)
print("survived")
