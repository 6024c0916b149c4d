/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ENA admin interface: admin queue entries, GET/SET_FEATURE payloads,
 * asynchronous event entries and the host-info page.  All fields are little
 * endian as the device sees them.
 */
#ifndef _ENA_ADMIN_H_
#define _ENA_ADMIN_H_

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/stddef.h>
#include <linux/types.h>

#define ENA_AQ_ENTRY_SIZE	64
#define ENA_ACQ_ENTRY_SIZE	64
#define ENA_AENQ_ENTRY_SIZE	64

enum ena_aq_opcode {
	ENA_OP_CREATE_SQ	= 1,
	ENA_OP_DESTROY_SQ	= 2,
	ENA_OP_CREATE_CQ	= 3,
	ENA_OP_DESTROY_CQ	= 4,
	ENA_OP_GET_FEATURE	= 8,
	ENA_OP_SET_FEATURE	= 9,
	ENA_OP_GET_STATS	= 11,
};

enum ena_aq_status {
	ENA_AQ_OK		= 0,
	ENA_AQ_NO_RESOURCES	= 1,
	ENA_AQ_BAD_OPCODE	= 2,
	ENA_AQ_UNSUPPORTED	= 3,
	ENA_AQ_MALFORMED	= 4,
	ENA_AQ_ILLEGAL_PARAM	= 5,
	ENA_AQ_UNKNOWN		= 6,
	ENA_AQ_BUSY		= 7,
};

/* DEVICE_ATTRIBUTES capabilities: bit numbers */
enum ena_capability {
	ENA_CAP_ENI_STATS		= 0,	/* GET_STATS type ENI */
	ENA_CAP_SRD_INFO		= 1,	/* GET_STATS type SRD (ENA Express) */
	ENA_CAP_CUSTOMER_METRICS	= 2,	/* GET_STATS type CUSTOMER */
};

enum ena_stats_type {
	ENA_STATS_BASIC		= 0,
	ENA_STATS_EXTENDED	= 1,
	ENA_STATS_ENI		= 2,
	ENA_STATS_SRD		= 3,
	ENA_STATS_CUSTOMER	= 4,
};

/*
 * Customer metric ids: bits of the requested and reported bitmaps.  The
 * first ENA_ENI_STATS are also, in this order, the ENI statistics.
 */
enum ena_metric {
	ENA_METRIC_BW_IN_EXCEEDED	= 0,
	ENA_METRIC_BW_OUT_EXCEEDED	= 1,
	ENA_METRIC_PPS_EXCEEDED		= 2,
	ENA_METRIC_CONNTRACK_EXCEEDED	= 3,
	ENA_METRIC_LINKLOCAL_EXCEEDED	= 4,
	ENA_METRIC_CONNTRACK_AVAILABLE	= 5,
	ENA_METRICS			= 6,
};

#define ENA_METRICS_ALL		GENMASK_ULL(ENA_METRICS - 1, 0)
#define ENA_ENI_STATS		5
#define ENA_SRD_WORDS		5	/* mode flags, then four counters */

enum ena_feature {
	ENA_FEAT_DEV_ATTR	= 1,
	ENA_FEAT_MAX_QUEUES	= 2,
	ENA_FEAT_HW_HINTS	= 3,
	ENA_FEAT_LLQ		= 4,
	ENA_FEAT_MAX_QUEUES_EXT	= 7,
	ENA_FEAT_RSS_HASH_FUNC	= 10,
	ENA_FEAT_OFFLOAD	= 11,
	ENA_FEAT_RSS_IND_TABLE	= 12,
	ENA_FEAT_MTU		= 14,
	ENA_FEAT_RSS_HASH_INPUT	= 18,
	ENA_FEAT_INTR_MODER	= 20,
	ENA_FEAT_AENQ_CONFIG	= 26,
	ENA_FEAT_LINK_CONFIG	= 27,
	ENA_FEAT_HOST_ATTR	= 28,
};

/* A 48-bit DMA address as the device reads it. */
struct ena_dma_addr {
	__le32 lo;
	__le16 hi;
	__le16 rsvd;
};

struct ena_aq_hdr {
	__le16 cmd_id;
	u8 opcode;
	u8 flags;
};

