/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hpcc_overlap.h - a key rotation's overlap, for any key type: the new key
 * set is the configured keys, then the keys of the old set that they drop,
 * each accepted until its overlap ends (draft-miao-ccwg-hpcc section 9.1's
 * feedback MAC), so that a key rotation drops no flow.
 *
 * One algorithm for the kernel's FCR and CCM keys (kernel/lib/hpcc_nmac.c,
 * hpcc_nmac_replace()) and hpccd's response keys (daemon/lib/hpcc_auth.c,
 * hpcc_keyring_load()), on arrays of either key type described by struct
 * hpcc_overlap_type.  Kernel and userspace: only <linux/types.h> types
 * and memcpy().
 */
#ifndef _HPCC_OVERLAP_H
#define _HPCC_OVERLAP_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#endif

/**
 * struct hpcc_overlap_type - a key type for hpcc_overlap()
 * @size: sizeof a key
 * @expires: offsetof its __u64 end of overlap: 0 for a configured key,
 *	else when a dropped key stops being accepted (the caller's clock, ns)
 * @same: the same key for the same peers (a configured key given again
 *	stays configured)
 * @keys: configured keys at most
 * @ring: keys at most in a set, dropped ones included (at least @keys)
 */
struct hpcc_overlap_type {
	size_t size;
	size_t expires;
	bool (*same)(const void *a, const void *b);
	unsigned int keys;
	unsigned int ring;
};

static inline __u64 hpcc_overlap_end(const struct hpcc_overlap_type *t,
				     const void *k)
{
	__u64 e;

	memcpy(&e, (const char *)k + t->expires, sizeof(e));
	return e;
}

static inline void hpcc_overlap_set_end(const struct hpcc_overlap_type *t,
					void *k, __u64 e)
{
	memcpy((char *)k + t->expires, &e, sizeof(e));
}

unsigned int hpcc_overlap(const struct hpcc_overlap_type *t,
			  void *out, unsigned int *out_n,
			  const void *old, unsigned int old_n,
			  const void *keys, unsigned int n,
			  __u64 now, __u64 overlap_ns);

#endif /* _HPCC_OVERLAP_H */
