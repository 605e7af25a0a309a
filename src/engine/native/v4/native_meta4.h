/*
 * native_meta4: NFSv4.1 operations on names: one COMPOUND from the root where it can.
 * A request's replies come back to this file's handler.
 */
#ifndef NFSLOAD_NATIVE_META4_H
#define NFSLOAD_NATIVE_META4_H

#include "../native_names.h"

/* The request's next COMPOUND: 0, -EBUSY (no slot free), or -errno. */
int nat_meta4_send(struct engine_conn *c, struct nat_mstate *st);
/* The request's first COMPOUND, or queued for a slot behind those waiting: 0 or -errno. */
int nat_meta4_queue(struct engine_conn *c, struct nat_mstate *st);
/* The COMPOUND of st's stage again: 1 (sent or waiting for a slot) or -errno. */
int nat_meta4_again(struct engine_conn *c, struct nat_mstate *st);

#endif
