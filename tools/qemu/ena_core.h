/*
 * Amazon Elastic Network Adapter (ENA) device model: the device core
 *
 * EnaCore is the device without its QEMU glue: a BAR0 register file with
 * "readless" register reads, a reset state machine, an admin
 * submission/completion queue pair with phase bits, an asynchronous event
 * queue (link change, keep-alive), IO submission/completion queues in host
 * memory and, for TX, in device memory (LLQ, BAR2), their interrupts, the
 * knobs and the counters.  ena.c (TYPE_ENA) owns one, passes it MMIO,
 * frames and resets, and points its QOM properties at its fields.  The
 * core reaches the PCI function and the network only through the helpers
 * at the end of this file.
 *
 * Its units: ena_core.c (registers, LLQ memory, lifecycle), ena_admin.c
 * (reset, admin queue, features, AENQ, keep-alive), ena_io.c (IO queues,
 * doorbells, LLQ, RSS, RX, TX, IO interrupts), ena_faults.c (protocol
 * errors, fuzzing, fault injection), ena_stats.c (counters, reaction-time
 * samples); ena_int.h has what they call of each other.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_NET_ENA_CORE_H
#define HW_NET_ENA_CORE_H

#include "qemu/units.h"
#include "qemu/timer.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/msix.h"
#include "net/net.h"
#include "qom/object.h"

#include "ena-hw.h"

#define ENA_MAX_QUEUES_LIMIT    128
#define ENA_DEPTH_LIMIT         16384
#define ENA_LLQ_DEPTH_LIMIT     4096
#define ENA_TX_DEPTH_DEFAULT    1024    /* max-tx-depth */
#define ENA_LLQ_BURST_BYTES     2048    /* llq-max-burst default */
#define ENA_ADMIN_DEPTH_LIMIT   256
#define ENA_ADMIN_ENGINES       32      /* admin-parallel bound */
#define ENA_AENQ_DEPTH_LIMIT    1024
#define ENA_TX_FRAME_MAX        (64 * KiB + 256)
#define ENA_PKT_DESCS_MAX       64
/* kinds of completion an interrupt of a vector announces */
#define ENA_PEND_RX             1
#define ENA_PEND_TX             2
#define ENA_RX_DESCS_PER_PKT    32

/* what device fuzzing corrupts (fuzz-seed); one kind armed at a time */
enum {
    ENA_FUZZ_RX_REQID,      /* RX completion for a req_id never posted */
    ENA_FUZZ_RX_LEN,        /* RX completion length 0 or beyond any buffer */
    ENA_FUZZ_TX_REQID,      /* TX completion for a req_id never posted */
    ENA_FUZZ_ADMIN_ID,      /* admin completion with an unknown command id */
    ENA_FUZZ_IRQ_DROP,      /* IO interrupt lost, vector left masked */
    ENA_FUZZ_ADMIN_SIZE,    /* MAX_QUEUES_EXT answer with impossible limits */
    ENA_FUZZ_KINDS,
};

/*
 * Fault injection points: each is armed by the fault-* property of its
 * entry in ena_fault_points[] and fires where the device reaches it
 * (ena_fault_take()).
 */
typedef enum EnaFault {
    ENA_FAULT_DROP_NEXT,
    ENA_FAULT_DELAY_NEXT,
    ENA_FAULT_MALFORMED,
    ENA_FAULT_ADMIN_IRQ_LOST,
    ENA_FAULT_CQ_DEPTH,
    ENA_FAULT_CQ_NO_UNMASK,
    ENA_FAULT_BAD_DB,
    ENA_FAULT_TX_SWALLOW,
    ENA_FAULT_TX_BAD_REQID,
    ENA_FAULT_RX_BAD_REQID,
    ENA_FAULT_RX_BAD_LEN,
    ENA_FAULT_RX_RUNT,
    ENA_FAULT_IO_IRQ_DROP,
    ENA_FAULT_MMIO_DROP,
    ENA_FAULT_POINTS,
} EnaFault;

