#!/bin/bash
# tier: vm
# timeout: 600
# A multi-queue lease with steering (issue 25): `lease ... queue 4-7 steer
# dst A` on a NIC with RSS contexts makes a context over exactly the leased
# queues and steers A into it, so A's flows spread over all four; unlease
# removes rule and context. On a NIC without contexts the flows go to the
# first queue and nkctl says so. lease ... pool ... count 3 steer gets the
# same context over the queues it chose. netdevsim's rss_contexts personality
# (testsuite/vm/netdevsim-rxnfc-rss.patch) stands in for mlx5/bnxt/fbnic; the
# truth is read with nlprobe.py (rss-get dump, the rule table, per-queue
# qstats), delivery from /proc/net/snmp.
. "$TESTSUITE/lib.sh"
need_root
need_cmd strace jq

topo_nic_remote 8
pdir=/sys/kernel/debug/netdevsim/netdevsim$SIM_ID/ports/0/ethtool/nkctl
[ -d "$pdir" ] || skip "this netdevsim has no personalities (the VM's test patch is older)"
NIC=$HOST PEER=$REMOTE SN=$SIM
ip_n=$(ifindex_of "$NIC" "$SN")
ip -n "$NIC" addr add 10.10.2.9/24 dev "$SN"
ping_ok "$PEER" 10.10.2.9 || fail "no ping over the linked pair"

rxq() { $NLPROBE -n "$NIC" qstats "$ip_n" | jq -c '[.[] | select(.type=="rx")] | sort_by(.id) | map(.["rx-packets"])'; }
udp_in() { ip netns exec "$NIC" awk '$1=="Udp:"&&$2~/^[0-9]/{print $2+$3}' /proc/net/snmp; }
# flows N: one datagram from each of N sockets (N source ports) to 10.10.2.9;
# prints the per-queue RX packets they added once all arrived.
flows() {
	local q0 u0
	q0=$(rxq) u0=$(udp_in)
	ip netns exec "$PEER" $PY -c '
import socket, sys
for _ in range(int(sys.argv[1])):
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"ctx" * 32, ("10.10.2.9", 7020))' "$1"
	for _ in $(seq 50); do
		[ $(($(udp_in) - u0)) -ge "$1" ] && break
		sleep 0.1
	done
	jq -n -c --argjson a "$q0" --argjson b "$(rxq)" '[range($a | length) | $b[.] - $a[.]]'
}
contexts() { $NLPROBE -n "$NIC" rss-contexts "$ip_n" | jq -c '[.[] | (.indir | unique)]'; }
before=$($NLPROBE -n "$NIC" rss "$ip_n" | jq -c .indir)

echo 1 > "$pdir/rss_contexts"
nk -n "$NIC" link add nkc type single rxqueues 5
expect_eq "$RC" 0 "a lease holder with room for four queues"
expect_rc 0 "lease queues 4-7 with steer dst 10.10.2.9" -n "$NIC" -j lease dev nkc from "$SN" queue 4-7 steer dst 10.10.2.9
expect_eq "$ERR" "" "no warning where contexts exist"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.leases[] | [.id, [.rules[] | .dst]]]')" \
	'[[4,["10.10.2.9"]],[5,["10.10.2.9"]],[6,["10.10.2.9"]],[7,["10.10.2.9"]]]' \
	"lease -j: each leased queue lists the rule steering into its context"
expect_eq "$(contexts)" "[[4,5,6,7]]" "one RSS context over exactly the leased queues"
ctx=$($NLPROBE -n "$NIC" rss-contexts "$ip_n" | jq '.[0].context')
expect_eq "$($NLPROBE -n "$NIC" ntuple "$SN" | jq -c '[.rules[] | [.["dst-ip"], .context, .action]]')" \
	"[[\"10.10.2.9\",$ctx,0]]" "the rule steers 10.10.2.9 into context $ctx"
expect_eq "$($NLPROBE -n "$NIC" rss "$ip_n" | jq -c '.indir | unique')" "[0,1,2,3]" "the main table keeps out of 4-7"
d=$(flows 32)
echo "# 32 flows per queue: $d"
expect_eq "$(printf '%s' "$d" | jq -c '[(.[4:8] | map(. > 0) | all), (.[4:8] | add)]')" "[true,32]" \
	"32 flows: all 32 datagrams on queues 4-7, every one of them used (other traffic may hash to 0-3)"
expect_rc 0 "nic show lists the context" -n "$NIC" -j nic show dev "$SN"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0]["rss-contexts"][] | .queues]')" "[[4,5,6,7]]" "nic show: the context's queues"
expect_rc 0 "unlease" -n "$NIC" unlease dev nkc
expect_eq "$(contexts)" "[]" "unlease removed the context"
expect_eq "$($NLPROBE -n "$NIC" ntuple "$SN" | jq .count)" 0 "and the rule"
expect_eq "$($NLPROBE -n "$NIC" rss "$ip_n" | jq -c .indir)" "$before" "the main table is as before"

