/*
 * Amazon Elastic Network Adapter (ENA) device model
 *
 * A PCI network function speaking the ENA host interface: a BAR0 register
 * file with "readless" register reads, a reset state machine, an admin
 * submission/completion queue pair with phase bits, an asynchronous event
 * queue (link change, keep-alive), IO submission/completion queues in host
 * memory and, for TX, in device memory (LLQ, BAR2), MSI-X, and a QEMU
 * network backend so frames really move.
 *
 * Knobs (latencies, limits, fault injection) and counters are QOM
 * properties so tests can read and change them at run time with
 * qom-get/qom-set.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/log.h"
#include "qemu/module.h"
#include "qemu/timer.h"
#include "qemu/bswap.h"
#include "qemu/host-utils.h"
#include "qemu/crc32c.h"
#include "net/net.h"
#include "net/checksum.h"
#include "hw/pci/pci.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/msix.h"
#include "hw/pci/pcie.h"
#include "hw/qdev-properties.h"
#include "hw/resettable.h"
#include "migration/vmstate.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qom/object.h"
#include "trace.h"

#include "ena-hw.h"

#define TYPE_ENA "ena"
OBJECT_DECLARE_SIMPLE_TYPE(EnaState, ENA)

#define ENA_MAX_QUEUES_LIMIT    128
#define ENA_DEPTH_LIMIT         16384
#define ENA_LLQ_DEPTH_LIMIT     4096
#define ENA_ADMIN_DEPTH_LIMIT   256
#define ENA_AENQ_DEPTH_LIMIT    1024
#define ENA_TX_FRAME_MAX        (64 * KiB + 256)
#define ENA_PKT_DESCS_MAX       64
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
#define ENA_MAX_MTU             9216
#define ENA_REACT_SAMPLES       4096
#define ENA_UNREACTED_MAX       256
#define ENA_OPCODES             12

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
    uint32_t llq_entry;     /* LLQ entry size in bytes */
    uint32_t meta_w0;       /* cached TX meta descriptor */
    uint32_t meta_w2;
    bool meta_valid;
} EnaSq;

typedef struct EnaDone {
    uint8_t cqe[ENAHW_ADMIN_ENTRY_SIZE];
    int64_t due;
    uint64_t seq;
} EnaDone;

typedef struct EnaStats {
    uint64_t admin_cmds;
    uint64_t admin_by_op[ENA_OPCODES];
    uint64_t admin_doorbells;
    uint64_t io_doorbells;
    uint64_t queues_created;
    uint64_t queues_destroyed;
    uint64_t resets;
    uint64_t tx_packets;
    uint64_t tx_bytes;
    uint64_t rx_packets;
    uint64_t rx_bytes;
    uint64_t rx_dropped;
    uint64_t aenq_dropped;
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
    uint32_t admin_latency_us;
    uint32_t admin_jitter_us;
    uint32_t reset_latency_us;
    uint32_t max_depth;
    uint32_t keepalive_ms;
    int32_t fault_status_opcode;
    uint32_t fault_status_code;
    int32_t fault_status_feature;
    uint32_t fault_drop_next;
    uint32_t fault_delay_next_ms;
    uint32_t fault_malformed;
    bool fault_fatal;
    bool tx_hold;           /* TX doorbells are taken but not served */
    uint32_t fault_rx_bad_reqid;
    uint32_t fault_rx_bad_len;
    uint32_t fault_tx_bad_reqid;
    uint32_t fault_status_after;  /* matching commands that still pass */
    uint32_t fault_status_times;  /* then fail this many (0: all) */
    uint32_t fault_rx_runt;       /* frames whose first buffer holds 8 B */
    uint32_t fault_bad_db;        /* CREATE_SQ answers off the BAR */
    uint32_t fault_tx_swallow;    /* TX packets sent with no completion */
    uint32_t fault_io_irq_drop;   /* IO interrupts lost (vector stays masked) */
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
    QEMUTimer *admin_timer;
    QEMUTimer *reset_timer;
    QEMUTimer *keepalive_timer;

    /* device features */
    uint32_t aenq_groups;
    bool link_event_pending;
    uint32_t mtu;
    bool llq_configured;
    uint32_t llq_entry;     /* entry size chosen with SET LLQ */
    uint64_t host_info_addr;
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
    bool *vec_unmasked;     /* the driver unmasked it since the reset */
    uint8_t *tx_frame;

    /* counters */
    EnaStats st;
    int64_t unreacted[ENA_UNREACTED_MAX];
    uint32_t unreacted_count;
    int64_t react[ENA_REACT_SAMPLES];
    uint32_t react_count;   /* total samples taken (ring index) */
    uint32_t react_db_first; /* react_count before this doorbell's samples */
    uint32_t react_probe;   /* samples before the first CREATE_CQ, or ~0 */
};

static const uint8_t ena_default_rss_key[ENAHW_RSS_KEY_BYTES] = {
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
    0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
    0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
    0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
    0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
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

static bool ena_pow2_depth(uint32_t depth, uint32_t max)
{
    return depth >= 1 && depth <= max && is_power_of_2(depth);
}

static uint32_t ena_aq_depth(EnaState *s)
{
    return s->aq_caps & 0xffff;
}

static uint32_t ena_acq_depth(EnaState *s)
{
    return s->acq_caps & 0xffff;
}

static uint32_t ena_aenq_depth(EnaState *s)
{
    return s->aenq_caps & 0xffff;
}

static bool ena_admin_queues_ok(EnaState *s)
{
    uint32_t aqd = ena_aq_depth(s), acqd = ena_acq_depth(s);

    return s->aq_base && s->acq_base &&
           ena_pow2_depth(aqd, ENA_ADMIN_DEPTH_LIMIT) &&
           ena_pow2_depth(acqd, ENA_ADMIN_DEPTH_LIMIT) &&
           (s->aq_caps >> 16) == ENAHW_ADMIN_ENTRY_SIZE &&
           (s->acq_caps >> 16) == ENAHW_ADMIN_ENTRY_SIZE;
}

static bool ena_aenq_ok(EnaState *s)
{
    return s->aenq_base &&
           ena_pow2_depth(ena_aenq_depth(s), ENA_AENQ_DEPTH_LIMIT) &&
           (s->aenq_caps >> 16) == ENAHW_AENQ_ENTRY_SIZE;
}

static void ena_mgmt_irq(EnaState *s)
{
    PCIDevice *pd = PCI_DEVICE(s);

    if (!(s->intr_mask & ENAHW_INTR_MASK_ADMIN) && msix_enabled(pd)) {
        msix_notify(pd, 0);
    }
}

/* ------------------------------------------------------------------ */
/* device fuzzing                                                      */

/*
 * With fuzz-seed set the device turns hostile in ways a driver must notice:
 * one corruption of a kind drawn from a seeded generator, after a random
 * number of events of that kind, then none until the driver resets the
 * device (its recovery).  Each corruption thus meets a driver in a known
 * state, and the model's count of each kind can be matched one for one
 * with the driver's own counter.  Duplicate IO interrupts come on top, at
 * any time.
 */
static const uint8_t ena_fuzz_weight[ENA_FUZZ_KINDS] = {
    [ENA_FUZZ_RX_REQID] = 8,
    [ENA_FUZZ_RX_LEN] = 8,
    [ENA_FUZZ_TX_REQID] = 8,
    [ENA_FUZZ_ADMIN_ID] = 1,    /* fails the recovery's own bring-up */
    [ENA_FUZZ_IRQ_DROP] = 1,    /* found by a periodic check: slow */
    [ENA_FUZZ_ADMIN_SIZE] = 1,  /* fails the recovery's own bring-up */
};

static uint64_t ena_fuzz_next(EnaState *s)
{
    uint64_t x = s->fuzz_rng;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    s->fuzz_rng = x;
    return x * 0x2545f4914f6cdd1dULL;
}

/* draw the next corruption (at fuzz-seed and at every device reset) */
static void ena_fuzz_arm(EnaState *s)
{
    uint32_t total = 0, pick;
    int k;

    s->fuzz_kind = -1;
    for (k = 0; k < ENA_FUZZ_KINDS; k++) {
        total += (s->fuzz_kinds & BIT(k)) ? ena_fuzz_weight[k] : 0;
    }
    if (!s->fuzz_seed || !total) {
        return;
    }
    pick = ena_fuzz_next(s) % total;
    for (k = 0; !(s->fuzz_kinds & BIT(k)) || pick >= ena_fuzz_weight[k];
         k++) {
        pick -= (s->fuzz_kinds & BIT(k)) ? ena_fuzz_weight[k] : 0;
    }
    s->fuzz_kind = k;
    /*
     * The bring-up after a reset has about 16 admin commands, one of them
     * the MAX_QUEUES_EXT query.
     */
    s->fuzz_wait = k == ENA_FUZZ_ADMIN_SIZE ? 0 :
                   ena_fuzz_next(s) %
                   ((k == ENA_FUZZ_ADMIN_ID ? MIN(s->fuzz_gap_max, 8) :
                     s->fuzz_gap_max) + 1);
}

/* Return: true when this event of @kind is the one to corrupt */
static bool ena_fuzz_hit(EnaState *s, int kind)
{
    if (s->fuzz_kind != kind) {
        return false;
    }
    if (s->fuzz_wait) {
        s->fuzz_wait--;
        return false;
    }
    s->fuzz_kind = -1;
    s->fuzz_count[kind]++;
    trace_ena_fuzz(kind, s->fuzz_count[kind]);
    return true;
}

/* a request id the driver never posted on a ring of @depth entries */
static uint16_t ena_fuzz_bad_id(EnaState *s, uint32_t depth)
{
    return depth + ena_fuzz_next(s) % (0x10000 - depth);
}

/*
 * Interrupt for @cq's vector, or pending while the vector is masked.
 * @fresh: for a completion just posted.  Device fuzzing loses only such an
 * interrupt, and only once the driver has unmasked the vector since the
 * device reset: one re-sent at unmask may announce completions the driver
 * already took in its last poll, and the driver's first unmask of a queue
 * it starts would announce a lost one again; neither loss is a fault.
 */
static void ena_io_irq_raise(EnaState *s, EnaCq *cq, bool fresh)
{
    PCIDevice *pd = PCI_DEVICE(s);
    uint16_t v = cq->vector;

    if (!cq->intr || v >= s->nr_vectors) {
        return;
    }
    if (s->vec_masked[v]) {
        s->vec_pending[v] = true;
        return;
    }
    s->vec_masked[v] = true;
    s->vec_pending[v] = false;
    if (s->fault_io_irq_drop ||
        (fresh && s->vec_unmasked[v] && ena_fuzz_hit(s, ENA_FUZZ_IRQ_DROP))) {
        /* lost on the way: the device waits for an unmask that never comes */
        s->fault_io_irq_drop -= !!s->fault_io_irq_drop;
        trace_ena_io_fault("irq lost", v);
        return;
    }
    if (msix_enabled(pd)) {
        trace_ena_io_irq(v);
        msix_notify(pd, v);
        if (s->fuzz_seed && s->fuzz_kind != ENA_FUZZ_IRQ_DROP &&
            !(ena_fuzz_next(s) & 7)) {
            /*
             * A spurious second message: harmless to a sound driver.  None
             * while a lost interrupt is armed: the poll a late duplicate
             * starts would take the completions the loss strands.
             */
            s->fuzz_irq_dup++;
            msix_notify(pd, v);
        }
    }
}

static void ena_io_irq(EnaState *s, EnaCq *cq)
{
    ena_io_irq_raise(s, cq, true);
}

/* ------------------------------------------------------------------ */
/* AENQ                                                                */

static bool ena_aenq_post(EnaState *s, uint16_t group, uint16_t syndrome,
                          const uint8_t *data, size_t data_len)
{
    uint8_t ev[ENAHW_AENQ_ENTRY_SIZE] = { 0 };
    uint32_t depth;
    uint16_t room;
    uint64_t ts, addr;

    if (!ena_ready(s) || !ena_aenq_ok(s) || !(s->aenq_groups & BIT(group))) {
        return false;
    }
    depth = ena_aenq_depth(s);
    room = (uint16_t)(s->aenq_head_db - (uint16_t)s->aenq_tail);
    if (room == 0 || room > depth) {
        s->st.aenq_dropped++;
        trace_ena_aenq_full(group, s->aenq_tail, s->aenq_head_db);
        return false;
    }
    ts = qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL);
    stw_le_p(ev + ENAHW_AE_GROUP, group);
    stw_le_p(ev + ENAHW_AE_SYNDROME, syndrome);
    stl_le_p(ev + ENAHW_AE_TS_LO, (uint32_t)ts);
    stl_le_p(ev + ENAHW_AE_TS_HI, (uint32_t)(ts >> 32));
    memcpy(ev + ENAHW_AE_DATA, data, MIN(data_len, sizeof(ev) - ENAHW_AE_DATA));

    addr = s->aenq_base + (uint64_t)(s->aenq_tail & (depth - 1)) *
           ENAHW_AENQ_ENTRY_SIZE;
    /* body first, then the byte holding the phase bit */
    pci_dma_write(PCI_DEVICE(s), addr, ev, ENAHW_AE_FLAGS);
    pci_dma_write(PCI_DEVICE(s), addr + ENAHW_AE_FLAGS + 1,
                  ev + ENAHW_AE_FLAGS + 1,
                  sizeof(ev) - ENAHW_AE_FLAGS - 1);
    smp_wmb();  /* the event body must land before its phase bit */
    ev[ENAHW_AE_FLAGS] = ena_phase(s->aenq_tail, depth);
    pci_dma_write(PCI_DEVICE(s), addr + ENAHW_AE_FLAGS,
                  ev + ENAHW_AE_FLAGS, 1);
    s->aenq_tail++;
    trace_ena_aenq_post(group, syndrome, s->aenq_tail);
    ena_mgmt_irq(s);
    return true;
}

static void ena_post_link(EnaState *s)
{
    uint8_t data[4];
    bool up = !qemu_get_queue(s->nic)->link_down;

    stl_le_p(data, up ? 1 : 0);
    if (ena_aenq_post(s, ENAHW_AEG_LINK_CHANGE, 0, data, sizeof(data))) {
        s->link_event_pending = false;
    } else if (s->aenq_groups & BIT(ENAHW_AEG_LINK_CHANGE)) {
        s->link_event_pending = true;
    }
}

static void ena_keepalive_arm(EnaState *s)
{
    if (s->keepalive_ms) {
        timer_mod(s->keepalive_timer,
                  ena_now() + (int64_t)s->keepalive_ms * SCALE_MS);
    } else {
        timer_del(s->keepalive_timer);
    }
}

static void ena_keepalive_cb(void *opaque)
{
    EnaState *s = opaque;
    uint8_t data[24] = { 0 };

    stl_le_p(data + 0, (uint32_t)s->st.rx_dropped);
    stl_le_p(data + 4, (uint32_t)(s->st.rx_dropped >> 32));
    /* tx drops (8..15) and rx overruns (16..23) stay zero */
    ena_aenq_post(s, ENAHW_AEG_KEEP_ALIVE, 0, data, sizeof(data));
    ena_keepalive_arm(s);
}

/* ------------------------------------------------------------------ */
/* IO queue teardown and reset                                         */

