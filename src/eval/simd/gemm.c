/* The packed SGEMM core (BLIS-style): operands are packed block by block into panels
 * that fit the caches, and register-blocked micro-kernels (scalar, AVX2+FMA, AVX-512)
 * multiply one panel of A by one panel of B into a tile of C. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "gemm.h"
#include "transpose.h"
#include "eval/threads.h"

#if OX_X86
#include <immintrin.h>
#endif

/* A micro-kernel: the MR x NR tile at c (row stride ldc) becomes
 * alpha * (a panel) * (b panel) + beta * tile, of which only the top-left mr x nr part is
 * stored. beta == 0 means the tile is not read; nt asks for stores that bypass the caches
 * (where the tile is aligned), for results too large to stay in them. */
typedef void (*ukernel)(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, float alpha,
			float beta, int mr, int nr, bool nt);

typedef struct variant {
	ox_gemm_variant pub;
	ukernel run;
	ukernel narrow; /* the same panels, for tiles of at most nr / 2 columns; or NULL */
	int64_t mc, kc, nc; /* cache blocks: MC x KC of A in L2, KC x NR of B in L1, KC x NC in L3 */
} variant;

/* ---- packing --------------------------------------------------------------------- */

static void pack_rows_contiguous(const float *src, int64_t sk, float *dst, int64_t rows, int64_t kc, int w)
{
	for (int64_t k = 0; k < kc; k++) {
		memcpy(dst + k * w, src + k * sk, (size_t)rows * sizeof(float));
		if (rows < w)
			memset(dst + k * w + rows, 0, (size_t)(w - rows) * sizeof(float));
	}
}

static void pack_rows_strided(const float *src, int64_t si, int64_t sk, float *dst, int64_t rows, int64_t kc,
			      int w)
{
	for (int64_t r = 0; r < rows; r++) {
		const float *s = src + r * si;
		for (int64_t k = 0; k < kc; k++)
			dst[k * w + r] = s[k * sk];
	}
	for (int64_t r = rows; r < w; r++)
		for (int64_t k = 0; k < kc; k++)
			dst[k * w + r] = 0;
}

#if OX_X86
/* dst[j*ds + i] = src[i*si + j] for i, j < 16: a 16 x 16 transpose in registers. */
OX_TARGET_AVX512 static void transpose16(const float *src, int64_t si, float *dst, int64_t ds)
{
	__m512 r[16];
	for (int i = 0; i < 16; i++)
		r[i] = _mm512_loadu_ps(src + i * si);
	ox_transpose16(r);
	for (int i = 0; i < 16; i++)
		_mm512_storeu_ps(dst + i * ds, r[i]);
}

/* A panel of w (a multiple of 16) rows that are contiguous in depth, 16 x 16 blocks at a
 * time; the rest element by element. */
static void pack_rows_transposed(const float *src, int64_t si, float *dst, int64_t rows, int64_t kc, int w)
{
	int64_t full = rows / 16 * 16, k16 = kc / 16 * 16;
	for (int64_t r = 0; r < full; r += 16)
		for (int64_t k = 0; k < k16; k += 16)
			transpose16(src + r * si + k, si, dst + k * w + r, w);
	for (int64_t r = 0; r < w; r++)
		for (int64_t k = r < full ? k16 : 0; k < kc; k++)
			dst[k * w + r] = r < rows ? src[r * si + k] : 0;
}
#endif

void ox_gemm_pack_strided(const ox_gemm_src *s, float *dst, int64_t i0, int64_t ni, int64_t k0, int64_t kc, int w)
{
#if OX_X86
	bool t16 = s->sk == 1 && w % 16 == 0 && ox_cpu_level() >= OX_CPU_AVX512;
#endif
	for (int64_t p = 0; p < ni; p += w) {
		int64_t rows = ni - p < w ? ni - p : w;
		const float *src = s->p + (i0 + p) * s->si + k0 * s->sk;
		if (s->si == 1)
			pack_rows_contiguous(src, s->sk, dst, rows, kc, w);
#if OX_X86
		else if (t16)
			pack_rows_transposed(src, s->si, dst, rows, kc, w);
#endif
		else
			pack_rows_strided(src, s->si, s->sk, dst, rows, kc, w);
		dst += (int64_t)w * kc;
	}
}

