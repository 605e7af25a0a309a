/*
 * servers: several server addresses in one run (scale-out NAS nodes side by
 * side). The URLs come from the command line (one or more) and --servers
 * FILE (one a line); each may end in #weight=N. Connections are spread over
 * them by weight, a session's group of connections (NFSv4.1,
 * --connections-per-session) always on one server, in a smooth order (the
 * heaviest server does not take all its connections first).
 *
 * Every server must name the same export path and NFS version. With
 * --shared-namespace they serve one namespace: the work directory is made and
 * laid out once, through the first server, and read and written through all
 * of them. Without, each server has its own: the work directory and its files
 * are made, laid out and removed on each, and a server's connections cover
 * every file among themselves, as one server's would (run.c, worker.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fail.h"
#include "servers.h"
#include "units.h"
#include "url.h"

#define WEIGHT_MAX 100

/* Splits "URL#weight=N": the URL into url (size CFG_URL_MAX), N into *weight. */
static int split_weight(const char *arg, char *url, unsigned *weight, char *err, size_t len)
{
	const char *hash = strchr(arg, '#');
	uint64_t w = 1;
	size_t n = hash ? (size_t)(hash - arg) : strlen(arg);

	if (n >= CFG_URL_MAX)
		return config_fail(err, len, "URL: longer than %d characters", CFG_URL_MAX - 1);
	memcpy(url, arg, n);
	url[n] = '\0';
	if (hash && (strncmp(hash, "#weight=", 8) != 0 ||
		     units_parse_uint(hash + 8, 1, WEIGHT_MAX, &w)))
		return config_fail(err, len, "URL: '%s': no '#' in a path; after the URL, "
			    "#weight=N (1 to %d) is all that is accepted", arg, WEIGHT_MAX);
	*weight = (unsigned)w;
	return 0;
}

/* Parses one URL into server i (the first: into cfg itself, as a single URL is). */
static int add_one(struct config *cfg, const char *arg, char *err, size_t len)
{
	struct cfg_server *s;
	struct config *tmp;
	char url[CFG_URL_MAX];
	unsigned weight = 1;
	int rc;

	if (cfg->nservers == CFG_SERVERS_MAX)
		return config_fail(err, len, "URL: at most %d servers in one run", CFG_SERVERS_MAX);
	if ((rc = split_weight(arg, url, &weight, err, len)))
		return rc;
	if (!strstr(url, "://"))
		return config_fail(err, len, "'%s' is a path, not an nfs:// URL (a local directory "
			    "or kernel NFS mount: --engine local)", url);
	tmp = malloc(sizeof(*tmp));
	if (!tmp)
		return config_fail(err, len, "out of memory");
	*tmp = *cfg;
	tmp->nfsport = tmp->mountport = tmp->nlmport = 0;
	rc = config_parse_url(tmp, url, err, len);
	if (rc == 0 && cfg->nservers > 0 && (strcmp(tmp->path, cfg->path) ||
					     tmp->nfs_version != cfg->nfs_version ||
					     tmp->nfs_minor != cfg->nfs_minor))
		rc = config_fail(err, len, "URL: '%s': every server needs the same export path and "
			    "version as the first ('%s', version=%d%s)", url, cfg->path,
			    cfg->nfs_version, cfg->nfs_version != 4 || cfg->nfs_minor < 0 ? "" :
			    cfg->nfs_minor == 2 ? ".2" : cfg->nfs_minor == 1 ? ".1" : ".0");
	/* The first as a single URL always was: parsed into cfg, even when it failed. */
	if (cfg->nservers == 0)
		*cfg = *tmp;
	if (rc == 0) {
		s = &cfg->server[cfg->nservers++];
		snprintf(s->url, sizeof(s->url), "%s", tmp->url);
		snprintf(s->host, sizeof(s->host), "%s", tmp->host);
		snprintf(s->canon_url, sizeof(s->canon_url), "%s", tmp->canon_url);
		s->nfsport = tmp->nfsport;
		s->mountport = tmp->mountport;
		s->nlmport = tmp->nlmport;
		s->weight = weight;
	}
	free(tmp);
	return rc;
}

