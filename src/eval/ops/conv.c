/* Conv, ConvTranspose and ConvInteger over any number of spatial axes. Conv multiplies
 * the weights by the padded input seen through two offset tables (one per depth row of
 * im2col, one per output position), packed straight into the GEMM's panels; ConvTranspose
 * is a GEMM into columns scattered back by the same tables (col2im). */
#include <stdlib.h>
#include <string.h>

#include "conv.h"
#include "geometry.h"
#include "eval/simd/cpu.h"
#include "eval/simd/dconv.h"
#include "eval/simd/gemm.h"
#include "eval/simd/transpose.h"
#include "eval/kernel.h"
#include "eval/threads.h"
#include "elementwise.h"

#if OX_X86
#include <immintrin.h>
#endif

static int64_t count_of(int n, const int64_t *dims)
{
	return ox_shape_count(n, dims);
}

/* Fills v[0..count) with sum(idx[i] * step[i]) over every index of dims, in row-major
 * order: the flat offsets of a strided walk through an N-D box. A whole innermost run at
 * a time: the per-element odometer was a few percent of a small convolution's time. */
static void offsets(int n, const int64_t *dims, const int64_t *step, int64_t *v)
{
	int64_t idx[OX_MAX_RANK] = {0}, cur = 0, count = count_of(n, dims);
	int64_t last = n ? dims[n - 1] : 1, s = n ? step[n - 1] : 0;
	for (int64_t q = 0; q < count; q += last) {
		for (int64_t j = 0; j < last; j++)
			v[q + j] = cur + j * s;
		for (int i = n - 2; i >= 0; i--) {
			if (++idx[i] < dims[i]) {
				cur += step[i];
				break;
			}
			cur -= step[i] * (dims[i] - 1);
			idx[i] = 0;
		}
	}
}

static void *alloc_n(int64_t n, size_t size)
{
	if (n < 0 || (uint64_t)n > SIZE_MAX / 2 / size)
		return NULL;
	return malloc(n ? (size_t)n * size : 1);
}

/* ---- the padded input and the im2col tables -------------------------------------- */

/* What Conv reads: for each image, the input with its pads made real (zeros), of spatial
 * shape pdim (ps elements per channel); depth row kk of im2col is channel
 * kk / kvol at tap kk % kvol, starting at off[kk]; output position j reads pos[j] past it. */
typedef struct tables {
	int64_t pdim[OX_MAX_RANK], pstep[OX_MAX_RANK], ps;
	bool padded;
	int64_t kvol, depth, npos; /* taps, depth rows (cin/group * taps), output positions */
	int64_t *off, *pos;
	int64_t split; /* or 0; else pad_input stores each padded row as its even columns, then
			* its odd ones from this column on (conv_direct's reads at stride 2) */
} tables;

static void tables_free(tables *t)
{
	free(t->off);
	free(t->pos);
}

static int tables_new(const ox_conv_geom *g, tables *t)
{
	memset(t, 0, sizeof *t);
	int n = g->nsp;
	for (int i = 0; i < n; i++) {
		t->pdim[i] = g->in[i] + g->pad0[i] + g->pad1[i];
		t->padded |= g->pad0[i] || g->pad1[i];
	}
	t->ps = count_of(n, t->pdim);
	t->kvol = count_of(n, g->kernel);
	t->npos = count_of(n, g->out);
	int64_t cin_g = g->cin / g->group;
	if (t->ps < 0 || t->kvol < 0 || t->npos < 0 || (t->kvol && cin_g > OX_MAX_ELEMENTS / t->kvol) ||
	    (t->ps && g->cin > OX_MAX_ELEMENTS / t->ps))
		return -1; /* the padded input or the depth would be beyond any tensor */
	t->depth = cin_g * t->kvol;
	for (int i = n - 1; i >= 0; i--)
		t->pstep[i] = i == n - 1 ? 1 : t->pstep[i + 1] * t->pdim[i + 1];
	if (!(t->off = alloc_n(t->depth, sizeof(int64_t))))
		return -1;
	int64_t step[OX_MAX_RANK] = {0};
	for (int i = 0; i < n; i++)
		step[i] = g->dil[i] * t->pstep[i];
	offsets(n, g->kernel, step, t->off);
	for (int64_t c = 1; c < cin_g; c++)
		for (int64_t q = 0; q < t->kvol; q++)
			t->off[c * t->kvol + q] = c * t->ps + t->off[q];
	return 0;
}

/* t->pos: the offsets in the padded input of the output's positions over its first axes
 * (nsp: every position; nsp - 1: where each row starts, all the direct convolution reads:
 * a table of every position was the larger part of a run's serial work at 2 threads). */
static int tables_pos(const ox_conv_geom *g, tables *t, int axes)
{
	int64_t step[OX_MAX_RANK] = {0};
	for (int i = 0; i < g->nsp; i++)
		step[i] = g->stride[i] * t->pstep[i];
	if (!(t->pos = alloc_n(count_of(axes, g->out), sizeof(int64_t))))
		return -1;
	offsets(axes, g->out, step, t->pos);
	return 0;
}

/* Copies nch channels of x (spatial shape g->in) into xp (shape t->pdim) between zeros,
 * one innermost row at a time (split by ox_dconv_split_row when t->split); es is the element size.
 * With zero false the zeros are there already: xp was padded before with the same
 * geometry, and a copy writes only inside the pads (the same buffer used for each image,
 * or each channel of a depthwise convolution, clears its pads once). */
static void pad_input(const ox_conv_geom *g, const tables *t, int64_t nch, const void *x, void *xp, size_t es,
		      bool zero)
{
	int n = g->nsp;
	int64_t rows = count_of(n - 1, g->in), len = g->in[n - 1], base = 0;
	for (int i = 0; i < n; i++)
		base += g->pad0[i] * t->pstep[i];
	if (zero && t->padded) /* without pads the rows cover it all */
		memset(xp, 0, (size_t)(nch * t->ps) * es);
	for (int64_t c = 0; c < nch; c++) {
		int64_t idx[OX_MAX_RANK] = {0}, at = c * t->ps + base;
		for (int64_t r = 0; r < rows; r++) {
			const char *src = (const char *)x + (size_t)((c * rows + r) * len) * es;
			if (t->split) {
				float *row = (float *)xp + at - g->pad0[n - 1];
				ox_dconv_split_row(ox_cpu_level(), (const float *)src, len, g->pad0[n - 1], row,
						   row + t->split); /* exact at every level */
			} else {
				memcpy((char *)xp + (size_t)at * es, src, (size_t)len * es);
			}
			for (int i = n - 2; i >= 0; i--) { /* the next row: an odometer over the outer axes */
				at += t->pstep[i];
				if (++idx[i] < g->in[i])
					break;
				at -= t->pstep[i] * g->in[i];
				idx[i] = 0;
			}
		}
	}
}

/* pad_input of float channels spread over the current pool's threads, runs of channels
 * a task: the copy of a whole image was the largest serial part of a convolution at two
 * threads (shufflenet's first one, 3 channels of 224x224). Pieces below PAD_MIN floats
 * are not worth a task. */
enum { PAD_MIN = 1 << 14 };

typedef struct pad_job {
	const ox_conv_geom *g;
	const tables *t;
	const float *x;
	float *xp;
	int64_t nch, per, ins;
	bool zero;
} pad_job;

static void pad_task(void *ctx, int64_t i)
{
	const pad_job *P = ctx;
	int64_t c0 = i * P->per, nc = P->nch - c0 < P->per ? P->nch - c0 : P->per;
	pad_input(P->g, P->t, nc, P->x + c0 * P->ins, P->xp + c0 * P->t->ps, sizeof(float), P->zero);
}

static void pad_spread(const ox_conv_geom *g, const tables *t, int64_t nch, const float *x, float *xp, bool zero)
{
	int64_t ins = count_of(g->nsp, g->in), threads = ox_threads();
	int64_t tasks = threads <= 1 ? 1 : nch * t->ps / PAD_MIN;
	if (tasks > 4 * threads)
		tasks = 4 * threads;
	if (tasks > nch)
		tasks = nch;
	if (tasks <= 1) {
		pad_input(g, t, nch, x, xp, sizeof(float), zero);
		return;
	}
	pad_job P = {g, t, x, xp, nch, (nch + tasks - 1) / tasks, ins, zero};
	ox_parallel_for((nch + P.per - 1) / P.per, pad_task, &P);
}

/* ---- packing im2col panels ------------------------------------------------------- */

typedef struct im2col {
	const float *x;
	const int64_t *off, *pos;
} im2col;

static void panel_scalar(const im2col *t, float *dst, int64_t j, int cols, int64_t k0, int64_t kc, int w)
{
	const int64_t *pos = t->pos + j;
	for (int64_t kk = 0; kk < kc; kk++, dst += w) {
		const float *src = t->x + t->off[k0 + kk];
		for (int c = 0; c < cols; c++)
			dst[c] = src[pos[c]];
		for (int c = cols; c < w; c++)
			dst[c] = 0;
	}
}

