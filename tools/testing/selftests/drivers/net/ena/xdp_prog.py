#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
# (-S: only the standard library is used, and under TCG the host's site .pth
# hooks cost about half a second per start)
"""Tiny native XDP programs without clang, libbpf, bpftool or ip(8)'s ELF
loader: assembled here, loaded with bpf(2), attached through rtnetlink.

  xdp_prog.py attach IFACE PROG [--ifindex-target N] [--frags]
  xdp_prog.py detach IFACE
  xdp_prog.py query IFACE
  xdp_prog.py echo-check IFACE DST_MAC COUNT [--timeout S] [--min-pct P]
                        [--size BYTES]
  xdp_prog.py dump PROG [--ifindex-target N]
  xdp_prog.py selftest
  xdp_prog.py can-load [--frags]

PROG is one of
  pass      return XDP_PASS
  drop      return XDP_DROP
  aborted   return XDP_ABORTED
  tx        swap the Ethernet destination and source, return XDP_TX (frames
            shorter than an Ethernet header: XDP_PASS)
  redirect  the same swap, then return bpf_redirect(N, 0): XDP_REDIRECT to
            ifindex N (--ifindex-target; default IFACE itself, so the frame
            leaves through the driver's ndo_xdp_xmit)

attach loads PROG and attaches it in native (driver) mode, replacing a
program attached before; the kernel keeps it attached after this process
exits; --frags loads it with BPF_F_XDP_HAS_FRAGS (it takes multi-buffer
frames, so a driver that supports them lets the MTU pass one buffer).
detach removes the native program. Both print the kernel's extended
ACK message when it gives one, and exit with the errno when the kernel
refuses (the BPF verifier's log is printed when it refuses the program).
query prints the id of the attached native program, 0 when none.
can-load loads the pass program (--frags: with BPF_F_XDP_HAS_FRAGS) and
exits 0 when the kernel takes it, else with the errno: the probe of a
kernel feature, nothing is attached.

echo-check (run where IFACE is, e.g. in the peer's netns) sends COUNT
Ethernet frames from IFACE to DST_MAC (IPv4 UDP 10.77.0.2 -> 10.77.0.1,
port 9, a marker and a sequence number as payload) through an AF_PACKET
socket and counts the frames that come back to IFACE's MAC unchanged but
for the MAC addresses: what an XDP program that swaps them and sends them
back produces. Exit 0 when at least P % (default 90) came back within S
seconds (default 5) after the last one was sent. --size pads each frame to
BYTES (Ethernet header included; a jumbo frame needs the MTU for it).

selftest assembles every program and checks the instruction bytes, runs
them through a small interpreter of the instructions used here, and checks
the bpf_attr, netlink and frame encodings: no system call, no privileges.
"""
import argparse
import ctypes
import os
import select
import socket
import struct
import sys
import time

# --- eBPF instructions (include/uapi/linux/bpf.h, bpf_common.h) -------------

BPF_LDX, BPF_STX, BPF_JMP, BPF_JMP32 = 0x01, 0x03, 0x05, 0x06   # class
BPF_ALU64 = 0x07
BPF_W, BPF_H, BPF_B = 0x00, 0x08, 0x10                           # size
BPF_MEM = 0x60                                                   # mode
BPF_K, BPF_X = 0x00, 0x08                                        # source
BPF_ADD, BPF_MOV = 0x00, 0xb0                                    # ALU op
BPF_JGT, BPF_JNE, BPF_CALL, BPF_EXIT = 0x20, 0x50, 0x80, 0x90     # JMP op

XDP_ABORTED, XDP_DROP, XDP_PASS, XDP_TX, XDP_REDIRECT = range(5)
BPF_FUNC_REDIRECT = 23
ETH_HLEN = 14
# struct xdp_md: u32 data at 0, u32 data_end at 4
XDP_MD_DATA, XDP_MD_DATA_END = 0, 4


def insn(code, dst=0, src=0, off=0, imm=0):
    """One struct bpf_insn: u8 code, u8 dst_reg:4 (low) src_reg:4, s16 off,
    s32 imm, little endian."""
    return struct.pack("<BBhi", code, (src << 4) | dst, off, imm)


def mov64_imm(dst, imm):
    return insn(BPF_ALU64 | BPF_MOV | BPF_K, dst, imm=imm)


def mov64_reg(dst, src):
    return insn(BPF_ALU64 | BPF_MOV | BPF_X, dst, src)


def add64_imm(dst, imm):
    return insn(BPF_ALU64 | BPF_ADD | BPF_K, dst, imm=imm)


def ldx_w(dst, src, off):
    """dst = *(u32 *)(src + off)"""
    return insn(BPF_LDX | BPF_MEM | BPF_W, dst, src, off)


def ldx_h(dst, src, off):
    """dst = *(u16 *)(src + off)"""
    return insn(BPF_LDX | BPF_MEM | BPF_H, dst, src, off)


def jne32_imm(dst, imm, off):
    """if (u32)dst != (u32)imm skip off instructions"""
    return insn(BPF_JMP32 | BPF_JNE | BPF_K, dst, off=off, imm=imm)


