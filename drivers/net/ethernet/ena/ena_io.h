/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ENA IO queue descriptors: TX/RX submission and completion entries and the
 * per-queue interrupt control word.
 */
#ifndef _ENA_IO_H_
#define _ENA_IO_H_

#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/types.h>

enum ena_l3_proto {
	ENA_L3_UNKNOWN	= 0,
	ENA_L3_IPV4	= 8,
	ENA_L3_IPV6	= 11,
};

enum ena_l4_proto {
	ENA_L4_UNKNOWN	= 0,
	ENA_L4_TCP	= 12,
	ENA_L4_UDP	= 13,
};

/* TX descriptor, word 0 */
#define ENA_TXD_LEN		GENMASK(15, 0)
#define ENA_TXD_REQ_ID_HI	GENMASK(21, 16)
#define ENA_TXD_META		BIT(23)
#define ENA_TXD_PHASE		BIT(24)
#define ENA_TXD_FIRST		BIT(26)
#define ENA_TXD_LAST		BIT(27)
#define ENA_TXD_COMP_REQ	BIT(28)
/* word 1 */
#define ENA_TXD_L3_PROTO	GENMASK(3, 0)
#define ENA_TXD_DF		BIT(4)
#define ENA_TXD_TSO		BIT(7)
#define ENA_TXD_L4_PROTO	GENMASK(12, 8)
#define ENA_TXD_L3_CSUM		BIT(13)
#define ENA_TXD_L4_CSUM		BIT(14)
#define ENA_TXD_FCS_DIS		BIT(15)
#define ENA_TXD_L4_PARTIAL	BIT(17)
#define ENA_TXD_REQ_ID_LO	GENMASK(31, 22)
/* word 3 */
#define ENA_TXD_ADDR_HI		GENMASK(15, 0)
#define ENA_TXD_HDR_LEN		GENMASK(31, 24)

#define ENA_TX_REQ_ID_LO_BITS	10

struct ena_tx_desc {
	__le32 w0;
	__le32 w1;
	__le32 addr_lo;
	__le32 w3;
};

/* TX meta descriptor: word 0 shares META/PHASE/FIRST/LAST/COMP_REQ */
#define ENA_TXM_EXT_VALID	BIT(14)
#define ENA_TXM_MSS_HI		GENMASK(19, 16)
#define ENA_TXM_ETH_META_TYPE	BIT(20)
#define ENA_TXM_META_STORE	BIT(21)
/* word 2 */
#define ENA_TXM_L3_HDR_LEN	GENMASK(7, 0)
#define ENA_TXM_L3_HDR_OFF	GENMASK(15, 8)
#define ENA_TXM_L4_HDR_WORDS	GENMASK(21, 16)
#define ENA_TXM_MSS_LO		GENMASK(31, 22)

struct ena_tx_meta_desc {
	__le32 w0;
	__le32 w1;
	__le32 w2;
	__le32 rsvd;
};

#define ENA_TXC_PHASE		BIT(0)

struct ena_tx_cdesc {
	__le16 req_id;
	u8 status;
	u8 flags;
	__le16 sub_qid;
	__le16 sq_head;
};

#define ENA_RXD_PHASE		BIT(0)
#define ENA_RXD_FIRST		BIT(2)
#define ENA_RXD_LAST		BIT(3)
#define ENA_RXD_COMP_REQ	BIT(4)

struct ena_rx_desc {
	__le16 len;
	u8 rsvd2;
	u8 ctrl;
	__le16 req_id;
	__le16 rsvd6;
	__le32 addr_lo;
	__le16 addr_hi;
	__le16 rsvd14;
};

#define ENA_RXC_L3_PROTO	GENMASK(4, 0)
#define ENA_RXC_L4_PROTO	GENMASK(12, 8)
#define ENA_RXC_L3_CSUM_ERR	BIT(13)
#define ENA_RXC_L4_CSUM_ERR	BIT(14)
#define ENA_RXC_IPV4_FRAG	BIT(15)
#define ENA_RXC_L4_CSUM_CHECKED	BIT(16)
#define ENA_RXC_PHASE		BIT(24)
#define ENA_RXC_FIRST		BIT(26)
#define ENA_RXC_LAST		BIT(27)

struct ena_rx_cdesc {
	__le32 status;
	__le16 len;
	__le16 req_id;
	__le32 hash;
	__le16 sub_qid;
	u8 offset;
	u8 rsvd;
};

/* Interrupt unmask register of an IO CQ */
#define ENA_INTR_RX_DELAY	GENMASK(14, 0)
#define ENA_INTR_TX_DELAY	GENMASK(29, 15)
#define ENA_INTR_UNMASK		BIT(30)
#define ENA_INTR_NO_MODER_UPDATE BIT(31)
#define ENA_INTR_DELAY_MAX	0x7fffU	/* in the device's delay units */

static_assert(sizeof(struct ena_tx_desc) == 16);
static_assert(sizeof(struct ena_tx_meta_desc) == 16);
static_assert(sizeof(struct ena_tx_cdesc) == 8);
static_assert(sizeof(struct ena_rx_desc) == 16);
static_assert(sizeof(struct ena_rx_cdesc) == 16);

#endif /* _ENA_IO_H_ */
