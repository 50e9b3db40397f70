#!/bin/bash
# tier: vm
# timeout: 900
# Crash safety of the RSS context a multi-queue lease ... steer makes (issue
# 25): the command is killed with SIGKILL at every state-file write (rename),
# every n-tuple ioctl and every fourth netlink request (sendto), by strace's
# fault injection. nkctl records the context's id before it makes the
# context, so no kill point leaves a context that no record names. Recovery
# by the same command (it makes or reuses the recorded context: one context,
# the rules in it) then unlease, or by deleting the holder behind nkctl's back
# and letting the next lease's sweep end the record: afterwards no context, no
# rule, no state file, the table as before (nlprobe.py reads the contexts).
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq strace

ns_new HOST
sim_new SIM "$HOST" 4
idx=$(ifindex_of "$HOST" "$SIM")
need_sim_rss "$HOST" "$SIM"
pdir=/sys/kernel/debug/netdevsim/netdevsim$SIM_ID/ports/0/ethtool/nkctl
[ -e "$pdir/rss_contexts" ] || skip "this netdevsim has no rss_contexts personality"
echo 1 > "$pdir/rss_contexts"
nlprobe_serve "$HOST"

contexts() { nlp rss-contexts "$idx" | jq -c '[.[] | (.indir | unique)]'; }
# The contexts, the main table and the rules as the kernel has them (one
# process-free read each through the serve process), and the state files.
snapshot() {
	local f files=0
	nlp rss-contexts "$idx" && nlp rss "$idx" && nlp ntuple "$SIM" || return 1
	# a record's temp file (.tmp.KEY) a killed writer left counts too
	for f in /run/nkctl/nic/netdevsim-netdevsim"$SIM_ID"-* /run/nkctl/nic/.tmp.netdevsim-netdevsim"$SIM_ID"-*; do
		[ -e "$f" ] && files=$((files + 1))
	done
	echo "state files: $files"
}
BASE=$(snapshot) || fail "the NIC's state: $BASE"
expect_eq "$(contexts)" "[]" "no context to begin with"

# lease 2-3 steer, killed at each point by kill_cycle (lib.sh)
CMD="-n $HOST lease dev nks from $SIM queue 2-3 steer dst 10.9.0.7"
ok() { nk "$@"; [ "$RC" = 0 ]; }
holder() { ip -n "$HOST" link del nks 2> /dev/null; ok -n "$HOST" link add nks type single rxqueues 3; }
# The same command again: one context over 2-3, the rule steering into it.
lease_again() {
	# shellcheck disable=SC2086
	ok $CMD || return 1
	[ "$(contexts)" = "[[2,3]]" ] || { ERR="contexts after the re-run: $(contexts)"; return 1; }
	nk -n "$HOST" -j nic show dev "$SIM"
	[ "$(printf '%s' "$OUT" | jq -c '[.nics[0].rules[] | [.dst, (.context != null), .nkctl]]')" = \
		'[["10.9.0.7",true,true]]' ] || { ERR="rules after the re-run: $OUT"; return 1; }
	ok -n "$HOST" unlease dev nks
}
# The holder deleted by someone else; the next lease ... steer sweeps.
swept() {
	ip -n "$HOST" link del nks 2> /dev/null
	ok -n "$HOST" link add nks type single rxqueues 3 &&
		ok -n "$HOST" lease dev nks from "$SIM" queue 1 steer dst 10.9.0.8 &&
		ok -n "$HOST" unlease dev nks
}

kill_cycle "multi-queue lease steer, then the same again and unlease" holder "$CMD" lease_again : 4
kill_cycle "multi-queue lease steer, holder deleted, swept by the next lease" holder "$CMD" swept : 4
done_testing
