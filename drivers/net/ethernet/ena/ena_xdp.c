// SPDX-License-Identifier: GPL-2.0
/*
 * XDP: attaching a program (ndo_bpf), running it on RX frames, XDP_TX and
 * ndo_xdp_xmit (this device as a redirect target) on an XDP TX ring per
 * queue pair.
 *
 * The XDP TX ring of a queue pair is one more TX SQ/CQ pair of the device
 * that interrupts on the pair's vector and is completed by the pair's NAPI
 * (ena_txrx.c), so XDP takes no extra vector; it exists while a program is
 * attached.  XDP_TX posts on the ring of the queue that received the frame
 * (the frame stays in that queue's page pool, mapped both ways); a
 * redirect into this device posts on the ring of the sending CPU's queue.
 * Both producers take the pair's xdp_lock; the NAPI completes lock-free.
 *
 * A frame longer than one buffer reaches a program that takes multi-buffer
 * frames (BPF_F_XDP_HAS_FRAGS) as an xdp_buff with fragments: the first
 * buffer is the linear part, the others are fragments in the
 * skb_shared_info at its end, gathered over as many completions (and
 * polls) as the device needs.  Every verdict takes all the buffers along:
 * XDP_TX and ndo_xdp_xmit post one descriptor per buffer, XDP_PASS builds
 * an skb with the fragments, a drop returns each page to the pool.  Other
 * programs keep the MTU within one buffer (ENA_XDP_MAX_MTU), as the in-tree
 * driver does for all.
 *
 * Attach and detach rebuild each running queue in turn on the RX layout
 * XDP needs (a page per buffer with XDP_PACKET_HEADROOM) or back, through
 * the same stop/swap/start as a ring resize: the interface stays up and
 * its carrier on, one queue is down at any moment.  Replacing one program
 * by another changes a pointer.
 */
#include <linux/bpf.h>
#include <linux/bpf_trace.h>
#include <linux/filter.h>

#include "ena.h"
#include "ena_compat.h"

/* what ena_xdp_finish() does after a poll */
#define ENA_XDP_DID_TX		BIT(0)
#define ENA_XDP_DID_REDIRECT	BIT(1)

/**
 * ena_xdp_max_channels() - channels that leave an XDP TX queue for each
 * @a: adapter
 *
 * The XDP TX rings share the queue pairs' vectors but need their own SQs
 * (and LLQ queues): half of the device's queues at most go to channels, as
 * in the in-tree driver.
 *
 * Return: the largest channel count XDP can run with.
 */
u32 ena_xdp_max_channels(const struct ena_adapter *a)
{
	u32 dev = a->dev_max_queues;

	if (a->llq.enabled)
		dev = min(dev, a->llq.max_num);
	return dev / 2;
}

bool ena_xdp_queues_ok(const struct ena_adapter *a, u32 n)
{
	return n <= ena_xdp_max_channels(a);
}

/**
 * ena_xdp_features() - announce the XDP actions the driver supports now
 * @a: adapter; RTNL held or before registration
 *
 * Basic actions, redirect and multi-buffer frames while the channel count
 * leaves room for the XDP TX rings; a redirect target (ndo_xdp_xmit, of
 * multi-buffer frames too) while a program is attached, since only then do
 * the XDP TX rings exist.
 */
void ena_xdp_features(struct ena_adapter *a)
{
#ifdef ENA_HAVE_XDP_FEATURES
	struct net_device *nd = a->netdev;
	xdp_features_t f = 0;

	if (ena_xdp_queues_ok(a, a->num_queues))
		f = NETDEV_XDP_ACT_BASIC | NETDEV_XDP_ACT_REDIRECT |
		    NETDEV_XDP_ACT_RX_SG;
	if (f && ena_xdp_on(a))
		f |= NETDEV_XDP_ACT_NDO_XMIT | NETDEV_XDP_ACT_NDO_XMIT_SG;
	xdp_set_features_flag(nd, f);
#endif
}

/**
 * ena_xdp_prog_apply() - each running queue runs the attached program
 * @a: adapter; RTNL held
 *
 * Only a queue whose RX ring has the XDP layout runs it; NAPI reads the
 * pointer once per poll.  A program replaced here stays valid for a poll
 * still running it: bpf_prog_put() frees after an RCU grace period.
 */
void ena_xdp_prog_apply(struct ena_adapter *a)
{
	u32 q;

	for (q = 0; q < a->max_queues; q++) {
		struct ena_qp *qp = &a->qps[q];

		if (ena_rt_qp_up(qp))
			WRITE_ONCE(qp->xdp_prog,
				   qp->rx.xdp ? a->xdp_prog : NULL);
	}
}

/**
 * ena_xdp_tx_stop() - the XDP TX ring takes no more frames
 * @qp: queue pair being stopped; its NAPI is disabled
 *
 * An ndo_xdp_xmit() running on another CPU holds the lock: once we have
 * it, none is posting, and later ones see the ring closed.
 */
