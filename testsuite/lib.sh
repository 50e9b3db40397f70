# SPDX-License-Identifier: GPL-2.0
# Helpers for nkctl tests: sourced by every testsuite/tests/*.t.
#
# Each test gets uniquely named namespaces (ns_new) and a cleanup stack
# (defer) that runs on any exit, so tests run in parallel and leave nothing.
set -u

: "${NKCTL:?NKCTL must point at the nkctl binary}"
TESTSUITE=${TESTSUITE:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
PY=/usr/bin/python3
NLPROBE="$PY $TESTSUITE/helpers/nlprobe.py"
T_NAME=$(basename "$0" .t)
T_CHECKS=0
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/nkctl-test.XXXXXX")
_DEFERRED=()
# The test's own shell: a background job forked from it holds the EXIT trap
# until it execs, and a signal in that window (sigint.t sends SIGTERM to such
# jobs) must not run the test's cleanups from the child.
T_MAIN_PID=$BASHPID

# run_deferred: run the cleanups queued so far, now (between the phases of a
# test that sets up several times).
run_deferred() {
	local i
	for ((i = ${#_DEFERRED[@]} - 1; i >= 0; i--)); do
		eval "${_DEFERRED[$i]}" >/dev/null 2>&1 || true
	done
	_DEFERRED=()
}
_run_deferred() {
	local rc=$?
	[ "$BASHPID" = "$T_MAIN_PID" ] || return 0
	run_deferred
	[ -z "${NLP_PID:-}" ] || kill "$NLP_PID" 2>/dev/null
	rm -rf "$T_TMP"
	# A pass is done_testing's alone: an "exit 0" from the middle of a
	# test skipped the checks after it.
	if [ "$rc" = 0 ] && [ -z "${T_DONE:-}" ]; then
		echo "FAIL: the test exited 0 before done_testing"
		exit 1
	fi
}
trap _run_deferred EXIT

# defer CMD...: run CMD (a shell string) when the test exits, newest first.
defer() { _DEFERRED+=("$*"); }

skip() { echo "SKIP: $*"; exit 4; }
# skip_part KEY REASON: a part of the test (KEY, one word) did not run here.
# The runner counts it as the skip of NAME/KEY: not a pass, and under strict
# skips (CI) a failure unless testsuite/skips-allowed names NAME/KEY.
skip_part() { local key=$1; shift; echo "SKIP-PART: $key: $*"; }
# fail MESSAGE: the test fails; the last nkctl run through nk is named with
# its exit status and stderr, whatever the message says.
fail() {
	echo "FAIL: $*"
	[ -z "${NK_ARGS+x}" ] || echo "# last nkctl run through nk: nkctl $NK_ARGS: exit status $NK_RC"
	exit 1
}
# NKCTL_TEST_STAMPS=1: each line ends with the test's seconds so far (where
# a test's time goes, for the costs of CI).
pass() { T_CHECKS=$((T_CHECKS + 1)); echo "ok - $*${NKCTL_TEST_STAMPS:+ [${SECONDS} s]}"; }

need_root() { [ "$(id -u)" = 0 ] || skip "needs root"; }
need_cmd() { local c; for c; do command -v "$c" >/dev/null 2>&1 || skip "needs $c"; done; }

# ns_new VAR: a fresh netns named nkt-<test>-<random>, lo up, deleted at exit.
ns_new() {
	local name
	name="nkt-${T_NAME:0:12}-$$-$RANDOM$RANDOM"
	ip netns add "$name" || fail "cannot create netns $name"
	defer "ip netns pids '$name' | xargs -r kill -9; ip netns del '$name'"
	ip -n "$name" link set lo up
	# nkctl's bpffs pins of this namespace go with it.
	defer "rm -rf $(ns_pindir "$name")"
	printf -v "$1" '%s' "$name"
}

# ns_pindir NETNS: nkctl's pin directory of the namespace,
# /sys/fs/bpf/nkctl/net<inode>-<netns cookie> (SO_NETNS_COOKIE, read here).
ns_pindir() {
	local cookie
	cookie=$(ip netns exec "$1" python3 -c 'import socket, struct
print(struct.unpack("Q", socket.socket().getsockopt(socket.SOL_SOCKET, 71, 8))[0])')
	echo "/sys/fs/bpf/nkctl/net$(stat -L -c %i "/run/netns/$1")-$cookie"
}

# nk ARGS...: run nkctl; sets RC and NK_RC (its exit status: nk itself
# always returns 0, check them), OUT (stdout), ERR (stderr). Every JSON
# document it prints is kept and checked against doc/nkctl.schema.json when
# the test ends (done_testing).
# An exit status of its own for a memory checker's report (valgrind's
# wrapper: 99; the sanitizers: 98, set here), never one of nkctl's documented
# ones (ASan's default, 1, is the usage error's): nk fails the test on either.
if [ "${NKCTL_MEMCHECK:-}" = sanitizers ]; then
	export ASAN_OPTIONS="exitcode=98${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
	export UBSAN_OPTIONS="halt_on_error=1:exitcode=98${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
fi
T_JSON=0
# The netdevsim NICs this test made (sim_new). VM tests share one guest, and
# every nkctl command sweeps every NIC's state, so a command may warn of
# another test's NIC ("Warning: simID: ...", "Warning: simID has ..."):
# nk drops those lines from ERR (and their {"warning"} objects from ERR_JSON).
T_SIMS=" "
own_err() {
	local line out="" re='^(Warning: |\{"warning":\{"message":")(sim[0-9]+)[: ]'
	while IFS= read -r line; do
		if [[ $line =~ $re ]] && [[ $T_SIMS != *" ${BASH_REMATCH[2]} "* ]]; then
			continue
		fi
		out+="${out:+$'\n'}$line"
	done <<< "$1"
	printf '%s' "$out"
}
# err_text JSON: nkctl -j's stderr (one {"error"} or {"warning"} object a
# line, doc/json.md) as the same reports' text lines ("Error: MESSAGE"), so
# that a check of ERR reads the same with and without -j. A line that is not
# such an object is kept as it is (the schema check then fails on it).
err_text() {
	local line msg out="" re_e='^\{"error":\{"message":"(.*)","exit":[0-9]+[,}]' \
		re_w='^\{"warning":\{"message":"(.*)"\}\}$'
	while IFS= read -r line; do
		if [[ $line =~ $re_e ]]; then
			msg="Error: ${BASH_REMATCH[1]}"
		elif [[ $line =~ $re_w ]]; then
			msg="Warning: ${BASH_REMATCH[1]}"
		else
			out+="${out:+$'\n'}$line"
			continue
		fi
		msg=${msg//\\\\/$'\x01'}
		msg=${msg//\\\"/\"}
		out+="${out:+$'\n'}${msg//$'\x01'/\\}"
	done <<< "$1"
	printf '%s' "$out"
}
# keep_json DIR TEXT: one more document (file) of nkctl's for the schema check
keep_json() {
	[ -d "$T_TMP/$1" ] || mkdir "$T_TMP/$1"
	T_JSON=$((T_JSON + 1))
	printf '%s\n' "$2" > "$T_TMP/$1/$T_JSON.json"
	printf '%s\n' "$NK_ARGS" > "$T_TMP/$1/$T_JSON.cmd"
}
nk() {
	NK_ARGS="$*"
	"$NKCTL" "$@" > "$T_TMP/out" 2> "$T_TMP/err"
	RC=$?
	NK_RC=$RC
	# $(< FILE), not $(cat FILE): no process to start (under TCG that is
	# most of a second; tests call nk thousands of times)
	OUT=$(< "$T_TMP/out")
	ERR=$(< "$T_TMP/err")
	# -j: the reports are JSON objects, kept for the schema check (ERR_JSON),
	# ERR their text
	ERR_JSON=
	if [ "${ERR:0:2}" = '{"' ]; then
		ERR_JSON=$ERR
		keep_json err-json "$ERR"
		ERR=$(err_text "$ERR")
	fi
	if [[ $ERR == *"Warning: sim"* ]]; then
		ERR=$(own_err "$ERR")
		[ -z "$ERR_JSON" ] || ERR_JSON=$(own_err "$ERR_JSON")
	fi
	[ "${OUT:0:1}" != "{" ] || keep_json json "$OUT"
	case "${NKCTL_MEMCHECK:-}:$RC" in
	sanitizers:98 | valgrind:99) fail "nkctl $*: the memory checker reported an error (exit status $RC): $ERR" ;;
	esac
}

# expect_rc N DESC ARGS...: nkctl ARGS exits N.
expect_rc() {
	local want=$1 desc=$2
	shift 2
	nk "$@"
	[ "$RC" = "$want" ] || fail "$desc: nkctl $* exited $RC, expected $want; stderr: $ERR"
	pass "$desc"
}

# expect_error N DESC ARGS...: with -j, exits N, exactly one error on stderr
# (a JSON error object of exit N, ERR its "Error:" line) and nothing else,
# nothing on stdout.
expect_error() {
	local want=$1 desc=$2
	shift 2
	nk -j "$@"
	[ "$RC" = "$want" ] || fail "$desc: nkctl -j $* exited $RC, expected $want; stderr: $ERR"
	[ -z "$OUT" ] || fail "$desc: exit status $RC, but stdout not empty: $OUT"
	case "$ERR" in *$'\n'*) fail "$desc: exit status $RC, but not one stderr line: $ERR" ;; esac
	case "$ERR" in Error:*) ;; *) fail "$desc: exit status $RC, but stderr is not an Error: line: $ERR" ;; esac
	case "$ERR_JSON" in
	'{"error":{'*'"exit":'"$RC"[,}]*) ;;
	*) fail "$desc: exit status $RC, but stderr is not one JSON error object of that exit: ${ERR_JSON:-$ERR}" ;;
	esac
	pass "$desc"
}

