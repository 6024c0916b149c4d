// SPDX-License-Identifier: GPL-2.0
/*
 * Recovery: scheduling a device reset (from any context, ena_health.c's
 * watchdog among them; reported through devlink, ena_devlink.c) and the
 * reset that recovers the device (tear down queues, reset, re-init admin
 * queue and AENQ, restore the up state).
 */
#include <linux/jiffies.h>
#include <linux/rtnetlink.h>

#include "ena.h"

/*
 * A failed reset is tried again at once (a transient fault, such as one bad
 * admin completion, costs no more than one more bring-up); after a second
 * failure in a row the watchdog retries after this long, whatever else it
 * checks (keep-alive may be off).  One attempt per reset work run, so RTNL
 * is never held for more than one device bring-up.
 */
#define ENA_RESET_RETRY_DELAY	(2 * HZ)
/*
 * Mark the device dead and queue @work (the report or the reset itself)
 * unless a reset is pending already.  Under the health lock, so that once
 * ena_health_stop() has marked the adapter removing, no caller (hard IRQ
 * included) can queue the work behind its cancel_work_sync().
 */
static bool ena_reset_queue(struct ena_adapter *a, struct work_struct *work,
			    enum ena_reset_reason reason, const char *why)
{
	unsigned long irqf;
	bool queued = false;

	set_bit(ENA_F_DEV_DEAD, &a->flags);
	spin_lock_irqsave(&a->health_lock, irqf);
	if (test_bit(ENA_F_LIVE, &a->flags) &&
	    !test_bit(ENA_F_REMOVING, &a->flags) &&
	    !test_and_set_bit(ENA_F_RESET_PENDING, &a->flags)) {
		a->reset_reason = reason;
		a->reset_why = why;
		queued = queue_work(system_unbound_wq, work);
	}
	spin_unlock_irqrestore(&a->health_lock, irqf);
	return queued;
}

/**
 * ena_reset_schedule() - report a fault that needs a device reset
 * @a: adapter
 * @reason: reason reported to the device
 * @why: a string constant, for the log line and the devlink report
 *
 * Any context.  The device is treated as dead from here on: queue stops
 * skip their DESTROY commands and new admin commands fail fast.  The
 * fault goes to the devlink health reporter of @reason from a work item
 * (ena_devlink_report_work(): reporting may sleep), and that reporter's
 * recovery is the reset.  During probe (before ena_health_start()) the
 * failing step aborts probe instead.
 */
void ena_reset_schedule(struct ena_adapter *a, enum ena_reset_reason reason,
			const char *why)
{
	if (ena_reset_queue(a, &a->report_work, reason, why))
		dev_err(&a->pdev->dev, "device reset scheduled: %s (reason %d)\n",
			why, reason);
}

/**
 * ena_reset_retry() - try a failed reset again
 * @a: adapter
 *
 * Any context.  The fault was reported when it happened; a retry of its
 * recovery is not a new fault, so the reset work is queued directly, with
 * the reason of the failed reset.
 */
void ena_reset_retry(struct ena_adapter *a)
{
	if (ena_reset_queue(a, &a->reset_work, a->reset_reason, a->reset_why))
		dev_err(&a->pdev->dev, "device reset scheduled: retrying after a failed reset (reason %d)\n",
			a->reset_reason);
}

/**
 * ena_dev_restore() - initialise the device again, as after a reset
 * @a: adapter; queues down, management vector quiet; RTNL held
 * @reason: reset reason reported to the device
 *
 * The part a reset and a resume share: device reset and initialisation,
 * this adapter's settings reconciled with the device, the management
 * vector armed (also on failure, as ena_mgmt_quiesce() expects), the
 * keep-alive clock restarted and RSS marked to be pushed again.
 *
 * Return: 0, or the negative errno of the init or reconcile step.
 */
int ena_dev_restore(struct ena_adapter *a, enum ena_reset_reason reason)
{
	int rc;

	ASSERT_RTNL();
	rc = ena_device_init(a, reason);
	if (!rc)
		rc = ena_reconcile(a);
	ena_mgmt_arm(a);
	ena_keep_alive(a);
	clear_bit(ENA_F_RSS_PUSHED, &a->flags);
	return rc;
}

/*
 * The first half of a re-initialisation that keeps the netdev: the
 * interface down (its settings stay in the adapter), no carrier, the
 * management vector quiet.  ena_dev_restore() and, if this returned true,
 * ena_up() follow.  RTNL held.
 */
static bool ena_reinit_down(struct ena_adapter *a)
{
	bool up = test_bit(ENA_F_WANT_UP, &a->flags);

	if (up)
		ena_down(a);
	netif_carrier_off(a->netdev);
	ena_mgmt_quiesce(a);
	return up;
}

