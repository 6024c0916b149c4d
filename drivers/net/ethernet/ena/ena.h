/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ENA driver: the adapter, queue pairs and the functions each file offers.
 */
#ifndef _ENA_H_
#define _ENA_H_

#include <linux/bitops.h>
#include <linux/bpf.h>
#include <linux/completion.h>
#include <linux/dim.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/interrupt.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/rtnetlink.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/xdp.h>

#include "ena_admin.h"
#include "ena_io.h"
#include "ena_poll.h"
#include "ena_regs.h"
#include "ena_compat.h"

#define ENA_DRV_NAME			"ena"
#define ENA_DRV_VERSION_MAJOR		0
#define ENA_DRV_VERSION_MINOR		3
#define ENA_DRV_VERSION_SUBMINOR	0

/* Sizing, named in one place */
#define ENA_MAX_QUEUES			128
#define ENA_DEFAULT_RING_SIZE		1024
#define ENA_MIN_RING_SIZE		256
#define ENA_AQ_DEPTH			32
#define ENA_AENQ_DEPTH			16
#define ENA_MGMT_VECTOR			0
#define ENA_IO_VECTOR(qid)		((qid) + 1)
#define ENA_NAPI_BUDGET			64
#define ENA_RSS_TABLE_LOG		7
#define ENA_RSS_TABLE_SIZE		BIT(ENA_RSS_TABLE_LOG)
#define ENA_MIN_MTU			128
#define ENA_TX_MAX_BUFS			(MAX_SKB_FRAGS + 1)
/* descriptors one packet may need: a meta descriptor plus its buffers */
#define ENA_TX_MAX_DESCS		(ENA_TX_MAX_BUFS + 1)
#define ENA_RX_HEADROOM			NET_SKB_PAD
/*
 * Each RX descriptor gets a 2 KiB slice of a page_pool page (two per 4 KiB
 * page): headroom, up to 1664 bytes of frame, room for skb_shared_info.
 * No MTU needs another size: a larger frame spans descriptors.  Kernels
 * whose page_pool cannot split pages get a whole page (ena_compat.h).
 */
#define ENA_RX_FRAG_SIZE		ENA_PP_SLICE(2048)
#define ENA_RX_MAX_DESCS_PER_PKT	16
/*
 * RX buffers a queue start posts itself (under RTNL when called from
 * ndo_open); NAPI posts the rest of the ring right after (ena_txrx.c)
 */
#define ENA_RX_START_FILL		64
/*
 * With an XDP program each RX descriptor gets a whole page: the program's
 * headroom, up to this much of a frame, room for skb_shared_info.  A
 * program that takes multi-buffer frames (BPF_F_XDP_HAS_FRAGS) gets larger
 * frames over several buffers; any other keeps the MTU within one (the
 * in-tree driver's bound for every program).
 */
#define ENA_XDP_FRAG_SIZE		PAGE_SIZE
#define ENA_XDP_MAX_MTU			(ENA_XDP_FRAG_SIZE - ETH_HLEN - ETH_FCS_LEN - \
					 VLAN_HLEN - XDP_PACKET_HEADROOM - \
					 SKB_DATA_ALIGN(sizeof(struct skb_shared_info)))
/*
 * Frames up to this many bytes in one buffer are copied into a new small
 * skb and their buffer goes straight back to the page pool (ethtool
 * --set-tunable rx-copybreak); the in-tree driver's default.
 */
#define ENA_RX_COPYBREAK_DEFAULT	(256 - NET_IP_ALIGN)
/*
 * Interrupt moderation at start, the in-tree driver's values: the device
 * holds a queue's interrupt this long after the unmask (RX: until DIM
 * chooses, or for good with adaptive-rx off).
 */
#define ENA_RX_USECS_DEFAULT		20
#define ENA_TX_USECS_DEFAULT		64
#define ENA_TX_CQ_ENTRY_WORDS		(sizeof(struct ena_tx_cdesc) / 4)
#define ENA_RX_CQ_ENTRY_WORDS		(sizeof(struct ena_rx_cdesc) / 4)
/* Health */
#define ENA_KEEP_ALIVE_TIMEOUT_MS	6000
#define ENA_WATCHDOG_PERIOD		HZ
#define ENA_TX_TIMEOUT			(5 * HZ)
/* in-tree defaults; the device's hints may change them */
#define ENA_MISSED_TX_MS		5000
#define ENA_MISSED_TX_THRESHOLD		128
/* admin exchanges in a row whose interrupt never came: reset the device */
#define ENA_ADMIN_IRQ_MISSED_RESET	3
/* ethtool msglvl at probe: the in-tree driver's classes */
#define ENA_MSG_DEFAULT			(NETIF_MSG_DRV | NETIF_MSG_PROBE | \
					 NETIF_MSG_IFUP | NETIF_MSG_IFDOWN | \
					 NETIF_MSG_TX_ERR | NETIF_MSG_RX_ERR)