# lease ... pool ... count N steer: the same context over the queues chosen.
nk -n "$NIC" link add nkc type single rxqueues 5
expect_rc 0 "lease pool 3-7 count 3 with steer dst 10.10.2.9" -n "$NIC" -j lease dev nkc from "$SN" pool 3-7 count 3 steer dst 10.10.2.9
expect_eq "$(printf '%s' "$OUT" | jq -c '[.leases[] | .id]')" "[3,4,5]" "the lowest three of the pool"
expect_eq "$ERR" "" "no warning"
expect_eq "$(contexts)" "[[3,4,5]]" "one RSS context over exactly the chosen queues"
ctx=$($NLPROBE -n "$NIC" rss-contexts "$ip_n" | jq '.[0].context')
expect_eq "$($NLPROBE -n "$NIC" ntuple "$SN" | jq -c '[.rules[] | [.["dst-ip"], .context]]')" \
	"[[\"10.10.2.9\",$ctx]]" "the rule steers into context $ctx"
d=$(flows 32)
echo "# 32 flows per queue: $d"
expect_eq "$(printf '%s' "$d" | jq -c '[(.[3:6] | map(. > 0) | all), (.[3:6] | add)]')" "[true,32]" \
	"32 flows: all on queues 3-5, every one of them used"
expect_rc 0 "unlease" -n "$NIC" unlease dev nkc
expect_eq "$(contexts)" "[]" "unlease removed the context"
expect_eq "$($NLPROBE -n "$NIC" ntuple "$SN" | jq .count)" 0 "and the rule"
expect_eq "$($NLPROBE -n "$NIC" rss "$ip_n" | jq -c .indir)" "$before" "the main table is as before"

# Without contexts: the first queue, with a warning.
echo 0 > "$pdir/rss_contexts"
nk -n "$NIC" link show dev nkc
[ "$RC" = 0 ] || nk -n "$NIC" link add nkc type single rxqueues 5
expect_rc 0 "lease 4-7 steer on a NIC without contexts" -n "$NIC" lease dev nkc from "$SN" queue 4-7 steer dst 10.10.2.9
expect_match "$ERR" "no RSS contexts.*queue 4" "a warning says the flows go to queue 4 only"
expect_eq "$($NLPROBE -n "$NIC" ntuple "$SN" | jq -c '[.rules[] | .action]')" "[4]" "the rule steers to queue 4"
expect_rc 0 "unlease" -n "$NIC" unlease dev nkc

# A holder deleted with link del takes its lease's NIC side along: rule,
# reservation and context.
echo 1 > "$pdir/rss_contexts"
nk -n "$NIC" link add nkc type single rxqueues 5
expect_rc 0 "lease 4-7 steer again" -n "$NIC" lease dev nkc from "$SN" queue 4-7 reserve steer dst 10.10.2.9
expect_eq "$(contexts)" "[[4,5,6,7]]" "a context over 4-7"
expect_rc 0 "link del of the holder" -n "$NIC" link del nkc
expect_eq "$(contexts)" "[]" "link del: no context left"
expect_eq "$($NLPROBE -n "$NIC" ntuple "$SN" | jq .count)" 0 "link del: no rule left"
expect_eq "$($NLPROBE -n "$NIC" rss "$ip_n" | jq -c .indir)" "$before" "link del: the main table is as before"

# A holder moved to another namespace that lives on: unlease in the old one
# says where it is at once instead of waiting for the lease to end.
ns_new MOVED
nk -n "$NIC" link add nkc type single rxqueues 5
expect_rc 0 "lease 4-7 steer" -n "$NIC" lease dev nkc from "$SN" queue 4-7 steer dst 10.10.2.9
ip -n "$NIC" link set nkc netns "$MOVED"
# Waiting is nanosleep (nkctl's only way to wait), a 100 ms tick up to 30 s
# (300 ticks) for a holder whose lease is ending: a look or two is fine,
# waiting out the bound is not.
strace -f -qq -o "$T_TMP/sleeps" -e trace=execve,nanosleep,clock_nanosleep \
	"$NKCTL" -n "$NIC" unlease dev nkc > /dev/null 2> "$T_TMP/unlease.err"
expect_eq "$?" 3 "unlease of a holder moved away (under strace)"
expect_match "$(cat "$T_TMP/unlease.err")" "in $MOVED now" "the error names the namespace it lives in"
grep -q 'execve(' "$T_TMP/sleeps" || fail "strace traced nothing: $(cat "$T_TMP/sleeps" 2>&1)"
n=$(grep -c 'sleep(' "$T_TMP/sleeps")
[ "$n" -lt 10 ] || fail "unlease of a holder moved away waited for the lease to end ($n ticks of 100 ms)"
pass "without waiting for the lease to end ($n ticks of 100 ms, not 300)"
expect_rc 0 "unlease where it lives" -n "$MOVED" unlease dev nkc
expect_eq "$(contexts)" "[]" "that unlease removed the context"
expect_eq "$($NLPROBE -n "$NIC" ntuple "$SN" | jq .count)" 0 "and the rule"
done_testing
