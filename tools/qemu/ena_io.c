/*
 * Amazon Elastic Network Adapter (ENA) device model: the core's IO side
 *
 * IO submission and completion queues (CREATE/DESTROY_SQ/CQ), their
 * doorbells, TX from host memory and from LLQ device memory (BAR2), RSS
 * and the network receive path, IO interrupts and their unmask.  Frames
 * leave through ena_nc() and arrive through ena_receive(), called by the
 * NIC in ena.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/units.h"
#include "qemu/log.h"
#include "qemu/bswap.h"
#include "qemu/crc32c.h"
#include "net/net.h"
#include "net/checksum.h"
#include "hw/pci/pci.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/msix.h"
#include "trace.h"

#include "ena_int.h"

/* ------------------------------------------------------------------ */
/* IO interrupts                                                       */

/* what a completion of @cq waits for: an RX queue's, or a TX queue's */
static uint8_t ena_cq_kind(EnaCore *core, EnaCq *cq)
{
    bool rx = cq->sq >= 0 && (uint32_t)cq->sq < ena_nsq(core) &&
              core->sqs[cq->sq].dir == ENAHW_DIR_RX;

    return rx ? ENA_PEND_RX : ENA_PEND_TX;
}

/*
 * Moderation: the delay (ns) the driver asked for with its last unmask of
 * vector @v for completions of the kinds in @kind (the RX delay for an RX
 * queue's CQ, the TX delay for a TX queue's); the shorter one when both
 * wait.  It follows the completions, not the CQ whose unmask register the
 * driver wrote: the register sets the vector's delays, whichever of the
 * pair's CQs it belongs to (in-tree drivers have written either).
 */
static int64_t ena_io_moder_ns(EnaCore *core, uint16_t v, uint8_t kind)
{
    uint32_t d = UINT32_MAX;

    if (kind & ENA_PEND_RX) {
        d = core->vec_rx_delay[v];
    }
    if (kind & ENA_PEND_TX) {
        d = MIN(d, core->vec_tx_delay[v]);
    }
    return d == UINT32_MAX ? 0 :
           (int64_t)d * core->intr_delay_res * SCALE_US;
}

/*
 * Interrupt for vector @v, announcing completions of the kinds in @kind,
 * or pending while the vector is masked.
 * @fresh: for a completion just posted.  Device fuzzing loses only such an
 * interrupt, and only once the driver has unmasked the vector since the
 * device reset: one re-sent at unmask may announce completions the driver
 * already took in its last poll, and the driver's first unmask of a queue
 * it starts would announce a lost one again; neither loss is a fault.
 */
static void ena_io_vec_raise(EnaCore *core, uint16_t v, uint8_t kind,
                             bool fresh)
{
    int64_t due;

    core->vec_pending_kind[v] |= kind;
    if (core->vec_masked[v]) {
        core->vec_pending[v] = true;
        return;
    }
    /*
     * Moderation as this model implements it: after an unmask that asked
     * for a delay, the vector's next interrupt comes no sooner than that
     * delay after the unmask.  A completion later than that interrupts at
     * once (no added latency when the queue is idle); completions that
     * follow a poll closely are gathered into one interrupt.
     */
    due = core->vec_unmask_ns[v] +
          ena_io_moder_ns(core, v, core->vec_pending_kind[v]);
    if (due > ena_now()) {
        if (!core->vec_pending[v]) {
            core->vec_pending[v] = true;
            core->st.io_irqs_held++;
        }
        if (!timer_pending(core->vec_timer[v]) ||
            timer_expire_time_ns(core->vec_timer[v]) > due) {
            timer_mod(core->vec_timer[v], due);
        }
        return;
    }
    timer_del(core->vec_timer[v]);
    core->vec_masked[v] = true;
    core->vec_pending[v] = false;
    core->vec_pending_kind[v] = 0;
    if (ena_fault_take(core, ENA_FAULT_IO_IRQ_DROP) ||
        (fresh && core->vec_unmasked[v] &&
         ena_fuzz_hit(core, ENA_FUZZ_IRQ_DROP))) {
        /* lost on the way: the device waits for an unmask that never comes */
        trace_ena_io_fault("irq lost", v);
        return;
    }
    if (ena_msix_enabled(core)) {
        trace_ena_io_irq(v);
        core->st.io_irqs++;
        ena_msix_notify(core, v);
        if (core->fuzz_seed && core->fuzz_kind != ENA_FUZZ_IRQ_DROP &&
            !(ena_fuzz_next(core) & 7)) {
            /*
             * A spurious second message: harmless to a sound driver.  None
             * while a lost interrupt is armed: the poll a late duplicate
             * starts would take the completions the loss strands.
             */
            core->fuzz_irq_dup++;
            ena_msix_notify(core, v);
        }
    }
}

static void ena_io_irq(EnaCore *core, EnaCq *cq)
{
    if (cq->intr && cq->vector < core->nr_vectors) {
        ena_io_vec_raise(core, cq->vector, ena_cq_kind(core, cq), true);
    }
}

/* The moderation delay of a vector ran out with an interrupt held */
static void ena_io_moder_cb(void *opaque)
{
    EnaCore *core = ((EnaVecTimer *)opaque)->core;
    uint16_t v = ((EnaVecTimer *)opaque)->vector;
    uint32_t i;

    if (!core->vec_pending[v] || core->vec_masked[v]) {
        return;
    }
    for (i = 0; i < ena_nsq(core); i++) {
        EnaCq *cq = &core->cqs[i];

        if (cq->live && cq->intr && cq->vector == v) {
            break;
        }
    }
    if (i == ena_nsq(core)) {
        core->vec_pending[v] = false;
        core->vec_pending_kind[v] = 0;
        return;
    }
    /* the delay has passed: no CQ of the vector holds it back any more */
    core->vec_unmask_ns[v] = INT64_MIN / 2;
    ena_io_vec_raise(core, v, 0, false);
}

/* Per-vector state: mask, pending, moderation */
static void ena_tx_timer_cb(void *opaque);

