/*
 * ops: the one table of operations. See include/ops.h.
 */
#include <stdio.h>
#include <string.h>

#include "ops.h"

static const struct op_info table[] = {
#define OPS_ROW(id, n, w, c, cls, mix, v, e) [OP_##id] = { n, w, c, cls, mix, v, e },
	OPS_TABLE(OPS_ROW)
#undef OPS_ROW
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
