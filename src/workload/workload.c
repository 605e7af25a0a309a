/*
 * workload: offsets, mix and file mapping for one connection's stream.
 * See include/workload.h for the mapping rules.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"

static const char *const mode_names[] = {
	[WL_READ] = "read", [WL_WRITE] = "write",
	[WL_RANDREAD] = "randread", [WL_RANDWRITE] = "randwrite",
	[WL_READWRITE] = "readwrite", [WL_RANDRW] = "randrw",
};

void wl_file_name(const char *dir, uint32_t id, char *buf, size_t len)
{
	if (dir)
		snprintf(buf, len, "/%s/file.%06u", dir, id);
	else
		snprintf(buf, len, "file.%06u", id);
}

void wl_held_name(const char *dir, uint32_t conn, uint32_t i, char *buf, size_t len)
{
	if (dir)
		snprintf(buf, len, "/%s/held.%06u.%06u", dir, conn, i);
	else
		snprintf(buf, len, "held.%06u.%06u", conn, i);
}

const char *wl_mode_name(enum wl_mode m)
{
	return mode_names[m];
}

int wl_mode_parse(const char *s, enum wl_mode *m)
{
	for (size_t i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++) {
		if (strcmp(s, mode_names[i]) == 0) {
			*m = (enum wl_mode)i;
			return 0;
		}
	}
	return -EINVAL;
}

bool wl_mode_random(enum wl_mode m)
{
	return m == WL_RANDREAD || m == WL_RANDWRITE || m == WL_RANDRW;
}

unsigned wl_mode_read_pct(enum wl_mode m, unsigned rwmixread)
{
	switch (m) {
	case WL_READ:
	case WL_RANDREAD:
		return 100;
	case WL_WRITE:
	case WL_RANDWRITE:
		return 0;
	default:
		return rwmixread;
	}
}

uint64_t wl_rand(uint64_t *state)
{
	return distrib_rand(state);
}

/* Uniform in [0, n) without modulo bias worth measuring (Lemire). */
static uint64_t rand_below(uint64_t *state, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)wl_rand(state) * n) >> 64);
}

static uint64_t nblocks(uint64_t bytes, uint64_t bs)
{
	return (bytes + bs - 1) / bs;
}

int wl_stream_init(struct wl_stream *s, uint32_t conn, uint32_t nconns,
		   uint32_t nfiles, uint64_t file_size, uint64_t bs,
		   bool random, unsigned read_pct, uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	s->random = random;
	s->read_pct = read_pct;
	s->bs = bs;
	s->file_size = file_size;
	s->budget = UINT64_MAX;
	s->own_slice = true;
	s->rng = seed ^ (UINT64_C(0x6a09e667f3bcc909) * (conn + 1));
	if (nfiles == 0 || nconns == 0 || conn >= nconns)
		return 0;

	if (nfiles >= nconns) {
		uint32_t n = (nfiles - conn + nconns - 1) / nconns;

		s->ranges = calloc(n, sizeof(*s->ranges));
		if (!s->ranges)
			return -ENOMEM;
		for (uint32_t i = 0; i < n; i++)
			s->ranges[i] = (struct wl_range){ conn + i * nconns, 0, file_size };
		s->nranges = n;
		return 0;
	}

	s->ranges = calloc(1, sizeof(*s->ranges));
	if (!s->ranges)
		return -ENOMEM;
	uint32_t file = conn % nfiles;
	uint64_t sharers = (nconns - file + nfiles - 1) / nfiles;
	uint64_t k = conn / nfiles, nb = nblocks(file_size, bs);
	uint64_t start = k * nb / sharers * bs, end = (k + 1) * nb / sharers * bs;

	if (end > file_size)
		end = file_size;
	/* More sharers than blocks: this one gets no slice of its own. */
	if (start >= end)
		s->own_slice = false;
	if (random || start >= end) {
		start = 0;
		end = file_size;
	}
	s->ranges[0] = (struct wl_range){ file, start, end };
	s->nranges = 1;
	s->pos = start;
	return 0;
}

