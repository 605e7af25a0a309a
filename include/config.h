/*
 * config: the run's settings, as data. Filled and checked from argv by
 * config_parse (options.h); after that read-only for the rest of the run and
 * shared by all threads. What the engines see of it is struct engine_params
 * (engine.h), made from it by engine_params_init (params.h).
 */
#ifndef NFSLOAD_CONFIG_H
#define NFSLOAD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "curve.h"
#include "distrib.h"
#include "engine_opts.h"
#include "meta.h"
#include "workload.h"

struct engine_ops;	/* engine.h */

enum cfg_format { CFG_FORMAT_TEXT, CFG_FORMAT_JSON, CFG_FORMAT_CSV };
enum cfg_arrival { CFG_ARRIVAL_UNIFORM, CFG_ARRIVAL_POISSON };
enum cfg_live { CFG_LIVE_AUTO, CFG_LIVE_ON, CFG_LIVE_OFF };
/* What a failed operation or a lost connection does to the run. */
enum cfg_on_error { CFG_ON_ERROR_CONTINUE, CFG_ON_ERROR_STOP };

#define CFG_URL_MAX ENGINE_URL_MAX
#define CFG_SERVERS_MAX ENGINE_SERVERS_MAX	/* URLs in one run */
#define CFG_CYCLE_MAX ENGINE_CYCLE_MAX		/* their weights' sum, at most */

/* One server of the run (servers.c): the first is also in config's url, host, ports. */
struct cfg_server {
	char url[CFG_URL_MAX];		/* as given, without its #weight */
	char host[256];
	char canon_url[CFG_URL_MAX];
	unsigned nfsport, mountport;	/* 0 = ask rpcbind */
	unsigned nlmport;		/* URL nlmport=: NLM v4 (NFSv3 locks); 0 = ask rpcbind */
	unsigned weight;		/* #weight=N, default 1 */
	unsigned conns;			/* connections it carries */
};

struct config {
	const struct engine_ops *engine;	/* --engine (engine.h) */
	/* URL, split and checked ("" with an engine that talks to no server) */
	char url[CFG_URL_MAX];		/* as given, for reports (a local engine: its path) */
	char host[256];
	char path[CFG_URL_MAX];	/* export path and optional subdirectory; or the local directory */
	/* "nfs://host/path?version=N&args&nfsport=P&mountport=M": one spelling per target */
	char canon_url[CFG_URL_MAX];
	int nfs_version;		/* 3 or 4 */
	int nfs_minor;			/* version=4.N: N; version=4: ENGINE_MINOR_ANY (-1) */
	unsigned nfsport, mountport;	/* 0 = ask rpcbind */
	unsigned nlmport;		/* URL nlmport=: NLM v4 (NFSv3 locks); 0 = ask rpcbind */
	struct engine_opts opt;		/* the engines' own options (engine_ops.options) */
	/* Several URLs (servers.c): connections spread by weight, in session groups. */
	unsigned nservers;		/* 1 with one URL (0: no server) */
	bool shared_namespace;		/* --shared-namespace: every server serves one tree */
	bool series_by_server;		/* --series-by server: interval rows per server too */
	struct cfg_server server[CFG_SERVERS_MAX];
	unsigned char cycle[CFG_CYCLE_MAX];	/* server of each group of connections, in turn */
	unsigned ncycle;
	unsigned srv_index;		/* a server's own copy (config_for_server): which */