void ena_io_vec_init(EnaCore *core)
{
    uint32_t i;

    core->vec_masked = g_new0(bool, core->nr_vectors);
    core->vec_pending = g_new0(bool, core->nr_vectors);
    core->vec_pending_kind = g_new0(uint8_t, core->nr_vectors);
    core->vec_unmasked = g_new0(bool, core->nr_vectors);
    core->vec_rx_delay = g_new0(uint16_t, core->nr_vectors);
    core->vec_tx_delay = g_new0(uint16_t, core->nr_vectors);
    core->vec_unmask_ns = g_new0(int64_t, core->nr_vectors);
    core->vec_timer = g_new0(QEMUTimer *, core->nr_vectors);
    core->vec_timer_arg = g_new0(EnaVecTimer, core->nr_vectors);
    for (i = 0; i < core->nr_vectors; i++) {
        core->vec_timer_arg[i].core = core;
        core->vec_timer_arg[i].vector = i;
        core->vec_timer[i] = timer_new_ns(QEMU_CLOCK_VIRTUAL, ena_io_moder_cb,
                                          &core->vec_timer_arg[i]);
    }
    /* TX queues are the indices below qcap */
    core->sq_timer = g_new0(QEMUTimer *, core->qcap);
    core->sq_timer_arg = g_new0(EnaSqTimer, core->qcap);
    for (i = 0; i < core->qcap; i++) {
        core->sq_timer_arg[i].core = core;
        core->sq_timer_arg[i].sq = i;
        core->sq_timer[i] = timer_new_ns(QEMU_CLOCK_VIRTUAL, ena_tx_timer_cb,
                                         &core->sq_timer_arg[i]);
    }
    core->tx_rng = 0x9e3779b97f4a7c15ULL;
}

void ena_io_vec_fini(EnaCore *core)
{
    uint32_t i;

    for (i = 0; i < core->nr_vectors; i++) {
        timer_free(core->vec_timer[i]);
    }
    for (i = 0; i < core->qcap; i++) {
        timer_free(core->sq_timer[i]);
    }
    g_free(core->sq_timer);
    g_free(core->sq_timer_arg);
    core->sq_timer = NULL;
    g_free(core->vec_timer);
    g_free(core->vec_timer_arg);
    g_free(core->vec_rx_delay);
    g_free(core->vec_tx_delay);
    g_free(core->vec_unmask_ns);
    g_free(core->vec_masked);
    g_free(core->vec_pending);
    g_free(core->vec_pending_kind);
    g_free(core->vec_unmasked);
    core->vec_timer = NULL;
}

/* ------------------------------------------------------------------ */
/* IO queue teardown                                                   */

static void ena_sq_free(EnaCore *core, uint32_t idx)
{
    EnaSq *sq = &core->sqs[idx];

    if (!sq->live) {
        return;
    }
    if (sq->cq < ena_nsq(core) && core->cqs[sq->cq].sq == (int32_t)idx) {
        core->cqs[sq->cq].sq = -1;
    }
    if (idx < core->qcap && core->sq_timer) {
        timer_del(core->sq_timer[idx]);    /* nothing left to serve */
    }
    g_free(sq->llq);
    g_free(sq->llq_taken);
    g_free(sq->rxd);
    g_free(sq->rxd_ok);
    g_free(sq->tx_done);
    memset(sq, 0, sizeof(*sq));
}

static void ena_cq_free(EnaCore *core, uint32_t idx)
{
    memset(&core->cqs[idx], 0, sizeof(EnaCq));
    core->cqs[idx].sq = -1;
}

void ena_drop_queues(EnaCore *core)
{
    uint32_t i;

    for (i = 0; i < ena_nsq(core); i++) {
        ena_sq_free(core, i);
        ena_cq_free(core, i);
    }
    for (i = 0; i < core->nr_vectors; i++) {
        core->vec_masked[i] = false;
        core->vec_pending[i] = false;
        core->vec_pending_kind[i] = 0;
        core->vec_unmasked[i] = false;
        core->vec_rx_delay[i] = 0;
        core->vec_tx_delay[i] = 0;
        core->vec_unmask_ns[i] = 0;
        timer_del(core->vec_timer[i]);
    }
}

/* ------------------------------------------------------------------ */
/* IO queue creation and destruction                                   */

uint8_t ena_create_cq(EnaCore *core, const uint8_t *sqe, uint8_t *cqe)
{
    uint32_t depth = lduw_le_p(sqe + ENAHW_CCQ_DEPTH);
    uint32_t words = sqe[ENAHW_CCQ_CAPS2] & 0x1f;
    uint32_t vector = ldl_le_p(sqe + ENAHW_CCQ_MSIX);
    uint64_t base = ena_addr48(ldl_le_p(sqe + ENAHW_CCQ_BASE_LO),
                               lduw_le_p(sqe + ENAHW_CCQ_BASE_HI));
    bool intr = sqe[ENAHW_CCQ_CAPS1] & (1u << 5);
    uint32_t i;
    EnaCq *cq;

    if (!ena_pow2_depth(depth, ena_max_depth(core, 0)) ||
        words < 2 || words > 8 || !base ||
        (intr && vector >= core->nr_vectors)) {
        ena_guest_error(core, ENA_ERR_QUEUE,
                        "CREATE_CQ bad args depth %u words %u vec %u",
                        depth, words, vector);
        return ENAHW_ST_ILLEGAL;
    }
    for (i = 0; i < ena_nsq(core); i++) {
        if (!core->cqs[i].live) {
            break;
        }
    }
    if (i == ena_nsq(core)) {
        return ENAHW_ST_NO_RESOURCE;
    }
    cq = &core->cqs[i];
    cq->live = true;
    cq->intr = intr;
    cq->entry_size = words * 4;
    cq->vector = vector;
    cq->depth = depth;
    cq->base = base;
    cq->tail = 0;
    cq->sq = -1;
    core->st.queues_created++;

    stw_le_p(cqe + ENAHW_CCQR_IDX, i);
    /* the CQ is live with the asked depth; only the answer misreports it */
    if (ena_fault_take(core, ENA_FAULT_CQ_DEPTH)) {
        stw_le_p(cqe + ENAHW_CCQR_DEPTH, depth / 2);
    } else {
        stw_le_p(cqe + ENAHW_CCQR_DEPTH, depth);
    }
    stl_le_p(cqe + ENAHW_CCQR_NUMA_OFF, ENAHW_R_CQ_NUMA_BASE + 4 * i);
    stl_le_p(cqe + ENAHW_CCQR_HEAD_DB_OFF, ENAHW_R_CQ_HEAD_DB_BASE + 4 * i);
    if (ena_fault_take(core, ENA_FAULT_CQ_NO_UNMASK)) {
        /* untrusted-input test: no unmask register for this CQ */
        stl_le_p(cqe + ENAHW_CCQR_UNMASK_OFF, 0);
    } else {
        stl_le_p(cqe + ENAHW_CCQR_UNMASK_OFF, ENAHW_R_CQ_UNMASK_BASE + 4 * i);
    }
    trace_ena_create_cq(i, depth, words * 4, vector);
    return ENAHW_ST_OK;
}

