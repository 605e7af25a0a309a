/*
 * Helpers shared by the libFuzzer targets in tests/fuzz/ (built by
 * `make fuzz`): quiet stdout, input -> argv, and the checks every parsed
 * struct config must pass. A failed check calls abort(), which libFuzzer
 * reports as a crash and saves the input.
 */
#ifndef NFSLOAD_FUZZ_COMMON_H
#define NFSLOAD_FUZZ_COMMON_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "config.h"
#include "options.h"
#include "cli/url.h"
#include "engine.h"

#define FUZZ_MAX_ARGS 32	/* words after argv[0] */
#define FUZZ_ERR_LEN 700	/* main.c's largest err buffer */

/* A failed invariant: say which on stderr (libFuzzer keeps the input). */
#define FUZZ_CHECK(cond) do { \
		if (!(cond)) { \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			abort(); \
		} \
	} while (0)

/* --help/--version print to stdout: send it away once, keep stderr for libFuzzer. */
static inline void fuzz_quiet_stdout(void)
{
	unsetenv("POSIXLY_CORRECT");	/* config_parse relies on GNU getopt's permuting */
	if (!freopen("/dev/null", "w", stdout))
		abort();
}

/* data as a NUL-terminated malloc'd string (a NUL inside ends it early). */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * Splits buf (size bytes + a NUL) in place on NUL and '\n' into at most
 * FUZZ_MAX_ARGS words after argv[0] = "nfsload"; a separator at the very end
 * makes no empty last word, "a\n\nb" is "a", "", "b". argv needs
 * FUZZ_MAX_ARGS + 2 slots. Returns argc.
 */
static inline int fuzz_split(char *buf, size_t size, char **argv)
{
	int argc = 0;

	argv[argc++] = (char *)"nfsload";
	for (size_t i = 0; i < size; i++)
		if (buf[i] == '\n')
			buf[i] = '\0';
	for (size_t at = 0; at < size && argc <= FUZZ_MAX_ARGS; at += strlen(buf + at) + 1)
		argv[argc++] = buf + at;
	argv[argc] = NULL;
	return argc;
}

static inline int fuzz_terminated(const char *s, size_t n)
{
	return memchr(s, '\0', n) != NULL;
}

/*
 * What options.h promises about a config_parse result: rc, one line of err on
 * failure, and on success a config the rest of nfsload can rely on.
 */
static inline void fuzz_check_config(const struct config *c, int rc, const char *err)
{
	FUZZ_CHECK(rc == CFG_RUN || rc == CFG_EXIT_OK || rc == -EINVAL);
	FUZZ_CHECK(fuzz_terminated(err, FUZZ_ERR_LEN));
	if (rc == -EINVAL) {
		FUZZ_CHECK(err[0] != '\0');
		FUZZ_CHECK(!strchr(err, '\n'));
	}
	if (rc != CFG_RUN)
		return;
	FUZZ_CHECK(fuzz_terminated(c->url, sizeof(c->url)));
	FUZZ_CHECK(fuzz_terminated(c->host, sizeof(c->host)));
	FUZZ_CHECK(fuzz_terminated(c->path, sizeof(c->path)));
	FUZZ_CHECK(fuzz_terminated(c->canon_url, sizeof(c->canon_url)));
	FUZZ_CHECK(fuzz_terminated(c->dir, sizeof(c->dir)));
	FUZZ_CHECK(fuzz_terminated(c->output, sizeof(c->output)));
	FUZZ_CHECK(fuzz_terminated(c->hdr_log, sizeof(c->hdr_log)));
	FUZZ_CHECK(fuzz_terminated(c->html, sizeof(c->html)));
	/* An engine that talks to no server has no URL at all. */
	FUZZ_CHECK(c->engine && (c->engine->needs_url || !c->url[0]));
	FUZZ_CHECK(!c->engine->needs_url || strncmp(c->url, "nfs://", 6) == 0);
	FUZZ_CHECK(!c->engine->needs_url || strncmp(c->canon_url, "nfs://", 6) == 0);
	FUZZ_CHECK(!c->engine->needs_url || (c->host[0] && c->path[0] == '/'));
	/*
	 * Two limits are libnfs's alone (libnfs_check): a one-character server
	 * name crashes libnfs 4.0's mount, and libnfs takes whole seconds. The
	 * native and local engines take both ("nfs://h/e", --timeout 1500ms:
	 * every engine checks its deadlines once a second, see engine.h's tick).
	 */
	FUZZ_CHECK(c->engine != &engine_libnfs || strlen(c->host) >= 2);
	FUZZ_CHECK(c->engine != &engine_libnfs || c->timeout_ns % UINT64_C(1000000000) == 0);
	FUZZ_CHECK(c->nfs_version == 3 || c->nfs_version == 4);
	FUZZ_CHECK(c->nfsport <= 65535 && c->mountport <= 65535);
	FUZZ_CHECK(c->connections >= 1 && c->connections <= 65536);
	FUZZ_CHECK(c->threads >= 1 && c->threads <= c->connections);
	FUZZ_CHECK(c->iodepth >= 1 && c->iodepth <= 1024);
	FUZZ_CHECK(c->rwmixread <= 100);
	FUZZ_CHECK(c->bs >= 1 && c->bs <= (UINT64_C(16) << 20) && c->bs <= c->size);
	FUZZ_CHECK(c->nrfiles >= 1 && c->nrfiles <= 1000000);
	FUZZ_CHECK(c->dir[0] != '\0');
	FUZZ_CHECK(c->timeout_ns >= UINT64_C(1000000000) &&
		   c->timeout_ns <= UINT64_C(3600000000000));
	FUZZ_CHECK(c->interval_ns >= UINT64_C(100000000) &&
		   c->interval_ns <= UINT64_C(3600000000000));
	FUZZ_CHECK(!c->runtime_ns || c->ramp_ns < c->runtime_ns);
	FUZZ_CHECK(!(c->commit_every && c->sync));
	FUZZ_CHECK(c->rate >= 0 && c->rate <= 100000000);
	/* One pass: every file once, so io_size is exactly size * nrfiles. */
	if (c->one_pass)
		FUZZ_CHECK(!c->runtime_ns && c->io_size / c->nrfiles == c->size &&
			   c->io_size % c->nrfiles == 0);
	/* Time or size based, never neither (io_size 0 = not size based). */
	FUZZ_CHECK(c->runtime_ns || c->io_size);
}

/* FNV-1a over n bytes into *h (start at FUZZ_FNV_BASIS): a decode's fingerprint, to
 * compare two decodes of the same bytes. */
#define FUZZ_FNV_BASIS UINT64_C(0xcbf29ce484222325)
static inline void fuzz_hash(uint64_t *h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		*h = (*h ^ b[i]) * UINT64_C(0x100000001b3);
}

/* A memfd for the targets whose code under test opens a file by name: path gets
 * /proc/self/fd/N. Aborts if none can be made (the target cannot run). */
static inline int fuzz_memfd(const char *name, char *path, size_t len)
{
	int fd = memfd_create(name, 0);

	if (fd < 0)
		abort();
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
