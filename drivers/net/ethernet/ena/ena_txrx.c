// SPDX-License-Identifier: GPL-2.0
/*
 * The datapath: transmit (host descriptors or LLQ), NAPI TX completion and
 * RX, RX buffer refill from page_pool, and the frames of the XDP TX
 * ring (XDP_TX and ndo_xdp_xmit, posted by ena_xdp.c, completed here).
 * A completion that names a buffer we do not have in flight, or an
 * impossible length, stops the queue's processing and asks for a device
 * reset.
 */
#include <linux/bitfield.h>
#include <linux/bpf_trace.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/rtnetlink.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/ip6_checksum.h>

#include "ena.h"
#include "ena_compat.h"

/*
 * RX refill once this many buffers are free: an eighth of the ring, at
 * most 256, as in-tree.  Each refill costs one doorbell (an MMIO write,
 * an exit under virtualisation): the datapath bench took 0.90 of stock's
 * small-packet rate with a refill every 16 buffers.
 */
#define ENA_RX_REFILL_DIV	8
#define ENA_RX_REFILL_MAX	256
/*
 * A queue start posts ENA_RX_START_FILL buffers (in ndo_open, under RTNL,
 * or in the open_async work); its first NAPI polls post the rest,
 * ENA_RX_FILL_STEP per poll, outside RTNL (ena_rx_fill_step()).
 */
#define ENA_RX_FILL_STEP	ENA_RX_START_FILL
/* pages handed back to the pool per bulk call (ena_compat.h) */
#define ENA_RX_DRAIN_BATCH	ENA_PP_BULK_MAX

/* one datapath counter of @qp, from NAPI */
static void ena_napi_stat_inc(struct ena_qp *qp, u64 *ctr)
{
	u64_stats_update_begin(&qp->stats->napi_sync);
	(*ctr)++;
	u64_stats_update_end(&qp->stats->napi_sync);
}

/* one datapath counter of @qp, from xmit (TX queue lock held) */
static void ena_xmit_stat_inc(struct ena_qp *qp, u64 *ctr)
{
	u64_stats_update_begin(&qp->stats->xmit_sync);
	(*ctr)++;
	u64_stats_update_end(&qp->stats->xmit_sync);
}

/**
 * ena_unmask_irq() - unmask the queue pair's vector
 * @qp: the queue pair
 *
 * With moderation the unmask carries the delays the device waits after it
 * before the vector's next interrupt: the RX one DIM (or ethtool -C) chose
 * for this queue, the TX one from ethtool -C.  Both are within the field's
 * range: ethtool -C checks the static ones, DIM's profiles are far below.
 */
void ena_unmask_irq(struct ena_qp *qp)
{
	u32 res = qp->adapter->intr_delay_res, val = ENA_INTR_UNMASK;

	if (!qp->unmask)
		return;
	if (res)
		val |= FIELD_PREP(ENA_INTR_RX_DELAY,
				  min(READ_ONCE(qp->rx_usecs) / res, ENA_INTR_DELAY_MAX)) |
		       FIELD_PREP(ENA_INTR_TX_DELAY,
				  min(READ_ONCE(qp->adapter->tx_usecs) / res,
				      ENA_INTR_DELAY_MAX));
	writel(val, qp->unmask);
}

/* DIM chose a profile for @w's queue: its next unmasks ask for that delay */
static void ena_dim_work(struct work_struct *w)
{
	struct dim *dim = container_of(w, struct dim, work);
	struct ena_qp *qp = container_of(dim, struct ena_qp, dim);
	struct dim_cq_moder m = net_dim_get_rx_moderation(dim->mode,
							  dim->profile_ix);

	if (READ_ONCE(qp->adapter->adaptive_rx))
		WRITE_ONCE(qp->rx_usecs, m.usec);
	dim->state = DIM_START_MEASURE;
}

/**
 * ena_rx_usecs_reset() - the RX delay a queue pair starts from, or goes
 * back to after ethtool -C: the static RX delay (rx-usecs), which with
 * adaptive-rx holds until DIM's first choice, as in the in-tree driver
 * @qp: the queue pair; RTNL held
 */
void ena_rx_usecs_reset(struct ena_qp *qp)
{
	WRITE_ONCE(qp->rx_usecs, qp->adapter->rx_usecs);
}

/**
 * ena_dim_start() - moderation state of a queue pair being started
 * @qp: the queue pair, NAPI not yet enabled
 *
 * The queue's stop cancels the work (ena_qp_stop()).
 */
void ena_dim_start(struct ena_qp *qp)
{
	memset(&qp->dim, 0, sizeof(qp->dim));
	qp->dim_events = 0;
	qp->dim_pkts = 0;
	INIT_WORK(&qp->dim.work, ena_dim_work);
	qp->dim.mode = DIM_CQ_PERIOD_MODE_START_FROM_EQE;
	ena_rx_usecs_reset(qp);
}

/*
 * One DIM sample when NAPI completes, if RX packets came since the last
 * one: packets and bytes so far, and the completions that had some as the
 * events.  The packets of the polls before it count too: under load the
 * poll that completes often finds none after repolls that took many, and
 * skipping it would leave DIM without samples (and the delay low) just
 * when it should rise.  A completion with only TX work says nothing about
 * the RX rate (the in-tree driver skips those too); counted, it would read
 * as an RX moment with no packets and push the profile around under
 * request/response traffic.
 */
static void ena_dim_sample(struct ena_qp *qp)
{
	struct dim_sample s;

	if (!qp->dim_pkts)
		return;
	qp->dim_pkts = 0;
	qp->dim_events++;
	dim_update_sample(qp->dim_events, qp->stats->rx_packets,
			  qp->stats->rx_bytes, &s);
	ena_net_dim(&qp->dim, s);
}

irqreturn_t ena_io_irq(int irq, void *data)
{
	struct ena_qp *qp = data;

	napi_schedule_irqoff(&qp->napi);
	return IRQ_HANDLED;
}

/* free SQ slots */
static u32 ena_tx_space(const struct ena_txq *tx)
{
	/*
	 * Acquire: the buffers and ids the completion path freed before it
	 * advanced @sq_head (release) are seen by the producer that reuses
	 * them; an XDP TX ring's producer runs on any CPU.
	 */
	return tx->depth - (tx->sq_tail - smp_load_acquire(&tx->sq_head));
}

/* SQ slots a packet of @descs descriptors takes */
static u32 ena_tx_slots(const struct ena_adapter *a, const struct ena_txq *tx,
			u32 descs)
{
	u32 before, per;

	if (!tx->llq)
		return descs;
	before = a->llq.descs_before_hdr;
	per = a->llq.descs_per_entry;
	if (descs <= before)
		return 1;
	return 1 + DIV_ROUND_UP(descs - before, per);
}

