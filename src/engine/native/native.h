/*
 * The native engine's private state, shared by its files:
 *   native.c      the engine table, threads, a connection's life
 *   native_v3.c   NFSv3 set-up: MNT, FSINFO, LOOKUPs
 *   native_call.c the calls in flight: xids, sending, replies, timeouts
 *   native_ops.c  requests: READ, WRITE, COMMIT and the --mix operations
 *   native_v4.c   NFSv4.1 sessions: set-up, slots, SEQUENCE, teardown
 *   native_sess.c sessions shared by several connections (trunking)
 *   native_meta.c operations on names: --mix, and the control connection's
 *                 (state, names, dispatch); native_meta3.c NFSv3, native_meta4.c NFSv4.1
 *   native_ctl.c  the control connection (a connection on a private loop)
 * It speaks NFSv3 and NFSv4.1 itself: rpc.c (records, headers), nfs3x.c and
 * nfs4x.c (XDR), slot4.c (session slots), xport.c (io_uring or epoll sockets).
 */
#ifndef NFSLOAD_NATIVE_H
#define NFSLOAD_NATIVE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "engine.h"
#include "../lowat.h"
#include "codec/nfs3x.h"
#include "codec/nfs4x.h"
#include "rpc/rpc.h"
#include "slot4.h"
#include "xport/tap.h"
#include "xport/xport.h"

/* What a reply is to (the call's kind decides how it is read). */
enum nat_kind {
	NK_NONE,
	NK_MNT, NK_FSINFO, NK_LOOKUP,		/* NFSv3 set-up */
	NK_EXCHANGE_ID, NK_CREATE_SESSION, NK_RECLAIM, NK_ROOT, NK_BIND,	/* NFSv4.1 set-up */
	NK_OPEN, NK_CLOSE, NK_SEQUENCE, NK_DESTROY_SESSION, NK_DESTROY_CLIENTID,
	NK_REQ,					/* a worker's READ, WRITE or COMMIT */
	NK_META,				/* a request on a name (native_meta.c) */
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

/* One call in flight on a connection. */
struct nat_call {
	uint32_t xid;			/* 0: free */
	uint16_t kind;			/* enum nat_kind */
	uint16_t slot;			/* v4.1: the session slot it holds */
	uint32_t arg;			/* the kind's: a file index */
	uint64_t deadline_ns;
	uint64_t tx_start, tx_end;	/* the stream offsets of its first byte and past its last */
	uint64_t tx_ns;			/* the packet tap: when its last byte left, 0: not seen */
	uint32_t rx_seq, rx_mark;	/* ... the TCP sequence number and record mark of */
	bool rx_seen;			/* ... a segment its reply starts (rx_seen) */
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
	struct nat_sess_group *group;	/* the group's members and shares (set-up, teardown) */
	const struct engine_thread *t;	/* the worker thread it runs on, NULL: set-up */
	unsigned refs;
	enum nat_sess_state state;
	struct engine_conn *creator;
	struct engine_conn **members;
	unsigned nmembers;
	uint64_t clientid;
	uint32_t exchange_seq;		/* EXCHANGE_ID's sequenceid, for CREATE_SESSION */
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
};

struct engine_thread {
	const struct config *cfg;
	struct ev_loop *loop;
	struct xport *xp;
	struct lowat_set lowat;		/* --max-load */
	uint8_t *scratch;		/* one call's header while it is encoded */
	size_t scratch_len;
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
	const struct config *cfg;
	unsigned id;
	unsigned srv;			/* the server it goes to (config_server_of) */
	enum nat_state state;
	struct engine_thread *t;
	const struct engine_cbs *cbs;
	void *owner;
	struct xport_sock *sock;
	struct rpc_rec rec;
	struct rpc_cred cred;

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

	/* native_known.c: a first NFSv3 set-up from what the thread learned */
	bool was_ready;			/* set up once: a reconnect asks the server */
	bool kn_learner;		/* asking for what others wait for */
	bool kn_root;			/* ... the export's and directory's handles too */
	bool kn_waits;			/* waiting for the learner */
	bool kn_use;			/* starts from what is known */
	struct engine_conn *kn_next;	/* the thread's waiting list */

	/* NFSv4.1 */
	struct nat_session *sess;
	bool sess_wait;			/* set-up waits for another connection to make the session */
	uint64_t last_send_ns;		/* the lease: SEQUENCE when idle */

	struct lowat lw;		/* --max-load */
	struct nat_tap tap;		/* --wire-time from a packet tap */
	uint64_t rx_fed, rx_rec;	/* bytes received on the socket; where the next reply starts */

	/* requests to send again after a backoff (linked through priv[1]) */
	struct engine_req *retry_head, *retry_tail;
	ev_timer retry_timer;