ox_gemm_src ox_gemm_a(const float *a, int64_t lda, bool trans)
{
	ox_gemm_src s = {ox_gemm_pack_strided, a, trans ? 1 : lda, trans ? lda : 1, NULL, NULL};
	return s;
}

ox_gemm_src ox_gemm_b(const float *b, int64_t ldb, bool trans)
{
	ox_gemm_src s = {ox_gemm_pack_strided, b, trans ? ldb : 1, trans ? 1 : ldb, NULL, NULL};
	return s;
}

/* ---- storing tiles --------------------------------------------------------------- */

/* Stores the part mr x nr of a full tile t (row stride nr_full) that the vector kernels
 * without masks could not store directly. */
static void store_tile(const float *t, int nr_full, float *c, int64_t ldc, float beta, int mr, int nr)
{
	for (int i = 0; i < mr; i++)
		for (int j = 0; j < nr; j++)
			c[i * ldc + j] = beta == 0 ? t[i * nr_full + j] : t[i * nr_full + j] + beta * c[i * ldc + j];
}

/* ---- scalar ---------------------------------------------------------------------- */

enum { S_MR = 4, S_NR = 8 };

static void k_scalar(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, float alpha, float beta,
		     int mr, int nr, bool nt)
{
	float t[S_MR * S_NR] = {0};
	for (int64_t p = 0; p < kc; p++, a += S_MR, b += S_NR)
		for (int i = 0; i < S_MR; i++)
			for (int j = 0; j < S_NR; j++)
				t[i * S_NR + j] += a[i] * b[j];
	for (int i = 0; i < S_MR * S_NR; i++)
		t[i] *= alpha;
	store_tile(t, S_NR, c, ldc, beta, mr, nr);
}

#if OX_X86
/* ---- AVX2 + FMA: 6 x 16 ---------------------------------------------------------- */

OX_TARGET_AVX2 static void k_avx2_6x16(int64_t kc, const float *a, const float *b, float *c, int64_t ldc,
					float alpha, float beta, int mr, int nr, bool nt)
{
	__m256 acc[6][2];
	for (int i = 0; i < 6; i++)
		acc[i][0] = acc[i][1] = _mm256_setzero_ps();
#pragma GCC unroll 4
	for (int64_t p = 0; p < kc; p++, a += 6, b += 16) {
		__m256 b0 = _mm256_load_ps(b), b1 = _mm256_load_ps(b + 8);
		for (int i = 0; i < 6; i++) {
			__m256 ai = _mm256_broadcast_ss(a + i);
			acc[i][0] = _mm256_fmadd_ps(ai, b0, acc[i][0]);
			acc[i][1] = _mm256_fmadd_ps(ai, b1, acc[i][1]);
		}
	}
	__m256 va = _mm256_set1_ps(alpha), vb = _mm256_set1_ps(beta);
	if (mr == 6 && nr == 16) {
		for (int i = 0; i < 6; i++)
			for (int h = 0; h < 2; h++) {
				float *ci = c + i * ldc + h * 8;
				__m256 v = _mm256_mul_ps(acc[i][h], va);
				if (beta != 0)
					v = _mm256_fmadd_ps(_mm256_loadu_ps(ci), vb, v);
				if (nt && ((uintptr_t)ci & 31) == 0)
					_mm256_stream_ps(ci, v);
				else
					_mm256_storeu_ps(ci, v);
			}
		return;
	}
	float t[6 * 16];
	for (int i = 0; i < 6; i++)
		for (int h = 0; h < 2; h++)
			_mm256_storeu_ps(t + i * 16 + h * 8, _mm256_mul_ps(acc[i][h], va));
	store_tile(t, 16, c, ldc, beta, mr, nr);
}

/* ---- AVX-512: MR x 32 ------------------------------------------------------------ */

