#!/bin/bash
# tier: host
# nkctl doctor where the kernel has no netkit (this host's 6.18): without dev
# it still prints its whole document, the kernel check failed, no pod, exit
# 7; with dev it refuses (a veth is no netkit device, and this kernel has
# none). The JSON is checked against the schema at the end.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq

ns_new NS
ip -n "$NS" link add vA type veth peer name vB || fail "veth"
netkit=$(kernel_has netkit)
nk -j show kernel
expect_eq "$(printf '%s' "$OUT" | jq -r '.kernel.features[] | select(.name == "netkit") | if .supported then "yes" else "no" end')" "$netkit" \
	"show kernel says netkit is $netkit, as nlprobe found"

nk -n "$NS" -j doctor
json_valid "doctor -j"
expect_eq "$(printf '%s' "$OUT" | jq -c '.doctor.pods')" '[]' "no netkit primary here: no pod"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.doctor.checks[] | select(has("fix"))]')" '[]' "no command fixes a kernel"
if [ "$netkit" = no ]; then
	expect_eq "$RC" 7 "a kernel without netkit fails doctor (exit 7, document printed)"
	expect_eq "$(printf '%s' "$OUT" | jq -c '[.doctor.checks[] | select(.status == "fail") | .detail][0]')" \
		'"this kernel has no netkit (netkit devices needs Linux 6.7+)"' "the kernel check says what is missing"
	expect_eq "$(printf '%s' "$OUT" | jq -c '[.doctor.failed >= 1, .doctor.warnings >= 0]')" '[true,true]' "counted"
	expect_rc 7 "text" -n "$NS" doctor
	expect_match "$OUT" '^kernel:' "a kernel block"
	expect_match "$OUT" 'fail +kernel +this kernel has no netkit' "one line per check"
	expect_match "$OUT" '[1-9][0-9]* failed, [0-9]+ warnings \(0 pods\)$' "a summary"
	expect_error 5 "dev on a kernel without netkit" -n "$NS" doctor dev vA
	expect_match "$ERR" 'this kernel has no netkit' "says the kernel has none"
else
	expect_eq "$RC" 0 "a kernel with netkit and no pod: nothing fails"
	expect_error 5 "a veth" -n "$NS" doctor dev vA
	expect_match "$ERR" 'not a netkit device' "says why"
fi
expect_error 3 "no such device" -n "$NS" doctor dev nope0
expect_error 1 "dev without a name" -n "$NS" doctor dev
expect_rc 0 "help" doctor help
expect_match "$OUT" '^Usage: nkctl doctor \[ dev NKDEV \]' "the synopsis from the table"
expect_rc 0 "completion lists it" __list
expect_match "$OUT" $'cmd\tdoctor' "doctor is in the listing"
done_testing
