#!/bin/bash
# tier: vm
# timeout: 300
# A VMM on a leased queue as QEMU's af-xdp backend runs it (issue 38):
# testsuite/helpers/xsk-vmm makes QEMU 10.1's libxdp calls (inhibit=on,
# map-path, map-start-index, need-wakeup; force-copy=on: netdevsim has no
# zero-copy) and reads only when poll() says readable. Prepared by nkctl
# commands only (link add, lease, xsk attach), it receives the frames
# steered to the VM's address while blocked in poll(); with the holder down
# (as link add and lease leave it) it gets none. Several VMs on one NIC each
# get their own frames. TX in copy mode: the socket bound through the lease
# queues frames that never complete and never reach the remote (7.3: the
# holder has one TX queue, see doc/kernel-notes.md), while the same VMM
# bound to a NIC queue that is not leased sends and the remote receives;
# the leased NIC queue itself cannot be bound (EBUSY). Beside the lease, as
# nkctl prepares it (a netkit pair, its primary redirected to the NIC), the
# VMM's second socket on the pair's peer sends and the remote receives,
# with forwarding off on the host.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq setpriv nsenter python3
XVMM=$NKCTL_HELPERS/xsk-vmm
[ -x "$XVMM" ] || skip "no $XVMM (libxdp-dev, make helpers)"

topo_nic_remote 8
need_sim_rss "$HOST" "$SIM"
ip -n "$REMOTE" route add 10.77.0.5/32 via 10.10.2.1
ip -n "$REMOTE" route add 10.77.0.7/32 via 10.10.2.1
pindir=$(ns_pindir "$HOST")
defer "rm -rf /sys/fs/bpf/nkctl-xsk/ns${pindir##*-}-dev*"
rmac=$(ip -n "$REMOTE" -j link show "$RSIM" | jq -r '.[0].address')
VMM=4211     # libvirt's one user for every QEMU: here two VMs of two users
OTHER=107    # KubeVirt's launcher

nk -n "$HOST" link add vm0 type single rxqueues 2
expect_rc 0 "lease NIC queue 6 to vm0, steered to the VM's address" -n "$HOST" -j lease dev vm0 from "$SIM" queue 6 reserve steer dst 10.77.0.5
expect_eq "$(ip -n "$HOST" -j link show vm0 | jq -c '.[0].flags | index("UP") != null')" false "link add and lease leave the holder down"
expect_rc 0 "xsk attach" -n "$HOST" -j xsk attach dev vm0 user $VMM
pin=$(printf '%s' "$OUT" | jq -r '.xsk[0].pin')
dir=$(printf '%s' "$OUT" | jq -r '.xsk[0].dir')
expect_eq "$(printf '%s' "$OUT" | jq -c '.xsk[0] | [.up, .queues[0].queue, .queues[0].bind, .queues[0].tx]')" \
	'[true,1,"copy","none"]' "attach: the holder up, its queue 1, copy mode only, no TX through the lease"
expect_eq "$(ip -n "$HOST" -j link show vm0 | jq -c '.[0].flags | index("UP") != null')" true "attach brought the holder up"

# The VMM's side, unprivileged but for CAP_NET_RAW, with its holder's
# directory bind-mounted (as KubeVirt's hostPath would give it), its memlock limit
# raised as a VMM's must be: the UMEM (32 MiB a queue, QEMU's size) is
# charged to RLIMIT_MEMLOCK without CAP_IPC_LOCK, else ENOBUFS.
vmmdir=/run/nkctl-xvmm-test.$$
mkdir -m 0755 "$vmmdir" && mkdir -m 0777 "$vmmdir.ready" && defer "rm -rf $vmmdir $vmmdir.ready"
vpin=$vmmdir/map
ready=$vmmdir.ready/ready
wait_ready() { # FILE...: every FILE there, within 15 s
	local f all
	for _ in $(seq 150); do
		all=1
		for f in "$@"; do [ -e "$f" ] || all=0; done
		[ $all = 1 ] && return 0
		sleep 0.1
	done
	return 1
}
send() { udp_send "$REMOTE" "$@"; } # DST COUNT: from the remote
listen() { # OUT: the remote counts the datagrams to its port 9998 until listen_end
	rm -f "$1.ready" "$1.stop"
	ip netns exec "$REMOTE" python3 -c '
import os, socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 9998))
s.settimeout(0.2)
open(sys.argv[1] + ".ready", "w").close()
# Until the sender is done (the stop file) and 2 s more for what is on its
# way, 2 minutes at most: a window the sender cannot miss however slow.
n, end, stopped = 0, time.time() + 120, None
while time.time() < end and (stopped is None or time.time() < stopped + 2):
    if stopped is None and os.path.exists(sys.argv[1] + ".stop"):
        stopped = time.time()
    try:
        s.recv(2048)
        n += 1
    except socket.timeout:
        pass
