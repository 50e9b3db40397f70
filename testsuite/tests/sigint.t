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

whole=0 none=0
for i in $(seq 40); do
	sig=INT
	[ $((i % 3)) = 0 ] && sig=TERM
	"$BIN" -n "$NS" -j show > "$T_TMP/part" 2>/dev/null &
	pid=$!
	# Somewhere between the start and a little after the end of the dump.
	sleep "$(awk -v r=$RANDOM -v us="$us" 'BEGIN { printf "%.6f", r / 32768 * us / 1e6 }')"
	kill -"$sig" "$pid" 2>/dev/null
	wait "$pid"
	if [ -s "$T_TMP/part" ]; then
		$PY -c 'import json,sys; json.load(open(sys.argv[1]))' "$T_TMP/part" ||
			fail "SIG$sig #$i left $(wc -c < "$T_TMP/part") bytes that are no JSON document"
		whole=$((whole + 1))
	else
		none=$((none + 1))
	fi
done
pass "40 interrupted dumps: $whole whole documents, $none empty, nothing half-written"
done_testing
