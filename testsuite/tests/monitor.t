#!/bin/bash
# tier: vm
# nkctl monitor on the real 7.x kernel: one monitor in the NIC's namespace
# (every object) and one in the pod's (links and leases) see, in order, the
# NIC's page pools re-created, a netkit pair created, a queue lease from a
# netdevsim NIC into the pod (from both sides, across namespaces), a binding
# holder start and exit, and the lease and devices gone with the pair. All
# as JSON lines valid against the schema.
#
# No NIC here can DMA, so the binding is made by helpers/nkctl-fakebind
# (nkctl with only the bind-rx request answered by a made-up id, as in
# bind-holder.t): the holder, its state files and locks are real.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq
[ -e /dev/udmabuf ] || skip "no /dev/udmabuf"
FAKE=${NKCTL_HELPERS:-$(dirname "$NKCTL")/helpers}/nkctl-fakebind
[ -x "$FAKE" ] || fail "missing $FAKE (make builds it)"

ns_new HOST
ns_new POD
sim_new SIM "$HOST" 4

target() {
	local c
	c=$(pgrep -P "$1" | head -n 1)
	printf '%s' "${c:-$1}"
}
# seen FILE JQ DESC: a record matching the jq condition shows up (20 s).
seen() {
	for _ in $(seq 200); do
		[ -n "$(jq -c "select(.event | $2)" "$1" 2>/dev/null)" ] && { pass "$3"; return 0; }
		sleep 0.1
	done
	fail "$3: not seen in $(basename "$1"): $(tail -c 2000 "$1")"
}

"$NKCTL" -n "$HOST" -j monitor > "$T_TMP/host" 2> "$T_TMP/host.err" &
hpid=$!
defer "kill $hpid 2>/dev/null"
"$NKCTL" -n "$POD" -j monitor link lease > "$T_TMP/pod" 2> "$T_TMP/pod.err" &
ppid=$!
defer "kill $ppid 2>/dev/null"
monitor_ready "$HOST" "$T_TMP/host"
monitor_ready "$POD" "$T_TMP/pod"

# The NIC's page pools go and come (before any lease) with the device.
ip -n "$HOST" link set "$SIM" down
ip -n "$HOST" link set "$SIM" up
seen "$T_TMP/host" '.object == "page-pool" and .action == "new" and ."page-pool".ifname == "'$SIM'"' \
	"host: page-pool new on $SIM"

# A netkit pair, the peer in the pod.
expect_rc 0 "a netkit pair" -n "$HOST" link add nkh peer nkp peer-netns "$POD" rxqueues 2
seen "$T_TMP/host" '.object == "link" and .action == "new" and .link.ifname == "nkh" and .link.kind == "netkit"' \
	"host: link new nkh"
seen "$T_TMP/pod" '.object == "link" and .action == "new" and .link.ifname == "nkp"' "pod: link new nkp"

# A lease of queue 2 from the pod's side: the kernel says nothing, the
# periodic re-dump sees it on both sides.
expect_rc 0 "lease queue 2 into the pod" -n "$POD" lease dev nkp from "$SIM" phys-netns "$HOST" queue 2
L='.object == "lease" and .lease.ifname == "'$SIM'" and .lease.id == 2'
seen "$T_TMP/host" "$L"' and .action == "new" and .lease.lease.ifname == "nkp" and .lease.lease.netns == "'$POD'"' \
	"host: lease new, the netkit side in the pod"
seen "$T_TMP/pod" "$L"' and .action == "new" and .lease.netns == "'$HOST'" and .lease.lease.ifname == "nkp" and (.lease.lease | has("netns") | not)' \
	"pod: lease new, the NIC side in the host"

# A binding: its holder starts, then ends with unbind.
NKCTL=$FAKE nk -n "$HOST" -j bind-rx dev "$SIM" queue 0 dmabuf udmabuf size 4M
expect_eq "$RC" 0 "bind-rx (fake id, real holder)"
id=$(printf '%s' "$OUT" | jq .bindings[0].id)
pid=$(printf '%s' "$OUT" | jq .bindings[0].holder.pid)
seen "$T_TMP/host" '.object == "holder" and .action == "start" and .holder.binding == '"$id"' and .holder.pid == '"$pid" \
	"host: holder start"
seen "$T_TMP/host" '.object == "binding" and .action == "new" and .binding.id == '"$id" "host: binding new"
expect_rc 0 "unbind" -n "$HOST" unbind id "$id"
seen "$T_TMP/host" '.object == "holder" and .action == "exit" and .holder.binding == '"$id" "host: holder exit"
seen "$T_TMP/host" '.object == "binding" and .action == "del" and .binding.id == '"$id" "host: binding del"

# Deleting the pair ends the lease.
expect_rc 0 "unlease (deletes the pair)" -n "$POD" unlease dev nkp force
seen "$T_TMP/host" "$L"' and .action == "del"' "host: lease del"
seen "$T_TMP/host" '.object == "link" and .action == "del" and .link.ifname == "nkh"' "host: link del nkh"
seen "$T_TMP/pod" "$L"' and .action == "del"' "pod: lease del"
seen "$T_TMP/pod" '.object == "link" and .action == "del" and .link.ifname == "nkp"' "pod: link del nkp"

kill -INT "$(target "$hpid")" "$(target "$ppid")"
wait "$hpid"
expect_eq "$?" 0 "the host's monitor ends with status 0"
wait "$ppid"
expect_eq "$?" 0 "the pod's monitor ends with status 0"
expect_eq "$(cat "$T_TMP/host.err" "$T_TMP/pod.err")" "" "nothing on stderr"

# In order: the line number of the first record matching each condition.
at() { jq -c ".event | $2" "$1" | grep -n true | head -n 1 | cut -d: -f1; }
order() { # order FILE DESC COND...: the conditions' first records come in this order
	local file=$1 desc=$2 prev=0 n
	shift 2
	for c; do
		n=$(at "$file" "$c")
		[ -n "$n" ] && [ "$n" -gt "$prev" ] || fail "$desc: \"$c\" at line ${n:-none}, after line $prev"
		prev=$n
	done
	pass "$desc"
}
order "$T_TMP/host" "host: page pools, pair, lease, holder start and exit, lease gone" \
	'.object == "page-pool" and .action == "new" and ."page-pool".ifname == "'$SIM'"' \
	'.object == "link" and .action == "new" and .link.ifname == "nkh"' \
	"$L"' and .action == "new"' \
	'.object == "holder" and .action == "start"' \
	'.object == "holder" and .action == "exit"' \
	"$L"' and .action == "del"'
order "$T_TMP/host" "host: the pair goes after the holder" \
	'.object == "holder" and .action == "exit"' \
	'.object == "link" and .action == "del" and .link.ifname == "nkh"'
order "$T_TMP/pod" "pod: pair, lease, lease gone" \
	'.object == "link" and .action == "new" and .link.ifname == "nkp"' \
	"$L"' and .action == "new"' \
	"$L"' and .action == "del"'

# Every record is a document of the schema (checked by done_testing).
for f in host pod; do
	$PY -c 'import json,sys
for l in open(sys.argv[1]): json.loads(l)' "$T_TMP/$f" || fail "$f: a line is not JSON"
	mkdir -p "$T_TMP/json"
	T_JSON=$((T_JSON + 1))
	cp "$T_TMP/$f" "$T_TMP/json/$T_JSON.json"
	echo "monitor ($f)" > "$T_TMP/json/$T_JSON.cmd"
done
pass "every record is one JSON line"
done_testing
