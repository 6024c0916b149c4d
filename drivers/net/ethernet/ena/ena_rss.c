// SPDX-License-Identifier: GPL-2.0
/*
 * Receive side scaling: hash function and key, hash input fields and the
 * indirection table, spread over the queues that are running.
 */
#include <linux/dma-mapping.h>
#include <linux/ethtool.h>

#include "ena.h"

#define ENA_HASH_INIT_VAL	0xffffffff

static const u16 ena_hash_default_fields[ENA_HASH_PROTOS] = {
	[ENA_HASH_TCP4] = ENA_HASH_FIELD_L3_SA | ENA_HASH_FIELD_L3_DA |
			  ENA_HASH_FIELD_L4_SP | ENA_HASH_FIELD_L4_DP,
	[ENA_HASH_UDP4] = ENA_HASH_FIELD_L3_SA | ENA_HASH_FIELD_L3_DA |
			  ENA_HASH_FIELD_L4_SP | ENA_HASH_FIELD_L4_DP,
	[ENA_HASH_TCP6] = ENA_HASH_FIELD_L3_SA | ENA_HASH_FIELD_L3_DA |
			  ENA_HASH_FIELD_L4_SP | ENA_HASH_FIELD_L4_DP,
	[ENA_HASH_UDP6] = ENA_HASH_FIELD_L3_SA | ENA_HASH_FIELD_L3_DA |
			  ENA_HASH_FIELD_L4_SP | ENA_HASH_FIELD_L4_DP,
	[ENA_HASH_IP4] = ENA_HASH_FIELD_L3_SA | ENA_HASH_FIELD_L3_DA,
	[ENA_HASH_IP6] = ENA_HASH_FIELD_L3_SA | ENA_HASH_FIELD_L3_DA,
	[ENA_HASH_IP4_FRAG] = ENA_HASH_FIELD_L3_SA | ENA_HASH_FIELD_L3_DA,
	[ENA_HASH_NOT_IP] = ENA_HASH_FIELD_L2_DA | ENA_HASH_FIELD_L2_SA,
};

void ena_rss_default_table(struct ena_adapter *a, u32 nq)
{
	u32 i;

	for (i = 0; i < ENA_RSS_TABLE_SIZE; i++)
		a->rss_ind[i] = ethtool_rxfh_indir_default(i, nq);
}

/**
 * ena_rss_spread() - the default table over @nq queues, unless user-set
 * @a: adapter
 * @nq: queues in use
 *
 * A table the user set (IFF_RXFH_CONFIGURED) survives channel changes, as
 * in the in-tree driver; the ethtool core refuses a channel count that
 * would leave it pointing at a queue that is gone.
 */
void ena_rss_spread(struct ena_adapter *a, u32 nq)
{
	if (!netif_is_rxfh_configured(a->netdev))
		ena_rss_default_table(a, nq);
}

/**
 * ena_rss_push_hash() - SET hash function (with key) and hash input
 * @a: adapter
 *
 * Probe sends these right after reading them, as the stock driver does;
 * after a device reset the next ena_rss_push() sends them again.
 *
 * Return: 0 or the admin error; features the device lacks are skipped.
 */
static int ena_rss_push_hash(struct ena_adapter *a)
{
	struct ena_acq_resp resp[2];
	struct ena_aq_cmd cmd[2] = {};
	unsigned int n = 0, i;
	int rcs[2], rc;

	/* function and key, then the input: one batch */
	if (a->hash_func &&
	    ena_feature_supported(a, ENA_FEAT_RSS_HASH_FUNC)) {
		cmd[n].feature.u.hash_func.selected =
			cpu_to_le32(BIT(a->hash_func));
		cmd[n].feature.u.hash_func.init_val =
			cpu_to_le32(ENA_HASH_INIT_VAL);
		ena_set_feature_cmd(&cmd[n++], ENA_FEAT_RSS_HASH_FUNC,
				    a->hash_key_dma, sizeof(*a->hash_key));
	}
	if (ena_feature_supported(a, ENA_FEAT_RSS_HASH_INPUT)) {
		cmd[n].feature.u.hash_input.enabled_sort =
			cpu_to_le16(ENA_HASH_INPUT_L3_SORT |
				    ENA_HASH_INPUT_L4_SORT);
		ena_set_feature_cmd(&cmd[n++], ENA_FEAT_RSS_HASH_INPUT,
				    a->hash_input_dma, sizeof(*a->hash_input));
	}
	if (n) {
		rc = ena_admin_exec_many(a, cmd, resp, rcs, n);
		if (rc == -ETIME || rc == -EIO || rc == -ENODEV)
			return rc;
		for (i = 0; i < n; i++)
			if (rcs[i] && rcs[i] != -EOPNOTSUPP)
				return rcs[i];
	}

	set_bit(ENA_F_RSS_PUSHED, &a->flags);
	return 0;
}

