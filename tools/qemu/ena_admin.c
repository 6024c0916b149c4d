/*
 * Amazon Elastic Network Adapter (ENA) device model: the core's admin side
 *
 * Device reset (DEV_CTL), the admin submission/completion queues and their
 * commands (GET/SET_FEATURE, GET_STATS), the asynchronous event queue and
 * the keep-alive.  Creating and destroying IO queues is in ena_io.c, the
 * registers that lead here in ena_core.c.
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

uint32_t ena_aq_depth(EnaCore *core)
{
    return core->aq_caps & 0xffff;
}

uint32_t ena_acq_depth(EnaCore *core)
{
    return core->acq_caps & 0xffff;
}

uint32_t ena_aenq_depth(EnaCore *core)
{
    return core->aenq_caps & 0xffff;
}

static bool ena_admin_queues_ok(EnaCore *core)
{
    uint32_t aqd = ena_aq_depth(core), acqd = ena_acq_depth(core);

    return core->aq_base && core->acq_base &&
           ena_pow2_depth(aqd, ENA_ADMIN_DEPTH_LIMIT) &&
           ena_pow2_depth(acqd, ENA_ADMIN_DEPTH_LIMIT) &&
           (core->aq_caps >> 16) == ENAHW_ADMIN_ENTRY_SIZE &&
           (core->acq_caps >> 16) == ENAHW_ADMIN_ENTRY_SIZE;
}

static bool ena_aenq_ok(EnaCore *core)
{
    return core->aenq_base &&
           ena_pow2_depth(ena_aenq_depth(core), ENA_AENQ_DEPTH_LIMIT) &&
           (core->aenq_caps >> 16) == ENAHW_AENQ_ENTRY_SIZE;
}

static void ena_mgmt_irq(EnaCore *core)
{
    if (!(core->intr_mask & ENAHW_INTR_MASK_ADMIN) && ena_msix_enabled(core)) {
        ena_msix_notify(core, 0);
    }
}

/* ------------------------------------------------------------------ */
/* AENQ                                                                */

static bool ena_aenq_post(EnaCore *core, uint16_t group, uint16_t syndrome,
                          const uint8_t *data, size_t data_len)
{
    uint8_t ev[ENAHW_AENQ_ENTRY_SIZE] = { 0 };
    uint32_t depth;
    uint16_t room;
    uint64_t ts, addr;

    if (!ena_ready(core) || !ena_aenq_ok(core)) {
        return false;
    }
    if (group >= 32 || !(core->aenq_groups & BIT(group))) {
        /* a group the driver did not enable: not posted, as a device does */
        core->st.aenq_disabled++;
        trace_ena_aenq_disabled(group, syndrome, core->aenq_groups);
        return false;
    }
    depth = ena_aenq_depth(core);
    room = (uint16_t)(core->aenq_head_db - (uint16_t)core->aenq_tail);
    if (room == 0 || room > depth) {
        core->st.aenq_dropped++;
        trace_ena_aenq_full(group, core->aenq_tail, core->aenq_head_db);
        return false;
    }
    ts = qemu_clock_get_ms(QEMU_CLOCK_VIRTUAL);
    stw_le_p(ev + ENAHW_AE_GROUP, group);
    stw_le_p(ev + ENAHW_AE_SYNDROME, syndrome);
    stl_le_p(ev + ENAHW_AE_TS_LO, (uint32_t)ts);
    stl_le_p(ev + ENAHW_AE_TS_HI, (uint32_t)(ts >> 32));
    memcpy(ev + ENAHW_AE_DATA, data, MIN(data_len, sizeof(ev) - ENAHW_AE_DATA));

    addr = core->aenq_base + (uint64_t)(core->aenq_tail & (depth - 1)) *
           ENAHW_AENQ_ENTRY_SIZE;
    /* body first, then the byte holding the phase bit */
    ena_dma_write(core, addr, ev, ENAHW_AE_FLAGS);
    ena_dma_write(core, addr + ENAHW_AE_FLAGS + 1,
                  ev + ENAHW_AE_FLAGS + 1,
                  sizeof(ev) - ENAHW_AE_FLAGS - 1);
    smp_wmb();  /* the event body must land before its phase bit */
    ev[ENAHW_AE_FLAGS] = ena_phase(core->aenq_tail, depth);
    ena_dma_write(core, addr + ENAHW_AE_FLAGS,
                  ev + ENAHW_AE_FLAGS, 1);
    core->aenq_tail++;
    trace_ena_aenq_post(group, syndrome, core->aenq_tail);
    if (group == ENAHW_AEG_FATAL_ERROR) {
        ena_halt_io(core);
    }
    ena_mgmt_irq(core);
    return true;
}

void ena_post_link(EnaCore *core)
{
    uint8_t data[4];
    bool up = !ena_nc(core)->link_down;

    stl_le_p(data, up ? 1 : 0);
    if (ena_aenq_post(core, ENAHW_AEG_LINK_CHANGE, 0, data, sizeof(data))) {
        core->link_event_pending = false;
    } else if (core->aenq_groups & BIT(ENAHW_AEG_LINK_CHANGE)) {
        core->link_event_pending = true;
    }
}

/* one FATAL_ERROR event (property fault-aenq-fatal); false if not posted */
bool ena_post_fatal_event(EnaCore *core)
{
    uint8_t data[4] = { 0 };

    return ena_aenq_post(core, ENAHW_AEG_FATAL_ERROR, 0, data, sizeof(data));
}

/* A fatal error stops the IO queues until the next reset (io_halted). */
void ena_halt_io(EnaCore *core)
{
    if (!core->io_halted) {
        core->io_halted = true;
        core->st.io_halts++;
        trace_ena_io_halted();
    }
}

