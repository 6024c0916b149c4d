// SPDX-License-Identifier: GPL-2.0
/*
 * The counter catalogue: one walk over every counter, used for the
 * ethtool -S strings and values and for debugfs, so names never drift.
 */
#include <linux/ethtool.h>

#include "ena.h"
#include "ena_compat.h"

/* one queue's counters, read consistently */
struct ena_qsnap {
	u64 tx_packets, tx_bytes, tx_wakeups, tx_bad_req_id, rx_packets;
	u64 rx_bytes, rx_csum_good, rx_csum_bad, rx_csum_unchecked;
	u64 rx_alloc_fail, rx_skb_alloc_fail;
	u64 rx_bad_desc_num, rx_bad_req_id, rx_dropped, napi_polls;
	u64 napi_completes, unmasks, page_allocs, page_frees;
	u64 tx_stops, tx_linearize, tx_linearize_failed, tx_llq_hdr_pull;
	u64 tx_dropped, tx_dma_err, tx_doorbells;
	u64 ring_bytes, dma_allocs, dma_frees, starts, stops, rx_empty_kicks;
	u64 tx_missed;
	u64 never;	/* stays 0: the event cannot happen in this driver */
};

static void ena_qsnap(const struct ena_queue_stats *st, struct ena_qsnap *s)
{
	unsigned int start;
	u64 restarts;

	memset(s, 0, sizeof(*s));
	do {
		start = u64_stats_fetch_begin(&st->napi_sync);
		s->tx_packets = st->tx_packets;
		s->tx_bytes = st->tx_bytes;
		s->tx_wakeups = st->tx_wakeups;
		s->tx_bad_req_id = st->tx_bad_req_id;
		s->rx_packets = st->rx_packets;
		s->rx_bytes = st->rx_bytes;
		s->rx_csum_good = st->rx_csum_good;
		s->rx_csum_bad = st->rx_csum_bad;
		s->rx_csum_unchecked = st->rx_csum_unchecked;
		s->rx_alloc_fail = st->rx_alloc_fail;
		s->rx_skb_alloc_fail = st->rx_skb_alloc_fail;
		s->rx_bad_desc_num = st->rx_bad_desc_num;
		s->rx_bad_req_id = st->rx_bad_req_id;
		s->rx_dropped = st->rx_dropped;
		s->napi_polls = st->napi_polls;
		s->napi_completes = st->napi_completes;
		s->unmasks = st->unmasks;
		s->page_allocs = st->page_allocs;
		s->page_frees = st->page_frees;
	} while (u64_stats_fetch_retry(&st->napi_sync, start));
	do {
		start = u64_stats_fetch_begin(&st->xmit_sync);
		s->tx_stops = st->tx_stops;
		restarts = st->tx_restarts;
		s->tx_linearize = st->tx_linearize;
		s->tx_linearize_failed = st->tx_linearize_failed;
		s->tx_llq_hdr_pull = st->tx_llq_hdr_pull;
		s->tx_dropped = st->tx_dropped;
		s->tx_dma_err = st->tx_dma_err;
		s->tx_doorbells = st->tx_doorbells;
	} while (u64_stats_fetch_retry(&st->xmit_sync, start));
	/* the in-tree queue_wakeup counts both kinds of wake */
	s->tx_wakeups += restarts;
	s->ring_bytes = READ_ONCE(st->ring_bytes);
	s->dma_allocs = READ_ONCE(st->dma_allocs);
	s->dma_frees = READ_ONCE(st->dma_frees);
	s->starts = READ_ONCE(st->starts);
	s->stops = READ_ONCE(st->stops);
	s->rx_empty_kicks = READ_ONCE(st->rx_empty_kicks);
	s->tx_missed = READ_ONCE(st->tx_missed);
}

/* a per-queue counter: its name after "queue_<n>_<dir>_", its snapshot field */
struct ena_qstat_desc {
	const char *name;
	size_t off;
};

#define ENA_QS(n, f)	{ n, offsetof(struct ena_qsnap, f) }