/* The body of every AVX-512 kernel: MR rows of A broadcast against NV (1 or 2) vectors of
 * B, in panels 32 wide. Inlined into one function per shape so that the accumulators stay
 * in registers. NV = 1 serves tiles of at most 16 columns (a product's last, when its
 * width is 32k + 1 to 32k + 16) at half the work; each element of C still takes the same
 * multiply-adds in the same order, so the bits do not depend on which kernel made it. */
OX_TARGET_AVX512 static inline __attribute__((always_inline)) void
k_avx512(const int MR, const int NV, int64_t kc, const float *a, const float *b, float *c, int64_t ldc, float alpha,
	 float beta, int mr, int nr, bool nt)
{
	__m512 acc[16][2];
	for (int i = 0; i < MR; i++)
		acc[i][0] = acc[i][1] = _mm512_setzero_ps();
#pragma GCC unroll 4
	for (int64_t p = 0; p < kc; p++, a += MR, b += 32) {
		__m512 b0 = _mm512_load_ps(b), b1 = NV == 2 ? _mm512_load_ps(b + 16) : b0;
		for (int i = 0; i < MR; i++) {
			__m512 ai = _mm512_set1_ps(a[i]);
			acc[i][0] = _mm512_fmadd_ps(ai, b0, acc[i][0]);
			if (NV == 2)
				acc[i][1] = _mm512_fmadd_ps(ai, b1, acc[i][1]);
		}
	}
	__m512 va = _mm512_set1_ps(alpha), vb = _mm512_set1_ps(beta);
	__mmask16 m0 = nr >= 16 ? 0xffff : (__mmask16)((1u << nr) - 1);
	__mmask16 m1 = nr >= 32 ? 0xffff : nr <= 16 ? 0 : (__mmask16)((1u << (nr - 16)) - 1);
	for (int i = 0; i < MR; i++) {
		if (i >= mr)
			break;
		float *ci = c + i * ldc;
		__m512 v0 = _mm512_mul_ps(acc[i][0], va);
		if (beta != 0)
			v0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m0, ci), vb, v0);
		if (NV == 1) {
			_mm512_mask_storeu_ps(ci, m0, v0);
			continue;
		}
		__m512 v1 = _mm512_mul_ps(acc[i][1], va);
		if (beta != 0)
			v1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m1, ci + 16), vb, v1);
		if (nt && nr == 32 && ((uintptr_t)ci & 63) == 0) {
			_mm512_stream_ps(ci, v0);
			_mm512_stream_ps(ci + 16, v1);
		} else {
			_mm512_mask_storeu_ps(ci, m0, v0);
			_mm512_mask_storeu_ps(ci + 16, m1, v1);
		}
	}
}

#define K_AVX512(MR, NV)                                                                                       \
	OX_TARGET_AVX512 static void k_avx512_##MR##x##NV(int64_t kc, const float *a, const float *b, float *c,   \
							  int64_t ldc, float alpha, float beta, int mr, int nr,  \
							  bool nt)                                               \
	{                                                                                                      \
		k_avx512(MR, NV, kc, a, b, c, ldc, alpha, beta, mr, nr, nt);                                   \
	}
K_AVX512(14, 2)
K_AVX512(14, 1)
K_AVX512(8, 2)
K_AVX512(8, 1)
#endif

/* ---- the variants ---------------------------------------------------------------- */

static const variant variants[] = {
	{{"scalar 4x8", OX_CPU_SCALAR, S_MR, S_NR}, k_scalar, NULL, 128, 256, 4096},
#if OX_X86
	{{"avx2 6x16", OX_CPU_AVX2, 6, 16}, k_avx2_6x16, NULL, 120, 256, 4096},
	{{"avx512 14x32", OX_CPU_AVX512, 14, 32}, k_avx512_14x2, k_avx512_14x1, 448, 256, 4096},
	{{"avx512 8x32", OX_CPU_AVX512, 8, 32}, k_avx512_8x2, k_avx512_8x1, 128, 256, 4096},
#endif
};
enum { NVARIANTS = sizeof variants / sizeof variants[0] };

int ox_gemm_nvariants(void)
{
	return NVARIANTS;
}

const ox_gemm_variant *ox_gemm_variant_info(int v)
{
	return v >= 0 && v < NVARIANTS ? &variants[v].pub : NULL;
}

