// SPDX-License-Identifier: GPL-2.0
/*
 * Talking to the device outside the datapath: register access (plain or
 * readless), the reset handshake and the admin queue (polled during probe
 * and reset, served by the management interrupt otherwise).  The
 * asynchronous event notification queue is ena_aenq.c's.
 */
#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>

#include "ena.h"

/* deprecated alias of the devlink parameter admin_irq (ena_devlink.c) */
static bool admin_irq = true;
module_param(admin_irq, bool, 0444);
MODULE_PARM_DESC(admin_irq,
		 "Deprecated, use devlink param admin_irq. Serve admin completions by the management interrupt once probe is done (default 1; 0 = always poll)");

/* the module parameter: every device's admin_irq at probe */
bool ena_param_admin_irq(void)
{
	return admin_irq;
}

void ena_set_dma_addr(struct ena_dma_addr *d, dma_addr_t addr)
{
	d->lo = cpu_to_le32(lower_32_bits(addr));
	d->hi = cpu_to_le16(upper_32_bits(addr) & 0xffff);
	d->rsvd = 0;
}

void ena_reg_write(struct ena_adapter *a, u32 off, u32 val)
{
	writel(val, a->regs + off);
}

/* ena_reg_write_ring() finds each BASE_HI right after its BASE_LO */
static_assert(ENA_REG_AQ_BASE_HI - ENA_REG_AQ_BASE_LO == 4);
static_assert(ENA_REG_ACQ_BASE_HI - ENA_REG_ACQ_BASE_LO == 4);
static_assert(ENA_REG_AENQ_BASE_HI - ENA_REG_AENQ_BASE_LO == 4);

/**
 * ena_reg_write_ring() - hand a host ring (admin SQ/CQ, AENQ) to the device
 * @a: adapter
 * @base_lo: offset of the ring's BASE_LO register (BASE_HI follows it)
 * @caps_reg: offset of the ring's CAPS register
 * @dma: bus address of the ring
 * @depth: entries
 * @entry_size: bytes per entry
 */
void ena_reg_write_ring(struct ena_adapter *a, u32 base_lo, u32 caps_reg,
			dma_addr_t dma, u32 depth, u32 entry_size)
{
	ena_reg_write(a, base_lo, lower_32_bits(dma));
	ena_reg_write(a, base_lo + 4, upper_32_bits(dma));
	ena_reg_write(a, caps_reg, FIELD_PREP(ENA_QCAPS_DEPTH, depth) |
		      FIELD_PREP(ENA_QCAPS_ENTRY_SIZE, entry_size));
}

struct ena_mmio_wait {
	struct ena_mmio_resp *resp;
	u16 seq;
	u16 off;
};

static bool ena_mmio_answered(void *ctx)
{
	struct ena_mmio_wait *w = ctx;

	return le16_to_cpu(READ_ONCE(w->resp->req_id)) == w->seq;
}

static void ena_mmio_name(void *ctx, char *buf, size_t len)
{
	struct ena_mmio_wait *w = ctx;

	snprintf(buf, len, "register 0x%02x", w->off);
}

static const struct ena_wait_cond ena_mmio_cond = {
	.done = ena_mmio_answered,
	.name = ena_mmio_name,
};

/**
 * ena_reg_read() - read a BAR0 register, through DMA when the device can
 * @a: adapter
 * @off: register offset
 * @val: the value read
 *
 * Process context only: a readless read waits with the shared wait policy.
 *
 * Return: 0, or -ETIME when the device did not answer a readless read.
 */
int ena_reg_read(struct ena_adapter *a, u32 off, u32 *val)
{
	struct ena_mmio_wait w = { .resp = a->mmio_resp, .off = off };
	int rc;

	if (!test_bit(ENA_F_READLESS, &a->flags)) {
		*val = readl(a->regs + off);
		return 0;
	}

	mutex_lock(&a->mmio_lock);
	w.seq = ++a->mmio_seq;
	/* make sure a stale answer cannot match */
	WRITE_ONCE(a->mmio_resp->req_id, cpu_to_le16(w.seq ^ 0xffff));
	writel(FIELD_PREP(ENA_MMIO_READ_OFF, off) |
	       FIELD_PREP(ENA_MMIO_READ_REQ_ID, w.seq),
	       a->regs + ENA_REG_MMIO_READ);
	rc = ena_poll_wait(&a->poll, ENA_WAIT_MMIO, &ena_mmio_cond, &w,
			   READ_ONCE(a->mmio_timeout_us));
	if (!rc) {
		dma_rmb();
		if (le16_to_cpu(a->mmio_resp->reg_off) != off) {
			dev_err(&a->pdev->dev,
				"readless read of 0x%x answered for 0x%x\n",
				off, le16_to_cpu(a->mmio_resp->reg_off));
			rc = -EIO;
		} else {
			*val = le32_to_cpu(a->mmio_resp->val);
		}
	}
	mutex_unlock(&a->mmio_lock);
	return rc;
}

