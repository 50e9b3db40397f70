#!/bin/bash
# Self-test for testsuite/helpers/nlprobe.py.
#
#   bash testsuite/helpers/test_nlprobe.sh          # on the host
#   bash testsuite/helpers/test_nlprobe.sh --vm     # inside the 7.3 VM: netkit required
#
# Compares nlprobe.py with iproute2 / sysfs in a throw-away network namespace.
# Netkit checks run with --vm, or automatically if the running kernel can create
# netkit devices; otherwise netkit-add must fail cleanly. netdevsim lease checks
# run when the netdevsim module can be loaded.
# Prints PASS/FAIL lines; exit 0 if all pass, 1 on any failure, 4 (SKIP) if the
# environment is unsuitable.

set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=/usr/bin/python3
NLP_SCRIPT=$HERE/nlprobe.py
VM=0
for a in "$@"; do
	case $a in
	--vm) VM=1 ;;
	-h|--help) sed -n '2,12p' "$0"; exit 0 ;;
	*) echo "unknown argument: $a" >&2; exit 2 ;;
	esac
done

[ "$(id -u)" = 0 ] || { echo "SKIP: not root"; exit 4; }
command -v jq >/dev/null 2>&1 || { echo "SKIP: jq not installed"; exit 4; }
command -v ip >/dev/null 2>&1 || { echo "SKIP: ip (iproute2) not installed"; exit 4; }
[ -x "$PY" ] || { echo "SKIP: $PY missing"; exit 4; }

NS=nlp-$RANDOM$RANDOM
NS2=nlp2-$RANDOM$RANDOM
TMP=$(mktemp -d /tmp/nlprobe-test.XXXXXX)
NSIM_ID=

cleanup() {
	if [ -n "$NSIM_ID" ] && [ -e "/sys/bus/netdevsim/devices/netdevsim$NSIM_ID" ]; then
		echo "$NSIM_ID" > /sys/bus/netdevsim/del_device 2>/dev/null
	fi
	ip netns del "$NS" 2>/dev/null
	ip netns del "$NS2" 2>/dev/null
	[ -n "${NSB:-}" ] && ip netns del "$NSB" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

NPASS=0
NFAIL=0
pass() { echo "PASS: $*"; NPASS=$((NPASS + 1)); }
fail() { echo "FAIL: $*"; NFAIL=$((NFAIL + 1)); }

# nlp ARGS...: runs nlprobe; sets OUT, ERR, RC.
nlp() {
	OUT=$("$PY" "$NLP_SCRIPT" "$@" 2>"$TMP/err")
	RC=$?
	ERR=$(cat "$TMP/err")
}

# ok DESC ARGS...: nlprobe must succeed with valid JSON.
ok() {
	local d=$1; shift
	nlp "$@"
	if [ "$RC" = 0 ] && printf '%s' "$OUT" | jq -e . >/dev/null 2>&1; then
		return 0
	fi
	fail "$d (rc=$RC out=${OUT:0:200} err=$ERR)"
	return 1
}

# jcheck DESC JSON [jq options...] FILTER: FILTER must evaluate to true.
jcheck() {
	local d=$1 j=$2; shift 2
	if printf '%s' "$j" | jq -e "$@" >/dev/null 2>&1; then
		pass "$d"
	else
		fail "$d: jq '${*: -1}' on ${j:0:400}"
	fi
}

# errcheck DESC REGEX ARGS...: nlprobe must exit 1, print nothing on stdout,
# and print something matching REGEX (ERE) on stderr.
errcheck() {
	local d=$1 re=$2; shift 2
	nlp "$@"
	if [ "$RC" = 1 ] && [ -z "$OUT" ] && printf '%s' "$ERR" | grep -Eq -- "$re"; then
		pass "$d ($ERR)"
	else
		fail "$d: rc=$RC out=${OUT:0:200} err=$ERR (wanted /$re/)"
	fi
}

ipjq() { # NETNS: ip -d -j link show, normalised to nlprobe's key names
	ip -n "$1" -d -j link show | jq -S '[.[] | {ifindex, ifname, mtu,
		rx: .num_rx_queues, tx: .num_tx_queues,
		kind: (.linkinfo.info_kind // null),
		address: (if .link_type == "ether" then .address else null end)}] | sort_by(.ifindex)'
}
nlpjq() { # JSON from nlprobe links, same normalisation
	printf '%s' "$1" | jq -S '[.[] | {ifindex, ifname, mtu,
		rx: .["num-rx-queues"], tx: .["num-tx-queues"], kind,
		address: (if .kind == null and .ifname == "lo" then null else .address end)}]
		| sort_by(.ifindex)'
}

