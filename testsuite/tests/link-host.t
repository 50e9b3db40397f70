#!/bin/bash
# tier: host
# link on a kernel without netkit: a clear "not supported", and every usage
# error before the kernel is asked.
. "$TESTSUITE/lib.sh"
need_root

ns_new NS
ip -n "$NS" link add vA type veth peer name vB || fail "veth"

if [ "$(kernel_has netkit)" = no ]; then
	expect_error 5 "link add without kernel netkit" -n "$NS" link add nk0
	expect_match "$ERR" 'no netkit devices' "the error says the kernel lacks netkit"
	expect_rc 0 "nothing was left behind" -n "$NS" -j show
	expect_eq "$(printf '%s' "$OUT" | jq '[.devices[] | select(.ifname=="nk0")] | length')" 0 "no nk0"
fi

expect_error 1 "link needs a command" link
expect_error 1 "unknown link command" link frob
expect_error 1 "link add needs a name" link add
expect_error 1 "unknown keyword" -n "$NS" link add nk0 colour blue
expect_error 1 "bad type" link add nk0 type triple
expect_error 1 "bad mode" link add nk0 mode l4
expect_error 1 "bad policy" link add nk0 policy maybe
expect_error 1 "headroom out of range" link add nk0 headroom 70000
expect_error 1 "rxqueues zero" link add nk0 rxqueues 0
expect_error 1 "rxqueues not a number" link add nk0 rxqueues many
expect_error 1 "negative mtu" link add nk0 mtu -1
expect_error 1 "mtu too small" link add nk0 mtu 10
expect_error 1 "bad MAC" link add nk0 mode l2 address 02:00:00:00:00
expect_error 1 "multicast MAC" link add nk0 mode l2 address 01:00:5e:00:00:01
expect_error 1 "address needs l2" link add nk0 address 02:00:00:00:00:01
expect_error 1 "single with a peer" link add nk0 type single peer nk1
expect_error 1 "single with peer-netns" link add nk0 type single peer-netns "$NS"
expect_error 1 "single with scrub" link add nk0 type single scrub none
expect_error 1 "single with drop" link add nk0 type single policy drop
expect_error 1 "peer equals name" link add nk0 peer nk0
expect_error 1 "duplicate peer" link add nk0 peer a peer b
expect_error 1 "name too long" link add nk0123456789abcdef
expect_error 3 "netns that does not exist" link add nk0 netns "nkt-none-$$"
expect_error 3 "peer-netns that does not exist" link add nk0 peer-netns "nkt-none-$$"
expect_error 1 "link set needs something to change" -n "$NS" link set vA
expect_error 1 "link set of a creation-only attribute" -n "$NS" link set vA mode l2
expect_error 1 "link set rxqueues is creation-only" -n "$NS" link set vA rxqueues 4
expect_error 5 "link set on a veth" -n "$NS" link set vA policy drop
expect_error 3 "link set on a missing device" -n "$NS" link set nope0 policy drop
expect_error 5 "link del refuses a veth" -n "$NS" link del vA
expect_rc 0 "the veth is still there" -n "$NS" -j show dev vA
expect_error 3 "link del of a missing device" -n "$NS" link del nope0
expect_rc 0 "link del -force of a missing device succeeds" -n "$NS" -j -force link del nope0
expect_eq "$OUT" '{"deleted":[],"detached":[]}' "nothing deleted, same shape"
# link del group: as ip link delete group, one request for the whole group.
expect_error 1 "link del takes a name or a group, not both" -n "$NS" link del vA group 7
expect_error 1 "link del group 0 (every device's default) is refused" -n "$NS" link del group 0
expect_error 3 "link del of an empty group" -n "$NS" link del group 2000000007
expect_rc 0 "link del -force of an empty group succeeds" -n "$NS" -j -force link del group 2000000007
expect_eq "$OUT" '{"deleted":[],"detached":[]}' "nothing deleted, same shape"
ip -n "$NS" link set dev vA group 2000000007 || fail "veth into group"
expect_error 5 "link del group refuses a group with a veth" -n "$NS" link del group 2000000007
expect_match "$ERR" 'vA.*not a netkit device.*nothing was deleted' "the error names the veth"
expect_rc 0 "the veth is still there" -n "$NS" -j show dev vA
ip -n "$NS" link set dev vA group 0 || fail "veth out of the group"
expect_rc 0 "link show lists netkit devices only" -n "$NS" -j link show
expect_eq "$OUT" '{"devices":[]}' "no netkit devices on the host"
expect_error 5 "link show of a veth" -n "$NS" link show vA
done_testing
