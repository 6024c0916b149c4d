/*
 * Amazon Elastic Network Adapter (ENA) device model: protocol errors,
 * device fuzzing and fault injection
 *
 * The protocol-error accounting (ena_guest_error(), expect-guest-errors),
 * the device-fuzzing generator (fuzz-seed: one corruption armed at a
 * time), and the fault injection points: ena_fault_points[] lists each
 * with the fault-* property that arms it, and the datapath and the admin
 * queue call ena_fault_take() where they reach it (ena_io.c, ena_admin.c);
 * fault-status-* fails admin commands (ena_fault_status_take()).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"
#include "qemu/log.h"
#include "qapi/error.h"
#include "trace.h"

#include "ena_int.h"

/* ------------------------------------------------------------------ */
/* protocol errors                                                     */

static const char *const ena_err_name[ENA_ERR_KINDS] = {
    [ENA_ERR_MMIO] = "mmio",
    [ENA_ERR_ADMIN] = "admin",
    [ENA_ERR_FEATURE] = "feature",
    [ENA_ERR_QUEUE] = "queue",
    [ENA_ERR_DOORBELL] = "doorbell",
    [ENA_ERR_TX] = "tx",
    [ENA_ERR_LLQ] = "llq",
    [ENA_ERR_RX] = "rx",
};

static const char *ena_id(EnaCore *core)
{
    const char *id = ena_owner_id(core);

    return id ? id : "ena";
}

/**
 * ena_guest_error - count and log a protocol error of the driver
 *
 * The line goes to QEMU's guest-error log (-d guest_errors) as
 * "<id>: protocol error [<kind>]: ...", or "<id>: expected protocol
 * error [<kind>]: ..." while a test declares the kind expected; the
 * guest runner fails a guest whose log holds an unexpected one.  The
 * first ENA_ERR_LOG_LINES of each kind and class are logged, the rest
 * only counted (the exit line gives the totals).
 */
void ena_guest_error(EnaCore *core, EnaErrKind kind, const char *fmt, ...)
{
    bool expected = core->err_expect & BIT(kind);
    uint64_t n = expected ? ++core->err_expected[kind] :
                            ++core->err_count[kind];
    g_autofree char *msg = NULL;
    va_list ap;

    trace_ena_guest_error(ena_err_name[kind], expected);
    if (n > ENA_ERR_LOG_LINES) {
        return;
    }
    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    qemu_log_mask(LOG_GUEST_ERROR, "%s: %sprotocol error [%s]: %s%s\n",
                  ena_id(core), expected ? "expected " : "", ena_err_name[kind],
                  msg, n == ENA_ERR_LOG_LINES ? " (further ones counted only)"
                  : "");
}

/* "kind:n kind:n" of the kinds with a non-zero count, "" for none */
char *ena_guest_errors_str(EnaCore *core, bool expected)
{
    const uint64_t *c = expected ? core->err_expected : core->err_count;
    GString *out = g_string_new("");
    int k;

    for (k = 0; k < ENA_ERR_KINDS; k++) {
        if (c[k]) {
            g_string_append_printf(out, "%s%s:%" PRIu64, out->len ? " " : "",
                                   ena_err_name[k], c[k]);
        }
    }
    return g_string_free(out, false);
}

/* expect-guest-errors: kinds separated by commas or spaces, "all" or "" */
bool ena_guest_errors_parse(const char *str, uint32_t *mask, Error **errp)
{
    g_auto(GStrv) words = g_strsplit_set(str, ", ", -1);
    uint32_t m = 0;
    int i, k;

    for (i = 0; words[i]; i++) {
        if (!*words[i]) {
            continue;
        }
        if (!strcmp(words[i], "all")) {
            m |= BIT(ENA_ERR_KINDS) - 1;
            continue;
        }
        for (k = 0; k < ENA_ERR_KINDS; k++) {
            if (!strcmp(words[i], ena_err_name[k])) {
                break;
            }
        }
        if (k == ENA_ERR_KINDS) {
            error_setg(errp, "expect-guest-errors: unknown kind '%s'",
                       words[i]);
            return false;
        }
        m |= BIT(k);
    }
    *mask = m;
    return true;
}

char *ena_guest_errors_expect_str(EnaCore *core)
{
    GString *out = g_string_new("");
    int k;

    for (k = 0; k < ENA_ERR_KINDS; k++) {
        if (core->err_expect & BIT(k)) {
            g_string_append_printf(out, "%s%s", out->len ? "," : "",
                                   ena_err_name[k]);
        }
    }
    return g_string_free(out, false);
}

/* the totals, for the log's reader and the guest runner */
void ena_guest_errors_at_exit(Notifier *n, void *data)
{
    EnaCore *core = container_of(n, EnaCore, exit_notifier);
    g_autofree char *bad = ena_guest_errors_str(core, false);
    g_autofree char *exp = ena_guest_errors_str(core, true);

    if (*bad || *exp) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: protocol errors at exit: "
                      "unexpected [%s] expected [%s]\n", ena_id(core), bad,
                      exp);
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

uint64_t ena_fuzz_next(EnaCore *core)
{
    uint64_t x = core->fuzz_rng;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    core->fuzz_rng = x;
    return x * 0x2545f4914f6cdd1dULL;
}

