// SPDX-License-Identifier: GPL-2.0
/*
 * devlink: one instance per device, `devlink dev info` (driver, the
 * versions the device reports, serial number = MAC address) and four
 * health reporters, tx, rx, admin and device, through which every device
 * reset the driver schedules is reported.  A reporter's recovery is that
 * reset (ena_reset_run()), so devlink's auto-recover and grace period
 * decide whether a fault resets the device at once or leaves it down
 * until `devlink health recover`.
 *
 * Life cycle (ena_pci.c): the instance is allocated right after the
 * netdev and freed right before it; the reporters are created before the
 * watchdog starts (resets may be scheduled from then on) and destroyed
 * after it has stopped.  devlink_register() is the very last step of
 * probe and devlink_unregister() the very first of remove, as the devlink
 * core requires since 5.16: userspace learns of the instance only once
 * all it may reach (the netdev, the reporters, the reset machinery) is
 * set up, and can no longer reach the driver once remove tears down.
 *
 * Reporting: ena_reset_schedule() runs in hard IRQ (AENQ), NAPI, timers
 * and under RTNL, and devlink_health_report() sleeps (it takes the
 * devlink instance lock around the dump and the recovery, and our dump
 * and recovery take RTNL), so the fault is recorded (reason, text) and
 * ena_devlink_report_work() reports it.  Lock order: report_lock ->
 * devlink instance lock -> RTNL; userspace's `devlink health recover`
 * and `devlink health dump show` hold the instance lock and then take
 * RTNL.  Nothing takes the instance lock or report_lock under RTNL, and
 * the recover op (instance lock held) never takes report_lock.  Remove
 * takes report_lock alone (to stop reports: an in-flight report, its
 * reset included, ends first), then devlink_unregister() takes the
 * instance lock alone (an in-flight `devlink health recover` ends
 * first).  A reset scheduled after that runs directly, without devlink,
 * until ena_health_stop() forbids resets.
 *
 * Parameters (`devlink dev param`), all driver-specific (no generic one
 * means any of these): the admin wait policy admin_poll_{mode,first_us,
 * step_us,max_us,spin_us} and open_async are runtime parameters, read by
 * the next admin wait or open; admin_irq and large_llq_header are
 * driverinit parameters, applied by `devlink dev reload` (action
 * driver_reinit).  Each starts from the module parameter of the same
 * meaning, read at probe (those are deprecated aliases).  The devlink
 * core holds the instance lock around every get, set and validate, and
 * around reload_down and reload_up; the reload takes RTNL inside it,
 * following the lock order above, and never report_lock.
 */
#include <linux/bitfield.h>
#include <linux/rtnetlink.h>
#include <net/devlink.h>

#include "ena.h"
#include "ena_compat.h"

/* the context of one report, given to the dump and recover ops */
struct ena_report_ctx {
	enum ena_reset_reason reason;
	const char *why;
	bool recovery_ran;	/* the recover op ran (it may have failed) */
};

struct ena_devlink_priv {
	struct ena_adapter *adapter;
};

static struct ena_adapter *ena_devlink_adapter(struct devlink *dl)
{
	return ((struct ena_devlink_priv *)devlink_priv(dl))->adapter;
}

enum ena_devlink_param_id {
	ENA_DL_PARAM_BASE = DEVLINK_PARAM_GENERIC_ID_MAX,
	ENA_DL_PARAM_POLL_MODE,
	ENA_DL_PARAM_POLL_FIRST_US,
	ENA_DL_PARAM_POLL_STEP_US,
	ENA_DL_PARAM_POLL_MAX_US,
	ENA_DL_PARAM_POLL_SPIN_US,
	ENA_DL_PARAM_ADMIN_IRQ,
	ENA_DL_PARAM_OPEN_ASYNC,
	ENA_DL_PARAM_LARGE_LLQ,
};

static const char * const ena_reason_names[] = {
	[ENA_RESET_NORMAL]		= "normal",
	[ENA_RESET_KEEP_ALIVE_TO]	= "keep-alive timeout",
	[ENA_RESET_ADMIN_TO]		= "admin command timeout",
	[ENA_RESET_MISS_TX_CMPL]	= "missing TX completions",
	[ENA_RESET_INV_RX_REQ_ID]	= "invalid RX req_id",
	[ENA_RESET_INV_TX_REQ_ID]	= "invalid TX req_id",
	[ENA_RESET_TOO_MANY_RX_DESCS]	= "too many RX descriptors",
	[ENA_RESET_INIT_ERR]		= "initialisation error",
	[ENA_RESET_DRIVER_INVALID_STATE] = "driver invalid state",
	[ENA_RESET_OS_TRIGGER]		= "OS trigger",
	[ENA_RESET_OS_NETDEV_WD]	= "TX watchdog",
	[ENA_RESET_SHUTDOWN]		= "shutdown",
	[ENA_RESET_USER_TRIGGER]	= "user trigger",
	[ENA_RESET_GENERIC]		= "generic (fatal device error)",
	[ENA_RESET_MISS_INTERRUPT]	= "missing IO interrupt",
	[ENA_RESET_MISSING_ADMIN_INTERRUPT] = "missing admin interrupt",
	[ENA_RESET_DEVICE_REQUEST]	= "device request",
};

static const char *ena_reason_name(enum ena_reset_reason r)
{
	if ((unsigned int)r < ARRAY_SIZE(ena_reason_names) &&
	    ena_reason_names[r])
		return ena_reason_names[r];
	return "unknown";
}

