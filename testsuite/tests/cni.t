#!/bin/bash
# tier: vm
# examples/cni/nkctl-cni driven with the real CNI protocol (CNI_* variables,
# the network configuration on stdin, the result on stdout): ADD builds the
# pair, the lease holder, the leases and the redirects; CHECK verifies; DEL
# removes all of it and can be repeated.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq nsenter
PLUGIN=$TESTSUITE/../examples/cni/nkctl-cni
ns_new HOST
ns_new POD
sim_new SIM "$HOST" 4
conf=$(jq -cn --arg nic "$SIM" '{cniVersion: "1.0.0", name: "nk", type: "nkctl-cni",
	nic: $nic, queues: "2-3", address: "10.10.1.2/24", gateway: "10.10.1.1"}')
cid=c0ffee$RANDOM

cni() { # cni COMMAND: run the plugin in HOST; sets RC, OUT
	OUT=$(printf '%s' "$conf" | nsenter --net="/run/netns/$HOST" env CNI_COMMAND="$1" \
		CNI_CONTAINERID="$cid" CNI_NETNS="/run/netns/$POD" CNI_IFNAME=eth0 CNI_PATH=/opt/cni/bin \
		NKCTL="$NKCTL" "$PLUGIN" 2> "$T_TMP/cni.err")
	RC=$?
}

cni VERSION
expect_eq "$RC" 0 "VERSION"
cni ADD
[ "$RC" = 0 ] || fail "ADD: $OUT $(cat "$T_TMP/cni.err")"
pass "ADD succeeds"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.cniVersion, .interfaces[1].name, .interfaces[1].sandbox, .ips[0].address, (.interfaces | length)]')" \
	"[\"1.0.0\",\"eth0\",\"/run/netns/$POD\",\"10.10.1.2/24\",3]" "the result names the interfaces and the address"
host=$(printf '%s' "$OUT" | jq -r '.interfaces[0].name')
holder=$(printf '%s' "$OUT" | jq -r '.interfaces[2].name')

# The kernel's state, read without nkctl.
expect_eq "$($NLPROBE -n "$POD" link eth0 | jq -c '[.kind, .netkit.primary]')" '["netkit",false]' "eth0 is the netkit peer in the pod"
expect_eq "$($NLPROBE -n "$HOST" link "$host" | jq -c '[.kind, .netkit.primary]')" '["netkit",true]' "the primary is in the host"
expect_eq "$($NLPROBE -n "$POD" link "$holder" | jq -r .netkit.pairing)" single "the lease holder is a single device in the pod"
for q in 2 3; do
	expect_eq "$(lease_of "$HOST" "$SIM" "$q" | jq -c '[.ifindex, (.["netns-id"]|type)]')" \
		"[$(ifindex_of "$POD" "$holder"),\"number\"]" "NIC queue $q is leased to the holder in the pod"
done
expect_eq "$(ip -n "$POD" -j addr show eth0 | jq -r '.[0].addr_info[] | select(.family=="inet") | .local')" 10.10.1.2 "the pod's address"
nk -n "$HOST" -j redirect show
expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[] | [.ifname, .action]] | sort')" \
	"$(jq -cn --arg h "$host" --arg s "$SIM" '[[$h, "redirect-neigh"], [$s, "redirect-peer"]] | sort')" "both redirects pinned"

cni CHECK
expect_eq "$RC" 0 "CHECK after ADD"

cni DEL
[ "$RC" = 0 ] || fail "DEL: $OUT $(cat "$T_TMP/cni.err")"
pass "DEL succeeds"
$NLPROBE -n "$POD" link eth0 > /dev/null 2>&1 && fail "eth0 is still in the pod"
$NLPROBE -n "$POD" link "$holder" > /dev/null 2>&1 && fail "the holder is still in the pod"
pass "DEL removed the pair and the holder"
expect_eq "$(lease_of "$HOST" "$SIM" 2)$(lease_of "$HOST" "$SIM" 3)" nullnull "the leases ended"
nk -n "$HOST" -j redirect show
expect_eq "$(printf '%s' "$OUT" | jq '.redirects | length')" 0 "no redirect left"

cni DEL
expect_eq "$RC" 0 "a repeated DEL succeeds"
cni CHECK
expect_eq "$RC" 1 "CHECK after DEL fails"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.code, (.msg | length > 0)]')" '[100,true]' "with a CNI error object"
done_testing
