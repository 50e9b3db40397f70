#!/bin/bash
# tier: vm
# timeout: 900
# cni/nkctl-cni's Kubernetes semantics: by default a pod's egress
# goes through the host's stack (no egress redirect), so a kube-proxy-style
# DNAT rule for a Service address is reached from a pod; two pods of the
# node reach each other without a packet on the NIC, by default and with
# "egressRedirect" (the host's FIB sends them to the host's path). The pods'
# namespaces have IPv6 off by default (dual-stack ADD turns it on, as ptp).
# The pod's information file names its holder and queue ids; DEL removes it.
# DEL waits for a lingering memory provider (nkctl's unlease), boundedly.
# GC of two stale pods, one with a lingering provider: the other goes, the
# lingering one stays whole and GC names it; the next GC takes it.
# Multi-queue pods (queuesPerPod 2 and 4) on netdevsim's rss_contexts
# personality and without contexts: CHECK follows rule -> RSS context -> the
# lease's queues, the pod's flows arrive on its queues only, CHECK names a
# rule an operator deleted (ethtool -N), the host's route and gateway;
# DEL leaves nothing. Chained plugins after nkctl-cni through libcni:
# tuning, portmap, firewall, sbr work (their effect seen, CHECK passes with
# sbr's routes out of the main table, DEL leaves nothing); bandwidth
# refuses a netkit pair (it wants a veth peer).
. "$TESTSUITE/lib.sh"
. "$TESTSUITE/cni.sh"
topo_nic_remote 8
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
PODS=() CIDS=() RES=() A4=() A6=() NAT=

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
	NAT=yes
else
	skip_part nat "no iptables NAT here: $(cat "$T_TMP/ipt.err")"
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
	expect_eq "$(printf '%s' "$OUT" | jq --arg s "$SIM" '[.leases[] | select(.ifname == $s)] | length') $(reservations)" "0 0" "no lease or reservation left"
	ns_new P
	cni ADD "n$cid" "/run/netns/$P"
	expect_eq "$RC" 0 "the next ADD gets a lease"
	cni DEL "n$cid" "/run/netns/$P"
	expect_eq "$RC" 0 "and its DEL succeeds"

	# GC of two stale pods, one with a provider past the wait: GC's one
	# unlease line for both is refused and nothing goes by it; each pod's
	# own line then takes the other, the lingering one stays whole (its
	# address too) and GC fails naming it; once it goes, the next GC.
	gc_none() {
		OUT=$(conf false | jq -c '.cniVersion = "1.1.0" | . + {"cni.dev/valid-attachments": []}' |
			nsenter --net="/run/netns/$HOST" env CNI_COMMAND=GC CNI_PATH="$T_TMP/bin" \
			NKCTL="$NKCTL" "$PLUGIN" 2> "$T_TMP/gc.err")
		RC=$?
	}
	ns_new P
	cni ADD "gcl$cid" "/run/netns/$P"
	[ "$RC" = 0 ] || fail "ADD: $OUT $(cat "$T_TMP/cni.err")"
	lp=$P
	ns_new P
	cni ADD "gco$cid" "/run/netns/$P"
	[ "$RC" = 0 ] || fail "ADD: $OUT $(cat "$T_TMP/cni.err")"
	q=$(jq -r '.queues[0]["nic-queue"]' "$INFO/gcl$cid-eth0.json")
	echo "$q 60000" > "$pdir/mp_linger"
	gc_none
	expect_eq "$RC $(printf '%s' "$OUT" | jq -c --arg c "gcl$cid" '[.code, (.msg | test($c) and test("still in use"))]')" \
		"1 [100,true]" "GC fails naming the pod whose provider stays past the wait"
	expect_eq "$(ip -n "$lp" -o link show | grep -vc ': lo:') $(ip -n "$P" -o link show | grep -vc ': lo:') $(reservations) $(ls -A "$INFO")" \
		"2 0 2 gcl$cid-eth0.json" "the lingering pod stays whole (its two addresses too), the other is gone"
	echo "$q 0" > "$pdir/mp_linger"
	gc_none
	expect_eq "$RC $OUT" "0 " "the next GC, once the provider went"
	nk -n "$HOST" -j show leases
	expect_eq "$(printf '%s' "$OUT" | jq --arg s "$SIM" '[.leases[] | select(.ifname == $s)] | length') $(reservations) $(ls -A "$INFO" | wc -l)" "0 0 0" \
		"GC left no lease, reservation or information file"
