#!/bin/bash
# tier: vm
# timeout: 420
# The CNI plugin under Debian's containerd 1.6 and ctr run --cni: containerd
# with its root, state and socket in the test's directory (the CRI plugin
# off, its CNI section from cni/README.md checked with config
# dump), a busybox image built offline (helpers/oci-busybox) and imported.
# ctr runs CNI itself (go-cni's defaults: the first configuration in
# /etc/cni/net.d, plugins in /opt/cni/bin, eth0, container id
# "NAMESPACE-ID"): the test puts its conflist and the plugin there, in the
# VM's throw-away overlay. 8 containers started at once each lease a queue
# of the pool, steered to their address, and reach the remote; ctr task kill
# ends each, and its ctr run (--rm, waiting on it) runs DEL: nothing is left.
# Then containerd is killed (-9) during 8 detached starts (ctr run -d: ctr
# never runs their DEL): after its restart, one GC with the running
# containers as valid attachments leaves exactly theirs; once their tasks
# and containers are removed (their namespaces, pairs and aliases gone), a
# GC of none finds them by their pod information files and leaves nothing.
. "$TESTSUITE/lib.sh"
. "$TESTSUITE/cni.sh"
need_cmd containerd ctr runc
[ -x /bin/busybox ] || skip "no busybox"
top=$(cd "$TESTSUITE/.." && pwd)
topo_nic_remote 10

# ctr --cni's fixed places (go-cni's defaults), as the README says.
CONFLIST=/etc/cni/net.d/00-nk-containerd.conflist
[ -e "$CONFLIST" ] && skip "$CONFLIST exists: not overwriting it"
[ -e /opt/cni/bin/nkctl-cni ] || [ -e /opt/cni/bin/host-local ] && skip "/opt/cni/bin has nkctl-cni or host-local"
mkdir -p /etc/cni/net.d /opt/cni/bin
# (and the results ctr's libcni cached for containers whose DEL never ran)
defer "rm -f '$CONFLIST' /opt/cni/bin/nkctl-cni /opt/cni/bin/host-local /var/lib/cni/results/nk-default-[ck][1-8]-eth0"
ln -s "$PLUGIN" /opt/cni/bin/nkctl-cni
ln -s "$CNI_BIN/host-local" /opt/cni/bin/host-local
CONF=$(jq -cn --arg nic "$SIM" --arg dir "$IPAMDIR" --arg info "$T_TMP/info" '{
	cniVersion: "1.0.0", name: "nk", type: "nkctl-cni", nic: $nic, queues: "1-8",
	podInfoDir: $info,
	ipam: {type: "host-local", dataDir: $dir, ranges: [[{subnet: "10.20.0.0/16", gateway: "10.20.0.1"}]],
		routes: [{dst: "0.0.0.0/0"}]}}')
cni_conflist "$CONFLIST" "$CONF"

# The README's containerd 1.x configuration, as written, after the test's
# own top-level keys (TOML: those come before the first table).
CTD=$T_TMP/containerd
mkdir -p "$CTD"
awk '$0 == "<!-- containerd-1.x -->" { want = 1; next }
	want && /^```/ { want = 0; inblock = 1; next }
	inblock && /^```$/ { exit }
	inblock { print }' "$top/cni/README.md" > "$T_TMP/readme.toml"
grep -q 'io.containerd.grpc.v1.cri' "$T_TMP/readme.toml" || fail "no <!-- containerd-1.x --> block in cni/README.md"
{
	printf 'root = "%s"\nstate = "%s"\n' "$CTD/root" "$CTD/state"
	cat "$T_TMP/readme.toml"
	printf '[grpc]\n  address = "%s"\n' "$CTD/sock"
} > "$CTD/config.toml"
OUT=$(containerd --config "$CTD/config.toml" config dump 2>&1) || fail "containerd config dump: $OUT"
expect_eq "$(printf '%s\n' "$OUT" | awk '/^ *\[/ { cni = /grpc.v1.cri".cni\]$/ } cni && /_dir =/ { printf "%s %s;", $1, $3 }')" \
	'bin_dir "/usr/lib/cni";conf_dir "/etc/cni/net.d";' "containerd 1.6 reads the README's CNI bin_dir and conf_dir"
# The daemon itself runs without CRI (no kubelet here; ctr runs CNI).
sed -i '1i disabled_plugins = ["io.containerd.grpc.v1.cri"]' "$CTD/config.toml"

