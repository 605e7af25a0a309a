/*
 * engine_state: what an engine's connections did with NFS state (held opens,
 * locks, delegations, clients), counted by the engine (engine_ops.state) and
 * shown in the report. Apart from engine.h so that the report needs no more.
 */
#ifndef NFSLOAD_ENGINE_STATE_H
#define NFSLOAD_ENGINE_STATE_H

#include <stdint.h>

/*
 * What a run's connections did with state, summed over them (engine_ops.state),
 * for the report's "state" (nfsload(1)).
 */
struct engine_state_counts {
	uint64_t clients;		/* NFSv4 clients made (EXCHANGE_ID, CREATE_SESSION) */
	uint64_t held_opens;		/* held files open at the end of the last set-up */
	uint64_t delegations_returned;	/* granted though none was asked for: returned at once */
	uint64_t grace_waits;		/* requests sent again after NFS4ERR_GRACE (a restart) */
	uint64_t state_lost;		/* answers that lost state: BAD_STATEID, EXPIRED,
					 * ADMIN_REVOKED, STALE_STATEID ... */
	uint64_t opens_remade;		/* held opens made again (a lost connection, a restart) */
	uint64_t locks_remade;		/* granted locks made again the same way */
};

#endif