uint8_t ena_create_sq(EnaCore *core, const uint8_t *sqe, uint8_t *cqe)
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
        ena_guest_error(core, ENA_ERR_QUEUE, "CREATE_SQ bad direction %u",
                        dir);
        return ENAHW_ST_ILLEGAL;
    }
    if (place != ENAHW_PLACE_HOST &&
        !(place == ENAHW_PLACE_DEV && dir == ENAHW_DIR_TX &&
          core->llq_enabled)) {
        ena_guest_error(core, ENA_ERR_QUEUE, "CREATE_SQ bad placement %u",
                        place);
        return ENAHW_ST_ILLEGAL;
    }
    /* a queue's LLQ window holds llq_slot_depth 128-byte entries */
    max_depth = place == ENAHW_PLACE_DEV ?
                ena_llq_max_depth(core) * ENAHW_LLQ_ENTRY_BYTES /
                core->llq_entry :
                ena_max_depth(core, dir);
    if (!ena_pow2_depth(depth, max_depth) ||
        (place == ENAHW_PLACE_HOST && !base)) {
        ena_guest_error(core, ENA_ERR_QUEUE, "CREATE_SQ bad depth %u / base",
                        depth);
        return ENAHW_ST_ILLEGAL;
    }
    if (cq_idx >= ena_nsq(core) || !core->cqs[cq_idx].live ||
        core->cqs[cq_idx].sq >= 0 || core->cqs[cq_idx].depth < depth) {
        ena_guest_error(core, ENA_ERR_QUEUE, "CREATE_SQ bad cq %u", cq_idx);
        return ENAHW_ST_ILLEGAL;
    }
    if (core->cqs[cq_idx].entry_size <
        (dir == ENAHW_DIR_TX ? ENAHW_TXC_SIZE : ENAHW_RXC_SIZE)) {
        ena_guest_error(core, ENA_ERR_QUEUE, "CREATE_SQ cq entry too small");
        return ENAHW_ST_ILLEGAL;
    }
    /* TX queues use indices [0, max), RX queues [max, 2 * max) */
    first = dir == ENAHW_DIR_TX ? 0 : core->qcap;
    for (i = first; i < first + MIN(core->max_queues, core->qcap); i++) {
        if (!core->sqs[i].live) {
            break;
        }
    }
    if (i == first + MIN(core->max_queues, core->qcap)) {
        return ENAHW_ST_NO_RESOURCE;
    }
    sq = &core->sqs[i];
    memset(sq, 0, sizeof(*sq));
    sq->live = true;
    sq->dir = dir;
    sq->placement = place;
    sq->cq = cq_idx;
    sq->depth = depth;
    sq->base = base;
    if (place == ENAHW_PLACE_DEV) {
        sq->llq_entry = core->llq_entry;
        sq->llq = g_malloc0((size_t)depth * sq->llq_entry);
        sq->no_meta_cache = core->llq_accel_on & ENAHW_LLQ_ACCEL_NO_META_CACHE;
        if (core->llq_accel_on & ENAHW_LLQ_ACCEL_TX_BURST) {
            sq->burst_entries = MAX(core->llq_max_burst / sq->llq_entry, 1);
        }
        sq->llq_taken = g_malloc0((size_t)depth * sq->llq_entry);
    }
    if (dir == ENAHW_DIR_TX) {
        sq->tx_done = g_new(uint16_t, depth);
    } else {
        sq->rxd = g_malloc0((size_t)depth * ENAHW_RXD_SIZE);
        sq->rxd_ok = g_new0(bool, depth);
    }
    core->cqs[cq_idx].sq = i;
    core->st.queues_created++;

    stw_le_p(cqe + ENAHW_CSQR_IDX, i);
    if (ena_fault_take(core, ENA_FAULT_BAD_DB)) {
        /* untrusted-input test: a doorbell offset past the end of BAR 0 */
        stl_le_p(cqe + ENAHW_CSQR_DB_OFF, ENAHW_REGS_SIZE + 4 * i);
    } else {
        stl_le_p(cqe + ENAHW_CSQR_DB_OFF, ENAHW_R_SQ_DB_BASE + 4 * i);
    }
    if (place == ENAHW_PLACE_DEV) {
        stl_le_p(cqe + ENAHW_CSQR_LLQ_DESC_OFF,
                 i * core->llq_slot_depth * ENAHW_LLQ_ENTRY_BYTES);
        stl_le_p(cqe + ENAHW_CSQR_LLQ_HDR_OFF, 0);
    }
    trace_ena_create_sq(i, dir, place, cq_idx, depth);
    if (dir == ENAHW_DIR_RX) {
        qemu_flush_queued_packets(ena_nc(core));
    }
    return ENAHW_ST_OK;
}

uint8_t ena_destroy_sq(EnaCore *core, const uint8_t *sqe)
{
    uint32_t idx = lduw_le_p(sqe + ENAHW_DSQ_IDX);
    uint8_t dir = sqe[ENAHW_DSQ_IDENTITY] >> 5;

    if (idx >= ena_nsq(core) || !core->sqs[idx].live ||
        core->sqs[idx].dir != dir) {
        ena_guest_error(core, ENA_ERR_QUEUE, "DESTROY_SQ bad sq %u dir %u",
                        idx, dir);
        return ENAHW_ST_ILLEGAL;
    }
    ena_sq_free(core, idx);
    core->st.queues_destroyed++;
    trace_ena_destroy_sq(idx);
    return ENAHW_ST_OK;
}

uint8_t ena_destroy_cq(EnaCore *core, const uint8_t *sqe)
{
    uint32_t idx = lduw_le_p(sqe + ENAHW_DCQ_IDX);

    if (idx >= ena_nsq(core) || !core->cqs[idx].live) {
        ena_guest_error(core, ENA_ERR_QUEUE, "DESTROY_CQ bad cq %u", idx);
        return ENAHW_ST_ILLEGAL;
    }
    if (core->cqs[idx].sq >= 0) {
        ena_guest_error(core, ENA_ERR_QUEUE, "DESTROY_CQ %u still has sq %d",
                        idx, core->cqs[idx].sq);
        return ENAHW_ST_BUSY;
    }
    ena_cq_free(core, idx);
    core->st.queues_destroyed++;
    trace_ena_destroy_cq(idx);
    return ENAHW_ST_OK;
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
    uint32_t nbuf;      /* descriptors with data */
    bool meta;          /* the packet brought a meta descriptor */
    bool no_first;      /* its first descriptor lacks FIRST */
} EnaTxPkt;

/*
 * Fill the L4 checksum (and the IPv4 header checksum) the driver asked for:
 * the partial one, over a field the driver seeded with the pseudo header.
 */
