#!/bin/bash
# tier: vm
# timeout: 600
# cni/nkctl-cni driven as a container runtime drives it: through
# libcni (helpers/cnitool, AddNetworkList / CheckNetworkList / DelNetworkList
# with a conflist), with host-local as the delegated IPAM: three pods on one
# netdevsim NIC, each with its netkit pair, its lease from the pool (out of
# RSS, its address flow-steered to it), its NIC route and egress redirect; a
# linked netdevsim pings each. CHECK passes and fails precisely when tampered
# with; DEL of one leaves the others working, DEL without nkctl does what
# it can; VERSION, STATUS, GC with
# valid attachments (one nkctl process for every stale pod), which leaves
# another network of the same name on another NIC whole, a 0.4.0
# configuration, ADD of an existing interface; an exhausted pool (11) and
# repeated ADD/DEL with the namespace gone before DEL leave nothing behind.
# The error paths libcni cannot provoke (a bad cniVersion, a configuration
# without IPAM) run the plugin directly with CNI_* variables.
. "$TESTSUITE/lib.sh"
. "$TESTSUITE/cni.sh"
topo_nic_remote
conf() { # conf [CNIVERSION]: the network configuration
	jq -cn --arg nic "$SIM" --arg dir "$IPAMDIR" --arg v "${1:-1.0.0}" '{cniVersion: $v,
		name: "nk", type: "nkctl-cni", nic: $nic, queues: "1-3", queuesPerPod: 1,
		ipam: {type: "host-local", dataDir: $dir,
			ranges: [[{subnet: "10.20.0.0/16", gateway: "10.20.0.1"}]],
			routes: [{dst: "0.0.0.0/0"}]}}'
}
CONF=$(conf)
cni_conflist "$T_TMP/nk.conflist" "$CONF"

raw() { # raw COMMAND CONTAINER NETNS [CONF]: the plugin itself, in HOST; sets RC, OUT
	# (an empty CONTAINER: no CNI_CONTAINERID, CNI_NETNS nor CNI_IFNAME, as for STATUS)
	if [ -n "$2" ]; then
		set -- "$1" "$2" "$3" "${4:-$CONF}" CNI_CONTAINERID="$2" CNI_NETNS="$3" CNI_IFNAME=eth0
	else
		set -- "$1" "$2" "$3" "${4:-$CONF}"
	fi
	OUT=$(printf '%s' "$4" | nsenter --net="/run/netns/$HOST" env CNI_COMMAND="$1" "${@:5}" \
		CNI_PATH="$T_TMP/bin" NKCTL="$NKCTL" "$PLUGIN" 2> "$T_TMP/cni.err")
	RC=$?
	cni_keep "$1 $2"
}

# The protocol's own answers.
OUT=$(env CNI_PATH="$T_TMP/bin" "$CNITOOL" version "$T_TMP/nk.conflist")
expect_eq "$(printf '%s' "$OUT" | jq -c .supportedVersions)" '["0.3.0","0.3.1","0.4.0","1.0.0","1.1.0"]' \
	"VERSION (asked by libcni) lists what it speaks"
raw VERSION "" "" "$(conf 0.4.0)"
expect_eq "$(printf '%s' "$OUT" | jq -r .cniVersion)" 0.4.0 "VERSION answers in the version asked"
raw STATUS "" "" "$(conf 1.1.0)"
expect_eq "$RC $OUT" "0 " "STATUS (no container) succeeds: nkctl, the kernel, the NIC up, the pool free"
raw ADD c0 /nonexistent "$(conf 0.2.0)"
expect_eq "$RC" 1 "an incompatible cniVersion fails"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.code, (.msg | test("^Error") | not)]')" '[1,true]' \
	"with CNI error 1 and a message without nkctl's prefix"
raw ADD c0 /nonexistent "$(jq -c 'del(.ipam)' <<<"$CONF")"
expect_eq "$(printf '%s' "$OUT" | jq -c .code)" 7 "a configuration without ipam is error 7"

