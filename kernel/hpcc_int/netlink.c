// SPDX-License-Identifier: GPL-2.0
/*
 * netlink.c - the "hpcc-int" generic netlink family: devices (dev-add,
 * dev-set, dev-del, dev-get) and the namespace's configuration
 * (config-get, config-set).  Described by
 * Documentation/netlink/specs/hpcc-int.yaml and
 * include/uapi/linux/hpcc_int.h.
 */

#include "hpcc_int.h"

/* The netlink attribute of each counter. */
static const int hpcc_int_cnt_attr[HPCC_INT_CNT_NUM] = {
	[HPCC_INT_CNT_STAMPED] = HPCC_INT_A_DEV_STAMPED,
	[HPCC_INT_CNT_FULL] = HPCC_INT_A_DEV_FULL,
	[HPCC_INT_CNT_MALFORMED] = HPCC_INT_A_DEV_MALFORMED,
	[HPCC_INT_CNT_UNWRITABLE] = HPCC_INT_A_DEV_UNWRITABLE,
	[HPCC_INT_CNT_OTHER_ENCODING] = HPCC_INT_A_DEV_OTHER_ENCODING,
};

static const int hpcc_int_fcr_cnt_attr[HPCC_INT_FCR_CNT_NUM] = {
	[HPCC_INT_FCR_CNT_SENT] = HPCC_INT_A_DEV_FCR_SENT,
	[HPCC_INT_FCR_CNT_DROPPED] = HPCC_INT_A_DEV_FCR_DROPPED,
	[HPCC_INT_FCR_CNT_ROUNDS] = HPCC_INT_A_DEV_FCR_ROUNDS,
	[HPCC_INT_FCR_CNT_CE_MARKED] = HPCC_INT_A_DEV_CE_MARKED,
	[HPCC_INT_FCR_CNT_NOT_ECT] = HPCC_INT_A_DEV_NOT_ECT,
	[HPCC_INT_FCR_CNT_TABLE_FULL] = HPCC_INT_A_DEV_FCR_TABLE_FULL,
	[HPCC_INT_FCR_CNT_EARLY_ROUNDS] = HPCC_INT_A_DEV_FCR_EARLY_ROUNDS,
	[HPCC_INT_FCR_CNT_SENDER_LIMITED] = HPCC_INT_A_DEV_FCR_SENDER_LIMITED,
	[HPCC_INT_FCR_CNT_MSG_LIMITED] = HPCC_INT_A_DEV_FCR_MSG_LIMITED,
	[HPCC_INT_FCR_CNT_DST_LIMITED] = HPCC_INT_A_DEV_FCR_DST_LIMITED,
	[HPCC_INT_FCR_CNT_DST_REFUSED] = HPCC_INT_A_DEV_FCR_DST_REFUSED,
};

static const int hpcc_int_ccm_cnt_attr[HPCC_INT_CCM_CNT_NUM] = {
	[HPCC_INT_CCM_CNT_CC_SENT] = HPCC_INT_A_DEV_CCM_CC_SENT,
	[HPCC_INT_CCM_CNT_RELEASED_SENT] = HPCC_INT_A_DEV_CCM_RELEASED_SENT,
	[HPCC_INT_CCM_CNT_AR_SENT] = HPCC_INT_A_DEV_CCM_AR_SENT,
	[HPCC_INT_CCM_CNT_DROPPED] = HPCC_INT_A_DEV_CCM_DROPPED,
	[HPCC_INT_CCM_CNT_NO_AR] = HPCC_INT_A_DEV_CCM_NO_AR,
	[HPCC_INT_CCM_CNT_CC_KEPT] = HPCC_INT_A_DEV_CCM_CC_KEPT,
	[HPCC_INT_CCM_CNT_AR_MARKED] = HPCC_INT_A_DEV_CCM_AR_MARKED,
	[HPCC_INT_CCM_CNT_AR_LIMITED] = HPCC_INT_A_DEV_CCM_AR_LIMITED,
};

/*
 * The policies, ranges included (an ifindex is a positive int: a larger u32
 * would come back as an errno), are generated from the YNL spec
 * (tools/ynl-policy, `make uapi`), one per operation that takes attributes.
 */
#include "nl_policy.h"

static int hpcc_int_ifindex(struct genl_info *info)
{
	if (!info->attrs[HPCC_INT_A_DEV_IFINDEX]) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, HPCC_INT_A_DEV_IFINDEX);
		NL_SET_ERR_MSG_MOD(info->extack, "ifindex is required");
		return -EINVAL;
	}
	return nla_get_u32(info->attrs[HPCC_INT_A_DEV_IFINDEX]);
}

/*
 * hpcc_int_link_rate() - the link speed of @dev in bits/s, 0 when the
 * driver does not know it.  Context: RTNL.
 */
static u64 hpcc_int_link_rate(struct net_device *dev)
{
	struct ethtool_link_ksettings ks;

	if (__ethtool_get_link_ksettings(dev, &ks) ||
	    ks.base.speed == SPEED_UNKNOWN || !ks.base.speed)
		return 0;
	return (u64)ks.base.speed * 1000000;
}

