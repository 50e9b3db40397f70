#!/bin/bash
# tier: vm
# Real drivers differ from plain netdevsim (issue 25): netdevsim with the
# test patch's personalities (debugfs ethtool/nkctl/, see
# testsuite/vm/netdevsim-rxnfc-rss.patch) stands in for them. Each check
# reads the truth with nlprobe.py or ethtool(8), not with nkctl:
#  - no RX_CLS_LOC_ANY (mlx5, gve): nkctl's rules go to a free location, a
#    foreign rule stays where it is, untouched, on both kinds of driver;
#  - a 2048-entry indirection table (ice's PF table) is handled;
#  - a custom weighted table is restored entry for entry;
#  - RSS contexts and a header split that needs HW GRO exist as the
#    personalities promise.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq ethtool

ns_new HOST
sim_new SIM "$HOST" 4
sim_new LOC "$HOST" 4
idx=$(ifindex_of "$HOST" "$SIM")
lidx=$(ifindex_of "$HOST" "$LOC")
pers() { echo "${3:-1}" > "/sys/kernel/debug/netdevsim/netdevsim$1/ports/0/ethtool/nkctl/$2"; }
[ -d "/sys/kernel/debug/netdevsim/netdevsim$SIM_ID/ports/0/ethtool/nkctl" ] ||
	skip "this netdevsim has no personalities (the VM's test patch is older)"
rules() { $NLPROBE -n "$HOST" ntuple "$1" | jq -c '[.rules[] | [.location, .["dst-port"], .action]] | sort'; }

# ---- rule locations, with a foreign rule at location 0 on both kinds
pers "$LOC_ID" no_loc_any
expect_eq "$($NLPROBE -n "$HOST" ntuple "$LOC" | jq -c '[.size, .special]')" "[0,false]" \
	"no_loc_any: GRXCLSRLCNT without RX_CLS_LOC_SPECIAL or a size (as mlx5)"
$NLPROBE -n "$HOST" ntuple-add "$LOC" udp4 dst-port 9 action 1 loc any > /dev/null 2>&1 &&
	fail "no_loc_any still takes RX_CLS_LOC_ANY"
pass "no_loc_any refuses RX_CLS_LOC_ANY, as mlx5 does"
for dev in "$SIM" "$LOC"; do
	$NLPROBE -n "$HOST" ntuple-add "$dev" udp4 dst-port 7 action 2 loc 0 > /dev/null ||
		fail "foreign rule at location 0 on $dev"
	expect_rc 0 "steer add on $dev" -n "$HOST" -j steer add dev "$dev" flow-type tcp4 dst-port 80 queue 3
	id=$(printf '%s' "$OUT" | jq '.rules[0].id')
	expect_eq "$(rules "$dev")" "[[0,7,2],[$id,80,3]]" "$dev: nkctl's rule at $id, the foreign rule untouched"
	expect_eq "$((id != 0))" 1 "$dev: nkctl did not take location 0"
	expect_rc 0 "steer add again on $dev" -n "$HOST" -j steer add dev "$dev" flow-type udp4 dst-port 53 queue 1
	id2=$(printf '%s' "$OUT" | jq '.rules[0].id')
	expect_eq "$((id2 != 0 && id2 != id))" 1 "$dev: a second rule at a third location ($id2)"
	expect_rc 0 "steer del on $dev" -n "$HOST" steer del dev "$dev" id "$id"
	expect_rc 0 "steer del on $dev" -n "$HOST" steer del dev "$dev" id "$id2"
	expect_eq "$(rules "$dev")" "[[0,7,2]]" "$dev: only the foreign rule is left"
	$NLPROBE -n "$HOST" ntuple-del "$dev" 0 > /dev/null
done

# ---- a 2048-entry table: reserve and release
pers "$LOC_ID" rss_indir_size 2048
expect_eq "$($NLPROBE -n "$HOST" rss "$lidx" | jq -c '[(.indir | length), (.indir | unique)]')" "[2048,[0,1,2,3]]" \
	"rss_indir_size: a 2048-entry default table"
expect_rc 0 "reserve queue 3 of a 2048-entry table" -n "$HOST" -j nic reserve dev "$LOC" queue 3
expect_eq "$($NLPROBE -n "$HOST" rss "$lidx" | jq -c '[(.indir | length), (.indir | unique)]')" "[2048,[0,1,2]]" \
	"queue 3 is out of all 2048 entries"
expect_rc 0 "release it" -n "$HOST" -j nic release dev "$LOC" queue 3
expect_eq "$($NLPROBE -n "$HOST" rss "$lidx" | jq -c '[(.indir | length), (.indir | unique)]')" "[2048,[0,1,2,3]]" \
	"the default table is back"

# ---- a custom weighted table is restored entry for entry
ip netns exec "$HOST" ethtool -X "$SIM" weight 1 2 0 3 || fail "ethtool -X weight"
before=$($NLPROBE -n "$HOST" rss "$idx" | jq -c .indir)
expect_eq "$(printf '%s' "$before" | jq -c 'unique')" "[0,1,3]" "a weighted table without queue 2"
expect_rc 0 "reserve queue 3 over it" -n "$HOST" -j nic reserve dev "$SIM" queue 3
after=$($NLPROBE -n "$HOST" rss "$idx" | jq -c .indir)
expect_eq "$(printf '%s' "$after" | jq -c 'unique')" "[0,1]" \
	"queue 3 is out of the table and queue 2, which the operator left out, stays out"