static void ena_tx_unmap(struct device *dev, struct ena_tx_buf *b)
{
	int i;

	for (i = 0; i < b->nr_maps; i++) {
		if (b->map[i].kind == ENA_MAP_PAGE)
			dma_unmap_page(dev, b->map[i].addr, b->map[i].len,
				       DMA_TO_DEVICE);
		else if (b->map[i].kind == ENA_MAP_SINGLE)
			dma_unmap_single(dev, b->map[i].addr, b->map[i].len,
					 DMA_TO_DEVICE);
	}
	b->nr_maps = 0;
}

/* Descriptor writer: host ring or LLQ entries staged in a bounce buffer */
struct ena_tx_writer {
	struct ena_adapter *a;
	struct ena_txq *tx;
	u32 idx;	/* slot in the current LLQ entry */
	u32 left;	/* descriptor slots left in the current LLQ entry */
};

static void ena_tx_advance(struct ena_txq *tx)
{
	tx->sq_tail++;
	if (!(tx->sq_tail & (tx->depth - 1)))
		tx->sq_phase ^= 1;
}

static void ena_llq_flush(struct ena_tx_writer *w)
{
	struct ena_txq *tx = w->tx;
	u32 esz = w->a->llq.entry_size;
	u32 off = (tx->sq_tail & (tx->depth - 1)) * esz;

	__iowrite64_copy(tx->llq_mem + off, tx->bounce, esz / 8);
	ena_tx_advance(tx);
	memset(tx->bounce, 0, esz);
	w->idx = 0;
	w->left = w->a->llq.descs_per_entry;
}

static void ena_tx_put(struct ena_tx_writer *w, const struct ena_tx_desc *d)
{
	struct ena_txq *tx = w->tx;

	if (!tx->llq) {
		tx->descs[tx->sq_tail & (tx->depth - 1)] = *d;
		ena_tx_advance(tx);
		return;
	}
	memcpy(tx->bounce + w->idx * sizeof(*d), d, sizeof(*d));
	w->idx++;
	if (!--w->left)
		ena_llq_flush(w);
}

static void ena_tx_finish(struct ena_tx_writer *w)
{
	if (w->tx->llq && w->idx)
		ena_llq_flush(w);
}

/* header bytes of a @len-byte packet that go into its first LLQ entry */
static u32 ena_llq_push_len(const struct ena_adapter *a, u32 len)
{
	u32 push = min_t(u32, len, a->llq.hdr_room);

	if (a->tx_max_header)
		push = min(push, a->tx_max_header);
	return push;
}

/* a packet's first descriptors: with LLQ its header goes into the entry */
static void ena_tx_begin(struct ena_tx_writer *w, const void *hdr, u32 push)
{
	u32 hoff = w->a->llq.descs_before_hdr * sizeof(struct ena_tx_desc);

	if (!w->tx->llq)
		return;
	w->left = w->a->llq.descs_before_hdr;
	memcpy(w->tx->bounce + hoff, hdr, push);
}

/**
 * ena_tx_write() - the descriptors of one packet
 * @w: writer, after ena_tx_begin()
 * @b: the packet's buffers (none: all of it went into the LLQ header)
 * @req_id: its id, returned by the completion
 * @hdr_len: header length for the device
 * @w1: checksum request of the first data descriptor
 * @meta: the meta descriptor that goes first, or NULL
 *
 * A packet always has one data descriptor, possibly empty (LLQ).
 */
static void ena_tx_write(struct ena_tx_writer *w, const struct ena_tx_buf *b,
			 u32 req_id, u32 hdr_len, u32 w1,
			 struct ena_tx_desc *meta)
{
	struct ena_txq *tx = w->tx;
	u32 i, n = max_t(u32, b->nr_maps, 1);
	struct ena_tx_desc d = {};

	if (meta) {
		meta->w0 = cpu_to_le32(ENA_TXD_META | ENA_TXM_EXT_VALID |
				       ENA_TXM_ETH_META_TYPE |
				       ENA_TXM_META_STORE | ENA_TXD_FIRST |
				       FIELD_PREP(ENA_TXD_PHASE, tx->sq_phase));
		ena_tx_put(w, meta);
	}
	for (i = 0; i < n; i++) {
		u32 w0 = FIELD_PREP(ENA_TXD_PHASE, tx->sq_phase);
		u32 w3 = 0;

		if (i == 0) {
			w0 |= ENA_TXD_COMP_REQ |
			      FIELD_PREP(ENA_TXD_REQ_ID_HI,
					 req_id >> ENA_TX_REQ_ID_LO_BITS);
			if (!meta)
				w0 |= ENA_TXD_FIRST;
			w3 |= FIELD_PREP(ENA_TXD_HDR_LEN, hdr_len);
			d.w1 = cpu_to_le32(w1 | FIELD_PREP(ENA_TXD_REQ_ID_LO,
							   req_id));
		} else {
			d.w1 = 0;
		}
		if (i == n - 1)
			w0 |= ENA_TXD_LAST;
		if (b->nr_maps) {
			w0 |= FIELD_PREP(ENA_TXD_LEN, b->map[i].len);
			w3 |= FIELD_PREP(ENA_TXD_ADDR_HI,
					 upper_32_bits(b->map[i].addr));
			d.addr_lo = cpu_to_le32(lower_32_bits(b->map[i].addr));
		} else {
			d.addr_lo = 0;
		}
		d.w0 = cpu_to_le32(w0);
		d.w3 = cpu_to_le32(w3);
		ena_tx_put(w, &d);
	}
	ena_tx_finish(w);
}

static bool ena_tx_csum(struct sk_buff *skb, u32 *w1, struct ena_tx_desc *meta)
{
	u32 l3, l4, l4_words;
	u8 ipproto;

	switch (skb->protocol) {
	case htons(ETH_P_IP):
		l3 = ENA_L3_IPV4;
		ipproto = ip_hdr(skb)->protocol;
		break;
	case htons(ETH_P_IPV6):
		l3 = ENA_L3_IPV6;
		ipproto = ipv6_hdr(skb)->nexthdr;
		break;
	default:
		return false;
	}
	if (ipproto == IPPROTO_TCP) {
		l4 = ENA_L4_TCP;
		l4_words = tcp_hdrlen(skb) / 4;
	} else if (ipproto == IPPROTO_UDP) {
		l4 = ENA_L4_UDP;
		l4_words = sizeof(struct udphdr) / 4;
	} else {
		return false;
	}

	*w1 = FIELD_PREP(ENA_TXD_L3_PROTO, l3) |
	      FIELD_PREP(ENA_TXD_L4_PROTO, l4) |
	      ENA_TXD_L4_CSUM | ENA_TXD_L4_PARTIAL;
	meta->w1 = 0;
	meta->w3 = 0;
	meta->addr_lo = cpu_to_le32(FIELD_PREP(ENA_TXM_L3_HDR_LEN,
					       skb_network_header_len(skb)) |
				    FIELD_PREP(ENA_TXM_L3_HDR_OFF,
					       skb_network_offset(skb)) |
				    FIELD_PREP(ENA_TXM_L4_HDR_WORDS, l4_words));
	return true;
}

