/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences the ENA driver meets between Debian's 6.1 and
 * 6.12 kernels, checked against their headers.
 */
#ifndef _ENA_COMPAT_H_
#define _ENA_COMPAT_H_

#include <linux/version.h>

/* page_pool moved its helpers out of <net/page_pool.h> in 6.6 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
#include <net/page_pool/helpers.h>
#else
#include <net/page_pool.h>
#endif

/*
 * ethtool get_rxfh/set_rxfh take a struct ethtool_rxfh_param from 6.8 on;
 * before that, separate indir/key/hfunc arguments.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
#define ENA_HAVE_RXFH_PARAM	1
#endif

/* netdev_queue_mgmt_ops (per-queue restart by the core) exist from 6.10 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define ENA_HAVE_QUEUE_MGMT_OPS	1
#endif

#endif /* _ENA_COMPAT_H_ */
