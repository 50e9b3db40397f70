#!/bin/bash
# tier: both
# redirect with real packets: pod <-> host <-> remote with forwarding off;
# veth stands in for the netkit pair and the NIC (bpf_redirect_peer works on
# veth). Traffic flows only with both redirects; pins outlive nkctl; re-attach
# is a no-op or an atomic swap; detach stops it; refusals are clear.
. "$TESTSUITE/lib.sh"
need_root
need_cmd ping jq
modprobe veth 2>/dev/null || true
topo_pod_host_remote

ping_none "$POD" 10.10.2.2 || fail "pod reaches remote without redirects: forwarding is on?"
pass "no path without redirects"
expect_rc 0 "attach pod egress" -n "$HOST" -j redirect attach dev vH to vN
json_valid "attach -j"
first=$OUT
expect_eq "$(printf '%s' "$first" | jq -c '.redirects[0] | [.ifname, .hook, .action, .routes[0].target.ifname, .changed, .defunct]')" \
	'["vH","tcx-ingress","redirect-neigh","vN",true,false]' "egress defaults: tcx-ingress, redirect-neigh"
ping_none "$POD" 10.10.2.2 || fail "one redirect is enough?"
pass "one direction alone does not make a path"
expect_rc 0 "attach pod ingress" -n "$HOST" -j redirect attach dev vN to vH prefix 10.10.1.0/24 prefix fd01::/64
expect_eq "$(printf '%s' "$OUT" | jq -c '.redirects[0] | [.action, .routes[0].prefixes]')" \
	'["redirect-peer",["10.10.1.0/24","fd01::/64"]]' "prefixes mean redirect-peer"
ping_ok "$POD" 10.10.2.2 || fail "no ping pod -> remote"
pass "IPv4 ping through both redirects"
ping_ok "$POD" fd02::2 || fail "no ping6 pod -> remote"
pass "IPv6 ping: neighbour discovery answered locally"
tcp_ok "$POD" "$REMOTE" 10.10.2.2 || fail "TCP pod -> remote"
pass "TCP pod -> remote"
tcp_ok "$REMOTE" "$POD" 10.10.1.2 || fail "TCP remote -> pod"
pass "TCP remote -> pod"

# The pins hold the links after nkctl exited.
pin=$(printf '%s' "$first" | jq -r '.redirects[0].pin')
[ -e "$pin" ] || fail "no pin at $pin"
expect_eq "$(stat -c %a "$(dirname "$pin")")" 700 "pin directory is 0700"
pass "pinned at $pin"

# Same again: nothing changes.
expect_rc 0 "re-attach the same" -n "$HOST" -j redirect attach dev vH to vN
expect_eq "$(printf '%s' "$OUT" | jq -c '.redirects[0] | [.changed, .["prog-id"], .["link-id"]]')" \
	"[false,$(printf '%s' "$first" | jq '.redirects[0]["prog-id"]'),$(printf '%s' "$first" | jq '.redirects[0]["link-id"]')]" \
	"same configuration: no change"

# Prefixes filter: a pod address outside them is not delivered.
ip -n "$POD" addr add 10.10.1.3/24 dev vP
ping_ok "$REMOTE" 10.10.1.3 || fail "remote cannot reach .3 inside the /24"
expect_rc 0 "narrow the prefix" -n "$HOST" -j redirect attach dev vN to vH prefix 10.10.1.2/32 prefix fd01::/64
expect_eq "$(printf '%s' "$OUT" | jq -c '.redirects[0] | [.changed, .["link-id"] > 0]')" '[true,true]' "changed in place"
ping_ok "$REMOTE" 10.10.1.2 || fail "remote cannot reach .2 in the /32"
ping_none "$REMOTE" 10.10.1.3 || fail "remote reaches .3 outside the prefix"
pass "prefixes filter what is redirected"

# Atomic replace: traffic keeps flowing while the configuration flips (the
# ping runs from before the first replacement to after the last, and the
# replacements go on until at least 5 answers came while they ran).
ping_start "$POD" 10.10.2.2
i=0
while [ $i -lt 10 ] || ping_wants 5; do
	i=$((i + 1))
	"$NKCTL" -n "$HOST" redirect attach dev vN to vH prefix 10.10.1.0/24 prefix fd01::/64 > /dev/null || fail "re-attach $i"
	"$NKCTL" -n "$HOST" redirect attach dev vN to vH prefix 10.10.1.0/25 prefix fd01::/64 > /dev/null || fail "re-attach $i'"
done
ping_stop "no packet lost during $((2 * i)) replacements"

# show: ours with their configuration.
expect_rc 0 "redirect show" -n "$HOST" -j redirect show
json_valid "show -j"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[] | [.ifname, .action, .routes[0].target.ifname]] | sort')" \
	'[["vH","redirect-neigh","vN"],["vN","redirect-peer","vH"]]' "show lists both"
expect_eq "$(printf '%s' "$OUT" | jq -c '.foreign')" '[]' "no foreign programs here"
expect_rc 0 "redirect show dev" -n "$HOST" -j redirect show dev vN
expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[].ifname]')" '["vN"]' "show dev filters"

