/* trace_nfs4: NFSv4.x COMPOUNDs of a capture (RFC 7530, 8881, 7862), for trace_nfs.c. */
#ifndef NFSLOAD_TRACE_NFS4_H
#define NFSLOAD_TRACE_NFS4_H

#include "trace_int.h"

/* proc 0 (NULL) or 1 (COMPOUND): one op per operation. 1, or -ENOMEM. */
int trace_nfs4_call(struct trace_ctx *c, uint32_t conn, uint32_t proc, XDR *x);
void trace_nfs4_reply(struct trace_ctx *c, const struct trace_call *call, XDR *x);
/* "READ" for 25; NULL when unknown. */
const char *trace_nfs4_name(unsigned op);

#endif
