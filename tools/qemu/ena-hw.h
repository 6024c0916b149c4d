/*
 * Amazon Elastic Network Adapter (ENA) device model: interface constants.
 *
 * These are the device-visible facts of the ENA interface (register
 * offsets, opcodes, feature ids, descriptor bit positions and payload byte
 * offsets).  All multi-byte fields are little endian; the model accesses
 * them with the ld*_le_p / st*_le_p helpers on byte buffers, so the
 * offsets below are byte offsets within the respective entry.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_NET_ENA_HW_H
#define HW_NET_ENA_HW_H

/* PCI identity */
#define ENAHW_VENDOR_AMAZON         0x1d0f
#define ENAHW_DEVICE_PF             0x0ec2

/* BARs */
#define ENAHW_BAR_REGS              0
#define ENAHW_BAR_LLQ               2
#define ENAHW_BAR_MSIX              4
#define ENAHW_REGS_SIZE             (16 * KiB)

/* BAR0 register file */
#define ENAHW_R_VERSION             0x00
#define ENAHW_R_CTRL_VERSION        0x04
#define ENAHW_R_CAPS                0x08
#define ENAHW_R_CAPS_EXT            0x0c
#define ENAHW_R_AQ_BASE_LO          0x10
#define ENAHW_R_AQ_BASE_HI          0x14
#define ENAHW_R_AQ_CAPS             0x18
#define ENAHW_R_ACQ_BASE_LO         0x20
#define ENAHW_R_ACQ_BASE_HI         0x24
#define ENAHW_R_ACQ_CAPS            0x28
#define ENAHW_R_AQ_DB               0x2c
#define ENAHW_R_ACQ_TAIL            0x30
#define ENAHW_R_AENQ_CAPS           0x34
#define ENAHW_R_AENQ_BASE_LO        0x38
#define ENAHW_R_AENQ_BASE_HI        0x3c
#define ENAHW_R_AENQ_HEAD_DB        0x40
#define ENAHW_R_AENQ_TAIL           0x44
#define ENAHW_R_INTR_MASK           0x4c
#define ENAHW_R_DEV_CTL             0x54
#define ENAHW_R_DEV_STS             0x58
#define ENAHW_R_MMIO_REG_READ       0x5c
#define ENAHW_R_MMIO_RESP_LO        0x60
#define ENAHW_R_MMIO_RESP_HI        0x64
#define ENAHW_R_RSS_IND_UPDATE      0x68
#define ENAHW_R_FILE_END            0x6c

/*
 * IO queue registers chosen by this model (handed to the driver in the
 * CREATE_SQ / CREATE_CQ responses).  One 32-bit register per queue index.
 */
#define ENAHW_R_SQ_DB_BASE          0x1000  /* + 4 * sq_idx */
#define ENAHW_R_CQ_UNMASK_BASE      0x2000  /* + 4 * cq_idx */
#define ENAHW_R_CQ_HEAD_DB_BASE     0x2800  /* + 4 * cq_idx */
#define ENAHW_R_CQ_NUMA_BASE        0x3000  /* + 4 * cq_idx */
#define ENAHW_R_QREG_SPAN           0x400

/* CAPS fields */
#define ENAHW_CAPS_RESET_TO_SHIFT   1       /* 5 bits, units of 100 ms */
#define ENAHW_CAPS_DMA_WIDTH_SHIFT  8       /* 8 bits */
#define ENAHW_CAPS_ADMIN_TO_SHIFT   16      /* 4 bits, units of 100 ms */

/* DEV_CTL / DEV_STS */
#define ENAHW_CTL_RESET             (1u << 0)
#define ENAHW_CTL_REASON_SHIFT      28      /* reason bits 3:0 */
#define ENAHW_CTL_REASON_EXT_SHIFT  24      /* reason bits 7:4, with the
                                             * EXTENDED_RESET_REASONS cap */
#define ENAHW_CTL_REASON_EXT_MASK   (0xfu << ENAHW_CTL_REASON_EXT_SHIFT)
#define ENAHW_STS_READY             (1u << 0)
#define ENAHW_STS_RESET_BUSY        (1u << 3)
#define ENAHW_STS_RESET_DONE        (1u << 4)
#define ENAHW_STS_FATAL             (1u << 5)

/* INTR_MASK */
#define ENAHW_INTR_MASK_ADMIN       (1u << 0)

