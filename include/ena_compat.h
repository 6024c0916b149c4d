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
 * - ethtool's TX push buffer length (tx-push-buf-len, 6.4):
 *   ENA_HAVE_TX_PUSH_BUF_LEN (without it the LLQ entry size follows the
 *   device's recommendation only);
 * - netdev_queue_mgmt_ops (6.10): ENA_HAVE_QUEUE_MGMT_OPS;
 * - page_pool_alloc_frag() needs PP_FLAG_PAGE_FRAG before 6.6, which
 *   dropped the flag (every pool can split pages): ENA_PP_FLAG_FRAG;
 * - the lockless TX stop/wake macros of <net/netdev_queues.h>:
 *   netif_txq_maybe_stop() (6.3, in Debian's 6.1 by backport; required):
 *   ENA_HAVE_TXQ_MAYBE_STOP; netif_txq_completed_wake(), which also
 *   reports the completions to BQL (6.5; Debian's 6.1 has the older
 *   netif_txq_maybe_wake()): ENA_HAVE_TXQ_COMPLETED_WAKE;
 * - per-queue statistics over netlink, struct netdev_stat_ops (6.9):
 *   ENA_HAVE_STAT_OPS (without it the driver registers none);
 * - the queue-to-NAPI and NAPI-to-IRQ links the netdev netlink family
 *   reports, netif_queue_set_napi() (6.8): ENA_HAVE_QUEUE_NAPI, and
 *   netif_napi_set_irq() (6.8): ENA_HAVE_NAPI_SET_IRQ; no-ops without;
 * - page_pool_params .napi (lockless recycling by the consuming NAPI)
 *   and .netdev (netlink page-pool introspection), used together with
 *   page_pool_disable_direct_recycling() (6.9) to unbind a pool whose
 *   NAPI runs on: ENA_HAVE_PP_NAPI;
 * - the XDP actions a driver announces, xdp_set_features_flag() (6.3):
 *   ENA_HAVE_XDP_FEATURES (before it there is nothing to announce);
 * - skb_frag_fill_page_desc() (6.5) fills a fragment in one call:
 *   ENA_HAVE_FRAG_FILL (before it, its three setters);
 * - a device's driver_override moved from struct pci_dev into struct
 *   device, read with device_match_driver_override() (newer kernels; in Debian's
 *   6.12 by backport): ENA_HAVE_DEV_DRIVER_OVERRIDE.
 */
#ifndef _ENA_COMPAT_H_
#define _ENA_COMPAT_H_

#include <linux/netdevice.h>
#include <linux/pci.h>

#ifdef ENA_HAVE_PP_HELPERS_H
#include <net/page_pool/helpers.h>
#else
#include <net/page_pool.h>
#endif

#ifdef ENA_HAVE_TXQ_MAYBE_STOP
#include <net/netdev_queues.h>
#endif

#ifdef PP_FLAG_PAGE_FRAG
#define ENA_PP_FLAG_FRAG	PP_FLAG_PAGE_FRAG
#else
#define ENA_PP_FLAG_FRAG	0
#endif

#ifndef ENA_HAVE_TXQ_MAYBE_STOP
#error "ena needs netif_txq_maybe_stop() in <net/netdev_queues.h> (6.3)"
#endif

#ifndef ENA_HAVE_TXQ_COMPLETED_WAKE
/* BQL learns of the completions, then a full barrier (BQL may have none) */
static inline void ena_txq_completed(struct netdev_queue *txq,
				     unsigned int pkts, unsigned int bytes)
{
	netdev_tx_completed_queue(txq, pkts, bytes);
	/*
	 * The slots the caller freed before the stopped test that follows:
	 * pairs with the barrier after the stop in netif_txq_try_stop().
	 */
	smp_mb();
}

/*
 * As in later kernels: report @pkts/@bytes to BQL, then wake @txq if it
 * is stopped, @start_thrs slots are free and @down_cond is false.
 * Return: 0 woken, 1 not stopped (or @down_cond), -1 too few slots or
 * nothing completed.  (6.1's netif_txq_maybe_wake() reports nothing to
 * BQL and tests the slots before its barrier.)
 */
#define __netif_txq_completed_wake(txq, pkts, bytes, get_desc,	\
				   start_thrs, down_cond)		\
	({								\
		struct netdev_queue *__ena_q = (txq);			\
		unsigned int __ena_n = (pkts);				\
		int __ena_r = -1;					\
									\
		ena_txq_completed(__ena_q, __ena_n, bytes);		\
		if (__ena_n && likely((get_desc) >= (start_thrs))) {	\
			__ena_r = 1;					\
			if (unlikely(netif_tx_queue_stopped(__ena_q)) &&	\
			    !(down_cond)) {				\
				netif_tx_wake_queue(__ena_q);		\
				__ena_r = 0;				\
			}						\
		}							\
		__ena_r;						\
	})
#define netif_txq_completed_wake(txq, pkts, bytes, get_desc, start_thrs) \
	__netif_txq_completed_wake(txq, pkts, bytes, get_desc, start_thrs, \
				   false)
#endif

#ifndef ENA_HAVE_FRAG_FILL
static inline void skb_frag_fill_page_desc(skb_frag_t *frag, struct page *page,
					   int off, int size)
{
	__skb_frag_set_page(frag, page);
	skb_frag_off_set(frag, off);
	skb_frag_size_set(frag, size);
}
#endif

#ifndef ENA_HAVE_QUEUE_NAPI
/* no queue-to-NAPI links to report before 6.8 */
#define NETDEV_QUEUE_TYPE_RX	0
#define NETDEV_QUEUE_TYPE_TX	1
static inline void netif_queue_set_napi(struct net_device *dev,
					unsigned int queue_index, int type,
					struct napi_struct *napi)
{
}
#endif

#ifndef ENA_HAVE_NAPI_SET_IRQ
static inline void netif_napi_set_irq(struct napi_struct *napi, int irq)
{
}
#endif

/**
 * ena_pp_unbind_napi() - end a page pool's lockless recycling by its NAPI
 * @pool: a pool created with .napi set, or NULL
 *
 * Only while that NAPI is disabled (the kernel warns otherwise); the pool
 * then recycles through its locked ring alone and may be destroyed while
 * the NAPI runs again.
 */
static inline void ena_pp_unbind_napi(struct page_pool *pool)
{
#ifdef ENA_HAVE_PP_NAPI
	if (pool)
		page_pool_disable_direct_recycling(pool);
#endif
}

/* true when @pdev's driver_override, if set, names @drv */
static inline bool ena_override_allows(struct pci_dev *pdev,
				       const struct pci_driver *drv)
{
#ifdef ENA_HAVE_DEV_DRIVER_OVERRIDE
	/* device_match_driver_override(), spelt out: sparse reads no guard() */
	const char *name;
	bool ok;

	spin_lock(&pdev->dev.driver_override.lock);
	name = pdev->dev.driver_override.name;
	ok = !name || !strcmp(name, drv->name);
	spin_unlock(&pdev->dev.driver_override.lock);
	return ok;
#else
	return !pdev->driver_override ||
	       !strcmp(pdev->driver_override, drv->name);
#endif
}

/*
 * devlink parameters and reload (ena_devlink.c).  A separate block: the
 * probes are at the end of drivers/net/ethernet/ena/Kbuild.
 */
#include <net/devlink.h>

/**
 * ena_dl_init_value_set() - a driverinit parameter's value, set by the driver
 * @dl: devlink instance, not registered yet (probe)
 * @id: parameter id
 * @val: value
 *
 * 6.3 renamed devlink_param_driverinit_value_set() to the devl_ form,
 * which wants the instance lock.
 */
static inline void ena_dl_init_value_set(struct devlink *dl, u32 id,
					 union devlink_param_value val)
{
#ifdef ENA_HAVE_DEVL_PARAM_DRIVERINIT
	devl_lock(dl);
	devl_param_driverinit_value_set(dl, id, val);
	devl_unlock(dl);
#else
	devlink_param_driverinit_value_set(dl, id, val);
#endif
}

/* a driverinit parameter's value (reload_up: the instance lock is held) */
static inline int ena_dl_init_value_get(struct devlink *dl, u32 id,
					union devlink_param_value *val)
{
#ifdef ENA_HAVE_DEVL_PARAM_DRIVERINIT
	return devl_param_driverinit_value_get(dl, id, val);
#else
	return devlink_param_driverinit_value_get(dl, id, val);
#endif
}

/*
 * Before 6.3 `devlink dev reload` is refused unless the driver sets the
 * reload feature (devlink_set_features(), before devlink_register());
 * from 6.3 on the reload ops alone enable it.
 */
static inline void ena_dl_enable_reload(struct devlink *dl)
{
#ifdef ENA_HAVE_DEVLINK_SET_FEATURES
	devlink_set_features(dl, DEVLINK_F_RELOAD);
#endif
}

#endif /* _ENA_COMPAT_H_ */