/* the devlink health reporters, one per class of fault (ena_devlink.c) */
enum ena_reporter {
	ENA_REP_TX,
	ENA_REP_RX,
	ENA_REP_ADMIN,
	ENA_REP_DEVICE,
	ENA_REPORTERS,
};

struct devlink;
struct devlink_health_reporter;

/* probe milestones, timed for debugfs "probe" */
enum ena_probe_step {
	ENA_PROBE_MAPPED,	/* BARs, readless buffer, admin rings */
	ENA_PROBE_DEVICE,	/* reset + bring-up commands */
	ENA_PROBE_MSIX,		/* vectors, queue-pair structs, netdev setup */
	ENA_PROBE_MGMT_IRQ,	/* management interrupt, AENQ armed */
	ENA_PROBE_RSS,		/* RSS read and hash set */
	ENA_PROBE_HEALTH,	/* debugfs, watchdog */
	ENA_PROBE_REGISTERED,	/* register_netdev() returned */
	ENA_PROBE_STEPS,
};

/* adapter->flags */
enum ena_flag {
	ENA_F_READLESS,		/* registers read through DMA */
	ENA_F_ADMIN_READY,	/* admin queue programmed into the device */
	ENA_F_ADMIN_IRQ,	/* admin completions wake the waiter by IRQ */
	ENA_F_WANT_UP,		/* user asked for the interface up */
	ENA_F_QUEUES_UP,	/* IO queues allocated, running or starting */
	ENA_F_QUEUES_RUN,	/* IO queues started: carrier may be on */
	ENA_F_RESET_PENDING,	/* reset work queued and not finished */
	ENA_F_DEV_DEAD,		/* device must not get admin commands */
	ENA_F_DEV_QUIESCED,	/* dead device reset: no DMA until re-init */
	ENA_F_BUS_OFF,		/* bus mastering cleared: reset did not work */
	ENA_F_RSS_PUSHED,	/* hash function and input sent */
	ENA_F_LIVE,		/* probe done with setup: resets allowed */
	ENA_F_NAPI_UNSYNCED,	/* a NAPI was deleted, no grace period since */
	ENA_F_REMOVING,
};

/*
 * Counters of one queue index.
 *
 * These live as long as the adapter (allocated at probe, a few hundred bytes
 * per queue) so they survive the queue's memory being freed on stop.
 * Datapath counters are updated under @napi_sync (NAPI) or @xmit_sync (xmit
 * under the TX queue lock); memory counters change only under RTNL or in
 * NAPI refill (page counters) and are read with READ_ONCE.
 */
struct ena_queue_stats {
	struct u64_stats_sync napi_sync;
	u64 tx_packets;
	u64 tx_bytes;
	u64 tx_wakeups;		/* woken by completions */
	u64 tx_bad_req_id;
	u64 rx_packets;
	u64 rx_bytes;
	u64 rx_csum_good;
	u64 rx_csum_bad;
	u64 rx_csum_unchecked;	/* RXCSUM on, TCP/UDP, device did not check */
	u64 rx_alloc_fail;
	u64 rx_skb_alloc_fail;
	u64 rx_bad_desc_num;	/* more buffers than an skb holds */
	u64 rx_bad_req_id;
	u64 rx_bad_len;		/* completion length 0 or past the buffer */
	u64 rx_copybreak;	/* frames copied into a small skb */
	u64 rx_dropped;
	u64 napi_polls;
	u64 napi_completes;
	u64 unmasks;
	u64 page_allocs;
	u64 page_frees;
	u64 rx_fill_deferred;	/* buffers NAPI posted to finish a start's fill */
	/* XDP verdicts of RX frames, and the XDP TX ring's completions */
	u64 xdp_pass;
	u64 xdp_drop;
	u64 xdp_tx;
	u64 xdp_redirect;
	u64 xdp_aborted;
	u64 xdp_invalid;	/* frames XDP cannot take: several buffers */
	u64 xdp_multibuf;	/* frames of several buffers the program ran on */
	u64 xdp_tx_packets;
	u64 xdp_tx_bytes;
	u64 xdp_tx_bad_req_id;

	/* the XDP TX ring's producers, under qp->xdp_lock */
	struct u64_stats_sync xdp_sync;
	u64 xdp_tx_doorbells;
	u64 xdp_tx_full;	/* frames dropped: no room in the XDP TX ring */
	u64 xdp_tx_prepare_err;	/* ... of those: ring full or too many buffers */
	u64 xdp_tx_dma_err;
	u64 xdp_xmit;		/* frames taken by ndo_xdp_xmit (redirect target) */

	struct u64_stats_sync xmit_sync;
	u64 tx_stops;
	u64 tx_restarts;	/* woken again in xmit right after a stop */
	u64 tx_linearize;
	u64 tx_linearize_failed;
	u64 tx_llq_hdr_pull;	/* LLQ header pulled into the linear part */
	u64 tx_dropped;
	u64 tx_dma_err;
	u64 tx_doorbells;
	u64 tx_needs_csum;	/* the device computes the L4 checksum */
	u64 tx_prepare_err;	/* no room in the ring although the queue ran */