# compare_links DESC NETNS: nlprobe links vs ip -j -d link show.
compare_links() {
	local d=$1 ns=$2 a b
	ok "$d: links" -n "$ns" links || return
	a=$(nlpjq "$OUT")
	b=$(ipjq "$ns")
	if [ "$a" = "$b" ]; then
		pass "$d: links agree with ip -j -d link show ($(printf '%s' "$a" | jq -c 'if length > 8 then "\(length) links" else [.[].ifname] end'))"
	else
		fail "$d: links differ from ip:"; diff <(echo "$a") <(echo "$b") | head -20
	fi
}

# sysfs_queues NETNS [IFNAME]: "ifindex type id" lines for devices that are up.
sysfs_queues() {
	ip netns exec "$1" sh -c '
		for d in /sys/class/net/*; do
			n=${d##*/}
			[ -n "$1" ] && [ "$n" != "$1" ] && continue
			fl=$(cat "$d/flags"); [ $((fl & 1)) = 1 ] || continue
			i=$(cat "$d/ifindex")
			for q in "$d"/queues/rx-* "$d"/queues/tx-*; do
				[ -e "$q" ] || continue
				q=${q##*/}
				echo "$i ${q%%-*} ${q#*-}"
			done
		done' sh "${2:-}" | sort
}
nlp_queues_lines() {
	printf '%s' "$1" | jq -r '.[] | "\(.ifindex) \(.type) \(.id)"' | sort
}

ifindex_of() { # NETNS IFNAME
	"$PY" "$NLP_SCRIPT" -n "$1" link "$2" 2>/dev/null | jq -r .ifindex
}

# ------------------------------------------------------------------ generic tests
ip netns add "$NS" || { echo "FAIL: ip netns add $NS"; exit 1; }
ip netns add "$NS2" || { echo "FAIL: ip netns add $NS2"; exit 1; }

