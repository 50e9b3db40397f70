#!/bin/bash
# tier: vm
# timeout: 300
# A newcomer's path, as written: README.md's Quick start (the blocks after
# "<!-- quickstart -->") and cni/README.md's "Try it" (after
# "<!-- cni-quickstart -->"), each block run by bash -e -x command by command
# (the first that fails ends it), with only "NIC=" changed, to a netdevsim NIC
# with 16 queues in a namespace of the test's own. nkctl is on PATH and the
# plugin in /usr/lib/cni, as make install puts them (install.t and
# package.t test that part). The Quick start reaches a lease of queue 15 as
# lease1's queue 1, in pod1, reserved and steered; its end leaves nothing of
# it. The CNI pod gets a queue of 8-15; its DEL leaves nothing either.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq ip nsenter
top=$(cd "$TESTSUITE/.." && pwd)
PLUGIN=$NKCTL_HELPERS/nkctl-cni
[ -x "$PLUGIN" ] || skip "no $PLUGIN (make builds it where libjson-c-dev is installed)"
[ -x /usr/lib/cni/host-local ] || skip "no host-local IPAM plugin (containernetworking-plugins)"

ns_new HOST
sim_new SIM "$HOST" 16
need_sim_rss "$HOST" "$SIM"
# The fixed names the documents use; whatever a failure leaves goes too.
defer "ip netns del pod1 2> /dev/null; ip netns del pod2 2> /dev/null; rm -rf /var/lib/cni/networks/nk"

# What make install does, here where / is a throw-away overlay.
mkdir -p "$T_TMP/path"
ln -s "$NKCTL" "$T_TMP/path/nkctl"
[ -e /usr/lib/cni/nkctl-cni ] || { ln -s "$PLUGIN" /usr/lib/cni/nkctl-cni && defer "rm -f /usr/lib/cni/nkctl-cni"; }
[ -e /etc/cni/net.d/10-nk.conflist ] && skip "/etc/cni/net.d/10-nk.conflist exists: not overwriting it"
defer "rm -f /etc/cni/net.d/10-nk.conflist"

# blocks FILE MARK DIR: the fenced blocks that follow "<!-- MARK -->" lines,
# as DIR/1, DIR/2, ...; prints how many.
blocks() {
	mkdir -p "$3"
	awk -v mark="<!-- $2 -->" -v dir="$3" '
		$0 == mark { want = 1; next }
		want && /^```/ { n++; want = 0; inblock = 1; next }
		inblock && /^```$/ { inblock = 0; close(dir "/" n); next }
		inblock { print > (dir "/" n) }
		END { print n + 0 }' "$1"
}

# run_block FILE: the block with NIC= set to the test's NIC (the variables of
# the first block of its document are set before a later block, as in the
# reader's shell), in HOST, bash -e -x. nsenter, not "ip netns exec": the
# latter's own mount namespace would keep pod1's /run/netns mount to itself,
# and pod1 (with the lease in it) would go when the block ends.
run_block() {
	local vars
	vars=$(grep -E '^[A-Z]+=' "$(dirname "$1")/1" | sed "s/^NIC=.*/NIC=$SIM/")
	{ printf '%s\n' "$vars"; grep -Ev '^[A-Z]+=' "$1"; } > "$1.sh"
	nsenter --net="/run/netns/$HOST" env PATH="$T_TMP/path:$PATH" bash -e -x -o pipefail "$1.sh" \
		> "$1.out" 2> "$1.err" || fail "$(basename "$(dirname "$1")") block $(basename "$1"): $(tail -n 12 "$1.err")"
}

# nothing_left DESC: no lease, rule or reserved queue of the NIC.
nothing_left() {
	nk -n "$HOST" -j show leases
	expect_eq "$(printf '%s' "$OUT" | jq -c --arg s "$SIM" '[.leases[] | select(.ifname == $s)]')" '[]' "$1: no lease of the NIC"
	nk -n "$HOST" -j nic show dev "$SIM"
	expect_eq "$(printf '%s' "$OUT" | jq -c '[(.nics[0].rules | length), ([.nics[0].queues[] | select(.reserved)] | length)]')" \
		'[0,0]' "$1: no steering rule or reserved queue left"
}

n=$(blocks "$top/README.md" quickstart "$T_TMP/qs")
expect_eq "$n" 2 "README.md has two Quick start blocks"
grep -q '^NIC=' "$T_TMP/qs/1" || fail "the Quick start does not set NIC="
t0=$SECONDS
run_block "$T_TMP/qs/1"
pass "Quick start, first block: $(grep -cv '^#' "$T_TMP/qs/1") commands ran ($((SECONDS - t0)) s)"
nk -n "$HOST" -j show leases
expect_eq "$(printf '%s' "$OUT" | jq -c --arg s "$SIM" '[.leases[] | select(.ifname == $s) |
	[.id, .lease.ifname, .lease.netns, .lease.queue.id, .reserved, [.rules[].dst]]]')" \
	'[[15,"lease1","pod1",1,true,["10.20.1.2"]]]' \
	"the lease: NIC queue 15 is lease1's queue 1 in pod1, out of RSS, 10.20.1.2 steered to it"
expect_match "$(cat "$T_TMP/qs/1.out")" 'lease1' "show dev lease1 and show leases printed it"
t0=$SECONDS
run_block "$T_TMP/qs/2"
pass "Quick start, second block ($((SECONDS - t0)) s)"
nothing_left "after the Quick start's end"
expect_eq "$(ip netns list | grep -cw pod1)" 0 "pod1 is gone"
expect_eq "$(ip -n "$HOST" -o link show | grep -c 'nk1')" 0 "nk1 is gone"

n=$(blocks "$top/cni/README.md" cni-quickstart "$T_TMP/cni")
expect_eq "$n" 2 "the CNI README has two \"Try it\" blocks"
t0=$SECONDS
run_block "$T_TMP/cni/1"
pass "CNI, first block: the network written, pod2 added ($((SECONDS - t0)) s)"
expect_eq "$(head -n 1 "$T_TMP/cni/1.out" | jq -c '[.cniVersion, .interfaces[1].name, .interfaces[1].sandbox, (.ips | length)]' 2>&1)" \
	'["1.0.0","eth0","/run/netns/pod2",1]' "ADD printed the CNI result: eth0 in pod2 with an address"
nk -n "$HOST" -j show leases
expect_eq "$(printf '%s' "$OUT" | jq -c --arg s "$SIM" '[.leases[] | select(.ifname == $s) | (.id >= 8 and .id <= 15), .lease.netns]')" \
	'[true,"pod2"]' "pod2 leased one queue of 8-15, its holder in pod2"
t0=$SECONDS
run_block "$T_TMP/cni/2"
pass "CNI, second block: pod2 deleted ($((SECONDS - t0)) s)"
nothing_left "after DEL"
expect_eq "$(find /var/lib/cni/networks/nk -type f -name '[0-9]*' 2> /dev/null | wc -l)" 0 "no IPAM reservation left"
expect_eq "$(ip -n "$HOST" -o link show | grep -c 'nk[0-9a-f]\{10\}')" 0 "no pair of the pod left"
done_testing
