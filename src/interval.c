/*
 * interval: the hand-over of interval statistics (protocol in interval.h).
 */
#include "interval.h"
#include "worker.h"

int ival_box_init(struct ival_box *b)
{
	pthread_mutex_init(&b->mu, NULL);
	atomic_init(&b->req, 0);
	atomic_init(&b->ack, 0);
	return op_stats_init_all(b->snap, HIST_PRECISE_BITS, false);
}

void ival_box_destroy(struct ival_box *b)
{
	op_stats_destroy_all(b->snap);
	pthread_mutex_destroy(&b->mu);
}

void ival_box_reset(struct ival_box *b)
{
	pthread_mutex_lock(&b->mu);
	op_stats_reset_all(b->snap);
	pthread_mutex_unlock(&b->mu);
}

void ival_box_hand_over(struct ival_box *b, struct op_stats *ival)
{
	pthread_mutex_lock(&b->mu);
	op_stats_add_all(b->snap, ival);
	pthread_mutex_unlock(&b->mu);
	op_stats_reset_all(ival);
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

void ival_collect(struct worker **w, unsigned n, struct op_stats *out)
{
	for (unsigned i = 0; i < n; i++) {
		struct ival_box *b = worker_ival_box(w[i]);

		pthread_mutex_lock(&b->mu);
		op_stats_add_all(out, b->snap);
		op_stats_reset_all(b->snap);
		pthread_mutex_unlock(&b->mu);
	}
}
