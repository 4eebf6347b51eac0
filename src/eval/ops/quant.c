/* Quantization: QuantizeLinear, DequantizeLinear (per tensor, per axis, blocked),
 * DynamicQuantizeLinear, QLinearMatMul and QLinearConv. Arithmetic follows the ONNX
 * reference: quotients in float32 (float16 when both operands are), round half to even,
 * saturation to the target's range. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geometry.h"
#include "eval/kernel.h"
#include "eval/move.h"

/* ---- scales and zero points -------------------------------------------------------- */

/* How the elements of a scale (or zero point) map onto the elements of x: x is seen as
 * [pre, dim, post] around the quantization axis. */
typedef struct qmap {
	bool per_tensor;
	int64_t dim, post;
	int64_t block;   /* 0 for per-axis */
	int64_t nblocks; /* the scale's size along the axis when blocked */
} qmap;

static int64_t qmap_index(const qmap *m, int64_t i)
{
	if (m->per_tensor)
		return 0;
	int64_t a = (i / m->post) % m->dim;
	if (!m->block)
		return a;
	int64_t p = i / (m->post * m->dim);
	return (p * m->nblocks + a / m->block) * m->post + i % m->post;
}

static int qmap_blocked(ox_k *k, const ox_val *x, const ox_val *s, int axis, int64_t block, qmap *m)
{
	if (s->rank != x->rank)
		return ox_kfail(k, "blocked quantization: the scale has rank %d; expected the rank of x, %d", s->rank,
				x->rank);
	m->nblocks = (m->dim + block - 1) / block;
	for (int i = 0; i < x->rank; i++) {
		int64_t want = i == axis ? m->nblocks : x->dims[i];
		if (s->dims[i] != want)
			return ox_kfail(k, "blocked quantization: the scale's dimension %d is %lld; expected %lld", i,
					(long long)s->dims[i], (long long)want);
	}
	m->block = block;
	return 0;
}

/* Reads axis and block_size and checks that the scale s fits x; version 10 has no per_axis
 * scales. */
static int qmap_init(ox_k *k, bool per_axis, const ox_val *x, const ox_val *s, qmap *m)
{
	memset(m, 0, sizeof *m);
	int64_t block = ox_attr_int(k, "block_size", 0);
	if (block < 0)
		return ox_kfail(k, "block_size must not be negative, not %lld", (long long)block);
	if (s->count == 1 && (s->rank <= 1 || block)) {
		m->per_tensor = true;
		return 0;
	}
	if (!per_axis && s->rank > 0)
		return ox_kfail(k, "the scale must be a scalar before opset 13");
	int axis = ox_axis(k, ox_attr_int(k, "axis", 1), x->rank);
	if (axis < 0)
		return -1;
	m->dim = x->dims[axis];
	m->post = 1;
	for (int i = axis + 1; i < x->rank; i++)
		m->post *= x->dims[i];
	if (block)
		return qmap_blocked(k, x, s, axis, block, m);
	if (s->rank != 1 || s->dims[0] != m->dim)
		return ox_kfail(k, "per-axis quantization: the scale must be a 1-D tensor of %lld values (x's axis %d)",
				(long long)m->dim, axis);
	return 0;
}

/* The zero point zp must have the scale's shape. */
static int same_shape(ox_k *k, const ox_val *zp, const ox_val *s)
{
	if (zp->count == 1 && s->count == 1)
		return 0;
	if (zp->rank != s->rank || memcmp(zp->dims, s->dims, (size_t)s->rank * sizeof *s->dims) != 0)
		return ox_kfail(k, "the zero point must have the shape of the scale");
	return 0;
}

static bool is_f8(int type)
{
	return type == OX_FLOAT8E4M3FN || type == OX_FLOAT8E4M3FNUZ || type == OX_FLOAT8E5M2 ||
	       type == OX_FLOAT8E5M2FNUZ;
}

