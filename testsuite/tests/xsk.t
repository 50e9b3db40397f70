#!/bin/bash
# tier: vm
# timeout: 300
# xsk attach/detach/show: an AF_XDP socket bound (XDP_COPY) to the leased
# queue of a single netkit holder gets the frames steered to that NIC queue,
# through nkctl's XDP program on the NIC (generic XDP on netdevsim, which
# needs the VM's test patch to record the RX queue) and the holder's pinned
# XSK map, into which an unprivileged user inserts the socket as a VMM does
# (testsuite/helpers/xsk-rx.c); the NIC's own traffic still reaches the
# stack; another user cannot open the map; two holders on one NIC each get
# their own frames. One tenant, one map: each holder's map in a directory of
# its own, 0700, the one a VMM is handed; a second live holder for the same
# user only with share; a pin of another size replaced; a new owner gets a
# fresh map (the old one's socket gets nothing); so does a mode that takes
# the group's access away. A group that reaches another live holder's map
# is refused too. A holder deleted by ip:
# the next lease of its queue sweeps its slot and map, and the next
# holder's VMM gets every frame. unlease and link del leave no program and
# no pin.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq setpriv nsenter python3 bpftool
XSKRX=$NKCTL_HELPERS/xsk-rx
[ -x "$XSKRX" ] || skip "no $XSKRX (make helpers)"

topo_nic_remote 8
need_sim_rss "$HOST" "$SIM"
sim_idx=$(ifindex_of "$HOST" "$SIM")
ip -n "$REMOTE" route add 10.77.0.5/32 via 10.10.2.1
# The holders' maps are pinned by netns cookie: those of HOST go with it.
pindir=$(ns_pindir "$HOST")
defer "rm -rf /sys/fs/bpf/nkctl-xsk/ns${pindir##*-}-dev*"
VMM=4201     # the VMM's user and group (no passwd entry needed)
OTHER=4202   # another tenant's

nk -n "$HOST" link add nkx type single rxqueues 2
expect_eq "$RC" 0 "a single holder"
expect_rc 0 "lease NIC queue 6 with steer" -n "$HOST" -j lease dev nkx from "$SIM" queue 6 reserve steer dst 10.77.0.5
q=$(printf '%s' "$OUT" | jq '.leases[0].lease.queue.id')
nkx_idx=$(ifindex_of "$HOST" nkx)

# Refusals first: nothing to attach, not a single device.
nk -n "$HOST" link add nkp peer nkq
expect_error 5 "a netkit pair is refused" -n "$HOST" xsk attach dev nkp
expect_error 3 "a queue not leased" -n "$HOST" xsk attach dev nkx queue 0
expect_error 1 "a mode that is not octal" -n "$HOST" xsk attach dev nkx mode 0999

expect_rc 0 "xsk attach" -n "$HOST" -j xsk attach dev nkx queue "$q" user $VMM group $VMM mode 0600
pin=$(printf '%s' "$OUT" | jq -r '.xsk[0].pin')
dir=$(printf '%s' "$OUT" | jq -r '.xsk[0].dir')
expect_eq "$pin" "$dir/map" "the map is in the holder's own directory"
expect_eq "$(stat -c '%u:%g:%a' "$dir")" "$VMM:$VMM:700" "the directory is the VMM's alone"
expect_eq "$(printf '%s' "$OUT" | jq -c '.xsk[0] | [.ifname, .owner, .group, .mode, (.queues[0] | [.queue, .nic, .["nic-queue"], .xdp, .bind])]')" \
	"[\"nkx\",$VMM,$VMM,\"0600\",[$q,\"$SIM\",6,\"native\",\"copy\"]]" \
	"attach prints the pin's owner and mode, the queues, native XDP (netdevsim has it) and copy mode"
expect_eq "$(stat -c '%u:%g:%a' "$pin")" "$VMM:$VMM:600" "the pin has that owner and mode"
expect_rc 0 "attach again is not an error" -n "$HOST" xsk attach dev nkx queue "$q" user $VMM group $VMM mode 0600
expect_eq "$(ip -n "$HOST" -j link show "$SIM" | jq -r '.[0].xdp.mode // "none"')" 1 "an XDP program (native) on the NIC"
expect_rc 0 "xsk show" -n "$HOST" -j xsk show dev nkx
expect_eq "$(printf '%s' "$OUT" | jq -c '[.xsk[] | [.ifname, .pin, .program]]')" "[[\"nkx\",\"$pin\",true]]" "show lists it"
nk -n "$HOST" -j show leases
expect_eq "$(printf '%s' "$OUT" | jq -r --arg nic "$SIM" '.leases[] | select(.id == 6 and .ifname == $nic) | .["xsk-map"]')" "$pin" "show leases names the holder's map"

