/* Micro-benchmark of the statistics hot paths (bench/run.sh builds and runs it):
 *
 *  a) recording one operation: op_stats_record into a HIST_PRECISE_BITS set (closed loop:
 *     one histogram; open loop: two), into a HIST_COARSE_BITS per-connection set, and the
 *     three records op_done makes per completed operation (ival + total + per-connection).
 *     Latencies come from a pre-generated log-uniform array (10 us .. 100 ms), so the PRNG
 *     is not measured. ns per record, median of REPS repetitions.
 *  c) --verify: verify_fill then verify_check of one 4 KiB block (src/verify.c), a new
 *     offset each time, in a buffer that stays in L1 as a block just read would.
 *     ns per block, median of REPS repetitions.
 *  d) the data a write carries, per MiB of 1 MiB writes: pattern_at (a pointer into the
 *     shared buffer: plain data and --buffer-compress-percentage) and pattern_fill (a copy,
 *     stamped per 4 KiB block: --dedupe-percentage 0 and 50). ns of thread CPU per MiB,
 *     median of REPS repetitions of 256 MiB.
 *  b) one interval of the series with 2 worker threads, as src/worker.c and src/main.c do
 *     it: per worker, lock / op_stats_add_all(snap, ival) / unlock / op_stats_reset_all(ival)
 *     (swap_interval); then per worker, op_stats_add_all(out, snap) / op_stats_reset_all(snap)
 *     (worker_take_interval), p50/p99/p99.9 per op type (series_add) and
 *     op_stats_reset_all(out) (interval_done). The ival sets are refilled with realistic
 *     latencies (untimed) before each interval. Run on one thread, back to back: the sum of
 *     the CPU the threads spend on it. Warm caches, and cold (a large buffer is walked
 *     first, untimed). Also hdrlog_write of one interval's histogram (what --hdr-log adds
 *     per op type and interval). Microseconds per interval, median of many.
 *
 *   micro [RECORDS_MILLIONS=50] [INTERVALS=1000]
 *
 * Prints key=value lines (record_ns=..., swap_merge_us=...) and the targets from the issue
 * next to them for reading; nothing here asserts a threshold. Times are thread CPU time
 * (CLOCK_THREAD_CPUTIME_ID): on a shared machine, time spent descheduled is not counted. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hdrlog.h"
#include "hist.h"
#include "pattern.h"
#include "stats.h"
#include "verify.h"

#define NVALS (1u << 20) /* pre-generated latencies (8 MiB), walked in order */
#define VMASK (NVALS - 1)
#define REPS 5
#define NWORKERS 2
#define IVAL_OPS 20000 /* operations per worker and interval (about 20k IOPS per thread) */
#define READ_PCT 70 /* read/write mix of the interval data: both op types have rows */
#define COLD_BYTES (64u << 20)

static uint64_t *vals;

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* Log-uniform in [10 us, 100 ms], in ns. */
static void gen_vals(void)
{
	uint64_t s = UINT64_C(0x9e3779b97f4a7c15);
	double lo = log(10e3), hi = log(100e6);

	vals = malloc(NVALS * sizeof(*vals));
	if (!vals) {
		perror("micro: malloc");
		exit(1);
	}
	for (unsigned i = 0; i < NVALS; i++) {
		double u = (double)(xorshift(&s) >> 11) / 9007199254740992.0;

		vals[i] = (uint64_t)exp(lo + u * (hi - lo));
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void die_nomem(int rc)
{
	if (rc) {
		fprintf(stderr, "micro: cannot allocate statistics\n");
		exit(1);
	}
}

/* The record loops: one function each, so each is compiled as the hot path would be. */
static __attribute__((noinline)) void rec_one(struct op_stats *s, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t v = vals[i & VMASK];

		/* Open loop: unc (from the actual issue) a little below lat. */
		op_stats_record(s, 4096, v, v - (v >> 5));
	}
}

/* What op_done does for one completed operation in the measured window. */
static __attribute__((noinline)) void rec_op_done(struct op_stats *ival, struct op_stats *total,
						  struct op_stats *conn, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		uint64_t v = vals[i & VMASK];

		op_stats_record(ival, 4096, v, v);
		op_stats_record(total, 4096, v, v);
		op_stats_record(conn, 4096, v, v);
	}
}

