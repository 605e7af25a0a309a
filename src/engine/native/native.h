/*
 * native: the native engine (engine_native, include/engine.h) and its
 * instances, each with its own addresses, transport, tap and counts, to run
 * side by side in one process; engine_ops' init makes one, these make them
 * without the table (tests/helper_engines.c). A connection of an instance
 * (native_life.h: nat_conn_new) goes on threads of the same instance.
 */
#ifndef NFSLOAD_NATIVE_H
#define NFSLOAD_NATIVE_H

#include "native_conn.h"
#include "native_life.h"

/* A fresh instance (NULL: no memory); nat_engine_init prepares it for cfg. */
struct nat_engine *nat_engine_new(void);
void nat_engine_free(struct nat_engine *e);
/* engine_ops.init for e: the servers' addresses, the transport, the tap. */
int nat_engine_init(struct nat_engine *e, const struct engine_params *cfg, char *note, size_t len);
/* engine_ops.limits_note for e (valid until the next call on e). */
const char *nat_engine_note(struct nat_engine *e, const struct engine_params *cfg);
/* engine_ops.thread_new and thread_free for e. */
struct engine_thread *nat_thread_new(struct nat_engine *e, const struct engine_params *cfg,
				     struct ev_loop *loop);
void nat_thread_free(struct engine_thread *t);

#endif
