/*
 * native_tap: wire time from a packet tap (--wire-source tap). Each worker
 * thread has a tap (tap.h) that sees the segments of its connections (by
 * local port; past TAP_PORTS_MAX of them, every segment on the servers' NFS
 * ports); its connections are found by local port. A call keeps the time
 * of the segment that carried its last byte; a connection keeps its latest
 * reply segments (sequence number, length, time seen). A call's wire time
 * is from the former to the segment that carried its reply's last byte, as
 * a capture's rpc.time counts it: every reply gets one, at any queue depth
 * (socket timestamps merge the times of segments read together: stamp.h).
 *
 * Stream offsets become sequence numbers once a segment that starts a record
 * is seen: a call's (its XID in flight, its length as queued) or a reply's
 * (its XID, then where the reply began in the stream). Until both directions
 * are known, and for a reply whose segments the ring no longer holds, there
 * is no wire time (counted as left out).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native_tap.h"

#define TAP_PORTS 65536


static unsigned sa_port(const struct sockaddr *sa)
{
	return ntohs(((const struct sockaddr_in *)sa)->sin_port);
}

int nat_tap_init(struct nat_engine *e, const struct engine_params *cfg, char *why, size_t len)
{
	bool must = cfg->opt.wire_source == ENGINE_WIRE_TAP;
	int rc;

	e->tap_used = false;
	e->nsrv_ports = 0;
	e->tap_lo = true;
	why[0] = '\0';
	if (!cfg->wire_time || cfg->opt.wire_source == ENGINE_WIRE_STAMPS)
		return 0;
	for (unsigned i = 0; i < cfg->nservers; i++) {
		socklen_t salen;
		const struct sockaddr *sa = nat_addr(e, i, false, &salen);
		unsigned j = 0;

		if (sa->sa_family != AF_INET) {
			snprintf(why, len, "the packet tap reads IPv4 only (%s is IPv6)",
				 cfg->server[i].host);
			return must ? -EAFNOSUPPORT : 0;
		}
		if ((ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) != 127)
			e->tap_lo = false;
		while (j < e->nsrv_ports && e->srv_ports[j] != sa_port(sa))
			j++;
		if (j == e->nsrv_ports && e->nsrv_ports < ENGINE_SERVERS_MAX)
			e->srv_ports[e->nsrv_ports++] = (uint16_t)sa_port(sa);
	}
	rc = tap_probe();
	if (rc < 0) {
		snprintf(why, len, "cannot open a packet tap: %s%s", strerror(-rc),
			 rc == -EPERM ? " (it needs CAP_NET_RAW)" : "");
		return must ? rc : 0;
	}
	e->tap_used = true;
	return 0;
}

int nat_tap_thread(struct engine_thread *t)
{
	const struct nat_engine *e = t->eng;
	int rc;

	if (!e->tap_used || t->tap)
		return 0;
	t->by_port = calloc(TAP_PORTS, sizeof(*t->by_port));
	t->tap_local = malloc((t->cfg->connections + 1) * sizeof(*t->tap_local));
	rc = t->by_port && t->tap_local ? tap_open(&t->tap, e->srv_ports, e->nsrv_ports, e->tap_lo) : -ENOMEM;
	if (rc < 0) {
		free(t->by_port);
		free(t->tap_local);
		t->by_port = NULL;
		t->tap_local = NULL;
		t->tap = NULL;
	}
	t->ntap_local = 0;
	t->tap_narrow = false;
	return rc;
}

void nat_tap_thread_free(struct engine_thread *t)
{
	if (!t->by_port)
		return;
	for (unsigned p = 0; p < TAP_PORTS; p++)
		for (struct engine_conn *c = t->by_port[p]; c; c = c->tap.next)
			c->tap.t = NULL;
	free(t->by_port);
	free(t->tap_local);
	tap_close(t->tap);
	t->by_port = NULL;
	t->tap_local = NULL;
	t->tap = NULL;
}

/*
 * The tap's filter follows the thread's connections: their local ports while
 * there are at most TAP_PORTS_MAX (each thread's tap then copies its own
 * segments only), else every segment on the servers' ports (each thread's
 * tap copies all threads' segments; the others are skipped in on_pkt).
 */
static void refilter(struct engine_thread *t)
{
	bool narrow = t->ntap_local <= TAP_PORTS_MAX;

	if (narrow)
		tap_filter_ports(t->tap, t->tap_local, t->ntap_local);
	else if (t->tap_narrow)
		tap_filter_ports(t->tap, t->eng->srv_ports, t->eng->nsrv_ports);
	t->tap_narrow = narrow;
}

void nat_tap_leave(struct engine_conn *c)
{
	struct engine_thread *t = c->tap.t;
	struct engine_conn **pp;

	if (!t)
		return;
	for (pp = &t->by_port[c->tap.lport]; *pp; pp = &(*pp)->tap.next)
		if (*pp == c) {
			*pp = c->tap.next;
			break;
		}
	for (unsigned i = 0; i < t->ntap_local; i++)
		if (t->tap_local[i] == c->tap.lport) {
			t->tap_local[i] = t->tap_local[--t->ntap_local];
			refilter(t);
			break;
		}
	c->tap.t = NULL;
	c->tap.next = NULL;
}