def ldx_b(dst, src, off):
    """dst = *(u8 *)(src + off)"""
    return insn(BPF_LDX | BPF_MEM | BPF_B, dst, src, off)


def stx_b(dst, src, off):
    """*(u8 *)(dst + off) = src"""
    return insn(BPF_STX | BPF_MEM | BPF_B, dst, src, off)


def jgt_reg(dst, src, off):
    """if dst > src (unsigned) skip off instructions"""
    return insn(BPF_JMP | BPF_JGT | BPF_X, dst, src, off)


def call(helper):
    return insn(BPF_JMP | BPF_CALL, imm=helper)


def exit_():
    return insn(BPF_JMP | BPF_EXIT)


def ret(verdict):
    return [mov64_imm(0, verdict), exit_()]


def swap_macs_then(tail, only_to=None):
    """r2 = data, r3 = data_end; no whole Ethernet header: XDP_PASS; with
    only_to (6 bytes), a frame to another destination MAC: XDP_PASS (on a
    hub every device sees every frame: this keeps a frame sent back out
    from looping); else swap destination and source MAC (bytes 0..5 and
    6..11), then tail."""
    body = []
    for i in range(6):
        body += [ldx_b(5, 2, i), ldx_b(6, 2, 6 + i), stx_b(2, 6, i), stx_b(2, 5, 6 + i)]
    body += tail
    check = []
    if only_to is not None:
        lo = struct.unpack("<i", bytes(only_to[0:4]))[0]
        hi = struct.unpack("<H", bytes(only_to[4:6]))[0]
        check = [ldx_w(4, 2, 0), jne32_imm(4, lo, 2 + len(body)),
                 ldx_h(4, 2, 4), jne32_imm(4, hi, len(body))]
    return [ldx_w(2, 1, XDP_MD_DATA), ldx_w(3, 1, XDP_MD_DATA_END),
            mov64_reg(4, 2), add64_imm(4, ETH_HLEN),
            jgt_reg(4, 3, len(check) + len(body))] + check + body + ret(XDP_PASS)


def program(name, ifindex=0, only_to=None):
    """The instructions of PROG name, a list of 8-byte strings."""
    if name == "pass":
        return ret(XDP_PASS)
    if name == "drop":
        return ret(XDP_DROP)
    if name == "aborted":
        return ret(XDP_ABORTED)
    if name == "tx":
        return swap_macs_then(ret(XDP_TX), only_to)
    if name == "redirect":
        # bpf_redirect(ifindex, 0) returns XDP_REDIRECT, or XDP_ABORTED
        # for flags it does not know
        return swap_macs_then([mov64_imm(1, ifindex), mov64_imm(2, 0),
                               call(BPF_FUNC_REDIRECT), exit_()], only_to)
    raise ValueError(name)


PROGS = ["pass", "drop", "aborted", "tx", "redirect"]

# --- bpf(2) -------------------------------------------------------------------

BPF_PROG_LOAD = 5
BPF_PROG_TYPE_XDP = 6
BPF_ATTR_SIZE = 128     # more than PROG_LOAD uses on 6.1/6.12; the rest zero
BPF_F_XDP_HAS_FRAGS = 1 << 5
SYS_BPF = {"x86_64": 321, "aarch64": 280}
LOG_SIZE = 1 << 18


def prog_load_attr(insn_cnt, insns, license, log_level=0, log_size=0, log_buf=0,
                   name=b"", prog_flags=0):
    """union bpf_attr for BPF_PROG_LOAD (pointers as integers)."""
    attr = struct.pack("<IIQQIIQII16sII",
                       BPF_PROG_TYPE_XDP, insn_cnt, insns, license,
                       log_level, log_size, log_buf,
                       0,               # kern_version
                       prog_flags,      # BPF_F_XDP_HAS_FRAGS or 0
                       name[:15],       # prog_name, NUL terminated
                       0,               # prog_ifindex (no offload)
                       0)               # expected_attach_type
    return attr.ljust(BPF_ATTR_SIZE, b"\0")


def bpf_prog_load(insns, name, frags=False):
    """A file descriptor of the loaded XDP program; OSError on refusal
    (after printing the verifier's log)."""
    nr = SYS_BPF.get(os.uname().machine)
    if nr is None:
        raise OSError(95, f"no bpf(2) number known for {os.uname().machine}")
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    code = b"".join(insns)
    cbuf = ctypes.create_string_buffer(code, len(code))
    lic = ctypes.create_string_buffer(b"GPL")

    def load(log_level, log):
        attr = ctypes.create_string_buffer(
            prog_load_attr(len(insns), ctypes.addressof(cbuf), ctypes.addressof(lic),
                           log_level, len(log) if log else 0,
                           ctypes.addressof(log) if log else 0, name.encode(),
                           BPF_F_XDP_HAS_FRAGS if frags else 0),
            BPF_ATTR_SIZE)
        fd = libc.syscall(ctypes.c_long(nr), ctypes.c_long(BPF_PROG_LOAD), attr,
                          ctypes.c_long(BPF_ATTR_SIZE))
        return fd, ctypes.get_errno()

    fd, err = load(0, None)
    if fd >= 0:
        return fd
    # again with the verifier's log, to say why
    log = ctypes.create_string_buffer(LOG_SIZE)
    fd, _ = load(1, log)
    if fd >= 0:
        return fd
    text = log.value.decode(errors="replace").rstrip()
    print(f"xdp_prog: BPF_PROG_LOAD of {name} ({len(insns)} insns) failed: "
          f"{os.strerror(err)} (errno {err}); verifier log:", file=sys.stderr)
    for line in (text or "(empty)").splitlines():
        print(f"  {line}", file=sys.stderr)
    raise OSError(err, os.strerror(err))

