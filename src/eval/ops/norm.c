/* Normalization and softmax: BatchNormalization, InstanceNormalization, GroupNormalization,
 * LayerNormalization, RMSNormalization, MeanVarianceNormalization, LpNormalization, LRN,
 * Softmax, LogSoftmax, Hardmax and Dropout. float32 BatchNormalization (inference), Softmax
 * and LogSoftmax use the vector kernels of nn.h; the rest computes in double. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "elementwise.h"
#include "nn.h"
#include "eval/threads.h"

/* The product of d[from..to), saturated: an empty tensor may have huge other dims. */
static int64_t prod(const int64_t *d, int from, int to)
{
	int64_t p = 1;
	for (int i = from; i < to; i++)
		p = d[i] && p > INT64_MAX / d[i] ? INT64_MAX : p * d[i];
	return p;
}

/* Input i, required, as doubles after checking it is a float tensor of count elements. */
static double *load_param(ox_k *k, int i, int64_t count, const char *what)
{
	ox_val *p = ox_in_tensor(k, i, true);
	if (!p || ox_need_real(k, p, what))
		return NULL;
	if (p->count != count) {
		ox_kfail(k, "%s has %lld elements; %lld expected", what, (long long)p->count, (long long)count);
		return NULL;
	}
	return ox_load_f64(k, p, "input");
}

/* Input i broadcast (numpy rules, towards the front) to the shape dims[0..n) as a full
 * array of doubles; NULL after failing. */
static double *expand_param(ox_k *k, int i, int n, const int64_t *dims, const char *what)
{
	ox_val *p = ox_in_tensor(k, i, true);
	if (!p || ox_need_real(k, p, what))
		return NULL;
	bool ok = p->rank <= n;
	for (int j = 0; ok && j < p->rank; j++) {
		int64_t d = p->dims[p->rank - 1 - j];
		ok = d == 1 || d == dims[n - 1 - j];
	}
	if (!ok) {
		ox_kfail(k, "%s cannot be broadcast to the shape of X", what);
		return NULL;
	}
	int64_t st[OX_MAX_RANK], pos[OX_MAX_RANK] = {0}, total = prod(dims, 0, n), off = 0;
	ox_broadcast_strides(p->rank, p->dims, n, dims, st);
	double *src = ox_load_f64(k, p, "input"), *d = src ? ox_scratch(k, total, sizeof(double), "scratch") : NULL;
	for (int64_t j = 0; d && j < total; j++) {
		d[j] = src[off];
		for (int a = n - 1; a >= 0; a--) { /* odometer over dims, off following */
			off += st[a];
			if (++pos[a] < dims[a])
				break;
			off -= st[a] * dims[a];
			pos[a] = 0;
		}
	}
	free(src);
	return d;
}

/* Mean and population variance of n values at stride 1. */
static void moments(const double *x, int64_t n, double *mean, double *var)
{
	double s = 0, v = 0;
	for (int64_t i = 0; i < n; i++)
		s += x[i];
	double m = s / (double)n;
	for (int64_t i = 0; i < n; i++)
		v += (x[i] - m) * (x[i] - m);
	*mean = m;
	*var = v / (double)n;
}

/* Output 0 shaped like x, and x as doubles with a buffer for the result. */
static int begin(ox_k *k, const ox_val *x, ox_val **y, double **xd, double **yd)
{
	*xd = *yd = NULL;
	if (!(*y = ox_out_tensor(k, 0, x->type, x->rank, x->dims)) || !(*xd = ox_load_f64(k, x, "input")) ||
	    !(*yd = ox_scratch(k, x->count, sizeof(double), "scratch")))
		return -1;
	return 0;
}

/* Stores yd into y unless rc failed, and frees the buffers. */
static int finish(int rc, ox_val *y, double *xd, double *yd)
{
	if (rc == 0)
		ox_store_f64(y, yd);
	free(xd);
	free(yd);
	return rc;
}

/* ---- BatchNormalization ------------------------------------------------------------------ */

typedef struct bn {
	int64_t n, f, inner; /* x as n x f x inner; the parameters hold f values */
	double eps, momentum;
	double *p[4];         /* scale, B, mean, var */
} bn;

/* Planes of bn_fast for the pool's threads, in groups of about 64k elements. */
typedef struct bn_job {
	const bn *b;
	const float *a, *c, *x;
	float *y;
	const ox_nn_vec *v;
	const ox_f32_loops *act;
	int64_t per; /* planes (image, feature) a task */
} bn_job;

static void bn_planes(void *ctx, int64_t t)
{
	const bn_job *J = ctx;
	const bn *b = J->b;
	for (int64_t pl = t * J->per; pl < b->n * b->f && pl < (t + 1) * J->per; pl++) {
		int64_t f = pl % b->f, at = pl * b->inner;
		J->v->affine(J->y + at, J->x + at, J->a[f], J->c[f], b->inner);
		if (J->act)
			J->act->relu(J->y + at, J->y + at, (size_t)b->inner, NULL);
	}
}

