#!/usr/bin/python3
"""The house's shape, checked (doc/hacking.md, "Map"): from the built objects
(nm: which object defines a function, which calls it) and the sources.

  structure.py TOP OBJDIR

Two programs are read: nkctl (lib/ and nkctl/) and the CNI plugin (lib/ and
cni/, its own main() in cni/main.c). A symbol is resolved within the program
of the file that uses it: a file of nkctl/ sees lib/ and nkctl/, one of cni/
sees lib/ and cni/, one of lib/ (in both) each program in turn; a program's
cycles are its own. The plugin is one unit, "cni". Where it is not built (no
json-c) its calls are not read, and the success lines say so.

Fails (exit 1, one line a finding) on:
  - a cycle between files: A calls B and B calls A, directly or around a loop
    (a call is an undefined symbol of A's object that B's object defines);
  - a cycle between folders (units: nkctl's folders, lib, cni): the folders'
    calls, collapsed, must run one way only;
  - an include cycle between files: A includes B includes A, directly or
    around a loop (a quoted #include of lib/, nkctl/, cni/, include/, bpf/,
    resolved as the compiler does: the including file's folder, then the
    Makefile's -Iinclude -Ilib -Inkctl -Ibpf; an include found nowhere in
    the tree, a generated skeleton, is left out);
  - a file of lib/ including a file outside lib/ and include/ (up into
    nkctl/ or the plugin's cni/);
  - a header declaring a function that a file of another name defines
    (foo.h declares only foo.c's functions; a header with no foo.c, such as
    cni/cni.h, none);
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
# The programs: each links lib/ and its own folders.
PROGRAMS = {"nkctl": ("nkctl",), "cni": PLUGIN_DIRS}
# Where a quoted #include is looked for after the including file's own
# folder: the Makefile's -I, in its order (-I$(BUILD)/bpf, the generated
# skeletons, is not in the tree and left out).
INCLUDE_PATH = ("include", "lib", "nkctl", "bpf")
# The folders whose files' includes are read.
INCLUDE_TREE = ("include", "lib", "nkctl") + PLUGIN_DIRS + ("bpf",)
# lib/ includes only these.
LIB_MAY_INCLUDE = ("lib", "include")


def sources(top):
    out = []
    for d in ("lib", "nkctl") + PLUGIN_DIRS:
        for root, _dirs, files in os.walk(os.path.join(top, d)):
            for f in files:
                if f.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(root, f), top))
    return sorted(out)


def nm(*args):
    r = subprocess.run(["nm", *args], capture_output=True, text=True, check=True)
    return r.stdout.splitlines()


def top_dir(path):
    return path.split("/", 1)[0]


def program_files(cfiles, built):
    """program -> its .c files: lib's, then its own folders' (a program
    whose objects are not built is left out)."""
    out = {}
    for prog, dirs in PROGRAMS.items():
        if prog not in built:
            continue
        out[prog] = [c for c in cfiles if top_dir(c) == "lib"] + \
                    [c for c in cfiles if top_dir(c) in dirs]
    return out


def built_programs(objdir, cfiles):
    """The programs whose objects are there. nkctl's must be; the plugin's
    are all there or none (it is built only where json-c is)."""
    built = set()
    for prog, dirs in PROGRAMS.items():
        mine = [c for c in cfiles if top_dir(c) in dirs]
        have = [c for c in mine if os.path.exists(os.path.join(objdir, c[:-2] + ".o"))]
        if prog != "nkctl" and mine and not have:
            continue
        missing = sorted(set(mine) - set(have))
        if missing:
            sys.exit(f"structure: no object {os.path.join(objdir, missing[0][:-2] + '.o')}: build first")
        built.add(prog)
    return built


def symbols(top, objdir, cfiles):
    """defs: .c file -> symbols it defines; used: .c file -> symbols it
    uses (two nm runs over every object)."""
    objs = {}
    for c in cfiles:
        obj = os.path.join(objdir, c[:-2] + ".o")
        if not os.path.exists(obj):
            sys.exit(f"structure: no object {obj}: build first")
        objs[obj] = c
    defs, used = {c: set() for c in cfiles}, {c: set() for c in cfiles}
    for line in nm(*objs, "-A", "--defined-only", "-g"):
        obj, _, rest = line.rpartition(".o:")
        parts = rest.split()
        if len(parts) == 3 and parts[1] in "TDRB":
            defs[objs[obj + ".o"]].add(parts[2])
    for line in nm(*objs, "-A", "-u"):
        obj, _, rest = line.rpartition(".o:")
        used[objs[obj + ".o"]].add(rest.split()[-1])
    return defs, used


def defined_in(files, defs):
    """symbol -> the .c file defining it, within one program (its own
    folders' definitions over lib's, as its link resolves them)."""
    out = {}
    for c in sorted(files, key=lambda f: top_dir(f) != "lib"):
        for s in defs[c]:
            out[s] = c
    return out


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


INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"', re.M)


def include_files(top):
    out = []
    for d in INCLUDE_TREE:
        for root, _dirs, files in os.walk(os.path.join(top, d)):
            for f in files:
                if f.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(root, f), top))
    return sorted(out)


def resolve_include(top, path, name):
    """The tree's file a quoted #include NAME in PATH reaches, as the
    compiler looks: PATH's own folder, then INCLUDE_PATH; None if none."""
    for d in (os.path.dirname(path),) + INCLUDE_PATH:
        p = os.path.normpath(os.path.join(d, name))
        if not p.startswith("../") and os.path.isfile(os.path.join(top, p)):
            return p
    return None


