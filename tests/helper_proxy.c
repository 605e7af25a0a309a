/*
 * helper_proxy LISTEN_PORT TARGET_PORT DELAY_MS [STALL_CONN STALL_MS [STALL_AFTER_MS]]
 *              [--fault N:KIND@MS | --fault N:KIND#R]... [--seed S]
 *
 * A TCP proxy on 127.0.0.1 that adds latency to replies: each accepted
 * connection is joined to 127.0.0.1:TARGET_PORT; client->server bytes are
 * forwarded at once, each chunk read from the server is held DELAY_MS (from
 * the moment it was read) before it goes to the client, in order. The
 * STALL_CONN-th accepted connection (1-based) has its replies held STALL_MS
 * instead, from STALL_AFTER_MS after its accept on (default 0: from the
 * start; later lets a client finish setting up first). LISTEN_PORT 0 picks a
 * free port and prints "port N" on stdout.
 *
 * Faults (options may come anywhere; any number of them) act on the N-th
 * accepted connection (1-based), MS ms after its accept:
 *   --fault N:reset@MS    close both sides with SO_LINGER {1, 0}: the client
 *                         and the server each get an RST;
 *   --fault N:stall@MS    from then on forward nothing more from the server
 *                         (replies already held included) and read nothing
 *                         from it: the client's requests still go out, no reply
 *                         comes back, the socket stays open (until the client
 *                         closes it: then the proxy closes both sides).
 * The others mangle the replies: they act on the next RPC record (RFC 5531
 * record marking) that starts in the server->client stream after MS, as it is
 * read from the server; written N:KIND#R instead, on the R-th record (1-based)
 * of that connection, whenever it comes. The proxy follows the record marks of
 * a connection that has one of these faults from its first byte on (and holds
 * back a mark split across reads until it is whole); other connections pass
 * bytes as read.
 *   --fault N:truncate@MS the first half of the record (its mark included) is
 *                         the last the client gets: then both sides are closed
 *                         (the server's unread replies are dropped);
 *   --fault N:corrupt@MS  every byte of the record from its 25th on (the mark
 *                         not counted: past a 24-byte accepted-reply header,
 *                         xid included, empty verifier; so the procedure's
 *                         results) is inverted; the mark and the xid are kept,
 *                         so the call it answers gets garbage;
 *   --fault N:badmark@MS  its record mark becomes 0x7fffffff (a fragment of
 *                         2 GiB - 1 bytes, more to come); the bytes go on as
 *                         the server sent them;
 *   --fault N:reorder@MS  the record is held until the record after it has
 *                         gone to the client (or at most REORDER_MAX_MS), then
 *                         sent: two replies swapped, framing intact;
 *   --fault N:garbage@MS  64 random bytes go to the client before the record
 *                         (where the client expects a record mark);
 *   --fault N:stray@MS    a well-formed 64-byte record of random bytes (mark
 *                         0x8000003c) goes before the record: an xid no call has;
 *   --fault N:jukebox@MS  an NFSv3 reply that succeeded says "later": its
 *                         status (the word past the accepted-reply header)
 *                         becomes NFS3ERR_JUKEBOX (10008); the rest is left;
 *   --fault N:delay@MS    an NFSv4 COMPOUND reply whose first result is a
 *                         successful SEQUENCE and that has more says "later":
 *                         the COMPOUND's status and the second result's become
 *                         NFS4ERR_DELAY (10008), its count of results 2 (the
 *                         bytes after are left, unread by a client).
 *   --fault N:ctxproblem@MS  an accepted reply is made a refusal, in place:
 *                         MSG_DENIED, AUTH_ERROR, RPCSEC_GSS_CTXPROBLEM (14), as a
 *                         server that lost the call's Kerberos context says (the
 *                         record's length is kept: the client reads no further).
 *                         These three skip a record that is not such a reply (or
 *                         not whole enough in one read): they act on the next
 *                         that is, #R included (the R-th or one after it).
 * Truncate and corrupt act on a record's first fragment (servers send records
 * of one); the sizes printed count the mark. DELAY_MS and stalls act on the
 * mangled stream as on any other. The random bytes come from
 * a generator seeded with --seed S (0..2^31-1; the same S, the same bytes), or
 * else from the clock; each fault prints the bytes it sent.
 *
 * Each fault that fires prints "fault: conn N KIND at MS ms" (MS as measured
 * from the accept; a mangling fault fires when it acts on a record, reorder
 * when it sends the record it held, and adds ": record R" and what it did) on
 * stderr; one whose connection ended before it fired prints "fault: conn N
 * closed before KIND at MS ms" (#R: "on record R"). Usage errors exit 2.
 *
 * One thread, epoll, non-blocking sockets, one timerfd for the earliest due
 * reply, fault or held record. Exits 0 on SIGTERM/SIGINT; prints nothing else
 * unless an error or a fault.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define BUF_SIZE (64 * 1024)
#define QUEUE_MAX (8u << 20)	/* stop reading the server past this many held bytes */
#define EDGE (EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET)
#define FAULTS_MAX 64
#define MARK_LEN 4
#define GARBAGE_LEN 64
#define CORRUPT_FROM 28		/* mark, then a 24-byte accepted reply header: xid .. accept_stat */
#define BADMARK 0x7fffffffu
#define REORDER_MAX_MS 1000
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