static void ena_sq_free(EnaState *s, uint32_t idx)
{
    EnaSq *sq = &s->sqs[idx];

    if (!sq->live) {
        return;
    }
    if (sq->cq < ena_nsq(s) && s->cqs[sq->cq].sq == (int32_t)idx) {
        s->cqs[sq->cq].sq = -1;
    }
    g_free(sq->llq);
    memset(sq, 0, sizeof(*sq));
}

static void ena_cq_free(EnaState *s, uint32_t idx)
{
    memset(&s->cqs[idx], 0, sizeof(EnaCq));
    s->cqs[idx].sq = -1;
}

static void ena_drop_queues(EnaState *s)
{
    uint32_t i;

    for (i = 0; i < ena_nsq(s); i++) {
        ena_sq_free(s, i);
        ena_cq_free(s, i);
    }
    for (i = 0; i < s->nr_vectors; i++) {
        s->vec_masked[i] = false;
        s->vec_pending[i] = false;
        s->vec_unmasked[i] = false;
    }
}

/* Everything the driver set up is forgotten; the device stays in reset. */
static void ena_soft_reset(EnaState *s)
{
    ena_drop_queues(s);
    timer_del(s->admin_timer);
    s->done_count = 0;
    s->unreacted_count = 0;

    s->aq_base = s->acq_base = s->aenq_base = 0;
    s->aq_caps = s->acq_caps = s->aenq_caps = 0;
    s->aq_db = s->aenq_head_db = 0;
    s->aq_head = s->acq_tail = s->aenq_tail = 0;
    s->intr_mask = 0;
    s->mmio_read_req = 0;
    s->mmio_resp_addr = 0;

    s->aenq_groups = 0;
    s->link_event_pending = false;
    s->mtu = 1500;
    s->llq_configured = false;
    s->llq_entry = ENAHW_LLQ_ENTRY_BYTES;
    s->host_info_addr = 0;
    s->rss_func = ENAHW_RSS_FUNC_TOEPLITZ;
    s->rss_init = 0xffffffff;
    memcpy(s->rss_key, ena_default_rss_key, sizeof(s->rss_key));
    s->rss_fields[0] = s->rss_fields[1] = s->rss_fields[2] =
        s->rss_fields[3] = ENAHW_RSS_F_L3_SA | ENAHW_RSS_F_L3_DA |
                           ENAHW_RSS_F_L4_SP | ENAHW_RSS_F_L4_DP;
    s->rss_fields[4] = s->rss_fields[5] = s->rss_fields[6] =
        ENAHW_RSS_F_L3_SA | ENAHW_RSS_F_L3_DA;
    s->rss_fields[7] = ENAHW_RSS_F_L2_SA | ENAHW_RSS_F_L2_DA;
    memset(s->rss_table, 0, sizeof(s->rss_table));
    s->rss_table_log = 0;
    s->rss_table_set = false;
}

static void ena_reset_done_cb(void *opaque)
{
    EnaState *s = opaque;

    s->dev_sts = ENAHW_STS_READY | ENAHW_STS_RESET_DONE |
                 (s->fault_fatal ? ENAHW_STS_FATAL : 0);
    trace_ena_reset_done();
    ena_keepalive_arm(s);
}

static void ena_dev_ctl_write(EnaState *s, uint32_t val)
{
    s->dev_ctl = val;
    if (val & ENAHW_CTL_RESET) {
        if (!(s->dev_sts & ENAHW_STS_RESET_BUSY)) {
            trace_ena_reset_start(val >> ENAHW_CTL_REASON_SHIFT);
            s->st.resets++;
            ena_fuzz_arm(s);
            timer_del(s->reset_timer);
            ena_soft_reset(s);
            s->dev_sts = ENAHW_STS_RESET_BUSY |
                         (s->fault_fatal ? ENAHW_STS_FATAL : 0);
        }
    } else if ((s->dev_sts & ENAHW_STS_RESET_BUSY) &&
               !timer_pending(s->reset_timer)) {
        timer_mod(s->reset_timer,
                  ena_now() + (int64_t)s->reset_latency_us * SCALE_US);
    }
}

/* ------------------------------------------------------------------ */
/* admin completions                                                   */

static void ena_react_sample(EnaState *s, int64_t ns)
{
    s->react[s->react_count % ENA_REACT_SAMPLES] = ns;
    s->react_count++;
}

static void ena_acq_post(EnaState *s, uint8_t *cqe)
{
    uint32_t depth = ena_acq_depth(s);
    uint64_t addr;
    uint8_t phase;

    if (!ena_ready(s) || !ena_admin_queues_ok(s)) {
        return;
    }
    phase = ena_phase(s->acq_tail, depth);
    if (s->fault_malformed == 1 || ena_fuzz_hit(s, ENA_FUZZ_ADMIN_ID)) {
        s->fault_malformed = 0;
        stw_le_p(cqe + ENAHW_CQE_CMD_ID, ENAHW_CMD_ID_MASK);
    } else if (s->fault_malformed == 2) {
        s->fault_malformed = 0;
        phase = !phase;
    }
    stw_le_p(cqe + ENAHW_CQE_SQ_HEAD, (uint16_t)s->aq_head);
    cqe[ENAHW_CQE_FLAGS] = phase;

    addr = s->acq_base + (uint64_t)(s->acq_tail & (depth - 1)) *
           ENAHW_ADMIN_ENTRY_SIZE;
    pci_dma_write(PCI_DEVICE(s), addr + 4, cqe + 4,
                  ENAHW_ADMIN_ENTRY_SIZE - 4);
    smp_wmb();  /* the response must land before the phase bit */
    pci_dma_write(PCI_DEVICE(s), addr, cqe, 4);
    s->acq_tail++;
    trace_ena_admin_done(lduw_le_p(cqe + ENAHW_CQE_CMD_ID),
                         cqe[ENAHW_CQE_STATUS], s->acq_tail);

    if (s->unreacted_count < ENA_UNREACTED_MAX) {
        s->unreacted[s->unreacted_count++] = ena_now();
    }
    ena_mgmt_irq(s);
}

static void ena_admin_flush(EnaState *s)
{
    int64_t now = ena_now();
    int64_t next = INT64_MAX;

    for (;;) {
        uint32_t i, best = UINT32_MAX;

        for (i = 0; i < s->done_count; i++) {
            if (s->done[i].due <= now &&
                (best == UINT32_MAX || s->done[i].due < s->done[best].due ||
                 (s->done[i].due == s->done[best].due &&
                  s->done[i].seq < s->done[best].seq))) {
                best = i;
            }
        }
        if (best == UINT32_MAX) {
            break;
        }
        ena_acq_post(s, s->done[best].cqe);
        s->done[best] = s->done[--s->done_count];
    }
    for (uint32_t i = 0; i < s->done_count; i++) {
        next = MIN(next, s->done[i].due);
    }
    if (next != INT64_MAX) {
        timer_mod(s->admin_timer, next);
    } else {
        timer_del(s->admin_timer);
    }
}

static void ena_admin_timer_cb(void *opaque)
{
    ena_admin_flush(opaque);
}

static void ena_admin_complete(EnaState *s, uint8_t *cqe)
{
    int64_t delay = (int64_t)s->admin_latency_us * SCALE_US;
    EnaDone *d;

    if (s->fault_drop_next) {
        s->fault_drop_next--;
        trace_ena_admin_fault("drop", lduw_le_p(cqe + ENAHW_CQE_CMD_ID));
        return;
    }
    if (s->admin_jitter_us) {
        delay += (int64_t)g_random_int_range(0, s->admin_jitter_us + 1) *
                 SCALE_US;
    }
    if (s->fault_delay_next_ms) {
        delay += (int64_t)s->fault_delay_next_ms * SCALE_MS;
        s->fault_delay_next_ms = 0;
    }
    if (s->done_count >= ENA_ADMIN_DEPTH_LIMIT) {
        ena_acq_post(s, cqe);
        return;
    }
    d = &s->done[s->done_count++];
    memcpy(d->cqe, cqe, sizeof(d->cqe));
    d->due = ena_now() + delay;
    d->seq = s->done_seq++;
}

/* ------------------------------------------------------------------ */
/* admin commands                                                      */

static bool ena_ctrl_buf(const uint8_t *sqe, uint64_t *addr, uint32_t *len)
{
    uint8_t flags = sqe[ENAHW_SQE_FLAGS];

    if (!(flags & (ENAHW_SQE_F_CTRL | ENAHW_SQE_F_CTRL_INDIRECT))) {
        return false;
    }
    *len = ldl_le_p(sqe + ENAHW_SQE_CTRL_LEN);
    *addr = ena_addr48(ldl_le_p(sqe + ENAHW_SQE_CTRL_ADDR_LO),
                       lduw_le_p(sqe + ENAHW_SQE_CTRL_ADDR_HI));
    return *addr != 0 && *len != 0;
}

static uint32_t ena_supported_features(EnaState *s)
{
    uint32_t f = BIT(ENAHW_F_DEV_ATTR) | BIT(ENAHW_F_MAX_QUEUES) |
                 BIT(ENAHW_F_HW_HINTS) | BIT(ENAHW_F_MAX_QUEUES_EXT) |
                 BIT(ENAHW_F_RSS_FUNC) | BIT(ENAHW_F_OFFLOAD) |
                 BIT(ENAHW_F_RSS_TABLE) | BIT(ENAHW_F_MTU) |
                 BIT(ENAHW_F_RSS_INPUT) | BIT(ENAHW_F_INTR_MODER) |
                 BIT(ENAHW_F_AENQ_CONFIG) | BIT(ENAHW_F_LINK_CONFIG) |
                 BIT(ENAHW_F_HOST_ATTR);

    if (s->llq_enabled) {
        f |= BIT(ENAHW_F_LLQ);
    }
    return f;
}

static uint32_t ena_capabilities(EnaState *s)
{
    return (s->cap_eni_stats ? BIT(ENAHW_CAP_ENI_STATS) : 0) |
           (s->cap_ena_srd ? BIT(ENAHW_CAP_ENA_SRD_INFO) : 0) |
           (s->cap_customer_metrics ? BIT(ENAHW_CAP_CUSTOMER_METRICS) : 0);
}

static uint32_t ena_llq_max_depth(EnaState *s)
{
    uint32_t d = MIN(s->llq_slot_depth, s->max_depth);

    return d ? pow2floor(d) : 0;
}

static uint32_t ena_max_depth(EnaState *s)
{
    uint32_t d = MIN(MAX(s->max_depth, 1), ENA_DEPTH_LIMIT);

    return pow2floor(d);
}

static uint16_t ena_rss_supported_fields(unsigned proto)
{
    switch (proto) {
    case 0: case 1: case 2: case 3: case 8:
        return ENAHW_RSS_F_L3_SA | ENAHW_RSS_F_L3_DA |
               ENAHW_RSS_F_L4_SP | ENAHW_RSS_F_L4_DP;
    case 4: case 5: case 6: case 9:
        return ENAHW_RSS_F_L3_SA | ENAHW_RSS_F_L3_DA;
    case 7:
        return ENAHW_RSS_F_L2_SA | ENAHW_RSS_F_L2_DA;
    default:
        return 0;
    }
}

