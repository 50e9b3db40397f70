# SPDX-License-Identifier: GPL-2.0
# nkctl -- see README.md. Targets: all check check-unit install clean deps fuzz.
# Options: V=1 (verbose), SANITIZE=1 (ASan+UBSan build in build-san/).

# The version has one source, debian/changelog's top entry (a native package:
# the package's version is nkctl's). nkctl -V prints it.
VERSION := $(shell head -n 1 debian/changelog | cut -d ' ' -f 2 | tr -d '()')
ifeq ($(VERSION),)
$(error cannot read the version from debian/changelog)
endif
.DEFAULT_GOAL := all

ifeq ($(filter deps clean,$(MAKECMDGOALS)),)
include config.mk
# An older config.mk has no NKCTL_LIBS: the shared libraries.
NKCTL_LIBS ?= $(DEPS_LIBS)
endif

# config.mk is stale when configure is newer: re-run it with the same options.
config.mk: configure
	./configure $(CONFIGURE_ARGS)

ifeq ($(V),1)
Q :=
else
Q := @
endif

ifeq ($(SANITIZE),1)
BUILD := build-san
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD := build
SAN_FLAGS :=
endif

# nkctl/: a folder per unit (doc/hacking.md, "Map"); its headers are included
# by folder ("lease/fate.h"), lib's by their bare names.
NKCTL_SRCS := $(wildcard nkctl/*/*.c)
NKCTL_INCS := -Inkctl
WARN := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wno-format-nonliteral -Wmissing-prototypes
CFLAGS ?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(WARN) $(CPPFLAGS) $(CFLAGS) $(SAN_FLAGS) -Iinclude -Ilib $(NKCTL_INCS) -Ibpf -I$(BUILD)/bpf \
	-DNKCTL_VERSION='"$(VERSION)"' $(DEPS_CFLAGS) -MMD -MP
ALL_LDFLAGS := $(LDFLAGS) $(SAN_FLAGS)

LIB_SRCS := $(wildcard lib/*.c)
OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRCS) $(NKCTL_SRCS))
BIN := $(BUILD)/nkctl

# Test helpers that link lib/ (never installed).
HELPERS := $(BUILD)/helpers/nlerr $(BUILD)/helpers/tcxattach $(BUILD)/helpers/xsk-rx
LIB_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
# lib/ as an archive, for the CNI plugin: it takes what it calls (netlink,
# rtnetlink, namespaces) and nothing that needs libbpf.
LIB_AR := $(BUILD)/libnk.a
$(LIB_AR): $(LIB_OBJS)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# BPF programs: compiled with clang, embedded as libbpf skeletons.
BPF_SRCS := $(wildcard bpf/*.bpf.c)
SKELS := $(patsubst bpf/%.bpf.c,$(BUILD)/bpf/%.skel.h,$(BPF_SRCS))
BPF_CFLAGS := -g -O2 -Wall -Werror -target bpf -I/usr/include/$(shell $(CC) -dumpmachine) -Ibpf

MAN_SRCS := $(wildcard man/*.scd)
# "man nkctl-WORD" for every command word: WORD=PAGE, a .so page each
# (dh_installman turns them into symlinks).
MAN_ALIASES := unlease=nkctl-lease steer=nkctl-nic bind-rx=nkctl-bind bind-tx=nkctl-bind \
	unbind=nkctl-bind version=nkctl
MANS := $(patsubst man/%.scd,$(BUILD)/man/%,$(MAN_SRCS)) \
	$(foreach a,$(MAN_ALIASES),$(BUILD)/man/nkctl-$(firstword $(subst =, ,$(a))).8)

# The CNI plugin's page, shipped with the plugin (package nkctl-cni), not in
# build/man with nkctl's own.
CNI_MAN := $(BUILD)/cni/nkctl-cni.8

.PHONY: all bench helpers check check-all check-full check-host check-unit check-vm check-valgrind install clean deps fuzz cni
all: $(BIN) $(MANS)

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c bpf/%.h config.mk
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CLANG   $<")
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	@$(if $(Q),echo "  GEN     $@")
	$(Q)$(BPFTOOL) gen skeleton $< name nk_$* > $@.tmp && mv $@.tmp $@

# Objects may include a skeleton: generate them first.
$(OBJS): | $(SKELS)

$(BUILD)/obj/%.o: %.c config.mk
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

# nkctl -V prints the version: main.o follows debian/changelog.
$(BUILD)/obj/nkctl/cli/main.o: debian/changelog

$(BIN): $(OBJS)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) $(OBJS) -o $@ $(NKCTL_LIBS)

$(BUILD)/helpers/%: $(BUILD)/obj/testsuite/helpers/%.o $(LIB_OBJS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) $^ -o $@ $(DEPS_LIBS)

# nkctl with the kernel's bind-rx/bind-tx replaced by a made-up id
# (testsuite/helpers/fakebind.c): no NIC here can DMA, and the holder, its
# state, show bindings, unbind and "-- CMD" still need testing.
FAKEBIND := $(BUILD)/helpers/nkctl-fakebind
HELPERS += $(FAKEBIND)
$(FAKEBIND): $(filter-out $(BUILD)/obj/lib/devmem.o,$(OBJS)) $(BUILD)/obj/testsuite/helpers/fakebind.o
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) $^ -o $@ $(NKCTL_LIBS)

# A test VMM making the calls of QEMU's af-xdp backend through libxdp
# (libxdp-dev, a test-only dependency): left out where libxdp is missing
# (xsk-vmm.t then says SKIP).
XSKVMM := $(BUILD)/helpers/xsk-vmm
ifneq ($(shell $(or $(PKG_CONFIG),pkg-config) --exists libxdp 2>/dev/null && echo y),)
HELPERS += $(XSKVMM)
endif
$(XSKVMM): $(BUILD)/obj/testsuite/helpers/xsk-vmm.o
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) $^ -o $@ $(shell $(or $(PKG_CONFIG),pkg-config) --libs libxdp) $(DEPS_LIBS)

# A container runtime's side of CNI for the plugin's tests: libcni (Go),
# built offline in GOPATH mode against Debian's packaged sources, static so
# that it runs in the VM too. Left out where Go or libcni is missing (the test
# then says SKIP).
GO ?= go
GOCODE := /usr/share/gocode
CNITOOL := $(BUILD)/helpers/nkctl-cnitool
ifneq ($(wildcard $(GOCODE)/src/github.com/containernetworking/cni/libcni),)
ifneq ($(shell command -v $(GO) 2>/dev/null),)
HELPERS += $(CNITOOL)
endif
endif
$(CNITOOL): testsuite/helpers/cnitool/main.go
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GO      $@")
	$(Q)GOPATH=$(GOCODE) GO111MODULE=off GOFLAGS= CGO_ENABLED=0 GOCACHE=$(abspath $(BUILD))/gocache \
		$(GO) build -o $@ ./testsuite/helpers/cnitool

# The CNI plugin (cni/README.md), built by "all" and installed into
# CNIDIR where json-c is installed (libjson-c-dev); the CNI tests run it from
# the helpers' directory. Never linked into nkctl; it links lib/ (LIB_AR).
PKG_CONFIG ?= pkg-config
JSONC_CFLAGS := $(shell $(PKG_CONFIG) --cflags json-c 2>/dev/null)
JSONC_LIBS := $(shell $(PKG_CONFIG) --libs json-c 2>/dev/null)
CNI_PLUGIN := $(BUILD)/helpers/nkctl-cni
CNI_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(wildcard cni/*.c))
ifneq ($(JSONC_LIBS),)
HELPERS += $(CNI_PLUGIN)
all: $(CNI_PLUGIN)
all: $(CNI_MAN)
endif
$(CNI_OBJS): ALL_CFLAGS += $(JSONC_CFLAGS)
$(CNI_PLUGIN): $(CNI_OBJS) $(LIB_AR)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) $^ -o $@ $(JSONC_LIBS) -lmnl
cni: $(CNI_PLUGIN)

# Unit tests (testsuite/README.md, "Unit tests"): one cmocka program per
# product file, testsuite/unit/test_FILE.c, in $(BUILD)/unit/, linked against
# nkctl's objects in an archive (main() renamed, as the fuzzers do); the CNI
# plugin's against its own, only where json-c is installed.
CMOCKA_CFLAGS := $(shell $(PKG_CONFIG) --cflags cmocka 2>/dev/null)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null)
UNIT := $(BUILD)/unit
UNIT_CNI_SRCS := $(wildcard testsuite/unit/test_cni_*.c)
UNIT_NK_SRCS := $(filter-out $(UNIT_CNI_SRCS),$(wildcard testsuite/unit/test_*.c))
UNIT_TESTS := $(patsubst testsuite/unit/%.c,$(UNIT)/%,$(UNIT_NK_SRCS))
ifneq ($(JSONC_LIBS),)
UNIT_TESTS += $(patsubst testsuite/unit/%.c,$(UNIT)/%,$(UNIT_CNI_SRCS))
endif
UNIT_LIB := $(UNIT)/libnkctl.a
UNIT_CNI_LIB := $(UNIT)/libnkcni.a

$(UNIT)/obj/%.o: %.c config.mk
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(ALL_CFLAGS) $(CMOCKA_CFLAGS) $(JSONC_CFLAGS) $(UNIT_EXTRA) -c $< -o $@
$(UNIT)/obj/nkctl/cli/main.o: UNIT_EXTRA := -Dmain=nkctl_main -Wno-missing-prototypes
$(UNIT)/obj/cni/main.o: UNIT_EXTRA := -Dmain=cni_main -Wno-missing-prototypes
$(UNIT)/obj/nkctl/cli/main.o: debian/changelog
$(UNIT)/obj/nkctl/cli/main.o: | $(SKELS)
$(UNIT)/obj/testsuite/unit/test_%.o: | $(SKELS)
# Objects reached only through a pattern rule are intermediate: keep them.
.SECONDARY: $(patsubst %,$(UNIT)/obj/testsuite/unit/%.o,$(notdir $(UNIT_TESTS)))

$(UNIT_LIB): $(filter-out $(BUILD)/obj/nkctl/cli/main.o,$(OBJS)) $(UNIT)/obj/nkctl/cli/main.o
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^
$(UNIT_CNI_LIB): $(filter-out $(BUILD)/obj/cni/main.o,$(CNI_OBJS)) $(UNIT)/obj/cni/main.o
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(UNIT)/test_cni_%: $(UNIT)/obj/testsuite/unit/test_cni_%.o $(UNIT_CNI_LIB) $(LIB_AR)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) $^ -o $@ $(JSONC_LIBS) -lmnl $(CMOCKA_LIBS)
$(UNIT)/test_%: $(UNIT)/obj/testsuite/unit/test_%.o $(UNIT_LIB)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(CC) $(ALL_LDFLAGS) $^ -o $@ $(DEPS_LIBS) $(CMOCKA_LIBS)

check-unit: $(if $(CMOCKA_LIBS),$(UNIT_TESTS),unit-needs-cmocka)
	testsuite/unit/run $(UNIT_TESTS)
unit-needs-cmocka:
	@echo "make check-unit: cmocka is not installed (Debian package: libcmocka-dev)" >&2; exit 1

# The version in the footer; after .TH (which turns hyphenation back on):
# no hyphenation, and no line break at a keyword's own hyphens.
# A "[ ... ]" group of a SYNOPSIS never breaks across lines (synopsis.awk).
define render_man
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  SCDOC   $<")
	$(Q)sed 's/@VERSION@/$(VERSION)/g' $< | $(SCDOC) | sed '/^\.TH /a .nh\n.cflags 0 -' | \
		awk -f man/synopsis.awk > $@.tmp && mv $@.tmp $@
endef
$(BUILD)/man/%: man/%.scd man/synopsis.awk debian/changelog
	$(render_man)

$(CNI_MAN): cni/nkctl-cni.8.scd man/synopsis.awk debian/changelog
	$(render_man)

define man_alias
$(BUILD)/man/nkctl-$(1).8: Makefile
	@mkdir -p $$(dir $$@)
	$(Q)printf '.so man8/$(2).8\n' > $$@
endef
$(foreach a,$(MAN_ALIASES),$(eval $(call man_alias,$(firstword $(subst =, ,$(a))),$(lastword $(subst =, ,$(a))))))

# libFuzzer harnesses (fuzz/README.md): lib/ and nkctl/ rebuilt with clang,
# coverage, ASan and UBSan in build-fuzz/. nkctl's main() is renamed so that
# libFuzzer's is the program's.
FUZZ_BUILD := build-fuzz
FUZZ_CC ?= $(CLANG)
FUZZ_CFLAGS ?= -O1 -g
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_ALL_CFLAGS := -std=gnu11 $(WARN) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(FUZZ_SAN) \
	-Iinclude -Ilib $(NKCTL_INCS) -Ibpf -I$(BUILD)/bpf -DNKCTL_VERSION='"$(VERSION)"' $(DEPS_CFLAGS) -MMD -MP
FUZZ_OBJS := $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(LIB_SRCS) $(NKCTL_SRCS))
FUZZERS := $(FUZZ_BUILD)/fuzz_netlink $(FUZZ_BUILD)/fuzz_args $(FUZZ_BUILD)/fuzz_state
# The CNI plugin's input, where json-c is installed (as the plugin itself).
FUZZ_CNI_OBJS := $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(wildcard cni/*.c))
ifneq ($(JSONC_LIBS),)
FUZZERS += $(FUZZ_BUILD)/fuzz_cni
endif

fuzz: $(FUZZERS)

$(FUZZ_OBJS) $(patsubst %,$(FUZZ_BUILD)/obj/fuzz/%.o,$(notdir $(FUZZERS))): | $(SKELS)

$(FUZZ_BUILD)/obj/nkctl/cli/main.o: FUZZ_EXTRA := -Dmain=nkctl_main -Wno-missing-prototypes

$(FUZZ_BUILD)/obj/%.o: %.c config.mk
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZCC  $<")
	$(Q)$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) $(FUZZ_EXTRA) -c $< -o $@

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/obj/fuzz/fuzz_%.o $(FUZZ_OBJS)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) $^ -o $@ $(DEPS_LIBS)

# report.c's puts() goes to the harness: it checks the error object.
$(FUZZ_CNI_OBJS) $(FUZZ_BUILD)/obj/fuzz/fuzz_cni.o: FUZZ_EXTRA += $(JSONC_CFLAGS) -Icni
$(FUZZ_BUILD)/obj/cni/main.o: FUZZ_EXTRA += -Dmain=cni_main -Wno-missing-prototypes
$(FUZZ_BUILD)/obj/cni/report.o: FUZZ_EXTRA += -Dputs=cni_fuzz_puts
FUZZ_LIB_AR := $(FUZZ_BUILD)/libnk.a
$(FUZZ_LIB_AR): $(patsubst %.c,$(FUZZ_BUILD)/obj/%.o,$(LIB_SRCS))
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && $(AR) rcs $@ $^
$(FUZZ_BUILD)/fuzz_cni: $(FUZZ_BUILD)/obj/fuzz/fuzz_cni.o $(FUZZ_CNI_OBJS) $(FUZZ_LIB_AR)
	@$(if $(Q),echo "  LINK    $@")
	$(Q)$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) $^ -o $@ $(JSONC_LIBS) -lmnl

# The whole suite: host tier here, VM tier under QEMU (testsuite/run).
# NKCTL_MEMCHECK names the memory checker nkctl runs under (sanitizers,
# valgrind): tests may stride over kill points or run fewer rounds there, and
# testsuite/run looks up that pass's costs.
TEST_ENV := NKCTL=$(abspath $(BIN)) NKCTL_HELPERS=$(abspath $(BUILD)/helpers)
ifeq ($(SANITIZE),1)
TEST_ENV += NKCTL_MEMCHECK=sanitizers
endif
# Everything the tests run, built (check-all builds both trees before it
# runs passes side by side).
helpers: all $(HELPERS)

# bench/show.sh's floor: a bare libmnl reader of the dumps show sends.
bench: all $(BUILD)/bench/show-floor
$(BUILD)/bench/show-floor: bench/show-floor.c config.mk
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) -std=gnu11 $(WARN) $(CFLAGS) $< -o $@ -lmnl

check: all $(HELPERS)
	$(TEST_ENV) testsuite/run

check-host: all $(HELPERS)
	$(TEST_ENV) testsuite/run --tier host

check-vm: all $(HELPERS)
	$(TEST_ENV) testsuite/run --tier vm

# The host tier with every nkctl run under valgrind memcheck.
# What CI runs: host tier, VM tier, host tier SANITIZE=1, valgrind; totals.
check-all:
	testsuite/check-all

# check-all with every kill point, every round of the race tests and every
# command line under valgrind (check-all runs a share of them, a different
# one each day).
check-full:
	NKCTL_KILL_SHARE=1 NKCTL_ROUND_SHARE=1 NKCTL_VALGRIND_SHARE=1 testsuite/check-all

check-valgrind: all $(HELPERS)
	NKCTL=$(abspath testsuite/valgrind/nkctl) NKCTL_REAL=$(abspath $(BIN)) NKCTL_MEMCHECK=valgrind \
	NKCTL_HELPERS=$(abspath $(BUILD)/helpers) NKCTL_BPF_OBJ=$(abspath $(BUILD)/bpf/redirect.bpf.o) \
	testsuite/run --tier host --timeout 600

install: all
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(BASHCOMPDIR)
	install -m 0755 $(BIN) $(DESTDIR)$(SBINDIR)/nkctl
	$(if $(MANS),install -m 0644 $(MANS) $(DESTDIR)$(MANDIR)/man8/)
	$(if $(wildcard completions/nkctl),install -m 0644 completions/nkctl $(DESTDIR)$(BASHCOMPDIR)/nkctl)
	$(if $(JSONC_LIBS),install -d $(DESTDIR)$(CNIDIR))
	$(if $(JSONC_LIBS),install -m 0755 $(CNI_PLUGIN) $(DESTDIR)$(CNIDIR)/nkctl-cni)
	$(if $(JSONC_LIBS),install -m 0644 $(CNI_MAN) $(DESTDIR)$(MANDIR)/man8/)

deps:
	sh scripts/install-deps --test

clean:
	rm -rf build build-san build-fuzz config.mk config.log

-include $(FUZZ_OBJS:.o=.d) $(FUZZ_CNI_OBJS:.o=.d) $(patsubst %,$(FUZZ_BUILD)/obj/fuzz/%.d,$(notdir $(FUZZERS)))
-include $(wildcard $(UNIT)/obj/*/*.d $(UNIT)/obj/*/*/*.d)
-include $(OBJS:.o=.d) $(CNI_OBJS:.o=.d) $(patsubst $(BUILD)/helpers/%,$(BUILD)/obj/testsuite/helpers/%.d,$(filter-out $(CNITOOL) $(CNI_PLUGIN),$(HELPERS)))
