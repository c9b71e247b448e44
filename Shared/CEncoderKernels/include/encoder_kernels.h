#ifndef HEARTH_ENCODER_KERNELS_H
#define HEARTH_ENCODER_KERNELS_H

#include <stdint.h>

/// The MiniLM encoder's AVX-512F kernels: products of a few rows (a search query's tokens) with
/// a layer's weight matrix, and GELU. A general sgemm copies the whole weight matrix into its own
/// panel layout on every call, which for a handful of rows costs more than the arithmetic; here
/// the weights are packed into that layout once, when the model loads, and read in place
/// afterwards. The packed weights are IEEE half precision, widened to float as they are read:
/// the weights stream from L3 for every query, and halves take half the bytes (short queries
/// embed 1.37× faster here). The arithmetic stays in float; rounding the weights alone keeps
/// every reference embedding at cosine ≥ 0.9999997.

/// Whether this CPU runs the kernels below, all of which need only AVX-512F and F16C (detected
/// once when the process loads, so the same binary still runs, through OpenBLAS and the Swift
/// GELU, on a CPU without them).
int hearth_encoder_kernels_supported(void);

/// Packs W `[n, k]` (row-major, a PyTorch `Linear` weight) into `packed`, which holds n·k halves
/// (rounded to nearest): panels of 32 output columns, each panel k rows of 32 contiguous halves.
/// Returns 0, having written nothing, when the CPU lacks the kernels or `n` is not a multiple of 32.
int hearth_linear_pack(int n, int k, const float *w, uint16_t *packed);

/// C[m, n] += A[m, k] · Wᵀ, with W packed by `hearth_linear_pack`; A and C row-major. Returns 0,
/// having done nothing, when the CPU lacks the kernels or `n` is not a multiple of 32.
int hearth_linear_accumulate(int m, int n, int k,
                             const float *a, int lda,
                             const uint16_t *packed,
                             float *c, int ldc);

/// Exact GELU, x · ½ · (1 + erf(x / √2)), in place over `count` floats, with the same erf and exp
/// approximations (and coefficients) as `Kernels.fastErf` / `Kernels.fastExp`, 16 lanes at a time.
/// Returns 0, having done nothing, when the CPU lacks AVX-512F.
int hearth_gelu(float *x, long count);

#endif
