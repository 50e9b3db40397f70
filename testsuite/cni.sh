# SPDX-License-Identifier: GPL-2.0
# The CNI tests' side of a container runtime (sourced after lib.sh by cni*.t):
# the plugin (build/helpers/nkctl-cni) and host-local in a CNI_PATH of the
# test's own, libcni's result cache, and calls through libcni (cnitool).
need_root
need_cmd jq nsenter ping
PLUGIN=$NKCTL_HELPERS/nkctl-cni
[ -x "$PLUGIN" ] || skip "no $PLUGIN (make builds it where libjson-c-dev is installed)"
CNI_BIN=/usr/lib/cni
[ -x "$CNI_BIN/host-local" ] || skip "no host-local IPAM plugin (containernetworking-plugins)"
CNITOOL=$NKCTL_HELPERS/nkctl-cnitool
[ -x "$CNITOOL" ] || skip "no $CNITOOL (make check builds it where golang-go and golang-github-appc-cni-dev are installed)"
mkdir -p "$T_TMP/bin" "$T_TMP/cache"
ln -s "$PLUGIN" "$T_TMP/bin/nkctl-cni"
ln -s "$CNI_BIN/host-local" "$T_TMP/bin/host-local"
IPAMDIR=$T_TMP/ipam

# cni_conflist FILE CONF: the conflist libcni reads, wrapping one configuration.
cni_conflist() { jq -c '{cniVersion, name, plugins: [del(.cniVersion, .name)]}' <<<"$2" > "$1"; }

# cni_pod_on NIC NET QUEUES POD CONTAINER: network NET of the plugin on NIC's
# queues QUEUES with host-local (10.21.0.0/16) as $T_TMP/nk.conflist, and
# CONTAINER added in a new namespace, named in POD.
cni_pod_on() {
	cni_conflist "$T_TMP/nk.conflist" "$(jq -cn --arg nic "$1" --arg net "$2" --arg q "$3" \
		--arg dir "$IPAMDIR" '{cniVersion: "1.0.0", name: $net, type: "nkctl-cni", nic: $nic,
		queues: $q, ipam: {type: "host-local", dataDir: $dir, ranges: [[{subnet: "10.21.0.0/16"}]]}}')"
	ns_new "$4"
	cni ADD "$5" "/run/netns/${!4}"
	[ "$RC" = 0 ] || fail "CNI ADD of $5 on $1: $OUT $(cat "$T_TMP/cni.err")"
	pass "$5 added on $1 through the CNI plugin"
}

# cni_keep WHAT: keep OUT, when it is a JSON object, for done_testing to check
# against testsuite/cni-result.schema.json (results in their version's shape,
# errors, VERSION answers). Unique names: cni_bg calls it in subshells.
T_CNI=0
cni_keep() {
	[ "${OUT:0:1}" = "{" ] || return 0
	local f
	T_CNI=$((T_CNI + 1))
	f=$T_TMP/cni-json/$BASHPID.$T_CNI
	[ -d "$T_TMP/cni-json" ] || mkdir -p "$T_TMP/cni-json"
	printf '%s\n' "$OUT" > "$f.json"
	printf '%s\n' "$*" > "$f.cmd"
}

# cni ADD|CHECK|DEL CONTAINER NETNS [CONFLIST]: through libcni, as a runtime
# in HOST; sets RC, OUT (stderr in $CNI_ERR, default $T_TMP/cni.err).
cni() {
	OUT=$(nsenter --net="/run/netns/$HOST" env CNI_PATH="$T_TMP/bin" NKCTL="$NKCTL" \
		NKCTL_CNI_CACHE="$T_TMP/cache" "$CNITOOL" "${1,,}" "${4:-$T_TMP/nk.conflist}" "$2" "$3" \
		eth0 2> "${CNI_ERR:-$T_TMP/cni.err}")
	RC=$?
	# (libcni's own error documents are not the plugin's: no cniVersion)
	[ "$RC" != 0 ] || cni_keep "(libcni) $1 $2"
}

# IPAM reservations host-local holds (files named by address).
reservations() { find "$IPAMDIR" -type f -name '[0-9a-f]*[.:]*' 2>/dev/null | wc -l; }

# cni_bg ADD|DEL CONTAINER NETNS OUT [CONFLIST]: cni in the background, its
# answer in OUT, its exit status in OUT.rc, its stderr in OUT.err (wait for it).
cni_bg() {
	(
		CNI_ERR=$4.err cni "$1" "$2" "$3" "${5:-}"
		printf '%s\n' "$OUT" > "$4"
		echo "$RC" > "$4.rc"
	) &
}

# cni_add_killable CONTAINER NETNS CONFLIST OUT: an ADD through libcni in a
# process group of its own (setsid), as a runtime's that kill_add can kill
# whole; its stdout and stderr in OUT, its PID in $!.
cni_add_killable() {
	setsid nsenter --net="/run/netns/$HOST" env CNI_PATH="$T_TMP/bin" NKCTL="$NKCTL" \
		NKCTL_CNI_CACHE="$T_TMP/cache" "$CNITOOL" add "$3" "$1" "$2" eth0 > "$4" 2>&1 &
}

# kill_add PID: a runtime's ADD (its own process group, PID its leader)
# killed: SIGKILL to every process of the group but the IPAM plugin's
# host-local, which writes a reservation in two steps, and killed between
# them leaves a file DEL cannot match (its own crash safety, not the
# plugin's); then PID reaped.
kill_add() {
	local p
	for p in $(pgrep -g "$1"); do
		[ "$(cat "/proc/$p/comm" 2> /dev/null)" = host-local ] || kill -KILL "$p" 2> /dev/null
	done
	wait "$1" 2> /dev/null
}
