#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""push_buf_len.py DEV [LEN]: set ETHTOOL_A_RINGS_TX_PUSH_BUF_LEN over ethtool
netlink (for ethtool binaries too old to know tx-push-buf-len); without LEN,
print the current value as the kernel reports it (nothing when it reports
none).  Helper of llq_large.sh."""
import os
import socket
import struct
import sys

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLM_F_REQUEST, NLM_F_ACK = 1, 4
NLA_F_NESTED = 0x8000
ETHTOOL_MSG_RINGS_GET = 15
ETHTOOL_MSG_RINGS_SET = 16
ETHTOOL_A_RINGS_HEADER = 1
ETHTOOL_A_RINGS_TX_PUSH_BUF_LEN = 15
ETHTOOL_A_HEADER_DEV_NAME = 2


def attr(kind, payload):
    n = 4 + len(payload)
    return struct.pack("HH", n, kind) + payload + b"\0" * ((4 - n % 4) % 4)


def request(sock, family, cmd, body, seq):
    msg = struct.pack("BBH", cmd, 1, 0) + body
    sock.send(struct.pack("IHHII", 16 + len(msg), family, NLM_F_REQUEST | NLM_F_ACK,
                          seq, os.getpid()) + msg)
    # read until this request's acknowledgement: the reply (if any) and
    # the ack may come in separate reads
    reply = None
    while True:
        data = sock.recv(65536)
        off = 0
        while off < len(data):
            ln, typ, _, rseq, _ = struct.unpack_from("IHHII", data, off)
            if rseq != seq:
                pass
            elif typ == 2:  # NLMSG_ERROR: the ack, 0 or the error
                err = struct.unpack_from("i", data, off + 16)[0]
                if err:
                    sys.exit("netlink error %d (%s)" % (err, os.strerror(-err)))
                return reply
            elif reply is None:
                reply = data[off + 20:off + ln]
            off += (ln + 3) & ~3


def main():
    dev = sys.argv[1]
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    s.bind((0, 0))
    rep = request(s, GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                  attr(CTRL_ATTR_FAMILY_NAME, b"ethtool\0"), 1)
    off, fam = 0, None
    while off < len(rep):
        ln, kind = struct.unpack_from("HH", rep, off)
        if kind == CTRL_ATTR_FAMILY_ID:
            fam = struct.unpack_from("H", rep, off + 4)[0]
        off += (ln + 3) & ~3
    hdr = attr(ETHTOOL_A_HEADER_DEV_NAME, dev.encode() + b"\0")
    body = attr(ETHTOOL_A_RINGS_HEADER | NLA_F_NESTED, hdr)
    if len(sys.argv) < 3:
        rep = request(s, fam, ETHTOOL_MSG_RINGS_GET, body, 2)
        off = 0
        while rep and off < len(rep):
            ln, kind = struct.unpack_from("HH", rep, off)
            if kind == ETHTOOL_A_RINGS_TX_PUSH_BUF_LEN:
                print(struct.unpack_from("I", rep, off + 4)[0])
            off += (ln + 3) & ~3
        return
    body += attr(ETHTOOL_A_RINGS_TX_PUSH_BUF_LEN, struct.pack("I", int(sys.argv[2])))
    request(s, fam, ETHTOOL_MSG_RINGS_SET, body, 2)


main()
