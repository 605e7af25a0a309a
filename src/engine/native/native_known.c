/*
 * native_known: what NFSv3 set-ups on one engine thread learned from a server
 * (the export's and the work directory's handles, rtmax and wtmax, each file's
 * handle), so that the thread's next connections to it start from there: no
 * MOUNT connection, no FSINFO, no LOOKUPs, just the connect. NFSv3 handles are
 * the server's names for its objects, good on any connection. Each connection
 * set up to a server otherwise asked the same 36 questions (MNT, FSINFO, the
 * directory, 32 files): 18,000 connections sent 650,000 calls before their
 * first read.
 *
 * The first connection to a server learns while the others wait for it; after
 * it, a connection whose files are not all known looks up the missing ones
 * itself, unless another one is looking one of them up: then it waits for
 * that one (so each file is looked up once, and connections with files of
 * their own still set up side by side). A connection that fails hands it on.
 * Only a connection's first set-up uses it: a reconnect asks the server again
 * (a server that restarted may hand out other handles), and so does the
 * engine thread of the set-up phase only live as long as that phase.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "native_call.h"
#include "native_known.h"

struct nat_known {
	bool root_known, root_asking;	/* the export's and directory's handles */
	struct nfs_fh root, dir;
	uint32_t rtmax, wtmax;
	struct nfs_fh *fh;		/* by file id; len 0: not known */
	uint8_t *asking;		/* by file id: a connection is looking it up */
	uint32_t cap;
	struct engine_conn *waiting;	/* linked through kn_next */
};

static struct nat_known *known_of(struct engine_conn *c)
{
	struct engine_thread *t = c->t;

	if (!t->known) {
		t->nknown = c->cfg->nservers ? c->cfg->nservers : 1;
		t->known = calloc(t->nknown, sizeof(*t->known));
		if (!t->known)
			return NULL;
	}
	return c->srv < t->nknown ? &t->known[c->srv] : NULL;
}

/* Room for file ids below c's largest: false when there is no memory. */
static bool room(struct nat_known *k, const struct engine_conn *c)
{
	uint32_t top = 0, cap;
	struct nfs_fh *fh;
	uint8_t *asking;

	for (uint32_t i = 0; i < c->nfiles; i++)
		if (c->file_ids[i] >= top)
			top = c->file_ids[i] + 1;
	if (top <= k->cap)
		return true;
	for (cap = k->cap ? k->cap : 64; cap < top; cap *= 2)
		;
	if (!(fh = realloc(k->fh, cap * sizeof(*fh))))
		return false;
	k->fh = fh;
	if (!(asking = realloc(k->asking, cap)))
		return false;
	k->asking = asking;
	memset(fh + k->cap, 0, (cap - k->cap) * sizeof(*fh));
	memset(asking + k->cap, 0, cap - k->cap);
	k->cap = cap;
	return true;
}

/* Marks (or clears) c's files not known as being asked for. */
static void asking(struct nat_known *k, const struct engine_conn *c, bool on)
{
	for (uint32_t i = 0; i < c->nfiles; i++)
		if (!k->fh[c->file_ids[i]].len)
			k->asking[c->file_ids[i]] = on;
}

enum nat_known_start nat_known_start(struct engine_conn *c)
{
	struct nat_known *k;
	bool missing = false;

	c->kn_use = false;
	if (!c->proto->learns || c->was_ready || !(k = known_of(c)) || !room(k, c))
		return KNOWN_ASK;
	for (uint32_t i = 0; i < c->nfiles; i++) {
		uint32_t id = c->file_ids[i];

		if (!k->fh[id].len && k->asking[id])
			goto wait;	/* another connection is looking it up */
		missing |= !k->fh[id].len;
	}
	if (!k->root_known && k->root_asking)
		goto wait;
	if (missing || !k->root_known) {
		asking(k, c, true);
		c->kn_learner = true;
		c->kn_root = !k->root_known;
		k->root_asking |= c->kn_root;
	}
	c->kn_use = k->root_known;
	return c->kn_use ? KNOWN_USE : KNOWN_ASK;
wait:
	c->kn_next = k->waiting;
	k->waiting = c;
	c->kn_waits = true;
	return KNOWN_WAIT;
}

bool nat_known_apply(struct engine_conn *c)
{
	const struct nat_known *k = known_of(c);

	if (!k || !k->root_known)
		return false;
	c->root = k->root;
	c->dir = k->dir;
	c->rtmax = k->rtmax;
	c->wtmax = k->wtmax;
	nat_step(c, NAT_STEP_MOUNT);
	for (uint32_t i = 0; i < c->nfiles; i++) {
		uint32_t id = c->file_ids[i];

		if (id < k->cap && k->fh[id].len) {
			c->files[i].fh = k->fh[id];
			c->files[i].open = true;
			nat_step(c, NAT_STEP_OPEN);
		}
	}
	return true;
}

/* Keeps c's handles in k. */
static void learn(struct nat_known *k, const struct engine_conn *c)
{
	if (!k->root_known) {
		k->root = c->root;
		k->dir = c->dir;
		k->rtmax = c->rtmax;
		k->wtmax = c->wtmax;
		k->root_known = true;
	}
	for (uint32_t i = 0; i < c->nfiles; i++)
		if (c->files[i].open)
			k->fh[c->file_ids[i]] = c->files[i].fh;
}

void nat_known_done(struct engine_conn *c, bool ok)
{
	struct nat_known *k;
	struct engine_conn *w;

	c->kn_use = false;
	if (ok)
		c->was_ready = true;
	if (!c->kn_learner || !c->t || !(k = known_of(c))) {
		c->kn_learner = false;
		return;
	}
	c->kn_learner = false;
	asking(k, c, false);
	if (c->kn_root)
		k->root_asking = false;
	c->kn_root = false;
	if (ok)
		learn(k, c);
	/* Those waiting look again: what they need may be known now, or theirs to ask. */
	w = k->waiting;
	k->waiting = NULL;
	while (w) {
		struct engine_conn *next = w->kn_next;

		w->kn_next = NULL;
		w->kn_waits = false;
		if (nat_known_go(w, nat_known_start(w)) < 0)
			nat_setup_done(w, false);
		w = next;
	}
}

int nat_known_go(struct engine_conn *c, enum nat_known_start how)
{
	bool mount = how == KNOWN_ASK && c->proto->mount && nat_mount_apart(c->eng, c->srv);
	int rc;

	c->state = mount ? NS_MOUNT_CONNECT : NS_CONNECT;
	if (how == KNOWN_WAIT)
		return 0;	/* dialled when the connection that asks is done */
	rc = nat_dial(c, mount);
	if (rc < 0)
		c->state = NS_DOWN;
	return rc;
}

void nat_known_forget(struct engine_conn *c)
{
	struct nat_known *k;
	struct engine_conn **p;

	if (c->kn_learner && c->t)
		nat_known_done(c, false);	/* dropped while learning: the next one learns */
	c->kn_learner = false;
	if (!c->kn_waits || !c->t || !(k = known_of(c)))
		return;
	for (p = &k->waiting; *p; p = &(*p)->kn_next)
		if (*p == c) {
			*p = c->kn_next;
			break;
		}
	c->kn_next = NULL;
	c->kn_waits = false;
}

void nat_known_free(struct engine_thread *t)
{
	for (unsigned i = 0; t->known && i < t->nknown; i++) {
		free(t->known[i].fh);
		free(t->known[i].asking);
	}
	free(t->known);
	t->known = NULL;
}