else
	skip_part mp-linger "this netdevsim has no mp_linger personality: DEL's provider wait not tried"
fi
# Multi-queue pods: queuesPerPod N of the pool 1-7, with and without RSS
# contexts; the remote's flows to the pod counted per NIC queue.
mq_conf() { # mq_conf N
	jq -cn --arg nic "$SIM" --arg dir "$IPAMDIR" --arg info "$INFO" --argjson n "$1" '{
		cniVersion: "1.0.0", name: "nk", type: "nkctl-cni", nic: $nic, queues: "1-7",
		queuesPerPod: $n, podInfoDir: $info,
		ipam: {type: "host-local", dataDir: $dir,
			ranges: [[{subnet: "10.20.0.0/16", gateway: "10.20.0.1"}]], routes: [{dst: "0.0.0.0/0"}]}}'
}
sim_if=$(ifindex_of "$HOST" "$SIM")
rxq() { $NLPROBE -n "$HOST" qstats "$sim_if" | jq -c '[.[] | select(.type=="rx")] | sort_by(.id) | map(.["rx-packets"])'; }
udp_in() { ip netns exec "$1" awk '$1=="Udp:"&&$2~/^[0-9]/{print $2+$3}' /proc/net/snmp; }
# flows POD ADDR N: one datagram from each of N sockets of the remote to
# ADDR; the per-queue RX packets they added once the pod has them all.
flows() {
	local q0 u0
	q0=$(rxq) u0=$(udp_in "$1")
	ip netns exec "$REMOTE" $PY -c '
import socket, sys
for _ in range(int(sys.argv[2])):
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"mq" * 32, (sys.argv[1], 7020))' "$2" "$3"
	for _ in $(seq 50); do
		[ $(($(udp_in "$1") - u0)) -ge "$3" ] && break
		sleep 0.1
	done
	jq -n -c --argjson a "$q0" --argjson b "$(rxq)" '[range($a | length) | $b[.] - $a[.]]'
}
# nothing_left WHAT: no lease, rule, RSS context, reservation, file, pair.
nothing_left() {
	nk -n "$HOST" -j show leases
	local l=$OUT
	nk -n "$HOST" -j nic show dev "$SIM"
	expect_eq "$(jq -n -c --argjson l "$l" --argjson n "$OUT" --arg s "$SIM" \
		'[([$l.leases[] | select(.ifname == $s)] | length), ($n.nics[0].rules | length), ($n.nics[0]["rss-contexts"] // [] | length)]') $(reservations) $(ls -A "$INFO" | wc -l) $(ip -n "$HOST" -o link show | grep -c 'nk[0-9a-f]\{10\}@')" \
		"[0,0,0] 0 0 0" "$1: no lease, rule, RSS context, reservation, information file or pair left"
}
pdir=/sys/kernel/debug/netdevsim/netdevsim$SIM_ID/ports/0/ethtool/nkctl
multi_queue() { # multi_queue N CONTEXTS(0|1)
	local what="queuesPerPod $1, $([ "$2" = 1 ] && echo "RSS contexts" || echo "no RSS contexts")"
	local cid=mq$1$2$RANDOM a qs d rule host
	echo "$2" > "$pdir/rss_contexts"
	cni_conflist "$T_TMP/mq.conflist" "$(mq_conf "$1")"
	ns_new P
	cni ADD "$cid" "/run/netns/$P" "$T_TMP/mq.conflist"
	[ "$RC" = 0 ] || fail "ADD ($what): $OUT $(cat "$T_TMP/cni.err")"
	a=$(printf '%s' "$OUT" | jq -r '.ips[0].address | split("/")[0]')
	host=$(printf '%s' "$OUT" | jq -r '.interfaces[0].name')
	qs=$(jq -c '[.queues[]["nic-queue"]] | sort' "$INFO/$cid-eth0.json")
	expect_eq "$(jq length <<<"$qs")" "$1" "$what: the pod leased $1 queues"
	cni CHECK "$cid" "/run/netns/$P" "$T_TMP/mq.conflist"
	expect_eq "$RC $OUT" "0 " "$what: CHECK passes"
	d=$(flows "$P" "$a" 32)
	echo "# $what: 32 flows per NIC queue: $d (the pod's: $qs)"
	if [ "$2" = 1 ]; then
		expect_eq "$(jq -n -c --argjson d "$d" --argjson q "$qs" '[([$q[] | $d[.]] | add), ([$q[] | $d[.] > 0] | all)]')" \
			"[32,true]" "$what: the flows spread over all the pod's queues, none elsewhere"
	else
		nk -n "$HOST" -j steer show dev "$SIM"
		rule=$(printf '%s' "$OUT" | jq --arg a "$a" '.nics[0].rules[] | select(.dst == $a) | .queue')
		expect_eq "$(jq -n -c --argjson d "$d" --argjson q "$qs" --argjson r "$rule" '[($q | index($r) != null), $d[$r]]')" \
			"[true,32]" "$what: the flows all go to the pod's first queue"
	fi
	# The operator deletes the steering rule behind nkctl.
	nk -n "$HOST" -j steer show dev "$SIM"
	ip netns exec "$HOST" ethtool -N "$SIM" delete \
		"$(printf '%s' "$OUT" | jq --arg a "$a" '.nics[0].rules[] | select(.dst == $a) | .id')" ||
		fail "ethtool -N delete"
	cni CHECK "$cid" "/run/netns/$P" "$T_TMP/mq.conflist"
	expect_eq "$RC $(printf '%s' "$OUT" | jq -r .msg)" \
		"1 $SIM does not steer $a to a leased queue: no rule of the pod's leases names it" \
		"$what: CHECK names the rule the operator deleted"
	if [ "$1$2" = 20 ]; then
		# The host side's part: its route to the pod, its gateway address.
		ip -n "$HOST" route del "$a/32" dev "$host"
		cni CHECK "$cid" "/run/netns/$P" "$T_TMP/mq.conflist"
		expect_eq "$(printf '%s' "$OUT" | jq -r .msg)" "the host has no route to $a through $host" \
			"CHECK names the host's missing route to the pod"
		ip -n "$HOST" route add "$a/32" dev "$host"
		ip -n "$HOST" addr del 10.20.0.1/32 dev "$host"
		cni CHECK "$cid" "/run/netns/$P" "$T_TMP/mq.conflist"
		expect_eq "$(printf '%s' "$OUT" | jq -r .msg)" "the host side $host does not hold the gateway 10.20.0.1" \
			"CHECK names the host side's missing gateway address"
	fi
	cni DEL "$cid" "/run/netns/$P" "$T_TMP/mq.conflist"
	expect_eq "$RC" 0 "$what: DEL"
	nothing_left "$what"
}
if [ -e "$pdir/rss_contexts" ]; then
	multi_queue 2 1
	multi_queue 4 1
	multi_queue 2 0
	multi_queue 4 0