	/* memory life cycle */
	u64 ring_bytes;
	u64 dma_allocs;
	u64 dma_frees;
	u64 starts;
	u64 stops;
	u64 rx_empty_kicks;	/* starved ring polled by the watchdog (RTNL) */
	u64 tx_missed;		/* late TX completions (watchdog, RTNL) */
};

/* how a TX buffer was mapped, so its completion unmaps it the same way */
enum ena_tx_map_kind {
	ENA_MAP_SINGLE,		/* dma_map_single() */
	ENA_MAP_PAGE,		/* skb_frag_dma_map() */
	ENA_MAP_POOL,		/* a page_pool page (XDP_TX): the pool owns the map */
};

struct ena_tx_map {
	dma_addr_t addr;
	u32 len;
	u8 kind;		/* enum ena_tx_map_kind */
};

struct ena_tx_buf {
	struct sk_buff *skb;
	struct xdp_frame *xdpf;	/* instead of @skb on an XDP TX ring */
	unsigned long sent;	/* jiffies at xmit */
	bool missed;		/* counted as a missing completion */
	u16 descs;		/* SQ slots (descriptors or LLQ entries) */
	u8 nr_maps;
	struct ena_tx_map map[ENA_TX_MAX_BUFS];
};

struct ena_rx_buf {
	struct page *page;
	dma_addr_t dma;		/* where the device writes: slice + headroom */
	u32 offset;		/* of the slice in the page */
};

struct ena_txq {
	u32 depth;
	u32 sq_tail;		/* free running, in descriptors/entries */
	u32 sq_head;		/* slots the device is done with */
	u8 sq_phase;
	u8 cq_phase;
	bool llq;
	u16 sq_idx;
	u16 cq_idx;
	u32 cq_head;
	u32 cq_head_told;	/* last written to the CQ head doorbell */
	u32 next_to_use;	/* free_ids consumer */
	u32 next_to_clean;	/* free_ids producer */
	u32 max_slots;		/* SQ slots the largest packet needs */
	u32 unkicked;		/* SQ slots written since the last doorbell */
	struct ena_tx_desc *descs;	/* host placement */
	dma_addr_t descs_dma;
	u8 __iomem *llq_mem;		/* device placement */
	u8 *bounce;			/* one LLQ entry being built */
	struct ena_tx_cdesc *cq;
	dma_addr_t cq_dma;
	u32 __iomem *db;
	u32 __iomem *cq_db;
	u16 *free_ids;
	struct ena_tx_buf *bufs;
	struct netdev_queue *ndq;
};

struct ena_rxq {
	u32 depth;
	u32 sq_tail;
	u8 sq_phase;
	u8 cq_phase;
	u16 sq_idx;
	u16 cq_idx;
	u32 cq_head;
	u32 cq_head_told;	/* last written to the CQ head doorbell */
	u32 buf_len;
	u32 next_to_use;
	u32 next_to_clean;
	struct ena_rx_desc *descs;
	dma_addr_t descs_dma;
	struct ena_rx_cdesc *cq;
	dma_addr_t cq_dma;
	u32 __iomem *db;
	u32 __iomem *cq_db;
	u16 *free_ids;
	struct ena_rx_buf *bufs;
	struct page_pool *pool;
	u32 frag_size;		/* bytes of a page per descriptor */
	u32 headroom;		/* before the frame in each buffer */
	bool xdp;		/* laid out for XDP: page per buffer, bidirectional */
	struct sk_buff *skb;	/* packet spanning descriptors, not yet done */
	struct xdp_buff xbuf;	/* XDP frame spanning descriptors ... */
	bool xbuf_open;		/* ... being gathered in @xbuf */
	bool drop_rest;		/* discard descriptors up to the next LAST */
	bool fill_pending;	/* NAPI goes on filling the ring after a start */
};

/* qp->state */
enum ena_qp_state {
	ENA_QP_ALLOCATED,
	ENA_QP_STARTED,
	ENA_QP_KICK_DUE,	/* started; its first poll not yet scheduled */
};

/*
 * One IO queue pair: a TX ring, an RX ring, one NAPI, one
 * MSI-X vector.  Embedded in adapter->qps[] from probe on; ring memory is
 * attached by ena_qp_alloc() and dropped by ena_qp_free().
 */
struct ena_qp {
	struct ena_adapter *adapter;
	struct napi_struct napi;
	struct ena_txq tx;
	struct ena_rxq rx;
	/*
	 * XDP: the program NAPI runs (set while the RX ring has the XDP
	 * layout), the TX ring for XDP_TX and ndo_xdp_xmit (depth 0 without
	 * XDP), its producers' lock and whether it takes frames.
	 */
	struct bpf_prog *xdp_prog;
	struct ena_txq xdp_tx;
	spinlock_t xdp_lock;	/* XDP_TX and ndo_xdp_xmit on @xdp_tx */
	bool xdp_live;		/* under @xdp_lock */
	struct xdp_rxq_info xdp_rxq;
	struct ena_queue_stats *stats;
	u32 __iomem *unmask;
	unsigned long state;
	u16 qid;
	int node;
	int irq;
	char irq_name[IFNAMSIZ + 24];	/* <ifname>-Tx-Rx-<n> */
	/* watchdog state, under RTNL */
	u64 rx_fail_seen;	/* rx_alloc_fail at the last starvation check */
	u64 polls_seen;		/* napi_polls at the last look */
	u8 intr_strikes;	/* periods a completion waited with NAPI idle */
	/* interrupt moderation */
	struct dim dim;		/* adaptive RX moderation, sampled by NAPI */
	u16 dim_events;		/* completions after RX packets (DIM's events) */
	u32 dim_pkts;		/* RX packets since DIM's last sample */
	struct work_struct kick;	/* a start's first poll, outside RTNL */
	u32 rx_usecs;		/* RX delay the next unmask asks for */
};

