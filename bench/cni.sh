#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): wall time per pod of the CNI plugin example
# (build/helpers/nkctl-cni, with a queue lease and steering per pod) against
# the reference ptp plugin, both with host-local IPAM, run the way a runtime
# runs a plugin (configuration on stdin, CNI_* in the environment), with 1 and
# with 30 other pods of each plugin present. Target: ADD <= 2x and DEL <= 2x
# ptp's. Needs a kernel with netkit and netdevsim: run it in the VM,
#   testsuite/vm/vm run -- bench/cni.sh [ROUNDS]
# The VM shares its host with other work, so single timings swing by 2x
# and more: the plugins are timed in ROUNDS (default 25) interleaved rounds
# at each step (ADD with each, then DEL with each; which one goes first
# rotates), and the figure is the median of the per-round ratios, with the
# lowest, the quartiles and the highest ratio as its spread.
# NKCTL_BENCH_BASE=NKCTL: a second nkctl (an older build, say) timed in the
# same rounds, as plugin nkctl-base: before and after under the same load.
# NKCTL_BENCH_STRACE=DIR: also one ADD and one DEL of each plugin under
# strace at each step, kept in DIR (to see where the time goes).
set -eu
R=${1:-25}
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
NKCTL=${NKCTL:-$top/build/nkctl}
PLUGIN_DIR=${NKCTL_HELPERS:-$top/build/helpers}
CNI_BIN=/usr/lib/cni
STRACE_DIR=${NKCTL_BENCH_STRACE:-}
BASE=${NKCTL_BENCH_BASE:-}
PLUGINS=(ptp nkctl-cni)
[ -z "$BASE" ] || PLUGINS+=(nkctl-base)
[ "$(id -u)" = 0 ] || { echo "bench/cni.sh: needs root" >&2; exit 1; }
for f in "$NKCTL" ${BASE:+"$BASE"} "$PLUGIN_DIR/nkctl-cni" "$CNI_BIN/ptp" "$CNI_BIN/host-local"; do
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
ln -s "$PLUGIN_DIR/nkctl-cni" "$TMP/bin/nkctl-base"
ip netns add "$HOST"
bench_sim "$HOST" "$QUEUES"

cat > "$TMP/nkctl-cni.json" <<EOF
{"cniVersion": "1.0.0", "name": "nkb", "type": "nkctl-cni", "nic": "nkbsim", "queues": "1-$((QUEUES - 1))",
 "ipam": {"type": "host-local", "dataDir": "$TMP/ipam", "ranges": [[{"subnet": "10.30.0.0/16", "gateway": "10.30.0.1"}]]}}
EOF
sed 's/10\.30\./10.32./g; s/"nkb"/"nkbase"/' "$TMP/nkctl-cni.json" > "$TMP/nkctl-base.json"
cat > "$TMP/ptp.json" <<EOF
{"cniVersion": "1.0.0", "name": "ptpb", "type": "ptp",
 "ipam": {"type": "host-local", "dataDir": "$TMP/ipam", "ranges": [[{"subnet": "10.31.0.0/16", "gateway": "10.31.0.1"}]]}}
EOF

# run PLUGIN COMMAND ID NETNS [WRAPPER...]: the plugin as a runtime runs it,
# in HOST (the container id carries the plugin's name: nkctl-cni and
# nkctl-base name their devices after it); its wall time in ms in MS.
run() {
	local t0 t1 plugin=$1 cmd=$2 id=$1-$3 ns=$4 nk=$NKCTL
	shift 4
	[ "$plugin" != nkctl-base ] || nk=$BASE
	t0=$EPOCHREALTIME
	CNI_COMMAND=$cmd CNI_CONTAINERID=$id CNI_NETNS=/run/netns/$ns CNI_IFNAME=eth0 \
		CNI_PATH=$TMP/bin NKCTL=$nk nsenter --net="/run/netns/$HOST" "$@" "$TMP/bin/$plugin" \
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

# pair COMMAND K: COMMAND of pod mK with every plugin, the first one
# rotating with K; each one's ms in T[plugin].
pair() {
	local n=${#PLUGINS[@]} i p
	for ((i = 0; i < n; i++)); do
		p=${PLUGINS[(K + i) % n]}
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

# strace_step N: one ADD and DEL of each plugin under strace into STRACE_DIR,
# every system call (NAME-COMMAND-N.txt: what is done; the times are
# strace's own), then only process starts and pipe traffic (.light.txt:
# when each nkctl line is sent and answered, nearly undisturbed).
strace_step() {
	local p c light=(--seccomp-bpf -e trace=execve,read,write,exit_group)
	for p in "${PLUGINS[@]}"; do
		pod_ns "$p-m"
		for c in ADD DEL; do
			run "$p" $c s "$NS" strace -f -tt -T -o "$STRACE_DIR/$p-${c,,}-$1.txt"
		done
		for c in ADD DEL; do
			run "$p" $c s "$NS" strace -f -tt "${light[@]}" -o "$STRACE_DIR/$p-${c,,}-$1.light.txt"
		done
	done
}

# ratios A B C: per pair, A's time over B's, for command C (add, del).
ratios() {
	paste "$TMP/$1-$3" "$TMP/$2-$3" | awk '{ print $1 / ($2 > 0 ? $2 : 1) }' > "$TMP/ratio"
}

declare -A COUNT T
echo "per pod, $R interleaved rounds (${PLUGINS[*]}; the first rotates) at each step,"
echo "host-local IPAM for all; ratio = one plugin's wall time over ptp's in the same round:"
for n in 1 30; do
	# nkctl-base is the same plugin on the same NIC: nkctl-cni's pods are
	# its too (netdevsim holds too few n-tuple rules for a set of each).
	present ptp "$n"
	present nkctl-cni "$n"
	for p in "${PLUGINS[@]}"; do : > "$TMP/$p-add" && : > "$TMP/$p-del"; done
	for ((K = 0; K < R; K++)); do
		for c in ADD DEL; do
			pair "$c"
			for p in "${PLUGINS[@]}"; do echo "${T[$p]}" >> "$TMP/$p-${c,,}"; done
		done
	done
	for c in add del; do
		for p in "${PLUGINS[@]:1}"; do
			ratios "$p" ptp "$c"
			printf '%2d pods present: %s %-10s %5d ms, ptp %5d ms (medians); ratio %s\n' "$n" \
				"${c^^}" "$p" "$(median "$TMP/$p-$c")" "$(median "$TMP/ptp-$c")" \
				"$(spread "$TMP/ratio")"
		done
		if [ -n "$BASE" ]; then
			ratios nkctl-cni nkctl-base "$c"
			printf '%2d pods present: %s nkctl-cni over nkctl-base: %s\n' "$n" "${c^^}" \
				"$(spread "$TMP/ratio")"
		fi
	done
	[ -z "$STRACE_DIR" ] || strace_step "$n"
done
echo "(target: the medians of nkctl-cni <= 2x)"
# The background pods go with their namespaces; DEL them for their leases,
# routes and IPAM reservations first.
for p in ptp nkctl-cni; do
	for ((i = 0; i < ${COUNT[$p]}; i++)); do
		pod_ns "$p-$i" && run "$p" DEL "bg$i" "$NS"
	done
done