/* The range of an integer quantized type; false for float types. */
static bool q_range(int type, double *lo, double *hi)
{
	switch (type) {
	case OX_INT8: *lo = -128, *hi = 127; return true;
	case OX_UINT8: *lo = 0, *hi = 255; return true;
	case OX_INT16: *lo = -32768, *hi = 32767; return true;
	case OX_UINT16: *lo = 0, *hi = 65535; return true;
	case OX_INT4: *lo = -8, *hi = 7; return true;
	case OX_UINT4: *lo = 0, *hi = 15; return true;
	case OX_INT2: *lo = -2, *hi = 1; return true;
	case OX_UINT2: *lo = 0, *hi = 3; return true;
	default: return false;
	}
}

/* Stores the quantized value of q (x / scale) plus the zero point zp in y[i]. */
static void q_store(ox_val *y, int64_t i, double q, double zp, bool saturate)
{
	double lo, hi;
	if (q_range(y->type, &lo, &hi)) {
		double r = isnan(q) ? 0 : nearbyint(q) + zp;
		ox_set_i64(y, i, (int64_t)(r < lo ? lo : r > hi ? hi : r));
	} else if (is_f8(y->type)) {
		((uint8_t *)y->data)[i] = ox_f32_to_f8(y->type, (float)(q + zp), saturate);
	} else {
		((uint8_t *)y->data)[i] = ox_f32_to_f4((float)(q + zp));
	}
}

/* ---- QuantizeLinear -------------------------------------------------------------------- */

static const int q_targets[] = {OX_UINT8, OX_INT8, OX_UINT16, OX_INT16, OX_UINT4, OX_INT4, OX_UINT2, OX_INT2,
				OX_FLOAT8E4M3FN, OX_FLOAT8E4M3FNUZ, OX_FLOAT8E5M2, OX_FLOAT8E5M2FNUZ,
				OX_FLOAT4E2M1, 0};

/* The output type: the zero point's, else output_dtype (opset 21), else uint8. */
static int q_out_type(ox_k *k, const ox_val *zp)
{
	int64_t dt = ox_attr_int(k, "output_dtype", 0);
	int type = zp ? zp->type : dt ? (int)dt : OX_UINT8;
	if (zp && dt && dt != zp->type)
		return ox_kfail(k, "output_dtype %s differs from the zero point's type %s", ox_elem_label((int)dt),
				ox_elem_label(zp->type));
	for (const int *p = q_targets; *p; p++)
		if (*p == type)
			return type;
	return ox_kfail(k, "%s is not a quantized type", ox_elem_label(type));
}

/* Rounds a float32 quotient to the narrow float type both operands had (numpy computes
 * float16 / float16 in float16), or to the precision attribute's type. */
static double narrow(double q, int type)
{
	if (type == OX_FLOAT16)
		return ox_f16_to_f32(ox_f32_to_f16((float)q));
	if (type == OX_BFLOAT16)
		return ox_bf16_to_f32(ox_f32_to_bf16((float)q));
	return (float)q;
}

static int quant_precision(ox_k *k, const ox_val *x, const ox_val *s)
{
	int64_t p = ox_attr_int(k, "precision", 0);
	if (p)
		return ox_is_real((int)p) ? (int)p : ox_kfail(k, "precision must be a float type, not %s",
								    ox_elem_label((int)p));
	if (x->type == OX_INT32 || x->type == OX_DOUBLE)
		return OX_DOUBLE;
	return x->type == s->type ? x->type : OX_FLOAT;
}

/* Fetches x, the scale (called sname) and the optional zero point into in, checks their
 * types against xt and st and their shapes, and maps x's elements to scale elements in m. */
