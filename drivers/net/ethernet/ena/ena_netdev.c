// SPDX-License-Identifier: GPL-2.0
/*
 * netdev side: ndo ops, bringing the queues up and down, live changes of
 * channel count, ring sizes and MTU, link state.
 *
 * Invariant (kept by probe in ena_pci.c and relied upon here): every
 * object that ndo_open, ndo_stop, ethtool, ndo_get_stats64 and the AENQ
 * handler touch exists before register_netdev(), and lives until after
 * unregister_netdev().  RTNL serializes open, stop, ethtool and the reset
 * work, so an open or close at any moment after registration is served
 * fully: either here, or - while a reset is pending - by the reset work,
 * which restores the state ENA_F_WANT_UP records.
 *
 * With open_async on (a devlink parameter) an open allocates the queues
 * under RTNL and returns; a work item starts them on the device
 * (ena_up_work()), so RTNL is free for the next interface during the admin
 * round trips.  That work takes no RTNL, and
 * everything under RTNL that touches the queues waits for it first
 * (ena_up_wait()).  The carrier comes on when the queues run.
 */
#include <linux/log2.h>

#include "ena.h"
#include "ena_compat.h"

static void ena_qp_set_slots(struct ena_adapter *a, struct ena_qp *qp)
{
	qp->tx.max_slots = a->llq.enabled ? ena_llq_pkt_slots(&a->llq) :
					    ENA_TX_MAX_DESCS;
}

/* deprecated alias of the devlink parameter open_async (ena_devlink.c) */
static bool open_async;
module_param(open_async, bool, 0444);
MODULE_PARM_DESC(open_async,
		 "Deprecated, use devlink param open_async. ndo_open allocates the queues and a work item starts them, the carrier coming on when they run, so RTNL is held about half as long (default: ndo_open starts them and fails with their error, as in-tree)");

/* the module parameter: every device's open_async at probe */
bool ena_param_open_async(void)
{
	return open_async;
}

/*
 * What netdev netlink reports: the NAPI of each pair serves its RX and TX
 * queue.  Under RTNL, so set when the pairs are allocated and cleared
 * before they go, not when they start or stop.
 */
static void ena_queues_map_napi(struct ena_adapter *a, u32 from, u32 to,
				bool on)
{
	u32 q;

	for (q = from; q < to; q++) {
		struct napi_struct *napi = on ? &a->qps[q].napi : NULL;

		netif_queue_set_napi(a->netdev, q, NETDEV_QUEUE_TYPE_RX, napi);
		netif_queue_set_napi(a->netdev, q, NETDEV_QUEUE_TYPE_TX, napi);
	}
}

/* host memory of queues [@from, @to): the part of a start that needs RTNL */
static int ena_queues_alloc(struct ena_adapter *a, u32 from, u32 to)
{
	u32 q;
	int rc;

	for (q = from; q < to; q++) {
		rc = ena_qp_alloc(a, q, a->tx_ring_size, a->rx_ring_size);
		if (rc)
			goto err;
		ena_qp_set_slots(a, &a->qps[q]);
	}
	ena_queues_map_napi(a, from, to, true);
	return 0;
err:
	while (q-- > from)
		ena_qp_free(a, q);
	return rc;
}

/* stop (those started) and free queues [@from, @to) */
static void ena_queues_close(struct ena_adapter *a, u32 from, u32 to)
{
	u32 q;

	ena_queues_map_napi(a, from, to, false);
	for (q = from; q < to; q++)
		ena_qp_stop(a, q);
	for (q = from; q < to; q++)
		ena_qp_free(a, q);
}

/*
 * Allocate queues [@from, @to), then start them together: their device
 * queues are created in pipelined batches (ena_qps_start()).  The caller
 * schedules their first polls (ena_qps_kick()).
 */
static int ena_queues_open(struct ena_adapter *a, u32 from, u32 to)
{
	int rc = ena_queues_alloc(a, from, to);

	if (rc)
		return rc;
	rc = ena_qps_start(a, from, to);
	if (rc)
		ena_queues_close(a, from, to);
	return rc;
}

