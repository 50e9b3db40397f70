#!/bin/bash
# tier: vm
# redirect on a real netkit pair (l3 and l2 mode): the primary's tcx ingress
# and the netkit-peer hook (attached through the primary's ifindex) carry pod
# egress to the NIC, redirect-peer on the NIC carries pod ingress.
. "$TESTSUITE/lib.sh"
need_root
need_cmd ping jq
modprobe veth

for mode in l3 l2; do
	ns_new POD
	ns_new HOST
	ns_new REMOTE
	nk -n "$HOST" link add vH peer vP peer-netns "$POD" mode "$mode"
	expect_eq "$RC" 0 "$mode: netkit pair, peer in the pod"
	ip -n "$HOST" link add vN type veth peer name vR netns "$REMOTE" || fail "veth"
	topo_addresses

	ping_none "$POD" 10.10.2.2 || fail "$mode: a path without redirects"
	expect_rc 0 "$mode: pod egress on the primary's tcx ingress" -n "$HOST" redirect attach dev vH to vN
	expect_rc 0 "$mode: pod ingress on the NIC" -n "$HOST" redirect attach dev vN to vH \
		prefix 10.10.1.0/24 prefix fd01::/64
	ping_ok "$POD" 10.10.2.2 || fail "$mode: no ping through netkit"
	pass "$mode: IPv4 through netkit and both redirects"
	ping_ok "$POD" fd02::2 || fail "$mode: no ping6 through netkit"
	pass "$mode: IPv6 through netkit"
	tcp_ok "$POD" "$REMOTE" 10.10.2.2 || fail "$mode: TCP"
	pass "$mode: TCP pod -> remote"

	# The netkit-peer hook instead: the program runs in the peer's xmit.
	expect_rc 0 "$mode: detach the tcx egress" -n "$HOST" redirect detach dev vH hook tcx-ingress
	ping_none "$POD" 10.10.2.2 || fail "$mode: path without egress redirect"
	expect_rc 0 "$mode: pod egress on the netkit-peer hook" -n "$HOST" -j redirect attach dev vH to vN hook netkit-peer
	expect_eq "$(printf '%s' "$OUT" | jq -r '.redirects[0].hook')" netkit-peer "$mode: hook reported"
	ping_ok "$POD" 10.10.2.2 || fail "$mode: no ping with the netkit-peer hook"
	pass "$mode: netkit-peer hook carries pod egress"
	expect_rc 0 "$mode: netkit-primary hook attaches through the primary" -n "$HOST" \
		redirect attach dev vH to vN hook netkit-primary
	expect_rc 0 "$mode: show" -n "$HOST" -j redirect show dev vH
	expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[].hook] | sort')" '["netkit-peer","netkit-primary"]' \
		"$mode: both netkit hooks listed"
	expect_rc 0 "$mode: detach all of vH" -n "$HOST" -j redirect detach dev vH
	expect_eq "$(printf '%s' "$OUT" | jq '.detached | length')" 2 "$mode: both removed"

	# The peer's ifindex is refused by the kernel (EACCES): explained.
	ip -n "$POD" link add vZ type dummy 2>/dev/null || ip -n "$POD" link add vZ type veth peer name vZ2
	expect_error 5 "$mode: netkit hook through the peer" -n "$POD" redirect attach dev vP to vZ hook netkit-peer
	expect_match "$ERR" 'through the primary device' "$mode: explains to use the primary"
done

ns_new S
nk -n "$S" link add nks type single
ip -n "$S" link add vA type veth peer name vB
expect_error 5 "netkit hooks on a single device" -n "$S" redirect attach dev nks to vA hook netkit-peer
expect_match "$ERR" 'single netkit device' "explains single devices"
done_testing
