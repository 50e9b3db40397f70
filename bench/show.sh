#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): nkctl -j show against its floor and against
# ip -j -d link show, in one run.
#
#   bench/show.sh [N]         N veth pairs (default 1000), all up, in a fresh
#                             netns (and 10, 250 and 2N in others)
#   bench/show.sh leases [K]  K leases (default 250) of one netdevsim NIC,
#                             in the VM: testsuite/vm/vm run -- bench/show.sh leases
#
# The floor (build/bench/show-floor, `make bench`) sends the netlink requests
# nkctl sends for the same command (the netdev family's id, the RTM_GETLINK
# dump, queue-get and napi-get dumps; with -s qstats-get; for show leases
# each reachable namespace's queue dump and the NIC's namespace's link dump)
# and only reads the replies: what is left of nkctl's time over it is
# nkctl's own work. Reported, at 10, 250 and N pairs: nkctl -j show over the
# floor (target <= 1.5 at N) and nkctl -s -j show over the floor's -s; the
# ratio nkctl/ip at N pairs (target <= 0.9), with -s the ratio nkctl -s -j
# show / ip -s -j -d link show (target <= 1.1), the ratio of nkctl at 2N to
# N pairs for both (target <= 2.1, i.e. linear), and nkctl's peak RSS at 2N
# pairs (target <= 8 MiB). With leases: nkctl -j show leases over its floor
# (target <= 1.5) and its peak RSS. The two sides of a ratio run in turn and
# each ratio is the median of the pairs' ratios (RUNS pairs, default 21), so
# that a machine whose speed drifts during the run moves both sides alike.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
NKCTL=${NKCTL:-$top/build/nkctl}
FLOOR=${FLOOR:-$top/build/bench/show-floor}
RUNS=${RUNS:-21}
MODE=pairs
if [ "${1:-}" = leases ]; then
	MODE=leases
	shift
fi
[ "$(id -u)" = 0 ] || { echo "bench/show.sh: needs root" >&2; exit 1; }
[ -x "$FLOOR" ] || { echo "bench/show.sh: no $FLOOR (make bench)" >&2; exit 1; }
NAMESPACES=()
trap 'for ns in "${NAMESPACES[@]}"; do ip netns del "$ns" 2>/dev/null || true; done' EXIT
new_ns() { # new_ns VAR: a fresh namespace, deleted at exit
	local ns="nkbench-$$-$RANDOM-${#NAMESPACES[@]}"
	ip netns add "$ns"
	NAMESPACES+=("$ns")
	printf -v "$1" %s "$ns"
}

add_pairs() { # add_pairs NS COUNT
	local i
	# No IPv6 address configuration: it keeps the kernel busy after creation.
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	for ((i = 0; i < $2; i++)); do
		echo "link add b${i}a type veth peer name b${i}b"
		echo "link set b${i}a up"
		echo "link set b${i}b up"
	done | ip -n "$1" -batch -
}

# measure A... -- B... -> "median_A_s median_B_s median_A/B peak_rss_A_kib"
measure() {
	/usr/bin/python3 - "$RUNS" "$@" <<'PY'
import statistics, subprocess, sys, time
runs = int(sys.argv[1]); args = sys.argv[2:]
cut = args.index("--"); a, b = args[:cut], args[cut + 1:]
def run(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t
run(a); run(b)  # warm-up
ta, tb, ratio = [], [], []
for _ in range(runs):
    x, y = run(a), run(b)
    ta.append(x); tb.append(y); ratio.append(x / y)
# Peak RSS from GNU time: the child's own, not python's forked image.
r = subprocess.run(["/usr/bin/time", "-f", "%M"] + a, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, text=True, check=True)
print(f"{statistics.median(ta):.6f} {statistics.median(tb):.6f} "
      f"{statistics.median(ratio):.4f} {r.stderr.strip().splitlines()[-1]}")
PY
}

# floor_line WHAT NK_S FLOOR_S RATIO TARGET
floor_line() {
	awk -v w="$1" -v a="$2" -v b="$3" -v r="$4" -v t="$5" 'BEGIN {
		printf "%s: nkctl %.1f ms, floor %.1f ms, ratio nkctl/floor %.2f%s\n",
			w, a * 1000, b * 1000, r, t == "" ? "" : " (target <= " t ")"
	}'
}

