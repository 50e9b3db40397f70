#!/bin/bash
# tier: vm
# timeout: 600
# alone: yes (between a reset and its checks, another test's nkctl would sweep this NIC: its ended records undone before nic show can mark them lost)
# A NIC that came back different (issue 30): `devlink dev reload` and a
# re-probe (del_device + new_device with the same id) delete the single
# holders that leased its queues (netkit's notifier) and reset its rules, RSS
# table and header split. monitor says each lease ended and why; nic show
# never prints the stale record without saying so; nic restore (and the next
# nic reserve) undo the ended leases' records and apply again what nkctl
# still owns (a nic reserve reservation). The record follows the NIC by its
# bus identity, not its ifindex. One netdevsim device throughout; the truth
# is read with nlprobe.py.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq

ns_new HOST
sim_new SIM "$HOST" 4
need_sim_rss "$HOST" "$SIM"
idx=$(ifindex_of "$HOST" "$SIM")
nlprobe_serve "$HOST"

# sim_back: the driver made its netdev again, in the initial namespace (as
# eth%d): the test's name, in HOST, up.
sim_back() {
	local dev
	dev=$(nsim_netdev "$SIM_ID") || fail "netdevsim $SIM_ID has no netdev again"
	ip link set "$dev" name "$SIM" && ip link set "$SIM" netns "$HOST" &&
		ip -n "$HOST" link set "$SIM" up || fail "cannot bring $SIM back into $HOST"
	local old=$idx
	idx=$(ifindex_of "$HOST" "$SIM")
	pass "$SIM is back in $HOST (ifindex $old, now $idx)"
}
seen() { # seen FILE JQ-COND DESC: a monitor record matching COND, within 20 s
	for _ in $(seq 200); do
		[ -n "$(jq -c "select(.event | $2)" "$1" 2> /dev/null)" ] && { pass "$3"; return 0; }
		sleep 0.1
	done
	fail "$3: not seen: $(tail -c 2000 "$1")"
}
show() { nk -n "$HOST" -j nic show dev "$SIM"; [ "$RC" = 0 ] || fail "nic show: $ERR"; }
queues() { printf '%s' "$OUT" | jq -c '[.nics[0].queues[] | [.id, .reserved, .rss, .lost]]'; }
indir() { nlp rss "$idx" | jq -c '.indir | unique'; }
split() { nlp rings "$idx" | jq -r '.["tcp-data-split"]'; }
leases() {
	expect_rc 0 "holders hA hB" -n "$HOST" link add hA type single rxqueues 2
	expect_rc 0 "holder hB" -n "$HOST" link add hB type single rxqueues 2
	expect_rc 0 "lease queue 3 with steer" -n "$HOST" lease dev hA from "$SIM" queue 3 steer dst 10.9.0.7
	expect_rc 0 "lease queue 2 with reserve" -n "$HOST" lease dev hB from "$SIM" queue 2 reserve
}

leases
expect_rc 0 "nic reserve queue 1" -n "$HOST" nic reserve dev "$SIM" queue 1
expect_eq "$(indir)" "[0]" "RSS spreads over queue 0 only"
"$NKCTL" -n "$HOST" -j monitor link lease > "$T_TMP/mon" 2> "$T_TMP/mon.err" &
mpid=$!
defer "kill $mpid 2>/dev/null"
monitor_ready "$HOST" "$T_TMP/mon"
pass "the monitor runs"

