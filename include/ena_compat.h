/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel differences the ENA driver meets between Debian's 5.10 and the
 * newest Debian kernel (7.x).  The driver's Kbuild detects them in the
 * headers built against, not from version numbers, so backports are
 * handled too.  Each item names the kernel that brought the API.
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
 *   netif_txq_maybe_stop() (6.3, in Debian's 6.1 by backport; written
 *   here without it): ENA_HAVE_TXQ_MAYBE_STOP; netif_txq_completed_wake(),
 *   which also reports the completions to BQL (6.5; Debian's 6.1 has the
 *   older netif_txq_maybe_wake()): ENA_HAVE_TXQ_COMPLETED_WAKE;
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
 *
 * 5.10 and later kernels (what a kernel lacks degrades as its in-tree
 * driver did; Documentation/.../amazon/ena-fast.rst, "Supported kernels"):
 * - netif_txq_maybe_stop() (6.3): see above, written over
 *   netif_tx_stop_queue() with the barrier ena_txq_completed() pairs with;
 * - multi-buffer XDP, xdp_buff_has_frags() and prog->aux->xdp_has_frags
 *   (5.18): ENA_HAVE_XDP_MB; without it no program takes multi-buffer
 *   frames (ena_prog_takes_frags() false: the MTU stays within one buffer
 *   while a program is attached) and the frags helpers are stubs;
 *   xdp_update_skb_frags_info() with the frame's flags replaced
 *   xdp_update_skb_shared_info() (6.18): ENA_HAVE_XDP_SKB_FRAGS_INFO;
 * - xdp_init_buff()/xdp_prepare_buff() (5.12): ENA_HAVE_XDP_INIT_BUFF;
 *   xdp_rxq_info_reg()'s NAPI id (5.11): ENA_HAVE_XDP_RXQ_NAPI_ID;
 *   bpf_warn_invalid_xdp_action()'s device and program (5.17):
 *   ENA_HAVE_BPF_WARN_DEV; napi_build_skb() (5.12): ENA_HAVE_NAPI_BUILD_SKB;
 * - page_pool_alloc_frag() (5.15): ENA_HAVE_PP_FRAG; without it an RX
 *   buffer is a whole page (ENA_PP_SLICE());
 * - skb_mark_for_recycle() (5.15): ENA_HAVE_PP_SKB_RECYCLE; without it a
 *   page leaves its pool when an skb takes it (ena_pp_skb_page());
 * - bulk page return: page_pool_put_page_bulk() (5.11):
 *   ENA_HAVE_PP_PAGE_BULK, page_pool_put_netmem_bulk() (6.14):
 *   ENA_HAVE_PP_NETMEM_BULK (at most XDP_BULK_QUEUE_SIZE a call: it
 *   copies them to its stack), else one by one (ena_pp_put_bulk());
 * - netif_napi_add() without a weight (6.1): ENA_HAVE_NAPI_ADD_WEIGHT;
 *   eth_hw_addr_set() (5.15): ENA_HAVE_ETH_HW_ADDR_SET;
 *   netif_set_real_num_queues() (5.14): ENA_HAVE_SET_REAL_NUM_QUEUES;
 *   test_bit_acquire() (6.0);
 * - ethtool ring and coalesce ops with struct kernel_ethtool_ringparam
 *   (5.17) and struct kernel_ethtool_coalesce (5.15):
 *   ENA_HAVE_KERNEL_RINGPARAM, ENA_HAVE_KERNEL_COALESCE (wrappers in
 *   ena_ethtool.c); rx-flow-hash through get/set_rxfh_fields (6.17):
 *   ENA_HAVE_RXFH_FIELDS; the RX ring count through get_rx_ring_count
 *   (6.18): ENA_HAVE_RX_RING_COUNT;
 * - devlink_alloc() with the device (5.15, devlink_register() without):
 *   ENA_HAVE_DEVLINK_ALLOC_DEV; a health reporter's grace period in its
 *   ops (6.17): ENA_HAVE_REPORTER_OPS_PERIOD;
 * - net_dim() takes the sample by pointer (6.13): ENA_HAVE_NET_DIM_PTR;
 * - Debian's 5.10 DEFINE_SIMPLE_DEV_PM_OPS() (an early backport) makes
 *   the ops static itself: ENA_HAVE_PM_OPS_STATIC.
 */
