// SPDX-License-Identifier: GPL-2.0
/*
 * One queue pair's memory life cycle, shaped like the core's queue
 * management ops:
 *
 *   ena_qp_alloc()    host memory: NAPI, rings, buffer-info arrays, page_pool
 *                     (and the XDP TX ring while an XDP program is attached)
 *   ena_qp_start()    device side: CREATE_CQ/SQ for TX, RX (and XDP TX), IRQ,
 *                     RX fill
 *   ena_qp_stop()     the reverse of start; buffers go back, rings stay
 *   ena_qp_free()     the reverse of alloc
 *   ena_qp_mem_prepare()  new depths or RX layout (XDP) for a running queue:
 *   ena_qp_swap()         the new memory first, then stop, swap, start (old
 *                         rings back if
 *   ena_qp_mem_release()  the start fails), then free what is left over;
 *                         ethtool -G prepares every queue before it swaps
 *                         any, so it changes all queues or none
 *
 * ena_qp_start() also tells the core which IRQ the pair's NAPI has
 * (netdev netlink reports it), ena_qp_stop() takes that back; which NAPI
 * serves the pair's TX and RX queue is set by the caller under RTNL when
 * it allocates the pair (ena_netdev.c): queues start lazily, so the links
 * exist only for the queues of an open interface.
 *
 * Probe allocates none of this; ndo_open allocs+starts the configured
 * queues (with open_async=1 a work item starts them), ndo_stop stops+frees
 * them, and ethtool -L/-G touch only the queues that change.  Memory is
 * taken on the NUMA node of the queue's CPU.  All of these run under RTNL
 * (or in probe/remove/reset, which exclude each other), except an
 * asynchronous open's start, which everything under RTNL waits for before
 * it touches the queues (ena_up_wait()).
 */
#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/log2.h>
#include <linux/vmalloc.h>

#include "ena.h"
#include "ena_compat.h"

static void *ena_ring_alloc(struct ena_qp *qp, size_t size, dma_addr_t *dma)
{
	struct device *dev = &qp->adapter->pdev->dev;
	struct ena_queue_stats *st = qp->stats;
	int old = dev_to_node(dev);
	void *p;

	/* dma_alloc_coherent() allocates on the device's node: borrow it */
	set_dev_node(dev, qp->node);
	p = dma_alloc_coherent(dev, size, dma, GFP_KERNEL);
	set_dev_node(dev, old);
	if (!p)
		return NULL;
	WRITE_ONCE(st->dma_allocs, st->dma_allocs + 1);
	WRITE_ONCE(st->ring_bytes, st->ring_bytes + size);
	return p;
}

static void ena_ring_free(struct ena_qp *qp, size_t size, void *p,
			  dma_addr_t dma)
{
	struct ena_queue_stats *st = qp->stats;

	if (!p)
		return;
	dma_free_coherent(&qp->adapter->pdev->dev, size, p, dma);
	WRITE_ONCE(st->dma_frees, st->dma_frees + 1);
	WRITE_ONCE(st->ring_bytes, st->ring_bytes - size);
}

/*
 * The RX buffer layout.  Without XDP: a 2 KiB page slice per descriptor,
 * skb built in place; larger frames span several descriptors, so no MTU
 * forces another buffer size and an MTU change never rebuilds a ring.  With
 * XDP: a page per descriptor with the program's headroom, mapped both ways
 * for XDP_TX; a frame fits one buffer (the MTU is held at ENA_XDP_MAX_MTU)
 * unless the program takes multi-buffer frames.
 */
static void ena_rx_layout(struct ena_rxq *rx, bool xdp)
{
	rx->xdp = xdp;
	rx->frag_size = xdp ? ENA_XDP_FRAG_SIZE : ENA_RX_FRAG_SIZE;
	rx->headroom = xdp ? XDP_PACKET_HEADROOM : ENA_RX_HEADROOM;
	rx->buf_len = ena_rx_buf_len(xdp);
}

/* the bytes of a frame one RX buffer takes, with or without XDP */
u32 ena_rx_buf_len(bool xdp)
{
	return (xdp ? ENA_XDP_FRAG_SIZE - XDP_PACKET_HEADROOM :
		      ENA_RX_FRAG_SIZE - ENA_RX_HEADROOM) -
	       SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
}

static void ena_txq_free_mem(struct ena_qp *qp, struct ena_txq *tx)
{
	kvfree(tx->bufs);
	kvfree(tx->free_ids);
	kfree(tx->bounce);
	ena_ring_free(qp, tx->depth * sizeof(struct ena_tx_cdesc), tx->cq,
		      tx->cq_dma);
	ena_ring_free(qp, tx->depth * sizeof(struct ena_tx_desc), tx->descs,
		      tx->descs_dma);
	tx->bufs = NULL;
	tx->free_ids = NULL;
	tx->bounce = NULL;
	tx->cq = NULL;
	tx->descs = NULL;
	tx->depth = 0;
}

static int ena_txq_alloc_mem(struct ena_qp *qp, struct ena_txq *tx, u32 depth)
{
	struct ena_adapter *a = qp->adapter;

	tx->depth = depth;
	tx->llq = a->llq.enabled;
	if (tx->llq) {
		tx->bounce = kzalloc_node(a->llq.entry_size, GFP_KERNEL,
					  qp->node);
		if (!tx->bounce)
			goto err;
	} else {
		tx->descs = ena_ring_alloc(qp, depth * sizeof(struct ena_tx_desc),
					   &tx->descs_dma);
		if (!tx->descs)
			goto err;
	}
	tx->cq = ena_ring_alloc(qp, depth * sizeof(struct ena_tx_cdesc),
				&tx->cq_dma);
	if (!tx->cq)
		goto err;
	tx->free_ids = kvmalloc_node(depth * sizeof(u16), GFP_KERNEL, qp->node);
	/*
	 * About 320 bytes a slot (the DMA maps of a packet of
	 * ENA_TX_MAX_BUFS buffers): no need for an order-7 block
	 */
	tx->bufs = vzalloc_node(depth * sizeof(*tx->bufs), qp->node);
	if (!tx->free_ids || !tx->bufs)
		goto err;
	return 0;
err:
	ena_txq_free_mem(qp, tx);
	return -ENOMEM;
}

