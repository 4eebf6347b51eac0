/* Strided copies and transposes over elements of any size: the engine under Transpose,
 * Slice, Expand, Tile, Pad, DepthToSpace and friends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/simd/cpu.h"
#include "move.h"

#if OX_X86
#include <immintrin.h>
#endif

/* Elements are moved as unsigned integers of their size; 16 bytes covers complex128 and
 * ox_str. */
typedef struct e16 {
	uint64_t a, b;
} e16;

void ox_strides(int rank, const int64_t *dims, int64_t *strides)
{
	int64_t s = 1;
	for (int i = rank - 1; i >= 0; i--) {
		strides[i] = s;
		s *= dims[i];
	}
}

const char *ox_fmt_dims(char *buf, size_t cap, int rank, const int64_t *dims)
{
	size_t n = (size_t)snprintf(buf, cap, "[");
	for (int i = 0; i < rank && n < cap; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? ", " : "", (long long)dims[i]);
	if (n < cap)
		n += (size_t)snprintf(buf + n, cap - n, "]");
	if (n >= cap && cap > 4)
		memcpy(buf + cap - 4, "...", 4);
	return buf;
}

void ox_copy_elems(void *dst, const void *src, size_t esize, int64_t n)
{
	if (n > 0)
		memcpy(dst, src, (size_t)n * esize);
}

/* Drops dims of size 1 and merges neighbours that the strides lay out as one, so that the
 * loops below run over as few and as long rows as possible. Returns the new rank, or -1
 * when the shape is empty. d and s are rewritten in place; dstr (when given) are strides
 * of a second operand that must be merged consistently. */
static int collapse(int rank, int64_t *d, int64_t *s, int64_t *dstr)
{
	int r = 0;
	for (int i = 0; i < rank; i++) {
		if (d[i] == 0)
			return -1;
		if (d[i] == 1)
			continue;
		if (r > 0 && s[r - 1] == s[i] * d[i] && (!dstr || dstr[r - 1] == dstr[i] * d[i])) {
			d[r - 1] *= d[i];
			s[r - 1] = s[i];
			if (dstr)
				dstr[r - 1] = dstr[i];
			continue;
		}
		d[r] = d[i];
		s[r] = s[i];
		if (dstr)
			dstr[r] = dstr[i];
		r++;
	}
	return r;
}

/* One row: n elements read with stride st (in elements). */
static void copy_row(char *dst, const char *src, size_t es, int64_t n, int64_t st)
{
	if (st == 1) {
		memcpy(dst, src, (size_t)n * es);
		return;
	}
#define ROW(T)                                                  \
	do {                                                    \
		T *o = (T *)(void *)dst;                        \
		const T *x = (const T *)(const void *)src;      \
		for (int64_t i = 0; i < n; i++)                 \
			memcpy(&o[i], &x[i * st], sizeof(T));   \
	} while (0)
	switch (es) {
	case 1: ROW(uint8_t); break;
	case 2: ROW(uint16_t); break;
	case 4: ROW(uint32_t); break;
	case 8: ROW(uint64_t); break;
	case 16: ROW(e16); break;
	default:
		for (int64_t i = 0; i < n; i++)
			memcpy(dst + (size_t)i * es, src + i * st * (int64_t)es, es);
	}
#undef ROW
}

/* Steps a row-major odometer over dims d[0..n) and moves the two offsets along by the
 * strides. Returns false once it wraps around. */
static bool advance(int n, const int64_t *d, int64_t *idx, const int64_t *sa, int64_t *a, const int64_t *sb,
		    int64_t *b)
{
	for (int k = n - 1; k >= 0; k--) {
		*a += sa[k];
		*b += sb[k];
		if (++idx[k] < d[k])
			return true;
		*a -= sa[k] * d[k];
		*b -= sb[k] * d[k];
		idx[k] = 0;
	}
	return false;
}

