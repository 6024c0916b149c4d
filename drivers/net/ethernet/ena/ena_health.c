// SPDX-License-Identifier: GPL-2.0
/*
 * Health: the once-a-second watchdog. It checks the device (keep-alive
 * events, a fatal DEV_STS, a failed reset to retry) and each running queue
 * (TX completions that never came, completions no interrupt announced, RX
 * rings starved of buffers), and asks ena_reset.c for a device reset when
 * one is due; it also refreshes the features in the host-info page the
 * device reads. Arming and disarming it is here too.
 */
#include <linux/bitfield.h>
#include <linux/jiffies.h>
#include <linux/rtnetlink.h>

#include "ena.h"

/* hint value meaning "no check" (keep-alive, missing TX completions) */
#define ENA_HINT_NO_TIMEOUT	0xffff
/*
 * A completion waiting while the queue's NAPI neither ran nor was
 * scheduled for this many watchdog periods: its interrupt was lost.
 */
#define ENA_MISSED_INTR_PERIODS	2

/*
 * Bounds of the device's hints (ms).  The device is not trusted: a
 * keep-alive timeout must leave room for a late event (they come every
 * second), a missing-TX timeout for a busy queue, and an admin timeout is
 * waited out with RTNL held.
 */
#define ENA_HINT_KEEP_ALIVE_MIN_MS	2000
#define ENA_HINT_MISSED_TX_MIN_MS	500
#define ENA_HINT_ADMIN_MIN_MS		100
#define ENA_HINT_ADMIN_MAX_MS		30000
#define ENA_HINT_MMIO_MIN_MS		10
#define ENA_HINT_MMIO_MAX_MS		5000
#define ENA_HINT_NETDEV_WD_MIN_MS	1000

void ena_keep_alive(struct ena_adapter *a)
{
	WRITE_ONCE(a->last_keep_alive, jiffies);
}

/* fields of ena_adapter.hints_clamped */
enum {
	ENA_HINT_F_KEEP_ALIVE,
	ENA_HINT_F_MISSED_TX,
	ENA_HINT_F_ADMIN,
	ENA_HINT_F_MMIO,
	ENA_HINT_F_NETDEV_WD,
};

/*
 * One hint in ms: 0 means none (@cur stays); ENA_HINT_NO_TIMEOUT is kept
 * where @no_timeout allows it (the check is off); anything else is clamped
 * to @min..@max, logged once per field and adapter.
 */
static u32 ena_hint_ms(struct ena_adapter *a, __le16 raw, u32 cur,
		       bool no_timeout, u32 min, u32 max, int field,
		       const char *name)
{
	u32 v = le16_to_cpu(raw);

	if (!v)
		return cur;
	if (v == ENA_HINT_NO_TIMEOUT && no_timeout)
		return v;
	if (v >= min && v <= max)
		return v;
	if (!test_and_set_bit(field, &a->hints_clamped))
		dev_warn(&a->pdev->dev,
			 "device hint %s of %u ms out of %u..%u ms, clamped\n",
			 name, v, min, max);
	return clamp(v, min, max);
}

/**
 * ena_hints_apply() - take the device's hints the driver has a use for
 * @a: adapter
 * @h: hints, from GET_FEATURE HW_HINTS or a NOTIFICATION/UPDATE_HINTS event
 * @event: from an event (any context, under the AENQ lock): log the result
 *
 * The keep-alive timeout, the missing-TX-completion timeout and threshold,
 * the admin completion timeout, the readless register read timeout and the
 * stack's TX watchdog period (netdev watchdog); a field of 0 leaves the
 * current value.  0xffff turns the keep-alive and missing-TX checks off, as
 * in-tree; other values out of range are clamped (ena_hint_ms()).  The SGL
 * sizes are not taken from here (MAX_QUEUES at bring-up).  Readers use
 * READ_ONCE(): the watchdogs, the admin queue, register reads.
 */