# The generic part (veth, families, errors, a multi-part dump) is the same
# reader on any kernel: the host tier runs it; with --vm (where every process
# costs ten times as much under TCG) only what needs 7.3 runs.
generic_tests() {
	if ! ip -n "$NS" link add va numtxqueues 2 numrxqueues 3 type veth \
		peer name vb numtxqueues 1 numrxqueues 1; then
		fail "ip link add veth pair"
		echo "== $NPASS passed, $NFAIL failed"
		exit 1
	fi
	ip -n "$NS" link set vb mtu 1400

	compare_links "veth (down)" "$NS"

	VA=$(ifindex_of "$NS" va)
	VB=$(ifindex_of "$NS" vb)
	if ok "link va" -n "$NS" link va; then
		jcheck "link va: kind veth, 3 rx / 2 tx queues, mtu 1500, link = vb ($VB), operstate down, !IFF_UP" "$OUT" \
			--argjson vb "$VB" '.kind == "veth" and .["num-rx-queues"] == 3 and .["num-tx-queues"] == 2
			and .mtu == 1500 and .link == $vb and .operstate == 2 and (.flags % 2) == 0
			and (.address | test("^([0-9a-f]{2}:){5}[0-9a-f]{2}$")) and (has("link-netnsid") | not)
			and (has("netkit") | not)'
		ipaddr=$(ip -n "$NS" -j link show va | jq -r '.[0].address')
		jcheck "link va: address matches ip ($ipaddr)" "$OUT" --arg a "$ipaddr" '.address == $a'
	fi
	if ok "link vb" -n "$NS" link vb; then
		jcheck "link vb: kind veth, mtu 1400, 1/1 queues, link = va ($VA)" "$OUT" \
			--argjson va "$VA" '.kind == "veth" and .mtu == 1400 and .["num-rx-queues"] == 1
			and .["num-tx-queues"] == 1 and .link == $va'
	fi
	nlp -n "/run/netns/$NS" link va
	jcheck "-n with a path (/run/netns/$NS) gives ifindex $VA" "$OUT" --argjson va "$VA" '.ifindex == $va'
	errcheck "link of a missing name" "no such link" -n "$NS" link nosuchdev
	errcheck "-n of a missing netns" "netns" -n "nlp-missing-$RANDOM$RANDOM" links
	errcheck "unknown command" "unknown command" links-foo

	# queues after up
	ip -n "$NS" link set va up
	ip -n "$NS" link set vb up
	# operstate follows IFF_UP asynchronously (linkwatch, up to a second later)
	for _ in $(seq 50); do
		[ "$(ip netns exec "$NS" cat /sys/class/net/va/operstate)" = up ] && break
		sleep 0.1
	done
	if ok "queues (dump)" -n "$NS" queues; then
		a=$(nlp_queues_lines "$OUT")
		b=$(sysfs_queues "$NS")
		if [ -n "$b" ] && [ "$a" = "$b" ]; then
			pass "queues dump matches /sys/class/net/*/queues of up devices ($(echo "$b" | wc -l) queues)"
		else
			fail "queues dump differs from sysfs: nlprobe=[$(echo $a)] sysfs=[$(echo $b)]"
		fi
		jcheck "queues: keys and types well-formed, no lease on veth" "$OUT" \
			'length > 0 and all(.[]; (.id|type) == "number" and (.ifindex|type) == "number"
			and (.type == "rx" or .type == "tx") and (has("lease") | not))'
	fi
	if ok "queues IFINDEX" -n "$NS" queues "$VA"; then
		a=$(nlp_queues_lines "$OUT")
		b=$(sysfs_queues "$NS" va)
		if [ "$a" = "$b" ] && [ "$(echo "$b" | wc -l)" = 5 ]; then
			pass "queues $VA (va) = 3 rx + 2 tx, matches sysfs"
		else
			fail "queues $VA: nlprobe=[$(echo $a)] sysfs=[$(echo $b)]"
		fi
	fi
	errcheck "queues of a missing ifindex" "ENODEV" -n "$NS" queues 99999
	compare_links "veth (up)" "$NS"
	if ok "link va (up)" -n "$NS" link va; then
		jcheck "link va up: IFF_UP set, operstate up (6)" "$OUT" '(.flags % 2) == 1 and .operstate == 6'
	fi
	if ok "napis" -n "$NS" napis; then
		jcheck "napis: JSON array of objects with id/ifindex" "$OUT" \
			'type == "array" and all(.[]; has("id") and has("ifindex"))'
	fi

	# family
	if ok "family netdev" family netdev; then
		jcheck "family netdev: op 10 (queue-get) with do+dump, op 11, group mgmt" "$OUT" \
			'(.ops["10"] != null) and ((.ops["10"] / 4 | floor) % 2 == 1) and (.ops["11"] != null)
			and (.["mcast-groups"] | has("mgmt")) and .version >= 1 and (.id|type) == "number"'
		FAM=$OUT
	fi
	if ok "family nlctrl" family nlctrl; then
		jcheck "family nlctrl: id 16, op 3 (getfamily)" "$OUT" '.id == 16 and .ops["3"] != null'
	fi
	errcheck "family of a missing name" "no such family" family nosuchfamily
	HAVE_QC=0
	printf '%s' "${FAM:-{\}}" | jq -e '.ops["16"] != null' >/dev/null 2>&1 && HAVE_QC=1

	if [ "$HAVE_QC" = 1 ]; then
		errcheck "queue-create on veth: EINVAL 'Device does not support queue creation'" \
			"EINVAL.*Device does not support queue creation" -n "$NS" queue-create "$VA" "$VB" 0
	else
		errcheck "queue-create without kernel op 16 fails cleanly" "netlink error" \
			-n "$NS" queue-create "$VA" "$VB" 0
	fi

	# del (deleting one veth end deletes both)
	if ok "del vb" -n "$NS" del vb; then
		jcheck "del vb: prints ok" "$OUT" '.ok == true'
		nlp -n "$NS" links
		jcheck "del vb: va and vb are gone" "$OUT" 'all(.[]; .ifname != "va" and .ifname != "vb")'
	fi
	errcheck "del of a missing name" "ENODEV" -n "$NS" del vb

	# veth peer in another netns: link-netnsid both ways
	if ip -n "$NS" link add vx type veth peer name vy netns "$NS2"; then
		VY=$(ifindex_of "$NS2" vy)
		nlp -n "$NS" link vx
		jcheck "veth across netns: vx link = vy ($VY), link-netnsid present" "$OUT" \
			--argjson y "${VY:-0}" '.link == $y and (.["link-netnsid"]|type) == "number"'
		ipnsid=$(ip -n "$NS" -j link show vx | jq '.[0].link_netnsid')
		jcheck "veth across netns: link-netnsid matches ip ($ipnsid)" "$OUT" \
			--argjson n "$ipnsid" '.["link-netnsid"] == $n'
		nlp -n "$NS" del vx
	else
		fail "ip link add vx ... peer netns $NS2"
	fi

	# a dump spanning many netlink messages / recv() calls, in a namespace of its
	# own: deleting the namespace unregisters all 200 devices in one batch (one
	# RCU grace period), where 100 single deletions take minutes under TCG.
	# Host only: reassembling a multi-part dump is nlprobe's own code, the same on
	# any kernel, and in the VM this part alone took a minute of a loaded run.
	multipart_dump_tests() {
		NSB=nlpb-$RANDOM$RANDOM
		ip netns add "$NSB" || fail "ip netns add $NSB"
		for i in $(seq 0 99); do echo "link add bv$i type veth peer name bw$i"; done > "$TMP/batch"
		if ip -n "$NSB" -batch "$TMP/batch"; then
			compare_links "200 veths (multi-part dump)" "$NSB"
			for i in $(seq 0 99); do echo "link set bv$i up"; echo "link set bw$i up"; done > "$TMP/batch"
			ip -n "$NSB" -batch "$TMP/batch"
			if ok "queues (200 devices)" -n "$NSB" queues; then
				a=$(nlp_queues_lines "$OUT"); b=$(sysfs_queues "$NSB")
				[ "$a" = "$b" ] && pass "queues dump over 200 devices matches sysfs ($(echo "$b" | wc -l) queues)" \
					|| fail "queues dump over 200 devices differs from sysfs"
			fi
		else
			fail "ip -batch veth creation"
		fi
		ip netns del "$NSB"
	}
	multipart_dump_tests

}
if [ "$VM" = 1 ]; then
	echo "NOTE: the generic checks (veth, families, errors, multi-part dump) run in the host tier"
	nlp family netdev
	HAVE_QC=0
	printf '%s' "$OUT" | jq -e '.ops["16"] != null' >/dev/null 2>&1 && HAVE_QC=1
