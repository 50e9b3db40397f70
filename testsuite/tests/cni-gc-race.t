#!/bin/bash
# tier: vm
# timeout: 300
# CNI GC on a busy node (issue 39), through libcni for ADD/DEL and the plugin
# itself for GC, host-local IPAM, a 6-queue pool of an 8-queue netdevsim NIC
# (and, first, GC of a network without queues: its host sides deleted by group):
#  - killed ADDs: an ADD killed (with everything it started but host-local)
#    at a random moment while a DEL of it and a GC that does not list it run
#    beside it, rounds of it (rounds: a share in make check-all). The test
#    waits for the whole killed process group, then the runtime's DEL again:
#    nothing of the killed pod is left, and the live pod lost nothing.
#  - GC beside churn: GC of two stale pods while the runtime deletes one of
#    them and adds and deletes other pods, each ADD taking the lowest free
#    queue (one GC or a DEL has just freed): no live or new pod's holder,
#    lease or NIC route is touched, each passes CHECK, the stale ones are
#    gone (rounds).
. "$TESTSUITE/lib.sh"
. "$TESTSUITE/cni.sh"
need_cmd setsid pgrep
ns_new HOST
sim_new SIM "$HOST" 8
ip -n "$HOST" addr add 10.10.3.1/24 dev "$SIM"
conf() { # conf [CNIVERSION]
	jq -cn --arg nic "$SIM" --arg dir "$IPAMDIR" --arg v "${1:-1.0.0}" '{cniVersion: $v,
		name: "race", type: "nkctl-cni", nic: $nic, queues: "1-6",
		ipam: {type: "host-local", dataDir: $dir,
			ranges: [[{subnet: "10.30.0.0/16", gateway: "10.30.0.1"}]]}}'
}
cni_conflist "$T_TMP/nk.conflist" "$(conf)"

# gc_bg OUT ID...: the plugin's GC in HOST in the background, IDs the valid
# attachments (eth0 each); its answer in OUT, its status in OUT.rc.
gc_bg() {
	local out=$1 valid
	shift
	valid=$(printf '%s\n' "$@" | jq -Rc '{containerID: ., ifname: "eth0"}' | jq -sc .)
	(
		echo "$EPOCHREALTIME" > "$out.t0"
		conf 1.1.0 | jq -c --argjson v "$valid" '. + {"cni.dev/valid-attachments": $v}' |
			nsenter --net="/run/netns/$HOST" env CNI_COMMAND=GC CNI_PATH="$T_TMP/bin" \
			NKCTL="$NKCTL" "$PLUGIN" > "$out" 2> "$out.err"
		echo $? > "$out.rc"
		echo "$EPOCHREALTIME" > "$out.t1"
	) &
}

# snap ID POD HOSTSIDE: what the pod has that GC must not touch: its holder
# (name and ifindex in the pod), its leases, the NIC's route to it.
snap() {
	local holder
	holder=$(ip -n "$2" -o link show | grep -o 'nl[0-9a-f]\{10\}' | head -n 1)
	nk -n "$HOST" -j show leases
	printf '%s %s %s\n' "$(ip -n "$2" -o link show "${holder:-none}" 2> /dev/null | cut -d: -f1-2)" \
		"$(printf '%s' "$OUT" | jq -c --arg h "$holder" '[.leases[] | select(.lease.ifname == $h) | .id] | sort')" \
		"$(nk -n "$HOST" -j redirect show dev "$SIM" > /dev/null; printf '%s' "$OUT" |
			jq -c --arg t "$3" '[.redirects[].routes[] | select(.target.ifname == $t) | .prefixes] | sort')"
}
host_of() { printf '%s' "$1" | jq -r '.interfaces[0].name'; }

# expect_whole ID POD HOSTSIDE BEFORE WHEN: the pod's snap as before, CHECK passes.
expect_whole() {
	local now
	now=$(snap "$1" "$2" "$3")
	expect_match "$now" '^[0-9]+: nl[0-9a-f]{10}(@NONE)? \[[1-6]\] \[\[' "$5: pod $1 has its holder, a lease and a NIC route"
	expect_eq "$now" "$4" "$5: pod $1's holder, lease and NIC route untouched"
	cni CHECK "$1" "/run/netns/$2"
	expect_eq "$RC $OUT" "0 " "$5: pod $1 passes CHECK"
}