ctd_start() {
	containerd --config "$CTD/config.toml" >> "$CTD/log" 2>&1 &
	CTD_PID=$!
	local i
	for i in $(seq 150); do
		[ -S "$CTD/sock" ] && ctr version > /dev/null 2>&1 && return 0
		sleep 0.2
	done
	fail "containerd did not start: $(tail -n 5 "$CTD/log")"
}
export CONTAINERD_ADDRESS=$CTD/sock CONTAINERD_NAMESPACE=default
# Whatever a failure leaves (newest first): tasks, then containerd, the
# containers' and shims' processes a failed removal left, the snapshotter's
# mounts.
defer "grep -o ' $CTD/[^ ]*' /proc/mounts | sort -r | xargs -r -n 1 umount -l"
defer "cat '$CTD'/state/io.containerd.runtime.v2.task/*/*/{init,shim}.pid | xargs -r kill -9"
defer "kill -9 \$CTD_PID"
defer "ctr task ls -q | xargs -r ctr task rm -f"
t0=$SECONDS
ctd_start
pass "containerd started ($((SECONDS - t0)) s)"
# overlayfs where the root allows it, else native (copies).
SNAP=native
ctr plugins ls | grep -Eq 'snapshotter.v1 +overlayfs .* ok' && SNAP=overlayfs
export CONTAINERD_SNAPSHOTTER=$SNAP
IMAGE=localhost/nk-busybox:1
"$TESTSUITE/helpers/oci-busybox" "$T_TMP/busybox.tar" "$IMAGE" sh ping sleep ||
	fail "cannot build the busybox image"
OUT=$(ctr image import "$T_TMP/busybox.tar" 2>&1) || fail "ctr image import: $OUT"
pass "the offline busybox image imported and unpacked ($SNAP)"

