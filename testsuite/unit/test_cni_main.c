// SPDX-License-Identifier: GPL-2.0
/* cni: the network configuration (main.c), a result's ips and
 * routes (ipnet.c), and the ADD result built from them (add.c). A refused
 * configuration prints a CNI error object (as main does): those run in a
 * child. */
#include <arpa/inet.h>
#include <sys/wait.h>

#include <errno.h>
#include <sys/stat.h>

#include "unit.h"

#include "../../cni/add.h"
#include "../../cni/alias.h"
#include "../../cni/check.h"
#include "../../cni/cni.h"
#include "../../cni/conf.h"
#include "../../cni/gc.h"
#include "../../cni/ipnet.h"
#include "../../cni/lock.h"
#include "../../cni/nksession.h"
#include "../../cni/podinfo.h"
#include "../../cni/podnet.h"
#include "../../cni/report.h"
#include "../../cni/spawn.h"
#include "../../cni/status.h"

/* fn(arg) in a child whose standard output is captured in out: its exit
 * status (-1 when a signal ended it). */
static int in_child(void (*fn)(const void *), const void *arg, char *out, size_t len)
{
	int fd[2], status;
	pid_t pid;
	ssize_t n;

	assert_int_equal(pipe(fd), 0);
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		dup2(fd[1], 1);
		fn(arg);
		_exit(0);
	}
	close(fd[1]);
	n = read(fd[0], out, len - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fd[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void read_conf_of(const void *text)
{
	struct cni_err e = { 0 };
	struct plugin p = { .err = &e };

	p.conf = json_tokener_parse(text);
	if (read_conf(&p)) {
		cni_print_error(&p);
		_exit(1);
	}
}

/* read_conf of text in a child: its exit status and standard output. */
static int conf_child(const char *text, char *out, size_t len)
{
	return in_child(read_conf_of, text, out, len);
}

/* The code of the CNI error object in out (-1 when there is none). */
static int error_code(const char *out)
{
	json_object *o = json_tokener_parse(out), *code;
	int ret = -1;

	if (o && json_object_object_get_ex(o, "code", &code))
		ret = json_object_get_int(code);
	json_object_put(o);
	return ret;
}

struct setup_args {
	const char *const *env;
	const char *text;
};

static void setup_with_env(const void *arg)
{
	const struct setup_args *a = arg;
	struct cni_err e = { 0 };
	struct plugin p = { .err = &e };

	clearenv();
	for (size_t i = 0; a->env[i]; i++)
		putenv((char *)a->env[i]);
	if (cni_setup(&p, a->text) < 0) {
		cni_print_error(&p);
		_exit(1);
	}
}

/* cni_setup of text with the environment env (NAME=VALUE strings, NULL
 * ended) in a child: 0 when it accepted them, else the error's code. */
static int setup_child(const char *const env[], const char *text)
{
	struct setup_args a = { env, text };
	char out[2048];
	int rc = in_child(setup_with_env, &a, out, sizeof(out));

	assert_true(rc >= 0);
	return rc ? error_code(out) : 0;
}

static const char *conf_ok =
	"{\"cniVersion\":\"1.0.0\",\"name\":\"pods\",\"type\":\"nkctl-cni\",\"nic\":\"eth1\","
	"\"ipam\":{\"type\":\"host-local\"}}";

static void env_checked(void **state)
{
	struct {
		const char *id, *ifname, *netns;
		int code;
	} cases[] = {
		{ "CNI_CONTAINERID=abc-1_2.3", "CNI_IFNAME=eth0", "CNI_NETNS=/run/netns/x", 0 },
		{ "CNI_CONTAINERID=-abc", "CNI_IFNAME=eth0", "CNI_NETNS=/run/netns/x", CNI_ERR_ENV },
		{ "CNI_CONTAINERID=a/b", "CNI_IFNAME=eth0", "CNI_NETNS=/run/netns/x", CNI_ERR_ENV },
		{ "CNI_CONTAINERID=abc", "CNI_IFNAME=et/h0", "CNI_NETNS=/run/netns/x", CNI_ERR_ENV },
		{ "CNI_CONTAINERID=abc", "CNI_IFNAME=eth:0", "CNI_NETNS=/run/netns/x", CNI_ERR_ENV },
		{ "CNI_CONTAINERID=abc", "CNI_IFNAME=.", "CNI_NETNS=/run/netns/x", CNI_ERR_ENV },
		{ "CNI_CONTAINERID=abc", "CNI_IFNAME=..", "CNI_NETNS=/run/netns/x", CNI_ERR_ENV },
		{ "CNI_CONTAINERID=abc", "CNI_IFNAME=eth0123456789abc", "CNI_NETNS=/run/netns/x",
		  CNI_ERR_ENV },
		{ "CNI_CONTAINERID=abc", "CNI_IFNAME=eth0", "CNI_NETNS=/run/netns/a b", CNI_ERR_ENV },
		{ "CNI_CONTAINERID=abc", "CNI_IFNAME=eth0", "CNI_NETNS=/run/netns/a\vb", CNI_ERR_ENV },
		{ "CNI_CONTAINERID=abc", "CNI_IFNAME=eth0", "CNI_NETNS=/proc/self/ns/net", CNI_ERR_ENV },
	};

	(void)state;
	for (size_t i = 0; i < N_ELEMS(cases); i++) {
		const char *env[] = { "CNI_COMMAND=ADD", cases[i].id, cases[i].ifname, cases[i].netns,
				      NULL };

		assert_int_equal(setup_child(env, conf_ok), cases[i].code);
	}
}

/* DEL never puts CNI_NETNS on a batch line: a space in it is no error. */
static void env_del_netns_space(void **state)
{
	const char *env[] = { "CNI_COMMAND=DEL", "CNI_CONTAINERID=abc", "CNI_IFNAME=eth0",
			      "CNI_NETNS=/run/netns/a b", NULL };

	(void)state;
	assert_int_equal(setup_child(env, conf_ok), 0);
}

/* STATUS (and GC) concern the network: no container id, interface or
 * namespace needed. */
static void env_status_no_container(void **state)
{
	const char *env[] = { "CNI_COMMAND=STATUS", NULL };
	const char *env_add[] = { "CNI_COMMAND=ADD", NULL };

	const char *conf_11 =
		"{\"cniVersion\":\"1.1.0\",\"name\":\"pods\",\"type\":\"nkctl-cni\",\"nic\":\"eth1\","
		"\"ipam\":{\"type\":\"host-local\"}}";

	(void)state;
	assert_int_equal(setup_child(env, conf_11), 0);
	/* a 1.0.0 configuration does not allow STATUS (the skel's gate) */
	assert_int_equal(setup_child(env, conf_ok), CNI_ERR_VERSION);
	assert_int_equal(setup_child(env_add, conf_ok), CNI_ERR_ENV);
}

static void conf_name_checked(void **state)
{
	const char *env[] = { "CNI_COMMAND=STATUS", NULL };

	(void)state;
	assert_int_equal(setup_child(env, "{\"cniVersion\":\"1.0.0\",\"nic\":\"eth1\","
					  "\"ipam\":{\"type\":\"host-local\"}}"),
			 CNI_ERR_CONFIG);
	assert_int_equal(setup_child(env, "{\"cniVersion\":\"1.0.0\",\"name\":\"a b\","
					  "\"nic\":\"eth1\",\"ipam\":{\"type\":\"host-local\"}}"),
			 CNI_ERR_CONFIG);
	assert_int_equal(setup_child(env, "{\"cniVersion\":\"1.0.0\",\"name\":\"p\","
					  "\"nic\":\"eth\f1\",\"ipam\":{\"type\":\"host-local\"}}"),
			 CNI_ERR_CONFIG);
	assert_int_equal(setup_child(env, "{\"cniVersion\":\"0.2.0\",\"name\":\"p\","
					  "\"nic\":\"eth1\",\"ipam\":{\"type\":\"host-local\"}}"),
			 CNI_ERR_VERSION);
}

/* libcni >= 1.2: a list's cniVersions, the newest of ours. */
static void conf_cni_versions(void **state)
{
	const char *env[] = { "CNI_COMMAND=STATUS", NULL };
	struct cni_err e = { 0 };
	struct plugin p = { .err = &e };

	(void)state;
	p.conf = json_tokener_parse("{\"cniVersions\":[\"0.4.0\",\"1.1.0\",\"9.9.9\",\"1.0.0\"],"
				    "\"nic\":\"eth1\"}");
	read_conf(&p);
	assert_string_equal(p.version, "1.1.0");
	json_object_put(p.conf);
	p.conf = json_tokener_parse("{\"cniVersion\":\"0.4.0\",\"cniVersions\":[\"1.1.0\"]}");
	read_conf(&p);
	assert_string_equal(p.version, "0.4.0");
	json_object_put(p.conf);
	/* and the whole set-up takes it */
	assert_int_equal(setup_child(env, "{\"cniVersions\":[\"1.0.0\",\"1.1.0\"],\"name\":\"nk\","
					  "\"nic\":\"eth1\",\"ipam\":{\"type\":\"host-local\"}}"),
			 0);
	assert_int_equal(setup_child(env, "{\"cniVersions\":[\"9.0.0\"],\"name\":\"nk\","
					  "\"nic\":\"eth1\",\"ipam\":{\"type\":\"host-local\"}}"),
			 CNI_ERR_VERSION);
	assert_int_equal(setup_child(env, "{\"cniVersions\":\"1.0.0\",\"name\":\"nk\"}"),
			 CNI_ERR_DECODE);
}

/* IPAM reads a 1.1.0 configuration as 1.0.0 (an IPAM plugin of before
 * 1.1.0 refuses 1.1.0); other versions as they are. */
static void conf_ipam_version(void **state)
{
	struct cni_err e = { 0 }, eq = { 0 };
	struct plugin p = { .err = &e }, q = { .err = &eq };
	json_object *o, *v;

	(void)state;
	setenv("CNI_COMMAND", "STATUS", 1);
	assert_int_equal(cni_setup(&p, "{\"cniVersion\":\"1.1.0\",\"name\":\"nk\",\"nic\":\"eth1\","
				       "\"ipam\":{\"type\":\"host-local\"}}"), 0);
	o = json_tokener_parse(p.ipam_text);
	assert_true(json_object_object_get_ex(o, "cniVersion", &v));
	assert_string_equal(json_object_get_string(v), "1.0.0");
	assert_string_equal(p.version, "1.1.0");
	json_object_put(o);
	/* 1.0.0 allows no STATUS: a DEL's, of a container */
	setenv("CNI_COMMAND", "DEL", 1);
	setenv("CNI_CONTAINERID", "c1", 1);
	setenv("CNI_IFNAME", "eth0", 1);
	assert_int_equal(cni_setup(&q, conf_ok), 0);
	assert_ptr_equal(q.ipam_text, q.conf_text);
	json_object_put(p.ipam_conf);
	json_object_put(p.conf);
	json_object_put(q.conf);
	unsetenv("CNI_COMMAND");
	unsetenv("CNI_CONTAINERID");
	unsetenv("CNI_IFNAME");
}

static void conf_full(void **state)
{
	struct cni_err e = { 0 };
	struct plugin p = { .err = &e };

	(void)state;
	p.conf = json_tokener_parse("{\"cniVersion\":\"1.0.0\",\"nic\":\"eth1\",\"queues\":\"4-7\","
				    "\"queuesPerPod\":2,\"steer\":false,\"egressRedirect\":true,"
				    "\"podInfoDir\":\"/tmp/x\",\"ipam\":{\"type\":\"host-local\"}}");
	read_conf(&p);
	assert_true(p.egress_redirect);
	assert_string_equal(p.info_dir, "/tmp/x");
	assert_string_equal(p.version, "1.0.0");
	assert_string_equal(p.nic, "eth1");
	assert_string_equal(p.queues, "4-7");
	assert_int_equal(p.per_pod, 2);
	assert_false(p.steer);
	assert_string_equal(p.ipam_type, "host-local");
	json_object_put(p.conf);
}

static void conf_defaults(void **state)
{
	struct cni_err e = { 0 };
	struct plugin p = { .err = &e };

	(void)state;
	p.conf = json_tokener_parse("{\"nic\":\"eth1\",\"queues\":null}");
	read_conf(&p);
	assert_null(p.queues);
	assert_null(p.ipam_type);
	assert_int_equal(p.per_pod, 1);
	assert_true(p.steer);
	assert_false(p.egress_redirect);
	assert_string_equal(p.info_dir, CNI_INFO_DIR);
	json_object_put(p.conf);
}

static void conf_refused(void **state)
{
	const char *bad[] = { "{\"nic\":7}", "{\"queuesPerPod\":0}", "{\"queuesPerPod\":17}",
			      "{\"queuesPerPod\":\"2\"}", "{\"ipam\":{\"type\":[]}}",
			      "{\"steer\":\"no\"}", "{\"steer\":0}", "{\"egressRedirect\":1}",
			      "{\"podInfoDir\":\"run/x\"}", "{\"podInfoDir\":3}" };
	char out[1024];

	(void)state;
	for (size_t i = 0; i < N_ELEMS(bad); i++) {
		json_object *o, *code;

		assert_int_equal(conf_child(bad[i], out, sizeof(out)), 1);
		o = json_tokener_parse(out);
		assert_non_null(o);
		assert_true(json_object_object_get_ex(o, "code", &code));
		assert_int_equal(json_object_get_int(code), CNI_ERR_CONFIG);
		json_object_put(o);
	}
}

static void versions(void **state)
{
	(void)state;
	assert_true(version_supported("1.0.0"));
	assert_true(version_supported("1.1.0"));
	assert_true(version_supported("0.4.0"));
	assert_true(version_supported("0.3.1"));
	assert_true(version_supported("0.3.0"));
	assert_false(version_supported("0.2.0"));
	assert_false(version_supported("1.2.0"));
	assert_false(version_supported(NULL));
	assert_true(version_before_1("0.3.1"));
	assert_false(version_before_1("1.0.0"));
	assert_true(version_at_least_1_1("1.1.0"));
	assert_false(version_at_least_1_1("1.0.0"));
	assert_false(version_at_least_1_1("0.4.0"));
}

/* The reference skel's gates: CHECK from 0.4.0, STATUS and GC from 1.1.0. */
static void version_gates(void **state)
{
	(void)state;
	assert_string_equal(command_refused("CHECK", "0.3.1"), "CHECK");
	assert_string_equal(command_refused("CHECK", "0.3.0"), "CHECK");
	assert_null(command_refused("CHECK", "0.4.0"));
	assert_null(command_refused("CHECK", "1.0.0"));
	assert_string_equal(command_refused("GC", "1.0.0"), "GC");
	assert_string_equal(command_refused("STATUS", "0.4.0"), "STATUS");
	assert_null(command_refused("GC", "1.1.0"));
	assert_null(command_refused("STATUS", "1.1.0"));
	assert_null(command_refused("ADD", "0.3.0"));
	assert_null(command_refused("DEL", "0.3.0"));
}

static void names_derived(void **state)
{
	struct cni_err e = { 0 }, eq = { 0 };
	struct plugin p = { .err = &e }, q = { .err = &eq };

	(void)state;
	p.id = "container-1";
	p.ifname = "eth0";
	derive_names(&p);
	assert_int_equal(strlen(p.host), 12);
	assert_int_equal(strncmp(p.host, "nk", 2), 0);
	assert_int_equal(strncmp(p.holder, "nl", 2), 0);
	assert_string_equal(p.host + 2, p.holder + 2);
	q.id = "container-1";
	q.ifname = "eth1";
	derive_names(&q);
	assert_string_not_equal(p.host, q.host);
}

static void ipnet_forms(void **state)
{
	struct nk_ipnet n;
	char buf[64];

	(void)state;
	assert_int_equal(ipnet_parse("10.1.0.5/16", true, &n), 0);
	assert_int_equal(n.family, AF_INET);
	assert_int_equal(n.plen, 16);
	assert_string_equal(ipnet_str(&n, true, buf, sizeof(buf)), "10.1.0.5/16");
	assert_int_equal(ipnet_parse("fd00::5", false, &n), 0);
	assert_int_equal(n.plen, 128);
	assert_string_equal(ipnet_str(&n, false, buf, sizeof(buf)), "fd00::5");
	assert_int_equal(ipnet_parse("10.1.0.5", true, &n), -1);
	assert_int_equal(ipnet_parse("10.1.0.5/33", true, &n), -1);
	assert_int_equal(ipnet_parse("10.1.0.5/", true, &n), -1);
	assert_int_equal(ipnet_parse(NULL, false, &n), -1);
}

static int net_of(const char *text, struct pod_net *net, char *why, size_t len)
{
	json_object *o = json_tokener_parse(text);
	int ret = pod_net_parse(o, net, why, len);

	json_object_put(o);
	return ret;
}

static const char *result4 =
	"{\"ips\":[{\"address\":\"10.1.0.5/16\",\"gateway\":\"10.1.0.1\"},"
	"{\"address\":\"fd00::5/64\",\"gateway\":\"fd00::1\"}],"
	"\"routes\":[{\"dst\":\"10.9.0.0/16\"},{\"dst\":\"192.168.0.0/16\",\"gw\":\"10.1.0.254\"}]}";

static void result_parsed(void **state)
{
	struct pod_net net;
	char why[256];

	(void)state;
	assert_int_equal(net_of(result4, &net, why, sizeof(why)), 0);
	assert_int_equal(net.n_ip, 2);
	assert_true(net.has_gw4 && net.has_gw6);
	assert_int_equal(net.n_route, 2);
	assert_false(net.route[0].has_gw);
	assert_true(net.route[1].has_gw);
}

static void result_refused(void **state)
{
	struct pod_net net;
	char why[256];

	(void)state;
	assert_int_equal(net_of("[]", &net, why, sizeof(why)), -1);
	assert_int_equal(net_of("{\"ips\":{}}", &net, why, sizeof(why)), -1);
	assert_int_equal(net_of("{\"ips\":[]}", &net, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "0 addresses"));
	assert_int_equal(net_of("{\"ips\":[{\"address\":\"10.0.0.1\"}]}", &net, why, sizeof(why)),
			 -1);
	assert_int_equal(net_of("{\"ips\":[{\"address\":\"10.0.0.1/8\",\"gateway\":\"fd00::1\"}]}",
				&net, why, sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "bad gateway"));
}

static void routes_completed(void **state)
{
	struct pod_net net;
	char why[256], buf[64];

	(void)state;
	assert_int_equal(net_of(result4, &net, why, sizeof(why)), 0);
	pod_net_routes(&net);
	/* the route without a gateway gets its family's; no default route of
	 * the plugin's own (a second network keeps the pod's) */
	assert_true(net.route[0].has_gw);
	assert_string_equal(ipnet_str(&net.route[0].gw, false, buf, sizeof(buf)), "10.1.0.1");
	assert_string_equal(ipnet_str(&net.route[1].gw, false, buf, sizeof(buf)), "10.1.0.254");
	assert_int_equal(net.n_route, 2);
}

static void routes_default_kept(void **state)
{
	struct pod_net net;
	char why[256];

	(void)state;
	assert_int_equal(net_of("{\"ips\":[{\"address\":\"10.1.0.5/16\",\"gateway\":\"10.1.0.1\"}],"
				"\"routes\":[{\"dst\":\"0.0.0.0/0\",\"gw\":\"10.1.0.9\"}]}",
				&net, why, sizeof(why)),
			 0);
	pod_net_routes(&net);
	assert_int_equal(net.n_route, 1);
}

static void address_words_built(void **state)
{
	struct pod_net net;
	char why[256], dsts[256], prefixes[256];

	(void)state;
	assert_int_equal(net_of(result4, &net, why, sizeof(why)), 0);
	address_words(&net, dsts, sizeof(dsts), prefixes, sizeof(prefixes));
	assert_string_equal(dsts, "10.1.0.5,fd00::5");
	assert_string_equal(prefixes, " prefix 10.1.0.5/32 prefix fd00::5/128");
}

/* print_result of result4 for p: the document (the caller puts it). */
static json_object *result_of(struct plugin *p, json_object *ipam)
{
	struct pod_net net;
	struct capture c;
	char why[256];
	struct nl_sock *r;
	json_object *doc;

	snprintf(p->host, sizeof(p->host), "nk-unit-none");
	snprintf(p->holder, sizeof(p->holder), "nl-unit-none");
	assert_int_equal(net_of(result4, &net, why, sizeof(why)), 0);
	pod_net_routes(&net);
	/* a socket here: the pair's names are not found, so no "mac" */
	r = podnet_open(-1);
	assert_non_null(r);
	capture_begin(&c, 1);
	print_result(p, &net, r, r, ipam);
	doc = json_tokener_parse(capture_end(&c));
	podnet_close(r);
	assert_non_null(doc);
	return doc;
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	assert_true(json_object_object_get_ex(o, key, &v));
	return v;
}

static void result_built(void **state)
{
	struct cni_err e = { 0 };
	struct plugin p = { .err = &e, .version = "1.0.0", .ifname = "eth0", .netns = "/run/netns/pod",
			    .queues = "4-7" };
	json_object *ipam = json_tokener_parse("{\"dns\":{\"nameservers\":[\"10.1.0.1\"]}}");
	json_object *doc, *v, *ip;

	(void)state;
	p.conf = json_tokener_parse("{}");
	doc = result_of(&p, ipam);
	assert_string_equal(json_object_get_string(get(doc, "cniVersion")), "1.0.0");
	/* the pair and the lease holder, both of them in the pod's sandbox */
	v = get(doc, "interfaces");
	assert_int_equal(json_object_array_length(v), 3);
	assert_string_equal(json_object_get_string(get(json_object_array_get_idx(v, 2), "name")),
			    "nl-unit-none");
	assert_string_equal(json_object_get_string(get(json_object_array_get_idx(v, 2), "sandbox")),
			    "/run/netns/pod");
	v = get(doc, "ips");
	assert_int_equal(json_object_array_length(v), 2);
	ip = json_object_array_get_idx(v, 0);
	assert_int_equal(json_object_get_int(get(ip, "interface")), 1);
	assert_false(json_object_object_get_ex(ip, "version", NULL));
	assert_int_equal(json_object_array_length(get(doc, "routes")), 2);
	get(get(doc, "dns"), "nameservers");
	json_object_put(doc);
	json_object_put(ipam);
	json_object_put(p.conf);
}

/* 0.3.x and 0.4.0: each of "ips" with its "version". */
static void result_old_shape(void **state)
{
	static const char *const old[] = { "0.3.0", "0.3.1", "0.4.0" };

	(void)state;
	for (size_t i = 0; i < N_ELEMS(old); i++) {
		struct cni_err e = { 0 };
		struct plugin p = { .err = &e, .version = old[i], .ifname = "eth0", .netns = "/run/netns/pod" };
		json_object *doc, *ips;

		p.conf = json_tokener_parse("{}");
		doc = result_of(&p, NULL);
		assert_string_equal(json_object_get_string(get(doc, "cniVersion")), old[i]);
		ips = get(doc, "ips");
		assert_string_equal(json_object_get_string(get(json_object_array_get_idx(ips, 0), "version")), "4");
		assert_string_equal(json_object_get_string(get(json_object_array_get_idx(ips, 1), "version")), "6");
		assert_int_equal(json_object_array_length(get(doc, "interfaces")), 2);
		json_object_put(doc);
		json_object_put(p.conf);
	}
}

/* In a chain: prevResult's interfaces, ips and routes come first, the
 * indexes of ours after them; the configuration's dns wins over IPAM's. */
static void result_chained(void **state)
{
	struct cni_err e = { 0 };
	struct plugin p = { .err = &e, .version = "1.1.0", .ifname = "eth0", .netns = "/run/netns/pod" };
	json_object *ipam = json_tokener_parse("{\"dns\":{\"nameservers\":[\"10.1.0.1\"]}}");
	json_object *doc, *v;

	(void)state;
	p.conf = json_tokener_parse(
		"{\"dns\":{\"nameservers\":[\"9.9.9.9\"]},\"prevResult\":{\"cniVersion\":\"1.1.0\","
		"\"interfaces\":[{\"name\":\"a\"},{\"name\":\"b\",\"sandbox\":\"/x\"}],"
		"\"ips\":[{\"address\":\"10.2.0.2/24\",\"interface\":1}],"
		"\"routes\":[{\"dst\":\"10.3.0.0/16\"}]}}");
	doc = result_of(&p, ipam);
	v = get(doc, "interfaces");
	assert_int_equal(json_object_array_length(v), 4);
	assert_string_equal(json_object_get_string(get(json_object_array_get_idx(v, 0), "name")), "a");
	v = get(doc, "ips");
	assert_int_equal(json_object_array_length(v), 3);
	assert_int_equal(json_object_get_int(get(json_object_array_get_idx(v, 0), "interface")), 1);
	assert_int_equal(json_object_get_int(get(json_object_array_get_idx(v, 1), "interface")), 3);
	assert_int_equal(json_object_array_length(get(doc, "routes")), 3);
	v = get(get(doc, "dns"), "nameservers");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 0)), "9.9.9.9");
	json_object_put(doc);
	json_object_put(ipam);
	json_object_put(p.conf);
}

