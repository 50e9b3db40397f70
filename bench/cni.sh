#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): wall time per pod of the CNI plugin example
# (build/helpers/nkctl-cni, with a queue lease and steering per pod) against
# the reference ptp plugin, both with host-local IPAM, run the way a runtime
# runs a plugin (configuration on stdin, CNI_* in the environment), with 1 and
# with 30 other pods of each plugin present. Target: ADD <= 2x and DEL <= 2x
# ptp's. Needs a kernel with netkit and netdevsim: run it in the VM,
#   testsuite/vm/vm run -- bench/cni.sh [PAIRS]
# The VM shares its host with other work, so single timings swing by 2x:
# the two plugins are timed in PAIRS (default 15) interleaved pairs at each
# step (ADD of one, ADD of the other, DEL, DEL; which one goes first
# alternates), and the figure is the median of the per-pair ratios, with
# the lowest, the quartiles and the highest ratio as its spread.
# NKCTL_BENCH_STRACE=DIR: also one ADD and one DEL of each plugin under
# `strace -f -tt -T` at each step, kept in DIR (to see where the time goes).
set -eu
R=${1:-15}
top=$(cd "$(dirname "$0")/.." && pwd)
NKCTL=${NKCTL:-$top/build/nkctl}
PLUGIN_DIR=${NKCTL_HELPERS:-$top/build/helpers}
CNI_BIN=/usr/lib/cni
STRACE_DIR=${NKCTL_BENCH_STRACE:-}
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

# run PLUGIN COMMAND ID NETNS [WRAPPER...]: the plugin as a runtime runs it,
# in HOST; its wall time in ms in MS.
run() {
	local t0 t1 plugin=$1 cmd=$2 id=$3 ns=$4
	shift 4
	t0=$EPOCHREALTIME
	CNI_COMMAND=$cmd CNI_CONTAINERID=$id CNI_NETNS=/run/netns/$ns CNI_IFNAME=eth0 \
		CNI_PATH=$TMP/bin NKCTL=$NKCTL nsenter --net="/run/netns/$HOST" "$@" "$TMP/bin/$plugin" \
		< "$TMP/$plugin.json" > "$TMP/out" || { echo "$plugin $cmd $id failed: $(cat "$TMP/out")" >&2; exit 1; }
	t1=$EPOCHREALTIME
	MS=$(((${t1/./} - ${t0/./}) / 1000))
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

# pair COMMAND K: COMMAND of pod mK with both plugins, the first one
# alternating with K; each one's ms in T[plugin].
pair() {
	local order=(ptp nkctl-cni) p
	((K % 2)) && order=(nkctl-cni ptp)
	for p in "${order[@]}"; do
		pod_ns "$p-m"
		run "$p" "$1" "m$K" "$NS"
		T[$p]=$MS
	done
}

# spread FILE: "median M (min A, quartiles B-C, max D)" of the numbers in FILE.
spread() {
	sort -g "$1" | awk '{ v[NR] = $1 }
	function q(f,  i) { i = 1 + (NR - 1) * f; return v[int(i)] + (i - int(i)) * (v[int(i) + 1] - v[int(i)]) }
	END { printf "median %.2fx (min %.2f, quartiles %.2f-%.2f, max %.2f)", q(0.5), v[1], q(0.25), q(0.75), v[NR] }'
}

# median FILE: the median of the numbers in FILE.
median() {
	sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.0f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# strace_step N: one ADD and DEL of each plugin under strace into STRACE_DIR.
strace_step() {
	local p
	for p in ptp nkctl-cni; do
		pod_ns "$p-m"
		run "$p" ADD s "$NS" strace -f -tt -T -o "$STRACE_DIR/$p-add-$1.txt"
		run "$p" DEL s "$NS" strace -f -tt -T -o "$STRACE_DIR/$p-del-$1.txt"
	done
}

declare -A COUNT T
echo "per pod, $R interleaved pairs (ptp, nkctl-cni) at each step, host-local IPAM for both;"
echo "ratio = nkctl-cni / ptp wall time of one pair:"
for n in 1 30; do
	present ptp "$n"
	present nkctl-cni "$n"
	: > "$TMP/add" && : > "$TMP/del"
	for c in ptp nkctl-cni; do : > "$TMP/$c-add" && : > "$TMP/$c-del"; done
	for ((K = 0; K < R; K++)); do
		for c in ADD DEL; do
			pair "$c"
			echo "${T[ptp]}" >> "$TMP/ptp-${c,,}"
			echo "${T[nkctl-cni]}" >> "$TMP/nkctl-cni-${c,,}"
			awk -v a="${T[nkctl-cni]}" -v b="${T[ptp]}" 'BEGIN { print a / (b > 0 ? b : 1) }' >> "$TMP/${c,,}"
		done
	done
	for c in add del; do
		printf '%2d pods present: %s nkctl-cni %5d ms, ptp %5d ms (medians); ratio %s\n' "$n" \
			"${c^^}" "$(median "$TMP/nkctl-cni-$c")" "$(median "$TMP/ptp-$c")" "$(spread "$TMP/$c")"
	done
	[ -z "$STRACE_DIR" ] || strace_step "$n"
done
echo "(target: both medians <= 2x)"
# The background pods go with their namespaces; DEL them for their leases,
# routes and IPAM reservations first.
for p in ptp nkctl-cni; do
	for ((i = 0; i < ${COUNT[$p]}; i++)); do
		pod_ns "$p-$i" && run "$p" DEL "bg$i" "$NS"
	done
done
