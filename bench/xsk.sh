#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): frames per second the test VMM
# (testsuite/helpers/xsk-vmm: QEMU af-xdp's libxdp calls, copy mode, reading
# only when poll() says readable) receives through a lease (bound to queue 1
# of a single netkit holder that leases NIC queue 6, prepared by "nkctl xsk
# attach") against the same VMM bound to NIC queue 5 itself, without
# netkit. Both go through nkctl's XDP program and the holder's XSK map (the
# NIC-bound socket sits in slot 2 of the same map), so the difference is the lease:
# the kernel's check that a frame of (NIC, 6) belongs to a socket of
# (holder, 1). Target: ratio >= 0.9. Needs netkit leases and the VM's
# netdevsim: run it in the VM,
#   testsuite/vm/vm run -- bench/xsk.sh [ROUNDS] [FRAMES]
# ROUNDS (default 5) interleaved rounds, which one goes first rotating;
# FRAMES (default 2000) UDP datagrams a round, sent from the linked
# netdevsim; the figure is the median of the per-round ratios. The sender
# (python) bounds the rate under TCG: the ratio is what it says, the
# absolute rates are not a NIC's; frames lost (sent, not received) are
# counted for both. NKCTL_BENCH_VERBOSE=1: each round's helper output (with
# the socket's drop counters).
set -eu
R=${1:-5}
N=${2:-2000}
top=$(cd "$(dirname "$0")/.." && pwd)
NKCTL=${NKCTL:-$top/build/nkctl}
XVMM=${NKCTL_HELPERS:-$top/build/helpers}/xsk-vmm
[ "$(id -u)" = 0 ] || { echo "bench/xsk.sh: needs root" >&2; exit 1; }
for f in "$NKCTL" "$XVMM"; do
	[ -x "$f" ] || { echo "bench/xsk.sh: no $f (make; make helpers; libxdp-dev)" >&2; exit 1; }
done

HOST=nkb-xsk-$$
REMOTE=nkb-xskr-$$
IDS=()
cleanup() {
	set +e
	"$NKCTL" -n "$HOST" unlease dev nkb > /dev/null 2>&1
	for id in "${IDS[@]}"; do echo "$id" > /sys/bus/netdevsim/del_device; done
	ip netns del "$HOST" 2> /dev/null
	ip netns del "$REMOTE" 2> /dev/null
}
trap cleanup EXIT
ip netns add "$HOST"
ip netns add "$REMOTE"
modprobe netdevsim
sim() { # NS NAME: a netdevsim with 8 queues, named NAME, in NS
	local id=$((RANDOM % 30000 + 1000)) dev
	echo "$id 1 8" > /sys/bus/netdevsim/new_device
	IDS+=("$id")
	sleep 0.5
	dev=$(ls "/sys/bus/netdevsim/devices/netdevsim$id/net/")
	ip link set "$dev" name "$2" netns "$1"
	ip -n "$1" link set "$2" up
}
sim "$HOST" nkbsim
sim "$REMOTE" nkbrsim
exec {hfd}<"/run/netns/$HOST" {rfd}<"/run/netns/$REMOTE"
hidx=$(ip -n "$HOST" -j link show nkbsim | sed 's/.*"ifindex":\([0-9]*\).*/\1/')
ridx=$(ip -n "$REMOTE" -j link show nkbrsim | sed 's/.*"ifindex":\([0-9]*\).*/\1/')
echo "$hfd:$hidx $rfd:$ridx" > /sys/bus/netdevsim/link_device
ip -n "$HOST" addr add 10.10.2.1/24 dev nkbsim
ip -n "$REMOTE" addr add 10.10.2.2/24 dev nkbrsim
ip -n "$REMOTE" route add 10.77.0.5/32 via 10.10.2.1

"$NKCTL" -n "$HOST" link add nkb type single rxqueues 2 > /dev/null
"$NKCTL" -n "$HOST" lease dev nkb from nkbsim queue 6 reserve steer dst 10.77.0.5 > /dev/null
pin=$("$NKCTL" -n "$HOST" -j xsk attach dev nkb | sed 's/.*"pin":"\([^"]*\)".*/\1/')
ip netns exec "$REMOTE" ping -c 1 -W 3 10.10.2.1 > /dev/null  # ARP, before the clock runs

# NIC queue 5 into slot 2 of the holder's map, by hand (nkctl prepares
# leased queues only); 10.77.0.6 steered to it. unlease's sweep removes it.
nicdir=$(ls -d /sys/fs/bpf/nkctl/net*/xsk"$hidx" | head -n 1)
slot6=$(bpftool -j map lookup pinned "$nicdir/slots" key 6 0 0 0 | sed 's/.*"value":\[\([^]]*\)\].*/\1/; s/"//g; s/,/ /g')
set -- $slot6
shift
bpftool map update pinned "$nicdir/queues" key 5 0 0 0 value pinned "$pin"
bpftool map update pinned "$nicdir/slots" key 5 0 0 0 value 2 "$@"
"$NKCTL" -n "$HOST" steer add dev nkbsim flow-type ip4 dst 10.77.0.6 queue 5 > /dev/null
ip -n "$REMOTE" route add 10.77.0.6/32 via 10.10.2.1

# round DEV QUEUE SLOT DST: the VMM bound to (DEV, QUEUE) in slot SLOT of
# the holder's map, DST's datagrams sent; its frames per second in PPS,
# frames in GOT.
round() {
	local out=$HOST.$1.out ready=/run/$HOST.ready
	rm -f "$ready"
	nsenter --net="/run/netns/$HOST" "$XVMM" "$1" "$2" "$pin" "$3" rx "$N" idle 2000 ready "$ready" copy > "/run/$out" &
	local pid=$!
	while [ ! -e "$ready" ] && kill -0 $pid 2> /dev/null; do sleep 0.05; done
	ip netns exec "$REMOTE" python3 -c "
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range($N):
    s.sendto(b'x' * 64, ('$4', 9999))
"
	wait $pid
	[ -z "${NKCTL_BENCH_VERBOSE:-}" ] || echo "  $1 queue $2: $(cat "/run/$out")"
	PPS=$(sed 's/.*"pps":\([0-9]*\).*/\1/' "/run/$out")
	GOT=$(sed 's/.*"received":\([0-9]*\).*/\1/' "/run/$out")
	rm -f "/run/$out" "$ready"
}
ratios=()
lost=0
for r in $(seq "$R"); do
	if [ $((r % 2)) = 1 ]; then order="lease nic"; else order="nic lease"; fi
	for which in $order; do
		if [ "$which" = lease ]; then
			round nkb 1 1 10.77.0.5
			lease=$PPS
			lgot=$GOT
		else
			round nkbsim 5 2 10.77.0.6
			nic=$PPS
			ngot=$GOT
		fi
	done
	ratio=$(awk -v a="$lease" -v b="$nic" 'BEGIN { printf "%.3f", b ? a / b : 0 }')
	ratios+=("$ratio")
	lost=$((lost + 2 * N - lgot - ngot))
	echo "round $r: lease $lease pps ($lgot of $N frames), nic $nic pps ($ngot of $N frames), ratio $ratio"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{ v[NR] = $1 } END {
	printf "median ratio (lease / NIC queue): %s (lowest %s, highest %s; target >= 0.9)\n",
		v[int((NR + 1) / 2)], v[1], v[NR] }'
echo "frames lost: $lost (target 0)"