/*
 * hpcc_int_fcr_config() - the FCR attributes of dev-add or dev-set into
 * @d (RTNL held; @d already in the table when @live): those given change,
 * the others keep their values, fcr-qlen-low defaults to half of a new
 * fcr-qlen-high.  The state is allocated when FCR is first turned on and
 * stays until the device goes.  Return: 0, -EINVAL (fcr-qlen-low not below
 * fcr-qlen-high) or -ENOMEM, with extack.
 */
static int hpcc_int_fcr_config(struct hpcc_int_net *hn, struct hpcc_int_dev *d,
			       struct genl_info *info, bool live)
{
	struct nlattr **tb = info->attrs;
	u32 high = d->fcr_high, low = d->fcr_low;
	u32 chigh = d->ccm_high, clow = d->ccm_low;
	bool tracked = d->fcr_high || d->ccm_high;
	struct hpcc_int_fcr *f;

	if (tb[HPCC_INT_A_DEV_FCR_QLEN_HIGH]) {
		high = nla_get_u32(tb[HPCC_INT_A_DEV_FCR_QLEN_HIGH]);
		low = high / 2;
	}
	if (tb[HPCC_INT_A_DEV_FCR_QLEN_LOW])
		low = nla_get_u32(tb[HPCC_INT_A_DEV_FCR_QLEN_LOW]);
	if (high && low >= high) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "fcr-qlen-low must be below fcr-qlen-high");
		return -EINVAL;
	}
	if (tb[HPCC_INT_A_DEV_CCM_QLEN_HIGH]) {
		chigh = nla_get_u32(tb[HPCC_INT_A_DEV_CCM_QLEN_HIGH]);
		clow = chigh / 2;
	}
	if (tb[HPCC_INT_A_DEV_CCM_QLEN_LOW])
		clow = nla_get_u32(tb[HPCC_INT_A_DEV_CCM_QLEN_LOW]);
	if (chigh && clow >= chigh) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "ccm-qlen-low must be below ccm-qlen-high");
		return -EINVAL;
	}
	if ((high || chigh) && !rtnl_dereference(d->fcr)) {
		f = kvzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
		if (!f)
			return -ENOMEM;
		spin_lock_init(&f->lock);
		f->hash_rnd = get_random_u32();
		rcu_assign_pointer(d->fcr, f);
	}
	if (tb[HPCC_INT_A_DEV_FCR_INTERVAL])
		WRITE_ONCE(d->fcr_interval,
			   nla_get_u32(tb[HPCC_INT_A_DEV_FCR_INTERVAL]));
	if (tb[HPCC_INT_A_DEV_FCR_ETA])
		WRITE_ONCE(d->fcr_eta, nla_get_u32(tb[HPCC_INT_A_DEV_FCR_ETA]));
	if (tb[HPCC_INT_A_DEV_FCR_SENDER_MAX])
		WRITE_ONCE(d->fcr_sender_max,
			   nla_get_u32(tb[HPCC_INT_A_DEV_FCR_SENDER_MAX]));
	if (tb[HPCC_INT_A_DEV_FCR_DRAIN])
		WRITE_ONCE(d->fcr_drain, nla_get_u32(tb[HPCC_INT_A_DEV_FCR_DRAIN]));
	if (tb[HPCC_INT_A_DEV_CCM_INTERVAL])
		WRITE_ONCE(d->ccm_interval,
			   nla_get_u32(tb[HPCC_INT_A_DEV_CCM_INTERVAL]));
	if (tb[HPCC_INT_A_DEV_CCM_AR_GAP])
		WRITE_ONCE(d->ccm_ar_gap,
			   nla_get_u32(tb[HPCC_INT_A_DEV_CCM_AR_GAP]));
	WRITE_ONCE(d->fcr_low, low);
	WRITE_ONCE(d->ccm_low, clow);
	if (live && tracked != (high || chigh))
		WRITE_ONCE(hn->fcr_ndevs, hn->fcr_ndevs + (tracked ? -1 : 1));
	WRITE_ONCE(d->fcr_high, high);
	WRITE_ONCE(d->ccm_high, chigh);
	/* CCM turned off ends its episode: the type 2s are owed */
	f = rtnl_dereference(d->fcr);
	if (!chigh && f) {
		spin_lock_bh(&f->lock);
		if (f->ccm_congested)
			hpcc_int_ccm_release(hn, d, f, ktime_get_ns(),
					     true);
		spin_unlock_bh(&f->lock);
	}
	return 0;
}

/* The FCR and CCM attributes dev-set may change. */
static bool hpcc_int_fcr_attrs(struct nlattr **tb)
{
	return tb[HPCC_INT_A_DEV_FCR_QLEN_HIGH] ||
	       tb[HPCC_INT_A_DEV_FCR_QLEN_LOW] ||
	       tb[HPCC_INT_A_DEV_FCR_INTERVAL] || tb[HPCC_INT_A_DEV_FCR_ETA] ||
	       tb[HPCC_INT_A_DEV_FCR_SENDER_MAX] || tb[HPCC_INT_A_DEV_FCR_DRAIN] ||
	       tb[HPCC_INT_A_DEV_CCM_QLEN_HIGH] ||
	       tb[HPCC_INT_A_DEV_CCM_QLEN_LOW] || tb[HPCC_INT_A_DEV_CCM_INTERVAL] ||
	       tb[HPCC_INT_A_DEV_CCM_AR_GAP];
}

