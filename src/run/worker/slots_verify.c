/*
 * slots_verify: --verify on a completion. A READ's blocks are checked
 * against what this run wrote; a WRITE's blocks are marked written. (The
 * data of a write is filled where it is issued, slots_issue.c.)
 */
#include "worker_int.h"

/* The blocks this run wrote where wc's requests go (its server's, with a namespace each). */
static struct verify_map *written_of(const struct wconn *wc)
{
	const struct run *run = wc->w->run;

	return run->ns_each ? run->written_ns[wc->srv] : run->written;
}

static bool all_zero(const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * --verify: checks every block of a READ's (or READ_PLUS's) data. A block this run wrote
 * must hold this run's generation; any other may hold any (an earlier run's).
 * Returns status, or -CONN_ERR_VERIFY when a block is bad.
 */
static int check_read(struct wconn *wc, const struct slot *s, const uint8_t *data, int status)
{
	struct worker *w = wc->w;
	struct run *run = w->run;
	struct verify_counts *v = &w->verify;
	uint32_t bs = run->verify->block;
	uint64_t bad = 0;

	for (uint64_t o = 0; o + bs <= s->len; o += bs) {
		struct verify_mismatch m;
		uint32_t want = verify_map_test(written_of(wc), s->file, s->offset + o) ?
			run->verify->generation : 0;

		v->blocks++;
		/* --sparse: a block the layout left out is a hole, read as zeros. */
		if (!want && run->cfg->sparse && all_zero(data + o, bs))
			continue;
		if (!verify_check(run->verify, s->file, s->offset + o, data + o, bs, want, &m))
			continue;
		bad++;
		v->bad++;
		v->by_kind[m.kind]++;
		if (v->nkept < VERIFY_KEPT)
			v->kept[v->nkept++] = m;
	}
	if (!bad)
		return status;
	if (!run->cfg->verify_continue) {
		atomic_store(&run->verify_failed, true);
		ev_async_send(run->main_loop, run->wake);
	}
	return -CONN_ERR_VERIFY;
}

int slots_verify(struct wconn *wc, const struct slot *s, const uint8_t *data, int status)
{
	struct worker *w = wc->w;

	if (status >= 0 && w->checking && (s->type == OP_READ || s->type == OP_READ_PLUS))
		status = check_read(wc, s, data, status);
	if (status >= 0 && s->type == OP_WRITE && w->run->written)
		verify_map_set(written_of(wc), s->file, s->offset, s->len);
	return status;
}
