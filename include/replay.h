/*
 * replay: a decoded capture (trace.h) turned into what a run replays.
 *
 * Owns: the namespace the trace needs (every directory and file it names,
 * as paths inside the work directory, which of them exist beforehand, and
 * the data files its READs, WRITEs and COMMITs use, with the size its reads
 * need), and for each of the trace's client connections the operations to
 * issue, in call order, at their offsets from the trace's first call, each
 * with the trace's own latency and status and the earlier operations it
 * waits for: of its own connection (the one that named its file), and of
 * another (the trace's order on a name made, removed or renamed). Pure: no
 * I/O, unit-tested without a server.
 *
 * Mapping: an NFSv3 procedure is one operation; an NFSv4 COMPOUND is one,
 * its main operation (READ, WRITE, COMMIT, OPEN, REMOVE ... GETATTR; v4.2's
 * READ_PLUS, SEEK, ALLOCATE, DEALLOCATE, IO_ADVISE, COPY, CLONE and the
 * xattr operations as the ops of the same names, on data files). What
 * the replay's own connections do at set-up stands in for the trace's
 * (MOUNT, FSINFO, v4 session plumbing, an OPEN and CLOSE of a data file in
 * one COMPOUND); what no engine operation matches (FSSTAT, READLINK, LINK
 * ...) is counted as left out, by reason.
 *
 * State (NFSv4): an OPEN that holds its open past its COMPOUND, its CLOSE,
 * OPEN_DOWNGRADE, LOCK, LOCKU and LOCKT are operations of their own, each
 * (an OPEN with another state op in its COMPOUND: each of them) on a held
 * slot of its connection: a traced open (its stateid's `other`, per trace
 * connection) takes the lowest free slot (an OPEN that names an open already
 * held, an upgrade, takes that one's), a CLOSE frees it, a lock stateid and
 * a new lock-owner map to the slot of the open they came from (LOCKT: the
 * connection's last open of its file, else its lock-owner's). A state op on an
 * open the capture never showed (begun before it) is left out (its reason:
 * REPLAY_SKIP_STATE). An OPEN and its CLOSE in one COMPOUND hold nothing:
 * one OP_OPEN, as before. A held OPEN that made its name in the trace is
 * left to make it on replay (the native engine's OPEN of a held slot by name
 * creates, UNCHECKED): its name is not made beforehand. Names are the trace's where they are plain
 * ([A-Za-z0-9._-], at most 64 bytes, not "." or ".."), "n<index>" otherwise;
 * a handle never named in the trace becomes "h<index>" at the top; a data
 * file is "file.<id>" at the top (the name the engines open).
 */
#ifndef NFSLOAD_REPLAY_H
#define NFSLOAD_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace.h"
#include "workload.h"

#define REPLAY_NO_DEP UINT32_MAX
#define REPLAY_DEPTH_MAX 256	/* a connection's slots: its largest concurrency in the trace */

/* Why a trace operation is not replayed. */
enum replay_skip {
	REPLAY_SKIP_SETUP,	/* MOUNT, FSINFO, session plumbing, a data file's OPEN/CLOSE */
	REPLAY_SKIP_NO_OP,	/* no engine operation does it (FSSTAT, LINK ...) */
	REPLAY_SKIP_NAME,	/* its path is too long */
	REPLAY_SKIP_STATE,	/* a CLOSE, LOCK ... of an open the capture never showed */
	REPLAY_SKIP_N
};

