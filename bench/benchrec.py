#!/usr/bin/python3 -S
# SPDX-License-Identifier: GPL-2.0
"""One benchmark record (a JSON line on stdout), built by field name.

  benchrec.py [--nl NL_JSON] KEY=VALUE...

Every guest-side script of bench/ writes its raw data through this (or,
for the boot time line, through boot-record.py, which uses fields()): a
field is named where its value is produced, never by its position in an
argument list. VALUE becomes an integer or a decimal number when it is
one, true/false a boolean, an empty VALUE null; anything else stays a
string.

--nl NL_JSON: the JSON object ena_nl.py printed for the load; adds
cmd_rc, cmd_us, t0_mono_us, newlink_us and carrier_us (the last
interface's, -1 when none), ifaces (how many ena interfaces appeared) and
ok (the command succeeded, and at least one interface appeared and every
one that did reached carrier). The KEY=VALUE pairs win over these.
"""
import json
import re
import sys

INT = re.compile(r"^-?[0-9]+$")
DEC = re.compile(r"^-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$")


def value(v):
    """VALUE of KEY=VALUE as JSON would carry it."""
    if INT.match(v):
        return int(v)
    if DEC.match(v):
        return float(v)
    return {"true": True, "false": False, "": None}.get(v, v)


# values kept as text whatever they look like: an abbreviated commit such
# as 982e290 reads as a number in exponent notation, and a list of samples
# ("ns,ns,...") is text however many it holds
TEXT_KEYS = {"commit", "kernel", "variant", "host_load", "react_probe_samples"}


def fields(args):
    """The KEY=VALUE arguments as a dict (exits with a message on a bad one)."""
    rec = {}
    for a in args:
        k, sep, v = a.partition("=")
        if not sep or not k:
            sys.exit(f"benchrec: not KEY=VALUE: {a!r}")
        rec[k] = v if k in TEXT_KEYS else value(v)
    return rec


def nl_fields(text):
    """The summary of one ena_nl.py JSON object (see --nl)."""
    try:
        nl = json.loads(text)
    except ValueError:
        return {"cmd_rc": "no-json", "ok": False, "ifaces": 0}
    ifs = list(nl.get("ifaces", {}).values())
    last = lambda k: max((i.get(k, -1) for i in ifs), default=-1)  # noqa: E731
    return {
        "cmd_rc": nl.get("cmd_rc"), "cmd_us": nl.get("cmd_us"),
        "t0_mono_us": nl.get("t0_mono_us", -1),
        "newlink_us": last("newlink_us"), "carrier_us": last("carrier_us"),
        "ifaces": len(ifs),
        "ok": nl.get("cmd_rc") == 0 and bool(ifs) and all("carrier_us" in i for i in ifs),
    }


def main(argv):
    rec = {}
    if argv[:1] == ["--nl"]:
        if len(argv) < 2:
            sys.exit(__doc__)
        rec.update(nl_fields(argv[1]))
        argv = argv[2:]
    rec.update(fields(argv))
    print(json.dumps(rec, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1:])