# ---- show leases: K leases of one NIC (the CNI plugin's read) ----
if [ "$MODE" = leases ]; then
	K=${1:-250}
	. "$top/bench/lib.sh"
	new_ns NS
	trap '[ -z "${SIM_ID:-}" ] || echo "$SIM_ID" > /sys/bus/netdevsim/del_device
		for ns in "${NAMESPACES[@]}"; do ip netns del "$ns" 2>/dev/null || true; done' EXIT
	bench_sim "$NS" 256 512 256
	tmp=$(mktemp)
	for ((i = 1; i <= K; i++)); do
		echo "link add b$i type single rxqueues 2"
		echo "lease dev b$i from nkbsim pool 1-255 steer dst 10.40.$((i / 200)).$((i % 200 + 1))"
	done > "$tmp"
	"$NKCTL" -n "$NS" -batch "$tmp" > /dev/null
	rm -f "$tmp"
	got=$("$NKCTL" -n "$NS" -j show leases | grep -o '"seen":' | wc -l)
	sleep 2
	read -r nk fl r rss < <(measure "$NKCTL" -n "$NS" -j show leases -- "$FLOOR" leases "$NS" nkbsim)
	echo "leases on the NIC: $got; medians of $RUNS paired runs"
	floor_line "show leases, $K leases" "$nk" "$fl" "$r" 1.5
	awk -v rss="$rss" 'BEGIN { printf "peak RSS nkctl show leases: %.1f MiB (target <= 8)\n", rss / 1024 }'
	exit 0
fi

# ---- show: 10, 250 and N pairs against the floor; N and 2N against ip ----
N=${1:-1000}
new_ns NS10
new_ns NS250
new_ns NS1
new_ns NS2
add_pairs "$NS10" 10
add_pairs "$NS250" 250
add_pairs "$NS1" "$N"
add_pairs "$NS2" $((2 * N))
sleep 2 # let the kernel settle (link watch, RCU) before timing
floors=()
for size in 10:"$NS10" 250:"$NS250" "$N:$NS1"; do
	ns=${size#*:}
	read -r a b r _ < <(measure "$NKCTL" -n "$ns" -j show -- "$FLOOR" -n "$ns" show)
	read -r as bs rs _ < <(measure "$NKCTL" -n "$ns" -s -j show -- "$FLOOR" -n "$ns" stats)
	floors+=("${size%%:*} $a $b $r $as $bs $rs")
done
show1=("$NKCTL" -n "$NS1" -j show) shows1=("$NKCTL" -n "$NS1" -s -j show)
show2=("$NKCTL" -n "$NS2" -j show) shows2=("$NKCTL" -n "$NS2" -s -j show)
read -r nk1 ip1 r1 _ < <(measure "${show1[@]}" -- ip -n "$NS1" -j -d link show)
read -r nks1 ips1 rs1 _ < <(measure "${shows1[@]}" -- ip -n "$NS1" -s -j -d link show)
read -r nk2 ip2 r2 rss2 < <(measure "${show2[@]}" -- ip -n "$NS2" -j -d link show)
read -r nks2 ips2 rs2 _ < <(measure "${shows2[@]}" -- ip -n "$NS2" -s -j -d link show)
read -r _ _ sc _ < <(measure "${show2[@]}" -- "${show1[@]}")
read -r _ _ scs _ < <(measure "${shows2[@]}" -- "${shows1[@]}")

devs=$(ip -n "$NS2" -o link show | wc -l)
echo "devices at 2N: $devs; medians of $RUNS paired runs"
for f in "${floors[@]}"; do
	read -r size a b r as bs rs <<< "$f"
	floor_line "N=$size pairs" "$a" "$b" "$r" "$([ "$size" = "$N" ] && echo 1.5)"
	floor_line "-s: N=$size pairs" "$as" "$bs" "$rs" ""
done
awk -v n="$N" -v rss="$rss2" \
	-v nk1="$nk1" -v ip1="$ip1" -v r1="$r1" -v nk2="$nk2" -v ip2="$ip2" -v r2="$r2" \
	-v nks1="$nks1" -v ips1="$ips1" -v rs1="$rs1" -v nks2="$nks2" -v ips2="$ips2" -v rs2="$rs2" \
	-v sc="$sc" -v scs="$scs" 'BEGIN {
	printf "N=%d pairs:  nkctl %.1f ms, ip %.1f ms, ratio nkctl/ip %.2f (target <= 0.9)\n", n, nk1*1000, ip1*1000, r1
	printf "N=%d pairs: nkctl %.1f ms, ip %.1f ms, ratio nkctl/ip %.2f\n", 2*n, nk2*1000, ip2*1000, r2
	printf "scaling nkctl 2N/N: %.2f (target <= 2.1); ip %.2f\n", sc, ip2/ip1
	printf "-s: N=%d pairs: nkctl -s %.1f ms, ip -s -d %.1f ms, ratio %.2f (target <= 1.1)\n", n, nks1*1000, ips1*1000, rs1
	printf "-s: N=%d pairs: nkctl -s %.1f ms, ip -s -d %.1f ms, ratio %.2f\n", 2*n, nks2*1000, ips2*1000, rs2
	printf "-s: scaling nkctl -s 2N/N: %.2f (target <= 2.1); ip %.2f\n", scs, ips2/ips1
	printf "peak RSS nkctl at 2N: %.1f MiB (target <= 8)\n", rss/1024
}'
