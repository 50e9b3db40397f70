#!/bin/bash
# tier: vm
# Faults while leases, redirect pins and binding holders exist: the netkit
# device deleted, the netdevsim NIC removed, the pod's namespace deleted.
# Afterwards show is truthful, attach heals defunct pins, unlease and unbind
# report "not found" cleanly, and nothing is left running. Holders run in
# helpers/nkctl-fakebind (no NIC here can DMA; see bind-holder.t).
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq
[ -e /dev/udmabuf ] || skip "no /dev/udmabuf"
FAKE=${NKCTL_HELPERS:-$(dirname "$NKCTL")/helpers}/nkctl-fakebind
nkf() { NKCTL=$FAKE nk "$@"; }
wait_gone() { for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done; return 1; }
state_of() { grep -l "^netns-ino $(stat -L -c %i "/run/netns/$1")\$" /run/nkctl/bindings/* 2>/dev/null; }

# setup NAME: HOST with a NIC, a pair nkh/nkp (nkp in POD) holding NIC queue 3,
# a redirect on nkh (to the NIC) and on the NIC (to nkh), a holder on nkp.
setup() {
	ns_new HOST
	ns_new POD
	sim_new SIM "$HOST" 4
	nk -n "$HOST" link add nkh peer nkp peer-netns "$POD" rxqueues 3
	ip -n "$HOST" link set nkh up
	ip -n "$POD" link set nkp up
	expect_rc 0 "$1: lease" -n "$POD" lease dev nkp from "$SIM" phys-netns "$HOST" queue 3
	expect_rc 0 "$1: redirect on the netkit primary" -n "$HOST" redirect attach dev nkh to "$SIM"
	expect_rc 0 "$1: redirect on the NIC" -n "$HOST" redirect attach dev "$SIM" to nkh prefix 10.9.0.0/24
	nkf -n "$POD" -j bind-rx dev nkp queue 1 dmabuf udmabuf size 4M
	expect_eq "$RC" 0 "$1: a binding on the leased queue"
	HOLDER=$(printf '%s' "$OUT" | jq .bindings[0].holder.pid)
	nkh_idx=$(ifindex_of "$HOST" nkh)
}

# --- 1. the netkit pair is deleted
setup "netkit deleted"
ip -n "$HOST" link del nkh
wait_gone "$HOLDER" || fail "the holder outlived its device"
pass "netkit deleted: the holder ends"
expect_eq "$(state_of "$POD")" "" "netkit deleted: its state is removed"
expect_eq "$(lease_of "$HOST" "$SIM" 3)" null "netkit deleted: the kernel ended the lease"
expect_rc 0 "netkit deleted: show leases" -n "$HOST" -j show leases
expect_eq "$(printf '%s' "$OUT" | jq --arg s "$SIM" '[.leases[] | select(.ifname==$s)] | length')" 0 "netkit deleted: no lease of the NIC shown"
expect_rc 0 "netkit deleted: show bindings" -n "$POD" -j show bindings
expect_eq "$OUT" '{"bindings":[]}' "netkit deleted: no binding shown"
expect_rc 0 "netkit deleted: redirect show" -n "$HOST" -j redirect show
expect_eq "$(printf '%s' "$OUT" | jq -c "[.redirects[] | select(.ifindex==$nkh_idx) | .defunct]")" '[true]' "netkit deleted: its pin is shown defunct"
expect_eq "$(printf '%s' "$OUT" | jq -c "[.redirects[] | select(.ifname==\"$SIM\") | .routes[] | [.target.ifindex, .defunct]]")" "[[$nkh_idx,true]]" "netkit deleted: the NIC's route still names the old target, defunct"
expect_error 3 "netkit deleted: unlease" -n "$POD" unlease dev nkp
expect_error 3 "netkit deleted: unbind" -n "$POD" unbind dev nkp
expect_rc 0 "netkit deleted: redirect detach of the gone device, by its name" -n "$HOST" -j redirect detach dev nkh
expect_eq "$(printf '%s' "$OUT" | jq -c '[.detached[] | [.ifindex, .ifname, .["hook-removed"]]]')" "[[$nkh_idx,\"nkh\",true]]" "netkit deleted: the defunct pin is removed, named as recorded"
expect_error 3 "netkit deleted: redirect detach again" -n "$HOST" redirect detach dev nkh
# A new pair: attach heals the defunct pin when the ifindex comes back, and
# the NIC's redirect is re-pointed.
nk -n "$HOST" link add nkh2 peer nkp2 rxqueues 2
expect_error 4 "netkit deleted: the gone target still holds its prefix" -n "$HOST" redirect attach dev "$SIM" to nkh2 prefix 10.9.0.0/24
expect_rc 0 "netkit deleted: re-point the NIC's route with replace" -n "$HOST" -j redirect attach dev "$SIM" to nkh2 prefix 10.9.0.0/24 replace
expect_eq "$(printf '%s' "$OUT" | jq -c '.redirects[0] | [.routes[0].target.ifname, .changed, .replaced, .defunct]')" '["nkh2",true,true,false]' "netkit deleted: moved in the route table"
expect_rc 0 "netkit deleted: redirect show after" -n "$HOST" -j redirect show
expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[] | select(.defunct==false) | .ifname]')" "[\"$SIM\"]" "netkit deleted: only the live pin is live"
run_deferred

# --- 2. the NIC is removed
setup "NIC removed"
sim_idx=$(ifindex_of "$HOST" "$SIM")
echo "$SIM_ID" > /sys/bus/netdevsim/del_device
wait_gone "$HOLDER" || fail "the holder outlived the NIC"
pass "NIC removed: the holder ends (the kernel deleted the netkit pair)"
expect_eq "$(state_of "$POD")" "" "NIC removed: its state is removed"
expect_eq "$(ip -n "$POD" -o link show nkp 2>/dev/null)" "" "NIC removed: the kernel deleted the pair holding its leases"
expect_rc 0 "NIC removed: show" -n "$HOST" -j show
expect_eq "$(printf '%s' "$OUT" | jq -c "[.devices[] | select(.ifname==\"$SIM\" or .ifname==\"nkh\")]")" '[]' "NIC removed: show does not list them"
expect_rc 0 "NIC removed: redirect show" -n "$HOST" -j redirect show
expect_eq "$(printf '%s' "$OUT" | jq -c "[.redirects[] | .defunct] | unique")" '[true]' "NIC removed: both pins defunct"
expect_error 3 "NIC removed: unlease from it" -n "$HOST" unlease from "$SIM" queue 3
expect_error 3 "NIC removed: unbind" -n "$POD" unbind dev nkp
run_deferred

# --- 3. the pod's namespace is deleted
setup "namespace deleted"
# The holder's sockets keep the namespace alive (nkctl-bind(8)): end it first.
ip netns del "$POD"
sleep 0.5
kill -0 "$HOLDER" 2>/dev/null || fail "the holder ended with the namespace's name"
pass "namespace deleted: the holder keeps the namespace (and the lease) alive"
expect_eq "$(lease_of "$HOST" "$SIM" 3 | jq -c '.queue.id')" 1 "namespace deleted: the lease lives while the holder does"
kill -TERM "$HOLDER"
wait_gone "$HOLDER" || fail "holder did not end on SIGTERM"
for _ in $(seq 100); do [ "$(lease_of "$HOST" "$SIM" 3)" = null ] && break; sleep 0.1; done
expect_eq "$(lease_of "$HOST" "$SIM" 3)" null "namespace deleted: once the holder is gone the namespace dies and the lease ends"
expect_rc 0 "namespace deleted: show leases" -n "$HOST" -j show leases
expect_eq "$(printf '%s' "$OUT" | jq --arg s "$SIM" '[.leases[] | select(.ifname==$s)] | length')" 0 "namespace deleted: no lease of the NIC shown"
expect_rc 0 "namespace deleted: redirect show" -n "$HOST" -j redirect show
expect_eq "$(printf '%s' "$OUT" | jq -c "[.redirects[] | select(.ifindex==$nkh_idx) | .defunct]")" '[true]' "namespace deleted: the primary's pin is defunct"
expect_error 3 "namespace deleted: unlease" -n "$HOST" unlease from "$SIM" queue 3
expect_error 3 "namespace deleted: -n of the deleted namespace" -n "$POD" show
[ -z "$(state_files /run/nkctl/bindings)" ] || fail "state left: $(state_files /run/nkctl/bindings)"
pass "namespace deleted: no binding state left"
done_testing
