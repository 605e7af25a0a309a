/* The version string shared by --version and the reports. */
#ifndef NFSLOAD_VERSION_H
#define NFSLOAD_VERSION_H

#define NFSLOAD_VERSION "0.1.0"

#endif
