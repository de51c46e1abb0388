/* block_sum.cuh: device code only: the sum of one double per thread over a block, in a fixed
 * order (a tree over shared memory), written to out[blockIdx.x] by thread 0. The kernels that
 * read arrays (bandwidth's read, compression's plain read) end with it. */
#ifndef SR_CUDA_BLOCK_SUM_CUH
#define SR_CUDA_BLOCK_SUM_CUH

/* sums: a __shared__ array of blockDim.x doubles; blockDim.x a power of two. */
static __device__ void block_sum_store(double *sums, double v, double *out)
{
    sums[threadIdx.x] = v;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if ((int)threadIdx.x < w)
            sums[threadIdx.x] += sums[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = sums[0];
}

#endif
