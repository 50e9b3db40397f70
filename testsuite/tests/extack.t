#!/bin/bash
# tier: both
# Kernel errors become one Error: line with the extack message and the path
# of the attribute it names, decoded from NLMSGERR_ATTR_OFFS / MISS_TYPE /
# MISS_NEST with the request's own attribute tables (lib/nl.c). The requests
# are malformed on purpose by helpers/nlerr, which uses nkctl's lib/.
. "$TESTSUITE/lib.sh"
NLERR=${NKCTL_HELPERS:-$(dirname "$NKCTL")/helpers}/nlerr
[ -x "$NLERR" ] || skip "no $NLERR (make check builds it)"

run_nlerr() { "$NLERR" "$1" > "$T_TMP/out" 2> "$T_TMP/err"; RC=$?; ERR=$(cat "$T_TMP/err"); }

run_nlerr type-range
expect_eq "$ERR" "Error: type-range: integer out of range (type)" "bad attribute: message and path"
expect_eq "$RC" 2 "EINVAL is exit status 2"
run_nlerr missing-id
expect_eq "$ERR" "Error: missing-id: Invalid argument (missing attribute id)" "missing attribute by name"

# -j: the same error as one JSON object (its message the line's words, the
# extack's attributes by their kernel names), kept for the schema check
run_nlerr_j() {
	NK_ARGS="(nlerr) $1 -j"
	"$NLERR" "$1" -j > "$T_TMP/out" 2> "$T_TMP/err"
	RC=$?
	ERR_JSON=$(cat "$T_TMP/err")
	keep_json err-json "$ERR_JSON"
}
run_nlerr_j type-range
expect_eq "$ERR_JSON" '{"error":{"message":"type-range: integer out of range (type)","exit":2,"errno":34,"extack":{"msg":"integer out of range","bad-attr":"type"}}}' \
	"-j: one error object, the extack's msg and bad-attr"
expect_eq "$RC" 2 "-j: the same exit status"
run_nlerr_j missing-id
expect_eq "$(printf '%s' "$ERR_JSON" | jq -c '[.error.message, .error.extack]')" \
	'["missing-id: Invalid argument (missing attribute id)",{"miss-type":"id"}]' "-j: a missing attribute is miss-type"

if [ "$(kernel_has queue-create)" = yes ]; then
	run_nlerr lease-type
	expect_match "$ERR" '^Error: lease-type: .*\(lease\.queue\.type\)$' "a nested attribute's path"
fi
done_testing
