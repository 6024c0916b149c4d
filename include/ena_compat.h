/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel differences the ENA driver meets between Debian's 6.1 and 6.12
 * kernels.  The driver's Kbuild detects them in the headers built
 * against, not from version numbers, so backports are handled too:
 *
 * - page_pool helpers moved from <net/page_pool.h> to
 *   <net/page_pool/helpers.h> (6.6): ENA_HAVE_PP_HELPERS_H;
 * - ethtool get_rxfh/set_rxfh take struct ethtool_rxfh_param (6.8):
 *   ENA_HAVE_RXFH_PARAM;
 * - netdev_queue_mgmt_ops (6.10): ENA_HAVE_QUEUE_MGMT_OPS;
 * - page_pool_alloc_frag() needs PP_FLAG_PAGE_FRAG before 6.6, which
 *   dropped the flag (every pool can split pages): ENA_PP_FLAG_FRAG.
 */
#ifndef _ENA_COMPAT_H_
#define _ENA_COMPAT_H_

#ifdef ENA_HAVE_PP_HELPERS_H
#include <net/page_pool/helpers.h>
#else
#include <net/page_pool.h>
#endif

#ifdef PP_FLAG_PAGE_FRAG
#define ENA_PP_FLAG_FRAG	PP_FLAG_PAGE_FRAG
#else
#define ENA_PP_FLAG_FRAG	0
#endif

#endif /* _ENA_COMPAT_H_ */
