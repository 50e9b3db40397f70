#!/bin/bash
# tier: host
# timeout: 240
# nkctl monitor on this kernel, in a namespace of its own: veth devices come
# and go as JSON lines valid against the schema and as text with -t; count N;
# SIGINT, SIGTERM and a closed pipe end it with status 0; all-nsid labels
# another namespace's events; an ENOBUFS storm (thousands of link events
# while the reader is stopped) gives one "lost" record, then a resync that
# leaves the reader's picture equal to the kernel's.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq

ns_new NS
ns_new NS2

# The process to signal: the nkctl under a wrapper (make check-valgrind
# runs valgrind under a shell script), or nkctl itself.
target() {
	local c
	c=$(pgrep -P "$1" | head -n 1)
	printf '%s' "${c:-$1}"
}
# json_lines FILE DESC: every line one JSON document; kept for the schema check.
json_lines() {
	$PY -c 'import json,sys
for n, l in enumerate(open(sys.argv[1]), 1):
    json.loads(l)' "$1" || fail "$2: a line is not JSON: $(head -c 600 "$1")"
	mkdir -p "$T_TMP/json"
	T_JSON=$((T_JSON + 1))
	cp "$1" "$T_TMP/json/$T_JSON.json"
	printf '%s\n' "$2" > "$T_TMP/json/$T_JSON.cmd"
	pass "$2: JSON lines"
}
# ready FILE: poke rdy0 (an MTU change) until the monitor writing FILE shows it.
ip -n "$NS" link add rdy0 type veth peer name rdy1 || fail "veth rdy0"
ready() {
	for i in $(seq 150); do
		ip -n "$NS" link set rdy0 mtu $((1400 + i))
		sleep 0.1
		grep -q 'rdy0' "$1" && return 0
	done
	fail "the monitor never reported rdy0: $(cat "$1")"
}
# until_exit PID: poke rdy0 until PID is gone (count N, a closed pipe).
until_exit() {
	for i in $(seq 300); do
		kill -0 "$1" 2>/dev/null || return 0
		ip -n "$NS" link set rdy0 mtu $((1300 + i % 90))
		sleep 0.1
	done
	fail "the monitor did not end"
}

# --- link events as JSON lines; SIGINT ends it with 0
"$NKCTL" -n "$NS" -j monitor link > "$T_TMP/m1" 2> "$T_TMP/e1" &
mpid=$!
ready "$T_TMP/m1"
ip -n "$NS" link add va type veth peer name vb || fail "veth va"
ip -n "$NS" link del va
# until both dels are printed (SIGINT may be read before unread events)
for _ in $(seq 300); do
	[ "$(jq -r 'select(.event.action == "del") | .event.link.ifname' "$T_TMP/m1" 2> /dev/null | grep -c '^v[ab]$')" = 2 ] && break
	sleep 0.1
done
kill -INT "$(target "$mpid")"
wait "$mpid"
expect_eq "$?" 0 "SIGINT ends monitor with status 0"
expect_eq "$(cat "$T_TMP/e1")" "" "nothing on stderr"
json_lines "$T_TMP/m1" "monitor link"
seq=$(jq -r '.event | select(.link.ifname == "va" or .link.ifname == "vb") | "\(.action) \(.link.ifname)"' "$T_TMP/m1" | tr '\n' ',')
expect_match "$seq" '^(new (va|vb),){2}(.*,)?del va,del vb,$|^(new (va|vb),){2}(.*,)?del vb,del va,$' \
	"veth add and del seen in order ($seq)"
expect_eq "$(jq -r 'select(.event.link.ifname == "va" and .event.action == "new") | .event.link.kind' "$T_TMP/m1")" \
	veth "the device's kind"

# --- SIGTERM
"$NKCTL" -n "$NS" monitor > "$T_TMP/m2" 2>&1 &
mpid=$!
ready "$T_TMP/m2"
kill -TERM "$(target "$mpid")"
wait "$mpid"
expect_eq "$?" 0 "SIGTERM ends monitor with status 0"

# --- count N, with -t: text and JSON
"$NKCTL" -t -n "$NS" monitor link count 3 > "$T_TMP/m3" 2>&1 &
mpid=$!
until_exit "$mpid"
wait "$mpid"
expect_eq "$?" 0 "count 3 ends with status 0"
expect_eq "$(wc -l < "$T_TMP/m3")" 3 "count 3 prints three records"
expect_match "$(head -n 1 "$T_TMP/m3")" \
	'^\[[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z\] \[LINK\] change [0-9]+: rdy0: <' \
	"-t text: time stamp, tag, action, device"
"$NKCTL" -t -j -n "$NS" monitor link count 2 > "$T_TMP/m4" 2>&1 &
mpid=$!
until_exit "$mpid"
wait "$mpid"
expect_eq "$?" 0 "-j count 2 ends with status 0"
json_lines "$T_TMP/m4" "-t -j monitor link count 2"
expect_eq "$(jq -r '.event.time | test("^[0-9-]+T[0-9:.]+Z$")' "$T_TMP/m4" | sort -u)" true "-t -j: every record has its time"

# --- a closed pipe: status 0, no error
(
	"$NKCTL" -n "$NS" monitor link 2> "$T_TMP/e5" | head -n 1 > "$T_TMP/m5"
	echo "${PIPESTATUS[0]}" > "$T_TMP/rc5"
) &
ppid=$!
for i in $(seq 300); do
	[ -s "$T_TMP/rc5" ] && break
	ip -n "$NS" link set rdy0 mtu $((1300 + i % 90))
	sleep 0.1