#define ENA_AQ_CMD_ID_MASK		GENMASK(11, 0)
#define ENA_AQ_FLAG_PHASE		BIT(0)
#define ENA_AQ_FLAG_CTRL_DATA		BIT(1)
#define ENA_AQ_FLAG_CTRL_INDIRECT	BIT(2)

struct ena_aq_ctrl_buf {
	__le32 len;
	struct ena_dma_addr addr;
};

struct ena_feat_hdr {
	u8 select;
	u8 id;
	u8 version;
	u8 rsvd;
};

/* SET_FEATURE payloads, GET_FEATURE responses */
struct ena_feat_dev_attr {
	__le32 impl_id;
	__le32 device_version;
	__le32 supported_features;
	__le32 capabilities;
	__le32 phys_addr_width;
	__le32 virt_addr_width;
	u8 mac[6];
	u8 rsvd[2];
	__le32 max_mtu;
};

enum ena_llq_header_location {
	ENA_LLQ_HDR_INLINE	= 1,
	ENA_LLQ_HDR_RING	= 2,
};

enum ena_llq_entry_size {
	ENA_LLQ_ENTRY_128B	= 1,
	ENA_LLQ_ENTRY_192B	= 2,
	ENA_LLQ_ENTRY_256B	= 4,
};

enum ena_llq_stride {
	ENA_LLQ_STRIDE_SINGLE	= 1,
	ENA_LLQ_STRIDE_MULTI	= 2,
};

#define ENA_LLQ_ACCEL_NO_META_CACHE	BIT(0)
#define ENA_LLQ_ACCEL_TX_BURST		BIT(1)

struct ena_feat_llq {
	__le32 max_llq_num;
	__le32 max_llq_depth;
	__le16 hdr_location_supported;
	__le16 hdr_location_enabled;
	__le16 entry_size_supported;
	__le16 entry_size_enabled;
	__le16 descs_before_hdr_supported;
	__le16 descs_before_hdr_enabled;
	__le16 stride_supported;
	__le16 stride_enabled;
	u8 feature_version;
	u8 entry_size_recommended;	/* GET: an ENA_LLQ_ENTRY_* value */
	__le16 max_wide_llq_depth;
	/* GET: supported flags, max burst bytes; SET: enabled flags */
	__le16 accel_flags;
	__le16 accel_max_tx_burst;
	__le32 accel_rsvd;
};

#define ENA_MAX_QUEUES_EXT_VERSION	1

struct ena_feat_max_queues_ext {
	u8 version;
	u8 rsvd[3];
	__le32 max_tx_sq_num;
	__le32 max_tx_cq_num;
	__le32 max_rx_sq_num;
	__le32 max_rx_cq_num;
	__le32 max_tx_sq_depth;
	__le32 max_tx_cq_depth;
	__le32 max_rx_sq_depth;
	__le32 max_rx_cq_depth;
	__le32 max_tx_header_size;
	__le16 max_tx_descs_per_pkt;
	__le16 max_rx_descs_per_pkt;
};

struct ena_feat_max_queues {
	__le32 max_sq_num;
	__le32 max_sq_depth;
	__le32 max_cq_num;
	__le32 max_cq_depth;
	__le32 max_llq_num;
	__le32 max_llq_depth;
	__le32 max_header_size;
	__le16 max_tx_descs_per_pkt;
	__le16 max_rx_descs_per_pkt;
};

struct ena_feat_aenq {
	__le32 supported_groups;
	__le32 enabled_groups;
};

#define ENA_OFFLOAD_TX_L3_CSUM_V4	BIT(0)
#define ENA_OFFLOAD_TX_L4_V4_PARTIAL	BIT(1)
#define ENA_OFFLOAD_TX_L4_V4_FULL	BIT(2)
#define ENA_OFFLOAD_TX_L4_V6_PARTIAL	BIT(3)
#define ENA_OFFLOAD_TX_L4_V6_FULL	BIT(4)
#define ENA_OFFLOAD_TX_TSO_V4		BIT(5)
#define ENA_OFFLOAD_TX_TSO_V6		BIT(6)
#define ENA_OFFLOAD_RX_L3_CSUM_V4	BIT(0)
#define ENA_OFFLOAD_RX_L4_CSUM_V4	BIT(1)
#define ENA_OFFLOAD_RX_L4_CSUM_V6	BIT(2)
#define ENA_OFFLOAD_RX_HASH		BIT(3)

