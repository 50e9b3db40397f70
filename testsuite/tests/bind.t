#!/bin/bash
# tier: vm
# bind-rx / bind-tx against the real 7.3 kernel. No device here can DMA
# (netdevsim, netkit, veth: vm-recipe.md section 5), so the kernel refuses
# the DMA step; everything up to it is real: dmabuf creation, nkctl's
# preflight, the request, and the mapping of the kernel's refusals.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq
[ -e /dev/udmabuf ] || skip "no /dev/udmabuf"

ns_new HOST
ns_new POD
sim_new SIM "$HOST" 4
sim_idx=$(ifindex_of "$HOST" "$SIM")
nk -n "$HOST" link add nkh peer nkp peer-netns "$POD" rxqueues 4
expect_eq "$RC" 0 "a netkit pair with the peer in the pod"
nk -n "$HOST" link add nks type single rxqueues 4
ip -n "$HOST" link set nkh up
ip -n "$HOST" link set nks up
ip -n "$POD" link set nkp up
expect_rc 0 "lease NIC queue 3 into the pod" -n "$POD" lease dev nkp from "$SIM" phys-netns "$HOST" queue 3

# No binding may be left behind by any refusal: nothing in the holder state,
# no holder process, nothing on the NIC's queues.
no_trace() {
	local s
	s=$(state_files /run/nkctl/bindings | grep -c . || true)
	expect_eq "$($NLPROBE -n "$HOST" queues "$sim_idx" | jq -c '[.[] | select(has("dmabuf"))]')" "[]" "$1: no dmabuf on the NIC"
	expect_eq "$(ip netns pids "$HOST"; ip netns pids "$POD")" "" "$1: no holder process"
	expect_eq "$(grep -l "netns-ino $(stat -L -c %i /run/netns/$HOST)\$\|netns-ino $(stat -L -c %i /run/netns/$POD)\$" /run/nkctl/bindings/* /run/nkctl/bindings/.tmp.* 2>/dev/null)" "" "$1: no state file (of $s)"
	expect_eq "$(stale_temps /run/nkctl/bindings)" "" "$1: no temp file left"
}

# The kernel's own refusals, reached with no-preflight.
expect_error 5 "bind-rx on a netdevsim queue" -n "$HOST" bind-rx dev "$SIM" queue 0 dmabuf udmabuf size 4M no-preflight
expect_match "$ERR" "^Error: bind-rx on $SIM: Device doesn't support DMA\$" "the kernel's words, one line"
expect_error 5 "bind-rx on the leased netkit queue" -n "$POD" bind-rx dev nkp queue 1 dmabuf udmabuf size 4M no-preflight
expect_match "$ERR" "Device doesn't support DMA" "netkit resolves to netdevsim, which has no DMA"
expect_error 5 "bind-rx on a netkit queue without a lease" -n "$POD" bind-rx dev nkp queue 0 dmabuf udmabuf size 4M no-preflight
expect_match "$ERR" "Device doesn't support DMA" "the kernel's refusal for an unleased queue"
expect_error 2 "bind-rx on a queue the netkit does not have" -n "$POD" bind-rx dev nkp queue 3 dmabuf udmabuf size 4M no-preflight
expect_match "$ERR" "\(queues\.id\)\$" "the kernel names the bad attribute"
expect_error 5 "bind-tx on the netkit with a lease" -n "$POD" bind-tx dev nkp dmabuf udmabuf size 4M
expect_match "$ERR" "No DMA-capable device found for netmem TX" "the kernel's words for TX"
expect_error 5 "bind-tx on netdevsim" -n "$HOST" bind-tx dev "$SIM" dmabuf heap system size 4M
expect_match "$ERR" "Driver does not support netmem TX" "netdevsim cannot do netmem TX"
ip -n "$HOST" link add vA type veth peer name vB
ip -n "$HOST" link set vA up
expect_error 5 "bind-rx on a veth (kernel)" -n "$HOST" bind-rx dev vA queue 0 dmabuf udmabuf size 4M no-preflight
expect_match "$ERR" "does not support devmem \(no queue management operations\)" "no queue API"
expect_error 5 "bind-tx on a veth (kernel)" -n "$HOST" bind-tx dev vA dmabuf udmabuf size 4M no-preflight
expect_error 1 "a bad fd" -n "$HOST" bind-tx dev "$SIM" dmabuf fd 77
expect_match "$ERR" 'no such open descriptor' "names the descriptor"
expect_error 1 "an fd that is no dmabuf" -n "$HOST" bind-tx dev "$SIM" dmabuf fd 0
expect_match "$ERR" 'is not a dmabuf' "checked before the kernel sees it"
no_trace "after the kernel's refusals"

