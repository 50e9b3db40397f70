// SPDX-License-Identifier: GPL-2.0
/* nkctl-cni: the CNI protocol's side: environment, configuration, VERSION,
 * error objects, and the command's dispatch (README.md beside this file). */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cni.h"

/* Oldest first: VERSION lists them in this order, and a configuration's
 * cniVersions array takes the newest it shares with this list. */
static const char *const supported[] = { "0.3.0", "0.3.1", "0.4.0", "1.0.0", "1.1.0" };
#define N_SUPPORTED (sizeof(supported) / sizeof(supported[0]))

/* The length of the well-formed UTF-8 sequence at s (RFC 3629), 0 when
 * there is none. */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned int n;
	uint32_t cp, min;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f, min = 0x80;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f, min = 0x800;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	for (unsigned int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	return cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? 0 : n;
}

/* s as well-formed UTF-8 in buf, any other byte as U+FFFD: JSON text is
 * UTF-8, and the configuration's strings (json-c takes any bytes) and a
 * message cut short need not be. */
static const char *utf8_clean(const char *s, char *buf, size_t len)
{
	size_t used = 0;

	while (*s && used + 4 < len) {
		size_t n = utf8_seq((const unsigned char *)s);

		memcpy(buf + used, n ? s : "\xef\xbf\xbd", n ? n : 3);
		used += n ? n : 3;
		s += n ? n : 1;
	}
	buf[used] = '\0';
	return buf;
}

int cni_error(const struct plugin *p, int code, const char *fmt, ...)
{
	va_list ap;

	if (p->err->code)
		return -1;      /* the first is the cause, the rest its echoes */
	p->err->code = code;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

void cni_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("nkctl-cni: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cni_pass_on(const char *text)
{
	fputs(text, stderr);
	fflush(stderr);
}

bool cni_failed(const struct plugin *p)
{
	return p->err->code != 0;
}

void cni_print_error(const struct plugin *p)
{
	json_object *o = json_object_new_object();
	char clean[3 * sizeof(p->err->msg)];

	json_object_object_add(o, "cniVersion",
			       json_object_new_string(p->version && *p->version ?
						      utf8_clean(p->version, clean, sizeof(clean)) :
						      "1.0.0"));
	json_object_object_add(o, "code", json_object_new_int(p->err->code));
	json_object_object_add(o, "msg",
			       json_object_new_string(utf8_clean(p->err->msg, clean, sizeof(clean))));
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	fflush(stdout);
}

/* VERSION answers in the version it was asked in (the newest when that one
 * is not ours or none was given). */
static int print_version(const char *asked)
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

static int find_nkctl(struct plugin *p, char *buf, size_t len)
{
	const char *env = getenv("NKCTL");
	bool status = !strcmp(p->command, "STATUS");

	if (env && strchr(env, '/')) {
		/* DEL does what it can without nkctl (del.c) */
		p->nkctl = access(env, X_OK) && !strcmp(p->command, "DEL") ? NULL : env;
		return 0;
	}
	if (path_lookup(getenv("PATH"), env && *env ? env : "nkctl", buf, len)) {
		/* DEL does what it can without nkctl (del.c) */
		if (!strcmp(p->command, "DEL")) {
			p->nkctl = NULL;
			return 0;
		}
		return cni_error(p, status ? CNI_ERR_UNAVAILABLE : CNI_ERR_CONFIG,
				 "nkctl is not on PATH (or set NKCTL to its path)");
	}
	p->nkctl = buf;
	return 0;
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
static bool network_command(const char *command)
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
	if (network_command(p->command))
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

/* A container's command holds its attachment's lock (lock.c) from here to
 * its exit, and its children with it (p->locks); -1 in *fd for the
 * network's commands. One held by another ADD, DEL or CHECK of it (or by
 * a killed ADD's children) is waited for, then error 11. */
static int lock_attachment(struct plugin *p, int *fd)
{
	int ret;

	*fd = -1;
	if (network_command(p->command))
		return 0;
	ret = attachment_lock(p->id, p->ifname, CNI_LOCK_WAIT_MS, fd);
	if (ret == -EWOULDBLOCK)
		return cni_error(p, CNI_ERR_TRY_LATER,
				 "%s %s: another ADD, DEL or CHECK of this attachment (or what a killed one started) still runs after %u s; try again",
				 p->id, p->ifname, CNI_LOCK_WAIT_MS / 1000);
	if (ret)
		return cni_error(p, CNI_ERR_STEP, "cannot lock the attachment %s %s under %s: %s",
				 p->id, p->ifname, CNI_LOCK_DIR, private_dir_refusal(ret));
	p->locks = (struct held_locks){ fd, 1 };
	return 0;
}

/* The container's or the network's command. */
static int run_command(struct plugin *p)
{
	static const struct {
		const char *name;
		int (*fn)(struct plugin *p);
	} commands[] = {
		{ "ADD", cmd_add }, { "DEL", cmd_del }, { "CHECK", cmd_check },
		{ "STATUS", cmd_status }, { "GC", cmd_gc },
	};

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(p->command, commands[i].name))
			return commands[i].fn(p);
	return cni_error(p, CNI_ERR_ENV, "unknown CNI_COMMAND %s", p->command);
}

int main(void)
{
	struct cni_err err = { 0 };
	struct plugin p = { .err = &err };
	char nkctl[4096];
	char *text;
	int ret, lock = -1;

	/* nkctl or the IPAM plugin dying must come back as EPIPE and a CNI
	 * error object (and DEL's teardown), not kill the plugin silently. */
	signal(SIGPIPE, SIG_IGN);
	text = child_read_all(0);
	ret = cni_setup(&p, text);
	if (ret == 1)
		ret = print_version(p.version);
	else if (!ret && !find_nkctl(&p, nkctl, sizeof(nkctl)) && !lock_attachment(&p, &lock))
		ret = run_command(&p);
	if (lock >= 0)
		attachment_unlock(p.id, p.ifname, lock, !strcmp(p.command, "DEL") && !ret);
	if (cni_failed(&p)) {
		cni_print_error(&p);
		ret = 1;
	}
	json_object_put(p.ipam_conf);
	json_object_put(p.conf);
	free(text);
	return ret;
}
