/*
 * Amazon Elastic Network Adapter (ENA) device model: the core's entry points
 *
 * What the glue in ena.c calls: the BAR0 register file (with readless
 * reads), BAR2 (LLQ device memory) accesses, and the core's realize,
 * unrealize, reset and post-load.  The registers' work is done in
 * ena_admin.c (reset, admin queue, AENQ) and ena_io.c (IO doorbells).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/bswap.h"
#include "qemu/host-utils.h"
#include "qemu/timer.h"
#include "system/system.h"
#include "trace.h"

#include "ena_int.h"

/* ------------------------------------------------------------------ */
/* BAR0                                                                */

static uint32_t ena_caps(void)
{
    return (10u << ENAHW_CAPS_RESET_TO_SHIFT) |
           (48u << ENAHW_CAPS_DMA_WIDTH_SHIFT) |
           (0u << ENAHW_CAPS_ADMIN_TO_SHIFT);
}

static uint32_t ena_reg_read(EnaCore *core, hwaddr off)
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
        return (uint32_t)core->aq_base;
    case ENAHW_R_AQ_BASE_HI:
        return core->aq_base >> 32;
    case ENAHW_R_AQ_CAPS:
        return core->aq_caps;
    case ENAHW_R_ACQ_BASE_LO:
        return (uint32_t)core->acq_base;
    case ENAHW_R_ACQ_BASE_HI:
        return core->acq_base >> 32;
    case ENAHW_R_ACQ_CAPS:
        return core->acq_caps;
    case ENAHW_R_AQ_DB:
        return core->aq_db;
    case ENAHW_R_ACQ_TAIL:
        return core->acq_tail;
    case ENAHW_R_AENQ_CAPS:
        return core->aenq_caps;
    case ENAHW_R_AENQ_BASE_LO:
        return (uint32_t)core->aenq_base;
    case ENAHW_R_AENQ_BASE_HI:
        return core->aenq_base >> 32;
    case ENAHW_R_AENQ_HEAD_DB:
        return core->aenq_head_db;
    case ENAHW_R_AENQ_TAIL:
        return core->aenq_tail;
    case ENAHW_R_INTR_MASK:
        return core->intr_mask;
    case ENAHW_R_DEV_CTL:
        return core->dev_ctl;
    case ENAHW_R_DEV_STS:
        return core->dev_sts;
    case ENAHW_R_MMIO_REG_READ:
        return core->mmio_read_req;
    case ENAHW_R_MMIO_RESP_LO:
        return (uint32_t)core->mmio_resp_addr;
    case ENAHW_R_MMIO_RESP_HI:
        return core->mmio_resp_addr >> 32;
    default:
        return 0;
    }
}

static void ena_readless(EnaCore *core, uint32_t val)
{
    uint8_t resp[8];
    uint16_t off = val >> 16;

    core->mmio_read_req = val;
    if (ena_fault_take(core, ENA_FAULT_MMIO_DROP)) {
        return;     /* as a device busy resetting: no response written */
    }
    if (!core->mmio_resp_addr) {
        ena_guest_error(core, ENA_ERR_MMIO, "readless read without address");
        return;
    }
    stw_le_p(resp + 0, val & 0xffff);
    stw_le_p(resp + 2, off);
    stl_le_p(resp + 4, (off & 3) ? 0 : ena_reg_read(core, off));
    /* value first, then the request id the driver spins on */
    ena_dma_write(core, core->mmio_resp_addr + 2, resp + 2, 6);
    smp_wmb();  /* the driver spins on req_id: publish it last */
    ena_dma_write(core, core->mmio_resp_addr, resp, 2);
}

uint32_t ena_core_read(EnaCore *core, hwaddr addr)
{
    uint32_t val = ena_reg_read(core, addr);

    trace_ena_mmio_read(addr, val);
    return val;
}