/*
 * The in-tree driver's per-queue names (ethtool -S), with the same meaning.
 * Those mapped to "never" count events that cannot happen here: no XDP,
 * no copybreak, page_pool maps RX pages, no TX context descriptor step.
 * missed_tx counts each late packet once (in-tree: once per watchdog look).
 */
static const struct ena_qstat_desc ena_intree_tx[] = {
	ENA_QS("cnt", tx_packets),
	ENA_QS("bytes", tx_bytes),
	ENA_QS("queue_stop", tx_stops),
	ENA_QS("queue_wakeup", tx_wakeups),
	ENA_QS("dma_mapping_err", tx_dma_err),
	ENA_QS("linearize", tx_linearize),
	ENA_QS("linearize_failed", tx_linearize_failed),
	ENA_QS("napi_comp", napi_completes),
	ENA_QS("tx_poll", napi_polls),
	ENA_QS("doorbells", tx_doorbells),
	ENA_QS("prepare_ctx_err", never),
	ENA_QS("bad_req_id", tx_bad_req_id),
	ENA_QS("llq_buffer_copy", tx_llq_hdr_pull),
	ENA_QS("missed_tx", tx_missed),
	ENA_QS("unmask_interrupt", unmasks),
};

static const struct ena_qstat_desc ena_intree_rx[] = {
	ENA_QS("cnt", rx_packets),
	ENA_QS("bytes", rx_bytes),
	ENA_QS("rx_copybreak_pkt", never),
	ENA_QS("csum_good", rx_csum_good),
	/* a refill stops at its first failed allocation: one each */
	ENA_QS("refil_partial", rx_alloc_fail),
	ENA_QS("csum_bad", rx_csum_bad),
	ENA_QS("page_alloc_fail", rx_alloc_fail),
	ENA_QS("skb_alloc_fail", rx_skb_alloc_fail),
	ENA_QS("dma_mapping_err", never),
	ENA_QS("bad_desc_num", rx_bad_desc_num),
	ENA_QS("bad_req_id", rx_bad_req_id),
	ENA_QS("empty_rx_ring", rx_empty_kicks),
	ENA_QS("csum_unchecked", rx_csum_unchecked),
	ENA_QS("xdp_aborted", never),
	ENA_QS("xdp_drop", never),
	ENA_QS("xdp_pass", never),
	ENA_QS("xdp_tx", never),
	ENA_QS("xdp_invalid", never),
	ENA_QS("xdp_redirect", never),
};

/*
 * This driver's own per-queue counters, for every queue index (stopped
 * queues keep their history); no name starts with the in-tree "tx_",
 * "rx_" or "xdp_tx_", so none can collide.
 */
static const struct ena_qstat_desc ena_own_q[] = {
	ENA_QS("xmit_drops", tx_dropped),
	ENA_QS("recv_drops", rx_dropped),
	ENA_QS("ring_bytes", ring_bytes),
	ENA_QS("dma_coherent_allocs", dma_allocs),
	ENA_QS("dma_coherent_frees", dma_frees),
	ENA_QS("page_allocs", page_allocs),
	ENA_QS("page_frees", page_frees),
	ENA_QS("starts", starts),
	ENA_QS("stops", stops),
};

static void ena_emit_qstats(const struct ena_qstat_desc *d, size_t n,
			    const struct ena_qsnap *s, u32 q, const char *dir,
			    ena_stat_emit_t emit, void *ctx)
{
	char name[64];	/* names stay below ETH_GSTRING_LEN; room for gcc */
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "queue_%u_%s%s", q, dir,
			 d[i].name);
		emit(ctx, name, *(const u64 *)((const u8 *)s + d[i].off));
	}
}