	/* COMMIT: the write verifier to compare */
	uint8_t verf[8];
	bool have_verf;

	/* operations on names (native_meta.c), made on first use */
	struct nat_meta *meta;
	/* internal completions for the control connection (native_ctl.c) */
	void (*meta_hook)(void *arg, const char *name, uint32_t namelen, bool is_dir);
	void *meta_hook_arg;

	char error[300];
};

/* native.c */
extern const char *const nat_steps[];
enum { NAT_STEP_MOUNT, NAT_STEP_OPEN };
void nat_set_error(struct engine_conn *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The connection failed: set-up ends (ready false) or the owner hears lost(). */
void nat_conn_fail(struct engine_conn *c);
void nat_setup_done(struct engine_conn *c, bool ok);
void nat_step(struct engine_conn *c, unsigned step);
bool nat_v4(const struct engine_conn *c);
/* Watches the connection's socket on xp (teardown on a private loop). */
void nat_sock_attach(struct engine_conn *c, struct xport *xp);
/* The server address for NFS (port_nfs) or MOUNT. */
const struct sockaddr *nat_addr(unsigned srv, bool mount, socklen_t *len);

/* native_known.c */
enum nat_known_start { KNOWN_ASK, KNOWN_WAIT, KNOWN_USE };
/* How c's set-up starts: asking the server (and maybe teaching the others),
 * waiting for the connection that asks, or from what is known (no MOUNT). */
enum nat_known_start nat_known_start(struct engine_conn *c);
/* In an NFSv3 start with kn_use: c's handles and files from what is known. */
bool nat_known_apply(struct engine_conn *c);
/* c's set-up ended: what it learned is kept; those waiting go on. */
void nat_known_done(struct engine_conn *c, bool ok);
/* c dropped: off the waiting list; if it was learning, the next one learns. */
void nat_known_forget(struct engine_conn *c);
void nat_known_free(struct engine_thread *t);
/* native.c: c's set-up goes on as nat_known_start said; 0 or -errno. */
int nat_known_go(struct engine_conn *c, enum nat_known_start how);

/* native_call.c */
int nat_calls_init(struct engine_conn *c, uint32_t n);
void nat_calls_destroy(struct engine_conn *c);
/* Forgets every call in flight, without callbacks. */
void nat_calls_reset(struct engine_conn *c);
/*
 * Starts a call: encodes the RPC header into the thread's scratch buffer
 * and returns the XDR stream to append arguments to, or NULL when no call
 * slot is free. nat_call_send finishes the record and queues it, with
 * extra bytes (a WRITE's data) sent from data without a copy.
 */
struct nat_call *nat_call_start(struct engine_conn *c, XDR *x, uint32_t prog, uint32_t vers,
				uint32_t proc, enum nat_kind kind);
int nat_call_send(struct engine_conn *c, struct nat_call *call, XDR *x, const void *data,
		  uint32_t len);
void nat_call_free(struct engine_conn *c, struct nat_call *call);
/* Feeds received bytes (xport data callback). */
int nat_data(void *arg, const uint8_t *p, size_t n);
/* Calls past their deadline end with -ETIMEDOUT. */
void nat_calls_tick(struct engine_conn *c, uint64_t now);
/* A reply arrived for call (header already read, x at the results): by kind. */
void nat_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status);

/* native_tap.c: wire time from a packet tap (tap.h). */
/* At init: whether the run's wire time comes from a tap (cfg->wire_source,
 * CAP_NET_RAW, IPv4 servers); where not, why, for the note. -errno when the
 * tap was asked for and cannot be opened (why says why). */
int nat_tap_init(const struct config *cfg, char *why, size_t len);
bool nat_tap_used(void);
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

/* native.c: connects c's socket to the MOUNT or NFS port (connected() goes on). */
int nat_dial(struct engine_conn *c, bool mount);
/* MOUNT is on another port than NFS (NFSv3: MNT on its own connection). */
bool nat_mount_apart(void);

/* native_v3.c: NFSv3 set-up, from a connected socket (mount: the MOUNT port's) */
bool nat_v3_start(struct engine_conn *c, bool mount);
void nat_v3_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status);

/* native_ops.c */
int nat_queue(struct engine_conn *c, struct engine_req *req);
void nat_req_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status);
/* Ends a request: done() unless the owner is gone. */
void nat_req_done(struct engine_conn *c, struct engine_req *req, int status);
/* NFS4ERR_DELAY, GRACE, NFS3ERR_JUKEBOX: req goes again after a backoff (false: tried
 * NAT_RETRY_MAX times, or the connection is not up). */
