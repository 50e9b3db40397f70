#!/bin/bash
# tier: vm
# timeout: 300
# Three pods on one NIC (issue 14), on real netkit: each pod's netkit pair
# (primary in HOST, peer in its namespace) and its own lease (a single holder
# in the pod) from the same netdevsim NIC; one route table on the NIC carries
# all three; a linked netdevsim in REMOTE pings each pod. Unlease plus detach
# of one pod leaves the other two working.
. "$TESTSUITE/lib.sh"
need_root
need_cmd ping jq
topo_nic_remote
ping_ok "$REMOTE" 10.10.2.1 || fail "the linked netdevsims carry no packets"
pass "the linked netdevsims carry packets"

PODS=()
for i in 1 2 3; do
	ns_new P
	PODS[$i]=$P
	nk -n "$HOST" link add "nkh$i" peer nkp peer-netns "$P"
	expect_eq "$RC" 0 "pod $i: netkit pair"
	nk -n "$P" link add hold type single rxqueues 2
	expect_eq "$RC" 0 "pod $i: a single lease holder"
	expect_rc 0 "pod $i: its own lease from the NIC" -n "$P" lease dev hold from "$SIM" phys-netns "$HOST" queue "$i"
	ip -n "$HOST" addr add "10.20.$i.1/24" dev "nkh$i"
	ip -n "$HOST" link set "nkh$i" up
	ip -n "$P" addr add "10.20.$i.2/24" dev nkp
	ip -n "$P" link set nkp up
	ip -n "$P" route add default via "10.20.$i.1"
	ping_none "$REMOTE" "10.20.$i.2" || fail "pod $i reachable without redirects"
	expect_rc 0 "pod $i egress" -n "$HOST" redirect attach dev "nkh$i" to "$SIM"
	expect_rc 0 "pod $i ingress: a route on the NIC" -n "$HOST" redirect attach dev "$SIM" to "nkh$i" prefix "10.20.$i.0/24"
done
for i in 1 2 3; do
	ping_ok "$REMOTE" "10.20.$i.2" || fail "remote -> pod $i"
	pass "the remote pings pod $i"
done
expect_rc 0 "show" -n "$HOST" -j redirect show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[] | [.action, [.routes[] | [.target.ifname, .prefixes[0]]]]]')" \
	'[["redirect-peer",[["nkh1","10.20.1.0/24"],["nkh2","10.20.2.0/24"],["nkh3","10.20.3.0/24"]]]]' \
	"one route table on the NIC carries all three"

# Pod 2 goes: its lease ends, its routes go; pods 1 and 3 keep working.
expect_rc 0 "pod 2: unlease" -n "${PODS[2]}" unlease dev hold
expect_eq "$(lease_of "$HOST" "$SIM" 2)" null "pod 2: the kernel ended the lease"
expect_rc 0 "pod 2: detach its route" -n "$HOST" -j redirect detach dev "$SIM" to nkh2
expect_eq "$(printf '%s' "$OUT" | jq -c '.detached[0] | [.["hook-removed"], .routes[0].prefixes]')" '[false,["10.20.2.0/24"]]' \
	"pod 2: only its route went"
expect_rc 0 "pod 2: detach its egress" -n "$HOST" redirect detach dev nkh2
ping_none "$REMOTE" 10.20.2.2 || fail "pod 2 still reachable"
pass "pod 2 unreachable"
for i in 1 3; do
	ping_ok "$REMOTE" "10.20.$i.2" || fail "remote -> pod $i after pod 2 went"
	pass "the remote still pings pod $i"
	expect_eq "$(lease_of "$HOST" "$SIM" "$i" | jq -c '.queue.id')" 1 "pod $i keeps its lease"
done

# Pod 3 goes by link del (issue 23): its egress pins and its route on the NIC
# go with the device, and link del says so.
idx3=$(ifindex_of "$HOST" nkh3)
expect_rc 0 "pod 3: link del" -n "$HOST" -j link del nkh3
expect_eq "$(printf '%s' "$OUT" | jq -c '[.detached[] | [.ifname, .["hook-removed"], [.routes[] | .target.ifname]]] | sort')" \
	"$(jq -nc --arg s "$SIM" '[["nkh3",true,["'"$SIM"'"]], [$s,false,["nkh3"]]] | sort')" \
	"link del lists its egress program and its route on the NIC"
[ -e "$(ns_pindir "$HOST")/dev$idx3" ] && fail "nkh3's pins are left"
nk -n "$HOST" -j redirect show
expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[].routes[] | select(.defunct) ]')" '[]' "no defunct route left behind"
ping_ok "$REMOTE" 10.20.1.2 || fail "remote -> pod 1 after pod 3's link del"
pass "the remote still pings pod 1"
done_testing
