// SPDX-License-Identifier: GPL-2.0
/*
 * The counter catalogue: one walk over every counter, used for the
 * ethtool -S strings and values and for debugfs, so names never drift.
 */
#include <linux/bitops.h>
#include <linux/dma-mapping.h>
#include <linux/ethtool.h>

#include "ena.h"
#include "ena_compat.h"

/* one queue's counters, read consistently */
struct ena_qsnap {
	u64 tx_packets, tx_bytes, tx_wakeups, tx_bad_req_id, rx_packets;
	u64 rx_bytes, rx_csum_good, rx_csum_bad, rx_csum_unchecked;
	u64 rx_alloc_fail, rx_skb_alloc_fail;
	u64 rx_bad_desc_num, rx_bad_req_id, rx_bad_len, rx_dropped, napi_polls;
	u64 rx_copybreak;
	u64 napi_completes, unmasks, page_allocs, page_frees, rx_fill_deferred;
	u64 tx_stops, tx_linearize, tx_linearize_failed, tx_llq_hdr_pull;
	u64 tx_dropped, tx_dma_err, tx_doorbells, tx_needs_csum, tx_prepare_err;
	u64 ring_bytes, dma_allocs, dma_frees, starts, stops, rx_empty_kicks;
	u64 tx_missed;
	u64 xdp_pass, xdp_drop, xdp_tx, xdp_redirect, xdp_aborted, xdp_invalid;
	u64 xdp_multibuf;
	u64 xdp_tx_packets, xdp_tx_bytes, xdp_tx_bad_req_id;
	u64 xdp_tx_doorbells, xdp_tx_full, xdp_tx_dma_err, xdp_xmit;
	u64 xdp_tx_prepare_err;
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
		s->rx_bad_len = st->rx_bad_len;
		s->rx_dropped = st->rx_dropped;
		s->rx_copybreak = st->rx_copybreak;
		s->napi_polls = st->napi_polls;
		s->napi_completes = st->napi_completes;
		s->unmasks = st->unmasks;
		s->page_allocs = st->page_allocs;
		s->page_frees = st->page_frees;
		s->rx_fill_deferred = st->rx_fill_deferred;
		s->xdp_pass = st->xdp_pass;
		s->xdp_drop = st->xdp_drop;
		s->xdp_tx = st->xdp_tx;
		s->xdp_redirect = st->xdp_redirect;
		s->xdp_aborted = st->xdp_aborted;
		s->xdp_invalid = st->xdp_invalid;
		s->xdp_multibuf = st->xdp_multibuf;
		s->xdp_tx_packets = st->xdp_tx_packets;
		s->xdp_tx_bytes = st->xdp_tx_bytes;
		s->xdp_tx_bad_req_id = st->xdp_tx_bad_req_id;
	} while (u64_stats_fetch_retry(&st->napi_sync, start));
	do {
		start = u64_stats_fetch_begin(&st->xdp_sync);
		s->xdp_tx_doorbells = st->xdp_tx_doorbells;
		s->xdp_tx_full = st->xdp_tx_full;
		s->xdp_tx_prepare_err = st->xdp_tx_prepare_err;
		s->xdp_tx_dma_err = st->xdp_tx_dma_err;
		s->xdp_xmit = st->xdp_xmit;
	} while (u64_stats_fetch_retry(&st->xdp_sync, start));
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
		s->tx_needs_csum = st->tx_needs_csum;
		s->tx_prepare_err = st->tx_prepare_err;
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
 * The in-tree driver's per-queue names (ethtool -S), with the same meaning,
 * but for the RX dma_mapping_err, which is not listed: page_pool maps the
 * RX pages, and a mapping it could not make is an allocation failure
 * (page_alloc_fail).  prepare_ctx_err counts packets whose descriptors could
 * not be written (the ring had no room although the queue was awake; XDP:
 * full, or more buffers than the device takes), as in-tree.
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
	ENA_QS("prepare_ctx_err", tx_prepare_err),
	ENA_QS("bad_req_id", tx_bad_req_id),
	ENA_QS("llq_buffer_copy", tx_llq_hdr_pull),
	ENA_QS("missed_tx", tx_missed),
	ENA_QS("unmask_interrupt", unmasks),
};