/* The kinds from FAULT_TRUNCATE on act on a record (see the top of the file). */
enum fault_kind {
	FAULT_RESET, FAULT_STALL,
	FAULT_TRUNCATE, FAULT_CORRUPT, FAULT_BADMARK, FAULT_REORDER, FAULT_GARBAGE, FAULT_STRAY,
	FAULT_JUKEBOX, FAULT_DELAY, FAULT_CTXPROBLEM,
	FAULT_KINDS
};
static const char *const fault_names[] = {
	[FAULT_RESET] = "reset", [FAULT_STALL] = "stall", [FAULT_TRUNCATE] = "truncate",
	[FAULT_CORRUPT] = "corrupt", [FAULT_BADMARK] = "badmark", [FAULT_REORDER] = "reorder",
	[FAULT_GARBAGE] = "garbage", [FAULT_STRAY] = "stray", [FAULT_JUKEBOX] = "jukebox",
	[FAULT_DELAY] = "delay", [FAULT_CTXPROBLEM] = "ctxproblem",
};

struct fault {
	unsigned conn;		/* accept number, 1-based */
	enum fault_kind kind;
	uint64_t after_ms;	/* since that connection's accept */
	unsigned record;	/* N:KIND#R: acts on record R (1-based); 0: after after_ms */
	int armed;		/* a mangling fault past its time: waits for the next record */
	int done;		/* fired, or its connection ended first */
};

enum hold_state { HOLD_NONE, HOLD_TAKING, HOLD_WAITING };

struct chunk {
	struct chunk *next;
	uint64_t due_ns;
	size_t len, off;
	char data[];
};

struct conn;
struct end {			/* what an epoll event points at: one side of a connection */
	struct conn *c;
	int fd;
};

struct conn {
	struct conn *next, *prev;
	struct end cli, srv;
	uint64_t delay_ns;
	uint64_t stall_ns, stall_from_ns;	/* stall_from_ns 0: never */
	unsigned id;		/* accept number, 1-based */
	uint64_t accept_ns;
	int stalled;		/* a stall fault fired: nothing more goes server->client */
	int connecting, cli_eof, srv_eof, srv_shut, cli_shut;
	int down_blocked;	/* the client's socket buffer is full: wait for EPOLLOUT */
	char up[BUF_SIZE];	/* client->server bytes not yet written */
	size_t up_len, up_off;
	struct chunk *head, *tail;	/* server->client, held until due */
	size_t queued;

	/* Record marks of the server->client stream: only with a mangling fault. */
	int records;
	uint8_t carry[MARK_LEN];	/* the start of a mark not read whole yet */
	size_t ncarry;
	uint32_t frag_left;	/* bytes of the current fragment (its mark included) to come */
	uint32_t frag_pos;	/* bytes of it passed so far */
	int frag_last;		/* it is its record's last */
	int mid_record;		/* the fragment before was not its record's last */
	unsigned rec_no;	/* records started so far (the one at hand included) */
	int corrupting;		/* corrupt: this fragment's bytes from CORRUPT_FROM on */
	int cutting, cut;	/* truncate: cut_left bytes more go, then (cut) nothing */
	uint32_t cut_left;
	enum hold_state hold;	/* reorder: a record taken out of the stream */
	char *held;
	size_t held_len, held_cap;
	uint64_t hold_due_ns;	/* HOLD_WAITING: sent anyway at this time */
	unsigned held_no;	/* its rec_no */
	struct fault *hold_fault;
};