#ifndef _ENA_COMPAT_H_
#define _ENA_COMPAT_H_

#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/filter.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/pm.h>
#include <linux/skbuff.h>
#include <net/devlink.h>
#include <net/xdp.h>

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
/*
 * The lockless TX stop of later kernels, over the plain queue state
 * operations.  Below @stop_thrs free slots (@get_desc) the queue stops;
 * @get_desc is then read again behind a full barrier that pairs with the
 * one between freeing slots and testing the stopped bit on the completion
 * side (ena_txq_completed()): either this side sees the freed slots and
 * starts the queue again (at @start_thrs), or that side sees the stop.
 * Return: 1 no stop needed, 0 stopped, -1 stopped and started again.
 */
#define netif_txq_maybe_stop(txq, get_desc, stop_thrs, start_thrs)	\
	({								\
		struct netdev_queue *__ena_q = (txq);			\
		int __ena_r = 1, __ena_pass;				\
									\
		for (__ena_pass = 0; __ena_pass < 2; __ena_pass++) {	\
			unsigned int __ena_d = (get_desc);		\
									\
			if (__ena_pass) {				\
				if (__ena_d >= (start_thrs)) {		\
					netif_tx_start_queue(__ena_q);	\
					__ena_r = -1;			\
				}					\
				break;					\
			}						\
			if (likely(__ena_d >= (stop_thrs)))		\
				break;					\
			netif_tx_stop_queue(__ena_q);			\
			/* the stop before the second read */		\
			smp_mb__after_atomic();				\
			__ena_r = 0;					\
		}							\
		__ena_r;						\
	})
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

#ifndef test_bit_acquire
/* a bit test with acquire ordering (6.0) */
static inline bool test_bit_acquire(unsigned long nr,
				    const unsigned long *addr)
{
	/* later reads see what the bit's setter wrote before it */
	return smp_load_acquire(&addr[BIT_WORD(nr)]) & BIT_MASK(nr);
}
#endif

#ifdef ENA_HAVE_XDP_MB
static inline bool ena_prog_takes_frags(const struct bpf_prog *prog)
{
	return prog->aux->xdp_has_frags;
}
#else
/* no multi-buffer XDP before 5.18: every program takes one buffer */
static inline bool ena_prog_takes_frags(const struct bpf_prog *prog)
{
	return false;
}

static inline bool xdp_buff_has_frags(const struct xdp_buff *xdp)
{
	return false;
}

static inline void xdp_buff_set_frags_flag(struct xdp_buff *xdp)
{
}

static inline bool xdp_buff_is_frag_pfmemalloc(const struct xdp_buff *xdp)
{
	return false;
}

static inline void xdp_buff_set_frag_pfmemalloc(struct xdp_buff *xdp)
{
}

static inline bool xdp_frame_has_frags(const struct xdp_frame *frame)
{
	return false;
}

static inline unsigned int xdp_get_buff_len(const struct xdp_buff *xdp)
{
	return xdp->data_end - xdp->data;
}

static inline unsigned int xdp_get_frame_len(const struct xdp_frame *frame)
{
	return frame->len;
}
#endif

#ifdef ENA_HAVE_XDP_SKB_FRAGS_INFO
/* the frame's flags, not its pfmemalloc bit, since 6.18 */
#define ena_xdp_skb_frags(skb, nr, size, truesize, xdp)		\
	xdp_update_skb_frags_info(skb, nr, size, truesize,		\
				  xdp_buff_get_skb_flags(xdp))
#else
#define ena_xdp_skb_frags(skb, nr, size, truesize, xdp)		\
	xdp_update_skb_shared_info(skb, nr, size, truesize,		\
				   xdp_buff_is_frag_pfmemalloc(xdp))
#endif

#ifndef ENA_HAVE_XDP_INIT_BUFF
static inline void xdp_init_buff(struct xdp_buff *xdp, u32 frame_sz,
				 struct xdp_rxq_info *rxq)
{
	xdp->frame_sz = frame_sz;
	xdp->rxq = rxq;
}

