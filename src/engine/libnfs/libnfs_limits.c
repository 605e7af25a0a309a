/*
 * libnfs_limits: what this libnfs build can and cannot do (libnfs 4.0's
 * NFSv4.0 limits above all), as the engine's usage errors, its largest
 * READ and WRITE, the report's note, and the version it speaks.
 */
#include <string.h>

#include "libnfs.h"

static const char *const steps[] = { "MOUNT", "OPEN", NULL };
static const struct engine_proto speaks_v3 = { "3", steps }, speaks_v40 = { "4.0", steps };

const struct engine_proto *libnfs_proto(int version, int minor)
{
	(void)minor;	/* check() refuses 4.1; NFSv4.0's set-up is nfs_mount_async too: "MOUNT" */
	return version == 3 ? &speaks_v3 : &speaks_v40;
}

static bool v4_limits(const struct engine_params *cfg)
{
	return SHIM_V4_LIMITS && cfg->nfs_version == 4;
}

uint64_t libnfs_max_write(const struct engine_params *cfg)
{
	return v4_limits(cfg) ? LIBNFS_V4_MAX_WRITE : UINT64_MAX;
}

uint64_t libnfs_max_read(const struct engine_params *cfg)
{
	return v4_limits(cfg) ? LIBNFS_V4_MAX_READ : UINT64_MAX;
}

const char *libnfs_limits_note(struct engine_inst *inst, const struct engine_params *cfg)
{
	(void)inst;
	return v4_limits(cfg) ? "libnfs 4.x NFSv4.0: writes up to 3904 bytes, reads up to 1 MiB, "
				"layout uses 3584-byte writes" : "";
}

/* Whether an NFSv4 run would open files in parallel on one connection. */
static bool parallel_v4_opens(const struct engine_params *cfg)
{
	const unsigned *w = cfg->mix.weight;

	if (cfg->nfs_version != 4 || cfg->iodepth < 2)
		return false;
	return cfg->small_files ||
	       (cfg->meta && (w[OP_READ] || w[OP_WRITE] || w[OP_CREATE] || w[OP_OPEN]));
}

int libnfs_check(const struct engine_params *cfg, char *err, size_t len)
{
	unsigned read_pct = wl_mode_read_pct(cfg->rw, cfg->rwmixread);
	bool whole_file_writes = cfg->small_files || (cfg->meta && cfg->mix.weight[OP_WRITE]);

	if (cfg->opt.conns_per_session > 1)
		return config_fail(err, len, "--connections-per-session: NFSv4.1 sessions need "
				   "--engine native");
	if (cfg->opt.sec_url > 1)
		return config_fail(err, len, "URL: sec=%s: Debian's libnfs has no Kerberos "
				   "(use --engine native, which speaks krb5, krb5i and krb5p)",
				   engine_sec_name(cfg->opt.sec_url - 1));
	if (cfg->nfs_version == 4 && cfg->nfs_minor > 0)
		return config_fail(err, len, "URL: version=4.%d: libnfs speaks NFSv4.0 only "
				   "(use --engine native, which speaks 4.1 and 4.2, or version=4)",
				   cfg->nfs_minor);
	/* libnfs 4.0 crashes mounting a one-character server name. */
	if (strlen(cfg->host) == 1)
		return config_fail(err, len, "URL: server name '%s' is too short for libnfs 4.0 "
			    "(2 characters or more, an address, or --engine native)", cfg->host);
	if (read_pct < 100 && cfg->bs > libnfs_max_write(cfg))
		return config_fail(err, len, "--bs: %llu-byte NFSv4 writes cannot be sent by libnfs 4.0 "
			    "(at most %d bytes; use --engine native, version=3 or a smaller --bs)",
			    (unsigned long long)cfg->bs, LIBNFS_V4_MAX_WRITE);
	if (read_pct > 0 && cfg->bs > libnfs_max_read(cfg))
		return config_fail(err, len, "--bs: NFSv4 reads over 1 MiB break libnfs 4.0 connections "
			    "(use version=3 or --bs 1m or less)");
	if (whole_file_writes && cfg->file_size > libnfs_max_write(cfg))
		return config_fail(err, len, "--file-size: %llu-byte NFSv4 writes cannot be sent by "
			    "libnfs 4.0 (at most %d bytes; use --engine native or version=3)",
			    (unsigned long long)cfg->file_size,
			    LIBNFS_V4_MAX_WRITE);
	if (parallel_v4_opens(cfg) && cfg->small_files)
		return config_fail(err, len, "--small-files: libnfs 4.0 cannot run NFSv4 OPENs in parallel "
			    "on one connection: use --engine native, --iodepth 1, more --connections, "
			    "or version=3");
	if (parallel_v4_opens(cfg))
		return config_fail(err, len, "--mix: libnfs 4.0 cannot run NFSv4 OPENs in parallel on one "
			    "connection (read, write, create, open): use --engine native, --iodepth 1, "
			    "more --connections, or version=3");
	if (cfg->timeout_ns % UINT64_C(1000000000))
		return config_fail(err, len, "--timeout: libnfs takes whole seconds (try 5s, 30s, or "
				   "--engine native)");
	return 0;
}
