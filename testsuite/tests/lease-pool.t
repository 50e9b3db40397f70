#!/bin/bash
# tier: vm
# timeout: 600
# lease ... pool: queues allocated by nkctl under the NIC lock. More takers
# than queues, in parallel: every lease gets a queue nobody else has, the
# others get the busy code, nothing else fails; afterwards no reservation, no
# rule, the same indirection table (read by nlprobe). Then pod X's unlease
# next to pod Y's lease of the queue X held: Y keeps its rule and its queue
# stays out of RSS. Before that, one at a time: nic release refused while a
# lease holds a reserved queue; a lease's rule replaced by another owner's at
# the same location survives the unlease; a lease of 20 queues with reserve
# and steer gives every queue back. (Which NIC a state file belongs to, and
# the per-NIC lock: nic.t.)
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq

ns_new HOST
sim_new SIM "$HOST" 8
idx=$(ifindex_of "$HOST" "$SIM")
need_sim_rss "$HOST" "$SIM"
indir() { $NLPROBE -n "$HOST" rss "$idx" | jq -c .indir; }
kernel_rules() { $NLPROBE -n "$HOST" ntuple "$SIM" | jq -c '[.rules[] | [.["dst-ip"], .action]] | sort'; }
# leased: "QUEUE:HOLDER-IFINDEX" of every leased RX queue, by the kernel
leased() {
	$NLPROBE -n "$HOST" queues "$idx" |
		jq -r '[.[] | select(.type=="rx" and .lease != null) | "\(.id):\(.lease.ifindex)"] | join(" ")'
}
indir_before=$(indir)

# Errors first: nothing changes.
nk -n "$HOST" link add nkz type single rxqueues 3
expect_eq "$RC" 0 "a holder"
expect_error 1 "pool and queue" -n "$HOST" lease dev nkz from "$SIM" pool 2-7 queue 2
expect_error 1 "count without pool" -n "$HOST" lease dev nkz from "$SIM" queue 2 count 1
expect_error 1 "a bad pool" -n "$HOST" lease dev nkz from "$SIM" pool 7-2
expect_rc 0 "pool lease" -n "$HOST" -j lease dev nkz from "$SIM" pool 5,3-4 count 2 reserve
expect_eq "$(printf '%s' "$OUT" | jq -c '[.leases[] | .id]')" '[3,4]' "the lowest two of the pool"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.leases[] | .existed]')" '[false,false]' "new leases"
nk -n "$HOST" link add nky type single rxqueues 4
expect_error 4 "exhausted pool" -n "$HOST" lease dev nky from "$SIM" pool 3-5 count 2
expect_match "$ERR" "pool 3-5 has 1 free queue, 2 asked; held: 3 to \"nkz\", 4 to \"nkz\"" \
	"the error names the pool and its holders"
expect_eq "$(leased)" "3:$(ifindex_of "$HOST" nkz) 4:$(ifindex_of "$HOST" nkz)" "the refusal leased nothing"
expect_rc 0 "unlease" -n "$HOST" unlease dev nkz
expect_eq "$(indir)" "$indir_before" "the table as before (nlprobe)"
nk -n "$HOST" link del nky

# nic release with a live lease: refused, -force or not, nothing changed.
expect_rc 0 "reserve queue 1 by hand" -n "$HOST" nic reserve dev "$SIM" queue 1
nk -n "$HOST" link add nkr type single rxqueues 2
expect_rc 0 "lease with reserve and steer" -n "$HOST" lease dev nkr from "$SIM" queue 3 reserve steer dst 10.9.3.1
indir_leased=$(indir)
expect_error 4 "release of everything while leased" -n "$HOST" nic release dev "$SIM"
expect_match "$ERR" "queue 3 is reserved and leased to \"nkr\".*\\(nkctl -n $HOST unlease dev nkr\\)" \
	"the refusal names the lease and the command that ends it"
expect_error 4 "-force does not override it" -n "$HOST" -force nic release dev "$SIM"
expect_eq "$(indir)" "$indir_leased" "the table is unchanged (nlprobe)"
expect_eq "$(kernel_rules)" '[["10.9.3.1",3]]' "the lease's rule is still there (nlprobe)"
expect_rc 0 "unlease" -n "$HOST" unlease dev nkr
expect_rc 0 "then release" -n "$HOST" nic release dev "$SIM"
expect_eq "$(indir)" "$indir_before" "the table as before (nlprobe)"
expect_rc 0 "-force release of a NIC that does not exist" -n "$HOST" -force -j nic release dev nosuch0
expect_eq "$OUT" '{"nics":[]}' "an empty document"
expect_error 3 "the same without -force" -n "$HOST" nic release dev nosuch0
expect_error 1 "force without a queue list" -n "$HOST" nic release dev "$SIM" force