void ox_copy_strided(void *dst, const void *src, size_t esize, int rank, const int64_t *dims, const int64_t *sstr)
{
	int64_t d[OX_MOVE_MAX_RANK], s[OX_MOVE_MAX_RANK], ostr[OX_MOVE_MAX_RANK], idx[OX_MOVE_MAX_RANK] = {0};
	memcpy(d, dims, (size_t)rank * sizeof *d);
	memcpy(s, sstr, (size_t)rank * sizeof *s);
	int r = collapse(rank, d, s, NULL);
	if (r < 0)
		return;
	if (r == 0) {
		memcpy(dst, src, esize);
		return;
	}
	int64_t n = d[r - 1], st = s[r - 1];
	ox_strides(r - 1, d, ostr);
	for (int k = 0; k < r - 1; k++)
		ostr[k] *= n;
	int64_t so = 0, o = 0;
	do
		copy_row((char *)dst + o * (int64_t)esize, (const char *)src + so * (int64_t)esize, esize, n, st);
	while (advance(r - 1, d, idx, s, &so, ostr, &o));
}

/* ---- transpose ------------------------------------------------------------------- */

/* dst[x*ldd + y] = src[x*sx + y*sy] for x < nx, y < ny: the reference loops, used for
 * the edges of the blocked version below and for unusual strides. */
#define PLAIN2D(T)                                                                                   \
	static void plain2d_##T(char *dst, const char *src, int64_t nx, int64_t ny, int64_t ldd, int64_t sx, \
				int64_t sy)                                                          \
	{                                                                                            \
		T *o = (T *)(void *)dst;                                                             \
		const T *x = (const T *)(const void *)src;                                           \
		for (int64_t i = 0; i < nx; i++)                                                     \
			for (int64_t j = 0; j < ny; j++)                                             \
				memcpy(&o[i * ldd + j], &x[i * sx + j * sy], sizeof(T));             \
	}
PLAIN2D(uint8_t)
PLAIN2D(uint16_t)
PLAIN2D(uint32_t)
PLAIN2D(uint64_t)
PLAIN2D(e16)
#undef PLAIN2D

static void plain2d(char *dst, const char *src, size_t es, int64_t nx, int64_t ny, int64_t ldd, int64_t sx, int64_t sy)
{
	switch (es) {
	case 1: plain2d_uint8_t(dst, src, nx, ny, ldd, sx, sy); break;
	case 2: plain2d_uint16_t(dst, src, nx, ny, ldd, sx, sy); break;
	case 4: plain2d_uint32_t(dst, src, nx, ny, ldd, sx, sy); break;
	case 8: plain2d_uint64_t(dst, src, nx, ny, ldd, sx, sy); break;
	case 16: plain2d_e16(dst, src, nx, ny, ldd, sx, sy); break;
	default:
		for (int64_t i = 0; i < nx; i++)
			for (int64_t j = 0; j < ny; j++)
				memcpy(dst + (i * ldd + j) * (int64_t)es, src + (i * sx + j * sy) * (int64_t)es, es);
	}
}

/* An 8x8 block with contiguous source rows: dst[x*ldd + y] = src[y*sy + x]. Fixed trip
 * counts let the compiler keep the block in registers. */
typedef void (*block8_fn)(char *dst, int64_t ldd, const char *src, int64_t sy);

#define BLOCK8(T)                                                                           \
	static void block8_##T(char *dst, int64_t ldd, const char *src, int64_t sy)         \
	{                                                                                   \
		T b[8][8];                                                                  \
		for (int y = 0; y < 8; y++)                                                 \
			memcpy(b[y], src + y * sy * (int64_t)sizeof(T), sizeof b[y]);      \
		for (int x = 0; x < 8; x++)                                                 \
			for (int y = 0; y < 8; y++)                                         \
				memcpy(dst + (x * ldd + y) * (int64_t)sizeof(T), &b[y][x], sizeof(T)); \
	}
BLOCK8(uint8_t)
BLOCK8(uint16_t)
BLOCK8(uint32_t)
BLOCK8(uint64_t)
#undef BLOCK8

