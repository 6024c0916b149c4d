// SPDX-License-Identifier: GPL-2.0
/*
 * PCI glue: module entry, probe and remove, MSI-X and the management
 * interrupt.
 *
 * Probe order is the driver's central invariant (see ena_netdev.c): all
 * that ndo_open/ndo_stop/ethtool/stats/AENQ use - device state, reset work,
 * keep-alive watchdog, per-queue stats, debugfs, link state - is set up
 * first, and register_netdev() is the last step.  Remove mirrors it and
 * starts with unregister_netdev().  Probe allocates no IO ring memory.
 */
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/rtnetlink.h>

#include "ena.h"

#define PCI_VENDOR_ID_AMAZON	0x1d0f

static const struct pci_device_id ena_pci_ids[] = {
	{ PCI_VDEVICE(AMAZON, 0x0ec2) },	/* PF */
	{ PCI_VDEVICE(AMAZON, 0x1ec2) },	/* PF, LLQ */
	{ PCI_VDEVICE(AMAZON, 0xec20) },	/* VF */
	{ PCI_VDEVICE(AMAZON, 0xec21) },	/* VF, LLQ */
	{ PCI_VDEVICE(AMAZON, 0x0051) },	/* reserved, claimed in-tree too */
	{ }
};
MODULE_DEVICE_TABLE(pci, ena_pci_ids);

#define ENA_BAR_REGS	0
#define ENA_BAR_LLQ	2

static void ena_probe_mark(struct ena_adapter *a, enum ena_probe_step step,
			   ktime_t t0)
{
	a->probe_step_us[step] = ktime_us_delta(ktime_get(), t0);
}

static irqreturn_t ena_mgmt_irq(int irq, void *data)
{
	ena_admin_irq(data);
	ena_aenq_process(data);
	return IRQ_HANDLED;
}

/**
 * ena_mgmt_arm() - let the management interrupt serve the device
 * @a: adapter; the vector is requested, the admin queue and AENQ programmed
 *
 * The one way the vector goes live, at the end of probe and of a reset:
 * unmask it at the device, hand the AENQ to the device, enable the vector,
 * switch admin completions to the interrupt, and apply the events posted
 * while it was off (a link change).  Undone by ena_mgmt_quiesce().
 */
void ena_mgmt_arm(struct ena_adapter *a)
{
	ena_reg_write(a, ENA_REG_INTR_MASK, 0);
	ena_aenq_enable(a);
	enable_irq(pci_irq_vector(a->pdev, ENA_MGMT_VECTOR));
	ena_admin_irq_mode(a, true);
	ena_aenq_process(a);
}

/**
 * ena_mgmt_quiesce() - no management interrupt handler runs after this
 * @a: adapter
 *
 * The one way the vector goes quiet (remove, shutdown, a probe error after
 * ena_mgmt_arm(), and the start of a reset): admin completions are polled
 * from here on, the vector is masked at the device and disabled, which
 * waits for a handler already running.  Every call follows one
 * ena_mgmt_arm(); a device reset unmasks the vector at the device, the
 * disabled vector keeps the handler away until the next ena_mgmt_arm().
 */
void ena_mgmt_quiesce(struct ena_adapter *a)
{
	ena_admin_irq_mode(a, false);
	ena_reg_write(a, ENA_REG_INTR_MASK, ENA_INTR_MASK_MGMT);
	disable_irq(pci_irq_vector(a->pdev, ENA_MGMT_VECTOR));
}

static int ena_msix_setup(struct ena_adapter *a)
{
	int n;

	n = pci_alloc_irq_vectors(a->pdev, 2, ENA_IO_VECTOR(a->max_queues),
				  PCI_IRQ_MSIX);
	if (n < 0)
		return n;
	a->num_vectors = n;
	a->max_queues = n - 1;
	return 0;
}

static u32 ena_ring_size(u32 dev_max)
{
	u32 s = ENA_DEFAULT_RING_SIZE;

	if (dev_max < s)
		s = rounddown_pow_of_two(dev_max);
	return s;
}

