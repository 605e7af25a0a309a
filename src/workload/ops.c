/*
 * ops: the one table of operations. See include/ops.h.
 */
#include <stdio.h>
#include <string.h>

#include "ops.h"

#define IO(n, w, c, v, e)	{ n, w, c, OPC_IO, true, v, e }
#define NAME(n, w, c, v, e)	{ n, w, c, OPC_NAME, true, v, e }
#define FILE42(n, w, c)		{ n, w, c, OPC_FILE, true, OPV_42, OPE_NATIVE | OPE_NULL }

static const struct op_info table[] = {
	[OP_READ] = IO("read", "READ", "#2563eb", OPV_ALL, OPE_ALL),
	[OP_WRITE] = IO("write", "WRITE", "#059669", OPV_ALL, OPE_ALL),
	[OP_COMMIT] = { "commit", "COMMIT", "#7c3aed", OPC_IO, false, OPV_ALL, OPE_ALL },
	[OP_GETATTR] = NAME("getattr", "GETATTR", "#d97706", OPV_ALL, OPE_ALL),
	[OP_LOOKUP] = NAME("lookup", "LOOKUP", "#0891b2", OPV_ALL, OPE_ALL),
	[OP_ACCESS] = NAME("access", "ACCESS", "#db2777", OPV_ALL, OPE_ALL),
	[OP_SETATTR] = NAME("setattr", "SETATTR", "#65a30d", OPV_ALL, OPE_ALL),
	[OP_READDIR] = NAME("readdir", "READDIRPLUS", "#4f46e5", OPV_ALL, OPE_ALL),
	[OP_CREATE] = NAME("create", "CREATE", "#dc2626", OPV_ALL, OPE_ALL),
	[OP_REMOVE] = NAME("remove", "REMOVE", "#0d9488", OPV_ALL, OPE_ALL),
	[OP_MKDIR] = NAME("mkdir", "MKDIR", "#9333ea", OPV_ALL, OPE_ALL),
	[OP_RMDIR] = NAME("rmdir", "RMDIR", "#ca8a04", OPV_ALL, OPE_ALL),
	[OP_RENAME] = NAME("rename", "RENAME", "#475569", OPV_ALL, OPE_ALL),
	[OP_OPEN] = NAME("open", "OPEN", "#be123c", OPV_ALL, OPE_ALL),
	[OP_READ_PLUS] = FILE42("read_plus", "READ_PLUS", "#1d4ed8"),
	[OP_SEEK] = FILE42("seek", "SEEK", "#0e7490"),
	[OP_ALLOCATE] = FILE42("allocate", "ALLOCATE", "#15803d"),
	[OP_DEALLOCATE] = FILE42("deallocate", "DEALLOCATE", "#b45309"),
	[OP_IO_ADVISE] = FILE42("io_advise", "IO_ADVISE", "#6d28d9"),
	[OP_COPY] = FILE42("copy", "COPY", "#a21caf"),
	[OP_CLONE] = FILE42("clone", "CLONE", "#c2410c"),
	[OP_GETXATTR] = FILE42("getxattr", "GETXATTR", "#0f766e"),
	[OP_SETXATTR] = FILE42("setxattr", "SETXATTR", "#9f1239"),
	[OP_LISTXATTRS] = FILE42("listxattrs", "LISTXATTRS", "#4338ca"),
	[OP_REMOVEXATTR] = FILE42("removexattr", "REMOVEXATTR", "#854d0e"),
};

_Static_assert(sizeof(table) / sizeof(table[0]) == OP_NTYPES,
	       "the op table has a row for every op_type");

const struct op_info *op_info(enum op_type t)
{
	return &table[t];
}

const char *op_name(enum op_type t)
{
	return table[t].name;
}

const char *op_procedure(enum op_type t)
{
	return table[t].wire;
}

enum op_type op_by_name(const char *name)
{
	for (int t = 0; t < OP_NTYPES; t++)
		if (table[t].mix && strcmp(table[t].name, name) == 0)
			return (enum op_type)t;
	return OP_NTYPES;
}

unsigned op_version_bit(int version, int minor)
{
	if (version == 3)
		return OPV_3;
	return minor >= 2 ? OPV_42 : minor == 1 ? OPV_41 : OPV_40;
}

const char *op_mix_names(void)
{
	static char buf[400];

	if (!buf[0]) {
		size_t n = 0;

		for (int t = 0; t < OP_NTYPES; t++)
			if (table[t].mix)
				n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? ", " : "",
						      table[t].name);
	}
	return buf;
}