/* the device's current hints, as GET HW_HINTS and UPDATE_HINTS carry them */
void ena_hints_fill(EnaCore *core, uint8_t *h)
{
    memset(h, 0, ENAHW_HINTS_BYTES);
    stw_le_p(h + ENAHW_HINT_MMIO_READ_MS, core->hint_mmio_read_ms);
    stw_le_p(h + ENAHW_HINT_KEEPALIVE_MS, core->hint_keepalive_ms);
    stw_le_p(h + ENAHW_HINT_MISSING_TX_MS, core->hint_missing_tx_ms);
    stw_le_p(h + ENAHW_HINT_MISSED_TX, core->hint_missed_tx);
    stw_le_p(h + ENAHW_HINT_ADMIN_MS, core->hint_admin_ms);
    stw_le_p(h + ENAHW_HINT_NETDEV_WD_MS, core->hint_netdev_wd_ms);
    stw_le_p(h + ENAHW_HINT_MAX_TX_SGL, core->max_tx_sgl);
    stw_le_p(h + ENAHW_HINT_MAX_RX_SGL, core->max_rx_sgl);
}

/*
 * One event of @group (property aenq-inject): NOTIFICATION/UPDATE_HINTS
 * carries the current hints, CONF_NOTIFICATIONS @data as its u64 bitmap,
 * the others @data as their first u64.  Returns what became of it:
 * "posted", "disabled" (the driver did not enable the group: dropped and
 * counted in stat-aenq-disabled), "full" (stat-aenq-dropped) or
 * "not-ready" (no AENQ programmed).
 */
const char *ena_aenq_inject(EnaCore *core, uint16_t group, uint16_t syndrome,
                            uint64_t data)
{
    uint8_t d[ENAHW_AENQ_ENTRY_SIZE - ENAHW_AE_DATA] = { 0 };
    uint64_t dropped = core->st.aenq_dropped;

    core->st.aenq_injected++;
    trace_ena_aenq_inject(group, syndrome, data);
    if (!ena_ready(core) || !ena_aenq_ok(core)) {
        return "not-ready";
    }
    if (group == ENAHW_AEG_NOTIFICATION &&
        syndrome == ENAHW_AEN_UPDATE_HINTS) {
        ena_hints_fill(core, d);
    } else {
        stq_le_p(d, data);
    }
    if (ena_aenq_post(core, group, syndrome, d, sizeof(d))) {
        return "posted";
    }
    return core->st.aenq_dropped != dropped ? "full" : "disabled";
}

void ena_keepalive_arm(EnaCore *core)
{
    if (core->keepalive_ms) {
        timer_mod(core->keepalive_timer,
                  ena_now() + (int64_t)core->keepalive_ms * SCALE_MS);
    } else {
        timer_del(core->keepalive_timer);
    }
}

void ena_keepalive_cb(void *opaque)
{
    EnaCore *core = opaque;
    uint8_t data[24] = { 0 };

    stl_le_p(data + 0, (uint32_t)core->st.rx_dropped);
    stl_le_p(data + 4, (uint32_t)(core->st.rx_dropped >> 32));
    /* tx drops (8..15) stay zero */
    stl_le_p(data + 16, (uint32_t)core->st.rx_overruns);
    stl_le_p(data + 20, (uint32_t)(core->st.rx_overruns >> 32));
    ena_aenq_post(core, ENAHW_AEG_KEEP_ALIVE, 0, data, sizeof(data));
    ena_keepalive_arm(core);
}

/* ------------------------------------------------------------------ */
/* device reset                                                        */

/*
 * The admin side of a reset: the admin queue and the commands in it, the
 * register file and every setting the driver made are forgotten.  The IO
 * queues are dropped apart (ena_soft_reset(), ena_reset_done_cb()).
 */
static void ena_reset_admin(EnaCore *core)
{
    timer_del(core->admin_timer);
    core->done_count = 0;
    memset(core->admin_busy, 0, sizeof(core->admin_busy));
    core->react_due = false;

    core->aq_base = core->acq_base = core->aenq_base = 0;
    core->aq_caps = core->acq_caps = core->aenq_caps = 0;
    core->aq_db = core->aenq_head_db = 0;
    core->aq_head = core->acq_tail = core->aenq_tail = 0;
    core->intr_mask = 0;
    core->mmio_read_req = 0;
    core->mmio_resp_addr = 0;

    core->aenq_groups = 0;
    core->link_event_pending = false;
    core->mtu = 1500;
    core->llq_configured = false;
    core->llq_entry = ENAHW_LLQ_ENTRY_BYTES;
    core->llq_accel_on = 0;
    core->host_info_addr = 0;
    core->rss_func = ENAHW_RSS_FUNC_TOEPLITZ;
    core->rss_init = 0xffffffff;
    memcpy(core->rss_key, ena_default_rss_key, sizeof(core->rss_key));
    core->rss_fields[0] = core->rss_fields[1] = core->rss_fields[2] =
        core->rss_fields[3] = ENAHW_RSS_F_L3_SA | ENAHW_RSS_F_L3_DA |
                              ENAHW_RSS_F_L4_SP | ENAHW_RSS_F_L4_DP;
    core->rss_fields[4] = core->rss_fields[5] = core->rss_fields[6] =
        ENAHW_RSS_F_L3_SA | ENAHW_RSS_F_L3_DA;
    core->rss_fields[7] = ENAHW_RSS_F_L2_SA | ENAHW_RSS_F_L2_DA;
    memset(core->rss_table, 0, sizeof(core->rss_table));
    core->rss_table_log = 0;
    core->rss_table_set = false;
}

/* Everything the driver set up is forgotten; the device stays in reset. */
void ena_soft_reset(EnaCore *core)
{
    ena_drop_queues(core);
    ena_reset_admin(core);
    core->dev_max_mtu = core->max_mtu;
}

