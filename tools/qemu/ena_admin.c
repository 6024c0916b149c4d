/*
 * Amazon Elastic Network Adapter (ENA) device model: the admin side
 *
 * Device reset (DEV_CTL), the admin submission/completion queues and their
 * commands (GET/SET_FEATURE, GET_STATS), the asynchronous event queue and
 * the keep-alive.  Creating and destroying IO queues is in ena_io.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "qemu/bswap.h"
#include "qemu/host-utils.h"
#include "net/net.h"
#include "hw/pci/pci.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/msix.h"
#include "trace.h"

#include "ena_int.h"

static const uint8_t ena_default_rss_key[ENAHW_RSS_KEY_BYTES] = {
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
    0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
    0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
    0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
    0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* ------------------------------------------------------------------ */
/* helpers                                                             */

bool ena_pow2_depth(uint32_t depth, uint32_t max)
{
    return depth >= 1 && depth <= max && is_power_of_2(depth);
}

uint32_t ena_aq_depth(EnaState *s)
{
    return s->aq_caps & 0xffff;
}

uint32_t ena_acq_depth(EnaState *s)
{
    return s->acq_caps & 0xffff;
}

uint32_t ena_aenq_depth(EnaState *s)
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
/* AENQ                                                                */

static bool ena_aenq_post(EnaState *s, uint16_t group, uint16_t syndrome,
                          const uint8_t *data, size_t data_len)
{
    uint8_t ev[ENAHW_AENQ_ENTRY_SIZE] = { 0 };
    uint32_t depth;
    uint16_t room;
    uint64_t ts, addr;

    if (!ena_ready(s) || !ena_aenq_ok(s)) {
        return false;
    }
    if (group >= 32 || !(s->aenq_groups & BIT(group))) {
        /* a group the driver did not enable: not posted, as a device does */
        s->st.aenq_disabled++;
        trace_ena_aenq_disabled(group, syndrome, s->aenq_groups);
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

void ena_post_link(EnaState *s)
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

/* one FATAL_ERROR event (property fault-aenq-fatal); false if not posted */
bool ena_post_fatal_event(EnaState *s)
{
    uint8_t data[4] = { 0 };

    return ena_aenq_post(s, ENAHW_AEG_FATAL_ERROR, 0, data, sizeof(data));
}

/* the device's current hints, as GET HW_HINTS and UPDATE_HINTS carry them */
void ena_hints_fill(EnaState *s, uint8_t *h)
{
    memset(h, 0, ENAHW_HINTS_BYTES);
    stw_le_p(h + ENAHW_HINT_MMIO_READ_MS, s->hint_mmio_read_ms);
    stw_le_p(h + ENAHW_HINT_KEEPALIVE_MS, s->hint_keepalive_ms);
    stw_le_p(h + ENAHW_HINT_MISSING_TX_MS, s->hint_missing_tx_ms);
    stw_le_p(h + ENAHW_HINT_MISSED_TX, s->hint_missed_tx);
    stw_le_p(h + ENAHW_HINT_ADMIN_MS, s->hint_admin_ms);
    stw_le_p(h + ENAHW_HINT_NETDEV_WD_MS, s->hint_netdev_wd_ms);
    stw_le_p(h + ENAHW_HINT_MAX_TX_SGL, s->max_tx_sgl);
    stw_le_p(h + ENAHW_HINT_MAX_RX_SGL, s->max_rx_sgl);
}

/*
 * One event of @group (property aenq-inject): NOTIFICATION/UPDATE_HINTS
 * carries the current hints, CONF_NOTIFICATIONS @data as its u64 bitmap,
 * the others @data as their first u64.  Returns what became of it:
 * "posted", "disabled" (the driver did not enable the group: dropped and
 * counted in stat-aenq-disabled), "full" (stat-aenq-dropped) or
 * "not-ready" (no AENQ programmed).
 */
const char *ena_aenq_inject(EnaState *s, uint16_t group, uint16_t syndrome,
                            uint64_t data)
{
    uint8_t d[ENAHW_AENQ_ENTRY_SIZE - ENAHW_AE_DATA] = { 0 };
    uint64_t dropped = s->st.aenq_dropped;

    s->st.aenq_injected++;
    trace_ena_aenq_inject(group, syndrome, data);
    if (!ena_ready(s) || !ena_aenq_ok(s)) {
        return "not-ready";
    }
    if (group == ENAHW_AEG_NOTIFICATION &&
        syndrome == ENAHW_AEN_UPDATE_HINTS) {
        ena_hints_fill(s, d);
    } else {
        stq_le_p(d, data);
    }
    if (ena_aenq_post(s, group, syndrome, d, sizeof(d))) {
        return "posted";
    }
    return s->st.aenq_dropped != dropped ? "full" : "disabled";
}

void ena_keepalive_arm(EnaState *s)
{
    if (s->keepalive_ms) {
        timer_mod(s->keepalive_timer,
                  ena_now() + (int64_t)s->keepalive_ms * SCALE_MS);
    } else {
        timer_del(s->keepalive_timer);
    }
}

void ena_keepalive_cb(void *opaque)
{
    EnaState *s = opaque;
    uint8_t data[24] = { 0 };

    stl_le_p(data + 0, (uint32_t)s->st.rx_dropped);
    stl_le_p(data + 4, (uint32_t)(s->st.rx_dropped >> 32));
    /* tx drops (8..15) stay zero */
    stl_le_p(data + 16, (uint32_t)s->st.rx_overruns);
    stl_le_p(data + 20, (uint32_t)(s->st.rx_overruns >> 32));
    ena_aenq_post(s, ENAHW_AEG_KEEP_ALIVE, 0, data, sizeof(data));
    ena_keepalive_arm(s);
}

/* ------------------------------------------------------------------ */
/* device reset                                                        */

/*
 * The admin side of a reset: the admin queue and the commands in it, the
 * register file and every setting the driver made are forgotten.  The IO
 * queues are dropped apart (ena_soft_reset(), ena_reset_done_cb()).
 */
static void ena_reset_admin(EnaState *s)
{
    timer_del(s->admin_timer);
    s->done_count = 0;
    memset(s->admin_busy, 0, sizeof(s->admin_busy));
    s->react_due = false;

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
    s->llq_accel_on = 0;
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

/* Everything the driver set up is forgotten; the device stays in reset. */
void ena_soft_reset(EnaState *s)
{
    ena_drop_queues(s);
    ena_reset_admin(s);
    s->dev_max_mtu = s->max_mtu;
}

/*
 * The reset completes: only now do the IO queues stop (until here they ran
 * on, DMA and interrupts included), and the device reads the settings that
 * apply from one reset to the next.  With fault-never-ready the reset ends
 * but READY never comes back.
 */
void ena_reset_done_cb(void *opaque)
{
    EnaState *s = opaque;

    ena_drop_queues(s);
    s->dev_max_mtu = s->max_mtu;
    s->dev_sts = (s->fault_never_ready ? 0 : ENAHW_STS_READY) |
                 ENAHW_STS_RESET_DONE |
                 (s->fault_fatal ? ENAHW_STS_FATAL : 0);
    trace_ena_reset_done(!s->fault_never_ready);
    if (!s->fault_never_ready) {
        ena_keepalive_arm(s);
    }
}

void ena_dev_ctl_write(EnaState *s, uint32_t val)
{
    s->dev_ctl = val;
    if (s->fault_reset_ignore) {
        /* a device that never takes the reset: nothing stops, nothing shows */
        trace_ena_reset_ignored(val);
        return;
    }
    if (val & ENAHW_CTL_RESET) {
        if (!(s->dev_sts & ENAHW_STS_RESET_BUSY)) {
            uint32_t reason = val >> ENAHW_CTL_REASON_SHIFT;

            /*
             * Reasons above 15 take bits 27:24 too, only on a device that
             * offers extended reset reasons (the capability of the last
             * DEVICE_ATTRIBUTES); a driver must fall back otherwise.
             */
            if (val & ENAHW_CTL_REASON_EXT_MASK) {
                if (s->cap_ext_reset_reasons) {
                    reason |= ((val & ENAHW_CTL_REASON_EXT_MASK) >>
                               ENAHW_CTL_REASON_EXT_SHIFT) << 4;
                } else {
                    ena_guest_error(s, ENA_ERR_MMIO,
                                    "DEV_CTL 0x%x: extended reset reason "
                                    "without the capability", val);
                }
            }
            trace_ena_reset_start(reason);
            s->st.resets++;
            s->reset_reason[s->st.resets % ENA_RESET_HISTORY] = reason;
            ena_fuzz_arm(s);
            timer_del(s->reset_timer);
            /* the IO queues run on until the reset completes */
            ena_reset_admin(s);
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

    s->react_last_done = ena_now();
    s->react_due = true;
    if (s->fault_admin_irq_lost) {
        /* posted, but the MSI-X message is lost on its way */
        s->fault_admin_irq_lost--;
        s->st.admin_irqs_lost++;
        trace_ena_admin_irq_lost(lduw_le_p(cqe + ENAHW_CQE_CMD_ID),
                                 s->fault_admin_irq_lost);
        return;
    }
    ena_mgmt_irq(s);
}

static void ena_admin_run(EnaState *s, const uint8_t *sqe, bool drop);

/*
 * Execute the commands that are due, in due-time order (submission order
 * among equals), each posting its completion as it is done; then arm the
 * timer for the next one.
 */
static void ena_admin_flush(EnaState *s)
{
    int64_t now = ena_now();
    int64_t next = INT64_MAX;
    EnaDone cmd;

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
        /* taken off the list before it runs */
        cmd = s->done[best];
        s->done[best] = s->done[--s->done_count];
        ena_admin_run(s, cmd.sqe, cmd.drop);
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

void ena_admin_timer_cb(void *opaque)
{
    ena_admin_flush(opaque);
}

/*
 * When a command's work starts: at once, or with admin-parallel = N when
 * the first of N engines is free (each works on one command at a time).
 */
static int64_t ena_admin_start(EnaState *s, int64_t delay)
{
    uint32_t n = MIN(s->admin_parallel, ENA_ADMIN_ENGINES);
    int64_t start = ena_now();
    uint32_t i, k = 0;

    if (!n) {
        return start;
    }
    for (i = 1; i < n; i++) {
        if (s->admin_busy[i] < s->admin_busy[k]) {
            k = i;
        }
    }
    start = MAX(start, s->admin_busy[k]);
    s->admin_busy[k] = start + delay;
    return start;
}

/*
 * A command fetched from the AQ: it is worked on for admin-latency-us
 * (+ jitter, + a one-shot fault-delay-next-ms) from when an engine is free,
 * and executed when that time is up (ena_admin_flush()).  Until then it has
 * no effect: a destroyed queue runs on until its DESTROY completes.
 */
static void ena_admin_submit(EnaState *s, const uint8_t *sqe)
{
    int64_t delay = (int64_t)s->admin_latency_us * SCALE_US;
    uint16_t cmd_id = lduw_le_p(sqe + ENAHW_SQE_CMD_ID) & ENAHW_CMD_ID_MASK;
    bool drop = false;
    EnaDone *d;

    if (s->fault_drop_next) {
        s->fault_drop_next--;
        trace_ena_admin_fault("drop", cmd_id);
        drop = true;
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
        ena_admin_run(s, sqe, drop);
        return;
    }
    d = &s->done[s->done_count++];
    memcpy(d->sqe, sqe, sizeof(d->sqe));
    d->drop = drop;
    d->due = ena_admin_start(s, delay) + delay;
    s->st.admin_max_inflight = MAX(s->st.admin_max_inflight, s->done_count);
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
                 BIT(ENAHW_F_RSS_INPUT) |
                 BIT(ENAHW_F_AENQ_CONFIG) | BIT(ENAHW_F_LINK_CONFIG) |
                 BIT(ENAHW_F_HOST_ATTR);

    if (s->intr_delay_res) {
        f |= BIT(ENAHW_F_INTR_MODER);
    }
    if (s->llq_enabled) {
        f |= BIT(ENAHW_F_LLQ);
    }
    return f;
}

static uint32_t ena_capabilities(EnaState *s)
{
    return (s->cap_eni_stats ? BIT(ENAHW_CAP_ENI_STATS) : 0) |
           (s->cap_ena_srd ? BIT(ENAHW_CAP_ENA_SRD_INFO) : 0) |
           (s->cap_customer_metrics ? BIT(ENAHW_CAP_CUSTOMER_METRICS) : 0) |
           (s->cap_ext_reset_reasons ? BIT(ENAHW_CAP_EXT_RESET_REASONS) : 0);
}

/* the deepest LLQ, in 128-byte entries */
uint32_t ena_llq_max_depth(EnaState *s)
{
    uint32_t d = MIN(s->llq_slot_depth, ena_max_depth(s, ENAHW_DIR_TX));

    return s->llq_max_depth ? MIN(d, pow2floor(s->llq_max_depth)) : d;
}

/*
 * The deepest queue of a direction (ENAHW_DIR_TX or _RX; 0: either, what a
 * CQ may be, as CREATE_CQ names no direction).  Real devices report
 * different limits for TX and RX: max-tx-depth and max-rx-depth, both
 * under max-depth.
 */
uint32_t ena_max_depth(EnaState *s, uint8_t dir)
{
    uint32_t d = dir == ENAHW_DIR_TX ? s->max_tx_depth :
                 dir == ENAHW_DIR_RX ? s->max_rx_depth :
                 MAX(s->max_tx_depth, s->max_rx_depth);

    d = MIN(MIN(d, s->max_depth), ENA_DEPTH_LIMIT);
    return pow2floor(MAX(d, 1));
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
        memcpy(r + 24, s->mac_reported_set ? s->mac_reported :
               s->conf.macaddr.a, 6);
        stl_le_p(r + 32, s->dev_max_mtu);
        return ENAHW_ST_OK;

    case ENAHW_F_MAX_QUEUES_EXT:
        r[0] = 1;                               /* version */
        stl_le_p(r + 4, s->max_queues);         /* max tx sq */
        stl_le_p(r + 8, s->max_queues);         /* max tx cq */
        stl_le_p(r + 12, s->max_queues);        /* max rx sq */
        stl_le_p(r + 16, s->max_queues);        /* max rx cq */
        stl_le_p(r + 20, ena_max_depth(s, ENAHW_DIR_TX)); /* tx sq depth */
        stl_le_p(r + 24, ena_max_depth(s, ENAHW_DIR_TX)); /* tx cq depth */
        stl_le_p(r + 28, ena_max_depth(s, ENAHW_DIR_RX)); /* rx sq depth */
        stl_le_p(r + 32, ena_max_depth(s, ENAHW_DIR_RX)); /* rx cq depth */
        stl_le_p(r + 36, ENAHW_LLQ_ENTRY_BYTES -
                 ENAHW_LLQ_DESCS_BEFORE_HDR * 16); /* max tx header */
        stw_le_p(r + 40, s->max_tx_sgl);           /* tx descs per packet */
        stw_le_p(r + 42, s->max_rx_sgl);           /* rx descs per packet */
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
        /* one depth for both directions: the smaller fits either */
        stl_le_p(r + 0, s->max_queues);
        stl_le_p(r + 4, MIN(ena_max_depth(s, ENAHW_DIR_TX),
                            ena_max_depth(s, ENAHW_DIR_RX)));
        stl_le_p(r + 8, s->max_queues);
        stl_le_p(r + 12, MIN(ena_max_depth(s, ENAHW_DIR_TX),
                             ena_max_depth(s, ENAHW_DIR_RX)));
        stl_le_p(r + 16, s->llq_enabled ? s->max_queues : 0);
        stl_le_p(r + 20, s->llq_enabled ? ena_llq_max_depth(s) : 0);
        stl_le_p(r + 24, ENAHW_LLQ_ENTRY_BYTES -
                 ENAHW_LLQ_DESCS_BEFORE_HDR * 16);
        stw_le_p(r + 28, s->max_tx_sgl);
        stw_le_p(r + 30, s->max_rx_sgl);
        return ENAHW_ST_OK;

    case ENAHW_F_HW_HINTS:
        /* zero means "keep the driver's default" for every hint */
        ena_hints_fill(s, r);
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
        r[25] = s->llq_large_rec ? ENAHW_LLQ_ENTRY_256 : ENAHW_LLQ_ENTRY_128;
        stw_le_p(r + 28, s->llq_accel);
        stw_le_p(r + 30, s->llq_accel & ENAHW_LLQ_ACCEL_TX_BURST ?
                 s->llq_max_burst : 0);
        return ENAHW_ST_OK;

    case ENAHW_F_AENQ_CONFIG:
        stl_le_p(r + 0, s->aenq_supported);
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
        stw_le_p(r + 0, s->intr_delay_res);     /* delay resolution, us */
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
        if (v & ~s->aenq_supported) {
            ena_guest_error(s, ENA_ERR_FEATURE,
                            "AENQ groups 0x%x not supported", v);
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
            ena_guest_error(s, ENA_ERR_FEATURE, "unsupported LLQ config");
            return ENAHW_ST_ILLEGAL;
        }
        /*
         * The in-tree driver asks for both accel modes whether offered or
         * not: a mode is on where both sides have it.
         */
        s->llq_accel_on = lduw_le_p(d + 28) & s->llq_accel;
        s->llq_entry = v == ENAHW_LLQ_ENTRY_256 ? 256 : 128;
        s->llq_configured = true;
        return ENAHW_ST_OK;

    case ENAHW_F_MTU:
        v = ldl_le_p(d);
        if (v < 68 || v > s->dev_max_mtu) {
            ena_guest_error(s, ENA_ERR_FEATURE, "bad MTU %u", v);
            return ENAHW_ST_ILLEGAL;
        }
        s->mtu = v;
        return ENAHW_ST_OK;

    case ENAHW_F_RSS_FUNC:
        v = ldl_le_p(d + 4) & 0xff;
        if (v != BIT(ENAHW_RSS_FUNC_TOEPLITZ) &&
            v != BIT(ENAHW_RSS_FUNC_CRC32)) {
            ena_guest_error(s, ENA_ERR_FEATURE, "bad RSS function 0x%x", v);
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
            ena_guest_error(s, ENA_ERR_FEATURE,
                            "bad RSS table (log %u len %u)", log, cb_len);
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
        ena_guest_error(s, ENA_ERR_FEATURE,
                        "GET_STATS customer metrics: buffer 0x%" PRIx64
                        " len %u for %u metrics", addr, len, n);
        return ENAHW_ST_MALFORMED;
    }
    if (n && pci_dma_write(PCI_DEVICE(s), addr, vals, n * 8) != MEMTX_OK) {
        ena_guest_error(s, ENA_ERR_FEATURE,
                        "GET_STATS customer metrics: DMA to 0x%" PRIx64
                        " failed", addr);
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
        ena_guest_error(s, ENA_ERR_FEATURE, "GET_STATS bad type %u", type);
        return ENAHW_ST_ILLEGAL;
    }
    /* extended, or a kind of statistics not advertised */
    return ENAHW_ST_UNSUPPORTED;
}

/* ------------------------------------------------------------------ */
/* admin queue                                                         */

/* A command is done: it takes effect and (unless dropped) completes. */
static void ena_admin_run(EnaState *s, const uint8_t *sqe, bool drop)
{
    uint8_t cqe[ENAHW_ADMIN_ENTRY_SIZE] = { 0 };
    uint8_t op = sqe[ENAHW_SQE_OPCODE];
    uint16_t cmd_id = lduw_le_p(sqe + ENAHW_SQE_CMD_ID) & ENAHW_CMD_ID_MASK;
    bool is_feat = op == ENAHW_OP_GET_FEAT || op == ENAHW_OP_SET_FEAT;
    uint8_t status;

    trace_ena_admin_run(cmd_id, op);
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
            ena_guest_error(s, ENA_ERR_ADMIN, "bad admin opcode %u", op);
            status = ENAHW_ST_BAD_OPCODE;
            break;
        }
    }
    if (status != ENAHW_ST_OK) {
        memset(cqe, 0, sizeof(cqe));
    }
    stw_le_p(cqe + ENAHW_CQE_CMD_ID, cmd_id);
    cqe[ENAHW_CQE_STATUS] = status;
    if (!drop) {
        ena_acq_post(s, cqe);
    }
}

/* A command fetched: counted now, executed when the device is done. */
static void ena_admin_fetched(EnaState *s, const uint8_t *sqe)
{
    uint8_t op = sqe[ENAHW_SQE_OPCODE];
    uint16_t cmd_id = lduw_le_p(sqe + ENAHW_SQE_CMD_ID) & ENAHW_CMD_ID_MASK;
    bool is_feat = op == ENAHW_OP_GET_FEAT || op == ENAHW_OP_SET_FEAT;

    s->st.admin_cmds++;
    if (op < ENA_OPCODES) {
        s->st.admin_by_op[op]++;
    }
    trace_ena_admin_cmd(cmd_id, op, is_feat ? sqe[ENAHW_FEAT_ID] : 0);
    /*
     * The first IO queue ends the driver's probe: its reaction samples
     * are the ones taken before this command's doorbell.
     */
    if (op == ENAHW_OP_CREATE_CQ && s->react_probe == UINT32_MAX) {
        s->react_probe = s->react_db_first;
    }
    ena_admin_submit(s, sqe);
}

/*
 * The host-info page the driver handed over with SET HOST_ATTR_CONFIG, read
 * now from guest memory, as "key=value" lines (property "host-info"): what
 * the device would learn about the instance's OS and driver.
 */
char *ena_host_info_str(EnaState *s)
{
    uint8_t p[ENAHW_HOST_INFO_SIZE];
    char dist[129], kver[33];
    uint16_t bdf;

    if (!s->host_info_addr) {
        return g_strdup("");
    }
    if (pci_dma_read(PCI_DEVICE(s), s->host_info_addr, p, sizeof(p)) !=
        MEMTX_OK) {
        return g_strdup("unreadable\n");
    }
    memcpy(dist, p + 4, 128);
    dist[128] = 0;
    memcpy(kver, p + 136, 32);
    kver[32] = 0;
    bdf = lduw_le_p(p + 186);
    return g_strdup_printf("os_type=%u\nos_dist_str=%s\nos_dist=%u\n"
                           "kernel_ver_str=%s\nkernel_ver=0x%x\n"
                           "driver_version=0x%x\nspec_version=0x%x\n"
                           "bdf=%02x:%02x.%x\nnum_cpus=%u\n"
                           "driver_supported_features=0x%x\n",
                           ldl_le_p(p), dist, ldl_le_p(p + 132), kver,
                           ldl_le_p(p + 168), ldl_le_p(p + 172),
                           lduw_le_p(p + 184), bdf >> 8, (bdf >> 3) & 0x1f,
                           bdf & 7, lduw_le_p(p + 188), ldl_le_p(p + 192));
}

void ena_aq_doorbell(EnaState *s, uint32_t val)
{
    uint8_t sqe[ENAHW_ADMIN_ENTRY_SIZE];
    uint32_t depth, pending, i;
    int64_t now = ena_now();

    s->aq_db = val;
    s->st.admin_doorbells++;
    s->react_db_first = s->react_count;
    /*
     * The driver's reaction: from the newest completion to this doorbell.
     * The older ones of a batch waited for the batch, not for the driver;
     * with one command in flight there is only one.
     */
    if (s->react_due) {
        ena_react_sample(s, now - s->react_last_done);
    }
    s->react_due = false;

    if (!ena_ready(s)) {
        ena_guest_error(s, ENA_ERR_ADMIN, "AQ doorbell while not ready");
        return;
    }
    if (!ena_admin_queues_ok(s)) {
        ena_guest_error(s, ENA_ERR_ADMIN, "AQ doorbell, admin queue unset");
        return;
    }
    depth = ena_aq_depth(s);
    pending = (uint16_t)(val - (uint16_t)s->aq_head);
    if (pending > depth) {
        ena_guest_error(s, ENA_ERR_ADMIN, "AQ doorbell %u beyond depth",
                        val);
        return;
    }
    while (pending--) {
        uint64_t addr = s->aq_base + (uint64_t)(s->aq_head & (depth - 1)) *
                        ENAHW_ADMIN_ENTRY_SIZE;

        if (pci_dma_read(PCI_DEVICE(s), addr, sqe, sizeof(sqe)) != MEMTX_OK) {
            ena_guest_error(s, ENA_ERR_ADMIN, "AQ entry DMA failed");
            break;
        }
        if ((sqe[ENAHW_SQE_FLAGS] & ENAHW_SQE_F_PHASE) !=
            ena_phase(s->aq_head, depth)) {
            ena_guest_error(s, ENA_ERR_ADMIN,
                            "AQ entry %u has a stale phase", s->aq_head);
        }
        s->aq_head++;
        ena_admin_fetched(s, sqe);
    }
    ena_admin_flush(s);
}