/* Return: whether @addr is one of the IO queues' registers */
static bool ena_qreg_write(EnaCore *core, hwaddr addr, uint32_t val)
{
    if (addr >= ENAHW_R_SQ_DB_BASE &&
        addr < ENAHW_R_SQ_DB_BASE + ENAHW_R_QREG_SPAN) {
        ena_sq_doorbell(core, (addr - ENAHW_R_SQ_DB_BASE) / 4, val);
        return true;
    }
    if (addr >= ENAHW_R_CQ_UNMASK_BASE &&
        addr < ENAHW_R_CQ_UNMASK_BASE + ENAHW_R_QREG_SPAN) {
        ena_cq_unmask(core, (addr - ENAHW_R_CQ_UNMASK_BASE) / 4, val);
        return true;
    }
    /* CQ head doorbells and NUMA: accepted, nothing to do for a model */
    return (addr >= ENAHW_R_CQ_HEAD_DB_BASE &&
            addr < ENAHW_R_CQ_HEAD_DB_BASE + ENAHW_R_QREG_SPAN) ||
           (addr >= ENAHW_R_CQ_NUMA_BASE &&
            addr < ENAHW_R_CQ_NUMA_BASE + ENAHW_R_QREG_SPAN);
}

void ena_core_write(EnaCore *core, hwaddr addr, uint32_t val)
{
    trace_ena_mmio_write(addr, val);
    if (ena_qreg_write(core, addr, val)) {
        return;
    }

    switch (addr) {
    case ENAHW_R_AQ_BASE_LO:
        core->aq_base = deposit64(core->aq_base, 0, 32, val);
        break;
    case ENAHW_R_AQ_BASE_HI:
        core->aq_base = deposit64(core->aq_base, 32, 32, val & 0xffff);
        break;
    case ENAHW_R_AQ_CAPS:
        core->aq_caps = val;
        core->aq_head = 0;
        break;
    case ENAHW_R_ACQ_BASE_LO:
        core->acq_base = deposit64(core->acq_base, 0, 32, val);
        break;
    case ENAHW_R_ACQ_BASE_HI:
        core->acq_base = deposit64(core->acq_base, 32, 32, val & 0xffff);
        break;
    case ENAHW_R_ACQ_CAPS:
        core->acq_caps = val;
        core->acq_tail = 0;
        break;
    case ENAHW_R_AQ_DB:
        ena_aq_doorbell(core, val);
        break;
    case ENAHW_R_AENQ_CAPS:
        core->aenq_caps = val;
        core->aenq_tail = 0;
        break;
    case ENAHW_R_AENQ_BASE_LO:
        core->aenq_base = deposit64(core->aenq_base, 0, 32, val);
        break;
    case ENAHW_R_AENQ_BASE_HI:
        core->aenq_base = deposit64(core->aenq_base, 32, 32, val & 0xffff);
        break;
    case ENAHW_R_AENQ_HEAD_DB:
        core->aenq_head_db = val & 0xffff;
        if (core->link_event_pending) {
            ena_post_link(core);
        }
        break;
    case ENAHW_R_INTR_MASK:
        core->intr_mask = val;
        break;
    case ENAHW_R_DEV_CTL:
        ena_dev_ctl_write(core, val);
        break;
    case ENAHW_R_MMIO_REG_READ:
        ena_readless(core, val);
        break;
    case ENAHW_R_MMIO_RESP_LO:
        core->mmio_resp_addr = deposit64(core->mmio_resp_addr, 0, 32, val);
        break;
    case ENAHW_R_MMIO_RESP_HI:
        core->mmio_resp_addr = deposit64(core->mmio_resp_addr, 32, 32, val);
        break;
    case ENAHW_R_RSS_IND_UPDATE: {
        uint32_t idx = val & 0xffff;

        if (idx >= ENAHW_RSS_TABLE_MAX) {
            ena_guest_error(core, ENA_ERR_MMIO, "RSS index %u", idx);
            break;
        }
        core->rss_table[idx] = val >> 16;
        break;
    }
    default:
        ena_guest_error(core, ENA_ERR_MMIO,
                        "write to read-only/unknown register 0x%" HWADDR_PRIx
                        "", addr);
        break;
    }
}

/* ------------------------------------------------------------------ */
/* BAR2: LLQ device memory                                             */

/*
 * LLQ memory is write-combined on the device's side: a driver has no reason
 * to read it, and what it wrote is not handed back.
 */
void ena_core_llq_read(EnaCore *core, hwaddr addr)
{
    ena_guest_error(core, ENA_ERR_LLQ, "read of LLQ memory at 0x%" HWADDR_PRIx,
                    addr);
}