/* The URLs of FILE, one a line; blank lines and lines starting with '#' skipped. */
static int add_file(struct config *cfg, const char *path, char *err, size_t len)
{
	char line[CFG_URL_MAX + 64];
	unsigned lineno = 0;
	FILE *f = fopen(path, "r");
	int rc = 0;

	if (!f)
		return config_fail(err, len, "--servers: cannot open '%s': %s", path, strerror(errno));
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t"), *end = p + strcspn(p, "\r\n");

		lineno++;
		*end = '\0';
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (*p == '\0' || *p == '#')
			continue;
		if ((rc = add_one(cfg, p, err, len))) {
			char why[512];

			snprintf(why, sizeof(why), "%s", err);
			rc = config_fail(err, len, "--servers %s, line %u: %s", path, lineno, why);
		}
	}
	if (rc == 0 && ferror(f))
		rc = config_fail(err, len, "--servers: cannot read '%s'", path);
	fclose(f);
	if (rc == 0 && lineno == 0)
		rc = config_fail(err, len, "--servers: '%s' is empty (one nfs:// URL a line)", path);
	return rc;
}

int config_add_servers(struct config *cfg, int argc, char **argv, const char *file, char *err,
		       size_t len)
{
	int rc;

	cfg->nservers = 0;
	for (int i = 0; i < argc; i++)
		if ((rc = add_one(cfg, argv[i], err, len)))
			return rc;
	if (file && file[0] && (rc = add_file(cfg, file, err, len)))
		return rc;
	if (cfg->nservers == 0)
		return config_fail(err, len, "no URL given (nfsload [options] nfs://server/export)");
	return 0;
}

int config_servers_validate(struct config *cfg, char *err, size_t len)
{
	unsigned groups, per = cfg->opt.conns_per_session > 1 ? cfg->opt.conns_per_session : 1;
	unsigned sum = 0, i, k;
	int credit[CFG_SERVERS_MAX] = { 0 };

	if (cfg->nservers <= 1) {
		cfg->ncycle = 1;
		cfg->cycle[0] = 0;
		if (cfg->nservers == 1)
			cfg->server[0].conns = cfg->connections;
		if (cfg->shared_namespace && cfg->nservers == 1)
			return config_fail(err, len, "--shared-namespace: for several servers (one URL "
				    "given)");
		if (cfg->series_by_server)
			return config_fail(err, len, "--series-by server: for several servers (one "
				    "URL given)");
		return 0;
	}
	for (i = 0; i < cfg->nservers; i++)
		sum += cfg->server[i].weight;
	if (sum > CFG_CYCLE_MAX)
		return config_fail(err, len, "URL: the servers' weights add up to %u (at most %d)",
			    sum, CFG_CYCLE_MAX);
	groups = (cfg->connections + per - 1) / per;
	if (groups < cfg->nservers)
		return config_fail(err, len, "--connections: %u for %u servers (at least one %s "
			    "each)", cfg->connections, cfg->nservers,
			    per > 1 ? "session of --connections-per-session" : "connection");
	/* Smooth weighted round robin (as nginx's): each turn every server gains
	 * its weight, the one with the most credit is chosen and pays the sum. */
	cfg->ncycle = sum;
	for (k = 0; k < sum; k++) {
		unsigned best = 0;

		for (i = 0; i < cfg->nservers; i++) {
			credit[i] += (int)cfg->server[i].weight;
			if (credit[i] > credit[best])
				best = i;
		}
		credit[best] -= (int)sum;
		cfg->cycle[k] = (unsigned char)best;
	}
	for (i = 0; i < cfg->nservers; i++)
		cfg->server[i].conns = 0;
	for (k = 0; k < cfg->connections; k++)
		cfg->server[config_server_of(cfg, k)].conns++;
	for (i = 0; i < cfg->nservers; i++)
		if (!cfg->server[i].conns)
			return config_fail(err, len, "--connections: %u leave %s without a connection "
				    "(its weight is too small for so few)", cfg->connections,
				    cfg->server[i].url);
	return 0;
}
