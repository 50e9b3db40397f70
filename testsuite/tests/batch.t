#!/bin/bash
# tier: host
# -batch FILE|-: many commands in one process; stops at the first failure
# (naming FILE:LINE) unless -force; exit status non-zero if a line failed.
. "$TESTSUITE/lib.sh"
need_root
ns_new NS
ip -n "$NS" link add vA type veth peer name vB

cat > "$T_TMP/ok.batch" <<'B'
# comments and blank lines are skipped

show dev vA
show dev "vB"
  show kernel
B
expect_rc 0 "a batch of good lines" -n "$NS" -j -batch "$T_TMP/ok.batch"
expect_eq "$(printf '%s\n' "$OUT" | wc -l)" 3 "one JSON document per line"
expect_eq "$(printf '%s\n' "$OUT" | jq -r '.devices[0].ifname // "kernel"' | tr '\n' ' ')" "vA vB kernel " \
	"in order, quotes removed"

cat > "$T_TMP/bad.batch" <<'B'
show dev vA
show dev nope0
show dev vB
B
expect_rc 3 "stops at the first failing line with its exit status" -n "$NS" -j -batch "$T_TMP/bad.batch"
expect_eq "$(printf '%s\n' "$OUT" | sed -n 1p | jq -r '.devices[0].ifname')" vA "lines before it ran"
expect_match "$ERR" "^Error: device \"nope0\" does not exist" "the line's own error"
expect_eq "$(printf '%s\n' "$ERR" | grep -c '^Error:')" 1 "one Error: line for one failure"
expect_eq "$(printf '%s\n' "$ERR_JSON" | jq -c .error)" '{"message":"device \"nope0\" does not exist","exit":3}' \
	"with -j, stderr holds the error object and nothing else (the answer on stdout names FILE:LINE)"

expect_eq "$(printf '%s\n' "$OUT" | sed -n 2p | jq -c .error)" "{\"file\":\"$T_TMP/bad.batch\",\"line\":2,\"status\":3}" \
	"the failed line answers with an error document"
expect_rc 3 "the same without -j" -n "$NS" -batch "$T_TMP/bad.batch"
expect_match "$ERR" "Batch: $T_TMP/bad.batch:2 failed \\(exit status 3\\)" "names FILE:LINE"
expect_rc 3 "-force goes on" -n "$NS" -j -force -batch "$T_TMP/bad.batch"
expect_eq "$(printf '%s\n' "$OUT" | jq -r '.devices[0].ifname // "error \(.error.line)"' | tr '\n' ' ')" \
	"vA error 2 vB " "the lines after it ran too; the Nth document answers the Nth line"
expect_error 1 "a directory is no batch file" -batch "$T_TMP"

expect_rc 0 "from stdin" -n "$NS" -j -batch - < "$T_TMP/ok.batch"
expect_eq "$(printf '%s\n' "$OUT" | wc -l)" 3 "stdin batch"

printf 'show dev "vA\n' > "$T_TMP/quote.batch"
expect_rc 1 "unterminated quote" -batch "$T_TMP/quote.batch"
expect_match "$ERR" "unterminated quote" "says what is wrong"
expect_error 3 "missing batch file" -batch "$T_TMP/none.batch"
expect_error 1 "batch and a command" -batch "$T_TMP/ok.batch" show
printf 'show dev vA help\nfrobnicate\n' > "$T_TMP/usage.batch"
expect_rc 1 "usage errors count" -n "$NS" -batch "$T_TMP/usage.batch"
expect_match "$OUT" "^Usage:" "help works inside a batch"

# A batch of redirect attach/detach: one process, the same pins as separate runs.
topo_pod_host_remote
for i in 1 2 3; do
	echo "redirect attach dev vH to vN"
	echo "redirect attach dev vN to vH prefix 10.10.1.0/24"
	echo "redirect detach dev vH"
	echo "redirect detach dev vN"
done > "$T_TMP/redir.batch"
echo "redirect attach dev vH to vN" >> "$T_TMP/redir.batch"
expect_rc 0 "redirect batch" -n "$HOST" -j -batch "$T_TMP/redir.batch"
expect_eq "$(printf '%s\n' "$OUT" | wc -l)" 13 "13 documents"
nk -n "$HOST" -j redirect show
expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[].ifname]')" '["vH"]' "the state after the last line"
done_testing
