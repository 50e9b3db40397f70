#!/bin/bash
# tier: vm
# timeout: 420
# One judgement of a lease's fate (nkctl/lease/fate.c): ended only when the kernel
# says so. NIC C, taken down first, has a lease with a memory provider bound
# on its queue (netdevsim's mp_linger; a provider and AF_XDP cannot share a
# NIC: the kernel refuses XDP while one is bound): its unlease refuses (4)
# and deletes nothing, and once C is up and the provider gone it succeeds.
# NIC A down with a reserved, steered lease (holder nka) and an
# AF_XDP-prepared lease (holder vma, xsk attach) and a pod's lease (holder
# nkm, moved into the pod after its lease); then what a node does on
# NIC B and beside it (a steered lease and its unlease, a pair's link add and
# link del, redirect prune, -force unlease of a holder that is gone, a CNI
# DEL of a pod of B's network): nothing
# of A's is touched (its RSS table, its rule, its XDP program, the slot's
# directory, the holder map's pin, both holders). show leases lists A's
# leases as not seen (seen false, nic-state down, from nkctl's records);
# monitor says no lease of A's ended (nor while A flaps down and up); unlease of A's holders refuses (4)
# and deletes nothing, also in the pod,
# where the record names the moved holder by its name. After A is up, with
# no nkctl command run, show leases sees them again, xsk show lists the slot
# with A's program, an AF_XDP socket on the VM's holder receives the frames
# steered to the VM's address, and unlease then takes everything of A's away. Truth from
# nlprobe.py, ip and the pins. unlease from ... holders refuses a queue
# whose holder is not one of those named.
. "$TESTSUITE/lib.sh"
. "$TESTSUITE/cni.sh"
need_root
need_cmd jq python3
XSKRX=$NKCTL_HELPERS/xsk-rx
[ -x "$XSKRX" ] || skip "no $XSKRX (make helpers)"

