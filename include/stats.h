/*
 * stats: counters plus a latency histogram, per op type or per connection.
 *
 * Owns: the record/merge of one set of counters. A stats set belongs to one
 * thread at a time; merging is exact (counts add).
 */
#ifndef NFSLOAD_STATS_H
#define NFSLOAD_STATS_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/clock.h"
#include "hist.h"
#include "workload.h"

struct op_stats {
	uint64_t ops;		/* completed without error */
	uint64_t bytes;
	uint64_t holes;		/* READ_PLUS: the share of bytes that were holes (bytes - holes: data) */
	uint64_t errors;
	struct hist lat;	/* ns, successful operations only */
	/*
	 * Open loop only (counts == NULL otherwise): latency from the actual
	 * issue, while lat runs from the intended start (coordinated omission
	 * corrected, as wrk2 does).
	 */
	struct hist lat_unc;
	/*
	 * Wire time (engines that measure it, --wire-time), made on first use:
	 * from the request's last byte leaving this host to its reply's last
	 * byte arriving (kernel timestamps), and the client's share, the
	 * actual issue to completion minus that. wire_missed: successful
	 * operations the kernel's timestamps could not be matched to.
	 */
	struct hist wire, client;
	uint64_t wire_missed;
	/*
	 * Answers that deny for a conflict (engine.h's ENGINE_DENIED: a lock held
	 * by another owner, a share reservation): neither successes nor errors.
	 * lat_denied, made on first use: their latency from the intended start.
	 */
	uint64_t denied;
	struct hist lat_denied;
};

/* 0 or -ENOMEM. With open_loop, lat_unc is allocated too. */
int op_stats_init(struct op_stats *s, int sub_bits, bool open_loop);
void op_stats_destroy(struct op_stats *s);
void op_stats_reset(struct op_stats *s);
/* dst += src (exact). */
void op_stats_add(struct op_stats *dst, const struct op_stats *src);

/* lat_ns from the intended start, unc_ns from the actual issue (equal when closed loop). */
/* A denied answer (ENGINE_DENIED) and its latency. */
void op_stats_denied(struct op_stats *s, uint64_t lat_ns);

/* op_stats_record's status for a denied answer: engine.h's -ENGINE_DENIED. */
#define STATS_DENIED (-EDEADLK)

static inline void op_stats_record(struct op_stats *s, int status, uint64_t lat_ns,
				   uint64_t unc_ns)
{
	if (status == STATS_DENIED) {
		op_stats_denied(s, lat_ns);
		return;
	}
	if (status < 0) {
		s->errors++;
		return;
	}
	s->ops++;
	s->bytes += (uint64_t)status;
	hist_record(&s->lat, lat_ns);
	if (s->lat_unc.counts)
		hist_record(&s->lat_unc, unc_ns);
}

/* A successful operation's wire time (ns), or 0: none could be taken.
 * unc_ns: its latency from the actual issue. */
void op_stats_wire(struct op_stats *s, uint64_t wire_ns, uint64_t unc_ns);
/* The wire histograms of an array of OP_NTYPES made now (a worker's, before the hot
 * path; elsewhere they are made on first use). 0 or -ENOMEM. */
int op_stats_wire_init_all(struct op_stats *s);
/* Whether any of its operations was given a wire time or left out of it. */
static inline bool op_stats_has_wire(const struct op_stats *s)
{
	return s->wire.count || s->wire_missed;
}

/* n of them on the heap (one per server, say): NULL when n is 0 or no memory. */
struct op_stats *op_stats_new_n(unsigned n, int sub_bits);
/* Frees what op_stats_new_n made (NULL: nothing). */
void op_stats_free_n(struct op_stats *s, unsigned n);
void op_stats_reset_n(struct op_stats *s, unsigned n);
/* dst[i] += src[i] for i < n. */
void op_stats_add_n(struct op_stats *dst, const struct op_stats *src, unsigned n);

/* The same for an array of OP_NTYPES. */
int op_stats_init_all(struct op_stats *s, int sub_bits, bool open_loop);
void op_stats_destroy_all(struct op_stats *s);
void op_stats_reset_all(struct op_stats *s);
void op_stats_add_all(struct op_stats *dst, const struct op_stats *src);

#endif
