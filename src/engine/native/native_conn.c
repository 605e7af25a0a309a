/*
 * native_conn: the primitives every layer of the native engine uses on a
 * connection: its error, its end (failed, set up or not), a request's end
 * and its backoff. Nothing here calls a layer above: where they must act
 * (a session to leave, what a set-up learned), the connection's nat_up
 * table says how.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/clock.h"
#include "native_conn.h"

void nat_set_error(struct engine_conn *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->error, sizeof(c->error), fmt, ap);
	va_end(ap);
}

const struct nat_proto *nat_proto_of(const struct engine_params *cfg)
{
	return cfg->nfs_version == 4 ? &nat_proto_v4 : &nat_proto_v3;
}

void nat_step(struct engine_conn *c, unsigned step)
{
	uint64_t now = now_ns();

	if (c->cbs && c->cbs->step)
		c->cbs->step(c->owner, step, now - c->step_start_ns);
	c->step_start_ns = now;
}

static bool setting_up(const struct engine_conn *c)
{
	return c->state != NS_READY && c->state != NS_DOWN && c->state != NS_CLOSING;
}

void nat_setup_done(struct engine_conn *c, bool ok)
{
	if (c->up && c->up->setup_end)
		c->up->setup_end(c, ok);
	if (!ok) {
		xport_close(c->sock);
		c->state = NS_DOWN;
	} else {
		c->state = NS_READY;
	}
	if (c->cbs)
		c->cbs->ready(c->owner, c, ok);
}

void nat_conn_fail(struct engine_conn *c)
{
	if (c->state == NS_DOWN)
		return;
	if (!c->error[0])
		nat_set_error(c, "connection lost");
	if (c->up && c->up->down)
		c->up->down(c);
	if (setting_up(c) || c->state == NS_CLOSING) {
		nat_setup_done(c, false);
		return;
	}
	xport_close(c->sock);
	c->state = NS_DOWN;
	if (c->cbs)
		c->cbs->lost(c->owner, c);
}

/*
 * Sends the request again after a backoff (1 ms, doubling, at most 10 tries;
 * req->stage counts them): the wait stays in its latency. false: given up.
 */
bool nat_retry_later(struct engine_conn *c, struct engine_req *req)
{
	double delay;

	if (req->stage >= NAT_RETRY_MAX || c->state != NS_READY || !c->t)
		return false;
	delay = 0.001 * (double)(1u << req->stage++);
	nat_req_append(&c->retry_head, &c->retry_tail, req);
	__atomic_add_fetch(&c->eng->retried, 1, __ATOMIC_RELAXED);
	/* One timer per connection: the longest backoff waiting sets it (they go together). */
	if (!ev_is_active(&c->retry_timer) || ev_timer_remaining(c->t->loop, &c->retry_timer) < delay) {
		ev_timer_stop(c->t->loop, &c->retry_timer);
		ev_timer_set(&c->retry_timer, delay, 0.);
		ev_timer_start(c->t->loop, &c->retry_timer);
	}
	return true;
}

const struct sockaddr *nat_addr(const struct nat_engine *e, unsigned srv, bool mount,
				socklen_t *len)
{
	*len = e->addr_len[srv];
	return (const struct sockaddr *)(mount ? &e->mnt_addr[srv] : &e->nfs_addr[srv]);
}

bool nat_mount_apart(const struct nat_engine *e, unsigned srv)
{
	return memcmp(&e->mnt_addr[srv], &e->nfs_addr[srv], sizeof(e->nfs_addr[srv])) != 0;
}

unsigned nat_addr_port(const struct sockaddr *sa)
{
	return ntohs(sa->sa_family == AF_INET6 ? ((const struct sockaddr_in6 *)sa)->sin6_port :
		     ((const struct sockaddr_in *)sa)->sin_port);
}
