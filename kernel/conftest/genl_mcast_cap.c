// SPDX-License-Identifier: GPL-2.0
/* HPCC_HAVE_GENL_MCAST_CAP: multicast groups can require CAP_NET_ADMIN
 * (GENL_MCAST_CAP_NET_ADMIN, v6.8; backported by some distributions).
 */
#include <net/genetlink.h>

static const struct genl_multicast_group g __maybe_unused = {
	.name = "probe",
	.flags = GENL_MCAST_CAP_NET_ADMIN,
};
