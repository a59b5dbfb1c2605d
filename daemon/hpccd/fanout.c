// SPDX-License-Identifier: GPL-2.0
/*
 * fanout.c - how hpccd's shards split flows (fanout.h).
 */
#include <sys/socket.h>
#include <arpa/inet.h>

#include "fanout.h"

#define FANOUT_MUL	0x9e3779b1u

uint32_t hpccd_fanout_hash(const struct hpcc_tuple *t)
{
	uint32_t a = 0, p = ntohs(t->sport) ^ ntohs(t->dport);
	int i;

	if (t->family == AF_INET6) {
		for (i = 0; i < 16; i += 4)
			a ^= hpcc_get32(t->saddr6 + i) ^ hpcc_get32(t->daddr6 + i);
	} else {
		a = ntohl(t->saddr) ^ ntohl(t->daddr);
	}
	return ((a ^ p) * FANOUT_MUL) >> 16;
}

/* the tail both families share: X the offset of the ports, M[0] the
 * addresses' XOR, M[1] the protocol; returns the instructions written
 */
static unsigned int prog_tail(struct sock_filter *c)
{
	struct sock_filter tail[] = {
		/* not TCP: behind the IFA header */
		BPF_STMT(BPF_LD | BPF_MEM, 1),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 3, 0),
		BPF_STMT(BPF_MISC | BPF_TXA, 0),
		BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, 4),
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		/* the ports */
		BPF_STMT(BPF_LD | BPF_H | BPF_IND, 0),
		BPF_STMT(BPF_ST, 2),
		BPF_STMT(BPF_LD | BPF_H | BPF_IND, 2),
		BPF_STMT(BPF_LDX | BPF_MEM, 2),
		BPF_STMT(BPF_ALU | BPF_XOR | BPF_X, 0),
		BPF_STMT(BPF_LDX | BPF_MEM, 0),
		BPF_STMT(BPF_ALU | BPF_XOR | BPF_X, 0),
		BPF_STMT(BPF_ALU | BPF_MUL | BPF_K, FANOUT_MUL),
		BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 16),
		BPF_STMT(BPF_RET | BPF_A, 0),
	};
	unsigned int i;

	for (i = 0; i < sizeof(tail) / sizeof(tail[0]); i++)
		c[i] = tail[i];
	return i;
}

unsigned int hpccd_fanout_prog(int family, struct sock_filter *c)
{
	unsigned int n = 0, i, left;

	if (family != AF_INET6) {
		/* the addresses; the protocol; X the IPv4 header's length */
		c[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 12);
		c[n++] = (struct sock_filter)BPF_STMT(BPF_MISC | BPF_TAX, 0);
		c[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 16);
		c[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_XOR | BPF_X, 0);
		c[n++] = (struct sock_filter)BPF_STMT(BPF_ST, 0);
		c[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9);
		c[n++] = (struct sock_filter)BPF_STMT(BPF_ST, 1);
		c[n++] = (struct sock_filter)BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0);
		return n + prog_tail(c + n);
	}
	/* the addresses' eight words */
	c[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 8);
	for (i = 12; i < 40; i += 4) {
		c[n++] = (struct sock_filter)BPF_STMT(BPF_MISC | BPF_TAX, 0);
		c[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, i);
		c[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_XOR | BPF_X, 0);
	}
	c[n++] = (struct sock_filter)BPF_STMT(BPF_ST, 0);
	/* the next header, X its offset */
	c[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 6);
	c[n++] = (struct sock_filter)BPF_STMT(BPF_ST, 1);
	c[n++] = (struct sock_filter)BPF_STMT(BPF_LDX | BPF_IMM, 40);
	/* each extension header hpcc_parse() walks: 11 instructions, the
	 * last jump of each leaving for the tail past those that remain
	 */
	for (i = 0; i < HPCC_IP6_MAX_EXTHDRS; i++) {
		left = (HPCC_IP6_MAX_EXTHDRS - 1 - i) * 11;
		c[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_MEM, 1);
		c[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 2, 0);
		c[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 43, 1, 0);
		c[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 60, 0,
						      7 + left);
		c[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_IND, 0);
		c[n++] = (struct sock_filter)BPF_STMT(BPF_ST, 1);
		c[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_IND, 1);
		c[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, 1);
		c[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_LSH | BPF_K, 3);
		c[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_ADD | BPF_X, 0);
		c[n++] = (struct sock_filter)BPF_STMT(BPF_MISC | BPF_TAX, 0);
	}
	return n + prog_tail(c + n);
}
