#!/bin/bash
# tier: vm
# The VM tier works end to end: a 7.x kernel with queue-create and netkit;
# netkit devices made with raw rtnetlink (testsuite/helpers/nlprobe.py) show
# up in nkctl show with their attributes as RTM_GETLINK decodes them; a
# netdevsim device shows its 4 RX queues with NAPI ids.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq

expect_match "$(uname -r)" '^7\.' "kernel is 7.x"
expect_rc 0 "show kernel" -j show kernel
for f in queue-create netkit netkit-single lease-netns-id tcx netkit-bpf udmabuf dma-heap-system bind-rx bind-tx; do
	got=$(printf '%s' "$OUT" | jq -r --arg f "$f" '.kernel.features[] | select(.name==$f) | .supported')
	expect_eq "$got" true "show kernel reports $f"
done

# What the other VM tests rely on.
for m in veth sch_ingress cls_bpf netdevsim; do
	modprobe "$m" || fail "modprobe $m"
done
pass "modules veth, sch_ingress, cls_bpf, netdevsim load"
grep -q ' /sys/fs/bpf bpf ' /proc/mounts || fail "no bpffs on /sys/fs/bpf"
pass "bpffs is mounted"
[ -c /dev/udmabuf ] && [ -c /dev/dma_heap/system ] || fail "no /dev/udmabuf or /dev/dma_heap/system"
pass "udmabuf and the system dma-heap exist"

ns_new NS
ns_new POD
# A pair with every attribute set away from its default, a peer in POD.
$NLPROBE -n "$NS" netkit-add nkp0 peer nkq0 mode l2 policy blackhole peer-policy forward \
	scrub none peer-scrub default headroom 32 tailroom 16 rxqueues 4 > /dev/null ||
	fail "netkit-add pair"
$NLPROBE -n "$NS" netkit-add nks0 single rxqueues 3 > /dev/null || fail "netkit-add single"
ip -n "$NS" link set nkp0 up

expect_rc 0 "show in the netkit namespace" -n "$NS" -j show
json_valid "show -j"
SHOW=$OUT
truth=$($NLPROBE -n "$NS" links)
for dev in nkp0 nkq0 nks0; do
	want=$(printf '%s' "$truth" | jq -S --arg d "$dev" '.[] | select(.ifname==$d) |
		{ifindex, kind, netkit, rx: .["num-rx-queues"]}')
	got=$(printf '%s' "$SHOW" | jq -S --arg d "$dev" '.devices[] | select(.ifname==$d) |
		{ifindex, kind, netkit, rx: .["num-rx-queues"]}')
	expect_eq "$got" "$want" "$dev: nkctl decodes what RTM_GETLINK says"
done
got=$(printf '%s' "$SHOW" | jq -r '.devices[] | select(.ifname=="nkp0") |
	"\(.netkit.primary) \(.netkit.mode) \(.netkit.policy) \(.netkit["peer-policy"]) \(.netkit.scrub) \(.netkit.headroom) \(.netkit.tailroom)"')
expect_eq "$got" "true l2 blackhole forward none 32 16" "primary attributes"
got=$(printf '%s' "$SHOW" | jq -r '.devices[] | select(.ifname=="nks0") | "\(.netkit.pairing) \(.netkit.primary)"')
expect_eq "$got" "single true" "single device"
p_idx=$(printf '%s' "$SHOW" | jq '.devices[] | select(.ifname=="nkp0") | .ifindex')
q_idx=$(printf '%s' "$SHOW" | jq '.devices[] | select(.ifname=="nkq0") | .ifindex')
got=$(printf '%s' "$SHOW" | jq -r '.devices[] | select(.ifname=="nkp0") | "\(.link) \(.["link-ifname"])"')
expect_eq "$got" "$q_idx nkq0" "primary names its peer"
expect_rc 0 "text show of a netkit device" -n "$NS" show dev nkp0
expect_match "$OUT" "netkit primary pairing pair mode l2 policy blackhole peer-policy forward" "text decodes netkit"

# Peer in another namespace: link-netnsid instead of a name.
$NLPROBE -n "$NS" netkit-add nkx0 peer nky0 peer-netns "$POD" > /dev/null || fail "netkit-add with peer-netns"
expect_rc 0 "show with a peer elsewhere" -n "$NS" -j show dev nkx0
got=$(printf '%s' "$OUT" | jq -r '.devices[0] | "\(.["link-netnsid"]|type) \(has("link-ifname"))"')
expect_eq "$got" "number false" "peer in another netns has link-netnsid and no name"
expect_rc 0 "the peer side" -n "$POD" -j show dev nky0
expect_eq "$(printf '%s' "$OUT" | jq -r '.devices[0].netkit.primary')" false "peer side is not primary"

# netdevsim: 4 RX queues with NAPI ids, as the netdev family dumps them.
modprobe netdevsim 2>/dev/null || skip "no netdevsim module"
id=$((RANDOM % 900 + 100))
echo "$id 1 4" > /sys/bus/netdevsim/new_device || fail "new netdevsim device"
defer "echo $id > /sys/bus/netdevsim/del_device"
sim=""
for _ in $(seq 50); do
	sim=$(ls /sys/bus/netdevsim/devices/netdevsim$id/net/ 2>/dev/null | head -n1)
	[ -n "$sim" ] && break
	sleep 0.1
done
[ -n "$sim" ] || fail "netdevsim netdev did not appear"
ip link set "$sim" netns "$NS" || fail "move $sim"
ip -n "$NS" link set "$sim" up
expect_rc 0 "show the netdevsim device" -n "$NS" -j show dev "$sim"
rxq=$(printf '%s' "$OUT" | jq '[.devices[0].queues[] | select(.type=="rx")] | length')
expect_eq "$rxq" 4 "netdevsim has 4 RX queues"
want=$($NLPROBE -n "$NS" queues | jq -S -c --argjson i "$(printf '%s' "$OUT" | jq '.devices[0].ifindex')" \
	'[.[] | select(.ifindex==$i) | {id, type, napi: .["napi-id"]}] | sort_by(.type, .id)')
got=$(printf '%s' "$OUT" | jq -S -c '[.devices[0].queues[] | {id, type, napi: .["napi-id"]}] | sort_by(.type, .id)')
expect_eq "$got" "$want" "queues and napi ids agree with queue-get"
napis=$(printf '%s' "$OUT" | jq '[.devices[0].queues[] | select(.type=="rx") | .["napi-id"] | numbers] | length')
expect_eq "$napis" 4 "every RX queue has a napi id"
expect_eq "$(printf '%s' "$OUT" | jq '.devices[0].napis | length > 0')" true "NAPI instances listed"
done_testing