# --- rtnetlink ----------------------------------------------------------------


NLMSG_ERROR, NLMSG_DONE = 2, 3
NLM_F_REQUEST, NLM_F_ACK = 0x1, 0x4
NLM_F_CAPPED, NLM_F_ACK_TLVS = 0x100, 0x200
NLMSGERR_ATTR_MSG = 1
SOL_NETLINK, NETLINK_EXT_ACK = 270, 11
RTM_NEWLINK, RTM_GETLINK, RTM_SETLINK = 16, 18, 19
NLA_F_NESTED = 0x8000
IFLA_MTU, IFLA_EXT_MASK = 4, 29
RTEXT_FILTER_SKIP_STATS = 1 << 3
IFLA_XDP = 43
IFLA_XDP_FD, IFLA_XDP_ATTACHED, IFLA_XDP_FLAGS = 1, 2, 3
IFLA_XDP_PROG_ID, IFLA_XDP_DRV_PROG_ID = 4, 5
XDP_FLAGS_DRV_MODE = 1 << 2
XDP_ATTACHED = ["none", "native", "generic", "offload", "multi"]
XDP_ATTACHED_DRV, XDP_ATTACHED_MULTI = 1, 4


def align4(n):
    return (n + 3) & ~3


def nla(typ, payload):
    ln = 4 + len(payload)
    return struct.pack("<HH", ln, typ) + payload + b"\0" * (align4(ln) - ln)


def nla_parse(buf, off=0, end=None):
    """{type: payload} of the attributes in buf[off:end] (nested flag cleared)."""
    end = len(buf) if end is None else end
    out = {}
    while off + 4 <= end:
        ln, typ = struct.unpack_from("<HH", buf, off)
        if ln < 4 or off + ln > end:
            break
        out[typ & ~NLA_F_NESTED] = buf[off + 4:off + ln]
        off += align4(ln)
    return out


def nlmsg(typ, flags, seq, body):
    return struct.pack("<IHHII", 16 + len(body), typ, flags, seq, 0) + body


def ifinfomsg(ifindex):
    return struct.pack("<BxHiII", socket.AF_UNSPEC, 0, ifindex, 0, 0)


def setlink_xdp_msg(seq, ifindex, fd):
    """RTM_SETLINK: IFLA_XDP { FD fd, FLAGS DRV_MODE }; fd -1 detaches."""
    xdp = (nla(IFLA_XDP_FD, struct.pack("<i", fd)) +
           nla(IFLA_XDP_FLAGS, struct.pack("<I", XDP_FLAGS_DRV_MODE)))
    return nlmsg(RTM_SETLINK, NLM_F_REQUEST | NLM_F_ACK, seq,
                 ifinfomsg(ifindex) + nla(IFLA_XDP | NLA_F_NESTED, xdp))


def getlink_msg(seq, ifindex):
    return nlmsg(RTM_GETLINK, NLM_F_REQUEST, seq,
                 ifinfomsg(ifindex) +
                 nla(IFLA_EXT_MASK, struct.pack("<I", RTEXT_FILTER_SKIP_STATS)))


def parse_nlmsgerr(msg):
    """(errno, extack message or None) of one NLMSG_ERROR message, header
    included. struct nlmsgerr is the error and the request's header; unless
    NLM_F_CAPPED, the request's payload follows that header; then, with
    NLM_F_ACK_TLVS, the extended ACK attributes."""
    ln, _, flags, _, _ = struct.unpack_from("<IHHII", msg, 0)
    ln = min(ln, len(msg))
    err = struct.unpack_from("<i", msg, 16)[0]
    req_len = struct.unpack_from("<I", msg, 20)[0]
    off = 20 + (16 if flags & NLM_F_CAPPED else align4(req_len))
    text = None
    if flags & NLM_F_ACK_TLVS and off < ln:
        m = nla_parse(msg, off, ln).get(NLMSGERR_ATTR_MSG)
        if m:
            text = m.split(b"\0")[0].decode(errors="replace")
    return -err, text


def xdp_native_id(xdp):
    """The native program id in the attributes of IFLA_XDP ({type: payload}),
    and the attach mode's name."""
    mode = xdp[IFLA_XDP_ATTACHED][0] if IFLA_XDP_ATTACHED in xdp else 0
    name = XDP_ATTACHED[mode] if mode < len(XDP_ATTACHED) else str(mode)
    key = {XDP_ATTACHED_DRV: IFLA_XDP_PROG_ID, XDP_ATTACHED_MULTI: IFLA_XDP_DRV_PROG_ID}
    if mode in key and key[mode] in xdp:
        return struct.unpack("<I", xdp[key[mode]][:4])[0], name
    return 0, name


