/*
 * native_ctl: the native engine's control connection (engine_ctl_ops): the
 * work directory's synchronous operations on names, for workdir.c.
 */
#ifndef NFSLOAD_NATIVE_CTL_H
#define NFSLOAD_NATIVE_CTL_H

#include "engine.h"

extern const struct engine_ctl_ops nat_ctl_ops;

#endif