/**
 * ena_reason_reporter() - the health reporter a reset reason belongs to
 * @reason: the reason of a scheduled reset
 *
 * tx: a TX queue that stopped completing (missing completions, the
 * stack's TX watchdog, a lost IO interrupt) or completed garbage (invalid
 * req_id).  rx: invalid RX completions (req_id, length).  admin: the
 * admin queue (timeouts, a missing admin interrupt, and the driver's
 * invalid-state reason, whose causes are admin commands that failed or
 * answered impossibly: a malformed completion, a failed DESTROY, a queue
 * restart or resume that did not complete).  device: everything else
 * (keep-alive loss, a fatal DEV_STS or FATAL_ERROR event, the device's
 * request, its capabilities changed, a failed re-initialisation).
 *
 * Return: the reporter's index in ena_adapter.reporters.
 */
enum ena_reporter ena_reason_reporter(enum ena_reset_reason reason)
{
	switch (reason) {
	case ENA_RESET_MISS_TX_CMPL:
	case ENA_RESET_INV_TX_REQ_ID:
	case ENA_RESET_OS_NETDEV_WD:
	case ENA_RESET_MISS_INTERRUPT:
		return ENA_REP_TX;
	case ENA_RESET_INV_RX_REQ_ID:
	case ENA_RESET_TOO_MANY_RX_DESCS:
		return ENA_REP_RX;
	case ENA_RESET_ADMIN_TO:
	case ENA_RESET_MISSING_ADMIN_INTERRUPT:
	case ENA_RESET_DRIVER_INVALID_STATE:
		return ENA_REP_ADMIN;
	default:
		return ENA_REP_DEVICE;
	}
}

static int ena_devlink_info_get(struct devlink *dl, struct devlink_info_req *req,
				struct netlink_ext_ack *extack)
{
	struct ena_adapter *a = ena_devlink_adapter(dl);
	u32 ver = READ_ONCE(a->dev_version), ctrl = READ_ONCE(a->ctrl_version);
	char buf[32];
	int rc;

#ifdef ENA_HAVE_DEVLINK_DRIVER_NAME_PUT
	/* later kernels put the driver's name themselves */
	rc = devlink_info_driver_name_put(req, ENA_DRV_NAME);
	if (rc)
		return rc;
#endif
	snprintf(buf, sizeof(buf), "%pM", a->mac);
	rc = devlink_info_serial_number_put(req, buf);
	if (rc)
		return rc;
	snprintf(buf, sizeof(buf), "%u", (u32)FIELD_GET(ENA_CTRL_VERSION_IMPL, ctrl));
	rc = devlink_info_version_fixed_put(req, DEVLINK_INFO_VERSION_GENERIC_ASIC_ID,
					    buf);
	if (rc)
		return rc;
	snprintf(buf, sizeof(buf), "%u.%u.%u",
		 (u32)FIELD_GET(ENA_CTRL_VERSION_MAJOR, ctrl),
		 (u32)FIELD_GET(ENA_CTRL_VERSION_MINOR, ctrl),
		 (u32)FIELD_GET(ENA_CTRL_VERSION_SUBMINOR, ctrl));
	rc = devlink_info_version_running_put(req, DEVLINK_INFO_VERSION_GENERIC_FW,
					      buf);
	if (rc)
		return rc;
	snprintf(buf, sizeof(buf), "%u.%u",
		 (u32)FIELD_GET(ENA_VERSION_MAJOR, ver),
		 (u32)FIELD_GET(ENA_VERSION_MINOR, ver));
	rc = devlink_info_version_running_put(req, "fw.spec", buf);
	if (rc)
		return rc;
	snprintf(buf, sizeof(buf), "%u.%u.%u", ENA_DRV_VERSION_MAJOR,
		 ENA_DRV_VERSION_MINOR, ENA_DRV_VERSION_SUBMINOR);
	return devlink_info_version_running_put(req, "driver", buf);
}

static int ena_devlink_reload_down(struct devlink *dl, bool netns_change,
				   enum devlink_reload_action action,
				   enum devlink_reload_limit limit,
				   struct netlink_ext_ack *extack)
{
	struct ena_adapter *a = ena_devlink_adapter(dl);

	if (netns_change) {
		NL_SET_ERR_MSG_MOD(extack,
				   "reload into another network namespace is not supported");
		return -EOPNOTSUPP;
	}
	if (action != DEVLINK_RELOAD_ACTION_DRIVER_REINIT)
		return -EOPNOTSUPP;
	/* checked again under RTNL by ena_reload(); refused early here */
	if (test_bit(ENA_F_RESET_PENDING, &a->flags)) {
		NL_SET_ERR_MSG_MOD(extack, "a device reset is pending: reload after it");
		return -EBUSY;
	}
	return 0;
}

/**
 * ena_devlink_reload_up() - `devlink dev reload` (driver_reinit)
 * @dl: devlink instance; the core holds its lock
 * @action: DEVLINK_RELOAD_ACTION_DRIVER_REINIT
 * @limit: DEVLINK_RELOAD_LIMIT_UNSPEC (no other limit is offered)
 * @actions_performed: set to driver_reinit on success
 * @extack: for the error message
 *
 * All the work is done here, under one RTNL section (ena_reload()), and
 * none in reload_down: between the two the interface would be reachable
 * by userspace with the device half torn down.  large_llq_header is
 * applied only if it changed since the last probe or reload, so that a
 * reload keeps an entry size set by ethtool's tx-push-buf-len since.
 *
 * Return: 0 or the errno of ena_reload().
 */
static int ena_devlink_reload_up(struct devlink *dl,
				 enum devlink_reload_action action,
				 enum devlink_reload_limit limit,
				 u32 *actions_performed,
				 struct netlink_ext_ack *extack)
{
	struct ena_adapter *a = ena_devlink_adapter(dl);
	union devlink_param_value irq, llq;
	int rc;

