// SPDX-License-Identifier: GPL-2.0
/*
 * The device bring-up sequence, shared by probe and reset recovery.  It
 * sends the admin commands the stock driver sends (less its second read of
 * AENQ_CONFIG), in four round trips instead of one per command:
 * SET HOST_ATTR_CONFIG; GET DEVICE_ATTRIBUTES (which lists the features);
 * one batch of GET MAX_QUEUES_EXT (or MAX_QUEUES_NUM), AENQ_CONFIG,
 * STATELESS_OFFLOAD, and HW_HINTS, LLQ, INTERRUPT_MODERATION when listed;
 * one batch of SET AENQ_CONFIG and SET LLQ.
 */
#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/kernel.h>
#include <linux/utsname.h>

#include "ena.h"

/* LLQ layout we ask for */
#define ENA_LLQ_WANT_DESCS_BEFORE_HDR	2
/* the groups ena_aenq.c handles, enabled where the device offers them */
#define ENA_AENQ_WANTED_GROUPS	(BIT(ENA_AENQ_LINK_CHANGE) | \
				 BIT(ENA_AENQ_FATAL_ERROR) | \
				 BIT(ENA_AENQ_WARNING) | \
				 BIT(ENA_AENQ_NOTIFICATION) | \
				 BIT(ENA_AENQ_KEEP_ALIVE) | \
				 BIT(ENA_AENQ_REFRESH_CAPS) | \
				 BIT(ENA_AENQ_CONF_NOTIFICATIONS) | \
				 BIT(ENA_AENQ_DEVICE_REQUEST_RESET))
/* lowest controller version a driver may talk to: 0.0.1 */
#define ENA_MIN_CTRL_VERSION		1

/* the running kernel's version as (major << 16 | minor << 8 | patch) */
static u32 ena_kernel_code(void)
{
	unsigned int maj = 0, min = 0, sub = 0;

	if (sscanf(init_utsname()->release, "%u.%u.%u", &maj, &min, &sub) < 2)
		return 0;
	return (maj << 16) | (min << 8) | min_t(unsigned int, sub, 255);
}

/**
 * ena_host_info_features() - the netdev's features into the host-info page
 * @a: adapter
 *
 * The device reads the page when it likes.  The in-tree driver writes the
 * interface's features into it every second, so that the device sees the
 * offloads a user turned on or off; the watchdog does the same here, and
 * each device init.  A plain read of the features, as they change under
 * RTNL: a second late at most.
 */
void ena_host_info_features(struct ena_adapter *a)
{
	u64 f = READ_ONCE(a->netdev->features);
	struct ena_host_info *hi = a->host_info;

	WRITE_ONCE(hi->supported_network_features[0],
		   cpu_to_le32(lower_32_bits(f)));
	WRITE_ONCE(hi->supported_network_features[1],
		   cpu_to_le32(upper_32_bits(f)));
}

static void ena_fill_host_info(struct ena_adapter *a)
{
	struct ena_host_info *hi = a->host_info;
	struct pci_dev *pdev = a->pdev;

	memset(hi, 0, sizeof(*hi));
	hi->os_type = cpu_to_le32(ENA_OS_LINUX);
	hi->kernel_ver = cpu_to_le32(ena_kernel_code());
	strscpy(hi->kernel_ver_str, utsname()->version,
		sizeof(hi->kernel_ver_str));
	strscpy(hi->os_dist_str, utsname()->release, sizeof(hi->os_dist_str));
	hi->driver_version =
		cpu_to_le32(FIELD_PREP(ENA_HOST_DRV_MAJOR, ENA_DRV_VERSION_MAJOR) |
			    FIELD_PREP(ENA_HOST_DRV_MINOR, ENA_DRV_VERSION_MINOR) |
			    FIELD_PREP(ENA_HOST_DRV_SUBMINOR,
				       ENA_DRV_VERSION_SUBMINOR));
	hi->spec_version = cpu_to_le16(ENA_SPEC_VERSION);
	hi->bdf = cpu_to_le16(FIELD_PREP(ENA_HOST_BDF_BUS, pdev->bus->number) |
			      FIELD_PREP(ENA_HOST_BDF_DEV,
					 PCI_SLOT(pdev->devfn)) |
			      FIELD_PREP(ENA_HOST_BDF_FUNC,
					 PCI_FUNC(pdev->devfn)));
	hi->num_cpus = cpu_to_le16(num_online_cpus());
	hi->driver_supported_features = cpu_to_le32(ENA_HOST_FEAT_INTR_MODER |
						    ENA_HOST_FEAT_RSS_FUNC_KEY);
	ena_host_info_features(a);
}