/* Admin submission entry (64 bytes) */
#define ENAHW_ADMIN_ENTRY_SIZE      64
/*
 * Host-info page (SET HOST_ATTR_CONFIG): os_type @0, os_dist_str[128] @4,
 * os_dist @132, kernel_ver_str[32] @136, kernel_ver @168, driver_version
 * @172, supported_network_features[2] @176, spec_version @184, bdf @186,
 * num_cpus @188, driver_supported_features @192.
 */
#define ENAHW_HOST_INFO_SIZE        196
#define ENAHW_SQE_CMD_ID            0       /* u16, bits 11:0 */
#define ENAHW_SQE_OPCODE            2       /* u8 */
#define ENAHW_SQE_FLAGS             3       /* u8 */
#define ENAHW_SQE_CTRL_LEN          4       /* u32 control buffer length */
#define ENAHW_SQE_CTRL_ADDR_LO      8       /* u32 */
#define ENAHW_SQE_CTRL_ADDR_HI      12      /* u16 */
#define ENAHW_SQE_BODY              16      /* command specific, 48 bytes */
#define ENAHW_CMD_ID_MASK           0x0fff
#define ENAHW_SQE_F_PHASE           (1u << 0)
#define ENAHW_SQE_F_CTRL            (1u << 1)
#define ENAHW_SQE_F_CTRL_INDIRECT   (1u << 2)

/* Admin completion entry (64 bytes) */
#define ENAHW_CQE_CMD_ID            0       /* u16 */
#define ENAHW_CQE_STATUS            2       /* u8 */
#define ENAHW_CQE_FLAGS             3       /* u8, bit0 phase */
#define ENAHW_CQE_EXT_STATUS        4       /* u16 */
#define ENAHW_CQE_SQ_HEAD           6       /* u16 */
#define ENAHW_CQE_BODY              8       /* 56 bytes */

/* Admin opcodes */
enum {
    ENAHW_OP_CREATE_SQ  = 1,
    ENAHW_OP_DESTROY_SQ = 2,
    ENAHW_OP_CREATE_CQ  = 3,
    ENAHW_OP_DESTROY_CQ = 4,
    ENAHW_OP_GET_FEAT   = 8,
    ENAHW_OP_SET_FEAT   = 9,
    ENAHW_OP_GET_STATS  = 11,
};

/* Admin completion status */
enum {
    ENAHW_ST_OK          = 0,
    ENAHW_ST_NO_RESOURCE = 1,
    ENAHW_ST_BAD_OPCODE  = 2,
    ENAHW_ST_UNSUPPORTED = 3,
    ENAHW_ST_MALFORMED   = 4,
    ENAHW_ST_ILLEGAL     = 5,
    ENAHW_ST_UNKNOWN     = 6,
    ENAHW_ST_BUSY        = 7,
};

/* Feature ids */
enum {
    ENAHW_F_DEV_ATTR      = 1,
    ENAHW_F_MAX_QUEUES    = 2,
    ENAHW_F_HW_HINTS      = 3,
    ENAHW_F_LLQ           = 4,
    ENAHW_F_MAX_QUEUES_EXT = 7,
    ENAHW_F_RSS_FUNC      = 10,
    ENAHW_F_OFFLOAD       = 11,
    ENAHW_F_RSS_TABLE     = 12,
    ENAHW_F_MTU           = 14,
    ENAHW_F_RSS_INPUT     = 18,
    ENAHW_F_INTR_MODER    = 20,
    ENAHW_F_AENQ_CONFIG   = 26,
    ENAHW_F_LINK_CONFIG   = 27,
    ENAHW_F_HOST_ATTR     = 28,
};

/*
 * GET/SET_FEATURE: the body starts with {u8 select; u8 feature_id;
 * u8 version; u8 rsvd} at SQE byte 16; the feature payload follows at
 * SQE byte 20.  GET responses carry their payload at CQE byte 8.
 */
#define ENAHW_FEAT_ID               (ENAHW_SQE_BODY + 1)
#define ENAHW_FEAT_VERSION          (ENAHW_SQE_BODY + 2)
#define ENAHW_FEAT_SET_DATA         (ENAHW_SQE_BODY + 4)