	rc = ena_dl_init_value_get(dl, ENA_DL_PARAM_ADMIN_IRQ, &irq);
	if (!rc)
		rc = ena_dl_init_value_get(dl, ENA_DL_PARAM_LARGE_LLQ, &llq);
	if (rc)
		return rc;
	rc = ena_reload(a, irq.vbool,
			llq.vbool == a->llq_large_dl ? -1 : llq.vbool, extack);
	if (!rc)
		*actions_performed = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT);
	return rc;
}

static const struct devlink_ops ena_devlink_ops = {
	.info_get	= ena_devlink_info_get,
	.reload_actions	= BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT),
	.reload_down	= ena_devlink_reload_down,
	.reload_up	= ena_devlink_reload_up,
};

/*
 * The dump and diagnose ops write with the fmsg API: its calls return an
 * error on 6.1 and nothing on 6.12 (the message keeps the first error and
 * the core checks it), so their results are not looked at here.
 */

/* the fault: reported (@ctx) or, from userspace, the last one */
static void ena_dump_fault(struct ena_adapter *a, struct devlink_fmsg *f,
			   const struct ena_report_ctx *ctx)
{
	enum ena_reset_reason r = ctx ? ctx->reason : READ_ONCE(a->reset_reason);
	const char *why = ctx ? ctx->why : READ_ONCE(a->reset_why);

	devlink_fmsg_pair_nest_start(f, "reset");
	devlink_fmsg_obj_nest_start(f);
	devlink_fmsg_u32_pair_put(f, "reason", r);
	devlink_fmsg_string_pair_put(f, "reason_name", ena_reason_name(r));
	devlink_fmsg_string_pair_put(f, "why", why ?: "none");
	devlink_fmsg_bool_pair_put(f, "reported_now", !!ctx);
	devlink_fmsg_u64_pair_put(f, "resets", a->resets);
	devlink_fmsg_u64_pair_put(f, "resets_failed", a->resets_failed);
	devlink_fmsg_u32_pair_put(f, "reset_fail_streak", a->reset_fail_streak);
	devlink_fmsg_bool_pair_put(f, "device_dead",
				   test_bit(ENA_F_DEV_DEAD, &a->flags));
	devlink_fmsg_bool_pair_put(f, "reset_pending",
				   test_bit(ENA_F_RESET_PENDING, &a->flags));
	devlink_fmsg_bool_pair_put(f, "queues_running",
				   test_bit(ENA_F_QUEUES_RUN, &a->flags));
	devlink_fmsg_obj_nest_end(f);
	devlink_fmsg_pair_nest_end(f);
}

/* one TX ring's indices and the last completion it consumed */
static void ena_dump_txq(struct devlink_fmsg *f, const char *name,
			 const struct ena_txq *tx)
{
	devlink_fmsg_pair_nest_start(f, name);
	devlink_fmsg_obj_nest_start(f);
	devlink_fmsg_u32_pair_put(f, "depth", tx->depth);
	devlink_fmsg_u32_pair_put(f, "sq_head", tx->sq_head);
	devlink_fmsg_u32_pair_put(f, "sq_tail", tx->sq_tail);
	devlink_fmsg_u8_pair_put(f, "sq_phase", tx->sq_phase);
	devlink_fmsg_u32_pair_put(f, "cq_head", tx->cq_head);
	devlink_fmsg_u8_pair_put(f, "cq_phase", tx->cq_phase);
	devlink_fmsg_u32_pair_put(f, "next_to_use", tx->next_to_use);
	devlink_fmsg_u32_pair_put(f, "next_to_clean", tx->next_to_clean);
	if (tx->depth && tx->cq && tx->cq_head) {
		const struct ena_tx_cdesc *c =
			&tx->cq[(tx->cq_head - 1) & (tx->depth - 1)];

		devlink_fmsg_u32_pair_put(f, "last_cmpl_req_id",
					  le16_to_cpu(READ_ONCE(c->req_id)));
		devlink_fmsg_u32_pair_put(f, "last_cmpl_sq_head",
					  le16_to_cpu(READ_ONCE(c->sq_head)));
	}
	devlink_fmsg_obj_nest_end(f);
	devlink_fmsg_pair_nest_end(f);
}

static void ena_dump_rxq(struct devlink_fmsg *f, const struct ena_rxq *rx)
{
	devlink_fmsg_pair_nest_start(f, "rx");
	devlink_fmsg_obj_nest_start(f);
	devlink_fmsg_u32_pair_put(f, "depth", rx->depth);
	devlink_fmsg_u32_pair_put(f, "sq_tail", rx->sq_tail);
	devlink_fmsg_u8_pair_put(f, "sq_phase", rx->sq_phase);
	devlink_fmsg_u32_pair_put(f, "cq_head", rx->cq_head);
	devlink_fmsg_u8_pair_put(f, "cq_phase", rx->cq_phase);
	devlink_fmsg_u32_pair_put(f, "next_to_use", rx->next_to_use);
	devlink_fmsg_u32_pair_put(f, "next_to_clean", rx->next_to_clean);
	if (rx->depth && rx->cq && rx->cq_head) {
		const struct ena_rx_cdesc *c =
			&rx->cq[(rx->cq_head - 1) & (rx->depth - 1)];

		devlink_fmsg_u32_pair_put(f, "last_cmpl_req_id",
					  le16_to_cpu(READ_ONCE(c->req_id)));
		devlink_fmsg_u32_pair_put(f, "last_cmpl_len",
					  le16_to_cpu(READ_ONCE(c->len)));
	}
	devlink_fmsg_obj_nest_end(f);
	devlink_fmsg_pair_nest_end(f);
}