static int ep, tfd;
static struct conn *conns, *graveyard;
static char tag_listen, tag_timer, tag_signal;
static struct fault faults[FAULTS_MAX];
static unsigned nfaults;
static int target_port;
static uint64_t delay_ns, stall_ns, stall_after_ns;
static unsigned stall_conn;
static uint64_t seed;		/* garbage and stray bytes: xorshift64 state, never 0 */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "helper_proxy: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void set_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int again(void)
{
	return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
}

static uint64_t ms_since(uint64_t t)
{
	return (now_ns() - t) / 1000000u;
}

/* Both fds leave epoll when closed; the memory goes after the current batch of events. */
static void conn_close(struct conn *c)
{
	struct chunk *k;

	for (unsigned i = 0; i < nfaults; i++) {
		struct fault *f = &faults[i];

		if (f->conn == c->id && !f->done) {
			f->done = 1;
			fprintf(stderr, "fault: conn %u closed before %s %s %llu%s\n", c->id,
				fault_names[f->kind], f->record ? "on record" : "at",
				(unsigned long long)(f->record ? f->record : f->after_ms),
				f->record ? "" : " ms");
		}
	}
	free(c->held);
	c->held = NULL;
	close(c->cli.fd);
	close(c->srv.fd);
	c->cli.fd = c->srv.fd = -1;
	while ((k = c->head)) {
		c->head = k->next;
		free(k);
	}
	if (c->prev)
		c->prev->next = c->next;
	else
		conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->next = graveyard;
	graveyard = c;
}

/* Client->server: write what is buffered. 1 when it is all written, 0 if not yet, -1 on error. */
static int flush_up(struct conn *c)
{
	while (c->up_off < c->up_len) {
		ssize_t n = write(c->srv.fd, c->up + c->up_off, c->up_len - c->up_off);

		if (n < 0)
			return again() ? 0 : -1;
		c->up_off += (size_t)n;	/* a partial write loops; EAGAIN waits for EPOLLOUT */
	}
	c->up_off = c->up_len = 0;
	if (c->cli_eof && !c->srv_shut) {
		shutdown(c->srv.fd, SHUT_WR);
		c->srv_shut = 1;
	}
	return 1;
}

/* Server->client: write the chunks that are due, in order. 0, or -1 on error. */
static int flush_down(struct conn *c)
{
	uint64_t now = now_ns();
	struct chunk *k;

	c->down_blocked = 0;
	if (c->stalled)
		return 0;
	while ((k = c->head) && k->due_ns <= now) {
		ssize_t n = write(c->cli.fd, k->data + k->off, k->len - k->off);

		if (n < 0) {
			c->down_blocked = again();
			return c->down_blocked ? 0 : -1;
		}
		k->off += (size_t)n;
		if (k->off < k->len)
			continue;
		c->head = k->next;
		if (!c->head)
			c->tail = NULL;
		c->queued -= k->len;
		free(k);
	}
	if (!c->head && c->srv_eof && !c->cli_shut) {
		shutdown(c->cli.fd, SHUT_WR);
		c->cli_shut = 1;
	}
	return 0;
}

/* Server->client: n bytes join the queue as one chunk, due after the delay. */
static void queue_down(struct conn *c, const char *p, size_t n)
{
	struct chunk *k;
	uint64_t t = now_ns();
	uint64_t d = c->stall_from_ns && t >= c->stall_from_ns ? c->stall_ns : c->delay_ns;

	if (n == 0)
		return;
	if (!(k = malloc(sizeof(*k) + n)))
		die("malloc");
	*k = (struct chunk){ .due_ns = t + d, .len = n };
	memcpy(k->data, p, n);
	if (c->tail)
		c->tail->next = k;
	else
		c->head = k;
	c->tail = k;
	c->queued += k->len;
}

