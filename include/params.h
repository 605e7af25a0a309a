/*
 * params: what an engine is told of a run (struct engine_params, engine.h),
 * made from the run's settings. The one place where struct config meets the
 * engines: nothing below the seam sees struct config.
 */
#ifndef NFSLOAD_PARAMS_H
#define NFSLOAD_PARAMS_H

#include "config.h"
#include "engine.h"

/* Fills p from cfg (its servers, connections' cycle, the engines' options). */
void engine_params_init(struct engine_params *p, const struct config *cfg);

#endif