static const struct ena_qstat_desc ena_intree_rx[] = {
	ENA_QS("cnt", rx_packets),
	ENA_QS("bytes", rx_bytes),
	ENA_QS("rx_copybreak_pkt", rx_copybreak),
	ENA_QS("csum_good", rx_csum_good),
	/* a refill stops at its first failed allocation: one each */
	ENA_QS("refil_partial", rx_alloc_fail),
	ENA_QS("csum_bad", rx_csum_bad),
	ENA_QS("page_alloc_fail", rx_alloc_fail),
	ENA_QS("skb_alloc_fail", rx_skb_alloc_fail),
	ENA_QS("bad_desc_num", rx_bad_desc_num),
	ENA_QS("bad_req_id", rx_bad_req_id),
	ENA_QS("empty_rx_ring", rx_empty_kicks),
	ENA_QS("csum_unchecked", rx_csum_unchecked),
	ENA_QS("xdp_aborted", xdp_aborted),
	ENA_QS("xdp_drop", xdp_drop),
	ENA_QS("xdp_pass", xdp_pass),
	ENA_QS("xdp_tx", xdp_tx),
	ENA_QS("xdp_invalid", xdp_invalid),
	ENA_QS("xdp_redirect", xdp_redirect),
};

/*
 * The XDP TX ring of each queue, named as the in-tree driver names its
 * XDP TX queues ("queue_<channels + n>_xdp_tx_..."), while a program is
 * attached.  The ring is completed by its queue pair's NAPI, whose poll
 * and unmask counts these share.
 */
static const struct ena_qstat_desc ena_intree_xdp_tx[] = {
	ENA_QS("cnt", xdp_tx_packets),
	ENA_QS("bytes", xdp_tx_bytes),
	ENA_QS("queue_stop", never),
	ENA_QS("queue_wakeup", never),
	ENA_QS("dma_mapping_err", xdp_tx_dma_err),
	ENA_QS("linearize", never),
	ENA_QS("linearize_failed", never),
	ENA_QS("napi_comp", napi_completes),
	ENA_QS("tx_poll", napi_polls),
	ENA_QS("doorbells", xdp_tx_doorbells),
	ENA_QS("prepare_ctx_err", xdp_tx_prepare_err),
	ENA_QS("bad_req_id", xdp_tx_bad_req_id),
	ENA_QS("llq_buffer_copy", never),
	ENA_QS("missed_tx", never),
	ENA_QS("unmask_interrupt", unmasks),
};

/*
 * This driver's own per-queue counters, for every queue index (stopped
 * queues keep their history); no name starts with the in-tree "tx_",
 * "rx_" or "xdp_tx_", so none can collide.
 */
