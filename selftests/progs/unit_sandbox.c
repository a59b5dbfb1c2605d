// SPDX-License-Identifier: GPL-2.0
/*
 * unit_sandbox - run a command under the sandbox properties of a systemd
 * unit's [Service] section, without systemd: hpccd's tests run it under
 * daemon/hpccd/hpccd.service.in's own restrictions (so that a restriction
 * that breaks hpccd, such as one turning IPv6 off, fails a test) in guests
 * that do not boot systemd, and on the host.
 *
 *   unit_sandbox UNIT-FILE CMD [ARG...]
 *
 * Applied as systemd applies them (systemd.exec(5)):
 *  - RestrictAddressFamilies=: a seccomp filter; socket(2) of a family
 *    not listed (or, after ~, listed) fails with EAFNOSUPPORT
 *  - SystemCallFilter=: the same filter allows the calls of the first
 *    line's list less those of the ~ lines; another call kills the
 *    process (systemd's default action, SIGSYS); @groups are expanded by
 *    `systemd-analyze syscall-filter`, names unknown to this architecture
 *    (selftests' syscall_names.h, from <sys/syscall.h>) skipped
 *  - SystemCallArchitectures=native: other architectures' calls kill
 *  - DynamicUser=yes: runs as an unprivileged user, uid and gid 65534
 *  - CapabilityBoundingSet=, AmbientCapabilities=: the bounding set
 *    reduced to the list, the ambient set raised to the other
 *  - NoNewPrivileges=yes, UMask=, LimitCORE=
 * Printed, one "unit_sandbox: not applied: KEY" line each on stderr: the
 * other keys (mount namespaces, Protect*=, ...), which the caller's test
 * must not depend on.  An unknown capability or address
 * family name is an error (exit 125), so that a unit change is noticed.
 */
#include <errno.h>
#include <grp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#if defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#else
#error "unit_sandbox: add this architecture's AUDIT_ARCH"
#endif

#define MAX_FAM 32
#define MAX_NR 1024

/* this architecture's system calls: { "name", number }, ... */
static const struct { const char *name; int nr; } syscalls[] = {
#include "syscall_names.h"
};

static const struct { const char *name; int v; } families[] = {
	{ "AF_UNIX", AF_UNIX }, { "AF_LOCAL", AF_LOCAL },
	{ "AF_INET", AF_INET }, { "AF_INET6", AF_INET6 },
	{ "AF_NETLINK", AF_NETLINK }, { "AF_PACKET", AF_PACKET },
};

static const struct { const char *name; int v; } caps[] = {
	{ "CAP_NET_ADMIN", CAP_NET_ADMIN }, { "CAP_NET_RAW", CAP_NET_RAW },
	{ "CAP_NET_BIND_SERVICE", CAP_NET_BIND_SERVICE },
	{ "CAP_SYS_ADMIN", CAP_SYS_ADMIN }, { "CAP_DAC_OVERRIDE", CAP_DAC_OVERRIDE },
};

/* What the [Service] section asks for. */
static struct {
	int fam[MAX_FAM], n_fam;
	int fam_deny, fam_set;
	int native;
	int dynamic_user;
	int no_new_privs;
	unsigned long long bounding, ambient;
	int bounding_set;
	long umask_v;
	long core;
	int filter_set;
	unsigned char allow[MAX_NR];
} u = { .umask_v = -1, .core = -1 };

static void die(const char *what, const char *v)
{
	fprintf(stderr, "unit_sandbox: %s '%s'\n", what, v);
	exit(125);
}

static int family(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (!strcmp(name, families[i].name))
			return families[i].v;
	die("unknown address family", name);
	return -1;
}

