#!/bin/bash
# tier: host
# The libFuzzer harnesses (fuzz/README.md) build, replay their seed corpus
# without a crash and survive a short run of new inputs: netlink replies
# decoded and printed as "show" prints them (with the JSON checked), argument
# vectors against every parameter table, state files through their parsers
# and writers, and the CNI plugin's configuration (where json-c is installed,
# as for the plugin). New corpus entries and any crash file go to the test's
# temporary directory, not the tree.
. "$TESTSUITE/lib.sh"

top=$(cd "$TESTSUITE/.." && pwd)
cc=${FUZZ_CC:-$(sed -n 's/^CLANG := *//p' "$top/config.mk" 2>/dev/null)}
cc=${cc:-clang}
command -v "$cc" >/dev/null 2>&1 || skip "no $cc (clang builds the fuzzers)"
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' \
	> "$T_TMP/probe.c"
"$cc" -fsanitize=fuzzer,address,undefined "$T_TMP/probe.c" -o "$T_TMP/probe" > "$T_TMP/probe.log" 2>&1 ||
	skip "$cc cannot link -fsanitize=fuzzer (no libclang_rt.fuzzer): $(head -n 1 "$T_TMP/probe.log")"
pass "$cc links libFuzzer with ASan and UBSan"

make -C "$top" -j2 fuzz FUZZ_CC="$cc" > "$T_TMP/make.log" 2>&1 ||
	fail "make fuzz failed: $(tail -n 20 "$T_TMP/make.log")"
harnesses="netlink args state"
if pkg-config --exists json-c 2>/dev/null; then
	harnesses="$harnesses cni"
else
	skip_part fuzz-cni "no json-c (libjson-c-dev): fuzz_cni is not built, as the plugin is not"
fi
pass "make fuzz builds $(echo "$harnesses" | sed 's/[a-z]*/fuzz_&/g')"

before=$(find "$top/fuzz/corpus" -type f | wc -l)
for h in $harnesses; do
	bin=$top/build-fuzz/fuzz_$h
	seeds=$top/fuzz/corpus/$h
	[ -x "$bin" ] || fail "no $bin after make fuzz"
	n=$(find "$seeds" -type f | wc -l)
	[ "$n" -ge 10 ] || fail "fuzz/corpus/$h has $n seeds, expected at least 10"
	# Every seed once, as it is.
	"$bin" -runs=0 -artifact_prefix="$T_TMP/" "$seeds" > "$T_TMP/$h.seeds.log" 2>&1 ||
		fail "fuzz_$h crashes on its seed corpus: $(grep -a -m5 -E 'ERROR|fuzz_|SUMMARY' "$T_TMP/$h.seeds.log")"
	pass "fuzz_$h replays its $n seeds"
	# Then new inputs: bounded in count and time, one unit at most 10 s
	# (the four share what two had: 40 s at most).
	mkdir -p "$T_TMP/corpus-$h"
	"$bin" -runs=10000 -max_total_time=10 -timeout=10 -print_final_stats=1 \
		-artifact_prefix="$T_TMP/" "$T_TMP/corpus-$h" "$seeds" > "$T_TMP/$h.log" 2>&1 ||
		fail "fuzz_$h found a crash: $(grep -a -m5 -E 'ERROR|fuzz_|SUMMARY' "$T_TMP/$h.log"); input: $(ls "$T_TMP"/crash-* "$T_TMP"/leak-* "$T_TMP"/timeout-* 2>/dev/null | head -n 1)"
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T_TMP/$h.log")
	[ "${runs:-0}" -gt 0 ] || fail "fuzz_$h ran no input: $(tail -n 5 "$T_TMP/$h.log")"
	pass "fuzz_$h: $runs inputs without a crash"
done
[ "$(find "$top/fuzz/corpus" -type f | wc -l)" = "$before" ] || fail "a fuzzer added files to fuzz/corpus"
ls "$top"/crash-* "$top"/leak-* "$top"/timeout-* > /dev/null 2>&1 && fail "a fuzzer wrote into the tree"
pass "nothing written into the tree"
done_testing
