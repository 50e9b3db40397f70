#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): pod -> remote through nkctl's redirects (forwarding
# off), through kernel IP forwarding, and over a direct veth (the limit of
# this machine), in one run. Reports TCP throughput and a small-packet rate
# (UDP, 64-byte payload) and the ratios redirect/direct (target >= 0.97) and
# redirect/forwarding (target >= 1.0). Then the same pod with 1000 routes on
# the NIC (999 of them to 40 other targets, veth devices) against 1 route:
# the per-packet cost must not depend on the number of pods (target >= 0.97).
#
#   bench/redirect.sh [SECONDS]      (default 5 per measurement; needs iperf3)
set -eu
T=${1:-5}
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
	tcp=$(ip netns exec "$c" iperf3 -c "$a" -t "$T" -J | jq '.end.sum_received.bits_per_second / 1e9')
	udp=$(ip netns exec "$c" iperf3 -c "$a" -t "$T" -u -l 64 -b 0 -J |
		jq '(.end.sum.packets - .end.sum.lost_packets) / .end.sum.seconds / 1e3')
	ip netns pids "$s" | xargs -r kill
	sleep 0.3
	echo "$tcp $udp"
}

ip netns exec "$HOST" sysctl -qw net.ipv4.ip_forward=1
read -r fwd_tcp fwd_udp < <(measure "$POD" "$REMOTE" 10.10.2.2)
ip netns exec "$HOST" sysctl -qw net.ipv4.ip_forward=0
"$NKCTL" -n "$HOST" redirect attach dev vH to vN > /dev/null
"$NKCTL" -n "$HOST" redirect attach dev vN to vH prefix 10.10.1.0/24 > /dev/null
read -r red_tcp red_udp < <(measure "$POD" "$REMOTE" 10.10.2.2)
read -r dir_tcp dir_udp < <(measure "$D1" "$D2" 10.20.0.2)
# 1000 routes: 999 more, for 40 other pods, then the pod's own again.
batch=$(mktemp)
for k in $(seq 40); do
	ip -n "$HOST" link add "d$k" type veth peer name "e$k"
	printf 'redirect attach dev vN to d%d' "$k"
	for j in $(seq 25); do
		if [ $(((k - 1) * 25 + j)) -le 999 ]; then printf ' prefix 10.%d.%d.0/24' $((100 + k)) "$j"; fi
	done
	echo
done > "$batch"
"$NKCTL" -n "$HOST" -batch "$batch" > /dev/null
rm -f "$batch"
nroutes=$(bpftool -j map dump pinned "/sys/fs/bpf/nkctl/net$(stat -L -c %i "/run/netns/$HOST")"-*/dev"$(ip -n "$HOST" -j link show vN | jq '.[0].ifindex')/tcx-ingress-v4" 2>/dev/null | jq length || echo "?")
read -r many_tcp many_udp < <(measure "$POD" "$REMOTE" 10.10.2.2)
# 1 route again, so the two 1-route runs bracket the 1000-route one in time
# (this machine's own drift is not counted against the route table).
for k in $(seq 40); do echo "redirect detach dev vN to d$k"; done | "$NKCTL" -n "$HOST" -batch - > /dev/null
read -r one_tcp one_udp < <(measure "$POD" "$REMOTE" 10.10.2.2)

awk -v ft="$fwd_tcp" -v fu="$fwd_udp" -v rt="$red_tcp" -v ru="$red_udp" \
    -v dt="$dir_tcp" -v du="$dir_udp" -v mt="$many_tcp" -v mu="$many_udp" -v nr="$nroutes" -v ot="$one_tcp" -v ou="$one_udp" 'BEGIN {
	printf "%-22s %10s %14s\n", "path", "TCP Gbit/s", "UDP-64 kpps"
	printf "%-22s %10.2f %14.1f\n", "nkctl redirect", rt, ru
	printf "%-22s %10.2f %14.1f\n", "kernel forwarding", ft, fu
	printf "%-22s %10.2f %14.1f\n", "direct veth", dt, du
	printf "%-22s %10.2f %14.1f\n", "redirect, " nr " routes", mt, mu
	printf "redirect/direct:     TCP %.3f  UDP %.3f  (target >= 0.97)\n", rt / dt, ru / du
	printf "redirect/forwarding: TCP %.3f  UDP %.3f  (target >= 1.0)\n", rt / ft, ru / fu
	printf "%-22s %10.2f %14.1f\n", "redirect, 1 route again", ot, ou
	printf "%s routes/1 route:  TCP %.3f  UDP %.3f  (target >= 0.97; 1 route: the mean of both runs)\n",
		nr, mt / ((rt + ot) / 2), mu / ((ru + ou) / 2)
}'
