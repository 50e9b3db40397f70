#!/bin/bash
# tier: vm
# timeout: 600
# alone: yes (it makes /sys/fs/bpf 1777, as the kernel mounts bpffs without a mode, and edits /etc/passwd and /etc/group: other tests' nkctl would see both)
# What a VMM's user (or any user) can write never decides what root does
# (issue 47): a bpffs root others may write, with a user's nkctl-xsk made
# first (taken over while empty, else refused; a symlink refused), users'
# flocks on every place they can open (no nkctl command waits for them),
# whom a map was granted to read from root's record (a VMM that chmods or
# chgrps its own pin or directory changes no decision; a hard link to
# another holder's map is never reused), a member of another map's group
# (a supplementary group) clashes, a nine-deep tree in a holder's directory
# goes, a directory handed to a new owner is emptied first, and a symlink
# in a holder's directory to a file of root's, with attach killed at every
# step, never makes root change that file.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq strace bpftool setpriv flock

ns_new HOST
sim_new SIM "$HOST" 8
pindir=$(ns_pindir "$HOST")
cookie=${pindir##*-}
PUB=/sys/fs/bpf/nkctl-xsk
ok() { nk "$@"; [ "$RC" = 0 ] || { ERR="nkctl $*: exit $RC: $ERR"; return 1; }; }
as_user() { local u=$1; shift; setpriv --reuid "$u" --regid "$u" --clear-groups "$@"; }
# holder NAME QUEUE: a single holder leasing QUEUE of SIM
holder() {
	ok -n "$HOST" link add "$1" type single rxqueues 2 || fail "$ERR"
	ok -n "$HOST" lease dev "$1" from "$SIM" queue "$2" || fail "$ERR"
}
hdir() { echo "$PUB/ns$cookie-dev$(ifindex_of "$HOST" "$1")"; }
map_id() { bpftool -j map show pinned "$1" 2> /dev/null | jq .id; }
# timed SECS ARGS...: nkctl ARGS, killed after SECS; RC its exit status
timed() { local s=$1; shift; timeout "$s" "$NKCTL" "$@" > "$T_TMP/timed.out" 2> "$T_TMP/timed.err"; RC=$?; }

# The guest's bpffs root and nkctl-xsk as they were, back at the end.
mode0=$(stat -c %a /sys/fs/bpf)
defer "chmod $mode0 /sys/fs/bpf"
if [ -e "$PUB" ]; then
	mv "$PUB" /sys/fs/bpf/nkctlxsksaved || fail "cannot move $PUB aside"
	defer "rm -rf $PUB; mv /sys/fs/bpf/nkctlxsksaved $PUB"
else
	defer "rm -rf $PUB"
fi
nlprobe_serve

# ---- a bpffs root anyone may write (the kernel's default mode) ----
holder hA 1
chmod 1777 /sys/fs/bpf
as_user 4251 mkdir "$PUB" || fail "user 4251 cannot make $PUB in a 1777 root"
expect_rc 0 "attach with a user's empty nkctl-xsk" -n "$HOST" xsk attach dev hA user 4252
expect_match "$ERR" "nkctl-xsk was uid 4251's, mode 0755: made root's, 0755" "it says it took the empty directory over"
expect_match "$ERR" "has mode 1777: any user can make entries" "and warns of what the root's mode exposes"
expect_eq "$(stat -c %u:%a "$PUB")" "0:755" "nkctl-xsk is root's, 0755"
expect_eq "$(stat -c %u:%a "$(hdir hA)")" "4252:700" "the holder's directory is its VMM's"

# Users' flocks on every place they can open: the bpffs root, nkctl-xsk,
# the VMM's own directory. No command waits for them.
HA=$(hdir hA)  # not in the background jobs: one nlprobe caller at a time
flockers=()
as_user 4251 flock /sys/fs/bpf sleep 300 &
flockers+=($!)
as_user 4251 flock "$PUB" sleep 300 &
flockers+=($!)
as_user 4252 flock "$HA" sleep 300 &
flockers+=($!)
defer "kill ${flockers[*]} 2> /dev/null"
for d in /sys/fs/bpf "$PUB" "$HA"; do
	for _ in $(seq 300); do flock -n "$d" true 2> /dev/null || break; sleep 0.1; done
	flock -n "$d" true 2> /dev/null && fail "the user's flock on $d was not taken"
done
pass "users hold flocks on the bpffs root, nkctl-xsk and a holder's directory"
timed 60 -n "$HOST" xsk attach dev hA user 4252
expect_eq "$RC" 0 "xsk attach beside them ($(cat "$T_TMP/timed.err"))"
nk -n "$HOST" link add hB type single rxqueues 2
timed 60 -n "$HOST" lease dev hB from "$SIM" queue 2
expect_eq "$RC" 0 "a lease beside them"
timed 60 -n "$HOST" unlease dev hB
expect_eq "$RC" 0 "an unlease beside them"
timed 60 -n "$HOST" xsk detach dev hA
expect_eq "$RC" 0 "xsk detach beside them"
timed 60 redirect prune
expect_eq "$RC" 0 "redirect prune beside them"
kill "${flockers[@]}" 2> /dev/null

# A user's nkctl-xsk with something in it: refused, nothing of it changed.
rm -rf "$PUB"
as_user 4251 mkdir -p "$PUB/sub" || fail "user 4251 cannot make $PUB/sub"
expect_error 6 "attach with a user's nkctl-xsk that holds something" -n "$HOST" xsk attach dev hA user 4252
expect_match "$ERR" "nkctl-xsk belongs to uid 4251, not root, .*rm -r $PUB" "the error names it and the repair"
expect_eq "$(stat -c %u "$PUB") $(stat -c %u "$PUB/sub")" "4251 4251" "nothing of it changed owner"
nk -n "$HOST" link add hF type single rxqueues 2
expect_rc 0 "a lease beside it" -n "$HOST" lease dev hF from "$SIM" queue 6
expect_match "$ERR" "AF_XDP holders' maps are not swept: .*belongs to uid 4251" "its sweep says why it leaves nkctl-xsk alone"
expect_rc 0 "its unlease" -n "$HOST" unlease dev hF

# nkctl-xsk a symlink to a directory elsewhere: refused, nothing made there.
rm -rf "$PUB"
mkdir "$T_TMP/elsewhere"
as_user 4251 ln -s "$T_TMP/elsewhere" "$PUB" || fail "user 4251 cannot make the symlink"
expect_error 2 "attach with nkctl-xsk a user's symlink" -n "$HOST" xsk attach dev hA user 4252
expect_eq "$(ls -A "$T_TMP/elsewhere")" "" "nothing made where it points"
rm -f "$PUB"
chmod "$mode0" /sys/fs/bpf

# ---- root's record, not the VMM's metadata ----
expect_rc 0 "attach hA for 4253, 0600" -n "$HOST" xsk attach dev hA user 4253 mode 0600
A=$(hdir hA)
idA=$(map_id "$A/map")
# What the VMM can do to what it owns: widen its pin, chgrp its directory
# and pin to another group (done here as root, as its owner could).
chmod 0666 "$A/map"
chgrp 4260 "$A" "$A/map"
expect_rc 0 "attach hA again, 0600" -n "$HOST" xsk attach dev hA user 4253 mode 0600
expect_eq "$(map_id "$A/map")" "$idA" "the same map is kept: the record says 0600, not the pin's 0666"
expect_eq "$(stat -c %u:%g:%a "$A/map")" "4253:0:600" "the pin's owner and mode are the grant's again"
chgrp 4260 "$A/map" && chmod 0660 "$A/map"
holder hB 2
expect_rc 0 "another holder for group 4260, 0660: no clash with what hA's VMM wrote on its pin" \
	-n "$HOST" xsk attach dev hB user 4254 group 4260 mode 0660
B=$(hdir hB)
idB=$(map_id "$B/map")

# hB's VMM swaps its map for a hard link to hA's (it could, were it in a
# group that reaches hA's map): the next attach makes a map of its own.
before=$(stat -c %u:%g:%a "$A/map")
rm -f "$B/map"
ln "$A/map" "$B/map" || fail "cannot hard-link hA's map into hB's directory"
expect_eq "$(stat -c %h "$A/map")" 2 "setup: hA's map has two links"
expect_rc 0 "attach hB again" -n "$HOST" xsk attach dev hB user 4254 group 4260 mode 0660
expect_eq "$(stat -c %u:%g:%a:%h "$A/map") $(map_id "$A/map")" "$before:1 $idA" \
	"hA's map kept its owner, mode and id; the link is gone"
[ "$(map_id "$B/map")" != "$idA" ] && [ "$(map_id "$B/map")" != "$idB" ] ||
	fail "hB's map is hA's or its old one: $(map_id "$B/map")"
pass "hB got a fresh map of its own"

# ---- groups: a member of the group another map grants ----
cp /etc/passwd "$T_TMP/passwd" && cp /etc/group "$T_TMP/group"
defer "cp $T_TMP/passwd /etc/passwd; cp $T_TMP/group /etc/group"
echo "nkttrust:x:4255:4255::/:/bin/false" >> /etc/passwd
echo "nkttrust:x:4255:" >> /etc/group
echo "nkttrustg:x:4270:nkttrust" >> /etc/group
holder hC 3
expect_rc 0 "hC for 4256, group 4270, 0640" -n "$HOST" xsk attach dev hC user 4256 group 4270 mode 0640
holder hD 4
expect_error 4 "hD for 4255, a member of 4270: refused" -n "$HOST" xsk attach dev hD user 4255
expect_match "$ERR" "is a member of the other map's group, which reaches that map" "the error says why"
expect_rc 0 "with share it is allowed" -n "$HOST" xsk attach dev hD user 4255 share

# ---- a directory however deep, and a new owner's directory emptied ----
C=$(hdir hC)
mkdir -p "$C/a/b/c/d/e/f/g/h/i/j/k"
chown -R 4256 "$C/a"
expect_rc 0 "detach hC" -n "$HOST" xsk detach dev hC
[ -e "$C" ] && fail "hC's directory is left: $(find "$C" | head -n 3)"
pass "a nine-deep tree in a holder's directory went with it"
mkdir "$A/left"
chown 4253 "$A/left"
expect_rc 0 "hA for a new owner, 4257" -n "$HOST" xsk attach dev hA user 4257
expect_eq "$(ls -A "$A")" map "the new owner's directory holds only its map"
expect_eq "$(stat -c %u "$A") $(stat -c %u "$A/map")" "4257 4257" "both are the new owner's"

# ---- a symlink to root's file in a holder's directory, attach killed ----
victim=$T_TMP/victim
echo secret > "$victim" && chmod 0600 "$victim"
holder hE 5
expect_rc 0 "attach hE" -n "$HOST" xsk attach dev hE user 4258
E=$(hdir hE)
snapshot() { stat -c %u:%g:%a "$victim"; }
BASE=$(snapshot)
plant() { rm -f "$E/map" 2> /dev/null; ln -s "$victim" "$E/map" 2> /dev/null; chown -h 4258 "$E/map" 2> /dev/null; true; }
KILL_CLASSES="bpf fchown fchownat fchmodat renameat unlinkat"
kill_cycle "attach over a symlink to root's file, killed at every step" plant \
	"-n $HOST xsk attach dev hE user 4258 mode 0666" "ok -n $HOST xsk attach dev hE user 4258 mode 0666" : 5
expect_match "$(stat -c %F "$E/map")" "^regular" "the holder's map is a pin again"
expect_eq "$(cat "$victim")" secret "root's file is as it was"

for h in hA hB hD hE; do nk -n "$HOST" xsk detach dev "$h"; done
done_testing
