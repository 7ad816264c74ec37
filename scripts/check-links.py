#!/usr/bin/env python3
"""Every relative link in README.md and docs/**/*.md resolves: the file (or
folder) exists, and a #anchor names a heading of the target page (GitHub's
anchor rules: lower case, punctuation dropped, spaces to dashes).
Exit 1 with one line per broken link. Run by scripts/test.sh."""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def anchors(page: pathlib.Path) -> set:
    out, seen, fenced = set(), {}, False
    for line in page.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if fenced or not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def links(page: pathlib.Path):
    fenced = False
    for no, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        line = re.sub(r"`[^`]*`", "", line)
        for m in LINK.finditer(line):
            yield no, m.group(1) or m.group(2)


def main() -> int:
    pages = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))
    bad, count = [], 0
    for page in pages:
        for no, target in links(page):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
                continue  # http:, https:, mailto: ...
            count += 1
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            where = f"{page.relative_to(ROOT)}:{no}: {target}"
            if not dest.exists():
                bad.append(f"{where}: no such file {dest.relative_to(ROOT) if dest.is_relative_to(ROOT) else dest}")
            elif anchor and dest.suffix == ".md" and anchor.lower() not in anchors(dest):
                bad.append(f"{where}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    for b in bad:
        print(b)
    print(f"checked {count} relative links in {len(pages)} pages: {len(bad)} broken")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
