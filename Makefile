# SPDX-License-Identifier: GPL-2.0
#
# tcp_hpcc top-level build.
#
#   make                 what a host runs: tcp_hpcc.ko and hpcc_int.ko for every
#                        selected kernel, hpccd and hpccctl.  Needs only a C
#                        compiler, make, the kernel headers, libmnl and json-c
#                        (Documentation/admin-guide.rst, "What a host needs")
#   make install         modules (updates/) and programs; make uninstall
#   make dkms            register, build and install through DKMS
#   make tools           hpcc-replay and the testbed's samplers and flow
#                        generator (libnl-3 too)
#   make check           installs what the tests need (tools/deps), then the
#                        test suite: host tests, the guest tests on the newest
#                        kernel; ends with "N passed, N failed"
#   make check-kernels   likewise, every guest test on every kernel
#   make check-e2e       likewise, only the performance test, on every kernel
#   make check-debug     the functional guest tests on the debugging kernel
#                        (PART=1, 2 or 3 runs one of its three parts)
#   make demo            installs what it needs, then the main job in a guest
#   make bench, bench-quick, bench-ack, bench-daemon, bench-ccm, bench-fwd:
#                        benchmarks (likewise)
#   make checkpatch      scripts/checkpatch.pl --strict over kernel/
#   make uapi            regenerate the uapi headers, the kernel policies and
#                        the client tables from the YNL specs
#   make clean           remove everything the build made (not benchmark
#                        results under build/bench/); make distclean: all of build/
#
# Kernels: KDIR=/path/to/headers builds for that one.  Otherwise the running
# kernel's headers when they are installed, else every installed kernel's
# headers (/lib/modules/*/build).  Artifacts go to build/RELEASE/kernel/.

VERSION := $(shell cat VERSION)
TOP := $(CURDIR)
BUILD := $(TOP)/build
PREFIX ?= /usr/local
DESTDIR ?=

all: modules programs

# The targets that install their dependencies first run the rest in a
# sub-make: this Makefile is read again there, so the kernel headers and the
# kernel source package that tools/deps has just installed are seen (KDIRS
# and LINUX_SRC_TAR are wildcards, evaluated when the file is read).
DEPS_ENTRIES := check-e2e demo bench bench-quick bench-ack bench-daemon bench-scale bench-ccm bench-fwd \
	bench-sim bench-sim-quick
$(DEPS_ENTRIES): deps
	@$(MAKE) --no-print-directory run-$@

# check builds what the tests need in a sub-make with a job per core (on 2
# cores, 116 s instead of about 230 s of its 30 minutes), then runs the
# tests in another (check-tests, which does not build again).
CHECK_BUILD := all tools sim selftest-progs fuzz-progs linux-src
check: deps
	@$(MAKE) --no-print-directory -j$$(nproc) $(CHECK_BUILD)
	@$(MAKE) --no-print-directory check-tests

# The tests run make themselves, with their own -j: they get no jobserver
# from a make -jN above them (whose fds they would not have).
TEST_MAKEFLAGS = MAKEFLAGS='$(filter-out -j% --jobserver-auth=% --jobserver-fds=%,$(MAKEFLAGS))'

deps:
	@sh tools/deps

# The kernels built for: KDIR, or the running kernel's headers, or every
# installed kernel's; and the other Debian releases whose images
# tools/kheaders --images unpacked (make check-kernels), so that their
# modules are never stale.
ifneq ($(KDIR),)
KDIRS := $(abspath $(KDIR))
else ifneq ($(wildcard /lib/modules/$(shell uname -r)/build),)
KDIRS := /lib/modules/$(shell uname -r)/build
else
KDIRS := $(wildcard /lib/modules/*/build)
endif
ifeq ($(KDIR),)
KDIRS += $(foreach r,$(wildcard $(BUILD)/kheaders/*/.image-stamp),\
	$(wildcard $(dir $(r))usr/src/linux-headers-*-amd64))
endif
# The release as vermagic has it (Debian's 6.1 headers say 6.1.N in
# include/config/kernel.release but 6.1.0-N-amd64 in utsrelease.h).
KREL_OF = sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' $(1)/include/generated/utsrelease.h
krel = $(shell $(call KREL_OF,$(1)))
KRELS := $(foreach k,$(KDIRS),$(call krel,$(k)))

