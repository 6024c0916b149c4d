// SPDX-License-Identifier: GPL-2.0
/*
 * The wait policy: check at once; then sleep and grow the sleep by a policy
 * (linear by default) up to a cap; give up at the caller's bound with -ETIME
 * and a log line naming what was waited for.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/string.h>

#include "ena_poll.h"

/*
 * The module parameters are deprecated aliases of the devlink parameters
 * admin_poll_* (ena_devlink.c): they set every device's policy at probe.
 */
static char *admin_poll = "linear";
module_param(admin_poll, charp, 0444);
MODULE_PARM_DESC(admin_poll,
		 "Deprecated, use devlink param admin_poll_mode. Device wait policy: linear (default), fixed or exp");

static uint admin_poll_us;
module_param(admin_poll_us, uint, 0444);
MODULE_PARM_DESC(admin_poll_us,
		 "Deprecated, use devlink param admin_poll_first_us. First sleep in us (the only one for 'fixed'); 0 = policy default (linear 10, fixed 5000, exp 100)");

static uint admin_poll_step_us;
module_param(admin_poll_step_us, uint, 0444);
MODULE_PARM_DESC(admin_poll_step_us,
		 "Deprecated, use devlink param admin_poll_step_us. Linear growth per wakeup in us; 0 = default 10");

static uint admin_poll_max_us;
module_param(admin_poll_max_us, uint, 0444);
MODULE_PARM_DESC(admin_poll_max_us,
		 "Deprecated, use devlink param admin_poll_max_us. Longest single sleep in us; 0 = policy default (linear 1000, exp 5000)");

static uint admin_poll_spin_us = ENA_POLL_SPIN_DEFAULT_US;
module_param(admin_poll_spin_us, uint, 0444);
MODULE_PARM_DESC(admin_poll_spin_us,
		 "Deprecated, use devlink param admin_poll_spin_us. Admin waits: busy-poll this many us before the first sleep (default 100, 0 = none, at most 200)");

static const char * const ena_poll_mode_names[] = {
	[ENA_POLL_LINEAR] = "linear",
	[ENA_POLL_FIXED] = "fixed",
	[ENA_POLL_EXP] = "exp",
};

static const char * const ena_wait_kind_names[] = {
	[ENA_WAIT_ADMIN] = "admin",
	[ENA_WAIT_RESET] = "reset",
	[ENA_WAIT_MMIO] = "mmio",
};

const char *ena_poll_mode_name(enum ena_poll_mode mode)
{
	return ena_poll_mode_names[mode];
}

const char *ena_wait_kind_name(enum ena_wait_kind kind)
{
	return ena_wait_kind_names[kind];
}

/**
 * ena_poll_mode_parse() - a policy's name to its mode
 * @name: "linear", "fixed" or "exp" (a trailing newline is ignored)
 *
 * Return: the enum ena_poll_mode, or -EINVAL.
 */
int ena_poll_mode_parse(const char *name)
{
	return sysfs_match_string(ena_poll_mode_names, name);
}

/* true when any admin_poll* module parameter is not at its default */
bool ena_poll_params_changed(void)
{
	return !sysfs_streq(admin_poll, "linear") || admin_poll_us ||
	       admin_poll_step_us || admin_poll_max_us ||
	       admin_poll_spin_us != ENA_POLL_SPIN_DEFAULT_US;
}

/**
 * ena_poll_init() - a device's policy, from the module parameters
 * @p: policy and counters of one device
 * @dev: device named in log lines
 *
 * The policy's defaults, overridden by the module parameters that are
 * set; devlink changes it later (ena_poll_cfg_set()).  An unknown policy
 * name falls back to "linear" with a warning.
 */
void ena_poll_init(struct ena_poll *p, struct device *dev)
{
	struct ena_poll_cfg *c = &p->cfg;

	memset(p, 0, sizeof(*p));
	p->dev = dev;
	spin_lock_init(&p->cfg_lock);

	if (sysfs_streq(admin_poll, "fixed")) {
		c->mode = ENA_POLL_FIXED;
		c->first_us = ENA_POLL_FIXED_US;
		c->max_us = ENA_POLL_FIXED_US;
	} else if (sysfs_streq(admin_poll, "exp")) {
		c->mode = ENA_POLL_EXP;
		c->first_us = ENA_POLL_EXP_FIRST_US;
		c->max_us = ENA_POLL_EXP_MAX_US;
	} else {
		if (!sysfs_streq(admin_poll, "linear"))
			dev_warn(dev, "admin_poll=%s unknown, using linear\n",
				 admin_poll);
		c->mode = ENA_POLL_LINEAR;
		c->first_us = ENA_POLL_LINEAR_FIRST_US;
		c->max_us = ENA_POLL_LINEAR_MAX_US;
	}
	/* every mode has a step, so that switching to linear keeps one */
	c->step_us = ENA_POLL_LINEAR_STEP_US;

	if (admin_poll_us)
		c->first_us = min_t(u32, admin_poll_us, ENA_POLL_SLEEP_MAX_US);
	if (admin_poll_step_us)
		c->step_us = min_t(u32, admin_poll_step_us, ENA_POLL_SLEEP_MAX_US);
	if (admin_poll_max_us)
		c->max_us = min_t(u32, admin_poll_max_us, ENA_POLL_SLEEP_MAX_US);
	c->max_us = max(c->max_us, c->first_us);
	c->spin_us = min_t(u32, admin_poll_spin_us, ENA_POLL_SPIN_MAX_US);
}

