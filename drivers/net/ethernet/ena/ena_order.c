// SPDX-License-Identifier: GPL-2.0
/*
 * Parallel probing (probe_parallel=1), interfaces registered in PCI order.
 *
 * With probe_parallel=1 the devices present at module load probe in
 * parallel (PROBE_PREFER_ASYNCHRONOUS): the admin round trips of one probe overlap
 * those of the others and the opens of the interfaces already registered.
 * The kernel names an interface when it is registered (eth<N>, the lowest
 * N free), so registration keeps the order a probe one device after the
 * other would give: at module load the devices waiting for this driver are
 * listed in the driver core's order (the order it probes them in), and a
 * listed device registers only once every device before it on the list has
 * registered or failed.  A device not on the list (hot-plugged or bound
 * later) waits for none.  The wait is bounded: a listed device that never
 * reaches our probe (bound to another driver meanwhile) delays the others
 * by at most ENA_ORDER_WAIT_MS, with a warning.
 *
 * Off by default, as in-tree (one device after the other): the boot
 * benchmark measured no gain under TCG with 4 and 8 devices on 2 vCPUs,
 * where the chain of opens under RTNL, not the probes, sets the time to
 * all interfaces up (ena-fast-design-notes.rst).  The module load waits for
 * the parallel probes too.
 */
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "ena.h"
#include "ena_compat.h"

static bool probe_parallel;
module_param(probe_parallel, bool, 0444);
MODULE_PARM_DESC(probe_parallel,
		 "probe the devices present at load in parallel, interfaces registered in PCI order (default: one after the other, as in-tree)");

#define ENA_ORDER_WAIT_MS	10000

struct ena_order_slot {
	struct pci_dev *pdev;
	bool done;
};

static struct ena_order_slot *ena_order;
static unsigned int ena_order_n;
static DECLARE_WAIT_QUEUE_HEAD(ena_order_wq);

static bool ena_order_wants(struct pci_dev *pdev, struct pci_driver *drv)
{
	return !pdev->dev.driver && pci_match_id(drv->id_table, pdev) &&
	       ena_override_allows(pdev, drv);
}

/**
 * ena_order_init() - list the devices this driver will probe, in order
 * @drv: the driver, not registered yet; its probe type is set here
 *
 * Called once before pci_register_driver().  Lists the unbound devices
 * that match @drv's ID table in the PCI core's device order and turns
 * on parallel probing; without the list (probe_parallel=0, no memory)
 * the devices probe one after the other.
 */
void ena_order_init(struct pci_driver *drv)
{
	struct pci_dev *pdev = NULL;
	unsigned int n = 0;

	if (!probe_parallel)
		return;
	for_each_pci_dev(pdev)
		n += ena_order_wants(pdev, drv);
	if (n) {
		ena_order = kcalloc(n, sizeof(*ena_order), GFP_KERNEL);
		if (!ena_order)
			return;
	}
	/* a device added since the count is not listed: it waits for none */
	for_each_pci_dev(pdev) {
		if (ena_order_n == n)
			continue;
		if (ena_order_wants(pdev, drv))
			ena_order[ena_order_n++].pdev = pci_dev_get(pdev);
	}
	drv->driver.probe_type = PROBE_PREFER_ASYNCHRONOUS;
}

/* ena_order_fini() - drop the list; after pci_unregister_driver() */
void ena_order_fini(void)
{
	unsigned int i;

	for (i = 0; i < ena_order_n; i++)
		pci_dev_put(ena_order[i].pdev);
	kfree(ena_order);
	ena_order = NULL;
	ena_order_n = 0;
}

static int ena_order_find(struct pci_dev *pdev)
{
	unsigned int i;

	for (i = 0; i < ena_order_n; i++)
		if (ena_order[i].pdev == pdev)
			return i;
	return -1;
}

/**
 * ena_order_wait() - wait for the devices listed before this one
 * @pdev: the device about to register its interface
 *
 * Returns once each device before @pdev on the load-time list has
 * registered or failed (ena_order_done()), or after ENA_ORDER_WAIT_MS in
 * all; a device still not done then is passed over with a warning.
 */
void ena_order_wait(struct pci_dev *pdev)
{
	unsigned long end = jiffies + msecs_to_jiffies(ENA_ORDER_WAIT_MS);
	int i, me = ena_order_find(pdev);

	for (i = 0; i < me; i++) {
		struct ena_order_slot *s = &ena_order[i];
		long left = max_t(long, (long)(end - jiffies), 1);

		if (wait_event_timeout(ena_order_wq, READ_ONCE(s->done), left))
			continue;
		dev_warn(&pdev->dev,
			 "%s not registered after %u ms: registering first, interface names may not follow PCI order\n",
			 pci_name(s->pdev), ENA_ORDER_WAIT_MS);
		WRITE_ONCE(s->done, true);
	}
}

/**
 * ena_order_done() - this device's probe has ended
 * @pdev: the device; its interface is registered, or its probe failed
 */
void ena_order_done(struct pci_dev *pdev)
{
	int me = ena_order_find(pdev);

	if (me < 0 || READ_ONCE(ena_order[me].done))
		return;
	WRITE_ONCE(ena_order[me].done, true);
	wake_up_all(&ena_order_wq);
}
