#!/bin/bash
# tier: vm
# timeout: 900
# Crash safety of the NIC side: each multi-step command (nic reserve, lease
# ... pool, nic release; lease ... steer and unlease: nic-unlease-faults.t)
# is killed with SIGKILL at every netlink
# request (sendto), every state-file write (rename) and every n-tuple ioctl
# in turn, by strace's fault injection. Then the same command, or release,
# must end with the NIC as it was: RSS table, header split, n-tuple rules (all
# read by one nlprobe.py process, Python starts once); no state file left.
# Every netlink request, state write and ioctl is a kill point.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq strace

nic_faults_begin

# nic reserve, recovered by the same command then release, or by release.
kill_cycle "reserve, then reserve again and release" : "-n $HOST nic reserve dev $SIM queue 2-3" \
	'ok -n "$HOST" nic reserve dev "$SIM" queue 2-3 && ok -n "$HOST" nic release dev "$SIM"' :
kill_cycle "reserve, then release" : "-n $HOST nic reserve dev $SIM queue 2-3" \
	'ok -n "$HOST" -force nic release dev "$SIM"' :

# lease ... pool with reserve and steer (the queues leave RSS before the
# lease is made), recovered by unlease and release, whose sweep undoes a
# record whose lease was never made.
kill_cycle "lease pool steer, then unlease and release" holder \
	"-n $HOST lease dev nks from $SIM pool 2-3 count 1 reserve steer dst 10.9.0.8" \
	'ok -n "$HOST" -force unlease dev nks && ok -n "$HOST" -force nic release dev "$SIM"' :

# nic release with rules and reservations, recovered by release.
kill_cycle "release, then release again" \
	'ok -n "$HOST" nic reserve dev "$SIM" queue 1-2 && ok -n "$HOST" steer add dev "$SIM" flow-type tcp4 dst-port 80 queue 1' \
	"-n $HOST nic release dev $SIM" 'ok -n "$HOST" -force nic release dev "$SIM"' :
done_testing