expect_eq() { # expect_eq GOT WANT DESC
	[ "$1" = "$2" ] || fail "$3: got '$1', expected '$2'"
	pass "$3"
}

expect_match() { # expect_match TEXT REGEX DESC
	printf '%s' "$1" | grep -Eq -- "$2" || fail "$3: '$1' does not match /$2/"
	pass "$3"
}

# json_valid: OUT is one JSON document (checked by Python's parser).
json_valid() {
	printf '%s' "$OUT" | $PY -c 'import json,sys; json.load(sys.stdin)' ||
		fail "${1:-output}: not valid JSON: $OUT"
	pass "${1:-output} is valid JSON"
}

done_testing() {
	local n
	# A test that checked nothing passed nothing.
	[ "$T_CHECKS" -gt 0 ] || fail "the test made no check"
	if [ -d "$T_TMP/json" ]; then
		n=$($PY "$TESTSUITE/helpers/jsoncheck.py" "$TESTSUITE/../doc/nkctl.schema.json" "$T_TMP/json") ||
			fail "JSON output does not match doc/nkctl.schema.json: $n"
		pass "$n JSON outputs match doc/nkctl.schema.json"
	fi
	# -j's errors and warnings on stderr, each object a line
	if [ -d "$T_TMP/err-json" ]; then
		n=$($PY "$TESTSUITE/helpers/jsoncheck.py" "$TESTSUITE/../doc/nkctl.schema.json" "$T_TMP/err-json") ||
			fail "JSON reports on stderr do not match doc/nkctl.schema.json: $n"
		pass "$n stderr JSON reports match doc/nkctl.schema.json"
	fi
	# the CNI plugin's answers, kept by cni_keep (testsuite/cni.sh)
	if [ -d "$T_TMP/cni-json" ]; then
		n=$($PY "$TESTSUITE/helpers/jsoncheck.py" "$TESTSUITE/cni-result.schema.json" "$T_TMP/cni-json" nkctl-cni) ||
			fail "CNI answers do not match testsuite/cni-result.schema.json: $n"
		pass "$n CNI answers match testsuite/cni-result.schema.json (the spec's shape for their cniVersion)"
	fi
	echo "# $T_CHECKS checks passed"
	T_DONE=1
	exit 0
}

