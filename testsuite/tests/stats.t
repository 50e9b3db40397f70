#!/bin/bash
# tier: vm
# -s on a real NIC driver: netdevsim (queue stats) linked to a remote
# netdevsim, traffic from the remote, a lease of one of its queues.
#
# The device counters and the sum of the RX queues' qstats grow with the
# traffic; the lease (with the remote's traffic steered to its queue: the
# netdevsim test patch gives true per-queue counters and n-tuple rules) sees
# its queue's counters grow, attributed to it in -s show leases from both
# sides; rates over an interval for a device and for the leases, bounded by
# the kernel's counts (no wall-clock bound).
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq ping

ns_new HOST
ns_new REMOTE
ns_new POD
sim_new SIM "$HOST" 4
sim_new RSIM "$REMOTE" 4

# Link the two netdevsims: what one sends, the other receives.
exec {fh}< "/run/netns/$HOST"
exec {fr}< "/run/netns/$REMOTE"
echo "$fh:$(ifindex_of "$HOST" "$SIM") $fr:$(ifindex_of "$REMOTE" "$RSIM")" \
	> /sys/bus/netdevsim/link_device 2>/dev/null || skip "netdevsim cannot link devices"
exec {fh}<&- {fr}<&-
ip -n "$HOST" addr add 10.20.0.1/24 dev "$SIM"
ip -n "$REMOTE" addr add 10.20.0.2/24 dev "$RSIM"
ip netns exec "$REMOTE" ping -c 2 -i 0.3 -W 2 10.20.0.1 > /dev/null 2>&1 ||
	skip "no traffic across linked netdevsims"

sum_rx() { # sum_rx JSON: the RX packets of every RX queue of the one device
	printf '%s' "$1" | jq '[.devices[0].queues[] | select(.type=="rx") | .stats["rx-packets"] // 0] | add'
}

# A lease of queue 2 into a netkit pair whose peer is in the pod.
nk -n "$HOST" link add nkh peer nkp peer-netns "$POD" rxqueues 2
expect_eq "$RC" 0 "a pair with the peer in the pod"
expect_rc 0 "lease queue 2 into the pod, 10.20.0.1 steered to it" \
	-n "$POD" lease dev nkp from "$SIM" phys-netns "$HOST" queue 2 steer dst 10.20.0.1
expect_rc 0 "show leases -s before traffic" -n "$HOST" -s -j show leases
lease_before=$OUT
lease_rx() { printf '%s' "$1" | jq --arg d "$SIM" '.leases[] | select(.ifname==$d and .id==2) | .stats["rx-packets"] // 0'; }

expect_rc 0 "show -s on netdevsim" -n "$HOST" -s -j show dev "$SIM"
json_valid "show -s -j"
before=$OUT
nq=$(printf '%s' "$before" | jq '[.devices[0].queues[] | select(.type=="rx" and .stats)] | length')
expect_eq "$nq" 4 "every RX queue of netdevsim has qstats"

ip netns exec "$REMOTE" ping -c 50 -i 0.02 -W 2 10.20.0.1 > /dev/null 2>&1
expect_rc 0 "show -s after traffic" -n "$HOST" -s -j show dev "$SIM"
after=$OUT
d_dev=$(( $(printf '%s' "$after" | jq .devices[0].stats64.rx.packets) -
	  $(printf '%s' "$before" | jq .devices[0].stats64.rx.packets) ))
[ "$d_dev" -ge 50 ] && pass "device rx packets grew by $d_dev" || fail "device rx grew by $d_dev, sent 50"
d_q=$(( $(sum_rx "$after") - $(sum_rx "$before") ))
[ "$d_q" -ge 50 ] && pass "RX queues' qstats grew by $d_q" || fail "RX queue qstats grew by $d_q, sent 50"

# Leases: each carries the counters of its NIC queue (read with no traffic
# between, so equal).
expect_rc 0 "show leases -s" -n "$HOST" -s -j show leases
json_valid "show leases -s -j"
leases=$OUT
expect_rc 0 "show -s again" -n "$HOST" -s -j show dev "$SIM"
got=$(printf '%s' "$leases" | jq -c --arg d "$SIM" '.leases[] | select(.ifname==$d and .id==2) | .stats')
want=$(printf '%s' "$OUT" | jq -c '.devices[0].queues[] | select(.type=="rx" and .id==2) | .stats')
[ -n "$want" ] && [ "$want" != null ] || fail "queue 2 has no stats"
expect_eq "$got" "$want" "the lease carries its NIC queue's counters"
expect_rc 0 "show leases -s from the pod's side" -n "$POD" -s -j show leases
got=$(printf '%s' "$OUT" | jq -c --arg d "$SIM" '.leases[] | select(.ifname==$d and .id==2) | .stats')
expect_eq "$got" "$want" "the same counters seen from the pod"
expect_rc 0 "show leases -s text" -n "$HOST" -s show leases
expect_match "$OUT" "$SIM queue 2 -> nkp .* rx-packets [0-9]+" "text names the pod side and the counters"

