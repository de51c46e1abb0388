/* experiment.c: the rows of the experiment registry and the scenario's own parameters. */
#include "exp/experiment.h"

#include <stdio.h>
#include <string.h>

#include "exp/bandwidth.h"

const struct experiment experiments[] = {
    { "bandwidth", "memory bandwidth: STREAM kernels over a working-set sweep and thread counts",
      bw_params, 1.0, bw_precheck, bw_run },
    { NULL, NULL, NULL, 0, NULL, NULL },
};

const struct param scenario_params[] = {
    { "title", PARAM_STR, 0, NULL, NULL, "Memory bandwidth and training time", 0, 0,
      "title of the report" },
    { "budget_s", PARAM_NUM, 0, NULL, NULL, "300", 5, 86400,
      "seconds for the whole run, measurements included" },
    { "template", PARAM_ENUM, 0, NULL, "procurement", "procurement", 0, 0,
      "report template (templates/NAME.lua): which sections, in which order" },
    { "compare", PARAM_STR, PARAM_LIST, NULL, NULL, "dgx-spark,h100-sxm,h200-sxm,b200", 0, 0,
      "catalog systems whose spec figures the report shows beside this machine's" },
    { NULL, 0, 0, NULL, NULL, NULL, 0, 0, NULL },
};

const struct experiment *experiment_find(const char *name)
{
    for (const struct experiment *e = experiments; e->name; e++)
        if (strcmp(e->name, name) == 0)
            return e;
    return NULL;
}

char *experiment_names(char *buf, size_t n)
{
    size_t o = 0;
    buf[0] = '\0';
    for (const struct experiment *e = experiments; e->name && o < n; e++)
        o += (size_t)snprintf(buf + o, n - o, "%s%s", o ? ", " : "", e->name);
    return buf;
}
