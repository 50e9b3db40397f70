#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Benchmark (not a test): what the sweep of ended leases costs as a node
# fills up (issue 30). A pod's CNI DEL ends with the sweep: `link del` of
# its steered lease holder undoes the NIC side of the lease that ended (its
# rule, its queue back into RSS) and reads every other NIC record. Measured:
# the deletions of 10 such pods (through one -batch, so process start-up
# does not count) when they are the only 10 leases on the NIC, then when 240
# more are there (250), then alone again (A-B-A: the two 10s bracket the 250
# against drift), ROUNDS (default 5) times each; the medians, and the ratio
# 250/10 (target <= 1.5x). The same for the sweep alone, when nothing has
# ended (what every CNI DEL and steered ADD pays). Needs a
# netdevsim with the VM's test patch (256 queues, ntuple_size 512,
# rss_indir_size 256): run it in the VM, e.g.
#   testsuite/vm/vm run -- bench/nic-sweep.sh
set -eu
K=10
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
NKCTL=${NKCTL:-$top/build/nkctl}
[ "$(id -u)" = 0 ] || { echo "bench/nic-sweep.sh: needs root" >&2; exit 1; }
NS=nkb-sweep-$$-$RANDOM
tmp=$(mktemp -d)
ip netns add "$NS"
trap '[ -z "${SIM_ID:-}" ] || echo "$SIM_ID" > /sys/bus/netdevsim/del_device; ip netns del "$NS"; rm -rf "$tmp"' EXIT
bench_sim "$NS" 256 512 256
nk() { "$NKCTL" -n "$NS" "$@" > /dev/null; }
us_since() { local now=$EPOCHREALTIME; echo $(( ${now/./} - ${1/./} )); }
addr() { echo "10.40.$(($1 / 200)).$(($1 % 200 + 1))"; }

# leases FROM TO: steered pods FROM..TO (one batch); unleases FROM TO.
leases() {
	for ((i = $1; i <= $2; i++)); do
		echo "link add b$i type single rxqueues 2"
		echo "lease dev b$i from nkbsim pool 1-255 steer dst $(addr "$i")"
	done > "$tmp/up"
	nk -batch "$tmp/up"
}
unleases() {
	for ((i = $1; i <= $2; i++)); do echo "link del b$i"; done > "$tmp/down"
	nk -batch "$tmp/down"
}
# one: K pods leased (not timed), then their K deletions timed, then 100
# sweeps that find nothing ended (unlease -force of a device that is not
# there: the sweep alone, what every CNI DEL and steered ADD pays):
# "DELETIONS-US SWEEPS-US".
one() {
	local t0 d
	leases 1001 $((1000 + K))
	for ((i = 1001; i <= 1000 + K; i++)); do echo "link del b$i"; done > "$tmp/del"
	t0=$EPOCHREALTIME
	nk -batch "$tmp/del"
	d=$(us_since "$t0")
	# (-force on the command line: a batch line is a command, not options)
	for ((i = 0; i < 100; i++)); do echo "unlease dev nosuch"; done > "$tmp/sweep"
	t0=$EPOCHREALTIME
	nk -force -batch "$tmp/sweep"
	echo "$d $(us_since "$t0")"
}

: > "$tmp/r"
for ((r = 0; r < ${ROUNDS:-5}; r++)); do
	a=$(one)
	leases 1 240
	b=$(one)
	unleases 1 240
	c=$(one)
	echo "$a $b $c" >> "$tmp/r"
done
awk -v k="$K" '
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{
	ten[NR] = ($1 + $5) / 2 / k / 1000; many[NR] = $3 / k / 1000; x[NR] = $3 / (($1 + $5) / 2)
	sten[NR] = ($2 + $6) / 2 / 100 / 1000; smany[NR] = $4 / 100 / 1000; sx[NR] = $4 / (($2 + $6) / 2)
}
END {
	printf "link del of a steered pod, with its sweep: %.1f ms with 10 leases on the NIC, %.1f ms with 250: ratio %.2fx\n",
		median(ten, NR), median(many, NR), median(x, NR)
	printf "the sweep alone (nothing ended):          %.2f ms with 10 leases on the NIC, %.2f ms with 250: ratio %.2fx\n",
		median(sten, NR), median(smany, NR), median(sx, NR)
	printf "(medians of %d A-B-A rounds, %d deletions and 100 sweeps each; target <= 1.5x)\n", NR, k
}' "$tmp/r"
