#include "encoder_kernels.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

// Built with -O2 -ffp-contract=off in every configuration (Package.swift): a debug build of the
// services must not embed the content library at -O0, and no product or sum may be fused or
// reordered behind the code's back (see the header's contract).

enum { PANEL = 32 };

static inline uint32_t float_bits(float value) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

static inline float bits_float(uint32_t bits) {
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

// MARK: - Half precision

uint16_t hearth_float_to_half(float value) {
    uint32_t bits = float_bits(value);
    uint16_t sign = (uint16_t)((bits >> 16) & 0x8000);
    uint32_t magnitude = bits & 0x7FFFFFFF;
    if (magnitude >= 0x7F800000) {  // infinity, or NaN (kept quiet, with its top payload bits)
        return magnitude == 0x7F800000 ? (uint16_t)(sign | 0x7C00) : (uint16_t)(sign | 0x7E00 | ((magnitude >> 13) & 0x3FF));
    }
    if (magnitude >= 0x477FF000) return (uint16_t)(sign | 0x7C00);  // ≥ 65520 rounds to infinity
    if (magnitude < 0x33000000) return sign;                        // < 2⁻²⁵ rounds to zero
    uint32_t result, remainder, halfway;
    if (magnitude < 0x38800000) {  // a half subnormal: the value in units of 2⁻²⁴
        uint32_t mantissa = (magnitude & 0x7FFFFF) | 0x800000;
        int shift = 126 - (int)(magnitude >> 23);  // 14 … 24
        result = mantissa >> shift;
        remainder = mantissa & ((1u << shift) - 1);
        halfway = 1u << (shift - 1);
    } else {  // rebias the exponent (127 → 15) and drop 13 mantissa bits
        result = (magnitude - 0x38000000) >> 13;
        remainder = magnitude & 0x1FFF;
        halfway = 0x1000;
    }
    if (remainder > halfway || (remainder == halfway && (result & 1))) result += 1;  // to nearest even
    return (uint16_t)(sign | result);
}

float hearth_half_to_float(uint16_t half) {
    uint32_t sign = (uint32_t)(half & 0x8000) << 16;
    uint32_t exponent = (half >> 10) & 0x1F, mantissa = half & 0x3FF;
    if (exponent == 31) return bits_float(sign | 0x7F800000 | (mantissa << 13));
    if (exponent != 0) return bits_float(sign | ((exponent + 112) << 23) | (mantissa << 13));
    if (mantissa == 0) return bits_float(sign);
    int shifts = 0;  // a subnormal: normalise it
    while (!(mantissa & 0x400)) { mantissa <<= 1; shifts += 1; }
    return bits_float(sign | ((uint32_t)(113 - shifts) << 23) | ((mantissa & 0x3FF) << 13));
}

int hearth_linear_pack(int n, int k, const float *w, uint16_t *packed) {
    if (n < 0 || k < 0 || n % PANEL != 0) return 0;
    for (int j = 0; j < n; j++) {
        uint16_t *panel = packed + (size_t)(j / PANEL) * k * PANEL + j % PANEL;
        const float *row = w + (size_t)j * k;
        for (int p = 0; p < k; p++) panel[(size_t)p * PANEL] = hearth_float_to_half(row[p]);
    }
    return 1;
}

// MARK: - Scalar arithmetic shared by every path

// MAXPS / MINPS: the second operand when the comparison is false (NaN included), so that the
// vector clamps and these give the same bits for every input.
static inline float max_ps(float a, float b) { return a > b ? a : b; }
static inline float min_ps(float a, float b) { return a < b ? a : b; }

// The coefficients of exp and erf, shared by the scalar and vector code.
#define EXP_SHIFTER 12582912.0f  // 1.5 · 2²³: adding it rounds to an integer kept in the low bits
#define EXP_LOG2E 1.4426950408889634f
#define EXP_LN2_HIGH 0.693145751953125f  // ln 2 in two parts, for an exact reduction
#define EXP_LN2_LOW 1.428606765330187e-6f
#define EXP_BIAS_BITS 0xB4C0007Fu        // shifted's bits + this, << 23: (n + 127) << 23
#define EXP_BIAS_LANE (-1262485377)      // the same 32 bits as a signed lane value, for the vectors

/// e^y, relative error ≤ 1.2e-7: y = n·ln2 + r with |r| ≤ ln2/2, e^r by its degree-7 Taylor
/// polynomial, 2ⁿ assembled in the exponent bits. Inputs are clamped to [-87, 88].
static inline float scalar_exp(float value) {
    float y = min_ps(max_ps(value, -87.0f), 88.0f);
    float shifted = fmaf(y, EXP_LOG2E, EXP_SHIFTER);
    float n = shifted - EXP_SHIFTER;
    float r = fmaf(-n, EXP_LN2_HIGH, y);
    r = fmaf(-n, EXP_LN2_LOW, r);
    float p = 1.0f / 5040;
    p = fmaf(p, r, 1.0f / 720);
    p = fmaf(p, r, 1.0f / 120);
    p = fmaf(p, r, 1.0f / 24);
    p = fmaf(p, r, 1.0f / 6);
    p = fmaf(p, r, 0.5f);
    p = fmaf(p, r, 1.0f);
    p = fmaf(p, r, 1.0f);
    return p * bits_float((float_bits(shifted) + EXP_BIAS_BITS) << 23);
}

/// erf with absolute error ≤ 1.5e-7 over all floats (coefficients fitted by least squares on
/// Chebyshev nodes): |x| < 1: x · P(x²), P of degree 6; 1 ≤ |x| ≤ 4: 1 − e^(−x²) · Q(1/x), Q of
/// degree 9; beyond 4, erf is ±1 to float precision.
#define ERF_P {7.8824971062e-05f, -8.0188549917e-04f, 5.1893119426e-03f, -2.6854328796e-02f, \
               1.1283597463e-01f, -3.7612626904e-01f, 1.1283791659e+00f}
