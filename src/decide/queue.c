/* queue.c: the first-come-first-served simulation of a team's jobs on a pool of machines: Poisson
 * arrivals per class from one seeded generator, each job started on the machines that free first
 * once every earlier job has started, and the statistics of wait and time to result. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decide/queue.h"

uint64_t queue_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double queue_uniform(uint64_t *state)
{
    return ((double)(queue_rand(state) >> 11) + 0.5) / 9007199254740992.0;     /* (k + 1/2) / 2^53 */
}

double queue_load(const struct queue_class *c, int n, int units)
{
    double l = 0;
    for (int i = 0; i < n; i++)
        l += c[i].per_hour * c[i].run_h * c[i].units;
    return units > 0 ? l / units : INFINITY;
}

struct job {
    double t;                   /* arrival, hours */
    int cls;
};

/* The k-th smallest of v[0 .. n) (0-based), v reordered: Hoare's selection, expected linear. */
static double select_kth(double *v, int n, int k)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        int i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

/* The q-quantile of n values (linear between order statistics), v reordered. */
static double quantile(double *v, int n, double q)
{
    if (n == 0)
        return NAN;
    double pos = q * (n - 1);
    int i = (int)pos;
    double a = select_kth(v, n, i);
    if (i + 1 >= n || pos == i)
        return a;
    double b = v[i + 1];                /* after selecting i, the rest above it is unordered: the least of it */
    for (int k = i + 2; k < n; k++)
        b = fmin(b, v[k]);
    return a + (pos - i) * (b - a);
}

/* Mean wait, its batch-means standard error (20 batches in arrival order), and the quantiles of
 * result (wait + run) over n jobs. */
static void summarise(const double *wait, double *result, int n, struct queue_stats *s)
{
    enum { BATCHES = 20 };
    double sum = 0, b[BATCHES] = { 0 };
    memset(s, 0, sizeof *s);
    s->n = n;
    if (n == 0) {
        s->wait_mean_h = s->wait_se_h = s->result_p50_h = s->result_p95_h = NAN;
        return;
    }
    for (int i = 0; i < n; i++) {
        sum += wait[i];
        b[(long)i * BATCHES / n] += wait[i];
    }
    s->wait_mean_h = sum / n;
    if (n >= 2 * BATCHES) {
        double m = 0, ss = 0;
        for (int k = 0; k < BATCHES; k++) {
            long lo = (long)k * n / BATCHES, hi = (long)(k + 1) * n / BATCHES;
            b[k] /= (double)(hi - lo);
            m += b[k] / BATCHES;
        }
        for (int k = 0; k < BATCHES; k++)
            ss += (b[k] - m) * (b[k] - m);
        s->wait_se_h = sqrt(ss / (BATCHES - 1) / BATCHES);
    } else
        s->wait_se_h = NAN;
    s->result_p50_h = quantile(result, n, 0.50);
    s->result_p95_h = quantile(result, n, 0.95);
}

/* Arrivals of every class over [0, hours), in time order; *njobs their count. The classes' Poisson
 * streams merged are one stream at their total rate whose every arrival is of class i with
 * probability per_hour_i / total: drawn that way they come in order. */
static struct job *arrivals(const struct queue_class *c, int n, double hours, uint64_t seed, long *njobs)
{
    long cap = 1024, k = 0;
    struct job *j = malloc((size_t)cap * sizeof *j);
    uint64_t state = seed;
    double total = 0;
    for (int i = 0; i < n; i++)
        total += c[i].per_hour;
    for (double t = -log(queue_uniform(&state)) / total; j && t < hours; t += -log(queue_uniform(&state)) / total) {
        double u = queue_uniform(&state) * total;
        int i = 0;
        while (i < n - 1 && u >= c[i].per_hour)
            u -= c[i++].per_hour;
        if (k == cap) {
            struct job *more = realloc(j, (size_t)(cap *= 2) * sizeof *j);
            if (!more) {
                free(j);
                return NULL;
            }
            j = more;
        }
        j[k++] = (struct job){ t, i };
    }
    *njobs = k;
    return j;
}

/* free_at[0 .. units) ascending: the u machines that free first are taken until `end`. */
static void occupy(double *free_at, int units, int u, double end)
{
    int rest = units - u, k = 0;
    while (k < rest && free_at[u + k] < end)
        k++;
    memmove(free_at, free_at + u, (size_t)k * sizeof *free_at);
    for (int i = 0; i < u; i++)
        free_at[k + i] = end;
}

int queue_simulate(const struct queue_class *c, int n, int units, double hours, double warmup_h, uint64_t seed,
                   struct queue_result *out)
{
    memset(out, 0, sizeof *out);
    out->load = queue_load(c, n, units);
    out->keeps_up = n > 0 && n <= QUEUE_MAX_CLASSES && units >= 1 && out->load < 1;
    for (int i = 0; i < n && out->keeps_up; i++)
        out->keeps_up = c[i].units >= 0 && c[i].units <= units && c[i].per_hour > 0 && c[i].run_h > 0;
    if (!out->keeps_up)
        return 0;
    long m = 0;
    struct job *j = arrivals(c, n, hours, seed, &m);
    double *free_at = calloc((size_t)units, sizeof *free_at);
    double *wait = malloc((size_t)(m + 1) * 2 * sizeof *wait), *result = wait ? wait + m + 1 : NULL;
    int *cls = malloc((size_t)(m + 1) * sizeof *cls);
    if (!j || !free_at || !wait || !cls) {
        free(j), free(free_at), free(wait), free(cls);
        return -1;
    }
    double last = 0, busy = 0;
    int counted = 0;
    for (long i = 0; i < m; i++) {
        const struct queue_class *k = &c[j[i].cls];
        double start = j[i].t;
        if (k->units > 0) {
            start = fmax(fmax(start, last), free_at[k->units - 1]);
            occupy(free_at, units, k->units, start + k->run_h);
            last = start;
            busy += k->units * fmax(0, fmin(start + k->run_h, hours) - fmin(start, hours));
        }
        if (j[i].t >= warmup_h) {
            wait[counted] = start - j[i].t;
            result[counted] = wait[counted] + k->run_h;
            cls[counted++] = j[i].cls;
        }
    }
    out->busy = busy / (units * hours);
    double *w2 = malloc((size_t)(counted + 1) * 2 * sizeof *w2);
    if (!w2) {
        free(j), free(free_at), free(wait), free(cls);
        return -1;
    }
    for (int k = 0; k < n; k++) {
        int nk = 0;
        for (int i = 0; i < counted; i++)
            if (cls[i] == k) {
                w2[nk] = wait[i];
                w2[counted + 1 + nk++] = result[i];
            }
        summarise(w2, w2 + counted + 1, nk, &out->cls[k]);
    }
    summarise(wait, result, counted, &out->all);
    free(w2), free(j), free(free_at), free(wait), free(cls);
    return 0;
}