/**
 * ena_rss_probe() - allocate RSS control buffers, read the device's RSS
 * capabilities (GET indirection table, hash function, hash input) and set
 * hash function and input
 * @a: adapter
 *
 * Return: 0 or -ENOMEM; an RSS feature the device lacks is not an error.
 */
int ena_rss_probe(struct ena_adapter *a)
{
	struct ena_feat_get get[3] = {};
	struct device *dev = &a->pdev->dev;
	const struct ena_acq_resp *r;
	u32 i, supported;
	int rc;

	a->rss_dev_tbl = dma_alloc_coherent(dev, ENA_RSS_TABLE_SIZE *
					    sizeof(struct ena_ind_entry),
					    &a->rss_dev_tbl_dma, GFP_KERNEL);
	a->hash_key = dma_alloc_coherent(dev, sizeof(*a->hash_key),
					 &a->hash_key_dma, GFP_KERNEL);
	a->hash_input = dma_alloc_coherent(dev, sizeof(*a->hash_input),
					   &a->hash_input_dma, GFP_KERNEL);
	if (!a->rss_dev_tbl || !a->hash_key || !a->hash_input) {
		ena_rss_free(a);
		return -ENOMEM;
	}

	/* the three reads in one admin batch */
	get[0].id = ENA_FEAT_RSS_IND_TABLE;
	get[1] = (struct ena_feat_get){ .id = ENA_FEAT_RSS_HASH_FUNC,
		.buf = a->hash_key_dma, .buf_len = sizeof(*a->hash_key) };
	get[2] = (struct ena_feat_get){ .id = ENA_FEAT_RSS_HASH_INPUT,
		.buf = a->hash_input_dma, .buf_len = sizeof(*a->hash_input) };
	if (ena_get_features(a, get, ARRAY_SIZE(get)))
		for (i = 0; i < ARRAY_SIZE(get); i++)
			get[i].rc = -EIO;

	r = &get[0].resp;
	if (!get[0].rc &&
	    (le16_to_cpu(r->ind_table.max_size) < ENA_RSS_TABLE_LOG ||
	     le16_to_cpu(r->ind_table.min_size) > ENA_RSS_TABLE_LOG))
		dev_warn(dev, "RSS table log %u outside device range %u..%u\n",
			 ENA_RSS_TABLE_LOG, le16_to_cpu(r->ind_table.min_size),
			 le16_to_cpu(r->ind_table.max_size));

	a->hash_func = 0;
	a->hash_funcs_supported = 0;
	if (!get[1].rc) {
		supported = le32_to_cpu(get[1].resp.hash_func.supported) &
			    ENA_HASH_FUNC_MASK;
		a->hash_funcs_supported = supported;
		if (supported & BIT(ENA_HASH_TOEPLITZ))
			a->hash_func = ENA_HASH_TOEPLITZ;
		else if (supported & BIT(ENA_HASH_CRC32))
			a->hash_func = ENA_HASH_CRC32;
	}
	netdev_rss_key_fill(a->hash_key->key, sizeof(a->hash_key->key));
	a->hash_key->key_parts = cpu_to_le32(ENA_HASH_KEY_WORDS);

	rc = get[2].rc;
	for (i = 0; i < ENA_HASH_PROTOS; i++) {
		u16 want = ena_hash_default_fields[i];

		if (!rc)
			want &= le16_to_cpu(a->hash_input->supported[i].fields);
		a->hash_input->selected[i].fields = cpu_to_le16(want);
	}

	ena_rss_default_table(a, a->num_queues);
	rc = ena_rss_push_hash(a);
	if (rc)
		dev_warn(dev, "RSS hash setup failed: %d\n", rc);
	return 0;
}

/**
 * ena_rss_set_hash() - change the hash function, the key, or both
 * @a: adapter; RTNL held
 * @func: ENA hash function (one the device offers), or 0 to keep it
 * @key: ENA_HASH_KEY_WORDS words of key, or NULL to keep it
 *
 * Sent to the device at once (with the hash input, as every push does);
 * kept for each later device bring-up.  On failure nothing changes.
 *
 * Return: 0, -EOPNOTSUPP for a function the device does not offer (or a
 * key for a device that offers none), or the admin error.
 */