static const struct ena_qstat_desc ena_own_q[] = {
	ENA_QS("xmit_drops", tx_dropped),
	ENA_QS("xmit_csum_offload", tx_needs_csum),
	ENA_QS("recv_drops", rx_dropped),
	ENA_QS("recv_bad_len", rx_bad_len),
	ENA_QS("ring_bytes", ring_bytes),
	ENA_QS("dma_coherent_allocs", dma_allocs),
	ENA_QS("dma_coherent_frees", dma_frees),
	ENA_QS("page_allocs", page_allocs),
	ENA_QS("page_frees", page_frees),
	ENA_QS("rx_fill_deferred", rx_fill_deferred),
	ENA_QS("starts", starts),
	ENA_QS("stops", stops),
	ENA_QS("xdp_ring_full", xdp_tx_full),
	ENA_QS("xdp_xmit_frames", xdp_xmit),
	ENA_QS("xdp_multibuf", xdp_multibuf),
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
	snprintf(name, sizeof(name), "%s_spin_ns", kind);
	emit(ctx, name, READ_ONCE(w->spin_ns));
	snprintf(name, sizeof(name), "%s_spin_hits", kind);
	emit(ctx, name, READ_ONCE(w->spin_hits));
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

/* ---- device statistics: ENI allowances, customer metrics, ENA Express ---- */

/* by customer metric id; the first ENA_ENI_STATS name the ENI statistics */
static const char * const ena_metric_names[ENA_METRICS] = {
	[ENA_METRIC_BW_IN_EXCEEDED] = "bw_in_allowance_exceeded",
	[ENA_METRIC_BW_OUT_EXCEEDED] = "bw_out_allowance_exceeded",
	[ENA_METRIC_PPS_EXCEEDED] = "pps_allowance_exceeded",
	[ENA_METRIC_CONNTRACK_EXCEEDED] = "conntrack_allowance_exceeded",
	[ENA_METRIC_LINKLOCAL_EXCEEDED] = "linklocal_allowance_exceeded",
	[ENA_METRIC_CONNTRACK_AVAILABLE] = "conntrack_allowance_available",
};

/* GET_STATS SRD words, in the device's order */
static const char * const ena_srd_names[ENA_SRD_WORDS] = {
	"ena_srd_mode",
	"ena_srd_tx_pkts",
	"ena_srd_eligible_tx_pkts",
	"ena_srd_rx_pkts",
	"ena_srd_resource_utilization",
};

/* room for one value per metric id this driver asks for */
#define ENA_CM_BUF_LEN	(ENA_METRICS * sizeof(__le64))

static bool ena_has_cap(const struct ena_adapter *a, enum ena_capability c)
{
	return a->capabilities & BIT(c);
}

static u64 ena_u64_of(__le32 lo, __le32 hi)
{
	return ((u64)le32_to_cpu(hi) << 32) | le32_to_cpu(lo);
}

/*
 * A GET_STATS command.  No control flag is set, also when a buffer is
 * given: the in-tree driver sends none, and devices answer it so.
 */
static void ena_stats_cmd(struct ena_aq_cmd *cmd, enum ena_stats_type type,
			  u64 requested)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->hdr.opcode = ENA_OP_GET_STATS;
	cmd->get_stats.type = type;
	cmd->get_stats.requested_lo = cpu_to_le32(lower_32_bits(requested));
	cmd->get_stats.requested_hi = cpu_to_le32(upper_32_bits(requested));
}

/**
 * ena_dev_stats_init() - learn which device statistics ethtool -S lists
 * @a: adapter, with the capabilities of DEVICE_ATTRIBUTES just read
 *
 * Called by ena_device_init() (probe and every reset), under RTNL once
 * the netdev is registered.  With customer metrics, asks which ones the
 * device reports (GET_STATS with no buffer, where the in-tree driver asks
 * too) and allocates the buffer their values come back in; the buffer
 * stays until ena_dev_stats_free(), after the last device reset, so a
 * command the device answers late never writes to freed memory.  Not
 * fatal: on failure no customer metric is listed.
 */
void ena_dev_stats_init(struct ena_adapter *a)
{
	struct ena_acq_resp r;
	struct ena_aq_cmd cmd;
	int rc;

	a->cm_supported = 0;
	if (!ena_has_cap(a, ENA_CAP_CUSTOMER_METRICS))
		return;
	if (!a->cm_buf) {
		a->cm_buf = dma_alloc_coherent(&a->pdev->dev, ENA_CM_BUF_LEN,
					       &a->cm_buf_dma, GFP_KERNEL);
		if (!a->cm_buf)
			return;		/* the allocator has said why */
	}
	ena_stats_cmd(&cmd, ENA_STATS_CUSTOMER, ENA_METRICS_ALL);
	rc = ena_admin_exec(a, &cmd, &r);
	if (rc) {
		dev_warn(&a->pdev->dev,
			 "customer metrics not listed: GET_STATS failed: %d\n",
			 rc);
		return;
	}
	/* ids beyond what was asked (and named here) are not listed */
	a->cm_supported = ena_u64_of(r.stats.reported_lo,
				     r.stats.reported_hi) & ENA_METRICS_ALL;
}

