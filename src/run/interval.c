/*
 * interval: the hand-over box of interval statistics (protocol in interval.h).
 */
#include <errno.h>

#include "interval.h"

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

void ival_box_ask(struct ival_box *b, unsigned seq)
{
	atomic_store(&b->req, seq);
}

bool ival_box_answered(struct ival_box *b, unsigned seq)
{
	return atomic_load(&b->ack) == seq;
}

void ival_box_take(struct ival_box *b, struct op_stats *out, struct op_stats *out_srv)
{
	pthread_mutex_lock(&b->mu);
	op_stats_add_all(out, b->snap);
	op_stats_reset_all(b->snap);
	if (out_srv)
		op_stats_add_n(out_srv, b->srv, b->nsrv);
	op_stats_reset_n(b->srv, b->nsrv);
	pthread_mutex_unlock(&b->mu);
}
