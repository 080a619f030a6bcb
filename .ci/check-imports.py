#!/usr/bin/env python3
"""Package.swift's dependency list of each target must equal the package's modules its files
import: none missing (it builds only by luck of the build order) and none unused (a layer it does
not need). Reads the manifest through `swift package dump-package`; prints one line a target that
differs and a closing `N passed, M failed`. Exit 1 on any difference.

Also: the layers hold (`FORBIDDEN`). The platform (PomodoroSystem) stands below the config
(PomodoroConfig), which stands below the protocol and its records (PomodoroControl: a config item
is the config's value, its item line the protocol's); the bridges and the
history's readers stand below the device's runtime: `pomodoro web`, `pomodoro mqtt` and `pomodoro
stats` reach the device through the control socket and its records, never through
PomodoroRuntime.

Also: no `assert(` in Sources. The hot modules build with -O in debug builds too (Package.swift),
which drops `assert`; a check that must fire is a `precondition`."""
import json
import os
import re
import subprocess
import sys

IMPORT = re.compile(r"^\s*(?:@\w+\s+)*import\s+(?:(?:struct|class|enum|func|protocol)\s+)?(\w+)", re.M)


# A target and the modules it must not depend on. The platform (PomodoroSystem) knows nothing of
# the device; the config (PomodoroConfig) nothing of the protocol that lists and sets it.
FORBIDDEN = {
    "PomodoroSystem": {"PomodoroControl", "PomodoroConfig", "PomodoroDrivers", "PomodoroRuntime"},
    "PomodoroConfig": {"PomodoroControl", "PomodoroRuntime"},
    "PomodoroControl": {"PomodoroDrivers", "PomodoroRuntime"},
    "PomodoroWeb": {"PomodoroRuntime"},
    "PomodoroStats": {"PomodoroRuntime"},
    "PomodoroMQTT": {"PomodoroRuntime"},
}


def target_path(target):
    if target.get("path"):
        return target["path"]
    return os.path.join("Tests" if target["type"] == "test" else "Sources", target["name"])


def imports(folder, modules):
    found = set()
    for root, _, files in os.walk(folder):
        for name in files:
            if name.endswith((".swift", ".c", ".h")):
                with open(os.path.join(root, name), encoding="utf-8") as f:
                    text = f.read()
                found |= {m for m in IMPORT.findall(text) if m in modules}
    return found


def main():
    manifest = json.loads(subprocess.run(
        ["swift", "package", "dump-package"], check=True, capture_output=True, text=True).stdout)
    targets = manifest["targets"]
    modules = {t["name"].replace("-", "_") for t in targets}
    passed = failed = 0
    for t in targets:
        # As modules: the executable target pomodoro-bench is the module pomodoro_bench.
        declared = {list(d.values())[0][0].replace("-", "_") for d in t.get("dependencies", [])}
        used = imports(target_path(t), modules) - {t["name"]}
        missing, unused = sorted(used - declared), sorted(declared - used)
        below = sorted(FORBIDDEN.get(t["name"], set()) & (declared | used))
        if below:
            failed += 1
            print(f"FAIL {t['name']}: depends on {below}, which it stands below (FORBIDDEN)")
        elif missing or unused:
            failed += 1
            print(f"FAIL {t['name']}: imports but does not declare {missing}; declares but does not import {unused}")
        else:
            passed += 1
    asserting = subprocess.run(
        ["grep", "-rnE", r"(^|[^A-Za-z_])assert\(", "Sources", "--include=*.swift"], capture_output=True, text=True).stdout
    if asserting:
        failed += 1
        print("FAIL assert( in Sources, which -O drops: use precondition\n" + asserting)
    else:
        passed += 1
    print(f"dependencies: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
