/*
 * ops: the one table of operations. For every op_type: its name (reports,
 * JSON keys, --mix, the op log), the procedure or operation on the wire, its
 * colour in the HTML report, its class, and which NFS versions and engines
 * have it. Adding an operation: its enum op_type entry (workload.h), its row
 * here (ops.c), its codec and the version's file of the engine that sends it.
 */
#ifndef NFSLOAD_OPS_H
#define NFSLOAD_OPS_H

#include <stdbool.h>

#include "workload.h"

/* What an operation works on. */
enum op_class {
	OPC_IO,		/* READ, WRITE, COMMIT: a stream's data files (--rw), or --mix's names */
	OPC_NAME,	/* --mix: a name of the connection's tree */
	OPC_FILE,	/* --mix: a range or attribute of the connection's data files (v4.2) */
};

/* NFS versions (bits of op_info.versions). */
enum {
	OPV_3 = 1u << 0, OPV_40 = 1u << 1, OPV_41 = 1u << 2, OPV_42 = 1u << 3,
	OPV_ALL = OPV_3 | OPV_40 | OPV_41 | OPV_42,
	OPV_4 = OPV_40 | OPV_41 | OPV_42,
};

/* Engines (bits of op_info.engines; engine_ops.op_bit). */
enum {
	OPE_NATIVE = 1u << 0, OPE_LIBNFS = 1u << 1, OPE_LOCAL = 1u << 2, OPE_NULL = 1u << 3,
	OPE_ALL = OPE_NATIVE | OPE_LIBNFS | OPE_LOCAL | OPE_NULL,
};

struct op_info {
	const char *name;	/* "read_plus" */
	const char *wire;	/* "READ_PLUS": the procedure or operation */
	const char *colour;	/* "#2563eb" */
	enum op_class cls;
	bool mix;		/* --mix may name it (COMMIT: --commit-every adds it) */
	unsigned versions;	/* OPV_* */
	unsigned engines;	/* OPE_* */
};

/* The row of op t (t < OP_NTYPES). */
const struct op_info *op_info(enum op_type t);
/* The op --mix calls name, or OP_NTYPES. */
enum op_type op_by_name(const char *name);
/* The version bit for NFS version.minor (3.x: OPV_3). */
unsigned op_version_bit(int version, int minor);
/* "read, write, getattr, ...": the names --mix takes, for an error line. */
const char *op_mix_names(void);

#endif
