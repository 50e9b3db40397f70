// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness: the CNI plugin's input (cni/): the network
 * configuration on stdin with the CNI_* environment (cni_setup, main.c), the
 * prevResult inside it as CHECK reads it and a result as ADD reads the IPAM
 * plugin's (pod_net_parse, ipnet.c), an IPAM error object (ipam_error), and
 * nkctl's documents as STATUS and CHECK read them (status_kernel_lacks,
 * status_pool_free, check_steered, holder_queue_list) and a prevResult's
 * interfaces as CHECK compares them (check_interfaces).
 *
 * The input is the configuration text. An input with a NUL byte starts with
 * the environment instead: NAME=VALUE lines (CNI_COMMAND, CNI_CONTAINERID,
 * CNI_IFNAME, CNI_NETNS, CNI_PATH), then the NUL, then the text; without one
 * the environment is an ADD's.
 *
 * report.c is built for the harness with puts() renamed (Makefile): the
 * error object cni_print_error prints comes here.
 *
 * Contracts checked (abort on violation):
 *   - a failure returns -1 with its error, which prints as one CNI error
 *     object (valid JSON: cniVersion, code among 1 4 6 7, msg); a success
 *     records none;
 *   - a success has what the plugin then relies on: a supported cniVersion,
 *     a "name" of the spec's form, a "nic" and an IPAM type, words without
 *     blanks (any isspace) or quotes for nkctl's batch lines; for a
 *     container's command (not STATUS or GC) a container id of the spec's
 *     form, CNI_IFNAME within 15 characters without '/', ':' or blanks and
 *     not "." or "..", ADD's CNI_NETNS one word, queuesPerPod 1 to 16, the
 *     derived names nk<10 hex> and nl<10 hex>; 1 only for VERSION;
 *   - a parsed result holds 1 to CNI_MAX_IPS addresses and at most
 *     CNI_MAX_ROUTES routes, each of which prints and parses back the same,
 *     gateways of its address's family; a failure says why;
 *   - an IPAM error's code is positive and its message a string;
 *   - nkctl's documents of any shape: STATUS's lacking feature is one of
 *     its names, its free queues at most the document's queues; CHECK's
 *     steering judgement returns (json-c asserts on a non-array);
 *   - a line of nkctl -j's stderr is the command's error only as an
 *     {"error": {"message"}} object, its message NUL-terminated;
 *   - GC's reading of a device's alias: ours only with the tag and the
 *     network's owner word (name and NIC hash), its words NUL-terminated within their buffers,
 *     and names ADD would take;
 *   - GC's reading of a pod information file (the input's text, written
 *     into a directory of the harness's under the name its document's
 *     names give it, else under another): what it takes names an
 *     attachment ADD would take, whose file name is the file's own and
 *     holds no '/'; its queues a list of numbers; a refusal says why.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alias.h"
#include "attachname.h"
#include "check.h"
#include "cni.h"
#include "conf.h"
#include "gc.h"
#include "ipam.h"
#include "ipnet.h"
#include "nksession.h"
#include "podinfo.h"
#include "report.h"
#include "status.h"
#include "jsoncheck.h"
#include "fuzz_die.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* report.c's puts() (Makefile). */
int cni_fuzz_puts(const char *s);

static FILE *real_stderr;
static FILE *devnull;
static int printed;        /* error objects printed by the call under test */
static struct plugin plugin;

#define die(what, detail, output, len) \
	fuzz_die(real_stderr, "fuzz_cni", what, detail, output, len)

static const char *const env_names[] = {
	"CNI_COMMAND", "CNI_CONTAINERID", "CNI_IFNAME", "CNI_NETNS", "CNI_PATH",
};

FUZZ_QUIET_HARNESS()

/* ---- the error object ---- */

