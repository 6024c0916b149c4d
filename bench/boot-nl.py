#!/usr/bin/python3 -S
"""ena_nl.py with its start time on the kernel's clock.

  boot-nl.py ENA_NL_ARGS...   (the same arguments as ena_nl.py)

Runs ena_nl.py's main() unchanged and prints its JSON object with one more
key, t0_mono_us: CLOCK_MONOTONIC (the clock of trace_clock "mono") at the
instant ena_nl.py took its t0, just before it started the command. All of
ena_nl.py's times are relative to that t0, so t0_mono_us + carrier_us lands
on the same time line as a trace recorded with trace_clock=mono.
"""
import contextlib
import importlib.util
import io
import json
import os
import sys
import time

NL = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                  "../tools/testing/selftests/drivers/net/ena/ena_nl.py")


class Clock:
    """time for ena_nl: the first monotonic() call (its t0) is remembered."""
    t0 = None

    def __getattr__(self, name):
        return getattr(time, name)

    def monotonic(self):
        v = time.monotonic()
        if self.t0 is None:
            self.t0 = v
        return v


def main():
    spec = importlib.util.spec_from_file_location("ena_nl", NL)
    nl = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(nl)
    clock = nl.time = Clock()
    sys.argv = [NL] + sys.argv[1:]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        nl.main()
    j = json.loads(out.getvalue())
    j["t0_mono_us"] = int(clock.t0 * 1e6) if clock.t0 is not None else -1
    print(json.dumps(j, sort_keys=True))


if __name__ == "__main__":
    main()