/* each queue pair's rings (@tx: TX side, else RX side) and counters */
static void ena_dump_queues(struct ena_adapter *a, struct devlink_fmsg *f,
			    bool tx)
{
	u32 q;

	devlink_fmsg_u64_pair_put(f, "missed_intrs", READ_ONCE(a->missed_intrs));
	if (tx)
		devlink_fmsg_u64_pair_put(f, "tx_timeouts", a->tx_timeouts);
	devlink_fmsg_arr_pair_nest_start(f, "queues");
	for (q = 0; q < a->num_queues; q++) {
		struct ena_qp *qp = &a->qps[q];
		struct ena_queue_stats *s = qp->stats;

		devlink_fmsg_obj_nest_start(f);
		devlink_fmsg_u32_pair_put(f, "qid", q);
		devlink_fmsg_bool_pair_put(f, "started", ena_rt_qp_up(qp));
		devlink_fmsg_u32_pair_put(f, "napi_polls",
					  (u32)READ_ONCE(s->napi_polls));
		if (tx) {
			ena_dump_txq(f, "tx", &qp->tx);
			if (qp->xdp_tx.depth)
				ena_dump_txq(f, "xdp_tx", &qp->xdp_tx);
			devlink_fmsg_u64_pair_put(f, "tx_packets",
						  READ_ONCE(s->tx_packets));
			devlink_fmsg_u64_pair_put(f, "tx_missed",
						  READ_ONCE(s->tx_missed));
			devlink_fmsg_u64_pair_put(f, "tx_bad_req_id",
						  READ_ONCE(s->tx_bad_req_id));
			devlink_fmsg_u64_pair_put(f, "tx_stops",
						  READ_ONCE(s->tx_stops));
		} else {
			ena_dump_rxq(f, &qp->rx);
			devlink_fmsg_u64_pair_put(f, "rx_packets",
						  READ_ONCE(s->rx_packets));
			devlink_fmsg_u64_pair_put(f, "rx_bad_req_id",
						  READ_ONCE(s->rx_bad_req_id));
			devlink_fmsg_u64_pair_put(f, "rx_bad_len",
						  READ_ONCE(s->rx_bad_len));
			devlink_fmsg_u64_pair_put(f, "rx_bad_desc_num",
						  READ_ONCE(s->rx_bad_desc_num));
			devlink_fmsg_u64_pair_put(f, "rx_alloc_fail",
						  READ_ONCE(s->rx_alloc_fail));
			devlink_fmsg_u64_pair_put(f, "rx_empty_kicks",
						  READ_ONCE(s->rx_empty_kicks));
		}
		devlink_fmsg_obj_nest_end(f);
	}
	devlink_fmsg_arr_pair_nest_end(f);
}

static void ena_dump_admin(struct ena_adapter *a, struct devlink_fmsg *f)
{
	struct ena_admin_queue *aq = &a->aq;

	devlink_fmsg_pair_nest_start(f, "admin_queue");
	devlink_fmsg_obj_nest_start(f);
	devlink_fmsg_u32_pair_put(f, "sq_tail", READ_ONCE(aq->sq_tail));
	devlink_fmsg_u8_pair_put(f, "sq_phase", READ_ONCE(aq->sq_phase));
	devlink_fmsg_u32_pair_put(f, "cq_head", READ_ONCE(aq->cq_head));
	devlink_fmsg_u8_pair_put(f, "cq_phase", READ_ONCE(aq->cq_phase));
	devlink_fmsg_u32_pair_put(f, "next_cmd_id", READ_ONCE(aq->next_cmd_id));
	devlink_fmsg_u32_pair_put(f, "timeout_us", READ_ONCE(aq->timeout_us));
	devlink_fmsg_bool_pair_put(f, "irq_mode",
				   test_bit(ENA_F_ADMIN_IRQ, &a->flags));
	devlink_fmsg_u64_pair_put(f, "submitted", READ_ONCE(aq->submitted));
	devlink_fmsg_u64_pair_put(f, "completed", READ_ONCE(aq->completed));
	devlink_fmsg_u64_pair_put(f, "errors", READ_ONCE(aq->errors));
	devlink_fmsg_u64_pair_put(f, "malformed", READ_ONCE(aq->malformed));
	devlink_fmsg_u64_pair_put(f, "refused", READ_ONCE(aq->refused));
	devlink_fmsg_u64_pair_put(f, "irq_missed", READ_ONCE(aq->irq_missed));
	devlink_fmsg_u64_pair_put(f, "timeouts",
				  READ_ONCE(a->poll.stats[ENA_WAIT_ADMIN].timeouts));
	devlink_fmsg_obj_nest_end(f);
	devlink_fmsg_pair_nest_end(f);
}

static void ena_dump_device(struct ena_adapter *a, struct devlink_fmsg *f)
{
	devlink_fmsg_pair_nest_start(f, "device");
	devlink_fmsg_obj_nest_start(f);
	devlink_fmsg_u32_pair_put(f, "keep_alive_timeout_ms",
				  READ_ONCE(a->keep_alive_timeout_ms));
	devlink_fmsg_u32_pair_put(f, "ms_since_keep_alive",
				  jiffies_to_msecs(jiffies -
						   READ_ONCE(a->last_keep_alive)));
	devlink_fmsg_u64_pair_put(f, "wd_expired", READ_ONCE(a->wd_expired));
	devlink_fmsg_bool_pair_put(f, "link_up", READ_ONCE(a->link_up));
	devlink_fmsg_u64_pair_put(f, "dev_rx_drops", READ_ONCE(a->dev_rx_drops));
	devlink_fmsg_u64_pair_put(f, "dev_tx_drops", READ_ONCE(a->dev_tx_drops));
	devlink_fmsg_u64_pair_put(f, "dev_bad_answers",
				  READ_ONCE(a->dev_bad_answers));
	devlink_fmsg_u64_pair_put(f, "aenq_fatal_events",
				  READ_ONCE(a->aenq.events[ENA_AENQ_FATAL_ERROR]));
	devlink_fmsg_obj_nest_end(f);
	devlink_fmsg_pair_nest_end(f);
}