# nsim_netdev ID: the name of netdevsim ID's netdev once the driver made it
# (up to 30 s: a re-probe makes it a little after new_device returns).
nsim_netdev() {
	local dev=""
	for _ in $(seq 300); do
		dev=$(ls "/sys/bus/netdevsim/devices/netdevsim$1/net/" 2> /dev/null | head -n 1)
		[ -n "$dev" ] && break
		sleep 0.1
	done
	[ -n "$dev" ] && echo "$dev"
}

# sim_new VAR NS [QUEUES]: a netdevsim NIC (QUEUES RX/TX queues, default 4),
# moved into NS and up; the device and nkctl's state of it are removed at
# exit. VM tier only.
sim_new() {
	local var=$1 ns=$2 queues=${3:-4} id dev=""
	modprobe netdevsim 2>/dev/null || skip "no netdevsim module"
	# Ids are global: pick one nobody uses.
	for _ in 1 2 3 4 5 6 7 8; do
		id=$((RANDOM % 30000 + 1000))
		[ -e "/sys/bus/netdevsim/devices/netdevsim$id" ] || break
	done
	echo "$id 1 $queues" > /sys/bus/netdevsim/new_device || fail "cannot create netdevsim $id"
	defer "echo $id > /sys/bus/netdevsim/del_device"
	dev=$(nsim_netdev "$id") || fail "netdevsim $id has no netdev"
	# netdevsim calls every netdev eth%d: give it a name unique where it goes.
	ip link set "$dev" name "sim$id" || fail "cannot rename $dev"
	dev=sim$id
	T_SIMS+="$dev "
	ip link set "$dev" netns "$ns" || fail "cannot move $dev to $ns"
	ip -n "$ns" link set "$dev" up || fail "cannot set $dev up"
	# What nkctl recorded of this NIC (nic reserve, lease ... steer) goes
	# before it does: no state file outlives its device.
	defer "$NKCTL -n '$ns' -force nic release dev '$dev'"
	printf -v "$var" '%s' "$dev"
	printf -v "${var}_ID" '%s' "$id"
}