#if OX_X86
enum { MAXRUN = 4 };

/* The runs of consecutive positions in one 16-lane half of a panel, as masked loads:
 * lane l of run r reads src[base[r] + l]. False when there are more than MAXRUN. */
static bool half_runs(const int64_t *pos, int lanes, __mmask16 *mask, int64_t *base, int *nrun)
{
	*nrun = 0;
	for (int c = 0; c < lanes;) {
		int e = c + 1;
		while (e < lanes && pos[e] == pos[e - 1] + 1)
			e++;
		if (*nrun == MAXRUN)
			return false;
		mask[*nrun] = (__mmask16)(((1u << (e - c)) - 1) << c);
		base[(*nrun)++] = pos[c] - c;
		c = e;
	}
	return true;
}

/* The runs of both halves of a panel cols wide, of half lanes each; false when either half
 * has too many. */
static bool panel_runs(const int64_t *pos, int cols, int half, __mmask16 m[2][MAXRUN], int64_t b[2][MAXRUN],
		       int nr[2])
{
	int l0 = cols < half ? cols : half;
	return half_runs(pos, l0, m[0], b[0], &nr[0]) && half_runs(pos + half, cols - l0, m[1], b[1], &nr[1]);
}

/* A 32-wide panel as a few masked loads per depth row, when the output positions come in
 * runs (stride 1 along the last axis); false to leave it to the gather. */
OX_TARGET_AVX512 static bool panel_avx512(const im2col *t, float *dst, int64_t j, int cols, int64_t k0,
					  int64_t kc)
{
	__mmask16 m[2][MAXRUN];
	int64_t b[2][MAXRUN];
	int nr[2];
	if (!panel_runs(t->pos + j, cols, 16, m, b, nr))
		return false;
	for (int64_t kk = 0; kk < kc; kk++, dst += 32) {
		const float *src = t->x + t->off[k0 + kk];
		for (int h = 0; h < 2; h++) {
			__m512 v = _mm512_setzero_ps();
			for (int r = 0; r < nr[h]; r++)
				v = _mm512_mask_loadu_ps(v, m[h][r], src + b[h][r]);
			_mm512_store_ps(dst + 16 * h, v);
		}
	}
	return true;
}

/* The same for a 16-wide panel in two halves of 8 lanes (AVX2 masked loads, which leave
 * the other lanes zero). */
OX_TARGET_AVX2 static bool panel_avx2(const im2col *t, float *dst, int64_t j, int cols, int64_t k0, int64_t kc)
{
	__mmask16 mb[2][MAXRUN];
	__m256i m[2][MAXRUN];
	int64_t b[2][MAXRUN];
	int nr[2];
	if (!panel_runs(t->pos + j, cols, 8, mb, b, nr))
		return false;
	const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
	for (int h = 0; h < 2; h++)
		for (int r = 0; r < nr[h]; r++)
			m[h][r] = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(mb[h][r]), bit), bit);
	for (int64_t kk = 0; kk < kc; kk++, dst += 16) {
		const float *src = t->x + t->off[k0 + kk];
		for (int h = 0; h < 2; h++) {
			__m256 v = _mm256_setzero_ps();
			for (int r = 0; r < nr[h]; r++)
				v = _mm256_or_ps(v, _mm256_maskload_ps(src + b[h][r], m[h][r]));
			_mm256_store_ps(dst + 8 * h, v);
		}
	}
	return true;
}
#endif

static void pack_im2col(const ox_gemm_src *s, float *dst, int64_t j0, int64_t nj, int64_t k0, int64_t kc, int w)
{
	const im2col *t = s->ctx;
	for (int64_t p = 0; p < nj; p += w, dst += w * kc) {
		int cols = nj - p < w ? (int)(nj - p) : w;
#if OX_X86
		if (w == 32 && ox_cpu_level() >= OX_CPU_AVX512 && panel_avx512(t, dst, j0 + p, cols, k0, kc))
			continue;
		if (w == 16 && ox_cpu_level() >= OX_CPU_AVX2 && panel_avx2(t, dst, j0 + p, cols, k0, kc))
			continue;
#endif
		panel_scalar(t, dst, j0 + p, cols, k0, kc, w);
	}
}

/* ---- Conv, float ----------------------------------------------------------------- */

/* Rows of y (n of them, each len long) start as the bias, or are left to be written when
 * there is none; returns the beta that the GEMM then needs. */
static float start_rows(float *y, const float *bias, int64_t n, int64_t len)
{
	if (!bias)
		return 0;
	for (int64_t r = 0; r < n; r++)
		for (int64_t j = 0; j < len; j++)
			y[r * len + j] = bias[r];
	return 1;
}

/* y[r*n + i] += w * x[pos[r*n] + i*st] for every row r < rows and i < n: one tap of
 * depthwise convolution over a whole channel, compiled for each CPU level so that the
 * compiler vectorizes the contiguous case at its width. */
typedef void (*tap_fn)(float *y, const float *x, const int64_t *pos, float w, int64_t rows, int64_t n, int64_t st);

#define TAP_ROWS(name, target)                                                                  \
	target static void name(float *y, const float *x, const int64_t *pos, float w, int64_t rows, \
				int64_t n, int64_t st)                                             \
	{                                                                                       \
		for (int64_t r = 0; r < rows; r++, y += n) {                                    \
			const float *s = x + pos[r * n];                                        \
			if (st == 1)                                                            \
				for (int64_t i = 0; i < n; i++)                                 \
					y[i] += w * s[i];                                       \
			else                                                                    \
				for (int64_t i = 0; i < n; i++)                                 \
					y[i] += w * s[i * st];                                  \
		}                                                                               \
	}
TAP_ROWS(tap_rows, )
#if OX_X86
TAP_ROWS(tap_rows_avx2, OX_TARGET_AVX2)
TAP_ROWS(tap_rows_avx512, OX_TARGET_AVX512)
#endif

static tap_fn tap_at(int level)
{
	int l = ox_cpu_level() < level ? ox_cpu_level() : level;
#if OX_X86
	if (l >= OX_CPU_AVX512)
		return tap_rows_avx512;
	if (l >= OX_CPU_AVX2)
		return tap_rows_avx2;
#endif
	(void)l;
	return tap_rows;
}

#if OX_X86
/* Inputs p[0], p[st], ... of n outputs (at most 16), as one vector: stride 1 a masked
 * load, stride 2 the even lanes of two (masked: nothing past the last input is read). */
OX_TARGET_AVX512 static inline __m512 taps_avx512(const float *p, int64_t n, int64_t st)
{
	if (st == 1)
		return _mm512_maskz_loadu_ps(n >= 16 ? 0xffff : (__mmask16)((1u << n) - 1), p);
	int64_t need = 2 * (n < 16 ? n : 16) - 1;
	__mmask16 m0 = need >= 16 ? 0xffff : (__mmask16)((1u << need) - 1);
	__mmask16 m1 = need > 16 ? (__mmask16)((1u << (need - 16)) - 1) : 0;
	const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
	return _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(m0, p), even, _mm512_maskz_loadu_ps(m1, p + 16));
}

static inline __mmask16 low_lanes(int64_t n)
{
	return n >= 16 ? 0xffff : (__mmask16)((1u << n) - 1);
}

/* Two rows of n <= 8 outputs as one vector, s0's in lanes [0, n), s1's in [n, 2n): stride
 * 1 a masked load of each (the second moved up n lanes by its address), stride 2 the even
 * lanes of both. As in taps_avx512, nothing past a row's last input is read. */
OX_TARGET_AVX512 static inline __m512 taps2_avx512(const float *s0, const float *s1, int64_t n, int64_t st)
{
	if (st == 1)
		return _mm512_mask_loadu_ps(_mm512_maskz_loadu_ps(low_lanes(n), s0), low_lanes(2 * n) & ~low_lanes(n),
					    s1 - n);
	__m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
	__mmask16 hi = _mm512_cmpge_epi32_mask(lane, _mm512_set1_epi32((int)n));
	/* lane i < n takes a[2i]; lane n + i takes b[2i] (index 16 + 2i of the pair) */
	__m512i idx = _mm512_mask_add_epi32(_mm512_add_epi32(lane, lane), hi, _mm512_add_epi32(lane, lane),
					    _mm512_set1_epi32((int)(16 - 2 * n)));
	__mmask16 m = low_lanes(2 * n - 1);
	return _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(m, s0), idx, _mm512_maskz_loadu_ps(m, s1));
}

/* U vectors of outputs at once, each summed over every tap in its own register (one
 * chain each, in tap order, so the sums do not depend on U): vector u holds the outputs
 * [i, i + 16) of row r0 + u, or with PAIR rows r0 + 2u and r0 + 2u + 1 whole. ST is the
 * stride (1 or 2); each sum starts at b (the channel's bias, or 0), so y needs no fill
 * pass first and is only written. */