static bool error_object_ok(const char *s)
{
	json_object *o = json_tokener_parse(s), *v;
	bool ok;
	int code;

	ok = o && json_object_is_type(o, json_type_object) &&
	     json_object_object_length(o) == 3 &&
	     json_object_object_get_ex(o, "cniVersion", &v) &&
	     json_object_is_type(v, json_type_string) &&
	     json_object_object_get_ex(o, "msg", &v) && json_object_is_type(v, json_type_string) &&
	     json_object_object_get_ex(o, "code", &v) && json_object_is_type(v, json_type_int);
	code = ok ? json_object_get_int(v) : 0;
	json_object_put(o);
	return ok && (code == CNI_ERR_VERSION || code == CNI_ERR_ENV || code == CNI_ERR_DECODE ||
		      code == CNI_ERR_CONFIG);
}

int cni_fuzz_puts(const char *s)
{
	size_t at;
	const char *why = jsoncheck(s, strlen(s), &at);

	if (why)
		die("cni_print_error", why, s, strlen(s));
	if (!error_object_ok(s))
		die("cni_print_error", "not a CNI error object with a configuration error's code", s,
		    strlen(s));
	printed++;
	return 1;
}

/* ---- the environment ---- */

static void env_set(const char *line, size_t len)
{
	const char *eq = memchr(line, '=', len);
	char name[32], value[256];

	if (!eq || (size_t)(eq - line) >= sizeof(name) || len - (size_t)(eq - line) > sizeof(value))
		return;
	snprintf(name, sizeof(name), "%.*s", (int)(eq - line), line);
	snprintf(value, sizeof(value), "%.*s", (int)(len - (size_t)(eq - line) - 1), eq + 1);
	for (size_t i = 0; i < sizeof(env_names) / sizeof(env_names[0]); i++)
		if (!strcmp(name, env_names[i]))
			setenv(name, value, 1);
}

/* NAME=VALUE lines of env[0..len), or an ADD's environment without them. */
static void env_from(const char *env, size_t len)
{
	for (size_t i = 0; i < sizeof(env_names) / sizeof(env_names[0]); i++)
		unsetenv(env_names[i]);
	if (!env) {
		setenv("CNI_COMMAND", "ADD", 1);
		setenv("CNI_CONTAINERID", "f00dcafe0123", 1);
		setenv("CNI_IFNAME", "eth0", 1);
		setenv("CNI_NETNS", "/run/netns/pod0", 1);
		setenv("CNI_PATH", "/usr/lib/cni", 1);
		return;
	}
	while (len) {
		const char *nl = memchr(env, '\n', len);
		size_t n = nl ? (size_t)(nl - env) : len;

		env_set(env, n);
		env += n + (nl ? 1 : 0);
		len -= n + (nl ? 1 : 0);
	}
}

/* ---- checks of a success ---- */

static bool batch_word(const char *v)
{
	return *v && !strpbrk(v, " \t\n\v\f\r\"'\\#");
}

static bool derived(const char *name, const char *prefix)
{
	return strlen(name) == 12 && !strncmp(name, prefix, 2) &&
	       strspn(name + 2, "0123456789abcdef") == 10;
}

static bool spec_form(const char *s)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	size_t n = s ? strlen(s) : 0;

	if (!n || !strchr(alnum, s[0]))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!strchr(alnum, s[i]) && !strchr("_.-", s[i]))
			return false;
	return true;
}

static bool ifname_ok(const char *v)
{
	return v && *v && strlen(v) < 16 && strcmp(v, ".") && strcmp(v, "..") &&
	       !strpbrk(v, "/: \t\n\v\f\r");
}

static bool network_command(const char *c)
{
	return !strcmp(c, "STATUS") || !strcmp(c, "GC");
}