typedef struct EnaFaultPoint {
    const char *prop;       /* the uint32 QOM property that arms it */
    /*
     * 0: the property counts the times it fires, down to 0; else it fires
     * once with the property's value (1..once_max) and clears it.
     */
    uint32_t once_max;
    const char *what;       /* what the device does (the description) */
} EnaFaultPoint;

extern const EnaFaultPoint ena_fault_points[ENA_FAULT_POINTS];

/*
 * Protocol errors: what a driver did that the device interface forbids,
 * by the part of the interface it broke (ena_guest_error()).  Each is
 * counted and logged; a test that provokes one on purpose names its kind
 * in expect-guest-errors for as long as it may occur.
 */
typedef enum EnaErrKind {
    ENA_ERR_MMIO,           /* register access */
    ENA_ERR_ADMIN,          /* admin queue use, opcodes, phases */
    ENA_ERR_FEATURE,        /* SET_FEATURE and GET_STATS arguments */
    ENA_ERR_QUEUE,          /* IO queue CREATE/DESTROY arguments and order */
    ENA_ERR_DOORBELL,       /* IO doorbells and interrupt unmasks */
    ENA_ERR_TX,             /* TX descriptors and packets */
    ENA_ERR_LLQ,            /* device-memory (LLQ) accesses */
    ENA_ERR_RX,             /* RX descriptors */
    ENA_ERR_KINDS,
} EnaErrKind;
#define ENA_ERR_LOG_LINES       50      /* logged per kind, then counted */
#define ENA_MAX_MTU             9216
#define ENA_L2_OVERHEAD         18      /* Ethernet header and a VLAN tag */
#define ENA_TX_DELAY_US         15      /* tx-completion-delay-us default */
#define ENA_REACT_SAMPLES       4096
#define ENA_RESET_HISTORY       32      /* reasons kept (reset-reasons) */
#define ENA_OPCODES             12

typedef struct EnaCore EnaCore;

/* what a vector's moderation timer fires for */
typedef struct EnaVecTimer {
    EnaCore *core;
    uint16_t vector;
} EnaVecTimer;

/* what a TX queue's service timer fires for */
typedef struct EnaSqTimer {
    EnaCore *core;
    uint32_t sq;
} EnaSqTimer;

typedef struct EnaCq {
    bool live;
    bool intr;
    uint8_t entry_size;
    uint16_t vector;
    uint32_t depth;
    uint64_t base;
    uint32_t tail;          /* free-running count of posted entries */
    int32_t sq;             /* bound SQ index or -1 */
} EnaCq;

typedef struct EnaSq {
    bool live;
    uint8_t dir;
    uint8_t placement;
    uint16_t cq;
    uint32_t depth;
    uint64_t base;
    uint32_t head;          /* free-running count of consumed entries */
    uint32_t tail;          /* free-running tail from the doorbell */
    uint8_t *llq;           /* LLQ entries written through BAR2 */
    uint8_t *llq_taken;     /* LLQ: the entries as the doorbell found them */
    uint32_t llq_entry;     /* LLQ entry size in bytes */
    uint32_t meta_w0;       /* cached TX meta descriptor */
    uint32_t meta_w2;
    bool meta_valid;
    bool rx_filled;         /* RX: half the ring was posted at once */
    uint32_t rx_most_posted; /* RX: most buffers posted at once (rx-fill) */
    bool no_meta_cache;     /* LLQ: each packet brings its meta descriptor */
    uint32_t burst_entries; /* LLQ: entries one doorbell may announce; 0 */
    uint8_t *rxd;           /* RX: descriptors as each doorbell found them */
    bool *rxd_ok;           /* ... and whether they were readable and fresh */
    uint16_t *tx_done;      /* TX: req_ids of one pass, posted at its end */
    uint32_t tx_ndone;
} EnaSq;

/*
 * An admin command the device fetched and works on: it is executed, and
 * its completion posted, when it is due (a DESTROY takes effect then).
 */
typedef struct EnaDone {
    uint8_t sqe[ENAHW_ADMIN_ENTRY_SIZE];
    int64_t due;
    uint64_t seq;
    bool drop;              /* fault-drop-next: no completion is posted */
} EnaDone;