/* the registers ethtool -d reads, in offset order (all below the window) */
static const u8 ena_dump_regs[] = {
	ENA_REG_VERSION, ENA_REG_CTRL_VERSION, ENA_REG_CAPS, ENA_REG_CAPS_EXT,
	ENA_REG_AQ_BASE_LO, ENA_REG_AQ_BASE_HI, ENA_REG_AQ_CAPS,
	ENA_REG_ACQ_BASE_LO, ENA_REG_ACQ_BASE_HI, ENA_REG_ACQ_CAPS,
	ENA_REG_AQ_DB, ENA_REG_ACQ_TAIL, ENA_REG_AENQ_CAPS,
	ENA_REG_AENQ_BASE_LO, ENA_REG_AENQ_BASE_HI, ENA_REG_AENQ_HEAD_DB,
	ENA_REG_AENQ_TAIL, ENA_REG_INTR_MASK, ENA_REG_DEV_CTL, ENA_REG_DEV_STS,
	ENA_REG_MMIO_READ, ENA_REG_MMIO_RESP_LO, ENA_REG_MMIO_RESP_HI,
};

static_assert(ENA_REG_MMIO_RESP_HI < ENA_REGS_DUMP_WINDOW);
static_assert(ENA_REGS_DUMP_TRIED <= 32);

/**
 * ena_regs_dump() - the device's registers, for ethtool -d
 * @a: adapter; RTNL held (no reset of the device runs meanwhile)
 * @buf: ENA_REGS_DUMP_WORDS words, zeroed (layout: ena_regs.h)
 *
 * Each register is read as the driver reads it: through DMA when the
 * device answers readless reads, else (or once cut off by a failed reset)
 * by plain reads.  A device that does not answer costs one read timeout,
 * not one per register: the first read that fails ends the dump, and that
 * register and those after it are marked unreadable.
 */
void ena_regs_dump(struct ena_adapter *a, u32 *buf)
{
	bool failed = false;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ena_dump_regs); i++) {
		u32 n = ena_dump_regs[i] / 4;

		buf[ENA_REGS_DUMP_TRIED] |= BIT(n);
		if (!failed && !ena_reg_read(a, ena_dump_regs[i], &buf[n]))
			continue;
		failed = true;
		buf[n] = U32_MAX;
		buf[ENA_REGS_DUMP_FAILED] |= BIT(n);
	}
}

void ena_mmio_program(struct ena_adapter *a)
{
	ena_reg_write(a, ENA_REG_MMIO_RESP_LO, lower_32_bits(a->mmio_resp_dma));
	ena_reg_write(a, ENA_REG_MMIO_RESP_HI, upper_32_bits(a->mmio_resp_dma));
}

int ena_mmio_init(struct ena_adapter *a)
{
	mutex_init(&a->mmio_lock);
	a->mmio_timeout_us = ENA_MMIO_READ_TIMEOUT_US;
	a->mmio_resp = dma_alloc_coherent(&a->pdev->dev, sizeof(*a->mmio_resp),
					  &a->mmio_resp_dma, GFP_KERNEL);
	if (!a->mmio_resp)
		return -ENOMEM;
	if (!(a->pdev->revision & ENA_PCI_REV_NO_READLESS))
		set_bit(ENA_F_READLESS, &a->flags);
	ena_mmio_program(a);
	return 0;
}

/**
 * ena_mmio_forget() - the device keeps no address for readless responses
 * @a: the adapter
 *
 * Register reads become plain MMIO reads from here on.  After a reset the
 * device holds the response address again (ena_dev_reset() programs it):
 * whatever comes next (a kexec'd kernel, another driver) must not find the
 * device pointing into this kernel's memory.
 */
void ena_mmio_forget(struct ena_adapter *a)
{
	clear_bit(ENA_F_READLESS, &a->flags);
	ena_reg_write(a, ENA_REG_MMIO_RESP_LO, 0);
	ena_reg_write(a, ENA_REG_MMIO_RESP_HI, 0);
}

void ena_mmio_fini(struct ena_adapter *a)
{
	ena_mmio_forget(a);
	dma_free_coherent(&a->pdev->dev, sizeof(*a->mmio_resp), a->mmio_resp,
			  a->mmio_resp_dma);
	a->mmio_resp = NULL;
}

struct ena_sts_wait {
	struct ena_adapter *a;
	u32 mask;
	u32 want;
};

static bool ena_sts_reached(void *ctx)
{
	struct ena_sts_wait *w = ctx;
	u32 sts;

	if (ena_reg_read(w->a, ENA_REG_DEV_STS, &sts))
		return false;
	return (sts & w->mask) == w->want;
}

static void ena_sts_name(void *ctx, char *buf, size_t len)
{
	struct ena_sts_wait *w = ctx;

	snprintf(buf, len, "DEV_STS.reset_in_progress=%d", w->want ? 1 : 0);
}