/* Inference on float32 through the vector kernels: y = x * a + b per feature, then the
 * activation the session fused into the node (k->act), each plane while in the caches;
 * planes spread over the session's threads (each computed the same way wherever). */
static int bn_fast(ox_k *k, const bn *b, const ox_val *x, ox_val *y)
{
	const ox_f32_loops *act = k->act == OX_ACT_RELU ? ox_f32_loops_best() : NULL;
	float *a = malloc((size_t)(2 * b->f + 1) * sizeof *a);
	if (!a)
		return ox_kfail(k, "out of memory");
	float *c = a + b->f;
	for (int64_t f = 0; f < b->f; f++) {
		double s = b->p[0][f] / sqrt(b->p[3][f] + b->eps);
		a[f] = (float)s;
		c[f] = (float)(b->p[1][f] - b->p[2][f] * s);
	}
	const ox_nn_vec *v = ox_nn_vec_get();
	const float *xf = x->data;
	float *yf = y->data;
	for (int64_t i = 0; b->inner == 1 && i < b->n; i++) {
		v->affine_v(yf + i * b->f, xf + i * b->f, a, c, b->f);
		if (act)
			act->relu(yf + i * b->f, yf + i * b->f, (size_t)b->f, NULL);
	}
	if (b->inner > 1) {
		int64_t planes = b->n * b->f, per = ox_threads() > 1 ? (INT64_C(1) << 14) / b->inner + 1 : planes;
		bn_job J = {b, a, c, xf, yf, v, act, per};
		ox_parallel_for((planes + per - 1) / per, bn_planes, &J);
	}
	free(a);
	return 0;
}

/* y with the statistics given per feature. */
static void bn_apply(const bn *b, const double *x, const double *mean, const double *var, double *y)
{
	for (int64_t i = 0; i < b->n; i++)
		for (int64_t f = 0; f < b->f; f++) {
			double s = b->p[0][f] / sqrt(var[f] + b->eps), m = mean[f], bias = b->p[1][f];
			int64_t at = (i * b->f + f) * b->inner;
			for (int64_t j = 0; j < b->inner; j++)
				y[at + j] = (x[at + j] - m) * s + bias;
		}
}

/* Output i of training mode: a tensor like the mean input holding v. */
static int bn_stat_out(ox_k *k, int i, const double *v)
{
	if (!ox_out_wanted(k, i))
		return 0;
	ox_val *m = ox_in(k, 3), *o = ox_out_tensor(k, i, m->type, m->rank, m->dims);
	if (o)
		ox_store_f64(o, v);
	return o ? 0 : -1;
}

/* BatchNormalization's versions by how training is asked for: is_test = 0 at 1 and 6;
 * asking for the extra outputs from 7 to 13; the training_mode attribute since 14. */
enum { BN_IS_TEST, BN_OUTPUTS, BN_MODE };

/* Training: the batch's statistics normalize x; the running ones are updated with them.
 * Version 14 on outputs running mean and var; before, also the batch's (saved) ones. */
static int bn_train(ox_k *k, int ver, const bn *b, const double *x, double *y)
{
	double *st = ox_scratch(k, 4 * b->f, sizeof(double), "scratch");
	if (!st)
		return -1;
	double *cm = st, *cv = st + b->f, *rm = st + 2 * b->f, *rv = st + 3 * b->f;
	double cnt = (double)(b->n * b->inner);
	for (int64_t f = 0; f < b->f; f++) {
		double s = 0, q = 0;
		for (int64_t i = 0; i < b->n; i++)
			for (int64_t j = 0; j < b->inner; j++)
				s += x[(i * b->f + f) * b->inner + j];
		cm[f] = s / cnt;
		for (int64_t i = 0; i < b->n; i++)
			for (int64_t j = 0; j < b->inner; j++) {
				double d = x[(i * b->f + f) * b->inner + j] - cm[f];
				q += d * d;
			}
		cv[f] = q / cnt;
		rm[f] = b->p[2][f] * b->momentum + cm[f] * (1 - b->momentum);
		rv[f] = b->p[3][f] * b->momentum + cv[f] * (1 - b->momentum);
	}
	bn_apply(b, x, cm, cv, y);
	int rc = bn_stat_out(k, 1, rm) || bn_stat_out(k, 2, rv) ||
		 (ver != BN_MODE && (bn_stat_out(k, 3, cm) || bn_stat_out(k, 4, cv))) ? -1 : 0;
	free(st);
	return rc;
}