static void ena_tx_csum(EnaCore *core, EnaSq *sq, uint8_t *f, size_t len,
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
    /* partial only (ena_tx_finish() refused the rest): seeded by the driver */
    sum = net_checksum_add(len - l4off, f + l4off);
    c = net_checksum_finish(sum);
    if (l4 == ENAHW_L4_UDP && c == 0) {
        c = 0xffff;
    }
    stw_be_p(f + csum_off, c);
}

/* Consume one TX descriptor into @p; returns true at the packet's end. */
static bool ena_tx_desc(EnaCore *core, EnaSq *sq, const uint8_t *desc,
                        EnaTxPkt *p)
{
    uint32_t w0 = ldl_le_p(desc), w1 = ldl_le_p(desc + 4);
    uint32_t w2 = ldl_le_p(desc + 8), w3 = ldl_le_p(desc + 12);
    uint32_t blen;
    uint64_t addr;

    if (!p->ndesc && !(w0 & ENAHW_TXD_FIRST)) {
        p->no_first = true;
    }
    p->ndesc++;
    if (w0 & ENAHW_TXD_META) {
        p->meta = true;
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
        p->nbuf++;
        if (p->len + blen > ENA_TX_FRAME_MAX) {
            ena_guest_error(core, ENA_ERR_TX, "TX frame too long");
            p->bad = true;
        } else if (ena_dma_read(core, addr, core->tx_frame + p->len,
                                blen) != MEMTX_OK) {
            ena_guest_error(core, ENA_ERR_TX, "TX buffer DMA failed");
            p->bad = true;
        } else {
            p->len += blen;
        }
    }
    return w0 & ENAHW_TXD_LAST;
}

static bool ena_tx_post(EnaCore *core, EnaSq *sq, uint16_t req_id)
{
    EnaCq *cq = &core->cqs[sq->cq];
    uint8_t c[ENAHW_TXC_SIZE] = { 0 };
    uint64_t addr;

    if (!cq->live) {
        return false;
    }
    if (ena_fault_take(core, ENA_FAULT_TX_SWALLOW)) {
        /* the packet went out; its completion never comes */
        trace_ena_io_fault("tx completion swallowed", req_id);
        return false;
    }
    if (ena_fault_take(core, ENA_FAULT_TX_BAD_REQID)) {
        req_id = sq->depth + 7;
    } else if (ena_fuzz_hit(core, ENA_FUZZ_TX_REQID)) {
        req_id = ena_fuzz_bad_id(core, sq->depth);
    }
    addr = cq->base + (uint64_t)(cq->tail & (cq->depth - 1)) * cq->entry_size;
    stw_le_p(c + ENAHW_TXC_REQ_ID, req_id);
    stw_le_p(c + ENAHW_TXC_SUB_QID, 0);
    stw_le_p(c + ENAHW_TXC_SQ_HEAD, (uint16_t)sq->head);
    ena_dma_write(core, addr, c, 2);
    ena_dma_write(core, addr + 4, c + 4, 4);
    smp_wmb();  /* req_id must land before the phase bit */
    c[ENAHW_TXC_FLAGS] = ena_phase(cq->tail, cq->depth);
    ena_dma_write(core, addr + 2, c + 2, 2);
    cq->tail++;
    return true;
}

static uint64_t ena_tx_rand(EnaCore *core)
{
    core->tx_rng ^= core->tx_rng >> 12;
    core->tx_rng ^= core->tx_rng << 25;
    core->tx_rng ^= core->tx_rng >> 27;
    return core->tx_rng * 0x2545f4914f6cdd1dULL;
}

/*
 * A packet of this service pass is done: its completion now, or, with
 * tx-completion-reorder, at the pass's end in a shuffled order.  Every
 * completion of a pass then carries the pass's final sq_head (all of its
 * descriptors were consumed before any completion was written), which is
 * what the field means; drivers match completions by req_id.
 */
static bool ena_tx_complete(EnaCore *core, EnaSq *sq, uint16_t req_id)
{
    if (!core->tx_reorder) {
        return ena_tx_post(core, sq, req_id);
    }
    if (sq->tx_ndone < sq->depth) {
        sq->tx_done[sq->tx_ndone++] = req_id;
    }
    return false;
}

static bool ena_tx_flush(EnaCore *core, EnaSq *sq)
{
    bool posted = false;
    uint32_t i, j;
    uint16_t t;

    if (sq->tx_ndone > 1) {
        for (i = sq->tx_ndone - 1; i > 0; i--) {
            j = ena_tx_rand(core) % (i + 1);
            t = sq->tx_done[i];
            sq->tx_done[i] = sq->tx_done[j];
            sq->tx_done[j] = t;
        }
        core->st.tx_reordered++;
    }
    for (i = 0; i < sq->tx_ndone; i++) {
        posted |= ena_tx_post(core, sq, sq->tx_done[i]);
    }
    sq->tx_ndone = 0;
    return posted;
}

static void ena_tx_finish(EnaCore *core, EnaSq *sq, uint32_t qidx, EnaTxPkt *p)
{
    NetClientState *nc = ena_nc(core);

    if (p->nbuf > core->max_tx_sgl) {
        /* more buffers than the device said it takes: not sent */
        ena_guest_error(core, ENA_ERR_TX, "TX packet of %u buffers, "
                        "max %u", p->nbuf, core->max_tx_sgl);
        core->st.tx_over_sgl++;
        p->bad = true;
    }
    if (sq->no_meta_cache && !p->meta) {
        /* no meta cached to fall back on: the device drops it */
        ena_guest_error(core, ENA_ERR_TX, "sq %u packet without its meta "
                        "descriptor (meta caching disabled)", qidx);
        core->st.tx_no_meta++;
        p->bad = true;
    }
    if (p->no_first) {
        ena_guest_error(core, ENA_ERR_TX, "sq %u packet whose first descriptor "
                        "lacks FIRST", qidx);
        core->st.tx_no_first++;
        p->bad = true;
    }
    /*
     * Offloads: the device offers no TSO and only the partial L4 checksum
     * (the driver seeds the pseudo header); anything else is not sent.
     */
    if (p->w1 & ENAHW_TXD_TSO) {
        ena_guest_error(core, ENA_ERR_TX, "sq %u TSO requested, not offered",
                        qidx);
        core->st.tx_bad_offload++;
        p->bad = true;
    } else if ((p->w1 & ENAHW_TXD_L4_CSUM) &&
               !(p->w1 & ENAHW_TXD_L4_PARTIAL)) {
        ena_guest_error(core, ENA_ERR_TX, "sq %u full L4 checksum requested, "
                        "only the partial one offered", qidx);
        core->st.tx_bad_offload++;
        p->bad = true;
    }
    if (!p->bad && p->len > core->mtu + ENA_L2_OVERHEAD) {
        ena_guest_error(core, ENA_ERR_TX, "sq %u frame of %zu bytes over the "
                        "MTU %u", qidx, p->len, core->mtu);
        core->st.tx_over_mtu++;
        p->bad = true;
    }
    if (!p->bad && p->len) {
        if (p->w1 & (ENAHW_TXD_L4_CSUM | ENAHW_TXD_L3_CSUM)) {
            ena_tx_csum(core, sq, core->tx_frame, p->len, p->w1);
        }
        trace_ena_tx(qidx, p->len);
        core->st.tx_packets++;
        core->st.tx_bytes += p->len;
        if (!nc->link_down) {
            qemu_send_packet(nc, core->tx_frame, p->len);
        }
    }
    if (sq->no_meta_cache) {
        sq->meta_valid = false;     /* nothing carries over */
    }
}

