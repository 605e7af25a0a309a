/*
 * slot4: an NFSv4.1 session's slot table (RFC 8881 section 2.10.6), or one
 * thread's share of it. Pure logic.
 *
 * One request per slot at a time. A slot's sequence id advances only when
 * the server's SEQUENCE on it succeeded (or failed past SEQUENCE: the slot
 * was used); after SEQUENCE itself failed (or no reply came) it is reused
 * with the same sequence id, as the RFC says for a retry. The server's
 * target_highest_slotid shrinks or widens what is handed out; slots above
 * it are not given until it grows again (those in use finish normally).
 *
 * A session whose connections run on several threads gives each thread a
 * table of its own that owns some of the session's slots (slot4_move): a
 * thread hands out, and advances the sequence ids of, only the slots its
 * table owns, so the threads share no memory on the I/O path.
 */
#ifndef NFSLOAD_SLOT4_H
#define NFSLOAD_SLOT4_H

#include <stdbool.h>
#include <stdint.h>

#define SLOT4_MAX 1024

struct slot4_table {
	uint32_t nslots;		/* granted by CREATE_SESSION (ca_maxrequests) */
	uint32_t target;		/* slots below this may be handed out */
	uint32_t in_use;		/* slots handed out now */
	uint32_t highest_used;		/* highest slot id handed out, for SEQUENCE */
	uint32_t nown;			/* slots this table owns */
	uint32_t first_own;		/* the lowest of them (kept whatever the target) */
	uint32_t highest_other;		/* the highest slot another table owns, 0: none */
	uint32_t seq[SLOT4_MAX];	/* next sequence id per slot */
	uint64_t busy[SLOT4_MAX / 64];
	uint64_t own[SLOT4_MAX / 64];	/* the slots this table may hand out */
};

/* A fresh table owning all n slots (1..SLOT4_MAX; clamped), every sequence id 1. */
void slot4_init(struct slot4_table *t, uint32_t n);
/* The lowest free slot owned and below target, marked busy, its sequence id in
 * *seqid and the highest slot id the session may have in use (this table's
 * highest in use, this one included, or the highest another table owns) in
 * *highest; -1: none free. */
int slot4_get(struct slot4_table *t, uint32_t *seqid, uint32_t *highest);
/* The request on slot ended. used: the server processed SEQUENCE on it
 * (the sequence id advances); false: it did not (no reply, or SEQUENCE failed). */
void slot4_put(struct slot4_table *t, uint32_t slot, bool used);
/* From a SEQUENCE reply: the server's highest_slotid and target_highest_slotid.
 * A table keeps its lowest slot under any target (another thread's share may
 * hold every slot the target leaves); the server's highest_slotid is the limit. */
void slot4_update(struct slot4_table *t, uint32_t highest_slotid, uint32_t target_highest);
/* Free slots available now. */
uint32_t slot4_free(const struct slot4_table *t);
/*
 * The slots [lo, hi) that from owns become to's, with their sequence ids and
 * busy state; to, if it owns nothing yet, takes from's size and target first.
 * Both tables belong to one session and to the calling thread. Returns how
 * many of the moved slots were busy (requests lost: they stay busy in to).
 */
uint32_t slot4_move(struct slot4_table *to, struct slot4_table *from, uint32_t lo, uint32_t hi);

#endif
