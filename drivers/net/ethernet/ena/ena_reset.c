// SPDX-License-Identifier: GPL-2.0
/*
 * Health: the keep-alive watchdog, the DEV_STS fatal check, and the reset
 * work that recovers the device (tear down queues, reset, re-init admin
 * queue, restore the up state).
 */
#include <linux/jiffies.h>
#include <linux/rtnetlink.h>

#include "ena.h"

/*
 * A failed reset is retried by the watchdog after this long, whatever
 * else it checks (keep-alive may be off): one attempt per reset work run,
 * so RTNL is never held for more than one device bring-up.
 */
#define ENA_RESET_RETRY_DELAY	(2 * HZ)
/* hint value meaning "no keep-alive checking" */
#define ENA_HINT_NO_TIMEOUT	0xffff

static void ena_watchdog(struct work_struct *w)
{
	struct ena_adapter *a = container_of(to_delayed_work(w),
					     struct ena_adapter, watchdog);
	u32 to = a->keep_alive_timeout_ms, sts;

	if (test_bit(ENA_F_RESET_PENDING, &a->flags))
		goto again;
	if (test_bit(ENA_F_DEV_DEAD, &a->flags)) {
		if (time_after_eq(jiffies, READ_ONCE(a->reset_retry_at)))
			ena_reset_schedule(a, a->reset_reason,
					   "retrying after a failed reset");
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
	if (!test_bit(ENA_F_DEV_DEAD, &a->flags) &&
	    !ena_reg_read(a, ENA_REG_DEV_STS, &sts) &&
	    (sts & ENA_DEV_STS_FATAL))
		ena_reset_schedule(a, ENA_RESET_GENERIC,
				   "DEV_STS reports a fatal error");
	ena_rx_kick_starved(a);
again:
	queue_delayed_work(system_wq, &a->watchdog, ENA_WATCHDOG_PERIOD);
}

/**
 * ena_reset_schedule() - ask for a device reset
 * @a: adapter
 * @reason: reason reported to the device
 * @why: for the log line
 *
 * Any context.  The device is treated as dead from here on: queue stops
 * skip their DESTROY commands and new admin commands fail fast.  During
 * probe (before ena_health_start()) the failing step aborts probe instead.
 */
void ena_reset_schedule(struct ena_adapter *a, enum ena_reset_reason reason,
			const char *why)
{
	unsigned long irqf;
	bool queued = false;

	set_bit(ENA_F_DEV_DEAD, &a->flags);
	/*
	 * Under the health lock, so that once ena_health_stop() has marked
	 * the adapter removing, no caller (hard IRQ included) can queue the
	 * work behind its cancel_work_sync().
	 */
	spin_lock_irqsave(&a->health_lock, irqf);
	if (test_bit(ENA_F_LIVE, &a->flags) &&
	    !test_bit(ENA_F_REMOVING, &a->flags) &&
	    !test_and_set_bit(ENA_F_RESET_PENDING, &a->flags)) {
		a->reset_reason = reason;
		queued = queue_work(system_unbound_wq, &a->reset_work);
	}
	spin_unlock_irqrestore(&a->health_lock, irqf);
	if (queued)
		dev_err(&a->pdev->dev, "device reset scheduled: %s (reason %d)\n",
			why, reason);
}

void ena_keep_alive(struct ena_adapter *a)
{
	WRITE_ONCE(a->last_keep_alive, jiffies);
}

static void ena_reset_work(struct work_struct *w)
{
	struct ena_adapter *a = container_of(w, struct ena_adapter,
					     reset_work);
	int irq = pci_irq_vector(a->pdev, ENA_MGMT_VECTOR);
	ktime_t t0 = ktime_get();
	int rc;

	rtnl_lock();
	if (!test_bit(ENA_F_RESET_PENDING, &a->flags) ||
	    test_bit(ENA_F_REMOVING, &a->flags))
		goto out;

	a->resets++;
	ena_down(a);
	netif_carrier_off(a->netdev);

	ena_admin_irq_mode(a, false);
	disable_irq(irq);
	rc = ena_device_init(a, a->reset_reason);
	if (!rc)
		rc = ena_reconcile(a);
	ena_reg_write(a, ENA_REG_INTR_MASK, 0);
	ena_aenq_enable(a);
	enable_irq(irq);
	ena_admin_irq_mode(a, true);
	ena_aenq_process(a);
	ena_keep_alive(a);
	clear_bit(ENA_F_RSS_PUSHED, &a->flags);

	if (rc) {
		a->resets_failed++;
		WRITE_ONCE(a->reset_retry_at, jiffies + ENA_RESET_RETRY_DELAY);
		set_bit(ENA_F_DEV_DEAD, &a->flags);
		clear_bit(ENA_F_RESET_PENDING, &a->flags);
		dev_err(&a->pdev->dev,
			"device reset failed (%d); the watchdog retries in %u ms\n",
			rc, jiffies_to_msecs(ENA_RESET_RETRY_DELAY));
		goto out;
	}
	clear_bit(ENA_F_RESET_PENDING, &a->flags);
	if (test_bit(ENA_F_WANT_UP, &a->flags)) {
		rc = ena_up(a);
		if (rc)
			dev_err(&a->pdev->dev,
				"interface not restored after reset: %d\n", rc);
	}
	dev_info(&a->pdev->dev, "device reset done in %lld us\n",
		 ktime_us_delta(ktime_get(), t0));
out:
	rtnl_unlock();
}

void ena_health_init(struct ena_adapter *a)
{
	a->keep_alive_timeout_ms = ENA_KEEP_ALIVE_TIMEOUT_MS;
	spin_lock_init(&a->health_lock);
	INIT_WORK(&a->reset_work, ena_reset_work);
	INIT_DELAYED_WORK(&a->watchdog, ena_watchdog);
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
 * Marks the adapter removing under the health lock, then cancels the
 * watchdog (which stops re-arming itself) and the reset work.
 */
void ena_health_stop(struct ena_adapter *a)
{
	unsigned long irqf;

	spin_lock_irqsave(&a->health_lock, irqf);
	set_bit(ENA_F_REMOVING, &a->flags);
	clear_bit(ENA_F_LIVE, &a->flags);
	spin_unlock_irqrestore(&a->health_lock, irqf);
	cancel_delayed_work_sync(&a->watchdog);
	cancel_work_sync(&a->reset_work);
}