void nat_tap_destroy(struct engine_conn *c)
{
	nat_tap_leave(c);
	tap_stream_free(&c->tap.in);
	memset(&c->tap, 0, sizeof(c->tap));
}

bool nat_tap_join(struct engine_conn *c)
{
	struct engine_thread *t = c->t;
	struct sockaddr_storage local, peer;
	/* segments kept a direction: a reply or a write may span a 64 KiB segment each */
	unsigned cap = c->cfg->iodepth * (2 + (unsigned)(c->cfg->bs / 65536)) + 32;

	if (c->tap.t == t)
		return true;
	if (!t || !t->by_port || xport_addrs(c->sock, &local, &peer) < 0 ||
	    local.ss_family != AF_INET || peer.ss_family != AF_INET ||
	    tap_stream_init(&c->tap.in, cap) < 0)
		return false;
	nat_tap_leave(c);
	c->tap.out.known = false;
	c->tap.laddr = ((struct sockaddr_in *)&local)->sin_addr.s_addr;
	c->tap.raddr = ((struct sockaddr_in *)&peer)->sin_addr.s_addr;
	c->tap.lport = (uint16_t)sa_port((struct sockaddr *)&local);
	c->tap.rport = (uint16_t)sa_port((struct sockaddr *)&peer);
	c->tap.next = t->by_port[c->tap.lport];
	t->by_port[c->tap.lport] = c;
	c->tap.t = t;
	if (t->ntap_local < t->cfg->connections + 1) {
		t->tap_local[t->ntap_local++] = c->tap.lport;
		refilter(t);
	}
	return true;
}

static bool server_port(const struct nat_engine *e, uint16_t port)
{
	for (unsigned i = 0; i < e->nsrv_ports; i++)
		if (e->srv_ports[i] == port)
			return true;
	return false;
}

static struct engine_conn *find(struct engine_thread *t, uint16_t lport, uint16_t rport,
				uint32_t laddr, uint32_t raddr)
{
	for (struct engine_conn *c = t->by_port[lport]; c; c = c->tap.next)
		if (c->tap.rport == rport && c->tap.laddr == laddr && c->tap.raddr == raddr)
			return c;
	return NULL;
}

/*
 * The calls whose last byte segment k carried left when k was seen. Kept in
 * the call, not looked up in a ring at the reply: a slow call's segment
 * would be gone by then, pushed out by the calls that overtook it.
 */
static void calls_sent(struct engine_conn *c, const struct tap_pkt *k)
{
	for (uint32_t i = 0; i < c->ncalls; i++) {
		struct nat_call *call = &c->calls[i];

		if (call->xid && !call->tx_ns && tap_carries(&c->tap.out, k, call->tx_end - 1))
			call->tx_ns = k->ns;
	}
}

static void on_pkt(void *arg, const struct tap_pkt *k)
{
	struct engine_thread *t = arg;
	struct engine_conn *c;
	struct nat_call *call;
	bool out = !server_port(t->eng, k->sport);	/* a guess: a local port may equal a server's */

	for (int tries = 0;; tries++) {
		c = out ? find(t, k->sport, k->dport, k->saddr, k->daddr) :
			  find(t, k->dport, k->sport, k->daddr, k->saddr);
		if (c)
			break;
		if (tries)
			return;
		out = !out;
	}
	if (!out)
		tap_stream_add(&c->tap.in, k);
	call = &c->calls[k->xid & c->mask];
	if (k->head && (k->mark & 0x80000000u) && call->xid == k->xid) {
		if (!out) {
			call->rx_seq = k->seq;
			call->rx_mark = k->mark;
			call->rx_seen = true;
		} else if (!c->tap.out.known &&
			   (k->mark & 0x7fffffffu) + 4 == call->tx_end - call->tx_start) {
			tap_stream_anchor(&c->tap.out, k->seq, call->tx_start);
		}
	}
	if (out && c->tap.out.known)
		calls_sent(c, k);
}

uint64_t nat_tap_wire(struct engine_conn *c, struct nat_call *call, uint64_t start, uint64_t end)
{
	struct nat_tap *p = &c->tap;
	uint64_t tx, rx;

	if (!nat_tap_join(c))
		return 0;
	tap_drain(c->t->tap, on_pkt, c->t);
	if (!p->in.known && call->rx_seen && (call->rx_mark & 0x7fffffffu) + 4 == end - start)
		tap_stream_anchor(&p->in, call->rx_seq, start);
	tx = call->tx_ns;
	if (!tx || tap_stream_time(&p->in, end - 1, &rx) < 0 || rx <= tx)
		return 0;
	return rx - tx;
}
