// SPDX-License-Identifier: GPL-2.0
/*
 * ethtool: driver info, link, channels, rings, statistics, RSS, the
 * register dump (-d), message level and timestamping (software: the stack
 * stamps received packets, xmit stamps sent ones).  Bad values are refused
 * with -EINVAL (and an extack message where the callback has one) and leave
 * the interface as it was.
 */
#include <linux/bitfield.h>
#include <linux/ethtool.h>
#include <linux/linkmode.h>
#include <linux/log2.h>
#include <linux/rtnetlink.h>

#include "ena.h"
#include "ena_compat.h"

#define ENA_MAX_RING_SIZE	16384

static void ena_get_drvinfo(struct net_device *nd,
			    struct ethtool_drvinfo *info)
{
	struct ena_adapter *a = netdev_priv(nd);

	strscpy(info->driver, ENA_DRV_NAME, sizeof(info->driver));
	snprintf(info->version, sizeof(info->version), "%u.%u.%u",
		 ENA_DRV_VERSION_MAJOR, ENA_DRV_VERSION_MINOR,
		 ENA_DRV_VERSION_SUBMINOR);
	strscpy(info->bus_info, pci_name(a->pdev), sizeof(info->bus_info));
}

static int ena_get_link_ksettings(struct net_device *nd,
				  struct ethtool_link_ksettings *ks)
{
	struct ena_adapter *a = netdev_priv(nd);
	struct ena_acq_resp r;

	ethtool_link_ksettings_zero_link_mode(ks, supported);
	ethtool_link_ksettings_zero_link_mode(ks, advertising);
	ks->base.speed = SPEED_UNKNOWN;
	ks->base.duplex = DUPLEX_UNKNOWN;
	ks->base.autoneg = AUTONEG_DISABLE;
	ks->base.port = PORT_OTHER;
	if (!ena_get_feature(a, ENA_FEAT_LINK_CONFIG, 0, 0, 0, &r)) {
		ks->base.speed = le32_to_cpu(r.link.speed);
		ks->base.duplex = DUPLEX_FULL;
		if (le32_to_cpu(r.link.flags) & ENA_LINK_AUTONEG) {
			linkmode_set_bit(ETHTOOL_LINK_MODE_Autoneg_BIT,
					 ks->link_modes.supported);
			linkmode_set_bit(ETHTOOL_LINK_MODE_Autoneg_BIT,
					 ks->link_modes.advertising);
			ks->base.autoneg = AUTONEG_ENABLE;
		}
	}
	return 0;
}

static int ena_get_regs_len(struct net_device *nd)
{
	return ENA_REGS_DUMP_WORDS * sizeof(u32);
}

/* ethtool -d: the layout is ena_regs.h's (ENA_REGS_DUMP_*) */
static void ena_get_regs(struct net_device *nd, struct ethtool_regs *regs,
			 void *p)
{
	struct ena_adapter *a = netdev_priv(nd);

	regs->version = FIELD_PREP(ENA_REGS_DUMP_VER_LAYOUT,
				   ENA_REGS_DUMP_LAYOUT) |
			FIELD_PREP(ENA_REGS_DUMP_VER_DEVICE,
				   READ_ONCE(a->dev_version));
	memset(p, 0, ena_get_regs_len(nd));
	ena_regs_dump(a, p);
}

static u32 ena_get_msglevel(struct net_device *nd)
{
	struct ena_adapter *a = netdev_priv(nd);

	return a->msg_enable;
}

static void ena_set_msglevel(struct net_device *nd, u32 level)
{
	struct ena_adapter *a = netdev_priv(nd);

	a->msg_enable = level;
}

static void ena_get_channels(struct net_device *nd,
			     struct ethtool_channels *ch)
{
	struct ena_adapter *a = netdev_priv(nd);

	ch->max_combined = a->avail_queues;
	ch->combined_count = a->num_queues;
}