static const struct ena_wait_cond ena_sts_cond = {
	.done = ena_sts_reached,
	.name = ena_sts_name,
};

/**
 * ena_dev_cut_off() - keep a device that could not be reset off memory
 * @a: adapter
 *
 * For a device that may still run queues (its reset failed) whose memory is
 * about to be freed: bus mastering is cleared, so none of its DMA reaches
 * memory any more, and registers are read by plain MMIO reads (a readless
 * response could not land).  The next successful ena_dev_reset() turns bus
 * mastering back on.
 */
void ena_dev_cut_off(struct ena_adapter *a)
{
	pci_clear_master(a->pdev);
	set_bit(ENA_F_BUS_OFF, &a->flags);
	ena_mmio_forget(a);
}

/*
 * After a reset that completed: a device cut off (ena_dev_cut_off()) gets
 * bus mastering and readless reads back, now that it runs no queue.
 */
static void ena_dev_reconnect(struct ena_adapter *a)
{
	if (!test_bit(ENA_F_BUS_OFF, &a->flags))
		return;
	pci_set_master(a->pdev);
	clear_bit(ENA_F_BUS_OFF, &a->flags);
	if (!(a->pdev->revision & ENA_PCI_REV_NO_READLESS))
		set_bit(ENA_F_READLESS, &a->flags);
	ena_mmio_program(a);
	dev_info(&a->pdev->dev, "device reset: bus mastering on again\n");
}

/*
 * The DEV_CTL value that starts a reset for @reason: bits 3:0 of the reason
 * in the legacy field, bits 7:4 in the extended one when the device offers
 * it (DEVICE_ATTRIBUTES of the last bring-up); a reason that does not fit a
 * device without it is sent as GENERIC, as in-tree.
 */
static u32 ena_dev_ctl_reset(struct ena_adapter *a,
			     enum ena_reset_reason reason)
{
	u32 r = reason;

	if (r > FIELD_MAX(ENA_DEV_CTL_REASON) &&
	    !(a->capabilities & ENA_CAP_EXT_RESET_REASONS))
		r = ENA_RESET_GENERIC;
	return ENA_DEV_CTL_RESET |
	       FIELD_PREP(ENA_DEV_CTL_REASON, r & 0xf) |
	       FIELD_PREP(ENA_DEV_CTL_REASON_EXT, (r >> 4) & 0xf);
}

/**
 * ena_dev_reset() - reset the device and wait for the handshake
 * @a: adapter
 * @reason: reset reason reported to the device
 *
 * Reprograms the readless response address (a reset forgets it) and learns
 * the reset and admin timeouts from CAPS.  A device cut off from memory
 * (ENA_F_BUS_OFF) is reset with plain register reads and gets bus mastering
 * back only once the reset completed, since until then its queues may run.
 *
 * Return: 0 or a negative errno (-ETIME when the device did not respond,
 * -ENODEV when it is not ready before or after the reset).
 */
int ena_dev_reset(struct ena_adapter *a, enum ena_reset_reason reason)
{
	struct ena_sts_wait w = { .a = a, .mask = ENA_DEV_STS_RESETTING };
	u32 sts, caps, to;
	int rc;

	rc = ena_reg_read(a, ENA_REG_DEV_STS, &sts);
	if (rc)
		return rc;
	if (!(sts & ENA_DEV_STS_READY)) {
		dev_err(&a->pdev->dev, "device not ready (DEV_STS 0x%x)\n", sts);
		return -ENODEV;
	}
	rc = ena_reg_read(a, ENA_REG_CAPS, &caps);
	if (rc)
		return rc;
	to = FIELD_GET(ENA_CAPS_RESET_TO, caps);
	a->reset_timeout_us = to ? to * 100 * USEC_PER_MSEC :
				   ENA_RESET_TIMEOUT_DEFAULT_US;
	to = FIELD_GET(ENA_CAPS_ADMIN_TO, caps);
	WRITE_ONCE(a->aq.timeout_us, to ? to * 100 * USEC_PER_MSEC :
					  ENA_ADMIN_TIMEOUT_DEFAULT_US);

	ena_reg_write(a, ENA_REG_DEV_CTL, ena_dev_ctl_reset(a, reason));
	if (!test_bit(ENA_F_BUS_OFF, &a->flags))
		ena_mmio_program(a);

	w.want = ENA_DEV_STS_RESETTING;
	rc = ena_poll_wait(&a->poll, ENA_WAIT_RESET, &ena_sts_cond, &w,
			   a->reset_timeout_us);
	if (rc)
		return rc;

	ena_reg_write(a, ENA_REG_DEV_CTL, 0);
	w.want = 0;
	rc = ena_poll_wait(&a->poll, ENA_WAIT_RESET, &ena_sts_cond, &w,
			   a->reset_timeout_us);
	if (rc)
		return rc;
	rc = ena_reg_read(a, ENA_REG_DEV_STS, &sts);
	if (rc)
		return rc;
	if (!(sts & ENA_DEV_STS_READY)) {
		dev_err(&a->pdev->dev, "device not ready after the reset (DEV_STS 0x%x)\n",
			sts);
		return -ENODEV;
	}
	ena_dev_reconnect(a);
	return 0;
}

