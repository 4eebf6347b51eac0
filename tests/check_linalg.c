/* Unit tests for the GEMM core (every micro-kernel against a plain triple loop) and for
 * the float Conv and ConvTranspose (every CPU level against direct loops that follow the
 * operators' definitions); packed weights and 1, 2 or 3 threads give the same bits. */
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval/ops/conv.h"
#include "eval/simd/cpu.h"
#include "eval/simd/dconv.h"
#include "eval/simd/gemm.h"
#include "eval/kernel.h"
#include "eval/threads.h"
#include "testutil.h"

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}

static int64_t pick(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(next() % (uint64_t)(hi - lo + 1));
}

static float frand(void)
{
	return (float)((double)(next() % 2000001) / 1000000.0 - 1.0);
}

static float *frand_n(int64_t n)
{
	/* 64-byte aligned like tensor data, so that whole rows of C can be streamed */
	float *p = aligned_alloc(64, (size_t)(n / 16 + 1) * 64);
	for (int64_t i = 0; i < n; i++)
		p[i] = frand();
	return p;
}

/* got within a tolerance of ref, scaled by the sum of the magnitudes that made it. */
static bool close_to(double got, double ref, double mag)
{
	return fabs(got - ref) <= 1e-5 * mag + 1e-6;
}

/* ---- GEMM ---------------------------------------------------------------------------- */

typedef struct gcase {
	bool ta, tb;
	int64_t m, n, k, lda, ldb, ldc;
	float alpha, beta;
} gcase;

/* Runs one case with variant v (or at level when v < 0) and compares every element of
 * the ldc-strided C, including the columns beyond n that must stay untouched. */
static void check_gemm(int v, int level, const gcase *g)
{
	int64_t ar = g->ta ? g->k : g->m, br = g->tb ? g->n : g->k;
	float *a = frand_n(ar * g->lda), *b = frand_n(br * g->ldb), *c = frand_n(g->m * g->ldc);
	float *c0 = malloc((size_t)(g->m * g->ldc + 1) * sizeof(float));
	memcpy(c0, c, (size_t)(g->m * g->ldc) * sizeof(float));
	if (g->beta == 0)
		for (int64_t i = 0; i < g->m * g->ldc; i++)
			c[i] = (i % g->ldc) < g->n ? NAN : c0[i]; /* beta 0 must not read C */
	ox_gemm_src sa = ox_gemm_a(a, g->lda, g->ta), sb = ox_gemm_b(b, g->ldb, g->tb);
	int rc = v >= 0 ? ox_sgemm_variant(v, g->m, g->n, g->k, g->alpha, &sa, &sb, g->beta, c, g->ldc)
			: ox_sgemm_src(level, g->m, g->n, g->k, g->alpha, &sa, &sb, g->beta, c, g->ldc);
	REQUIRE(rc == 0, "gemm failed");
	for (int64_t i = 0; i < g->m; i++)
		for (int64_t j = 0; j < g->ldc; j++) {
			double ref = c0[i * g->ldc + j], mag = fabs(ref);
			if (j < g->n) {
				double s = 0, sm = 0;
				for (int64_t q = 0; q < g->k; q++) {
					double x = a[g->ta ? q * g->lda + i : i * g->lda + q];
					double y = b[g->tb ? j * g->ldb + q : q * g->ldb + j];
					s += x * y, sm += fabs(x * y);
				}
				ref = g->alpha * s + (g->beta == 0 ? 0 : g->beta * ref);
				mag = fabs(g->alpha) * sm + fabs(g->beta * mag);
			}
			double got = c[i * g->ldc + j];
			REQUIRE(close_to(got, ref, mag),
				"variant %d level %d: %s%s m=%lld n=%lld k=%lld alpha=%g beta=%g: C[%lld,%lld] is %.9g, expected %.9g",
				v, level, g->ta ? "A'" : "A", g->tb ? "B'" : "B", (long long)g->m, (long long)g->n,
				(long long)g->k, g->alpha, g->beta, (long long)i, (long long)j, got, ref);
		}
	free(a);
	free(b);
	free(c);
	free(c0);
}

static gcase gemm_case(int64_t m, int64_t n, int64_t k, unsigned flags)
{
	gcase g = {flags & 1, (flags >> 1) & 1, m, n, k, 0, 0, 0, 1, 0};
	int64_t pad = (flags >> 2) & 1 ? pick(1, 5) : 0;
	g.lda = (g.ta ? m : k) + pad;
	g.ldb = (g.tb ? k : n) + pad;
	g.ldc = n + pad;
	if (g.lda == 0)
		g.lda = 1;
	if (g.ldb == 0)
		g.ldb = 1;
	if (g.ldc == 0)
		g.ldc = 1;
	static const float alphas[] = {1, 1, -0.5f, 2};
	static const float betas[] = {0, 1, 0.25f, -1};
	g.alpha = alphas[(flags >> 3) & 3];
	g.beta = betas[(flags >> 5) & 3];
	return g;
}

static bool variant_runs(const ox_gemm_variant *v)
{
	return v->level <= ox_cpu_level();
}

/* Sizes around every register block: 0, 1, the block, the block plus and minus one, and
 * around half a block's width (the narrow kernel's tiles). */
START_TEST(gemm_edges)
{
	const ox_gemm_variant *v = ox_gemm_variant_info(_i);
	if (!variant_runs(v))
		return;
	int64_t ms[] = {0, 1, 2, v->mr - 1, v->mr, v->mr + 1, 2 * v->mr + 3};
	int64_t ns[] = {0, 1, 3, v->nr / 2, v->nr / 2 + 1, v->nr - 1, v->nr, v->nr + 1, v->nr + v->nr / 2, 2 * v->nr + 5};
	int64_t ks[] = {0, 1, 2, 7, 33};
	unsigned flags = 0;
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
		for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++)
			for (size_t q = 0; q < sizeof ks / sizeof ks[0]; q++) {
				gcase g = gemm_case(ms[i], ns[j], ks[q], flags++ * 37u);
				check_gemm(_i, 0, &g);
			}
}
END_TEST

/* Random shapes large enough to cross the cache blocks (several KC, MC, NC). */
START_TEST(gemm_random)
{
	if (!variant_runs(ox_gemm_variant_info(_i)))
		return;
	for (int t = 0; t < 24; t++) {
		int64_t big = t % 6 == 0;
		gcase g = gemm_case(pick(1, big ? 500 : 80), pick(1, big ? 300 : 100), pick(1, big ? 700 : 300),
				    (unsigned)next());
		check_gemm(_i, 0, &g);
	}
}
END_TEST

/* Every transpose and alpha/beta combination at one odd size, through the level picker. */
START_TEST(gemm_levels)
{
	for (int level = OX_CPU_SCALAR; level <= ox_cpu_level() && level <= OX_CPU_AVX512; level++)
		for (unsigned f = 0; f < 128; f++) {
			int64_t m = f % 3 == 0 ? 64 : 37;
			gcase g = gemm_case(m, 45, 29, f);
			check_gemm(-1, level, &g);
		}
}
END_TEST

/* A C of 4M elements or more, written in one pass, is stored past the caches: aligned and
 * unaligned rows, full and partial tiles. */
START_TEST(gemm_streaming)
{
	if (!variant_runs(ox_gemm_variant_info(_i)))
		return;
	gcase g = gemm_case(2054, 2048, 9, 0);
	check_gemm(_i, 0, &g);
	g = gemm_case(1999, 2111, 5, 1 | 4);
	check_gemm(_i, 0, &g);
}
END_TEST

/* One row or one column: the matrix-vector paths, every transpose and stride. */
START_TEST(gemv_levels)
{
	int64_t sizes[] = {1, 2, 15, 16, 17, 31, 33, 100, 257};
	for (int level = OX_CPU_SCALAR; level <= ox_cpu_level() && level <= OX_CPU_AVX512; level++)
		for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
			for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j += 2) {
				unsigned f = (unsigned)next();
				gcase g = gemm_case(1, sizes[i], sizes[j], f);
				check_gemm(-1, level, &g);
				g = gemm_case(sizes[j], 1, sizes[i], f >> 8);
				check_gemm(-1, level, &g);
			}
}
END_TEST