topo_nic_remote 4
ip -n "$REMOTE" route add 10.77.0.5/32 via 10.10.2.1
sim_new B "$HOST" 4
sim_new C "$HOST" 4
need_sim_rss "$HOST" "$SIM"
idx=$(ifindex_of "$HOST" "$SIM")
pindir=$(ns_pindir "$HOST")
cookie=${pindir##*-}
defer "rm -rf /sys/fs/bpf/nkctl-xsk/ns$cookie-dev*"
nlprobe_serve "$HOST"
indir() { nlp rss "$idx" | jq -c .indir; }
rules() { nlp ntuple "$SIM" | jq -c '[.rules[] | [.["dst-ip"], .action]] | sort'; }
# A's side as the kernel and bpffs have it: table, rules, XDP program,
# its holders, the slot directory's pins, the holder maps' pins.
a_state() {
	printf '%s %s xdp:%s holders:%s slots:%s maps:%s\n' "$(indir)" "$(rules)" \
		"$(ip -n "$HOST" -j link show "$SIM" | jq -r '.[0].xdp.mode // "none"')" \
		"$(ip -n "$HOST" -o link show | grep -cE ': (nka|vma)[:@]')" \
		"$(ls "$pindir/xsk$idx" 2> /dev/null | tr '\n' ,)" \
		"$(ls /sys/fs/bpf/nkctl-xsk/ 2> /dev/null | grep -c "^ns$cookie-dev")"
}
# show leases of A: [queue, seen, nic-state]
a_leases() {
	nk -n "$HOST" -j show leases
	printf '%s' "$OUT" | jq -c --arg s "$SIM" '[.leases[] | select(.ifname == $s) | [.id, .seen, .["nic-state"]]] | sort'
}
indir_before=$(indir)

nk -n "$HOST" link add nka type single rxqueues 2
expect_rc 0 "a reserved, steered lease of $SIM queue 2" -n "$HOST" lease dev nka from "$SIM" queue 2 reserve steer dst 10.9.0.2
nk -n "$HOST" link add vma type single rxqueues 2
expect_rc 0 "a VM's lease of $SIM queue 3, steered to the VM's address" -n "$HOST" -j lease dev vma from "$SIM" queue 3 reserve steer dst 10.77.0.5
vmq=$(printf '%s' "$OUT" | jq '.leases[0].lease.queue.id')
expect_rc 0 "xsk attach" -n "$HOST" -j xsk attach dev vma user 4231 mode 0600
vmpin=$(printf '%s' "$OUT" | jq -r '.xsk[0].pin')
# A pod of another network, on B, through the CNI plugin (its DEL comes
# while A is down).
cni_pod_on "$B" nkb 2-3 PODB podb
# A pod's holder, leased here and moved into the pod as the CNI plugin does.
ns_new POD
nk -n "$HOST" link add nkm type single rxqueues 2
expect_rc 0 "a pod's lease of $SIM queue 1" -n "$HOST" lease dev nkm from "$SIM" queue 1 reserve
ip -n "$HOST" link set nkm netns "$POD" || fail "cannot move nkm into the pod"
BEFORE=$(a_state)
expect_match "$BEFORE" '\[\["10.77.0.5",3\],\["10.9.0.2",2\]\] xdp:[1-9] holders:2 slots:.*link.* maps:1' "A has its rules, program, holders, slot and map"
expect_eq "$(a_leases)" '[[1,true,null],[2,true,null],[3,true,null]]' "show leases: all seen"

# A monitor of links and leases, from before A goes down to after it is up.
"$NKCTL" -n "$HOST" -j monitor link lease > "$T_TMP/mon" 2> "$T_TMP/mon.err" &
mpid=$!
defer "kill $mpid 2> /dev/null"
monitor_ready "$HOST" "$T_TMP/mon"

# C: a lease whose queue has a memory provider bound (a devmem or io_uring
# user's, left behind), then C down.
cdir=/sys/kernel/debug/netdevsim/netdevsim$C_ID/ports/0/ethtool/nkctl
[ -e "$cdir/mp_linger" ] || skip "this netdevsim has no mp_linger personality (the VM's test patch is older)"
nk -n "$HOST" link add nkc type single rxqueues 2
expect_rc 0 "a lease of $C queue 2" -n "$HOST" lease dev nkc from "$C" queue 2 reserve
echo "2 600000" > "$cdir/mp_linger" || fail "cannot put a provider on $C queue 2"
defer "echo '2 0' > $cdir/mp_linger"
ip -n "$HOST" link set "$C" down
expect_error 4 "unlease of a holder whose NIC is down and whose queue has a provider bound" -n "$HOST" unlease dev nkc
expect_eq "$(ip -n "$HOST" -o link show nkc | grep -c nkc)" 1 "it deleted nothing"
ip -n "$HOST" link set "$C" up
echo "2 0" > "$cdir/mp_linger"
expect_rc 0 "C up, the provider gone: the unlease ends the lease" -n "$HOST" unlease dev nkc

ip -n "$HOST" link set "$SIM" down
expect_eq "$(a_leases)" '[[1,false,"down"],[2,false,"down"],[3,false,"down"]]' "A down: show leases lists its leases from the records, not seen"
nk -n "$HOST" -j show leases
expect_eq "$(printf '%s' "$OUT" | jq -c --arg s "$SIM" '[.leases[] | select(.ifname == $s) | .lease | has("queue")] | unique')" \
	'[false]' "without the holder's queue, which the record does not know"
nk -n "$HOST" show leases
expect_match "$OUT" "not seen: its NIC is down" "and says so in text"

# What a node does meanwhile, on B and beside it.
nk -n "$HOST" link add nkb type single rxqueues 2
expect_rc 0 "a steered lease on $B" -n "$HOST" lease dev nkb from "$B" queue 1 reserve steer dst 10.9.9.1
expect_eq "$ERR" "" "nothing said of the down $SIM"
expect_rc 0 "its unlease" -n "$HOST" unlease dev nkb
expect_rc 0 "a pair added" -n "$HOST" link add nkp peer nkq
expect_rc 0 "and deleted (its sweep)" -n "$HOST" link del nkp
expect_rc 0 "redirect prune" -n "$HOST" redirect prune
expect_rc 0 "unlease of a holder that is gone, with -force" -n "$HOST" -force unlease dev nkgone
cni DEL podb "/run/netns/$PODB"
[ "$RC" = 0 ] || fail "CNI DEL of the pod on $B: $OUT $(cat "$T_TMP/cni.err")"
pass "CNI DEL of the pod on $B"
expect_eq "$(ip -n "$PODB" -o link show | grep -vc ': lo:')" 0 "the pod on $B is gone whole"
expect_eq "$(a_state)" "$BEFORE" "nothing of A's was touched: table, rule, program, holders, slot, map"

expect_error 4 "unlease of A's holder while A is down" -n "$HOST" unlease dev nka
expect_match "$ERR" "nka\" holds $SIM queue 2, which nkctl cannot see \\(the NIC is down\\)" "it says which lease it cannot see"
expect_eq "$(a_state)" "$BEFORE" "and deleted nothing"
expect_error 4 "unlease of the pod's holder, moved since its lease, while A is down" -n "$POD" -force unlease dev nkm
expect_match "$ERR" "nkm\" holds $SIM queue 1, which nkctl cannot see" "its record names it as it was leased, and that counts"
expect_eq "$(ip -n "$POD" -o link show nkm | grep -c nkm)" 1 "the pod's holder is still there"
expect_error 4 "unlease from A's queues while A is down, -force too (a GC's line)" -n "$HOST" -force \
	unlease from "$SIM" queue 2 holders nka
expect_match "$ERR" "\"$SIM\" is down: whether its queues are leased cannot be seen" "not seen is not \"none leased\""
expect_eq "$(a_state)" "$BEFORE" "and nothing of A's was touched"

# A NIC that flaps: the monitor's re-dumps land between a dump and the
# next look, whichever way the NIC goes meanwhile.
for _ in $(seq 15); do
	ip -n "$HOST" link set "$SIM" up
	ip -n "$HOST" link set "$SIM" down
done
ip -n "$HOST" link set "$SIM" up
expect_eq "$(a_leases)" '[[1,true,null],[2,true,null],[3,true,null]]' "A up, no command run: all seen again"
expect_rc 0 "xsk show" -n "$HOST" -j xsk show dev vma
expect_eq "$(printf '%s' "$OUT" | jq -c '[.xsk[] | [.ifname, .program, (.queues[0] | .["nic-queue"])]]')" \
	'[["vma",true,3]]' "xsk show: the slot is there, with A's program"
expect_eq "$(a_state)" "$BEFORE" "everything of A's as before"
# A VM's socket on the holder's queue receives, with no nkctl command run
# since A came up (nsenter: ip netns exec mounts a /sys without the pins).
rm -f "$T_TMP/ready"
nsenter --net="/run/netns/$HOST" "$XSKRX" vma "$vmq" "$vmpin" 20 3000 "$T_TMP/ready" > "$T_TMP/rx.json" 2> "$T_TMP/rx.err" &
rx_pid=$!
rx_ready "$T_TMP/ready" "$rx_pid" "$T_TMP/rx.err"
udp_send "$REMOTE" 10.77.0.5 20
wait $rx_pid
expect_eq "$(jq .received "$T_TMP/rx.json")" 20 "A up: the VM's socket receives the 20 datagrams steered to it"
sleep 3     # the monitor's periodic re-dump, after up
kill "$mpid"
wait "$mpid" 2> /dev/null
expect_eq "$(jq -c --arg s "$SIM" 'select(.event.object == "lease" and .event.lease.ifname == $s and .event.action == "del")' "$T_TMP/mon" | wc -l)" 0 \
	"monitor: no lease of A said to end while A was down"

expect_rc 0 "unlease of the pod's holder in the pod" -n "$POD" unlease dev nkm
# unlease from ... holders: the queues' holders must be those named (a GC's
# stale pods'), else nothing is deleted.
expect_error 4 "unlease from queue 2 naming another holder" -n "$HOST" unlease from "$SIM" queue 2 holders nkx,nky
expect_match "$ERR" "queue 2 is leased to \"nka\", not one of the holders named" "it says whose the queue is"
expect_eq "$(ip -n "$HOST" -o link show nka | grep -c nka)" 1 "nka is still there"
expect_rc 0 "unlease from queue 2 naming nka" -n "$HOST" unlease from "$SIM" queue 2 holders nkx,nka
expect_rc 0 "unlease vma" -n "$HOST" unlease dev vma
expect_eq "$(a_state)" "$indir_before [] xdp:none holders:0 slots: maps:0" "then nothing of A's is left"

done_testing