/* The variant for a product at a level: the widest kernel, but a shorter one when M is
 * small, where a tall tile would mostly multiply the zero rows of padding. */
static const variant *pick(int level, int64_t m)
{
	int l = ox_cpu_level();
	if (level < l)
		l = level;
#if OX_X86
	if (l >= OX_CPU_AVX512)
		return &variants[m % 14 == 0 || m > 112 ? 2 : 3];
	if (l >= OX_CPU_AVX2)
		return &variants[1];
#endif
	(void)m;
	return &variants[0];
}

/* ---- the blocked loops ----------------------------------------------------------- */

/* Elements of C (16 MB) from which stores bypass the caches: measured here, a 64 MB C is
 * written 1.5x faster that way and a 4 or 16 MB one no faster, while a C left in the
 * caches is quicker for whatever reads it next. */
enum { NT_MIN = 1 << 22 };

static int64_t round_up(int64_t x, int64_t to)
{
	return (x + to - 1) / to * to;
}

static void scale_c(int64_t m, int64_t n, float beta, float *c, int64_t ldc)
{
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++)
			c[i * ldc + j] = beta == 0 ? 0 : beta * c[i * ldc + j];
}

/* One block of A (mc rows) against the packed block of B (nc columns). */
static void block(const variant *v, int64_t mc, int64_t nc, int64_t kc, const float *ap, const float *bp,
		  float alpha, float beta, float *c, int64_t ldc, bool nt)
{
	int mr = v->pub.mr, nr = v->pub.nr;
	for (int64_t j = 0; j < nc; j += nr) {
		const float *bj = bp + j * kc;
		int nrr = nc - j < nr ? (int)(nc - j) : nr;
		ukernel run = nrr <= nr / 2 && v->narrow ? v->narrow : v->run;
		for (int64_t i = 0; i < mc; i += mr) {
			int mrr = mc - i < mr ? (int)(mc - i) : mr;
			run(kc, ap + i * kc, bj, c + i * ldc + j, ldc, alpha, beta, mrr, nrr, nt);
		}
	}
}

/* A C written in one pass and larger than the caches goes straight to memory: the stores
 * then need no read of the lines they overwrite. */
static bool streams(int64_t m, int64_t n, int64_t k, int64_t kc, float beta)
{
	return beta == 0 && k <= kc && m * n >= NT_MIN;
}

/* The panel of A for rows [ic, ic + mcc) and depth [pc, pc + kcc): from the packed
 * copy when there is one, else packed into ap. */
static const float *a_panel(const variant *v, const ox_gemm_src *a, float *ap, int64_t m, int64_t ic, int64_t mcc,
			    int64_t pc, int64_t kcc)
{
	const ox_gemm_packed *q = a->packed;
	if (q && &variants[q->variant] == v && q->m == m)
		return q->data + pc * round_up(m, v->pub.mr) + ic * kcc;
	a->pack(a, ap, ic, mcc, pc, kcc, v->pub.mr);
	return ap;
}

/* One product restricted to rows [i0, i1) and columns [j0, j1) of C: what one task does.
 * Each element of C goes through the same sequence of instructions whatever the range
 * (the blocks of K and the micro-kernel's accumulation order do not depend on it), so
 * splitting a product into ranges gives the same bits as doing it whole. */
typedef struct range_job {
	const variant *v;
	int64_t m, n, k;
	float alpha, beta;
	const ox_gemm_src *a, *b;
	float *c;
	int64_t ldc;
	bool nt;
	int64_t step; /* rows or columns per task */
	bool by_rows;
	int failed;
} range_job;

/* When all of the rows fit one block, each panel of B is packed just before the tiles
 * that use it, so it goes from the source to L1 and is never written back to L2 or L3. */
static void small_m(const range_job *J, int64_t i0, int64_t i1, int64_t j0, int64_t j1, int64_t pc, int64_t kcc,
		    const float *ap, float *bp)
{
	int nr = J->v->pub.nr;
	float beta = pc == 0 ? J->beta : 1;
	for (int64_t j = j0; j < j1; j += nr) {
		int64_t ncc = j1 - j < nr ? j1 - j : nr;
		J->b->pack(J->b, bp, j, ncc, pc, kcc, nr);
		block(J->v, i1 - i0, ncc, kcc, ap, bp, J->alpha, beta, J->c + i0 * J->ldc + j, J->ldc, J->nt);
	}
}

