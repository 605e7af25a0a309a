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
 * The first connection to a server learns while the others wait for it (they
 * start when it is ready; if it fails, the next one learns). A connection's
 * files not known yet are looked up as before, and what it learns is kept too.
 * Only a connection's first set-up uses it: a reconnect asks the server again
 * (a server that restarted may hand out other handles), and so does the
 * engine thread of the set-up phase only live as long as that phase.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "native.h"

struct nat_known {
	enum { KN_NONE, KN_LEARNING, KN_READY } state;
	struct nfs_fh root, dir;
	uint32_t rtmax, wtmax;
	struct nfs_fh *fh;		/* by file id; len 0: not known */
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

enum nat_known_start nat_known_start(struct engine_conn *c)
{
	struct nat_known *k;

	c->kn_use = false;
	if (nat_v4(c) || c->was_ready || !(k = known_of(c)))
		return KNOWN_ASK;
	switch (k->state) {
	case KN_NONE:
		k->state = KN_LEARNING;
		c->kn_learner = true;
		return KNOWN_ASK;
	case KN_LEARNING:
		c->kn_next = k->waiting;
		k->waiting = c;
		c->kn_waits = true;
		return KNOWN_WAIT;
	default:
		c->kn_use = true;
		return KNOWN_USE;
	}
}

bool nat_known_apply(struct engine_conn *c)
{
	const struct nat_known *k = known_of(c);

	if (!k || k->state != KN_READY)
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
	if (k->state != KN_READY) {
		k->root = c->root;
		k->dir = c->dir;
		k->rtmax = c->rtmax;
		k->wtmax = c->wtmax;
		k->state = KN_READY;
	}
	for (uint32_t i = 0; i < c->nfiles; i++) {
		uint32_t id = c->file_ids[i];

		if (!c->files[i].open)
			continue;
		if (id >= k->cap) {
			uint32_t cap = k->cap ? k->cap : 64;
			struct nfs_fh *fh;

			while (cap <= id)
				cap *= 2;
			if (!(fh = realloc(k->fh, cap * sizeof(*fh))))
				return;	/* not kept: the next ones ask */
			memset(fh + k->cap, 0, (cap - k->cap) * sizeof(*fh));
			k->fh = fh;
			k->cap = cap;
		}
		k->fh[id] = c->files[i].fh;
	}
}

void nat_known_done(struct engine_conn *c, bool ok)
{
	struct nat_known *k;
	struct engine_conn *w;
	bool learner = c->kn_learner;

	c->kn_learner = false;
	c->kn_use = false;
	if (ok)
		c->was_ready = true;
	if (nat_v4(c) || !c->t || !(k = known_of(c)))
		return;
	if (ok)
		learn(k, c);
	else if (learner)
		k->state = KN_NONE;
	if (!learner)
		return;
	/* Ready: those waiting start from it. Failed: the first of them learns. */
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
	for (unsigned i = 0; t->known && i < t->nknown; i++)
		free(t->known[i].fh);
	free(t->known);
	t->known = NULL;
}
