/* trained.c: the run's largest trained model (trained.h): one copy of its weights and settings,
 * replaced only by a larger one. */
#include "measure/trained.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

static struct {
    int set;
    struct measure_trained m;           /* its strings and weights point into the fields below */
    char shape_name[32], precision[16], device[16];
    float *weights;
} kept;

static int better(const struct measure_trained *m)
{
    if (!kept.set || m->params > kept.m.params)
        return 1;
    return m->params == kept.m.params && strcmp(m->precision, "fp32") == 0 && strcmp(kept.m.precision, "fp32") != 0;
}

int measure_trained_offer(const struct measure_trained *m)
{
    if (!m->weights || m->steps_done <= 0 || !better(m))
        return 0;
    size_t n = (size_t)m->params;
    float *w = xmalloc(n * sizeof *w);
    memcpy(w, m->weights, n * sizeof *w);
    measure_trained_clear();
    snprintf(kept.shape_name, sizeof kept.shape_name, "%s", m->shape_name);
    snprintf(kept.precision, sizeof kept.precision, "%s", m->precision);
    snprintf(kept.device, sizeof kept.device, "%s", m->device);
    kept.weights = w;
    kept.m = *m;
    kept.m.shape_name = kept.shape_name;
    kept.m.precision = kept.precision;
    kept.m.device = kept.device;
    kept.m.weights = w;
    kept.set = 1;
    return 1;
}

int measure_trained(struct measure_trained *out)
{
    if (!kept.set)
        return -1;
    *out = kept.m;
    return 0;
}

void measure_trained_clear(void)
{
    free(kept.weights);
    kept.weights = NULL;
    kept.set = 0;
}
