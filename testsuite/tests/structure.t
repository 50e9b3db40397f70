#!/bin/bash
# tier: host
# The house keeps its shape (doc/hacking.md, "Map"), read from the objects
# of the build under test (nm) and the sources by helpers/structure.py: no
# cycle between files, none between nkctl's unit folders, every header
# declares only its own file's functions, no command file (nkctl/cli/) over
# 800 lines. Then the check itself must be able to fail: a copy of the tree
# with a header declaring another file's function, and a call back up from
# a unit to the command-line layer, is refused.
. "$TESTSUITE/lib.sh"
need_cmd nm python3
BIN=${NKCTL_REAL:-$NKCTL}
OBJ=$(dirname "$BIN")/obj
[ -d "$OBJ/nkctl" ] || skip "no objects beside $BIN"
top=$(cd "$TESTSUITE/.." && pwd)
OUT=$(python3 "$TESTSUITE/helpers/structure.py" "$top" "$OBJ" 2>&1) || fail "the shape: $OUT"
echo "$OUT" | sed 's/^/# /'
pass "no cycle between files or folders, headers declare their own files' functions, command files small"

# A header that declares another file's function is found.
cp -r "$top/lib" "$top/nkctl" "$T_TMP/"
printf 'int nk_links_here(void);\n' >> "$T_TMP/nkctl/core/ctx.h"
OUT=$(python3 "$TESTSUITE/helpers/structure.py" "$T_TMP" "$OBJ" 2>&1) && fail "a foreign declaration passed"
expect_match "$OUT" "header nkctl/core/ctx.h declares nk_links_here, which nkctl/core/lookup.c defines" \
	"a header declaring another file's function is refused"
# A command file over the limit is found.
cp "$top/nkctl/core/ctx.h" "$T_TMP/nkctl/core/ctx.h"
for _ in $(seq 900); do echo; done >> "$T_TMP/nkctl/cli/show.c"
OUT=$(python3 "$TESTSUITE/helpers/structure.py" "$T_TMP" "$OBJ" 2>&1) && fail "a long command file passed"
expect_match "$OUT" "command file nkctl/cli/show.c has [0-9]+ lines" "a command file over 800 lines is refused"
done_testing