/**
 * ena_poll_cfg_get() - the policy in force
 * @p: policy of one device
 * @cfg: filled with a consistent copy
 */
void ena_poll_cfg_get(struct ena_poll *p, struct ena_poll_cfg *cfg)
{
	spin_lock(&p->cfg_lock);
	*cfg = p->cfg;
	spin_unlock(&p->cfg_lock);
}

/**
 * ena_poll_cfg_set() - change the policy
 * @p: policy of one device
 * @cfg: the new policy, validated by the caller
 *
 * A wait that is running keeps the policy it copied when it started; the
 * next wait uses @cfg.
 */
void ena_poll_cfg_set(struct ena_poll *p, const struct ena_poll_cfg *cfg)
{
	spin_lock(&p->cfg_lock);
	p->cfg = *cfg;
	spin_unlock(&p->cfg_lock);
}

/*
 * An admin wait may first spin for up to spin_us: the device's reaction is
 * seen at once instead of after a sleep and its timer overshoot (polled
 * mode) or after the interrupt and the waiter's wakeup (interrupt mode;
 * the condition reads the completion entry itself, so the interrupt that
 * follows only finds the wait over), at the price of the CPU time counted
 * in spin_ns.  Only for admin waits, whose condition reads host memory
 * and never sleeps.  Returns true when the condition came true while
 * spinning.
 */
static bool ena_poll_spin(struct ena_poll *p, enum ena_wait_kind kind,
			  const struct ena_wait_cond *c, void *ctx,
			  ktime_t start, u32 spin_us)
{
	struct ena_wait_stats *st = &p->stats[kind];
	ktime_t end = ktime_add_us(start, spin_us), now;
	bool done;

	do {
		cpu_relax();
		done = c->done(ctx);
		now = ktime_get();
	} while (!done && ktime_before(now, end));
	WRITE_ONCE(st->spin_ns, st->spin_ns + ktime_to_ns(ktime_sub(now, start)));
	if (done)
		WRITE_ONCE(st->spin_hits, st->spin_hits + 1);
	return done;
}

static u32 ena_poll_next_us(const struct ena_poll_cfg *p, u32 cur)
{
	u64 next;

	switch (p->mode) {
	case ENA_POLL_LINEAR:
		next = (u64)cur + p->step_us;
		break;
	case ENA_POLL_EXP:
		next = (u64)cur * 2;
		break;
	default:
		next = cur;
		break;
	}
	return min_t(u64, next, max(p->max_us, p->first_us));
}

static void ena_poll_sleep(u32 us)
{
	if (us < ENA_POLL_EXACT_BELOW_US)
		usleep_range(us, us);
	else
		usleep_range(us, us + us / ENA_POLL_SLACK_DIV);
}

/* Charge one finished wait to its counters and log a timeout */
static void ena_poll_account(struct ena_poll *p, enum ena_wait_kind kind,
			     enum ena_poll_mode mode,
			     ktime_t start, u64 wakeups, u64 asked_ns,
			     u64 slept_ns, bool irq, int rc,
			     const struct ena_wait_cond *c, void *ctx)
{
	struct ena_wait_stats *st = &p->stats[kind];
	u64 ns = ktime_to_ns(ktime_sub(ktime_get(), start));
	char what[64];

	WRITE_ONCE(st->waits, st->waits + 1);
	WRITE_ONCE(st->wakeups, st->wakeups + wakeups);
	WRITE_ONCE(st->total_ns, st->total_ns + ns);
	WRITE_ONCE(st->sleep_asked_ns, st->sleep_asked_ns + asked_ns);
	WRITE_ONCE(st->sleep_ns, st->sleep_ns + slept_ns);
	if (ns > st->max_ns)
		WRITE_ONCE(st->max_ns, ns);
	if (!rc)
		return;
	WRITE_ONCE(st->timeouts, st->timeouts + 1);
	c->name(ctx, what, sizeof(what));
	dev_err(p->dev,
		"%s wait for %s timed out after %llu us (%llu wakeups, %s)\n",
		ena_wait_kind_names[kind], what, ns / NSEC_PER_USEC, wakeups,
		irq ? "interrupt" : ena_poll_mode_names[mode]);
}

/*
 * One wakeup of a wait that is still short of its condition, @left_us
 * before its deadline: a sleep of the policy, or a wait for the interrupt
 * capped at ENA_POLL_IRQ_RECHECK_US (a condition found true then is counted
 * in irq_missed and logged).  Returns the next sleep length.
 */
