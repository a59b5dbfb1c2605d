// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - hpcc_int.ko, a software INT transit hop for Linux forwarding
 * paths (software routers, testbeds).
 *
 * On every forwarded IPv4 or IPv6 packet that carries the namespace's probe
 * DSCP (IPv6: in the traffic class; extension headers as
 * hpcc_wire_ipv6_l4() walks them in transit) and leaves through a
 * configured egress device, a netfilter hook at
 * NF_INET_FORWARD (last priority: after the routing decision, before the
 * packet reaches the device's qdisc) fills the next pre-allocated hop record
 * of the HPCC probe (include/uapi/linux/hpcc_wire.h, draft-miao-ccwg-hpcc section
 * 4.1) with:
 *
 *   switch_ID  the namespace's switch-id (config-set; default: its inode)
 *   port_ID    the egress ifindex
 *   B          the device's configured rate (dev-add, changed in place by
 *              dev-set; default: link speed)
 *   ts         ktime_get_ns() when stamped
 *   txBytes    bytes the egress device's qdiscs have handed to the driver
 *              (their byte counters: the root qdisc's, or the sum of the
 *              per-queue qdiscs under mq); for a device without a queue
 *              (noqueue), bytes of the IP packets this namespace sent
 *              through it, counted by a POST_ROUTING hook of this module
 *   qlen       the egress qdisc backlog in bytes, before this probe is
 *              queued (the root qdisc; the sum of the per-queue qdiscs under
 *              mq), saturated at 2^32 - 1
 *
 * ts, txBytes and qlen are read together in the hook, one snapshot
 * (draft-pan-tsvwg-hpccplus-02 section 6.1), and nothing in the hook calls
 * into the driver: dev_get_stats() would, and a driver's ndo_get_stats64
 * may take a lock that is not BH-safe (bonding's stats_lock), a deadlock
 * in the forwarding path.  Documentation/design.rst, "The software INT
 * hop", gives the error bound on the txRate a sender derives.
 *
 * and increments nhop.  The packet never changes length (records are
 * pre-allocated by the sender), so it never grows beyond the MTU, and the
 * TCP checksum is updated incrementally.  Probes that cannot be stamped go
 * on unchanged and are counted per device: full, malformed, unwritable.
 *
 * A device may stamp INT-MD v2.1 instead (encoding int-md; P4.org INT
 * Dataplane Specification v2.1, sections 5.7.2 and 5.8): the hop pushes
 * Hop ML words of metadata onto the INT-MD stack the probe carries after
 * its TCP header, so the packet grows (hpcc_int_stamp_md()).  A probe
 * without an INT-MD shim leaves such a device unstamped (other-encoding).
 *
 * Configured over the "hpcc-int" generic netlink family
 * (Documentation/netlink/specs/hpcc-int.yaml, `hpccctl int ...`).  State is
 * per network namespace; writers hold RTNL (which also orders them against
 * device unregistration), the hook reads the device table under RCU.
 *
 * This file orders init and exit and sets up each namespace; the hooks and
 * the stamping are stamp.c, Fast Congestion Response fcr.c, Coordinated
 * Congestion Management ccm.c, the family netlink.c (hpcc_int.h declares
 * what they share).
 */

#define HPCC_FAULT_DEFINE_PARAMS
#include "hpcc_int.h"

unsigned int hpcc_int_net_id __read_mostly;

static int hpcc_int_netdev_event(struct notifier_block *nb,
				 unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	/* Also sent when a device leaves for another namespace. */
	if (event == NETDEV_UNREGISTER)
		hpcc_int_dev_remove(hpcc_int_net(dev_net(dev)), dev->ifindex);
	return NOTIFY_DONE;
}

static struct notifier_block hpcc_int_netdev_nb = {
	.notifier_call = hpcc_int_netdev_event,
};

static int __net_init hpcc_int_net_init(struct net *net)
{
	struct hpcc_int_net *hn = hpcc_int_net(net);

	xa_init(&hn->devs);
	hn->net = net;
	hn->fcr_port = HPCC_INT_FCR_PORT_DEFAULT;
	hn->fcr_dscp = HPCC_INT_FCR_DSCP_DEFAULT;
	spin_lock_init(&hn->fcr_lock);
	INIT_LIST_HEAD(&hn->fcr_queue);
	INIT_WORK(&hn->fcr_work, hpcc_int_fcr_work);
	mutex_init(&hn->cfg_mutex);
	mutex_init(&hn->fcr_mutex);
	spin_lock_init(&hn->lim_lock);
	hn->lim_rnd = get_random_u32();
	hn->lim_cfg.rate = HPCC_INT_FCR_MSG_RATE_DEFAULT;
	hn->lim_cfg.burst = HPCC_INT_FCR_MSG_BURST_DEFAULT;
	hn->lim_cfg.dst_rate = HPCC_INT_FCR_DST_RATE_DEFAULT;
	hn->lim_cfg.dst_burst = HPCC_INT_FCR_DST_BURST_DEFAULT;
	hn->switch_id = net->ns.inum;
	hn->probe_dscp = HPCC_INT_PROBE_DSCP_DEFAULT;
	hn->int_dscp = HPCC_INT_INT_DSCP_DEFAULT;
	hn->ifa_protocol = HPCC_INT_IFA_PROTOCOL_DEFAULT;
	hn->ops[0] = (struct nf_hook_ops){
		.hook = hpcc_int_hook,
		.priv = hn,
		.pf = NFPROTO_IPV4,
		.hooknum = NF_INET_FORWARD,
		.priority = NF_IP_PRI_LAST,
	};
	hn->ops[1] = (struct nf_hook_ops){
		.hook = hpcc_int_out_hook,
		.priv = hn,
		.pf = NFPROTO_IPV4,
		.hooknum = NF_INET_POST_ROUTING,
		.priority = NF_IP_PRI_LAST,
	};
#if IS_ENABLED(CONFIG_IPV6)
	hn->ops[2] = (struct nf_hook_ops){
		.hook = hpcc_int_hook6,
		.priv = hn,
		.pf = NFPROTO_IPV6,
		.hooknum = NF_INET_FORWARD,
		.priority = NF_IP6_PRI_LAST,
	};
	hn->ops[3] = (struct nf_hook_ops){
		.hook = hpcc_int_out_hook,
		.priv = hn,
		.pf = NFPROTO_IPV6,
		.hooknum = NF_INET_POST_ROUTING,
		.priority = NF_IP6_PRI_LAST,
	};
#endif
	return nf_register_net_hooks(net, hn->ops, ARRAY_SIZE(hn->ops));
}

/*
 * The hook goes in .pre_exit, not .exit: the core waits for an RCU grace
 * period after .pre_exit (cleanup_net(), unregister_pernet_subsys()), so
 * hpcc_int_hook() no longer runs on any CPU when .exit empties the table
 * and the core frees this namespace's net_generic() state right after it.
 */
static void __net_exit hpcc_int_net_pre_exit(struct net *net)
{
	nf_unregister_net_hooks(net, hpcc_int_net(net)->ops,
				ARRAY_SIZE(hpcc_int_net(net)->ops));
}

static void __net_exit hpcc_int_net_exit(struct net *net)
{
	struct hpcc_int_net *hn = hpcc_int_net(net);
	struct hpcc_int_fcr_req *r, *tmp;
	struct hpcc_int_dev *d;
	unsigned long i;

	hpcc_fault_exit_delay();
	/* no hook queues a message any more (.pre_exit, a grace period) */
	cancel_work_sync(&hn->fcr_work);
	list_for_each_entry_safe(r, tmp, &hn->fcr_queue, node)
		kfree(r);
	for (i = 0; i < ARRAY_SIZE(hn->fcr_sock); i++)
		if (hn->fcr_sock[i])
			sock_release(hn->fcr_sock[i]);
	kfree_sensitive(rcu_dereference_protected(hn->keys, true));
	kfree(rcu_dereference_protected(hn->dsts, true));
	/* The devices have gone, and their entries with them, before a
	 * namespace's subsystems exit, and no request can reach a dying
	 * namespace: this only catches what is left, without RTNL.
	 */
	xa_for_each(&hn->devs, i, d)
		hpcc_int_dev_remove(hn, i);
	xa_destroy(&hn->devs);
}

static struct pernet_operations hpcc_int_net_ops = {
	.init = hpcc_int_net_init,
	.pre_exit = hpcc_int_net_pre_exit,
	.exit = hpcc_int_net_exit,
	.id = &hpcc_int_net_id,
	.size = sizeof(struct hpcc_int_net),
};

static int __init hpcc_int_init(void)
{
	int err;

	err = register_pernet_subsys(&hpcc_int_net_ops);
	if (err)
		return err;
	err = register_netdevice_notifier(&hpcc_int_netdev_nb);
	if (err)
		goto err_pernet;
	err = genl_register_family(&hpcc_int_genl_family);
	if (err)
		goto err_notifier;
	return 0;
err_notifier:
	unregister_netdevice_notifier(&hpcc_int_netdev_nb);
err_pernet:
	unregister_pernet_subsys(&hpcc_int_net_ops);
	return err;
}

static void __exit hpcc_int_exit(void)
{
	genl_unregister_family(&hpcc_int_genl_family);
	unregister_netdevice_notifier(&hpcc_int_netdev_nb);
	unregister_pernet_subsys(&hpcc_int_net_ops);
	/* kfree_rcu() callbacks must not outlive the module */
	rcu_barrier();
}

module_init(hpcc_int_init);
module_exit(hpcc_int_exit);

MODULE_AUTHOR("tcp_hpcc developers");
MODULE_DESCRIPTION("HPCC++ software INT transit hop: stamps probes at the egress of forwarded packets");
MODULE_LICENSE("GPL");
MODULE_VERSION(HPCC_VERSION);
MODULE_ALIAS_GENL_FAMILY(HPCC_INT_FAMILY_NAME);
