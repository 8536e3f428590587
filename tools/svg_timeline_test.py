#!/usr/bin/env python3
"""Parses the SVG timelines `redsim` draws and checks their lanes and marks.

usage: svg_timeline_test.py path/to/redsim
"""
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def draw(redsim, args, path):
    proc = subprocess.run([redsim, *args, "--svg", path], capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


def parse(path):
    root = ET.parse(path).getroot()  # raises on malformed XML
    assert root.tag == NS + "svg", root.tag
    return root


def by_class(root, cls):
    return [e for e in root.iter() if e.get("class") == cls]


def lanes(root):
    return [g.get("data-lane") for g in by_class(root, "lane")]


def main():
    redsim = sys.argv[1]
    failures = []

    def check(cond, what):
        if not cond:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        # The expire-then-delete race: three clients, one server, leases,
        # the overlapping sections in red, the seed in the title.
        path = os.path.join(tmp, "race.svg")
        rc, out = draw(redsim, ["scenario", "run", "expire-then-delete", "--seed", "7"], path)
        check(rc == 0, f"scenario run exit {rc}: {out}")
        root = parse(path)
        title = root.find(NS + "title").text
        check("seed 7" in title and "expire-then-delete" in title, f"title: {title}")
        ls = lanes(root)
        check(ls[:2] == ["c1", "c2"] and "s0" in ls, f"lanes: {ls}")
        crit = by_class(root, "critical")
        check(len(crit) >= 3, f"{len(crit)} critical sections")
        red = [r for r in crit if r.get("data-violation") == "1"]
        check(len(red) >= 2 and all(r.get("fill") == "#d62728" for r in red), "red sections")
        leases = by_class(root, "lease")
        check(len(leases) >= 2 and {l.get("data-key") for l in leases} == {"lock:orders"},
              f"leases: {[l.attrib for l in leases]}")
        check(len({l.get("data-owner") for l in leases}) >= 2, "leases of two owners")
        check(len(by_class(root, "violation")) >= 1, "violation line")
        for r in crit + leases:
            x, w = float(r.get("x")), float(r.get("width"))
            check(x >= 0 and w > 0 and x + w <= float(root.get("width")) + 0.5,
                  f"bar inside the picture: {r.attrib}")

        # A crash is marked.
        path = os.path.join(tmp, "crash.svg")
        rc, out = draw(redsim, ["scenario", "run", "setnx-expire-crash"], path)
        check(rc == 0, f"crash scenario exit {rc}: {out}")
        check(len(by_class(parse(path), "crash")) >= 1, "crash mark")

        # A safe run: no red.
        path = os.path.join(tmp, "safe.svg")
        rc, out = draw(redsim, ["scenario", "run", "expire-then-delete-simple"], path)
        check(rc == 0, f"safe scenario exit {rc}: {out}")
        root = parse(path)
        check(not by_class(root, "violation"), "no violation line in a safe run")
        check(not [r for r in by_class(root, "critical") if r.get("data-violation")],
              "no red section in a safe run")

        # check's shrunk counterexample.
        path = os.path.join(tmp, "check.svg")
        rc, out = draw(redsim, ["check", "--lock", "get-del", "--seeds", "400"], path)
        check(rc == 1, f"check exit {rc}: {out[-400:]}")
        root = parse(path)
        check("seed" in root.find(NS + "title").text, "check title has the seed")
        check(len(by_class(root, "violation")) >= 1, "check: violation line")

        # Bad path: a clear message and a non-zero exit.
        rc, out = draw(redsim, ["scenario", "run", "blind-del"], os.path.join(tmp, "no/dir.svg"))
        check(rc == 2 and "cannot write" in out, f"bad path: exit {rc}: {out}")

    for f in failures:
        print("FAIL:", f)
    print("ok" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