static void ena_tx_drop(struct ena_qp *qp, struct sk_buff *skb, bool dma_err)
{
	struct ena_queue_stats *st = qp->stats;

	dev_kfree_skb_any(skb);
	u64_stats_update_begin(&st->xmit_sync);
	st->tx_dropped++;
	if (dma_err)
		st->tx_dma_err++;
	u64_stats_update_end(&st->xmit_sync);
}

/**
 * ena_tx_doorbell() - tell the device about every descriptor written so far
 * @tx: the ring, under its producer's lock
 */
void ena_tx_doorbell(struct ena_txq *tx)
{
	/* WC stores of LLQ entries must land before the doorbell */
	wmb();
	writel(tx->sq_tail & 0xffff, tx->db);
	tx->unkicked = 0;
}

static void ena_tx_kick(struct ena_qp *qp)
{
	ena_tx_doorbell(&qp->tx);
	ena_xmit_stat_inc(qp, &qp->stats->tx_doorbells);
}

/*
 * Stop the queue when the largest packet might not fit any more; the
 * core's lockless helper re-checks after the stop and starts the queue
 * again if ena_clean_tx() freed slots meanwhile (counted in both).
 */
static void ena_tx_maybe_stop(struct ena_qp *qp)
{
	struct ena_txq *tx = &qp->tx;
	int rc;

	rc = netif_txq_maybe_stop(tx->ndq, ena_tx_space(tx), tx->max_slots,
				  tx->max_slots);
	if (likely(rc > 0))
		return;
	u64_stats_update_begin(&qp->stats->xmit_sync);
	qp->stats->tx_stops++;
	if (rc < 0)
		qp->stats->tx_restarts++;
	u64_stats_update_end(&qp->stats->xmit_sync);
}

/* Return: 0 once @skb fits the device's buffer count, else an errno */
static int ena_tx_linearize(struct ena_qp *qp, struct sk_buff *skb)
{
	int rc;

	ena_xmit_stat_inc(qp, &qp->stats->tx_linearize);
	rc = skb_linearize(skb);
	if (rc)
		ena_xmit_stat_inc(qp, &qp->stats->tx_linearize_failed);
	return rc;
}

/**
 * ena_start_xmit() - ndo_start_xmit
 * @skb: packet
 * @netdev: our netdev
 *
 * Return: NETDEV_TX_OK, or NETDEV_TX_BUSY if the queue was full although it
 * should have been stopped.
 */
netdev_tx_t ena_start_xmit(struct sk_buff *skb, struct net_device *netdev)
{
	struct ena_adapter *a = netdev_priv(netdev);
	u16 qid = skb_get_queue_mapping(skb);
	struct ena_qp *qp = &a->qps[qid];
	struct ena_txq *tx = &qp->tx;
	struct device *dev = &a->pdev->dev;
	struct ena_tx_writer w = { .a = a, .tx = tx };
	struct ena_tx_desc meta = {};
	u32 w1 = 0, push = 0, head, nbufs, ndescs, i, req_id;
	bool has_meta = false, kick;
	struct ena_tx_buf *b;
	unsigned int len;

	if (unlikely(!ena_rt_qp_up(qp)))
		goto drop;

	if (a->max_tx_sgl && skb_shinfo(skb)->nr_frags + 1 > a->max_tx_sgl &&
	    ena_tx_linearize(qp, skb))
		goto drop;

	if (skb->ip_summed == CHECKSUM_PARTIAL) {
		has_meta = ena_tx_csum(skb, &w1, &meta);
		if (!has_meta && skb_checksum_help(skb))
			goto drop;
		if (has_meta)
			ena_xmit_stat_inc(qp, &qp->stats->tx_needs_csum);
	}
	/* an empty meta descriptor (@meta is zeroed) where one is always due */
	has_meta |= ena_tx_meta_always(a, tx);

	if (tx->llq) {
		push = ena_llq_push_len(a, skb->len);
		if (skb_headlen(skb) < push) {
			ena_xmit_stat_inc(qp, &qp->stats->tx_llq_hdr_pull);
			if (!pskb_may_pull(skb, push))
				goto drop;
		}
	}

	head = skb_headlen(skb) - push;
	nbufs = (head ? 1 : 0) + skb_shinfo(skb)->nr_frags;
	/* a packet always has one data descriptor, possibly empty (LLQ) */
	ndescs = max(nbufs, 1U) + has_meta;
	if (unlikely(ena_tx_space(tx) < ena_tx_slots(a, tx, ndescs))) {
		/* cannot happen: the queue stops while max_slots are free */
		ena_xmit_stat_inc(qp, &qp->stats->tx_prepare_err);
		ena_tx_maybe_stop(qp);
		/* what earlier packets of a batch posted must not wait */
		if (tx->unkicked)
			ena_tx_kick(qp);
		return NETDEV_TX_BUSY;
	}

	req_id = tx->free_ids[tx->next_to_use & (tx->depth - 1)];
	b = &tx->bufs[req_id];
	b->nr_maps = 0;
	if (head) {
		dma_addr_t addr = dma_map_single(dev, skb->data + push, head,
						 DMA_TO_DEVICE);

		if (dma_mapping_error(dev, addr))
			goto dma_err;
		b->map[0] = (struct ena_tx_map){ addr, head, ENA_MAP_SINGLE };
		b->nr_maps = 1;
	}
	for (i = 0; i < skb_shinfo(skb)->nr_frags; i++) {
		const skb_frag_t *f = &skb_shinfo(skb)->frags[i];
		dma_addr_t addr = skb_frag_dma_map(dev, f, 0, skb_frag_size(f),
						   DMA_TO_DEVICE);

		if (dma_mapping_error(dev, addr))
			goto dma_err;
		b->map[b->nr_maps++] = (struct ena_tx_map){
			addr, skb_frag_size(f), ENA_MAP_PAGE };
	}

	ena_tx_begin(&w, skb->data, push);
	ena_tx_write(&w, b, req_id,
		     tx->llq ? push : min_t(u32, skb_headlen(skb),
					    a->tx_max_header ? : 255),
		     w1, has_meta ? &meta : NULL);

	/* before the doorbell: the completion may free the skb after it */
	skb_tx_timestamp(skb);
	len = skb->len;
	b->sent = jiffies;
	b->missed = false;
	/* the watchdog looks at @sent of buffers whose @skb is set */
	smp_store_release(&b->skb, skb);
	b->descs = ena_tx_slots(a, tx, ndescs);
	tx->unkicked += b->descs;
	tx->next_to_use++;

	/*
	 * One doorbell for a batch (xmit_more), with LLQ as with host
	 * descriptors, as in-tree: the device reads LLQ entries up to the
	 * tail at the doorbell.  Rung at the batch's end, when the queue
	 * stops, and before the next packet could pass the device's burst.
	 */
	kick = __netdev_tx_sent_queue(tx->ndq, len, netdev_xmit_more());
	ena_tx_maybe_stop(qp);
	if (kick || netif_xmit_stopped(tx->ndq) ||
	    ena_llq_burst_full(a, tx, tx->max_slots))
		ena_tx_kick(qp);
	return NETDEV_TX_OK;

dma_err:
	ena_tx_unmap(dev, b);
	ena_tx_drop(qp, skb, true);
	goto kick;
drop:
	ena_tx_drop(qp, skb, false);
kick:
	/*
	 * Packets before this one may have been posted without a doorbell,
	 * expecting it with this one: the last of a batch rings it even
	 * when it is dropped.
	 */
	if (!netdev_xmit_more() && ena_rt_qp_up(qp))
		ena_tx_kick(qp);
	return NETDEV_TX_OK;
}

