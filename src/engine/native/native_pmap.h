/*
 * native_pmap: the native engine's synchronous calls, each on a connection
 * of its own: rpcbind's GETPORT while a server's addresses are resolved,
 * and UMNT at the end of the run.
 */
#ifndef NFSLOAD_NATIVE_PMAP_H
#define NFSLOAD_NATIVE_PMAP_H

#include "native_conn.h"

/* Server i's NFS and MOUNT addresses into e (rpcbind asked for the ports the
 * URL does not give): 0, or -errno with why in note. */
int nat_resolve(struct nat_engine *e, const struct engine_params *cfg, unsigned i, char *note,
		size_t len);
/* UMNT of cfg's export at its server (cfg->srv_index), as a kernel client sends it
 * at umount: 0 or -errno (its answer changes nothing for the run). */
int nat_umnt(const struct nat_engine *e, const struct engine_params *cfg, const struct rpc_cred *cred);

#endif