/* ox_sgemm's plain entry point, and double, against the same references. */
START_TEST(gemm_entry_points)
{
	float a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {1, 0, -1, 2, 0.5f, 1}, c[4] = {NAN, NAN, NAN, NAN};
	/* [2,3] x [3,2] */
	ck_assert_int_eq(ox_sgemm(false, false, 2, 2, 3, 1, a, 3, b, 2, 0, c, 2), 0);
	ck_assert(c[0] == 1 * 1 + 2 * -1 + 3 * 0.5f && c[1] == 0 + 4 + 3);
	ck_assert(c[2] == 4 - 5 + 3 && c[3] == 0 + 10 + 6);
	double da[6] = {1, 2, 3, 4, 5, 6}, db[6] = {1, 0, -1, 2, 0.5, 1}, dc[4] = {1, 1, 1, 1};
	/* A' x B' with A stored [3,2] and B stored [2,3] */
	ox_dgemm(true, true, 2, 2, 3, 2, da, 2, db, 3, 1, dc, 2);
	ck_assert(dc[0] == 1 + 2 * (1 * 1 + 3 * 0 + 5 * -1));
	ck_assert(dc[1] == 1 + 2 * (1 * 2 + 3 * 0.5 + 5 * 1));
	ck_assert(dc[2] == 1 + 2 * (2 * 1 + 4 * 0 + 6 * -1));
	ck_assert(dc[3] == 1 + 2 * (2 * 2 + 4 * 0.5 + 6 * 1));
}
END_TEST

/* ---- Conv and ConvTranspose ---------------------------------------------------------- */

static int64_t prod(int n, const int64_t *d)
{
	int64_t p = 1;
	for (int i = 0; i < n; i++)
		p *= d[i];
	return p;
}

/* idx as a flat index of dims, and the reverse. */
static void unflat(int n, const int64_t *dims, int64_t q, int64_t *idx)
{
	for (int i = n - 1; i >= 0; i--) {
		idx[i] = q % dims[i];
		q /= dims[i];
	}
}

/* The input element a conv output position and tap read, or -1 in the padding. */
static int64_t conv_src(const ox_conv_geom *g, const int64_t *o, const int64_t *t)
{
	int64_t at = 0;
	for (int i = 0; i < g->nsp; i++) {
		int64_t x = o[i] * g->stride[i] + t[i] * g->dil[i] - g->pad0[i];
		if (x < 0 || x >= g->in[i])
			return -1;
		at = at * g->in[i] + x;
	}
	return at;
}

/* Conv by its definition, in double; mag gets the sum of the magnitudes of the terms. */
static void ref_conv(const ox_conv_geom *g, const float *x, const float *w, const float *bias, double *y,
		     double *mag)
{
	int64_t cin_g = g->cin / g->group, cout_g = g->cout / g->group, ins = prod(g->nsp, g->in);
	int64_t outs = prod(g->nsp, g->out), kv = prod(g->nsp, g->kernel);
	int64_t o[OX_MAX_RANK], t[OX_MAX_RANK];
	for (int64_t n = 0; n < g->batch; n++)
		for (int64_t co = 0; co < g->cout; co++)
			for (int64_t p = 0; p < outs; p++) {
				double s = bias ? bias[co] : 0, m = fabs(s);
				unflat(g->nsp, g->out, p, o);
				for (int64_t ci = 0; ci < cin_g; ci++)
					for (int64_t q = 0; q < kv; q++) {
						unflat(g->nsp, g->kernel, q, t);
						int64_t at = conv_src(g, o, t);
						if (at < 0)
							continue;
						int64_t c = co / cout_g * cin_g + ci;
						double v = (double)x[(n * g->cin + c) * ins + at] * w[(co * cin_g + ci) * kv + q];
						s += v, m += fabs(v);
					}
				y[(n * g->cout + co) * outs + p] = s;
				mag[(n * g->cout + co) * outs + p] = m;
			}
}

/* ConvTranspose by its definition: every input element scattered through every tap. */
static void ref_convt(const ox_conv_geom *g, const float *x, const float *w, const float *bias, double *y,
		      double *mag)
{
	int64_t cin_g = g->cin / g->group, cout_g = g->cout / g->group, ins = prod(g->nsp, g->in);
	int64_t outs = prod(g->nsp, g->out), kv = prod(g->nsp, g->kernel), i[OX_MAX_RANK], t[OX_MAX_RANK];
	for (int64_t q = 0; q < g->batch * g->cout * outs; q++) {
		y[q] = bias ? bias[q / outs % g->cout] : 0;
		mag[q] = fabs(y[q]);
	}
	for (int64_t n = 0; n < g->batch; n++)
		for (int64_t ci = 0; ci < g->cin; ci++)
			for (int64_t p = 0; p < ins; p++) {
				unflat(g->nsp, g->in, p, i);
				for (int64_t c = 0; c < cout_g; c++)
					for (int64_t q = 0; q < kv; q++) {
						unflat(g->nsp, g->kernel, q, t);
						int64_t at = 0;
						for (int d = 0; d < g->nsp && at >= 0; d++) {
							int64_t e = i[d] * g->stride[d] + t[d] * g->dil[d] - g->pad0[d];
							at = e < 0 || e >= g->out[d] ? -1 : at * g->out[d] + e;
						}
						if (at < 0)
							continue;
						int64_t co = ci / cin_g * cout_g + c;
						double v = (double)x[(n * g->cin + ci) * ins + p] * w[(ci * cout_g + c) * kv + q];
						y[(n * g->cout + co) * outs + at] += v;
						mag[(n * g->cout + co) * outs + at] += fabs(v);
					}
			}
}

/* A random geometry of nsp axes; kind 1 makes it depthwise, kind 2 pointwise. */
static ox_conv_geom rand_geom(int nsp, int kind, bool transpose)
{
	ox_conv_geom g;
	memset(&g, 0, sizeof g);
	g.nsp = nsp;
	g.batch = pick(1, 2);
	g.group = kind == 1 ? pick(2, 5) : pick(1, 3);
	g.cin = g.group * (kind == 1 ? 1 : pick(1, 5));
	g.cout = g.group * (kind == 1 ? pick(1, 2) : pick(1, 20));
	for (int i = 0; i < nsp; i++) {
		int64_t big = nsp == 1 ? 40 : nsp == 2 ? 14 : 6;
		g.kernel[i] = kind == 2 ? 1 : pick(1, 3);
		g.stride[i] = kind == 2 ? 1 : pick(1, 3);
		g.dil[i] = pick(1, 2);
		g.pad0[i] = kind == 2 ? 0 : pick(0, 2);
		g.pad1[i] = kind == 2 ? 0 : pick(0, 2);
		g.in[i] = pick(1, big);
		int64_t dk = (g.kernel[i] - 1) * g.dil[i] + 1;
		if (transpose) {
			int64_t full = (g.in[i] - 1) * g.stride[i] + dk;
			if (g.pad0[i] + g.pad1[i] >= full)
				g.pad0[i] = g.pad1[i] = 0;
			g.out[i] = full - g.pad0[i] - g.pad1[i] + pick(0, g.stride[i] - 1);
			g.pad1[i] = full - g.out[i] - g.pad0[i]; /* output_padding as a negative end pad */
		} else {
			if (g.in[i] + g.pad0[i] + g.pad1[i] < dk)
				g.in[i] = dk;
			g.out[i] = (g.in[i] + g.pad0[i] + g.pad1[i] - dk) / g.stride[i] + 1;
		}
	}
	return g;
}

static void describe(char *buf, size_t n, const ox_conv_geom *g)
{
	int at = snprintf(buf, n, "N%lld Cin%lld Cout%lld G%lld:", (long long)g->batch, (long long)g->cin,
			  (long long)g->cout, (long long)g->group);
	for (int i = 0; i < g->nsp; i++)
		at += snprintf(buf + at, n - (size_t)at, " [in %lld k %lld s %lld d %lld p %lld,%lld out %lld]",
			       (long long)g->in[i], (long long)g->kernel[i], (long long)g->stride[i], (long long)g->dil[i],
			       (long long)g->pad0[i], (long long)g->pad1[i], (long long)g->out[i]);
}

static void check_conv(const ox_conv_geom *g, bool transpose, int level)
{
	int64_t xs = g->batch * g->cin * prod(g->nsp, g->in), ys = g->batch * g->cout * prod(g->nsp, g->out);
	int64_t ws = (transpose ? g->cin * (g->cout / g->group) : g->cout * (g->cin / g->group)) *
		     prod(g->nsp, g->kernel);
	float *x = frand_n(xs), *w = frand_n(ws), *b = next() % 2 ? frand_n(g->cout) : NULL, *y = frand_n(ys);
	double *ref = malloc((size_t)ys * sizeof(double)), *mag = malloc((size_t)ys * sizeof(double));
	char what[512];
	describe(what, sizeof what, g);
	int rc = transpose ? ox_conv_transpose_f32(level, g, x, w, b, y) : ox_conv_f32(level, g, x, w, b, y);
	REQUIRE(rc == 0, "%s failed", what);
	(transpose ? ref_convt : ref_conv)(g, x, w, b, ref, mag);
	for (int64_t q = 0; q < ys; q++)
		REQUIRE(close_to(y[q], ref[q], mag[q]), "%s%s level %d, bias %d: Y[%lld] is %.9g, expected %.9g",
			transpose ? "ConvTranspose " : "Conv ", what, level, b != NULL, (long long)q, y[q], ref[q]);
	free(x), free(w), free(b), free(y), free(ref), free(mag);
}