/*
 * @dma, @len bytes in a page of @qp's pool (the frame came from its RX
 * ring, mapped both ways), synced for the device.
 */
static dma_addr_t ena_pool_sync(struct ena_qp *qp, dma_addr_t dma, u32 len)
{
	dma_sync_single_for_device(&qp->adapter->pdev->dev, dma, len,
				   page_pool_get_dma_dir(qp->rx.pool));
	return dma;
}

/**
 * ena_tx_post_frame() - post one XDP frame on a queue pair's XDP TX ring
 * @qp: the queue pair; the caller holds its xdp_lock
 * @xdpf: the frame, owned by the ring once posted; a multi-buffer frame
 *	takes a descriptor per fragment after its first buffer
 * @pool_dma: DMA address of @xdpf->data in its page_pool page (XDP_TX from
 *	this queue's RX ring, every buffer mapped both ways by the pool), or
 *	DMA_MAPPING_ERROR to map the frame here (ndo_xdp_xmit)
 *
 * With LLQ the frame's first bytes go into the entry, as an skb's header
 * does.  The caller rings the doorbell.
 *
 * Return: 0, -ENOSPC when the ring is full, -EMSGSIZE when the frame has
 * more buffers than the device takes (counted as a full ring), -ENOMEM
 * when a mapping failed.
 */
int ena_tx_post_frame(struct ena_qp *qp, struct xdp_frame *xdpf,
		      dma_addr_t pool_dma)
{
	struct ena_txq *tx = &qp->xdp_tx;
	struct skb_shared_info *sinfo = xdp_get_shared_info_from_frame(xdpf);
	u32 nfrags = xdp_frame_has_frags(xdpf) ? sinfo->nr_frags : 0;
	enum ena_tx_map_kind kind = pool_dma == DMA_MAPPING_ERROR ?
				 ENA_MAP_SINGLE : ENA_MAP_POOL;
	struct ena_adapter *a = qp->adapter;
	struct device *dev = &a->pdev->dev;
	struct ena_tx_writer w = { .a = a, .tx = tx };
	u32 len = xdpf->len, push = 0, req_id, i, ndescs, slots;
	bool has_meta = ena_tx_meta_always(a, tx);
	struct ena_tx_desc meta = {};
	struct ena_tx_map *m;
	struct ena_tx_buf *b;

	if (tx->llq)
		push = ena_llq_push_len(a, len);
	ndescs = max_t(u32, (len > push) + nfrags, 1);
	if (ndescs > ENA_TX_MAX_BUFS ||
	    (a->max_tx_sgl && ndescs > a->max_tx_sgl))
		return -EMSGSIZE;
	slots = ena_tx_slots(a, tx, ndescs + has_meta);
	if (ena_tx_space(tx) < slots)
		return -ENOSPC;
	/* a frame of several entries must not pass the device's burst */
	if (tx->unkicked && ena_llq_burst_full(a, tx, slots))
		ena_xdp_kick(qp);
	req_id = tx->free_ids[tx->next_to_use & (tx->depth - 1)];
	b = &tx->bufs[req_id];
	/* the kind tells the completion how to give the frame back */
	b->map[0].kind = kind;
	b->nr_maps = 0;
	if (len > push) {
		m = &b->map[b->nr_maps];
		m->len = len - push;
		if (kind == ENA_MAP_SINGLE) {
			m->addr = dma_map_single(dev, xdpf->data + push, m->len,
						 DMA_TO_DEVICE);
			if (dma_mapping_error(dev, m->addr))
				return -ENOMEM;
		} else {
			m->addr = ena_pool_sync(qp, pool_dma + push, m->len);
		}
		b->nr_maps++;
	}
	for (i = 0; i < nfrags; i++) {
		const skb_frag_t *f = &sinfo->frags[i];

		m = &b->map[b->nr_maps];
		m->len = skb_frag_size(f);
		m->kind = kind;
		if (kind == ENA_MAP_SINGLE) {
			m->addr = skb_frag_dma_map(dev, f, 0, m->len,
						   DMA_TO_DEVICE);
			if (dma_mapping_error(dev, m->addr)) {
				ena_tx_unmap(dev, b);
				return -ENOMEM;
			}
			m->kind = ENA_MAP_PAGE;
		} else {
			m->addr = ena_pool_sync(qp, page_pool_get_dma_addr(skb_frag_page(f)) +
						skb_frag_off(f), m->len);
		}
		b->nr_maps++;
	}
	ena_tx_begin(&w, xdpf->data, push);
	ena_tx_write(&w, b, req_id,
		     tx->llq ? push : min_t(u32, len, a->tx_max_header ? : 255),
		     0, has_meta ? &meta : NULL);
	b->sent = jiffies;
	b->missed = false;
	b->xdpf = xdpf;
	b->descs = slots;
	tx->unkicked += b->descs;
	tx->next_to_use++;
	return 0;
}

/*
 * The CQ head doorbell (where the device gives one) tells it how far the
 * driver has read.  Written, as the 6.1 in-tree driver does, only once more
 * than a quarter of the ring was read since the last write (6.12's reads
 * the doorbell's offset and never writes it; a completion
 * needs a posted descriptor, and a descriptor's slot is reused only after
 * its completion was read, so the device cannot overrun the ring): each
 * write is an MMIO exit under virtualisation, per poll two for a queue
 * pair passing traffic both ways.
 */
static void ena_cq_head_db(u32 __iomem *db, u32 head, u32 depth, u32 *told)
{
	if (db && head - *told > depth / 4) {
		writel(head & (depth - 1), db);
		*told = head;
	}
}

/* a buffer's packet is in flight: an skb, or a frame on an XDP TX ring */
static bool ena_tx_busy(const struct ena_tx_buf *b, bool xdp)
{
	return xdp ? !!b->xdpf : !!b->skb;
}

/* give a completed XDP frame back: to our own pool at once (XDP_TX) */
static void ena_xdp_frame_done(struct ena_tx_buf *b)
{
	if (b->map[0].kind == ENA_MAP_POOL)
		xdp_return_frame_rx_napi(b->xdpf);
	else
		xdp_return_frame(b->xdpf);
	b->xdpf = NULL;
}

