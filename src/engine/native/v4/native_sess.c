/*
 * NFSv4.1 sessions shared by several connections (trunking, as the
 * kernel's nconnect does it): who creates the session, who waits for it,
 * the slot table's queue of waiting requests, how a session's slots are
 * shared out between the threads its members run on, and what one
 * member's failure does to the others.
 *
 * A session is one share at set-up (every member on the set-up loop). When
 * the members are handed to their worker threads (nat_sess_thread, on the
 * main thread before those threads run), each thread gets a share of its
 * own: a copy of the client's and session's identity, its members, and the
 * slots of their slices of the slot table (member k of M: slots [k N / M,
 * (k+1) N / M)), with their sequence ids. From then on a share is touched
 * only by its thread, so nothing here locks. A share that loses its session
 * (the server says so, or its slots are all lost) re-makes one of its own
 * for its members; the other threads' shares go on with theirs. The group
 * ties the shares together again for teardown, after the threads ended.
 * The slot counts for the report are the engine instance's atomics,
 * touched only when a session is made.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native_sess.h"

/* The members of one --connections-per-session group and their shares. */
struct nat_sess_group {
	struct engine_conn **members;	/* in connection order; NULL: freed */
	unsigned nmembers, cap, refs;
	struct nat_session **shares;	/* in use: one per thread its members run on */
	unsigned nshares;
	struct nat_session **spare;	/* made with the group, for the threads to come */
	unsigned nspare;
};


static void share_release(struct nat_session *s)
{
	if (!s)
		return;
	free(s->members);
	free(s->wait);
	free(s);
}

static struct nat_session *share_alloc(struct nat_sess_group *g, unsigned iodepth,
				       struct nat_engine *eng)
{
	struct nat_session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->group = g;
	s->eng = eng;
	s->members = calloc(g->cap, sizeof(*s->members));
	s->wait_cap = g->cap * iodepth + 1;
	s->wait = calloc(s->wait_cap, sizeof(*s->wait));
	if (!s->members || !s->wait) {
		share_release(s);
		return NULL;
	}
	return s;
}

static void group_free(struct nat_sess_group *g)
{
	while (g->nspare)
		share_release(g->spare[--g->nspare]);
	free(g->members);
	free(g->shares);
	free(g->spare);
	free(g);
}

/*
 * A new group of per members and its first share (set-up's); a share for
 * each thread its members may run on is made now too, so that handing them
 * to their threads cannot fail.
 */
static struct nat_session *group_new(unsigned per, unsigned threads, unsigned iodepth,
				     struct nat_engine *eng)
{
	/* A lone member takes its share along (nat_sess_thread): no spare needed. */
	unsigned n = per < 2 ? 0 : per < threads ? per : threads;
	struct nat_sess_group *g = calloc(1, sizeof(*g));
	struct nat_session *s;

	if (!g)
		return NULL;
	g->cap = per;
	g->members = calloc(per, sizeof(*g->members));
	g->shares = calloc(n + 1, sizeof(*g->shares));
	g->spare = calloc(n + 1, sizeof(*g->spare));
	if (!g->members || !g->shares || !g->spare)
		goto fail;
	while (g->nspare < n) {
		if (!(s = share_alloc(g, iodepth, eng)))
			goto fail;
		g->spare[g->nspare++] = s;
	}
	if (!(s = share_alloc(g, iodepth, eng)))
		goto fail;
	g->shares[g->nshares++] = s;
	return s;
fail:
	group_free(g);
	return NULL;
}

/* s has no member left. */
static void share_free(struct nat_session *s)
{
	struct nat_sess_group *g = s->group;

	for (unsigned i = 0; i < g->nshares; i++)
		if (g->shares[i] == s)
			g->shares[i] = g->shares[--g->nshares];
	if (s->eng->sess_last == s)
		s->eng->sess_last = NULL;
	share_release(s);
}

/* c into s's members (a place a member left, or a new one). */
static void share_add(struct nat_session *s, struct engine_conn *c)
{
	unsigned i;

	for (i = 0; i < s->nmembers && s->members[i]; i++)
		;
	s->members[i] = c;
	if (i == s->nmembers)
		s->nmembers++;
	s->refs++;
	c->sess = s;
}

/* c out of its share: its requests waiting for a slot are forgotten. */
static void share_remove(struct engine_conn *c)
{
	struct nat_session *s = c->sess;

	for (unsigned i = 0; i < s->nmembers; i++)
		if (s->members[i] == c)
			s->members[i] = NULL;
	for (uint32_t i = 0; i < s->nwait; i++) {
		struct nat_wait *w = &s->wait[(s->wait_head + i) % s->wait_cap];

		if (w->c == c)
			w->c = NULL;
	}
	c->sess = NULL;
	s->refs--;
}

int nat_sess_join(struct engine_conn *c)
{
	unsigned per = c->cfg->opt.conns_per_session ? c->cfg->opt.conns_per_session : 1;
	struct nat_session *s = c->eng->sess_last;

	if (c->id % per == 0 || !s || s->nmembers == per) {
		s = group_new(per, c->cfg->threads ? c->cfg->threads : 1, c->cfg->iodepth, c->eng);
		if (!s)
			return -ENOMEM;
		c->eng->sess_last = s;
	}
	s->group->members[s->group->nmembers++] = c;
	s->group->refs++;
	share_add(s, c);
	return 0;
}