/**
 * ena_tx_start_unused() - let the TX queues from @first on look idle
 * @nd: net device
 * @first: first TX queue no queue pair serves
 *
 * A close stops the netdev TX queue of each queue pair; when fewer pairs
 * open again, the rest would stay stopped, and the stack's TX watchdog
 * reports a stopped queue as timed out (a device reset every period).
 */
static void ena_tx_start_unused(struct net_device *nd, u32 first)
{
	u32 q;

	for (q = first; q < nd->num_tx_queues; q++)
		netif_tx_start_queue(netdev_get_tx_queue(nd, q));
}

/**
 * ena_up_prepare() - the part of a bring-up that needs RTNL
 * @a: adapter
 *
 * The stack's queue counts and the queues' host memory.  ena_up_start()
 * does the rest, with or without RTNL.
 *
 * Return: 0 with the queues allocated (ENA_F_QUEUES_UP set), 1 if there
 * is nothing to start (the queues are up, or a pending reset brings them
 * up), or a negative errno with nothing allocated.
 */
static int ena_up_prepare(struct ena_adapter *a)
{
	struct net_device *nd = a->netdev;
	int rc;

	ASSERT_RTNL();
	if (test_bit(ENA_F_QUEUES_UP, &a->flags) ||
	    test_bit(ENA_F_RESET_PENDING, &a->flags))
		return 1;

	rc = netif_set_real_num_queues(nd, a->num_queues, a->num_queues);
	if (rc)
		return rc;
	ena_tx_start_unused(nd, a->num_queues);
	rc = ena_queues_alloc(a, 0, a->num_queues);
	if (rc)
		return rc;
	set_bit(ENA_F_QUEUES_UP, &a->flags);
	return 0;
}

/**
 * ena_up_start() - start the allocated queues, program RSS and MTU
 * @a: adapter; ena_up_prepare() returned 0
 *
 * Needs no RTNL (an open runs it from ena_up_work()); whatever would
 * change what it reads (num_queues, the MTU, the RSS table, the rings)
 * waits for it first (ena_up_wait()).  The carrier comes on when the
 * queues run (ENA_F_QUEUES_RUN).
 *
 * Return: 0, or a negative errno with every queue allocated and stopped.
 */
static int ena_up_start(struct ena_adapter *a)
{
	struct net_device *nd = a->netdev;
	int rc, mtu_rc = -EOPNOTSUPP;
	struct ena_aq_cmd mtu = {};
	u32 q;

	rc = ena_qps_start(a, 0, a->num_queues);
	if (rc)
		return rc;
	ena_rss_spread(a, a->num_queues);
	/* the table and the MTU: one device round trip */
	if (ena_feature_supported(a, ENA_FEAT_MTU)) {
		mtu.feature.u.mtu.mtu = cpu_to_le32(READ_ONCE(nd->mtu));
		ena_set_feature_cmd(&mtu, ENA_FEAT_MTU, 0, 0);
		rc = ena_rss_push_with(a, &mtu, &mtu_rc);
	} else {
		rc = ena_rss_push(a);
	}
	/*
	 * A refused MTU does not keep the interface down (nor does it in
	 * the in-tree driver): the device keeps the MTU it had, the log says
	 * which one it refused.
	 */
	if (!rc && mtu_rc && mtu_rc != -EOPNOTSUPP)
		netdev_warn(nd, "device refused MTU %u: %d\n", READ_ONCE(nd->mtu),
			    mtu_rc);
	if (rc) {
		for (q = 0; q < a->num_queues; q++)
			ena_qp_stop(a, q);
		return rc;
	}

	/* the queues' state before the flag, for readers without RTNL (health) */
	smp_mb__before_atomic();
	set_bit(ENA_F_QUEUES_RUN, &a->flags);
	ena_qps_kick(a, 0, a->num_queues);
	ena_link_carrier(a, true);
	return 0;
}

/**
 * ena_up() - allocate and start the configured queues, program RSS and MTU
 * @a: adapter
 *
 * Return: 0 (also while a reset is pending: the reset work brings the
 * queues up) or a negative errno with nothing left allocated.
 */