static void large_m(const range_job *J, int64_t i0, int64_t i1, int64_t j0, int64_t j1, int64_t kc, int64_t nc,
		    float *ap, float *bp)
{
	const variant *v = J->v;
	for (int64_t jc = j0; jc < j1; jc += nc) {
		int64_t ncc = j1 - jc < nc ? j1 - jc : nc;
		for (int64_t pc = 0; pc < J->k; pc += kc) {
			int64_t kcc = J->k - pc < kc ? J->k - pc : kc;
			J->b->pack(J->b, bp, jc, ncc, pc, kcc, v->pub.nr);
			for (int64_t ic = i0; ic < i1; ic += v->mc) {
				int64_t mcc = i1 - ic < v->mc ? i1 - ic : v->mc;
				const float *a = a_panel(v, J->a, ap, J->m, ic, mcc, pc, kcc);
				block(v, mcc, ncc, kcc, a, bp, J->alpha, pc == 0 ? J->beta : 1, J->c + ic * J->ldc + jc,
				      J->ldc, J->nt);
			}
		}
	}
}

static int run_range(const range_job *J, int64_t i0, int64_t i1, int64_t j0, int64_t j1)
{
	const variant *v = J->v;
	int64_t m = i1 - i0, n = j1 - j0, kc = J->k < v->kc ? J->k : v->kc;
	bool small = J->m <= v->mc;
	int64_t mc = small ? round_up(m, v->pub.mr) : v->mc;
	int64_t nc = small ? v->pub.nr : n < v->nc ? round_up(n, v->pub.nr) : v->nc;
	float *ap = aligned_alloc(64, (size_t)round_up(mc * kc * (int64_t)sizeof(float), 64));
	float *bp = aligned_alloc(64, (size_t)round_up(nc * kc * (int64_t)sizeof(float), 64));
	if (!ap || !bp) {
		free(ap);
		free(bp);
		return -1;
	}
	if (small) {
		for (int64_t pc = 0; pc < J->k; pc += kc) {
			int64_t kcc = J->k - pc < kc ? J->k - pc : kc;
			small_m(J, i0, i1, j0, j1, pc, kcc, a_panel(v, J->a, ap, J->m, i0, m, pc, kcc), bp);
		}
	} else {
		large_m(J, i0, i1, j0, j1, kc, nc, ap, bp);
	}
	free(ap);
	free(bp);
	return 0;
}

static void range_task(void *ctx, int64_t t)
{
	range_job *J = ctx;
	int64_t lo = t * J->step, total = J->by_rows ? J->m : J->n;
	int64_t hi = lo + J->step < total ? lo + J->step : total;
	int rc = J->by_rows ? run_range(J, lo, hi, 0, J->n) : run_range(J, 0, J->m, lo, hi);
	if (rc)
		J->failed = 1; /* any task may set it; only ever to 1 */
}

/* Products below this many multiply-adds stay on one thread: a task costs a few us. */
enum { PAR_MIN = 1 << 21 };

/* Tasks for the pool: columns when C is at least as wide as tall, else rows (the last
 * layers of a CNN have few positions and many channels), in whole register tiles. */
static int64_t split(range_job *J, int threads)
{
	if (threads <= 1 || J->m * J->n * J->k < PAR_MIN) {
		J->by_rows = false;
		J->step = J->n;
		return 1;
	}
	int unit = J->n >= J->m ? J->v->pub.nr : J->v->pub.mr;
	int64_t total = J->n >= J->m ? J->n : J->m, tiles = (total + unit - 1) / unit;
	int64_t tasks = tiles < 4 * (int64_t)threads ? tiles : 4 * (int64_t)threads;
	J->by_rows = J->n < J->m;
	J->step = (tiles + tasks - 1) / tasks * unit;
	return (total + J->step - 1) / J->step;
}

