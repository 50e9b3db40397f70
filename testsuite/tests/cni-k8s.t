#!/bin/bash
# tier: vm
# timeout: 300
# examples/cni/nkctl-cni's Kubernetes semantics: by default a pod's egress
# goes through the host's stack (no egress redirect), so a kube-proxy-style
# DNAT rule for a Service address is reached from a pod; two pods of the
# node reach each other without a packet on the NIC, by default and with
# "egressRedirect" (the host's FIB sends them to the host's path). The pods'
# namespaces have IPv6 off by default (dual-stack ADD turns it on, as ptp).
# The pod's information file names its holder and queue ids; DEL removes it.
# DEL waits for a lingering memory provider (nkctl's unlease), boundedly.
. "$TESTSUITE/lib.sh"
. "$TESTSUITE/cni.sh"
topo_nic_remote
INFO=$T_TMP/info
conf() { # conf EGRESSREDIRECT: the network configuration, dual-stack
	jq -cn --arg nic "$SIM" --arg dir "$IPAMDIR" --arg info "$INFO" --argjson r "$1" '{
		cniVersion: "1.0.0", name: "nk", type: "nkctl-cni", nic: $nic, queues: "1-3",
		egressRedirect: $r, podInfoDir: $info,
		ipam: {type: "host-local", dataDir: $dir,
			ranges: [[{subnet: "10.20.0.0/16", gateway: "10.20.0.1"}],
				 [{subnet: "fd20::/64", gateway: "fd20::1"}]],
			routes: [{dst: "0.0.0.0/0"}, {dst: "::/0"}]}}'
}
# No IPv6 chatter of the host's own on the NIC: its counters count pods only.
ip netns exec "$HOST" sysctl -qw "net.ipv6.conf.$SIM.disable_ipv6=1"
sim_tx() { ip -n "$HOST" -j -s link show "$SIM" | jq '.[0].stats64.tx.packets'; }
PODS=() CIDS=() RES=() A4=() A6=()

# pods MODE: two pods, their addresses in A4[1..2], A6[1..2]
pods() {
	cni_conflist "$T_TMP/nk.conflist" "$(conf "$1")"
	for i in 1 2; do
		ns_new P
		PODS[$i]=$P CIDS[$i]=k8s$i$RANDOM
		ip netns exec "$P" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
		cni ADD "${CIDS[$i]}" "/run/netns/$P"
		[ "$RC" = 0 ] || fail "ADD pod $i (egressRedirect $1): $OUT $(cat "$T_TMP/cni.err")"
		RES[$i]=$OUT
		A4[$i]=$(printf '%s' "$OUT" | jq -r '.ips[] | select(.address | test("\\.")) | .address | split("/")[0]')
		A6[$i]=$(printf '%s' "$OUT" | jq -r '.ips[] | select(.address | test(":")) | .address | split("/")[0]')
	done
	pass "two dual-stack pods (egressRedirect $1) in namespaces with IPv6 off by default"
}

# local_path MODE: the pods reach each other, nothing leaves on the NIC;
# the remote and the pods reach each other.
local_path() {
	local tx
	tx=$(sim_tx)
	ping_ok "${PODS[1]}" "${A4[2]}" || fail "pod 1 cannot reach pod 2 ($1)"
	ping_ok "${PODS[2]}" "${A6[1]}" || fail "pod 2 cannot reach pod 1 over IPv6 ($1)"
	expect_eq "$(sim_tx)" "$tx" "pod to pod ($1): no packet on the NIC"
	ping_ok "${PODS[1]}" 10.10.2.2 || fail "pod 1 cannot reach the remote ($1)"
	ping_ok "$REMOTE" "${A4[2]}" || fail "the remote cannot reach pod 2 ($1)"
	pass "the pods and the remote reach each other ($1)"
}

del_pods() {
	for i in 1 2; do
		cni DEL "${CIDS[$i]}" "/run/netns/${PODS[$i]}"
		[ "$RC" = 0 ] || fail "DEL pod $i: $OUT $(cat "$T_TMP/cni.err")"
	done
	expect_eq "$(ls -A "$INFO" | wc -l) $(reservations)" "0 0" "DEL removed the information files and reservations"
}