int ena_up(struct ena_adapter *a)
{
	int rc = ena_up_prepare(a);

	if (rc)
		return rc < 0 ? rc : 0;
	rc = ena_up_start(a);
	if (rc) {
		clear_bit(ENA_F_QUEUES_UP, &a->flags);
		ena_queues_close(a, 0, a->num_queues);
	}
	return rc;
}

/*
 * An open's queue start, after ndo_open has returned and RTNL is free for
 * the next device's registration and open.  A failure leaves the queues
 * allocated and stopped and the carrier off; the device reset it asks for
 * frees them (ena_down()) and starts them again.
 */
static void ena_up_work(struct work_struct *w)
{
	struct ena_adapter *a = container_of(w, struct ena_adapter, up_work);
	int rc = ena_up_start(a);

	if (rc) {
		netif_err(a, ifup, a->netdev, "queue start after open failed: %d\n",
			  rc);
		ena_reset_schedule(a, ENA_RESET_INIT_ERR,
				   "the queues of an open did not start");
	}
}

void ena_up_init(struct ena_adapter *a)
{
	INIT_WORK(&a->up_work, ena_up_work);
}

/**
 * ena_up_wait() - wait for an open's queue start to finish
 * @a: adapter
 *
 * Under RTNL (which every open takes) no new one can be queued after this
 * returns: the queues are then running (ENA_F_QUEUES_RUN), or down, or
 * allocated and stopped with the device marked dead (ENA_F_DEV_DEAD; a
 * reset pending while the adapter is live).  Every path that changes
 * what ena_up_start() uses calls this first: ethtool
 * (ena_ethtool_begin()), the MTU, XDP, debugfs; ena_down() cancels it.
 */
void ena_up_wait(struct ena_adapter *a)
{
	flush_work(&a->up_work);
}

/**
 * ena_down() - stop and free every queue
 * @a: adapter
 */
void ena_down(struct ena_adapter *a)
{
	ASSERT_RTNL();
	/*
	 * An open's start not yet run is not run at all; one under way ends
	 * first.  Either way the queues are then allocated, some maybe
	 * started, and ena_queues_close() takes them all back.
	 */
	cancel_work_sync(&a->up_work);
	if (!test_and_clear_bit(ENA_F_QUEUES_UP, &a->flags))
		return;
	clear_bit(ENA_F_QUEUES_RUN, &a->flags);
	ena_link_carrier(a, false);
	/*
	 * Each queue stops its own netdev TX queue; netif_tx_disable() would
	 * also stop the unused ones, which the TX watchdog then reports.
	 */
	ena_queues_close(a, 0, a->num_queues);
}

static int ena_open(struct net_device *nd)
{
	struct ena_adapter *a = netdev_priv(nd);
	int rc;

	set_bit(ENA_F_WANT_UP, &a->flags);
	if (!READ_ONCE(a->open_async)) {
		rc = ena_up(a);
	} else {
		rc = ena_up_prepare(a);
		if (!rc)
			queue_work(system_unbound_wq, &a->up_work);
		rc = min(rc, 0);
	}
	if (rc) {
		clear_bit(ENA_F_WANT_UP, &a->flags);
		netif_err(a, ifup, nd, "open failed: %d\n", rc);
	} else {
		WRITE_ONCE(a->interface_up, a->interface_up + 1);
		netif_dbg(a, ifup, nd, "open: %u queues\n", a->num_queues);
	}
	return rc;
}

static int ena_close(struct net_device *nd)
{
	struct ena_adapter *a = netdev_priv(nd);

	clear_bit(ENA_F_WANT_UP, &a->flags);
	ena_down(a);
	WRITE_ONCE(a->interface_down, a->interface_down + 1);
	netif_dbg(a, ifdown, nd, "closed\n");
	return 0;
}

/**
 * ena_set_channels_live() - change the number of queue pairs
 * @a: adapter
 * @n: new count, 1..max_queues
 *
 * While up, only the queues that change are touched: added queues are
 * allocated and started before RSS spreads onto them; removed queues are
 * taken out of RSS and the stack's view before they stop.  A user-set
 * indirection table is kept (ena_rss_spread()).
 *
 * Return: 0 or a negative errno with the old count still running.
 */