/*
 * The netdev's queue count, fixed before the device says how many queues
 * it has: the most ena_size_queues() can choose with the CPUs online and
 * the MSI-X vectors (one of them is the management vector).  The stack
 * sizes per-queue state by it (mq makes a qdisc for every TX queue at the
 * first open), so sizing for the driver maximum cost every open time and
 * about 3 MiB per interface.  The in-tree driver sizes by the same bounds
 * (and the device's count, which it reads first).
 */
static unsigned int ena_netdev_queues(struct pci_dev *pdev)
{
	unsigned int n = min_t(unsigned int, ENA_MAX_QUEUES, num_online_cpus());
	int vecs = pci_msix_vec_count(pdev);

	if (vecs > 1)
		n = min_t(unsigned int, n, vecs - 1);
	return max(n, 1U);
}

static void ena_size_queues(struct ena_adapter *a)
{
	/* a CPU may have come online since the netdev was sized */
	u32 max = min_t(u32, a->netdev->num_tx_queues, num_online_cpus());

	max = min(max, a->dev_max_queues);
	if (a->llq.enabled)
		max = min(max, a->llq.max_num);
	a->max_queues = max(max, 1U);
	a->avail_queues = a->max_queues;

	a->tx_ring_size = ena_ring_size(a->llq.enabled ?
					min(a->dev_max_tx_depth,
					    a->llq.max_depth) :
					a->dev_max_tx_depth);
	a->rx_ring_size = ena_ring_size(a->dev_max_rx_depth);
	a->rx_copybreak = ENA_RX_COPYBREAK_DEFAULT;
	/* moderation as the in-tree driver starts it (if the device has it) */
	a->adaptive_rx = true;
	a->rx_usecs = ENA_RX_USECS_DEFAULT;
	a->tx_usecs = ENA_TX_USECS_DEFAULT;
}

static int ena_qps_alloc(struct ena_adapter *a)
{
	u32 q;

	a->qps = kcalloc(a->max_queues, sizeof(*a->qps), GFP_KERNEL);
	a->qstats = kcalloc(a->max_queues, sizeof(*a->qstats), GFP_KERNEL);
	if (!a->qps || !a->qstats) {
		kfree(a->qps);
		kfree(a->qstats);
		return -ENOMEM;
	}
	for (q = 0; q < a->max_queues; q++) {
		a->qps[q].adapter = a;
		a->qps[q].qid = q;
		a->qps[q].stats = &a->qstats[q];
		u64_stats_init(&a->qstats[q].napi_sync);
		u64_stats_init(&a->qstats[q].xmit_sync);
		u64_stats_init(&a->qstats[q].xdp_sync);
		spin_lock_init(&a->qps[q].xdp_lock);
	}
	a->num_queues = a->max_queues;
	return 0;
}

static int ena_map_bars(struct ena_adapter *a)
{
	struct pci_dev *pdev = a->pdev;

	a->regs = pci_ioremap_bar(pdev, ENA_BAR_REGS);
	if (!a->regs)
		return -ENOMEM;
	a->regs_len = min_t(resource_size_t, pci_resource_len(pdev, ENA_BAR_REGS),
			    U32_MAX);
	/* LLQ memory: write-combined, TX descriptors are pushed into it */
	if (pci_resource_len(pdev, ENA_BAR_LLQ) &&
	    (pci_resource_flags(pdev, ENA_BAR_LLQ) & IORESOURCE_MEM))
		a->llq_bar = pci_ioremap_wc_bar(pdev, ENA_BAR_LLQ);
	if (a->llq_bar)
		a->llq_len = min_t(resource_size_t,
				   pci_resource_len(pdev, ENA_BAR_LLQ), U32_MAX);
	return 0;
}

static void ena_unmap_bars(struct ena_adapter *a)
{
	if (a->llq_bar)
		iounmap(a->llq_bar);
	iounmap(a->regs);
}