static void check_setup(const struct plugin *p, bool more, const char *text)
{
	const char *bad = NULL;

	if (!p->command || !*p->command)
		bad = "no CNI_COMMAND";
	else if (!more)
		bad = strcmp(p->command, "VERSION") ? "false for a command other than VERSION" : NULL;
	else if (!strcmp(p->command, "VERSION"))
		bad = "true for VERSION";
	else if (!version_supported(p->version))
		bad = "an unsupported cniVersion taken";
	else if (!spec_form(p->name))
		bad = "a \"name\" not of the spec's form";
	else if (!p->nic || !batch_word(p->nic) || (p->queues && !batch_word(p->queues)))
		bad = "\"nic\" or \"queues\" not one word";
	else if (!p->ipam_type)
		bad = "no IPAM type";
	else if (network_command(p->command))
		bad = p->id || p->ifname ? "STATUS or GC read the container's environment" : NULL;
	else if (!spec_form(p->id) || !ifname_ok(p->ifname) || !batch_word(p->ifname) ||
		 (!strcmp(p->command, "ADD") && p->netns && !batch_word(p->netns)))
		bad = "the environment";
	else if (p->per_pod < 1 || p->per_pod > 16)
		bad = "queuesPerPod out of range";
	else if (!derived(p->host, "nk") || !derived(p->holder, "nl"))
		bad = "the derived names";
	if (bad)
		die("cni_setup", bad, text, strlen(text));
}

/* An address prints and parses back the same. */
static void ipnet_round_trip(const struct nk_ipnet *n, bool with_plen, const char *what)
{
	char buf[64];
	struct nk_ipnet back;

	ipnet_str(n, with_plen, buf, sizeof(buf));
	if (ipnet_parse(buf, with_plen, &back) || !ipnet_addr_eq(n, &back) ||
	    (with_plen && back.plen != n->plen))
		die("ipnet round trip", what, buf, strlen(buf));
	if ((n->family == AF_INET && n->plen > 32) || n->plen > 128)
		die("ipnet_parse", "a prefix length beyond the family's", buf, strlen(buf));
}

static void check_result(json_object *result, const char *text)
{
	struct pod_net net;
	char why[512];

	why[0] = '\0';
	if (pod_net_parse(result, &net, why, sizeof(why))) {
		if (!why[0])
			die("pod_net_parse", "failed without saying why", text, strlen(text));
		return;
	}
	if (net.n_ip < 1 || net.n_ip > CNI_MAX_IPS || net.n_route > CNI_MAX_ROUTES)
		die("pod_net_parse", "counts out of range", text, strlen(text));
	for (size_t i = 0; i < net.n_ip; i++) {
		ipnet_round_trip(&net.ip[i].addr, true, "an address");
		if (net.ip[i].has_gw) {
			ipnet_round_trip(&net.ip[i].gw, false, "a gateway");
			if (net.ip[i].gw.family != net.ip[i].addr.family)
				die("pod_net_parse", "a gateway of another family", text, strlen(text));
		}
	}
	for (size_t i = 0; i < net.n_route; i++) {
		ipnet_round_trip(&net.route[i].dst, true, "a route");
		if (net.route[i].has_gw)
			ipnet_round_trip(&net.route[i].gw, false, "a route's gateway");
	}
	if ((net.has_gw4 && net.gw4.family != AF_INET) || (net.has_gw6 && net.gw6.family != AF_INET6))
		die("pod_net_parse", "a family's gateway of another family", text, strlen(text));
}

static void check_ipam_error(char *text)
{
	struct ipam_run run = { .out = text, .status = 1 };
	char msg[256];
	int code = ipam_error(&run, msg, sizeof(msg));

	if (code <= 0 || !memchr(msg, '\0', sizeof(msg)))
		die("ipam_error", "no positive code or no message", text, strlen(text));
}

/* A kernel where eth0 and nlpod are in the pod, nkpod in the host. */
static bool fuzz_mac(const char *ifname, bool in_pod, char *mac, size_t len, void *data)
{
	(void)data;
	snprintf(mac, len, "%s", in_pod && !strcmp(ifname, "eth0") ? "0a:00:00:00:00:01" : "");
	return in_pod ? !strcmp(ifname, "eth0") || !strcmp(ifname, "nlpod") : !strcmp(ifname, "nkpod");
}

