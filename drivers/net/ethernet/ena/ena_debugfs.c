// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: /sys/kernel/debug/ena/<pci-bdf>/
 *   stats   every counter, "name value" per line (same names as ethtool -S)
 *   poll    the wait policy in force and its counters per wait kind
 *   queues  per queue: state, node, depths, device indices, ring bytes
 *   probe   probe milestones in us since probe start
 *   inject_rx_alloc_fail  (write) fail the next N RX buffer allocations:
 *           a selftest hook for the starved-ring recovery
 *   pm_cycle  (write 1) run the suspend and resume callbacks once, as a
 *           system sleep would: a selftest hook where the guest cannot sleep
 *   admin_ping  (write N, 1..1000) N admin commands back to back: the
 *           benchmark of the admin wait's own reaction
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "ena.h"

static struct dentry *ena_debugfs_root;

void ena_debugfs_module_init(void)
{
	ena_debugfs_root = debugfs_create_dir(ENA_DRV_NAME, NULL);
}

void ena_debugfs_module_exit(void)
{
	debugfs_remove_recursive(ena_debugfs_root);
	ena_debugfs_root = NULL;
}

static void ena_seq_stat(void *ctx, const char *name, u64 val)
{
	seq_printf(ctx, "%s %llu\n", name, val);
}

static int ena_stats_show(struct seq_file *s, void *unused)
{
	/* RTNL keeps the queues' page pools in place while they are read */
	rtnl_lock();
	ena_up_wait(s->private);
	ena_stats_walk(s->private, ena_seq_stat, s);
	rtnl_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ena_stats);

