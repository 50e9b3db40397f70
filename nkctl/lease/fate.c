// SPDX-License-Identifier: GPL-2.0
/* The one judgement of a lease's fate (fate.h): pure, from one look. */
#include "lease/fate.h"

const char *nk_look_why(enum nk_look look)
{
	switch (look) {
	case NK_LOOK_SEEN:
		return NULL;
	case NK_LOOK_DOWN:
		return "is down";
	case NK_LOOK_GONE:
		return "is gone";
	case NK_LOOK_UNREADABLE:
		return "cannot be read (its queue dump failed or showed no queue)";
	case NK_LOOK_UNREACHABLE:
		return "is in a namespace nkctl cannot enter";
	}
	return "cannot be read";
}

const char *nk_look_word(enum nk_look look)
{
	static const char *const words[] = {
		[NK_LOOK_SEEN] = "seen", [NK_LOOK_DOWN] = "down", [NK_LOOK_GONE] = "gone",
		[NK_LOOK_UNREADABLE] = "unreadable", [NK_LOOK_UNREACHABLE] = "unreachable",
	};

	return (unsigned int)look < sizeof(words) / sizeof(words[0]) ? words[look] : "unreadable";
}

enum nk_fate nk_fate_join(enum nk_fate a, enum nk_fate b)
{
	if (a == NK_FATE_LIVE || b == NK_FATE_LIVE)
		return NK_FATE_LIVE;
	if (a == NK_FATE_UNKNOWN || b == NK_FATE_UNKNOWN)
		return NK_FATE_UNKNOWN;
	return NK_FATE_ENDED;
}

const struct nk_seen_queue *nk_seen_queue(const struct nk_nic_seen *s, uint32_t id)
{
	if (s->look != NK_LOOK_SEEN || id >= s->nq || !s->q[id].present)
		return NULL;
	return &s->q[id];
}

static bool same_ns(const struct nk_ns_id *a, const struct nk_ns_id *b)
{
	return a->known && b->known && a->dev == b->dev && a->ino == b->ino;
}

static bool is_holder(const struct nk_seen_queue *q, const struct nk_holder_id *h)
{
	return q->leased && q->holder.ifindex == h->ifindex && same_ns(&q->holder.ns, &h->ns);
}

/* A lease whose holder's namespace cannot be told: its own or another's. */
static bool whose_unknown(const struct nk_seen_queue *q)
{
	return q->leased && (q->ns_going || !q->holder.ns.known);
}

enum nk_fate nk_fate_of_queues(const struct nk_nic_seen *s, const uint32_t *ids, size_t n)
{
	enum nk_fate fate = NK_FATE_ENDED;

	if (s->look != NK_LOOK_SEEN)
		return NK_FATE_UNKNOWN;
	for (size_t i = 0; i < n; i++) {
		const struct nk_seen_queue *q = nk_seen_queue(s, ids[i]);

		if (!q || !q->leased)
			continue;
		fate = nk_fate_join(fate, q->ns_going ? NK_FATE_UNKNOWN : NK_FATE_LIVE);
	}
	return fate;
}

enum nk_fate nk_fate_of_lease_was(const struct nk_nic_seen *s, uint32_t id,
				  const struct nk_holder_id *h)
{
	return s->look == NK_LOOK_GONE ? NK_FATE_ENDED : nk_fate_of_slot(s, id, h);
}

enum nk_fate nk_fate_of_slot(const struct nk_nic_seen *s, uint32_t id,
			     const struct nk_holder_id *h)
{
	const struct nk_seen_queue *q;

	if (s->look != NK_LOOK_SEEN)
		return NK_FATE_UNKNOWN;
	q = nk_seen_queue(s, id);
	if (!q || !q->leased)
		return NK_FATE_ENDED;
	if (is_holder(q, h))
		return NK_FATE_LIVE;
	/* leased to a namespace nkctl knows: not h's when h's namespace is
	 * another, or is none nkctl reaches (known means reachable both ways) */
	return whose_unknown(q) ? NK_FATE_UNKNOWN : NK_FATE_ENDED;
}
