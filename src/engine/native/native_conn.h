/*
 * native_conn: the native engine's shared types and the few primitives every
 * layer of it needs (set an error, fail a connection, end a set-up, end a
 * request). It calls nothing above it: what the layers above must do when a
 * connection fails or its set-up ends, they put in the connection's nat_up
 * table when they make it (native_life.c), and a reply goes to the handler
 * its call was issued with (native_call.h).
 *
 * The engine's files, bottom up: slot4 (an NFSv4.x session's slot table,
 * pure: the session below holds one), native_conn (this), native_proto (what
 * differs by version: c->proto), native_tap (wire time from a packet tap),
 * native_call (calls in flight, the socket); each version's in a folder of
 * its own, v3/ (native_v3: set-up and its table; native_io3: READ, WRITE,
 * COMMIT; native_meta3: names; native_nlm: locks through NLM v4 on a
 * connection of their own) and v4/ (native_sess: sessions; native_comp4: a
 * COMPOUND on a session slot; native_io4: requests on data, with native_v42's
 * NFSv4.2 operations; native_meta4: names; native_held4: the held files;
 * native_lock4: byte-range locks; native_v4: set-up, teardown and its table,
 * above them all); then
 * native_known (NFSv3 set-ups from what the thread learned), native_ops
 * (requests on data, any version), native_names and native_meta (operations
 * on names, any version), native_life (a connection's life), native_pmap
 * (rpcbind, addresses), native_ctl (the control connection), native.c (the
 * engine table and its instance).
 */
#ifndef NFSLOAD_NATIVE_CONN_H
#define NFSLOAD_NATIVE_CONN_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "engine.h"
#include "../lowat.h"
#include "codec/nfs3x.h"
#include "codec/nfs4x.h"
#include "native_proto.h"
#include "rpc/gss.h"
#include "rpc/rpc.h"
#include "slot4.h"
#include "xport/tap.h"
#include "xport/xport.h"

struct nat_call;

/* What a reply is to (the call's kind decides how it is read). */
enum nat_kind {
	NK_NONE,
	NK_MNT, NK_FSINFO, NK_LOOKUP,		/* NFSv3 set-up */
	NK_EXCHANGE_ID, NK_CREATE_SESSION, NK_RECLAIM, NK_ROOT,	/* NFSv4.1 set-up */
	NK_OPEN, NK_CLOSE, NK_SEQUENCE, NK_DESTROY_SESSION, NK_DESTROY_CLIENTID,
	NK_REQ,					/* a worker's READ, WRITE or COMMIT */
	NK_META,				/* a request on a name (native_meta.c) */
	NK_GSS_INIT,				/* RPCSEC_GSS context creation (native_gss.c) */
	NK_HOPEN, NK_DELEGRETURN,		/* held files: set-up's OPEN; a delegation returned */
};

enum nat_state {
	NS_DOWN,		/* nothing open (new, dropped, failed) */
	NS_MOUNT_CONNECT,	/* v3: TCP to the MOUNT port */
	NS_MOUNTING,		/* v3: MNT */
	NS_CONNECT,		/* TCP to the NFS port */
	NS_SETUP,		/* v3: FSINFO, LOOKUPs; v4.1: session, root, OPENs */
	NS_READY,
	NS_CLOSING,		/* close(): CLOSEs, DESTROY_SESSION, DESTROY_CLIENTID */
};

/*
 * Where a call's reply goes, chosen by whoever issued the call (one hop from
 * the call table to the layer that understands the reply).
 *   reply:   x at the results; rpc_status 0 or -errno from the RPC header.
 *            The handler frees the call (nat_call_free).
 *   timeout: no reply within --timeout; the call is still held.
 */
struct nat_handler {
	void (*reply)(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status);
	void (*timeout)(struct engine_conn *c, struct nat_call *call);
};

