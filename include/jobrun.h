/*
 * jobrun: runs a job (--job FILE and/or --sweep): every run is checked
 * before the first one touches the server; the runs go in order, the files
 * stay between them, the job stops at the first run that does not end with
 * 0, and one summary follows. What any run created is removed at the end
 * (unless a run said --keep). Main thread only.
 */
#ifndef NFSLOAD_JOBRUN_H
#define NFSLOAD_JOBRUN_H

/* The job argv asks for; returns the exit status of its last run (2: bad usage). */
int jobrun(int argc, char **argv);

#endif