static bool bn_training(ox_k *k, int ver)
{
	if (ver == BN_IS_TEST)
		return ox_attr_int(k, "is_test", 0) == 0;
	if (ver == BN_MODE)
		return ox_attr_int(k, "training_mode", 0) != 0;
	for (int i = 1; i < 5; i++)
		if (ox_out_wanted(k, i))
			return true;
	return false;
}

static int bn_setup(ox_k *k, const ox_val *x, bn *b)
{
	if (ox_need_real(k, x, "input X"))
		return -1;
	if (x->rank < 2)
		return ox_kfail(k, "input X must have rank 2 or more (N x C x D1 ...), not %d", x->rank);
	/* spatial is gone from version 9 (the session refuses it): 1 then */
	bool spatial = ox_attr_int(k, "spatial", 1) != 0;
	b->n = x->count ? x->dims[0] : 0; /* so that no loop runs over the dims of an empty X */
	b->inner = spatial ? prod(x->dims, 2, x->rank) : 1;
	b->f = spatial ? x->dims[1] : prod(x->dims, 1, x->rank);
	b->eps = ox_attr_float(k, "epsilon", 1e-5f);
	b->momentum = ox_attr_float(k, "momentum", 0.9f);
	static const char *const names[4] = {"input scale", "input B", "input mean", "input var"};
	for (int i = 0; i < 4; i++)
		if (!(b->p[i] = load_param(k, i + 1, b->f, names[i])))
			return -1;
	return 0;
}

static int batch_norm(ox_k *k, int ver)
{
	ox_val *x = ox_in_tensor(k, 0, true), *y = NULL;
	bn b = {0};
	double *xd = NULL, *yd = NULL;
	bool train = bn_training(k, ver);
	int rc = !x || bn_setup(k, x, &b) ? -1 : 0;
	if (rc == 0 && !train && ver == BN_MODE && (ox_out_wanted(k, 1) || ox_out_wanted(k, 2)))
		rc = ox_kfail(k, "outputs running_mean and running_var are only produced when training_mode is 1");
	if (rc == 0 && !train && x->type == OX_FLOAT) {
		rc = (y = ox_out_tensor(k, 0, x->type, x->rank, x->dims)) ? bn_fast(k, &b, x, y) : -1;
	} else if (rc == 0) {
		rc = begin(k, x, &y, &xd, &yd);
		if (rc == 0 && train)
			rc = bn_train(k, ver, &b, xd, yd);
		else if (rc == 0)
			bn_apply(&b, xd, b.p[2], b.p[3], yd);
		rc = finish(rc, y, xd, yd);
	}
	for (int i = 0; i < 4; i++)
		free(b.p[i]);
	return rc;
}

OX_KERNEL(ox_op_BatchNormalization_1, batch_norm(k, BN_IS_TEST))
OX_KERNEL(ox_op_BatchNormalization_7, batch_norm(k, BN_OUTPUTS))
OX_KERNEL(ox_op_BatchNormalization_14, batch_norm(k, BN_MODE))

/* ---- per-instance and per-group normalization ---------------------------------------------- */

/* Normalizes rows of n values: row r of x with its own mean and variance, then
 * y = norm * scale[c] + bias[c] where c = (r * n + j) / cdiv % cmod picks the parameter. */
typedef struct rows {
	int64_t nrows, n, cdiv, cmod;
	double eps;
	const double *scale, *bias;
	double *mean, *inv; /* optional per-row outputs */
} rows;

static void normalize_rows(const rows *r, const double *x, double *y)
{
	if (!r->n && !r->mean && !r->inv)
		return; /* nothing to write, however many rows */
	for (int64_t i = 0; i < r->nrows; i++) {
		const double *xr = x + i * r->n;
		double m, v;
		moments(xr, r->n, &m, &v);
		double inv = 1 / sqrt(v + r->eps);
		int64_t rem = i * r->n % r->cdiv, c = i * r->n / r->cdiv % r->cmod; /* followed along the row */
		for (int64_t j = 0; j < r->n; j++) {
			y[i * r->n + j] = (xr[j] - m) * inv * r->scale[c] + (r->bias ? r->bias[c] : 0);
			if (++rem == r->cdiv) {
				rem = 0;
				c = c + 1 == r->cmod ? 0 : c + 1;
			}
		}
		if (r->mean)
			r->mean[i] = m;
		if (r->inv)
			r->inv[i] = inv;
	}
}