/* ---- admin queue ---- */

static const char * const ena_opcode_names[] = {
	[ENA_OP_CREATE_SQ] = "CREATE_SQ",
	[ENA_OP_DESTROY_SQ] = "DESTROY_SQ",
	[ENA_OP_CREATE_CQ] = "CREATE_CQ",
	[ENA_OP_DESTROY_CQ] = "DESTROY_CQ",
	[ENA_OP_GET_FEATURE] = "GET_FEATURE",
	[ENA_OP_SET_FEATURE] = "SET_FEATURE",
	[ENA_OP_GET_STATS] = "GET_STATS",
};

static const char * const ena_feature_names[] = {
	[ENA_FEAT_DEV_ATTR] = "DEVICE_ATTRIBUTES",
	[ENA_FEAT_MAX_QUEUES] = "MAX_QUEUES_NUM",
	[ENA_FEAT_HW_HINTS] = "HW_HINTS",
	[ENA_FEAT_LLQ] = "LLQ",
	[ENA_FEAT_MAX_QUEUES_EXT] = "MAX_QUEUES_EXT",
	[ENA_FEAT_RSS_HASH_FUNC] = "RSS_HASH_FUNCTION",
	[ENA_FEAT_OFFLOAD] = "STATELESS_OFFLOAD",
	[ENA_FEAT_RSS_IND_TABLE] = "RSS_INDIRECTION_TABLE",
	[ENA_FEAT_MTU] = "MTU",
	[ENA_FEAT_RSS_HASH_INPUT] = "RSS_HASH_INPUT",
	[ENA_FEAT_INTR_MODER] = "INTERRUPT_MODERATION",
	[ENA_FEAT_AENQ_CONFIG] = "AENQ_CONFIG",
	[ENA_FEAT_LINK_CONFIG] = "LINK_CONFIG",
	[ENA_FEAT_HOST_ATTR] = "HOST_ATTR_CONFIG",
};

const char *ena_feature_name(enum ena_feature id)
{
	if (id < ARRAY_SIZE(ena_feature_names) && ena_feature_names[id])
		return ena_feature_names[id];
	return "feature?";
}

static void ena_cmd_name(const struct ena_aq_cmd *cmd, u16 id, char *buf,
			 size_t len)
{
	u8 op = cmd->hdr.opcode;
	const char *name = op < ARRAY_SIZE(ena_opcode_names) &&
			   ena_opcode_names[op] ? ena_opcode_names[op] : "?";

	if (op == ENA_OP_GET_FEATURE || op == ENA_OP_SET_FEATURE)
		snprintf(buf, len, "admin %s(%s) cmd_id %u", name,
			 ena_feature_name(cmd->feature.feat.id), id);
	else
		snprintf(buf, len, "admin %s cmd_id %u", name, id);
}

int ena_admin_alloc(struct ena_adapter *a)
{
	struct device *dev = &a->pdev->dev;
	struct ena_admin_queue *aq = &a->aq;

	mutex_init(&aq->lock);
	init_completion(&aq->done);
	aq->timeout_us = ENA_ADMIN_TIMEOUT_DEFAULT_US;

	aq->sq = dma_alloc_coherent(dev, ENA_AQ_DEPTH * ENA_AQ_ENTRY_SIZE,
				    &aq->sq_dma, GFP_KERNEL);
	if (!aq->sq)
		goto err;
	aq->cq = dma_alloc_coherent(dev, ENA_AQ_DEPTH * ENA_ACQ_ENTRY_SIZE,
				    &aq->cq_dma, GFP_KERNEL);
	if (!aq->cq)
		goto err_sq;
	return 0;

err_sq:
	dma_free_coherent(dev, ENA_AQ_DEPTH * ENA_AQ_ENTRY_SIZE, aq->sq,
			  aq->sq_dma);
err:
	return -ENOMEM;
}

/**
 * ena_admin_program() - (re)start the admin submission and completion queues
 * @a: adapter
 *
 * Clears the rings, rewinds indices and phases and hands the bases to the
 * device.  Used after every device reset, followed by ena_aenq_program().
 */