/*
 * The dump of reporter @which: the fault, then the state of what it
 * watches.  Under RTNL, which every change of queue memory holds.
 */
static int ena_rep_dump(struct devlink_health_reporter *rep,
			struct devlink_fmsg *f, void *priv_ctx,
			struct netlink_ext_ack *extack, enum ena_reporter which)
{
	struct ena_adapter *a = devlink_health_reporter_priv(rep);

	rtnl_lock();
	ena_dump_fault(a, f, priv_ctx);
	switch (which) {
	case ENA_REP_TX:
		ena_dump_queues(a, f, true);
		break;
	case ENA_REP_RX:
		ena_dump_queues(a, f, false);
		break;
	case ENA_REP_ADMIN:
		ena_dump_admin(a, f);
		break;
	default:
		ena_dump_device(a, f);
		ena_dump_admin(a, f);
		break;
	}
	rtnl_unlock();
	return 0;
}

#define ENA_REP_DUMP(n, which)						\
static int ena_rep_dump_##n(struct devlink_health_reporter *rep,	\
			    struct devlink_fmsg *f, void *ctx,		\
			    struct netlink_ext_ack *extack)		\
{									\
	return ena_rep_dump(rep, f, ctx, extack, which);		\
}

ENA_REP_DUMP(tx, ENA_REP_TX)
ENA_REP_DUMP(rx, ENA_REP_RX)
ENA_REP_DUMP(admin, ENA_REP_ADMIN)
ENA_REP_DUMP(device, ENA_REP_DEVICE)

/* diagnose (any reporter): the cheap summary, no RTNL */
static int ena_rep_diagnose(struct devlink_health_reporter *rep,
			    struct devlink_fmsg *f,
			    struct netlink_ext_ack *extack)
{
	struct ena_adapter *a = devlink_health_reporter_priv(rep);

	devlink_fmsg_bool_pair_put(f, "device_dead",
				   test_bit(ENA_F_DEV_DEAD, &a->flags));
	devlink_fmsg_bool_pair_put(f, "reset_pending",
				   test_bit(ENA_F_RESET_PENDING, &a->flags));
	devlink_fmsg_bool_pair_put(f, "carrier", netif_carrier_ok(a->netdev));
	devlink_fmsg_u32_pair_put(f, "last_reason", READ_ONCE(a->reset_reason));
	devlink_fmsg_u64_pair_put(f, "resets", READ_ONCE(a->resets));
	devlink_fmsg_u64_pair_put(f, "resets_failed", READ_ONCE(a->resets_failed));
	devlink_fmsg_u64_pair_put(f, "reports", READ_ONCE(a->reports));
	devlink_fmsg_u64_pair_put(f, "reports_parked",
				  READ_ONCE(a->reports_parked));
	return 0;
}

/**
 * ena_rep_recover() - a reporter's recovery: the device reset
 * @rep: the reporter
 * @priv_ctx: the report's context, or NULL from `devlink health recover`
 * @extack: for the error message
 *
 * Called with the devlink instance lock held, from the report (auto
 * recover) or from userspace.  The reset takes RTNL; a failed reset is
 * retried by the reset work, which marks the reporters healthy when a
 * retry works.
 *
 * Return: 0, or the reset's errno (the reporter stays in error).
 */
static int ena_rep_recover(struct devlink_health_reporter *rep,
			   void *priv_ctx, struct netlink_ext_ack *extack)
{
	struct ena_adapter *a = devlink_health_reporter_priv(rep);
	struct ena_report_ctx *ctx = priv_ctx;
	int rc, i;

	if (ctx)
		ctx->recovery_ran = true;
	rc = ena_reset_run(a, false);
	if (rc) {
		NL_SET_ERR_MSG_MOD(extack, "device reset failed (retried by the driver)");
		return rc;
	}
	/*
	 * A device reset recovers every class of fault: a reporter left in
	 * error by an earlier failed reset would otherwise refuse to
	 * auto-recover its next fault (devlink cancels it), and that fault
	 * would leave the device down.  This one devlink marks itself.
	 */
	for (i = 0; i < ENA_REPORTERS; i++)
		if (a->reporters[i] != rep)
			devlink_health_reporter_state_update(a->reporters[i],
							     DEVLINK_HEALTH_REPORTER_STATE_HEALTHY);
	return 0;
}

#define ENA_REP_OPS(n)							\
{									\
	.name		= #n,						\
	.recover	= ena_rep_recover,				\
	.dump		= ena_rep_dump_##n,				\
	.diagnose	= ena_rep_diagnose,				\
}

static const struct devlink_health_reporter_ops ena_rep_ops[ENA_REPORTERS] = {
	[ENA_REP_TX]		= ENA_REP_OPS(tx),
	[ENA_REP_RX]		= ENA_REP_OPS(rx),
	[ENA_REP_ADMIN]		= ENA_REP_OPS(admin),
	[ENA_REP_DEVICE]	= ENA_REP_OPS(device),
};

/**
 * ena_devlink_report_work() - report a scheduled reset through devlink
 * @w: ena_adapter.report_work, queued by ena_reset_schedule()
 *
 * The reporter of the reset's reason records the fault (error count, a
 * dump of the state at the fault) and, with auto-recover on and out of
 * its grace period, runs its recovery, the reset, at once.  When the
 * recovery does not run, the device is left down (ena_reset_park()) until
 * `devlink health recover`; except while the driver is still retrying a
 * reset that failed, which this fault joins (the reset is run here).
 * Before devlink_register() and from devlink_unregister() on, the reset
 * runs without devlink.
 */