static uint8_t ena_get_feature(EnaState *s, const uint8_t *sqe, uint8_t *cqe)
{
    uint8_t id = sqe[ENAHW_FEAT_ID];
    uint8_t *r = cqe + ENAHW_CQE_BODY;
    PCIDevice *pd = PCI_DEVICE(s);
    uint64_t cb_addr = 0;
    uint32_t cb_len = 0;
    bool has_cb = ena_ctrl_buf(sqe, &cb_addr, &cb_len);
    uint32_t i;

    if (id != ENAHW_F_DEV_ATTR && !(ena_supported_features(s) & BIT(id))) {
        return ENAHW_ST_UNSUPPORTED;
    }

    switch (id) {
    case ENAHW_F_DEV_ATTR:
        stl_le_p(r + 0, 1);                     /* impl_id */
        stl_le_p(r + 4, 1);                     /* device_version */
        stl_le_p(r + 8, ena_supported_features(s));
        stl_le_p(r + 12, ena_capabilities(s));
        stl_le_p(r + 16, 48);                   /* phys_addr_width */
        stl_le_p(r + 20, 48);                   /* virt_addr_width */
        memcpy(r + 24, s->conf.macaddr.a, 6);
        stl_le_p(r + 32, ENA_MAX_MTU);
        return ENAHW_ST_OK;

    case ENAHW_F_MAX_QUEUES_EXT:
        r[0] = 1;                               /* version */
        stl_le_p(r + 4, s->max_queues);         /* max tx sq */
        stl_le_p(r + 8, s->max_queues);         /* max tx cq */
        stl_le_p(r + 12, s->max_queues);        /* max rx sq */
        stl_le_p(r + 16, s->max_queues);        /* max rx cq */
        stl_le_p(r + 20, ena_max_depth(s));     /* tx sq depth */
        stl_le_p(r + 24, ena_max_depth(s));     /* tx cq depth */
        stl_le_p(r + 28, ena_max_depth(s));     /* rx sq depth */
        stl_le_p(r + 32, ena_max_depth(s));     /* rx cq depth */
        stl_le_p(r + 36, ENAHW_LLQ_ENTRY_BYTES -
                 ENAHW_LLQ_DESCS_BEFORE_HDR * 16); /* max tx header */
        stw_le_p(r + 40, ENA_PKT_DESCS_MAX / 2);   /* tx descs per packet */
        stw_le_p(r + 42, ENA_RX_DESCS_PER_PKT);    /* rx descs per packet */
        if (ena_fuzz_hit(s, ENA_FUZZ_ADMIN_SIZE)) {
            static const uint8_t off[] = { 0, 4, 20, 32 };
            unsigned int o = off[ena_fuzz_next(s) % ARRAY_SIZE(off)];

            /* a version from the future, no queue, a ring too short */
            if (o) {
                stl_le_p(r + o, o == 20);
            } else {
                r[0] = 2;
            }
        }
        return ENAHW_ST_OK;

    case ENAHW_F_MAX_QUEUES:
        stl_le_p(r + 0, s->max_queues);
        stl_le_p(r + 4, ena_max_depth(s));
        stl_le_p(r + 8, s->max_queues);
        stl_le_p(r + 12, ena_max_depth(s));
        stl_le_p(r + 16, s->llq_enabled ? s->max_queues : 0);
        stl_le_p(r + 20, s->llq_enabled ? ena_llq_max_depth(s) : 0);
        stl_le_p(r + 24, ENAHW_LLQ_ENTRY_BYTES -
                 ENAHW_LLQ_DESCS_BEFORE_HDR * 16);
        stw_le_p(r + 28, ENA_PKT_DESCS_MAX / 2);
        stw_le_p(r + 30, ENA_RX_DESCS_PER_PKT);
        return ENAHW_ST_OK;

    case ENAHW_F_HW_HINTS:
        /* zero means "keep the driver's default" for every hint */
        stw_le_p(r + 4, s->hint_missing_tx_ms);
        stw_le_p(r + 6, s->hint_missed_tx);
        stw_le_p(r + 12, ENA_PKT_DESCS_MAX / 2); /* max tx sgl */
        stw_le_p(r + 14, ENA_RX_DESCS_PER_PKT);  /* max rx sgl */
        return ENAHW_ST_OK;

    case ENAHW_F_LLQ:
        stl_le_p(r + 0, s->max_queues);
        stl_le_p(r + 4, ena_llq_max_depth(s));
        stw_le_p(r + 8, ENAHW_LLQ_HDR_INLINE);
        stw_le_p(r + 10, ENAHW_LLQ_HDR_INLINE);
        stw_le_p(r + 12, ENAHW_LLQ_ENTRY_128 | ENAHW_LLQ_ENTRY_256);
        stw_le_p(r + 14, s->llq_entry == 256 ? ENAHW_LLQ_ENTRY_256
                                             : ENAHW_LLQ_ENTRY_128);
        stw_le_p(r + 16, ENAHW_LLQ_DESCS_BEFORE_HDR);
        stw_le_p(r + 18, ENAHW_LLQ_DESCS_BEFORE_HDR);
        stw_le_p(r + 20, ENAHW_LLQ_STRIDE_MULTI);
        stw_le_p(r + 22, ENAHW_LLQ_STRIDE_MULTI);
        /* accel mode: nothing supported, no burst limit */
        return ENAHW_ST_OK;

    case ENAHW_F_AENQ_CONFIG:
        stl_le_p(r + 0, ENAHW_AEG_SUPPORTED);
        stl_le_p(r + 4, s->aenq_groups);
        return ENAHW_ST_OK;

    case ENAHW_F_OFFLOAD:
        stl_le_p(r + 0, ENAHW_OFF_TX_L3_IPV4 | ENAHW_OFF_TX_L4_IPV4_PART |
                 ENAHW_OFF_TX_L4_IPV6_PART);
        stl_le_p(r + 4, ENAHW_OFF_RX_L3_IPV4 | ENAHW_OFF_RX_L4_IPV4 |
                 ENAHW_OFF_RX_L4_IPV6 | ENAHW_OFF_RX_HASH);
        stl_le_p(r + 8, ENAHW_OFF_RX_L3_IPV4 | ENAHW_OFF_RX_L4_IPV4 |
                 ENAHW_OFF_RX_L4_IPV6 | ENAHW_OFF_RX_HASH);
        return ENAHW_ST_OK;

    case ENAHW_F_INTR_MODER:
        stw_le_p(r + 0, 1);                     /* delay resolution, us */
        return ENAHW_ST_OK;

    case ENAHW_F_LINK_CONFIG:
        stl_le_p(r + 0, 100000);                /* Mbps */
        stl_le_p(r + 4, 0x80);                  /* 100G */
        stl_le_p(r + 8, 1u << 1);               /* full duplex, no autoneg */
        return ENAHW_ST_OK;

    case ENAHW_F_MTU:
        stl_le_p(r + 0, s->mtu);
        return ENAHW_ST_OK;

    case ENAHW_F_RSS_FUNC:
        stl_le_p(r + 0, BIT(ENAHW_RSS_FUNC_TOEPLITZ) |
                 BIT(ENAHW_RSS_FUNC_CRC32));
        stl_le_p(r + 4, BIT(s->rss_func));
        stl_le_p(r + 8, s->rss_init);
        if (has_cb) {
            uint8_t kb[ENAHW_RSS_KEY_BUF_BYTES] = { 0 };

            stl_le_p(kb, ENAHW_RSS_KEY_BYTES / 4);
            memcpy(kb + 8, s->rss_key, ENAHW_RSS_KEY_BYTES);
            pci_dma_write(pd, cb_addr, kb, MIN(cb_len, sizeof(kb)));
        }
        return ENAHW_ST_OK;

    case ENAHW_F_RSS_INPUT:
        stw_le_p(r + 0, (1u << 1) | (1u << 2));
        stw_le_p(r + 2, (1u << 1) | (1u << 2));
        if (has_cb) {
            uint8_t hb[ENAHW_RSS_INPUT_BUF_BYTES] = { 0 };

            for (i = 0; i < ENAHW_RSS_PROTOS; i++) {
                stw_le_p(hb + 4 * i, ena_rss_supported_fields(i));
                stw_le_p(hb + 4 * (ENAHW_RSS_PROTOS + i), s->rss_fields[i]);
            }
            pci_dma_write(pd, cb_addr, hb, MIN(cb_len, sizeof(hb)));
        }
        return ENAHW_ST_OK;

    case ENAHW_F_RSS_TABLE:
        stw_le_p(r + 0, 1);                     /* min log size */
        stw_le_p(r + 2, ENAHW_RSS_TABLE_LOG_MAX);
        stw_le_p(r + 4, s->rss_table_log);
        stl_le_p(r + 8, 0xffffffff);
        if (has_cb && s->rss_table_set) {
            uint8_t tb[ENAHW_RSS_TABLE_MAX * 4] = { 0 };
            uint32_t n = 1u << s->rss_table_log;

            for (i = 0; i < n; i++) {
                stw_le_p(tb + 4 * i, s->rss_table[i]);
            }
            pci_dma_write(pd, cb_addr, tb, MIN(cb_len, n * 4));
        }
        return ENAHW_ST_OK;

    default:
        return ENAHW_ST_UNSUPPORTED;
    }
}

static uint8_t ena_set_feature(EnaState *s, const uint8_t *sqe, uint8_t *cqe)
{
    uint8_t id = sqe[ENAHW_FEAT_ID];
    const uint8_t *d = sqe + ENAHW_FEAT_SET_DATA;
    PCIDevice *pd = PCI_DEVICE(s);
    uint64_t cb_addr = 0;
    uint32_t cb_len = 0, v, i;
    bool has_cb = ena_ctrl_buf(sqe, &cb_addr, &cb_len);

    if (id != ENAHW_F_HOST_ATTR && !(ena_supported_features(s) & BIT(id))) {
        return ENAHW_ST_UNSUPPORTED;
    }

    switch (id) {
    case ENAHW_F_HOST_ATTR:
        s->host_info_addr = ena_addr48(ldl_le_p(d + 0), lduw_le_p(d + 4));
        return ENAHW_ST_OK;

    case ENAHW_F_AENQ_CONFIG:
        v = ldl_le_p(d + 4);
        if (v & ~ENAHW_AEG_SUPPORTED) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "ena: AENQ groups 0x%x not supported\n", v);
            return ENAHW_ST_ILLEGAL;
        }
        s->aenq_groups = v;
        if (v & BIT(ENAHW_AEG_LINK_CHANGE)) {
            /* report the current link state as soon as the queue has room */
            ena_post_link(s);
        }
        return ENAHW_ST_OK;

    case ENAHW_F_LLQ:
        v = lduw_le_p(d + 14);
        if (lduw_le_p(d + 10) != ENAHW_LLQ_HDR_INLINE ||
            (v != ENAHW_LLQ_ENTRY_128 && v != ENAHW_LLQ_ENTRY_256) ||
            lduw_le_p(d + 18) != ENAHW_LLQ_DESCS_BEFORE_HDR ||
            lduw_le_p(d + 22) != ENAHW_LLQ_STRIDE_MULTI) {
            qemu_log_mask(LOG_GUEST_ERROR, "ena: unsupported LLQ config\n");
            return ENAHW_ST_ILLEGAL;
        }
        s->llq_entry = v == ENAHW_LLQ_ENTRY_256 ? 256 : 128;
        s->llq_configured = true;
        return ENAHW_ST_OK;

    case ENAHW_F_MTU:
        v = ldl_le_p(d);
        if (v < 68 || v > ENA_MAX_MTU) {
            qemu_log_mask(LOG_GUEST_ERROR, "ena: bad MTU %u\n", v);
            return ENAHW_ST_ILLEGAL;
        }
        s->mtu = v;
        return ENAHW_ST_OK;

    case ENAHW_F_RSS_FUNC:
        v = ldl_le_p(d + 4) & 0xff;
        if (v != BIT(ENAHW_RSS_FUNC_TOEPLITZ) &&
            v != BIT(ENAHW_RSS_FUNC_CRC32)) {
            qemu_log_mask(LOG_GUEST_ERROR, "ena: bad RSS function 0x%x\n", v);
            return ENAHW_ST_ILLEGAL;
        }
        s->rss_func = ctz32(v);
        s->rss_init = ldl_le_p(d + 8);
        if (has_cb) {
            uint8_t kb[ENAHW_RSS_KEY_BUF_BYTES];

            if (cb_len < sizeof(kb) ||
                pci_dma_read(pd, cb_addr, kb, sizeof(kb)) != MEMTX_OK) {
                return ENAHW_ST_MALFORMED;
            }
            memcpy(s->rss_key, kb + 8, ENAHW_RSS_KEY_BYTES);
        }
        return ENAHW_ST_OK;

    case ENAHW_F_RSS_INPUT:
        if (has_cb) {
            uint8_t hb[ENAHW_RSS_INPUT_BUF_BYTES];

            if (cb_len < 8 * ENAHW_RSS_PROTOS ||
                pci_dma_read(pd, cb_addr, hb,
                             8 * ENAHW_RSS_PROTOS) != MEMTX_OK) {
                return ENAHW_ST_MALFORMED;
            }
            for (i = 0; i < ENAHW_RSS_PROTOS; i++) {
                uint16_t f = lduw_le_p(hb + 4 * (ENAHW_RSS_PROTOS + i));

                if (f & ~ena_rss_supported_fields(i)) {
                    return ENAHW_ST_ILLEGAL;
                }
            }
            for (i = 0; i < ENAHW_RSS_PROTOS; i++) {
                s->rss_fields[i] = lduw_le_p(hb + 4 * (ENAHW_RSS_PROTOS + i));
            }
        }
        return ENAHW_ST_OK;

    case ENAHW_F_RSS_TABLE: {
        uint16_t log = lduw_le_p(d + 4);
        uint32_t inline_idx = ldl_le_p(d + 8);

        if (inline_idx != 0xffffffff) {
            if (inline_idx >= ENAHW_RSS_TABLE_MAX) {
                return ENAHW_ST_ILLEGAL;
            }
            s->rss_table[inline_idx] = lduw_le_p(d + 12);
            return ENAHW_ST_OK;
        }
        if (log < 1 || log > ENAHW_RSS_TABLE_LOG_MAX || !has_cb ||
            cb_len < (4u << log)) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "ena: bad RSS table (log %u len %u)\n", log, cb_len);
            return ENAHW_ST_ILLEGAL;
        } else {
            uint8_t tb[ENAHW_RSS_TABLE_MAX * 4];

            if (pci_dma_read(pd, cb_addr, tb, 4u << log) != MEMTX_OK) {
                return ENAHW_ST_MALFORMED;
            }
            for (i = 0; i < (1u << log); i++) {
                s->rss_table[i] = lduw_le_p(tb + 4 * i);
            }
            s->rss_table_log = log;
            s->rss_table_set = true;
        }
        return ENAHW_ST_OK;
    }

    case ENAHW_F_INTR_MODER:
        return ENAHW_ST_OK;

    default:
        return ENAHW_ST_UNSUPPORTED;
    }
}

static uint8_t ena_create_cq(EnaState *s, const uint8_t *sqe, uint8_t *cqe)
{
    uint32_t depth = lduw_le_p(sqe + ENAHW_CCQ_DEPTH);
    uint32_t words = sqe[ENAHW_CCQ_CAPS2] & 0x1f;
    uint32_t vector = ldl_le_p(sqe + ENAHW_CCQ_MSIX);
    uint64_t base = ena_addr48(ldl_le_p(sqe + ENAHW_CCQ_BASE_LO),
                               lduw_le_p(sqe + ENAHW_CCQ_BASE_HI));
    bool intr = sqe[ENAHW_CCQ_CAPS1] & (1u << 5);
    uint32_t i;
    EnaCq *cq;

    /*
     * The first IO queue ends the driver's probe: its reaction samples
     * are the ones taken before this command's doorbell.
     */
    if (s->react_probe == UINT32_MAX) {
        s->react_probe = s->react_db_first;
    }

    if (!ena_pow2_depth(depth, ena_max_depth(s)) || words < 2 || words > 8 ||
        !base || (intr && vector >= s->nr_vectors)) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "ena: CREATE_CQ bad args depth %u words %u vec %u\n",
                      depth, words, vector);
        return ENAHW_ST_ILLEGAL;
    }
    for (i = 0; i < ena_nsq(s); i++) {
        if (!s->cqs[i].live) {
            break;
        }
    }
    if (i == ena_nsq(s)) {
        return ENAHW_ST_NO_RESOURCE;
    }
    cq = &s->cqs[i];
    cq->live = true;
    cq->intr = intr;
    cq->entry_size = words * 4;
    cq->vector = vector;
    cq->depth = depth;
    cq->base = base;
    cq->tail = 0;
    cq->sq = -1;
    s->st.queues_created++;

    stw_le_p(cqe + ENAHW_CCQR_IDX, i);
    stw_le_p(cqe + ENAHW_CCQR_DEPTH, depth);
    stl_le_p(cqe + ENAHW_CCQR_NUMA_OFF, ENAHW_R_CQ_NUMA_BASE + 4 * i);
    stl_le_p(cqe + ENAHW_CCQR_HEAD_DB_OFF, ENAHW_R_CQ_HEAD_DB_BASE + 4 * i);
    stl_le_p(cqe + ENAHW_CCQR_UNMASK_OFF, ENAHW_R_CQ_UNMASK_BASE + 4 * i);
    trace_ena_create_cq(i, depth, words * 4, vector);
    return ENAHW_ST_OK;
}

