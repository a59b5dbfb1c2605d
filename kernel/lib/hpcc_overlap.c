// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc_overlap.c - the rebuild of a key ring that keeps retired keys for an
 * overlap (hpcc_overlap.h), compiled by both modules and by userspace.
 */

#include "hpcc_overlap.h"

/**
 * hpcc_overlap() - a new key set: @keys, and the keys of @old they drop,
 *	kept for @overlap_ns
 * @t: the key type
 * @out: the new set, room for @t->ring keys (not @old)
 * @out_n: set to its size
 * @old: the set in force, @old_n keys
 * @old_n: how many
 * @keys: the configured keys (their ends are ignored)
 * @n: how many; the first @t->keys are taken
 * @now: the clock of the ends, ns
 * @overlap_ns: how long a dropped key stays accepted; 0: not at all
 *
 * @out is the configured keys with end 0, then each key of @old that has
 * not ended at @now and that @keys does not have again.  A configured key
 * of @old that @keys drops ends at @now + @overlap_ns (never 0), or goes
 * at once when @overlap_ns is 0; a dropped one keeps its end.  With more
 * keys than @t->ring, those that end first go.  Times compare as signed
 * differences, so the clock may wrap.
 *
 * Return: how many keys this call dropped into the overlap.
 */
unsigned int hpcc_overlap(const struct hpcc_overlap_type *t,
			  void *out, unsigned int *out_n,
			  const void *old, unsigned int old_n,
			  const void *keys, unsigned int n,
			  __u64 now, __u64 overlap_ns)
{
	unsigned int i, j, m, cfg = 0, len, retired = 0;
	char *o = out;

	for (i = 0; i < n && i < t->keys; i++, cfg++) {
		memcpy(o + cfg * t->size, (const char *)keys + i * t->size,
		       t->size);
		hpcc_overlap_set_end(t, o + cfg * t->size, 0);
	}
	len = cfg;
	for (i = 0; i < old_n && i < t->ring; i++) {
		const void *k = (const char *)old + i * t->size;
		__u64 end = hpcc_overlap_end(t, k);
		bool kept = false;

		if (end && (__s64)(end - now) <= 0)
			continue;
		for (j = 0; j < cfg && !kept; j++)
			kept = t->same(k, o + j * t->size);
		if (kept)
			continue;
		if (!end) {
			if (!overlap_ns)
				continue;
			end = now + overlap_ns ? now + overlap_ns : 1;
			retired++;
		}
		m = len;
		if (len == t->ring) {
			/* full: the dropped key that ends first goes */
			m = cfg;
			for (j = cfg + 1; j < len; j++)
				if ((__s64)(hpcc_overlap_end(t, o + j * t->size) -
					    hpcc_overlap_end(t, o + m * t->size)) < 0)
					m = j;
			if (m >= len ||
			    (__s64)(hpcc_overlap_end(t, o + m * t->size) -
				    end) >= 0)
				continue;
		} else {
			len++;
		}
		memcpy(o + m * t->size, k, t->size);
		hpcc_overlap_set_end(t, o + m * t->size, end);
	}
	*out_n = len;
	return retired;
}