typedef struct EnaStats {
    uint64_t admin_cmds;
    uint64_t admin_by_op[ENA_OPCODES];
    uint64_t admin_doorbells;
    uint64_t admin_max_inflight; /* most commands in the device at once */
    uint64_t io_doorbells;
    uint64_t queues_created;
    uint64_t queues_destroyed;
    uint64_t resets;
    uint64_t tx_packets;
    uint64_t tx_over_sgl;       /* packets over max-tx-sgl buffers, dropped */
    uint64_t tx_no_meta;        /* no-meta-cache packets without meta */
    uint64_t llq_burst_over;    /* doorbells announcing more than a burst */
    uint64_t llq_overwrite;     /* LLQ entries rewritten before consumed */
    uint64_t tx_bad_offload;    /* TSO or undeclared checksum asked, dropped */
    uint64_t tx_no_first;       /* packets not starting with FIRST, dropped */
    uint64_t tx_over_mtu;       /* frames over the MTU set, dropped */
    uint64_t tx_deferred;       /* TX passes served by the completion timer */
    uint64_t tx_reordered;      /* passes whose completions were shuffled */
    uint64_t rx_over_mtu;       /* received frames over the MTU, dropped */
    uint64_t rx_desc_rewritten; /* RX descriptors changed after the doorbell */
    uint64_t tx_bytes;
    uint64_t rx_packets;
    uint64_t rx_bytes;
    uint64_t rx_dropped;
    uint64_t rx_overruns;   /* a frame found no posted RX buffer */
    uint64_t rx_overruns_filling; /* ... in a queue still being filled */
    uint64_t rx_burst_sent; /* frames of the rx-burst bench knob */
    uint64_t rx_burst_dropped; /* ... that found no posted buffer */
    uint64_t aenq_dropped;
    uint64_t aenq_disabled; /* events of a group the driver did not enable */
    uint64_t aenq_injected; /* aenq-inject writes */
    uint64_t io_halts;      /* fatal errors that stopped the IO queues */
    uint64_t rx_halted;     /* frames dropped while they were stopped */
    uint64_t admin_irqs_lost; /* admin completions without their MSI-X */
    uint64_t io_irqs;       /* IO interrupt messages sent */
    uint64_t io_irqs_held;  /* interrupts that waited for the moderation */
    uint64_t io_unmasks;    /* IO vector unmasks */
    uint64_t io_unmask_rx_delay; /* sum of the RX delays they asked (units) */
} EnaStats;

struct EnaCore {
    /*
     * The owner's side: DMA, MSI-X and the device's id through the PCI
     * function (ena_dma_read() and friends below), frames through the NIC,
     * the NIC's own MAC address (conf.macaddr).
     */
    PCIDevice *owner;
    NICState *owner_nic;
    const uint8_t *owner_mac;

    /* realize-time configuration */
    uint32_t qcap;          /* queue pairs the device was built for */
    bool has_llq_bar;
    uint32_t llq_slot_depth;
    uint64_t llq_bar_size;
    uint32_t nr_vectors;

