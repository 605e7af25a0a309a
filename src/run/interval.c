/*
 * interval: the hand-over of interval statistics (protocol in interval.h).
 */
#include <errno.h>

#include "interval.h"
#include "worker.h"

int ival_box_init(struct ival_box *b, unsigned nsrv)
{
	pthread_mutex_init(&b->mu, NULL);
	atomic_init(&b->req, 0);
	atomic_init(&b->ack, 0);
	b->nsrv = nsrv;
	b->srv = op_stats_new_n(nsrv, HIST_PRECISE_BITS);
	if ((nsrv && !b->srv) || op_stats_init_all(b->snap, HIST_PRECISE_BITS, false)) {
		op_stats_free_n(b->srv, nsrv);
		b->srv = NULL;
		return -ENOMEM;
	}
	return 0;
}

void ival_box_destroy(struct ival_box *b)
{
	op_stats_destroy_all(b->snap);
	op_stats_free_n(b->srv, b->nsrv);
	b->srv = NULL;
	pthread_mutex_destroy(&b->mu);
}

void ival_box_reset(struct ival_box *b)
{
	pthread_mutex_lock(&b->mu);
	op_stats_reset_all(b->snap);
	op_stats_reset_n(b->srv, b->nsrv);
	pthread_mutex_unlock(&b->mu);
}

void ival_box_hand_over(struct ival_box *b, struct op_stats *ival, struct op_stats *srv)
{
	pthread_mutex_lock(&b->mu);
	op_stats_add_all(b->snap, ival);
	if (srv)
		op_stats_add_n(b->srv, srv, b->nsrv);
	pthread_mutex_unlock(&b->mu);
	op_stats_reset_all(ival);
	if (srv)
		op_stats_reset_n(srv, b->nsrv);
	atomic_store(&b->ack, atomic_load(&b->req));
}

bool ival_request(struct ival_swap *s, struct worker **w, unsigned n, uint64_t t)
{
	if (s->pending)
		return false;
	s->seq++;
	s->pending = true;
	s->prev_ns = s->ns;
	s->ns = t;
	for (unsigned i = 0; i < n; i++) {
		atomic_store(&worker_ival_box(w[i])->req, s->seq);
		worker_command(w[i], WORKER_CMD_SWAP);
	}
	return true;
}

bool ival_answered(const struct ival_swap *s, struct worker *const *w, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (atomic_load(&worker_ival_box(w[i])->ack) != s->seq)
			return false;
	return true;
}

void ival_collect(struct worker **w, unsigned n, struct op_stats *out, struct op_stats *out_srv)
{
	for (unsigned i = 0; i < n; i++) {
		struct ival_box *b = worker_ival_box(w[i]);

		pthread_mutex_lock(&b->mu);
		op_stats_add_all(out, b->snap);
		op_stats_reset_all(b->snap);
		if (out_srv)
			op_stats_add_n(out_srv, b->srv, b->nsrv);
		op_stats_reset_n(b->srv, b->nsrv);
		pthread_mutex_unlock(&b->mu);
	}
}
