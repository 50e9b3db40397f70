# SPDX-License-Identifier: GPL-2.0
# In a rendered page's SYNOPSIS, a "[ ... ]" group is one word for the
# formatter: its spaces become unbreakable (\~), so that no line breaks
# inside "[ dst ADDR ]" (iproute2's pages read so too), nor after "{".
/^\.SH / { syn = ($2 == "SYNOPSIS") }
syn && !/^\./ {
	out = ""; depth = 0
	for (i = 1; i <= length($0); i++) {
		c = substr($0, i, 1)
		if (c == "[") depth++
		else if (c == "]" && depth > 0) depth--
		out = out ((c == " " && depth > 0) ? "\\~" : c)
	}
	# A brace stays with its first and last word.
	gsub(/\{ /, "{\\~", out)
	gsub(/ \}/, "\\~}", out)
	$0 = out
}
{ print }
