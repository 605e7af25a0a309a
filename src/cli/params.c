/*
 * params: struct config -> struct engine_params (params.h), member by member:
 * the names are the same where the meaning is.
 */
#include <string.h>

#include "params.h"

void engine_params_init(struct engine_params *p, const struct config *cfg)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->host, cfg->host, sizeof(p->host));
	memcpy(p->path, cfg->path, sizeof(p->path));
	memcpy(p->canon_url, cfg->canon_url, sizeof(p->canon_url));
	p->nfs_version = cfg->nfs_version;
	p->nfs_minor = cfg->nfs_minor;
	p->nfsport = cfg->nfsport;
	p->mountport = cfg->mountport;
	p->nservers = cfg->nservers;
	/* All of them: a server's own copy (config_for_server) has nservers 1 and srv_index k. */
	for (unsigned i = 0; i < ENGINE_SERVERS_MAX; i++) {
		struct engine_server *s = &p->server[i];

		memcpy(s->host, cfg->server[i].host, sizeof(s->host));
		memcpy(s->canon_url, cfg->server[i].canon_url, sizeof(s->canon_url));
		s->nfsport = cfg->server[i].nfsport;
		s->mountport = cfg->server[i].mountport;
		s->nlmport = cfg->server[i].nlmport;
	}
	memcpy(p->cycle, cfg->cycle, sizeof(p->cycle));
	p->ncycle = cfg->ncycle;
	p->srv_index = cfg->srv_index;
	p->threads = cfg->threads;
	p->connections = cfg->connections;
	p->iodepth = cfg->iodepth;
	p->rw = cfg->rw;
	p->rwmixread = cfg->rwmixread;
	p->bs = cfg->bs;
	p->size = cfg->size;
	memcpy(p->dir, cfg->dir, sizeof(p->dir));
	p->timeout_ns = cfg->timeout_ns;
	p->sync = cfg->sync;
	p->verify = cfg->verify;
	p->wire_time = cfg->wire_time;
	p->meta = cfg->meta;
	p->mix = cfg->mix;
	p->file_size = cfg->file_size;
	p->open_files = cfg->open_files;
	p->owner_per_file = cfg->open_owners == CFG_OWNER_PER_FILE;
	p->share_deny = (unsigned)cfg->share_deny;	/* CFG_DENY_* are ENGINE_DENY_*'s values */
	p->small_files = cfg->small_files;
	p->opt = cfg->opt;
}