START_TEST(conv_random)
{
	for (int level = OX_CPU_SCALAR; level <= ox_cpu_level() && level <= OX_CPU_AVX512; level++)
		for (int t = 0; t < 60; t++) {
			ox_conv_geom g = rand_geom(1 + t % 3, t % 5 == 3 ? 1 : t % 5 == 4 ? 2 : 0, false);
			check_conv(&g, false, level);
		}
}
END_TEST

START_TEST(conv_transpose_random)
{
	for (int level = OX_CPU_SCALAR; level <= ox_cpu_level() && level <= OX_CPU_AVX512; level++)
		for (int t = 0; t < 60; t++) {
			ox_conv_geom g = rand_geom(1 + t % 3, 0, true);
			check_conv(&g, true, level);
		}
}
END_TEST

/* The benchmark's shape (3x3, 64 channels, 56x56, pads 1) and its stride-2 sibling, whose
 * panels cross rows of the output. */
START_TEST(conv_resnet_shapes)
{
	for (int level = OX_CPU_SCALAR; level <= ox_cpu_level() && level <= OX_CPU_AVX512; level++)
		for (int64_t s = 1; s <= 2; s++) {
			ox_conv_geom g = {2, 1, 64, 64, 1, {56, 56}, {56 / s, 56 / s}, {3, 3}, {s, s}, {1, 1},
					  {1, 1}, {1, s == 1 ? 1 : 0}};
			check_conv(&g, false, level);
		}
}
END_TEST

/* Depthwise convolutions whose rows are short (two to a vector at AVX-512 when 8 or fewer
 * outputs wide) or not: every output width 1..19, even and odd row counts, strides 1 and
 * 2, dilations, pads, with and without a bias. */
START_TEST(conv_depthwise_rows)
{
	for (int level = OX_CPU_SCALAR; level <= ox_cpu_level() && level <= OX_CPU_AVX512; level++)
		for (int64_t w = 1; w <= 19; w++)
			for (int64_t s = 1; s <= 2; s++) {
				int64_t h = 1 + (w + s) % 6, d = 1 + w % 2, k = 3, ext = (k - 1) * d + 1;
				int64_t p = w % 3 == 0 ? 0 : 1;
				int64_t c = 5 + w % 2; /* channels, one per group; outputs per group 1 or 2 */
				ox_conv_geom g = {2, 1 + w % 2, c, c * (1 + w / 10), c, {0, 0}, {h, w}, {k, k}, {s, s},
						  {d, d}, {p, p}, {p, p}};
				for (int i = 0; i < 2; i++)
					g.in[i] = (g.out[i] - 1) * s + ext - 2 * p;
				check_conv(&g, false, level);
			}
}
END_TEST

/* Depthwise convolutions of 16 channels or more on small images, which AVX-512 runs
 * sixteen channels at a time (conv.c): near the double reference, and bit for bit the
 * per-channel path's outputs, which the same convolution restricted to its first channels
 * (fewer than 16) takes, with a residual and Relu or not; any dilation and pads, strides
 * of 1 to 3 (3 along the rows stays with the per-channel path). */
START_TEST(conv_depthwise_sixteen)
{
	int level = ox_cpu_level() < OX_CPU_AVX512 ? ox_cpu_level() : OX_CPU_AVX512;
	for (int t = 0; t < 80; t++) {
		ox_conv_geom g = {.nsp = 2, .batch = pick(1, 2), .group = pick(16, 40)};
		g.cin = g.cout = g.group;
		for (int i = 0; i < 2; i++) {
			g.kernel[i] = pick(1, 5), g.stride[i] = pick(1, 3), g.dil[i] = pick(1, 2);
			g.pad0[i] = pick(0, 2), g.pad1[i] = pick(0, 2);
			int64_t dk = (g.kernel[i] - 1) * g.dil[i] + 1;
			g.in[i] = pick(dk > g.pad0[i] + g.pad1[i] ? dk - g.pad0[i] - g.pad1[i] : 1, 16);
			g.out[i] = (g.in[i] + g.pad0[i] + g.pad1[i] - dk) / g.stride[i] + 1;
		}
		g.stride[0] += g.kernel[0] == 1 && g.kernel[1] == 1; /* not pointwise */
		g.out[0] = (g.in[0] + g.pad0[0] + g.pad1[0] - (g.kernel[0] - 1) * g.dil[0] - 1) / g.stride[0] + 1;
		check_conv(&g, false, level);
		int64_t ins = g.in[0] * g.in[1], outs = g.out[0] * g.out[1], kv = g.kernel[0] * g.kernel[1];
		int64_t xs = g.batch * g.cin * ins, ys = g.batch * g.cout * outs, few = pick(1, 15);
		float *x = frand_n(xs), *w = frand_n(g.cout * kv), *b = frand_n(g.cout), *res = frand_n(ys);
		float *y = frand_n(ys), *yf = frand_n(ys), *xf = frand_n(xs), *rf = frand_n(ys);
		int act = t % 2 ? OX_ACT_RELU : OX_ACT_NONE;
		bool with_res = t % 3 == 0;
		ox_conv_geom f = g;
		f.cin = f.cout = f.group = few;
		for (int64_t n = 0; n < g.batch; n++) { /* the first few channels of each image */
			memcpy(xf + n * few * ins, x + n * g.cin * ins, (size_t)(few * ins) * sizeof *x);
			memcpy(rf + n * few * outs, res + n * g.cout * outs, (size_t)(few * outs) * sizeof *x);
		}
		REQUIRE(ox_conv_f32_packed(level, &g, x, w, NULL, b, with_res ? res : NULL, y, act) == 0, "t %d", t);
		REQUIRE(ox_conv_f32_packed(level, &f, xf, w, NULL, b, with_res ? rf : NULL, yf, act) == 0, "t %d", t);
		char what[512];
		describe(what, sizeof what, &g);
		for (int64_t n = 0; n < g.batch; n++)
			for (int64_t i = 0; i < few * outs; i++)
				REQUIRE(memcmp(&y[n * g.cout * outs + i], &yf[n * few * outs + i], sizeof *y) == 0,
					"%s, %lld channels alone: Y[%lld] is %.9g, alone %.9g", what, (long long)few,
					(long long)i, y[n * g.cout * outs + i], yf[n * few * outs + i]);
		free(x), free(w), free(b), free(res), free(y), free(yf), free(xf), free(rf);
	}
}
END_TEST

/* ---- the ops' error messages ---------------------------------------------------------- */

/* Runs a one-node model whose inputs are given as text values (name, value, name, ...)
 * and returns the error message ("" when it ran). */
static const char *run_error(const char *model, const char *const *inputs)
{
	static char msg[600];
	Onnx__ModelProto *m = tu_model(model);
	OnnxSession *s = NULL;
	OnnxError err = {0};
	msg[0] = 0;
	ck_assert_int_eq(OnnxSession_New(m, &s, &err), ONNXTXT_OK);
	for (int i = 0; inputs[i]; i += 2) {
		OnnxValue *v = NULL;
		ck_assert_int_eq(OnnxValue_Parse(inputs[i + 1], strlen(inputs[i + 1]), &v, &err), ONNXTXT_OK);
		ck_assert_int_eq(OnnxSession_SetInput(s, inputs[i], v, &err), ONNXTXT_OK);
		OnnxValue_Free(v);
	}
	if (OnnxSession_Run(s, &err) != ONNXTXT_OK)
		snprintf(msg, sizeof msg, "%s", err.message);
	OnnxSession_Free(s);
	OnnxProto_Free(m);
	return msg;
}

#define HEAD "<ir_version: 8, opset_import: [\"\" : %d]>\n"

static const char *run1(int opset, const char *sig, const char *node, const char *const *inputs)
{
	char model[1024];
	snprintf(model, sizeof model, HEAD "g %s {\n  %s\n}\n", opset, sig, node);
	return run_error(model, inputs);
}

#define EXPECT_ERROR(got, part) \
	ck_assert_msg(strstr((got), (part)) != NULL, "expected an error with '%s', got '%s'", (part), (got))