/**
 * ena_set_llq_large() - switch the LLQ entry size (ethtool -G
 * tx-push-buf-len) and set the ring sizes with it
 * @a: adapter; RTNL held; the device offers LLQ
 * @large: 256-byte entries (224 bytes of pushed header) or 128-byte ones
 * @tx: TX ring size wanted (lowered to the new maximum if above it)
 * @rx: RX ring size wanted
 *
 * The entry size is fixed when the device is initialised (SET LLQ), so the
 * device is reset and initialised again, as after a reset, with the
 * interface brought down and up around it if it was up.  When the new
 * initialisation fails, the old entry size and ring sizes are restored and
 * a recovery reset scheduled.
 *
 * Return: 0, -EBUSY once remove or suspend has begun, or the errno of the
 * initialisation or of the open.
 */
int ena_set_llq_large(struct ena_adapter *a, bool large, u32 tx, u32 rx)
{
	enum ena_llq_large old = a->llq_large;
	u32 old_tx = a->tx_ring_size, old_rx = a->rx_ring_size;
	bool up;
	int rc;

	ASSERT_RTNL();
	if (test_bit(ENA_F_DEV_DEAD, &a->flags))
		return -EIO;
	/* remove or suspend has quiesced the management vector, or will */
	if (test_bit(ENA_F_REMOVING, &a->flags))
		return -EBUSY;
	a->llq_large = large ? ENA_LLQ_LARGE_ON : ENA_LLQ_LARGE_OFF;
	a->tx_ring_size = tx;
	a->rx_ring_size = rx;
	up = ena_reinit_down(a);
	rc = ena_dev_restore(a, ENA_RESET_NORMAL);
	if (rc) {
		a->llq_large = old;
		a->tx_ring_size = old_tx;
		a->rx_ring_size = old_rx;
		ena_reset_schedule(a, ENA_RESET_NORMAL,
				   "LLQ entry size change failed");
		return rc;
	}
	netdev_info(a->netdev, "LLQ entries of %u bytes (%u bytes of pushed header), TX ring %u\n",
		    a->llq.entry_size, a->llq.hdr_room, a->tx_ring_size);
	return up ? ena_up(a) : 0;
}

/**
 * ena_reload() - `devlink dev reload`: initialise the device again
 * @a: adapter; the caller holds the devlink instance lock, not RTNL
 * @admin_irq: the driverinit value of the devlink parameter admin_irq
 * @llq_large: large_llq_header to apply (0 or 1), or -1 to keep the
 *	entry size in force (the parameter did not change since the last
 *	probe or reload, and ethtool's tx-push-buf-len may have set it)
 * @extack: for the error message
 *
 * The re-initialisation of a reset and of an LLQ entry size change, under
 * one RTNL section: the netdev stays registered, and the adapter keeps the
 * settings userspace made (channels, ring sizes, MTU, RSS key and table,
 * coalescing), which ena_dev_restore() pushes to the device again.  An
 * interface that was up comes up again, one that was down stays down.
 * Refused while a reset is pending or the device is left down after a
 * fault: that reset (or `devlink health recover`) runs first.
 *
 * Return: 0, -EBUSY (remove, suspend or a reset under way), or the errno
 * of the initialisation (a recovery reset is scheduled) or of the open.
 */
int ena_reload(struct ena_adapter *a, bool admin_irq, int llq_large,
	       struct netlink_ext_ack *extack)
{
	enum ena_llq_large old_llq = a->llq_large;
	bool old_irq = a->admin_irq, up;
	ktime_t t0 = ktime_get();
	int rc;

	rtnl_lock();
	if (test_bit(ENA_F_REMOVING, &a->flags)) {
		NL_SET_ERR_MSG_MOD(extack, "device is being removed or suspended");
		rc = -EBUSY;
		goto out;
	}
	if (test_bit(ENA_F_RESET_PENDING, &a->flags) ||
	    test_bit(ENA_F_DEV_DEAD, &a->flags)) {
		NL_SET_ERR_MSG_MOD(extack, "a device reset is pending: reload after it");
		rc = -EBUSY;
		goto out;
	}
	a->admin_irq = admin_irq;
	if (llq_large >= 0)
		a->llq_large = llq_large ? ENA_LLQ_LARGE_ON : ENA_LLQ_LARGE_OFF;
	up = ena_reinit_down(a);
	rc = ena_dev_restore(a, ENA_RESET_NORMAL);
	if (rc) {
		a->admin_irq = old_irq;
		a->llq_large = old_llq;
		NL_SET_ERR_MSG_MOD(extack, "device init failed; a recovery reset is scheduled");
		ena_reset_schedule(a, ENA_RESET_NORMAL, "devlink reload failed");
		goto out;
	}
	if (llq_large >= 0)
		a->llq_large_dl = llq_large;
	if (up) {
		rc = ena_up(a);
		if (rc) {
			NL_SET_ERR_MSG_MOD(extack,
					   "device initialised, but the interface did not come up");
			goto out;
		}
	}
	dev_info(&a->pdev->dev, "devlink reload done in %lld us: admin %s, LLQ entries of %u bytes\n",
		 ktime_us_delta(ktime_get(), t0),
		 a->admin_irq ? "interrupt" : "polling", a->llq.entry_size);
out:
	rtnl_unlock();
	return rc;
}

