/*
 * slot4: the slot table of an NFSv4.1 session's fore channel. It decides
 * which slot and sequence id a request carries and what highest_slotid it
 * reports; sending, SEQUENCE's encoding and what a failed SEQUENCE means
 * belong to the engine. A busy bitmap makes the lowest free slot a few
 * word scans (SLOT4_MAX / 64 words at most).
 */
#include <string.h>

#include "slot4.h"

#define WORDS(n) (((n) + 63) / 64)

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
	for (i = 0; i < n; i++)
		t->seq[i] = 1;
}

static bool busy(const struct slot4_table *t, uint32_t slot)
{
	return t->busy[slot / 64] >> (slot % 64) & 1;
}

/* The highest busy slot, 0 when none is. */
static uint32_t highest_busy(const struct slot4_table *t)
{
	uint32_t w = WORDS(t->nslots);

	while (w--)
		if (t->busy[w])
			return w * 64 + 63 - (uint32_t)__builtin_clzll(t->busy[w]);
	return 0;
}

int slot4_get(struct slot4_table *t, uint32_t *seqid, uint32_t *highest)
{
	uint32_t w, slot;

	for (w = 0; w < WORDS(t->target); w++) {
		uint64_t avail = ~t->busy[w];
		uint32_t below = t->target - w * 64;	/* slots of this word below target */

		if (below < 64)
			avail &= (UINT64_C(1) << below) - 1;
		if (avail) {
			slot = w * 64 + (uint32_t)__builtin_ctzll(avail);
			t->busy[w] |= UINT64_C(1) << (slot % 64);
			if (t->in_use++ == 0 || slot > t->highest_used)
				t->highest_used = slot;
			*seqid = t->seq[slot];
			*highest = t->highest_used;
			return (int)slot;
		}
	}
	return -1;
}

void slot4_put(struct slot4_table *t, uint32_t slot, bool used)
{
	/* A slot not handed out (a caller's double put) changes nothing. */
	if (slot >= t->nslots || !busy(t, slot))
		return;
	t->busy[slot / 64] &= ~(UINT64_C(1) << (slot % 64));
	t->in_use--;
	if (used)
		t->seq[slot]++;		/* 0xffffffff wraps to 0, as RFC 8881 2.10.6.1 says */
	if (slot == t->highest_used)
		t->highest_used = highest_busy(t);
}

void slot4_update(struct slot4_table *t, uint32_t highest_slotid, uint32_t target_highest)
{
	/* Both are slot ids: the count is one more. The server's highest_slotid
	 * is a hard limit, its target a wish; either narrows what is given. */
	uint64_t n = (uint64_t)(highest_slotid < target_highest ? highest_slotid :
				target_highest) + 1;

	t->target = n < t->nslots ? (uint32_t)n : t->nslots;
}

uint32_t slot4_free(const struct slot4_table *t)
{
	uint32_t w, used = 0;

	for (w = 0; w < WORDS(t->target); w++) {
		uint64_t b = t->busy[w];
		uint32_t below = t->target - w * 64;

		if (below < 64)
			b &= (UINT64_C(1) << below) - 1;
		used += (uint32_t)__builtin_popcountll(b);
	}
	return t->target - used;
}