static int ena_send_host_attr(struct ena_adapter *a)
{
	struct ena_aq_cmd cmd = {};

	ena_fill_host_info(a);
	ena_set_dma_addr(&cmd.feature.u.host_attr.os_info, a->host_info_dma);
	return ena_set_feature(a, &cmd, ENA_FEAT_HOST_ATTR, 0, 0);
}

/*
 * A device answer no device may give: counted (ethtool -S
 * admin_bad_answers), logged, and the step fails with -EINVAL.
 */
static __printf(2, 3) int ena_dev_bad_answer(struct ena_adapter *a,
					     const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	WRITE_ONCE(a->dev_bad_answers, a->dev_bad_answers + 1);
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	dev_err(&a->pdev->dev, "device answer rejected: %pV\n", &vaf);
	va_end(args);
	return -EINVAL;
}

/* the completion of GET MAX_QUEUES_EXT (@ext) or MAX_QUEUES, checked */
static int ena_queue_limits(struct ena_adapter *a, bool ext,
			    const struct ena_acq_resp *r)
{
	if (ext) {
		const struct ena_feat_max_queues_ext *q = &r->max_queues_ext;

		if (q->version != ENA_MAX_QUEUES_EXT_VERSION)
			return ena_dev_bad_answer(a, "MAX_QUEUES_EXT version %u",
						  q->version);
		a->dev_max_queues = min3(le32_to_cpu(q->max_tx_sq_num),
					 le32_to_cpu(q->max_rx_sq_num),
					 min(le32_to_cpu(q->max_tx_cq_num),
					     le32_to_cpu(q->max_rx_cq_num)));
		a->dev_max_tx_depth = min(le32_to_cpu(q->max_tx_sq_depth),
					  le32_to_cpu(q->max_tx_cq_depth));
		a->dev_max_rx_depth = min(le32_to_cpu(q->max_rx_sq_depth),
					  le32_to_cpu(q->max_rx_cq_depth));
		a->tx_max_header = le32_to_cpu(q->max_tx_header_size);
		a->max_tx_sgl = le16_to_cpu(q->max_tx_descs_per_pkt);
		a->max_rx_sgl = le16_to_cpu(q->max_rx_descs_per_pkt);
	} else {
		const struct ena_feat_max_queues *q = &r->max_queues;

		a->dev_max_queues = min(le32_to_cpu(q->max_sq_num),
					le32_to_cpu(q->max_cq_num));
		a->dev_max_tx_depth = min(le32_to_cpu(q->max_sq_depth),
					  le32_to_cpu(q->max_cq_depth));
		a->dev_max_rx_depth = a->dev_max_tx_depth;
		a->tx_max_header = le32_to_cpu(q->max_header_size);
		a->max_tx_sgl = le16_to_cpu(q->max_tx_descs_per_pkt);
		a->max_rx_sgl = le16_to_cpu(q->max_rx_descs_per_pkt);
	}
	if (!a->dev_max_queues || a->dev_max_rx_depth < 2)
		return ena_dev_bad_answer(a, "%u queues, RX ring maximum %u",
					  a->dev_max_queues,
					  a->dev_max_rx_depth);
	/*
	 * A TX ring must hold the descriptors of the largest packet (with
	 * room to spare), or its queue stops and never wakes again.
	 */
	if (a->dev_max_tx_depth < 2 * ENA_TX_MAX_DESCS)
		return ena_dev_bad_answer(a, "TX ring maximum %u < %u (two packets)",
					  a->dev_max_tx_depth,
					  (u32)(2 * ENA_TX_MAX_DESCS));
	/* the descriptor's header length field has 8 bits */
	a->tx_max_header = min(a->tx_max_header, 255U);
	return 0;
}

/*
 * Choose the LLQ layout from what the device offers: inline headers,
 * several descriptors per entry, two descriptors before the header, and
 * 128-byte entries (96 bytes of pushed header) unless the device recommends
 * 256-byte ones or the user asked for them (ethtool -G tx-push-buf-len
 * 224).  The device's depth counts 128-byte entries: a 256-byte entry
 * takes two, so the TX ring's maximum halves (as in the in-tree driver).
 * Returns false when LLQ cannot be used and host placement must serve TX.
 */