static void ena_emit_wait(const struct ena_wait_stats *w, const char *kind,
			  const char *count_name, ena_stat_emit_t emit,
			  void *ctx)
{
	char name[64];	/* names stay below ETH_GSTRING_LEN; room for gcc */

	snprintf(name, sizeof(name), "%s_%s", kind, count_name);
	emit(ctx, name, READ_ONCE(w->waits));
	snprintf(name, sizeof(name), "%s_poll_wakeups", kind);
	emit(ctx, name, READ_ONCE(w->wakeups));
	snprintf(name, sizeof(name), "%s_wait_total_ns", kind);
	emit(ctx, name, READ_ONCE(w->total_ns));
	snprintf(name, sizeof(name), "%s_wait_max_ns", kind);
	emit(ctx, name, READ_ONCE(w->max_ns));
	snprintf(name, sizeof(name), "%s_timeouts", kind);
	emit(ctx, name, READ_ONCE(w->timeouts));
	snprintf(name, sizeof(name), "%s_sleep_asked_ns", kind);
	emit(ctx, name, READ_ONCE(w->sleep_asked_ns));
	snprintf(name, sizeof(name), "%s_sleep_ns", kind);
	emit(ctx, name, READ_ONCE(w->sleep_ns));
}

#ifdef CONFIG_PAGE_POOL_STATS
/*
 * page_pool's own counters (kernels built with CONFIG_PAGE_POOL_STATS),
 * summed over the pools of the queues allocated now: a pool and its
 * counters go away with its queue.  Callers hold RTNL, which keeps the
 * pools from changing under us.
 */
static void ena_emit_pp_stats(struct ena_adapter *a, ena_stat_emit_t emit,
			      void *ctx)
{
	struct page_pool_stats pp = {};
	u32 q;

	for (q = 0; q < a->max_queues; q++) {
		struct ena_qp *qp = &a->qps[q];

		if (test_bit(ENA_QP_ALLOCATED, &qp->state) && qp->rx.pool)
			page_pool_get_stats(qp->rx.pool, &pp);
	}
	emit(ctx, "pp_alloc_fast", pp.alloc_stats.fast);
	emit(ctx, "pp_alloc_slow", pp.alloc_stats.slow);
	emit(ctx, "pp_alloc_slow_high_order", pp.alloc_stats.slow_high_order);
	emit(ctx, "pp_alloc_empty", pp.alloc_stats.empty);
	emit(ctx, "pp_alloc_refill", pp.alloc_stats.refill);
	emit(ctx, "pp_alloc_waive", pp.alloc_stats.waive);
	emit(ctx, "pp_recycle_cached", pp.recycle_stats.cached);
	emit(ctx, "pp_recycle_cache_full", pp.recycle_stats.cache_full);
	emit(ctx, "pp_recycle_ring", pp.recycle_stats.ring);
	emit(ctx, "pp_recycle_ring_full", pp.recycle_stats.ring_full);
	emit(ctx, "pp_recycle_released_ref", pp.recycle_stats.released_refcnt);
}
#else
static void ena_emit_pp_stats(struct ena_adapter *a, ena_stat_emit_t emit,
			      void *ctx)
{
}
#endif

/**
 * ena_stats_walk() - report every counter, in a fixed order
 * @a: adapter
 * @emit: called once per counter with its name and value
 * @ctx: passed to @emit
 *
 * First the in-tree driver's names, in its order and with its meaning
 * (global, then each configured queue, then the admin queue), so that
 * scripts and monitoring agents written for it read the same counters;
 * then this driver's own: admin waits, memory, page_pool, and each queue
 * index below max_queues.  Callers hold RTNL (queue count and pools stay).
 */