START_TEST(errors_matmul_gemm)
{
	const char *ab[] = {"A", "float[2, 3] {1, 2, 3, 4, 5, 6}", "B", "float[2, 2] {1, 2, 3, 4}", NULL};
	EXPECT_ERROR(run1(13, "(float[2, 3] A, float[2, 2] B) => (float[2, 2] Y)", "Y = MatMul(A, B)", ab),
		     "A's last dimension (3) must equal B's second-to-last dimension (2)");
	const char *ab2[] = {"C", "float[3] {1, 2, 3}", "A", "float[2, 3] {1, 2, 3, 4, 5, 6}", "B",
			     "float[3, 2] {1, 2, 3, 4, 5, 6}", NULL};
	EXPECT_ERROR(run1(13, "(float[2, 3] A, float[3, 2] B, float[3] C) => (float[2, 2] Y)", "Y = Gemm(A, B, C)", ab2),
		     "C's shape cannot be broadcast to [2, 2]");
	const char *ab3[] = {"A", "float[2, 3] {1, 2, 3, 4, 5, 6}", "B", "float[3, 2] {1, 2, 3, 4, 5, 6}", "C",
			     "float[2] {1, 2}", NULL};
	EXPECT_ERROR(run1(6, "(float[2, 3] A, float[3, 2] B, float[2] C) => (float[2, 2] Y)", "Y = Gemm(A, B, C)", ab3),
		     "attribute broadcast is 0");
	ck_assert_str_eq(run1(6, "(float[2, 3] A, float[3, 2] B, float[2] C) => (float[2, 2] Y)",
			      "Y = Gemm <broadcast = 1> (A, B, C)", ab3), "");
	EXPECT_ERROR(run1(9, "(float[2, 3] A, float[3, 2] B) => (float[2, 2] Y)", "Y = Gemm(A, B)", ab2 + 2),
		     "input C is required before opset 11");
	const char *ai[] = {"A", "int32[2, 3] {1, 2, 3, 4, 5, 6}", "B", "float[3, 2] {1, 2, 3, 4, 5, 6}", NULL};
	EXPECT_ERROR(run1(13, "(int32[2, 3] A, float[3, 2] B) => (int32[2, 2] Y)", "Y = MatMul(A, B)", ai),
		     "B has type float; expected int32 like A");
}
END_TEST

START_TEST(errors_conv)
{
	const char *xw[] = {"X", "float[1, 2, 3, 3] {1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9}", "W",
			    "float[3, 1, 2, 2] {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}", NULL};
	const char *sig = "(float[1, 2, 3, 3] X, float[3, 1, 2, 2] W) => (float[1, 3, 2, 2] Y)";
	EXPECT_ERROR(run1(13, sig, "Y = Conv(X, W)", xw), "X has 2 channels; W expects 1");
	EXPECT_ERROR(run1(13, sig, "Y = Conv <group = 2> (X, W)", xw),
		     "graph.node[0] (Conv): W has 3 output channels, not divisible by group 2");
	EXPECT_ERROR(run1(13, sig, "Y = Conv <group = 4> (X, W)", xw), "X has 2 channels, not divisible by group 4");
	xw[3] = "float[2, 1, 2, 2] {1, 1, 1, 1, 2, 2, 2, 2}";
	sig = "(float[1, 2, 3, 3] X, float[2, 1, 2, 2] W) => (float[1, 2, 2, 2] Y)";
	ck_assert_str_eq(run1(13, sig, "Y = Conv <group = 2> (X, W)", xw), "");
	EXPECT_ERROR(run1(13, sig, "Y = Conv <group = 2, auto_pad = \"SAME\"> (X, W)", xw),
		     "attribute 'auto_pad' must be NOTSET, VALID, SAME_UPPER or SAME_LOWER");
	EXPECT_ERROR(run1(13, sig, "Y = Conv <group = 2, strides = [1]> (X, W)", xw),
		     "attribute 'strides' has 1 values; expected 2");
	EXPECT_ERROR(run1(13, sig, "Y = Conv <group = 2, dilations = [1, 0]> (X, W)", xw),
		     "attribute 'dilations' value 0 is out of range");
	EXPECT_ERROR(run1(13, sig, "Y = Conv <group = 2, kernel_shape = [3, 3]> (X, W)", xw),
		     "kernel_shape[0] is 3 but W's spatial dimension is 2");
	EXPECT_ERROR(run1(13, sig, "Y = Conv <group = 2, dilations = [3, 1]> (X, W)", xw),
		     "spatial axis 0: the padded input (3) is smaller than the dilated kernel (4)");
	EXPECT_ERROR(run1(13, sig, "Y = ConvTranspose <output_shape = [1, 2, 3]> (X, W)", xw),
		     "attribute 'output_shape' has 3 values; expected 2");
	xw[3] = "float[1, 2, 2, 2] {1, 1, 1, 1, 2, 2, 2, 2}";
	sig = "(float[1, 2, 3, 3] X, float[1, 2, 2, 2] W) => (float[1, 2, 4, 4] Y)";
	EXPECT_ERROR(run1(13, sig, "Y = ConvTranspose(X, W)", xw),
		     "W's first dimension is 1; expected 2, the channels of X");
	const char *xwb[] = {"X", "float[1, 1, 2] {1, 2}", "W", "float[1, 1, 1] {1}", "B", "float[2] {1, 2}", NULL};
	EXPECT_ERROR(run1(13, "(float[1, 1, 2] X, float[1, 1, 1] W, float[2] B) => (float[1, 1, 2] Y)", "Y = Conv(X, W, B)",
			  xwb),
		     "B must be 1-D with 1 values");
	const char *xx[] = {"X", "float[2, 2] {1, 2, 3, 4}", "W", "float[2, 2] {1, 2, 3, 4}", NULL};
	EXPECT_ERROR(run1(13, "(float[2, 2] X, float[2, 2] W) => (float[2, 2] Y)", "Y = Conv(X, W)", xx),
		     "X must have rank 3 or more ([N, C, spatial...]), not 2");
}
END_TEST

/* ---- ConvInteger and MatMulInteger: exact, beyond float's 2^24 ------------------------ */

/* Runs the model with tensor inputs (name, type, rank, dims, data) and returns output 0's
 * data, copied (int32). */
typedef struct tin {
	const char *name;
	int type, rank;
	int64_t dims[4];
	const void *data;
} tin;

static int32_t *run_int(const char *model, const tin *in, int nin, size_t *count)
{
	Onnx__ModelProto *m = tu_model(model);
	OnnxSession *s = NULL;
	OnnxError err = {0};
	ck_assert_int_eq(OnnxSession_New(m, &s, &err), ONNXTXT_OK);
	for (int i = 0; i < nin; i++) {
		OnnxValue *v = NULL;
		ck_assert_int_eq(OnnxValue_NewTensor(in[i].type, in[i].dims, (size_t)in[i].rank, in[i].data, &v, &err),
				 ONNXTXT_OK);
		ck_assert_int_eq(OnnxSession_SetInput(s, in[i].name, v, &err), ONNXTXT_OK);
		OnnxValue_Free(v);
	}
	ck_assert_msg(OnnxSession_Run(s, &err) == ONNXTXT_OK, "%s", err.message);
	const OnnxValue *y = OnnxSession_Output(s, 0);
	*count = OnnxValue_Count(y);
	int32_t *out = malloc(*count * sizeof(int32_t) + 1);
	memcpy(out, OnnxValue_Data(y), *count * sizeof(int32_t));
	OnnxSession_Free(s);
	OnnxProto_Free(m);
	return out;
}

/* Bytes near the extremes, so that sums of products pass 2^24 (where float stops being
 * exact) and, for the largest, 2^31 (where int32 wraps). */
static void bytes(uint8_t *p, int64_t n, bool is_signed)
{
	for (int64_t i = 0; i < n; i++) {
		uint64_t r = next();
		int v = r % 4 ? (is_signed ? -128 : 255) : (int)(r >> 8) % 256;
		p[i] = (uint8_t)(is_signed ? (int8_t)(v >= 128 ? v - 256 : v) : v);
	}
}

static int64_t byte_val(const uint8_t *p, int64_t i, bool is_signed)
{
	return is_signed ? (int8_t)p[i] : p[i];
}

/* ConvInteger of kernels [kh, kw] over cin channels in groups, against int64 sums. */
static bool wrapped; /* some expected sum went past int32 */