static inline void xdp_prepare_buff(struct xdp_buff *xdp,
				    unsigned char *hard_start, int headroom,
				    int data_len, const bool meta_valid)
{
	xdp->data_hard_start = hard_start;
	xdp->data = hard_start + headroom;
	xdp->data_end = xdp->data + data_len;
	xdp->data_meta = meta_valid ? xdp->data : xdp->data + 1;
}
#endif

#ifndef ENA_HAVE_XDP_RXQ_NAPI_ID
/* the queue's NAPI id joined the registration in 5.11 */
static inline int ena_compat_xdp_rxq_info_reg(struct xdp_rxq_info *rxq,
					      struct net_device *dev,
					      u32 qid, unsigned int napi_id)
{
	return xdp_rxq_info_reg(rxq, dev, qid);
}

#define xdp_rxq_info_reg	ena_compat_xdp_rxq_info_reg
#endif

#ifndef ENA_HAVE_BPF_WARN_DEV
/* the device and program joined the warning in 5.17 */
static inline void ena_compat_bpf_warn(struct net_device *dev,
				       struct bpf_prog *prog, u32 act)
{
	bpf_warn_invalid_xdp_action(act);
}

#define bpf_warn_invalid_xdp_action	ena_compat_bpf_warn
#endif

#ifndef ENA_HAVE_NAPI_BUILD_SKB
static inline struct sk_buff *napi_build_skb(void *data, unsigned int size)
{
	return build_skb(data, size);
}
#endif

#ifdef ENA_HAVE_PP_FRAG
#define ENA_PP_SLICE(size)	(size)
#else
/* a pool that cannot split pages (5.15): a whole page per RX buffer */
#define ENA_PP_SLICE(size)	max_t(unsigned int, size, PAGE_SIZE)
static inline struct page *page_pool_alloc_frag(struct page_pool *pool,
						unsigned int *off,
						unsigned int size, gfp_t gfp)
{
	*off = 0;
	return page_pool_alloc_pages(pool, gfp);
}
#endif

#ifdef ENA_HAVE_PP_SKB_RECYCLE
/* an skb gives its pool pages back to the pool when freed (5.15) */
static inline void ena_pp_skb_page(struct page_pool *pool, struct page *page)
{
}
#else
static inline void skb_mark_for_recycle(struct sk_buff *skb)
{
}

/* before 5.15 an skb frees its pages itself: they leave the pool */
static inline void ena_pp_skb_page(struct page_pool *pool, struct page *page)
{
	page_pool_release_page(pool, page);
}
#endif

/*
 * ena_pp_put_bulk(): pool pages back in one call where the kernel can,
 * as netmem (6.14), page addresses (5.11) or one by one
 */
#if defined(ENA_HAVE_PP_NETMEM_BULK)
#define ena_pp_bulk_t	netmem_ref
/*
 * page_pool_put_netmem_bulk() copies the entries it recycles to an array
 * of XDP_BULK_QUEUE_SIZE on its stack, unchecked: never hand it more
 */
#define ENA_PP_BULK_MAX	XDP_BULK_QUEUE_SIZE
static inline netmem_ref ena_pp_bulk_entry(struct page *page, u32 off)
{
	return page_to_netmem(page);
}

static inline void ena_pp_put_bulk(struct page_pool *pool, netmem_ref *v,
				   u32 n)
{
	page_pool_put_netmem_bulk(v, n);
}
#elif defined(ENA_HAVE_PP_PAGE_BULK)
#define ena_pp_bulk_t	void *
#define ENA_PP_BULK_MAX	64
static inline void *ena_pp_bulk_entry(struct page *page, u32 off)
{
	return page_address(page) + off;
}

static inline void ena_pp_put_bulk(struct page_pool *pool, void **v, u32 n)
{
	page_pool_put_page_bulk(pool, v, n);
}
#else
#define ena_pp_bulk_t	struct page *
#define ENA_PP_BULK_MAX	64
static inline struct page *ena_pp_bulk_entry(struct page *page, u32 off)
{
	return page;
}

static inline void ena_pp_put_bulk(struct page_pool *pool,
				   struct page **pages, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		page_pool_put_full_page(pool, pages[i], false);
}
#endif