#define ERF_Q {2.8223217469e-02f, -1.6586221705e-01f, 4.0480200740e-01f, -4.9102227590e-01f, \
               1.9884866688e-01f, 2.5239911727e-01f, -3.8380051463e-01f, 2.2321134458e-02f,   \
               5.6154093274e-01f, 1.3351183100e-04f}
static const float erf_p[7] = ERF_P;
static const float erf_q[10] = ERF_Q;

static inline float scalar_erf(float x) {
    float ax = min_ps(bits_float(float_bits(x) & 0x7FFFFFFF), 4.0f);
    float t = ax * ax;
    float p = erf_p[0];
    for (int i = 1; i < 7; i++) p = fmaf(p, t, erf_p[i]);
    float small = ax * p;
    float s = 1.0f / max_ps(ax, 1.0f);
    float q = erf_q[0];
    for (int i = 1; i < 10; i++) q = fmaf(q, s, erf_q[i]);
    float large = fmaf(-scalar_exp(0.0f - t), q, 1.0f);
    float magnitude = ax < 1.0f ? small : large;
    return bits_float(float_bits(magnitude) | (float_bits(x) & 0x80000000));
}

#define GELU_INV_SQRT2 0.7071067811865475244f

static inline float scalar_gelu(float v) {
    return (0.5f * v) * (1.0f + scalar_erf(v * GELU_INV_SQRT2));
}

/// The fold of 8 partial sums, in the one order every path uses.
static inline float fold8(const float part[8]) {
    return ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
}

/// Σ x[j] as 8 interleaved partial sums (x[j] goes to partial j mod 8), folded by `fold8`.
static float sum8(const float *x, int count) {
    float part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int j = 0; j < count; j++) part[j & 7] += x[j];
    return fold8(part);
}

void hearth_layer_norm(float *x, int rows, int width, const float *gamma, const float *beta, float eps) {
    float n = (float)width;
    for (int r = 0; r < rows; r++) {
        float *row = x + (size_t)r * width;
        float mean = sum8(row, width) / n;
        float part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int j = 0; j < width; j++) {
            float d = row[j] - mean;
            part[j & 7] += d * d;
        }
        float inv = 1.0f / sqrtf(fold8(part) / n + eps);
        for (int j = 0; j < width; j++) row[j] = ((row[j] - mean) * inv) * gamma[j] + beta[j];
    }
}

