/* test_param.c: parameter validation: defaults, normalisation (sizes, lists, keywords) and
 * the exact message for each kind of mistake a scenario can make. */
#include <stdlib.h>

#include "check.h"
#include "util/param.h"

static const struct param ps[] = {
    { "kernels", PARAM_ENUM, PARAM_LIST, "all", "copy|triad", "all", 0, 0, "kernels" },
    { "max_size", PARAM_SIZE, 0, "auto", NULL, "auto", 1024, 1099511627776.0, "largest" },
    { "reps", PARAM_INT, 0, NULL, NULL, "5", 2, 1000, "repetitions" },
    { "cv", PARAM_NUM, 0, NULL, NULL, "0.025", 0.001, 0.5, "target" },
    { "touch", PARAM_BOOL, 0, NULL, NULL, "true", 0, 0, "first touch" },
    { "threads", PARAM_INT, PARAM_LIST, "sweep", NULL, "sweep", 1, 64, "threads" },
    { NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

/* Checks the JSON text `given`; returns the error message, or "" when it passed. */
static const char *check_text(const char *given, cJSON **out)
{
    static char err[512];
    cJSON *g = cJSON_Parse(given);
    err[0] = '\0';
    cJSON *r = param_check("bw", ps, g, err, sizeof err);
    cJSON_Delete(g);
    if (out)
        *out = r;
    else
        cJSON_Delete(r);
    return err;
}

int main(void)
{
    cJSON *r;
    EXPECT_STR(check_text("{}", &r), "");
    EXPECT_STR(param_str(r, "kernels"), "all");
    EXPECT_STR(param_str(r, "max_size"), "auto");
    EXPECT_NEAR(param_num(r, "reps"), 5, 0);
    EXPECT_NEAR(param_num(r, "cv"), 0.025, 0);
    EXPECT(param_bool(r, "touch"));
    cJSON_Delete(r);

    EXPECT_STR(check_text("{\"kernels\": \"triad\", \"max_size\": \"64KiB\", \"threads\": [1, 2]}", &r), "");
    EXPECT(cJSON_IsArray(param_get(r, "kernels")));
    EXPECT_STR(cJSON_GetArrayItem(param_get(r, "kernels"), 0)->valuestring, "triad");
    EXPECT_NEAR(param_num(r, "max_size"), 65536, 0);
    EXPECT_NEAR(cJSON_GetArrayItem(param_get(r, "threads"), 1)->valuedouble, 2, 0);
    cJSON_Delete(r);

    EXPECT_STR(check_text("{\"kernal\": 1}", NULL),
               "bw: unknown parameter 'kernal' (valid: cv, kernels, max_size, reps, threads, touch)");
    EXPECT_STR(check_text("{\"kernels\": \"triade\"}", NULL),
               "bw: parameter 'kernels' has unknown value 'triade' (valid: all, copy, triad)");
    EXPECT_STR(check_text("{\"kernels\": [\"copy\", 3]}", NULL),
               "bw: parameter 'kernels' must be one of copy, triad or all, got 3");
    EXPECT_STR(check_text("{\"kernels\": []}", NULL), "bw: parameter 'kernels' must list 1 to 256 values, got 0");
    EXPECT_STR(check_text("{\"reps\": \"five\"}", NULL), "bw: parameter 'reps' must be an integer, got \"five\"");
    EXPECT_STR(check_text("{\"reps\": 2.5}", NULL), "bw: parameter 'reps' must be an integer, got 2.5");
    EXPECT_STR(check_text("{\"reps\": 0}", NULL), "bw: parameter 'reps' = 0 is out of range (2 .. 1000)");
    EXPECT_STR(check_text("{\"max_size\": -1}", NULL),
               "bw: parameter 'max_size' must be a size such as 64KiB or 1GiB, got -1");
    EXPECT_STR(check_text("{\"max_size\": \"-1K\"}", NULL),
               "bw: parameter 'max_size' must be a size such as 64KiB or 1GiB or auto, got \"-1K\"");
    EXPECT_STR(check_text("{\"max_size\": \"2PiB\"}", NULL),
               "bw: parameter 'max_size' must be a size such as 64KiB or 1GiB or auto, got \"2PiB\"");
    EXPECT_STR(check_text("{\"max_size\": \"4TiB\"}", NULL),
               "bw: parameter 'max_size' = 4TiB is out of range (1 KiB .. 1 TiB)");
    EXPECT_STR(check_text("{\"max_size\": 1152921504606846976}", NULL),
               "bw: parameter 'max_size' = 1024 PiB is out of range (1 KiB .. 1 TiB)");
    EXPECT_STR(check_text("{\"touch\": \"yes\"}", NULL), "bw: parameter 'touch' must be true or false, got \"yes\"");
    EXPECT_STR(check_text("{\"cv\": {}}", NULL), "bw: parameter 'cv' must be a number, got a table");
    EXPECT_STR(check_text("[1]", NULL), "bw: parameters must be given as a table of name = value");

    char err[256] = "";
    cJSON *v = param_parse_text("bw", param_find(ps, "threads"), "1,2,4", err, sizeof err);
    EXPECT(v && cJSON_GetArraySize(v) == 3);
    cJSON_Delete(v);
    v = param_parse_text("bw", param_find(ps, "touch"), "false", err, sizeof err);
    EXPECT(v && cJSON_IsFalse(v));
    cJSON_Delete(v);
    v = param_parse_text("bw", param_find(ps, "reps"), "abc", err, sizeof err);
    EXPECT(!v);
    EXPECT_STR(err, "bw: parameter 'reps' must be an integer, got \"abc\"");
    return CHECK_DONE();
}
