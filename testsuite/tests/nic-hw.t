#!/bin/bash
# tier: host
# Hardware tier, opt-in: the reserve / steer / release cycle on a real NIC
# with an RSS indirection table and n-tuple rules. Set NKCTL_TEST_NIC=ethX (in
# the initial namespace; its settings are changed and put back) and optionally
# NKCTL_TEST_QUEUE (default: the NIC's last RX queue). Header split is read
# back by nlprobe.py; the RSS table and the rules by nkctl before and after.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq
NIC=${NKCTL_TEST_NIC:-}
[ -n "$NIC" ] || skip "hardware tier: set NKCTL_TEST_NIC=ethX to a NIC with RSS and n-tuple rules"
idx=$($NLPROBE link "$NIC" | jq .ifindex) || fail "no device $NIC"
Q=${NKCTL_TEST_QUEUE:-$($NLPROBE queues "$idx" | jq '[.[] | select(.type=="rx") | .id] | max')}
defer "$NKCTL -force nic release dev $NIC >/dev/null 2>&1"

snapshot() {
	$NLPROBE rings "$idx" | jq -S -c .
	"$NKCTL" -j nic show dev "$NIC" | jq -c '.nics[0] | [.rss, ([.rules[]?] | sort_by(.id))]'
}
BASE=$(snapshot)
expect_rc 0 "reserve queue $Q" -j nic reserve dev "$NIC" queue "$Q"
expect_eq "$(printf '%s' "$OUT" | jq --argjson q "$Q" '.nics[0].rss.queues | index($q)')" null "queue $Q out of RSS"
expect_eq "$($NLPROBE rings "$idx" | jq -c '[."tcp-data-split", ."hds-thresh"]')" '["on",0]' "header split on, hds-thresh 0"
expect_rc 0 "steer a flow to it" -j steer add dev "$NIC" flow-type tcp6 dst fd00::7 dst-port 5201 queue "$Q"
id=$(printf '%s' "$OUT" | jq .rules[0].id)
expect_rc 0 "steer show" -j steer show dev "$NIC"
expect_eq "$(printf '%s' "$OUT" | jq -c "[.nics[0].rules[] | select(.id==$id) | .queue][0]")" "$Q" "the driver has the rule"
expect_rc 0 "release" nic release dev "$NIC"
expect_eq "$(snapshot)" "$BASE" "the NIC is as before (rings, RSS table, rules)"
done_testing
