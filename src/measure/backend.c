/* backend.c: the one table of backends, {family, device, ops}, and the question asked of it
 * (backend.h). The CUDA rows exist only in builds with CUDA; whether a device is there is
 * cuda_probe()'s answer. The ops types stay incomplete here: measure does not include the
 * experiment families it serves (layers point down), it only hands out their addresses. */
#include "measure/backend.h"

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "cuda/cuda.h"
#include "cuda/cuda_words.h"

struct bw_ops;
struct bw_xfer_ops;
struct prec_ops;
struct train_ops;
struct compress_ops;
struct coll_dev_ops;
struct measure_dram_ops;
extern const struct bw_ops bw_cpu_ops, bw_cuda_ops;
extern const struct bw_xfer_ops bw_cuda_xfer;
extern const struct prec_ops prec_cpu_ops, prec_gpu_ops;
extern const struct train_ops train_cpu_ops, train_cuda_ops;
extern const struct compress_ops compress_cpu_ops, compress_cuda_ops;
extern const struct coll_dev_ops coll_nccl_ops;
extern const struct measure_dram_ops bw_dram_ops;

#ifdef HAVE_CUDA
#define CUDA_ROW(ops) (&(ops))
#else
#define CUDA_ROW(ops) NULL          /* not built: cuda_probe() says so before any row is read */
#endif
#ifdef HAVE_NCCL
#define NCCL_ROW(ops) (&(ops))
#else
#define NCCL_ROW(ops) NULL          /* not built: absent[] says why */
#endif

static const struct row {
    const char *family, *device;
    const void *ops;
} rows[] = {
    { "bandwidth", "cpu", &bw_cpu_ops },
    { "bandwidth", "gpu", CUDA_ROW(bw_cuda_ops) },
    { "bandwidth-transfers", "gpu", CUDA_ROW(bw_cuda_xfer) },  /* host<->device copies: GPU only */
    { "dram", "cpu", &bw_dram_ops },        /* the DRAM figure before the bandwidth experiment ran */
    { "precision", "cpu", &prec_cpu_ops },
    { "precision", "gpu", CUDA_ROW(prec_gpu_ops) },
    { "train", "cpu", &train_cpu_ops },
    { "train", "gpu", CUDA_ROW(train_cuda_ops) },
    { "compress", "cpu", &compress_cpu_ops },
    { "compress", "gpu", CUDA_ROW(compress_cuda_ops) },
    { "collective", "gpu", NCCL_ROW(coll_nccl_ops) },     /* device buffers through NCCL */
};
#define NROWS (sizeof rows / sizeof rows[0])

/* Why a row this build has no ops for is empty, where it is not just "no such backend". */
static const struct absent {
    const char *family, *device, *why;
} absent[] = {
    { "collective", "gpu", "this build has no NCCL (" SR_NO_NCCL_REASON ")" },
};

/* The row of family on device; NULL when there is none. *known: the family has some row. */
static const struct row *find(const char *family, const char *device, int *known)
{
    *known = 0;
    for (size_t i = 0; i < NROWS; i++) {
        if (strcmp(rows[i].family, family) != 0)
            continue;
        *known = 1;
        if (strcmp(rows[i].device, device) == 0)
            return &rows[i];
    }
    return NULL;
}

/* "bandwidth, precision, ..." from the table, each family once. */
static void family_list(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NROWS && len < n; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            seen |= strcmp(rows[j].family, rows[i].family) == 0;
        if (!seen)
            len += (size_t)snprintf(buf + len, n - len, "%s%s", len ? ", " : "", rows[i].family);
    }
}

const void *backend_for(const char *family, const char *device, char *why, size_t n)
{
    family = family ? family : "(none)";
    device = device ? device : "(none)";
    int known;
    const struct row *r = find(family, device, &known);
    if (!known) {
        char list[160];
        family_list(list, sizeof list);
        snprintf(why, n, "no experiment family \"%s\" (%s)", family, list);
        return NULL;
    }
    if (strcmp(device, "cpu") != 0 && strcmp(device, "gpu") != 0) {
        snprintf(why, n, "no device \"%s\" (cpu or gpu)", device);
        return NULL;
    }
    if (strcmp(device, "gpu") == 0 && cuda_words_poisoned()) {
        snprintf(why, n, "not measured: an earlier GPU item faulted and the CUDA context cannot be used again in this "
                 "process (%s)", cuda_words_poisoned());
        return NULL;
    }
    if (strcmp(device, "gpu") == 0 && cuda_count(why, n) == 0)
        return NULL;                /* asks for no device's context: every MPI rank asks this */
    if (!r || !r->ops)
        snprintf(why, n, "the %s family has no %s backend", family, device);
    for (size_t i = 0; r && !r->ops && i < sizeof absent / sizeof absent[0]; i++)
        if (strcmp(absent[i].family, family) == 0 && strcmp(absent[i].device, device) == 0)
            snprintf(why, n, "%s", absent[i].why);
    return r ? r->ops : NULL;
}