void wl_stream_destroy(struct wl_stream *s)
{
	free(s->ranges);
	s->ranges = NULL;
	s->nranges = 0;
}

uint64_t wl_stream_pass_bytes(const struct wl_stream *s)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < s->nranges; i++)
		sum += s->ranges[i].end - s->ranges[i].start;
	return sum;
}

void wl_stream_shape(struct wl_stream *s, const struct distrib_spec *spec,
		     const struct bssplit *split, uint64_t seed)
{
	uint64_t grain = split ? bssplit_min(split) : 0;

	s->split = split && grain ? split : NULL;
	s->grain = s->split ? grain : s->bs;
	s->skew = spec && spec->kind != DISTRIB_RANDOM;
	if (s->skew)
		distrib_init(&s->dist, spec, (uint64_t)s->nranges * nblocks(s->file_size, s->grain),
			     seed);
}

/* Sequential: the next size bytes of the current range, empty ranges (files the
 * layout phase leaves alone) skipped; NULL when every range is done. */
static const struct wl_range *seq_next(struct wl_stream *s, uint64_t size, uint64_t *offset)
{
	for (uint32_t tries = 0; s->pos >= s->ranges[s->cur].end; tries++) {
		if (tries == s->nranges)
			return NULL;
		s->cur = (s->cur + 1) % s->nranges;
		s->pos = s->ranges[s->cur].start;
	}
	*offset = s->pos;
	s->pos += size;
	return &s->ranges[s->cur];
}

/* The op's length (at most size, the bytes left, the budget) and its file. */
static void finish(struct wl_stream *s, struct wl_op *op, const struct wl_range *r,
		   uint64_t left, uint64_t size)
{
	op->len = (uint32_t)(left < size ? left : size);
	if (op->len > s->budget)
		op->len = (uint32_t)s->budget;
	if (s->budget != UINT64_MAX)
		s->budget -= op->len;
	op->file = r->file;
	op->range = (uint32_t)(r - s->ranges);
}

/* With a skew or a size mix: the direction first, its size, then where. */
static bool next_shaped(struct wl_stream *s, struct wl_op *op)
{
	const struct bssplit_dir *d;
	const struct wl_range *r;
	uint64_t size = s->bs, left;

	op->type = OP_WRITE;
	if (s->read_pct == 100 || (s->read_pct > 0 && rand_below(&s->rng, 100) < s->read_pct))
		op->type = OP_READ;
	d = s->split ? &s->split->dir[op->type == OP_READ ? 0 : 1] : NULL;
	if (d && d->n)
		size = bssplit_draw(d, &s->rng);
	if (s->random) {
		uint64_t per = nblocks(s->file_size, s->grain);
		uint64_t g = s->skew ? distrib_next(&s->dist, &s->rng) :
			rand_below(&s->rng, per * s->nranges);

		r = &s->ranges[g / per];
		op->offset = (g % per) * s->grain / size * size;
		left = s->file_size - op->offset;
	} else {
		if (!(r = seq_next(s, size, &op->offset)))
			return false;
		left = r->end - op->offset;
	}
	finish(s, op, r, left, size);
	return true;
}

bool wl_next(struct wl_stream *s, struct wl_op *op)
{
	const struct wl_range *r;
	uint64_t left;

	if (s->nranges == 0 || s->budget == 0)
		return false;
	if (s->skew || s->split)
		return next_shaped(s, op);
	if (s->random) {
		r = &s->ranges[s->nranges == 1 ? 0 : rand_below(&s->rng, s->nranges)];
		op->offset = rand_below(&s->rng, nblocks(s->file_size, s->bs)) * s->bs;
	} else if (!(r = seq_next(s, s->bs, &op->offset))) {
		return false;
	}
	left = (s->random ? s->file_size : r->end) - op->offset;
	finish(s, op, r, left, s->bs);
	op->type = OP_WRITE;
	if (s->read_pct == 100 || (s->read_pct > 0 && rand_below(&s->rng, 100) < s->read_pct))
		op->type = OP_READ;
	return true;
}
