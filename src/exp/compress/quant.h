/* quant.h: compressed weight matrices. The schemes as data (quant_schemes[]: value format, bits
 * per weight with scales and indices, block, scale format: the table the training-time model
 * reads), packing a matrix row by row from FP32 (the quantizers and pruners with their
 * rounding and saturation rules), the plain twins (unpack a row, a product in FP64), and the
 * ops interface the CPU kernels (compress_cpu.c) and the CUDA kernels (src/exp/compress/compress_cuda.cu)
 * implement. Bit-level number formats: quant_math.h. Measuring: compress.c. */
#ifndef SR_QUANT_H
#define SR_QUANT_H

#include <stddef.h>
#include <stdint.h>

#include "exp/compress/quant_math.h"

#ifdef __cplusplus
extern "C" {
#endif

enum quant_id {
    QUANT_FP32 = 0, QUANT_BF16, QUANT_INT8, QUANT_FP8, QUANT_INT4_G32, QUANT_INT4_G128,
    QUANT_NVFP4, QUANT_MXFP4, QUANT_CSR, QUANT_24, QUANT_N
};

/* One scheme. Physical bits per weight = density x (value_bits + index_bits) + scale_bits /
 * block, plus what vanishes as rows grow (per-row and per-tensor scales, CSR row pointers):
 * quant_bits_per_weight() gives the exact figure of a matrix. */
struct quant_scheme {
    const char *name;           /* "int4-g32": the scenario's word (CSR records: "prune-50") */
    const char *label;          /* "int4, groups of 32, FP16 scales" */
    const char *value_format;   /* of each stored value: "fp32", "bf16", "int8", "e4m3", "int4", "e2m1" */
    double value_bits;          /* per stored value */
    double index_bits;          /* per stored value: CSR 16 (column), 2:4 2 (position in its group) */
    int block;                  /* weights per scale: n > 0 consecutive along a row; 0 one scale
                                   per row; -1 one per tensor (NVFP4: per block and per tensor) */
    const char *scale_format;   /* "fp32", "fp16", "e4m3 + fp32 per tensor", "e8m0", "none" */
    double scale_bits;          /* per block of `block` weights (0 for per-row and per-tensor) */
    double density;             /* stored values per weight: 1; 2:4 0.5; CSR 0 = the sparsity
                                   parameter decides (1 - sparsity) */
    double bits_per_weight;     /* nominal: density x (value + index bits) + scale_bits / block;
                                   CSR: per kept weight (multiply by the density) */
    double tolerance;           /* kernel validation: |y - y_ref| / sum |w x|, y_ref in FP64 from
                                   the same dequantized weights (FP32 accumulation, STYLE.md) */
    double error_bound;         /* layer outputs against FP64 on the unquantized weights: stated
                                   bound on ||y - y64|| / ||y64|| for N(0, 0.02) weights and
                                   N(0, 1) inputs, 4096 per row (see quant.c); pruning: at 50 % */
};
extern const struct quant_scheme quant_schemes[QUANT_N];

/* Looks a scheme up by name ("prune" for CSR); -1 when unknown. */
int quant_find(const char *name);

/* W[rows][cols] in a scheme; y = W x. Arrays 2 MiB aligned, first-touched by the packers. */
struct quant_matrix {
    enum quant_id id;
    size_t rows, cols;
    size_t kept;                /* stored values per row: cols; 2:4 cols / 2; CSR cols - round(s cols) */
    double sparsity;            /* CSR: as asked; 2:4 0.5; else 0 */
    void *vals;                 /* rows x kept values in the value format, row-major; int4 and
                                   e2m1 two per byte, element 2i in the low nibble */
    void *scales;               /* INT8: float per row; INT4: fp16 per block; NVFP4: e4m3 per
                                   block; MXFP4: e8m0 per block; else NULL */
    void *idx;                  /* CSR: uint16 column per value, ascending in a row; 2:4: the
                                   2-bit position (0..3) of each value in its group of four, four
                                   to a byte, lowest bits first */
    uint32_t *rowptr;           /* CSR: rows + 1 offsets into vals and idx; else NULL */
    size_t bytes[4];            /* of vals, scales, idx, rowptr: what a product reads */
    float tensor_scale;         /* FP8: amax / 448; NVFP4: amax / (448 x 6); else 1 */
    float amax;                 /* largest finite |w| of the tensor (FP8, NVFP4: set before packing) */
    int nan_codes;              /* FP8: some value is a NaN code (the packer sets it); kernels that
                                   decode without checking for NaN may run only when it is 0 */
};

/* Why a shape does not suit a scheme (cols a multiple of the block and of 8, CSR cols <= 65536,
 * CSR values below 2^32), or NULL. */
const char *quant_shape_problem(enum quant_id id, size_t rows, size_t cols, double sparsity);

/* Allocates a matrix (untouched: the packers first-touch it); NULL with a message. */
struct quant_matrix *quant_new(enum quant_id id, size_t rows, size_t cols, double sparsity,
                               char *err, size_t errlen);
void quant_free(struct quant_matrix *m);

double quant_bytes(const struct quant_matrix *m);                 /* physical, all arrays */
double quant_bits_per_weight(const struct quant_matrix *m);       /* physical bits per weight */

/* FP8 and NVFP4 scale by the tensor's largest finite magnitude: set it before packing rows. */
void quant_set_amax(struct quant_matrix *m, float amax);

/* Packs row r from w[cols]; scratch holds cols floats. Distinct rows may be packed at once. */
void quant_pack_row(struct quant_matrix *m, size_t r, const float *w, float *scratch);

/* Packs a whole matrix from w[rows][cols] (the tensor amax first), OpenMP over rows. */
void quant_pack(struct quant_matrix *m, const float *w, int threads);

/* Packs a matrix of quant_weight(seed, r cols + c), OpenMP over rows in the static partition
 * the kernels use (so each thread's rows are local to it). */
void quant_pack_gen(struct quant_matrix *m, uint64_t seed, int threads);

/* Plain twins: row r dequantized (zeros where pruned), and its product with x[cols] in FP64;
 * *abs_sum = sum |w x| (may be NULL). scratch holds cols floats. */
void quant_unpack_row(const struct quant_matrix *m, size_t r, float *w);
double quant_ref_dot(const struct quant_matrix *m, size_t r, const float *x, float *scratch, double *abs_sum);

/* The kernels. A product: y[b rows + r] = sum_c W[r][c] x[b cols + c], b < batch. */
#define QUANT_MAX_BATCH 8

struct compress_ops {
    const char *device;         /* "cpu", "gpu" */
    /* Makes m ready for products (the GPU copies it to the device); NULL with a message. */
    void *(*open)(const struct quant_matrix *m, int threads, char *err, size_t errlen);
    /* iters products (x, y on the host; the GPU copies x in before and y out after the timed
     * part); seconds they took, negative when they failed. */
    double (*gemv)(void *h, const float *x, float *y, int batch, long iters);
    /* iters passes summing an FP32 matrix's values (a plain read of the same bytes); seconds;
     * *sum: the last pass's sum. */
    double (*read)(void *h, long iters, double *sum);
    const char *(*isa)(void *h);    /* what ran: "avx512f", "avx2", "cuda sm_90", ... */
    void (*close)(void *h);
};
extern const struct compress_ops compress_cpu_ops;
/* Tests: 1 makes the CPU kernels use their portable decoders even where AVX-512 ones exist. */
void compress_cpu_generic(int generic);
/* The widest CPU kernels to use: "auto" (the widest this CPU has), "avx512", "avx2" or
 * "portable"; -1 when this CPU lacks the one named (the widest it has below it is used). */
int quant_cpu_isa(const char *name);
extern const struct compress_ops compress_cuda_ops;   /* only in builds with CUDA */
/* Builds with CUDA: quant_math.h against CUDA's own conversions (host code, no device needed);
 * how many values differ, why describing the first. */
long compress_cuda_formats_agree(char *why, size_t whylen);

#ifdef __cplusplus
}
#endif

#endif