static void status_kernel(void **state)
{
	json_object *doc = json_tokener_parse(
		"{\"kernel\":{\"features\":[{\"name\":\"netkit\",\"state\":\"yes\"},"
		"{\"name\":\"netkit-bpf\",\"state\":\"unknown\"},{\"name\":\"tcx\",\"state\":\"yes\"},"
		"{\"name\":\"netkit-single\",\"state\":\"no\"}]}}");

	(void)state;
	assert_null(status_kernel_lacks(doc, false));
	assert_string_equal(status_kernel_lacks(doc, true), "netkit-single");
	json_object_put(doc);
}

static void status_pool(void **state)
{
	json_object *doc = json_tokener_parse(
		"{\"nics\":[{\"queues\":[{\"id\":0},{\"id\":3},{\"id\":4,\"lease\":{}},{\"id\":5},"
		"{\"id\":6,\"dmabuf\":1},{\"id\":7}]}]}");

	(void)state;
	assert_true(pool_has("1,3-5", 3));
	assert_true(pool_has("1,3-5", 5));
	assert_true(pool_has("1,3-5", 1));
	assert_false(pool_has("1,3-5", 2));
	assert_false(pool_has("1,3-5", 6));
	assert_false(pool_has("x", 0));
	assert_int_equal(status_pool_free(doc, "4-7"), 2);
	assert_int_equal(status_pool_free(doc, "3-5"), 2);
	assert_int_equal(status_pool_free(doc, "4"), 0);
	json_object_put(doc);
}

