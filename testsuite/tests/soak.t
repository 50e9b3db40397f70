#!/bin/bash
# tier: vm
# alone: yes
# timeout: 300
# Concurrency: 16 nkctl processes for NKCTL_SOAK_SECS (default 30) seconds
# attaching and detaching redirects, leasing and unleasing, binding and
# unbinding on the same devices. Then: no crash, every failure one Error:
# line with a documented status, the final state of every device and queue
# is what the last successful command on it left, and no pin, link or holder
# state is leaked. Bindings run in helpers/nkctl-fakebind (see bind-holder.t).
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq
FAKE=${NKCTL_HELPERS:-$(dirname "$NKCTL")/helpers}/nkctl-fakebind
SECS=${NKCTL_SOAK_SECS:-30}
WORKERS=16

ns_new HOST
sim_new SIM "$HOST" 8
for i in 0 1 2; do
	expect_rc 0 "netkit nkr$i" -n "$HOST" link add "nkr$i" peer "nkr${i}p"
done
for q in 0 1 2 3; do
	expect_rc 0 "netkit nkl$q" -n "$HOST" link add "nkl$q" type single rxqueues 2
done
LOG=$T_TMP/log
mkdir -p "$LOG"

# run KIND KEY ARGS...: one nkctl call, logged as "start end rc kind key".
run() {
	local kind=$1 key=$2 t0 rc bin=$NKCTL
	shift 2
	[ "$kind" = bind ] || [ "$kind" = unbind ] && bin=$FAKE
	local out=$LOG/w$W.out err=$LOG/w$W.err
	t0=$EPOCHREALTIME
	"$bin" -n "$HOST" "$@" > "$out" 2> "$err"
	rc=$?
	echo "$t0 $EPOCHREALTIME $rc $kind $key" >> "$LOG/w$W.log"
	if [ "$rc" != 0 ]; then
		# One Error: line, a documented status, never a crash.
		if [ "$rc" -gt 6 ] || [ "$(wc -l < "$err")" != 1 ] || ! grep -q '^Error: ' "$err"; then
			{ echo "rc=$rc: $*"; cat "$err"; } >> "$LOG/bad"
		fi
	fi
}

worker() {
	local end=$((SECONDS + SECS)) d q kind=$((W % 8))
	while [ $SECONDS -lt $end ]; do
		d=nkr$((RANDOM % 3))
		q=$((RANDOM % 4))
		# The first command of worker W is of kind W % 8, so every kind is
		# tried twice at once even when the machine is slow; then at random.
		case $kind in
		0|1) run attach "$d" redirect attach dev "$d" to "$SIM" ;;
		2) run attach "$d" redirect attach dev "$d" to "${d}p" replace ;;
		3) run detach "$d" redirect detach dev "$d" ;;
		4) run lease "$q" lease dev "nkl$q" from "$SIM" queue "$q" ;;
		5) run unlease "$q" unlease from "$SIM" queue "$q" force
		   run add "$q" link add "nkl$q" type single rxqueues 2 ;;
		6) run bind "$SIM" bind-rx dev "$SIM" queue $((4 + RANDOM % 4)) dmabuf udmabuf size 1M ;;
		7) run unbind "$SIM" unbind dev "$SIM" ;;
		esac
		kind=$((RANDOM % 8))
	done
}

# Something to detach, unlease and unbind from the start (logged like the rest).
W=0
for i in 0 1 2; do run attach "nkr$i" redirect attach dev "nkr$i" to "$SIM"; done
for q in 0 1 2 3; do run lease "$q" lease dev "nkl$q" from "$SIM" queue "$q"; done
run bind "$SIM" bind-rx dev "$SIM" queue 4 dmabuf udmabuf size 1M
[ "$(awk '$3 != 0' "$LOG/w0.log")" = "" ] || fail "set-up failed: $(cat "$LOG/w0.log" "$LOG/w0.err")"

pids=()
for W in $(seq $WORKERS); do
	worker &
	pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