/* Free a device's entry and its FCR state (an RCU callback). */
static void hpcc_int_dev_free(struct rcu_head *head)
{
	struct hpcc_int_dev *d = container_of(head, struct hpcc_int_dev, rcu);

	kvfree(rcu_dereference_protected(d->fcr, 1));
	kfree(d);
}

static int hpcc_int_dev_add(struct sk_buff *skb, struct genl_info *info)
{
	struct hpcc_int_net *hn = hpcc_int_net(genl_info_net(info));
	struct net_device *dev;
	struct hpcc_int_dev *d;
	int ifindex, err;

	ifindex = hpcc_int_ifindex(info);
	if (ifindex < 0)
		return ifindex;
	d = kzalloc(sizeof(*d), GFP_KERNEL_ACCOUNT);
	if (!d)
		return -ENOMEM;
	d->ifindex = ifindex;
	spin_lock_init(&d->lock);
	d->util.bp = U32_MAX;
	d->fcr_interval = HPCC_INT_FCR_INTERVAL_DEFAULT;
	d->fcr_eta = HPCC_INT_FCR_ETA_DEFAULT;
	d->fcr_sender_max = HPCC_INT_FCR_SENDER_MAX_DEFAULT;
	d->ccm_interval = HPCC_INT_CCM_INTERVAL_DEFAULT;
	if (info->attrs[HPCC_INT_A_DEV_ENCODING])
		d->encoding = nla_get_u8(info->attrs[HPCC_INT_A_DEV_ENCODING]);
	if (info->attrs[HPCC_INT_A_DEV_TX_MODEL])
		d->tx_model = nla_get_u8(info->attrs[HPCC_INT_A_DEV_TX_MODEL]);

	rtnl_lock();
	dev = __dev_get_by_index(genl_info_net(info), ifindex);
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[HPCC_INT_A_DEV_IFINDEX],
				    "no such device in this namespace");
		err = -ENODEV;
		goto out;
	}
	if (info->attrs[HPCC_INT_A_DEV_RATE]) {
		d->rate = nla_get_u64(info->attrs[HPCC_INT_A_DEV_RATE]);
	} else {
		d->rate = hpcc_int_link_rate(dev);
		if (!d->rate || d->rate > HPCC_RATE_MAX) {
			NL_SET_ERR_MSG_MOD(info->extack,
					   "the link speed is unknown: give the rate");
			err = -EINVAL;
			goto out;
		}
	}
	err = hpcc_int_fcr_config(hn, d, info, false);
	if (err)
		goto out;
	err = xa_insert(&hn->devs, ifindex, d, GFP_KERNEL_ACCOUNT);
	if (err == -EBUSY) {
		NL_SET_ERR_MSG_MOD(info->extack, "the device already stamps probes");
		err = -EEXIST;
	}
	if (!err) {
		hn->ndevs++;
		if (d->fcr_high || d->ccm_high)
			WRITE_ONCE(hn->fcr_ndevs, hn->fcr_ndevs + 1);
		d = NULL;
	}
out:
	rtnl_unlock();
	if (d) {
		kvfree(rcu_dereference_protected(d->fcr, 1));
		kfree(d);
	}
	return err;
}

/*
 * hpcc_int_dev_set() - dev-set: a new B, encoding and/or tx-model for a
 * device that stamps, written in place (the forward hook reads them with
 * READ_ONCE), so no probe crosses the device unstamped while they change.
 * A new B or tx-model restarts the wire (hpcc_int_wire()).
 */
static int hpcc_int_dev_set(struct sk_buff *skb, struct genl_info *info)
{
	struct hpcc_int_net *hn = hpcc_int_net(genl_info_net(info));
	struct hpcc_int_dev *d;
	int ifindex;

	ifindex = hpcc_int_ifindex(info);
	if (ifindex < 0)
		return ifindex;
	if (!info->attrs[HPCC_INT_A_DEV_RATE] &&
	    !info->attrs[HPCC_INT_A_DEV_ENCODING] &&
	    !info->attrs[HPCC_INT_A_DEV_TX_MODEL] &&
	    !hpcc_int_fcr_attrs(info->attrs)) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, HPCC_INT_A_DEV_RATE);
		NL_SET_ERR_MSG_MOD(info->extack,
				   "rate, encoding, tx-model or an fcr or ccm setting is required");
		return -EINVAL;
	}
	rtnl_lock();
	d = xa_load(&hn->devs, ifindex);
	if (d && hpcc_int_fcr_attrs(info->attrs)) {
		int err = hpcc_int_fcr_config(hn, d, info, true);

		if (err) {
			rtnl_unlock();
			return err;
		}
	}
	if (d && info->attrs[HPCC_INT_A_DEV_RATE])
		WRITE_ONCE(d->rate,
			   nla_get_u64(info->attrs[HPCC_INT_A_DEV_RATE]));
	if (d && info->attrs[HPCC_INT_A_DEV_ENCODING])
		WRITE_ONCE(d->encoding,
			   nla_get_u8(info->attrs[HPCC_INT_A_DEV_ENCODING]));
	if (d && info->attrs[HPCC_INT_A_DEV_TX_MODEL])
		WRITE_ONCE(d->tx_model,
			   nla_get_u8(info->attrs[HPCC_INT_A_DEV_TX_MODEL]));
	if (d && (info->attrs[HPCC_INT_A_DEV_RATE] ||
		  info->attrs[HPCC_INT_A_DEV_TX_MODEL])) {
		spin_lock_bh(&d->lock);
		d->wire_ts = 0;
		spin_unlock_bh(&d->lock);
	}
	rtnl_unlock();
	if (!d) {
		NL_SET_ERR_MSG_MOD(info->extack, "the device does not stamp probes");
		return -ENOENT;
	}
	return 0;
}

