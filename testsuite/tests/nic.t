#!/bin/bash
# tier: vm
# timeout: 600
# nic reserve/release and steer add/del/show on netdevsim with the test
# patch (testsuite/vm/netdevsim-rxnfc-rss.patch: RSS indirection table and
# n-tuple rules). Header split, the indirection table and the rules are read
# back by nlprobe.py too, not only by nkctl; the restore is checked against
# the settings from before the first change. Then which NIC a state file
# belongs to: named by bus device and port, a stranger's reported, a
# first-format file read and rewritten, a NIC moved to another namespace
# found there with its reservation, lease and rule (and a NIC given its old
# ifindex adopting nothing); one NIC's lock not holding up another's lease.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq

ns_new HOST
sim_new SIM "$HOST" 4
idx=$(ifindex_of "$HOST" "$SIM")

need_sim_rss "$HOST" "$SIM"

# Settings other than the defaults, so the restore has something to restore.
$NLPROBE -n "$HOST" rings-set "$idx" tcp-data-split off hds-thresh 128 > /dev/null ||
	fail "rings-set through nlprobe"
rings_before=$($NLPROBE -n "$HOST" rings "$idx" | jq -S -c .)
indir() { $NLPROBE -n "$HOST" rss "$idx" | jq -c .indir; }   # the table, read by nlprobe
kernel_rules() { $NLPROBE -n "$HOST" ntuple "$SIM" | jq -c '[.rules[] | [.["flow-type"], .["dst-ip"] // .["src-ip"], .action]] | sort'; }
indir_before=$(indir)
expect_eq "$rings_before" '{"hds-thresh":128,"tcp-data-split":"off"}' "header split off, hds-thresh 128 to start with"
expect_rc 0 "nic show" -n "$HOST" -j nic show dev "$SIM"
rss_before=$(printf '%s' "$OUT" | jq -c '.nics[0].rss')
expect_eq "$rss_before" '{"indir-size":128,"queues":[0,1,2,3],"default":true}' "RSS over every queue, default table"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0].queues[] | .rss]')" '[true,true,true,true]' "every queue receives RSS traffic"

# reserve
expect_rc 0 "reserve queue 3" -n "$HOST" -j nic reserve dev "$SIM" queue 3
json_valid "reserve -j"
expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0].rss.queues')" '[0,1,2]' "queue 3 is out of RSS"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0].queues[] | [.id, .reserved, .rss]]')" \
	'[[0,false,true],[1,false,true],[2,false,true],[3,true,false]]' "reserved and rss per queue"
expect_eq "$($NLPROBE -n "$HOST" rings "$idx" | jq -S -c .)" '{"hds-thresh":0,"tcp-data-split":"on"}' \
	"the kernel shows header split on, hds-thresh 0"
expect_eq "$(indir | jq -c unique)" '[0,1,2]' "the kernel's table no longer names queue 3 (nlprobe)"
# Named by what the NIC is: its bus, bus device and port.
state=$(ls -d /run/nkctl/nic/netdevsim-netdevsim"$SIM_ID"-p* 2>/dev/null | head -n 1)
[ -f "$state" ] || fail "no state file for $SIM (netdevsim$SIM_ID): $(ls /run/nkctl/nic)"
expect_match "$(cat "$state")" "ifname $SIM" "it records the NIC's name"
expect_match "$(cat "$state")" "ifindex $idx" "and its ifindex"
[ -e "/run/nkctl/nic/.lock-${state##*/}" ] || fail "no lock file of its own"
pass "the NIC has a lock file of its own"
expect_eq "$(stat -c %a "$state")" 600 "the state file is 0600"
expect_eq "$(stat -c %a /run/nkctl/nic)" 700 "its directory is 0700"
expect_match "$(cat "$state")" 'tcp-data-split 1' "the state records header split off"
expect_match "$(cat "$state")" 'hds-thresh 128' "the state records hds-thresh 128"
expect_rc 0 "reserve again changes nothing" -n "$HOST" -j nic reserve dev "$SIM" queue 3
expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0].rss.queues')" '[0,1,2]' "still out of RSS"
expect_match "$(cat "$state")" 'hds-thresh 128' "the first recording is kept"
expect_rc 0 "reserve queue 2 too" -n "$HOST" -j nic reserve dev "$SIM" queue 2
expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0].rss.queues')" '[0,1]' "queues 2 and 3 out of RSS"
expect_error 2 "reserving every queue" -n "$HOST" nic reserve dev "$SIM" queue 0-1
expect_match "$ERR" 'no queue for RSS' "says why"
expect_error 3 "a queue beyond the channels" -n "$HOST" nic reserve dev "$SIM" queue 9
expect_rc 0 "show after the refusals" -n "$HOST" -j nic show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0].rss.queues')" '[0,1]' "the refusals changed nothing"