static int q_setup(ox_k *k, bool per_axis, ox_val **in, const int *xt, const int *st, const char *sname, qmap *m)
{
	if (ox_in_tensors(k, in, 3, 2) < 0)
		return -1;
	const ox_val *x = in[0], *s = in[1], *zp = in[2];
	if (ox_check_type(k, x, "x", xt) < 0 || ox_check_type(k, s, sname, st) < 0 || qmap_init(k, per_axis, x, s, m) < 0 ||
	    (zp && same_shape(k, zp, s) < 0))
		return -1;
	return 0;
}

static int quantize(ox_k *k, bool per_axis)
{
	static const int xt[] = {OX_FLOAT, OX_FLOAT16, OX_BFLOAT16, OX_INT32, OX_DOUBLE, 0};
	static const int st[] = {OX_FLOAT, OX_FLOAT16, OX_BFLOAT16, OX_INT32, OX_DOUBLE, 0};
	ox_val *in[3];
	qmap m;
	if (q_setup(k, per_axis, in, xt, st, "y_scale", &m) < 0)
		return -1;
	ox_val *x = in[0], *s = in[1], *zp = in[2];
	int type = q_out_type(k, zp), prec = quant_precision(k, x, s);
	if (type < 0 || prec < 0)
		return -1;
	ox_val *y = ox_out_tensor(k, 0, type, x->rank, x->dims);
	if (!y)
		return -1;
	bool saturate = ox_attr_int(k, "saturate", 1) != 0;
	for (int64_t i = 0; i < x->count; i++) {
		int64_t j = qmap_index(&m, i);
		double xv = ox_get_f64(x, i), sv = ox_get_f64(s, j);
		double q = prec == OX_DOUBLE ? xv / sv : narrow(narrow(xv, prec) / narrow(sv, prec), prec);
		q_store(y, i, q, zp && !is_f8(type) ? ox_get_f64(zp, j) : 0, saturate);
	}
	return 0;
}

OX_KERNEL(ox_op_QuantizeLinear_10, quantize(k, false))
OX_KERNEL(ox_op_QuantizeLinear_13, quantize(k, true))

/* ---- DequantizeLinear ------------------------------------------------------------------ */

static int dequantize(ox_k *k, bool per_axis)
{
	static const int xt[] = {OX_INT8, OX_UINT8, OX_INT32, OX_INT16, OX_UINT16, OX_INT4, OX_UINT4, OX_INT2,
				 OX_UINT2, OX_FLOAT8E4M3FN, OX_FLOAT8E4M3FNUZ, OX_FLOAT8E5M2, OX_FLOAT8E5M2FNUZ,
				 OX_FLOAT4E2M1, 0};
	static const int st[] = {OX_FLOAT, OX_FLOAT16, OX_BFLOAT16, OX_FLOAT8E8M0, 0};
	ox_val *in[3];
	qmap m;
	if (q_setup(k, per_axis, in, xt, st, "x_scale", &m) < 0)
		return -1;
	ox_val *x = in[0], *s = in[1], *zp = in[2];
	bool float_x = is_f8(x->type) || x->type == OX_FLOAT4E2M1;
	if (zp && !float_x && zp->type != x->type)
		return ox_kfail(k, "the zero point has type %s; expected x's type %s", ox_elem_label(zp->type),
				ox_elem_label(x->type));
	int type = (int)ox_attr_int(k, "output_dtype", 0);
	if (!type)
		type = s->type == OX_FLOAT8E8M0 ? OX_FLOAT : s->type;
	if (!ox_is_real(type))
		return ox_kfail(k, "output_dtype must be float, float16 or bfloat16, not %s", ox_elem_label(type));
	ox_val *y = ox_out_tensor(k, 0, type, x->rank, x->dims);
	if (!y)
		return -1;
	for (int64_t i = 0; i < x->count; i++) {
		int64_t j = qmap_index(&m, i);
		double dx = float_x ? ox_get_f64(x, i) : (double)(ox_get_i64(x, i) - (zp ? ox_get_i64(zp, j) : 0));
		ox_set_f64(y, i, dx * ox_get_f64(s, j));
	}
	return 0;
}