/* hpcc_int_dev_remove() - drop @ifindex's entry, if any.  Context: RTNL. */
bool hpcc_int_dev_remove(struct hpcc_int_net *hn, int ifindex)
{
	struct hpcc_int_dev *d = xa_erase(&hn->devs, ifindex);

	if (!d)
		return false;
	hn->ndevs--;
	if (d->fcr_high || d->ccm_high)
		WRITE_ONCE(hn->fcr_ndevs, hn->fcr_ndevs - 1);
	call_rcu(&d->rcu, hpcc_int_dev_free);
	return true;
}

static int hpcc_int_dev_del(struct sk_buff *skb, struct genl_info *info)
{
	struct hpcc_int_net *hn = hpcc_int_net(genl_info_net(info));
	int ifindex;
	bool found;

	ifindex = hpcc_int_ifindex(info);
	if (ifindex < 0)
		return ifindex;
	rtnl_lock();
	found = hpcc_int_dev_remove(hn, ifindex);
	rtnl_unlock();
	if (!found) {
		NL_SET_ERR_MSG_MOD(info->extack, "the device does not stamp probes");
		return -ENOENT;
	}
	return 0;
}

static int hpcc_int_dev_fill(struct sk_buff *msg, const struct hpcc_int_dev *d,
			     u32 portid, u32 seq, int flags)
{
	const struct hpcc_int_fcr *f;
	void *hdr;
	int i;

	hdr = genlmsg_put(msg, portid, seq, &hpcc_int_genl_family, flags,
			  HPCC_INT_CMD_DEV_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(msg, HPCC_INT_A_DEV_IFINDEX, d->ifindex) ||
	    nla_put_u64_64bit(msg, HPCC_INT_A_DEV_RATE, READ_ONCE(d->rate),
			      HPCC_INT_A_DEV_PAD) ||
	    nla_put_u8(msg, HPCC_INT_A_DEV_ENCODING, READ_ONCE(d->encoding)) ||
	    nla_put_u8(msg, HPCC_INT_A_DEV_TX_MODEL, READ_ONCE(d->tx_model)))
		goto err;
	for (i = 0; i < HPCC_INT_CNT_NUM; i++)
		if (nla_put_u64_64bit(msg, hpcc_int_cnt_attr[i],
				      atomic64_read(&d->cnt[i]),
				      HPCC_INT_A_DEV_PAD))
			goto err;
	for (i = 0; i < HPCC_INT_FCR_CNT_NUM; i++)
		if (nla_put_u64_64bit(msg, hpcc_int_fcr_cnt_attr[i],
				      atomic64_read(&d->fcr_cnt[i]),
				      HPCC_INT_A_DEV_PAD))
			goto err;
	f = rcu_dereference(d->fcr);
	if (nla_put_u32(msg, HPCC_INT_A_DEV_FCR_QLEN_HIGH, READ_ONCE(d->fcr_high)) ||
	    nla_put_u32(msg, HPCC_INT_A_DEV_FCR_QLEN_LOW, READ_ONCE(d->fcr_low)) ||
	    nla_put_u32(msg, HPCC_INT_A_DEV_FCR_INTERVAL,
			READ_ONCE(d->fcr_interval)) ||
	    nla_put_u32(msg, HPCC_INT_A_DEV_FCR_ETA, READ_ONCE(d->fcr_eta)) ||
	    nla_put_u32(msg, HPCC_INT_A_DEV_FCR_SENDER_MAX,
			READ_ONCE(d->fcr_sender_max)) ||
	    nla_put_u32(msg, HPCC_INT_A_DEV_FCR_DRAIN, READ_ONCE(d->fcr_drain)) ||
	    nla_put_u8(msg, HPCC_INT_A_DEV_FCR_CONGESTED,
		       f ? READ_ONCE(f->congested) : 0) ||
	    nla_put_u64_64bit(msg, HPCC_INT_A_DEV_FCR_RATE,
			      f ? READ_ONCE(f->rate) : 0, HPCC_INT_A_DEV_PAD) ||
	    nla_put_u32(msg, HPCC_INT_A_DEV_FCR_ACTIVE,
			f ? READ_ONCE(f->active) : 0) ||
	    nla_put_u32(msg, HPCC_INT_A_DEV_CCM_QLEN_HIGH,
			READ_ONCE(d->ccm_high)) ||
	    nla_put_u32(msg, HPCC_INT_A_DEV_CCM_QLEN_LOW, READ_ONCE(d->ccm_low)) ||
	    nla_put_u32(msg, HPCC_INT_A_DEV_CCM_INTERVAL,
			READ_ONCE(d->ccm_interval)) ||
	    nla_put_u32(msg, HPCC_INT_A_DEV_CCM_AR_GAP,
			READ_ONCE(d->ccm_ar_gap)) ||
	    nla_put_u8(msg, HPCC_INT_A_DEV_CCM_CONGESTED,
		       f ? READ_ONCE(f->ccm_congested) : 0))
		goto err;
	for (i = 0; i < HPCC_INT_CCM_CNT_NUM; i++)
		if (nla_put_u64_64bit(msg, hpcc_int_ccm_cnt_attr[i],
				      atomic64_read(&d->ccm_cnt[i]),
				      HPCC_INT_A_DEV_PAD))
			goto err;
	genlmsg_end(msg, hdr);
	return 0;
err:
	genlmsg_cancel(msg, hdr);
	return -EMSGSIZE;
}

