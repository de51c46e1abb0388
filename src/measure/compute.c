/* compute.c: the run's fastest GEMM per device and precision (compute.h), kept as offered. */
#include "measure/compute.h"

#include <stdio.h>
#include <string.h>

#define SLOTS 16

static struct {
    char device[8], precision[16];
    struct measure_gemm g;
} kept[SLOTS];
static int nkept;

static int slot_of(const char *device, const char *precision)
{
    for (int i = 0; i < nkept; i++)
        if (strcmp(kept[i].device, device) == 0 && strcmp(kept[i].precision, precision) == 0)
            return i;
    return -1;
}

int measure_gemm_offer(const char *device, const char *precision, const struct measure_gemm *g)
{
    int i = slot_of(device, precision);
    if (!(g->gflops > 0) || (i < 0 && nkept == SLOTS))
        return 0;
    if (i >= 0 && !(g->gflops > kept[i].g.gflops))
        return 0;
    if (i < 0) {
        i = nkept++;
        snprintf(kept[i].device, sizeof kept[i].device, "%s", device);
        snprintf(kept[i].precision, sizeof kept[i].precision, "%s", precision);
    }
    kept[i].g = *g;
    return 1;
}

int measure_gemm_best(const char *device, const char *precision, struct measure_gemm *out)
{
    int i = slot_of(device, precision);
    if (i < 0)
        return -1;
    *out = kept[i].g;
    return 0;
}

cJSON *measure_gemm_json(const struct measure_gemm *g)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "gflops", g->gflops);
    cJSON_AddNumberToObject(o, "m", g->m);
    cJSON_AddNumberToObject(o, "n", g->n);
    cJSON_AddNumberToObject(o, "k", g->k);
    cJSON_AddStringToObject(o, "routine", g->routine);
    cJSON_AddStringToObject(o, "family", g->family);
    return o;
}

void measure_gemm_clear(void) { nkept = 0; }