void ena_devlink_report_work(struct work_struct *w)
{
	struct ena_adapter *a = container_of(w, struct ena_adapter,
					     report_work);
	struct ena_report_ctx ctx = {
		.reason = READ_ONCE(a->reset_reason),
		.why = READ_ONCE(a->reset_why) ?: "device reset",
	};
	bool reported = false;
	int rc = 0;

	mutex_lock(&a->report_lock);
	if (a->devlink_live) {
		a->reports++;
		rc = devlink_health_report(a->reporters[ena_reason_reporter(ctx.reason)],
					   ctx.why, &ctx);
		reported = true;
	}
	mutex_unlock(&a->report_lock);

	if (!reported || (!ctx.recovery_ran && READ_ONCE(a->reset_fail_streak))) {
		if (!ena_reset_run(a, true) && reported)
			ena_devlink_recovered(a);
	} else if (!ctx.recovery_ran) {
		dev_info(&a->pdev->dev, "devlink %s reporter did not recover (%d)\n",
			 ena_rep_ops[ena_reason_reporter(ctx.reason)].name, rc);
		ena_reset_park(a);
	}
}

/**
 * ena_devlink_recovered() - a retried reset worked: reporters healthy
 * @a: adapter; the caller holds neither RTNL nor the devlink instance lock
 *
 * The reporter whose recovery failed stays in error, and devlink would
 * not auto-recover its next fault: the driver's own retry recovered it.
 */
void ena_devlink_recovered(struct ena_adapter *a)
{
	int i;

	mutex_lock(&a->report_lock);
	if (a->devlink_live)
		for (i = 0; i < ENA_REPORTERS; i++)
			devlink_health_reporter_state_update(a->reporters[i],
							     DEVLINK_HEALTH_REPORTER_STATE_HEALTHY);
	mutex_unlock(&a->report_lock);
}

/**
 * ena_devlink_alloc() - the devlink instance, for the adapter's lifetime
 * @a: adapter
 *
 * Also the values of the parameters admin_irq and open_async, which the
 * device's initialisation and open read before devlink is registered.
 *
 * Return: 0 or -ENOMEM.
 */
int ena_devlink_alloc(struct ena_adapter *a)
{
	struct ena_devlink_priv *p;

	a->devlink = devlink_alloc(&ena_devlink_ops, sizeof(*p), &a->pdev->dev);
	if (!a->devlink)
		return -ENOMEM;
	p = devlink_priv(a->devlink);
	p->adapter = a;
	/* the parameters' per-device values, from the module parameters */
	a->admin_irq = ena_param_admin_irq();
	a->open_async = ena_param_open_async();
	return 0;
}

void ena_devlink_free(struct ena_adapter *a)
{
	devlink_free(a->devlink);
}

/**
 * ena_devlink_reporters_create() - the four health reporters
 * @a: adapter; its devlink instance is not registered yet
 *
 * Grace period 0 and auto-recover on (devlink's default when a recover op
 * exists): every fault resets the device at once, as before devlink.
 *
 * Return: 0, or the errno of the reporter that failed (none left).
 */
int ena_devlink_reporters_create(struct ena_adapter *a)
{
	struct devlink_health_reporter *rep;
	int i;

	for (i = 0; i < ENA_REPORTERS; i++) {
		rep = devlink_health_reporter_create(a->devlink, &ena_rep_ops[i],
						     0, a);
		if (IS_ERR(rep)) {
			while (i--)
				devlink_health_reporter_destroy(a->reporters[i]);
			return PTR_ERR(rep);
		}
		a->reporters[i] = rep;
	}
	return 0;
}

void ena_devlink_reporters_destroy(struct ena_adapter *a)
{
	int i;

	for (i = ENA_REPORTERS - 1; i >= 0; i--)
		devlink_health_reporter_destroy(a->reporters[i]);
}

/**
 * ena_devlink_register() - the last step of probe: userspace sees devlink
 * @a: adapter
 */
void ena_devlink_register(struct ena_adapter *a)
{
	ena_dl_enable_reload(a->devlink);
	devlink_register(a->devlink);
	ena_dl_enable_reload_registered(a->devlink);
	mutex_lock(&a->report_lock);
	a->devlink_live = true;
	mutex_unlock(&a->report_lock);
}

/**
 * ena_devlink_unregister() - the first step of remove
 * @a: adapter; the caller holds neither RTNL nor the instance lock
 *
 * No report reaches devlink after this (one in flight ends first, its
 * reset included), then userspace loses the instance (an operation in
 * flight, such as `devlink health recover`, ends first).
 */
void ena_devlink_unregister(struct ena_adapter *a)
{
	mutex_lock(&a->report_lock);
	a->devlink_live = false;
	mutex_unlock(&a->report_lock);
	ena_dl_disable_reload(a->devlink);
	devlink_unregister(a->devlink);
}

/* runtime parameters: the admin wait policy and open_async */
static int ena_dl_param_read(struct devlink *dl, u32 id,
			     struct devlink_param_gset_ctx *ctx)
{
	struct ena_adapter *a = ena_devlink_adapter(dl);
	struct ena_poll_cfg c;