static int hpcc_int_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct hpcc_int_net *hn = hpcc_int_net(genl_info_net(info));
	struct hpcc_int_dev *d;
	struct sk_buff *msg;
	int ifindex, err;

	ifindex = hpcc_int_ifindex(info);
	if (ifindex < 0)
		return ifindex;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rcu_read_lock();
	d = xa_load(&hn->devs, ifindex);
	err = d ? hpcc_int_dev_fill(msg, d, info->snd_portid, info->snd_seq, 0)
		: -ENOENT;
	rcu_read_unlock();
	if (err) {
		if (err == -ENOENT)
			NL_SET_ERR_MSG_MOD(info->extack,
					   "the device does not stamp probes");
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

static int hpcc_int_dev_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	struct hpcc_int_net *hn = hpcc_int_net(sock_net(skb->sk));
	unsigned long idx = cb->args[0];
	struct hpcc_int_dev *d;
	int err = 0;

	rcu_read_lock();
	xa_for_each_start(&hn->devs, idx, d, cb->args[0]) {
		err = hpcc_int_dev_fill(skb, d, NETLINK_CB(cb->skb).portid,
					cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (err)
			break;
	}
	rcu_read_unlock();
	cb->args[0] = idx;
	return err ? skb->len : 0;
}

/* config-get's keys: id and prefix, never the key's bytes */
static int hpcc_int_keys_put(struct sk_buff *msg, struct hpcc_int_net *hn)
{
	const struct hpcc_int_keys *ks;
	struct nlattr *nest;
	int err = 0;
	u32 i;

	rcu_read_lock();
	ks = rcu_dereference(hn->keys);
	for (i = 0; ks && i < ks->r.n && !err; i++) {
		const struct hpcc_nmac_key *k = &ks->r.k[i];

		nest = nla_nest_start(msg, HPCC_INT_A_CONFIG_KEY);
		if (!nest || nla_put_u32(msg, HPCC_INT_A_SIGN_KEY_ID, k->id) ||
		    hpcc_nl_prefix_put(msg, &k->pfx, HPCC_INT_A_SIGN_KEY_ADDR4,
				       HPCC_INT_A_SIGN_KEY_ADDR6,
				       HPCC_INT_A_SIGN_KEY_PLEN))
			err = -EMSGSIZE;
		else
			nla_nest_end(msg, nest);
	}
	rcu_read_unlock();
	return err;
}

/* config-get's fcr-dst prefixes */
static int hpcc_int_dsts_put(struct sk_buff *msg, struct hpcc_int_net *hn)
{
	const struct hpcc_int_dsts *ds;
	struct nlattr *nest;
	int err = 0;
	u32 i;

	rcu_read_lock();
	ds = rcu_dereference(hn->dsts);
	for (i = 0; ds && i < ds->n && !err; i++) {
		nest = nla_nest_start(msg, HPCC_INT_A_CONFIG_FCR_DST);
		if (!nest ||
		    hpcc_nl_prefix_put(msg, &ds->p[i], HPCC_INT_A_DST_PREFIX_ADDR4,
				       HPCC_INT_A_DST_PREFIX_ADDR6,
				       HPCC_INT_A_DST_PREFIX_PLEN))
			err = -EMSGSIZE;
		else
			nla_nest_end(msg, nest);
	}
	rcu_read_unlock();
	return err;
}

static int hpcc_int_config_get(struct sk_buff *skb, struct genl_info *info)
{
	struct hpcc_int_net *hn = hpcc_int_net(genl_info_net(info));
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &hpcc_int_genl_family, 0,
				HPCC_INT_CMD_CONFIG_GET);
	if (!hdr ||
	    nla_put_u32(msg, HPCC_INT_A_CONFIG_SWITCH_ID, READ_ONCE(hn->switch_id)) ||
	    nla_put_u8(msg, HPCC_INT_A_CONFIG_PROBE_DSCP, READ_ONCE(hn->probe_dscp)) ||
	    nla_put_u8(msg, HPCC_INT_A_CONFIG_INT_DSCP, READ_ONCE(hn->int_dscp)) ||
	    nla_put_u32(msg, HPCC_INT_A_CONFIG_DEVS, READ_ONCE(hn->ndevs)) ||
	    nla_put_u8(msg, HPCC_INT_A_CONFIG_IFA_PROTOCOL,
		       READ_ONCE(hn->ifa_protocol)) ||
	    nla_put_u16(msg, HPCC_INT_A_CONFIG_FCR_PORT, READ_ONCE(hn->fcr_port)) ||
	    nla_put_u8(msg, HPCC_INT_A_CONFIG_FCR_DSCP, READ_ONCE(hn->fcr_dscp)) ||
	    nla_put_u32(msg, HPCC_INT_A_CONFIG_FCR_MSG_RATE,
			READ_ONCE(hn->lim_cfg.rate)) ||
	    nla_put_u32(msg, HPCC_INT_A_CONFIG_FCR_MSG_BURST,
			READ_ONCE(hn->lim_cfg.burst)) ||
	    nla_put_u32(msg, HPCC_INT_A_CONFIG_FCR_DST_RATE,
			READ_ONCE(hn->lim_cfg.dst_rate)) ||
	    nla_put_u32(msg, HPCC_INT_A_CONFIG_FCR_DST_BURST,
			READ_ONCE(hn->lim_cfg.dst_burst)) ||
	    hpcc_int_keys_put(msg, hn) || hpcc_int_dsts_put(msg, hn)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static void hpcc_int_keys_free(struct rcu_head *head)
{
	kfree_sensitive(container_of(head, struct hpcc_int_keys, rcu));
}

/*
 * hpcc_int_keys_set() - config-set's keys (key nests, or keys-flush: none)
 * replace the namespace's.  Return: 0, -EINVAL with extack, -ENOMEM.
 */
static int hpcc_int_keys_set(struct hpcc_int_net *hn, struct genl_info *info)
{
	struct hpcc_int_keys *ks, *old;
	const struct nlattr *a;
	int err, rem;

	ks = kzalloc(sizeof(*ks), GFP_KERNEL_ACCOUNT);
	if (!ks)
		return -ENOMEM;
	nlmsg_for_each_attr(a, info->nlhdr, GENL_HDRLEN, rem) {
		struct nlattr *tb[HPCC_INT_A_SIGN_KEY_MAX + 1];
		struct hpcc_nmac_key *k = &ks->r.k[ks->r.n];

		if (nla_type(a) != HPCC_INT_A_CONFIG_KEY)
			continue;
		err = -EINVAL;
		if (info->attrs[HPCC_INT_A_CONFIG_KEYS_FLUSH]) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "key with keys-flush");
			goto out;
		}
		if (ks->r.n == HPCC_NMAC_KEYS) {
			NL_SET_ERR_MSG_ATTR(info->extack, a, "more than 16 keys");
			goto out;
		}
		err = nla_parse_nested(tb, HPCC_INT_A_SIGN_KEY_MAX, a,
				       hpcc_int_sign_key_nl_policy,
				       info->extack);
		if (err)
			goto out;
		if (!tb[HPCC_INT_A_SIGN_KEY_ID] || !tb[HPCC_INT_A_SIGN_KEY_KEY]) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "a key needs id and key");
			err = -EINVAL;
			goto out;
		}
		err = hpcc_nl_prefix(a, tb[HPCC_INT_A_SIGN_KEY_ADDR4],
				     tb[HPCC_INT_A_SIGN_KEY_ADDR6],
				     tb[HPCC_INT_A_SIGN_KEY_PLEN], &k->pfx,
				     info->extack);
		if (err)
			goto out;
		k->id = nla_get_u32(tb[HPCC_INT_A_SIGN_KEY_ID]);
		nla_memcpy(k->key, tb[HPCC_INT_A_SIGN_KEY_KEY], sizeof(k->key));
		ks->r.n++;
	}
	mutex_lock(&hn->fcr_mutex);
	old = rcu_dereference_protected(hn->keys,
					lockdep_is_held(&hn->fcr_mutex));
	rcu_assign_pointer(hn->keys, ks);
	mutex_unlock(&hn->fcr_mutex);
	if (old)
		call_rcu(&old->rcu, hpcc_int_keys_free);
	return 0;