# Foreign programs on the same hooks are listed, not taken for ours.
TCXATTACH=${NKCTL_HELPERS:-$(dirname "$NKCTL")/helpers}/tcxattach
BPFOBJ=${NKCTL_BPF_OBJ:-$(dirname "$NKCTL")/bpf/redirect.bpf.o}
if [ -x "$TCXATTACH" ] && [ -f "$BPFOBJ" ]; then
	ip -n "$HOST" link add vF type veth peer name vG
	ip netns exec "$HOST" "$TCXATTACH" "$BPFOBJ" nk_peer "$(ifindex_of "$HOST" vF)" egress ||
		fail "attach a foreign program"
	expect_rc 0 "redirect attach next to a foreign program" -n "$HOST" redirect attach dev vF to vN hook tcx-egress
	expect_rc 0 "show with a foreign program" -n "$HOST" -j redirect show dev vF
	expect_eq "$(printf '%s' "$OUT" | jq -c '[.foreign[] | [.ifname, .hook, .["prog-name"], .["link-id"], (.["prog-id"] > 0)]]')" \
		'[["vF","tcx-egress","nk_peer",0,true]]' "the foreign program: prog id, name, no link"
	expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[] | .hook]')" '["tcx-egress"]' "ours beside it"
	expect_rc 0 "detach ours only" -n "$HOST" redirect detach dev vF
	expect_rc 0 "show again" -n "$HOST" -j redirect show dev vF
	expect_eq "$(printf '%s' "$OUT" | jq -c '[(.redirects | length), (.foreign | length)]')" '[0,1]' \
		"the foreign program stays"
fi

# Parallel invocations on one device serialise on the pin directory's lock.
pids=()
for i in $(seq 12); do
	if [ $((i % 2)) = 0 ]; then p=10.10.1.0/24; else p=10.10.1.0/25; fi
	"$NKCTL" -n "$HOST" redirect attach dev vN to vH prefix "$p" prefix fd01::/64 > /dev/null 2> "$T_TMP/par$i" &
	pids+=($!)
done
bad=0
for pid in "${pids[@]}"; do wait "$pid" || bad=$((bad + 1)); done
expect_eq "$bad" 0 "12 parallel attaches all succeed"
expect_rc 0 "one link after the race" -n "$HOST" -j redirect show dev vN
expect_eq "$(printf '%s' "$OUT" | jq '.redirects | length')" 1 "exactly one pinned link"
ping_ok "$POD" 10.10.2.2 || fail "no ping after the race"
pass "traffic flows after the race"

# Refusals.
expect_error 3 "no such device" -n "$HOST" redirect attach dev nope0 to vN
expect_error 3 "no such target" -n "$HOST" redirect attach dev vH to nope0
expect_error 1 "target is the device" -n "$HOST" redirect attach dev vH to vH
expect_error 1 "bad prefix" -n "$HOST" redirect attach dev vN to vH prefix 10.10.1.0/33
expect_error 1 "prefix with host bits" -n "$HOST" redirect attach dev vN to vH prefix 10.10.1.1/24
expect_error 1 "prefix without length" -n "$HOST" redirect attach dev vN to vH prefix 10.10.1.0
expect_error 1 "bad hook" -n "$HOST" redirect attach dev vH to vN hook xdp
expect_error 5 "netkit hook on a veth" -n "$HOST" redirect attach dev vH to vN hook netkit-primary
expect_match "$ERR" 'needs a netkit primary|has no netkit BPF hooks' "explains the hook"

# A defunct pin (device gone) is shown as such and healed by attach.
ip -n "$HOST" link add vX index 4000 type veth peer name vY
ip -n "$HOST" link set vX up
expect_rc 0 "attach on a device about to go" -n "$HOST" redirect attach dev vX to vN
ip -n "$HOST" link del vX
expect_rc 0 "show after the device went" -n "$HOST" -j redirect show
expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[] | select(.ifindex==4000) | .defunct]')" '[true]' "reported defunct"
ip -n "$HOST" link add vX index 4000 type veth peer name vY
ip -n "$HOST" link set vX up
expect_rc 0 "attach heals" -n "$HOST" -j redirect attach dev vX to vN
expect_eq "$(printf '%s' "$OUT" | jq -c '.redirects[0] | [.defunct, .changed]')" '[false,true]' "a fresh link"

# detach stops the traffic; again is not found unless -force.
expect_rc 0 "detach pod ingress" -n "$HOST" -j redirect detach dev vN
expect_eq "$(printf '%s' "$OUT" | jq -c '[.detached[] | [.ifname, .hook]]')" '[["vN","tcx-ingress"]]' "detach names what it removed"
ping_none "$POD" 10.10.2.2 || fail "ping still works after detach"
pass "traffic stops after detach"
expect_error 3 "detach again" -n "$HOST" redirect detach dev vN
expect_rc 0 "detach again with -force" -n "$HOST" -force redirect detach dev vN
expect_rc 0 "detach the rest" -n "$HOST" redirect detach dev vH hook tcx-ingress
[ -e "$pin" ] && fail "pin left behind"
pass "pins removed"
done_testing
