#!/bin/bash
# tier: host
# timeout: 900
# The pin lock (issue 23): 16 writers, each attaching and detaching its own
# pod's routes 100 times on a NIC that has no other route, so the table
# empties (its program and directory go) and is made again all the time.
# No error but the documented busy (exit 4); in the end each pod has exactly
# the routes of its last successful call, and the maps (read with bpftool)
# hold exactly those, every one with its record.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq bpftool

# Under make check-valgrind each run costs about a second of CPU and under
# the sanitizers a third of that: 16 x 100 rounds would take most of CI's
# time there; 16 x 8 (valgrind) or 16 x 25 (sanitizers) still empty and
# refill the table many times.
case "${NKCTL_MEMCHECK:-}" in
sanitizers) R=25 ;;
valgrind) R=8 ;;
*) R=100 ;;
esac
W=16 R=${NK_WRITER_ROUNDS:-$R}
ns_new HOST
ip -n "$HOST" link add vN type veth peer name vR || fail "veth NIC"
ip -n "$HOST" link set vN up
for k in $(seq $W); do ip -n "$HOST" link add "w$k" type veth peer name "x$k" || fail "veth $k"; done
DIR=$(ns_pindir "$HOST")/dev$(ifindex_of "$HOST" vN)

# writer K: its rounds; writes the routes of its last successful call to
# $T_TMP/last.K as a sorted JSON list. Odd writers end on an attach.
writer() {
	local k=$1 r rc last='[]' p4 p6 err
	for ((r = 1; r <= R; r++)); do
		p4="10.$((100 + k)).$((r % 250)).0/24" p6="fd99:$k:$r::/64"
		err=$("$NKCTL" -n "$HOST" redirect attach dev vN to "w$k" prefix "$p4" prefix "$p6" 2>&1 >/dev/null)
		rc=$?
		case $rc in
		0) last="[\"$p4\",\"$p6\"]" ;; # sorted: a digit sorts before f
		4) ;;
		*) echo "w$k round $r attach: exit $rc: $err"; return 1 ;;
		esac
		((r == R && k % 2)) && break
		err=$("$NKCTL" -n "$HOST" redirect detach dev vN to "w$k" 2>&1 >/dev/null)
		rc=$?
		case $rc in
		0) last='[]' ;;
		4) ;;
		*) echo "w$k round $r detach: exit $rc: $err"; return 1 ;;
		esac
	done
	echo "$last" > "$T_TMP/last.$k"
}

t0=$(date +%s)
pids=()
for k in $(seq $W); do
	writer "$k" > "$T_TMP/writer.$k" 2>&1 &
	pids+=($!)
done
bad=0
for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
expect_eq "$bad" 0 "$W writers x $R rounds in $(($(date +%s) - t0)) s: no error but busy $(cat "$T_TMP"/writer.*)"

nk -n "$HOST" -j redirect show dev vN
printf '%s' "$OUT" > "$T_TMP/show.json"
for k in $(seq $W); do
	got=$(jq -c --arg t "w$k" '[.redirects[].routes[] | select(.target.ifname==$t) | .prefixes[]] | sort' "$T_TMP/show.json")
	[ "$got" = "$(cat "$T_TMP/last.$k")" ] || fail "w$k: routes $got, its last successful call set $(cat "$T_TMP/last.$k")"
done
pass "each pod has exactly the routes of its last successful call"
got=$($PY "$TESTSUITE/helpers/routecheck.py" "$DIR" tcx-ingress "$T_TMP/show.json" healed) ||
	fail "the maps disagree with show: $got"
expect_eq "$got" "$((W / 2 * 2)) routes, 0 orphans" "the tries hold exactly those routes, each with its record (bpftool)"

# The table empties once more: program, pins and directory go.
for k in $(seq 1 2 $W); do
	expect_rc 0 "detach w$k" -n "$HOST" redirect detach dev vN to "w$k"
done
[ -e "$DIR" ] && fail "the NIC's pin directory is left: $(ls "$DIR")"
pass "the last detach removed the NIC's pins and directory"

# Identity: a device that gets a gone target's ifindex is not that target.
expect_rc 0 "w1 routed" -n "$HOST" redirect attach dev vN to w1 prefix 10.99.1.0/24
old=$(ifindex_of "$HOST" w1)
ip -n "$HOST" link del w1
ip -n "$HOST" link add w1 index "$old" type veth peer name y1 index 4001 || fail "a new w1 at ifindex $old"
nk -n "$HOST" -j redirect show dev vN
expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[].routes[] | [.target.ifindex, .target.ifname, .defunct]]')" \
	"[[$old,\"w1\",true]]" "the same name at the same ifindex, another device: defunct"
ip -n "$HOST" link del w1
ip -n "$HOST" link add z9 index "$old" type veth peer name y9 index 4009 || fail "z9 at ifindex $old"
nk -n "$HOST" -j redirect show dev vN
expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[].routes[] | .defunct]')" '[true]' "another name at that ifindex: defunct"
expect_error 3 "detach to the new device finds nothing of it" -n "$HOST" redirect detach dev vN to z9
expect_rc 0 "the new device's own attach" -n "$HOST" -j redirect attach dev vN to z9 prefix 10.99.9.0/24
nk -n "$HOST" -j redirect show dev vN
expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[].routes[] | [.target.ifname, .prefixes, .defunct]]')" \
	'[["z9",["10.99.9.0/24"],false]]' "the dead target's routes went; the new device has its own"
expect_rc 0 "prune -n" -n "$HOST" -j redirect prune
expect_eq "$OUT" '{"pruned":[],"old-pins":[],"xsk-pruned":[]}' "prune -n: nothing dead left in this namespace"
done_testing
