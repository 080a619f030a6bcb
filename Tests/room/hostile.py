#!/usr/bin/env python3
"""Tests/room/hostile.py: room messages nobody's desk may act on, one a line, for `mosquitto_pub -l`
(Tests/room/run.sh floods the room's topics with them). Each is refused by construction: a session
(docs/room.md) of an OLDER revision than `--rev` with one field broken (a wrong version, the first
wire's `v` 1, a revision out of range, no or too many modes, lengths out of range or of another
count, a phase past the plan, an unknown state, a time counted past the phase, an expiry or a send
time out of range, a wrong type), cut short, wrapped, padded past the 1,024 bytes a session may
have, random bytes, invalid UTF-8; or a valid session of an older revision (a replay, with a fresh
expiry: never undoes the newer one). A `by` field names another desk now and then: the author is
the topic's desk, whatever the payload says. With
`--member DESK` member messages for the topic of DESK instead: a desk id that is not the topic's,
a phase or a mode that is none, a label over 40 characters or 160 bytes, padded past the 1,024
bytes a member message may have, random bytes.

Usage: hostile.py --count N --seed S --rev R [--member DESK]"""
import argparse
import json
import random

MODES = ["focus", "short", "long"]


def session(r, rev):
    """A valid session message (wire v2) of revision `rev` (its fields in the bridge's order)."""
    n = r.randint(1, 3)
    lengths = [r.randint(5000, 3600000) for _ in range(n)]
    phase = r.randrange(n)
    m = {"v": 2, "rev": rev, "modes": [r.choice(MODES) for _ in range(n)], "lengths_ms": lengths, "plan_rev": rev,
         "phase": phase, "state": r.choice(["running", "paused", "ended"]), "elapsed_ms": r.randint(0, lengths[phase]),
         "expiry": r.randint(1, 86400), "sent_ms": 1796040000000 + r.randint(0, 10**9), "synced": r.random() < 0.5}
    if r.random() < 0.2:
        m["by"] = r.choice(["desk-a", "desk-b", "zz"])  # a forged author: ignored
    return m


# One broken field each: (field, values that are never valid there).
BROKEN = [
    ("v", [0, 1, 3, "2", None, 1.5, [2]]),
    ("rev", [-1, 1 << 32, (1 << 53) + 1, 1 << 53, 2**63 - 1, -(2**63), 10**30, "5", 1.5, None]),
    ("modes", [[], ["focus"] * 9, ["egg"], "focus", [1], None, ["soft"], ["flow"]]),
    ("lengths_ms", [[4999], [86400000], ["1500000"], [-1], [], None, [1.5]]),
    ("phase", [-1, 99, "0", None, 0.5]),
    ("state", ["boom", 1, "", None, "RUNNING"]),
    ("elapsed_ms", [-1, 10**18, "x", None]),
    ("expiry", [0, -1, 86401, 10**12, "60", None]),
    ("sent_ms", [-1, 10**17, "now", None]),
    ("synced", ["true", 1, None]),
    ("plan_rev", [-5, "3", 1 << 32, None]),
]


def hostile_session(r, rev):
    kind = r.randrange(10)
    m = session(r, r.randint(max(0, rev - 1000), max(0, rev - 1)))
    if kind <= 4:
        field, values = r.choice(BROKEN)
        value = r.choice(values)
        if value is None:
            m.pop(field, None)
        else:
            m[field] = value
        if field == "lengths_ms" and isinstance(value, list) and value and len(value) == len(m["modes"]):
            m["modes"] = m["modes"] + ["focus"]  # a count that is not the modes'
        return json.dumps(m, separators=(",", ":"))
    text = json.dumps(m, separators=(",", ":"))
    if kind == 5:
        return text[: r.randrange(1, len(text) - 1)]  # cut short
    if kind == 6:
        return r.choice([f'{{"a":{text}}}', f"[{text}]", json.dumps(text), text + "}", "{" + text, "null"])
    if kind == 7:
        m["pad"] = "x" * r.randint(1024, 4000)  # past the 1,024 bytes a session may have
        return json.dumps(m, separators=(",", ":"))
    if kind == 8 and rev > 1:
        # a replay: valid, but older than the revision the room holds
        return json.dumps(session(r, r.randint(1, max(1, rev - 1))), separators=(",", ":"))
    raw = bytes(r.randrange(256) for _ in range(r.randint(1, 300)))
    return raw.replace(b"\n", b" ").decode("latin-1")


def hostile_member(r, desk):
    kind = r.randrange(6)
    m = {"v": 1, "desk": desk, "phase": r.choice(["idle", "running", "paused", "ringing"]),
         "mode": r.choice(["focus", "short", "long", "soft", "flow"]), "following": True}
    if kind == 0:
        m["desk"] = r.choice(["desk-z", "", desk + "x", None])
    elif kind == 1:
        m["phase"] = r.choice(["asleep", 1, None, ""])
    elif kind == 2:
        m["mode"] = r.choice(["egg", "", 7, None])
    elif kind == 3:
        # over 40 characters, or within them and over 160 bytes
        m["label"] = r.choice(["L" * r.randint(41, 300), "e\u0301\u0301" * 40])
    elif kind == 4:
        m["label"] = "x" * 30
        m["pad"] = "p" * r.randint(1024, 3000)  # past the 1,024 bytes a member message may have
    else:
        raw = bytes(r.randrange(256) for _ in range(r.randint(1, 200)))
        return raw.replace(b"\n", b" ").decode("latin-1")
    return json.dumps({k: v for k, v in m.items() if v is not None}, separators=(",", ":"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--seed", type=int, default=36)
    ap.add_argument("--rev", type=int, required=True, help="the revision the room holds")
    ap.add_argument("--member")
    a = ap.parse_args()
    r = random.Random(a.seed)
    out = []
    for _ in range(a.count):
        line = hostile_member(r, a.member) if a.member else hostile_session(r, a.rev)
        out.append(line.replace("\n", " ").replace("\r", " ").replace("\0", " ") or "{")
    # latin-1 keeps every byte as it was drawn (the invalid UTF-8 included)
    with open(1, "w", encoding="latin-1", closefd=False) as stdout:
        stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
