#!/bin/bash
# tier: host
# timeout: 300
# Many pods on one NIC (issue 14): a route table on the NIC's ingress hook.
# HOST has the NIC vN (peer vR in REMOTE) and, per pod, a veth hI standing in
# for the netkit primary (peer vP in POD i). Forwarding is off in HOST, so a
# pod reaches REMOTE only through nkctl's redirects. A continuous ping to pod
# 1 loses nothing while the other pods' routes come and go; conflicts, replace,
# default route, longest match, ip netns exec, prune and 16 writers at once.
. "$TESTSUITE/lib.sh"
need_root
need_cmd ping jq bpftool
modprobe veth 2>/dev/null || true

ns_new HOST
ns_new REMOTE
ip -n "$HOST" link add vN type veth peer name vR netns "$REMOTE" || fail "veth NIC"
ip -n "$HOST" addr add 10.10.2.1/24 dev vN
ip -n "$HOST" -6 addr add fd02::1/64 dev vN nodad
ip -n "$HOST" link set vN up
ip -n "$REMOTE" addr add 10.10.2.2/24 dev vR
ip -n "$REMOTE" -6 addr add fd02::2/64 dev vR nodad
ip -n "$REMOTE" link set vR up
ip -n "$REMOTE" route add 10.20.0.0/16 via 10.10.2.1
ip -n "$REMOTE" -6 route add fd20::/16 via fd02::1
ip netns exec "$HOST" sysctl -qw net.ipv4.ip_forward=0 net.ipv6.conf.all.forwarding=0
PODS=()
for i in 1 2 3 4; do
	ns_new P
	PODS[$i]=$P
	ip -n "$HOST" link add "h$i" type veth peer name vP netns "$P" || fail "veth pod $i"
	ip -n "$HOST" addr add "10.20.$i.1/24" dev "h$i"
	ip -n "$HOST" -6 addr add "fd20:$i::1/64" dev "h$i" nodad
	ip -n "$HOST" link set "h$i" up
	ip -n "$P" addr add "10.20.$i.2/24" dev vP
	ip -n "$P" -6 addr add "fd20:$i::2/64" dev vP nodad
	ip -n "$P" link set vP up
	ip -n "$P" route add default via "10.20.$i.1"
	ip -n "$P" -6 route add default via "fd20:$i::1"
done
NSDIR=$(ns_pindir "$HOST")
nkh() { nk -n "$HOST" "$@"; }
routes_of() { # routes_of TARGET: its prefixes on vN, as show lists them
	nkh -j redirect show dev vN
	printf '%s' "$OUT" | jq -c --arg t "$1" '[.redirects[].routes[] | select(.target.ifname==$t) | .prefixes[]]'
}

ping_none "${PODS[1]}" 10.10.2.2 || fail "pod 1 reaches the remote without redirects: forwarding is on?"
pass "no path without redirects"
for i in 1 2 3 4; do
	expect_rc 0 "pod $i egress" -n "$HOST" redirect attach dev "h$i" to vN
done
expect_rc 0 "pod 1 ingress: the NIC's first route loads the program" -n "$HOST" -j redirect attach dev vN to h1 \
	prefix 10.20.1.0/24 prefix fd20:1::/64
expect_eq "$(printf '%s' "$OUT" | jq -c '.redirects[0] | [.action, .changed, .replaced]')" '["redirect-peer",true,false]' "attached"
expect_match "$(nkh redirect attach dev vN to h1 prefix 10.20.1.0/24 prefix fd20:1::/64; echo "$OUT")" '\(unchanged\)' \
	"the same call again says unchanged"
prog=$(nkh -j redirect show dev vN; printf '%s' "$OUT" | jq '.redirects[0]["prog-id"]')
ping_ok "${PODS[1]}" 10.10.2.2 || fail "pod 1 -> remote"
ping_ok "$REMOTE" fd20:1::2 || fail "remote -> pod 1 (IPv6)"
pass "pod 1 reaches the remote and back, IPv4 and IPv6"

