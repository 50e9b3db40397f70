// SPDX-License-Identifier: GPL-2.0
/*
 * Binding state files: NK_BIND_STATE_DIR/ID, one "key value" per line,
 * written by the holder and locked (flock) by it for as long as it lives.
 * The lock, not the pid, says whether a holder is alive: a pid can be reused,
 * a lock dies with its process.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bind/bindings.h"
#include "bind/bindstate.h"
#include "store.h"

#define STATE_MAGIC "nkctl-binding 1"

static const char *const mode_names[] = {
	[NK_HOLD_DAEMON] = "daemon",
	[NK_HOLD_FOREGROUND] = "foreground",
	[NK_HOLD_COMMAND] = "command",
};

const char *nk_hold_mode_name(enum nk_hold_mode mode)
{
	return mode <= NK_HOLD_COMMAND ? mode_names[mode] : "unknown";
}

void nk_binding_state_format(FILE *f, const struct nk_binding *b)
{
	fprintf(f, STATE_MAGIC "\n");
	fprintf(f, "id %u\ndirection %s\n", b->id, b->rx ? "rx" : "tx");
	fprintf(f, "netns-dev %llu\nnetns-ino %llu\nnetns %s\n",
		(unsigned long long)b->ns_dev, (unsigned long long)b->ns_ino, b->netns);
	fprintf(f, "ifindex %d\nifname %s\n", b->ifindex, b->ifname);
	if (b->have_phys)
		fprintf(f, "phys-ifindex %d\nphys-ifname %s\nphys-netns %s\n",
			b->phys_ifindex, b->phys_ifname, b->phys_netns);
	fprintf(f, "queues");
	for (size_t i = 0; i < b->nqueues; i++)
		fprintf(f, " %u", b->queues[i]);
	fprintf(f, "\nrx-page-size %u\n", b->rx_page_size);
	fprintf(f, "source %s\nsize %llu\nhugepages %d\nheap %s\n",
		nk_dmabuf_kind_name(b->kind), (unsigned long long)b->size,
		b->hugepages, b->heap);
	fprintf(f, "pid %d\nmode %s\n", (int)b->pid, nk_hold_mode_name(b->mode));
}

static void copy_word(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
}

bool nk_binding_state_parse(FILE *f, struct nk_binding *b)
{
	/* Lines of any length: "queues" of NK_BIND_MAX_QUEUES ids is longer
	 * than any fixed line, and a line cut in two loses ids. */
	char *line = NULL;
	size_t cap = 0;
	bool magic = false, have_id = false;

	memset(b, 0, sizeof(*b));
	while (getline(&line, &cap, f) > 0) {
		char *val, *nl = strchr(line, '\n');
		unsigned long long u;

		if (nl)
			*nl = '\0';
		if (!magic) {
			if (strcmp(line, STATE_MAGIC))
				break;
			magic = true;
			continue;
		}
		val = strchr(line, ' ');
		if (!val)
			continue;
		*val++ = '\0';
		u = strtoull(val, NULL, 10);
		if (!strcmp(line, "id")) {
			b->id = (uint32_t)u;
			have_id = u > 0;
		} else if (!strcmp(line, "direction")) {
			b->rx = !strcmp(val, "rx");
		} else if (!strcmp(line, "netns-dev")) {
			b->ns_dev = (dev_t)u;
		} else if (!strcmp(line, "netns-ino")) {
			b->ns_ino = (ino_t)u;
		} else if (!strcmp(line, "netns")) {
			copy_word(b->netns, sizeof(b->netns), val);
		} else if (!strcmp(line, "ifindex")) {
			b->ifindex = (int)u;
		} else if (!strcmp(line, "ifname")) {
			copy_word(b->ifname, sizeof(b->ifname), val);
		} else if (!strcmp(line, "phys-ifindex")) {
			b->phys_ifindex = (int)u;
			b->have_phys = true;
		} else if (!strcmp(line, "phys-ifname")) {
			copy_word(b->phys_ifname, sizeof(b->phys_ifname), val);
		} else if (!strcmp(line, "phys-netns")) {
			copy_word(b->phys_netns, sizeof(b->phys_netns), val);
		} else if (!strcmp(line, "queues")) {
			char *tok, *save = NULL;

			for (tok = strtok_r(val, " ", &save); tok && b->nqueues < NK_BIND_MAX_QUEUES;
			     tok = strtok_r(NULL, " ", &save))
				b->queues[b->nqueues++] = (uint32_t)strtoul(tok, NULL, 10);
		} else if (!strcmp(line, "rx-page-size")) {
			b->rx_page_size = (uint32_t)u;
		} else if (!strcmp(line, "source")) {
			b->kind = !strcmp(val, "heap") ? NK_DMABUF_HEAP :
				  !strcmp(val, "fd") ? NK_DMABUF_FD : NK_DMABUF_UDMABUF;
		} else if (!strcmp(line, "size")) {
			b->size = u;
		} else if (!strcmp(line, "hugepages")) {
			b->hugepages = u != 0;
		} else if (!strcmp(line, "heap")) {
			copy_word(b->heap, sizeof(b->heap), val);
		} else if (!strcmp(line, "pid")) {
			b->pid = (pid_t)u;
		} else if (!strcmp(line, "mode")) {
			for (unsigned int m = 0; m <= NK_HOLD_COMMAND; m++)
				if (!strcmp(val, mode_names[m]))
					b->mode = m;
		}
	}
	free(line);
	if (!magic)
		return false;
	b->have_dmabuf = true;
	b->held = true;
	return have_id;
}