OX_KERNEL(ox_op_DequantizeLinear_10, dequantize(k, false))
OX_KERNEL(ox_op_DequantizeLinear_13, dequantize(k, true))

/* ---- DynamicQuantizeLinear ------------------------------------------------------------- */

int ox_op_DynamicQuantizeLinear(ox_k *k)
{
	static const int xt[] = {OX_FLOAT, 0};
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x || ox_check_type(k, x, "x", xt) < 0)
		return -1;
	const float *xd = x->data;
	float lo = 0, hi = 0;
	for (int64_t i = 0; i < x->count; i++) {
		lo = xd[i] < lo ? xd[i] : lo;
		hi = xd[i] > hi ? xd[i] : hi;
	}
	/* the range always holds 0; it is empty only when every element is 0: scale 1 */
	float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
	float zpf = 0.0f - lo / scale;
	zpf = zpf < 0 ? 0 : zpf > 255 ? 255 : zpf;
	uint8_t zp = (uint8_t)nearbyintf(zpf);
	ox_val *y = ox_out_tensor(k, 0, OX_UINT8, x->rank, x->dims);
	ox_val *ys = ox_out_tensor(k, 1, OX_FLOAT, 0, NULL);
	ox_val *yz = ox_out_tensor(k, 2, OX_UINT8, 0, NULL);
	if (!y || !ys || !yz)
		return -1;
	*(float *)ys->data = scale;
	*(uint8_t *)yz->data = zp;
	for (int64_t i = 0; i < x->count; i++)
		q_store(y, i, (float)(xd[i] / scale), zp, true);
	return 0;
}

/* ---- QLinearMatMul --------------------------------------------------------------------- */

static const int qmm_types[] = {OX_INT8, OX_UINT8, OX_FLOAT8E4M3FN, OX_FLOAT8E4M3FNUZ, OX_FLOAT8E5M2,
				OX_FLOAT8E5M2FNUZ, 0};
static const int scale_types[] = {OX_FLOAT, OX_FLOAT16, OX_BFLOAT16, 0};

/* A quantized operand: its values minus the zero point, and its scale, both expanded to
 * per-element arrays (the scale over [..., rows, 1] for a, [..., 1, cols] for b). */
typedef struct qoperand {
	ox_val *t, *scale, *zp;
	double *v;     /* t - zp */
	double *s;     /* scale per element of t (a row's or a column's) */
} qoperand;

/* Expands a per-tensor, per-row (a) or per-column (b) parameter p to t's shape. A 1-D
 * parameter of the row count names rows; otherwise numpy broadcasting applies. */
static int expand_param(ox_k *k, const ox_val *t, const ox_val *p, bool rows, double *out, const char *what)
{
	int rank = p->rank;
	int64_t dims[OX_MAX_RANK], st[OX_MAX_RANK], tst[OX_MAX_RANK];
	memcpy(dims, p->dims, sizeof dims);
	if (rows && p->rank == 1 && t->rank >= 2 && p->count > 1) {
		rank = 2;
		dims[1] = 1;
	}
	for (int i = 0; i < rank; i++) {
		int64_t td = t->rank - rank + i >= 0 ? t->dims[t->rank - rank + i] : -1;
		if (rank > t->rank || (dims[i] != 1 && dims[i] != td))
			return ox_kfail(k, "%s cannot apply to an operand of rank %d (per tensor, per %s only)", what,
					t->rank, rows ? "row" : "column");
	}
	ox_broadcast_strides(rank, dims, t->rank, t->dims, st);
	ox_strides(t->rank, t->dims, tst);
	for (int64_t i = 0; i < t->count; i++) {
		int64_t off = 0, r = i;
		for (int d = 0; d < t->rank; d++) {
			off += (r / tst[d]) * st[d];
			r %= tst[d];
		}
		out[i] = ox_get_f64(p, off);
	}
	return 0;
}

