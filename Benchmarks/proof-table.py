#!/usr/bin/env python3
"""docs/proof.md's tables of figures, made from the figures' JSON `pomodoro-bench COMMAND --json
FILE` writes (Benchmarks/README.md has its schema).

  python3 Benchmarks/proof-table.py FILE [--match REGEX]   a markdown table of FILE's figures
  python3 Benchmarks/proof-table.py --update DOC             every generated table in DOC made again
  python3 Benchmarks/proof-table.py --check DOC              exit 1 if one differs from its JSON

A generated table in DOC stands between two comments, the first naming its file (relative to the
repository's top folder) and, optionally, a regular expression the figures' names must match:

  <!-- proof-table: Benchmarks/figures/web.json web\\.flood -->
  ...
  <!-- end proof-table -->

Standard library only."""
import argparse
import json
import os
import re
import sys

SCHEMA = "pomodoro-bench/1"
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK = re.compile(r"(<!-- proof-table: (\S+)(?: (\S+))? -->\n)(.*?)(<!-- end proof-table -->)", re.S)


def number(value):
    """16.0 as 16, 20.125 as 20.125."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def must_be(expect):
    if not expect:
        return ""
    parts = []
    if expect.get("equals") is not None:
        parts.append(number(expect["equals"]))
    if expect.get("at_most") is not None:
        parts.append("at most " + number(expect["at_most"]))
    return ", ".join(parts)


def table(path, match=None):
    """The markdown of the figures in `path` whose names match `match`: a line saying the run, then
    a row a figure."""
    with open(path, encoding="utf-8") as f:
        run = json.load(f)
    if run.get("schema") != SCHEMA:
        raise SystemExit(f"proof-table: {path} is not {SCHEMA} figures (schema {run.get('schema')!r})")
    words = " ".join(["pomodoro-bench", run["command"]] + [w for w in run["arguments"] if w != run["command"]])
    figures = [f for f in run["figures"] if not match or re.search(match, f["name"])]
    lines = [
        f"`{words}`, {run['build']} build, {run['date'][:10]}:",
        "",
        "| figure | value | unit | must be |",
        "| --- | --- | --- | --- |",
    ]
    lines += [f"| `{f['name']}` | {number(f['value'])} | {f['unit']} | {must_be(f.get('expect'))} |" for f in figures]
    return "\n".join(lines) + "\n"


def regenerate(doc):
    """`doc`'s text with each generated table made again from its file."""
    with open(doc, encoding="utf-8") as f:
        text = f.read()

    def made(m):
        return m.group(1) + table(os.path.join(TOP, m.group(2)), m.group(3)) + m.group(5)

    return text, BLOCK.sub(made, text), len(BLOCK.findall(text))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", nargs="?", help="a figures JSON file")
    parser.add_argument("--match", help="only the figures whose names match this regular expression")
    parser.add_argument("--update", metavar="DOC", help="make DOC's generated tables again")
    parser.add_argument("--check", metavar="DOC", help="exit 1 if a generated table of DOC differs from its file")
    args = parser.parse_args()
    if args.file:
        sys.stdout.write(table(args.file, args.match))
        return 0
    doc = args.update or args.check
    if not doc:
        parser.error("a FILE, --update DOC or --check DOC")
    before, after, count = regenerate(doc)
    if args.update:
        if after != before:
            with open(doc, "w", encoding="utf-8") as f:
                f.write(after)
        print(f"proof-table: {count} tables in {doc} made from their figures")
        return 0
    if after != before:
        print(f"proof-table: {doc}: a generated table differs from its figures; "
              f"make it again: python3 Benchmarks/proof-table.py --update {doc}")
        print("proof-table: 0 passed, 1 failed")
        return 1
    print(f"proof-table: {count} passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
