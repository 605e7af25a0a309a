/*
 * trace_tcp: each TCP connection's two byte streams put back in order, and
 * cut into RPC records (RFC 5531 record marking, fragments joined).
 *
 * A segment behind the stream is a retransmission: its old bytes are
 * dropped. One ahead is kept until the bytes before it come (or until too
 * much is held, or the capture ends: then the missing bytes are a gap).
 * After a gap, or in a stream whose start was not captured, the direction
 * resynchronises: bytes are skipped up to the next place that looks like a
 * record's start (a last-fragment mark of a sane length, then an xid and a
 * CALL with RPC version 2 or a REPLY with reply_stat 0 or 1).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "trace_int.h"

#define TRACE_RECORD_MAX (64u << 20)	/* larger than any NFS record (1 MiB READ/WRITE) */
#define TRACE_OOO_MAX 256		/* segments held ahead of a gap before giving up on it */

static int grow(uint8_t **p, size_t *cap, size_t need)
{
	size_t n = *cap ? *cap : 4096;
	uint8_t *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	if (!(q = realloc(*p, n)))
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* A plausible record start at q (16 bytes there). */
static bool plausible(const uint8_t *q)
{
	uint32_t mark = xdrx_be32(q), flen = mark & 0x7fffffff;

	if (!(mark >> 31) || flen < 12 || flen > TRACE_RECORD_MAX)
		return false;
	if (xdrx_be32(q + 8) == 0)
		return xdrx_be32(q + 12) == 2;
	return xdrx_be32(q + 8) == 1 && xdrx_be32(q + 12) <= 1;
}

/* Cuts whole records out of d's buffer. */
static int cut(struct trace_ctx *c, uint32_t conn, struct trace_dir *d)
{
	int rc = 0;

	if (!d->buf)
		return 0;	/* nothing captured yet (a first packet cut before its payload) */
	for (;;) {
		const uint8_t *q = d->buf + d->off;
		size_t avail = d->len - d->off, i;
		uint32_t mark, flen;

		if (d->resync) {
			for (i = 0; i + 16 <= avail && !plausible(q + i); i++)
				;
			c->t->left.skipped_bytes += i + 16 <= avail ? i : (avail > 15 ? avail - 15 : 0);
			if (i + 16 > avail) {
				d->off += avail > 15 ? avail - 15 : 0;
				break;
			}
			d->off += i;
			d->resync = false;
			continue;
		}
		if (avail < 4)
			break;
		mark = xdrx_be32(q);
		flen = mark & 0x7fffffff;
		if (d->rlen + flen > TRACE_RECORD_MAX || (!flen && !(mark >> 31))) {
			c->t->left.records++;
			d->rlen = 0;
			d->resync = true;
			continue;
		}
		if (avail < 4 + (size_t)flen)
			break;
		d->off += 4 + (size_t)flen;
		if (mark >> 31 && !d->rlen) {	/* one fragment: handed on in place */
			rc = trace_rpc_record(c, conn, q + 4, flen);
		} else {
			if (grow(&d->rec, &d->rcap, d->rlen + flen) < 0)
				return -ENOMEM;
			memcpy(d->rec + d->rlen, q + 4, flen);
			d->rlen += flen;
			if (mark >> 31) {
				rc = trace_rpc_record(c, conn, d->rec, d->rlen);
				d->rlen = 0;
			}
		}
		if (rc < 0)
			return rc;
	}
	if (d->off == d->len)
		d->off = d->len = 0;
	else if (d->off > d->cap / 2) {
		memmove(d->buf, d->buf + d->off, d->len - d->off);
		d->len -= d->off;
		d->off = 0;
	}
	return 0;
}

/* n bytes that were never captured: what was pending is dropped, then resync. */
static void gap(struct trace_ctx *c, struct trace_dir *d, uint64_t n)
{
	struct trace_left *l = &c->t->left;

	l->lost_bytes += n;
	if (d->rlen || d->len > d->off)
		l->records++;
	l->skipped_bytes += d->len - d->off;
	d->off = d->len = d->rlen = 0;
	d->resync = true;
}

/* In-order bytes: caplen of them captured, len on the wire. */
static int take(struct trace_ctx *c, struct trace_flow *f, struct trace_dir *d,
		  const uint8_t *p, uint32_t caplen, uint32_t len)
{
	d->next_seq += len;
	/* A packet cut before its payload (caplen 0) may come first: buf is still NULL then. */
	if (caplen) {
		if (grow(&d->buf, &d->cap, d->len + caplen) < 0)
			return -ENOMEM;
		memcpy(d->buf + d->len, p, caplen);
		d->len += caplen;
	}
	if (caplen < len) {
		int rc = cut(c, f->conn, d);

		gap(c, d, len - caplen);
		return rc;
	}
	return cut(c, f->conn, d);
}

/* Segments held ahead that the stream has reached; with force, the nearest one even past a gap. */
static int drain(struct trace_ctx *c, struct trace_flow *f, struct trace_dir *d, bool force)
{
	int rc = 0;

	while (d->nooo && rc == 0) {
		size_t best = 0;

		for (size_t i = 1; i < d->nooo; i++)
			if ((int32_t)(d->ooo[i].seq - d->next_seq) < (int32_t)(d->ooo[best].seq - d->next_seq))
				best = i;
		struct trace_seg s = d->ooo[best];
		int32_t ahead = (int32_t)(s.seq - d->next_seq);
		uint32_t trim = ahead < 0 ? d->next_seq - s.seq : 0;	/* (-ahead overflows at -2^31) */

		if (ahead > 0 && !force)
			break;
		d->ooo[best] = d->ooo[--d->nooo];
		if (ahead > 0) {
			gap(c, d, (uint32_t)ahead);
			d->next_seq = s.seq;
		}
		if (trim < s.len)
			rc = take(c, f, d, s.p + trim, s.caplen > trim ? s.caplen - trim : 0,
				    s.len - trim);
		free(s.p);
	}
	return rc;
}

static struct trace_flow *flow(struct trace_ctx *c, const uint8_t *src, const uint8_t *dst,
			       unsigned alen, uint16_t sport, uint16_t dport, int *dir)
{
	uint8_t a[18] = { 0 }, b[18] = { 0 }, key[36];
	uint64_t h;
	uint32_t i;

	memcpy(a, src, alen);
	memcpy(b, dst, alen);
	a[16] = (uint8_t)(sport >> 8), a[17] = (uint8_t)sport;
	b[16] = (uint8_t)(dport >> 8), b[17] = (uint8_t)dport;
	*dir = memcmp(a, b, 18) > 0;
	memcpy(key, *dir ? b : a, 18);
	memcpy(key + 18, *dir ? a : b, 18);
	h = XXH64(key, sizeof(key), 0);
	if ((i = trace_map_get(&c->flow_ix, h)))
		return &c->flows[i - 1];
	if (c->nflows == c->fcap) {
		size_t n = c->fcap ? c->fcap * 2 : 16;
		struct trace_flow *q = realloc(c->flows, n * sizeof(*q));

		if (!q)
			return NULL;
		c->flows = q;
		c->fcap = n;
	}
	if (trace_map_put(&c->flow_ix, h, (uint32_t)c->nflows + 1) < 0)
		return NULL;
	memset(&c->flows[c->nflows], 0, sizeof(c->flows[0]));
	memcpy(c->flows[c->nflows].key, key, sizeof(key));
	c->flows[c->nflows].conn = ++c->t->conns;
	return &c->flows[c->nflows++];
}

static void dir_free(struct trace_dir *d)
{
	for (size_t i = 0; i < d->nooo; i++)
		free(d->ooo[i].p);
	free(d->ooo);
	free(d->buf);
	free(d->rec);
	memset(d, 0, sizeof(*d));
}

int trace_tcp_segment(struct trace_ctx *c, const uint8_t *src, const uint8_t *dst,
		      unsigned alen, uint16_t sport, uint16_t dport, uint32_t seq,
		      uint8_t flags, const uint8_t *p, uint32_t caplen, uint32_t len)
{
	int dir;
	struct trace_flow *f = flow(c, src, dst, alen, sport, dport, &dir);
	struct trace_dir *d;
	int32_t ahead;

	if (!f)
		return -ENOMEM;
	d = &f->d[dir];
	if (flags & 0x02) {	/* SYN: the stream starts at seq + 1 */
		if (d->have_seq && d->next_seq != seq + 1) {	/* the 4-tuple used again */
			dir_free(&f->d[0]);
			dir_free(&f->d[1]);
			f->conn = ++c->t->conns;
		}
		d->have_seq = true;
		d->next_seq = seq + 1;
		return 0;
	}
	if (!len)
		return 0;
	if (!d->have_seq) {	/* begun mid-connection */
		d->have_seq = true;
		d->next_seq = seq;
		d->resync = true;
	}
	ahead = (int32_t)(seq - d->next_seq);
	if (ahead < 0) {	/* a retransmission, or part of one */
		uint32_t old = d->next_seq - seq;	/* 1..2^31 (-ahead overflows at -2^31) */

		if (old >= len)
			return 0;
		p += old;
		caplen = caplen > old ? caplen - old : 0;
		len -= old;
		seq = d->next_seq;
		ahead = 0;
	}
	if (ahead > 0) {	/* held until the bytes before it come */
		struct trace_seg *q;

		if (d->nooo % 16 == 0) {
			q = realloc(d->ooo, (d->nooo + 16) * sizeof(*q));
			if (!q)
				return -ENOMEM;
			d->ooo = q;
		}
		q = &d->ooo[d->nooo];
		if (!(q->p = malloc(caplen ? caplen : 1)))
			return -ENOMEM;
		memcpy(q->p, p, caplen);
		q->seq = seq;
		q->len = len;
		q->caplen = caplen;
		d->nooo++;
		return drain(c, f, d, d->nooo > TRACE_OOO_MAX);
	}
	int rc = take(c, f, d, p, caplen, len);

	return rc < 0 ? rc : drain(c, f, d, false);
}

void trace_tcp_finish(struct trace_ctx *c)
{
	for (size_t i = 0; i < c->nflows; i++)
		for (int k = 0; k < 2; k++) {
			struct trace_dir *d = &c->flows[i].d[k];

			drain(c, &c->flows[i], d, true);
			if (d->rlen || d->len > d->off)
				c->t->left.incomplete++;
		}
}

void trace_tcp_free(struct trace_ctx *c)
{
	for (size_t i = 0; i < c->nflows; i++) {
		dir_free(&c->flows[i].d[0]);
		dir_free(&c->flows[i].d[1]);
	}
	free(c->flows);
	trace_map_free(&c->flow_ix);
	free(c->calls);
	trace_map_free(&c->pending);
}