static uint8_t ena_create_sq(EnaState *s, const uint8_t *sqe, uint8_t *cqe)
{
    uint8_t dir = sqe[ENAHW_CSQ_IDENTITY] >> 5;
    uint8_t place = sqe[ENAHW_CSQ_CAPS2] & 0xf;
    uint32_t cq_idx = lduw_le_p(sqe + ENAHW_CSQ_CQ_IDX);
    uint32_t depth = lduw_le_p(sqe + ENAHW_CSQ_DEPTH);
    uint64_t base = ena_addr48(ldl_le_p(sqe + ENAHW_CSQ_BASE_LO),
                               lduw_le_p(sqe + ENAHW_CSQ_BASE_HI));
    uint32_t i, first, max_depth;
    EnaSq *sq;

    if (dir != ENAHW_DIR_TX && dir != ENAHW_DIR_RX) {
        qemu_log_mask(LOG_GUEST_ERROR, "ena: CREATE_SQ bad direction %u\n",
                      dir);
        return ENAHW_ST_ILLEGAL;
    }
    if (place != ENAHW_PLACE_HOST &&
        !(place == ENAHW_PLACE_DEV && dir == ENAHW_DIR_TX && s->llq_enabled)) {
        qemu_log_mask(LOG_GUEST_ERROR, "ena: CREATE_SQ bad placement %u\n",
                      place);
        return ENAHW_ST_ILLEGAL;
    }
    /* a queue's LLQ window holds llq_slot_depth 128-byte entries */
    max_depth = place == ENAHW_PLACE_DEV ?
                ena_llq_max_depth(s) * ENAHW_LLQ_ENTRY_BYTES / s->llq_entry :
                ena_max_depth(s);
    if (!ena_pow2_depth(depth, max_depth) ||
        (place == ENAHW_PLACE_HOST && !base)) {
        qemu_log_mask(LOG_GUEST_ERROR, "ena: CREATE_SQ bad depth %u / base\n",
                      depth);
        return ENAHW_ST_ILLEGAL;
    }
    if (cq_idx >= ena_nsq(s) || !s->cqs[cq_idx].live ||
        s->cqs[cq_idx].sq >= 0 || s->cqs[cq_idx].depth < depth) {
        qemu_log_mask(LOG_GUEST_ERROR, "ena: CREATE_SQ bad cq %u\n", cq_idx);
        return ENAHW_ST_ILLEGAL;
    }
    if ((dir == ENAHW_DIR_TX && s->cqs[cq_idx].entry_size < ENAHW_TXC_SIZE) ||
        (dir == ENAHW_DIR_RX && s->cqs[cq_idx].entry_size < ENAHW_RXC_SIZE)) {
        qemu_log_mask(LOG_GUEST_ERROR, "ena: CREATE_SQ cq entry too small\n");
        return ENAHW_ST_ILLEGAL;
    }
    /* TX queues use indices [0, max), RX queues [max, 2 * max) */
    first = dir == ENAHW_DIR_TX ? 0 : s->qcap;
    for (i = first; i < first + MIN(s->max_queues, s->qcap); i++) {
        if (!s->sqs[i].live) {
            break;
        }
    }
    if (i == first + MIN(s->max_queues, s->qcap)) {
        return ENAHW_ST_NO_RESOURCE;
    }
    sq = &s->sqs[i];
    memset(sq, 0, sizeof(*sq));
    sq->live = true;
    sq->dir = dir;
    sq->placement = place;
    sq->cq = cq_idx;
    sq->depth = depth;
    sq->base = base;
    if (place == ENAHW_PLACE_DEV) {
        sq->llq_entry = s->llq_entry;
        sq->llq = g_malloc0((size_t)depth * sq->llq_entry);
    }
    s->cqs[cq_idx].sq = i;
    s->st.queues_created++;

    stw_le_p(cqe + ENAHW_CSQR_IDX, i);
    if (s->fault_bad_db) {
        /* untrusted-input test: a doorbell offset past the end of BAR 0 */
        s->fault_bad_db--;
        stl_le_p(cqe + ENAHW_CSQR_DB_OFF, ENAHW_REGS_SIZE + 4 * i);
    } else {
        stl_le_p(cqe + ENAHW_CSQR_DB_OFF, ENAHW_R_SQ_DB_BASE + 4 * i);
    }
    if (place == ENAHW_PLACE_DEV) {
        stl_le_p(cqe + ENAHW_CSQR_LLQ_DESC_OFF,
                 i * s->llq_slot_depth * ENAHW_LLQ_ENTRY_BYTES);
        stl_le_p(cqe + ENAHW_CSQR_LLQ_HDR_OFF, 0);
    }
    trace_ena_create_sq(i, dir, place, cq_idx, depth);
    if (dir == ENAHW_DIR_RX) {
        qemu_flush_queued_packets(qemu_get_queue(s->nic));
    }
    return ENAHW_ST_OK;
}

static uint8_t ena_destroy_sq(EnaState *s, const uint8_t *sqe)
{
    uint32_t idx = lduw_le_p(sqe + ENAHW_DSQ_IDX);
    uint8_t dir = sqe[ENAHW_DSQ_IDENTITY] >> 5;

    if (idx >= ena_nsq(s) || !s->sqs[idx].live || s->sqs[idx].dir != dir) {
        qemu_log_mask(LOG_GUEST_ERROR, "ena: DESTROY_SQ bad sq %u dir %u\n",
                      idx, dir);
        return ENAHW_ST_ILLEGAL;
    }
    ena_sq_free(s, idx);
    s->st.queues_destroyed++;
    trace_ena_destroy_sq(idx);
    return ENAHW_ST_OK;
}

static uint8_t ena_destroy_cq(EnaState *s, const uint8_t *sqe)
{
    uint32_t idx = lduw_le_p(sqe + ENAHW_DCQ_IDX);

    if (idx >= ena_nsq(s) || !s->cqs[idx].live) {
        qemu_log_mask(LOG_GUEST_ERROR, "ena: DESTROY_CQ bad cq %u\n", idx);
        return ENAHW_ST_ILLEGAL;
    }
    if (s->cqs[idx].sq >= 0) {
        qemu_log_mask(LOG_GUEST_ERROR, "ena: DESTROY_CQ %u still has sq %d\n",
                      idx, s->cqs[idx].sq);
        return ENAHW_ST_BUSY;
    }
    ena_cq_free(s, idx);
    s->st.queues_destroyed++;
    trace_ena_destroy_cq(idx);
    return ENAHW_ST_OK;
}

/*
 * GET_STATS type 4: the CQE says which of the requested metrics the device
 * reports; their values go to the control buffer, one u64 each in
 * increasing id order.  A command without a control buffer (address and
 * length 0) only asks which metrics are there: the in-tree driver's probe.
 */
static uint8_t ena_get_customer_metrics(EnaState *s, const uint8_t *sqe,
                                        uint8_t *r)
{
    uint64_t req = ldq_le_p(sqe + ENAHW_GSTATS_REQUESTED);
    uint32_t len = ldl_le_p(sqe + ENAHW_SQE_CTRL_LEN);
    uint64_t addr = ena_addr48(ldl_le_p(sqe + ENAHW_SQE_CTRL_ADDR_LO),
                               lduw_le_p(sqe + ENAHW_SQE_CTRL_ADDR_HI));
    uint64_t rep = req & (s->cm_mask & ENAHW_CM_ALL);
    uint8_t vals[ENAHW_CM_COUNT * 8];
    uint32_t n = 0, i;

    for (i = 0; i < ENAHW_CM_COUNT; i++) {
        if (rep & BIT_ULL(i)) {
            stq_le_p(vals + 8 * n++, s->eni_val[i]);
        }
    }
    trace_ena_get_stats(ENAHW_GST_CUSTOMER, req, rep, len);
    if (!addr && !len) {
        stq_le_p(r, rep);
        return ENAHW_ST_OK;
    }
    if (!addr || len < n * 8) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "ena: GET_STATS customer metrics: buffer 0x%" PRIx64
                      " len %u for %u metrics\n", addr, len, n);
        return ENAHW_ST_MALFORMED;
    }
    if (n && pci_dma_write(PCI_DEVICE(s), addr, vals, n * 8) != MEMTX_OK) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "ena: GET_STATS customer metrics: DMA to 0x%" PRIx64
                      " failed\n", addr);
        return ENAHW_ST_ILLEGAL;
    }
    stq_le_p(r, rep);
    return ENAHW_ST_OK;
}

static uint8_t ena_get_stats(EnaState *s, const uint8_t *sqe, uint8_t *cqe)
{
    uint8_t *r = cqe + ENAHW_CQE_BODY;
    uint8_t type = sqe[ENAHW_GSTATS_TYPE];
    uint32_t i;

    switch (type) {
    case ENAHW_GST_BASIC:
        trace_ena_get_stats(type, 0, 0, 0);
        stq_le_p(r + 0, s->st.tx_bytes);
        stq_le_p(r + 8, s->st.tx_packets);
        stq_le_p(r + 16, s->st.rx_bytes);
        stq_le_p(r + 24, s->st.rx_packets);
        stq_le_p(r + 32, s->st.rx_dropped);
        stq_le_p(r + 40, 0);
        return ENAHW_ST_OK;
    case ENAHW_GST_ENI:
        if (!s->cap_eni_stats) {
            break;
        }
        trace_ena_get_stats(type, 0, 0, 0);
        for (i = 0; i < ENAHW_ENI_STATS; i++) {
            stq_le_p(r + 8 * i, s->eni_val[i]);
        }
        return ENAHW_ST_OK;
    case ENAHW_GST_SRD:
        if (!s->cap_ena_srd) {
            break;
        }
        trace_ena_get_stats(type, 0, 0, 0);
        for (i = 0; i < ENAHW_SRD_WORDS; i++) {
            stq_le_p(r + 8 * i, s->srd_val[i]);
        }
        return ENAHW_ST_OK;
    case ENAHW_GST_CUSTOMER:
        if (!s->cap_customer_metrics) {
            break;
        }
        return ena_get_customer_metrics(s, sqe, r);
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "ena: GET_STATS bad type %u\n", type);
        return ENAHW_ST_ILLEGAL;
    }
    /* extended, or a kind of statistics not advertised */
    return ENAHW_ST_UNSUPPORTED;
}

/*
 * A command matched fault-status-opcode/-feature: fail it unless
 * fault-status-after commands are still to pass; fault-status-times
 * (when set) disarms the fault after that many failures.
 */
static bool ena_fault_status_hit(EnaState *s)
{
    if (s->fault_status_after) {
        s->fault_status_after--;
        return false;
    }
    if (s->fault_status_times && !--s->fault_status_times) {
        s->fault_status_opcode = -1;
        s->fault_status_feature = -1;
    }
    return true;
}

static void ena_admin_execute(EnaState *s, const uint8_t *sqe)
{
    uint8_t cqe[ENAHW_ADMIN_ENTRY_SIZE] = { 0 };
    uint8_t op = sqe[ENAHW_SQE_OPCODE];
    uint16_t cmd_id = lduw_le_p(sqe + ENAHW_SQE_CMD_ID) & ENAHW_CMD_ID_MASK;
    bool is_feat = op == ENAHW_OP_GET_FEAT || op == ENAHW_OP_SET_FEAT;
    uint8_t status;

    s->st.admin_cmds++;
    if (op < ENA_OPCODES) {
        s->st.admin_by_op[op]++;
    }
    trace_ena_admin_cmd(cmd_id, op, is_feat ? sqe[ENAHW_FEAT_ID] : 0);

    if (((s->fault_status_opcode >= 0 && s->fault_status_opcode == op) ||
         (is_feat && s->fault_status_feature >= 0 &&
          s->fault_status_feature == sqe[ENAHW_FEAT_ID])) &&
        ena_fault_status_hit(s)) {
        status = s->fault_status_code;
    } else {
        switch (op) {
        case ENAHW_OP_CREATE_SQ:
            status = ena_create_sq(s, sqe, cqe);
            break;
        case ENAHW_OP_DESTROY_SQ:
            status = ena_destroy_sq(s, sqe);
            break;
        case ENAHW_OP_CREATE_CQ:
            status = ena_create_cq(s, sqe, cqe);
            break;
        case ENAHW_OP_DESTROY_CQ:
            status = ena_destroy_cq(s, sqe);
            break;
        case ENAHW_OP_GET_FEAT:
            status = ena_get_feature(s, sqe, cqe);
            break;
        case ENAHW_OP_SET_FEAT:
            status = ena_set_feature(s, sqe, cqe);
            break;
        case ENAHW_OP_GET_STATS:
            status = ena_get_stats(s, sqe, cqe);
            break;
        default:
            qemu_log_mask(LOG_GUEST_ERROR, "ena: bad admin opcode %u\n", op);
            status = ENAHW_ST_BAD_OPCODE;
            break;
        }
    }
    if (status != ENAHW_ST_OK) {
        memset(cqe, 0, sizeof(cqe));
    }
    stw_le_p(cqe + ENAHW_CQE_CMD_ID, cmd_id);
    cqe[ENAHW_CQE_STATUS] = status;
    ena_admin_complete(s, cqe);
}

static void ena_aq_doorbell(EnaState *s, uint32_t val)
{
    uint8_t sqe[ENAHW_ADMIN_ENTRY_SIZE];
    uint32_t depth, pending, i;
    int64_t now = ena_now();

    s->aq_db = val;
    s->st.admin_doorbells++;
    s->react_db_first = s->react_count;
    for (i = 0; i < s->unreacted_count; i++) {
        ena_react_sample(s, now - s->unreacted[i]);
    }
    s->unreacted_count = 0;

    if (!ena_ready(s)) {
        qemu_log_mask(LOG_GUEST_ERROR, "ena: AQ doorbell while not ready\n");
        return;
    }
    if (!ena_admin_queues_ok(s)) {
        qemu_log_mask(LOG_GUEST_ERROR, "ena: AQ doorbell, admin queue unset\n");
        return;
    }
    depth = ena_aq_depth(s);
    pending = (uint16_t)(val - (uint16_t)s->aq_head);
    if (pending > depth) {
        qemu_log_mask(LOG_GUEST_ERROR, "ena: AQ doorbell %u beyond depth\n",
                      val);
        return;
    }
    while (pending--) {
        uint64_t addr = s->aq_base + (uint64_t)(s->aq_head & (depth - 1)) *
                        ENAHW_ADMIN_ENTRY_SIZE;

        if (pci_dma_read(PCI_DEVICE(s), addr, sqe, sizeof(sqe)) != MEMTX_OK) {
            qemu_log_mask(LOG_GUEST_ERROR, "ena: AQ entry DMA failed\n");
            break;
        }
        if ((sqe[ENAHW_SQE_FLAGS] & ENAHW_SQE_F_PHASE) !=
            ena_phase(s->aq_head, depth)) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "ena: AQ entry %u has a stale phase\n", s->aq_head);
        }
        s->aq_head++;
        ena_admin_execute(s, sqe);
    }
    ena_admin_flush(s);
}

/* ------------------------------------------------------------------ */
/* TX                                                                  */

typedef struct EnaTxPkt {
    size_t len;
    bool started;       /* saw the first buffer descriptor */
    bool bad;
    uint32_t w1;
    uint16_t req_id;
    bool comp;
    uint8_t hdr_len;
    uint32_t ndesc;
} EnaTxPkt;

/* Fill the L4 checksum (and the IPv4 header checksum) the driver asked for. */
static void ena_tx_csum(EnaState *s, EnaSq *sq, uint8_t *f, size_t len,
                        uint32_t w1)
{
    uint8_t l3 = w1 & ENAHW_TXD_L3_PROTO_MASK;
    uint8_t l4 = (w1 >> ENAHW_TXD_L4_PROTO_SHIFT) & 0x1f;
    size_t l3off = 14, l3len = 0, l4off, csum_off;
    uint32_t sum;
    uint16_t c;

    if (sq->meta_valid) {
        l3off = (sq->meta_w2 >> ENAHW_TXM_L3_OFF_SHIFT) & 0xff;
        l3len = sq->meta_w2 & ENAHW_TXM_L3_LEN_MASK;
    }
    if (l3off + 20 > len) {
        return;
    }
    if (!l3len) {
        if (l3 == ENAHW_L3_IPV4) {
            l3len = (f[l3off] & 0xf) * 4;
        } else if (l3 == ENAHW_L3_IPV6) {
            l3len = 40;
        }
    }
    if (l3len < 20 || l3off + l3len > len) {
        return;
    }
    if ((w1 & ENAHW_TXD_L3_CSUM) && l3 == ENAHW_L3_IPV4) {
        stw_be_p(f + l3off + 10, 0);
        stw_be_p(f + l3off + 10, net_raw_checksum(f + l3off, l3len));
    }
    if (!(w1 & ENAHW_TXD_L4_CSUM)) {
        return;
    }
    l4off = l3off + l3len;
    csum_off = l4off + (l4 == ENAHW_L4_TCP ? 16 : 6);
    if (l4 != ENAHW_L4_TCP && l4 != ENAHW_L4_UDP) {
        return;
    }
    if (csum_off + 2 > len) {
        return;
    }
    if (!(w1 & ENAHW_TXD_L4_PARTIAL)) {
        /* full offload: seed with the pseudo header ourselves */
        uint8_t ph[40];
        uint32_t l4len = len - l4off;

        stw_be_p(f + csum_off, 0);
        if (l3 == ENAHW_L3_IPV4) {
            memcpy(ph, f + l3off + 12, 8);
            sum = net_checksum_add(8, ph);
        } else {
            memcpy(ph, f + l3off + 8, 32);
            sum = net_checksum_add(32, ph);
        }
        sum += l4len + (l4 == ENAHW_L4_TCP ? 6 : 17);
        sum += net_checksum_add(l4len, f + l4off);
    } else {
        sum = net_checksum_add(len - l4off, f + l4off);
    }
    c = net_checksum_finish(sum);
    if (l4 == ENAHW_L4_UDP && c == 0) {
        c = 0xffff;
    }
    stw_be_p(f + csum_off, c);
}

