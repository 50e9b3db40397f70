#!/bin/bash
# tier: vm
# timeout: 420
# The CNI plugin as a node runs it, through libcni with host-local IPAM on an
# 8-queue netdevsim NIC linked to a dual-stack remote (forwarding off until ADD turns it on): six
# ADDs in parallel on a six-queue pool get six distinct queues (a seventh
# fails: exhausted); six DELs in parallel and ADD/DEL of different pods
# interleaved 20 times (rounds: half in make check-all) leave nothing; dual-stack and IPv6-only pods have
# every address with its prefix length, a steering rule and a NIC route each,
# reach the remote and are reached; CHECK catches a removed IPv6 rule and a
# removed address; ten ADDs killed (with nkctl) at a random moment while
# they run (at least five must still have been running), each followed by DEL, leave no device, lease, rule, reservation, route or
# IPAM reservation, and the RSS table as it was.
. "$TESTSUITE/lib.sh"
. "$TESTSUITE/cni.sh"
need_cmd setsid
topo_nic_remote 8
ip -n "$HOST" addr add fd10::1/64 dev "$SIM" nodad
ip -n "$REMOTE" addr add fd10::2/64 dev "$RSIM" nodad
ip -n "$REMOTE" route add 10.21.0.0/16 via 10.10.2.1
ip -n "$REMOTE" route add fd20::/64 via fd10::1
ip -n "$REMOTE" route add fd21::/64 via fd10::1
ip netns exec "$HOST" sysctl -qw net.ipv6.conf.all.forwarding=0

conf() { # conf NAME RANGES ROUTES: a network on the pool 1-6 (the plugin adds only IPAM's routes)
	jq -cn --arg name "$1" --arg nic "$SIM" --arg dir "$IPAMDIR" --argjson r "$2" --argjson rt "$3" '{
		cniVersion: "1.0.0", name: $name, type: "nkctl-cni", nic: $nic, queues: "1-6",
		ipam: {type: "host-local", dataDir: $dir, ranges: $r, routes: $rt}}'
}
DEF4='{"dst": "0.0.0.0/0"}'
DEF6='{"dst": "::/0"}'
V4='[{"subnet": "10.21.0.0/16", "gateway": "10.21.0.1"}]'
V6='[{"subnet": "fd20::/64", "gateway": "fd20::1"}]'
V6ONLY='[{"subnet": "fd21::/64", "gateway": "fd21::1"}]'
cni_conflist "$T_TMP/nk.conflist" "$(conf nk '[[{"subnet": "10.20.0.0/16", "gateway": "10.20.0.1"}]]' "[$DEF4]")"
cni_conflist "$T_TMP/dual.conflist" "$(conf dual "[$V4, $V6]" "[$DEF4, $DEF6]")"
cni_conflist "$T_TMP/v6.conflist" "$(conf v6 "[$V6ONLY]" "[$DEF6]")"

# The NIC's leases, n-tuple rules ([address, queue]) and RSS table as the
# kernel has them (nlprobe), not as nkctl shows them.
nlprobe_serve "$HOST"
SIDX=$(ifindex_of "$HOST" "$SIM")
k_leased() { nlp queues "$SIDX" | jq -c '[.[] | select(.type == "rx" and .lease != null) | .id] | sort'; }
k_rules() { nlp ntuple "$SIM" | jq -c '[.rules[] | [.["dst-ip"], .action]] | sort'; }
k_indir() { nlp rss "$SIDX" | jq -c .indir; }
RSS0=$(k_indir)
[ -n "$RSS0" ] && [ "$RSS0" != null ] || fail "the NIC's RSS table: $RSS0"
nk_addr() { printf '%s' "$1" | jq -r ".ips[$2].address | split(\"/\")[0]"; }

expect_clean() { # expect_clean WHEN: nothing of any pod is left
	local n
	echo "# $1: at $SECONDS s"
	expect_eq "$(ip -n "$HOST" -o link show | grep -o 'n[kl][0-9a-f]\{10\}' | sort -u | paste -sd' ')" "" \
		"$1: no pod device left"
	for _ in $(seq 60); do # a namespace's devices go a little after ip netns del
		n=$(k_leased)
		[ "$n" = "[]" ] && break
		sleep 0.5
	done
	expect_eq "$n" "[]" "$1: no lease left (nlprobe)"
	nk -n "$HOST" -j redirect show
	expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[] | .ifname]')" '[]' "$1: no route or redirect left"
	[ "$(reservations)" = 0 ] || find "$IPAMDIR" -type f -exec sh -c 'echo "# IPAM: $1: $(cat "$1")"' sh {} \;
	expect_eq "$(reservations)" 0 "$1: no IPAM reservation left"
	expect_eq "$(k_rules)" "[]" "$1: no steering rule left (nlprobe)"
	nk -n "$HOST" -j nic show dev "$SIM"
	expect_eq "$(printf '%s' "$OUT" | jq -c '[.nics[0].queues[] | select(.reserved)] | length')" 0 \
		"$1: no reservation left in nkctl's records"
	expect_eq "$(k_indir)" "$RSS0" "$1: the RSS table as before (nlprobe)"
}