/* text as a prevResult's interfaces and ips: an answer, a reason on failure. */
static void check_prev_interfaces(json_object *doc, const char *text)
{
	struct plugin p = { .ifname = "eth0", .netns = "/run/netns/p", .queues = "1-3",
			    .host = "nkpod", .holder = "nlpod" };
	char why[256] = "";

	if (check_interfaces(&p, doc, fuzz_mac, NULL, why, sizeof(why)) && !*why)
		die("check_interfaces", "a failure without a reason", text, strlen(text));
}

/* text as nkctl's show kernel, nic show and show leases documents. */
static void check_nk_docs(json_object *doc, const char *text)
{
	static const char *const names[] = { "netkit", "netkit-bpf", "tcx", "netkit-single",
					     "queue-create" };
	const char *lacks = status_kernel_lacks(doc, true);
	json_object *nics, *nic, *queues, *leases;
	size_t nq = 0;
	bool known = !lacks;
	struct nk_ipnet want;

	for (size_t i = 0; lacks && i < sizeof(names) / sizeof(names[0]); i++)
		known |= !strcmp(lacks, names[i]);
	if (!known)
		die("status_kernel_lacks", "not a feature STATUS needs", text, strlen(text));
	if (json_object_object_get_ex(doc, "nics", &nics) &&
	    json_object_is_type(nics, json_type_array) && json_object_array_length(nics) &&
	    (nic = json_object_array_get_idx(nics, 0)) &&
	    json_object_object_get_ex(nic, "queues", &queues) &&
	    json_object_is_type(queues, json_type_array))
		nq = json_object_array_length(queues);
	if (status_pool_free(doc, "0-3,5,7-4095") > nq)
		die("status_pool_free", "more free queues than queues", text, strlen(text));
	ipnet_parse("10.1.0.5", false, &want);
	if (json_object_object_get_ex(doc, "leases", &leases)) {
		char why[256], list[64];

		check_steered("eth1", "nlpod", leases, doc, &want, why, sizeof(why));
		if (!memchr(why, '\0', sizeof(why)))
			die("check_steered", "an unterminated reason", text, strlen(text));
		if (!holder_queue_list(leases, "eth1", "nlpod", list, sizeof(list)) &&
		    strspn(list, "0123456789,-") != strlen(list))
			die("holder_queue_list", "not a queue list", text, strlen(text));
	}
	check_prev_interfaces(doc, text);
}

/* text as a line of nkctl -j's stderr: the command's error only when it
 * is an error object; its message NUL-terminated within the buffer. */
static void check_error_line(const char *text)
{
	char msg[64];

	memset(msg, 'x', sizeof(msg));
	if (nk_error_line(text, msg, sizeof(msg)) &&
	    (!strstr(text, "\"error\"") || !memchr(msg, '\0', sizeof(msg))))
		die("nk_error_line", "took what is not an error object", text, strlen(text));
}

static void check_alias(const char *text)
{
	struct attachment a;

	if (attachment_parse(text, "nk/0a1b2c3d", &a) &&
	    (!strstr(text, "nkctl-cni") || !memchr(a.id, '\0', sizeof(a.id)) ||
	     !memchr(a.ifname, '\0', sizeof(a.ifname)) || !memchr(a.netns, '\0', sizeof(a.netns))))
		die("attachment_parse", "took an alias that is not ours", text, strlen(text));
	if (attachment_parse(text, "nk/0a1b2c3d", &a) &&
	    (container_id_refused(a.id) || ifname_refused(a.ifname) ||
	     (a.netns[0] && netns_refused(a.netns))))
		die("attachment_parse", "took names ADD refuses", text, strlen(text));
}

/* ---- a pod information file, as GC reads it ---- */

static char info_dir[] = "/tmp/fuzz_cni-info-XXXXXX";
static char info_file[sizeof(info_dir) + NAME_MAX + 1];

