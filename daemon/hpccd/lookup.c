// SPDX-License-Identifier: GPL-2.0
/*
 * hpccd lookup - what the responder asks the kernel about a probe: the
 * route type of its destination (this host's unicast address?) and the VRF
 * it came in on, the route back to its source (rp-filter) and its
 * neighbour entry, and whether its flow is one of this host's TCP
 * connections (tcp-check: sock_diag), each cached and bounded in time
 * (RT_TIMEOUT_US).
 */

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <linux/inet_diag.h>
#include <linux/neighbour.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "hpccd.h"

/*
 * The neighbour gate (struct hpccd_nb) is the namespace's, not a shard's:
 * one bucket of HPCCD_NB_RATE for every shard, under nb_lock (a slow path:
 * a lookup or a new neighbour entry at most that often), and a lookup that
 * RTNL held stalls every shard's.
 */
static struct hpccd_nb nb_gate;
static bool nb_ready;
static pthread_mutex_t nb_lock = PTHREAD_MUTEX_INITIALIZER;

void nb_setup(uint64_t now)
{
	pthread_mutex_lock(&nb_lock);
	if (!nb_ready)
		hpccd_nb_init(&nb_gate, now);
	nb_ready = true;
	pthread_mutex_unlock(&nb_lock);
}

static enum hpccd_nb_act nb_lookup(bool refresh, uint64_t now)
{
	enum hpccd_nb_act a;

	pthread_mutex_lock(&nb_lock);
	a = hpccd_nb_lookup(&nb_gate, refresh, now);
	pthread_mutex_unlock(&nb_lock);
	D.counters[C_NEIGH_LOOKUPS] += a == HPCCD_NB_LOOKUP;
	return a;
}

static bool nb_answer_new(uint64_t now)
{
	bool ok;

	pthread_mutex_lock(&nb_lock);
	ok = hpccd_nb_answer_new(&nb_gate, now);
	pthread_mutex_unlock(&nb_lock);
	return ok;
}

static void nb_timed_out(uint64_t now)
{
	pthread_mutex_lock(&nb_lock);
	hpccd_nb_timed_out(&nb_gate, now);
	pthread_mutex_unlock(&nb_lock);
	D.counters[C_NEIGH_STALLS]++;
}

/* ::ffff:0:0/96, the IPv4-mapped IPv6 addresses (RFC 4291 2.5.5.2) */
const uint8_t v4mapped_prefix[12] = { [10] = 0xff, [11] = 0xff };

/* @addr (4 or 16 bytes by @family) as 16: IPv4 as IPv4-mapped IPv6. */
static void addr16(int family, const void *addr, uint8_t out[16])
{
	if (family == AF_INET6) {
		memcpy(out, addr, 16);
		return;
	}
	memcpy(out, v4mapped_prefix, 12);
	memcpy(out + 12, addr, 4);
}

/* A cache slot of @a (16 bytes) and @ifindex, of @n (seeded: a sender
 * cannot pick addresses that share one).
 */
static unsigned int cache_slot(const uint8_t a[16], int ifindex,
			       unsigned int n)
{
	uint64_t h, l, x;

	memcpy(&h, a, 8);
	memcpy(&l, a + 8, 8);
	x = (h ^ D.lookup.cache_seed) * 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 29) ^ l ^ (uint64_t)(unsigned int)ifindex) *
	    0xbf58476d1ce4e5b9ULL;
	return (unsigned int)((x ^ (x >> 32)) % n);
}

/*
 * nl_request() - @nlh on @nl (the routing or the socket diagnostics
 * socket), @cb on its reply: one message, or, for a dump (NLM_F_DUMP in
 * @nlh), every part up to its end.  A reply to an earlier request that
 * timed out is skipped (by sequence number, 16 reads at most); each wait
 * is bounded by the socket's receive timeout (RT_TIMEOUT_US).
 * Return: 0 when the reply came (an error reply to a single request too:
 * @cb then sees nothing); -1 when none did, or a dump broke off or was
 * refused (counted: counter @c_fail; what is left of a dump is drained,
 * not left to fill the next request's reads).  Every request counts in
 * counter @c_req.
 */
