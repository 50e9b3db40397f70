#!/bin/bash
# tier: vm
# link add | set | del | show on a real netkit kernel. Every attribute is
# read back with RTM_GETLINK by nlprobe.py, independently of nkctl.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq ping

ns_new NS
ns_new POD

# Every option away from its default; the peer created straight in POD.
expect_rc 0 "create a pair with every option" -n "$NS" -j link add nka0 peer nkb0 \
	peer-netns "$POD" type pair mode l2 policy drop peer-policy pass scrub none \
	peer-scrub default headroom 64 tailroom 32 rxqueues 8 txqueues 1 mtu 1400 \
	address 02:00:00:00:0a:01 peer-address 02:00:00:00:0b:01
json_valid "link add -j"
ADD=$OUT
expect_eq "$(printf '%s' "$ADD" | jq -c '[.devices[] | [.ifname, .netns]]')" \
	"[[\"nka0\",null],[\"nkb0\",\"$POD\"]]" "add prints both devices with their netns"

expect_error 5 "more than one TX queue" -n "$NS" link add nkt0 txqueues 2
expect_match "$ERR" 'netkit devices have one TX queue: "txqueues 2"' "says that netkit has one TX queue, not that netkit is missing"

a=$($NLPROBE -n "$NS" link nka0) || fail "nlprobe nka0"
b=$($NLPROBE -n "$POD" link nkb0) || fail "nlprobe nkb0"
expect_eq "$(printf '%s' "$a" | jq -c '[.kind, .netkit.primary, .netkit.mode, .netkit.policy,
	.netkit["peer-policy"], .netkit.scrub, .netkit["peer-scrub"], .netkit.headroom,
	.netkit.tailroom, .["num-rx-queues"], .["num-tx-queues"], .mtu, .address]')" \
	'["netkit",true,"l2","blackhole","forward","none","default",64,32,8,1,1400,"02:00:00:00:0a:01"]' \
	"primary attributes round-trip"
expect_eq "$(printf '%s' "$b" | jq -c '[.netkit.primary, .netkit.policy, .netkit["peer-policy"],
	.["num-rx-queues"], .mtu, .address]')" \
	'[false,"forward","blackhole",8,1400,"02:00:00:00:0b:01"]' "peer attributes round-trip"
got=$(printf '%s' "$ADD" | jq -c '.devices[0] | [.ifindex, .netkit.mode, .netkit.policy]')
expect_eq "$got" "[$(printf '%s' "$a" | jq .ifindex),\"l2\",\"blackhole\"]" "add's JSON is what the kernel has"

# Single device.
expect_rc 0 "create a single device" -n "$NS" -j link add nks0 type single rxqueues 4
s=$($NLPROBE -n "$NS" link nks0)
expect_eq "$(printf '%s' "$s" | jq -c '[.netkit.pairing, .netkit.primary, .["num-rx-queues"]]')" \
	'["single",true,4]' "single round-trips"
expect_eq "$(printf '%s' "$OUT" | jq '.devices | length')" 1 "single add prints one device"

# Peer namespace by path.
ip netns exec "$POD" sleep 600 &
holder=$!
defer "kill $holder"
# until ip has entered POD (a process start takes most of a second in a
# loaded guest)
want=$(stat -L -c %i "/run/netns/$POD")
for _ in $(seq 300); do [ "$(stat -L -c %i "/proc/$holder/ns/net" 2> /dev/null)" = "$want" ] && break; sleep 0.1; done
expect_eq "$(stat -L -c %i "/proc/$holder/ns/net")" "$want" "the holder process is in POD"
expect_rc 0 "peer-netns by /proc path" -n "$NS" link add nkc0 peer nkd0 peer-netns "/proc/$holder/ns/net"
$NLPROBE -n "$POD" link nkd0 > /dev/null || fail "nkd0 is not in POD"
pass "peer created in the namespace named by path"

# Defaults: l3, pass/pass, default scrub, 1 rx queue.
expect_rc 0 "defaults" -n "$NS" link add nke0
d=$($NLPROBE -n "$NS" link nke0)
e_peer=$($NLPROBE -n "$NS" links | jq -r --argjson l "$(printf '%s' "$d" | jq .link)" '.[] | select(.ifindex==$l) | .ifname')
[ -n "$e_peer" ] || fail "the kernel-named peer of nke0 not found"
expect_eq "$(printf '%s' "$d" | jq -c '[.netkit.mode, .netkit.policy, .netkit["peer-policy"], .netkit.scrub, .netkit.pairing]')" \
	'["l3","forward","forward","default","pair"]' "documented defaults"

