#!/bin/bash
# tier: vm
# timeout: 300
# xsk attach beside a detach of the same holder, and beside another
# holder's unlease (whose sweep removes that holder's slot and map), in a
# loop: a holder's map is unpinned only under the lock an attach holds on
# /sys/fs/bpf/nkctl-xsk, so the attach always succeeds, and no NIC slot
# ever names a map that is not pinned (xsk show lists only pins that are
# there; a queue still going to the holder has its map).
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq

ns_new HOST
sim_new SIM "$HOST" 4
pindir=$(ns_pindir "$HOST")
cookie=${pindir##*-}
defer "rm -rf /sys/fs/bpf/nkctl-xsk/ns$cookie-dev*"

expect_rc 0 "holder nka" -n "$HOST" link add nka type single rxqueues 2
expect_rc 0 "nka leases NIC queue 1" -n "$HOST" lease dev nka from "$SIM" queue 1
nka_dir=/sys/fs/bpf/nkctl-xsk/ns$cookie-dev$(ifindex_of "$HOST" nka)

# mine: xsk show's entries of this test's NIC (show lists every NIC of
# the namespaces nkctl reaches: another test's too).
mine() { printf '%s' "$OUT" | jq -c --arg sim "$SIM" "[.xsk[] | select(.queues[0].nic == \$sim) | $1]"; }
# consistent WHAT: every pin xsk show lists for the NIC is there (nka's
# map while a queue goes to it).
consistent() {
	local p
	nk -n "$HOST" -j xsk show
	[ "$RC" = 0 ] || fail "$1: xsk show: exit $RC: $ERR"
	for p in $(mine .pin | jq -r '.[]'); do
		[ -e "$p" ] || fail "$1: a NIC's slot names $p, which is not pinned: $OUT"
	done
}
# race WHAT CMD...: xsk attach of nka beside CMD (a shell command line);
# attach must succeed.
race() {
	local what=$1 a
	shift
	"$NKCTL" -n "$HOST" xsk attach dev nka user 4231 > "$T_TMP/attach" 2>&1 &
	a=$!
	"$@" > "$T_TMP/other" 2>&1
	wait $a || fail "$what: attach beside it failed ($?): $(cat "$T_TMP/attach"); the other: $(cat "$T_TMP/other")"
	consistent "$what"
}

n=$(rounds 12)
for i in $(seq "$n"); do
	expect_rc 0 "round $i: nka attached" -n "$HOST" xsk attach dev nka user 4231
	race "round $i, beside nka's detach" "$NKCTL" -n "$HOST" -force xsk detach dev nka
	# attach won when its slot is there (its map too, by consistent);
	# detach won when it is not, and then its map went too
	nk -n "$HOST" -j xsk show dev nka
	if [ "$(mine .ifname)" = "[]" ]; then
		[ ! -e "$nka_dir" ] || fail "round $i: detach won but left $nka_dir"
	fi
done
pass "$n rounds of attach beside a detach of the same holder: every attach succeeded, no slot without its map"

expect_rc 0 "nka attached" -n "$HOST" xsk attach dev nka user 4231
for i in $(seq "$n"); do
	"$NKCTL" -n "$HOST" link del nkb > /dev/null 2>&1
	nk -n "$HOST" link add nkb type single rxqueues 2
	expect_rc 0 "round $i: nkb leases NIC queue 2" -n "$HOST" lease dev nkb from "$SIM" queue 2
	expect_rc 0 "round $i: nkb attached" -n "$HOST" xsk attach dev nkb user 4232
	race "round $i, beside nkb's unlease" "$NKCTL" -n "$HOST" unlease dev nkb
	[ -e "$nka_dir/map" ] || fail "round $i: nka's map went beside nkb's unlease"
	nk -n "$HOST" -j xsk show
	expect_eq "$(mine .ifname)" '["nka"]' "round $i: only nka's queue is prepared"
done
pass "$n rounds of attach beside another holder's unlease: every attach succeeded, its map stayed"
expect_rc 0 "unlease nka" -n "$HOST" unlease dev nka
[ ! -e "$nka_dir" ] || fail "unlease left $nka_dir"
pass "unlease: no pin left"
done_testing