# steer
expect_rc 0 "steer add" -n "$HOST" -j steer add dev "$SIM" flow-type tcp4 dst 10.9.0.2 dst-port 8080 queue 3
json_valid "steer add -j"
id=$(printf '%s' "$OUT" | jq -r '.rules[0].id')
expect_match "$id" '^[0-9]+$' "the driver's rule id is printed"
expect_eq "$(printf '%s' "$OUT" | jq -c '.rules[0] | [."flow-type", .dst, ."dst-port", .queue, .nkctl]')" \
	'["tcp4","10.9.0.2",8080,3,true]' "the rule as added"
expect_eq "$($NLPROBE -n "$HOST" ntuple "$SIM" | jq -c --argjson l "$id" '.rules[] | select(.location==$l) | [.["flow-type"], .["dst-ip"], .["dst-port"], .action]')" \
	'["tcp4","10.9.0.2",8080,3]' "the driver holds that rule at that id (nlprobe)"
expect_rc 0 "steer add v6" -n "$HOST" -j steer add dev "$SIM" flow-type ip6 src fd00::1 queue 2
id6=$(printf '%s' "$OUT" | jq -r '.rules[0].id')
expect_rc 0 "steer show" -n "$HOST" -j steer show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c "[.nics[0].rules[] | select(.id==$id) | [.\"flow-type\", .dst, .\"dst-port\", .queue, .nkctl]][0]")" \
	'["tcp4","10.9.0.2",8080,3,true]' "the driver returns the same rule"
expect_eq "$(printf '%s' "$OUT" | jq -c "[.nics[0].rules[] | select(.id==$id6) | [.\"flow-type\", .src, .queue]][0]")" \
	'["ip6","fd00::1",2]' "and the IPv6 one"
expect_match "$(cat "$state")" "rules .*$id" "the rule id is recorded"
expect_error 3 "steer to a queue the NIC lacks" -n "$HOST" steer add dev "$SIM" flow-type tcp4 queue 7
expect_rc 0 "steer del" -n "$HOST" -j steer del dev "$SIM" id "$id"
expect_eq "$(printf '%s' "$OUT" | jq -c .deleted)" true "deleted"
expect_error 3 "steer del again" -n "$HOST" steer del dev "$SIM" id "$id"
expect_rc 0 "steer del again with -force" -n "$HOST" -force -j steer del dev "$SIM" id "$id"
expect_eq "$(printf '%s' "$OUT" | jq -c .deleted)" false "nothing was there"
expect_rc 0 "steer del v6" -n "$HOST" steer del dev "$SIM" id "$id6"

# A leased queue cannot be released without force.
if nk -n "$HOST" link add nks type single rxqueues 4 && [ "$RC" = 0 ]; then
	expect_rc 0 "lease queue 3" -n "$HOST" lease dev nks from "$SIM" queue 3
	expect_rc 0 "nic show names the lease" -n "$HOST" -j nic show dev "$SIM"
	expect_eq "$(printf '%s' "$OUT" | jq -r '.nics[0].queues[3].lease.ifname')" nks "queue 3 leased to nks"
	expect_error 4 "release of a leased queue" -n "$HOST" nic release dev "$SIM" queue 3
	expect_match "$ERR" 'still leased' "says why"
	expect_rc 0 "unlease" -n "$HOST" unlease dev nks
fi

# release: one queue, then the last restores everything.
expect_rc 0 "release queue 2" -n "$HOST" -j nic release dev "$SIM" queue 2
expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0].rss.queues')" '[0,1,2]' "queue 2 back in RSS"
expect_eq "$($NLPROBE -n "$HOST" rings "$idx" | jq -S -c .)" '{"hds-thresh":0,"tcp-data-split":"on"}' \
	"header split stays while a queue is reserved"
expect_error 3 "release of a queue not reserved" -n "$HOST" nic release dev "$SIM" queue 1
expect_rc 0 "release the rest" -n "$HOST" -j nic release dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0].rss')" "$rss_before" "the RSS table is as before"
expect_eq "$($NLPROBE -n "$HOST" rings "$idx" | jq -S -c .)" "$rings_before" "rings as before (read by nlprobe)"
expect_eq "$(indir)" "$indir_before" "the kernel's table is as before, entry for entry (nlprobe)"
[ ! -e "$state" ] || fail "the state file is still there: $(cat "$state")"
pass "the state file is gone"
expect_error 3 "release again" -n "$HOST" nic release dev "$SIM"

