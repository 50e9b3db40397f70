#!/bin/bash
# tier: host
# timeout: 120
# What a reader sees in one place says what the others say: every help
# synopsis is its man page's SYNOPSIS, word for word, and the other way
# round; the words of each synopsis are the words completion knows (the
# listing of the same tables); every command word has "man nkctl-WORD"; the
# rendered pages carry the version and break no keyword; the JSON revision
# of "nkctl -j -V" is the one nkctl(8) and doc/json.md give; relative links
# of the docs resolve.
. "$TESTSUITE/lib.sh"
need_cmd scdoc man groff jq
top=$(cd "$TESTSUITE/.." && pwd)
mandir=$(dirname "${NKCTL_REAL:-$NKCTL}")/man
[ -f "$mandir/nkctl.8" ] || fail "no rendered pages in $mandir (run make)"

expect_rc 0 "the hidden listing" __list
LIST=$OUT

# One synopsis or definition per line, spaces squeezed: "nkctl link del
# NAME", "POLICY := { forward | blackhole | pass | drop }".
help_synopses() { # OBJECT
	"$NKCTL" "$1" help | awk '
		/^$/ { exit }
		{ sub(/^Usage:/, ""); sub(/^ +/, "") }
		/^nkctl / || / := / { if (cur != "") print cur; cur = $0; next }
		{ cur = cur " " $0 }
		END { if (cur != "") print cur }' | tr -s ' '
}
man_synopses() { # PAGE.scd
	awk '/^# SYNOPSIS$/ { on = 1; next } /^# / { on = 0 } on && NF' "$1" |
		sed 's/^\\//; s/[*_]//g; s/^nkctl \[ OPTIONS \] /nkctl /' | tr -s ' '
}
# The page "man nkctl-WORD" shows, through its .so alias.
page_of() { # WORD
	local f="$mandir/nkctl-$1.8"
	[ -f "$f" ] || return 1
	if head -n 1 "$f" | grep -q '^\.so '; then
		f=$(head -n 1 "$f" | sed 's|^\.so man8/||')
		f=$mandir/$f
	fi
	basename "$f" .8
}

objects=$(printf '%s\n' "$LIST" | awk -F'\t' '$1 == "cmd" { split($2, w, " "); print w[1] }' | sort -u)
[ -n "$objects" ] || fail "no objects listed"