int ox_op_InstanceNormalization(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true), *y = NULL;
	if (!x || ox_need_real(k, x, "input"))
		return -1;
	if (x->rank < 2)
		return ox_kfail(k, "input must have rank 2 or more (N x C x D1 ...), not %d", x->rank);
	int64_t C = x->dims[1], S = prod(x->dims, 2, x->rank);
	double *scale = load_param(k, 1, C, "input scale"), *bias = scale ? load_param(k, 2, C, "input B") : NULL;
	double *xd = NULL, *yd = NULL;
	int rc = bias ? begin(k, x, &y, &xd, &yd) : -1;
	if (rc == 0) {
		rows r = {x->count ? x->dims[0] * C : 0, S, S ? S : 1, C ? C : 1, ox_attr_float(k, "epsilon", 1e-5f),
			  scale, bias, NULL, NULL};
		normalize_rows(&r, xd, yd);
	}
	free(scale);
	free(bias);
	return bias ? finish(rc, y, xd, yd) : -1;
}

/* Scale and bias per channel (opset 21; C values) or per group (opset 18; G values). */
int ox_op_GroupNormalization(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true), *y = NULL, *s = ox_in_tensor(k, 1, true);
	int64_t G = ox_attr_int(k, "num_groups", 0);
	if (!x || !s || ox_need_real(k, x, "input X"))
		return -1;
	if (x->rank < 2)
		return ox_kfail(k, "input X must have rank 2 or more (N x C x D1 ...), not %d", x->rank);
	int64_t C = x->dims[1], S = prod(x->dims, 2, x->rank);
	if (G < 1 || C % G)
		return ox_kfail(k, "num_groups %lld must be positive and divide the %lld channels", (long long)G, (long long)C);
	int64_t np = s->count == C ? C : G;
	double *scale = load_param(k, 1, np, "input scale"), *bias = scale ? load_param(k, 2, np, "input bias") : NULL;
	double *xd = NULL, *yd = NULL;
	int rc = bias ? begin(k, x, &y, &xd, &yd) : -1;
	if (rc == 0) {
		int64_t per = C / G * S; /* values of one group */
		rows r = {x->count ? x->dims[0] * G : 0, per, np == C ? (S ? S : 1) : (per ? per : 1), np ? np : 1,
			  ox_attr_float(k, "epsilon", 1e-5f), scale, bias, NULL, NULL};
		normalize_rows(&r, xd, yd);
	}
	free(scale);
	free(bias);
	return bias ? finish(rc, y, xd, yd) : -1;
}

/* The first normalized axis of LayerNormalization and RMSNormalization, which may be the
 * rank itself (nothing normalized): [-r, r] by the spec. */
static int first_axis(ox_k *k, int rank)
{
	int64_t axis = ox_attr_int(k, "axis", -1), a = axis < 0 ? axis + rank : axis;
	if (a < 0 || a > rank)
		return ox_kfail(k, "axis %lld is out of range [%d, %d]", (long long)axis, -rank, rank);
	return (int)a;
}

/* Where Scale and B (inputs 1 and 2) are broadcast from: axis when they fit the normalized
 * shape X.shape[axis:], else 0, since the spec's function body applies them with Mul and
 * Add, whose broadcasting also allows leading axes. */
static int param_from(ox_k *k, const ox_val *x, int axis)
{
	int r = 0;
	for (int i = 1; i <= 2; i++)
		if (ox_in(k, i) && ox_in(k, i)->rank > r)
			r = ox_in(k, i)->rank;
	return r > x->rank - axis ? 0 : axis;
}

/* Output i of LayerNormalization: shape dims[:axis] + ones, type from stash_type. */
static double *stat_output(ox_k *k, int i, const ox_val *x, int axis, ox_val **o)
{
	*o = NULL;
	if (!ox_out_wanted(k, i))
		return NULL;
	int64_t st = ox_attr_int(k, "stash_type", 1), dims[OX_MAX_RANK];
	if (st != OX_FLOAT && st != OX_DOUBLE && st != OX_FLOAT16 && st != OX_BFLOAT16) {
		ox_kfail(k, "stash_type %lld is not a floating-point type", (long long)st);
		return NULL;
	}
	for (int j = 0; j < x->rank; j++)
		dims[j] = j < axis ? x->dims[j] : 1;
	*o = ox_out_tensor(k, i, (int)st, x->rank, dims);
	return *o ? ox_scratch(k, (*o)->count, sizeof(double), "scratch") : NULL;
}

