/*
 * The native engine: NFSv3, NFSv4.1 and 4.2 spoken by nfsload itself, one TCP
 * connection per engine connection, on the worker's loop through xport
 * (an io_uring per thread, or epoll where io_uring cannot be used).
 *
 * This file is the top of the engine: its table, its limits, init() (the
 * servers' addresses, the transport, the packet tap into the instance),
 * the report's note, and threads. It calls down: native_life.c for the
 * connections, native_ctl.c for the control connection. native_conn.h
 * lists the layers.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native.h"
#include "native_ctl.h"
#include "native_gss.h"
#include "native_known.h"
#include "native_life.h"
#include "native_pmap.h"
#include "v4/native_sess.h"
#include "native_tap.h"
#include "units.h"

#define SCRATCH_LEN 65536

/*
 * The set-up steps, by NAT_STEP_*: NFSv3's MOUNT (and the export's root), or
 * NFSv4.1's session (EXCHANGE_ID, CREATE_SESSION, RECLAIM_COMPLETE, or
 * joining one) and the export's LOOKUP; then each file's LOOKUP or OPEN.
 */
static const char *const steps_v3[] = { "MOUNT", "OPEN", NULL };
static const char *const steps_v41[] = { "SESSION", "OPEN", NULL };
static const struct engine_proto speaks_v3 = { "3", steps_v3 }, speaks_v41 = { "4.1", steps_v41 },
	speaks_v42 = { "4.2", steps_v41 }, speaks_v4 = { "4", steps_v41 };

/* version=4 is what EXCHANGE_ID negotiates (4.2, else 4.1): spoken() says which. */
static const struct engine_proto *proto(int version, int minor)
{
	if (version == 3)
		return &speaks_v3;
	return minor == 1 ? &speaks_v41 : minor == 2 ? &speaks_v42 : &speaks_v4;
}

/* engine_ops' instance: the native one. Every layer below reaches it through a
 * thread's or a connection's eng. */
struct engine_inst {
	struct nat_engine nat;
};

static int check(const struct engine_params *cfg, char *err, size_t len)
{
	if (cfg->nfs_version != 3 && cfg->nfs_version != 4)
		return config_fail(err, len, "URL: version=%d: the native engine speaks version=3, "
				   "4.1 and 4.2", cfg->nfs_version);
	if (cfg->nfs_version == 4 && cfg->nfs_minor == 0)
		return config_fail(err, len, "URL: version=4.0: the native engine speaks NFSv4.1 and "
				   "4.2 (version=4: the highest the server grants); for NFSv4.0 "
				   "use --engine libnfs");
	if (cfg->bs > (1u << 20))
		return config_fail(err, len, "--bs: the native engine moves at most 1 MiB per "
				   "request (try --bs 1m)");
	if (cfg->opt.conns_per_session > 1 && cfg->nfs_version != 4)
		return config_fail(err, len, "--connections-per-session: sessions are NFSv4.1's "
				   "and 4.2's (version=4, 4.1 or 4.2 in the URL)");
	/* A session may span threads (each thread its own slots), but not come up short. */
	if (cfg->opt.conns_per_session > 1 && cfg->connections % cfg->opt.conns_per_session)
		return config_fail(err, len, "--connections-per-session %u: sessions are whole, so "
				   "--connections (%u) must be a multiple of %u",
				   cfg->opt.conns_per_session, cfg->connections,
				   cfg->opt.conns_per_session);
	if (cfg->opt.sec_url && cfg->opt.sec && cfg->opt.sec_url - 1 != cfg->opt.sec)
		return config_fail(err, len, "--sec %s: the URL says sec=%s (give one, or the same)",
				   engine_sec_name(cfg->opt.sec),
				   engine_sec_name(cfg->opt.sec_url - 1));
	if ((cfg->opt.keytab[0] || cfg->opt.principal[0]) && nat_gss_sec(cfg) == ENGINE_SEC_SYS)
		return config_fail(err, len, "--%s: only with Kerberos (--sec krb5, krb5i or krb5p, "
				   "or sec= in the URL)", cfg->opt.keytab[0] ? "keytab" : "principal");
	if ((cfg->meta || cfg->small_files) && cfg->file_size > (1u << 20))
		return config_fail(err, len, "--file-size: the native engine moves at most 1 MiB per "
				   "request (try --file-size 1m)");
	return 0;
}

static uint64_t max_io(const struct engine_params *cfg)
{
	(void)cfg;
	return 1u << 20;
}

/* NFSLOAD_RING_WAIT=0: the threads sleep in libev's epoll_wait, not in their ring. */
static bool ring_wait_off(void)
{
	const char *v = getenv("NFSLOAD_RING_WAIT");

	return v && strcmp(v, "0") == 0;
}

