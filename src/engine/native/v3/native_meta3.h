/*
 * native_meta3: NFSv3 operations on names: LOOKUPs as stages, then the procedure.
 * A request's replies come back to this file's handler.
 */
#ifndef NFSLOAD_NATIVE_META3_H
#define NFSLOAD_NATIVE_META3_H

#include "../native_names.h"

/* The first call of a request (0, or -errno: nothing sent). */
int nat_meta3_start(struct engine_conn *c, struct nat_mstate *st);
/* The call of st's stage again: 1 (sent), 0 (done), -errno. */
int nat_meta3_again(struct engine_conn *c, struct nat_mstate *st);

#endif
