#!/bin/bash
# tier: vm
# timeout: 900
# Crash safety of a steered lease's NIC side (nic-faults.t: reserve, pool,
# release; nic-unlease-faults.t: unlease): lease ... steer is killed with
# SIGKILL at every netlink
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
done_testing
