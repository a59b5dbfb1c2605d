// SPDX-License-Identifier: GPL-2.0
/*
 * nmac_send - send one FCR message or CCM notification, signed in
 * userspace with libsodium's SipHash-2-4 (kernel/lib/hpcc_nmac.c) or not, to
 * a host's FCR port: how selftests/guest/nmac.sh checks that tcp_hpcc's
 * siphash() verifies what an independent implementation signs.
 *
 *   nmac_send DST PORT fcr|ccm [KEY_ID HEX32]
 *
 * The message is about a flow no host has (IPv4 10.99.0.1:1 to
 * 10.99.0.2:2), so an authentic one is counted and then refused as
 * fcr-no-flow or ccm-no-flow.  Exit 0 when sent.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/hpcc_nmac.h"
#include "lib/hpcc_ccm.h"

static int hex(const char *h, unsigned char *out, unsigned int len)
{
	unsigned int i, b;

	if (strlen(h) != 2 * len)
		return -1;
	for (i = 0; i < len; i++) {
		if (sscanf(h + 2 * i, "%2x", &b) != 1)
			return -1;
		out[i] = b;
	}
	return 0;
}

int main(int ac, char **av)
{
	static const unsigned char s4[16] = { [10] = 0xff, [11] = 0xff,
					      10, 99, 0, 1 };
	static const unsigned char d4[16] = { [10] = 0xff, [11] = 0xff,
					      10, 99, 0, 2 };
	unsigned char b[HPCC_WIRE_FCR_LEN + HPCC_WIRE_NMAC_LEN];
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in6 *a6 = (void *)&ss;
	struct sockaddr_in *a4 = (void *)&ss;
	struct hpcc_nmac_key k = { 0 };
	unsigned int len;
	socklen_t sl;
	int fd;

	if ((ac != 4 && ac != 6) || sodium_init() < 0)
		goto usage;
	if (!strcmp(av[3], "fcr")) {
		struct hpcc_fcr_msg m = { .family = 4, .switch_id = 9,
					  .port_id = 1, .rate = 10000000,
					  .seq = 1, .round = 1,
					  .interval = 1000, .sport = 1,
					  .dport = 2 };

		memcpy(m.saddr, s4, 16);
		memcpy(m.daddr, d4, 16);
		hpcc_fcr_encode(b, &m);
		len = HPCC_WIRE_FCR_LEN;
	} else if (!strcmp(av[3], "ccm")) {
		struct hpcc_ccm_msg m = { .family = 4,
					  .ntype = HPCC_CCM_CC_REQUIRED,
					  .switch_id = 9, .port_id = 1,
					  .seq = 1, .sport = 1, .dport = 2 };

		memcpy(m.saddr, s4, 16);
		memcpy(m.daddr, d4, 16);
		hpcc_ccm_encode(b, &m);
		len = HPCC_WIRE_CCM_LEN;
	} else {
		goto usage;
	}
	if (ac == 6) {
		k.id = strtoul(av[4], NULL, 0);
		if (hex(av[5], k.key, sizeof(k.key)))
			goto usage;
		len = hpcc_nmac_sign(b, len, &k);
	}
	if (inet_pton(AF_INET, av[1], &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(atoi(av[2]));
		sl = sizeof(*a4);
	} else if (inet_pton(AF_INET6, av[1], &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(atoi(av[2]));
		sl = sizeof(*a6);
	} else {
		goto usage;
	}
	fd = socket(ss.ss_family, SOCK_DGRAM, 0);
	if (fd < 0 || sendto(fd, b, len, 0, (void *)&ss, sl) != (ssize_t)len) {
		perror("nmac_send");
		return 1;
	}
	close(fd);
	return 0;
usage:
	fprintf(stderr, "usage: nmac_send DST PORT fcr|ccm [KEY_ID HEX32]\n");
	return 2;
}
