/*
 * native_tap: wire time from a packet tap (--wire-source tap) for the native
 * engine's connections: a thread's tap, its connections by local port, and
 * a reply's wire time from the segments seen (xport/tap.h reads them).
 */
#ifndef NFSLOAD_NATIVE_TAP_H
#define NFSLOAD_NATIVE_TAP_H

#include "native_conn.h"

/* At init: whether the run's wire time comes from a tap (cfg->opt.wire_source,
 * CAP_NET_RAW, IPv4 servers: e->tap_used); where not, why, for the note.
 * -errno when the tap was asked for and cannot be opened (why says why).
 * e's addresses are resolved. */
int nat_tap_init(struct nat_engine *e, const struct engine_params *cfg, char *why, size_t len);
/* A worker thread's tap (opened on first attach): 0 or -errno. */
int nat_tap_thread(struct engine_thread *t);
void nat_tap_thread_free(struct engine_thread *t);
/* c on its thread's table (its socket's ports and addresses read), from
 * attach or from the first reply after a reconnect: false if it cannot be. */
bool nat_tap_join(struct engine_conn *c);
/* c's socket closes or leaves its thread: its segments are forgotten. */
void nat_tap_leave(struct engine_conn *c);
void nat_tap_destroy(struct engine_conn *c);
/* A reply from stream offset start to end to call: its wire time, 0 if not known. */
uint64_t nat_tap_wire(struct engine_conn *c, struct nat_call *call, uint64_t start, uint64_t end);

#endif