int ena_set_channels_live(struct ena_adapter *a, u32 n)
{
	struct net_device *nd = a->netdev;
	u32 old = a->num_queues;
	int rc;

	ASSERT_RTNL();
	if (!test_bit(ENA_F_QUEUES_UP, &a->flags)) {
		a->num_queues = n;
		ena_rss_spread(a, n);
		return 0;
	}
	if (n == old)
		return 0;
	if (test_bit(ENA_F_DEV_DEAD, &a->flags))
		return -EBUSY;	/* the reset work owns the queues now */

	if (n > old) {
		rc = ena_queues_open(a, old, n);
		if (rc)
			return rc;
		rc = netif_set_real_num_queues(nd, n, n);
		if (!rc) {
			ena_rss_spread(a, n);
			rc = ena_rss_push(a);
		}
		if (rc) {
			ena_rss_spread(a, old);
			ena_rss_push(a);
			netif_set_real_num_queues(nd, old, old);
			ena_queues_close(a, old, n);
			return rc;
		}
		ena_qps_kick(a, old, n);
	} else {
		ena_rss_spread(a, n);
		rc = ena_rss_push(a);
		if (rc) {
			ena_rss_spread(a, old);
			return rc;
		}
		netif_set_real_num_queues(nd, n, n);
		ena_queues_close(a, n, old);
		ena_tx_start_unused(nd, n);
	}
	a->num_queues = n;
	return 0;
}

/**
 * ena_rings_rebuild() - change ring sizes or the RX layout, all queues or none
 * @a: adapter
 * @tx: new TX depth
 * @rx: new RX depth
 * @xdp: the RX layout for XDP and an XDP TX ring per queue (or neither)
 * @extack: for the error message
 *
 * The new rings of every running queue that changes are allocated first,
 * while all
 * queues keep passing traffic; without the memory for all of them nothing
 * changes.  Then each queue in turn is stopped, switched to its new rings
 * and restarted (ena_qp_swap()): at most one queue is down at any moment.
 * If a queue does not start on its new rings, the queues already switched
 * go back to their old rings, so the sizes stay uniform and what `-g`
 * reports stays true.  A device that dies on the way ends the loop: the
 * reset work rebuilds every queue at the sizes in force.
 *
 * Return: 0, or a negative errno with the old rings in force.
 */
int ena_rings_rebuild(struct ena_adapter *a, u32 tx, u32 rx, bool xdp,
		      struct netlink_ext_ack *extack)
{
	struct ena_qp_mem *mem;
	u32 q, n = a->num_queues, done;
	int rc = 0, err;

	ASSERT_RTNL();
	if (!test_bit(ENA_F_QUEUES_UP, &a->flags)) {
		a->tx_ring_size = tx;
		a->rx_ring_size = rx;
		return 0;
	}
	if (test_bit(ENA_F_DEV_DEAD, &a->flags)) {
		NL_SET_ERR_MSG_MOD(extack, "device reset in progress");
		return -EBUSY;
	}
	mem = kvcalloc(n, sizeof(*mem), GFP_KERNEL);
	if (!mem)
		return -ENOMEM;
	for (q = 0; q < n; q++) {
		struct ena_qp *qp = &a->qps[q];

		if (qp->tx.depth == tx && qp->rx.depth == rx && qp->rx.xdp == xdp)
			continue;
		rc = ena_qp_mem_prepare(a, q, tx, rx, xdp, &mem[q]);
		if (rc) {
			NL_SET_ERR_MSG_MOD(extack,
					   "no memory for the new rings, nothing changed");
			goto out;
		}
	}
	for (done = 0; done < n; done++) {
		if (!mem[done].held)
			continue;
		if (test_bit(ENA_F_DEV_DEAD, &a->flags)) {
			rc = -EIO;
			break;
		}
		rc = ena_qp_swap(a, done, &mem[done]);
		if (rc) {
			if (!ena_rt_qp_up(&a->qps[done]))
				ena_reset_schedule(a, ENA_RESET_DRIVER_INVALID_STATE,
						   "queue restart failed");
			break;
		}
	}
	if (rc) {
		NL_SET_ERR_MSG_MOD(extack, "queue restart on new rings failed, old rings kept");
		netdev_warn(a->netdev, "rings %u/%u%s failed on queue %u (%d), old rings restored\n",
			    tx, rx, xdp ? " (XDP)" : "", done, rc);
		/* the queues switched so far go back to their old rings */
		while (done-- > 0) {
			if (!mem[done].held ||
			    test_bit(ENA_F_DEV_DEAD, &a->flags))
				continue;
			err = ena_qp_swap(a, done, &mem[done]);
			if (err)
				ena_reset_schedule(a, ENA_RESET_DRIVER_INVALID_STATE,
						   "ring resize rollback failed");
		}
	} else {
		a->tx_ring_size = tx;
		a->rx_ring_size = rx;
	}
out:
	for (q = 0; q < n; q++)
		ena_qp_mem_release(a, q, &mem[q]);
	/* queues back on their old rings run the program those were made for */
	ena_xdp_prog_apply(a);
	kvfree(mem);
	/* re-created RX CQs may have new device indices */
	if (!test_bit(ENA_F_DEV_DEAD, &a->flags)) {
		err = ena_rss_push(a);
		if (!rc)
			rc = err;
	}
	return rc;
}