static void ena_rxq_free_mem(struct ena_qp *qp, struct ena_rxq *rx)
{
	if (rx->pool)
		page_pool_destroy(rx->pool);
	kvfree(rx->bufs);
	kvfree(rx->free_ids);
	ena_ring_free(qp, rx->depth * sizeof(struct ena_rx_cdesc), rx->cq,
		      rx->cq_dma);
	ena_ring_free(qp, rx->depth * sizeof(struct ena_rx_desc), rx->descs,
		      rx->descs_dma);
	rx->pool = NULL;
	rx->bufs = NULL;
	rx->free_ids = NULL;
	rx->cq = NULL;
	rx->descs = NULL;
}

/*
 * The RX ring's page pool.  It maps each page once and syncs it for the
 * device when it comes back (all of it: either slice may be written
 * next); RX descriptors get 2 KiB slices of its pages.  Where the kernel
 * has them, the pool names the queue's NAPI, its only consumer, so pages
 * the stack frees in that NAPI's softirq go straight back to the pool's
 * lockless cache, and the netdev, for page-pool introspection over
 * netlink.  A pool bound to the NAPI is created only while that NAPI is
 * disabled or before it ever ran (ena_qp_alloc(), ena_qp_install()).
 */
static int ena_rx_pool_create(struct ena_qp *qp, struct ena_rxq *rx)
{
	struct page_pool_params pp = {
		.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV |
			 ENA_PP_FLAG_FRAG,
		.order = 0,
		.pool_size = rx->depth,
		.nid = qp->node,
		.dev = &qp->adapter->pdev->dev,
		.dma_dir = rx->xdp ? DMA_BIDIRECTIONAL : DMA_FROM_DEVICE,
		.offset = 0,
		.max_len = PAGE_SIZE,
#ifdef ENA_HAVE_PP_NAPI
		.napi = &qp->napi,
		.netdev = qp->adapter->netdev,
#endif
	};
	struct page_pool *pool = page_pool_create(&pp);

	if (IS_ERR(pool))
		return PTR_ERR(pool);
	rx->pool = pool;
	return 0;
}

/* @with_pool false: the rings only, the pool comes in ena_qp_install() */
static int ena_rxq_alloc_mem(struct ena_qp *qp, struct ena_rxq *rx, u32 depth,
			     bool with_pool, bool xdp)
{
	rx->depth = depth;
	ena_rx_layout(rx, xdp);
	rx->descs = ena_ring_alloc(qp, depth * sizeof(struct ena_rx_desc),
				   &rx->descs_dma);
	rx->cq = ena_ring_alloc(qp, depth * sizeof(struct ena_rx_cdesc),
				&rx->cq_dma);
	rx->free_ids = kvmalloc_node(depth * sizeof(u16), GFP_KERNEL, qp->node);
	rx->bufs = kvzalloc_node(depth * sizeof(*rx->bufs), GFP_KERNEL,
				 qp->node);
	if (!rx->descs || !rx->cq || !rx->free_ids || !rx->bufs)
		goto err;
	if (with_pool && ena_rx_pool_create(qp, rx))
		goto err;
	return 0;
err:
	ena_rxq_free_mem(qp, rx);
	return -ENOMEM;
}

/*
 * The rings' memory into @tx and @rx, and with @xdp an XDP TX ring of the
 * TX depth into @xtx (which stays empty, depth 0, without); all or nothing
 */
static int ena_qp_mem_alloc(struct ena_qp *qp, struct ena_txq *tx,
			    struct ena_rxq *rx, struct ena_txq *xtx,
			    u32 tx_depth, u32 rx_depth, bool with_pool,
			    bool xdp)
{
	int rc;

	rc = ena_txq_alloc_mem(qp, tx, tx_depth);
	if (rc)
		return rc;
	rc = ena_rxq_alloc_mem(qp, rx, rx_depth, with_pool, xdp);
	if (rc)
		goto err_tx;
	if (xdp) {
		rc = ena_txq_alloc_mem(qp, xtx, tx_depth);
		if (rc)
			goto err_rx;
	}
	return 0;

err_rx:
	ena_rxq_free_mem(qp, rx);
err_tx:
	ena_txq_free_mem(qp, tx);
	return rc;
}

/**
 * ena_qp_alloc() - allocate a queue pair's host memory
 * @a: adapter
 * @qid: queue index, below a->max_queues
 * @tx_depth: TX ring entries (power of two)
 * @rx_depth: RX ring entries (power of two)
 *
 * Return: 0 or -ENOMEM; nothing stays allocated on failure.
 */
