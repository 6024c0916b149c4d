/*
 * Amazon Elastic Network Adapter (ENA) device model: internal interfaces
 *
 * The model is split the way hw/net/igb is: ena.c is the QOM/PCI glue
 * (properties, VMState, BAR MemoryRegionOps, MSI-X, realize/reset),
 * ena_admin.c the admin side (reset, admin queue, features, AENQ,
 * keep-alive), ena_io.c the IO side (queues, doorbells, LLQ, RSS, RX, TX,
 * IO interrupts) and ena_faults.c the fuzzing, fault-status and benchmark
 * sampling helpers.  ena-hw.h has the device-visible formats.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_NET_ENA_INT_H
#define HW_NET_ENA_INT_H

#include "qemu/units.h"
#include "qemu/timer.h"
#include "hw/pci/pci_device.h"
#include "net/net.h"
#include "qom/object.h"

#include "ena-hw.h"

#define TYPE_ENA "ena"
OBJECT_DECLARE_SIMPLE_TYPE(EnaState, ENA)

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

/* what a vector's moderation timer fires for */
typedef struct EnaVecTimer {
    EnaState *s;
    uint16_t vector;
} EnaVecTimer;

/* what a TX queue's service timer fires for */
typedef struct EnaSqTimer {
    EnaState *s;
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
    uint64_t tx_no_meta;        /* no-meta-cache packets without meta, dropped */
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
    uint64_t aenq_dropped;
    uint64_t aenq_disabled; /* events of a group the driver did not enable */
    uint64_t aenq_injected; /* aenq-inject writes */
    uint64_t admin_irqs_lost; /* admin completions without their MSI-X */
    uint64_t io_irqs;       /* IO interrupt messages sent */
    uint64_t io_irqs_held;  /* interrupts that waited for the moderation */
    uint64_t io_unmasks;    /* IO vector unmasks */
    uint64_t io_unmask_rx_delay; /* sum of the RX delays they asked (units) */
} EnaStats;

struct EnaState {
    PCIDevice parent_obj;

    NICState *nic;
    NICConf conf;
    MemoryRegion mmio;
    MemoryRegion llq_mr;

    /* realize-time configuration */
    uint32_t qcap;          /* queue pairs the device was built for */
    bool has_llq_bar;
    uint16_t device_id;
    uint32_t llq_slot_depth;
    uint64_t llq_bar_size;
    uint32_t nr_vectors;