/* CHECK of a steering rule: into the lease's queue, or (multi-queue) into
 * an RSS context whose table names only the pod's queues; what is wrong
 * is said. The leases and rss-contexts as nkctl prints them. */
static void check_steering(void **state)
{
	json_object *leases = json_tokener_parse(
		"{\"leases\":["
		"{\"ifname\":\"eth1\",\"id\":4,\"lease\":{\"ifname\":\"nlpod\",\"netns\":\"p\"},"
		"\"rules\":[{\"id\":7,\"dst\":\"10.1.0.5\",\"queue\":0,\"context\":1}]},"
		"{\"ifname\":\"eth1\",\"id\":5,\"lease\":{\"ifname\":\"nlpod\",\"netns\":\"p\"},"
		"\"rules\":[{\"id\":7,\"dst\":\"10.1.0.5\",\"queue\":0,\"context\":1}]},"
		"{\"ifname\":\"eth1\",\"id\":6,\"lease\":{\"ifname\":\"nlother\"},"
		"\"rules\":[{\"id\":8,\"dst\":\"10.1.0.6\",\"queue\":6}]},"
		"{\"ifname\":\"eth1\",\"id\":9,\"lease\":{\"ifname\":\"nlthird\"},"
		"\"rules\":[{\"id\":3,\"dst\":\"10.1.0.9\",\"queue\":2}]}]}");
	json_object *nics = json_tokener_parse(
		"{\"nics\":[{\"rss-contexts\":[{\"context\":1,\"queues\":[4,5],\"more-queues\":false},"
		"{\"context\":2,\"queues\":[5,6],\"more-queues\":false}]}]}");
	json_object *wrong = json_tokener_parse(
		"{\"nics\":[{\"rss-contexts\":[{\"context\":1,\"queues\":[0,4,5]}]}]}");
	json_object *other = json_tokener_parse(
		"{\"nics\":[{\"rss-contexts\":[{\"context\":2,\"queues\":[4,5]}]}]}");
	json_object *l;
	struct nk_ipnet a5, a6, a9, a7;
	char why[256];

	(void)state;
	assert_int_equal(ipnet_parse("10.1.0.5", false, &a5), 0);
	assert_int_equal(ipnet_parse("10.1.0.6", false, &a6), 0);
	assert_int_equal(ipnet_parse("10.1.0.9", false, &a9), 0);
	assert_int_equal(ipnet_parse("10.1.0.7", false, &a7), 0);
	json_object_object_get_ex(leases, "leases", &l);
	assert_true(check_steered("eth1", "nlpod", l, nics, &a5, why, sizeof(why)));
	assert_false(check_steered("eth1", "nlpod", l, wrong, &a5, why, sizeof(why)));
	assert_string_equal(why, "rule 7 into RSS context 1: RSS context 1 of eth1 spreads over queue 0, "
				 "not a leased one");
	assert_false(check_steered("eth1", "nlpod", l, other, &a5, why, sizeof(why)));
	assert_string_equal(why, "rule 7 into RSS context 1: eth1 has no RSS context 1");
	assert_false(check_steered("eth1", "nlpod", l, NULL, &a5, why, sizeof(why)));
	assert_false(check_steered("eth1", "nlpod", l, nics, &a6, why, sizeof(why)));
	assert_string_equal(why, "no rule of the pod's leases names it");
	assert_true(check_steered("eth1", "nlother", l, NULL, &a6, why, sizeof(why)));
	assert_false(check_steered("eth2", "nlother", l, NULL, &a6, why, sizeof(why)));
	assert_false(check_steered("eth1", "nlthird", l, NULL, &a9, why, sizeof(why)));
	assert_string_equal(why, "rule 3 sends it to queue 2, not the leased 9");
	assert_false(check_steered("eth1", "nlthird", l, NULL, &a7, why, sizeof(why)));
	json_object_put(leases);
	json_object_put(nics);
	json_object_put(wrong);
	json_object_put(other);
}

