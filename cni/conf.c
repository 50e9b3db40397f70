// SPDX-License-Identifier: GPL-2.0
/* The configuration and the environment, checked (cni_setup): every value
 * a command goes on to use, or the error that says what is wrong with it;
 * VERSION's answer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf.h"
#include "attachname.h"
#include "cni.h"
#include "report.h"

/* Oldest first: VERSION lists them in this order, and a configuration's
 * cniVersions array takes the newest it shares with this list. */
static const char *const supported[] = { "0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0" };
#define N_SUPPORTED (sizeof(supported) / sizeof(supported[0]))
/* VERSION answers in the version it was asked in (the newest when that one
 * is not ours or none was given). */
int print_version(const char *asked)
{
	json_object *o = json_object_new_object(), *list = json_object_new_array();
	const char *v = version_supported(asked) ? asked : supported[N_SUPPORTED - 1];

	for (size_t i = 0; i < N_SUPPORTED; i++)
		json_object_array_add(list, json_object_new_string(supported[i]));
	json_object_object_add(o, "cniVersion", json_object_new_string(v));
	json_object_object_add(o, "supportedVersions", list);
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return 0;
}

static const char *conf_str(const struct plugin *p, json_object *o, const char *key);

bool version_supported(const char *v)
{
	for (size_t i = 0; i < N_SUPPORTED; i++)
		if (v && !strcmp(v, supported[i]))
			return true;
	return false;
}

/* 0.3.0, 0.3.1 and 0.4.0 results: "version" in each of "ips". */
bool version_before_1(const char *v)
{
	return v && !strncmp(v, "0.", 2);
}

/* 1.1.0 and later: "mtu" in "interfaces", STATUS and GC. */
bool version_at_least_1_1(const char *v)
{
	return v && strcmp(v, "1.1.0") >= 0 && !version_before_1(v);
}

/* The reference skel's gates (libcni's pkg/skel): CHECK came with 0.4.0,
 * STATUS and GC with 1.1.0; a configuration of an older version does not
 * allow them. NULL when command is allowed for version. */
const char *command_refused(const char *command, const char *version)
{
	if (!strcmp(command, "CHECK") && version && strcmp(version, "0.4.0") < 0)
		return "CHECK";
	if ((!strcmp(command, "STATUS") || !strcmp(command, "GC")) && !version_at_least_1_1(version))
		return command;
	return NULL;
}

/* The newest version of a conflist's "cniVersions" (libcni 1.2) that is
 * ours: where "cniVersion" is absent, it is the one spoken. */
static const char *newest_of(const struct plugin *p, json_object *list)
{
	const char *best = NULL;

	if (!json_object_is_type(list, json_type_array))
		return cni_error(p, CNI_ERR_DECODE, "\"cniVersions\" must be an array of strings"), NULL;
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		json_object *v = json_object_array_get_idx(list, i);

		if (!json_object_is_type(v, json_type_string))
			return cni_error(p, CNI_ERR_DECODE,
					 "\"cniVersions\" must be an array of strings"), NULL;
		for (size_t k = 0; k < N_SUPPORTED; k++)
			if (!strcmp(json_object_get_string(v), supported[k]) &&
			    (!best || strcmp(best, supported[k]) < 0))
				best = supported[k];
	}
	return best;
}

static const char *conf_version(struct plugin *p)
{
	json_object *list;
	const char *v;

	v = conf_str(p, p->conf, "cniVersion");
	if (!v && json_object_object_get_ex(p->conf, "cniVersions", &list))
		v = newest_of(p, list);
	return v;
}

static const char *conf_str(const struct plugin *p, json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return NULL;
	if (!json_object_is_type(v, json_type_string))
		return cni_error(p, CNI_ERR_CONFIG, "\"%s\" must be a string", key), NULL;
	return json_object_get_string(v);
}

/* The boolean key, or dflt when it is absent: anything else is error 7. */
static bool conf_bool(const struct plugin *p, const char *key, bool dflt)
{
	json_object *v;

	if (!json_object_object_get_ex(p->conf, key, &v))
		return dflt;
	if (!json_object_is_type(v, json_type_boolean))
		return cni_error(p, CNI_ERR_CONFIG, "\"%s\" must be true or false", key), dflt;
	return json_object_get_boolean(v);
}

int read_conf(struct plugin *p)
{
	json_object *v, *ipam;

	p->version = conf_version(p);
	p->name = conf_str(p, p->conf, "name");
	p->nic = conf_str(p, p->conf, "nic");
	p->queues = conf_str(p, p->conf, "queues");
	p->per_pod = 1;
	if (json_object_object_get_ex(p->conf, "queuesPerPod", &v)) {
		int n = json_object_get_int(v);

		if (!json_object_is_type(v, json_type_int) || n < 1 || n > 16)
			return cni_error(p, CNI_ERR_CONFIG,
					 "\"queuesPerPod\" must be a number from 1 to 16");
		p->per_pod = (unsigned int)n;
	}
	p->steer = conf_bool(p, "steer", true);
	p->egress_redirect = conf_bool(p, "egressRedirect", false);
	p->info_dir = conf_str(p, p->conf, "podInfoDir");
	if (!p->info_dir)
		p->info_dir = CNI_INFO_DIR;
	else if (*p->info_dir != '/' || strlen(p->info_dir) > 512)
		return cni_error(p, CNI_ERR_CONFIG, "\"podInfoDir\" must be an absolute path");
	if (json_object_object_get_ex(p->conf, "ipam", &ipam))
		p->ipam_type = conf_str(p, ipam, "type");
	return cni_failed(p) ? -1 : 0;
}

/* Values that become words of nkctl's -batch lines: a blank (every
 * character isspace takes, as nkctl's split_words), quote or newline would
 * split a word or start another command. */