/* One call in flight on a connection. */
struct nat_call {
	const struct nat_handler *h;	/* its reply's handler, with req and arg as context */
	uint32_t xid;			/* 0: free */
	uint16_t kind;			/* enum nat_kind */
	uint16_t slot;			/* v4.1: the session slot it holds */
	uint32_t arg;			/* the kind's: a file index */
	uint64_t deadline_ns;
	uint64_t tx_start, tx_end;	/* the stream offsets of its first byte and past its last */
	uint64_t tx_ns;			/* the packet tap: when its last byte left, 0: not seen */
	uint32_t rx_seq, rx_mark;	/* ... the TCP sequence number and record mark of */
	bool rx_seen;			/* ... a segment its reply starts (rx_seen) */
	bool gss;			/* sent with the connection's RPCSEC_GSS context: */
	uint32_t gss_seq;		/* ... its sequence number */
	u_int gss_body;			/* ... where its body starts in the scratch buffer */
	struct engine_req *req;		/* NK_REQ */
};

/* A request waiting for a session slot, and the connection it goes on. */
struct nat_wait {
	struct engine_conn *c;
	struct engine_req *req;
};

enum nat_sess_state { SESS_NONE, SESS_CREATING, SESS_UP };

struct nat_sess_group;

/*
 * An NFSv4.1 client and its session as one thread sees it: the share of a
 * --connections-per-session group whose members run on that thread (all of
 * them at set-up, on the set-up loop). The connection that finds it
 * SESS_NONE creates it; the others wait, then bind with their first
 * SEQUENCE. A worker thread's share owns a slice of the session's slots
 * (nat_sess_thread): its requests that find none free wait in order,
 * whichever of its connections they go on. Only its thread touches it.
 */
struct nat_session {
	struct nat_engine *eng;
	struct nat_sess_group *group;	/* the group's members and shares (set-up, teardown) */
	const struct engine_thread *t;	/* the worker thread it runs on, NULL: set-up */
	unsigned refs;
	enum nat_sess_state state;
	struct engine_conn *creator;
	struct engine_conn **members;
	unsigned nmembers;
	uint64_t clientid;
	uint32_t exchange_seq;		/* EXCHANGE_ID's sequenceid, for CREATE_SESSION */
	uint32_t minor;			/* the minor version it is made with: every COMPOUND's */
	uint8_t id[NFS4_SESSIONID_SIZE];
	struct nfs4_chan_attrs fore;	/* what the server granted */
	struct slot4_table slots;
	uint32_t slots_lost;		/* taken by requests that got no reply: never free again */
	uint8_t owner_name[48];		/* the client's and the open-owner's name */
	uint32_t owner_len;
	struct nat_wait *wait;		/* ring of requests waiting for a slot */
	uint32_t nwait, wait_head, wait_cap;
	bool destroyed;			/* torn down at the end */
};

/* One file of a connection. */
struct nat_file {
	struct nfs_fh fh;
	struct nfs4_stateid sid;	/* v4.1: from OPEN */
	bool open;
	bool nlm_locked;		/* v3: an NLM4_LOCK was sent on it: unlocked at the end */
	/* v4.1 locks (v4/native_lock4.c): the connection's lock-owner's stateid on it while
	 * lock_ok, the clientid it was made under, and a first LOCK in flight */
	bool lock_ok, lock_first;
	struct nfs4_stateid lock_sid;
	uint64_t lock_client;
};

/* What the engine keeps beside a held file's open (native_held4.c). */
struct nat_held {
	bool want;			/* open when the connection was lost: set-up re-makes it */
	bool deleg;			/* a delegation to return (deleg_sid) */
	uint32_t share;			/* ENGINE_SHARE(access, deny) it was opened with */
	char *path;			/* a replay's name below the export (NULL: wl_held_name) */
	struct nfs4_stateid deleg_sid;
};

/*
 * One instance of the native engine: what init() learned for the run, and
 * counts for the report. Threads and connections reach it through their
 * eng; two instances run side by side in one process.
 */
struct nat_engine {
	/* Set in init(), before any thread; read-only after. One per server. */
	struct sockaddr_storage nfs_addr[ENGINE_SERVERS_MAX], mnt_addr[ENGINE_SERVERS_MAX];
	socklen_t addr_len[ENGINE_SERVERS_MAX];
	/* NFSv3 with lock, unlock or lockt in --mix (nat_nlm_wanted): NLM v4's, else unset */
	struct sockaddr_storage nlm_addr[ENGINE_SERVERS_MAX];
	unsigned naddr;
	bool use_uring;
	char transport_note[512];
	char limits_note[912];		/* limits_note()'s answer */

