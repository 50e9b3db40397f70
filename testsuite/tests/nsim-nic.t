#!/bin/bash
# tier: vm
# netdevsim as a steerable NIC (testsuite/vm/netdevsim-rxnfc-rss.patch): two
# linked netdevsim devices in two namespaces; n-tuple rules and the RSS
# indirection table choose the RX queue of real packets, and the per-queue
# qstats say where they landed. Everything is read independently of nkctl:
# ethtool(8) (ioctl) and helpers/nlprobe.py (ethtool and netdev genetlink,
# the rxnfc ioctl; one process serving every read); delivery is counted by the receiver's /proc/net/snmp.
# Last, nkctl's `lease ... steer` on the same pair: the pod's address on the
# leased queue only, other traffic never there, the NIC restored by unlease.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq ethtool

ns_new PEER
ns_new NIC
# Keep the wire quiet: no DAD, no router solicitations (netdevsim clears
# IFF_MULTICAST, so only a few MLD reports remain).
for ns in "$PEER" "$NIC"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.accept_dad=0 \
		net.ipv6.conf.default.router_solicitations=0 net.ipv6.conf.default.accept_ra=0
done
sim_new SP "$PEER" 4
sim_new SN "$NIC" 4
ip_p=$(ifindex_of "$PEER" "$SP")
ip_n=$(ifindex_of "$NIC" "$SN")
# One nlprobe process for the many reads below (Python starts once).
nlprobe_serve

# The wire: /sys/bus/netdevsim/link_device takes "netnsfd:ifindex" twice.
exec {fa}<"/run/netns/$PEER" {fb}<"/run/netns/$NIC"
echo "$fa:$ip_p $fb:$ip_n" > /sys/bus/netdevsim/link_device || fail "link_device"
exec {fa}<&- {fb}<&-
ip -n "$PEER" addr add 10.77.0.1/24 dev "$SP"
ip -n "$NIC" addr add 10.77.0.2/24 dev "$SN"
ip -n "$PEER" -6 addr add fd77::1/64 dev "$SP" nodad
ip -n "$NIC" -6 addr add fd77::2/64 dev "$SN" nodad
ping_ok "$PEER" 10.77.0.2 || fail "no ping over the linked pair"
ping_ok "$PEER" fd77::2 || fail "no IPv6 ping over the linked pair"
pass "linked netdevsim pair carries IPv4 and IPv6"

nsim() { ip netns exec "$NIC" ethtool "$@"; }
# rxq: the NIC's per-queue RX packet counters, e.g. "3 0 12 0"
rxq() { nlp -n "$NIC" qstats "$ip_n" | jq -r '[.[] | select(.type=="rx")] | sort_by(.id) | map(.["rx-packets"]) | join(" ")'; }
# diffq BEFORE AFTER: sets D (e.g. "0 0 24 0") and D0..D3
diffq() {
	local -a a b
	read -ra a <<<"$1"
	read -ra b <<<"$2"
	D0=$((b[0] - a[0])) D1=$((b[1] - a[1])) D2=$((b[2] - a[2])) D3=$((b[3] - a[3]))
	D="$D0 $D1 $D2 $D3"
}
# udp_in NS [6]: UDP datagrams its stack received (delivered or not).
udp_in() {
	if [ "${2:-}" = 6 ]; then
		ip netns exec "$1" awk '$1=="Udp6InDatagrams"||$1=="Udp6NoPorts"{n+=$2} END{print n}' /proc/net/snmp6
	else
		ip netns exec "$1" awk '$1=="Udp:"&&$2~/^[0-9]/{print $2+$3}' /proc/net/snmp
	fi
}
tcp_in() { ip netns exec "$1" awk '$1=="Tcp:"&&$2~/^[0-9]/{print $11}' /proc/net/snmp; }
# send_udp DST PORT FLOWS: one datagram from each of FLOWS sockets (source ports).
send_udp() {
	ip netns exec "$PEER" $PY -c '
import socket, sys
dst, port, flows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
fam = socket.AF_INET6 if ":" in dst else socket.AF_INET
socks = [socket.socket(fam, socket.SOCK_DGRAM) for _ in range(flows)]
for s in socks:
    s.sendto(b"nsim" * 32, (dst, port))' "$@"
}
# wait_udp NS BEFORE N [6]: until NS has received N more UDP datagrams (30 s).
wait_udp() {
	for _ in $(seq 300); do
		[ $(($(udp_in "$1" "${4:-}") - $2)) -ge "$3" ] && return 0
		sleep 0.1
	done
	return 1
}

# What netdevsim had before the patch: channels, rings, data split.
expect_eq "$(nlp -n "$NIC" channels "$ip_n" | jq -c '[.["combined-max"], .["combined-count"]]')" "[4,4]" \
	"channels: 4 combined (netdevsim's own get/set_channels)"
