#!/bin/bash
# tier: vm
# timeout: 600
# nic restore killed at every syscall (issue 30), as nic-faults.t kills the
# other NIC commands: an operator's `ethtool -X equal 4` (the reserved and
# the leased queue back in RSS) and `ethtool -N delete` of the lease's rule,
# then nic restore killed with SIGKILL at every state write (rename), every
# n-tuple ioctl and every 8th netlink request in turn. In between, nic show
# marks something lost whenever the NIC is not as recorded; the next nic
# restore heals it: RSS table, header split and rules as before (the rule's
# location may change).
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq ethtool strace

ns_new HOST
sim_new SIM "$HOST" 4
need_sim_rss "$HOST" "$SIM"
idx=$(ifindex_of "$HOST" "$SIM")
nlprobe_serve "$HOST"
et() { ip netns exec "$HOST" ethtool "$@"; }
ok() { nk "$@"; [ "$RC" = 0 ]; }

expect_rc 0 "a holder" -n "$HOST" link add hA type single rxqueues 2
expect_rc 0 "lease queue 3 with steer" -n "$HOST" lease dev hA from "$SIM" queue 3 steer dst 10.9.0.7
expect_rc 0 "nic reserve queue 2" -n "$HOST" nic reserve dev "$SIM" queue 2

snapshot() { nic_snapshot "$SIM" "$idx"; }
break_it() { nic_operator_edits "$HOST" "$SIM"; }
# truthful: nic show marks something lost whenever the NIC is not as BASE.
truthful() {
	local lost
	nk -n "$HOST" -j nic show dev "$SIM"
	lost=$(printf '%s' "$OUT" | jq '[.nics[0].queues[] | select(.lost)] + [.nics[0].rules[] | select(.lost)] | length')
	[ "$(snapshot)" = "$BASE" ] || [ "$lost" -gt 0 ] ||
		{ ERR="nic show marks nothing lost on a NIC not as recorded: $OUT"; return 1; }
}

BASE=$(snapshot)
expect_eq "$(printf '%s' "$BASE" | sed -n 1p)" "[0,1]" "RSS over queues 0 and 1"
expect_eq "$(printf '%s' "$BASE" | sed -n 3p)" '[["10.9.0.7",3]]' "the lease's rule"
kill_cycle "restore, then truthful show and restore again" break_it "-n $HOST nic restore dev $SIM" \
	'truthful && ok -n "$HOST" nic restore dev "$SIM"' : 8
expect_rc 0 "nic show" -n "$HOST" -j nic show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0].queues[] | select(.lost)] + [.nics[0].rules[] | select(.lost)]')" '[]' \
	"nothing lost in the end"
expect_rc 0 "unlease" -n "$HOST" unlease dev hA
done_testing
