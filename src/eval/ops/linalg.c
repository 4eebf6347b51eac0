/* MatMul (numpy's batch broadcasting and 1-D promotion), Gemm (every opset) and
 * MatMulInteger. Float goes through the packed SGEMM, double through ox_dgemm, float16 and
 * bfloat16 by way of float, and integers through plain loops that wrap around. */
#include <stdlib.h>
#include <string.h>

#include "eval/simd/gemm.h"
#include "eval/kernel.h"

/* ---- MatMul's shapes --------------------------------------------------------------- */

/* A product of matrices batched by numpy's rules: A is nbatch-broadcast [M, K], B [K, N];
 * matrix q of Y (in row-major batch order) is matrix ia of A times matrix ib of B. */
typedef struct mmshape {
	int64_t m, n, k;
	int brank;
	int64_t bdims[OX_MAX_RANK], sa[OX_MAX_RANK], sb[OX_MAX_RANK];
	int yrank;
	int64_t ydims[OX_MAX_RANK];
	int64_t nbatch;
} mmshape;

static int mm_shape(ox_k *k, const ox_val *a, const ox_val *b, mmshape *s)
{
	int64_t ad[OX_MAX_RANK + 1], bd[OX_MAX_RANK + 1];
	int ar = a->rank, br = b->rank;
	if (ar < 1 || br < 1)
		return ox_kfail(k, "A and B must have rank 1 or more, not %d and %d", ar, br);
	memcpy(ad + (ar == 1), a->dims, (size_t)ar * sizeof(int64_t));
	memcpy(bd, b->dims, (size_t)br * sizeof(int64_t));
	if (ar == 1)
		ad[0] = 1, ar = 2;
	if (br == 1)
		bd[1] = 1, br = 2;
	s->m = ad[ar - 2], s->k = ad[ar - 1], s->n = bd[br - 1];
	if (bd[br - 2] != s->k)
		return ox_kfail(k, "A's last dimension (%lld) must equal B's %s dimension (%lld)", (long long)s->k,
				b->rank == 1 ? "only" : "second-to-last", (long long)bd[br - 2]);
	if (ox_broadcast_shape(k, ar - 2, ad, br - 2, bd, &s->brank, s->bdims) < 0)
		return -1;
	ox_broadcast_strides(ar - 2, ad, s->brank, s->bdims, s->sa);
	ox_broadcast_strides(br - 2, bd, s->brank, s->bdims, s->sb);
	s->nbatch = ox_shape_count(s->brank, s->bdims);
	s->yrank = s->brank;
	memcpy(s->ydims, s->bdims, (size_t)s->brank * sizeof(int64_t));
	if (a->rank > 1)
		s->ydims[s->yrank++] = s->m;
	if (b->rank > 1)
		s->ydims[s->yrank++] = s->n;
	if (s->nbatch < 0 || s->yrank > OX_MAX_RANK)
		return ox_kfail(k, "the output of %d dimensions is too large", s->yrank);
	return 0;
}

/* Calls fn for every matrix of Y with the matrices of A and B it multiplies. */
typedef int (*mm_fn)(void *ctx, const mmshape *s, int64_t ia, int64_t ib, int64_t iy);

static int each_matrix(const mmshape *s, mm_fn fn, void *ctx)
{
	int64_t idx[OX_MAX_RANK] = {0}, ia = 0, ib = 0;
	for (int64_t q = 0; q < s->nbatch; q++) {
		if (fn(ctx, s, ia, ib, q) < 0)
			return -1;
		for (int i = s->brank - 1; i >= 0; i--) {
			ia += s->sa[i], ib += s->sb[i];
			if (++idx[i] < s->bdims[i])
				break;
			ia -= s->sa[i] * s->bdims[i], ib -= s->sb[i] * s->bdims[i];
			idx[i] = 0;
		}
	}
	return 0;
}

/* ---- products by element type ------------------------------------------------------ */

/* One product Y = alpha * op(A) * op(B) + beta * Y of matrices at element offsets ao,
 * bo, yo of tensors of the same type (float, double or an integer type). */