/* rings of a queue pair that are not (or no longer) in use by it */
struct ena_qp_mem {
	struct ena_txq tx;
	struct ena_rxq rx;
	struct ena_txq xdp_tx;
	bool held;		/* @tx and @rx hold memory to free */
};

struct ena_admin_queue {
	struct mutex lock;	/* one command in flight */
	struct ena_aq_cmd *sq;
	dma_addr_t sq_dma;
	struct ena_acq_resp *cq;
	dma_addr_t cq_dma;
	u16 sq_tail;
	u16 cq_head;
	u8 sq_phase;
	u8 cq_phase;
	u16 next_cmd_id;
	u32 timeout_us;
	struct completion done;	/* completed by the management IRQ */
	u64 polled_cmds;	/* commands served by polling */
	u64 irq_cmds;		/* commands served by the interrupt */
	u64 irq_missed;		/* exchanges completed with no interrupt */
	u32 irq_missed_streak;	/* ... in a row, under @lock */
	u64 errors;		/* non-zero completion status */
	u64 malformed;		/* completions that failed validation */
	u64 submitted;		/* commands written to the queue */
	u64 completed;		/* completions consumed */
	u64 refused;		/* not submitted: device dead or not ready */
	u64 out_of_space;	/* not submitted: batch larger than the queue */
	u64 paused;		/* marked unusable (timeout, malformed): reset */
};

struct ena_aenq {
	spinlock_t lock;	/* IRQ handler vs. probe/reset */
	struct ena_aenq_entry *ring;
	dma_addr_t dma;
	u16 head;
	u8 phase;
	u64 events[ENA_AENQ_GROUPS + 1];	/* last slot: unknown groups */
};

struct ena_llq_cfg {
	bool enabled;
	u16 entry_size;		/* bytes */
	u16 descs_before_hdr;
	u16 descs_per_entry;
	u16 hdr_room;		/* header bytes that fit in the first entry */
	bool large_ok;		/* the device offers 256-byte entries */
	u32 dev_depth;		/* the device's maximum, in 128-byte entries */
	u32 max_depth;
	u32 max_num;
	u16 accel_flags;
	u16 max_tx_burst;
};

/*
 * LLQ entries: 128 bytes, or 256 ("large"); the first entry of a packet
 * holds two descriptors and then this much of the header.
 */
#define ENA_LLQ_ENTRY			128
#define ENA_LLQ_LARGE_ENTRY		256
#define ENA_LLQ_HDR_ROOM		(ENA_LLQ_ENTRY - 2 * 16)
#define ENA_LLQ_LARGE_HDR_ROOM		(ENA_LLQ_LARGE_ENTRY - 2 * 16)

/*
 * The LLQ depth the device allows with entries of @entry_size bytes: its
 * maximum counts 128-byte entries, and a 256-byte entry takes two.
 */
static inline u32 ena_llq_depth(const struct ena_llq_cfg *c, u32 entry_size)
{
	return c->dev_depth / (entry_size / ENA_LLQ_ENTRY);
}

/* the LLQ entries the largest packet takes */
static inline u32 ena_llq_pkt_slots(const struct ena_llq_cfg *c)
{
	if (c->descs_before_hdr >= ENA_TX_MAX_DESCS)
		return 1;
	return 1 + DIV_ROUND_UP(ENA_TX_MAX_DESCS - c->descs_before_hdr,
				c->descs_per_entry);
}

/* LLQ entry size: as the device recommends, or as ethtool -G set it */
enum ena_llq_large {
	ENA_LLQ_LARGE_AUTO,
	ENA_LLQ_LARGE_OFF,
	ENA_LLQ_LARGE_ON,
};

struct ena_adapter {
	struct pci_dev *pdev;
	struct net_device *netdev;
	u32 msg_enable;		/* ethtool msglvl: NETIF_MSG_* classes logged */
	void __iomem *regs;
	void __iomem *llq_bar;
	u32 regs_len;		/* BAR 0 bytes: bound of device-given offsets */
	u32 llq_len;		/* BAR 2 bytes, 0 without LLQ */
	unsigned long flags;
	struct ena_poll poll;
	struct ena_admin_queue aq;
	struct ena_aenq aenq;