# lease ... steer: the lease reserves its queue and adds its rules; unlease
# removes exactly those, leaving an earlier reservation alone.
nk -n "$HOST" link del nks 2>/dev/null
nk -n "$HOST" link add nks type single rxqueues 4
expect_eq "$RC" 0 "a lease holder"
expect_rc 0 "reserve queue 1 by hand first" -n "$HOST" nic reserve dev "$SIM" queue 1
expect_rc 0 "lease with steer" -n "$HOST" -j lease dev nks from "$SIM" queue 3 steer dst 10.9.0.7 steer dst fd00::7
json_valid "lease steer -j"
expect_rc 0 "nic show after the lease" -n "$HOST" -j nic show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0].rss.queues')" '[0,2]' "queues 1 and 3 out of RSS"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0].rules[] | [."flow-type", .dst, .queue, .nkctl]] | sort')" \
	'[["ip4","10.9.0.7",3,true],["ip6","fd00::7",3,true]]' "one rule per address, to the leased queue"
expect_eq "$(kernel_rules)" '[["ip4","10.9.0.7",3],["ip6","fd00::7",3]]' "the driver holds both (nlprobe)"
expect_rc 0 "show leases" -n "$HOST" -j show leases
expect_eq "$(printf '%s' "$OUT" | jq -c "[.leases[] | select(.ifname==\"$SIM\" and .id==3) | [.reserved, .rss, (.rules | length)]][0]")" \
	'[true,false,2]' "show leases: reserved, out of RSS, two rules"
expect_rc 0 "show leases as text" -n "$HOST" show leases
expect_match "$OUT" "queue 3 .*reserved out-of-rss rule [0-9]+,[0-9]+" "the text line names them"
nk -n "$HOST" steer add dev "$SIM" flow-type udp4 dst-port 4789 queue 0
expect_eq "$RC" 0 "somebody else's rule"
other=$(printf '%s' "$OUT" | awk '/rule/ {sub(":", "", $2); print $2}')
# Another command holds the NIC's lock a moment (its sweep, a nic show):
# unlease waits for its own leases' NIC, so their NIC side is undone when it
# returns (other NICs are only tried).
exec {lockfd}<> "$(dirname "$state")/.lock-$(basename "$state")"
flock "$lockfd" || fail "cannot take the NIC's lock"
(sleep 2; flock -u "$lockfd") &
unlocker=$!
exec {lockfd}>&-
expect_rc 0 "unlease while another command holds the NIC's lock for 2 s" -n "$HOST" -j unlease dev nks
wait "$unlocker"
expect_rc 0 "nic show after unlease" -n "$HOST" -j nic show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0].rss.queues')" '[0,2,3]' "queue 3 back in RSS, queue 1 still out"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0].rules[] | [."flow-type", .queue]]')" '[["udp4",0]]' \
	"the lease's rules are gone, the other one stays"
expect_eq "$(kernel_rules)" '[["udp4",null,0]]' "the driver agrees (nlprobe)"
expect_rc 0 "release" -n "$HOST" -j nic release dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0].rss')" "$rss_before" "the RSS table is as before"
expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0].rules')" '[]' "release took nkctl's remaining rule too"
expect_eq "$($NLPROBE -n "$HOST" rings "$idx" | jq -S -c .)" "$rings_before" "rings as before"
expect_eq "$(indir)" "$indir_before" "the kernel's table as before (nlprobe)"
expect_eq "$(kernel_rules)" '[]' "no rule left in the driver (nlprobe)"
[ ! -e "$state" ] || fail "the state file is still there: $(cat "$state")"
pass "no state left"

# Which NIC a state file belongs to, and the lock of each NIC.
sim_new BIG "$HOST" 8
bidx=$(ifindex_of "$HOST" "$BIG")
bindir() { $NLPROBE -n "$HOST" rss "$bidx" | jq -c .indir; }
bindir_before=$(bindir)
# A NIC's state file is named by what the NIC is (bus, bus device, port): a
# file under that name recorded for another NIC is reported, never adopted.
expect_rc 0 "reserve queue 1" -n "$HOST" nic reserve dev "$SIM" queue 1
own=$(ls -d /run/nkctl/nic/netdevsim-netdevsim"$SIM_ID"-p* 2>/dev/null | head -n 1)
[ -f "$own" ] || fail "no state file named by $SIM's bus device: $(ls /run/nkctl/nic)"
pass "the state file is named by the bus device and port: ${own##*/}"
stranger=${own/netdevsim$SIM_ID/netdevsim$BIG_ID}
cp "$own" "$stranger"
defer "rm -f '$stranger'"
expect_rc 0 "nic show of the other NIC" -n "$HOST" -j nic show dev "$BIG"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0].queues[] | select(.reserved) | .id]')" "[]" \
	"it does not show the stranger's reservation"