/* A fake kernel for check_interfaces: eth0 and nkh1 in the pod, nk1 in the
 * host, with these hardware addresses. */
static bool fake_mac(const char *ifname, bool in_pod, char *mac, size_t len, void *data)
{
	(void)data;
	if (in_pod && !strcmp(ifname, "eth0"))
		snprintf(mac, len, "0a:00:00:00:00:01");
	else if (in_pod && !strcmp(ifname, "nkh1"))
		snprintf(mac, len, "%s", "");
	else if (!in_pod && !strcmp(ifname, "nk1"))
		snprintf(mac, len, "%s", "");
	else
		return false;
	return true;
}

static int interfaces_of(const struct plugin *p, const char *prev, char *why, size_t len)
{
	json_object *o = json_tokener_parse(prev);
	int ret;

	assert_non_null(o);
	ret = check_interfaces(p, o, fake_mac, NULL, why, len);
	json_object_put(o);
	return ret;
}

/* CHECK of prevResult's interfaces and IP interface indexes: the plugin's
 * own in their place (sandbox) with their mac; a chain's others left
 * alone; each IP on the pod's interface. */
static void check_interfaces_compared(void **state)
{
	struct cni_err e = { 0 };
	struct plugin p = { .err = &e, .ifname = "eth0", .netns = "/run/netns/p", .queues = "1-3",
			    .host = "nk1", .holder = "nkh1" };
	const char *ok = "{\"interfaces\":[{\"name\":\"other0\"},{\"name\":\"nk1\"},"
			 "{\"name\":\"eth0\",\"mac\":\"0A:00:00:00:00:01\",\"sandbox\":\"/run/netns/p\"},"
			 "{\"name\":\"nkh1\",\"sandbox\":\"/run/netns/p\"}],"
			 "\"ips\":[{\"address\":\"10.0.0.2/24\",\"interface\":2}]}";
	char why[256];

	(void)state;
	assert_int_equal(interfaces_of(&p, ok, why, sizeof(why)), 0);
	assert_int_equal(interfaces_of(&p, "{\"ips\":[{\"address\":\"10.0.0.2/24\"}]}", why,
				       sizeof(why)), 0);
	assert_int_equal(interfaces_of(&p, "{\"interfaces\":[{\"name\":\"eth0\",\"sandbox\":\"/run/netns/q\"}]}",
				       why, sizeof(why)), -1);
	assert_string_equal(why, "interfaces[0] eth0: sandbox \"/run/netns/q\", not /run/netns/p");
	assert_int_equal(interfaces_of(&p, "{\"interfaces\":[{\"name\":\"nk1\",\"sandbox\":\"/run/netns/p\"},"
					   "{\"name\":\"eth0\",\"sandbox\":\"/run/netns/p\"}]}",
				       why, sizeof(why)), -1);
	assert_string_equal(why, "interfaces[0] nk1: sandbox \"/run/netns/p\", not the host's (none)");
	assert_int_equal(interfaces_of(&p, "{\"interfaces\":[{\"name\":\"eth0\",\"mac\":\"0a:00:00:00:00:02\","
					   "\"sandbox\":\"/run/netns/p\"}]}", why, sizeof(why)), -1);
	assert_string_equal(why, "eth0's hardware address is 0a:00:00:00:00:01, not 0a:00:00:00:00:02");
	assert_int_equal(interfaces_of(&p, "{\"interfaces\":[{\"name\":\"eth0\",\"sandbox\":\"/run/netns/p\"},"
					   "{\"name\":\"nkh1\",\"mac\":\"0a:00:00:00:00:03\",\"sandbox\":\"/run/netns/p\"}]}",
				       why, sizeof(why)), -1);
	assert_string_equal(why, "nkh1's hardware address is none, not 0a:00:00:00:00:03");
	strcpy(p.holder, "nkh2");
	strcpy(p.host, "nk2");
	assert_int_equal(interfaces_of(&p, "{\"interfaces\":[{\"name\":\"eth0\",\"sandbox\":\"/run/netns/p\"},"
					   "{\"name\":\"nkh2\",\"sandbox\":\"/run/netns/p\"}]}", why, sizeof(why)), -1);
	assert_string_equal(why, "nkh2 is missing in the container");
	strcpy(p.holder, "nkh1");
	strcpy(p.host, "nk1");
	assert_int_equal(interfaces_of(&p, "{\"interfaces\":[{\"name\":\"nk1\"}]}", why, sizeof(why)), -1);
	assert_string_equal(why, "interfaces names no eth0 in /run/netns/p");
	assert_int_equal(interfaces_of(&p, "{\"interfaces\":[{\"name\":\"nk1\"},{\"name\":\"eth0\","
					   "\"sandbox\":\"/run/netns/p\"}],\"ips\":[{\"address\":\"10.0.0.2/24\","
					   "\"interface\":0}]}", why, sizeof(why)), -1);
	assert_string_equal(why, "ips[0] names interface 0, not eth0 in the container");
	assert_int_equal(interfaces_of(&p, "{\"interfaces\":[{\"name\":\"eth0\",\"sandbox\":\"/run/netns/p\"}],"
					   "\"ips\":[{\"address\":\"10.0.0.2/24\",\"interface\":1}]}",
				       why, sizeof(why)), -1);
	assert_int_equal(interfaces_of(&p, "{\"interfaces\":[{\"name\":\"eth0\",\"sandbox\":\"/run/netns/p\"}],"
					   "\"ips\":[{\"address\":\"10.0.0.2/24\",\"interface\":\"0\"}]}",
				       why, sizeof(why)), -1);
	assert_int_equal(interfaces_of(&p, "{\"interfaces\":[{\"mac\":\"x\"}]}", why, sizeof(why)), -1);
	assert_string_equal(why, "interfaces[0] has no name");
}

