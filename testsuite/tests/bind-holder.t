#!/bin/bash
# tier: vm
# alone: yes (it makes the shared /run/nkctl/bindings unsafe for a moment)
# The holder model around a binding: daemon, foreground and "-- CMD" holders,
# their state under /run/nkctl/bindings, show bindings, unbind, a holder
# killed with SIGKILL (stale, never shown alive) and a device that goes away.
# No NIC here can DMA, so the kernel's bind-rx/bind-tx cannot succeed: this
# test runs helpers/nkctl-fakebind, nkctl with only that one request answered
# by a made-up id (helpers/fakebind.c). The dmabuf, the preflight, the holder
# process, its files, locks and signals are all real. bind.t tests the real
# requests and the kernel's refusals.
. "$TESTSUITE/lib.sh"
need_root
need_cmd jq
[ -e /dev/udmabuf ] || skip "no /dev/udmabuf"
FAKE=${NKCTL_HELPERS:-$(dirname "$NKCTL")/helpers}/nkctl-fakebind
[ -x "$FAKE" ] || fail "missing $FAKE (make builds it)"
nkf() { NKCTL=$FAKE nk "$@"; }
STATE=/run/nkctl/bindings

ns_new HOST
sim_new SIM "$HOST" 4
sim_idx=$(ifindex_of "$HOST" "$SIM")

alive() { kill -0 "$1" 2>/dev/null; }
wait_gone() { # wait_gone PID: up to 10 s
	for _ in $(seq 100); do alive "$1" || return 0; sleep 0.1; done
	return 1
}

# --- the default: a detached holder
nkf -n "$HOST" -j bind-rx dev "$SIM" queue 0,1 dmabuf udmabuf size 4M
expect_eq "$RC" 0 "bind-rx returns once the binding is held"
b=$(printf '%s' "$OUT" | jq -c '.bindings[0]')
id=$(printf '%s' "$b" | jq .id)
pid=$(printf '%s' "$b" | jq .holder.pid)
expect_eq "$(printf '%s' "$b" | jq -c '[.direction, .ifname, .ifindex, [.queues[].id], .dmabuf.source, .dmabuf.size, .holder.mode, .holder.alive]')" \
	"[\"rx\",\"$SIM\",$sim_idx,[0,1],\"udmabuf\",4194304,\"daemon\",true]" "prints the binding, its dmabuf and holder"
alive "$pid" || fail "holder $pid is not running"
pass "the holder runs"
expect_eq "$(stat -c %a /run/nkctl) $(stat -c %a $STATE) $(stat -c %a $STATE/$id)" "700 700 600" "state is private"
expect_match "$(ls -l /proc/$pid/fd/ | grep -c dmabuf)" '^1$' "the holder keeps the dmabuf"
dfd=$(ls -l /proc/$pid/fd/ | awk '/dmabuf/ {print $9}')
expect_eq "$(awk '/^(size|exp_name):/ {printf "%s ", $2}' /proc/$pid/fdinfo/$dfd)" "4194304 udmabuf " "the kernel's dmabuf: a 4M udmabuf (made from a sealed memfd)"
expect_match "$(readlink /proc/$pid/fd/0) $(readlink /proc/$pid/fd/1)" '^/dev/null /dev/null$' "detached from the caller's terminal"
expect_eq "$(ps -o sid= -p "$pid" | tr -d ' ')" "$pid" "in its own session"

expect_rc 0 "show bindings" -n "$HOST" -j show bindings
expect_eq "$(printf '%s' "$OUT" | jq -c '[.bindings[] | [.id, .holder.pid, .holder.alive]]')" "[[$id,$pid,true]]" "lists the live binding"
expect_rc 0 "show bindings dev" -n "$HOST" -j show bindings dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq '.bindings | length')" 1 "filtered by device"
expect_rc 0 "show bindings id (no match)" -n "$HOST" -j show bindings id 1
expect_eq "$OUT" '{"bindings":[]}' "same shape when nothing matches"
expect_rc 0 "text show bindings" -n "$HOST" show bindings
expect_match "$OUT" "^binding $id rx dev $SIM \\(netns $HOST\\) queues 0,1 dmabuf udmabuf 4M holder pid $pid \(daemon\)\$" "one line per binding"
ns_new OTHER
expect_rc 0 "another namespace" -n "$OTHER" -j show bindings
expect_eq "$OUT" '{"bindings":[]}' "bindings belong to their namespace"