out:
	kfree_sensitive(ks);
	return err;
}

/*
 * hpcc_int_dsts_parse() - config-set's fcr-dst prefixes into @dsp (NULL
 * for none, as fcr-dst-flush gives: every unicast address).  Return: 0,
 * -EINVAL with extack, -ENOMEM.
 */
static int hpcc_int_dsts_parse(struct genl_info *info,
			       struct hpcc_int_dsts **dsp)
{
	struct hpcc_int_dsts *ds;
	const struct nlattr *a;
	int err, rem;

	*dsp = NULL;
	ds = kzalloc(sizeof(*ds), GFP_KERNEL_ACCOUNT);
	if (!ds)
		return -ENOMEM;
	nlmsg_for_each_attr(a, info->nlhdr, GENL_HDRLEN, rem) {
		struct nlattr *tb[HPCC_INT_A_DST_PREFIX_MAX + 1];

		if (nla_type(a) != HPCC_INT_A_CONFIG_FCR_DST)
			continue;
		err = -EINVAL;
		if (info->attrs[HPCC_INT_A_CONFIG_FCR_DST_FLUSH]) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "fcr-dst with fcr-dst-flush");
			goto out;
		}
		if (ds->n == HPCC_INT_FCR_DST_MAX) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "more than 16 fcr-dst prefixes");
			goto out;
		}
		err = nla_parse_nested(tb, HPCC_INT_A_DST_PREFIX_MAX, a,
				       hpcc_int_dst_prefix_nl_policy,
				       info->extack);
		if (err)
			goto out;
		err = hpcc_nl_prefix(a, tb[HPCC_INT_A_DST_PREFIX_ADDR4],
				     tb[HPCC_INT_A_DST_PREFIX_ADDR6],
				     tb[HPCC_INT_A_DST_PREFIX_PLEN], &ds->p[ds->n],
				     info->extack);
		if (err)
			goto out;
		ds->n++;
	}
	if (ds->n)
		*dsp = ds;
	else
		kfree(ds);
	return 0;