void ena_hints_apply(struct ena_adapter *a,
		     const struct ena_feat_hw_hints *h, bool event)
{
	struct net_device *nd = a->netdev;
	u32 ka, mtx, thr, adm, mmio, wd;

	ka = ena_hint_ms(a, h->driver_watchdog_timeout,
			 READ_ONCE(a->keep_alive_timeout_ms), true,
			 ENA_HINT_KEEP_ALIVE_MIN_MS, ENA_HINT_NO_TIMEOUT - 1,
			 ENA_HINT_F_KEEP_ALIVE, "keep-alive timeout");
	mtx = ena_hint_ms(a, h->missing_tx_cmpl_timeout,
			  READ_ONCE(a->missed_tx_ms), true,
			  ENA_HINT_MISSED_TX_MIN_MS, ENA_HINT_NO_TIMEOUT - 1,
			  ENA_HINT_F_MISSED_TX, "missing TX completion timeout");
	adm = ena_hint_ms(a, h->admin_cmpl_timeout,
			  READ_ONCE(a->aq.timeout_us) / USEC_PER_MSEC, false,
			  ENA_HINT_ADMIN_MIN_MS, ENA_HINT_ADMIN_MAX_MS,
			  ENA_HINT_F_ADMIN, "admin completion timeout");
	mmio = ena_hint_ms(a, h->mmio_read_timeout,
			   READ_ONCE(a->mmio_timeout_us) / USEC_PER_MSEC, false,
			   ENA_HINT_MMIO_MIN_MS, ENA_HINT_MMIO_MAX_MS,
			   ENA_HINT_F_MMIO, "register read timeout");
	wd = ena_hint_ms(a, h->netdev_wd_timeout,
			 jiffies_to_msecs(READ_ONCE(nd->watchdog_timeo)), false,
			 ENA_HINT_NETDEV_WD_MIN_MS, ENA_HINT_NO_TIMEOUT,
			 ENA_HINT_F_NETDEV_WD, "TX watchdog period");
	thr = le16_to_cpu(h->missed_tx_cmpl_threshold) ?:
	      READ_ONCE(a->missed_tx_threshold);

	WRITE_ONCE(a->keep_alive_timeout_ms, ka);
	WRITE_ONCE(a->missed_tx_ms, mtx);
	WRITE_ONCE(a->missed_tx_threshold, thr);
	WRITE_ONCE(a->aq.timeout_us, adm * USEC_PER_MSEC);
	WRITE_ONCE(a->mmio_timeout_us, mmio * USEC_PER_MSEC);
	/* the stack's dev_watchdog() reads it on each run */
	WRITE_ONCE(nd->watchdog_timeo, msecs_to_jiffies(wd));
	if (event)
		dev_info(&a->pdev->dev,
			 "device hints: keep-alive timeout %u ms, missing TX completion %u ms (threshold %u), admin timeout %u ms, register read timeout %u ms, TX watchdog %u ms\n",
			 ka, mtx, thr, adm, mmio, wd);
}

/* a completion is waiting at the head of a TX ring's CQ */
static bool ena_txq_cq_pending(const struct ena_txq *tx)
{
	const struct ena_tx_cdesc *tc = &tx->cq[tx->cq_head & (tx->depth - 1)];

	return (READ_ONCE(tc->flags) & ENA_TXC_PHASE) == tx->cq_phase;
}

/*
 * A completion is waiting at the head of one of the pair's CQs: TX, RX,
 * and the XDP TX ring's while it exists (all on the pair's vector).
 */
static bool ena_cq_pending(const struct ena_qp *qp)
{
	const struct ena_rx_cdesc *rc =
		&qp->rx.cq[qp->rx.cq_head & (qp->rx.depth - 1)];

	return ena_txq_cq_pending(&qp->tx) ||
	       (qp->xdp_tx.depth && ena_txq_cq_pending(&qp->xdp_tx)) ||
	       FIELD_GET(ENA_RXC_PHASE, le32_to_cpu(READ_ONCE(rc->status))) ==
	       qp->rx.cq_phase;
}

/*
 * Return: true when a completion has waited ENA_MISSED_INTR_PERIODS with no
 * NAPI poll and no NAPI scheduled (the device's interrupt never came).
 */
