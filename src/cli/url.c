/*
 * url: where a run goes, from its one positional argument: the nfs:// URL,
 * split into server, export path, NFS version, ports and the arguments an
 * engine passes on, and spelled back the one canonical way (cfg->canon_url);
 * or, for an engine on a local directory (--engine local), its path. Every
 * check that needs no server.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "units.h"
#include "url.h"

static int url_arg(struct config *cfg, char *key, char *val, char *err, size_t len)
{
	static const char *const passed[] = { "uid", "gid", "tcp-syncnt", "if", "debug" };
	uint64_t v;

	if (strcmp(key, "version") == 0) {
		/* Which minor versions an engine speaks is its check()'s to say. */
		if (strcmp(val, "3") && strcmp(val, "4") && strcmp(val, "4.0") && strcmp(val, "4.1") &&
		    strcmp(val, "4.2"))
			return config_fail(err, len, "URL: version=%s is not supported (3, 4, 4.0, 4.1 "
					   "or 4.2)", val);
		cfg->nfs_version = val[0] - '0';
		cfg->nfs_minor = val[0] == '3' ? 0 : val[1] ? val[2] - '0' : ENGINE_MINOR_ANY;
		return 0;
	}
	if (strcmp(key, "nfsport") == 0 || strcmp(key, "mountport") == 0) {
		if (units_parse_uint(val, 1, 65535, &v))
			return config_fail(err, len, "URL: %s=%s is not a port (1 to 65535)", key, val);
		if (key[0] == 'n') {
			if (cfg->nfsport && cfg->nfsport != v)
				return config_fail(err, len, "URL: nfsport=%s disagrees with the port in "
					    "the server part (%u)", val, cfg->nfsport);
			cfg->nfsport = (unsigned)v;
		} else {
			cfg->mountport = (unsigned)v;
		}
		return 0;
	}
	if (strcmp(key, "nlmport") == 0) {
		/* NFSv3's locks go to NLM v4 there (the native engine); not libnfs's. */
		if (units_parse_uint(val, 1, 65535, &v))
			return config_fail(err, len, "URL: nlmport=%s is not a port (1 to 65535)", val);
		cfg->nlmport = (unsigned)v;
		return 0;
	}
	if (strcmp(key, "sec") == 0) {
		static const char *const names[] = ENGINE_SEC_NAMES;

		for (unsigned k = 0; names[k]; k++)
			if (strcmp(val, names[k]) == 0) {
				if (cfg->opt.sec_url && cfg->opt.sec_url != k + 1)
					return config_fail(err, len, "URL: sec=%s disagrees with an "
						    "earlier URL's sec=%s (one flavour per run)", val,
						    names[cfg->opt.sec_url - 1]);
				cfg->opt.sec_url = k + 1;
				return 0;
			}
		return config_fail(err, len, "URL: sec=%s is not a flavour (sys, krb5, krb5i or "
				   "krb5p)", val);
	}
	for (size_t i = 0; i < sizeof(passed) / sizeof(passed[0]); i++) {
		if (strcmp(key, passed[i]) == 0) {
			if (strcmp(key, "if") && units_parse_uint(val, 0, UINT32_MAX, &v))
				return config_fail(err, len, "URL: %s=%s is not a whole number", key, val);
			if (*val == '\0')
				return config_fail(err, len, "URL: %s= needs a value", key);
			return 0;
		}
	}
	return config_fail(err, len, "URL: unknown argument '%s' (accepted: version, nfsport, "
		    "mountport, nlmport, sec, uid, gid, tcp-syncnt, if, debug)", key);
}