# nkctl's preflight, before any dmabuf is made.
expect_error 5 "bind-rx on a veth (preflight)" -n "$HOST" bind-rx dev vA queue 0 dmabuf udmabuf size 4M
expect_match "$ERR" 'virtual device \(veth\) without a DMA device' "says why"
expect_error 5 "bind-rx on an unleased netkit queue (preflight)" -n "$POD" bind-rx dev nkp queue 0 dmabuf udmabuf size 4M
expect_match "$ERR" 'queue 0 of nkp is not leased from a NIC.*nkctl lease dev nkp' "says what to run"
expect_error 5 "bind-tx on a netkit without a lease (preflight)" -n "$HOST" bind-tx dev nks dmabuf udmabuf size 4M
expect_match "$ERR" 'nks is a netkit device without a leased queue: bind-tx needs' "explains that it needs a lease"
expect_error 4 "bind-rx on the NIC's leased queue" -n "$HOST" bind-rx dev "$SIM" queue 3 dmabuf udmabuf size 4M
expect_match "$ERR" 'leased to a netkit device .*bind through the netkit device' "points at the netkit"
expect_error 3 "a queue the NIC does not have" -n "$HOST" bind-rx dev "$SIM" queue 7 dmabuf udmabuf size 4M
expect_error 3 "a device that does not exist" -n "$HOST" bind-rx dev nope queue 0 dmabuf udmabuf size 4M

# tcp-data-split and hds-thresh on the NIC doing the DMA, set through ethtool
# netlink by nlprobe and read back the same way.
expect_eq "$($NLPROBE -n "$HOST" rings "$sim_idx" | jq -r '."tcp-data-split"')" on "netdevsim reports header split on"
$NLPROBE -n "$HOST" rings-set "$sim_idx" tcp-data-split off >/dev/null || fail "cannot turn tcp-data-split off"
expect_eq "$($NLPROBE -n "$HOST" rings "$sim_idx" | jq -r '."tcp-data-split"')" off "the kernel has it off"
expect_error 2 "tcp-data-split off on the leased NIC" -n "$POD" bind-rx dev nkp queue 1 dmabuf udmabuf size 4M
expect_match "$ERR" "tcp-data-split is off on $SIM; devmem needs header split \(nkctl nic reserve dev $SIM queue [0-9,]+\)" "checks the NIC behind the netkit, points at nic reserve"
expect_error 2 "tcp-data-split off on the NIC itself" -n "$HOST" bind-rx dev "$SIM" queue 0 dmabuf udmabuf size 4M
$NLPROBE -n "$HOST" rings-set "$sim_idx" tcp-data-split on hds-thresh 256 >/dev/null || fail "cannot set hds-thresh"
expect_error 2 "hds-thresh not zero" -n "$POD" bind-rx dev nkp queue 1 dmabuf udmabuf size 4M
expect_match "$ERR" "hds-thresh is 256 on $SIM; devmem needs 0 \(nkctl nic reserve dev $SIM queue [0-9,]+\)" "points at nic reserve"
$NLPROBE -n "$HOST" rings-set "$sim_idx" hds-thresh 0 >/dev/null || fail "cannot reset hds-thresh"

# An XDP program on the NIC.
if command -v clang >/dev/null; then
	cat > "$T_TMP/xdp.c" <<'XDP'
