// SPDX-License-Identifier: GPL-2.0
/*
 * hpcc_table.c - per network namespace state of tcp_hpcc: parameters,
 * counters and the RCU flow table keyed by (family, 4-tuple).
 */

#include <linux/jhash.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/tcp.h>

#include "hpcc_mod.h"

unsigned int hpcc_net_id __read_mostly;
static struct kmem_cache *hpcc_ent_cache __read_mostly;

/**
 * hpcc_net() - the tcp_hpcc state of a network namespace
 * @net: the namespace; must be alive (a socket or request in it)
 *
 * Return: the state, never NULL while the module is loaded.
 */
struct hpcc_net *hpcc_net(const struct net *net)
{
	return *(struct hpcc_net **)net_generic(net, hpcc_net_id);
}

/**
 * hpcc_stat_inc() - count one event in a namespace's counters
 * @hn: the namespace's state
 * @s: the counter
 */
void hpcc_stat_inc(struct hpcc_net *hn, enum hpcc_stat s)
{
	atomic64_inc(&hn->stats[s]);
}

/**
 * hpcc_cfg_build() - a new parameter set with the core's fixed-point form
 * @base: the user-visible fields; @base->p is ignored
 *
 * Derives T (ns), eta (Q32, rounded to nearest), W_init = line rate * T in
 * whole bytes, W_min and W_ai (the rule of thumb of draft section 5 when
 * w_ai_bytes is 0) and checks them with hpcc_params_valid().
 *
 * Return: a kmalloc'ed copy (GFP_KERNEL), ERR_PTR(-EINVAL) when the set is
 * inconsistent (W_min > W_init, W_ai > W_init), ERR_PTR(-ENOMEM).
 */
struct hpcc_cfg *hpcc_cfg_build(const struct hpcc_cfg *base)
{
	struct hpcc_cfg *c = kmemdup(base, sizeof(*base), GFP_KERNEL_ACCOUNT);
	struct hpcc_params *p;

	if (!c)
		return ERR_PTR(-ENOMEM);
	p = &c->p;
	p->t_ns = (u64)c->t_us * NSEC_PER_USEC;
	p->eta = DIV_ROUND_CLOSEST_ULL((u64)c->eta_permille << HPCC_U_SHIFT,
				       1000);
	p->max_stage = c->max_stage;
	p->w_init = hpcc_bdp((u64)c->line_rate_mbps * 1000000, p->t_ns);
	p->w_init &= ~((1ULL << HPCC_W_SHIFT) - 1);	/* whole bytes */
	p->w_min = (u64)c->w_min_bytes << HPCC_W_SHIFT;
	if (c->w_ai_bytes)
		p->w_ai = (u64)c->w_ai_bytes << HPCC_W_SHIFT;
	else
		p->w_ai = hpcc_w_ai_rule_of_thumb(p->w_init, p->eta,
						  HPCC_DEFAULT_N_FLOWS);
	if (!hpcc_params_valid(p)) {
		kfree(c);
		return ERR_PTR(-EINVAL);
	}
	return c;
}

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
 * hpcc_key_of_sk() - the flow table key of a connected TCP socket
 * @sk: the socket (IPv4, or IPv4-mapped IPv6 through inet_sk fields)
 * @key: filled
 */
void hpcc_key_of_sk(const struct sock *sk, struct hpcc_key *key)
{
	const struct inet_sock *inet = inet_sk(sk);

	memset(key, 0, sizeof(*key));
	key->family = AF_INET;
	key->saddr = inet->inet_saddr;
	key->daddr = inet->inet_daddr;
	key->sport = inet->inet_sport;
	key->dport = inet->inet_dport;
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
	spin_unlock_bh(&hn->lock);
	hpcc_stat_inc(hn, HPCC_STAT_FLOWS_CREATED);
	return e;
}

static void hpcc_net_put(struct hpcc_net *hn)
{
	if (refcount_dec_and_test(&hn->ref)) {
		kfree(rcu_dereference_protected(hn->cfg, true));
		kvfree(hn);
	}
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

static int __net_init hpcc_net_init(struct net *net)
{
	struct hpcc_cfg base, *cfg;
	struct hpcc_net *hn;
	int i, err;

	hn = kvzalloc(sizeof(*hn), GFP_KERNEL_ACCOUNT);
	if (!hn)
		return -ENOMEM;
	hpcc_cfg_defaults(&base);
	cfg = hpcc_cfg_build(&base);
	if (IS_ERR(cfg)) {
		/* The module parameters are range-checked one by one; a set
		 * that is inconsistent as a whole falls back to defaults.
		 */
		pr_warn("inconsistent module parameters, using defaults\n");
		base.w_min_bytes = HPCC_DEFAULT_W_MIN;
		base.w_ai_bytes = 0;
		cfg = hpcc_cfg_build(&base);
		if (IS_ERR(cfg)) {
			kvfree(hn);
			return PTR_ERR(cfg);
		}
	}
	hn->net = net;
	refcount_set(&hn->ref, 1);
	RCU_INIT_POINTER(hn->cfg, cfg);
	mutex_init(&hn->cfg_mutex);
	spin_lock_init(&hn->lock);
	hn->hash_rnd = get_random_u32();
	for (i = 0; i < ARRAY_SIZE(hn->buckets); i++)
		INIT_HLIST_HEAD(&hn->buckets[i]);

	err = hpcc_probe_register(net, hn);
	if (err) {
		kfree(cfg);
		kvfree(hn);
		return err;
	}
	*(struct hpcc_net **)net_generic(net, hpcc_net_id) = hn;
	return 0;
}

/*
 * The hook goes in .pre_exit: nf_unregister_net_hook() does not wait for a
 * hook already running on another CPU, but the core waits for an RCU grace
 * period between .pre_exit and .exit, both when a namespace dies
 * (cleanup_net()) and when the module goes (unregister_pernet_subsys()),
 * and hooks run under rcu_read_lock().  So no hook still reads @hn or
 * runs this module's code when .exit drops the state and the module's
 * text is freed.
 */
static void __net_exit hpcc_net_pre_exit(struct net *net)
{
	hpcc_probe_unregister(net, hpcc_net(net));
}

static void __net_exit hpcc_net_exit(struct net *net)
{
	/* Entries of sockets still being torn down keep @hn alive. */
	hpcc_net_put(hpcc_net(net));
}

static struct pernet_operations hpcc_net_ops = {
	.init = hpcc_net_init,
	.pre_exit = hpcc_net_pre_exit,
	.exit = hpcc_net_exit,
	.id = &hpcc_net_id,
	.size = sizeof(struct hpcc_net *),
};

/**
 * hpcc_table_init() - create the entry cache and the per-netns state
 *
 * Return: 0 or a negative errno.
 */
int hpcc_table_init(void)
{
	int err;

	/* charged to the memory cgroup of the task that opens the flow */
	hpcc_ent_cache = KMEM_CACHE(hpcc_ent, SLAB_ACCOUNT);
	if (!hpcc_ent_cache)
		return -ENOMEM;
	err = register_pernet_subsys(&hpcc_net_ops);
	if (err)
		kmem_cache_destroy(hpcc_ent_cache);
	return err;
}

/**
 * hpcc_table_exit() - undo hpcc_table_init(); no socket uses hpcc any more
 */
void hpcc_table_exit(void)
{
	unregister_pernet_subsys(&hpcc_net_ops);
	rcu_barrier();	/* hpcc_ent_free_rcu() callbacks */
	kmem_cache_destroy(hpcc_ent_cache);
}