static bool ena_llq_choose(struct ena_adapter *a, const struct ena_feat_llq *f)
{
	struct ena_llq_cfg *c = &a->llq;
	u16 before = le16_to_cpu(f->descs_before_hdr_supported);
	u16 sizes = le16_to_cpu(f->entry_size_supported);
	bool large;

	memset(c, 0, sizeof(*c));
	if (!a->llq_bar)
		return false;
	if (!(le16_to_cpu(f->hdr_location_supported) & ENA_LLQ_HDR_INLINE) ||
	    !(le16_to_cpu(f->entry_size_supported) & ENA_LLQ_ENTRY_128B))
		return false;
	if (before & ENA_LLQ_WANT_DESCS_BEFORE_HDR)
		c->descs_before_hdr = ENA_LLQ_WANT_DESCS_BEFORE_HDR;
	else if (before & 1)
		c->descs_before_hdr = 1;
	else
		return false;
	c->large_ok = sizes & ENA_LLQ_ENTRY_256B;
	large = c->large_ok &&
		(a->llq_large == ENA_LLQ_LARGE_ON ||
		 (a->llq_large == ENA_LLQ_LARGE_AUTO &&
		  f->entry_size_recommended == ENA_LLQ_ENTRY_256B));
	c->entry_size = large ? ENA_LLQ_LARGE_ENTRY : ENA_LLQ_ENTRY;
	if (le16_to_cpu(f->stride_supported) & ENA_LLQ_STRIDE_MULTI)
		c->descs_per_entry = c->entry_size / sizeof(struct ena_tx_desc);
	else
		c->descs_per_entry = 1;
	c->hdr_room = c->entry_size -
		      c->descs_before_hdr * sizeof(struct ena_tx_desc);
	c->dev_depth = le32_to_cpu(f->max_llq_depth);
	c->max_depth = ena_llq_depth(c, c->entry_size);
	c->max_num = le32_to_cpu(f->max_llq_num);
	/* the accelerations we take, where the device offers them */
	c->accel_flags = le16_to_cpu(f->accel_flags) &
			 (ENA_LLQ_ACCEL_NO_META_CACHE | ENA_LLQ_ACCEL_TX_BURST);
	c->max_tx_burst = c->accel_flags & ENA_LLQ_ACCEL_TX_BURST ?
			  le16_to_cpu(f->accel_max_tx_burst) : 0;
	if (!c->max_num)
		return false;
	/* a ring that cannot hold two of the largest packets would stop */
	if (c->max_depth < 2 * ena_llq_pkt_slots(c)) {
		dev_warn(&a->pdev->dev, "LLQ depth %u is below two packets (%u entries): TX descriptors in host memory\n",
			 c->max_depth, 2 * ena_llq_pkt_slots(c));
		return false;
	}
	return true;
}

/* the SET LLQ payload of the layout ena_llq_choose() picked */
static void ena_llq_cmd(struct ena_adapter *a, struct ena_aq_cmd *cmd)
{
	struct ena_llq_cfg *c = &a->llq;
	struct ena_feat_llq *l = &cmd->feature.u.llq;

	l->hdr_location_enabled = cpu_to_le16(ENA_LLQ_HDR_INLINE);
	l->entry_size_enabled = cpu_to_le16(c->entry_size == ENA_LLQ_LARGE_ENTRY ?
					    ENA_LLQ_ENTRY_256B : ENA_LLQ_ENTRY_128B);
	l->descs_before_hdr_enabled = cpu_to_le16(c->descs_before_hdr);
	l->stride_enabled = cpu_to_le16(c->descs_per_entry > 1 ?
					ENA_LLQ_STRIDE_MULTI :
					ENA_LLQ_STRIDE_SINGLE);
	/*
	 * With meta caching disabled every packet carries its meta
	 * descriptor (ena_tx_meta_always()); with the burst limit a doorbell
	 * comes before a burst would pass it (ena_llq_burst_full()).
	 */
	l->accel_flags = cpu_to_le16(c->accel_flags);
}

static int ena_check_version(struct ena_adapter *a)
{
	u32 ver, ctrl;
	int rc;

	rc = ena_reg_read(a, ENA_REG_VERSION, &ver);
	if (rc)
		return rc;
	rc = ena_reg_read(a, ENA_REG_CTRL_VERSION, &ctrl);
	if (rc)
		return rc;
	if ((ctrl & ~ENA_CTRL_VERSION_IMPL) < ENA_MIN_CTRL_VERSION) {
		dev_err(&a->pdev->dev, "controller version %u.%u.%u too old\n",
			(u32)FIELD_GET(ENA_CTRL_VERSION_MAJOR, ctrl),
			(u32)FIELD_GET(ENA_CTRL_VERSION_MINOR, ctrl),
			(u32)FIELD_GET(ENA_CTRL_VERSION_SUBMINOR, ctrl));
		return -EOPNOTSUPP;
	}
	WRITE_ONCE(a->dev_version, ver);
	WRITE_ONCE(a->ctrl_version, ctrl);
	dev_dbg(&a->pdev->dev, "ENA spec %u.%u, controller %u.%u.%u\n",
		(u32)FIELD_GET(ENA_VERSION_MAJOR, ver),
		(u32)FIELD_GET(ENA_VERSION_MINOR, ver),
		(u32)FIELD_GET(ENA_CTRL_VERSION_MAJOR, ctrl),
		(u32)FIELD_GET(ENA_CTRL_VERSION_MINOR, ctrl),
		(u32)FIELD_GET(ENA_CTRL_VERSION_SUBMINOR, ctrl));
	return 0;
}

