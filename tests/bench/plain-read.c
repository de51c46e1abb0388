/* plain-read.c: the reference for sparkreport's read kernel in stream-compare.sh: the plainest
 * fast read of one FP64 array this CPU runs. Each OpenMP thread sums its own contiguous chunk
 * with eight accumulators of the widest vector the compiler targets (built with -O3
 * -march=native -fopenmp: 64 bytes with AVX-512, 32 with AVX, else 16), no blocks, no
 * dispatch. The array is 2 MiB aligned and first-touched by the threads that read it. Prints
 * the best and median rate of REPS timed passes after one warm-up, and checks each sum.
 *   OMP_NUM_THREADS=T plain-read N [REPS]        N: elements (STREAM's array size) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#if defined(__AVX512F__)
#define VB 64
#elif defined(__AVX__)
#define VB 32
#else
#define VB 16
#endif
typedef double vec __attribute__((vector_size(VB)));
enum { V = VB / sizeof(double), STEP = 8 * V };

/* This thread's chunk of n elements, in whole steps of eight vectors; the last thread also
 * takes the remainder. */
static void chunk(size_t n, size_t *lo, size_t *hi)
{
    size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
    size_t steps = n / STEP, q = steps / nt, r = steps % nt;
    *lo = (t < r ? t * (q + 1) : r * (q + 1) + (t - r) * q) * STEP;
    *hi = t + 1 == nt ? n : *lo + (q + (t < r)) * STEP;
}

static double sum_pass(const double *a, size_t n)
{
    double total = 0;
#pragma omp parallel reduction(+ : total)
    {
        size_t lo, hi, i;
        chunk(n, &lo, &hi);
        vec s0 = { 0 }, s1 = { 0 }, s2 = { 0 }, s3 = { 0 }, s4 = { 0 }, s5 = { 0 }, s6 = { 0 }, s7 = { 0 };
        for (i = lo; i + STEP <= hi; i += STEP) {
            const vec *p = (const vec *)(a + i);
            s0 += p[0]; s1 += p[1]; s2 += p[2]; s3 += p[3];
            s4 += p[4]; s5 += p[5]; s6 += p[6]; s7 += p[7];
        }
        vec s = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7));
        double t = 0;
        for (int j = 0; j < V; j++)
            t += s[j];
        for (; i < hi; i++)
            t += a[i];
        total += t;
    }
    return total;
}

static int cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 0;
    int reps = argc > 2 ? atoi(argv[2]) : 9;
    double *a = NULL, t[1000];
    if (n < (size_t)STEP || reps < 1 || reps > 1000) {
        fprintf(stderr, "usage: plain-read N [REPS]  (N >= %d, 1 <= REPS <= 1000)\n", STEP);
        return 2;
    }
    if (posix_memalign((void **)&a, (size_t)2 << 20, n * sizeof *a) != 0) {
        fprintf(stderr, "plain-read: cannot allocate %zu bytes\n", n * sizeof *a);
        return 1;
    }
    madvise(a, n * sizeof *a, MADV_HUGEPAGE);
#pragma omp parallel
    {
        size_t lo, hi;
        chunk(n, &lo, &hi);
        for (size_t i = lo; i < hi; i++)
            a[i] = 1.0 + (double)(i % 8) / 8.0;     /* exact sums, as sparkreport's values */
    }
    double want = (double)(n / 8) * 11.5 + (double)(n % 8) + (double)(n % 8) * ((double)(n % 8) - 1) / 16.0;
    for (int r = -1; r < reps; r++) {
        double t0 = omp_get_wtime(), s = sum_pass(a, n), dt = omp_get_wtime() - t0;
        if (s != want) {
            fprintf(stderr, "plain-read: sum %.17g, expected %.17g\n", s, want);
            return 1;
        }
        if (r >= 0)
            t[r] = dt;
    }
    qsort(t, (size_t)reps, sizeof t[0], cmp);
    double bytes = (double)n * sizeof *a;
    printf("plain-read: %zu elements, %d threads, %d passes: best %.3f median %.3f GB/s\n", n,
           omp_get_max_threads(), reps, bytes / t[0] / 1e9, bytes / t[reps / 2] / 1e9);
    free(a);
    return 0;
}
