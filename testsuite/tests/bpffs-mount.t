#!/bin/bash
# tier: host
# bpffs is mounted once (issue 29). On a machine where /sys/fs/bpf is not
# mounted yet (a fresh CI machine, a node image without systemd), 16 first
# nkctl commands start at once, each a redirect attach on its own veth: one
# bpffs ends up on /sys/fs/bpf, every command succeeds, and every pin is
# visible there (stacked mounts would hide the lower one's pins). Runs in a
# private mount and PID namespace (unshare -m -p --mount-proc: nkctl takes
# PID 1's mount namespace for the host's), so the machine's /sys/fs/bpf is
# untouched. Each mount(2) is delayed by 0.3 s (strace's fault injection),
# wide enough a window between looking for bpffs and mounting it that
# commands without a lock mount several every time. (The sanitizers' leak
# check needs ptrace, which strace holds: off for these commands.)
. "$TESTSUITE/lib.sh"
need_root
need_cmd unshare jq strace

N=16
ns_new HOST
for i in $(seq "$N"); do
	ip -n "$HOST" link add "a$i" type veth peer name "b$i" || fail "veth $i"
	ip -n "$HOST" link set "a$i" up
done
PINS=$(ns_pindir "$HOST")

# In the private namespaces: unmount every bpffs on /sys/fs/bpf, start the N
# attaches at once, wait for each, then record what is mounted and seen.
inner() {
	local i pids=()
	while awk '$5 == "/sys/fs/bpf" { f = 1 } END { exit !f }' /proc/self/mountinfo; do
		umount /sys/fs/bpf || { echo "cannot unmount /sys/fs/bpf" >&2; return 1; }
	done
	echo ready > "$T_TMP/unmounted"
	for i in $(seq "$N"); do
		strace -f -qq -o /dev/null -e trace=mount -e inject=mount:delay_enter=300000 \
			env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			"$NKCTL" -n "$HOST" redirect attach dev "a$i" to "b$i" prefix "10.20.$i.0/24" \
			> "$T_TMP/out.$i" 2> "$T_TMP/err.$i" &
		pids+=($!)
	done
	for i in $(seq "$N"); do
		wait "${pids[$((i - 1))]}"
		echo $? > "$T_TMP/rc.$i"
	done
	awk '$5 == "/sys/fs/bpf" { print $9 }' /proc/self/mountinfo > "$T_TMP/mounts"
	for i in $(seq "$N"); do
		"$NKCTL" -n "$HOST" -j redirect show dev "a$i" > "$T_TMP/show.$i" 2>&1
		ls -A "$PINS/dev$(ip -n "$HOST" -j link show "a$i" | jq '.[0].ifindex')" > "$T_TMP/pins.$i" 2>&1
	done
	return 0
}
export -f inner
export N HOST PINS T_TMP NKCTL
unshare -m -p --fork --mount-proc --propagation private bash -c inner ||
	fail "the private namespaces' run failed (exit $?)"
[ -e "$T_TMP/unmounted" ] || fail "bpffs was not unmounted in the private namespace"
pass "bpffs unmounted in a private mount namespace, $N attaches started at once"

expect_eq "$(grep -c . "$T_TMP/mounts")" 1 "exactly one bpffs on /sys/fs/bpf"
for i in $(seq "$N"); do
	rc=$(cat "$T_TMP/rc.$i")
	[ "$rc" = 0 ] || fail "attach $i exited $rc: $(cat "$T_TMP/err.$i")"
	jq -e --arg p "10.20.$i.0/24" '[.redirects[].routes[].prefixes[]] == [$p]' "$T_TMP/show.$i" > /dev/null ||
		fail "attach $i: show does not list its route: $(cat "$T_TMP/show.$i")"
	[ -s "$T_TMP/pins.$i" ] && ! grep -q 'No such file' "$T_TMP/pins.$i" ||
		fail "attach $i: no pins visible: $(cat "$T_TMP/pins.$i")"
done
pass "all $N attaches succeeded, each route shown and its pins visible"
# The machine's own: other tests running beside this one may be the first to
# mount it, but never twice.
expect_match "$(grep -c ' /sys/fs/bpf ' /proc/self/mountinfo)" '^[01]$' "at most one bpffs on the machine's /sys/fs/bpf"
done_testing
