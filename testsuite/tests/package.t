#!/bin/bash
# tier: host
# timeout: 420
# The Debian package: built with dpkg-buildpackage in a scratch copy of the
# tracked files (nothing is written into the work tree), lintian-clean, the
# hardening flags of dpkg-buildflags on every compile and link line, the
# file list as debian/ says, the binary hardened and printing the
# changelog's version, and the autopkgtest (debian/tests/smoke) run against
# the unpacked package.
. "$TESTSUITE/lib.sh"
need_root
top=$(cd "$TESTSUITE/.." && pwd)
# The package is built from the sources, whatever nkctl this pass tests:
# only the plain pass builds it. The sanitizer and valgrind passes run the
# autopkgtest against their own nkctl and the tree's schema.
if [ "$(readlink -f "$NKCTL")" != "$top/build/nkctl" ]; then
	need_cmd bpftool
	NKCTL_DOC=$top/doc sh "$top/debian/tests/smoke" > "$T_TMP/smoke.log" 2>&1 ||
		fail "debian/tests/smoke with $NKCTL: $(cat "$T_TMP/smoke.log")"
	pass "debian/tests/smoke passes with $NKCTL (the package is built in the plain pass)"
	done_testing
fi
for c in dpkg-buildpackage:dpkg-dev dh:debhelper dh_bash-completion:bash-completion \
	lintian:lintian blhc:blhc git:git readelf:binutils bpftool:bpftool; do
	command -v "${c%%:*}" > /dev/null 2>&1 ||
		skip "needs ${c%%:*} (Debian package ${c##*:}; sh scripts/install-deps --test installs it)"
done
git -C "$top" rev-parse --git-dir > /dev/null 2>&1 || skip "not a git checkout: cannot list the tracked files"
$PY -c 'import jsonschema' 2> /dev/null || skip "needs python3-jsonschema"

# The tracked files as they are now (edits included), nothing built.
src=$T_TMP/nkctl
mkdir -p "$src"
git -C "$top" ls-files -z | (cd "$top" && tar --null -T - -cf -) | tar -xf - -C "$src" ||
	fail "cannot copy the tracked files"
pass "scratch copy of $(git -C "$top" ls-files | wc -l) tracked files"

version=$(cd "$src" && dpkg-parsechangelog -S Version)
arch=$(dpkg --print-architecture)
deb=$T_TMP/nkctl_${version}_$arch.deb
(cd "$src" && dpkg-buildpackage -us -uc -b) > "$T_TMP/build.log" 2>&1 ||
	fail "dpkg-buildpackage: $(tail -n 15 "$T_TMP/build.log")"
[ -f "$deb" ] || fail "no $deb: $(ls "$T_TMP")"
pass "dpkg-buildpackage -us -uc -b built $(basename "$deb")"
cp "$T_TMP/build.log" "$top/testsuite/results/package.build.log" 2> /dev/null || true

# Hardening: what dpkg-buildflags says reaches every host compile and link
# line (the BPF object is not host code: clang -target bpf takes none).
flags=$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CFLAGS)
flags="$flags $(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CPPFLAGS)"
ldflags=$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get LDFLAGS)
compiles=0
while IFS= read -r line; do
	compiles=$((compiles + 1))
	for f in $flags; do
		case "$f" in -ffile-prefix-map=*) continue ;; esac
		case " $line " in *" $f "*) ;; *) fail "compile line without $f: $line" ;; esac
	done
done < <(grep -E '^cc .* -c ' "$T_TMP/build.log")
[ "$compiles" -gt 10 ] || fail "only $compiles compile lines in the build log (not verbose?)"
pass "$compiles compile lines carry CFLAGS and CPPFLAGS ($flags)"
link=$(grep -E '^cc .* -o build/nkctl ' "$T_TMP/build.log")
[ -n "$link" ] || fail "no link line of build/nkctl in the build log"
for f in $ldflags; do
	case " $link " in *" $f "*) ;; *) fail "link line without $f: $link" ;; esac
done
pass "the link line carries LDFLAGS ($ldflags)"
# And Debian's own checker of build logs (PIE is gcc's default on Debian).
blhc --bindnow "$T_TMP/build.log" > "$T_TMP/blhc.log" 2>&1 || fail "blhc: $(head -n 5 "$T_TMP/blhc.log")"
pass "blhc --bindnow: no missing flag in the build log"

lintian --no-tag-display-limit "$T_TMP"/nkctl_"${version}"_"$arch".changes > "$T_TMP/lintian.log" 2>&1
bad=$(grep -E '^[EW]: ' "$T_TMP/lintian.log")
[ -z "$bad" ] || fail "lintian: $bad"
pass "lintian: no errors, no warnings ($(grep -c '^[IPX]: ' "$T_TMP/lintian.log") info/pedantic tags)"