    /* run-time knobs */
    uint32_t max_queues;    /* queue pairs advertised, <= qcap */
    bool llq_enabled;       /* LLQ advertised (needs the BAR2 window) */
    bool llq_large_rec;     /* GET LLQ recommends 256-byte entries */
    bool link_autoneg;      /* GET LINK_CONFIG reports autonegotiation */
    uint32_t llq_accel;     /* ENAHW_LLQ_ACCEL_* offered by GET LLQ */
    uint32_t llq_max_burst; /* bytes between two doorbells (TX_BURST) */
    uint32_t admin_latency_us;
    uint32_t admin_jitter_us;
    /*
     * Bench knob rx-burst: N frames of rx_burst_len bytes arrive at once,
     * rx_burst_delay_us after the next RX queue's first doorbell (the
     * moment its buffers exist), into that queue; 0 again once sent.
     */
    uint32_t rx_burst;
    uint32_t rx_burst_len;
    uint32_t rx_burst_delay_us;
    uint32_t admin_parallel;  /* commands worked on at once; 0: all */
    uint32_t reset_latency_us;
    uint32_t max_depth;     /* caps both directions */
    uint32_t max_tx_depth;  /* TX SQ/CQ (LLQ: in 128-byte entries) */
    uint32_t max_rx_depth;  /* RX SQ/CQ */
    uint32_t max_tx_sgl;    /* buffers per TX packet the device takes */
    uint32_t max_rx_sgl;    /* buffers one received frame may fill */
    uint32_t llq_max_depth; /* LLQ depth cap (128-byte entries); 0: none */
    uint32_t keepalive_ms;
    /* fault injection: the armed points (ena_fault_take()) ... */
    uint32_t fault[ENA_FAULT_POINTS];
    /* ... a failed admin status (ena_fault_status_take()) ... */
    int32_t fault_status_opcode;
    uint32_t fault_status_code;
    int32_t fault_status_feature;
    uint32_t fault_status_after;  /* matching commands that still pass */
    uint32_t fault_status_times;  /* then fail this many (0: all) */
    /* ... and the states a device may be stuck in */
    bool fault_fatal;
    /*
     * A fatal error (fault-fatal, a FATAL_ERROR event) stopped the IO
     * queues: no TX is served, every frame from the wire is dropped, until
     * a reset completes with the fault gone (or fault-fatal is cleared).
     */
    bool io_halted;
    bool fault_reset_ignore;  /* DEV_CTL resets are ignored */
    bool fault_never_ready;   /* a reset ends without READY */
    uint32_t max_mtu;         /* max-mtu: applies at the next reset */
    bool tx_hold;           /* TX doorbells are taken but not served */
    uint32_t tx_delay_us;   /* doorbell to TX service; 0: in the write */
    bool tx_reorder;        /* a pass's completions in a shuffled order */
    uint64_t tx_rng;        /* xorshift64* state of the shuffle */
    bool rx_overrun_drop;   /* a frame with no RX buffer is dropped */
    /* device fuzzing: one corruption at a time (ena_fuzz_hit()) */
    uint64_t fuzz_seed;           /* 0: off */
    uint64_t fuzz_rng;            /* xorshift64* state */
    uint32_t fuzz_gap_max;        /* events of the kind let through first */
    uint32_t fuzz_kinds;          /* bit per ENA_FUZZ_* kind drawn from */
    uint32_t fuzz_wait;
    int fuzz_kind;                /* armed kind, or -1 until the next reset */
    uint64_t fuzz_count[ENA_FUZZ_KINDS];
    uint64_t fuzz_irq_dup;        /* IO interrupts sent twice */
    uint32_t hint_missing_tx_ms;  /* HW_HINTS missing_tx_cmpl_timeout */
    uint32_t hint_missed_tx;      /* HW_HINTS missed_tx_cmpl_threshold */
    uint32_t hint_keepalive_ms;   /* HW_HINTS driver_watchdog_timeout */
    uint32_t hint_admin_ms;       /* HW_HINTS admin_completion_tx_timeout */
    uint32_t hint_mmio_read_ms;   /* HW_HINTS mmio_read_timeout */
    uint32_t hint_netdev_wd_ms;   /* HW_HINTS netdev_wd_timeout */
    uint32_t aenq_supported;      /* AENQ groups offered (AENQ_CONFIG) */
    const char *aenq_last;        /* outcome of the last aenq-inject */
    bool cap_ext_reset_reasons;
    /* DEVICE_ATTRIBUTES capabilities and what GET_STATS 2..4 answer */
    bool cap_eni_stats;
    bool cap_ena_srd;
    bool cap_customer_metrics;
    uint32_t cm_mask;             /* customer metric ids the device reports */
    uint64_t eni_val[ENAHW_CM_COUNT];   /* by customer metric id */
    uint64_t srd_val[ENAHW_SRD_WORDS];  /* flags, tx, eligible tx, rx, util */