void ena_admin_program(struct ena_adapter *a)
{
	struct ena_admin_queue *aq = &a->aq;

	mutex_lock(&aq->lock);
	memset(aq->sq, 0, ENA_AQ_DEPTH * ENA_AQ_ENTRY_SIZE);
	memset(aq->cq, 0, ENA_AQ_DEPTH * ENA_ACQ_ENTRY_SIZE);
	aq->sq_tail = 0;
	aq->cq_head = 0;
	aq->sq_phase = 1;
	aq->cq_phase = 1;
	aq->irq_missed_streak = 0;

	ena_reg_write_ring(a, ENA_REG_AQ_BASE_LO, ENA_REG_AQ_CAPS, aq->sq_dma,
			   ENA_AQ_DEPTH, ENA_AQ_ENTRY_SIZE);
	ena_reg_write_ring(a, ENA_REG_ACQ_BASE_LO, ENA_REG_ACQ_CAPS, aq->cq_dma,
			   ENA_AQ_DEPTH, ENA_ACQ_ENTRY_SIZE);

	set_bit(ENA_F_ADMIN_READY, &a->flags);
	clear_bit(ENA_F_DEV_QUIESCED, &a->flags);
	clear_bit(ENA_F_DEV_DEAD, &a->flags);
	mutex_unlock(&aq->lock);
}

void ena_admin_free(struct ena_adapter *a)
{
	struct device *dev = &a->pdev->dev;
	struct ena_admin_queue *aq = &a->aq;

	clear_bit(ENA_F_ADMIN_READY, &a->flags);
	/* the device was reset for good: no GET_STATS answer comes late */
	ena_dev_stats_free(a);
	dma_free_coherent(dev, ENA_AQ_DEPTH * ENA_ACQ_ENTRY_SIZE, aq->cq,
			  aq->cq_dma);
	dma_free_coherent(dev, ENA_AQ_DEPTH * ENA_AQ_ENTRY_SIZE, aq->sq,
			  aq->sq_dma);
	mutex_destroy(&aq->lock);
}

/* The next completion is there; also called from the management IRQ */
static bool ena_acq_ready(void *ctx)
{
	struct ena_admin_queue *aq = ctx;
	struct ena_acq_resp *e = &aq->cq[READ_ONCE(aq->cq_head) &
					 (ENA_AQ_DEPTH - 1)];

	return (READ_ONCE(e->hdr.flags) & ENA_ACQ_FLAG_PHASE) ==
	       READ_ONCE(aq->cq_phase);
}

/* The command in flight is the SQ entry just before the tail */
static void ena_acq_name(void *ctx, char *buf, size_t len)
{
	struct ena_admin_queue *aq = ctx;
	const struct ena_aq_cmd *cmd = &aq->sq[(aq->sq_tail - 1) &
					       (ENA_AQ_DEPTH - 1)];

	ena_cmd_name(cmd, le16_to_cpu(cmd->hdr.cmd_id) & ENA_AQ_CMD_ID_MASK,
		     buf, len);
}

static const struct ena_wait_cond ena_acq_cond = {
	.done = ena_acq_ready,
	.name = ena_acq_name,
};

static int ena_aq_status_to_errno(u8 status)
{
	switch (status) {
	case ENA_AQ_OK:
		return 0;
	case ENA_AQ_NO_RESOURCES:
		return -ENOMEM;
	case ENA_AQ_UNSUPPORTED:
		return -EOPNOTSUPP;
	case ENA_AQ_BUSY:
		return -EBUSY;
	case ENA_AQ_BAD_OPCODE:
	case ENA_AQ_MALFORMED:
	case ENA_AQ_ILLEGAL_PARAM:
	case ENA_AQ_UNKNOWN:
	default:
		return -EINVAL;
	}
}

/**
 * ena_admin_irq_mode() - serve admin completions by interrupt, or by polling
 * @a: adapter
 * @on: true once the management vector is live and unmasked
 *
 * The device initialisation of probe and reset polls (the fast linear
 * policy of ena_poll.c); once the management vector is live, commands take
 * that interrupt instead, so a slow command costs no wakeups, unless the
 * devlink parameter admin_irq is off (applied at reload).  Takes the
 * admin lock: no command is in flight across the switch.
 */
void ena_admin_irq_mode(struct ena_adapter *a, bool on)
{
	mutex_lock(&a->aq.lock);
	if (on && a->admin_irq)
		set_bit(ENA_F_ADMIN_IRQ, &a->flags);
	else
		clear_bit(ENA_F_ADMIN_IRQ, &a->flags);
	mutex_unlock(&a->aq.lock);
}

/**
 * ena_admin_irq() - management interrupt: wake the admin command waiter
 * @a: adapter
 *
 * Only looks at the completion the waiter expects; the waiter consumes it.
 */
void ena_admin_irq(struct ena_adapter *a)
{
	if (test_bit(ENA_F_ADMIN_IRQ, &a->flags) && ena_acq_ready(&a->aq))
		complete(&a->aq.done);
}

