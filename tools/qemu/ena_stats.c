/*
 * Amazon Elastic Network Adapter (ENA) device model: statistics and
 * benchmark sampling
 *
 * The counters behind the stat-* properties (most are fields of EnaStats
 * the datapath bumps; this file derives the others and clears them all
 * for stat-reset), the reset-reason history, and the admin reaction-time
 * samples behind stat-react-*: from the device's newest admin completion
 * to the driver's next admin doorbell.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#include "qemu/osdep.h"

#include "ena_int.h"

/* ------------------------------------------------------------------ */
/* counters                                                            */

/* stat-reset: every counter and sample back to 0 */
void ena_stats_reset(EnaCore *core)
{
    memset(&core->st, 0, sizeof(core->st));
    memset(core->fuzz_count, 0, sizeof(core->fuzz_count));
    core->fuzz_irq_dup = 0;
    memset(core->err_count, 0, sizeof(core->err_count));
    memset(core->err_expected, 0, sizeof(core->err_expected));
    core->react_count = 0;
    core->react_db_first = 0;
    core->react_probe = UINT32_MAX;
    core->react_due = false;
}

/* stat-admin-by-opcode: "OP:COUNT ..." for the opcodes a driver uses */
char *ena_stats_by_opcode(EnaCore *core)
{
    static const uint8_t ops[] = { 1, 2, 3, 4, 8, 9, 11 };
    GString *str = g_string_new(NULL);
    unsigned i;

    for (i = 0; i < ARRAY_SIZE(ops); i++) {
        g_string_append_printf(str, "%s%u:%" PRIu64, i ? " " : "", ops[i],
                               core->st.admin_by_op[ops[i]]);
    }
    return g_string_free(str, false);
}

/* reset-reasons: "N:REASON ..." for the newest resets, N as stat-resets */
char *ena_stats_reset_reasons(EnaCore *core)
{
    GString *out = g_string_new("");
    uint64_t n = core->st.resets, i;

    for (i = n > ENA_RESET_HISTORY ? n - ENA_RESET_HISTORY + 1 : 1; i <= n;
         i++) {
        g_string_append_printf(out, "%s%" PRIu64 ":%u", out->len ? " " : "",
                               i, core->reset_reason[i % ENA_RESET_HISTORY]);
    }
    return g_string_free(out, false);
}

/* stat-ring-bytes: guest memory the live rings take */
static uint64_t ena_stats_ring_bytes(EnaCore *core)
{
    uint64_t b = 0;
    uint32_t i;

    if (core->aq_base) {
        b += (uint64_t)ena_aq_depth(core) * ENAHW_ADMIN_ENTRY_SIZE;
    }
    if (core->acq_base) {
        b += (uint64_t)ena_acq_depth(core) * ENAHW_ADMIN_ENTRY_SIZE;
    }
    if (core->aenq_base) {
        b += (uint64_t)ena_aenq_depth(core) * ENAHW_AENQ_ENTRY_SIZE;
    }
    for (i = 0; core->sqs && i < ena_nsq(core); i++) {
        if (core->sqs[i].live && core->sqs[i].placement == ENAHW_PLACE_HOST) {
            b += (uint64_t)core->sqs[i].depth * 16;
        }
        if (core->cqs[i].live) {
            b += (uint64_t)core->cqs[i].depth * core->cqs[i].entry_size;
        }
    }
    return b;
}

/* ------------------------------------------------------------------ */
/* benchmark sampling: admin reaction times                            */

void ena_react_sample(EnaCore *core, int64_t ns)
{
    core->react[core->react_count % ENA_REACT_SAMPLES] = ns;
    core->react_count++;
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
char *ena_react_probe_samples(EnaCore *core)
{
    uint32_t n = MIN(MIN(core->react_count, ENA_REACT_SAMPLES),
                     core->react_probe);
    GString *str = g_string_new(NULL);
    uint32_t i;

    for (i = 0; i < n; i++) {
        g_string_append_printf(str, "%s%" PRId64, i ? "," : "", core->react[i]);
    }
    return g_string_free(str, false);
}

static uint64_t ena_react_stat(EnaCore *core, const char *which)
{
    uint32_t n = MIN(core->react_count, ENA_REACT_SAMPLES);
    const char *kind = which + strlen("stat-react-");
    g_autofree int64_t *v = NULL;

    if (g_str_has_prefix(kind, "probe-")) {
        /* only the samples taken before the first CREATE_CQ: probe's */
        n = MIN(n, core->react_probe);
        kind += strlen("probe-");
        if (!strcmp(kind, "count")) {
            return n;
        }
    }
    if (!strcmp(kind, "count")) {
        return core->react_count;
    }
    if (!n) {
        return 0;
    }
    if (!strcmp(kind, "total-ns")) {
        /* the time the device sat waiting for the driver's next command */
        int64_t sum = 0;
        uint32_t i;

        for (i = 0; i < n; i++) {
            sum += core->react[i];
        }
        return sum;
    }
    v = g_memdup2(core->react, n * sizeof(int64_t));
    qsort(v, n, sizeof(int64_t), ena_cmp_i64);
    if (!strcmp(kind, "median-ns")) {
        return v[n / 2];
    }
    if (!strcmp(kind, "p90-ns")) {
        return v[MIN(n - 1, (n * 9) / 10)];
    }
    return v[n - 1];
}

static uint64_t ena_sum(const uint64_t *v, int n)
{
    uint64_t sum = 0;
    int i;

    for (i = 0; i < n; i++) {
        sum += v[i];
    }
    return sum;
}

/*
 * The counters no field holds: stat-react-*, stat-ring-bytes and the
 * totals.  Return: whether @name is one of them (its value in *@val).
 */
bool ena_stats_derived(EnaCore *core, const char *name, uint64_t *val)
{
    if (g_str_has_prefix(name, "stat-react-")) {
        *val = ena_react_stat(core, name);
    } else if (!strcmp(name, "stat-ring-bytes")) {
        *val = ena_stats_ring_bytes(core);
    } else if (!strcmp(name, "stat-fuzz-total")) {
        *val = ena_sum(core->fuzz_count, ENA_FUZZ_KINDS);
    } else if (!strcmp(name, "stat-guest-errors")) {
        *val = ena_sum(core->err_count, ENA_ERR_KINDS);
    } else {
        return false;
    }
    return true;
}
