#!/bin/bash
# tier: host
# The house keeps its shape (doc/hacking.md, "Map"), read from the objects
# of the build under test (nm) and the sources by helpers/structure.py: no
# cycle between files, none between nkctl's unit folders, every header
# declares only its own file's functions, no .c file of nkctl/ or the CNI
# plugin over 800 lines, and doc/hacking.md's Map names every folder and
# file, and only nkctl/lease/holder.c reads a queue dump's lease attributes. Then
# the check itself must be able to fail: a copy of the tree with
# a header declaring another file's function, a long file, a file the Map
# does not name and a row for a folder that is gone, a command reading a
# queue's lease itself, each refused.
. "$TESTSUITE/lib.sh"
need_cmd nm python3
BIN=${NKCTL_REAL:-$NKCTL}
OBJ=$(dirname "$BIN")/obj
[ -d "$OBJ/nkctl" ] || skip "no objects beside $BIN"
top=$(cd "$TESTSUITE/.." && pwd)
OUT=$(python3 "$TESTSUITE/helpers/structure.py" "$top" "$OBJ" 2>&1) || fail "the shape: $OUT"
echo "$OUT" | sed 's/^/# /'
pass "no cycle between files or folders, headers declare their own files' functions, files small, the Map true"

# A header that declares another file's function is found.
mkdir -p "$T_TMP/doc"
cp -r "$top/lib" "$top/nkctl" "$T_TMP/"
cp "$top/doc/hacking.md" "$T_TMP/doc/"
printf 'int nk_links_here(void);\n' >> "$T_TMP/nkctl/core/ctx.h"
OUT=$(python3 "$TESTSUITE/helpers/structure.py" "$T_TMP" "$OBJ" 2>&1) && fail "a foreign declaration passed"
expect_match "$OUT" "header nkctl/core/ctx.h declares nk_links_here, which nkctl/core/lookup.c defines" \
	"a header declaring another file's function is refused"
# A file over the limit is found, in any folder.
cp "$top/nkctl/core/ctx.h" "$T_TMP/nkctl/core/ctx.h"
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
done_testing