/* Log a command's non-zero completion status; Return: its errno */
static int ena_aq_cmd_status(struct ena_adapter *a,
			     const struct ena_aq_cmd *cmd,
			     const struct ena_acq_resp *resp)
{
	struct ena_admin_queue *aq = &a->aq;
	int rc = ena_aq_status_to_errno(resp->hdr.status);
	char what[64];

	if (!rc)
		return 0;
	ena_cmd_name(cmd, le16_to_cpu(cmd->hdr.cmd_id) & ENA_AQ_CMD_ID_MASK,
		     what, sizeof(what));
	WRITE_ONCE(aq->errors, aq->errors + 1);
	if (rc == -EOPNOTSUPP)
		dev_dbg(&a->pdev->dev, "%s: unsupported\n", what);
	else
		dev_warn(&a->pdev->dev, "%s: status %u\n", what,
			 resp->hdr.status);
	return rc;
}

/*
 * After an interrupt-driven exchange: @missed says whether one of its
 * completions was found by the recheck with no interrupt.  Such exchanges
 * in a row are counted; once ENA_ADMIN_IRQ_MISSED_RESET of them happened
 * the management vector is deemed broken (every admin command would cost
 * the recheck period, and the AENQ is served by the same vector) and true
 * is returned: the caller schedules a reset with the in-tree reason
 * MISSING_ADMIN_INTERRUPT.  A single lost interrupt costs only the recheck
 * (the command completes).  Under aq->lock.
 */
static bool ena_admin_irq_check(struct ena_adapter *a, bool missed)
{
	struct ena_admin_queue *aq = &a->aq;

	if (!missed) {
		aq->irq_missed_streak = 0;
		return false;
	}
	WRITE_ONCE(aq->irq_missed, aq->irq_missed + 1);
	return ++aq->irq_missed_streak == ENA_ADMIN_IRQ_MISSED_RESET;
}

/**
 * ena_admin_exec_many() - submit admin commands together, wait for them all
 * @a: adapter
 * @cmd: @n commands; their ids and phases are filled in here
 * @resp: where each command's 64-byte completion is copied, in the order
 *	  of @cmd whatever order the device completes them in
 * @rcs: each command's own result (0 or the errno of its status); may be
 *	 NULL when @n is 1
 * @n: 1..ENA_AQ_DEPTH commands
 *
 * The commands go to the device with one doorbell and the device works on
 * them at once: a queue start waits one device round trip for all its
 * CREATE_CQs, not one per command.  Completions are matched by command id.
 * The wait polls, or sleeps until the management interrupt
 * (ena_admin_irq_mode()).  A completion that matches no command in flight,
 * or a timeout, marks the admin queue unusable and schedules a device reset.
 *
 * Return: 0 when every command completed with status OK; -ETIME on timeout,
 * -EIO on a malformed completion, -ENODEV while the device awaits reset,
 * -ENOSPC for more commands than the queue holds (a driver bug, counted as
 * the in-tree ena_admin_q_out_of_space) (for these four no completion is
 * valid and no @rcs entry is set);
 * otherwise the first non-zero result in @rcs.
 */
int ena_admin_exec_many(struct ena_adapter *a, struct ena_aq_cmd *cmd,
			struct ena_acq_resp *resp, int *rcs, unsigned int n)
{
	struct ena_admin_queue *aq = &a->aq;
	DECLARE_BITMAP(seen, ENA_AQ_DEPTH) = {};
	struct ena_wait_stats *aw = &a->poll.stats[ENA_WAIT_ADMIN];
	bool irq, irq_lost = false;
	struct ena_acq_resp *e;
	unsigned int i, k;
	u32 timeout_us;
	u64 missed0;
	char what[64];
	u16 id0, got;
	int rc;

	if (WARN_ON_ONCE(!n || (n > 1 && !rcs)))
		return -EINVAL;
	/* the queue holds one batch at a time: a larger one cannot go in */
	if (WARN_ON_ONCE(n > ENA_AQ_DEPTH)) {
		WRITE_ONCE(aq->out_of_space, aq->out_of_space + n);
		return -ENOSPC;
	}
	mutex_lock(&aq->lock);
	if (!test_bit(ENA_F_ADMIN_READY, &a->flags) ||
	    test_bit(ENA_F_DEV_DEAD, &a->flags)) {
		WRITE_ONCE(aq->refused, aq->refused + n);
		mutex_unlock(&aq->lock);
		return -ENODEV;
	}

	id0 = aq->next_cmd_id & ENA_AQ_CMD_ID_MASK;
	for (i = 0; i < n; i++) {
		cmd[i].hdr.cmd_id = cpu_to_le16((id0 + i) & ENA_AQ_CMD_ID_MASK);
		cmd[i].hdr.flags = (cmd[i].hdr.flags & ~ENA_AQ_FLAG_PHASE) |
				   aq->sq_phase;
		memcpy(&aq->sq[aq->sq_tail & (ENA_AQ_DEPTH - 1)], &cmd[i],
		       sizeof(*cmd));
		aq->sq_tail++;
		if (!(aq->sq_tail & (ENA_AQ_DEPTH - 1)))
			aq->sq_phase ^= 1;
	}
	aq->next_cmd_id += n;
	irq = test_bit(ENA_F_ADMIN_IRQ, &a->flags);
	missed0 = READ_ONCE(aw->irq_missed);
	if (irq)
		reinit_completion(&aq->done);
	/* writel() orders the entries (and the re-armed completion) first */
	ena_reg_write(a, ENA_REG_AQ_DB, aq->sq_tail);
	WRITE_ONCE(aq->submitted, aq->submitted + n);
	/* a device hint (ena_hints_apply()) may change it at any time */
	timeout_us = READ_ONCE(aq->timeout_us);

