// SPDX-License-Identifier: GPL-2.0
/*
 * The counter catalogue: one walk over every counter, used for the
 * ethtool -S strings and values and for debugfs, so names never drift.
 */
#include <linux/ethtool.h>

#include "ena.h"
#include "ena_compat.h"

struct ena_qsnap {
	u64 tx_packets, tx_bytes, tx_completions, tx_stops, tx_dropped;
	u64 tx_dma_err, tx_doorbells, rx_packets, rx_bytes, rx_csum_good;
	u64 rx_csum_bad, rx_alloc_fail, rx_dropped, napi_polls, page_allocs;
	u64 page_frees, ring_bytes, dma_allocs, dma_frees, starts, stops;
};

static void ena_qsnap(const struct ena_queue_stats *st, struct ena_qsnap *s)
{
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&st->napi_sync);
		s->tx_packets = st->tx_packets;
		s->tx_bytes = st->tx_bytes;
		s->tx_completions = st->tx_completions;
		s->rx_packets = st->rx_packets;
		s->rx_bytes = st->rx_bytes;
		s->rx_csum_good = st->rx_csum_good;
		s->rx_csum_bad = st->rx_csum_bad;
		s->rx_alloc_fail = st->rx_alloc_fail;
		s->rx_dropped = st->rx_dropped;
		s->napi_polls = st->napi_polls;
		s->page_allocs = st->page_allocs;
		s->page_frees = st->page_frees;
	} while (u64_stats_fetch_retry(&st->napi_sync, start));
	do {
		start = u64_stats_fetch_begin(&st->xmit_sync);
		s->tx_stops = st->tx_stops;
		s->tx_dropped = st->tx_dropped;
		s->tx_dma_err = st->tx_dma_err;
		s->tx_doorbells = st->tx_doorbells;
	} while (u64_stats_fetch_retry(&st->xmit_sync, start));
	s->ring_bytes = READ_ONCE(st->ring_bytes);
	s->dma_allocs = READ_ONCE(st->dma_allocs);
	s->dma_frees = READ_ONCE(st->dma_frees);
	s->starts = READ_ONCE(st->starts);
	s->stops = READ_ONCE(st->stops);
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
 * Global counters first, then the totals over queues (with page_pool's
 * counters where the kernel keeps them), then each queue index below
 * max_queues (stopped queues keep their history).  Callers hold RTNL.
 */
void ena_stats_walk(struct ena_adapter *a, ena_stat_emit_t emit, void *ctx)
{
	struct ena_qsnap s, tot = {};
	char name[64];	/* names stay below ETH_GSTRING_LEN; room for gcc */
	u32 q;

	ena_emit_wait(&a->poll.stats[ENA_WAIT_ADMIN], "admin", "cmds", emit,
		      ctx);
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
	emit(ctx, "resets_failed", READ_ONCE(a->resets_failed));
	emit(ctx, "tx_timeouts", READ_ONCE(a->tx_timeouts));
	emit(ctx, "link_changes", READ_ONCE(a->link_changes));
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

#define ENA_QSTAT(field, label) do {					\
		snprintf(name, sizeof(name), "queue_%u_%s", q, label);	\
		emit(ctx, name, s.field);				\
	} while (0)
	for (q = 0; q < a->max_queues; q++) {
		ena_qsnap(&a->qstats[q], &s);
		ENA_QSTAT(tx_packets, "tx_packets");
		ENA_QSTAT(tx_bytes, "tx_bytes");
		ENA_QSTAT(tx_stops, "tx_stops");
		ENA_QSTAT(tx_dropped, "tx_dropped");
		ENA_QSTAT(tx_dma_err, "tx_dma_err");
		ENA_QSTAT(tx_doorbells, "tx_doorbells");
		ENA_QSTAT(rx_packets, "rx_packets");
		ENA_QSTAT(rx_bytes, "rx_bytes");
		ENA_QSTAT(rx_csum_good, "rx_csum_good");
		ENA_QSTAT(rx_csum_bad, "rx_csum_bad");
		ENA_QSTAT(rx_alloc_fail, "rx_alloc_fail");
		ENA_QSTAT(rx_dropped, "rx_dropped");
		ENA_QSTAT(napi_polls, "napi_polls");
		ENA_QSTAT(ring_bytes, "ring_bytes");
		ENA_QSTAT(dma_allocs, "dma_coherent_allocs");
		ENA_QSTAT(dma_frees, "dma_coherent_frees");
		ENA_QSTAT(page_allocs, "page_allocs");
		ENA_QSTAT(page_frees, "page_frees");
		ENA_QSTAT(starts, "starts");
		ENA_QSTAT(stops, "stops");
	}
#undef ENA_QSTAT
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