void hearth_mean_pool_normalized(const float *x, int rows, int width, float *out) {
    for (int j = 0; j < width; j++) out[j] = 0;
    for (int r = 0; r < rows; r++) {
        const float *row = x + (size_t)r * width;
        for (int j = 0; j < width; j++) out[j] += row[j];
    }
    float inv_rows = 1.0f / (float)(rows > 1 ? rows : 1);
    float part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int j = 0; j < width; j++) {
        out[j] *= inv_rows;
        part[j & 7] += out[j] * out[j];
    }
    float norm = sqrtf(fold8(part));
    float inv = 1.0f / (norm > 1e-12f ? norm : 1e-12f);
    for (int j = 0; j < width; j++) out[j] *= inv;
}

long hearth_attention_scratch_floats(int length, int head_dim) {
    long padded = ((long)length + 7) & ~7L;
    return padded * head_dim + padded;  // kᵀ, then one row of scores
}

// MARK: - Portable path

static void portable_linear(int m, int n, int k, const float *a, int lda, const uint16_t *packed, float *c, int ldc) {
    for (int j = 0; j < n; j++) {
        const uint16_t *column = packed + (size_t)(j / PANEL) * k * PANEL + j % PANEL;
        for (int i = 0; i < m; i++) {
            const float *row = a + (size_t)i * lda;
            float acc = 0;
            for (int p = 0; p < k; p++) acc = fmaf(row[p], hearth_half_to_float(column[(size_t)p * PANEL]), acc);
            c[(size_t)i * ldc + j] = c[(size_t)i * ldc + j] + acc;
        }
    }
}

/// The softmax of one row of scores, in place: e^(s − max) / Σ, the sum as `sum8` takes it.
static void portable_softmax(float *scores, int length) {
    float largest = scores[0];
    for (int j = 1; j < length; j++) largest = max_ps(scores[j], largest);
    for (int j = 0; j < length; j++) scores[j] = scalar_exp(scores[j] - largest);
    float inv = 1.0f / sum8(scores, length);
    for (int j = 0; j < length; j++) scores[j] *= inv;
}

static void portable_attention(int length, int head_dim, float scale, const float *q, const float *k, const float *v, int ld,
                               float *context, int ldc, float *scores) {
    for (int i = 0; i < length; i++) {
        for (int j = 0; j < length; j++) {
            float acc = 0;
            for (int d = 0; d < head_dim; d++) acc = fmaf(q[(size_t)i * ld + d], k[(size_t)j * ld + d], acc);
            scores[j] = acc * scale;
        }
        portable_softmax(scores, length);
        for (int d = 0; d < head_dim; d++) {
            float acc = 0;
            for (int j = 0; j < length; j++) acc = fmaf(scores[j], v[(size_t)j * ld + d], acc);
            context[(size_t)i * ldc + d] = acc;
        }
    }
}

// MARK: - x86-64 vector paths

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

// Each function is compiled for its instruction set by attribute, so the target needs no special
// flags and the binary still loads on any x86-64 CPU; callers check the path first.
#define AVX2 __attribute__((target("avx2,fma,f16c")))
#define AVX512 __attribute__((target("avx512f,avx2,fma,f16c")))
// The row loops must be unrolled for the accumulator arrays to live in registers: left as loops,
// every multiply-add loads and stores its accumulator through the stack.
#define UNROLLED _Pragma("clang loop unroll(full)")

static int cpu_has_floor = 0, cpu_has_avx512 = 0;

// Detected once, while the process loads and before any thread exists, so that reading the flags
// later from any thread is not a data race.
__attribute__((constructor)) static void detect_cpu(void) {
    __builtin_cpu_init();
    cpu_has_floor = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
    cpu_has_avx512 = cpu_has_floor && __builtin_cpu_supports("avx512f");
}

int hearth_kernel_path_supported(int path) {
    switch (path) {
    case HEARTH_KERNEL_PORTABLE: return 1;
    case HEARTH_KERNEL_AVX2: return cpu_has_floor;
    case HEARTH_KERNEL_AVX512: return cpu_has_avx512;
    default: return 0;
    }
}