# Errors with their exit codes.
expect_error 4 "the name exists" -n "$NS" link add nka0
expect_error 4 "the peer name exists" -n "$NS" link add nkf0 peer nke0
expect_error 1 "duplicate keyword" -n "$NS" link add nkf0 mode l2 mode l3
expect_error 5 "set through the peer" -n "$POD" link set nkb0 policy drop
expect_match "$ERR" 'through its primary' "explains where to change it"
expect_error 5 "set a single device" -n "$NS" link set nks0 policy pass
expect_rc 0 "no half-made device is left" -n "$NS" -j link show
expect_eq "$(printf '%s' "$OUT" | jq -c '[.devices[].ifname] | sort')" \
	"$(printf '%s\n' nka0 nkc0 nke0 "$e_peer" nks0 | jq -R . | jq -s -c 'sort')" "link show lists the netkit devices"

# set policy: drop stops traffic, pass lets it through.
ns_new P2
expect_rc 0 "pair for ping" -n "$NS" link add nkp0 peer nkq0 peer-netns "$P2"
ip -n "$NS" addr add 10.99.0.1/30 dev nkp0 && ip -n "$NS" link set nkp0 up
ip -n "$P2" addr add 10.99.0.2/30 dev nkq0 && ip -n "$P2" link set nkq0 up
ip netns exec "$NS" ping -c1 -W2 10.99.0.2 > /dev/null || fail "ping with policy pass"
pass "ping passes with policy pass"
expect_rc 0 "set policy drop" -n "$NS" -j link set nkp0 policy drop
expect_eq "$(printf '%s' "$OUT" | jq -r '.devices[0].netkit.policy')" blackhole "set prints the new policy"
expect_eq "$($NLPROBE -n "$NS" link nkp0 | jq -r .netkit.policy)" blackhole "kernel has policy drop"
if ip netns exec "$NS" ping -c1 -W1 10.99.0.2 > /dev/null; then fail "ping passed with policy drop"; fi
pass "ping is dropped with policy drop"
expect_rc 0 "set peer-policy drop, policy pass" -n "$NS" link set nkp0 policy pass peer-policy drop
if ip netns exec "$NS" ping -c1 -W1 10.99.0.2 > /dev/null; then fail "ping passed with peer-policy drop"; fi
pass "replies are dropped with peer-policy drop"
expect_rc 0 "set peer-policy pass" -n "$NS" link set nkp0 peer-policy pass
ip netns exec "$NS" ping -c1 -W2 10.99.0.2 > /dev/null || fail "ping after pass again"
pass "ping passes again"

# del: either side removes both, and says so.
expect_rc 0 "del the primary" -n "$NS" -j link del nke0
expect_eq "$(printf '%s' "$OUT" | jq -c '[.deleted[].ifname]')" "[\"nke0\",\"$e_peer\"]" "del names both sides"
$NLPROBE -n "$NS" link "$e_peer" > /dev/null 2>&1 && fail "peer still there"
pass "peer is gone too"
expect_rc 0 "del from the peer side" -n "$POD" -j link del nkb0
expect_eq "$(printf '%s' "$OUT" | jq -c '[.deleted[0].ifname, (.deleted[1] | has("link-netnsid"))]')" \
	'["nkb0",true]' "del of a peer names its primary in the other netns"
$NLPROBE -n "$NS" link nka0 > /dev/null 2>&1 && fail "primary still there"
pass "primary is gone too"
expect_error 3 "del again" -n "$POD" link del nkb0
expect_rc 0 "del again with -force" -n "$POD" -force link del nkb0
expect_rc 0 "del the single device" -n "$NS" link del nks0
# del group: every netkit device of the group, peers wherever they are, in
# one request; the others stay.
expect_rc 0 "a pair with its peer in the pod" -n "$NS" link add nkg0 peer nkh0 peer-netns "$POD"
expect_rc 0 "a pair with both sides here" -n "$NS" link add nkg1 peer nkh1
expect_rc 0 "a single device" -n "$NS" link add nkg2 type single
expect_rc 0 "a bystander" -n "$NS" link add nkx0 type single
for d in nkg0 nkh1 nkg1 nkg2; do ip -n "$NS" link set dev "$d" group 1853882368 || fail "$d into the group"; done
expect_rc 0 "del group" -n "$NS" -j link del group 1853882368
# (the pod's peer is named by ifindex only, when at all: in one run the
# dump gave nkg0 no peer, so the document had no entry for it; nlprobe
# checks below that it went)
expect_eq "$(printf '%s' "$OUT" | jq -c '[.deleted[].ifname // empty] | sort')" \
	'["nkg0","nkg1","nkg2","nkh1"]' "del group names each device of this namespace once"
for d in nkg0 nkg1 nkh1 nkg2; do
	$NLPROBE -n "$NS" link "$d" > /dev/null 2>&1 && fail "$d still there"
done
$NLPROBE -n "$POD" link nkh0 > /dev/null 2>&1 && fail "the pod's peer still there"
$NLPROBE -n "$NS" link nkx0 > /dev/null 2>&1 || fail "the bystander went too"
pass "the group went, peers with it, the bystander stayed"
expect_error 3 "del of the group again" -n "$NS" link del group 1853882368
expect_rc 0 "del of the group again with -force" -n "$NS" -force link del group 1853882368
expect_rc 0 "del the bystander" -n "$NS" link del nkx0
done_testing