OX_TARGET_AVX512 static inline __attribute__((always_inline)) void
dw_vectors(const int U, const bool PAIR, const int64_t ST, const tables *t, const float *x, const float *w, float b,
	   float *y, int64_t r0, int64_t n, int64_t i)
{
	__m512 acc[4];
	const float *s0[4], *s1[4];
	__mmask16 m = low_lanes(PAIR ? 2 * n : n - i);
	int64_t at[4];
	for (int u = 0; u < U; u++) {
		int64_t row = r0 + (PAIR ? 2 * u : u);
		at[u] = row * n + i;
		s0[u] = x + t->pos[row * n] + i * ST;
		s1[u] = PAIR ? x + t->pos[(row + 1) * n] : NULL;
		acc[u] = _mm512_set1_ps(b);
	}
	for (int64_t q = 0; q < t->kvol; q++) {
		__m512 wq = _mm512_set1_ps(w[q]);
		int64_t o = t->off[q];
		for (int u = 0; u < U; u++)
			acc[u] = _mm512_fmadd_ps(wq, PAIR ? taps2_avx512(s0[u] + o, s1[u] + o, n, ST)
							   : taps_avx512(s0[u] + o, n - i, ST),
						 acc[u]);
	}
	for (int u = 0; u < U; u++)
		_mm512_mask_storeu_ps(y + at[u], m, acc[u]);
}

/* Rows [r, rows) (PAIR: two at a time, rows - r even), four vectors at a time so that
 * four chains of multiply-adds are in flight. */
OX_TARGET_AVX512 static inline __attribute__((always_inline)) void
dw_rows(const bool PAIR, const int64_t ST, const tables *t, const float *x, const float *w, float b, float *y,
	int64_t r, int64_t rows, int64_t n)
{
	int64_t per = PAIR ? 2 : 1;
	for (int64_t i = 0; i < (PAIR ? 1 : n); i += 16) {
		int64_t j = r;
		for (; j + 4 * per <= rows; j += 4 * per)
			dw_vectors(4, PAIR, ST, t, x, w, b, y, j, n, i);
		for (; j < rows; j += per)
			dw_vectors(1, PAIR, ST, t, x, w, b, y, j, n, i);
	}
}

/* Stride 1 or 2 along the last axis: 16 outputs at a time summed over every tap in a
 * register, so that each output is loaded and stored once; rows of 8 or fewer outputs
 * two to a vector, so that short rows (7 wide in shufflenet) fill most of its lanes. */
OX_TARGET_AVX512 static void depthwise_avx512(const tables *t, const float *x, const float *w, float b, float *y,
					      int64_t rows, int64_t n, int64_t st)
{
	int64_t pairs = n <= 8 ? rows / 2 * 2 : 0;
	if (st == 1) {
		dw_rows(true, 1, t, x, w, b, y, 0, pairs, n);
		dw_rows(false, 1, t, x, w, b, y, pairs, rows, n);
	} else {
		dw_rows(true, 2, t, x, w, b, y, 0, pairs, n);
		dw_rows(false, 2, t, x, w, b, y, pairs, rows, n);
	}
}
#endif

/* One output channel of a depthwise convolution: its bias b, then every tap's weight
 * times the input window, a whole channel at a time. */
static void depthwise_channel(const ox_conv_geom *g, const tables *t, int level, const float *x, const float *w,
			      float b, float *y)
{
	int64_t len = g->out[g->nsp - 1], st = g->stride[g->nsp - 1];
	int64_t rows = len ? t->npos / len : 0;
#if OX_X86
	if (st <= 2 && level >= OX_CPU_AVX512 && ox_cpu_level() >= OX_CPU_AVX512) {
		depthwise_avx512(t, x, w, b, y, rows, len, st);
		return;
	}
#endif
	for (int64_t i = 0; i < t->npos; i++)
		y[i] = b;
	tap_fn tap = tap_at(level);
	for (int64_t q = 0; q < t->kvol; q++)
		tap(y, x + t->off[q], t->pos, w[q], rows, len, st);
}

static bool is_pointwise(const ox_conv_geom *g)
{
	for (int i = 0; i < g->nsp; i++)
		if (g->kernel[i] != 1 || g->stride[i] != 1 || g->pad0[i] || g->pad1[i])
			return false;
	return true;
}

/* One group of one image: y (cout/group rows) from x (its cin/group channels, padded). */
static int conv_group_(int level, const ox_conv_geom *g, const tables *t, const float *x, const float *w,
		       const ox_gemm_packed *packed, const float *bias, float *y);

/* One group, then the residual res (y's layout, or NULL) and the activation while the
 * group's output is still in the caches. */
static int conv_group(int level, const ox_conv_geom *g, const tables *t, const float *x, const float *w,
		      const ox_gemm_packed *packed, const float *bias, const float *res, float *y, int act)
{
	int rc = conv_group_(level, g, t, x, w, packed, bias, y);
	for (int64_t i = 0; rc == 0 && res && i < g->cout / g->group * t->npos; i++)
		y[i] += res[i];
	if (rc == 0 && act == OX_ACT_RELU)
		ox_f32_loops_best()->relu(y, y, (size_t)(g->cout / g->group * t->npos), NULL);
	return rc;
}

static int conv_group_(int level, const ox_conv_geom *g, const tables *t, const float *x, const float *w,
		       const ox_gemm_packed *packed, const float *bias, float *y)
{
	int64_t m = g->cout / g->group;
	if (t->depth == t->kvol && !is_pointwise(g)) {
		for (int64_t c = 0; c < m; c++)
			depthwise_channel(g, t, level, x, w + c * t->kvol, bias ? bias[c] : 0.0f, y + c * t->npos);
		return 0;
	}
	float beta = start_rows(y, bias, m, t->npos);
	ox_gemm_src a = ox_gemm_a(w, t->depth, false), b;
	a.packed = packed;
	im2col ic = {x, t->off, t->pos};
	if (is_pointwise(g))
		b = ox_gemm_b(x, t->npos, false);
	else
		b = (ox_gemm_src){pack_im2col, NULL, 0, 0, &ic, NULL};
	return ox_sgemm_src(level, m, t->npos, t->depth, 1, &a, &b, beta, y, t->npos);
}

/* The input of group q of image xn as conv_group reads it. With pads, the whole image is
 * padded into xp at group 0, except when groups are single channels (depthwise): those are
 * padded one at a time into an xp of one channel, which stays in L1. */
static const float *group_input(const ox_conv_geom *g, const tables *t, const float *xn, float *xp, int64_t q,
				bool one, bool zero)
{
	int64_t cin_g = g->cin / g->group;
	if (!xp)
		return xn + q * cin_g * t->ps; /* no pads: ps is the input's own size */
	if (one)
		pad_input(g, t, 1, xn + q * count_of(g->nsp, g->in), xp, sizeof(float), zero);
	else if (q == 0)
		pad_input(g, t, g->cin, xn, xp, sizeof(float), zero);
	return one ? xp : xp + q * cin_g * t->ps;
}

/* Weights packed for the GEMM once per session (ox_conv_prepack): one packed A per
 * group, for products at level; data follows the header in the same block. */
typedef struct ox_conv_packed {
	int level;
	bool scaled; /* rows scaled: the tensor's own data are not these weights */
	bool direct; /* for the direct convolution (dconv.h): dc, per floats a group */
	int64_t group, cout_g, depth;
	float *dc;
	int64_t per;
	ox_gemm_packed g[];
} ox_conv_packed;

static bool packed_fits(const ox_conv_packed *pk, int level, const ox_conv_geom *g, const tables *t, bool direct)
{
	return pk && pk->direct == direct && pk->level == level && pk->group == g->group &&
	       pk->cout_g == g->cout / g->group && pk->depth == t->depth;
}

static const ox_gemm_packed *packed_for(const ox_conv_packed *pk, int level, const ox_conv_geom *g,
					 const tables *t, int64_t q)
{
	return packed_fits(pk, level, g, t, false) ? &pk->g[q] : NULL;
}

/* One group of one image, as a task: depthwise groups are many and each small, so they
 * are spread over the threads (the GEMM of the other kinds spreads itself). */
typedef struct conv_job {
	int level;
	const ox_conv_geom *g;
	const tables *t;
	const float *x, *w, *bias;
	const ox_conv_packed *pk;
	const float *res; /* added before the activation, or NULL */
	float *y;
	int act;
	int failed;
	int64_t step; /* conv_task: groups a task */
} conv_job;

/* The part of J's residual that image n and group q add, or NULL. */
static const float *res_at(const conv_job *J, int64_t n, int64_t q)
{
	const ox_conv_geom *g = J->g;
	return J->res ? J->res + (n * g->cout + q * (g->cout / g->group)) * J->t->npos : NULL;
}