void ena_xdp_tx_stop(struct ena_qp *qp)
{
	spin_lock_bh(&qp->xdp_lock);
	qp->xdp_live = false;
	spin_unlock_bh(&qp->xdp_lock);
}

static void ena_xdp_stat(struct ena_qp *qp, u64 *ctr)
{
	u64_stats_update_begin(&qp->stats->napi_sync);
	(*ctr)++;
	u64_stats_update_end(&qp->stats->napi_sync);
}

/* doorbell of the XDP TX ring, counted; under xdp_lock */
void ena_xdp_kick(struct ena_qp *qp)
{
	ena_tx_doorbell(&qp->xdp_tx);
	u64_stats_update_begin(&qp->stats->xdp_sync);
	qp->stats->xdp_tx_doorbells++;
	u64_stats_update_end(&qp->stats->xdp_sync);
}

/*
 * Post @xdpf on @qp's XDP TX ring (see ena_tx_post_frame()); under
 * xdp_lock.  The doorbell comes at the end of the batch (the poll, or an
 * ndo_xdp_xmit with XDP_XMIT_FLUSH), or before an LLQ burst would pass
 * the device's limit.
 */
static int ena_xdp_post(struct ena_qp *qp, struct xdp_frame *xdpf,
			dma_addr_t pool_dma)
{
	int rc = -ENETDOWN;

	if (qp->xdp_live)
		rc = ena_tx_post_frame(qp, xdpf, pool_dma);
	if (rc) {
		u64_stats_update_begin(&qp->stats->xdp_sync);
		if (rc == -ENOMEM)
			qp->stats->xdp_tx_dma_err++;
		else
			qp->stats->xdp_tx_full++;
		/* the in-tree prepare_ctx_err: descriptors not written */
		if (rc == -ENOSPC || rc == -EMSGSIZE)
			qp->stats->xdp_tx_prepare_err++;
		u64_stats_update_end(&qp->stats->xdp_sync);
		return rc;
	}
	if (ena_llq_burst_full(qp->adapter, &qp->xdp_tx, 1))
		ena_xdp_kick(qp);
	return 0;
}

/**
 * ena_xdp_buff_put() - give a received frame's pages back to the pool
 * @qp: queue pair
 * @xdp: the frame: its first buffer and, if it has any, its fragments
 * @napi: in @qp's NAPI (the pool's lockless cache may take the pages)
 */
void ena_xdp_buff_put(struct ena_qp *qp, struct xdp_buff *xdp, bool napi)
{
	struct skb_shared_info *sinfo;
	u32 i;

	if (xdp_buff_has_frags(xdp)) {
		sinfo = xdp_get_shared_info_from_buff(xdp);
		for (i = 0; i < sinfo->nr_frags; i++)
			page_pool_put_full_page(qp->rx.pool,
						skb_frag_page(&sinfo->frags[i]),
						napi);
	}
	page_pool_put_full_page(qp->rx.pool,
				virt_to_head_page(xdp->data_hard_start), napi);
}

/**
 * ena_xdp_frag_add() - one more buffer of the frame gathered in @rx->xbuf
 * @rx: RX ring, its frame open
 * @page: the buffer's page
 * @off: where the buffer's bytes start in @page
 * @len: their length
 *
 * Return: false when the frame has MAX_SKB_FRAGS fragments already (the
 * caller drops it).
 */
bool ena_xdp_frag_add(struct ena_rxq *rx, struct page *page, u32 off, u32 len)
{
#ifdef ENA_HAVE_XDP_MB
	struct skb_shared_info *sinfo = xdp_get_shared_info_from_buff(&rx->xbuf);

	if (!xdp_buff_has_frags(&rx->xbuf)) {
		sinfo->nr_frags = 0;
		sinfo->xdp_frags_size = 0;
		xdp_buff_set_frags_flag(&rx->xbuf);
	}
	if (sinfo->nr_frags >= MAX_SKB_FRAGS)
		return false;
	skb_frag_fill_page_desc(&sinfo->frags[sinfo->nr_frags++], page, off,
				len);
	sinfo->xdp_frags_size += len;
	if (page_is_pfmemalloc(page))
		xdp_buff_set_frag_pfmemalloc(&rx->xbuf);
	return true;
#else
	/* no multi-buffer XDP (ena_compat.h): no program gathers frames */
	return false;
#endif
}

/**
 * ena_xdp_build_skb() - the skb of a frame the program passed
 * @xdp: the frame, in pages of the queue's pool, maybe with fragments
 *
 * The skb takes the frame's buffers over (they go back to the pool when
 * it is freed).
 *
 * Return: the skb, or NULL (the caller still owns the buffers).
 */
