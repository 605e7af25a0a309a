/*
 * distrib: which block a random op draws, with fio's access skews, and
 * which size it draws (--bssplit). Pure: no I/O, no allocation, no state
 * but the caller's; unit-tested without a server.
 *
 * A distribution draws a rank in [0, n), rank 0 the most likely, then
 * scatters ranks over the blocks by a permutation seeded by --seed, so the
 * hot blocks lie all over the file(s), as fio's hashing does; every draw is
 * O(1) (expected), and setting one up is O(1) however many blocks.
 *   random      uniform (the default)
 *   zipf:THETA  P(rank k) ~ 1/(k+1)^THETA, 0 < THETA <= 100 (Hörmann and Derflinger's
 *               rejection-inversion sampler)
 *   pareto:H    fio's meaning: rank = (n-1) * u^(log H / log(1-H)), 0 < H < 1
 *               (pareto:0.2 puts about 80% of the draws on 20% of the blocks)
 *   normal:DEV  fio's meaning: Gaussian centred on the middle rank, standard
 *               deviation DEV percent of the range, 0 < DEV <= 100
 */
#ifndef NFSLOAD_DISTRIB_H
#define NFSLOAD_DISTRIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum distrib_kind { DISTRIB_RANDOM, DISTRIB_ZIPF, DISTRIB_PARETO, DISTRIB_NORMAL };

struct distrib_spec {
	enum distrib_kind kind;
	double param;		/* THETA, H or DEV; 0 for random */
};

/* A distribution set up over n blocks: constants only, shared read-only. */
struct distrib {
	struct distrib_spec spec;
	uint64_t n;
	double pow;			/* pareto: log H / log(1-H) */
	double h_x1, h_n, s;		/* zipf: H(1.5) - 1, H(n + 0.5), the squeeze */
	uint64_t mask, mul1, mul2, key;	/* the scatter permutation */
	unsigned shift;
};

/* "zipf:1.2", "pareto:0.2", "normal:10", "random": 0, or -EINVAL. */
int distrib_parse(const char *s, struct distrib_spec *d);
/* The spelling distrib_parse reads back ("random", "zipf:1.2"). */
void distrib_format(const struct distrib_spec *d, char *buf, size_t len);

/* Sets d up over n >= 1 blocks, its scatter seeded by seed. */
void distrib_init(struct distrib *d, const struct distrib_spec *spec, uint64_t n, uint64_t seed);
/* A rank in [0, n), 0 the hottest (normal: the middle one), drawn from the
 * splitmix64 state *rng. */
uint64_t distrib_rank(const struct distrib *d, uint64_t *rng);
/* The block of a rank: a bijection of [0, n). */
uint64_t distrib_scatter(const struct distrib *d, uint64_t rank);
/* distrib_scatter(distrib_rank()): the block an op goes to. */
uint64_t distrib_next(const struct distrib *d, uint64_t *rng);

/* splitmix64, the PRNG of the workload's streams. */
uint64_t distrib_rand(uint64_t *state);

/*
 * --bssplit: per direction (0 reads, 1 writes) up to BSSPLIT_MAX sizes with
 * their percentages, summing to 100. fio's syntax: "4k/50:64k/30:1m/20"; a
 * size without a percentage shares what the others leave; "READS,WRITES"
 * per direction, an empty side leaving that direction to --bs.
 */
#define BSSPLIT_MAX 16

struct bssplit_dir {
	unsigned n;			/* 0: this direction uses --bs */
	uint64_t bs[BSSPLIT_MAX];
	unsigned pct[BSSPLIT_MAX];
};

struct bssplit {
	struct bssplit_dir dir[2];
};

/* 0, or -EINVAL with why in err ("... is not a size", "percentages add to 105"). */
int bssplit_parse(const char *s, uint64_t max_bs, struct bssplit *b, char *err, size_t len);
/* The largest size of a direction (0 when it has none). */
uint64_t bssplit_max(const struct bssplit_dir *d);
/* The smallest size of both directions (0 when neither has one). */
uint64_t bssplit_min(const struct bssplit *b);
/* A size drawn by the percentages from *rng; the direction must have a size. */
uint64_t bssplit_draw(const struct bssplit_dir *d, uint64_t *rng);

#endif