static void check_convint(int64_t cin, int64_t cout, int64_t group, int64_t kh, int64_t kw, bool sx, bool sw)
{
	int64_t H = kh + 2, W = kw + 3;
	int64_t oh = H - kh + 3, ow = W - kw + 3, cin_g = cin / group, cout_g = cout / group; /* pads 1 */
	uint8_t *x = malloc((size_t)(cin * H * W)), *w = malloc((size_t)(cout * cin_g * kh * kw)), xz, wz[64];
	bytes(x, cin * H * W, sx), bytes(w, cout * cin_g * kh * kw, sw);
	xz = (uint8_t)(next() % 8); /* small zero points keep the differences large */
	for (int64_t i = 0; i < cout; i++)
		wz[i] = (uint8_t)(next() % 8);
	char model[1024];
	snprintf(model, sizeof model,
		 "<ir_version: 8, opset_import: [\"\" : 10]>\n"
		 "g (%s[1, %lld, %lld, %lld] X, %s[%lld, %lld, %lld, %lld] W, %s XZ, %s[%lld] WZ) => (int32[1, %lld, %lld, %lld] Y) {\n"
		 "  Y = ConvInteger <group = %lld, pads = [1, 1, 1, 1]> (X, W, XZ, WZ)\n}\n",
		 sx ? "int8" : "uint8", (long long)cin, (long long)H, (long long)W, sw ? "int8" : "uint8", (long long)cout, (long long)cin_g,
		 (long long)kh, (long long)kw, sx ? "int8" : "uint8", sw ? "int8" : "uint8", (long long)cout,
		 (long long)cout, (long long)oh, (long long)ow, (long long)group);
	int tx = sx ? ONNX__TENSOR_PROTO__DATA_TYPE__INT8 : ONNX__TENSOR_PROTO__DATA_TYPE__UINT8;
	int tw = sw ? ONNX__TENSOR_PROTO__DATA_TYPE__INT8 : ONNX__TENSOR_PROTO__DATA_TYPE__UINT8;
	tin in[] = {{"X", tx, 4, {1, cin, H, W}, x},
		    {"W", tw, 4, {cout, cin_g, kh, kw}, w},
		    {"XZ", tx, 0, {0}, &xz},
		    {"WZ", tw, 1, {cout}, wz}};
	size_t n;
	int32_t *y = run_int(model, in, 4, &n);
	REQUIRE((int64_t)n == cout * oh * ow, "ConvInteger gave %zu values", n);
	for (int64_t co = 0; co < cout; co++)
		for (int64_t i = 0; i < oh; i++)
			for (int64_t j = 0; j < ow; j++) {
				int64_t sum = 0;
				for (int64_t c = 0; c < cin_g; c++)
					for (int64_t a = 0; a < kh; a++)
						for (int64_t b = 0; b < kw; b++) {
							int64_t r = i + a - 1, q = j + b - 1, ci = co / cout_g * cin_g + c;
							if (r < 0 || r >= H || q < 0 || q >= W)
								continue;
							sum += (byte_val(x, (ci * H + r) * W + q, sx) - byte_val(&xz, 0, sx)) *
							       (byte_val(w, ((co * cin_g + c) * kh + a) * kw + b, sw) -
								byte_val(wz, co, sw));
						}
				int32_t want = (int32_t)(uint32_t)(uint64_t)sum;
				int32_t got = y[(co * oh + i) * ow + j];
				wrapped |= sum != want;
				REQUIRE(got == want, "ConvInteger cin %lld group %lld kernel %lldx%lld: Y[%lld,%lld,%lld] is %d, expected %d",
					(long long)cin, (long long)group, (long long)kh, (long long)kw, (long long)co,
					(long long)i, (long long)j, got, want);
			}
	free(x), free(w), free(y);
}

START_TEST(convinteger_exact)
{
	check_convint(70, 3, 1, 3, 3, false, false);   /* 630 taps: chunks of 28 channels */
	check_convint(64, 4, 2, 3, 3, true, true);     /* groups, int8 */
	check_convint(3, 3, 3, 2, 2, false, true);     /* depthwise */
	check_convint(400, 2, 1, 1, 1, true, false);   /* pointwise, 400 taps */
	check_convint(2, 2, 1, 17, 16, false, false);  /* 272 taps in one kernel: the double path */
	check_convint(6000, 1, 1, 3, 3, false, false); /* 54000 taps: sums wrap past 2^31 */
	ck_assert(wrapped);
}
END_TEST

START_TEST(matmulinteger_exact)
{
	int64_t sizes[][3] = {{3, 1000, 5}, {1, 300, 2}, {7, 20000, 3}, {2, 0, 3}};
	for (int t = 0; t < 4; t++) {
		int64_t m = sizes[t][0], kk = sizes[t][1], n = sizes[t][2];
		uint8_t *a = malloc((size_t)(m * kk) + 1), *b = malloc((size_t)(kk * n) + 1), za[8], zb[8];
		bytes(a, m * kk, false), bytes(b, kk * n, true), bytes(za, m, false), bytes(zb, n, true);
		char model[512];
		snprintf(model, sizeof model,
			 "<ir_version: 8, opset_import: [\"\" : 10]>\n"
			 "g (uint8[%lld, %lld] A, int8[%lld, %lld] B, uint8[%lld] AZ, int8[%lld] BZ) => (int32[%lld, %lld] Y) {\n"
			 "  Y = MatMulInteger(A, B, AZ, BZ)\n}\n",
			 (long long)m, (long long)kk, (long long)kk, (long long)n, (long long)m, (long long)n,
			 (long long)m, (long long)n);
		tin in[] = {{"A", ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, 2, {m, kk}, a},
			    {"B", ONNX__TENSOR_PROTO__DATA_TYPE__INT8, 2, {kk, n}, b},
			    {"AZ", ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, 1, {m}, za},
			    {"BZ", ONNX__TENSOR_PROTO__DATA_TYPE__INT8, 1, {n}, zb}};
		size_t cnt;
		int32_t *y = run_int(model, in, 4, &cnt);
		for (int64_t i = 0; i < m; i++)
			for (int64_t j = 0; j < n; j++) {
				int64_t sum = 0;
				for (int64_t q = 0; q < kk; q++)
					sum += ((int64_t)a[i * kk + q] - za[i]) * ((int64_t)(int8_t)b[q * n + j] - (int8_t)zb[j]);
				int32_t want = (int32_t)(uint32_t)(uint64_t)sum;
				REQUIRE(y[i * n + j] == want, "MatMulInteger %lldx%lldx%lld: Y[%lld,%lld] is %d, expected %d",
					(long long)m, (long long)kk, (long long)n, (long long)i, (long long)j, y[i * n + j], want);
			}
		free(a), free(b), free(y);
	}
}
END_TEST

/* ---- packed weights and threads ------------------------------------------------------ */

/* C of a product large enough to be split over threads, with A packed beforehand or
 * not, on a pool of `threads`; c must hold m x n. */
static void gemm_on(int level, int threads, bool packed, int64_t m, int64_t n, int64_t k, const float *a,
		    const float *b, float beta, float *c)
{
	ox_pool *pool = ox_pool_new(threads), *old = ox_pool_enter(pool);
	ox_gemm_src sa = ox_gemm_a(a, k, false), sb = ox_gemm_b(b, n, false);
	ox_gemm_packed pk;
	float *data = NULL;
	if (packed) {
		data = aligned_alloc(64, (size_t)(ox_gemm_packed_floats(level, m, k) / 16 + 1) * 64);
		ox_gemm_prepack_a(level, m, k, &sa, data, &pk);
		sa.packed = &pk;
	}
	REQUIRE(ox_sgemm_src(level, m, n, k, 1, &sa, &sb, beta, c, n) == 0, "gemm failed");
	free(data);
	ox_pool_enter(old);
	ox_pool_free(pool);
}

/* Every combination of packing and thread count gives the bits of the plain product on
 * one thread, for sizes around the tiles and cache blocks (split by rows and by columns). */
/* The pool: every task of every job runs exactly once whatever the thread count, jobs
 * follow one another with no gap (workers still watching), after a pause long enough for
 * them to sleep, and with one task (run on the caller); a kernel called inside a task
 * sees one thread and runs its own loop inline. */
typedef struct pool_job {
	_Atomic int *hits;
	_Atomic int inner;
} pool_job;

static void pool_inner(void *ctx, int64_t i)
{
	(void)i;
	atomic_fetch_add(&((pool_job *)ctx)->inner, 1);
}

static void pool_task(void *ctx, int64_t i)
{
	pool_job *j = ctx;
	atomic_fetch_add(&j->hits[i], 1);
	if (i % 7 == 3) {
		REQUIRE(ox_threads() == 1, "a task sees %d threads", ox_threads());
		ox_parallel_for(3, pool_inner, j);
	}
}

START_TEST(pool_each_task_once)
{
	enum { MAXT = 97 };
	for (int threads = 1; threads <= 4; threads++) {
		ox_pool *pool = ox_pool_new(threads), *old = ox_pool_enter(pool);
		REQUIRE(ox_threads() == threads, "%d threads asked, %d given", threads, ox_threads());
		for (int job = 0; job < tu_rounds(3000); job++) {
			int64_t n = job % 13 == 0 ? job % 3 : 1 + job % MAXT;
			_Atomic int hits[MAXT];
			pool_job j = {.hits = hits};
			for (int i = 0; i < MAXT; i++)
				atomic_init(&hits[i], 0);
			atomic_init(&j.inner, 0);
			if (job % 500 == 499) {
				struct timespec nap = {0, 2000000}; /* 2 ms: the workers go to sleep */
				nanosleep(&nap, NULL);
			}
			ox_parallel_for(n, pool_task, &j);
			int64_t inner = 0;
			for (int64_t i = 0; i < MAXT; i++) {
				REQUIRE(atomic_load(&hits[i]) == (i < n), "%d threads, job %d of %lld tasks: task %lld ran %d times",
					threads, job, (long long)n, (long long)i, atomic_load(&hits[i]));
				inner += i < n && i % 7 == 3 ? 3 : 0;
			}
			REQUIRE(atomic_load(&j.inner) == inner, "nested loops ran %d tasks, expected %lld",
				atomic_load(&j.inner), (long long)inner);
		}
		ox_pool_enter(old);
		ox_pool_free(pool);
	}
}
END_TEST