/* Consume one TX descriptor into @p; returns true at the packet's end. */
static bool ena_tx_desc(EnaState *s, EnaSq *sq, const uint8_t *desc,
                        EnaTxPkt *p)
{
    uint32_t w0 = ldl_le_p(desc), w1 = ldl_le_p(desc + 4);
    uint32_t w2 = ldl_le_p(desc + 8), w3 = ldl_le_p(desc + 12);
    uint32_t blen;
    uint64_t addr;

    p->ndesc++;
    if (w0 & ENAHW_TXD_META) {
        sq->meta_w0 = w0;
        sq->meta_w2 = w2;
        sq->meta_valid = true;
        return false;
    }
    if (!p->started) {
        p->started = true;
        p->w1 = w1;
        p->hdr_len = w3 >> ENAHW_TXD_HDR_LEN_SHIFT;
    }
    if ((w0 & ENAHW_TXD_COMP_REQ) && !p->comp) {
        p->comp = true;
        p->req_id = ((w1 >> ENAHW_TXD_REQ_LO_SHIFT) & 0x3ff) |
                    (((w0 >> ENAHW_TXD_REQ_HI_SHIFT) & 0x3f) << 10);
    }
    blen = w0 & ENAHW_TXD_LEN_MASK;
    addr = ((uint64_t)(w3 & ENAHW_TXD_ADDR_HI_MASK) << 32) | w2;
    if (blen) {
        if (p->len + blen > ENA_TX_FRAME_MAX) {
            qemu_log_mask(LOG_GUEST_ERROR, "ena: TX frame too long\n");
            p->bad = true;
        } else if (pci_dma_read(PCI_DEVICE(s), addr, s->tx_frame + p->len,
                                blen) != MEMTX_OK) {
            qemu_log_mask(LOG_GUEST_ERROR, "ena: TX buffer DMA failed\n");
            p->bad = true;
        } else {
            p->len += blen;
        }
    }
    return w0 & ENAHW_TXD_LAST;
}

static bool ena_tx_post(EnaState *s, EnaSq *sq, uint16_t req_id)
{
    EnaCq *cq = &s->cqs[sq->cq];
    uint8_t c[ENAHW_TXC_SIZE] = { 0 };
    uint64_t addr;

    if (!cq->live) {
        return false;
    }
    if (s->fault_tx_swallow) {
        /* the packet went out; its completion never comes */
        s->fault_tx_swallow--;
        trace_ena_io_fault("tx completion swallowed", req_id);
        return false;
    }
    if (s->fault_tx_bad_reqid) {
        s->fault_tx_bad_reqid--;
        req_id = sq->depth + 7;
    } else if (ena_fuzz_hit(s, ENA_FUZZ_TX_REQID)) {
        req_id = ena_fuzz_bad_id(s, sq->depth);
    }
    addr = cq->base + (uint64_t)(cq->tail & (cq->depth - 1)) * cq->entry_size;
    stw_le_p(c + ENAHW_TXC_REQ_ID, req_id);
    stw_le_p(c + ENAHW_TXC_SUB_QID, 0);
    stw_le_p(c + ENAHW_TXC_SQ_HEAD, (uint16_t)sq->head);
    pci_dma_write(PCI_DEVICE(s), addr, c, 2);
    pci_dma_write(PCI_DEVICE(s), addr + 4, c + 4, 4);
    smp_wmb();  /* req_id must land before the phase bit */
    c[ENAHW_TXC_FLAGS] = ena_phase(cq->tail, cq->depth);
    pci_dma_write(PCI_DEVICE(s), addr + 2, c + 2, 2);
    cq->tail++;
    return true;
}

static void ena_tx_finish(EnaState *s, EnaSq *sq, uint32_t qidx, EnaTxPkt *p)
{
    NetClientState *nc = qemu_get_queue(s->nic);

    if (!p->bad && p->len) {
        if (p->w1 & (ENAHW_TXD_L4_CSUM | ENAHW_TXD_L3_CSUM)) {
            ena_tx_csum(s, sq, s->tx_frame, p->len, p->w1);
        }
        if (p->w1 & ENAHW_TXD_TSO) {
            qemu_log_mask(LOG_GUEST_ERROR, "ena: TSO requested, not offered\n");
        }
        trace_ena_tx(qidx, p->len);
        s->st.tx_packets++;
        s->st.tx_bytes += p->len;
        if (!nc->link_down) {
            qemu_send_packet(nc, s->tx_frame, p->len);
        }
    }
}

static bool ena_tx_phase_ok(EnaSq *sq, const uint8_t *desc, uint32_t idx)
{
    uint32_t w0 = ldl_le_p(desc);

    return !!(w0 & ENAHW_TXD_PHASE) == ena_phase(idx, sq->depth);
}

static void ena_tx_host(EnaState *s, EnaSq *sq, uint32_t qidx)
{
    uint8_t desc[16];
    bool posted = false;

    while (sq->tail != sq->head) {
        EnaTxPkt p = { 0 };
        uint32_t pos = sq->head;
        bool done = false, resync = false;

        while (pos != sq->tail) {
            uint64_t addr = sq->base + (uint64_t)(pos & (sq->depth - 1)) * 16;

            if (pci_dma_read(PCI_DEVICE(s), addr, desc, 16) != MEMTX_OK ||
                !ena_tx_phase_ok(sq, desc, pos)) {
                qemu_log_mask(LOG_GUEST_ERROR,
                              "ena: TX sq %u desc %u unreadable or stale\n",
                              qidx, pos);
                sq->head = sq->tail;
                goto out;
            }
            if (p.ndesc && (ldl_le_p(desc) & ENAHW_TXD_FIRST)) {
                resync = true;      /* unterminated packet before this one */
                break;
            }
            pos++;
            if (ena_tx_desc(s, sq, desc, &p) || p.ndesc >= ENA_PKT_DESCS_MAX) {
                done = true;
                break;
            }
        }
        if (resync) {
            sq->head = pos;
            continue;
        }
        if (!done) {
            break;      /* packet not complete yet: wait for more */
        }
        sq->head = pos;
        ena_tx_finish(s, sq, qidx, &p);
        if (p.comp) {
            posted |= ena_tx_post(s, sq, p.req_id);
        }
    }
out:
    if (posted) {
        ena_io_irq(s, &s->cqs[sq->cq]);
    }
}

static void ena_tx_llq(EnaState *s, EnaSq *sq, uint32_t qidx)
{
    bool posted = false;

    while (sq->tail != sq->head) {
        EnaTxPkt p = { 0 };
        uint32_t e = sq->head, slot = 0, limit = ENAHW_LLQ_DESCS_BEFORE_HDR;
        uint8_t *entry = sq->llq + (size_t)(e & (sq->depth - 1)) *
                         sq->llq_entry;
        uint8_t *first = entry;
        bool done = false, resync = false;
        size_t hdr;

        for (;;) {
            uint8_t *desc;

            if (slot == limit) {
                e++;
                if (e == sq->tail) {
                    break;
                }
                entry = sq->llq + (size_t)(e & (sq->depth - 1)) *
                        sq->llq_entry;
                slot = 0;
                limit = sq->llq_entry / 16;
            }
            desc = entry + slot * 16;
            slot++;
            if (!ena_tx_phase_ok(sq, desc, e)) {
                qemu_log_mask(LOG_GUEST_ERROR,
                              "ena: LLQ sq %u entry %u has a stale phase\n",
                              qidx, e);
                sq->head = sq->tail;
                goto out;
            }
            if (p.ndesc && (ldl_le_p(desc) & ENAHW_TXD_FIRST)) {
                if (slot != 1 || e == sq->head) {
                    qemu_log_mask(LOG_GUEST_ERROR,
                                  "ena: LLQ sq %u entry %u misplaced first "
                                  "descriptor\n", qidx, e);
                    sq->head = sq->tail;
                    goto out;
                }
                /* an unterminated packet: restart at the new one */
                resync = true;
                break;
            }
            /* the inline header goes in front of the first buffer's data */
            if (!p.started && !(ldl_le_p(desc) & ENAHW_TXD_META)) {
                hdr = MIN(ldl_le_p(desc + 12) >> ENAHW_TXD_HDR_LEN_SHIFT,
                          sq->llq_entry - ENAHW_LLQ_DESCS_BEFORE_HDR * 16);
                memcpy(s->tx_frame, first + ENAHW_LLQ_DESCS_BEFORE_HDR * 16,
                       hdr);
                p.len = hdr;
            }
            if (ena_tx_desc(s, sq, desc, &p) || p.ndesc >= ENA_PKT_DESCS_MAX) {
                done = true;
                break;
            }
        }
        if (resync) {
            sq->head = e;
            continue;
        }
        if (!done) {
            break;
        }
        sq->head = e + 1;
        ena_tx_finish(s, sq, qidx, &p);
        if (p.comp) {
            posted |= ena_tx_post(s, sq, p.req_id);
        }
    }
out:
    if (posted) {
        ena_io_irq(s, &s->cqs[sq->cq]);
    }
}

/* ------------------------------------------------------------------ */
/* RX                                                                  */

typedef struct EnaRxInfo {
    uint32_t status;        /* l3/l4 protocol and checksum bits */
    uint32_t hash;
} EnaRxInfo;

static uint32_t ena_rss_hash(EnaState *s, const uint8_t *in, size_t len)
{
    if (s->rss_func == ENAHW_RSS_FUNC_CRC32) {
        return crc32c(s->rss_init, in, len);
    } else {
        net_toeplitz_key key;
        uint32_t h = 0;

        net_toeplitz_key_init(&key, s->rss_key);
        net_toeplitz_add(&h, (uint8_t *)in, MIN(len, ENAHW_RSS_KEY_BYTES - 4),
                         &key);
        return h;
    }
}

static uint32_t ena_l4_sum(const uint8_t *l4, size_t l4len, uint8_t proto,
                           const uint8_t *addrs, size_t alen)
{
    uint32_t sum = net_checksum_add(alen, (uint8_t *)addrs);

    sum += l4len + proto;
    return sum + net_checksum_add(l4len, (uint8_t *)l4);
}

/* Parse a received frame: protocol, checksum verdicts and the RSS hash. */
static void ena_rx_classify(EnaState *s, const uint8_t *f, size_t len,
                            EnaRxInfo *ri)
{
    uint8_t tuple[36];
    size_t tlen = 0, off = 14, l4len = 0;
    const uint8_t *l4 = NULL;
    uint16_t etype;
    uint8_t proto = 0;
    unsigned rss_proto = 7;
    bool frag = false;

    memset(ri, 0, sizeof(*ri));
    if (len < 14) {
        return;
    }
    etype = lduw_be_p(f + 12);
    if (etype == 0x8100 && len >= 18) {
        etype = lduw_be_p(f + 16);
        off = 18;
    }
    if (etype == 0x0800 && len >= off + 20 && (f[off] >> 4) == 4) {
        size_t ihl = (f[off] & 0xf) * 4;
        size_t tot = lduw_be_p(f + off + 2);

        if (ihl < 20 || off + ihl > len || tot < ihl || off + tot > len) {
            ri->status |= ENAHW_L3_IPV4;
            return;
        }
        ri->status |= ENAHW_L3_IPV4;
        if (net_raw_checksum((uint8_t *)f + off, ihl) != 0) {
            ri->status |= ENAHW_RXS_L3_CSUM_ERR;
        }
        proto = f[off + 9];
        frag = (lduw_be_p(f + off + 6) & 0x3fff) != 0;
        memcpy(tuple, f + off + 12, 8);
        tlen = 8;
        rss_proto = frag ? 6 : 4;
        l4 = f + off + ihl;
        l4len = tot - ihl;
        if (frag) {
            ri->status |= ENAHW_RXS_IPV4_FRAG;
            l4 = NULL;
        }
    } else if (etype == 0x86dd && len >= off + 40 && (f[off] >> 4) == 6) {
        size_t plen = lduw_be_p(f + off + 4);

        ri->status |= ENAHW_L3_IPV6;
        proto = f[off + 6];
        memcpy(tuple, f + off + 8, 32);
        tlen = 32;
        rss_proto = 5;
        if (off + 40 + plen <= len) {
            l4 = f + off + 40;
            l4len = plen;
        }
    }

    if (l4 && (proto == 6 || proto == 17)) {
        bool v4 = (ri->status & 0x1f) == ENAHW_L3_IPV4;
        bool tcp = proto == 6;
        size_t hmin = tcp ? 20 : 8;

        if (l4len >= hmin) {
            ri->status |= (tcp ? ENAHW_L4_TCP : ENAHW_L4_UDP)
                          << ENAHW_RXS_L4_PROTO_SHIFT;
            if (!tcp && v4 && lduw_be_p(l4 + 6) == 0) {
                ri->status |= ENAHW_RXS_L4_CHECKED;  /* no UDP checksum */
            } else if (net_checksum_finish(ena_l4_sum(l4, l4len, proto, tuple,
                                                      tlen)) == 0) {
                ri->status |= ENAHW_RXS_L4_CHECKED;
            } else {
                ri->status |= ENAHW_RXS_L4_CSUM_ERR | ENAHW_RXS_L4_CHECKED;
            }
            rss_proto = v4 ? (tcp ? 0 : 1) : (tcp ? 2 : 3);
            memcpy(tuple + tlen, l4, 4);
            tlen += 4;
        }
    }

    /* honour the hash fields the driver selected */
    if (rss_proto == 7) {
        uint16_t fl = s->rss_fields[7];

        tlen = 0;
        if (fl & ENAHW_RSS_F_L2_SA) {
            memcpy(tuple + tlen, f + 6, 6);
            tlen += 6;
        }
        if (fl & ENAHW_RSS_F_L2_DA) {
            memcpy(tuple + tlen, f, 6);
            tlen += 6;
        }
    } else if (!(s->rss_fields[rss_proto] &
                 (ENAHW_RSS_F_L4_SP | ENAHW_RSS_F_L4_DP)) &&
               (rss_proto <= 3)) {
        tlen -= 4;
    }
    ri->hash = tlen ? ena_rss_hash(s, tuple, tlen) : 0;
}