# need_sim_rss NS DEV: skip unless netdevsim DEV has the VM's test patch (an
# RSS indirection table and n-tuple rules).
need_sim_rss() {
	nk -n "$1" -j nic show dev "$2"
	[ "$RC" = 0 ] || fail "nic show dev $2 (to see whether it has RSS): exit $RC: $ERR"
	[ "$(printf '%s' "$OUT" | jq -r '.nics[0] | has("rss")')" = true ] ||
		skip "this netdevsim has no RSS indirection table (the VM's test patch is missing)"
}

# topo_nic_remote [QUEUES]: namespaces HOST and REMOTE, a netdevsim NIC SIM in
# HOST linked to RSIM in REMOTE (QUEUES queues each, default 4), 10.10.2.1 and 10.10.2.2 on them;
# REMOTE routes the pods' 10.20.0.0/16 through HOST, which does not forward.
# VM tier only; skips where netdevsim cannot link devices.
topo_nic_remote() {
	ns_new HOST
	ns_new REMOTE
	sim_new SIM "$HOST" "${1:-4}"
	sim_new RSIM "$REMOTE" "${1:-4}"
	exec {hfd}<"/run/netns/$HOST" {rfd}<"/run/netns/$REMOTE"
	echo "$hfd:$(ifindex_of "$HOST" "$SIM") $rfd:$(ifindex_of "$REMOTE" "$RSIM")" \
		> /sys/bus/netdevsim/link_device || skip "netdevsim cannot link devices"
	defer "echo $hfd:$(ifindex_of "$HOST" "$SIM") > /sys/bus/netdevsim/unlink_device"
	ip -n "$HOST" addr add 10.10.2.1/24 dev "$SIM"
	ip -n "$REMOTE" addr add 10.10.2.2/24 dev "$RSIM"
	ip -n "$REMOTE" route add 10.20.0.0/16 via 10.10.2.1
	ip netns exec "$HOST" sysctl -qw net.ipv4.ip_forward=0
}

# udp_send NS DST COUNT: COUNT datagrams ("vm N") from NS to DST, port 9999
# (what the AF_XDP tests steer to a VM's socket).
udp_send() {
	ip netns exec "$1" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(sys.argv[2])):
    s.sendto(b"vm %d" % i, (sys.argv[1], 9999))
' "$2" "$3"
}

# rx_ready READY PID ERRFILE: an AF_XDP receiver started in the background
# as PID made READY within 10 s, else the test fails with ERRFILE's words.
rx_ready() {
	for _ in $(seq 300); do [ -e "$1" ] || ! kill -0 "$2" 2> /dev/null && break; sleep 0.1; done
	[ -e "$1" ] || fail "the AF_XDP receiver did not get ready: $(cat "$3" 2> /dev/null)"
}

# as_vmm NS SRC DIR UID CMD [ARGS...]: CMD as UID, a VMM's way: no privilege
# but CAP_NET_RAW (AF_XDP sockets), its memlock limit raised (the UMEM is
# charged to it), in network namespace NS, with SRC (its holder's own
# directory, as xsk attach prints it: /sys/fs/bpf is 0700) bind-mounted at
# DIR as a KubeVirt launcher gets it (a hostPath volume), and nothing else
# of bpffs. nsenter, not ip netns exec, which mounts its own /sys.
as_vmm() {
	local ns=$1 src=$2 dir=$3 u=$4
	shift 4
	nsenter --net="/run/netns/$ns" unshare --mount --propagation private sh -c \
		'mount --bind "$0" "$1" && ulimit -l unlimited && u=$2 && shift 2 && exec setpriv --reuid "$u" --regid "$u" --clear-groups --inh-caps +net_raw --ambient-caps +net_raw "$@"' \
		"$src" "$dir" "$u" "$@"
}