#ifndef ENA_HAVE_NAPI_ADD_WEIGHT
/* the weight left netif_napi_add() in 6.1 */
#define netif_napi_add(dev, napi, poll) \
	netif_napi_add(dev, napi, poll, NAPI_POLL_WEIGHT)
#endif

#ifndef ENA_HAVE_ETH_HW_ADDR_SET
static inline void eth_hw_addr_set(struct net_device *dev, const u8 *addr)
{
	ether_addr_copy(dev->dev_addr, addr);
}
#endif

#ifndef ENA_HAVE_SET_REAL_NUM_QUEUES
static inline int netif_set_real_num_queues(struct net_device *dev,
					    unsigned int txq,
					    unsigned int rxq)
{
	unsigned int old_tx = dev->real_num_tx_queues;
	int rc;

	rc = netif_set_real_num_tx_queues(dev, txq);
	if (rc)
		return rc;
	rc = netif_set_real_num_rx_queues(dev, rxq);
	if (rc)
		netif_set_real_num_tx_queues(dev, old_tx);
	return rc;
}
#endif

#ifndef ENA_HAVE_KERNEL_RINGPARAM
/* only its name: the driver's ring ops get none before 5.17 */
struct kernel_ethtool_ringparam;
#endif
#ifndef ENA_HAVE_KERNEL_COALESCE
struct kernel_ethtool_coalesce;
#endif

#ifndef ENA_HAVE_DEVLINK_ALLOC_DEV
/*
 * Before 5.15 the device came with devlink_register(); struct devlink was
 * still public, so the allocation keeps it for the registration.
 */
static inline struct devlink *
ena_compat_devlink_alloc(const struct devlink_ops *ops, size_t size,
			 struct device *dev)
{
	struct devlink *dl = devlink_alloc(ops, size);

	if (dl)
		dl->dev = dev;
	return dl;
}

static inline int ena_compat_devlink_register(struct devlink *dl)
{
	return devlink_register(dl, dl->dev);
}

#define devlink_alloc		ena_compat_devlink_alloc
#define devlink_register	ena_compat_devlink_register
#endif

#ifdef ENA_HAVE_NET_DIM_PTR
/* net_dim() takes the sample by pointer since 6.13 */
#define ena_net_dim(dim, sample)	net_dim(dim, &(sample))
#else
#define ena_net_dim(dim, sample)	net_dim(dim, sample)
#endif

#ifdef ENA_HAVE_REPORTER_OPS_PERIOD
/*
 * A health reporter's grace period comes from its ops
 * (.default_graceful_period) since 6.17; the driver asks for none, the
 * ops' default.
 */
static inline struct devlink_health_reporter *
ena_compat_reporter_create(struct devlink *dl,
			   const struct devlink_health_reporter_ops *ops,
			   u64 period, void *priv)
{
	return devlink_health_reporter_create(dl, ops, priv);
}

#define devlink_health_reporter_create	ena_compat_reporter_create
#endif

/*
 * ENA_PM_OPS_STATIC DEFINE_SIMPLE_DEV_PM_OPS(): an early form of the macro
 * (Debian's 5.10) makes the ops static itself
 */
#ifdef ENA_HAVE_PM_OPS_STATIC
#define ENA_PM_OPS_STATIC
#else
#define ENA_PM_OPS_STATIC	static
#endif

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
#ifdef ENA_HAVE_DL_PARAM_VAL_PTR
	devl_param_driverinit_value_set(dl, id, &val);
#else
	devl_param_driverinit_value_set(dl, id, val);
#endif
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

/*
 * Before 5.16 (Debian's 5.10) a reload is enabled once the instance is
 * registered, devlink_reload_enable(), and disabled before it goes.
 */
static inline void ena_dl_enable_reload_registered(struct devlink *dl)
{
#ifdef ENA_HAVE_DEVLINK_RELOAD_ENABLE
	devlink_reload_enable(dl);
#endif
}

static inline void ena_dl_disable_reload(struct devlink *dl)
{
#ifdef ENA_HAVE_DEVLINK_RELOAD_ENABLE
	devlink_reload_disable(dl);
#endif
}

#endif /* _ENA_COMPAT_H_ */
