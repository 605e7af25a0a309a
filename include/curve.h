/*
 * curve: a load curve (--load-curve, --latency-target) as data and as a plan.
 *
 * Owns: the spelling of both options, the open-loop rates a curve offers in
 * turn (steps from START by STEP up to END, or until the knee; then, with a
 * latency target, a bounded bisection between the highest point that met it
 * and the lowest that did not), the verdict on each measured point and the
 * best one. Pure: no I/O, no clock, no server; the run measures each point
 * and hands it back (curve_add), the report shows what is here.
 *
 * A point is past the knee (not met) when it achieved less than
 * CURVE_KNEE_PCT% of the rate offered, or had errors, or missed the latency
 * target. Stepping stops at the first such point.
 */
#ifndef NFSLOAD_CURVE_H
#define NFSLOAD_CURVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CURVE_KNEE_PCT 90	/* achieved below this % of offered: past the knee */
#define CURVE_STEPS_MAX 32	/* stepped points, at most (without END: the bound) */
#define CURVE_REFINE_MAX 4	/* bisection points after the knee, at most */
#define CURVE_POINTS_MAX (CURVE_STEPS_MAX + CURVE_REFINE_MAX)
#define CURVE_RATE_MAX 100000000.0	/* ops/s, as --rate */

/* --load-curve START:STEP[:END], as given: operations or bytes per second. */
struct curve_spec {
	double start, step, end;	/* end 0: until the knee; start 0: no curve */
	bool bytes;			/* "10m/s": bytes per second (curve_rates converts) */
};

/* --latency-target pNN=TIME: pct 0 means none. */
struct curve_target {
	double pct;			/* 0 < pct < 100 */
	uint64_t ns;
};

/* Why a point did not meet the curve's bar (CURVE_MET: it did). */
enum curve_miss { CURVE_MET, CURVE_SHORT, CURVE_ERRORS, CURVE_SLOW };

struct curve_point {
	double offered, achieved;	/* ops/s */
	uint64_t ops, errors;
	uint64_t p50_ns, p99_ns;
	uint64_t target_ns;		/* the latency at the target's percentile (0: no target) */
	uint64_t duration_ns;		/* its measured window */
	bool refined;			/* a bisection point, not a step */
	enum curve_miss miss;
};

struct curve {
	struct curve_spec rates;	/* in operations per second */
	struct curve_target target;
	struct curve_point pt[CURVE_POINTS_MAX];	/* in the order they ran */
	unsigned n, steps, refines;
	bool past_knee;			/* a point was not met: the steps are over */
	int best;			/* index of the highest point met, -1: none */
	int knee;			/* index of the lowest point not met above best, -1: none */
};

/*
 * "1000:500:4000", "1000:500", "10m/s:10m/s:80m/s". 0, or -EINVAL with the
 * reason in why ("END is below START", ...): the caller names the option.
 */
int curve_parse(const char *s, struct curve_spec *out, char *why, size_t len);
/* "p99=2ms", "p99.9=500us", "p50=1.5ms". 0 or -EINVAL (why as above). */
int curve_target_parse(const char *s, struct curve_target *out, char *why, size_t len);
/* "p99", "p99.9" into buf. */
const char *curve_pct_name(double pct, char *buf, size_t len);

/*
 * spec in operations per second: bytes per second divided by bs, rounded to
 * whole operations. -ERANGE when a rate comes out under 1 or over
 * CURVE_RATE_MAX.
 */
int curve_rates(const struct curve_spec *spec, uint64_t bs, struct curve_spec *ops);

/* A curve over rates (ops/s) with target (NULL or pct 0: none). */
void curve_init(struct curve *c, const struct curve_spec *rates, const struct curve_target *target);
/* The rate the next point offers, or 0: the curve is done. */
double curve_next(const struct curve *c);
/* p's verdict (p->miss) under target (NULL: none). */
void curve_judge(const struct curve_target *target, struct curve_point *p);
/*
 * Judges p and adds it as the point curve_next asked for; the best and the
 * knee follow. Returns its index, or -ENOSPC when the curve is full.
 */
int curve_add(struct curve *c, const struct curve_point *p);
/* "met", "short", "errors", "slow". */
const char *curve_miss_name(enum curve_miss m);

#endif
