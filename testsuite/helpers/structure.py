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
  - a .c file of nkctl/ or the CNI plugin over MAX_LINES;
  - a queue dump's lease attributes (QUEUE_HAVE_LEASE*, the lease_* fields
    of struct nk_queue) read outside nkctl/lease/holder.c (lib/netdev.c decodes
    them; holder.c alone reads them);
  - doc/hacking.md's Map table out of step with the tree: every folder of
    nkctl/ a row, every .c file of it named there, no file named that is not.
Prints the units, their order and the counts on success.
"""
import os
import re
import subprocess
import sys

MAX_LINES = 800
PLUGIN_DIRS = ("cni",)


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


def long_files(top):
    """Every .c of nkctl/ and of the CNI plugin within MAX_LINES."""
    out = []
    for d in ("nkctl",) + PLUGIN_DIRS:
        for root, _dirs, files in os.walk(os.path.join(top, d)):
            for f in sorted(files):
                if f.endswith(".c"):
                    path = os.path.join(root, f)
                    n = sum(1 for _ in open(path))
                    if n > MAX_LINES:
                        out.append(f"file {os.path.relpath(path, top)} has {n} lines "
                                   f"(at most {MAX_LINES}): split it")
    return out


LEASE_FIELDS = re.compile(r"QUEUE_HAVE_LEASE\w*|(?:->|\.)lease_(?:ifindex|netns_id|queue_id|queue_type)\b")


def lease_field_reads(top):
    """Reads of a queue dump's lease attributes outside nkctl/lease/holder.c."""
    out = []
    for d in ("nkctl",) + PLUGIN_DIRS:
        for root, _dirs, files in os.walk(os.path.join(top, d)):
            rel = os.path.relpath(root, top)
            for f in sorted(files):
                if not f.endswith((".c", ".h")) or (rel == "nkctl/lease" and f.startswith("holder.")):
                    continue
                path = os.path.join(root, f)
                text = strip_comments(open(path).read())
                for m in LEASE_FIELDS.finditer(text):
                    line = text.count("\n", 0, m.start()) + 1
                    out.append(f"{os.path.relpath(path, top)}:{line} reads {m.group(0)}: "
                               f"only nkctl/lease/holder.c reads a queue dump's lease attributes")
    return out


def map_findings(top):
    """doc/hacking.md's Map: a row `| `nkctl/X/` | ... |` per folder, naming
    each of its .c files in backticks, and no file it does not have."""
    doc = os.path.join(top, "doc", "hacking.md")
    if not os.path.exists(doc):
        return []
    rows = {}
    for line in open(doc):
        m = re.match(r"\|\s*`(nkctl/[a-z]+)/`\s*\|(.*)\|\s*$", line)
        if m:
            rows[m.group(1)] = set(re.findall(r"`([A-Za-z0-9_]+\.c)`", m.group(2)))
    out = []
    nk = os.path.join(top, "nkctl")
    for d in sorted(os.listdir(nk)):
        if not os.path.isdir(os.path.join(nk, d)):
            continue
        unit = f"nkctl/{d}"
        have = {f for f in os.listdir(os.path.join(nk, d)) if f.endswith(".c")}
        if unit not in rows:
            out.append(f"doc/hacking.md's Map has no row for {unit}/")
            continue
        for f in sorted(have - rows[unit]):
            out.append(f"doc/hacking.md's Map row {unit}/ does not name {f}")
        for f in sorted(rows[unit] - have):
            out.append(f"doc/hacking.md's Map row {unit}/ names {f}, which {unit}/ does not have")
    for unit in sorted(set(rows) - {f"nkctl/{d}" for d in os.listdir(nk)}):
        out.append(f"doc/hacking.md's Map has a row for {unit}/, which does not exist")
    return out


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

    found += long_files(top)
    found += lease_field_reads(top)
    found += map_findings(top)

    for f in found:
        print(f)
    if found:
        return 1
    order = sorted(units, key=lambda u: -len(units[u]))
    print(f"{len(cfiles)} files, {len(set(map(unit_of, cfiles)))} folders, no cycle; "
          f"headers declare their own files' functions; .c files within {MAX_LINES} lines; "
          f"lease attributes read in nkctl/lease/holder.c only; "
          f"the Map names every folder and file")
    for u in order:
        print(f"  {u} -> {' '.join(sorted(units[u]))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
