#!/bin/bash
# tier: vm
# Memory providers that outlive their user (issue 25): after an io_uring zcrx
# or devmem user exits, the kernel removes the provider from the NIC queue
# later. netdevsim's mp_linger personality (testsuite/vm/netdevsim-rxnfc-rss.patch)
# puts such a provider on a queue for a given time. lease ... pool does not
# choose that queue; show leases names it; unlease waits for it (bounded by
# wait SECONDS, default 5), finishes once it goes, and otherwise deletes
# nothing and exits 4; force deletes at once (the kernel closes the provider).
# Truth from queue-get (nlprobe.py) and the device list.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq

ns_new HOST
sim_new SIM "$HOST" 6
idx=$(ifindex_of "$HOST" "$SIM")
pdir=/sys/kernel/debug/netdevsim/netdevsim$SIM_ID/ports/0/ethtool/nkctl
[ -e "$pdir/mp_linger" ] || skip "this netdevsim has no mp_linger personality (the VM's test patch is older)"
# linger QUEUE MS: a provider on QUEUE whose user is gone, for MS ms
linger() { echo "$1 $2" > "$pdir/mp_linger" || fail "cannot write mp_linger: $1 $2"; }
# io_uring QUEUE: does queue-get show a provider on RX queue QUEUE?
io_uring() {
	$NLPROBE -n "$HOST" queues "$idx" |
		jq -c --argjson q "$1" '[.[] | select(.type=="rx" and .id==$q)][0] | has("io-uring")'
}
leased() {
	$NLPROBE -n "$HOST" queues "$idx" |
		jq -r '[.[] | select(.type=="rx" and .lease != null) | .id] | join(" ")'
}

linger 2 60000
expect_eq "$(io_uring 2)" true "queue-get shows the lingering provider on queue 2"
nk -n "$HOST" link add nka type single rxqueues 4
expect_eq "$RC" 0 "a holder"

# Allocation skips it; an exact choice is refused; a pool of it alone is exhausted.
expect_rc 0 "pool lease of two among 1-3" -n "$HOST" -j lease dev nka from "$SIM" pool 1-3 count 2
expect_eq "$(printf '%s' "$OUT" | jq -c '[.leases[] | .id]')" "[1,3]" "queue 2 is skipped"
nk -n "$HOST" link add nkb type single rxqueues 2
expect_error 4 "queue 2 by name" -n "$HOST" lease dev nkb from "$SIM" queue 2
expect_match "$ERR" "queue 2 is in use by an io_uring zero-copy receive ring" "the refusal names the provider"
expect_error 4 "a pool of queue 2 alone" -n "$HOST" lease dev nkb from "$SIM" pool 2
expect_match "$ERR" "held: 2 by an io_uring" "the exhausted pool names it"
expect_eq "$(leased)" "1 3" "nothing else was leased"
linger 2 0
expect_eq "$(io_uring 2)" false "the provider is gone at once with 0"

# show leases names a provider on a leased queue.
linger 1 60000
expect_rc 0 "show leases" -n "$HOST" -j show leases
expect_eq "$(printf '%s' "$OUT" | jq -c --arg n "$SIM" '[.leases[] | select(.ifname==$n) | [.id, has("io-uring")]]')" \
	"[[1,true],[3,false]]" "show leases: io-uring on queue 1 only"
expect_rc 0 "show leases, text" -n "$HOST" show leases
expect_match "$OUT" "$SIM queue 1 -> nka queue [0-9]+ io-uring" "the text line names it"

# A bound too short: nothing deleted, exit 4, the queue named.
linger 1 60000
expect_rc 4 "unlease wait 1 while it lingers" -n "$HOST" -j unlease dev nka wait 1
expect_eq "$OUT" "" "no document"
expect_match "$(printf '%s\n' "$ERR" | head -n 1)" "^Warning: \"nka\" queue [0-9]+ \\($SIM queue 1\\) still has a memory provider; waiting up to 1 s" \
	"it says what it waits for"
expect_match "$(printf '%s\n' "$ERR" | tail -n 1)" "^Error: \"nka\" queue [0-9]+ \\($SIM queue 1\\) is still in use by an io_uring zero-copy receive ring after 1 s" \
	"and what is left"
