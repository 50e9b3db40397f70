#!/bin/bash
# tier: vm
# timeout: 420
# lease / unlease on the real 7.3 kernel with netdevsim as the NIC. The
# physical side is read back with queue-get by nlprobe.py, not by nkctl.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq

ns_new HOST
ns_new POD
ns_new ELSE
sim_new SIM "$HOST" 4

nk -n "$HOST" link add nks type single rxqueues 4 || true
expect_eq "$RC" 0 "a single lease holder"
nk -n "$HOST" link add nkh peer nkp peer-netns "$POD" rxqueues 4
expect_eq "$RC" 0 "a pair with the peer in the pod"
nks_idx=$(ifindex_of "$HOST" nks)

# One queue.
expect_rc 0 "lease one queue" -n "$HOST" -j lease dev nks from "$SIM" queue 3
json_valid "lease -j"
expect_eq "$(printf '%s' "$OUT" | jq -c '.leases[] | [.ifname, .id, .lease.ifname, .lease.queue.id, .existed]')" \
	"[\"$SIM\",3,\"nks\",1,false]" "lease prints the new netkit queue"
expect_eq "$(lease_of "$HOST" "$SIM" 3)" "{\"ifindex\":$nks_idx,\"queue\":{\"id\":1,\"type\":\"rx\"}}" \
	"queue-get shows the lease on the NIC"

# A list, then the idempotent re-run.
expect_rc 0 "lease a range" -n "$HOST" -j lease dev nks from "$SIM" queue 1-2
expect_eq "$(printf '%s' "$OUT" | jq -c '[.leases[] | [.id, .lease.queue.id, .existed]]')" \
	'[[1,2,false],[2,3,false]]' "each queue gets the next netkit queue"
expect_rc 0 "re-run is not an error" -n "$HOST" -j lease dev nks from "$SIM" queue 1-3
expect_eq "$(printf '%s' "$OUT" | jq -c '[.leases[] | [.id, .lease.queue.id, .existed]]')" \
	'[[1,2,true],[2,3,true],[3,1,true]]' "re-run reports the existing leases"
expect_eq "$(lease_of "$HOST" "$SIM" 2 | jq -c .queue.id)" 3 "kernel agrees on queue 2"

# Refusals.
nk -n "$HOST" link add nks2 type single rxqueues 2
expect_error 4 "a queue leased elsewhere is busy" -n "$HOST" lease dev nks2 from "$SIM" queue 3
expect_match "$ERR" "already leased to \"nks\" \(ifindex $nks_idx\) in this namespace" "names the holder and where it is"
expect_error 3 "a queue the NIC does not have" -n "$HOST" lease dev nks2 from "$SIM" queue 9
expect_error 5 "into the primary of a pair" -n "$HOST" lease dev nkh from "$SIM" queue 0
expect_match "$ERR" 'leases go to its peer' "explains where leases go"
expect_error 2 "no room left" -n "$HOST" lease dev nks from "$SIM" queue 0
expect_match "$ERR" 'room for 0 more leases' "says how much room there is"
ip -n "$HOST" link add vA type veth peer name vB
ip -n "$HOST" link set vA up
expect_error 5 "from a veth" -n "$HOST" lease dev nks2 from vA queue 0
expect_match "$ERR" 'virtual device' "the kernel's reason"
expect_error 5 "from loopback" -n "$HOST" lease dev nks2 from lo queue 0
expect_error 5 "into a veth" -n "$HOST" lease dev vA from "$SIM" queue 0
sim_new SIM2 "$HOST" 2
expect_error 5 "from a second NIC into the same device" -n "$HOST" lease dev nks from "$SIM2" queue 0
nk -n "$HOST" -j show
expect_eq "$(lease_of "$HOST" "$SIM2" 0)" null "nothing was leased from the second NIC"

# Into a peer in another namespace: netns-id resolved (and assigned) by nkctl.
expect_rc 0 "lease into the pod from the host" -n "$POD" -j lease dev nkp from "$SIM" \
	phys-netns "$HOST" queue 0
expect_eq "$(printf '%s' "$OUT" | jq -c '.leases[0] | [.netns, .lease.ifname, .lease.queue.id]')" \
	"[\"$HOST\",\"nkp\",1]" "lease across namespaces"
l=$(lease_of "$HOST" "$SIM" 0)
expect_eq "$(printf '%s' "$l" | jq -c '[.ifindex, .queue.id, (.["netns-id"]|type)]')" \
	"[$(ifindex_of "$POD" nkp),1,\"number\"]" "queue-get shows the pod's lease with a netns-id"
# show joins both sides, across namespaces (queues show only when up).
ip -n "$POD" link set nkp up
expect_rc 0 "show the pod's netkit device" -n "$POD" -j show dev nkp
expect_eq "$(printf '%s' "$OUT" | jq -c '.devices[0].queues[] | select(.type=="rx" and .id==1) | .["leased-from"]')" \
	"{\"ifindex\":$(ifindex_of "$HOST" "$SIM"),\"ifname\":\"$SIM\",\"netns\":\"$HOST\",\"queue\":{\"id\":0,\"type\":\"rx\"}}" \
	"the netkit queue names the NIC queue it leases"