struct sk_buff *ena_xdp_build_skb(struct xdp_buff *xdp)
{
#ifdef ENA_HAVE_XDP_MB
	struct skb_shared_info *sinfo = xdp_get_shared_info_from_buff(xdp);
	u32 nr = xdp_buff_has_frags(xdp) ? sinfo->nr_frags : 0;
	u32 frags_len = nr ? sinfo->xdp_frags_size : 0;
#endif
	struct sk_buff *skb;

	/* building the skb clears the fragment count in the shared info */
	skb = napi_build_skb(xdp->data_hard_start, xdp->frame_sz);
	if (unlikely(!skb))
		return NULL;
	skb_mark_for_recycle(skb);
	skb_reserve(skb, xdp->data - xdp->data_hard_start);
	__skb_put(skb, xdp->data_end - xdp->data);
#ifdef ENA_HAVE_XDP_MB
	if (nr)
		ena_xdp_skb_frags(skb, nr, frags_len, nr * xdp->frame_sz, xdp);
#endif
	return skb;
}

/* XDP_TX: the frame goes back out of the queue that received it */
static int ena_xdp_tx(struct ena_qp *qp, struct xdp_buff *xdp)
{
	struct xdp_frame *xdpf = xdp_convert_buff_to_frame(xdp);
	struct page *page;
	dma_addr_t dma;
	int rc;

	if (unlikely(!xdpf))
		return -EOVERFLOW;
	page = virt_to_head_page(xdpf->data);
	dma = page_pool_get_dma_addr(page) +
	      ((u8 *)xdpf->data - (u8 *)page_address(page));
	spin_lock(&qp->xdp_lock);
	rc = ena_xdp_post(qp, xdpf, dma);
	spin_unlock(&qp->xdp_lock);
	return rc;
}

/**
 * ena_xdp_run() - run the XDP program on one received frame
 * @qp: queue pair, in its NAPI
 * @prog: the program
 * @xdp: the frame, in a page of the queue's page pool
 * @done: gathers what ena_xdp_finish() must do after the poll
 *
 * Every action but XDP_PASS consumes the frame: the page goes out
 * (XDP_TX, XDP_REDIRECT) or back to the pool.  A frame XDP_TX or a
 * redirect could not take is dropped and reported as an XDP exception.
 *
 * Return: the program's action (XDP_PASS: the caller builds the skb).
 */
u32 ena_xdp_run(struct ena_qp *qp, struct bpf_prog *prog,
		struct xdp_buff *xdp, u32 *done)
{
	struct net_device *nd = qp->adapter->netdev;
	struct ena_queue_stats *st = qp->stats;
	u32 act;

	if (xdp_buff_has_frags(xdp))
		ena_xdp_stat(qp, &st->xdp_multibuf);
	act = bpf_prog_run_xdp(prog, xdp);

	switch (act) {
	case XDP_PASS:
		ena_xdp_stat(qp, &st->xdp_pass);
		return act;
	case XDP_TX:
		if (ena_xdp_tx(qp, xdp))
			goto failed;
		*done |= ENA_XDP_DID_TX;
		ena_xdp_stat(qp, &st->xdp_tx);
		return act;
	case XDP_REDIRECT:
		if (xdp_do_redirect(nd, xdp, prog))
			goto failed;
		*done |= ENA_XDP_DID_REDIRECT;
		ena_xdp_stat(qp, &st->xdp_redirect);
		return act;
	default:
		bpf_warn_invalid_xdp_action(nd, prog, act);
		fallthrough;
	case XDP_ABORTED:
		trace_xdp_exception(nd, prog, act);
		ena_xdp_stat(qp, &st->xdp_aborted);
		break;
	case XDP_DROP:
		ena_xdp_stat(qp, &st->xdp_drop);
		break;
	}
	ena_xdp_buff_put(qp, xdp, true);
	return act;

failed:
	trace_xdp_exception(nd, prog, act);
	ena_xdp_stat(qp, &st->xdp_drop);
	ena_xdp_buff_put(qp, xdp, true);
	return XDP_DROP;
}

/**
 * ena_xdp_finish() - after a poll's frames: doorbell and redirect flush
 * @qp: queue pair, in its NAPI
 * @done: what ena_xdp_run() gathered
 */
void ena_xdp_finish(struct ena_qp *qp, u32 done)
{
	if (done & ENA_XDP_DID_TX) {
		spin_lock(&qp->xdp_lock);
		if (qp->xdp_live)
			ena_xdp_kick(qp);
		spin_unlock(&qp->xdp_lock);
	}
	if (done & ENA_XDP_DID_REDIRECT)
		xdp_do_flush();
}

/**
 * ena_xdp_xmit() - ndo_xdp_xmit: frames redirected into this device
 * @nd: our netdev
 * @n: frames
 * @frames: the frames; those not taken stay the caller's
 * @flags: XDP_XMIT_FLUSH rings the doorbell
 *
 * The frames go out on the XDP TX ring of the calling CPU's queue.
 *
 * Return: frames taken, or a negative errno.
 */