/* ns per record, median of REPS runs of n operations (records_per_op records each). */
static double bench_record(int sub_bits, bool open_loop, bool op_done, uint64_t n)
{
	struct op_stats a, b, c;
	double ns[REPS];
	uint64_t t0, check = 0;

	die_nomem(op_stats_init(&a, sub_bits, open_loop));
	die_nomem(op_stats_init(&b, sub_bits, open_loop));
	die_nomem(op_stats_init(&c, HIST_COARSE_BITS, false));
	for (int r = 0; r < REPS; r++) {
		op_stats_reset(&a);
		op_stats_reset(&b);
		op_stats_reset(&c);
		t0 = cpu_ns();
		if (op_done)
			rec_op_done(&a, &b, &c, n);
		else
			rec_one(&a, n);
		ns[r] = (double)(cpu_ns() - t0) / (double)(op_done ? 3 * n : n);
		check += a.lat.count + a.lat_unc.count + c.lat.count;
	}
	if (check != (uint64_t)REPS * n * (op_done ? 2 : open_loop ? 2 : 1)) {
		fprintf(stderr, "micro: record count mismatch\n");
		exit(1);
	}
	op_stats_destroy(&a);
	op_stats_destroy(&b);
	op_stats_destroy(&c);
	return median(ns, REPS);
}

/* ns per 4 KiB block for verify_fill + verify_check, median of REPS runs of n blocks. */
static double bench_verify(uint64_t n)
{
	static uint8_t blk[4096];
	struct verify_params p = { .block = sizeof(blk), .generation = 3, .seed = 42 };
	double ns[REPS];
	uint64_t t0, bad = 0;

	for (int r = 0; r < REPS; r++) {
		t0 = cpu_ns();
		for (uint64_t i = 0; i < n; i++) {
			verify_fill(&p, (uint32_t)(i & 7), i * sizeof(blk), blk, sizeof(blk));
			bad += verify_check(&p, (uint32_t)(i & 7), i * sizeof(blk), blk, sizeof(blk),
					    3, NULL);
		}
		ns[r] = (double)(cpu_ns() - t0) / (double)n;
	}
	if (bad) {
		fprintf(stderr, "micro: verify_check found %llu bad blocks\n", (unsigned long long)bad);
		exit(1);
	}
	return median(ns, REPS);
}

/* ns per MiB of data for 1 MiB writes: pointer only (fill false) or pattern_fill. */
static double bench_pattern(unsigned compress_pct, bool fill, unsigned dedupe_pct)
{
	const size_t mib = 1u << 20;
	uint8_t *pat = pattern_new(mib, compress_pct), *buf = malloc(mib);
	double ns[REPS];
	uintptr_t sink = 0;
	uint64_t t0;

	if (!pat || !buf)
		die_nomem(-ENOMEM);
	for (int r = 0; r < REPS; r++) {
		t0 = cpu_ns();
		for (uint64_t i = 0; i < 256; i++) {
			if (fill) {
				pattern_fill(pat, dedupe_pct, (uint32_t)(i & 7), i * mib, buf, mib);
				sink += buf[i];
			} else {
				sink += (uintptr_t)pattern_at(pat, (uint32_t)(i & 7), i * mib);
			}
		}
		ns[r] = (double)(cpu_ns() - t0) / 256.0;
	}
	if (sink == 1)
		printf("#\n");	/* keeps the loop */
	free(pat);
	free(buf);
	return median(ns, REPS);
}

struct bworker {
	pthread_mutex_t mu;
	struct op_stats ival[OP_NTYPES], snap[OP_NTYPES];
};

/* An interval's worth of completions into a worker's ival (untimed). */
static void fill_ival(struct bworker *w, unsigned *pos, uint64_t *rng)
{
	for (unsigned k = 0; k < IVAL_OPS; k++) {
		int t = xorshift(rng) % 100 < READ_PCT ? OP_READ : OP_WRITE;

		op_stats_record(&w->ival[t], 4096, vals[*pos & VMASK], 0);
		(*pos)++;
	}
}

static volatile uint64_t sink;

static void walk_cold(const uint8_t *buf)
{
	uint64_t s = 0;

	for (size_t i = 0; i < COLD_BYTES; i += 64)
		s += buf[i];
	sink += s;
}