void ena_stats_walk(struct ena_adapter *a, ena_stat_emit_t emit, void *ctx)
{
	const struct ena_wait_stats *aw = &a->poll.stats[ENA_WAIT_ADMIN];
	struct ena_qsnap s, tot = {};
	u32 q;

	emit(ctx, "tx_timeout", READ_ONCE(a->tx_timeouts));
	emit(ctx, "suspend", 0);	/* no power management yet */
	emit(ctx, "resume", 0);
	emit(ctx, "wd_expired", READ_ONCE(a->wd_expired));
	emit(ctx, "interface_up", READ_ONCE(a->interface_up));
	emit(ctx, "interface_down", READ_ONCE(a->interface_down));
	/* an admin queue that stops answering resets the device here */
	emit(ctx, "admin_q_pause", 0);
	emit(ctx, "reset_fail", READ_ONCE(a->resets_failed));
	for (q = 0; q < a->num_queues; q++) {
		ena_qsnap(&a->qstats[q], &s);
		ena_emit_qstats(ena_intree_tx, ARRAY_SIZE(ena_intree_tx), &s, q,
				"tx_", emit, ctx);
		ena_emit_qstats(ena_intree_rx, ARRAY_SIZE(ena_intree_rx), &s, q,
				"rx_", emit, ctx);
	}
	emit(ctx, "ena_admin_q_aborted_cmd", READ_ONCE(a->aq.refused));
	emit(ctx, "ena_admin_q_submitted_cmd", READ_ONCE(a->aq.submitted));
	emit(ctx, "ena_admin_q_completed_cmd", READ_ONCE(a->aq.completed));
	/* one command in flight at a time: the queue is never full */
	emit(ctx, "ena_admin_q_out_of_space", 0);
	emit(ctx, "ena_admin_q_no_completion", READ_ONCE(aw->timeouts));

	ena_emit_wait(aw, "admin", "cmds", emit, ctx);
	emit(ctx, "admin_cmds_polled", READ_ONCE(a->aq.polled_cmds));
	emit(ctx, "admin_cmds_irq", READ_ONCE(a->aq.irq_cmds));
	emit(ctx, "admin_errors", READ_ONCE(a->aq.errors));
	emit(ctx, "admin_malformed", READ_ONCE(a->aq.malformed));
	ena_emit_wait(&a->poll.stats[ENA_WAIT_RESET], "reset", "waits", emit,
		      ctx);
	ena_emit_wait(&a->poll.stats[ENA_WAIT_MMIO], "mmio", "reads", emit,
		      ctx);
	emit(ctx, "probe_us", a->probe_us);
	emit(ctx, "resets", READ_ONCE(a->resets));
	emit(ctx, "link_changes", READ_ONCE(a->link_changes));
	emit(ctx, "missed_interrupts", READ_ONCE(a->missed_intrs));
	emit(ctx, "keep_alive_events",
	     READ_ONCE(a->aenq.events[ENA_AENQ_KEEP_ALIVE]));
	emit(ctx, "dev_rx_drops", READ_ONCE(a->dev_rx_drops));
	emit(ctx, "dev_tx_drops", READ_ONCE(a->dev_tx_drops));
	emit(ctx, "dev_rx_overruns", READ_ONCE(a->dev_rx_overruns));

	for (q = 0; q < a->max_queues; q++) {
		ena_qsnap(&a->qstats[q], &s);
		tot.ring_bytes += s.ring_bytes;
		tot.dma_allocs += s.dma_allocs;
		tot.dma_frees += s.dma_frees;
		tot.page_allocs += s.page_allocs;
		tot.page_frees += s.page_frees;
	}
	emit(ctx, "ring_bytes", tot.ring_bytes);
	emit(ctx, "dma_coherent_allocs", tot.dma_allocs);
	emit(ctx, "dma_coherent_frees", tot.dma_frees);
	emit(ctx, "page_allocs", tot.page_allocs);
	emit(ctx, "page_frees", tot.page_frees);
	ena_emit_pp_stats(a, emit, ctx);

	for (q = 0; q < a->max_queues; q++) {
		ena_qsnap(&a->qstats[q], &s);
		ena_emit_qstats(ena_own_q, ARRAY_SIZE(ena_own_q), &s, q, "",
				emit, ctx);
	}
}

static void ena_count_one(void *ctx, const char *name, u64 val)
{
	(*(u32 *)ctx)++;
}

u32 ena_stats_count(struct ena_adapter *a)
{
	u32 n = 0;

	ena_stats_walk(a, ena_count_one, &n);
	return n;
}

#ifdef ENA_HAVE_STAT_OPS
/*
 * Per-queue statistics over netlink (netdev qstats-get), from the same
 * counters as ethtool -S and ndo_get_stats64.  The counters of a queue
 * index live as long as the adapter, so a queue beyond the real count
 * (closed by ethtool -L) keeps its history: the base stats report it,
 * and base plus the queues below the real count sum to the interface
 * totals.  The device's own drop counters (keep-alive events) are base
 * only.
 */
