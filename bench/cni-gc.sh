#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): one CNI GC call of the plugin example
# (build/helpers/nkctl-cni) that finds N stale pods (default 100, each with a
# leased, steered queue, its pair, NIC route and IPAM reservation; the
# runtime restarted and lists none of them in cni.dev/valid-attachments)
# against one DEL of such a pod, run as a runtime runs the plugin. Two
# rounds in one run, each with its own N pods (issue 39's targets):
#   nop: a do-nothing IPAM plugin (it speaks 1.1.0, so GC forwards one GC
#        call to it): the plugin's and nkctl's share. Target: GC <= 3x DEL.
#   host-local: Debian's host-local (1.1.1, no GC: its DEL runs for each
#        stale pod, a CPU's worth at once, 2 to 8), whose N DELs are timed
#        alone afterwards, as many at once.
#        Target: GC <= host-local's N DELs + 3x one DEL.
# Needs netkit and netdevsim: in the VM,
#   testsuite/vm/vm run --timeout 2400 -- bench/cni-gc.sh [N] [ROUNDS]
# A DEL figure is the median of ROUNDS (default 5) DELs of a pod added
# beside the N; GC runs once per round. NKCTL_BENCH_STRACE=DIR: the
# host-local round's GC runs under strace (process starts and pipe traffic:
# when each nkctl line is sent and answered) into DIR/gc.light.txt, and its
# time is strace's.
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
# The do-nothing IPAM: an address per ADD from a counter, nothing else.
cat > "$TMP/bin/nkb-nop-ipam" <<'EOF'
#!/bin/bash
cat > /dev/null
case $CNI_COMMAND in
ADD)
	n=$(($(cat "$NKB_NOP_DIR/n" 2> /dev/null || echo 0) + 1))
	echo "$n" > "$NKB_NOP_DIR/n"
	printf '{"cniVersion": "1.1.0", "ips": [{"address": "10.41.%d.%d/16", "gateway": "10.41.0.1"}]}\n' \
		$((n / 250 + 1)) $((n % 250 + 2)) ;;
VERSION) echo '{"cniVersion": "1.1.0", "supportedVersions": ["0.4.0", "1.0.0", "1.1.0"]}' ;;
esac
EOF
chmod +x "$TMP/bin/nkb-nop-ipam"
export NKB_NOP_DIR=$TMP
ip netns add "$HOST"
bench_sim "$HOST" "$QUEUES" $((N + 8)) # a rule per pod
conf() { # NAME IPAM-JSON
	printf '{"cniVersion": "1.1.0", "name": "%s", "type": "nkctl-cni", "nic": "nkbsim", "queues": "1-%d", "ipam": %s}\n' \
		"$1" $((QUEUES - 1)) "$2" > "$TMP/$1.json"
	jq -c '. + {"cni.dev/valid-attachments": []}' "$TMP/$1.json" > "$TMP/$1.gc.json"
}
conf nkgc '{"type": "host-local", "dataDir": "'"$TMP/ipam"'", "ranges": [[{"subnet": "10.40.0.0/16", "gateway": "10.40.0.1"}]]}'
conf nknop '{"type": "nkb-nop-ipam"}'

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

# round NAME: N stale pods of network NAME, ROUNDS DELs of another, one
# GC; DEL_MS and GC_MS.
round() {
	local net=$1 i k left pairs resv
	echo "$net: adding $N pods (each leases a queue of nkbsim, steered) ..."
	for ((i = 0; i < N; i++)); do
		ip netns add "$HOST-p$i"
		run ADD "$net$i" "/run/netns/$HOST-p$i" "$TMP/$net.json"
		jq -r '.ips[0].address' "$TMP/out" > "$TMP/addr$i"
	done
	: > "$TMP/del"
	for ((k = 0; k < R; k++)); do
		run ADD "del$k" "/run/netns/$HOST-d" "$TMP/$net.json"
		run DEL "del$k" "/run/netns/$HOST-d" "$TMP/$net.json"
		echo "$MS" >> "$TMP/del"
	done
	DEL_MS=$(median "$TMP/del")
	if [ -n "${NKCTL_BENCH_STRACE:-}" ] && [ "$net" = nkgc ]; then
		# when each of GC's nkctl lines is sent and answered (strace slows it)
		run GC "" "" "$TMP/$net.gc.json" strace -f -tt --seccomp-bpf \
			-e trace=execve,read,write,exit_group -o "$NKCTL_BENCH_STRACE/gc.light.txt"
	else
		run GC "" "" "$TMP/$net.gc.json"
	fi
	GC_MS=$MS
	left=$(ip netns exec "$HOST" "$NKCTL" -j show leases | jq '.leases | length')
	pairs=$(ip -n "$HOST" -o link show | grep -c 'nk[0-9a-f]\{10\}@' || true)
	resv=$(find "$TMP/ipam" -type f -name '10.*' 2> /dev/null | wc -l)
	[ "$left $pairs $resv" = "0 0 0" ] || echo "GC left $left leases, $pairs pairs, $resv reservations" >&2
	for ((i = 0; i < N; i++)); do ip netns del "$HOST-p$i"; done
}
ip netns add "$HOST-d"
round nknop
NOP_DEL=$DEL_MS NOP_GC=$GC_MS
round nkgc

# host-local's part alone: N DELs of reservations made again (a
# reservation is a file named by the address holding the container id).
mkdir -p "$TMP/ipam/nkgc"
jq -c '.cniVersion = "1.0.0"' "$TMP/nkgc.json" > "$TMP/ipam.json"
for ((i = 0; i < N; i++)); do
	printf 'nkgc%s\r\neth0' "$i" > "$TMP/ipam/nkgc/$(cut -d/ -f1 "$TMP/addr$i")"
done
# As many at once as the plugin runs (a CPU each, 2 to 8), the next
# started as one ends.
W=$(nproc)
W=$((W < 2 ? 2 : W > 8 ? 8 : W))
t0=$EPOCHREALTIME
running=0
for ((i = 0; i < N; i++)); do
	CNI_COMMAND=DEL CNI_CONTAINERID=nkgc$i CNI_NETNS=/run/netns/$HOST-d CNI_IFNAME=eth0 \
		CNI_PATH=$TMP/bin "$CNI_BIN/host-local" < "$TMP/ipam.json" > /dev/null &
	((++running < W)) || { wait -n; running=$((running - 1)); }
done
wait
t1=$EPOCHREALTIME
IPAM_MS=$(((${t1/./} - ${t0/./}) / 1000))
echo "do-nothing IPAM: GC of $N stale pods: $NOP_GC ms; one DEL: $NOP_DEL ms (median of $R)"
echo "host-local: GC of $N stale pods: $GC_MS ms; one DEL: $DEL_MS ms (median of $R); host-local's $N DELs alone ($W at once): $IPAM_MS ms"
awk -v g="$NOP_GC" -v d="$NOP_DEL" -v hg="$GC_MS" -v hd="$DEL_MS" -v i="$IPAM_MS" -v n="$N" 'BEGIN {
	printf "nkctl share: GC / DEL = %.2fx (target <= 3x); per stale pod %.0f ms\n", g / d, g / n
	printf "whole GC: %d ms against host-local %d + 3 x DEL %d = %d ms: %.2f of the bound (target <= 1)\n", \
		hg, i, hd, i + 3 * hd, hg / (i + 3 * hd) }'
