/* timing.h: the monotonic clock every CPU measurement uses, and its granularity (STREAM's
 * checktick), so that no timed sample is shorter than a safe multiple of a tick. */
#ifndef SR_TIMING_H
#define SR_TIMING_H

double timing_now(void);          /* seconds, CLOCK_MONOTONIC */
double timing_tick(void);         /* smallest observed non-zero step of timing_now, seconds */
double timing_wall(void);         /* seconds since the epoch, CLOCK_REALTIME */

#endif
