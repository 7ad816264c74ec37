#!/usr/bin/env python3
"""The compatibility table of scripts/compat.sh, from surefire's reports.

Usage: compat-report.py COMPAT_DIR SCHEDULER... (the first is the one under
test, normally shepherd; the others are controls). Prints, per test class,
tests run and passed under each scheduler, then every test that fails under
the first but passes under a control. Exits 1 if such a test is missing from
COMPAT_DIR/not-applicable.txt (lines `Class#method  reason`). With no
control, exits 1 if any test failed. Either way, exits 1 if the first
scheduler's logs hold an exception thrown through Shepherd's code: a test
passes while the RM's dispatcher thread only logs such an error.
"""
import pathlib
import re
import sys
import xml.etree.ElementTree as ET


def results(reports: pathlib.Path) -> dict:
    """(class, method) -> 'pass' | 'fail' | 'skip' from TEST-*.xml."""
    out = {}
    for f in sorted(reports.glob("TEST-*.xml")):
        root = ET.parse(f).getroot()
        for tc in root.iter("testcase"):
            cls = tc.get("classname", "").rsplit(".", 1)[-1]
            if tc.find("skipped") is not None:
                state = "skip"
            elif tc.find("failure") is not None or tc.find("error") is not None:
                state = "fail"
            else:
                state = "pass"
            out[(cls, tc.get("name"))] = state
    return out


STAMP = re.compile(r"^\d{4}-\d\d-\d\d \d")


def shepherd_errors(reports: pathlib.Path, known: list) -> list:
    """(class, first line) of each ERROR logged with a stack through org.shepherd.

    Left out: a stack that an interrupt caused (stopping a MockRM interrupts
    its dispatchers mid-event under every scheduler), and one whose first
    line holds a `known` text (upstream races, compat/known-errors.txt).
    """
    found = []
    for f in sorted(reports.glob("*-output.txt")):
        cls = f.name[: -len("-output.txt")].rsplit(".", 1)[-1]
        block = None
        for line in f.read_text(errors="replace").splitlines() + ["0000-00-00 0"]:
            if STAMP.match(line):
                if block and any("at org.shepherd." in b for b in block[1:]) and not any(
                    "InterruptedException" in b for b in block[1:]
                ):
                    what = block[1].strip() if len(block) > 1 else block[0]
                    if not any(k in what for k in known):
                        found.append((cls, what))
                block = [line] if (" ERROR " in line or " FATAL " in line) else None
            elif block is not None:
                block.append(line)
    return found


def main() -> int:
    compat = pathlib.Path(sys.argv[1])
    scheds = sys.argv[2:]
    runs = {s: results(compat / "target" / f"reports-{s}") for s in scheds}
    known = {}
    na = compat / "not-applicable.txt"
    if na.exists():
        for line in na.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                test, _, why = line.partition(" ")
                known[test] = why.strip()
    classes = sorted({c for r in runs.values() for (c, _) in r})
    head = "| class | " + " | ".join(f"{s} passed/run" for s in scheds) + " |"
    print(head)
    print("|" + "---|" * (len(scheds) + 1))
    totals = {s: [0, 0] for s in scheds}
    for c in classes:
        cells = []
        for s in scheds:
            tests = [v for (k, _), v in runs[s].items() if k == c and v != "skip"]
            passed = sum(v == "pass" for v in tests)
            totals[s][0] += passed
            totals[s][1] += len(tests)
            cells.append(f"{passed}/{len(tests)}" if tests else "not run")
        print(f"| {c} | " + " | ".join(cells) + " |")
    print("| **total** | " + " | ".join(f"**{p}/{n}**" for p, n in totals.values()) + " |")
    first, controls = scheds[0], scheds[1:]
    known_errors = []
    ke = compat / "known-errors.txt"
    if ke.exists():
        for line in ke.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                known_errors.append(line.split("  ")[0].strip())
    errors = shepherd_errors(compat / "target" / f"reports-{first}", known_errors)
    for cls, what in errors:
        print(f"- {cls}: an exception thrown through Shepherd's code was logged: {what}")
    ours = []
    for key, state in sorted(runs[first].items()):
        if state != "fail":
            continue
        passing = [s for s in controls if runs[s].get(key) == "pass"]
        if passing:
            ours.append((f"{key[0]}#{key[1]}", passing))
    if not controls:
        # Alone (CI): every test run must pass; the controls' runs are what
        # tell a gap of Shepherd's from one it shares (scripts/compat.sh).
        failed = [f"{c}#{m}" for (c, m), v in sorted(runs[first].items()) if v == "fail"]
        for t in failed:
            print(f"- {t}: FAILS under {first}")
        if not runs[first]:
            print(f"no test reports under {first}")
            return 1
        return 1 if failed or errors else 0
    print()
    unexplained = 0
    if not ours:
        print(f"Every test that passes under {', '.join(controls)} passes under {first}.")
    for test, passing in ours:
        why = known.get(test) or known.get(test.split("[")[0])
        if why:
            print(f"- {test}: fails under {first}, passes under {', '.join(passing)}; not applicable: {why}")
        else:
            unexplained += 1
            print(f"- {test}: FAILS under {first}, passes under {', '.join(passing)}")
    return 1 if unexplained or errors else 0


if __name__ == "__main__":
    sys.exit(main())
