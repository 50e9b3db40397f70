#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): pod -> remote through nkctl's redirects (forwarding
# off), through kernel IP forwarding, and over a direct veth (the limit of
# this machine), in one run. Reports TCP throughput and a small-packet rate
# (UDP, 64-byte payload) and the ratios redirect/direct (target >= 0.97) and
# redirect/forwarding (target >= 1.0). Then the same pod with 1000 routes on
# the NIC (999 of them to 40 other targets, veth devices) against 1 route:
# the per-packet cost must not depend on the number of pods (target >= 0.97).
# The four paths are measured in ROUNDS interleaved rounds (the first path
# rotates from round to round, so that this machine's drift and warming up
# fall on all alike), each measurement after a warm-up second of its own;
# the figures are medians, the ratios the medians of the
# per-round ratios.
#
#   bench/redirect.sh [SECONDS [ROUNDS]]   (default 5 per measurement, 5 rounds;
#                                           needs iperf3)
set -eu
T=${1:-5}
R=${2:-5}
top=$(cd "$(dirname "$0")/.." && pwd)
NKCTL=${NKCTL:-$top/build/nkctl}
[ "$(id -u)" = 0 ] || { echo "bench/redirect.sh: needs root" >&2; exit 1; }
command -v iperf3 >/dev/null || { echo "bench/redirect.sh: needs iperf3" >&2; exit 1; }
sfx=$$-$RANDOM
POD=nkb-pod-$sfx HOST=nkb-host-$sfx REMOTE=nkb-rem-$sfx D1=nkb-d1-$sfx D2=nkb-d2-$sfx
cleanup() {
	for n in $POD $HOST $REMOTE $D1 $D2; do
		ip netns pids "$n" 2>/dev/null | xargs -r kill 2>/dev/null
		ino=$(stat -L -c %i "/run/netns/$n" 2>/dev/null) && rm -rf "/sys/fs/bpf/nkctl/net$ino"-*
		ip netns del "$n" 2>/dev/null
	done
}
trap cleanup EXIT
for n in $POD $HOST $REMOTE $D1 $D2; do ip netns add "$n"; ip -n "$n" link set lo up; done

# pod <-> host <-> remote, as in the tests
ip -n "$HOST" link add vH type veth peer name vP netns "$POD"
ip -n "$HOST" link add vN type veth peer name vR netns "$REMOTE"
ip -n "$POD" addr add 10.10.1.2/24 dev vP
ip -n "$HOST" addr add 10.10.1.1/24 dev vH
ip -n "$HOST" addr add 10.10.2.1/24 dev vN
ip -n "$REMOTE" addr add 10.10.2.2/24 dev vR
for x in "$POD vP" "$HOST vH" "$HOST vN" "$REMOTE vR"; do set -- $x; ip -n "$1" link set "$2" up; done
ip -n "$POD" route add default via 10.10.1.1
ip -n "$REMOTE" route add 10.10.1.0/24 via 10.10.2.1
# direct: one veth between two namespaces
ip -n "$D1" link add vD type veth peer name vE netns "$D2"
ip -n "$D1" addr add 10.20.0.1/24 dev vD
ip -n "$D2" addr add 10.20.0.2/24 dev vE
ip -n "$D1" link set vD up
ip -n "$D2" link set vE up


measure() { # measure CLIENT_NS SERVER_NS ADDR -> "tcp_gbit udp_kpps"
	local c=$1 s=$2 a=$3 tcp udp
	ip netns exec "$s" iperf3 -s -D > /dev/null
	sleep 0.5
	ip netns exec "$c" iperf3 -c "$a" -t 1 > /dev/null # warm-up, not counted
	tcp=$(ip netns exec "$c" iperf3 -c "$a" -t "$T" -J | jq '.end.sum_received.bits_per_second / 1e9')
	udp=$(ip netns exec "$c" iperf3 -c "$a" -t "$T" -u -l 64 -b 0 -J |
		jq '(.end.sum.packets - .end.sum.lost_packets) / .end.sum.seconds / 1e3')
	ip netns pids "$s" | xargs -r kill
	sleep 0.3
	echo "$tcp $udp"
}

