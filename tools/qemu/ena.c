/*
 * Amazon Elastic Network Adapter (ENA) device model: the QEMU device
 *
 * TYPE_ENA, a PCIe network function speaking the ENA host interface: its
 * PCI configuration (with FLR), BAR0 (registers), BAR2 (LLQ device memory,
 * with llq=on), MSI-X in BAR4, the NIC backend, VMState, realize, exit and
 * reset.  The device itself is an EnaCore (ena_core.h): the BARs'
 * MemoryRegionOps, the NIC's callbacks and the resets call into it.
 *
 * Knobs (latencies, limits, fault injection) and counters are QOM
 * properties pointing at the core's fields, so tests can read and change
 * them at run time with qom-get/qom-set.
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

#include "ena_core.h"

#define TYPE_ENA "ena"
OBJECT_DECLARE_SIMPLE_TYPE(EnaState, ENA)

struct EnaState {
    PCIDevice parent_obj;

    NICState *nic;
    NICConf conf;
    MemoryRegion mmio;      /* BAR0 */
    MemoryRegion llq_mr;    /* BAR2, with llq=on at realize */
    uint16_t device_id;
    EnaCore core;
};

/* ------------------------------------------------------------------ */
/* BAR0 and BAR2                                                       */

static uint64_t ena_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    EnaState *s = opaque;

    return ena_core_read(&s->core, addr);
}