	for (k = 0; k < n; k++) {
		/* the command's name is formatted only for a log line */
		if (irq) {
			rc = ena_poll_wait_irq(&a->poll, ENA_WAIT_ADMIN,
					       &ena_acq_cond, aq, &aq->done,
					       timeout_us);
			WRITE_ONCE(aq->irq_cmds, aq->irq_cmds + 1);
		} else {
			rc = ena_poll_wait(&a->poll, ENA_WAIT_ADMIN,
					   &ena_acq_cond, aq, timeout_us);
			WRITE_ONCE(aq->polled_cmds, aq->polled_cmds + 1);
		}
		if (rc)
			goto dead;

		dma_rmb();
		e = &aq->cq[aq->cq_head & (ENA_AQ_DEPTH - 1)];
		got = le16_to_cpu(READ_ONCE(e->hdr.cmd_id)) & ENA_AQ_CMD_ID_MASK;
		i = (got - id0) & ENA_AQ_CMD_ID_MASK;
		if (i < n && !test_bit(i, seen))
			memcpy(&resp[i], e, sizeof(*resp));
		/*
		 * Re-armed before the entry is handed back: an interrupt for
		 * the next completion, from here on, completes it again.
		 */
		if (irq && k + 1 < n)
			reinit_completion(&aq->done);
		WRITE_ONCE(aq->cq_head, aq->cq_head + 1);
		if (!(aq->cq_head & (ENA_AQ_DEPTH - 1)))
			WRITE_ONCE(aq->cq_phase, aq->cq_phase ^ 1);
		WRITE_ONCE(aq->completed, aq->completed + 1);

		if (i >= n || test_and_set_bit(i, seen)) {
			ena_cmd_name(&cmd[0], id0, what, sizeof(what));
			WRITE_ONCE(aq->malformed, aq->malformed + 1);
			dev_err(&a->pdev->dev,
				"%s%s: completion carries unknown cmd_id %u\n",
				what, n > 1 ? " (first of a batch)" : "", got);
			rc = -EIO;
			goto dead;
		}
	}
	if (irq)
		irq_lost = ena_admin_irq_check(a, READ_ONCE(aw->irq_missed) !=
						  missed0);
	mutex_unlock(&aq->lock);
	if (irq_lost)
		ena_reset_schedule(a, ENA_RESET_MISSING_ADMIN_INTERRUPT,
				   "admin completions without an interrupt");

	rc = 0;
	for (i = 0; i < n; i++) {
		int r = ena_aq_cmd_status(a, &cmd[i], &resp[i]);

		if (rcs)
			rcs[i] = r;
		if (r && !rc)
			rc = r;
	}
	return rc;

dead:
	set_bit(ENA_F_DEV_DEAD, &a->flags);
	/* the in-tree admin_q_pause: the queue stopped, a reset follows */
	WRITE_ONCE(aq->paused, aq->paused + 1);
	mutex_unlock(&aq->lock);
	if (rc == -EIO)
		ena_reset_schedule(a, ENA_RESET_DRIVER_INVALID_STATE,
				   "malformed admin completion");
	else
		ena_reset_schedule(a, ENA_RESET_ADMIN_TO,
				   "admin command timeout");
	return rc;
}

/**
 * ena_admin_exec() - submit one admin command and wait for its completion
 * @a: adapter
 * @cmd: the command; its id and phase are filled in here
 * @resp: where the 64-byte completion is copied
 *
 * ena_admin_exec_many() of one command.
 *
 * Return: as ena_admin_exec_many().
 */
int ena_admin_exec(struct ena_adapter *a, struct ena_aq_cmd *cmd,
		   struct ena_acq_resp *resp)
{
	return ena_admin_exec_many(a, cmd, resp, NULL, 1);
}

bool ena_feature_supported(struct ena_adapter *a, enum ena_feature id)
{
	if (id == ENA_FEAT_DEV_ATTR || id == ENA_FEAT_HOST_ATTR)
		return true;
	return a->supported_features & BIT(id);
}

/**
 * ena_get_feature() - GET_FEATURE, with an optional control buffer
 * @a: adapter
 * @id: feature
 * @version: feature version asked for
 * @buf: DMA address of the control buffer, or 0
 * @buf_len: its length, or 0
 * @resp: the completion
 *
 * Return: 0, -EOPNOTSUPP when the device does not list the feature, or the
 * error of ena_admin_exec().
 */
