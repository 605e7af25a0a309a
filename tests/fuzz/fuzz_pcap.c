/*
 * libFuzzer target: the capture reader (src/trace/) that --replay and
 * --trace-summary use on a file anyone may hand them. Byte 0 says how the
 * rest is read:
 *
 *   bit 0 clear: a capture file's image (pcap, pcapng, or either gzip'd),
 *     kept in a memfd and read by trace_load through /proc/self/fd/N:
 *     libpcap's file parsing, the link layers, IPv4/IPv6, TCP reassembly,
 *     record marking, the RPC and NFS decoders (trace_rpc.c, trace_nfs*.c).
 *   bit 0 set: TCP segments straight into the reassembly
 *     (trace_tcp_segment), bypassing libpcap: the rest is messages
 *     "direction (1 byte, bit 0) | length (2 bytes, big-endian) | payload",
 *     the two directions of one connection that starts with a SYN each way.
 *     They are fed twice: each message as one segment; then each cut into
 *     segments of byte 1's size (1..64), sent in reverse order within the
 *     message when byte 0's bit 1 is set (held out of order until the first
 *     comes, at most TRACE_OOO_MAX - 1 pieces a message) and each piece once
 *     more (a retransmission) when bit 2 is set. No bytes are lost either
 *     way, so both feeds must decode to the same trace: the same operations
 *     with the same fields, the same handles and names, the same counts of
 *     what was left out.
 *
 * Checks on every trace (trace.h): trace_load returns 0, -EINVAL (with a
 * message), -ENOMEM or -errno; every operation's connection is 1..conns, its
 * version 3 or 4 (MOUNT: 3), its table indexes within the tables, its
 * COMPOUND 1..compounds (v4; 0 only for a v4 NULL) or 0, its times within the span; the
 * handles and names are non-empty and (not gzip'd) no longer than the input,
 * at most one operation per 4 bytes of input and one packet per 16 (pcap's
 * record header). Loading the same image twice gives the same trace.
 */
#include <stdbool.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "trace.h"
#include "trace/trace_int.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define OOO_PIECES 200		/* below trace_tcp.c's TRACE_OOO_MAX (256) */

static int fd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fd = fuzz_memfd("fuzz_pcap", path, sizeof(path));
	return 0;
}

static void hash_table(uint64_t *h, const struct trace_table *tab, size_t input, bool bounded)
{
	fuzz_hash(h, &tab->n, sizeof(tab->n));
	for (uint32_t i = 1; i <= tab->n; i++) {
		const struct trace_blob *b = trace_blob(tab, i);

		FUZZ_CHECK(b && b->len > 0 && (!bounded || b->len <= input));
		fuzz_hash(h, &b->len, sizeof(b->len));
		fuzz_hash(h, b->p, b->len);
	}
	FUZZ_CHECK(trace_blob(tab, 0) == NULL);
}

/*
 * What trace.h promises of a decoded trace; returns a digest of it (times
 * left out with times = false: the segment feeds have none).
 */
static uint64_t check_trace(const struct trace *t, size_t input, bool bounded, bool times)
{
	uint64_t h = FUZZ_FNV_BASIS;

	FUZZ_CHECK(t->nops <= t->cap || (t->nops == 0 && t->cap == 0));
	if (bounded) {
		FUZZ_CHECK(t->nops <= input / 4 + 1);
		FUZZ_CHECK(t->packets <= input / 16 + 1);
	}
	for (size_t i = 0; i < t->nops; i++) {
		const struct trace_op *o = &t->ops[i];
		char name[64];

		FUZZ_CHECK(o->conn >= 1 && o->conn <= t->conns);
		FUZZ_CHECK(o->version == 3 || o->version == 4);
		FUZZ_CHECK(o->prog == TRACE_NFS || (o->prog == TRACE_MOUNT && o->version == 3));
		FUZZ_CHECK(o->fh <= t->fhs.n && o->dir <= t->fhs.n && o->result_fh <= t->fhs.n &&
			   o->dir2 <= t->fhs.n);
		FUZZ_CHECK(o->name <= t->names.n && o->name2 <= t->names.n);
		/* a v4 NULL call is in no COMPOUND */
		if (o->version == 4 && o->prog == TRACE_NFS && o->compound == 0)
			FUZZ_CHECK(o->proc == 0);
		else if (o->version == 4 && o->prog == TRACE_NFS)
			FUZZ_CHECK(o->compound <= t->compounds);
		else
			FUZZ_CHECK(o->compound == 0);
		if (times)
			FUZZ_CHECK(o->call_ns <= t->span_ns && o->reply_ns <= t->span_ns);
		FUZZ_CHECK(trace_op_name(o, name, sizeof(name)) && fuzz_terminated(name, sizeof(name)));
		fuzz_hash(&h, &o->conn, sizeof(o->conn));
		fuzz_hash(&h, &o->version, sizeof(o->version));
		fuzz_hash(&h, &o->minor, sizeof(o->minor));
		fuzz_hash(&h, &o->proc, sizeof(o->proc));
		fuzz_hash(&h, &o->status, sizeof(o->status));
		{
			uint32_t ix[6] = { o->fh, o->dir, o->name, o->result_fh, o->dir2, o->name2 };

			fuzz_hash(&h, ix, sizeof(ix));
		}
		fuzz_hash(&h, &o->offset, sizeof(o->offset));
		fuzz_hash(&h, &o->count, sizeof(o->count));
		fuzz_hash(&h, &o->stable, sizeof(o->stable));
		fuzz_hash(&h, &o->prog, sizeof(o->prog));
		fuzz_hash(&h, &o->compound, sizeof(o->compound));
		fuzz_hash(&h, &o->compound_status, sizeof(o->compound_status));
		if (times) {
			fuzz_hash(&h, &o->call_ns, sizeof(o->call_ns));
			fuzz_hash(&h, &o->reply_ns, sizeof(o->reply_ns));
		}
	}
	hash_table(&h, &t->fhs, input, bounded);
	hash_table(&h, &t->names, input, bounded);
	fuzz_hash(&h, &t->conns, sizeof(t->conns));
	fuzz_hash(&h, &t->compounds, sizeof(t->compounds));
	fuzz_hash(&h, &t->versions, sizeof(t->versions));
	fuzz_hash(&h, &t->session_ops, sizeof(t->session_ops));
	fuzz_hash(&h, &t->left, sizeof(t->left));
	if (times) {
		fuzz_hash(&h, &t->packets, sizeof(t->packets));
		fuzz_hash(&h, &t->span_ns, sizeof(t->span_ns));
	}
	return h;
}