START_TEST(gemm_threads_exact)
{
	for (int level = OX_CPU_SCALAR; level <= ox_cpu_level() && level <= OX_CPU_AVX512; level++)
		for (int t = 0; t < tu_rounds(12); t++) {
			int64_t m = t % 2 ? pick(300, 700) : pick(20, 140), n = t % 2 ? pick(15, 90) : pick(100, 900);
			int64_t k = t % 3 == 0 ? pick(257, 600) : pick(40, 256);
			float beta = t % 4 == 1 ? 1.0f : 0.0f;
			float *a = frand_n(m * k), *b = frand_n(k * n), *c0 = frand_n(m * n);
			float *c1 = malloc((size_t)(m * n) * sizeof(float)), *ref = malloc((size_t)(m * n) * sizeof(float));
			memcpy(ref, c0, (size_t)(m * n) * sizeof(float));
			gemm_on(level, 1, false, m, n, k, a, b, beta, ref);
			for (int th = 1; th <= 3; th++)
				for (int packed = 0; packed < 2; packed++) {
					memcpy(c1, c0, (size_t)(m * n) * sizeof(float));
					gemm_on(level, th, packed, m, n, k, a, b, beta, c1);
					REQUIRE(memcmp(c1, ref, (size_t)(m * n) * sizeof(float)) == 0,
						"level %d, %lld x %lld x %lld, %d threads, packed %d: not the same bits", level,
						(long long)m, (long long)n, (long long)k, th, packed);
				}
			free(a), free(b), free(c0), free(c1), free(ref);
		}
}
END_TEST

/* One row (or one column) of C on a pool of `threads`: A is m x k (transposed when ta),
 * B k x n (transposed when tb), both dense. */
static void gemv_on(int level, int threads, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float *a,
		    const float *b, float beta, float *c)
{
	ox_pool *pool = ox_pool_new(threads), *old = ox_pool_enter(pool);
	ox_gemm_src sa = ox_gemm_a(a, ta ? m : k, ta), sb = ox_gemm_b(b, tb ? k : n, tb);
	REQUIRE(ox_sgemm_src(level, m, n, k, 0.5f, &sa, &sb, beta, c, n) == 0, "gemv failed");
	ox_pool_enter(old);
	ox_pool_free(pool);
}

/* The matrix-vector paths split over threads (rows of the matrix read as dot products,
 * or its columns as sums of scaled rows): the bits of one thread, and near a double sum. */
START_TEST(gemv_threads_exact)
{
	for (int level = OX_CPU_SCALAR; level <= ox_cpu_level() && level <= OX_CPU_AVX512; level++)
		for (int t = 0; t < tu_rounds(8); t++) {
			bool row = t % 2 == 0, tr = t % 4 >= 2;
			int64_t len = pick(300, 1500), k = pick(100, 700), m = row ? 1 : len, n = row ? len : 1;
			float beta = t % 3 == 1 ? 0.25f : 0.0f;
			float *a = frand_n(m * k), *b = frand_n(k * n), *c0 = frand_n(len);
			float *ref = malloc((size_t)len * sizeof(float)), *c1 = malloc((size_t)len * sizeof(float));
			memcpy(ref, c0, (size_t)len * sizeof(float));
			gemv_on(level, 1, !row && tr, row && tr, m, n, k, a, b, beta, ref);
			for (int64_t r = 0; r < len; r++) {
				double s = 0, mag = 0;
				for (int64_t q = 0; q < k; q++) {
					double ai = row ? a[q] : tr ? a[q * m + r] : a[r * k + q];
					double bi = !row ? b[q] : tr ? b[r * k + q] : b[q * n + r];
					s += ai * bi, mag += fabs(ai * bi);
				}
				s = 0.5 * s + beta * c0[r];
				REQUIRE(close_to(ref[r], s, mag), "level %d, %s %lld x %lld: [%lld] %g, not %g", level,
					row ? "row" : "column", (long long)len, (long long)k, (long long)r, ref[r], s);
			}
			for (int th = 2; th <= 3; th++) {
				memcpy(c1, c0, (size_t)len * sizeof(float));
				gemv_on(level, th, !row && tr, row && tr, m, n, k, a, b, beta, c1);
				REQUIRE(memcmp(c1, ref, (size_t)len * sizeof(float)) == 0,
					"level %d, %s %lld x %lld, transposed %d, %d threads: not the same bits", level,
					row ? "row" : "column", (long long)len, (long long)k, tr, th);
			}
			free(a), free(b), free(c0), free(c1), free(ref);
		}
}
END_TEST

/* A geometry large enough for the GEMM to be split (odd sizes, groups, depthwise). */
static ox_conv_geom big_geom(int t)
{
	ox_conv_geom g;
	memset(&g, 0, sizeof g);
	g.nsp = 2;
	g.batch = pick(1, 2);
	bool dw = t % 4 == 3;
	g.group = dw ? pick(8, 40) : t % 4 == 2 ? pick(2, 3) : 1;
	g.cin = g.group * (dw ? 1 : pick(3, 33));
	g.cout = g.group * (dw ? pick(1, 2) : pick(17, 90));
	for (int i = 0; i < 2; i++) {
		g.kernel[i] = t % 5 == 1 ? 1 : pick(1, 3);
		g.stride[i] = pick(1, 2);
		g.dil[i] = pick(1, 2);
		g.pad0[i] = pick(0, 1);
		g.pad1[i] = pick(0, 1);
		g.in[i] = pick(17, 41);
		g.out[i] = (g.in[i] + g.pad0[i] + g.pad1[i] - (g.kernel[i] - 1) * g.dil[i] - 1) / g.stride[i] + 1;
	}
	return g;
}

static void conv_on(int level, int threads, const ox_conv_geom *g, const float *x, const float *w, const void *pk,
		    const float *b, const float *res, float *y, int act)
{
	ox_pool *pool = ox_pool_new(threads), *old = ox_pool_enter(pool);
	REQUIRE(ox_conv_f32_packed(level, g, x, w, pk, b, res, y, act) == 0, "conv failed");
	ox_pool_enter(old);
	ox_pool_free(pool);
}

/* Packed weights, Relu in the output pass and 1 to 3 threads: the bits of the plain
 * convolution on one thread followed by Relu, which is itself close to the definition;
 * weights scaled per output channel as they are packed: the bits of the scaled weights. */
START_TEST(conv_packed_threads)
{
	for (int level = OX_CPU_SCALAR; level <= ox_cpu_level() && level <= OX_CPU_AVX512; level++)
		for (int t = 0; t < tu_rounds(16); t++) {
			ox_conv_geom g = big_geom(t);
			int64_t xs = g.batch * g.cin * prod(2, g.in), ys = g.batch * g.cout * prod(2, g.out);
			int64_t depth = g.cin / g.group * prod(2, g.kernel);
			float *x = frand_n(xs), *w = frand_n(g.cout * depth), *b = t % 2 ? frand_n(g.cout) : NULL;
			float *plain = frand_n(ys), *y = frand_n(ys);
			double *ref = malloc((size_t)ys * sizeof(double)), *mag = malloc((size_t)ys * sizeof(double));
			char what[512];
			describe(what, sizeof what, &g);
			conv_on(level, 1, &g, x, w, NULL, b, NULL, plain, OX_ACT_NONE);
			ref_conv(&g, x, w, b, ref, mag);
			for (int64_t q = 0; q < ys; q++) {
				REQUIRE(close_to(plain[q], ref[q], mag[q]), "%s level %d: Y[%lld] is %.9g, expected %.9g", what,
					level, (long long)q, plain[q], ref[q]);
				plain[q] = plain[q] < 0 ? 0.0f : plain[q];
			}
			void *pk = ox_conv_prepack(level, w, g.cout, g.group, depth, NULL);
			REQUIRE(pk != NULL, "prepack failed");
			for (int th = 1; th <= 3; th++) {
				conv_on(level, th, &g, x, w, pk, b, NULL, y, OX_ACT_RELU);
				REQUIRE(memcmp(y, plain, (size_t)ys * sizeof(float)) == 0,
					"%s level %d, %d threads: packed + Relu are not the plain bits", what, level, th);
			}
			if (g.cin > g.group) { /* scaled while packing = packing the scaled weights */
				float *a = frand_n(g.cout), *ws = frand_n(g.cout * depth);
				for (int64_t q = 0; q < g.cout * depth; q++)
					ws[q] = w[q] * a[q / depth];
				conv_on(level, 1, &g, x, ws, NULL, b, NULL, plain, OX_ACT_NONE);
				void *pks = ox_conv_prepack(level, w, g.cout, g.group, depth, a);
				conv_on(level, 2, &g, x, w, pks, b, NULL, y, OX_ACT_NONE);
				REQUIRE(memcmp(y, plain, (size_t)ys * sizeof(float)) == 0,
					"%s level %d: weights scaled while packed are not the bits of scaled weights", what, level);
				free(pks), free(a), free(ws);
			}
			free(pk), free(x), free(w), free(b), free(plain), free(y), free(ref), free(mag);
		}
}
END_TEST

