/*
 * engine_opts: the values of the engines' own options and the limits a run
 * shares with its engines. Data only: struct config carries it for the
 * command line, struct engine_params (engine.h) hands it to the engines.
 */
#ifndef NFSLOAD_ENGINE_OPTS_H
#define NFSLOAD_ENGINE_OPTS_H

#include <stdbool.h>

#define ENGINE_URL_MAX 1024
#define ENGINE_SERVERS_MAX 16		/* servers in one run */
#define ENGINE_CYCLE_MAX 256		/* their weights' sum, at most */

/* Where wire time comes from (--wire-source): a packet tap where it can be
 * opened, else the sockets' kernel timestamps; or one of them. */
enum engine_wire { ENGINE_WIRE_AUTO, ENGINE_WIRE_TAP, ENGINE_WIRE_STAMPS };

/* The RPC security flavour (--sec, or the URL's sec=): AUTH_SYS or RPCSEC_GSS with
 * Kerberos 5 and no protection of the body (krb5), integrity (krb5i) or privacy (krb5p). */
enum engine_sec { ENGINE_SEC_SYS, ENGINE_SEC_KRB5, ENGINE_SEC_KRB5I, ENGINE_SEC_KRB5P };
#define ENGINE_SEC_NAMES { "sys", "krb5", "krb5i", "krb5p", NULL }
#define ENGINE_NAME_MAX 256

/*
 * The values of the options the engines declare (engine_ops.options, by
 * offset into this struct). Which engine owns which is in their tables; an
 * engine's check() refuses the others' where they make no sense for it.
 */
struct engine_opts {
	unsigned uid, gid;		/* AUTH_SYS credential (native) */
	unsigned conns_per_session;	/* NFSv4.1 trunking (native), 1 = none */
	unsigned max_load;		/* stress mode: wake once per this many replies, 0 = off */
	uint64_t batch_wait_ns;		/* --batch-wait (native, io_uring), 0 = off */
	enum engine_wire wire_source;	/* --wire-source (native; sets wire_time) */
	bool direct;			/* O_DIRECT (local) */
	enum engine_sec sec;		/* --sec (native), or the URL's sec= (sec_url) */
	unsigned sec_url;		/* the URL's sec=: 1 + enum engine_sec, 0: none */
	char keytab[1024];		/* --keytab: the client's keys (native, Kerberos) */
	char principal[ENGINE_NAME_MAX];	/* --principal: whose keys */
};

/* The flavour a run uses: the URL's sec=, or --sec. */
static inline enum engine_sec engine_sec_of(const struct engine_opts *o)
{
	return o->sec_url ? (enum engine_sec)(o->sec_url - 1) : o->sec;
}

static inline const char *engine_sec_name(enum engine_sec sec)
{
	static const char *const names[] = ENGINE_SEC_NAMES;

	return names[sec];
}

#endif