static int ena_poll_show(struct seq_file *s, void *unused)
{
	struct ena_adapter *a = s->private;
	const struct ena_poll *p = &a->poll;
	struct ena_poll_cfg c;
	int k;

	ena_poll_cfg_get(&a->poll, &c);
	seq_printf(s, "policy %s\nfirst_us %u\nstep_us %u\nmax_us %u\nspin_us %u\n",
		   ena_poll_mode_name(c.mode), c.first_us, c.step_us, c.max_us,
		   c.spin_us);
	seq_printf(s, "admin_timeout_us %u\nreset_timeout_us %u\n",
		   a->aq.timeout_us, a->reset_timeout_us);
	seq_printf(s, "admin_completion_mode %s\n",
		   test_bit(ENA_F_ADMIN_IRQ, &a->flags) ? "interrupt" : "polling");
	for (k = 0; k < ENA_WAIT_KINDS; k++) {
		const struct ena_wait_stats *w = &p->stats[k];

		seq_printf(s, "%s waits %llu wakeups %llu total_ns %llu max_ns %llu timeouts %llu sleep_asked_ns %llu sleep_ns %llu spin_ns %llu spin_hits %llu\n",
			   ena_wait_kind_name(k), READ_ONCE(w->waits),
			   READ_ONCE(w->wakeups), READ_ONCE(w->total_ns),
			   READ_ONCE(w->max_ns), READ_ONCE(w->timeouts),
			   READ_ONCE(w->sleep_asked_ns),
			   READ_ONCE(w->sleep_ns), READ_ONCE(w->spin_ns),
			   READ_ONCE(w->spin_hits));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ena_poll);

static int ena_queues_show(struct seq_file *s, void *unused)
{
	struct ena_adapter *a = s->private;
	u32 q;

	/* a settled view: no open's queue start or queue change under way */
	rtnl_lock();
	ena_up_wait(a);
	seq_printf(s, "configured %u max %u tx_ring %u rx_ring %u llq %d\n",
		   a->num_queues, a->max_queues, a->tx_ring_size,
		   a->rx_ring_size, a->llq.enabled);
	for (q = 0; q < a->max_queues; q++) {
		struct ena_qp *qp = &a->qps[q];
		unsigned long st = READ_ONCE(qp->state);

		if (!(st & BIT(ENA_QP_ALLOCATED)))
			continue;
		seq_printf(s, "q%u %s node %d tx %u/sq%u/cq%u rx %u/sq%u/cq%u ring_bytes %llu\n",
			   q, st & BIT(ENA_QP_STARTED) ? "started" : "stopped",
			   qp->node, qp->tx.depth, qp->tx.sq_idx, qp->tx.cq_idx,
			   qp->rx.depth, qp->rx.sq_idx, qp->rx.cq_idx,
			   READ_ONCE(a->qstats[q].ring_bytes));
	}
	rtnl_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ena_queues);

static const char * const ena_probe_step_names[ENA_PROBE_STEPS] = {
	[ENA_PROBE_MAPPED] = "mapped",
	[ENA_PROBE_DEVICE] = "device_init",
	[ENA_PROBE_MSIX] = "msix_netdev",
	[ENA_PROBE_MGMT_IRQ] = "mgmt_irq",
	[ENA_PROBE_RSS] = "rss",
	[ENA_PROBE_HEALTH] = "debugfs_watchdog",
	[ENA_PROBE_REGISTERED] = "registered",
};

static int ena_probe_show(struct seq_file *s, void *unused)
{
	struct ena_adapter *a = s->private;
	int i;

	for (i = 0; i < ENA_PROBE_STEPS; i++)
		seq_printf(s, "%s %u\n", ena_probe_step_names[i],
			   a->probe_step_us[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ena_probe);

static int ena_pm_cycle_set(void *data, u64 val)
{
	return val ? ena_pm_cycle(data) : 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(ena_pm_cycle_fops, NULL, ena_pm_cycle_set, "%llu\n");

/* the most commands one write to admin_ping sends */
#define ENA_ADMIN_PING_MAX	1000

/*
 * admin_ping: write N, and N GET_FEATURE(DEVICE_ATTRIBUTES) commands go to
 * the device one after the other through the normal admin path, with no
 * other work between them.  The device model's reaction samples (a posted
 * completion to the next doorbell) then measure the admin wait alone,
 * without the probe's own work between its commands (bench/guest-probe.sh).
 * Under RTNL, as ethtool's commands, so no reset runs beside it.
 */
static int ena_admin_ping_set(void *data, u64 val)
{
	struct ena_adapter *a = data;
	struct ena_acq_resp r;
	int rc = 0;
	u64 i;

	if (!val || val > ENA_ADMIN_PING_MAX)
		return -EINVAL;
	rtnl_lock();
	for (i = 0; i < val && !rc; i++)
		rc = ena_get_feature(a, ENA_FEAT_DEV_ATTR, 0, 0, 0, &r);
	rtnl_unlock();
	return rc;
}
DEFINE_DEBUGFS_ATTRIBUTE(ena_admin_ping_fops, NULL, ena_admin_ping_set,
			 "%llu\n");

void ena_debugfs_add(struct ena_adapter *a)
{
	if (IS_ERR_OR_NULL(ena_debugfs_root))
		return;
	a->debugfs = debugfs_create_dir(pci_name(a->pdev), ena_debugfs_root);
	debugfs_create_file("stats", 0444, a->debugfs, a, &ena_stats_fops);
	debugfs_create_file("poll", 0444, a->debugfs, a, &ena_poll_fops);
	debugfs_create_file("queues", 0444, a->debugfs, a, &ena_queues_fops);
	debugfs_create_file("probe", 0444, a->debugfs, a, &ena_probe_fops);
	debugfs_create_u32("inject_rx_alloc_fail", 0600, a->debugfs,
			   &a->inject_rx_alloc_fail);
	debugfs_create_file_unsafe("pm_cycle", 0200, a->debugfs, a,
				   &ena_pm_cycle_fops);
	debugfs_create_file_unsafe("admin_ping", 0200, a->debugfs, a,
				   &ena_admin_ping_fops);
}

void ena_debugfs_remove(struct ena_adapter *a)
{
	debugfs_remove_recursive(a->debugfs);
	a->debugfs = NULL;
}