static bool ena_tx_phase_ok(EnaSq *sq, const uint8_t *desc, uint32_t idx)
{
    uint32_t w0 = ldl_le_p(desc);

    return !!(w0 & ENAHW_TXD_PHASE) == ena_phase(idx, sq->depth);
}

static void ena_tx_host(EnaCore *core, EnaSq *sq, uint32_t qidx)
{
    uint8_t desc[16];
    bool posted = false;

    while (sq->tail != sq->head) {
        EnaTxPkt p = { 0 };
        uint32_t pos = sq->head;
        bool done = false, resync = false;

        while (pos != sq->tail) {
            uint64_t addr = sq->base + (uint64_t)(pos & (sq->depth - 1)) * 16;

            if (ena_dma_read(core, addr, desc, 16) != MEMTX_OK ||
                !ena_tx_phase_ok(sq, desc, pos)) {
                ena_guest_error(core, ENA_ERR_TX,
                                "TX sq %u desc %u unreadable or stale",
                                qidx, pos);
                sq->head = sq->tail;
                goto out;
            }
            if (p.ndesc && (ldl_le_p(desc) & ENAHW_TXD_FIRST)) {
                resync = true;      /* unterminated packet before this one */
                break;
            }
            pos++;
            if (ena_tx_desc(core, sq, desc, &p) ||
                p.ndesc >= ENA_PKT_DESCS_MAX) {
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
        ena_tx_finish(core, sq, qidx, &p);
        if (p.comp) {
            posted |= ena_tx_complete(core, sq, p.req_id);
        }
    }
out:
    posted |= ena_tx_flush(core, sq);
    if (posted) {
        ena_io_irq(core, &core->cqs[sq->cq]);
    }
}

static void ena_tx_llq(EnaCore *core, EnaSq *sq, uint32_t qidx)
{
    bool posted = false;

    while (sq->tail != sq->head) {
        EnaTxPkt p = { 0 };
        uint32_t e = sq->head, slot = 0, limit = ENAHW_LLQ_DESCS_BEFORE_HDR;
        uint8_t *entry = sq->llq_taken + (size_t)(e & (sq->depth - 1)) *
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
                entry = sq->llq_taken + (size_t)(e & (sq->depth - 1)) *
                        sq->llq_entry;
                slot = 0;
                limit = sq->llq_entry / 16;
            }
            desc = entry + slot * 16;
            slot++;
            if (!ena_tx_phase_ok(sq, desc, e)) {
                ena_guest_error(core, ENA_ERR_LLQ,
                                "LLQ sq %u entry %u has a stale phase",
                                qidx, e);
                sq->head = sq->tail;
                goto out;
            }
            if (p.ndesc && (ldl_le_p(desc) & ENAHW_TXD_FIRST)) {
                if (slot != 1 || e == sq->head) {
                    ena_guest_error(core, ENA_ERR_LLQ,
                                    "LLQ sq %u entry %u misplaced first "
                                    "descriptor", qidx, e);
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
                memcpy(core->tx_frame, first + ENAHW_LLQ_DESCS_BEFORE_HDR * 16,
                       hdr);
                p.len = hdr;
            }
            if (ena_tx_desc(core, sq, desc, &p) ||
                p.ndesc >= ENA_PKT_DESCS_MAX) {
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
        ena_tx_finish(core, sq, qidx, &p);
        if (p.comp) {
            posted |= ena_tx_complete(core, sq, p.req_id);
        }
    }
out:
    posted |= ena_tx_flush(core, sq);
    if (posted) {
        ena_io_irq(core, &core->cqs[sq->cq]);
    }
}

/* ------------------------------------------------------------------ */
/* RX                                                                  */

typedef struct EnaRxInfo {
    uint32_t status;        /* l3/l4 protocol and checksum bits */
    uint32_t hash;
} EnaRxInfo;

static uint32_t ena_rss_hash(EnaCore *core, const uint8_t *in, size_t len)
{
    if (core->rss_func == ENAHW_RSS_FUNC_CRC32) {
        return crc32c(core->rss_init, in, len);
    } else {
        net_toeplitz_key key;
        uint32_t h = 0;

        net_toeplitz_key_init(&key, core->rss_key);
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

/*
 * The hash input of a frame: each field the driver selected for its hash
 * protocol @proto, in the order source address, destination address,
 * source port, destination port (source and destination MAC for frames
 * that are not IP).  @tuple holds the addresses and, for TCP and UDP, the
 * ports (@tlen bytes); it is rewritten in place.  Returns the input's
 * length in @hlen, false when no field is selected.
 */
static bool ena_rss_input(EnaCore *core, const uint8_t *f, unsigned proto,
                          uint8_t *tuple, size_t tlen, size_t *hlen)
{
    uint16_t fl = proto < ENAHW_RSS_PROTOS ? core->rss_fields[proto] : 0;
    uint8_t in[36];
    size_t n = 0, alen;

    if (proto == 7) {
        if (fl & ENAHW_RSS_F_L2_SA) {
            memcpy(in + n, f + 6, 6);
            n += 6;
        }
        if (fl & ENAHW_RSS_F_L2_DA) {
            memcpy(in + n, f, 6);
            n += 6;
        }
    } else if (tlen >= 8) {
        /* 8 or 12 bytes for IPv4, 32 or 36 for IPv6 */
        alen = tlen >= 32 ? 16 : 4;
        if (fl & ENAHW_RSS_F_L3_SA) {
            memcpy(in + n, tuple, alen);
            n += alen;
        }
        if (fl & ENAHW_RSS_F_L3_DA) {
            memcpy(in + n, tuple + alen, alen);
            n += alen;
        }
        if (proto <= 3 && tlen == 2 * alen + 4) {
            if (fl & ENAHW_RSS_F_L4_SP) {
                memcpy(in + n, tuple + 2 * alen, 2);
                n += 2;
            }
            if (fl & ENAHW_RSS_F_L4_DP) {
                memcpy(in + n, tuple + 2 * alen + 2, 2);
                n += 2;
            }
        }
    }
    memcpy(tuple, in, n);
    *hlen = n;
    return n > 0;
}

/* Parse a received frame: protocol, checksum verdicts and the RSS hash. */
static void ena_rx_classify(EnaCore *core, const uint8_t *f, size_t len,
                            EnaRxInfo *ri)
{
    uint8_t tuple[36];
    size_t tlen = 0, off = 14, l4len = 0, hlen;
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

    ri->hash = ena_rss_input(core, f, rss_proto, tuple, tlen, &hlen) ?
               ena_rss_hash(core, tuple, hlen) : 0;
}

static EnaSq *ena_rx_pick(EnaCore *core, uint32_t hash, uint32_t *qidx)
{
    uint32_t i, n = 0, live[ENA_MAX_QUEUES_LIMIT];

    if (core->rss_table_set) {
        uint16_t v = core->rss_table[hash & ((1u << core->rss_table_log) - 1)];

        /* an entry names a completion queue (cq_idx), never an SQ */
        if (v < ena_nsq(core)) {
            if (core->cqs[v].live && core->cqs[v].sq >= 0 &&
                core->sqs[core->cqs[v].sq].dir == ENAHW_DIR_RX) {
                *qidx = core->cqs[v].sq;
                return &core->sqs[*qidx];
            }
        }
    }
    for (i = core->qcap; i < ena_nsq(core); i++) {
        if (core->sqs[i].live && core->sqs[i].dir == ENAHW_DIR_RX) {
            live[n++] = i;
        }
    }
    if (!n) {
        return NULL;
    }
    *qidx = live[hash % n];
    return &core->sqs[*qidx];
}

/*
 * An RX queue whose driver posted buffers but never half its ring at once
 * since the queue was created: its first fill is still going on.  An
 * overrun there is the fill falling behind the traffic; one after it is
 * the driver's steady refill.
 */
static bool ena_rx_filling(const EnaSq *sq)
{
    return sq->tail != 0 && !sq->rx_filled;
}

bool ena_can_receive(EnaCore *core)
{
    bool rxq = false, filling = false;
    uint32_t i;

    if (core->io_halted) {
        return true;    /* dropped by ena_receive(), not kept for later */
    }
    if (!ena_io_running(core) || !core->sqs) {
        return false;
    }
    if (core->rx_overrun_drop) {
        return true;    /* ena_receive() drops what finds no buffer */
    }
    for (i = core->qcap; i < ena_nsq(core); i++) {
        if (core->sqs[i].live && core->sqs[i].dir == ENAHW_DIR_RX) {
            if (core->sqs[i].tail != core->sqs[i].head) {
                return true;
            }
            rxq = true;
            filling |= ena_rx_filling(&core->sqs[i]);
        }
    }
    /* RX queues, none with a buffer: the frame waits (an overrun) */
    core->st.rx_overruns += rxq;
    core->st.rx_overruns_filling += filling;
    return false;
}

/*
 * A descriptor the device took at its doorbell, used now: the driver must
 * not have rewritten it in between (it may only after the completion).
 * The device uses its copy either way.
 */
static void ena_rx_check_taken(EnaCore *core, EnaSq *sq, uint32_t qidx,
                               uint32_t pos, const uint8_t *taken)
{
    uint8_t now[ENAHW_RXD_SIZE];
    uint64_t addr = sq->base +
                    (uint64_t)(pos & (sq->depth - 1)) * ENAHW_RXD_SIZE;

    if (ena_dma_read(core, addr, now, sizeof(now)) != MEMTX_OK ||
        memcmp(now, taken, sizeof(now))) {
        core->st.rx_desc_rewritten++;
        ena_guest_error(core, ENA_ERR_RX, "RX sq %u desc %u rewritten after "
                        "its doorbell, before its completion", qidx, pos);
    }
}

/* what ena_rx_deliver() did with a frame */
enum {
    ENA_RX_DONE,        /* written, with its completions */
    ENA_RX_OVERRUN,     /* too few posted buffers (counted) */
    ENA_RX_DROPPED,     /* dropped for another reason (counted) */
};

/*
 * ena_rx_deliver() - put one frame into RX queue @qidx: gather the posted
 * buffers it needs, write it and its completions, raise the interrupt.
 */
static int ena_rx_deliver(EnaCore *core, EnaSq *sq, uint32_t qidx,
                          const EnaRxInfo *ri, const uint8_t *buf,
                          size_t size)
{
    struct {
        uint64_t addr;
        uint32_t len;
        uint16_t req_id;
    } bufs[ENA_RX_DESCS_PER_PKT];
    const uint8_t *desc;
    uint32_t n = 0, i, cap = 0, slot;
    size_t off;
    EnaCq *cq = &core->cqs[sq->cq];

    /* gather enough posted buffers for the whole frame */
    while (cap < size) {
        uint32_t pos = sq->head + n;

        if (pos == sq->tail) {
            /*
             * No buffer for the frame: a device drops it (rx-overrun-drop,
             * the default); off, the model keeps it in QEMU's queue until
             * a refill
             */
            core->st.rx_overruns++;
            core->st.rx_overruns_filling += ena_rx_filling(sq);
            return ENA_RX_OVERRUN;
        }
        if (n == core->max_rx_sgl) {
            core->st.rx_dropped++;
            return ENA_RX_DROPPED;
        }
        slot = pos & (sq->depth - 1);
        desc = sq->rxd + (size_t)slot * ENAHW_RXD_SIZE;
        if (!sq->rxd_ok[slot]) {
            /* reported at its doorbell; the queue is stuck until a reset */
            core->st.rx_dropped++;
            return ENA_RX_DROPPED;
        }
        ena_rx_check_taken(core, sq, qidx, pos, desc);
        bufs[n].len = lduw_le_p(desc + ENAHW_RXD_LEN) ?: 64 * KiB;
        if (n == 0 && size > 8 && ena_fault_armed(core, ENA_FAULT_RX_RUNT)) {
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
        uint32_t status = ri->status;
        uint16_t req_id = bufs[i].req_id, clen = chunk;
        uint64_t caddr;

        ena_dma_write(core, bufs[i].addr, buf + off, chunk);
        off += chunk;
        if (i == 0) {
            status |= ENAHW_RXS_FIRST;
        }
        if (i == n - 1) {
            status |= ENAHW_RXS_LAST;
        }
        if (ena_fault_take(core, ENA_FAULT_RX_BAD_REQID)) {
            req_id = sq->depth + 7;
        }
        if (ena_fault_take(core, ENA_FAULT_RX_BAD_LEN)) {
            clen = 0xffff;
        }
        if (ena_fuzz_hit(core, ENA_FUZZ_RX_REQID)) {
            req_id = ena_fuzz_bad_id(core, sq->depth);
        } else if (ena_fuzz_hit(core, ENA_FUZZ_RX_LEN)) {
            clen = (ena_fuzz_next(core) & 1) ? 0 :
                   (uint16_t)(0x8000 | ena_fuzz_next(core));
        }
        status |= ena_phase(cq->tail, cq->depth) ? ENAHW_RXS_PHASE : 0;
        stw_le_p(c + ENAHW_RXC_LEN, clen);
        stw_le_p(c + ENAHW_RXC_REQ_ID, req_id);
        stl_le_p(c + ENAHW_RXC_HASH, ri->hash);
        stw_le_p(c + ENAHW_RXC_SUB_QID, 0);
        caddr = cq->base + (uint64_t)(cq->tail & (cq->depth - 1)) *
                cq->entry_size;
        ena_dma_write(core, caddr + 4, c + 4, ENAHW_RXC_SIZE - 4);
        smp_wmb();  /* length/req_id before the status word's phase */
        stl_le_p(c + ENAHW_RXC_STATUS, status);
        ena_dma_write(core, caddr, c, 4);
        cq->tail++;
    }
    if (size > 8) {
        ena_fault_take(core, ENA_FAULT_RX_RUNT);
    }
    sq->head += n;
    core->st.rx_packets++;
    core->st.rx_bytes += size;
    trace_ena_rx(qidx, size, n);
    ena_io_irq(core, cq);
    return ENA_RX_DONE;
}

ssize_t ena_receive(EnaCore *core, const uint8_t *buf, size_t size)
{
    EnaRxInfo ri;
    uint32_t qidx;
    EnaSq *sq;

    if (!ena_io_running(core) || !size) {
        core->st.rx_dropped++;
        core->st.rx_halted += core->io_halted;
        return size;
    }
    if (size > core->mtu + ENA_L2_OVERHEAD) {
        /* the wire's frame, larger than the MTU the driver set: dropped */
        core->st.rx_over_mtu++;
        return size;
    }
    ena_rx_classify(core, buf, size, &ri);
    sq = ena_rx_pick(core, ri.hash, &qidx);
    if (!sq || !core->cqs[sq->cq].live) {
        core->st.rx_dropped++;
        return size;
    }
    if (ena_rx_deliver(core, sq, qidx, &ri, buf, size) == ENA_RX_OVERRUN &&
        !core->rx_overrun_drop) {
        return 0;   /* QEMU keeps the frame until a refill */
    }
    return size;
}

/*
 * The rx-burst bench knob: rx_burst frames at once into the queue whose
 * first doorbell armed it, as a peer that starts sending the moment the
 * link is there would.  No RX buffer can be posted in between (the
 * driver's doorbell waits for this callback), so what finds no buffer is
 * lost, as on a device that drops on an empty ring.
 */
void ena_rx_burst_cb(void *opaque)
{
    EnaCore *core = opaque;
    uint32_t n = core->rx_burst, len, i;
    uint8_t frame[ENA_L2_OVERHEAD + 1500] = { 0 };
    EnaRxInfo ri;
    EnaSq *sq;

    core->rx_burst = 0;
    if (!n || core->burst_sq >= ena_nsq(core) || !ena_io_running(core)) {
        return;
    }
    sq = &core->sqs[core->burst_sq];
    if (!sq->live || sq->dir != ENAHW_DIR_RX || !core->cqs[sq->cq].live) {
        return;
    }
    len = MAX(60, MIN(core->rx_burst_len, core->mtu + 14));
    len = MIN(len, sizeof(frame));
    /* to the device's own address, from a local one, a local ethertype */
    memcpy(frame, core->owner_mac, 6);
    frame[6] = 0x02;
    frame[11] = 0x01;
    frame[12] = 0x88;
    frame[13] = 0xb5;
    ena_rx_classify(core, frame, len, &ri);
    for (i = 0; i < n; i++) {
        core->st.rx_burst_sent++;
        if (ena_rx_deliver(core, sq, core->burst_sq, &ri, frame, len) !=
            ENA_RX_DONE) {
            core->st.rx_burst_dropped++;
        }
    }
}

void ena_set_link(EnaCore *core)
{
    NetClientState *nc = ena_nc(core);

    trace_ena_link(!nc->link_down);
    ena_post_link(core);
    if (!nc->link_down) {
        qemu_flush_queued_packets(nc);
    }
}

/* ------------------------------------------------------------------ */
/* IO doorbells and queue registers                                    */

/* send what a TX SQ holds between its head and the doorbell's tail */
void ena_tx_serve(EnaCore *core, uint32_t idx)
{
    EnaSq *sq = &core->sqs[idx];

    if (sq->placement == ENAHW_PLACE_DEV) {
        ena_tx_llq(core, sq, idx);
    } else {
        ena_tx_host(core, sq, idx);
    }
}

static void ena_tx_timer_cb(void *opaque)
{
    EnaSqTimer *t = opaque;
    EnaCore *core = t->core;

    if (!core->sqs[t->sq].live || core->tx_hold || !ena_ready(core) ||
        core->io_halted) {
        return;
    }
    core->st.tx_deferred++;
    ena_tx_serve(core, t->sq);
}

/*
 * TX work announced on queue @idx: served tx-completion-delay-us later by
 * the queue's timer (a device fetches and sends after the doorbell, not in
 * it), or at once with a delay of 0.  A doorbell while the timer runs adds
 * to the same pass.
 */
void ena_tx_kick(EnaCore *core, uint32_t idx)
{
    EnaSq *sq = &core->sqs[idx];

    if (core->tx_hold || !ena_ready(core) || core->io_halted ||
        sq->tail == sq->head) {
        return;
    }
    if (!core->tx_delay_us) {
        ena_tx_serve(core, idx);
    } else if (!timer_pending(core->sq_timer[idx])) {
        timer_mod(core->sq_timer[idx],
                  ena_now() + (int64_t)core->tx_delay_us * SCALE_US);
    }
}

/* Every live TX queue's pending work served, as after a pause (tx-hold). */
void ena_tx_kick_all(EnaCore *core)
{
    uint32_t i;

    if (!ena_ready(core)) {
        return;
    }
    for (i = 0; core->sqs && i < core->qcap; i++) {
        if (core->sqs[i].live && core->sqs[i].dir == ENAHW_DIR_TX) {
            ena_tx_kick(core, i);
        }
    }
}

/*
 * RX descriptors from @from to @to announced: the device takes each one
 * now (its buffer, length and req_id), as hardware fetches them, and uses
 * this copy when a frame comes (ena_rx_taken()).
 */
static void ena_rx_take(EnaCore *core, EnaSq *sq, uint32_t qidx,
                        uint32_t from, uint32_t to)
{
    uint32_t pos;

    for (pos = from; pos != to; pos++) {
        uint32_t slot = pos & (sq->depth - 1);
        uint8_t *d = sq->rxd + (size_t)slot * ENAHW_RXD_SIZE;
        uint64_t addr = sq->base + (uint64_t)slot * ENAHW_RXD_SIZE;

        sq->rxd_ok[slot] =
            ena_dma_read(core, addr, d, ENAHW_RXD_SIZE) == MEMTX_OK &&
            (d[ENAHW_RXD_CTRL] & ENAHW_RXD_C_PHASE) ==
            ena_phase(pos, sq->depth);
        if (!sq->rxd_ok[slot]) {
            ena_guest_error(core, ENA_ERR_RX,
                            "RX sq %u desc %u unreadable or stale at its "
                            "doorbell", qidx, pos);
        }
    }
}

/* LLQ entries from @from to @to announced: the device takes them now */
static void ena_llq_take(EnaSq *sq, uint32_t from, uint32_t to)
{
    uint32_t pos;

    for (pos = from; pos != to; pos++) {
        size_t off = (size_t)(pos & (sq->depth - 1)) * sq->llq_entry;

        memcpy(sq->llq_taken + off, sq->llq + off, sq->llq_entry);
    }
}

/*
 * A BAR2 write at @off of @sq's window: an entry announced by a doorbell
 * and not yet consumed belongs to the device; a driver rewriting it broke
 * the protocol (the device sends what it took at the doorbell).
 */
void ena_llq_written(EnaCore *core, EnaSq *sq, size_t off, unsigned size)
{
    uint32_t e = off / sq->llq_entry;
    uint32_t pending = sq->tail - sq->head;

    if (((e - sq->head) & (sq->depth - 1)) < pending) {
        core->st.llq_overwrite++;
        ena_guest_error(core, ENA_ERR_LLQ, "LLQ sq %td entry %u rewritten "
                        "before the device consumed it (head %u tail %u)",
                        sq - core->sqs, e, sq->head, sq->tail);
    }
}

void ena_sq_doorbell(EnaCore *core, uint32_t idx, uint32_t val)
{
    EnaSq *sq;
    uint32_t ahead, old_tail;

    core->st.io_doorbells++;
    if (idx >= ena_nsq(core) || !core->sqs[idx].live) {
        ena_guest_error(core, ENA_ERR_DOORBELL, "doorbell for dead sq %u", idx);
        return;
    }
    sq = &core->sqs[idx];
    ahead = (uint16_t)(val - (uint16_t)sq->head);
    if (ahead > sq->depth) {
        ena_guest_error(core, ENA_ERR_DOORBELL,
                        "sq %u doorbell %u beyond depth (head %u)",
                        idx, val, sq->head);
        return;
    }
    if (sq->burst_entries &&
        (uint16_t)(val - (uint16_t)sq->tail) > sq->burst_entries) {
        /* the device takes at most a burst of entries per doorbell */
        core->st.llq_burst_over++;
        ena_guest_error(core, ENA_ERR_LLQ,
                        "sq %u doorbell announces %u entries, burst %u", idx,
                        (uint16_t)(val - (uint16_t)sq->tail),
                        sq->burst_entries);
    }
    old_tail = sq->tail;
    sq->tail = sq->head + ahead;
    /* what this doorbell announces beyond the last one: taken now */
    if ((int32_t)(sq->tail - old_tail) > 0) {
        if (sq->dir == ENAHW_DIR_RX) {
            ena_rx_take(core, sq, idx, old_tail, sq->tail);
        } else if (sq->llq_taken) {
            ena_llq_take(sq, old_tail, sq->tail);
        }
    }
    if (sq->dir == ENAHW_DIR_RX) {
        sq->rx_filled |= ahead >= sq->depth / 2;
        sq->rx_most_posted = MAX(sq->rx_most_posted, ahead);
        if (core->rx_burst && old_tail == 0 && sq->tail &&
            !timer_pending(core->burst_timer)) {
            /* rx-burst: the first buffers of an RX queue arm it */
            core->burst_sq = idx;
            timer_mod(core->burst_timer,
                      qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                      (int64_t)core->rx_burst_delay_us * SCALE_US);
        }
    }
    if (!ena_io_running(core)) {
        return;
    }
    if (sq->dir == ENAHW_DIR_RX) {
        qemu_flush_queued_packets(ena_nc(core));
    } else {
        ena_tx_kick(core, idx);
    }
}

void ena_cq_unmask(EnaCore *core, uint32_t idx, uint32_t val)
{
    EnaCq *cq;
    uint16_t v;

    if (idx >= ena_nsq(core) || !core->cqs[idx].live) {
        ena_guest_error(core, ENA_ERR_DOORBELL, "unmask for dead cq %u", idx);
        return;
    }
    cq = &core->cqs[idx];
    v = cq->vector;
    if (!(val & ENAHW_INTR_UNMASK) || v >= core->nr_vectors) {
        return;
    }
    if (!(val & ENAHW_INTR_NO_MODER_UPDATE) && core->intr_delay_res) {
        core->vec_rx_delay[v] = val & ENAHW_INTR_RX_DELAY;
        core->vec_tx_delay[v] = (val >> ENAHW_INTR_TX_DELAY_SHIFT) &
                                ENAHW_INTR_RX_DELAY;
    }
    core->st.io_unmasks++;
    core->st.io_unmask_rx_delay += core->vec_rx_delay[v];
    core->vec_unmask_ns[v] = ena_now();
    core->vec_masked[v] = false;
    core->vec_unmasked[v] = true;
    if (core->vec_pending[v]) {
        /* held for the delay of what is pending, not of @cq's kind */
        ena_io_vec_raise(core, v, 0, false);
    }
}

/* ------------------------------------------------------------------ */
/* BAR2: LLQ device memory                                             */

EnaSq *ena_llq_locate(EnaCore *core, hwaddr addr, unsigned size,
                      size_t *off)
{
    uint64_t slot_bytes = (uint64_t)core->llq_slot_depth *
                          ENAHW_LLQ_ENTRY_BYTES;
    uint32_t slot = addr / slot_bytes;
    EnaSq *sq;

    if (slot >= core->qcap) {
        return NULL;
    }
    sq = &core->sqs[slot];
    if (!sq->live || !sq->llq) {
        return NULL;
    }
    *off = addr % slot_bytes;
    if (*off + size > (size_t)sq->depth * sq->llq_entry) {
        return NULL;
    }
    return sq;
}