#define NAT_RETRY_MAX 10
bool nat_retry_later(struct engine_conn *c, struct engine_req *req);
void nat_retry_cb(struct ev_loop *loop, ev_timer *w, int revents);
/* Forgets the requests waiting to go again (drop, detach). */
void nat_retry_forget(struct engine_conn *c);
/* How many requests went again in this run (process-wide; reset: from zero again). */
unsigned long nat_retried(bool reset);

/* native_sess.c */
/* Joins the session of connection id (one per --connections-per-session, made here). */
int nat_sess_join(struct engine_conn *c);
/* c runs on thread t from now on (attach, on the main thread, before t's loop runs):
 * it moves to its session's share for t, made here, with its slice of the slots. */
int nat_sess_thread(struct engine_conn *c, const struct engine_thread *t);
/* CREATE_SESSION granted that many slots: false (c's error set) when a session
 * that may span threads cannot give each member one. */
bool nat_sess_slots_fit(struct engine_conn *c, uint32_t granted);
/* Teardown: how many members s's group has; member k if it is on s's session, else NULL. */
unsigned nat_sess_nmembers(const struct nat_session *s);
struct engine_conn *nat_sess_member(const struct nat_session *s, unsigned k);
/* Teardown: s's client is destroyed, for every share of it. */
void nat_sess_destroyed(struct nat_session *s);
void nat_sess_leave(struct engine_conn *c);
/* Queues req on c until a slot of c's session is free: 0, or -ENOBUFS. */
int nat_sess_wait(struct engine_conn *c, struct engine_req *req);
/* Whether c's new requests must queue: others wait for a slot, or a member to bind. */
bool nat_sess_waiting(const struct engine_conn *c);
/* Sends what waits for slots, as far as slots go. */
void nat_sess_kick(struct nat_session *s);
/* c is down: its waiting requests are forgotten; a session it was creating fails. */
void nat_sess_conn_down(struct engine_conn *c);
/* The session is gone at the server: every connection on it fails (and is re-made). */
void nat_sess_fail_all(struct nat_session *s, const char *why);
/* The same for every member but keep. */
void nat_sess_fail_others(struct nat_session *s, struct engine_conn *keep, const char *why);
/* The session is up: connections waiting for it go on with their set-up. */
void nat_sess_up(struct nat_session *s);
/* For the report: sessions, connections each, slots granted. */
void nat_sess_note(const struct config *cfg, char *buf, size_t len);

/* native_meta.c: the --mix operations and the control connection's, on names below
 * the export (engine_req.path), each one or more calls (engine_req.stage). */
int nat_meta_queue(struct engine_conn *c, struct engine_req *req);
void nat_meta_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status);
/* NFSv4.1: sends a request that waited for a slot (nat_sess_kick): 0, or -EBUSY (still none). */
int nat_meta_send_waiting(struct engine_conn *c, struct engine_req *req);
/* Frees what the connection's requests on names kept (conn free). */
void nat_meta_free(struct engine_conn *c);

/* native_v4.c */
int nat_v4_start(struct engine_conn *c);
/* Sends a READ, WRITE or COMMIT (or a request on a name that waited for a slot):
 * 0, -EBUSY (no slot free), or -errno. */
int nat_v4_send_req(struct engine_conn *c, struct engine_req *req);
/* A waiting connection's set-up goes on (the session is up). */
bool nat_v4_bind(struct engine_conn *c);
void nat_v4_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status);
/* Begins a COMPOUND on a free slot: SEQUENCE encoded; NULL when no slot is free. */
struct nat_call *nat_v4_begin(struct engine_conn *c, XDR *x, struct nfs4_enc *e,
			      enum nat_kind kind);
/* Reads the COMPOUND's header and SEQUENCE, and frees or keeps the slot:
 * 0 and the COMPOUND status in *status, or -errno (a session or wire failure). */
int nat_v4_sequence(struct engine_conn *c, struct nat_call *call, XDR *x, uint32_t *status);
/* A call's slot after no reply came (timeout, unreadable reply): never used again
 * in this session, since the server may or may not have taken its sequence id. */
void nat_v4_slot_lost(struct engine_conn *c, struct nat_call *call);
/* Every call in flight on c is lost (c dropped): their slots with them. */
void nat_v4_calls_lost(struct engine_conn *c);
/* A call's slot, the call never sent or refused before SEQUENCE: free again, same sequence id. */
void nat_v4_slot_unsent(struct engine_conn *c, struct nat_call *call);
void nat_v4_tick(struct engine_conn *c, uint64_t now);
int nat_v4_close(struct engine_conn *c);

/* native_ctl.c */
extern const struct engine_ctl_ops nat_ctl_ops;
/* Asks rpcbind at sa (port 111) for prog/vers over TCP: 0, or -errno with why in err. */
int nat_pmap_getport(const struct sockaddr *sa, socklen_t len, uint32_t prog, uint32_t vers,
		     unsigned *port, char *err, size_t errlen);

#endif
