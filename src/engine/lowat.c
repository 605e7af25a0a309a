/*
 * --max-load: a connection's SO_RCVLOWAT follows its requests in flight
 * (see lowat.h).
 */
#include "lowat.h"
#include "engine.h"
#include "workload.h"

static void tick_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct lowat_set *s = w->data;

	(void)loop;
	(void)revents;
	for (struct lowat *l = s->head; l; l = l->next) {
		if (l->bytes > 1 && !l->rx_seen && s->apply(l, 1) == 0)
			l->bytes = 1;
		l->rx_seen = false;
	}
}

void lowat_set_init(struct lowat_set *s, struct ev_loop *loop,
		    int (*apply)(struct lowat *l, int bytes))
{
	s->loop = loop;
	s->head = NULL;
	s->apply = apply;
	ev_init(&s->timer, tick_cb);
	s->timer.repeat = 0.01;
	s->timer.data = s;
}

void lowat_set_stop(struct lowat_set *s)
{
	ev_timer_stop(s->loop, &s->timer);
}

void lowat_init(struct lowat *l, const struct engine_params *cfg)
{
	*l = (struct lowat){ 0 };
	/* The least an RPC reply can be: mark, xid, REPLY, accepted, empty verifier, status. */
	l->reply_min = 28;
	if (wl_mode_read_pct(cfg->rw, cfg->rwmixread) == 100 && !cfg->meta && !cfg->small_files)
		l->reply_min += (uint32_t)cfg->bs;	/* every one a whole READ (errors: the tick) */
}

void lowat_watch(struct lowat_set *s, struct lowat *l)
{
	if (l->set)
		return;
	l->set = s;
	l->prev = NULL;
	l->next = s->head;
	if (s->head)
		s->head->prev = l;
	s->head = l;
	if (!ev_is_active(&s->timer))
		ev_timer_again(s->loop, &s->timer);
}

void lowat_unwatch(struct lowat *l)
{
	struct lowat_set *s = l->set;

	if (!s)
		return;
	if (l->prev)
		l->prev->next = l->next;
	else
		s->head = l->next;
	if (l->next)
		l->next->prev = l->prev;
	l->next = l->prev = NULL;
	l->set = NULL;
	if (!s->head)
		ev_timer_stop(s->loop, &s->timer);
}

void lowat_update(struct lowat *l, uint32_t inflight, uint32_t max_load)
{
	uint32_t k = inflight < max_load ? inflight : max_load;
	/* Every reply in flight is at least reply_min bytes: waiting for k of them cannot stall. */
	int want = k > 1 ? (int)(k * l->reply_min) : 1;

	if (l->set && want != l->bytes && l->set->apply(l, want) == 0)
		l->bytes = want;
}
