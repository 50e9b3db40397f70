# SPDX-License-Identifier: GPL-2.0
# What the VM benchmarks share (sourced): a netdevsim NIC of their own.

# bench_sim NETNS QUEUES [NTUPLE [INDIR]]: a netdevsim device with QUEUES
# queues, named nkbsim and up in NETNS; its id in SIM_ID (the caller's
# cleanup deletes it). With the VM's test patch, NTUPLE: room for that many
# n-tuple rules (netdevsim's table holds 32 by default); INDIR: the RSS
# indirection table's size.
bench_sim() {
	local pdir dev=""
	modprobe netdevsim
	SIM_ID=$((RANDOM % 30000 + 1000))
	echo "$SIM_ID 1 $2" > /sys/bus/netdevsim/new_device
	for _ in $(seq 50); do
		dev=$(ls "/sys/bus/netdevsim/devices/netdevsim$SIM_ID/net/" 2> /dev/null | head -n 1)
		[ -n "$dev" ] && break
		sleep 0.1
	done
	pdir=/sys/kernel/debug/netdevsim/netdevsim$SIM_ID/ports/0/ethtool/nkctl
	[ -z "${3:-}" ] || [ ! -e "$pdir/ntuple_size" ] || echo "$3" > "$pdir/ntuple_size"
	[ -z "${4:-}" ] || [ ! -e "$pdir/rss_indir_size" ] || echo "$4" > "$pdir/rss_indir_size"
	ip link set "$dev" name nkbsim netns "$1"
	ip -n "$1" link set nkbsim up
}