static int ena_set_channels(struct net_device *nd, struct ethtool_channels *ch)
{
	struct ena_adapter *a = netdev_priv(nd);
	int rc;

	if (ch->rx_count || ch->tx_count || ch->other_count ||
	    !ch->combined_count || ch->combined_count > a->avail_queues) {
		netdev_err(nd, "channels: combined 1..%u only\n",
			   a->avail_queues);
		return -EINVAL;
	}
	if (ena_xdp_on(a) && !ena_xdp_queues_ok(a, ch->combined_count)) {
		netdev_err(nd, "channels: %u is too many with XDP: each needs an XDP TX queue of the device\n",
			   ch->combined_count);
		return -EINVAL;
	}
	rc = ena_set_channels_live(a, ch->combined_count);
	if (!rc)
		ena_xdp_features(a);
	return rc;
}

u32 ena_max_rx_ring(const struct ena_adapter *a)
{
	return rounddown_pow_of_two(min_t(u32, a->dev_max_rx_depth,
					  ENA_MAX_RING_SIZE));
}

/* the TX ring maximum with LLQ entries of @entry_size bytes (if LLQ) */
u32 ena_max_tx_ring_for(const struct ena_adapter *a, u32 entry_size)
{
	u32 m = min_t(u32, a->dev_max_tx_depth, ENA_MAX_RING_SIZE);

	if (a->llq.enabled)
		m = min(m, ena_llq_depth(&a->llq, entry_size));
	return rounddown_pow_of_two(m);
}

u32 ena_max_tx_ring(const struct ena_adapter *a)
{
	return ena_max_tx_ring_for(a, a->llq.entry_size);
}

static void ena_get_ringparam(struct net_device *nd,
			      struct ethtool_ringparam *ring,
			      struct kernel_ethtool_ringparam *kring,
			      struct netlink_ext_ack *extack)
{
	struct ena_adapter *a = netdev_priv(nd);

	ring->rx_max_pending = ena_max_rx_ring(a);
	ring->tx_max_pending = ena_max_tx_ring(a);
	ring->rx_pending = a->rx_ring_size;
	ring->tx_pending = a->tx_ring_size;
#ifdef ENA_HAVE_TX_PUSH_BUF_LEN
	if (a->llq.enabled) {
		/* LLQ pushes descriptors and headers through BAR 2 (in-tree too) */
		kring->tx_push = 1;
		kring->tx_push_buf_len = a->llq.hdr_room;
		kring->tx_push_buf_max_len = a->llq.large_ok ?
			ENA_LLQ_LARGE_HDR_ROOM : ENA_LLQ_HDR_ROOM;
	}
#endif
}

#ifdef ENA_HAVE_TX_PUSH_BUF_LEN
/*
 * tx-push-buf-len: 96 (128-byte LLQ entries) or 224 (256-byte ones, when
 * the device offers them); a change re-initialises the device.  Returns
 * 1 when the length changes, 0 when not, or a negative errno.
 */
static int ena_push_len_check(struct ena_adapter *a, u32 len,
			      struct netlink_ext_ack *extack)
{
	if (!a->llq.enabled) {
		if (!len)
			return 0;
		NL_SET_ERR_MSG_MOD(extack, "no TX push buffer: LLQ is not in use");
		return -EOPNOTSUPP;
	}
	if (!len || len == a->llq.hdr_room)
		return 0;
	if (len != ENA_LLQ_HDR_ROOM &&
	    !(len == ENA_LLQ_LARGE_HDR_ROOM && a->llq.large_ok)) {
		if (a->llq.large_ok)
			NL_SET_ERR_MSG_MOD(extack, "tx-push-buf-len must be 96 or 224");
		else
			NL_SET_ERR_MSG_MOD(extack,
					   "tx-push-buf-len must be 96: the device has no large LLQ entries");
		return -EINVAL;
	}
	return 1;
}
#endif

