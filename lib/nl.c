// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>

#include "nl.h"
#include "prefault.h"

#define NL_RECV_BUF (1024 * 1024)
#define NL_RCVBUF   (1024 * 1024)
#define NL_DUMP_BATCH (32 * 1024)

void *nk_grow(void *v, size_t *n, size_t *cap, size_t esz)
{
	void **arr = v;

	if (*n == *cap) {
		size_t bytes = (*cap ? *cap * 2 : 16) * esz;
		void *nv = nk_grow_buf(*arr, *n * esz, &bytes);

		if (!nv)
			return NULL;
		*arr = nv;
		*cap = bytes / esz;
	}
	nk_prefault(*arr, *n * esz, esz, *cap * esz);
	return (char *)*arr + (*n)++ * esz;
}

void nk_sort(void *v, size_t n, size_t esz, int (*cmp)(const void *, const void *))
{
	const char *p = v;
	size_t i;

	for (i = 1; i < n && cmp(p + (i - 1) * esz, p + i * esz) <= 0; i++)
		;
	if (i < n)
		qsort(v, n, esz, cmp);
}

int nl_collect_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nl_collect *c = data;
	void *elem;

	if (c->type && nlh->nlmsg_type != c->type)
		return 0;
	elem = nk_grow(c->v, c->n, c->cap, c->esz);
	if (!elem)
		return -ENOMEM;
	if (c->parse(nlh, elem))
		(*c->n)--;
	return 0;
}

void nl_collect_begin(const struct nl_collect *c)
{
	*(void **)c->v = NULL;
	*c->n = 0;
	*c->cap = 0;
}

int nl_collect_end(const struct nl_collect *c, int ret,
		   int (*cmp)(const void *, const void *))
{
	if (ret) {
		free(*(void **)c->v);
		nl_collect_begin(c);
		return ret;
	}
	nk_sort(*(void **)c->v, *c->n, c->esz, cmp);
	return 0;
}

void nl_err_set(struct nl_err *err, int code, const char *msg)
{
	if (!err)
		return;
	memset(err, 0, sizeof(*err));
	err->code = code;
	if (msg)
		snprintf(err->msg, sizeof(err->msg), "%s", msg);
}

bool nl_is_open(const struct nl_sock *s)
{
	return s->mnl != NULL;
}

