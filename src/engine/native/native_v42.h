/*
 * native_v42: the NFSv4.2 operations on a connection's data files (RFC 7862:
 * READ_PLUS, SEEK, ALLOCATE, DEALLOCATE, IO_ADVISE, COPY, CLONE; RFC 8276:
 * GETXATTR, SETXATTR, LISTXATTRS, REMOVEXATTR): what goes in a COMPOUND
 * after SEQUENCE, and what its reply says.
 */
#ifndef NFSLOAD_NATIVE_V42_H
#define NFSLOAD_NATIVE_V42_H

#include "native_conn.h"

/*
 * Encodes req's operations after SEQUENCE: PUTFH of req->file and the
 * operation (COPY, CLONE: PUTFH of req->file, SAVEFH, PUTFH of req->file2,
 * then the operation). false: it does not fit, or req->op is not one of them.
 */
bool nat_v42_enc(struct engine_conn *c, struct nfs4_enc *e, const struct engine_req *req);
/*
 * Reads the results after SEQUENCE (cstatus: the COMPOUND's status): what
 * done() gets (READ_PLUS: bytes of data and holes, req->holes the holes'
 * share; SEEK: 0, req->found the offset found; GETXATTR: the value's
 * length; LISTXATTRS: the number of names; others 0), or -errno:
 * NFS4ERR_NOTSUPP -EOPNOTSUPP, NFS4ERR_OP_ILLEGAL -ENOSYS, -EBADMSG.
 */
int nat_v42_dec(struct engine_conn *c, struct engine_req *req, XDR *x, uint32_t cstatus);

#endif
