#!/usr/bin/env python3
"""No import circles between the crate's top-level modules (issue 66).

Reads every production source file under src/ (not src/bin, not tests:
files named tests.rs, folders named tests, and the `#[cfg(test)] mod` at a
file's end are left out, since tests may drive the engine from anywhere),
collects which top-level modules each module names through `crate::…`
paths, and fails when the graph has a cycle, naming the modules and the
files that close it. Run by scripts/test.sh before the long tests.
"""
import collections
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
TEST_MOD = re.compile(r"#\[cfg\(test\)\]\s*\n\s*(pub(\(crate\))?\s+)?mod\s+\w+\s*\{")


def production_text(text):
    """The file without its trailing test module and without comments."""
    m = TEST_MOD.search(text)
    if m:
        text = text[: m.start()]
    return re.sub(r"//[^\n]*", "", text)


def named_modules(text):
    """Top-level modules named by `crate::x` and `use crate::{x, y::z}`."""
    out = set(re.findall(r"crate::(\w+)", text))
    for group in re.finditer(r"crate::\{(.*?)\}\s*;", text, re.S):
        depth, token, items = 0, "", []
        for ch in group.group(1):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                items.append(token)
                token = ""
                continue
            if depth == 0 and ch not in "{}":
                token += ch
        items.append(token)
        for item in items:
            m = re.match(r"\s*(\w+)", item)
            if m:
                out.add(m.group(1))
    return out - {"self", "super"}


def graph():
    edges = collections.defaultdict(lambda: collections.defaultdict(set))
    modules = set()
    for folder, _, files in os.walk(SRC):
        for name in files:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(folder, name)
            parts = os.path.relpath(path, SRC).split(os.sep)
            if parts[0] in ("bin", "lib.rs") or name == "tests.rs" or "tests" in parts[:-1]:
                continue
            module = parts[0][:-3] if parts[0].endswith(".rs") else parts[0]
            modules.add(module)
            with open(path, encoding="utf-8") as f:
                for other in named_modules(production_text(f.read())):
                    if other != module:
                        edges[module][other].add(os.path.relpath(path, ROOT))
    return modules, edges


def cycles(modules, edges):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(modules):
        if v not in index:
            visit(v)
    return out


def main():
    modules, edges = graph()
    found = cycles(modules, edges)
    for component in found:
        print("module circle: " + " ↔ ".join(component), file=sys.stderr)
        for a in component:
            for b in component:
                if b in edges[a]:
                    print(f"  {a} → {b}: " + ", ".join(sorted(edges[a][b])), file=sys.stderr)
    if found:
        sys.exit(1)
    print(f"checked {len(modules)} top-level modules: no import circles")


if __name__ == "__main__":
    main()