	/* readless register reads */
	struct mutex mmio_lock;	/* one read in flight */
	struct ena_mmio_resp *mmio_resp;
	dma_addr_t mmio_resp_dma;
	u16 mmio_seq;
	u32 mmio_timeout_us;	/* the device's hint may change it */

	/* what the device said */
	u32 reset_timeout_us;
	u32 dma_width;
	u32 supported_features;
	u32 capabilities;
	u32 dev_version;	/* ENA_REG_VERSION at the last bring-up */
	u32 ctrl_version;	/* ENA_REG_CTRL_VERSION at the last bring-up */
	u8 mac[ETH_ALEN];
	u32 max_mtu;
	u32 dev_max_queues;
	u32 dev_max_tx_depth;
	u32 dev_max_rx_depth;
	u32 max_tx_sgl;
	u32 max_rx_sgl;
	u32 tx_max_header;
	u32 offload_tx;
	u32 offload_rx;
	u32 aenq_groups;
	u16 intr_delay_res;	/* us per moderation unit; 0: no moderation */
	/* ethtool -C, under RTNL; NAPI reads them with READ_ONCE */
	u32 rx_usecs;		/* RX delay when adaptive-rx is off */
	u32 tx_usecs;
	bool adaptive_rx;
	struct ena_feat_hw_hints hints;
	struct ena_llq_cfg llq;

	/* host info page, kept for re-sends after reset */
	struct ena_host_info *host_info;
	dma_addr_t host_info_dma;

	/* RSS */
	u32 rss_ind[ENA_RSS_TABLE_SIZE];	/* queue ids */
	struct ena_ind_entry *rss_dev_tbl;
	dma_addr_t rss_dev_tbl_dma;
	struct ena_hash_key_buf *hash_key;
	dma_addr_t hash_key_dma;
	struct ena_hash_input_buf *hash_input;
	dma_addr_t hash_input_dma;
	u8 hash_func;
	u32 hash_funcs_supported;

	/* configuration; changed under RTNL */
	u32 max_queues;		/* vectors, device, driver cap */
	u32 avail_queues;	/* of those, what the device offers now */
	u32 num_queues;		/* configured channels */
	u32 tx_ring_size;
	u32 rx_ring_size;
	u32 rx_copybreak;	/* bytes; read by NAPI with READ_ONCE */
	enum ena_llq_large llq_large;	/* under RTNL */
	/*
	 * devlink parameters (ena_devlink.c) kept here: @admin_irq changes
	 * at reload only (under RTNL), @open_async at any time (read once
	 * per open); @llq_large_dl is the large_llq_header value the last
	 * probe or reload applied.
	 */
	bool admin_irq;
	bool open_async;
	bool llq_large_dl;
	struct bpf_prog *xdp_prog;	/* attached program (one reference), RTNL */
	struct ena_qp *qps;			/* [max_queues] */
	struct ena_queue_stats *qstats;		/* [max_queues] */

	int num_vectors;
	char mgmt_irq_name[32];

	/* health */
	struct delayed_work watchdog;
	unsigned long last_keep_alive;
	u32 keep_alive_timeout_ms;
	u32 missed_tx_ms;		/* a TX completion later than this is missing */
	u32 missed_tx_threshold;	/* missing in one queue: reset */
	unsigned long hints_clamped;	/* hint fields already logged as bad */
	u64 missed_intrs;
	struct work_struct reset_work;
	struct work_struct up_work;	/* an open's queue start, outside RTNL */
	spinlock_t health_lock;	/* reset queueing vs. ena_health_stop() */
	unsigned long reset_retry_at;	/* jiffies: next try after a failure */
	u32 reset_fail_streak;		/* failed resets since the last good one */
	enum ena_reset_reason reset_reason;
	const char *reset_why;		/* the log text of the last reset asked */
	/*
	 * devlink (ena_devlink.c): the instance, its health reporters, and
	 * the work that reports each scheduled reset through them.
	 * @devlink_live says whether reports may go to devlink (registered),
	 * under @report_lock, which a report holds throughout.
	 */
	struct devlink *devlink;
	struct devlink_health_reporter *reporters[ENA_REPORTERS];
	struct work_struct report_work;
	struct mutex report_lock;	/* a report vs. devlink unregister */
	bool devlink_live;
	u64 reports;			/* resets reported through devlink */
	u64 reports_parked;		/* ... that left the device down */
	u64 resets;
	u64 resets_failed;
	u64 dev_bad_answers;	/* admin answers with impossible values */
	u64 suspends;		/* system sleep and hibernation */
	u64 resumes;
	u64 link_changes;
	bool link_up;		/* device's last LINK_CHANGE, under aenq.lock */
	u64 dev_rx_drops;
	u64 dev_tx_drops;
	u64 dev_rx_overruns;
	u64 tx_timeouts;
	u64 wd_expired;		/* keep-alive timeouts */
	u64 interface_up;	/* successful opens */
	u64 interface_down;	/* closes */