static int ena_set_ringparam(struct net_device *nd,
			     struct ethtool_ringparam *ring,
			     struct kernel_ethtool_ringparam *kring,
			     struct netlink_ext_ack *extack)
{
	struct ena_adapter *a = netdev_priv(nd);
	u32 tx = ring->tx_pending, rx = ring->rx_pending, max_tx;
	int push = 0;

#ifdef ENA_HAVE_TX_PUSH_BUF_LEN
	push = ena_push_len_check(a, kring->tx_push_buf_len, extack);
	if (push < 0)
		return push;
#endif
	if (ring->rx_mini_pending || ring->rx_jumbo_pending) {
		NL_SET_ERR_MSG_MOD(extack, "mini and jumbo rings not supported");
		return -EINVAL;
	}
	if (tx < ENA_MIN_RING_SIZE || rx < ENA_MIN_RING_SIZE) {
		NL_SET_ERR_MSG_MOD(extack, "ring size below 256");
		return -EINVAL;
	}
	if (!is_power_of_2(tx) || !is_power_of_2(rx)) {
		NL_SET_ERR_MSG_MOD(extack, "ring size must be a power of 2");
		return -EINVAL;
	}
	/*
	 * With the other entry size the TX maximum is that entry size's; a TX
	 * size above it is lowered to it, as the in-tree driver does (the
	 * request carries the current size when the user named none).
	 */
	max_tx = ena_max_tx_ring(a);
	if (push) {
		u32 entry = a->llq.entry_size == ENA_LLQ_LARGE_ENTRY ?
			    ENA_LLQ_ENTRY : ENA_LLQ_LARGE_ENTRY;

		max_tx = ena_max_tx_ring_for(a, entry);
		if (tx > max_tx) {
			netdev_info(nd, "TX ring %u lowered to %u, the maximum with %u-byte LLQ entries\n",
				    tx, max_tx, entry);
			tx = max_tx;
		}
	}
	if (tx > max_tx || rx > ena_max_rx_ring(a)) {
		NL_SET_ERR_MSG_MOD(extack, "ring size above device maximum");
		return -EINVAL;
	}
	if (push)
		return ena_set_llq_large(a, a->llq.entry_size != ENA_LLQ_LARGE_ENTRY,
					 tx, rx);
	if (tx == a->tx_ring_size && rx == a->rx_ring_size)
		return 0;
	return ena_set_rings_live(a, tx, rx, extack);
}

static int ena_get_sset_count(struct net_device *nd, int sset)
{
	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return ena_stats_count(netdev_priv(nd));
}

static void ena_emit_string(void *ctx, const char *name, u64 val)
{
	u8 **p = ctx;

	strscpy(*p, name, ETH_GSTRING_LEN);
	*p += ETH_GSTRING_LEN;
}

static void ena_get_strings(struct net_device *nd, u32 sset, u8 *data)
{
	if (sset == ETH_SS_STATS)
		ena_stats_walk(netdev_priv(nd), ena_emit_string, &data);
}

static void ena_emit_value(void *ctx, const char *name, u64 val)
{
	u64 **p = ctx;

	*(*p)++ = val;
}

static void ena_get_ethtool_stats(struct net_device *nd,
				  struct ethtool_stats *stats, u64 *data)
{
	struct ena_adapter *a = netdev_priv(nd);

	/* the names, and so their count, do not change: RTNL is held */
	ena_dev_stats_refresh(a);
	ena_stats_walk(a, ena_emit_value, &data);
}

static int ena_get_rxnfc(struct net_device *nd, struct ethtool_rxnfc *info,
			 u32 *rules)
{
	struct ena_adapter *a = netdev_priv(nd);

	switch (info->cmd) {
	case ETHTOOL_GRXRINGS:
		info->data = a->num_queues;
		return 0;
	case ETHTOOL_GRXFH:
		return ena_rss_get_flow_hash(a, info->flow_type, &info->data);
	}
	return -EOPNOTSUPP;
}

static int ena_set_rxnfc(struct net_device *nd, struct ethtool_rxnfc *info)
{
	if (info->cmd == ETHTOOL_SRXFH)
		return ena_rss_set_flow_hash(netdev_priv(nd), info->flow_type,
					     info->data);
	return -EOPNOTSUPP;
}

#ifdef ENA_HAVE_RX_RING_COUNT
/* the RX ring count the core asks for RSS (get_rxnfc's GRXRINGS before) */
static u32 ena_get_rx_ring_count(struct net_device *nd)
{
	struct ena_adapter *a = netdev_priv(nd);

	return a->num_queues;
}
#endif

