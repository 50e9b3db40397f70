#!/bin/bash
# tier: vm
# alone: yes (its lease gone behind nkctl's back must still be recorded when doctor looks: another test's nkctl would sweep it first)
# nkctl doctor on a whole pod (issue 16, part 3): a netkit pair nkh/nkp (peer
# in POD), a single lease holder in POD with queue 3 of a netdevsim NIC
# (reserve + steer), redirects both ways, and a devmem binding on the leased
# queue (helpers/nkctl-fakebind: no NIC here can DMA). The correct pod passes
# every check; each broken variant fails exactly its check, and running the
# fix doctor prints makes it pass again. One topology throughout.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq ip
FAKE=${NKCTL_HELPERS:-$(dirname "$NKCTL")/helpers}/nkctl-fakebind

topo_nic_remote
sim_idx=$(ifindex_of "$HOST" "$SIM")
nk -n "$HOST" -j nic show dev "$SIM"
[ "$(printf '%s' "$OUT" | jq -r '.nics[0] | has("rss")')" = true ] ||
	skip "this netdevsim has no RSS indirection table (the VM's test patch is missing)"

# The pod's namespace has a space and a quote in its name: each fix that
# names it goes through eval (run_fix), as a command pasted into a shell.
POD="nkt-doctor-$$-$RANDOM pod's ns"
ip netns add "$POD" || fail "cannot create netns $POD"
defer 'ip netns pids "$POD" | xargs -r kill -9; rm -rf "/sys/fs/bpf/nkctl/net$(stat -L -c %i "/run/netns/$POD")"; ip netns del "$POD"'
ip -n "$POD" link set lo up
nk -n "$HOST" link add nkh peer nkp peer-netns "$POD"
expect_eq "$RC" 0 "a netkit pair, the peer in the pod"
nk -n "$POD" link add hold type single rxqueues 2
expect_eq "$RC" 0 "a single lease holder in the pod"
ip -n "$HOST" addr add 10.20.1.1/24 dev nkh
ip -n "$HOST" link set nkh up
ip -n "$POD" addr add 10.20.1.2/24 dev nkp
ip -n "$POD" addr add fd20::2/64 dev nkp nodad
ip -n "$POD" link set nkp up
ip -n "$POD" link set hold up
ip -n "$POD" route add default via 10.20.1.1
expect_rc 0 "lease with reserve and steer" -n "$POD" lease dev hold from "$SIM" phys-netns "$HOST" queue 3 reserve steer dst 10.20.1.2,fd20::2
expect_rc 0 "pod egress" -n "$HOST" redirect attach dev nkh to "$SIM"
expect_rc 0 "pod ingress" -n "$HOST" redirect attach dev "$SIM" to nkh prefix 10.20.1.2/32 prefix fd20::2/128

# doctor_ok DESC: every check of the pod passes, exit 0.
doctor_ok() {
	nk -n "$HOST" -j doctor dev nkh
	[ "$RC" = 0 ] || fail "$1: doctor exited $RC: $(printf '%s' "$OUT" | jq -c '[.doctor.pods[0].checks[] | select(.status != "ok")]')"
	expect_eq "$(printf '%s' "$OUT" | jq -c '[.doctor.checks[], .doctor.pods[0].checks[] | select(.status != "ok")]')" '[]' "$1: every check passes"
}

# run_fix FIX [NKCTL]: run the fix doctor printed, nkctl being NKCTL.
run_fix() {
	local bin=${2:-$NKCTL}
	eval "${1//nkctl /$bin }" > /dev/null 2> "$T_TMP/fixerr" || fail "the fix \"$1\" failed: $(cat "$T_TMP/fixerr")"
}

# broken CHECK DESC [NKCTL]: doctor fails CHECK and nothing else, exit 7;
# its fix, run (nkctl being NKCTL), makes doctor pass again.
broken() {
	local check=$1 desc=$2 fix
	nk -n "$HOST" -j doctor dev nkh
	expect_eq "$RC" 7 "$desc: doctor exits 7"
	expect_eq "$(printf '%s' "$OUT" | jq -c '[.doctor.pods[0].checks[] | select(.status == "fail") | .check] | unique')" \
		"[\"$check\"]" "$desc: only $check fails"
	fix=$(printf '%s' "$OUT" | jq -r '[.doctor.pods[0].checks[] | select(.status == "fail") | .fix][0] // empty')
	[ -n "$fix" ] || fail "$desc: no fix printed: $OUT"
	pass "$desc: fix: $fix"
	run_fix "$fix" "${3:-}"
	doctor_ok "$desc, fixed"
}

doctor_ok "the correct pod"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.doctor.pods[0].checks[].check] | unique')" \
	'["device","egress-redirect","forwarding","ingress-route","lease","mtu","nic","rss","steering"]' \
	"every check family ran"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.doctor.pods[0].checks[] | select(.check == "steering" or .check == "ingress-route")] | length')" 4 \
	"steering and ingress route checked for each address, IPv4 and IPv6"
expect_rc 0 "text output" -n "$HOST" doctor dev nkh
printf '%s\n' "$OUT" | sed 's/^/# /'
expect_match "$OUT" '^  ok +egress-redirect +nkh sends the pod.s packets to sim' "one line per check"
expect_match "$OUT" '0 failed, 0 warnings \(1 pod\)' "a summary"