# state_files DIR: the entries of nkctl's state directory DIR, sorted, one a
# line, dotfiles too (the temp file a killed writer leaves: .tmp.KEY of a NIC
# record, .tmp.ID of a binding) except the lock files meant to stay (.lock-*).
state_files() { ls -A "$1" 2> /dev/null | grep -v '^\.lock-' | sort; }

# stale_temps DIR: the binding temp files in DIR (.tmp.ID) whose writer is
# gone (their lock is free): left behind, never to be renamed. (Live
# writers' are not: tests run beside each other.)
stale_temps() {
	local f
	for f in "$1"/.tmp.*; do
		[ -e "$f" ] && flock -n "$f" true 2> /dev/null && echo "${f##*/}"
	done
	return 0
}

# kernel_has FEATURE: yes or no, asked of the kernel with nlprobe, not of
# nkctl (whose show kernel a test checks, never trusts to choose its checks):
# netkit (a netkit device can be made in a scratch namespace), queue-create
# (the netdev family offers the command, 16).
kernel_has() {
	local ns ok=no
	case "$1" in
	netkit)
		ns="nkt-probe-$$-$RANDOM"
		ip netns add "$ns" || fail "cannot create netns $ns"
		$NLPROBE -n "$ns" netkit-add nkprobe0 > /dev/null 2>&1 && ok=yes
		ip netns del "$ns"
		;;
	queue-create)
		[ "$($NLPROBE family netdev | jq '.ops | has("16")')" = true ] && ok=yes
		;;
	*) fail "kernel_has: unknown feature $1" ;;
	esac
	echo "$ok"
}

# ifindex_of NS NAME
ifindex_of() { nlread -n "$1" link "$2" | jq .ifindex; }

# nlprobe_serve [NS]: one nlprobe process (in NS) for "nlp [-n NS] CMD
# ARGS...", which prints the JSON as $NLPROBE would (on an error: a message on
# stderr, status 1). For a test that reads the kernel at every step: Python's
# start costs about a second under TCG, paid here once. One caller at a time
# (not from parallel background jobs). Fifos, not a coproc: $(nlp ...) needs
# the descriptors.
nlprobe_serve() {
	mkfifo "$T_TMP/nlp.in" "$T_TMP/nlp.out" || fail "mkfifo"
	$NLPROBE ${1:+-n "$1"} serve < "$T_TMP/nlp.in" > "$T_TMP/nlp.out" &
	# killed at exit, not by run_deferred: it serves the whole test (a bare
	# "wait" would wait for it for ever: wait for your own jobs' pids)
	NLP_PID=$!
	exec {NLP_IN}<>"$T_TMP/nlp.in" {NLP_OUT}<>"$T_TMP/nlp.out"
}
nlp() {
	local line
	printf '%s\n' "$*" >&"$NLP_IN"
	IFS= read -r -t 120 line <&"$NLP_OUT" || fail "nlprobe serve: no answer to $* in 120 s"
	case "$line" in '{"error":'*) echo "nlprobe: $line" >&2; return 1 ;; esac
	printf '%s\n' "$line"
}
# nlread ARGS...: nlprobe, through the test's nlprobe_serve process if it has
# one (lib.sh's own reads below use it).
nlread() { if [ -n "${NLP_IN:-}" ]; then nlp "$@"; else $NLPROBE "$@"; fi; }

# lease_of NS DEV QUEUE: the lease nest of DEV's RX queue QUEUE as queue-get
# shows it (compact JSON), or "null".
lease_of() {
	local idx
	idx=$(ifindex_of "$1" "$2")
	nlread -n "$1" queues "$idx" | jq -c --argjson q "$3" \
		'[.[] | select(.type=="rx" and .id==$q)][0].lease'
}

# topo_pod_host_remote: three namespaces POD, HOST, REMOTE. POD's vP peers
# with HOST's vH (the netkit primary's stand-in), REMOTE's vR with HOST's vN
# (the NIC's). IPv4 10.10.1.0/24 (pod side) and 10.10.2.0/24 (remote side),
# IPv6 fd01::/64 and fd02::/64, HOST .1/::1 on both; forwarding off in HOST,
# so traffic crosses only through redirects.
topo_pod_host_remote() {
	ns_new POD
	ns_new HOST
	ns_new REMOTE
	ip -n "$HOST" link add vH type veth peer name vP netns "$POD" || fail "veth pod"
	ip -n "$HOST" link add vN type veth peer name vR netns "$REMOTE" || fail "veth remote"
	topo_addresses
}

