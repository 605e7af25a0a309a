/*
 * run_phases: the phases of one run on its workers, each timed and merged
 * into the report: the --mix trees, the layout, the measured phase (or the
 * small-file test's passes) and the --verify read-back.
 */
#include <inttypes.h>
#include <stdio.h>

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
		if (workdir_trees_make(a->wd[k], a->run.pattern, cfg->small_files > 0, a->err,
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
	rc = collect_one(a, OP_WRITE, &r->layout);
	/* Each failure is followed by one re-issue or none (an answer from the server, a
	 * connection that gave up): the difference is what was never written. */
	if (rc == 0 && r->layout.errors > r->layout_retried)
		fprintf(stderr, "nfsload: %" PRIu64 " layout writes failed and were not written again: "
			"the files may have holes\n", r->layout.errors - r->layout_retried);
	return rc;
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
