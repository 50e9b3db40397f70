#!/bin/bash
# tier: both
# nkctl show against the kernel's truth: ip -j -d link, /sys queue counts;
# -n by name and by /proc/PID/ns/net path; one JSON shape with or without dev.
. "$TESTSUITE/lib.sh"
need_root
need_cmd ip jq

ns_new NS
ip -n "$NS" link add vA type veth peer name vB || fail "veth"
ip -n "$NS" link set vA up mtu 1400 || fail "set vA up"
ip -n "$NS" link set vB up || fail "set vB up"
ip -n "$NS" link add d0 type dummy 2>/dev/null && ip -n "$NS" link set d0 up

expect_rc 0 "show in a netns by name" -n "$NS" -j show
json_valid "show -j"
SHOW=$OUT
ipj=$(ip -n "$NS" -j -d link show)

# Same devices, same ifindex, names, mtu, kind and queue counts as ip.
want=$(printf '%s' "$ipj" | jq -S '[.[] | {ifindex, ifname, mtu,
	kind: .linkinfo.info_kind, rx: .num_rx_queues, tx: .num_tx_queues}] | sort_by(.ifindex)')
got=$(printf '%s' "$SHOW" | jq -S '[.devices[] | {ifindex, ifname, mtu, kind,
	rx: .["num-rx-queues"], tx: .["num-tx-queues"]}] | sort_by(.ifindex)')
expect_eq "$got" "$want" "devices agree with ip -j -d link show"

# operstate agrees (ip prints it upper-case).
want=$(printf '%s' "$ipj" | jq -r '[.[] | "\(.ifname)=\(.operstate | ascii_downcase)"] | sort | join(" ")')
got=$(printf '%s' "$SHOW" | jq -r '[.devices[] | "\(.ifname)=\(.operstate)"] | sort | join(" ")')
expect_eq "$got" "$want" "operstate agrees with ip"

# veth peers: link is the peer's ifindex, link-ifname its name.
a_idx=$(printf '%s' "$ipj" | jq '.[] | select(.ifname=="vA") | .ifindex')
b_idx=$(printf '%s' "$ipj" | jq '.[] | select(.ifname=="vB") | .ifindex')
got=$(printf '%s' "$SHOW" | jq -r '.devices[] | select(.ifname=="vA") | "\(.link) \(.["link-ifname"])"')
expect_eq "$got" "$b_idx vB" "veth peer decoded from IFLA_LINK"

# Queues of an up device: one entry per /sys rx-N / tx-N directory.
for dev in vA vB lo; do
	sys_rx=$(ip netns exec "$NS" sh -c "ls -d /sys/class/net/$dev/queues/rx-* | wc -l")
	sys_tx=$(ip netns exec "$NS" sh -c "ls -d /sys/class/net/$dev/queues/tx-* | wc -l")
	got=$(printf '%s' "$SHOW" | jq -r --arg d "$dev" '.devices[] | select(.ifname==$d) |
		"\([.queues[] | select(.type=="rx")] | length) \([.queues[] | select(.type=="tx")] | length)"')
	expect_eq "$got" "$sys_rx $sys_tx" "$dev queues match /sys"
done

# Types never change: numbers are numbers, lists are arrays.
bad=$(printf '%s' "$SHOW" | jq '[.devices[] | select((.ifindex|type)!="number" or
	(.ifname|type)!="string" or (.flags|type)!="array" or (.queues|type)!="array" or
	(.napis|type)!="array" or (.mtu|type)!="number")] | length')
expect_eq "$bad" 0 "key types are fixed"
bad=$(printf '%s' "$SHOW" | jq '[.devices[].queues[] | select((.id|type)!="number" or
	(.type|type)!="string")] | length')
expect_eq "$bad" 0 "queue key types are fixed"

# One device: the same top-level shape, exactly one entry.
expect_rc 0 "show dev" -n "$NS" -j show dev vA
json_valid "show dev -j"
expect_eq "$(printf '%s' "$OUT" | jq -c '[keys, (.devices | length), .devices[0].ifname]')" \
	'[["devices"],1,"vA"]' "show dev keeps the top-level shape"
