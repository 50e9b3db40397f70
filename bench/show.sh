#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): nkctl -j show against ip -j -d link show, in one run.
#
#   bench/show.sh [N]     N veth pairs (default 1000), all up, in a fresh netns
#
# Reports the wall-time ratio nkctl/ip at N pairs (target <= 1.0), with -s the
# ratio nkctl -s -j show / ip -s -j -d link show (target <= 1.2), the ratio of
# nkctl at 2N to N pairs (target <= 2.1, i.e. linear), and nkctl's peak RSS at
# 2N pairs (target <= 8 MiB). Medians of several runs.
set -eu
N=${1:-1000}
RUNS=${RUNS:-15}
top=$(cd "$(dirname "$0")/.." && pwd)
NKCTL=${NKCTL:-$top/build/nkctl}
NS="nkbench-$$-$RANDOM"
[ "$(id -u)" = 0 ] || { echo "bench/show.sh: needs root" >&2; exit 1; }
ip netns add "$NS"
trap 'ip netns del "$NS"' EXIT
# No IPv6 address configuration: it keeps the kernel busy after creation.
ip netns exec "$NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1

add_pairs() { # add_pairs FROM TO
	local i
	for ((i = $1; i < $2; i++)); do
		echo "link add b${i}a type veth peer name b${i}b"
		echo "link set b${i}a up"
		echo "link set b${i}b up"
	done | ip -n "$NS" -batch -
	sleep 2 # let the kernel settle (link watch, RCU) before timing
}

measure() { # measure CMD... -> "median_seconds peak_rss_kib"
	/usr/bin/python3 - "$RUNS" "$@" <<'PY'
import statistics, subprocess, sys, time
runs = int(sys.argv[1]); cmd = sys.argv[2:]
subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)  # warm-up
times = []
for _ in range(runs):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    times.append(time.perf_counter() - t)
# Peak RSS from GNU time: the child's own, not python's forked image.
r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, text=True, check=True)
print(f"{statistics.median(times):.6f} {r.stderr.strip().splitlines()[-1]}")
PY
}

add_pairs 0 "$N"
read -r nk1 _ < <(measure "$NKCTL" -n "$NS" -j show)
read -r ip1 _ < <(measure ip -n "$NS" -j -d link show)
read -r nks1 _ < <(measure "$NKCTL" -n "$NS" -s -j show)
read -r ips1 _ < <(measure ip -n "$NS" -s -j -d link show)
add_pairs "$N" $((2 * N))
read -r nk2 rss2 < <(measure "$NKCTL" -n "$NS" -j show)
read -r ip2 _ < <(measure ip -n "$NS" -j -d link show)
read -r nks2 _ < <(measure "$NKCTL" -n "$NS" -s -j show)

devs=$(ip -n "$NS" -o link show | wc -l)
awk -v n="$N" -v nk1="$nk1" -v ip1="$ip1" -v nk2="$nk2" -v ip2="$ip2" -v rss="$rss2" -v d="$devs" \
	-v nks1="$nks1" -v ips1="$ips1" -v nks2="$nks2" 'BEGIN {
	printf "devices at 2N: %d\n", d
	printf "N=%d pairs:  nkctl %.1f ms, ip %.1f ms, ratio nkctl/ip %.2f (target <= 1.0)\n", n, nk1*1000, ip1*1000, nk1/ip1
	printf "N=%d pairs: nkctl %.1f ms, ip %.1f ms, ratio nkctl/ip %.2f\n", 2*n, nk2*1000, ip2*1000, nk2/ip2
	printf "scaling nkctl 2N/N: %.2f (target <= 2.1)\n", nk2/nk1
	printf "-s: N=%d pairs: nkctl -s %.1f ms, ip -s -d %.1f ms, ratio %.2f (target <= 1.2)\n", n, nks1*1000, ips1*1000, nks1/ips1
	printf "-s: scaling nkctl -s 2N/N: %.2f (target <= 2.1)\n", nks2/nks1
	printf "peak RSS nkctl at 2N: %.1f MiB (target <= 8)\n", rss/1024
}'