static uint32_t get_be32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static void put_be32(void *p, uint32_t v)
{
	uint8_t *b = p;

	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

static void fault_say(const struct conn *c, const struct fault *f, const char *what)
{
	fprintf(stderr, "fault: conn %u %s at %llu ms%s\n", c->id, fault_names[f->kind],
		(unsigned long long)ms_since(c->accept_ns), what);
}

/* The mangling fault for the record that starts now (the rec_no-th): one for that
 * record, else one waiting since its time (the earliest due), or NULL. */
static struct fault *fault_armed(const struct conn *c)
{
	struct fault *best = NULL;

	for (unsigned i = 0; i < nfaults; i++) {
		struct fault *f = &faults[i];

		if (f->conn != c->id || f->done)
			continue;
		if (f->record && (f->record == c->rec_no ||
				  (f->record < c->rec_no && f->kind >= FAULT_JUKEBOX)))
			return f;
		if (!f->record && f->armed == 1 && (!best || f->after_ms < best->after_ms))
			best = f;
	}
	return best;
}

/* The record held back by reorder goes to the client (after what is queued); when
 * NULL: REORDER_MAX_MS passed. */
static void hold_release(struct conn *c, const char *when)
{
	char what[200];

	queue_down(c, c->held, c->held_len);
	snprintf(what, sizeof(what), ": record %u (xid 0x%08x, %zu bytes) held back, sent %s%s",
		 c->held_no, c->held_len >= 8 ? get_be32(c->held + MARK_LEN) : 0, c->held_len,
		 when ? when : "anyway: nothing followed within ",
		 when ? "" : STRINGIFY(REORDER_MAX_MS) " ms");
	c->hold_fault->done = 1;
	fault_say(c, c->hold_fault, what);
	c->hold = HOLD_NONE;
	c->held_len = 0;
}

static void hold_add(struct conn *c, const char *p, size_t n)
{
	if (c->held_len + n > c->held_cap) {
		size_t cap = c->held_cap ? c->held_cap : BUF_SIZE;

		while (cap < c->held_len + n)
			cap *= 2;
		if (!(c->held = realloc(c->held, cap)))
			die("realloc");
		c->held_cap = cap;
	}
	memcpy(c->held + c->held_len, p, n);
	c->held_len += n;
}

#define NFS_LATER 10008		/* NFS3ERR_JUKEBOX, NFS4ERR_DELAY */
#define OP4_SEQUENCE 53
#define SEQUENCE4_RESOK 36	/* sessionid, sequenceid, slotid, 2 slotids, status flags */

/*
 * jukebox, delay: the reply at r (past its mark; avail bytes here) made to say
 * "later" in place; the offset of the status word changed, or 0 (not such a reply).
 */
static size_t say_later(enum fault_kind kind, char *r, size_t avail)
{
	size_t at = 24, tag;

	/* An accepted reply, empty verifier, SUCCESS; then the procedure's status 0. */
	if (avail < at + 4 || get_be32(r + 4) != 1 || get_be32(r + 8) != 0 ||
	    get_be32(r + 16) != 0 || get_be32(r + 20) != 0 || get_be32(r + at) != 0)
		return 0;
	if (kind == FAULT_JUKEBOX) {
		put_be32(r + at, NFS_LATER);
		return at;
	}
	if (avail < at + 8)
		return 0;
	tag = (get_be32(r + at + 4) + 3) & ~(size_t)3;
	if (tag > 1024 || avail < at + 8 + tag + 4 + 8 + SEQUENCE4_RESOK + 8)
		return 0;
	r += at + 8 + tag;		/* numres */
	if (get_be32(r) < 2 || get_be32(r + 4) != OP4_SEQUENCE || get_be32(r + 8) != 0)
		return 0;
	put_be32(r, 2);
	put_be32(r - tag - 8, NFS_LATER);
	put_be32(r + 12 + SEQUENCE4_RESOK + 4, NFS_LATER);
	return at;
}

#define RPCSEC_GSS_CTXPROBLEM 14

/* ctxproblem: the accepted reply at r (past its mark) made a refusal; false: not one. */
static bool say_ctxproblem(char *r, size_t avail)
{
	if (avail < 20 || get_be32(r + 4) != 1 || get_be32(r + 8) != 0)
		return false;
	put_be32(r + 8, 1);	/* MSG_DENIED */
	put_be32(r + 12, 1);	/* AUTH_ERROR */
	put_be32(r + 16, RPCSEC_GSS_CTXPROBLEM);
	return true;
}

/*
 * A record starts at p (its mark, whose value is mark; avail bytes of it are
 * here) and fault f acts on it. Bytes before p are queued already.
 */
static void record_fault(struct conn *c, struct fault *f, char *p, size_t avail, uint32_t mark)
{
	uint32_t len = mark & 0x7fffffffu;
	uint32_t xid = avail >= 8 ? get_be32(p + MARK_LEN) : 0;
	char what[200 + 2 * GARBAGE_LEN];
	uint8_t g[GARBAGE_LEN];
	int n = 0;

	f->armed = 2;
	switch (f->kind) {
	case FAULT_TRUNCATE:
		c->cutting = 1;
		c->cut_left = (MARK_LEN + len) / 2;
		snprintf(what, sizeof(what), ": record %u (xid 0x%08x, %u bytes): the first %u sent, "
			 "then both sides closed", c->rec_no, xid, MARK_LEN + len, c->cut_left);
		break;
	case FAULT_CORRUPT:
		c->corrupting = 1;
		snprintf(what, sizeof(what), ": record %u (xid 0x%08x, %u bytes): every byte past "
			 "the first %d inverted", c->rec_no, xid, MARK_LEN + len, CORRUPT_FROM);
		break;
	case FAULT_BADMARK:
		put_be32(p, BADMARK);
		snprintf(what, sizeof(what), ": record %u (xid 0x%08x, %u bytes): mark 0x%08x made "
			 "0x%08x", c->rec_no, xid, MARK_LEN + len, mark, BADMARK);
		break;
	case FAULT_JUKEBOX:
	case FAULT_DELAY:
		if (avail < MARK_LEN ||
		    !say_later(f->kind, p + MARK_LEN, avail - MARK_LEN < len ? avail - MARK_LEN : len)) {
			f->armed = 1;	/* the next record, then */
			return;
		}
		snprintf(what, sizeof(what), ": record %u (xid 0x%08x, %u bytes): says later (%d)",
			 c->rec_no, xid, MARK_LEN + len, NFS_LATER);
		break;
	case FAULT_CTXPROBLEM:
		if (avail < MARK_LEN ||
		    !say_ctxproblem(p + MARK_LEN, avail - MARK_LEN < len ? avail - MARK_LEN : len)) {
			f->armed = 1;	/* the next record, then */
			return;
		}
		snprintf(what, sizeof(what), ": record %u (xid 0x%08x, %u bytes): denied, "
			 "RPCSEC_GSS_CTXPROBLEM", c->rec_no, xid, MARK_LEN + len);
		break;
	case FAULT_REORDER:
		c->hold = HOLD_TAKING;
		c->hold_fault = f;
		c->held_no = c->rec_no;
		return;		/* says so when the record is sent */
	default:		/* FAULT_GARBAGE, FAULT_STRAY */
		for (size_t i = 0; i < sizeof(g); i++) {
			seed ^= seed << 13;	/* xorshift64 */
			seed ^= seed >> 7;
			seed ^= seed << 17;
			g[i] = (uint8_t)(seed >> 32);
		}
		if (f->kind == FAULT_STRAY)
			put_be32(g, 0x80000000u | (GARBAGE_LEN - MARK_LEN));
		n = snprintf(what, sizeof(what), ": %d bytes before record %u (xid 0x%08x): ",
			     GARBAGE_LEN, c->rec_no, xid);
		for (size_t i = 0; i < sizeof(g); i++)
			n += snprintf(what + n, sizeof(what) - (size_t)n, "%02x", g[i]);
		queue_down(c, (const char *)g, sizeof(g));
		break;
	}
	f->done = 1;
	fault_say(c, f, what);
}

/*
 * Server->client bytes p[0..n) of a connection whose record marks are
 * followed: queued (in one chunk per run of bytes), with the mangling faults
 * applied where records start. A mark not yet whole is kept in carry.
 */
static void take_records(struct conn *c, char *p, size_t n)
{
	size_t i = 0, seg = 0;

	while (i < n) {
		size_t take;

		if (c->frag_left == 0) {
			uint32_t mark;
			struct fault *f;

			if (n - i < MARK_LEN) {
				memcpy(c->carry, p + i, n - i);
				c->ncarry = n - i;
				n = i;
				break;
			}
			mark = get_be32(p + i);
			c->rec_no += !c->mid_record;
			if (!c->mid_record && (f = fault_armed(c))) {
				queue_down(c, p + seg, i - seg);
				seg = i;
				record_fault(c, f, p + i, n - i, mark);
			}
			c->frag_left = MARK_LEN + (mark & 0x7fffffffu);
			c->frag_last = (mark & 0x80000000u) != 0;
			c->frag_pos = 0;
		}
		take = n - i < c->frag_left ? n - i : c->frag_left;
		for (size_t k = 0; c->corrupting && k < take; k++) {
			if (c->frag_pos + k >= CORRUPT_FROM)
				p[i + k] ^= (char)0xff;
		}
		if (c->cutting && take >= c->cut_left) {
			n = i + c->cut_left;
			c->cutting = 0;
			c->cut = 1;
			break;
		}
		if (c->cutting)
			c->cut_left -= (uint32_t)take;
		if (c->hold == HOLD_TAKING) {
			hold_add(c, p + i, take);
			seg = i + take;
		}
		i += take;
		c->frag_pos += (uint32_t)take;
		c->frag_left -= (uint32_t)take;
		if (c->frag_left)
			continue;
		c->corrupting = 0;
		c->mid_record = !c->frag_last;
		if (c->frag_last && c->hold == HOLD_TAKING) {
			c->hold = HOLD_WAITING;
			c->hold_due_ns = now_ns() + REORDER_MAX_MS * 1000000ull;
		} else if (c->frag_last && c->hold == HOLD_WAITING) {
			queue_down(c, p + seg, i - seg);
			seg = i;
			hold_release(c, "after the next one");
		}
	}
	queue_down(c, p + seg, n - seg);
}

/*
 * Read the server until EAGAIN (or too much is held): each read is one
 * timestamped chunk (or several, where records are followed).
 */
static int read_down(struct conn *c)
{
	static char buf[MARK_LEN + BUF_SIZE];

	while (!c->stalled && !c->srv_eof && !c->cut && c->queued < QUEUE_MAX) {
		ssize_t n = read(c->srv.fd, buf + MARK_LEN, BUF_SIZE);
		size_t have;

		if (n < 0)
			return again() ? 0 : -1;
		if (n == 0) {
			c->srv_eof = 1;
			queue_down(c, (const char *)c->carry, c->ncarry);
			c->ncarry = 0;
			if (c->hold != HOLD_NONE)
				hold_release(c, "at the server's end of stream");
			break;
		}
		if (!c->records) {
			queue_down(c, buf + MARK_LEN, (size_t)n);
			continue;
		}
		have = c->ncarry;
		memcpy(buf + MARK_LEN - have, c->carry, have);
		c->ncarry = 0;
		take_records(c, buf + MARK_LEN - have, (size_t)n + have);
	}
	return 0;
}

/*
 * Do everything a connection can do now. The fds are edge-triggered, so each
 * read loops until EAGAIN, or stops with the kernel still holding bytes that
 * a later pump (after a write drained our buffer) picks up without an event.
 */
static void pump(struct conn *c)
{
	int rc;

	if (c->connecting)
		return;
	while ((rc = flush_up(c)) == 1 && !c->cli_eof) {
		ssize_t n = read(c->cli.fd, c->up, sizeof(c->up));

		if (n < 0) {
			rc = again() ? 0 : -1;
			break;
		}
		if (n == 0)
			c->cli_eof = 1;
		c->up_len = (size_t)n;
	}
	if (rc < 0 || flush_down(c) < 0 || read_down(c) < 0 || flush_down(c) < 0) {
		conn_close(c);	/* a reset or error on either side ends both */
		return;
	}
	if ((c->cli_shut && c->srv_shut) || (c->stalled && c->cli_eof) || (c->cut && !c->head))
		conn_close(c);	/* both directions ended and passed on, nobody listens, or cut */
}

/* When the next pending fault of a connection is due (UINT64_MAX: none), and which. */
static uint64_t fault_next(const struct conn *c, struct fault **which)
{
	uint64_t next = UINT64_MAX;

	*which = NULL;
	for (unsigned i = 0; i < nfaults; i++) {
		struct fault *f = &faults[i];
		uint64_t due = c->accept_ns + f->after_ms * 1000000u;

		if (f->conn == c->id && !f->done && !f->armed && !f->record && due < next) {
			next = due;
			*which = f;
		}
	}
	return next;
}

/* Fire the faults of a connection that are due; 1 if it was reset (and is gone). */
static int fault_fire(struct conn *c)
{
	static const struct linger abort_close = { .l_onoff = 1, .l_linger = 0 };
	struct fault *f;

	while (fault_next(c, &f) <= now_ns()) {
		if (f->kind >= FAULT_TRUNCATE) {
			f->armed = 1;	/* fires on the next record (take_records) */
			continue;
		}
		f->done = 1;
		fault_say(c, f, "");
		if (f->kind == FAULT_STALL) {
			c->stalled = 1;
			continue;
		}
		setsockopt(c->cli.fd, SOL_SOCKET, SO_LINGER, &abort_close, sizeof(abort_close));
		setsockopt(c->srv.fd, SOL_SOCKET, SO_LINGER, &abort_close, sizeof(abort_close));
		conn_close(c);
		return 1;
	}
	return 0;
}

/* The server side: finish a pending connect, then pump. */
static void on_server(struct conn *c, uint32_t events)
{
	if (c->connecting) {
		int err = 0;
		socklen_t len = sizeof(err);

		if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			return;
		getsockopt(c->srv.fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err) {
			fprintf(stderr, "helper_proxy: connect to target: %s\n", strerror(err));
			conn_close(c);
			return;
		}
		c->connecting = 0;
	}
	pump(c);
}

static int add_fd(int fd, void *ptr, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = ptr };

	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
}