static bool ena_intr_missed(struct ena_qp *qp)
{
	u64 polls = READ_ONCE(qp->stats->napi_polls);
	/* a start's first poll may still wait in its work item, or be due */
	bool idle = polls == qp->polls_seen &&
		    !test_bit(NAPI_STATE_SCHED, &qp->napi.state) &&
		    !work_pending(&qp->kick) &&
		    !test_bit(ENA_QP_KICK_DUE, &qp->state);

	qp->polls_seen = polls;
	if (!idle || !ena_cq_pending(qp)) {
		qp->intr_strikes = 0;
		return false;
	}
	return ++qp->intr_strikes >= ENA_MISSED_INTR_PERIODS;
}

/*
 * Return: the packets (@xdp: frames of the XDP TX ring) of @tx in flight
 * for longer than the missing-TX timeout; each is counted in @qp's
 * tx_missed once, when first found.
 */
static u32 ena_txq_missed(struct ena_adapter *a, struct ena_qp *qp,
			  struct ena_txq *tx, bool xdp)
{
	u32 ms = READ_ONCE(a->missed_tx_ms);
	unsigned long late = jiffies - msecs_to_jiffies(ms);
	u32 i, missed = 0, fresh = 0;

	for (i = 0; i < tx->depth; i++) {
		struct ena_tx_buf *b = &tx->bufs[i];
		bool busy = xdp ? !!READ_ONCE(b->xdpf) : !!READ_ONCE(b->skb);

		if (!busy || !time_before(READ_ONCE(b->sent), late))
			continue;
		missed++;
		if (b->missed)
			continue;
		b->missed = true;
		if (!fresh++)
			netif_notice(a, tx_err, a->netdev,
				     "queue %u: %sTX req_id %u not completed after %u ms\n",
				     qp->qid, xdp ? "XDP " : "", i, ms);
	}
	if (fresh)
		WRITE_ONCE(qp->stats->tx_missed, qp->stats->tx_missed + fresh);
	return missed;
}

/* the packets of @qp's TX ring and XDP TX ring whose completion is late */
static u32 ena_tx_missed(struct ena_adapter *a, struct ena_qp *qp)
{
	u32 missed = ena_txq_missed(a, qp, &qp->tx, false);

	if (qp->xdp_tx.depth)
		missed += ena_txq_missed(a, qp, &qp->xdp_tx, true);
	return missed;
}

/* an RX ring whose refill failed: poll it, the poll refills it */
static void ena_rx_kick(struct ena_qp *qp)
{
	u64 fails = READ_ONCE(qp->stats->rx_alloc_fail);

	if (fails == qp->rx_fail_seen)
		return;
	qp->rx_fail_seen = fails;
	WRITE_ONCE(qp->stats->rx_empty_kicks, qp->stats->rx_empty_kicks + 1);
	local_bh_disable();
	napi_schedule(&qp->napi);
	local_bh_enable();
}

/**
 * ena_io_health() - look at every running queue
 * @a: adapter
 *
 * A lost interrupt (a completion waiting, NAPI idle for two periods) and
 * packets whose TX completion is late past the threshold each lead to a
 * device reset, as in the in-tree driver; a starved RX ring (allocation
 * failures since the last look) is polled, since NAPI only runs on an
 * interrupt and an empty ring gets none.  Queue memory changes only under
 * RTNL: taken with a trylock while the queues are up, a busy RTNL skips
 * one period.
 */
static void ena_io_health(struct ena_adapter *a)
{
	u32 q, missed, threshold = READ_ONCE(a->missed_tx_threshold);

	if (!test_bit_acquire(ENA_F_QUEUES_RUN, &a->flags) || !rtnl_trylock())
		return;
	for (q = 0; test_bit(ENA_F_QUEUES_RUN, &a->flags) && q < a->num_queues; q++) {
		struct ena_qp *qp = &a->qps[q];

		if (!test_bit(ENA_QP_STARTED, &qp->state))
			continue;
		if (ena_intr_missed(qp)) {
			WRITE_ONCE(a->missed_intrs, a->missed_intrs + 1);
			netdev_err(a->netdev,
				   "queue %u: completions waiting, no interrupt for %u s\n",
				   q, ENA_MISSED_INTR_PERIODS);
			ena_reset_schedule(a, ENA_RESET_MISS_INTERRUPT,
					   "missing interrupt");
			break;
		}
		missed = READ_ONCE(a->missed_tx_ms) == ENA_HINT_NO_TIMEOUT ?
			 0 : ena_tx_missed(a, qp);
		if (missed >= threshold) {
			netif_err(a, tx_err, a->netdev,
				  "queue %u: %u TX completions missing (threshold %u)\n",
				  q, missed, threshold);
			ena_reset_schedule(a, ENA_RESET_MISS_TX_CMPL,
					   "missing TX completions");
			break;
		}
		ena_rx_kick(qp);
	}
	rtnl_unlock();
}