/* Two shares on one session: the same client, and its session up in both. */
static bool same_session(const struct nat_session *a, const struct nat_session *b)
{
	return a->state == SESS_UP && b->state == SESS_UP && a->clientid == b->clientid &&
	       memcmp(a->id, b->id, sizeof(a->id)) == 0;
}

int nat_sess_thread(struct engine_conn *c, const struct engine_thread *t)
{
	struct nat_session *from = c->sess, *to = NULL;
	struct nat_sess_group *g;
	unsigned k, i;

	if (!from || from->t == t)
		return 0;
	g = from->group;
	for (i = 0; i < g->nshares; i++)
		if (g->shares[i]->t == t)
			to = g->shares[i];
	if (!to && from->refs == 1) {
		from->t = t;	/* alone in its share: it takes all of it along */
		return 0;
	}
	if (!to) {
		if (!g->nspare)
			return -ENOSPC;	/* more threads than the group was made for */
		to = g->spare[--g->nspare];
		g->shares[g->nshares++] = to;
		to->t = t;
		to->state = from->state;
		to->clientid = from->clientid;
		to->exchange_seq = from->exchange_seq;
		to->minor = from->minor;
		memcpy(to->id, from->id, sizeof(to->id));
		to->fore = from->fore;
		memcpy(to->owner_name, from->owner_name, sizeof(to->owner_name));
		to->owner_len = from->owner_len;
		to->destroyed = from->destroyed;
	}
	for (k = 0; k < g->nmembers && g->members[k] != c; k++)
		;
	if (from->slots.nslots && same_session(from, to)) {
		uint64_t n = from->slots.nslots, m = g->nmembers;
		uint32_t lost = slot4_move(&to->slots, &from->slots, (uint32_t)(k * n / m),
					   (uint32_t)((k + 1) * n / m));

		/* Requests lost at set-up keep their slots, in the share that has them now. */
		from->slots_lost -= lost < from->slots_lost ? lost : from->slots_lost;
		to->slots_lost += lost;
	}
	share_remove(c);
	share_add(to, c);
	if (!from->refs)
		share_free(from);
	return 0;
}

bool nat_sess_slots_fit(struct engine_conn *c, uint32_t granted)
{
	unsigned n = c->sess->group->nmembers;

	/* Set-up's share, before the members go to their threads: each member's
	 * slice of the slots must hold one at least. */
	if (c->sess->t || c->cfg->threads < 2 || granted >= n)
		return true;
	nat_set_error(c, "CREATE_SESSION: the server grants %u slots, fewer than the session's "
		      "%u connections, which may run on several threads (each needs slots of its "
		      "own): lower --connections-per-session or use --threads 1", granted, n);
	return false;
}

unsigned nat_sess_nshares(const struct nat_session *s)
{
	return s->group->nshares;
}

unsigned nat_sess_nmembers(const struct nat_session *s)
{
	return s->group->nmembers;
}

struct engine_conn *nat_sess_member(const struct nat_session *s, unsigned k)
{
	struct engine_conn *m = k < s->group->nmembers ? s->group->members[k] : NULL;

	return m && m->sess && (m->sess == s || same_session(m->sess, s)) ? m : NULL;
}

void nat_sess_destroyed(struct nat_session *s)
{
	struct nat_sess_group *g = s->group;

	for (unsigned i = 0; i < g->nshares; i++) {
		struct nat_session *o = g->shares[i];

		if (o != s && same_session(o, s)) {
			o->destroyed = true;
			o->state = SESS_NONE;
		}
	}
	s->destroyed = true;
	s->state = SESS_NONE;
}

void nat_sess_leave(struct engine_conn *c)
{
	struct nat_session *s = c->sess;
	struct nat_sess_group *g;

	if (!s)
		return;
	g = s->group;
	share_remove(c);
	for (unsigned i = 0; i < g->nmembers; i++)
		if (g->members[i] == c)
			g->members[i] = NULL;
	g->refs--;
	if (!s->refs)
		share_free(s);
	if (!g->refs)
		group_free(g);
}

int nat_sess_wait(struct engine_conn *c, struct engine_req *req)
{
	struct nat_session *s = c->sess;

	if (s->nwait + 1 >= s->wait_cap)
		return -ENOBUFS;
	s->wait[(s->wait_head + s->nwait++) % s->wait_cap] = (struct nat_wait){ c, req };
	return 0;
}

bool nat_sess_waiting(const struct engine_conn *c)
{
	const struct nat_session *s = c->sess;

	if (s->nwait)
		return true;
	/* A member coming back waits to bind: the next free slot is its (nat_sess_kick),
	 * not taken by a request the others issue from their completions. */
	for (unsigned i = 0; i < s->nmembers && s->nmembers > 1; i++) {
		const struct engine_conn *m = s->members[i];

		if (m && m != c && m->sess_wait && m->state == NS_SETUP)
			return true;
	}
	return false;
}