	ena_poll_cfg_get(&a->poll, &c);
	switch (id) {
	case ENA_DL_PARAM_POLL_MODE:
		strscpy(ctx->val.vstr, ena_poll_mode_name(c.mode),
			sizeof(ctx->val.vstr));
		break;
	case ENA_DL_PARAM_POLL_FIRST_US:
		ctx->val.vu32 = c.first_us;
		break;
	case ENA_DL_PARAM_POLL_STEP_US:
		ctx->val.vu32 = c.step_us;
		break;
	case ENA_DL_PARAM_POLL_MAX_US:
		ctx->val.vu32 = c.max_us;
		break;
	case ENA_DL_PARAM_POLL_SPIN_US:
		ctx->val.vu32 = c.spin_us;
		break;
	case ENA_DL_PARAM_OPEN_ASYNC:
		ctx->val.vbool = READ_ONCE(a->open_async);
		break;
	default:
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * The value was validated (ena_dl_param_validate(), under the same
 * instance lock): a wait that runs keeps the policy it started with, the
 * next one uses the new value; the next open reads open_async.
 */
static int ena_dl_param_apply(struct devlink *dl, u32 id,
			      struct devlink_param_gset_ctx *ctx)
{
	struct ena_adapter *a = ena_devlink_adapter(dl);
	struct ena_poll_cfg c;

	if (id == ENA_DL_PARAM_OPEN_ASYNC) {
		WRITE_ONCE(a->open_async, ctx->val.vbool);
		return 0;
	}
	ena_poll_cfg_get(&a->poll, &c);
	switch (id) {
	case ENA_DL_PARAM_POLL_MODE:
		c.mode = ena_poll_mode_parse(ctx->val.vstr);
		break;
	case ENA_DL_PARAM_POLL_FIRST_US:
		c.first_us = ctx->val.vu32;
		break;
	case ENA_DL_PARAM_POLL_STEP_US:
		c.step_us = ctx->val.vu32;
		break;
	case ENA_DL_PARAM_POLL_MAX_US:
		c.max_us = ctx->val.vu32;
		break;
	case ENA_DL_PARAM_POLL_SPIN_US:
		c.spin_us = ctx->val.vu32;
		break;
	default:
		return -EOPNOTSUPP;
	}
	ena_poll_cfg_set(&a->poll, &c);
	return 0;
}

/* 6.17 gave the get op an extack (ENA_HAVE_DL_PARAM_GET_EXTACK) */
#ifdef ENA_HAVE_DL_PARAM_GET_EXTACK
static int ena_dl_param_get(struct devlink *dl, u32 id,
			    struct devlink_param_gset_ctx *ctx,
			    struct netlink_ext_ack *extack)
#else
static int ena_dl_param_get(struct devlink *dl, u32 id,
			    struct devlink_param_gset_ctx *ctx)
#endif
{
	return ena_dl_param_read(dl, id, ctx);
}

/* 6.8 gave the set op an extack; validation has one in every version */
#ifdef ENA_HAVE_DL_PARAM_SET_EXTACK
static int ena_dl_param_set(struct devlink *dl, u32 id,
			    struct devlink_param_gset_ctx *ctx,
			    struct netlink_ext_ack *extack)
#else
static int ena_dl_param_set(struct devlink *dl, u32 id,
			    struct devlink_param_gset_ctx *ctx)
#endif
{
	return ena_dl_param_apply(dl, id, ctx);
}

/* a sleep of the policy: 1 us up to ENA_POLL_SLEEP_MAX_US */
static int ena_dl_check_sleep(u32 us, struct netlink_ext_ack *extack)
{
	BUILD_BUG_ON(ENA_POLL_SLEEP_MAX_US != 100000);
	if (!us || us > ENA_POLL_SLEEP_MAX_US) {
		NL_SET_ERR_MSG_MOD(extack, "sleep out of range 1..100000 us");
		return -EINVAL;
	}
	return 0;
}

/**
 * ena_dl_poll_check() - check a new value of the wait policy
 * @dl: devlink instance
 * @id: parameter
 * @val: its new value
 * @extack: the reason of a refusal
 *
 * Against the other parameters in force: "linear" and "exp" need
 * first_us <= max_us ("fixed" sleeps first_us each time and has no cap),
 * so a policy is changed in an order that keeps it valid at every step
 * (to fixed 5000: mode first, then first_us; back: first_us, then mode).
 * The step is never 0 (linear would never grow: that is "fixed").
 *
 * Return: 0 or -EINVAL.
 */
static int ena_dl_poll_check(struct devlink *dl, u32 id,
			     union devlink_param_value val,
			     struct netlink_ext_ack *extack)
{
	struct ena_adapter *a = ena_devlink_adapter(dl);
	struct ena_poll_cfg c;
	int mode;

	ena_poll_cfg_get(&a->poll, &c);
	switch (id) {
	case ENA_DL_PARAM_POLL_MODE:
		mode = ena_poll_mode_parse(val.vstr);
		if (mode < 0) {
			NL_SET_ERR_MSG_MOD(extack,
					   "unknown admin_poll_mode: use linear, fixed or exp");
			return -EINVAL;
		}
		c.mode = mode;
		break;
	case ENA_DL_PARAM_POLL_FIRST_US:
		if (ena_dl_check_sleep(val.vu32, extack))
			return -EINVAL;
		c.first_us = val.vu32;
		break;
	case ENA_DL_PARAM_POLL_STEP_US:
		if (!val.vu32) {
			NL_SET_ERR_MSG_MOD(extack,
					   "admin_poll_step_us 0: linear sleeps would not grow");
			return -EINVAL;
		}
		return ena_dl_check_sleep(val.vu32, extack);
	case ENA_DL_PARAM_POLL_MAX_US:
		if (ena_dl_check_sleep(val.vu32, extack))
			return -EINVAL;
		c.max_us = val.vu32;
		break;
	case ENA_DL_PARAM_POLL_SPIN_US:
		BUILD_BUG_ON(ENA_POLL_SPIN_MAX_US != 200);
		if (val.vu32 > ENA_POLL_SPIN_MAX_US) {
			NL_SET_ERR_MSG_MOD(extack, "admin_poll_spin_us above 200");
			return -EINVAL;
		}
		return 0;
	default:
		return -EOPNOTSUPP;
	}
	if (c.mode != ENA_POLL_FIXED && c.first_us > c.max_us) {
		NL_SET_ERR_MSG_MOD(extack, "admin_poll_first_us above admin_poll_max_us");
		return -EINVAL;
	}
	return 0;
}

static int ena_dl_llq_check(struct devlink *dl, u32 id,
			    union devlink_param_value val,
			    struct netlink_ext_ack *extack)
{
	struct ena_adapter *a = ena_devlink_adapter(dl);

	if (val.vbool && !(a->llq.enabled && a->llq.large_ok)) {
		NL_SET_ERR_MSG_MOD(extack, "the device offers no 256-byte LLQ entries");
		return -EINVAL;
	}
	return 0;
}

/*
 * The validate ops: from 6.17 on the new value comes by pointer
 * (ENA_HAVE_DL_PARAM_VAL_PTR), before by value.
 */
#ifdef ENA_HAVE_DL_PARAM_VAL_PTR
static int ena_dl_poll_validate(struct devlink *dl, u32 id,
				union devlink_param_value *val,
				struct netlink_ext_ack *extack)
{
	return ena_dl_poll_check(dl, id, *val, extack);
}

static int ena_dl_llq_validate(struct devlink *dl, u32 id,
			       union devlink_param_value *val,
			       struct netlink_ext_ack *extack)
{
	return ena_dl_llq_check(dl, id, *val, extack);
}
#else
static int ena_dl_poll_validate(struct devlink *dl, u32 id,
				union devlink_param_value val,
				struct netlink_ext_ack *extack)
{
	return ena_dl_poll_check(dl, id, val, extack);
}

static int ena_dl_llq_validate(struct devlink *dl, u32 id,
			       union devlink_param_value val,
			       struct netlink_ext_ack *extack)
{
	return ena_dl_llq_check(dl, id, val, extack);
}
#endif

#define ENA_DL_RUNTIME(id, name, type, validate)			\
	DEVLINK_PARAM_DRIVER(id, name, DEVLINK_PARAM_TYPE_##type,	\
			     BIT(DEVLINK_PARAM_CMODE_RUNTIME),		\
			     ena_dl_param_get, ena_dl_param_set, validate)
#define ENA_DL_DRIVERINIT(id, name, validate)				\
	DEVLINK_PARAM_DRIVER(id, name, DEVLINK_PARAM_TYPE_BOOL,	\
			     BIT(DEVLINK_PARAM_CMODE_DRIVERINIT),	\
			     NULL, NULL, validate)

static const struct devlink_param ena_devlink_params[] = {
	ENA_DL_RUNTIME(ENA_DL_PARAM_POLL_MODE, "admin_poll_mode", STRING,
		       ena_dl_poll_validate),
	ENA_DL_RUNTIME(ENA_DL_PARAM_POLL_FIRST_US, "admin_poll_first_us", U32,
		       ena_dl_poll_validate),
	ENA_DL_RUNTIME(ENA_DL_PARAM_POLL_STEP_US, "admin_poll_step_us", U32,
		       ena_dl_poll_validate),
	ENA_DL_RUNTIME(ENA_DL_PARAM_POLL_MAX_US, "admin_poll_max_us", U32,
		       ena_dl_poll_validate),
	ENA_DL_RUNTIME(ENA_DL_PARAM_POLL_SPIN_US, "admin_poll_spin_us", U32,
		       ena_dl_poll_validate),
	ENA_DL_DRIVERINIT(ENA_DL_PARAM_ADMIN_IRQ, "admin_irq", NULL),
	ENA_DL_RUNTIME(ENA_DL_PARAM_OPEN_ASYNC, "open_async", BOOL, NULL),
	ENA_DL_DRIVERINIT(ENA_DL_PARAM_LARGE_LLQ, "large_llq_header",
			  ena_dl_llq_validate),
};

/**
 * ena_devlink_params_register() - the parameters, before devlink_register()
 * @a: adapter; the device is initialised (the LLQ entry size is known)
 *
 * The driverinit parameters start at what probe applied: admin_irq from
 * its module parameter, large_llq_header from the entry size probe chose
 * (the device's recommendation).
 *
 * Return: 0 or the errno of the registration.
 */
int ena_devlink_params_register(struct ena_adapter *a)
{
	union devlink_param_value v;
	int rc;

	rc = devlink_params_register(a->devlink, ena_devlink_params,
				     ARRAY_SIZE(ena_devlink_params));
	if (rc)
		return rc;
	v.vbool = a->admin_irq;
	ena_dl_init_value_set(a->devlink, ENA_DL_PARAM_ADMIN_IRQ, v);
	a->llq_large_dl = a->llq.enabled &&
			  a->llq.entry_size == ENA_LLQ_LARGE_ENTRY;
	v.vbool = a->llq_large_dl;
	ena_dl_init_value_set(a->devlink, ENA_DL_PARAM_LARGE_LLQ, v);
	return 0;
}

void ena_devlink_params_unregister(struct ena_adapter *a)
{
	devlink_params_unregister(a->devlink, ena_devlink_params,
				  ARRAY_SIZE(ena_devlink_params));
}

/**
 * ena_params_deprecation_note() - one line at module load naming the
 * deprecated module parameters that are set
 *
 * probe_parallel is no alias (it orders the probes of all devices, before
 * any devlink instance exists) and is not named.
 */
void ena_params_deprecation_note(void)
{
	char buf[96];
	int n = 0;

	if (ena_poll_params_changed())
		n += scnprintf(buf + n, sizeof(buf) - n, " admin_poll*");
	if (!ena_param_admin_irq())
		n += scnprintf(buf + n, sizeof(buf) - n, " admin_irq");
	if (ena_param_open_async())
		n += scnprintf(buf + n, sizeof(buf) - n, " open_async");
	if (n)
		pr_warn("%s: module parameters%s are deprecated: they set each device's devlink parameters at probe (devlink dev param set)\n",
			ENA_DRV_NAME, buf);
}