expect_rc 0 "unbind id" -n "$HOST" -j unbind id "$id"
expect_eq "$(printf '%s' "$OUT" | jq -c '[.unbound[] | [.id, .holder.alive]]')" "[[$id,false]]" "reports what it ended"
wait_gone "$pid" || fail "holder $pid still runs after unbind"
pass "the holder is gone"
expect_eq "$(state_files $STATE)" "" "its state is gone"
expect_error 3 "unbind it again" -n "$HOST" unbind id "$id"

# --- SIGKILL: the lock dies with the holder, so the state is stale, never alive
nkf -n "$HOST" -j bind-tx dev "$SIM" dmabuf heap system size 4M
expect_eq "$RC" 0 "bind-tx with a dma-heap dmabuf"
id=$(printf '%s' "$OUT" | jq .bindings[0].id)
pid=$(printf '%s' "$OUT" | jq .bindings[0].holder.pid)
expect_eq "$(printf '%s' "$OUT" | jq -c '.bindings[0] | [.direction, has("queues"), .dmabuf.source, .dmabuf.heap]')" \
	'["tx",false,"heap","system"]' "a TX binding has no queues"
dfd=$(ls -l /proc/$pid/fd/ | awk '/dmabuf/ {print $9}')
expect_eq "$(awk '/^(size|exp_name):/ {printf "%s ", $2}' /proc/$pid/fdinfo/$dfd)" "4194304 system " "the kernel's dmabuf: 4M from the system heap"
kill -KILL "$pid"
wait_gone "$pid" || fail "SIGKILL did not end $pid"
expect_rc 0 "show after SIGKILL" -n "$HOST" -j show bindings
expect_eq "$(printf '%s' "$OUT" | jq -c "[.bindings[] | select(.id==$id) | .holder.alive]")" "[false]" "a dead holder is shown stale"
expect_rc 0 "text show after SIGKILL" -n "$HOST" show bindings
expect_match "$OUT" "STALE: the holder is gone" "and says so in text"
expect_error 3 "unbind a stale binding" -n "$HOST" unbind id "$id"
expect_match "$ERR" "no longer held: its holder \(pid $pid\) died; removed its stale state" "explains and cleans up"
expect_eq "$(state_files $STATE)" "" "the stale state is removed"

# --- foreground: until SIGTERM
"$FAKE" -n "$HOST" -j bind-rx dev "$SIM" queue 2 dmabuf udmabuf size 2M foreground > "$T_TMP/fg.out" 2> "$T_TMP/fg.err" &
fg=$!
defer "kill $fg 2>/dev/null"
for _ in $(seq 100); do [ -s "$T_TMP/fg.out" ] && break; sleep 0.1; done
expect_eq "$(jq -c '.bindings[0] | [.holder.pid, .holder.mode]' "$T_TMP/fg.out")" "[$fg,\"foreground\"]" "foreground prints, then holds"
alive "$fg" || fail "foreground holder exited"
kill -TERM "$fg"
wait "$fg"
expect_eq "$?" 0 "SIGTERM ends it with status 0"
expect_eq "$(state_files $STATE)" "" "foreground cleans its state"