/**
 * ena_reset_run() - reset the device and restore the interface
 * @a: adapter; the caller holds no RTNL (taken here)
 * @only_pending: do nothing unless a reset is pending (the reset work:
 *	a suspend may have taken it over)
 *
 * The recovery itself, run by the reset work (retries), by the devlink
 * health reporters' recover op (a reported fault, or `devlink health
 * recover`) and, before devlink is registered, by the report work.  A
 * failure is tried again at once by the reset work, then by the watchdog;
 * the retry that works marks the devlink reporters healthy again.
 *
 * Return: 0, -EBUSY once remove or suspend has begun (or nothing was
 * pending), or the errno of the failed bring-up.
 */
int ena_reset_run(struct ena_adapter *a, bool only_pending)
{
	ktime_t t0 = ktime_get();
	bool again = false;
	int rc = -EBUSY;

	rtnl_lock();
	if (test_bit(ENA_F_REMOVING, &a->flags) ||
	    (only_pending && !test_bit(ENA_F_RESET_PENDING, &a->flags)))
		goto out;

	a->resets++;
	ena_down(a);
	netif_carrier_off(a->netdev);

	ena_mgmt_quiesce(a);
	rc = ena_dev_restore(a, a->reset_reason);
	/*
	 * A reset may already be pending again if the up failed on a dead
	 * device: that flag stays; otherwise the failure is handled as a
	 * failed reset is.
	 */
	clear_bit(ENA_F_RESET_PENDING, &a->flags);
	if (!rc && test_bit(ENA_F_WANT_UP, &a->flags)) {
		rc = ena_up(a);
		if (rc)
			dev_err(&a->pdev->dev,
				"interface not restored after reset: %d\n", rc);
	}
	if (rc) {
		a->resets_failed++;
		again = !a->reset_fail_streak++;
		WRITE_ONCE(a->reset_retry_at, jiffies + ENA_RESET_RETRY_DELAY);
		set_bit(ENA_F_DEV_DEAD, &a->flags);
		if (again)
			dev_err(&a->pdev->dev,
				"device reset failed (%d); trying again\n", rc);
		else
			dev_err(&a->pdev->dev,
				"device reset failed (%d), %u times in a row; the watchdog retries in %u ms\n",
				rc, a->reset_fail_streak,
				jiffies_to_msecs(ENA_RESET_RETRY_DELAY));
		goto out;
	}
	a->reset_fail_streak = 0;
	dev_info(&a->pdev->dev, "device reset done in %lld us\n",
		 ktime_us_delta(ktime_get(), t0));
out:
	rtnl_unlock();
	if (again)
		ena_reset_retry(a);
	return rc;
}

/**
 * ena_reset_park() - leave the device down after a fault not recovered
 * @a: adapter; the caller holds no RTNL
 *
 * A reported fault whose reporter did not recover (auto-recover off, or
 * a second fault within the grace period): the queues are stopped and
 * freed and the carrier is off, and the reset stays pending (no other
 * reset is queued, the watchdog waits) until `devlink health recover`.
 */
void ena_reset_park(struct ena_adapter *a)
{
	rtnl_lock();
	if (!test_bit(ENA_F_REMOVING, &a->flags) &&
	    test_bit(ENA_F_RESET_PENDING, &a->flags)) {
		a->reports_parked++;
		ena_down(a);
		netif_carrier_off(a->netdev);
		dev_warn(&a->pdev->dev,
			 "device left down after the fault (reason %d) until devlink health recover\n",
			 a->reset_reason);
	}
	rtnl_unlock();
}

/* the reset work: retries of a failed reset (ena_reset_retry()) */
static void ena_reset_work(struct work_struct *w)
{
	struct ena_adapter *a = container_of(w, struct ena_adapter,
					     reset_work);

	if (!ena_reset_run(a, true))
		ena_devlink_recovered(a);
}

void ena_reset_init(struct ena_adapter *a)
{
	spin_lock_init(&a->health_lock);
	INIT_WORK(&a->reset_work, ena_reset_work);
	INIT_WORK(&a->report_work, ena_devlink_report_work);
	mutex_init(&a->report_lock);
}
