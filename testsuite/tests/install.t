#!/bin/bash
# tier: host
# make install DESTDIR=... PREFIX=/usr puts the binary, the man pages, the
# completion and (where json-c is installed) the CNI plugin where Debian keeps
# them, and the installed binary runs.
. "$TESTSUITE/lib.sh"
need_cmd make
top=$(cd "$TESTSUITE/.." && pwd)
dest=$T_TMP/dest
make -s -C "$top" install DESTDIR="$dest" PREFIX=/usr > "$T_TMP/make.log" 2>&1 ||
	fail "make install: $(tail -5 "$T_TMP/make.log")"
pass "make install"
for f in usr/sbin/nkctl usr/share/bash-completion/completions/nkctl \
	usr/share/man/man8/nkctl.8 usr/share/man/man8/nkctl-show.8 \
	usr/share/man/man8/nkctl-link.8 usr/share/man/man8/nkctl-lease.8 \
	usr/share/man/man8/nkctl-redirect.8 usr/share/man/man8/nkctl-steer.8 \
	usr/share/man/man8/nkctl-unlease.8 usr/share/man/man8/nkctl-bind-rx.8; do
	[ -f "$dest/$f" ] || fail "missing $f"
done
pass "binary, man pages and completion installed"
[ -x "$dest/usr/sbin/nkctl" ] || fail "binary not executable"
"$dest/usr/sbin/nkctl" -V | grep -q '^nkctl ' || fail "installed binary does not run"
pass "the installed binary runs"
expect_eq "$(stat -c %a "$dest/usr/share/man/man8/nkctl.8")" 644 "man pages are 0644"
if pkg-config --exists json-c; then
	# configure's default CNI directory: containernetworking-plugins' /usr/lib/cni.
	expect_eq "$(stat -c %a "$dest/usr/lib/cni/nkctl-cni" 2>&1)" 755 "the CNI plugin is in /usr/lib/cni, 0755"
else
	skip_part cni "no json-c (libjson-c-dev): the CNI plugin is neither built nor installed"
fi
expect_eq "$(cat "$dest/usr/share/man/man8/nkctl-steer.8")" ".so man8/nkctl-nic.8" "man nkctl-steer is nkctl-nic(8)"
done_testing
