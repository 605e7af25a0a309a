/*
 * config: the run's settings, parsed and validated from argv.
 *
 * Owns: option parsing, URL parsing and every check that can be made without
 * a server. After config_parse succeeds the struct is read-only for the rest
 * of the run and shared by all threads. No I/O besides --help/--version.
 */
#ifndef NFSLOAD_CONFIG_H
#define NFSLOAD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "meta.h"
#include "workload.h"

enum cfg_format { CFG_FORMAT_TEXT, CFG_FORMAT_JSON, CFG_FORMAT_CSV };
enum cfg_arrival { CFG_ARRIVAL_UNIFORM, CFG_ARRIVAL_POISSON };
enum cfg_live { CFG_LIVE_AUTO, CFG_LIVE_ON, CFG_LIVE_OFF };
/* What a failed operation or a lost connection does to the run. */
enum cfg_on_error { CFG_ON_ERROR_CONTINUE, CFG_ON_ERROR_STOP };
/* Where wire time comes from (--wire-source): a packet tap where it can be
 * opened, else the sockets' kernel timestamps; or one of them. */
enum cfg_wire { CFG_WIRE_AUTO, CFG_WIRE_TAP, CFG_WIRE_STAMPS };

#define CFG_URL_MAX 1024
#define CFG_SERVERS_MAX 16		/* URLs in one run */
#define CFG_CYCLE_MAX 256		/* their weights' sum, at most */

struct engine_ops;

/* One server of the run (servers.c): the first is also in config's url, host, ports. */
struct cfg_server {
	char url[CFG_URL_MAX];		/* as given, without its #weight */
	char host[256];
	char canon_url[CFG_URL_MAX];
	unsigned nfsport, mountport;	/* 0 = ask rpcbind */
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
	int nfs_minor;			/* 1: version=4.1 was asked for */
	unsigned nfsport, mountport;	/* 0 = ask rpcbind */
	unsigned uid, gid;		/* AUTH_SYS credential (native engine) */
	unsigned conns_per_session;	/* NFSv4.1 trunking (native engine), 1 = none */
	unsigned max_load;		/* stress mode: wake once per this many replies, 0 = off */
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
	uint64_t bs;
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
	bool direct;			/* --direct: O_DIRECT (local engine only) */
	bool series_buckets;		/* JSON series rows carry their histogram buckets */
	bool wire_time;			/* --wire-time: wire time beside client time */
	enum cfg_wire wire_source;	/* --wire-source (sets wire_time) */
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
	unsigned commit_every;		/* COMMIT after this many writes on a file, 0 = never */
	enum cfg_live live;
	enum cfg_format format;
	char output[CFG_URL_MAX];	/* "" = stdout */
	uint64_t interval_ns;		/* interval series and live line */
	double rate;			/* open loop: ops/s over the whole run, 0 = closed loop */
	enum cfg_arrival arrival;
	char hdr_log[CFG_URL_MAX];	/* "" = none */
	char html[CFG_URL_MAX];		/* --report, "" = none */
};

enum cfg_result { CFG_RUN = 0, CFG_EXIT_OK = 1 };

/*
 * Fills cfg from argv. Returns CFG_RUN, CFG_EXIT_OK after printing --help or
 * --version to stdout, or -EINVAL with one line in err (without the
 * "nfsload: " prefix) naming the option or URL part and what is accepted.
 */
int config_parse(struct config *cfg, int argc, char **argv, char *err, size_t errlen);

/* Validates and splits an nfs:// URL into cfg. Same return/err as above. */
int config_parse_url(struct config *cfg, const char *url, char *err, size_t errlen);
/* An engine on a local directory (engine_ops.takes_path): argv[0..argc) holds its path
 * (cfg->path; also cfg->url and canon_url, for reports and jobs). 0 or -EINVAL. */
int config_parse_path(struct config *cfg, int argc, char **argv, char *err, size_t len);

/* servers.c: the URLs argv[0..argc) and those of file (NULL: none) as the run's
 * servers, the first also into cfg's url, host and ports. 0 or -EINVAL. */
int config_add_servers(struct config *cfg, int argc, char **argv, const char *file, char *err,
		       size_t len);
/* Once every option is known: weights, --shared-namespace, each server's connections. */
int config_servers_validate(struct config *cfg, char *err, size_t len);
/* The server (index) connection conn goes to. */
unsigned config_server_of(const struct config *cfg, unsigned conn);
/* Namespaces the servers make: 1 with --shared-namespace (or one server), else one each. */
unsigned config_namespaces(const struct config *cfg);
/* out = cfg as if server s were its only one (its URL, host and ports): for the work
 * directory's control connection to it. */
void config_for_server(const struct config *cfg, unsigned s, struct config *out);

void config_usage(FILE *out);
/* In a copy of argv's pointers: an abbreviation of --connections (6 letters or more,
 * without '=') made the whole option, as config_parse reads it (also job.c's scan). */
void config_expand_abbrev(int argc, char **argv);

/*
 * A usage error: the message (printf-style, one line, no "nfsload: ") into
 * err; returns -EINVAL. For config.c, url.c and the engines' check().
 */
int config_fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

struct option;
/* The long options config_parse knows (getopt_long's table, zero-terminated). */
const struct option *config_options(void);
#endif
