# SPDX-License-Identifier: GPL-2.0
#
# tcp_hpcc top-level build.
#
#   make                 modules for every selected kernel + userspace programs
#   make check           the whole test suite (userspace, fuzz, guests on 6.1
#                        and 6.12); ends with "N passed, N failed"
#   make demo            the main job: iperf3 -C hpcc in a guest
#   make install         modules (updates/) and programs; make uninstall
#   make dkms            register, build and install through DKMS
#   make checkpatch      scripts/checkpatch.pl --no-tree over kernel/
#   make uapi            regenerate include/uapi/linux/hpcc.h from the YNL spec
#
# Kernels: KDIR=/path/to/headers builds for that one.  Otherwise the running
# kernel's headers when they are installed, else every installed kernel's
# headers (/lib/modules/*/build).  Artifacts go to build/RELEASE/kernel/.

VERSION := $(shell cat VERSION)
TOP := $(CURDIR)
BUILD := $(TOP)/build
PREFIX ?= /usr/local
DESTDIR ?=

ifneq ($(KDIR),)
KDIRS := $(KDIR)
else ifneq ($(wildcard /lib/modules/$(shell uname -r)/build),)
KDIRS := /lib/modules/$(shell uname -r)/build
else
KDIRS := $(wildcard /lib/modules/*/build)
endif
# The release as vermagic has it (Debian's 6.1 headers say 6.1.N in
# include/config/kernel.release but 6.1.0-N-amd64 in utsrelease.h).
KREL_OF = sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' $(1)/include/generated/utsrelease.h
krel = $(shell $(call KREL_OF,$(1)))
KRELS := $(foreach k,$(KDIRS),$(call krel,$(k)))

# Kernel sources linked into each per-release build directory.
KSRC := $(filter-out kernel/hpcc_conftest.h kernel/%.mod.c,\
	$(wildcard kernel/*.c kernel/*.h)) kernel/Kbuild kernel/Makefile

# Userspace.
CC ?= cc
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -std=gnu11
USER_CPPFLAGS := -Iinclude/uapi -Iinclude -Ikernel -Itools/include -Itools/replay
CORE_SRC := kernel/hpcc_core.c
CORE_HDR := kernel/hpcc_core.h tools/include/hpcc_user.h
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer

# Members of the kernel source package that the build and tests use: the
# kselftest harness, checkpatch and the YNL tool.  Extracted once.
LINUX_SRC_TAR ?= $(firstword $(wildcard /usr/src/linux-source-6.12.tar.xz))
LINUX_SRC := $(BUILD)/linux-src
LINUX_SRC_MEMBERS := scripts/checkpatch.pl scripts/spelling.txt \
	scripts/const_structs.checkpatch \
	tools/testing/selftests/kselftest.h \
	tools/testing/selftests/kselftest_harness.h \
	tools/testing/selftests/kselftest/ktap_helpers.sh \
	tools/net/ynl Documentation/netlink MAINTAINERS

all: modules userspace

deps:
	@sh tools/deps

modules:
	@test -n "$(KDIRS)" || { echo "no kernel headers; run tools/deps" >&2; exit 1; }
	@set -e; for kdir in $(KDIRS); do \
		rel=$$($(call KREL_OF,$$kdir)); \
		d=$(BUILD)/$$rel/kernel; mkdir -p $$d; \
		find $$d -maxdepth 1 -type l -delete; \
		ln -sfn $(TOP)/include $(BUILD)/$$rel/include; \
		ln -sfn $(TOP)/VERSION $(BUILD)/$$rel/VERSION; \
		ln -sfn $(TOP)/kernel/conftest $$d/conftest; \
		for f in $(KSRC); do ln -sf $(TOP)/$$f $$d/; done; \
		echo "  MODULES $$rel"; \
		$(MAKE) -s -C $$d KDIR=$$kdir modules; \
	done

WIRE_SRC := daemon/hpcc_wire.c
WIRE_HDR := daemon/hpcc_wire.h include/uapi/linux/hpcc.h
userspace: $(BUILD)/hpcc-replay $(BUILD)/hpccd $(BUILD)/hpccctl $(BUILD)/qsample $(BUILD)/tcpsample $(BUILD)/fctgen \
	selftest-progs fuzz-progs

# The testbed's bottleneck queue sampler (libnl-3 route, in-process).
$(BUILD)/qsample: tools/testbed/qsample.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $$(pkg-config --cflags libnl-route-3.0) -o $@ $< \
		$$(pkg-config --libs libnl-route-3.0)

# The testbed's sender sampler (sock_diag over libmnl, in-process).
$(BUILD)/tcpsample: tools/testbed/tcpsample.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $$(pkg-config --libs libmnl)

# The benchmarks' flow generator (tools/bench/eval.sh).
$(BUILD)/fctgen: tools/bench/fctgen.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $<

# The probe daemon (libmnl).
HPCCD_SRC := daemon/hpccd.c daemon/hpcc_genl.c $(WIRE_SRC)
$(BUILD)/hpccd: $(HPCCD_SRC) daemon/hpcc_genl.h $(WIRE_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Wno-unused-parameter -D_GNU_SOURCE -Iinclude/uapi -Idaemon \
		-o $@ $(HPCCD_SRC) -lmnl

# Its control tool (libmnl, json-c).
HPCCCTL_SRC := daemon/hpccctl.c daemon/hpcc_genl.c
$(BUILD)/hpccctl: $(HPCCCTL_SRC) daemon/hpcc_genl.h $(WIRE_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Wno-unused-parameter -D_GNU_SOURCE -Iinclude/uapi -Idaemon \
		-o $@ $(HPCCCTL_SRC) -lmnl -ljson-c

REPLAY_SRC := tools/replay/hpcc_replay.c tools/replay/hpcc_trace.c $(CORE_SRC)
$(BUILD)/hpcc-replay: $(REPLAY_SRC) tools/replay/hpcc_trace.h $(CORE_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(USER_CPPFLAGS) -o $@ $(REPLAY_SRC) -lm

# Test programs (kselftest harness from the kernel source package).  Those
# that exercise our userspace code run under ASan and UBSan.
KSFT_CFLAGS := $(CFLAGS) -Wno-unused-parameter -Wno-sign-compare -Wno-clobbered $(USER_CPPFLAGS) \
	-I$(LINUX_SRC)/tools/testing/selftests -D_GNU_SOURCE
SELFTEST_PROGS := $(BUILD)/selftests/tcp_cc_tool $(BUILD)/selftests/cc_sockopt \
	$(BUILD)/selftests/hpcc_nl \
	$(BUILD)/selftests/core_test $(BUILD)/selftests/core_equiv \
	$(BUILD)/selftests/wire_test
selftest-progs: $(SELFTEST_PROGS)
$(BUILD)/selftests/core_%: selftests/core_%.c $(CORE_SRC) $(CORE_HDR) $(LINUX_SRC)/.stamp
	@mkdir -p $(dir $@)
	$(CC) $(KSFT_CFLAGS) $(SAN_FLAGS) -o $@ $< $(CORE_SRC) -lm
$(BUILD)/selftests/wire_test: selftests/wire_test.c $(WIRE_SRC) $(WIRE_HDR) $(LINUX_SRC)/.stamp
	@mkdir -p $(dir $@)
	$(CC) $(KSFT_CFLAGS) -Idaemon $(SAN_FLAGS) -o $@ $< $(WIRE_SRC)
# libFuzzer targets (clang), with ASan and UBSan.
FUZZ_CC ?= clang
FUZZ_PROGS := $(BUILD)/fuzz/fuzz_replay $(BUILD)/fuzz/fuzz_wire
fuzz-progs: $(FUZZ_PROGS)
$(BUILD)/fuzz/fuzz_wire: selftests/fuzz/fuzz_wire.c $(WIRE_SRC) $(WIRE_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all -Iinclude/uapi -Idaemon -o $@ \
		$< $(WIRE_SRC)
$(BUILD)/fuzz/fuzz_replay: selftests/fuzz/fuzz_replay.c tools/replay/hpcc_trace.c \
		tools/replay/hpcc_trace.h $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -g -O1 -fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all $(USER_CPPFLAGS) -o $@ \
		$< tools/replay/hpcc_trace.c $(CORE_SRC)

$(BUILD)/selftests/hpcc_nl: selftests/hpcc_nl.c daemon/hpcc_genl.c daemon/hpcc_genl.h $(WIRE_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Wno-unused-parameter -Iinclude/uapi -Idaemon -o $@ $< \
		daemon/hpcc_genl.c -lmnl

$(BUILD)/selftests/%: selftests/%.c $(LINUX_SRC)/.stamp
	@mkdir -p $(dir $@)
	$(CC) $(KSFT_CFLAGS) -o $@ $<

$(LINUX_SRC)/.stamp:
	@test -n "$(LINUX_SRC_TAR)" || { echo "linux-source-6.12 missing; run tools/deps" >&2; exit 1; }
	@mkdir -p $(LINUX_SRC)
	tar -xJf $(LINUX_SRC_TAR) -C $(LINUX_SRC) --strip-components=1 \
		$(addprefix $(notdir $(basename $(basename $(LINUX_SRC_TAR))))/,$(LINUX_SRC_MEMBERS))
	@touch $@
linux-src: $(LINUX_SRC)/.stamp

# Micro-benchmark of the core (not a test): ns per NewAck, and instructions
# per call under callgrind (repeatable on a noisy machine).
bench-core: $(BUILD)/core_bench
	@$(BUILD)/core_bench
	@command -v valgrind >/dev/null || exit 0; for n in 1 5; do \
		valgrind --tool=callgrind --callgrind-out-file=$(BUILD)/callgrind.$$n \
			$(BUILD)/core_bench $$n >/dev/null 2>&1 || exit 1; \
		callgrind_annotate --inclusive=yes $(BUILD)/callgrind.$$n 2>/dev/null | \
		awk -v n=$$n '/=> .*hpcc_new_ack \(/ { gsub(/,/, "", $$1); \
			c = $$NF; gsub(/[()x]/, "", c); gsub(/,/, "", c); \
			printf "hpcc_new_ack: %d hops %.0f instructions/call (callgrind)\n", \
			n, $$1 / c; exit }'; \
	done
# Per-ACK cost of hpcc against cubic, in a guest on each kernel (ftrace).
bench-ack: all
	@for k in $${HPCC_KERNELS:-6.1 6.12}; do \
		echo "== kernel $$k"; \
		tools/vmrun --kernel $$k --timeout 600 -- bash tools/bench/ack_cost.sh | grep -v '^\['; \
	done

# hpccd's cost: responses per CPU second, CPU per 100 flows (guest, 6.12).
bench-daemon: all
	@for k in $${HPCC_KERNELS:-6.12}; do \
		echo "== kernel $$k"; \
		tools/vmrun --kernel $$k --timeout 900 -- bash tools/bench/daemon_cost.sh | grep -v '^\['; \
	done

# The evaluation suite: hpcc, cubic, bbr and dctcp on the testbed, in one
# guest (6.12 unless BENCH_KERNEL names another); report and plots in
# build/bench/DATE-full/ (or -quick).  Documentation/evaluation.rst.
bench: deps all
	@tools/bench/run
bench-quick: deps all
	@tools/bench/run --quick

$(BUILD)/core_bench: tools/bench/core_bench.c $(CORE_SRC) $(CORE_HDR)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g $(USER_CPPFLAGS) -o $@ $< $(CORE_SRC)

# include/uapi/linux/hpcc.h: the netlink part generated from the YNL spec by
# the kernel's ynl-gen-c, followed by the hand-written wire format (from the
# line "/*\n * Probe and response wire format" on), which is kept.
uapi: linux-src
	@sh tools/ynl-uapi hpcc $(BUILD)/hpcc_gen.h
	@{ head -n -1 $(BUILD)/hpcc_gen.h; \
	   sed -n '/^ \* Probe and response wire format/,$$p' include/uapi/linux/hpcc.h | \
	   sed '1i /*'; } > $(BUILD)/hpcc.h.new
	@mv $(BUILD)/hpcc.h.new include/uapi/linux/hpcc.h
	@echo "  GEN     include/uapi/linux/hpcc.h"
	@sh tools/ynl-uapi hpcc-int include/uapi/linux/hpcc_int.h
	@echo "  GEN     include/uapi/linux/hpcc_int.h"

# CAMELCASE: the only hit is the kernel's own struct Qdisc.
checkpatch: linux-src
	@perl $(LINUX_SRC)/scripts/checkpatch.pl --no-tree --strict --quiet \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG,CAMELCASE \
		-f $(filter-out kernel/Kbuild kernel/Makefile,$(KSRC)) $(wildcard kernel/conftest/*.c) \
		&& echo "checkpatch: clean"

check: deps all linux-src
	@bash selftests/run

demo: deps all
	@bash tools/demo

install: install-modules install-programs

# Programs, man pages, the systemd unit and an example configuration (kept
# if one exists).  DESTDIR and PREFIX as usual.
SBINDIR := $(PREFIX)/sbin
MANDIR := $(PREFIX)/share/man
UNITDIR ?= $(PREFIX)/lib/systemd/system
install-programs: $(BUILD)/hpccd $(BUILD)/hpccctl
	install -D -m 755 $(BUILD)/hpccd $(DESTDIR)$(SBINDIR)/hpccd
	install -D -m 755 $(BUILD)/hpccctl $(DESTDIR)$(SBINDIR)/hpccctl
	install -D -m 644 daemon/hpccd.8 $(DESTDIR)$(MANDIR)/man8/hpccd.8
	install -D -m 644 daemon/hpccctl.8 $(DESTDIR)$(MANDIR)/man8/hpccctl.8
	mkdir -p $(DESTDIR)$(UNITDIR)
	sed 's|@SBINDIR@|$(SBINDIR)|g' daemon/hpccd.service.in \
		> $(DESTDIR)$(UNITDIR)/hpccd.service
	test -e $(DESTDIR)/etc/hpcc/hpccd.conf || \
		install -D -m 644 daemon/hpccd.conf $(DESTDIR)/etc/hpcc/hpccd.conf

install-modules: modules
	@set -e; for kdir in $(KDIRS); do \
		rel=$$($(call KREL_OF,$$kdir)); \
		$(MAKE) -s -C $$kdir M=$(BUILD)/$$rel/kernel \
			INSTALL_MOD_DIR=updates modules_install; \
		depmod -a $$rel; \
	done

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/hpccd $(DESTDIR)$(SBINDIR)/hpccctl \
		$(DESTDIR)$(MANDIR)/man8/hpccd.8 $(DESTDIR)$(MANDIR)/man8/hpccctl.8 \
		$(DESTDIR)$(UNITDIR)/hpccd.service
	@for kdir in $(KDIRS); do \
		rel=$$($(call KREL_OF,$$kdir)); \
		rm -fv /lib/modules/$$rel/updates/tcp_hpcc.ko* /lib/modules/$$rel/updates/hpcc_int.ko*; \
		depmod -a $$rel; \
	done

# DKMS: copy the module sources to /usr/src/tcp-hpcc-VERSION, then add, build
# and install for every selected kernel.  dkms.conf sets AUTOINSTALL, so
# kernels installed later get the module too.
DKMS_SRC := $(DESTDIR)/usr/src/tcp-hpcc-$(VERSION)
dkms-src:
	rm -rf $(DKMS_SRC)
	mkdir -p $(DKMS_SRC)
	cp -r dkms.conf VERSION $(wildcard include) $(DKMS_SRC)/
	mkdir -p $(DKMS_SRC)/kernel
	cp -r $(KSRC) kernel/conftest $(DKMS_SRC)/kernel/

dkms: dkms-src
	dkms add -m tcp-hpcc -v $(VERSION) || true
	@set -e; for rel in $(KRELS); do \
		dkms build -m tcp-hpcc -v $(VERSION) -k $$rel; \
		dkms install -m tcp-hpcc -v $(VERSION) -k $$rel --force; \
	done

dkms-remove:
	-dkms remove -m tcp-hpcc -v $(VERSION) --all
	rm -rf $(DKMS_SRC)

clean:
	rm -rf $(BUILD)/*/kernel $(BUILD)/bin $(BUILD)/selftests
	rm -f kernel/hpcc_conftest.h kernel/hpcc_conftest.h.log

distclean:
	rm -rf $(BUILD)

.PHONY: all deps modules userspace install-programs install-modules selftest-progs fuzz-progs linux-src checkpatch check demo install \
	uninstall dkms-src dkms dkms-remove clean distclean bench-core bench-ack bench-daemon bench bench-quick uapi
