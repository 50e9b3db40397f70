#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): nkctl -j show against ip -j -d link show, in one run.
#
#   bench/show.sh [N]     N veth pairs (default 1000), all up, in a fresh netns
#                         (and 2N in another)
#
# Reports the wall-time ratio nkctl/ip at N pairs (target <= 0.9), with -s the
# ratio nkctl -s -j show / ip -s -j -d link show (target <= 1.1), the ratio of
# nkctl at 2N to N pairs for both (target <= 2.1, i.e. linear), and nkctl's
# peak RSS at 2N pairs (target <= 8 MiB). nkctl and ip run in turn and each
# ratio is the median of the pairs' ratios (RUNS pairs, default 21), so that
# a machine whose speed drifts during the run moves both sides alike.
set -eu
N=${1:-1000}
RUNS=${RUNS:-21}
top=$(cd "$(dirname "$0")/.." && pwd)
NKCTL=${NKCTL:-$top/build/nkctl}
NS1="nkbench-$$-$RANDOM" NS2="nkbench-$$-$RANDOM-2n"
[ "$(id -u)" = 0 ] || { echo "bench/show.sh: needs root" >&2; exit 1; }
# N pairs in one namespace, 2N in another: the scaling is timed in turn too.
ip netns add "$NS1"
trap 'ip netns del "$NS1"; ip netns del "$NS2" 2>/dev/null || true' EXIT
ip netns add "$NS2"

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

add_pairs "$NS1" "$N"
add_pairs "$NS2" $((2 * N))
sleep 2 # let the kernel settle (link watch, RCU) before timing
show1=("$NKCTL" -n "$NS1" -j show) shows1=("$NKCTL" -n "$NS1" -s -j show)
show2=("$NKCTL" -n "$NS2" -j show) shows2=("$NKCTL" -n "$NS2" -s -j show)
read -r nk1 ip1 r1 _ < <(measure "${show1[@]}" -- ip -n "$NS1" -j -d link show)
read -r nks1 ips1 rs1 _ < <(measure "${shows1[@]}" -- ip -n "$NS1" -s -j -d link show)
read -r nk2 ip2 r2 rss2 < <(measure "${show2[@]}" -- ip -n "$NS2" -j -d link show)
read -r nks2 ips2 rs2 _ < <(measure "${shows2[@]}" -- ip -n "$NS2" -s -j -d link show)
read -r _ _ sc _ < <(measure "${show2[@]}" -- "${show1[@]}")
read -r _ _ scs _ < <(measure "${shows2[@]}" -- "${shows1[@]}")

devs=$(ip -n "$NS2" -o link show | wc -l)
awk -v n="$N" -v runs="$RUNS" -v d="$devs" -v rss="$rss2" \
	-v nk1="$nk1" -v ip1="$ip1" -v r1="$r1" -v nk2="$nk2" -v ip2="$ip2" -v r2="$r2" \
	-v nks1="$nks1" -v ips1="$ips1" -v rs1="$rs1" -v nks2="$nks2" -v ips2="$ips2" -v rs2="$rs2" \
	-v sc="$sc" -v scs="$scs" 'BEGIN {
	printf "devices at 2N: %d; medians of %d paired runs\n", d, runs
	printf "N=%d pairs:  nkctl %.1f ms, ip %.1f ms, ratio nkctl/ip %.2f (target <= 0.9)\n", n, nk1*1000, ip1*1000, r1
	printf "N=%d pairs: nkctl %.1f ms, ip %.1f ms, ratio nkctl/ip %.2f\n", 2*n, nk2*1000, ip2*1000, r2
	printf "scaling nkctl 2N/N: %.2f (target <= 2.1); ip %.2f\n", sc, ip2/ip1
	printf "-s: N=%d pairs: nkctl -s %.1f ms, ip -s -d %.1f ms, ratio %.2f (target <= 1.1)\n", n, nks1*1000, ips1*1000, rs1
	printf "-s: N=%d pairs: nkctl -s %.1f ms, ip -s -d %.1f ms, ratio %.2f\n", 2*n, nks2*1000, ips2*1000, rs2
	printf "-s: scaling nkctl -s 2N/N: %.2f (target <= 2.1); ip %.2f\n", scs, ips2/ips1
	printf "peak RSS nkctl at 2N: %.1f MiB (target <= 8)\n", rss/1024
}'
