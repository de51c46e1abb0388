/* isa.h: which x86-64 instruction sets the CPU kernels are built for, decided once for the
 * build. The build targets the baseline ISA so the binary runs anywhere; the hot loops are also
 * compiled for AVX2 with FMA (arch=x86-64-v3, dispatched on the CPU's features: a clone for
 * "avx2" alone leaves every multiply-add unfused, and one for arch=haswell runs only on an Intel
 * Haswell, never on an AMD core) and, unless configure was given --with-isa=avx2, for AVX-512;
 * the widest the CPU runs is chosen when the program loads (ISA_CLONES) or when a kernel table
 * is read (isa_avx512, isa_avx2). --with-isa=avx2 measures on an AVX-512 CPU what a CPU without
 * AVX-512 runs, every family's kernels at once (OpenBLAS chooses its own: OPENBLAS_CORETYPE).
 * What the kernels are is the families' own; elsewhere (aarch64) everything here is empty. */
#ifndef SR_UTIL_ISA_H
#define SR_UTIL_ISA_H

#include "config.h"

#ifndef SR_ISA_AVX512
#define SR_ISA_AVX512 1             /* configure's --with-isa: 1 auto (AVX-512 kernels), 0 avx2 */
#endif

#if defined(__x86_64__) && defined(__GNUC__)
#define ISA_X86 1
/* The loader's clones; not under AddressSanitizer, which does not mix with ifuncs. */
#if !defined(__SANITIZE_ADDRESS__) && SR_ISA_AVX512
#define ISA_CLONES __attribute__((target_clones("avx512f", "arch=x86-64-v3", "default")))
#elif !defined(__SANITIZE_ADDRESS__)
#define ISA_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
#endif
#ifdef ISA_CLONES
#define ISA_CLONED 1
#else
#define ISA_CLONED 0                /* one build of each kernel, the baseline's */
#define ISA_CLONES
#endif

#if defined(__x86_64__) && defined(__GNUC__)
/* The CPU has AVX-512F and the build may use it. */
static inline int isa_avx512(void) { return SR_ISA_AVX512 && __builtin_cpu_supports("avx512f"); }
/* The CPU has AVX2 and FMA. */
static inline int isa_avx2(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
#else
#define ISA_X86 0
static inline int isa_avx512(void) { return 0; }
static inline int isa_avx2(void) { return 0; }
#endif

/* The build's level in words, as results.json's context.build.isa gives it. */
#if ISA_X86 && SR_ISA_AVX512
#define ISA_BUILD_WORDS "auto: AVX-512, AVX2 with FMA or the baseline, the widest the CPU runs"
#elif ISA_X86
#define ISA_BUILD_WORDS "avx2: AVX2 with FMA or the baseline, never AVX-512 (configure --with-isa=avx2)"
#else
#define ISA_BUILD_WORDS "the baseline of the target"
#endif

#endif
