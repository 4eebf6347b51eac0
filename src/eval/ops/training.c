/* The optimizers of ai.onnx.preview.training (Adagrad, Adam, Momentum): one node updates n
 * tensors. Inputs are R (learning rate), T (update count), then groups of n tensors (X, G and
 * the optimizer's state); outputs are groups of n (new X, new state). Formulas of the spec,
 * computed in double. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "eval/kernel.h"

static const int float_types[] = {OX_FLOAT, OX_DOUBLE, 0};
static const int step_types[] = {OX_INT64, 0};

typedef struct optim {
	double r, a, b, eps, norm, post; /* learning rate and the optimizer's coefficients */
	int64_t t;
	bool nesterov;
} optim;

/* One element: in[g] is the element of input group g (X, G, states), out[g] of output
 * group g (X, states). */
typedef void (*step_fn)(const optim *o, const double *in, double *out);

#define MAX_GROUPS 4

/* Output group g holds the new value of input group 0 (X) or, after it, of the state
 * groups, which follow X and G. */
static int out_source(int g)
{
	return g == 0 ? 0 : g + 1;
}

static int load_scalars(ox_k *k, optim *o)
{
	ox_val *r = ox_in_tensor(k, 0, true), *t = ox_in_tensor(k, 1, true);
	if (!r || !t || ox_check_type(k, r, "R", float_types) < 0 || ox_check_type(k, t, "T", step_types) < 0)
		return -1;
	if (r->count != 1 || t->count != 1)
		return ox_kfail(k, "R and T must be scalars (one element each)");
	o->r = ox_scalar_f64(r), o->t = ox_scalar_i64(t);
	return 0;
}

/* Tensor i of every group, checked for type and shape against X. */
static int load_set(ox_k *k, int n, int gin, int i, ox_val **v)
{
	for (int g = 0; g < gin; g++) {
		v[g] = ox_in_tensor(k, 2 + g * n + i, true);
		if (!v[g] || ox_check_type(k, v[g], "optimized tensor", float_types) < 0)
			return -1;
		if (v[g]->rank != v[0]->rank || memcmp(v[g]->dims, v[0]->dims, (size_t)v[0]->rank * sizeof *v[0]->dims))
			return ox_kfail(k, "input %d must have the shape of input %d (the tensor it goes with)",
					2 + g * n + i, 2 + i);
	}
	return 0;
}

static int update_one(ox_k *k, const optim *o, step_fn step, int n, int gin, int gout, int i)
{
	ox_val *v[MAX_GROUPS];
	if (load_set(k, n, gin, i, v) < 0)
		return -1;
	double *in[MAX_GROUPS] = {0}, *out[MAX_GROUPS] = {0};
	int rc = 0;
	for (int g = 0; g < gin && rc == 0; g++)
		rc = (in[g] = ox_load_f64(k, v[g], "optimized tensor")) ? 0 : -1;
	for (int g = 0; g < gout && rc == 0; g++)
		rc = (out[g] = ox_scratch(k, v[0]->count, sizeof(double), "update")) ? 0 : -1;
	for (int64_t e = 0; rc == 0 && e < v[0]->count; e++) {
		double ie[MAX_GROUPS], oe[MAX_GROUPS];
		for (int g = 0; g < gin; g++)
			ie[g] = in[g][e];
		step(o, ie, oe);
		for (int g = 0; g < gout; g++)
			out[g][e] = oe[g];
	}
	for (int g = 0; g < gout && rc == 0; g++) {
		if (!ox_out_wanted(k, g * n + i))
			continue;
		const ox_val *src = v[out_source(g)];
		ox_val *y = ox_out_tensor(k, g * n + i, src->type, src->rank, src->dims);
		if (y)
			ox_store_f64(y, out[g]);
		else
			rc = -1;
	}
	for (int g = 0; g < MAX_GROUPS; g++)
		free(in[g]), free(out[g]);
	return rc;
}

/* Runs step over every element of every tensor; gin input groups after R and T, gout
 * output groups. */
static int optimize(ox_k *k, optim *o, step_fn step, int gin, int gout)
{
	if (load_scalars(k, o) < 0)
		return -1;
	if (k->nin < 2 + gin || (k->nin - 2) % gin)
		return ox_kfail(k, "expected R, T and %d groups of as many tensors, not %d inputs", gin, k->nin);
	int n = (k->nin - 2) / gin;
	if (k->nout > gout * n)
		return ox_kfail(k, "%d tensors are optimized: at most %d outputs, not %d", n, gout * n, k->nout);
	for (int i = 0; i < n; i++)
		if (update_one(k, o, step, n, gin, gout, i) < 0)
			return -1;
	return 0;
}

static void adagrad_step(const optim *o, const double *in, double *out)
{
	double x = in[0], g = o->norm * x + in[1];
	double r = o->r / (1 + (double)o->t * o->a); /* a: decay_factor */
	double h = in[2] + g * g;
	out[0] = x - r * g / (sqrt(h) + o->eps);
	out[1] = h;
}

int ox_op_Adagrad(ox_k *k)
{
	optim o = {.a = ox_attr_float(k, "decay_factor", 0.0f),
		   .eps = ox_attr_float(k, "epsilon", 1e-6f),
		   .norm = ox_attr_float(k, "norm_coefficient", 0.0f)};
	return optimize(k, &o, adagrad_step, 3, 2);
}

static void adam_step(const optim *o, const double *in, double *out)
{
	double x = in[0], g = o->norm * x + in[1];
	double v = o->a * in[2] + (1 - o->a) * g;
	double h = o->b * in[3] + (1 - o->b) * g * g;
	double r = o->r;
	if (o->t > 0)
		r *= sqrt(1 - pow(o->b, (double)o->t)) / (1 - pow(o->a, (double)o->t));
	out[0] = (1 - o->post) * (x - r * v / (sqrt(h) + o->eps));
	out[1] = v;
	out[2] = h;
}

int ox_op_Adam(ox_k *k)
{
	optim o = {.a = ox_attr_float(k, "alpha", 0.9f),
		   .b = ox_attr_float(k, "beta", 0.999f),
		   .eps = ox_attr_float(k, "epsilon", 1e-6f),
		   .norm = ox_attr_float(k, "norm_coefficient", 0.0f),
		   .post = ox_attr_float(k, "norm_coefficient_post", 0.0f)};
	return optimize(k, &o, adam_step, 4, 3);
}

/* The first update (T = 0) takes the gradient unscaled (beta is 1 then). */
static void momentum_step(const optim *o, const double *in, double *out)
{
	double x = in[0], g = o->norm * x + in[1];
	double v = o->a * in[2] + (o->t > 0 ? o->b : 1) * g;
	out[0] = o->nesterov ? x - o->r * (g + o->a * v) : x - o->r * v;
	out[1] = v;
}

int ox_op_Momentum(ox_k *k)
{
	static const char *const required[] = {"alpha", "beta", "mode", "norm_coefficient"};
	for (size_t i = 0; i < sizeof required / sizeof *required; i++)
		if (!ox_attr(k, required[i]))
			return ox_kfail(k, "attribute '%s' is required", required[i]);
	optim o = {.a = ox_attr_float(k, "alpha", 0), .b = ox_attr_float(k, "beta", 0),
		   .norm = ox_attr_float(k, "norm_coefficient", 0)};
	o.nesterov = ox_attr_str_is(k, "mode", "", "nesterov");
	if (!o.nesterov && !ox_attr_str_is(k, "mode", "", "standard"))
		return ox_kfail(k, "mode must be standard or nesterov");
	return optimize(k, &o, momentum_step, 3, 2);
}