static int ena_set_dma_width(struct ena_adapter *a)
{
	u32 caps, width;
	int rc;

	rc = ena_reg_read(a, ENA_REG_CAPS, &caps);
	if (rc)
		return rc;
	width = FIELD_GET(ENA_CAPS_DMA_WIDTH, caps);
	if (width < 32 || width > 48) {
		dev_err(&a->pdev->dev, "invalid DMA width %u\n", width);
		return -EINVAL;
	}
	a->dma_width = width;
	return dma_set_mask_and_coherent(&a->pdev->dev, DMA_BIT_MASK(width));
}

/* the GET_FEATUREs of ena_device_init()'s batch */
enum {
	ENA_GET_QUEUES,
	ENA_GET_AENQ,
	ENA_GET_OFFLOAD,
	ENA_GET_HINTS,
	ENA_GET_LLQ,
	ENA_GET_MODER,
	ENA_GET_N
};

/**
 * ena_device_init() - reset the device and run the bring-up commands
 * @a: adapter; host_info, the admin rings and the AENQ ring are allocated
 * @reason: reset reason given to the device
 *
 * Leaves the admin queue running in polling mode with the management
 * interrupt masked.  Probe (before the vector is armed) and reset (between
 * ena_mgmt_quiesce() and ena_mgmt_arm()) both call this, so no management
 * interrupt handler runs while the admin and AENQ rings are reprogrammed.
 *
 * Return: 0 or a negative errno.
 */
