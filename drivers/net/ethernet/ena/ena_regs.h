/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ENA BAR0 register map: offsets and fields, as masks for FIELD_GET/PREP.
 */
#ifndef _ENA_REGS_H_
#define _ENA_REGS_H_

#include <linux/bits.h>

#define ENA_REG_VERSION			0x00
#define   ENA_VERSION_MINOR		GENMASK(7, 0)
#define   ENA_VERSION_MAJOR		GENMASK(15, 8)
#define ENA_REG_CTRL_VERSION		0x04
#define   ENA_CTRL_VERSION_SUBMINOR	GENMASK(7, 0)
#define   ENA_CTRL_VERSION_MINOR	GENMASK(15, 8)
#define   ENA_CTRL_VERSION_MAJOR	GENMASK(23, 16)
#define   ENA_CTRL_VERSION_IMPL		GENMASK(31, 24)
#define ENA_REG_CAPS			0x08
#define   ENA_CAPS_CONTIG_QUEUE		BIT(0)
#define   ENA_CAPS_RESET_TO		GENMASK(5, 1)	/* x100 ms */
#define   ENA_CAPS_DMA_WIDTH		GENMASK(15, 8)
#define   ENA_CAPS_ADMIN_TO		GENMASK(19, 16)	/* x100 ms */
#define ENA_REG_CAPS_EXT		0x0c
#define ENA_REG_AQ_BASE_LO		0x10
#define ENA_REG_AQ_BASE_HI		0x14
#define ENA_REG_AQ_CAPS			0x18
#define ENA_REG_ACQ_BASE_LO		0x20
#define ENA_REG_ACQ_BASE_HI		0x24
#define ENA_REG_ACQ_CAPS		0x28
#define   ENA_QCAPS_DEPTH		GENMASK(15, 0)
#define   ENA_QCAPS_ENTRY_SIZE		GENMASK(31, 16)
#define ENA_REG_AQ_DB			0x2c
#define ENA_REG_ACQ_TAIL		0x30
#define ENA_REG_AENQ_CAPS		0x34
#define ENA_REG_AENQ_BASE_LO		0x38
#define ENA_REG_AENQ_BASE_HI		0x3c
#define ENA_REG_AENQ_HEAD_DB		0x40
#define ENA_REG_AENQ_TAIL		0x44
#define ENA_REG_INTR_MASK		0x4c
#define   ENA_INTR_MASK_MGMT		BIT(0)
#define ENA_REG_DEV_CTL			0x54
#define   ENA_DEV_CTL_RESET		BIT(0)
#define   ENA_DEV_CTL_AQ_RESTART	BIT(1)
#define   ENA_DEV_CTL_QUIESCENT		BIT(2)
#define   ENA_DEV_CTL_IO_RESUME		BIT(3)
#define   ENA_DEV_CTL_REASON_EXT	GENMASK(27, 24)	/* reason bits 7:4 */
#define   ENA_DEV_CTL_REASON		GENMASK(31, 28)	/* reason bits 3:0 */
#define ENA_REG_DEV_STS			0x58
#define   ENA_DEV_STS_READY		BIT(0)
#define   ENA_DEV_STS_AQ_RESTARTING	BIT(1)
#define   ENA_DEV_STS_AQ_RESTARTED	BIT(2)
#define   ENA_DEV_STS_RESETTING		BIT(3)
#define   ENA_DEV_STS_RESET_DONE	BIT(4)
#define   ENA_DEV_STS_FATAL		BIT(5)
#define   ENA_DEV_STS_QUIESCING		BIT(6)
#define   ENA_DEV_STS_QUIESCED		BIT(7)
#define ENA_REG_MMIO_READ		0x5c
#define   ENA_MMIO_READ_REQ_ID		GENMASK(15, 0)
#define   ENA_MMIO_READ_OFF		GENMASK(31, 16)
#define ENA_REG_MMIO_RESP_LO		0x60
#define ENA_REG_MMIO_RESP_HI		0x64
#define ENA_REG_RSS_IND_UPDATE		0x68

/* Reasons a driver gives in DEV_CTL when it resets the device. */
enum ena_reset_reason {
	ENA_RESET_NORMAL		= 0,
	ENA_RESET_KEEP_ALIVE_TO		= 1,
	ENA_RESET_ADMIN_TO		= 2,
	ENA_RESET_MISS_TX_CMPL		= 3,
	ENA_RESET_INV_RX_REQ_ID		= 4,
	ENA_RESET_INV_TX_REQ_ID		= 5,
	ENA_RESET_TOO_MANY_RX_DESCS	= 6,
	ENA_RESET_INIT_ERR		= 7,
	ENA_RESET_DRIVER_INVALID_STATE	= 8,
	ENA_RESET_OS_TRIGGER		= 9,
	ENA_RESET_OS_NETDEV_WD		= 10,
	ENA_RESET_SHUTDOWN		= 11,
	ENA_RESET_USER_TRIGGER		= 12,
	ENA_RESET_GENERIC		= 13,
	ENA_RESET_MISS_INTERRUPT	= 14,
	/* 16 and above need DEV_CTL's extended field (ENA_DEV_CTL_REASON_EXT) */
	ENA_RESET_MISSING_ADMIN_INTERRUPT = 18,
	ENA_RESET_DEVICE_REQUEST	= 19,
};

/*
 * The ethtool -d dump: BAR0 up to ENA_REGS_DUMP_WINDOW, each register at its
 * own offset (holes 0, a register that could not be read all ones), then a
 * word with a bit per register read (bit n: offset 4 * n) and a word with a
 * bit per register that could not be read.  ethtool's regs->version: the
 * layout version and the device's VERSION register at the last bring-up.
 */
#define ENA_REGS_DUMP_WINDOW		0x70
#define ENA_REGS_DUMP_TRIED		(ENA_REGS_DUMP_WINDOW / 4)
#define ENA_REGS_DUMP_FAILED		(ENA_REGS_DUMP_TRIED + 1)
#define ENA_REGS_DUMP_WORDS		(ENA_REGS_DUMP_FAILED + 1)
#define ENA_REGS_DUMP_LAYOUT		1
#define   ENA_REGS_DUMP_VER_LAYOUT	GENMASK(31, 24)
#define   ENA_REGS_DUMP_VER_DEVICE	GENMASK(15, 0)

/* PCI revision bit 0: the device cannot answer readless register reads. */
#define ENA_PCI_REV_NO_READLESS		BIT(0)

#endif /* _ENA_REGS_H_ */