# The VMM's side, unprivileged but for CAP_NET_RAW (AF_XDP sockets need it).
# /sys/fs/bpf is mode 0700 (as systemd mounts it): the VMM sees its holder's
# directory only, through a bind mount, as a KubeVirt launcher would get it
# (a hostPath volume); nsenter, not ip netns exec, which mounts its own /sys.
vmmdir=/run/nkctl-xsk-test.$$
mkdir -m 0755 "$vmmdir" "$vmmdir.ready" && chmod 0777 "$vmmdir.ready" && defer "rm -rf $vmmdir $vmmdir.ready"
as_user() { # UID DIR ARGS...: the helper as a VMM of UID in HOST, handed DIR at $vmmdir
	local u=$1 d=$2
	shift 2
	as_vmm "$HOST" "$d" "$vmmdir" "$u" "$XSKRX" "$@"
}
vpin=$vmmdir/map
ready=$vmmdir.ready/ready
sysctl -qw kernel.bpf_stats_enabled=1
tr=/sys/kernel/tracing
[ -d $tr/events ] || tr=/sys/kernel/debug/tracing
{ echo 1 > $tr/events/xdp/enable && echo > $tr/trace; } 2>/dev/null
as_user $VMM "$dir" nkx "$q" "$vpin" 100 3000 "$ready" > "$T_TMP/rx.json" 2> "$T_TMP/rx.err" &
rx_pid=$!
rx_ready "$ready" "$rx_pid" "$T_TMP/rx.err"
udp_send "$REMOTE" 10.10.2.1 50     # the host's own
udp_send "$REMOTE" 10.77.0.5 100
wait $rx_pid
if [ "$(jq .received "$T_TMP/rx.json")" != 100 ]; then  # what the data path did
	echo "# rx: $(cat "$T_TMP/rx.json" "$T_TMP/rx.err")"
	echo "# leases: $("$NKCTL" -n "$HOST" -s -j show leases)"
	echo "# slot 6: $(bpftool -j map lookup pinned "$pindir/xsk$sim_idx/slots" key 6 0 0 0 2>&1 | head -c 300)"
	echo "# progs: $(bpftool -j prog show name nk_xsk 2>&1 | head -c 600)"
	echo "# trace: $(grep -v '^#' $tr/trace 2>&1 | tail -n 3)"
fi
expect_eq "$(jq .received "$T_TMP/rx.json")" 100 "100 of 100 datagrams to the steered address arrived in the socket, none of the host's"
ping_ok "$REMOTE" 10.10.2.1 || fail "the NIC's own address stopped answering"
pass "the NIC's own traffic still reaches the stack"

as_user $OTHER "$dir" nkx "$q" "$vpin" 1 100 > /dev/null 2> "$T_TMP/other.err"
expect_match "$(cat "$T_TMP/other.err")" "open the pinned XSK map: Permission denied" "another user cannot open the holder's map"

# Two holders on one NIC: each socket gets its own holder's frames only.
ip -n "$REMOTE" route add 10.77.0.7/32 via 10.10.2.1
nk -n "$HOST" link add nkx2 type single rxqueues 2
expect_rc 0 "a second holder leases NIC queue 7" -n "$HOST" -j lease dev nkx2 from "$SIM" queue 7 reserve steer dst 10.77.0.7
q2=$(printf '%s' "$OUT" | jq '.leases[0].lease.queue.id')
expect_rc 0 "attach the second holder" -n "$HOST" -j xsk attach dev nkx2 user $OTHER group $OTHER
dir2=$(printf '%s' "$OUT" | jq -r '.xsk[0].dir')
rm -f "$ready" "$ready.2"
as_user $VMM "$dir" nkx "$q" "$vpin" 40 3000 "$ready" > "$T_TMP/rx1.json" 2>&1 &
p1=$!
as_user $OTHER "$dir2" nkx2 "$q2" "$vpin" 30 3000 "$ready.2" > "$T_TMP/rx2.json" 2>&1 &
p2=$!
for _ in $(seq 100); do [ -e "$ready" ] && [ -e "$ready.2" ] && break; sleep 0.1; done
[ -e "$ready" ] && [ -e "$ready.2" ] || fail "the helpers did not get ready: $(cat "$T_TMP/rx1.json" "$T_TMP/rx2.json")"
ip netns exec "$REMOTE" python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(30):
    s.sendto(b"a %d" % i, ("10.77.0.5", 9999))
    s.sendto(b"b %d" % i, ("10.77.0.7", 9999))
