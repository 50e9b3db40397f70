#!/bin/bash
# tier: host
# Hardware tier, opt-in: the reserve / steer / release cycle on a real NIC
# with an RSS indirection table and n-tuple rules. Set NKCTL_TEST_NIC=ethX (in
# the initial namespace; its settings are changed and put back) and optionally
# NKCTL_TEST_QUEUE (default: the NIC's last RX queue). Header split is read
# back by nlprobe.py; the RSS table and the rules by nkctl before and after.
# Then what real drivers differ in (doc/nics.md): who picks rule locations,
# a foreign rule left alone, a weighted table edited minimally and restored
# entry for entry, header split's HW GRO prerequisite; on a driver with the
# queue API and AF_XDP zero-copy, a zero-copy socket on a leased queue.
# Needs ethtool(8).
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq ethtool
NIC=${NKCTL_TEST_NIC:-}
[ -n "$NIC" ] || skip "hardware tier: set NKCTL_TEST_NIC=ethX to a NIC with RSS and n-tuple rules"
idx=$($NLPROBE link "$NIC" | jq .ifindex) || fail "no device $NIC"
Q=${NKCTL_TEST_QUEUE:-$($NLPROBE queues "$idx" | jq '[.[] | select(.type=="rx") | .id] | max')}
defer "$NKCTL -force nic release dev $NIC >/dev/null 2>&1"

snapshot() {
	$NLPROBE rings "$idx" | jq -S -c .
	"$NKCTL" -j nic show dev "$NIC" | jq -c '.nics[0] | [.rss, ([.rules[]?] | sort_by(.id))]'
}
BASE=$(snapshot)
expect_rc 0 "reserve queue $Q" -j nic reserve dev "$NIC" queue "$Q"
expect_eq "$(printf '%s' "$OUT" | jq --argjson q "$Q" '.nics[0].rss.queues | index($q)')" null "queue $Q out of RSS"
expect_eq "$($NLPROBE rings "$idx" | jq -c '[."tcp-data-split", ."hds-thresh"]')" '["on",0]' "header split on, hds-thresh 0"
expect_rc 0 "steer a flow to it" -j steer add dev "$NIC" flow-type tcp6 dst fd00::7 dst-port 5201 queue "$Q"
id=$(printf '%s' "$OUT" | jq .rules[0].id)
expect_rc 0 "steer show" -j steer show dev "$NIC"
expect_eq "$(printf '%s' "$OUT" | jq -c "[.nics[0].rules[] | select(.id==$id) | .queue][0]")" "$Q" "the driver has the rule"
expect_rc 0 "release" nic release dev "$NIC"
expect_eq "$(snapshot)" "$BASE" "the NIC is as before (rings, RSS table, rules)"

# ---- what real drivers differ in (issue 25; doc/nics.md)
expect_rc 0 "nic show states the driver's support" -j nic show dev "$NIC"
sup=$(printf '%s' "$OUT" | jq -c '.nics[0].support')
echo "# support: $sup"
special=$($NLPROBE ntuple "$NIC" | jq .special)
expect_eq "$(printf '%s' "$sup" | jq '.["ntuple-locations"] == "driver"')" "$special" \
	"who picks rule locations agrees with GRXCLSRLCNT's RX_CLS_LOC_SPECIAL"

# A foreign rule (not nkctl's) stays where it is, untouched.
if [ "$special" = true ]; then floc=any; else floc=$($NLPROBE ntuple "$NIC" | jq '[.rules[].location] as $u | [range(if .size > 0 then .size else 1024 end)] - $u | .[0]'); fi
foreign=$($NLPROBE ntuple-add "$NIC" tcp6 dst-ip fd00::8 dst-port 5202 action 0 loc "$floc" | jq .location) ||
	fail "a foreign rule through nlprobe"
defer "$NLPROBE ntuple-del $NIC $foreign >/dev/null 2>&1"
expect_rc 0 "steer beside a foreign rule" -j steer add dev "$NIC" flow-type tcp6 dst fd00::7 dst-port 5201 queue "$Q"
id=$(printf '%s' "$OUT" | jq .rules[0].id)
expect_eq "$((id != foreign))" 1 "nkctl's rule went to another location ($id, the foreign one is at $foreign)"
expect_eq "$($NLPROBE ntuple "$NIC" | jq -c --argjson l "$foreign" '[.rules[] | select(.location == $l) | .["dst-port"]]')" "[5202]" \
	"the foreign rule is untouched"
expect_rc 0 "steer del" steer del dev "$NIC" id "$id"