expect_rc 0 "show the NIC" -n "$HOST" -j show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '.devices[0].queues[] | select(.type=="rx" and .id==0) | .lease | [.ifname, .netns, .queue.id]')" \
	"[\"nkp\",\"$POD\",1]" "the NIC queue names the holder and its namespace"
expect_rc 0 "show leases" -n "$HOST" -j show leases
got=$(printf '%s' "$OUT" | jq -c --arg s "$SIM" '[.leases[] | select(.ifname==$s) | [.id, .lease.ifname, .lease.queue.id]] | sort')
expect_eq "$got" '[[0,"nkp",1],[1,"nks",2],[2,"nks",3],[3,"nks",1]]' "show leases lists the lease table"
want=$($NLPROBE -n "$HOST" queues "$(ifindex_of "$HOST" "$SIM")" | jq -c '[.[] | select(has("lease")) | [.id, .lease.ifindex, .lease.queue.id]] | sort')
got=$(printf '%s' "$OUT" | jq -c --arg s "$SIM" '[.leases[] | select(.ifname==$s) | [.id, .lease.ifindex, .lease.queue.id]] | sort')
expect_eq "$got" "$want" "show leases agrees with queue-get"
expect_rc 0 "text show leases" -n "$HOST" show leases
expect_match "$OUT" "$SIM queue 0 -> nkp \\(netns $POD\\) queue 1" "text lease line"

nk -n "$HOST" link add nkq type single rxqueues 2
expect_error 4 "a queue leased into the pod is busy" -n "$HOST" lease dev nkq from "$SIM" queue 0
expect_match "$ERR" "already leased to \"nkp\" \\(ifindex [0-9]+\\) in netns \"$POD\"" "names the pod's holder"

expect_rc 0 "the cross-namespace lease re-run" -n "$POD" -j lease dev nkp from "$SIM" phys-netns "$HOST" queue 0
expect_eq "$(printf '%s' "$OUT" | jq '.leases[0].existed')" true "is recognised as existing"

# A lease survives moving the holder to another namespace.
nk -n "$HOST" link add nkm type single rxqueues 2
sim_new SIM3 "$HOST" 2
expect_rc 0 "lease into nkm" -n "$HOST" lease dev nkm from "$SIM3" queue 1
ip -n "$HOST" link set nkm netns "$ELSE" || fail "move nkm"
expect_eq "$(lease_of "$HOST" "$SIM3" 1 | jq -c '[.queue.id, (.["netns-id"]|type)]')" '[1,"number"]' \
	"the lease survives the move and gains a netns-id"

# unlease: a single holder goes freely.
expect_error 4 "unlease from one queue of several refuses" -n "$HOST" unlease from "$SIM" queue 1
expect_match "$ERR" 'also holds 2 other queues' "says what else would end"
# The holder's redirects go with it (as with link del): its route on the NIC.
expect_rc 0 "a route on the NIC to the holder" -n "$HOST" redirect attach dev "$SIM" to nks prefix 10.30.0.0/24
expect_rc 0 "unlease the single holder" -n "$HOST" -j unlease dev nks
expect_eq "$(printf '%s' "$OUT" | jq -c '[[.unleased[] | [.ifname, .id, .lease.queue.id]], [.deleted[].ifname]]')" \
	"[[[\"$SIM\",1,2],[\"$SIM\",2,3],[\"$SIM\",3,1]],[\"nks\"]]" "unlease reports the ended leases and the deleted holder"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.detached[] | [.ifname, .["hook-removed"], [.routes[] | .target.ifname, .prefixes]]]')" \
	"[[\"$SIM\",true,[\"nks\",[\"10.30.0.0/24\"]]]]" "unlease lists the holder's route it removed"
[ -e "$(ns_pindir "$HOST")/dev$(ifindex_of "$HOST" "$SIM")" ] && fail "the NIC's table is left"
pass "no pins of the NIC's table left"
for q in 1 2 3; do
	expect_eq "$(lease_of "$HOST" "$SIM" "$q")" null "NIC queue $q is free again"
done
expect_error 3 "unlease of a gone device" -n "$HOST" unlease dev nks
expect_rc 0 "unlease -force of a gone device" -n "$HOST" -force -j unlease dev nks
expect_eq "$OUT" '{"unleased":[],"deleted":[],"detached":[]}' "same shape when nothing happened"

# A pair is refused without force; the NIC queue names its holder.
expect_error 4 "unlease a pair side refuses" -n "$POD" unlease dev nkp
expect_match "$ERR" 'one side of a netkit pair' "explains the pair would go"
expect_error 4 "unlease from the NIC queue of a pair refuses" -n "$HOST" unlease from "$SIM" queue 0
# The holder nkp is in the pod; its primary nkh, here, is a NIC route's
# target: it goes with the pair, so its route goes too.
expect_rc 0 "a route on the NIC to the pair's primary" -n "$HOST" redirect attach dev "$SIM" to nkh prefix 10.31.0.0/24
expect_rc 0 "unlease by NIC queue with force" -n "$HOST" -j unlease from "$SIM" queue 0 force
expect_eq "$(printf '%s' "$OUT" | jq -c '[.detached[] | [.ifname, [.routes[] | .target.ifname, .prefixes]]]')" \
	"[[\"$SIM\",[\"nkh\",[\"10.31.0.0/24\"]]]]" "the primary's route in its own namespace went with it"