'
wait $p1 $p2
expect_eq "$(jq -c '[.received]' "$T_TMP/rx1.json")$(jq -c '[.received]' "$T_TMP/rx2.json")" "[30][30]" \
	"two holders on one NIC: each socket got its own 30 frames, none of the other's"

# One user, two holders: refused unless share. A pin of another size (an
# older nkctl's) is replaced. The first one's VMM, handed its own
# directory, cannot reach the other's map.
nk -n "$HOST" link add nkx3 type single rxqueues 2
expect_rc 0 "a third holder leases NIC queue 5" -n "$HOST" lease dev nkx3 from "$SIM" queue 5
# A group: another user's map that the first holder's group may open is
# refused too (that VMM runs with its group); one its group may not open
# is not.
expect_error 4 "another user, the first holder's group, mode 0640: refused" -n "$HOST" xsk attach dev nkx3 user 4204 group $VMM mode 0640
expect_match "$ERR" "group $VMM is the group of the map of another holder \\($dir\\) too" "the refusal names the group and the other holder"
expect_rc 0 "the same group with mode 0600 is not refused" -n "$HOST" xsk attach dev nkx3 user 4204 group $VMM mode 0600
expect_error 4 "the first holder's user for the third is refused" -n "$HOST" xsk attach dev nkx3 user $VMM
expect_match "$ERR" "user $VMM already owns the map of another holder" "the refusal names the owner"
expect_rc 0 "with share it may" -n "$HOST" -j xsk attach dev nkx3 user $VMM share
dir3=$(printf '%s' "$OUT" | jq -r '.xsk[0].dir')
rm "$dir3/map" && bpftool map create "$dir3/map" type xskmap key 4 value 4 entries 256 name old ||
	fail "cannot pin a map of 256 entries"
expect_rc 0 "attach again" -n "$HOST" xsk attach dev nkx3 user $VMM share
expect_match "$ERR" "replaced $dir3/map: its size differs" "attach says it replaced the pin of 256 entries"
expect_eq "$(bpftool -j map show pinned "$dir3/map" | jq -c '[.type, .max_entries]')" '["xskmap",4096]' "the map is a holder's again"
as_user $VMM "$dir" nkx "$q" "$dir3/map" 1 100 > /dev/null 2> "$T_TMP/other3.err"
expect_match "$(cat "$T_TMP/other3.err")" "open the pinned XSK map: Permission denied" "a VMM of the same user, handed its own directory, cannot open the other's map"
# A VMM owns its directory: a symlink it put there to another holder's map
# is not followed. (Made as root here: the test's VMM users cannot reach
# /sys/fs/bpf; what counts is the link in the VMM's own directory.)
rm "$dir3/map" && ln -s "$dir2/map" "$dir3/map" || fail "cannot put a symlink in $dir3"
expect_rc 0 "attach again over a symlink to the second holder's map" -n "$HOST" xsk attach dev nkx3 user $VMM share
expect_eq "$(stat -c %u "$dir2/map") $([ -L "$dir3/map" ] && echo symlink || echo pin)" "$OTHER pin" \
	"the other holder's map keeps its owner, and the third gets a map of its own"
expect_rc 0 "the third holder goes" -n "$HOST" unlease dev nkx3
[ ! -e "$dir3" ] || fail "unlease left $dir3"
expect_rc 0 "the second holder goes" -n "$HOST" unlease dev nkx2
expect_eq "$(ip -n "$HOST" -j link show "$SIM" | jq -r '.[0].xdp.mode // "none"')" 1 "the program stays for the first holder"

# A new owner: a fresh map, the NIC's queue pointed at it; the socket the
# old owner's VMM inserted through its fd gets nothing, the new one all.
# vm_rx UID DIR DEV QUEUE COUNT OUT [CMD...]: a VMM of UID handed DIR
# receives on DEV's QUEUE (waiting 10 s at most for a first frame) while
# COUNT datagrams go to 10.77.0.5, after CMD once it is ready; its report
# in OUT.
vm_rx() {
	local u=$1 d=$2 dev=$3 qq=$4 n=$5 out=$6 p
	shift 6
	rm -f "$ready"
	XSK_RX_FIRST_MS=10000 as_user "$u" "$d" "$dev" "$qq" "$vpin" "$n" 3000 "$ready" > "$out" 2>&1 &
	p=$!
	for _ in $(seq 100); do [ -e "$ready" ] && break; sleep 0.1; done
	"$@"
	udp_send "$REMOTE" 10.77.0.5 "$n"
	wait $p
}
vm_rx $VMM "$dir" nkx "$q" 10 "$T_TMP/old.json" expect_rc 0 "attach for another owner" -n "$HOST" xsk attach dev nkx user $OTHER
expect_eq "$(stat -c '%u:%a' "$dir") $(stat -c %u "$pin")" "$OTHER:700 $OTHER" "the directory and the map are the new owner's"
expect_eq "$(jq .received "$T_TMP/old.json")" 0 "the old owner's socket, in the old map, gets none of 10 ($(cat "$T_TMP/old.json"))"
vm_rx $OTHER "$dir" nkx "$q" 10 "$T_TMP/new.json"
expect_eq "$(jq .received "$T_TMP/new.json")" 10 "the new owner's socket gets 10 of 10"