# ctr in HOST, where the NIC is: it runs the plugin (NKCTL reaches it
# through ctr's environment).
hctr() { nsenter --net="/run/netns/$HOST" env NKCTL="$NKCTL" ctr "$@"; }
leases() { nk -n "$HOST" -j show leases; printf '%s' "$OUT" | jq -c --arg s "$SIM" '[.leases[] | select(.ifname == $s) | .id] | sort'; }
# addresses: "CONTAINERID ADDRESS" lines, from host-local's reservations.
# One process: under TCG each costs most of a second.
addresses() {
	local f=("$IPAMDIR"/nk/[0-9]*)
	[ -e "${f[0]}" ] || return 0
	awk 'FNR == 1 { sub(/\r$/, ""); n = FILENAME; sub(/.*\//, "", n); print $0, n }' "${f[@]}" | sort
}
running() { ctr task ls | awk '$3 == "RUNNING" { print $1 }' | sort; }
# gc VALID: the plugin's GC, raw, with VALID (container ids) as
# cni.dev/valid-attachments of eth0.
gc() {
	OUT=$(jq -c --arg v "$1" '.plugins[0] + {cniVersion: "1.1.0", name,
		"cni.dev/valid-attachments": [$v | split(" ")[] | select(. != "") | {containerID: ., ifname: "eth0"}]}' \
		"$CONFLIST" | nsenter --net="/run/netns/$HOST" env CNI_COMMAND=GC CNI_PATH=/opt/cni/bin \
		NKCTL="$NKCTL" "$PLUGIN" 2> "$T_TMP/gc.err") || fail "GC: $OUT $(cat "$T_TMP/gc.err")"
}
# nothing_left DESC: no pair, lease, rule, reservation, redirect, address;
# doctor finds nothing wrong.
nothing_left() {
	expect_eq "$(ip -n "$HOST" -o link show | grep -c 'n[kl][0-9a-f]\{10\}')" 0 "$1: no device left"
	expect_eq "$(leases)" '[]' "$1: no lease left"
	nk -n "$HOST" -j nic show dev "$SIM"
	expect_eq "$(printf '%s' "$OUT" | jq -c '[(.nics[0].rules | length), ([.nics[0].queues[] | select(.reserved)] | length)]')" \
		'[0,0]' "$1: no steering rule or reservation left"
	nk -n "$HOST" -j redirect show
	expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[] | .ifname]')" '[]' "$1: no route or redirect left"
	expect_eq "$(reservations)" 0 "$1: host-local's directory is empty"
	local f=("$T_TMP"/info/*)
	expect_eq "${f[*]}" "$T_TMP/info/*" "$1: no pod information file left"
	doctor_ok "$1"
}
doctor_ok() {
	nk -n "$HOST" -j doctor
	expect_eq "$RC $(printf '%s' "$OUT" | jq -c '.doctor.failed')" '0 0' "$1: nkctl doctor finds nothing wrong"
}
# steered IDS DESC [PING]: each container of IDS has one address, steered
# to a queue of the pool; with PING, the remote reaches it.
steered() {
	local id a rules addrs
	nk -n "$HOST" -j nic show dev "$SIM"
	rules=$OUT
	addrs=$(addresses)
	for id in $1; do
		a=$(printf '%s\n' "$addrs" | sed -n "s/^default-$id //p")
		expect_match "$a" '^10\.20\.[0-9]+\.[0-9]+$' "$id has one address ($2)"
		expect_eq "$(printf '%s' "$rules" | jq -c --arg a "$a" '[.nics[0].rules[] | select(.dst == $a) |
			.queue] | length == 1 and .[0] >= 1 and .[0] <= 8')" true "$id's $a is steered to a queue of the pool ($2)"
		[ -z "${3:-}" ] || ping_ok "$REMOTE" "$a" || fail "the remote cannot reach $id ($a, $2)"
	done
	[ -z "${3:-}" ] || pass "the remote reaches them all ($2)"
}

# Eight at once, each ctr waiting on its container (--rm): the container
# pings the remote first.
t0=$SECONDS
for i in $(seq 8); do
	hctr run --rm --cni "$IMAGE" "c$i" sh -c 'ping -c 1 -W 20 10.10.2.2 > /dev/null && echo reached; exec sleep 600' \
		> "$T_TMP/run$i" 2>&1 &
	RUN_PID[i]=$!
done
# Polled with shell builtins only: under TCG a process costs most of a
# second, and the containers' starts need the CPU.
# reached: 0 when each container printed "reached", 2 when a ctr run ended.
reached() {
	local i l
	for ((i = 1; i <= 8; i++)); do
		kill -0 "${RUN_PID[i]}" 2> /dev/null || return 2
		read -r l < "$T_TMP/run$i"
		[ "$l" = reached ] || return 1
	done
}
for _ in $(seq 600); do reached; [ $? = 1 ] || break; sleep 0.5; done
reached || fail "8 containers did not reach the remote: $(running | tr '\n' ' '); $(cat "$T_TMP"/run*)"
pass "8 containers started at once ($((SECONDS - t0)) s)"
pass "each container reached the remote"
expect_eq "$(leases)" '[1,2,3,4,5,6,7,8]' "each leased its own queue of the pool"
steered "$(seq -f 'c%g' 8)" "8 at once"
doctor_ok "8 containers up"
t0=$SECONDS
for i in $(seq 8); do
	hctr task kill -s KILL "c$i" &
	KILL_PID[i]=$!
done
wait "${RUN_PID[@]}" "${KILL_PID[@]}"
pass "ctr task kill: each ctr run ended ($((SECONDS - t0)) s)"
expect_eq "$(ctr container ls -q | wc -l)" 0 "ctr run --rm removed its container"
nothing_left "after ctr task kill (DEL by ctr)"

# containerd killed during 8 detached starts, once one of them runs (they
# mark it in a directory of the test's): some run (with their network),
# some had their ADD but no start (their ctr failed after it), some nothing.
mkdir "$T_TMP/marks"
t0=$SECONDS
for i in $(seq 8); do
	hctr run -d --cni --mount "type=bind,src=$T_TMP/marks,dst=/marks,options=rbind:rw" "$IMAGE" "k$i" \
		sh -c "touch /marks/k$i; exec sleep 600" > "$T_TMP/krun$i" 2>&1 &
	RUN_PID[i]=$!
done
# Polled without a subshell: a fork a tenth of a second slows the starts
# under TCG severalfold.
for _ in $(seq 600); do
	MARKS=("$T_TMP"/marks/*)
	[ -e "${MARKS[0]}" ] && break
	sleep 0.5
done
[ -e "${MARKS[0]}" ] || fail "none of the 8 detached containers ran: $(cat "$T_TMP"/krun*)"
kill -9 "$CTD_PID"
wait "$CTD_PID" 2> /dev/null
pass "containerd killed (-9) once ${#MARKS[@]} containers ran ($((SECONDS - t0)) s)"
wait "${RUN_PID[@]}"
for ((i = 1; i <= 8; i++)); do
	l=ok
	[ -s "$T_TMP/krun$i" ] && read -r l < "$T_TMP/krun$i"
	echo "# ctr run -d k$i: ${l:0:160}"
done
ctd_start
SURVIVORS=$(running | tr '\n' ' ')
n=$(wc -w <<<"$SURVIVORS")
ids=$(addresses | cut -d' ' -f1 | sort -u | wc -l)
echo "# after the restart: running: $SURVIVORS; attachments: $ids; $(ctr task ls | tail -n +2 | tr '\n' ';')"
VALID=""
for id in $SURVIVORS; do VALID+="default-$id "; done
gc "$VALID"
pass "GC with the $n running containers as valid attachments ($((ids - n)) stale) ($((SECONDS - t0)) s)"
expect_eq "$(addresses | cut -d' ' -f1 | tr '\n' ' ')" "$VALID" "GC left the survivors' addresses only"
expect_eq "$(leases | jq length)" "$n" "GC left one lease per survivor"
expect_eq "$(ip -n "$HOST" -o link show | grep -c 'nk[0-9a-f]\{10\}@')" "$n" "GC left one pair per survivor"
[ "$n" = 0 ] || steered "$SURVIVORS" "after GC" ping
doctor_ok "after GC"

# Their end: tasks and containers removed, then a GC of none.
mapfile -t TASKS < <(ctr task ls -q)
[ ${#TASKS[@]} = 0 ] || OUT=$(ctr task rm -f "${TASKS[@]}" 2>&1) || fail "ctr task rm -f: $OUT"
mapfile -t CONTAINERS < <(ctr container ls -q)
[ ${#CONTAINERS[@]} = 0 ] || OUT=$(ctr container rm "${CONTAINERS[@]}" 2>&1) || fail "ctr container rm: $OUT"
gc ""
nothing_left "after the survivors' end and a GC of none"
done_testing