typedef struct prod {
	bool ta, tb;
	int64_t m, n, k;
	double alpha, beta;
	const ox_val *a, *b;
	ox_val *y;
	int64_t ao, bo, yo;
} prod;

/* A double as int64, truncated, saturating where C's conversion would be undefined. */
static int64_t to_i64(double x)
{
	if (x != x)
		return 0;
	if (x >= 9223372036854775807.0)
		return INT64_MAX;
	return x <= -9223372036854775808.0 ? INT64_MIN : (int64_t)x;
}

/* Integers: exact sums that wrap like the type's own arithmetic; alpha and beta other
 * than 1 go through double, as they are floats. */
static void product_int(const prod *p)
{
	for (int64_t i = 0; i < p->m; i++)
		for (int64_t j = 0; j < p->n; j++) {
			uint64_t sum = 0;
			for (int64_t q = 0; q < p->k; q++) {
				int64_t x = ox_get_i64(p->a, p->ao + (p->ta ? q * p->m + i : i * p->k + q));
				int64_t z = ox_get_i64(p->b, p->bo + (p->tb ? j * p->k + q : q * p->n + j));
				sum += (uint64_t)x * (uint64_t)z;
			}
			int64_t at = p->yo + i * p->n + j, v = (int64_t)sum;
			int64_t c = p->beta == 0 ? 0 : ox_get_i64(p->y, at);
			if (p->alpha == 1 && (p->beta == 1 || p->beta == 0))
				v = (int64_t)((uint64_t)v + (uint64_t)c);
			else
				v = to_i64(p->alpha * (double)v + p->beta * (double)c);
			ox_set_i64(p->y, at, v);
		}
}

static int product(const prod *p)
{
	if (p->y->type == OX_FLOAT) {
		const float *a = (const float *)p->a->data + p->ao, *b = (const float *)p->b->data + p->bo;
		return ox_sgemm(p->ta, p->tb, p->m, p->n, p->k, (float)p->alpha, a, p->ta ? p->m : p->k, b,
				p->tb ? p->k : p->n, (float)p->beta, (float *)p->y->data + p->yo, p->n);
	}
	if (p->y->type == OX_DOUBLE) {
		const double *a = (const double *)p->a->data + p->ao, *b = (const double *)p->b->data + p->bo;
		ox_dgemm(p->ta, p->tb, p->m, p->n, p->k, p->alpha, a, p->ta ? p->m : p->k, b, p->tb ? p->k : p->n,
			 p->beta, (double *)p->y->data + p->yo, p->n);
		return 0;
	}
	product_int(p);
	return 0;
}

/* float16 and bfloat16 are computed in float: a float copy of t (or t itself, referenced). */
static ox_val *widen(const ox_val *t)
{
	if (t->type != OX_FLOAT16 && t->type != OX_BFLOAT16)
		return ox_val_ref((ox_val *)t);
	ox_val *f = ox_tensor_new(OX_FLOAT, t->rank, t->dims, NULL);
	for (int64_t i = 0; f && i < t->count; i++) {
		uint16_t h = ((const uint16_t *)t->data)[i];
		((float *)f->data)[i] = t->type == OX_FLOAT16 ? ox_f16_to_f32(h) : ox_bf16_to_f32(h);
	}
	return f;
}

/* The float tensor a product writes for output y: y itself, or for float16 and bfloat16 a
 * fresh one, since y holds nothing yet to widen (valgrind: uninitialized reads). */
static ox_val *widen_output(ox_val *y)
{
	if (y->type != OX_FLOAT16 && y->type != OX_BFLOAT16)
		return ox_val_ref(y);
	return ox_tensor_new(OX_FLOAT, y->rank, y->dims, NULL);
}

static void narrow(ox_val *dst, const ox_val *f)
{
	for (int64_t i = 0; i < dst->count; i++) {
		float x = ((const float *)f->data)[i];
		((uint16_t *)dst->data)[i] = dst->type == OX_FLOAT16 ? ox_f32_to_f16(x) : ox_f32_to_bf16(x);
	}
}