void ena_dev_stats_free(struct ena_adapter *a)
{
	if (a->cm_buf)
		dma_free_coherent(&a->pdev->dev, ENA_CM_BUF_LEN, a->cm_buf,
				  a->cm_buf_dma);
	a->cm_buf = NULL;
}

static int ena_read_customer_metrics(struct ena_adapter *a)
{
	u64 want = a->cm_supported, got;
	struct ena_acq_resp r;
	struct ena_aq_cmd cmd;
	u32 i, k = 0;
	int rc;

	ena_stats_cmd(&cmd, ENA_STATS_CUSTOMER, want);
	cmd.get_stats.ctrl.len = cpu_to_le32(ENA_CM_BUF_LEN);
	ena_set_dma_addr(&cmd.get_stats.ctrl.addr, a->cm_buf_dma);
	rc = ena_admin_exec(a, &cmd, &r);
	if (rc)
		return rc;
	/*
	 * The values are packed in id order of the reported bitmap; one it
	 * was not asked for would shift them, and more than asked for would
	 * overrun the buffer.
	 */
	got = ena_u64_of(r.stats.reported_lo, r.stats.reported_hi);
	if (got & ~want) {
		dev_warn_ratelimited(&a->pdev->dev,
				     "customer metrics: reported 0x%llx, asked 0x%llx\n",
				     got, want);
		return -EIO;
	}
	/* ordered after the completion by ena_admin_exec()'s dma_rmb() */
	for (i = 0; i < ENA_METRICS; i++) {
		if (!(got & BIT_ULL(i)))
			continue;
		a->metric_val[i] = le64_to_cpu(a->cm_buf[k]);
		k++;
	}
	return 0;
}

/**
 * ena_read_stats64() - one GET_STATS whose answer is a row of u64 counters
 * @a: adapter
 * @type: ENA_STATS_ENI or ENA_STATS_SRD
 * @out: where the @n values go (kept as they were if the command fails)
 * @n: number of values (ENA_ENI_STATS or ENA_SRD_WORDS)
 *
 * Return: 0 or the command's negative errno.
 */
static int ena_read_stats64(struct ena_adapter *a, enum ena_stats_type type,
			    u64 *out, u32 n)
{
	struct ena_acq_resp r;
	struct ena_aq_cmd cmd;
	const __le32 *w;
	u32 i;
	int rc;

	ena_stats_cmd(&cmd, type, 0);
	rc = ena_admin_exec(a, &cmd, &r);
	if (rc)
		return rc;
	w = type == ENA_STATS_SRD ? r.stats.srd : r.stats.eni;
	for (i = 0; i < n; i++)
		out[i] = ena_u64_of(w[2 * i], w[2 * i + 1]);
	return 0;
}

/**
 * ena_dev_stats_refresh() - read the device statistics ethtool -S lists
 * @a: adapter
 *
 * Called under RTNL before the values are walked, as the in-tree driver
 * reads them on every ethtool -S: customer metrics if the device has
 * them, else the ENI statistics, and the ENA Express ones.  While the
 * admin queue is down, dead or a reset is pending, nothing is sent and
 * the last values stay; a failed read keeps them too.  Each command is
 * bounded by the device's admin timeout, and one that times out marks
 * the queue dead, so the next is refused at once.
 */