#ifdef ENA_HAVE_RXFH_FIELDS
/*
 * ethtool -n/-N rx-flow-hash: from 6.17 on they come here, no longer
 * through get_rxnfc/set_rxnfc.
 */
static int ena_get_rxfh_fields(struct net_device *nd,
			       struct ethtool_rxfh_fields *f)
{
	u64 data = 0;
	int rc;

	if (f->rss_context)
		return -EOPNOTSUPP;
	rc = ena_rss_get_flow_hash(netdev_priv(nd), f->flow_type, &data);
	f->data = data;
	return rc;
}

static int ena_set_rxfh_fields(struct net_device *nd,
			       const struct ethtool_rxfh_fields *f,
			       struct netlink_ext_ack *extack)
{
	if (f->rss_context)
		return -EOPNOTSUPP;
	return ena_rss_set_flow_hash(netdev_priv(nd), f->flow_type, f->data);
}
#endif

static u32 ena_get_rxfh_indir_size(struct net_device *nd)
{
	return ENA_RSS_TABLE_SIZE;
}

static u32 ena_get_rxfh_key_size(struct net_device *nd)
{
	return ENA_HASH_KEY_WORDS * sizeof(u32);
}

static u8 ena_hfunc_to_eth(u8 f)
{
	if (f == ENA_HASH_TOEPLITZ)
		return ETH_RSS_HASH_TOP;
	if (f == ENA_HASH_CRC32)
		return ETH_RSS_HASH_CRC32;
	return ETH_RSS_HASH_UNKNOWN;
}

/* Return: the ENA hash function for an ethtool one, or 0 for none */
static u8 ena_hfunc_from_eth(u8 hfunc)
{
	if (hfunc == ETH_RSS_HASH_TOP)
		return ENA_HASH_TOEPLITZ;
	if (hfunc == ETH_RSS_HASH_CRC32)
		return ENA_HASH_CRC32;
	return 0;
}

static void ena_rxfh_read(struct ena_adapter *a, u32 *indir, u8 *key,
			  u8 *hfunc)
{
	u32 i;

	if (indir)
		for (i = 0; i < ENA_RSS_TABLE_SIZE; i++)
			indir[i] = a->rss_ind[i];
	if (key)
		memcpy(key, a->hash_key->key, sizeof(a->hash_key->key));
	if (hfunc)
		*hfunc = ena_hfunc_to_eth(a->hash_func);
}

/*
 * Hash function (one the device offers) and key go to the device at once;
 * the indirection table applies at once when up, else at the next open,
 * and its entries must name configured queues.  Everything is checked
 * before anything changes.
 */
static int ena_rxfh_write(struct ena_adapter *a, const u32 *indir,
			  const u8 *key, u8 hfunc,
			  struct netlink_ext_ack *extack)
{
	u32 old[ENA_RSS_TABLE_SIZE], i;
	u8 func = 0;
	int rc = 0;

	if (hfunc != ETH_RSS_HASH_NO_CHANGE) {
		func = ena_hfunc_from_eth(hfunc);
		if (!func || !(a->hash_funcs_supported & BIT(func))) {
			NL_SET_ERR_MSG_MOD(extack,
					   "hash function not offered by the device");
			return -EOPNOTSUPP;
		}
	}
	if (indir)
		for (i = 0; i < ENA_RSS_TABLE_SIZE; i++)
			if (indir[i] >= a->num_queues) {
				NL_SET_ERR_MSG_MOD(extack,
						   "table names a queue not configured");
				return -EINVAL;
			}
	if (func || key) {
		rc = ena_rss_set_hash(a, func, key);
		if (rc) {
			NL_SET_ERR_MSG_MOD(extack,
					   "the device refused the hash function or key");
			return rc;
		}
	}
	if (!indir)
		return 0;
	memcpy(old, a->rss_ind, sizeof(old));
	memcpy(a->rss_ind, indir, sizeof(old));
	if (test_bit(ENA_F_QUEUES_UP, &a->flags))
		rc = ena_rss_push(a);
	if (rc)
		memcpy(a->rss_ind, old, sizeof(old));
	return rc;
}

