#!/bin/bash
# tier: vm
# timeout: 600
# No caps below the NIC's (issue 30): 250 steered pods (lease ... pool ...
# steer) on one 256-queue netdevsim NIC whose rule table has 512 locations
# (personalities ntuple_size and rss_indir_size, set before anything is
# configured). nkctl used to keep at most 64 lease records and 256 rules per
# NIC. All 250 are listed by show leases and nic show, their rules are in the
# NIC (nlprobe), and after they are unleased no rule, no reservation and no
# record is left, the table is as before. The 500 commands go through one
# nkctl -batch each way (a process per command is most of a second under TCG).
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq

N=250
ns_new HOST
sim_new SIM "$HOST" 256
pdir=/sys/kernel/debug/netdevsim/netdevsim$SIM_ID/ports/0/ethtool/nkctl
[ -e "$pdir/ntuple_size" ] || skip "this netdevsim has no ntuple_size personality (the VM's test patch is older)"
echo 512 > "$pdir/ntuple_size" || fail "ntuple_size 512"
echo 256 > "$pdir/rss_indir_size" || fail "rss_indir_size 256"
need_sim_rss "$HOST" "$SIM"
idx=$(ifindex_of "$HOST" "$SIM")
indir() { $NLPROBE -n "$HOST" rss "$idx" | jq -c .indir; }
nrules() { $NLPROBE -n "$HOST" ntuple "$SIM" | jq '.rules | length'; }
indir_before=$(indir)
addr() { echo "10.30.$(($1 / 200)).$(($1 % 200 + 1))"; }

for i in $(seq "$N"); do
	echo "link add nk$i type single rxqueues 2"
	echo "lease dev nk$i from $SIM pool 1-255 steer dst $(addr "$i")"
done > "$T_TMP/up.batch"
start=$SECONDS
expect_rc 0 "$N steered pool leases in one batch" -n "$HOST" -batch "$T_TMP/up.batch"
echo "# $N leases took $((SECONDS - start)) s"
expect_eq "$(printf '%s\n' "$ERR" | grep -c . || true)" 0 "nothing on stderr"

expect_rc 0 "show leases" -n "$HOST" -j show leases
expect_eq "$(printf '%s' "$OUT" | jq --arg n "$SIM" '[.leases[] | select(.ifname==$n)] | length')" "$N" \
	"show leases lists all $N"
expect_rc 0 "nic show" -n "$HOST" -j nic show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq '[.nics[0].queues[] | select(.reserved and .lease != null)] | length')" "$N" \
	"nic show: $N queues reserved and leased"
expect_eq "$(printf '%s' "$OUT" | jq '[.nics[0].rules[] | select(.nkctl)] | length')" "$N" \
	"nic show: $N rules of nkctl's"
expect_eq "$(nrules)" "$N" "$N rules in the NIC (nlprobe)"
expect_eq "$($NLPROBE -n "$HOST" ntuple "$SIM" | jq -c --arg a "$(addr 250)" '[.rules[] | select(.["dst-ip"]==$a) | .action]')" \
	"[250]" "the last pod's address steers to the last queue leased"

# Past the old caps the NIC's queues are the limit, said before any change.
nk -n "$HOST" link add nk251 type single rxqueues 2
nk -n "$HOST" link add nk252 type single rxqueues 2
expect_rc 0 "the 251st lease still fits" -n "$HOST" lease dev nk251 from "$SIM" pool 1-255 steer dst 10.31.0.1
expect_error 4 "a pool whose queues are all leased" -n "$HOST" lease dev nk252 from "$SIM" pool 1-251 steer dst 10.31.0.2
expect_eq "$(nrules)" $((N + 1)) "nothing changed by the refusal"

# The rule table is the other limit: a NIC with one rule location takes
# one steered lease; the next is refused before any change.
sim_new SMALL "$HOST" 4
echo 1 > "/sys/kernel/debug/netdevsim/netdevsim$SMALL_ID/ports/0/ethtool/nkctl/ntuple_size" ||
	fail "ntuple_size 1"
expect_rc 0 "a steered lease on a NIC with one rule location" -n "$HOST" lease dev nk252 from "$SMALL" queue 1 steer dst 10.32.0.1
nk -n "$HOST" link add nk253 type single rxqueues 2
expect_error 4 "the next: no location left" -n "$HOST" lease dev nk253 from "$SMALL" queue 2 steer dst 10.32.0.2
expect_match "$ERR" "the n-tuple rule table of $SMALL is full \\(1 of 1 locations used, 1 more needed\\); nothing was changed" \
	"the Error says which limit"
expect_eq "$(lease_of "$HOST" "$SMALL" 2)" null "queue 2 was not leased"

for i in $(seq 253); do echo "link del nk$i"; done > "$T_TMP/down.batch"
start=$SECONDS
expect_rc 0 "every holder deleted in one batch" -n "$HOST" -batch "$T_TMP/down.batch"
echo "# $N unleases took $((SECONDS - start)) s"
expect_eq "$(printf '%s\n' "$ERR" | grep -c . || true)" 0 "nothing on stderr"
expect_eq "$(nrules)" 0 "no rule left (nlprobe)"
expect_eq "$(indir)" "$indir_before" "the table as before (nlprobe)"
expect_rc 0 "show leases" -n "$HOST" -j show leases
expect_eq "$(printf '%s' "$OUT" | jq --arg n "$SIM" '[.leases[] | select(.ifname==$n)] | length')" 0 "no lease left"
expect_eq "$(ls /run/nkctl/nic/ | grep -v '^\.' | grep -cE -- "netdevsim$SIM_ID(-|\$)" || true)" 0 "no record left"
done_testing
