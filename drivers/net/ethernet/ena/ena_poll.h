/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one wait policy for every bounded wait on the device: admin
 * completions, reset handshakes on DEV_STS and readless register reads.
 */
#ifndef _ENA_POLL_H_
#define _ENA_POLL_H_

#include <linux/spinlock.h>
#include <linux/types.h>

struct completion;
struct device;

/* All tunables of the wait policy, named in one place. */
#define ENA_POLL_LINEAR_FIRST_US	10	/* first sleep of "linear" */
#define ENA_POLL_LINEAR_STEP_US		10	/* added per wakeup */
#define ENA_POLL_LINEAR_MAX_US		1000	/* cap */
#define ENA_POLL_FIXED_US		5000	/* "fixed": legacy msleep(5) */
#define ENA_POLL_EXP_FIRST_US		100	/* "exp": as upstream */
#define ENA_POLL_EXP_MAX_US		5000
/* longest busy spin before the first sleep of an admin wait (parameter) */
#define ENA_POLL_SPIN_MAX_US		200
/*
 * Longest sleep a devlink parameter may ask for: an interrupt-driven wait
 * rechecks as often (ENA_POLL_IRQ_RECHECK_US), and a longer one would eat
 * a large part of the admin timeout in one sleep.
 */
#define ENA_POLL_SLEEP_MAX_US		100000
/*
 * The default spin: the probe bench at 50 us of device latency took the
 * driver's reaction from 167 to 94 us and probe from 15.1 to 11.2 ms, for
 * about 108 us of CPU per command; 200 us bought nothing more (the spin200
 * run, Documentation/.../amazon/ena-fast-design-notes.rst).
 */
#define ENA_POLL_SPIN_DEFAULT_US	100
/*
 * usleep_range() slack: hrtimer expiry is exact with zero slack, which is
 * what a short poll wants (usleep_range(10, 20) measured 60-77 us in TCG
 * guests because the range lets the timer be coalesced late).  Long sleeps
 * get 1/ENA_POLL_SLACK_DIV of slack so they can still be merged.
 */
#define ENA_POLL_EXACT_BELOW_US		200
#define ENA_POLL_SLACK_DIV		8
/* Fallbacks when the device does not say */
#define ENA_ADMIN_TIMEOUT_DEFAULT_US	3000000
#define ENA_RESET_TIMEOUT_DEFAULT_US	3000000
#define ENA_MMIO_READ_TIMEOUT_US	200000
/*
 * An interrupt-driven wait still looks at the condition this often, so a
 * lost interrupt costs at most this much instead of the whole admin
 * timeout.
 */
#define ENA_POLL_IRQ_RECHECK_US		100000

enum ena_poll_mode {
	ENA_POLL_LINEAR,
	ENA_POLL_FIXED,
	ENA_POLL_EXP,
};

enum ena_wait_kind {
	ENA_WAIT_ADMIN,
	ENA_WAIT_RESET,
	ENA_WAIT_MMIO,
	ENA_WAIT_KINDS,
};

/**
 * struct ena_wait_stats - what the waits of one kind cost
 * @waits: waits performed (for ENA_WAIT_ADMIN: admin commands)
 * @wakeups: sleeps taken before the condition held
 * @total_ns: summed wall time of all waits
 * @max_ns: the longest single wait
 * @timeouts: waits that gave up
 * @sleep_asked_ns: sum of the sleeps the policy asked for
 * @sleep_ns: sum of the time those sleeps really took (the difference is
 *	the timer and scheduler overshoot each wakeup pays)
 * @spin_ns: CPU time spent spinning before the first sleep
 * @spin_hits: waits whose condition came true while spinning
 * @irq_missed: interrupt-driven waits whose condition was found true by
 *	the periodic recheck, not by the interrupt (it never came)
 *
 * A wait served by an interrupt (ena_poll_wait_irq()) counts its wakeups in
 * @wakeups and adds to neither sleep sum.
 */
struct ena_wait_stats {
	u64 waits;
	u64 wakeups;
	u64 total_ns;
	u64 max_ns;
	u64 timeouts;
	u64 sleep_asked_ns;
	u64 sleep_ns;
	u64 spin_ns;
	u64 spin_hits;
	u64 irq_missed;
};

/**
 * struct ena_poll_cfg - the tunables of the wait policy
 * @mode: how the sleep grows from one wakeup to the next
 * @first_us: first sleep (the only one of "fixed")
 * @step_us: growth per wakeup of "linear"
 * @max_us: longest sleep of "linear" and "exp"
 * @spin_us: admin waits: spin this long before the first sleep
 */
struct ena_poll_cfg {
	enum ena_poll_mode mode;
	u32 first_us;
	u32 step_us;
	u32 max_us;
	u32 spin_us;
};

/**
 * struct ena_poll - the wait policy of one device and its counters
 * @dev: device named in log lines
 * @cfg_lock: guards @cfg; a wait copies @cfg once, when it starts
 * @cfg: the policy, changed at run time by devlink parameters
 * @stats: counters per wait kind
 */
struct ena_poll {
	struct device *dev;
	spinlock_t cfg_lock;	/* guards @cfg */
	struct ena_poll_cfg cfg;
	struct ena_wait_stats stats[ENA_WAIT_KINDS];
};

/**
 * struct ena_wait_cond - what a wait waits for
 * @done: the condition; true ends the wait
 * @name: writes what is waited for into @buf, for the timeout log line
 *	  only: a wait that succeeds formats nothing
 */
struct ena_wait_cond {
	bool (*done)(void *ctx);
	void (*name)(void *ctx, char *buf, size_t len);
};

void ena_poll_init(struct ena_poll *p, struct device *dev);
int ena_poll_wait(struct ena_poll *p, enum ena_wait_kind kind,
		  const struct ena_wait_cond *c, void *ctx, u32 timeout_us);
int ena_poll_wait_irq(struct ena_poll *p, enum ena_wait_kind kind,
		      const struct ena_wait_cond *c, void *ctx,
		      struct completion *irq, u32 timeout_us);
const char *ena_poll_mode_name(enum ena_poll_mode mode);
int ena_poll_mode_parse(const char *name);
void ena_poll_cfg_get(struct ena_poll *p, struct ena_poll_cfg *cfg);
void ena_poll_cfg_set(struct ena_poll *p, const struct ena_poll_cfg *cfg);
bool ena_poll_params_changed(void);
const char *ena_wait_kind_name(enum ena_wait_kind kind);
u64 ena_poll_total_wakeups(const struct ena_poll *p);

#endif /* _ENA_POLL_H_ */