/* CREATE_CQ command (offsets within the SQE) */
#define ENAHW_CCQ_CAPS1             4       /* bit5: interrupt mode */
#define ENAHW_CCQ_CAPS2             5       /* bits 4:0 entry size in words */
#define ENAHW_CCQ_DEPTH             6       /* u16 */
#define ENAHW_CCQ_MSIX              8       /* u32 */
#define ENAHW_CCQ_BASE_LO           12
#define ENAHW_CCQ_BASE_HI           16      /* u16 */
/* CREATE_CQ response (offsets within the CQE) */
#define ENAHW_CCQR_IDX              8       /* u16 */
#define ENAHW_CCQR_DEPTH            10      /* u16 */
#define ENAHW_CCQR_NUMA_OFF         12      /* u32 */
#define ENAHW_CCQR_HEAD_DB_OFF      16      /* u32 */
#define ENAHW_CCQR_UNMASK_OFF       20      /* u32 */

/* CREATE_SQ command */
#define ENAHW_CSQ_IDENTITY          4       /* bits 7:5 direction */
#define ENAHW_CSQ_CAPS2             6       /* 3:0 placement, 6:4 policy */
#define ENAHW_CSQ_CAPS3             7       /* bit0 physically contiguous */
#define ENAHW_CSQ_CQ_IDX            8       /* u16 */
#define ENAHW_CSQ_DEPTH             10      /* u16 */
#define ENAHW_CSQ_BASE_LO           12
#define ENAHW_CSQ_BASE_HI           16      /* u16 */
/* CREATE_SQ response */
#define ENAHW_CSQR_IDX              8       /* u16 */
#define ENAHW_CSQR_DB_OFF           12      /* u32 */
#define ENAHW_CSQR_LLQ_DESC_OFF     16      /* u32 */
#define ENAHW_CSQR_LLQ_HDR_OFF      20      /* u32 */

/* DESTROY_SQ / DESTROY_CQ */
#define ENAHW_DSQ_IDX               4       /* u16 */
#define ENAHW_DSQ_IDENTITY          6       /* u8, bits 7:5 direction */
#define ENAHW_DCQ_IDX               4       /* u16 */

#define ENAHW_DIR_TX                1
#define ENAHW_DIR_RX                2
#define ENAHW_PLACE_HOST            1
#define ENAHW_PLACE_DEV             3

/*
 * GET_STATS command / response.  The command's control buffer fields sit
 * where every command has them (ENAHW_SQE_CTRL_*); the in-tree driver fills
 * them for the customer metrics without setting a control flag.
 */
#define ENAHW_GSTATS_TYPE           16      /* u8, ENAHW_GST_* */
#define ENAHW_GSTATS_SCOPE          17
#define ENAHW_GSTATS_QUEUE          20      /* u16 */
#define ENAHW_GSTATS_DEVICE         22      /* u16 */
#define ENAHW_GSTATS_REQUESTED      24      /* u64 bitmap of metric ids */

enum {
    ENAHW_GST_BASIC    = 0,
    ENAHW_GST_EXTENDED = 1,     /* string buffer; not modelled */
    ENAHW_GST_ENI      = 2,     /* 5 x u64 inline in the CQE */
    ENAHW_GST_SRD      = 3,     /* u64 flags + 4 x u64 inline */
    ENAHW_GST_CUSTOMER = 4,     /* CQE: u64 reported bitmap; values in the
                                 * control buffer, one u64 per reported id
                                 * in increasing id order */
};

/* DEVICE_ATTRIBUTES.capabilities bits */
#define ENAHW_CAP_ENI_STATS         0
#define ENAHW_CAP_ENA_SRD_INFO      1
#define ENAHW_CAP_CUSTOMER_METRICS  2
#define ENAHW_CAP_EXT_RESET_REASONS 3   /* DEV_CTL reset reason bits 27:24 */

/* customer metric ids (bits of the requested/reported bitmaps) */
enum {
    ENAHW_CM_BW_IN_EXCEEDED = 0,
    ENAHW_CM_BW_OUT_EXCEEDED,
    ENAHW_CM_PPS_EXCEEDED,
    ENAHW_CM_CONNTRACK_EXCEEDED,
    ENAHW_CM_LINKLOCAL_EXCEEDED,
    ENAHW_CM_CONNTRACK_AVAILABLE,
    ENAHW_CM_COUNT,
};
#define ENAHW_CM_ALL                ((1u << ENAHW_CM_COUNT) - 1)
#define ENAHW_ENI_STATS             5   /* the first five ids, as u64s */
#define ENAHW_SRD_WORDS             5   /* flags + 4 counters */