cat "$LOG"/w*.log > "$LOG/all"
echo "# $(wc -l < "$LOG/all") commands by $WORKERS processes in ${SECS}s, $(awk '$3==0' "$LOG/all" | wc -l) succeeded"
[ -s "$LOG/bad" ] && fail "bad failures: $(head -n 20 "$LOG/bad")"
pass "every failure: one Error: line and a documented exit status, no crash"
for k in attach detach lease unlease bind unbind; do
	[ "$(awk -v k=$k '$3==0 && $4==k' "$LOG/all" | wc -l)" -gt 0 ] || fail "no successful $k at all"
done
pass "every kind of command succeeded at least once"

# possible_last KEY KINDS: the kinds of the successful commands on KEY that
# may have been the last (those that ended after the last one started).
possible_last() {
	awk -v key="$1" -v kinds="$2" '
		BEGIN { n = split(kinds, k, ","); for (i = 1; i <= n; i++) want[k[i]] = 1 }
		$3 == 0 && $5 == key && ($4 in want) { s[NR] = $1; e[NR] = $2; t[NR] = $4; if ($1 > last) last = $1 }
		END { for (i in s) if (e[i] >= last) print t[i] }' "$LOG/all" | sort -u | tr '\n' ' '
}

# Redirects: each device's pin and the kernel's tcx link agree with nkctl and
# with the last successful attach/detach.
expect_rc 0 "redirect show" -n "$HOST" -j redirect show
shown=$OUT
for i in 0 1 2; do
	d=nkr$i
	idx=$(ifindex_of "$HOST" "$d")
	last=$(possible_last "$d" attach,detach)
	n=$(printf '%s' "$shown" | jq "[.redirects[] | select(.ifindex==$idx and .defunct==false)] | length")
	# The link pins (the maps beside them are <hook>-v4, -v6, -targets, -info, -devs).
	pinned=$(ls $(ns_pindir "$HOST")/dev$idx 2>/dev/null |
		grep -Evc -- '-(v4|v6|targets|info|devs)$')
	case "$n:$last" in
	1:*attach*|0:*detach*) pass "$d: final redirect state ($n) matches a last command ($last)" ;;
	*) fail "$d: $n redirects shown, but the last successful commands were: $last" ;;
	esac
	expect_eq "$pinned" "$n" "$d: one pin per live redirect, none leaked"
done
[ "$(printf '%s' "$shown" | jq '.foreign | length')" = 0 ] || fail "programs attached without nkctl's pins: $shown"
pass "no tcx program without its pin"

# Leases: NIC queue q is leased iff the last successful lease/unlease was a lease.
for q in 0 1 2 3; do
	last=$(possible_last "$q" lease,unlease)
	l=$(lease_of "$HOST" "$SIM" "$q")
	case "$last" in
	"lease ") want=leased ;;
	"lease unlease ") want=either ;;
	*) want=free ;;
	esac
	got=free
	[ "$l" = null ] || got=leased
	[ "$want" = either ] || [ "$want" = "$got" ] ||
		fail "queue $q: $got, but the last successful commands were: ${last:-none}"
	pass "queue $q: $got, as the last successful commands (${last:-none}) left it"
done

# Holders: every state file is a live holder, and unbind ends them all.
expect_rc 0 "show bindings" -n "$HOST" -j show bindings
expect_eq "$(printf '%s' "$OUT" | jq '[.bindings[] | select(.holder.alive==false)] | length')" 0 "no stale holder state"
last=$(possible_last "$SIM" bind,unbind)
n=$(printf '%s' "$OUT" | jq '.bindings | length')
case "$last" in
"unbind ") [ "$n" = 0 ] || fail "$n bindings held after a final unbind" ;;
"bind ") [ "$n" -gt 0 ] || fail "no binding held after a final bind" ;;
esac
pass "bindings ($n) consistent with the last successful commands (${last:-none})"
NKCTL=$FAKE nk -n "$HOST" unbind dev "$SIM"
sleep 0.5
expect_eq "$(state_files /run/nkctl/bindings | wc -l)" 0 "unbind leaves no holder state"
expect_eq "$(ip netns pids "$HOST" | wc -l)" 0 "no holder process left"
done_testing
