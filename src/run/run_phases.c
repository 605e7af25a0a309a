/*
 * run_phases: the phases of one run on its workers, each timed and merged
 * into the report: the --mix trees, the layout, the measured phase (or the
 * small-file test's passes) and the --verify read-back.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "aggregate.h"
#include "cluster.h"
#include "control.h"
#include "run_int.h"
#include "status.h"
#include "units.h"

/* --mix and the small-file test: the trees are the layout of a --mix run. */
int run_make_trees(struct app *a)
{
	const struct config *cfg = a->cfg;
	uint64_t t0 = now_ns();

	if (a->ctl.live)
		fprintf(stderr, "nfsload: making %u trees of %u x %u files\n", cfg->connections,
			cfg->dirs, cfg->small_files ? 0 : cfg->files_per_dir);
	for (unsigned k = 0; k < a->nns; k++)
		if (workdir_trees_make(a->wd[k], a->run.small_data, cfg->small_files > 0, a->err,
				       sizeof(a->err)))
			return run_complain(EXIT_RUNTIME, "%s", a->err);
	a->rep.layout_ran = !cfg->small_files;
	a->rep.layout_ns = now_ns() - t0;
	a->rep.layout.ops = cfg->small_files ? 0 :
		(uint64_t)a->nns * cfg->connections * cfg->dirs * cfg->files_per_dir;
	a->rep.layout.bytes = a->rep.layout.ops * cfg->file_size;
	return 0;
}

/* A phase's reads or writes, merged from every worker, into one op_stats. */
static int collect_one(struct app *a, enum op_type type, struct op_stats *into)
{
	struct op_stats ops[OP_NTYPES];

	if (op_stats_init_all(ops, HIST_PRECISE_BITS, false))
		return run_complain(EXIT_RUNTIME, "out of memory");
	aggregate_ops(a->workers, a->nworkers, ops);
	op_stats_add(into, &ops[type]);
	op_stats_destroy_all(ops);
	return 0;
}

int run_layout(struct app *a)
{
	const struct config *cfg = a->cfg;
	struct report *r = &a->rep;
	char size[32];
	int rc;

	for (unsigned k = 0; k < a->nns; k++)
		for (uint32_t i = 0; i < a->fs[k].n && !cfg->skip_layout; i++)
			r->layout_ran |= a->fs[k].size[i] < cfg->size;
	if (!r->layout_ran)
		return 0;
	if (a->ctl.live)
		fprintf(stderr, "nfsload: laying out %u file%s of %s\n", cfg->nrfiles,
			cfg->nrfiles == 1 ? "" : "s", units_format_size(cfg->size, size, sizeof(size)));
	r->layout_ns = control_run_phase(&a->ctl, PHASE_LAYOUT);
	control_settle(&a->ctl);
	for (unsigned i = 0; i < a->nworkers; i++) {
		struct worker_figures f;

		worker_figures(a->workers[i], &f);
		r->layout_retried += f.rewrites;
	}
	/* --sparse: the blocks left out are holes inside the file, not past its end. */
	for (unsigned k = 0; cfg->sparse && k < a->nns && !control_cut_short(&a->ctl); k++)
		if (workdir_extend(a->wd[k], &a->fs[k], a->err, sizeof(a->err)))
			return run_complain(EXIT_RUNTIME, "%s", a->err);
	rc = collect_one(a, OP_WRITE, &r->layout);
	/* Each failure is followed by one re-issue or none (an answer from the server, a
	 * connection that gave up): the difference is what was never written. */
	if (rc == 0 && r->layout.errors > r->layout_retried)
		fprintf(stderr, "nfsload: %" PRIu64 " layout writes failed and were not written again: "
			"the files may have holes\n", r->layout.errors - r->layout_retried);
	return rc;
}

/* The point just measured: every op type's figures together, over ns. 0 or -ENOMEM. */
static int curve_point_of(const struct app *a, const struct op_stats *ops, uint64_t ns,
			  struct curve_point *p)
{
	const struct curve_target *t = &a->cfg->target;
	struct hist all;

	if (hist_init(&all, HIST_PRECISE_BITS))
		return -ENOMEM;
	*p = (struct curve_point){ .offered = a->run.rate, .duration_ns = ns };
	for (int k = 0; k < OP_NTYPES; k++) {
		/* From each operation's intended start: the open loop's own latency. */
		hist_add(&all, &ops[k].lat);
		p->ops += ops[k].ops;
		p->errors += ops[k].errors;
	}
	p->achieved = ns ? (double)p->ops * 1e9 / (double)ns : 0;
	p->p50_ns = hist_percentile(&all, 50);
	p->p99_ns = hist_percentile(&all, 99);
	p->target_ns = t->pct > 0 ? hist_percentile(&all, t->pct) : 0;
	hist_destroy(&all);
	return 0;
}

/* The report's figures become those of the point just measured (ops, ns, rate). */
static void curve_keep(struct app *a, const struct op_stats *ops, uint64_t ns,
		       struct rusage ru[2], int64_t *start_unix_ns)
{
	struct report *r = &a->rep;

