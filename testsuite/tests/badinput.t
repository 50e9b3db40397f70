#!/bin/bash
# tier: host
# timeout: 1200
# The bad input matrix (badinput.cases): each invalid invocation exits with
# its documented code, prints exactly one Error: line and nothing on stdout
# in JSON mode, does not crash, and changes nothing (show, show leases and
# redirect show are the same before and after).
. "$TESTSUITE/lib.sh"
need_root
ns_new NS
NONS="nkt-none-$$-$RANDOM"
ip -n "$NS" link add vA type veth peer name vB || fail "veth"
ip -n "$NS" link add d0 type dummy 2>/dev/null || ip -n "$NS" link add d0 type veth peer name d1
ip -n "$NS" link set vA up
ip -n "$NS" link set vB up

state() {
	"$NKCTL" -n "$NS" -j show | jq -S -c '[.devices[] | del(.operstate, .flags)]'
	"$NKCTL" -n "$NS" -j show leases
	"$NKCTL" -n "$NS" -j redirect show
}
# Under valgrind (about 0.7 s a run) only every sixth usage error (exit 1:
# nkctl's parser alone) and every second other error runs under it, the
# others with the binary itself, so every case's code and message are still
# checked; the sanitizer pass checks every case's memory.
plain_usage() {
	[ "${NKCTL_MEMCHECK:-}" = valgrind ] || return 1
	if [ "$1" = 1 ]; then [ $((n % 6)) != 0 ]; else [ $((n % 2)) != 0 ]; fi
}
before=$(state)
n=0
while IFS=$'\t' read -r code words; do
	case "$code" in ''|'#'*) continue ;; esac
	# A case without "-n" runs inside NS; quoted words keep their spaces.
	eval "set -- $words"
	case " $words " in *" -n "*|*" --netns"*|*" -batch "*|*" -b "*) args=("$@") ;; *) args=(-n "$NS" "$@") ;; esac
	[ "$words" = "" ] && args=()
	if plain_usage "$code"; then
		NKCTL=$NKCTL_REAL expect_error "$code" "nkctl $words" "${args[@]}"
	else
		expect_error "$code" "nkctl $words" "${args[@]}"
	fi
	case "$ERR" in *Sanitizer*|*"runtime error"*|*"Segmentation"*) fail "crash: nkctl $words: $ERR" ;; esac
	n=$((n + 1))
done < "$TESTSUITE/tests/badinput.cases"
[ "$n" -ge 150 ] || fail "only $n cases"
pass "$n invalid invocations"
expect_eq "$(state)" "$before" "nothing changed"
done_testing