static unsigned long long cap_mask(char *v)
{
	unsigned long long m = 0;
	char *tok, *save;
	size_t i;

	for (tok = strtok_r(v, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		for (i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
			if (!strcmp(tok, caps[i].name))
				break;
		if (i == sizeof(caps) / sizeof(caps[0]))
			die("unknown capability", tok);
		m |= 1ULL << caps[i].v;
	}
	return m;
}

/*
 * syscall_set() - allow (@on) or not the system call or @group @name, a
 * group through `systemd-analyze syscall-filter` (nested groups too)
 */
static void syscall_set(const char *name, int on, int depth)
{
	char cmd[128], line[128], *w;
	size_t i;
	FILE *f;

	if (name[0] != '@') {
		for (i = 0; i < sizeof(syscalls) / sizeof(syscalls[0]); i++)
			if (!strcmp(name, syscalls[i].name) &&
			    syscalls[i].nr < MAX_NR)
				u.allow[syscalls[i].nr] = (unsigned char)on;
		return;
	}
	if (depth > 8 || strlen(name) > 64 || strspn(name + 1,
	    "abcdefghijklmnopqrstuvwxyz-") != strlen(name + 1))
		die("bad system call group", name);
	snprintf(cmd, sizeof(cmd), "systemd-analyze syscall-filter %s", name);
	f = popen(cmd, "r");
	if (!f)
		die("cannot run", cmd);
	/* "@group", then indented members, "# comments" */
	if (!fgets(line, sizeof(line), f) || strncmp(line, name, strlen(name)))
		die("systemd-analyze does not know", name);
	while (fgets(line, sizeof(line), f)) {
		w = line + strspn(line, " \t");
		w[strcspn(w, " \t\r\n")] = 0;
		if (*w && *w != '#')
			syscall_set(w, on, depth + 1);
	}
	if (pclose(f))
		die("failed:", cmd);
}

static int yes(const char *v)
{
	return !strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "1");
}

static void service_key(char *k, char *v)
{
	char *tok, *save;

	if (!strcmp(k, "RestrictAddressFamilies")) {
		u.fam_set = 1;
		if (*v == '~') {
			u.fam_deny = 1;
			v++;
		}
		for (tok = strtok_r(v, " \t", &save); tok;
		     tok = strtok_r(NULL, " \t", &save)) {
			if (u.n_fam == MAX_FAM)
				die("too many families at", tok);
			u.fam[u.n_fam++] = family(tok);
		}
	} else if (!strcmp(k, "SystemCallFilter")) {
		int on = 1;

		if (*v == '~') {
			on = 0;
			v++;
		}
		/* a first line that denies allows everything else */
		if (!u.filter_set && !on)
			memset(u.allow, 1, sizeof(u.allow));
		u.filter_set = 1;
		for (tok = strtok_r(v, " \t", &save); tok;
		     tok = strtok_r(NULL, " \t", &save))
			syscall_set(tok, on, 0);
	} else if (!strcmp(k, "SystemCallArchitectures")) {
		u.native = !strcmp(v, "native");
	} else if (!strcmp(k, "DynamicUser")) {
		u.dynamic_user = yes(v);
	} else if (!strcmp(k, "NoNewPrivileges")) {
		u.no_new_privs = yes(v);
	} else if (!strcmp(k, "CapabilityBoundingSet")) {
		u.bounding |= cap_mask(v);
		u.bounding_set = 1;
	} else if (!strcmp(k, "AmbientCapabilities")) {
		u.ambient |= cap_mask(v);
	} else if (!strcmp(k, "UMask")) {
		u.umask_v = strtol(v, NULL, 8);
	} else if (!strcmp(k, "LimitCORE")) {
		u.core = strtol(v, NULL, 10);
	} else if (strncmp(k, "Exec", 4) && strcmp(k, "Type") &&
		   strncmp(k, "Restart", 7)) {
		fprintf(stderr, "unit_sandbox: not applied: %s\n", k);
	}
}

static void read_unit(const char *path)
{
	char line[1024], *k, *v, *e;
	int service = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		die("cannot open", path);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = 0;
		k = line + strspn(line, " \t");
		if (*k == '[') {
			service = !strcmp(k, "[Service]");
			continue;
		}
		if (!service || !*k || *k == '#' || *k == ';')
			continue;
		v = strchr(k, '=');
		if (!v)
			die("not KEY=VALUE", k);
		*v++ = 0;
		for (e = v - 1; e > k && (e[-1] == ' ' || e[-1] == '\t'); e--)
			e[-1] = 0;
		v += strspn(v, " \t");
		service_key(k, v);
	}
	fclose(f);
}