else
	skip_part rss-contexts "this netdevsim has no rss_contexts personality: multi-queue pods not tried"
fi

# Chained plugins after nkctl-cni (Debian's containernetworking-plugins).
chain_conflist() { # chain_conflist FILE PLUGIN...: conf, then PLUGINs (JSON; "" is none)
	local f=$1
	shift
	conf false | jq -c --argjson more "$(printf '%s\n' "$@" | jq -s -c .)" \
		'{cniVersion, name, plugins: ([del(.cniVersion, .name)] + $more)}' > "$f"
}
chain=('{"type": "tuning", "sysctl": {"net.ipv4.conf.eth0.rp_filter": "2"}}')
[ -z "$NAT" ] || chain+=('{"type": "portmap",
	"runtimeConfig": {"portMappings": [{"hostPort": 8053, "containerPort": 53, "protocol": "udp"}]}}'
	'{"type": "firewall"}')
chain+=('{"type": "sbr"}')
for t in tuning portmap firewall sbr bandwidth; do ln -sf "$CNI_BIN/$t" "$T_TMP/bin/$t"; done
chain_conflist "$T_TMP/chain.conflist" "${chain[@]}"
names=$(jq -c '[.plugins[].type]' "$T_TMP/chain.conflist")
ns_new P
ip netns exec "$P" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
cid=chain$RANDOM
cni ADD "$cid" "/run/netns/$P" "$T_TMP/chain.conflist"
[ "$RC" = 0 ] || fail "ADD through $names: $OUT $(cat "$T_TMP/cni.err")"
a=$(printf '%s' "$OUT" | jq -r '.ips[] | select(.address | test("\\.")) | .address | split("/")[0]')
expect_eq "$(ip netns exec "$P" sysctl -n net.ipv4.conf.eth0.rp_filter)" 2 "tuning set the pod's sysctl"
expect_eq "$(ip -n "$P" -j rule show | jq -c --arg a "$a" '[.[] | select(.src == $a) | .table] | length')" 1 \
	"sbr added a source rule for the pod's address"
