// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "nl.h"

int nk_exit_from_errno(int err)
{
	switch (err) {
	case 0:
		return NK_EXIT_OK;
	case ENOENT:
	case ENODEV:
	case ESRCH:
	case ENONET:
		return NK_EXIT_NOTFOUND;
	case EEXIST:
	case EBUSY:
	case EADDRINUSE:
		return NK_EXIT_EXISTS;
	case EOPNOTSUPP:
	case EPROTONOSUPPORT:
	case ENOSYS:
	case EAFNOSUPPORT:
		return NK_EXIT_UNSUPPORTED;
	case EPERM:
	case EACCES:
		return NK_EXIT_PERM;
	default:
		return NK_EXIT_FAIL;
	}
}

static void vreport(const char *label, const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", label);
	vfprintf(stderr, fmt, ap);
}

int nk_error(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("Error", fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

void nk_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("Warning", fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int nk_error_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("Error", fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	return nk_exit_from_errno(err);
}

int nk_error_nl(const struct nl_err *e, const char *fmt, ...)
{
	va_list ap;

	fputs("Error: ", stderr);
	if (fmt) {
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputs(": ", stderr);
	}
	fputs(e->msg[0] ? e->msg : strerror(e->code), stderr);
	if (e->path[0])
		fprintf(stderr, " (%s%s)", e->missing ? "missing attribute " : "",
			e->path);
	fputc('\n', stderr);
	return nk_exit_from_errno(e->code);
}
