#!/bin/bash
# tier: host
# The house keeps its shape (doc/hacking.md, "Map"), read from the objects
# of the build under test (nm) and the sources by helpers/structure.py: no
# cycle of calls between files, none between folders (nkctl's units, lib,
# the CNI plugin's cni/; each program, nkctl and the plugin, read alone), no
# include cycle between files, no include from lib/ up into nkctl/ or cni/,
# every header declares only its own file's functions (cni/'s too),
# no .c file of nkctl/ or the CNI plugin over 800 lines, and doc/hacking.md's
# Map names every folder and file, only nkctl/lease/holder.c reads a queue
# dump's lease attributes, and only the reporters (lib/err.c, cni/report.c)
# write to stderr. Then the check itself must be able to fail:
# a copy of the tree with a header declaring another file's function (one
# of nkctl's, one of the plugin's and its shared cni/cni.h), a long file, a
# file the Map does not name and a row for a folder that is gone, a
# command reading a queue's lease itself, two headers including each other,
# a file of lib/ including one of nkctl's, a command and a plugin file
# writing to stderr themselves, each refused.
. "$TESTSUITE/lib.sh"
need_cmd nm python3
BIN=${NKCTL_REAL:-$NKCTL}
OBJ=$(dirname "$BIN")/obj
[ -d "$OBJ/nkctl" ] || skip "no objects beside $BIN"
top=$(cd "$TESTSUITE/.." && pwd)
OUT=$(python3 "$TESTSUITE/helpers/structure.py" "$top" "$OBJ" 2>&1) || fail "the shape: $OUT"
echo "$OUT" | sed 's/^/# /'
pass "no cycle of calls between files or folders, no include cycle, lib/ includes nothing above it, headers declare their own files' functions, files small, the Map true"

# A header that declares another file's function is found.
mkdir -p "$T_TMP/doc"
cp -r "$top/include" "$top/lib" "$top/nkctl" "$top/cni" "$top/bpf" "$T_TMP/"
cp "$top/doc/hacking.md" "$T_TMP/doc/"
printf 'int nk_links_here(void);\n' >> "$T_TMP/nkctl/core/ctx.h"
OUT=$(python3 "$TESTSUITE/helpers/structure.py" "$T_TMP" "$OBJ" 2>&1) && fail "a foreign declaration passed"
expect_match "$OUT" "header nkctl/core/ctx.h declares nk_links_here, which nkctl/core/lookup.c defines" \
	"a header declaring another file's function is refused"
cp "$top/nkctl/core/ctx.h" "$T_TMP/nkctl/core/ctx.h"
# So is one of the plugin's, cni/cni.h (no cni.c) included.
printf 'int cni_setup(struct plugin *p, const char *text);\n' >> "$T_TMP/cni/lock.h"
printf 'int cmd_gc(struct plugin *p);\n' >> "$T_TMP/cni/cni.h"
OUT=$(python3 "$TESTSUITE/helpers/structure.py" "$T_TMP" "$OBJ" 2>&1) && fail "a foreign declaration in cni/ passed"
expect_match "$OUT" "header cni/lock.h declares cni_setup, which cni/conf.c defines" \
	"a header of the plugin declaring another file's function is refused"
expect_match "$OUT" "header cni/cni.h declares cmd_gc, which cni/gc.c defines" \
	"the plugin's shared header declaring a function is refused"
cp "$top/cni/lock.h" "$top/cni/cni.h" "$T_TMP/cni/"
# A file over the limit is found, in any folder.
for _ in $(seq 900); do echo; done >> "$T_TMP/nkctl/lease/scan.c"
OUT=$(python3 "$TESTSUITE/helpers/structure.py" "$T_TMP" "$OBJ" 2>&1) && fail "a long file passed"
expect_match "$OUT" "file nkctl/lease/scan.c has [0-9]+ lines" "a file over 800 lines is refused"
cp "$top/nkctl/lease/scan.c" "$T_TMP/nkctl/lease/scan.c"
# The Map follows the tree: a file it does not name, a folder that is gone.
sed -i "s/\`look\.c\`//g" "$T_TMP/doc/hacking.md"
printf '| `nkctl/fate/` | gone |\n' >> "$T_TMP/doc/hacking.md"
OUT=$(python3 "$TESTSUITE/helpers/structure.py" "$T_TMP" "$OBJ" 2>&1) && fail "a stale Map passed"
expect_match "$OUT" "Map row nkctl/lease/ does not name look.c" "a file the Map does not name is refused"
expect_match "$OUT" "Map has a row for nkctl/fate/, which does not exist" "a Map row of a folder that is gone is refused"
cp "$top/doc/hacking.md" "$T_TMP/doc/"
# A command that reads a queue dump's lease attributes itself is found.
printf 'static int peek(const struct nk_queue *q) { return q->lease_ifindex; }\n' >> "$T_TMP/nkctl/cli/bind.c"
OUT=$(python3 "$TESTSUITE/helpers/structure.py" "$T_TMP" "$OBJ" 2>&1) && fail "a lease read outside the lease unit passed"
expect_match "$OUT" "nkctl/cli/bind.c:[0-9]+ reads ->lease_ifindex: only nkctl/lease/" "a lease attribute read outside nkctl/lease/ is refused"
cp "$top/nkctl/cli/bind.c" "$T_TMP/nkctl/cli/bind.c"
# Two headers that include each other are found (both ways written here: the
# cycle does not hang on look.h's own include of fate.h).
printf '#include "lease/look.h"\n' >> "$T_TMP/nkctl/lease/fate.h"
printf '#include "lease/fate.h"\n' >> "$T_TMP/nkctl/lease/look.h"
OUT=$(python3 "$TESTSUITE/helpers/structure.py" "$T_TMP" "$OBJ" 2>&1) && fail "an include cycle passed"
expect_match "$OUT" "include cycle: nkctl/lease/fate\.h -> nkctl/lease/look\.h -> nkctl/lease/fate\.h" \
	"an include cycle between two headers is refused"
cp "$top/nkctl/lease/fate.h" "$top/nkctl/lease/look.h" "$T_TMP/nkctl/lease/"
# A file of lib/ that includes one of nkctl's (found by the include path,
# -Inkctl) is found.
printf '#include "lease/fate.h"\n' >> "$T_TMP/lib/nl.c"
OUT=$(python3 "$TESTSUITE/helpers/structure.py" "$T_TMP" "$OBJ" 2>&1) && fail "lib/ including nkctl/ passed"
expect_match "$OUT" "lib/nl\.c includes \"lease/fate\.h\", which is nkctl/lease/fate\.h: lib/ includes only lib/ and include/" \
	"a file of lib/ including one of nkctl's is refused"
cp "$top/lib/nl.c" "$T_TMP/lib/nl.c"
# stderr written around the reporters is found, in nkctl and in the plugin.
printf 'static void say(void) { fprintf(stderr, "hi\\n"); }\n' >> "$T_TMP/nkctl/cli/bind.c"
printf 'static void say(void) { fputs("hi", stderr); }\n' >> "$T_TMP/cni/gc.c"
OUT=$(python3 "$TESTSUITE/helpers/structure.py" "$T_TMP" "$OBJ" 2>&1) && fail "a write to stderr passed"
expect_match "$OUT" "nkctl/cli/bind\.c:[0-9]+ writes to stderr: only lib/err\.c" "nkctl writing to stderr itself is refused"
expect_match "$OUT" "cni/gc\.c:[0-9]+ writes to stderr" "the plugin writing to stderr around report.c is refused"
done_testing