/* draw the next corruption (at fuzz-seed and at every device reset) */
void ena_fuzz_arm(EnaCore *core)
{
    uint32_t total = 0, pick;
    int k;

    core->fuzz_kind = -1;
    for (k = 0; k < ENA_FUZZ_KINDS; k++) {
        total += (core->fuzz_kinds & BIT(k)) ? ena_fuzz_weight[k] : 0;
    }
    if (!core->fuzz_seed || !total) {
        return;
    }
    pick = ena_fuzz_next(core) % total;
    for (k = 0; !(core->fuzz_kinds & BIT(k)) || pick >= ena_fuzz_weight[k];
         k++) {
        pick -= (core->fuzz_kinds & BIT(k)) ? ena_fuzz_weight[k] : 0;
    }
    core->fuzz_kind = k;
    /*
     * The bring-up after a reset has about 16 admin commands, one of them
     * the MAX_QUEUES_EXT query.
     */
    core->fuzz_wait = k == ENA_FUZZ_ADMIN_SIZE ? 0 :
                      ena_fuzz_next(core) %
                      ((k == ENA_FUZZ_ADMIN_ID ? MIN(core->fuzz_gap_max, 8) :
                        core->fuzz_gap_max) + 1);
}

/* Return: true when this event of @kind is the one to corrupt */
bool ena_fuzz_hit(EnaCore *core, int kind)
{
    if (core->fuzz_kind != kind) {
        return false;
    }
    if (core->fuzz_wait) {
        core->fuzz_wait--;
        return false;
    }
    core->fuzz_kind = -1;
    core->fuzz_count[kind]++;
    trace_ena_fuzz(kind, core->fuzz_count[kind]);
    return true;
}

/* a request id the driver never posted on a ring of @depth entries */
uint16_t ena_fuzz_bad_id(EnaCore *core, uint32_t depth)
{
    return depth + ena_fuzz_next(core) % (0x10000 - depth);
}

/* ------------------------------------------------------------------ */
/* fault injection                                                     */

const EnaFaultPoint ena_fault_points[ENA_FAULT_POINTS] = {
    [ENA_FAULT_DROP_NEXT] = { "fault-drop-next", 0,
        "an admin command takes effect, its completion is not posted" },
    [ENA_FAULT_DELAY_NEXT] = { "fault-delay-next-ms", UINT32_MAX,
        "the next admin command completes this many ms later" },
    [ENA_FAULT_MALFORMED] = { "fault-malformed", 2,
        "the next admin completion has 1: an unknown id, 2: a stale phase" },
    [ENA_FAULT_ADMIN_IRQ_LOST] = { "fault-admin-irq-lost", 0,
        "an admin completion is posted without its MSI-X message" },
    [ENA_FAULT_CQ_DEPTH] = { "fault-cq-depth", 0,
        "CREATE_CQ answers half the depth the CQ has" },
    [ENA_FAULT_CQ_NO_UNMASK] = { "fault-cq-no-unmask", 0,
        "CREATE_CQ answers no unmask register offset" },
    [ENA_FAULT_BAD_DB] = { "fault-bad-db", 0,
        "CREATE_SQ answers a doorbell offset past the end of BAR0" },
    [ENA_FAULT_TX_SWALLOW] = { "fault-tx-swallow", 0,
        "a TX packet goes out, its completion never comes" },
    [ENA_FAULT_TX_BAD_REQID] = { "fault-tx-bad-reqid", 0,
        "a TX completion carries a req_id beyond the ring" },
    [ENA_FAULT_RX_BAD_REQID] = { "fault-rx-bad-reqid", 0,
        "an RX completion carries a req_id beyond the ring" },
    [ENA_FAULT_RX_BAD_LEN] = { "fault-rx-bad-len", 0,
        "an RX completion carries the length 0xffff" },
    [ENA_FAULT_RX_RUNT] = { "fault-rx-runt", 0,
        "a frame over 8 bytes gets 8 of them in its first buffer" },
    [ENA_FAULT_IO_IRQ_DROP] = { "fault-io-irq-drop", 0,
        "an IO interrupt is lost, its vector stays masked" },
    [ENA_FAULT_MMIO_DROP] = { "fault-mmio-drop", 0,
        "a readless register read gets no answer" },
};

/* Return: whether @f is armed, without taking it */
bool ena_fault_armed(EnaCore *core, EnaFault f)
{
    return core->fault[f] != 0;
}

/*
 * The device reaches fault point @f.  Return: 0 when it is not armed,
 * else the armed value (a count, or a one-shot's value), counted down or
 * cleared.
 */
uint32_t ena_fault_take(EnaCore *core, EnaFault f)
{
    const EnaFaultPoint *p = &ena_fault_points[f];
    uint32_t val = core->fault[f];

    if (!val || (p->once_max && val > p->once_max)) {
        return 0;
    }
    core->fault[f] = p->once_max ? 0 : val - 1;
    return val;
}

/*
 * Admin command @op (a GET/SET_FEATURE of feature @feat when @is_feat)
 * reaches the device.  Return: whether it fails with fault-status-code:
 * it matches fault-status-opcode or -feature, and fault-status-after
 * commands have passed; fault-status-times (when set) disarms the fault
 * after that many failures.
 */
bool ena_fault_status_take(EnaCore *core, uint8_t op, bool is_feat,
                           uint8_t feat)
{
    if (!(core->fault_status_opcode >= 0 && core->fault_status_opcode == op) &&
        !(is_feat && core->fault_status_feature >= 0 &&
          core->fault_status_feature == feat)) {
        return false;
    }
    if (core->fault_status_after) {
        core->fault_status_after--;
        return false;
    }
    if (core->fault_status_times && !--core->fault_status_times) {
        core->fault_status_opcode = -1;
        core->fault_status_feature = -1;
    }
    return true;
}