# Three pods.
PODS=() CIDS=() RES=()
for i in 1 2 3; do
	ns_new P
	PODS[$i]=$P CIDS[$i]=pod$i$RANDOM
	cni ADD "${CIDS[$i]}" "/run/netns/$P"
	[ "$RC" = 0 ] || fail "ADD pod $i: $OUT $(cat "$T_TMP/cni.err")"
	RES[$i]=$OUT
	expect_eq "$(printf '%s' "$OUT" | jq -c '[.cniVersion, (.interfaces | length), .interfaces[1].name,
		.interfaces[1].sandbox, .interfaces[2].sandbox, .ips[0].interface, .ips[0].gateway, [.routes[].dst]]')" \
		"[\"1.0.0\",3,\"eth0\",\"/run/netns/$P\",\"/run/netns/$P\",1,\"10.20.0.1\",[\"0.0.0.0/0\"]]" \
		"pod $i: the result has the pair and the holder, ips and IPAM's routes"
done
addrs=$(for i in 1 2 3; do printf '%s' "${RES[$i]}" | jq -r '.ips[0].address'; done | sort -u | wc -l)
expect_eq "$addrs" 3 "host-local gave three addresses"
expect_eq "$(reservations)" 3 "three IPAM reservations"
nk -n "$HOST" -j show leases
expect_eq "$(printf '%s' "$OUT" | jq -c --arg s "$SIM" '[.leases[] | select(.ifname == $s) | .id] | sort')" '[1,2,3]' \
	"each pod leased its own queue of the pool"
nk -n "$HOST" -j nic show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0].rss.queues[] | select(. >= 1 and . <= 3)]')" '[]' \
	"the pool's leased queues are out of RSS"
RULES=$OUT
for i in 1 2 3; do
	a=$(printf '%s' "${RES[$i]}" | jq -r '.ips[0].address | split("/")[0]')
	expect_eq "$(printf '%s' "$RULES" | jq -c --arg a "$a" '[.nics[0].rules[] | select(.dst == $a) |
		.queue] | length == 1 and .[0] >= 1 and .[0] <= 3')" true "pod $i's address is steered to a queue of the pool"
done
for i in 1 2 3; do
	a=$(printf '%s' "${RES[$i]}" | jq -r '.ips[0].address | split("/")[0]')
	ping_ok "$REMOTE" "$a" || fail "the remote cannot reach pod $i ($a)"
	ping_ok "${PODS[$i]}" 10.10.2.2 || fail "pod $i cannot reach the remote"
	pass "pod $i and the remote reach each other (ingress through nkctl's NIC route, egress through the host)"
	cni CHECK "${CIDS[$i]}" "/run/netns/${PODS[$i]}"
	expect_eq "$RC $OUT" "0 " "pod $i: CHECK passes"
done

# The pool is exhausted: a fourth ADD fails and leaves nothing behind.
ns_new P4
cni ADD pod4 "/run/netns/$P4"
expect_eq "$RC $(printf '%s' "$OUT" | jq .code)" "1 11" "ADD with the pool exhausted fails with 11 (try again later)"
expect_match "$(printf '%s' "$OUT" | jq -r .msg)" 'pool 1-3 of .* is exhausted' "says the pool is exhausted"
expect_eq "$(ip -n "$P4" -o link show | grep -vc ': lo:')" 0 "nothing left in its namespace"
expect_eq "$(reservations)" 3 "its IPAM reservation was released"
raw STATUS "" "" "$(conf 1.1.0)"
expect_eq "$RC $(printf '%s' "$OUT" | jq -c '[.code, (.msg | test("exhausted"))]')" "1 [50,true]" \
	"STATUS with the pool exhausted: 50, saying why"

# ADD for an interface the container has already is an error (the spec)
# that changes nothing.
raw ADD "${CIDS[1]}" "/run/netns/${PODS[1]}"
expect_eq "$RC $(printf '%s' "$OUT" | jq -c '[.code, (.msg | test("already exists"))]')" "1 [100,true]" \
	"ADD again for the same interface is an error"
