/*
 * engine: the table of engines --engine chooses from, and the default: native
 * (the seam itself is include/engine.h).
 */
#include <stdio.h>
#include <string.h>

#include "engine.h"

static const struct engine_ops *const engines[] = { &engine_libnfs, &engine_native, &engine_local,
							    &engine_null };

const struct engine_ops *engine_find(const char *name)
{
	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (strcmp(engines[i]->name, name) == 0)
			return engines[i];
	return NULL;
}

const struct engine_ops *engine_default(void)
{
	return &engine_native;
}

const struct engine_ops *engine_nth(size_t i)
{
	return i < sizeof(engines) / sizeof(engines[0]) ? engines[i] : NULL;
}

const char *engine_names(void)
{
	static char names[128];

	if (names[0])
		return names;
	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++) {
		if (i)
			strcat(names, ", ");
		strcat(names, engines[i]->name);
	}
	return names;
}