void ena_core_llq_write(EnaCore *core, hwaddr addr, uint64_t val,
                        unsigned size)
{
    size_t off;
    EnaSq *sq = ena_llq_locate(core, addr, size, &off);

    if (!sq) {
        ena_guest_error(core, ENA_ERR_LLQ,
                        "LLQ write outside a live queue at 0x%" HWADDR_PRIx
                        "", addr);
        return;
    }
    ena_llq_written(core, sq, off, size);
    stn_le_p(sq->llq + off, size, val);
}

/* ------------------------------------------------------------------ */
/* lifecycle                                                           */

/* the knobs' defaults, before the owner's properties may change them */
void ena_core_init(EnaCore *core)
{
    core->reset_latency_us = 100;
    core->max_depth = ENA_DEPTH_LIMIT;
    core->max_tx_depth = ENA_TX_DEPTH_DEFAULT;
    core->max_rx_depth = ENA_DEPTH_LIMIT;
    core->max_mtu = ENA_MAX_MTU;
    core->max_tx_sgl = ENA_PKT_DESCS_MAX / 2;
    core->max_rx_sgl = ENA_RX_DESCS_PER_PKT;
    core->keepalive_ms = 1000;
    core->fault_status_opcode = -1;
    core->fault_status_code = ENAHW_ST_UNKNOWN;
    core->fault_status_feature = -1;
    core->fuzz_kind = -1;
    core->fuzz_gap_max = 64;
    core->fuzz_kinds = BIT(ENA_FUZZ_KINDS) - 1;
    core->max_queues = 8;
    core->llq_enabled = true;
    core->rx_overrun_drop = true;
    core->rx_burst_len = 128;
    core->llq_accel = ENAHW_LLQ_ACCEL_ALL;
    core->llq_max_burst = ENA_LLQ_BURST_BYTES;
    core->intr_delay_res = 1;
    core->tx_delay_us = ENA_TX_DELAY_US;
    core->tx_reorder = true;
    core->aenq_supported = ENAHW_AEG_ALL;
    core->cap_ext_reset_reasons = true;
    core->cm_mask = ENAHW_CM_ALL;
}

/* once the owner has sized the device (qcap, nr_vectors) and made its NIC */
void ena_core_realize(EnaCore *core)
{
    core->react_probe = UINT32_MAX;
    core->cqs = g_new0(EnaCq, ena_nsq(core));
    core->sqs = g_new0(EnaSq, ena_nsq(core));
    ena_io_vec_init(core);
    core->tx_frame = g_malloc(ENA_TX_FRAME_MAX);

    core->admin_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, ena_admin_timer_cb,
                                     core);
    core->reset_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, ena_reset_done_cb,
                                     core);
    core->keepalive_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, ena_keepalive_cb,
                                         core);
    core->burst_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, ena_rx_burst_cb,
                                     core);

    ena_soft_reset(core);
    core->dev_sts = ENAHW_STS_READY;
    ena_keepalive_arm(core);
    core->exit_notifier.notify = ena_guest_errors_at_exit;
    qemu_add_exit_notifier(&core->exit_notifier);
}

void ena_core_unrealize(EnaCore *core)
{
    ena_guest_errors_at_exit(&core->exit_notifier, NULL);
    qemu_remove_exit_notifier(&core->exit_notifier);

    timer_free(core->admin_timer);
    timer_free(core->reset_timer);
    timer_free(core->keepalive_timer);
    timer_free(core->burst_timer);
    core->admin_timer = core->reset_timer = core->keepalive_timer = NULL;
    core->burst_timer = NULL;
    ena_drop_queues(core);
    ena_io_vec_fini(core);
    g_free(core->cqs);
    g_free(core->sqs);
    g_free(core->tx_frame);
    core->cqs = NULL;
    core->sqs = NULL;
}

/* a PCI reset (or FLR): the device is ready again at once */
void ena_core_reset(EnaCore *core)
{
    timer_del(core->reset_timer);
    ena_soft_reset(core);
    core->dev_ctl = 0;
    core->dev_sts = ENAHW_STS_READY |
                    (core->fault_fatal ? ENAHW_STS_FATAL : 0);
    core->io_halted = core->fault_fatal;
    ena_keepalive_arm(core);
}

void ena_core_post_load(EnaCore *core)
{
    /* IO queues are not part of the stream: the driver must reset */
    ena_drop_queues(core);
    core->dev_max_mtu = core->max_mtu;
}