/* One interval: swap_interval in each worker, then interval_done in main. */
static uint64_t do_interval(struct bworker *w, struct op_stats *out)
{
	uint64_t pct = 0;

	for (int i = 0; i < NWORKERS; i++) {
		pthread_mutex_lock(&w[i].mu);
		op_stats_add_all(w[i].snap, w[i].ival);
		pthread_mutex_unlock(&w[i].mu);
		op_stats_reset_all(w[i].ival);
	}
	for (int i = 0; i < NWORKERS; i++) {
		pthread_mutex_lock(&w[i].mu);
		op_stats_add_all(out, w[i].snap);
		op_stats_reset_all(w[i].snap);
		pthread_mutex_unlock(&w[i].mu);
	}
	for (int t = 0; t < OP_NTYPES; t++) {
		const struct hist *h = &out[t].lat;

		pct += hist_percentile(h, 50) + hist_percentile(h, 99) + hist_percentile(h, 99.9) +
		       (h->count ? h->max : 0);
	}
	op_stats_reset_all(out);
	return pct;
}

struct ival_result {
	double us, cold_us, hdr_us;
	uint64_t p50, p99, p999;	/* of the last interval's reads, for a sanity line */
};

static void bench_interval(unsigned n, struct ival_result *res)
{
	struct bworker w[NWORKERS];
	struct op_stats out[OP_NTYPES];
	double *us = calloc(n, sizeof(*us));
	uint8_t *cold = malloc(COLD_BYTES);
	unsigned pos = 0, ncold = n / 5 ? n / 5 : 1;
	uint64_t rng = 42, t0, check = 0;
	char tmpl[] = "/tmp/nfsload-micro-hdr.XXXXXX";
	struct hdrlog *log = NULL;
	int fd, rc;

	if (!us || !cold)
		die_nomem(-ENOMEM);
	memset(cold, 1, COLD_BYTES);
	for (int i = 0; i < NWORKERS; i++) {
		pthread_mutex_init(&w[i].mu, NULL);
		die_nomem(op_stats_init_all(w[i].ival, HIST_PRECISE_BITS, false));
		die_nomem(op_stats_init_all(w[i].snap, HIST_PRECISE_BITS, false));
	}
	die_nomem(op_stats_init_all(out, HIST_PRECISE_BITS, false));

	/* Warm caches: what the ticks cost in the steady state. */
	for (unsigned k = 0; k < n; k++) {
		for (int i = 0; i < NWORKERS; i++)
			fill_ival(&w[i], &pos, &rng);
		t0 = cpu_ns();
		check += do_interval(w, out);
		us[k] = (double)(cpu_ns() - t0) / 1e3;
	}
	res->us = median(us, n);

	/* Cold: other work (the event loops, libnfs) has evicted the statistics. */
	for (unsigned k = 0; k < ncold; k++) {
		for (int i = 0; i < NWORKERS; i++)
			fill_ival(&w[i], &pos, &rng);
		walk_cold(cold);
		t0 = cpu_ns();
		check += do_interval(w, out);
		us[k] = (double)(cpu_ns() - t0) / 1e3;
	}
	res->cold_us = median(us, ncold);

	/* --hdr-log: one line per op type and interval, into a file (flushed per line). */
	res->hdr_us = -1;
	fd = mkstemp(tmpl);
	if (fd >= 0) {
		close(fd);
		rc = hdrlog_open(tmpl, 0, &log);
		unlink(tmpl);
		if (rc == 0) {
			for (unsigned k = 0; k < n; k++) {
				for (int i = 0; i < NWORKERS; i++)
					fill_ival(&w[i], &pos, &rng);
				for (int i = 0; i < NWORKERS; i++) {
					op_stats_add_all(out, w[i].ival);
					op_stats_reset_all(w[i].ival);
				}
				t0 = cpu_ns();
				rc = hdrlog_write(log, "read", (uint64_t)k * 1000000000u, 1000000000u,
						  &out[OP_READ].lat);
				us[k] = (double)(cpu_ns() - t0) / 1e3;
				if (rc)
					break;
				res->p50 = hist_percentile(&out[OP_READ].lat, 50);
				res->p99 = hist_percentile(&out[OP_READ].lat, 99);
				res->p999 = hist_percentile(&out[OP_READ].lat, 99.9);
				op_stats_reset_all(out);
			}
			if (hdrlog_close(log) == 0 && rc == 0)
				res->hdr_us = median(us, n);
		}
	}
	sink += check;

	for (int i = 0; i < NWORKERS; i++) {
		op_stats_destroy_all(w[i].ival);
		op_stats_destroy_all(w[i].snap);
		pthread_mutex_destroy(&w[i].mu);
	}
	op_stats_destroy_all(out);
	free(cold);
	free(us);
}

