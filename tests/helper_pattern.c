/*
 * helper_pattern FILE FILE_ID SIZE: checks that the first SIZE bytes of FILE
 * (read straight from the export directory on disk, not through NFS) are the
 * bytes nfsload writes for file FILE_ID: the pattern with every 4 KiB block
 * stamped with file and block (pattern_fill, --dedupe-percentage 0), so a
 * block written at another offset, even a multiple of the pattern's 64 KiB
 * period away, differs. Prints the first difference.
 * Exit 0 on a match, 1 on a difference or a short file, 2 on bad usage.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pattern.h"

int main(int argc, char **argv)
{
	uint8_t *pattern, want[PATTERN_UNIT];
	unsigned long long size, off = 0;
	unsigned file;
	FILE *f;
	int ch, rc = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: helper_pattern FILE FILE_ID SIZE\n");
		return 2;
	}
	file = (unsigned)strtoul(argv[2], NULL, 10);
	size = strtoull(argv[3], NULL, 10);
	pattern = pattern_new(1, 0);
	f = fopen(argv[1], "rb");
	if (!f || !pattern) {
		perror(argv[1]);
		return 1;
	}
	for (; off < size && (ch = getc(f)) != EOF; off++) {
		if (off % PATTERN_UNIT == 0)
			pattern_fill(pattern, 0, file, off, want, PATTERN_UNIT);
		if ((unsigned)ch != want[off % PATTERN_UNIT]) {
			printf("%s: byte %llu is 0x%02x, expected 0x%02x\n", argv[1], off, ch,
			       want[off % PATTERN_UNIT]);
			rc = 1;
			break;
		}
	}
	if (rc == 0 && off < size) {
		printf("%s: %llu bytes, expected %llu\n", argv[1], off, size);
		rc = 1;
	}
	fclose(f);
	free(pattern);
	return rc;
}
