// SPDX-License-Identifier: GPL-2.0
/*
 * The asynchronous event notification queue (AENQ): the device posts link
 * changes, keep-alives, warnings, fatal errors, notifications (new hints),
 * configuration notices and requests to be reset (outright, or to have its
 * capabilities read again) into a host ring and raises the management
 * interrupt.  This file owns that ring: its memory
 * (ena_aenq_alloc(), ena_aenq_free()), handing it to the device after
 * every reset (ena_aenq_program()), returning the consumed entries
 * (ena_aenq_enable()) and dispatching each new event (ena_aenq_process()).
 *
 * Order against the admin queue (ena_com.c): allocated after it and freed
 * before it; programmed right after it in ena_device_init(), while no
 * management interrupt handler can run.  Entries are consumed only while
 * ENA_F_ADMIN_READY says the rings are programmed into the device.
 */
#include <linux/bitfield.h>
#include <linux/dma-mapping.h>

#include "ena.h"

#define ENA_AENQ_RING_BYTES	(ENA_AENQ_DEPTH * ENA_AENQ_ENTRY_SIZE)

/**
 * ena_aenq_alloc() - allocate the AENQ ring
 * @a: adapter
 *
 * Probe only, after ena_admin_alloc().
 *
 * Return: 0 or -ENOMEM.
 */
int ena_aenq_alloc(struct ena_adapter *a)
{
	spin_lock_init(&a->aenq.lock);
	a->aenq.ring = dma_alloc_coherent(&a->pdev->dev, ENA_AENQ_RING_BYTES,
					  &a->aenq.dma, GFP_KERNEL);
	return a->aenq.ring ? 0 : -ENOMEM;
}

/**
 * ena_aenq_program() - hand a clean AENQ ring to the device
 * @a: adapter
 *
 * Clears the ring, rewinds head and phase, and writes the ring's base and
 * geometry.  Called after every device reset, right after
 * ena_admin_program().  The head doorbell is not rung here:
 * ena_aenq_enable() does that once the management interrupt is armed.
 */
void ena_aenq_program(struct ena_adapter *a)
{
	struct ena_aenq *q = &a->aenq;
	unsigned long irqf;

	spin_lock_irqsave(&q->lock, irqf);
	memset(q->ring, 0, ENA_AENQ_RING_BYTES);
	q->head = ENA_AENQ_DEPTH;
	q->phase = 1;
	ena_reg_write_ring(a, ENA_REG_AENQ_BASE_LO, ENA_REG_AENQ_CAPS, q->dma,
			   ENA_AENQ_DEPTH, ENA_AENQ_ENTRY_SIZE);
	spin_unlock_irqrestore(&q->lock, irqf);
}

/**
 * ena_aenq_free() - give the AENQ ring back
 * @a: adapter
 *
 * After ena_device_fini() (the device writes no more events) and before
 * ena_admin_free().  Clearing ENA_F_ADMIN_READY first keeps
 * ena_aenq_process() away from the ring.
 */
void ena_aenq_free(struct ena_adapter *a)
{
	clear_bit(ENA_F_ADMIN_READY, &a->flags);
	dma_free_coherent(&a->pdev->dev, ENA_AENQ_RING_BYTES, a->aenq.ring,
			  a->aenq.dma);
}

/**
 * ena_aenq_enable() - give the device the whole ring to post events into
 * @a: adapter
 *
 * Rings the head doorbell with the current head; part of arming the
 * management interrupt (ena_mgmt_arm()).
 */
void ena_aenq_enable(struct ena_adapter *a)
{
	unsigned long irqf;

	spin_lock_irqsave(&a->aenq.lock, irqf);
	ena_reg_write(a, ENA_REG_AENQ_HEAD_DB, a->aenq.head);
	spin_unlock_irqrestore(&a->aenq.lock, irqf);
}

static u64 ena_lohi(__le32 lo, __le32 hi)
{
	return ((u64)le32_to_cpu(hi) << 32) | le32_to_cpu(lo);
}