int hearth_kernel_best_path(void) {
    return cpu_has_avx512 ? HEARTH_KERNEL_AVX512 : cpu_has_floor ? HEARTH_KERNEL_AVX2 : -1;
}

// --- Layer products. `ROWS` rows of A against one 32-column panel; each step reads one row of
// the panel (32 halves), widens it to floats and broadcasts one value of A per row. The panels
// (all of a layer's weights, one after another) stream from L3; asking for the row 16 steps
// ahead (1 KB) made a short query ~9 % faster than leaving the stream to the hardware prefetcher.
// A prefetch past the last panel cannot fault (its address is computed as an integer, so the
// pointer past the buffer is never formed).

// AVX-512: 2 accumulators (32 columns) per row, up to 12 rows in the 32 registers.
#define AVX512_ROW_BLOCK(ROWS)                                                                     \
    AVX512 static void avx512_rows_##ROWS(int k, const float *a, int lda, const uint16_t *panel,   \
                                          float *c, int ldc) {                                     \
        __m512 low[ROWS], high[ROWS];                                                              \
        UNROLLED for (int r = 0; r < ROWS; r++) {                                                  \
            low[r] = _mm512_setzero_ps();                                                          \
            high[r] = _mm512_setzero_ps();                                                         \
        }                                                                                          \
        for (int p = 0; p < k; p++) {                                                              \
            const uint16_t *step = panel + (size_t)p * PANEL;                                      \
            _mm_prefetch((const char *)((uintptr_t)step + 32 * PANEL), _MM_HINT_T0);              \
            __m512 w0 = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)step));                \
            __m512 w1 = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(step + 16)));         \
            UNROLLED for (int r = 0; r < ROWS; r++) {                                              \
                __m512 x = _mm512_set1_ps(a[(size_t)r * lda + p]);                                 \
                low[r] = _mm512_fmadd_ps(x, w0, low[r]);                                           \
                high[r] = _mm512_fmadd_ps(x, w1, high[r]);                                         \
            }                                                                                      \
        }                                                                                          \
        UNROLLED for (int r = 0; r < ROWS; r++) {                                                  \
            float *out = c + (size_t)r * ldc;                                                      \
            _mm512_storeu_ps(out, _mm512_add_ps(_mm512_loadu_ps(out), low[r]));                    \
            _mm512_storeu_ps(out + 16, _mm512_add_ps(_mm512_loadu_ps(out + 16), high[r]));         \
        }                                                                                          \
    }

// AVX2: 16 registers hold 2 accumulators (16 columns) for up to 6 rows, so the panel is taken in
// two halves of 16 columns; the second reads the panel's rows again from L1/L2.
#define AVX2_ROW_BLOCK(ROWS)                                                                       \
    AVX2 static void avx2_rows_##ROWS(int k, const float *a, int lda, const uint16_t *panel,       \
                                      float *c, int ldc) {                                         \
        for (int half = 0; half < PANEL; half += 16) {                                             \
            __m256 low[ROWS], high[ROWS];                                                          \
            UNROLLED for (int r = 0; r < ROWS; r++) {                                              \
                low[r] = _mm256_setzero_ps();                                                      \
                high[r] = _mm256_setzero_ps();                                                     \
            }                                                                                      \
            for (int p = 0; p < k; p++) {                                                          \
                const uint16_t *step = panel + (size_t)p * PANEL + half;                           \
                _mm_prefetch((const char *)((uintptr_t)step + 32 * PANEL), _MM_HINT_T0);          \
                __m256 w0 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)step));               \
                __m256 w1 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(step + 8)));         \
                UNROLLED for (int r = 0; r < ROWS; r++) {                                          \
                    __m256 x = _mm256_broadcast_ss(a + (size_t)r * lda + p);                       \
                    low[r] = _mm256_fmadd_ps(x, w0, low[r]);                                       \
                    high[r] = _mm256_fmadd_ps(x, w1, high[r]);                                     \
                }                                                                                  \
            }                                                                                      \
            UNROLLED for (int r = 0; r < ROWS; r++) {                                              \
                float *out = c + (size_t)r * ldc + half;                                           \
                _mm256_storeu_ps(out, _mm256_add_ps(_mm256_loadu_ps(out), low[r]));                \
                _mm256_storeu_ps(out + 8, _mm256_add_ps(_mm256_loadu_ps(out + 8), high[r]));       \
            }                                                                                      \
        }                                                                                          \
    }