/*
 * The seccomp filter: the architecture; socket(2)'s first argument, the
 * family, against RestrictAddressFamilies=; then SystemCallFilter='s
 * list (two instructions a call: a jump offset has 8 bits).
 */
static void seccomp_filter(void)
{
	static struct sock_filter f[16 + MAX_FAM + 2 * MAX_NR];
	struct sock_fprog prog = { .filter = f };
	unsigned int n = 0;
	int i;

	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		offsetof(struct seccomp_data, arch));
	f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
		NATIVE_ARCH, 1, 0);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
		u.native ? SECCOMP_RET_KILL_PROCESS : SECCOMP_RET_ALLOW);
	f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		offsetof(struct seccomp_data, nr));
	/* socket(): the family decides, when the call list allows it */
	if (!u.filter_set || u.allow[__NR_socket]) {
		f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ |
			BPF_K, __NR_socket, 0, (unsigned int)u.n_fam + 3);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W |
			BPF_ABS, offsetof(struct seccomp_data, args[0]));
		/* a listed family jumps over the n_fam - i - 1 other tests
		 * and the verdict for unlisted ones
		 */
		for (i = 0; i < u.n_fam; i++)
			f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP |
				BPF_JEQ | BPF_K, (unsigned int)u.fam[i],
				u.n_fam - i, 0);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			u.fam_deny ? SECCOMP_RET_ALLOW :
			SECCOMP_RET_ERRNO | EAFNOSUPPORT);
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			u.fam_deny ? SECCOMP_RET_ERRNO | EAFNOSUPPORT :
			SECCOMP_RET_ALLOW);
	}
	if (u.filter_set) {
		for (i = 0; i < MAX_NR; i++) {
			if (!u.allow[i])
				continue;
			f[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP |
				BPF_JEQ | BPF_K, (unsigned int)i, 0, 1);
			f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
				SECCOMP_RET_ALLOW);
		}
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			SECCOMP_RET_KILL_PROCESS);
	} else {
		f[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
			SECCOMP_RET_ALLOW);
	}
	prog.len = (unsigned short)n;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		die("seccomp", strerror(errno));
}

static void drop_user(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2] = { { 0 } };
	int c;

	if (u.bounding_set)
		for (c = 0; c <= 63; c++)
			if (!(u.bounding >> c & 1) &&
			    prctl(PR_CAPBSET_DROP, c, 0, 0, 0) && errno != EINVAL)
				die("PR_CAPBSET_DROP", strerror(errno));
	if (!u.dynamic_user)
		return;
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setgroups(0, NULL) ||
	    setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		die("cannot become uid 65534", strerror(errno));
	d[0].permitted = d[0].inheritable = (unsigned int)u.ambient;
	d[1].permitted = d[1].inheritable = (unsigned int)(u.ambient >> 32);
	if (syscall(SYS_capset, &h, d))
		die("capset", strerror(errno));
	for (c = 0; c <= 63; c++)
		if (u.ambient >> c & 1 &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, c, 0, 0))
			die("PR_CAP_AMBIENT_RAISE", strerror(errno));
}

int main(int argc, char **argv)
{
	struct rlimit rl;

	if (argc < 3) {
		fprintf(stderr, "usage: unit_sandbox UNIT-FILE CMD [ARG...]\n");
		return 125;
	}
	read_unit(argv[1]);
	if (u.umask_v >= 0)
		umask((mode_t)u.umask_v);
	if (u.core >= 0) {
		rl.rlim_cur = rl.rlim_max = (rlim_t)u.core;
		if (setrlimit(RLIMIT_CORE, &rl))
			die("LimitCORE", strerror(errno));
	}
	drop_user();
	if (u.no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("NoNewPrivileges", strerror(errno));
	if (!u.fam_set)
		u.fam_deny = 1;		/* an empty deny list: every family */
	if (u.fam_set || u.native || u.filter_set) {
		/* seccomp needs no_new_privs or CAP_SYS_ADMIN */
		if (!u.no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			die("no_new_privs", strerror(errno));
		seccomp_filter();
	}
	execvp(argv[2], argv + 2);
	die("exec", argv[2]);
	return 125;
}
