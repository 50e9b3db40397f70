#!/bin/bash
# tier: host
# timeout: 120
# A route's target is a device, not an ifindex (issue 23): the NIC's table
# routes 10.20.1.0/24 to pod device h1; h1 is deleted behind nkctl's back and
# a new device is made with h1's ifindex (ip link add ... index N), its peer
# in another namespace holding the pod's address. Packets for the pod must
# not reach the newcomer: the program looks its target up in a device map
# whose entry the kernel dropped with h1. show says defunct; prune heals; an
# attach to the newcomer routes to it.
. "$TESTSUITE/lib.sh"
need_root
need_cmd ping jq bpftool
modprobe veth 2>/dev/null || true

ns_new HOST
ns_new REMOTE
ns_new POD
ns_new NEW
ip -n "$HOST" link add vN type veth peer name vR netns "$REMOTE" || fail "veth NIC"
ip -n "$HOST" addr add 10.10.2.1/24 dev vN
ip -n "$HOST" link set vN up
ip -n "$REMOTE" addr add 10.10.2.2/24 dev vR
ip -n "$REMOTE" link set vR up
ip -n "$REMOTE" route add 10.20.0.0/16 via 10.10.2.1
ip netns exec "$HOST" sysctl -qw net.ipv4.ip_forward=0
# pod_dev NAME NETNS: a veth NAME in HOST (the pod's netkit primary stand-in)
# whose peer vP in NETNS holds the pod's address 10.20.1.2. Extra: ip link args.
pod_dev() {
	ip -n "$HOST" link add "$1" "${@:3}" type veth peer name vP netns "$2" || fail "veth $1"
	ip -n "$HOST" addr add 10.20.1.1/24 dev "$1"
	ip -n "$HOST" link set "$1" up
	ip -n "$2" addr add 10.20.1.2/24 dev vP
	ip -n "$2" link set vP up
	ip -n "$2" route add default via 10.20.1.1
}
# echo_requests NETNS: ICMP echo requests the namespace's stack received.
echo_requests() {
	ip netns exec "$1" awk '/^Icmp:/ { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 } else print $c["InEchos"] }' /proc/net/snmp
}
nkh() { nk -n "$HOST" "$@"; }
NSDIR=$(ns_pindir "$HOST")

pod_dev h1 "$POD"
idx=$(ifindex_of "$HOST" h1)
vnidx=$(ifindex_of "$HOST" vN)
DEVS="$NSDIR/dev$vnidx/tcx-ingress-devs"
expect_rc 0 "pod egress" -n "$HOST" redirect attach dev h1 to vN
expect_rc 0 "pod ingress" -n "$HOST" redirect attach dev vN to h1 prefix 10.20.1.0/24
ping_ok "$REMOTE" 10.20.1.2 || fail "remote -> pod"
pass "the pod is reachable through its routes"
# (no BTF: bpftool prints the value's bytes, little-endian)
expect_eq "$(bpftool -j map dump pinned "$DEVS" | jq -c '[.[].value | map(ltrimstr("0x")) | reverse | join("")]')" \
	"[\"$(printf %08x "$idx")\"]" \
	"the device map holds the target (bpftool)"

# h1 goes behind nkctl's back; a newcomer takes its ifindex.
ip -n "$HOST" link del h1
expect_eq "$(bpftool -j map dump pinned "$DEVS" | jq -c 'length')" 0 \
	"the kernel dropped the target's device map entry with the device"
pod_dev imp "$NEW" index "$idx"
expect_eq "$(ifindex_of "$HOST" imp)" "$idx" "the newcomer has the dead pod's ifindex"
before=$(echo_requests "$NEW")
ip netns exec "$REMOTE" ping -c 20 -i 0.05 -W 1 10.20.1.2 > /dev/null 2>&1
expect_eq "$(( $(echo_requests "$NEW") - before ))" 0 "none of 20 echo requests reached the newcomer"
expect_rc 0 "show" -n "$HOST" -j redirect show dev vN
expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[].routes[] | [.target.ifname, .target.ifindex, .defunct]]')" \
	"[[\"h1\",$idx,true]]" "show: the route to h1 is defunct"