class NlError(OSError):
    def __init__(self, err, extack):
        super().__init__(err, os.strerror(err))
        self.extack = extack


class Rtnl:
    def __init__(self):
        self.s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
        try:
            self.s.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        except OSError:
            pass
        self.s.bind((0, 0))
        self.s.settimeout(10)
        self.seq = 0

    def request(self, build, *args):
        """Send build(seq, *args); the payloads of the replies (until the
        ACK or a reply without NLM_F_MULTI) and the ACK's extack message.
        NlError when the kernel answers with an error."""
        self.seq += 1
        self.s.send(build(self.seq, *args))
        replies = []
        while True:
            buf = self.s.recv(1 << 20)
            off = 0
            while off + 16 <= len(buf):
                ln, typ, flags, seq, _ = struct.unpack_from("<IHHII", buf, off)
                if ln < 16:
                    break
                msg = buf[off:off + ln]
                off += align4(ln)
                if seq != self.seq:
                    continue
                if typ == NLMSG_ERROR:
                    err, text = parse_nlmsgerr(msg)
                    if err:
                        raise NlError(err, text)
                    return replies, text
                if typ == NLMSG_DONE:
                    return replies, None
                replies.append((typ, msg[16:]))
                if not flags & 0x2:     # NLM_F_MULTI
                    return replies, None


def query(rtnl, ifindex):
    """(native program id or 0, attach mode name)"""
    replies, _ = rtnl.request(getlink_msg, ifindex)
    for typ, p in replies:
        if typ == RTM_NEWLINK:
            xdp = nla_parse(p, 16).get(IFLA_XDP)
            return xdp_native_id(nla_parse(xdp) if xdp else {})
    return 0, "none"


def set_xdp(rtnl, ifindex, fd):
    _, text = rtnl.request(setlink_xdp_msg, ifindex, fd)
    if text:
        print(f"xdp_prog: extack (warning): {text}", file=sys.stderr)

# --- echo check -----------------------------------------------------------------


ETH_P_ALL, ETH_P_IP = 0x0003, 0x0800
SOL_PACKET, PACKET_IGNORE_OUTGOING, PACKET_OUTGOING = 263, 23, 4
SO_RCVBUFFORCE = 33
MARKER = b"ena-xdp-echo"
SPORT, DPORT = 40000, 9


