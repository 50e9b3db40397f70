#!/bin/bash
# tier: host
# Code, help, man pages and completion agree: every command in the dispatch
# tables has help and a man page that names each of its keywords; the pages
# build without warnings; completion offers what the tables hold.
. "$TESTSUITE/lib.sh"
need_cmd scdoc man
top=$(cd "$TESTSUITE/.." && pwd)

expect_rc 0 "the hidden listing" __list
LIST=$OUT
[ -n "$(printf '%s\n' "$LIST" | grep '^cmd')" ] || fail "no commands listed"

# Under valgrind (about 0.7 s a run) every sixth command's help runs under
# it and the others with the binary itself (the same table-driven printer);
# the sanitizer pass checks every one's memory.
under_memcheck() { [ "${NKCTL_MEMCHECK:-}" != valgrind ] || [ $((n % 6)) = 0 ]; }

# Every command: help works and its man page names it and its keywords.
n=0
while IFS=$'\t' read -r kind path kw meta; do
	[ "$kind" = cmd ] || continue
	n=$((n + 1))
	if under_memcheck; then
		# shellcheck disable=SC2086
		expect_rc 0 "nkctl $path help" $path help
	else
		# shellcheck disable=SC2086
		NKCTL=$NKCTL_REAL expect_rc 0 "nkctl $path help" $path help
	fi
	expect_match "$OUT" '^Usage:' "nkctl $path help prints usage"
	obj=${path%% *}
	page="$top/man/nkctl-$obj.8.scd"
	case "$obj" in
	unlease) page="$top/man/nkctl-lease.8.scd" ;;
	steer) page="$top/man/nkctl-nic.8.scd" ;;
	bind-rx|bind-tx|unbind) page="$top/man/nkctl-bind.8.scd" ;;
	version) page="$top/man/nkctl.8.scd" ;;
	esac
	[ -f "$page" ] || fail "no man page for $path ($page)"
	grep -Eq -- "\*(${path}|${path##* })\*|^## ${path}\$" "$page" ||
		fail "$(basename "$page") does not name \"$path\""
	pass "man page names $path"
	grep -q -- "\*$obj\*" "$top/man/nkctl.8.scd" || fail "nkctl.8 does not list $obj"
done <<<"$LIST"
while IFS=$'\t' read -r kind path kw meta; do
	[ "$kind" = arg ] && [ "$kw" != - ] || continue
	obj=${path%% *}
	page="$top/man/nkctl-$obj.8.scd"
	[ "$obj" = unlease ] && page="$top/man/nkctl-lease.8.scd"
	[ "$obj" = steer ] && page="$top/man/nkctl-nic.8.scd"
	case "$obj" in bind-rx|bind-tx|unbind) page="$top/man/nkctl-bind.8.scd" ;; esac
	grep -Eq -- "\*([^*]* )?$kw( [^*]*)?\*" "$page" ||
		fail "$(basename "$page") does not document \"$kw\" of $path"
done <<<"$LIST"
pass "every keyword is documented"

# Every global option of the options table is in nkctl(8), each spelling.
while IFS=$'\t' read -r kind opt meta; do
	[ "$kind" = opt ] || continue
	grep -Fq -- "*$opt*" "$top/man/nkctl.8.scd" || fail "nkctl.8 does not document option \"$opt\""
done <<<"$LIST"
pass "every global option is documented"

# CI runs exactly the README's test command; the README's set-up command
# installs only what building and running need (no QEMU).
ci=$(tail -n 1 "$top/.ci/run")
grep -Fxq "    $ci" "$top/README.md" || fail "the README does not give CI's command: $ci"
grep -Eq '^    sh scripts/install-deps && \./configure && make && \./build/nkctl show$' "$top/README.md" ||
	fail "the README's set-up command changed"
awk '/^BUILD=/' "$top/scripts/install-deps" | grep -q qemu && fail "install-deps installs QEMU for a plain build"
pass "README, CI and install-deps agree"

# Nothing documented that the code lacks: objects in nkctl(8) exist.
for obj in $(sed -n '/^# OBJECTS/,/^# EXIT/p' "$top/man/nkctl.8.scd" | grep -o '^\*[a-z-]*\*' | tr -d '*'); do
	printf '%s\n' "$LIST" | grep -q "^cmd	$obj\b" || fail "nkctl(8) documents \"$obj\" that the code lacks"
done
pass "nkctl(8) lists only real objects"

# The pages build and lint clean, each has an EXIT STATUS, and every example
# command line comes out of the renderer as the line it was (no reflow: it
# can be copied and pasted).
for src in "$top"/man/*.scd; do
	scdoc < "$src" > "$T_TMP/page.8" || fail "scdoc $(basename "$src")"
	warn=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$T_TMP/page.8" 2>&1 >/dev/null)
	[ -z "$warn" ] || fail "$(basename "$src"): $warn"
	pass "$(basename "$src") builds without warnings"
	grep -q '^# EXIT STATUS$' "$src" || fail "$(basename "$src") has no EXIT STATUS section"
	LC_ALL=C.UTF-8 MANWIDTH=200 man -l "$T_TMP/page.8" 2>/dev/null | sed 's/^ *//' > "$T_TMP/page.txt"
	while IFS= read -r line; do
		grep -Fxq -- "$line" "$T_TMP/page.txt" ||
			fail "$(basename "$src"): the example \"$line\" is not a line of its own when rendered"
	done < <(awk '/^```/ { lit = !lit; next } lit && /^nkctl / { print }' "$src" | sed 's/\\\\$/\\/')
	bad=$(awk '/^```/ { lit = !lit; next } !lit && /^\tnkctl / { print }' "$src")
	[ -z "$bad" ] || fail "$(basename "$src"): an example outside a literal block is reflowed: $bad"
	pass "$(basename "$src"): examples stand alone"
