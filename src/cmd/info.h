/* info.h: the `info` command (info.c). */
#ifndef SR_CMD_INFO_H
#define SR_CMD_INFO_H

/* `sparkreport info [--json]`: the machine as a run records it, on stdout; SR_EXIT_USAGE when a
 * variable the OpenMP or BLAS libraries read is not valid (the message names it). */
int info_command(int as_json);

#endif
