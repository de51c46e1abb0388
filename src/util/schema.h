/* schema.h: the name and version of the results document, defined once: results/load.c checks
 * files against them and the Lua runner writes them (bench.schema, bench.schema_version).
 * What each version added, and how compare reads older ones, is lua/sparkreport/schema.lua's
 * M.versions. */
#ifndef SR_UTIL_SCHEMA_H
#define SR_UTIL_SCHEMA_H

#define SR_SCHEMA "sparkreport/results"
#define SR_SCHEMA_VERSION 4

#endif