static int ena_probe_dev(struct pci_dev *pdev)
{
	ktime_t t0 = ktime_get();
	struct ena_adapter *a;
	struct net_device *nd;
	int rc;

	rc = pci_enable_device_mem(pdev);
	if (rc)
		return rc;
	rc = pci_request_selected_regions(pdev,
					  pci_select_bars(pdev, IORESOURCE_MEM),
					  ENA_DRV_NAME);
	if (rc)
		goto err_disable;
	pci_set_master(pdev);

	nd = alloc_etherdev_mq(sizeof(*a), ena_netdev_queues(pdev));
	if (!nd) {
		rc = -ENOMEM;
		goto err_regions;
	}
	SET_NETDEV_DEV(nd, &pdev->dev);
	a = netdev_priv(nd);
	a->pdev = pdev;
	a->netdev = nd;
	a->msg_enable = ENA_MSG_DEFAULT;
	pci_set_drvdata(pdev, a);
	/* no link until the device says so */
	netif_carrier_off(nd);

	ena_poll_init(&a->poll, &pdev->dev);
	ena_health_init(a);
	rc = ena_devlink_alloc(a);
	if (rc)
		goto err_netdev;

	rc = ena_map_bars(a);
	if (rc)
		goto err_devlink;

	a->host_info = dma_alloc_coherent(&pdev->dev, PAGE_SIZE,
					  &a->host_info_dma, GFP_KERNEL);
	if (!a->host_info) {
		rc = -ENOMEM;
		goto err_bars;
	}
	rc = ena_mmio_init(a);
	if (rc)
		goto err_host_info;
	rc = ena_admin_alloc(a);
	if (rc)
		goto err_mmio;
	rc = ena_aenq_alloc(a);
	if (rc)
		goto err_admin;
	ena_probe_mark(a, ENA_PROBE_MAPPED, t0);
	rc = ena_device_init(a, ENA_RESET_NORMAL);
	if (rc)
		goto err_device;	/* the admin queue may be programmed */
	ena_probe_mark(a, ENA_PROBE_DEVICE, t0);

	ena_size_queues(a);
	rc = ena_msix_setup(a);
	if (rc)
		goto err_device;
	rc = ena_qps_alloc(a);
	if (rc)
		goto err_msix;
	ena_netdev_setup(a);
	ena_probe_mark(a, ENA_PROBE_MSIX, t0);

	/* the in-tree names, which IRQ-affinity tools match */
	snprintf(a->mgmt_irq_name, sizeof(a->mgmt_irq_name),
		 "ena-mgmnt@pci:%s", pci_name(pdev));
	/* requested off: ena_mgmt_arm() enables it */
	rc = request_irq(pci_irq_vector(pdev, ENA_MGMT_VECTOR), ena_mgmt_irq,
			 IRQF_NO_AUTOEN, a->mgmt_irq_name, a);
	if (rc)
		goto err_qps;
	/*
	 * The device init above polled; from here on (RSS, open, ethtool) the
	 * management interrupt serves admin completions and AENQ events.
	 */
	ena_mgmt_arm(a);
	ena_probe_mark(a, ENA_PROBE_MGMT_IRQ, t0);

	rc = ena_rss_probe(a);
	if (rc)
		goto err_irq;
	ena_probe_mark(a, ENA_PROBE_RSS, t0);

	/*
	 * Expose only the configured queues: the netdev was sized before the
	 * device's count was known, and every queue registered costs sysfs
	 * objects.
	 */
	rc = netif_set_real_num_tx_queues(nd, a->num_queues);
	if (!rc)
		rc = netif_set_real_num_rx_queues(nd, a->num_queues);
	if (rc)
		goto err_rss;
	/* before the watchdog: every reset scheduled goes to a reporter */
	rc = ena_devlink_reporters_create(a);
	if (rc)
		goto err_rss;
	rc = ena_devlink_params_register(a);
	if (rc)
		goto err_reporters;

	ena_debugfs_add(a);
	ena_health_start(a);
	ena_probe_mark(a, ENA_PROBE_HEALTH, t0);

	/* a device that died during probe is not handed to userspace */
	if (test_bit(ENA_F_DEV_DEAD, &a->flags)) {
		dev_err(&pdev->dev, "device failed during probe\n");
		rc = -EIO;
		goto err_health;
	}
	/* the devices before this one get the lower interface names */
	ena_order_wait(pdev);
	/* last step: from here on userspace may open the interface */
	rc = register_netdev(nd);
	if (rc)
		goto err_health;
	/*
	 * After the netdev, as the devlink core wants since 5.16: the
	 * instance appears to userspace (and its notifications go out) only
	 * complete, and nothing can fail after it.  A reset scheduled in
	 * between runs without devlink (ena_devlink_report_work()).
	 */
	ena_devlink_register(a);

	ena_probe_mark(a, ENA_PROBE_REGISTERED, t0);
	a->probe_us = a->probe_step_us[ENA_PROBE_REGISTERED];
	dev_info(&pdev->dev,
		 "probe done in %llu us: %llu admin commands, %llu poll wakeups\n",
		 a->probe_us, a->poll.stats[ENA_WAIT_ADMIN].waits,
		 ena_poll_total_wakeups(&a->poll));
	return 0;

err_health:
	ena_health_stop(a);
	ena_debugfs_remove(a);
	ena_devlink_params_unregister(a);
err_reporters:
	ena_devlink_reporters_destroy(a);
err_rss:
	ena_rss_free(a);
err_irq:
	ena_mgmt_quiesce(a);
	free_irq(pci_irq_vector(pdev, ENA_MGMT_VECTOR), a);
err_qps:
	kfree(a->qps);
	kfree(a->qstats);
err_msix:
	pci_free_irq_vectors(pdev);
err_device:
	ena_device_fini(a);
	ena_aenq_free(a);
err_admin:
	ena_admin_free(a);
err_mmio:
	ena_mmio_fini(a);
err_host_info:
	dma_free_coherent(&pdev->dev, PAGE_SIZE, a->host_info,
			  a->host_info_dma);
err_bars:
	ena_unmap_bars(a);
err_devlink:
	ena_devlink_free(a);
err_netdev:
	free_netdev(nd);
err_regions:
	pci_release_selected_regions(pdev,
				     pci_select_bars(pdev, IORESOURCE_MEM));
err_disable:
	pci_disable_device(pdev);
	return rc;
}

