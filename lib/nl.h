/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One netlink socket type over libmnl: open with extended acks, build a
 * request, and one receive loop for do-requests and dumps alike.
 */
#ifndef NKCTL_NL_H
#define NKCTL_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

/* Names of request attributes, so an extack offset becomes a path. */
struct nl_attr_space;
struct nl_attr_desc {
	uint16_t type;
	const char *name;
	const struct nl_attr_space *nested;
	uint16_t nested_hdrlen;  /* a fixed header before the nested attributes
				    (IFLA_NETKIT_PEER_INFO starts with ifinfomsg) */
};
struct nl_attr_space {
	size_t n;
	const struct nl_attr_desc *attrs;
};
#define NL_SPACE(arr) { sizeof(arr) / sizeof((arr)[0]), (arr) }

/* What the kernel said when a request failed. */
struct nl_err {
	int code;        /* positive errno */
	char msg[256];   /* NLMSGERR_ATTR_MSG, or empty */
	char path[128];  /* attribute named by OFFS or MISS_TYPE, or empty */
	bool missing;    /* path names a missing attribute */
};

/* Room for the largest request: an RSS indirection table as big as one
 * attribute carries (NK_RSS_MAX_INDIR entries). */
#define NL_SEND_BUF (72 * 1024)

struct nl_sock {
	struct mnl_socket *mnl;
	int proto;
	uint32_t portid;
	uint32_t seq;
	char *rbuf;
	size_t rbuf_len;
	char sbuf[NL_SEND_BUF];
};

/* Called for every data message; return 0, or a negative errno to fail the
 * request (the rest of the reply is still drained). */
typedef int (*nl_data_cb)(const struct nlmsghdr *nlh, void *data);

int nl_open(struct nl_sock *s, int proto, struct nl_err *err);
void nl_close(struct nl_sock *s);
bool nl_is_open(const struct nl_sock *s);

/* Start a request in the socket's send buffer with a fresh sequence number. */
struct nlmsghdr *nl_msg(struct nl_sock *s, uint16_t type, uint16_t flags);

/*
 * Send req and process the reply: data messages go to cb, the request ends at
 * its ACK (do) or NLMSG_DONE (dump). hdrlen is the family header after
 * nlmsghdr (genlmsghdr, ifinfomsg) and space names the request's attributes
 * (either may be 0/NULL). Returns 0 or a negative errno with err filled in.
 */
int nl_talk(struct nl_sock *s, struct nlmsghdr *req, size_t hdrlen,
	    const struct nl_attr_space *space, nl_data_cb cb, void *data,
	    struct nl_err *err);

/* Does a whole message start at nlh, with len bytes left in the buffer? What
 * mnl_nlmsg_ok() should say (it lets a length of 2^31 or more pass); walk
 * with mnl_nlmsg_next(). */
bool nl_msg_ok(const struct nlmsghdr *nlh, int len);

/*
 * Decode the message that ends a request, as nl_talk does: NLMSG_ERROR (an
 * ACK when its error is 0) or NLMSG_DONE (a dump's end, with its errno when
 * the dump failed). On an error, err gets the errno, the extack message and,
 * when req is given, the path of the attribute the kernel names (hdrlen and
 * space as for nl_talk). Returns 0 or a negative errno.
 */
int nl_decode_error(const struct nlmsghdr *nlh, const struct nlmsghdr *req,
		    size_t hdrlen, const struct nl_attr_space *space,
		    struct nl_err *err);

/* Make room for one more element of size esz in the array *v (length *n,
 * capacity *cap) and return it, counted; NULL when out of memory. */
void *nk_grow(void *v, size_t *n, size_t *cap, size_t esz);
/* qsort(), skipped when v is already in order, as dumps mostly come (glibc's
 * qsort copies the whole array through a scratch buffer even then). */
void nk_sort(void *v, size_t n, size_t esz, int (*cmp)(const void *, const void *));

/*
 * A dump collector: every message (of type, when it is not 0) parsed into a
 * new last element of a list {T *v; size_t n, cap;}. A message parse refuses
 * (an entry missing its key attributes) is left out. Give nl_collect_cb and
 * a struct nl_collect to nl_talk.
 */
struct nl_collect {
	void *v;                  /* &list->v */
	size_t *n, *cap;
	size_t esz;
	int (*parse)(const struct nlmsghdr *nlh, void *elem);
	uint16_t type;
};
#define NL_COLLECT(list, fn, msg_type) \
	{ &(list)->v, &(list)->n, &(list)->cap, sizeof(*(list)->v), fn, msg_type }
int nl_collect_cb(const struct nlmsghdr *nlh, void *data);
/* A dump into a sorted list, around the nl_talk calls that fill it:
 * nl_collect_begin empties the list; nl_collect_end takes the dump's result,
 * frees the list when it failed (and returns ret), else sorts it by cmp. */
void nl_collect_begin(const struct nl_collect *c);
int nl_collect_end(const struct nl_collect *c, int ret,
		   int (*cmp)(const void *, const void *));

/* A counter attribute and the JSON key it prints as (qstats, page-pool
 * stats): one row of a table that decoders and printers share. */
struct nk_counter_desc {
	uint16_t attr;
	const char *key;
};

/* Fill err for a local failure (no kernel reply). */
void nl_err_set(struct nl_err *err, int code, const char *msg);

/* Attribute helpers tolerant of newer kernels: unknown types are skipped. */
struct nl_attrs {
	const struct nlattr *tb[64];
};
/* Index the attributes of a nest or a message payload; types > max ignored. */
void nl_parse(struct nl_attrs *a, const void *buf, size_t len, uint16_t max);
void nl_parse_nested(struct nl_attrs *a, const struct nlattr *nest, uint16_t max);
void nl_parse_msg(struct nl_attrs *a, const struct nlmsghdr *nlh,
		  size_t hdrlen, uint16_t max);
/* Read integers of any width the kernel may use (u8..u64), 0 if short. */
uint64_t nl_get_uint(const struct nlattr *attr);
int64_t nl_get_sint(const struct nlattr *attr);
/* Copy a string attribute into buf, always terminated. */
void nl_get_str(const struct nlattr *attr, char *buf, size_t len);

#endif
