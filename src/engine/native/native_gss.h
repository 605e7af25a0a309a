/*
 * native_gss: Kerberos for the native engine (sec=krb5, krb5i, krb5p).
 *
 * At init, before anything is sent: the client's credential (its ticket
 * cache as KRB5CCNAME and krb5.conf say, a client keytab, or --keytab with
 * --principal) and a trial context with each server's nfs@host, so that no
 * ticket, an unknown server principal or clock skew end the run with one
 * line. Then each connection makes its own RPCSEC_GSS context (rpc/gss.c)
 * on the NFS port before its first NFS call: INIT, CONTINUE_INIT while the
 * mechanism asks, the last reply's verifier checked; then set-up goes on
 * (nat_up.secured). A connection made again makes a new context.
 */
#ifndef NFSLOAD_NATIVE_GSS_H
#define NFSLOAD_NATIVE_GSS_H

#include <stddef.h>

#include "native_conn.h"

/* The credential and the servers' names into e (nothing with sec=sys): 0, or
 * -EACCES / -EINVAL with one line in note. */
int nat_gss_init(struct nat_engine *e, const struct engine_params *cfg, char *note, size_t len);
void nat_gss_fini(struct nat_engine *e);
/* The sec the run uses: --sec, or the URL's sec=. */
enum engine_sec nat_gss_sec(const struct engine_params *cfg);
/* The connection's RPCSEC_GSS service for e's sec. */
enum rpc_gss_svc nat_gss_svc(const struct nat_engine *e);
/* A thread's scratch buffer: with integrity or privacy a WRITE's data is sealed in it. */
size_t nat_scratch_len(const struct nat_engine *e, size_t plain);
/* Starts c's context (its NFS socket is connected): 0, or -errno with c's error set. */
int nat_gss_start(struct engine_conn *c);

#endif