static EnaSq *ena_rx_pick(EnaState *s, uint32_t hash, uint32_t *qidx)
{
    uint32_t i, n = 0, live[ENA_MAX_QUEUES_LIMIT];

    if (s->rss_table_set) {
        uint16_t v = s->rss_table[hash & ((1u << s->rss_table_log) - 1)];

        if (v < ena_nsq(s)) {
            if (s->sqs[v].live && s->sqs[v].dir == ENAHW_DIR_RX) {
                *qidx = v;
                return &s->sqs[v];
            }
            if (s->cqs[v].live && s->cqs[v].sq >= 0 &&
                s->sqs[s->cqs[v].sq].dir == ENAHW_DIR_RX) {
                *qidx = s->cqs[v].sq;
                return &s->sqs[*qidx];
            }
        }
    }
    for (i = s->qcap; i < ena_nsq(s); i++) {
        if (s->sqs[i].live && s->sqs[i].dir == ENAHW_DIR_RX) {
            live[n++] = i;
        }
    }
    if (!n) {
        return NULL;
    }
    *qidx = live[hash % n];
    return &s->sqs[*qidx];
}

static bool ena_can_receive(NetClientState *nc)
{
    EnaState *s = qemu_get_nic_opaque(nc);
    uint32_t i;

    if (!ena_ready(s) || !s->sqs) {
        return false;
    }
    for (i = s->qcap; i < ena_nsq(s); i++) {
        if (s->sqs[i].live && s->sqs[i].dir == ENAHW_DIR_RX &&
            s->sqs[i].tail != s->sqs[i].head) {
            return true;
        }
    }
    return false;
}

static ssize_t ena_receive(NetClientState *nc, const uint8_t *buf, size_t size)
{
    EnaState *s = qemu_get_nic_opaque(nc);
    PCIDevice *pd = PCI_DEVICE(s);
    struct {
        uint64_t addr;
        uint32_t len;
        uint16_t req_id;
    } bufs[ENA_RX_DESCS_PER_PKT];
    uint8_t desc[ENAHW_RXD_SIZE];
    uint32_t qidx, n = 0, i, cap = 0;
    size_t off;
    EnaRxInfo ri;
    EnaSq *sq;
    EnaCq *cq;

    if (!ena_ready(s) || !size) {
        s->st.rx_dropped++;
        return size;
    }
    ena_rx_classify(s, buf, size, &ri);
    sq = ena_rx_pick(s, ri.hash, &qidx);
    if (!sq || !s->cqs[sq->cq].live) {
        s->st.rx_dropped++;
        return size;
    }
    cq = &s->cqs[sq->cq];

    /* gather enough posted buffers for the whole frame */
    while (cap < size) {
        uint32_t pos = sq->head + n;
        uint64_t addr;

        if (pos == sq->tail) {
            return 0;   /* wait for the driver to refill */
        }
        if (n == ENA_RX_DESCS_PER_PKT) {
            s->st.rx_dropped++;
            return size;
        }
        addr = sq->base + (uint64_t)(pos & (sq->depth - 1)) * ENAHW_RXD_SIZE;
        if (pci_dma_read(pd, addr, desc, sizeof(desc)) != MEMTX_OK ||
            (desc[ENAHW_RXD_CTRL] & ENAHW_RXD_C_PHASE) !=
            ena_phase(pos, sq->depth)) {
            qemu_log_mask(LOG_GUEST_ERROR,
                          "ena: RX sq %u desc %u unreadable or stale\n",
                          qidx, pos);
            s->st.rx_dropped++;
            return size;
        }
        bufs[n].len = lduw_le_p(desc + ENAHW_RXD_LEN) ?: 64 * KiB;
        if (n == 0 && s->fault_rx_runt && size > 8) {
            /* a device that splits the Ethernet header over buffers */
            bufs[n].len = MIN(bufs[n].len, 8);
        }
        bufs[n].req_id = lduw_le_p(desc + ENAHW_RXD_REQ_ID);
        bufs[n].addr = ena_addr48(ldl_le_p(desc + ENAHW_RXD_ADDR_LO),
                                  lduw_le_p(desc + ENAHW_RXD_ADDR_HI));
        cap += bufs[n].len;
        n++;
    }

    off = 0;
    for (i = 0; i < n; i++) {
        uint32_t chunk = MIN(bufs[i].len, size - off);
        uint8_t c[ENAHW_RXC_SIZE] = { 0 };
        uint32_t status = ri.status;
        uint16_t req_id = bufs[i].req_id, clen = chunk;
        uint64_t caddr;

        pci_dma_write(pd, bufs[i].addr, buf + off, chunk);
        off += chunk;
        if (i == 0) {
            status |= ENAHW_RXS_FIRST;
        }
        if (i == n - 1) {
            status |= ENAHW_RXS_LAST;
        }
        if (s->fault_rx_bad_reqid) {
            s->fault_rx_bad_reqid--;
            req_id = sq->depth + 7;
        }
        if (s->fault_rx_bad_len) {
            s->fault_rx_bad_len--;
            clen = 0xffff;
        }
        if (ena_fuzz_hit(s, ENA_FUZZ_RX_REQID)) {
            req_id = ena_fuzz_bad_id(s, sq->depth);
        } else if (ena_fuzz_hit(s, ENA_FUZZ_RX_LEN)) {
            clen = (ena_fuzz_next(s) & 1) ? 0 :
                   (uint16_t)(0x8000 | ena_fuzz_next(s));
        }
        status |= ena_phase(cq->tail, cq->depth) ? ENAHW_RXS_PHASE : 0;
        stw_le_p(c + ENAHW_RXC_LEN, clen);
        stw_le_p(c + ENAHW_RXC_REQ_ID, req_id);
        stl_le_p(c + ENAHW_RXC_HASH, ri.hash);
        stw_le_p(c + ENAHW_RXC_SUB_QID, 0);
        caddr = cq->base + (uint64_t)(cq->tail & (cq->depth - 1)) *
                cq->entry_size;
        pci_dma_write(pd, caddr + 4, c + 4, ENAHW_RXC_SIZE - 4);
        smp_wmb();  /* length/req_id before the status word's phase */
        stl_le_p(c + ENAHW_RXC_STATUS, status);
        pci_dma_write(pd, caddr, c, 4);
        cq->tail++;
    }
    if (s->fault_rx_runt && size > 8) {
        s->fault_rx_runt--;
    }
    sq->head += n;
    s->st.rx_packets++;
    s->st.rx_bytes += size;
    trace_ena_rx(qidx, size, n);
    ena_io_irq(s, cq);
    return size;
}

static void ena_set_link(NetClientState *nc)
{
    EnaState *s = qemu_get_nic_opaque(nc);

    trace_ena_link(!nc->link_down);
    ena_post_link(s);
    if (!nc->link_down) {
        qemu_flush_queued_packets(nc);
    }
}

/* ------------------------------------------------------------------ */
/* IO doorbells and queue registers                                    */

/* send what a TX SQ holds between its head and the doorbell's tail */
static void ena_tx_serve(EnaState *s, uint32_t idx)
{
    EnaSq *sq = &s->sqs[idx];

    if (sq->placement == ENAHW_PLACE_DEV) {
        ena_tx_llq(s, sq, idx);
    } else {
        ena_tx_host(s, sq, idx);
    }
}

static void ena_sq_doorbell(EnaState *s, uint32_t idx, uint32_t val)
{
    EnaSq *sq;
    uint32_t ahead;

    s->st.io_doorbells++;
    if (idx >= ena_nsq(s) || !s->sqs[idx].live) {
        qemu_log_mask(LOG_GUEST_ERROR, "ena: doorbell for dead sq %u\n", idx);
        return;
    }
    sq = &s->sqs[idx];
    ahead = (uint16_t)(val - (uint16_t)sq->head);
    if (ahead > sq->depth) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "ena: sq %u doorbell %u beyond depth (head %u)\n",
                      idx, val, sq->head);
        return;
    }
    sq->tail = sq->head + ahead;
    if (!ena_ready(s)) {
        return;
    }
    if (sq->dir == ENAHW_DIR_RX) {
        qemu_flush_queued_packets(qemu_get_queue(s->nic));
    } else if (!s->tx_hold) {
        ena_tx_serve(s, idx);
    }
}

static void ena_cq_unmask(EnaState *s, uint32_t idx, uint32_t val)
{
    EnaCq *cq;
    uint16_t v;

    if (idx >= ena_nsq(s) || !s->cqs[idx].live) {
        qemu_log_mask(LOG_GUEST_ERROR, "ena: unmask for dead cq %u\n", idx);
        return;
    }
    cq = &s->cqs[idx];
    v = cq->vector;
    if (!(val & ENAHW_INTR_UNMASK) || v >= s->nr_vectors) {
        return;
    }
    s->vec_masked[v] = false;
    s->vec_unmasked[v] = true;
    if (s->vec_pending[v]) {
        ena_io_irq_raise(s, cq, false);
    }
}

/* ------------------------------------------------------------------ */
/* BAR0                                                                */

static uint32_t ena_caps(void)
{
    return (10u << ENAHW_CAPS_RESET_TO_SHIFT) |
           (48u << ENAHW_CAPS_DMA_WIDTH_SHIFT) |
           (0u << ENAHW_CAPS_ADMIN_TO_SHIFT);
}

static uint32_t ena_reg_read(EnaState *s, hwaddr off)
{
    switch (off) {
    case ENAHW_R_VERSION:
        return 0x000a;                      /* 0.10 */
    case ENAHW_R_CTRL_VERSION:
        return 0x00000101;                  /* 0.1.1 */
    case ENAHW_R_CAPS:
        return ena_caps();
    case ENAHW_R_CAPS_EXT:
        return 0;
    case ENAHW_R_AQ_BASE_LO:
        return (uint32_t)s->aq_base;
    case ENAHW_R_AQ_BASE_HI:
        return s->aq_base >> 32;
    case ENAHW_R_AQ_CAPS:
        return s->aq_caps;
    case ENAHW_R_ACQ_BASE_LO:
        return (uint32_t)s->acq_base;
    case ENAHW_R_ACQ_BASE_HI:
        return s->acq_base >> 32;
    case ENAHW_R_ACQ_CAPS:
        return s->acq_caps;
    case ENAHW_R_AQ_DB:
        return s->aq_db;
    case ENAHW_R_ACQ_TAIL:
        return s->acq_tail;
    case ENAHW_R_AENQ_CAPS:
        return s->aenq_caps;
    case ENAHW_R_AENQ_BASE_LO:
        return (uint32_t)s->aenq_base;
    case ENAHW_R_AENQ_BASE_HI:
        return s->aenq_base >> 32;
    case ENAHW_R_AENQ_HEAD_DB:
        return s->aenq_head_db;
    case ENAHW_R_AENQ_TAIL:
        return s->aenq_tail;
    case ENAHW_R_INTR_MASK:
        return s->intr_mask;
    case ENAHW_R_DEV_CTL:
        return s->dev_ctl;
    case ENAHW_R_DEV_STS:
        return s->dev_sts;
    case ENAHW_R_MMIO_REG_READ:
        return s->mmio_read_req;
    case ENAHW_R_MMIO_RESP_LO:
        return (uint32_t)s->mmio_resp_addr;
    case ENAHW_R_MMIO_RESP_HI:
        return s->mmio_resp_addr >> 32;
    default:
        return 0;
    }
}

static void ena_readless(EnaState *s, uint32_t val)
{
    uint8_t resp[8];
    uint16_t off = val >> 16;

    s->mmio_read_req = val;
    if (!s->mmio_resp_addr) {
        qemu_log_mask(LOG_GUEST_ERROR, "ena: readless read without address\n");
        return;
    }
    stw_le_p(resp + 0, val & 0xffff);
    stw_le_p(resp + 2, off);
    stl_le_p(resp + 4, (off & 3) ? 0 : ena_reg_read(s, off));
    /* value first, then the request id the driver spins on */
    pci_dma_write(PCI_DEVICE(s), s->mmio_resp_addr + 2, resp + 2, 6);
    smp_wmb();  /* the driver spins on req_id: publish it last */
    pci_dma_write(PCI_DEVICE(s), s->mmio_resp_addr, resp, 2);
}

static uint64_t ena_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    EnaState *s = opaque;
    uint32_t val = ena_reg_read(s, addr);

    trace_ena_mmio_read(addr, val);
    return val;
}

static void ena_mmio_write(void *opaque, hwaddr addr, uint64_t data,
                           unsigned size)
{
    EnaState *s = opaque;
    uint32_t val = data;

    trace_ena_mmio_write(addr, val);
    if (addr >= ENAHW_R_SQ_DB_BASE &&
        addr < ENAHW_R_SQ_DB_BASE + ENAHW_R_QREG_SPAN) {
        ena_sq_doorbell(s, (addr - ENAHW_R_SQ_DB_BASE) / 4, val);
        return;
    }
    if (addr >= ENAHW_R_CQ_UNMASK_BASE &&
        addr < ENAHW_R_CQ_UNMASK_BASE + ENAHW_R_QREG_SPAN) {
        ena_cq_unmask(s, (addr - ENAHW_R_CQ_UNMASK_BASE) / 4, val);
        return;
    }
    if ((addr >= ENAHW_R_CQ_HEAD_DB_BASE &&
         addr < ENAHW_R_CQ_HEAD_DB_BASE + ENAHW_R_QREG_SPAN) ||
        (addr >= ENAHW_R_CQ_NUMA_BASE &&
         addr < ENAHW_R_CQ_NUMA_BASE + ENAHW_R_QREG_SPAN)) {
        return;     /* accepted, nothing to do for an emulated device */
    }

    switch (addr) {
    case ENAHW_R_AQ_BASE_LO:
        s->aq_base = deposit64(s->aq_base, 0, 32, val);
        break;
    case ENAHW_R_AQ_BASE_HI:
        s->aq_base = deposit64(s->aq_base, 32, 32, val & 0xffff);
        break;
    case ENAHW_R_AQ_CAPS:
        s->aq_caps = val;
        s->aq_head = 0;
        break;
    case ENAHW_R_ACQ_BASE_LO:
        s->acq_base = deposit64(s->acq_base, 0, 32, val);
        break;
    case ENAHW_R_ACQ_BASE_HI:
        s->acq_base = deposit64(s->acq_base, 32, 32, val & 0xffff);
        break;
    case ENAHW_R_ACQ_CAPS:
        s->acq_caps = val;
        s->acq_tail = 0;
        break;
    case ENAHW_R_AQ_DB:
        ena_aq_doorbell(s, val);
        break;
    case ENAHW_R_AENQ_CAPS:
        s->aenq_caps = val;
        s->aenq_tail = 0;
        break;
    case ENAHW_R_AENQ_BASE_LO:
        s->aenq_base = deposit64(s->aenq_base, 0, 32, val);
        break;
    case ENAHW_R_AENQ_BASE_HI:
        s->aenq_base = deposit64(s->aenq_base, 32, 32, val & 0xffff);
        break;
    case ENAHW_R_AENQ_HEAD_DB:
        s->aenq_head_db = val & 0xffff;
        if (s->link_event_pending) {
            ena_post_link(s);
        }
        break;
    case ENAHW_R_INTR_MASK:
        s->intr_mask = val;
        break;
    case ENAHW_R_DEV_CTL:
        ena_dev_ctl_write(s, val);
        break;
    case ENAHW_R_MMIO_REG_READ:
        ena_readless(s, val);
        break;
    case ENAHW_R_MMIO_RESP_LO:
        s->mmio_resp_addr = deposit64(s->mmio_resp_addr, 0, 32, val);
        break;
    case ENAHW_R_MMIO_RESP_HI:
        s->mmio_resp_addr = deposit64(s->mmio_resp_addr, 32, 32, val);
        break;
    case ENAHW_R_RSS_IND_UPDATE: {
        uint32_t idx = val & 0xffff;

        if (idx >= ENAHW_RSS_TABLE_MAX) {
            qemu_log_mask(LOG_GUEST_ERROR, "ena: RSS index %u\n", idx);
            break;
        }
        s->rss_table[idx] = val >> 16;
        break;
    }
    default:
        qemu_log_mask(LOG_GUEST_ERROR,
                      "ena: write to read-only/unknown register 0x%" HWADDR_PRIx
                      "\n", addr);
        break;
    }
}