static void file_image(const uint8_t *data, size_t size)
{
	bool gz = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
	uint64_t first = 0;

	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	for (int k = 0; k < 2; k++) {
		struct trace t;
		char err[256] = "";
		int rc = trace_load(path, &t, err, sizeof(err));
		uint64_t h;

		FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ENOMEM || rc < 0);
		FUZZ_CHECK(fuzz_terminated(err, sizeof(err)));
		if (rc) {
			FUZZ_CHECK(err[0] && !strchr(err, '\n'));
			FUZZ_CHECK(t.nops == 0 && t.ops == NULL);
			h = (uint64_t)(int64_t)rc;
		} else {
			h = check_trace(&t, size, !gz, true);
			trace_free(&t);
		}
		if (k == 0)
			first = h;
		else
			FUZZ_CHECK(h == first);
	}
}

struct feed {
	struct trace t;
	struct trace_ctx c;
	uint32_t seq[2];
};

static const uint8_t addr[2][4] = { { 127, 0, 0, 1 }, { 127, 0, 0, 2 } };
static const uint16_t port[2] = { 871, 2049 };

static int segment(struct feed *f, int dir, uint32_t seq, uint8_t flags, const uint8_t *p,
		   uint32_t n)
{
	return trace_tcp_segment(&f->c, addr[dir], addr[!dir], 4, port[dir], port[!dir], seq, flags,
				 p, n, n);
}

/* Feeds the messages (see the top) as segments of piece bytes (0: whole). */
static uint64_t feed(const uint8_t *p, size_t n, unsigned piece, bool reverse, bool again,
		     size_t input)
{
	struct feed f = { .c.t = NULL };
	uint64_t h;
	int rc = 0;

	memset(&f.t, 0, sizeof(f.t));
	f.c.t = &f.t;
	f.seq[0] = 1000;
	f.seq[1] = 0xfffffff0u;		/* wraps around 2^32 soon */
	for (int d = 0; d < 2; d++)
		FUZZ_CHECK(segment(&f, d, f.seq[d]++, 0x02, NULL, 0) == 0);
	while (n >= 3 && rc == 0) {
		int d = p[0] & 1;
		size_t len = (size_t)p[1] << 8 | p[2];
		size_t pieces;

		p += 3;
		n -= 3;
		if (len > n)
			len = n;
		pieces = piece ? (len + piece - 1) / piece : 1;
		/* a piece sent twice out of order is held twice */
		if (!piece || pieces > (again && reverse ? OOO_PIECES / 2 : OOO_PIECES)) {
			if (len)
				rc = segment(&f, d, f.seq[d], 0x18, p, (uint32_t)len);
		} else {
			for (size_t i = 0; i < pieces && rc == 0; i++) {
				size_t k = reverse ? pieces - 1 - i : i;
				size_t at = k * piece, m = len - at < piece ? len - at : piece;

				rc = segment(&f, d, f.seq[d] + (uint32_t)at, 0x18, p + at, (uint32_t)m);
				if (again && rc == 0)
					rc = segment(&f, d, f.seq[d] + (uint32_t)at, 0x18, p + at,
						     (uint32_t)m);
			}
		}
		f.seq[d] += (uint32_t)len;
		p += len;
		n -= len;
	}
	FUZZ_CHECK(rc == 0 || rc == -ENOMEM);
	if (rc == 0)
		trace_tcp_finish(&f.c);
	trace_tcp_free(&f.c);
	h = rc ? (uint64_t)(int64_t)rc : check_trace(&f.t, input, true, false);
	trace_free(&f.t);
	return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	if (!(data[0] & 1)) {
		file_image(data + 1, size - 1);
	} else {
		unsigned piece = 1 + data[1] % 64;
		uint64_t whole = feed(data + 2, size - 2, 0, false, false, size);
		uint64_t cut = feed(data + 2, size - 2, piece, data[0] & 2, data[0] & 4, size);

		FUZZ_CHECK(whole == cut);
	}
	return 0;
}
