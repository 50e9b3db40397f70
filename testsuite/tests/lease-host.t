#!/bin/bash
# tier: host
# lease/unlease on a kernel without queue-create: one clear error each, and
# the usage errors that come before the kernel is asked.
. "$TESTSUITE/lib.sh"
need_root

if [ "$(kernel_has queue-create)" = no ]; then
	expect_error 5 "lease without kernel queue-create" lease dev nk0 from eth0 queue 1
	expect_match "$ERR" 'no netdev queue-create' "says what the kernel lacks"
fi
expect_error 1 "lease needs dev" lease from eth0 queue 1
expect_error 1 "lease needs from" lease dev nk0 queue 1
expect_error 1 "lease needs queue" lease dev nk0 from eth0
expect_error 1 "queue list not a number" lease dev nk0 from eth0 queue x
expect_error 1 "queue list inverted" lease dev nk0 from eth0 queue 5-2
expect_error 1 "queue list duplicate" lease dev nk0 from eth0 queue 1,1
expect_error 1 "queue list overlapping ranges" lease dev nk0 from eth0 queue 1-3,2
expect_error 1 "queue list trailing comma" lease dev nk0 from eth0 queue 1,
expect_error 1 "queue list negative" lease dev nk0 from eth0 queue -1
expect_error 1 "queue list too long" lease dev nk0 from eth0 queue 0-2000
expect_error 1 "unlease needs dev or from" unlease
expect_error 1 "unlease takes not both" unlease dev nk0 from eth0 queue 1
expect_error 1 "unlease from needs queue" unlease from eth0
expect_error 1 "unlease dev takes no queue" unlease dev nk0 queue 1
expect_error 1 "unlease unknown keyword" unlease dev nk0 gently
done_testing