# --- -- CMD: the command gets the dmabuf and the variables
cat > "$T_TMP/child.sh" <<'CHILD'
#!/bin/bash
exec > "$CHILD_OUT"
fd=$NKCTL_DMABUF_FD
[ -n "$fd" ] || { echo "no NKCTL_DMABUF_FD"; exit 90; }
readlink "/proc/self/fd/$fd" | grep -q dmabuf || { echo "fd $fd is no dmabuf: $(readlink /proc/self/fd/$fd)"; exit 91; }
[ "$NKCTL_DMABUF_SIZE" = 8388608 ] || { echo "size $NKCTL_DMABUF_SIZE"; exit 92; }
[ -e "/run/nkctl/bindings/$NKCTL_BINDING_ID" ] || { echo "no state for $NKCTL_BINDING_ID"; exit 93; }
[ "$NKCTL_BINDING_DIRECTION $NKCTL_QUEUES $NKCTL_IFNAME $NKCTL_IFINDEX" = "rx 1,3 $EXPECT_DEV $EXPECT_IDX" ] ||
	{ echo "vars: $NKCTL_BINDING_DIRECTION $NKCTL_QUEUES $NKCTL_IFNAME $NKCTL_IFINDEX"; exit 94; }
# The binding's netlink socket and the state file stay with nkctl.
for f in /proc/$$/fd/*; do
	l=$(readlink "$f")
	case $l in
	socket:*) ino=${l#socket:[}; ino=${ino%]}
		awk '{print $NF}' /proc/net/netlink | grep -qx "$ino" && { echo "inherited a netlink socket: $f"; exit 95; } ;;
	/run/nkctl/*) echo "inherited the state file: $f"; exit 96 ;;
	esac
done
echo "child ok"
exit 7
CHILD
chmod +x "$T_TMP/child.sh"
CHILD_OUT=$T_TMP/child.out EXPECT_DEV=$SIM EXPECT_IDX=$sim_idx nkf -n "$HOST" -j bind-rx dev "$SIM" queue 1,3 dmabuf udmabuf size 8M -- "$T_TMP/child.sh"
expect_eq "$RC" 7 "nkctl exits with the command's status ($(cat "$T_TMP/child.out"))"
expect_eq "$(cat "$T_TMP/child.out")" 'child ok' "the command checked the fd and the variables"
expect_eq "$(printf '%s' "$OUT" | jq -r '.bindings[0].holder.mode')" command "the binding is printed before the command runs"
expect_eq "$(state_files $STATE)" "" "the state goes with the command"
nkf -n "$HOST" bind-rx dev "$SIM" queue 1 dmabuf udmabuf size 4M -- /nonexistent/cmd
expect_eq "$RC" 127 "a command that cannot run: 127"
expect_match "$ERR" '^Error: cannot run "/nonexistent/cmd": No such file or directory$' "one Error: line"
expect_eq "$(state_files $STATE)" "" "nothing left behind"
nkf -n "$HOST" bind-rx dev "$SIM" queue 1 dmabuf udmabuf size 4M -- sh -c 'kill -TERM $$'
expect_eq "$RC" 143 "a command killed by a signal: 128+N"

# --- the device goes away: the holder ends and cleans up
sim_new SIM2 "$HOST" 2
nkf -n "$HOST" -j bind-rx dev "$SIM2" queue 0 dmabuf udmabuf size 4M
expect_eq "$RC" 0 "bind on a second NIC"
pid=$(printf '%s' "$OUT" | jq .bindings[0].holder.pid)
"$FAKE" -n "$HOST" bind-rx dev "$SIM2" queue 1 dmabuf udmabuf size 4M foreground > /dev/null 2> "$T_TMP/gone.err" &
fg=$!
for _ in $(seq 600); do [ "$(ls $STATE | wc -l)" = 2 ] && break; sleep 0.1; done
echo "$SIM2_ID" > /sys/bus/netdevsim/del_device
wait_gone "$pid" || fail "the holder of a removed device still runs"
pass "a holder whose device is removed exits"
wait "$fg"
expect_eq "$?" 3 "the foreground holder exits with not found"
# (bind-rx may first warn that the queue still receives RSS traffic)
expect_eq "$(grep -v '^Warning: ' "$T_TMP/gone.err")" "Error: $SIM2 is gone; its binding ended" "with a message"
expect_eq "$(state_files $STATE)" "" "both cleaned their state"

# --- unbind dev ends every binding of the device
for q in 0 1; do
	nkf -n "$HOST" bind-rx dev "$SIM" queue $q dmabuf udmabuf size 4M >/dev/null
	expect_eq "$RC" 0 "bind queue $q"
done
expect_rc 0 "unbind dev" -n "$HOST" -j unbind dev "$SIM"
expect_eq "$(printf '%s' "$OUT" | jq '.unbound | length')" 2 "both bindings"
for _ in $(seq 50); do [ -z "$(state_files $STATE)" ] && break; sleep 0.1; done
expect_eq "$(state_files $STATE)" "" "no state left"

# --- batch: a detached holder does not stop the batch
printf 'bind-rx dev %s queue 2 dmabuf udmabuf size 4M\nshow bindings\nunbind dev %s\n' "$SIM" "$SIM" > "$T_TMP/batch"
nkf -n "$HOST" -batch "$T_TMP/batch"
expect_eq "$RC" 0 "bind, show, unbind in one batch"
expect_eq "$(printf '%s\n' "$OUT" | grep -c "^binding .* holder pid")" 3 "the binding is printed by bind, show and unbind"

# --- a netkit device: the binding resolves to the NIC its queue is leased from
ns_new POD
nk -n "$HOST" link add nkh peer nkp peer-netns "$POD" rxqueues 3
ip -n "$HOST" link set nkh up
ip -n "$POD" link set nkp up
expect_rc 0 "lease NIC queue 3 into the pod" -n "$POD" lease dev nkp from "$SIM" phys-netns "$HOST" queue 3
nkf -n "$POD" -j bind-rx dev nkp queue 1 dmabuf udmabuf size 4M
expect_eq "$RC" 0 "bind-rx on the pod's netkit queue"
expect_eq "$(printf '%s' "$OUT" | jq -c '.bindings[0] | [.ifname, [.queues[].id], .phys.ifname, .phys.ifindex, .phys.netns]')" \
	"[\"nkp\",[1],\"$SIM\",$sim_idx,\"$HOST\"]" "names the NIC doing the DMA and its namespace"
nkf -n "$POD" -j bind-tx dev nkp dmabuf udmabuf size 4M
expect_eq "$(printf '%s' "$OUT" | jq -c '.bindings[0] | [.direction, .phys.ifname]')" "[\"tx\",\"$SIM\"]" "bind-tx resolves through the lease too"
expect_rc 0 "show the pod's bindings" -n "$POD" show bindings
expect_match "$OUT" "^binding [0-9]+ rx dev nkp \\(netns $POD\\) queues 1 via $SIM \\(netns $HOST\\)" "text names the NIC"
expect_rc 0 "unbind the pod's device" -n "$POD" -j unbind dev nkp
expect_eq "$(printf '%s' "$OUT" | jq '.unbound | length')" 2 "both bindings of nkp"
for _ in $(seq 50); do [ -z "$(state_files $STATE)" ] && break; sleep 0.1; done

# --- the state directory is checked before it is trusted
chmod 0755 $STATE
nkf -n "$HOST" -j bind-rx dev "$SIM" queue 0 dmabuf udmabuf size 4M
chmod 0700 $STATE
expect_eq "$RC" 6 "a state directory others can read is refused"
expect_match "$ERR" "must be a directory owned by this user with mode 0700" "says why"
expect_eq "$(state_files $STATE)" "" "and nothing is held"
mv $STATE $STATE.real
ln -s "$T_TMP" $STATE
nkf -n "$HOST" -j bind-rx dev "$SIM" queue 0 dmabuf udmabuf size 4M
rm $STATE
mv $STATE.real $STATE
expect_eq "$RC" 6 "a state directory that is a symlink is refused"
expect_eq "$(ls -A "$T_TMP" | grep -c '^\.\?[0-9]' || true)" 0 "nothing was written through the link"
expect_eq "$(ip netns pids "$HOST")" "" "no holder left running"
done_testing
