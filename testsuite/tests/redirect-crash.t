#!/bin/bash
# tier: host
# timeout: 1500
# Crash order of the route tables (issue 23): redirect attach (a table's
# first route, a changed set, a replace) and detach are killed with SIGKILL at
# every bpf(2) call (every third for a table's first route, whose program
# load makes libbpf's many probing calls), every unlink and rmdir in turn
# (strace's fault injection); each of the three kinds must have been a kill
# point at least once per cycle. After each kill, show is truthful (its routes are the trie
# entries whose owner has a record listing them, its orphans the others: read
# from the maps with bpftool by helpers/routecheck.py), and one command heals:
# the same attach, a detach, or prune. After healing no prefix is routed to a
# target without a record.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq strace bpftool

ns_new HOST
ip -n "$HOST" link add vN type veth peer name vR || fail "veth NIC"
ip -n "$HOST" link set vN up
for i in 1 2; do ip -n "$HOST" link add "h$i" type veth peer name "q$i" || fail "veth pod $i"; done
DIR=$(ns_pindir "$HOST")/dev$(ifindex_of "$HOST" vN)
nkh() { nk -n "$HOST" "$@"; }
ok() { nk "$@"; [ "$RC" = 0 ]; }

# check [healed]: show against the maps.
check() {
	nkh -j redirect show dev vN
	printf '%s' "$OUT" > "$T_TMP/show.json"
	$PY "$TESTSUITE/helpers/routecheck.py" "$DIR" tcx-ingress "$T_TMP/show.json" "$@"
}
routes_of() { # routes_of TARGET: its prefixes on vN, sorted, as the last check's show listed them
	jq -c --arg t "$1" '[.redirects[].routes[] | select(.target.ifname==$t) | .prefixes[]] | sort' "$T_TMP/show.json"
}

# killed SYSCALL N ARGS...: nkctl ARGS under strace, SIGKILL at the Nth SYSCALL.
# Under make check-valgrind $NKCTL is a wrapper whose valgrind and rm make
# syscalls of their own: the killed command is the binary itself there. The
# plain build tries every kill point; the memory-checking passes are there for
# memory behaviour, which the checks and heals around each point show alike:
# they try every STRIDEth point (10th with the sanitizers, 80th under
# valgrind, where each costs about 9 s; a full pass would take most of CI's
# time). The sanitizer build's leak check needs ptrace, which strace holds: it
# is off for the killed command, else no run would ever complete.
case "${NKCTL_MEMCHECK:-}" in
sanitizers) STRIDE=10 ;;
valgrind) STRIDE=80 ;;
*) STRIDE=1 ;;
esac
killed() {
	local sc=$1 n=$2
	shift 2
	{ (strace -f -qq -o /dev/null -e trace="$sc" -e inject="$sc":signal=KILL:when="$n" \
		env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		"${NKCTL_REAL:-$NKCTL}" "$@" > /dev/null 2>&1); KRC=$?; } 2> /dev/null
}

# cycle NAME SETUP CMD HEAL WANT [STEP]: for each syscall and N until CMD
# completes: SETUP, CMD killed at N, show truthful, HEAL, show truthful
# without orphans, WANT (a check of the healed state). STEP: every STEPth
# bpf call only (a table's first route loads the program: libbpf's probes).
# NONE: the syscalls CMD does not make (space-separated); any other it never
# made (no kill at any N) fails: it tested nothing.
cycle() {
	local name=$1 setup=$2 cmd=$3 heal=$4 want=$5 none=" ${7:-} " sc n kills=0 orphans=0 got class_kills
	for sc in bpf unlink rmdir; do
		class_kills=0
		for n in $(kill_points "$(($([ "$sc" = bpf ] && echo "${6:-1}" || echo 1) * STRIDE))" 300); do
			eval "$setup" || fail "$name: setup before $sc #$n failed (exit status $RC): $ERR"
			# shellcheck disable=SC2086
			killed "$sc" "$n" $cmd
			# killed (137) or done (0): any other exit is the command failing
			case $KRC in
			0) ;;
			137) kills=$((kills + 1)) class_kills=$((class_kills + 1)) ;;
			*) fail "$name: exited $KRC at $sc #$n without being killed" ;;
			esac
			got=$(check) || fail "$name: killed at $sc #$n: show is not truthful: $got"
			case "$got" in *" 0 orphans") ;; *) orphans=$((orphans + 1)) ;; esac
			eval "$heal" || fail "$name: healing after $sc #$n failed: $ERR"
			got=$(check healed) || fail "$name: killed at $sc #$n, healed: $got"
			eval "$want" || fail "$name: killed at $sc #$n: not the state wanted after healing"
			[ "$KRC" = 0 ] && break
		done
		[ "$KRC" = 0 ] || fail "$name: never completed within 300 ${sc} calls"
		case "$none" in
		*" $sc "*) [ "$class_kills" = 0 ] || fail "$name: killed at $class_kills $sc calls, but said to make none" ;;
		*) [ "$class_kills" -gt 0 ] || fail "$name: never killed at a $sc call (the command made none: that kind tested nothing)" ;;
		esac
	done
	pass "$name: killed at $kills points (share ${NKCTL_KILL_SHARE:-1}, seed ${NKCTL_KILL_SEED:-0}; orphans seen after $orphans), truthful and healed every time"
}