    /* register file */
    uint64_t aq_base;
    uint32_t aq_caps;
    uint64_t acq_base;
    uint32_t acq_caps;
    uint32_t aq_db;
    uint64_t aenq_base;
    uint32_t aenq_caps;
    uint32_t aenq_head_db;
    uint32_t intr_mask;
    uint32_t dev_ctl;
    uint32_t dev_sts;
    uint32_t mmio_read_req;
    uint64_t mmio_resp_addr;

    /* admin queue engine */
    uint32_t aq_head;       /* free-running count of consumed commands */
    uint32_t acq_tail;      /* free-running count of posted completions */
    uint32_t aenq_tail;     /* free-running count of posted events */
    EnaDone done[ENA_ADMIN_DEPTH_LIMIT];
    uint32_t done_count;
    uint64_t done_seq;
    int64_t admin_busy[ENA_ADMIN_ENGINES]; /* each engine busy until */
    QEMUTimer *admin_timer;
    QEMUTimer *reset_timer;
    QEMUTimer *keepalive_timer;
    QEMUTimer *burst_timer;     /* rx-burst: sends into burst_sq */
    uint32_t burst_sq;

    /* device features */
    uint32_t dev_max_mtu;   /* max-mtu as of the last reset */
    uint32_t aenq_groups;
    bool link_event_pending;
    uint32_t mtu;
    bool llq_configured;
    uint32_t llq_entry;     /* entry size chosen with SET LLQ */
    uint32_t llq_accel_on;  /* accel modes enabled with SET LLQ */
    uint64_t host_info_addr;
    bool mac_reported_set;      /* property mac-reported */
    uint8_t mac_reported[6];
    uint8_t rss_func;
    uint32_t rss_init;
    uint8_t rss_key[ENAHW_RSS_KEY_BYTES];
    uint16_t rss_fields[ENAHW_RSS_PROTOS];
    uint16_t rss_table[ENAHW_RSS_TABLE_MAX];
    uint8_t rss_table_log;
    bool rss_table_set;

    /* IO queues */
    EnaCq *cqs;
    EnaSq *sqs;
    bool *vec_masked;
    bool *vec_pending;
    uint8_t *vec_pending_kind; /* ENA_PEND_*: what the pending one announces */
    bool *vec_unmasked;     /* the driver unmasked it since the reset */
    /*
     * Interrupt moderation: the delays the driver wrote with its last
     * unmask of the vector (in delay-resolution units), when that unmask
     * came, and the timer that raises an interrupt held until then.
     */
    uint16_t *vec_rx_delay;
    uint16_t *vec_tx_delay;
    int64_t *vec_unmask_ns;
    QEMUTimer **vec_timer;
    EnaVecTimer *vec_timer_arg;
    QEMUTimer **sq_timer;   /* by TX queue: serves it tx_delay_us later */
    EnaSqTimer *sq_timer_arg;
    uint32_t intr_delay_res;  /* us per delay unit; 0: no moderation */
    uint8_t *tx_frame;

    /* counters */
    EnaStats st;
    uint8_t reset_reason[ENA_RESET_HISTORY]; /* by stat-resets, modulo */
    uint64_t err_count[ENA_ERR_KINDS];      /* unexpected protocol errors */
    uint64_t err_expected[ENA_ERR_KINDS];   /* those a test declared */
    uint32_t err_expect;    /* ENA_ERR_* bits expect-guest-errors declares */
    Notifier exit_notifier; /* prints the counts when QEMU exits */
    int64_t react_last_done; /* the newest admin completion's time ... */
    bool react_due;          /* ... when no doorbell came since */
    int64_t react[ENA_REACT_SAMPLES];
    uint32_t react_count;   /* total samples taken (ring index) */
    uint32_t react_db_first; /* react_count before this doorbell's samples */
    uint32_t react_probe;   /* samples before the first CREATE_CQ, or ~0 */
};

/* ------------------------------------------------------------------ */
/* helpers                                                             */

static inline uint32_t ena_nsq(EnaCore *core)
{
    return 2 * core->qcap;
}