# A lease's rule taken away behind nkctl's back, another owner's rule put at
# the same location: unlease leaves it alone.
nk -n "$HOST" link add nkt type single rxqueues 2
expect_rc 0 "lease with steer" -n "$HOST" -j lease dev nkt from "$SIM" queue 4 steer dst 10.9.3.2
loc=$(printf '%s' "$OUT" | jq '.leases[0].rules[0].id')
$NLPROBE -n "$HOST" ntuple-del "$SIM" "$loc" > /dev/null || fail "ntuple-del"
$NLPROBE -n "$HOST" ntuple-add "$SIM" ip4 dst-ip 10.9.3.99 action 2 loc "$loc" > /dev/null ||
	fail "another owner's rule at location $loc"
expect_rc 0 "unlease" -n "$HOST" unlease dev nkt
expect_eq "$(kernel_rules)" '[["10.9.3.99",2]]' "the other owner's rule is still there (nlprobe)"
$NLPROBE -n "$HOST" ntuple-del "$SIM" "$loc" > /dev/null
# The same through steer del: the lease's record forgets the rule too.
nk -n "$HOST" link add nkt type single rxqueues 2
expect_rc 0 "lease with steer" -n "$HOST" -j lease dev nkt from "$SIM" queue 4 steer dst 10.9.3.2
loc=$(printf '%s' "$OUT" | jq '.leases[0].rules[0].id')
expect_rc 0 "steer del of the lease's rule" -n "$HOST" steer del dev "$SIM" id "$loc"
$NLPROBE -n "$HOST" ntuple-add "$SIM" ip4 dst-ip 10.9.3.98 action 2 loc "$loc" > /dev/null ||
	fail "another owner's rule at location $loc"
expect_rc 0 "unlease" -n "$HOST" unlease dev nkt
expect_eq "$(kernel_rules)" '[["10.9.3.98",2]]' "the other owner's rule is still there (nlprobe)"
$NLPROBE -n "$HOST" ntuple-del "$SIM" "$loc" > /dev/null
expect_eq "$(indir)" "$indir_before" "the table as before (nlprobe)"

# 20 queues in one lease, with reserve and steer.
sim_new BIG "$HOST" 24
bidx=$(ifindex_of "$HOST" "$BIG")
bindir() { $NLPROBE -n "$HOST" rss "$bidx" | jq -c .indir; }
bindir_before=$(bindir)
nk -n "$HOST" link add nkb type single rxqueues 21
expect_rc 0 "a lease of 20 queues" -n "$HOST" -j lease dev nkb from "$BIG" queue 2-21 reserve steer dst 10.9.5.1
expect_eq "$(printf '%s' "$OUT" | jq '[.leases[] | select(.reserved)] | length')" 20 "all 20 reserved"
expect_eq "$(bindir | jq -c 'unique')" '[0,1,22,23]' "only queues 0, 1, 22, 23 in RSS (nlprobe)"
expect_rc 0 "unlease" -n "$HOST" unlease dev nkb
expect_eq "$(bindir)" "$bindir_before" "every queue back: the table as before (nlprobe)"

# 8 takers, 20 rounds each (rounds), a pool of 6. A taker surely holds its queue from
# the moment its lease returned to the moment its unlease starts
# ($EPOCHREALTIME: no process to start): "got QUEUE FROM TO". No two takers'
# spans of one queue may overlap.
worker() {
	local i=$1 dev=nkp$1 rc id from
	for round in $(seq "$TAKER_ROUNDS"); do
		"$NKCTL" -n "$HOST" link add "$dev" type single rxqueues 2 > /dev/null 2>&1 ||
			{ echo "round $round: link add failed"; continue; }
		"$NKCTL" -n "$HOST" -j lease dev "$dev" from "$SIM" pool 2-7 count 1 \
			steer dst "10.9.1.$i" > "$T_TMP/w$i.out" 2> "$T_TMP/w$i.err"
		rc=$?
		from=$EPOCHREALTIME
		case $rc in
		0) id=$(jq -r '.leases[0].id' "$T_TMP/w$i.out") ;;
		4) echo busy ;;
		*) echo "round $round: rc $rc: $(cat "$T_TMP/w$i.err")" ;;
		esac
		[ "$rc" = 0 ] && echo "got $id $from $EPOCHREALTIME"
		"$NKCTL" -n "$HOST" unlease dev "$dev" > /dev/null 2>&1 ||
			"$NKCTL" -n "$HOST" link del "$dev" > /dev/null 2>&1
	done
}
# Meanwhile, every lease the kernel shows is on a pool queue, one per queue.
sampler() {
	while [ ! -e "$T_TMP/stop" ]; do
		leased
		sleep 0.2
	done
}
TAKER_ROUNDS=$(rounds 20)
sampler > "$T_TMP/samples" &
spid=$!
pids=()
for i in 1 2 3 4 5 6 7 8; do
	worker "$i" > "$T_TMP/w$i.log" &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
