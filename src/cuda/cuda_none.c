/* cuda_none.c: the CUDA entry points of a build without CUDA (cuda.h): no device, and why. */
#include "cuda/cuda.h"

#include <stdio.h>
#include <string.h>

#include "config.h"

#ifndef HAVE_CUDA
void cuda_probe(struct cuda_info *ci)
{
    memset(ci, 0, sizeof *ci);
    snprintf(ci->reason, sizeof ci->reason,
             "not measured: this sparkreport was built without CUDA (" SR_NO_CUDA_REASON ")");
}

int cuda_use_device(char *err, size_t errlen)
{
    snprintf(err, errlen, "this sparkreport was built without CUDA");
    return -1;
}

int cuda_count(char *why, size_t n)
{
    snprintf(why, n, "not measured: this sparkreport was built without CUDA (" SR_NO_CUDA_REASON ")");
    return 0;
}
#endif