void ena_dev_stats_refresh(struct ena_adapter *a)
{
	int rc = 0;

	ASSERT_RTNL();
	if (!(a->capabilities & (BIT(ENA_CAP_ENI_STATS) |
				 BIT(ENA_CAP_SRD_INFO) |
				 BIT(ENA_CAP_CUSTOMER_METRICS))))
		return;
	if (!test_bit(ENA_F_ADMIN_READY, &a->flags) ||
	    test_bit(ENA_F_DEV_DEAD, &a->flags) ||
	    test_bit(ENA_F_RESET_PENDING, &a->flags)) {
		a->dev_stats_failed++;
		return;
	}
	if (ena_has_cap(a, ENA_CAP_CUSTOMER_METRICS)) {
		if (a->cm_supported && a->cm_buf)
			rc = ena_read_customer_metrics(a);
	} else if (ena_has_cap(a, ENA_CAP_ENI_STATS)) {
		rc = ena_read_stats64(a, ENA_STATS_ENI, a->metric_val,
				      ENA_ENI_STATS);
	}
	if (rc)
		a->dev_stats_failed++;
	if (ena_has_cap(a, ENA_CAP_SRD_INFO) &&
	    ena_read_stats64(a, ENA_STATS_SRD, a->srd_val, ENA_SRD_WORDS))
		a->dev_stats_failed++;
}

/* the in-tree driver's device statistics, where it lists them */
static void ena_emit_dev_stats(struct ena_adapter *a, ena_stat_emit_t emit,
			       void *ctx)
{
	u32 i;

	if (ena_has_cap(a, ENA_CAP_CUSTOMER_METRICS)) {
		for (i = 0; i < ENA_METRICS; i++)
			if (a->cm_supported & BIT_ULL(i))
				emit(ctx, ena_metric_names[i],
				     a->metric_val[i]);
	} else if (ena_has_cap(a, ENA_CAP_ENI_STATS)) {
		for (i = 0; i < ENA_ENI_STATS; i++)
			emit(ctx, ena_metric_names[i], a->metric_val[i]);
	}
	if (ena_has_cap(a, ENA_CAP_SRD_INFO))
		for (i = 0; i < ENA_SRD_WORDS; i++)
			emit(ctx, ena_srd_names[i], a->srd_val[i]);
}