static int ena_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	int rc = ena_probe_dev(pdev);

	/* registered or failed: the next device in PCI order may register */
	ena_order_done(pdev);
	return rc;
}

static void ena_remove(struct pci_dev *pdev)
{
	struct ena_adapter *a = pci_get_drvdata(pdev);
	struct net_device *nd = a->netdev;

	/*
	 * devlink goes first (the devlink core's rule, mirroring probe):
	 * userspace cannot reach the instance, and no report goes to it,
	 * from here on; a reset still scheduled runs without it.
	 * Then no reset can be queued or run, and no management interrupt
	 * handler (AENQ link events, admin wakeups) runs any more: the close
	 * inside unregister_netdev() polls its admin commands.  Only then
	 * does the netdev go, with nothing left to touch it.
	 */
	ena_devlink_unregister(a);
	ena_health_stop(a);
	ena_mgmt_quiesce(a);
	unregister_netdev(nd);
	ena_debugfs_remove(a);
	ena_devlink_params_unregister(a);
	ena_devlink_reporters_destroy(a);
	ena_rss_free(a);
	free_irq(pci_irq_vector(pdev, ENA_MGMT_VECTOR), a);
	kfree(a->qps);
	kfree(a->qstats);
	pci_free_irq_vectors(pdev);
	ena_device_fini(a);
	ena_aenq_free(a);
	ena_admin_free(a);
	ena_mmio_fini(a);
	dma_free_coherent(&pdev->dev, PAGE_SIZE, a->host_info,
			  a->host_info_dma);
	ena_unmap_bars(a);
	ena_devlink_free(a);
	free_netdev(nd);
	pci_release_selected_regions(pdev,
				     pci_select_bars(pdev, IORESOURCE_MEM));
	pci_disable_device(pdev);
}

/*
 * Shutdown (reboot, kexec): the device must stop writing to memory the
 * next kernel will own.  Close the interface, stop health and the
 * management interrupt, reset the device, clear bus mastering and the
 * readless response address (the reset's own reads programmed it again).
 * The memory itself is left alone: nothing runs after this.
 */
static void ena_shutdown(struct pci_dev *pdev)
{
	struct ena_adapter *a = pci_get_drvdata(pdev);

	ena_health_stop(a);
	ena_mgmt_quiesce(a);
	rtnl_lock();
	netif_device_detach(a->netdev);
	if (netif_running(a->netdev))
		dev_close(a->netdev);
	rtnl_unlock();
	ena_device_fini(a);
	ena_mmio_forget(a);
}