# A custom weighted table: the reservation edits it minimally and keeps the
# queue the operator left out (the first one) out; release puts it back
# entry for entry (read by nlprobe).
nq=$($NLPROBE channels "$idx" | jq '.["combined-count"] + (.["rx-count"] // 0)')
if [ "$nq" -ge 3 ] && [ "$Q" -ge 1 ]; then
	w=$(for i in $(seq 0 $((nq - 1))); do [ "$i" = 0 ] && printf '0 ' || printf '%d ' "$((i % 2 + 1))"; done)
	ethtool -X "$NIC" weight $w || fail "ethtool -X weight $w"
	defer "ethtool -X $NIC default"
	before=$($NLPROBE rss "$idx" | jq -c .indir)
	expect_rc 0 "reserve over a weighted table" -j nic reserve dev "$NIC" queue "$Q"
	after=$($NLPROBE rss "$idx" | jq -c .indir)
	expect_eq "$(jq -n --argjson b "$before" --argjson a "$after" --argjson q "$Q" \
		'[range($b | length) | select(($b[.] != $q and $a[.] != $b[.]) or $a[.] == $q or $a[.] == 0)] | length')" 0 \
		"only the entries of queue $Q changed; queue 0 stays out"
	expect_rc 0 "release" nic release dev "$NIC"
	expect_eq "$($NLPROBE rss "$idx" | jq -c .indir)" "$before" "the weighted table is back entry for entry"
else
	skip_part weighted-table "needs 3+ RX queues and NKCTL_TEST_QUEUE > 0"
fi

# Header split's prerequisite: where the driver has rx-gro-hw and it is off,
# a refused header split names it.
if [ "$(printf '%s' "$sup" | jq '.["rx-gro-hw"] == false')" = true ] &&
	[ "$($NLPROBE rings "$idx" | jq -r '."tcp-data-split"')" = off ]; then
	nk -j nic reserve dev "$NIC" queue "$Q"
	if [ "$RC" != 0 ]; then
		expect_match "$ERR" "rx-gro-hw on" "the refusal names HW GRO and the command"
	else
		echo "# this driver takes header split without HW GRO"
	fi
	"$NKCTL" -force nic release dev "$NIC" > /dev/null 2>&1
fi
# AF_XDP zero-copy through a lease (issue 33): support says what the netdev
# family's xdp-features say; where the driver has the queue API and
# XDP_ZEROCOPY, xsk attach says zerocopy and a socket bound XDP_ZEROCOPY to
# the leased queue of a single holder succeeds (the kernel hands its pool to
# the NIC's queue), which show leases sees; unlease leaves no program.
xsk=$(printf '%s' "$sup" | jq -r '.xsk // "unknown"')
echo "# AF_XDP through a lease on $NIC: $xsk, XDP $(printf '%s' "$sup" | jq -r '.xdp // "unknown"')"
XSKRX=$NKCTL_HELPERS/xsk-rx
if [ "$xsk" = zerocopy ] && [ "$(printf '%s' "$sup" | jq '.["queue-lease"]')" = true ] && [ -x "$XSKRX" ]; then
	expect_rc 0 "a single holder" link add nkzc type single rxqueues 2
	defer "ip link del nkzc 2>/dev/null"
	expect_rc 0 "it leases queue $Q" -j lease dev nkzc from "$NIC" queue "$Q"
	hq=$(printf '%s' "$OUT" | jq '.leases[0].lease.queue.id')
	expect_rc 0 "xsk attach" -j xsk attach dev nkzc
	expect_eq "$(printf '%s' "$OUT" | jq -r '.xsk[0].queues[0].bind')" zerocopy "attach says zero-copy"
	pin=$(printf '%s' "$OUT" | jq -r '.xsk[0].pin')
	"$XSKRX" nkzc "$hq" "$pin" 1 100 "$T_TMP/zc.ready" zerocopy > "$T_TMP/zc.json" 2> "$T_TMP/zc.err" &
	zc=$!
	for _ in $(seq 50); do [ -e "$T_TMP/zc.ready" ] || ! kill -0 $zc 2>/dev/null && break; sleep 0.1; done
	[ -e "$T_TMP/zc.ready" ] || fail "no zero-copy socket on the leased queue: $(cat "$T_TMP/zc.err")"
	pass "an AF_XDP socket binds XDP_ZEROCOPY to queue $hq of the holder (NIC queue $Q)"
	expect_rc 0 "show leases" -j show leases
	expect_eq "$(printf '%s' "$OUT" | jq --arg n "$NIC" --argjson q "$Q" '[.leases[] | select(.ifname == $n and .id == $q) | has("xsk")] | any')" true \
		"show leases sees the socket's pool on the NIC's queue"
	kill $zc 2>/dev/null
	wait $zc 2>/dev/null
	expect_rc 0 "unlease" unlease dev nkzc
	expect_eq "$(ip -j link show "$NIC" | jq -r '.[0].xdp.mode // "none"')" none "no XDP program left"
else
	skip_part xsk-zerocopy "AF_XDP zero-copy through a lease not exercised: the driver has no queue API or no XDP_ZEROCOPY"
fi
done_testing