int ox_op_LayerNormalization(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true), *y = NULL, *mo, *io;
	int axis;
	if (!x || ox_need_real(k, x, "input X") || (axis = first_axis(k, x->rank)) < 0)
		return -1;
	int from = param_from(k, x, axis), n = x->rank - from;
	double *scale = expand_param(k, 1, n, x->dims + from, "input Scale"), *bias = NULL;
	if (scale && ox_in(k, 2))
		bias = expand_param(k, 2, n, x->dims + from, "input B");
	double *mean = stat_output(k, 1, x, axis, &mo), *inv = stat_output(k, 2, x, axis, &io), *xd = NULL, *yd = NULL;
	int rc = !scale || (ox_in(k, 2) && !bias) || (mo && !mean) || (io && !inv) ? -1 : begin(k, x, &y, &xd, &yd);
	if (rc == 0) {
		int64_t inner = prod(x->dims, axis, x->rank), np = prod(x->dims, from, x->rank);
		int64_t outer = mo ? mo->count : io ? io->count : x->count ? prod(x->dims, 0, axis) : 0;
		rows r = {outer, inner, 1, np ? np : 1, ox_attr_float(k, "epsilon", 1e-5f), scale, bias, mean, inv};
		normalize_rows(&r, xd, yd);
		if (mo)
			ox_store_f64(mo, mean);
		if (io)
			ox_store_f64(io, inv);
	}
	free(scale), free(bias), free(mean), free(inv);
	return rc ? (free(xd), free(yd), -1) : finish(0, y, xd, yd);
}

/* y = x / sqrt(mean(x^2) + epsilon) * scale over the axes from axis on (opset 23). */
int ox_op_RMSNormalization(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true), *y = NULL;
	int axis;
	if (!x || ox_need_real(k, x, "input X") || (axis = first_axis(k, x->rank)) < 0)
		return -1;
	int from = param_from(k, x, axis);
	double *scale = expand_param(k, 1, x->rank - from, x->dims + from, "input scale"), *xd = NULL, *yd = NULL;
	int rc = scale ? begin(k, x, &y, &xd, &yd) : -1;
	int64_t inner = prod(x->dims, axis, x->rank), outer = x->count ? prod(x->dims, 0, axis) : 0;
	double eps = ox_attr_float(k, "epsilon", 1e-5f);
	for (int64_t i = 0; rc == 0 && i < outer; i++) {
		const double *xr = xd + i * inner;
		double q = 0;
		for (int64_t j = 0; j < inner; j++)
			q += xr[j] * xr[j];
		double inv = 1 / sqrt(q / (double)inner + eps);
		for (int64_t j = 0; j < inner; j++)
			yd[i * inner + j] = xr[j] * inv * scale[from == axis ? j : i * inner + j];
	}
	free(scale);
	return scale ? finish(rc, y, xd, yd) : -1;
}

/* ---- normalization over arbitrary axes -------------------------------------------------- */

/* For each element of a tensor of shape (rank, dims), in order, the index of its group:
 * its position over the axes not in red, row-major. */
static void group_index(int rank, const int64_t *dims, const bool *red, int64_t count, int64_t *g)
{
	int64_t st[OX_MAX_RANK], pos[OX_MAX_RANK] = {0}, s = 1, at = 0;
	for (int i = rank - 1; i >= 0; i--) {
		st[i] = red[i] ? 0 : s;
		s *= red[i] ? 1 : dims[i];
	}
	for (int64_t j = 0; j < count; j++) {
		g[j] = at;
		at = ox_odometer_next(rank, dims, st, pos, at);
	}
}

/* y = (x - mean) / (sqrt(var) + 1e-9), statistics over axes (the function body of the
 * spec adds the epsilon to the standard deviation). */
int ox_op_MeanVarianceNormalization(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true), *y = NULL;
	if (!x || ox_need_real(k, x, "input X"))
		return -1;
	static const int64_t def[3] = {0, 2, 3};
	const int64_t *axes = def;
	int64_t na = ox_attr_ints(k, "axes", &axes);
	if (na < 0)
		axes = def, na = 3;
	bool red[OX_MAX_RANK] = {false};
	for (int64_t i = 0; i < na; i++) {
		int a = ox_axis(k, axes[i], x->rank);
		if (a < 0)
			return -1;
		red[a] = true;
	}
	if (!x->count)
		return ox_out_tensor(k, 0, x->type, x->rank, x->dims) ? 0 : -1;
	int64_t groups = 1;
	for (int i = 0; i < x->rank; i++)
		groups *= red[i] ? 1 : x->dims[i];
	double *xd = NULL, *yd = NULL, *st = ox_scratch(k, 2 * groups, sizeof(double), "scratch");
	int64_t *g = st ? malloc((size_t)(x->count + 1) * sizeof *g) : NULL;
	int rc = g ? begin(k, x, &y, &xd, &yd) : st ? ox_kfail(k, "out of memory") : -1;
	if (rc == 0) {
		group_index(x->rank, x->dims, red, x->count, g);
		double *sum = st, *sq = st + groups, per = groups ? (double)x->count / (double)groups : 1;
		memset(st, 0, (size_t)(2 * groups) * sizeof *st);
		for (int64_t i = 0; i < x->count; i++)
			sum[g[i]] += xd[i];
		for (int64_t i = 0; i < x->count; i++)
			sq[g[i]] += (xd[i] - sum[g[i]] / per) * (xd[i] - sum[g[i]] / per);
		for (int64_t i = 0; i < x->count; i++)
			yd[i] = (xd[i] - sum[g[i]] / per) / (sqrt(sq[g[i]] / per) + 1e-9);
	}
	free(st);
	free(g);
	return g ? finish(rc, y, xd, yd) : -1;
}

