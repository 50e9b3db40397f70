// SPDX-License-Identifier: GPL-2.0
/* The sysctls ADD sets, as ptp does: forwarding in the host (the pod's
 * traffic is routed there: the default path, and pod-to-pod in the redirect
 * mode), and IPv6 on the pair's devices with their addresses kept when a
 * link goes down (a namespace may have IPv6 off by default). /proc/sys/net
 * is the namespace of the thread that opens the file, hence setns. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sysctl.h"
#include "cni.h"

/* Write val to /proc/sys/<path> unless it holds val already: 0 or -errno. */
static int sysctl_set(const char *path, const char *val)
{
	char file[256], now[32];
	ssize_t n;
	int fd, ret = 0;

	snprintf(file, sizeof(file), "/proc/sys/%s", path);
	fd = open(file, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, now, sizeof(now) - 1);
	if (n > 0 && (size_t)n - 1 == strlen(val) && !strncmp(now, val, strlen(val)))
		goto out;
	if (lseek(fd, 0, SEEK_SET) < 0 || write(fd, val, strlen(val)) != (ssize_t)strlen(val))
		ret = -errno;
out:
	close(fd);
	return ret;
}

/* sysctl_set in netns_fd's namespace (-1: this one). */
int sysctl_set_in(int netns_fd, const char *path, const char *val)
{
	int here = -1, ret;

	if (netns_fd >= 0) {
		here = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (here < 0 || setns(netns_fd, CLONE_NEWNET)) {
			ret = -errno;
			if (here >= 0)
				close(here);
			return ret;
		}
	}
	ret = sysctl_set(path, val);
	if (here >= 0) {
		/* Without the way back the plugin would go on in the pod. */
		if (setns(here, CLONE_NEWNET))
			abort();
		close(here);
	}
	return ret;
}

/* IPv6 on and addresses kept on ifname: 0 or -errno. */
int ipv6_enable_in(int netns_fd, const char *ifname)
{
	char path[128];
	int ret;

	snprintf(path, sizeof(path), "net/ipv6/conf/%s/disable_ipv6", ifname);
	ret = sysctl_set_in(netns_fd, path, "0");
	snprintf(path, sizeof(path), "net/ipv6/conf/%s/keep_addr_on_down", ifname);
	return ret ? ret : sysctl_set_in(netns_fd, path, "1");
}

/* Forwarding on in the host for each family the pod has: 0 or -errno. */
int forwarding_enable(const struct pod_net *net)
{
	bool v4 = false, v6 = false;
	int ret = 0;

	for (size_t i = 0; i < net->n_ip; i++) {
		v4 |= net->ip[i].addr.family == AF_INET;
		v6 |= net->ip[i].addr.family == AF_INET6;
	}
	if (v4)
		ret = sysctl_set("net/ipv4/ip_forward", "1");
	if (!ret && v6)
		ret = sysctl_set("net/ipv6/conf/all/forwarding", "1");
	return ret;
}
