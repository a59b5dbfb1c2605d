// SPDX-License-Identifier: GPL-2.0
/*
 * table.c - the flow table of tcp_hpcc: per-flow entries in an RCU
 * hash table of the namespace's state (net.c), keyed by (family,
 * 4-tuple), and their lifetime.
 */

#include <linux/jhash.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <net/tcp.h>

#include "tcp_hpcc.h"

static struct kmem_cache *hpcc_ent_cache __read_mostly;

static_assert(sizeof(struct hpcc_key) % sizeof(u32) == 0);

static u32 hpcc_hash(const struct hpcc_net *hn, const struct hpcc_key *key)
{
	return jhash2((const u32 *)key, sizeof(*key) / sizeof(u32),
		      hn->hash_rnd) & ((1 << HPCC_HASH_BITS) - 1);
}

/**
 * hpcc_pub_read() - a consistent copy of what the ACK path last published
 * @e: the flow (RCU or otherwise pinned)
 * @pub: filled
 *
 * Context: process context (the writer runs in softirq or with the socket
 * owned and preemption off; a reader in softirq could spin on a writer it
 * interrupted).  The seqcount is used raw: its writers are serialized by
 * the socket lock, which lockdep checks in hpcc_publish().
 */
void hpcc_pub_read(const struct hpcc_ent *e, struct hpcc_pub *pub)
{
	unsigned int seq;

	do {
		seq = raw_read_seqcount_begin(&e->pub_seq);
		*pub = e->pub;
	} while (read_seqcount_retry(&e->pub_seq, seq));
}

/**
 * hpcc_key_v4() - the key of an IPv4 flow
 * @key: filled (zeroed first)
 * @saddr: local IPv4 address
 * @daddr: remote IPv4 address
 * @sport: local port
 * @dport: remote port
 */
void hpcc_key_v4(struct hpcc_key *key, __be32 saddr, __be32 daddr,
		 __be16 sport, __be16 dport)
{
	memset(key, 0, sizeof(*key));
	key->family = AF_INET;
	ipv6_addr_set_v4mapped(saddr, &key->saddr);
	ipv6_addr_set_v4mapped(daddr, &key->daddr);
	key->sport = sport;
	key->dport = dport;
}

/**
 * hpcc_key_v6() - the key of an IPv6 flow
 * @key: filled (zeroed first)
 * @saddr: local IPv6 address
 * @daddr: remote IPv6 address
 * @sport: local port
 * @dport: remote port
 */
void hpcc_key_v6(struct hpcc_key *key, const struct in6_addr *saddr,
		 const struct in6_addr *daddr, __be16 sport, __be16 dport)
{
	memset(key, 0, sizeof(*key));
	key->family = AF_INET6;
	key->saddr = *saddr;
	key->daddr = *daddr;
	key->sport = sport;
	key->dport = dport;
}

/**
 * hpcc_key_of_sk() - the flow table key of a connected TCP socket
 * @sk: the socket: IPv4, IPv6, or IPv6 with an IPv4-mapped peer (a dual
 *	stack socket talking IPv4, whose packets are IPv4: an AF_INET key
 *	from its inet_sk fields)
 * @key: filled
 *
 * Return: true, or false for a family this kernel has no TCP for (an
 * AF_INET6 socket when the kernel has no IPv6: cannot happen, but the
 * caller counts it, no-state-family).
 */
bool hpcc_key_of_sk(const struct sock *sk, struct hpcc_key *key)
{
	const struct inet_sock *inet = inet_sk(sk);

#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6 &&
	    !ipv6_addr_v4mapped(&sk->sk_v6_daddr)) {
		hpcc_key_v6(key, &sk->sk_v6_rcv_saddr, &sk->sk_v6_daddr,
			    inet->inet_sport, inet->inet_dport);
		return true;
	}
#endif
	/* AF_INET, or (with IPv6) an AF_INET6 socket with an IPv4-mapped peer */
	if (sk->sk_family != AF_INET &&
	    !(IS_ENABLED(CONFIG_IPV6) && sk->sk_family == AF_INET6))
		return false;
	hpcc_key_v4(key, inet->inet_saddr, inet->inet_daddr, inet->inet_sport,
		    inet->inet_dport);
	return true;
}

/**
 * hpcc_ent_create() - give a flow HPCC state and insert it in the table
 * @hn: the namespace's state
 * @key: the flow's 4-tuple
 * @bound_dev_if: the socket's bound device (0 for none)
 *
 * May run in softirq (a passive open completes there): GFP_ATOMIC.  The
 * cache is SLAB_ACCOUNT: an active open's entry is charged to the memory
 * cgroup of the task that connects; a passive open's, made in softirq, to
 * none (as the kernel's own request sockets are).  A
 * newer entry with the same key and bound device shadows an older one (a
 * closed socket that userspace has not released yet) until the older is
 * destroyed.  The same key with another bound device is a second live flow
 * (SO_BINDTODEVICE, VRFs) that telemetry, which names flows by 4-tuple,
 * cannot tell from the first: it gets no state (key-collisions).
 *
 * Return: the entry, or NULL when max-flows is reached, memory ran out or
 * the key collides (all counted); the flow then runs the fallback law only.
 */