expect_eq "$(printf '%s' "$OUT" | jq -r '.deleted[0].ifname')" nkp "the holder found through netns-id"
expect_eq "$(lease_of "$HOST" "$SIM" 0)" null "NIC queue 0 is free again"
$NLPROBE -n "$HOST" link nkh > /dev/null 2>&1 && fail "the primary went with its peer"
pass "the pair is gone"
expect_error 3 "unlease a queue that is not leased" -n "$HOST" unlease from "$SIM" queue 0
expect_rc 0 "... unless -force" -n "$HOST" -force unlease from "$SIM" queue 0

# Several holders in one unlease from (a runtime's GC ends many pods at
# once): every holder is checked before any is deleted; one result.
nk -n "$HOST" link add nkg1 type single rxqueues 3
nk -n "$POD" link add nkg2 type single rxqueues 2
nk -n "$HOST" link add nkg3 peer nkg4 rxqueues 2
nk -n "$HOST" lease dev nkg1 from "$SIM" queue 0-1
nk -n "$POD" lease dev nkg2 from "$SIM" phys-netns "$HOST" queue 2
nk -n "$HOST" lease dev nkg4 from "$SIM" queue 3
expect_eq "$(for q in 0 1 2 3; do lease_of "$HOST" "$SIM" "$q" | jq -c '.queue.id'; done | tr '\n' ' ')" \
	"1 2 1 1 " "three holders, one in the pod, one a pair's side"
expect_error 4 "several holders, one a pair's side: refused" -n "$HOST" unlease from "$SIM" queue 0-3
expect_match "$ERR" '"nkg4" is one side of a netkit pair' "names the pair's side"
expect_error 4 "several holders, one holding a queue not listed: refused" -n "$HOST" unlease from "$SIM" queue 0,2
expect_eq "$(ip -n "$HOST" -o link show | grep -c ' nkg[134][@:]') $(ip -n "$POD" -o link show | grep -c ' nkg2[@:]')" "3 1" \
	"refused: no holder was deleted"
expect_rc 0 "several holders in one unlease from, with force" -n "$HOST" -j unlease from "$SIM" queue 0-3 force
json_valid "unlease of several holders -j"
expect_eq "$(printf '%s' "$OUT" | jq -c '[([.unleased[] | .id] | sort), [.deleted[].ifname | select(test("^nkg[124]$"))]]')" \
	'[[0,1,2,3],["nkg1","nkg2","nkg4"]]' "one result: every lease ended, every holder deleted"
expect_eq "$(for q in 0 1 2 3; do lease_of "$HOST" "$SIM" "$q"; done | tr '\n' ' ')" "null null null null " \
	"the NIC's queues are free again"
nk -n "$HOST" link add nkg1 type single rxqueues 3
nk -n "$HOST" link add nkg2 type single rxqueues 3
nk -n "$HOST" lease dev nkg1 from "$SIM" queue 0
nk -n "$HOST" lease dev nkg2 from "$SIM" queue 1
expect_rc 0 "several holders, as text" -n "$HOST" unlease from "$SIM" queue 0-1
expect_match "$(printf '%s' "$OUT" | tr '\n' ' ')" "deleted nkg1 deleted nkg2" "the text names each deleted holder on its line"

# The kernel ends leases itself: netns deletion, NIC removal.
nk -n "$HOST" link add nkx peer nky peer-netns "$ELSE" rxqueues 2
nk -n "$ELSE" lease dev nky from "$SIM" phys-netns "$HOST" queue 2
expect_eq "$RC" 0 "lease into a pod that will be deleted"
ip netns del "$ELSE"
for _ in $(seq 30); do [ "$(lease_of "$HOST" "$SIM" 2)" = null ] && break; sleep 0.2; done
expect_eq "$(lease_of "$HOST" "$SIM" 2)" null "deleting the pod's netns ended the lease"
expect_rc 0 "show afterwards" -n "$HOST" -j show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq '[.devices[0].queues[] | select(has("lease"))] | length')" 0 \
	"show lists no lease on the NIC"

nk -n "$HOST" link add nkz type single rxqueues 2
nk -n "$HOST" lease dev nkz from "$SIM2" queue 1
expect_eq "$RC" 0 "lease from the NIC that will be removed"
echo "$SIM2_ID" > /sys/bus/netdevsim/del_device
for _ in $(seq 30); do $NLPROBE -n "$HOST" link nkz > /dev/null 2>&1 || break; sleep 0.2; done
$NLPROBE -n "$HOST" link nkz > /dev/null 2>&1 && fail "nkz survived its NIC"
pass "removing the NIC deleted the netkit device holding its lease"
expect_error 3 "unlease after the NIC went" -n "$HOST" unlease dev nkz
done_testing
