/*
 * native_gss: the engine's Kerberos credential and each connection's
 * RPCSEC_GSS context creation (see native_gss.h).
 */
#include <errno.h>
#include <gssapi/gssapi_ext.h>
#include <gssapi/gssapi_krb5.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "native_call.h"
#include "native_gss.h"

enum engine_sec nat_gss_sec(const struct engine_params *cfg)
{
	return engine_sec_of(&cfg->opt);
}

size_t nat_scratch_len(const struct nat_engine *e, size_t plain)
{
	return e->sec >= ENGINE_SEC_KRB5I ? RPC_RECORD_MAX : plain;
}

enum rpc_gss_svc nat_gss_svc(const struct nat_engine *e)
{
	return e->sec == ENGINE_SEC_KRB5P ? RPC_GSS_PRIVACY :
	       e->sec == ENGINE_SEC_KRB5I ? RPC_GSS_INTEGRITY : RPC_GSS_NONE;
}

static OM_uint32 want_flags(const struct nat_engine *e)
{
	return GSS_C_MUTUAL_FLAG | GSS_C_INTEG_FLAG |
	       (e->sec == ENGINE_SEC_KRB5P ? GSS_C_CONF_FLAG : 0);
}

static int acquire(struct nat_engine *e, const struct engine_params *cfg, char *note, size_t len)
{
	gss_OID_set_desc mechs = { 1, (gss_OID)gss_mech_krb5 };
	gss_name_t who = GSS_C_NO_NAME;
	OM_uint32 major, minor, m;
	char why[200], cache[64];

	if (cfg->opt.principal[0]) {
		gss_buffer_desc b = { strlen(cfg->opt.principal), (void *)cfg->opt.principal };

		major = gss_import_name(&minor, &b, (gss_OID)GSS_KRB5_NT_PRINCIPAL_NAME, &who);
		if (GSS_ERROR(major)) {
			snprintf(note, len, "--principal %s: not a Kerberos principal name (%s)",
				 cfg->opt.principal, rpc_gss_status(major, minor, why, sizeof(why)));
			return -EINVAL;
		}
	}
	if (cfg->opt.keytab[0]) {
		/* Its own ticket cache in memory: the user's is not touched. */
		gss_key_value_element_desc el[2] = { { "client_keytab", cfg->opt.keytab },
						     { "ccache", cache } };
		gss_key_value_set_desc store = { 2, el };

		snprintf(cache, sizeof(cache), "MEMORY:nfsload-%p", (void *)e);
		if (access(cfg->opt.keytab, R_OK) < 0) {
			snprintf(note, len, "--keytab %s: %s", cfg->opt.keytab, strerror(errno));
			gss_release_name(&m, &who);
			return -EINVAL;
		}
		major = gss_acquire_cred_from(&minor, who, GSS_C_INDEFINITE, &mechs, GSS_C_INITIATE,
					      &store, &e->gss_cred, NULL, NULL);
	} else {
		major = gss_acquire_cred(&minor, who, GSS_C_INDEFINITE, &mechs, GSS_C_INITIATE,
					 &e->gss_cred, NULL, NULL);
	}
	gss_release_name(&m, &who);
	if (GSS_ERROR(major)) {
		snprintf(note, len, "sec=krb5: no Kerberos credentials (%s): kinit first, or give "
			 "--keytab FILE --principal NAME", rpc_gss_status(major, minor, why,
									  sizeof(why)));
		return -EACCES;
	}
	return 0;
}

/* Imports nfs@host and makes a trial context with it: the ticket is fetched now. */
static int target(struct nat_engine *e, unsigned k, const char *host, char *note, size_t len)
{
	gss_ctx_id_t ctx = GSS_C_NO_CONTEXT;
	gss_buffer_desc out = GSS_C_EMPTY_BUFFER, b;
	OM_uint32 major, minor, m;
	char name[300], why[200];

	snprintf(name, sizeof(name), "nfs@%s", host);
	b = (gss_buffer_desc){ strlen(name), name };
	major = gss_import_name(&minor, &b, GSS_C_NT_HOSTBASED_SERVICE, &e->gss_target[k]);
	if (!GSS_ERROR(major))
		major = gss_init_sec_context(&minor, e->gss_cred, &ctx, e->gss_target[k],
					     (gss_OID)gss_mech_krb5, want_flags(e), 0,
					     GSS_C_NO_CHANNEL_BINDINGS, GSS_C_NO_BUFFER, NULL, &out,
					     NULL, NULL);
	gss_release_buffer(&m, &out);
	if (ctx != GSS_C_NO_CONTEXT)
		gss_delete_sec_context(&m, &ctx, GSS_C_NO_BUFFER);
	if (GSS_ERROR(major)) {
		snprintf(note, len, "sec=%s: no Kerberos ticket for the server %s (%s)",
			 engine_sec_name(e->sec), name,
			 rpc_gss_status(major, minor, why, sizeof(why)));
		return -EACCES;
	}
	return 0;
}

int nat_gss_init(struct nat_engine *e, const struct engine_params *cfg, char *note, size_t len)
{
	int rc;

	e->sec = nat_gss_sec(cfg);
	if (e->sec == ENGINE_SEC_SYS)
		return 0;
	rc = acquire(e, cfg, note, len);
	for (unsigned k = 0; rc == 0 && k < cfg->nservers; k++)
		rc = target(e, k, cfg->server[k].host, note, len);
	if (rc < 0)
		nat_gss_fini(e);
	return rc;
}