AVX512_ROW_BLOCK(1) AVX512_ROW_BLOCK(2) AVX512_ROW_BLOCK(3) AVX512_ROW_BLOCK(4)
AVX512_ROW_BLOCK(5) AVX512_ROW_BLOCK(6) AVX512_ROW_BLOCK(7) AVX512_ROW_BLOCK(8)
AVX512_ROW_BLOCK(9) AVX512_ROW_BLOCK(10) AVX512_ROW_BLOCK(11) AVX512_ROW_BLOCK(12)
AVX2_ROW_BLOCK(1) AVX2_ROW_BLOCK(2) AVX2_ROW_BLOCK(3) AVX2_ROW_BLOCK(4) AVX2_ROW_BLOCK(5) AVX2_ROW_BLOCK(6)

typedef void (*RowBlock)(int, const float *, int, const uint16_t *, float *, int);
static const RowBlock avx512_row_blocks[13] = {
    0, avx512_rows_1, avx512_rows_2, avx512_rows_3, avx512_rows_4, avx512_rows_5, avx512_rows_6,
    avx512_rows_7, avx512_rows_8, avx512_rows_9, avx512_rows_10, avx512_rows_11, avx512_rows_12,
};
static const RowBlock avx2_row_blocks[7] = {
    0, avx2_rows_1, avx2_rows_2, avx2_rows_3, avx2_rows_4, avx2_rows_5, avx2_rows_6,
};

static void blocked_linear(const RowBlock *blocks, int max_rows, int m, int n, int k, const float *a, int lda,
                           const uint16_t *packed, float *c, int ldc) {
    // Rows split into equal blocks of at most `max_rows` (14 rows at 12: 7 + 7, not 12 + 2): a
    // block of two rows would read the whole panel again for little work.
    int count = (m + max_rows - 1) / max_rows;
    int rows_per_block = (m + count - 1) / count;
    // Panels outside, rows inside: a panel (k × 64 bytes) comes from memory once and is then
    // served from cache to every block of rows.
    for (int j = 0; j < n; j += PANEL) {
        const uint16_t *panel = packed + (size_t)j * k;
        for (int i = 0; i < m; i += rows_per_block) {
            int rows = m - i < rows_per_block ? m - i : rows_per_block;
            blocks[rows](k, a + (size_t)i * lda, lda, panel, c + (size_t)i * ldc + j, ldc);
        }
    }
}

// --- exp, erf and GELU, 8 lanes: `scalar_exp`, `scalar_erf` and `scalar_gelu` lane by lane.

AVX2 static inline __m256 exp8(__m256 value) {
    __m256 y = _mm256_min_ps(_mm256_max_ps(value, _mm256_set1_ps(-87.0f)), _mm256_set1_ps(88.0f));
    const __m256 shifter = _mm256_set1_ps(EXP_SHIFTER);
    __m256 shifted = _mm256_fmadd_ps(y, _mm256_set1_ps(EXP_LOG2E), shifter);
    __m256 n = _mm256_sub_ps(shifted, shifter);
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(EXP_LN2_HIGH), y);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(EXP_LN2_LOW), r);
    __m256 p = _mm256_set1_ps(1.0f / 5040);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 720));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
    __m256i bits = _mm256_slli_epi32(_mm256_add_epi32(_mm256_castps_si256(shifted), _mm256_set1_epi32(EXP_BIAS_LANE)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(bits));
}

