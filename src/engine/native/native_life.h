/*
 * native_life: a native engine connection's life, as the engine table
 * (native.c) and the control connection (native_ctl.c) drive it: made,
 * connected and set up, attached to a thread's loop, its requests queued,
 * ticked, dropped, closed, freed. It sets the connection's nat_up table:
 * what the layers below it ask of it.
 */
#ifndef NFSLOAD_NATIVE_LIFE_H
#define NFSLOAD_NATIVE_LIFE_H

#include "native_conn.h"

/* engine_ops.conn_new for instance e. */
int nat_conn_new(struct nat_engine *e, const struct engine_params *cfg, unsigned id,
		 const uint32_t *file_ids, uint32_t nfiles, struct engine_conn **out);
/* The rest are engine_ops' of the same names (include/engine.h). */
int nat_connect(struct engine_conn *c, struct engine_thread *t, const struct engine_cbs *cbs,
		void *owner);
void nat_attach(struct engine_conn *c, struct engine_thread *t, const struct engine_cbs *cbs,
		void *owner);
void nat_detach(struct engine_conn *c);
int nat_queue(struct engine_conn *c, struct engine_req *req);
void nat_commit(struct engine_conn *c);
void nat_tick(struct engine_conn *c);
void nat_drop(struct engine_conn *c);
void nat_close(struct engine_conn *c);
void nat_conn_free(struct engine_conn *c);
const char *nat_conn_error(const struct engine_conn *c);

#endif