/**
 * ena_set_rings_live() - change ring sizes, all queues or none
 * @a: adapter
 * @tx: new TX depth
 * @rx: new RX depth
 * @extack: for the error message
 *
 * Return: 0, or a negative errno with the old sizes in force.
 */
int ena_set_rings_live(struct ena_adapter *a, u32 tx, u32 rx,
		       struct netlink_ext_ack *extack)
{
	return ena_rings_rebuild(a, tx, rx, ena_xdp_on(a), extack);
}

/*
 * RX buffers are 2 KiB page slices whatever the MTU (a larger frame spans
 * descriptors), so an MTU change is one SET_FEATURE and no ring changes.
 * With an XDP program that takes only single-buffer frames the MTU stays
 * within one buffer (max_mtu is lowered while it is attached; this is the
 * check of last resort).
 */
static int ena_change_mtu(struct net_device *nd, int mtu)
{
	struct ena_adapter *a = netdev_priv(nd);
	int rc;

	if (mtu > ena_xdp_max_mtu(a)) {
		netdev_err(nd, "MTU %d is above %u, the largest with this XDP program\n",
			   mtu, ena_xdp_max_mtu(a));
		return -EINVAL;
	}
	ena_up_wait(a);
	if (test_bit(ENA_F_QUEUES_UP, &a->flags)) {
		rc = ena_set_mtu_dev(a, mtu);
		if (rc && rc != -EOPNOTSUPP) {
			netdev_err(nd, "device refused MTU %d: %d\n", mtu, rc);
			return rc;
		}
	}
	WRITE_ONCE(nd->mtu, mtu);
	return 0;
}

static void ena_get_stats64(struct net_device *nd,
			    struct rtnl_link_stats64 *s)
{
	struct ena_adapter *a = netdev_priv(nd);
	u32 q;

	for (q = 0; q < a->max_queues; q++) {
		const struct ena_queue_stats *st = &a->qstats[q];
		u64 tp, tb, rp, rb, rd, td;
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&st->napi_sync);
			tp = st->tx_packets;
			tb = st->tx_bytes;
			rp = st->rx_packets;
			rb = st->rx_bytes;
			rd = st->rx_dropped;
		} while (u64_stats_fetch_retry(&st->napi_sync, start));
		do {
			start = u64_stats_fetch_begin(&st->xmit_sync);
			td = st->tx_dropped;
		} while (u64_stats_fetch_retry(&st->xmit_sync, start));
		s->tx_packets += tp;
		s->tx_bytes += tb;
		s->rx_packets += rp;
		s->rx_bytes += rb;
		s->rx_dropped += rd;
		s->tx_dropped += td;
	}
	s->rx_dropped += READ_ONCE(a->dev_rx_drops);
	s->tx_dropped += READ_ONCE(a->dev_tx_drops);
	s->rx_over_errors = READ_ONCE(a->dev_rx_overruns);
}

static void ena_tx_timeout(struct net_device *nd, unsigned int txq)
{
	struct ena_adapter *a = netdev_priv(nd);

	a->tx_timeouts++;
	ena_reset_schedule(a, ENA_RESET_OS_NETDEV_WD, "TX watchdog");
}

