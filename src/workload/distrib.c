/*
 * distrib: access skews (random, zipf, pareto, normal) over a stream's
 * blocks and --bssplit's block-size mixes; see include/distrib.h. Owns the
 * parsing of both options' values and the draws; not which range or file a
 * block lies in (workload.c).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "distrib.h"
#include "units.h"

uint64_t distrib_rand(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double unit(uint64_t *rng)
{
	return (double)(distrib_rand(rng) >> 11) * 0x1p-53;
}

static uint64_t below(uint64_t *rng, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)distrib_rand(rng) * n) >> 64);
}

static const char *const kind_names[] = {
	[DISTRIB_RANDOM] = "random", [DISTRIB_ZIPF] = "zipf", [DISTRIB_PARETO] = "pareto",
	[DISTRIB_NORMAL] = "normal",
};

int distrib_parse(const char *s, struct distrib_spec *d)
{
	const char *colon = strchr(s, ':');
	size_t name_len = colon ? (size_t)(colon - s) : strlen(s);
	char *end;
	double v;

	if (!colon) {
		if (strcmp(s, "random"))
			return -EINVAL;
		*d = (struct distrib_spec){ DISTRIB_RANDOM, 0 };
		return 0;
	}
	if (colon[1] == '\0' || colon[1] == ' ' || colon[1] == '+' || colon[1] == '-')
		return -EINVAL;
	v = strtod(colon + 1, &end);
	if (*end != '\0' || !isfinite(v))
		return -EINVAL;
	for (unsigned k = DISTRIB_ZIPF; k <= DISTRIB_NORMAL; k++) {
		if (strlen(kind_names[k]) != name_len || strncmp(s, kind_names[k], name_len))
			continue;
		if ((k == DISTRIB_ZIPF && !(v > 0 && v <= 100)) ||
		    (k == DISTRIB_PARETO && !(v > 0 && v < 1)) ||
		    (k == DISTRIB_NORMAL && !(v > 0 && v <= 100)))
			return -EINVAL;
		*d = (struct distrib_spec){ (enum distrib_kind)k, v };
		return 0;
	}
	return -EINVAL;
}

void distrib_format(const struct distrib_spec *d, char *buf, size_t len)
{
	if (d->kind == DISTRIB_RANDOM)
		snprintf(buf, len, "random");
	else
		snprintf(buf, len, "%s:%g", kind_names[d->kind], d->param);
}

/*
 * Rejection-inversion (Hörmann and Derflinger 1996, as in Apache Commons'
 * RejectionInversionZipfSampler): H is an integral of h(x) = x^-theta, the
 * draw inverts H and is accepted at once in nearly every case.
 */
static double helper1(double x)
{
	return fabs(x) > 1e-8 ? log1p(x) / x : 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}

static double helper2(double x)
{
	return fabs(x) > 1e-8 ? expm1(x) / x : 1 + x * 0.5 * (1 + x / 3 * (1 + 0.25 * x));
}

static double zipf_h(double theta, double x)
{
	return exp(-theta * log(x));
}

static double zipf_hint(double theta, double x)
{
	double lx = log(x);

	return helper2((1 - theta) * lx) * lx;
}

static double zipf_hint_inv(double theta, double x)
{
	double t = x * (1 - theta);

	if (t < -1)
		t = -1;
	return exp(helper1(t) * x);
}

static uint64_t zipf_rank(const struct distrib *d, uint64_t *rng)
{
	double theta = d->spec.param;

	for (;;) {
		double u = d->h_n + unit(rng) * (d->h_x1 - d->h_n);
		double x = zipf_hint_inv(theta, u);
		double k = floor(x + 0.5);

		if (k < 1)
			k = 1;
		else if (k > (double)d->n)
			k = (double)d->n;
		if (k - x <= d->s || u >= zipf_hint(theta, k + 0.5) - zipf_h(theta, k))
			return (uint64_t)k - 1;
	}
}

/* Box-Muller, redrawn outside the range (at most a few times: DEV <= 100). */
static uint64_t normal_rank(const struct distrib *d, uint64_t *rng)
{
	double mid = ((double)d->n - 1) / 2, dev = (double)d->n * d->spec.param / 100;
	double x = mid;

	for (int i = 0; i < 64; i++) {
		double u1 = 1 - unit(rng), u2 = unit(rng);

		x = floor(mid + dev * sqrt(-2 * log(u1)) * cos(2 * M_PI * u2) + 0.5);
		if (x >= 0 && x < (double)d->n)
			return (uint64_t)x;
	}
	return (uint64_t)mid;
}

static uint64_t mix64(uint64_t x)
{
	uint64_t s = x;

	return distrib_rand(&s);
}

void distrib_init(struct distrib *d, const struct distrib_spec *spec, uint64_t n, uint64_t seed)
{
	unsigned bits = 0;

	memset(d, 0, sizeof(*d));
	d->spec = *spec;
	d->n = n ? n : 1;
	while (bits < 64 && (UINT64_C(1) << bits) < d->n)
		bits++;
	d->mask = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
	d->shift = bits / 2 + 1;
	d->mul1 = mix64(seed ^ UINT64_C(0x243f6a8885a308d3)) | 1;
	d->mul2 = mix64(seed ^ UINT64_C(0x13198a2e03707344)) | 1;
	d->key = mix64(seed ^ UINT64_C(0xa4093822299f31d0));
	if (spec->kind == DISTRIB_PARETO)
		d->pow = log(spec->param) / log(1 - spec->param);
	if (spec->kind == DISTRIB_ZIPF) {
		double theta = spec->param;

		d->h_x1 = zipf_hint(theta, 1.5) - 1;
		d->h_n = zipf_hint(theta, (double)d->n + 0.5);
		d->s = 2 - zipf_hint_inv(theta, zipf_hint(theta, 2.5) - zipf_h(theta, 2));
	}
}