def includes(top):
    """file -> [(name as written, the file it reaches)], the tree's own."""
    out = {}
    for f in include_files(top):
        text = strip_comments(open(os.path.join(top, f)).read())
        found = []
        for m in INCLUDE.finditer(text):
            to = resolve_include(top, f, m.group(1))
            if to is not None:
                found.append((m.group(1), to))
        out[f] = found
    return out


def shortest_cycle(edges, start, within):
    """The shortest path START -> ... -> START over nodes WITHIN."""
    prev, queue = {}, [start]
    for v in queue:
        for w in sorted(edges.get(v, ())):
            if w == start:
                path = [v]
                while path[-1] != start:
                    path.append(prev[path[-1]])
                return path[::-1] + [start]
            if w in within and w not in prev:
                prev[w] = v
                queue.append(w)
    return None


def include_findings(top):
    """Include cycles between files, and lib/ including above itself."""
    inc = includes(top)
    edges = {f: {to for _, to in found} for f, found in inc.items()}
    out, seen = [], set()
    comps = find_cycles(edges) + [[f] for f in sorted(edges) if f in edges[f]]
    for comp in comps:
        within = set(comp)
        for start in comp:
            cyc = shortest_cycle(edges, start, within)
            if not cyc:
                continue
            # one line a cycle, however it was entered: from its least file
            ring = cyc[:-1]
            i = ring.index(min(ring))
            ring = ring[i:] + ring[:i]
            if tuple(ring) in seen:
                continue
            seen.add(tuple(ring))
            out.append("include cycle: " + " -> ".join(ring + [ring[0]]))
    for f in sorted(inc):
        if top_dir(f) != "lib":
            continue
        for name, to in inc[f]:
            if top_dir(to) not in LIB_MAY_INCLUDE:
                out.append(f'{f} includes "{name}", which is {to}: lib/ includes only '
                           f'{" and ".join(d + "/" for d in LIB_MAY_INCLUDE)}')
    return out, sum(len(v) for v in edges.values())


def unit_of(path):
    """nkctl/UNIT/file.c -> nkctl/UNIT; lib/x.c -> lib; cni/x.c -> cni."""
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


def matches(top, dirs, exts, skip, pattern):
    """(file, line, match) of pattern in the sources (comments left out)
    of dirs whose names end in exts, but the files skip(file) names."""
    for d in dirs:
        for root, _dirs, files in os.walk(os.path.join(top, d)):
            for f in sorted(files):
                rel = os.path.relpath(os.path.join(root, f), top)
                if not f.endswith(exts) or skip(rel):
                    continue
                text = strip_comments(open(os.path.join(root, f)).read())
                for m in pattern.finditer(text):
                    yield rel, text.count("\n", 0, m.start()) + 1, m


def lease_field_reads(top):
    """Reads of a queue dump's lease attributes outside nkctl/lease/holder.c."""
    return [f"{rel}:{line} reads {m.group(0)}: "
            f"only nkctl/lease/holder.c reads a queue dump's lease attributes"
            for rel, line, m in matches(top, ("nkctl",) + PLUGIN_DIRS, (".c", ".h"),
                                        lambda rel: rel.startswith("nkctl/lease/holder."),
                                        LEASE_FIELDS)]