expect_error 2 "a change of the other NIC" -n "$HOST" nic reserve dev "$BIG" queue 2
expect_match "$ERR" "recorded for another NIC \($SIM, bus device netdevsim$SIM_ID port p[0-9]+\)" \
	"the error names whose it is"
expect_eq "$(bindir)" "$bindir_before" "nothing changed (nlprobe)"
rm -f "$stranger"
# A file of the first format (netns device, inode, ifindex), as an upgraded
# node has: read, and rewritten under the NIC's name by the next change; one
# at another NIC's place is not adopted.
nsdev=$(stat -L -c %d "/run/netns/$HOST")
ino=$(stat -L -c %i "/run/netns/$HOST")
legacy=/run/nkctl/nic/$nsdev-$ino-$idx
grep -v '^ifindex \|^netns \|^port ' "$own" > "$legacy"
rm -f "$own"
defer "rm -f '$legacy'"
cp "$legacy" "/run/nkctl/nic/$nsdev-$ino-$bidx"
defer "rm -f '/run/nkctl/nic/$nsdev-$ino-$bidx'"
expect_error 2 "a first-format file at another NIC's place" -n "$HOST" nic reserve dev "$BIG" queue 2
expect_match "$ERR" "recorded for another NIC \($SIM, bus device netdevsim$SIM_ID\)" "is not adopted"
rm -f "/run/nkctl/nic/$nsdev-$ino-$bidx"
expect_rc 0 "nic show reads the first format" -n "$HOST" -j nic show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0].queues[] | select(.reserved) | .id]')" "[1]" "queue 1 reserved"
expect_rc 0 "a change" -n "$HOST" nic reserve dev "$SIM" queue 2
[ ! -e "$legacy" ] && [ -f "$own" ] || fail "not rewritten: $(ls /run/nkctl/nic)"
pass "the change rewrote it under the NIC's name"
expect_rc 0 "release" -n "$HOST" nic release dev "$SIM"
expect_eq "$(indir)" "$indir_before" "the table as before (nlprobe)"
[ ! -e "$own" ] || fail "state left: $(cat "$own")"

# A NIC moved to another namespace takes its record along: reservation,
# lease and rule are found there and undone there; a NIC that takes its old
# ifindex here adopts nothing.
sim_new MV "$HOST" 4
ns_new AWAY
mvidx=$(ifindex_of "$HOST" "$MV")
mvindir_before=$($NLPROBE -n "$HOST" rss "$mvidx" | jq -c .indir)
nk -n "$HOST" link add nkm type single rxqueues 2
expect_rc 0 "reserve" -n "$HOST" nic reserve dev "$MV" queue 1
expect_rc 0 "lease with reserve and steer" -n "$HOST" lease dev nkm from "$MV" queue 2 reserve steer dst 10.9.6.1
ip -n "$HOST" link set "$MV" netns "$AWAY" && ip -n "$AWAY" link set "$MV" up || fail "cannot move $MV"
newidx=$(ifindex_of "$AWAY" "$MV")
expect_rc 0 "nic show there" -n "$AWAY" -j nic show dev "$MV"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0].queues[] | select(.reserved) | .id]')" "[1,2]" \
	"the reservation came along"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0].rules[] | [.dst, .nkctl]]')" '[["10.9.6.1",true]]' \
	"the lease's rule is nkctl's there"
expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0].queues[2].lease.ifname')" '"nkm"' "the lease too"
sim_new NEWC "$AWAY" 4
$NLPROBE -n "$AWAY" link-netns "$NEWC" "$HOST" "$mvidx" > /dev/null || fail "cannot move $NEWC to ifindex $mvidx"
ip -n "$HOST" link set "$NEWC" up
expect_eq "$(ifindex_of "$HOST" "$NEWC")" "$mvidx" "another NIC has the old ifindex"
expect_rc 0 "nic show of it" -n "$HOST" -j nic show dev "$NEWC"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0].queues[] | select(.reserved) | .id]')" "[]" \
	"it adopted no reservation"