	/* --wire-source tap (native_tap.c) */
	bool tap_used;
	bool tap_lo;			/* every server on 127.0.0.0/8 */
	uint16_t srv_ports[ENGINE_SERVERS_MAX];
	unsigned nsrv_ports;

	/* Counted by every thread (atomics). */
	unsigned long retried;		/* requests sent again after a backoff */
	/* State (engine_state_counts): held opens at the end of each connection's last
	 * set-up, delegations returned, set-up and held calls sent again after
	 * NFS4ERR_GRACE (and NLM4_DENIED_GRACE_PERIOD), held opens lost (BAD_STATEID ...), held opens re-made */
	uint64_t held_opens, delegations_returned, grace_waits, state_lost, opens_remade;
	unsigned slots_min, slots_max, sessions_made;
	/* v4.1 locks (v4/native_lock4.c): LOCKed again under a new client, lost (BAD_STATEID,
	 * EXPIRED, ADMIN_REVOKED, STALE_STATEID, or denied when LOCKed again), sent again
	 * after NFS4ERR_GRACE */
	unsigned long locks_remade, lock_state_lost, lock_grace_waits;

	/* Kerberos (native_gss.c): the credential and each server's name; sec SYS: none. */
	enum engine_sec sec;
	gss_cred_id_t gss_cred;
	gss_name_t gss_target[ENGINE_SERVERS_MAX];

	/* NFSv4.x: the minor version EXCHANGE_ID asks for (0: not yet, the URL's or 2); version=4
	 * falls to 1 when a server says NFS4ERR_MINOR_VERS_MISMATCH, for every session after. */
	unsigned minor_ask;
	unsigned minors_made;		/* bit N: a session was made with minor version N */

	/* conn_new runs on one thread in connection order: a session's members follow its first. */
	struct nat_session *sess_last;
};

/*
 * What the layers below native_life.c ask of the engine, set when a
 * connection is made (they cannot name the layers above them).
 *   connected:    the socket connected (err 0) or not: set-up starts or fails
 *   secured:      the connection's RPCSEC_GSS context is made: set-up goes on
 *   down:         the connection is failing: it leaves what it waited for
 *   setup_end:    set-up ended (ok or not), before ready()
 *   bind:         NFSv4.1: the session is up, a waiting member binds: false if it cannot
 *   send_waiting: NFSv4.1: a slot is free for req: 0, -EBUSY (still none), or -errno
 *   send_held:    replies came: the requests held for RPCSEC_GSS's window go, as it allows
 */
struct nat_up {
	void (*connected)(struct engine_conn *c, int err);
	void (*secured)(struct engine_conn *c);
	void (*down)(struct engine_conn *c);
	void (*setup_end)(struct engine_conn *c, bool ok);
	bool (*bind)(struct engine_conn *c);
	int (*send_waiting)(struct engine_conn *c, struct engine_req *req);
	void (*send_held)(struct engine_conn *c);
};

struct engine_thread {
	struct nat_engine *eng;
	const struct engine_params *cfg;
	struct ev_loop *loop;
	struct xport *xp;
	struct lowat_set lowat;		/* --max-load */
	uint32_t inflight;		/* calls in flight on its connections (nat_set_thread) */
	uint32_t busy_conns;		/* ... and its connections with any */
	uint8_t *scratch;		/* one call's header while it is encoded */
	size_t scratch_len;
	uint8_t *rebuilt;		/* a READ_PLUS reply of data and holes as bytes (native_v42.c) */
	size_t rebuilt_len;
	struct nat_known *known;	/* NFSv3 set-ups' handles, by server (native_known.c) */
	unsigned nknown;
	struct tap *tap;		/* --wire-time from a packet tap (native_tap.c) */
	struct engine_conn **by_port;	/* its connections by local port, chained */
	uint16_t *tap_local;		/* ... and their ports, for the tap's filter */
	unsigned ntap_local;
	bool tap_narrow;		/* the filter has them (not the servers' ports) */
};

