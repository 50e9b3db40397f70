#!/bin/bash
# tier: vm
# nic reserve/release and steer add/del/show on netdevsim with the test
# patch (testsuite/vm/netdevsim-rxnfc-rss.patch: RSS indirection table and
# n-tuple rules). Header split, the indirection table and the rules are read
# back by nlprobe.py too, not only by nkctl; the restore is checked against
# the settings from before the first change.
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
state=""
for f in /run/nkctl/nic/*-"$idx"; do
	ns_ino=$(stat -L -c %i "/run/netns/$HOST")
	case "$f" in *-"$ns_ino"-"$idx") state=$f ;; esac
done
[ -f "$state" ] || fail "no state file for $SIM"
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
expect_rc 0 "unlease" -n "$HOST" -j unlease dev nks
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
done_testing