/* GC's batch: the NIC queues a holder leases, from show leases. */
static void gc_holder_queues(void **state)
{
	json_object *doc = json_tokener_parse(
		"{\"leases\":["
		"{\"ifname\":\"eth1\",\"id\":4,\"lease\":{\"ifname\":\"nkh1\",\"netns\":\"p\"}},"
		"{\"ifname\":\"eth1\",\"id\":9,\"lease\":{\"ifname\":\"nkh2\"}},"
		"{\"ifname\":\"eth1\",\"id\":5,\"lease\":{\"ifname\":\"nkh1\",\"netns\":\"p\"}},"
		"{\"ifname\":\"eth2\",\"id\":6,\"lease\":{\"ifname\":\"nkh1\"}},"
		"{\"ifname\":\"eth1\",\"netns\":\"n\",\"id\":7,\"lease\":{\"ifname\":\"nkh1\"}}]}");
	json_object *l = NULL;
	char buf[16], tiny[3];

	(void)state;
	json_object_object_get_ex(doc, "leases", &l);
	assert_int_equal(holder_queue_list(l, "eth1", "nkh1", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "4,5");
	assert_int_equal(holder_queue_list(l, "eth1", "nkh3", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(holder_queue_list(l, "eth1", "nkh1", tiny, sizeof(tiny)), -1);
	assert_int_equal(holder_queue_list(NULL, "eth1", "nkh1", buf, sizeof(buf)), 0);
	json_object_put(doc);
}

/* GC's mark: the alias names network, container, interface, namespace;
 * another network's or another tool's alias is not ours. */
static void gc_alias(void **state)
{
	struct cni_err e = { 0 };
	struct plugin p = { .err = &e, .name = "nk", .nic = "eth1", .id = "c0ffee", .ifname = "eth0",
			    .netns = "/run/netns/pod1" };
	struct plugin other_nic = p;
	struct attachment a;
	char alias[512], longns[300], owner[300], owner2[300];

	(void)state;
	attachment_owner(&p, owner, sizeof(owner));
	assert_int_equal(strncmp(owner, "nk/", 3), 0);
	assert_int_equal(strlen(owner), 11);
	/* a network of the same name on another NIC is another owner */
	other_nic.nic = "eth2";
	attachment_owner(&other_nic, owner2, sizeof(owner2));
	assert_string_not_equal(owner, owner2);
	assert_int_equal(attachment_alias(&p, alias, sizeof(alias)), 0);
	assert_int_equal(strncmp(alias, "nkctl-cni nk/", 13), 0);
	assert_non_null(strstr(alias, " c0ffee eth0 /run/netns/pod1"));
	assert_true(attachment_parse(alias, owner, &a));
	assert_string_equal(a.id, "c0ffee");
	assert_string_equal(a.ifname, "eth0");
	assert_string_equal(a.netns, "/run/netns/pod1");
	assert_false(attachment_parse(alias, owner2, &a));
	assert_false(attachment_parse(alias, "nk", &a));
	/* an older plugin's alias (the name alone) is no owner's */
	assert_false(attachment_parse("nkctl-cni nk c0ffee eth0 -", owner, &a));
	assert_false(attachment_parse("cilium nk c0ffee eth0 -", owner, &a));
	assert_false(attachment_parse("nkctl-cni nk c0ffee", owner, &a));
	/* a namespace path too long for an alias is left out */
	memset(longns, 'x', sizeof(longns) - 1);
	longns[sizeof(longns) - 1] = '\0';
	p.netns = longns;
	assert_int_equal(attachment_alias(&p, alias, sizeof(alias)), 0);
	assert_true(strlen(alias) < 256);
	assert_true(attachment_parse(alias, owner, &a));
	assert_string_equal(a.netns, "");
}

static void gc_valid(void **state)
{
	json_object *valid = json_tokener_parse(
		"[{\"containerID\":\"a\",\"ifname\":\"eth0\"},{\"containerID\":\"b\",\"ifname\":\"net1\"}]");

	(void)state;
	assert_true(attachment_valid(valid, "a", "eth0"));
	assert_true(attachment_valid(valid, "b", "net1"));
	assert_false(attachment_valid(valid, "b", "eth0"));
	assert_false(attachment_valid(valid, "c", "eth0"));
	json_object_put(valid);
}

/* Both names of GC's list: the spec's, and the earlier text's that libcni
 * sends too; the spec's first. */
static void gc_valid_keys(void **state)
{
	json_object *both = json_tokener_parse("{\"cni.dev/valid-attachments\":[1],\"cni.dev/attachments\":[1,2]}");
	json_object *old = json_tokener_parse("{\"cni.dev/attachments\":[1,2]}");
	json_object *none = json_tokener_parse("{\"name\":\"nk\"}");

	(void)state;
	assert_int_equal(json_object_array_length(gc_valid_of(both)), 1);
	assert_int_equal(json_object_array_length(gc_valid_of(old)), 2);
	assert_null(gc_valid_of(none));
	json_object_put(both);
	json_object_put(old);
	json_object_put(none);
}

/* One lock per attachment: held, another taker waits (bounded) or is told
 * it is busy; a child that inherited the descriptor holds it after the
 * parent let go (a killed ADD's nkctl finishing its syscall); a finished
 * DEL removes the file, and the next taker makes it anew. */
static void attachment_locks(void **state)
{
	char dir[] = "/tmp/nkcni-lock-XXXXXX", path[600];
	int fd, fd2, st;
	pid_t child;

	(void)state;
	assert_non_null(mkdtemp(dir));
	setenv("NKCTL_CNI_LOCK_DIR", dir, 1);
	assert_int_equal(attachment_lock("c1", "eth0", 0, &fd), 0);
	assert_int_equal(attachment_lock("c1", "eth0", 0, &fd2), -EWOULDBLOCK);
	assert_int_equal(fd2, -1);
	assert_int_equal(attachment_lock("c1", "eth1", 0, &fd2), 0);   /* another attachment */
	attachment_unlock("c1", "eth1", fd2, true);
	/* a child holds the inherited lock until it exits */
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		usleep(300 * 1000);
		_exit(0);
	}
	close(fd);
	assert_int_equal(attachment_lock("c1", "eth0", 0, &fd2), -EWOULDBLOCK);
	assert_int_equal(attachment_lock("c1", "eth0", 5000, &fd), 0);  /* waited for it */
	assert_int_equal(waitpid(child, &st, 0), child);
	/* gone: the file goes, and a new taker makes it anew */
	snprintf(path, sizeof(path), "%s/c1-eth0", dir);
	attachment_unlock("c1", "eth0", fd, true);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(attachment_lock("c1", "eth0", 0, &fd), 0);
	assert_int_equal(access(path, F_OK), 0);
	attachment_unlock("c1", "eth0", fd, true);
	unsetenv("NKCTL_CNI_LOCK_DIR");
	assert_int_equal(rmdir(dir), 0);
}

/* GC's other source: a pod information file names its network's
 * attachment on its NIC (no namespace) and its NIC queues; another
 * network's or NIC's names none; a file without the fields, or with names
 * ADD would refuse, is refused with a reason. */
static void gc_info_file(void **state)
{
	json_object *o = json_tokener_parse("{\"network\":\"nk\",\"containerID\":\"default-c1\","
					    "\"ifname\":\"eth0\",\"holder\":\"nl0123456789\",\"nic\":\"eth1\","
					    "\"queues\":[{\"id\":1,\"nic-queue\":4},{\"id\":2,\"nic-queue\":5}]}");
	json_object *oddq = json_tokener_parse("{\"network\":\"nk\",\"containerID\":\"c2\","
					       "\"ifname\":\"eth0\",\"nic\":\"eth1\","
					       "\"queues\":[{\"id\":1,\"nic-queue\":4},{\"id\":2,\"nic-queue\":\"5\"}]}");
	json_object *bad = json_tokener_parse("{\"network\":\"nk\",\"containerID\":\"c\","
					      "\"ifname\":\"eth0123456789abcdef\",\"nic\":\"eth1\"}");
	json_object *noid = json_tokener_parse("{\"network\":\"nk\",\"ifname\":\"eth0\",\"nic\":\"eth1\"}");
	struct attachment a;
	const char *why;

	(void)state;
	assert_int_equal(attachment_from_info(o, "default-c1-eth0.json", "nk", "eth1", &a, &why), 1);
	assert_null(why);
	assert_string_equal(a.id, "default-c1");
	assert_string_equal(a.ifname, "eth0");
	assert_string_equal(a.netns, "");
	assert_string_equal(a.queues, "4,5");
	/* a queue that is not a number: the queues are not known */
	assert_int_equal(attachment_from_info(oddq, "c2-eth0.json", "nk", "eth1", &a, &why), 1);
	assert_string_equal(a.queues, "");
	assert_int_equal(attachment_from_info(o, "default-c1-eth0.json", "nk2", "eth1", &a, &why), 0);
	assert_null(why);
	assert_int_equal(attachment_from_info(o, "default-c1-eth0.json", "nk", "eth2", &a, &why), 0);
	assert_int_equal(attachment_from_info(bad, "c-eth0.json", "nk", "eth1", &a, &why), -1);
	assert_non_null(why);
	assert_int_equal(attachment_from_info(noid, "c-eth0.json", "nk", "eth1", &a, &why), -1);
	assert_non_null(why);
	json_object_put(o);
	json_object_put(oddq);
	json_object_put(bad);
	json_object_put(noid);
}

/* GC's device group: never 0, in its own range, one per process id. */
static void gc_device_group(void **state)
{
	(void)state;
	assert_int_equal(gc_group(1), CNI_GC_GROUP_BASE | 1);
	assert_int_equal(gc_group(4194303), CNI_GC_GROUP_BASE | 0x3fffff);
	assert_true(gc_group(0) != 0);
	assert_true(gc_group(1234) != gc_group(1235));
	/* ip's parser takes groups below 2^31 */
	assert_true(gc_group(4194303) < 0x80000000u);
}

/* GC's IPAM DELs at once: one a CPU, 2 to 8. */
static void gc_width(void **state)
{
	(void)state;
	assert_int_equal(gc_ipam_width(-1), 2);
	assert_int_equal(gc_ipam_width(1), 2);
	assert_int_equal(gc_ipam_width(2), 2);
	assert_int_equal(gc_ipam_width(5), 5);
	assert_int_equal(gc_ipam_width(8), 8);
	assert_int_equal(gc_ipam_width(64), 8);
}

/* The pod's information file: the holder and each lease's two queue ids,
 * from the lease's reply; DEL's removal, twice. */
static void pod_info(void **state)
{
	char dir[] = "/tmp/nkcni-unit-XXXXXX", sub[64], path[128], target[128], why[256], buf[512];
	struct stat st;
	struct cni_err e = { 0 };
	struct plugin p = { .err = &e, .name = "pods", .id = "c1", .ifname = "eth0", .nic = "eth1",
			    .holder = "nkhabc" };
	json_object *leases = json_tokener_parse(
		"{\"leases\":[{\"id\":5,\"lease\":{\"queue\":{\"id\":1,\"type\":\"rx\"}}},"
		"{\"id\":6,\"lease\":{\"queue\":{\"id\":2,\"type\":\"rx\"}}}]}");
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/a/b", dir);
	p.info_dir = sub;
	assert_int_equal(pod_info_write(&p, leases, why, sizeof(why)), 0);
	snprintf(path, sizeof(path), "%s/c1-eth0.json", sub);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "{\"network\":\"pods\",\"containerID\":\"c1\",\"ifname\":\"eth0\","
			    "\"holder\":\"nkhabc\",\"nic\":\"eth1\",\"queues\":[{\"id\":1,\"nic-queue\":5},"
			    "{\"id\":2,\"nic-queue\":6}]}\n");
	assert_int_equal(pod_info_remove(&p, why, sizeof(why)), 0);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(pod_info_remove(&p, why, sizeof(why)), 0);
	/* the directory 0700; a link at the temporary name is not followed,
	 * a link in the directory's place is refused */
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	snprintf(path, sizeof(path), "%s/.c1-eth0.json.tmp", sub);
	snprintf(target, sizeof(target), "%s/victim", dir);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(pod_info_write(&p, leases, why, sizeof(why)), 0);
	assert_int_equal(access(target, F_OK), -1);
	assert_int_equal(pod_info_remove(&p, why, sizeof(why)), 0);
	snprintf(path, sizeof(path), "%s/linked", dir);
	assert_int_equal(symlink(sub, path), 0);
	p.info_dir = path;
	assert_int_equal(pod_info_write(&p, leases, why, sizeof(why)), -1);
	json_object_put(leases);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

/* nkctl -j's stderr: the command's error is the {"error"} object, never a
 * sweep's {"warning"} whatever its words, nor a text line. */
static void nkctl_error_object(void **state)
{
	char msg[64];

	(void)state;
	assert_true(nk_error_line("{\"error\":{\"message\":\"queue 3 is busy\",\"exit\":4}}",
				  msg, sizeof(msg)));
	assert_string_equal(msg, "queue 3 is busy");
	assert_false(nk_error_line("{\"warning\":{\"message\":\"Error: sim1: queue 2: gone\"}}",
				   msg, sizeof(msg)));
	assert_false(nk_error_line("Error: a text line", msg, sizeof(msg)));
	assert_false(nk_error_line("{\"error\":{\"file\":\"-\",\"line\":1,\"status\":4}}", msg,
				   sizeof(msg)));
	assert_false(nk_error_line("{\"error\":", msg, sizeof(msg)));
	assert_false(nk_error_line("", msg, sizeof(msg)));
}

/* A session's failed line takes its own error object: a sweep's warning
 * said first (on another pod's NIC, its words holding "Error: ") is not
 * mistaken for it. */
static void nkctl_session_error(void **state)
{
	char path[] = "/tmp/nkctl-unit-XXXXXX";
	const char *script = "#!/bin/sh\nread line\n"
		"echo '{\"warning\":{\"message\":\"sim9: Error: other pod\"}}' >&2\n"
		"echo '{\"error\":{\"message\":\"device \\\"x\\\" does not exist\",\"exit\":3}}' >&2\n"
		"echo '{\"error\":{\"file\":\"-\",\"line\":1,\"status\":3}}'\n";
	struct nk_session s;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, script, strlen(script)), (ssize_t)strlen(script));
	fchmod(fd, 0700);
	close(fd);
	assert_int_equal(nks_start(&s, path, NULL), 0);
	assert_int_equal(nks_run(&s, NULL, "link del x"), 3);
	assert_string_equal(s.err, "device \"x\" does not exist");
	nks_end(&s);
	unlink(path);
}