six() { # six ADD|DEL: the command for the six pods at once; each must succeed
	local i f pids=()
	for i in 1 2 3 4 5 6; do cni_bg "$1" "par$i" "/run/netns/${PODS[$i]}" "$T_TMP/$1$i"; pids+=($!); done
	wait "${pids[@]}" # not a bare wait: that waits for the nlprobe server too
	for i in 1 2 3 4 5 6; do
		f=$T_TMP/$1$i
		[ "$(cat "$f.rc")" = 0 ] || fail "parallel $1 $i: $(cat "$f" "$f.err")"
	done
	pass "six ${1}s in parallel succeed"
}

# Six ADDs at once on the six-queue pool.
PODS=()
for i in 1 2 3 4 5 6; do ns_new P; PODS[$i]=$P; done
six ADD
expect_eq "$(k_leased)" '[1,2,3,4,5,6]' "each queue of the pool is leased (nlprobe)"
RULES=$(k_rules)
for i in 1 2 3 4 5 6; do
	a=$(nk_addr "$(cat "$T_TMP/ADD$i")" 0)
	expect_match "$(printf '%s' "$RULES" | jq -c --arg a "$a" '[.[] | select(.[0] == $a) | .[1]]')" '^\[[1-6]\]$' \
		"pod $i's address is steered to one queue of the pool (nlprobe)"
done
expect_eq "$(printf '%s' "$RULES" | jq -c '[.[][1]] | sort')" '[1,2,3,4,5,6]' "each pod to its own queue (nlprobe)"
for i in 1 6; do
	a=$(nk_addr "$(cat "$T_TMP/ADD$i")" 0)
	ping_ok "$REMOTE" "$a" && ping_ok "${PODS[$i]}" 10.10.2.2 || fail "pod $i and the remote ($a)"
	pass "pod $i and the remote reach each other"
done
ns_new P7
cni ADD par7 "/run/netns/$P7"
expect_match "$RC $(printf '%s' "$OUT" | jq -r .msg)" '^1 .*the queue pool 1-6 of .* is exhausted' "a seventh ADD: the pool is exhausted"

# Six DELs at once.
six DEL
expect_clean "after six DELs in parallel"

# ADD of one pod while the previous one is deleted, 20 times.
IL=$(rounds 20)
for n in $(seq "$IL"); do
	cni_bg ADD il$n "/run/netns/${PODS[$((n % 2 + 1))]}" "$T_TMP/il-add"
	pids=($!)
	[ "$n" = 1 ] || { cni_bg DEL il$((n - 1)) "/run/netns/${PODS[$(((n - 1) % 2 + 1))]}" "$T_TMP/il-del"; pids+=($!); }
	wait "${pids[@]}"
	[ "$(cat "$T_TMP/il-add.rc")" = 0 ] || fail "interleaved ADD $n: $(cat "$T_TMP/il-add" "$T_TMP/il-add.err")"
	[ "$n" = 1 ] || [ "$(cat "$T_TMP/il-del.rc")" = 0 ] ||
		fail "interleaved DEL $((n - 1)): $(cat "$T_TMP/il-del" "$T_TMP/il-del.err")"
done
cni DEL "il$IL" "/run/netns/${PODS[$((IL % 2 + 1))]}"
expect_eq "$RC" 0 "the last interleaved DEL"
pass "$IL ADDs interleaved with DELs of other pods"
expect_clean "after interleaved ADD and DEL"

# Dual-stack and IPv6-only.
cni ADD dual "/run/netns/${PODS[1]}" "$T_TMP/dual.conflist"
[ "$RC" = 0 ] || fail "dual-stack ADD: $OUT $(cat "$T_TMP/cni.err")"
DUAL=$OUT
cni ADD v6 "/run/netns/${PODS[2]}" "$T_TMP/v6.conflist"
[ "$RC" = 0 ] || fail "IPv6-only ADD: $OUT $(cat "$T_TMP/cni.err")"
V6RES=$OUT
expect_eq "$(printf '%s' "$DUAL" | jq -c '[.ips[] | [(.address | test("^10\\.21\\..*/16$") or test("^fd20::.*/64$")), .interface]]')" \
	'[[true,1],[true,1]]' "the dual-stack result lists both addresses with their prefix lengths"
expect_eq "$(printf '%s' "$DUAL" | jq -c '[.routes[] | .dst] | sort')" '["0.0.0.0/0","::/0"]' \
	"and the default route of each family IPAM returned"
expect_eq "$(ip -n "${PODS[1]}" -j addr show dev eth0 | jq -c '[.[].addr_info[] | select(.scope == "global") |
	"\(.local)/\(.prefixlen)"] | sort')" "$(printf '%s' "$DUAL" | jq -c '[.ips[].address] | sort')" \
	"the pod has exactly the result's addresses"
expect_eq "$(printf '%s' "$V6RES" | jq -c '[[.ips[] | .address | test("^fd21::.*/64$")], [.routes[].dst]]')" \
	'[[true],["::/0"]]' "the IPv6-only result: one /64 address, one default route"
