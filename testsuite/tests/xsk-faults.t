#!/bin/bash
# tier: vm
# timeout: 600
# alone: yes (its doctor checks look at a NIC whose link it detached: another test's nkctl would sweep that NIC's pins first)
# Crash safety of xsk attach and detach (issue 33), as nic-faults.t kills the
# NIC commands: attach, detach and an unlease that sweeps an attach are
# killed with SIGKILL at every BPF command (every STEP-th: libbpf's probes
# come first), every unlink, rename, chown and chmod (their at and f forms) in turn, by strace's
# fault injection. After each kill xsk show and show leases are truthful;
# attach again, detach, and redirect prune heal; in the end no pin, no XDP
# program on the NIC, no map of nkctl's. Then prune with the holder gone
# behind nkctl's back and with the NIC gone; attaches and detaches at once,
# seen by monitor (xsk, xdp; each xsk del with its reason: detached,
# holder-gone, nic-gone); doctor's xsk check and its fixes (a holder
# down among them).
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq strace bpftool

ns_new HOST
sim_new SIM "$HOST" 4
pindir=$(ns_pindir "$HOST")
cookie=${pindir##*-}
defer "rm -rf /sys/fs/bpf/nkctl-xsk/ns$cookie-dev*"
ok() { nk "$@"; [ "$RC" = 0 ] || { ERR="nkctl $*: exit $RC: $ERR"; return 1; }; }

# The NIC's XDP program and nkctl's AF_XDP pins (globs: no process started).
xsk_state() { # NIC
	local x=none
	[[ $(ip -n "$HOST" link show "$1") == *prog/xdp* ]] && x=xdp
	echo "xdp $x; pins" /sys/fs/bpf/nkctl-xsk/ns"$cookie"-dev* "$pindir"/xsk*
}
snapshot() { xsk_state "$SIM"; }
BASE=$(snapshot)
expect_eq "$BASE" "xdp none; pins /sys/fs/bpf/nkctl-xsk/ns$cookie-dev* $pindir/xsk*" "nothing of AF_XDP to start with"

# truthful: every queue xsk show lists has its pin and says whether the
# NIC's program is there as the NIC has it; show leases names the same map
# for the leased queue 3 as xsk show's queue still leased (none when show
# lists none); a queue whose lease ended is shown so (leased false).
truthful() {
	local xs sl prog=false p
	nk -n "$HOST" -j xsk show && xs=$OUT || return 1
	nk -n "$HOST" -j show leases && sl=$OUT || return 1
	[[ $(ip -n "$HOST" link show "$SIM") == *prog/xdp* ]] && prog=true
	p=$(jq -rn --argjson xs "$xs" --argjson sl "$sl" --argjson prog $prog --arg sim "$SIM" '
		if ($xs.xsk | all(.program == $prog)) and
		   ([$sl.leases[] | select(.ifname == $sim and .id == 3) | .["xsk-map"] // empty] ==
		    [$xs.xsk[] | select(.queues[0]["nic-queue"] == 3 and .leased) | .pin]) and
		   ([$sl.leases[] | select(.ifname == $sim and .id == 3)] != [] or
		    ($xs.xsk | all(.leased | not)))
		then [$xs.xsk[].pin] | join(" ") else "untrue" end')
	[ "$p" != untrue ] || { ERR="xsk show $xs, show leases $sl, program on the NIC: $prog"; return 1; }
	for p in $p; do [ -e "$p" ] || { ERR="xsk show lists $p, which is not there: $xs"; return 1; }; done
}
attached_right() { # the holder's directory and pin as attach left them, for the VMM's user
	local d=/sys/fs/bpf/nkctl-xsk/ns"$cookie"-dev"$nkx_idx"
	[ "$(stat -c %u:%a "$d") $(stat -c %u:%a "$d/map")" = "4221:700 4221:600" ] ||
		{ ERR="the directory's and pin's owner and mode are not 4221, 0700 and 0600"; return 1; }
	[ "$(ip -n "$HOST" -j link show nkx | jq '.[0].flags | index("UP") != null')" = true ] ||
		{ ERR="attach left the holder down"; return 1; }
}

expect_rc 0 "a single holder" -n "$HOST" link add nkx type single rxqueues 2
expect_rc 0 "it leases NIC queue 3" -n "$HOST" lease dev nkx from "$SIM" queue 3
nkx_idx=$(ifindex_of "$HOST" nkx)
ATTACH="-n $HOST xsk attach dev nkx user 4221 mode 0600"

# renameat: a fresh map pinned aside, then over the pin; fchown, fchownat,
# fchmodat: the holder's directory made root's, the map given; sendto: the
# queue dumps and the holder's RTM_NEWLINK that brings it up.
KILL_CLASSES="bpf unlinkat renameat fchown fchownat fchmodat sendto"
kill_cycle "attach, then truthful, attach again and detach" : "$ATTACH" \
	"truthful && ok $ATTACH && attached_right && ok -n $HOST xsk detach dev nkx" : 5
KILL_CLASSES="bpf unlink unlinkat"
kill_cycle "detach, then truthful and detach again" "ok $ATTACH" "-n $HOST xsk detach dev nkx" \
	"truthful && ok -n $HOST -force xsk detach dev nkx" : 3
# unlease deletes the holder; its sweep detaches the queue; a kill before
# that leaves the attach of a queue no longer leased, which prune sweeps.
holder() {
	"$NKCTL" -n "$HOST" link del nkx > /dev/null 2>&1
	ok -n "$HOST" link add nkx type single rxqueues 2 && ok -n "$HOST" lease dev nkx from "$SIM" queue 3 && ok $ATTACH
}
KILL_CLASSES="bpf"
kill_cycle "unlease, then truthful and prune" holder "-n $HOST unlease dev nkx" \
	"truthful && ok -n $HOST -j redirect prune" : 4
for _ in $(seq 50); do
	[ -z "$(bpftool -j map show | jq -r '.[] | select(.name | startswith("nk_xsk")) | .id')" ] && break
	sleep 0.1
done
expect_eq "$(bpftool -j map show | jq -c '[.[] | select(.name | startswith("nk_xsk")) | .name]')" "[]" \
	"no map of nkctl's AF_XDP left"

# prune: the holder deleted behind nkctl's back, then the NIC removed.
expect_rc 0 "a holder again" -n "$HOST" link add nkx type single rxqueues 2
expect_rc 0 "its lease" -n "$HOST" lease dev nkx from "$SIM" queue 3
expect_rc 0 "attach" $ATTACH
pin=/sys/fs/bpf/nkctl-xsk/ns$cookie-dev$(ifindex_of "$HOST" nkx)/map
sim_idx=$(ifindex_of "$HOST" "$SIM")
ip -n "$HOST" link del nkx
expect_rc 0 "the holder deleted by ip: xsk show" -n "$HOST" -j xsk show
expect_eq "$(printf '%s' "$OUT" | jq -c '[.xsk[] | [.pin, .program, .leased]]')" "[[\"$pin\",true,false]]" \
	"the holder deleted by ip: show lists its queue, the lease ended, until a sweep"
expect_rc 0 "redirect prune" -n "$HOST" -j redirect prune
expect_eq "$(printf '%s' "$OUT" | jq -c '[.["xsk-pruned"][].pin] | sort')" \
	"$(jq -cn --arg a "$pin" --arg b "$pindir/xsk$sim_idx/link" '[$a, $b] | sort')" \
	"the holder deleted by ip: prune lists its map and the NIC's program"
expect_eq "$(snapshot)" "$BASE" "the holder deleted by ip: nothing left after prune"
expect_rc 0 "prune again" -n "$HOST" -j redirect prune
expect_eq "$(printf '%s' "$OUT" | jq -c '.["xsk-pruned"]')" "[]" "prune again removes nothing"

# Attaches at once: two holders on one NIC, and one on a second NIC, with
# a monitor of xsk and xdp (and link, for monitor_ready) watching.
sim_new SIM2 "$HOST" 4
"$NKCTL" -n "$HOST" -j monitor link xsk xdp > "$T_TMP/mon" 2>&1 &
mon=$!
defer "kill $mon"
monitor_ready "$HOST" "$T_TMP/mon"
# mon_wait OBJECT ACTION N: the monitor printed N such records (the
# re-dump sees them within a second).
mon_wait() {
	local i
	for i in $(seq 300); do
		[ "$(grep -c "\"object\":\"$1\",\"action\":\"$2\"" "$T_TMP/mon")" -ge "$3" ] && return 0
		sleep 0.1
	done
	fail "the monitor printed no $3 $1 $2 records: $(cat "$T_TMP/mon")"
}
# at_once attach|detach REGEX: the command on nka, nkb and nkc at once;
# each must print its line (REGEX, with @ for the holder).
at_once() {
	local h jobs=()
	for h in nka nkb nkc; do
		"$NKCTL" -n "$HOST" xsk "$1" dev $h > "$T_TMP/$1.$h" 2>&1 &
		jobs+=($!)
	done
	wait "${jobs[@]}"
	for h in nka nkb nkc; do
		grep -q "${2//@/$h}" "$T_TMP/$1.$h" || fail "$1 of $h at once with the others: $(cat "$T_TMP/$1.$h")"
	done
}
for h in nka nkb nkc; do nk -n "$HOST" link add $h type single rxqueues 2; done
expect_rc 0 "nka leases queue 2" -n "$HOST" lease dev nka from "$SIM" queue 2
expect_rc 0 "nkb leases queue 3" -n "$HOST" lease dev nkb from "$SIM" queue 3
expect_rc 0 "nkc leases queue 3 of the second NIC" -n "$HOST" lease dev nkc from "$SIM2" queue 3
at_once attach "^@ pin"
pass "three attaches at once, two on one NIC, all done"
mon_wait xsk new 3
mon_wait xdp new 2
expect_eq "$(jq -sc '[.[].event | select(.object == "xsk") | .xsk | [.ifname, .nic, .["nic-queue"]]] | sort' "$T_TMP/mon")" \
	"$(jq -cn --arg a "$SIM" --arg b "$SIM2" '[["nka",$a,2],["nkb",$a,3],["nkc",$b,3]] | sort')" \
	"monitor: an xsk new record per attached queue"
expect_eq "$(jq -sc '[.[].event | select(.object == "xdp") | [.action, .xdp.ifname, .xdp.nkctl]] | sort' "$T_TMP/mon")" \
	"$(jq -cn --arg a "$SIM" --arg b "$SIM2" '[["new",$a,true],["new",$b,true]] | sort')" \
	"monitor: nkctl's program appeared on each NIC"
# No cap below the NIC's: its maps have an entry per RX queue it has (4);
# a holder's, one per queue id netkit allows (4096).
sim_idx=$(ifindex_of "$HOST" "$SIM")
expect_eq "$(bpftool -j map show pinned "$pindir/xsk$sim_idx/slots" | jq .max_entries) $(bpftool -j map show pinned "$pindir/xsk$sim_idx/queues" | jq .max_entries)" \
	"4 4" "the NIC's maps are as large as its RX queues"
expect_eq "$(bpftool -j map show pinned /sys/fs/bpf/nkctl-xsk/ns$cookie-dev$(ifindex_of "$HOST" nka)/map | jq -c '[.type, .max_entries]')" \
	'["xskmap",4096]' "a holder's map holds every queue id a netkit device can have"
expect_rc 0 "xsk show" -n "$HOST" -j xsk show
expect_eq "$(printf '%s' "$OUT" | jq -c '[.xsk[] | [.ifname, .queues[0].nic, .queues[0]["nic-queue"], .program]] | sort')" \
	"$(jq -cn --arg a "$SIM" --arg b "$SIM2" '[["nka",$a,2,true],["nkb",$a,3,true],["nkc",$b,3,true]] | sort')" \
	"show lists the three, each NIC's program there"
# The NIC's link taken away: a detach of one holder there keeps the NIC's
# maps and the other holder's map (its slot still names it); attach again
# puts the program back on them.
bpftool link detach pinned "$pindir/xsk$sim_idx/link" || fail "bpftool link detach"
expect_rc 0 "detach nka, the NIC's link dead" -n "$HOST" xsk detach dev nka
[ -e "/sys/fs/bpf/nkctl-xsk/ns$cookie-dev$(ifindex_of "$HOST" nkb)/map" ] && [ -e "$pindir/xsk$sim_idx/slots" ] ||
	fail "a detach on a NIC whose link is dead took the other holder's map or the NIC's maps"
pass "a detach on a NIC whose link is dead keeps the other holder's map and the NIC's maps"
expect_rc 0 "attach nka again" -n "$HOST" xsk attach dev nka
[[ $(ip -n "$HOST" link show "$SIM") == *prog/xdp* ]] || fail "attach did not put the program back"
pass "attach again puts the program back on the NIC"
at_once detach "^detached @"
expect_eq "$(snapshot) / $(xsk_state "$SIM2")" \
	"$BASE / xdp none; pins /sys/fs/bpf/nkctl-xsk/ns$cookie-dev* $pindir/xsk*" \
	"three detaches at once: no program, no pin"
mon_wait xsk del 3
mon_wait xdp del 2
pass "monitor: the three queues and the two programs went"
# xsk_dels: each xsk del record's holder and reason, in order;
# dels_wait N: until there are N.
xsk_dels() {
	jq -sc '[.[].event | select(.object == "xsk" and .action == "del") | [.xsk.ifname, .reason]]' "$T_TMP/mon"
}
dels_wait() {
	local i
	for i in $(seq 300); do
		[ "$(xsk_dels | jq length)" -ge "$1" ] && return 0
		sleep 0.1
	done
	fail "the monitor printed no $1 xsk del records: $(cat "$T_TMP/mon")"
}

# (the detach with the NIC's link dead and the attach after it may fall
# within one re-dump: nka's first del is there or not)
for _ in $(seq 50); do
	xsk_dels | jq -e '.[-3:] | map(.[0]) | sort == ["nka","nkb","nkc"]' > /dev/null && break
	sleep 0.1
done
expect_eq "$(xsk_dels | jq -c '[.[-3:][]] | sort') $(xsk_dels | jq -c '[.[][1]] | unique')" \
	'[["nka","detached"],["nkb","detached"],["nkc","detached"]] ["detached"]' \
	"monitor: a detached queue's del says detached"
n0=$(xsk_dels | jq length)

# The holder deleted by ip: prune sweeps its queue, and the monitor says
# holder-gone.
n=$(grep -c '"object":"xsk","action":"new"' "$T_TMP/mon")
expect_rc 0 "attach nka again" -n "$HOST" xsk attach dev nka
mon_wait xsk new $((n + 1))   # seen before it goes
ip -n "$HOST" link del nka
expect_rc 0 "the holder deleted by ip: redirect prune" -n "$HOST" redirect prune
dels_wait $((n0 + 1))
expect_eq "$(xsk_dels | jq -c ".[$n0]")" '["nka","holder-gone"]' "monitor: a deleted holder's queue's del says holder-gone"

# The NIC removed: the kernel deletes the holder; prune takes the rest.
n=$(grep -c '"object":"xsk","action":"new"' "$T_TMP/mon")
expect_rc 0 "attach nkc again" -n "$HOST" xsk attach dev nkc
mon_wait xsk new $((n + 1))
echo "$SIM2_ID" > /sys/bus/netdevsim/del_device
expect_rc 0 "the NIC removed: redirect prune" -n "$HOST" -j redirect prune
expect_eq "$(printf '%s' "$OUT" | jq '.["xsk-pruned"] | length')" 2 "the NIC removed: prune lists the holder's map and the NIC's program"
expect_eq "$(snapshot)" "$BASE" "the NIC removed: nothing left"
dels_wait $((n0 + 2))
expect_eq "$(xsk_dels | jq -c ".[$((n0 + 1))]")" '["nkc","nic-gone"]' "monitor: the removed NIC's queue's del says nic-gone"
kill $mon
NK_ARGS="monitor link xsk xdp" keep_json json "$(grep '^{"event"' "$T_TMP/mon")"  # for the schema check

# doctor: a pod (a pair, its peer in POD) with a VM's holder in its
# namespace, whose leased queue xsk attach prepared. No socket: a warning.
# nkctl's program taken off the NIC (its link detached), then another
# program in its place: a failure, and the fix doctor prints heals it.
ns_new POD
podpins=$(ns_pindir "$POD")
podpins=/sys/fs/bpf/nkctl-xsk/ns${podpins##*-}-dev*
defer "rm -rf $podpins"
sim_idx=$(ifindex_of "$HOST" "$SIM")
nk -n "$HOST" link add nkh peer nkp peer-netns "$POD"
expect_rc 0 "the VM's holder in the pod's namespace" -n "$POD" link add vm0 type single rxqueues 2
expect_rc 0 "it leases NIC queue 1" -n "$POD" lease dev vm0 from "$SIM" phys-netns "$HOST" queue 1
expect_rc 0 "attach" -n "$POD" xsk attach dev vm0 user 4221 mode 0640
xsk_check() { # XC: the pod's xsk checks as [status, fix]
	nk -n "$HOST" -j doctor dev nkh
	XC=$(printf '%s' "$OUT" | jq -c '[.doctor.pods[0].checks[] | select(.check == "xsk") | [.status, .fix]]')
}
xsk_check
expect_eq "$XC" '[["warn",null]]' "doctor: a map but no socket in it is a warning"
expect_match "$OUT" "has an XSK map \\(/sys/fs/bpf/nkctl-xsk/ns[0-9]+-dev[0-9]+/map\\) but no AF_XDP socket" "doctor says so"
FIX="nkctl -n $POD xsk attach dev vm0 user 4221 group 0 mode 0640"
bpftool link detach pinned "$pindir/xsk$sim_idx/link" || fail "bpftool link detach"
xsk_check
expect_eq "$XC" "[[\"fail\",\"$FIX\"]]" "doctor: nkctl's program gone from the NIC is a failure, with the fix"
eval "${FIX//nkctl /$NKCTL }" > /dev/null || fail "the fix failed"
xsk_check
expect_eq "$XC" '[["warn",null]]' "doctor: the fix put the program back"
[[ $(ip -n "$HOST" link show "$SIM") == *prog/xdp* ]] || fail "no program on the NIC after the fix"
pass "the program is on the NIC again"
if command -v clang > /dev/null; then
	cat > "$T_TMP/xdp.c" <<'XDP'
#include <linux/bpf.h>
__attribute__((section("xdp"), used)) int pass(struct xdp_md *ctx) { return XDP_PASS; }
char _license[] __attribute__((section("license"), used)) = "GPL";
XDP
	clang -O2 -target bpf -I"/usr/include/$(gcc -dumpmachine)" -c "$T_TMP/xdp.c" -o "$T_TMP/xdp.o" ||
		fail "cannot build the XDP program"
	bpftool link detach pinned "$pindir/xsk$sim_idx/link" || fail "bpftool link detach"
	ip -n "$HOST" link set dev "$SIM" xdpdrv obj "$T_TMP/xdp.o" sec xdp || fail "cannot attach XDP"
	FIX="ip -n $HOST link set dev $SIM xdp off && $FIX"
	xsk_check
	expect_eq "$XC" "[[\"fail\",\"$FIX\"]]" "doctor: another program on the NIC is a failure, with the fix"
	eval "${FIX//nkctl /$NKCTL }" > /dev/null || fail "the fix failed"
	xsk_check
	expect_eq "$XC" '[["warn",null]]' "doctor: the fix put nkctl's program back"
else
	skip_part foreign-xdp "no clang: another XDP program in nkctl's place is not exercised"
fi
# The holder down (as link add and lease leave it): a VMM's socket is never
# readable in poll() and cannot send; doctor fails it, its fix heals it.
ip -n "$POD" link set vm0 down
xsk_check
expect_eq "$(printf '%s' "$XC" | jq -r '.[0][0]')" fail "doctor: a prepared queue's holder down is a failure"
FIX=$(printf '%s' "$XC" | jq -r '.[0][1]')
expect_match "$FIX" "^ip -n .* link set dev vm0 up\$" "doctor's fix brings the holder up"
eval "$FIX" || fail "the fix failed"
xsk_check
expect_eq "$XC" '[["warn",null]]' "doctor: the holder up again"
expect_rc 0 "unlease" -n "$POD" unlease dev vm0
expect_eq "$(snapshot) $(echo $podpins)" "$BASE $podpins" "unlease: nothing left"
done_testing