/* A child that writes far more than a pipe holds to stderr before its
 * answer: both are read to the end, none blocks. */
static void child_chatty(void **state)
{
	char *argv[] = { "/bin/sh", "-c", "head -c 300000 /dev/zero | tr '\\0' x >&2; echo answer",
			 NULL };
	struct child c;
	char *out, *err;

	(void)state;
	assert_int_equal(child_start(&c, argv, NULL, NULL), 0);
	close(c.in);
	c.in = -1;
	child_read_out_err(&c, &out, &err);
	assert_int_equal(child_wait(&c), 0);
	assert_string_equal(out, "answer\n");
	assert_int_equal(strlen(err), 300000);
	free(out);
	free(err);
}

/* A child dies with the plugin (PR_SET_PDEATHSIG): a runtime that kills a
 * slow ADD leaves no IPAM plugin or nkctl behind. */
static void child_dies_with_parent(void **state)
{
	int fd[2];
	pid_t mid, grandchild = 0;

	(void)state;
	assert_int_equal(pipe(fd), 0);
	mid = fork();
	assert_true(mid >= 0);
	if (!mid) {
		char *argv[] = { "/bin/sleep", "30", NULL };
		struct child c;

		if (child_start(&c, argv, NULL, NULL))
			_exit(1);
		if (write(fd[1], &c.pid, sizeof(c.pid)) != sizeof(c.pid))
			_exit(1);
		_exit(0);	/* the plugin "killed" */
	}
	close(fd[1]);
	assert_int_equal(read(fd[0], &grandchild, sizeof(grandchild)), sizeof(grandchild));
	close(fd[0]);
	waitpid(mid, NULL, 0);
	for (int i = 0; i < 200 && kill(grandchild, 0) == 0; i++)
		usleep(10000);
	assert_int_equal(kill(grandchild, 0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(conf_full),
		cmocka_unit_test(conf_defaults),
		cmocka_unit_test(conf_refused),
		cmocka_unit_test(versions),
		cmocka_unit_test(version_gates),
		cmocka_unit_test(names_derived),
		cmocka_unit_test(ipnet_forms),
		cmocka_unit_test(result_parsed),
		cmocka_unit_test(result_refused),
		cmocka_unit_test(routes_completed),
		cmocka_unit_test(routes_default_kept),
		cmocka_unit_test(address_words_built),
		cmocka_unit_test(result_built),
		cmocka_unit_test(result_old_shape),
		cmocka_unit_test(result_chained),
		cmocka_unit_test(env_checked),
		cmocka_unit_test(env_del_netns_space),
		cmocka_unit_test(env_status_no_container),
		cmocka_unit_test(conf_name_checked),
		cmocka_unit_test(conf_cni_versions),
		cmocka_unit_test(status_kernel),
		cmocka_unit_test(status_pool),
		cmocka_unit_test(check_steering),
		cmocka_unit_test(check_interfaces_compared),
		cmocka_unit_test(gc_holder_queues),
		cmocka_unit_test(gc_alias),
		cmocka_unit_test(gc_valid),
		cmocka_unit_test(gc_valid_keys),
		cmocka_unit_test(attachment_locks),
		cmocka_unit_test(gc_info_file),
		cmocka_unit_test(conf_ipam_version),
		cmocka_unit_test(gc_device_group),
		cmocka_unit_test(gc_width),
		cmocka_unit_test(pod_info),
		cmocka_unit_test(child_chatty),
		cmocka_unit_test(nkctl_error_object),
		cmocka_unit_test(nkctl_session_error),
		cmocka_unit_test(child_dies_with_parent),
	};

	return cmocka_run_group_tests_name("cni", tests, NULL, NULL);
}