int nat_engine_init(struct nat_engine *e, const struct engine_params *cfg, char *note, size_t len)
{
	char *tn = e->transport_note;
	size_t tlen = sizeof(e->transport_note);
	char why[160];
	int rc;

	note[0] = '\0';
	memset(e, 0, sizeof(*e));
	e->slots_min = UINT32_MAX;
	for (unsigned i = 0; i < cfg->nservers; i++)
		if ((rc = nat_resolve(e, cfg, i, note, len)) < 0)
			return rc;
	if (getenv("NFSLOAD_IO_URING") && strcmp(getenv("NFSLOAD_IO_URING"), "0") == 0) {
		snprintf(tn, tlen,
			 "native: sockets on epoll (NFSLOAD_IO_URING=0)");
	} else if (xport_probe(why, sizeof(why)) < 0) {
		snprintf(tn, tlen,
			 "native: sockets on epoll, io_uring unavailable (%s)", why);
	} else {
		e->use_uring = true;
		snprintf(tn, tlen, "native: sockets on io_uring");
	}
	if (cfg->nfs_version == 4 && cfg->nfs_minor == ENGINE_MINOR_ANY)
		snprintf(tn + strlen(tn), tlen - strlen(tn), "; version=4 is NFSv4.2 if the server "
			 "grants it, else 4.1");
	rc = nat_tap_init(e, cfg, why, sizeof(why));
	if (rc < 0) {
		snprintf(note, len, "--wire-source tap: %s", why);
		return rc;
	}
	rc = nat_gss_init(e, cfg, note, len);
	if (rc < 0)
		return rc;
	if (e->sec != ENGINE_SEC_SYS)
		snprintf(tn + strlen(tn), tlen - strlen(tn), "; RPCSEC_GSS %s",
			 engine_sec_name(e->sec));
	if (cfg->opt.batch_wait_ns) {
		char t[32];

		if (ring_wait_off() || !e->use_uring || !xport_min_wait())
			snprintf(tn + strlen(tn), tlen - strlen(tn), "; --batch-wait has no effect "
				 "(it needs io_uring with min_wait, Linux 6.12%s)",
				 ring_wait_off() ? ", and NFSLOAD_RING_WAIT unset" : "");
		else
			snprintf(tn + strlen(tn), tlen - strlen(tn), "; --batch-wait: a wake waits up "
				 "to %s for more replies, so a reply may be handled that late (in its "
				 "latency, as client time)",
				 units_format_duration(cfg->opt.batch_wait_ns, t, sizeof(t)));
	}
	if (cfg->wire_time)
		snprintf(tn + strlen(tn), tlen - strlen(tn),
			 "; wire time from %s%s%s%s", e->tap_used ? "a packet tap" :
			 "socket timestamps", why[0] ? " (" : "", why, why[0] ? ")" : "");
	return 0;
}

const char *nat_engine_note(struct nat_engine *e, const struct engine_params *cfg)
{
	char *note = e->limits_note;
	size_t cap = sizeof(e->limits_note);
	unsigned long retried = __atomic_load_n(&e->retried, __ATOMIC_RELAXED);
	char sess[400];
	size_t n = (size_t)snprintf(note, cap, "%s", e->transport_note);

	if (cfg->nfs_version == 4) {
		nat_sess_note(e, cfg, sess, sizeof(sess));
		if (sess[0] && n < cap)
			n += (size_t)snprintf(note + n, cap - n, "; %s", sess);
	}
	if (retried && n < cap)
		snprintf(note + n, cap - n, "; %lu requests sent again after the server said later "
			 "(NFS4ERR_DELAY, GRACE, NFS3ERR_JUKEBOX) or a listing raced a remove",
			 retried);
	return note;
}

/* --max-load (lowat.h): the connection's socket. */
static int apply_lowat(struct lowat *l, int bytes)
{
	struct engine_conn *c = (struct engine_conn *)((char *)l - offsetof(struct engine_conn, lw));

	return c->state == NS_READY ? xport_set_lowat(c->sock, bytes) : -1;
}

/*
 * --batch-wait: how many completions t's sleep may wait for. With two calls in
 * flight or more, replies on a quarter of its busy connections (at least 2):
 * on one connection the replies that come while the thread sleeps are one
 * receive, so the sleep lasts the whole --batch-wait. Fewer: none is held.
 */
static unsigned batch_want(void *arg)
{
	const struct engine_thread *t = arg;

	if (t->inflight < 2)
		return 0;
	return t->busy_conns / 4 > 2 ? t->busy_conns / 4 : 2;
}

