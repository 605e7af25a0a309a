/* exit_status: what nfsload's process returns; 128 + signal when stopped by one. */
#ifndef NFSLOAD_EXIT_STATUS_H
#define NFSLOAD_EXIT_STATUS_H

enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2, EXIT_VERIFY = 3 };

#endif