# A continuous ping to pod 1 while pods 2-4 come and go, one by one and in
# parallel: it runs from before the first change to after the last.
ping_start "$REMOTE" 10.20.1.2
for i in 2 3 4; do
	expect_rc 0 "pod $i ingress" -n "$HOST" redirect attach dev vN to "h$i" prefix "10.20.$i.0/24" prefix "fd20:$i::/64"
	ping_ok "${PODS[$i]}" 10.10.2.2 || fail "pod $i -> remote"
	ping_ok "$REMOTE" "fd20:$i::2" || fail "remote -> pod $i"
	pass "pod $i reaches the remote and back"
done
for i in 2 3 4; do
	expect_rc 0 "pod $i other prefixes" -n "$HOST" redirect attach dev vN to "h$i" prefix "10.20.$i.0/25" prefix "fd20:$i::/64"
	expect_eq "$(routes_of "h$i")" "[\"10.20.$i.0/25\",\"fd20:$i::/64\"]" "pod $i routes are exactly the new set"
	expect_rc 0 "pod $i detach" -n "$HOST" redirect detach dev vN to "h$i"
	ping_none "$REMOTE" "10.20.$i.2" || fail "remote still reaches pod $i after its detach"
	pass "pod $i unreachable after its detach"
done
for round in 1 2 3; do
	pids=()
	for i in 2 3 4; do
		( "$NKCTL" -n "$HOST" redirect attach dev vN to "h$i" prefix "10.20.$i.0/24" prefix "fd20:$i::/64" &&
		  "$NKCTL" -n "$HOST" redirect attach dev vN to "h$i" prefix "10.20.$i.0/24" &&
		  { [ $round = 3 ] || "$NKCTL" -n "$HOST" redirect detach dev vN to "h$i"; } ) > /dev/null 2>> "$T_TMP/par.err" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || fail "parallel round $round: $(cat "$T_TMP/par.err")"; done
done
pass "pods 2-4 attached, re-attached and detached in parallel"
ping_stop "pod 1 lost no packet meanwhile"
nkh -j redirect show dev vN
expect_eq "$(printf '%s' "$OUT" | jq '.redirects[0]["prog-id"]')" "$prog" "the program was never reloaded"
for i in 2 3 4; do
	ping_ok "$REMOTE" "10.20.$i.2" || fail "remote -> pod $i after the parallel rounds"
done
pass "pods 2-4 reachable after the parallel rounds"

# Conflicts, replace, longest match, default route.
expect_error 4 "a prefix another pod holds" -n "$HOST" redirect attach dev vN to h3 prefix 10.20.2.0/24
expect_match "$ERR" '"h2"' "the error names the holder"
expect_rc 0 "replace moves it" -n "$HOST" -j redirect attach dev vN to h3 prefix 10.20.3.0/24 prefix 10.20.2.0/24 replace
expect_eq "$(printf '%s' "$OUT" | jq -c '.redirects[0] | [.changed, .replaced]')" '[true,true]' "reported replaced"
expect_eq "$(routes_of h2)" '[]' "pod 2 lost the prefix"
ping_none "$REMOTE" 10.20.2.2 || fail "10.20.2.2 still goes to pod 2"
pass "the moved prefix goes to pod 3 now"
expect_rc 0 "pod 3 back to its own" -n "$HOST" redirect attach dev vN to h3 prefix 10.20.3.0/24
expect_rc 0 "pod 2 gets a /16" -n "$HOST" redirect attach dev vN to h2 prefix 10.20.0.0/16
ip -n "${PODS[2]}" addr add 10.20.9.2/16 dev vP
ping_ok "$REMOTE" 10.20.9.2 || fail "the /16 does not reach pod 2"
ping_ok "$REMOTE" 10.20.3.2 || fail "the /24 inside the /16 does not reach pod 3"
ping_ok "$REMOTE" 10.20.1.2 || fail "pod 1's /24 inside the /16"
pass "longest prefix wins: /24s inside pod 2's /16 go to their pods"
before=$(routes_of h4)
expect_error 1 "a NIC's table takes no default route by omission" -n "$HOST" redirect attach dev vN to h4
expect_match "$ERR" 'say "prefix 0.0.0.0/0" \(or "prefix default"\)' "the error says how to name one"
expect_eq "$(routes_of h4)" "$before" "pod 4's routes are as they were after the refusal"
expect_rc 0 "pod 4 holds the default route" -n "$HOST" -j redirect attach dev vN to h4 prefix default
expect_eq "$(printf '%s' "$OUT" | jq -c '.redirects[0].routes[0].prefixes')" '["0.0.0.0/0","::/0"]' "prefix default: the default routes of both families"
ip -n "$REMOTE" route add 10.99.0.0/16 via 10.10.2.1
ip -n "${PODS[4]}" addr add 10.99.0.2/16 dev vP
ping_ok "$REMOTE" 10.99.0.2 || fail "the default route does not reach pod 4"
pass "the default route carries what no other route matches"
expect_error 4 "a second default route" -n "$HOST" redirect attach dev vN to h3 prefix 0.0.0.0/0
expect_error 4 "pod egress has one target" -n "$HOST" redirect attach dev h1 to h2
expect_rc 0 "pod egress with replace" -n "$HOST" redirect attach dev h1 to h2 replace
expect_match "$OUT" '\(replaced\)' "says replaced"
expect_rc 0 "pod egress back" -n "$HOST" redirect attach dev h1 to vN replace
ping_ok "${PODS[1]}" 10.10.2.2 || fail "pod 1 egress after replace"
pass "pod 1 egress restored"
expect_rc 0 "show" -n "$HOST" -j redirect show
expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[] | select(.ifname=="vN") | .routes[] | [.target.ifname, .prefixes, .defunct]]')" \
	'[["h1",["10.20.1.0/24","fd20:1::/64"],false],["h2",["10.20.0.0/16"],false],["h3",["10.20.3.0/24"],false],["h4",["0.0.0.0/0","::/0"],false]]' \
	"show: the NIC's route table, per target"