int nl_open(struct nl_sock *s, int proto, struct nl_err *err)
{
	int one = 1, rcvbuf = NL_RCVBUF;

	/* All but the send buffer, which each request writes before it is
	 * read: zeroing it touched its 18 pages, a fault each, at every open. */
	memset(s, 0, offsetof(struct nl_sock, sbuf));
	s->proto = proto;
	s->mnl = mnl_socket_open2(proto, SOCK_CLOEXEC);
	if (!s->mnl)
		goto fail;
	/* Extended acks give the message and the attribute; CAP_ACK keeps the
	 * echoed request out of error replies (we still hold our own copy). */
	if (mnl_socket_setsockopt(s->mnl, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    mnl_socket_setsockopt(s->mnl, NETLINK_CAP_ACK, &one, sizeof(one)))
		goto fail;
	/* Strict checking is best effort: kernels before 4.20 lack it. */
	mnl_socket_setsockopt(s->mnl, NETLINK_GET_STRICT_CHK, &one, sizeof(one));
	setsockopt(mnl_socket_get_fd(s->mnl), SOL_SOCKET, SO_RCVBUF, &rcvbuf,
		   sizeof(rcvbuf));
	if (mnl_socket_bind(s->mnl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto fail;
	s->portid = mnl_socket_get_portid(s->mnl);
	s->seq = (uint32_t)time(NULL) ^ ((uint32_t)getpid() << 16);
	s->rbuf_len = NL_RECV_BUF;
	s->rbuf = malloc(s->rbuf_len);
	if (!s->rbuf) {
		errno = ENOMEM;
		goto fail;
	}
	/* A dump's replies come 32 KiB at a time at most (the kernel's
	 * netlink_dump): those pages made present in one call, not a fault
	 * each as the first replies are copied in. */
	nk_populate(s->rbuf, NL_DUMP_BATCH);
	return 0;
fail:
	nl_err_set(err, errno ? errno : EIO, NULL);
	nl_close(s);
	return -(err ? err->code : EIO);
}

void nl_close(struct nl_sock *s)
{
	if (s->mnl)
		mnl_socket_close(s->mnl);
	free(s->rbuf);
	s->mnl = NULL;
	s->rbuf = NULL;
}

struct nlmsghdr *nl_msg(struct nl_sock *s, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh;

	/* only the header: libmnl zeroes each attribute's padding itself */
	nlh = mnl_nlmsg_put_header(s->sbuf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++s->seq;
	return nlh;
}

/* ---- attribute paths for extack offsets ---- */

static const struct nl_attr_desc *space_find(const struct nl_attr_space *sp,
					     uint16_t type)
{
	for (size_t i = 0; sp && i < sp->n; i++)
		if (sp->attrs[i].type == type)
			return &sp->attrs[i];
	return NULL;
}

static void path_append(char *path, size_t len, const struct nl_attr_desc *d,
			uint16_t type)
{
	size_t used = strlen(path);

	if (used >= len - 1)
		return;
	if (d)
		snprintf(path + used, len - used, "%s%s", used ? "." : "", d->name);
	else
		snprintf(path + used, len - used, "%sattr%u", used ? "." : "", type);
}

/*
 * Walk the attributes in [buf, buf+len) looking for the one that starts at
 * byte offset target (offsets count from the start of the request). The path
 * of names is built as we descend; *space_out gets the space of the attribute
 * found (for MISS_NEST). Returns true when found.
 */
static bool attr_walk(const char *req, size_t start, size_t end, size_t target,
		      const struct nl_attr_space *space, char *path, size_t plen,
		      const struct nl_attr_space **space_out)
{
	size_t off = start;

	while (off + sizeof(struct nlattr) <= end) {
		const struct nlattr *a = (const void *)(req + off);
		uint16_t type = a->nla_type & NLA_TYPE_MASK;
		size_t alen = a->nla_len;
		const struct nl_attr_desc *d = space_find(space, type);

		if (alen < sizeof(*a) || off + alen > end)
			return false;
		if (off == target) {
			path_append(path, plen, d, type);
			if (space_out)
				*space_out = d ? d->nested : NULL;
			return true;
		}
		if (target > off && target < off + alen) {
			path_append(path, plen, d, type);
			return attr_walk(req, off + NLA_HDRLEN + (d ? d->nested_hdrlen : 0),
					 off + alen, target,
					 d ? d->nested : NULL, path, plen, space_out);
		}
		off += NLA_ALIGN(alen);
	}
	return false;
}

static void extack_paths(struct nl_err *err, const struct nlmsghdr *req,
			 size_t hdrlen, const struct nl_attr_space *space,
			 const struct nlattr *offs, const struct nlattr *miss_type,
			 const struct nlattr *miss_nest)
{
	const char *base = (const char *)req;
	size_t start = NLMSG_HDRLEN + NLMSG_ALIGN(hdrlen);
	size_t end = req->nlmsg_len;

	if (miss_type) {
		const struct nl_attr_space *nest_space = space;
		uint16_t type = mnl_attr_get_u32(miss_type);

		if (miss_nest &&
		    !attr_walk(base, start, end, mnl_attr_get_u32(miss_nest), space,
			       err->path, sizeof(err->path), &nest_space))
			err->path[0] = '\0';
		path_append(err->path, sizeof(err->path),
			    space_find(nest_space, type), type);
		err->missing = true;
	} else if (offs) {
		if (!attr_walk(base, start, end, mnl_attr_get_u32(offs), space,
			       err->path, sizeof(err->path), NULL))
			err->path[0] = '\0';
	}
}

/* The kernel's errnos are -4095..-1: anything else is a malformed reply. */
static int error_code(int e)
{
	return e > 0 || e < -4095 ? -EPROTO : e;
}

int nl_decode_error(const struct nlmsghdr *nlh, const struct nlmsghdr *req,
		    size_t hdrlen, const struct nl_attr_space *space,
		    struct nl_err *err)
{
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1] = { NULL };
	const char *p = mnl_nlmsg_get_payload(nlh);
	size_t plen = mnl_nlmsg_get_payload_len(nlh), off;
	const struct nlattr *attr;
	int code;

	if (nlh->nlmsg_type == NLMSG_DONE) {
		/* The end of a dump: its errno when it failed, then the TLVs
		 * (not a struct nlmsgerr). */
		if (plen < sizeof(code))
			return 0;
		memcpy(&code, p, sizeof(code));
		off = sizeof(code);
	} else {
		const struct nlmsgerr *e = (const void *)p;

		if (plen < sizeof(*e)) {
			nl_err_set(err, EPROTO, "a netlink error message too short for its header");
			return -EPROTO;
		}
		code = e->error;
		/* The request comes back after the header unless capped. */
		off = sizeof(*e);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += e->msg.nlmsg_len - sizeof(e->msg);
	}
	if (!code)
		return 0;
	code = error_code(code);
	nl_err_set(err, -code, NULL);
	if (!err || !(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || off >= plen)
		return code;
	mnl_attr_for_each_payload((const void *)(p + off), plen - off) {
		uint16_t t = mnl_attr_get_type(attr);

		if (mnl_attr_validate(attr, MNL_TYPE_UNSPEC) < 0)
			break;
		/* Offsets and types are read with mnl_attr_get_u32(). */
		if ((t == NLMSGERR_ATTR_OFFS || t == NLMSGERR_ATTR_MISS_TYPE ||
		     t == NLMSGERR_ATTR_MISS_NEST) && mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			continue;
		if (t <= NLMSGERR_ATTR_MAX)
			tb[t] = attr;
	}
	if (tb[NLMSGERR_ATTR_MSG]) {
		nl_get_str(tb[NLMSGERR_ATTR_MSG], err->msg, sizeof(err->msg));
		/* It ends up inside one Error: line. */
		for (char *c = err->msg; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = ' ';
	}
	if (req)
		extack_paths(err, req, hdrlen, space, tb[NLMSGERR_ATTR_OFFS],
			     tb[NLMSGERR_ATTR_MISS_TYPE],
			     tb[NLMSGERR_ATTR_MISS_NEST]);
	return code;
}

bool nl_msg_ok(const struct nlmsghdr *nlh, int len)
{
	/* Not mnl_nlmsg_ok(): libmnl 1.0.4 compares nlmsg_len as an int, so a
	 * length of 2^31 or more passes for any len. */
	return len >= (int)sizeof(*nlh) && nlh->nlmsg_len >= sizeof(*nlh) &&
	       nlh->nlmsg_len <= (unsigned int)len;
}

/*
 * Receive one datagram. The buffer is large (NL_RECV_BUF) but only the pages a
 * reply touches become resident, so no MSG_PEEK round trip is needed; a
 * datagram that still does not fit is reported, never silently cut.
 */
static ssize_t recv_one(struct nl_sock *s)
{
	int fd = mnl_socket_get_fd(s->mnl);
	ssize_t n;

	do {
		n = recv(fd, s->rbuf, s->rbuf_len, MSG_TRUNC);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n > s->rbuf_len)
		return -EMSGSIZE;
	return n;
}

int nl_talk(struct nl_sock *s, struct nlmsghdr *req, size_t hdrlen,
	    const struct nl_attr_space *space, nl_data_cb cb, void *data,
	    struct nl_err *err)
{
	int cb_err = 0;

	nl_err_set(err, 0, NULL);
	if (mnl_socket_sendto(s->mnl, req, req->nlmsg_len) < 0) {
		nl_err_set(err, errno, NULL);
		return -err->code;
	}
	for (;;) {
		ssize_t n = recv_one(s);
		const struct nlmsghdr *nlh;
		int len;

		if (n < 0) {
			nl_err_set(err, (int)-n, n == -ENOBUFS ?
				   "the kernel's reply overran the netlink receive buffer" : NULL);
			return (int)n;
		}
		len = (int)n;
		for (nlh = (const void *)s->rbuf; nl_msg_ok(nlh, len);
		     nlh = mnl_nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_seq != req->nlmsg_seq ||
			    nlh->nlmsg_pid != s->portid)
				continue; /* stale reply of an earlier request */
			/* The ACK of a do-request (error 0) ends it, NLMSG_DONE
			 * a dump. Dumps are sent without NLM_F_ACK. (Testing
			 * NLM_F_DUMP would be wrong: its bits are
			 * NLM_F_REPLACE|EXCL on NEW requests.) */
			if (nlh->nlmsg_type == NLMSG_ERROR || nlh->nlmsg_type == NLMSG_DONE) {
				int ret = nl_decode_error(nlh, req, hdrlen, space, err);

				if (ret)
					return ret;
				goto done;
			}
			if (nlh->nlmsg_type < NLMSG_MIN_TYPE)
				continue;
			if (cb && !cb_err)
				cb_err = cb(nlh, data);
		}
	}
done:
	if (cb_err) {
		nl_err_set(err, -cb_err, NULL);
		return cb_err;
	}
	return 0;
}

/* ---- attribute helpers ---- */

void nl_parse(struct nl_attrs *a, const void *buf, size_t len, uint16_t max)
{
	const char *p = buf;

	memset(a, 0, sizeof(*a));
	if (max >= 64)
		max = 63;
	/* mnl_attr_ok()'s checks, each length against what is left, written
	 * out: a call per attribute was a tenth of a large show's time.
	 * (mnl_attr_validate(MNL_TYPE_UNSPEC) would check nothing more.) */
	while (len >= sizeof(struct nlattr)) {
		const struct nlattr *attr = (const void *)p;
		size_t step = NLA_ALIGN(attr->nla_len);
		uint16_t t = attr->nla_type & NLA_TYPE_MASK;

		if (attr->nla_len < sizeof(struct nlattr) || attr->nla_len > len)
			break;
		if (t <= max)
			a->tb[t] = attr;
		if (step >= len)
			break;
		p += step;
		len -= step;
	}
}

void nl_parse_nested(struct nl_attrs *a, const struct nlattr *nest, uint16_t max)
{
	nl_parse(a, mnl_attr_get_payload(nest), mnl_attr_get_payload_len(nest), max);
}

void nl_parse_msg(struct nl_attrs *a, const struct nlmsghdr *nlh, size_t hdrlen,
		  uint16_t max)
{
	size_t off = NLMSG_ALIGN(hdrlen);
	size_t plen = mnl_nlmsg_get_payload_len(nlh);

	if (plen < off) {
		memset(a, 0, sizeof(*a));
		return;
	}
	nl_parse(a, (const char *)mnl_nlmsg_get_payload(nlh) + off, plen - off, max);
}

uint64_t nl_get_uint(const struct nlattr *attr)
{
	switch (mnl_attr_get_payload_len(attr)) {
	case 1: return mnl_attr_get_u8(attr);
	case 2: return mnl_attr_get_u16(attr);
	case 4: return mnl_attr_get_u32(attr);
	case 8: return mnl_attr_get_u64(attr);
	default: return 0;
	}
}

int64_t nl_get_sint(const struct nlattr *attr)
{
	switch (mnl_attr_get_payload_len(attr)) {
	case 1: return (int8_t)mnl_attr_get_u8(attr);
	case 2: return (int16_t)mnl_attr_get_u16(attr);
	case 4: return (int32_t)mnl_attr_get_u32(attr);
	case 8: return (int64_t)mnl_attr_get_u64(attr);
	default: return 0;
	}
}

void nl_get_str(const struct nlattr *attr, char *buf, size_t len)
{
	size_t plen = mnl_attr_get_payload_len(attr);
	const char *p = mnl_attr_get_payload(attr);

	if (!len)
		return;
	if (plen >= len)
		plen = len - 1;
	memcpy(buf, p, plen);
	buf[plen] = '\0';
	buf[strnlen(buf, plen)] = '\0';
}