static int qoperand_load(ox_k *k, qoperand *q, int base, bool rows)
{
	q->t = ox_in_tensor(k, base, true);
	q->scale = ox_in_tensor(k, base + 1, true);
	q->zp = ox_in_tensor(k, base + 2, false);
	if (!q->t || !q->scale || (!q->zp && ox_in(k, base + 2)) ||
	    ox_check_type(k, q->t, rows ? "a" : "b", qmm_types) < 0 ||
	    ox_check_type(k, q->scale, rows ? "a_scale" : "b_scale", scale_types) < 0)
		return -1;
	if (q->zp && q->zp->type != q->t->type)
		return ox_kfail(k, "%s's zero point has type %s; expected %s", rows ? "a" : "b", ox_elem_label(q->zp->type),
				ox_elem_label(q->t->type));
	if (q->t->rank < 1)
		return ox_kfail(k, "%s must have rank 1 or more", rows ? "a" : "b");
	if (!(q->v = ox_scratch(k, q->t->count, sizeof *q->v, "operand")) ||
	    !(q->s = ox_scratch(k, q->t->count, sizeof *q->s, "scales")))
		return -1;
	if (expand_param(k, q->t, q->scale, rows, q->s, "the scale") < 0)
		return -1;
	if (q->zp && expand_param(k, q->t, q->zp, rows, q->v, "the zero point") < 0)
		return -1;
	for (int64_t i = 0; i < q->t->count; i++)
		q->v[i] = ox_get_f64(q->t, i) - (q->zp && !is_f8(q->t->type) ? q->v[i] : 0);
	return 0;
}

/* numpy matmul shapes: batch dims broadcast, 1-D operands promoted and the added dim
 * dropped from the result. */
typedef struct mmshape {
	int64_t M, K, N, nbatch;
	int brank;
	int64_t bdims[OX_MAX_RANK], astr[OX_MAX_RANK], bstr[OX_MAX_RANK];
	int orank;
	int64_t odims[OX_MAX_RANK];
} mmshape;

static int mm_shape(ox_k *k, const ox_val *a, const ox_val *b, mmshape *s)
{
	int64_t ad[OX_MAX_RANK + 1], bd[OX_MAX_RANK + 1];
	int ar = a->rank < 2 ? 2 : a->rank, br = b->rank < 2 ? 2 : b->rank;
	ad[0] = 1;
	memcpy(ad + (a->rank < 2), a->dims, (size_t)a->rank * sizeof *ad);
	memcpy(bd, b->dims, (size_t)b->rank * sizeof *bd);
	if (b->rank < 2)
		bd[1] = 1;
	s->M = ad[ar - 2], s->K = ad[ar - 1], s->N = bd[br - 1];
	if (bd[br - 2] != s->K)
		return ox_kfail(k, "matrix shapes do not match: a has %lld columns, b has %lld rows", (long long)s->K,
				(long long)bd[br - 2]);
	if (ox_broadcast_shape(k, ar - 2, ad, br - 2, bd, &s->brank, s->bdims) < 0)
		return -1;
	int64_t am = s->M * s->K, bm = s->K * s->N, sa[OX_MAX_RANK], sb[OX_MAX_RANK];
	ox_broadcast_strides(ar - 2, ad, s->brank, s->bdims, sa);
	ox_broadcast_strides(br - 2, bd, s->brank, s->bdims, sb);
	s->nbatch = 1;
	for (int i = 0; i < s->brank; i++) {
		s->astr[i] = sa[i] * am, s->bstr[i] = sb[i] * bm;
		s->nbatch *= s->bdims[i];
	}
	s->orank = s->brank;
	memcpy(s->odims, s->bdims, (size_t)s->brank * sizeof *s->odims);
	if (a->rank >= 2)
		s->odims[s->orank++] = s->M;
	if (b->rank >= 2)
		s->odims[s->orank++] = s->N;
	return 0;
}

