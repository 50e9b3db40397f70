#!/bin/bash
# tier: host
# bind-rx / bind-tx on the host kernel (no udmabuf, no dma-heap, no netkit):
# clear "not supported" answers, and nothing is left behind.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq

ns_new NS
ip -n "$NS" link add vA type veth peer name vB
ip -n "$NS" link set vA up

if [ ! -e /dev/udmabuf ]; then
	expect_error 5 "no udmabuf" -n "$NS" bind-rx dev vA queue 0 dmabuf udmabuf size 4M no-preflight
	expect_match "$ERR" 'udmabuf is not available: /dev/udmabuf is missing \(kernel option CONFIG_UDMABUF; modprobe udmabuf\)' "says what is missing"
else
	skip_part no-udmabuf "/dev/udmabuf exists here: its absence is not tested"
fi
if [ ! -e /dev/dma_heap/system ]; then
	expect_error 3 "no dma-heap" -n "$NS" bind-tx dev vA dmabuf heap system size 4M no-preflight
	expect_match "$ERR" 'dma-heap "system" does not exist under /dev/dma_heap' "names the heap"
fi
expect_error 5 "a veth cannot do devmem" -n "$NS" bind-rx dev vA queue 0 dmabuf udmabuf size 4M
expect_match "$ERR" 'vA is a virtual device \(veth\) without a DMA device' "says why before making a dmabuf"
# -force continues batches and forgives absent objects: it never turns the checks off.
expect_error 5 "-force keeps the preflight" -n "$NS" -force bind-rx dev vA queue 0 dmabuf udmabuf size 4M
expect_match "$ERR" 'vA is a virtual device \(veth\) without a DMA device' "the same check ran"
expect_error 5 "loopback neither" -n "$NS" bind-tx dev lo dmabuf udmabuf size 4M
expect_error 3 "no such device" -n "$NS" bind-rx dev nope queue 0 dmabuf udmabuf size 4M
expect_error 1 "no dmabuf" -n "$NS" bind-rx dev vA queue 0
expect_match "$ERR" 'needs "dmabuf SOURCE"' "names what is missing"
expect_error 1 "no size" -n "$NS" bind-rx dev vA queue 0 dmabuf udmabuf
expect_error 1 "fd with a size" -n "$NS" bind-tx dev vA dmabuf fd 0 size 4M
expect_error 1 "foreground and a command" -n "$NS" bind-tx dev vA dmabuf udmabuf size 4M foreground -- true
expect_error 1 "-- without a command" -n "$NS" bind-tx dev vA dmabuf udmabuf size 4M --
expect_error 1 "too many queues" -n "$NS" bind-rx dev vA queue 0-300 dmabuf udmabuf size 4M
expect_error 1 "unbind needs id or dev" -n "$NS" unbind
expect_error 1 "unbind takes one of them" -n "$NS" unbind id 3 dev vA
expect_error 3 "unbind what is not there" -n "$NS" unbind id 99999
expect_rc 0 "show bindings" -n "$NS" -j show bindings
expect_eq "$OUT" '{"bindings":[]}' "none"
expect_error 3 "show bindings of a device that does not exist" -n "$NS" show bindings dev TYPO
expect_rc 0 "show bindings of a device without any" -n "$NS" -j show bindings dev vA
expect_eq "$OUT" '{"bindings":[]}' "an empty list for a real device"
expect_rc 0 "unbind -force of what is not there" -n "$NS" -j -force unbind id 99999
expect_eq "$OUT" '{"unbound":[]}' "succeeds with the same document, empty"
expect_eq "$(ip netns pids "$NS")" "" "no holder process"
done_testing
