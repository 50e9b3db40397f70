#!/bin/bash
# tier: both
# timeout: 420
# The independent netlink reader the other tests trust (helpers/nlprobe.py)
# agrees with iproute2 and sysfs; in the VM also on netkit and netdevsim.
. "$TESTSUITE/lib.sh"
args=()
[ "${NKCTL_TIER:-host}" = vm ] && args=(--vm)
exec bash "$TESTSUITE/helpers/test_nlprobe.sh" "${args[@]}"