static void ena_watchdog(struct work_struct *w)
{
	struct ena_adapter *a = container_of(to_delayed_work(w),
					     struct ena_adapter, watchdog);
	u32 to = READ_ONCE(a->keep_alive_timeout_ms), sts;

	if (test_bit(ENA_F_RESET_PENDING, &a->flags))
		goto again;
	if (test_bit(ENA_F_DEV_DEAD, &a->flags)) {
		if (time_after_eq(jiffies, READ_ONCE(a->reset_retry_at)))
			ena_reset_retry(a);
		goto again;
	}

	if ((a->aenq_groups & BIT(ENA_AENQ_KEEP_ALIVE)) &&
	    to != ENA_HINT_NO_TIMEOUT &&
	    time_after(jiffies, READ_ONCE(a->last_keep_alive) +
				msecs_to_jiffies(to))) {
		dev_err(&a->pdev->dev, "no keep-alive event for %u ms\n", to);
		WRITE_ONCE(a->wd_expired, a->wd_expired + 1);
		ena_reset_schedule(a, ENA_RESET_KEEP_ALIVE_TO,
				   "keep-alive timeout");
		goto again;
	}
	if (!ena_reg_read(a, ENA_REG_DEV_STS, &sts) &&
	    (sts & ENA_DEV_STS_FATAL)) {
		ena_reset_schedule(a, ENA_RESET_GENERIC,
				   "DEV_STS reports a fatal error");
		goto again;
	}
	ena_host_info_features(a);
	ena_io_health(a);
again:
	queue_delayed_work(system_wq, &a->watchdog, ENA_WATCHDOG_PERIOD);
}

void ena_health_init(struct ena_adapter *a)
{
	a->keep_alive_timeout_ms = ENA_KEEP_ALIVE_TIMEOUT_MS;
	a->missed_tx_ms = ENA_MISSED_TX_MS;
	a->missed_tx_threshold = ENA_MISSED_TX_THRESHOLD;
	a->netdev->watchdog_timeo = ENA_TX_TIMEOUT;
	INIT_DELAYED_WORK(&a->watchdog, ena_watchdog);
	ena_reset_init(a);
	ena_up_init(a);
}

/**
 * ena_health_start() - arm the watchdog; device resets are allowed now
 * @a: adapter
 */
void ena_health_start(struct ena_adapter *a)
{
	ena_keep_alive(a);
	WRITE_ONCE(a->reset_retry_at, jiffies);
	set_bit(ENA_F_LIVE, &a->flags);
	queue_delayed_work(system_wq, &a->watchdog, ENA_WATCHDOG_PERIOD);
}

/**
 * ena_health_stop() - no reset can be queued or run after this returns
 * @a: adapter
 *
 * Marks the adapter removing under the health lock and RTNL, then cancels
 * the watchdog (which stops re-arming itself), the report work and the
 * reset work.  Not under RTNL (the report and reset works take it).
 */
void ena_health_stop(struct ena_adapter *a)
{
	unsigned long irqf;

	/*
	 * Under RTNL too: a re-init an RTNL holder started (ethtool -G
	 * tx-push-buf-len, ena_set_llq_large()) has ended, and a later one
	 * sees the flag and refuses, before the caller quiesces the
	 * management vector that such a re-init would arm again.
	 */
	rtnl_lock();
	spin_lock_irqsave(&a->health_lock, irqf);
	set_bit(ENA_F_REMOVING, &a->flags);
	clear_bit(ENA_F_LIVE, &a->flags);
	spin_unlock_irqrestore(&a->health_lock, irqf);
	rtnl_unlock();
	cancel_delayed_work_sync(&a->watchdog);
	cancel_work_sync(&a->report_work);
	cancel_work_sync(&a->reset_work);
}
