/*
 * status: how a run ends, as the shell sees it: its exit status, and the
 * lines on stderr that say why it is not 0.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "ops.h"
#include "status.h"

int run_complain(int status, const char *fmt, ...)
{
	va_list ap;

	fputs("nfsload: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return status;
}

/* The first bad blocks in detail, and a hint when the files were not written by --verify. */
static void verify_lines(const struct report *r)
{
	char line[600];

	fprintf(stderr, "nfsload: --verify: %" PRIu64 " bad block%s of %" PRIu64 " checked\n",
		r->verify.bad, r->verify.bad == 1 ? "" : "s", r->verify.blocks);
	for (unsigned i = 0; i < r->verify.nkept; i++) {
		verify_describe(&r->verify.kept[i], line, sizeof(line));
		fprintf(stderr, "nfsload: verify: %s\n", line);
	}
	if (r->verify.by_kind[VERIFY_MAGIC] == r->verify.bad && !r->layout_ran)
		fprintf(stderr, "nfsload: hint: every bad block lacks a header and this run "
			"laid nothing out: were the files written without --verify? (use "
			"another --dir, or remove them)\n");
}

int run_exit_status(const struct report *r, int signal)
{
	unsigned failed = 0;
	const char *first = "";

	for (unsigned i = 0; i < r->nconns; i++) {
		if (r->conns[i].error[0] && !failed++)
			first = r->conns[i].error;
	}
	if (failed)
		fprintf(stderr, "nfsload: %u of %u connections failed during the run (first: %s)\n",
			failed, r->nconns, first);
	if (r->verify.bad)
		verify_lines(r);
	if (signal)
		return 128 + signal;
	if (r->verify.bad)
		return EXIT_VERIFY;
	if (failed || report_total_ops(r) == 0)
		return EXIT_RUNTIME;
	return 0;
}

void run_refusal_line(unsigned refusal, char *buf, size_t len)
{
	enum op_type op = (enum op_type)((refusal & 0xff) - 1);
	bool illegal = (refusal >> 8) == 2;

	if (op >= OP_NTYPES) {
		snprintf(buf, len, "the server refused an operation");
		return;
	}
	snprintf(buf, len, "%s: the server answered %s (it does not %s %s)", op_name(op),
		 illegal ? "NFS4ERR_OP_ILLEGAL" : "NFS4ERR_NOTSUPP",
		 illegal ? "have" : "support", op_procedure(op));
}