void nat_gss_fini(struct nat_engine *e)
{
	OM_uint32 m;

	for (unsigned k = 0; k < ENGINE_SERVERS_MAX; k++)
		if (e->gss_target[k] != GSS_C_NO_NAME)
			gss_release_name(&m, &e->gss_target[k]);
	if (e->gss_cred != GSS_C_NO_CREDENTIAL)
		gss_release_cred(&m, &e->gss_cred);
}

static void init_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status);

static const struct nat_handler init_handler = {
	.reply = init_reply, .timeout = nat_setup_timeout,
};

static int send_token(struct engine_conn *c, enum rpc_gss_proc proc, const gss_buffer_desc *tok)
{
	struct nat_call *call = nat_call_take(c, NK_GSS_INIT, &init_handler);
	XDR x;

	if (!call)
		return -ENOMEM;
	if (!rpc_gss_start_init(&x, c->t->scratch, c->t->scratch_len, call->xid, NFS_PROGRAM,
				c->proto->rpc_vers, &c->gss, proc, tok->value, (uint32_t)tok->length)) {
		nat_call_free(c, call);
		nat_set_error(c, "Kerberos: the context's token is too large (%zu bytes)", tok->length);
		return -ENOSPC;
	}
	return nat_call_send(c, call, &x, NULL, 0);
}

/* One turn of the mechanism: 1 complete, 0 a token sent, -errno (c's error set). */
static int step(struct engine_conn *c, const gss_buffer_desc *in)
{
	gss_buffer_desc out = GSS_C_EMPTY_BUFFER;
	OM_uint32 major, minor, m;
	char why[200];
	int rc = 1;

	major = gss_init_sec_context(&minor, c->eng->gss_cred, &c->gss.ctx,
				     c->eng->gss_target[c->srv], (gss_OID)gss_mech_krb5,
				     want_flags(c->eng), 0, GSS_C_NO_CHANNEL_BINDINGS,
				     in ? (gss_buffer_t)in : GSS_C_NO_BUFFER, NULL, &out, NULL, NULL);
	if (GSS_ERROR(major)) {
		nat_set_error(c, "Kerberos: no context with nfs@%s: %s", c->cfg->server[c->srv].host,
			      rpc_gss_status(major, minor, why, sizeof(why)));
		rc = -EACCES;
	} else if (out.length) {
		rc = send_token(c, in ? RPC_GSS_CONTINUE_INIT : RPC_GSS_INIT, &out);
	} else if (major != GSS_S_COMPLETE) {
		nat_set_error(c, "Kerberos: the mechanism asks for more but gave nothing to send");
		rc = -EPROTO;
	}
	gss_release_buffer(&m, &out);
	return rc;
}

int nat_gss_start(struct engine_conn *c)
{
	rpc_gss_reset(&c->gss);
	return step(c, NULL) < 0 ? -EACCES : 0;
}

static void init_reply(struct engine_conn *c, struct nat_call *call, XDR *x, int rpc_status)
{
	struct rpc_gss_init_res r;
	gss_buffer_desc in;
	char why[200];
	int rc;

	nat_call_free(c, call);
	if (rpc_status < 0) {
		/* The server's reason stays with it: a ticket not yet valid or too old for its
		 * clock, a key its keytab does not have. */
		if (c->rx_denied)
			nat_set_error(c, "Kerberos: the server refused the context (auth_stat %u%s): "
				      "are the client's and the server's clocks within 5 minutes? "
				      "does its keytab hold nfs/%s?", c->rx_denied,
				      c->rx_denied == RPC_GSS_CREDPROBLEM ? ", CREDPROBLEM" :
				      c->rx_denied == RPC_GSS_CTXPROBLEM ? ", CTXPROBLEM" : "",
				      c->cfg->server[c->srv].host);
		else
			nat_set_error(c, "Kerberos: the server refused to make a context (%s)",
				      strerror(-rpc_status));
		goto fail;
	}
	if (rpc_gss_decode_init(x, &r) < 0) {
		nat_set_error(c, "Kerberos: a bad reply to the context's creation");
		goto fail;
	}
	if (r.major != GSS_S_COMPLETE && r.major != GSS_S_CONTINUE_NEEDED) {
		nat_set_error(c, "Kerberos: the server could not accept the context (%s)",
			      rpc_gss_status(r.major, 0, why, sizeof(why)));
		goto fail;
	}
	/* CONTINUE_INIT carries the handle so far. */
	memcpy(c->gss.handle, r.handle, r.handle_len);
	c->gss.handle_len = r.handle_len;
	in = (gss_buffer_desc){ r.token_len, (void *)r.token };
	rc = r.token_len ? step(c, &in) : 1;
	if (rc < 0)
		goto fail;
	if (rc == 0)
		return;	/* CONTINUE_INIT sent */
	if (r.major != GSS_S_COMPLETE) {
		nat_set_error(c, "Kerberos: the server wants more, the client has no more to say");
		goto fail;
	}
	if (rpc_gss_made(&c->gss, &r, c->rx_verf, c->rx_verf_len) < 0) {
		nat_set_error(c, "Kerberos: the context's reply does not check (its verifier)");
		goto fail;
	}
	c->up->secured(c);
	return;
fail:
	nat_setup_done(c, false);
}
