#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): wall time per pod of the CNI plugin example
# (build/helpers/nkctl-cni, with a queue lease and steering per pod) against
# the reference ptp plugin, both with host-local IPAM, run the way a runtime
# runs a plugin (configuration on stdin, CNI_* in the environment), with 1 and
# with 30 other pods of the same plugin present. Target: ADD <= 2x and DEL <=
# 2x ptp's. Needs a kernel with netkit and netdevsim: run it in the VM,
#   testsuite/vm/vm run -- bench/cni.sh [ROUNDS]
# ROUNDS (default 5) ADD/DEL pairs are timed at each step.
set -eu
R=${1:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
NKCTL=${NKCTL:-$top/build/nkctl}
PLUGIN_DIR=${NKCTL_HELPERS:-$top/build/helpers}
CNI_BIN=/usr/lib/cni
[ "$(id -u)" = 0 ] || { echo "bench/cni.sh: needs root" >&2; exit 1; }
for f in "$NKCTL" "$PLUGIN_DIR/nkctl-cni" "$CNI_BIN/ptp" "$CNI_BIN/host-local"; do
	[ -x "$f" ] || { echo "bench/cni.sh: no $f (make; containernetworking-plugins)" >&2; exit 1; }
done

HOST=nkb-cni-$$
QUEUES=40
TMP=$(mktemp -d)
PODS=()
cleanup() {
	set +e
	for p in "${PODS[@]}"; do ip netns del "$p" 2> /dev/null; done
	[ -n "${SIM_ID:-}" ] && echo "$SIM_ID" > /sys/bus/netdevsim/del_device
	ip netns del "$HOST" 2> /dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$TMP/bin"
ln -s "$PLUGIN_DIR/nkctl-cni" "$CNI_BIN/ptp" "$CNI_BIN/host-local" "$TMP/bin/"
ip netns add "$HOST"
modprobe netdevsim
SIM_ID=$((RANDOM % 30000 + 1000))
echo "$SIM_ID 1 $QUEUES" > /sys/bus/netdevsim/new_device
sleep 0.5
dev=$(ls "/sys/bus/netdevsim/devices/netdevsim$SIM_ID/net/")
ip link set "$dev" name nkbsim netns "$HOST"
ip -n "$HOST" link set nkbsim up

cat > "$TMP/nkctl-cni.json" <<EOF
{"cniVersion": "1.0.0", "name": "nkb", "type": "nkctl-cni", "nic": "nkbsim", "queues": "1-$((QUEUES - 1))",
 "ipam": {"type": "host-local", "dataDir": "$TMP/ipam", "ranges": [[{"subnet": "10.30.0.0/16", "gateway": "10.30.0.1"}]]}}
EOF
cat > "$TMP/ptp.json" <<EOF
{"cniVersion": "1.0.0", "name": "ptpb", "type": "ptp",
 "ipam": {"type": "host-local", "dataDir": "$TMP/ipam", "ranges": [[{"subnet": "10.31.0.0/16", "gateway": "10.31.0.1"}]]}}
EOF

# run PLUGIN COMMAND ID NETNS: the plugin as a runtime runs it, in HOST;
# its wall time in ms in MS.
run() {
	local t0 t1
	t0=$EPOCHREALTIME
	CNI_COMMAND=$2 CNI_CONTAINERID=$3 CNI_NETNS=/run/netns/$4 CNI_IFNAME=eth0 \
		CNI_PATH=$TMP/bin NKCTL=$NKCTL nsenter --net="/run/netns/$HOST" "$TMP/bin/$1" \
		< "$TMP/$1.json" > "$TMP/out" || { echo "$1 $2 $3 failed: $(cat "$TMP/out")" >&2; exit 1; }
	t1=$EPOCHREALTIME
	MS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1000 }')
}

pod_ns() { # pod_ns N: namespace number N (made once)
	local ns=nkb-cni-$$-pod$1
	[ -e "/run/netns/$ns" ] || { ip netns add "$ns"; PODS+=("$ns"); }
	NS=$ns
}

# present PLUGIN N: N pods of PLUGIN exist (ids bg0..bgN-1).
present() {
	for ((i = ${COUNT[$1]:-0}; i < $2; i++)); do
		pod_ns "$1-$i" && run "$1" ADD "bg$i" "$NS"
	done
	COUNT[$1]=$2
}

# measure PLUGIN: R rounds of ADD then DEL of one more pod; mean ms in ADD, DEL.
measure() {
	local add=0 del=0
	pod_ns "$1-m"
	for ((k = 0; k < R; k++)); do
		run "$1" ADD "m$k" "$NS"; add=$((add + MS))
		run "$1" DEL "m$k" "$NS"; del=$((del + MS))
	done
	ADD=$((add / R)) DEL=$((del / R))
}

declare -A COUNT
echo "per pod, mean of $R ADD/DEL pairs, host-local IPAM for both:"
for n in 1 30; do
	present ptp "$n"
	present nkctl-cni "$n"
	measure ptp
	pa=$ADD pd=$DEL
	measure nkctl-cni
	awk -v n="$n" -v pa="$pa" -v pd="$pd" -v na="$ADD" -v nd="$DEL" 'BEGIN {
		printf "%2d pods present: ADD nkctl-cni %5d ms, ptp %5d ms, ratio %.2fx;", n, na, pa, na / pa
		printf " DEL nkctl-cni %5d ms, ptp %5d ms, ratio %.2fx\n", nd, pd, nd / pd
	}'
done
echo "(target: both ratios <= 2x)"
# The background pods go with their namespaces; DEL them for their leases,
# routes and IPAM reservations first.
for p in ptp nkctl-cni; do
	for ((i = 0; i < ${COUNT[$p]}; i++)); do
		pod_ns "$p-$i" && run "$p" DEL "bg$i" "$NS"
	done
done
