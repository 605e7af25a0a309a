/*
 * oplog: an --op-log row formatted and parsed (see oplog.h). Formatting runs
 * once per operation on the worker threads, so it is done by hand: digits
 * written backwards into a small buffer, no printf, no locale.
 */
#include <errno.h>
#include <string.h>

#include "oplog.h"

#define NFIELDS 10

/* v in decimal at p; returns the end. */
static char *put_u64(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_str(char *p, const char *s, size_t max)
{
	for (size_t i = 0; s[i] && i < max; i++)
		*p++ = s[i] == ',' || s[i] == '\n' || s[i] == '\r' ? ' ' : s[i];
	return p;
}

size_t oplog_row_format(char *buf, const struct oplog_row *r)
{
	char *p = buf;

	p = put_u64(p, r->start_ns);
	*p++ = ',';
	p = put_u64(p, r->thread);
	*p++ = ',';
	p = put_u64(p, r->conn);
	*p++ = ',';
	p = put_u64(p, r->file);
	*p++ = ',';
	p = put_str(p, op_name(r->op), 16);
	*p++ = ',';
	p = put_u64(p, r->offset);
	*p++ = ',';
	p = put_u64(p, r->len);
	*p++ = ',';
	p = put_u64(p, r->lat_ns);
	*p++ = ',';
	if (r->has_wire)
		p = put_u64(p, r->wire_ns);
	*p++ = ',';
	p = put_str(p, r->ok ? "ok" : r->status ? r->status : "error", OPLOG_STATUS_MAX - 1);
	*p++ = '\n';
	return (size_t)(p - buf);
}

/* A whole field of digits, at most max: 0 or -EINVAL. */
static int get_u64(const char *s, size_t n, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;

	if (n == 0 || n > 20)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -EINVAL;
		x = x * 10 + d;
	}
	if (x > max)
		return -EINVAL;
	*v = x;
	return 0;
}

static int get_op(const char *s, size_t n, enum op_type *op)
{
	for (int t = 0; t < OP_NTYPES; t++) {
		const char *name = op_name((enum op_type)t);

		if (strlen(name) == n && memcmp(name, s, n) == 0) {
			*op = (enum op_type)t;
			return 0;
		}
	}
	return -EINVAL;
}

int oplog_row_parse(const char *line, size_t n, struct oplog_row *r)
{
	const char *f[NFIELDS];
	size_t len[NFIELDS], k = 0, at = 0;
	uint64_t v[NFIELDS] = { 0 };

	if (n && line[n - 1] == '\r')
		n--;
	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i <= n; i++) {
		if (i < n && line[i] != ',')
			continue;
		if (k == NFIELDS)
			return -EINVAL;
		f[k] = line + at;
		len[k++] = i - at;
		at = i + 1;
	}
	if (k != NFIELDS)
		return -EINVAL;
	for (size_t i = 0; i < 8; i++) {
		uint64_t max = i >= 1 && i <= 3 ? UINT32_MAX : i == 6 ? UINT32_MAX : UINT64_MAX;

		if (i != 4 && get_u64(f[i], len[i], max, &v[i]))
			return -EINVAL;
	}
	if (get_op(f[4], len[4], &r->op))
		return -EINVAL;
	if (len[8] && get_u64(f[8], len[8], UINT64_MAX, &r->wire_ns))
		return -EINVAL;
	if (len[9] == 0 || len[9] >= OPLOG_STATUS_MAX)
		return -EINVAL;
	for (size_t i = 0; i < len[9]; i++)	/* a name: printable ASCII, as formatted */
		if (f[9][i] < ' ' || f[9][i] > '~')
			return -EINVAL;
	r->start_ns = v[0];
	r->thread = (uint32_t)v[1];
	r->conn = (uint32_t)v[2];
	r->file = (uint32_t)v[3];
	r->offset = v[5];
	r->len = (uint32_t)v[6];
	r->lat_ns = v[7];
	r->has_wire = len[8] != 0;
	memcpy(r->status_buf, f[9], len[9]);
	r->status_buf[len[9]] = '\0';
	r->status = r->status_buf;
	r->ok = strcmp(r->status_buf, "ok") == 0;
	return 0;
}

bool oplog_is_header(const char *line, size_t n)
{
	size_t h = sizeof(OPLOG_HEADER) - 2;	/* without its newline */

	if (n && line[n - 1] == '\r')
		n--;
	return n == h && memcmp(line, OPLOG_HEADER, h) == 0;
}