/* AENQ entry (64 bytes) */
#define ENAHW_AENQ_ENTRY_SIZE       64
#define ENAHW_AE_GROUP              0       /* u16 */
#define ENAHW_AE_SYNDROME           2       /* u16 */
#define ENAHW_AE_FLAGS              4       /* u8, bit0 phase */
#define ENAHW_AE_TS_LO              8
#define ENAHW_AE_TS_HI              12
#define ENAHW_AE_DATA               16

enum {
    ENAHW_AEG_LINK_CHANGE  = 0,
    ENAHW_AEG_FATAL_ERROR  = 1,
    ENAHW_AEG_WARNING      = 2,
    ENAHW_AEG_NOTIFICATION = 3,
    ENAHW_AEG_KEEP_ALIVE   = 4,
    ENAHW_AEG_REFRESH_CAPS = 5,
    ENAHW_AEG_CONF_NOTIFICATIONS = 6,
    ENAHW_AEG_DEVICE_REQUEST_RESET = 7,
    ENAHW_AEG_COUNT        = 8,
};
#define ENAHW_AEG_ALL               0xff
/* NOTIFICATION syndromes */
#define ENAHW_AEN_UPDATE_HINTS      2
/*
 * HW hints (GET_FEATURE HW_HINTS and the UPDATE_HINTS event's data), u16
 * each: mmio_read_timeout, driver_watchdog_timeout (keep-alive),
 * missing_tx_completion_timeout (ms), missed_tx_completion_count_threshold,
 * admin_completion_tx_timeout (ms), netdev_wd_timeout (ms), max_tx_sgl,
 * max_rx_sgl; 0 = no hint
 */
#define ENAHW_HINT_MMIO_READ_MS     0
#define ENAHW_HINT_KEEPALIVE_MS     2
#define ENAHW_HINT_MISSING_TX_MS    4
#define ENAHW_HINT_MISSED_TX        6
#define ENAHW_HINT_ADMIN_MS         8
#define ENAHW_HINT_NETDEV_WD_MS     10
#define ENAHW_HINT_MAX_TX_SGL       12
#define ENAHW_HINT_MAX_RX_SGL       14
#define ENAHW_HINTS_BYTES           32

/* TX descriptor (16 bytes): word 0 */
#define ENAHW_TXD_LEN_MASK          0xffffu
#define ENAHW_TXD_REQ_HI_SHIFT      16          /* 6 bits */
#define ENAHW_TXD_META              (1u << 23)
#define ENAHW_TXD_PHASE             (1u << 24)
#define ENAHW_TXD_FIRST             (1u << 26)
#define ENAHW_TXD_LAST              (1u << 27)
#define ENAHW_TXD_COMP_REQ          (1u << 28)
/* word 1 */
#define ENAHW_TXD_L3_PROTO_MASK     0xfu
#define ENAHW_TXD_TSO               (1u << 7)
#define ENAHW_TXD_L4_PROTO_SHIFT    8           /* 5 bits */
#define ENAHW_TXD_L3_CSUM           (1u << 13)
#define ENAHW_TXD_L4_CSUM           (1u << 14)
#define ENAHW_TXD_L4_PARTIAL        (1u << 17)
#define ENAHW_TXD_REQ_LO_SHIFT      22          /* 10 bits */
/* word 3 */
#define ENAHW_TXD_ADDR_HI_MASK      0xffffu
#define ENAHW_TXD_HDR_LEN_SHIFT     24
/* TX meta descriptor word 2 */
#define ENAHW_TXM_L3_LEN_MASK       0xffu
#define ENAHW_TXM_L3_OFF_SHIFT      8
#define ENAHW_TXM_L4_LEN_SHIFT      16          /* 6 bits, in words */
#define ENAHW_TXM_MSS_LO_SHIFT      22

/* L3/L4 protocol indices used in descriptors and completions */
#define ENAHW_L3_IPV4               8
#define ENAHW_L3_IPV6               11
#define ENAHW_L4_TCP                12
#define ENAHW_L4_UDP                13

/* TX completion (8 bytes) */
#define ENAHW_TXC_SIZE              8
#define ENAHW_TXC_REQ_ID            0
#define ENAHW_TXC_STATUS            2
#define ENAHW_TXC_FLAGS             3
#define ENAHW_TXC_SUB_QID           4
#define ENAHW_TXC_SQ_HEAD           6