#ifdef ENA_HAVE_RXFH_PARAM
static int ena_get_rxfh(struct net_device *nd, struct ethtool_rxfh_param *p)
{
	ena_rxfh_read(netdev_priv(nd), p->indir, p->key, &p->hfunc);
	return 0;
}

static int ena_set_rxfh(struct net_device *nd, struct ethtool_rxfh_param *p,
			struct netlink_ext_ack *extack)
{
	return ena_rxfh_write(netdev_priv(nd), p->indir, p->key, p->hfunc,
			      extack);
}
#else
static int ena_get_rxfh(struct net_device *nd, u32 *indir, u8 *key, u8 *hfunc)
{
	ena_rxfh_read(netdev_priv(nd), indir, key, hfunc);
	return 0;
}

static int ena_set_rxfh(struct net_device *nd, const u32 *indir,
			const u8 *key, const u8 hfunc)
{
	return ena_rxfh_write(netdev_priv(nd), indir, key, hfunc, NULL);
}
#endif

static int ena_get_tunable(struct net_device *nd,
			   const struct ethtool_tunable *t, void *data)
{
	struct ena_adapter *a = netdev_priv(nd);

	if (t->id != ETHTOOL_RX_COPYBREAK)
		return -EOPNOTSUPP;
	*(u32 *)data = a->rx_copybreak;
	return 0;
}

/*
 * rx-copybreak: frames up to this size are copied out of their buffer.  At
 * most the MTU and a page, as in the in-tree driver; the tunable call has
 * no extack, so a refusal is explained in the log.
 */
static int ena_set_tunable(struct net_device *nd,
			   const struct ethtool_tunable *t, const void *data)
{
	struct ena_adapter *a = netdev_priv(nd);
	u32 v = *(const u32 *)data, max = min_t(u32, nd->mtu, PAGE_SIZE);

	if (t->id != ETHTOOL_RX_COPYBREAK)
		return -EOPNOTSUPP;
	if (v > max) {
		netdev_info(nd, "rx-copybreak %u refused: above %u (the MTU and the page size)\n",
			    v, max);
		return -EINVAL;
	}
	WRITE_ONCE(a->rx_copybreak, v);
	return 0;
}

static int ena_get_coalesce(struct net_device *nd, struct ethtool_coalesce *c,
			    struct kernel_ethtool_coalesce *kc,
			    struct netlink_ext_ack *extack)
{
	struct ena_adapter *a = netdev_priv(nd);

	if (!a->intr_delay_res)
		return -EOPNOTSUPP;
	c->rx_coalesce_usecs = a->rx_usecs;
	c->tx_coalesce_usecs = a->tx_usecs;
	c->use_adaptive_rx_coalesce = a->adaptive_rx;
	return 0;
}

/*
 * ethtool -C: rx-usecs, tx-usecs and adaptive-rx, in the device's delay
 * units (a value is rounded down to one).  The running queues take them at
 * their next unmask; rx-usecs applies while adaptive-rx is off.
 */
static int ena_set_coalesce(struct net_device *nd, struct ethtool_coalesce *c,
			    struct kernel_ethtool_coalesce *kc,
			    struct netlink_ext_ack *extack)
{
	struct ena_adapter *a = netdev_priv(nd);
	u32 res = a->intr_delay_res, max = ENA_INTR_DELAY_MAX * res;
	unsigned int q;

	if (!res) {
		NL_SET_ERR_MSG_MOD(extack, "the device has no interrupt moderation");
		return -EOPNOTSUPP;
	}
	if (c->rx_coalesce_usecs > max || c->tx_coalesce_usecs > max) {
		/* no formatted extack on 6.1: the limit goes to the log */
		NL_SET_ERR_MSG_MOD(extack,
				   "rx-usecs or tx-usecs above the device's delay range");
		netdev_info(nd, "rx-usecs and tx-usecs are at most %u\n", max);
		return -EINVAL;
	}
	WRITE_ONCE(a->tx_usecs, c->tx_coalesce_usecs - c->tx_coalesce_usecs % res);
	a->rx_usecs = c->rx_coalesce_usecs - c->rx_coalesce_usecs % res;
	WRITE_ONCE(a->adaptive_rx, c->use_adaptive_rx_coalesce);
	for (q = 0; q < a->max_queues; q++)
		if (test_bit(ENA_QP_STARTED, &a->qps[q].state))
			ena_rx_usecs_reset(&a->qps[q]);
	return 0;
}