static u32 ena_poll_pause(struct ena_poll *p, const struct ena_poll_cfg *cfg,
			  enum ena_wait_kind kind,
			  const struct ena_wait_cond *c, void *ctx,
			  struct completion *irq, s64 left_us,
			  u32 sleep_us, u64 *asked_ns)
{
	u32 us;

	if (irq) {
		left_us = clamp_t(s64, left_us, 1, ENA_POLL_IRQ_RECHECK_US);
		if (!wait_for_completion_timeout(irq, usecs_to_jiffies(left_us)) &&
		    c->done(ctx)) {
			struct ena_wait_stats *st = &p->stats[kind];
			char what[64];

			WRITE_ONCE(st->irq_missed, st->irq_missed + 1);
			c->name(ctx, what, sizeof(what));
			dev_warn_ratelimited(p->dev,
					     "%s completed without an interrupt\n",
					     what);
		}
		return sleep_us;
	}
	us = min_t(s64, sleep_us, max_t(s64, left_us, 1));
	ena_poll_sleep(us);
	*asked_ns += (u64)us * NSEC_PER_USEC;
	return ena_poll_next_us(cfg, sleep_us);
}

static int ena_poll_run(struct ena_poll *p, enum ena_wait_kind kind,
			const struct ena_wait_cond *c, void *ctx,
			struct completion *irq, u32 timeout_us)
{
	ktime_t start = ktime_get();
	ktime_t deadline = ktime_add_us(start, timeout_us);
	u64 wakeups = 0, asked_ns = 0, slept_ns = 0;
	struct ena_poll_cfg cfg;
	u32 sleep_us;
	int rc = 0;

	/* the policy of this wait: a change from devlink applies to the next */
	ena_poll_cfg_get(p, &cfg);
	sleep_us = cfg.first_us;
	if (kind == ENA_WAIT_ADMIN && cfg.spin_us && !c->done(ctx) &&
	    ena_poll_spin(p, kind, c, ctx, start, cfg.spin_us))
		goto out;
	while (!c->done(ctx)) {
		ktime_t now = ktime_get();

		if (ktime_after(now, deadline)) {
			/* one last look: we may have been descheduled */
			if (c->done(ctx))
				break;
			rc = -ETIME;
			break;
		}
		sleep_us = ena_poll_pause(p, &cfg, kind, c, ctx, irq,
					  ktime_us_delta(deadline, now),
					  sleep_us, &asked_ns);
		if (!irq)
			slept_ns += ktime_to_ns(ktime_sub(ktime_get(), now));
		wakeups++;
	}
out:
	ena_poll_account(p, kind, cfg.mode, start, wakeups, asked_ns, slept_ns,
			 !!irq, rc, c, ctx);
	return rc;
}

/**
 * ena_poll_wait() - wait until a condition holds, within @timeout_us
 * @p: policy and counters
 * @kind: which counter set to charge
 * @c: the condition, called at once and after every sleep (process
 *     context: it may itself sleep, e.g. for a readless read), and its
 *     name for the timeout log line
 * @ctx: argument of @c's functions
 * @timeout_us: bound of the whole wait
 *
 * Callers serialize waits of one kind (the admin queue lock, the reset
 * path), so the counters need no atomics; readers may see torn snapshots
 * only on 32-bit hosts.
 *
 * Return: 0 once the condition holds, -ETIME when @timeout_us passed
 * without it.
 */
int ena_poll_wait(struct ena_poll *p, enum ena_wait_kind kind,
		  const struct ena_wait_cond *c, void *ctx, u32 timeout_us)
{
	return ena_poll_run(p, kind, c, ctx, NULL, timeout_us);
}

/**
 * ena_poll_wait_irq() - wait until a condition holds, woken by an interrupt
 * @p: policy and counters
 * @kind: which counter set to charge
 * @c: the condition, checked at once and after every wakeup, and its name
 * @ctx: argument of @c's functions
 * @irq: completed by the interrupt handler when the condition may hold;
 *	 the caller re-arms it (reinit_completion()) before it starts the
 *	 device
 * @timeout_us: bound of the whole wait
 *
 * A wakeup that finds the condition false (a stale or shared interrupt)
 * waits again.  The condition is also checked every
 * ENA_POLL_IRQ_RECHECK_US, so a lost interrupt delays the caller by that
 * much, not by @timeout_us.
 *
 * Return: 0 once the condition holds, -ETIME when @timeout_us passed
 * without it.
 */
int ena_poll_wait_irq(struct ena_poll *p, enum ena_wait_kind kind,
		      const struct ena_wait_cond *c, void *ctx,
		      struct completion *irq, u32 timeout_us)
{
	return ena_poll_run(p, kind, c, ctx, irq, timeout_us);
}

u64 ena_poll_total_wakeups(const struct ena_poll *p)
{
	u64 sum = 0;
	int i;

	for (i = 0; i < ENA_WAIT_KINDS; i++)
		sum += READ_ONCE(p->stats[i].wakeups);
	return sum;
}