expect_eq "$(nlp -n "$NIC" rings "$ip_n" | jq -c '[.["tcp-data-split"], .["hds-thresh"]]')" '["on",0]' \
	"rings: tcp-data-split on, hds-thresh 0 (netdevsim's own)"

# RSS: a 128-entry table spread over all 4 queues.
rss=$(nlp -n "$NIC" rss "$ip_n")
expect_eq "$(printf '%s' "$rss" | jq -c '[(.indir | length), (.indir | unique)]')" "[128,[0,1,2,3]]" \
	"default indirection table: 128 entries over queues 0-3"
expect_match "$(nsim -x "$SN")" "RX flow hash indirection table for $SN with 4 RX ring" "ethtool -x reads it too"

# n-tuple: empty table of 32, the driver picks locations (RX_CLS_LOC_SPECIAL).
expect_eq "$(nlp -n "$NIC" ntuple "$SN" | jq -c '[.size, .special, .count]')" "[32,true,0]" \
	"rule table: 32 locations, driver-assigned, empty"
expect_match "$(nsim -n "$SN")" "4 RX rings available" "ethtool -n: GRXRINGS"

# An indirection table without queues 2 and 3: they get only ruled traffic.
nsim -X "$SN" weight 1 1 0 0 || fail "ethtool -X weight 1 1 0 0"
expect_eq "$(nlp -n "$NIC" rss "$ip_n" | jq -c '.indir | unique')" "[0,1]" "table now uses queues 0 and 1"

# Rule 1 (ethtool, location ANY): UDP to port 7001 -> queue 2.
out=$(nsim -N "$SN" flow-type udp4 dst-port 7001 action 2) || fail "ethtool -N udp4: $out"
id_udp=$(printf '%s' "$out" | sed -n 's/^Added rule with ID \([0-9]*\)$/\1/p')
[ -n "$id_udp" ] || fail "ethtool -N did not report a rule id: $out"
pass "ethtool -N udp4 dst-port 7001 action 2: driver assigned ID $id_udp"
# Rule 2 (nlprobe's own SRXCLSRLINS, location ANY): IPv6 UDP to 7006 -> queue 2.
id_udp6=$(nlp -n "$NIC" ntuple-add "$SN" udp6 dst-ip fd77::2 dst-port 7006 action 2 | jq .location)
[ "$id_udp6" != "$id_udp" ] && [ "$id_udp6" -lt 32 ] || fail "second rule got location $id_udp6"
pass "SRXCLSRLINS with RX_CLS_LOC_ANY returns location $id_udp6"
# Rule 3: TCP from the peer's address -> queue 3.
out=$(nsim -N "$SN" flow-type tcp4 src-ip 10.77.0.1 dst-ip 10.77.0.2 action 3) || fail "ethtool -N tcp4: $out"
id_tcp=$(printf '%s' "$out" | sed -n 's/^Added rule with ID \([0-9]*\)$/\1/p')
rules=$(nlp -n "$NIC" ntuple "$SN")
expect_eq "$(printf '%s' "$rules" | jq -c '[.count, [.rules[].location]]')" \
	"[3,$(jq -nc --argjson a "[$id_udp,$id_udp6,$id_tcp]" '$a | sort')]" "GRXCLSRLALL lists the three assigned locations"
expect_eq "$(printf '%s' "$rules" | jq -c --argjson l "$id_udp" '.rules[] | select(.location==$l) | [.["flow-type"], .["dst-port"], .action, has("src-ip")]')" \
	'["udp4",7001,2,false]' "GRXCLSRULE: udp4 dst-port 7001 action 2, nothing else matched"
expect_eq "$(printf '%s' "$rules" | jq -c --argjson l "$id_udp6" '.rules[] | select(.location==$l) | [.["flow-type"], .["dst-ip"], .["dst-port"], .action]')" \
	'["udp6","fd77::2",7006,2]' "GRXCLSRULE: the IPv6 rule"
expect_eq "$(printf '%s' "$rules" | jq -c --argjson l "$id_tcp" '.rules[] | select(.location==$l) | [.["flow-type"], .["src-ip"], .["dst-ip"], .action]')" \
	'["tcp4","10.77.0.1","10.77.0.2",3]' "GRXCLSRULE: the TCP rule"
expect_match "$(nsim -n "$SN")" "Total 3 rules" "ethtool -n agrees"
# (ethtool 6.1 exits 0 even when the insert fails: ask nlprobe, check the count)
nlp -n "$NIC" ntuple-add "$SN" udp4 dst-port 7009 action 4 2>/dev/null && fail "a rule to queue 4 of 4 was accepted"
nsim -N "$SN" flow-type udp4 dst-port 7009 action 4 >/dev/null 2>&1
expect_eq "$(nlp -n "$NIC" ntuple "$SN" | jq .count)" 3 "a rule to a queue the device does not have is refused"
nsim -L "$SN" combined 2 >/dev/null 2>&1
expect_eq "$(nlp -n "$NIC" channels "$ip_n" | jq '.["combined-count"]')" 4 \
	"the core sees the rules: fewer channels than a rule's queue (3) is refused"

