#!/bin/bash
# tier: host
# The runner's verdicts mean what they say: a test that checked nothing, or
# left with exit 0 before its end, fails; a part a test skipped is counted as
# a skip, and under strict skips (CI) as a failure unless skips-allowed names
# it; a whole skip likewise. Runs testsuite/run on small made-up tests.
. "$TESTSUITE/lib.sh"

mk() { # mk NAME BODY: a made-up host test in $T_TMP
	printf '#!/bin/bash\n# tier: host\n. "$TESTSUITE/lib.sh"\n%s\n' "$2" > "$T_TMP/$1.t"
}
mk zero 'done_testing'
mk early 'pass first
exit 0
pass second
done_testing'
mk part 'pass first
skip_part thing "no thing here"
done_testing'
mk whole 'skip "not here"'
mk good 'pass first
done_testing'

# run_on STRICT TEST...: the runner's output in OUT, its status in RC
run_on() {
	local strict=$1
	shift
	OUT=$(cd "$T_TMP" && NKCTL_RESULTS=$T_TMP/results NKCTL_STRICT_SKIPS=$strict "$TESTSUITE/run" --tier host "$@" 2>&1)
	RC=$?
}

run_on 0 "$T_TMP/zero.t"
expect_match "$OUT" 'FAIL zero \[host\]' "a test that made no check fails"
expect_match "$OUT" 'the test made no check' "and says why"
expect_eq "$RC" 1 "the run's status says it"

run_on 0 "$T_TMP/early.t"
expect_match "$OUT" 'FAIL early \[host\]' "exit 0 before done_testing fails"
expect_match "$OUT" 'exited 0 before done_testing' "and says why"

run_on 0 "$T_TMP/part.t" "$T_TMP/good.t"
expect_match "$OUT" 'ok   part \[host\]' "a test that skipped a part passes what it ran"
expect_match "$OUT" 'SKIP part/thing \[host\]: no thing here' "the skipped part is counted, with its reason"
expect_eq "$(printf '%s\n' "$OUT" | tail -n 1)" '2 passed, 0 failed, 1 skipped' "the last line counts it"

run_on 1 "$T_TMP/part.t"
expect_match "$OUT" 'FAIL part/thing \[host\]: skipped, and not in testsuite/skips-allowed' \
	"under strict skips an unlisted part fails"
expect_eq "$RC" 1 "and the run fails"
run_on 1 "$T_TMP/whole.t"
expect_match "$OUT" 'FAIL whole \[host\]: skipped, and not in testsuite/skips-allowed: not here' \
	"under strict skips an unlisted whole skip fails"

run_on 1 "$T_TMP/good.t"
expect_eq "$(printf '%s\n' "$OUT" | tail -n 1)" '1 passed, 0 failed, 0 skipped' "a test that checked something passes"
expect_eq "$RC" 0 "and the run passes"
# A limit catches a hang, not a slow day: every test's limit (its header's
# or the default, tripled in the VM) is at least three times what the
# costs file records for it, so that a machine half as fast (a CPU hog
# beside it, a slow CI day) still ends it well inside.
short=$(awk '$1 !~ /^#/ && NF == 3 { print $1, $2, $3 }' "$TESTSUITE/costs" | while read -r pass name cost; do
	f=$TESTSUITE/tests/$name.t
	[ -f "$f" ] || continue
	limit=$(sed -n 's/^# timeout: *\([0-9]*\).*/\1/p' "$f" | head -n 1)
	limit=${limit:-180}
	[ "$limit" -lt 180 ] && limit=180
	case $pass in vm*) limit=$((limit * 3)) ;; esac
	[ "$limit" -ge $((3 * cost)) ] || echo "$name ($pass: limit $limit s, cost $cost s)"
done)
expect_eq "$short" "" "every test's limit is at least three times its recorded cost"
done_testing