KRULES=$(k_rules)
for a in $(nk_addr "$DUAL" 0) $(nk_addr "$DUAL" 1) $(nk_addr "$V6RES" 0); do
	expect_eq "$(printf '%s' "$KRULES" | jq --arg a "$a" '[.[] | select(.[0] == $a)] | length')" 1 \
		"$a is steered to a queue (nlprobe)"
done
nk -n "$HOST" -j nic show dev "$SIM"
RULES=$OUT
nk -n "$HOST" -j redirect show dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.redirects[].routes[].prefixes[]] | sort')" \
	"$(jq -cn --arg a "$(nk_addr "$DUAL" 0)/32" --arg b "$(nk_addr "$DUAL" 1)/128" --arg c "$(nk_addr "$V6RES" 0)/128" '[$a, $b, $c] | sort')" \
	"the NIC routes exactly the three addresses, each alone (/32, /128)"
for a in $(nk_addr "$DUAL" 0) $(nk_addr "$DUAL" 1); do
	ping_ok "$REMOTE" "$a" || fail "the remote cannot reach the dual-stack pod at $a"
done
ping_ok "${PODS[1]}" 10.10.2.2 && ping_ok "${PODS[1]}" fd10::2 || fail "the dual-stack pod cannot reach the remote"
pass "the dual-stack pod and the remote reach each other over IPv4 and IPv6"
ping_ok "$REMOTE" "$(nk_addr "$V6RES" 0)" && ping_ok "${PODS[2]}" fd10::2 || fail "the IPv6-only pod"
pass "the IPv6-only pod and the remote reach each other"
cni CHECK dual "/run/netns/${PODS[1]}" "$T_TMP/dual.conflist"
expect_eq "$RC $OUT" "0 " "dual-stack CHECK passes"
cni CHECK v6 "/run/netns/${PODS[2]}" "$T_TMP/v6.conflist"
expect_eq "$RC $OUT" "0 " "IPv6-only CHECK passes"
a6=$(nk_addr "$DUAL" 1)
nk -n "$HOST" steer del dev "$SIM" id "$(printf '%s' "$RULES" | jq --arg a "$a6" '.nics[0].rules[] | select(.dst == $a) | .id')"
cni CHECK dual "/run/netns/${PODS[1]}" "$T_TMP/dual.conflist"
expect_match "$RC $(printf '%s' "$OUT" | jq -r .msg)" "^1 .* does not steer $a6" "CHECK catches the removed IPv6 rule"
ip -n "${PODS[2]}" addr del "$(printf '%s' "$V6RES" | jq -r '.ips[0].address')" dev eth0
cni CHECK v6 "/run/netns/${PODS[2]}" "$T_TMP/v6.conflist"
expect_match "$RC $(printf '%s' "$OUT" | jq -r .msg)" '^1 .*eth0 does not have fd21::' "CHECK catches the removed address"
cni DEL dual "/run/netns/${PODS[1]}" "$T_TMP/dual.conflist"
expect_eq "$RC" 0 "dual-stack DEL"
cni DEL v6 "/run/netns/${PODS[2]}" "$T_TMP/v6.conflist"
expect_eq "$RC" 0 "IPv6-only DEL"
expect_clean "after dual-stack and IPv6-only pods"

# ADD killed with everything it started at a random moment while it runs
# (within 90 % of how long an ADD took here), then DEL.
t0=$EPOCHREALTIME
cni ADD timed "/run/netns/${PODS[3]}" "$T_TMP/dual.conflist"
[ "$RC" = 0 ] || fail "an ADD to time: $OUT $(cat "$T_TMP/cni.err")"
took=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
cni DEL timed "/run/netns/${PODS[3]}" "$T_TMP/dual.conflist"
[ "$RC" = 0 ] || fail "its DEL: $OUT $(cat "$T_TMP/cni.err")"
echo "# an ADD takes $took s here"
killed=0
KR=$(rounds 10)
for r in $(seq "$KR"); do
	delay=$(awk -v s="$RANDOM" -v t="$took" 'BEGIN { srand(s); printf "%.2f", 0.05 + rand() * (t * 0.9 - 0.05) }')
	cni_add_killable "kill$r" "/run/netns/${PODS[3]}" "$T_TMP/dual.conflist" "$T_TMP/kill.out"
	pid=$!
	sleep "$delay"
	kill -0 "$pid" 2> /dev/null && killed=$((killed + 1))
	kill_add "$pid"
	cni DEL kill$r "/run/netns/${PODS[3]}" "$T_TMP/dual.conflist"
	echo "# round $r: killed after $delay s, DEL status $RC"
	[ "$RC" = 0 ] || fail "DEL after ADD killed after $delay s: $OUT $(cat "$T_TMP/cni.err")"
	expect_eq "$(ip -n "${PODS[3]}" -o link show | grep -vc ': lo:')" 0 "round $r: nothing left in the pod"
done
echo "# $killed of $KR ADDs were still running when killed"
[ "$killed" -ge $(((KR + 1) / 2)) ] || fail "only $killed of $KR ADDs were still running when killed: the rounds tested DEL after a finished ADD"
pass "$killed of $KR ADDs killed while running"
expect_clean "after $KR killed ADDs and their DELs"
done_testing