# expect_only N WHEN: exactly N pods' pairs, leases and reservations left.
expect_only() {
	local n
	expect_eq "$(ip -n "$HOST" -o link show | grep -c 'nk[0-9a-f]\{10\}@')" "$1" "$2: $1 pairs left"
	for _ in $(seq 60); do # a namespace's devices go a little after it
		nk -n "$HOST" -j show leases
		n=$(printf '%s' "$OUT" | jq --arg s "$SIM" '[.leases[] | select(.ifname == $s)] | length')
		[ "$n" = "$1" ] && break
		sleep 0.5
	done
	expect_eq "$n" "$1" "$2: $1 leases left"
	expect_eq "$(reservations)" "$1" "$2: $1 IPAM reservations left"
}

# A network without queues: GC's group delete takes its stale host sides
# (no holder, so link del is all they need); the valid pod stays whole.
conf 1.1.0 | jq -c '.name = "plain" | del(.queues) | .ipam.dataDir += "-plain"' > "$T_TMP/plain.json"
cni_conflist "$T_TMP/plain.conflist" "$(jq -c '.cniVersion = "1.0.0"' "$T_TMP/plain.json")"
ns_new PA
ns_new PB
for p in a b; do
	[ "$p" = a ] && ns=$PA || ns=$PB
	cni ADD "plain$p" "/run/netns/$ns" "$T_TMP/plain.conflist"
	[ "$RC" = 0 ] || fail "ADD plain$p: $OUT $(cat "$T_TMP/cni.err")"
done
OUT=$(jq -c '. + {"cni.dev/valid-attachments": [{containerID: "plaina", ifname: "eth0"}]}' "$T_TMP/plain.json" |
	nsenter --net="/run/netns/$HOST" env CNI_COMMAND=GC CNI_PATH="$T_TMP/bin" NKCTL="$NKCTL" "$PLUGIN" 2> "$T_TMP/gc.err")
expect_eq "$? $OUT" "0 " "GC of a network without queues, one pod of two valid"
expect_eq "$(ip -n "$HOST" -o link show | grep -c 'nk[0-9a-f]\{10\}@')" 1 "its stale pair is gone, the valid one stays"
expect_eq "$(ip -n "$PB" -o link show | grep -vc ': lo:')" 0 "the stale pod is empty"
cni CHECK plaina "/run/netns/$PA" "$T_TMP/plain.conflist"
expect_eq "$RC $OUT" "0 " "the valid pod passes CHECK"
cni DEL plaina "/run/netns/$PA" "$T_TMP/plain.conflist"
expect_eq "$RC" 0 "its DEL"

# The live pod, valid in every GC.
ns_new LIVE
cni ADD live "/run/netns/$LIVE"
[ "$RC" = 0 ] || fail "ADD of the live pod: $OUT $(cat "$T_TMP/cni.err")"
LIVE_HOST=$(host_of "$OUT")
LIVE_SNAP=$(snap live "$LIVE" "$LIVE_HOST")

# How long an ADD takes here.
ns_new K
t0=$EPOCHREALTIME
cni ADD timed "/run/netns/$K"
[ "$RC" = 0 ] || fail "an ADD to time: $OUT $(cat "$T_TMP/cni.err")"
took=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
cni DEL timed "/run/netns/$K"
echo "# an ADD takes $took s here"

# Killed ADDs with DEL and GC beside them.
KR=$(rounds 4)
killed=0
for r in $(seq "$KR"); do
	d1=$(awk -v s="$RANDOM" -v t="$took" 'BEGIN { srand(s); printf "%.2f", 0.05 + rand() * t * 0.45 }')
	d2=$(awk -v s="$RANDOM" -v t="$took" 'BEGIN { srand(s); printf "%.2f", 0.05 + rand() * t * 0.45 }')
	cni_add_killable "kill$r" "/run/netns/$K" "$T_TMP/nk.conflist" "$T_TMP/kill.out"
	pid=$!
	sleep "$d1"
	cni_bg DEL "kill$r" "/run/netns/$K" "$T_TMP/kdel"
	dpid=$!
	gc_bg "$T_TMP/kgc" live
	gpid=$!
	sleep "$d2"
	kill -0 "$pid" 2> /dev/null && killed=$((killed + 1))
	kill_add "$pid"
	# the whole group: a child may finish the syscall it is in after the kill
	for _ in $(seq 300); do
		[ -z "$(pgrep -g "$pid")" ] && break
		sleep 0.1
	done
	[ -z "$(pgrep -g "$pid")" ] || fail "round $r: the killed ADD's group is still there after 30 s"
	wait "$dpid" "$gpid"
	echo "# round $r: killed after $d1 + $d2 s; DEL beside it $(cat "$T_TMP/kdel.rc"), GC $(cat "$T_TMP/kgc.rc") $(cat "$T_TMP/kgc")"
	expect_match "$(cat "$T_TMP/kgc.rc")" '^0$' "round $r: GC beside the killed ADD succeeds"
	cni DEL "kill$r" "/run/netns/$K"
	[ "$RC" = 0 ] || fail "round $r: the runtime's DEL after the killed ADD: $OUT $(cat "$T_TMP/cni.err")"
	expect_eq "$(ip -n "$K" -o link show | grep -vc ': lo:')" 0 "round $r: nothing left in the killed pod"
