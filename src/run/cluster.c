/*
 * cluster: the MPI calls nfsload makes (cluster.h), or none in a build
 * without MPI (make MPI=1 defines NFSLOAD_MPI).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"

static bool passed, all_ok;	/* cluster_start() went through; what it returned */

bool cluster_started(void)
{
	return passed;
}

bool cluster_start_ok(void)
{
	return all_ok;
}

#ifdef NFSLOAD_MPI
#include <mpi.h>

static int rank, size = 1;
static bool started;

int cluster_init(int *argc, char ***argv)
{
	if (MPI_Init(argc, argv) != MPI_SUCCESS) {
		fprintf(stderr, "nfsload: MPI_Init failed\n");
		return -1;
	}
	started = true;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	return 0;
}

void cluster_finish(void)
{
	if (started)
		MPI_Finalize();
	started = false;
}

unsigned cluster_rank(void)
{
	return (unsigned)rank;
}

unsigned cluster_size(void)
{
	return (unsigned)size;
}

bool cluster_built(void)
{
	return true;
}

bool cluster_start(bool ok)
{
	int mine = ok, all = ok;

	if (passed)
		return all_ok;
	if (size > 1)
		MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	passed = true;
	all_ok = all != 0;
	return all_ok;
}

int cluster_gather(const char *mine, size_t len, char ***texts)
{
	int n = (int)len, *lens = NULL, *offs = NULL, total = 0, rc = 0;
	char *all = NULL;

	*texts = NULL;
	if (rank == 0) {
		lens = calloc((size_t)size, sizeof(*lens));
		offs = calloc((size_t)size, sizeof(*offs));
	}
	MPI_Gather(&n, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		for (int i = 0; lens && offs && i < size; i++) {
			offs[i] = total;
			total += lens[i];
		}
		all = malloc((size_t)total + 1);
	}
	MPI_Gatherv(mine, n, MPI_CHAR, all, lens, offs, MPI_CHAR, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		char **t = calloc((size_t)size + 1, sizeof(*t));

		for (int i = 0; t && all && lens && offs && i < size; i++) {
			if (!(t[i] = malloc((size_t)lens[i] + 1)))
				break;
			memcpy(t[i], all + offs[i], (size_t)lens[i]);
			t[i][lens[i]] = '\0';
		}
		if (!t || !all || !lens || !offs || (size && !t[size - 1])) {
			cluster_free_texts(t);
			rc = -ENOMEM;
		} else {
			*texts = t;
		}
	}
	free(all);
	free(lens);
	free(offs);
	return rc;
}

int cluster_max_status(int status)
{
	int max = status;

	if (size > 1)
		MPI_Allreduce(&status, &max, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	return max;
}

#else	/* one host, no MPI */

int cluster_init(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

void cluster_finish(void)
{
}

unsigned cluster_rank(void)
{
	return 0;
}

unsigned cluster_size(void)
{
	return 1;
}

bool cluster_built(void)
{
	return false;
}

bool cluster_start(bool ok)
{
	if (!passed)
		all_ok = ok;
	passed = true;
	return all_ok;
}

int cluster_gather(const char *mine, size_t len, char ***texts)
{
	char **t = calloc(2, sizeof(*t));

	*texts = NULL;
	if (!t || !(t[0] = malloc(len + 1))) {
		free(t);
		return -ENOMEM;
	}
	memcpy(t[0], mine, len);
	t[0][len] = '\0';
	*texts = t;
	return 0;
}

int cluster_max_status(int status)
{
	return status;
}

#endif

void cluster_free_texts(char **texts)
{
	for (size_t i = 0; texts && texts[i]; i++)
		free(texts[i]);
	free(texts);
}