expect_eq "$(bpftool -j map dump pinned "$NSDIR/dev$(ifindex_of "$HOST" vN)/tcx-ingress-v4" | jq length)" 4 \
	"the kernel's IPv4 trie holds exactly those routes"

# ip netns exec: the pins go to the host's bpffs and outlive nkctl.
ip netns exec "$HOST" "$NKCTL" -j redirect attach dev vN to h3 prefix 10.20.3.0/24 prefix fd20:3::/64 > "$T_TMP/exec.json" ||
	fail "attach under ip netns exec"
expect_eq "$(jq -r '.redirects[0].pin' "$T_TMP/exec.json")" "$NSDIR/dev$(ifindex_of "$HOST" vN)/tcx-ingress" \
	"ip netns exec: the pin is in the host's bpffs"
expect_eq "$(routes_of h3)" '["10.20.3.0/24","fd20:3::/64"]' "ip netns exec: the routes are there after nkctl exited"
ping_ok "$REMOTE" fd20:3::2 || fail "ip netns exec: the route does not carry packets"
pass "ip netns exec: the route carries packets after nkctl exited"
ip netns exec "$HOST" "$NKCTL" -j redirect show > "$T_TMP/exec-show.json" || fail "show under ip netns exec"
expect_eq "$(jq -c '[(.redirects | length), (.foreign | length)]' "$T_TMP/exec-show.json")" '[5,0]' \
	"ip netns exec: show finds nkctl's programs, none foreign"

# A pod device deleted: its routes stop matching, show marks them, prune removes them.
h4idx=$(ifindex_of "$HOST" h4)
ip -n "$HOST" link del h4
ping_ok "$REMOTE" 10.10.2.1 || fail "the host itself unreachable"
expect_rc 0 "show after h4 went" -n "$HOST" -j redirect show
expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[] | .routes[] | select(.target.ifname=="h4") | .defunct]')" '[true]' \
	"the route to the gone device is defunct"
expect_eq "$(printf '%s' "$OUT" | jq -c "[.redirects[] | select(.ifindex==$h4idx) | [.ifname, .hook, .defunct]]")" \
	'[["h4","tcx-ingress",true]]' "h4's own pin: named by what it recorded"
expect_rc 0 "prune" -n "$HOST" -j redirect prune
expect_eq "$(printf '%s' "$OUT" | jq -c '[.pruned[] | [.ifname, .["hook-removed"], [.routes[].target.ifname]]] | sort')" \
	'[["h4",true,["vN"]],["vN",false,["h4"]]]' "prune removes h4's pins and its route on the NIC"
