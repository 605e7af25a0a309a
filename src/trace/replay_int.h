/*
 * The replay plan's private header, shared by replay_walk.c (the first pass:
 * the trace's calls walked in order, handles followed to names) and replay.c
 * (the second: data files, paths, each operation's connection and wait).
 */
#ifndef NFSLOAD_REPLAY_INT_H
#define NFSLOAD_REPLAY_INT_H

#include "replay.h"

#define NONE UINT32_MAX
#define SKIP(r) (-1 - (int)(r))

enum touch { TOUCH_NONE, TOUCH_MADE, TOUCH_MISSING, TOUCH_USED };

struct node {
	uint32_t parent, name;	/* name: index in t->names; orphans: handle | ORPHAN */
	uint8_t first;		/* enum touch */
	bool dir, data;
	uint32_t file;
	uint64_t size;
	uint32_t producer_conn, producer_op;	/* the last LOOKUP/CREATE/OPEN naming it */
	/* The last operation that made, removed or renamed it, and the last one on it at all:
	 * replay connection, op index, time (second pass) */
	uint32_t change_ci, change_op, use_ci, use_op;
	uint64_t change_at, use_at;
	/* A directory: the last operation on a name inside it (an RMDIR waits for it) */
	uint32_t child_ci, child_op;
	uint64_t child_at;
};

#define ORPHAN 0x80000000u

/* One operation as the first pass found it; the second pass places it. */
struct cand {
	const struct trace_op *op;	/* its times, status, offset, count */
	uint32_t conn;			/* trace connection */
	uint32_t node, node2;
	int8_t type;			/* enum op_type, or -1 - enum replay_skip */
	bool open_create, close;
	uint8_t mode;			/* create: trace createmode + 1 */
	uint8_t prio;
	/* State: an OPEN that holds, CLOSE, OPEN_DOWNGRADE, LOCK, LOCKU, LOCKT (replay.h).
	 * state, result_state, owner: the trace's (the current stateid resolved; 0: none);
	 * slot and sprev (the slot's previous state op, a candidate): set by replay.c */
	bool state_op;
	uint32_t state, result_state, owner;
	uint32_t slot, sprev;
};

struct builder {
	const struct trace *t;
	struct node *nodes;
	uint32_t n, cap;
	uint64_t *keys;		/* (parent << 32 | name) + 1; 0 free */
	uint32_t *vals, slots;
	uint32_t *fhnode;	/* handle -> node, NONE */
	struct cand *c;
	size_t nc, ccap;
	uint32_t *xname_ix;	/* trace name -> plan xname (0: none yet); NULL until one */
	bool state;		/* state ops replayed (replay_plan_build_as) */
};

/* The first pass over t's calls into b (b->t set): nodes, handles and candidates. */
int replay_walk(struct builder *b);
void replay_builder_free(struct builder *b);

#endif
