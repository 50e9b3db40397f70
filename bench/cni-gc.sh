#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): one CNI GC call of the plugin example
# (build/helpers/nkctl-cni) that finds N stale pods (default 100, each with a
# leased, steered queue, its pair, NIC route and host-local reservation; the
# runtime restarted and lists none of them in cni.dev/valid-attachments)
# against one DEL of such a pod, run as a runtime runs the plugin. Target
# (issue 31): GC <= 3x one DEL. Needs netkit and netdevsim: in the VM,
#   testsuite/vm/vm run -- bench/cni-gc.sh [N] [ROUNDS]
# The DEL figure is the median of ROUNDS (default 5) DELs of a pod added
# beside the N; GC runs once. GC is one nkctl process for all N pods
# (gc.c); Debian's host-local (1.1.1) has no GC, so its DEL runs for each
# stale pod (several at once): that part is printed too, from a second
# timing of host-local's DELs alone. NKCTL_BENCH_STRACE=DIR: GC runs under
# strace (process starts and pipe traffic: when each nkctl line is sent
# and answered) into DIR/gc.light.txt, and its time is strace's.
set -eu
N=${1:-100}
R=${2:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
NKCTL=${NKCTL:-$top/build/nkctl}
PLUGIN=${NKCTL_HELPERS:-$top/build/helpers}/nkctl-cni
CNI_BIN=/usr/lib/cni
[ "$(id -u)" = 0 ] || { echo "bench/cni-gc.sh: needs root" >&2; exit 1; }
for f in "$NKCTL" "$PLUGIN" "$CNI_BIN/host-local"; do
	[ -x "$f" ] || { echo "bench/cni-gc.sh: no $f (make; containernetworking-plugins)" >&2; exit 1; }
done

HOST=nkb-gc-$$
QUEUES=$((N + 8))
TMP=$(mktemp -d)
cleanup() {
	set +e
	for ((i = 0; i < N; i++)); do ip netns del "$HOST-p$i" 2> /dev/null; done
	ip netns del "$HOST-d" 2> /dev/null
	[ -n "${SIM_ID:-}" ] && echo "$SIM_ID" > /sys/bus/netdevsim/del_device
	ip netns del "$HOST" 2> /dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$TMP/bin"
ln -s "$PLUGIN" "$CNI_BIN/host-local" "$TMP/bin/"
ip netns add "$HOST"
bench_sim "$HOST" "$QUEUES" $((N + 8)) # a rule per pod
cat > "$TMP/conf.json" <<EOF
{"cniVersion": "1.1.0", "name": "nkgc", "type": "nkctl-cni", "nic": "nkbsim", "queues": "1-$((QUEUES - 1))",
 "ipam": {"type": "host-local", "dataDir": "$TMP/ipam", "ranges": [[{"subnet": "10.40.0.0/16", "gateway": "10.40.0.1"}]]}}
EOF
jq -c '. + {"cni.dev/valid-attachments": []}' "$TMP/conf.json" > "$TMP/gc.json"

# run COMMAND ID NETNS [CONF [WRAPPER...]]: the plugin as a runtime runs
# it, in HOST; its wall time in ms in MS.
run() {
	local t0 t1 conf=${4:-$TMP/conf.json}
	set -- "$1" "$2" "$3" "${@:5}"
	t0=$EPOCHREALTIME
	# (GC names no container: no CNI_CONTAINERID, CNI_NETNS, CNI_IFNAME)
	env ${2:+CNI_CONTAINERID=$2 CNI_NETNS=$3 CNI_IFNAME=eth0} CNI_COMMAND=$1 CNI_PATH=$TMP/bin \
		NKCTL=$NKCTL nsenter --net="/run/netns/$HOST" "${@:4}" "$TMP/bin/nkctl-cni" \
		< "$conf" > "$TMP/out" || { echo "$1 $2 failed: $(cat "$TMP/out")" >&2; exit 1; }
	t1=$EPOCHREALTIME
	MS=$(((${t1/./} - ${t0/./}) / 1000))
}
median() {
	sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.0f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "adding $N pods (each leases a queue of nkbsim, steered) ..."
for ((i = 0; i < N; i++)); do
	ip netns add "$HOST-p$i"
	run ADD "stale$i" "/run/netns/$HOST-p$i"
	jq -r '.ips[0].address' "$TMP/out" > "$TMP/addr$i"
done
ip netns add "$HOST-d"
: > "$TMP/del"
for ((k = 0; k < R; k++)); do
	run ADD "del$k" "/run/netns/$HOST-d"
	run DEL "del$k" "/run/netns/$HOST-d"
	echo "$MS" >> "$TMP/del"
done
DEL_MS=$(median "$TMP/del")
if [ -n "${NKCTL_BENCH_STRACE:-}" ]; then
	# when each of GC's nkctl lines is sent and answered (strace slows it)
	run GC "" "" "$TMP/gc.json" strace -f -tt --seccomp-bpf -e trace=execve,read,write,exit_group \
		-o "$NKCTL_BENCH_STRACE/gc.light.txt"
else
	run GC "" "" "$TMP/gc.json"
fi
GC_MS=$MS
left=$(ip netns exec "$HOST" "$NKCTL" -j show leases | jq '.leases | length')
pairs=$(ip -n "$HOST" -o link show | grep -c 'nk[0-9a-f]\{10\}@' || true)
resv=$(find "$TMP/ipam" -type f -name '10.*' | wc -l)
[ "$left $pairs $resv" = "0 0 0" ] || echo "GC left $left leases, $pairs pairs, $resv reservations" >&2

# host-local's part alone: N DELs of reservations made again (a
# reservation is a file named by the address holding the container id).
mkdir -p "$TMP/ipam/nkgc"
jq -c '.cniVersion = "1.0.0"' "$TMP/conf.json" > "$TMP/ipam.json"
for ((i = 0; i < N; i++)); do
	printf 'stale%s\r\neth0' "$i" > "$TMP/ipam/nkgc/$(cut -d/ -f1 "$TMP/addr$i")"
done
t0=$EPOCHREALTIME
for ((i = 0; i < N; i++)); do
	CNI_COMMAND=DEL CNI_CONTAINERID=stale$i CNI_NETNS=/run/netns/$HOST-p$i CNI_IFNAME=eth0 \
		CNI_PATH=$TMP/bin "$CNI_BIN/host-local" < "$TMP/ipam.json" > /dev/null &
	(((i + 1) % 8)) || wait
done
wait
t1=$EPOCHREALTIME
IPAM_MS=$(((${t1/./} - ${t0/./}) / 1000))
echo "GC of $N stale pods: $GC_MS ms (one call; one nkctl process); one DEL: $DEL_MS ms (median of $R)"
awk -v g="$GC_MS" -v d="$DEL_MS" -v n="$N" -v i="$IPAM_MS" 'BEGIN {
	printf "ratio GC / DEL: %.2fx (target <= 3x); per stale pod %.0f ms\n", g / d, g / n
	printf "of which host-local DEL x %d (8 at once, timed alone): ~%d ms\n", n, i }'