/* Offsets of batch bi's matrices in a and b. */
static void mm_offsets(const mmshape *s, int64_t bi, int64_t *ao, int64_t *bo)
{
	*ao = *bo = 0;
	for (int i = s->brank - 1; i >= 0; i--) {
		int64_t c = bi % s->bdims[i];
		bi /= s->bdims[i];
		*ao += c * s->astr[i];
		*bo += c * s->bstr[i];
	}
}

static int qlinear_output(ox_k *k, ox_val **ys, ox_val **yz)
{
	*ys = ox_in_tensor(k, 6, true);
	*yz = ox_in_tensor(k, 7, false);
	if (!*ys || (!*yz && ox_in(k, 7)) || ox_check_type(k, *ys, "y_scale", scale_types) < 0)
		return -1;
	if ((*ys)->count != 1 || (*yz && (*yz)->count != 1))
		return ox_kfail(k, "y_scale and y_zero_point must be scalars");
	if (*yz && ox_check_type(k, *yz, "y_zero_point", qmm_types) < 0)
		return -1;
	return 0;
}

static void qmm_batch(const mmshape *s, const qoperand *a, const qoperand *b, int64_t ao, int64_t bo, float ys,
		      double yz, ox_val *y, int64_t yo, double *acc)
{
	for (int64_t i = 0; i < s->M; i++) {
		for (int64_t j = 0; j < s->N; j++)
			acc[j] = 0;
		for (int64_t l = 0; l < s->K; l++) {
			double av = a->v[ao + i * s->K + l];
			const double *bv = b->v + bo + l * s->N;
			for (int64_t j = 0; j < s->N; j++)
				acc[j] += av * bv[j];
		}
		for (int64_t j = 0; j < s->N; j++) {
			float mult = (float)((float)a->s[ao + i * s->K] * (float)b->s[bo + j]) / ys;
			q_store(y, yo + i * s->N + j, acc[j] * mult, yz, true);
		}
	}
}

int ox_op_QLinearMatMul(ox_k *k)
{
	qoperand a = {0}, b = {0};
	ox_val *ys, *yz;
	mmshape s;
	int rc = -1;
	double *acc = NULL;
	if (qoperand_load(k, &a, 0, true) < 0 || qoperand_load(k, &b, 3, false) < 0 ||
	    qlinear_output(k, &ys, &yz) < 0 || mm_shape(k, a.t, b.t, &s) < 0)
		goto out;
	ox_val *y = ox_out_tensor(k, 0, yz ? yz->type : a.t->type, s.orank, s.odims);
	if (!y || !(acc = ox_scratch(k, s.N, sizeof *acc, "accumulators")))
		goto out;
	float ysv = (float)ox_get_f64(ys, 0);
	double yzv = yz && !is_f8(yz->type) ? ox_get_f64(yz, 0) : 0;
	for (int64_t bi = 0; bi < s.nbatch; bi++) {
		int64_t ao, bo;
		mm_offsets(&s, bi, &ao, &bo);
		qmm_batch(&s, &a, &b, ao, bo, ysv, yzv, y, bi * s.M * s.N, acc);
	}
	rc = 0;
out:
	free(a.v), free(a.s), free(b.v), free(b.s), free(acc);
	return rc;
}

/* ---- QLinearConv ----------------------------------------------------------------------- */

/* The integer convolution of x (N, C, spatial...) with w (M, C/group, kernel...), both
 * already minus their zero points, plus bias, into acc (N, M, out...). */
typedef struct qconv {
	ox_conv_geom g;
	int64_t n, c, m, group, insz, outsz, ksz;
	int64_t istr[OX_MAX_RANK], odims[OX_MAX_RANK];
} qconv;