def ip_csum(b):
    s = sum(struct.unpack(f">{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def udp_frame(dst_mac, src_mac, saddr, daddr, nonce, seq, size=0):
    """An Ethernet frame: IPv4 UDP SPORT -> DPORT, payload MARKER nonce seq,
    then a byte pattern up to size bytes of frame (when size is larger)."""
    payload = MARKER + nonce + struct.pack(">I", seq)
    pad = size - (14 + 20 + 8 + len(payload))
    if pad > 0:
        payload += bytes((seq + i) & 0xff for i in range(pad))
    udp = struct.pack(">HHHH", SPORT, DPORT, 8 + len(payload), 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), seq & 0xffff, 0x4000,
                     64, socket.IPPROTO_UDP, 0, socket.inet_aton(saddr),
                     socket.inet_aton(daddr))
    ip = ip[:10] + struct.pack(">H", ip_csum(ip)) + ip[12:]
    return dst_mac + src_mac + struct.pack(">H", ETH_P_IP) + ip + udp


def echo_seq(frame, sent, my_mac, nonce):
    """The sequence number of a frame that is one of ours (sent: seq ->
    frame) come back: to my_mac, the rest but the MACs unchanged (padding
    after it allowed); else None."""
    if frame[:6] != my_mac:
        return None
    i = frame.find(MARKER + nonce)
    if i < 0 or len(frame) < i + len(MARKER) + len(nonce) + 4:
        return None
    seq = struct.unpack_from(">I", frame, i + len(MARKER) + len(nonce))[0]
    want = sent.get(seq)
    if want is None or frame[12:len(want)] != want[12:]:
        return None
    return seq


def mac_bytes(text):
    b = bytes.fromhex(text.replace(":", ""))
    if len(b) != 6:
        raise ValueError(f"not a MAC address: {text}")
    return b


def echo_check(iface, dst_mac, count, timeout, min_pct, saddr, daddr, gap, size=0):
    with open(f"/sys/class/net/{iface}/address") as f:
        my_mac = mac_bytes(f.read().strip())
    dst = mac_bytes(dst_mac)
    nonce = os.urandom(8)
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    for level, opt, val in ((SOL_PACKET, PACKET_IGNORE_OUTGOING, 1),
                            (socket.SOL_SOCKET, SO_RCVBUFFORCE, 4 << 20)):
        try:
            s.setsockopt(level, opt, val)
        except OSError:
            pass
    s.bind((iface, ETH_P_ALL))
    sent, back, others, swapped = {}, set(), 0, 0

    def drain(wait):
        nonlocal others, swapped
        end = time.monotonic() + wait
        while True:
            r, _, _ = select.select([s], [], [], max(0.0, end - time.monotonic()))
            if not r:
                return
            data, addr = s.recvfrom(65536)
            if addr[2] == PACKET_OUTGOING:
                continue
            seq = echo_seq(data, sent, my_mac, nonce)
            if seq is None:
                others += 1
            elif seq not in back:
                back.add(seq)
                swapped += data[6:12] == dst
            if len(back) == count:
                return

    t0 = time.monotonic()
    for seq in range(count):
        sent[seq] = udp_frame(dst, my_mac, saddr, daddr, nonce, seq, size)
        s.send(sent[seq])
        drain(gap)
    t1 = time.monotonic()
    if len(back) < count:
        drain(timeout)
    pct = 100 * len(back) // max(count, 1)
    print(f"{iface}: sent {count} frames of {len(sent.get(0, b''))} bytes to {dst_mac} in {t1 - t0:.2f} s; {len(back)} came back "
          f"({pct}%, {swapped} from {dst_mac}) by {time.monotonic() - t0:.2f} s; "
          f"{others} other frames seen")
    return 0 if len(back) * 100 >= min_pct * count else 1

# --- selftest: encodings and semantics, no system calls ---------------------------


def interpret(prog, frame, redirect_ok=True):
    """Run prog on frame (a bytearray): (r0, frame, helper calls). Only the
    instructions this file emits; xdp_md at a pretend address."""
    CTX, PKT = 1 << 40, 1 << 32
    reg = [0] * 11
    reg[1], calls, pc = CTX, [], 0
    mask = (1 << 64) - 1

    def addr(a, size):
        if not (PKT <= a and a + size <= PKT + len(frame)):
            raise AssertionError(f"pc {pc}: packet access at {a - PKT:+d} size {size} "
                                 f"outside 0..{len(frame)}")
        return a - PKT
    while True:
        code, regs, off, imm = struct.unpack("<BBhi", prog[pc])
        dst, src = regs & 0xf, regs >> 4
        pc += 1
        if code == 0xb7:
            reg[dst] = imm & mask
        elif code == 0xbf:
            reg[dst] = reg[src]
        elif code == 0x07:
            reg[dst] = (reg[dst] + imm) & mask
        elif code == 0x61 and reg[src] == CTX:
            assert off in (XDP_MD_DATA, XDP_MD_DATA_END), "ctx load"
            reg[dst] = PKT + (len(frame) if off == XDP_MD_DATA_END else 0)
        elif code == 0x61:
            reg[dst] = struct.unpack_from("<I", frame, addr(reg[src] + off, 4))[0]
        elif code == 0x71:
            reg[dst] = frame[addr(reg[src] + off, 1)]
        elif code == 0x69:
            reg[dst] = struct.unpack_from("<H", frame, addr(reg[src] + off, 2))[0]
        elif code == 0x56:
            if (reg[dst] & 0xffffffff) != (imm & 0xffffffff):
                pc += off
        elif code == 0x73:
            frame[addr(reg[dst] + off, 1)] = reg[src] & 0xff
        elif code == 0x2d:
            if reg[dst] > reg[src]:
                pc += off
        elif code == 0x85:
            assert imm == BPF_FUNC_REDIRECT
            calls.append((reg[1], reg[2]))
            reg[0] = XDP_REDIRECT if redirect_ok else XDP_ABORTED
            reg[1:6] = [0xdead] * 5     # clobbered
        elif code == 0x95:
            return reg[0], frame, calls
        else:
            raise AssertionError(f"pc {pc - 1}: opcode {code:#x}")


def selftest():
    fails = []

    def check(what, cond):
        print(f"{'ok' if cond else 'FAIL'}: {what}")
        if not cond:
            fails.append(what)

    opcodes = {"ALU64|MOV|K": (BPF_ALU64 | BPF_MOV | BPF_K, 0xb7),
               "ALU64|MOV|X": (BPF_ALU64 | BPF_MOV | BPF_X, 0xbf),
               "ALU64|ADD|K": (BPF_ALU64 | BPF_ADD | BPF_K, 0x07),
               "LDX|MEM|W": (BPF_LDX | BPF_MEM | BPF_W, 0x61),
               "LDX|MEM|B": (BPF_LDX | BPF_MEM | BPF_B, 0x71),
               "STX|MEM|B": (BPF_STX | BPF_MEM | BPF_B, 0x73),
               "JMP|JGT|X": (BPF_JMP | BPF_JGT | BPF_X, 0x2d),
               "JMP|CALL": (BPF_JMP | BPF_CALL, 0x85),
               "JMP|EXIT": (BPF_JMP | BPF_EXIT, 0x95)}
    for name, (got, want) in opcodes.items():
        check(f"{name} = {want:#04x}", got == want)
    enc = {"r0 = 2": (mov64_imm(0, 2), "b700000002000000"),
           "r1 = -1": (mov64_imm(1, -1), "b7010000ffffffff"),
           "r4 = r2": (mov64_reg(4, 2), "bf24000000000000"),
           "r4 += 14": (add64_imm(4, 14), "070400000e000000"),
           "r2 = *(u32 *)(r1 + 0)": (ldx_w(2, 1, 0), "6112000000000000"),
           "r3 = *(u32 *)(r1 + 4)": (ldx_w(3, 1, 4), "6113040000000000"),
           "r5 = *(u8 *)(r2 + 6)": (ldx_b(5, 2, 6), "7125060000000000"),
           "*(u8 *)(r2 + 11) = r5": (stx_b(2, 5, 11), "73520b0000000000"),
           "if r4 > r3 goto +26": (jgt_reg(4, 3, 26), "2d341a0000000000"),
           "call 23": (call(23), "8500000017000000"),
           "exit": (exit_(), "9500000000000000")}
    for name, (got, want) in enc.items():
        check(f"{name}: {want}", got.hex() == want)
    for name, verdict in (("pass", XDP_PASS), ("drop", XDP_DROP), ("aborted", XDP_ABORTED)):
        p = program(name)
        check(f"{name}: 2 insns, r0 = {verdict}", p == [mov64_imm(0, verdict), exit_()])
    want_len = {"tx": 33, "redirect": 35}
    for name in ("tx", "redirect"):
        p = program(name, 7)
        check(f"{name}: {want_len[name]} insns of 8 bytes",
              len(p) == want_len[name] and all(len(i) == 8 for i in p))
        off = struct.unpack_from("<h", p[4], 2)[0]
        check(f"{name}: the bounds check jumps to r0 = XDP_PASS; exit",
              p[4][0] == 0x2d and p[5 + off:] == ret(XDP_PASS))
        check(f"{name}: ends in exit", p[-1] == exit_())
    a = bytes(range(1, 7)) + bytes(range(0x11, 0x17))
    frame = a + b"\x08\x00" + bytes(50)
    r0, f, _ = interpret(program("tx"), bytearray(frame))
    check("tx on a 64-byte frame: XDP_TX, MACs swapped, rest unchanged",
          r0 == XDP_TX and f == frame[6:12] + frame[0:6] + frame[12:])
    r0, f, _ = interpret(program("tx"), bytearray(frame[:14]))
    check("tx on a bare 14-byte header: XDP_TX, swapped", r0 == XDP_TX and f[:6] == frame[6:12])
    r0, f, _ = interpret(program("tx"), bytearray(frame[:13]))
    check("tx on 13 bytes: XDP_PASS, untouched", r0 == XDP_PASS and f == frame[:13])
    r0, f, calls = interpret(program("redirect", 7), bytearray(frame))
    check("redirect: bpf_redirect(7, 0), its XDP_REDIRECT returned, MACs swapped",
          r0 == XDP_REDIRECT and calls == [(7, 0)] and f[:12] == frame[6:12] + frame[:6])
    r0, _, _ = interpret(program("redirect", 7), bytearray(frame), redirect_ok=False)
    check("redirect: a failing bpf_redirect's XDP_ABORTED returned", r0 == XDP_ABORTED)
    r0, _, calls = interpret(program("redirect", 7), bytearray(frame[:10]))
    check("redirect on 10 bytes: XDP_PASS, no call", r0 == XDP_PASS and not calls)
    mine, other = bytearray(frame[:6]), bytearray(b"\x52\x54\x00\xe0\x80\x01")
    for name in ("tx", "redirect"):
        r0, f, calls = interpret(program(name, 7, mine), bytearray(frame))
        check(f"{name} --only-to its destination: acts as without",
              r0 == (XDP_TX if name == "tx" else XDP_REDIRECT) and f[:6] == frame[6:12])
        r0, f, calls = interpret(program(name, 7, other), bytearray(frame))
        check(f"{name} --only-to another MAC (byte 4 >= 0x80): XDP_PASS, untouched",
              r0 == XDP_PASS and f == frame and not calls)
        diff5 = bytearray(frame[:5]) + b"\x99"
        r0, f, _ = interpret(program(name, 7, diff5), bytearray(frame))
        check(f"{name} --only-to a MAC differing in its last byte: XDP_PASS",
              r0 == XDP_PASS and f == frame)

    attr = prog_load_attr(33, 0x1111, 0x2222, 1, 4096, 0x3333, b"ena_xdp_tx")
    f = struct.unpack_from("<IIQQIIQII16sII", attr)
    check("bpf_attr: 128 bytes; type, cnt, insns, license, log level/size/buf, name at "
          "0, 4, 8, 16, 24, 28, 32, 48; rest zero",
          len(attr) == 128 and f[:7] == (6, 33, 0x1111, 0x2222, 1, 4096, 0x3333) and
          attr[48:64] == b"ena_xdp_tx".ljust(16, b"\0") and not any(attr[40:48]) and
          not any(attr[64:]))
    attr = prog_load_attr(1, 0, 0, prog_flags=BPF_F_XDP_HAS_FRAGS)
    check("bpf_attr: prog_flags BPF_F_XDP_HAS_FRAGS (32) at 44",
          struct.unpack_from("<I", attr, 44)[0] == 32 and not any(attr[40:44]))
    fr = udp_frame(b"\x02" * 6, b"\x04" * 6, "10.77.0.2", "10.77.0.1", b"n" * 8, 3, 9000)
    check("udp_frame size 9000: 9000 bytes, IPv4 total length 8986, seq 3 found back",
          len(fr) == 9000 and struct.unpack_from(">H", fr, 16)[0] == 8986 and
          echo_seq(fr, {3: fr}, b"\x02" * 6, b"n" * 8) == 3)
    m = setlink_xdp_msg(5, 3, 9)
    ln, typ, flags, seq, _ = struct.unpack_from("<IHHII", m)
    idx = struct.unpack_from("<i", m, 20)[0]
    outer = nla_parse(m, 32)
    inner = nla_parse(outer.get(IFLA_XDP, b""))
    check("RTM_SETLINK: length, request|ack, ifindex, IFLA_XDP nested {FD, FLAGS=DRV}",
          ln == len(m) == 32 + 4 + 8 + 8 and typ == RTM_SETLINK and flags == 5 and seq == 5 and
          idx == 3 and struct.unpack_from("<H", m, 34)[0] == IFLA_XDP | NLA_F_NESTED and
          inner == {IFLA_XDP_FD: struct.pack("<i", 9), IFLA_XDP_FLAGS: struct.pack("<I", 4)})
    d = setlink_xdp_msg(6, 3, -1)
    check("detach: fd -1, same flags",
          nla_parse(nla_parse(d, 32)[IFLA_XDP])[IFLA_XDP_FD] == b"\xff\xff\xff\xff")

    def err_msg(req, flags, text, seq=5):
        body = struct.pack("<i", -22) + (req[:16] if flags & NLM_F_CAPPED else req)
        body += b"\0" * (align4(len(body)) - len(body))
        body += nla(NLMSGERR_ATTR_MSG, text.encode() + b"\0") + nla(2, struct.pack("<I", 40))
        return nlmsg(NLMSG_ERROR, flags, seq, body)
    for what, fl in (("not capped", NLM_F_ACK_TLVS), ("capped", NLM_F_ACK_TLVS | NLM_F_CAPPED)):
        got = parse_nlmsgerr(err_msg(m, fl, "MTU too large for XDP"))
        check(f"nlmsgerr {what}: errno 22, extack message", got == (22, "MTU too large for XDP"))
    ack = nlmsg(NLMSG_ERROR, NLM_F_CAPPED, 5, struct.pack("<i", 0) + m[:16])
    check("plain ACK: (0, None)", parse_nlmsgerr(ack) == (0, None))
    check("IFLA_XDP native: id", xdp_native_id({IFLA_XDP_ATTACHED: b"\x01",
                                                IFLA_XDP_PROG_ID: struct.pack("<I", 42)})
          == (42, "native"))
    check("IFLA_XDP generic: 0", xdp_native_id({IFLA_XDP_ATTACHED: b"\x02",
                                                IFLA_XDP_PROG_ID: struct.pack("<I", 42)})
          == (0, "generic"))
    check("IFLA_XDP multi: the driver's id", xdp_native_id(
        {IFLA_XDP_ATTACHED: b"\x04", IFLA_XDP_DRV_PROG_ID: struct.pack("<I", 43),
         IFLA_XDP_PROG_ID: struct.pack("<I", 1)}) == (43, "multi"))
    check("IFLA_XDP none: 0", xdp_native_id({IFLA_XDP_ATTACHED: b"\x00"}) == (0, "none"))

    class FakeSock:
        """Answers each request with the messages reply(request) builds."""
        def __init__(self, reply):
            self.reply, self.out = reply, []

        def send(self, req):
            self.out += self.reply(req)

        def recv(self, _):
            return self.out.pop(0)

    def fake_rtnl(reply):
        r = object.__new__(Rtnl)
        r.s, r.seq = FakeSock(reply), 0
        return r

    def newlink(req):
        seq = struct.unpack_from("<I", req, 8)[0]
        xdp = nla(IFLA_XDP_ATTACHED, b"\x01") + nla(IFLA_XDP_PROG_ID, struct.pack("<I", 77))
        stale = nlmsg(RTM_NEWLINK, 0, seq - 1, ifinfomsg(3))
        return [stale, nlmsg(RTM_NEWLINK, 0, seq, ifinfomsg(3) + nla(IFLA_MTU, b"\xdc\x05\0\0") +
                             nla(IFLA_XDP | NLA_F_NESTED, xdp))]
    check("query through the request loop (a stale reply skipped): id 77, native",
          query(fake_rtnl(newlink), 3) == (77, "native"))

    def refuse(req):
        seq = struct.unpack_from("<I", req, 8)[0]
        return [err_msg(req, NLM_F_ACK_TLVS, "XDP needs fewer channels", seq)]
    try:
        set_xdp(fake_rtnl(refuse), 3, 9)
        got = None
    except NlError as e:
        got = (e.errno, e.extack)
    check("attach refused through the request loop: NlError(22, extack)",
          got == (22, "XDP needs fewer channels"))

    peer, ours, nonce = mac_bytes("02:00:00:00:00:02"), mac_bytes("02:00:00:00:00:01"), bytes(8)
    fr = udp_frame(ours, peer, "10.77.0.2", "10.77.0.1", nonce, 3)
    check("frame: 66 bytes, IPv4 header checksum verifies",
          len(fr) == 66 and ip_csum(fr[14:34]) == 0 and fr[12:14] == b"\x08\x00")
    echoed = fr[6:12] + fr[0:6] + fr[12:]
    sent = {3: fr}
    check("echo: swapped frame counted, padded one too",
          echo_seq(echoed, sent, peer, nonce) == 3 and
          echo_seq(echoed + bytes(4), sent, peer, nonce) == 3)
    icmp = bytearray(echoed)
    icmp[23] = socket.IPPROTO_ICMP
    check("echo: not our own frame, not a changed one, not another nonce",
          echo_seq(fr, sent, peer, nonce) is None and
          echo_seq(bytes(icmp), sent, peer, nonce) is None and
          echo_seq(echoed, sent, peer, b"x" * 8) is None)
    print(f"selftest: {'all ok' if not fails else f'{len(fails)} failed'}")
    return 1 if fails else 0

# --- command line -----------------------------------------------------------------


def ifindex_of(name):
    try:
        return socket.if_nametoindex(name)
    except OSError:
        sys.exit(f"xdp_prog: no interface {name}")


def fail(what, e):
    """Say why, with the kernel's extack message if any; exit with the errno."""
    err = e.errno or 5     # EIO: a timeout of the netlink socket
    print(f"xdp_prog: {what}: {e.strerror or e} (errno {err})", file=sys.stderr)
    if getattr(e, "extack", None):
        print(f"xdp_prog: extack: {e.extack}", file=sys.stderr)
    sys.exit(err)


def main():
    ap = argparse.ArgumentParser(description="tiny native XDP programs")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("attach")
    p.add_argument("iface")
    p.add_argument("prog", choices=PROGS)
    p.add_argument("--ifindex-target", type=int)
    p.add_argument("--only-to", metavar="MAC",
                   help="tx/redirect: only frames to this destination MAC")
    p.add_argument("--frags", action="store_true",
                   help="load with BPF_F_XDP_HAS_FRAGS (takes multi-buffer frames)")
    sub.add_parser("detach").add_argument("iface")
    sub.add_parser("query").add_argument("iface")
    p = sub.add_parser("echo-check")
    p.add_argument("iface")
    p.add_argument("dst_mac")
    p.add_argument("count", type=int)
    p.add_argument("--timeout", type=float, default=5)
    p.add_argument("--min-pct", type=int, default=90)
    p.add_argument("--gap", type=float, default=0.002, help="seconds between frames")
    p.add_argument("--saddr", default="10.77.0.2")
    p.add_argument("--daddr", default="10.77.0.1")
    p.add_argument("--size", type=int, default=0, help="bytes per frame (padded)")
    p = sub.add_parser("dump")
    p.add_argument("prog", choices=PROGS)
    p.add_argument("--ifindex-target", type=int, default=0)
    sub.add_parser("selftest")
    sub.add_parser("can-load").add_argument("--frags", action="store_true")
    a = ap.parse_args()

    if a.cmd == "can-load":
        # exit status 0 when this kernel loads the pass program (with
        # BPF_F_XDP_HAS_FRAGS: 5.18 on), else the errno of the refusal
        try:
            os.close(bpf_prog_load(program("pass", 0), "ena_probe", a.frags))
        except SystemExit as e:
            return e.code
        return 0

    if a.cmd == "selftest":
        return selftest()
    if a.cmd == "dump":
        for i, ins in enumerate(program(a.prog, a.ifindex_target)):
            print(f"{i:3d}: {ins.hex()}")
        return 0
    if a.cmd == "echo-check":
        try:
            return echo_check(a.iface, a.dst_mac, a.count, a.timeout, a.min_pct,
                              a.saddr, a.daddr, a.gap, a.size)
        except (OSError, ValueError) as e:
            print(f"xdp_prog: echo-check on {a.iface}: {e}", file=sys.stderr)
            return 1
    idx = ifindex_of(a.iface)
    rtnl = Rtnl()
    if a.cmd == "query":
        try:
            pid, mode = query(rtnl, idx)
        except OSError as e:
            fail(f"query {a.iface}", e)
        if mode not in ("none", "native"):
            print(f"xdp_prog: {a.iface}: XDP attached in mode {mode}", file=sys.stderr)
        print(pid)
        return 0
    if a.cmd == "detach":
        try:
            set_xdp(rtnl, idx, -1)
        except OSError as e:
            fail(f"detach from {a.iface}", e)
        return 0
    target = a.ifindex_target if a.ifindex_target is not None else idx
    try:
        only = mac_bytes(a.only_to) if a.only_to else None
        fd = bpf_prog_load(program(a.prog, target, only), f"ena_{a.prog}", a.frags)
    except OSError as e:
        fail(f"load {a.prog}", e)
    try:
        set_xdp(rtnl, idx, fd)
    except OSError as e:
        fail(f"attach {a.prog} to {a.iface} (native)", e)
    finally:
        os.close(fd)    # the device holds the program now
    pid, mode = query(rtnl, idx)
    extra = f", redirect to ifindex {target}" if a.prog == "redirect" else ""
    frags = ", multi-buffer" if a.frags else ""
    print(f"attached {a.prog} to {a.iface} ({mode}, prog id {pid}{extra}{frags})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