# 1. egress redirect missing
expect_rc 0 "break: detach the pod's egress" -n "$HOST" redirect detach dev nkh
nk -n "$HOST" doctor dev nkh
expect_match "$OUT" 'fix: nkctl -n [^ ]+ redirect attach dev nkh to sim' "the text names the fix"
broken egress-redirect "egress redirect missing"

# 2. the NIC routes the pod's address to another pod
ns_new POD2
nk -n "$HOST" link add nkh2 peer nkp2 peer-netns "$POD2"
expect_eq "$RC" 0 "another pod"
expect_rc 0 "break: its route takes the address" -n "$HOST" redirect attach dev "$SIM" to nkh2 prefix 10.20.1.2/32 replace
broken ingress-route "NIC route to another pod"
expect_rc 0 "the NIC's routes after the fix" -n "$HOST" -j redirect show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[0].routes[] | select(.target.ifname == "nkh") | .prefixes | sort][0]')" \
	'["10.20.1.2/32","fd20::2/128"]' "the fix kept the pod's other route"

# 3. the leased queue back in RSS (before the binding: release restores
# the NIC's own header split with the last reserved queue)
expect_rc 0 "break: release queue 3" -n "$HOST" nic release dev "$SIM" queue 3 force
broken rss "queue still in RSS"

# 4. MTU mismatch
ip -n "$POD" link set nkp mtu 1400 || fail "cannot change the peer's MTU"
nk -n "$HOST" -j doctor dev nkh
expect_match "$(printf '%s' "$OUT" | jq -r '.doctor.pods[0].checks[] | select(.check == "mtu") | .fix')" \
	"^ip -n 'nkt-doctor-[0-9-]+ pod'\\\\''s ns' link set dev nkp mtu [0-9]+\$" \
	"the fix quotes the pod's namespace (a space and a quote in its name)"
broken mtu "MTU mismatch"

# The binding (a fake one: no NIC here can DMA).
if [ -e /dev/udmabuf ] && [ -x "$FAKE" ]; then
	NKCTL=$FAKE nk -n "$POD" -j bind-rx dev hold queue 1 dmabuf udmabuf size 4M
	expect_eq "$RC" 0 "a binding on the leased queue"
	pid=$(printf '%s' "$OUT" | jq .bindings[0].holder.pid)
	defer "kill $pid"
	doctor_ok "with a binding"
	expect_eq "$(printf '%s' "$OUT" | jq -c '[.doctor.pods[0].checks[].check] | unique | map(select(. == "binding" or . == "header-split" or . == "xdp"))')" \
		'["binding","header-split","xdp"]' "the binding's checks ran"

	# 5. tcp-data-split off under a bound queue
	$NLPROBE -n "$HOST" rings-set "$sim_idx" tcp-data-split off > /dev/null || fail "rings-set"
	broken header-split "tcp-data-split off"

	# 6. the binding's holder killed
	kill -KILL "$pid"
	while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
	broken binding "holder killed" "$FAKE"
	nk -n "$POD" -j show bindings
	pid=$(printf '%s' "$OUT" | jq '.bindings[0].holder.pid')
	defer "kill $pid"
	expect_rc 0 "unbind before the lease goes" -n "$POD" unbind dev hold
else
	skip_part bindings "no /dev/udmabuf or $FAKE: the binding variants are not run"
fi

# 7. the lease gone: its holder deleted behind nkctl's back
ip -n "$POD" link del hold || fail "cannot delete the holder"
# The kernel ends the lease with the holder; on a loaded machine the queue
# the binding just left may show it a moment longer (bounded wait).
for _ in $(seq 100); do
	[ "$($NLPROBE -n "$HOST" queues "$sim_idx" | jq '[.[] | select(.type == "rx" and .lease != null)] | length')" = 0 ] && break
	sleep 0.1
done
broken lease "lease gone"
expect_rc 0 "show leases after the fix" -n "$POD" -j show leases
expect_eq "$(printf '%s' "$OUT" | jq -c "[.leases[] | select(.ifname == \"$SIM\" and .id == 3) | [.lease.ifname, .reserved, .rss, [.rules[].dst]]]")" \
	'[["nkl'"$(ifindex_of "$HOST" nkh)"'",true,false,["10.20.1.2","fd20::2"]]]' "the new lease owns the reservation and its rules, the old ones are gone"
expect_rc 0 "nic show after the fix" -n "$HOST" -j nic show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0].rules[] | [.dst, .queue]] | sort')" '[["10.20.1.2",3],["fd20::2",3]]' "one rule per pod address"

# Without dev: every primary here, the other pod too (which has no redirect).
nk -n "$HOST" -j doctor
expect_eq "$RC" 7 "doctor of every pod: the other pod fails"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.doctor.pods[].ifname]')" '["nkh","nkh2"]' "both primaries"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.doctor.pods[0].checks[] | select(.status == "fail")]')" '[]' "the pod itself still passes"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.doctor.pods[1].checks[] | [.check, .status]]')" \
	'[["device","fail"],["mtu","ok"],["lease","ok"],["egress-redirect","not-checked"],["ingress-route","not-checked"],["forwarding","not-checked"]]' \
	"the other pod: down, no lease, so its redirects are not checked rather than guessed"
expect_eq "$(printf '%s' "$OUT" | jq -r '.doctor.pods[1].checks[0].fix')" "ip -n $HOST link set dev nkh2 up" "its fix"

# Refusals.
expect_error 5 "the peer" -n "$POD" doctor dev nkp
expect_error 3 "no such device" -n "$HOST" doctor dev nope
expect_error 5 "a NIC" -n "$HOST" doctor dev "$SIM"
done_testing