	/*
	 * Device statistics of ethtool -S (GET_STATS ENI, SRD, customer
	 * metrics): which ones follow capabilities and cm_supported, both set
	 * by ena_device_init(); the values are the last the device gave.  All
	 * under RTNL.
	 */
	u64 cm_supported;		/* customer metric ids the device reports */
	__le64 *cm_buf;			/* their values, written by the device */
	dma_addr_t cm_buf_dma;
	u64 metric_val[ENA_METRICS];	/* ENI statistics / customer metrics */
	u64 srd_val[ENA_SRD_WORDS];
	u64 dev_stats_failed;		/* reads failed, refused or rejected */

	struct dentry *debugfs;
	u32 inject_rx_alloc_fail;	/* debugfs: RX allocations to fail */
	u64 probe_us;
	u32 probe_step_us[ENA_PROBE_STEPS];	/* time since probe start */
};

/* ena_com.c: registers, readless reads, reset, admin queue */
void ena_reg_write(struct ena_adapter *a, u32 off, u32 val);
void ena_reg_write_ring(struct ena_adapter *a, u32 base_lo, u32 caps_reg,
			dma_addr_t dma, u32 depth, u32 entry_size);
int ena_reg_read(struct ena_adapter *a, u32 off, u32 *val);
void ena_regs_dump(struct ena_adapter *a, u32 *buf);
int ena_mmio_init(struct ena_adapter *a);
void ena_mmio_program(struct ena_adapter *a);
void ena_mmio_forget(struct ena_adapter *a);
void ena_mmio_fini(struct ena_adapter *a);
int ena_dev_reset(struct ena_adapter *a, enum ena_reset_reason reason);
void ena_dev_cut_off(struct ena_adapter *a);
int ena_admin_alloc(struct ena_adapter *a);
void ena_admin_program(struct ena_adapter *a);
void ena_admin_free(struct ena_adapter *a);
void ena_admin_irq_mode(struct ena_adapter *a, bool on);
bool ena_param_admin_irq(void);
void ena_admin_irq(struct ena_adapter *a);
int ena_admin_exec_many(struct ena_adapter *a, struct ena_aq_cmd *cmd,
			struct ena_acq_resp *resp, int *rcs, unsigned int n);
int ena_admin_exec(struct ena_adapter *a, struct ena_aq_cmd *cmd,
		   struct ena_acq_resp *resp);
bool ena_feature_supported(struct ena_adapter *a, enum ena_feature id);
/**
 * struct ena_feat_get - one GET_FEATURE of a batch (ena_get_features())
 * @id: feature
 * @version: feature version asked for
 * @buf: DMA address of the control buffer, or 0
 * @buf_len: its length, or 0
 * @resp: the completion (valid when @rc is 0)
 * @rc: 0, -EOPNOTSUPP when the device does not list the feature, or the
 *	errno of the command's completion status
 */
struct ena_feat_get {
	enum ena_feature id;
	u8 version;
	dma_addr_t buf;
	u32 buf_len;
	struct ena_acq_resp resp;
	int rc;
};

#define ENA_FEAT_GET_MAX	8

int ena_get_features(struct ena_adapter *a, struct ena_feat_get *g,
		     unsigned int n);
int ena_get_feature(struct ena_adapter *a, enum ena_feature id, u8 version,
		    dma_addr_t buf, u32 buf_len, struct ena_acq_resp *resp);
int ena_set_feature(struct ena_adapter *a, struct ena_aq_cmd *cmd,
		    enum ena_feature id, dma_addr_t buf, u32 buf_len);
void ena_set_feature_cmd(struct ena_aq_cmd *cmd, enum ena_feature id,
			 dma_addr_t buf, u32 buf_len);
void ena_set_dma_addr(struct ena_dma_addr *d, dma_addr_t addr);
const char *ena_feature_name(enum ena_feature id);

/* ena_aenq.c: the asynchronous event notification queue */
int ena_aenq_alloc(struct ena_adapter *a);
void ena_aenq_program(struct ena_adapter *a);
void ena_aenq_free(struct ena_adapter *a);
void ena_aenq_enable(struct ena_adapter *a);
void ena_aenq_process(struct ena_adapter *a);

/* ena_pci.c: the management interrupt, armed and disarmed as one pair */
void ena_mgmt_arm(struct ena_adapter *a);
void ena_mgmt_quiesce(struct ena_adapter *a);
int ena_pm_cycle(struct ena_adapter *a);	/* debugfs: suspend + resume */

/* ena_order.c: parallel probing, interfaces registered in PCI order */
void ena_order_init(struct pci_driver *drv);
void ena_order_fini(void);
void ena_order_wait(struct pci_dev *pdev);
void ena_order_done(struct pci_dev *pdev);

/* ena_device.c: the bring-up command sequence shared by probe and reset */
int ena_device_init(struct ena_adapter *a, enum ena_reset_reason reason);
void ena_device_fini(struct ena_adapter *a);
int ena_set_mtu_dev(struct ena_adapter *a, u32 mtu);
void ena_host_info_features(struct ena_adapter *a);