int ena_rss_set_hash(struct ena_adapter *a, u8 func, const u8 *key)
{
	__le32 old_key[ENA_HASH_KEY_WORDS];
	u8 old_func = a->hash_func;
	int rc;

	if ((func && !(a->hash_funcs_supported & BIT(func))) ||
	    (key && !a->hash_func))
		return -EOPNOTSUPP;
	memcpy(old_key, a->hash_key->key, sizeof(old_key));
	if (key)
		memcpy(a->hash_key->key, key, sizeof(old_key));
	if (func)
		a->hash_func = func;
	rc = ena_rss_push_hash(a);
	if (rc) {
		memcpy(a->hash_key->key, old_key, sizeof(old_key));
		a->hash_func = old_func;
		/* the device may hold either: send the old ones next time */
		clear_bit(ENA_F_RSS_PUSHED, &a->flags);
	}
	return rc;
}

/* ethtool's flow types as the device's hash protocols */
static int ena_flow_to_proto(u32 flow_type)
{
	switch (flow_type) {
	case TCP_V4_FLOW:
		return ENA_HASH_TCP4;
	case UDP_V4_FLOW:
		return ENA_HASH_UDP4;
	case TCP_V6_FLOW:
		return ENA_HASH_TCP6;
	case UDP_V6_FLOW:
		return ENA_HASH_UDP6;
	case IPV4_FLOW:
		return ENA_HASH_IP4;
	case IPV6_FLOW:
		return ENA_HASH_IP6;
	case ETHER_FLOW:
		return ENA_HASH_NOT_IP;
	}
	return -EINVAL;
}

/* the hash fields ethtool names (the in-tree mapping: no L2 source) */
static const struct {
	u16 ena;
	u64 rxh;
} ena_hash_field_map[] = {
	{ ENA_HASH_FIELD_L2_DA, RXH_L2DA },
	{ ENA_HASH_FIELD_L3_SA, RXH_IP_SRC },
	{ ENA_HASH_FIELD_L3_DA, RXH_IP_DST },
	{ ENA_HASH_FIELD_L4_SP, RXH_L4_B_0_1 },
	{ ENA_HASH_FIELD_L4_DP, RXH_L4_B_2_3 },
};

/**
 * ena_rss_get_flow_hash() - the fields the device hashes for a flow type
 * @a: adapter
 * @flow_type: ethtool flow type (TCP_V4_FLOW, ...)
 * @data: the fields as RXH_* bits
 *
 * Return: 0, or -EINVAL for a flow type the device does not hash.
 */
int ena_rss_get_flow_hash(struct ena_adapter *a, u32 flow_type, u64 *data)
{
	int proto = ena_flow_to_proto(flow_type);
	unsigned int i;
	u16 sel;

	if (proto < 0)
		return proto;
	sel = le16_to_cpu(a->hash_input->selected[proto].fields);
	*data = 0;
	for (i = 0; i < ARRAY_SIZE(ena_hash_field_map); i++)
		if (sel & ena_hash_field_map[i].ena)
			*data |= ena_hash_field_map[i].rxh;
	return 0;
}

/**
 * ena_rss_set_flow_hash() - choose the fields the device hashes for a flow
 * type (ethtool -N rx-flow-hash)
 * @a: adapter; RTNL held
 * @flow_type: ethtool flow type
 * @data: RXH_* bits, each one the device offers for that type
 *
 * Sent to the device at once and kept for later bring-ups; on failure
 * nothing changes.  ethtool's set_rxnfc has no extack: a refusal is
 * explained in the log.
 *
 * Return: 0, -EINVAL for a flow type or field the device does not offer,
 * -EOPNOTSUPP without hash input control, or the admin error.
 */
int ena_rss_set_flow_hash(struct ena_adapter *a, u32 flow_type, u64 data)
{
	int proto = ena_flow_to_proto(flow_type), rc;
	u16 fields = 0, old, ok;
	u64 left = data;
	unsigned int i;

	if (proto < 0) {
		netdev_info(a->netdev, "rx-flow-hash: flow type %u not hashed by the device\n",
			    flow_type);
		return proto;
	}
	ok = le16_to_cpu(a->hash_input->supported[proto].fields);
	if (!ok)
		return -EOPNOTSUPP;
	for (i = 0; i < ARRAY_SIZE(ena_hash_field_map); i++)
		if (data & ena_hash_field_map[i].rxh) {
			fields |= ena_hash_field_map[i].ena;
			left &= ~ena_hash_field_map[i].rxh;
		}
	if (left || (fields & ~ok)) {
		netdev_info(a->netdev, "rx-flow-hash: fields 0x%llx refused: the device hashes only IP addresses, L4 ports and (not IP) the destination MAC, as it offers them for this flow type\n",
			    data);
		return -EINVAL;
	}
	old = le16_to_cpu(a->hash_input->selected[proto].fields);
	a->hash_input->selected[proto].fields = cpu_to_le16(fields);
	rc = ena_rss_push_hash(a);
	if (rc) {
		a->hash_input->selected[proto].fields = cpu_to_le16(old);
		/* the device may hold either: send the old ones next time */
		clear_bit(ENA_F_RSS_PUSHED, &a->flags);
	}
	return rc;
}