# 24 UDP flows to the ruled port: all on queue 2 (the table cannot reach 2).
q0=$(rxq); u0=$(udp_in "$NIC")
send_udp 10.77.0.2 7001 24
wait_udp "$NIC" "$u0" 24 || fail "the NIC's namespace did not receive 24 datagrams"
diffq "$q0" "$(rxq)"; u=$(($(udp_in "$NIC") - u0))
expect_eq "$D2" "$u" "udp4 rule: all $u datagrams received landed on queue 2 ($D)"
expect_eq "$D3" 0 "nothing on queue 3"

# The same over IPv6.
q0=$(rxq); u0=$(udp_in "$NIC" 6)
send_udp fd77::2 7006 24
wait_udp "$NIC" "$u0" 24 6 || fail "the NIC's namespace did not receive 24 IPv6 datagrams"
diffq "$q0" "$(rxq)"; u=$(($(udp_in "$NIC" 6) - u0))
expect_eq "$D2" "$u" "udp6 rule: all $u datagrams received landed on queue 2 ($D)"

# TCP: every segment the NIC's namespace received came through queue 3.
q0=$(rxq); t0=$(tcp_in "$NIC")
tcp_ok "$PEER" "$NIC" 10.77.0.2 || fail "TCP over the linked pair"
sleep 0.3
diffq "$q0" "$(rxq)"; t=$(($(tcp_in "$NIC") - t0))
[ "$t" -gt 0 ] || fail "no TCP segments counted"
expect_eq "$D3" "$t" "tcp4 rule: all $t segments landed on queue 3 ($D)"

# Unruled traffic follows the table: 48 flows to another port, on 0 and 1.
q0=$(rxq); u0=$(udp_in "$NIC")
send_udp 10.77.0.2 7002 48
wait_udp "$NIC" "$u0" 48 || fail "48 datagrams to port 7002 did not arrive"
diffq "$q0" "$(rxq)"
expect_eq "$D2 $D3 $((D0 > 0)) $((D1 > 0)) $((D0 + D1 >= 48))" "0 0 1 1 1" \
	"RSS: 48 flows spread over queues 0 and 1, none on 2 or 3 ($D)"
# ... and with the default table, also on 3.
nsim -X "$SN" default || fail "ethtool -X default"
q0=$(rxq); u0=$(udp_in "$NIC")
send_udp 10.77.0.2 7002 48
wait_udp "$NIC" "$u0" 48 || fail "48 datagrams did not arrive"
diffq "$q0" "$(rxq)"
expect_eq "$((D3 > 0)) $((D0 + D1 + D2 + D3 >= 48))" "1 1" "RSS: the default table reaches queue 3 too ($D)"
nsim -X "$SN" weight 1 1 1 0 || fail "ethtool -X weight 1 1 1 0"
q0=$(rxq); u0=$(udp_in "$NIC")
send_udp 10.77.0.2 7002 48
wait_udp "$NIC" "$u0" 48 || fail "48 datagrams did not arrive"
diffq "$q0" "$(rxq)"
expect_eq "$D3" 0 "RSS: a table without queue 3 keeps other traffic off it ($D)"

# Delete the UDP rule: port 7001 follows the table again.
nsim -N "$SN" delete "$id_udp" || fail "ethtool -N delete $id_udp"
expect_eq "$(nlp -n "$NIC" ntuple "$SN" | jq -c --argjson l "$id_udp" '[.count, ([.rules[].location] | index($l))]')" \
	"[2,null]" "SRXCLSRLDEL: rule $id_udp is gone"
nsim -X "$SN" weight 1 1 0 0 || fail "ethtool -X weight 1 1 0 0"
q0=$(rxq); u0=$(udp_in "$NIC")
send_udp 10.77.0.2 7001 24
wait_udp "$NIC" "$u0" 24 || fail "datagrams after the delete did not arrive"
diffq "$q0" "$(rxq)"
expect_eq "$D2 $D3" "0 0" "after the delete port 7001 no longer reaches queue 2 ($D)"
nlp -n "$NIC" ntuple-del "$SN" "$id_udp" 2>/dev/null && fail "deleting a gone rule succeeded"
pass "deleting a gone rule fails"

