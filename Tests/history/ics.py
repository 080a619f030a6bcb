#!/usr/bin/env python3
"""`pomodoro history --ics` read by a real iCalendar parser (Debian's python3-icalendar).

Writes a history (labels with commas, semicolons, backslashes, markup, 40 characters of
Japanese, emoji; breaks, cancelled sessions, a flow, a record made before the clock was set),
runs the built binary's `history --ics` (also with --days and --label), and checks what the
parser reads: VERSION and PRODID, one VEVENT a completed focus session or flow, SUMMARY the
label (or the mode's name), DTSTART and DTEND in UTC with DTEND the record's end and DTSTART
that less the time it ran, UIDs unique and the same at a second export; and, on the bytes, CRLF
line ends and no line longer than 75 octets.

Usage: python3 Tests/history/ics.py [--binary .build/debug/pomodoro] [--require]
Without python3-icalendar it says so and exits 0 (77 with --require, as CI runs it).
"""
import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile

failures = 0
checks = 0


def check(ok, what):
    global failures, checks
    checks += 1
    if ok:
        print(f"ok {what}")
    else:
        failures += 1
        print(f"FAIL {what}")


def iso(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=".build/debug/pomodoro")
    parser.add_argument("--require", action="store_true", help="fail (77) when python3-icalendar is missing")
    args = parser.parse_args()
    try:
        import icalendar
    except ImportError:
        print("skip: python3-icalendar is not installed (apt-get install python3-icalendar, or pip install icalendar)")
        return 77 if args.require else 0
    if not os.access(args.binary, os.X_OK):
        print(f"FAIL {args.binary} is not built (swift build)")
        return 1
    print(f"icalendar {icalendar.__version__}")
    work = tempfile.mkdtemp(prefix="pomodoro-ics.")
    try:
        return run(icalendar, os.path.abspath(args.binary), work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def run(icalendar, binary, work):
    now = int(datetime.datetime.now(datetime.timezone.utc).timestamp())
    conf = os.path.join(work, "pomodoro.conf")
    with open(conf, "w") as f:
        f.write(f"state_dir = {work}\n")
    labels = [
        "Thesis, ch. 2; draft \\ notes",
        "<img src=x onerror=alert(1)>",
        "日本語のラベル" * 5 + "日本語のラ",  # 40 characters, 120 octets
        "🍅" * 40,
        None,
    ]
    assert len(labels[2]) == 40
    records = []  # (line, expected event or None)
    expected = []
    # Two days of sessions, an hour apart, oldest first; the first day's are before --days 1.
    t = now - 2 * 86400
    i = 0
    while t < now - 3600:
        label = labels[i % len(labels)]
        mode = ["focus", "short", "flow", "focus", "soft"][i % 5]
        outcome = "cancelled" if i % 7 == 3 else "completed"
        actual = 1_500_000 + 1000 * i + (400 if i % 2 else 0)
        r = {"ended": iso(t), "clock_synced": True, "mode": mode, "outcome": outcome, "planned_ms": 1_500_000,
             "actual_ms": actual, "extended_ms": 0}
        if i % 3 == 0:
            r["interruptions_internal"] = 1
            r["interruptions_external"] = 2
        if label is not None:
            r["label"] = label
        records.append(r)
        if mode in ("focus", "flow") and outcome == "completed":
            expected.append((t, actual, label or {"focus": "Focus", "flow": "Flow"}[mode], label))
        t += 3600
        i += 1
    # Made before the clock was set: left out.
    records.append({"ended": "1970-01-01T00:10:00Z", "clock_synced": False, "mode": "focus",
                    "outcome": "completed", "planned_ms": 60000, "actual_ms": 60000, "extended_ms": 0})
    with open(os.path.join(work, "history.jsonl"), "w") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n")

    def export(*extra):
        p = subprocess.run([binary, "history", "--ics", "--config", conf, *extra], capture_output=True)
        check(p.returncode == 0, f"history --ics {' '.join(extra)} exits 0 ({p.stderr.decode(errors='replace').strip()})")
        return p.stdout

    data = export()
    check(data == export(), "a second export is byte for byte the same")
    lines = data.split(b"\r\n")
    check(lines[-1] == b"", "the file ends in CRLF")
    check(all(b"\n" not in line for line in lines), "every line ends in CRLF")
    longest = max(len(line) for line in lines)
    check(longest <= 75, f"no line longer than 75 octets (longest {longest})")
    def whole(line):
        try:
            line.decode("utf-8")
            return True
        except UnicodeDecodeError:
            return False

    check(all(whole(line) for line in lines), "every physical line is whole UTF-8 characters")

    unfolded = data.replace(b"\r\n ", b"")
    check(b"\r\nSUMMARY:Thesis\\, ch. 2\\; draft \\\\ notes\r\n" in unfolded, "TEXT escaped as RFC 5545 says")
    cal = icalendar.Calendar.from_ical(data)
    check(str(cal.get("version")) == "2.0", "VERSION:2.0")
    check(str(cal.get("prodid", "")).startswith("-//pomodoro//"), f"PRODID {cal.get('prodid')}")
    events = list(cal.walk("VEVENT"))
    check(len(events) == len(expected), f"{len(events)} events for {len(expected)} completed focus sessions and flows")
    uids = [str(e.get("uid")) for e in events]
    check(len(set(uids)) == len(uids), "every UID differs")
    check(all(u.endswith("@pomodoro.invalid") for u in uids), "UIDs end in @pomodoro.invalid")
    utc = datetime.timedelta(0)
    for e, (ended, actual, summary, _) in zip(events, expected):
        start, end = e.decoded("dtstart"), e.decoded("dtend")
        ok = (str(e.get("summary")) == summary and end.utcoffset() == utc and start.utcoffset() == utc
              and int(end.timestamp()) == ended and int(start.timestamp()) == ended - (actual + 500) // 1000)
        check(ok, f"event {summary!r}: {start.isoformat()} to {end.isoformat()}")
    described = [str(e.get("description")) for e in events]
    check(any("interruptions: 1 internal, 2 external" in d for d in described), "interruptions in DESCRIPTION")

    day = list(icalendar.Calendar.from_ical(export("--days", "1")).walk("VEVENT"))
    today = datetime.datetime.fromtimestamp(now).astimezone().date()
    want = [x for x in expected if datetime.datetime.fromtimestamp(x[0]).astimezone().date() == today]
    check(len(day) == len(want), f"--days 1: {len(day)} events, today's {len(want)}")
    check([str(e.get("uid")) for e in day] == uids[len(uids) - len(day):], "--days 1: the same UIDs as the whole export")
    one = list(icalendar.Calendar.from_ical(export("--label", labels[0])).walk("VEVENT"))
    check(len(one) == sum(1 for x in expected if x[3] == labels[0]) and len(one) > 0,
          f"--label: {len(one)} events, each {labels[0]!r}")
    check(all(str(e.get("summary")) == labels[0] for e in one), "--label: each SUMMARY is the label")
    print(f"{checks - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