static bool numeric_type(int t)
{
	return t == OX_FLOAT || t == OX_DOUBLE || t == OX_FLOAT16 || t == OX_BFLOAT16 || t == OX_INT32 ||
	       t == OX_INT64 || t == OX_UINT32 || t == OX_UINT64;
}

static int check_types(ox_k *k, const ox_val *a, const ox_val *b, const ox_val *c)
{
	if (!numeric_type(a->type))
		return ox_kfail(k, "A has type %s; expected a float or 32/64-bit integer type",
				ox_elem_label(a->type));
	if (b->type != a->type || (c && c->type != a->type))
		return ox_kfail(k, "%s has type %s; expected %s like A", b->type != a->type ? "B" : "C",
				ox_elem_label(b->type != a->type ? b->type : c->type), ox_elem_label(a->type));
	return 0;
}

/* ---- MatMul ------------------------------------------------------------------------ */

static int mm_one(void *ctx, const mmshape *s, int64_t ia, int64_t ib, int64_t iy)
{
	prod p = *(const prod *)ctx;
	p.ao = ia * s->m * s->k, p.bo = ib * s->k * s->n, p.yo = iy * s->m * s->n;
	return product(&p);
}

/* Y (of the type the product is computed in) = A x B, batch by batch; when B is a single
 * matrix, the batches of A are rows of one tall product. */
static int matmul(const mmshape *s, const ox_val *a, const ox_val *b, ox_val *y)
{
	prod p = {false, false, s->m, s->n, s->k, 1, 0, a, b, y, 0, 0, 0};
	if (b->rank <= 2) {
		p.m = s->m * s->nbatch;
		return product(&p);
	}
	return each_matrix(s, mm_one, &p);
}

int ox_op_MatMul(ox_k *k)
{
	ox_val *a = ox_in_tensor(k, 0, true), *b = a ? ox_in_tensor(k, 1, true) : NULL, *y;
	mmshape s;
	if (!b || check_types(k, a, b, NULL) < 0 || mm_shape(k, a, b, &s) < 0 ||
	    !(y = ox_out_tensor(k, 0, a->type, s.yrank, s.ydims)))
		return -1;
	if (y->count == 0)
		return 0;
	ox_val *af = widen(a), *bf = widen(b), *yf = widen_output(y);
	int rc = af && bf && yf ? matmul(&s, af, bf, yf) : -1;
	if (rc == 0 && yf != y)
		narrow(y, yf);
	ox_val_unref(af);
	ox_val_unref(bf);
	ox_val_unref(yf);
	return rc < 0 ? ox_kfail(k, "out of memory") : 0;
}

/* ---- Gemm -------------------------------------------------------------------------- */

/* Gemm's versions: C broadcasts only with broadcast=1 at 1 and 6, always from 7; C is
 * optional from 11. */
enum { GEMM_1, GEMM_7, GEMM_11 };

/* C as Gemm allows it: unidirectionally broadcastable to [M, N] (from version 7, or with
 * broadcast=1 before), or exactly [M, N]. */
static int gemm_check_c(ox_k *k, int ver, const ox_val *c, int64_t m, int64_t n)
{
	bool bc = ver != GEMM_1 || ox_attr_int(k, "broadcast", 0) != 0;
	int64_t want[2] = {m, n};
	if (c->rank > 2)
		return ox_kfail(k, "C has rank %d; expected at most 2", c->rank);
	for (int i = 0; i < c->rank; i++) {
		int64_t d = c->dims[i], w = want[2 - c->rank + i];
		if (d != w && !(bc && d == 1))
			return ox_kfail(k, "C's shape cannot be broadcast to [%lld, %lld]%s", (long long)m,
					(long long)n, bc ? "" : " (attribute broadcast is 0)");
	}
	if (!bc && c->rank != 2)
		return ox_kfail(k, "C must be [%lld, %lld] when attribute broadcast is 0", (long long)m, (long long)n);
	return 0;
}

