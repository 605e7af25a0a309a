/*
 * libFuzzer target: config_parse_url on the input as a string.
 *
 * Checks: the result is 0 or -EINVAL with one line in err; the fields past
 * the URL's (threads onwards, which config_parse_url never writes) are left
 * alone even on failure; on success the parts are well formed and the
 * canonical libnfs URL parses again to the same host, path, version, ports
 * and canonical URL (a fixed point).
 *
 * Each input is also tried padded to CFG_URL_MAX - 1 characters, the longest
 * URL accepted: "/ppp...p" inserted where the path starts. Coverage does not
 * lead libFuzzer to that length (the canonical URL outgrowing its buffer
 * takes the same branches as any other too-long URL), so every input probes
 * the boundary.
 */
#include <stddef.h>

#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TAIL_OFF offsetof(struct config, threads)
#define CANARY 0xA5

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_quiet_stdout();
	return 0;
}

/* As config_parse leaves it before the URL: zero, version 3; the tail a canary. */
static void fresh(struct config *c)
{
	memset(c, 0, sizeof(*c));
	c->nfs_version = 3;
	memset((char *)c + TAIL_OFF, CANARY, sizeof(*c) - TAIL_OFF);
}

static void check_tail(const struct config *c)
{
	const unsigned char *p = (const unsigned char *)c + TAIL_OFF;

	for (size_t i = 0; i < sizeof(*c) - TAIL_OFF; i++)
		FUZZ_CHECK(p[i] == CANARY);
	FUZZ_CHECK(c->nfs_version == 3 || c->nfs_version == 4);
	FUZZ_CHECK(c->nfsport <= 65535 && c->mountport <= 65535);
}

static void check(const char *url)
{
	static struct config c, again;
	char err[FUZZ_ERR_LEN] = "";
	const char *allowed = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-";
	int rc;

	fresh(&c);
	rc = config_parse_url(&c, url, err, sizeof(err));
	FUZZ_CHECK(rc == 0 || rc == -EINVAL);
	FUZZ_CHECK(fuzz_terminated(err, sizeof(err)));
	check_tail(&c);
	if (rc) {
		FUZZ_CHECK(err[0] != '\0');
		return;
	}
	FUZZ_CHECK(strcmp(c.url, url) == 0);
	FUZZ_CHECK(fuzz_terminated(c.host, sizeof(c.host)));
	FUZZ_CHECK(fuzz_terminated(c.path, sizeof(c.path)));
	FUZZ_CHECK(fuzz_terminated(c.canon_url, sizeof(c.canon_url)));
	FUZZ_CHECK(strlen(c.host) >= 1 && strspn(c.host, allowed) == strlen(c.host));
	FUZZ_CHECK(c.path[0] == '/' && !strstr(c.path, "//"));
	FUZZ_CHECK(strlen(c.path) == 1 || c.path[strlen(c.path) - 1] != '/');
	FUZZ_CHECK(strncmp(c.canon_url, "nfs://", 6) == 0);

	fresh(&again);
	rc = config_parse_url(&again, c.canon_url, err, sizeof(err));
	FUZZ_CHECK(rc == 0);
	check_tail(&again);
	FUZZ_CHECK(strcmp(again.host, c.host) == 0);
	FUZZ_CHECK(strcmp(again.path, c.path) == 0);
	FUZZ_CHECK(again.nfs_version == c.nfs_version);
	FUZZ_CHECK(again.nfsport == c.nfsport && again.mountport == c.mountport);
	FUZZ_CHECK(strcmp(again.canon_url, c.canon_url) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char padded[CFG_URL_MAX];
	char *url = fuzz_string(data, size);
	size_t n = strlen(url), at, pad;

	check(url);
	/* "nfs://HOST" + "/ppp...p" + "/PATH?QUERY", CFG_URL_MAX - 1 long */
	if (strncmp(url, "nfs://", 6) == 0 && n + 2 < sizeof(padded) &&
	    (at = strcspn(url + 6, "/?") + 6) < n) {
		pad = sizeof(padded) - 1 - n;
		memcpy(padded, url, at);
		padded[at] = '/';
		memset(padded + at + 1, 'p', pad - 1);
		memcpy(padded + at + pad, url + at, n - at + 1);
		FUZZ_CHECK(strlen(padded) == sizeof(padded) - 1);
		check(padded);
	}
	free(url);
	return 0;
}
