#!/bin/bash
# tier: vm
# timeout: 900
# The NIC edited under nkctl (issue 30): an operator's `ethtool -X` that puts
# a leased and a reserved queue back into RSS, `ethtool -N delete` of a
# lease's rule, header split turned off: nic show marks what the NIC
# contradicts, doctor fails naming `nkctl nic restore dev NIC`, and that
# heals it (RSS table, header split, rule: the pod's flows steered again;
# a multi-queue lease's RSS context made again). `ethtool -L` to fewer
# channels is refused for a
# leased queue (nothing recorded changes); a reservation whose queues
# vanished is reconciled by nic restore with a Warning. One topology.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq ethtool

topo_nic_remote
need_sim_rss "$HOST" "$SIM"
idx=$(ifindex_of "$HOST" "$SIM")
# RSS contexts (as mlx5, bnxt, fbnic), set before anything is configured
pdir=/sys/kernel/debug/netdevsim/netdevsim$SIM_ID/ports/0/ethtool/nkctl
[ -d "$pdir" ] && echo 1 > "$pdir/rss_contexts"
nlprobe_serve "$HOST"
orig_split=$(nlp rings "$idx" | jq -r '.["tcp-data-split"]')
et() { ip netns exec "$HOST" ethtool "$@"; }

# The pod: a netkit pair (peer in POD), a single holder leasing queue 3 with
# reserve and steer, redirects both ways; queue 2 reserved by nic reserve.
ns_new POD
ip -n "$POD" link set lo up
expect_rc 0 "a netkit pair" -n "$HOST" link add nkh peer nkp peer-netns "$POD"
expect_rc 0 "a lease holder in the pod" -n "$POD" link add hold type single rxqueues 2
ip -n "$HOST" addr add 10.20.1.1/24 dev nkh
ip -n "$HOST" link set nkh up
ip -n "$POD" addr add 10.20.1.2/24 dev nkp
ip -n "$POD" link set nkp up
ip -n "$POD" link set hold up
ip -n "$POD" route add default via 10.20.1.1
expect_rc 0 "lease queue 3, reserve and steer" -n "$POD" lease dev hold from "$SIM" phys-netns "$HOST" queue 3 reserve steer dst 10.20.1.2
expect_rc 0 "pod egress" -n "$HOST" redirect attach dev nkh to "$SIM"
expect_rc 0 "pod ingress" -n "$HOST" redirect attach dev "$SIM" to nkh prefix 10.20.1.2/32
expect_rc 0 "nic reserve queue 2" -n "$HOST" nic reserve dev "$SIM" queue 2

doctor_ok() {
	nk -n "$HOST" -j doctor dev nkh
	[ "$RC" = 0 ] || fail "$1: doctor exited $RC: $(printf '%s' "$OUT" | jq -c '[.doctor.pods[0].checks[] | select(.status != "ok")]')"
	pass "$1: doctor passes"
}
rxq() { nlp qstats "$idx" | jq -c '[.[] | select(.type=="rx")] | sort_by(.id) | map(.["rx-packets"])'; }
# steered DESC: 16 datagrams from 16 source ports to the pod's address all
# arrive on queue 3 (ARP and the like never do: it is out of RSS).
steered() {
	local q0 q1 d
	q0=$(rxq)
	ip netns exec "$REMOTE" $PY -c '
import socket
for _ in range(16):
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x" * 64, ("10.20.1.2", 7030))'
	for _ in $(seq 50); do
		q1=$(rxq)
		d=$(jq -n -c --argjson a "$q0" --argjson b "$q1" '[range($a | length) | $b[.] - $a[.]]')
		[ "$(printf '%s' "$d" | jq '.[3]')" -ge 16 ] && break
		sleep 0.1
	done
	expect_eq "$(printf '%s' "$d" | jq '.[3]')" 16 "$1: the pod's 16 flows on queue 3 ($d)"
}
snapshot() { nic_snapshot "$SIM" "$idx"; }
break_it() { nic_operator_edits "$HOST" "$SIM"; }
doctor_ok "the pod as made"
steered "as made"
BASE=$(snapshot)
expect_eq "$(printf '%s' "$BASE" | head -n 1)" "[0,1]" "RSS over queues 0 and 1"

# ---- operator edits, doctor, restore
break_it
nk -n "$HOST" -j nic show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0].queues[] | [.id, .lost]]')" '[[0,null],[1,null],[2,"rss"],[3,"rss"]]' \
	"nic show: the reserved queues in RSS again are marked lost"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0].rules[] | [.dst, .queue, .lost]]')" '[["10.20.1.2",3,true]]' \
	"nic show: the deleted rule is printed from the record, lost"
nk -n "$HOST" -j doctor dev nkh
expect_eq "$RC" 7 "doctor fails"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.doctor.pods[0].checks[] | select(.status == "fail") | .check] | unique')" \
	'["rss","steering"]' "doctor: rss and steering fail"
fix=$(printf '%s' "$OUT" | jq -r '[.doctor.pods[0].checks[] | select(.status == "fail") | .fix] | unique | join(";")')
expect_match "$fix" "^nkctl -n [^ ]+ nic restore dev $SIM\$" "doctor: one fix, nic restore"
eval "${fix//nkctl /$NKCTL }" > /dev/null || fail "the fix failed"
doctor_ok "after nic restore"
expect_eq "$(snapshot)" "$BASE" "the NIC as recorded again"
steered "after nic restore"