# Who writes to stderr: one reporter per program. nkctl's and lib's words go
# through lib/err.c (the sink, the -j form); the plugin's through
# cni/report.c; the plugin's forked child says why its exec failed on the
# pipe that is its stderr (cni/spawn.c), the only other.
STDERR_WRITERS = {"lib/err.c", "cni/report.c", "cni/spawn.c"}
STDERR_WRITE = re.compile(r"\b(?:v?fprintf|fputs|fputc|fwrite|perror)\s*\([^;]*\bstderr\b"
                          r"|\bperror\s*\(|\bdprintf\s*\(\s*(?:2|STDERR_FILENO)\b")


def stderr_writes(top):
    """stderr written outside the programs' reporters."""
    return [f"{rel}:{line} writes to stderr: only lib/err.c (nkctl) and cni/report.c "
            f"(the plugin) do"
            for rel, line, _m in matches(top, ("lib", "nkctl") + PLUGIN_DIRS, (".c",),
                                         lambda rel: rel in STDERR_WRITERS, STDERR_WRITE)]


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


def add_once(found, line):
    if line not in found:
        found.append(line)


def main():
    top, objdir = sys.argv[1], sys.argv[2]
    files = sources(top)
    cfiles = [f for f in files if f.endswith(".c")]
    built = built_programs(objdir, cfiles)
    progs = program_files(cfiles, built)
    read = sorted({c for fs in progs.values() for c in fs})
    defs, used = symbols(top, objdir, read)
    defined_by = {prog: defined_in(pfiles, defs) for prog, pfiles in progs.items()}
    found = []

    # Calls, cycles between files and between folders: each program alone.
    units = {}
    for prog, pfiles in progs.items():
        defined = defined_by[prog]
        calls = {}
        for c in pfiles:
            calls[c] = {defined[s] for s in used[c] if s in defined and defined[s] != c}

        for comp in find_cycles(calls):
            ties = []
            for a in comp:
                for b in comp:
                    if b in calls[a]:
                        names = sorted(s for s in used[a] if defined.get(s) == b)
                        ties.append(f"{a} -> {b} ({', '.join(names)})")
            add_once(found, "cycle between files: " + "; ".join(ties))

        punits = {}
        for a, targets in calls.items():
            for b in targets:
                if unit_of(a) != unit_of(b):
                    punits.setdefault(unit_of(a), set()).add(unit_of(b))
                    units.setdefault(unit_of(a), set()).add(unit_of(b))
        for comp in find_cycles(punits):
            ties = []
            for a in comp:
                for b in sorted(punits.get(a, ())):
                    if b in comp:
                        via = sorted(f"{x} -> {y}" for x in calls for y in calls[x]
                                     if unit_of(x) == a and unit_of(y) == b)
                        ties.append(f"{a} -> {b} ({', '.join(via)})")
            add_once(found, "cycle between folders: " + "; ".join(ties))

    inc_found, n_includes = include_findings(top)
    found += inc_found

    # A header declares only its own .c's functions, within its program
    # (lib's headers: in each program).
    for h in (f for f in files if f.endswith(".h")):
        own = h[:-2] + ".c"
        for prog, defined in defined_by.items():
            if top_dir(h) != "lib" and top_dir(h) not in PROGRAMS[prog]:
                continue
            for name in sorted(declared_functions(os.path.join(top, h), set(defined))):
                if defined[name] != own:
                    add_once(found, f"header {h} declares {name}, which {defined[name]} defines "
                                    f"(declare it in {defined[name][:-2]}.h)")

    found += long_files(top)
    found += lease_field_reads(top)
    found += stderr_writes(top)
    found += map_findings(top)

    for f in found:
        print(f)
    if found:
        return 1
    order = sorted(units, key=lambda u: (-len(units[u]), u))
    print(f"{len(read)} files, {len(set(map(unit_of, read)))} folders, "
          f"programs {' and '.join(sorted(progs))}, no cycle of calls; "
          f"{n_includes} includes, no include cycle, none from lib/ above lib/ and include/; "
          f"headers declare their own files' functions; "
          f".c files within {MAX_LINES} lines; "
          f"lease attributes read in nkctl/lease/holder.c only; stderr written by the reporters only; "
          f"the Map names every folder and file")
    for prog in sorted(set(PROGRAMS) - built):
        print(f"  ({prog}: not built, its calls not read)")
    for u in order:
        print(f"  {u} -> {' '.join(sorted(units[u]))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