static int run(const variant *v, int64_t m, int64_t n, int64_t k, float alpha, const ox_gemm_src *a,
	       const ox_gemm_src *b, float beta, float *c, int64_t ldc)
{
	if (m <= 0 || n <= 0)
		return 0;
	if (k <= 0) {
		scale_c(m, n, beta, c, ldc);
		return 0;
	}
	int64_t kc = k < v->kc ? k : v->kc;
	range_job J = {v, m, n, k, alpha, beta, a, b, c, ldc, streams(m, n, k, kc, beta), 0, false, 0};
	ox_parallel_for(split(&J, ox_threads()), range_task, &J);
#if OX_X86
	if (J.nt)
		_mm_sfence(); /* the streamed stores are ordered before whatever reads C next */
#endif
	return J.failed ? -1 : 0;
}

int64_t ox_gemm_packed_floats(int level, int64_t m, int64_t k)
{
	const variant *v = pick(level, m);
	return round_up(m, v->pub.mr) * k;
}

void ox_gemm_packed_scale_rows(const ox_gemm_packed *q, const float *scale)
{
	const variant *v = &variants[q->variant];
	int64_t mr = v->pub.mr, mp = round_up(q->m, mr);
	for (int64_t pc = 0; pc < q->k; pc += v->kc) {
		int64_t kcc = q->k - pc < v->kc ? q->k - pc : v->kc;
		for (int64_t i0 = 0; i0 < q->m; i0 += mr) {
			float *panel = q->data + pc * mp + i0 * kcc;
			int64_t rows = q->m - i0 < mr ? q->m - i0 : mr;
			for (int64_t k = 0; k < kcc; k++)
				for (int64_t r = 0; r < rows; r++)
					panel[k * mr + r] *= scale[i0 + r];
		}
	}
}

void ox_gemm_prepack_a(int level, int64_t m, int64_t k, const ox_gemm_src *a, float *dst, ox_gemm_packed *out)
{
	const variant *v = pick(level, m);
	int64_t mp = round_up(m, v->pub.mr), kc = v->kc;
	for (int64_t pc = 0; pc < k; pc += kc)
		a->pack(a, dst + pc * mp, 0, m, pc, k - pc < kc ? k - pc : kc, v->pub.mr);
	*out = (ox_gemm_packed){(int)(v - variants), m, k, dst};
}

/* ---- matrix times vector ------------------------------------------------------------ */

/* A product with one row or one column is bound by reading the matrix once: it is done
 * as dot products (matrix rows contiguous) or as sums of scaled rows (columns contiguous),
 * without packing. */
static float dot_scalar(const float *a, const float *b, int64_t n)
{
	float s[4] = {0};
	int64_t i = 0;
	for (; i + 4 <= n; i += 4)
		for (int l = 0; l < 4; l++)
			s[l] += a[i + l] * b[i + l];
	for (; i < n; i++)
		s[0] += a[i] * b[i];
	return (s[0] + s[1]) + (s[2] + s[3]);
}

static void dot4_scalar(const float *a, int64_t lda, const float *b, int64_t n, float *out)
{
	for (int r = 0; r < 4; r++)
		out[r] = dot_scalar(a + r * lda, b, n);
}

static void axpy_scalar(float *y, const float *x, float a, int64_t n)
{
	for (int64_t i = 0; i < n; i++)
		y[i] += a * x[i];
}

#if OX_X86
/* The ends of dot_avx2 and dot_avx512 (gemv_impl.h), after n < 2 vectors are left: the
 * accumulators' lanes in order, then the last products one by one. */
OX_TARGET_AVX2 static float dot_tail_avx2(const float *a, const float *b, int64_t n, __m256 s0, __m256 s1)
{
	float t[8], s = 0;
	_mm256_storeu_ps(t, _mm256_add_ps(s0, s1));
	for (int l = 0; l < 8; l++)
		s += t[l];
	for (int64_t i = 0; i < n; i++)
		s += a[i] * b[i];
	return s;
}