/* Task i: groups [i * step, (i + 1) * step) of all the images' groups, with one padded
 * channel whose pads are cleared once for them all. */
static void conv_task(void *ctx, int64_t i)
{
	conv_job *J = ctx;
	const ox_conv_geom *g = J->g;
	int64_t cout_g = g->cout / g->group, ins = count_of(g->nsp, g->in), end = (i + 1) * J->step;
	float *xp = J->t->padded ? alloc_n(J->t->ps, sizeof(float)) : NULL;
	if (J->t->padded && !xp) {
		J->failed = 1;
		return;
	}
	for (int64_t u = i * J->step; u < end && u < g->batch * g->group; u++) {
		int64_t n = u / g->group, q = u % g->group;
		if (conv_group(J->level, g, J->t,
			       group_input(g, J->t, J->x + n * g->cin * ins, xp, q, true, u == i * J->step),
			       J->w + q * cout_g * J->t->depth, packed_for(J->pk, J->level, g, J->t, q),
			       J->bias ? J->bias + q * cout_g : NULL, res_at(J, n, q),
			       J->y + (n * g->cout + q * cout_g) * J->t->npos, J->act) < 0)
			J->failed = 1; /* any task may set it; only ever to 1 */
	}
	free(xp);
}

static int conv_serial(const conv_job *J)
{
	const ox_conv_geom *g = J->g;
	const tables *t = J->t;
	int64_t cout_g = g->cout / g->group, ins = count_of(g->nsp, g->in);
	bool one = g->cin / g->group == 1;
	float *xp = t->padded ? alloc_n((one ? 1 : g->cin) * t->ps, sizeof(float)) : NULL;
	int rc = t->padded && !xp ? -1 : 0;
	for (int64_t n = 0; n < g->batch && rc == 0; n++)
		for (int64_t q = 0; q < g->group && rc == 0; q++)
			rc = conv_group(J->level, g, t, group_input(g, t, J->x + n * g->cin * ins, xp, q, one, n == 0 && q == 0),
					J->w + q * cout_g * t->depth, packed_for(J->pk, J->level, g, t, q),
					J->bias ? J->bias + q * cout_g : NULL, res_at(J, n, q),
					J->y + (n * g->cout + q * cout_g) * t->npos, J->act);
	free(xp);
	return rc;
}

/* Whether conv_group takes the depthwise path: one input channel per group. */
static bool uses_depthwise(const ox_conv_geom *g, const tables *t)
{
	return t->depth == t->kvol && !is_pointwise(g);
}

/* The direct convolution's weights for J: the packed ones when they fit, else packed
 * now into *own (NULL when out of memory or when the packed ones are the only form). */
static const float *direct_weights(const conv_job *J, float **own)
{
	const ox_conv_geom *g = J->g;
	const ox_conv_packed *pk = J->pk;
	*own = NULL;
	if (packed_fits(pk, J->level, g, J->t, true))
		return pk->dc;
	if (pk && pk->scaled)
		return NULL; /* scaled weights exist only packed: a convolution they do not fit cannot run */
	int64_t cout_g = g->cout / g->group, per = ox_dconv_packed_floats(J->level, cout_g, J->t->depth);
	if (per > OX_MAX_ELEMENTS / g->group || !(*own = alloc_n(per * g->group, sizeof(float))))
		return NULL;
	for (int64_t q = 0; q < g->group; q++)
		ox_dconv_pack(J->level, J->w + q * cout_g * J->t->depth, cout_g, J->t->depth, NULL, *own + q * per);
	return *own;
}

#if OX_X86
/* ---- depthwise convolution of small images, sixteen channels at a time ----------------
 * One channel a group (shufflenet's 3x3 on 28 x 28 down to 7 x 7): the per-channel path
 * pads each channel and fills a few vectors of it, a fixed cost larger than its sums.
 * Sixteen channels turned round (ox_turn16) put one position of each in the lanes: a
 * window is then the same taps for every lane, each a multiply-add by the vector of the
 * sixteen channels' weights, in tap order from the bias, with 0 for a tap in the pads as
 * the padded copy has: the bits of depthwise_avx512. */

/* Images this way pays for: at most DW16_MAX_OUT outputs and DW16_MAX_IN inputs a
 * channel. Turning a channel round costs about what its taps do; on larger planes the
 * per-channel path's sums (a row of 28 is two vectors) cost less than both. CPU time, one
 * thread, ms, per-channel -> sixteen at once: 544 channels 7 x 7 s1 0.047 -> 0.021,
 * 272 of 14 x 14 s1 0.045 -> 0.027, 272 of 28 x 28 s2 0.061 -> 0.040, but 136 of 28 x 28
 * s1 0.051 -> 0.076. */
enum { DW16_MAX_OUT = 256, DW16_MAX_IN = 1024 };

static bool uses_depthwise16(int level, const ox_conv_geom *g, const tables *t)
{
	/* strides of 1 and 2 along the rows: those depthwise_avx512 takes, whose bits these are */
	return g->nsp == 2 && g->cin == g->group && g->cout == g->group && g->group >= 16 && g->stride[1] <= 2 &&
	       t->depth == t->kvol &&
	       !is_pointwise(g) && level >= OX_CPU_AVX512 && ox_cpu_level() >= OX_CPU_AVX512 &&
	       count_of(2, g->in) <= DW16_MAX_IN && t->npos <= DW16_MAX_OUT;
}

/* Channels [c0, c0 + nc) of image n, with the residual and activation; buf holds the
 * turned input, output and weights. */
OX_TARGET_AVX512 static void dw16_block(const conv_job *J, int64_t n, int64_t c0, int nc, float *buf)
{
	const ox_conv_geom *g = J->g;
	int64_t ih = g->in[0], iw = g->in[1], ow = g->out[1], kh = g->kernel[0], kw = g->kernel[1];
	int64_t ins = ih * iw, npos = J->t->npos, kvol = J->t->kvol;
	float *u = buf + ins * 16, *wv = u + npos * 16, bias[16];
	float *yn = J->y + (n * g->cout + c0) * npos;
	ox_turn16((float *)(J->x + (n * g->cin + c0) * ins), ins, nc, buf, ins, false); /* only read */
	for (int c = 0; c < 16; c++) {
		for (int64_t q = 0; q < kvol; q++)
			wv[q * 16 + c] = c < nc ? J->w[(c0 + c) * kvol + q] : 0.0f;
		bias[c] = c < nc && J->bias ? J->bias[c0 + c] : 0.0f;
	}
	__m512 b = _mm512_loadu_ps(bias), zero = _mm512_setzero_ps();
	int64_t dh = g->dil[0], dw = g->dil[1];
	for (int64_t oy = 0; oy < g->out[0]; oy++) {
		int64_t y0 = oy * g->stride[0] - g->pad0[0];
		bool rows_in = y0 >= 0 && y0 + (kh - 1) * dh < ih;
		for (int64_t ox = 0; ox < ow; ox++, u += 16) {
			int64_t x0 = ox * g->stride[1] - g->pad0[1];
			__m512 acc = b;
			if (rows_in && x0 >= 0 && x0 + (kw - 1) * dw < iw) { /* no tap in the pads */
				const float *at = buf + (y0 * iw + x0) * 16, *wq = wv;
				for (int64_t ky = 0; ky < kh; ky++, at += dh * iw * 16)
					for (int64_t kx = 0; kx < kw; kx++, wq += 16)
						acc = _mm512_fmadd_ps(_mm512_loadu_ps(wq), _mm512_loadu_ps(at + kx * dw * 16), acc);
			} else {
				for (int64_t ky = 0; ky < kh; ky++) {
					int64_t iy = y0 + ky * dh;
					for (int64_t kx = 0; kx < kw; kx++) {
						int64_t ix = x0 + kx * dw;
						__m512 v = iy >= 0 && iy < ih && ix >= 0 && ix < iw
								   ? _mm512_loadu_ps(buf + (iy * iw + ix) * 16)
								   : zero;
						acc = _mm512_fmadd_ps(_mm512_loadu_ps(wv + (ky * kw + kx) * 16), v, acc);
					}
				}
			}
			_mm512_storeu_ps(u, acc);
		}
	}
	u = buf + ins * 16;
	ox_turn16(yn, npos, nc, u, npos, true);
	const float *res = res_at(J, n, c0);
	for (int64_t i = 0; res && i < nc * npos; i++)
		yn[i] += res[i];
	if (J->act == OX_ACT_RELU)
		ox_f32_loops_best()->relu(yn, yn, (size_t)(nc * npos), NULL);
}

