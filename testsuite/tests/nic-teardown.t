#!/bin/bash
# tier: vm
# timeout: 300
# The namespace-teardown window (nkctl/lease/fate.c): a pod's namespace is deleted
# while its holder's lease is alive. The kernel forgets the namespace's ids
# first (the NIC's queue dump then shows the lease with netns-id -1) and
# unregisters its devices, which ends the lease, only later. Through that
# window the NIC side of the lease (its steering rule, its queue out of RSS)
# stays: nkctl cannot tell whose the lease is, which is not "ended". The
# window is held open by the VM's netdevsim test patch
# (netdevsim-teardown-delay.patch: netns_exit_delay_ms), while another
# pod's lease and a nic show run (each sweeps the NIC's records). Once the
# kernel has ended the lease, the next command undoes its rule and
# reservation.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq
KNOB=/sys/module/netdevsim/parameters/netns_exit_delay_ms

ns_new HOST
sim_new SIM "$HOST" 4
need_sim_rss "$HOST" "$SIM"
[ -w "$KNOB" ] || skip "this netdevsim has no netns_exit_delay_ms (the VM's test patch is missing)"
defer "echo 0 > $KNOB"
idx=$(ifindex_of "$HOST" "$SIM")
nlprobe_serve "$HOST"
indir() { nlp rss "$idx" | jq -c '.indir | unique'; }
rules() { nlp ntuple "$SIM" | jq -c '[.rules[] | [.["dst-ip"], .action]] | sort'; }
# queue 2's lease as the dump has it: netns-id, or "none"
lease2() { nlp queues "$idx" | jq -c '[.[] | select(.type == "rx" and .id == 2) | .lease | if . == null then "none" else .["netns-id"] end] | .[0]'; }

# A pod's holder, leased here and moved into the pod as the CNI plugin does.
ns_new POD
nk -n "$HOST" link add nkp type single rxqueues 2
expect_rc 0 "the pod's reserved, steered lease of queue 2" -n "$HOST" lease dev nkp from "$SIM" queue 2 reserve steer dst 10.9.0.2
ip -n "$HOST" link set nkp netns "$POD" || fail "cannot move nkp into the pod"
expect_match "$(lease2)" '^[0-9]+$' "the dump names the pod's namespace by its id"
expect_eq "$(rules)" '[["10.9.0.2",2]]' "the pod's rule"
expect_eq "$(indir)" '[0,1,3]' "queue 2 out of RSS"

# The window, held open (up to a minute, closed by the test below however
# slow the machine): the pod's namespace deleted.
echo 60000 > "$KNOB"
defer "echo 0 > $KNOB"
t0=$SECONDS
ip netns del "$POD"
for _ in $(seq 300); do [ "$(lease2)" = -1 ] && break; sleep 0.1; done
expect_eq "$(lease2)" -1 "namespace deleted: the lease lives on, its netns-id -1"
# Another pod's lease on the same NIC, and nic show: both sweep.
nk -n "$HOST" link add nkq type single rxqueues 2
expect_rc 0 "another pod's lease in the window" -n "$HOST" lease dev nkq from "$SIM" queue 3 reserve
expect_rc 0 "nic show in the window" -n "$HOST" -j nic show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0].queues[] | select(.id == 2) | .lost] | .[0]')" null \
	"nic show does not call the lease lost"
expect_eq "$(rules)" '[["10.9.0.2",2]]' "in the window: the rule stays"
expect_eq "$(indir)" '[0,1]' "in the window: queue 2 stays out of RSS (3 is the other pod's)"
expect_eq "$(lease2)" -1 "the checks ran inside the window ($((SECONDS - t0)) s)"

# The window closed: the kernel ends the lease with the holder; the next
# command undoes it.
echo 0 > "$KNOB"
for _ in $(seq 300); do [ "$(lease2)" = '"none"' ] && break; sleep 0.2; done
expect_eq "$(lease2)" '"none"' "the namespace's end ended the lease ($((SECONDS - t0)) s)"
expect_rc 0 "the other pod's unlease" -n "$HOST" unlease dev nkq
expect_eq "$(rules)" '[]' "after the window: the ended lease's rule undone"
expect_eq "$(indir)" '[0,1,2,3]' "after the window: RSS spreads over every queue again"
nk -n "$HOST" -j nic show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0].queues[]? | select(.lease or .reserved or .lost)] | length')" 0 \
	"nic show: no record left"
done_testing