struct ena_feat_offload {
	__le32 tx;
	__le32 rx_supported;
	__le32 rx_enabled;
};

enum ena_hash_func {
	ENA_HASH_TOEPLITZ	= 1,
	ENA_HASH_CRC32		= 2,
};

#define ENA_HASH_FUNC_MASK	GENMASK(7, 0)

struct ena_feat_hash_func {
	__le32 supported;	/* bitmap of BIT(enum ena_hash_func) */
	__le32 selected;	/* SET: BIT(enum ena_hash_func) */
	__le32 init_val;
};

#define ENA_HASH_INPUT_L3_SORT	BIT(1)
#define ENA_HASH_INPUT_L4_SORT	BIT(2)

struct ena_feat_hash_input {
	__le16 supported_sort;
	__le16 enabled_sort;
};

struct ena_feat_ind_table {
	__le16 min_size;	/* log2 */
	__le16 max_size;	/* log2 */
	__le16 size;		/* log2 */
	__le16 rsvd;
	__le32 inline_index;
	__le16 inline_cq_idx;
	__le16 inline_rsvd;
};

#define ENA_IND_TABLE_NO_INLINE	0xffffffff

struct ena_feat_intr_moder {
	__le16 delay_resolution;
	__le16 rsvd;
};

struct ena_feat_hw_hints {
	__le16 mmio_read_timeout;	/* ms */
	__le16 driver_watchdog_timeout;	/* ms */
	__le16 missing_tx_cmpl_timeout;	/* ms */
	__le16 missed_tx_cmpl_threshold;
	__le16 admin_cmpl_timeout;	/* ms */
	__le16 netdev_wd_timeout;	/* ms */
	__le16 max_tx_sgl;
	__le16 max_rx_sgl;
	__le16 rsvd[8];
};

struct ena_feat_link {
	__le32 speed;		/* Mbit/s */
	__le32 supported;
	__le32 flags;		/* ENA_LINK_* */
};

#define ENA_LINK_AUTONEG	BIT(0)
#define ENA_LINK_FULL_DUPLEX	BIT(1)

struct ena_feat_host_attr {
	struct ena_dma_addr os_info;
	struct ena_dma_addr debug_area;
	__le32 debug_area_size;
};

struct ena_feat_mtu {
	__le32 mtu;
};

/* ---- admin SQ entries ---- */

#define ENA_SQ_DIR_TX		1
#define ENA_SQ_DIR_RX		2
#define ENA_SQ_IDENTITY_DIR	GENMASK(7, 5)
#define ENA_SQ_CAPS2_PLACEMENT	GENMASK(3, 0)
#define ENA_SQ_CAPS2_CMPL	GENMASK(6, 4)
#define ENA_SQ_CAPS3_CONTIG	BIT(0)
#define ENA_PLACEMENT_HOST	1
#define ENA_PLACEMENT_DEV	3
#define ENA_CMPL_PER_DESC	0

struct ena_cmd_create_sq {
	u8 identity;
	u8 rsvd;
	u8 caps2;
	u8 caps3;
	__le16 cq_idx;
	__le16 depth;
	struct ena_dma_addr base;
	struct ena_dma_addr head_wb;
	__le32 rsvd_w7;
	__le32 rsvd_w8;
};

#define ENA_CQ_CAPS1_INTR	BIT(5)
#define ENA_CQ_CAPS2_ENTRY_WORDS GENMASK(4, 0)

struct ena_cmd_create_cq {
	u8 caps1;
	u8 caps2;
	__le16 depth;
	__le32 msix_vector;
	struct ena_dma_addr base;
};

struct ena_cmd_destroy_sq {
	__le16 sq_idx;
	u8 identity;
	u8 rsvd;
};

struct ena_cmd_destroy_cq {
	__le16 cq_idx;
	__le16 rsvd;
};

/*
 * GET_STATS.  The customer metrics land in the control buffer, one
 * little-endian u64 per reported id in increasing id order; the other
 * types answer inline in the completion.
 */
struct ena_cmd_get_stats {
	struct ena_aq_ctrl_buf ctrl;
	u8 type;
	u8 scope;
	__le16 rsvd;
	__le16 queue_idx;
	__le16 device_id;
	__le32 requested_lo;	/* customer metric ids asked for */
	__le32 requested_hi;
};