/* g at level with random data, on 1 thread against the definition, then on 2 and 3
 * threads the bits of 1. */
static void check_conv_threads(int level, const ox_conv_geom *g)
{
	int64_t xs = g->batch * g->cin * prod(g->nsp, g->in), ys = g->batch * g->cout * prod(g->nsp, g->out);
	int64_t depth = g->cin / g->group * prod(g->nsp, g->kernel);
	float *x = frand_n(xs), *w = frand_n(g->cout * depth), *b = frand_n(g->cout), *y1 = frand_n(ys), *y2 = frand_n(ys);
	double *ref = malloc((size_t)ys * sizeof(double)), *mag = malloc((size_t)ys * sizeof(double));
	char what[512];
	describe(what, sizeof what, g);
	conv_on(level, 1, g, x, w, NULL, b, NULL, y1, OX_ACT_NONE);
	ref_conv(g, x, w, b, ref, mag);
	for (int64_t q = 0; q < ys; q++)
		REQUIRE(close_to(y1[q], ref[q], mag[q]), "%s level %d: Y[%lld] is %.9g, expected %.9g", what, level,
			(long long)q, y1[q], ref[q]);
	for (int th = 2; th <= 3; th++) {
		conv_on(level, th, g, x, w, NULL, b, NULL, y2, OX_ACT_NONE);
		REQUIRE(memcmp(y1, y2, (size_t)ys * sizeof(float)) == 0, "%s level %d, %d threads: not the bits of 1", what,
			level, th);
	}
	free(x), free(w), free(b), free(y1), free(y2), free(ref), free(mag);
}

/* g with a residual and Relu in the output pass (and a bias when bias): against the
 * definition, and 2 threads the bits of 1. */
static void check_conv_res_relu(int level, const ox_conv_geom *g, bool bias)
{
	int64_t xs = g->batch * g->cin * prod(g->nsp, g->in), ys = g->batch * g->cout * prod(g->nsp, g->out);
	int64_t depth = g->cin / g->group * prod(g->nsp, g->kernel);
	float *x = frand_n(xs), *w = frand_n(g->cout * depth), *b = bias ? frand_n(g->cout) : NULL;
	float *res = frand_n(ys), *y1 = frand_n(ys), *y2 = frand_n(ys);
	double *ref = malloc((size_t)ys * sizeof(double)), *mag = malloc((size_t)ys * sizeof(double));
	char what[512];
	describe(what, sizeof what, g);
	for (int th = 1; th <= 2; th++)
		conv_on(level, th, g, x, w, NULL, b, res, th == 1 ? y1 : y2, OX_ACT_RELU);
	ref_conv(g, x, w, b, ref, mag);
	for (int64_t q = 0; q < ys; q++) {
		double r = ref[q] + res[q];
		REQUIRE(close_to(y1[q], r < 0 ? 0 : r, mag[q] + fabs(res[q])), "%s level %d: Y[%lld] is %.9g, expected %.9g",
			what, level, (long long)q, y1[q], r < 0 ? 0 : r);
	}
	REQUIRE(memcmp(y1, y2, (size_t)ys * sizeof(float)) == 0, "%s level %d: 2 threads differ", what, level);
	free(x), free(w), free(b), free(res), free(y1), free(y2), free(ref), free(mag);
}

/* Inputs padded on the threads, runs of channels a task (shufflenet's first convolution,
 * 3 channels of 224x224, at odd sizes; 2 images, so the second finds the pads cleared):
 * against the definition, 2 and 3 threads the bits of 1. */
START_TEST(conv_pad_threads)
{
	for (int level = OX_CPU_SCALAR; level <= ox_cpu_level() && level <= OX_CPU_AVX512; level++)
		for (int64_t cin = 1; cin <= 7; cin += 2) {
			int64_t s = 1 + cin % 2, h = 97 + cin, wd = 131 - cin;
			ox_conv_geom g = {2, 2, cin, 5, 1, {h, wd}, {(h + 2 - 3) / s + 1, (wd + 1 - 3) / s + 1}, {3, 3}, {s, s},
					  {1, 1}, {1, 0}, {1, 1}};
			check_conv_threads(level, &g);
		}
}
END_TEST

/* The direct convolution's tiles (dconv.h) across row lengths: rows shorter than a tile
 * (read past their end), a last tile moved back over the one before, big tiles, big ones
 * a position short (13 and 26 at AVX-512, 10 and 15 at AVX2) and small ones,
 * strides 1, 2 and 3, channels beyond whole vectors, groups; against the definition, and
 * 2 threads the bits of 1. */
START_TEST(conv_direct_rows)
{
	for (int level = OX_CPU_AVX2; level <= ox_cpu_level() && level <= OX_CPU_AVX512; level++)
		for (int64_t len = 1; len <= 60; len += len < 32 ? 1 : 7) {
			ox_conv_geom g;
			memset(&g, 0, sizeof g);
			g.nsp = 2, g.batch = 1, g.group = len % 3 == 0 ? 2 : 1;
			/* weights beyond 256 KiB at three lengths: blocks of channels outermost; at 60,
			 * rows that fill their vectors, read straight however deep the sum */
			bool deep = len == 25 || len == 53 || len == 60;
			g.cin = g.group * (deep ? 100 : pick(1, 9)), g.cout = g.group * pick(1, 70);
			if (deep)
				g.cout = 96;
			int64_t s = 1 + len % 3, k = len % 2 || len == 60 ? 3 : 1, p = k / 2;
			g.kernel[0] = g.kernel[1] = k, g.stride[0] = g.stride[1] = s, g.dil[0] = g.dil[1] = 1;
			g.pad0[0] = g.pad0[1] = g.pad1[0] = g.pad1[1] = p;
			g.out[0] = pick(1, 12), g.out[1] = len;
			for (int i = 0; i < 2; i++)
				g.in[i] = (g.out[i] - 1) * s + k - 2 * p;
			int64_t xs = g.cin * prod(2, g.in), ys = g.cout * prod(2, g.out), depth = g.cin / g.group * k * k;
			float *x = frand_n(xs), *w = frand_n(g.cout * depth), *b = frand_n(g.cout), *y1 = frand_n(ys),
			      *y2 = frand_n(ys);
			double *ref = malloc((size_t)ys * sizeof(double)), *mag = malloc((size_t)ys * sizeof(double));
			char what[512];
			describe(what, sizeof what, &g);
			conv_on(level, 1, &g, x, w, NULL, b, NULL, y1, OX_ACT_NONE);
			conv_on(level, 2, &g, x, w, NULL, b, NULL, y2, OX_ACT_NONE);
			ref_conv(&g, x, w, b, ref, mag);
			for (int64_t q = 0; q < ys; q++)
				REQUIRE(close_to(y1[q], ref[q], mag[q]), "%s level %d: Y[%lld] is %.9g, expected %.9g", what,
					level, (long long)q, y1[q], ref[q]);
			REQUIRE(memcmp(y1, y2, (size_t)ys * sizeof(float)) == 0, "%s level %d: 2 threads differ", what, level);
			free(x), free(w), free(b), free(y1), free(y2), free(ref), free(mag);
		}
}
END_TEST

/* 1x1 convolutions, which the direct convolution reads straight when the sum is shallow,
 * the weights small or the lanes fewer (dconv_impl.h, dc_straight): position counts around whole tiles
 * and vectors, channels beyond whole blocks, depths either side of the limits, groups,
 * with a residual and Relu in the output pass; against the definition, and 2 threads the
 * bits of 1. */
