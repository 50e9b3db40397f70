#!/usr/bin/python3
"""The house's shape, checked (doc/hacking.md, "Map"): from the built objects
(nm: which object defines a function, which calls it) and the sources.

  structure.py TOP OBJDIR

Fails (exit 1, one line a finding) on:
  - a cycle between files: A calls B and B calls A, directly or around a loop
    (a call is an undefined symbol of A's object that B's object defines);
  - a cycle between nkctl's folders (units): the folders' calls, collapsed,
    must run one way only;
  - a header declaring a function that a file of another name defines
    (foo.h declares only foo.c's functions; a header with no foo.c none);
  - a command file (nkctl/cli/) over MAX_COMMAND_LINES.
Prints the units, their order and the counts on success.
"""
import os
import re
import subprocess
import sys

MAX_COMMAND_LINES = 800


def sources(top):
    out = []
    for d in ("lib", "nkctl"):
        for root, _dirs, files in os.walk(os.path.join(top, d)):
            for f in files:
                if f.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(root, f), top))
    return sorted(out)


def nm(*args):
    r = subprocess.run(["nm", *args], capture_output=True, text=True, check=True)
    return r.stdout.splitlines()


def symbols(top, objdir, cfiles):
    """defined: symbol -> .c file; used: .c file -> set of symbols (two nm
    runs over every object)."""
    objs = {}
    for c in cfiles:
        obj = os.path.join(objdir, c[:-2] + ".o")
        if not os.path.exists(obj):
            sys.exit(f"structure: no object {obj}: build first")
        objs[obj] = c
    defined, used = {}, {c: set() for c in cfiles}
    for line in nm(*objs, "-A", "--defined-only", "-g"):
        obj, _, rest = line.rpartition(".o:")
        parts = rest.split()
        if len(parts) == 3 and parts[1] in "TDRB":
            defined[parts[2]] = objs[obj + ".o"]
    for line in nm(*objs, "-A", "-u"):
        obj, _, rest = line.rpartition(".o:")
        used[objs[obj + ".o"]].add(rest.split()[-1])
    return defined, used


def find_cycles(edges):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def declared_functions(path, functions):
    """Names of defined functions a header declares (not in a macro, not a
    static inline's body)."""
    text = strip_comments(open(path).read())
    # drop preprocessor lines with their continuations
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)
    # drop static inline functions' bodies
    text = re.sub(r"static\s+inline[^{;]*\{(?:[^{}]|\{[^{}]*\})*\}", " ", text)
    names = set()
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", text):
        if m.group(1) in functions:
            names.add(m.group(1))
    return names


def unit_of(path):
    """nkctl/UNIT/file.c -> nkctl/UNIT; lib/x.c -> lib; nkctl/x.c -> nkctl."""
    return os.path.dirname(path)


def main():
    top, objdir = sys.argv[1], sys.argv[2]
    files = sources(top)
    cfiles = [f for f in files if f.endswith(".c")]
    defined, used = symbols(top, objdir, cfiles)
    functions = set(defined)
    found = []

    calls = {}
    for c in cfiles:
        calls[c] = {defined[s] for s in used[c] if s in defined and defined[s] != c}

    for comp in find_cycles(calls):
        ties = []
        for a in comp:
            for b in comp:
                if b in calls[a]:
                    names = sorted(s for s in used[a] if defined.get(s) == b)
                    ties.append(f"{a} -> {b} ({', '.join(names)})")
        found.append("cycle between files: " + "; ".join(ties))

    units = {}
    for a, targets in calls.items():
        for b in targets:
            if unit_of(a) != unit_of(b):
                units.setdefault(unit_of(a), set()).add(unit_of(b))
    for comp in find_cycles(units):
        ties = []
        for a in comp:
            for b in sorted(units.get(a, ())):
                if b in comp:
                    via = sorted(f"{x} -> {y}" for x in calls for y in calls[x]
                                 if unit_of(x) == a and unit_of(y) == b)
                    ties.append(f"{a} -> {b} ({', '.join(via)})")
        found.append("cycle between folders: " + "; ".join(ties))

    for h in (f for f in files if f.endswith(".h")):
        own = h[:-2] + ".c"
        for name in sorted(declared_functions(os.path.join(top, h), functions)):
            if defined[name] != own:
                found.append(f"header {h} declares {name}, which {defined[name]} defines "
                             f"(declare it in {defined[name][:-2]}.h)")

    for c in cfiles:
        if c.startswith("nkctl/cli/"):
            n = sum(1 for _ in open(os.path.join(top, c)))
            if n > MAX_COMMAND_LINES:
                found.append(f"command file {c} has {n} lines (at most {MAX_COMMAND_LINES}): split it")

    for f in found:
        print(f)
    if found:
        return 1
    order = sorted(units, key=lambda u: -len(units[u]))
    print(f"{len(cfiles)} files, {len(set(map(unit_of, cfiles)))} folders, no cycle; "
          f"headers declare their own files' functions; command files within {MAX_COMMAND_LINES} lines")
    for u in order:
        print(f"  {u} -> {' '.join(sorted(units[u]))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