/*
 * The reset completes: only now do the IO queues stop (until here they ran
 * on, DMA and interrupts included), and the device reads the settings that
 * apply from one reset to the next.  With fault-never-ready the reset ends
 * but READY never comes back.
 */
void ena_reset_done_cb(void *opaque)
{
    EnaCore *core = opaque;

    ena_drop_queues(core);
    core->dev_max_mtu = core->max_mtu;
    core->dev_sts = (core->fault_never_ready ? 0 : ENAHW_STS_READY) |
                    ENAHW_STS_RESET_DONE |
                    (core->fault_fatal ? ENAHW_STS_FATAL : 0);
    core->io_halted = core->fault_fatal;
    trace_ena_reset_done(!core->fault_never_ready);
    if (!core->fault_never_ready) {
        ena_keepalive_arm(core);
    }
}

void ena_dev_ctl_write(EnaCore *core, uint32_t val)
{
    core->dev_ctl = val;
    if (core->fault_reset_ignore) {
        /* a device that never takes the reset: nothing stops, nothing shows */
        trace_ena_reset_ignored(val);
        return;
    }
    if (val & ENAHW_CTL_RESET) {
        if (!(core->dev_sts & ENAHW_STS_RESET_BUSY)) {
            uint32_t reason = val >> ENAHW_CTL_REASON_SHIFT;

            /*
             * Reasons above 15 take bits 27:24 too, only on a device that
             * offers extended reset reasons (the capability of the last
             * DEVICE_ATTRIBUTES); a driver must fall back otherwise.
             */
            if (val & ENAHW_CTL_REASON_EXT_MASK) {
                if (core->cap_ext_reset_reasons) {
                    reason |= ((val & ENAHW_CTL_REASON_EXT_MASK) >>
                               ENAHW_CTL_REASON_EXT_SHIFT) << 4;
                } else {
                    ena_guest_error(core, ENA_ERR_MMIO,
                                    "DEV_CTL 0x%x: extended reset reason "
                                    "without the capability", val);
                }
            }
            trace_ena_reset_start(reason);
            core->st.resets++;
            core->reset_reason[core->st.resets % ENA_RESET_HISTORY] = reason;
            ena_fuzz_arm(core);
            timer_del(core->reset_timer);
            /* the IO queues run on until the reset completes */
            ena_reset_admin(core);
            core->dev_sts = ENAHW_STS_RESET_BUSY |
                            (core->fault_fatal ? ENAHW_STS_FATAL : 0);
        }
    } else if ((core->dev_sts & ENAHW_STS_RESET_BUSY) &&
               !timer_pending(core->reset_timer)) {
        timer_mod(core->reset_timer,
                  ena_now() + (int64_t)core->reset_latency_us * SCALE_US);
    }
}

/* ------------------------------------------------------------------ */
/* admin completions                                                   */

static void ena_acq_post(EnaCore *core, uint8_t *cqe)
{
    uint32_t depth = ena_acq_depth(core);
    uint64_t addr;
    uint32_t malformed;
    uint8_t phase;

    if (!ena_ready(core) || !ena_admin_queues_ok(core)) {
        return;
    }
    phase = ena_phase(core->acq_tail, depth);
    malformed = ena_fault_take(core, ENA_FAULT_MALFORMED);
    if (malformed == 1 || ena_fuzz_hit(core, ENA_FUZZ_ADMIN_ID)) {
        stw_le_p(cqe + ENAHW_CQE_CMD_ID, ENAHW_CMD_ID_MASK);
    } else if (malformed == 2) {
        phase = !phase;
    }
    stw_le_p(cqe + ENAHW_CQE_SQ_HEAD, (uint16_t)core->aq_head);
    cqe[ENAHW_CQE_FLAGS] = phase;

    addr = core->acq_base + (uint64_t)(core->acq_tail & (depth - 1)) *
           ENAHW_ADMIN_ENTRY_SIZE;
    ena_dma_write(core, addr + 4, cqe + 4,
                  ENAHW_ADMIN_ENTRY_SIZE - 4);
    smp_wmb();  /* the response must land before the phase bit */
    ena_dma_write(core, addr, cqe, 4);
    core->acq_tail++;
    trace_ena_admin_done(lduw_le_p(cqe + ENAHW_CQE_CMD_ID),
                         cqe[ENAHW_CQE_STATUS], core->acq_tail);

    core->react_last_done = ena_now();
    core->react_due = true;
    if (ena_fault_take(core, ENA_FAULT_ADMIN_IRQ_LOST)) {
        /* posted, but the MSI-X message is lost on its way */
        core->st.admin_irqs_lost++;
        trace_ena_admin_irq_lost(lduw_le_p(cqe + ENAHW_CQE_CMD_ID),
                                 core->fault[ENA_FAULT_ADMIN_IRQ_LOST]);
        return;
    }
    ena_mgmt_irq(core);
}

static void ena_admin_run(EnaCore *core, const uint8_t *sqe, bool drop);

/*
 * Execute the commands that are due, in due-time order (submission order
 * among equals), each posting its completion as it is done; then arm the
 * timer for the next one.
 */