expect_eq "$(ip -n "$HOST" -o link show | grep -c 'nk[0-9a-f]\{10\}@')" 3 "still one pair per pod"
expect_eq "$(reservations)" 3 "and the same IPAM reservations"
a1=$(printf '%s' "${RES[1]}" | jq -r '.ips[0].address | split("/")[0]')
ping_ok "$REMOTE" "$a1" || fail "pod 1 after a second ADD"
pass "pod 1 works after a second ADD"
# 0.4.0: the result's ips carry their version; CHECK of it passes.
ns_new P5
raw ADD c5 "/run/netns/$P5" "$(conf 0.4.0 | jq -c '.queues = null')"
expect_eq "$RC $(printf '%s' "$OUT" | jq -c '[.cniVersion, .ips[0].version, .ips[0].interface]')" \
	'0 ["0.4.0","4",1]' "a 0.4.0 configuration gets a 0.4.0 result"
raw DEL c5 "/run/netns/$P5" "$(conf 0.4.0 | jq -c '.queues = null')"
expect_eq "$RC" 0 "and its DEL succeeds"

# Tampering fails CHECK precisely.
host3=$(printf '%s' "${RES[3]}" | jq -r '.interfaces[0].name')
nk -n "$HOST" redirect detach dev "$SIM" to "$host3"
cni CHECK "${CIDS[3]}" "/run/netns/${PODS[3]}"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.code, (.msg | test("does not route"))]')" '[100,true]' \
	"CHECK names the missing NIC route"
a3=$(printf '%s' "${RES[3]}" | jq -r '.ips[0].address | split("/")[0]')
nk -n "$HOST" -j steer show dev "$SIM"
nk -n "$HOST" steer del dev "$SIM" id "$(printf '%s' "$OUT" | jq --arg a "$a3" '.nics[0].rules[] | select(.dst == $a) | .id')"
cni CHECK "${CIDS[3]}" "/run/netns/${PODS[3]}"
expect_match "$(printf '%s' "$OUT" | jq -r .msg)" "does not steer $a3" "CHECK names the missing steering rule"
ip -n "${PODS[3]}" addr flush dev eth0
cni CHECK "${CIDS[3]}" "/run/netns/${PODS[3]}"
expect_match "$(printf '%s' "$OUT" | jq -r .msg)" 'does not have' "CHECK names the missing address"

# DEL of pod 2 leaves pods 1 and 3's pieces alone.
cni DEL "${CIDS[2]}" "/run/netns/${PODS[2]}"
[ "$RC" = 0 ] || fail "DEL pod 2: $OUT $(cat "$T_TMP/cni.err")"
ping_ok "$REMOTE" "$a1" || fail "pod 1 after pod 2's DEL"
pass "pod 1 still works after pod 2's DEL"
cni CHECK "${CIDS[1]}" "/run/netns/${PODS[1]}"
expect_eq "$RC" 0 "pod 1 CHECK after pod 2's DEL"
expect_eq "$(reservations)" 2 "pod 2's address was released"
cni DEL "${CIDS[2]}" "/run/netns/${PODS[2]}"
expect_eq "$RC" 0 "a repeated DEL succeeds"

