#!/bin/bash
# tier: vm
# timeout: 600
# The NIC's own life (issue 30). (a) A lease outlives its NIC's admin-down
# (the kernel ends leases only with their holder), but a down NIC's queue
# dump is empty: nkctl reads it as unknown, not ended. A sweep caused by a
# steered lease and an unlease on ANOTHER NIC keeps the down NIC's rule,
# reservation and record; nic release refuses (busy); after up the rule and
# the table are as before and the steered flow still lands on the leased
# queue (per-queue qstats). (b) One NIC's trouble is its Warning, never
# another's error: a lingering memory provider (netdevsim's mp_linger) makes
# the kernel refuse header split off on NIC A; the holder's link del and an
# unlease on A exit 0 with their document and one Warning naming A, a steered
# lease on NIC B succeeds, and once the provider is gone a later command puts
# A's own settings back. Truth from nlprobe.py.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq

topo_nic_remote 4
sim_new B "$HOST" 4
need_sim_rss "$HOST" "$SIM"
pdir=/sys/kernel/debug/netdevsim/netdevsim$SIM_ID/ports/0/ethtool/nkctl
[ -e "$pdir/mp_linger" ] || skip "this netdevsim has no mp_linger personality (the VM's test patch is older)"
idx=$(ifindex_of "$HOST" "$SIM")
ip -n "$HOST" addr add 10.10.2.9/24 dev "$SIM"
ping_ok "$REMOTE" 10.10.2.9 || fail "no ping over the linked pair"
# header split off, as a NIC's own setting nkctl must put back
$NLPROBE -n "$HOST" rings-set "$idx" tcp-data-split off > /dev/null || skip "netdevsim has no header split setting"
split() { $NLPROBE -n "$HOST" rings "$idx" | jq -r '.["tcp-data-split"]'; }
indir() { $NLPROBE -n "$HOST" rss "$idx" | jq -c .indir; }
rules() { $NLPROBE -n "$HOST" ntuple "$1" | jq -c '[.rules[] | [.["dst-ip"], .action]] | sort'; }
rxq() { $NLPROBE -n "$HOST" qstats "$idx" | jq -c '[.[] | select(.type=="rx")] | sort_by(.id) | map(.["rx-packets"])'; }
records() { $PY -c 'import sys; print(sum(1 for l in open(sys.argv[1]) if l.startswith("lease ")))' "$1" 2> /dev/null || echo 0; }
linger() { echo "$1 $2" > "$pdir/mp_linger" || fail "cannot write mp_linger: $1 $2"; }
state_of() { ls /run/nkctl/nic/ | grep -v '^\.' | grep -E -- "netdevsim$1(-|\$)" | head -n 1; }
# steered Q: did 20 datagrams to 10.10.2.9 all land on RX queue Q (true)?
steered() {
	local a b
	a=$(rxq)
	ip netns exec "$REMOTE" $PY -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range(20):
    s.sendto(b"life" * 16, ("10.10.2.9", 7030))'
	for _ in $(seq 30); do
		b=$(rxq)
		[ "$(jq -n --argjson a "$a" --argjson b "$b" --argjson q "$1" '$b[$q] - $a[$q]')" -ge 20 ] && break
		sleep 0.1
	done
	jq -n -c --argjson a "$a" --argjson b "$b" --argjson q "$1" '$b[$q] - $a[$q] >= 20'
}

# ---- (a) down, a sweep from another NIC, up ----
nk -n "$HOST" link add nka type single rxqueues 2
expect_rc 0 "steered lease of queue 2 on $SIM" -n "$HOST" lease dev nka from "$SIM" queue 2 steer dst 10.10.2.9
indir_leased=$(indir) rules_leased=$(rules "$SIM")
expect_eq "$rules_leased" '[["10.10.2.9",2]]' "its rule (nlprobe)"
expect_eq "$(steered 2)" true "the flow lands on queue 2 (qstats)"
file=$(state_of "$SIM_ID")
[ -n "$file" ] || fail "no state file for $SIM"

ip -n "$HOST" link set "$SIM" down
nk -n "$HOST" link add nkb type single rxqueues 2
expect_rc 0 "a steered lease on $B (its sweep reads the down $SIM)" -n "$HOST" lease dev nkb from "$B" queue 1 steer dst 10.9.9.1
expect_eq "$ERR" "" "nothing said of $SIM"
expect_rc 0 "an unlease on $B (another sweep)" -n "$HOST" unlease dev nkb
expect_eq "$(rules "$SIM")" "$rules_leased" "the down NIC's rule is kept"
expect_eq "$(indir)" "$indir_leased" "its table is kept"
expect_eq "$(records "/run/nkctl/nic/$file")" 1 "its lease record is kept"
expect_error 4 "nic release on the down NIC" -n "$HOST" nic release dev "$SIM"
expect_match "$ERR" "$SIM is down: whether its reserved queues are leased cannot be read" "it says why"
ip -n "$HOST" link set "$SIM" up
expect_rc 0 "nic show after up" -n "$HOST" -j nic show dev "$SIM"
expect_eq "$(rules "$SIM")" "$rules_leased" "after up: the rule as before"
expect_eq "$(indir)" "$indir_leased" "after up: the table as before"
ping_ok "$REMOTE" 10.10.2.9 || true     # neighbours again after the flap
expect_eq "$(steered 2)" true "after up: the flow lands on queue 2 again (qstats)"

# ---- (b) a lingering provider on A, a steered lease on B ----
linger 3 600000
nk -n "$HOST" -j link del nka
expect_eq "$RC" 0 "link del of A's last holder exits 0"
expect_match "$OUT" '"deleted"' "and prints its document"
expect_match "$ERR" "^Warning: $SIM: the ended lease of \"nka\" \\(queues 2\\) is undone but the NIC's own settings are not back yet: .*; pending in its record" \
	"one Warning naming A, the record and the kernel's message"
expect_eq "$(printf '%s\n' "$ERR" | wc -l)" 1 "one line"
expect_eq "$(rules "$SIM")" "[]" "the rule went (the rest of the undo proceeded)"
expect_eq "$(split)" on "header split still on: the kernel refused it off"
nk -n "$HOST" link add nkb type single rxqueues 2
expect_rc 0 "a steered lease on B succeeds" -n "$HOST" -j lease dev nkb from "$B" queue 1 steer dst 10.9.9.1
expect_match "$ERR" "^Warning: $SIM: restoring its own settings .* is pending" "A's pending step is a Warning"
expect_eq "$(rules "$B")" '[["10.9.9.1",1]]' "B's rule (nlprobe)"
nk -n "$HOST" link add nkd type single rxqueues 2
expect_rc 0 "a steered lease on A meanwhile" -n "$HOST" lease dev nkd from "$SIM" queue 1 steer dst 10.9.9.2
expect_rc 0 "unlease on A exits 0" -n "$HOST" -j unlease dev nkd
expect_match "$OUT" '"unleased"' "with its document"
expect_match "$ERR" "^Warning: $SIM: .*not back yet" "and a Warning naming A"
linger 3 0
expect_rc 0 "unlease on B once the provider is gone" -n "$HOST" unlease dev nkb
expect_eq "$ERR" "" "no Warning"
expect_eq "$(split)" off "A's header split is back off (the pending step done)"
expect_eq "$(state_of "$SIM_ID")" "" "A's record is gone"
expect_eq "$(rules "$B")" "[]" "B's rule went"
done_testing