/* TX completions one poll takes from a ring: a quarter of it, as in-tree */
static u32 ena_tx_budget(const struct ena_txq *tx)
{
	return tx->depth / 4;
}

/**
 * ena_clean_tx() - TX completions of one ring, at most ena_tx_budget()
 * @qp: queue pair
 * @tx: its TX ring, or its XDP TX ring (no netdev queue, no BQL)
 * @napi_budget: only passed on to napi_consume_skb() (0 under netpoll,
 *	which never gets here for XDP)
 *
 * Return: the completions taken, or -EIO when a malformed one stopped
 * processing.
 */
static int ena_clean_tx(struct ena_qp *qp, struct ena_txq *tx,
			int napi_budget)
{
	struct ena_adapter *a = qp->adapter;
	struct device *dev = &a->pdev->dev;
	u32 pkts = 0, bytes = 0, slots = 0, max = ena_tx_budget(tx);
	bool ok = true, xdp = tx != &qp->tx;

	while (pkts < max) {
		struct ena_tx_cdesc *c = &tx->cq[tx->cq_head & (tx->depth - 1)];
		struct ena_tx_buf *b;
		u16 req_id;

		if ((READ_ONCE(c->flags) & ENA_TXC_PHASE) != tx->cq_phase)
			break;
		dma_rmb();
		req_id = le16_to_cpu(c->req_id);
		if (unlikely(req_id >= tx->depth ||
			     !ena_tx_busy(&tx->bufs[req_id], xdp))) {
			netif_err(a, tx_err, a->netdev,
				  "queue %u: %sTX completion for req_id %u not in flight\n",
				  qp->qid, xdp ? "XDP " : "", req_id);
			ena_napi_stat_inc(qp, xdp ? &qp->stats->xdp_tx_bad_req_id :
					  &qp->stats->tx_bad_req_id);
			ena_reset_schedule(a, ENA_RESET_INV_TX_REQ_ID,
					   "invalid TX completion");
			ok = false;
			break;
		}
		tx->cq_head++;
		if (!(tx->cq_head & (tx->depth - 1)))
			tx->cq_phase ^= 1;

		b = &tx->bufs[req_id];
		ena_tx_unmap(dev, b);
		if (xdp) {
			bytes += xdp_get_frame_len(b->xdpf);
			ena_xdp_frame_done(b);
		} else {
			bytes += b->skb->len;
			napi_consume_skb(b->skb, napi_budget);
			b->skb = NULL;
		}
		slots += b->descs;
		tx->free_ids[tx->next_to_clean & (tx->depth - 1)] = req_id;
		tx->next_to_clean++;
		pkts++;
	}
	if (!pkts)
		return ok ? 0 : -EIO;

	/* slots are free only once the buffers above are released */
	smp_store_release(&tx->sq_head, tx->sq_head + slots);
	ena_cq_head_db(tx->cq_db, tx->cq_head, tx->depth, &tx->cq_head_told);

	u64_stats_update_begin(&qp->stats->napi_sync);
	if (xdp) {
		qp->stats->xdp_tx_packets += pkts;
		qp->stats->xdp_tx_bytes += bytes;
	} else {
		qp->stats->tx_packets += pkts;
		qp->stats->tx_bytes += bytes;
	}
	u64_stats_update_end(&qp->stats->napi_sync);
	if (xdp)
		return ok ? pkts : -EIO;

	/*
	 * BQL learns of the completions, then the queue is woken if xmit
	 * stopped it and the largest packet fits again; the core's helper
	 * orders the freed slots against xmit's stop.  A queue being stopped
	 * by ena_qp_stop() is left alone (its NAPI is disabled before the
	 * final stop, so this cannot undo it).
	 */
	if (!__netif_txq_completed_wake(tx->ndq, pkts, bytes, ena_tx_space(tx),
					tx->max_slots, !ena_rt_qp_up(qp)))
		ena_napi_stat_inc(qp, &qp->stats->tx_wakeups);
	return ok ? pkts : -EIO;
}

/*
 * One RX buffer.  debugfs inject_rx_alloc_fail makes the next allocations
 * fail, for the selftest of the starved-ring recovery (a test hook: NAPIs
 * of several queues may race on the count and fail one more or less).
 */
static struct page *ena_rx_page(struct ena_qp *qp, unsigned int *off, gfp_t gfp)
{
	struct ena_adapter *a = qp->adapter;
	u32 inject = READ_ONCE(a->inject_rx_alloc_fail);

	if (unlikely(inject)) {
		WRITE_ONCE(a->inject_rx_alloc_fail, inject - 1);
		return NULL;
	}
	/*
	 * XDP's layout: a whole page, no fragment bookkeeping, where every
	 * pool can split pages (6.6 and later).  Before that, a pool made
	 * with PP_FLAG_PAGE_FRAG counts fragments on every put, so its pages
	 * must come through the fragment API, which sets the count.
	 */
	if (qp->rx.frag_size == PAGE_SIZE && !ENA_PP_FLAG_FRAG) {
		*off = 0;
		return page_pool_alloc_pages(qp->rx.pool, gfp | __GFP_NOWARN);
	}
	return page_pool_alloc_frag(qp->rx.pool, off, qp->rx.frag_size,
				    gfp | __GFP_NOWARN);
}

/**
 * ena_rx_refill() - post up to @n buffers to the RX SQ
 * @qp: queue pair
 * @n: buffers wanted; limited by free ids
 * @gfp: allocation context
 *
 * Return: buffers posted.
 */
int ena_rx_refill(struct ena_qp *qp, u32 n, gfp_t gfp)
{
	struct ena_rxq *rx = &qp->rx;
	u32 mask = rx->depth - 1, done = 0;

	n = min(n, rx->next_to_clean - rx->next_to_use);
	while (done < n) {
		struct ena_rx_desc *d;
		unsigned int off;
		struct page *page;
		dma_addr_t dma;
		u16 id;

		page = ena_rx_page(qp, &off, gfp);
		if (unlikely(!page)) {
			ena_napi_stat_inc(qp, &qp->stats->rx_alloc_fail);
			break;
		}
		dma = page_pool_get_dma_addr(page) + off + rx->headroom;
		id = rx->free_ids[rx->next_to_use & mask];
		rx->next_to_use++;
		rx->bufs[id].page = page;
		rx->bufs[id].dma = dma;
		rx->bufs[id].offset = off;

		d = &rx->descs[rx->sq_tail & mask];
		d->len = cpu_to_le16(rx->buf_len);
		d->ctrl = ENA_RXD_FIRST | ENA_RXD_LAST | ENA_RXD_COMP_REQ |
			  FIELD_PREP(ENA_RXD_PHASE, rx->sq_phase);
		d->req_id = cpu_to_le16(id);
		d->addr_lo = cpu_to_le32(lower_32_bits(dma));
		d->addr_hi = cpu_to_le16(upper_32_bits(dma) & 0xffff);
		rx->sq_tail++;
		if (!(rx->sq_tail & mask))
			rx->sq_phase ^= 1;
		done++;
	}
	if (done) {
		u64_stats_update_begin(&qp->stats->napi_sync);
		qp->stats->page_allocs += done;
		u64_stats_update_end(&qp->stats->napi_sync);
		/* writel() orders the descriptors before the doorbell */
		writel(rx->sq_tail & 0xffff, rx->db);
	}
	return done;
}