/**
 * ena_stats_walk() - report every counter, in a fixed order
 * @a: adapter
 * @emit: called once per counter with its name and value
 * @ctx: passed to @emit
 *
 * First the in-tree driver's names, in its order and with its meaning
 * (global, the device statistics the device has, each configured queue,
 * the admin queue), so that
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
	emit(ctx, "suspend", READ_ONCE(a->suspends));
	emit(ctx, "resume", READ_ONCE(a->resumes));
	emit(ctx, "wd_expired", READ_ONCE(a->wd_expired));
	emit(ctx, "interface_up", READ_ONCE(a->interface_up));
	emit(ctx, "interface_down", READ_ONCE(a->interface_down));
	/* the admin queue stopped (timeout, malformed completion): reset */
	emit(ctx, "admin_q_pause", READ_ONCE(a->aq.paused));
	emit(ctx, "reset_fail", READ_ONCE(a->resets_failed));
	ena_emit_dev_stats(a, emit, ctx);
	for (q = 0; q < a->num_queues; q++) {
		ena_qsnap(&a->qstats[q], &s);
		ena_emit_qstats(ena_intree_tx, ARRAY_SIZE(ena_intree_tx), &s, q,
				"tx_", emit, ctx);
		ena_emit_qstats(ena_intree_rx, ARRAY_SIZE(ena_intree_rx), &s, q,
				"rx_", emit, ctx);
	}
	for (q = 0; ena_xdp_on(a) && q < a->num_queues; q++) {
		ena_qsnap(&a->qstats[q], &s);
		ena_emit_qstats(ena_intree_xdp_tx, ARRAY_SIZE(ena_intree_xdp_tx),
				&s, a->num_queues + q, "xdp_tx_", emit, ctx);
	}
	emit(ctx, "ena_admin_q_aborted_cmd", READ_ONCE(a->aq.refused));
	emit(ctx, "ena_admin_q_submitted_cmd", READ_ONCE(a->aq.submitted));
	emit(ctx, "ena_admin_q_completed_cmd", READ_ONCE(a->aq.completed));
	/* batches take turns: only one larger than the queue counts here */
	emit(ctx, "ena_admin_q_out_of_space", READ_ONCE(a->aq.out_of_space));
	emit(ctx, "ena_admin_q_no_completion", READ_ONCE(aw->timeouts));

	ena_emit_wait(aw, "admin", "cmds", emit, ctx);
	emit(ctx, "admin_cmds_polled", READ_ONCE(a->aq.polled_cmds));
	emit(ctx, "admin_cmds_irq", READ_ONCE(a->aq.irq_cmds));
	emit(ctx, "admin_irq_missed", READ_ONCE(a->aq.irq_missed));
	emit(ctx, "admin_errors", READ_ONCE(a->aq.errors));
	emit(ctx, "admin_malformed", READ_ONCE(a->aq.malformed));
	emit(ctx, "admin_bad_answers", READ_ONCE(a->dev_bad_answers));
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
	emit(ctx, "aenq_warnings",
	     READ_ONCE(a->aenq.events[ENA_AENQ_WARNING]));
	emit(ctx, "aenq_notifications",
	     READ_ONCE(a->aenq.events[ENA_AENQ_NOTIFICATION]));
	emit(ctx, "aenq_conf_notifications",
	     READ_ONCE(a->aenq.events[ENA_AENQ_CONF_NOTIFICATIONS]));
	emit(ctx, "aenq_refresh_caps",
	     READ_ONCE(a->aenq.events[ENA_AENQ_REFRESH_CAPS]));
	emit(ctx, "aenq_reset_requests",
	     READ_ONCE(a->aenq.events[ENA_AENQ_DEVICE_REQUEST_RESET]));
	emit(ctx, "dev_rx_drops", READ_ONCE(a->dev_rx_drops));
	emit(ctx, "dev_tx_drops", READ_ONCE(a->dev_tx_drops));
	emit(ctx, "dev_rx_overruns", READ_ONCE(a->dev_rx_overruns));
	emit(ctx, "dev_stats_failed", a->dev_stats_failed);

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
	/* every delivered packet has one verdict: good, bad or none */
	rx->csum_none = s->rx_packets - s->rx_csum_good - s->rx_csum_bad;
}

static void ena_qstat_tx(const struct ena_qsnap *s,
			 struct netdev_queue_stats_tx *tx)
{
	tx->packets = s->tx_packets;
	tx->bytes = s->tx_bytes;
	tx->stop = s->tx_stops;
	tx->wake = s->tx_wakeups;	/* by completions and in xmit */
	tx->needs_csum = s->tx_needs_csum;
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
	rx->csum_none = 0;
	tx->packets = 0;
	tx->bytes = 0;
	tx->stop = 0;
	tx->wake = 0;
	tx->needs_csum = 0;
	for (q = nd->real_num_rx_queues; q < a->max_queues; q++) {
		ena_qsnap(&a->qstats[q], &s);
		ena_qstat_rx(&s, &qrx);
		rx->packets += qrx.packets;
		rx->bytes += qrx.bytes;
		rx->alloc_fail += qrx.alloc_fail;
		rx->csum_unnecessary += qrx.csum_unnecessary;
		rx->csum_bad += qrx.csum_bad;
		rx->csum_none += qrx.csum_none;
	}
	for (q = nd->real_num_tx_queues; q < a->max_queues; q++) {
		ena_qsnap(&a->qstats[q], &s);
		ena_qstat_tx(&s, &qtx);
		tx->packets += qtx.packets;
		tx->bytes += qtx.bytes;
		tx->stop += qtx.stop;
		tx->wake += qtx.wake;
		tx->needs_csum += qtx.needs_csum;
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