expect_rc 0 "a sweep" -n "$HOST" -force unlease dev nkgone
expect_rc 0 "unlease from the new namespace" -n "$AWAY" unlease from "$MV" queue 2 force
expect_eq "$($NLPROBE -n "$AWAY" ntuple "$MV" | jq -c .rules)" "[]" "the lease's rule is gone (nlprobe)"
expect_rc 0 "release there" -n "$AWAY" nic release dev "$MV"
expect_eq "$($NLPROBE -n "$AWAY" rss "$newidx" | jq -c .indir)" "$mvindir_before" \
	"the table as before the move, entry for entry (nlprobe)"
# (a record's temp file, .tmp.KEY, too)
[ -z "$(state_files /run/nkctl/nic | grep -- "netdevsim$MV_ID-")" ] || fail "state left: $(ls -A /run/nkctl/nic)"
pass "no state left"

# One lock per NIC: a process holding the SIM's lock holds up SIM's commands
# only; a lease from BIG goes through meanwhile.
expect_rc 0 "reserve" -n "$HOST" nic reserve dev "$SIM" queue 1
lockf=/run/nkctl/nic/.lock-${own##*/}
# /proc/locks names the lock file by inode: its holder's line, and with
# "->" a waiter's; polled, no sleep stands in for the other side's progress.
flock -F "$lockf" sleep 3600 &  # -F: the lock is sleep's, gone when it is killed
holder=$!
defer "kill $holder 2>/dev/null"
ino=$(stat -c %i "$lockf")
for _ in $(seq 100); do grep -q "^[0-9]*: FLOCK .* WRITE $holder [0-9a-f:]*:$ino " /proc/locks && break; sleep 0.1; done
grep -q "^[0-9]*: FLOCK .* WRITE $holder [0-9a-f:]*:$ino " /proc/locks || fail "flock never took SIM's lock"
nk -n "$HOST" link add nkl type single rxqueues 2
expect_rc 0 "a lease from BIG while SIM is locked" -n "$HOST" lease dev nkl from "$BIG" pool 3-4 reserve steer dst 10.9.7.1
kill -0 "$holder" 2> /dev/null && grep -q "^[0-9]*: FLOCK .* WRITE $holder [0-9a-f:]*:$ino " /proc/locks ||
	fail "SIM's lock was not held throughout"
pass "it did not wait for SIM's lock (held throughout)"
"$NKCTL" -n "$HOST" nic reserve dev "$SIM" queue 2 > /dev/null 2> "$T_TMP/waiter.err" &
waiter=$!
for _ in $(seq 300); do grep -q "^[0-9]*: *-> *FLOCK .* WRITE $waiter [0-9a-f:]*:$ino " /proc/locks && break; sleep 0.1; done
grep -q "^[0-9]*: *-> *FLOCK .* WRITE $waiter [0-9a-f:]*:$ino " /proc/locks ||
	fail "a command on SIM did not wait for its lock (/proc/locks: $(grep ":$ino " /proc/locks))"
pass "a command on SIM waits for its lock (/proc/locks)"
kill "$holder"
wait "$holder" 2> /dev/null
wait "$waiter"
expect_eq "$?" 0 "and goes on once it is free: $(cat "$T_TMP/waiter.err")"
expect_rc 0 "unlease" -n "$HOST" unlease dev nkl
expect_eq "$(bindir)" "$bindir_before" "BIG's table as before (nlprobe)"
expect_rc 0 "release" -n "$HOST" nic release dev "$SIM"
expect_eq "$(indir)" "$indir_before" "SIM's table as before (nlprobe)"

# -force unlease of a holder that holds no lease still sweeps: the NIC side
# of a lease whose holder was deleted behind nkctl's back goes.
nk -n "$HOST" link add nkd type single rxqueues 2
expect_rc 0 "lease with steer" -n "$HOST" lease dev nkd from "$SIM" queue 3 steer dst 10.9.8.1
ip -n "$HOST" link del nkd || fail "ip link del"
nk -n "$HOST" link add nke type single rxqueues 2
expect_rc 0 "-force unlease of a holder with no lease" -n "$HOST" -force unlease dev nke
expect_eq "$($NLPROBE -n "$HOST" ntuple "$SIM" | jq -c .rules)" "[]" "the ended lease's rule is gone (nlprobe)"
expect_eq "$(indir)" "$indir_before" "its queue is back in RSS: the table as before (nlprobe)"
expect_eq "$($NLPROBE -n "$HOST" rings "$idx" | jq -S -c .)" "$rings_before" "rings as before (nlprobe)"
nk -n "$HOST" link del nke
done_testing
