/*
 * ops: the one table of operations (OPS_TABLE below). For every operation:
 * its enum op_type, its name (reports, JSON keys, --mix, the op log), the
 * procedure or operation on the wire, its colour in the HTML report, its
 * class, and which NFS versions and engines have it. No code outside this
 * table may read meaning into an op's position. Adding an operation: its row
 * here, its codec, the version's file of the engine that sends it (for an
 * NFSv4.2 one: native_v42.c), a test and the man page's OPERATIONS.
 */
#ifndef NFSLOAD_OPS_H
#define NFSLOAD_OPS_H

#include <stdbool.h>

/* What an operation works on. */
enum op_class {
	OPC_IO,		/* READ, WRITE, COMMIT: a stream's data files (--rw), or --mix's names */
	OPC_NAME,	/* --mix: a name of the connection's tree */
	OPC_FILE,	/* --mix: a range or attribute of the connection's data files (v4.2) */
	OPC_HELD,	/* --mix with --open-files: one of the connection's held files */
	OPC_LOCK,	/* --mix: a byte range of the connection's data files (locks) */
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
	OPE_V42 = OPE_NATIVE | OPE_NULL,	/* the null engine completes them, sending nothing */
	OPE_STATE = OPE_NATIVE | OPE_NULL,	/* held opens and locks: the same */
};

/*
 * X(ID, name, wire, colour, class, mix, versions, engines), in report order:
 * enum op_type's OP_<ID>, and struct op_info's members. mix: --mix may name
 * it (COMMIT: --commit-every adds it).
 */
#define OPS_TABLE(X) \
	X(READ, "read", "READ", "#2563eb", OPC_IO, true, OPV_ALL, OPE_ALL) \
	X(WRITE, "write", "WRITE", "#059669", OPC_IO, true, OPV_ALL, OPE_ALL) \
	X(COMMIT, "commit", "COMMIT", "#7c3aed", OPC_IO, false, OPV_ALL, OPE_ALL) \
	X(GETATTR, "getattr", "GETATTR", "#d97706", OPC_NAME, true, OPV_ALL, OPE_ALL) \
	X(LOOKUP, "lookup", "LOOKUP", "#0891b2", OPC_NAME, true, OPV_ALL, OPE_ALL) \
	X(ACCESS, "access", "ACCESS", "#db2777", OPC_NAME, true, OPV_ALL, OPE_ALL) \
	X(SETATTR, "setattr", "SETATTR", "#65a30d", OPC_NAME, true, OPV_ALL, OPE_ALL) \
	X(READDIR, "readdir", "READDIRPLUS", "#4f46e5", OPC_NAME, true, OPV_ALL, OPE_ALL) \
	X(CREATE, "create", "CREATE", "#dc2626", OPC_NAME, true, OPV_ALL, OPE_ALL) \
	X(REMOVE, "remove", "REMOVE", "#0d9488", OPC_NAME, true, OPV_ALL, OPE_ALL) \
	X(MKDIR, "mkdir", "MKDIR", "#9333ea", OPC_NAME, true, OPV_ALL, OPE_ALL) \
	X(RMDIR, "rmdir", "RMDIR", "#ca8a04", OPC_NAME, true, OPV_ALL, OPE_ALL) \
	X(RENAME, "rename", "RENAME", "#475569", OPC_NAME, true, OPV_ALL, OPE_ALL) \
	X(OPEN, "open", "OPEN", "#be123c", OPC_NAME, true, OPV_ALL, OPE_ALL) \
	/* NFSv4.2 (RFC 7862, RFC 8276): on the connection's data files */ \
	X(READ_PLUS, "read_plus", "READ_PLUS", "#1d4ed8", OPC_FILE, true, OPV_42, OPE_V42) \
	X(SEEK, "seek", "SEEK", "#0e7490", OPC_FILE, true, OPV_42, OPE_V42) \
	X(ALLOCATE, "allocate", "ALLOCATE", "#15803d", OPC_FILE, true, OPV_42, OPE_V42) \
	X(DEALLOCATE, "deallocate", "DEALLOCATE", "#b45309", OPC_FILE, true, OPV_42, OPE_V42) \
	X(IO_ADVISE, "io_advise", "IO_ADVISE", "#6d28d9", OPC_FILE, true, OPV_42, OPE_V42) \
	X(COPY, "copy", "COPY", "#a21caf", OPC_FILE, true, OPV_42, OPE_V42) \
	X(CLONE, "clone", "CLONE", "#c2410c", OPC_FILE, true, OPV_42, OPE_V42) \
	X(GETXATTR, "getxattr", "GETXATTR", "#0f766e", OPC_FILE, true, OPV_42, OPE_V42) \
	X(SETXATTR, "setxattr", "SETXATTR", "#9f1239", OPC_FILE, true, OPV_42, OPE_V42) \
	X(LISTXATTRS, "listxattrs", "LISTXATTRS", "#4338ca", OPC_FILE, true, OPV_42, OPE_V42) \
	X(REMOVEXATTR, "removexattr", "REMOVEXATTR", "#854d0e", OPC_FILE, true, OPV_42, OPE_V42) \
	/* State (RFC 8881 9 and 18; NFSv3: NLM v4's non-blocking calls). open: with \
	 * --open-files, OPEN of a closed held file (OPC_HELD, meta.c) */ \
	X(CLOSE, "close", "CLOSE", "#9d174d", OPC_HELD, true, OPV_41 | OPV_42, OPE_STATE) \
	X(OPEN_DOWNGRADE, "open_downgrade", "OPEN_DOWNGRADE", "#7e22ce", OPC_HELD, false, \
	  OPV_41 | OPV_42, OPE_STATE) \
	X(LOCK, "lock", "LOCK", "#b91c1c", OPC_LOCK, true, OPV_3 | OPV_41 | OPV_42, OPE_STATE) \
	X(UNLOCK, "unlock", "LOCKU", "#047857", OPC_LOCK, true, OPV_3 | OPV_41 | OPV_42, OPE_STATE) \
	X(LOCKT, "lockt", "LOCKT", "#a16207", OPC_LOCK, true, OPV_3 | OPV_41 | OPV_42, OPE_STATE)

/* Every operation the program knows, in report order (the table's). */
enum op_type {
#define OPS_ENUM(id, ...) OP_##id,
	OPS_TABLE(OPS_ENUM)
#undef OPS_ENUM
	OP_NTYPES
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

/* "read", "getattr", ...: the name of an op type in reports, JSON keys and --mix. */
const char *op_name(enum op_type t);
/* The NFS procedure or operation (or libnfs call, for composite ones) behind an op type. */
const char *op_procedure(enum op_type t);
/* The row of op t (t < OP_NTYPES). */
const struct op_info *op_info(enum op_type t);
/* The op --mix calls name, or OP_NTYPES. */
enum op_type op_by_name(const char *name);
/* The version bit for NFS version.minor (3.x: OPV_3). */
unsigned op_version_bit(int version, int minor);
/* "read, write, getattr, ...": the names --mix takes, for an error line. */
const char *op_mix_names(void);

#endif