/**
 * ena_rx_xdp_frag() - a buffer after the first of a multi-buffer XDP frame
 * @qp: queue pair, in its NAPI, its RX ring's frame open
 * @prog: the program this poll runs
 * @page: the buffer's page, the ring's no more
 * @off: where its bytes start in @page
 * @len: their length
 * @status: its completion's status
 * @xdp_done: ena_xdp_run()'s gathering for ena_xdp_finish()
 * @pkts: frames done (consumed ones counted here)
 * @bytes: their bytes
 * @dropped: frames dropped for want of room
 * @xdp_bad: frames the program cannot take
 *
 * The last buffer closes the frame and runs the program on it.
 *
 * Return: the skb of a frame the program passed, or NULL when the frame is
 * still open or was consumed or dropped.
 */
static struct sk_buff *ena_rx_xdp_frag(struct ena_qp *qp,
				       struct bpf_prog *prog, struct page *page,
				       u32 off, u32 len, u32 status,
				       u32 *xdp_done, u32 *pkts, u32 *bytes,
				       u32 *dropped, u32 *xdp_bad)
{
	struct ena_rxq *rx = &qp->rx;
	struct sk_buff *skb;
	u32 flen;

	if (unlikely(!ena_xdp_frag_add(rx, page, off, len))) {
		page_pool_put_full_page(rx->pool, page, true);
		ena_xdp_buff_put(qp, &rx->xbuf, true);
		rx->xbuf_open = false;
		rx->drop_rest = !(status & ENA_RXC_LAST);
		(*dropped)++;
		return NULL;
	}
	if (!(status & ENA_RXC_LAST))
		return NULL;
	rx->xbuf_open = false;
	/* a program replaced by one that takes one buffer only */
	if (unlikely(!prog || !ena_prog_takes_frags(prog))) {
		ena_xdp_buff_put(qp, &rx->xbuf, true);
		(*xdp_bad)++;
		return NULL;
	}
	flen = xdp_get_buff_len(&rx->xbuf);
	if (ena_xdp_run(qp, prog, &rx->xbuf, xdp_done) != XDP_PASS) {
		(*pkts)++;
		*bytes += flen;
		return NULL;
	}
	skb = ena_xdp_build_skb(&rx->xbuf);
	if (unlikely(!skb)) {
		ena_xdp_buff_put(qp, &rx->xbuf, true);
		(*dropped)++;
	}
	return skb;
}

/**
 * ena_rx_fill_step() - one poll's share of filling the ring after a start
 * @qp: queue pair, in its NAPI
 * @used: buffers this poll took from the ring (given back first)
 *
 * While the fill is pending, the poll keeps NAPI scheduled (ena_napi_poll()),
 * so the fill goes on poll after poll in softirq context; under traffic
 * each poll also replaces what it took, so the ring still grows.  It ends
 * when the ring is full, or at a failed allocation (no memory reserves are
 * dipped into for it): then the usual refill and the watchdog's
 * starvation check take over.
 */
static void ena_rx_fill_step(struct ena_qp *qp, u32 used)
{
	struct ena_rxq *rx = &qp->rx;
	u32 want = min_t(u32, rx->next_to_clean - rx->next_to_use,
			 ENA_RX_FILL_STEP + used);
	u32 done = ena_rx_refill(qp, want, GFP_ATOMIC | __GFP_NOMEMALLOC);

	u64_stats_update_begin(&qp->stats->napi_sync);
	qp->stats->rx_fill_deferred += done;
	u64_stats_update_end(&qp->stats->napi_sync);
	if (done < want || rx->next_to_use == rx->next_to_clean)
		rx->fill_pending = false;
}

enum ena_csum_verdict {
	ENA_CSUM_NONE,		/* not TCP/UDP, a fragment, or RXCSUM off */
	ENA_CSUM_GOOD,
	ENA_CSUM_BAD,		/* the stack verifies again; only counted */
	ENA_CSUM_UNCHECKED,	/* TCP/UDP the device did not check */
};

static enum ena_csum_verdict ena_rx_csum_hash(struct ena_adapter *a,
					      struct sk_buff *skb, u32 status,
					      u32 hash)
{
	enum ena_csum_verdict v;
	u32 l4 = FIELD_GET(ENA_RXC_L4_PROTO, status);
	u32 l3 = FIELD_GET(ENA_RXC_L3_PROTO, status);

	skb_checksum_none_assert(skb);
	/* on a checksum error the stack verifies again; we only count it */
	if (!(a->netdev->features & NETIF_F_RXCSUM))
		v = ENA_CSUM_NONE;
	else if (status & ENA_RXC_L3_CSUM_ERR)
		v = ENA_CSUM_BAD;
	else if ((l4 != ENA_L4_TCP && l4 != ENA_L4_UDP) ||
		 (status & ENA_RXC_IPV4_FRAG))
		v = ENA_CSUM_NONE;
	else if (status & ENA_RXC_L4_CSUM_ERR)
		v = ENA_CSUM_BAD;
	else if (status & ENA_RXC_L4_CSUM_CHECKED)
		v = ENA_CSUM_GOOD;
	else
		v = ENA_CSUM_UNCHECKED;
	if (v == ENA_CSUM_GOOD)
		skb->ip_summed = CHECKSUM_UNNECESSARY;
	if (a->netdev->features & NETIF_F_RXHASH) {
		enum pkt_hash_types t = PKT_HASH_TYPE_NONE;

		if (l4 == ENA_L4_TCP || l4 == ENA_L4_UDP)
			t = PKT_HASH_TYPE_L4;
		else if (l3 == ENA_L3_IPV4 || l3 == ENA_L3_IPV6)
			t = PKT_HASH_TYPE_L3;
		if (t != PKT_HASH_TYPE_NONE)
			skb_set_hash(skb, hash, t);
	}
	return v;
}

/*
 * RX completions, each frame through the XDP program first if one is
 * attached (@xdp_done collects what ena_xdp_finish() must do after).
 * Return: frames taken (delivered or consumed by XDP), or -EIO after a
 * malformed completion.
 */