struct ena_cmd_feature {
	struct ena_aq_ctrl_buf ctrl;
	struct ena_feat_hdr feat;
	union {
		__le32 raw[11];
		struct ena_feat_mtu mtu;
		struct ena_feat_host_attr host_attr;
		struct ena_feat_aenq aenq;
		struct ena_feat_hash_func hash_func;
		struct ena_feat_hash_input hash_input;
		struct ena_feat_ind_table ind_table;
		struct ena_feat_llq llq;
	} u;
};

struct ena_aq_cmd {
	struct ena_aq_hdr hdr;
	union {
		u8 raw[60];
		struct ena_cmd_create_sq create_sq;
		struct ena_cmd_create_cq create_cq;
		struct ena_cmd_destroy_sq destroy_sq;
		struct ena_cmd_destroy_cq destroy_cq;
		struct ena_cmd_feature feature;
		struct ena_cmd_get_stats get_stats;
	};
};

/* ---- admin CQ entries ---- */

#define ENA_ACQ_FLAG_PHASE	BIT(0)

struct ena_acq_hdr {
	__le16 cmd_id;
	u8 status;
	u8 flags;
	__le16 ext_status;
	__le16 sq_head;
};

struct ena_resp_create_sq {
	__le16 sq_idx;
	__le16 rsvd;
	__le32 db_offset;
	__le32 llq_desc_offset;
	__le32 llq_hdr_offset;
};

struct ena_resp_create_cq {
	__le16 cq_idx;
	__le16 depth;
	__le32 numa_offset;
	__le32 head_db_offset;
	__le32 unmask_offset;
};

struct ena_resp_get_stats {
	union {
		__le32 eni[2 * ENA_ENI_STATS];		/* u64s, lo first */
		__le32 srd[2 * ENA_SRD_WORDS];
		struct {
			__le32 reported_lo;
			__le32 reported_hi;
		};
	};
};

struct ena_acq_resp {
	struct ena_acq_hdr hdr;
	union {
		u8 raw[56];
		struct ena_resp_create_sq create_sq;
		struct ena_resp_create_cq create_cq;
		struct ena_feat_dev_attr dev_attr;
		struct ena_feat_llq llq;
		struct ena_feat_max_queues_ext max_queues_ext;
		struct ena_feat_max_queues max_queues;
		struct ena_feat_aenq aenq;
		struct ena_feat_offload offload;
		struct ena_feat_hash_func hash_func;
		struct ena_feat_hash_input hash_input;
		struct ena_feat_ind_table ind_table;
		struct ena_feat_intr_moder intr_moder;
		struct ena_feat_hw_hints hw_hints;
		struct ena_feat_link link;
		struct ena_resp_get_stats stats;
	};
};

/* ---- control buffers ---- */

#define ENA_HASH_KEY_WORDS	10

struct ena_hash_key_buf {
	__le32 key_parts;
	__le32 rsvd;
	__le32 key[ENA_HASH_KEY_WORDS];
};

enum ena_hash_proto {
	ENA_HASH_TCP4 = 0, ENA_HASH_UDP4, ENA_HASH_TCP6, ENA_HASH_UDP6,
	ENA_HASH_IP4, ENA_HASH_IP6, ENA_HASH_IP4_FRAG, ENA_HASH_NOT_IP,
	ENA_HASH_TCP6_EX, ENA_HASH_IP6_EX,
	ENA_HASH_PROTOS = 16,
};

#define ENA_HASH_FIELD_L2_DA	BIT(0)
#define ENA_HASH_FIELD_L2_SA	BIT(1)
#define ENA_HASH_FIELD_L3_DA	BIT(2)
#define ENA_HASH_FIELD_L3_SA	BIT(3)
#define ENA_HASH_FIELD_L4_DP	BIT(4)
#define ENA_HASH_FIELD_L4_SP	BIT(5)

struct ena_hash_fields {
	__le16 fields;
	__le16 rsvd;
};

struct ena_hash_input_buf {
	struct ena_hash_fields supported[ENA_HASH_PROTOS];
	struct ena_hash_fields selected[ENA_HASH_PROTOS];
	struct ena_hash_fields rsvd2[ENA_HASH_PROTOS];
	struct ena_hash_fields rsvd3[ENA_HASH_PROTOS];
};