/* ena_rss.c */
int ena_rss_probe(struct ena_adapter *a);
void ena_rss_free(struct ena_adapter *a);
void ena_rss_default_table(struct ena_adapter *a, u32 nq);
void ena_rss_spread(struct ena_adapter *a, u32 nq);
int ena_rss_push(struct ena_adapter *a);
int ena_rss_push_with(struct ena_adapter *a, struct ena_aq_cmd *extra,
		      int *extra_rc);
int ena_rss_set_hash(struct ena_adapter *a, u8 func, const u8 *key);
int ena_rss_get_flow_hash(struct ena_adapter *a, u32 flow_type, u64 *data);
int ena_rss_set_flow_hash(struct ena_adapter *a, u32 flow_type, u64 data);

/* ena_queue.c: one queue pair's memory life cycle */
int ena_qp_alloc(struct ena_adapter *a, u16 qid, u32 tx_depth, u32 rx_depth);
int ena_qps_start(struct ena_adapter *a, u16 from, u16 to);
void ena_qps_kick(struct ena_adapter *a, u16 from, u16 to);
int ena_qp_start(struct ena_adapter *a, u16 qid);
void ena_qp_stop(struct ena_adapter *a, u16 qid);
void ena_qp_free(struct ena_adapter *a, u16 qid);
int ena_qp_mem_prepare(struct ena_adapter *a, u16 qid, u32 tx_depth,
		       u32 rx_depth, bool xdp, struct ena_qp_mem *m);
void ena_qp_mem_release(struct ena_adapter *a, u16 qid, struct ena_qp_mem *m);
int ena_qp_swap(struct ena_adapter *a, u16 qid, struct ena_qp_mem *m);

/* ena_xdp.c: XDP programs, XDP_TX and ndo_xdp_xmit */
int ena_bpf(struct net_device *nd, struct netdev_bpf *bpf);
int ena_xdp_xmit(struct net_device *nd, int n, struct xdp_frame **frames,
		 u32 flags);
u32 ena_xdp_max_channels(const struct ena_adapter *a);
bool ena_xdp_queues_ok(const struct ena_adapter *a, u32 n);
void ena_xdp_features(struct ena_adapter *a);
void ena_xdp_prog_apply(struct ena_adapter *a);
u32 ena_xdp_run(struct ena_qp *qp, struct bpf_prog *prog,
		struct xdp_buff *xdp, u32 *done);
void ena_xdp_finish(struct ena_qp *qp, u32 done);
void ena_xdp_kick(struct ena_qp *qp);
void ena_xdp_buff_put(struct ena_qp *qp, struct xdp_buff *xdp, bool napi);
bool ena_xdp_frag_add(struct ena_rxq *rx, struct page *page, u32 off, u32 len);
struct sk_buff *ena_xdp_build_skb(struct xdp_buff *xdp);
void ena_xdp_tx_stop(struct ena_qp *qp);

static inline bool ena_xdp_on(const struct ena_adapter *a)
{
	return !!a->xdp_prog;
}

/* ena_txrx.c: datapath */
netdev_tx_t ena_start_xmit(struct sk_buff *skb, struct net_device *netdev);
int ena_tx_post_frame(struct ena_qp *qp, struct xdp_frame *xdpf,
		      dma_addr_t pool_dma);
void ena_tx_doorbell(struct ena_txq *tx);
int ena_napi_poll(struct napi_struct *napi, int budget);
irqreturn_t ena_io_irq(int irq, void *data);
int ena_rx_refill(struct ena_qp *qp, u32 n, gfp_t gfp);
void ena_tx_drain(struct ena_qp *qp, struct ena_txq *tx);
void ena_rx_drain(struct ena_qp *qp);
void ena_unmask_irq(struct ena_qp *qp);
void ena_dim_start(struct ena_qp *qp);
void ena_rx_usecs_reset(struct ena_qp *qp);

/* ena_netdev.c */
void ena_netdev_setup(struct ena_adapter *a);

u32 ena_rx_buf_len(bool xdp);

/**
 * ena_dev_max_mtu() - the largest MTU the device takes
 * @a: the adapter
 *
 * What the device names (ETH_DATA_LEN when it names none), and no more
 * than a frame that fits the RX buffers one frame may fill (max_rx_sgl):
 * the device drops a longer one.
 */
static inline u32 ena_dev_max_mtu(const struct ena_adapter *a)
{
	u32 mtu = a->max_mtu ? a->max_mtu : ETH_DATA_LEN;

	if (a->max_rx_sgl)
		mtu = min(mtu, a->max_rx_sgl * ena_rx_buf_len(false) -
			       ETH_HLEN - VLAN_HLEN);
	return mtu;
}

/* the MTU the attached program allows: the device's, or one buffer's */
static inline u32 ena_xdp_max_mtu(const struct ena_adapter *a)
{
	if (a->xdp_prog && !ena_prog_takes_frags(a->xdp_prog))
		return min_t(u32, ENA_XDP_MAX_MTU, ena_dev_max_mtu(a));
	return ena_dev_max_mtu(a);
}