/* ---- along one axis ------------------------------------------------------------------- */

/* x viewed as outer x n x inner around axis a. */
static void around(const ox_val *x, int a, int64_t *outer, int64_t *n, int64_t *inner)
{
	*outer = x->count ? prod(x->dims, 0, a) : 0; /* no loop over the dims of an empty X */
	*n = x->rank ? x->dims[a] : 1;
	*inner = prod(x->dims, a + 1, x->rank);
}

/* y = x / ||x||_p along axis (p 1 or 2). */
int ox_op_LpNormalization(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true), *y = NULL;
	int a;
	int64_t p = ox_attr_int(k, "p", 2), outer, n, inner;
	if (!x || ox_need_real(k, x, "input") || (a = ox_axis(k, ox_attr_int(k, "axis", -1), x->rank)) < 0)
		return -1;
	if (p != 1 && p != 2)
		return ox_kfail(k, "p must be 1 or 2, not %lld", (long long)p);
	double *xd, *yd;
	int rc = begin(k, x, &y, &xd, &yd);
	around(x, a, &outer, &n, &inner);
	for (int64_t o = 0; rc == 0 && o < outer; o++)
		for (int64_t i = 0; i < inner; i++) {
			const double *xc = xd + o * n * inner + i;
			double s = 0;
			for (int64_t j = 0; j < n; j++)
				s += p == 1 ? fabs(xc[j * inner]) : xc[j * inner] * xc[j * inner];
			s = p == 1 ? s : sqrt(s);
			for (int64_t j = 0; j < n; j++)
				yd[o * n * inner + i + j * inner] = xc[j * inner] / s;
		}
	return finish(rc, y, xd, yd);
}

/* b ^ beta: the usual 0.75 as two square roots, several times quicker than pow (LRN was a
 * fifth of inception_v1's time) and within an ulp of double, so the float32 results agree
 * but for a rare last-bit rounding. */
static double lrn_pow(double b, double beta)
{
	return beta == 0.75 ? sqrt(b) * sqrt(sqrt(b)) : pow(b, beta);
}

/* One channel c of one image (C channels of S elements at x) into y. */
static void lrn_channel(const double *x, double *y, int64_t c, int64_t C, int64_t S, int64_t size, double alpha,
			double beta, double bias)
{
	int64_t j0 = c - (size - 1) / 2 > 0 ? c - (size - 1) / 2 : 0, j1 = c + size / 2 < C ? c + size / 2 : C - 1;
	for (int64_t s = 0; s < S; s++) {
		double sq = 0;
		for (int64_t j = j0; j <= j1; j++)
			sq += x[j * S + s] * x[j * S + s];
		y[c * S + s] = x[c * S + s] / lrn_pow(bias + alpha / (double)size * sq, beta);
	}
}

/* float32 with beta 0.75, the LRN of the CNNs that have one: in float through the vector
 * table, a channel at a time (the sums of squares of its window in channel order, fused
 * the same way at every level, so the bits do not depend on the CPU). */
static int lrn_f32(ox_k *k, const ox_val *x, int64_t size, float a, float bias)
{
	int64_t C = x->dims[1], S = prod(x->dims, 2, x->rank);
	ox_val *y = ox_out_tensor(k, 0, x->type, x->rank, x->dims);
	float *sq = y && x->count ? ox_scratch(k, S, sizeof(float), "scratch") : NULL;
	if (!y || !x->count)
		return y ? 0 : -1;
	if (!sq)
		return -1;
	const ox_nn_vec *v = ox_nn_vec_get();
	const float *xd = x->data;
	float *yd = y->data;
	for (int64_t o = 0; o < x->count / (C * S); o++, xd += C * S, yd += C * S)
		for (int64_t c = 0; c < C; c++) {
			int64_t j0 = c - (size - 1) / 2 > 0 ? c - (size - 1) / 2 : 0, j1 = c + size / 2 < C ? c + size / 2 : C - 1;
			memset(sq, 0, (size_t)S * sizeof *sq);
			for (int64_t j = j0; j <= j1; j++)
				v->sq_acc(sq, xd + j * S, S);
			v->lrn75(yd + c * S, xd + c * S, sq, a, bias, S);
		}
	free(sq);
	return 0;
}

/* Across channels: y = x / (bias + alpha / size * sum of x^2 over the size nearest
 * channels) ^ beta. */
