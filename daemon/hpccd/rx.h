/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rx.h - receiver-based HPCC in hpccd (draft-pan-tsvwg-hpccplus-02
 * section 6.2, Figure 8: NewINT; draft-miao-ccwg-hpcc section 6.3.2), and
 * the receiver's U of the privacy mode that sends only U (section 9.1).
 *
 * The receiver keeps, per flow that asked for it (HPCC_WIRE_EXT_MODE), the
 * algorithm core's state (kernel/lib/hpcc_core.c, the code the module runs)
 * and runs NewINT on each probe's records: W is updated locally on every
 * probe, and sent to the sender (HPCC_WIRE_EXT_W) only when more than T
 * has passed since it last was (lastUpdateTime).  W_ai comes from the N
 * the receiver counts for the flow's path (section 5's rule of thumb).
 */
#ifndef _HPCCD_RX_H
#define _HPCCD_RX_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/hpcc_core.h"
#include "hpcc_wire.h"

/**
 * struct hpccd_rx_flow - one receiver-based flow
 * @t: the flow as its sender sees it (the probe's tuple)
 * @seen: CLOCK_MONOTONIC of its last probe, ns; 0: the slot is free
 * @core: the algorithm's state for it
 */
struct hpccd_rx_flow {
	struct hpcc_tuple t;
	uint64_t seen;
	struct hpcc_flow core;
};

/**
 * struct hpccd_rx - the receiver-based flows: an open-addressed table of
 *	@mask + 1 slots (a power of two), probed over HPCCD_RX_PROBE slots
 * @f: the slots
 * @mask: slots - 1
 * @idle_ns: a flow with no probe for this long gives its slot up
 * @seed: the hash's random seed
 * @flows: slots in use, idle ones included
 */
struct hpccd_rx {
	struct hpccd_rx_flow *f;
	uint32_t mask;
	uint64_t idle_ns;
	uint64_t seed;
	uint32_t flows;
};

#define HPCCD_RX_PROBE	8

/**
 * enum hpccd_rx_res - what hpccd_rx_note() did with a probe
 * @HPCCD_RX_KEEP: W updated locally (or the first sample, a path change):
 *	the response carries no W
 * @HPCCD_RX_SEND_W: NewINT updated Wc: the response carries W
 * @HPCCD_RX_SEND_U: hpccd_rx_note_u() measured U: the response carries it
 * @HPCCD_RX_FULL: no slot for a new flow: refused
 * @HPCCD_RX_INVALID: the records cannot be used (none, or a hop without
 *	B): refused for this probe
 */
enum hpccd_rx_res {
	HPCCD_RX_KEEP,
	HPCCD_RX_SEND_W,
	HPCCD_RX_SEND_U,
	HPCCD_RX_FULL,
	HPCCD_RX_INVALID,
};

/**
 * hpccd_rx_init() - an empty table
 * @rx: the table
 * @max_flows: flows at most, 1..2^20 (rounded up to a power of two)
 * @idle_ns: see struct hpccd_rx
 * @seed: random
 * Return: 0 or -ENOMEM.
 */
int hpccd_rx_init(struct hpccd_rx *rx, uint32_t max_flows, uint64_t idle_ns,
		  uint64_t seed);

/** hpccd_rx_free() - free the table's memory */
void hpccd_rx_free(struct hpccd_rx *rx);

/**
 * hpccd_rx_note() - NewINT with one probe's records
 * @rx: the table
 * @p: the parameters (T, eta, maxStage, W_init, W_min, W_ai: the
 *	receiver's module's, hpcc_params_valid())
 * @t: the flow, as the probe has it
 * @hops: its records, B filled in (rate 1..1.6e12 bit/s)
 * @nhop: how many, 0..HPCC_MAX_HOPS
 * @n_flows: N the receiver counts for the path, 0: none (the parameters'
 *	W_ai)
 * @now: CLOCK_MONOTONIC, ns
 * @w: set to W in bytes (1..HPCC_WIRE_W_MAX) for HPCCD_RX_SEND_W
 *
 * Return: enum hpccd_rx_res.
 */
enum hpccd_rx_res hpccd_rx_note(struct hpccd_rx *rx,
				const struct hpcc_params *p,
				const struct hpcc_tuple *t,
				const struct hpcc_hop_rec *hops, uint8_t nhop,
				uint32_t n_flows, uint64_t now, uint32_t *w);

/**
 * hpccd_rx_note_u() - MeasureInflight with one probe's records, for the
 *	privacy mode that sends the sender only U (draft-miao-ccwg-hpcc
 *	section 9.1; HPCC_WIRE_MODE_U): the flow's U is kept here, in the
 *	same table as the receiver-based flows, and W is the sender's
 * @rx: the table
 * @p: the parameters (T and the EWMA period: the receiver's module's)
 * @t: the flow, as the probe has it
 * @hops: its records, B filled in (rate 1..1.6e12 bit/s)
 * @nhop: how many, 0..HPCC_MAX_HOPS
 * @now: CLOCK_MONOTONIC, ns
 * @u: set to U, Q16 (HPCC_WIRE_U_SHIFT), at most 2^32 - 1, for
 *	HPCCD_RX_SEND_U
 *
 * Return: HPCCD_RX_SEND_U when the records updated U; HPCCD_RX_KEEP for
 * the flow's first probe, a path change or records that measured nothing
 * (the response carries no U); HPCCD_RX_FULL or HPCCD_RX_INVALID as
 * hpccd_rx_note().
 */
enum hpccd_rx_res hpccd_rx_note_u(struct hpccd_rx *rx,
				  const struct hpcc_params *p,
				  const struct hpcc_tuple *t,
				  const struct hpcc_hop_rec *hops,
				  uint8_t nhop, uint64_t now, uint32_t *u);

#endif /* _HPCCD_RX_H */