/* Task i: blocks of 16 channels J->step at a time, over all images. */
static void dw16_task(void *ctx, int64_t i)
{
	conv_job *J = ctx;
	const ox_conv_geom *g = J->g;
	int64_t blocks = (g->group + 15) / 16, end = (i + 1) * J->step;
	float *buf = alloc_n((count_of(2, g->in) + J->t->npos + J->t->kvol) * 16, sizeof(float));
	if (!buf) {
		J->failed = 1;
		return;
	}
	for (int64_t v = i * J->step; v < end && v < g->batch * blocks; v++) {
		int64_t c0 = v % blocks * 16;
		dw16_block(J, v / blocks, c0, g->group - c0 < 16 ? (int)(g->group - c0) : 16, buf);
	}
	free(buf);
}

static int depthwise16(conv_job *J)
{
	int64_t units = J->g->batch * ((J->g->group + 15) / 16), tasks = 4 * ox_threads();
	J->step = units > tasks ? (units + tasks - 1) / tasks : 1;
	ox_parallel_for((units + J->step - 1) / J->step, dw16_task, J);
	return J->failed ? -1 : 0;
}
#endif

/* The straight tiles of the direct convolution (dconv.h) want a row's positions
 * adjacent in x. At stride 2 along rows (the first convolution of a CNN: few input
 * channels, the largest output) they are made so by reading the input split (pad_input,
 * t->split): a tap then reads one half of each row at a run of adjacent columns. Whether
 * the convolution of J, with rows of len outputs, goes that way. */
static bool split_wanted(const conv_job *J, int64_t len)
{
	const ox_conv_geom *g = J->g;
	if (is_pointwise(g) || g->stride[g->nsp - 1] != 2)
		return false;
	ox_dconv probe = {.depth = J->t->depth, .rows = J->t->npos / len, .len = len, .stride = 1,
			  .cout = g->cout / g->group};
	return ox_dconv_straight(J->level, &probe);
}

/* s (a copy of conv_direct's tables) turned into those of the split input, the offsets
 * in an array of its own: a tap's column parity picks the half, and a row's outputs read
 * adjacent columns of it (from where the row starts, as before). */
static int split_tables(const ox_conv_geom *g, tables *s)
{
	int n = g->nsp;
	int64_t kw = g->kernel[n - 1], d = g->dil[n - 1];
	int64_t *off = alloc_n(s->depth, sizeof(int64_t));
	if (!off)
		return -1;
	s->split = (s->pdim[n - 1] + 1) / 2;
	for (int64_t k = 0; k < s->depth; k++) {
		int64_t e = k % kw * d; /* the tap's column past the output's first */
		off[k] = s->off[k] - e + (e % 2 ? s->split : 0) + e / 2;
	}
	s->off = off;
	return 0;
}

/* Every image and group of J by the direct convolution with weights wp, the input read
 * through t, copied into xp first when xp is given; st: neighbours' distance in a row. */
static void direct_images(const conv_job *J, const tables *t, const float *wp, float *xp, int64_t len, int64_t st,
			  ox_dconv *cs)
{
	const ox_conv_geom *g = J->g;
	int64_t cin_g = g->cin / g->group, cout_g = g->cout / g->group, ins = count_of(g->nsp, g->in);
	int64_t per = ox_dconv_packed_floats(J->level, cout_g, t->depth);
	for (int64_t n = 0; n < g->batch; n++) {
		const float *xn = J->x + n * g->cin * ins;
		if (xp) {
			pad_spread(g, t, g->cin, xn, xp, n == 0);
			if (n == 0)
				memset(xp + g->cin * t->ps, 0, (size_t)ox_dconv_slack(J->level, st) * sizeof(float));
			xn = xp;
		}
		for (int64_t q = 0; q < g->group; q++)
			cs[q] = (ox_dconv){xn + q * cin_g * t->ps, t->off, t->pos, t->depth, t->npos / len, len, st,
					   wp + q * per, cout_g, J->bias ? J->bias + q * cout_g : NULL, res_at(J, n, q),
					   J->y + (n * g->cout + q * cout_g) * t->npos, J->act == OX_ACT_RELU};
		ox_dconv_run_groups(J->level, cs, g->group); /* one parallel region for all groups */
	}
}

/* Every image and group by the direct convolution: the input padded (with the slack the
 * tiles of short rows read past the end) or split unless it can be read where it is. */
static int conv_direct(const conv_job *J)
{
	const ox_conv_geom *g = J->g;
	tables t = *J->t;
	bool flat = is_pointwise(g); /* positions contiguous: one row of them all */
	int64_t len = flat ? t.npos : g->out[g->nsp - 1], st = flat ? 1 : g->stride[g->nsp - 1];
	bool split = split_wanted(J, len);
	if (split && split_tables(g, &t) < 0)
		return -1;
	st = split ? 1 : st;
	bool copy = split || t.padded || len < ox_dconv_min_len(J->level);
	float *own, *xp = NULL;
	const float *wp = direct_weights(J, &own);
	if (copy && wp)
		xp = alloc_n(g->cin * t.ps + ox_dconv_slack(J->level, st), sizeof(float));
	ox_dconv *cs = wp ? alloc_n(g->group, sizeof *cs) : NULL;
	int rc = !wp || (copy && !xp) || !cs ? -1 : 0;
	if (rc == 0)
		direct_images(J, &t, wp, xp, len, st, cs);
	if (split)
		free(t.off);
	free(cs);
	free(xp);
	free(own);
	return rc;
}

int ox_conv_f32_packed(int level, const ox_conv_geom *g, const float *x, const float *w, const void *packed,
		       const float *bias, const float *res, float *y, int act)
{
	tables t;
	if (tables_new(g, &t) < 0)
		return -1;
	conv_job J = {level, g, &t, x, w, bias, packed, res, y, act, 0, 1};
	const ox_conv_packed *pk = packed;
	int rc;
	if (ox_dconv_available(level) && !uses_depthwise(g, &t)) {
		rc = tables_pos(g, &t, is_pointwise(g) ? 0 : g->nsp - 1) < 0 ? -1 : conv_direct(&J);
		tables_free(&t);
		return rc;
	}
	if (tables_pos(g, &t, g->nsp) < 0) {
		tables_free(&t);
		return -1;
	}
	/* scaled weights exist only packed: a convolution they do not fit cannot run */
	if (pk && pk->scaled && (!packed_for(pk, level, g, &t, 0) || g->cin == g->group)) {
		tables_free(&t);
		return -1;
	}
#if OX_X86
	if (uses_depthwise16(level, g, &t)) {
		rc = depthwise16(&J);
		tables_free(&t);
		return rc;
	}
#endif
	/* one channel per group: many small independent pieces, one task each */
	if (g->cin == g->group && g->group > 1 && ox_threads() > 1) {
		int64_t units = g->batch * g->group, tasks = 8 * ox_threads() < units ? 8 * ox_threads() : units;
		J.step = (units + tasks - 1) / tasks;
		ox_parallel_for((units + J.step - 1) / J.step, conv_task, &J);
		rc = J.failed ? -1 : 0;
	} else {
		rc = conv_serial(&J);
	}
	tables_free(&t);
	return rc;
}

int ox_conv_f32(int level, const ox_conv_geom *g, const float *x, const float *w, const float *bias, float *y)
{
	return ox_conv_f32_packed(level, g, x, w, NULL, bias, NULL, y, OX_ACT_NONE);
}

/* The direct convolution's form: each group's weights in the layout of dconv.h. */
static void *prepack_direct(int level, const float *w, int64_t cout, int64_t group, int64_t depth, const float *scale)
{
	int64_t cout_g = cout / group, per = ox_dconv_packed_floats(level, cout_g, depth);
	size_t head = (sizeof(ox_conv_packed) + 63) & ~(size_t)63;
	if ((uint64_t)per > (SIZE_MAX / 2 - head) / sizeof(float) / (uint64_t)group)
		return NULL;
	ox_conv_packed *pk = ox_alloc_big(head + (size_t)(per * group) * sizeof(float));
	if (!pk)
		return NULL;
	*pk = (ox_conv_packed){level, scale != NULL, true, group, cout_g, depth, (float *)((char *)pk + head), per};
	for (int64_t q = 0; q < group; q++)
		ox_dconv_pack(level, w + q * cout_g * depth, cout_g, depth, scale ? scale + q * cout_g : NULL,
			      pk->dc + q * per);
	return pk;
}

void *ox_conv_prepack(int level, const float *w, int64_t cout, int64_t group, int64_t depth, const float *scale)
{
	if (group < 1 || cout % group || cout <= 0 || depth <= 0)
		return NULL;
	if (ox_dconv_available(level))
		return prepack_direct(level, w, cout, group, depth, scale);
	int64_t cout_g = cout / group, per = ox_gemm_packed_floats(level, cout_g, depth);
	size_t head = (sizeof(ox_conv_packed) + (size_t)group * sizeof(ox_gemm_packed) + 63) & ~(size_t)63;
	if ((uint64_t)per > (SIZE_MAX / 2 - head) / sizeof(float) / (uint64_t)group)
		return NULL;
	ox_conv_packed *pk = ox_alloc_big(head + (size_t)(per * group) * sizeof(float));
	if (!pk)
		return NULL;
	*pk = (ox_conv_packed){level, scale != NULL, false, group, cout_g, depth, NULL, 0};
	float *data = (float *)((char *)pk + head);
	for (int64_t q = 0; q < group; q++) {
		ox_gemm_src a = ox_gemm_a(w + q * cout_g * depth, depth, false);
		ox_gemm_prepack_a(level, cout_g, depth, &a, data + q * per, &pk->g[q]);
		if (scale)
			ox_gemm_packed_scale_rows(&pk->g[q], scale + q * cout_g);
	}
	return pk;
}