/* one event; under aenq.lock, from the management interrupt or probe/reset */
static void ena_aenq_handle(struct ena_adapter *a,
			    const struct ena_aenq_entry *e)
{
	u16 group = le16_to_cpu(e->group);

	a->aenq.events[min_t(u16, group, ENA_AENQ_GROUPS)]++;
	switch (group) {
	case ENA_AENQ_LINK_CHANGE:
		ena_link_update(a, le32_to_cpu(e->link_flags) &
				   ENA_AENQ_LINK_UP);
		break;
	case ENA_AENQ_KEEP_ALIVE:
		WRITE_ONCE(a->dev_rx_drops, ena_lohi(e->keep_alive.rx_drops_lo,
						     e->keep_alive.rx_drops_hi));
		WRITE_ONCE(a->dev_tx_drops, ena_lohi(e->keep_alive.tx_drops_lo,
						     e->keep_alive.tx_drops_hi));
		WRITE_ONCE(a->dev_rx_overruns,
			   ena_lohi(e->keep_alive.rx_overruns_lo,
				    e->keep_alive.rx_overruns_hi));
		ena_keep_alive(a);
		break;
	case ENA_AENQ_FATAL_ERROR:
		ena_reset_schedule(a, ENA_RESET_GENERIC,
				   "fatal error event from device");
		break;
	case ENA_AENQ_WARNING:
		dev_warn_ratelimited(&a->pdev->dev,
				     "device warning, syndrome %u\n",
				     le16_to_cpu(e->syndrome));
		break;
	case ENA_AENQ_NOTIFICATION:
		if (le16_to_cpu(e->syndrome) == ENA_AENQ_SYNDROME_UPDATE_HINTS)
			ena_hints_apply(a, &e->hints, true);
		else
			dev_dbg(&a->pdev->dev,
				"notification with unknown syndrome %u\n",
				le16_to_cpu(e->syndrome));
		break;
	case ENA_AENQ_CONF_NOTIFICATIONS:
		dev_info_ratelimited(&a->pdev->dev,
				     "device reports a sub-optimal configuration: 0x%llx\n",
				     le64_to_cpu(e->conf_notifications));
		break;
	case ENA_AENQ_REFRESH_CAPS:
		/* only a bring-up reads the capabilities: reset, as in-tree */
		ena_reset_schedule(a, ENA_RESET_NORMAL,
				   "device capabilities changed");
		break;
	case ENA_AENQ_DEVICE_REQUEST_RESET:
		ena_reset_schedule(a, ENA_RESET_DEVICE_REQUEST,
				   "the device asked for a reset");
		break;
	default:
		dev_dbg(&a->pdev->dev, "unknown AENQ group %u\n", group);
		break;
	}
}

/**
 * ena_aenq_process() - consume new AENQ entries and return them
 * @a: adapter
 *
 * Called from the management interrupt and once from ena_mgmt_arm() (probe
 * and reset), so an event posted while the interrupt was off (a link change
 * right after SET AENQ_CONFIG) is applied at once.
 */
void ena_aenq_process(struct ena_adapter *a)
{
	struct ena_aenq *q = &a->aenq;
	unsigned long irqf;
	u16 done = 0;

	spin_lock_irqsave(&q->lock, irqf);
	if (!test_bit(ENA_F_ADMIN_READY, &a->flags))
		goto out;
	for (;;) {
		struct ena_aenq_entry *e = &q->ring[q->head & (ENA_AENQ_DEPTH - 1)];

		if ((READ_ONCE(e->flags) & ENA_AENQ_FLAG_PHASE) != q->phase)
			break;
		dma_rmb();
		ena_aenq_handle(a, e);
		q->head++;
		if (!(q->head & (ENA_AENQ_DEPTH - 1)))
			q->phase ^= 1;
		done++;
	}
	if (done)
		ena_reg_write(a, ENA_REG_AENQ_HEAD_DB, q->head);
out:
	spin_unlock_irqrestore(&q->lock, irqf);
}
