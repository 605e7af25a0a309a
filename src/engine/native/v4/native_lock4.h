/*
 * native_lock4: byte-range locks over NFSv4.1 and 4.2 (RFC 8881 9, 18.10-18.12):
 * a worker's LOCK, LOCKU and LOCKT (engine_req ops OP_LOCK, OP_UNLOCK, OP_LOCKT
 * on data file req->file, req->offset, req->range bytes, req->what
 * ENGINE_LOCK_READ or ENGINE_LOCK_WRITE), each ONE timed COMPOUND: SEQUENCE,
 * PUTFH, LOCK|LOCKU|LOCKT.
 *
 * One lock-owner per connection ("nfsload-lk-<pid>-<id>", a name apart from the
 * open-owners), a lock stateid per file in struct nat_file. A lock-owner's first
 * LOCK on a file goes with open_to_lock_owner4 (the file's open stateid); the
 * others with exist_lock_owner4 (the lock stateid it returned). While a first
 * LOCK is in flight the connection's other LOCKs and LOCKUs on that file wait
 * for its answer (a second open_to_lock_owner4 for the same lock-owner and file
 * is refused by RFC 8881 18.10.3's rules: NFS4ERR_BAD_SEQID), then go as
 * exist_lock_owner4, or the first of them as a new first when it got no stateid.
 *
 * NFS4ERR_DENIED ends a request with -ENGINE_DENIED (an answer, not "try later").
 * BAD_STATEID, EXPIRED, ADMIN_REVOKED, STALE_STATEID on a LOCK or LOCKU count as
 * state lost and drop that file's lock state (the next LOCK is a new first).
 *
 * The connection remembers the locks granted (at most META_LOCKS_MAX at once, as
 * the worker holds) so that a connection made again under a new client (a loss,
 * a server restart) LOCKs them again once its files are open (counted as
 * locks_remade; NFS4ERR_GRACE waits and sends again). Teardown unlocks every
 * lock stateid (LOCKU of 0..all ones, FREE_STATEID) in the COMPOUND of its
 * file's CLOSE, so that CLOSE does not fail with NFS4ERR_LOCKS_HELD.
 */
#ifndef NFSLOAD_NATIVE_LOCK4_H
#define NFSLOAD_NATIVE_LOCK4_H

#include "../native_conn.h"

struct nat_locks;

/* Whether req is a lock request (OPC_LOCK): then nat_lock4_send is its sender. */
bool nat_lock4_is(const struct engine_req *req);
/* Sends req now, or holds it behind its file's first LOCK: 0, -EBUSY (no slot
 * free), or -errno. */
int nat_lock4_send(struct engine_conn *c, struct engine_req *req);
/* Set-up opened c's files: lock state of an older client is dropped, and the
 * locks c held are LOCKed again under the new one. */
void nat_lock4_setup(struct engine_conn *c);
/* About once a second on a ready connection: re-made LOCKs that wait (a slot, GRACE). */
void nat_lock4_tick(struct engine_conn *c, uint64_t now);
/* c dropped: requests held behind a first LOCK are forgotten (the owner counts them
 * lost), the locks it held kept for a re-make. */
void nat_lock4_drop(struct engine_conn *c);
/* Teardown: appends to a CLOSE's COMPOUND (after PUTFH) LOCKU of everything and
 * FREE_STATEID for f's lock stateid, if f has one (else nothing: true). */
bool nat_lock4_enc_release(struct engine_conn *c, struct nfs4_enc *e, struct nat_file *f);
void nat_lock4_free(struct engine_conn *c);

#endif