static void ena_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                           unsigned size)
{
    EnaState *s = opaque;

    ena_core_write(&s->core, addr, val);
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

static uint64_t ena_llq_read(void *opaque, hwaddr addr, unsigned size)
{
    EnaState *s = opaque;

    ena_core_llq_read(&s->core, addr);
    return 0;
}

static void ena_llq_write(void *opaque, hwaddr addr, uint64_t val,
                          unsigned size)
{
    EnaState *s = opaque;

    ena_core_llq_write(&s->core, addr, val, size);
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
    EnaCore *core = &ENA(obj)->core;
    uint32_t val;

    if (!visit_type_uint32(v, name, &val, errp)) {
        return;
    }
    core->keepalive_ms = val;
    if (core->keepalive_timer) {
        ena_keepalive_arm(core);
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
    EnaCore *core = &ENA(obj)->core;
    uint32_t val, lim;

    if (!visit_type_uint32(v, name, &val, errp)) {
        return;
    }
    lim = DEVICE(obj)->realized ? core->qcap : ENA_MAX_QUEUES_LIMIT;
    if (val < 1 || val > lim) {
        error_setg(errp, "max-queues must be in 1..%u", lim);
        return;
    }
    core->max_queues = val;
}

static bool ena_get_llq(Object *obj, Error **errp)
{
    return ENA(obj)->core.llq_enabled;
}

static void ena_set_llq(Object *obj, bool val, Error **errp)
{
    EnaCore *core = &ENA(obj)->core;

    if (val && DEVICE(obj)->realized && !core->has_llq_bar) {
        error_setg(errp, "llq: the device was created without an LLQ BAR");
        return;
    }
    core->llq_enabled = val;
}

static bool ena_get_tx_hold(Object *obj, Error **errp)
{
    return ENA(obj)->core.tx_hold;
}

/* tx-hold: a device that stops sending for a while, then catches up */
static void ena_set_tx_hold(Object *obj, bool val, Error **errp)
{
    EnaCore *core = &ENA(obj)->core;

    core->tx_hold = val;
    if (!val) {
        ena_tx_kick_all(core);
    }
}

static bool ena_get_fatal(Object *obj, Error **errp)
{
    return ENA(obj)->core.fault_fatal;
}

static void ena_set_fatal(Object *obj, bool val, Error **errp)
{
    EnaCore *core = &ENA(obj)->core;

    core->fault_fatal = val;
    if (val) {
        core->dev_sts |= ENAHW_STS_FATAL;
        ena_halt_io(core);
    } else {
        /* the device healed: IO runs again, the TX it left pending too */
        core->dev_sts &= ~ENAHW_STS_FATAL;
        core->io_halted = false;
        ena_tx_kick_all(core);
    }
}

static bool ena_get_never_ready(Object *obj, Error **errp)
{
    return ENA(obj)->core.fault_never_ready;
}

/*
 * fault-never-ready: a reset that completes leaves READY clear.  Clearing
 * it lets a device stuck that way come back by itself (READY, as at the end
 * of a reset), since a driver cannot reset a device that is not ready.
 */
static void ena_set_never_ready(Object *obj, bool val, Error **errp)
{
    EnaCore *core = &ENA(obj)->core;

    core->fault_never_ready = val;
    if (!val && !(core->dev_sts & (ENAHW_STS_READY | ENAHW_STS_RESET_BUSY))) {
        core->dev_sts |= ENAHW_STS_READY;
        ena_keepalive_arm(core);
    }
}

/* fault-aenq-fatal: writing true posts one FATAL_ERROR AENQ event */
static void ena_set_aenq_fatal(Object *obj, bool val, Error **errp)
{
    if (val && !ena_post_fatal_event(&ENA(obj)->core)) {
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
    EnaCore *core = &ENA(obj)->core;

    return g_strdup(core->aenq_last ? core->aenq_last : "");
}

static void ena_set_aenq_inject(Object *obj, const char *str, Error **errp)
{
    EnaCore *core = &ENA(obj)->core;
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
    core->aenq_last = ena_aenq_inject(core, group, syn, data);
}

static bool ena_get_false(Object *obj, Error **errp)
{
    return false;
}

static void ena_stat_reset(Object *obj, bool val, Error **errp)
{
    if (val) {
        ena_stats_reset(&ENA(obj)->core);
    }
}

static char *ena_get_by_opcode(Object *obj, Error **errp)
{
    return ena_stats_by_opcode(&ENA(obj)->core);
}

/*
 * mac-reported: the MAC address DEVICE_ATTRIBUTES reports instead of the
 * NIC's own (empty: the NIC's); read by the driver at probe and reset, so
 * setting it and resetting models a device whose address changed.
 */
static char *ena_get_mac_reported(Object *obj, Error **errp)
{
    EnaCore *core = &ENA(obj)->core;
    const uint8_t *m = core->mac_reported;

    if (!core->mac_reported_set) {
        return g_strdup("");
    }
    return g_strdup_printf("%02x:%02x:%02x:%02x:%02x:%02x",
                           m[0], m[1], m[2], m[3], m[4], m[5]);
}

static void ena_set_mac_reported(Object *obj, const char *str, Error **errp)
{
    EnaCore *core = &ENA(obj)->core;
    unsigned int m[6];
    int i;

    if (!*str) {
        core->mac_reported_set = false;
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
        core->mac_reported[i] = m[i];
    }
    core->mac_reported_set = true;
}

static char *ena_get_host_info(Object *obj, Error **errp)
{
    return ena_host_info_str(&ENA(obj)->core);
}

/*
 * "rx-fill": one line per live RX queue, "sq N posted P most M depth D":
 * the buffers the driver has posted and the device not yet used, now and
 * at most since the queue was created (the bench reads whether every ring
 * was full once: M = D - 1).
 */
static char *ena_get_rx_fill(Object *obj, Error **errp)
{
    EnaCore *core = &ENA(obj)->core;
    GString *str = g_string_new(NULL);
    uint32_t i;

    for (i = 0; core->sqs && i < ena_nsq(core); i++) {
        EnaSq *sq = &core->sqs[i];

        if (sq->live && sq->dir == ENAHW_DIR_RX) {
            g_string_append_printf(str, "sq %u posted %u most %u depth %u\n",
                                   i, sq->tail - sq->head,
                                   sq->rx_most_posted, sq->depth);
        }
    }
    return g_string_free(str, false);
}

/* "queues": one line per live SQ and the RSS table, for a test's report */
static char *ena_get_queues(Object *obj, Error **errp)
{
    EnaCore *core = &ENA(obj)->core;
    GString *str = g_string_new(NULL);
    uint32_t i, n;

    for (i = 0; core->sqs && i < ena_nsq(core); i++) {
        EnaSq *sq = &core->sqs[i];
        EnaCq *cq;

        if (!sq->live) {
            continue;
        }
        cq = &core->cqs[sq->cq];
        g_string_append_printf(str, "sq %u %s head %u tail %u cq %u tail %u "
                               "vec %u%s%s%s%s%s\n", i,
                               sq->dir == ENAHW_DIR_TX ? "tx" : "rx",
                               sq->head, sq->tail, sq->cq, cq->tail,
                               cq->vector,
                               cq->vector < core->nr_vectors &&
                               core->vec_masked[cq->vector] ? " masked" : "",
                               cq->vector < core->nr_vectors &&
                               core->vec_pending[cq->vector] ? " pending" : "",
                               sq->dir != ENAHW_DIR_TX ? "" :
                               sq->placement == ENAHW_PLACE_DEV ? " llq" :
                               " host",
                               sq->no_meta_cache ? " no-meta-cache" : "",
                               sq->burst_entries ? " burst" : "");
    }
    if (core->rss_table_set) {
        n = 1u << core->rss_table_log;
        g_string_append(str, "rss");
        for (i = 0; i < n; i++) {
            g_string_append_printf(str, " %u", core->rss_table[i]);
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
    EnaCore *core = &ENA(obj)->core;
    PCIDevice *pd = PCI_DEVICE(obj);
    GString *str = g_string_new(NULL);
    uint32_t i;

    if (core->aq_base) {
        g_string_append(str, "admin-sq ");
    }
    if (core->acq_base) {
        g_string_append(str, "admin-cq ");
    }
    if (core->aenq_base) {
        g_string_append(str, "aenq ");
    }
    if (core->mmio_resp_addr) {
        g_string_append(str, "mmio-response ");
    }
    if (core->host_info_addr) {
        g_string_append(str, "host-info ");
    }
    for (i = 0; core->sqs && i < ena_nsq(core); i++) {
        if (core->sqs[i].live) {
            g_string_append_printf(str, "sq%u ", i);
        }
    }
    for (i = 0; core->cqs && i < ena_nsq(core); i++) {
        if (core->cqs[i].live) {
            g_string_append_printf(str, "cq%u ", i);
        }
    }
    g_string_append_printf(str, "bus-master %s",
                           pci_get_word(pd->config + PCI_COMMAND) &
                           PCI_COMMAND_MASTER ? "on" : "off");
    return g_string_free(str, false);
}

static char *ena_get_react_probe_samples(Object *obj, Error **errp)
{
    return ena_react_probe_samples(&ENA(obj)->core);
}

static void ena_get_stat(Object *obj, Visitor *v, const char *name,
                         void *opaque, Error **errp)
{
    uint64_t val;

    if (!ena_stats_derived(&ENA(obj)->core, name, &val)) {
        val = *(uint64_t *)opaque;
    }
    visit_type_uint64(v, name, &val, errp);
}

static char *ena_get_reset_reasons(Object *obj, Error **errp)
{
    return ena_stats_reset_reasons(&ENA(obj)->core);
}

static char *ena_get_guest_errors(Object *obj, Error **errp)
{
    return ena_guest_errors_str(&ENA(obj)->core, false);
}

static char *ena_get_guest_errors_expected(Object *obj, Error **errp)
{
    return ena_guest_errors_str(&ENA(obj)->core, true);
}

static char *ena_get_expect_errors(Object *obj, Error **errp)
{
    return ena_guest_errors_expect_str(&ENA(obj)->core);
}

static void ena_set_expect_errors(Object *obj, const char *str, Error **errp)
{
    EnaCore *core = &ENA(obj)->core;

    ena_guest_errors_parse(str, &core->err_expect, errp);
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
    EnaCore *core = &ENA(obj)->core;
    uint64_t val;

    if (!visit_type_uint64(v, name, &val, errp)) {
        return;
    }
    core->fuzz_seed = val;
    core->fuzz_rng = val;
    ena_fuzz_arm(core);
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

/* queues, LLQ, limits and the datapath's timing */
static void ena_add_queue_props(Object *obj, EnaCore *core)
{
    ena_add_u32(obj, "max-queues", &core->max_queues, ena_set_max_queues);
    object_property_add_bool(obj, "llq", ena_get_llq, ena_set_llq);
    ena_add_flag(obj, "llq-recommend-large", &core->llq_large_rec);
    ena_add_flag(obj, "link-autoneg", &core->link_autoneg);
    ena_add_u32_range(obj, "llq-accel", &core->llq_accel, 0,
                      ENAHW_LLQ_ACCEL_ALL);
    ena_add_u32_range(obj, "llq-max-burst", &core->llq_max_burst,
                      ENAHW_LLQ_ENTRY_BYTES, UINT16_MAX);
    ena_add_flag(obj, "rx-overrun-drop", &core->rx_overrun_drop);
    ena_add_u32_range(obj, "max-depth", &core->max_depth, 1, ENA_DEPTH_LIMIT);
    ena_add_u32_range(obj, "max-tx-depth", &core->max_tx_depth, 1,
                      ENA_DEPTH_LIMIT);
    ena_add_u32_range(obj, "max-rx-depth", &core->max_rx_depth, 1,
                      ENA_DEPTH_LIMIT);
    /* DEVICE_ATTRIBUTES max_mtu and the SET MTU bound, from the next reset */
    ena_add_u32_range(obj, "max-mtu", &core->max_mtu, 68, ENA_MAX_MTU);
    ena_add_u32_range(obj, "max-tx-sgl", &core->max_tx_sgl, 1,
                      ENA_PKT_DESCS_MAX / 2);
    ena_add_u32_range(obj, "max-rx-sgl", &core->max_rx_sgl, 1,
                      ENA_RX_DESCS_PER_PKT);
    ena_add_u32_range(obj, "llq-max-depth", &core->llq_max_depth, 0,
                      ENA_LLQ_DEPTH_LIMIT);
    /* interrupt moderation's delay unit in us; 0: no moderation feature */
    ena_add_u32(obj, "intr-delay-resolution", &core->intr_delay_res, NULL);
    object_property_add_bool(obj, "tx-hold", ena_get_tx_hold, ena_set_tx_hold);
    ena_add_u32_range(obj, "tx-completion-delay-us", &core->tx_delay_us, 0,
                      1000000);
    ena_add_flag(obj, "tx-completion-reorder", &core->tx_reorder);
}

/* the admin side: latencies, keep-alive, AENQ, HW_HINTS */
static void ena_add_admin_props(Object *obj, EnaCore *core)
{
    ena_add_u32(obj, "admin-latency-us", &core->admin_latency_us, NULL);
    ena_add_u32(obj, "admin-jitter-us", &core->admin_jitter_us, NULL);
    ena_add_u32_range(obj, "rx-burst", &core->rx_burst, 0, 65536);
    ena_add_u32_range(obj, "rx-burst-len", &core->rx_burst_len, 60, 1514);
    ena_add_u32(obj, "rx-burst-delay-us", &core->rx_burst_delay_us, NULL);
    /* commands the device works on at once (0: every command at once) */
    ena_add_u32(obj, "admin-parallel", &core->admin_parallel, NULL);
    ena_add_u32(obj, "reset-latency-us", &core->reset_latency_us, NULL);
    ena_add_u32(obj, "keepalive-ms", &core->keepalive_ms, ena_set_keepalive);
    object_property_add_str(obj, "aenq-inject", ena_get_aenq_inject,
                            ena_set_aenq_inject);
    /* AENQ_CONFIG supported_groups, read at the driver's next probe/reset */
    ena_add_u32_range(obj, "aenq-supported-groups", &core->aenq_supported, 0,
                      ENAHW_AEG_ALL);
    ena_add_u32_range(obj, "hint-keepalive-ms", &core->hint_keepalive_ms, 0,
                      UINT16_MAX);
    ena_add_u32_range(obj, "hint-admin-ms", &core->hint_admin_ms, 0,
                      UINT16_MAX);
    ena_add_u32_range(obj, "hint-mmio-read-ms", &core->hint_mmio_read_ms, 0,
                      UINT16_MAX);
    ena_add_u32_range(obj, "hint-netdev-wd-ms", &core->hint_netdev_wd_ms, 0,
                      UINT16_MAX);
    ena_add_u32(obj, "hint-missing-tx-ms", &core->hint_missing_tx_ms, NULL);
    ena_add_u32(obj, "hint-missed-tx", &core->hint_missed_tx, NULL);
}

/* fault injection and device fuzzing */
static void ena_add_fault_props(Object *obj, EnaCore *core)
{
    int i;

    for (i = 0; i < ENA_FAULT_POINTS; i++) {
        const EnaFaultPoint *p = &ena_fault_points[i];

        ena_add_u32(obj, p->prop, &core->fault[i], NULL);
        object_property_set_description(obj, p->prop, p->what);
    }
    object_property_add(obj, "fault-status-opcode", "int32", ena_get_i32,
                        ena_set_i32, NULL, &core->fault_status_opcode);
    object_property_add(obj, "fault-status-feature", "int32", ena_get_i32,
                        ena_set_i32, NULL, &core->fault_status_feature);
    ena_add_u32(obj, "fault-status-code", &core->fault_status_code, NULL);
    ena_add_u32(obj, "fault-status-after", &core->fault_status_after, NULL);
    ena_add_u32(obj, "fault-status-times", &core->fault_status_times, NULL);
    object_property_add_bool(obj, "fault-fatal", ena_get_fatal, ena_set_fatal);
    /* a device whose resets do not work: ignored, or never ready again */
    ena_add_flag(obj, "fault-reset-ignore", &core->fault_reset_ignore);
    object_property_add_bool(obj, "fault-never-ready", ena_get_never_ready,
                             ena_set_never_ready);
    object_property_add_bool(obj, "fault-aenq-fatal", ena_get_false,
                             ena_set_aenq_fatal);
    object_property_add(obj, "fuzz-seed", "uint64", ena_get_u64,
                        ena_set_fuzz_seed, NULL, &core->fuzz_seed);
    ena_add_u32(obj, "fuzz-gap-max", &core->fuzz_gap_max, NULL);
    ena_add_u32(obj, "fuzz-kinds", &core->fuzz_kinds, NULL);
}

/* DEVICE_ATTRIBUTES capabilities and what GET_STATS reports */
static void ena_add_metric_props(Object *obj, EnaCore *core)
{
    ena_add_flag(obj, "eni-stats", &core->cap_eni_stats);
    ena_add_flag(obj, "ena-express", &core->cap_ena_srd);
    ena_add_flag(obj, "customer-metrics", &core->cap_customer_metrics);
    ena_add_flag(obj, "ext-reset-reasons", &core->cap_ext_reset_reasons);
    ena_add_u32(obj, "customer-metrics-mask", &core->cm_mask, ena_set_cm_mask);
    ena_add_value(obj, "eni-bw-in-exceeded",
                  &core->eni_val[ENAHW_CM_BW_IN_EXCEEDED]);
    ena_add_value(obj, "eni-bw-out-exceeded",
                  &core->eni_val[ENAHW_CM_BW_OUT_EXCEEDED]);
    ena_add_value(obj, "eni-pps-exceeded",
                  &core->eni_val[ENAHW_CM_PPS_EXCEEDED]);
    ena_add_value(obj, "eni-conntrack-exceeded",
                  &core->eni_val[ENAHW_CM_CONNTRACK_EXCEEDED]);
    ena_add_value(obj, "eni-linklocal-exceeded",
                  &core->eni_val[ENAHW_CM_LINKLOCAL_EXCEEDED]);
    ena_add_value(obj, "eni-conntrack-available",
                  &core->eni_val[ENAHW_CM_CONNTRACK_AVAILABLE]);
    ena_add_value(obj, "srd-mode", &core->srd_val[0]);
    ena_add_value(obj, "srd-tx-pkts", &core->srd_val[1]);
    ena_add_value(obj, "srd-eligible-tx-pkts", &core->srd_val[2]);
    ena_add_value(obj, "srd-rx-pkts", &core->srd_val[3]);
    ena_add_value(obj, "srd-resource-utilization", &core->srd_val[4]);
}

/* counters and samples (read-only; stat-reset clears them) */
static void ena_add_stat_props(Object *obj, EnaCore *core)
{
    ena_add_stat(obj, "stat-fuzz-rx-reqid",
                 &core->fuzz_count[ENA_FUZZ_RX_REQID]);
    ena_add_stat(obj, "stat-fuzz-rx-len", &core->fuzz_count[ENA_FUZZ_RX_LEN]);
    ena_add_stat(obj, "stat-fuzz-tx-reqid",
                 &core->fuzz_count[ENA_FUZZ_TX_REQID]);
    ena_add_stat(obj, "stat-fuzz-admin-id",
                 &core->fuzz_count[ENA_FUZZ_ADMIN_ID]);
    ena_add_stat(obj, "stat-fuzz-irq-drop",
                 &core->fuzz_count[ENA_FUZZ_IRQ_DROP]);
    ena_add_stat(obj, "stat-fuzz-admin-size",
                 &core->fuzz_count[ENA_FUZZ_ADMIN_SIZE]);
    ena_add_stat(obj, "stat-fuzz-irq-dup", &core->fuzz_irq_dup);
    ena_add_stat(obj, "stat-fuzz-total", NULL);
    ena_add_stat(obj, "stat-admin-cmds", &core->st.admin_cmds);
    object_property_add_str(obj, "stat-admin-by-opcode", ena_get_by_opcode,
                            NULL);
    ena_add_stat(obj, "stat-admin-doorbells", &core->st.admin_doorbells);
    ena_add_stat(obj, "stat-admin-max-inflight", &core->st.admin_max_inflight);
    ena_add_stat(obj, "stat-io-doorbells", &core->st.io_doorbells);
    ena_add_stat(obj, "stat-queues-created", &core->st.queues_created);
    ena_add_stat(obj, "stat-queues-destroyed", &core->st.queues_destroyed);
    ena_add_stat(obj, "stat-ring-bytes", NULL);
    ena_add_stat(obj, "stat-resets", &core->st.resets);
    ena_add_stat(obj, "stat-tx-packets", &core->st.tx_packets);
    ena_add_stat(obj, "stat-tx-over-sgl", &core->st.tx_over_sgl);
    ena_add_stat(obj, "stat-tx-no-meta", &core->st.tx_no_meta);
    ena_add_stat(obj, "stat-llq-burst-over", &core->st.llq_burst_over);
    ena_add_stat(obj, "stat-llq-overwrite", &core->st.llq_overwrite);
    ena_add_stat(obj, "stat-tx-bad-offload", &core->st.tx_bad_offload);
    ena_add_stat(obj, "stat-tx-no-first", &core->st.tx_no_first);
    ena_add_stat(obj, "stat-tx-over-mtu", &core->st.tx_over_mtu);
    ena_add_stat(obj, "stat-tx-deferred", &core->st.tx_deferred);
    ena_add_stat(obj, "stat-tx-reordered", &core->st.tx_reordered);
    ena_add_stat(obj, "stat-rx-over-mtu", &core->st.rx_over_mtu);
    ena_add_stat(obj, "stat-rx-desc-rewritten", &core->st.rx_desc_rewritten);
    ena_add_stat(obj, "stat-rx-packets", &core->st.rx_packets);
    ena_add_stat(obj, "stat-rx-dropped", &core->st.rx_dropped);
    ena_add_stat(obj, "stat-rx-overruns", &core->st.rx_overruns);
    ena_add_stat(obj, "stat-rx-overruns-filling",
                 &core->st.rx_overruns_filling);
    ena_add_stat(obj, "stat-rx-burst-sent", &core->st.rx_burst_sent);
    ena_add_stat(obj, "stat-rx-burst-dropped", &core->st.rx_burst_dropped);
    ena_add_stat(obj, "stat-aenq-dropped", &core->st.aenq_dropped);
    ena_add_stat(obj, "stat-aenq-disabled", &core->st.aenq_disabled);
    ena_add_stat(obj, "stat-aenq-injected", &core->st.aenq_injected);
    ena_add_stat(obj, "stat-io-halts", &core->st.io_halts);
    ena_add_stat(obj, "stat-rx-halted", &core->st.rx_halted);
    ena_add_stat(obj, "stat-admin-irqs-lost", &core->st.admin_irqs_lost);
    ena_add_stat(obj, "stat-io-irqs", &core->st.io_irqs);
    ena_add_stat(obj, "stat-io-irqs-held", &core->st.io_irqs_held);
    ena_add_stat(obj, "stat-io-unmasks", &core->st.io_unmasks);
    ena_add_stat(obj, "stat-io-unmask-rx-delay", &core->st.io_unmask_rx_delay);
    object_property_add_str(obj, "reset-reasons", ena_get_reset_reasons,
                            NULL);
    ena_add_stat(obj, "stat-guest-errors", NULL);
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

/* state reports for tests, and what the device is told to expect */
static void ena_add_report_props(Object *obj, EnaCore *core)
{
    object_property_add_str(obj, "guest-errors", ena_get_guest_errors, NULL);
    object_property_add_str(obj, "guest-errors-expected",
                            ena_get_guest_errors_expected, NULL);
    object_property_add_str(obj, "expect-guest-errors", ena_get_expect_errors,
                            ena_set_expect_errors);
    object_property_add_str(obj, "queues", ena_get_queues, NULL);
    object_property_add_str(obj, "rx-fill", ena_get_rx_fill, NULL);
    object_property_add_str(obj, "dma-targets", ena_get_dma_targets, NULL);
    object_property_add_str(obj, "host-info", ena_get_host_info, NULL);
    object_property_add_str(obj, "mac-reported", ena_get_mac_reported,
                            ena_set_mac_reported);
}

static void ena_instance_init(Object *obj)
{
    EnaCore *core = &ENA(obj)->core;

    ena_core_init(core);
    ena_add_queue_props(obj, core);
    ena_add_admin_props(obj, core);
    ena_add_fault_props(obj, core);
    ena_add_metric_props(obj, core);
    ena_add_stat_props(obj, core);
    ena_add_report_props(obj, core);
}

/* ------------------------------------------------------------------ */
/* device lifecycle                                                    */

static bool ena_can_receive_nc(NetClientState *nc)
{
    EnaState *s = qemu_get_nic_opaque(nc);

    return ena_can_receive(&s->core);
}

static ssize_t ena_receive_nc(NetClientState *nc, const uint8_t *buf,
                              size_t size)
{
    EnaState *s = qemu_get_nic_opaque(nc);

    return ena_receive(&s->core, buf, size);
}

static void ena_set_link_nc(NetClientState *nc)
{
    EnaState *s = qemu_get_nic_opaque(nc);

    ena_set_link(&s->core);
}

static NetClientInfo ena_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .can_receive = ena_can_receive_nc,
    .receive = ena_receive_nc,
    .link_status_changed = ena_set_link_nc,
};

/* BAR0, and BAR2 sized for the deepest LLQ of every TX queue */
static void ena_init_bars(EnaState *s)
{
    PCIDevice *pd = PCI_DEVICE(s);
    EnaCore *core = &s->core;
    uint64_t need;

    memory_region_init_io(&s->mmio, OBJECT(s), &ena_mmio_ops, s, "ena-regs",
                          ENAHW_REGS_SIZE);
    pci_register_bar(pd, ENAHW_BAR_REGS, PCI_BASE_ADDRESS_SPACE_MEMORY,
                     &s->mmio);

    core->llq_slot_depth = ENA_LLQ_DEPTH_LIMIT;
    need = (uint64_t)core->qcap * core->llq_slot_depth * ENAHW_LLQ_ENTRY_BYTES;
    core->llq_bar_size = MAX(pow2ceil(need), 1 * MiB);
    if (core->has_llq_bar) {
        memory_region_init_io(&s->llq_mr, OBJECT(s), &ena_llq_ops, s,
                              "ena-llq", core->llq_bar_size);
        pci_register_bar(pd, ENAHW_BAR_LLQ,
                         PCI_BASE_ADDRESS_SPACE_MEMORY |
                         PCI_BASE_ADDRESS_MEM_PREFETCH |
                         PCI_BASE_ADDRESS_MEM_TYPE_64, &s->llq_mr);
    }
}

/* a PCIe endpoint with function level reset, like the real thing */
static bool ena_init_pcie(EnaState *s, Error **errp)
{
    PCIDevice *pd = PCI_DEVICE(s);
    uint32_t i;

    if (pcie_endpoint_cap_init(pd, 0xa0) < 0) {
        error_setg(errp, "ena: cannot add the PCIe capability");
        return false;
    }
    s->core.nr_vectors = 1 + s->core.qcap;
    if (msix_init_exclusive_bar(pd, s->core.nr_vectors, ENAHW_BAR_MSIX,
                                errp)) {
        pcie_cap_exit(pd);
        return false;
    }
    pcie_cap_flr_init(pd);
    for (i = 0; i < s->core.nr_vectors; i++) {
        msix_vector_use(pd, i);
    }
    return true;
}

static void ena_realize(PCIDevice *pd, Error **errp)
{
    EnaState *s = ENA(pd);
    EnaCore *core = &s->core;
    uint8_t *cfg = pd->config;

    if (core->max_queues < 1 || core->max_queues > ENA_MAX_QUEUES_LIMIT) {
        error_setg(errp, "max-queues must be in 1..%u", ENA_MAX_QUEUES_LIMIT);
        return;
    }
    core->qcap = core->max_queues;
    core->has_llq_bar = core->llq_enabled;
    pci_config_set_device_id(cfg, s->device_id);
    pci_set_word(cfg + PCI_SUBSYSTEM_VENDOR_ID, ENAHW_VENDOR_AMAZON);
    pci_set_word(cfg + PCI_SUBSYSTEM_ID, s->device_id);

    ena_init_bars(s);
    if (!ena_init_pcie(s, errp)) {
        return;
    }

    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    s->nic = qemu_new_nic(&ena_net_info, &s->conf,
                          object_get_typename(OBJECT(s)),
                          DEVICE(s)->id, &DEVICE(s)->mem_reentrancy_guard, s);
    qemu_format_nic_info_str(qemu_get_queue(s->nic), s->conf.macaddr.a);

    core->owner = pd;
    core->owner_nic = s->nic;
    core->owner_mac = s->conf.macaddr.a;
    ena_core_realize(core);
}

static void ena_exit(PCIDevice *pd)
{
    EnaState *s = ENA(pd);

    ena_core_unrealize(&s->core);
    qemu_del_nic(s->nic);
    msix_unuse_all_vectors(pd);
    msix_uninit_exclusive_bar(pd);
    pcie_cap_exit(pd);
}

static void ena_write_config(PCIDevice *pd, uint32_t addr, uint32_t val,
                             int len)
{
    pci_default_write_config(pd, addr, val, len);
    pcie_cap_flr_write_config(pd, addr, val, len);
}

static void ena_reset_hold(Object *obj, ResetType type)
{
    ena_core_reset(&ENA(obj)->core);
}

static int ena_post_load(void *opaque, int version_id)
{
    EnaState *s = opaque;

    ena_core_post_load(&s->core);
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
        VMSTATE_UINT64(core.aq_base, EnaState),
        VMSTATE_UINT32(core.aq_caps, EnaState),
        VMSTATE_UINT64(core.acq_base, EnaState),
        VMSTATE_UINT32(core.acq_caps, EnaState),
        VMSTATE_UINT32(core.aq_db, EnaState),
        VMSTATE_UINT64(core.aenq_base, EnaState),
        VMSTATE_UINT32(core.aenq_caps, EnaState),
        VMSTATE_UINT32(core.aenq_head_db, EnaState),
        VMSTATE_UINT32(core.intr_mask, EnaState),
        VMSTATE_UINT32(core.dev_ctl, EnaState),
        VMSTATE_UINT32(core.dev_sts, EnaState),
        VMSTATE_UINT32(core.mmio_read_req, EnaState),
        VMSTATE_UINT64(core.mmio_resp_addr, EnaState),
        VMSTATE_UINT32(core.aq_head, EnaState),
        VMSTATE_UINT32(core.acq_tail, EnaState),
        VMSTATE_UINT32(core.aenq_tail, EnaState),
        VMSTATE_UINT32(core.aenq_groups, EnaState),
        VMSTATE_UINT32(core.mtu, EnaState),
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
