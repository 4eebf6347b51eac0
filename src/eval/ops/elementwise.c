/* The elementwise operators: unary math and activations, binary arithmetic, comparison,
 * logic and bitwise operators with numpy broadcasting, variadic Sum/Max/Min/Mean, Where
 * and Clip. Typed loops come from small macros, float32 hot loops from elementwise_simd.c;
 * float16 and bfloat16 are computed in float32 and rounded once. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "elementwise.h"
#include "eval/threads.h"
#include "eval/kernel.h"

/* The type-generic macros below compare values of unsigned types with 0. */
#pragma GCC diagnostic ignored "-Wtype-limits"

/* ---- the broadcasting engine ------------------------------------------------------ */

typedef struct plan {
	int rank;
	int64_t dims[OX_MAX_RANK];
	int64_t str[OX_EW_MAXIN][OX_MAX_RANK]; /* element strides of each input */
} plan;

/* Drops the dims of size 1 and merges each dim into the one before it when every input
 * is contiguous across the two (or broadcast along both). */
static void make_plan(plan *p, const ox_val *y, int nin, const ox_val *const *x)
{
	int64_t s[OX_EW_MAXIN][OX_MAX_RANK];
	for (int j = 0; j < nin; j++)
		ox_broadcast_strides(x[j]->rank, x[j]->dims, y->rank, y->dims, s[j]);
	p->rank = 0;
	for (int d = 0; d < y->rank; d++) {
		if (y->dims[d] == 1)
			continue;
		int r = p->rank;
		bool merge = r > 0;
		for (int j = 0; j < nin && merge; j++)
			merge = p->str[j][r - 1] == s[j][d] * y->dims[d];
		if (merge) {
			p->dims[r - 1] *= y->dims[d];
		} else {
			p->dims[r] = y->dims[d];
			p->rank = ++r;
		}
		for (int j = 0; j < nin; j++)
			p->str[j][r - 1] = s[j][d];
	}
	if (p->rank == 0) { /* a single element */
		p->rank = 1;
		p->dims[0] = 1;
		for (int j = 0; j < nin; j++)
			p->str[j][0] = 0;
	}
}

/* Advances the outer dims (all but the innermost) by one, odometer-style. */
static void step(const plan *p, int nin, int64_t *idx, int64_t *off)
{
	for (int d = p->rank - 2; d >= 0; d--) {
		for (int j = 0; j < nin; j++)
			off[j] += p->str[j][d];
		if (++idx[d] < p->dims[d])
			return;
		for (int j = 0; j < nin; j++)
			off[j] -= p->str[j][d] * p->dims[d];
		idx[d] = 0;
	}
}

/* Offsets of the inputs at outer row o (the rows in odometer order, as step walks them). */
static void row_offsets(const plan *p, int nin, int64_t o, int64_t *idx, int64_t *off)
{
	memset(off, 0, (size_t)nin * sizeof *off);
	for (int d = p->rank - 2; d >= 0; d--) {
		idx[d] = o % p->dims[d];
		o /= p->dims[d];
		for (int j = 0; j < nin; j++)
			off[j] += idx[d] * p->str[j][d];
	}
}

/* A share of the work for the pool: rows [r0, r0 + rows) whole, or one chunk of a row. */
typedef struct ew_job {
	const plan *p;
	ox_val *y;
	int nin;
	const ox_val *const *x;
	ox_ew_loop loop;
	const void *ctx;
	int64_t n, rows_per, chunk, nchunks;
} ew_job;

static void ew_rows(const ew_job *J, int64_t r0, int64_t r1, int64_t c0, int64_t len)
{
	const plan *p = J->p;
	int s[OX_EW_MAXIN];
	const void *ptr[OX_EW_MAXIN];
	int64_t off[OX_EW_MAXIN], idx[OX_MAX_RANK] = {0};
	for (int j = 0; j < J->nin; j++)
		s[j] = p->str[j][p->rank - 1] != 0;
	row_offsets(p, J->nin, r0, idx, off);
	size_t ys = ox_elem_size(J->y->type);
	char *yp = (char *)J->y->data + (size_t)(r0 * J->n + c0) * ys;
	for (int64_t o = r0; o < r1; o++, yp += (size_t)J->n * ys) {
		for (int j = 0; j < J->nin; j++)
			ptr[j] = (const char *)J->x[j]->data + (size_t)(off[j] + s[j] * c0) * ox_elem_size(J->x[j]->type);
		J->loop(yp, ptr, s, (size_t)len, J->ctx);
		step(p, J->nin, idx, off);
	}
}

static void ew_task(void *arg, int64_t t)
{
	const ew_job *J = arg;
	int64_t outer = J->y->count / J->n, r0 = t / J->nchunks * J->rows_per, c0 = t % J->nchunks * J->chunk;
	int64_t r1 = r0 + J->rows_per < outer ? r0 + J->rows_per : outer;
	ew_rows(J, r0, r1, c0, J->n - c0 < J->chunk ? J->n - c0 : J->chunk);
}

/* Elements per task when the pool has threads: tasks of about 64k elements; each element
 * is computed by the same loop wherever its task starts (the loops give an element the
 * same result in the vector body and in the tail), so threads do not change the bits. */
enum { EW_TASK = 1 << 16 };

void ox_ew_apply(ox_val *y, int nin, const ox_val *const *x, ox_ew_loop loop, const void *ctx)
{
	if (!y->count)
		return;
	plan p;
	make_plan(&p, y, nin, x);
	int64_t n = p.dims[p.rank - 1], outer = y->count / n;
	ew_job J = {&p, y, nin, x, loop, ctx, n, outer, n, 1};
	if (ox_threads() > 1 && y->count >= 4 * EW_TASK) {
		J.chunk = n > EW_TASK ? EW_TASK : n;
		J.nchunks = (n + J.chunk - 1) / J.chunk;
		J.rows_per = n > EW_TASK ? 1 : EW_TASK / n;
	}
	ox_parallel_for((outer + J.rows_per - 1) / J.rows_per * J.nchunks, ew_task, &J);
}

/* ---- element types ---------------------------------------------------------------- */

#define TB(t) (UINT32_C(1) << (t))
#define T_FLOATS (TB(OX_FLOAT16) | TB(OX_FLOAT) | TB(OX_DOUBLE) | TB(OX_BFLOAT16))
#define T_SINTS (TB(OX_INT8) | TB(OX_INT16) | TB(OX_INT32) | TB(OX_INT64))
#define T_UINTS (TB(OX_UINT8) | TB(OX_UINT16) | TB(OX_UINT32) | TB(OX_UINT64))
#define T_INTS (T_SINTS | T_UINTS)
#define T_NUM (T_FLOATS | T_INTS)
#define T_BOOL TB(OX_BOOL)
#define T_FLOAT8 (TB(OX_FLOAT8E4M3FN) | TB(OX_FLOAT8E4M3FNUZ) | TB(OX_FLOAT8E5M2) | TB(OX_FLOAT8E5M2FNUZ))

static bool type_in(int type, uint32_t mask)
{
	return type > 0 && type < OX_NTYPES && (mask & TB(type));
}