static int nl_request(struct mnl_socket *nl, struct nlmsghdr *nlh,
		      mnl_cb_t cb, void *data, int c_req, int c_fail)
{
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(4)));
	bool dump = nlh->nlmsg_flags & NLM_F_DUMP;
	unsigned int seq = ++D.lookup.rt_seq, skipped = 0;
	ssize_t n;
	int ret;

	nlh->nlmsg_seq = seq;
	D.counters[c_req]++;
	if (!nl || mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		goto fail;
	for (;;) {
		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < (ssize_t)sizeof(struct nlmsghdr))
			goto fail;
		/* a late reply to an earlier request: skipped */
		if (((const struct nlmsghdr *)(const void *)buf)->nlmsg_seq !=
		    seq) {
			if (++skipped == 16)
				goto fail;
			continue;
		}
		ret = mnl_cb_run(buf, n, seq, mnl_socket_get_portid(nl), cb,
				 data);
		if (!dump)
			return 0;
		if (ret <= MNL_CB_STOP)
			break;
	}
	if (ret == MNL_CB_STOP)
		return 0;
fail:
	D.counters[c_fail]++;
	while (dump && nl && recv(mnl_socket_get_fd(nl), buf, sizeof(buf),
				  MSG_DONTWAIT) > 0)
		;
	return -1;
}

/*
 * request_start() - a request of @type (NLM_F_REQUEST and @flags) in
 * @req, as *@nlh
 * Return: its fixed header, @len bytes, zeroed.
 */
static void *request_start(char *req, uint16_t type, uint16_t flags,
			   size_t len, struct nlmsghdr **nlh)
{
	*nlh = mnl_nlmsg_put_header(req);
	(*nlh)->nlmsg_type = type;
	(*nlh)->nlmsg_flags = NLM_F_REQUEST | flags;
	return mnl_nlmsg_put_extra_header(*nlh, len);
}

/* nl_request() on the routing socket: lookups, lookups-failed */
static int rt_request(struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	return nl_request(D.lookup.rt, nlh, cb, data, C_LOOKUPS,
			  C_LOOKUPS_FAILED);
}

/**
 * struct reply_field - the one field a lookup wants of its reply
 * @type: the reply's message type (RTM_NEWROUTE, RTM_NEWNEIGH, ...)
 * @hdr_len: the length of its fixed header (struct rtmsg, ...)
 * @off: the field's offset in that header
 * @size: its size (that of *@out)
 * @out: where it goes; left as it was when no such reply came
 */
struct reply_field {
	uint16_t type;
	size_t hdr_len, off, size;
	void *out;
};

/* REPLY_FIELD(TYPE, HDR, MEMBER, OUT) - member MEMBER of struct HDR of a
 * reply of type TYPE into *OUT, of the member's type
 */
#define REPLY_FIELD(type, hdr, member, out)				\
	(&(struct reply_field){ (type), sizeof(struct hdr),		\
		offsetof(struct hdr, member),				\
		sizeof(((struct hdr *)0)->member) +			\
		0 * sizeof(char[sizeof(((struct hdr *)0)->member) ==	\
				sizeof(*(out)) ? 1 : -1]), (out) })

/* field_cb() - a reply of one of route, neighbour and socket lookups */
static int field_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct reply_field *f = data;

	if (nlh->nlmsg_type == f->type &&
	    mnl_nlmsg_get_payload_len(nlh) >= f->hdr_len)
		memcpy(f->out, (const char *)mnl_nlmsg_get_payload(nlh) + f->off,
		       f->size);
	return MNL_CB_OK;
}

static int link_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a, *b;
	int *vrf = data, master = 0;
	bool is_vrf = false;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct ifinfomsg))
		return MNL_CB_OK;
	mnl_attr_for_each(a, nlh, sizeof(struct ifinfomsg)) {
		if (mnl_attr_get_type(a) == IFLA_MASTER &&
		    !mnl_attr_validate(a, MNL_TYPE_U32))
			master = (int)mnl_attr_get_u32(a);
		if (mnl_attr_get_type(a) != IFLA_LINKINFO)
			continue;
		mnl_attr_for_each_nested(b, a)
			if (mnl_attr_get_type(b) == IFLA_INFO_SLAVE_KIND &&
			    !mnl_attr_validate(b, MNL_TYPE_NUL_STRING) &&
			    !strcmp(mnl_attr_get_str(b), "vrf"))
				is_vrf = true;
	}
	if (is_vrf)
		*vrf = master;
	return MNL_CB_OK;
}

