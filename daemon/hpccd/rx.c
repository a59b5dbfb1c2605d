// SPDX-License-Identifier: GPL-2.0
/*
 * rx.c - receiver-based HPCC (rx.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/hpcc.h>

#include "rx.h"

int hpccd_rx_init(struct hpccd_rx *rx, uint32_t max_flows, uint64_t idle_ns,
		  uint64_t seed)
{
	uint32_t n = 1;

	memset(rx, 0, sizeof(*rx));
	while (n < max_flows && n < (1U << 20))
		n <<= 1;
	rx->f = calloc(n, sizeof(*rx->f));
	if (!rx->f)
		return -ENOMEM;
	rx->mask = n - 1;
	rx->idle_ns = idle_ns;
	rx->seed = seed;
	return 0;
}

void hpccd_rx_free(struct hpccd_rx *rx)
{
	free(rx->f);
	memset(rx, 0, sizeof(*rx));
}

/* FNV-1a over the tuple's identity, seeded */
static uint32_t rx_hash(const struct hpccd_rx *rx, const struct hpcc_tuple *t)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ rx->seed;
	uint8_t k[37];
	unsigned int i;

	k[0] = t->family == AF_INET6;
	if (k[0]) {
		memcpy(k + 1, t->saddr6, 16);
		memcpy(k + 17, t->daddr6, 16);
	} else {
		memset(k + 1, 0, 32);
		memcpy(k + 1, &t->saddr, 4);
		memcpy(k + 17, &t->daddr, 4);
	}
	memcpy(k + 33, &t->sport, 2);
	memcpy(k + 35, &t->dport, 2);
	for (i = 0; i < sizeof(k); i++) {
		h ^= k[i];
		h *= 0x100000001b3ULL;
	}
	return (uint32_t)(h ^ h >> 32);
}

static bool same_flow(const struct hpcc_tuple *a, const struct hpcc_tuple *b)
{
	bool v6 = a->family == AF_INET6;

	if (v6 != (b->family == AF_INET6) || a->sport != b->sport ||
	    a->dport != b->dport)
		return false;
	if (v6)
		return !memcmp(a->saddr6, b->saddr6, 16) &&
		       !memcmp(a->daddr6, b->daddr6, 16);
	return a->saddr == b->saddr && a->daddr == b->daddr;
}

/* The flow's slot, a free or idle one for a new flow, or NULL. */
static struct hpccd_rx_flow *rx_slot(struct hpccd_rx *rx,
				     const struct hpcc_tuple *t, uint64_t now,
				     bool *fresh)
{
	uint32_t h = rx_hash(rx, t), i;
	struct hpccd_rx_flow *free_slot = NULL;

	*fresh = false;
	for (i = 0; i < HPCCD_RX_PROBE && i <= rx->mask; i++) {
		struct hpccd_rx_flow *f = &rx->f[(h + i) & rx->mask];
		bool idle = !f->seen || now - f->seen > rx->idle_ns;

		if (f->seen && same_flow(&f->t, t))
			return f;
		if (idle && !free_slot)
			free_slot = f;
	}
	if (free_slot) {
		*fresh = true;
		if (!free_slot->seen)
			rx->flows++;
	}
	return free_slot;
}

/*
 * rx_flow() - the flow's slot for a probe's records, converted into @h
 * for the algorithm core: NULL with *@res set when the records cannot be
 * used (HPCCD_RX_INVALID) or no slot is free (HPCCD_RX_FULL).
 */
static struct hpccd_rx_flow *rx_flow(struct hpccd_rx *rx,
				     const struct hpcc_params *p,
				     const struct hpcc_tuple *t,
				     const struct hpcc_hop_rec *hops,
				     uint8_t nhop, uint64_t now,
				     struct hpcc_hop *h,
				     enum hpccd_rx_res *res)
{
	struct hpccd_rx_flow *f;
	bool fresh;
	uint8_t i;

	*res = HPCCD_RX_INVALID;
	if (!nhop || nhop > HPCC_MAX_HOPS)
		return NULL;
	for (i = 0; i < nhop; i++) {
		if (!hops[i].rate || hops[i].rate > HPCC_RATE_MAX)
			return NULL;
		h[i].ts = hops[i].ts;
		h[i].tx_bytes = hops[i].tx_bytes;
		h[i].qlen = hops[i].qlen;
		h[i].rate_bps = hops[i].rate;
		h[i].switch_id = hops[i].switch_id;
		h[i].port_id = hops[i].port_id;
		h[i].flags = hops[i].flags & (HPCC_HOP_NO_TX_BYTES |
					      HPCC_HOP_TX_UTIL);
		h[i].tx_util = h[i].flags & HPCC_HOP_TX_UTIL ?
			       hops[i].tx_util : 0;
		if ((h[i].flags & HPCC_HOP_TX_UTIL) &&
		    !(h[i].flags & HPCC_HOP_NO_TX_BYTES))
			return NULL;
	}
	*res = HPCCD_RX_FULL;
	f = rx_slot(rx, t, now, &fresh);
	if (!f)
		return NULL;
	if (fresh) {
		f->t = *t;
		hpcc_flow_init(&f->core, p);
	}
	f->seen = now ? now : 1;
	*res = HPCCD_RX_KEEP;
	return f;
}

enum hpccd_rx_res hpccd_rx_note(struct hpccd_rx *rx,
				const struct hpcc_params *p,
				const struct hpcc_tuple *t,
				const struct hpcc_hop_rec *hops, uint8_t nhop,
				uint32_t n_flows, uint64_t now, uint32_t *w)
{
	struct hpcc_hop h[HPCC_MAX_HOPS];
	struct hpccd_rx_flow *f;
	enum hpccd_rx_res res;

	f = rx_flow(rx, p, t, hops, nhop, now, h, &res);
	if (!f)
		return res;
	hpcc_flow_set_n(&f->core, p, n_flows);
	if (hpcc_new_int(&f->core, p, now, h, nhop) != HPCC_STEP_WC)
		return HPCCD_RX_KEEP;
	*w = (uint32_t)(f->core.w >> HPCC_W_SHIFT);
	if (!*w)
		*w = 1;
	if (*w > HPCC_WIRE_W_MAX)
		*w = HPCC_WIRE_W_MAX;
	return HPCCD_RX_SEND_W;
}

enum hpccd_rx_res hpccd_rx_note_u(struct hpccd_rx *rx,
				  const struct hpcc_params *p,
				  const struct hpcc_tuple *t,
				  const struct hpcc_hop_rec *hops,
				  uint8_t nhop, uint64_t now, uint32_t *u)
{
	struct hpcc_hop h[HPCC_MAX_HOPS];
	struct hpccd_rx_flow *f;
	enum hpccd_rx_res res;
	uint64_t q16;

	f = rx_flow(rx, p, t, hops, nhop, now, h, &res);
	if (!f)
		return res;
	if (hpcc_measure_sample(&f->core, p, h, nhop) != HPCC_STEP_W)
		return HPCCD_RX_KEEP;
	q16 = f->core.u >> (HPCC_U_SHIFT - HPCC_WIRE_U_SHIFT);
	*u = q16 > UINT32_MAX ? UINT32_MAX : (uint32_t)q16;
	return HPCCD_RX_SEND_U;
}
