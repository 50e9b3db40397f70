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

if [ "$(kernel_has queue-create)" = yes ]; then
	run_nlerr lease-type
	expect_match "$ERR" '^Error: lease-type: .*\(lease\.queue\.type\)$' "a nested attribute's path"
fi
done_testing