static void ena_qstat_rx(const struct ena_qsnap *s,
			 struct netdev_queue_stats_rx *rx)
{
	rx->packets = s->rx_packets;
	rx->bytes = s->rx_bytes;
	rx->alloc_fail = s->rx_alloc_fail;
	rx->csum_unnecessary = s->rx_csum_good;
	rx->csum_bad = s->rx_csum_bad;
}

static void ena_qstat_tx(const struct ena_qsnap *s,
			 struct netdev_queue_stats_tx *tx)
{
	tx->packets = s->tx_packets;
	tx->bytes = s->tx_bytes;
	tx->stop = s->tx_stops;
	tx->wake = s->tx_wakeups;	/* by completions and in xmit */
}

static void ena_get_queue_stats_rx(struct net_device *nd, int idx,
				   struct netdev_queue_stats_rx *rx)
{
	struct ena_adapter *a = netdev_priv(nd);
	struct ena_qsnap s;

	ena_qsnap(&a->qstats[idx], &s);
	ena_qstat_rx(&s, rx);
}

static void ena_get_queue_stats_tx(struct net_device *nd, int idx,
				   struct netdev_queue_stats_tx *tx)
{
	struct ena_adapter *a = netdev_priv(nd);
	struct ena_qsnap s;

	ena_qsnap(&a->qstats[idx], &s);
	ena_qstat_tx(&s, tx);
}

static void ena_get_base_stats(struct net_device *nd,
			       struct netdev_queue_stats_rx *rx,
			       struct netdev_queue_stats_tx *tx)
{
	struct ena_adapter *a = netdev_priv(nd);
	struct netdev_queue_stats_rx qrx;
	struct netdev_queue_stats_tx qtx;
	struct ena_qsnap s;
	u32 q;

	/*
	 * Exactly the fields the queues report (the others stay undefined:
	 * a base value, even 0, would claim a device total for them).
	 */
	rx->packets = 0;
	rx->bytes = 0;
	rx->alloc_fail = 0;
	rx->csum_unnecessary = 0;
	rx->csum_bad = 0;
	tx->packets = 0;
	tx->bytes = 0;
	tx->stop = 0;
	tx->wake = 0;
	for (q = nd->real_num_rx_queues; q < a->max_queues; q++) {
		ena_qsnap(&a->qstats[q], &s);
		ena_qstat_rx(&s, &qrx);
		rx->packets += qrx.packets;
		rx->bytes += qrx.bytes;
		rx->alloc_fail += qrx.alloc_fail;
		rx->csum_unnecessary += qrx.csum_unnecessary;
		rx->csum_bad += qrx.csum_bad;
	}
	for (q = nd->real_num_tx_queues; q < a->max_queues; q++) {
		ena_qsnap(&a->qstats[q], &s);
		ena_qstat_tx(&s, &qtx);
		tx->packets += qtx.packets;
		tx->bytes += qtx.bytes;
		tx->stop += qtx.stop;
		tx->wake += qtx.wake;
	}
	/* the device's own drop counters have no queue */
	rx->hw_drops = READ_ONCE(a->dev_rx_drops);
	rx->hw_drop_overruns = READ_ONCE(a->dev_rx_overruns);
	tx->hw_drops = READ_ONCE(a->dev_tx_drops);
}

static const struct netdev_stat_ops ena_stat_ops = {
	.get_queue_stats_rx	= ena_get_queue_stats_rx,
	.get_queue_stats_tx	= ena_get_queue_stats_tx,
	.get_base_stats		= ena_get_base_stats,
};
#endif

/**
 * ena_stat_ops_set() - per-queue statistics over netlink, where the kernel has them
 * @nd: our netdev, before registration
 */
void ena_stat_ops_set(struct net_device *nd)
{
#ifdef ENA_HAVE_STAT_OPS
	nd->stat_ops = &ena_stat_ops;
#endif
}