/* Y starts as C broadcast to [M, N]: rows copied whole, or one value repeated. */
static void gemm_fill_c(ox_val *y, const ox_val *c, int64_t m, int64_t n)
{
	int64_t dims[2] = {m, n}, st[2];
	ox_broadcast_strides(c->rank, c->dims, 2, dims, st);
	size_t es = ox_elem_size(y->type), row = (size_t)n * es;
	for (int64_t i = 0; i < m; i++) {
		char *dst = (char *)y->data + (size_t)i * row;
		const char *src = (const char *)c->data + (size_t)(i * st[0]) * es;
		if (st[1]) {
			memcpy(dst, src, row);
			continue;
		}
		for (int64_t j = 0; j < n; j++) {
			if (es == 4)
				memcpy(dst + j * 4, src, 4); /* a constant size: one move */
			else
				memcpy(dst + (size_t)j * es, src, es);
		}
	}
}

static int gemm_run(ox_k *k, prod *p, const ox_val *c)
{
	ox_val *af = widen(p->a), *bf = widen(p->b), *cf = c ? widen(c) : NULL, *y = p->y, *yf = widen_output(y);
	int rc = af && bf && yf && (cf || !c) ? 0 : -1;
	if (rc == 0) {
		p->a = af, p->b = bf, p->y = yf;
		if (cf && p->beta != 0)
			gemm_fill_c(yf, cf, p->m, p->n);
		else
			p->beta = 0;
		rc = product(p);
	}
	if (rc == 0 && yf != y)
		narrow(y, yf);
	ox_val_unref(af);
	ox_val_unref(bf);
	ox_val_unref(cf);
	ox_val_unref(yf);
	return rc < 0 ? ox_kfail(k, "out of memory") : 0;
}

static int gemm(ox_k *k, int ver)
{
	ox_val *a = ox_in_tensor(k, 0, true), *b = a ? ox_in_tensor(k, 1, true) : NULL, *c = NULL, *y;
	if (!b || (ox_in(k, 2) && !(c = ox_in_tensor(k, 2, false))))
		return -1;
	if (!c && ver != GEMM_11)
		return ox_kfail(k, "input C is required before opset 11");
	if (check_types(k, a, b, c) < 0)
		return -1;
	if (a->rank != 2 || b->rank != 2)
		return ox_kfail(k, "A and B must be 2-D, not of rank %d and %d", a->rank, b->rank);
	prod p = {0};
	p.ta = ox_attr_int(k, "transA", 0) != 0, p.tb = ox_attr_int(k, "transB", 0) != 0;
	p.m = a->dims[p.ta ? 1 : 0], p.k = a->dims[p.ta ? 0 : 1], p.n = b->dims[p.tb ? 0 : 1];
	if (b->dims[p.tb ? 1 : 0] != p.k)
		return ox_kfail(k, "op(A) is [%lld, %lld] but op(B) is [%lld, %lld]", (long long)p.m, (long long)p.k,
				(long long)b->dims[p.tb ? 1 : 0], (long long)p.n);
	if (c && gemm_check_c(k, ver, c, p.m, p.n) < 0)
		return -1;
	int64_t dims[2] = {p.m, p.n};
	if (!(y = ox_out_tensor(k, 0, a->type, 2, dims)))
		return -1;
	p.alpha = ox_attr_float(k, "alpha", 1), p.beta = ox_attr_float(k, "beta", 1);
	p.a = a, p.b = b, p.y = y;
	return y->count ? gemm_run(k, &p, c) : 0;
}

OX_KERNEL(ox_op_Gemm_1, gemm(k, GEMM_1))
OX_KERNEL(ox_op_Gemm_7, gemm(k, GEMM_7))
OX_KERNEL(ox_op_Gemm_11, gemm(k, GEMM_11))

/* ---- MatMulInteger ----------------------------------------------------------------- */

/* A zero point: a scalar, or one value per row of A (per column of B), the same for every
 * batch (count `per`) or one set per batch (count per * nmat). */
typedef struct zpoint {
	const ox_val *t;
	int64_t per;
} zpoint;

static int64_t zp_at(const zpoint *z, int64_t mat, int64_t i)
{
	if (!z->t)
		return 0;
	if (z->t->count == 1)
		return ox_get_i64(z->t, 0);
	return ox_get_i64(z->t, z->t->count == z->per ? i : mat * z->per + i);
}