/* Input offset of kernel tap kk for output position o, or -1 when it falls in the padding. */
static int64_t qconv_tap(const qconv *q, int64_t o, int64_t kk)
{
	const ox_conv_geom *g = &q->g;
	int64_t off = 0;
	for (int d = g->nsp - 1; d >= 0; d--) {
		int64_t od = o % g->out[d], kd = kk % g->kernel[d];
		o /= g->out[d], kk /= g->kernel[d];
		int64_t p = od * g->stride[d] - g->pad0[d] + kd * g->dil[d];
		if (p < 0 || p >= g->in[d])
			return -1;
		off += p * q->istr[d];
	}
	return off;
}

/* The columns of one image and group: row (c, tap) holds x at that tap for every output. */
static void qconv_im2col(const qconv *q, const int32_t *x, int64_t cg, int32_t *col)
{
	for (int64_t kk = 0; kk < q->ksz; kk++)
		for (int64_t o = 0; o < q->outsz; o++) {
			int64_t off = qconv_tap(q, o, kk);
			for (int64_t c = 0; c < cg; c++)
				col[(c * q->ksz + kk) * q->outsz + o] = off < 0 ? 0 : x[c * q->insz + off];
		}
}

static void qconv_run(const qconv *q, const int32_t *x, const int32_t *w, const int32_t *bias, int32_t *col,
		      int64_t *acc)
{
	int64_t cg = q->c / q->group, mg = q->m / q->group, rows = cg * q->ksz;
	for (int64_t n = 0; n < q->n; n++)
		for (int64_t gi = 0; gi < q->group; gi++) {
			qconv_im2col(q, x + (n * q->c + gi * cg) * q->insz, cg, col);
			for (int64_t m = gi * mg; m < (gi + 1) * mg; m++) {
				int64_t *out = acc + (n * q->m + m) * q->outsz;
				for (int64_t o = 0; o < q->outsz; o++)
					out[o] = bias ? bias[m] : 0;
				for (int64_t r = 0; r < rows; r++) {
					int64_t wv = w[m * rows + r];
					const int32_t *cr = col + r * q->outsz;
					for (int64_t o = 0; wv && o < q->outsz; o++)
						out[o] += wv * cr[o];
				}
			}
		}
}

static int qconv_shape(ox_k *k, const ox_val *x, const ox_val *w, qconv *q)
{
	if (x->rank < 3 || w->rank != x->rank)
		return ox_kfail(k, "x must have rank 3 or more and w the same rank (x has %d, w %d)", x->rank, w->rank);
	q->n = x->dims[0], q->c = x->dims[1], q->m = w->dims[0];
	q->group = ox_attr_int(k, "group", 1);
	if (q->group < 1 || q->c % q->group || q->m % q->group || w->dims[1] * q->group != q->c)
		return ox_kfail(k, "group %lld does not fit %lld input channels, %lld output channels and w's %lld",
				(long long)q->group, (long long)q->c, (long long)q->m, (long long)w->dims[1]);
	if (ox_conv_attrs(k, x, w, &q->g) < 0 || ox_conv_out(k, &q->g) < 0)
		return -1;
	q->insz = q->outsz = q->ksz = 1;
	q->odims[0] = q->n, q->odims[1] = q->m;
	for (int d = 0; d < q->g.nsp; d++) {
		q->insz *= q->g.in[d], q->ksz *= q->g.kernel[d], q->outsz *= q->g.out[d];
		q->odims[d + 2] = q->g.out[d];
	}
	ox_strides(q->g.nsp, q->g.in, q->istr);
	return 0;
}

/* x or w minus its zero point (per tensor, or per output channel for w) as int32. */
static int32_t *qconv_operand(ox_k *k, const ox_val *t, const ox_val *zp, int64_t per, const char *what)
{
	int32_t *v = ox_scratch(k, t->count, sizeof *v, what);
	if (!v)
		return NULL;
	if (zp && zp->count != 1 && zp->count != t->dims[0]) {
		free(v);
		ox_kfail(k, "%s's zero point must be a scalar or have one value per output channel", what);
		return NULL;
	}
	for (int64_t i = 0; i < t->count; i++)
		v[i] = (int32_t)(ox_get_i64(t, i) - (zp ? ox_get_i64(zp, zp->count == 1 ? 0 : i / per) : 0));
	return v;
}

