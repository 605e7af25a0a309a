/*
 * slot4: the slot table of an NFSv4.1 session's fore channel, or a thread's
 * share of it. It decides which slot and sequence id a request carries and
 * what highest_slotid it reports; sending, SEQUENCE's encoding and what a
 * failed SEQUENCE means belong to the engine. Busy and owned bitmaps make
 * the lowest free slot a few word scans (SLOT4_MAX / 64 words at most).
 */
#include <string.h>

#include "slot4.h"

#define WORDS(n) (((n) + 63) / 64)

static bool bit(const uint64_t *map, uint32_t slot)
{
	return map[slot / 64] >> (slot % 64) & 1;
}

/* The highest set bit of map below n, 0 when none is. */
static uint32_t highest_bit(const uint64_t *map, uint32_t n)
{
	uint32_t w = WORDS(n);

	while (w--)
		if (map[w])
			return w * 64 + 63 - (uint32_t)__builtin_clzll(map[w]);
	return 0;
}

/* nown, first_own and highest_other from the owned bitmap. */
static void shape(struct slot4_table *t)
{
	uint32_t w;

	t->nown = 0;
	t->first_own = UINT32_MAX;
	t->highest_other = 0;
	for (w = 0; w < WORDS(t->nslots); w++) {
		uint64_t valid = t->nslots - w * 64 < 64 ?
				 (UINT64_C(1) << (t->nslots - w * 64)) - 1 : ~UINT64_C(0);
		uint64_t mine = t->own[w] & valid, others = ~t->own[w] & valid;

		t->nown += (uint32_t)__builtin_popcountll(mine);
		if (mine && t->first_own == UINT32_MAX)
			t->first_own = w * 64 + (uint32_t)__builtin_ctzll(mine);
		if (others)
			t->highest_other = w * 64 + 63 - (uint32_t)__builtin_clzll(others);
	}
	if (t->first_own == UINT32_MAX)
		t->first_own = 0;
}

void slot4_init(struct slot4_table *t, uint32_t n)
{
	uint32_t i;

	if (n < 1)
		n = 1;
	if (n > SLOT4_MAX)
		n = SLOT4_MAX;
	memset(t, 0, sizeof(*t));
	t->nslots = n;
	t->target = n;
	for (i = 0; i < n; i++) {
		t->seq[i] = 1;
		t->own[i / 64] |= UINT64_C(1) << (i % 64);
	}
	shape(t);
}

int slot4_get(struct slot4_table *t, uint32_t *seqid, uint32_t *highest)
{
	uint32_t w, slot;

	for (w = 0; w < WORDS(t->target); w++) {
		uint64_t avail = ~t->busy[w] & t->own[w];
		uint32_t below = t->target - w * 64;	/* slots of this word below target */

		if (below < 64)
			avail &= (UINT64_C(1) << below) - 1;
		if (avail) {
			slot = w * 64 + (uint32_t)__builtin_ctzll(avail);
			t->busy[w] |= UINT64_C(1) << (slot % 64);
			if (t->in_use++ == 0 || slot > t->highest_used)
				t->highest_used = slot;
			*seqid = t->seq[slot];
			/* Never below a slot another thread may have in flight: the server
			 * may drop the cached replies of slots above what is reported. */
			*highest = t->highest_used > t->highest_other ? t->highest_used :
				   t->highest_other;
			return (int)slot;
		}
	}
	return -1;
}

void slot4_put(struct slot4_table *t, uint32_t slot, bool used)
{
	/* A slot not handed out (a caller's double put) changes nothing. */
	if (slot >= t->nslots || !bit(t->busy, slot))
		return;
	t->busy[slot / 64] &= ~(UINT64_C(1) << (slot % 64));
	t->in_use--;
	if (used)
		t->seq[slot]++;		/* 0xffffffff wraps to 0, as RFC 8881 2.10.6.1 says */
	if (slot == t->highest_used)
		t->highest_used = highest_bit(t->busy, t->nslots);
}

void slot4_update(struct slot4_table *t, uint32_t highest_slotid, uint32_t target_highest)
{
	/* Both are slot ids: the count is one more. The server's highest_slotid
	 * is a hard limit, its target a wish; either narrows what is given. */
	uint64_t hard = (uint64_t)highest_slotid + 1;
	uint64_t n = (uint64_t)target_highest + 1 < hard ? (uint64_t)target_highest + 1 : hard;

	if (n <= t->first_own && t->first_own < hard)
		n = (uint64_t)t->first_own + 1;
	t->target = n < t->nslots ? (uint32_t)n : t->nslots;
}

uint32_t slot4_free(const struct slot4_table *t)
{
	uint32_t w, n = 0;

	for (w = 0; w < WORDS(t->target); w++) {
		uint64_t b = ~t->busy[w] & t->own[w];
		uint32_t below = t->target - w * 64;

		if (below < 64)
			b &= (UINT64_C(1) << below) - 1;
		n += (uint32_t)__builtin_popcountll(b);
	}
	return n;
}

uint32_t slot4_move(struct slot4_table *to, struct slot4_table *from, uint32_t lo, uint32_t hi)
{
	uint32_t slot, lost = 0;

	if (!to->nown) {
		memset(to, 0, sizeof(*to));
		to->nslots = from->nslots;
		to->target = from->target;
	}
	if (hi > from->nslots)
		hi = from->nslots;
	for (slot = lo; slot < hi && slot < to->nslots; slot++) {
		uint64_t m = UINT64_C(1) << (slot % 64);

		if (!bit(from->own, slot))
			continue;
		from->own[slot / 64] &= ~m;
		to->own[slot / 64] |= m;
		to->seq[slot] = from->seq[slot];
		if (bit(from->busy, slot)) {
			from->busy[slot / 64] &= ~m;
			from->in_use--;
			to->busy[slot / 64] |= m;
			to->in_use++;
			lost++;
		}
	}
	from->highest_used = highest_bit(from->busy, from->nslots);
	to->highest_used = highest_bit(to->busy, to->nslots);
	shape(from);
	shape(to);
	return lost;
}