static const MemoryRegionOps ena_mmio_ops = {
    .read = ena_mmio_read,
    .write = ena_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
    .impl = {
        .min_access_size = 4,
        .max_access_size = 4,
    },
};

/* ------------------------------------------------------------------ */
/* BAR2: LLQ device memory                                             */

static EnaSq *ena_llq_locate(EnaState *s, hwaddr addr, unsigned size,
                             size_t *off)
{
    uint64_t slot_bytes = (uint64_t)s->llq_slot_depth * ENAHW_LLQ_ENTRY_BYTES;
    uint32_t slot = addr / slot_bytes;
    EnaSq *sq;

    if (slot >= s->qcap) {
        return NULL;
    }
    sq = &s->sqs[slot];
    if (!sq->live || !sq->llq) {
        return NULL;
    }
    *off = addr % slot_bytes;
    if (*off + size > (size_t)sq->depth * sq->llq_entry) {
        return NULL;
    }
    return sq;
}

static uint64_t ena_llq_read(void *opaque, hwaddr addr, unsigned size)
{
    EnaState *s = opaque;
    size_t off;
    EnaSq *sq = ena_llq_locate(s, addr, size, &off);

    return sq ? ldn_le_p(sq->llq + off, size) : 0;
}

static void ena_llq_write(void *opaque, hwaddr addr, uint64_t val,
                          unsigned size)
{
    EnaState *s = opaque;
    size_t off;
    EnaSq *sq = ena_llq_locate(s, addr, size, &off);

    if (!sq) {
        qemu_log_mask(LOG_GUEST_ERROR,
                      "ena: LLQ write outside a live queue at 0x%" HWADDR_PRIx
                      "\n", addr);
        return;
    }
    stn_le_p(sq->llq + off, size, val);
}

static const MemoryRegionOps ena_llq_ops = {
    .read = ena_llq_read,
    .write = ena_llq_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = {
        .min_access_size = 1,
        .max_access_size = 8,
    },
    .impl = {
        .min_access_size = 1,
        .max_access_size = 8,
    },
};

/* ------------------------------------------------------------------ */
/* QOM properties                                                      */

static void ena_get_i32(Object *obj, Visitor *v, const char *name,
                        void *opaque, Error **errp)
{
    visit_type_int32(v, name, opaque, errp);
}

static void ena_set_i32(Object *obj, Visitor *v, const char *name,
                        void *opaque, Error **errp)
{
    int32_t val;

    if (visit_type_int32(v, name, &val, errp)) {
        *(int32_t *)opaque = val;
    }
}

static void ena_get_u32(Object *obj, Visitor *v, const char *name,
                        void *opaque, Error **errp)
{
    visit_type_uint32(v, name, opaque, errp);
}

static void ena_set_u32(Object *obj, Visitor *v, const char *name,
                        void *opaque, Error **errp)
{
    uint32_t val;

    if (visit_type_uint32(v, name, &val, errp)) {
        *(uint32_t *)opaque = val;
    }
}

static void ena_set_keepalive(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    EnaState *s = ENA(obj);
    uint32_t val;

    if (!visit_type_uint32(v, name, &val, errp)) {
        return;
    }
    s->keepalive_ms = val;
    if (s->keepalive_timer) {
        ena_keepalive_arm(s);
    }
}

static void ena_set_max_depth(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    EnaState *s = ENA(obj);
    uint32_t val;

    if (!visit_type_uint32(v, name, &val, errp)) {
        return;
    }
    if (val < 1 || val > ENA_DEPTH_LIMIT) {
        error_setg(errp, "max-depth must be in 1..%u", ENA_DEPTH_LIMIT);
        return;
    }
    s->max_depth = val;
}

/*
 * max-queues and llq size the device at realize (MSI-X vectors, queue
 * tables, the LLQ window); afterwards they may move within that size and
 * take effect when the driver next reads the features.
 */
static void ena_set_max_queues(Object *obj, Visitor *v, const char *name,
                               void *opaque, Error **errp)
{
    EnaState *s = ENA(obj);
    uint32_t val, lim;

    if (!visit_type_uint32(v, name, &val, errp)) {
        return;
    }
    lim = DEVICE(obj)->realized ? s->qcap : ENA_MAX_QUEUES_LIMIT;
    if (val < 1 || val > lim) {
        error_setg(errp, "max-queues must be in 1..%u", lim);
        return;
    }
    s->max_queues = val;
}

static bool ena_get_llq(Object *obj, Error **errp)
{
    return ENA(obj)->llq_enabled;
}

static void ena_set_llq(Object *obj, bool val, Error **errp)
{
    EnaState *s = ENA(obj);

    if (val && DEVICE(obj)->realized && !s->has_llq_bar) {
        error_setg(errp, "llq: the device was created without an LLQ BAR");
        return;
    }
    s->llq_enabled = val;
}

static bool ena_get_tx_hold(Object *obj, Error **errp)
{
    return ENA(obj)->tx_hold;
}

/* tx-hold: a device that stops sending for a while, then catches up */
static void ena_set_tx_hold(Object *obj, bool val, Error **errp)
{
    EnaState *s = ENA(obj);
    uint32_t i;

    s->tx_hold = val;
    if (val || !ena_ready(s)) {
        return;
    }
    for (i = 0; s->sqs && i < s->qcap; i++) {
        if (s->sqs[i].live && s->sqs[i].dir == ENAHW_DIR_TX &&
            s->sqs[i].tail != s->sqs[i].head) {
            ena_tx_serve(s, i);
        }
    }
}

static bool ena_get_fatal(Object *obj, Error **errp)
{
    return ENA(obj)->fault_fatal;
}

static void ena_set_fatal(Object *obj, bool val, Error **errp)
{
    EnaState *s = ENA(obj);

    s->fault_fatal = val;
    if (val) {
        s->dev_sts |= ENAHW_STS_FATAL;
    } else {
        s->dev_sts &= ~ENAHW_STS_FATAL;
    }
}

static bool ena_get_false(Object *obj, Error **errp)
{
    return false;
}

static void ena_stat_reset(Object *obj, bool val, Error **errp)
{
    EnaState *s = ENA(obj);

    if (val) {
        memset(&s->st, 0, sizeof(s->st));
        memset(s->fuzz_count, 0, sizeof(s->fuzz_count));
        s->fuzz_irq_dup = 0;
        s->react_count = 0;
        s->react_db_first = 0;
        s->react_probe = UINT32_MAX;
        s->unreacted_count = 0;
    }
}

static char *ena_get_by_opcode(Object *obj, Error **errp)
{
    EnaState *s = ENA(obj);
    static const uint8_t ops[] = { 1, 2, 3, 4, 8, 9, 11 };
    GString *str = g_string_new(NULL);
    unsigned i;

    for (i = 0; i < ARRAY_SIZE(ops); i++) {
        g_string_append_printf(str, "%s%u:%" PRIu64, i ? " " : "", ops[i],
                               s->st.admin_by_op[ops[i]]);
    }
    return g_string_free(str, false);
}

/* "queues": one line per live SQ and the RSS table, for a test's report */
static char *ena_get_queues(Object *obj, Error **errp)
{
    EnaState *s = ENA(obj);
    GString *str = g_string_new(NULL);
    uint32_t i, n;

    for (i = 0; s->sqs && i < ena_nsq(s); i++) {
        EnaSq *sq = &s->sqs[i];
        EnaCq *cq;

        if (!sq->live) {
            continue;
        }
        cq = &s->cqs[sq->cq];
        g_string_append_printf(str, "sq %u %s head %u tail %u cq %u tail %u "
                               "vec %u%s%s\n", i,
                               sq->dir == ENAHW_DIR_TX ? "tx" : "rx",
                               sq->head, sq->tail, sq->cq, cq->tail,
                               cq->vector,
                               cq->vector < s->nr_vectors &&
                               s->vec_masked[cq->vector] ? " masked" : "",
                               cq->vector < s->nr_vectors &&
                               s->vec_pending[cq->vector] ? " pending" : "");
    }
    if (s->rss_table_set) {
        n = 1u << s->rss_table_log;
        g_string_append(str, "rss");
        for (i = 0; i < n; i++) {
            g_string_append_printf(str, " %u", s->rss_table[i]);
        }
        g_string_append_c(str, '\n');
    }
    return g_string_free(str, false);
}

static int ena_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

static uint64_t ena_react_stat(EnaState *s, const char *which)
{
    uint32_t n = MIN(s->react_count, ENA_REACT_SAMPLES);
    const char *kind = which + strlen("stat-react-");
    g_autofree int64_t *v = NULL;

    if (g_str_has_prefix(kind, "probe-")) {
        /* only the samples taken before the first CREATE_CQ: probe's */
        n = MIN(n, s->react_probe);
        kind += strlen("probe-");
    }
    if (!strcmp(kind, "count")) {
        return s->react_count;
    }
    if (!n) {
        return 0;
    }
    v = g_memdup2(s->react, n * sizeof(int64_t));
    qsort(v, n, sizeof(int64_t), ena_cmp_i64);
    if (!strcmp(kind, "median-ns")) {
        return v[n / 2];
    }
    if (!strcmp(kind, "p90-ns")) {
        return v[MIN(n - 1, (n * 9) / 10)];
    }
    return v[n - 1];
}

static uint64_t ena_ring_bytes(EnaState *s)
{
    uint64_t b = 0;
    uint32_t i;

    if (s->aq_base) {
        b += (uint64_t)ena_aq_depth(s) * ENAHW_ADMIN_ENTRY_SIZE;
    }
    if (s->acq_base) {
        b += (uint64_t)ena_acq_depth(s) * ENAHW_ADMIN_ENTRY_SIZE;
    }
    if (s->aenq_base) {
        b += (uint64_t)ena_aenq_depth(s) * ENAHW_AENQ_ENTRY_SIZE;
    }
    for (i = 0; s->sqs && i < ena_nsq(s); i++) {
        if (s->sqs[i].live && s->sqs[i].placement == ENAHW_PLACE_HOST) {
            b += (uint64_t)s->sqs[i].depth * 16;
        }
        if (s->cqs[i].live) {
            b += (uint64_t)s->cqs[i].depth * s->cqs[i].entry_size;
        }
    }
    return b;
}

static void ena_get_stat(Object *obj, Visitor *v, const char *name,
                         void *opaque, Error **errp)
{
    EnaState *s = ENA(obj);
    uint64_t val;

    if (!strncmp(name, "stat-react-", 11)) {
        val = ena_react_stat(s, name);
    } else if (!strcmp(name, "stat-ring-bytes")) {
        val = ena_ring_bytes(s);
    } else if (!strcmp(name, "stat-fuzz-total")) {
        int k;

        for (val = 0, k = 0; k < ENA_FUZZ_KINDS; k++) {
            val += s->fuzz_count[k];
        }
    } else {
        val = *(uint64_t *)opaque;
    }
    visit_type_uint64(v, name, &val, errp);
}

static void ena_add_u32(Object *obj, const char *name, uint32_t *p,
                        ObjectPropertyAccessor *set)
{
    object_property_add(obj, name, "uint32", ena_get_u32,
                        set ? set : ena_set_u32, NULL, p);
}

static void ena_get_u64(Object *obj, Visitor *v, const char *name,
                        void *opaque, Error **errp)
{
    visit_type_uint64(v, name, opaque, errp);
}

static void ena_set_u64(Object *obj, Visitor *v, const char *name,
                        void *opaque, Error **errp)
{
    uint64_t val;

    if (visit_type_uint64(v, name, &val, errp)) {
        *(uint64_t *)opaque = val;
    }
}

static void ena_get_flag(Object *obj, Visitor *v, const char *name,
                         void *opaque, Error **errp)
{
    visit_type_bool(v, name, opaque, errp);
}

static void ena_set_flag(Object *obj, Visitor *v, const char *name,
                         void *opaque, Error **errp)
{
    bool val;

    if (visit_type_bool(v, name, &val, errp)) {
        *(bool *)opaque = val;
    }
}

/* fuzz-seed: restart the generator with this seed; 0 stops the fuzzing */
static void ena_set_fuzz_seed(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    EnaState *s = ENA(obj);
    uint64_t val;

    if (!visit_type_uint64(v, name, &val, errp)) {
        return;
    }
    s->fuzz_seed = val;
    s->fuzz_rng = val;
    ena_fuzz_arm(s);
}

static void ena_set_cm_mask(Object *obj, Visitor *v, const char *name,
                            void *opaque, Error **errp)
{
    uint32_t val;

    if (!visit_type_uint32(v, name, &val, errp)) {
        return;
    }
    if (val & ~ENAHW_CM_ALL) {
        error_setg(errp, "%s: metric ids 0..%u only (mask 0x%x)", name,
                   ENAHW_CM_COUNT - 1, ENAHW_CM_ALL);
        return;
    }
    *(uint32_t *)opaque = val;
}

/* a run-time value the device reports (an ENI or ENA Express statistic) */
static void ena_add_value(Object *obj, const char *name, uint64_t *p)
{
    object_property_add(obj, name, "uint64", ena_get_u64, ena_set_u64, NULL,
                        p);
}

static void ena_add_flag(Object *obj, const char *name, bool *p)
{
    object_property_add(obj, name, "bool", ena_get_flag, ena_set_flag, NULL,
                        p);
}

static void ena_add_stat(Object *obj, const char *name, uint64_t *p)
{
    object_property_add(obj, name, "uint64", ena_get_stat, NULL, NULL, p);
}