else
	generic_tests
fi

# ------------------------------------------------------------------ netkit
NETKIT=$VM
nlp -n "$NS" netkit-add nkprobe
if [ "$RC" = 0 ]; then
	NETKIT=1
	pass "netkit-add works on this kernel ($(uname -r)); running netkit checks"
	nlp -n "$NS" del nkprobe
elif [ "$VM" = 1 ]; then
	fail "netkit-add in the VM: rc=$RC err=$ERR"
else
	if [ "$RC" = 1 ] && [ -z "$OUT" ] && printf '%s' "$ERR" | grep -Eq 'Unknown device type|EOPNOTSUPP'; then
		pass "netkit-add without kernel netkit fails cleanly, exit 1 ($ERR)"
	else
		fail "netkit-add without netkit: rc=$RC out=$OUT err=$ERR"
	fi
fi
errcheck "netkit-add: bad mode value rejected before sending" "bad mode" -n "$NS" netkit-add nkbad mode l4
errcheck "netkit-add: unknown keyword rejected" "unknown keyword" -n "$NS" netkit-add nkbad colour blue

netkit_tests() {
	local P C S H G N a b

	# -- pair with every option
	if ok "netkit-add pair" -n "$NS" netkit-add nka peer nkb rxqueues 4 mode l2 \
		policy blackhole peer-policy forward scrub none headroom 32; then
		jcheck "netkit-add pair: prints ok" "$OUT" '.ok == true'
	fi
	compare_links "netkit pair" "$NS"
	P=$(ifindex_of "$NS" nka); C=$(ifindex_of "$NS" nkb)
	if ok "link nka" -n "$NS" link nka; then
		echo "  nka: $OUT"
		jcheck "nka: primary, l2, policy blackhole, peer-policy forward, scrub none, peer-scrub default, headroom 32, pair, 4 rx queues, link = nkb" \
			"$OUT" --argjson c "$C" '.kind == "netkit" and .netkit.primary == true
			and .netkit.mode == "l2" and .netkit.policy == "blackhole"
			and .netkit["peer-policy"] == "forward" and .netkit.scrub == "none"
			and .netkit["peer-scrub"] == "default" and .netkit.headroom == 32
			and (.netkit.tailroom|type) == "number" and .netkit.pairing == "pair"
			and .["num-rx-queues"] == 4 and .["num-tx-queues"] == 1 and .link == $c
			and (has("link-netnsid") | not) and (.address|type) == "string"'
	fi
	if ok "link nkb" -n "$NS" link nkb; then
		echo "  nkb: $OUT"
		jcheck "nkb: peer, l2, policy forward, peer-policy blackhole, scrub default, peer-scrub none, headroom 32, 4 rx queues (from PEER_INFO), link = nka" \
			"$OUT" --argjson p "$P" '.kind == "netkit" and .netkit.primary == false
			and .netkit.mode == "l2" and .netkit.policy == "forward"
			and .netkit["peer-policy"] == "blackhole" and .netkit.scrub == "default"
			and .netkit["peer-scrub"] == "none" and .netkit.headroom == 32
			and .netkit.pairing == "pair" and .["num-rx-queues"] == 4 and .link == $p'
	fi
	[ -n "$C" ] && [ -n "$P" ] && [ "$C" -lt "$P" ] && pass "peer registered first (nkb $C < nka $P)" \
		|| fail "peer ifindex $C not below primary $P"
	errcheck "netkit-add of an existing name: EEXIST" "EEXIST" -n "$NS" netkit-add nka
	ok "del nka" -n "$NS" del nka
	nlp -n "$NS" links
	jcheck "del of the primary removes both" "$OUT" 'all(.[]; .ifname != "nka" and .ifname != "nkb")'

	# -- default pair (L3 default, names chosen by us)
	if ok "netkit-add default pair" -n "$NS" netkit-add nkd peer nke; then
		nlp -n "$NS" link nkd
		jcheck "default pair: l3, policy forward, scrub default, 1 rx queue" "$OUT" \
			'.netkit.mode == "l3" and .netkit.policy == "forward" and .netkit.scrub == "default"
			and .netkit.pairing == "pair" and .["num-rx-queues"] == 1'
		nlp -n "$NS" del nkd
	fi

	# -- single
	if ok "netkit-add single" -n "$NS" netkit-add nks single rxqueues 4; then
		if ok "link nks" -n "$NS" link nks; then
			echo "  nks: $OUT"
			jcheck "nks: single, primary, 4 rx queues, no scrub/peer attrs, no peer link" "$OUT" \
				'.kind == "netkit" and .netkit.pairing == "single" and .netkit.primary == true
				and .["num-rx-queues"] == 4 and (.netkit | has("scrub") | not)
				and (.netkit | has("peer-policy") | not) and (.netkit | has("peer-scrub") | not)
				and ((.link // 0) == 0)'
		fi
		compare_links "netkit single" "$NS"
		nlp -n "$NS" del nks
	fi
	errcheck "netkit-add single with peer-policy: EOPNOTSUPP" "EOPNOTSUPP" \
		-n "$NS" netkit-add nks2 single peer-policy forward

	# -- peer in another netns
	if ok "netkit-add peer-netns" -n "$NS" netkit-add nkp peer nkq peer-netns "$NS2" rxqueues 2 mode l2; then
		H=$(ifindex_of "$NS" nkp); G=$(ifindex_of "$NS2" nkq)
		nlp -n "$NS" link nkp
		echo "  nkp ($NS): $OUT"
		jcheck "nkp: primary, link = nkq's ifindex in $NS2 ($G), link-netnsid set, 2 rx queues" "$OUT" \
			--argjson g "${G:-0}" '.netkit.primary == true and .link == $g
			and (.["link-netnsid"]|type) == "number" and .["num-rx-queues"] == 2'
		nlp -n "$NS2" link nkq
		echo "  nkq ($NS2): $OUT"
		jcheck "nkq in $NS2: peer, link = nkp ($H), link-netnsid set, 2 rx queues" "$OUT" \
			--argjson h "${H:-0}" '.netkit.primary == false and .link == $h
			and (.["link-netnsid"]|type) == "number" and .["num-rx-queues"] == 2'
		nlp -n "$NS" links
		jcheck "nkq is not in $NS" "$OUT" 'all(.[]; .ifname != "nkq")'
		compare_links "netkit peer-netns ($NS2)" "$NS2"
		nlp -n "$NS" del nkp
		nlp -n "$NS2" links
		jcheck "deleting nkp removes nkq in the other netns" "$OUT" 'all(.[]; .ifname != "nkq")'
	fi

	# -- netdevsim lease
	# The VM tier builds netdevsim for its kernel: there its absence is a
	# failure, not a skip. Elsewhere (a host kernel that can make netkit
	# devices) the VM tier runs these checks.
	if ! modprobe netdevsim 2>/dev/null || [ ! -e /sys/bus/netdevsim/new_device ]; then
		if [ "$VM" = 1 ]; then
			fail "netdevsim not available in the VM: the lease checks cannot run"
		else
			echo "NOTE: no netdevsim on this kernel; the VM tier runs the lease checks"
		fi
		return
	fi
	if [ "$HAVE_QC" != 1 ]; then
		fail "netdevsim present but netdev family has no op 16 (queue-create)"
		return
	fi
	NSIM_ID=$((1000 + RANDOM % 9000))
	while [ -e "/sys/bus/netdevsim/devices/netdevsim$NSIM_ID" ]; do NSIM_ID=$((NSIM_ID + 1)); done
	# the netdevsim ports are created in the writer's netns
	if ! ip netns exec "$NS" sh -c "echo '$NSIM_ID 1 4' > /sys/bus/netdevsim/new_device"; then
		fail "netdevsim new_device"; NSIM_ID=; return
	fi
	N=
	for _ in $(seq 50); do
		N=$(ip -n "$NS" -d -j link show | jq -r --arg d "netdevsim$NSIM_ID" \
			'.[] | select(.parentdev == $d) | .ifname' | head -1)
		[ -n "$N" ] && break
		sleep 0.1
	done
	[ -n "$N" ] || { fail "netdevsim$NSIM_ID netdev not found in $NS"; return; }
	ip -n "$NS" link set "$N" up
	NI=$(ifindex_of "$NS" "$N")
	pass "netdevsim$NSIM_ID: $N ifindex $NI in $NS"
	nlp -n "$NS" queues "$NI"
	jcheck "$N: 4 rx queues, no lease" "$OUT" \
		'([.[] | select(.type == "rx")] | length) == 4 and all(.[]; has("lease") | not)'

	ok "netkit-add for lease" -n "$NS" netkit-add nkh peer nkc rxqueues 4 mode l2 || return
	H=$(ifindex_of "$NS" nkh); C=$(ifindex_of "$NS" nkc)
	if ok "queue-create nkc <- $N queue 3" -n "$NS" queue-create "$C" "$NI" 3; then
		echo "  queue-create: $OUT"
		jcheck "queue-create returns id 1" "$OUT" '.id == 1'
	fi
	nlp -n "$NS" queues "$NI"
	echo "  queues $N: $OUT"
	jcheck "$N queue 3 shows lease {ifindex nkc ($C), queue {id 1, type rx}}, no netns-id" "$OUT" \
		--argjson c "$C" '[.[] | select(.type == "rx" and .id == 3)][0].lease
		| . == {"ifindex": $c, "queue": {"id": 1, "type": "rx"}}'
	jcheck "$N: only queue 3 is leased" "$OUT" '[.[] | select(has("lease"))] | length == 1'
	errcheck "same queue again: EBUSY 'in use due to queue leasing'" "EBUSY.*queue leasing" \
		-n "$NS" queue-create "$C" "$NI" 3
	errcheck "lease into the primary: EOPNOTSUPP 'only lease against the peer'" \
		"EOPNOTSUPP.*against the peer" -n "$NS" queue-create "$H" "$NI" 2
	errcheck "queue out of range: ERANGE" "ERANGE" -n "$NS" queue-create "$C" "$NI" 7
	errcheck "queue-create from a missing device: ENODEV" "ENODEV" -n "$NS" queue-create "$C" 99999 1

	# move the peer to NS2: the lease stays and gains netns-id
	# (timeout: once, under parallel load in the VM, this move hung for minutes)
	if timeout 60 ip -n "$NS" link set nkc netns "$NS2"; then
		G=$(ifindex_of "$NS2" nkc)
		nlp -n "$NS" queues "$NI"
		echo "  queues $N after move: $OUT"
		jcheck "after moving nkc to $NS2: lease ifindex = $G, queue 1, netns-id present" "$OUT" \
			--argjson g "${G:-0}" '[.[] | select(has("lease"))][0].lease
			| .ifindex == $g and .queue == {"id": 1, "type": "rx"} and (.["netns-id"]|type) == "number"'
		ip -n "$NS2" link set nkc up
		if ok "queues on nkc" -n "$NS2" queues "$G"; then
			jcheck "queues on nkc: rx 0 and 1, never a lease nest" "$OUT" \
				'([.[] | select(.type == "rx") | .id] | sort) == [0, 1] and all(.[]; has("lease") | not)'
		fi
	else
		fail "ip link set nkc netns $NS2 failed or hung (over 60 s)"
	fi
	nlp -n "$NS" del nkh
	nlp -n "$NS" queues "$NI"
	jcheck "deleting the netkit pair releases the lease" "$OUT" 'all(.[]; has("lease") | not)'
	echo "$NSIM_ID" > /sys/bus/netdevsim/del_device && NSIM_ID=
}

if [ "$NETKIT" = 1 ]; then
	netkit_tests
fi

echo "== $NPASS passed, $NFAIL failed (kernel $(uname -r)${VM:+, vm=$VM})"
# A run that checked nothing passed nothing.
[ "$NPASS" -gt 0 ] || { echo "FAIL: no check ran"; exit 1; }
[ "$NFAIL" = 0 ]