static int ena_clean_rx(struct ena_qp *qp, int budget, u32 *xdp_done)
{
	struct ena_adapter *a = qp->adapter;
	struct ena_rxq *rx = &qp->rx;
	struct device *dev = &a->pdev->dev;
	struct bpf_prog *prog = READ_ONCE(qp->xdp_prog);
	enum dma_data_direction dir = page_pool_get_dma_dir(rx->pool);
	u32 mask = rx->depth - 1, pkts = 0, bytes = 0, good = 0, bad = 0;
	u32 handed = 0, dropped = 0, unchecked = 0, skb_fail = 0, bad_descs = 0;
	u32 copybreak = READ_ONCE(a->rx_copybreak), copied = 0, xdp_bad = 0;
	int rc = 0;

	while (pkts < budget) {
		struct ena_rx_cdesc *c = &rx->cq[rx->cq_head & mask];
		u32 status = le32_to_cpu(READ_ONCE(c->status));
		struct sk_buff *skb = rx->skb;
		u32 len, off, boff;
		struct page *page;
		dma_addr_t dma;
		u16 id;

		if (FIELD_GET(ENA_RXC_PHASE, status) != rx->cq_phase)
			break;
		dma_rmb();
		status = le32_to_cpu(c->status);
		id = le16_to_cpu(c->req_id);
		len = le16_to_cpu(c->len);
		off = c->offset;
		if (unlikely(id >= rx->depth || !rx->bufs[id].page)) {
			netif_err(a, rx_err, a->netdev,
				  "queue %u: RX completion for req_id %u not in flight\n",
				  qp->qid, id);
			ena_napi_stat_inc(qp, &qp->stats->rx_bad_req_id);
			ena_reset_schedule(a, ENA_RESET_INV_RX_REQ_ID,
					   "invalid RX completion");
			rc = -EIO;
			break;
		}
		if (unlikely(!len || off + len > rx->buf_len)) {
			netif_err(a, rx_err, a->netdev,
				  "queue %u: RX completion length %u offset %u impossible\n",
				  qp->qid, len, off);
			ena_napi_stat_inc(qp, &qp->stats->rx_bad_len);
			ena_reset_schedule(a, ENA_RESET_TOO_MANY_RX_DESCS,
					   "malformed RX completion");
			rc = -EIO;
			break;
		}
		rx->cq_head++;
		if (!(rx->cq_head & mask))
			rx->cq_phase ^= 1;

		page = rx->bufs[id].page;
		dma = rx->bufs[id].dma;
		boff = rx->bufs[id].offset;
		rx->bufs[id].page = NULL;
		rx->free_ids[rx->next_to_clean & mask] = id;
		rx->next_to_clean++;
		handed++;
		dma_sync_single_for_cpu(dev, dma + off, len, dir);

		if (rx->xbuf_open) {
			/* the next buffer of a multi-buffer XDP frame */
			if (unlikely(status & ENA_RXC_FIRST)) {
				/* the device began another: this one is lost */
				ena_xdp_buff_put(qp, &rx->xbuf, true);
				rx->xbuf_open = false;
				dropped++;
			} else {
				skb = ena_rx_xdp_frag(qp, prog, page,
						      boff + rx->headroom + off,
						      len, status, xdp_done,
						      &pkts, &bytes, &dropped,
						      &xdp_bad);
				if (!skb)
					continue;
				goto deliver;
			}
		}
		if (status & ENA_RXC_FIRST) {
			if (unlikely(skb)) {
				dev_kfree_skb_any(skb);
				dropped++;
			}
			skb = NULL;
			rx->skb = NULL;
			rx->drop_rest = false;
		}
		if (rx->drop_rest || (!skb && !(status & ENA_RXC_FIRST))) {
			page_pool_put_full_page(rx->pool, page, true);
			rx->drop_rest = !(status & ENA_RXC_LAST);
			continue;
		}
		if (!skb) {
			void *va = page_address(page) + boff;
			u32 doff = rx->headroom + off;
			bool copy;

			if (prog) {
				struct xdp_buff xdp;

				if (!(status & ENA_RXC_LAST) &&
				    !ena_prog_takes_frags(prog)) {
					/* the program takes one buffer only */
					page_pool_put_full_page(rx->pool, page,
								true);
					xdp_bad++;
					rx->drop_rest = true;
					continue;
				}
				if (!(status & ENA_RXC_LAST)) {
					/*
					 * Gathered over the next completions.
					 * The first buffer is the linear part
					 * and must hold the Ethernet header
					 * (eth_type_trans() on an XDP_PASS):
					 * a device that splits it is wrong.
					 */
					if (unlikely(len < ETH_HLEN)) {
						page_pool_put_full_page(rx->pool,
									page,
									true);
						dropped++;
						rx->drop_rest = true;
						continue;
					}
					xdp_init_buff(&rx->xbuf, rx->frag_size,
						      &qp->xdp_rxq);
					xdp_prepare_buff(&rx->xbuf, va, doff,
							 len, false);
					rx->xbuf_open = true;
					continue;
				}
				xdp_init_buff(&xdp, rx->frag_size,
					      &qp->xdp_rxq);
				xdp_prepare_buff(&xdp, va, doff, len, false);
				if (ena_xdp_run(qp, prog, &xdp, xdp_done) !=
				    XDP_PASS) {
					pkts++;
					bytes += len;
					continue;
				}
				/* the program may have moved the frame */
				doff = xdp.data - va;
				len = xdp.data_end - xdp.data;
			}
			copy = !prog && len <= copybreak &&
			       (status & ENA_RXC_LAST);

			/*
			 * eth_type_trans() needs the Ethernet header in the
			 * first buffer: a device that splits it is wrong, and
			 * the packet is dropped like one with no skb.
			 */
			if (likely(len >= ETH_HLEN))
				skb = copy ? napi_alloc_skb(&qp->napi, len) :
					     napi_build_skb(va, rx->frag_size);
			if (unlikely(!skb)) {
				if (len >= ETH_HLEN)
					skb_fail++;
				page_pool_put_full_page(rx->pool, page, true);
				dropped++;
				rx->drop_rest = !(status & ENA_RXC_LAST);
				continue;
			}
			if (copy) {
				/* the buffer goes back to the pool at once */
				skb_put_data(skb, va + doff, len);
				page_pool_put_full_page(rx->pool, page, true);
				copied++;
			} else {
				skb_mark_for_recycle(skb);
				ena_pp_skb_page(rx->pool, page);
				skb_reserve(skb, doff);
				__skb_put(skb, len);
			}
		} else if (skb_shinfo(skb)->nr_frags < MAX_SKB_FRAGS) {
			skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, page,
					boff + rx->headroom + off, len,
					rx->frag_size);
			ena_pp_skb_page(rx->pool, page);
		} else {
			page_pool_put_full_page(rx->pool, page, true);
			dev_kfree_skb_any(skb);
			rx->skb = NULL;
			dropped++;
			bad_descs++;
			rx->drop_rest = !(status & ENA_RXC_LAST);
			continue;
		}
		if (!(status & ENA_RXC_LAST)) {
			rx->skb = skb;
			continue;
		}
		rx->skb = NULL;
deliver:
		skb->protocol = eth_type_trans(skb, a->netdev);
		switch (ena_rx_csum_hash(a, skb, status, le32_to_cpu(c->hash))) {
		case ENA_CSUM_GOOD:
			good++;
			break;
		case ENA_CSUM_BAD:
			bad++;
			break;
		case ENA_CSUM_UNCHECKED:
			unchecked++;
			break;
		default:
			break;
		}
		skb_record_rx_queue(skb, qp->qid);
		bytes += skb->len;
		pkts++;
		napi_gro_receive(&qp->napi, skb);
	}

	if (handed)
		ena_cq_head_db(rx->cq_db, rx->cq_head, rx->depth,
			       &rx->cq_head_told);
	u64_stats_update_begin(&qp->stats->napi_sync);
	qp->stats->rx_packets += pkts;
	qp->stats->rx_bytes += bytes;
	qp->stats->rx_csum_good += good;
	qp->stats->rx_csum_bad += bad;
	qp->stats->rx_csum_unchecked += unchecked;
	qp->stats->rx_skb_alloc_fail += skb_fail;
	qp->stats->rx_bad_desc_num += bad_descs;
	qp->stats->rx_copybreak += copied;
	qp->stats->rx_dropped += dropped;
	qp->stats->xdp_invalid += xdp_bad;
	qp->stats->page_frees += handed;
	u64_stats_update_end(&qp->stats->napi_sync);

	if (rc)
		return rc;
	if (unlikely(rx->fill_pending))
		ena_rx_fill_step(qp, handed);
	else if (rx->next_to_clean - rx->next_to_use >=
		 min_t(u32, rx->depth / ENA_RX_REFILL_DIV, ENA_RX_REFILL_MAX))
		ena_rx_refill(qp, rx->depth, GFP_ATOMIC);
	return pkts;
}

