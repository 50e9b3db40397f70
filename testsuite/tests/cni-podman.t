#!/bin/bash
# tier: vm
# timeout: 420
# The CNI plugin under a real runtime: Debian's podman 4.3 with its CNI
# backend (a containers.conf of the test's own: network_backend "cni", the
# test's plugin directory and conflist), crun, a busybox --rootfs, storage in
# the test's directory. Containers started one after another and three at
# once each lease their own queue of the pool, steered to their address, and
# reach the remote (and are reached); podman rm leaves no device, lease,
# rule, route or IPAM reservation behind.
. "$TESTSUITE/lib.sh"
. "$TESTSUITE/cni.sh"
need_cmd podman crun conmon
BUSYBOX=/bin/busybox
[ -x "$BUSYBOX" ] || skip "no busybox"
topo_nic_remote 8

# A busybox root file system.
ROOTFS=$T_TMP/rootfs
mkdir -p "$ROOTFS"/{bin,etc,proc,sys,dev,tmp,run}
cp "$BUSYBOX" "$ROOTFS/bin/busybox"
for c in sh ping sleep ip cat; do ln -s busybox "$ROOTFS/bin/$c"; done

mkdir -p "$T_TMP/net.d"
cni_conflist "$T_TMP/net.d/nk.conflist" "$(jq -cn --arg nic "$SIM" --arg dir "$IPAMDIR" '{
	cniVersion: "1.0.0", name: "nk", type: "nkctl-cni", nic: $nic, queues: "1-6",
	ipam: {type: "host-local", dataDir: $dir, ranges: [[{subnet: "10.20.0.0/16", gateway: "10.20.0.1"}]],
		routes: [{dst: "0.0.0.0/0"}]}}')"
cat > "$T_TMP/containers.conf" <<EOF
[network]
network_backend = "cni"
cni_plugin_dirs = ["$T_TMP/bin"]
network_config_dir = "$T_TMP/net.d"

[engine]
runtime = "crun"
cgroup_manager = "cgroupfs"
events_logger = "file"
events_logfile_path = "$T_TMP/events.log"
EOF
# podman in HOST, where the NIC is: the plugin runs where podman does
# (nsenter: ip netns exec would mount a /sys without cgroups, which crun needs).
# nkctl on PATH too: podman's cleanup (DEL when a container ends) runs from
# conmon, whose environment need not carry NKCTL.
mkdir -p "$T_TMP/sbin"
ln -s "$NKCTL" "$T_TMP/sbin/nkctl"
pm() {
	nsenter --net="/run/netns/$HOST" env CONTAINERS_CONF="$T_TMP/containers.conf" NKCTL="$NKCTL" \
		PATH="$T_TMP/sbin:$PATH" \
		podman --root "$T_TMP/storage" --runroot "$T_TMP/runroot" --storage-driver vfs \
		--tmpdir "$T_TMP/libpod" "$@"
}
defer "nsenter --net='/run/netns/$HOST' env CONTAINERS_CONF='$T_TMP/containers.conf' podman --root '$T_TMP/storage' --runroot '$T_TMP/runroot' --storage-driver vfs --tmpdir '$T_TMP/libpod' rm -af -t 0 > /dev/null 2>&1"

leases() { nk -n "$HOST" -j show leases; printf '%s' "$OUT" | jq -c --arg s "$SIM" '[.leases[] | select(.ifname == $s) | .id] | sort'; }

# One after another: each reaches the remote and goes.
for i in 1 2; do
	OUT=$(pm run --rm --network nk --rootfs "$ROOTFS" ping -c 1 -W 5 10.10.2.2 2>&1) ||
		fail "container $i cannot reach the remote: $OUT"
	pass "container $i (podman run --rm) reaches the remote"
done
expect_eq "$(leases)" '[]' "their leases ended with them"

# Three at once.
for i in 1 2 3; do
	pm run -d --name "c$i" --network nk --rootfs "$ROOTFS" sleep 600 > "$T_TMP/run$i" 2>&1 &
done
wait
for i in 1 2 3; do
	pm inspect "c$i" > /dev/null 2>&1 || fail "container c$i did not start: $(cat "$T_TMP/run$i")"
done
pass "three containers started at once"
expect_eq "$(leases)" '[1,2,3]' "each leased its own queue of the pool"
nk -n "$HOST" -j nic show dev "$SIM"
RULES=$OUT
for i in 1 2 3; do
	a=$(pm inspect -f '{{.NetworkSettings.Networks.nk.IPAddress}}' "c$i")
	expect_eq "$(printf '%s' "$RULES" | jq -c --arg a "$a" '[.nics[0].rules[] | select(.dst == $a) |
		.queue] | length == 1 and .[0] >= 1 and .[0] <= 6')" true "c$i's address $a is steered to a queue of the pool"
	ping_ok "$REMOTE" "$a" || fail "the remote cannot reach c$i ($a)"
	pm exec "c$i" ping -c 1 -W 5 10.10.2.2 > /dev/null 2>&1 || fail "c$i cannot reach the remote"
	pass "c$i and the remote reach each other"
done
pm rm -f -t 0 c1 c2 c3 > "$T_TMP/rm.out" 2>&1 || fail "podman rm: $(cat "$T_TMP/rm.out")"
sed 's/^/# podman rm: /' "$T_TMP/rm.out"
expect_eq "$(ip -n "$HOST" -o link show | grep -c 'n[kl][0-9a-f]\{10\}')" 0 "podman rm: no device left"
for _ in $(seq 60); do [ "$(leases)" = '[]' ] && break; sleep 0.5; done
expect_eq "$(leases)" '[]' "podman rm: no lease left"
nk -n "$HOST" -j redirect show
expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[] | .ifname]')" '[]' "podman rm: no route or redirect left"
nk -n "$HOST" -j nic show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '[(.nics[0].rules | length), ([.nics[0].queues[] | select(.reserved)] | length)]')" \
	'[0,0]' "podman rm: no steering rule or reservation left"
expect_eq "$(reservations)" 0 "podman rm: no IPAM reservation left"
done_testing