struct ena_ind_entry {
	__le16 cq_idx;
	__le16 rsvd;
};

/* ---- asynchronous event notification queue ---- */

enum ena_aenq_group {
	ENA_AENQ_LINK_CHANGE	= 0,
	ENA_AENQ_FATAL_ERROR	= 1,
	ENA_AENQ_WARNING	= 2,
	ENA_AENQ_NOTIFICATION	= 3,
	ENA_AENQ_KEEP_ALIVE	= 4,
	ENA_AENQ_REFRESH_CAPS	= 5,
	ENA_AENQ_CONF_NOTIFICATIONS	= 6,
	ENA_AENQ_DEVICE_REQUEST_RESET	= 7,
	ENA_AENQ_GROUPS		= 8,
};

#define ENA_AENQ_SYNDROME_UPDATE_HINTS	2
/* DEVICE_ATTRIBUTES.capabilities: DEV_CTL carries reset reasons above 15 */
#define ENA_CAP_EXT_RESET_REASONS	BIT(3)
#define ENA_AENQ_FLAG_PHASE		BIT(0)
#define ENA_AENQ_LINK_UP		BIT(0)

struct ena_aenq_entry {
	__le16 group;
	__le16 syndrome;
	u8 flags;
	u8 rsvd[3];
	__le32 ts_lo;
	__le32 ts_hi;
	union {
		__le32 raw[12];
		__le32 link_flags;
		struct ena_feat_hw_hints hints;	/* NOTIFICATION/UPDATE_HINTS */
		__le64 conf_notifications;	/* CONF_NOTIFICATIONS bitmap */
		struct {
			__le32 rx_drops_lo;
			__le32 rx_drops_hi;
			__le32 tx_drops_lo;
			__le32 tx_drops_hi;
			__le32 rx_overruns_lo;
			__le32 rx_overruns_hi;
		} keep_alive;
	};
};

/* ---- readless register read response ---- */

struct ena_mmio_resp {
	__le16 req_id;
	__le16 reg_off;
	__le32 val;
};

/* ---- host-info page handed over with SET HOST_ATTR_CONFIG ---- */

#define ENA_OS_LINUX			1
#define ENA_HOST_BDF_FUNC		GENMASK(2, 0)
#define ENA_HOST_BDF_DEV		GENMASK(7, 3)
#define ENA_HOST_BDF_BUS		GENMASK(15, 8)
#define ENA_HOST_DRV_MAJOR		GENMASK(7, 0)
#define ENA_HOST_DRV_MINOR		GENMASK(15, 8)
#define ENA_HOST_DRV_SUBMINOR		GENMASK(23, 16)
#define ENA_HOST_DRV_MODULE		GENMASK(31, 24)
#define ENA_HOST_FEAT_INTR_MODER	BIT(2)
#define ENA_HOST_FEAT_RSS_FUNC_KEY	BIT(4)

struct ena_host_info {
	__le32 os_type;
	u8 os_dist_str[128];
	__le32 os_dist;
	u8 kernel_ver_str[32];
	__le32 kernel_ver;
	__le32 driver_version;
	__le32 supported_network_features[2];
	__le16 spec_version;
	__le16 bdf;
	__le16 num_cpus;
	__le16 rsvd;
	__le32 driver_supported_features;
};

#define ENA_SPEC_VERSION	((2 << 8) | 0)

static_assert(sizeof(struct ena_aq_cmd) == ENA_AQ_ENTRY_SIZE);
static_assert(sizeof(struct ena_acq_resp) == ENA_ACQ_ENTRY_SIZE);
static_assert(sizeof(struct ena_aenq_entry) == ENA_AENQ_ENTRY_SIZE);
static_assert(sizeof(struct ena_cmd_feature) == 60);
static_assert(offsetof(struct ena_aq_cmd, get_stats.type) == 16);
static_assert(offsetof(struct ena_aq_cmd, get_stats.requested_lo) == 24);
static_assert(offsetof(struct ena_acq_resp, stats.srd[2 * ENA_SRD_WORDS - 1]) == 44);
static_assert(sizeof(struct ena_feat_llq) == 36);
static_assert(sizeof(struct ena_feat_max_queues_ext) == 44);
static_assert(sizeof(struct ena_hash_input_buf) == 256);

#endif /* _ENA_ADMIN_H_ */