#if OX_X86
/* 8x8 32-bit elements in registers: unpack pairs, shuffle quads, swap 128-bit halves. */
OX_TARGET_AVX2 static void block8_32_avx2(char *dst, int64_t ldd, const char *src, int64_t sy)
{
	__m256 r[8], t[8], u[8];
	for (int y = 0; y < 8; y++)
		r[y] = _mm256_loadu_ps((const float *)(const void *)(src + y * sy * 4));
	for (int y = 0; y < 8; y += 2) {
		t[y] = _mm256_unpacklo_ps(r[y], r[y + 1]);
		t[y + 1] = _mm256_unpackhi_ps(r[y], r[y + 1]);
	}
	for (int y = 0; y < 8; y += 4) {
		u[y] = _mm256_shuffle_ps(t[y], t[y + 2], _MM_SHUFFLE(1, 0, 1, 0));
		u[y + 1] = _mm256_shuffle_ps(t[y], t[y + 2], _MM_SHUFFLE(3, 2, 3, 2));
		u[y + 2] = _mm256_shuffle_ps(t[y + 1], t[y + 3], _MM_SHUFFLE(1, 0, 1, 0));
		u[y + 3] = _mm256_shuffle_ps(t[y + 1], t[y + 3], _MM_SHUFFLE(3, 2, 3, 2));
	}
	for (int x = 0; x < 4; x++) {
		_mm256_storeu_ps((float *)(void *)(dst + x * ldd * 4), _mm256_permute2f128_ps(u[x], u[x + 4], 0x20));
		_mm256_storeu_ps((float *)(void *)(dst + (x + 4) * ldd * 4), _mm256_permute2f128_ps(u[x], u[x + 4], 0x31));
	}
}

/* 8x8 64-bit elements as four 4x4 transposes. */
OX_TARGET_AVX2 static void block8_64_avx2(char *dst, int64_t ldd, const char *src, int64_t sy)
{
	for (int by = 0; by < 8; by += 4)
		for (int bx = 0; bx < 8; bx += 4) {
			__m256d r[4], t[4];
			for (int y = 0; y < 4; y++)
				r[y] = _mm256_loadu_pd((const double *)(const void *)(src + ((by + y) * sy + bx) * 8));
			t[0] = _mm256_unpacklo_pd(r[0], r[1]);
			t[1] = _mm256_unpackhi_pd(r[0], r[1]);
			t[2] = _mm256_unpacklo_pd(r[2], r[3]);
			t[3] = _mm256_unpackhi_pd(r[2], r[3]);
			for (int x = 0; x < 2; x++) {
				double *o = (double *)(void *)(dst + ((bx + x) * ldd + by) * 8);
				_mm256_storeu_pd(o, _mm256_permute2f128_pd(t[x], t[x + 2], 0x20));
				_mm256_storeu_pd(o + 2 * ldd, _mm256_permute2f128_pd(t[x], t[x + 2], 0x31));
			}
		}
}
#endif

static block8_fn block8_for(size_t es, int level)
{
#if OX_X86
	if (level >= OX_CPU_AVX2 && (es == 4 || es == 8))
		return es == 4 ? block8_32_avx2 : block8_64_avx2;
#endif
	switch (es) {
	case 1: return block8_uint8_t;
	case 2: return block8_uint16_t;
	case 4: return block8_uint32_t;
	case 8: return block8_uint64_t;
	default: return NULL;
	}
}

/* dst[x*ldd + y] = src[x*sx + y*sy] for x < nx, y < ny: 8x8 register blocks when the
 * source is contiguous along x, grouped into squares one cache line wide so that every
 * line read or written is used whole before the next square (with power-of-two strides
 * all the rows of a square share a cache set). The plain loops take the edges. */
static void tile2d(char *dst, const char *src, size_t es, int64_t nx, int64_t ny, int64_t ldd, int64_t sx, int64_t sy,
		   int level)
{
	block8_fn f = sx == 1 ? block8_for(es, level) : NULL;
	if (!f || nx < 8 || ny < 8) {
		plain2d(dst, src, es, nx, ny, ldd, sx, sy);
		return;
	}
	int64_t e = (int64_t)es, fx = nx & ~(int64_t)7, fy = ny & ~(int64_t)7, L = 64 / e < 8 ? 8 : 64 / e;
	for (int64_t x0 = 0; x0 < fx; x0 += L)
		for (int64_t y0 = 0; y0 < fy; y0 += L)
			for (int64_t x = x0; x < x0 + L && x < fx; x += 8)
				for (int64_t y = y0; y < y0 + L && y < fy; y += 8)
					f(dst + (x * ldd + y) * e, ldd, src + (x + y * sy) * e, sy);
	if (fy < ny)
		plain2d(dst + fy * e, src + fy * sy * e, es, fx, ny - fy, ldd, sx, sy);
	if (fx < nx)
		plain2d(dst + fx * ldd * e, src + fx * e, es, nx - fx, ny, ldd, sx, sy);
}

/* The collapsed transpose whose innermost output axis is not the input's innermost one:
 * a batch of 2-D transposes between that axis and the output axis q the input walks
 * most contiguously, over every other axis. */