expect_rc 0 "prune heals" -n "$HOST" -j redirect prune
expect_match "$(printf '%s' "$OUT" | jq -c '[.pruned[] | select(.ifname=="vN") | .routes[].target.ifname]')" '"h1"' \
	"prune removes h1's route on the NIC"
expect_rc 0 "show after prune" -n "$HOST" -j redirect show dev vN
expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[].routes[]]')" '[]' "no route left"

# The newcomer is a target once nkctl is asked (it identifies it first).
expect_rc 0 "attach to the newcomer" -n "$HOST" redirect attach dev vN to imp prefix 10.20.1.0/24
expect_rc 0 "the newcomer's egress" -n "$HOST" redirect attach dev imp to vN
before=$(echo_requests "$NEW")
ping_ok "$REMOTE" 10.20.1.2 || fail "remote -> newcomer after its attach"
[ "$(( $(echo_requests "$NEW") - before ))" -ge 1 ] || fail "the newcomer's stack saw no echo request"
pass "an attach to the newcomer routes to it"

# A table an older nkctl made has no device map pin: it keeps its routes and
# the next attach moves it onto the current program in place.
nkh -j redirect show dev vN
prog=$(printf '%s' "$OUT" | jq '.redirects[0]["prog-id"]')
link=$(printf '%s' "$OUT" | jq '.redirects[0]["link-id"]')
rm "$DEVS"
expect_rc 0 "show without the device map" -n "$HOST" -j redirect show dev vN
expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[] | [.defunct, [.routes[].target.ifname]]]')" '[[false,["imp"]]]' \
	"a table without its device map is not defunct"
expect_rc 0 "attach on the older table" -n "$HOST" redirect attach dev vN to imp prefix 10.20.1.0/24 prefix 10.21.0.0/16
expect_eq "$(bpftool -j map dump pinned "$DEVS" | jq -c '[.[].value | map(ltrimstr("0x")) | reverse | join("")]')" \
	"[\"$(printf %08x "$idx")\"]" "the attach pinned a device map holding the live target"
nkh -j redirect show dev vN
[ "$(printf '%s' "$OUT" | jq '.redirects[0]["prog-id"]')" != "$prog" ] || fail "the program was not replaced"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[0]["link-id"], [.redirects[0].routes[].prefixes]]')" \
	"[$link,[[\"10.20.1.0/24\",\"10.21.0.0/16\"]]]" "same link, the routes kept and the new one added"
ping_ok "$REMOTE" 10.20.1.2 || fail "remote -> newcomer after the move"
pass "the moved table carries packets"
expect_rc 0 "detach" -n "$HOST" redirect detach dev vN to imp
[ -e "$DEVS" ] && fail "the last detach left the table's pins"
pass "the last detach removes the table, its device map with it"

# An older nkctl's pin directory (net<inode>, no cookie): prune without -n
# removes it and says so; with -n it is not looked at.
OLD=/sys/fs/bpf/nkctl/net$((4100000000 + $$ % 100000))
mkdir -p -m 0700 "$OLD/dev3"
defer "rm -rf '$OLD'"
bpftool map create "$OLD/dev3/tcx-ingress-v4" type hash key 4 value 4 entries 1 name nkold || fail "old pin"
expect_rc 0 "prune -n" -n "$HOST" -j redirect prune
expect_eq "$(printf '%s' "$OUT" | jq -c '.["old-pins"]')" '[]' "prune -n leaves other directories alone"
[ -e "$OLD/dev3/tcx-ingress-v4" ] || fail "prune -n removed an old-format pin"
expect_rc 0 "prune" -j redirect prune
expect_eq "$(printf '%s' "$OUT" | jq -c --arg d "$OLD" '[.["old-pins"][] | select(.pin == $d) | .removed]')" '[true]' \
	"prune names the old directory as removed"
[ -e "$OLD" ] && fail "the old directory is left"
pass "the old directory is gone"
expect_match "$("$NKCTL" redirect prune; mkdir -p -m 0700 "$OLD/dev3"; "$NKCTL" redirect prune)" \
	"$OLD: pins of an older nkctl .* removed, their redirects detached: attach them again" "the text says what went and what to do"
done_testing
