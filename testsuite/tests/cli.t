#!/bin/bash
# tier: host
# The command grammar: help everywhere (stdout, exit 0, no netlink), exact
# keyword matching, and one Error: line with a documented exit code.
. "$TESTSUITE/lib.sh"

for words in "help" "help show" "show help" "show kernel help" "show dev lo help" "-h" "--help"; do
	# shellcheck disable=SC2086
	expect_rc 0 "nkctl $words exits 0" $words
	[ -n "$OUT" ] || fail "nkctl $words printed nothing on stdout"
	[ -z "$ERR" ] || fail "nkctl $words wrote to stderr: $ERR"
	expect_match "$OUT" "^Usage:" "nkctl $words prints usage on stdout"
done

if command -v strace >/dev/null 2>&1; then
	# LeakSanitizer cannot run under ptrace.
	# The trace must show strace ran (no ptrace here would leave it empty
	# and prove nothing): nkctl's execve is traced too.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=execve,socket -o "$T_TMP/trace" "$NKCTL" show help > /dev/null ||
		fail "show help under strace exited $?: $(cat "$T_TMP/trace" 2>&1 | head -n 5)"
	grep -q 'execve(' "$T_TMP/trace" || fail "strace traced nothing: $(head -n 5 "$T_TMP/trace" 2>&1)"
	if grep -q 'AF_NETLINK' "$T_TMP/trace"; then
		fail "show help opened a netlink socket"
	fi
	pass "help opens no netlink socket"
fi

expect_rc 0 "-V prints the version" -V
expect_match "$OUT" '^nkctl [0-9]+\.[0-9]+' "version string"
expect_rc 0 "version command" -j version
expect_match "$OUT" '^\{"version":"[0-9.]+","json":[1-9][0-9]*\}$' "version and contract revision in JSON"
version=$(printf '%s' "$OUT" | jq -r .version)
expect_eq "$($NKCTL -V)" "nkctl $version" "-V and version print the same version"
expect_rc 0 "-j -V" -j -V
expect_eq "$OUT" "$($NKCTL -j version)" "-j -V prints the version document"
expect_rc 0 "-V -j (options in any order)" -V -j
expect_eq "$OUT" "$($NKCTL -j version)" "-V -j prints it too"
top=$(cd "$TESTSUITE/.." && pwd)
expect_eq "$version" "$(head -n 1 "$top/debian/changelog" | cut -d ' ' -f 2 | tr -d '()')" \
	"the version is debian/changelog's"

expect_error 1 "no command at all prints usage and fails" 
expect_error 1 "unknown option" --bogus show
expect_error 1 "prefix of an option is not accepted" --jso show
expect_error 1 "unknown object" frobnicate
expect_error 1 "object prefix is not accepted" sh
expect_match "$ERR" 'did you mean "show"\?' "but the closest word is suggested"
expect_error 1 "a misspelt keyword" lease dev x fro y queue 1
expect_match "$ERR" 'did you mean "from"\?' "suggests the keyword"
expect_error 1 "a misspelt option" --jsno show
expect_match "$ERR" 'did you mean "--json"\?' "suggests the option"
expect_error 1 "an option after the object" show -j
expect_match "$ERR" 'options go before the object \(nkctl -j show' "says where options go"
expect_error 1 "show NAME as ip-link has it" show lo
expect_match "$ERR" 'nkctl show dev lo' "names the dev keyword"
expect_error 1 "an over-long value" show dev "$(printf 'x%.0s' $(seq 10000))"
[ "${#ERR}" -lt 300 ] || fail "the 10,000-character name was echoed whole (${#ERR} bytes)"
expect_match "$ERR" '\.\.\.\(10000 characters\)' "the error says how long it was"
expect_rc 0 "single-dash long options of iproute2" -json -pretty version
expect_rc 0 "--batch=FILE" --batch=/dev/null
for obj in "" show link nic steer redirect lease unlease bind-rx bind-tx unbind; do
	# shellcheck disable=SC2086
	for line in $("$NKCTL" $obj help | tr ' ' '_'); do
		[ "${#line}" -le 80 ] || fail "nkctl $obj help: a line over 80 columns: $line"
	done
done
pass "help lines fit 80 columns"
expect_error 1 "unknown show argument" show foo
expect_error 1 "keyword prefix is not accepted" show de lo
expect_error 1 "missing value" show dev
expect_error 1 "duplicate keyword" show dev lo dev lo
expect_error 1 "name over IFNAMSIZ" show dev abcdefghijklmnop
expect_error 1 "name with a slash" show dev a/b
expect_error 1 "empty name" show dev ""
expect_error 1 "-n without a value" -n
expect_error 1 "netns name with a slash that is no namespace" -n /etc/passwd show
expect_error 1 "help with arguments" help me
expect_error 1 "show kernel takes no arguments" show kernel now
nk -j show foo
expect_match "$ERR" 'expected one of: kernel, leases, bindings, dev, interval, count, help' "error lists the valid choices"
nk show de lo
expect_match "$ERR" 'unknown command "de" for "nkctl show"' "error names the command"

need_root
expect_error 3 "nonexistent namespace" -n "nkt-none-$$-$RANDOM" show
expect_error 3 "nonexistent device" show dev nkt-nodev0
# -j: the error is one JSON object (done_testing checks it against the
# schema's error_report), its message the text form's words
expect_eq "$ERR_JSON" '{"error":{"message":"device \"nkt-nodev0\" does not exist","exit":3}}' \
	"-j: the error as a JSON object"
expect_rc 3 "the same without -j" show dev nkt-nodev0
expect_eq "$ERR" 'Error: device "nkt-nodev0" does not exist' "without -j: the Error: line of the same words"
done_testing