static void info_dir_gone(void)
{
	unlink(info_file);
	rmdir(info_dir);
}

struct info_look {
	const char *text;
	size_t len;
	int taken;
};

static const char *look_at_info(json_object *info, const char *name, void *data)
{
	struct info_look *l = data;
	struct attachment a;
	char own[NAME_MAX + 1];
	const char *why;
	int ret = attachment_from_info(info, name, "nk", "eth1", &a, &why);

	if ((ret < 0) != (why != NULL))
		die("attachment_from_info", "a refusal without a reason, or a reason without one",
		    l->text, l->len);
	if (ret > 0 &&
	    (container_id_refused(a.id) || ifname_refused(a.ifname) ||
	     attachment_name(a.id, a.ifname, ".json", own, sizeof(own)) || strcmp(own, name) ||
	     strchr(own, '/') || strspn(a.queues, "0123456789,") != strlen(a.queues)))
		die("attachment_from_info", "took what GC must not act on", l->text, l->len);
	l->taken += ret > 0;
	return why;
}

/* The name the document's own names give its file, else "x.json". */
static const char *info_name_of(const char *text, char *buf, size_t len)
{
	json_object *o = json_tokener_parse(text), *id, *ifname;

	if (!json_object_object_get_ex(o, "containerID", &id) ||
	    !json_object_object_get_ex(o, "ifname", &ifname) ||
	    attachment_name(json_object_get_string(id), json_object_get_string(ifname), ".json",
			    buf, len))
		snprintf(buf, len, "x.json");
	json_object_put(o);
	return buf;
}

static void check_info_file(const char *data, size_t len, const char *text)
{
	struct plugin p = { .name = "nk", .nic = "eth1", .command = "GC", .info_dir = info_dir };
	struct info_look look = { data, len, 0 };
	char name[NAME_MAX + 1];
	int fd;

	if (!info_file[0]) {
		if (!mkdtemp(info_dir))
			abort();
		atexit(info_dir_gone);
	}
	snprintf(info_file, sizeof(info_file), "%s/%s", info_dir, info_name_of(text, name, sizeof(name)));
	fd = open(info_file, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		abort();
	close(fd);
	pod_info_scan(&p, look_at_info, &look);
	if (look.taken > 1)
		die("pod_info_scan", "one file taken more than once", data, len);
	unlink(info_file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nul = memchr(data, '\0', size);
	size_t skip = nul ? (size_t)(nul - (const char *)data) + 1 : 0;
	char *text = malloc(size - skip + 1);
	struct cni_err err = { 0 };
	json_object *prev;
	int ret;

	if (!text)
		abort();
	memcpy(text, data + skip, size - skip);
	text[size - skip] = '\0';
	env_from(nul ? (const char *)data : NULL, nul ? skip - 1 : 0);
	memset(&plugin, 0, sizeof(plugin));
	plugin.err = &err;
	printed = 0;
	ret = cni_setup(&plugin, text);
	if (ret < 0) {
		if (!err.code)
			die("cni_setup", "a failure without its error", text, strlen(text));
		cni_print_error(&plugin);
		if (printed != 1)
			die("cni_print_error", "not one error object", text, strlen(text));
	} else {
		if (err.code)
			die("cni_setup", "an error recorded on success", text, strlen(text));
		check_setup(&plugin, ret == 0, text);
		/* CHECK's prevResult, as cmd_check reads it. */
		if (json_object_object_get_ex(plugin.conf, "prevResult", &prev))
			check_result(prev, text);
	}
	/* The same text as an IPAM plugin's answer: a result, or an error. */
	if (plugin.conf) {
		check_result(plugin.conf, text);
		check_nk_docs(plugin.conf, text);
	}
	check_ipam_error(text);
	check_alias(text);
	check_info_file((const char *)data + skip, size - skip, text);
	check_error_line(text);
	json_object_put(plugin.ipam_conf);
	json_object_put(plugin.conf);
	free(text);
	return 0;
}