	unsigned threads;
	unsigned connections;
	unsigned iodepth;
	enum wl_mode rw;
	unsigned rwmixread;
	/* data reduction (pattern.h): zeros in each 4 KiB unit, 4 KiB blocks repeated, in % */
	unsigned buffer_compress_percentage;
	unsigned dedupe_percentage;
	uint64_t bs;			/* with --bssplit: its largest size (buffers, limits) */
	struct distrib_spec distrib;	/* --random-distribution (random: uniform) */
	struct bssplit bssplit;		/* --bssplit; a direction without sizes: --bs */
	bool bssplit_set;
	uint64_t size;
	unsigned nrfiles;
	char dir[256];
	uint64_t runtime_ns;		/* 0 = not time based */
	uint64_t io_size;		/* 0 = not size based */
	bool one_pass;			/* neither given: each file once */
	uint64_t ramp_ns;
	uint64_t timeout_ns;
	uint64_t seed;
	bool skip_layout;
	bool keep;
	bool sync;			/* stable writes: files opened O_SYNC (FILE_SYNC) */
	bool series_buckets;		/* JSON series rows carry their histogram buckets */
	bool wire_time;			/* --wire-time: wire time beside client time */
	enum cfg_on_error on_error;	/* default: continue if time based, else stop */
	/* --verify: blocks carry a header and a checksum, reads check them */
	bool verify;
	bool verify_only;		/* no workload: one checking read pass over the files */
	bool verify_continue;		/* count every mismatch instead of stopping at the first */
	/* metadata workload (--mix): each connection's own tree */
	bool meta;
	char mix_str[256];		/* --mix as given */
	struct meta_mix mix;
	unsigned dirs, files_per_dir;
	uint64_t file_size;
	unsigned small_files;		/* small-file mode: files in all, 0 = off */
	/* NFSv4.2 (--mix's OPC_FILE ops, ops.h) */
	bool read_plus;			/* --read-plus: every read of --rw a READ_PLUS */
	bool sparse;			/* --sparse: the layout writes every 4th --bs block */
	unsigned xattr_count;		/* --xattr-count: names nfsload.0 .. (default 4) */
	uint64_t xattr_size;		/* --xattr-size: a SETXATTR's value (default 64) */
	/* State (--open-files, --mix's open, close, lock, unlock, lockt) */
	unsigned open_files;		/* held by each connection, 0 = none */
	enum cfg_open_owners { CFG_OWNER_PER_FILE, CFG_OWNER_PER_CONN } open_owners;
	enum cfg_share_deny { CFG_DENY_NONE, CFG_DENY_READ, CFG_DENY_WRITE, CFG_DENY_BOTH } share_deny;
	enum cfg_lock_type { CFG_LOCK_WRITE, CFG_LOCK_READ } lock_type;
	uint64_t lock_size;		/* default 4k */
	unsigned lock_contention;	/* percent of locks on the shared ranges */
	unsigned commit_every;		/* COMMIT after this many writes on a file, 0 = never */
	enum cfg_live live;
	enum cfg_format format;
	char output[CFG_URL_MAX];	/* "" = stdout */
	uint64_t interval_ns;		/* interval series and live line */
	double rate;			/* open loop: ops/s over the whole run, 0 = closed loop */
	enum cfg_arrival arrival;
	/* --load-curve (start 0: none; in ops/s once checked) and --latency-target (pct 0: none) */
	struct curve_spec curve;
	struct curve_target target;
	char hdr_log[CFG_URL_MAX];	/* "" = none */
	char op_log[CFG_URL_MAX];	/* --op-log: a row per operation, "" = none */
	char html[CFG_URL_MAX];		/* --report, "" = none */
	char servers_file[CFG_URL_MAX];	/* --servers, "" = none */
	/* --replay: a capture's calls instead of a workload (the run decodes it: replay.h) */
	char replay[CFG_URL_MAX];	/* "" = none */
	double replay_speed;		/* --replay-speed: pace x this; 0 = max (default 1) */
};

enum cfg_result { CFG_RUN = 0, CFG_EXIT_OK = 1 };

/* Issues follow a schedule, latency from the intended start: --rate, a load curve's
 * points, or a paced --replay. */
static inline bool config_open_loop(const struct config *cfg)
{
	return cfg->rate > 0 || cfg->curve.start > 0 || (cfg->replay[0] && cfg->replay_speed > 0);
}

/* The server (index) connection conn goes to: whole session groups, in the cycle's turn. */
static inline unsigned config_server_of(const struct config *cfg, unsigned conn)
{
	unsigned per = cfg->opt.conns_per_session > 1 ? cfg->opt.conns_per_session : 1;

	if (cfg->nservers <= 1 || cfg->ncycle == 0)
		return cfg->srv_index;
	return cfg->cycle[(conn / per) % cfg->ncycle];
}

/* Namespaces the servers make: 1 with --shared-namespace (or one server), else one each. */
static inline unsigned config_namespaces(const struct config *cfg)
{
	return cfg->nservers > 1 && !cfg->shared_namespace ? cfg->nservers : 1;
}

/* out = cfg as if server s were its only one (its URL, host and ports): for the work
 * directory's control connection to it. */
static inline void config_for_server(const struct config *cfg, unsigned s, struct config *out)
{
	const struct cfg_server *sv = &cfg->server[s];

	*out = *cfg;
	memcpy(out->url, sv->url, sizeof(out->url));
	memcpy(out->host, sv->host, sizeof(out->host));
	memcpy(out->canon_url, sv->canon_url, sizeof(out->canon_url));
	out->nfsport = sv->nfsport;
	out->mountport = sv->mountport;
	out->nlmport = sv->nlmport;
	out->nservers = 1;
	out->ncycle = 1;
	out->srv_index = s;
}
#endif
