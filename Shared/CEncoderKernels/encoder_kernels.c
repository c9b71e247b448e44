#include "encoder_kernels.h"

#include <stddef.h>

enum { PANEL = 32, MAX_ROWS = 12 };

int hearth_linear_pack(int n, int k, const float *w, float *packed) {
    if (n % PANEL != 0 || n < 0 || k < 0) return 0;
    for (int j = 0; j < n; j++) {
        float *panel = packed + (size_t)(j / PANEL) * k * PANEL + j % PANEL;
        const float *row = w + (size_t)j * k;
        for (int p = 0; p < k; p++) panel[(size_t)p * PANEL] = row[p];
    }
    return 1;
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

// Compiled for AVX-512 function by function, so the target needs no special build flags and the
// binary keeps running on older CPUs (callers check `hearth_linear_supported` first).
#define AVX512 __attribute__((target("avx512f,fma")))
// The row loops must be unrolled for the accumulator arrays to live in registers: left as loops,
// every multiply-add loads and stores its accumulator on the stack, at a third of the speed.
#define UNROLLED _Pragma("clang loop unroll(full)")

// `ROWS` rows of A against one 32-column panel. The 2·ROWS accumulators stay in registers for
// the whole k loop; each step reads one contiguous 128-byte row of the panel (a stream the
// hardware prefetcher follows) and broadcasts one value of A per row.
#define ROW_BLOCK(ROWS)                                                                          \
    AVX512 static void row_block_##ROWS(int k, const float *a, int lda, const float *panel,     \
                                        float *c, int ldc) {                                     \
        __m512 low[ROWS], high[ROWS];                                                            \
        UNROLLED for (int r = 0; r < ROWS; r++) {                                                         \
            low[r] = _mm512_setzero_ps();                                                        \
            high[r] = _mm512_setzero_ps();                                                       \
        }                                                                                        \
        for (int p = 0; p < k; p++) {                                                            \
            __m512 w0 = _mm512_loadu_ps(panel + (size_t)p * PANEL);                              \
            __m512 w1 = _mm512_loadu_ps(panel + (size_t)p * PANEL + 16);                         \
            UNROLLED for (int r = 0; r < ROWS; r++) {                                                     \
                __m512 x = _mm512_set1_ps(a[(size_t)r * lda + p]);                               \
                low[r] = _mm512_fmadd_ps(x, w0, low[r]);                                         \
                high[r] = _mm512_fmadd_ps(x, w1, high[r]);                                       \
            }                                                                                    \
        }                                                                                        \
        UNROLLED for (int r = 0; r < ROWS; r++) {                                                         \
            float *out = c + (size_t)r * ldc;                                                    \
            _mm512_storeu_ps(out, _mm512_add_ps(_mm512_loadu_ps(out), low[r]));                  \
            _mm512_storeu_ps(out + 16, _mm512_add_ps(_mm512_loadu_ps(out + 16), high[r]));       \
        }                                                                                        \
    }

ROW_BLOCK(1)
ROW_BLOCK(2)
ROW_BLOCK(3)
ROW_BLOCK(4)
ROW_BLOCK(5)
ROW_BLOCK(6)
ROW_BLOCK(7)
ROW_BLOCK(8)
ROW_BLOCK(9)
ROW_BLOCK(10)
ROW_BLOCK(11)
ROW_BLOCK(12)

typedef void (*RowBlock)(int, const float *, int, const float *, float *, int);
static const RowBlock row_blocks[MAX_ROWS + 1] = {
    0, row_block_1, row_block_2, row_block_3, row_block_4, row_block_5, row_block_6,
    row_block_7, row_block_8, row_block_9, row_block_10, row_block_11, row_block_12,
};

int hearth_linear_supported(void) {
    static int supported = -1;
    if (supported < 0) {
        __builtin_cpu_init();
        supported = __builtin_cpu_supports("avx512f") ? 1 : 0;
    }
    return supported;
}

int hearth_linear_accumulate(int m, int n, int k, const float *a, int lda, const float *packed,
                             float *c, int ldc) {
    if (!hearth_linear_supported() || n % PANEL != 0 || m < 0 || k < 0) return 0;
    if (m == 0) return 1;
    // Rows split into equal blocks of at most MAX_ROWS (10 rows: 5 + 5, not 8 + 2), so that no
    // block is left with a few rows that still stream the whole panel.
    int blocks = (m + MAX_ROWS - 1) / MAX_ROWS;
    int rows_per_block = (m + blocks - 1) / blocks;
    // Panels outside, rows inside: a panel (k × 128 bytes) comes from memory once and is then
    // served from cache to every block of rows.
    for (int j = 0; j < n; j += PANEL) {
        const float *panel = packed + (size_t)j * k;
        for (int i = 0; i < m; i += rows_per_block) {
            int rows = m - i < rows_per_block ? m - i : rows_per_block;
            row_blocks[rows](k, a + (size_t)i * lda, lda, panel, c + (size_t)i * ldc + j, ldc);
        }
    }
    return 1;
}

#else

int hearth_linear_supported(void) { return 0; }

int hearth_linear_accumulate(int m, int n, int k, const float *a, int lda, const float *packed,
                             float *c, int ldc) {
    (void)m; (void)n; (void)k; (void)a; (void)lda; (void)packed; (void)c; (void)ldc;
    return 0;
}

#endif
