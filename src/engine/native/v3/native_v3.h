/*
 * native_v3: a connection's NFSv3 set-up: MNT, FSINFO, the work directory's
 * LOOKUPs, a LOOKUP per file.
 */
#ifndef NFSLOAD_NATIVE_V3_H
#define NFSLOAD_NATIVE_V3_H

#include "../native_conn.h"

/* From a connected socket (mount: the MOUNT port's). known: the handles are
 * filled in already (native_known.c), only the files not known are looked up.
 * false: nothing could be sent. */
bool nat_v3_start(struct engine_conn *c, bool mount, bool known);
/* READ, WRITE or COMMIT on req->file (native_io3.c): c->proto->io_queue. */
int nat_io3_queue(struct engine_conn *c, struct engine_req *req);

#endif