one=$(printf '%s' "$OUT" | jq -S '.devices[0]')
all=$(printf '%s' "$SHOW" | jq -S '.devices[] | select(.ifname=="vA")')
expect_eq "$one" "$all" "show dev prints what show prints for that device"

# -n by a /proc/PID/ns/net path gives the same view.
ip netns exec "$NS" sleep 30 &
holder=$!
defer "kill $holder"
for _ in 1 2 3 4 5 6 7 8 9 10; do
	[ "$(readlink /proc/$holder/ns/net)" != "$(readlink /proc/self/ns/net)" ] && break
	sleep 0.1
done
expect_rc 0 "show by netns path" -n "/proc/$holder/ns/net" -j show
got=$(printf '%s' "$OUT" | jq -c '[.devices[] | .ifname] | sort')
want=$(printf '%s' "$SHOW" | jq -c '[.devices[] | .ifname] | sort')
expect_eq "$got" "$want" "path and name give the same namespace"

# Text output names every device.
expect_rc 0 "text output" -n "$NS" show
for dev in lo vA vB; do
	expect_match "$OUT" "^[0-9]+: $dev: " "text lists $dev"
done

# -p is indented JSON with the same content.
expect_rc 0 "pretty" -n "$NS" -p show
expect_eq "$(printf '%s' "$OUT" | jq -S -c .)" "$(printf '%s' "$SHOW" | jq -S -c .)" "-p equals -j"
expect_match "$(printf '%s' "$OUT" | sed -n 2p)" '^  "devices"' "-p indents"