struct replay_op {
	uint64_t at_ns;		/* call time, from the trace's first replayed call */
	uint64_t offset;	/* READ, WRITE, COMMIT */
	uint64_t trace_lat_ns;	/* reply - call in the trace; 0: no reply there */
	uint32_t len;		/* READ, WRITE, READ_PLUS: bytes (cut to max_io); COMMIT and the
				 * v4.2 ranges: the trace's count or length; SETXATTR: the value's size */
	uint32_t range;		/* data ops: index into the connection's files */
	uint32_t path, path2;	/* metadata: indexes into plan paths (rename: path2) */
	/* NFSv4.2 (ops of class OPC_FILE, ops.h), as engine_req's fields of the same names */
	uint64_t offset2;	/* COPY, CLONE: the destination offset */
	uint64_t length;	/* LOCK, LOCKU, LOCKT: the range's length (state, below) */
	uint32_t range2;	/* COPY, CLONE: the destination, index into the connection's files */
	uint32_t what;		/* SEEK: 0 data, 1 hole; IO_ADVISE: the hints */
	uint32_t xname;		/* xattr ops: index into plan xnames (0: none) */
	/*
	 * State (ops of class OPC_HELD, OPC_LOCK, and OP_OPEN when held): on held slot
	 * `slot` of the connection (0 .. plan open_slots); path: the open's name. what:
	 * OPEN, OPEN_DOWNGRADE: engine.h's ENGINE_SHARE(access, deny); LOCK, LOCKU,
	 * LOCKT: ENGINE_LOCK_READ or _WRITE. offset and length: the lock's range
	 * (UINT64_MAX: to the end). sdep: the slot's previous state op, which it waits
	 * for (REPLAY_NO_DEP: none): an open's ops go in the trace's order, a slot is
	 * opened again only after its CLOSE.
	 */
	uint32_t slot, sdep;
	uint32_t dep;		/* index of the op of this connection it waits for */
	uint32_t xconn, xop;	/* an op of another connection it waits for (REPLAY_NO_DEP) */
	int32_t trace_status;	/* 0: succeeded in the trace; > 0 failed; TRACE_NO_REPLY */
	uint8_t type;		/* enum op_type */
	bool unchecked;		/* CREATE of a name made beforehand (a data file) */
	bool held;		/* a state op (above) */
};

struct replay_conn {
	uint32_t trace_conn;	/* the trace's connection number */
	struct replay_op *ops;
	uint32_t nops;
	uint32_t *files;	/* data file ids this connection opens */
	uint32_t nfiles;
	unsigned depth;		/* most calls the trace had in flight on it */
	uint64_t span_ns;	/* first call to last reply, in the trace */
};

/* A name the namespace holds: a directory or a file, made beforehand or not. */
struct replay_node {
	uint32_t path;		/* into paths */
	bool dir;
	bool before;		/* made before the replay starts */
	uint32_t file;		/* data file id, UINT32_MAX: none */
};

struct replay_plan {
	struct replay_conn *conns;
	uint32_t nconns;
	char **paths;		/* "" (the work directory), "a/b", "file.000003" */
	uint32_t npaths;
	struct replay_node *nodes;	/* parents before children */
	uint32_t nnodes;
	uint64_t *file_size;	/* per data file: what its reads need */
	uint32_t nfiles;
	char **xnames;		/* xattr names, xnames[1..nxnames): the trace's where plain
				 * ([A-Za-z0-9._-], at most 64 bytes), "x<index>" otherwise */
	uint32_t nxnames;
	unsigned depth;		/* largest connection depth */
	unsigned open_slots;	/* most held slots a connection uses (opens held at once) */
	uint64_t ops;		/* operations to replay */
	uint64_t trace_ops;	/* operations (v3 calls, v4 COMPOUNDs) in the trace */
	uint64_t skipped[REPLAY_SKIP_N];
	uint64_t span_ns;	/* first replayed call to the last call */
};

/* What a success of o gives done(): the bytes READ, WRITE and READ_PLUS move, else 0. */
uint32_t replay_op_bytes(const struct replay_op *o);

/* What a reason of enum replay_skip is, in a report. */
const char *replay_skip_name(enum replay_skip r);

/*
 * Builds plan from t. max_io caps a READ or WRITE's length (the engine's
 * largest; longer ones are cut). 0; -ENOENT when nothing in t can be
 * replayed (err says why); -ENOMEM.
 */
int replay_plan_build(const struct trace *t, uint32_t max_io, struct replay_plan *plan,
		      char *err, size_t len);
/*
 * The same, state false for a run whose engine or NFS version holds no state (libnfs,
 * NFSv3, NFSv4.0): the state ops as before they were replayed (an OPEN and CLOSE of a
 * data file done by the set-up, an OPEN of another name OP_OPEN or OP_CREATE, CLOSE
 * set-up, LOCK, LOCKU, LOCKT, OPEN_DOWNGRADE left out as REPLAY_SKIP_NO_OP).
 */
int replay_plan_build_as(const struct trace *t, uint32_t max_io, bool state,
			 struct replay_plan *plan, char *err, size_t len);
void replay_plan_free(struct replay_plan *plan);

#endif