/* The last products by masked loads, one vector into each accumulator, then their sum. */
OX_TARGET_AVX512 static float dot_tail_avx512(const float *a, const float *b, int64_t n, __m512 s0, __m512 s1)
{
	if (n > 0) {
		__mmask16 m = n >= 16 ? 0xffff : (__mmask16)((1u << n) - 1);
		s0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a), _mm512_maskz_loadu_ps(m, b), s0);
	}
	if (n > 16) {
		__mmask16 m = (__mmask16)((1u << (n - 16)) - 1);
		s1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(m, a + 16), _mm512_maskz_loadu_ps(m, b + 16), s1);
	}
	return _mm512_reduce_add_ps(_mm512_add_ps(s0, s1));
}

#include "simd_avx2.h"
#include "gemv_impl.h"
#include "simd_end.h"

#include "simd_avx512.h"
#include "gemv_impl.h"
#include "simd_end.h"
#endif

typedef struct vec_ops {
	float (*dot)(const float *a, const float *b, int64_t n);
	void (*dot4)(const float *a, int64_t lda, const float *b, int64_t n, float *out);
	void (*axpy)(float *y, const float *x, float a, int64_t n);
} vec_ops;

static vec_ops vec_ops_at(int level)
{
	int l = ox_cpu_level() < level ? ox_cpu_level() : level;
	vec_ops v = {dot_scalar, dot4_scalar, axpy_scalar};
#if OX_X86
	if (l >= OX_CPU_AVX512)
		v = (vec_ops){dot_avx512, dot4_avx512, axpy_avx512};
	else if (l >= OX_CPU_AVX2)
		v = (vec_ops){dot_avx2, dot4_avx2, axpy_avx2};
#endif
	(void)l;
	return v;
}

/* y[r*ys] = alpha * sum over q of M(r, q) * x[q*xs] + beta * y[r*ys] for r < rows, with
 * M(r, q) = p[r*si + q*sk] and si or sk equal to 1. */
typedef struct gemv_args {
	int64_t rows, k;
	const float *p;
	int64_t si, sk;
	const float *x;
	int64_t xs;
	float *y;
	int64_t ys;
} gemv_args;

/* One task's outputs [lo, hi): with rows of M contiguous (dot), a dot product each; else
 * the columns' slice of t, summed over q in order (dot4: four rows at once, each
 * summed as by dot). Each output's sum is the same whichever
 * task computes it, so any split gives the bits of one thread. */
typedef struct gemv_job {
	const gemv_args *g;
	vec_ops v;
	bool dot;
	float *t, alpha, beta;
	int64_t step;
} gemv_job;

static void store_y(const gemv_job *J, int64_t r, float sum)
{
	float s = J->alpha * sum, *y = J->g->y + r * J->g->ys;
	*y = J->beta == 0 ? s : s + J->beta * *y;
}

static void gemv_range(const gemv_job *J, int64_t lo, int64_t hi)
{
	const gemv_args *g = J->g;
	float d[4];
	if (J->dot)
		for (; lo + 4 <= hi; lo += 4) {
			J->v.dot4(g->p + lo * g->si, g->si, J->t, g->k, d);
			for (int r = 0; r < 4; r++)
				store_y(J, lo + r, d[r]);
		}
	else {
		memset(J->t + lo, 0, (size_t)(hi - lo) * sizeof(float));
		for (int64_t q = 0; q < g->k; q++)
			J->v.axpy(J->t + lo, g->p + q * g->sk + lo, g->x[q * g->xs], hi - lo);
	}
	for (int64_t r = lo; r < hi; r++)
		store_y(J, r, J->dot ? J->v.dot(g->p + r * g->si, J->t, g->k) : J->t[r]);
}

static void gemv_task(void *ctx, int64_t i)
{
	const gemv_job *J = ctx;
	int64_t lo = i * J->step, hi = lo + J->step < J->g->rows ? lo + J->step : J->g->rows;
	gemv_range(J, lo, hi);
}

/* Below this many multiply-adds a product stays on one thread; above, a memory-bound
 * stream of the matrix that two cores read faster than one (fully connected layers). */
enum { GEMV_PAR_MIN = 1 << 16, GEMV_UNIT = 64 };

