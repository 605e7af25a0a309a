/*
 * The trace layers' shared state: libpcap (trace_pcap.c) hands TCP segments to
 * the reassembly (trace_tcp.c), which hands whole RPC records to trace_rpc.c,
 * which hands call arguments and results to the decoders (trace_nfs.c).
 */
#ifndef NFSLOAD_TRACE_INT_H
#define NFSLOAD_TRACE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/native/rpc/xdrx.h"
#include "trace.h"

/* trace_tab.c: u64 key -> u32 value, open addressing (keys are hashes or conn << 32 | xid). */
struct trace_map {
	uint64_t *keys;
	uint32_t *vals;		/* 0: empty, UINT32_MAX: deleted */
	size_t cap, n;
};
uint32_t trace_map_get(const struct trace_map *m, uint64_t key);
int trace_map_put(struct trace_map *m, uint64_t key, uint32_t val);	/* val != 0 */
void trace_map_del(struct trace_map *m, uint64_t key);
void trace_map_free(struct trace_map *m);

/* One direction of a TCP connection. */
struct trace_dir {
	bool have_seq, resync;
	uint32_t next_seq;
	struct trace_seg { uint32_t seq, len, caplen; uint8_t *p; } *ooo;	/* ahead of next_seq */
	size_t nooo;
	uint8_t *buf;		/* bytes in order, not yet cut into records */
	size_t off, len, cap;
	uint8_t *rec;		/* the record's fragments so far */
	size_t rlen, rcap;
};

struct trace_flow {
	uint32_t conn;
	uint8_t key[36];		/* the side that sent first: addr, port; then the other */
	struct trace_dir d[2];
};

/* A call waiting for its reply. */
struct trace_call {
	uint32_t first, n;		/* its ops: t->ops[first .. first + n) */
	uint32_t prog, vers, proc;
	uint32_t service;		/* RPCSEC_GSS: 2 integrity, 3 privacy; else 0 */
};

struct trace_ctx {
	struct trace *t;
	uint64_t t0, now;
	bool have_t0;
	struct trace_flow *flows;
	size_t nflows, fcap;
	struct trace_map flow_ix;	/* hash of the ordered 4-tuple -> flow + 1 */
	struct trace_call *calls;
	size_t ncalls, ccap;
	struct trace_map pending;	/* conn << 32 | xid -> call + 1 */
};

/* trace_tcp.c: a segment's payload; caplen < len when the packet was cut. */
int trace_tcp_segment(struct trace_ctx *c, const uint8_t *src, const uint8_t *dst,
		      unsigned alen, uint16_t sport, uint16_t dport, uint32_t seq,
		      uint8_t flags, const uint8_t *p, uint32_t caplen, uint32_t len);
void trace_tcp_finish(struct trace_ctx *c);
void trace_tcp_free(struct trace_ctx *c);

/* trace_rpc.c: one whole record (fragments joined) from connection conn. */
int trace_rpc_record(struct trace_ctx *c, uint32_t conn, const uint8_t *rec, size_t len);

/* trace_tab.c (under every other layer). Interns bytes into a table: its index, 0 for n == 0, UINT32_MAX on -ENOMEM. */
uint32_t trace_intern(struct trace_table *tab, const uint8_t *p, uint32_t n);
void trace_table_free(struct trace_table *tab);
/* A new op in t, zeroed but for conn and call time; NULL on -ENOMEM. */
struct trace_op *trace_new_op(struct trace_ctx *c, uint32_t conn);
/* An opaque handle or name interned into tab: its index in *out. false: bad XDR. */
bool trace_get_blob(struct trace_ctx *c, XDR *x, struct trace_table *tab, uint32_t max,
		    uint32_t *out);

/* trace_nfs.c: a call's arguments into ops (from t->ops[first]); the results of a reply. */
int trace_nfs_call(struct trace_ctx *c, uint32_t conn, uint32_t prog, uint32_t vers,
		   uint32_t proc, XDR *x);
void trace_nfs_reply(struct trace_ctx *c, const struct trace_call *call, XDR *x);

#endif