/* Is the state file's lock held by a live holder? */
static bool holder_alive(int fd)
{
	if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
		flock(fd, LOCK_UN);
		return false;
	}
	return errno == EWOULDBLOCK;
}

static int cmp_id(const void *a, const void *b)
{
	const struct nk_binding *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

void nk_binding_sort(struct nk_binding_list *l)
{
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), cmp_id);
}

int nk_binding_states(struct nk_binding_list *out)
{
	struct dirent *e;
	DIR *d;

	memset(out, 0, sizeof(*out));
	d = opendir(NK_BIND_STATE_DIR);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		struct nk_binding b, *slot;
		FILE *f;
		int fd;

		/* Hidden names are files still being written. */
		if (e->d_name[0] == '.')
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			continue;
		f = fdopen(fd, "r");
		if (!f) {
			close(fd);
			continue;
		}
		if (nk_binding_state_parse(f, &b)) {
			b.alive = holder_alive(fd);
			slot = nk_grow(&out->v, &out->n, &out->cap, sizeof(*slot));
			if (!slot) {
				fclose(f);
				closedir(d);
				return -ENOMEM;
			}
			*slot = b;
		}
		fclose(f);
	}
	closedir(d);
	nk_binding_sort(out);
	return 0;
}

void nk_binding_list_free(struct nk_binding_list *l)
{
	free(l->v);
	memset(l, 0, sizeof(*l));
}

void nk_binding_state_path(char *buf, size_t len, uint32_t id)
{
	snprintf(buf, len, NK_BIND_STATE_DIR "/%u", id);
}

void nk_binding_forget(const struct nk_binding *b)
{
	char name[16];

	snprintf(name, sizeof(name), "%u", b->id);
	nk_store_remove(NK_BIND_STATE_DIR, name);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int nk_binding_release(const struct nk_binding *b)
{
	char path[128];
	int fd, pidfd, ret = 0;

	nk_binding_state_path(path, sizeof(path), b->id);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -ESRCH;
	/* A pidfd taken while the lock is held names the holder itself, never a
	 * process that reused its pid. */
	pidfd = (int)syscall(SYS_pidfd_open, b->pid, 0);
	if (pidfd < 0 || !holder_alive(fd)) {
		ret = -ESRCH;
		goto out;
	}
	if (syscall(SYS_pidfd_send_signal, pidfd, SIGTERM, NULL, 0)) {
		ret = -errno;
		goto out;
	}
	/* The holder closes its socket (the kernel unbinds), removes its state
	 * and exits; its lock goes with it. */
	for (int i = 0; i < 1000 && holder_alive(fd); i++)
		sleep_ms(10);
	if (holder_alive(fd))
		ret = -ETIMEDOUT;
out:
	if (pidfd >= 0)
		close(pidfd);
	close(fd);
	return ret;
}