/**
 * ena_suspend() - system sleep and hibernation: the device goes quiet
 * @dev: the PCI device
 *
 * As the first half of a reset, and as shutdown: no reset work or
 * watchdog runs, the management interrupt is quiet, the interface is
 * detached with its queues stopped (their memory freed: nothing is held
 * while asleep), then the device is reset and bus mastering cleared, so
 * it writes to no memory until ena_resume().
 *
 * Return: 0.
 */
static int ena_suspend(struct device *dev)
{
	struct ena_adapter *a = dev_get_drvdata(dev);

	WRITE_ONCE(a->suspends, a->suspends + 1);
	ena_health_stop(a);
	/* a reset the cancelled work did not run: resume re-inits anyway */
	if (test_and_clear_bit(ENA_F_RESET_PENDING, &a->flags))
		dev_info(dev, "pending device reset left to the resume\n");
	ena_mgmt_quiesce(a);
	rtnl_lock();
	netif_device_detach(a->netdev);
	ena_down(a);
	netif_carrier_off(a->netdev);
	rtnl_unlock();
	ena_device_fini(a);
	return 0;
}

/**
 * ena_resume() - bring the device back after ena_suspend()
 * @dev: the PCI device
 *
 * As the second half of a reset: bus mastering on, device reset and
 * re-initialised, settings reconciled, the management interrupt armed,
 * the interface attached and, if it was up, its queues started.  If the
 * device does not come back, the interface stays attached and down and
 * the recovery worker retries (a resume callback cannot fail usefully).
 *
 * Return: 0.
 */
static int ena_resume(struct device *dev)
{
	struct ena_adapter *a = dev_get_drvdata(dev);
	int rc;

	WRITE_ONCE(a->resumes, a->resumes + 1);
	pci_set_master(a->pdev);
	rtnl_lock();
	rc = ena_dev_restore(a, ENA_RESET_NORMAL);
	if (!rc && test_bit(ENA_F_WANT_UP, &a->flags))
		rc = ena_up(a);
	netif_device_attach(a->netdev);
	rtnl_unlock();
	clear_bit(ENA_F_REMOVING, &a->flags);
	ena_health_start(a);
	if (rc) {
		dev_err(dev, "device not restored after resume (%d)\n", rc);
		ena_reset_schedule(a, ENA_RESET_DRIVER_INVALID_STATE,
				   "resume failed");
	}
	return 0;
}

ENA_PM_OPS_STATIC DEFINE_SIMPLE_DEV_PM_OPS(ena_pm_ops, ena_suspend, ena_resume);

/**
 * ena_pm_cycle() - run the suspend and resume callbacks back to back
 * @a: adapter
 *
 * The debugfs hook behind pm_cycle: the callbacks as the PM core runs
 * them (device lock held), without the PCI core's power state change.
 * The device lock is only tried, so a remove in progress is never waited
 * for (remove waits for this file's writers).
 *
 * Return: 0, or -EBUSY when the device lock is taken.
 */
int ena_pm_cycle(struct ena_adapter *a)
{
	struct device *dev = &a->pdev->dev;

	if (!device_trylock(dev))
		return -EBUSY;
	ena_suspend(dev);
	ena_resume(dev);
	device_unlock(dev);
	return 0;
}

static struct pci_driver ena_pci_driver = {
	.name		= ENA_DRV_NAME,
	.id_table	= ena_pci_ids,
	.probe		= ena_probe,
	.remove		= ena_remove,
	.shutdown	= ena_shutdown,
	.driver.pm	= pm_sleep_ptr(&ena_pm_ops),
};

static int __init ena_init(void)
{
	int rc;

	ena_params_deprecation_note();
	ena_debugfs_module_init();
	ena_order_init(&ena_pci_driver);
	rc = pci_register_driver(&ena_pci_driver);
	if (rc) {
		ena_order_fini();
		ena_debugfs_module_exit();
	}
	return rc;
}

static void __exit ena_exit(void)
{
	pci_unregister_driver(&ena_pci_driver);
	ena_order_fini();
	ena_debugfs_module_exit();
}

module_init(ena_init);
module_exit(ena_exit);

MODULE_DESCRIPTION("Amazon Elastic Network Adapter (ENA) driver, out of tree");
MODULE_LICENSE("GPL");