static const struct net_device_ops ena_netdev_ops = {
	.ndo_open		= ena_open,
	.ndo_stop		= ena_close,
	.ndo_start_xmit		= ena_start_xmit,
	.ndo_get_stats64	= ena_get_stats64,
	.ndo_tx_timeout		= ena_tx_timeout,
	.ndo_change_mtu		= ena_change_mtu,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_bpf		= ena_bpf,
	.ndo_xdp_xmit		= ena_xdp_xmit,
};

/* carrier on while the link is up and the queues run; under aenq.lock */
static void ena_link_apply(struct ena_adapter *a, bool queues_up)
{
	if (queues_up && a->link_up)
		netif_carrier_on(a->netdev);
	else
		netif_carrier_off(a->netdev);
}

/**
 * ena_link_update() - apply a LINK_CHANGE event
 * @a: adapter
 * @up: new link state
 *
 * Called under the AENQ lock at any time from probe on.  The device's link
 * state is recorded; the carrier follows it only while the queues run, as
 * in the in-tree driver.  A carrier set before register_netdev() never
 * reaches the kernel's operstate policy, and the interface would report
 * operstate "unknown" for good: ena_up() turns the carrier on instead.
 */
void ena_link_update(struct ena_adapter *a, bool up)
{
	if (up)
		netif_info(a, link, a->netdev, "device reports link up\n");
	else
		netif_info(a, link, a->netdev, "device reports link down\n");
	a->link_changes++;
	a->link_up = up;
	ena_link_apply(a, test_bit(ENA_F_QUEUES_RUN, &a->flags));
}

/**
 * ena_link_carrier() - set the carrier when the queues start or stop
 * @a: adapter
 * @queues_up: the queues have just started (else: just stopped)
 *
 * Under the AENQ lock, so a LINK_CHANGE handled at the same moment cannot
 * leave the carrier on for stopped queues or off for a link that is up.
 */
void ena_link_carrier(struct ena_adapter *a, bool queues_up)
{
	unsigned long irqf;

	spin_lock_irqsave(&a->aenq.lock, irqf);
	ena_link_apply(a, queues_up);
	spin_unlock_irqrestore(&a->aenq.lock, irqf);
}

#define ENA_OFFLOAD_FEATURES	(NETIF_F_IP_CSUM | NETIF_F_IPV6_CSUM | \
				 NETIF_F_RXCSUM | NETIF_F_RXHASH)

/* the offload features the device's OFFLOAD feature reports */
static netdev_features_t ena_offload_features(const struct ena_adapter *a)
{
	netdev_features_t f = 0;

	if (a->offload_tx & ENA_OFFLOAD_TX_L4_V4_PARTIAL)
		f |= NETIF_F_IP_CSUM;
	if (a->offload_tx & ENA_OFFLOAD_TX_L4_V6_PARTIAL)
		f |= NETIF_F_IPV6_CSUM;
	if (a->offload_rx & (ENA_OFFLOAD_RX_L4_CSUM_V4 |
			     ENA_OFFLOAD_RX_L4_CSUM_V6))
		f |= NETIF_F_RXCSUM;
	if (a->offload_rx & ENA_OFFLOAD_RX_HASH)
		f |= NETIF_F_RXHASH;
	return f;
}

/*
 * The device's largest MTU may have changed across the reset: the limit
 * follows it and a larger MTU in use is lowered to it (the queues are
 * down, so this is no device command; the stack hears of it).
 */
static void ena_reconcile_mtu(struct ena_adapter *a)
{
	struct net_device *nd = a->netdev;
	u32 max = ena_xdp_max_mtu(a), old = nd->mtu;
	int rc;

	WRITE_ONCE(nd->max_mtu, max);
	if (old <= max)
		return;
	rc = dev_set_mtu(nd, max);
	if (rc)
		netdev_err(nd, "MTU %u is above the device's maximum %u after the reset, and could not be lowered: %d\n",
			   old, max, rc);
	else
		netdev_warn(nd, "MTU lowered from %u to %u, the device's maximum after the reset\n",
			    old, max);
}