int ena_device_init(struct ena_adapter *a, enum ena_reset_reason reason)
{
	struct ena_feat_get get[ENA_GET_N] = {};
	struct device *dev = &a->pdev->dev;
	struct ena_acq_resp set_resp[2];
	struct ena_aq_cmd set[2] = {};
	bool llq_ok = false, qext;
	unsigned int nset;
	int set_rc[2], rc;
	struct ena_acq_resp r;
	u32 groups;

	clear_bit(ENA_F_ADMIN_READY, &a->flags);
	rc = ena_dev_reset(a, reason);
	if (rc) {
		dev_err(dev, "device reset failed: %d\n", rc);
		return rc;
	}
	rc = ena_check_version(a);
	if (rc)
		return rc;
	rc = ena_set_dma_width(a);
	if (rc)
		return rc;

	ena_admin_program(a);
	ena_aenq_program(a);
	ena_reg_write(a, ENA_REG_INTR_MASK, ENA_INTR_MASK_MGMT);

	/* failure here is not fatal, as for the stock driver */
	rc = ena_send_host_attr(a);
	if (rc)
		dev_warn(dev, "SET HOST_ATTR_CONFIG failed: %d\n", rc);

	rc = ena_get_feature(a, ENA_FEAT_DEV_ATTR, 0, 0, 0, &r);
	if (rc)
		goto err;
	a->supported_features = le32_to_cpu(r.dev_attr.supported_features);
	a->capabilities = le32_to_cpu(r.dev_attr.capabilities);
	ether_addr_copy(a->mac, r.dev_attr.mac);
	a->max_mtu = le32_to_cpu(r.dev_attr.max_mtu);

	/* the device's answers to these do not depend on each other */
	qext = ena_feature_supported(a, ENA_FEAT_MAX_QUEUES_EXT);
	get[ENA_GET_QUEUES] = (struct ena_feat_get){
		.id = qext ? ENA_FEAT_MAX_QUEUES_EXT : ENA_FEAT_MAX_QUEUES,
		.version = qext ? ENA_MAX_QUEUES_EXT_VERSION : 0 };
	get[ENA_GET_AENQ].id = ENA_FEAT_AENQ_CONFIG;
	get[ENA_GET_OFFLOAD].id = ENA_FEAT_OFFLOAD;
	get[ENA_GET_HINTS].id = ENA_FEAT_HW_HINTS;
	get[ENA_GET_LLQ].id = ENA_FEAT_LLQ;
	get[ENA_GET_MODER].id = ENA_FEAT_INTR_MODER;
	rc = ena_get_features(a, get, ENA_GET_N);
	if (rc)
		goto err;

	rc = get[ENA_GET_QUEUES].rc ?:
	     ena_queue_limits(a, qext, &get[ENA_GET_QUEUES].resp);
	if (rc)
		goto err;
	rc = get[ENA_GET_AENQ].rc ?: get[ENA_GET_OFFLOAD].rc;
	if (rc)
		goto err;
	a->offload_tx = le32_to_cpu(get[ENA_GET_OFFLOAD].resp.offload.tx);
	a->offload_rx =
		le32_to_cpu(get[ENA_GET_OFFLOAD].resp.offload.rx_supported);

	memset(&a->hints, 0, sizeof(a->hints));
	rc = get[ENA_GET_HINTS].rc;
	if (!rc)
		a->hints = get[ENA_GET_HINTS].resp.hw_hints;
	else if (rc != -EOPNOTSUPP)
		goto err;

	rc = get[ENA_GET_LLQ].rc;
	if (!rc)
		llq_ok = ena_llq_choose(a, &get[ENA_GET_LLQ].resp.llq);
	else if (rc != -EOPNOTSUPP)
		goto err;
	else
		memset(&a->llq, 0, sizeof(a->llq));

	a->intr_delay_res = 0;
	rc = get[ENA_GET_MODER].rc;
	if (!rc)
		a->intr_delay_res =
			le16_to_cpu(get[ENA_GET_MODER].resp.intr_moder.delay_resolution);
	else if (rc != -EOPNOTSUPP)
		goto err;

	/* which device statistics ethtool -S lists (not fatal) */
	ena_dev_stats_init(a);

	/* the AENQ groups and the LLQ layout, in one batch too */
	groups = ENA_AENQ_WANTED_GROUPS &
		 le32_to_cpu(get[ENA_GET_AENQ].resp.aenq.supported_groups);
	set[0].feature.u.aenq.enabled_groups = cpu_to_le32(groups);
	ena_set_feature_cmd(&set[0], ENA_FEAT_AENQ_CONFIG, 0, 0);
	nset = 1;
	if (llq_ok && ena_feature_supported(a, ENA_FEAT_LLQ)) {
		ena_llq_cmd(a, &set[1]);
		ena_set_feature_cmd(&set[1], ENA_FEAT_LLQ, 0, 0);
		nset = 2;
	}
	rc = ena_admin_exec_many(a, set, set_resp, set_rc, nset);
	if (rc == -ETIME || rc == -EIO || rc == -ENODEV)
		goto err;
	rc = set_rc[0];
	if (rc)
		goto err;
	a->aenq_groups = groups;
	if (llq_ok) {
		rc = nset > 1 ? set_rc[1] : -EOPNOTSUPP;
		if (rc)
			dev_warn(dev, "SET LLQ failed (%d), TX rings in host memory\n",
				 rc);
		a->llq.enabled = !rc;
	}

	ena_hints_apply(a, &a->hints, false);
	return 0;

err:
	dev_err(dev, "device bring-up failed: %d\n", rc);
	return rc;
}

/**
 * ena_device_fini() - quiesce the device before its memory goes away
 * @a: adapter
 *
 * Every path that frees the admin, AENQ, host-info or ring memory comes
 * through here first.  The device is reset even when it is believed dead
 * (a dead device may still be doing DMA), and bus mastering is cleared
 * afterwards, so nothing the device does can reach memory the kernel gets
 * back.  A failed reset is logged; bus mastering off is what counts.
 */
void ena_device_fini(struct ena_adapter *a)
{
	int rc;

	ena_reg_write(a, ENA_REG_INTR_MASK, ENA_INTR_MASK_MGMT);
	rc = ena_dev_reset(a, ENA_RESET_SHUTDOWN);
	if (rc)
		dev_warn(&a->pdev->dev,
			 "reset before teardown failed (%d); bus mastering off\n",
			 rc);
	pci_clear_master(a->pdev);
	clear_bit(ENA_F_ADMIN_READY, &a->flags);
}

int ena_set_mtu_dev(struct ena_adapter *a, u32 mtu)
{
	struct ena_aq_cmd cmd = {};

	cmd.feature.u.mtu.mtu = cpu_to_le32(mtu);
	return ena_set_feature(a, &cmd, ENA_FEAT_MTU, 0, 0);
}
