#!/bin/bash
# tier: host
# SIGINT (and SIGTERM) during a long dump: stdout holds one whole, closed
# JSON document or nothing, never half of one.
. "$TESTSUITE/lib.sh"
need_root
# The binary itself, also under make check-valgrind (whose $NKCTL is a wrapper).
BIN=${NKCTL_REAL:-$NKCTL}

ns_new NS
N=${NKCTL_SIGINT_DEVICES:-1500}
for i in $(seq $((N / 2))); do echo "link add d$i type veth peer name e$i"; done > "$T_TMP/batch"
ip -n "$NS" -batch "$T_TMP/batch" || fail "cannot create $N veth devices"

# How long a whole dump takes, to aim the signals inside it.
t0=$EPOCHREALTIME
"$BIN" -n "$NS" -j show > "$T_TMP/full" || fail "show failed"
t1=$EPOCHREALTIME
us=$(( (${t1/./} - ${t0/./}) ))
$PY -c 'import json,sys; json.load(open(sys.argv[1]))' "$T_TMP/full" || fail "the full dump is no JSON"
pass "the full dump of $N devices is one JSON document ($((us / 1000)) ms)"

# A timed wait without starting a process (sleep's own start is most of a
# short dump): read -t on a fifo nobody writes.
mkfifo "$T_TMP/never" && exec {never}<> "$T_TMP/never" || fail "mkfifo"
whole=0 none=0 signalled=0 ints=0 terms=0
for i in $(seq 40); do
	sig=INT
	[ $((i % 3)) = 0 ] && sig=TERM
	# A background command of a script starts with SIGINT ignored: env
	# gives nkctl the default action back (else no SIGINT ever arrives).
	env --default-signal=INT "$BIN" -n "$NS" -j show > "$T_TMP/part" 2>/dev/null &
	pid=$!
	# Somewhere inside the time a whole dump took.
	d=$(( (RANDOM * 32768 + RANDOM) % (us * 9 / 10 + 1) )) # microseconds
	read -r -t "$((d / 1000000)).$(printf '%06d' $((d % 1000000)))" -u "$never" _
	kill -"$sig" "$pid" 2>/dev/null
	wait "$pid"
	# Ended by the signal (128 + its number) or done before it came (0).
	rc=$?
	case "$sig:$rc" in
	INT:130) signalled=$((signalled + 1)) ints=$((ints + 1)) ;;
	TERM:143) signalled=$((signalled + 1)) terms=$((terms + 1)) ;;
	*:0) ;;
	*) fail "SIG$sig #$i: exit status $rc, neither the signal's nor 0" ;;
	esac
	if [ -s "$T_TMP/part" ]; then
		$PY -c 'import json,sys; json.load(open(sys.argv[1]))' "$T_TMP/part" ||
			fail "SIG$sig #$i left $(wc -c < "$T_TMP/part") bytes that are no JSON document"
		whole=$((whole + 1))
	else
		none=$((none + 1))
	fi
done
pass "40 interrupted dumps: $whole whole documents, $none empty, nothing half-written"
# Signals aimed inside the dump: enough of each kind must have arrived while
# it ran, else the test did not test interruption.
[ "$signalled" -ge 8 ] && [ "$ints" -ge 1 ] && [ "$terms" -ge 1 ] ||
	fail "only $signalled of 40 signals arrived while nkctl ran ($ints SIGINT, $terms SIGTERM)"
pass "$signalled of 40 dumps were ended by the signal ($ints SIGINT, $terms SIGTERM)"
done_testing