expect_eq "$(jq -n --argjson b "$before" --argjson a "$after" \
	'[range($b | length) | select($b[.] != 3 and $a[.] != $b[.])] | length')" 0 \
	"minimal edit: only the entries that named queue 3 changed"
expect_eq "$(printf '%s' "$after" | jq -c '[(map(select(. == 0)) | length), (map(select(. == 1)) | length)] | (.[0] - .[1]) | (if . < 0 then -. else . end) <= 1')" \
	true "they went to the less loaded of queues 0 and 1 (now even)"
expect_rc 0 "release it" -n "$HOST" -j nic release dev "$SIM" queue 3
expect_eq "$($NLPROBE -n "$HOST" rss "$idx" | jq -c .indir)" "$before" \
	"the weighted table is back entry for entry"
ip netns exec "$HOST" ethtool -X "$SIM" default

# ---- RSS contexts
expect_match "$(ip netns exec "$HOST" ethtool -X "$SIM" context new start 2 equal 2 2>&1)" \
	"Cannot|not supported|Operation" "no contexts by default"
pers "$SIM_ID" rss_contexts
out=$(ip netns exec "$HOST" ethtool -X "$SIM" context new start 2 equal 2 2>&1) || fail "context new: $out"
expect_eq "$($NLPROBE -n "$HOST" rss-contexts "$idx" | jq -c '[.[] | (.indir | unique)]')" "[[2,3]]" \
	"rss_contexts: a context over queues 2 and 3"
ctx=$($NLPROBE -n "$HOST" rss-contexts "$idx" | jq '.[0].context')
ip netns exec "$HOST" ethtool -X "$SIM" context "$ctx" delete || fail "context delete"
expect_eq "$($NLPROBE -n "$HOST" rss-contexts "$idx" | jq -c .)" "[]" "the context is gone"
pers "$SIM_ID" rss_contexts 0

# ---- header split that needs HW GRO (mlx5)
pers "$LOC_ID" hds_needs_gro
$NLPROBE -n "$HOST" rings-set "$lidx" tcp-data-split off > /dev/null || fail "split off"
expect_eq "$($NLPROBE -n "$HOST" features "$lidx" rx-gro-hw | jq -c '[.hw, .active]')" "[true,false]" \
	"rx-gro-hw can be turned on and is off"
out=$($NLPROBE -n "$HOST" rings-set "$lidx" tcp-data-split on 2>&1) && fail "split on without HW GRO worked"
expect_match "$out" "GRO HW is disabled" "hds_needs_gro refuses with mlx5's message"
expect_error 2 "nic reserve: header split refused" -n "$HOST" nic reserve dev "$LOC" queue 3
expect_match "$ERR" "HW GRO \(rx-gro-hw\) is off.*ethtool -K $LOC rx-gro-hw on" \
	"the error names the missing prerequisite and the command that sets it"
expect_eq "$($NLPROBE -n "$HOST" features "$lidx" rx-gro-hw | jq .active)" false "nkctl did not turn HW GRO on itself"
ip netns exec "$HOST" ethtool -K "$LOC" rx-gro-hw on > /dev/null || fail "ethtool -K rx-gro-hw on"
expect_rc 0 "with HW GRO on, nic reserve turns header split on" -n "$HOST" -j nic reserve dev "$LOC" queue 3
expect_eq "$($NLPROBE -n "$HOST" rings "$lidx" | jq -r '."tcp-data-split"')" on "header split is on"
expect_rc 0 "release" -n "$HOST" -j nic release dev "$LOC"
expect_eq "$($NLPROBE -n "$HOST" rings "$lidx" | jq -r '."tcp-data-split"')" off "header split is off again"

# ---- nic show states what the driver supports
expect_rc 0 "nic show" -n "$HOST" -j nic show dev "$LOC"
expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0].support | [.driver, .["queue-lease"], .ntuple, .["ntuple-locations"], .["ntuple-size"], .["indir-size"], .contexts, .["rx-gro-hw"]]')" \
	'["netdevsim",true,true,"nkctl",32,2048,false,true]' "the personalities as nic show states them"
expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0].support | [.xdp, .xsk]')" '["native","copy"]' \
	"AF_XDP through a lease: netdevsim runs XDP in its driver, copy mode only (its xdp-features)"
pers "$SIM_ID" rss_contexts
ip netns exec "$HOST" ethtool -X "$SIM" context new start 1 equal 3 > /dev/null || fail "context new"
expect_rc 0 "nic show" -n "$HOST" -j nic show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0] | [.support.contexts, .support["ntuple-locations"], [.["rss-contexts"][] | .queues]]')" \
	'[true,"driver",[[1,2,3]]]' "contexts: supported and listed with their queues"
ip netns exec "$HOST" ethtool -X "$SIM" context "$($NLPROBE -n "$HOST" rss-contexts "$idx" | jq '.[0].context')" delete
pers "$SIM_ID" rss_contexts 0

done_testing
