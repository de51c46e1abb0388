/* fuzz_guard.h: Lua run in a fuzzed state before the input, for what `sparkreport run` ends by
 * exiting the process, which a fuzzer cannot use (the watchdog, the wall-clock deadline): a
 * string pattern that backtracks for hours (calls whose cost bound, subject length ^
 * (quantifiers + 1), passes 1e8 are refused) and a __gc finalizer, which Lua runs without hooks
 * (metatables with __gc are refused). Both refusals are Lua errors like any other. Also the
 * property every target checks of an error: it is one line. */
#ifndef SR_FUZZ_GUARD_H
#define SR_FUZZ_GUARD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void fuzz_one_line(const char *err)
{
    if (strchr(err, '\n')) {
        fprintf(stderr, "an error message of more than one line: %s\n", err);
        abort();
    }
}

static const char fuzz_guard[] =
    "local function guard(f)\n"
    "  return function(s, p, ...)\n"
    "    if type(s) == 'string' and type(p) == 'string' and #s > 16 then\n"
    "      local _, q = p:gsub('%%.', ''):gsub('[%*%+%-%?]', '')\n"
    "      if (q + 1) * math.log(#s, 10) > 8 then error('fuzz harness: pattern too costly to run', 2) end\n"
    "    end\n"
    "    return f(s, p, ...)\n"
    "  end\n"
    "end\n"
    "for _, n in ipairs { 'find', 'match', 'gmatch', 'gsub' } do string[n] = guard(string[n]) end\n"
    "local setmt = setmetatable\n"
    "setmetatable = function(t, mt)\n"
    "  if type(mt) == 'table' and rawget(mt, '__gc') ~= nil then error('fuzz harness: no finalizers', 2) end\n"
    "  return setmt(t, mt)\n"
    "end\n";

#endif