# Addresses and routes of the topology, devices named vP vH vN vR.
topo_addresses() {
	local x
	for x in "$POD vP 10.10.1.2/24 fd01::2/64" "$HOST vH 10.10.1.1/24 fd01::1/64" \
		"$HOST vN 10.10.2.1/24 fd02::1/64" "$REMOTE vR 10.10.2.2/24 fd02::2/64"; do
		set -- $x
		ip -n "$1" addr add "$3" dev "$2"
		ip -n "$1" -6 addr add "$4" dev "$2" nodad
		ip -n "$1" link set "$2" up
	done
	ip -n "$POD" route add default via 10.10.1.1
	ip -n "$POD" -6 route add default via fd01::1
	ip -n "$REMOTE" route add 10.10.1.0/24 via 10.10.2.1
	ip -n "$REMOTE" -6 route add fd01::/64 via fd02::1
	ip netns exec "$HOST" sysctl -qw net.ipv4.ip_forward=0 net.ipv6.conf.all.forwarding=0
}

# ping_ok NS ADDR: an answered ping (v4 or v6), within 10 s (a request every
# 0.5 s until the first answer: the first may wait for ARP/ND on a loaded VM).
ping_ok() { ip netns exec "$1" ping -c 1 -i 0.5 -w 10 "$2" > /dev/null 2>&1; }
# ping_none NS ADDR: no answer in 3 s (a slow machine only makes it weaker).
ping_none() { ! ip netns exec "$1" ping -c 1 -i 0.5 -w 3 "$2" > /dev/null 2>&1; }

# ping_start NS ADDR: a ping from NS to ADDR every 50 ms for as long as it
# takes, until ping_stop; returns once the first reply came (it runs before
# what it watches starts).
ping_start() {
	PING_LOG=$T_TMP/ping.$RANDOM.log
	# A script's background command starts with SIGINT ignored: env gives
	# ping the default back, for ping_stop's SIGINT.
	ip netns exec "$1" env --default-signal=INT ping -i 0.05 -W 1 "$2" > "$PING_LOG" 2>&1 &
	PINGER=$!
	defer "kill $PINGER 2>/dev/null"
	for _ in $(seq 600); do
		grep -q 'icmp_seq=' "$PING_LOG" && break
		sleep 0.05
	done
	grep -q 'icmp_seq=' "$PING_LOG" || fail "ping $2 from $1: no reply: $(tail -n 3 "$PING_LOG")"
	PING_FROM=$(ping_last)
}
ping_last() { grep -o 'icmp_seq=[0-9]*' "$PING_LOG" | tail -n 1 | cut -d= -f2; }
# ping_wants N: true while fewer than N answers came since ping_start
# returned, for 2 minutes at most: an action repeated "while ping_wants 5"
# runs for a window the ping can see, however fast the machine (a real loss
# stops the answers; ping_stop then fails on it).
ping_wants() {
	: "${PING_T0:=$SECONDS}"
	[ "$(ping_last)" -lt $((PING_FROM + $1)) ] && [ $((SECONDS - PING_T0)) -lt 120 ]
}
# ping_stop DESC: stops the ping once two more answers came (so the requests
# sent during what it watched are judged too; 10 s at most); every request up
# to the last answered one was answered, and answers came while it ran from
# ping_start's return to this call.
ping_stop() {
	local seqs last n
	kill -0 "$PINGER" 2> /dev/null || fail "$1: the ping ended before what it watched did: $(tail -n 3 "$PING_LOG")"
	last=$(ping_last)
	for _ in $(seq 200); do
		[ "$(ping_last)" -ge $((last + 2)) ] && break
		sleep 0.05
	done
	kill -INT "$PINGER"
	wait "$PINGER" 2> /dev/null
	unset PING_T0
	seqs=$(grep -o 'icmp_seq=[0-9]*' "$PING_LOG" | cut -d= -f2 | sort -un)
	n=$(printf '%s\n' "$seqs" | grep -c .)
	[ "$last" -gt "$PING_FROM" ] || fail "$1: no answer while it ran (replies up to #$PING_FROM before, #$last after)"
	[ "$(ping_last)" -ge $((last + 2)) ] || fail "$1: no answer in 10 s after it ended (last #$(ping_last))"
	[ "$n" = "$(printf '%s\n' "$seqs" | tail -n 1)" ] ||
		fail "$1: requests lost: answered $n of the first $(printf '%s\n' "$seqs" | tail -n 1)"
	pass "$1: $n pings answered in a row, #$PING_FROM to #$last while it ran"
}

