/* context.h: what a run was measured on (context.c), the results document's context block. */
#ifndef SR_MEASURE_CONTEXT_H
#define SR_MEASURE_CONTEXT_H

#include <cjson/cJSON.h>

/* {host, tool{name, version, git}, cpu, memory{total_bytes, available_bytes}, os, build, cuda} */
cJSON *measure_context(void);

#endif
