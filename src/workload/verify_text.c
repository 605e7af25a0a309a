/*
 * verify_text: a --verify mismatch in words, for the report and stderr
 * (the block format is verify.c's).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "verify.h"

const char *verify_kind_name(enum verify_kind k)
{
	switch (k) {
	case VERIFY_OK: return "ok";
	case VERIFY_MAGIC: return "magic";
	case VERIFY_FILE: return "file";
	case VERIFY_OFFSET: return "offset";
	case VERIFY_GENERATION: return "generation";
	case VERIFY_CHECKSUM: return "checksum";
	}
	return "unknown";
}

static const char *kind_phrase(enum verify_kind k)
{
	switch (k) {
	case VERIFY_OK: return "ok";
	case VERIFY_MAGIC: return "no block header (bad magic)";
	case VERIFY_FILE: return "block of another file";
	case VERIFY_OFFSET: return "block from another offset";
	case VERIFY_GENERATION: return "wrong generation";
	case VERIFY_CHECKSUM: return "checksum mismatch";
	}
	return "unknown";
}

/* snprintf at the end of what buf already holds; truncation keeps it terminated. */
static void __attribute__((format(printf, 3, 4)))
append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

static void append_hdr(char *buf, size_t len, const struct verify_hdr *h, bool expected)
{
	if (h->magic == VERIFY_BLOCK_MAGIC)
		append(buf, len, "magic=NFLV");
	else
		append(buf, len, "magic=0x%08" PRIx32, h->magic);
	append(buf, len, " file=%" PRIu32 " offset=%" PRIu64, h->file, h->offset);
	if (expected && h->generation == 0)
		append(buf, len, " gen=any");
	else
		append(buf, len, " gen=%" PRIu32, h->generation);
	append(buf, len, " seed=0x%08" PRIx32, h->seed32);
	if (!expected || h->generation)
		append(buf, len, " checksum=0x%016" PRIx64, h->checksum);
}

void verify_describe(const struct verify_mismatch *m, char *buf, size_t len)
{
	static const struct verify_hdr zero;

	if (len == 0)
		return;
	buf[0] = 0;
	append(buf, len, "file %" PRIu32 " offset %" PRIu64, m->file, m->offset);
	if (m->block)
		append(buf, len, " (block %" PRIu64 ")", m->offset / m->block);
	append(buf, len, ": %s", kind_phrase(m->kind));
	if (m->kind == VERIFY_OK)
		return;
	append(buf, len, "; expected ");
	append_hdr(buf, len, &m->expected, true);
	if (memcmp(&m->found, &zero, sizeof(zero)) == 0) {
		append(buf, len, "; found a header of zeros (a hole, or never written)");
	} else {
		append(buf, len, "; found ");
		append_hdr(buf, len, &m->found, false);
	}
	if (m->kind == VERIFY_CHECKSUM && m->found.seed32 != m->expected.seed32)
		append(buf, len, " (written with another --seed?)");
	if (m->first_diff == UINT64_MAX)
		append(buf, len, "; no differing byte found");
	else
		append(buf, len, "; first differing byte at +%" PRIu64 " (file offset %" PRIu64
		       "): expected 0x%02x, found 0x%02x", m->first_diff,
		       m->offset + m->first_diff, m->expected_byte, m->found_byte);
}
