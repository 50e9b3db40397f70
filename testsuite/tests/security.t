#!/bin/bash
# tier: host
# nkctl as a way in: it runs no other program (the only exec is of the
# user's "bind-rx ... -- CMD"), refuses to run setuid or setgid, and opens
# namespace paths without following symlinks.
. "$TESTSUITE/lib.sh"
need_root
# The binary itself, also under make check-valgrind (whose $NKCTL is a wrapper).
BIN=${NKCTL_REAL:-$NKCTL}
need_cmd nm

# The binary imports no way to run a program but execvp (for -- CMD).
imports=$(nm -D --undefined-only "$BIN" | awk '{print $NF}' | sed 's/@.*//')
bad=$(printf '%s\n' "$imports" | grep -Ex 'system|popen|execl|execle|execlp|execv|execve|execvpe|fexecve|posix_spawnp?|wordexp' || true)
expect_eq "$bad" "" "no system, popen, other exec or spawn"
expect_eq "$(printf '%s\n' "$imports" | grep -cx execvp)" 1 "execvp only, for -- CMD"
top=$(cd "$TESTSUITE/.." && pwd)
expect_eq "$(grep -l 'exec[lv]' "$top"/lib/*.c "$top"/nkctl/*/*.c | xargs -n1 basename | tr '\n' ' ')" "holder.c " \
	"exec lives in the holder alone (the kernel probe forks, never execs)"

# setuid / setgid: refused before anything else.
if id nobody >/dev/null 2>&1; then
	cp "$BIN" "$T_TMP/nkctl-suid"
	chmod 4755 "$T_TMP/nkctl-suid"
	chmod 755 "$T_TMP"
	out=$(su nobody -s /bin/sh -c "$T_TMP/nkctl-suid -j show" 2>"$T_TMP/err"); rc=$?
	if [ "$(stat -c %u "$T_TMP/nkctl-suid")" = 0 ] && [ "$rc" = 6 ]; then
		expect_eq "$(cat "$T_TMP/err")" "Error: nkctl refuses to run setuid or setgid" "setuid root is refused"
		expect_eq "$out" "" "and prints nothing"
	elif findmnt -n -o OPTIONS -T "$T_TMP" | grep -q nosuid; then
		skip_part setuid "$T_TMP is on a nosuid mount: the setuid refusal is not exercised"
	else
		fail "setuid copy run by nobody: rc=$rc err=$(cat "$T_TMP/err")"
	fi
	chmod 2755 "$T_TMP/nkctl-suid"
	chown root:root "$T_TMP/nkctl-suid"
	chmod 2755 "$T_TMP/nkctl-suid"
	out=$(su nobody -s /bin/sh -c "$T_TMP/nkctl-suid show" 2>"$T_TMP/err"); rc=$?
	if ! findmnt -n -o OPTIONS -T "$T_TMP" | grep -q nosuid; then
		expect_eq "$(head -n 1 "$T_TMP/err")" "Error: nkctl refuses to run setuid or setgid" "setgid is refused"
		# A SANITIZE=1 build's LeakSanitizer dies in a setgid process after
		# nkctl refused (exit 1); the plain build exits 6.
		nm -D "$BIN" | grep -q __asan_init || expect_eq "$rc" 6 "setgid exits 6"
	fi
fi

# A namespace name that is a symlink under /run/netns is not followed.
ns_new NS
ln -s "/run/netns/$NS" "/run/netns/nkt-link-$$"
defer "rm -f /run/netns/nkt-link-$$"
expect_error 1 "a symlinked namespace name" -n "nkt-link-$$" show
expect_match "$ERR" "is a symbolic link, not a namespace" "says it is not followed"
done_testing