int ena_xdp_xmit(struct net_device *nd, int n, struct xdp_frame **frames,
		 u32 flags)
{
	struct ena_adapter *a = netdev_priv(nd);
	u32 nq = READ_ONCE(a->num_queues);
	struct ena_qp *qp;
	int i;

	if (unlikely(flags & ~XDP_XMIT_FLAGS_MASK))
		return -EINVAL;
	if (unlikely(!nq))
		return -ENXIO;
	/* any index below max_queues is a valid queue pair, running or not */
	qp = &a->qps[smp_processor_id() % min(nq, a->max_queues)];

	spin_lock(&qp->xdp_lock);
	if (unlikely(!qp->xdp_live)) {
		spin_unlock(&qp->xdp_lock);
		return -ENETDOWN;
	}
	for (i = 0; i < n; i++) {
		if (ena_xdp_post(qp, frames[i], DMA_MAPPING_ERROR))
			break;
	}
	u64_stats_update_begin(&qp->stats->xdp_sync);
	qp->stats->xdp_xmit += i;
	u64_stats_update_end(&qp->stats->xdp_sync);
	/* a flush also announces frames earlier calls posted without one */
	if ((flags & XDP_XMIT_FLUSH) && qp->xdp_tx.unkicked)
		ena_xdp_kick(qp);
	spin_unlock(&qp->xdp_lock);
	return i;
}

/*
 * Attach, replace or detach @prog.  The adapter owns one reference to the
 * attached program (the core's, passed in); the queues borrow it.
 */
static int ena_xdp_setup(struct ena_adapter *a, struct bpf_prog *prog,
			 struct netlink_ext_ack *extack)
{
	struct net_device *nd = a->netdev;
	struct bpf_prog *old = a->xdp_prog;
	int rc;

	ASSERT_RTNL();
	ena_up_wait(a);
	if (prog && !ena_prog_takes_frags(prog) && nd->mtu > ENA_XDP_MAX_MTU) {
		netdev_err(nd, "XDP refused: MTU %u is above %lu, the largest a program without multi-buffer support takes\n",
			   nd->mtu, (unsigned long)ENA_XDP_MAX_MTU);
		NL_SET_ERR_MSG_MOD(extack,
				   "MTU too large for an XDP program without multi-buffer support (see the kernel log)");
		return -EINVAL;
	}
	if (prog && !ena_xdp_queues_ok(a, a->num_queues)) {
		netdev_err(nd, "XDP refused: it needs an XDP TX queue per channel, at most %u channels, %u configured\n",
			   ena_xdp_max_channels(a), a->num_queues);
		NL_SET_ERR_MSG_MOD(extack,
				   "too many channels for XDP: at most half the device's queues");
		return -EINVAL;
	}

	a->xdp_prog = prog;
	if (!!old != !!prog && test_bit(ENA_F_QUEUES_UP, &a->flags)) {
		if (test_bit(ENA_F_DEV_DEAD, &a->flags)) {
			NL_SET_ERR_MSG_MOD(extack, "device reset in progress");
			rc = -EBUSY;
		} else {
			rc = ena_rings_rebuild(a, a->tx_ring_size,
					       a->rx_ring_size, !!prog, extack);
		}
		if (rc && prog) {
			a->xdp_prog = old;
			ena_xdp_prog_apply(a);
			return rc;
		}
		/*
		 * A detach never fails: the core forgets the program whatever
		 * we return (a released bpf_link only warns).  Queues left on
		 * the XDP layout run no program, which is correct; the next
		 * rebuild or reset gives them the plain layout again.
		 */
		if (rc)
			netdev_warn(nd, "XDP detached; some queues keep the XDP buffer layout until the next restart (%d)\n",
				    rc);
	}
	ena_xdp_prog_apply(a);
	if (old)
		bpf_prog_put(old);

	WRITE_ONCE(nd->max_mtu, ena_xdp_max_mtu(a));
	if (!!old != !!prog) {
		ena_xdp_features(a);
		netdev_info(nd, "XDP program %s; MTU at most %u\n",
			    prog ? "attached" : "detached", nd->max_mtu);
	}
	return 0;
}

/**
 * ena_bpf() - ndo_bpf
 * @nd: our netdev
 * @bpf: the command
 *
 * Return: 0 or a negative errno (with an extack message).
 */
int ena_bpf(struct net_device *nd, struct netdev_bpf *bpf)
{
	struct ena_adapter *a = netdev_priv(nd);

	switch (bpf->command) {
	case XDP_SETUP_PROG:
		return ena_xdp_setup(a, bpf->prog, bpf->extack);
	default:
		return -EINVAL;
	}
}