# A mode that takes the group's access away: a fresh map too, the NIC's
# queue pointed at it; the socket a VMM of the group inserted through the
# old one gets nothing. One that widens it keeps the map.
GRP=4205
map_id() { bpftool -j map show pinned "$pin" | jq .id; }
expect_rc 0 "attach for a group that may read the map" -n "$HOST" xsk attach dev nkx user $OTHER group $GRP mode 0640
id0=$(map_id)
expect_rc 0 "attach again, the group may write it too" -n "$HOST" xsk attach dev nkx user $OTHER group $GRP mode 0660
expect_eq "$(map_id) $(stat -c '%g:%a' "$dir")" "$id0 $GRP:750" "a mode that takes nothing away keeps the map; the group may search the directory"
vm_rx $GRP "$dir" nkx "$q" 10 "$T_TMP/grp.json"
expect_eq "$(jq .received "$T_TMP/grp.json")" 10 "a VMM of the group inserts its socket and gets 10 of 10"
vm_rx $GRP "$dir" nkx "$q" 10 "$T_TMP/grp-old.json" expect_rc 0 "attach with mode 0600" -n "$HOST" xsk attach dev nkx user $OTHER group $GRP mode 0600
expect_eq "$(stat -c '%a' "$dir") $(stat -c '%a' "$pin") $([ "$(map_id)" != "$id0" ] && echo fresh)" "700 600 fresh" \
	"the group's access taken away: a fresh map, the directory the owner's alone"
expect_eq "$(jq .received "$T_TMP/grp-old.json")" 0 "the group's socket, in the old map, gets none of 10 ($(cat "$T_TMP/grp-old.json"))"
vm_rx $OTHER "$dir" nkx "$q" 10 "$T_TMP/new2.json"
expect_eq "$(jq .received "$T_TMP/new2.json")" 10 "the owner's socket in the fresh map gets 10 of 10"

# unlease takes it along: no program on the NIC, no pins.
expect_rc 0 "unlease" -n "$HOST" unlease dev nkx
expect_eq "$(ip -n "$HOST" -j link show "$SIM" | jq -r '.[0].xdp.mode // "none"')" none "unlease: no XDP program left on the NIC"
[ ! -e "$pin" ] && [ ! -e "$(ns_pindir "$HOST")/xsk$sim_idx" ] || fail "unlease left pins: $(ls -R /sys/fs/bpf/nkctl-xsk "$(ns_pindir "$HOST")" 2>&1)"
pass "unlease: no pins left"

# A holder deleted by ip (as libvirt does): the next lease of its queue
# sweeps its slot and its map; the next holder's VMM gets every frame.
nk -n "$HOST" link add vm0 type single rxqueues 2
expect_rc 0 "vm0 leases NIC queue 6" -n "$HOST" lease dev vm0 from "$SIM" queue 6 reserve steer dst 10.77.0.5
expect_rc 0 "attach vm0" -n "$HOST" -j xsk attach dev vm0 user $VMM
dir0=$(printf '%s' "$OUT" | jq -r '.xsk[0].dir')
ip -n "$HOST" link del vm0
nk -n "$HOST" link add vm1 type single rxqueues 2
expect_rc 0 "vm1 leases NIC queue 6" -n "$HOST" -j lease dev vm1 from "$SIM" queue 6 reserve steer dst 10.77.0.5
q1=$(printf '%s' "$OUT" | jq '.leases[0].lease.queue.id')
[ ! -e "$dir0" ] || fail "the lease left the deleted holder's map: $(ls -R /sys/fs/bpf/nkctl-xsk)"
pass "the lease swept the deleted holder's slot and map"
expect_rc 0 "attach vm1 for the same user" -n "$HOST" -j xsk attach dev vm1 user $VMM
dir1=$(printf '%s' "$OUT" | jq -r '.xsk[0].dir')
vm_rx $VMM "$dir1" vm1 "$q1" 20 "$T_TMP/vm1.json"
expect_eq "$(jq .received "$T_TMP/vm1.json")" 20 "vm1's socket gets 20 of 20 ($(cat "$T_TMP/vm1.json"))"