static void ena_instance_init(Object *obj)
{
    EnaState *s = ENA(obj);

    s->admin_latency_us = 0;
    s->admin_jitter_us = 0;
    s->reset_latency_us = 100;
    s->max_depth = ENA_DEPTH_LIMIT;
    s->keepalive_ms = 1000;
    s->fault_status_opcode = -1;
    s->fault_status_code = ENAHW_ST_UNKNOWN;
    s->fault_status_feature = -1;
    s->fuzz_kind = -1;
    s->fuzz_gap_max = 64;
    s->fuzz_kinds = BIT(ENA_FUZZ_KINDS) - 1;
    s->max_queues = 8;
    s->llq_enabled = true;

    ena_add_u32(obj, "max-queues", &s->max_queues, ena_set_max_queues);
    object_property_add_bool(obj, "llq", ena_get_llq, ena_set_llq);

    ena_add_u32(obj, "admin-latency-us", &s->admin_latency_us, NULL);
    ena_add_u32(obj, "admin-jitter-us", &s->admin_jitter_us, NULL);
    ena_add_u32(obj, "reset-latency-us", &s->reset_latency_us, NULL);
    ena_add_u32(obj, "max-depth", &s->max_depth, ena_set_max_depth);
    ena_add_u32(obj, "keepalive-ms", &s->keepalive_ms, ena_set_keepalive);
    object_property_add(obj, "fault-status-opcode", "int32", ena_get_i32,
                        ena_set_i32, NULL, &s->fault_status_opcode);
    ena_add_u32(obj, "fault-status-code", &s->fault_status_code, NULL);
    object_property_add(obj, "fault-status-feature", "int32", ena_get_i32,
                        ena_set_i32, NULL, &s->fault_status_feature);
    ena_add_u32(obj, "fault-drop-next", &s->fault_drop_next, NULL);
    ena_add_u32(obj, "fault-delay-next-ms", &s->fault_delay_next_ms, NULL);
    ena_add_u32(obj, "fault-malformed", &s->fault_malformed, NULL);
    object_property_add_bool(obj, "fault-fatal", ena_get_fatal, ena_set_fatal);
    object_property_add_bool(obj, "tx-hold", ena_get_tx_hold, ena_set_tx_hold);
    ena_add_u32(obj, "fault-rx-bad-reqid", &s->fault_rx_bad_reqid, NULL);
    ena_add_u32(obj, "fault-rx-bad-len", &s->fault_rx_bad_len, NULL);
    ena_add_u32(obj, "fault-tx-bad-reqid", &s->fault_tx_bad_reqid, NULL);
    ena_add_u32(obj, "fault-status-after", &s->fault_status_after, NULL);
    ena_add_u32(obj, "fault-status-times", &s->fault_status_times, NULL);
    ena_add_u32(obj, "fault-rx-runt", &s->fault_rx_runt, NULL);
    ena_add_u32(obj, "fault-bad-db", &s->fault_bad_db, NULL);
    ena_add_u32(obj, "fault-tx-swallow", &s->fault_tx_swallow, NULL);
    ena_add_u32(obj, "fault-io-irq-drop", &s->fault_io_irq_drop, NULL);
    ena_add_u32(obj, "hint-missing-tx-ms", &s->hint_missing_tx_ms, NULL);
    object_property_add(obj, "fuzz-seed", "uint64", ena_get_u64,
                        ena_set_fuzz_seed, NULL, &s->fuzz_seed);
    ena_add_u32(obj, "fuzz-gap-max", &s->fuzz_gap_max, NULL);
    ena_add_u32(obj, "fuzz-kinds", &s->fuzz_kinds, NULL);
    ena_add_stat(obj, "stat-fuzz-rx-reqid",
                 &s->fuzz_count[ENA_FUZZ_RX_REQID]);
    ena_add_stat(obj, "stat-fuzz-rx-len", &s->fuzz_count[ENA_FUZZ_RX_LEN]);
    ena_add_stat(obj, "stat-fuzz-tx-reqid",
                 &s->fuzz_count[ENA_FUZZ_TX_REQID]);
    ena_add_stat(obj, "stat-fuzz-admin-id",
                 &s->fuzz_count[ENA_FUZZ_ADMIN_ID]);
    ena_add_stat(obj, "stat-fuzz-irq-drop",
                 &s->fuzz_count[ENA_FUZZ_IRQ_DROP]);
    ena_add_stat(obj, "stat-fuzz-admin-size",
                 &s->fuzz_count[ENA_FUZZ_ADMIN_SIZE]);
    ena_add_stat(obj, "stat-fuzz-irq-dup", &s->fuzz_irq_dup);
    ena_add_stat(obj, "stat-fuzz-total", NULL);
    ena_add_u32(obj, "hint-missed-tx", &s->hint_missed_tx, NULL);

    s->cm_mask = ENAHW_CM_ALL;
    ena_add_flag(obj, "eni-stats", &s->cap_eni_stats);
    ena_add_flag(obj, "ena-express", &s->cap_ena_srd);
    ena_add_flag(obj, "customer-metrics", &s->cap_customer_metrics);
    ena_add_u32(obj, "customer-metrics-mask", &s->cm_mask, ena_set_cm_mask);
    ena_add_value(obj, "eni-bw-in-exceeded",
                  &s->eni_val[ENAHW_CM_BW_IN_EXCEEDED]);
    ena_add_value(obj, "eni-bw-out-exceeded",
                  &s->eni_val[ENAHW_CM_BW_OUT_EXCEEDED]);
    ena_add_value(obj, "eni-pps-exceeded",
                  &s->eni_val[ENAHW_CM_PPS_EXCEEDED]);
    ena_add_value(obj, "eni-conntrack-exceeded",
                  &s->eni_val[ENAHW_CM_CONNTRACK_EXCEEDED]);
    ena_add_value(obj, "eni-linklocal-exceeded",
                  &s->eni_val[ENAHW_CM_LINKLOCAL_EXCEEDED]);
    ena_add_value(obj, "eni-conntrack-available",
                  &s->eni_val[ENAHW_CM_CONNTRACK_AVAILABLE]);
    ena_add_value(obj, "srd-mode", &s->srd_val[0]);
    ena_add_value(obj, "srd-tx-pkts", &s->srd_val[1]);
    ena_add_value(obj, "srd-eligible-tx-pkts", &s->srd_val[2]);
    ena_add_value(obj, "srd-rx-pkts", &s->srd_val[3]);
    ena_add_value(obj, "srd-resource-utilization", &s->srd_val[4]);

    ena_add_stat(obj, "stat-admin-cmds", &s->st.admin_cmds);
    object_property_add_str(obj, "stat-admin-by-opcode", ena_get_by_opcode,
                            NULL);
    ena_add_stat(obj, "stat-admin-doorbells", &s->st.admin_doorbells);
    ena_add_stat(obj, "stat-io-doorbells", &s->st.io_doorbells);
    ena_add_stat(obj, "stat-queues-created", &s->st.queues_created);
    ena_add_stat(obj, "stat-queues-destroyed", &s->st.queues_destroyed);
    ena_add_stat(obj, "stat-ring-bytes", NULL);
    ena_add_stat(obj, "stat-resets", &s->st.resets);
    ena_add_stat(obj, "stat-tx-packets", &s->st.tx_packets);
    ena_add_stat(obj, "stat-rx-packets", &s->st.rx_packets);
    ena_add_stat(obj, "stat-rx-dropped", &s->st.rx_dropped);
    ena_add_stat(obj, "stat-aenq-dropped", &s->st.aenq_dropped);
    object_property_add_str(obj, "queues", ena_get_queues, NULL);
    ena_add_stat(obj, "stat-react-count", NULL);
    ena_add_stat(obj, "stat-react-median-ns", NULL);
    ena_add_stat(obj, "stat-react-p90-ns", NULL);
    ena_add_stat(obj, "stat-react-max-ns", NULL);
    ena_add_stat(obj, "stat-react-probe-median-ns", NULL);
    object_property_add_bool(obj, "stat-reset", ena_get_false, ena_stat_reset);
}

/* ------------------------------------------------------------------ */
/* device lifecycle                                                    */

static NetClientInfo ena_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .can_receive = ena_can_receive,
    .receive = ena_receive,
    .link_status_changed = ena_set_link,
};

static void ena_realize(PCIDevice *pd, Error **errp)
{
    EnaState *s = ENA(pd);
    uint8_t *cfg = pd->config;
    uint64_t need;
    uint32_t i;
    int ret;

    if (s->max_queues < 1 || s->max_queues > ENA_MAX_QUEUES_LIMIT) {
        error_setg(errp, "max-queues must be in 1..%u", ENA_MAX_QUEUES_LIMIT);
        return;
    }
    s->qcap = s->max_queues;
    s->has_llq_bar = s->llq_enabled;
    s->react_probe = UINT32_MAX;
    pci_config_set_device_id(cfg, s->device_id);
    pci_set_word(cfg + PCI_SUBSYSTEM_VENDOR_ID, ENAHW_VENDOR_AMAZON);
    pci_set_word(cfg + PCI_SUBSYSTEM_ID, s->device_id);

    memory_region_init_io(&s->mmio, OBJECT(s), &ena_mmio_ops, s, "ena-regs",
                          ENAHW_REGS_SIZE);
    pci_register_bar(pd, ENAHW_BAR_REGS, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->mmio);

    /* every TX queue gets a window large enough for the deepest LLQ */
    s->llq_slot_depth = ENA_LLQ_DEPTH_LIMIT;
    need = (uint64_t)s->qcap * s->llq_slot_depth * ENAHW_LLQ_ENTRY_BYTES;
    s->llq_bar_size = MAX(pow2ceil(need), 1 * MiB);
    if (s->has_llq_bar) {
        memory_region_init_io(&s->llq_mr, OBJECT(s), &ena_llq_ops, s,
                              "ena-llq", s->llq_bar_size);
        pci_register_bar(pd, ENAHW_BAR_LLQ,
                         PCI_BASE_ADDRESS_SPACE_MEMORY |
                         PCI_BASE_ADDRESS_MEM_PREFETCH |
                         PCI_BASE_ADDRESS_MEM_TYPE_64, &s->llq_mr);
    }

    /* a PCIe endpoint with function level reset, like the real thing */
    if (pcie_endpoint_cap_init(pd, 0xa0) < 0) {
        error_setg(errp, "ena: cannot add the PCIe capability");
        return;
    }
    s->nr_vectors = 1 + s->qcap;
    ret = msix_init_exclusive_bar(pd, s->nr_vectors, ENAHW_BAR_MSIX, errp);
    if (ret) {
        pcie_cap_exit(pd);
        return;
    }
    pcie_cap_flr_init(pd);
    for (i = 0; i < s->nr_vectors; i++) {
        msix_vector_use(pd, i);
    }

    s->cqs = g_new0(EnaCq, ena_nsq(s));
    s->sqs = g_new0(EnaSq, ena_nsq(s));
    s->vec_masked = g_new0(bool, s->nr_vectors);
    s->vec_pending = g_new0(bool, s->nr_vectors);
    s->vec_unmasked = g_new0(bool, s->nr_vectors);
    s->tx_frame = g_malloc(ENA_TX_FRAME_MAX);

    s->admin_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, ena_admin_timer_cb, s);
    s->reset_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, ena_reset_done_cb, s);
    s->keepalive_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, ena_keepalive_cb, s);

    ena_soft_reset(s);
    s->dev_sts = ENAHW_STS_READY;

    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    s->nic = qemu_new_nic(&ena_net_info, &s->conf,
                          object_get_typename(OBJECT(s)),
                          DEVICE(s)->id, &DEVICE(s)->mem_reentrancy_guard, s);
    qemu_format_nic_info_str(qemu_get_queue(s->nic), s->conf.macaddr.a);
    ena_keepalive_arm(s);
}

static void ena_exit(PCIDevice *pd)
{
    EnaState *s = ENA(pd);

    timer_free(s->admin_timer);
    timer_free(s->reset_timer);
    timer_free(s->keepalive_timer);
    s->admin_timer = s->reset_timer = s->keepalive_timer = NULL;
    ena_drop_queues(s);
    qemu_del_nic(s->nic);
    msix_unuse_all_vectors(pd);
    msix_uninit_exclusive_bar(pd);
    pcie_cap_exit(pd);
    g_free(s->cqs);
    g_free(s->sqs);
    g_free(s->vec_masked);
    g_free(s->vec_pending);
    g_free(s->vec_unmasked);
    g_free(s->tx_frame);
    s->cqs = NULL;
    s->sqs = NULL;
}

static void ena_write_config(PCIDevice *pd, uint32_t addr, uint32_t val,
                             int len)
{
    pci_default_write_config(pd, addr, val, len);
    pcie_cap_flr_write_config(pd, addr, val, len);
}

static void ena_reset_hold(Object *obj, ResetType type)
{
    EnaState *s = ENA(obj);

    timer_del(s->reset_timer);
    ena_soft_reset(s);
    s->dev_ctl = 0;
    s->dev_sts = ENAHW_STS_READY | (s->fault_fatal ? ENAHW_STS_FATAL : 0);
    ena_keepalive_arm(s);
}

static int ena_post_load(void *opaque, int version_id)
{
    EnaState *s = opaque;

    /* IO queues are not part of the stream: the driver must reset */
    ena_drop_queues(s);
    return 0;
}

static const VMStateDescription ena_vmstate = {
    .name = "ena",
    .version_id = 1,
    .minimum_version_id = 1,
    .post_load = ena_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_PCI_DEVICE(parent_obj, EnaState),
        VMSTATE_MSIX(parent_obj, EnaState),
        VMSTATE_UINT64(aq_base, EnaState),
        VMSTATE_UINT32(aq_caps, EnaState),
        VMSTATE_UINT64(acq_base, EnaState),
        VMSTATE_UINT32(acq_caps, EnaState),
        VMSTATE_UINT32(aq_db, EnaState),
        VMSTATE_UINT64(aenq_base, EnaState),
        VMSTATE_UINT32(aenq_caps, EnaState),
        VMSTATE_UINT32(aenq_head_db, EnaState),
        VMSTATE_UINT32(intr_mask, EnaState),
        VMSTATE_UINT32(dev_ctl, EnaState),
        VMSTATE_UINT32(dev_sts, EnaState),
        VMSTATE_UINT32(mmio_read_req, EnaState),
        VMSTATE_UINT64(mmio_resp_addr, EnaState),
        VMSTATE_UINT32(aq_head, EnaState),
        VMSTATE_UINT32(acq_tail, EnaState),
        VMSTATE_UINT32(aenq_tail, EnaState),
        VMSTATE_UINT32(aenq_groups, EnaState),
        VMSTATE_UINT32(mtu, EnaState),
        VMSTATE_END_OF_LIST()
    },
};

static const Property ena_properties[] = {
    DEFINE_NIC_PROPERTIES(EnaState, conf),
    DEFINE_PROP_UINT16("device-id", EnaState, device_id, ENAHW_DEVICE_PF),
};

static void ena_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = ena_realize;
    k->exit = ena_exit;
    k->config_write = ena_write_config;
    k->vendor_id = ENAHW_VENDOR_AMAZON;
    k->device_id = ENAHW_DEVICE_PF;
    k->revision = 0;
    k->class_id = PCI_CLASS_NETWORK_ETHERNET;
    rc->phases.hold = ena_reset_hold;

    dc->desc = "Amazon Elastic Network Adapter";
    dc->vmsd = &ena_vmstate;
    device_class_set_props(dc, ena_properties);
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo ena_info = {
    .name = TYPE_ENA,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(EnaState),
    .instance_init = ena_instance_init,
    .class_init = ena_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void ena_register_types(void)
{
    type_register_static(&ena_info);
}

type_init(ena_register_types)
