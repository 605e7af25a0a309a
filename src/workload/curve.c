/*
 * curve: the load curve's spelling, its plan of rates and the verdict on
 * each point. No I/O.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve.h"
#include "units.h"

static int why_fail(char *why, size_t len, const char *msg)
{
	snprintf(why, len, "%s", msg);
	return -EINVAL;
}

/* One field: whole operations per second, or a size per second ("10m/s"). */
static int parse_rate(const char *s, double *out, bool *bytes)
{
	size_t n = strlen(s);
	uint64_t v;
	char buf[64];

	if (n > 2 && n < sizeof(buf) && !strcmp(s + n - 2, "/s")) {
		memcpy(buf, s, n - 2);
		buf[n - 2] = '\0';
		if (units_parse_size(buf, &v) || v == 0)
			return -EINVAL;
		*bytes = true;
	} else {
		if (units_parse_uint(s, 1, (uint64_t)CURVE_RATE_MAX, &v))
			return -EINVAL;
		*bytes = false;
	}
	*out = (double)v;
	return 0;
}

int curve_parse(const char *s, struct curve_spec *out, char *why, size_t len)
{
	char buf[200], *field[4], *tok;
	double v[3] = { 0 };
	bool bytes[3] = { false };
	unsigned n = 0;

	if (strlen(s) >= sizeof(buf))
		return why_fail(why, len, "is too long");
	memcpy(buf, s, strlen(s) + 1);
	/* strtok would skip an empty field ("100::200"): split by hand. */
	for (tok = buf, field[n++] = tok; (tok = strchr(tok, ':')) && n < 4; field[n++] = tok)
		*tok++ = '\0';
	if (n < 2 || n > 3)
		return why_fail(why, len, "is not START:STEP or START:STEP:END");
	for (unsigned i = 0; i < n; i++)
		if (parse_rate(field[i], &v[i], &bytes[i]))
			return why_fail(why, len, "has a field that is not a rate (whole operations "
					"per second, or a size per second such as 10m/s)");
	for (unsigned i = 1; i < n; i++)
		if (bytes[i] != bytes[0])
			return why_fail(why, len, "mixes operations and bytes per second "
					"(all fields in one unit)");
	if (n == 3 && v[2] < v[0])
		return why_fail(why, len, "has END below START");
	*out = (struct curve_spec){ .start = v[0], .step = v[1], .end = n == 3 ? v[2] : 0,
				    .bytes = bytes[0] };
	return 0;
}

int curve_target_parse(const char *s, struct curve_target *out, char *why, size_t len)
{
	const char *eq = strchr(s, '='), *p;
	char num[32];
	unsigned dots = 0;
	size_t n;
	double pct;
	uint64_t ns;

	if (s[0] != 'p' || !eq || eq == s + 1 || (size_t)(eq - s - 1) >= sizeof(num))
		return why_fail(why, len, "is not pNN=TIME");
	for (p = s + 1; p < eq; p++) {
		if (*p == '.')
			dots++;
		else if (*p < '0' || *p > '9')
			return why_fail(why, len, "is not pNN=TIME");
	}
	n = (size_t)(eq - s - 1);
	memcpy(num, s + 1, n);
	num[n] = '\0';
	if (dots > 1 || num[0] == '.' || num[n - 1] == '.')
		return why_fail(why, len, "is not pNN=TIME");
	pct = strtod(num, NULL);
	if (!(pct > 0 && pct < 100))
		return why_fail(why, len, "has a percentile outside 0 to 100 (exclusive)");
	if (units_parse_duration(eq + 1, &ns) || ns == 0)
		return why_fail(why, len, "has a time that is not a duration (try 500us, 2ms, 1s)");
	*out = (struct curve_target){ .pct = pct, .ns = ns };
	return 0;
}

const char *curve_pct_name(double pct, char *buf, size_t len)
{
	snprintf(buf, len, "p%g", pct);
	return buf;
}

static int to_ops(double v, bool bytes, uint64_t bs, double *out)
{
	double r = bytes ? round(v / (double)bs) : v;

	if (r < 1 || r > CURVE_RATE_MAX)
		return -ERANGE;
	*out = r;
	return 0;
}

int curve_rates(const struct curve_spec *spec, uint64_t bs, struct curve_spec *ops)
{
	*ops = (struct curve_spec){ 0 };
	if (!bs || to_ops(spec->start, spec->bytes, bs, &ops->start) ||
	    to_ops(spec->step, spec->bytes, bs, &ops->step) ||
	    (spec->end > 0 && to_ops(spec->end, spec->bytes, bs, &ops->end)))
		return -ERANGE;
	return 0;
}

void curve_init(struct curve *c, const struct curve_spec *rates, const struct curve_target *target)
{
	memset(c, 0, sizeof(*c));
	c->rates = *rates;
	c->rates.bytes = false;
	if (target)
		c->target = *target;
	c->best = c->knee = -1;
}

double curve_next(const struct curve *c)
{
	double r, lo, hi, mid;

	if (c->rates.start <= 0 || c->n >= CURVE_POINTS_MAX)
		return 0;
	if (!c->past_knee) {
		r = c->rates.start + (double)c->steps * c->rates.step;
		if (c->steps >= CURVE_STEPS_MAX || (c->rates.end > 0 && r > c->rates.end) ||
		    r > CURVE_RATE_MAX)
			return 0;
		return r;
	}
	/* Past the knee: only a latency target is worth the bisection. */
	if (c->target.pct <= 0 || c->best < 0 || c->knee < 0 || c->refines >= CURVE_REFINE_MAX)
		return 0;
	lo = c->pt[c->best].offered;
	hi = c->pt[c->knee].offered;
	mid = floor((lo + hi) / 2);
	/* Closer than 2% (or one operation): the points would tell nothing new. */
	if (mid <= lo || mid >= hi || hi - lo <= 0.02 * lo)
		return 0;
	return mid;
}

void curve_judge(const struct curve_target *target, struct curve_point *p)
{
	if (p->achieved * 100 < p->offered * CURVE_KNEE_PCT)
		p->miss = CURVE_SHORT;
	else if (p->errors)
		p->miss = CURVE_ERRORS;
	else if (target && target->pct > 0 && p->target_ns > target->ns)
		p->miss = CURVE_SLOW;
	else
		p->miss = CURVE_MET;
}

int curve_add(struct curve *c, const struct curve_point *p)
{
	struct curve_point *q;

	if (c->n >= CURVE_POINTS_MAX)
		return -ENOSPC;
	q = &c->pt[c->n];
	*q = *p;
	/* Once past the knee, every point is a bisection's. */
	q->refined = c->past_knee;
	if (q->refined)
		c->refines++;
	else
		c->steps++;
	curve_judge(&c->target, q);
	c->past_knee |= q->miss != CURVE_MET;
	c->n++;
	c->best = c->knee = -1;
	for (unsigned i = 0; i < c->n; i++)
		if (c->pt[i].miss == CURVE_MET &&
		    (c->best < 0 || c->pt[i].offered > c->pt[c->best].offered))
			c->best = (int)i;
	for (unsigned i = 0; i < c->n; i++)
		if (c->pt[i].miss != CURVE_MET &&
		    (c->best < 0 || c->pt[i].offered > c->pt[c->best].offered) &&
		    (c->knee < 0 || c->pt[i].offered < c->pt[c->knee].offered))
			c->knee = (int)i;
	return (int)(c->n - 1);
}

const char *curve_miss_name(enum curve_miss m)
{
	static const char *const names[] = { "met", "short", "errors", "slow" };

	return m <= CURVE_SLOW ? names[m] : "?";
}
