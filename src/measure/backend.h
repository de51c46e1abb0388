/* backend.h: which implementation of an experiment family runs on a device, decided in one
 * place. A family asks backend_for() and gets its own ops struct (struct bw_ops, prec_ops,
 * train_ops, compress_ops, ...) or the reason there is none; it never checks the build or probes
 * the driver itself. What the ops do is the family's business; this module never looks inside. */
#ifndef SR_BACKEND_H
#define SR_BACKEND_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ops of `family` ("bandwidth", "bandwidth-transfers", "precision", "train", "compress")
 * on `device` ("cpu", "gpu"), or NULL with why (n bytes): for "gpu", cuda_probe()'s words when
 * there is no usable device (built without CUDA, no CUDA device, driver too old); for an unknown
 * family or device, a message naming it; for a family without that device, which one it lacks. */
const void *backend_for(const char *family, const char *device, char *why, size_t n);

#ifdef __cplusplus
}
#endif

#endif