#ifndef ENA_HAVE_KERNEL_RINGPARAM
/* the ring ops before 5.17: no kernel_ethtool_ringparam, no extack */
static void ena_get_ringparam_old(struct net_device *nd,
				  struct ethtool_ringparam *ring)
{
	ena_get_ringparam(nd, ring, NULL, NULL);
}

static int ena_set_ringparam_old(struct net_device *nd,
				 struct ethtool_ringparam *ring)
{
	return ena_set_ringparam(nd, ring, NULL, NULL);
}

#define ena_get_ringparam	ena_get_ringparam_old
#define ena_set_ringparam	ena_set_ringparam_old
#endif

#ifndef ENA_HAVE_KERNEL_COALESCE
/* the coalesce ops before 5.15: no kernel_ethtool_coalesce, no extack */
static int ena_get_coalesce_old(struct net_device *nd,
				struct ethtool_coalesce *c)
{
	return ena_get_coalesce(nd, c, NULL, NULL);
}

static int ena_set_coalesce_old(struct net_device *nd,
				struct ethtool_coalesce *c)
{
	return ena_set_coalesce(nd, c, NULL, NULL);
}

#define ena_get_coalesce	ena_get_coalesce_old
#define ena_set_coalesce	ena_set_coalesce_old
#endif

/*
 * Every ethtool request (under RTNL) sees an open's queue start finished:
 * queues running, or down, or a reset pending.
 */
static int ena_ethtool_begin(struct net_device *nd)
{
	ena_up_wait(netdev_priv(nd));
	return 0;
}

static const struct ethtool_ops ena_ethtool_ops = {
	.begin			= ena_ethtool_begin,
	.supported_coalesce_params = ETHTOOL_COALESCE_USECS |
				     ETHTOOL_COALESCE_USE_ADAPTIVE_RX,
#ifdef ENA_HAVE_TX_PUSH_BUF_LEN
	.supported_ring_params	= ETHTOOL_RING_USE_TX_PUSH_BUF_LEN,
#endif
	.get_drvinfo		= ena_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_link_ksettings	= ena_get_link_ksettings,
	.get_regs_len		= ena_get_regs_len,
	.get_regs		= ena_get_regs,
	.get_msglevel		= ena_get_msglevel,
	.set_msglevel		= ena_set_msglevel,
	.get_ts_info		= ethtool_op_get_ts_info,
	.get_channels		= ena_get_channels,
	.set_channels		= ena_set_channels,
	.get_ringparam		= ena_get_ringparam,
	.set_ringparam		= ena_set_ringparam,
	.get_sset_count		= ena_get_sset_count,
	.get_strings		= ena_get_strings,
	.get_ethtool_stats	= ena_get_ethtool_stats,
	.get_rxnfc		= ena_get_rxnfc,
	.set_rxnfc		= ena_set_rxnfc,
#ifdef ENA_HAVE_RX_RING_COUNT
	.get_rx_ring_count	= ena_get_rx_ring_count,
#endif
#ifdef ENA_HAVE_RXFH_FIELDS
	.get_rxfh_fields	= ena_get_rxfh_fields,
	.set_rxfh_fields	= ena_set_rxfh_fields,
#endif
	.get_rxfh_indir_size	= ena_get_rxfh_indir_size,
	.get_rxfh_key_size	= ena_get_rxfh_key_size,
	.get_rxfh		= ena_get_rxfh,
	.set_rxfh		= ena_set_rxfh,
	.get_tunable		= ena_get_tunable,
	.set_tunable		= ena_set_tunable,
	.get_coalesce		= ena_get_coalesce,
	.set_coalesce		= ena_set_coalesce,
};

void ena_ethtool_set_ops(struct net_device *nd)
{
	nd->ethtool_ops = &ena_ethtool_ops;
}