A="-n $HOST redirect attach dev vN to h2 prefix 10.20.2.0/24 prefix 10.21.0.0/16 prefix fd20:2::/64"
WANT2='["10.20.2.0/24","10.21.0.0/16","fd20:2::/64"]'
first() { ok -n "$HOST" -force redirect detach dev vN; }
others() { # pod 1's route and pod 2's old set
	ok -n "$HOST" redirect attach dev vN to h1 prefix 10.20.1.0/24 &&
		ok -n "$HOST" redirect attach dev vN to h2 prefix 10.20.2.0/25 prefix fd20:2::/64 prefix 10.22.0.0/16
}
h1_kept() { [ "$(routes_of h1)" = '["10.20.1.0/24"]' ]; }

# prune cannot know what a killed attach wanted: what is left is a part of
# the old and the new set.
OLD2='["10.20.2.0/25","fd20:2::/64","10.22.0.0/16"]'
part_of_want() { jq -e --argjson w "$(jq -nc --argjson a "$WANT2" --argjson b "$OLD2" '$a + $b')" \
	'[.redirects[].routes[] | select(.target.ifname=="h2") | .prefixes[]] | all(.[]; IN($w[]))' "$T_TMP/show.json" > /dev/null; }
cycle "a table's first route" first "$A" 'ok $A' '[ "$(routes_of h2)" = "$WANT2" ]' 3
# A changed set and a replace rewrite the maps in place: no unlink.
cycle "a changed set beside another pod" "first && others" "$A" 'ok $A' \
	'[ "$(routes_of h2)" = "$WANT2" ] && h1_kept' 1 unlink
cycle "a changed set, healed by prune" "first && others" "$A" 'ok -n "$HOST" redirect prune' \
	'part_of_want && h1_kept' 1 unlink
cycle "replace" "first && others" "-n $HOST redirect attach dev vN to h2 prefix 10.20.1.0/24 replace" \
	'ok -n "$HOST" redirect attach dev vN to h2 prefix 10.20.1.0/24 replace' \
	'[ "$(routes_of h2)" = "[\"10.20.1.0/24\"]" ] && [ "$(routes_of h1)" = "[]" ]' 1 unlink
cycle "detach" "first && others" "-n $HOST redirect detach dev vN to h2" \
	'ok -n "$HOST" -force redirect detach dev vN to h2' '[ "$(routes_of h2)" = "[]" ] && h1_kept'
cycle "the last route's detach" "first && ok $A" "-n $HOST redirect detach dev vN to h2" \
	'ok -n "$HOST" -force redirect detach dev vN to h2' \
	'[ ! -e "$DIR/tcx-ingress" ] && [ ! -e "$DIR" ]'

# Orphans as an older nkctl, or a writer killed outside the crash order,
# would leave them: a trie entry to ifindex 999 without a record, and the
# table's mark of a change in progress (written with bpftool). show lists the
# orphan; the next attach of another pod sweeps it; prune does without mark.
orphan() { # orphan MARK: 10.77.0.0/16 -> ifindex 999 in the trie; MARK 1: set the mark
	bpftool map update pinned "$DIR/tcx-ingress-v4" key hex 10 00 00 00 0a 4d 00 00 \
		value hex e7 03 00 00 10 00 00 00 || return 1
	[ "$1" = 1 ] || return 0
	# shellcheck disable=SC2046
	bpftool map update pinned "$DIR/tcx-ingress-info" key hex 00 00 00 00 value hex $(bpftool -j map lookup \
		pinned "$DIR/tcx-ingress-info" key hex 00 00 00 00 | jq -r '.value | .[28] = "0x01" | map(.[2:]) | join(" ")')
}
first && others && orphan 1 || fail "an orphan"
got=$(check) || fail "show with an orphan: $got"
expect_eq "$(jq -c '[.redirects[].orphans[]]' "$T_TMP/show.json")" '[{"prefix":"10.77.0.0/16","ifindex":999}]' "show lists the orphan"
expect_match "$(nkh redirect show dev vN; echo "$OUT")" 'ORPHAN prefix 10.77.0.0/16 to ifindex 999' "show's text names it"
ok -n "$HOST" redirect attach dev vN to h1 prefix 10.20.1.0/24 prefix 10.31.0.0/16 || fail "another pod's attach: $ERR"
got=$(check healed) || fail "another pod's attach did not sweep: $got"
pass "another pod's attach sweeps the orphan ($got)"
# A test beside this one may run a prune of every namespace (redirect-routes,
# redirect-identity) between the orphan's planting and this prune and take it
# first: plant it again then, a few times at most.
for try in 1 2 3; do
	orphan 0 || fail "an orphan without mark"
	expect_rc 0 "prune" -n "$HOST" -j redirect prune
	pruned=$(printf '%s' "$OUT" | jq -c '[.pruned[].orphans[]]')
	[ "$pruned" = '[]' ] || break
	got=$(check healed) || fail "the orphan neither pruned here nor gone: $got"
done
expect_eq "$pruned" '[{"prefix":"10.77.0.0/16","ifindex":999}]' "prune removes it and says so"
got=$(check healed) || fail "after prune: $got"
pass "healed by prune ($got)"
done_testing