# The default: through the host's stack.
pods false
expect_eq "$(ip netns exec "$HOST" sysctl -n net.ipv4.ip_forward)" 1 "ADD turned forwarding on in the host"
host1=$(printf '%s' "${RES[1]}" | jq -r '.interfaces[0].name')
nk -n "$HOST" -j redirect show dev "$host1"
expect_eq "$(printf '%s' "$OUT" | jq '.redirects | length')" 0 "no egress redirect by default"
expect_eq "$(printf '%s' "${RES[1]}" | jq -c '[.interfaces[2].name, .interfaces[2].sandbox]')" \
	"[\"$(jq -r .holder "$INFO/${CIDS[1]}-eth0.json")\",\"/run/netns/${PODS[1]}\"]" \
	"the result and the information file name the holder, in the pod"
nk -n "$HOST" -j show leases
expect_eq "$(jq -c --argjson l "$OUT" '[(.queues | length), .queues[0].id,
	(.queues[0]["nic-queue"] as $q | [$l.leases[] | .id] | index($q) != null)]' "$INFO/${CIDS[1]}-eth0.json")" \
	'[1,1,true]' "the information file has the holder's queue id and the NIC's, a lease"
local_path default
cni CHECK "${CIDS[1]}" "/run/netns/${PODS[1]}"
expect_eq "$RC $OUT" "0 " "CHECK passes without an egress redirect"
# kube-proxy's part: a Service address DNATed to its endpoint (the remote).
if ip netns exec "$HOST" iptables -t nat -A PREROUTING -d 10.96.0.10/32 -p icmp \
	-j DNAT --to-destination 10.10.2.2 2> "$T_TMP/ipt.err"; then
	ping_ok "${PODS[2]}" 10.96.0.10 || fail "pod 2 cannot reach the Service address through the host's DNAT"
	pass "a kube-proxy-style DNAT rule applies to the pod's egress"
	ip netns exec "$HOST" iptables -t nat -F PREROUTING
else
	echo "# no iptables NAT here: $(cat "$T_TMP/ipt.err")"
fi
del_pods

# egressRedirect: straight to the NIC, but not for the node's own pods.
pods true
nk -n "$HOST" -j redirect show dev "$(printf '%s' "${RES[1]}" | jq -r '.interfaces[0].name')"
expect_eq "$(printf '%s' "$OUT" | jq '.redirects | length')" 1 "egressRedirect attaches the egress redirect"
local_path egressRedirect
del_pods

# DEL ends the leases with nkctl's unlease in the pod: a memory provider
# lingering on the pod's queue (netdevsim's mp_linger) past the wait fails
# DEL and leaves the pod whole; once it goes, DEL succeeds and a new pod
# gets a lease.
pdir=/sys/kernel/debug/netdevsim/netdevsim$SIM_ID/ports/0/ethtool/nkctl
if [ -e "$pdir/mp_linger" ]; then
	cni_conflist "$T_TMP/nk.conflist" "$(conf false)"
	ns_new P
	cid=linger$RANDOM
	cni ADD "$cid" "/run/netns/$P"
	[ "$RC" = 0 ] || fail "ADD: $OUT $(cat "$T_TMP/cni.err")"
	q=$(jq -r '.queues[0]["nic-queue"]' "$INFO/$cid-eth0.json")
	echo "$q 60000" > "$pdir/mp_linger"
	cni DEL "$cid" "/run/netns/$P"
	expect_eq "$RC $(printf '%s' "$OUT" | jq -c '[.code, (.msg | test("still in use"))]')" "1 [100,true]" \
		"DEL fails while a provider stays past the wait, saying so"
	expect_eq "$(ip -n "$P" -o link show | grep -vc ': lo:')" 2 "the pod keeps its interface and holder"
	echo "$q 3000" > "$pdir/mp_linger"
	cni DEL "$cid" "/run/netns/$P"
	expect_eq "$RC" 0 "DEL again waits for the provider to go, then ends the lease"
	nk -n "$HOST" -j show leases
	expect_eq "$(printf '%s' "$OUT" | jq '.leases | length') $(reservations)" "0 0" "no lease or reservation left"
	ns_new P
	cni ADD "n$cid" "/run/netns/$P"
	expect_eq "$RC" 0 "the next ADD gets a lease"
	cni DEL "n$cid" "/run/netns/$P"
	expect_eq "$RC" 0 "and its DEL succeeds"
else
	echo "# this netdevsim has no mp_linger personality: DEL's provider wait not tried"
fi
done_testing
