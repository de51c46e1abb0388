/* hd.h: functions shared by host and device code. A function marked SR_HD compiles as a
 * static inline C function for the CPU build and as __host__ __device__ under nvcc, so the
 * math of a GPU kernel is the math the CPU tests exercise. */
#ifndef SR_HD_H
#define SR_HD_H

#ifdef __CUDACC__
#define SR_HD static inline __host__ __device__
#else
#define SR_HD static inline
#endif

#endif