int ena_qp_alloc(struct ena_adapter *a, u16 qid, u32 tx_depth, u32 rx_depth)
{
	struct ena_qp *qp = &a->qps[qid];
	int cpu, rc;

	if (test_bit(ENA_QP_ALLOCATED, &qp->state))
		return 0;

	cpu = cpumask_local_spread(qid, dev_to_node(&a->pdev->dev));
	qp->node = cpu_to_node(cpu);

	/*
	 * A NAPI deleted by ena_qp_free() may still be seen by RCU readers
	 * of the device's NAPI list: one grace period before any NAPI of
	 * this device goes back on it.  The NAPI comes first so the page
	 * pool created below knows its id; it stays disabled until
	 * ena_qp_start().
	 */
	if (test_and_clear_bit(ENA_F_NAPI_UNSYNCED, &a->flags))
		synchronize_net();
	netif_napi_add(a->netdev, &qp->napi, ena_napi_poll);

	rc = ena_qp_mem_alloc(qp, &qp->tx, &qp->rx, &qp->xdp_tx, tx_depth,
			      rx_depth, true, ena_xdp_on(a));
	if (rc) {
		__netif_napi_del(&qp->napi);
		set_bit(ENA_F_NAPI_UNSYNCED, &a->flags);
		return rc;
	}
	set_bit(ENA_QP_ALLOCATED, &qp->state);
	return 0;
}

/**
 * ena_qp_free() - release what ena_qp_alloc() took
 * @a: adapter
 * @qid: queue index; the queue is stopped
 *
 * The NAPI leaves the device's list without waiting for a grace period:
 * ena_qp_alloc() waits for one before it adds a NAPI again, and
 * unregister_netdev() waits for one before the adapter goes away.  A
 * down of N queues thus waits for no grace period instead of N.
 */
void ena_qp_free(struct ena_adapter *a, u16 qid)
{
	struct ena_qp *qp = &a->qps[qid];

	if (!test_and_clear_bit(ENA_QP_ALLOCATED, &qp->state))
		return;
	/* the pool goes while its NAPI is disabled and still listed */
	ena_txq_free_mem(qp, &qp->xdp_tx);
	ena_rxq_free_mem(qp, &qp->rx);
	ena_txq_free_mem(qp, &qp->tx);
	__netif_napi_del(&qp->napi);
	set_bit(ENA_F_NAPI_UNSYNCED, &a->flags);
}

static int ena_destroy_sq(struct ena_adapter *a, u8 dir, u16 idx)
{
	struct ena_aq_cmd cmd = {};
	struct ena_acq_resp r;

	cmd.hdr.opcode = ENA_OP_DESTROY_SQ;
	cmd.destroy_sq.sq_idx = cpu_to_le16(idx);
	cmd.destroy_sq.identity = FIELD_PREP(ENA_SQ_IDENTITY_DIR, dir);
	return ena_admin_exec(a, &cmd, &r);
}

static int ena_destroy_cq(struct ena_adapter *a, u16 idx)
{
	struct ena_aq_cmd cmd = {};
	struct ena_acq_resp r;

	cmd.hdr.opcode = ENA_OP_DESTROY_CQ;
	cmd.destroy_cq.cq_idx = cpu_to_le16(idx);
	return ena_admin_exec(a, &cmd, &r);
}

/**
 * ena_qps_fence() - keep the pairs still running off a device about to be
 * reset
 * @a: adapter, marked dead (ENA_F_DEV_DEAD); RTNL held
 *
 * A poll that began before the device was marked dead may be anywhere up
 * to its unmask or a doorbell, on another CPU, and the stack may be in an
 * xmit; once the device is reset either write would name a queue that no
 * longer exists.  This waits the polls out (later ones see the mark and
 * leave the vector masked), then closes each TX queue and the XDP TX ring
 * under their locks, which waits out a transmit under way.  The pair's
 * own start (after the reset) opens them again.  The pairs being stopped
 * have all this done already, and ENA_QP_STARTED cleared.
 */
static void ena_qps_fence(struct ena_adapter *a)
{
	struct ena_qp *qp;
	u16 q;

	/* the mark before the NAPI state is read; polls read it after theirs */
	smp_mb();
	for (q = 0; q < a->max_queues; q++) {
		qp = &a->qps[q];
		if (!test_bit(ENA_QP_STARTED, &qp->state))
			continue;
		napi_synchronize(&qp->napi);
		ena_xdp_tx_stop(qp);
		__netif_tx_lock_bh(qp->tx.ndq);
		netif_tx_stop_queue(qp->tx.ndq);
		__netif_tx_unlock_bh(qp->tx.ndq);
	}
}

/**
 * ena_dev_quiesce() - stop all DMA of a device that can no longer take
 * admin commands
 * @a: adapter
 *
 * Once per dead device: reset it, once no poll of a pair still running can
 * touch its queues.  When the reset fails the device may still run its
 * queues, so it is cut off from memory (bus mastering off) before the
 * caller frees anything; the quiesced state is latched only when the
 * device was proven stopped one way or the other.
 */
static void ena_dev_quiesce(struct ena_adapter *a)
{
	int rc;

	if (test_bit(ENA_F_DEV_QUIESCED, &a->flags) ||
	    test_bit(ENA_F_BUS_OFF, &a->flags))
		return;
	ena_qps_fence(a);
	rc = ena_dev_reset(a, a->reset_reason);
	if (!rc) {
		set_bit(ENA_F_DEV_QUIESCED, &a->flags);
		return;
	}
	dev_err(&a->pdev->dev,
		"device did not reset before teardown (%d); bus mastering off\n",
		rc);
	ena_dev_cut_off(a);
}

/**
 * ena_destroy_failed() - a DESTROY did not complete: stop the device
 * @a: adapter
 *
 * The device may still own a queue whose memory the caller is about to
 * free or unmap.  The device is marked dead (a reset is scheduled when one
 * is allowed) and reset now, before anything is given back.
 */
static void ena_destroy_failed(struct ena_adapter *a)
{
	ena_reset_schedule(a, ENA_RESET_DRIVER_INVALID_STATE,
			   "a DESTROY command failed");
	ena_dev_quiesce(a);
}