int config_parse_url(struct config *cfg, const char *url, char *err, size_t len)
{
	char buf[CFG_URL_MAX], extra[CFG_URL_MAX] = "";
	char *host, *path, *query, *port, *tok, *save;
	size_t n;

	if (strlen(url) >= sizeof(buf))
		return config_fail(err, len, "URL: longer than %d characters", CFG_URL_MAX - 1);
	memcpy(cfg->url, url, strlen(url) + 1);
	if (strncmp(url, "nfs://", 6) != 0)
		return config_fail(err, len, "URL: '%s' does not start with nfs:// "
			    "(nfs://server[:port]/export[/dir][?args])", url);
	snprintf(buf, sizeof(buf), "%s", url + 6);
	query = strchr(buf, '?');
	if (query)
		*query++ = '\0';
	path = strchr(buf, '/');
	if (!path || path[1] == '\0')
		return config_fail(err, len, "URL: no export path (nfs://server/export)");
	host = buf;
	n = (size_t)(path - buf);
	if (n == 0)
		return config_fail(err, len, "URL: no server (nfs://server/export)");
	memmove(cfg->path, path, strlen(path) + 1);
	host[n] = '\0';
	if (host[0] == '[')
		return config_fail(err, len, "URL: IPv6 address literals are not supported yet "
			    "(use a host name that resolves to the address)");
	port = strrchr(host, ':');
	if (port) {
		uint64_t p;

		*port++ = '\0';
		if (units_parse_uint(port, 1, 65535, &p))
			return config_fail(err, len, "URL: port '%s' is not a port (1 to 65535)", port);
		cfg->nfsport = (unsigned)p;
	}
	if (host[0] == '\0' || strlen(host) >= sizeof(cfg->host) ||
	    strspn(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")
	    != strlen(host))
		return config_fail(err, len, "URL: '%s' is not a server name or address", host);
	memcpy(cfg->host, host, strlen(host) + 1);

	n = strlen(cfg->path);
	while (n > 1 && cfg->path[n - 1] == '/')
		cfg->path[--n] = '\0';
	if (n == 1)	/* "nfs://srv//": only slashes, as "nfs://srv/" */
		return config_fail(err, len, "URL: no export path (nfs://server/export)");
	if (strstr(cfg->path, "//") || strstr(cfg->path, "/./") || strstr(cfg->path, "/../") ||
	    (n >= 2 && strcmp(cfg->path + n - 2, "/.") == 0) ||
	    (n >= 3 && strcmp(cfg->path + n - 3, "/..") == 0) || strpbrk(cfg->path, "%#\\ \t"))
		return config_fail(err, len, "URL: path '%s' is not a plain absolute path", cfg->path);

	for (tok = query ? strtok_r(query, "&", &save) : NULL; tok;
	     tok = strtok_r(NULL, "&", &save)) {
		char *eq = strchr(tok, '=');
		int rc;

		if (!eq)
			return config_fail(err, len, "URL: argument '%s' has no value (key=value)", tok);
		*eq = '\0';
		rc = url_arg(cfg, tok, eq + 1, err, len);
		if (rc)
			return rc;
		if (strcmp(tok, "version") && strcmp(tok, "nfsport") && strcmp(tok, "mountport") &&
		    strcmp(tok, "nlmport")) {
			size_t used = strlen(extra);
			snprintf(extra + used, sizeof(extra) - used, "&%s=%s", tok, eq + 1);
		}
	}
	n = (size_t)snprintf(cfg->canon_url, sizeof(cfg->canon_url), "nfs://%s%s?version=%d%s",
			     cfg->host, cfg->path, cfg->nfs_version, extra);
	if (cfg->nfsport && n < sizeof(cfg->canon_url))
		n += (size_t)snprintf(cfg->canon_url + n, sizeof(cfg->canon_url) - n,
				      "&nfsport=%u", cfg->nfsport);
	if (cfg->mountport && n < sizeof(cfg->canon_url))
		n += (size_t)snprintf(cfg->canon_url + n, sizeof(cfg->canon_url) - n,
				      "&mountport=%u", cfg->mountport);
	if (n >= sizeof(cfg->canon_url))
		return config_fail(err, len, "URL: too long");
	return 0;
}

int config_parse_path(struct config *cfg, int argc, char **argv, char *err, size_t len)
{
	size_t n;

	if (argc == 0)
		return config_fail(err, len, "no directory given (nfsload --engine %s [options] "
			    "/some/dir)", cfg->engine->name);
	if (argc > 1)
		return config_fail(err, len, "one directory expected, also got '%s'", argv[1]);
	if (strstr(argv[0], "://"))
		return config_fail(err, len, "--engine %s: takes a directory, not a URL ('%s'); for "
			    "a URL use --engine native or libnfs", cfg->engine->name, argv[0]);
	n = strlen(argv[0]);
	if (n == 0 || n >= sizeof(cfg->path))
		return config_fail(err, len, "--engine %s: needs the path of a directory",
			    cfg->engine->name);
	while (n > 1 && argv[0][n - 1] == '/')
		n--;
	memcpy(cfg->path, argv[0], n);
	cfg->path[n] = '\0';
	/* Reports print it where an NFS run prints its URL; jobs group runs by it. */
	memcpy(cfg->url, cfg->path, n + 1);
	memcpy(cfg->canon_url, cfg->path, n + 1);
	return 0;
}