/*
 * vrf_of() - the VRF device @ifindex is a member of, 0 for none (or no
 * reply): its route lookups name it as RTA_OIF, as "ip route get ... vrf
 * NAME" does, so they use the VRF's table.  RTM_GETLINK, cached 10 s per
 * interface (ifindex comes from the kernel: a flood cannot add lookups).
 */
int vrf_of(int ifindex, uint64_t now)
{
	char req[256] __attribute__((aligned(4)));
	unsigned int i = (unsigned int)ifindex % LINK_CACHE;
	struct ifinfomsg *ifm;
	struct nlmsghdr *nlh;
	int vrf = 0;

	if (D.lookup.lcache[i].at && D.lookup.lcache[i].ifindex == ifindex &&
	    now - D.lookup.lcache[i].at < LINK_CACHE_NS)
		return D.lookup.lcache[i].vrf;
	ifm = request_start(req, RTM_GETLINK, 0, sizeof(*ifm), &nlh);
	ifm->ifi_family = AF_UNSPEC;
	ifm->ifi_index = ifindex;
	if (rt_request(nlh, link_cb, &vrf))
		return 0;		/* not cached: the next may succeed */
	D.lookup.lcache[i].ifindex = ifindex;
	D.lookup.lcache[i].vrf = vrf;
	D.lookup.lcache[i].at = now;
	return vrf;
}

/*
 * addr_type_cached() - the route type of @addr in VRF @vrf (addr_type())
 * if the cache has it, without a lookup
 * Return: true and *@type; false when it must be looked up.
 */
bool addr_type_cached(int family, const void *addr, int vrf,
		      uint64_t now, uint8_t *type)
{
	unsigned int i;
	uint8_t a[16];

	addr16(family, addr, a);
	i = cache_slot(a, vrf, ADDR_CACHE);
	if (D.lookup.acache[i].at && !memcmp(D.lookup.acache[i].addr, a, 16) &&
	    D.lookup.acache[i].vrf == vrf &&
	    now - D.lookup.acache[i].at < ADDR_CACHE_NS) {
		*type = D.lookup.acache[i].type;
		return true;
	}
	return false;
}

/*
 * addr_type() - the route type of @addr (network order, 4 or 16 bytes by
 * @family) in this namespace, in VRF device @vrf's table (0: none):
 * RTN_LOCAL for one of its addresses,
 * RTN_BROADCAST, RTN_MULTICAST, RTN_UNICAST, ...; RTN_UNSPEC when there is
 * no route; -1 when the lookup had no reply (not cached).  Cached 5 s.
 */
int addr_type(int family, const void *addr, int vrf, uint64_t now)
{
	char req[256] __attribute__((aligned(4)));
	uint8_t type = RTN_UNSPEC, a[16];
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	unsigned int i;

	if (addr_type_cached(family, addr, vrf, now, &type))
		return type;
	addr16(family, addr, a);
	i = cache_slot(a, vrf, ADDR_CACHE);
	rtm = request_start(req, RTM_GETROUTE, 0, sizeof(*rtm), &nlh);
	rtm->rtm_family = family;
	rtm->rtm_dst_len = family == AF_INET6 ? 128 : 32;
	mnl_attr_put(nlh, RTA_DST, family == AF_INET6 ? 16 : 4, addr);
	if (vrf)
		mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)vrf);
	if (rt_request(nlh, field_cb,
			REPLY_FIELD(RTM_NEWROUTE, rtmsg, rtm_type, &type)))
		return -1;		/* not cached: the next may succeed */
	memcpy(D.lookup.acache[i].addr, a, 16);
	D.lookup.acache[i].vrf = vrf;
	D.lookup.acache[i].type = type;
	D.lookup.acache[i].at = now;
	return type;
}

/**
 * struct src_route - what the FIB entry for a probe's source says about
 * the interface the probe came in on (src_route_cb())
 * @ifindex: that interface
 * @type: the entry's route type; RTN_UNSPEC: none
 * @dev_match: a path of the entry leaves by @ifindex
 * @on_link: that path (else the first) has no gateway: the source is a
 *	neighbour on the link
 * @oif: the interface of that path
 * @paths: paths seen
 * @nh_id: the entry names a nexthop object (RTA_NH_ID); with
 *	net.ipv4.nexthop_compat_mode 0 it then lists no path
 */
struct src_route {
	int ifindex;
	uint8_t type;
	bool dev_match, on_link, nh_id;
	int oif;
	unsigned int paths;
};