int ox_op_LRN(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true), *y = NULL;
	int64_t size = ox_attr_int(k, "size", 0);
	if (!x || ox_need_real(k, x, "input X"))
		return -1;
	if (x->rank < 2)
		return ox_kfail(k, "input X must have rank 2 or more (N x C x D1 ...), not %d", x->rank);
	if (size < 1)
		return ox_kfail(k, "attribute 'size' is required and must be positive");
	double alpha = ox_attr_float(k, "alpha", 1e-4f), beta = ox_attr_float(k, "beta", 0.75f);
	double bias = ox_attr_float(k, "bias", 1.0f), *xd, *yd;
	if (x->type == OX_FLOAT && beta == 0.75)
		return lrn_f32(k, x, size, (float)(alpha / (double)size), (float)bias);
	int64_t C = x->dims[1], S = prod(x->dims, 2, x->rank), plane = x->count ? C * S : 0; /* S saturates when empty */
	int rc = begin(k, x, &y, &xd, &yd);
	for (int64_t o = 0; rc == 0 && plane && o < x->count / plane; o++)
		for (int64_t c = 0; c < C; c++)
			lrn_channel(xd + o * plane, yd + o * plane, c, C, S, size, alpha, beta, bias);
	return finish(rc, y, xd, yd);
}

/* ---- Softmax, LogSoftmax, Hardmax ---------------------------------------------------------- */

enum { SOFTMAX, LOGSOFTMAX, HARDMAX };

/* One softmax in float32 over n rows of inner values (inner 1: one contiguous row). */
static void softmax_fast(const ox_nn_vec *v, int kind, const float *x, float *y, int64_t n, int64_t inner,
			 float *m, float *s)
{
	if (inner == 1) {
		float mx = v->max(x, n), sum = v->exp_shift(y, x, mx, n);
		if (kind == SOFTMAX)
			v->affine(y, y, 1 / sum, 0, n);
		else
			v->affine(y, x, 1, -(mx + logf(sum)), n);
		return;
	}
	memcpy(m, x, (size_t)inner * sizeof *m);
	for (int64_t j = 1; j < n; j++)
		v->acc_max(m, x + j * inner, inner);
	memset(s, 0, (size_t)inner * sizeof *s);
	for (int64_t j = 0; j < n; j++)
		v->exp_shift_v(y + j * inner, x + j * inner, m, s, inner);
	for (int64_t i = 0; i < inner; i++) /* the factor or the term that finishes each column */
		s[i] = kind == SOFTMAX ? 1 / s[i] : -(m[i] + logf(s[i]));
	for (int64_t j = 0; j < n; j++)
		if (kind == SOFTMAX)
			v->mul_v(y + j * inner, y + j * inner, s, inner);
		else
			v->add_v(y + j * inner, x + j * inner, s, inner);
}

/* One column of n values at stride inner, in double. Hardmax marks the first largest (a
 * NaN counting as the largest, as numpy's argmax does). */
static void softmax_column(int kind, const double *x, double *y, int64_t n, int64_t inner)
{
	double m = -INFINITY, s = 0;
	int64_t arg = 0;
	for (int64_t j = 0; j < n; j++)
		if (!isnan(m) && (isnan(x[j * inner]) || x[j * inner] > m)) {
			m = x[j * inner];
			arg = j;
		}
	for (int64_t j = 0; j < n && kind != HARDMAX; j++)
		s += exp(x[j * inner] - m);
	for (int64_t j = 0; j < n; j++)
		y[j * inner] = kind == HARDMAX ? j == arg : kind == SOFTMAX ? exp(x[j * inner] - m) / s
									  : x[j * inner] - m - log(s);
}

/* Before version 13 (old) the input is coerced to 2-D at axis (default 1); since, the
 * softmax runs along axis (default -1). */
static int softmax(ox_k *k, int kind, bool old)
{
	ox_val *x = ox_in_tensor(k, 0, true), *y = NULL;
	int a;
	if (!x || ox_need_real(k, x, "input") || (a = ox_axis(k, ox_attr_int(k, "axis", old ? 1 : -1), x->rank)) < 0)
		return -1;
	int64_t outer, n, inner;
	around(x, a, &outer, &n, &inner);
	if (old) {
		n *= inner;
		inner = 1;
	}
	if (x->type == OX_FLOAT && kind != HARDMAX) {
		if (!(y = ox_out_tensor(k, 0, x->type, x->rank, x->dims)))
			return -1;
		float *m = malloc((size_t)(2 * inner + 1) * sizeof *m);
		if (!m)
			return ox_kfail(k, "out of memory");
		const ox_nn_vec *v = ox_nn_vec_get();
		for (int64_t o = 0; o < outer && n; o++)
			softmax_fast(v, kind, (const float *)x->data + o * n * inner, (float *)y->data + o * n * inner, n,
				     inner, m, m + inner);
		free(m);
		return 0;
	}
	double *xd, *yd;
	int rc = begin(k, x, &y, &xd, &yd);
	for (int64_t o = 0; rc == 0 && o < outer; o++)
		for (int64_t i = 0; i < inner; i++)
			softmax_column(kind, xd + o * n * inner + i, yd + o * n * inner + i, n, inner);
	return finish(rc, y, xd, yd);
}

