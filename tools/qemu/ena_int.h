/*
 * Amazon Elastic Network Adapter (ENA) device model: the core's internals
 *
 * What the core's units (ena_core.c, ena_admin.c, ena_io.c, ena_faults.c,
 * ena_stats.c) call of each other; the core's state and what the glue in
 * ena.c may call are in ena_core.h, the device-visible formats in ena-hw.h.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

#ifndef HW_NET_ENA_INT_H
#define HW_NET_ENA_INT_H

#include "ena_core.h"

/* ena_admin.c: reset, admin queue, features, AENQ, keep-alive */
bool ena_pow2_depth(uint32_t depth, uint32_t max);
uint32_t ena_aq_depth(EnaCore *core);
uint32_t ena_acq_depth(EnaCore *core);
uint32_t ena_aenq_depth(EnaCore *core);
void ena_post_link(EnaCore *core);
void ena_hints_fill(EnaCore *core, uint8_t *h);
void ena_keepalive_cb(void *opaque);
void ena_soft_reset(EnaCore *core);
void ena_reset_done_cb(void *opaque);
void ena_dev_ctl_write(EnaCore *core, uint32_t val);
void ena_admin_timer_cb(void *opaque);
uint32_t ena_llq_max_depth(EnaCore *core);
uint32_t ena_max_depth(EnaCore *core, uint8_t dir);
void ena_aq_doorbell(EnaCore *core, uint32_t val);

/* ena_io.c: IO queues, doorbells, LLQ, RSS, RX, TX, IO interrupts */
void ena_drop_queues(EnaCore *core);
void ena_io_vec_init(EnaCore *core);
void ena_io_vec_fini(EnaCore *core);
uint8_t ena_create_cq(EnaCore *core, const uint8_t *sqe, uint8_t *cqe);
uint8_t ena_create_sq(EnaCore *core, const uint8_t *sqe, uint8_t *cqe);
uint8_t ena_destroy_sq(EnaCore *core, const uint8_t *sqe);
uint8_t ena_destroy_cq(EnaCore *core, const uint8_t *sqe);
void ena_tx_serve(EnaCore *core, uint32_t idx);
void ena_llq_written(EnaCore *core, EnaSq *sq, size_t off, unsigned size);
void ena_sq_doorbell(EnaCore *core, uint32_t idx, uint32_t val);
void ena_cq_unmask(EnaCore *core, uint32_t idx, uint32_t val);
EnaSq *ena_llq_locate(EnaCore *core, hwaddr addr, unsigned size,
                      size_t *off);

/* ena_faults.c: protocol errors, fuzzing, fault injection */
void ena_guest_error(EnaCore *core, EnaErrKind kind, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);
void ena_guest_errors_at_exit(Notifier *n, void *data);
uint64_t ena_fuzz_next(EnaCore *core);
bool ena_fuzz_hit(EnaCore *core, int kind);
uint16_t ena_fuzz_bad_id(EnaCore *core, uint32_t depth);
bool ena_fault_armed(EnaCore *core, EnaFault f);
uint32_t ena_fault_take(EnaCore *core, EnaFault f);
bool ena_fault_status_take(EnaCore *core, uint8_t op, bool is_feat,
                           uint8_t feat);

/* ena_stats.c: statistics and benchmark sampling */
void ena_react_sample(EnaCore *core, int64_t ns);

#endif /* HW_NET_ENA_INT_H */