done

# Completion, driven through bash with bash-completion 2.11 loaded.
[ -f /usr/share/bash-completion/bash_completion ] || skip "no bash-completion"
comp() {
	bash -c '
		source /usr/share/bash-completion/bash_completion
		source "$1/completions/nkctl"
		shift
		PATH="$(dirname "$NKCTL"):$PATH"
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_nkctl; printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' _ "$top" "$@"
}
# Completion asks nkctl for the tables (the listing above, which ran under
# valgrind once): under valgrind it runs the binary itself.
mkdir -p "$T_TMP/bin" && ln -sf "${NKCTL_REAL:-$NKCTL}" "$T_TMP/bin/nkctl"
export NKCTL="$T_TMP/bin/nkctl"
expect_eq "$(comp nkctl '')" "bind-rx bind-tx doctor help lease link monitor nic redirect show steer unbind unlease version xsk " "objects"
expect_eq "$(comp nkctl li)" "link " "an object by its start"
expect_eq "$(comp nkctl link '')" "add del help set show " "link commands"
expect_eq "$(comp nkctl show '')" "bindings dev help interval kernel leases " "show: commands and keywords (count after interval)"
expect_match "$(comp nkctl show interval 1 '')" '(^| )count( |$)' "count once interval is given"
expect_eq "$(comp nkctl bind-rx dev lo dmabuf '')" "fd heap udmabuf " "dmabuf sources"
expect_eq "$(comp nkctl steer add dev lo flow-type '')" "ip4 ip6 tcp4 tcp6 udp4 udp6 " "flow types from the enum's word table"
expect_eq "$(comp nkctl nic '')" "help release reserve restore show " "nic commands"
expect_eq "$(comp nkctl doctor '')" "dev help " "doctor keywords"
expect_match "$(comp nkctl bind-tx dev lo '')" '(^| )dmabuf( |$)' "bind-tx keywords"
expect_match "$(comp nkctl show dev '')" '(^| )lo( |$)' "interface names for dev"
expect_eq "$(comp nkctl lease dev x '')" "from phys-netns pool queue reserve steer " "lease keywords not yet given"
expect_eq "$(comp nkctl lease dev x pool 1 '')" "count from phys-netns queue reserve steer " "count once pool is given"
expect_eq "$(comp nkctl lease dev x steer '')" "dst " "steer's dst"
expect_eq "$(comp nkctl lease '')" "dev from help phys-netns pool queue reserve steer " "help right after the command"
expect_eq "$(comp nkctl version '' | tr -d " ")" "" "no stray help after a complete command"
expect_eq "$(comp nkctl help '')" "bind-rx bind-tx doctor lease link monitor nic redirect show steer unbind unlease version xsk " "help offers the objects"
expect_eq "$(comp nkctl link add x mode '')" "l2 l3 " "enumerated values from the tables"
expect_eq "$(comp nkctl link set x policy '')" "blackhole drop forward pass " "policy words and their aliases"
expect_eq "$(comp nkctl redirect attach dev lo hook '')" "netkit-peer netkit-primary tcx-egress tcx-ingress " "hooks"
expect_match "$(comp nkctl redirect attach dev lo to lo prefix 10.0.0.0/8 '')" '(^| )prefix( |$)' "a repeatable keyword stays offered"
expect_match "$(comp nkctl bind-rx dev lo hugepages '')" '(^| )queue( |$)' "a flag takes no value"
expect_match "$(comp nkctl redirect attach dev lo to '')" '(^| )lo( |$)' "interface names for redirect's to"
expect_match "$(comp nkctl redirect attach dev lo to lo '')" '(^| )replace( |$)' "redirect attach offers replace"
expect_match "$(comp nkctl redirect '')" '(^| )prune( |$)' "redirect prune"
expect_match "$(comp nkctl -j --pr)" '^--pretty $' "global options"
expect_match "$(comp nkctl link del '')" '(^| )lo( |$)' "interface names for a positional NAME"
expect_eq "$(comp nkctl link del gr)" "group " "a keyword that may stand in the positional NAME's place (link del group)"
expect_eq "$(comp nkctl link add '' | tr -d " ")" "" "no existing names for a new device"
ns_new NS
expect_match "$(comp nkctl -n '')" "(^| )$NS( |$)" "namespace names for -n"
ip -n "$NS" link add cmpl0 type dummy 2>/dev/null || ip -n "$NS" link add cmpl0 type veth peer name cmpl1
expect_match "$(comp nkctl -n "$NS" show dev c)" '^cmpl0 ' "interface names inside the -n namespace"
expect_eq "$(comp nkctl "--netns=$NS" show dev c)" "$(comp nkctl -n "$NS" show dev c)" "--netns=NS completes as -n NS"
expect_match "$(comp nkctl "--netns=${NS:0:6}")" "(^| )--netns=$NS( |\$)" "--netns= completes namespace names"
expect_match "$(comp nkctl -n /proc/sel)" '^/proc/self' "-n completes paths"
expect_match "$(comp nkctl -js)" '^-json $' "single-dash long options"
done_testing