int ena_get_feature(struct ena_adapter *a, enum ena_feature id, u8 version,
		    dma_addr_t buf, u32 buf_len, struct ena_acq_resp *resp)
{
	struct ena_aq_cmd cmd = {};

	if (!ena_feature_supported(a, id))
		return -EOPNOTSUPP;

	cmd.hdr.opcode = ENA_OP_GET_FEATURE;
	if (buf_len) {
		cmd.hdr.flags = ENA_AQ_FLAG_CTRL_INDIRECT;
		cmd.feature.ctrl.len = cpu_to_le32(buf_len);
		ena_set_dma_addr(&cmd.feature.ctrl.addr, buf);
	}
	cmd.feature.feat.id = id;
	cmd.feature.feat.version = version;
	return ena_admin_exec(a, &cmd, resp);
}

/**
 * ena_get_features() - independent GET_FEATUREs in one admin batch
 * @a: adapter
 * @g: @n requests; each gets its own @rc and completion
 * @n: 1..ENA_FEAT_GET_MAX
 *
 * The features the device lists go to it together (ena_admin_exec_many()),
 * so a bring-up waits one device round trip for all of them instead of one
 * each.  A feature the device does not list gets -EOPNOTSUPP without a
 * command.
 *
 * Return: 0, or the error that left no completion valid (timeout,
 * malformed completion, device awaiting reset); a command's own status is
 * only in its @rc.
 */
int ena_get_features(struct ena_adapter *a, struct ena_feat_get *g,
		     unsigned int n)
{
	struct ena_acq_resp resp[ENA_FEAT_GET_MAX];
	struct ena_aq_cmd cmd[ENA_FEAT_GET_MAX];
	unsigned int idx[ENA_FEAT_GET_MAX];
	int rcs[ENA_FEAT_GET_MAX];
	unsigned int i, m = 0;
	int rc;

	if (WARN_ON_ONCE(!n || n > ENA_FEAT_GET_MAX))
		return -EINVAL;
	memset(cmd, 0, sizeof(cmd));
	for (i = 0; i < n; i++) {
		g[i].rc = -EOPNOTSUPP;
		if (!ena_feature_supported(a, g[i].id))
			continue;
		cmd[m].hdr.opcode = ENA_OP_GET_FEATURE;
		if (g[i].buf_len) {
			cmd[m].hdr.flags = ENA_AQ_FLAG_CTRL_INDIRECT;
			cmd[m].feature.ctrl.len = cpu_to_le32(g[i].buf_len);
			ena_set_dma_addr(&cmd[m].feature.ctrl.addr, g[i].buf);
		}
		cmd[m].feature.feat.id = g[i].id;
		cmd[m].feature.feat.version = g[i].version;
		idx[m++] = i;
	}
	if (!m)
		return 0;
	rc = ena_admin_exec_many(a, cmd, resp, rcs, m);
	if (rc == -ETIME || rc == -EIO || rc == -ENODEV)
		return rc;
	for (i = 0; i < m; i++) {
		g[idx[i]].rc = rcs[i];
		g[idx[i]].resp = resp[i];
	}
	return 0;
}

/**
 * ena_set_feature() - SET_FEATURE with the payload already in @cmd
 * @a: adapter
 * @cmd: command with cmd->feature.u filled in
 * @id: feature
 * @buf: DMA address of the control buffer, or 0
 * @buf_len: its length, or 0
 *
 * Return: 0, -EOPNOTSUPP, or the error of ena_admin_exec().
 */
int ena_set_feature(struct ena_adapter *a, struct ena_aq_cmd *cmd,
		    enum ena_feature id, dma_addr_t buf, u32 buf_len)
{
	struct ena_acq_resp resp;

	if (!ena_feature_supported(a, id))
		return -EOPNOTSUPP;
	ena_set_feature_cmd(cmd, id, buf, buf_len);
	return ena_admin_exec(a, cmd, &resp);
}

/**
 * ena_set_feature_cmd() - make @cmd a SET_FEATURE, its payload already in it
 * @cmd: command with cmd->feature.u filled in
 * @id: feature; the caller checked ena_feature_supported()
 * @buf: DMA address of the control buffer, or 0
 * @buf_len: its length, or 0
 *
 * For a caller that sends it in a batch (ena_admin_exec_many()).
 */
void ena_set_feature_cmd(struct ena_aq_cmd *cmd, enum ena_feature id,
			 dma_addr_t buf, u32 buf_len)
{
	cmd->hdr.opcode = ENA_OP_SET_FEATURE;
	if (buf_len) {
		cmd->hdr.flags = ENA_AQ_FLAG_CTRL_INDIRECT;
		cmd->feature.ctrl.len = cpu_to_le32(buf_len);
		ena_set_dma_addr(&cmd->feature.ctrl.addr, buf);
	}
	cmd->feature.feat.id = id;
}