    /* run-time knobs */
    uint32_t max_queues;    /* queue pairs advertised, <= qcap */
    bool llq_enabled;       /* LLQ advertised (needs the BAR2 window) */
    bool llq_large_rec;     /* GET LLQ recommends 256-byte entries */
    uint32_t llq_accel;     /* ENAHW_LLQ_ACCEL_* offered by GET LLQ */
    uint32_t llq_max_burst; /* bytes between two doorbells (TX_BURST) */
    uint32_t admin_latency_us;
    uint32_t admin_jitter_us;
    uint32_t admin_parallel;  /* commands worked on at once; 0: all */
    uint32_t reset_latency_us;
    uint32_t max_depth;     /* caps both directions */
    uint32_t max_tx_depth;  /* TX SQ/CQ (LLQ: in 128-byte entries) */
    uint32_t max_rx_depth;  /* RX SQ/CQ */
    uint32_t max_tx_sgl;    /* buffers per TX packet the device takes */
    uint32_t max_rx_sgl;    /* buffers one received frame may fill */
    uint32_t llq_max_depth; /* LLQ depth cap (128-byte entries); 0: none */
    uint32_t keepalive_ms;
    int32_t fault_status_opcode;
    uint32_t fault_status_code;
    int32_t fault_status_feature;
    uint32_t fault_drop_next;
    uint32_t fault_delay_next_ms;
    uint32_t fault_malformed;
    bool fault_fatal;
    bool fault_reset_ignore;  /* DEV_CTL resets are ignored */
    bool fault_never_ready;   /* a reset ends without READY */
    uint32_t max_mtu;         /* max-mtu: applies at the next reset */
    bool tx_hold;           /* TX doorbells are taken but not served */
    uint32_t tx_delay_us;   /* doorbell to TX service; 0: in the write */
    bool tx_reorder;        /* a pass's completions in a shuffled order */
    uint64_t tx_rng;        /* xorshift64* state of the shuffle */
    bool rx_overrun_drop;   /* a frame with no RX buffer is dropped */
    uint32_t fault_rx_bad_reqid;
    uint32_t fault_rx_bad_len;
    uint32_t fault_tx_bad_reqid;
    uint32_t fault_status_after;  /* matching commands that still pass */
    uint32_t fault_status_times;  /* then fail this many (0: all) */
    uint32_t fault_rx_runt;       /* frames whose first buffer holds 8 B */
    uint32_t fault_bad_db;        /* CREATE_SQ answers off the BAR */
    uint32_t fault_tx_swallow;    /* TX packets sent with no completion */
    uint32_t fault_io_irq_drop;   /* IO interrupts lost (vector stays masked) */
    uint32_t fault_cq_depth;      /* CREATE_CQ answers reporting half the depth */
    uint32_t fault_cq_no_unmask;  /* CREATE_CQ answers with no unmask offset */
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
    uint32_t fault_admin_irq_lost; /* admin completions posted with no MSI-X */
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

static inline uint32_t ena_nsq(EnaState *s)
{
    return 2 * s->qcap;
}

static inline bool ena_ready(EnaState *s)
{
    return (s->dev_sts & ENAHW_STS_READY) &&
           !(s->dev_sts & ENAHW_STS_RESET_BUSY);
}

/*
 * IO queues run while the device is ready and also while a reset is in
 * progress: a reset stops their DMA only when it completes.
 */
static inline bool ena_io_running(EnaState *s)
{
    return ena_ready(s) || (s->dev_sts & ENAHW_STS_RESET_BUSY);
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

/* ena_admin.c: reset, admin queue, features, AENQ, keep-alive */
bool ena_pow2_depth(uint32_t depth, uint32_t max);
uint32_t ena_aq_depth(EnaState *s);
uint32_t ena_acq_depth(EnaState *s);
uint32_t ena_aenq_depth(EnaState *s);
void ena_post_link(EnaState *s);
bool ena_post_fatal_event(EnaState *s);
const char *ena_aenq_inject(EnaState *s, uint16_t group, uint16_t syndrome,
                            uint64_t data);
void ena_hints_fill(EnaState *s, uint8_t *h);
void ena_keepalive_arm(EnaState *s);
void ena_keepalive_cb(void *opaque);
void ena_soft_reset(EnaState *s);
void ena_reset_done_cb(void *opaque);
void ena_dev_ctl_write(EnaState *s, uint32_t val);
void ena_admin_timer_cb(void *opaque);
uint32_t ena_llq_max_depth(EnaState *s);
uint32_t ena_max_depth(EnaState *s, uint8_t dir);
void ena_aq_doorbell(EnaState *s, uint32_t val);
char *ena_host_info_str(EnaState *s);

/* ena_io.c: IO queues, doorbells, LLQ, RSS, RX, TX, IO interrupts */
void ena_drop_queues(EnaState *s);
void ena_io_vec_init(EnaState *s);
void ena_io_vec_fini(EnaState *s);
uint8_t ena_create_cq(EnaState *s, const uint8_t *sqe, uint8_t *cqe);
uint8_t ena_create_sq(EnaState *s, const uint8_t *sqe, uint8_t *cqe);
uint8_t ena_destroy_sq(EnaState *s, const uint8_t *sqe);
uint8_t ena_destroy_cq(EnaState *s, const uint8_t *sqe);
bool ena_can_receive(NetClientState *nc);
ssize_t ena_receive(NetClientState *nc, const uint8_t *buf, size_t size);
void ena_set_link(NetClientState *nc);
void ena_tx_serve(EnaState *s, uint32_t idx);
void ena_tx_kick(EnaState *s, uint32_t idx);
void ena_llq_written(EnaState *s, EnaSq *sq, size_t off, unsigned size);
void ena_sq_doorbell(EnaState *s, uint32_t idx, uint32_t val);
void ena_cq_unmask(EnaState *s, uint32_t idx, uint32_t val);
EnaSq *ena_llq_locate(EnaState *s, hwaddr addr, unsigned size,
                      size_t *off);

/* ena_faults.c: protocol errors, fuzzing, fault-status, benchmark sampling */
void ena_guest_error(EnaState *s, EnaErrKind kind, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);
char *ena_guest_errors_str(EnaState *s, bool expected);
bool ena_guest_errors_parse(const char *str, uint32_t *mask, Error **errp);
char *ena_guest_errors_expect_str(EnaState *s);
void ena_guest_errors_at_exit(Notifier *n, void *data);
uint64_t ena_fuzz_next(EnaState *s);
void ena_fuzz_arm(EnaState *s);
bool ena_fuzz_hit(EnaState *s, int kind);
uint16_t ena_fuzz_bad_id(EnaState *s, uint32_t depth);
bool ena_fault_status_hit(EnaState *s);
void ena_react_sample(EnaState *s, int64_t ns);
uint64_t ena_react_stat(EnaState *s, const char *which);
char *ena_react_probe_samples(EnaState *s);

#endif /* HW_NET_ENA_INT_H */