static void print_machine(void)
{
	char line[512], model[256] = "unknown";
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && c) {
			snprintf(model, sizeof(model), "%s", c + 2);
			model[strcspn(model, "\n")] = 0;
			break;
		}
	}
	if (f)
		fclose(f);
	printf("machine: nproc=%ld cpu=\"%s\"\n", sysconf(_SC_NPROCESSORS_ONLN), model);
}

/* key=value, padded so the notes line up. */
static void kv(const char *key, double v, int decimals, const char *note)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s=%.*f", key, decimals, v);
	printf("%-26s (%s)\n", buf, note);
}

int main(int argc, char **argv)
{
	uint64_t n = (argc > 1 ? strtoull(argv[1], NULL, 10) : 50) * 1000000u;
	unsigned nival = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 1000;
	struct ival_result iv;
	uint64_t t0;
	double clk[REPS];

	if (n == 0 || nival == 0) {
		fprintf(stderr, "usage: micro [RECORDS_MILLIONS=50] [INTERVALS=1000]\n");
		return 2;
	}
	gen_vals();
	print_machine();
	printf("# a) op_stats_record, %llu records per repetition, median of %d; latencies "
	       "log-uniform 10 us..100 ms; ns of thread CPU per record\n",
	       (unsigned long long)n, REPS);
	fflush(stdout);
	kv("record_ns", bench_record(HIST_PRECISE_BITS, false, false, n), 2,
	   "precise, closed loop: one histogram; target < 30");
	kv("record_open_loop_ns", bench_record(HIST_PRECISE_BITS, true, false, n), 2,
	   "precise, open loop: lat and lat_unc in one call; target < 30");
	kv("record_coarse_ns", bench_record(HIST_COARSE_BITS, false, false, n), 2,
	   "per-connection set, HIST_COARSE_BITS; target < 30");
	kv("record_op_done_ns", bench_record(HIST_PRECISE_BITS, false, true, n / 3), 2,
	   "per record, op_done's 3 per op: ival + total + connection");
	for (int r = 0; r < REPS; r++) {
		t0 = cpu_ns();
		for (unsigned k = 0; k < 1000000; k++)
			sink += now_ns();
		clk[r] = (double)(cpu_ns() - t0) / 1e6;
	}
	kv("now_ns_ns", median(clk, REPS), 2, "context: one CLOCK_MONOTONIC read, op_done makes one");
	printf("# c) --verify, %llu blocks of 4 KiB per repetition, median of %d; ns of thread CPU "
	       "per block\n", (unsigned long long)(n / 50), REPS);
	kv("verify_4k_ns", bench_verify(n / 50), 1, "verify_fill + verify_check; target < 1000");
	printf("# d) the data of 1 MiB writes, ns of thread CPU per MiB, median of %d x 256 MiB\n",
	       REPS);
	kv("data_plain_ns_per_mib", bench_pattern(0, false, 0), 1, "pattern_at: a pointer");
	kv("data_compress60_ns_per_mib", bench_pattern(60, false, 0), 1,
	   "--buffer-compress-percentage 60: a pointer too");
	kv("data_dedupe0_ns_per_mib", bench_pattern(0, true, 0), 1,
	   "pattern_fill, every block its own (as --dedupe-percentage asks for any)");
	kv("data_dedupe50_ns_per_mib", bench_pattern(60, true, 50), 1,
	   "--buffer-compress-percentage 60 --dedupe-percentage 50: copied and stamped");
	fflush(stdout);

	bench_interval(nival, &iv);
	printf("# b) one interval, %d worker threads x %d ops (%d%% read), %d op types x %d "
	       "buckets; us of CPU, median of %u (cold: of %u)\n", NWORKERS, IVAL_OPS, READ_PCT,
	       OP_NTYPES, (HIST_MAX_BITS - HIST_PRECISE_BITS + 2) << (HIST_PRECISE_BITS - 1), nival,
	       nival / 5 ? nival / 5 : 1);
	kv("swap_merge_us", iv.us, 1, "2 threads' hand-over + merge + p50/p99/p99.9; target < 1000");
	kv("swap_merge_cold_us", iv.cold_us, 1, "the same, caches evicted first; target < 1000");
	if (iv.hdr_us >= 0)
		kv("hdrlog_write_us", iv.hdr_us, 1, "--hdr-log: one op type's line per interval");
	else
		printf("%-26s (could not write a log under /tmp)\n", "hdrlog_write_us=-");
	printf("# sanity: last interval's reads p50=%.0fus p99=%.0fus p99.9=%.0fus\n",
	       (double)iv.p50 / 1e3, (double)iv.p99 / 1e3, (double)iv.p999 / 1e3);
	return 0;
}