static int check_zp(ox_k *k, const ox_val *zp, const ox_val *of, int64_t per, int64_t nmat, const char *what)
{
	if (!zp)
		return 0;
	if (zp->type != of->type)
		return ox_kfail(k, "%s has type %s; expected %s", what, ox_elem_label(zp->type), ox_elem_label(of->type));
	if (zp->count != 1 && zp->count != per && zp->count != per * nmat)
		return ox_kfail(k, "%s has %lld values; expected 1, %lld or %lld", what, (long long)zp->count,
				(long long)per, (long long)(per * nmat));
	return 0;
}

typedef struct mmi {
	const ox_val *a, *b;
	ox_val *y;
	zpoint za, zb;
	float *af, *bf, *cf; /* one matrix of A and of B less their zero points; a chunk's sums */
} mmi;

static int32_t byte_at(const ox_val *t, int64_t e)
{
	return t->type == OX_UINT8 ? ((const uint8_t *)t->data)[e] : ((const int8_t *)t->data)[e];
}

/* Less their zero points, A and B hold integers of magnitude 255 at most, so a sum of
 * EXACT_TERMS of their products stays below 2^24, where float is exact: the depth is cut
 * into chunks that long, multiplied by the SGEMM, and the chunks' sums added in int32,
 * which wraps as the spec allows. */
#define EXACT_TERMS 256

static int mmi_one(void *ctx, const mmshape *s, int64_t ia, int64_t ib, int64_t iy)
{
	const mmi *c = ctx;
	int64_t m = s->m, n = s->n, k = s->k;
	uint32_t *y = (uint32_t *)c->y->data + iy * m * n;
	for (int64_t i = 0; i < m; i++)
		for (int64_t q = 0; q < k; q++)
			c->af[i * k + q] = (float)(byte_at(c->a, (ia * m + i) * k + q) - zp_at(&c->za, ia, i));
	for (int64_t q = 0; q < k; q++)
		for (int64_t j = 0; j < n; j++)
			c->bf[q * n + j] = (float)(byte_at(c->b, (ib * k + q) * n + j) - zp_at(&c->zb, ib, j));
	memset(y, 0, (size_t)(m * n) * sizeof(uint32_t));
	for (int64_t q = 0; q < k; q += EXACT_TERMS) {
		int64_t kc = k - q < EXACT_TERMS ? k - q : EXACT_TERMS;
		if (ox_sgemm(false, false, m, n, kc, 1, c->af + q, k, c->bf + q * n, n, 0, c->cf, n) < 0)
			return -1;
		for (int64_t e = 0; e < m * n; e++)
			y[e] += (uint32_t)(int32_t)c->cf[e];
	}
	return 0;
}

int ox_op_MatMulInteger(ox_k *k)
{
	ox_val *a, *b, *za, *zb, *y;
	mmshape s;
	if (ox_in_int8_operands(k, &a, &b, &za, &zb, "A", "B") < 0 || mm_shape(k, a, b, &s) < 0)
		return -1;
	int64_t mk = s.m * s.k, kn = s.k * s.n;
	int64_t na = a->rank > 2 && mk ? a->count / mk : 1, nb = b->rank > 2 && kn ? b->count / kn : 1;
	if (check_zp(k, za, a, s.m, na, "a_zero_point") < 0 || check_zp(k, zb, b, s.n, nb, "b_zero_point") < 0 ||
	    !(y = ox_out_tensor(k, 0, OX_INT32, s.yrank, s.ydims)))
		return -1;
	if (y->count == 0)
		return 0;
	mmi c = {a, b, y, {za, s.m}, {zb, s.n}, malloc((size_t)(s.m * s.k) * sizeof(float) + 1),
		 malloc((size_t)(s.k * s.n) * sizeof(float) + 1), malloc((size_t)(s.m * s.n) * sizeof(float) + 1)};
	int rc = c.af && c.bf && c.cf ? each_matrix(&s, mmi_one, &c) : -1;
	free(c.af);
	free(c.bf);
	free(c.cf);
	return rc < 0 ? ox_kfail(k, "out of memory") : 0;
}