/**
 * ena_reg_ptr() - a register the device named by its offset in BAR 0
 * @a: adapter
 * @off: the device's offset; 0 means none
 * @p: the register, or NULL for none
 *
 * Return: 0, or -EINVAL when the offset is unaligned or outside the BAR
 * (the device is untrusted input).
 */
static int ena_reg_ptr(struct ena_adapter *a, __le32 off, u32 __iomem **p)
{
	u32 o = le32_to_cpu(off);

	*p = NULL;
	if (!o)
		return 0;
	if (o % 4 || o > a->regs_len - 4) {
		netdev_err(a->netdev, "device gave register offset %#x outside BAR 0 (%#x bytes)\n",
			   o, a->regs_len);
		return -EINVAL;
	}
	*p = (u32 __iomem *)(a->regs + o);
	return 0;
}

/* the device's LLQ descriptor offset must leave room for the whole ring */
static int ena_llq_ptr(struct ena_adapter *a, struct ena_txq *tx, __le32 off)
{
	u64 end = (u64)le32_to_cpu(off) + (u64)tx->depth * a->llq.entry_size;

	if (!a->llq_bar || end > a->llq_len) {
		netdev_err(a->netdev, "device gave LLQ offset %#x: %u entries do not fit in BAR 2 (%#x bytes)\n",
			   le32_to_cpu(off), tx->depth, a->llq_len);
		return -EINVAL;
	}
	tx->llq_mem = (u8 __iomem *)a->llq_bar + le32_to_cpu(off);
	return 0;
}

static void ena_txq_reset(struct ena_qp *qp, struct ena_txq *tx)
{
	u32 i;

	tx->sq_tail = 0;
	tx->sq_head = 0;
	tx->sq_phase = 1;
	tx->cq_head = 0;
	tx->cq_head_told = 0;
	tx->cq_phase = 1;
	tx->next_to_use = 0;
	tx->next_to_clean = 0;
	tx->unkicked = 0;
	for (i = 0; i < tx->depth; i++)
		tx->free_ids[i] = i;
	memset(tx->cq, 0, tx->depth * sizeof(struct ena_tx_cdesc));
	if (tx->descs)
		memset(tx->descs, 0, tx->depth * sizeof(struct ena_tx_desc));
	if (tx->bounce)
		memset(tx->bounce, 0, qp->adapter->llq.entry_size);
}

static void ena_qp_reset_indices(struct ena_qp *qp)
{
	struct ena_rxq *rx = &qp->rx;
	u32 i;

	ena_txq_reset(qp, &qp->tx);
	if (qp->xdp_tx.depth)
		ena_txq_reset(qp, &qp->xdp_tx);
	rx->sq_tail = 0;
	rx->sq_phase = 1;
	rx->cq_head = 0;
	rx->cq_head_told = 0;
	rx->cq_phase = 1;
	rx->next_to_use = 0;
	/* one id stays unused so a full ring never wraps onto itself */
	rx->next_to_clean = rx->depth - 1;
	for (i = 0; i < rx->depth; i++)
		rx->free_ids[i] = i;
	memset(rx->cq, 0, rx->depth * sizeof(struct ena_rx_cdesc));
	memset(rx->descs, 0, rx->depth * sizeof(struct ena_rx_desc));
}

/**
 * struct ena_ring_start - one ring of a queue start, while it is created
 * @qp: its queue pair
 * @tx: the TX or XDP TX ring; NULL for the pair's RX ring
 * @cq_made: the device made its CQ (DESTROY_CQ takes it back)
 * @sq_made: the device made its SQ
 */
struct ena_ring_start {
	struct ena_qp *qp;
	struct ena_txq *tx;
	bool cq_made;
	bool sq_made;
};

static u32 ena_ring_depth(const struct ena_ring_start *r)
{
	return r->tx ? r->tx->depth : r->qp->rx.depth;
}

static u16 *ena_ring_cq_idx(const struct ena_ring_start *r)
{
	return r->tx ? &r->tx->cq_idx : &r->qp->rx.cq_idx;
}

static u16 *ena_ring_sq_idx(const struct ena_ring_start *r)
{
	return r->tx ? &r->tx->sq_idx : &r->qp->rx.sq_idx;
}

/*
 * CREATE_CQ of a ring; all the rings of a pair (TX, RX, XDP TX) interrupt
 * on the pair's vector, served by its one NAPI.
 */
static void ena_ring_cq_cmd(const struct ena_ring_start *r,
			    struct ena_aq_cmd *cmd)
{
	u32 words = r->tx ? ENA_TX_CQ_ENTRY_WORDS : ENA_RX_CQ_ENTRY_WORDS;

	memset(cmd, 0, sizeof(*cmd));
	cmd->hdr.opcode = ENA_OP_CREATE_CQ;
	cmd->create_cq.caps1 = ENA_CQ_CAPS1_INTR;
	cmd->create_cq.caps2 = FIELD_PREP(ENA_CQ_CAPS2_ENTRY_WORDS, words);
	cmd->create_cq.depth = cpu_to_le16(ena_ring_depth(r));
	cmd->create_cq.msix_vector = cpu_to_le32(ENA_IO_VECTOR(r->qp->qid));
	ena_set_dma_addr(&cmd->create_cq.base,
			 r->tx ? r->tx->cq_dma : r->qp->rx.cq_dma);
}

