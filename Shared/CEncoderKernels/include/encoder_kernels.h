#ifndef HEARTH_ENCODER_KERNELS_H
#define HEARTH_ENCODER_KERNELS_H

/// The MiniLM encoder's AVX-512F kernels: products of a few rows (a search query's tokens) with
/// a layer's weight matrix, and GELU. A general sgemm copies the whole weight matrix into its own
/// panel layout on every call, which for a handful of rows costs more than the arithmetic; here
/// the weights are packed into that layout once, when the model loads, and read in place
/// afterwards.

/// Whether this CPU runs the kernels below, all of which need only AVX-512F (detected once when
/// the process loads, so the same binary still runs, through OpenBLAS and the Swift GELU, on a
/// CPU without it).
int hearth_encoder_kernels_supported(void);

/// Packs W `[n, k]` (row-major, a PyTorch `Linear` weight) into `packed`, which holds n·k floats:
/// panels of 32 output columns, each panel k rows of 32 contiguous floats. Returns 0, having
/// written nothing, when `n` is not a multiple of 32.
int hearth_linear_pack(int n, int k, const float *w, float *packed);

/// C[m, n] += A[m, k] · Wᵀ, with W packed by `hearth_linear_pack`; A and C row-major. Returns 0,
/// having done nothing, when the CPU lacks AVX-512F or `n` is not a multiple of 32.
int hearth_linear_accumulate(int m, int n, int k,
                             const float *a, int lda,
                             const float *packed,
                             float *c, int ldc);

/// Exact GELU, x · ½ · (1 + erf(x / √2)), in place over `count` floats, with the same erf and exp
/// approximations (and coefficients) as `Kernels.fastErf` / `Kernels.fastExp`, 16 lanes at a time.
/// Returns 0, having done nothing, when the CPU lacks AVX-512F.
int hearth_gelu(float *x, long count);

#endif
