#ifndef HEARTH_ENCODER_KERNELS_H
#define HEARTH_ENCODER_KERNELS_H

#include <stdint.h>

/// The MiniLM encoder's numeric kernels: the layer products, attention, GELU, LayerNorm and
/// pooling.
///
/// The contract is that a text's vector depends on that text alone: not on the batch it was
/// embedded in, not on the CPU, not on the build configuration. Every kernel therefore computes
/// each output element by one fixed sequence of IEEE single-precision operations, the same on
/// every path:
///   - a dot product or a sum over a reduction index runs sequentially in index order, one fused
///     multiply-add (or add) per step, from zero; vectors only ever run across independent
///     outputs (columns, lanes), never across the reduction index;
///   - the sums inside LayerNorm, softmax and pooling run as 8 interleaved partial sums, folded
///     in one fixed order;
///   - the compiler may not contract or reassociate anything (the target builds with
///     -ffp-contract=off and no fast-math).
/// The paths then differ only in how many independent outputs one instruction computes, and the
/// vectors are identical bit for bit (the tests compare every path against the portable one).
///
/// The layer weights are packed once, when the model loads, into panels of 32 output columns in
/// IEEE half precision (rounded to nearest even), and widened to float as they are read: the
/// weights stream from L3 for every query, and halves take half the bytes. The arithmetic stays
/// in float; rounding the weights alone keeps every reference embedding at cosine ≥ 0.9999997.

/// A kernel path. `HEARTH_KERNEL_PORTABLE` is plain C (fmaf from libm): the reference the vector
/// paths are tested against, and the path on CPUs that are not x86-64.
enum {
    HEARTH_KERNEL_PORTABLE = 0,
    HEARTH_KERNEL_AVX2 = 1,   // AVX2 + FMA + F16C: the floor on x86-64
    HEARTH_KERNEL_AVX512 = 2, // AVX-512F on top of the floor: wider layer products only
};

/// Whether this CPU can run `path` (detected once, when the process loads).
int hearth_kernel_path_supported(int path);

/// The fastest path this CPU runs; -1 on an x86-64 CPU below the floor (no AVX2, FMA or F16C),
/// where the encoder refuses to load rather than run the portable path hundreds of times slower.
int hearth_kernel_best_path(void);

/// Packs W `[n, k]` (row-major, a PyTorch `Linear` weight) into `packed`, which holds n·k halves:
/// panels of 32 output columns, each panel k rows of 32 contiguous halves. The same bits on every
/// CPU. Returns 0, having written nothing, when `n` is not a multiple of 32.
int hearth_linear_pack(int n, int k, const float *w, uint16_t *packed);

/// C[m, n] += A[m, k] · Wᵀ, with W packed by `hearth_linear_pack`; A and C row-major. Each
/// element of C gains Σₚ A[i,p]·W[j,p], summed from zero in p order with one fma per step.
/// Returns 0, having done nothing, when the path does not run here or `n` is not a multiple of 32.
int hearth_linear_accumulate(int path, int m, int n, int k, const float *a, int lda,
                             const uint16_t *packed, float *c, int ldc);

/// Scaled dot-product attention of one head over one sequence of `length` tokens:
/// context[i] = Σⱼ softmax(scale · q[i]·k[j])ⱼ · v[j], vectors of `head_dim` floats (a multiple
/// of 8) at a stride of `ld` (q, k, v) and `ldc` (context). `scratch` holds
/// `hearth_attention_scratch_floats(length, head_dim)` floats. Returns 0 when the path does not
/// run here or `head_dim` is not a multiple of 8.
int hearth_attention(int path, int length, int head_dim, float scale,
                     const float *q, const float *k, const float *v, int ld,
                     float *context, int ldc, float *scratch);
long hearth_attention_scratch_floats(int length, int head_dim);

/// Exact GELU, x · ½ · (1 + erf(x / √2)), in place over `count` floats. erf agrees with the true
/// erf to 1.5e-7 and, unlike libm's erff, vectorises. Returns 0 when the path does not run here.
int hearth_gelu(int path, float *x, long count);

/// In-place LayerNorm of each of `rows` rows of `width` floats (biased variance, like PyTorch).
void hearth_layer_norm(float *x, int rows, int width, const float *gamma, const float *beta, float eps);

/// The mean of `rows` rows of `width` floats, L2-normalised (norm clamped at 1e-12 like torch's
/// F.normalize), into `out`.
void hearth_mean_pool_normalized(const float *x, int rows, int width, float *out);

/// IEEE half ↔ float, in software (rounded to nearest even; the same bits as F16C).
uint16_t hearth_float_to_half(float value);
float hearth_half_to_float(uint16_t half);

#endif