# netkit has no per-queue stats (qstats-get is EOPNOTSUPP there): device
# counters only, nothing invented, no error.
expect_rc 0 "show -s on netkit" -n "$POD" -s -j show dev nkp
expect_eq "$(printf '%s' "$OUT" | jq -c '[.devices[0] | (.stats64 | has("rx")), ([.queues[] | select(.stats)] | length)]')" \
	'[true,0]' "netkit: stats64, no queue stats"

# The leased queue grows with the traffic steered to it, and show leases
# attributes that to the lease.
q2_before=$(printf '%s' "$before" | jq '.devices[0].queues[] | select(.type=="rx" and .id==2) | .stats["rx-packets"]')
q2_after=$(printf '%s' "$after" | jq '.devices[0].queues[] | select(.type=="rx" and .id==2) | .stats["rx-packets"]')
[ $((q2_after - q2_before)) -ge 50 ] && pass "the leased queue 2 grew by $((q2_after - q2_before))" ||
	fail "the leased queue 2 grew by $((q2_after - q2_before)), 50 were steered to it"
d_lease=$(( $(lease_rx "$leases") - $(lease_rx "$lease_before") ))
[ "$d_lease" -ge 50 ] && pass "show leases -s: the lease's rx-packets grew by $d_lease" ||
	fail "the lease's rx-packets grew by $d_lease, 50 were steered to its queue"

# Rates over an interval while the remote sends: traffic flows from before
# the interval (the kernel's counter is seen growing) to after it, so every
# rate is at least 1/s, and at most what the kernel counted over the whole
# time (the interval is at least 1 s): bounds from the kernel, none from the
# clock (how fast a loaded VM pings is not nkctl's business).
dev_rx() { ip -n "$HOST" -s -j link show dev "$SIM" | jq '.[0].stats64.rx.packets'; }
ping_flowing() { # starts PINGER; returns once the kernel counts its packets
	local r0
	r0=$(dev_rx)
	ip netns exec "$REMOTE" ping -i 0.05 -W 2 10.20.0.1 > /dev/null 2>&1 &
	pinger=$!
	defer "kill $pinger 2>/dev/null"
	for _ in $(seq 300); do
		[ "$(dev_rx)" -gt "$r0" ] && return 0
		sleep 0.1
	done
	fail "the remote's ping never arrived"
}
ping_stop() { kill "$pinger"; wait "$pinger" 2> /dev/null; }
in_bounds() { # in_bounds WHAT RATE MAX
	[ "$2" -ge 1 ] && [ "$2" -le "$3" ] && pass "$1 $2/s, within 1..$3 (the kernel's count over the whole run)" ||
		fail "$1 $2/s, outside 1..$3 (the kernel's count over the whole run)"
}
ping_flowing
r0=$(dev_rx)
expect_rc 0 "rates" -n "$HOST" -j show dev "$SIM" interval 1 count 1
total=$(( $(dev_rx) - r0 ))
ping_stop
json_valid "rates -j"
in_bounds "device rx rate" "$(printf '%s' "$OUT" | jq .devices[0].stats64.rx.packets)" "$total"
in_bounds "queue rx rate" "$(sum_rx "$OUT")" "$total"

# The same for the leases: the lease's rate is its queue's, the traffic's.
ping_flowing
r0=$(dev_rx)
expect_rc 0 "lease rates" -n "$HOST" -j show leases interval 1 count 1
total=$(( $(dev_rx) - r0 ))
ping_stop
json_valid "show leases interval -j"
expect_eq "$(printf '%s' "$OUT" | jq .interval)" 1 "the document says the interval"
in_bounds "the lease's rx rate" "$(lease_rx "$OUT")" "$total"
expect_rc 0 "lease rates as text" -n "$HOST" show leases interval 1 count 1
expect_match "$OUT" "counters per second over 1 s" "text says they are rates"
done_testing