# DEL without nkctl (removed before the runtime's last DELs): what needs no
# nkctl goes (the pair, the address, the information file); the holder stays
# for nkctl, which alone deletes one, once its leases end. A DEL with nkctl
# then finishes.
cni ADD nonk "/run/netns/${PODS[2]}"
[ "$RC" = 0 ] || fail "ADD for the DEL without nkctl: $OUT $(cat "$T_TMP/cni.err")"
NKCTL=/nonexistent/nkctl cni DEL nonk "/run/netns/${PODS[2]}"
expect_eq "$RC $OUT" "0 " "DEL without nkctl succeeds"
expect_eq "$(ip -n "${PODS[2]}" -o link show | grep -c ': eth0@')" 0 "it deleted the pair"
expect_eq "$(reservations)" 2 "and released the address"
expect_eq "$(ip -n "${PODS[2]}" -o link show | grep -c ': nl[0-9a-f]\{10\}')" 1 "the holder is left to nkctl"
cni DEL nonk "/run/netns/${PODS[2]}"
expect_eq "$RC" 0 "DEL with nkctl after it"
expect_eq "$(ip -n "${PODS[2]}" -o link show | grep -c ': nl[0-9a-f]\{10\}')" 0 "which ended the holder's leases"
for i in 1 3; do
	cni DEL "${CIDS[$i]}" "/run/netns/${PODS[$i]}"
	expect_eq "$RC" 0 "DEL pod $i"
done

# GC: three pods (with egress redirects), the runtime knows only the first;
# another network's marked device stays.
GP=() GC_IDS=()
cni_conflist "$T_TMP/gc.conflist" "$(printf '%s' "$CONF" | jq -c '.egressRedirect = true')"
for i in 1 2 3; do
	ns_new P
	GP[$i]=$P GC_IDS[$i]=gc$i$RANDOM
	cni ADD "${GC_IDS[$i]}" "/run/netns/$P" "$T_TMP/gc.conflist"
	[ "$RC" = 0 ] || fail "ADD gc pod $i: $OUT $(cat "$T_TMP/cni.err")"
	[ "$i" = 1 ] && gchost=$(printf '%s' "$OUT" | jq -r '.interfaces[0].name')
done
ip -n "$HOST" link add nkt-other type dummy
ip -n "$HOST" link set nkt-other alias "nkctl-cni other ${GC_IDS[2]} eth0 -"
# nkctl through a wrapper that counts its processes: GC's is one batch.
printf '#!/bin/sh\necho "$*" >> %s/nkctl.calls\nexec %s "$@"\n' "$T_TMP" "$NKCTL" > "$T_TMP/nkctl-counted"
chmod +x "$T_TMP/nkctl-counted"
NKCTL=$T_TMP/nkctl-counted raw GC "" "" "$(conf 1.1.0 | jq -c --arg c "${GC_IDS[1]}" '. + {"cni.dev/valid-attachments": [{containerID: $c, ifname: "eth0"}]}')"
expect_eq "$RC $OUT" "0 " "GC with one valid attachment of three succeeds"
expect_eq "$(cat "$T_TMP/nkctl.calls")" "-j -force -batch -" "GC ran one nkctl process (a batch) for both stale pods"
expect_eq "$(ip -n "$HOST" -o link show | grep -c 'nk[0-9a-f]\{10\}@')" 1 "GC removed the two stale pairs"
expect_eq "$(ip -n "${GP[2]}" -o link show | grep -vc ': lo:')" 0 "a stale pod's interface and holder are gone"
nk -n "$HOST" -j show leases
expect_eq "$(printf '%s' "$OUT" | jq '[.leases[] | select(.ifname == "'"$SIM"'")] | length')" 1 "only the valid pod's lease is left"
expect_eq "$(reservations)" 1 "and only its IPAM reservation"
nk -n "$HOST" -j redirect show
expect_eq "$(printf '%s' "$OUT" | jq -c --arg s "$SIM" '[([.redirects[].ifname] | sort), [.redirects[] | select(.ifname == $s) | .routes[].target.ifname]]')" \
	"$(jq -cn --arg s "$SIM" --arg h "$gchost" '[([$s, $h] | sort), [$h]]')" \
	"only the valid pod's NIC route and egress redirect are left"
