/*
 * NFSv4.1 sessions shared by several connections (trunking, as the
 * kernel's nconnect does it): who creates the session, who waits for it,
 * the shared slot table's queue of waiting requests, and what one member's
 * failure does to the others. Every member of a session runs on the same
 * loop (check() makes each thread carry whole sessions), so nothing here
 * locks. The slot counts for the report are the engine instance's atomics.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native_sess.h"

int nat_sess_join(struct engine_conn *c)
{
	unsigned per = c->cfg->opt.conns_per_session ? c->cfg->opt.conns_per_session : 1;
	struct nat_session *s = c->eng->sess_last;

	if (c->id % per == 0 || !s || s->nmembers == per) {
		s = calloc(1, sizeof(*s));
		if (!s)
			return -ENOMEM;
		s->members = calloc(per, sizeof(*s->members));
		s->wait_cap = per * c->cfg->iodepth + 1;
		s->wait = calloc(s->wait_cap, sizeof(*s->wait));
		if (!s->members || !s->wait) {
			free(s->members);
			free(s->wait);
			free(s);
			return -ENOMEM;
		}
		s->eng = c->eng;
		c->eng->sess_last = s;
	}
	s->members[s->nmembers++] = c;
	s->refs++;
	c->sess = s;
	return 0;
}

void nat_sess_leave(struct engine_conn *c)
{
	struct nat_session *s = c->sess;

	if (!s)
		return;
	for (unsigned i = 0; i < s->nmembers; i++)
		if (s->members[i] == c)
			s->members[i] = NULL;
	c->sess = NULL;
	if (--s->refs)
		return;
	if (c->eng->sess_last == s)
		c->eng->sess_last = NULL;
	free(s->members);
	free(s->wait);
	free(s);
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
	/* A lone member can start afresh: nobody else uses the session. */
	if (s->nmembers == 1)
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