# Every command word has a page: man nkctl-WORD.
mkdir -p "$T_TMP/man/man8" && cp "$mandir"/*.8 "$T_TMP/man/man8/"
for obj in $objects; do
	page=$(page_of "$obj") || fail "no man page nor alias nkctl-$obj.8 in $mandir"
	[ -f "$top/man/$page.8.scd" ] || fail "nkctl-$obj.8 points at $page, which has no source"
done
MANWIDTH=80 man -M "$T_TMP/man" nkctl-steer 2>/dev/null | grep -q '^NAME' || fail "man nkctl-steer shows no page"
pass "man nkctl-WORD works for every command word"

# Help and man SYNOPSIS: the same lines, both ways, per page.
for obj in $objects; do
	page=$(page_of "$obj")
	help_synopses "$obj" | tee -a "$T_TMP/ordered" | sort -u > "$T_TMP/help.$obj"
	[ -s "$T_TMP/help.$obj" ] || fail "nkctl $obj help prints no synopsis"
	[ -f "$T_TMP/man.$page" ] || man_synopses "$top/man/$page.8.scd" | sort -u > "$T_TMP/man.$page"
	missing=$(comm -23 "$T_TMP/help.$obj" "$T_TMP/man.$page")
	[ -z "$missing" ] || fail "$page(8) SYNOPSIS lacks help's: $missing"
done
sort -u "$T_TMP"/help.* > "$T_TMP/help.all"
pass "every help synopsis is in its man page's SYNOPSIS"
for src in "$top"/man/nkctl-*.8.scd; do
	extra=$(man_synopses "$src" | sort -u | comm -13 "$T_TMP/help.all" -)
	[ -z "$extra" ] || fail "$(basename "$src"): in no help: $extra"
done
pass "every man SYNOPSIS line is a help synopsis"

# nkctl(8): the top help's lines, the objects and the options.
"$NKCTL" help | awk '/^where/ { exit } { sub(/^Usage:/, ""); sub(/^ +/, ""); print }' |
	sed 's/^nkctl \[ OPTIONS \] /nkctl /' | tr -s ' ' > "$T_TMP/help.top"
man_synopses "$top/man/nkctl.8.scd" | sort -u > "$T_TMP/man.nkctl"
missing=$(sort -u "$T_TMP/help.top" | comm -23 - "$T_TMP/man.nkctl")
[ -z "$missing" ] || fail "nkctl(8) SYNOPSIS lacks: $missing"
want=$(printf '%s\n' $objects | grep -vx version | tr '\n' ' ')
got=$(grep '^OBJECT := ' "$T_TMP/man.nkctl" | tr -d '{}|' | cut -d= -f2 | tr -s ' ' '\n' | grep . | sort | tr '\n' ' ')
expect_eq "$got" "$want" "nkctl(8) OBJECT := lists the objects"
want=$(printf '%s\n' "$LIST" | awk -F'\t' '$1 == "opt" && $2 ~ /^-[a-zA-Z]$/ { print $2 }' | sort | tr '\n' ' ')
got=$(grep '^OPTIONS := ' "$T_TMP/man.nkctl" | grep -o -- ' -[a-zA-Z]\b' | tr -d ' ' | sort | tr '\n' ' ')
expect_eq "$got" "$want" "nkctl(8) OPTIONS := lists the options"

# The words of each command's synopsis (keywords, choices, definitions
# below it) are the words of the listing completion reads.
awk -v list="$LIST" '
	BEGIN {
		n = split(list, rows, "\n")
		for (i = 1; i <= n; i++) {
			split(rows[i], f, "\t")
			if (f[1] == "cmd") cmds[f[2]] = 1
			if (f[1] != "arg") continue
			if (f[3] != "-") listed[f[2]] = listed[f[2]] " " f[3]
			if (f[6] != "-") listed[f[2]] = listed[f[2]] " " f[6]
		}
	}
	# The longest command path the synopsis starts with.
	/^nkctl / {
		cur = ""
		for (p in cmds) {
			if (("nkctl " p " ") == substr($0 " ", 1, length(p) + 7) && length(p) >= length(cur))
				cur = p
		}
		if (cur == "" && !("" in cmds)) next
		rest = substr($0, length(cur) + 7)
	}
	!/^nkctl / { rest = substr($0, index($0, ":=") + 2) }
	{
		gsub(/[][{}|.,]/, " ", rest)
		m = split(rest, w, " ")
		for (i = 1; i <= m; i++)
			if (w[i] ~ /^([a-z][a-z0-9-]*|--)$/) said[cur] = said[cur] " " w[i]
	}
	function sorted(s,   a, k, i, j, t, seen, out, u) {
		k = split(s, a, " "); u = 0
		for (i = 1; i <= k; i++) if (!(a[i] in seen)) { seen[a[i]] = 1; b[++u] = a[i] }
		for (i = 1; i <= u; i++) for (j = i + 1; j <= u; j++) if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
		out = ""
		for (i = 1; i <= u; i++) out = out b[i] " "
		return out
	}
	END {
		for (p in cmds) {
			if (sorted(said[p]) != sorted(listed[p]))
				printf "nkctl %s: synopsis words [%s], completion words [%s]\n", p, sorted(said[p]), sorted(listed[p])
		}
	}' "$T_TMP/ordered" > "$T_TMP/words.diff"
[ ! -s "$T_TMP/words.diff" ] || fail "help and completion disagree: $(cat "$T_TMP/words.diff")"
pass "each synopsis's words are completion's words"

# Completion offers, after each command, its keywords but those that need
# another first (count after pool), and then those too.
[ -f /usr/share/bash-completion/bash_completion ] || skip "no bash-completion"
mkdir -p "$T_TMP/bin" && ln -sf "${NKCTL_REAL:-$NKCTL}" "$T_TMP/bin/nkctl"
# One bash, bash-completion loaded once: each input line is the words of a
# command line (the last one being completed, "" for an empty word); each
# output line what completion offers, sorted.
comp_all() {
	PATH="$T_TMP/bin:$PATH" bash -c '
		source /usr/share/bash-completion/bash_completion
		source "$1/completions/nkctl"
		while IFS= read -r line; do
			eval "COMP_WORDS=($line)"
			COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
			COMPREPLY=()
			_nkctl
			printf "%s\n" "${COMPREPLY[@]}" | grep . | sort | tr "\n" " "; echo
		done' _ "$top"
}
# Cases and what each must give, from the listing in one pass: after a
# command (not one whose first word is positional), its keywords but those
# that need another, its sub-commands (a table's default command), help;
# after the keyword needed, the one that needs it.
printf '%s\n' "$LIST" | awk -F'\t' -v cases="$T_TMP/cases" -v wants="$T_TMP/wants" '
	$1 == "cmd" && $2 != "" { order[++n] = $2; sub_of[$2] = "" }
	$1 == "arg" && $3 == "-" { positional[$2] = 1 }
	$1 == "arg" && $3 != "-" { kws[$2] = kws[$2] " " $3 }
	$1 == "need" { needs[$2] = needs[$2] " " $3 "=" $4; needed[$2, $3] = 1 }
	function sorted(s,   a, b, k, i, j, t, u, seen, out) {
		k = split(s, a, " "); u = 0
		for (i = 1; i <= k; i++) if (!(a[i] in seen)) { seen[a[i]] = 1; b[++u] = a[i] }
		for (i = 1; i <= u; i++) for (j = i + 1; j <= u; j++) if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t }
		for (i = 1; i <= u; i++) out = out b[i] " "
		return out
	}
	END {
		for (i = 1; i <= n; i++) for (j = 1; j <= n; j++)
			if (index(order[j], order[i] " ") == 1) {
				split(substr(order[j], length(order[i]) + 2), w, " ")
				sub_of[order[i]] = sub_of[order[i]] " " w[1]
			}
		for (i = 1; i <= n; i++) {
			p = order[i]
			if (positional[p] || kws[p] == "") continue
			k = split(kws[p], kw, " "); want = sub_of[p] " help"
			for (j = 1; j <= k; j++) if (!((p, kw[j]) in needed)) want = want " " kw[j]
			print "nkctl " p " \"\"" > cases
			print "after \"nkctl " p "\": " sorted(want) > wants
			m = split(needs[p], nd, " ")
			for (j = 1; j <= m; j++) {
				split(nd[j], pair, "=")
				print "nkctl " p " " pair[2] " 1 \"\"" > cases
				print "after \"nkctl " p " " pair[2] " 1\": +" pair[1] > wants
			}
		}
	}'
comp_all < "$T_TMP/cases" > "$T_TMP/got"
while IFS= read -r want <&3 && IFS= read -r got <&4; do
	what=${want%%: *}
	want=${want#*: }
	case $want in
	+*) expect_match "$got" "(^| )${want#+}( |\$)" "completion offers ${want#+} $what" ;;
	*) expect_eq "$got" "$want" "completion $what" ;;
	esac
done 3< "$T_TMP/wants" 4< "$T_TMP/got"

# The JSON revision: one number in the binary, nkctl(8) and doc/json.md.
rev=$("$NKCTL" -j -V | jq -e .json) || fail "nkctl -j -V prints no revision"
grep -Fq "{\"version\": \"X.Y.Z\", \"json\": $rev}" "$top/man/nkctl.8.scd" ||
	fail "nkctl(8) does not show revision $rev"
tr -s ' \n' '  ' < "$top/doc/json.md" | grep -q "The current revision is $rev[.:]" ||
	fail "doc/json.md does not say the current revision is $rev"
# The last row of its "Revisions" table.
last=$(sed -n '/^## Revisions/,/^## /p' "$top/doc/json.md" | grep -o '^| [0-9]* |' | grep -o '[0-9]*' | sort -n | tail -n 1)
[ -n "$last" ] && [ "$last" = "$rev" ] || fail "doc/json.md's last revision is $last, nkctl's $rev"
pass "the JSON revision $rev agrees"

# One QEMU command line for a VM on a leased queue: the same in README,
# nkctl-xsk(8) and doc/kernel-notes.md.
qemu_lines=$(grep -h '^qemu-system-x86_64 .*-netdev af-xdp' "$top/README.md" "$top/man/nkctl-xsk.8.scd" \
	"$top/doc/kernel-notes.md" | sort | uniq -c)
expect_eq "$(printf '%s\n' "$qemu_lines" | awk '{ print $1 }')" 3 "one QEMU af-xdp line, the same in README, nkctl-xsk(8) and kernel-notes"

# Relative links of the docs name files that exist.
for md in "$top"/README.md "$top"/doc/*.md "$top"/cni/README.md; do
	[ -f "$md" ] || continue
	while IFS= read -r target; do
		target=${target%%#*}
		[ -n "$target" ] || continue
		[ -e "$(dirname "$md")/$target" ] || fail "${md#"$top"/}: link to $target, which does not exist"
	done < <(grep -o '\]([^)]*)' "$md" | sed 's/^](//; s/)$//; s/ .*//' | grep -Ev '^(https?|mailto|ftp):')
