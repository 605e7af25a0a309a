/*
 * libFuzzer target: --merge's reading of JSON reports (src/merge/merge.c and
 * src/merge/merge_series.c), which trust nothing in them. The input is split at
 * its first NUL into two reports (the second empty if none) and merged as
 * MPI ranks' texts are, as text and as JSON. Checks: the call returns 0 or
 * -EINVAL/-ENOMEM, with a message when it fails; a merged JSON report, read
 * back alone, merges again (the output is a report --merge reads).
 */
#include <stdbool.h>
#include <stddef.h>

#include "fuzz_common.h"
#include "merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "a", "b" };
	char *text = fuzz_string(data, size), *texts[3] = { NULL, NULL, NULL };
	char err[600], *buf = NULL;
	size_t n = 0, len;
	FILE *out;
	int rc;

	if (!text)
		return 0;
	len = strlen(text);
	texts[0] = text;
	texts[1] = len + 1 < size ? strndup((const char *)data + len + 1, size - len - 1) :
				    strdup("");
	if (!texts[1]) {
		free(text);
		return 0;
	}
	for (int json = 0; json < 2; json++) {
		if (!(out = open_memstream(&buf, &n)))
			abort();
		err[0] = '\0';
		struct merge_out o = { .fmt = json ? CFG_FORMAT_JSON : CFG_FORMAT_TEXT, .out = out };

		rc = merge_reports(names, texts, 2, &o, err, sizeof(err));
		fclose(out);
		FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ENOMEM);
		FUZZ_CHECK(rc == 0 || err[0]);
		if (rc == 0 && json) {
			char *again[2] = { buf, NULL };
			char *buf2 = NULL;
			size_t n2 = 0;
			FILE *o2 = open_memstream(&buf2, &n2);

			if (!o2)
				abort();
			struct merge_out o1 = { .fmt = CFG_FORMAT_JSON, .out = o2 };

			rc = merge_reports(names, again, 1, &o1, err, sizeof(err));
			fclose(o2);
			FUZZ_CHECK(rc == 0 || rc == -ENOMEM);
			free(buf2);
		}
		free(buf);
		buf = NULL;
	}
	free(texts[1]);
	free(text);
	return 0;
}