# The file list, from the tree: the binary, a man page per man/*.scd, the
# completion, the JSON contract and schema (the CNI plugin is nkctl-cni's).
root=$T_TMP/root
dpkg -x "$deb" "$root" || fail "dpkg -x"
(cd "$root" && find . -type f -o -type l | sed 's|^\./||' | sort) > "$T_TMP/files"
{
	echo usr/sbin/nkctl
	echo usr/share/bash-completion/completions/nkctl
	for p in "$src"/man/*.scd; do
		p=$(basename "$p" .scd)
		echo "usr/share/man/man${p##*.}/$p.gz"
	done
	# The .so alias of every command word (man nkctl-steer): a symlink.
	for p in $(grep -l '^\.so ' "$src"/build/man/*.8); do
		echo "usr/share/man/man8/$(basename "$p").gz"
	done
	echo usr/share/doc/nkctl/changelog.gz
	echo usr/share/doc/nkctl/copyright
	echo usr/share/doc/nkctl/json.md.gz
	echo usr/share/doc/nkctl/nics.md.gz
	echo usr/share/doc/nkctl/nkctl.schema.json
} | sort > "$T_TMP/want"
diff -u "$T_TMP/want" "$T_TMP/files" > "$T_TMP/files.diff" ||
	fail "the package's files differ from what debian/ should install: $(cat "$T_TMP/files.diff")"
pass "$(wc -l < "$T_TMP/files") files, as expected (nothing under /usr/lib/bpf)"
expect_eq "$(stat -c %a "$root/usr/sbin/nkctl")" 755 "the binary is 0755"
zcat "$root/usr/share/man/man8/nkctl.8.gz" | grep -q '^\.TH "nkctl" "8"' || fail "nkctl.8 is not section 8"
pass "man pages in section 8"
[ "$(readlink "$root/usr/share/man/man8/nkctl-steer.8.gz")" = nkctl-nic.8.gz ] ||
	fail "nkctl-steer.8.gz is no symlink to nkctl-nic.8.gz: $(ls -l "$root/usr/share/man/man8/")"
pass "command words' man pages are symlinks"

# The binary: hardened, the BPF object inside it, the changelog's version.
bin=$root/usr/sbin/nkctl
readelf -d "$bin" | grep -q 'BIND_NOW' || readelf -d "$bin" | grep -q 'FLAGS.*NOW' ||
	fail "not linked with -z now"
readelf -l "$bin" | grep -q GNU_RELRO || fail "no RELRO segment"
readelf -h "$bin" | grep -q 'DYN (' || fail "not a position-independent executable"
readelf -W --dyn-syms "$bin" | grep -q '__stack_chk_fail' || fail "no stack protector"
readelf -W --dyn-syms "$bin" | grep -Eq '__[a-z]+_chk' || fail "no _FORTIFY_SOURCE checks"
pass "hardened: PIE, RELRO, BIND_NOW, stack protector, fortified calls"

# The second binary package: the CNI plugin where CNI runtimes look for it
# (Debian's containernetworking-plugins keeps its plugins in /usr/lib/cni),
# hardened too, with its README.
cnideb=$T_TMP/nkctl-cni_${version}_$arch.deb
[ -f "$cnideb" ] || fail "no $(basename "$cnideb"): $(ls "$T_TMP")"
cniroot=$T_TMP/cniroot
dpkg -x "$cnideb" "$cniroot" || fail "dpkg -x nkctl-cni"
expect_eq "$(cd "$cniroot" && find . -type f | sed 's|^\./||' | sort | tr '\n' ' ')" \
	"usr/lib/cni/nkctl-cni usr/share/doc/nkctl-cni/README.md.gz usr/share/doc/nkctl-cni/changelog.gz usr/share/doc/nkctl-cni/copyright usr/share/man/man8/nkctl-cni.8.gz " \
	"nkctl-cni holds the plugin in /usr/lib/cni, its README and its man page"
expect_eq "$(dpkg-deb -f "$cnideb" Depends | grep -o "nkctl (= $version)")" "nkctl (= $version)" "nkctl-cni depends on this nkctl"
plugin=$cniroot/usr/lib/cni/nkctl-cni
readelf -d "$plugin" | grep -q 'FLAGS.*NOW' && readelf -l "$plugin" | grep -q GNU_RELRO &&
	readelf -h "$plugin" | grep -q 'DYN (' || fail "the plugin is not hardened (PIE, RELRO, BIND_NOW)"
expect_eq "$(echo '{"cniVersion": "1.0.0"}' | CNI_COMMAND=VERSION "$plugin" | jq -c .supportedVersions)" '["0.3.0","0.3.1","0.4.0","1.0.0","1.1.0"]' "the packaged plugin answers VERSION"
expect_eq "$("$bin" -V)" "nkctl $version" "nkctl -V prints the changelog's version"
expect_eq "$("$bin" -j -V | jq -r .version)" "$version" "nkctl -j -V too"

# The autopkgtest, against the unpacked package instead of /usr.
NKCTL=$bin NKCTL_DOC=$root/usr/share/doc/nkctl sh "$src/debian/tests/smoke" > "$T_TMP/smoke.log" 2>&1 ||
	fail "debian/tests/smoke: $(cat "$T_TMP/smoke.log")"
pass "debian/tests/smoke passes against the unpacked package ($(grep -c '^ok' "$T_TMP/smoke.log") checks)"
done_testing