struct hpcc_ent *hpcc_ent_create(struct hpcc_net *hn,
				 const struct hpcc_key *key, int bound_dev_if)
{
	struct hpcc_ent *e, *old;
	struct hpcc_cfg *cfg;
	u32 max_flows, h;

	rcu_read_lock();
	cfg = rcu_dereference(hn->cfg);
	max_flows = cfg->max_flows;
	rcu_read_unlock();

	if (atomic_inc_return(&hn->nflows) > max_flows) {
		atomic_dec(&hn->nflows);
		hpcc_stat_inc(hn, HPCC_STAT_TABLE_FULL);
		return NULL;
	}
	e = kmem_cache_zalloc(hpcc_ent_cache, GFP_ATOMIC);
	if (!e) {
		atomic_dec(&hn->nflows);
		hpcc_stat_inc(hn, HPCC_STAT_ALLOC_FAILED);
		return NULL;
	}
	e->key = *key;
	e->bound_dev_if = bound_dev_if;
	e->hn = hn;
	seqlock_init(&e->tlm_lock);
	e->told_in_flight = HPCC_TOLD_NONE;
	spin_lock_init(&e->fcr_lock);
	seqcount_init(&e->pub_seq);

	h = hpcc_hash(hn, key);
	spin_lock_bh(&hn->lock);
	hlist_for_each_entry(old, &hn->buckets[h], node) {
		if (!memcmp(&old->key, key, sizeof(*key)) &&
		    old->bound_dev_if != bound_dev_if) {
			spin_unlock_bh(&hn->lock);
			kmem_cache_free(hpcc_ent_cache, e);
			atomic_dec(&hn->nflows);
			hpcc_stat_inc(hn, HPCC_STAT_KEY_COLLISIONS);
			return NULL;
		}
	}
	refcount_inc(&hn->ref);
	hlist_add_head_rcu(&e->node, &hn->buckets[h]);
	WRITE_ONCE(hn->flows_gen, hn->flows_gen + 1);
	spin_unlock_bh(&hn->lock);
	hpcc_stat_inc(hn, HPCC_STAT_FLOWS_CREATED);
	return e;
}

static void hpcc_ent_free_rcu(struct rcu_head *head)
{
	struct hpcc_ent *e = container_of(head, struct hpcc_ent, rcu);

	hpcc_net_put(e->hn);
	kmem_cache_free(hpcc_ent_cache, e);
}

/**
 * hpcc_ent_destroy() - remove a flow's entry; freed after an RCU grace
 * period, so lockless readers may still use it until they unlock
 * @e: the entry
 */
void hpcc_ent_destroy(struct hpcc_ent *e)
{
	struct hpcc_net *hn = e->hn;

	spin_lock_bh(&hn->lock);
	hlist_del_rcu(&e->node);
	WRITE_ONCE(hn->flows_gen, hn->flows_gen + 1);
	spin_unlock_bh(&hn->lock);
	atomic_dec(&hn->nflows);
	call_rcu(&e->rcu, hpcc_ent_free_rcu);
}

/**
 * hpcc_ent_lookup() - find a flow's entry
 * @hn: the namespace's state
 * @key: the 4-tuple (pad zeroed)
 *
 * Context: rcu_read_lock() held; the entry stays valid until it is
 * dropped.
 * Return: the newest entry with @key, or NULL.
 */
struct hpcc_ent *hpcc_ent_lookup(struct hpcc_net *hn,
				 const struct hpcc_key *key)
{
	struct hpcc_ent *e;

	hlist_for_each_entry_rcu(e, &hn->buckets[hpcc_hash(hn, key)], node)
		if (!memcmp(&e->key, key, sizeof(*key)))
			return e;
	return NULL;
}

/**
 * hpcc_table_init() - create the flow entry cache
 *
 * Return: 0 or -ENOMEM.
 */
int hpcc_table_init(void)
{
	/* charged to the memory cgroup of the task that opens the flow */
	hpcc_ent_cache = KMEM_CACHE(hpcc_ent, SLAB_ACCOUNT);
	return hpcc_ent_cache ? 0 : -ENOMEM;
}

/**
 * hpcc_table_exit() - undo hpcc_table_init(); no socket uses hpcc any more
 * and the namespaces' state is unregistered (hpcc_net_unregister())
 */
void hpcc_table_exit(void)
{
	rcu_barrier();	/* hpcc_ent_free_rcu() callbacks */
	kmem_cache_destroy(hpcc_ent_cache);
}
