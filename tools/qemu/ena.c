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
#include "qemu/cutils.h"
#include "net/net.h"
#include "hw/pci/pci.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/msix.h"
#include "hw/pci/pcie.h"
#include "hw/qdev-properties.h"
#include "hw/resettable.h"
#include "system/system.h"
#include "migration/vmstate.h"
#include "qapi/error.h"
#include "qapi/visitor.h"
#include "qom/object.h"
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
        ena_guest_error(s, ENA_ERR_MMIO, "readless read without address");
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
            ena_guest_error(s, ENA_ERR_MMIO, "RSS index %u", idx);
            break;
        }
        s->rss_table[idx] = val >> 16;
        break;
    }
    default:
        ena_guest_error(s, ENA_ERR_MMIO,
                        "write to read-only/unknown register 0x%" HWADDR_PRIx
                        "", addr);
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

/*
 * LLQ memory is write-combined on the device's side: a driver has no reason
 * to read it, and what it wrote is not handed back.
 */
static uint64_t ena_llq_read(void *opaque, hwaddr addr, unsigned size)
{
    EnaState *s = opaque;

    ena_guest_error(s, ENA_ERR_LLQ, "read of LLQ memory at 0x%" HWADDR_PRIx,
                    addr);
    return 0;
}

static void ena_llq_write(void *opaque, hwaddr addr, uint64_t val,
                          unsigned size)
{
    EnaState *s = opaque;
    size_t off;
    EnaSq *sq = ena_llq_locate(s, addr, size, &off);

    if (!sq) {
        ena_guest_error(s, ENA_ERR_LLQ,
                        "LLQ write outside a live queue at 0x%" HWADDR_PRIx
                        "", addr);
        return;
    }
    ena_llq_written(s, sq, off, size);
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
        if (s->sqs[i].live && s->sqs[i].dir == ENAHW_DIR_TX) {
            ena_tx_kick(s, i);
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

static bool ena_get_never_ready(Object *obj, Error **errp)
{
    return ENA(obj)->fault_never_ready;
}

/*
 * fault-never-ready: a reset that completes leaves READY clear.  Clearing
 * it lets a device stuck that way come back by itself (READY, as at the end
 * of a reset), since a driver cannot reset a device that is not ready.
 */
static void ena_set_never_ready(Object *obj, bool val, Error **errp)
{
    EnaState *s = ENA(obj);

    s->fault_never_ready = val;
    if (!val && !(s->dev_sts & (ENAHW_STS_READY | ENAHW_STS_RESET_BUSY))) {
        s->dev_sts |= ENAHW_STS_READY;
        ena_keepalive_arm(s);
    }
}

/* fault-aenq-fatal: writing true posts one FATAL_ERROR AENQ event */
static void ena_set_aenq_fatal(Object *obj, bool val, Error **errp)
{
    if (val && !ena_post_fatal_event(ENA(obj))) {
        error_setg(errp, "fault-aenq-fatal: the driver has not enabled "
                   "the FATAL_ERROR group, or the AENQ is full");
    }
}

/* AENQ group names aenq-inject takes (numbers 0..7 as well) */
static const char *const ena_aenq_group_names[ENAHW_AEG_COUNT] = {
    [ENAHW_AEG_LINK_CHANGE] = "link-change",
    [ENAHW_AEG_FATAL_ERROR] = "fatal-error",
    [ENAHW_AEG_WARNING] = "warning",
    [ENAHW_AEG_NOTIFICATION] = "notification",
    [ENAHW_AEG_KEEP_ALIVE] = "keep-alive",
    [ENAHW_AEG_REFRESH_CAPS] = "refresh-capabilities",
    [ENAHW_AEG_CONF_NOTIFICATIONS] = "conf-notifications",
    [ENAHW_AEG_DEVICE_REQUEST_RESET] = "device-request-reset",
};

/*
 * aenq-inject: writing "GROUP[:SYNDROME[:DATA]]" posts one event of GROUP
 * (a name above or its number) now; NOTIFICATION:2 (UPDATE_HINTS) carries
 * the hint-* values.  Reading gives what became of the last one: posted,
 * disabled, full or not-ready (see ena_aenq_inject()).
 */
static char *ena_get_aenq_inject(Object *obj, Error **errp)
{
    EnaState *s = ENA(obj);

    return g_strdup(s->aenq_last ? s->aenq_last : "");
}

static void ena_set_aenq_inject(Object *obj, const char *str, Error **errp)
{
    EnaState *s = ENA(obj);
    g_auto(GStrv) part = g_strsplit(str, ":", 3);
    uint64_t group = UINT64_MAX, syn = 0, data = 0;
    int i;

    for (i = 0; part[0] && i < ENAHW_AEG_COUNT; i++) {
        if (!strcmp(part[0], ena_aenq_group_names[i])) {
            group = i;
        }
    }
    if (group == UINT64_MAX && part[0] &&
        (qemu_strtou64(part[0], NULL, 0, &group) || group >= 32)) {
        group = UINT64_MAX;
    }
    if (group == UINT64_MAX ||
        (part[0] && part[1] &&
         (qemu_strtou64(part[1], NULL, 0, &syn) || syn > UINT16_MAX)) ||
        (part[0] && part[1] && part[2] &&
         qemu_strtou64(part[2], NULL, 0, &data))) {
        error_setg(errp, "aenq-inject: want GROUP[:SYNDROME[:DATA]], GROUP "
                   "a number below 32 or one of link-change, fatal-error, "
                   "warning, notification, keep-alive, "
                   "refresh-capabilities, conf-notifications, "
                   "device-request-reset");
        return;
    }
    s->aenq_last = ena_aenq_inject(s, group, syn, data);
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
        memset(s->err_count, 0, sizeof(s->err_count));
        memset(s->err_expected, 0, sizeof(s->err_expected));
        s->react_count = 0;
        s->react_db_first = 0;
        s->react_probe = UINT32_MAX;
        s->react_due = false;
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

/*
 * mac-reported: the MAC address DEVICE_ATTRIBUTES reports instead of the
 * NIC's own (empty: the NIC's); read by the driver at probe and reset, so
 * setting it and resetting models a device whose address changed.
 */
static char *ena_get_mac_reported(Object *obj, Error **errp)
{
    EnaState *s = ENA(obj);
    const uint8_t *m = s->mac_reported;

    if (!s->mac_reported_set) {
        return g_strdup("");
    }
    return g_strdup_printf("%02x:%02x:%02x:%02x:%02x:%02x",
                           m[0], m[1], m[2], m[3], m[4], m[5]);
}

static void ena_set_mac_reported(Object *obj, const char *str, Error **errp)
{
    EnaState *s = ENA(obj);
    unsigned int m[6];
    int i;

    if (!*str) {
        s->mac_reported_set = false;
        return;
    }
    if (sscanf(str, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4],
               &m[5]) != 6) {
        error_setg(errp, "mac-reported: not a MAC address: %s", str);
        return;
    }
    for (i = 0; i < 6; i++) {
        if (m[i] > 0xff) {
            error_setg(errp, "mac-reported: not a MAC address: %s", str);
            return;
        }
        s->mac_reported[i] = m[i];
    }
    s->mac_reported_set = true;
}

static char *ena_get_host_info(Object *obj, Error **errp)
{
    return ena_host_info_str(ENA(obj));
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
                               "vec %u%s%s%s%s%s\n", i,
                               sq->dir == ENAHW_DIR_TX ? "tx" : "rx",
                               sq->head, sq->tail, sq->cq, cq->tail,
                               cq->vector,
                               cq->vector < s->nr_vectors &&
                               s->vec_masked[cq->vector] ? " masked" : "",
                               cq->vector < s->nr_vectors &&
                               s->vec_pending[cq->vector] ? " pending" : "",
                               sq->dir != ENAHW_DIR_TX ? "" :
                               sq->placement == ENAHW_PLACE_DEV ? " llq" :
                               " host",
                               sq->no_meta_cache ? " no-meta-cache" : "",
                               sq->burst_entries ? " burst" : "");
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

/*
 * "dma-targets": every guest address range the device would still write to
 * or read from if it ran on (admin queue and completions, AENQ, the MMIO
 * read response, host info, each live queue), and whether PCI bus
 * mastering is on; empty list and "bus-master off" once the driver stopped
 * the device.  For tests of shutdown and teardown.
 */
static char *ena_get_dma_targets(Object *obj, Error **errp)
{
    EnaState *s = ENA(obj);
    PCIDevice *pd = PCI_DEVICE(s);
    GString *str = g_string_new(NULL);
    uint32_t i;

    if (s->aq_base) {
        g_string_append(str, "admin-sq ");
    }
    if (s->acq_base) {
        g_string_append(str, "admin-cq ");
    }
    if (s->aenq_base) {
        g_string_append(str, "aenq ");
    }
    if (s->mmio_resp_addr) {
        g_string_append(str, "mmio-response ");
    }
    if (s->host_info_addr) {
        g_string_append(str, "host-info ");
    }
    for (i = 0; s->sqs && i < ena_nsq(s); i++) {
        if (s->sqs[i].live) {
            g_string_append_printf(str, "sq%u ", i);
        }
    }
    for (i = 0; s->cqs && i < ena_nsq(s); i++) {
        if (s->cqs[i].live) {
            g_string_append_printf(str, "cq%u ", i);
        }
    }
    g_string_append_printf(str, "bus-master %s",
                           pci_get_word(pd->config + PCI_COMMAND) &
                           PCI_COMMAND_MASTER ? "on" : "off");
    return g_string_free(str, false);
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

static char *ena_get_react_probe_samples(Object *obj, Error **errp)
{
    return ena_react_probe_samples(ENA(obj));
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
    } else if (!strcmp(name, "stat-guest-errors")) {
        int k;

        for (val = 0, k = 0; k < ENA_ERR_KINDS; k++) {
            val += s->err_count[k];
        }
    } else {
        val = *(uint64_t *)opaque;
    }
    visit_type_uint64(v, name, &val, errp);
}

/* "N:REASON ..." for the newest resets, N counting as stat-resets does */
static char *ena_get_reset_reasons(Object *obj, Error **errp)
{
    EnaState *s = ENA(obj);
    GString *out = g_string_new("");
    uint64_t n = s->st.resets, i;

    for (i = n > ENA_RESET_HISTORY ? n - ENA_RESET_HISTORY + 1 : 1; i <= n;
         i++) {
        g_string_append_printf(out, "%s%" PRIu64 ":%u", out->len ? " " : "",
                               i, s->reset_reason[i % ENA_RESET_HISTORY]);
    }
    return g_string_free(out, false);
}

static char *ena_get_guest_errors(Object *obj, Error **errp)
{
    return ena_guest_errors_str(ENA(obj), false);
}

static char *ena_get_guest_errors_expected(Object *obj, Error **errp)
{
    return ena_guest_errors_str(ENA(obj), true);
}

static char *ena_get_expect_errors(Object *obj, Error **errp)
{
    return ena_guest_errors_expect_str(ENA(obj));
}

static void ena_set_expect_errors(Object *obj, const char *str, Error **errp)
{
    EnaState *s = ENA(obj);

    ena_guest_errors_parse(str, &s->err_expect, errp);
}

static void ena_add_u32(Object *obj, const char *name, uint32_t *p,
                        ObjectPropertyAccessor *set)
{
    object_property_add(obj, name, "uint32", ena_get_u32,
                        set ? set : ena_set_u32, NULL, p);
}

/* A uint32 property that takes only values in min..max. */
typedef struct EnaU32Range {
    uint32_t *p;
    uint32_t min, max;
} EnaU32Range;

static void ena_get_u32_range(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    EnaU32Range *r = opaque;

    visit_type_uint32(v, name, r->p, errp);
}

static void ena_set_u32_range(Object *obj, Visitor *v, const char *name,
                              void *opaque, Error **errp)
{
    EnaU32Range *r = opaque;
    uint32_t val;

    if (!visit_type_uint32(v, name, &val, errp)) {
        return;
    }
    if (val < r->min || val > r->max) {
        error_setg(errp, "%s must be in %u..%u", name, r->min, r->max);
        return;
    }
    *r->p = val;
}

static void ena_release_u32_range(Object *obj, const char *name,
                                  void *opaque)
{
    g_free(opaque);
}

static void ena_add_u32_range(Object *obj, const char *name, uint32_t *p,
                              uint32_t min, uint32_t max)
{
    EnaU32Range *r = g_new(EnaU32Range, 1);

    r->p = p;
    r->min = min;
    r->max = max;
    object_property_add(obj, name, "uint32", ena_get_u32_range,
                        ena_set_u32_range, ena_release_u32_range, r);
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
    s->max_tx_depth = ENA_TX_DEPTH_DEFAULT;
    s->max_rx_depth = ENA_DEPTH_LIMIT;
    s->max_mtu = ENA_MAX_MTU;
    s->max_tx_sgl = ENA_PKT_DESCS_MAX / 2;
    s->max_rx_sgl = ENA_RX_DESCS_PER_PKT;
    s->keepalive_ms = 1000;
    s->fault_status_opcode = -1;
    s->fault_status_code = ENAHW_ST_UNKNOWN;
    s->fault_status_feature = -1;
    s->fuzz_kind = -1;
    s->fuzz_gap_max = 64;
    s->fuzz_kinds = BIT(ENA_FUZZ_KINDS) - 1;
    s->max_queues = 8;
    s->llq_enabled = true;
    s->rx_overrun_drop = true;
    s->llq_accel = ENAHW_LLQ_ACCEL_ALL;
    s->llq_max_burst = ENA_LLQ_BURST_BYTES;
    s->intr_delay_res = 1;
    s->tx_delay_us = ENA_TX_DELAY_US;
    s->tx_reorder = true;
    s->aenq_supported = ENAHW_AEG_ALL;
    s->cap_ext_reset_reasons = true;

    ena_add_u32(obj, "max-queues", &s->max_queues, ena_set_max_queues);
    object_property_add_bool(obj, "llq", ena_get_llq, ena_set_llq);
    ena_add_flag(obj, "llq-recommend-large", &s->llq_large_rec);
    ena_add_u32_range(obj, "llq-accel", &s->llq_accel, 0,
                      ENAHW_LLQ_ACCEL_ALL);
    ena_add_u32_range(obj, "llq-max-burst", &s->llq_max_burst,
                      ENAHW_LLQ_ENTRY_BYTES, UINT16_MAX);
    ena_add_flag(obj, "rx-overrun-drop", &s->rx_overrun_drop);

    ena_add_u32(obj, "admin-latency-us", &s->admin_latency_us, NULL);
    ena_add_u32(obj, "admin-jitter-us", &s->admin_jitter_us, NULL);
    /* commands the device works on at once (0: every command at once) */
    ena_add_u32(obj, "admin-parallel", &s->admin_parallel, NULL);
    ena_add_u32(obj, "reset-latency-us", &s->reset_latency_us, NULL);
    ena_add_u32_range(obj, "max-depth", &s->max_depth, 1, ENA_DEPTH_LIMIT);
    ena_add_u32_range(obj, "max-tx-depth", &s->max_tx_depth, 1,
                      ENA_DEPTH_LIMIT);
    ena_add_u32_range(obj, "max-rx-depth", &s->max_rx_depth, 1,
                      ENA_DEPTH_LIMIT);
    /* DEVICE_ATTRIBUTES max_mtu and the SET MTU bound, from the next reset */
    ena_add_u32_range(obj, "max-mtu", &s->max_mtu, 68, ENA_MAX_MTU);
    ena_add_u32_range(obj, "max-tx-sgl", &s->max_tx_sgl, 1,
                      ENA_PKT_DESCS_MAX / 2);
    ena_add_u32_range(obj, "max-rx-sgl", &s->max_rx_sgl, 1,
                      ENA_RX_DESCS_PER_PKT);
    ena_add_u32_range(obj, "llq-max-depth", &s->llq_max_depth, 0,
                      ENA_LLQ_DEPTH_LIMIT);
    ena_add_u32(obj, "keepalive-ms", &s->keepalive_ms, ena_set_keepalive);
    /* interrupt moderation's delay unit in us; 0: no moderation feature */
    ena_add_u32(obj, "intr-delay-resolution", &s->intr_delay_res, NULL);
    object_property_add(obj, "fault-status-opcode", "int32", ena_get_i32,
                        ena_set_i32, NULL, &s->fault_status_opcode);
    ena_add_u32(obj, "fault-status-code", &s->fault_status_code, NULL);
    object_property_add(obj, "fault-status-feature", "int32", ena_get_i32,
                        ena_set_i32, NULL, &s->fault_status_feature);
    ena_add_u32(obj, "fault-drop-next", &s->fault_drop_next, NULL);
    ena_add_u32(obj, "fault-delay-next-ms", &s->fault_delay_next_ms, NULL);
    ena_add_u32(obj, "fault-malformed", &s->fault_malformed, NULL);
    object_property_add_bool(obj, "fault-fatal", ena_get_fatal, ena_set_fatal);
    /* a device whose resets do not work: ignored, or never ready again */
    ena_add_flag(obj, "fault-reset-ignore", &s->fault_reset_ignore);
    object_property_add_bool(obj, "fault-never-ready", ena_get_never_ready,
                             ena_set_never_ready);
    object_property_add_bool(obj, "fault-aenq-fatal", ena_get_false,
                             ena_set_aenq_fatal);
    object_property_add_str(obj, "aenq-inject", ena_get_aenq_inject,
                            ena_set_aenq_inject);
    /* AENQ_CONFIG supported_groups, read at the driver's next probe/reset */
    ena_add_u32_range(obj, "aenq-supported-groups", &s->aenq_supported, 0,
                      ENAHW_AEG_ALL);
    ena_add_u32(obj, "fault-admin-irq-lost", &s->fault_admin_irq_lost, NULL);
    ena_add_u32_range(obj, "hint-keepalive-ms", &s->hint_keepalive_ms, 0,
                      UINT16_MAX);
    ena_add_u32_range(obj, "hint-admin-ms", &s->hint_admin_ms, 0,
                      UINT16_MAX);
    ena_add_u32_range(obj, "hint-mmio-read-ms", &s->hint_mmio_read_ms, 0,
                      UINT16_MAX);
    ena_add_u32_range(obj, "hint-netdev-wd-ms", &s->hint_netdev_wd_ms, 0,
                      UINT16_MAX);
    object_property_add_bool(obj, "tx-hold", ena_get_tx_hold, ena_set_tx_hold);
    ena_add_u32_range(obj, "tx-completion-delay-us", &s->tx_delay_us, 0,
                      1000000);
    ena_add_flag(obj, "tx-completion-reorder", &s->tx_reorder);
    ena_add_u32(obj, "fault-rx-bad-reqid", &s->fault_rx_bad_reqid, NULL);
    ena_add_u32(obj, "fault-rx-bad-len", &s->fault_rx_bad_len, NULL);
    ena_add_u32(obj, "fault-tx-bad-reqid", &s->fault_tx_bad_reqid, NULL);
    ena_add_u32(obj, "fault-status-after", &s->fault_status_after, NULL);
    ena_add_u32(obj, "fault-status-times", &s->fault_status_times, NULL);
    ena_add_u32(obj, "fault-rx-runt", &s->fault_rx_runt, NULL);
    ena_add_u32(obj, "fault-bad-db", &s->fault_bad_db, NULL);
    ena_add_u32(obj, "fault-cq-no-unmask", &s->fault_cq_no_unmask, NULL);
    ena_add_u32(obj, "fault-tx-swallow", &s->fault_tx_swallow, NULL);
    ena_add_u32(obj, "fault-io-irq-drop", &s->fault_io_irq_drop, NULL);
    ena_add_u32(obj, "fault-cq-depth", &s->fault_cq_depth, NULL);
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
    ena_add_flag(obj, "ext-reset-reasons", &s->cap_ext_reset_reasons);
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
    ena_add_stat(obj, "stat-admin-max-inflight", &s->st.admin_max_inflight);
    ena_add_stat(obj, "stat-io-doorbells", &s->st.io_doorbells);
    ena_add_stat(obj, "stat-queues-created", &s->st.queues_created);
    ena_add_stat(obj, "stat-queues-destroyed", &s->st.queues_destroyed);
    ena_add_stat(obj, "stat-ring-bytes", NULL);
    ena_add_stat(obj, "stat-resets", &s->st.resets);
    ena_add_stat(obj, "stat-tx-packets", &s->st.tx_packets);
    ena_add_stat(obj, "stat-tx-over-sgl", &s->st.tx_over_sgl);
    ena_add_stat(obj, "stat-tx-no-meta", &s->st.tx_no_meta);
    ena_add_stat(obj, "stat-llq-burst-over", &s->st.llq_burst_over);
    ena_add_stat(obj, "stat-llq-overwrite", &s->st.llq_overwrite);
    ena_add_stat(obj, "stat-tx-bad-offload", &s->st.tx_bad_offload);
    ena_add_stat(obj, "stat-tx-no-first", &s->st.tx_no_first);
    ena_add_stat(obj, "stat-tx-over-mtu", &s->st.tx_over_mtu);
    ena_add_stat(obj, "stat-tx-deferred", &s->st.tx_deferred);
    ena_add_stat(obj, "stat-tx-reordered", &s->st.tx_reordered);
    ena_add_stat(obj, "stat-rx-over-mtu", &s->st.rx_over_mtu);
    ena_add_stat(obj, "stat-rx-desc-rewritten", &s->st.rx_desc_rewritten);
    ena_add_stat(obj, "stat-rx-packets", &s->st.rx_packets);
    ena_add_stat(obj, "stat-rx-dropped", &s->st.rx_dropped);
    ena_add_stat(obj, "stat-rx-overruns", &s->st.rx_overruns);
    ena_add_stat(obj, "stat-rx-overruns-filling",
                 &s->st.rx_overruns_filling);
    ena_add_stat(obj, "stat-aenq-dropped", &s->st.aenq_dropped);
    ena_add_stat(obj, "stat-aenq-disabled", &s->st.aenq_disabled);
    ena_add_stat(obj, "stat-aenq-injected", &s->st.aenq_injected);
    ena_add_stat(obj, "stat-admin-irqs-lost", &s->st.admin_irqs_lost);
    ena_add_stat(obj, "stat-io-irqs", &s->st.io_irqs);
    ena_add_stat(obj, "stat-io-irqs-held", &s->st.io_irqs_held);
    ena_add_stat(obj, "stat-io-unmasks", &s->st.io_unmasks);
    ena_add_stat(obj, "stat-io-unmask-rx-delay", &s->st.io_unmask_rx_delay);
    object_property_add_str(obj, "reset-reasons", ena_get_reset_reasons,
                            NULL);
    ena_add_stat(obj, "stat-guest-errors", NULL);
    object_property_add_str(obj, "guest-errors", ena_get_guest_errors, NULL);
    object_property_add_str(obj, "guest-errors-expected",
                            ena_get_guest_errors_expected, NULL);
    object_property_add_str(obj, "expect-guest-errors", ena_get_expect_errors,
                            ena_set_expect_errors);
    object_property_add_str(obj, "queues", ena_get_queues, NULL);
    object_property_add_str(obj, "dma-targets", ena_get_dma_targets, NULL);
    object_property_add_str(obj, "host-info", ena_get_host_info, NULL);
    object_property_add_str(obj, "mac-reported", ena_get_mac_reported,
                            ena_set_mac_reported);
    ena_add_stat(obj, "stat-react-count", NULL);
    ena_add_stat(obj, "stat-react-median-ns", NULL);
    ena_add_stat(obj, "stat-react-p90-ns", NULL);
    ena_add_stat(obj, "stat-react-max-ns", NULL);
    ena_add_stat(obj, "stat-react-probe-median-ns", NULL);
    ena_add_stat(obj, "stat-react-probe-total-ns", NULL);
    ena_add_stat(obj, "stat-react-probe-count", NULL);
    object_property_add_str(obj, "stat-react-probe-samples",
                            ena_get_react_probe_samples, NULL);
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
    ena_io_vec_init(s);
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
    s->exit_notifier.notify = ena_guest_errors_at_exit;
    qemu_add_exit_notifier(&s->exit_notifier);
}

static void ena_exit(PCIDevice *pd)
{
    EnaState *s = ENA(pd);

    ena_guest_errors_at_exit(&s->exit_notifier, NULL);
    qemu_remove_exit_notifier(&s->exit_notifier);

    timer_free(s->admin_timer);
    timer_free(s->reset_timer);
    timer_free(s->keepalive_timer);
    s->admin_timer = s->reset_timer = s->keepalive_timer = NULL;
    ena_drop_queues(s);
    ena_io_vec_fini(s);
    qemu_del_nic(s->nic);
    msix_unuse_all_vectors(pd);
    msix_uninit_exclusive_bar(pd);
    pcie_cap_exit(pd);
    g_free(s->cqs);
    g_free(s->sqs);
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
    s->dev_max_mtu = s->max_mtu;
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