/**
 * ena_napi_poll() - NAPI handler of one queue pair: TX completions (and the
 * XDP TX ring's), then RX
 * @napi: the queue pair's NAPI
 * @budget: RX packet budget
 *
 * Return: work done; below @budget once the interrupt is unmasked again.
 */
int ena_napi_poll(struct napi_struct *napi, int budget)
{
	struct ena_qp *qp = container_of(napi, struct ena_qp, napi);
	int rx = 0, tx, xtx = 0;
	u32 xdp_done = 0;
	bool unmask;

	/*
	 * A device found broken stays untouched until the reset work tears
	 * the queues down: a second poll (a spurious interrupt, netpoll)
	 * would read the same bad completion again.
	 */
	if (unlikely(test_bit(ENA_F_DEV_DEAD, &qp->adapter->flags))) {
		if (budget)
			napi_complete_done(napi, 0);
		return 0;
	}
	tx = ena_clean_tx(qp, &qp->tx, budget);
	/* no XDP work under netpoll (budget 0) */
	if (budget) {
		if (qp->xdp_tx.depth)
			xtx = ena_clean_tx(qp, &qp->xdp_tx, budget);
		rx = ena_clean_rx(qp, budget, &xdp_done);
		if (rx > 0)
			qp->dim_pkts += rx;
		if (xdp_done)
			ena_xdp_finish(qp, xdp_done);
	}

	u64_stats_update_begin(&qp->stats->napi_sync);
	qp->stats->napi_polls++;
	u64_stats_update_end(&qp->stats->napi_sync);

	if (unlikely(tx < 0 || xtx < 0 || rx < 0)) {
		/* the reset work stops this queue; leave the vector masked */
		if (budget)
			napi_complete_done(napi, 0);
		return 0;
	}
	/*
	 * A full budget of RX or of either TX ring, or a start's fill still
	 * going on: poll again.  TX completions that came after this poll's
	 * pass are not a reason (the in-tree rule): under a steady flood
	 * there always are some, and polling on for them would keep the CPU
	 * in softirq and take DIM's samples away; the unmask has the device
	 * raise them after the TX delay instead.
	 */
	if (rx >= budget || qp->rx.fill_pending ||
	    tx >= ena_tx_budget(&qp->tx) ||
	    (qp->xdp_tx.depth && xtx >= ena_tx_budget(&qp->xdp_tx)))
		return budget;
	unmask = napi_complete_done(napi, rx);
	if (unmask) {
		if (qp->adapter->intr_delay_res &&
		    READ_ONCE(qp->adapter->adaptive_rx))
			ena_dim_sample(qp);
		ena_unmask_irq(qp);
	}
	u64_stats_update_begin(&qp->stats->napi_sync);
	qp->stats->napi_completes++;
	qp->stats->unmasks += unmask;
	u64_stats_update_end(&qp->stats->napi_sync);
	return rx;
}

/**
 * ena_tx_drain() - give back what is still in flight on a stopped TX ring
 * @qp: queue pair
 * @tx: its TX ring (skbs) or its XDP TX ring (frames; NAPI is disabled, so
 *	none goes straight back to a pool's lockless cache)
 */
void ena_tx_drain(struct ena_qp *qp, struct ena_txq *tx)
{
	struct device *dev = &qp->adapter->pdev->dev;
	bool xdp = tx != &qp->tx;
	u32 i;

	for (i = 0; i < tx->depth; i++) {
		struct ena_tx_buf *b = &tx->bufs[i];

		if (!ena_tx_busy(b, xdp))
			continue;
		ena_tx_unmap(dev, b);
		if (xdp) {
			xdp_return_frame(b->xdpf);
			b->xdpf = NULL;
		} else {
			dev_kfree_skb_any(b->skb);
			b->skb = NULL;
		}
	}
}

/**
 * ena_rx_drain() - give the pages posted on a stopped RX ring back
 * @qp: queue pair
 *
 * The pages go back to the pool in batches, one lock of the pool's ring
 * per batch rather than per page.
 */
void ena_rx_drain(struct ena_qp *qp)
{
	struct ena_rxq *rx = &qp->rx;
	ena_pp_bulk_t batch[ENA_RX_DRAIN_BATCH];
	u32 i, n = 0, b = 0;

	if (rx->skb) {
		dev_kfree_skb_any(rx->skb);
		rx->skb = NULL;
	}
	if (rx->xbuf_open) {
		ena_xdp_buff_put(qp, &rx->xbuf, false);
		rx->xbuf_open = false;
	}
	rx->drop_rest = false;
	for (i = 0; i < rx->depth; i++) {
		if (!rx->bufs[i].page)
			continue;
		batch[b++] = ena_pp_bulk_entry(rx->bufs[i].page,
					       rx->bufs[i].offset);
		rx->bufs[i].page = NULL;
		n++;
		if (b == ARRAY_SIZE(batch)) {
			ena_pp_put_bulk(rx->pool, batch, b);
			b = 0;
		}
	}
	if (b)
		ena_pp_put_bulk(rx->pool, batch, b);
	u64_stats_update_begin(&qp->stats->napi_sync);
	qp->stats->page_frees += n;
	u64_stats_update_end(&qp->stats->napi_sync);
}