/* Tasks of whole GEMV_UNIT outputs, four per thread, or one task below the threshold. */
static int64_t gemv_split(gemv_job *J, int threads)
{
	int64_t rows = J->g->rows, units = (rows + GEMV_UNIT - 1) / GEMV_UNIT;
	int64_t tasks = units < 4 * (int64_t)threads ? units : 4 * (int64_t)threads;
	if (threads <= 1 || rows * J->g->k < GEMV_PAR_MIN || tasks <= 1) {
		J->step = rows;
		return 1;
	}
	J->step = (units + tasks - 1) / tasks * GEMV_UNIT;
	return (rows + J->step - 1) / J->step;
}

static int gemv(int level, const gemv_args *g, float alpha, float beta)
{
	gemv_job J = {g, vec_ops_at(level), g->sk == 1, NULL, alpha, beta, 0};
	J.t = malloc((size_t)(J.dot ? g->k : g->rows) * sizeof(float) + 1);
	if (!J.t)
		return -1;
	if (J.dot)
		for (int64_t q = 0; q < g->k; q++)
			J.t[q] = g->x[q * g->xs];
	ox_parallel_for(gemv_split(&J, ox_threads()), gemv_task, &J);
	free(J.t);
	return 0;
}

/* A product of one row or one column of strided operands as a gemv; 1 when it is neither. */
static int as_gemv(int level, int64_t m, int64_t n, int64_t k, float alpha, const ox_gemm_src *a,
		   const ox_gemm_src *b, float beta, float *c, int64_t ldc)
{
	/* a packed A may be the only form of its values (ox_conv_prepack with a scale) */
	bool strided = a->pack == ox_gemm_pack_strided && b->pack == ox_gemm_pack_strided && !a->packed;
	if (!strided || k <= 0 || m <= 0 || n <= 0 || (m != 1 && n != 1))
		return 1;
	gemv_args g;
	if (m == 1)
		g = (gemv_args){n, k, b->p, b->si, b->sk, a->p, a->sk, c, 1};
	else
		g = (gemv_args){m, k, a->p, a->si, a->sk, b->p, b->sk, c, ldc};
	if (g.si != 1 && g.sk != 1)
		return 1;
	return gemv(level, &g, alpha, beta);
}

int ox_sgemm_src(int level, int64_t m, int64_t n, int64_t k, float alpha, const ox_gemm_src *a,
		 const ox_gemm_src *b, float beta, float *c, int64_t ldc)
{
	int rc = as_gemv(level, m, n, k, alpha, a, b, beta, c, ldc);
	return rc <= 0 ? rc : run(pick(level, m), m, n, k, alpha, a, b, beta, c, ldc);
}

int ox_sgemm_variant(int v, int64_t m, int64_t n, int64_t k, float alpha, const ox_gemm_src *a,
		     const ox_gemm_src *b, float beta, float *c, int64_t ldc)
{
	if (v < 0 || v >= NVARIANTS)
		return -1;
	return run(&variants[v], m, n, k, alpha, a, b, beta, c, ldc);
}

int ox_sgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float *a, int64_t lda,
	     const float *b, int64_t ldb, float beta, float *c, int64_t ldc)
{
	ox_gemm_src sa = ox_gemm_a(a, lda, ta), sb = ox_gemm_b(b, ldb, tb);
	return ox_sgemm_src(OX_CPU_AVX512, m, n, k, alpha, &sa, &sb, beta, c, ldc);
}

/* ---- double ---------------------------------------------------------------------- */

void ox_dgemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, double alpha, const double *a, int64_t lda,
	      const double *b, int64_t ldb, double beta, double *c, int64_t ldc)
{
	int64_t ai = ta ? 1 : lda, ak = ta ? lda : 1, bk = tb ? 1 : ldb, bj = tb ? ldb : 1;
	for (int64_t i = 0; i < m; i++) {
		double *ci = c + i * ldc;
		for (int64_t j = 0; j < n; j++)
			ci[j] = beta == 0 ? 0 : beta * ci[j];
		for (int64_t p = 0; p < k; p++) {
			double x = alpha * a[i * ai + p * ak];
			const double *bp = b + p * bk;
			for (int64_t j = 0; j < n; j++)
				ci[j] += x * bp[j * bj];
		}
	}
}
