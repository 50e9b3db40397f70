#!/bin/bash
# tier: host
# nic and steer on veth, which has no RSS indirection table and no n-tuple
# rules: one clear refusal each, exit status 5, and nothing changed (not the
# device, not the state directory). nic show still reports what veth has.
. "$TESTSUITE/lib.sh"
need_root
ns_new NS
ip -n "$NS" link add vA type veth peer name vB || fail "veth"
ip -n "$NS" link set vA up
ip -n "$NS" link set vB up
before_state=$(state_files /run/nkctl/nic)

expect_rc 0 "nic show of a veth" -n "$NS" nic show dev vA
expect_match "$OUT" '^vA:' "names the device"
expect_match "$OUT" 'rss: no indirection table' "says veth has no RSS table"
expect_match "$OUT" 'n-tuple rules: not supported' "says veth has no n-tuple rules"
expect_rc 0 "nic show -j" -n "$NS" -j nic show dev vA
json_valid "nic show -j"
expect_eq "$(printf '%s' "$OUT" | jq -r '.nics[0].ifname')" vA "JSON names the device"
expect_eq "$(printf '%s' "$OUT" | jq -r '.nics[0] | has("rss")')" false "no rss key without a table"
expect_eq "$(printf '%s' "$OUT" | jq -r '.nics[0].queues[0].reserved')" false "queue 0 not reserved"
expect_rc 0 "nic show of every NIC (none in a fresh namespace)" -n "$NS" -j nic show
expect_eq "$(printf '%s' "$OUT" | jq -c '.nics')" "[]" "no device with a parent"

expect_error 5 "reserve on veth" -n "$NS" nic reserve dev vA queue 0
expect_match "$ERR" 'no RSS indirection table.*nothing was changed' "the refusal says why and that nothing changed"
expect_error 3 "release with nothing reserved" -n "$NS" nic release dev vA
expect_rc 0 "release with -force and nothing reserved" -n "$NS" -force -j nic release dev vA
json_valid "release -force"
expect_error 5 "steer add on veth" -n "$NS" steer add dev vA flow-type tcp4 dst 10.0.0.1 dst-port 80 queue 0
expect_match "$ERR" 'no n-tuple flow steering rules; nothing was changed' "the refusal says why"
expect_error 5 "steer show on veth" -n "$NS" steer show dev vA
expect_rc 0 "steer show of every NIC" -n "$NS" -j steer show
expect_eq "$(printf '%s' "$OUT" | jq -c '.nics')" "[]" "nothing listed"
expect_error 5 "steer del on veth" -n "$NS" steer del dev vA id 0

expect_eq "$(state_files /run/nkctl/nic)" "$before_state" "no state file written"
if [ -d /run/nkctl/nic ]; then
	expect_eq "$(stat -c %a /run/nkctl/nic)" 700 "the state directory is 0700"
fi
ip netns exec "$NS" python3 -c 'print()' >/dev/null
expect_eq "$(ip -n "$NS" -j link show vA | jq -r '.[0].operstate')" UP "vA untouched"
done_testing