echo "# the pod's routes: main $(ip -n "$P" -j route show table main | jq -c '[.[] | .dst]'), 100 $(ip -n "$P" -j route show table 100 | jq -c '[.[] | .dst]')"
expect_eq "$(ip -n "$P" -j route show table main default | jq length) $(ip -n "$P" -j route show table 100 | jq -c '[.[] | .dst] | index("default") != null')" \
	"0 true" "sbr moved the pod's default route out of the main table (into table 100)"
if [ -n "$NAT" ]; then
	expect_match "$(ip netns exec "$HOST" iptables-save -t nat)" "DNAT.*--to-destination $a:53" "portmap's DNAT rule to the pod"
	expect_match "$(ip netns exec "$HOST" iptables -S CNI-FORWARD)" "$a" "firewall's rules for the pod"
	u0=$(udp_in "$P")
	ip netns exec "$REMOTE" $PY -c '
import socket
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"hostport", ("10.10.2.1", 8053))'
	for _ in $(seq 50); do [ "$(udp_in "$P")" -gt "$u0" ] && break; sleep 0.1; done
	expect_eq "$(($(udp_in "$P") - u0))" 1 "a datagram to the host's port 8053 reaches the pod (portmap's DNAT)"
fi
ping_ok "$REMOTE" "$a" || fail "the remote cannot reach the pod behind the chain"
# (from its address: sbr left no route in main to choose a source by)
ip netns exec "$P" ping -c 1 -i 0.5 -w 3 -I "$a" 10.10.2.2 > /dev/null 2>&1 ||
	fail "the pod cannot reach the remote through sbr's table"
pass "the pod and the remote reach each other through $names"
# portmap 1.1.1's own CHECK fails whatever the main plugin (it looks for
# its IPv4 rules in its IPv6 chain): the list's CHECK without it, on the
# same cached result.
chain_conflist "$T_TMP/check.conflist" "${chain[@]/*portmap*/}"
cni CHECK "$cid" "/run/netns/$P" "$T_TMP/check.conflist"
expect_eq "$RC $OUT" "0 " "CHECK through $(jq -c '[.plugins[].type]' "$T_TMP/check.conflist") passes (nkctl-cni finds sbr's routes in table 100)"
cni DEL "$cid" "/run/netns/$P" "$T_TMP/chain.conflist"
expect_eq "$RC" 0 "DEL through $names"
nothing_left "the chain"
if [ -n "$NAT" ]; then
	expect_eq "$(ip netns exec "$HOST" iptables-save | grep -c -- "$a")" 0 "no netfilter rule names the pod any more"
fi
expect_eq "$(ip -n "$P" -j rule show | jq -c --arg a "$a" '[.[] | select(.src == $a)] | length')" 0 "sbr's rule is gone"
# bandwidth wants the host side of a veth pair (its peer_ifindex statistic).
chain_conflist "$T_TMP/bw.conflist" '{"type": "bandwidth", "ingressRate": 1000000, "ingressBurst": 100000, "egressRate": 1000000, "egressBurst": 100000}'
cni ADD "bw$cid" "/run/netns/$P" "$T_TMP/bw.conflist"
expect_eq "$RC $(printf '%s' "$OUT" | jq -c '.msg | test("no veth peer")')" "1 true" \
	"bandwidth refuses the netkit pair (it needs a veth peer)"
cni_conflist "$T_TMP/nk.conflist" "$(conf false)"
cni DEL "bw$cid" "/run/netns/$P"
expect_eq "$RC" 0 "DEL after bandwidth's refusal"
nothing_left "after bandwidth"
done_testing