static int check_type(ox_k *k, int i, const ox_val *x, uint32_t mask)
{
	if (type_in(x->type, mask))
		return 0;
	char list[400];
	size_t len = 0;
	list[0] = '\0';
	for (int t = 1; t < OX_NTYPES && len < sizeof list; t++)
		if (mask & TB(t))
			len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", ox_elem_label(t));
	return ox_kfail(k, "input %d has element type %s; expected %s", i, ox_elem_label(x->type), list);
}

/* Input j (b) must have the element type of input i (a). */
static int same_types(ox_k *k, int i, int j, const ox_val *a, const ox_val *b)
{
	if (a->type == b->type)
		return 0;
	return ox_kfail(k, "input %d has element type %s, unlike input %d (%s)", j, ox_elem_label(b->type), i,
			ox_elem_label(a->type));
}

/* The type a kernel computes in: float32 for the narrow floats. */
static int compute_type(int type)
{
	return type == OX_FLOAT16 || type == OX_BFLOAT16 ? OX_FLOAT : type;
}

/* x converted to type; a new reference to x itself when it has that type already. */
static ox_val *as_type(ox_k *k, ox_val *x, int type)
{
	if (x->type == type)
		return ox_val_ref(x);
	const char *why;
	ox_val *t = ox_tensor_new(type, x->rank, x->dims, &why);
	if (!t) {
		ox_kfail(k, "%s", why);
		return NULL;
	}
	ox_cast_opts o = {true, OX_ROUND_UP};
	if (ox_ew_convert(t, x, &o, k->msg) < 0) {
		ox_val_unref(t);
		return NULL;
	}
	return t;
}

/* Output 0 (of type type) and the tensor to compute it in: the output itself, or a
 * temporary of type ctype that out_end() converts into it. */
static ox_val *out_begin(ox_k *k, int type, int ctype, int rank, const int64_t *dims)
{
	ox_val *y = ox_out_tensor(k, 0, type, rank, dims);
	if (!y || type == ctype)
		return y ? ox_val_ref(y) : NULL;
	const char *why;
	ox_val *t = ox_tensor_new(ctype, rank, dims, &why);
	if (!t)
		ox_kfail(k, "%s", why);
	return t;
}

static int out_end(ox_k *k, ox_val *t)
{
	int rc = 0;
	if (t != k->out[0]) {
		ox_cast_opts o = {true, OX_ROUND_UP};
		rc = ox_ew_convert(k->out[0], t, &o, k->msg);
	}
	ox_val_unref(t);
	return rc;
}

/* ---- unary operators -------------------------------------------------------------- */

typedef void (*f64_unary)(double *y, const double *x, size_t n, const double *p);
/* A loop over one integer (or bool) type, with parameters of that type in p. */
typedef void (*typed_unary)(void *y, const void *x, size_t n, const void *p);

/* A loop over float or double (TT): EXPR sees the element x and the parameters p. */
#define UNARY_LOOP(name, TT, EXPR)                                                      \
	static void name(TT *y, const TT *xs, size_t n, const TT *p)                    \
	{                                                                               \
		for (size_t i = 0; i < n; i++) {                                        \
			TT x = xs[i];                                                   \
			y[i] = (EXPR);                                                  \
		}                                                                       \
	}
#define UNARY_F64(name, EXPR) UNARY_LOOP(name##_f64, double, EXPR)
#define UNARY(name, FEXPR, DEXPR) UNARY_LOOP(name##_f32, float, FEXPR) UNARY_F64(name, DEXPR)

/* EXPR sees the element x, its type T, an unsigned type U of at least int's width for
 * arithmetic that wraps, and the parameters p. */
#define TYPED_UNARY(name, TT, UU, EXPR)                                                 \
	static void name(void *yv, const void *xv, size_t n, const void *p)             \
	{                                                                               \
		typedef TT T;                                                           \
		typedef UU U __attribute__((unused));                                   \
		T *y = yv;                                                              \
		const T *xs = xv;                                                       \
		for (size_t i = 0; i < n; i++) {                                        \
			T x = xs[i];                                                    \
			y[i] = (T)(EXPR);                                               \
		}                                                                       \
	}