[ -e "$NSDIR/dev$h4idx" ] && fail "h4's pin directory left"
pass "h4's pin directory removed"
expect_rc 0 "prune again" -n "$HOST" -j redirect prune
expect_eq "$OUT" '{"pruned":[],"old-pins":[],"xsk-pruned":[]}' "prune is idempotent"
ping_ok "$REMOTE" 10.20.1.2 || fail "pod 1 after prune"
pass "the other pods keep working"

# A whole namespace with pins deleted: prune removes its directory.
ns_new GONE
ip -n "$GONE" link add gA type veth peer name gB
ip -n "$GONE" link set gA up
expect_rc 0 "pins in a namespace about to go" -n "$GONE" redirect attach dev gA to gB
gdir=$(ns_pindir "$GONE")
[ -d "$gdir" ] || fail "no pins in $gdir"
ip netns del "$GONE"
for _ in $(seq 600); do
	[ "$(bpftool -j link show pinned "$gdir"/dev*/tcx-ingress 2>/dev/null | jq '.ifindex // 0')" = 0 ] && break
	sleep 0.1
done
expect_rc 0 "prune after the namespace went" -j redirect prune
expect_match "$OUT" '"ifname":"gA"' "prune names the gone namespace's device"
[ -e "$gdir" ] && fail "the gone namespace's directory is left: $(ls -R "$gdir")"
pass "bpffs holds nothing of the gone namespace"

# 16 writers on one NIC, a pod each: the routes of the last successful call of each.
for k in $(seq 16); do ip -n "$HOST" link add "w$k" type dummy 2>/dev/null || ip -n "$HOST" link add "w$k" type veth peer name "x$k"; done
pids=()
for k in $(seq 16); do
	(
		for r in 1 2 3 4 5; do
			"$NKCTL" -n "$HOST" redirect attach dev vN to "w$k" prefix "10.$((100 + k)).$r.0/24" prefix "fd99:$k::/64" || exit 1
			"$NKCTL" -n "$HOST" redirect detach dev vN to "w$k" || exit 1
		done
		[ $((k % 2)) = 0 ] || exit 0
		"$NKCTL" -n "$HOST" redirect attach dev vN to "w$k" prefix "10.$((100 + k)).9.0/24" || exit 1
	) > /dev/null 2>> "$T_TMP/w.err" &
	pids+=($!)
done
bad=0
for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
expect_eq "$bad" 0 "16 writers: every call succeeded $(cat "$T_TMP/w.err")"
nkh -j redirect show dev vN
for k in $(seq 16); do
	got=$(printf '%s' "$OUT" | jq -c --arg t "w$k" '[.redirects[].routes[] | select(.target.ifname==$t) | .prefixes[]]')
	if [ $((k % 2)) = 0 ]; then want="[\"10.$((100 + k)).9.0/24\"]"; else want='[]'; fi
	[ "$got" = "$want" ] || fail "w$k: routes $got, expected $want"
done
pass "16 writers: each pod has exactly the routes of its last call"
expect_eq "$(bpftool -j map dump pinned "$NSDIR/dev$(ifindex_of "$HOST" vN)/tcx-ingress-v4" | jq length)" $((3 + 8)) \
	"16 writers: the IPv4 trie holds exactly the routes shown"

# The last route takes the program with it.
for t in h1 h2 h3 $(seq -f 'w%g' 2 2 14); do
	expect_rc 0 "detach $t" -n "$HOST" -j redirect detach dev vN to "$t"
	expect_eq "$(printf '%s' "$OUT" | jq -c '.detached[0]["hook-removed"]')" false "routes remain after $t's detach"
done
expect_rc 0 "detach the last route" -n "$HOST" -j redirect detach dev vN to w16
expect_eq "$(printf '%s' "$OUT" | jq -c '.detached[0]["hook-removed"]')" true "the last route's detach removed the program"
expect_error 3 "nothing left to detach" -n "$HOST" redirect detach dev vN
[ -e "$NSDIR/dev$(ifindex_of "$HOST" vN)" ] && fail "the NIC's pins are left"
pass "no pins left for the NIC"
done_testing