/* What the device answered to a ring's CREATE_CQ, checked */
static int ena_ring_cq_made(struct ena_adapter *a, struct ena_ring_start *r,
			    const struct ena_resp_create_cq *cq)
{
	struct ena_qp *qp = r->qp;
	int rc;

	*ena_ring_cq_idx(r) = le16_to_cpu(cq->cq_idx);
	r->cq_made = true;
	if (le16_to_cpu(cq->depth) != ena_ring_depth(r)) {
		netdev_err(a->netdev, "queue %u: CQ depth %u, asked %u\n",
			   qp->qid, le16_to_cpu(cq->depth), ena_ring_depth(r));
		return -EINVAL;
	}
	if (r->tx)
		return ena_reg_ptr(a, cq->head_db_offset, &r->tx->cq_db);
	rc = ena_reg_ptr(a, cq->head_db_offset, &qp->rx.cq_db);
	if (!rc)
		rc = ena_reg_ptr(a, cq->unmask_offset, &qp->unmask);
	/* the pair's vector is unmasked through its RX CQ: without that
	 * register it would stay masked after its first interrupt
	 */
	if (!rc && !qp->unmask) {
		netdev_err(a->netdev, "queue %u: the device gave no interrupt unmask register\n",
			   qp->qid);
		rc = -EINVAL;
	}
	return rc;
}

static void ena_ring_sq_cmd(const struct ena_ring_start *r,
			    struct ena_aq_cmd *cmd)
{
	bool dev = r->tx && r->tx->llq;

	memset(cmd, 0, sizeof(*cmd));
	cmd->hdr.opcode = ENA_OP_CREATE_SQ;
	cmd->create_sq.identity = FIELD_PREP(ENA_SQ_IDENTITY_DIR,
					     r->tx ? ENA_SQ_DIR_TX :
					     ENA_SQ_DIR_RX);
	cmd->create_sq.caps2 = FIELD_PREP(ENA_SQ_CAPS2_PLACEMENT,
					  dev ? ENA_PLACEMENT_DEV :
					  ENA_PLACEMENT_HOST) |
			       FIELD_PREP(ENA_SQ_CAPS2_CMPL, ENA_CMPL_PER_DESC);
	cmd->create_sq.caps3 = ENA_SQ_CAPS3_CONTIG;
	cmd->create_sq.cq_idx = cpu_to_le16(*ena_ring_cq_idx(r));
	cmd->create_sq.depth = cpu_to_le16(ena_ring_depth(r));
	if (!dev)
		ena_set_dma_addr(&cmd->create_sq.base,
				 r->tx ? r->tx->descs_dma :
				 r->qp->rx.descs_dma);
}

/* What the device answered to a ring's CREATE_SQ, checked */
static int ena_ring_sq_made(struct ena_adapter *a, struct ena_ring_start *r,
			    const struct ena_resp_create_sq *sq)
{
	u32 __iomem **db = r->tx ? &r->tx->db : &r->qp->rx.db;
	int rc;

	*ena_ring_sq_idx(r) = le16_to_cpu(sq->sq_idx);
	r->sq_made = true;
	rc = ena_reg_ptr(a, sq->db_offset, db);
	if (!rc && r->tx && r->tx->llq)
		rc = ena_llq_ptr(a, r->tx, sq->llq_desc_offset);
	if (!rc && !*db) {
		netdev_err(a->netdev, "queue %u: device gave no %s doorbell\n",
			   r->qp->qid, r->tx ? "TX" : "RX");
		rc = -EINVAL;
	}
	return rc;
}

/*
 * DESTROY of what the device made of @n rings; a DESTROY that fails
 * resets the device (ena_destroy_failed()) before the caller frees them.
 */
static void ena_rings_destroy(struct ena_adapter *a, struct ena_ring_start *r,
			      unsigned int n)
{
	unsigned int i;
	int err = 0;

	for (i = 0; i < n; i++) {
		if (r[i].sq_made && !err)
			err = ena_destroy_sq(a, r[i].tx ? ENA_SQ_DIR_TX :
					     ENA_SQ_DIR_RX,
					     *ena_ring_sq_idx(&r[i]));
		if (r[i].cq_made && !err)
			err = ena_destroy_cq(a, *ena_ring_cq_idx(&r[i]));
		r[i].sq_made = false;
		r[i].cq_made = false;
	}
	if (err)
		ena_destroy_failed(a);
}

/* one batch of admin commands of ena_rings_create() (4 KiB: not on the stack) */
struct ena_ring_batch {
	struct ena_aq_cmd cmd[ENA_AQ_DEPTH];
	struct ena_acq_resp resp[ENA_AQ_DEPTH];
	int rcs[ENA_AQ_DEPTH];
};

/**
 * ena_rings_create() - create the device queues of @n rings, pipelined
 * @a: adapter
 * @r: the rings; every CQ before its SQ (which names it)
 * @n: number of rings
 *
 * All the CREATE_CQs go to the device together (ENA_AQ_DEPTH at a time),
 * then all the CREATE_SQs: a queue start, or an open of many queues,
 * waits two device round trips instead of two per ring.  Each answer is
 * checked (depth, offsets inside the BARs, a doorbell given).
 *
 * Return: 0, or a negative errno with nothing of the rings left in the
 * device (or the device being reset).
 */
static int ena_rings_create(struct ena_adapter *a, struct ena_ring_start *r,
			    unsigned int n)
{
	struct ena_ring_batch *b;
	struct ena_aq_cmd *cmd;
	unsigned int i, j, m;
	int rc = 0, bad;
	bool sq;

	b = kmalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	cmd = b->cmd;
	for (sq = false; ; sq = true) {
		for (i = 0; i < n; i += m) {
			m = min_t(unsigned int, n - i, ENA_AQ_DEPTH);
			for (j = 0; j < m; j++) {
				if (sq)
					ena_ring_sq_cmd(&r[i + j], &cmd[j]);
				else
					ena_ring_cq_cmd(&r[i + j], &cmd[j]);
			}
			rc = ena_admin_exec_many(a, cmd, b->resp, b->rcs, m);
			/* -ENODEV, -ETIME, -EIO: no answer is valid */
			if (rc == -ENODEV || rc == -ETIME || rc == -EIO)
				goto err;
			for (j = 0; j < m; j++) {
				if (b->rcs[j])
					continue;
				if (sq)
					bad = ena_ring_sq_made(a, &r[i + j],
							       &b->resp[j].create_sq);
				else
					bad = ena_ring_cq_made(a, &r[i + j],
							       &b->resp[j].create_cq);
				if (bad && !rc)
					rc = bad;
			}
			if (rc)
				goto err;
		}
		if (sq)
			break;
	}
	kfree(b);
	return 0;
err:
	kfree(b);
	ena_rings_destroy(a, r, n);
	return rc;
}