expect_eq "$(printf '%s\n' "$ERR" | wc -l)" 2 "two lines: the wait, the error"
expect_eq "$(leased)" "1 3" "the leases are still there"
expect_error 4 "wait 0 does not wait" -n "$HOST" unlease dev nka wait 0

# unlease_bg ARGS...: nkctl -n HOST -j unlease ARGS in the background (its
# stderr in $T_TMP/u.err), returning once it says it waits for a provider.
unlease_bg() {
	rm -f "$T_TMP/u.err"
	"$NKCTL" -n "$HOST" -j unlease "$@" > "$T_TMP/u.out" 2> "$T_TMP/u.err" &
	UP=$!
	for _ in $(seq 600); do grep -q 'waiting up to' "$T_TMP/u.err" 2> /dev/null && return; sleep 0.1; done
	fail "unlease $*: it never said it waits: $(cat "$T_TMP/u.err")"
}
# unlease_end: its exit status in RC, its stderr in ERR, its stdout in OUT
unlease_end() { wait "$UP"; RC=$?; ERR=$(err_text "$(own_err "$(cat "$T_TMP/u.err")")"); OUT=$(cat "$T_TMP/u.out"); }

# Several holders: one bound for the whole command. nka's provider goes
# once the command waits for it (the test ends it: a slow machine cannot
# outrun it); nkb's stays, and is waited for only what is left of the 20 s
# (before, each holder had its own: "waiting up to 20 s" twice).
expect_rc 0 "lease queue 4 to nkb" -n "$HOST" lease dev nkb from "$SIM" queue 4
linger 4 60000
linger 1 60000
unlease_bg from "$SIM" queue 1,3,4 wait 20
sleep 3 # at least 3 s of the 20 go on nka
linger 1 0
unlease_end
expect_eq "$RC" 4 "unlease from queues 1,3,4 (two holders, two providers) wait 20: exit 4"
waits=$(printf '%s\n' "$ERR" | sed -n 's/.*waiting up to \([0-9]*\) s.*/\1/p' | paste -sd' ')
echo "# the waits it announced: $waits"
expect_match "$waits" '^20 ([1-9]|1[0-7])$' "the second holder waits only what is left of the 20 s"
expect_match "$(printf '%s\n' "$ERR" | tail -n 1)" "^Error: \"nkb\" .* is still in use by an io_uring zero-copy receive ring after 20 s" \
	"then the error names nkb"
expect_eq "$(leased)" "1 3 4" "no holder was deleted"
linger 4 0
expect_rc 0 "nkb's unlease once its provider is gone" -n "$HOST" unlease dev nkb
nk -n "$HOST" link add nkb type single rxqueues 2

# The wait: unlease finishes once the provider goes. (Not timed: a TCG guest
# on a loaded host takes seconds for any unlease. It saw the provider, said
# so, and ended the leases, which without the wait it refuses.)
linger 1 60000
unlease_bg dev nka wait 30
linger 1 0
unlease_end
expect_eq "$RC" 0 "unlease wait 30 while it lingers, until the provider goes"
expect_match "$ERR" "^Warning: \"nka\" queue [0-9]+ \\($SIM queue 1\\) still has a memory provider; waiting up to 30 s" \
	"it waited for the provider"
expect_eq "$(printf '%s\n' "$ERR" | wc -l)" 1 "and said nothing else"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.unleased[] | .id]')" "[1,3]" "then ended both leases"
expect_eq "$(leased)" "" "no lease left (queue-get)"
expect_eq "$(io_uring 1)" false "no provider left"
nk -n "$HOST" link show nka
expect_eq "$RC" 3 "the holder is gone"

# force: at once; the kernel closes the provider with the lease.
nk -n "$HOST" link add nka type single rxqueues 2
expect_rc 0 "lease queue 4" -n "$HOST" lease dev nka from "$SIM" queue 4
linger 4 60000
expect_rc 0 "unlease force" -n "$HOST" unlease dev nka force
expect_eq "$ERR" "" "force does not wait"
expect_eq "$(leased)" "" "no lease left"
expect_eq "$(io_uring 4)" false "the kernel closed the provider"
nk -n "$HOST" link del nkb
done_testing