# ---- devlink dev reload
if command -v devlink > /dev/null; then
	devlink dev reload "netdevsim/netdevsim$SIM_ID" || fail "devlink dev reload"
	sim_back
	ip -n "$HOST" link show hA > /dev/null 2>&1 && fail "reload: holder hA still exists"
	pass "reload: the kernel deleted the holders"
	for q in 2 3; do
		seen "$T_TMP/mon" '.object == "lease" and .action == "del" and .lease.id == '$q' and .reason == "nic-gone"' \
			"monitor: the lease of queue $q ended, reason nic-gone"
	done
	show
	expect_eq "$(queues)" '[[0,false,true,null],[1,true,true,"rss"],[2,true,true,"lease"],[3,true,true,"lease"]]' \
		"nic show: the ended leases' queues and the reservation in RSS again are marked lost"
	expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0].rules[] | [.dst, .lost]]')" '[["10.9.0.7",true]]' \
		"nic show: the rule the reset took is printed from the record, lost"
	# netdevsim may keep its rings' settings across a reload: lost only if not on
	sp=$(split) want=true
	[ "$sp" = on ] && want=null
	expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0]["header-split-lost"]')" "$want" "nic show: header split lost when off (it is $sp)"
	expect_rc 0 "nic show (text)" -n "$HOST" nic show dev "$SIM"
	expect_match "$OUT" 'queue 3: reserved \(lost: lease' "the text says it too"
	expect_rc 0 "show leases" -n "$HOST" -j show leases
	expect_eq "$(printf '%s' "$OUT" | jq -c '[.leases[] | select(.ifname == "'"$SIM"'")]')" '[]' "no lease left"
	expect_rc 0 "nic restore" -n "$HOST" -j nic restore dev "$SIM"
	# (undoing the ended records applies the reservation's table already)
	expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0].restored | [.ended, .rules]')" "[2,0]" \
		"restore: two ended records undone, no rule to add again"
	expect_eq "$(queues)" '[[0,false,true,null],[1,true,false,null],[2,false,true,null],[3,false,true,null]]' \
		"restore: queue 1 reserved out of RSS, 2 and 3 back in RSS, nothing lost"
	expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0].rules')" '[]' "restore: the ended lease's rule is forgotten"
	expect_eq "$(indir)" "[0,2,3]" "the NIC's RSS table: queue 1 out"
	expect_eq "$(split)" on "the NIC's header split: on"
else
	skip_part reload "no devlink: the reload part is not run"
fi

# ---- re-probe: del_device + new_device with the same id
show
leases
echo "$SIM_ID" > /sys/bus/netdevsim/del_device || fail "del_device"
echo "$SIM_ID 1 4" > /sys/bus/netdevsim/new_device || fail "new_device $SIM_ID"
sim_back
for q in 2 3; do
	seen "$T_TMP/mon" '.object == "lease" and .action == "del" and .lease.id == '$q' and .reason == "nic-gone" and (.lease.lease.ifname | . == "hA" or . == "hB")' \
		"re-probe: monitor says the lease of queue $q ended, reason nic-gone"
done
show
expect_eq "$(queues)" '[[0,false,true,null],[1,true,true,"rss"],[2,true,true,"lease"],[3,true,true,"lease"]]' \
	"re-probe: nic show marks the records the new device contradicts"
# The next command that changes the NIC undoes the ended records first.
expect_rc 0 "nic reserve queue 1 again" -n "$HOST" -j nic reserve dev "$SIM" queue 1
expect_eq "$(queues)" '[[0,false,true,null],[1,true,false,null],[2,false,true,null],[3,false,true,null]]' \
	"re-probe: nic reserve undid the ended leases' records and applied the reservation"
expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0].rules')" '[]' "no rule recorded or left"
expect_eq "$(indir)" "[0,2,3]" "the NIC's RSS table: queue 1 out"
expect_rc 0 "nic release" -n "$HOST" nic release dev "$SIM"
expect_eq "$(ls /run/nkctl/nic/netdevsim-netdevsim"$SIM_ID"-* 2> /dev/null)" "" "no state file left"
kill -INT "$mpid"
wait "$mpid"
expect_eq "$(grep -v '^$' "$T_TMP/mon.err")" "" "the monitor said nothing on stderr"
mkdir -p "$T_TMP/json"
T_JSON=$((T_JSON + 1))
cp "$T_TMP/mon" "$T_TMP/json/$T_JSON.json"
echo "monitor" > "$T_TMP/json/$T_JSON.cmd"
done_testing