/* ---- ConvTranspose: the tables of col2im ----------------------------------------- */

/* ConvTranspose writes into a full output (before its pads are cut) of shape fdim:
 * input position j at fpos[j], tap q at ftap[q]; output position o reads crop[o] of it,
 * or nothing (-1) where the pads were negative. */
typedef struct scatter {
	int64_t fdim[OX_MAX_RANK], fs, kvol, nin, nout;
	int64_t *fpos, *ftap, *crop;
} scatter;

static void scatter_free(scatter *s)
{
	free(s->fpos);
	free(s->ftap);
	free(s->crop);
}

/* crop[o] for every output position: the full position o + pad0, if inside. */
static void crop_table(const ox_conv_geom *g, const scatter *s, const int64_t *fstep)
{
	int64_t idx[OX_MAX_RANK] = {0};
	for (int64_t o = 0; o < s->nout; o++) {
		int64_t at = 0;
		for (int i = 0; i < g->nsp && at >= 0; i++) {
			int64_t f = idx[i] + g->pad0[i];
			at = f < 0 || f >= s->fdim[i] ? -1 : at + f * fstep[i];
		}
		s->crop[o] = at;
		for (int i = g->nsp - 1; i >= 0 && ++idx[i] == g->out[i]; i--)
			idx[i] = 0;
	}
}

static int scatter_new(const ox_conv_geom *g, scatter *s)
{
	memset(s, 0, sizeof *s);
	int n = g->nsp;
	int64_t fstep[OX_MAX_RANK] = {0}, step[OX_MAX_RANK] = {0};
	for (int i = 0; i < n; i++)
		s->fdim[i] = g->in[i] ? (g->in[i] - 1) * g->stride[i] + (g->kernel[i] - 1) * g->dil[i] + 1 : 0;
	s->fs = count_of(n, s->fdim);
	s->kvol = count_of(n, g->kernel);
	s->nin = count_of(n, g->in);
	s->nout = count_of(n, g->out);
	if (s->fs < 0 || s->kvol < 0 || s->nin < 0 || s->nout < 0)
		return -1;
	for (int i = n - 1; i >= 0; i--)
		fstep[i] = i == n - 1 ? 1 : fstep[i + 1] * s->fdim[i + 1];
	s->fpos = alloc_n(s->nin, sizeof(int64_t));
	s->ftap = alloc_n(s->kvol, sizeof(int64_t));
	s->crop = alloc_n(s->nout, sizeof(int64_t));
	if (!s->fpos || !s->ftap || !s->crop)
		return scatter_free(s), -1;
	for (int i = 0; i < n; i++)
		step[i] = g->stride[i] * fstep[i];
	offsets(n, g->in, step, s->fpos);
	for (int i = 0; i < n; i++)
		step[i] = g->dil[i] * fstep[i];
	offsets(n, g->kernel, step, s->ftap);
	crop_table(g, s, fstep);
	return 0;
}

/* ---- ConvTranspose, float -------------------------------------------------------- */

/* Adds the columns (cout/group * kvol rows of nin) into the full output, then cuts the
 * output channels out of it, with their bias. */
static void col2im_f32(const ox_conv_geom *g, const scatter *s, const float *col, float *full, const float *bias,
		       float *y)
{
	int64_t cout_g = g->cout / g->group;
	for (int64_t c = 0; c < cout_g; c++) {
		memset(full, 0, (size_t)s->fs * sizeof(float));
		for (int64_t q = 0; q < s->kvol; q++) {
			const float *src = col + (c * s->kvol + q) * s->nin;
			float *dst = full + s->ftap[q];
			for (int64_t j = 0; j < s->nin; j++)
				dst[s->fpos[j]] += src[j];
		}
		float b = bias ? bias[c] : 0;
		for (int64_t o = 0; o < s->nout; o++)
			y[c * s->nout + o] = (s->crop[o] < 0 ? 0 : full[s->crop[o]]) + b;
	}
}

int ox_conv_transpose_f32(int level, const ox_conv_geom *g, const float *x, const float *w, const float *bias,
			  float *y)
{
	scatter s;
	if (scatter_new(g, &s) < 0)
		return -1;
	int64_t cin_g = g->cin / g->group, cout_g = g->cout / g->group, rows = cout_g * s.kvol;
	float *col = rows && s.nin > OX_MAX_ELEMENTS / rows ? NULL : alloc_n(rows * s.nin, sizeof(float));
	float *full = alloc_n(s.fs, sizeof(float));
	int rc = col && full ? 0 : -1;
	for (int64_t n = 0; n < g->batch && rc == 0; n++) {
		for (int64_t q = 0; q < g->group && rc == 0; q++) {
			const float *xg = x + (n * g->cin + q * cin_g) * s.nin;
			ox_gemm_src a = ox_gemm_a(w + q * cin_g * rows, rows, true), b = ox_gemm_b(xg, s.nin, false);
			rc = ox_sgemm_src(level, rows, s.nin, cin_g, 1, &a, &b, 0, col, s.nin);
			if (rc == 0)
				col2im_f32(g, &s, col, full, bias ? bias + q * cout_g : NULL,
					   y + (n * g->cout + q * cout_g) * s.nout);
		}
	}
	free(col);
	free(full);
	scatter_free(&s);
	return rc;
}

/* ---- double: Conv, ConvTranspose, and ConvInteger through them ------------------- */

/* The plain loops over the same tables: exact enough for double and for the integer sums
 * of ConvInteger (below 2^53). x is padded; w has zero points already taken out. */
static void conv_f64_group(const tables *t, int64_t m, const double *x, const double *w, const double *bias,
			   double *y)
{
	for (int64_t c = 0; c < m; c++) {
		double *yc = y + c * t->npos;
		for (int64_t j = 0; j < t->npos; j++)
			yc[j] = bias ? bias[c] : 0;
		for (int64_t kk = 0; kk < t->depth; kk++) {
			double wv = w[c * t->depth + kk];
			const double *src = x + t->off[kk];
			for (int64_t j = 0; j < t->npos; j++)
				yc[j] += wv * src[t->pos[j]];
		}
	}
}

static int conv_f64(const ox_conv_geom *g, const double *x, const double *w, const double *bias, double *y)
{
	tables t;
	if (tables_new(g, &t) < 0)
		return -1;
	if (tables_pos(g, &t, g->nsp) < 0) {
		tables_free(&t);
		return -1;
	}
	int64_t cin_g = g->cin / g->group, cout_g = g->cout / g->group, ins = count_of(g->nsp, g->in);
	double *xp = alloc_n(g->cin * t.ps, sizeof(double));
	int rc = xp ? 0 : -1;
	for (int64_t n = 0; n < g->batch && rc == 0; n++) {
		pad_input(g, &t, g->cin, x + n * g->cin * ins, xp, sizeof(double), n == 0);
		for (int64_t q = 0; q < g->group; q++)
			conv_f64_group(&t, cout_g, xp + q * cin_g * t.ps, w + q * cout_g * t.depth,
				       bias ? bias + q * cout_g : NULL, y + (n * g->cout + q * cout_g) * t.npos);
	}
	free(xp);
	tables_free(&t);
	return rc;
}

/* Scatters one image and group straight into the full output: every input element times
 * every weight it meets. */
static void convt_f64_group(const ox_conv_geom *g, const scatter *s, const double *x, const double *w,
			    double *full)
{
	int64_t cin_g = g->cin / g->group, cout_g = g->cout / g->group;
	memset(full, 0, (size_t)(cout_g * s->fs) * sizeof(double));
	for (int64_t ci = 0; ci < cin_g; ci++)
		for (int64_t c = 0; c < cout_g; c++)
			for (int64_t q = 0; q < s->kvol; q++) {
				double wv = w[(ci * cout_g + c) * s->kvol + q];
				double *dst = full + c * s->fs + s->ftap[q];
				for (int64_t j = 0; j < s->nin; j++)
					dst[s->fpos[j]] += wv * x[ci * s->nin + j];
			}
}