static void ena_admin_flush(EnaCore *core)
{
    int64_t now = ena_now();
    int64_t next = INT64_MAX;
    EnaDone cmd;

    for (;;) {
        uint32_t i, best = UINT32_MAX;

        for (i = 0; i < core->done_count; i++) {
            if (core->done[i].due <= now &&
                (best == UINT32_MAX ||
                 core->done[i].due < core->done[best].due ||
                 (core->done[i].due == core->done[best].due &&
                  core->done[i].seq < core->done[best].seq))) {
                best = i;
            }
        }
        if (best == UINT32_MAX) {
            break;
        }
        /* taken off the list before it runs */
        cmd = core->done[best];
        core->done[best] = core->done[--core->done_count];
        ena_admin_run(core, cmd.sqe, cmd.drop);
    }
    for (uint32_t i = 0; i < core->done_count; i++) {
        next = MIN(next, core->done[i].due);
    }
    if (next != INT64_MAX) {
        timer_mod(core->admin_timer, next);
    } else {
        timer_del(core->admin_timer);
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
static int64_t ena_admin_start(EnaCore *core, int64_t delay)
{
    uint32_t n = MIN(core->admin_parallel, ENA_ADMIN_ENGINES);
    int64_t start = ena_now();
    uint32_t i, k = 0;

    if (!n) {
        return start;
    }
    for (i = 1; i < n; i++) {
        if (core->admin_busy[i] < core->admin_busy[k]) {
            k = i;
        }
    }
    start = MAX(start, core->admin_busy[k]);
    core->admin_busy[k] = start + delay;
    return start;
}

/*
 * A command fetched from the AQ: it is worked on for admin-latency-us
 * (+ jitter, + a one-shot fault-delay-next-ms) from when an engine is free,
 * and executed when that time is up (ena_admin_flush()).  Until then it has
 * no effect: a destroyed queue runs on until its DESTROY completes.
 */
static void ena_admin_submit(EnaCore *core, const uint8_t *sqe)
{
    int64_t delay = (int64_t)core->admin_latency_us * SCALE_US;
    uint16_t cmd_id = lduw_le_p(sqe + ENAHW_SQE_CMD_ID) & ENAHW_CMD_ID_MASK;
    bool drop = false;
    EnaDone *d;

    if (ena_fault_take(core, ENA_FAULT_DROP_NEXT)) {
        trace_ena_admin_fault("drop", cmd_id);
        drop = true;
    }
    if (core->admin_jitter_us) {
        delay += (int64_t)g_random_int_range(0, core->admin_jitter_us + 1) *
                 SCALE_US;
    }
    delay += (int64_t)ena_fault_take(core, ENA_FAULT_DELAY_NEXT) * SCALE_MS;
    if (core->done_count >= ENA_ADMIN_DEPTH_LIMIT) {
        ena_admin_run(core, sqe, drop);
        return;
    }
    d = &core->done[core->done_count++];
    memcpy(d->sqe, sqe, sizeof(d->sqe));
    d->drop = drop;
    d->due = ena_admin_start(core, delay) + delay;
    core->st.admin_max_inflight = MAX(core->st.admin_max_inflight,
                                      core->done_count);
    d->seq = core->done_seq++;
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

static uint32_t ena_supported_features(EnaCore *core)
{
    uint32_t f = BIT(ENAHW_F_DEV_ATTR) | BIT(ENAHW_F_MAX_QUEUES) |
                 BIT(ENAHW_F_HW_HINTS) | BIT(ENAHW_F_MAX_QUEUES_EXT) |
                 BIT(ENAHW_F_RSS_FUNC) | BIT(ENAHW_F_OFFLOAD) |
                 BIT(ENAHW_F_RSS_TABLE) | BIT(ENAHW_F_MTU) |
                 BIT(ENAHW_F_RSS_INPUT) |
                 BIT(ENAHW_F_AENQ_CONFIG) | BIT(ENAHW_F_LINK_CONFIG) |
                 BIT(ENAHW_F_HOST_ATTR);

    if (core->intr_delay_res) {
        f |= BIT(ENAHW_F_INTR_MODER);
    }
    if (core->llq_enabled) {
        f |= BIT(ENAHW_F_LLQ);
    }
    return f;
}

static uint32_t ena_capabilities(EnaCore *core)
{
    return (core->cap_eni_stats ? BIT(ENAHW_CAP_ENI_STATS) : 0) |
           (core->cap_ena_srd ? BIT(ENAHW_CAP_ENA_SRD_INFO) : 0) |
           (core->cap_customer_metrics ? BIT(ENAHW_CAP_CUSTOMER_METRICS) : 0) |
           (core->cap_ext_reset_reasons ? BIT(ENAHW_CAP_EXT_RESET_REASONS) : 0);
}

/* the deepest LLQ, in 128-byte entries */
uint32_t ena_llq_max_depth(EnaCore *core)
{
    uint32_t d = MIN(core->llq_slot_depth, ena_max_depth(core, ENAHW_DIR_TX));

    return core->llq_max_depth ? MIN(d, pow2floor(core->llq_max_depth)) : d;
}

/*
 * The deepest queue of a direction (ENAHW_DIR_TX or _RX; 0: either, what a
 * CQ may be, as CREATE_CQ names no direction).  Real devices report
 * different limits for TX and RX: max-tx-depth and max-rx-depth, both
 * under max-depth.
 */
uint32_t ena_max_depth(EnaCore *core, uint8_t dir)
{
    uint32_t d = dir == ENAHW_DIR_TX ? core->max_tx_depth :
                 dir == ENAHW_DIR_RX ? core->max_rx_depth :
                 MAX(core->max_tx_depth, core->max_rx_depth);

    d = MIN(MIN(d, core->max_depth), ENA_DEPTH_LIMIT);
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

static uint8_t ena_get_feature(EnaCore *core, const uint8_t *sqe, uint8_t *cqe)
{
    uint8_t id = sqe[ENAHW_FEAT_ID];
    uint8_t *r = cqe + ENAHW_CQE_BODY;
    uint64_t cb_addr = 0;
    uint32_t cb_len = 0;
    bool has_cb = ena_ctrl_buf(sqe, &cb_addr, &cb_len);
    uint32_t i;

    if (id != ENAHW_F_DEV_ATTR && !(ena_supported_features(core) & BIT(id))) {
        return ENAHW_ST_UNSUPPORTED;
    }

    switch (id) {
    case ENAHW_F_DEV_ATTR:
        stl_le_p(r + 0, 1);                     /* impl_id */
        stl_le_p(r + 4, 1);                     /* device_version */
        stl_le_p(r + 8, ena_supported_features(core));
        stl_le_p(r + 12, ena_capabilities(core));
        stl_le_p(r + 16, 48);                   /* phys_addr_width */
        stl_le_p(r + 20, 48);                   /* virt_addr_width */
        memcpy(r + 24, core->mac_reported_set ? core->mac_reported :
               core->owner_mac, 6);
        stl_le_p(r + 32, core->dev_max_mtu);
        return ENAHW_ST_OK;

    case ENAHW_F_MAX_QUEUES_EXT:
        r[0] = 1;                               /* version */
        stl_le_p(r + 4, core->max_queues);         /* max tx sq */
        stl_le_p(r + 8, core->max_queues);         /* max tx cq */
        stl_le_p(r + 12, core->max_queues);        /* max rx sq */
        stl_le_p(r + 16, core->max_queues);        /* max rx cq */
        stl_le_p(r + 20, ena_max_depth(core, ENAHW_DIR_TX)); /* tx sq depth */
        stl_le_p(r + 24, ena_max_depth(core, ENAHW_DIR_TX)); /* tx cq depth */
        stl_le_p(r + 28, ena_max_depth(core, ENAHW_DIR_RX)); /* rx sq depth */
        stl_le_p(r + 32, ena_max_depth(core, ENAHW_DIR_RX)); /* rx cq depth */
        stl_le_p(r + 36, ENAHW_LLQ_ENTRY_BYTES -
                 ENAHW_LLQ_DESCS_BEFORE_HDR * 16); /* max tx header */
        stw_le_p(r + 40, core->max_tx_sgl);           /* tx descs per packet */
        stw_le_p(r + 42, core->max_rx_sgl);           /* rx descs per packet */
        if (ena_fuzz_hit(core, ENA_FUZZ_ADMIN_SIZE)) {
            static const uint8_t off[] = { 0, 4, 20, 32 };
            unsigned int o = off[ena_fuzz_next(core) % ARRAY_SIZE(off)];

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
        stl_le_p(r + 0, core->max_queues);
        stl_le_p(r + 4, MIN(ena_max_depth(core, ENAHW_DIR_TX),
                            ena_max_depth(core, ENAHW_DIR_RX)));
        stl_le_p(r + 8, core->max_queues);
        stl_le_p(r + 12, MIN(ena_max_depth(core, ENAHW_DIR_TX),
                             ena_max_depth(core, ENAHW_DIR_RX)));
        stl_le_p(r + 16, core->llq_enabled ? core->max_queues : 0);
        stl_le_p(r + 20, core->llq_enabled ? ena_llq_max_depth(core) : 0);
        stl_le_p(r + 24, ENAHW_LLQ_ENTRY_BYTES -
                 ENAHW_LLQ_DESCS_BEFORE_HDR * 16);
        stw_le_p(r + 28, core->max_tx_sgl);
        stw_le_p(r + 30, core->max_rx_sgl);
        return ENAHW_ST_OK;

    case ENAHW_F_HW_HINTS:
        /* zero means "keep the driver's default" for every hint */
        ena_hints_fill(core, r);
        return ENAHW_ST_OK;

    case ENAHW_F_LLQ:
        stl_le_p(r + 0, core->max_queues);
        stl_le_p(r + 4, ena_llq_max_depth(core));
        stw_le_p(r + 8, ENAHW_LLQ_HDR_INLINE);
        stw_le_p(r + 10, ENAHW_LLQ_HDR_INLINE);
        stw_le_p(r + 12, ENAHW_LLQ_ENTRY_128 | ENAHW_LLQ_ENTRY_256);
        stw_le_p(r + 14, core->llq_entry == 256 ? ENAHW_LLQ_ENTRY_256
                                                : ENAHW_LLQ_ENTRY_128);
        stw_le_p(r + 16, ENAHW_LLQ_DESCS_BEFORE_HDR);
        stw_le_p(r + 18, ENAHW_LLQ_DESCS_BEFORE_HDR);
        stw_le_p(r + 20, ENAHW_LLQ_STRIDE_MULTI);
        stw_le_p(r + 22, ENAHW_LLQ_STRIDE_MULTI);
        r[25] = core->llq_large_rec ? ENAHW_LLQ_ENTRY_256 : ENAHW_LLQ_ENTRY_128;
        stw_le_p(r + 28, core->llq_accel);
        stw_le_p(r + 30, core->llq_accel & ENAHW_LLQ_ACCEL_TX_BURST ?
                 core->llq_max_burst : 0);
        return ENAHW_ST_OK;

    case ENAHW_F_AENQ_CONFIG:
        stl_le_p(r + 0, core->aenq_supported);
        stl_le_p(r + 4, core->aenq_groups);
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
        stw_le_p(r + 0, core->intr_delay_res);     /* delay resolution, us */
        return ENAHW_ST_OK;

    case ENAHW_F_LINK_CONFIG:
        stl_le_p(r + 0, 100000);                /* Mbps */
        stl_le_p(r + 4, 0x80);                  /* 100G */
        /* flags: bit 0 autoneg (link-autoneg), bit 1 full duplex */
        stl_le_p(r + 8, (1u << 1) | (core->link_autoneg ? 1u : 0));
        return ENAHW_ST_OK;

    case ENAHW_F_MTU:
        stl_le_p(r + 0, core->mtu);
        return ENAHW_ST_OK;

    case ENAHW_F_RSS_FUNC:
        stl_le_p(r + 0, BIT(ENAHW_RSS_FUNC_TOEPLITZ) |
                 BIT(ENAHW_RSS_FUNC_CRC32));
        stl_le_p(r + 4, BIT(core->rss_func));
        stl_le_p(r + 8, core->rss_init);
        if (has_cb) {
            uint8_t kb[ENAHW_RSS_KEY_BUF_BYTES] = { 0 };

            stl_le_p(kb, ENAHW_RSS_KEY_BYTES / 4);
            memcpy(kb + 8, core->rss_key, ENAHW_RSS_KEY_BYTES);
            ena_dma_write(core, cb_addr, kb, MIN(cb_len, sizeof(kb)));
        }
        return ENAHW_ST_OK;

    case ENAHW_F_RSS_INPUT:
        stw_le_p(r + 0, (1u << 1) | (1u << 2));
        stw_le_p(r + 2, (1u << 1) | (1u << 2));
        if (has_cb) {
            uint8_t hb[ENAHW_RSS_INPUT_BUF_BYTES] = { 0 };

            for (i = 0; i < ENAHW_RSS_PROTOS; i++) {
                stw_le_p(hb + 4 * i, ena_rss_supported_fields(i));
                stw_le_p(hb + 4 * (ENAHW_RSS_PROTOS + i), core->rss_fields[i]);
            }
            ena_dma_write(core, cb_addr, hb, MIN(cb_len, sizeof(hb)));
        }
        return ENAHW_ST_OK;

    case ENAHW_F_RSS_TABLE:
        stw_le_p(r + 0, 1);                     /* min log size */
        stw_le_p(r + 2, ENAHW_RSS_TABLE_LOG_MAX);
        stw_le_p(r + 4, core->rss_table_log);
        stl_le_p(r + 8, 0xffffffff);
        if (has_cb && core->rss_table_set) {
            uint8_t tb[ENAHW_RSS_TABLE_MAX * 4] = { 0 };
            uint32_t n = 1u << core->rss_table_log;

            for (i = 0; i < n; i++) {
                stw_le_p(tb + 4 * i, core->rss_table[i]);
            }
            ena_dma_write(core, cb_addr, tb, MIN(cb_len, n * 4));
        }
        return ENAHW_ST_OK;

    default:
        return ENAHW_ST_UNSUPPORTED;
    }
}

static uint8_t ena_set_feature(EnaCore *core, const uint8_t *sqe, uint8_t *cqe)
{
    uint8_t id = sqe[ENAHW_FEAT_ID];
    const uint8_t *d = sqe + ENAHW_FEAT_SET_DATA;
    uint64_t cb_addr = 0;
    uint32_t cb_len = 0, v, i;
    bool has_cb = ena_ctrl_buf(sqe, &cb_addr, &cb_len);

    if (id != ENAHW_F_HOST_ATTR && !(ena_supported_features(core) & BIT(id))) {
        return ENAHW_ST_UNSUPPORTED;
    }

    switch (id) {
    case ENAHW_F_HOST_ATTR:
        core->host_info_addr = ena_addr48(ldl_le_p(d + 0), lduw_le_p(d + 4));
        return ENAHW_ST_OK;

    case ENAHW_F_AENQ_CONFIG:
        v = ldl_le_p(d + 4);
        if (v & ~core->aenq_supported) {
            ena_guest_error(core, ENA_ERR_FEATURE,
                            "AENQ groups 0x%x not supported", v);
            return ENAHW_ST_ILLEGAL;
        }
        core->aenq_groups = v;
        if (v & BIT(ENAHW_AEG_LINK_CHANGE)) {
            /* report the current link state as soon as the queue has room */
            ena_post_link(core);
        }
        return ENAHW_ST_OK;

    case ENAHW_F_LLQ:
        v = lduw_le_p(d + 14);
        if (lduw_le_p(d + 10) != ENAHW_LLQ_HDR_INLINE ||
            (v != ENAHW_LLQ_ENTRY_128 && v != ENAHW_LLQ_ENTRY_256) ||
            lduw_le_p(d + 18) != ENAHW_LLQ_DESCS_BEFORE_HDR ||
            lduw_le_p(d + 22) != ENAHW_LLQ_STRIDE_MULTI) {
            ena_guest_error(core, ENA_ERR_FEATURE, "unsupported LLQ config");
            return ENAHW_ST_ILLEGAL;
        }
        /*
         * The in-tree driver asks for both accel modes whether offered or
         * not: a mode is on where both sides have it.
         */
        core->llq_accel_on = lduw_le_p(d + 28) & core->llq_accel;
        core->llq_entry = v == ENAHW_LLQ_ENTRY_256 ? 256 : 128;
        core->llq_configured = true;
        return ENAHW_ST_OK;

    case ENAHW_F_MTU:
        v = ldl_le_p(d);
        if (v < 68 || v > core->dev_max_mtu) {
            ena_guest_error(core, ENA_ERR_FEATURE, "bad MTU %u", v);
            return ENAHW_ST_ILLEGAL;
        }
        core->mtu = v;
        return ENAHW_ST_OK;

    case ENAHW_F_RSS_FUNC:
        v = ldl_le_p(d + 4) & 0xff;
        if (v != BIT(ENAHW_RSS_FUNC_TOEPLITZ) &&
            v != BIT(ENAHW_RSS_FUNC_CRC32)) {
            ena_guest_error(core, ENA_ERR_FEATURE, "bad RSS function 0x%x", v);
            return ENAHW_ST_ILLEGAL;
        }
        core->rss_func = ctz32(v);
        core->rss_init = ldl_le_p(d + 8);
        if (has_cb) {
            uint8_t kb[ENAHW_RSS_KEY_BUF_BYTES];

            if (cb_len < sizeof(kb) ||
                ena_dma_read(core, cb_addr, kb, sizeof(kb)) != MEMTX_OK) {
                return ENAHW_ST_MALFORMED;
            }
            memcpy(core->rss_key, kb + 8, ENAHW_RSS_KEY_BYTES);
        }
        return ENAHW_ST_OK;

    case ENAHW_F_RSS_INPUT:
        if (has_cb) {
            uint8_t hb[ENAHW_RSS_INPUT_BUF_BYTES];

            if (cb_len < 8 * ENAHW_RSS_PROTOS ||
                ena_dma_read(core, cb_addr, hb,
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
                core->rss_fields[i] =
                    lduw_le_p(hb + 4 * (ENAHW_RSS_PROTOS + i));
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
            core->rss_table[inline_idx] = lduw_le_p(d + 12);
            return ENAHW_ST_OK;
        }
        if (log < 1 || log > ENAHW_RSS_TABLE_LOG_MAX || !has_cb ||
            cb_len < (4u << log)) {
            ena_guest_error(core, ENA_ERR_FEATURE,
                            "bad RSS table (log %u len %u)", log, cb_len);
            return ENAHW_ST_ILLEGAL;
        } else {
            uint8_t tb[ENAHW_RSS_TABLE_MAX * 4];

            if (ena_dma_read(core, cb_addr, tb, 4u << log) != MEMTX_OK) {
                return ENAHW_ST_MALFORMED;
            }
            for (i = 0; i < (1u << log); i++) {
                core->rss_table[i] = lduw_le_p(tb + 4 * i);
            }
            core->rss_table_log = log;
            core->rss_table_set = true;
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
static uint8_t ena_get_customer_metrics(EnaCore *core, const uint8_t *sqe,
                                        uint8_t *r)
{
    uint64_t req = ldq_le_p(sqe + ENAHW_GSTATS_REQUESTED);
    uint32_t len = ldl_le_p(sqe + ENAHW_SQE_CTRL_LEN);
    uint64_t addr = ena_addr48(ldl_le_p(sqe + ENAHW_SQE_CTRL_ADDR_LO),
                               lduw_le_p(sqe + ENAHW_SQE_CTRL_ADDR_HI));
    uint64_t rep = req & (core->cm_mask & ENAHW_CM_ALL);
    uint8_t vals[ENAHW_CM_COUNT * 8];
    uint32_t n = 0, i;

    for (i = 0; i < ENAHW_CM_COUNT; i++) {
        if (rep & BIT_ULL(i)) {
            stq_le_p(vals + 8 * n++, core->eni_val[i]);
        }
    }
    trace_ena_get_stats(ENAHW_GST_CUSTOMER, req, rep, len);
    if (!addr && !len) {
        stq_le_p(r, rep);
        return ENAHW_ST_OK;
    }
    if (!addr || len < n * 8) {
        ena_guest_error(core, ENA_ERR_FEATURE,
                        "GET_STATS customer metrics: buffer 0x%" PRIx64
                        " len %u for %u metrics", addr, len, n);
        return ENAHW_ST_MALFORMED;
    }
    if (n && ena_dma_write(core, addr, vals, n * 8) != MEMTX_OK) {
        ena_guest_error(core, ENA_ERR_FEATURE,
                        "GET_STATS customer metrics: DMA to 0x%" PRIx64
                        " failed", addr);
        return ENAHW_ST_ILLEGAL;
    }
    stq_le_p(r, rep);
    return ENAHW_ST_OK;
}

static uint8_t ena_get_stats(EnaCore *core, const uint8_t *sqe, uint8_t *cqe)
{
    uint8_t *r = cqe + ENAHW_CQE_BODY;
    uint8_t type = sqe[ENAHW_GSTATS_TYPE];
    uint32_t i;

    switch (type) {
    case ENAHW_GST_BASIC:
        trace_ena_get_stats(type, 0, 0, 0);
        stq_le_p(r + 0, core->st.tx_bytes);
        stq_le_p(r + 8, core->st.tx_packets);
        stq_le_p(r + 16, core->st.rx_bytes);
        stq_le_p(r + 24, core->st.rx_packets);
        stq_le_p(r + 32, core->st.rx_dropped);
        stq_le_p(r + 40, 0);
        return ENAHW_ST_OK;
    case ENAHW_GST_ENI:
        if (!core->cap_eni_stats) {
            break;
        }
        trace_ena_get_stats(type, 0, 0, 0);
        for (i = 0; i < ENAHW_ENI_STATS; i++) {
            stq_le_p(r + 8 * i, core->eni_val[i]);
        }
        return ENAHW_ST_OK;
    case ENAHW_GST_SRD:
        if (!core->cap_ena_srd) {
            break;
        }
        trace_ena_get_stats(type, 0, 0, 0);
        for (i = 0; i < ENAHW_SRD_WORDS; i++) {
            stq_le_p(r + 8 * i, core->srd_val[i]);
        }
        return ENAHW_ST_OK;
    case ENAHW_GST_CUSTOMER:
        if (!core->cap_customer_metrics) {
            break;
        }
        return ena_get_customer_metrics(core, sqe, r);
    default:
        ena_guest_error(core, ENA_ERR_FEATURE, "GET_STATS bad type %u", type);
        return ENAHW_ST_ILLEGAL;
    }
    /* extended, or a kind of statistics not advertised */
    return ENAHW_ST_UNSUPPORTED;
}

/* ------------------------------------------------------------------ */
/* admin queue                                                         */

/* A command is done: it takes effect and (unless dropped) completes. */
static void ena_admin_run(EnaCore *core, const uint8_t *sqe, bool drop)
{
    uint8_t cqe[ENAHW_ADMIN_ENTRY_SIZE] = { 0 };
    uint8_t op = sqe[ENAHW_SQE_OPCODE];
    uint16_t cmd_id = lduw_le_p(sqe + ENAHW_SQE_CMD_ID) & ENAHW_CMD_ID_MASK;
    bool is_feat = op == ENAHW_OP_GET_FEAT || op == ENAHW_OP_SET_FEAT;
    uint8_t status;

    trace_ena_admin_run(cmd_id, op);
    if (ena_fault_status_take(core, op, is_feat, sqe[ENAHW_FEAT_ID])) {
        status = core->fault_status_code;
    } else {
        switch (op) {
        case ENAHW_OP_CREATE_SQ:
            status = ena_create_sq(core, sqe, cqe);
            break;
        case ENAHW_OP_DESTROY_SQ:
            status = ena_destroy_sq(core, sqe);
            break;
        case ENAHW_OP_CREATE_CQ:
            status = ena_create_cq(core, sqe, cqe);
            break;
        case ENAHW_OP_DESTROY_CQ:
            status = ena_destroy_cq(core, sqe);
            break;
        case ENAHW_OP_GET_FEAT:
            status = ena_get_feature(core, sqe, cqe);
            break;
        case ENAHW_OP_SET_FEAT:
            status = ena_set_feature(core, sqe, cqe);
            break;
        case ENAHW_OP_GET_STATS:
            status = ena_get_stats(core, sqe, cqe);
            break;
        default:
            ena_guest_error(core, ENA_ERR_ADMIN, "bad admin opcode %u", op);
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
        ena_acq_post(core, cqe);
    }
}

/* A command fetched: counted now, executed when the device is done. */
static void ena_admin_fetched(EnaCore *core, const uint8_t *sqe)
{
    uint8_t op = sqe[ENAHW_SQE_OPCODE];
    uint16_t cmd_id = lduw_le_p(sqe + ENAHW_SQE_CMD_ID) & ENAHW_CMD_ID_MASK;
    bool is_feat = op == ENAHW_OP_GET_FEAT || op == ENAHW_OP_SET_FEAT;

    core->st.admin_cmds++;
    if (op < ENA_OPCODES) {
        core->st.admin_by_op[op]++;
    }
    trace_ena_admin_cmd(cmd_id, op, is_feat ? sqe[ENAHW_FEAT_ID] : 0);
    /*
     * The first IO queue ends the driver's probe: its reaction samples
     * are the ones taken before this command's doorbell.
     */
    if (op == ENAHW_OP_CREATE_CQ && core->react_probe == UINT32_MAX) {
        core->react_probe = core->react_db_first;
    }
    ena_admin_submit(core, sqe);
}

/*
 * The host-info page the driver handed over with SET HOST_ATTR_CONFIG, read
 * now from guest memory, as "key=value" lines (property "host-info"): what
 * the device would learn about the instance's OS and driver.
 */
char *ena_host_info_str(EnaCore *core)
{
    uint8_t p[ENAHW_HOST_INFO_SIZE];
    char dist[129], kver[33];
    uint16_t bdf;

    if (!core->host_info_addr) {
        return g_strdup("");
    }
    if (ena_dma_read(core, core->host_info_addr, p, sizeof(p)) !=
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
                           "driver_supported_features=0x%x\n"
                           "supported_network_features=0x%08x%08x\n",
                           ldl_le_p(p), dist, ldl_le_p(p + 132), kver,
                           ldl_le_p(p + 168), ldl_le_p(p + 172),
                           lduw_le_p(p + 184), bdf >> 8, (bdf >> 3) & 0x1f,
                           bdf & 7, lduw_le_p(p + 188), ldl_le_p(p + 192),
                           ldl_le_p(p + 180), ldl_le_p(p + 176));
}

void ena_aq_doorbell(EnaCore *core, uint32_t val)
{
    uint8_t sqe[ENAHW_ADMIN_ENTRY_SIZE];
    uint32_t depth, pending;
    int64_t now = ena_now();

    core->aq_db = val;
    core->st.admin_doorbells++;
    core->react_db_first = core->react_count;
    /*
     * The driver's reaction: from the newest completion to this doorbell.
     * The older ones of a batch waited for the batch, not for the driver;
     * with one command in flight there is only one.
     */
    if (core->react_due) {
        ena_react_sample(core, now - core->react_last_done);
    }
    core->react_due = false;

    if (!ena_ready(core)) {
        ena_guest_error(core, ENA_ERR_ADMIN, "AQ doorbell while not ready");
        return;
    }
    if (!ena_admin_queues_ok(core)) {
        ena_guest_error(core, ENA_ERR_ADMIN, "AQ doorbell, admin queue unset");
        return;
    }
    depth = ena_aq_depth(core);
    pending = (uint16_t)(val - (uint16_t)core->aq_head);
    if (pending > depth) {
        ena_guest_error(core, ENA_ERR_ADMIN, "AQ doorbell %u beyond depth",
                        val);
        return;
    }
    while (pending--) {
        uint64_t addr = core->aq_base +
                        (uint64_t)(core->aq_head & (depth - 1)) *
                        ENAHW_ADMIN_ENTRY_SIZE;

        if (ena_dma_read(core, addr, sqe, sizeof(sqe)) != MEMTX_OK) {
            ena_guest_error(core, ENA_ERR_ADMIN, "AQ entry DMA failed");
            break;
        }
        if ((sqe[ENAHW_SQE_FLAGS] & ENAHW_SQE_F_PHASE) !=
            ena_phase(core->aq_head, depth)) {
            ena_guest_error(core, ENA_ERR_ADMIN,
                            "AQ entry %u has a stale phase", core->aq_head);
        }
        core->aq_head++;
        ena_admin_fetched(core, sqe);
    }
    ena_admin_flush(core);
}