# header split off behind nkctl's back
nlp rings-set "$idx" tcp-data-split off > /dev/null || fail "rings-set"
nk -n "$HOST" -j nic show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0]["header-split-lost"]')" true "nic show: header split lost"
expect_rc 0 "nic restore" -n "$HOST" -j nic restore dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0].restored | [.rss, .["header-split"], .rules]')" '[false,true,0]' \
	"restore: header split only"
expect_rc 0 "nic restore again: nothing to do" -n "$HOST" -j nic restore dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0].restored | [.ended, .rss, .["header-split"], .rules]')" '[0,false,false,0]' \
	"restore of a NIC as recorded changes nothing"
expect_eq "$(snapshot)" "$BASE" "the NIC as recorded"

# ---- ethtool -L: refused for a leased queue, records unchanged. The
# pod's lease goes (its rule would refuse it first, as an n-tuple filter);
# a plain lease of queue 3 in HOST, of queues 2-3 reserved by nic reserve.
expect_rc 0 "unlease" -n "$POD" unlease dev hold
expect_rc 0 "nic reserve queue 2-3" -n "$HOST" nic reserve dev "$SIM" queue 2-3
expect_rc 0 "a holder in HOST" -n "$HOST" link add hL type single rxqueues 2
expect_rc 0 "a plain lease of queue 3" -n "$HOST" lease dev hL from "$SIM" queue 3
state=$(cat /run/nkctl/nic/netdevsim-netdevsim"$SIM_ID"-*)
before=$(snapshot)
if et -L "$SIM" combined 2 > "$T_TMP/L" 2>&1; then
	fail "ethtool -L combined 2 dropped leased queue 3"
fi
expect_match "$(tr '\n' ' ' < "$T_TMP/L")" "leasing" "ethtool -L combined 2 refused for the leased queue"
expect_eq "$(cat /run/nkctl/nic/netdevsim-netdevsim"$SIM_ID"-*)" "$state" "nkctl's record unchanged"
expect_eq "$(snapshot)" "$before" "the NIC unchanged"

# A reservation whose queues vanish: the lease gone, queues 2-3 only reserved.
expect_rc 0 "link del hL" -n "$HOST" link del hL
et -L "$SIM" combined 2 > /dev/null || fail "ethtool -L combined 2 with queues 2-3 only reserved"
nk -n "$HOST" -j nic show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0].queues[] | [.id, .reserved, .lost]]')" '[[0,false,null],[1,false,null],[2,true,"queue"],[3,true,"queue"]]' \
	"nic show: the vanished reserved queues, marked lost"
expect_rc 0 "nic restore" -n "$HOST" -j nic restore dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0].restored.vanished')" '[2,3]' "restore: queues 2 and 3 vanished"
expect_match "$ERR" "Warning: $SIM has 2 RX queues now: reserved queue 2 went" "a Warning line for each"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0].queues[] | [.id, .reserved, .lost]]')" '[[0,false,null],[1,false,null]]' \
	"nothing reserved left"
expect_eq "$(ls /run/nkctl/nic/netdevsim-netdevsim"$SIM_ID"-* 2> /dev/null)" "" "the record went with the last queue"
expect_eq "$(nlp rings "$idx" | jq -r '.["tcp-data-split"]')" "$orig_split" "the NIC's own header split back"
et -L "$SIM" combined 4 > /dev/null || fail "ethtool -L combined 4"
expect_error 3 "nothing to restore" -n "$HOST" nic restore dev "$SIM"
expect_rc 0 "-force: a NIC that does not exist has nothing to restore" -n "$HOST" -force -j nic restore dev nope0
expect_eq "$OUT" '{"nics":[]}' "an empty document"

# ---- a lease over two queues: its rule steers into its RSS context; the
# operator deletes both; restore makes the context again, then the rule.
if [ -d "$pdir" ]; then
	ctxs() { nlp rss-contexts "$idx" | jq -c '[.[] | (.indir | unique)]'; }
	expect_rc 0 "a holder in HOST" -n "$HOST" link add hC type single rxqueues 3
	expect_rc 0 "lease queues 2-3 with steer" -n "$HOST" lease dev hC from "$SIM" queue 2-3 steer dst 10.9.0.9
	expect_eq "$(ctxs)" "[[2,3]]" "a context over queues 2-3"
	id=$(nlp ntuple "$SIM" | jq '.rules[0].location')
	c=$(nlp rss-contexts "$idx" | jq '.[0].context')
	et -N "$SIM" delete "$id" > /dev/null || fail "ethtool -N delete $id"
	et -X "$SIM" context "$c" delete > /dev/null || fail "ethtool -X context $c delete"
	expect_eq "$(ctxs)" "[]" "the operator deleted the context"
	expect_rc 0 "nic restore" -n "$HOST" -j nic restore dev "$SIM"
	expect_eq "$(printf '%s' "$OUT" | jq -c '.nics[0].restored.rules')" 1 "restore: the rule added again"
	expect_eq "$(ctxs)" "[[2,3]]" "the context made again over queues 2-3"
	c=$(nlp rss-contexts "$idx" | jq '.[0].context')
	expect_eq "$(nlp ntuple "$SIM" | jq -c '[.rules[] | [.["dst-ip"], .context]]')" "[[\"10.9.0.9\",$c]]" \
		"the rule steers into it"
	expect_rc 0 "link del hC" -n "$HOST" link del hC
	expect_eq "$(ctxs)" "[]" "the sweep removed the context"
	expect_eq "$(nlp ntuple "$SIM" | jq .count)" 0 "and the rule"
fi
done_testing
