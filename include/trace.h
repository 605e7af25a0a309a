/*
 * trace: an NFS capture decoded into the operations it holds (the first part
 * of a replay). A pcap or pcapng file (plain or gzip'd) is read with libpcap;
 * each TCP connection's two directions are reassembled; ONC RPC records are cut
 * out of them and calls matched to replies by xid; NFSv3, NFSv4.x COMPOUNDs and
 * MOUNT v3 are decoded into one struct trace_op per operation (a COMPOUND gives
 * one per operation in it, all with its times).
 *
 * What could not be read is counted in struct trace_left, never guessed at.
 */
#ifndef NFSLOAD_TRACE_H
#define NFSLOAD_TRACE_H

#include <stddef.h>
#include <stdint.h>

enum trace_prog {
	TRACE_NFS,		/* 100003 */
	TRACE_MOUNT,		/* 100005 */
};

#define TRACE_NO_REPLY INT32_MIN	/* status of a call without a (decodable) reply */
#define TRACE_RPC_ERROR (-1)		/* reply denied or not SUCCESS at the RPC level */
#define TRACE_NOT_RUN (-2)		/* v4: an op after the one the COMPOUND stopped at */

struct trace_op {
	uint32_t conn;			/* 1.. the TCP connection, in the order first seen */
	uint64_t call_ns, reply_ns;	/* from the capture's first packet; reply 0: none */
	uint8_t version, minor;		/* NFS 3 or 4 (minor 0..2); MOUNT: 3 */
	uint16_t proc;			/* v3/MOUNT: the procedure; v4: the operation number */
	int32_t status;			/* nfsstat3/nfsstat4/mountstat3, or TRACE_* above */
	uint32_t fh, dir, name, result_fh;	/* indexes in struct trace's tables; 0 = none */
	uint32_t dir2, name2;		/* RENAME: where to (v4: dir2 0, the current dir) */
	uint64_t offset;
	uint32_t count;			/* READ, WRITE, COMMIT, READ_PLUS; v4.2 ALLOCATE, DEALLOCATE,
					 * IO_ADVISE, COPY, CLONE: the length (cut to UINT32_MAX);
					 * SETXATTR: the value's size; LISTXATTRS: maxcount */
	/* NFSv4.2 (RFC 7862, 8276): GETXATTR, SETXATTR, REMOVEXATTR: name is the xattr's
	 * name (without "user."), fh the file */
	uint32_t fh2;			/* COPY, CLONE: the destination (fh: the source, SAVEFH's) */
	uint64_t offset2;		/* COPY, CLONE: the destination offset */
	uint32_t what;			/* SEEK: 0 data, 1 hole; IO_ADVISE: the hints' first word;
					 * SETXATTR: its option */
	uint64_t data_bytes, hole_bytes;	/* READ_PLUS's reply: bytes of data, of holes */
	uint8_t stable;			/* WRITE: stable_how; CREATE (v3), OPEN: createmode + 1 */
	uint8_t prog;			/* enum trace_prog */
	uint32_t compound;		/* v4: 1.. the COMPOUND it belongs to; 0 otherwise */
	int32_t compound_status;	/* v4: the COMPOUND's status (or TRACE_NO_REPLY) */
	/*
	 * NFSv4 state (RFC 8881 9, 18): the stateids' `other` (12 bytes) and the lock-owners
	 * (clientid and owner) interned in struct trace's states and owners (0: none, an
	 * anonymous or bypass stateid; TRACE_STATE_CURRENT: the current stateid, seqid 1).
	 * state: CLOSE, OPEN_DOWNGRADE: the open's; LOCK: the open's (new lock-owner) or the
	 * lock's; LOCKU: the lock's. result_state: OPEN's and LOCK's reply. owner: LOCK's new
	 * lock-owner, LOCKT's. what: OPEN, OPEN_DOWNGRADE: access | deny << 8 (the WANT bits
	 * left out); LOCK, LOCKU, LOCKT: the lock type (1 READ_LT .. 4 WRITEW_LT). offset and
	 * length: the lock's range. stable: LOCK 1 with a new lock-owner.
	 */
	uint32_t state, result_state, owner;
	uint64_t length;
};

#define TRACE_STATE_CURRENT UINT32_MAX

/* Byte strings interned: the same bytes get the same index (1..n). */
struct trace_table {
	struct trace_blob { uint8_t *p; uint32_t len; } *v;	/* v[1..n] */
	uint32_t n, cap;
	uint64_t *keys;			/* open addressing: hash -> index */
	uint32_t *idx;
	uint32_t slots;
};

/* What was left out, and why. */
struct trace_left {
	uint64_t lost_bytes;		/* never captured: TCP gaps, snap-length cuts */
	uint64_t skipped_bytes;		/* captured but skipped while resynchronising */
	uint64_t records;		/* RPC records (or parts) dropped at a gap */
	uint64_t cut_packets;		/* packets shorter than on the wire (caplen < len) */
	uint64_t undecoded;		/* records read but not decoded (other programs, bad XDR) */
	uint64_t v4_ops;		/* COMPOUND ops past one whose arguments are unknown */
	uint64_t orphan_replies;	/* replies to no call seen */
	uint64_t incomplete;		/* records unfinished at the end of the capture */
};

struct trace {
	struct trace_op *ops;
	size_t nops, cap;
	struct trace_table fhs, names;
	struct trace_table states, owners;	/* v4 stateids' other, lock-owners */
	uint32_t conns;
	uint32_t compounds;
	uint64_t packets;
	uint64_t span_ns;		/* last packet's time - first's */
	uint32_t versions;		/* bit 0: NFSv3, bit 1 + m: NFSv4.m, bit 7: MOUNT */
	uint64_t session_ops;		/* v4 SEQUENCE, EXCHANGE_ID, CREATE_SESSION ... */
	struct trace_left left;
};

/*
 * Reads the capture in file into t (zeroed here). 0; -EINVAL when file is not a
 * pcap or pcapng capture (err says why); -errno when it cannot be read; -ENOMEM.
 */
int trace_load(const char *file, struct trace *t, char *err, size_t len);
void trace_free(struct trace *t);

/* Blob i (1..n) of a table; NULL for 0. */
const struct trace_blob *trace_blob(const struct trace_table *tab, uint32_t i);
/* Name of an operation ("READ", "v4 OPEN", "MNT"); "?" when unknown. */
const char *trace_op_name(const struct trace_op *op, char *buf, size_t len);
/* 1 when the v4 op is session plumbing (SEQUENCE, EXCHANGE_ID, CREATE_SESSION ...). */
int trace_is_session_op(unsigned op);

/* nfsload --trace-summary CAPTURE [--output-format text|json] */
int trace_wanted(int argc, char **argv);
int trace_main(int argc, char **argv);

#endif