static int qconv_finish(ox_k *k, const qconv *q, const int64_t *acc, const ox_val *xs, const ox_val *ws,
			const ox_val *x)
{
	ox_val *ys, *yz;
	if (qlinear_output(k, &ys, &yz) < 0)
		return -1;
	if (xs->count != 1 || (ws->count != 1 && ws->count != q->m))
		return ox_kfail(k, "x_scale must be a scalar and w_scale a scalar or one value per output channel");
	ox_val *y = ox_out_tensor(k, 0, yz ? yz->type : x->type, q->g.nsp + 2, q->odims);
	if (!y)
		return -1;
	float xsv = (float)ox_get_f64(xs, 0), ysv = (float)ox_get_f64(ys, 0);
	double yzv = yz ? ox_get_f64(yz, 0) : 0;
	for (int64_t i = 0; i < y->count; i++) {
		int64_t m = (i / q->outsz) % q->m;
		float mult = xsv * (float)ox_get_f64(ws, ws->count == 1 ? 0 : m) / ysv;
		q_store(y, i, (double)acc[i] * mult, yzv, true);
	}
	return 0;
}

int ox_op_QLinearConv(ox_k *k)
{
	static const int it[] = {OX_INT8, OX_UINT8, 0}, bt[] = {OX_INT32, 0};
	ox_val *x = ox_in_tensor(k, 0, true), *xs = ox_in_tensor(k, 1, true), *xz = ox_in_tensor(k, 2, false);
	ox_val *w = ox_in_tensor(k, 3, true), *ws = ox_in_tensor(k, 4, true), *wz = ox_in_tensor(k, 5, false);
	ox_val *b = ox_in_tensor(k, 8, false);
	qconv q;
	if (!x || !xs || !w || !ws || ox_check_type(k, x, "x", it) < 0 || ox_check_type(k, w, "w", it) < 0 ||
	    ox_check_type(k, xs, "x_scale", scale_types) < 0 ||
	    ox_check_type(k, ws, "w_scale", scale_types) < 0 || (b && ox_check_type(k, b, "B", bt) < 0) ||
	    qconv_shape(k, x, w, &q) < 0)
		return -1;
	if (b && b->count != q.m)
		return ox_kfail(k, "B has %lld values; expected one per output channel (%lld)", (long long)b->count,
				(long long)q.m);
	int64_t nout = ox_shape_count(q.g.nsp + 2, q.odims);
	if (nout < 0)
		return ox_kfail(k, "the output has too many elements");
	int32_t *xv = qconv_operand(k, x, xz && xz->count == 1 ? xz : NULL, 1, "x");
	int32_t *wv = xv ? qconv_operand(k, w, wz, w->count / (w->dims[0] ? w->dims[0] : 1), "w") : NULL;
	int64_t *acc = wv ? ox_scratch(k, nout, sizeof *acc, "accumulators") : NULL;
	int64_t ncol = q.c / q.group * q.ksz;
	bool fits = q.outsz == 0 || ncol <= INT64_MAX / q.outsz;
	int32_t *col = acc && fits ? ox_scratch(k, ncol * q.outsz, sizeof *col, "columns") : NULL;
	int rc = -1;
	if (acc && !fits)
		ox_kfail(k, "the column buffer would have more than %lld elements", (long long)INT64_MAX);
	else if (xz && xz->count != 1)
		ox_kfail(k, "x_zero_point must be a scalar");
	else if (col) {
		qconv_run(&q, xv, wv, b ? b->data : NULL, col, acc);
		rc = qconv_finish(k, &q, acc, xs, ws, x);
	}
	free(xv), free(wv), free(acc), free(col);
	return rc;
}