struct engine_thread *nat_thread_new(struct nat_engine *e, const struct engine_params *cfg,
				     struct ev_loop *loop)
{
	struct engine_thread *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->eng = e;
	t->cfg = cfg;
	t->loop = loop;
	t->scratch_len = nat_scratch_len(e, SCRATCH_LEN);
	t->scratch = malloc(t->scratch_len);
	t->xp = xport_new(loop, t->eng->use_uring, cfg->connections + 16);
	if (t->xp && cfg->wire_time && !t->eng->tap_used)
		xport_want_stamps(t->xp);
	/* The thread sleeps in its ring (xport_sleep_in_ring), unless asked not to. */
	if (t->xp && !ring_wait_off()) {
		struct xport_batch b = { .want = batch_want, .arg = t,
					 .hold_ns = cfg->opt.batch_wait_ns };

		xport_sleep_in_ring(t->xp, &b);
	}
	lowat_set_init(&t->lowat, loop, apply_lowat);
	if (!t->scratch || !t->xp) {
		xport_free(t->xp);
		free(t->scratch);
		free(t);
		return NULL;
	}
	return t;
}

void nat_thread_free(struct engine_thread *t)
{
	if (!t)
		return;
	lowat_set_stop(&t->lowat);
	nat_known_free(t);
	nat_tap_thread_free(t);
	xport_free(t->xp);
	free(t->scratch);
	free(t->rebuilt);
	free(t);
}

struct nat_engine *nat_engine_new(void)
{
	struct nat_engine *e = calloc(1, sizeof(*e));

	if (e)
		e->slots_min = UINT32_MAX;
	return e;
}

void nat_engine_free(struct nat_engine *e)
{
	free(e);
}

static int init(const struct engine_params *cfg, struct engine_inst **out, char *note, size_t len)
{
	struct engine_inst *inst = calloc(1, sizeof(*inst));
	int rc;

	*out = NULL;
	if (!inst) {
		snprintf(note, len, "out of memory");
		return -ENOMEM;
	}
	rc = nat_engine_init(&inst->nat, cfg, note, len);
	if (rc < 0) {
		free(inst);
		return rc;
	}
	*out = inst;
	return 0;
}

static void fini(struct engine_inst *inst)
{
	if (inst)
		nat_gss_fini(&inst->nat);
	free(inst);
}

static const char *limits_note(struct engine_inst *inst, const struct engine_params *cfg)
{
	return inst ? nat_engine_note(&inst->nat, cfg) : "";
}

static const char *spoken(struct engine_inst *inst)
{
	unsigned made = inst ? __atomic_load_n(&inst->nat.minors_made, __ATOMIC_RELAXED) : 0;

	/* Sessions made with 4.2 and with 4.1 (a server's answer changed between them): both. */
	return made == 1u << 2 ? "4.2" : made == 1u << 1 ? "4.1" :
	       made == (1u << 1 | 1u << 2) ? "4.1 and 4.2" : NULL;
}

/* engine_ops.state: the connections' counts, and the clients made (sessions: each its
 * own EXCHANGE_ID and CREATE_SESSION). */
static void state(struct engine_inst *inst, struct engine_state_counts *out)
{
	const struct nat_engine *e = &inst->nat;

	*out = (struct engine_state_counts){
		.clients = __atomic_load_n(&e->sessions_made, __ATOMIC_RELAXED),
		.held_opens = __atomic_load_n(&e->held_opens, __ATOMIC_RELAXED),
		.delegations_returned = __atomic_load_n(&e->delegations_returned, __ATOMIC_RELAXED),
		.grace_waits = __atomic_load_n(&e->grace_waits, __ATOMIC_RELAXED),
		.state_lost = __atomic_load_n(&e->state_lost, __ATOMIC_RELAXED),
		.opens_remade = __atomic_load_n(&e->opens_remade, __ATOMIC_RELAXED),
	};
	/* the locks' (v4/native_lock4.c) */
	out->locks_remade = __atomic_load_n(&e->locks_remade, __ATOMIC_RELAXED);
	out->state_lost += __atomic_load_n(&e->lock_state_lost, __ATOMIC_RELAXED);
	out->grace_waits += __atomic_load_n(&e->lock_grace_waits, __ATOMIC_RELAXED);
}

static bool held_open(struct engine_conn *c, unsigned i)
{
	return i < c->nheld && c->held[i].open;
}

static struct engine_thread *thread_new(struct engine_inst *inst, const struct engine_params *cfg,
					struct ev_loop *loop)
{
	return nat_thread_new(&inst->nat, cfg, loop);
}

static int conn_new(struct engine_inst *inst, const struct engine_params *cfg, unsigned id,
		    const uint32_t *file_ids, uint32_t nfiles, struct engine_conn **out)
{
	return nat_conn_new(&inst->nat, cfg, id, file_ids, nfiles, out);
}