/**
 * ena_reconcile() - fit the interface to what the device offers after a reset
 * @a: adapter, after a successful ena_device_init() in the reset work
 *
 * The device may come back with fewer queues, smaller rings, a smaller
 * MTU, no LLQ or other offloads: the queue count, ring sizes and MTU are
 * clamped (the default RSS spread follows), the offload features updated,
 * each change logged.  A device whose MAC address changed is refused, as
 * in the in-tree driver.
 *
 * Return: 0, or -EINVAL for a changed MAC address.
 */
int ena_reconcile(struct ena_adapter *a)
{
	struct net_device *nd = a->netdev;
	u32 maxq = min(a->max_queues, a->dev_max_queues), tx, rx;
	netdev_features_t f = ena_offload_features(a);

	ASSERT_RTNL();
	if (is_valid_ether_addr(a->mac) && !ether_addr_equal(a->mac, nd->perm_addr)) {
		netdev_err(nd, "device MAC address changed across the reset (%pM, was %pM)\n",
			   a->mac, nd->perm_addr);
		return -EINVAL;
	}
	if (a->llq.enabled)
		maxq = min(maxq, a->llq.max_num);
	/* what ethtool -l offers from now on */
	a->avail_queues = max(maxq, 1U);
	/* an attached XDP program keeps an XDP TX queue per channel */
	if (ena_xdp_on(a))
		maxq = min(maxq, ena_xdp_max_channels(a));
	maxq = max(maxq, 1U);
	if (a->num_queues > maxq) {
		netdev_warn(nd, "device offers %u queues after the reset, %u were in use\n",
			    maxq, a->num_queues);
		a->num_queues = maxq;
		ena_rss_default_table(a, maxq);
	}
	tx = min(a->tx_ring_size, ena_max_tx_ring(a));
	rx = min(a->rx_ring_size, ena_max_rx_ring(a));
	if (tx != a->tx_ring_size || rx != a->rx_ring_size) {
		netdev_warn(nd, "rings %u/%u after the reset (device maximum), were %u/%u\n",
			    tx, rx, a->tx_ring_size, a->rx_ring_size);
		a->tx_ring_size = tx;
		a->rx_ring_size = rx;
	}
	ena_reconcile_mtu(a);
	if ((nd->hw_features & ENA_OFFLOAD_FEATURES) != f) {
		netdev_warn(nd, "device offloads changed across the reset\n");
		nd->hw_features = (nd->hw_features & ~ENA_OFFLOAD_FEATURES) | f;
		nd->features &= ~(ENA_OFFLOAD_FEATURES & ~f);
		netdev_update_features(nd);
	}
	ena_xdp_features(a);
	return 0;
}

/**
 * ena_netdev_setup() - ops, features, MAC and MTU limits from the device
 * @a: adapter after ena_device_init()
 */
void ena_netdev_setup(struct ena_adapter *a)
{
	struct net_device *nd = a->netdev;
	netdev_features_t f = NETIF_F_SG | NETIF_F_HIGHDMA |
			      ena_offload_features(a);

	nd->netdev_ops = &ena_netdev_ops;
	/*
	 * Neither driver programs unicast addresses into the device (it takes
	 * the frames the VPC sends this interface), so extra addresses
	 * (macvlan) need no promiscuous mode: the flag as in-tree.
	 */
	nd->priv_flags |= IFF_UNICAST_FLT;
	ena_ethtool_set_ops(nd);
	ena_stat_ops_set(nd);

	nd->features = f;
	nd->hw_features = f;
	nd->vlan_features = f;

	nd->min_mtu = ENA_MIN_MTU;
	nd->max_mtu = ena_dev_max_mtu(a);
	if (a->max_mtu && nd->max_mtu < a->max_mtu)
		dev_info(&a->pdev->dev, "MTU at most %u: the device fills at most %u RX buffers with a frame\n",
			 nd->max_mtu, a->max_rx_sgl);
	ena_xdp_features(a);
	if (is_valid_ether_addr(a->mac)) {
		eth_hw_addr_set(nd, a->mac);
	} else {
		eth_hw_addr_random(nd);
		ether_addr_copy(a->mac, nd->dev_addr);
	}
}