# The host's states: kernel forwarding, no redirect; nkctl's redirects with
# the pod's one route; the same with 999 more routes for 40 other pods.
for k in $(seq 40); do ip -n "$HOST" link add "d$k" type veth peer name "e$k"; done
many=$(mktemp)
for k in $(seq 40); do
	printf 'redirect attach dev vN to d%d' "$k"
	for j in $(seq 25); do
		if [ $(((k - 1) * 25 + j)) -le 999 ]; then printf ' prefix 10.%d.%d.0/24' $((100 + k)) "$j"; fi
	done
	echo
done > "$many"
few=$(mktemp)
for k in $(seq 40); do echo "redirect detach dev vN to d$k"; done > "$few"
nk() { "$NKCTL" -n "$HOST" "$@" > /dev/null; }
state() { # state forwarding|redirect|many
	case "$1" in
	forwarding)
		nk -force redirect detach dev vH
		nk -force redirect detach dev vN
		ip netns exec "$HOST" sysctl -qw net.ipv4.ip_forward=1 ;;
	redirect | many)
		ip netns exec "$HOST" sysctl -qw net.ipv4.ip_forward=0
		nk redirect attach dev vH to vN
		nk redirect attach dev vN to vH prefix 10.10.1.0/24
		nk -force -batch "$few"
		if [ "$1" = many ]; then nk -batch "$many"; fi ;;
	esac
}
routes() { # the NIC's IPv4 trie entries, as bpftool reads them
	bpftool -j map dump pinned "/sys/fs/bpf/nkctl/net$(stat -L -c %i "/run/netns/$HOST")"-*/dev"$(ip -n "$HOST" -j link show vN |
		jq '.[0].ifindex')/tcx-ingress-v4" 2>/dev/null | jq length || echo "?"
}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP" "$many" "$few"; cleanup' EXIT
PATHS=(redirect forwarding direct many)
nroutes="?"
for r in $(seq "$R"); do
	for k in 0 1 2 3; do
		p=${PATHS[$(((r - 1 + k) % 4))]}
		case "$p" in
		direct) read -r tcp udp < <(measure "$D1" "$D2" 10.20.0.2) ;;
		*)
			state "$p"
			[ "$p" != many ] || nroutes=$(routes)
			read -r tcp udp < <(measure "$POD" "$REMOTE" 10.10.2.2) ;;
		esac
		echo "$r $p $tcp $udp" >> "$TMP/all"
	done
	echo "round $r of $R done" >&2
done

# Medians per path, and the medians of the per-round ratios.
awk -v nr="$nroutes" -v R="$R" '
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ tcp[$1, $2] = $3; udp[$1, $2] = $4 }
END {
	split("redirect forwarding direct many", P, " ")
	printf "%-22s %10s %14s   (medians of %d interleaved rounds)\n", "path", "TCP Gbit/s", "UDP-64 kpps", R
	for (k = 1; k <= 4; k++) {
		for (r = 1; r <= R; r++) { t[r] = tcp[r, P[k]]; u[r] = udp[r, P[k]] }
		name = P[k] == "redirect" ? "nkctl redirect" : P[k] == "forwarding" ? "kernel forwarding" : \
			P[k] == "direct" ? "direct veth" : "redirect, " nr " routes"
		printf "%-22s %10.2f %14.1f\n", name, median(t, R), median(u, R)
	}
	ratio("redirect/direct:    ", "redirect", "direct", "target >= 0.97")
	ratio("redirect/forwarding:", "redirect", "forwarding", "target >= 1.0")
	ratio(nr " routes/1 route: ", "many", "redirect", "target >= 0.97")
}
function ratio(label, a, b, target,   r, t, u) {
	for (r = 1; r <= R; r++) { t[r] = tcp[r, a] / tcp[r, b]; u[r] = udp[r, a] / udp[r, b] }
	printf "%s TCP %.3f  UDP %.3f  (%s; medians of the per-round ratios)\n", label, median(t, R), median(u, R), target
}' "$TMP/all"