static int set_principal(void *base, const struct opt *o, const char *arg, char *err, size_t len)
{
	char *dst = (char *)base + o->off;

	if (!arg[0] || strlen(arg) >= ENGINE_NAME_MAX || strpbrk(arg, " \t\n"))
		return config_fail(err, len, "--principal: '%s' is not a principal name (user@REALM, "
				   "at most %d characters)", arg, ENGINE_NAME_MAX - 1);
	memcpy(dst, arg, strlen(arg) + 1);
	return 0;
}

/* The options only this engine takes (option.h; values in struct engine_opts). */
static const struct opt options[] = {
	{ .name = "connections-per-session", .kind = OPT_COUNT, .arg = "N",
	  .help = "NFSv4.1, native engine: N connections share\none session and its slots "
	  "(trunking; default 1)",
	  .off = offsetof(struct engine_opts, conns_per_session), .min = 1, .max = 255 },
	{ .name = "uid", .kind = OPT_ID, .arg = "N",
	  .help = "AUTH_SYS user (native engine; default 0)",
	  .off = offsetof(struct engine_opts, uid) },
	{ .name = "gid", .kind = OPT_ID, .arg = "N",
	  .help = "AUTH_SYS group (native engine; default 0)",
	  .off = offsetof(struct engine_opts, gid) },
	{ .name = "wire-source", .kind = OPT_WORD, .arg = "SRC",
	  .help = "where wire time comes from: tap (a packet tap, every\nreply; needs "
	  "CAP_NET_RAW), stamps (socket timestamps),\nauto (tap if it can, default); "
	  "implies --wire-time",
	  .off = offsetof(struct engine_opts, wire_source),
	  .words = (const char *const[]){ "auto", "tap", "stamps", NULL }, .noun = "a source",
	  .implies = "wire-time" },
	{ .name = "sec", .kind = OPT_WORD, .arg = "FLAVOUR",
	  .help = "RPC security: sys (AUTH_SYS, default), krb5,\nkrb5i (integrity), krb5p "
	  "(privacy); as sec= in the URL",
	  .off = offsetof(struct engine_opts, sec),
	  .words = (const char *const[])ENGINE_SEC_NAMES, .noun = "a flavour",
	  .foreign = "Kerberos is the native engine's (Debian's libnfs has none)" },
	{ .name = "keytab", .kind = OPT_FILE, .arg = "FILE",
	  .help = "Kerberos: the client's keys (with --principal; default:\nthe ticket cache, "
	  "KRB5CCNAME, or krb5.conf's client keytab)",
	  .off = offsetof(struct engine_opts, keytab),
	  .foreign = "Kerberos is the native engine's (Debian's libnfs has none)" },
	{ .name = "principal", .kind = OPT_CUSTOM, .arg = "NAME",
	  .help = "Kerberos: whose keys or tickets (user@REALM)",
	  .off = offsetof(struct engine_opts, principal), .set = set_principal,
	  .foreign = "Kerberos is the native engine's (Debian's libnfs has none)" },
	LOWAT_OPTION,
	{ .name = "batch-wait", .kind = OPT_TIME, .arg = "TIME",
	  .help = "with 2 requests in flight or more, a worker's wake\nwaits up to TIME "
	  "(1us to 10ms) for replies on a quarter\nof its busy connections (one connection: "
	  "all of TIME):\nfewer wakes, less CPU per operation, replies held that\nlong at "
	  "most (client time; io_uring, Linux 6.12)",
	  .off = offsetof(struct engine_opts, batch_wait_ns), .min = 1000, .max = 10000000,
	  .msg = "must be 1us to 10ms",
	  .foreign = "only with --engine native (how its threads wait on io_uring)" },
	{ .name = NULL },
};

const struct engine_ops engine_native = {
	.name = "native",
	.op_bit = OPE_NATIVE,
	.about = "native NFSv3/NFSv4.1/NFSv4.2 (libtirpc XDR, liburing sockets)",
	.needs_url = true,
	.wire_time = true,
	.proto = proto,
	.spoken = spoken,
	.state = state,
	.held_open = held_open,
	.options = options,
	.check = check,
	.max_read = max_io,
	.max_write = max_io,
	.init = init,
	.fini = fini,
	.limits_note = limits_note,
	.thread_new = thread_new,
	.thread_free = nat_thread_free,
	.conn_new = conn_new,
	.connect = nat_connect,
	.attach = nat_attach,
	.detach = nat_detach,
	.queue = nat_queue,
	.commit = nat_commit,
	.tick = nat_tick,
	.drop = nat_drop,
	.close = nat_close,
	.free = nat_conn_free,
	.error = nat_conn_error,
	.ctl = &nat_ctl_ops,
};