int need_batch_word(const struct plugin *p, int code, const char *what, const char *v)
{
	if (v && (!*v || strpbrk(v, " \t\n\v\f\r\"'\\#")))
		return cni_error(p, code, "%s \"%s\" must be one word without blanks, quotes or '#'",
				 what, v);
	return 0;
}

static const char *need_env(const struct plugin *p, const char *name)
{
	const char *v = getenv(name);

	if (!v || !*v)
		return cni_error(p, CNI_ERR_ENV, "%s is not set", name), NULL;
	return v;
}

/* Interface names within IFNAMSIZ from the container id and interface:
 * nk<hash> on the host, nl<hash> for the lease holder (FNV-1a, 40 bits). */
void derive_names(struct plugin *p)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (const char *s = p->id; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	h = (h ^ '/') * 0x100000001b3ULL;
	for (const char *s = p->ifname; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	snprintf(p->host, sizeof(p->host), "nk%010llx", (unsigned long long)(h >> 24));
	snprintf(p->holder, sizeof(p->holder), "nl%010llx", (unsigned long long)(h >> 24));
}
/* The container's names, checked as GC checks what it reads back
 * (attachname.c). Only ADD puts the namespace's path on a batch line and
 * in an alias; DEL never reads it. */
static int need_attachment_names(const struct plugin *p)
{
	const char *why;

	if ((why = container_id_refused(p->id)))
		return cni_error(p, CNI_ERR_ENV, "CNI_CONTAINERID %s", why);
	if ((why = ifname_refused(p->ifname)))
		return cni_error(p, CNI_ERR_ENV, "CNI_IFNAME \"%s\" %s", p->ifname, why);
	if (!strcmp(p->command, "ADD") && p->netns && (why = netns_refused(p->netns)))
		return cni_error(p, CNI_ERR_ENV, "CNI_NETNS \"%s\" %s", p->netns, why);
	return 0;
}

/* Is path the network namespace this process runs in (the host's)? */
static bool same_netns_as_self(const char *path)
{
	struct stat a, b;

	return !stat(path, &a) && !stat("/proc/self/ns/net", &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* What every command but VERSION needs from the configuration. */
static int need_conf(struct plugin *p)
{
	if (!version_supported(p->version))
		return cni_error(p, CNI_ERR_VERSION,
				 "cniVersion \"%s\" is not supported (supported: %s to %s)",
				 p->version ? p->version : "", supported[0],
				 supported[N_SUPPORTED - 1]);
	if (read_conf(p))
		return -1;
	if (!spec_name(p->name))
		return cni_error(p, CNI_ERR_CONFIG,
				 "\"name\" must start with a letter or digit, then letters, digits, '_', '.' or '-'");
	if (!p->nic)
		return cni_error(p, CNI_ERR_CONFIG, "the configuration needs \"nic\"");
	if (!p->ipam_type)
		return cni_error(p, CNI_ERR_CONFIG,
				 "the configuration needs \"ipam\" (for example host-local)");
	if (need_batch_word(p, CNI_ERR_CONFIG, "\"nic\"", p->nic) ||
	    need_batch_word(p, CNI_ERR_CONFIG, "\"queues\"", p->queues))
		return -1;
	p->cni_path = getenv("CNI_PATH");
	return 0;
}

/* 1.1.0 adds only STATUS and GC, which IPAM gets as they are: its ADD,
 * DEL and CHECK read the configuration as 1.0.0, which an IPAM plugin of
 * before 1.1.0 (Debian's host-local) speaks too, the same for one of 1.1.0. */
static void ipam_conf_for(struct plugin *p)
{
	p->ipam_text = p->conf_text;
	if (!version_at_least_1_1(p->version) || json_object_deep_copy(p->conf, &p->ipam_conf, NULL))
		return;
	json_object_object_add(p->ipam_conf, "cniVersion", json_object_new_string("1.0.0"));
	json_object_object_del(p->ipam_conf, "cniVersions");
	p->ipam_text = json_object_to_json_string_ext(p->ipam_conf, JSON_C_TO_STRING_PLAIN);
}

/* STATUS and GC concern the network, not one container: they need no
 * CNI_CONTAINERID, CNI_IFNAME or CNI_NETNS. */
bool cni_network_command(const char *command)
{
	return !strcmp(command, "STATUS") || !strcmp(command, "GC");
}

int cni_setup(struct plugin *p, const char *text)
{
	p->conf_text = text;
	p->conf = text && *text ? json_tokener_parse(text) : NULL;
	if (!p->conf || !json_object_is_type(p->conf, json_type_object))
		return cni_error(p, CNI_ERR_DECODE, "the network configuration is not a JSON object");
	p->version = conf_version(p);
	p->command = need_env(p, "CNI_COMMAND");
	if (cni_failed(p))
		return -1;
	if (!strcmp(p->command, "VERSION"))
		return 1;
	if (need_conf(p))
		return -1;
	if (command_refused(p->command, p->version))
		return cni_error(p, CNI_ERR_VERSION, "config version \"%s\" does not allow %s",
				 p->version, command_refused(p->command, p->version));
	ipam_conf_for(p);
	if (cni_network_command(p->command))
		return 0;
	p->id = need_env(p, "CNI_CONTAINERID");
	p->ifname = need_env(p, "CNI_IFNAME");
	p->netns = getenv("CNI_NETNS");
	if (cni_failed(p) || need_attachment_names(p))
		return -1;
	if (strcmp(p->command, "DEL") && p->netns && same_netns_as_self(p->netns))
		return cni_error(p, CNI_ERR_ENV, "CNI_NETNS %s is the plugin's own network namespace",
				 p->netns);
	derive_names(p);
	return 0;
}