/* DESTROY of what ena_txq_create() made.  Return: non-zero if one failed */
static int ena_txq_destroy(struct ena_adapter *a, struct ena_txq *tx)
{
	return ena_destroy_sq(a, ENA_SQ_DIR_TX, tx->sq_idx) ||
	       ena_destroy_cq(a, tx->cq_idx);
}

/* a started pair's first poll, in a work item (ena_qps_kick()) */
static void ena_qp_kick(struct work_struct *w)
{
	struct ena_qp *qp = container_of(w, struct ena_qp, kick);

	local_bh_disable();
	napi_schedule(&qp->napi);
	local_bh_enable();
}

/* XDP's view of the RX ring: its queue, NAPI and page pool */
static int ena_xdp_rxq_reg(struct ena_adapter *a, struct ena_qp *qp)
{
	int rc;

	rc = xdp_rxq_info_reg(&qp->xdp_rxq, a->netdev, qp->qid,
			      qp->napi.napi_id);
	if (rc)
		return rc;
	rc = xdp_rxq_info_reg_mem_model(&qp->xdp_rxq, MEM_TYPE_PAGE_POOL,
					qp->rx.pool);
	if (rc)
		xdp_rxq_info_unreg(&qp->xdp_rxq);
	return rc;
}

/*
 * ena_qps_start()'s part of one pair once its device queues exist: the IO
 * vector, a first batch of RX buffers, NAPI (its first poll marked due for
 * ena_qps_kick()), the TX queue.  Return: 0, or the errno of request_irq()
 * with nothing done.
 */
static int ena_qp_run(struct ena_adapter *a, struct ena_qp *qp)
{
	struct ena_txq *tx = &qp->tx;
	struct ena_txq *xtx = &qp->xdp_tx;
	struct ena_rxq *rx = &qp->rx;
	int rc;

	qp->irq = pci_irq_vector(a->pdev, ENA_IO_VECTOR(qp->qid));
	snprintf(qp->irq_name, sizeof(qp->irq_name), "%s-Tx-Rx-%u",
		 netdev_name(a->netdev), qp->qid);
	rc = request_irq(qp->irq, ena_io_irq, 0, qp->irq_name, qp);
	if (rc)
		return rc;
	netif_napi_set_irq(&qp->napi, qp->irq);
	/*
	 * Spread the queues over the CPUs near the device, as the in-tree
	 * driver does: the hint for irqbalance, and the affinity itself (with
	 * no irqbalance every queue's vector would land on one CPU).
	 */
	irq_set_affinity_and_hint(qp->irq,
				  cpumask_of(cpumask_local_spread(qp->qid,
								  dev_to_node(&a->pdev->dev))));

	tx->ndq = netdev_get_tx_queue(a->netdev, qp->qid);
	netdev_tx_reset_queue(tx->ndq);
	/*
	 * A first batch now; NAPI's first polls post the rest (filling a
	 * whole ring is most of a queue's start, and a channel change or a
	 * reset holds RTNL through it).
	 */
	ena_rx_refill(qp, min_t(u32, rx->depth - 1, ENA_RX_START_FILL),
		      GFP_KERNEL);
	rx->fill_pending = rx->next_to_use != rx->next_to_clean;

	ena_dim_start(qp);
	/* the program runs on the buffer layout made for it only */
	WRITE_ONCE(qp->xdp_prog, rx->xdp ? a->xdp_prog : NULL);
	if (xtx->depth) {
		spin_lock_bh(&qp->xdp_lock);
		qp->xdp_live = true;
		spin_unlock_bh(&qp->xdp_lock);
	}
	set_bit(ENA_QP_STARTED, &qp->state);
	napi_enable(&qp->napi);
	/* the first poll: ena_qps_kick() */
	INIT_WORK(&qp->kick, ena_qp_kick);
	set_bit(ENA_QP_KICK_DUE, &qp->state);
	/*
	 * Wake, not start: packets the qdisc held back while this queue was
	 * stopped (a restart by -G or a reset under traffic) must be sent now,
	 * not when the next packet happens to be queued behind them; a TCP
	 * sender whose segments sit there sends nothing new and would stall.
	 */
	netif_tx_wake_queue(tx->ndq);
	WRITE_ONCE(qp->stats->starts, qp->stats->starts + 1);
	return 0;
}

/* the first of a pair's rings in ena_qps_start()'s list is its TX ring */
static bool ena_ring_first(const struct ena_ring_start *r)
{
	return r->tx == &r->qp->tx;
}

/**
 * ena_qps_start() - create the device queues and start passing traffic
 * @a: adapter
 * @from: first queue pair
 * @to: one past the last; each allocated (the started ones are skipped)
 *
 * Creates the CQs, then the SQs, of every ring of these pairs (TX, RX and
 * XDP TX if the pair has one) in pipelined admin batches
 * (ena_rings_create()), then per pair takes the IO vector, posts a first
 * batch of RX buffers, enables NAPI and opens the TX queue.  The caller
 * schedules their first polls with ena_qps_kick() (which post the rest and
 * unmask the vectors) once its own admin commands are done; until then
 * the queues run on their first RX batch.
 *
 * Return: 0 or a negative errno; on failure none of these pairs is left
 * started by this call: each is allocated and stopped, with nothing
 * created on the device.
 */