# tcp_ok FROM_NS TO_NS ADDR: a TCP connection carries a line and its echo.
tcp_ok() {
	local port=$((20000 + RANDOM % 20000)) got
	ip netns exec "$2" /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(1); s.settimeout(60)
c, _ = s.accept(); c.sendall(c.recv(64)); c.close()' "$3" "$port" &
	local srv=$!
	# The server may take a while to listen (a loaded VM): retry refusals
	# for 30 s.
	got=$(ip netns exec "$1" /usr/bin/python3 -c '
import socket, sys, time
end = time.time() + 30
while True:
    try:
        s = socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10)
        break
    except ConnectionRefusedError:
        if time.time() > end:
            raise
        time.sleep(0.1)
s.sendall(b"nkctl"); print(s.recv(64).decode())' "$3" "$port" 2>/dev/null)
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	[ "$got" = nkctl ]
}

# killed SYSCALL N ARGS...: nkctl ARGS under strace, SIGKILL at the Nth
# SYSCALL (strace's fault injection); KRC is its exit status.
killed() {
	local sc=$1 n=$2
	shift 2
	(strace -f -qq -o /dev/null -e trace="$sc" -e inject="$sc":signal=KILL:when="$n" \
		"$NKCTL" "$@" > /dev/null 2>&1) 2> /dev/null
	KRC=$?
}

# rounds N: how many rounds a load or race test runs: N, or N divided by
# NKCTL_ROUND_SHARE (at least 1). make check-full runs every round; make
# check-all (so CI) a quarter, as it kills at a share of the kill points.
rounds() {
	local n=$(($1 / ${NKCTL_ROUND_SHARE:-1}))
	echo $((n > 0 ? n : 1))
}

# kill_points STEP [MAX]: the kill points of one class, in order: the first,
# then every (STEP x NKCTL_KILL_SHARE)-th from an offset that NKCTL_KILL_SEED
# picks, up to MAX (200), then MAX+1 (the loop ends at the first point past
# the command's calls, where it completes). NKCTL_KILL_SHARE=1 (make check-full) is every
# STEP-th point; make check-all kills at a fifth, a different fifth each day,
# so that every point is killed over five runs without paying for all of
# them in every run. A failure names its point and the seed repeats it.
kill_points() {
	local step=$1 max=${2:-200} share=${NKCTL_KILL_SHARE:-1} seed=${NKCTL_KILL_SEED:-0} stride first
	stride=$((step * share))
	first=$((1 + (seed % share) * step))
	[ "$first" = 1 ] || echo 1
	seq "$first" "$stride" "$max"
	# past every call: where a stride skips the command's last calls, it
	# still runs to its end once (a command of more calls fails there)
	echo $((max + 1))
}

# kill_cycle NAME SETUP CMD RECOVER CLEANUP [STEP [NONE]]: for each kill point
# (every rename, every ioctl, every STEP-th sendto, default every one; a
# share of them, kill_points) until
# CMD completes: SETUP, nkctl CMD killed there, RECOVER, CLEANUP; then the
# test's snapshot must print BASE again. Each class must have been a kill
# point at least once (else it tested nothing: nkctl no longer makes that
# call), except the classes NONE names (space-separated), which CMD must not
# make at all. KILL_CLASSES, when set, names other syscall classes (the
# BPF commands: "bpf unlink chmod sendto"); STEP applies to sendto and bpf,
# the many calls (netlink reads, libbpf's probes and map lookups).
kill_cycle() {
	local name=$1 setup=$2 cmd=$3 recover=$4 cleanup=$5 none=" ${7:-} " sc n step kills=0 got t0=$SECONDS
	local class_kills again
	for sc in ${KILL_CLASSES:-rename ioctl sendto}; do
		step=1
		class_kills=0
		case $sc in sendto | bpf) step=${6:-1} ;; esac
		for n in $(kill_points "$step"); do
			# A command done before its first kill of a class may have
			# found its work done by another test's nkctl beside it (any
			# command's sweep undoes an ended lease's NIC side): that
			# point again, twice at most.
			again=2
			while :; do
				eval "$setup"
				# shellcheck disable=SC2086
				killed "$sc" "$n" $cmd
				# killed (137) or done (0): any other exit is the command failing
				case $KRC in
				0) ;;
				137) kills=$((kills + 1)) class_kills=$((class_kills + 1)) ;;
				*) fail "$name: exited $KRC at $sc #$n without being killed" ;;
				esac
				eval "$recover" || fail "$name: recovery after SIGKILL at $sc #$n failed: $ERR"
				eval "$cleanup"
				got=$(snapshot 2>&1)
				[ "$got" = "$BASE" ] || fail "$name: killed at $sc #$n: not as before: $got (expected $BASE)"
				[ "$KRC" = 0 ] && [ "$class_kills" = 0 ] && [ "$none" = "${none/ $sc /}" ] &&
					[ $((again -= 1)) -ge 0 ] && continue
				break
			done
			[ "$KRC" = 0 ] && break
		done
		[ "$KRC" = 0 ] || fail "$name: never completed within 200 ${sc}s"
		case "$none" in
		*" $sc "*) [ "$class_kills" = 0 ] || fail "$name: killed at $class_kills ${sc}s, but said to make none" ;;
		*) [ "$class_kills" -gt 0 ] || fail "$name: never killed at a $sc (the command made none: that class tested nothing)" ;;
		esac
	done
	pass "$name: killed at $kills points (share ${NKCTL_KILL_SHARE:-1}, seed ${NKCTL_KILL_SEED:-0}), every time as before ($((SECONDS - t0)) s)"
}

