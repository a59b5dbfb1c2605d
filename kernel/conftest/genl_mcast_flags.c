// SPDX-License-Identifier: GPL-2.0
/* HPCC_HAVE_GENL_MCAST_FLAGS: a multicast group's flags, which genl_bind()
 * checks for GENL_UNS_ADMIN_PERM (CAP_NET_ADMIN over the namespace's user
 * namespace): the first form of "genetlink: add CAP_NET_ADMIN test for
 * multicast bind", as the stable kernels took it (Debian 11's 5.10.223).
 * v6.8 renamed the flag GENL_MCAST_CAP_NET_ADMIN (genl_mcast_cap.c).
 */
#include <net/genetlink.h>

static const struct genl_multicast_group g __maybe_unused = {
	.name = "probe",
	.flags = GENL_UNS_ADMIN_PERM,
};