int ena_qps_start(struct ena_adapter *a, u16 from, u16 to)
{
	struct ena_ring_start *r;
	unsigned int n = 0, i, j;
	struct ena_qp *qp;
	u16 q;
	int rc;

	r = kcalloc(3 * (to - from), sizeof(*r), GFP_KERNEL);
	if (!r) {
		rc = -ENOMEM;
		goto err;
	}
	for (q = from; q < to; q++) {
		qp = &a->qps[q];
		if (test_bit(ENA_QP_STARTED, &qp->state))
			continue;
		ena_qp_reset_indices(qp);
		rc = ena_xdp_rxq_reg(a, qp);
		if (rc)
			goto err_rxq;
		r[n++] = (struct ena_ring_start){ .qp = qp, .tx = &qp->tx };
		r[n++] = (struct ena_ring_start){ .qp = qp };
		if (qp->xdp_tx.depth)
			r[n++] = (struct ena_ring_start){ .qp = qp,
							  .tx = &qp->xdp_tx };
	}
	if (!n) {
		kfree(r);
		return 0;
	}
	rc = ena_rings_create(a, r, n);
	if (rc)
		goto err_rxq;

	for (i = 0; i < n; i++) {
		if (!ena_ring_first(&r[i]))
			continue;
		rc = ena_qp_run(a, r[i].qp);
		if (rc)
			goto err_run;
	}
	kfree(r);
	return 0;

err_run:
	/* this pair and the ones after it never ran: take their queues back */
	ena_rings_destroy(a, &r[i], n - i);
	for (j = i; j < n; j++)
		if (ena_ring_first(&r[j]))
			xdp_rxq_info_unreg(&r[j].qp->xdp_rxq);
	/* the ones before it run: stopping them destroys theirs */
	while (i--)
		if (ena_ring_first(&r[i]))
			ena_qp_stop(a, r[i].qp->qid);
	goto err_free;
err_rxq:
	for (i = 0; i < n; i++)
		if (ena_ring_first(&r[i]))
			xdp_rxq_info_unreg(&r[i].qp->xdp_rxq);
err_free:
	kfree(r);
err:
	if (to - from == 1)
		netdev_err(a->netdev, "queue %u start failed: %d\n", from, rc);
	else
		netdev_err(a->netdev, "queues %u..%u start failed: %d\n", from,
			   to - 1, rc);
	return rc;
}

/**
 * ena_qps_kick() - schedule the first poll of the pairs just started
 * @a: adapter
 * @from: first queue pair
 * @to: one past the last
 *
 * The first poll finishes the RX fill and unmasks the vector when it is
 * done.  It also takes in what the device completed before NAPI was
 * enabled: the RX buffers posted by the start can be filled at once, and
 * the interrupt for that (armed in a device just reset) found NAPI
 * disabled and was lost; nothing else would announce those completions.
 * It is scheduled from a (high priority) work item, after the caller's
 * last admin command of the bring-up (RSS, MTU): the fill then runs
 * outside the bring-up, not in its waits for the device.  The work goes to
 * another CPU than the caller's where there is one: on the caller's it
 * would wait for the caller to sleep, which (for a bring-up under RTNL,
 * through the stack's NETDEV_UP work) can be long after the first batch of
 * RX buffers ran out under traffic (traffic.sh, up_flood).
 */
void ena_qps_kick(struct ena_adapter *a, u16 from, u16 to)
{
	int cpu = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());
	u16 q;

	if (cpu >= nr_cpu_ids)
		cpu = WORK_CPU_UNBOUND;
	for (q = from; q < to; q++) {
		struct ena_qp *qp = &a->qps[q];

		if (test_and_clear_bit(ENA_QP_KICK_DUE, &qp->state))
			queue_work_on(cpu, system_highpri_wq, &qp->kick);
	}
}

/**
 * ena_qp_start() - create one queue pair's device queues and start it
 * @a: adapter
 * @qid: queue index; allocated
 *
 * Return: as ena_qps_start() for the one pair, whose first poll is
 * scheduled.
 */
int ena_qp_start(struct ena_adapter *a, u16 qid)
{
	int rc = ena_qps_start(a, qid, qid + 1);

	if (!rc)
		ena_qps_kick(a, qid, qid + 1);
	return rc;
}

/**
 * ena_qp_stop() - stop a started queue pair
 * @a: adapter
 * @qid: queue index
 *
 * Closes the TX queue, quiesces NAPI and the vector, destroys the device
 * queues and returns every in-flight TX skb and RX page.  A device that
 * awaits reset gets no DESTROY commands; it is reset instead, so it cannot
 * DMA into buffers handed back here.  The rings stay allocated.
 */