done
pass "relative links of README.md, doc/ and the CNI README resolve"
for src in "$top"/man/*.scd; do
	for ref in $(grep -o '\*nkctl[a-z-]*\*(8)' "$src" | tr -d '*' | sed 's/(8)//' | sort -u); do
		[ -f "$mandir/$ref.8" ] || fail "$(basename "$src") names $ref(8), which is no page"
	done
	for path in $(grep -o '_doc/[^_]*_' "$src" | tr -d _); do
		[ -e "$top/$path" ] || fail "$(basename "$src") names $path, which does not exist"
	done
done
pass "pages name only pages and files that exist"

# Every page: its exit statuses as a table; a FILES section when it names
# nkctl's state or pins.
for src in "$top"/man/*.scd; do
	awk '/^# EXIT STATUS$/ { on = 1; next } /^# / { on = 0 } on' "$src" | grep -q '^\[\[ ' ||
		fail "$(basename "$src"): EXIT STATUS is no table"
	if grep -q '/run/nkctl\|/sys/fs/bpf' "$src"; then
		grep -q '^# FILES$' "$src" || fail "$(basename "$src") names nkctl's files but has no FILES section"
	fi
done
pass "EXIT STATUS tables and FILES sections"

# Rendered pages: the version in the footer, no warnings, and no line that
# ends in a hyphen at any width (a keyword is never cut at its own hyphen).
version=$("$NKCTL" -V | sed 's/^nkctl //')
for f in "$mandir"/*.8; do
	head -n 1 "$f" | grep -q '^\.so ' && continue
	grep -q "^\.TH .*\"nkctl $version\"" "$f" || fail "$(basename "$f"): no \"nkctl $version\" in the footer"
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$f" > "$T_TMP/page.txt" 2> "$T_TMP/page.err"
	[ ! -s "$T_TMP/page.err" ] || fail "$(basename "$f"): $(cat "$T_TMP/page.err")"
	# groff as man runs it, narrower: more breaks to get wrong.
	groff -man -Tutf8 -rLL=57n -rLT=57n "$f" 2>/dev/null >> "$T_TMP/page.txt"
	cut=$(grep -E '[a-z][-‐]$' "$T_TMP/page.txt" | head -n 3)
	[ -z "$cut" ] || fail "$(basename "$f") breaks a word at a hyphen: $cut"
done
pass "rendered pages carry the version and cut no keyword"

# The CNI plugin: every configuration key its code reads and every error code
# it has is in its man page and its README's tables; its page renders clean.
cni=$top/cni
cnipage=$(dirname "${NKCTL_REAL:-$NKCTL}")/cni/nkctl-cni.8
if [ -f "$cnipage" ]; then
	keys=$(grep -ohE 'conf_(str|bool)\(p, (p->conf, )?"[A-Za-z]+"|get_ex\(p->conf, "[A-Za-z.\/-]+"' "$cni"/*.c |
		grep -oE '"[^"]+"$' | tr -d '"' | grep -vx 'prevResult\|cni.dev/valid-attachments' | sort -u)
	[ -n "$keys" ] || fail "no configuration keys found in cni"
	for k in $keys; do
		grep -q "^\*$k\*\$" "$cni/nkctl-cni.8.scd" || fail "nkctl-cni(8) CONFIGURATION lacks \"$k\""
		grep -q "^| .*\`$k\`" "$cni/README.md" || fail "cni/README.md's configuration table lacks \"$k\""
	done
	codes=$(grep -oE 'CNI_ERR_[A-Z_]+ = [0-9]+' "$cni/cni.h" | awk '{ print $3 }')
	for c in $codes; do
		grep -q "^|  $c\$" "$cni/nkctl-cni.8.scd" || fail "nkctl-cni(8) EXIT STATUS lacks code $c"
		grep -qE "^\| $c(, [0-9]+)? \||^\| [0-9]+, $c \|" "$cni/README.md" || fail "cni/README.md's error table lacks code $c"
	done
	grep -q "^\.TH .*\"nkctl $version\"" "$cnipage" || fail "nkctl-cni.8: no \"nkctl $version\" in the footer"
	LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$cnipage" > /dev/null 2> "$T_TMP/page.err"
	[ ! -s "$T_TMP/page.err" ] || fail "nkctl-cni.8: $(cat "$T_TMP/page.err")"
	pass "nkctl-cni(8) and the plugin's README name its $(echo $keys | wc -w) configuration keys and $(echo $codes | wc -w) error codes"
fi
done_testing
