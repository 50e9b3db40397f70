// SPDX-License-Identifier: GPL-2.0
/* examples/cni: the network configuration (main.c), a result's ips and
 * routes (ipnet.c), and the ADD result built from them (add.c). A refused
 * configuration exits with a CNI error object: those run in a child. */
#include <arpa/inet.h>
#include <sys/wait.h>

#include "unit.h"

#include "../../examples/cni/cni.h"

/* read_conf of text in a child: its exit status and standard output. */
static int conf_child(const char *text, char *out, size_t len)
{
	int fd[2], status;
	pid_t pid;
	ssize_t n;

	assert_int_equal(pipe(fd), 0);
	fflush(stdout);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct plugin p = { 0 };

		dup2(fd[1], 1);
		p.conf = json_tokener_parse(text);
		read_conf(&p);
		_exit(0);
	}
	close(fd[1]);
	n = read(fd[0], out, len - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fd[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void conf_full(void **state)
{
	struct plugin p = { 0 };

	(void)state;
	p.conf = json_tokener_parse("{\"cniVersion\":\"1.0.0\",\"nic\":\"eth1\",\"queues\":\"4-7\","
				    "\"queuesPerPod\":2,\"steer\":false,\"ipam\":{\"type\":\"host-local\"}}");
	read_conf(&p);
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
	struct plugin p = { 0 };

	(void)state;
	p.conf = json_tokener_parse("{\"nic\":\"eth1\",\"queues\":null}");
	read_conf(&p);
	assert_null(p.queues);
	assert_null(p.ipam_type);
	assert_int_equal(p.per_pod, 1);
	assert_true(p.steer);
	json_object_put(p.conf);
}

static void conf_refused(void **state)
{
	const char *bad[] = { "{\"nic\":7}", "{\"queuesPerPod\":0}", "{\"queuesPerPod\":17}",
			      "{\"queuesPerPod\":\"2\"}", "{\"ipam\":{\"type\":[]}}" };
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
	assert_false(version_supported("0.4.0"));
	assert_false(version_supported(NULL));
}

static void names_derived(void **state)
{
	struct plugin p = { 0 }, q = { 0 };

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
	struct ipnet n;
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
	/* the route without a gateway gets its family's; a default per family */
	assert_true(net.route[0].has_gw);
	assert_string_equal(ipnet_str(&net.route[0].gw, false, buf, sizeof(buf)), "10.1.0.1");
	assert_string_equal(ipnet_str(&net.route[1].gw, false, buf, sizeof(buf)), "10.1.0.254");
	assert_int_equal(net.n_route, 4);
	assert_int_equal(net.route[2].dst.plen, 0);
	assert_int_equal(net.route[2].dst.family, AF_INET);
	assert_int_equal(net.route[3].dst.family, AF_INET6);
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

static void result_built(void **state)
{
	struct plugin p = { .version = "1.0.0", .ifname = "eth0", .netns = "/run/netns/pod" };
	struct pod_net net;
	struct capture c;
	json_object *ipam = json_tokener_parse("{\"dns\":{\"nameservers\":[\"10.1.0.1\"]}}");
	json_object *doc, *v;
	char why[256];
	const char *out;
	struct rtnl *r;

	(void)state;
	snprintf(p.host, sizeof(p.host), "nk-unit-none");
	assert_int_equal(net_of(result4, &net, why, sizeof(why)), 0);
	pod_net_routes(&net);
	/* a socket here: the pair's names are not found, so no "mac" */
	r = rtnl_open_in(-1);
	assert_non_null(r);
	capture_begin(&c, 1);
	print_result(&p, &net, r, r, ipam);
	out = capture_end(&c);
	rtnl_close(r);
	doc = json_tokener_parse(out);
	assert_non_null(doc);
	assert_true(json_object_object_get_ex(doc, "cniVersion", &v));
	assert_string_equal(json_object_get_string(v), "1.0.0");
	assert_true(json_object_object_get_ex(doc, "interfaces", &v));
	assert_int_equal(json_object_array_length(v), 2);
	assert_true(json_object_object_get_ex(doc, "ips", &v));
	assert_int_equal(json_object_array_length(v), 2);
	assert_true(json_object_object_get_ex(doc, "routes", &v));
	assert_int_equal(json_object_array_length(v), 4);
	assert_true(json_object_object_get_ex(doc, "dns", &v));
	assert_true(json_object_object_get_ex(v, "nameservers", &v));
	json_object_put(doc);
	json_object_put(ipam);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(conf_full),
		cmocka_unit_test(conf_defaults),
		cmocka_unit_test(conf_refused),
		cmocka_unit_test(versions),
		cmocka_unit_test(names_derived),
		cmocka_unit_test(ipnet_forms),
		cmocka_unit_test(result_parsed),
		cmocka_unit_test(result_refused),
		cmocka_unit_test(routes_completed),
		cmocka_unit_test(routes_default_kept),
		cmocka_unit_test(address_words_built),
		cmocka_unit_test(result_built),
	};

	return cmocka_run_group_tests_name("cni", tests, NULL, NULL);
}