OX_KERNEL(ox_op_Softmax_1, softmax(k, SOFTMAX, true))
OX_KERNEL(ox_op_Softmax_13, softmax(k, SOFTMAX, false))
OX_KERNEL(ox_op_LogSoftmax_1, softmax(k, LOGSOFTMAX, true))
OX_KERNEL(ox_op_LogSoftmax_13, softmax(k, LOGSOFTMAX, false))
OX_KERNEL(ox_op_Hardmax_1, softmax(k, HARDMAX, true))
OX_KERNEL(ox_op_Hardmax_13, softmax(k, HARDMAX, false))

/* ---- Dropout ----------------------------------------------------------------------------- */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Dropout's versions: attributes ratio and is_test at 1 and 6, attribute ratio (never
 * training) from 7, a bool mask from 10, inputs ratio and training_mode since 12. */
enum { DROPOUT_IS_TEST, DROPOUT_INFER, DROPOUT_BOOL_MASK, DROPOUT_INPUTS };

static int dropout_mode(ox_k *k, int ver, double *ratio, bool *train)
{
	*ratio = 0.5;
	*train = false;
	if (ver != DROPOUT_INPUTS) {
		*ratio = ox_attr_float(k, "ratio", 0.5f);
		*train = ver == DROPOUT_IS_TEST && ox_attr_int(k, "is_test", 0) == 0;
	} else {
		ox_val *r = ox_in(k, 1) ? ox_in_tensor(k, 1, true) : NULL, *t = ox_in(k, 2) ? ox_in_tensor(k, 2, true) : NULL;
		if ((ox_in(k, 1) && !r) || (ox_in(k, 2) && !t))
			return -1;
		if (r && (r->count != 1 || !ox_elem_is_float(r->type)))
			return ox_kfail(k, "input ratio must be a floating-point scalar");
		if (t && (t->count != 1 || t->type != OX_BOOL))
			return ox_kfail(k, "input training_mode must be a bool scalar");
		*ratio = r ? ox_get_f64(r, 0) : 0.5;
		*train = t && ((const uint8_t *)t->data)[0];
	}
	if (*train && !(*ratio >= 0 && *ratio < 1))
		return ox_kfail(k, "ratio %g is not in [0, 1)", *ratio);
	return 0;
}

/* Inference passes the data through with a mask of ones; training drops each element with
 * probability ratio (a generator seeded by the seed attribute, 0 by default, so runs
 * repeat) and scales the rest by 1 / (1 - ratio). */
static int dropout(ox_k *k, int ver)
{
	ox_val *x = ox_in_tensor(k, 0, true), *mask = NULL, *y = NULL;
	double ratio;
	bool train;
	if (!x || ox_need_real(k, x, "input data") || dropout_mode(k, ver, &ratio, &train))
		return -1;
	int mtype = ver < DROPOUT_BOOL_MASK ? x->type : OX_BOOL;
	if (ox_out_wanted(k, 1) && !(mask = ox_out_tensor(k, 1, mtype, x->rank, x->dims)))
		return -1;
	if (!train || ratio == 0) {
		ox_out_set(k, 0, ox_val_ref(x));
		if (mask && mask->count) {
			ox_set_f64(mask, 0, 1); /* one element by type, copied: a mask is as large as the data */
			ox_tensor_fill(mask, mask->data);
		}
		return 0;
	}
	double *xd, *yd;
	int rc = begin(k, x, &y, &xd, &yd);
	uint64_t state = (uint64_t)ox_attr_int(k, "seed", 0);
	for (int64_t i = 0; rc == 0 && i < x->count; i++) {
		bool keep = (double)(splitmix(&state) >> 11) * 0x1p-53 >= ratio;
		yd[i] = keep ? xd[i] / (1 - ratio) : 0;
		if (mask)
			ox_set_f64(mask, i, keep);
	}
	return finish(rc, y, xd, yd);
}

OX_KERNEL(ox_op_Dropout_1, dropout(k, DROPOUT_IS_TEST))
OX_KERNEL(ox_op_Dropout_7, dropout(k, DROPOUT_INFER))
OX_KERNEL(ox_op_Dropout_10, dropout(k, DROPOUT_BOOL_MASK))
OX_KERNEL(ox_op_Dropout_12, dropout(k, DROPOUT_INPUTS))