#include <linux/bpf.h>
__attribute__((section("xdp"), used)) int pass(struct xdp_md *ctx) { return XDP_PASS; }
char _license[] __attribute__((section("license"), used)) = "GPL";
XDP
	clang -O2 -target bpf -I"/usr/include/$(gcc -dumpmachine)" -c "$T_TMP/xdp.c" -o "$T_TMP/xdp.o" || fail "cannot build the XDP program"
	# The kernel refuses XDP on a device with header split: turn it off first.
	$NLPROBE -n "$HOST" rings-set "$sim_idx" tcp-data-split off >/dev/null || fail "cannot turn tcp-data-split off"
	ip -n "$HOST" link set dev "$SIM" xdp obj "$T_TMP/xdp.o" sec xdp || fail "cannot attach XDP"
	expect_error 4 "an XDP program on the NIC" -n "$POD" bind-rx dev nkp queue 1 dmabuf udmabuf size 4M
	expect_match "$ERR" "$SIM has an XDP program attached \(id [0-9]+\).*ip link set dev $SIM xdp off" "says the fix"
	ip -n "$HOST" link set dev "$SIM" xdp off
	$NLPROBE -n "$HOST" rings-set "$sim_idx" tcp-data-split on >/dev/null || fail "cannot turn tcp-data-split on"
else
	skip_part xdp-preflight "no clang: the XDP preflight is not exercised"
fi

# With every check passing, the kernel has the last word.
expect_error 5 "all checks pass: the kernel refuses the DMA" -n "$POD" bind-rx dev nkp queue 1 dmabuf udmabuf size 4M
expect_match "$ERR" "Device doesn't support DMA" "the kernel's refusal"

# dmabuf sources: creation succeeds up to the bind, refusals are clear.
expect_error 5 "a dma-heap dmabuf reaches the kernel" -n "$HOST" bind-rx dev "$SIM" queue 0 dmabuf heap system size 8M no-preflight
expect_match "$ERR" "Device doesn't support DMA" "the heap dmabuf was made and sent"
expect_error 3 "a heap that does not exist" -n "$HOST" bind-rx dev "$SIM" queue 0 dmabuf heap nosuch size 4M
expect_error 1 "size not page-aligned" -n "$HOST" bind-rx dev "$SIM" queue 0 dmabuf udmabuf size 5000
expect_error 1 "hugepages needs 2M multiples" -n "$HOST" bind-rx dev "$SIM" queue 0 dmabuf udmabuf size 1M hugepages
expect_error 1 "rx-page-size above 4K needs hugepages" -n "$HOST" bind-rx dev "$SIM" queue 0 dmabuf udmabuf size 4M rx-page-size 16384
expect_error 1 "rx-page-size not a power of 2" -n "$HOST" bind-rx dev "$SIM" queue 0 dmabuf udmabuf size 4M hugepages rx-page-size 12288
free_huge=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
if [ "$free_huge" = 0 ]; then
	expect_error 2 "hugepages when none are free" -n "$HOST" bind-rx dev "$SIM" queue 0 dmabuf udmabuf size 4M hugepages
	expect_match "$ERR" 'not enough free 2M huge pages: 0 free, 2 needed.*nr_hugepages' "says how to get some"
fi
# Huge pages are a global resource; take two only for this check, and give them back.
old=$(cat /proc/sys/vm/nr_hugepages)
echo $((old + 2)) > /proc/sys/vm/nr_hugepages
defer "echo $old > /proc/sys/vm/nr_hugepages"
if [ "$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)" -ge 2 ]; then
	expect_error 5 "a huge-page udmabuf with rx-page-size 16K reaches the kernel" -n "$HOST" bind-rx dev "$SIM" queue 0 \
		dmabuf udmabuf size 4M hugepages rx-page-size 16384 no-preflight
	expect_match "$ERR" "Device doesn't support DMA" "the huge-page dmabuf was made and sent"
fi
no_trace "after every refusal"

# show bindings in a namespace without any.
expect_rc 0 "show bindings" -n "$HOST" -j show bindings
expect_eq "$OUT" '{"bindings":[]}' "no bindings"
expect_error 3 "unbind an id that does not exist" -n "$HOST" unbind id 12345
expect_error 3 "unbind a device without bindings" -n "$HOST" unbind dev "$SIM"
done_testing