touch "$T_TMP/stop"
wait "$spid"
got=$(cat "$T_TMP"/w?.log | grep -c '^got')
busy=$(cat "$T_TMP"/w?.log | grep -c '^busy')
bad=$(cat "$T_TMP"/w?.log | grep -v '^got\|^busy' || true)
echo "# $got leases, $busy busy"
[ -z "$bad" ] || fail "takers failed otherwise: $bad"
pass "$((8 * TAKER_ROUNDS)) takes: $got leases, $busy busy, no other failure"
[ "$got" -gt 0 ] || fail "nobody got a queue"
pass "leases were made"
bad=$(awk '{ for (i = 1; i <= NF; i++) { split($i, a, ":"); if (a[1] < 2 || a[1] > 7) print "outside: " $0 } }' "$T_TMP/samples")
[ -z "$bad" ] || fail "a lease outside the pool: $bad"
pass "every lease seen was on a pool queue ($(wc -l < "$T_TMP/samples") samples)"
bad=$(awk '$1 == "got" && ($2 < 2 || $2 > 7) { print "outside the pool: " FILENAME ": " $0 }' "$T_TMP"/w?.log)
[ -z "$bad" ] || fail "a taker got a queue outside the pool: $bad"
# Each queue's spans in order of their start: each starts after every
# earlier one ended.
bad=$(awk '$1 == "got" { print $2, $3, $4, FILENAME }' "$T_TMP"/w?.log | sort -k1,1n -k2,2n |
	awk '$1 != q { q = $1; end = 0; who = "" }
	     $2 < end { print "queue " q " held by " who " until " end " and by " $4 " from " $2 }
	     $3 > end { end = $3; who = $4 }')
[ -z "$bad" ] || fail "two takers held one queue at once: $bad"
pass "no queue held by two takers at once ($got spans, checked against each other)"
expect_eq "$(leased)" "" "no lease left"
expect_eq "$(kernel_rules)" "[]" "no rule left (nlprobe)"
expect_eq "$(indir)" "$indir_before" "the indirection table as before (nlprobe)"
expect_rc 0 "nic show" -n "$HOST" -j nic show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0].queues[] | select(.reserved)]')" "[]" "nothing reserved"

# Pod X unleases while pod Y leases the queue X held (a pool of one).
XY_ROUNDS=$(rounds 20)
for round in $(seq "$XY_ROUNDS"); do
	nk -n "$HOST" link add nkx type single rxqueues 2
	nk -n "$HOST" link add nky type single rxqueues 2
	nk -n "$HOST" -j lease dev nkx from "$SIM" pool 6 steer dst 10.9.2.1
	[ "$RC" = 0 ] || fail "round $round: X's lease: $ERR"
	"$NKCTL" -n "$HOST" unlease dev nkx > /dev/null 2> "$T_TMP/x.err" &
	xpid=$!
	for _ in $(seq 100); do
		nk -n "$HOST" -j lease dev nky from "$SIM" pool 6 steer dst 10.9.2.2
		[ "$RC" = 4 ] || break
	done
	wait "$xpid" || fail "round $round: X's unlease: $(cat "$T_TMP/x.err")"
	[ "$RC" = 0 ] || fail "round $round: Y's lease: rc $RC $ERR"
	# A later sweep (another command) must leave Y alone too.
	nk -n "$HOST" -force unlease dev nkgone
	[ "$(kernel_rules)" = '[["10.9.2.2",6]]' ] || fail "round $round: Y's rule: $(kernel_rules)"
	[ "$(indir | jq -c 'index(6)')" = null ] || fail "round $round: queue 6 is back in RSS under Y's lease"
	nk -n "$HOST" unlease dev nky
	[ "$RC" = 0 ] || fail "round $round: Y's unlease: $ERR"
done
pass "$XY_ROUNDS rounds: Y kept its rule and its queue out of RSS"
expect_eq "$(kernel_rules)" "[]" "no rule left (nlprobe)"
expect_eq "$(indir)" "$indir_before" "the indirection table as before (nlprobe)"
done_testing
