#!/bin/bash
# tier: host
# Hardware tier, opt-in: real devmem bindings on a NIC that can DMA (mlx5,
# bnxt, gve with header split). Set NKCTL_TEST_NIC=ethX (in the initial
# namespace; it is used, not moved) and optionally NKCTL_TEST_QUEUE (default:
# the NIC's last RX queue). The NIC needs tcp-data-split on and hds-thresh 0
# (nkctl nic reserve dev ethX queue N, or ethtool -G ethX tcp-data-split on hds-thresh 0). Without it: SKIP.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq
NIC=${NKCTL_TEST_NIC:-}
[ -n "$NIC" ] || skip "hardware tier: set NKCTL_TEST_NIC=ethX to a devmem-capable NIC (mlx5, bnxt, gve)"
[ -e /dev/udmabuf ] || skip "no /dev/udmabuf"
idx=$($NLPROBE link "$NIC" | jq .ifindex) || fail "no device $NIC"
Q=${NKCTL_TEST_QUEUE:-$($NLPROBE queues "$idx" | jq '[.[] | select(.type=="rx") | .id] | max')}

dmabuf_on_queue() { $NLPROBE queues "$idx" | jq --argjson q "$Q" '[.[] | select(.type=="rx" and .id==$q)][0].dmabuf // 0'; }
wait_released() {
	for _ in $(seq 100); do [ "$(dmabuf_on_queue)" = 0 ] && return 0; sleep 0.1; done
	return 1
}
defer "$NKCTL unbind dev $NIC >/dev/null 2>&1"

expect_rc 0 "bind-rx on $NIC queue $Q" -j bind-rx dev "$NIC" queue "$Q" dmabuf udmabuf size 64M
id=$(printf '%s' "$OUT" | jq .bindings[0].id)
pid=$(printf '%s' "$OUT" | jq .bindings[0].holder.pid)
expect_eq "$(dmabuf_on_queue)" "$id" "queue-get shows the binding on the queue"
expect_rc 0 "show bindings" -j show bindings dev "$NIC"
expect_eq "$(printf '%s' "$OUT" | jq -c "[.bindings[] | select(.id==$id) | [.holder.alive, [.queues[].id]]]")" "[[true,[$Q]]]" "show lists it"
kill -KILL "$pid"
wait_released || fail "SIGKILL of the holder did not release the binding"
pass "SIGKILL of the holder releases the binding (queue-get no longer shows it)"
expect_rc 0 "show after SIGKILL" -j show bindings dev "$NIC"
expect_eq "$(printf '%s' "$OUT" | jq -c "[.bindings[] | select(.id==$id) | .holder.alive]")" "[false]" "shown stale, not alive"
expect_error 3 "unbind the stale one" unbind id "$id"

expect_rc 0 "bind-rx again" -j bind-rx dev "$NIC" queue "$Q" dmabuf udmabuf size 64M
id=$(printf '%s' "$OUT" | jq .bindings[0].id)
expect_rc 0 "unbind" -j unbind id "$id"
wait_released || fail "unbind did not release the binding"
pass "unbind releases the binding"

expect_rc 0 "bind-tx on $NIC" -j bind-tx dev "$NIC" dmabuf udmabuf size 64M
id=$(printf '%s' "$OUT" | jq .bindings[0].id)
expect_rc 0 "show the TX binding" -j show bindings id "$id"
expect_eq "$(printf '%s' "$OUT" | jq -r '.bindings[0].direction')" tx "a TX binding"
expect_rc 0 "unbind it" unbind id "$id"
done_testing
