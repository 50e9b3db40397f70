#!/bin/bash
# tier: vm
# timeout: 900
# Crash safety of a lease's NIC side (nic-faults.t: reserve, pool, release):
# lease ... steer, unlease of one holder and of several in one command (a
# runtime's GC) are killed with SIGKILL at every netlink
# request (sendto), every state-file write (rename) and every n-tuple ioctl
# in turn, by strace's fault injection. Then the same command, or release,
# must end with the NIC as it was: RSS table, header split, n-tuple rules (all
# read by one nlprobe.py process, Python starts once); no state file left.
# Every netlink request, state write and ioctl is a kill point.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq strace

nic_faults_begin

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

# unlease, recovered by the same command.
kill_cycle "unlease, then unlease again" \
	'holder && ok -n "$HOST" lease dev nks from "$SIM" queue 3 steer dst 10.9.0.7,fd00::7' \
	"-n $HOST unlease dev nks" 'ok -n "$HOST" -force unlease dev nks' :

# unlease from the NIC's queues of two holders (a runtime's GC), recovered
# by the same command: what a killed one deleted is swept, what it did not
# is unleased now.
two_holders() {
	"$NKCTL" -n "$HOST" link del nkt > /dev/null 2>&1
	holder && ok -n "$HOST" lease dev nks from "$SIM" queue 3 steer dst 10.9.0.7 &&
		ok -n "$HOST" link add nkt type single rxqueues 4 &&
		ok -n "$HOST" lease dev nkt from "$SIM" queue 2 steer dst 10.9.0.9
}
# show leases as the kernel has them (queue-get), then the same unlease.
truthful_unlease_again() {
	local kernel shown
	kernel=$(nlp queues "$idx" | jq -c '[.[] | select(.type == "rx" and .lease != null) | .id]')
	nk -n "$HOST" -j show leases
	shown=$(printf '%s' "$OUT" | jq -c --arg n "$SIM" '[.leases[] | select(.ifname == $n) | .id] | sort')
	[ "$RC" = 0 ] && [ "$kernel" = "$shown" ] || { ERR="show leases: $shown, queue-get: $kernel"; return 1; }
	ok -n "$HOST" -force unlease from "$SIM" queue 2,3
}
kill_cycle "unlease of two holders, then truthful show and unlease again" two_holders \
	"-n $HOST unlease from $SIM queue 2,3" truthful_unlease_again :
done_testing