	op_stats_reset_all(r->ops);
	op_stats_add_all(r->ops, ops);
	r->duration_ns = ns;
	r->rate = a->run.rate;
	ru[0] = a->ctl.ru_start;
	ru[1] = a->ctl.ru_end;
	*start_unix_ns = a->ctl.start_unix_ns;
	for (unsigned k = 0; r->servers && k < r->nservers; k++)
		op_stats_reset(&r->servers[k].st);
	a->servers_rc |= aggregate_servers(a->workers, a->nworkers, r);
}

/*
 * --load-curve: the measured phase again at each rate the curve asks for, on the same
 * connections and files. The report's figures are the best point's (the first's until
 * one is met), its CPU and start time too; a point cut short (a signal) is left out.
 */
static void run_curve(struct app *a)
{
	struct op_stats ops[OP_NTYPES];
	struct rusage ru[2];
	int64_t start_unix_ns = 0;
	bool kept = false;
	double rate;

	memset(ru, 0, sizeof(ru));
	curve_init(&a->curve, &a->cfg->curve, &a->cfg->target);
	a->rep.curve = &a->curve;
	if (op_stats_init_all(ops, HIST_PRECISE_BITS, true)) {
		a->servers_rc = -ENOMEM;
		return;
	}
	while ((rate = curve_next(&a->curve)) > 0 && !control_cut_short(&a->ctl)) {
		struct curve_point p;
		uint64_t ns;
		int i;

		a->run.rate = rate;
		if (a->ctl.live)
			fprintf(stderr, "nfsload: load curve: %.0f ops/s offered\n", rate);
		ns = control_run_phase(&a->ctl, PHASE_MAIN);
		control_settle(&a->ctl);
		if (control_cut_short(&a->ctl))
			break;
		op_stats_reset_all(ops);
		aggregate_ops(a->workers, a->nworkers, ops);
		if (curve_point_of(a, ops, ns, &p)) {
			a->servers_rc = -ENOMEM;
			break;
		}
		i = curve_add(&a->curve, &p);
		if (i >= 0 && (i == a->curve.best || !kept)) {
			curve_keep(a, ops, ns, ru, &start_unix_ns);
			kept = true;
		}
	}
	if (kept) {
		a->ctl.ru_start = ru[0];
		a->ctl.ru_end = ru[1];
		a->ctl.start_unix_ns = start_unix_ns;
	}
	op_stats_destroy_all(ops);
}

/* The measured phase, or the small-file test's four passes, each timed on its own. */
void run_measure(struct app *a)
{
	static const enum op_type passes[] = { OP_CREATE, OP_READ, OP_GETATTR, OP_REMOVE };
	struct report *r = &a->rep;

	/* Under mpirun, every rank's measured phase starts together (cluster.h). */
	if (!cluster_start(true)) {
		a->start_refused = true;
		return;
	}
	if (a->cfg->curve.start > 0) {
		run_curve(a);
		return;
	}
	if (!a->cfg->small_files) {
		if (control_cut_short(&a->ctl))
			return;
		r->duration_ns = control_run_phase(&a->ctl, PHASE_MAIN);
		control_settle(&a->ctl);
		aggregate_ops(a->workers, a->nworkers, r->ops);
		a->servers_rc = aggregate_servers(a->workers, a->nworkers, r);
		return;
	}
	for (size_t p = 0; p < sizeof(passes) / sizeof(passes[0]) && !control_cut_short(&a->ctl);
	     p++) {
		a->run.pass_op = passes[p];
		r->pass_ns[passes[p]] = control_run_phase(&a->ctl, PHASE_MAIN);
		control_settle(&a->ctl);
		r->duration_ns += r->pass_ns[passes[p]];
		aggregate_ops(a->workers, a->nworkers, r->ops);
		a->servers_rc |= aggregate_servers(a->workers, a->nworkers, r);
	}
}

/* Whether the verify pass follows the measured phase (see run_verify_pass). */
bool run_verify_due(struct app *a)
{
	const struct config *cfg = a->cfg;

	return cfg->verify && !cfg->verify_only && wl_mode_read_pct(cfg->rw, cfg->rwmixread) < 100 &&
	       !control_cut_short(&a->ctl) && control_all_done(&a->ctl) &&
	       !atomic_load(&a->run.verify_failed);
}

/* --verify after a phase that wrote: read every block back, unless the run is ending badly. */
int run_verify_pass(struct app *a)
{
	uint64_t measure_start = a->run.measure_start_ns;

	if (!run_verify_due(a))
		return 0;
	if (a->ctl.live)
		fprintf(stderr, "nfsload: reading every block back to check it\n");
	a->rep.verify_pass_ns = control_run_phase(&a->ctl, PHASE_VERIFY);
	control_settle(&a->ctl);
	a->run.measure_start_ns = measure_start;	/* outage times stay the main phase's */
	a->rep.verify_pass_ran = true;
	return collect_one(a, OP_READ, &a->rep.verify_pass);
}