int ena_up(struct ena_adapter *a);
void ena_up_wait(struct ena_adapter *a);
void ena_up_init(struct ena_adapter *a);
void ena_down(struct ena_adapter *a);
int ena_set_channels_live(struct ena_adapter *a, u32 new_count);
int ena_set_llq_large(struct ena_adapter *a, bool large, u32 tx, u32 rx);
bool ena_param_open_async(void);
int ena_set_rings_live(struct ena_adapter *a, u32 tx, u32 rx,
		       struct netlink_ext_ack *extack);
int ena_rings_rebuild(struct ena_adapter *a, u32 tx, u32 rx, bool xdp,
		      struct netlink_ext_ack *extack);
void ena_link_update(struct ena_adapter *a, bool up);
void ena_link_carrier(struct ena_adapter *a, bool queues_up);
int ena_reconcile(struct ena_adapter *a);
u32 ena_max_rx_ring(const struct ena_adapter *a);
u32 ena_max_tx_ring(const struct ena_adapter *a);
u32 ena_max_tx_ring_for(const struct ena_adapter *a, u32 entry_size);

/* ena_health.c: the watchdog (device and queue checks) */
void ena_health_init(struct ena_adapter *a);
void ena_health_start(struct ena_adapter *a);
void ena_health_stop(struct ena_adapter *a);
void ena_keep_alive(struct ena_adapter *a);
void ena_hints_apply(struct ena_adapter *a,
		     const struct ena_feat_hw_hints *h, bool event);

/* ena_reset.c: device reset and recovery */
void ena_reset_init(struct ena_adapter *a);
int ena_dev_restore(struct ena_adapter *a, enum ena_reset_reason reason);
void ena_reset_schedule(struct ena_adapter *a, enum ena_reset_reason reason,
			const char *why);
void ena_reset_retry(struct ena_adapter *a);
int ena_reset_run(struct ena_adapter *a, bool only_pending);
void ena_reset_park(struct ena_adapter *a);
int ena_reload(struct ena_adapter *a, bool admin_irq, int llq_large,
	       struct netlink_ext_ack *extack);

/* ena_devlink.c: devlink instance, info and health reporters */
int ena_devlink_alloc(struct ena_adapter *a);
void ena_devlink_free(struct ena_adapter *a);
int ena_devlink_reporters_create(struct ena_adapter *a);
void ena_devlink_reporters_destroy(struct ena_adapter *a);
void ena_devlink_register(struct ena_adapter *a);
void ena_devlink_unregister(struct ena_adapter *a);
void ena_devlink_report_work(struct work_struct *w);
void ena_devlink_recovered(struct ena_adapter *a);
int ena_devlink_params_register(struct ena_adapter *a);
void ena_devlink_params_unregister(struct ena_adapter *a);
void ena_params_deprecation_note(void);
enum ena_reporter ena_reason_reporter(enum ena_reset_reason reason);

/* ena_stats.c: the one list of counters, for ethtool -S and debugfs */
typedef void (*ena_stat_emit_t)(void *ctx, const char *name, u64 val);
void ena_stats_walk(struct ena_adapter *a, ena_stat_emit_t emit, void *ctx);
u32 ena_stats_count(struct ena_adapter *a);
void ena_dev_stats_init(struct ena_adapter *a);
void ena_dev_stats_refresh(struct ena_adapter *a);
void ena_dev_stats_free(struct ena_adapter *a);
void ena_stat_ops_set(struct net_device *nd);

/* ena_ethtool.c */
void ena_ethtool_set_ops(struct net_device *netdev);

/* ena_debugfs.c */
void ena_debugfs_module_init(void);
void ena_debugfs_module_exit(void);
void ena_debugfs_add(struct ena_adapter *a);
void ena_debugfs_remove(struct ena_adapter *a);

/**
 * ena_tx_meta_always() - every packet of @tx needs a meta descriptor
 * @a: the adapter
 * @tx: a TX ring
 *
 * A device that disables meta caching (an LLQ acceleration) keeps no meta
 * descriptor from one packet to the next: each packet of an LLQ ring
 * brings its own, an empty one when it asks for no offload.
 */
static inline bool ena_tx_meta_always(const struct ena_adapter *a,
				      const struct ena_txq *tx)
{
	return tx->llq && (a->llq.accel_flags & ENA_LLQ_ACCEL_NO_META_CACHE);
}

/**
 * ena_llq_burst_full() - an LLQ burst would pass the device's limit
 * @a: adapter
 * @tx: a TX ring (LLQ or not)
 * @next: entries the next packet may take
 *
 * The device takes at most its burst size (bytes of LLQ entries, 0 for no
 * limit) between two doorbells; the doorbell must come before a packet
 * that would pass it.
 */
static inline bool ena_llq_burst_full(const struct ena_adapter *a,
				      const struct ena_txq *tx, u32 next)
{
	if (!tx->llq || !a->llq.max_tx_burst)
		return false;
	return tx->unkicked + next > a->llq.max_tx_burst / a->llq.entry_size;
}

static inline bool ena_rt_qp_up(const struct ena_qp *qp)
{
	return test_bit(ENA_QP_STARTED, &qp->state);
}

#endif /* _ENA_H_ */