print(n)
' "$1" > "$1" &
	lp=$!
	wait_ready "$1.ready" || fail "the remote's listener did not start"
}
listen_end() { : > "$1.stop"; wait $lp; } # OUT: the sender is done

# RX, the consumer blocked in poll() (nothing to send: poll waits).
as_vmm "$HOST" "$dir" "$vmmdir" $VMM "$XVMM" vm0 1 "$vpin" 1 rx 20 idle 3000 ready "$ready" copy > "$T_TMP/rx.json" 2> "$T_TMP/rx.err" &
p=$!
wait_ready "$ready" || fail "the VMM did not get ready: $(cat "$T_TMP/rx.err")"
send 10.77.0.5 20
wait $p
expect_eq "$(jq .received "$T_TMP/rx.json")" 20 "RX in poll(): 20 of 20 frames steered to the VM's address"
r=$(jq '[.readable >= 1, .polls <= .readable + 1] | all' "$T_TMP/rx.json")
expect_eq "$r" true "every poll() but the last returned readable: the VMM slept in poll() until the frames came ($(cat "$T_TMP/rx.json"))"

# The holder down: the same VMM gets nothing, though the frames reach its
# ring (xsk_poll reports nothing on a device that is down); show and doctor
# say so.
ip -n "$HOST" link set vm0 down
nk -n "$HOST" -j xsk show dev vm0
expect_eq "$(printf '%s' "$OUT" | jq -c '[.xsk[] | .up]')" '[false]' "xsk show: the holder is down"
nk -n "$HOST" xsk show dev vm0
expect_match "$OUT" "DOWN: its sockets are never readable in poll" "xsk show says what a down holder means"
rm -f "$ready"
as_vmm "$HOST" "$dir" "$vmmdir" $VMM "$XVMM" vm0 1 "$vpin" 1 rx 5 first 3000 ready "$ready" copy > "$T_TMP/down.json" 2> "$T_TMP/down.err" &
p=$!
wait_ready "$ready" || fail "the VMM did not get ready: $(cat "$T_TMP/down.err")"
send 10.77.0.5 5
wait $p
expect_eq "$(jq -c '[.received, .readable]' "$T_TMP/down.json")" '[0,0]' "the holder down: poll() never says readable, 0 of 5"
expect_rc 0 "attach again brings it up" -n "$HOST" xsk attach dev vm0 user $VMM

# TX through the lease (copy mode): queued, never completed, never received.
rm -f "$ready"
listen "$T_TMP/remote1"
as_vmm "$HOST" "$dir" "$vmmdir" $VMM "$XVMM" vm0 1 "$vpin" 1 tx 10 "$rmac" 10.77.0.5 10.10.2.2 first 3000 ready "$ready" copy > "$T_TMP/tx.json" 2> "$T_TMP/tx.err"
listen_end "$T_TMP/remote1"
expect_eq "$(jq -c '[.sent, .completed]' "$T_TMP/tx.json")" '[10,0]' "TX through the lease in copy mode: 10 queued, 0 completed (7.3)"
expect_eq "$(cat "$T_TMP/remote1")" 0 "the remote received none of them"

# The same VMM bound to a NIC queue that is not leased (5) sends; the
# leased one (6) cannot be bound at all.
listen "$T_TMP/remote2"
nsenter --net="/run/netns/$HOST" "$XVMM" "$SIM" 5 "$pin" 3 tx 10 "$rmac" 10.77.0.5 10.10.2.2 first 3000 copy > "$T_TMP/nic.json" 2> "$T_TMP/nic.err"
listen_end "$T_TMP/remote2"
expect_eq "$(jq -c '[.sent, .completed]' "$T_TMP/nic.json" 2>/dev/null)" '[10,10]' "bound to NIC queue 5: 10 sent, 10 completed ($(cat "$T_TMP/nic.err"))"
expect_eq "$(cat "$T_TMP/remote2")" 10 "the remote received 10 of 10"
nsenter --net="/run/netns/$HOST" "$XVMM" "$SIM" 6 "$pin" 3 first 100 copy > /dev/null 2> "$T_TMP/busy.err"
expect_match "$(cat "$T_TMP/busy.err")" "xsk_socket__create: Device or resource busy" "the leased NIC queue cannot be bound directly"

