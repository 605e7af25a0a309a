/* The baseline "bare libnfs poll loop": one nfs_context, QD async preads of BS bytes at
 * random aligned offsets, a plain poll() loop, no framework around it. Its client CPU per
 * operation is the floor that libnfs and the syscalls set for any libnfs-based tool.
 *
 *   bare_libnfs URL PATH SECONDS [QD=16] [BS=4k] [FILESIZE=size of PATH]
 *   URL: nfs://host/export?version=3&nfsport=P&mountport=M   PATH: file within the export
 * Prints one line: ops=N secs=S iops=I mib_s=M cpu_us_per_op=C p50_us=A p99_us=B errors=E
 * (CPU is this process's user+sys over the I/O phase, from getrusage.) */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <poll.h>
#include <time.h>
#include <nfsc/libnfs.h>

#define HIST_US 100000 /* latency histogram: 1 us buckets up to 100 ms, then overflow */

struct slot { uint64_t start_ns; };

static struct nfs_context *nfs;
static struct nfsfh *fh;
static uint64_t bs, nblocks, rng = 0x9e3779b97f4a7c15ull, deadline_ns;
static uint64_t ops, errors, inflight;
static uint32_t hist[HIST_US + 1];
static int failed;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static uint64_t parse_size(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 10);
	switch (*end) {
	case 'k': case 'K': return v << 10;
	case 'm': case 'M': return v << 20;
	case 'g': case 'G': return v << 30;
	default: return v;
	}
}

static void read_cb(int err, struct nfs_context *ctx, void *data, void *priv);

static void submit(struct slot *s)
{
	rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; /* xorshift64 */
	s->start_ns = now_ns();
	if (nfs_pread_async(nfs, fh, (rng % nblocks) * bs, bs, read_cb, s) != 0) {
		fprintf(stderr, "nfs_pread_async: %s\n", nfs_get_error(nfs));
		failed = 1;
		return;
	}
	inflight++;
}

static void read_cb(int err, struct nfs_context *ctx, void *data, void *priv)
{
	struct slot *s = priv;
	uint64_t t = now_ns(), us = (t - s->start_ns) / 1000;
	static char sink[1 << 20];

	(void)ctx;
	inflight--;
	if (err < 0) {
		if (errors++ < 5)
			fprintf(stderr, "read failed: %d %s\n", err, nfs_get_error(nfs) ? nfs_get_error(nfs) : "");
	} else {
		/* copy out, as a real tool must: data points into libnfs's receive buffer */
		memcpy(sink, data, (size_t)err < sizeof(sink) ? (size_t)err : sizeof(sink));
		ops++;
		hist[us < HIST_US ? us : HIST_US]++;
	}
	if (t < deadline_ns && !failed)
		submit(s);
}

static uint64_t pct(double p)
{
	uint64_t want = (uint64_t)(p * (double)ops + 0.5), seen = 0;
	for (uint64_t i = 0; i <= HIST_US; i++)
		if ((seen += hist[i]) >= want && want)
			return i;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 4 || argc > 7) {
		fprintf(stderr, "usage: %s URL PATH SECONDS [QD=16] [BS=4k] [FILESIZE]\n", argv[0]);
		return 2;
	}
	double secs = atof(argv[3]);
	unsigned qd = argc > 4 ? (unsigned)atoi(argv[4]) : 16;
	bs = argc > 5 ? parse_size(argv[5]) : 4096;
	uint64_t fsize = argc > 6 ? parse_size(argv[6]) : 0;
	if (secs <= 0 || qd == 0 || bs == 0 || bs > (1u << 20)) {
		fprintf(stderr, "bad SECONDS, QD or BS (BS at most 1m)\n");
		return 2;
	}

	nfs = nfs_init_context();
	struct nfs_url *url = nfs ? nfs_parse_url_dir(nfs, argv[1]) : NULL;
	if (!url) {
		fprintf(stderr, "bad URL %s: %s\n", argv[1], nfs ? nfs_get_error(nfs) : "no context");
		return 1;
	}
	if (nfs_mount(nfs, url->server, url->path) != 0) {
		fprintf(stderr, "mount %s: %s\n", argv[1], nfs_get_error(nfs));
		return 1;
	}
	if (nfs_open(nfs, argv[2], O_RDONLY, &fh) != 0) {
		fprintf(stderr, "open %s: %s\n", argv[2], nfs_get_error(nfs));
		return 1;
	}
	if (!fsize) {
		struct nfs_stat_64 st;
		if (nfs_fstat64(nfs, fh, &st) != 0) {
			fprintf(stderr, "fstat %s: %s\n", argv[2], nfs_get_error(nfs));
			return 1;
		}
		fsize = st.nfs_size;
	}
	nblocks = fsize / bs;
	if (nblocks == 0) {
		fprintf(stderr, "file %s smaller than one block\n", argv[2]);
		return 1;
	}
	int one = 1;
	if (setsockopt(nfs_get_fd(nfs), IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0)
		perror("setsockopt TCP_NODELAY");

	struct slot *slots = calloc(qd, sizeof(*slots));
	if (!slots)
		return 1;
	double cpu0 = cpu_s();
	uint64_t t0 = now_ns(), drain_end;
	deadline_ns = t0 + (uint64_t)(secs * 1e9);
	for (unsigned i = 0; i < qd && !failed; i++)
		submit(&slots[i]);
	drain_end = deadline_ns + 10000000000ull; /* give stragglers 10 s */
	while (inflight > 0 && !failed) {
		struct pollfd pfd = { .fd = nfs_get_fd(nfs), .events = (short)nfs_which_events(nfs) };
		int n = poll(&pfd, 1, 100);
		if (n < 0 && errno != EINTR) {
			perror("poll");
			return 1;
		}
		if (nfs_service(nfs, n > 0 ? pfd.revents : 0) < 0) {
			fprintf(stderr, "nfs_service: %s\n", nfs_get_error(nfs));
			return 1;
		}
		if (now_ns() > drain_end) {
			fprintf(stderr, "%" PRIu64 " reads still in flight 10 s after the end\n", inflight);
			return 1;
		}
	}
	double elapsed = (double)(now_ns() - t0) / 1e9, cpu = cpu_s() - cpu0;
	printf("ops=%" PRIu64 " secs=%.3f iops=%.0f mib_s=%.1f cpu_us_per_op=%.2f p50_us=%" PRIu64
	       " p99_us=%" PRIu64 " errors=%" PRIu64 "\n",
	       ops, elapsed, (double)ops / elapsed, (double)(ops * bs) / elapsed / 1048576.0,
	       ops ? cpu * 1e6 / (double)ops : 0.0, pct(0.50), pct(0.99), errors);
	nfs_close(nfs, fh);
	nfs_umount(nfs);
	nfs_destroy_context(nfs);
	nfs_destroy_url(url);
	free(slots);
	return failed || errors ? 1 : 0;
}