static void transpose_tiled(char *dst, const char *src, size_t es, int r, const int64_t *d, const int64_t *s,
			    int level)
{
	int64_t ostr[OX_MAX_RANK], bd[OX_MAX_RANK], bs[OX_MAX_RANK], bo[OX_MAX_RANK], idx[OX_MAX_RANK] = {0};
	ox_strides(r, d, ostr);
	int q = 0;
	for (int k = 1; k < r - 1; k++)
		if (s[k] < s[q])
			q = k;
	int nb = 0;
	for (int k = 0; k < r - 1; k++)
		if (k != q) {
			bd[nb] = d[k];
			bs[nb] = s[k];
			bo[nb++] = ostr[k];
		}
	int64_t so = 0, o = 0;
	do
		tile2d(dst + o * (int64_t)es, src + so * (int64_t)es, es, d[q], d[r - 1], ostr[q], s[q], s[r - 1], level);
	while (advance(nb, bd, idx, bs, &so, bo, &o));
}

void ox_transpose(void *dst, const void *src, size_t esize, int rank, const int64_t *dims, const int *perm)
{
	ox_transpose_at(dst, src, esize, rank, dims, perm, ox_cpu_level());
}

void ox_transpose_at(void *dst, const void *src, size_t esize, int rank, const int64_t *dims, const int *perm,
		     int level)
{
	int64_t istr[OX_MAX_RANK], d[OX_MAX_RANK], s[OX_MAX_RANK];
	ox_strides(rank, dims, istr);
	for (int i = 0; i < rank; i++) {
		d[i] = dims[perm[i]];
		s[i] = istr[perm[i]];
	}
	int r = collapse(rank, d, s, NULL);
	if (r < 0)
		return;
	/* after collapsing, an innermost stride of 1 means whole rows move as they are */
	if (r <= 1 || s[r - 1] == 1)
		ox_copy_strided(dst, src, esize, r, d, s);
	else
		transpose_tiled(dst, src, esize, r, d, s, level);
}

void ox_transpose_naive(void *dst, const void *src, size_t esize, int rank, const int64_t *dims, const int *perm)
{
	int64_t istr[OX_MAX_RANK], od[OX_MAX_RANK];
	ox_strides(rank, dims, istr);
	for (int i = 0; i < rank; i++)
		od[i] = dims[perm[i]];
	int64_t n = ox_shape_count(rank, od);
	for (int64_t o = 0; o < n; o++) {
		int64_t rest = o, si = 0;
		for (int i = rank - 1; i >= 0; i--) {
			si += rest % od[i] * istr[perm[i]];
			rest /= od[i];
		}
		memcpy((char *)dst + o * (int64_t)esize, (const char *)src + si * (int64_t)esize, esize);
	}
}

/* ---- strings --------------------------------------------------------------------- */

bool ox_strings_own(ox_str *s, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		if (!s[i].p)
			continue;
		char *c = malloc(s[i].n + 1);
		if (!c) {
			memset(&s[i], 0, (size_t)(n - i) * sizeof *s);
			return false;
		}
		memcpy(c, s[i].p, s[i].n);
		c[s[i].n] = '\0';
		s[i].p = c;
	}
	return true;
}

bool ox_tensor_own(ox_val *t)
{
	return t->type != OX_STRING || ox_strings_own(t->data, t->count);
}

/* ---- kernel helpers -------------------------------------------------------------- */

int64_t ox_ints_arg(ox_k *k, bool from_input, int input, const char *name, int64_t *buf, int64_t cap)
{
	if (from_input) {
		if (!ox_in(k, input))
			return -2;
		return ox_in_ints(k, input, buf, cap, name);
	}
	const int64_t *v;
	int64_t n = ox_attr_ints(k, name, &v);
	if (n < 0)
		return -2;
	if (n > cap)
		return ox_kfail(k, "attribute '%s' has %lld values, more than the %lld allowed", name, (long long)n,
				(long long)cap);
	if (n)
		memcpy(buf, v, (size_t)n * sizeof *buf);
	return n;
}

int ox_out_view(ox_k *k, ox_val *x, int rank, const int64_t *dims)
{
	ox_val *v = ox_tensor_view(x, rank, dims);
	if (!v)
		return ox_kfail(k, "out of memory");
	ox_out_set(k, 0, v);
	return 0;
}

int ox_out_own(ox_k *k, ox_val *y)
{
	return ox_tensor_own(y) ? 0 : ox_kfail(k, "out of memory");
}
