#!/bin/bash
# tier: vm
# timeout: 900
# Crash safety of the NIC side: each multi-step command (nic reserve, lease
# ... steer, lease ... pool, unlease and its sweep, nic release) is killed with SIGKILL at every netlink
# request (sendto), every state-file write (rename) and every n-tuple ioctl
# in turn, by strace's fault injection. Then the same command, or release,
# must end with the NIC as it was: RSS table, header split, n-tuple rules (all
# read by one nlprobe.py process, Python starts once); no state file left.
# Every netlink request, state write and ioctl is a kill point.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq strace

ns_new HOST
sim_new SIM "$HOST" 4
idx=$(ifindex_of "$HOST" "$SIM")
need_sim_rss "$HOST" "$SIM"
$NLPROBE -n "$HOST" rings-set "$idx" tcp-data-split off hds-thresh 128 > /dev/null || fail "rings-set"
nlprobe_serve "$HOST"

# The NIC as the kernel has it, and the number of state files for it (a
# glob: no process to start, as for the kernel's reads).
snapshot() {
	local f files=0
	nlp rings "$idx" && nlp rss "$idx" && nlp ntuple "$SIM" || return 1
	# a record's temp file (.tmp.KEY) a killed writer left counts too
	for f in /run/nkctl/nic/netdevsim-netdevsim"$SIM_ID"-* /run/nkctl/nic/.tmp.netdevsim-netdevsim"$SIM_ID"-*; do
		[ -e "$f" ] && files=$((files + 1))
	done
	echo "state files: $files"
}
BASE=$(snapshot) || fail "the NIC's state: $BASE"
expect_match "$BASE" '"tcp-data-split":"off"' "a starting point other than the defaults"
expect_match "$BASE" '"indir":\[0,1,' "the kernel's indirection table"

ok() { nk "$@"; [ "$RC" = 0 ]; }
holder() { "$NKCTL" -n "$HOST" link del nks > /dev/null 2>&1; ok -n "$HOST" link add nks type single rxqueues 4; }

# nic reserve, recovered by the same command then release, or by release.
kill_cycle "reserve, then reserve again and release" : "-n $HOST nic reserve dev $SIM queue 2-3" \
	'ok -n "$HOST" nic reserve dev "$SIM" queue 2-3 && ok -n "$HOST" nic release dev "$SIM"' :
kill_cycle "reserve, then release" : "-n $HOST nic reserve dev $SIM queue 2-3" \
	'ok -n "$HOST" -force nic release dev "$SIM"' :

# lease ... steer, recovered by the same command (no rule twice, none lost),
# then unlease and release.
lease_again() {
	ok -n "$HOST" lease dev nks from "$SIM" queue 3 steer dst 10.9.0.7,fd00::7 || return 1
	nk -n "$HOST" -j nic show dev "$SIM"
	[ "$(printf '%s' "$OUT" | jq -c '[.nics[0].rules[] | [.dst, .queue, .nkctl]] | sort')" = \
		'[["10.9.0.7",3,true],["fd00::7",3,true]]' ] || { ERR="rules after the re-run: $OUT"; return 1; }
	ok -n "$HOST" unlease dev nks
}
kill_cycle "lease steer, then lease again and unlease" holder \
	"-n $HOST lease dev nks from $SIM queue 3 steer dst 10.9.0.7,fd00::7" lease_again :
kill_cycle "lease steer, then unlease and release" holder \
	"-n $HOST lease dev nks from $SIM queue 3 steer dst 10.9.0.7,fd00::7" \
	'ok -n "$HOST" -force unlease dev nks && ok -n "$HOST" -force nic release dev "$SIM"' :

# lease ... pool with reserve and steer (the queues leave RSS before the
# lease is made), recovered by unlease and release, whose sweep undoes a
# record whose lease was never made.
kill_cycle "lease pool steer, then unlease and release" holder \
	"-n $HOST lease dev nks from $SIM pool 2-3 count 1 reserve steer dst 10.9.0.8" \
	'ok -n "$HOST" -force unlease dev nks && ok -n "$HOST" -force nic release dev "$SIM"' :

# unlease, recovered by the same command.
kill_cycle "unlease, then unlease again" \
	'holder && ok -n "$HOST" lease dev nks from "$SIM" queue 3 steer dst 10.9.0.7,fd00::7' \
	"-n $HOST unlease dev nks" 'ok -n "$HOST" -force unlease dev nks' :

# nic release with rules and reservations, recovered by release.
kill_cycle "release, then release again" \
	'ok -n "$HOST" nic reserve dev "$SIM" queue 1-2 && ok -n "$HOST" steer add dev "$SIM" flow-type tcp4 dst-port 80 queue 1' \
	"-n $HOST nic release dev $SIM" 'ok -n "$HOST" -force nic release dev "$SIM"' :
done_testing