# A lease read by attach, then ended (its holder deleted by ip) before the
# slot is written: attach checks it again under the NIC directory's lock,
# held here meanwhile, and writes nothing.
nk -n "$HOST" link add vm2 type single rxqueues 2
expect_rc 0 "vm2 leases NIC queue 5" -n "$HOST" lease dev vm2 from "$SIM" queue 5
dir2=/sys/fs/bpf/nkctl-xsk/ns${pindir##*-}-dev$(ifindex_of "$HOST" vm2)
exec {lfd}< "$pindir/xsk$sim_idx"
flock -x $lfd || fail "cannot lock the NIC's directory"
"$NKCTL" -n "$HOST" xsk attach dev vm2 > /dev/null 2> "$T_TMP/vm2.err" {lfd}<&- &
ap=$!
for _ in $(seq 100); do [ -e "$dir2/map" ] && break; sleep 0.1; done  # its leases read
ip -n "$HOST" link del vm2
exec {lfd}<&-
wait $ap
expect_eq "$? $(cat "$T_TMP/vm2.err")" "3 Error: queue 5 of \"$SIM\" is no longer leased to the holder" \
	"attach refuses a lease that ended before the slot was written"
expect_eq "$(bpftool -j map lookup pinned "$pindir/xsk$sim_idx/slots" key 5 0 0 0 | jq -c '.formatted.value.holder // .value')" 0 \
	"queue 5's slot is empty"
expect_rc 0 "unlease vm1" -n "$HOST" unlease dev vm1

# link del too; detach by hand first.
nk -n "$HOST" link add nky type single rxqueues 2
expect_rc 0 "lease again" -n "$HOST" -j lease dev nky from "$SIM" queue 6
# an older nkctl's pin, a file where the holder's directory goes
old=/sys/fs/bpf/nkctl-xsk/ns${pindir##*-}-dev$(ifindex_of "$HOST" nky)
bpftool map create "$old" type xskmap key 4 value 4 entries 256 name old || fail "cannot pin a map at $old"
expect_rc 0 "attach" -n "$HOST" -j xsk attach dev nky
pin=$(printf '%s' "$OUT" | jq -r '.xsk[0].pin')
expect_match "$ERR" "replaced $old: a pin of an older nkctl" "attach says it replaced an older nkctl's pin"
expect_eq "$pin" "$old/map" "the holder's directory in its place"
# Its VMM owns the directory and may leave things in it (a pin, symlinks,
# a directory): detach removes them, following no link out of it. (Made as
# root here, then given to the VMM: the test's VMM users cannot reach
# /sys/fs/bpf.)
expect_rc 0 "attach for a VMM" -n "$HOST" xsk attach dev nky user $VMM
d=${pin%/map}
mkdir "$T_TMP/target" && touch "$T_TMP/target/keep" || fail "cannot make a link's target"
{ mkdir "$d/sub" && ln -s "$T_TMP/target" "$d/link" && ln -s "$T_TMP/target" "$d/sub/link" &&
  bpftool map create "$d/sub/own" type array key 4 value 4 entries 1 name own &&
  chown -hR $VMM:$VMM "$d/sub" "$d/link"; } || fail "cannot leave the VMM's things in $d"
expect_rc 0 "detach" -n "$HOST" xsk detach dev nky
[ ! -e "$d" ] && [ -e "$T_TMP/target/keep" ] || fail "detach left $d ($(ls -lR "$d" 2>&1)) or followed a link out of it"
pass "detach removes what the VMM left in its directory, and nothing a link of it names"
[ ! -e "$pin" ] && [ "$(ip -n "$HOST" -j link show "$SIM" | jq -r '.[0].xdp.mode // "none"')" = none ] ||
	fail "detach left the pin or the program"
pass "detach removes the pin and the program"
expect_error 3 "detach again: nothing there" -n "$HOST" xsk detach dev nky
expect_rc 0 "attach again" -n "$HOST" xsk attach dev nky
expect_rc 0 "link del" -n "$HOST" link del nky
expect_eq "$(ip -n "$HOST" -j link show "$SIM" | jq -r '.[0].xdp.mode // "none"')" none "link del: no XDP program left on the NIC"
[ ! -e "$pin" ] && [ ! -e "${pin%/map}" ] || fail "link del left $pin"
pass "link del: no pins left"

done_testing
