/*
 * Amazon Elastic Network Adapter (ENA) device model: protocol errors,
 * fault injection, device fuzzing and benchmark sampling
 *
 * The fault-* knobs themselves act where the datapath and the admin
 * queue meet them (ena_admin.c, ena_io.c); this file holds the helpers
 * they share: the protocol-error accounting, the fuzzing generator, the
 * fault-status-* accounting and the admin reaction-time samples behind
 * the stat-react-* properties.
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

static const char *ena_id(EnaState *s)
{
    const char *id = DEVICE(s)->id;

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
void ena_guest_error(EnaState *s, EnaErrKind kind, const char *fmt, ...)
{
    bool expected = s->err_expect & BIT(kind);
    uint64_t n = expected ? ++s->err_expected[kind] : ++s->err_count[kind];
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
                  ena_id(s), expected ? "expected " : "", ena_err_name[kind],
                  msg, n == ENA_ERR_LOG_LINES ? " (further ones counted only)"
                  : "");
}

/* "kind:n kind:n" of the kinds with a non-zero count, "" for none */
char *ena_guest_errors_str(EnaState *s, bool expected)
{
    const uint64_t *c = expected ? s->err_expected : s->err_count;
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

char *ena_guest_errors_expect_str(EnaState *s)
{
    GString *out = g_string_new("");
    int k;

    for (k = 0; k < ENA_ERR_KINDS; k++) {
        if (s->err_expect & BIT(k)) {
            g_string_append_printf(out, "%s%s", out->len ? "," : "",
                                   ena_err_name[k]);
        }
    }
    return g_string_free(out, false);
}

/* the totals, for the log's reader and the guest runner */
void ena_guest_errors_at_exit(Notifier *n, void *data)
{
    EnaState *s = container_of(n, EnaState, exit_notifier);
    g_autofree char *bad = ena_guest_errors_str(s, false);
    g_autofree char *exp = ena_guest_errors_str(s, true);

    if (*bad || *exp) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: protocol errors at exit: "
                      "unexpected [%s] expected [%s]\n", ena_id(s), bad, exp);
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

uint64_t ena_fuzz_next(EnaState *s)
{
    uint64_t x = s->fuzz_rng;

    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    s->fuzz_rng = x;
    return x * 0x2545f4914f6cdd1dULL;
}

/* draw the next corruption (at fuzz-seed and at every device reset) */
void ena_fuzz_arm(EnaState *s)
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
bool ena_fuzz_hit(EnaState *s, int kind)
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
uint16_t ena_fuzz_bad_id(EnaState *s, uint32_t depth)
{
    return depth + ena_fuzz_next(s) % (0x10000 - depth);
}

/* ------------------------------------------------------------------ */
/* admin fault injection                                               */

/*
 * A command matched fault-status-opcode/-feature: fail it unless
 * fault-status-after commands are still to pass; fault-status-times
 * (when set) disarms the fault after that many failures.
 */
bool ena_fault_status_hit(EnaState *s)
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

/* ------------------------------------------------------------------ */
/* benchmark sampling: admin reaction times                            */

void ena_react_sample(EnaState *s, int64_t ns)
{
    s->react[s->react_count % ENA_REACT_SAMPLES] = ns;
    s->react_count++;
}

static int ena_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

/*
 * The probe's samples in the order they were taken, in ns, separated by
 * commas: the same doorbell of two loads sits at the same position, so a
 * benchmark can compare one gap of the probe between two admin latencies
 * without the spread between the gaps.
 */
char *ena_react_probe_samples(EnaState *s)
{
    uint32_t n = MIN(MIN(s->react_count, ENA_REACT_SAMPLES), s->react_probe);
    GString *str = g_string_new(NULL);
    uint32_t i;

    for (i = 0; i < n; i++) {
        g_string_append_printf(str, "%s%" PRId64, i ? "," : "", s->react[i]);
    }
    return g_string_free(str, false);
}

uint64_t ena_react_stat(EnaState *s, const char *which)
{
    uint32_t n = MIN(s->react_count, ENA_REACT_SAMPLES);
    const char *kind = which + strlen("stat-react-");
    g_autofree int64_t *v = NULL;

    if (g_str_has_prefix(kind, "probe-")) {
        /* only the samples taken before the first CREATE_CQ: probe's */
        n = MIN(n, s->react_probe);
        kind += strlen("probe-");
        if (!strcmp(kind, "count")) {
            return n;
        }
    }
    if (!strcmp(kind, "count")) {
        return s->react_count;
    }
    if (!n) {
        return 0;
    }
    if (!strcmp(kind, "total-ns")) {
        /* the time the device sat waiting for the driver's next command */
        int64_t sum = 0;
        uint32_t i;

        for (i = 0; i < n; i++) {
            sum += s->react[i];
        }
        return sum;
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
