#!/bin/bash
# timestamps on every line of the nlprobe self-test, in the VM
start=$(date +%s)
bash testsuite/helpers/test_nlprobe.sh --vm 2>&1 | while IFS= read -r l; do echo "$(( $(date +%s) - start )) ${l:0:120}"; done