uint64_t distrib_rank(const struct distrib *d, uint64_t *rng)
{
	uint64_t r;

	switch (d->spec.kind) {
	case DISTRIB_ZIPF:
		return zipf_rank(d, rng);
	case DISTRIB_PARETO:
		r = (uint64_t)((double)(d->n - 1) * pow(unit(rng), d->pow));
		return r < d->n ? r : d->n - 1;
	case DISTRIB_NORMAL:
		return normal_rank(d, rng);
	default:
		return below(rng, d->n);
	}
}

/*
 * A keyed bijection of [0, 2^bits) (odd multiplies, xorshifts and an xor
 * are each one), walked until it lands below n: fewer than two steps on
 * average, as 2^bits < 2n.
 */
uint64_t distrib_scatter(const struct distrib *d, uint64_t rank)
{
	unsigned sh = d->shift;
	uint64_t x = rank;

	do {
		x = ((x ^ d->key) * d->mul1) & d->mask;
		x ^= x >> sh;
		x = (x * d->mul2) & d->mask;
		x ^= x >> sh;
		x = ((x + d->key) * d->mul1) & d->mask;
		x ^= x >> sh;
	} while (x >= d->n);
	return x;
}

uint64_t distrib_next(const struct distrib *d, uint64_t *rng)
{
	uint64_t rank = distrib_rank(d, rng);

	return d->spec.kind == DISTRIB_RANDOM ? rank : distrib_scatter(d, rank);
}

/* One side of --bssplit ("4k/50:64k/30:1m"); an empty one leaves d->n at 0. */
static int split_side(const char *s, size_t slen, uint64_t max_bs, struct bssplit_dir *d,
		      char *err, size_t len)
{
	char buf[512];
	unsigned missing = 0, sum = 0;
	char *save = NULL, *tok;

	memset(d, 0, sizeof(*d));
	if (slen == 0)
		return 0;
	if (slen >= sizeof(buf)) {
		snprintf(err, len, "is too long");
		return -EINVAL;
	}
	memcpy(buf, s, slen);
	buf[slen] = '\0';
	if (buf[0] == ':' || buf[slen - 1] == ':' || strstr(buf, "::")) {
		snprintf(err, len, "has an empty entry");
		return -EINVAL;
	}
	for (tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
		char *slash = strchr(tok, '/');
		uint64_t pct = UINT64_MAX;

		if (d->n == BSSPLIT_MAX) {
			snprintf(err, len, "has more than %d sizes", BSSPLIT_MAX);
			return -EINVAL;
		}
		if (slash) {
			*slash = '\0';
			if (units_parse_uint(slash + 1, 0, 100, &pct)) {
				snprintf(err, len, "has '%s', not a percentage (0 to 100)", slash + 1);
				return -EINVAL;
			}
		}
		if (units_parse_size(tok, &d->bs[d->n]) || d->bs[d->n] == 0) {
			snprintf(err, len, "has '%s', not a size", tok);
			return -EINVAL;
		}
		if (d->bs[d->n] > max_bs) {
			snprintf(err, len, "has %s, larger than a block may be", tok);
			return -EINVAL;
		}
		if (pct == UINT64_MAX)
			missing++;
		else
			sum += (unsigned)pct;
		d->pct[d->n++] = pct == UINT64_MAX ? 101 : (unsigned)pct;
	}
	if (sum > 100 || (!missing && sum != 100)) {
		snprintf(err, len, "has percentages adding to %u, not 100", sum);
		return -EINVAL;
	}
	for (unsigned i = 0, k = 0; i < d->n; i++) {
		if (d->pct[i] != 101)
			continue;
		d->pct[i] = (100 - sum) / missing + (k++ < (100 - sum) % missing ? 1 : 0);
	}
	return 0;
}

int bssplit_parse(const char *s, uint64_t max_bs, struct bssplit *b, char *err, size_t len)
{
	const char *comma = strchr(s, ',');
	int rc;

	if (!comma) {
		rc = split_side(s, strlen(s), max_bs, &b->dir[0], err, len);
		b->dir[1] = b->dir[0];
	} else if (strchr(comma + 1, ',')) {
		snprintf(err, len, "has more than two sides (READS,WRITES)");
		return -EINVAL;
	} else {
		rc = split_side(s, (size_t)(comma - s), max_bs, &b->dir[0], err, len);
		if (rc == 0)
			rc = split_side(comma + 1, strlen(comma + 1), max_bs, &b->dir[1], err, len);
	}
	if (rc == 0 && b->dir[0].n == 0 && b->dir[1].n == 0) {
		snprintf(err, len, "has no size");
		rc = -EINVAL;
	}
	return rc;
}

uint64_t bssplit_max(const struct bssplit_dir *d)
{
	uint64_t m = 0;

	for (unsigned i = 0; i < d->n; i++)
		if (d->bs[i] > m)
			m = d->bs[i];
	return m;
}

uint64_t bssplit_min(const struct bssplit *b)
{
	uint64_t m = 0;

	for (unsigned k = 0; k < 2; k++)
		for (unsigned i = 0; i < b->dir[k].n; i++)
			if (m == 0 || b->dir[k].bs[i] < m)
				m = b->dir[k].bs[i];
	return m;
}

uint64_t bssplit_draw(const struct bssplit_dir *d, uint64_t *rng)
{
	unsigned r = (unsigned)below(rng, 100), acc = 0;

	for (unsigned i = 0; i < d->n; i++) {
		acc += d->pct[i];
		if (r < acc)
			return d->bs[i];
	}
	return d->bs[d->n - 1];
}