AVX2 static inline __m256 erf8(__m256 x) {
    const __m256 sign_mask = _mm256_castsi256_ps(_mm256_set1_epi32((int)0x80000000));
    __m256 ax = _mm256_min_ps(_mm256_andnot_ps(sign_mask, x), _mm256_set1_ps(4.0f));
    __m256 t = _mm256_mul_ps(ax, ax);
    __m256 p = _mm256_set1_ps(erf_p[0]);
    for (int i = 1; i < 7; i++) p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(erf_p[i]));
    __m256 small = _mm256_mul_ps(ax, p);
    __m256 s = _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_max_ps(ax, _mm256_set1_ps(1.0f)));
    __m256 q = _mm256_set1_ps(erf_q[0]);
    for (int i = 1; i < 10; i++) q = _mm256_fmadd_ps(q, s, _mm256_set1_ps(erf_q[i]));
    __m256 large = _mm256_fnmadd_ps(exp8(_mm256_sub_ps(_mm256_setzero_ps(), t)), q, _mm256_set1_ps(1.0f));
    __m256 below_one = _mm256_cmp_ps(ax, _mm256_set1_ps(1.0f), _CMP_LT_OQ);
    __m256 magnitude = _mm256_blendv_ps(large, small, below_one);
    return _mm256_or_ps(magnitude, _mm256_and_ps(x, sign_mask));
}

AVX2 static inline __m256 gelu8(__m256 v) {
    __m256 e = erf8(_mm256_mul_ps(v, _mm256_set1_ps(GELU_INV_SQRT2)));
    return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), v), _mm256_add_ps(_mm256_set1_ps(1.0f), e));
}

AVX2 static void avx2_gelu(float *x, long count) {
    long i = 0;
    for (; i + 8 <= count; i += 8) _mm256_storeu_ps(x + i, gelu8(_mm256_loadu_ps(x + i)));
    if (i < count) {  // the tail through a full vector: each lane's arithmetic is its own
        float tail[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        memcpy(tail, x + i, (size_t)(count - i) * sizeof(float));
        _mm256_storeu_ps(tail, gelu8(_mm256_loadu_ps(tail)));
        memcpy(x + i, tail, (size_t)(count - i) * sizeof(float));
    }
}

// --- Attention, per row of queries: scores against kᵀ (8 keys a vector), softmax, then the
// context (8 dimensions a vector). Every sum runs over its reduction index in order.

AVX2 static void avx2_softmax(float *scores, int length) {
    float largest = scores[0];
    for (int j = 1; j < length; j++) largest = max_ps(scores[j], largest);
    const __m256 shift = _mm256_set1_ps(largest);
    __m256 partial = _mm256_setzero_ps();  // lane l: Σ e[j] over j ≡ l (mod 8), as `sum8`
    int j = 0;
    for (; j + 8 <= length; j += 8) {
        __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(scores + j), shift));
        _mm256_storeu_ps(scores + j, e);
        partial = _mm256_add_ps(partial, e);
    }
    float part[8];
    _mm256_storeu_ps(part, partial);
    for (; j < length; j++) {
        scores[j] = scalar_exp(scores[j] - largest);
        part[j & 7] += scores[j];
    }
    float inv = 1.0f / fold8(part);
    const __m256 scale = _mm256_set1_ps(inv);
    for (j = 0; j + 8 <= length; j += 8) _mm256_storeu_ps(scores + j, _mm256_mul_ps(_mm256_loadu_ps(scores + j), scale));
    for (; j < length; j++) scores[j] *= inv;
}

/// out[c] = (Σₜ x[t] · m[t·stride + c]) · scale for c < columns (a multiple of 8), the sum over t
/// in order from zero: four vectors of columns at a time, for the multiply-add latency, then one.
/// (A scale of 1 leaves every sum as it is.)
AVX2 static void avx2_vector_times_matrix(const float *x, int count, const float *m, size_t stride, int columns, float scale, float *out) {
    const __m256 scaling = _mm256_set1_ps(scale);
    int c = 0;
    for (; c + 32 <= columns; c += 32) {
        __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps(), s2 = _mm256_setzero_ps(), s3 = _mm256_setzero_ps();
        for (int t = 0; t < count; t++) {
            __m256 factor = _mm256_broadcast_ss(x + t);
            const float *row = m + (size_t)t * stride + c;
            s0 = _mm256_fmadd_ps(factor, _mm256_loadu_ps(row), s0);
            s1 = _mm256_fmadd_ps(factor, _mm256_loadu_ps(row + 8), s1);
            s2 = _mm256_fmadd_ps(factor, _mm256_loadu_ps(row + 16), s2);
            s3 = _mm256_fmadd_ps(factor, _mm256_loadu_ps(row + 24), s3);
        }
        _mm256_storeu_ps(out + c, _mm256_mul_ps(s0, scaling));
        _mm256_storeu_ps(out + c + 8, _mm256_mul_ps(s1, scaling));
        _mm256_storeu_ps(out + c + 16, _mm256_mul_ps(s2, scaling));
        _mm256_storeu_ps(out + c + 24, _mm256_mul_ps(s3, scaling));
    }
    for (; c < columns; c += 8) {
        __m256 sum = _mm256_setzero_ps();
        for (int t = 0; t < count; t++) sum = _mm256_fmadd_ps(_mm256_broadcast_ss(x + t), _mm256_loadu_ps(m + (size_t)t * stride + c), sum);
        _mm256_storeu_ps(out + c, _mm256_mul_ps(sum, scaling));
    }
}