/* One path of the entry: leaving by @oif, with a gateway or not. */
static void src_path(struct src_route *r, int oif, bool gateway)
{
	if (r->dev_match)
		return;
	if (oif == r->ifindex || !r->paths) {
		r->dev_match = oif == r->ifindex;
		r->on_link = !gateway;
		r->oif = oif;
	}
	r->paths++;
}

/* A nexthop's attributes: does it name a gateway? */
static bool nh_gateway(const void *attrs, size_t len)
{
	const struct nlattr *attr;	/* the macro's name */

	mnl_attr_for_each_payload(attrs, len)
		if (mnl_attr_get_type(attr) == RTA_GATEWAY ||
		    mnl_attr_get_type(attr) == RTA_VIA)
			return true;
	return false;
}

static int src_route_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	struct src_route *r = data;
	const struct nlattr *a;
	bool gateway = false;
	int oif = 0;

	if (nlh->nlmsg_type != RTM_NEWROUTE ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*rtm))
		return MNL_CB_OK;
	r->type = rtm->rtm_type;
	mnl_attr_for_each(a, nlh, sizeof(*rtm)) {
		switch (mnl_attr_get_type(a)) {
		case RTA_OIF:
			if (!mnl_attr_validate(a, MNL_TYPE_U32))
				oif = (int)mnl_attr_get_u32(a);
			break;
		case RTA_GATEWAY:
		case RTA_VIA:
			gateway = true;
			break;
		case RTA_NH_ID:
			r->nh_id = true;
			break;
		case RTA_MULTIPATH: {
			const uint8_t *p = mnl_attr_get_payload(a);
			size_t len = mnl_attr_get_payload_len(a);

			while (len >= sizeof(struct rtnexthop)) {
				const struct rtnexthop *nh = (const void *)p;
				size_t nl = nh->rtnh_len;

				if (nl < sizeof(*nh) || nl > len)
					break;
				src_path(r, nh->rtnh_ifindex,
					 nh_gateway(RTNH_DATA(nh),
						    nl - sizeof(*nh)));
				nl = RTNH_ALIGN(nl);
				if (nl >= len)
					break;
				p += nl;
				len -= nl;
			}
			break;
		}
		}
	}
	if (oif)
		src_path(r, oif, gateway);
	return MNL_CB_OK;
}

/*
 * neighbour_known() - this host has a neighbour entry for @addr on
 * @ifindex, in any state: answering it adds no entry.  Looked up with
 * RTM_GETNEIGH (Linux 5.0), which never creates one but takes RTNL: call
 * it only through hpccd_nb_lookup().
 * Return: 1 (an entry), 0 (none), -1 (no reply within RT_TIMEOUT_US).
 */
static int neighbour_known(int family, const void *addr, int ifindex)
{
	char req[256] __attribute__((aligned(4)));
	struct nlmsghdr *nlh;
	struct ndmsg *ndm;
	uint16_t state = 0;

	ndm = request_start(req, RTM_GETNEIGH, 0, sizeof(*ndm), &nlh);
	ndm->ndm_family = family;
	ndm->ndm_ifindex = ifindex;
	mnl_attr_put(nlh, NDA_DST, family == AF_INET6 ? 16 : 4, addr);
	if (rt_request(nlh, field_cb,
			REPLY_FIELD(RTM_NEWNEIGH, ndmsg, ndm_state, &state)))
		return -1;
	return state != 0;
}

/* How long "no neighbour entry" is cached: briefly, as the response it
 * allows creates one.
 */
#define SRC_NEG_CACHE_NS 200000000ULL
/* An on-link source answered before keeps its slot (refreshed without a
 * neighbour token) this long after its verdict expires: other sources'
 * verdicts do not take it, so a flood cannot turn known peers into new
 * ones competing for HPCCD_NB_RATE.
 */
#define SRC_KEEP_NS 10000000000ULL