# nic_faults_begin: the NIC-side kill tests' start (nic-faults.t,
# nic-unlease-faults.t): HOST with netdevsim SIM (4 queues, its RSS table,
# header split off), nlprobe serving; snapshot prints the NIC as the kernel
# has it and the number of nkctl's state files for it, BASE is its first
# print; ok runs nkctl and succeeds on exit 0; holder makes nks afresh.
nic_faults_begin() {
	# The NIC as the kernel has it, and the number of state files for it
	# (a glob: no process to start, as for the kernel's reads).
	snapshot() {
		local f files=0
		nlp rings "$idx" && nlp rss "$idx" && nlp ntuple "$SIM" || return 1
		# a record's temp file (.tmp.KEY) a killed writer left counts too
		for f in /run/nkctl/nic/netdevsim-netdevsim"$SIM_ID"-* /run/nkctl/nic/.tmp.netdevsim-netdevsim"$SIM_ID"-*; do
			[ -e "$f" ] && files=$((files + 1))
		done
		echo "state files: $files"
	}
	ok() { nk "$@"; [ "$RC" = 0 ]; }
	holder() { "$NKCTL" -n "$HOST" link del nks > /dev/null 2>&1; ok -n "$HOST" link add nks type single rxqueues 4; }
	ns_new HOST
	sim_new SIM "$HOST" 4
	idx=$(ifindex_of "$HOST" "$SIM")
	need_sim_rss "$HOST" "$SIM"
	$NLPROBE -n "$HOST" rings-set "$idx" tcp-data-split off hds-thresh 128 > /dev/null || fail "rings-set"
	nlprobe_serve "$HOST"
	BASE=$(snapshot) || fail "the NIC's state: $BASE"
	expect_match "$BASE" '"tcp-data-split":"off"' "a starting point other than the defaults"
	expect_match "$BASE" '"indir":\[0,1,' "the kernel's indirection table"
}

# nic_snapshot DEV IFINDEX: the NIC as the kernel has it, through nlprobe
# serve: RSS table, header split, rules (without their locations, which a
# rule added again may change).
nic_snapshot() {
	nlp rss "$2" | jq -c '.indir | unique' && nlp rings "$2" | jq -r '.["tcp-data-split"]' &&
		nlp ntuple "$1" | jq -c '[.rules[] | [.["dst-ip"], .action]] | sort'
}

# nic_operator_edits NETNS DEV: what an operator does behind nkctl's back:
# every queue in RSS again (ethtool -X equal 4), the first rule deleted.
nic_operator_edits() {
	local id
	id=$(nlp ntuple "$2" | jq '.rules[0].location')
	ip netns exec "$1" ethtool -X "$2" equal 4 > /dev/null || fail "ethtool -X equal 4"
	ip netns exec "$1" ethtool -N "$2" delete "$id" > /dev/null || fail "ethtool -N delete $id"
}

# monitor_ready NS FILE: poke a veth rdy0 in NS until the nkctl monitor
# writing FILE reports it (a monitor started in the background subscribes
# a little later: an event before that is never seen).
monitor_ready() {
	local i
	ip -n "$1" link add rdy0 type veth peer name rdy1 || fail "veth rdy0 in $1"
	for i in $(seq 200); do
		ip -n "$1" link set rdy0 mtu $((1400 + i))
		sleep 0.1
		grep -q '"rdy0"' "$2" && return 0
	done
	fail "the monitor in $1 never reported rdy0"
}