# Kernel sources linked into each per-release build directory, file by file
# (the objects go there, not into the source tree): kernel/lib/ (pure C
# that userspace compiles too), kernel/common/ (kernel-only code of both
# modules), one directory per module, and the build files.
KSRC := $(filter-out kernel/hpcc_conftest.h kernel/%.mod.c kernel/conftest/%,\
	$(wildcard kernel/*.c kernel/*.h kernel/*/*.c kernel/*/*.h)) kernel/Kbuild kernel/Makefile

modules:
	@test -n "$(KDIRS)" || { echo "no kernel headers: install linux-headers-$$(uname -r), or run tools/deps" >&2; exit 1; }
	@set -e; for kdir in $(KDIRS); do \
		rel=$$($(call KREL_OF,$$kdir)); \
		d=$(BUILD)/$$rel/kernel; mkdir -p $$d; \
		find $$d -type l -delete; \
		ln -sfn $(TOP)/include $(BUILD)/$$rel/include; \
		ln -sfn $(TOP)/VERSION $(BUILD)/$$rel/VERSION; \
		ln -sfn $(TOP)/kernel/conftest $$d/conftest; \
		for f in $(KSRC); do t=$$d/$${f#kernel/}; \
			mkdir -p $${t%/*}; ln -sf $(TOP)/$$f $$t; done; \
		echo "  MODULES $$rel"; \
		$(MAKE) -s -C $$d KDIR=$$kdir modules; \
	done

# --- Userspace ---------------------------------------------------------------
#
# Every C file is compiled to an object under one of four trees, one per
# flag set, with its header dependencies from the compiler (-MMD -MP):
#   build/obj/       programs and tools: U_CFLAGS
#   build/obj-test/  test programs on the kselftest harness: + KSFT_FLAGS
#   build/obj-san/   unit tests of our userspace code: + ASan and UBSan
#   build/obj-fuzz/  libFuzzer targets (clang): FUZZ_FLAGS
CC ?= cc
CFLAGS ?= -O2 -g
U_CPPFLAGS := -D_GNU_SOURCE -DHPCC_VERSION='"$(VERSION)"' -Iinclude/uapi \
	-Iinclude -Idaemon/lib -Ikernel -Idaemon -Itools/include -Itools/replay
U_CFLAGS := -std=gnu11 -Wall -Wextra -Wno-unused-parameter $(CFLAGS)
DEPFLAGS := -MMD -MP
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
# Members of the kernel source package that the tests use: the kselftest
# harness, the networking selftests' lib.sh (namespaces and waits, sourced
# by selftests/lib.sh), checkpatch and the YNL tool.  Extracted once, by
# the targets that need them, and again when this list changes (the stamp
# holds the list it was made from); a host build never does.
LINUX_SRC_TAR ?= $(firstword $(wildcard /usr/src/linux-source-6.12.tar.xz))
LINUX_SRC := $(BUILD)/linux-src
LINUX_SRC_MEMBERS := scripts/checkpatch.pl scripts/spelling.txt \
	scripts/const_structs.checkpatch \
	tools/testing/selftests/kselftest.h \
	tools/testing/selftests/kselftest_harness.h \
	tools/testing/selftests/kselftest/ktap_helpers.sh \
	tools/testing/selftests/net/lib.sh \
	tools/net/ynl Documentation/netlink MAINTAINERS
KSFT_FLAGS := -I$(LINUX_SRC)/tools/testing/selftests -Wno-sign-compare \
	-Wno-clobbered
FUZZ_CC ?= clang
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all

# Objects reached through a chain of pattern rules are kept (make would
# delete them as intermediates and compile them again next time).
.SECONDARY:

# Short lines as Kbuild prints them; V=1 shows the commands.
ifeq ($(V),1)
Q :=
else
Q := @
endif
# make -s prints neither (as Kbuild).
ifneq ($(findstring s,$(firstword -$(MAKEFLAGS))),)
quiet =
else
quiet = $(if $(Q),@echo "  $(1)	$(patsubst $(BUILD)/%,%,$@)")
endif

# obj TREE, SOURCES - the objects of SOURCES in build/TREE/
obj = $(patsubst %.c,$(BUILD)/$(1)/%.o,$(2))

# compile COMPILER, FLAGS - the recipe of an object, with the header
# dependencies the compiler writes beside it
define compile
@mkdir -p $(@D)
$(call quiet,CC)
$(Q)$(1) $(U_CPPFLAGS) $(2) $(DEPFLAGS) -c -o $@ $<
endef

# link LINKER, FLAGS, LIBS - the recipe of a program from its objects
define link
@mkdir -p $(@D)
$(call quiet,LD)
$(Q)$(1) $(2) -o $@ $^ $(3)
endef

$(BUILD)/obj/%.o: %.c
	$(call compile,$(CC),$(U_CFLAGS) $(EXTRA_CFLAGS))
$(BUILD)/obj-test/%.o: %.c | $(LINUX_SRC)/.stamp
	$(call compile,$(CC),$(U_CFLAGS) $(KSFT_FLAGS))
$(BUILD)/obj-san/%.o: %.c | $(LINUX_SRC)/.stamp
	$(call compile,$(CC),$(U_CFLAGS) $(KSFT_FLAGS) $(SAN_FLAGS))
$(BUILD)/obj-fuzz/%.o: %.c
	$(call compile,$(FUZZ_CC),$(FUZZ_FLAGS))

CORE_SRC := kernel/lib/hpcc_core.c
# The rules both modules run (kernel/lib/): FCR codec and holds, CCM codec
# and rule, the message MAC (libsodium in userspace) and its key overlap.
FCR_SRC := kernel/lib/hpcc_fcr.c
CCM_SRC := kernel/lib/hpcc_ccm.c $(FCR_SRC)
OVERLAP_SRC := kernel/lib/hpcc_overlap.c
NMAC_SRC := kernel/lib/hpcc_nmac.c $(OVERLAP_SRC) $(CCM_SRC)
WIRE_SRC := daemon/lib/hpcc_wire.c
DECODE_SRC := daemon/lib/hpcc_decode.c
GENL_SRC := daemon/lib/hpcc_genl.c daemon/lib/hpcc_nl_gen.c
TRACE_SRC := tools/replay/hpcc_trace.c

# What a host runs: the probe daemon (libmnl) and its control tool (libmnl,
# json-c).
PROGRAMS := $(BUILD)/hpccd $(BUILD)/hpccctl
programs: $(PROGRAMS)
# --version prints VERSION.
$(call obj,obj,daemon/hpccd/main.c daemon/hpccctl/main.c): VERSION
HPCCD_SRC := $(addprefix daemon/hpccd/,main.c link.c push.c sender.c lookup.c \
	responder.c stats.c config.c sched.c rx.c xmit.c fanout.c shard.c) \
	daemon/lib/hpcc_auth.c $(CORE_SRC) $(OVERLAP_SRC)
# -z now: no lazy binding, whose resolver saves the vector registers (key
# bytes a copy left there) on the stack at each first call
$(BUILD)/hpccd: $(call obj,obj,$(HPCCD_SRC) $(GENL_SRC) $(WIRE_SRC) $(DECODE_SRC))
	$(call link,$(CC),$(U_CFLAGS) -pthread,-z now -lmnl -lsodium)
HPCCCTL_SRC := $(addprefix daemon/hpccctl/,main.c util.c print.c flow.c param.c \
	fcr.c int.c) daemon/hpccd/config.c
$(BUILD)/hpccctl: $(call obj,obj,$(HPCCCTL_SRC) $(GENL_SRC))
	$(call link,$(CC),$(U_CFLAGS),-lmnl -ljson-c)

# Research and testbed tools: offline replay, the testbed's bottleneck queue
# sampler (libnl-3 route) and sender sampler (sock_diag over libmnl), the
# benchmarks' flow generator and connection holder (the scale benchmark).
TOOLS := $(BUILD)/hpcc-replay $(BUILD)/qsample $(BUILD)/tcpsample $(BUILD)/fctgen \
	$(BUILD)/connhold
tools: $(TOOLS)
$(BUILD)/hpcc-replay: $(call obj,obj,tools/replay/hpcc_replay.c $(TRACE_SRC) $(CORE_SRC))
	$(call link,$(CC),$(U_CFLAGS),-lm)
$(BUILD)/obj/tools/testbed/qsample.o: EXTRA_CFLAGS = $$(pkg-config --cflags libnl-route-3.0)
$(BUILD)/qsample: $(call obj,obj,tools/testbed/qsample.c)
	$(call link,$(CC),$(U_CFLAGS),$$(pkg-config --libs libnl-route-3.0))
$(BUILD)/tcpsample: $(call obj,obj,tools/testbed/tcpsample.c)
	$(call link,$(CC),$(U_CFLAGS),-lmnl)
$(BUILD)/fctgen: $(call obj,obj,tools/bench/fctgen.c)
	$(call link,$(CC),$(U_CFLAGS))
$(BUILD)/connhold: $(call obj,obj,tools/bench/connhold.c)
	$(call link,$(CC),$(U_CFLAGS))
$(BUILD)/core_bench: $(call obj,obj,tools/bench/core_bench.c $(CORE_SRC))
	$(call link,$(CC),$(U_CFLAGS))

# The ns-3 model (sim/ns3/, Documentation/simulation.rst), against Debian's
# libns3-dev (ns-3.37): C++ around the core, the host rules, FCR's codec
# and holds and CCM's rule, which are compiled as C as everywhere else.
SIM_SRC := sim/ns3/hpcc-sim.cc sim/ns3/tcp-hpcc.cc sim/ns3/hpcc-net.cc
NS3_LIBS := -lns3-core -lns3-network -lns3-internet -lns3-point-to-point \
	-lns3-traffic-control -lns3-applications
SIM_CXXFLAGS := -std=c++17 -Wall -Wextra -Wno-unused-parameter $(CFLAGS) -Isim/ns3
$(BUILD)/obj/%.o: %.cc
	$(call compile,$(CXX),$(SIM_CXXFLAGS))
$(BUILD)/hpcc-sim: $(patsubst %.cc,$(BUILD)/obj/%.o,$(SIM_SRC)) $(call obj,obj,$(CORE_SRC) $(CCM_SRC))
	$(call link,$(CXX),,$(NS3_LIBS))
sim: $(BUILD)/hpcc-sim

# Test programs (kselftest harness from the kernel source package).  Those
# that exercise our userspace code run under ASan and UBSan; the others run
# in the guests.  Sources: selftests/unit/ (unit tests), selftests/progs/
# (programs the test scripts run) and selftests/guest/; every binary lands
# in build/selftests/, where the scripts find it ($BIN in selftests/lib.sh).
SELFTEST_PROGS := $(addprefix $(BUILD)/selftests/,tcp_cc_tool cc_sockopt \
	hpcc_nl core_test core_equiv wire_test decode_test sched_test nlgen_test \
	config_test fcr_test ccm_test int_test auth_test rx_test nmac_test \
	send_test fanout_test probe_flood nmac_send unit_sandbox hpccctl_print)
selftest-progs: $(SELFTEST_PROGS)
$(BUILD)/selftests/core_%: $(call obj,obj-san,selftests/unit/core_%.c $(CORE_SRC))
	$(call link,$(CC),$(U_CFLAGS) $(SAN_FLAGS),-lm)
$(BUILD)/selftests/wire_test: $(call obj,obj-san,selftests/unit/wire_test.c $(WIRE_SRC) $(DECODE_SRC))
	$(call link,$(CC),$(U_CFLAGS) $(SAN_FLAGS))
$(BUILD)/selftests/decode_test: $(call obj,obj-san,selftests/unit/decode_test.c $(DECODE_SRC))
	$(call link,$(CC),$(U_CFLAGS) $(SAN_FLAGS))
$(BUILD)/selftests/config_test: $(call obj,obj-san,selftests/unit/config_test.c daemon/hpccd/config.c)
	$(call link,$(CC),$(U_CFLAGS) $(SAN_FLAGS))
$(BUILD)/selftests/auth_test: $(call obj,obj-san,selftests/unit/auth_test.c daemon/lib/hpcc_auth.c daemon/hpccd/config.c $(WIRE_SRC) $(OVERLAP_SRC))
	$(call link,$(CC),$(U_CFLAGS) $(SAN_FLAGS),-lsodium)
$(BUILD)/selftests/rx_test: $(call obj,obj-san,selftests/unit/rx_test.c daemon/hpccd/rx.c $(CORE_SRC))
	$(call link,$(CC),$(U_CFLAGS) $(SAN_FLAGS))
$(BUILD)/selftests/fcr_test: $(call obj,obj-san,selftests/unit/fcr_test.c $(FCR_SRC))
	$(call link,$(CC),$(U_CFLAGS) $(SAN_FLAGS))
$(BUILD)/selftests/nmac_test: $(call obj,obj-san,selftests/unit/nmac_test.c $(NMAC_SRC))
	$(call link,$(CC),$(U_CFLAGS) $(SAN_FLAGS),-lsodium)
$(BUILD)/selftests/ccm_test: $(call obj,obj-san,selftests/unit/ccm_test.c $(CCM_SRC))
	$(call link,$(CC),$(U_CFLAGS) $(SAN_FLAGS))
$(BUILD)/selftests/int_test: $(call obj,obj-san,selftests/unit/int_test.c)
	$(call link,$(CC),$(U_CFLAGS) $(SAN_FLAGS))
$(BUILD)/selftests/sched_test: $(call obj,obj-san,selftests/unit/sched_test.c daemon/hpccd/sched.c)
	$(call link,$(CC),$(U_CFLAGS) $(SAN_FLAGS))
$(BUILD)/selftests/send_test: $(call obj,obj-san,selftests/unit/send_test.c daemon/hpccd/xmit.c daemon/hpccd/sched.c)
	$(call link,$(CC),$(U_CFLAGS) $(SAN_FLAGS),-lsodium)
# libpcap: its classic BPF interpreter runs the fanout programs
$(BUILD)/selftests/fanout_test: $(call obj,obj-san,selftests/unit/fanout_test.c daemon/hpccd/fanout.c $(WIRE_SRC))
	$(call link,$(CC),$(U_CFLAGS) $(SAN_FLAGS),-lpcap)
$(BUILD)/selftests/nlgen_test: $(call obj,obj-san,selftests/unit/nlgen_test.c $(GENL_SRC))
	$(call link,$(CC),$(U_CFLAGS) $(SAN_FLAGS),-lmnl)
$(BUILD)/selftests/hpcc_nl: $(call obj,obj,selftests/progs/hpcc_nl.c $(GENL_SRC))
	$(call link,$(CC),$(U_CFLAGS),-lmnl)
# hpccctl's flow and int printers, for host/hpccctl.sh (its -I: hpccctl's
# headers)
$(BUILD)/obj-san/selftests/progs/hpccctl_print.o: U_CFLAGS += -Idaemon/hpccctl
$(BUILD)/selftests/hpccctl_print: $(call obj,obj-san,selftests/progs/hpccctl_print.c \
	$(addprefix daemon/hpccctl/,flow.c util.c print.c fcr.c int.c) \
	daemon/hpccd/config.c $(GENL_SRC))
	$(call link,$(CC),$(U_CFLAGS) $(SAN_FLAGS),-lmnl -ljson-c)
$(BUILD)/selftests/nmac_send: $(call obj,obj,selftests/progs/nmac_send.c $(NMAC_SRC))
	$(call link,$(CC),$(U_CFLAGS),-lsodium)
$(BUILD)/selftests/probe_flood: $(call obj,obj,selftests/progs/probe_flood.c $(WIRE_SRC))
	$(call link,$(CC),$(U_CFLAGS))
# unit_sandbox's SystemCallFilter=: this architecture's system call numbers
# by name, from the C library's headers
$(BUILD)/selftests/syscall_names.h:
	@mkdir -p $(@D)
	echo '#include <sys/syscall.h>' | $(CC) -dM -E - | \
		awk '$$2 ~ /^__NR_/ && $$3 ~ /^[0-9]+$$/ { printf "{ \"%s\", %s },\n", substr($$2, 6), $$3 }' > $@
$(BUILD)/obj/selftests/progs/unit_sandbox.o: EXTRA_CFLAGS = -I$(BUILD)/selftests
$(BUILD)/obj/selftests/progs/unit_sandbox.o: $(BUILD)/selftests/syscall_names.h
$(BUILD)/selftests/unit_sandbox: $(call obj,obj,selftests/progs/unit_sandbox.c)
	$(call link,$(CC),$(U_CFLAGS))
$(BUILD)/selftests/tcp_cc_tool: $(call obj,obj-test,selftests/progs/tcp_cc_tool.c)
	$(call link,$(CC),$(U_CFLAGS) -pthread)
$(BUILD)/selftests/cc_sockopt: $(call obj,obj-test,selftests/guest/cc_sockopt.c)
	$(call link,$(CC),$(U_CFLAGS))

# libFuzzer targets (clang), with ASan and UBSan.
FUZZ_PROGS := $(BUILD)/fuzz/fuzz_replay $(BUILD)/fuzz/fuzz_wire $(BUILD)/fuzz/fuzz_config \
	$(BUILD)/fuzz/fuzz_decode $(BUILD)/fuzz/fuzz_fcr $(BUILD)/fuzz/fuzz_ccm
fuzz-progs: $(FUZZ_PROGS)
$(BUILD)/fuzz/fuzz_wire: $(call obj,obj-fuzz,selftests/fuzz/fuzz_wire.c $(WIRE_SRC) daemon/lib/hpcc_auth.c daemon/hpccd/config.c $(OVERLAP_SRC))
	$(call link,$(FUZZ_CC),$(FUZZ_FLAGS),-lsodium)
$(BUILD)/fuzz/fuzz_decode: $(call obj,obj-fuzz,selftests/fuzz/fuzz_decode.c $(DECODE_SRC))
	$(call link,$(FUZZ_CC),$(FUZZ_FLAGS))
$(BUILD)/fuzz/fuzz_fcr: $(call obj,obj-fuzz,selftests/fuzz/fuzz_fcr.c $(NMAC_SRC))
	$(call link,$(FUZZ_CC),$(FUZZ_FLAGS),-lsodium)
$(BUILD)/fuzz/fuzz_ccm: $(call obj,obj-fuzz,selftests/fuzz/fuzz_ccm.c $(NMAC_SRC))
	$(call link,$(FUZZ_CC),$(FUZZ_FLAGS),-lsodium)
$(BUILD)/fuzz/fuzz_config: $(call obj,obj-fuzz,selftests/fuzz/fuzz_config.c daemon/hpccd/config.c)
	$(call link,$(FUZZ_CC),$(FUZZ_FLAGS))
$(BUILD)/fuzz/fuzz_replay: $(call obj,obj-fuzz,selftests/fuzz/fuzz_replay.c $(TRACE_SRC) $(CORE_SRC))
	$(call link,$(FUZZ_CC),$(FUZZ_FLAGS))

-include $(shell find $(BUILD)/obj $(BUILD)/obj-test $(BUILD)/obj-san \
	$(BUILD)/obj-fuzz -name '*.d' 2>/dev/null)

ifneq ($(strip $(file <$(LINUX_SRC)/.stamp)),$(strip $(LINUX_SRC_MEMBERS)))
$(LINUX_SRC)/.stamp: FORCE
endif
$(LINUX_SRC)/.stamp:
	@test -n "$(LINUX_SRC_TAR)" || { echo "linux-source-6.12 missing; run tools/deps" >&2; exit 1; }
	@mkdir -p $(LINUX_SRC)
	tar -xJf $(LINUX_SRC_TAR) -C $(LINUX_SRC) --strip-components=1 \
		$(addprefix $(notdir $(basename $(basename $(LINUX_SRC_TAR))))/,$(LINUX_SRC_MEMBERS))
	@echo '$(LINUX_SRC_MEMBERS)' > $@
linux-src: $(LINUX_SRC)/.stamp
FORCE:

# --- Entry points behind deps (DEPS_ENTRIES and check) ----------------------

# check also fetches Debian 11's 5.10 headers once (tools/kheaders 5.10:
# the package lists and 12 MB of packages, about 30 s), the oldest kernel
# of the matrix, which new code is likeliest to break: compat.sh builds
# the modules for it and compiles both outcomes of the probes it
# separates; once unpacked, they are not fetched again.  Without the
# archive (or after 5 minutes) the host's kernels alone are built, and
# compat.sh's skips name the missing kernel.
run-check: $(CHECK_BUILD)
	@$(MAKE) --no-print-directory check-tests
check-tests:
	@timeout 300 tools/kheaders 5.10 > /dev/null || \
		echo "check: no 5.10 headers (tools/kheaders 5.10 failed)"
	@$(TEST_MAKEFLAGS) bash selftests/run

# The performance test (e2e.sh) on every kernel: check runs it on the newest
# one only, to stay within its 30 minutes (Documentation/testing.rst).
run-check-e2e: all tools selftest-progs linux-src
	@$(TEST_MAKEFLAGS) HPCC_E2E_ONLY=1 bash selftests/run

# The kernel matrix: Debian 11's 5.10, Debian 12's 6.1 and 6.12, unstable's
# 7.2 (the two not installed here unpacked by tools/kheaders --images, the
# modules built for each), every guest test on each: the functional tests,
# unload.sh included, one guest per host core, then e2e.sh on each (check
# runs the functional tests on one kernel, to stay within its 30 minutes).
# The sub-makes read this file again, so KDIRS has the images unpacked;
# they build what check builds (the host tests are check's), a job per core.
check-kernels:
	@sh tools/deps --debug
	@tools/kheaders --images > /dev/null
	@$(MAKE) --no-print-directory -j$$(nproc) $(CHECK_BUILD)
	@$(MAKE) --no-print-directory run-check-kernels
run-check-kernels: $(CHECK_BUILD)
	@$(TEST_MAKEFLAGS) HPCC_ALL_KERNELS=1 bash selftests/run

# The functional guest tests on the debugging kernel (KASAN, lockdep,
# kmemleak, DEBUG_ATOMIC_SLEEP, DEBUG_OBJECTS_RCU_HEAD, KFENCE), built once
# from linux-source-6.12 into build/kdebug/ by tools/kdebug.  Not part of
# check (the first build takes 10 to 25 minutes on 2 cores, a run of the
# three parts hours): Documentation/testing.rst, "Debugging kernel".
KDEBUG_DIR := $(BUILD)/kdebug
check-debug:
	@sh tools/deps --debug
	@$(MAKE) --no-print-directory run-check-debug
run-check-debug: programs tools selftest-progs linux-src
	@tools/kdebug
	@$(MAKE) --no-print-directory modules KDIR=$(KDEBUG_DIR)/obj HPCC_FAULT_INJECT=y
	@$(TEST_MAKEFLAGS) HPCC_DEBUG=1 HPCC_DEBUG_PART=$(PART) bash selftests/run

run-demo: all tools
	@bash tools/demo

# The evaluation suite: hpcc, cubic, bbr and dctcp on the testbed, in one
# guest (6.12 unless BENCH_KERNEL names another); report and plots in
# build/bench/DATE-full/ (or -quick).  Documentation/evaluation.rst.
run-bench: all tools
	@tools/bench/run
run-bench-quick: all tools
	@tools/bench/run --quick

# The ns-3 model at scale (tools/sim/run): HPCC with hpccd's probes, HPCC
# with per-packet INT, DCTCP and CUBIC in the HPCC paper's fat tree;
# tables, plots and report.md in build/sim/DATE-full/ (or -quick).
# Documentation/simulation.rst.
run-bench-sim: sim
	@tools/sim/run
run-bench-sim-quick: sim
	@tools/sim/run --quick

# The benchmarks run their guests in multi-threaded TCG, on which their
# figures were measured (tools/bench/run says why); BENCH_ACCEL=tcg1 to
# compare.
BENCH_ACCEL ?= mttcg
export BENCH_ACCEL

# Per-ACK cost of hpcc against cubic, in a guest on each kernel (ftrace).
run-bench-ack: all
	@for k in $${HPCC_KERNELS:-6.1 6.12}; do \
		echo "== kernel $$k"; \
		tools/vmrun --kernel $$k --timeout 600 --accel $(BENCH_ACCEL) -- bash tools/bench/ack_cost.sh | grep --line-buffered -v '^\['; \
	done

# hpccd's cost: responses per CPU second, CPU per 100 flows (guest, 6.12).
# 100,000 connections: 4 GiB guest, single-threaded TCG (the benchmark
# measures CPU and memory, not goodput); SCALE_FLOWS, SCALE_ACTIVE,
# SCALE_WINDOW_S as in tools/bench/scale.sh.
run-bench-scale: all tools
	@tools/vmrun --kernel $${HPCC_KERNEL:-6.12} --timeout 5400 --mem 4096 -- \
		env SCALE_FLOWS=$${SCALE_FLOWS:-100000} SCALE_ACTIVE=$${SCALE_ACTIVE:-100} \
		SCALE_WINDOW_S=$${SCALE_WINDOW_S:-20} bash tools/bench/scale.sh
# The CCM benchmarks (tools/bench/ccm.sh): an ECMP collision, the
# same with incast at a last hop, and a flap; hpcc with CCM, hpcc without,
# dctcp with PLB on the leaf-spine testbed, in one
# guest (6.12 unless HPCC_KERNEL names another); raw results and report.md
# in build/bench/DATE-ccm/.  Documentation/evaluation.rst.
run-bench-ccm: all tools
	@out=build/bench/$$(date -u +%Y%m%d-%H%M%S)-ccm && mkdir -p $$out && \
	tools/vmrun --kernel $${HPCC_KERNEL:-6.12} --timeout 3000 --mem 2048 --accel $(BENCH_ACCEL) -- \
		env CCM_REPS=$${CCM_REPS:-3} bash tools/bench/ccm.sh "$(CURDIR)/$$out" | grep --line-buffered -v '^\['; \
	/usr/bin/python3 tools/bench/ccm_report.py $$out
# The software INT hop's per-packet forwarding cost against the kernel's own
# forwarding (tools/bench/fwd_cost.sh), in a guest whose nr_cpu_ids is 64
# (6.1: 6.12's x86 topology code ignores possible_cpus=);
# FWD_MODULES="NAME=PATH ..." compares several hpcc_int.ko builds.  It
# runs single-threaded TCG whatever BENCH_ACCEL says: each timed pass
# patches kernel text (ftrace), which stalled an mttcg guest in
# smp_call_function_many_cond() for 78 s and more (soft lockups).
run-bench-fwd: all
	@tools/vmrun --kernel $${HPCC_KERNEL:-6.1} --timeout 1800 --accel tcg1 \
		--maxcpus 64 --append possible_cpus=64 -- \
		env FWD_MODULES="$${FWD_MODULES:-}" REPS=$${REPS:-3} bash tools/bench/fwd_cost.sh | grep --line-buffered -v '^\['
run-bench-daemon: all
	@for k in $${HPCC_KERNELS:-6.12}; do \
		echo "== kernel $$k"; \
		tools/vmrun --kernel $$k --timeout 2400 --accel $(BENCH_ACCEL) -- \
			env DAEMONS="$${DAEMONS:-}" REPS=$${REPS:-1} $$(for v in FLOWS RATE RUN_S FLOOD_S DELAY_MS; do \
				eval "[ -z \"\$${$$v:-}\" ] || echo $$v=\$$$$v"; done) \
			bash tools/bench/daemon_cost.sh | grep --line-buffered -v '^\['; \
	done

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

# The netlink API, include/uapi/linux/hpcc.h and hpcc_int.h, the kernel's
# policies (kernel/*/nl_policy.h) and the client's tables and typed
# structures (daemon/lib/hpcc_nl_gen.[ch]), all generated from the YNL specs;
# the wire format (hpcc_wire.h) is ours.
uapi: linux-src
	@sh tools/ynl-uapi hpcc include/uapi/linux/hpcc.h
	@echo "  GEN     include/uapi/linux/hpcc.h"
	@sh tools/ynl-uapi hpcc-int include/uapi/linux/hpcc_int.h
	@echo "  GEN     include/uapi/linux/hpcc_int.h"
	@python3 tools/ynl-client daemon/lib/hpcc_nl_gen.h daemon/lib/hpcc_nl_gen.c \
		Documentation/netlink/specs/hpcc.yaml Documentation/netlink/specs/hpcc-int.yaml
	@echo "  GEN     daemon/lib/hpcc_nl_gen.[ch]"
	@sh tools/ynl-policy hpcc kernel/tcp_hpcc/nl_policy.h
	@sh tools/ynl-policy hpcc-int kernel/hpcc_int/nl_policy.h
	@echo "  GEN     kernel/tcp_hpcc/nl_policy.h kernel/hpcc_int/nl_policy.h"

# CAMELCASE: the only hit is the kernel's own struct Qdisc.  checkpatch
# writes its .checkpatch-camelcase.* cache into the directory it runs in:
# it runs in build/, with GIT_DIR naming the project's repository.
CHECKPATCH_FILES := $(filter-out kernel/Kbuild kernel/Makefile,$(KSRC)) \
	$(wildcard kernel/conftest/*.c)
checkpatch: linux-src
	@cd $(BUILD) && GIT_DIR=$(TOP)/.git perl $(LINUX_SRC)/scripts/checkpatch.pl --no-tree --strict --quiet \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG,CAMELCASE \
		-f $(addprefix $(TOP)/,$(CHECKPATCH_FILES)) \
		&& echo "checkpatch: clean"

install: install-modules install-programs

# Programs, man pages, the systemd unit and an example configuration (kept
# if one exists).  DESTDIR and PREFIX as usual.
SBINDIR := $(PREFIX)/sbin
MANDIR := $(PREFIX)/share/man
UNITDIR ?= $(PREFIX)/lib/systemd/system
install-programs: $(PROGRAMS)
	install -D -m 755 $(BUILD)/hpccd $(DESTDIR)$(SBINDIR)/hpccd
	install -D -m 755 $(BUILD)/hpccctl $(DESTDIR)$(SBINDIR)/hpccctl
	install -D -m 644 daemon/hpccd/hpccd.8 $(DESTDIR)$(MANDIR)/man8/hpccd.8
	install -D -m 644 daemon/hpccctl/hpccctl.8 $(DESTDIR)$(MANDIR)/man8/hpccctl.8
	mkdir -p $(DESTDIR)$(UNITDIR)
	sed 's|@SBINDIR@|$(SBINDIR)|g' daemon/hpccd/hpccd.service.in \
		> $(DESTDIR)$(UNITDIR)/hpccd.service
	test -e $(DESTDIR)/etc/hpcc/hpccd.conf || \
		install -D -m 644 daemon/hpccd/hpccd.conf $(DESTDIR)/etc/hpcc/hpccd.conf

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
	cp -r --parents $(KSRC) kernel/conftest $(DKMS_SRC)/

dkms: dkms-src
	dkms add -m tcp-hpcc -v $(VERSION) || true
	@set -e; for rel in $(KRELS); do \
		dkms build -m tcp-hpcc -v $(VERSION) -k $$rel; \
		dkms install -m tcp-hpcc -v $(VERSION) -k $$rel --force; \
	done

dkms-remove:
	-dkms remove -m tcp-hpcc -v $(VERSION) --all
	rm -rf $(DKMS_SRC)

# Everything the build, the tests and the demo create, in build/ and in the
# source tree (an in-tree `make -C kernel`, as DKMS runs it, leaves its
# objects in kernel/); benchmark results under build/bench/, the
# debugging kernel under build/kdebug/ (an hour to build) and other
# kernels' headers under build/kheaders/ (tools/kheaders) are kept:
# distclean removes them.
clean:
	@if [ -d $(BUILD) ]; then \
		find $(BUILD) -mindepth 1 -maxdepth 1 ! -name bench ! -name sim ! -name kdebug ! -name kheaders -exec rm -rf {} +; \
	fi
	rm -f kernel/hpcc_conftest.h kernel/hpcc_conftest.h.log
	find kernel \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '.*.cmd' -o -name '*.o.d' -o -name modules.order \
		-o -name Module.symvers \) -type f -delete
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(BUILD)

.PHONY: all deps modules programs tools sim selftest-progs fuzz-progs linux-src \
	$(DEPS_ENTRIES) $(addprefix run-,$(DEPS_ENTRIES)) install install-programs \
	install-modules uninstall dkms-src dkms dkms-remove clean distclean \
	check run-check check-tests checkpatch uapi bench-core check-debug run-check-debug FORCE