done
echo "# $killed of $KR ADDs were still running when killed"
expect_only 1 "after $KR killed ADDs"
expect_whole live "$LIVE" "$LIVE_HOST" "$LIVE_SNAP" "after $KR killed ADDs"

# GC beside churn: two stale pods on queues 2-3 (the live pod has 1); GC
# (which lists none of them) runs while the runtime deletes the first of them
# and adds and deletes other pods, each ADD taking the lowest free queue:
# one GC has just freed, or one a DEL has.
GR=$(rounds 2)
for r in $(seq "$GR"); do
	SNS=()
	for i in 1 2; do
		ns_new P
		SNS[$i]=$P
		cni ADD "stale$r$i" "/run/netns/$P"
		[ "$RC" = 0 ] || fail "ADD stale pod $i: $OUT $(cat "$T_TMP/cni.err")"
	done
	CNS=()
	for j in 1 2 3; do ns_new P; CNS[$j]=$P; done
	gc_bg "$T_TMP/cgc" live churn${r}1 churn${r}2 churn${r}3
	gpid=$!
	cni_bg DEL "stale${r}1" "/run/netns/${SNS[1]}" "$T_TMP/sdel"
	dpid=$!
	c0=$EPOCHREALTIME
	for j in 1 2 3; do
		cni ADD "churn$r$j" "/run/netns/${CNS[$j]}"
		[ "$RC" = 0 ] || fail "round $r: ADD churn pod $j beside GC: $OUT $(cat "$T_TMP/cni.err")"
		CHOST=$(host_of "$OUT")
		[ "$j" = 1 ] && continue
		cni DEL "churn$r$((j - 1))" "/run/netns/${CNS[$((j - 1))]}"
		[ "$RC" = 0 ] || fail "round $r: DEL churn pod $((j - 1)) beside GC: $OUT $(cat "$T_TMP/cni.err")"
	done
	c1=$EPOCHREALTIME
	wait "$gpid" "$dpid"
	echo "# round $r: GC $(cat "$T_TMP/cgc.rc") $(cat "$T_TMP/cgc"), stale DEL $(cat "$T_TMP/sdel.rc")"
	# GC ran while the churn did: [GC's start, end] and [churn's start, end] meet.
	both=$(awk -v g0="$(cat "$T_TMP/cgc.t0")" -v g1="$(cat "$T_TMP/cgc.t1")" -v c0="$c0" -v c1="$c1" \
		'BEGIN { a = g0 > c0 ? g0 : c0; b = g1 < c1 ? g1 : c1; printf "%.2f", b - a }')
	awk -v b="$both" 'BEGIN { exit !(b > 0) }' && pass "round $r: GC and the churn overlapped ($both s)" ||
		fail "round $r: GC ran outside the churn (overlap $both s): the round tested nothing"
	expect_eq "$(cat "$T_TMP/cgc.rc") $(cat "$T_TMP/sdel.rc")" "0 0" "round $r: GC and the stale pod's DEL beside churn succeed"
	expect_only 2 "round $r: GC beside churn"
	for i in 1 2; do
		expect_eq "$(ip -n "${SNS[$i]}" -o link show | grep -vc ': lo:')" 0 "round $r: stale pod $i is empty"
	done
	s=$(snap "churn${r}3" "${CNS[3]}" "$CHOST")
	expect_whole "churn${r}3" "${CNS[3]}" "$CHOST" "$s" "round $r"
	expect_whole live "$LIVE" "$LIVE_HOST" "$LIVE_SNAP" "round $r: GC beside churn"
	cni DEL "churn${r}3" "/run/netns/${CNS[3]}"
	[ "$RC" = 0 ] || fail "round $r: DEL of the last churn pod: $OUT $(cat "$T_TMP/cni.err")"
done
cni DEL live "/run/netns/$LIVE"
expect_eq "$RC" 0 "DEL of the live pod"
expect_only 0 "at the end"
done_testing