void ena_qp_stop(struct ena_adapter *a, u16 qid)
{
	struct ena_qp *qp = &a->qps[qid];

	if (!test_and_clear_bit(ENA_QP_STARTED, &qp->state))
		return;

	/*
	 * Not started any more (test_and_clear_bit() is fully ordered): from
	 * here xmit drops and NAPI does not wake the TX queue.  NAPI is
	 * disabled first, so no completion can wake the queue after the stop
	 * below; the stop is taken under the queue lock, which waits out an
	 * xmit already running, so no packet is posted after this and none
	 * races ena_tx_drain().
	 */
	clear_bit(ENA_QP_KICK_DUE, &qp->state);
	cancel_work_sync(&qp->kick);
	napi_disable(&qp->napi);
	cancel_work_sync(&qp->dim.work);
	/* no ndo_xdp_xmit after this: it checks under the same lock */
	ena_xdp_tx_stop(qp);
	__netif_tx_lock_bh(qp->tx.ndq);
	netif_tx_stop_queue(qp->tx.ndq);
	__netif_tx_unlock_bh(qp->tx.ndq);
	irq_update_affinity_hint(qp->irq, NULL);
	free_irq(qp->irq, qp);
	netif_napi_set_irq(&qp->napi, -1);

	/*
	 * A failed DESTROY leaves its queue (and maybe the ones after it)
	 * live in the device: reset it before any buffer or ring is handed
	 * back, as for a device already dead.
	 */
	if (test_bit(ENA_F_DEV_DEAD, &a->flags))
		ena_dev_quiesce(a);
	else if ((qp->xdp_tx.depth && ena_txq_destroy(a, &qp->xdp_tx)) ||
		 ena_destroy_sq(a, ENA_SQ_DIR_RX, qp->rx.sq_idx) ||
		 ena_destroy_cq(a, qp->rx.cq_idx) ||
		 ena_txq_destroy(a, &qp->tx))
		ena_destroy_failed(a);

	ena_tx_drain(qp, &qp->tx);
	netdev_tx_reset_queue(qp->tx.ndq);
	if (qp->xdp_tx.depth)
		ena_tx_drain(qp, &qp->xdp_tx);
	ena_rx_drain(qp);
	xdp_rxq_info_unreg(&qp->xdp_rxq);
	WRITE_ONCE(qp->xdp_prog, NULL);
	WRITE_ONCE(qp->stats->stops, qp->stats->stops + 1);
}

/**
 * ena_qp_mem_prepare() - allocate rings of new depths for a queue pair
 * @a: adapter
 * @qid: queue index; allocated
 * @tx_depth: new TX ring entries
 * @rx_depth: new RX ring entries
 * @xdp: the RX layout for XDP, and an XDP TX ring
 * @m: receives the memory, for ena_qp_swap()
 *
 * The rings only: the new RX ring's page pool is bound to the queue's
 * NAPI, which runs on until the swap, so ena_qp_swap() creates it while
 * the queue is stopped.
 *
 * Return: 0 or -ENOMEM with nothing allocated.
 */
int ena_qp_mem_prepare(struct ena_adapter *a, u16 qid, u32 tx_depth,
		       u32 rx_depth, bool xdp, struct ena_qp_mem *m)
{
	struct ena_qp *qp = &a->qps[qid];
	int rc;

	memset(m, 0, sizeof(*m));
	rc = ena_qp_mem_alloc(qp, &m->tx, &m->rx, &m->xdp_tx, tx_depth,
			      rx_depth, false, xdp);
	if (rc)
		return rc;
	m->tx.max_slots = qp->tx.max_slots;
	m->held = true;
	return 0;
}

/**
 * ena_qp_mem_release() - free what ena_qp_mem_prepare() or a swap left in @m
 * @a: adapter
 * @qid: queue index
 * @m: memory not in use by the queue
 */
void ena_qp_mem_release(struct ena_adapter *a, u16 qid, struct ena_qp_mem *m)
{
	struct ena_qp *qp = &a->qps[qid];

	if (!m->held)
		return;
	ena_txq_free_mem(qp, &m->xdp_tx);
	ena_rxq_free_mem(qp, &m->rx);
	ena_txq_free_mem(qp, &m->tx);
	m->held = false;
}

/*
 * With the queue stopped (its NAPI disabled): a fresh pool bound to the
 * NAPI for the rings in @m (replacing the unbound one they may carry from
 * an earlier swap), the queue's current pool unbound from the NAPI (it
 * is freed later, while the NAPI runs again), then the rings change
 * places.  Return: 0, or -ENOMEM with nothing changed.
 */
static int ena_qp_install(struct ena_qp *qp, struct ena_qp_mem *m)
{
	struct page_pool *old = m->rx.pool;
	int rc;

	rc = ena_rx_pool_create(qp, &m->rx);
	if (rc)
		return rc;
	if (old)
		page_pool_destroy(old);
	ena_pp_unbind_napi(qp->rx.pool);
	swap(qp->tx, m->tx);
	swap(qp->rx, m->rx);
	swap(qp->xdp_tx, m->xdp_tx);
	return 0;
}

/**
 * ena_qp_swap() - restart a running queue pair on the rings in @m
 * @a: adapter
 * @qid: queue index; allocated and started
 * @m: rings from ena_qp_mem_prepare(); receives the queue's old rings
 *
 * The queue is down for one stop and one start, and its NAPI stays
 * registered throughout.  If it does not start on the new rings it is
 * started again on its old ones, and @m holds the new ones again.  After
 * a failed start the old rings keep the pool they had, no longer bound
 * to the NAPI: correct, only without lockless recycling by the stack.
 *
 * Return: 0, or a negative errno with the old rings in force; the queue
 * is left stopped only if it cannot be restarted on either.
 */
int ena_qp_swap(struct ena_adapter *a, u16 qid, struct ena_qp_mem *m)
{
	struct ena_qp *qp = &a->qps[qid];
	int rc, err;

	ena_qp_stop(a, qid);
	rc = ena_qp_install(qp, m);
	if (rc)
		goto restart;
	rc = ena_qp_start(a, qid);
	if (!rc)
		return 0;
	/* the NAPI is still disabled: the new pool can be unbound now */
	ena_pp_unbind_napi(qp->rx.pool);
	swap(qp->tx, m->tx);
	swap(qp->rx, m->rx);
	swap(qp->xdp_tx, m->xdp_tx);
restart:
	err = ena_qp_start(a, qid);
	return err ? err : rc;
}
