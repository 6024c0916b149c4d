#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A steady UDP flow through a device reset, and what the reset cost it.

  flow.py echo --bind IP [--port P] --seconds S
      answer every datagram with itself, S seconds
  flow.py send --to IP [--port P] --pps N --seconds S --trigger-file F
               [--ready-file R] [--after A]
      N datagrams a second until A seconds (8) after the trigger, S
      seconds at most, each carrying its sequence number; the echoes are
      timed on arrival.  F holds the moment (epoch seconds, as bash's
      EPOCHREALTIME) the reset's trigger was applied, written while the
      flow runs; R is created when the first echo comes back (the flow
      runs: the trigger may come).  Prints one line of KEY=VALUE pairs
      (bench/benchrec.py's arguments; an empty VALUE is null):
        sent, echoed, lost       datagrams (lost: sent, no echo; the last
                                 half second's are waited for)
        lost_after               of them sent after the trigger
        outage_ms                the longest run of lost datagrams after
                                 the trigger, in send time: from the last
                                 datagram echoed before it to the first
                                 echoed after it (0: none lost)
        resume_ms                trigger to the echo that ended that run;
                                 null if none did (not back) or none lost
        back                     false if the run lasted to the flow's end
The runs are of datagrams sent and lost, not of silence: a sender the
guest holds up sends nothing, and loses nothing, meanwhile (a monitor
command's process start under TCG held it for 0.6 s), so only the
device's outage counts.

Bench/guest-recovery.sh runs both ends: the echo where the device under
reset is, the sender on the peer, so the flow crosses the device twice.
"""
import argparse
import select
import socket
import sys
import time


def echo(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((a.bind, a.port))
    end = time.monotonic() + a.seconds
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return
        r, _, _ = select.select([s], [], [], left)
        if r:
            data, peer = s.recvfrom(64)
            try:
                s.sendto(data, peer)
            except OSError:
                pass  # no route or a full queue while the device resets


def analyse(sent_at, echo_at, trigger):
    """The figures of the KEY=VALUE line, from send and echo times per
    sequence number (echo_at: None where no echo came) and the trigger's
    time."""
    n = len(sent_at)
    got = sum(1 for e in echo_at if e is not None)
    lost_after = sum(1 for s, e in zip(sent_at, echo_at) if s >= trigger and e is None)
    best = None  # (outage, index of the echo that ended it or None)
    i = 0
    while i < n:
        if echo_at[i] is not None or sent_at[i] < trigger:
            i += 1
            continue
        j = i
        while j < n and echo_at[j] is None:
            j += 1
        start = sent_at[i - 1] if i > 0 else sent_at[i]
        end = sent_at[j] if j < n else sent_at[-1]
        if best is None or end - start > best[0]:
            best = (end - start, j if j < n else None)
        i = j
    res = {"sent": n, "echoed": got, "lost": n - got, "lost_after": lost_after,
           "outage_ms": 0.0, "resume_ms": None, "back": True}
    if best:
        res["outage_ms"] = round(best[0] * 1e3, 1)
        if best[1] is None:
            res["back"] = False
        else:
            res["resume_ms"] = round((echo_at[best[1]] - trigger) * 1e3, 1)
    return res


def read_trigger(path, wall0):
    """The trigger's time on the monotonic clock, or None if not written."""
    try:
        with open(path) as f:
            return float(f.read().strip()) - wall0
    except (OSError, ValueError):
        return None


def send(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect((a.to, a.port))
    s.setblocking(False)
    gap = 1.0 / a.pps
    sent_at, echo_at = [], []
    t0 = time.monotonic()
    # wall and monotonic clocks paired once: the trigger is a wall time
    wall0 = time.time() - t0
    # the flow ends --after seconds after the trigger, --seconds at most
    nxt, end = t0, t0 + a.seconds
    ready, trigger, look = False, None, t0
    while True:
        now = time.monotonic()
        if now >= end + 0.5:
            break
        if trigger is None and now >= look:
            look = now + 0.05
            trigger = read_trigger(a.trigger_file, wall0)
            if trigger is not None:
                end = min(end, trigger + a.after)
        # paced: one datagram per slot; slots a stalled sender missed by
        # more than 50 ms are dropped, not sent in a burst
        if now - nxt > 0.05:
            nxt = now
        while now < end and nxt <= now:
            try:
                s.send(len(sent_at).to_bytes(8, "little"))
            except OSError:
                pass  # counted as sent: it is lost
            sent_at.append(time.monotonic())
            echo_at.append(None)
            nxt += gap
        wait = max(0.0, min(nxt, look, end + 0.5) - time.monotonic())
        r, _, _ = select.select([s], [], [], wait)
        while r:
            try:
                data = s.recv(64)
            except (BlockingIOError, ConnectionRefusedError):
                break
            seq = int.from_bytes(data[:8], "little")
            if seq < len(echo_at) and echo_at[seq] is None:
                echo_at[seq] = time.monotonic()
                if a.ready_file and not ready:
                    open(a.ready_file, "w").close()
                    ready = True
    if trigger is None:
        sys.exit("flow.py send: no trigger time in " + a.trigger_file)
    res = analyse(sent_at, echo_at, trigger)
    text = {None: "", True: "true", False: "false"}
    print(" ".join(f"{k}={text.get(v, v) if isinstance(v, bool) or v is None else v}"
                   for k, v in res.items()))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["echo", "send"])
    p.add_argument("--bind", default="0.0.0.0")
    p.add_argument("--to")
    p.add_argument("--port", type=int, default=9000)
    p.add_argument("--pps", type=int, default=500)
    p.add_argument("--seconds", type=float, required=True)
    p.add_argument("--trigger-file")
    p.add_argument("--ready-file")
    p.add_argument("--after", type=float, default=8.0)
    a = p.parse_args()
    if a.mode == "echo":
        echo(a)
    else:
        if not a.to or not a.trigger_file:
            sys.exit("flow.py send: --to and --trigger-file are needed")
        send(a)


if __name__ == "__main__":
    main()