static inline bool ena_ready(EnaCore *core)
{
    return (core->dev_sts & ENAHW_STS_READY) &&
           !(core->dev_sts & ENAHW_STS_RESET_BUSY);
}

/*
 * IO queues run while the device is ready and also while a reset is in
 * progress: a reset stops their DMA only when it completes.
 */
static inline bool ena_io_running(EnaCore *core)
{
    if (core->io_halted) {
        return false;
    }
    return ena_ready(core) || (core->dev_sts & ENAHW_STS_RESET_BUSY);
}

/* Phase a producer stamps on the entry with free-running index @idx. */
static inline uint8_t ena_phase(uint32_t idx, uint32_t depth)
{
    return ((idx / depth) & 1) ? 0 : 1;
}

static inline int64_t ena_now(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static inline uint64_t ena_addr48(uint32_t lo, uint16_t hi)
{
    return ((uint64_t)hi << 32) | lo;
}

/* ------------------------------------------------------------------ */
/* what the owner calls                                                */

/* ena_core.c: registers, LLQ memory, lifecycle */
uint32_t ena_core_read(EnaCore *core, hwaddr addr);
void ena_core_write(EnaCore *core, hwaddr addr, uint32_t val);
void ena_core_llq_read(EnaCore *core, hwaddr addr);
void ena_core_llq_write(EnaCore *core, hwaddr addr, uint64_t val,
                        unsigned size);
void ena_core_init(EnaCore *core);
void ena_core_realize(EnaCore *core);
void ena_core_unrealize(EnaCore *core);
void ena_core_reset(EnaCore *core);
void ena_core_post_load(EnaCore *core);

/* ena_io.c: the network side, and tx-hold's release */
bool ena_can_receive(EnaCore *core);
void ena_rx_burst_cb(void *opaque);
ssize_t ena_receive(EnaCore *core, const uint8_t *buf, size_t size);
void ena_set_link(EnaCore *core);
void ena_tx_kick(EnaCore *core, uint32_t idx);
void ena_tx_kick_all(EnaCore *core);

/* ena_admin.c: knobs that act at once */
void ena_keepalive_arm(EnaCore *core);
bool ena_post_fatal_event(EnaCore *core);
void ena_halt_io(EnaCore *core);
const char *ena_aenq_inject(EnaCore *core, uint16_t group, uint16_t syndrome,
                            uint64_t data);
char *ena_host_info_str(EnaCore *core);

/* ena_faults.c: protocol errors and fuzzing */
char *ena_guest_errors_str(EnaCore *core, bool expected);
bool ena_guest_errors_parse(const char *str, uint32_t *mask, Error **errp);
char *ena_guest_errors_expect_str(EnaCore *core);
void ena_fuzz_arm(EnaCore *core);

/* ena_stats.c: counters and samples */
void ena_stats_reset(EnaCore *core);
char *ena_stats_by_opcode(EnaCore *core);
char *ena_stats_reset_reasons(EnaCore *core);
bool ena_stats_derived(EnaCore *core, const char *name, uint64_t *val);
char *ena_react_probe_samples(EnaCore *core);

/* ------------------------------------------------------------------ */
/* the owner: DMA, MSI-X and the network                               */

static inline MemTxResult ena_dma_read(EnaCore *core, uint64_t addr,
                                       void *buf, size_t len)
{
    return pci_dma_read(core->owner, addr, buf, len);
}

static inline MemTxResult ena_dma_write(EnaCore *core, uint64_t addr,
                                        const void *buf, size_t len)
{
    return pci_dma_write(core->owner, addr, buf, len);
}

static inline bool ena_msix_enabled(EnaCore *core)
{
    return msix_enabled(core->owner);
}

static inline void ena_msix_notify(EnaCore *core, uint16_t vector)
{
    msix_notify(core->owner, vector);
}

static inline NetClientState *ena_nc(EnaCore *core)
{
    return qemu_get_queue(core->owner_nic);
}

/* the device's id= for log lines, or NULL */
static inline const char *ena_owner_id(EnaCore *core)
{
    return DEVICE(core->owner)->id;
}

#endif /* HW_NET_ENA_CORE_H */
