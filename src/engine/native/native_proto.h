/*
 * native_proto: what differs by NFS version in the native engine, one table
 * per version (v3/native_v3.c, v4/native_v4.c), chosen once when a connection
 * is made (c->proto, nat_conn_new): its set-up, its requests on data (READ,
 * WRITE, COMMIT, and NFSv4.2's operations on files) and their replies, its
 * requests on names, what a call without a reply held, its tick and its
 * close. No code outside a version's own files asks which version a
 * connection speaks: it asks the table. The minor version (4.1, 4.2) is the
 * session's, negotiated at set-up (v4/native_v4.c).
 */
#ifndef NFSLOAD_NATIVE_PROTO_H
#define NFSLOAD_NATIVE_PROTO_H

#include <stdbool.h>
#include <stdint.h>

struct engine_conn;
struct engine_params;
struct engine_req;
struct nat_call;
struct nat_mstate;

struct nat_proto {
	const char *name;	/* "NFSv3", "NFSv4": for error lines */
	unsigned rpc_vers;	/* the NFS program's version (RPCSEC_GSS's context's too) */
	bool learns;		/* a set-up may start from what the thread's earlier ones
				 * learned (native_known.c) */
	bool sessions;		/* requests go on session slots (native_sess.c): joined when made */
	/* Set-up that starts with MNT, on a socket connected to the MOUNT port (on its
	 * own connection when that port is not the NFS port), or NULL: none. false:
	 * nothing could be sent. */
	bool (*mount)(struct engine_conn *c);
	/* From a connected (and, with Kerberos, secured) socket to the NFS port: the
	 * set-up. false: nothing could be sent (error() may say why). */
	bool (*start)(struct engine_conn *c);
	/*
	 * Sends req on c's file req->file now, or queues it for a session slot:
	 * 0, -EBUSY (no call free), -EINVAL (an operation this version has not:
	 * error() names it; never sent as another), or -errno. Its reply ends in
	 * done(): bytes moved, or -errno.
	 */
	int (*io_queue)(struct engine_conn *c, struct engine_req *req);
	/* A request on a name (native_meta.c): its first call, or queued for a slot
	 * (0), or -errno (nothing sent). */
	int (*meta_queue)(struct engine_conn *c, struct nat_mstate *st);
	/* The call of st's stage again, after a backoff: 1 (sent or waiting), 0 (done), -errno. */
	int (*meta_again)(struct engine_conn *c, struct nat_mstate *st);
	/* A call got no reply (timed out, or its request is gone): what it held (a
	 * session slot, never used again) is given up. The call itself is not freed. */
	void (*call_lost)(struct engine_conn *c, struct nat_call *call);
	/* About once a second on a ready connection (the lease, the slots), or NULL. */
	void (*tick)(struct engine_conn *c, uint64_t now);
	/* A ready connection's state at the server ends (state NS_CLOSING, on a
	 * private loop): its first calls (CLOSEs; then DESTROY_SESSION,
	 * DESTROY_CLIENTID); ready() says when it ended. false: nothing was sent,
	 * nothing to wait for. NULL: a version with no state to end. */
	bool (*close)(struct engine_conn *c);
};

extern const struct nat_proto nat_proto_v3, nat_proto_v4;

/* The table of the URL's version (cfg->nfs_version). */
const struct nat_proto *nat_proto_of(const struct engine_params *cfg);

#endif