AVX2 static void avx2_attention(int length, int head_dim, float scale, const float *q, const float *k, const float *v, int ld,
                                float *context, int ldc, float *scratch) {
    int padded = (length + 7) & ~7;
    float *keys = scratch;  // kᵀ: head_dim rows of `padded` keys, zero beyond `length`
    float *scores = scratch + (size_t)padded * head_dim;
    for (int d = 0; d < head_dim; d++) {
        for (int j = 0; j < length; j++) keys[(size_t)d * padded + j] = k[(size_t)j * ld + d];
        for (int j = length; j < padded; j++) keys[(size_t)d * padded + j] = 0;
    }
    for (int i = 0; i < length; i++) {
        avx2_vector_times_matrix(q + (size_t)i * ld, head_dim, keys, (size_t)padded, padded, scale, scores);
        avx2_softmax(scores, length);
        avx2_vector_times_matrix(scores, length, v, (size_t)ld, head_dim, 1.0f, context + (size_t)i * ldc);
    }
}

#else  // not x86-64: the portable path only

int hearth_kernel_path_supported(int path) { return path == HEARTH_KERNEL_PORTABLE; }
int hearth_kernel_best_path(void) { return HEARTH_KERNEL_PORTABLE; }

#endif

// MARK: - Entry points

int hearth_linear_accumulate(int path, int m, int n, int k, const float *a, int lda, const uint16_t *packed, float *c, int ldc) {
    if (!hearth_kernel_path_supported(path) || n % PANEL != 0 || m < 0 || n < 0 || k < 0) return 0;
    if (m == 0) return 1;
    switch (path) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    case HEARTH_KERNEL_AVX512: blocked_linear(avx512_row_blocks, 12, m, n, k, a, lda, packed, c, ldc); return 1;
    case HEARTH_KERNEL_AVX2: blocked_linear(avx2_row_blocks, 6, m, n, k, a, lda, packed, c, ldc); return 1;
#endif
    default: portable_linear(m, n, k, a, lda, packed, c, ldc); return 1;
    }
}

int hearth_attention(int path, int length, int head_dim, float scale, const float *q, const float *k, const float *v, int ld,
                     float *context, int ldc, float *scratch) {
    if (!hearth_kernel_path_supported(path) || head_dim % 8 != 0 || head_dim <= 0 || length <= 0) return 0;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    // Attention is a small share of the work; the AVX-512 path runs the AVX2 code.
    if (path != HEARTH_KERNEL_PORTABLE) {
        avx2_attention(length, head_dim, scale, q, k, v, ld, context, ldc, scratch);
        return 1;
    }
#endif
    portable_attention(length, head_dim, scale, q, k, v, ld, context, ldc, scratch + (size_t)((length + 7) & ~7) * (size_t)head_dim);
    return 1;
}

int hearth_gelu(int path, float *x, long count) {
    if (!hearth_kernel_path_supported(path) || count < 0) return 0;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (path != HEARTH_KERNEL_PORTABLE) {  // GELU is a small share too: AVX2 code on both paths
        avx2_gelu(x, count);
        return 1;
    }
#endif
    for (long i = 0; i < count; i++) x[i] = scalar_gelu(x[i]);
    return 1;
}