struct nat_tap {
	struct engine_thread *t;	/* joined: in t->by_port[lport] */
	struct engine_conn *next;	/* the chain there */
	uint32_t laddr, raddr;		/* network order */
	uint16_t lport, rport;
	struct tap_stream out, in;	/* calls (no segments kept: nat_call.tx_ns), replies */
};

struct engine_conn {
	struct nat_engine *eng;
	const struct nat_proto *proto;	/* its version's: chosen when it is made, read only */
	const struct nat_up *up;
	const struct engine_params *cfg;
	unsigned id;
	unsigned srv;			/* the server it goes to (config_server_of) */
	enum nat_state state;
	struct engine_thread *t;
	const struct engine_cbs *cbs;
	void *owner;
	struct xport_sock *sock;
	struct rpc_rec rec;
	struct rpc_cred cred;
	struct rpc_gss gss;		/* sec krb5*: the NFS calls' context (native_gss.c) */
	bool tooweak;			/* the server said AUTH_TOOWEAK: error says why */
	unsigned mnt_flavors;		/* v3: the export's flavours, MNT's reply (enum engine_sec bits) */
	const uint8_t *rx_verf;		/* in a reply's handler: its verifier's body */
	uint32_t rx_verf_len;
	uint32_t rx_denied;		/* ... MSG_DENIED's auth_stat (0: not denied) */

	/* calls in flight: xid's low bits index calls[] */
	struct nat_call *calls;
	uint32_t ncalls, mask, inflight;
	uint32_t *free_calls, nfree;
	uint32_t xid_gen;

	/* set-up */
	uint64_t step_start_ns;
	uint32_t pending;		/* set-up calls still to answer */
	uint32_t next_file;		/* the next file to LOOKUP, OPEN or CLOSE */
	uint32_t close_m;		/* teardown: the session member whose files are CLOSEd */
	struct nfs_fh root;		/* the export (MNT, or PUTROOTFH + LOOKUPs) */
	struct nfs_fh dir;		/* the work directory */
	uint32_t rtmax, wtmax;

	struct nat_file *files;
	uint32_t *file_ids;
	uint32_t nfiles;

	/* Held files (--open-files, then a replay's open_slots; native_held4.c) */
	struct nat_file *held;
	uint32_t nheld;
	struct nat_held *hx;		/* ... what is kept beside each open */
	uint32_t next_held;		/* set-up: the next held slot to OPEN */
	uint32_t held_up;		/* held files open at the end of its last set-up */
	bool held_made;			/* set up once: later set-ups re-make the opens */
	/* set-up OPENs the server answered NFS4ERR_GRACE, sent again by grace_timer
	 * (NK_HOPEN's with bit 31) */
	uint32_t *grace_q, ngrace;
	ev_timer grace_timer;

	/* native_known.c: a first NFSv3 set-up from what the thread learned */
	bool was_ready;			/* set up once: a reconnect asks the server */
	bool kn_learner;		/* asking for what others wait for */
	bool kn_root;			/* ... the export's and directory's handles too */
	bool kn_waits;			/* waiting for the learner */
	bool kn_use;			/* starts from what is known */
	struct engine_conn *kn_next;	/* the thread's waiting list */

	/* NFSv4.1 */
	struct nat_session *sess;
	struct nat_locks *locks;	/* byte-range locks (v4/native_lock4.c), made on first use */
	bool sess_wait;			/* set-up waits for another connection to make the session */
	uint64_t last_send_ns;		/* the lease: SEQUENCE when idle */
	uint64_t lease_ping_ns;		/* ... this long: a third of the server's lease_time */

	struct lowat lw;		/* --max-load */
	struct nat_tap tap;		/* --wire-time from a packet tap */
	uint64_t rx_fed, rx_rec;	/* bytes received on the socket; where the next reply starts */

	/* requests to send again after a backoff (linked through priv[1]; native_life.c) */
	struct engine_req *retry_head, *retry_tail;
	ev_timer retry_timer;
	/* requests held while RPCSEC_GSS's window is full (nat_gss_full; priv[1] too) */
	struct engine_req *held_head, *held_tail;

