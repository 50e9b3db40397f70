#!/bin/bash
# tier: vm
# timeout: 360
# unlease dev NKDEV netns NETNS: a holder's leases ended from outside its
# namespace (the CNI plugin's one nkctl session reaches every pod's so), and
# a NETNS that names nothing now is not taken for the lease's end: nkctl
# waits while its record of a live lease names the holder anywhere, refuses
# one whose namespace lives on unnamed (a process keeps it) and changes
# nothing, and has nothing left to do once the kernel ended the lease. The
# plugin's DEL goes through the same line: a pod whose namespace file is
# gone while its namespace lives on keeps its lease (DEL fails, the runtime
# retries); once the namespace is gone, DEL succeeds.
. "$TESTSUITE/lib.sh"
. "$TESTSUITE/cni.sh"
need_root
need_cmd jq

ns_new HOST
ns_new POD
ns_new UNNAMED
sim_new SIM "$HOST" 4

# Reachable: the pod's holder, from the host.
nk -n "$POD" link add nh type single rxqueues 2
expect_rc 0 "a lease into the pod's holder" -n "$POD" lease dev nh from "$SIM" phys-netns "$HOST" queue 1
expect_rc 0 "unlease it from the host, by its namespace" -n "$HOST" -j unlease dev nh netns "$POD"
json_valid "unlease -j"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.unleased[].id]')" '[1]' "the pod's lease is the one that ended"
expect_eq "$(lease_of "$HOST" "$SIM" 1)" null "the kernel agrees: queue 1 is free"
expect_eq "$(ip -n "$POD" -o link show nh 2> /dev/null)" "" "the holder is deleted in its namespace"

# A namespace that lives on with nothing naming it (a process keeps it).
nk -n "$UNNAMED" link add ng type single rxqueues 2
expect_rc 0 "a lease into ng" -n "$UNNAMED" lease dev ng from "$SIM" phys-netns "$HOST" queue 2
ip netns exec "$UNNAMED" sleep 600 &
keeper=$!
defer "kill $keeper 2> /dev/null"
sleep 0.5
# unnamed as ip netns del unnames (MNT_DETACH): a mount namespace made
# meanwhile (an ip netns exec of this guest) may hold a copy of the mount
umount -l "/run/netns/$UNNAMED" && rm "/run/netns/$UNNAMED" || fail "cannot unname $UNNAMED"
expect_error 4 "unlease of a holder whose namespace lives on unnamed" -n "$HOST" unlease dev ng \
	netns "/run/netns/$UNNAMED"
expect_match "$ERR" "\"ng\" still holds leases .* names no namespace now" "says the lease lives on"
expect_match "$ERR" "nothing was changed" "and that nothing was changed"
expect_eq "$(lease_of "$HOST" "$SIM" 2 | jq -c '.queue.id')" 1 "the lease lives"
kill "$keeper"
wait "$keeper" 2> /dev/null
# Its last process gone, the namespace goes, and the kernel ends the lease
# a little after: nkctl waits for that, then undoes the NIC side.
expect_rc 0 "-force unlease once the namespace went: nothing left" -n "$HOST" -force -j unlease dev ng \
	netns "/run/netns/$UNNAMED"
expect_eq "$(printf '%s' "$OUT" | jq -c '.unleased')" '[]' "nothing to end"
expect_eq "$(lease_of "$HOST" "$SIM" 2)" null "the kernel ended the lease"
expect_error 3 "without -force: nothing to unlease" -n "$HOST" unlease dev ng netns "/run/netns/$UNNAMED"
expect_match "$ERR" "names no namespace now" "says why"

# The plugin's DEL, through the same line.
cni_pod_on "$SIM" nknet 3 CPOD cpod
ip netns exec "$CPOD" sleep 600 &
keeper=$!
defer "kill $keeper 2> /dev/null"
sleep 0.5
umount -l "/run/netns/$CPOD" && rm "/run/netns/$CPOD" || fail "cannot unname $CPOD"
cni DEL cpod "/run/netns/$CPOD"
echo "# CNI DEL: $OUT"
expect_eq "$RC" 1 "CNI DEL fails while the pod's namespace lives on unnamed (the runtime retries)"
expect_match "$OUT" "still holds leases" "CNI DEL: nkctl's judgement, not \"gone\""
expect_eq "$(lease_of "$HOST" "$SIM" 3 | jq -r 'if . == null then "none" else "leased" end')" leased \
	"the pod keeps its lease"
kill "$keeper"
wait "$keeper" 2> /dev/null
cni DEL cpod "/run/netns/$CPOD"
expect_eq "$RC" 0 "CNI DEL once the namespace went: $OUT $(cat "$T_TMP/cni.err")"
expect_eq "$(lease_of "$HOST" "$SIM" 3)" null "queue 3 is free"
nk -n "$HOST" -j show leases
expect_eq "$(printf '%s' "$OUT" | jq -c --arg s "$SIM" '[.leases[] | select(.ifname == $s)]')" '[]' \
	"no lease of the NIC is left, seen or recorded"
done_testing