/* fe80::/10: a response to it leaves by the interface the probe came in. */
bool link_local6(int family, const void *addr)
{
	const uint8_t *a = addr;

	return family == AF_INET6 && a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

/*
 * src_check() - the reverse-path check of a probe's source @addr that came
 * in on @ifindex (the loopback device when @on_lo), cached 1 s: a unicast
 * route back (a local one only on the loopback device, where nothing comes
 * from outside the host); with rp-filter 1 (strict), one of its paths by
 * @ifindex, as rp_filter 1 checks (the route's FIB entry, RTM_F_FIB_MATCH, all
 * paths of a multipath route); and whether an on-link source (a path
 * without a gateway, or an IPv6 link-local address) has a neighbour entry.
 * The neighbour lookup and a response that would create an entry go
 * through the namespace's neighbour gate (nb_gate): a token before the
 * lookup, "no entry"
 * cached SRC_NEG_CACHE_NS, a token per response while it is.
 *
 * The route lookup is fib_validate_source()'s as far as rtnetlink can
 * ask it: to @addr from @local (the probe's destination, RTA_SRC, so
 * "from" policy rules apply), in the VRF @vrf of @ifindex (RTA_OIF, as
 * "ip route get ... vrf NAME"); not by the probe's mark (the packet socket
 * does not see it).  An entry that names a nexthop object and lists no
 * path (nexthop_compat_mode 0) is checked loosely (probes-rp-nh).
 */
enum src_verdict src_check(int family, const void *addr,
			   const void *local, int ifindex, int vrf,
			   bool on_lo, uint64_t now)
{
	char req[256] __attribute__((aligned(4)));
	struct src_route r = { .ifindex = ifindex };
	bool same, refresh, on_link = false;
	enum src_verdict v;
	int nb_oif = 0;
	struct nlmsghdr *nlh;
	struct rtmsg *rtm;
	unsigned int i;
	uint8_t a[16], l[16];

	if (on_lo)
		return SRC_OK;	/* local: nothing to spoof from outside */
	addr16(family, addr, a);
	addr16(family, local, l);
	i = cache_slot(a, ifindex, SRC_CACHE);
	same = D.lookup.scache[i].at && D.lookup.scache[i].ifindex == ifindex &&
	       !memcmp(D.lookup.scache[i].addr, a, 16) &&
	       !memcmp(D.lookup.scache[i].local, l, 16);
	if (same && D.lookup.scache[i].verdict == SRC_NEW_NEIGH &&
	    now - D.lookup.scache[i].at < SRC_NEG_CACHE_NS)
		return nb_answer_new(now) ? SRC_NEW_NEIGH :
							      SRC_NO_NEIGH;
	if (same && D.lookup.scache[i].verdict != SRC_NEW_NEIGH &&
	    now - D.lookup.scache[i].at < SRC_CACHE_NS)
		return D.lookup.scache[i].verdict;
	/* an on-link source answered before: its entry is refreshed */
	refresh = same && D.lookup.scache[i].verdict == SRC_OK &&
		  D.lookup.scache[i].on_link &&
		  now - D.lookup.scache[i].at < SRC_CACHE_NS + SRC_KEEP_NS;
	if (link_local6(family, addr)) {
		/* reachable on the link it came from, if a neighbour */
		nb_oif = ifindex;
		goto neigh;
	}
	rtm = request_start(req, RTM_GETROUTE, 0, sizeof(*rtm), &nlh);
	rtm->rtm_family = family;
	rtm->rtm_dst_len = family == AF_INET6 ? 128 : 32;
	rtm->rtm_flags = RTM_F_FIB_MATCH;
	mnl_attr_put(nlh, RTA_DST, family == AF_INET6 ? 16 : 4, addr);
	mnl_attr_put(nlh, RTA_SRC, family == AF_INET6 ? 16 : 4, local);
	rtm->rtm_src_len = family == AF_INET6 ? 128 : 32;
	if (vrf)
		mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)vrf);
	if (rt_request(nlh, src_route_cb, &r))
		return SRC_NO_REPLY;	/* not cached: the next may succeed */
	if (r.type != RTN_UNICAST)
		v = SRC_BAD;
	else if (D.cfg.rp_filter == HPCCD_RP_STRICT && !r.dev_match &&
		 r.nh_id && !r.paths) {
		/* a nexthop object the reply does not resolve: loose */
		D.counters[C_PROBES_RP_NH]++;
		v = SRC_OK;
	} else if (D.cfg.rp_filter == HPCCD_RP_STRICT && !r.dev_match)
		v = SRC_RP;
	else if (r.on_link && r.oif) {
		nb_oif = r.oif;
		goto neigh;
	} else
		v = SRC_OK;
	goto out;