static void on_accept(int lfd)
{
	static unsigned accepted;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)target_port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct conn *c;
	int cfd, sfd;

	while ((cfd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		accepted++;
		sfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (sfd < 0 || !(c = calloc(1, sizeof(*c))))
			die("socket");
		set_nodelay(cfd);
		set_nodelay(sfd);
		if (connect(sfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno != EINPROGRESS) {
			fprintf(stderr, "helper_proxy: connect to port %d: %s\n", target_port,
				strerror(errno));
			close(cfd);
			close(sfd);
			free(c);
			continue;
		}
		c->connecting = 1;
		c->id = accepted;
		c->accept_ns = now_ns();
		c->delay_ns = delay_ns;
		if (accepted == stall_conn) {
			c->stall_ns = stall_ns;
			c->stall_from_ns = now_ns() + stall_after_ns;
		}
		for (unsigned i = 0; i < nfaults; i++)
			c->records |= faults[i].conn == accepted && faults[i].kind >= FAULT_TRUNCATE;
		c->cli = (struct end){ c, cfd };
		c->srv = (struct end){ c, sfd };
		if (add_fd(cfd, &c->cli, EDGE) < 0 || add_fd(sfd, &c->srv, EDGE) < 0)
			die("epoll_ctl");
		c->next = conns;
		if (conns)
			conns->prev = c;
		conns = c;
	}
	if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
		fprintf(stderr, "helper_proxy: accept: %s\n", strerror(errno));
}

/*
 * Arm the timer for the earliest held reply, fault or reorder's held record (one
 * that fell due since fires at once), or disarm it. Replies waiting for the
 * client to read wait for EPOLLOUT instead; a stalled connection's replies wait
 * forever.
 */
static void arm_timer(void)
{
	uint64_t next = UINT64_MAX;
	struct itimerspec its = { 0 };
	struct fault *f;

	for (struct conn *c = conns; c; c = c->next) {
		uint64_t due = fault_next(c, &f);

		if (due < next)
			next = due;
		if (c->head && !c->down_blocked && !c->stalled && c->head->due_ns < next)
			next = c->head->due_ns;
		if (c->hold == HOLD_WAITING && c->hold_due_ns < next)
			next = c->hold_due_ns;
	}
	if (next != UINT64_MAX) {
		its.it_value.tv_sec = (time_t)(next / 1000000000u);
		its.it_value.tv_nsec = (long)(next % 1000000000u);
	}
	if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		die("timerfd_settime");
}

static long arg_num(const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > max) {
		fprintf(stderr, "helper_proxy: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

/* N:KIND@MS or N:KIND#R (see the top of the file); exits 2 if it is neither. */
static void parse_fault(const char *spec)
{
	static const char *const hint = "(N:KIND@MS or N:KIND#R; KIND reset, stall, truncate, "
					"corrupt, badmark, reorder, garbage, stray, jukebox, "
					"delay or ctxproblem; #R not with "
					"reset or stall)";
	char buf[64], *colon, *at, *hash = NULL;
	struct fault *f = &faults[nfaults];

	if (nfaults == FAULTS_MAX) {
		fprintf(stderr, "helper_proxy: more than %d faults\n", FAULTS_MAX);
		exit(2);
	}
	if (strlen(spec) >= sizeof(buf) || !(colon = strchr(strcpy(buf, spec), ':')) ||
	    (!(at = strchr(colon, '@')) && !(hash = strchr(colon, '#')))) {
		fprintf(stderr, "helper_proxy: --fault: '%s' is not %s\n", spec, hint);
		exit(2);
	}
	*colon++ = '\0';
	if (hash)
		*hash++ = '\0';
	else
		*at++ = '\0';
	for (f->kind = 0; f->kind < FAULT_KINDS; f->kind++) {
		if (!strcmp(colon, fault_names[f->kind]))
			break;
	}
	if (f->kind == FAULT_KINDS) {
		fprintf(stderr, "helper_proxy: --fault: '%s' is not a fault %s\n", colon, hint);
		exit(2);
	}
	f->conn = (unsigned)arg_num(buf, 1000000);
	if (hash)
		f->record = (unsigned)arg_num(hash, 1000000000);
	else
		f->after_ms = (uint64_t)arg_num(at, 3600000);
	if (f->conn == 0 || (hash && f->record == 0)) {
		fprintf(stderr, "helper_proxy: --fault: connections and records count from 1\n");
		exit(2);
	}
	if (hash && f->kind < FAULT_TRUNCATE) {
		fprintf(stderr, "helper_proxy: --fault: %s acts at a time, not on a record %s\n",
			fault_names[f->kind], hint);
		exit(2);
	}
	nfaults++;
}

static void usage(void)
{
	fprintf(stderr, "usage: helper_proxy LISTEN_PORT TARGET_PORT DELAY_MS "
			"[STALL_CONN STALL_MS [STALL_AFTER_MS]] [--fault N:KIND@MS|N:KIND#R]... "
			"[--seed S]\n"
			"  KIND: reset, stall, truncate, corrupt, badmark, reorder, garbage, stray, "
			"jukebox, delay, ctxproblem\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t salen = sizeof(sa);
	struct epoll_event evs[64];
	const char *pos[6];
	int npos = 0, lfd, sfd, one = 1;
	sigset_t sigs;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--fault") && i + 1 < argc)
			parse_fault(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = (uint64_t)arg_num(argv[++i], 0x7fffffffL) * 0x9e3779b97f4a7c15ull | 1;
		else if (!strncmp(argv[i], "--", 2) || npos == 6)
			usage();
		else
			pos[npos++] = argv[i];
	}
	if (npos != 3 && npos != 5 && npos != 6)
		usage();
	sa.sin_port = htons((uint16_t)arg_num(pos[0], 65535));
	target_port = (int)arg_num(pos[1], 65535);
	delay_ns = (uint64_t)arg_num(pos[2], 3600000) * 1000000u;
	if (npos >= 5) {
		stall_conn = (unsigned)arg_num(pos[3], 1000000);
		stall_ns = (uint64_t)arg_num(pos[4], 3600000) * 1000000u;
	}
	if (npos == 6)
		stall_after_ns = (uint64_t)arg_num(pos[5], 3600000) * 1000000u;

	if (!seed)
		seed = now_ns() | 1;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0)
		die("socket");
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 128) < 0)
		die("bind/listen on 127.0.0.1");
	if (getsockname(lfd, (struct sockaddr *)&sa, &salen) < 0)
		die("getsockname");
	if ((ep = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    (tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)) < 0 ||
	    (sfd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC)) < 0)
		die("epoll/timerfd/signalfd");
	if (add_fd(lfd, &tag_listen, EPOLLIN) < 0 || add_fd(tfd, &tag_timer, EPOLLIN) < 0 ||
	    add_fd(sfd, &tag_signal, EPOLLIN) < 0)
		die("epoll_ctl");
	if (!strcmp(pos[0], "0")) {
		printf("port %u\n", ntohs(sa.sin_port));
		fflush(stdout);
	}

	for (;;) {
		int n = epoll_wait(ep, evs, 64, -1);

		if (n < 0 && errno != EINTR)
			die("epoll_wait");
		for (int i = 0; i < n; i++) {
			void *p = evs[i].data.ptr;

			if (p == &tag_signal)
				return 0;	/* the kernel closes every socket */
			if (p == &tag_listen) {
				on_accept(lfd);
			} else if (p == &tag_timer) {
				uint64_t expirations;

				if (read(tfd, &expirations, sizeof(expirations)) < 0 && errno != EAGAIN)
					die("read timerfd");
				for (struct conn *c = conns, *next; c; c = next) {
					next = c->next;
					if (fault_fire(c))
						continue;
					if (c->hold == HOLD_WAITING && c->hold_due_ns <= now_ns())
						hold_release(c, NULL);
					if (c->head && c->head->due_ns <= now_ns())
						pump(c);
				}
			} else {
				struct end *e = p;

				if (e->fd < 0)
					continue;	/* closed earlier in this batch */
				if (e == &e->c->cli)
					pump(e->c);
				else
					on_server(e->c, evs[i].events);
			}
		}
		while (graveyard) {
			struct conn *c = graveyard;

			graveyard = c->next;
			free(c);
		}
		arm_timer();
	}
}