	/* COMMIT: the write verifier to compare */
	uint8_t verf[8];
	bool have_verf;

	/* NFSv3 locks (native_nlm.c): the NLM connection, made at the set-up's end when
	 * --mix has lock, unlock or lockt; on it, nlm_parent is the connection it serves */
	struct engine_conn *nlm, *nlm_parent;

	/* operations on names (native_meta.c), made on first use */
	struct nat_meta *meta;
	/* internal completions for the control connection (native_ctl.c) */
	void (*meta_hook)(void *arg, const char *name, uint32_t namelen, bool is_dir);
	void *meta_hook_arg;

	char error[300];
};


enum { NAT_STEP_MOUNT, NAT_STEP_OPEN };

void nat_set_error(struct engine_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A set-up step ended (engine_ops.steps): the owner's step(). */
void nat_step(struct engine_conn *c, unsigned step);
/* Set-up ended: up->setup_end, the socket closed if not ok, then the owner's ready(). */
void nat_setup_done(struct engine_conn *c, bool ok);
/* The connection failed: set-up ends (ready false) or the owner hears lost(). */
void nat_conn_fail(struct engine_conn *c);
/* Ends a request: done() unless the owner is gone (inline: a reply's handler
 * hands it straight to the worker). */
static inline void nat_req_done(struct engine_conn *c, struct engine_req *req, int status)
{
	if (c->cbs)
		c->cbs->done(c->owner, req, status);
}
/* Appends req to a connection's list of requests (retry, held), linked through priv[1]. */
static inline void nat_req_append(struct engine_req **head, struct engine_req **tail,
				  struct engine_req *req)
{
	req->priv[1] = NULL;
	if (*tail)
		(*tail)->priv[1] = req;
	else
		*head = req;
	*tail = req;
}
/* NFS4ERR_DELAY, GRACE, NFS3ERR_JUKEBOX: req goes again after a backoff (false: tried
 * NAT_RETRY_MAX times, or the connection is not up); native_life.c sends it. */
#define NAT_RETRY_MAX 10
bool nat_retry_later(struct engine_conn *c, struct engine_req *req);
/*
 * RPCSEC_GSS's window (RFC 2203 5.3.3.1): a server drops, without a reply, a call
 * whose number is its window or more below the newest it has seen. A server that
 * runs one connection's calls on several threads can see later calls before an
 * earlier one: ganesha (window 32), one call held up in a thread while the others
 * went on, dropped it (a 4 KiB QD16 krb5p run, about 1 run in 3: a READ never
 * answered, found by --timeout). So a connection sends no call while its oldest
 * unanswered one is the window less 2 numbers behind the next (in-flight calls at
 * most the window less 2): true when the next must wait (native_call.c).
 */
bool nat_gss_full(const struct engine_conn *c);

/* The server address for NFS or MOUNT (srv: config_server_of). */
const struct sockaddr *nat_addr(const struct nat_engine *e, unsigned srv, bool mount,
				socklen_t *len);
/* Server srv's MOUNT is on another port than NFS (NFSv3: MNT on its own connection). */
bool nat_mount_apart(const struct nat_engine *e, unsigned srv);
unsigned nat_addr_port(const struct sockaddr *sa);

/* c's calls in flight change by d, its thread's with them. */
static inline void nat_inflight(struct engine_conn *c, int d)
{
	bool was = c->inflight > 0;

	c->inflight += (uint32_t)d;
	if (c->t) {
		c->t->inflight += (uint32_t)d;
		if (was && !c->inflight)
			c->t->busy_conns--;
		else if (!was && c->inflight)
			c->t->busy_conns++;
	}
}

/* c runs on t's loop from now on (NULL: none), its calls in flight with it. */
static inline void nat_set_thread(struct engine_conn *c, struct engine_thread *t)
{
	if (c->t) {
		c->t->inflight -= c->inflight;
		c->t->busy_conns -= c->inflight > 0;
	}
	c->t = t;
	if (t) {
		t->inflight += c->inflight;
		t->busy_conns += c->inflight > 0;
	}
}

#endif