START_TEST(conv_pointwise_straight)
{
	static const int64_t depths[] = {1, 7, 64, 128, 129, 200, 300};
	for (int level = OX_CPU_AVX2; level <= ox_cpu_level() && level <= OX_CPU_AVX512; level++)
		for (int t = 0; t < 28; t++) {
			ox_conv_geom g;
			memset(&g, 0, sizeof g);
			int64_t depth = depths[t % 7];
			g.nsp = 2, g.batch = 1 + t % 2, g.group = t % 5 == 4 ? 2 : 1;
			/* wide: 13x13, one row read straight, whose tiles 2 threads cut into chunks of
			 * channels (dconv.c, DC_CHUNK) */
			bool wide = t % 4 == 3;
			g.cin = g.group * depth, g.cout = g.group * (wide ? 137 : depth > 128 && t % 2 ? 70 : pick(1, 40));
			for (int i = 0; i < 2; i++)
				g.kernel[i] = g.stride[i] = g.dil[i] = 1;
			g.in[0] = g.out[0] = wide ? 13 : pick(1, 5), g.in[1] = g.out[1] = wide ? 13 : pick(1, 60);
			check_conv_res_relu(level, &g, t % 3 != 0);
		}
}
END_TEST

/* A first convolution of a CNN at random sizes: 1 to 4 input channels, kernels 1 to 7,
 * strides 1 and 2 on either axis, pads, dilations, odd widths, rows of whole vectors and
 * of part of one, output channels not a multiple of 16, 1 or 2 images, 1 or 2 groups. */
static ox_conv_geom stem_geom(int t)
{
	ox_conv_geom g;
	memset(&g, 0, sizeof g);
	g.nsp = 2, g.batch = pick(1, 2), g.group = t % 5 == 4 ? 2 : 1;
	g.cin = g.group * pick(1, 4), g.cout = g.group * pick(1, 70);
	if (g.cout / g.group % 16 == 0)
		g.cout += g.group;
	for (int i = 0; i < 2; i++) {
		g.kernel[i] = t % 3 == 0 ? 7 : pick(1, 7);
		g.stride[i] = pick(1, 2), g.dil[i] = t % 4 == 1 ? 2 : 1;
		g.pad0[i] = pick(0, (g.kernel[i] - 1) / 2), g.pad1[i] = pick(0, (g.kernel[i] - 1) / 2);
	}
	g.out[0] = pick(1, 6), g.out[1] = t % 3 == 0 ? 111 + t % 2 : pick(48, 150); /* 111, 112: a 224 stem's */
	for (int i = 0; i < 2; i++) /* plus up to stride - 1 columns no output reads */
		g.in[i] = (g.out[i] - 1) * g.stride[i] + (g.kernel[i] - 1) * g.dil[i] + 1 - g.pad0[i] - g.pad1[i] +
			  pick(0, g.stride[i] - 1);
	return g;
}

/* Whether g's rows go straight at level (conv.c asks the same of a row at stride 1). */
static bool goes_straight(int level, const ox_conv_geom *g)
{
	int64_t len = g->out[1];
	ox_dconv probe = {.depth = g->cin / g->group * prod(2, g->kernel), .rows = g->out[0], .len = len,
			  .stride = 1, .cout = g->cout / g->group};
	return g->stride[1] <= 2 && ox_dconv_straight(level, &probe);
}

/* Rows read straight (dconv_impl.h, dc_straight), at stride 2 through the input split
 * into its even and odd columns (conv.c): stem_geom's shapes with a residual and Relu in
 * the output pass, against the definition, and 2 threads the bits of 1. Most of them go
 * straight, or the test would test something else. Then a 1-D and a 3-D one, split too. */
START_TEST(conv_straight_rows)
{
	for (int level = OX_CPU_AVX2; level <= ox_cpu_level() && level <= OX_CPU_AVX512; level++) {
		int rounds = tu_rounds(40), straight = 0;
		for (int t = 0; t < rounds; t++) {
			ox_conv_geom g = stem_geom(t);
			straight += goes_straight(level, &g);
			check_conv_res_relu(level, &g, t % 2 != 0);
		}
		REQUIRE(2 * straight >= rounds, "level %d: %d of %d shapes straight", level, straight, rounds);
		/* one row of all the positions (1-D), and rows over two outer axes (3-D) */
		ox_conv_geom g1 = {1, 2, 3, 21, 1, {601}, {301}, {5}, {2}, {1}, {2}, {2}};
		ox_conv_geom g3 = {3, 1, 2, 19, 1, {4, 20, 131}, {4, 10, 66}, {3, 3, 3}, {1, 2, 2}, {1, 1, 1},
				   {1, 1, 1}, {1, 0, 1}};
		check_conv_threads(level, &g1);
		check_conv_threads(level, &g3);
	}
}
END_TEST

/* ox_dconv_split_row at every level, row lengths around whole vectors and either
 * parity of the first column: column q of the padded row is e[q / 2] or o[q / 2], and
 * nothing else is written. */
START_TEST(dconv_split_rows)
{
	for (int level = OX_CPU_SCALAR; level <= ox_cpu_level() && level <= OX_CPU_AVX512; level++)
		for (int64_t len = 0; len <= 70; len++)
			for (int64_t p0 = 0; p0 <= 3; p0++) {
				float x[70], e[40], o[40];
				for (int64_t i = 0; i < len; i++)
					x[i] = (float)(i + 1);
				for (int i = 0; i < 40; i++)
					e[i] = o[i] = -1.0f;
				ox_dconv_split_row(level, x, len, p0, e, o);
				for (int64_t q = 0; q < 80; q++) {
					float got = (q % 2 ? o : e)[q / 2];
					float want = q >= p0 && q < p0 + len ? (float)(q - p0 + 1) : -1.0f;
					REQUIRE(got == want, "level %d, %lld floats at column %lld: column %lld is %g, expected %g",
						level, (long long)len, (long long)p0, (long long)q, got, want);
				}
			}
}
END_TEST

/* A grouped direct convolution runs its groups in one parallel region
 * (ox_dconv_run_groups): shufflenet's 1x1s (3 groups of 48 -> 40 channels on 28x28),
 * groups each below the split (3x3 with pads, 8 -> 24 channels), and 5 groups of 7x7
 * (tasks of several groups' units, an odd count); 2 images; against the definition, 2
 * and 3 threads the bits of 1. It fails when a group, or a run of a group, is left out. */
START_TEST(conv_group_tasks)
{
	for (int level = OX_CPU_AVX2; level <= ox_cpu_level() && level <= OX_CPU_AVX512; level++)
		for (int v = 0; v < 3; v++) {
			int64_t k = v == 1 ? 3 : 1, hw = v == 2 ? 7 : 28;
			ox_conv_geom g = {2, 2, 3 * 48, 3 * 40, 3, {hw, hw}, {hw, hw}, {k, k}, {1, 1}, {1, 1},
					  {k / 2, k / 2}, {k / 2, k / 2}};
			if (v == 1)
				g.cin = 3 * 8, g.cout = 3 * 24; /* 24 x 784 x 72 per group, below the split */
			if (v == 2)
				g.group = 5, g.cin = 5 * 60, g.cout = 5 * 70;
			check_conv_threads(level, &g);
		}
}
END_TEST

int main(void)
{
	int nv = ox_gemm_nvariants();
	Suite *s = suite_create("linalg");
	TCase *tc = tcase_create("gemm");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, gemm_edges, 0, nv);
	tcase_add_loop_test(tc, gemm_random, 0, nv);
	tcase_add_loop_test(tc, gemm_streaming, 0, nv);
	tcase_add_test(tc, gemm_levels);
	tcase_add_test(tc, gemv_levels);
	tcase_add_test(tc, gemm_entry_points);
	suite_add_tcase(s, tc);
	tc = tcase_create("conv");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, conv_random);
	tcase_add_test(tc, conv_transpose_random);
	tcase_add_test(tc, conv_resnet_shapes);
	tcase_add_test(tc, conv_depthwise_rows);
	tcase_add_test(tc, conv_pad_threads);
	tcase_add_test(tc, conv_group_tasks);
	suite_add_tcase(s, tc);
	tc = tcase_create("threads");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, pool_each_task_once);
	tcase_add_test(tc, gemm_threads_exact);
	tcase_add_test(tc, gemv_threads_exact);
	tcase_add_test(tc, conv_packed_threads);
	tcase_add_test(tc, conv_direct_rows);
	tcase_add_test(tc, conv_depthwise_sixteen);
	tcase_add_test(tc, conv_pointwise_straight);
	tcase_add_test(tc, dconv_split_rows);
	tcase_add_test(tc, conv_straight_rows);
	suite_add_tcase(s, tc);
	tc = tcase_create("integer");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, convinteger_exact);
	tcase_add_test(tc, matmulinteger_exact);
	suite_add_tcase(s, tc);
	tc = tcase_create("errors");
	tcase_add_test(tc, errors_matmul_gemm);
	tcase_add_test(tc, errors_conv);
	suite_add_tcase(s, tc);
	return tu_run(s);
}