done
wait "$ppid"
expect_eq "$(cat "$T_TMP/rc5")" 0 "a closed pipe ends monitor with status 0"
expect_eq "$(cat "$T_TMP/e5")" "" "and no error"
expect_eq "$(wc -l < "$T_TMP/m5")" 1 "the reader got its line"

# --- all-nsid: another namespace's events carry its nsid and name; nsid events
"$NKCTL" -n "$NS" -j monitor all-nsid link nsid > "$T_TMP/m6" 2>&1 &
mpid=$!
ready "$T_TMP/m6"
ip -n "$NS" netns set "$NS2" 7 || fail "cannot give $NS2 an nsid in $NS"
ip -n "$NS2" link add far0 type veth peer name far1 || fail "veth far0"
for _ in $(seq 300); do
	jq -e 'select(.event.link.ifname == "far0" and .event.action == "new")' "$T_TMP/m6" > /dev/null 2>&1 &&
		grep -q '"object":"nsid"' "$T_TMP/m6" && break
	sleep 0.1
done
kill -INT "$(target "$mpid")"
wait "$mpid"
expect_eq "$?" 0 "all-nsid: SIGINT, status 0"
json_lines "$T_TMP/m6" "monitor all-nsid link nsid"
expect_eq "$(jq -c 'select(.event.object == "nsid") | .event | [.action, .namespace.id, .namespace.netns]' "$T_TMP/m6" | head -n 1)" \
	"[\"new\",7,\"$NS2\"]" "the nsid event names the namespace"
expect_eq "$(jq -c 'select(.event.link.ifname == "far0" and .event.action == "new") | .event | [.nsid, .netns]' "$T_TMP/m6")" \
	"[7,\"$NS2\"]" "another namespace's device is labelled with its nsid and name"

# --- ENOBUFS: the reader stopped while thousands of link events happen
N=${NKCTL_MONITOR_STORM:-500}
ip -n "$NS" link add keep0 type veth peer name keep1 || fail "veth keep0"
"$NKCTL" -n "$NS" -j monitor link > "$T_TMP/m7" 2> "$T_TMP/e7" &
mpid=$!
ready "$T_TMP/m7"
ip -j -n "$NS" link show | jq -r '.[].ifname' | sort > "$T_TMP/before"
tpid=$(target "$mpid")
kill -STOP "$tpid"
{
	for i in $(seq "$N"); do echo "link add s$i type veth peer name t$i"; done
	for i in $(seq "$N"); do echo "link set s$i up"; done
	for i in $(seq "$N"); do echo "link del s$i"; done
	echo "link add after0 type veth peer name after1"
	echo "link del keep0"
} > "$T_TMP/storm"
ip -n "$NS" -batch "$T_TMP/storm" || fail "the storm's batch failed"
kill -CONT "$tpid"
# until the resync printed all four changes (60 s: a monitor under valgrind
# works through the backlog slowly)
for _ in $(seq 600); do
	[ "$(grep -cE '"(after0|after1|keep0|keep1)"' "$T_TMP/m7")" -ge 4 ] &&
		jq -r 'select(.event.action == "del") | .event.link.ifname' "$T_TMP/m7" 2> /dev/null | grep -q '^keep1$' &&
		jq -r 'select(.event.action == "new") | .event.link.ifname' "$T_TMP/m7" 2> /dev/null | grep -q '^after0$' && break
	sleep 0.1
done
kill -INT "$tpid"
wait "$mpid"
expect_eq "$?" 0 "after the storm: SIGINT, status 0"
expect_eq "$(cat "$T_TMP/e7")" "" "no error after the storm"
json_lines "$T_TMP/m7" "monitor link through an ENOBUFS storm"
lost=$(jq -r 'select(.event.object == "lost") | .event.source' "$T_TMP/m7")
expect_eq "$(printf '%s\n' "$lost" | sort -u)" rtnetlink "the storm gives an \"events lost\" record ($(printf '%s\n' "$lost" | wc -l))"
# After the last lost record: the resync's differences, nothing stale.
after=$(awk '/"object":"lost"/ { n = NR } { l[NR] = $0 } END { for (i = n + 1; i <= NR; i++) print l[i] }' "$T_TMP/m7" |
	jq -r '.event | "\(.action) \(.link.ifname)"' | grep -v rdy | sort | tr '\n' ',')
expect_eq "$after" "del keep0,del keep1,new after0,new after1," "the resync prints exactly what changed"
# Replaying every record over the devices at the start gives the kernel's.
$PY - "$T_TMP/before" "$T_TMP/m7" > "$T_TMP/replayed" <<'EOF'
import json, sys
names = set(open(sys.argv[1]).read().split())
idx = {}
for line in open(sys.argv[2]):
    e = json.loads(line)["event"]
    if e["object"] != "link":
        continue
    name = e["link"]["ifname"]
    if e["action"] == "del":
        names.discard(name)
    else:
        names.add(name)
print("\n".join(sorted(names)))
EOF
ip -j -n "$NS" link show | jq -r '.[].ifname' | sort > "$T_TMP/now"
expect_eq "$(cat "$T_TMP/replayed")" "$(cat "$T_TMP/now")" "the records replayed give the kernel's devices"

# Bad input and help.
expect_error 1 "an unknown object" monitor links
expect_error 1 "count 0" monitor count 0
expect_rc 0 "help" monitor help
expect_match "$OUT" 'all-nsid' "help names all-nsid"
done_testing