# Drop action (RX_CLS_FLOW_DISC): nothing arrives.
id_drop=$(nlp -n "$NIC" ntuple-add "$SN" udp4 dst-port 7003 action drop | jq .location)
expect_eq "$(nlp -n "$NIC" ntuple "$SN" | jq -r --argjson l "$id_drop" '.rules[] | select(.location==$l) | .action')" \
	drop "a drop rule reads back as drop"
u0=$(udp_in "$NIC")
send_udp 10.77.0.2 7003 8
send_udp 10.77.0.2 7002 1
wait_udp "$NIC" "$u0" 1 || fail "the datagram after the dropped ones did not arrive"
sleep 0.2
expect_eq "$(($(udp_in "$NIC") - u0))" 1 "the drop rule's 8 datagrams never arrived"

# True per-queue TX counters too: the peer's sockets used several TX queues,
# and per-queue sums equal the device totals (no fake queue-0 numbers).
# (read queues, device, queues: the device total lies between the sums)
txsum() { nlp -n "$PEER" qstats "$ip_p" | jq -r '[.[] | select(.type=="tx")] | "\(map(.["tx-packets"]) | add) \(map(select(.["tx-packets"] > 0)) | length)"'; }
read -r s1 used < <(txsum)
dev=$(nlp -n "$PEER" qstats "$ip_p" device | jq '.["tx-packets"]')
read -r s2 _ < <(txsum)
expect_eq "$((used > 1))" 1 "the peer's TX packets are counted on $used queues, not one"
expect_eq "$((s1 <= dev && dev <= s2))" 1 "TX: per-queue packets add up to the device's ($s1 <= $dev <= $s2)"

# nkctl's NIC side with real packets: `lease ... steer dst A` takes the queue
# out of RSS and steers A to it; only A's traffic lands there, and unlease
# leaves the NIC as it found it (read back here, not through nkctl).
for l in "$id_udp6" "$id_tcp" "$id_drop"; do nsim -N "$SN" delete "$l" || fail "ethtool -N delete $l"; done
nsim -X "$SN" default || fail "ethtool -X default"
nic_state() { # the indirection table, the rules and header split, as the kernel reports them
	printf '%s %s %s' "$(nlp -n "$NIC" rss "$ip_n" | jq -c .indir)" \
		"$(nlp -n "$NIC" ntuple "$SN" | jq -c .rules)" "$(nlp -n "$NIC" rings "$ip_n" | jq -S -c .)"
}
before=$(nic_state)
ip -n "$NIC" addr add 10.77.0.9/24 dev "$SN"
nk -n "$NIC" link add nks type single rxqueues 2
expect_eq "$RC" 0 "a lease holder"
expect_rc 0 "lease queue 3 with steer dst 10.77.0.9" -n "$NIC" lease dev nks from "$SN" queue 3 steer dst 10.77.0.9
expect_eq "$(nlp -n "$NIC" rss "$ip_n" | jq -c '.indir | unique')" '[0,1,2]' "the table no longer names queue 3"
expect_eq "$(nlp -n "$NIC" ntuple "$SN" | jq -c '[.rules[] | [.["flow-type"], .["dst-ip"], .action]]')" \
	'[["ip4","10.77.0.9",3]]' "one rule: 10.77.0.9 to queue 3"
expect_eq "$(nlp -n "$NIC" rings "$ip_n" | jq -c '[.["tcp-data-split"], .["hds-thresh"]]')" '["on",0]' \
	"header split on, hds-thresh 0"
ping_ok "$PEER" 10.77.0.9 || fail "no ping to the steered address"   # ARP, hashed, out of the way
q0=$(rxq); u0=$(udp_in "$NIC")
send_udp 10.77.0.9 7010 24
wait_udp "$NIC" "$u0" 24 || fail "24 datagrams to the pod's address did not arrive"
diffq "$q0" "$(rxq)"; u=$(($(udp_in "$NIC") - u0))
expect_eq "$D3" "$u" "the steered address: all $u datagrams on the leased queue ($D)"
q0=$(rxq); u0=$(udp_in "$NIC")
send_udp 10.77.0.2 7010 48
wait_udp "$NIC" "$u0" 48 || fail "48 datagrams to the other address did not arrive"
diffq "$q0" "$(rxq)"
expect_eq "$D3 $((D0 + D1 + D2 >= 48))" "0 1" "other traffic never lands on the leased queue ($D)"
expect_rc 0 "unlease" -n "$NIC" unlease dev nks
expect_eq "$(nic_state)" "$before" "the indirection table, rules and header split are as before"
q0=$(rxq); u0=$(udp_in "$NIC")
send_udp 10.77.0.2 7010 48
wait_udp "$NIC" "$u0" 48 || fail "48 datagrams after unlease did not arrive"
diffq "$q0" "$(rxq)"
expect_eq "$((D3 > 0))" 1 "after unlease hashed traffic reaches queue 3 again ($D)"
done_testing