static int convt_f64(const ox_conv_geom *g, const double *x, const double *w, const double *bias, double *y)
{
	scatter s;
	if (scatter_new(g, &s) < 0)
		return -1;
	int64_t cin_g = g->cin / g->group, cout_g = g->cout / g->group;
	double *full = cout_g && s.fs > OX_MAX_ELEMENTS / cout_g ? NULL : alloc_n(cout_g * s.fs, sizeof(double));
	for (int64_t n = 0; full && n < g->batch; n++) {
		for (int64_t q = 0; q < g->group; q++) {
			convt_f64_group(g, &s, x + (n * g->cin + q * cin_g) * s.nin, w + q * cin_g * cout_g * s.kvol, full);
			double *yg = y + (n * g->cout + q * cout_g) * s.nout;
			for (int64_t c = 0; c < cout_g; c++)
				for (int64_t o = 0; o < s.nout; o++)
					yg[c * s.nout + o] = (s.crop[o] < 0 ? 0 : full[c * s.fs + s.crop[o]]) +
							     (bias ? bias[q * cout_g + c] : 0);
		}
	}
	int rc = full ? 0 : -1;
	free(full);
	scatter_free(&s);
	return rc;
}

/* ---- attributes to geometry ------------------------------------------------------ */

/* Shape checks shared by the three ops, and the attributes other than auto_pad. */
static int geom_common(ox_k *k, const ox_val *x, const ox_val *w, ox_conv_geom *g, bool transpose)
{
	if (x->rank < 3)
		return ox_kfail(k, "X must have rank 3 or more ([N, C, spatial...]), not %d", x->rank);
	if (w->rank != x->rank)
		return ox_kfail(k, "W has rank %d; expected %d, the rank of X", w->rank, x->rank);
	memset(g, 0, sizeof *g);
	g->nsp = x->rank - 2;
	g->batch = x->dims[0];
	g->cin = x->dims[1];
	g->group = ox_attr_int(k, "group", 1);
	if (g->group < 1 || g->group > OX_WINDOW_MAX)
		return ox_kfail(k, "attribute 'group' is %lld; expected 1 to %lld", (long long)g->group,
				(long long)OX_WINDOW_MAX);
	if (g->cin % g->group)
		return ox_kfail(k, "X has %lld channels, not divisible by group %lld", (long long)g->cin,
				(long long)g->group);
	if (transpose) {
		if (w->dims[0] != g->cin)
			return ox_kfail(k, "W's first dimension is %lld; expected %lld, the channels of X",
					(long long)w->dims[0], (long long)g->cin);
		g->cout = w->dims[1] * g->group;
	} else {
		if (w->dims[1] * g->group != g->cin)
			return ox_kfail(k, "X has %lld channels; W expects %lld (its dimension 1 times group %lld)",
					(long long)g->cin, (long long)(w->dims[1] * g->group), (long long)g->group);
		if (w->dims[0] % g->group)
			return ox_kfail(k, "W has %lld output channels, not divisible by group %lld",
					(long long)w->dims[0], (long long)g->group);
		g->cout = w->dims[0];
	}
	return 0;
}

/* Half of x rounded down, also below zero: the spec's pads split total padding that an
 * output_shape larger than the full output makes negative the way its examples do. */
static int64_t floor_half(int64_t x)
{
	return x >= 0 ? x / 2 : -((1 - x) / 2);
}

/* ConvTranspose's output shape and pads: from output_shape, auto_pad, or the pads given. */
static int convt_out(ox_k *k, ox_conv_geom *g)
{
	int n = g->nsp, ap = ox_auto_pad(k);
	int64_t opad[OX_MAX_RANK], os[OX_MAX_RANK + 2];
	const int64_t *v;
	int64_t nos = ox_attr_ints(k, "output_shape", &v);
	if (ap < 0 || ox_window_ints(k, "output_padding", n, 0, 0, opad) < 0)
		return -1;
	if (nos >= 0 && nos != n && nos != n + 2)
		return ox_kfail(k, "attribute 'output_shape' has %lld values; expected %d", (long long)nos, n);
	for (int i = 0; i < n && nos >= 0; i++) {
		os[i] = v[nos - n + i];
		if (os[i] < 0 || os[i] > OX_MAX_ELEMENTS)
			return ox_kfail(k, "output_shape[%d] is %lld, out of range", i, (long long)os[i]);
	}
	for (int i = 0; i < n; i++) {
		int64_t full = ox_window_transpose_full(g->in[i], g->stride[i], ox_window_extent(g->kernel[i], g->dil[i]), opad[i]);
		if (nos >= 0 || ap == OX_PAD_SAME_UPPER || ap == OX_PAD_SAME_LOWER) {
			g->out[i] = nos >= 0 ? os[i] : g->in[i] * g->stride[i];
			int64_t total = full - g->out[i];
			g->pad0[i] = ap == OX_PAD_SAME_UPPER ? floor_half(total) : total - floor_half(total);
			g->pad1[i] = total - g->pad0[i];
			continue;
		}
		if (ap == OX_PAD_VALID)
			g->pad0[i] = g->pad1[i] = 0;
		g->out[i] = full - g->pad0[i] - g->pad1[i];
		if (g->out[i] < 0)
			return ox_kfail(k, "spatial axis %d: the pads (%lld + %lld) exceed the output (%lld)", i,
					(long long)g->pad0[i], (long long)g->pad1[i], (long long)full);
	}
	return 0;
}

/* ---- element types ----------------------------------------------------------------- */

/* A malloc'd float copy of a float16, bfloat16 or float tensor. */
static float *to_f32(const ox_val *t)
{
	float *f = alloc_n(t->count, sizeof(float));
	for (int64_t i = 0; f && i < t->count; i++)
		f[i] = t->type == OX_FLOAT16 ? ox_f16_to_f32(((const uint16_t *)t->data)[i])
		       : t->type == OX_BFLOAT16 ? ox_bf16_to_f32(((const uint16_t *)t->data)[i])
						: ((const float *)t->data)[i];
	return f;
}

static void from_f32(ox_val *t, const float *f)
{
	for (int64_t i = 0; i < t->count; i++) {
		if (t->type == OX_FLOAT16)
			((uint16_t *)t->data)[i] = ox_f32_to_f16(f[i]);
		else
			((uint16_t *)t->data)[i] = ox_f32_to_bf16(f[i]);
	}
}

/* A malloc'd double copy of t, less zero point zp[i / per] (zp may be NULL). */
static double *to_f64(const ox_val *t, const ox_val *zp, int64_t per)
{
	double *d = alloc_n(t->count, sizeof(double));
	for (int64_t i = 0; d && i < t->count; i++)
		d[i] = ox_get_f64(t, i) - (zp ? ox_get_f64(zp, zp->count == 1 ? 0 : i / per) : 0);
	return d;
}

/* The same in float, exact for the bytes of ConvInteger less their zero points. */
static float *to_f32_less(const ox_val *t, const ox_val *zp, int64_t per)
{
	float *f = alloc_n(t->count, sizeof(float));
	for (int64_t i = 0; f && i < t->count; i++)
		f[i] = (float)(ox_get_i64(t, i) - (zp ? ox_get_i64(zp, zp->count == 1 ? 0 : i / per) : 0));
	return f;
}

typedef int (*f32_fn)(int, const ox_conv_geom *, const float *, const float *, const float *, float *);

/* Whether a residual the executor's fusion offers (input 3, after a Conv's own inputs)
 * can be added in the output pass: a float tensor of Y's shape. Otherwise the Conv leaves
 * it, and the activation after it, to the nodes of the graph (exec.c checks the same). */
static bool residual_fits(const ox_val *r, const ox_val *y)
{
	if (!r || r->kind != OX_TENSOR || r->type != OX_FLOAT || y->type != OX_FLOAT || r->rank != y->rank)
		return false;
	return memcmp(r->dims, y->dims, (size_t)y->rank * sizeof(int64_t)) == 0;
}

static int conv_fused(ox_k *k, const ox_conv_geom *g, ox_val *x, ox_val *w, ox_val *b, ox_val *y)
{
	ox_val *r = ox_in(k, 3);
	bool add = residual_fits(r, y);
	return ox_conv_f32_packed(ox_cpu_level(), g, x->data, w->data, w->derived, b ? b->data : NULL,
				  add ? r->data : NULL, y->data, r && !add ? OX_ACT_NONE : k->act);
}

/* Runs the float convolution fn on any floating type by way of float (double aside). */
static int run_float(ox_k *k, const ox_conv_geom *g, ox_val *x, ox_val *w, ox_val *b, ox_val *y, f32_fn fn)
{
	if (x->type == OX_FLOAT) {
		if ((fn == ox_conv_f32 ? conv_fused(k, g, x, w, b, y)
				       : fn(ox_cpu_level(), g, x->data, w->data, b ? b->data : NULL, y->data)) < 0)
			return ox_kfail(k, "out of memory for the convolution's scratch buffers");
		return 0;
	}
	float *xf = to_f32(x), *wf = to_f32(w), *bf = b ? to_f32(b) : NULL, *yf = alloc_n(y->count, sizeof(float));
	int rc = xf && wf && (bf || !b) && yf ? fn(ox_cpu_level(), g, xf, wf, bf, yf) : -1;
	if (rc == 0)
		from_f32(y, yf);
	free(xf);
	free(wf);
	free(bf);
	free(yf);
	return rc < 0 ? ox_kfail(k, "out of memory for the convolution's scratch buffers") : 0;
}

