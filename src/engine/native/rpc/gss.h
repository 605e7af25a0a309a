/*
 * gss: RPCSEC_GSS version 1 (RFC 2203) for the native engine's calls, over
 * the GSS-API (MIT Kerberos's libgssapi_krb5): a context's handle, sequence
 * window and service; the credential and verifier of a call; the body of a
 * call sealed (integrity: a MIC after it; privacy: wrapped) and a reply's
 * opened; the context creation's call and reply. No I/O.
 *
 * A call's body is sealed in the caller's buffer and a reply's opened in
 * place (gss_get_mic_iov, gss_wrap_iov, gss_unwrap_iov with the caller's
 * buffers): nothing is allocated per call.
 *
 * A call with RPCSEC_GSS (rpc_gss_start_call), as encoded in buf:
 *   mark | xid CALL 2 prog vers proc | cred (flavor 6: version 1, DATA, seq,
 *   service, handle) | verifier (flavor 6: MIC of the header so far) | body
 * where body is, by service,
 *   none:       args
 *   integrity:  len | seq args | len | MIC(seq args)
 *   privacy:    len | wrap token (header | seq args | padding | trailer)
 * The caller encodes args after rpc_gss_start_call, then rpc_gss_seal; a
 * reply's results are found by rpc_gss_open.
 *
 * The sequence window (RFC 2203 5.3.3.1): a server drops a call whose number
 * is below the newest it has seen by its window or more. A connection's calls
 * take their numbers as they are written to it, in order, so each call leaves
 * as the newest and never outside the window; a call sent again (a retry, a
 * reconnect) is encoded again with a new number. The Linux client does the
 * same (it re-encodes a call whose number fell out of the window before it
 * was sent). A server may check numbers out of order (nfs-ganesha's threads):
 * the native engine holds new calls while the oldest in flight is near the
 * window's end (nat_gss_full, native_conn.h).
 */
#ifndef NFSLOAD_GSS_H
#define NFSLOAD_GSS_H

#include <gssapi/gssapi.h>
#include <rpc/types.h>
#include <rpc/xdr.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RPC_AUTH_GSS 6			/* RPCSEC_GSS's flavor number */
#define RPC_GSS_HANDLE_MAX 128		/* the server's context handle (ganesha's: 16 bytes) */
#define RPC_GSS_TOKEN_MAX 65536		/* a context creation token */

enum rpc_gss_proc { RPC_GSS_DATA, RPC_GSS_INIT, RPC_GSS_CONTINUE_INIT, RPC_GSS_DESTROY };
enum rpc_gss_svc { RPC_GSS_NONE = 1, RPC_GSS_INTEGRITY = 2, RPC_GSS_PRIVACY = 3 };
/* auth_stat values RPCSEC_GSS adds (RFC 2203 5.3.3.3): the context is gone, make another. */
enum { RPC_GSS_CREDPROBLEM = 13, RPC_GSS_CTXPROBLEM = 14 };

/* One context as the client holds it. Only its connection's thread touches it. */
struct rpc_gss {
	gss_ctx_id_t ctx;		/* GSS_C_NO_CONTEXT: none */
	enum rpc_gss_svc svc;
	bool ready;			/* made: calls carry it */
	uint8_t handle[RPC_GSS_HANDLE_MAX];
	uint32_t handle_len;
	uint32_t window;		/* the server's seq_window */
	uint32_t seq_next;		/* the next call's sequence number */
	uint32_t mic_len;		/* a MIC token's size */
	uint32_t wrap_head;		/* a wrap token's header size */
};

void rpc_gss_init(struct rpc_gss *g, enum rpc_gss_svc svc);
/* Forgets the context (deleted locally; the server's lapses or is destroyed apart). */
void rpc_gss_reset(struct rpc_gss *g);

/*
 * Context creation: a NULL call whose credential says INIT (or CONTINUE_INIT,
 * with the handle so far) and whose argument is the GSS token. The reply's
 * results (rpc_gss_init_res) point into the record.
 */
bool rpc_gss_start_init(XDR *x, void *buf, size_t len, uint32_t xid, uint32_t prog,
			uint32_t vers, const struct rpc_gss *g, enum rpc_gss_proc proc,
			const void *token, uint32_t token_len);
struct rpc_gss_init_res {
	const uint8_t *handle;
	uint32_t handle_len;
	uint32_t major, minor, window;
	const uint8_t *token;
	uint32_t token_len;
};
int rpc_gss_decode_init(XDR *x, struct rpc_gss_init_res *r);
/* Takes what the last reply said once the GSS context is complete: the handle,
 * the window (its verifier, a MIC of the window, checked). 0 or -EACCES. */
int rpc_gss_made(struct rpc_gss *g, const struct rpc_gss_init_res *r, const uint8_t *verf,
		 uint32_t verf_len);

/*
 * A data call: the header, the credential with the next sequence number
 * (*seq), the verifier, and the start of the body (integrity and privacy:
 * its length and header room, then seq); the caller encodes the arguments
 * next and seals with rpc_gss_seal(..., *body). false when the buffer is too
 * small (-ENOSPC in *why) or the MIC cannot be made (-EIO).
 */
bool rpc_gss_start_call(XDR *x, void *buf, size_t len, uint32_t xid, uint32_t prog,
			uint32_t vers, uint32_t proc, struct rpc_gss *g, uint32_t *seq,
			u_int *body, int *why);
/* Seals buf[body, *end) in place (integrity, privacy; none: nothing) and
 * moves *end past what follows it. 0, -ENOSPC (cap), -EIO (GSS). */
int rpc_gss_seal(struct rpc_gss *g, uint8_t *buf, size_t cap, u_int body, u_int *end);

/* A reply's verifier: the MIC of its call's seq. 0 or -EACCES. */
int rpc_gss_check_verf(const struct rpc_gss *g, uint32_t seq, const uint8_t *verf,
		       uint32_t len);
/*
 * Opens an accepted reply's results, in place: rec[pos..len) holds them as
 * the service wraps them. *res and *res_len are the results themselves
 * (4-byte aligned when rec is). 0, -EBADMSG (not as the service says), -EACCES
 * (the MIC or the wrap does not check, or another call's seq).
 */
int rpc_gss_open(const struct rpc_gss *g, uint32_t seq, uint8_t *rec, size_t len, size_t pos,
		 uint8_t **res, size_t *res_len);

/* A GSS status as words ("Clock skew too great", ...), into buf. */
const char *rpc_gss_status(OM_uint32 major, OM_uint32 minor, char *buf, size_t len);

#endif
