// SPDX-License-Identifier: GPL-2.0
/* An attachment's names: its container id, interface and namespace path,
 * checked the same way whoever wrote them (the runtime's CNI_* variables,
 * a pod information file, a device's alias), and the one encoding of the
 * container id and interface into a file name (information files, locks). */
#include <limits.h>
#include <string.h>

#include "attachname.h"
#include "cni.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* The longest name with ADD's temporary file's dots and ".json.tmp". */
_Static_assert(CNI_ID_MAX + 1 + 15 * 3 + sizeof("..json.tmp") - 1 <= NAME_MAX,
	       "an attachment's file names fit NAME_MAX");

#define ALNUM "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

/* Blanks as isspace takes them (nkctl's batch splits on them), quotes, a
 * backslash and '#' (a comment on a batch line). */
#define NOT_IN_A_WORD " \t\n\v\f\r\"'\\#"

/* Letters and digits, then also '_', '.' and '-': the spec's form of a
 * network name and a container id. */
bool spec_name(const char *s)
{
	return s && *s && strchr(ALNUM, *s) && s[strspn(s, ALNUM "_.-")] == '\0';
}

static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

const char *container_id_refused(const char *id)
{
	if (!id || !spec_name(id))
		return "must start with a letter or digit, then letters, digits, '_', '.' or '-'";
	if (strlen(id) > CNI_ID_MAX)
		return "is longer than " STR(CNI_ID_MAX) " characters";
	return NULL;
}

/* The spec's rules for an interface name (as skel's): not empty, within
 * IFNAMSIZ, not "." or "..", no '/', ':' or blank; and one word of an
 * nkctl batch line, without control characters (it names files). */
const char *ifname_refused(const char *ifname)
{
	if (!ifname || !*ifname)
		return "is empty";
	if (strlen(ifname) >= 16)
		return "is longer than 15 characters";
	if (!strcmp(ifname, ".") || !strcmp(ifname, "..") || strpbrk(ifname, "/:"))
		return "is not a valid interface name";
	if (strpbrk(ifname, NOT_IN_A_WORD) || has_control(ifname))
		return "must be one word without blanks, quotes, '#' or control characters";
	return NULL;
}

/* A namespace's path: absolute, one word of a batch line (ADD puts it on
 * one), without control characters. */
const char *netns_refused(const char *netns)
{
	if (!netns || *netns != '/')
		return "must be an absolute path";
	if (strpbrk(netns, NOT_IN_A_WORD) || has_control(netns))
		return "must be one word without blanks, quotes, '#' or control characters";
	return NULL;
}

/* "ID-IFNAME" then suffix, with the interface's '-' and '%' written %2D and
 * %25: a container id has neither '%' nor, after this, does the interface
 * have a '-', so the last '-' is the one between them and no two
 * attachments share a name ("a-b" with "c" and "a" with "b-c" did). Names
 * without those characters in the interface read as before. Refuses what
 * the checks above refuse; at most CNI_ID_MAX + 1 + 45 characters before
 * the suffix, within NAME_MAX with ADD's temporary file's. */
int attachment_name(const char *id, const char *ifname, const char *suffix, char *buf, size_t len)
{
	size_t n = strlen(id ? id : "");

	if (container_id_refused(id) || ifname_refused(ifname) || n + 1 >= len)
		return -1;
	memcpy(buf, id, n);
	buf[n++] = '-';
	for (const char *s = ifname; *s; s++) {
		const char *esc = *s == '-' ? "%2D" : *s == '%' ? "%25" : NULL;
		size_t w = esc ? 3 : 1;

		if (n + w >= len)
			return -1;
		memcpy(buf + n, esc ? esc : s, w);
		n += w;
	}
	if (n + strlen(suffix) >= len)
		return -1;
	strcpy(buf + n, suffix);
	return 0;
}