# Without privileges a probe that cannot run says so: neither yes nor no.
if command -v setpriv >/dev/null 2>&1 && id nobody >/dev/null 2>&1; then
	cp "${NKCTL_REAL:-$NKCTL}" "$T_TMP/nkctl-user" && chmod 755 "$T_TMP" "$T_TMP/nkctl-user"
	OUT=$(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$T_TMP/nkctl-user" -j show kernel 2>"$T_TMP/err") || fail "show kernel as nobody: $(cat "$T_TMP/err")"
	json_valid "show kernel as nobody"
	expect_eq "$(printf '%s' "$OUT" | jq -r '.kernel.features[] | select(.name == "tcx") | [.state, .supported] | join(" ")')" \
		"unknown false" "tcx without CAP_NET_ADMIN is unknown, not supported"
	expect_match "$(printf '%s' "$OUT" | jq -r '.kernel.features[] | select(.name == "tcx") | .detail')" \
		'needs CAP_NET_ADMIN' "and says what it needs"
	OUT=$(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$T_TMP/nkctl-user" show kernel 2>&1)
	expect_match "$OUT" 'tcx +unknown \(needs CAP_NET_ADMIN\)' "text says unknown (needs CAP_NET_ADMIN)"
	setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
		"$T_TMP/nkctl-user" -j redirect show > "$T_TMP/out" 2> "$T_TMP/err"
	expect_eq "$?:$(cat "$T_TMP/out")" "6:" "redirect show without privileges: permission exit status, no document"
	expect_match "$(cat "$T_TMP/err")" '^\{"error":\{"message":"reading BPF programs needs CAP_NET_ADMIN.*"exit":6' "says what it needs (-j: the error object)"
fi
# -s: each device gains IFLA_STATS64 as ip -s link reads it. Traffic on lo
# first, so the counters are not all zero; then nkctl and ip read in turn and
# nkctl's count lies between two reads of ip (lo is quiet otherwise).
ip netns exec "$NS" ip link set lo up
ip netns exec "$NS" ping -c 3 -i 0.2 -W 1 127.0.0.1 > /dev/null 2>&1
ip_rx() { ip -n "$NS" -s -j link show dev "$1" | jq '.[0].stats64.rx.packets'; }
before=$(ip_rx lo)
expect_rc 0 "show -s" -n "$NS" -s -j show
json_valid "show -s -j"
STATS=$OUT
after=$(ip_rx lo)
got=$(printf '%s' "$STATS" | jq '.devices[] | select(.ifname=="lo") | .stats64.rx.packets')
[ "$got" -ge "$before" ] && [ "$got" -le "$after" ] && [ "$got" -gt 0 ] &&
	pass "lo rx packets $got agree with ip -s ($before..$after)" ||
	fail "lo rx packets $got, ip -s says $before..$after"
bad=$(printf '%s' "$STATS" | jq '[.devices[].stats64 | (.rx, .tx) | to_entries[] |
	select((.value|type)!="number")] | length')
expect_eq "$bad" 0 "counters are numbers"
expect_eq "$(printf '%s' "$STATS" | jq '[.devices[] | select(.stats64 == null)] | length')" 0 \
	"every device has stats64"
# veth has no per-queue stats: queues carry nothing invented.
expect_eq "$(printf '%s' "$STATS" | jq -c '[.devices[] | select(.ifname=="vA") | .queues[] | keys] | unique')" \
	'[["id","type"]]' "veth queues carry no counters"
# Without -s: no counters.
expect_eq "$(printf '%s' "$SHOW" | jq '[.devices[] | select(.stats64)] | length')" 0 "no stats64 without -s"
for spelling in -stats --stats; do
	expect_rc 0 "$spelling" -n "$NS" "$spelling" -j show dev vA
	expect_eq "$(printf '%s' "$OUT" | jq '.devices[0].stats64 | has("rx") and has("tx")')" true \
		"$spelling prints stats64"
done
expect_rc 0 "show -s text" -n "$NS" -s show dev lo
expect_match "$OUT" '^    RX: bytes [0-9]+ packets [0-9]+ ' "text RX line"
expect_match "$OUT" '^    TX: bytes [0-9]+ packets [0-9]+ ' "text TX line"

# Rates: a ping every 0.2 s is about 10 packets a second on lo (each echo
# is two packets there: request and reply). The pinger runs before and past
# the interval: a loaded machine may start it late, or nkctl early.
ip netns exec "$NS" ping -c 40 -i 0.2 -W 1 127.0.0.1 > /dev/null 2>&1 &
pinger=$!
defer "kill $pinger 2>/dev/null"
sleep 0.5
expect_rc 0 "show interval" -n "$NS" -j show dev lo interval 2 count 2
kill "$pinger" 2>/dev/null
wait "$pinger" 2>/dev/null
expect_eq "$(printf '%s\n' "$OUT" | wc -l)" 2 "count 2: two documents, one a line"
first=$(printf '%s\n' "$OUT" | head -n 1)
printf '%s' "$first" > "$T_TMP/rate.json"
OUT=$first json_valid "interval -j"
rate=$(printf '%s' "$first" | jq '.devices[0].stats64.rx.packets')
expect_eq "$(printf '%s' "$first" | jq .interval)" 2 "the document says the interval"
[ "$rate" -ge 3 ] && [ "$rate" -le 30 ] && pass "lo rx rate $rate/s for ~10 packets/s" ||
	fail "lo rx rate $rate/s, ~10 packets/s were sent"
expect_rc 0 "interval text" -n "$NS" show dev lo interval 1
expect_match "$OUT" '^counters per second over 1 s' "text says what the numbers are"
expect_error 1 "count needs interval" -n "$NS" show count 2
expect_error 1 "interval 0" -n "$NS" show interval 0

# Names JSON must escape, byte for byte: quote, backslash, a control byte,
# UTF-8 kept as it is; DEL escaped, a byte that is not UTF-8 as U+FFFD.
ns_new NSX
ip -n "$NSX" link add $'q"\\\x01\xc3\xa9' type veth peer name $'p\xff\x7f' || fail "veth with odd names"
expect_rc 0 "show with odd names" -n "$NSX" -j show
json_valid "odd names"
printf '%s' "$OUT" | grep -qF '"ifname":"q\"\\\u0001é"' && pass "quote, backslash, control, UTF-8" ||
	fail "escaped name not found: $OUT"
printf '%s' "$OUT" | grep -qF '"ifname":"p\ufffd\u007f"' && pass "invalid UTF-8 and DEL" ||
	fail "escaped name not found: $OUT"
done_testing