expect_eq "$(ip -n "$HOST" -o link show nkt-other | wc -l)" 1 "another network's device is not touched"
ip -n "$HOST" link del nkt-other
cni CHECK "${GC_IDS[1]}" "/run/netns/${GP[1]}" "$T_TMP/gc.conflist"
expect_eq "$RC $OUT" "0 " "the valid pod's CHECK passes after GC"
cni DEL "${GC_IDS[1]}" "/run/netns/${GP[1]}" "$T_TMP/gc.conflist"
expect_eq "$RC" 0 "DEL of the valid pod"

# Two networks of one name on two NICs (two runtimes, two configuration
# directories): GC of the one on $SIM with no valid attachment leaves the
# pod of the other, on C, whole.
sim_new C "$HOST" 4
CONF_C=$(conf | jq -c --arg c "$C" --arg dir "$T_TMP/ipam-c" '.nic = $c | .ipam.dataDir = $dir')
cni_conflist "$T_TMP/c.conflist" "$CONF_C"
ns_new PC
cni ADD c1 "/run/netns/$PC" "$T_TMP/c.conflist"
[ "$RC" = 0 ] || fail "ADD on the other network of that name: $OUT $(cat "$T_TMP/cni.err")"
raw GC "" "" "$(conf 1.1.0 | jq -c '. + {"cni.dev/valid-attachments": []}')"
expect_eq "$RC $OUT" "0 " "GC of the network on $SIM, no attachment valid"
cni CHECK c1 "/run/netns/$PC" "$T_TMP/c.conflist"
expect_eq "$RC $OUT" "0 " "the pod of the network of the same name on $C still passes CHECK"
nk -n "$HOST" -j show leases
expect_eq "$(printf '%s' "$OUT" | jq --arg c "$C" '[.leases[] | select(.ifname == $c)] | length')" 1 "and keeps its lease"
cni DEL c1 "/run/netns/$PC" "$T_TMP/c.conflist"
expect_eq "$RC" 0 "its DEL"

# 20 ADD/DEL cycles (rounds), the namespace deleted before DEL: nothing is left.
CYCLES=$(rounds 20)
for n in $(seq "$CYCLES"); do
	ip netns add "nkt-cni-cycle-$$"
	cni ADD "cycle$n" "/run/netns/nkt-cni-cycle-$$"
	[ "$RC" = 0 ] || { ip netns del "nkt-cni-cycle-$$"; fail "cycle $n ADD: $OUT $(cat "$T_TMP/cni.err")"; }
	ip netns del "nkt-cni-cycle-$$"
	t0=$SECONDS
	cni DEL "cycle$n" "/run/netns/nkt-cni-cycle-$$"
	echo "# cycle $n: DEL took $((SECONDS - t0)) s"
	[ "$RC" = 0 ] || fail "cycle $n DEL: $OUT $(cat "$T_TMP/cni.err")"
done
pass "$CYCLES ADD/DEL cycles with the namespace gone before DEL"
expect_eq "$(ip -n "$HOST" -o link show | grep -c 'nk[0-9a-f]\{10\}')" 0 "no device left"
# The kernel deletes a namespace's devices, and so ends their leases, from a
# workqueue a little after "ip netns del" returns: wait for that (60 s).
for _ in $(seq 120); do
	nk -n "$HOST" -j show leases
	[ "$(printf '%s' "$OUT" | jq --arg s "$SIM" '[.leases[] | select(.ifname == $s)] | length')" = 0 ] && break
	sleep 0.5
done
expect_eq "$(printf '%s' "$OUT" | jq --arg s "$SIM" '[.leases[] | select(.ifname == $s)] | length')" 0 "no lease left once the kernel has deleted the namespaces"
nk -n "$HOST" -j redirect show
expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[] | .ifname]')" '[]' "no route or redirect left"
expect_eq "$(reservations)" 0 "no IPAM reservation left"
nk -n "$HOST" -j nic show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '[(.nics[0].rules | length), ([.nics[0].queues[] | select(.reserved)] | length)]')" \
	'[0,0]' "no steering rule or reserved queue left"
expect_eq "$(pgrep -fc 'nkctl.*bind' || true)" 0 "no holder left"
done_testing