#define INT_UNARY(name, EXPR)                                                           \
	TYPED_UNARY(name##_i8, int8_t, unsigned, EXPR)                                  \
	TYPED_UNARY(name##_i16, int16_t, unsigned, EXPR)                                \
	TYPED_UNARY(name##_i32, int32_t, uint32_t, EXPR)                                \
	TYPED_UNARY(name##_i64, int64_t, uint64_t, EXPR)                                \
	TYPED_UNARY(name##_u8, uint8_t, unsigned, EXPR)                                 \
	TYPED_UNARY(name##_u16, uint16_t, unsigned, EXPR)                               \
	TYPED_UNARY(name##_u32, uint32_t, uint32_t, EXPR)                               \
	TYPED_UNARY(name##_u64, uint64_t, uint64_t, EXPR)                               \
	static const typed_unary name##_ints[OX_NTYPES] = {                             \
		[OX_INT8] = name##_i8, [OX_INT16] = name##_i16, [OX_INT32] = name##_i32,  \
		[OX_INT64] = name##_i64, [OX_UINT8] = name##_u8, [OX_UINT16] = name##_u16, \
		[OX_UINT32] = name##_u32, [OX_UINT64] = name##_u64};

static inline float clamp01f(float v) { return v < 0 ? 0.0f : v > 1 ? 1.0f : v; }
static inline double clamp01(double v) { return v < 0 ? 0.0 : v > 1 ? 1.0 : v; }
static inline float softplusf(float x) { return x > 0 ? x + log1pf(expf(-x)) : log1pf(expf(x)); }
static inline double softplus(double x) { return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)); }

#define SQRT1_2 0.70710678118654752440
#define SQRT2_PI 0.79788456080286535588 /* sqrt(2 / pi) */

/* <math.h> functions that are operators as they stand: name##f for float, name for double */
#define LIBM(name) UNARY(name, name##f(x), name(x))
LIBM(acos) LIBM(acosh) LIBM(asin) LIBM(asinh) LIBM(atan) LIBM(atanh) LIBM(ceil) LIBM(cos) LIBM(cosh)
LIBM(erf) LIBM(floor) LIBM(log) LIBM(sin) LIBM(sinh) LIBM(tan)
UNARY(reciprocal, 1 / x, 1 / x)
UNARY(round, nearbyintf(x), nearbyint(x)) /* the default rounding mode: half to even */
UNARY(sign, x > 0 ? 1.0f : x < 0 ? -1.0f : x, x > 0 ? 1.0 : x < 0 ? -1.0 : x)
UNARY(elu, x < 0 ? p[0] * expm1f(x) : x, x < 0 ? p[0] * expm1(x) : x)
UNARY(selu, x > 0 ? p[1] * x : p[1] * (p[0] * expm1f(x)), x > 0 ? p[1] * x : p[1] * (p[0] * expm1(x)))
UNARY(celu, x > 0 ? x : p[0] * expm1f(x / p[0]), x > 0 ? x : p[0] * expm1(x / p[0]))
UNARY(swish, x / (1.0f + expf((float)(-p[0]) * x)), x / (1.0 + exp(-p[0] * x)))
UNARY(hard_sigmoid, clamp01f(p[0] * x + p[1]), clamp01(p[0] * x + p[1]))
UNARY(hard_swish, x * clamp01f(x * (1.0f / 6) + 0.5f), x * clamp01(x * (1.0 / 6) + 0.5))
UNARY(softplus, softplusf(x), softplus(x))
UNARY(softsign, x / (1 + fabsf(x)), x / (1 + fabs(x)))
UNARY(thresholded_relu, x > p[0] ? x : 0.0f, x > p[0] ? x : 0.0)
UNARY(mish, x * tanhf(softplusf(x)), x * tanh(softplus(x)))
UNARY(gelu, 0.5f * x * (1 + erff(x * (float)SQRT1_2)), 0.5 * x * (1 + erf(x * SQRT1_2)))
UNARY(gelu_tanh, 0.5f * x * (1 + tanhf((float)SQRT2_PI * (x + 0.044715f * x * x * x))),
      0.5 * x * (1 + tanh(SQRT2_PI * (x + 0.044715 * x * x * x))))
UNARY(shrink, x < -p[0] ? x + p[1] : x > p[0] ? x - p[1] : 0.0f, x < -p[0] ? x + p[1] : x > p[0] ? x - p[1] : 0.0)
/* float32 from elementwise_simd.c */
UNARY_F64(abs, fabs(x))
UNARY_F64(neg, -x)
UNARY_F64(relu, x < 0 ? 0.0 : x)
UNARY_F64(leaky_relu, x < 0 ? x * p[0] : x)
UNARY_F64(exp, exp(x))
UNARY_F64(sqrt, sqrt(x))
UNARY_F64(tanh, tanh(x))
UNARY_F64(sigmoid, x >= 0 ? 1 / (1 + exp(-x)) : exp(x) / (1 + exp(x)))
UNARY_F64(clip, (p[0] > x ? p[0] : x) > p[1] ? p[1] : (p[0] > x ? p[0] : x))

INT_UNARY(abs, x < 0 ? 0 - (U)x : (U)x)
INT_UNARY(neg, 0 - (U)x)
INT_UNARY(sign, x > 0 ? 1 : x < 0 ? -1 : 0)
INT_UNARY(relu, x < 0 ? 0 : x)
INT_UNARY(bitwise_not, ~(U)x)
#define LO (((const T *)p)[0])
#define HI (((const T *)p)[1])
INT_UNARY(clip, (x < LO ? LO : x) > HI ? HI : (x < LO ? LO : x))
#undef LO
#undef HI
TYPED_UNARY(not_bool, uint8_t, unsigned, !x)
static const typed_unary not_ints[OX_NTYPES] = {[OX_BOOL] = not_bool};

typedef struct unop {
	uint32_t types;
	ox_f32_unary f32; /* float, float16, bfloat16 */
	f64_unary f64;    /* double, and integers without a loop of their own */
	const typed_unary *ints;
} unop;

/* x's type's loop and the type it runs in */
static int unary_type(const unop *op, int type)
{
	if (type == OX_DOUBLE || type == OX_FLOAT)
		return type;
	if (ox_elem_is_float(type))
		return OX_FLOAT;
	return op->ints && op->ints[type] ? type : OX_DOUBLE;
}

/* Runs op over input 0 with parameters p (np of them) for floating loops, ip for the
 * integer ones. */
typedef struct unary_job {
	ox_f32_unary f;
	float *y;
	const float *x;
	size_t n;
	const float *p;
} unary_job;

static void unary_task(void *arg, int64_t t)
{
	const unary_job *J = arg;
	size_t at = (size_t)t * EW_TASK;
	J->f(J->y + at, J->x + at, J->n - at < EW_TASK ? J->n - at : EW_TASK, J->p);
}

/* A float32 unary loop over n elements, in tasks of EW_TASK when there are threads (an
 * element's result does not depend on where its task starts: see ox_ew_apply). */
static void f32_unary_run(ox_f32_unary f, float *y, const float *x, size_t n, const float *p)
{
	if (ox_threads() <= 1 || n < 4 * (size_t)EW_TASK) {
		f(y, x, n, p);
		return;
	}
	unary_job J = {f, y, x, n, p};
	ox_parallel_for((int64_t)((n + EW_TASK - 1) / EW_TASK), unary_task, &J);
}

static int unary(ox_k *k, const unop *op, const double *p, int np, const void *ip)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x || check_type(k, 0, x, op->types))
		return -1;
	int ct = unary_type(op, x->type);
	ox_val *cx = as_type(k, x, ct);
	ox_val *cy = cx ? out_begin(k, x->type, ct, x->rank, x->dims) : NULL;
	if (cy) {
		size_t n = (size_t)x->count;
		float pf[4] = {0};
		for (int i = 0; i < np && i < 4; i++)
			pf[i] = (float)p[i];
		if (ct == OX_FLOAT)
			f32_unary_run(op->f32, cy->data, cx->data, n, pf);
		else if (ct == OX_DOUBLE)
			op->f64(cy->data, cx->data, n, p);
		else
			op->ints[ct](cy->data, cx->data, n, ip);
	}
	ox_val_unref(cx);
	return cy ? out_end(k, cy) : -1;
}

#define UNARY_OP(Op, types, f32, f64, ints)                                             \
	int ox_op_##Op(ox_k *k)                                                         \
	{                                                                               \
		static const unop u = {types, f32, f64, ints};                          \
		return unary(k, &u, NULL, 0, NULL);                                     \
	}
#define MATH_OP(Op, name) UNARY_OP(Op, T_FLOATS, name##_f32, name##_f64, NULL)
#define SIMD_OP(Op, name, types, ints)                                                  \
	int ox_op_##Op(ox_k *k)                                                         \
	{                                                                               \
		unop u = {types, ox_f32_loops_best()->name, name##_f64, ints};         \
		return unary(k, &u, NULL, 0, NULL);                                     \
	}

MATH_OP(Acos, acos)
MATH_OP(Acosh, acosh)
MATH_OP(Asin, asin)
MATH_OP(Asinh, asinh)
MATH_OP(Atan, atan)
MATH_OP(Atanh, atanh)
MATH_OP(Ceil, ceil)
MATH_OP(Cos, cos)
MATH_OP(Cosh, cosh)
MATH_OP(Floor, floor)
MATH_OP(Log, log)
MATH_OP(Reciprocal, reciprocal)
MATH_OP(Round, round)
MATH_OP(Sin, sin)
MATH_OP(Sinh, sinh)
MATH_OP(Tan, tan)
MATH_OP(HardSwish, hard_swish)
MATH_OP(Softplus, softplus)
MATH_OP(Softsign, softsign)
MATH_OP(Mish, mish)
SIMD_OP(Abs, abs, T_NUM, abs_ints)
SIMD_OP(Neg, neg, T_FLOATS | T_SINTS, neg_ints)
SIMD_OP(Relu, relu, T_FLOATS | T_SINTS, relu_ints)
SIMD_OP(Exp, exp, T_FLOATS, NULL)
SIMD_OP(Sqrt, sqrt, T_FLOATS, NULL)
SIMD_OP(Tanh, tanh, T_FLOATS, NULL)
SIMD_OP(Sigmoid, sigmoid, T_FLOATS, NULL)

/* Erf allows integers (computed in double, then truncated), Sign integers of their own */
UNARY_OP(Erf, T_NUM, erf_f32, erf_f64, NULL)
UNARY_OP(Sign, T_NUM, sign_f32, sign_f64, sign_ints)
UNARY_OP(Not, T_BOOL, NULL, NULL, not_ints)
UNARY_OP(BitwiseNot, T_INTS, NULL, NULL, bitwise_not_ints)

/* Activations with float attributes, each with its default */
#define ATTR_OP(Op, name, types, ...)                                                   \
	int ox_op_##Op(ox_k *k)                                                         \
	{                                                                               \
		static const unop u = {types, name##_f32, name##_f64, NULL};           \
		double p[] = {__VA_ARGS__};                                             \
		return unary(k, &u, p, (int)(sizeof p / sizeof p[0]), NULL);            \
	}

ATTR_OP(Elu, elu, T_FLOATS, ox_attr_float(k, "alpha", 1.0f))
ATTR_OP(Selu, selu, T_FLOATS, ox_attr_float(k, "alpha", 1.67326319217681884765625f),
	ox_attr_float(k, "gamma", 1.05070102214813232421875f))
ATTR_OP(Celu, celu, T_FLOATS, ox_attr_float(k, "alpha", 1.0f))
ATTR_OP(Swish, swish, T_FLOATS, ox_attr_float(k, "alpha", 1.0f))
ATTR_OP(HardSigmoid, hard_sigmoid, T_FLOATS, ox_attr_float(k, "alpha", 0.2f), ox_attr_float(k, "beta", 0.5f))
ATTR_OP(ThresholdedRelu, thresholded_relu, T_FLOATS, ox_attr_float(k, "alpha", 1.0f))
/* Shrink allows integers: computed in double, the result converted back */
ATTR_OP(Shrink, shrink, T_NUM, ox_attr_float(k, "lambd", 0.5f), ox_attr_float(k, "bias", 0.0f))

int ox_op_LeakyRelu(ox_k *k)
{
	unop u = {T_FLOATS, ox_f32_loops_best()->leaky_relu, leaky_relu_f64, NULL};
	double alpha = ox_attr_float(k, "alpha", 0.01f);
	return unary(k, &u, &alpha, 1, NULL);
}

int ox_op_Gelu(ox_k *k)
{
	static const unop exact = {T_FLOATS, gelu_f32, gelu_f64, NULL};
	static const unop approx = {T_FLOATS, gelu_tanh_f32, gelu_tanh_f64, NULL};
	if (ox_attr_str_is(k, "approximate", "none", "tanh"))
		return unary(k, &approx, NULL, 0, NULL);
	if (!ox_attr_str_is(k, "approximate", "none", "none"))
		return ox_kfail(k, "attribute 'approximate' must be \"none\" or \"tanh\"");
	return unary(k, &exact, NULL, 0, NULL);
}

/* IsNaN and IsInf: bool outputs, float8 inputs allowed (opset 20) */
static int classify(ox_k *k, bool inf)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x || check_type(k, 0, x, T_FLOATS | T_FLOAT8))
		return -1;
	bool neg = ox_attr_int(k, "detect_negative", 1), pos = ox_attr_int(k, "detect_positive", 1);
	ox_val *cx = as_type(k, x, OX_DOUBLE);
	ox_val *y = cx ? ox_out_tensor(k, 0, OX_BOOL, x->rank, x->dims) : NULL;
	if (y) {
		const double *d = cx->data;
		uint8_t *b = y->data;
		for (int64_t i = 0; i < x->count; i++)
			b[i] = inf ? isinf(d[i]) && (d[i] > 0 ? pos : neg) : isnan(d[i]) != 0;
	}
	ox_val_unref(cx);
	return y ? 0 : -1;
}

OX_KERNEL(ox_op_IsNaN, classify(k, false))
OX_KERNEL(ox_op_IsInf, classify(k, true))

/* ---- binary loops ----------------------------------------------------------------- */

/* One run of TYPED_BINARY's loop, A and B read as AI and BI at each i. */
#define BINARY_RUN(TY, EXPR, AI, BI)                                                    \
	for (size_t i = 0; i < n; i++) {                                                \
		T A = (AI), B = (BI);                                                   \
		y[i] = (TY)(EXPR);                                                      \
	}

/* EXPR sees the elements A and B, their type T, an unsigned type U of at least int's
 * width for arithmetic that wraps; TY is the output element type. A scalar side is read
 * once, before its loop. */
#define TYPED_BINARY(name, TT, UU, TY, EXPR)                                            \
	static void name(void *yv, const void *const *x, const int *s, size_t n, const void *ctx) \
	{                                                                               \
		typedef TT T;                                                           \
		typedef UU U __attribute__((unused));                                   \
		TY *y = yv;                                                             \
		const T *a = x[0], *b = x[1];                                           \
		if (s[0] && s[1]) {                                                     \
			BINARY_RUN(TY, EXPR, a[i], b[i])                                \
		} else if (s[0]) {                                                      \
			T b0 = b[0];                                                    \
			BINARY_RUN(TY, EXPR, a[i], b0)                                  \
		} else if (s[1]) {                                                      \
			T a0 = a[0];                                                    \
			BINARY_RUN(TY, EXPR, a0, b[i])                                  \
		} else {                                                                \
			T A = a[0], B = b[0];                                           \
			TY v = (TY)(EXPR);                                              \
			for (size_t i = 0; i < n; i++)                                  \
				y[i] = v;                                               \
		}                                                                       \
	}
#define UINT_BINARY(name, TY, EXPR)                                                     \
	TYPED_BINARY(name##_u8, uint8_t, unsigned, TY, EXPR)                            \
	TYPED_BINARY(name##_u16, uint16_t, unsigned, TY, EXPR)                          \
	TYPED_BINARY(name##_u32, uint32_t, uint32_t, TY, EXPR)                          \
	TYPED_BINARY(name##_u64, uint64_t, uint64_t, TY, EXPR)
#define INT_BINARY(name, TY, EXPR)                                                      \
	TYPED_BINARY(name##_i8, int8_t, unsigned, TY, EXPR)                             \
	TYPED_BINARY(name##_i16, int16_t, unsigned, TY, EXPR)                           \
	TYPED_BINARY(name##_i32, int32_t, uint32_t, TY, EXPR)                           \
	TYPED_BINARY(name##_i64, int64_t, uint64_t, TY, EXPR)                           \
	UINT_BINARY(name, TY, EXPR)
#define FLOAT_BINARY(name, TY, EXPR)                                                    \
	TYPED_BINARY(name##_f32, float, float, TY, EXPR)                                \
	TYPED_BINARY(name##_f64, double, double, TY, EXPR)

#define UINT_TABLE(name)                                                                \
	[OX_UINT8] = name##_u8, [OX_UINT16] = name##_u16, [OX_UINT32] = name##_u32,    \
	[OX_UINT64] = name##_u64
#define INT_TABLE(name)                                                                 \
	[OX_INT8] = name##_i8, [OX_INT16] = name##_i16, [OX_INT32] = name##_i32,       \
	[OX_INT64] = name##_i64, UINT_TABLE(name)

/* (T)-1 < 0 tells signed types, whose division by -1 can overflow */
#define SIGNED(T) ((T)-1 < 0)

/* Integer division by zero has no value in C; it gives 0 here, as in numpy. */
INT_BINARY(add, T, (U)A + (U)B)
INT_BINARY(sub, T, (U)A - (U)B)
INT_BINARY(mul, T, (U)A * (U)B)
INT_BINARY(div, T, B == 0 ? 0 : SIGNED(T) && B == (T)-1 ? 0 - (U)A : (U)(A / B))
INT_BINARY(max, T, A > B ? A : B)
INT_BINARY(min, T, A < B ? A : B)
INT_BINARY(prelu, T, A < 0 ? (U)A * (U)B : (U)A)
INT_BINARY(bitwise_and, T, A & B)
INT_BINARY(bitwise_or, T, A | B)
INT_BINARY(bitwise_xor, T, A ^ B)
/* Mod with fmod = 0 takes the divisor's sign (Python's %), with fmod = 1 the dividend's */
INT_BINARY(mod, T, B == 0 || (SIGNED(T) && B == (T)-1) ? 0 : A % B != 0 && (A % B < 0) != (B < 0) ? A % B + B : A % B)
INT_BINARY(fmod, T, B == 0 || (SIGNED(T) && B == (T)-1) ? 0 : A % B)
UINT_BINARY(shift_left, T, B >= sizeof(T) * 8 ? 0 : (U)A << B)
UINT_BINARY(shift_right, T, B >= sizeof(T) * 8 ? 0 : A >> B)
INT_BINARY(equal, uint8_t, A == B)
INT_BINARY(less, uint8_t, A < B)
INT_BINARY(less_equal, uint8_t, A <= B)
FLOAT_BINARY(equal, uint8_t, A == B)
FLOAT_BINARY(less, uint8_t, A < B)
FLOAT_BINARY(less_equal, uint8_t, A <= B)

static double py_mod(double a, double b)
{
	double r = fmod(a, b);
	if (r != 0 && (r < 0) != (b < 0))
		r += b;
	return r != 0 ? r : copysign(0.0, b);
}

/* Integer powers by squaring, wrapping; a negative exponent truncates 1 / a^-b. */
static int64_t ipow(int64_t a, int64_t b)
{
	if (b < 0)
		return a == 1 ? 1 : a == -1 ? (b % 2 ? -1 : 1) : 0;
	uint64_t r = 1, base = (uint64_t)a;
	for (; b; b >>= 1, base *= base)
		if (b & 1)
			r *= base;
	return (int64_t)r;
}

FLOAT_BINARY(mod, T, py_mod(A, B))
FLOAT_BINARY(fmod, T, fmod(A, B))
FLOAT_BINARY(pow, T, pow(A, B))
TYPED_BINARY(pow_i64, int64_t, uint64_t, T, ipow(A, B))
/* float32 from elementwise_simd.c */
TYPED_BINARY(add_f64, double, double, T, A + B)
TYPED_BINARY(sub_f64, double, double, T, A - B)
TYPED_BINARY(mul_f64, double, double, T, A * B)
TYPED_BINARY(div_f64, double, double, T, A / B)
TYPED_BINARY(max_f64, double, double, T, A != A ? A : A > B ? A : B)
TYPED_BINARY(min_f64, double, double, T, A != A ? A : A < B ? A : B)
TYPED_BINARY(prelu_f64, double, double, T, A < 0 ? A * B : A)
TYPED_BINARY(and_bool, uint8_t, unsigned, T, (A != 0) & (B != 0))
TYPED_BINARY(or_bool, uint8_t, unsigned, T, (A != 0) | (B != 0))
TYPED_BINARY(xor_bool, uint8_t, unsigned, T, (A != 0) ^ (B != 0))

static void equal_str(void *yv, const void *const *x, const int *s, size_t n, const void *ctx)
{
	uint8_t *y = yv;
	const ox_str *a = x[0], *b = x[1];
	for (size_t i = 0; i < n; i++) {
		const ox_str *p = &a[i * (size_t)s[0]], *q = &b[i * (size_t)s[1]];
		y[i] = p->n == q->n && (p->n == 0 || memcmp(p->p, q->p, p->n) == 0);
	}
}

#define LOOPS(name, ...) static const ox_ew_loop name##_loops[OX_NTYPES] = {__VA_ARGS__}
LOOPS(add, INT_TABLE(add), [OX_DOUBLE] = add_f64);
LOOPS(sub, INT_TABLE(sub), [OX_DOUBLE] = sub_f64);
LOOPS(mul, INT_TABLE(mul), [OX_DOUBLE] = mul_f64);
LOOPS(div, INT_TABLE(div), [OX_DOUBLE] = div_f64);
LOOPS(max, INT_TABLE(max), [OX_DOUBLE] = max_f64);
LOOPS(min, INT_TABLE(min), [OX_DOUBLE] = min_f64);
LOOPS(prelu, INT_TABLE(prelu), [OX_DOUBLE] = prelu_f64);
LOOPS(mod, INT_TABLE(mod), [OX_FLOAT] = mod_f32, [OX_DOUBLE] = mod_f64);
LOOPS(fmod, INT_TABLE(fmod), [OX_FLOAT] = fmod_f32, [OX_DOUBLE] = fmod_f64);
LOOPS(pow, [OX_INT64] = pow_i64, [OX_FLOAT] = pow_f32, [OX_DOUBLE] = pow_f64);
LOOPS(bitwise_and, INT_TABLE(bitwise_and));
LOOPS(bitwise_or, INT_TABLE(bitwise_or));
LOOPS(bitwise_xor, INT_TABLE(bitwise_xor));
LOOPS(shift_left, UINT_TABLE(shift_left));
LOOPS(shift_right, UINT_TABLE(shift_right));
LOOPS(and, [OX_BOOL] = and_bool);
LOOPS(or, [OX_BOOL] = or_bool);
LOOPS(xor, [OX_BOOL] = xor_bool);
LOOPS(equal, INT_TABLE(equal), [OX_FLOAT] = equal_f32, [OX_DOUBLE] = equal_f64, [OX_BOOL] = equal_u8,
      [OX_STRING] = equal_str);
LOOPS(less, INT_TABLE(less), [OX_FLOAT] = less_f32, [OX_DOUBLE] = less_f64);
LOOPS(less_equal, INT_TABLE(less_equal), [OX_FLOAT] = less_equal_f32, [OX_DOUBLE] = less_equal_f64);

/* A float32 loop of elementwise_simd.c run by the engine */
typedef struct f32_binary_ctx {
	ox_f32_binary f;
	ox_f32_unary relu; /* the activation the session fused into the node, or NULL */
} f32_binary_ctx;

/* A piece of a row, then its activation while it is in the caches. */
static void f32_binary(void *y, const void *const *x, const int *s, size_t n, const void *ctx)
{
	const f32_binary_ctx *c = ctx;
	c->f(y, x[0], x[1], n, s[0], s[1]);
	if (c->relu)
		c->relu(y, y, n, NULL);
}

/* ---- binary operators ------------------------------------------------------------- */

typedef struct binop {
	uint32_t types;
	const ox_ew_loop *loops; /* by compute type */
	ox_f32_binary f32;       /* instead of loops[OX_FLOAT] when set */
	bool to_bool;            /* comparisons */
	bool swap;               /* b op a: Greater is Less swapped */
	bool legacy;             /* broadcast and axis attributes (versions before 7) */
	bool unidirectional;     /* PRelu: b broadcasts to a, never a to b */
} binop;

static const char *shape_text(const ox_val *t, char *buf, size_t size)
{
	size_t len = (size_t)snprintf(buf, size, "[");
	for (int i = 0; i < t->rank && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%lld", i ? ", " : "", (long long)t->dims[i]);
	if (len < size)
		snprintf(buf + len, size - len, "]");
	return buf;
}

static ox_val *view(ox_k *k, ox_val *t, int rank, const int64_t *dims)
{
	ox_val *v = ox_tensor_view(t, rank, dims);
	if (!v)
		ox_kfail(k, "out of memory");
	return v;
}

/* Before opset 7, B broadcasts to A only with broadcast = 1: as a single element, or
 * with its shape equal to A's dims from axis on (by default, A's last dims), where B's
 * dims of size 1 broadcast too (as the exporters of that time relied on). Returns B as a
 * view of A's rank, or NULL after failing. */
static ox_val *legacy_view(ox_k *k, const ox_val *a, ox_val *b)
{
	char sa[200], sb[200];
	int64_t dims[OX_MAX_RANK];
	bool same = a->rank == b->rank && memcmp(a->dims, b->dims, (size_t)a->rank * sizeof *dims) == 0;
	if (same || (ox_attr_int(k, "broadcast", 0) && b->count == 1))
		return view(k, b, same ? b->rank : 0, b->dims);
	if (!ox_attr_int(k, "broadcast", 0)) {
		ox_kfail(k, "shapes %s and %s differ, and before opset 7 that needs broadcast = 1",
			 shape_text(a, sa, sizeof sa), shape_text(b, sb, sizeof sb));
		return NULL;
	}
	int64_t axis = ox_attr_int(k, "axis", a->rank - b->rank);
	if (axis < 0)
		axis += a->rank;
	for (int i = 0; i < a->rank; i++)
		dims[i] = 1;
	bool ok = axis >= 0 && axis + b->rank <= a->rank;
	for (int i = 0; ok && i < b->rank; i++)
		ok = b->dims[i] == a->dims[axis + i] || b->dims[i] == 1;
	if (!ok) {
		ox_kfail(k, "shape %s does not match the dims of %s from axis %lld (legacy broadcasting)",
			 shape_text(b, sb, sizeof sb), shape_text(a, sa, sizeof sa), (long long)axis);
		return NULL;
	}
	memcpy(dims + axis, b->dims, (size_t)b->rank * sizeof *dims);
	return view(k, b, a->rank, dims);
}

/* Inputs 0 and 1 checked, B as legacy broadcasting sees it (a new reference) and the
 * output shape; 0 or -1. */
static int binary_inputs(ox_k *k, const binop *op, ox_val **a, ox_val **b, int *rank, int64_t *dims)
{
	*a = ox_in_tensor(k, 0, true);
	ox_val *b0 = *a ? ox_in_tensor(k, 1, true) : NULL;
	*b = NULL;
	if (!b0 || check_type(k, 0, *a, op->types) || same_types(k, 0, 1, *a, b0))
		return -1;
	*b = op->legacy ? legacy_view(k, *a, b0) : ox_val_ref(b0);
	if (!*b)
		return -1;
	if (ox_broadcast_shape(k, (*a)->rank, (*a)->dims, (*b)->rank, (*b)->dims, rank, dims))
		return -1;
	if (op->unidirectional && (*rank != (*a)->rank || memcmp(dims, (*a)->dims, (size_t)*rank * sizeof *dims))) {
		char sa[200], sb[200];
		return ox_kfail(k, "slope of shape %s does not broadcast to X's shape %s", shape_text(*b, sb, sizeof sb),
				shape_text(*a, sa, sizeof sa));
	}
	return 0;
}

/* y = a op b in the compute type, both already converted; act (k->act) applies on the
 * float32 path, which the session's fusion asks for only (exec.c: ew_fusion_holds). */
static void binary_run(const binop *op, ox_val *y, ox_val *a, ox_val *b, int act)
{
	const ox_val *x[2] = {op->swap ? b : a, op->swap ? a : b};
	f32_binary_ctx c = {op->f32, act == OX_ACT_RELU ? ox_f32_loops_best()->relu : NULL};
	if (a->type == OX_FLOAT && op->f32)
		ox_ew_apply(y, 2, x, f32_binary, &c);
	else
		ox_ew_apply(y, 2, x, op->loops[a->type], NULL);
}

static int binary(ox_k *k, const binop *op)
{
	ox_val *a, *b;
	int rank;
	int64_t dims[OX_MAX_RANK];
	if (binary_inputs(k, op, &a, &b, &rank, dims)) {
		ox_val_unref(b);
		return -1;
	}
	int ct = compute_type(a->type);
	ox_val *ca = as_type(k, a, ct), *cb = ca ? as_type(k, b, ct) : NULL;
	ox_val *y = cb ? out_begin(k, op->to_bool ? OX_BOOL : a->type, op->to_bool ? OX_BOOL : ct, rank, dims) : NULL;
	if (y)
		binary_run(op, y, ca, cb, k->act);
	ox_val_unref(ca);
	ox_val_unref(cb);
	ox_val_unref(b);
	return y ? out_end(k, y) : -1;
}

#define BINARY_OP(Op, TYPES, name, ...)                                                 \
	int ox_op_##Op(ox_k *k)                                                         \
	{                                                                               \
		binop op = {.types = TYPES, .loops = name##_loops, __VA_ARGS__};                          \
		return binary(k, &op);                                                  \
	}
/* An operator with the broadcast and axis attributes before version 7: kernel Op_1
 * broadcasts the legacy way, Op_7 the numpy way. */
#define LEGACY_BINARY_OP(Op, TYPES, name, ...)                         \
	BINARY_OP(Op##_1, TYPES, name, .legacy = true, __VA_ARGS__) \
	BINARY_OP(Op##_7, TYPES, name, __VA_ARGS__)

LEGACY_BINARY_OP(Add, T_NUM, add, .f32 = ox_f32_loops_best()->add)
LEGACY_BINARY_OP(Sub, T_NUM, sub, .f32 = ox_f32_loops_best()->sub)
LEGACY_BINARY_OP(Mul, T_NUM, mul, .f32 = ox_f32_loops_best()->mul)
LEGACY_BINARY_OP(Div, T_NUM, div, .f32 = ox_f32_loops_best()->div)

/* PRelu: the slope broadcasts to X. Before version 7 (per_channel), a slope of X's channel
 * count (dim 1) applies per channel, as Caffe2's did. */
static int prelu(ox_k *k, bool per_channel)
{
	binop op = {.types = T_FLOATS | TB(OX_INT32) | TB(OX_INT64) | TB(OX_UINT32) | TB(OX_UINT64),
		    .loops = prelu_loops, .f32 = ox_f32_loops_best()->prelu, .unidirectional = true};
	ox_val *x = ox_in_tensor(k, 0, true), *s = x ? ox_in_tensor(k, 1, true) : NULL;
	if (!s)
		return -1;
	if (!per_channel || s->rank != 1 || x->rank < 2 || s->dims[0] != x->dims[1] || s->count == 1)
		return binary(k, &op);
	int64_t dims[OX_MAX_RANK];
	for (int i = 0; i < x->rank - 1; i++)
		dims[i] = i ? 1 : s->dims[0];
	ox_val *v = view(k, s, x->rank - 1, dims);
	if (!v)
		return -1;
	ox_val *in[2] = {x, v};
	ox_k channel = *k;
	channel.in = in;
	channel.nin = 2;
	int rc = binary(&channel, &op);
	ox_val_unref(v);
	return rc;
}

OX_KERNEL(ox_op_PRelu_1, prelu(k, true))
OX_KERNEL(ox_op_PRelu_7, prelu(k, false))
BINARY_OP(BitwiseAnd, T_INTS, bitwise_and, .f32 = NULL)
BINARY_OP(BitwiseOr, T_INTS, bitwise_or, .f32 = NULL)
BINARY_OP(BitwiseXor, T_INTS, bitwise_xor, .f32 = NULL)
LEGACY_BINARY_OP(And, T_BOOL, and, .f32 = NULL)
LEGACY_BINARY_OP(Or, T_BOOL, or, .f32 = NULL)
LEGACY_BINARY_OP(Xor, T_BOOL, xor, .f32 = NULL)
LEGACY_BINARY_OP(Equal, T_NUM | T_BOOL | TB(OX_STRING), equal, .to_bool = true)
LEGACY_BINARY_OP(Less, T_NUM, less, .to_bool = true)
BINARY_OP(LessOrEqual, T_NUM, less_equal, .to_bool = true)
LEGACY_BINARY_OP(Greater, T_NUM, less, .to_bool = true, .swap = true)
BINARY_OP(GreaterOrEqual, T_NUM, less_equal, .to_bool = true, .swap = true)

int ox_op_Mod(ox_k *k)
{
	binop op = {.types = T_NUM, .loops = mod_loops};
	if (ox_attr_int(k, "fmod", 0))
		op.loops = fmod_loops;
	return binary(k, &op);
}

int ox_op_BitShift(ox_k *k)
{
	binop op = {.types = T_UINTS, .loops = shift_left_loops};
	if (ox_attr_str_is(k, "direction", "", "RIGHT"))
		op.loops = shift_right_loops;
	else if (!ox_attr_str_is(k, "direction", "", "LEFT"))
		return ox_kfail(k, "attribute 'direction' must be \"LEFT\" or \"RIGHT\"");
	return binary(k, &op);
}

/* Pow: the exponent may have another type than the base (opset 12). Floating bases
 * compute in their own type (float32 for the narrow ones) with the exponent converted;
 * integer bases in int64 by squaring, or in double for a floating exponent, the result
 * converted back to the base's type. Legacy broadcasting before version 7. */
static int power(ox_k *k, bool legacy)
{
	binop op = {.types = TB(OX_INT32) | TB(OX_INT64) | T_FLOATS, .loops = pow_loops, .legacy = legacy};
	ox_val *a = ox_in_tensor(k, 0, true), *b = a ? ox_in_tensor(k, 1, true) : NULL;
	if (!b || check_type(k, 0, a, op.types) || check_type(k, 1, b, T_NUM))
		return -1;
	int ct = ox_elem_is_int(a->type) ? (ox_elem_is_int(b->type) ? OX_INT64 : OX_DOUBLE) : compute_type(a->type);
	int rank;
	int64_t dims[OX_MAX_RANK];
	ox_val *ca = as_type(k, a, ct), *cb = ca ? as_type(k, b, ct) : NULL, *bv = NULL, *y = NULL;
	if (cb && legacy)
		bv = legacy_view(k, ca, cb);
	else if (cb)
		bv = ox_val_ref(cb);
	if (bv && !ox_broadcast_shape(k, a->rank, a->dims, bv->rank, bv->dims, &rank, dims))
		y = out_begin(k, a->type, ct, rank, dims);
	if (y)
		binary_run(&op, y, ca, bv, OX_ACT_NONE);
	ox_val_unref(ca);
	ox_val_unref(cb);
	ox_val_unref(bv);
	return y ? out_end(k, y) : -1;
}

OX_KERNEL(ox_op_Pow_1, power(k, true))
OX_KERNEL(ox_op_Pow_7, power(k, false))

/* ---- variadic operators ----------------------------------------------------------- */

/* The broadcast shape of all inputs, which must be tensors of one allowed type */
static int variadic_shape(ox_k *k, const binop *op, int *rank, int64_t *dims)
{
	ox_val *x0 = ox_in_tensor(k, 0, true);
	if (!x0 || check_type(k, 0, x0, op->types))
		return -1;
	*rank = x0->rank;
	memcpy(dims, x0->dims, (size_t)x0->rank * sizeof *dims);
	for (int i = 1; i < k->nin; i++) {
		ox_val *xi = ox_in_tensor(k, i, true);
		int64_t prev[OX_MAX_RANK];
		memcpy(prev, dims, (size_t)*rank * sizeof *dims);
		if (!xi || same_types(k, 0, i, x0, xi) || ox_broadcast_shape(k, *rank, prev, xi->rank, xi->dims, rank, dims))
			return -1;
	}
	return 0;
}

/* y /= n, for Mean */
static void divide(ox_val *y, int n)
{
	if (y->type == OX_FLOAT) {
		float d = (float)n;
		ox_f32_loops_best()->div(y->data, y->data, &d, (size_t)y->count, 1, 0);
	} else {
		for (int64_t i = 0; i < y->count; i++)
			((double *)y->data)[i] /= n;
	}
}

/* Folds the inputs left to right into the output: y = x0 op x1, then y = y op xi. */
static int variadic(ox_k *k, const binop *op, bool mean)
{
	int rank;
	int64_t dims[OX_MAX_RANK];
	if (k->nin < 1)
		return ox_kfail(k, "at least one input is required");
	if (variadic_shape(k, op, &rank, dims))
		return -1;
	ox_val *x0 = k->in[0];
	if (k->nin == 1) {
		ox_out_set(k, 0, ox_val_ref(x0));
		return 0;
	}
	int ct = compute_type(x0->type);
	ox_val *y = out_begin(k, x0->type, ct, rank, dims);
	ox_val *acc = y ? as_type(k, x0, ct) : NULL;
	int rc = acc ? 0 : -1;
	for (int i = 1; rc == 0 && i < k->nin; i++) {
		ox_val *ci = as_type(k, k->in[i], ct);
		if (ci)
			binary_run(op, y, i == 1 ? acc : y, ci, i == k->nin - 1 ? k->act : OX_ACT_NONE);
		else
			rc = -1;
		ox_val_unref(ci);
	}
	if (rc == 0 && mean)
		divide(y, k->nin);
	ox_val_unref(acc);
	if (rc) {
		ox_val_unref(y);
		return -1;
	}
	return out_end(k, y);
}

/* Sum, Mean, Max and Min fold their inputs with one binary loop; Mean divides at the end. */
#define VARIADIC_OP(name, T, loop, mean)                                                     \
	int ox_op_##name(ox_k *k)                                                            \
	{                                                                                    \
		binop op = {.types = T, .loops = loop##_loops, .f32 = ox_f32_loops_best()->loop}; \
		return variadic(k, &op, mean);                                               \
	}
VARIADIC_OP(Sum, T_FLOATS, add, false)
VARIADIC_OP(Mean, T_FLOATS, add, true)
VARIADIC_OP(Max, T_NUM, max, false)
VARIADIC_OP(Min, T_NUM, min, false)

/* ---- Where ------------------------------------------------------------------------ */

typedef struct u128 {
	uint64_t w[2];
} u128;

#define WHERE(name, T)                                                                  \
	static void name(void *yv, const void *const *x, const int *s, size_t n, const void *ctx) \
	{                                                                               \
		T *y = yv;                                                              \
		const uint8_t *c = x[0];                                                \
		const T *a = x[1], *b = x[2];                                           \
		for (size_t i = 0; i < n; i++)                                          \
			y[i] = c[i * (size_t)s[0]] ? a[i * (size_t)s[1]] : b[i * (size_t)s[2]]; \
	}
WHERE(where1, uint8_t)
WHERE(where2, uint16_t)
WHERE(where4, uint32_t)
WHERE(where8, uint64_t)
WHERE(where16, u128)

typedef struct where_ctx {
	bool *oom;
} where_ctx;

static void where_str(void *yv, const void *const *x, const int *s, size_t n, const void *ctx)
{
	ox_str *y = yv;
	const uint8_t *c = x[0];
	const ox_str *a = x[1], *b = x[2];
	for (size_t i = 0; i < n; i++) {
		const ox_str *v = c[i * (size_t)s[0]] ? &a[i * (size_t)s[1]] : &b[i * (size_t)s[2]];
		if (!ox_str_set(&y[i], v->p, v->n))
			*((const where_ctx *)ctx)->oom = true;
	}
}

static ox_ew_loop where_loop(int type)
{
	switch (type == OX_STRING ? 0 : ox_elem_size(type)) {
	case 1: return where1;
	case 2: return where2;
	case 4: return where4;
	case 8: return where8;
	case 16: return where16;
	default: return where_str;
	}
}

int ox_op_Where(ox_k *k)
{
	ox_val *c = ox_in_tensor(k, 0, true), *a = c ? ox_in_tensor(k, 1, true) : NULL;
	ox_val *b = a ? ox_in_tensor(k, 2, true) : NULL;
	int r1, rank;
	int64_t d1[OX_MAX_RANK], dims[OX_MAX_RANK];
	if (!b || same_types(k, 1, 2, a, b))
		return -1;
	if (c->type != OX_BOOL)
		return ox_kfail(k, "input 0 (condition) has element type %s; expected bool", ox_elem_label(c->type));
	if (ox_broadcast_shape(k, c->rank, c->dims, a->rank, a->dims, &r1, d1) ||
	    ox_broadcast_shape(k, r1, d1, b->rank, b->dims, &rank, dims))
		return -1;
	ox_val *y = ox_out_tensor(k, 0, a->type, rank, dims);
	if (!y)
		return -1;
	bool oom = false;
	where_ctx ctx = {&oom};
	const ox_val *x[3] = {c, a, b};
	ox_ew_apply(y, 3, x, where_loop(a->type), &ctx);
	return oom ? ox_kfail(k, "out of memory") : 0;
}

/* ---- Clip ------------------------------------------------------------------------- */

/* The smallest and largest values of an integer type, as two elements of it */
static void int_range(int type, void *lim)
{
	switch (type) {
	case OX_INT8: memcpy(lim, (int8_t[]){INT8_MIN, INT8_MAX}, 2); break;
	case OX_INT16: memcpy(lim, (int16_t[]){INT16_MIN, INT16_MAX}, 4); break;
	case OX_INT32: memcpy(lim, (int32_t[]){INT32_MIN, INT32_MAX}, 8); break;
	case OX_INT64: memcpy(lim, (int64_t[]){INT64_MIN, INT64_MAX}, 16); break;
	case OX_UINT8: memcpy(lim, (uint8_t[]){0, UINT8_MAX}, 2); break;
	case OX_UINT16: memcpy(lim, (uint16_t[]){0, UINT16_MAX}, 4); break;
	case OX_UINT32: memcpy(lim, (uint32_t[]){0, UINT32_MAX}, 8); break;
	case OX_UINT64: memcpy(lim, (uint64_t[]){0, UINT64_MAX}, 16); break;
	default: break;
	}
}

/* Before version 11 the bounds are attributes (defaults: float's range); from 11 optional
 * scalar inputs of X's type (defaults: no bound); integer types from version 12. */
static int clip(ox_k *k, bool inputs, uint32_t types)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x || check_type(k, 0, x, types))
		return -1;
	unop u = {T_NUM, ox_f32_loops_best()->clip, clip_f64, clip_ints};
	double p[2] = {-INFINITY, INFINITY};
	uint64_t lim[2];
	if (!inputs) {
		p[0] = ox_attr_float(k, "min", -FLT_MAX);
		p[1] = ox_attr_float(k, "max", FLT_MAX);
		return unary(k, &u, p, 2, NULL);
	}
	int_range(x->type, lim);
	for (int i = 1; i <= 2; i++) {
		ox_val *b = ox_in_tensor(k, i, false);
		if (!b && ox_in(k, i))
			return -1;
		if (!b)
			continue;
		if (same_types(k, 0, i, x, b))
			return -1;
		if (b->count != 1)
			return ox_kfail(k, "input %d (%s) must be a scalar, not of %lld elements", i, i == 1 ? "min" : "max",
					(long long)b->count);
		p[i - 1] = ox_get_f64(b, 0);
		memcpy((char *)lim + (size_t)(i - 1) * ox_elem_size(x->type), b->data, ox_elem_size(x->type));
	}
	return unary(k, &u, p, 2, lim);
}

OX_KERNEL(ox_op_Clip_1, clip(k, false, T_FLOATS))
OX_KERNEL(ox_op_Clip_11, clip(k, true, T_FLOATS))
OX_KERNEL(ox_op_Clip_12, clip(k, true, T_NUM))