out:
	kfree(ds);
	return err;
}

/* hpcc_int_dsts_set() - @ds (hpcc_int_dsts_parse()) replaces the namespace's. */
static void hpcc_int_dsts_set(struct hpcc_int_net *hn, struct hpcc_int_dsts *ds)
{
	struct hpcc_int_dsts *old;

	mutex_lock(&hn->fcr_mutex);
	old = rcu_dereference_protected(hn->dsts,
					lockdep_is_held(&hn->fcr_mutex));
	rcu_assign_pointer(hn->dsts, ds);
	mutex_unlock(&hn->fcr_mutex);
	if (old)
		kfree_rcu(old, rcu);
}

/* The attributes config-set sets; devs is read only. */
static const int hpcc_int_config_set_attrs[] = {
	HPCC_INT_A_CONFIG_SWITCH_ID, HPCC_INT_A_CONFIG_PROBE_DSCP,
	HPCC_INT_A_CONFIG_IFA_PROTOCOL, HPCC_INT_A_CONFIG_FCR_PORT,
	HPCC_INT_A_CONFIG_FCR_DSCP, HPCC_INT_A_CONFIG_KEY,
	HPCC_INT_A_CONFIG_KEYS_FLUSH, HPCC_INT_A_CONFIG_FCR_MSG_RATE,
	HPCC_INT_A_CONFIG_FCR_MSG_BURST, HPCC_INT_A_CONFIG_FCR_DST_RATE,
	HPCC_INT_A_CONFIG_FCR_DST_BURST, HPCC_INT_A_CONFIG_FCR_DST,
	HPCC_INT_A_CONFIG_FCR_DST_FLUSH, HPCC_INT_A_CONFIG_INT_DSCP,
};

/*
 * hpcc_int_config_check() - the values config-set would leave that the
 * policy cannot check alone: two different probe DSCPs, and an
 * ifa-protocol that hosts do not handle themselves
 */
static int hpcc_int_config_check(struct hpcc_int_net *hn,
				 struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct nlattr *a = tb[HPCC_INT_A_CONFIG_PROBE_DSCP];
	struct nlattr *b = tb[HPCC_INT_A_CONFIG_INT_DSCP];
	u8 pd = a ? nla_get_u8(a) : READ_ONCE(hn->probe_dscp);
	u8 id = b ? nla_get_u8(b) : READ_ONCE(hn->int_dscp);

	if (pd == id) {
		NL_SET_ERR_MSG_ATTR(info->extack, a ? a : b,
				    "probe-dscp and int-dscp must differ");
		return -EINVAL;
	}
	a = tb[HPCC_INT_A_CONFIG_IFA_PROTOCOL];
	if (a && !hpcc_wire_ifa_protocol_ok(nla_get_u8(a))) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "ifa-protocol is one hosts handle themselves (ICMP, TCP, UDP, an IPv6 extension header)");
		return -EINVAL;
	}
	return 0;
}