neigh:
	on_link = true;
	switch (nb_lookup(refresh, now)) {
	case HPCCD_NB_REFUSE:
		return SRC_NO_NEIGH;
	case HPCCD_NB_KEEP:
		v = SRC_OK;
		goto out;
	case HPCCD_NB_LOOKUP:
		break;
	}
	switch (neighbour_known(family, addr, nb_oif)) {
	case 1:
		v = SRC_OK;
		break;
	case 0:
		/* a new lookup's token pays for this response; a refresh
		 * that finds the entry gone takes one
		 */
		if (refresh && !nb_answer_new(now))
			return SRC_NO_NEIGH;
		v = SRC_NEW_NEIGH;
		break;
	default:
		nb_timed_out(now);
		if (refresh) {
			v = SRC_OK;	/* kept: it had an entry */
			break;
		}
		return SRC_NO_REPLY;
	}
out:
	if (!same && D.lookup.scache[i].at &&
	    D.lookup.scache[i].verdict == SRC_OK &&
	    D.lookup.scache[i].on_link && !(v == SRC_OK && on_link) &&
	    now - D.lookup.scache[i].at < SRC_CACHE_NS + SRC_KEEP_NS)
		return v;	/* a known on-link peer's slot: not cached */
	memcpy(D.lookup.scache[i].addr, a, 16);
	memcpy(D.lookup.scache[i].local, l, 16);
	D.lookup.scache[i].ifindex = ifindex;
	D.lookup.scache[i].verdict = v;
	D.lookup.scache[i].on_link = on_link;
	D.lookup.scache[i].at = now;
	return v;
}

/*
 * tcp_flow_known() - this host has a TCP connection for the probe's flow
 * @t (as the probe has it: its source the peer, its destination us) that
 * came in on @ifindex, in a state of an accepted connection
 * (hpccd_tcp_state_flow(): ESTABLISHED, FIN_WAIT1, FIN_WAIT2, CLOSE_WAIT,
 * LAST_ACK, CLOSING): an exact socket lookup over NETLINK_SOCK_DIAG
 * (inet_diag, as ss does; tcp-lookups, tcp-lookups-failed), cached 1 s by
 * 5-tuple (struct hpccd_tc: a known flow's verdict is refreshed, and not
 * evicted by unknown ones, for 10 s more).  A listener, a request socket (SYN_RECV: a spoofed SYN makes
 * one) and TIME_WAIT do not count, so a probe for any port of a listening
 * service is not a flow.  Only such flows count in N and get receiver
 * state (tcp-check): a sender of spoofed probes cannot make them up.  The
 * lookup names @ifindex (the VRF device when it is a VRF's member:
 * vrf_of()), so a socket bound to that device (SO_BINDTODEVICE, an IPv6
 * link-local peer, a VRF's socket) is found as well as an unbound one.
 */
bool tcp_flow_known(const struct hpcc_tuple *t, int ifindex,
		    uint64_t now)
{
	char req[256] __attribute__((aligned(4)));
	bool v6 = t->family == AF_INET6, known;
	struct inet_diag_req_v2 *r;
	struct nlmsghdr *nlh;
	uint8_t state = 0;

	switch (hpccd_tc_get(&D.lookup.tcache, t, now)) {
	case HPCCD_TC_KNOWN:
		return true;
	case HPCCD_TC_UNKNOWN:
		return false;
	default:
		break;
	}
	r = request_start(req, SOCK_DIAG_BY_FAMILY, 0, sizeof(*r), &nlh);
	r->sdiag_family = v6 ? AF_INET6 : AF_INET;
	r->sdiag_protocol = IPPROTO_TCP;
	r->idiag_states = ~0U;
	/* the socket's view: local = the probe's destination */
	r->id.idiag_sport = t->dport;
	r->id.idiag_dport = t->sport;
	if (v6) {
		memcpy(r->id.idiag_src, t->daddr6, 16);
		memcpy(r->id.idiag_dst, t->saddr6, 16);
	} else {
		r->id.idiag_src[0] = t->daddr;
		r->id.idiag_dst[0] = t->saddr;
	}
	/* an unbound socket matches any device; a bound one only its own */
	r->id.idiag_if = (uint32_t)ifindex;
	r->id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	r->id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	if (nl_request(D.lookup.diag, nlh, field_cb,
		       REPLY_FIELD(SOCK_DIAG_BY_FAMILY, inet_diag_msg,
				   idiag_state, &state),
		       C_TCP_LOOKUPS, C_TCP_LOOKUPS_FAILED))
		return false;		/* not cached: the next may succeed */
	known = hpccd_tcp_state_flow(state);
	hpccd_tc_put(&D.lookup.tcache, t, known, now);
	return known;
}