# TX beside the lease, prepared by nkctl: a netkit pair (l2) whose peer the
# VMM sends through (QEMU: a second af-xdp netdev, on the peer's queue 0,
# its socket at the map's index 0, which no NIC queue goes to), and the
# primary's pod egress redirect to the NIC. The socket's frames reach the
# primary bare (no protocol, no MAC header); nkctl's program sends them on,
# the next hop's address from the host's FIB and neighbour table.
nk -n "$HOST" link add vm0tx peer vm0txp mode l2
ip -n "$HOST" link set vm0tx up
ip -n "$HOST" link set vm0txp up
expect_rc 0 "redirect the primary's traffic (the VM's TX) to the NIC" -n "$HOST" redirect attach dev vm0tx to "$SIM"
ip netns exec "$HOST" ping -c 1 -W 3 10.10.2.2 > /dev/null || fail "the host cannot reach the remote"
listen "$T_TMP/remote3"
as_vmm "$HOST" "$dir" "$vmmdir" $VMM "$XVMM" vm0txp 0 "$vpin" 0 tx 10 "$rmac" 10.77.0.5 10.10.2.2 first 3000 copy > "$T_TMP/tx2.json" 2> "$T_TMP/tx2.err"
listen_end "$T_TMP/remote3"
expect_eq "$(jq -c '[.sent, .completed]' "$T_TMP/tx2.json" 2>/dev/null)" '[10,10]' "TX through the pair's peer in copy mode: 10 sent, 10 completed ($(cat "$T_TMP/tx2.err"))"
expect_eq "$(cat "$T_TMP/remote3")" 10 "the remote received the VM's 10 datagrams through nkctl's redirect"
expect_rc 0 "detach the VM's TX redirect" -n "$HOST" redirect detach dev vm0tx
nk -n "$HOST" link del vm0tx

# Two VMs on one NIC, of two users, each blocked in poll(): each gets its own.
nk -n "$HOST" link add vm1 type single rxqueues 2
expect_rc 0 "lease NIC queue 7 to vm1" -n "$HOST" -j lease dev vm1 from "$SIM" queue 7 reserve steer dst 10.77.0.7
expect_rc 0 "attach vm1 for another user" -n "$HOST" -j xsk attach dev vm1 user $OTHER
dir1=$(printf '%s' "$OUT" | jq -r '.xsk[0].dir')
rm -f "$ready" "$ready.1"
as_vmm "$HOST" "$dir" "$vmmdir" $VMM "$XVMM" vm0 1 "$vpin" 1 rx 30 ready "$ready" copy > "$T_TMP/a.json" 2>&1 &
pa=$!
as_vmm "$HOST" "$dir1" "$vmmdir" $OTHER "$XVMM" vm1 1 "$vpin" 1 rx 25 ready "$ready.1" copy > "$T_TMP/b.json" 2>&1 &
pb=$!
wait_ready "$ready" "$ready.1" || fail "the VMMs did not get ready: $(cat "$T_TMP/a.json" "$T_TMP/b.json")"
send 10.77.0.5 30
send 10.77.0.7 25
wait $pa $pb
expect_eq "$(jq -c '[.received, .polls <= .readable + 1]' "$T_TMP/a.json")$(jq -c '[.received, .polls <= .readable + 1]' "$T_TMP/b.json")" \
	'[30,true][25,true]' "two VMs on one NIC, each in poll(): 30 and 25 frames, each its own"
ping_ok "$REMOTE" 10.10.2.1 || fail "the NIC's own address stopped answering"
pass "the NIC's own traffic still reaches the stack"

expect_rc 0 "unlease vm1" -n "$HOST" unlease dev vm1
expect_rc 0 "unlease vm0" -n "$HOST" unlease dev vm0
expect_eq "$(ip -n "$HOST" -j link show "$SIM" | jq -r '.[0].xdp.mode // "none"')" none "no XDP program left on the NIC"

done_testing
