// SPDX-License-Identifier: GPL-2.0
/*
 * tcxattach: attach a program that is not nkctl's to a tcx hook with the
 * old PROG_ATTACH interface (no link, no pin), so tests can see how nkctl
 * shows foreign programs. It stays until the device goes.
 *
 *   tcxattach OBJECT PROGRAM IFINDEX ingress|egress
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "compat.h"

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	int type;

	if (argc != 5) {
		fprintf(stderr, "usage: tcxattach OBJECT PROGRAM IFINDEX ingress|egress\n");
		return 1;
	}
	type = strcmp(argv[4], "egress") ? NK_BPF_TCX_INGRESS : NK_BPF_TCX_EGRESS;
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "tcxattach: open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	bpf_object__for_each_program(prog, obj)
		bpf_program__set_autoload(prog, !strcmp(bpf_program__name(prog), argv[2]));
	if (bpf_object__load(obj)) {
		fprintf(stderr, "tcxattach: load: %s\n", strerror(errno));
		return 1;
	}
	prog = bpf_object__find_program_by_name(obj, argv[2]);
	if (!prog || bpf_prog_attach(bpf_program__fd(prog), atoi(argv[3]),
				     (enum bpf_attach_type)type, 0)) {
		fprintf(stderr, "tcxattach: attach: %s\n", strerror(errno));
		return 1;
	}
	bpf_object__close(obj);
	return 0;
}