/* RX descriptor (16 bytes) */
#define ENAHW_RXD_SIZE              16
#define ENAHW_RXD_LEN               0   /* u16, 0 = 64 KiB */
#define ENAHW_RXD_CTRL              3   /* u8 */
#define ENAHW_RXD_REQ_ID            4   /* u16 */
#define ENAHW_RXD_ADDR_LO           8
#define ENAHW_RXD_ADDR_HI           12  /* u16 */
#define ENAHW_RXD_C_PHASE           (1u << 0)

/* RX completion (16 bytes) */
#define ENAHW_RXC_SIZE              16
#define ENAHW_RXC_STATUS            0
#define ENAHW_RXC_LEN               4
#define ENAHW_RXC_REQ_ID            6
#define ENAHW_RXC_HASH              8
#define ENAHW_RXC_SUB_QID           12
#define ENAHW_RXC_OFFSET            14
#define ENAHW_RXS_L4_PROTO_SHIFT    8
#define ENAHW_RXS_L3_CSUM_ERR       (1u << 13)
#define ENAHW_RXS_L4_CSUM_ERR       (1u << 14)
#define ENAHW_RXS_IPV4_FRAG         (1u << 15)
#define ENAHW_RXS_L4_CHECKED        (1u << 16)
#define ENAHW_RXS_PHASE             (1u << 24)
#define ENAHW_RXS_FIRST             (1u << 26)
#define ENAHW_RXS_LAST              (1u << 27)

/* Interrupt unmask register */
#define ENAHW_INTR_RX_DELAY         0x7fffu         /* bits 14:0 */
#define ENAHW_INTR_TX_DELAY_SHIFT   15              /* bits 29:15 */
#define ENAHW_INTR_UNMASK           (1u << 30)
#define ENAHW_INTR_NO_MODER_UPDATE  (1u << 31)

/* LLQ configuration values (bit masks in the LLQ feature) */
#define ENAHW_LLQ_HDR_INLINE        1
#define ENAHW_LLQ_ENTRY_128         1
#define ENAHW_LLQ_ENTRY_256         4
#define ENAHW_LLQ_ENTRY_BYTES       128
#define ENAHW_LLQ_DESCS_BEFORE_HDR  2
#define ENAHW_LLQ_STRIDE_MULTI      2
/* LLQ accel modes (bytes 28..29: offered in GET, enabled in SET) */
#define ENAHW_LLQ_ACCEL_NO_META_CACHE  1   /* every packet brings its meta */
#define ENAHW_LLQ_ACCEL_TX_BURST       2   /* bytes 30..31 bound a burst */
#define ENAHW_LLQ_ACCEL_ALL            3

/* Offload capability bits */
#define ENAHW_OFF_TX_L3_IPV4        (1u << 0)
#define ENAHW_OFF_TX_L4_IPV4_PART   (1u << 1)
#define ENAHW_OFF_TX_L4_IPV6_PART   (1u << 3)
#define ENAHW_OFF_RX_L3_IPV4        (1u << 0)
#define ENAHW_OFF_RX_L4_IPV4        (1u << 1)
#define ENAHW_OFF_RX_L4_IPV6        (1u << 2)
#define ENAHW_OFF_RX_HASH           (1u << 3)

/* RSS */
#define ENAHW_RSS_FUNC_TOEPLITZ     1
#define ENAHW_RSS_FUNC_CRC32        2
#define ENAHW_RSS_KEY_BYTES         40
#define ENAHW_RSS_KEY_BUF_BYTES     48  /* {u32 parts; u32 rsvd; key[40]} */
#define ENAHW_RSS_PROTOS            16
#define ENAHW_RSS_INPUT_BUF_BYTES   (4 * ENAHW_RSS_PROTOS * 4)
#define ENAHW_RSS_TABLE_LOG_MAX     7
#define ENAHW_RSS_TABLE_MAX         (1u << ENAHW_RSS_TABLE_LOG_MAX)
#define ENAHW_RSS_F_L2_DA           (1u << 0)
#define ENAHW_RSS_F_L2_SA           (1u << 1)
#define ENAHW_RSS_F_L3_DA           (1u << 2)
#define ENAHW_RSS_F_L3_SA           (1u << 3)
#define ENAHW_RSS_F_L4_DP           (1u << 4)
#define ENAHW_RSS_F_L4_SP           (1u << 5)

#endif /* HW_NET_ENA_HW_H */
