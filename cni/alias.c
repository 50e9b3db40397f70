// SPDX-License-Identifier: GPL-2.0
/* The host side's alias: the mark of an attachment, as ADD writes it on the
 * host side nk<hash> and GC reads it back (gc.c). Its words are checked as a
 * stranger's: anyone who can set an alias could have written it. */
#include <stdio.h>
#include <string.h>

#include "alias.h"
#include "attachname.h"
#include "cni.h"

#define ALIAS_TAG "nkctl-cni"

/* The owner of an attachment: "NETWORK/HASH", the network's name with 8 hex
 * digits of FNV-1a over the name and the NIC. Names need not be unique (two
 * runtimes, configurations in two directories): two networks of one name
 * on two NICs own different attachments, and GC or DEL of one never takes
 * the other's. */
void attachment_owner(const struct plugin *p, char *buf, size_t len)
{
	uint32_t h = 0x811c9dc5u;

	for (const char *s = p->name; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x01000193u;
	h = (h ^ 0) * 0x01000193u;
	for (const char *s = p->nic; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 0x01000193u;
	snprintf(buf, len, "%s/%08x", p->name ? p->name : "", h);
}

/* "nkctl-cni OWNER CONTAINER IFNAME NETNS": every word is without blanks
 * (the spec's form, CNI_IFNAME and ADD's CNI_NETNS are checked); the netns
 * is left out where it would not fit an alias (IFALIASZ). */
int attachment_alias(const struct plugin *p, char *buf, size_t len)
{
	char owner[300];
	int n;

	attachment_owner(p, owner, sizeof(owner));
	n = snprintf(buf, len, ALIAS_TAG " %s %s %s %s", owner, p->id, p->ifname,
		     p->netns ? p->netns : "-");
	if (n >= 0 && (size_t)n < len && n < 256)
		return 0;
	n = snprintf(buf, len, ALIAS_TAG " %s %s %s -", owner, p->id, p->ifname);
	return n >= 0 && (size_t)n < len && n < 256 ? 0 : -1;
}

/* An alias of owner's attachment into a; false for anything else (another
 * network's, one of the same name on another NIC, another tool's, one
 * whose names fail ADD's checks: GC builds lock and file names, nkctl's
 * arguments and the IPAM plugin's environment from them). */
bool attachment_parse(const char *alias, const char *owner, struct attachment *a)
{
	char tag[16], net[256], ns[256];

	memset(a, 0, sizeof(*a));
	if (sscanf(alias, "%15s %255s %255s %15s %255s", tag, net, a->id, a->ifname, ns) != 5 ||
	    strcmp(tag, ALIAS_TAG) || strcmp(net, owner) || container_id_refused(a->id) ||
	    ifname_refused(a->ifname) || (strcmp(ns, "-") && netns_refused(ns)))
		return false;
	if (strcmp(ns, "-"))
		memcpy(a->netns, ns, sizeof(ns));
	return true;
}