void ena_rss_free(struct ena_adapter *a)
{
	struct device *dev = &a->pdev->dev;

	if (a->hash_input)
		dma_free_coherent(dev, sizeof(*a->hash_input), a->hash_input,
				  a->hash_input_dma);
	if (a->hash_key)
		dma_free_coherent(dev, sizeof(*a->hash_key), a->hash_key,
				  a->hash_key_dma);
	if (a->rss_dev_tbl)
		dma_free_coherent(dev, ENA_RSS_TABLE_SIZE *
				  sizeof(struct ena_ind_entry),
				  a->rss_dev_tbl, a->rss_dev_tbl_dma);
	a->hash_input = NULL;
	a->hash_key = NULL;
	a->rss_dev_tbl = NULL;
}

/**
 * ena_rss_push_with() - push the RSS indirection table (and, once after a
 * device bring-up, hash function and input) to the device, with another
 * command in the same admin batch
 * @a: adapter; every queue the table names is started
 * @extra: a SET_FEATURE made by ena_set_feature_cmd() for a feature the
 *	   device lists, sent with the table (an open's MTU), or NULL
 * @extra_rc: @extra's own result (0 or the errno of its status); may be
 *	      NULL when @extra is
 *
 * Return: 0 or the admin error of the table; features the device lacks are
 * skipped.  A timeout or a malformed completion is returned whichever
 * command it hit.
 */
int ena_rss_push_with(struct ena_adapter *a, struct ena_aq_cmd *extra,
		      int *extra_rc)
{
	int rcs[2], table_rc = -EOPNOTSUPP, rc;
	struct ena_aq_cmd cmd[2] = {};
	struct ena_acq_resp resp[2];
	unsigned int n = 0, x = 0;
	bool table = false;
	u32 i;

	for (i = 0; i < ENA_RSS_TABLE_SIZE; i++) {
		struct ena_qp *qp = &a->qps[a->rss_ind[i]];

		/* possible only after a failed rebuild, which asked for reset */
		if (!ena_rt_qp_up(qp))
			return -EINVAL;
		a->rss_dev_tbl[i].cq_idx = cpu_to_le16(qp->rx.cq_idx);
		a->rss_dev_tbl[i].rsvd = 0;
	}
	if (ena_feature_supported(a, ENA_FEAT_RSS_IND_TABLE)) {
		cmd[0].feature.u.ind_table.size = cpu_to_le16(ENA_RSS_TABLE_LOG);
		cmd[0].feature.u.ind_table.inline_index =
			cpu_to_le32(ENA_IND_TABLE_NO_INLINE);
		ena_set_feature_cmd(&cmd[0], ENA_FEAT_RSS_IND_TABLE,
				    a->rss_dev_tbl_dma,
				    ENA_RSS_TABLE_SIZE * sizeof(struct ena_ind_entry));
		table = true;
		n = 1;
	}
	if (extra) {
		x = n;
		cmd[n++] = *extra;
	}
	if (n) {
		rc = ena_admin_exec_many(a, cmd, resp, rcs, n);
		if (rc == -ETIME || rc == -EIO || rc == -ENODEV)
			return rc;
		if (table)
			table_rc = rcs[0];
		if (extra)
			*extra_rc = rcs[x];
	}
	if (table_rc && table_rc != -EOPNOTSUPP)
		return table_rc;

	if (test_bit(ENA_F_RSS_PUSHED, &a->flags))
		return 0;
	return ena_rss_push_hash(a);
}

/**
 * ena_rss_push() - push the RSS indirection table (and, once after a device
 * bring-up, hash function and input) to the device
 * @a: adapter; every queue the table names is started
 *
 * Return: 0 or the admin error; features the device lacks are skipped.
 */
int ena_rss_push(struct ena_adapter *a)
{
	return ena_rss_push_with(a, NULL, NULL);
}