void nat_sess_kick(struct nat_session *s)
{
	/* A member coming back binds first: its set-up waits on a slot too. */
	for (unsigned i = 0; i < s->nmembers && s->state == SESS_UP; i++) {
		struct engine_conn *m = s->members[i];

		if (m && m->sess_wait && m->state == NS_SETUP && slot4_free(&s->slots)) {
			m->sess_wait = false;
			if (!m->up->bind(m) && m->state != NS_DOWN)
				nat_conn_fail(m);
		}
	}
	while (s->nwait) {
		struct nat_wait *w = &s->wait[s->wait_head];
		struct engine_conn *c = w->c;
		int rc;

		if (!c) {	/* its connection went down */
			s->wait_head = (s->wait_head + 1) % s->wait_cap;
			s->nwait--;
			continue;
		}
		rc = c->up->send_waiting(c, w->req);
		if (rc == -EBUSY)
			return;
		s->wait_head = (s->wait_head + 1) % s->wait_cap;
		s->nwait--;
		if (rc < 0) {
			nat_set_error(c, "cannot send a request: %s", strerror(-rc));
			nat_conn_fail(c);
		}
	}
}

void nat_sess_conn_down(struct engine_conn *c)
{
	struct nat_session *s = c->sess;

	if (!s)
		return;
	for (uint32_t i = 0; i < s->nwait; i++) {
		struct nat_wait *w = &s->wait[(s->wait_head + i) % s->wait_cap];

		if (w->c == c)
			w->c = NULL;
	}
	c->sess_wait = false;
	if (s->state == SESS_CREATING && s->creator == c) {
		s->state = SESS_NONE;
		s->creator = NULL;
		/* The others waited for it: they fail too, and are re-made later. */
		for (unsigned i = 0; i < s->nmembers; i++) {
			struct engine_conn *m = s->members[i];

			if (m && m != c && m->sess_wait) {
				m->sess_wait = false;
				nat_set_error(m, "session set-up failed on another connection: %s",
					      c->error);
				nat_conn_fail(m);
			}
		}
	}
	/* A lone member (of its thread's share) can start afresh: nobody else uses it. */
	if (s->refs == 1)
		s->state = SESS_NONE;
}

void nat_sess_fail_all(struct nat_session *s, const char *why)
{
	nat_sess_fail_others(s, NULL, why);
}

void nat_sess_fail_others(struct nat_session *s, struct engine_conn *keep, const char *why)
{
	char msg[200];

	snprintf(msg, sizeof(msg), "%s", why);
	s->state = SESS_NONE;
	s->creator = NULL;
	for (unsigned i = 0; i < s->nmembers; i++) {
		struct engine_conn *m = s->members[i];

		if (m && m != keep && m->state != NS_DOWN) {
			nat_set_error(m, "%s", msg);
			nat_conn_fail(m);
		}
	}
}

void nat_sess_up(struct nat_session *s)
{
	struct nat_engine *e = s->eng;
	unsigned n = s->slots.nslots;

	s->state = SESS_UP;
	s->destroyed = false;
	__atomic_add_fetch(&e->sessions_made, 1, __ATOMIC_RELAXED);
	__atomic_or_fetch(&e->minors_made, 1u << s->minor, __ATOMIC_RELAXED);
	if (n < __atomic_load_n(&e->slots_min, __ATOMIC_RELAXED))
		__atomic_store_n(&e->slots_min, n, __ATOMIC_RELAXED);
	if (n > __atomic_load_n(&e->slots_max, __ATOMIC_RELAXED))
		__atomic_store_n(&e->slots_max, n, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < s->nmembers; i++) {
		struct engine_conn *m = s->members[i];

		if (m && m->sess_wait && m->state == NS_SETUP) {
			m->sess_wait = false;
			if (!m->up->bind(m) && m->state != NS_DOWN)
				nat_conn_fail(m);
		}
	}
}

void nat_sess_note(const struct nat_engine *e, const struct engine_params *cfg, char *buf, size_t len)
{
	unsigned per = cfg->opt.conns_per_session ? cfg->opt.conns_per_session : 1;
	unsigned lo = __atomic_load_n(&e->slots_min, __ATOMIC_RELAXED);
	unsigned hi = __atomic_load_n(&e->slots_max, __ATOMIC_RELAXED);
	unsigned want = per * cfg->iodepth;
	size_t n;

	buf[0] = '\0';
	if (!hi)
		return;
	n = (size_t)snprintf(buf, len, "%u session%s of %u connection%s, %u", cfg->connections / per,
			     cfg->connections / per == 1 ? "" : "s", per, per == 1 ? "" : "s", lo);
	if (hi != lo && n < len)
		n += (size_t)snprintf(buf + n, len - n, "-%u", hi);
	if (n < len)
		n += (size_t)snprintf(buf + n, len - n, " slots granted each");
	if (want > lo && n < len)
		snprintf(buf + n, len - n, "; warning: %u connection%s x iodepth %u = %u requests "
			 "for %u slots: the rest wait for a slot, and that wait is part of the "
			 "latency", per, per == 1 ? "" : "s", cfg->iodepth, want, lo);
}