/*
 * own_flow() - is @t a flow of this host's TCP connections by tcp-check's
 * cache, without a lookup for anything the cache does not already hold as
 * known?  A stale "known" verdict is looked up again (only a real
 * connection leaves one, so a flood cannot buy such lookups).
 */
bool own_flow(const struct hpcc_tuple *t, int ifindex, uint64_t now)
{
	if (!D.cfg.tcp_check || !D.lookup.diag)
		return false;
	switch (hpccd_tc_get(&D.lookup.tcache, t, now)) {
	case HPCCD_TC_KNOWN:
		return true;
	case HPCCD_TC_STALE_KNOWN:
		return tcp_flow_known(t, ifindex, now);
	default:
		return false;
	}
}

/* learn_cb() - a socket of tcp_flows_learn()'s dump: its flow is known */
static int learn_cb(const struct nlmsghdr *nlh, void *data)
{
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	const struct inet_diag_msg *m = mnl_nlmsg_get_payload(nlh);
	struct hpcc_tuple t = { 0 };

	if (nlh->nlmsg_type != SOCK_DIAG_BY_FAMILY ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*m) ||
	    !hpccd_tcp_state_flow(m->idiag_state))
		return MNL_CB_OK;
	/* as the peer's probes have it: its source the peer */
	t.sport = m->id.idiag_dport;
	t.dport = m->id.idiag_sport;
	if (m->idiag_family == AF_INET6 &&
	    (memcmp(m->id.idiag_src, mapped, 12) ||
	     memcmp(m->id.idiag_dst, mapped, 12))) {
		t.family = AF_INET6;
		memcpy(t.saddr6, m->id.idiag_dst, 16);
		memcpy(t.daddr6, m->id.idiag_src, 16);
	} else {
		/* an IPv4 peer of an IPv6 socket probes over IPv4 */
		int i = m->idiag_family == AF_INET6 ? 3 : 0;

		t.family = AF_INET;
		t.saddr = m->id.idiag_dst[i];
		t.daddr = m->id.idiag_src[i];
	}
	/* another shard's probes come for another shard's flows */
	if (hpccd_shard_of(&t, D.nshards) != D.shard)
		return MNL_CB_OK;
	hpccd_tc_put(&D.lookup.tcache, &t, true, *(const uint64_t *)data);
	D.counters[C_TCP_FLOWS_LEARNED]++;
	return MNL_CB_OK;
}

/*
 * tcp_flows_learn() - put every TCP connection of this host's in an
 * accepted connection's state (hpccd_tcp_state_flow()) in tcp-check's
 * cache as known, by one NETLINK_SOCK_DIAG dump per family (as ss -t
 * does; tcp-dumps, tcp-flows-learned; a dump without its end counts in
 * tcp-lookups-failed), at most once per HPCCD_TC_TTL_NS.  on_probe() calls
 * it when the response budget refuses a probe: during a flood beyond the
 * budget a new flow's first probe would otherwise find a token as rarely
 * as the flood's probes do, and its lookup would wait for one; this way
 * it leaves the budget within a second of its connection.  The dump costs
 * a few microseconds per connection, once a second at most, and only
 * while the budget is exhausted.
 */
void tcp_flows_learn(uint64_t now)
{
	static const uint8_t fams[] = { AF_INET, AF_INET6 };
	char req[256] __attribute__((aligned(4)));
	struct inet_diag_req_v2 *r;
	struct nlmsghdr *nlh;
	uint32_t states = 0;
	unsigned int f, st;

	if (!D.cfg.tcp_check || !D.lookup.diag ||
	    (D.lookup.tc_learned &&
	     now - D.lookup.tc_learned < HPCCD_TC_TTL_NS))
		return;
	D.lookup.tc_learned = now;
	for (st = 0; st < 32; st++)
		if (hpccd_tcp_state_flow((uint8_t)st))
			states |= 1U << st;
	for (f = 0; f < sizeof(fams); f++) {
		r = request_start(req, SOCK_DIAG_BY_FAMILY, NLM_F_DUMP,
				  sizeof(*r), &nlh);
		r->sdiag_family = fams[f];
		r->sdiag_protocol = IPPROTO_TCP;
		r->idiag_states = states;
		if (nl_request(D.lookup.diag, nlh, learn_cb, &now, C_TCP_DUMPS,
			       C_TCP_LOOKUPS_FAILED))
			return;
	}
}