static int hpcc_int_config_apply(struct hpcc_int_net *hn,
				 struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct hpcc_int_dsts *ds = NULL;
	unsigned int i;
	bool dsts;
	int err;

	for (i = 0; i < ARRAY_SIZE(hpcc_int_config_set_attrs); i++)
		if (tb[hpcc_int_config_set_attrs[i]])
			break;
	if (i == ARRAY_SIZE(hpcc_int_config_set_attrs)) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "nothing to set: give switch-id, probe-dscp, int-dscp, ifa-protocol, fcr-port, fcr-dscp, key, keys-flush, fcr-msg-rate, fcr-msg-burst, fcr-dst-rate, fcr-dst-burst, fcr-dst or fcr-dst-flush");
		return -EINVAL;
	}
	err = hpcc_int_config_check(hn, info);
	if (err)
		return err;
	/* a request that fails changes nothing: the prefixes are parsed
	 * before the keys are set, and set after
	 */
	dsts = tb[HPCC_INT_A_CONFIG_FCR_DST] || tb[HPCC_INT_A_CONFIG_FCR_DST_FLUSH];
	if (dsts) {
		err = hpcc_int_dsts_parse(info, &ds);
		if (err)
			return err;
	}
	if (tb[HPCC_INT_A_CONFIG_KEY] || tb[HPCC_INT_A_CONFIG_KEYS_FLUSH]) {
		err = hpcc_int_keys_set(hn, info);
		if (err) {
			kfree(ds);
			return err;
		}
	}
	if (dsts)
		hpcc_int_dsts_set(hn, ds);
	if (tb[HPCC_INT_A_CONFIG_FCR_MSG_RATE])
		WRITE_ONCE(hn->lim_cfg.rate,
			   nla_get_u32(tb[HPCC_INT_A_CONFIG_FCR_MSG_RATE]));
	if (tb[HPCC_INT_A_CONFIG_FCR_MSG_BURST])
		WRITE_ONCE(hn->lim_cfg.burst,
			   nla_get_u32(tb[HPCC_INT_A_CONFIG_FCR_MSG_BURST]));
	if (tb[HPCC_INT_A_CONFIG_FCR_DST_RATE])
		WRITE_ONCE(hn->lim_cfg.dst_rate,
			   nla_get_u32(tb[HPCC_INT_A_CONFIG_FCR_DST_RATE]));
	if (tb[HPCC_INT_A_CONFIG_FCR_DST_BURST])
		WRITE_ONCE(hn->lim_cfg.dst_burst,
			   nla_get_u32(tb[HPCC_INT_A_CONFIG_FCR_DST_BURST]));
	if (tb[HPCC_INT_A_CONFIG_FCR_PORT])
		WRITE_ONCE(hn->fcr_port, nla_get_u16(tb[HPCC_INT_A_CONFIG_FCR_PORT]));
	if (tb[HPCC_INT_A_CONFIG_FCR_DSCP])
		WRITE_ONCE(hn->fcr_dscp, nla_get_u8(tb[HPCC_INT_A_CONFIG_FCR_DSCP]));
	if (tb[HPCC_INT_A_CONFIG_IFA_PROTOCOL])
		WRITE_ONCE(hn->ifa_protocol,
			   nla_get_u8(tb[HPCC_INT_A_CONFIG_IFA_PROTOCOL]));
	if (tb[HPCC_INT_A_CONFIG_SWITCH_ID])
		WRITE_ONCE(hn->switch_id, nla_get_u32(tb[HPCC_INT_A_CONFIG_SWITCH_ID]));
	if (tb[HPCC_INT_A_CONFIG_PROBE_DSCP])
		WRITE_ONCE(hn->probe_dscp, nla_get_u8(tb[HPCC_INT_A_CONFIG_PROBE_DSCP]));
	if (tb[HPCC_INT_A_CONFIG_INT_DSCP])
		WRITE_ONCE(hn->int_dscp, nla_get_u8(tb[HPCC_INT_A_CONFIG_INT_DSCP]));
	return 0;
}

/* config-set: one at a time, so that two cannot leave the DSCPs equal */
static int hpcc_int_config_set(struct sk_buff *skb, struct genl_info *info)
{
	struct hpcc_int_net *hn = hpcc_int_net(genl_info_net(info));
	int err;

	mutex_lock(&hn->cfg_mutex);
	err = hpcc_int_config_apply(hn, info);
	mutex_unlock(&hn->cfg_mutex);
	return err;
}

/* Each operation's maxattr is what ynl-gen-c writes for the spec
 * (selftests/host/uapi.sh compares): a bound that lags the spec makes the
 * core parse into too small an array.
 *
 * Writes need CAP_NET_ADMIN in the initial user namespace, as ioam6's
 * do: a configured device grows forwarded packets and makes the host send
 * FCR messages and CCM notifications to other hosts, which is not
 * something root of an unprivileged user namespace may set up (the family
 * loads on demand for anyone).
 */
static const struct genl_ops hpcc_int_nl_ops[] = {
	{
		.cmd = HPCC_INT_CMD_DEV_ADD,
		.flags = GENL_ADMIN_PERM,
		.doit = hpcc_int_dev_add,
		.policy = hpcc_int_dev_add_nl_policy,
		.maxattr = HPCC_INT_A_DEV_CCM_AR_GAP,
	},
	{
		.cmd = HPCC_INT_CMD_DEV_DEL,
		.flags = GENL_ADMIN_PERM,
		.doit = hpcc_int_dev_del,
		.policy = hpcc_int_dev_del_nl_policy,
		.maxattr = HPCC_INT_A_DEV_IFINDEX,
	},
	{
		.cmd = HPCC_INT_CMD_DEV_GET,
		.doit = hpcc_int_dev_get_doit,
		.dumpit = hpcc_int_dev_get_dumpit,
		.policy = hpcc_int_dev_get_nl_policy,
		.maxattr = HPCC_INT_A_DEV_IFINDEX,
	},
	{
		.cmd = HPCC_INT_CMD_CONFIG_GET,
		.doit = hpcc_int_config_get,
	},
	{
		.cmd = HPCC_INT_CMD_CONFIG_SET,
		.flags = GENL_ADMIN_PERM,
		.doit = hpcc_int_config_set,
		.policy = hpcc_int_config_set_nl_policy,
		.maxattr = HPCC_INT_A_CONFIG_INT_DSCP,
	},
	{
		.cmd = HPCC_INT_CMD_DEV_SET,
		.flags = GENL_ADMIN_PERM,
		.doit = hpcc_int_dev_set,
		.policy = hpcc_int_dev_set_nl_policy,
		.maxattr = HPCC_INT_A_DEV_CCM_AR_GAP,
	},
};

struct genl_family hpcc_int_genl_family __ro_after_init = {
	.name = HPCC_INT_FAMILY_NAME,
	.version = HPCC_INT_FAMILY_VERSION,
	.netnsok = true,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.ops = hpcc_int_nl_ops,
	.n_ops = ARRAY_SIZE(hpcc_int_nl_ops),
#ifdef HPCC_HAVE_GENL_RESV_START_OP
	.resv_start_op = HPCC_INT_CMD_CONFIG_SET + 1,
#endif
};