static int run_double(ox_k *k, const ox_conv_geom *g, ox_val *x, ox_val *w, ox_val *b, ox_val *y, bool transpose)
{
	const double *bd = b ? b->data : NULL;
	int rc = transpose ? convt_f64(g, x->data, w->data, bd, y->data) : conv_f64(g, x->data, w->data, bd, y->data);
	return rc < 0 ? ox_kfail(k, "out of memory for the convolution's scratch buffers") : 0;
}

/* ---- the kernels ------------------------------------------------------------------- */

static int check_float(ox_k *k, const ox_val *x, const ox_val *w, const ox_val *b, int64_t cout)
{
	int t = x->type;
	if (t != OX_FLOAT && t != OX_DOUBLE && t != OX_FLOAT16 && t != OX_BFLOAT16)
		return ox_kfail(k, "X has type %s; expected float, double, float16 or bfloat16", ox_elem_label(t));
	if (w->type != t || (b && b->type != t))
		return ox_kfail(k, "W and B must have X's type %s, not %s", ox_elem_label(t),
				ox_elem_label(w->type != t ? w->type : b->type));
	if (b && (b->rank != 1 || b->dims[0] != cout))
		return ox_kfail(k, "B must be 1-D with %lld values, one per output channel", (long long)cout);
	return 0;
}

static ox_val *out_shape(ox_k *k, const ox_conv_geom *g, int type)
{
	int64_t dims[OX_MAX_RANK] = {g->batch, g->cout};
	memcpy(dims + 2, g->out, (size_t)g->nsp * sizeof(int64_t));
	return ox_out_tensor(k, 0, type, g->nsp + 2, dims);
}

static int conv_op(ox_k *k, bool transpose)
{
	ox_val *x = ox_in_tensor(k, 0, true), *w = x ? ox_in_tensor(k, 1, true) : NULL, *b = NULL, *y;
	ox_conv_geom g;
	if (!w || (ox_in(k, 2) && !(b = ox_in_tensor(k, 2, false))))
		return -1;
	if (geom_common(k, x, w, &g, transpose) < 0 || ox_conv_attrs(k, x, w, &g) < 0 ||
	    check_float(k, x, w, b, g.cout) < 0 || (transpose ? convt_out(k, &g) : ox_conv_out(k, &g)) < 0 ||
	    !(y = out_shape(k, &g, x->type)))
		return -1;
	if (y->count == 0)
		return 0;
	if (x->type == OX_DOUBLE)
		return run_double(k, &g, x, w, b, y, transpose);
	return run_float(k, &g, x, w, b, y, transpose ? ox_conv_transpose_f32 : ox_conv_f32);
}

OX_KERNEL(ox_op_Conv, conv_op(k, false))
OX_KERNEL(ox_op_ConvTranspose, conv_op(k, true))

static int check_zero_point(ox_k *k, const ox_val *zp, const ox_val *of, int64_t per_count, const char *what)
{
	if (!zp)
		return 0;
	if (zp->type != of->type)
		return ox_kfail(k, "%s has type %s; expected %s like its input", what, ox_elem_label(zp->type),
				ox_elem_label(of->type));
	if (zp->count != 1 && (per_count < 0 || zp->rank != 1 || zp->count != per_count))
		return ox_kfail(k, "%s must be a scalar%s", what,
				per_count < 0 ? "" : " or 1-D with one value per output channel");
	return 0;
}

/* ConvInteger by way of the float convolution. Less their zero points, x and w are
 * integers of magnitude 255 at most, so any sum of EXACT_TERMS of their products stays below
 * 2^24, where float is exact: the input channels are taken a chunk at a time (EXACT_TERMS
 * taps each), and the chunks' sums added in int32, which wraps as the spec allows. */
#define EXACT_TERMS 256

typedef struct convint {
	const ox_conv_geom *g;
	const float *x, *w;
	int32_t *y;
	float *wc, *yc; /* one chunk's weights and sums */
} convint;

static int convint_chunk(const convint *c, int64_t n, int64_t q, int64_t c0, int64_t nc)
{
	const ox_conv_geom *g = c->g;
	int64_t kvol = count_of(g->nsp, g->kernel), cin_g = g->cin / g->group, cout_g = g->cout / g->group;
	int64_t outs = count_of(g->nsp, g->out);
	ox_conv_geom s = *g;
	s.batch = 1, s.group = 1, s.cin = nc, s.cout = cout_g;
	for (int64_t co = 0; co < cout_g; co++)
		memcpy(c->wc + co * nc * kvol, c->w + ((q * cout_g + co) * cin_g + c0) * kvol,
		       (size_t)(nc * kvol) * sizeof(float));
	if (ox_conv_f32(ox_cpu_level(), &s, c->x + (n * g->cin + q * cin_g + c0) * count_of(g->nsp, g->in), c->wc,
			NULL, c->yc) < 0)
		return -1;
	uint32_t *y = (uint32_t *)c->y + (n * g->cout + q * cout_g) * outs;
	for (int64_t i = 0; i < cout_g * outs; i++)
		y[i] += (uint32_t)(int32_t)c->yc[i];
	return 0;
}

static int convint_f32(const ox_conv_geom *g, const float *x, const float *w, int32_t *y)
{
	int64_t kvol = count_of(g->nsp, g->kernel), cin_g = g->cin / g->group, cout_g = g->cout / g->group;
	int64_t step = EXACT_TERMS / kvol, outs = count_of(g->nsp, g->out);
	if (step > cin_g)
		step = cin_g;
	convint c = {g, x, w, y, alloc_n(cout_g * step * kvol, sizeof(float)), alloc_n(cout_g * outs, sizeof(float))};
	int rc = c.wc && c.yc ? 0 : -1;
	if (rc == 0)
		memset(y, 0, (size_t)(g->batch * g->cout * outs) * sizeof(int32_t));
	for (int64_t n = 0; n < g->batch && rc == 0; n++)
		for (int64_t q = 0; q < g->group && rc == 0; q++)
			for (int64_t c0 = 0; c0 < cin_g && rc == 0; c0 += step)
				rc = convint_chunk(&c, n, q, c0, cin_g - c0 < step ? cin_g - c0 : step);
	free(c.wc);
	free(c.yc);
	return rc;
}

/* Kernels of more than EXACT_TERMS taps: exact sums in double (below 2^53). */
static int convint_f64(const ox_conv_geom *g, const ox_val *x, const ox_val *xz, const ox_val *w, const ox_val *wz,
		       ox_val *y)
{
	int64_t wper = g->cout ? w->count / g->cout : 1;
	double *xd = to_f64(x, xz, 1), *wd = to_f64(w, wz, wper ? wper : 1), *yd = alloc_n(y->count, sizeof(double));
	int rc = xd && wd && yd ? conv_f64(g, xd, wd, NULL, yd) : -1;
	for (int64_t i = 0; rc == 0 && i < y->count; i++)
		((int32_t *)y->data)[i] = (int32_t)(uint32_t)(int64_t)yd[i];
	free(xd);
	free(wd);
	free(yd);
	return rc;
}

static int convint_run(const ox_conv_geom *g, const ox_val *x, const ox_val *xz, const ox_val *w, const ox_val *wz,
		       ox_val *y)
{
	if (count_of(g->nsp, g->kernel) > EXACT_TERMS)
		return convint_f64(g, x, xz, w, wz, y);
	int64_t wper = g->cout ? w->count / g->cout : 1;
	float *xf = to_f32_less(x, xz, 1), *wf = to_f32_less(w, wz, wper ? wper : 1);
	int rc = xf && wf ? convint_f32(g, xf, wf, y->data) : -1;
	free(xf);
	free(wf);
	return rc;
}

int ox_op_ConvInteger(ox_k *k)
{
	ox_val *x, *w, *xz, *wz, *y;
	ox_conv_geom g;
	if (ox_in_int8_operands(k, &x, &w, &xz, &wz, "x", "w") < 0 || geom_common(k, x, w, &g, false) < 0 ||
	    ox_conv_attrs(k, x, w, &g) < 0 || ox_conv_out(k, &g) < 0 ||
	    check_zero_point(k, xz, x, -1, "x_zero_point") < 0 || check_zero_point(k, wz, w, g.cout, "w_zero_point") < 0 ||
	    !(y = out_shape(k, &g, OX_INT32)))
		return -1;
	if (y->count && convint_run(&g, x, xz, w, wz, y) < 0)
		return ox_kfail(k, "out of memory for the convolution's scratch buffers");
	return 0;
}
