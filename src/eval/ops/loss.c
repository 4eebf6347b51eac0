/* NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: per-element losses
 * -input[n, target[n, d], d] (of log_softmax(scores) for the latter), weighted, with
 * ignore_index, reduced by none, sum or mean (the weighted mean: divided by the sum of the
 * weights that applied). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "eval/kernel.h"


static const int float_types[] = {OX_FLOAT, OX_FLOAT16, OX_DOUBLE, OX_BFLOAT16, 0};
static const int index_types[] = {OX_INT32, OX_INT64, 0};

enum { R_NONE, R_SUM, R_MEAN };

typedef struct loss {
	int64_t n, c, d; /* input as [N, C, D] */
	int reduction;
	bool has_ignore;
	int64_t ignore;
} loss;

/* Fetches the inputs (scores, target and the optional weight) into in and checks them;
 * fills L from their shapes and the attributes. */
static int loss_setup(ox_k *k, ox_val **in, loss *L)
{
	if (ox_in_tensors(k, in, 3, 2) < 0)
		return -1;
	const ox_val *x = in[0], *t = in[1], *w = in[2];
	if (ox_check_type(k, x, "input", float_types) < 0 || ox_check_type(k, t, "target", index_types) < 0 ||
	    (w && ox_check_type(k, w, "weight", float_types) < 0))
		return -1;
	if (x->rank < 2 || t->rank != x->rank - 1 || t->dims[0] != x->dims[0] ||
	    memcmp(t->dims + 1, x->dims + 2, (size_t)(t->rank - 1) * sizeof *t->dims) != 0)
		return ox_kfail(k, "input must be [N, C, d1, ...] and target [N, d1, ...]");
	L->n = x->dims[0], L->c = x->dims[1], L->d = 1;
	for (int i = 2; i < x->rank; i++)
		L->d *= x->dims[i];
	if (w && (w->rank != 1 || w->dims[0] != L->c))
		return ox_kfail(k, "weight must have one value per class (%lld)", (long long)L->c);
	if (ox_attr_str_is(k, "reduction", "mean", "none"))
		L->reduction = R_NONE;
	else if (ox_attr_str_is(k, "reduction", "mean", "sum"))
		L->reduction = R_SUM;
	else if (ox_attr_str_is(k, "reduction", "mean", "mean"))
		L->reduction = R_MEAN;
	else
		return ox_kfail(k, "reduction must be none, sum or mean");
	L->has_ignore = ox_attr(k, "ignore_index") != NULL;
	L->ignore = ox_attr_int(k, "ignore_index", 0);
	return 0;
}

/* Losses of every (n, d) from logp ([N, C, D]) into out, reduced into y. */
static int loss_finish(ox_k *k, const loss *L, const double *logp, const ox_val *t, const ox_val *w, const ox_val *x)
{
	int64_t m = L->n * L->d;
	double *per = ox_scratch(k, m, sizeof *per, "losses"), sum = 0, wsum = 0;
	if (!per)
		return -1;
	for (int64_t i = 0; i < m; i++) {
		int64_t n = i / L->d, d = i % L->d, cls = ox_get_i64(t, i);
		if (L->has_ignore && cls == L->ignore) {
			per[i] = 0;
			continue;
		}
		if (cls < 0 || cls >= L->c) {
			free(per);
			return ox_kfail(k, "target %lld is not a class index in [0, %lld)", (long long)cls, (long long)L->c);
		}
		double wt = w ? ox_get_f64(w, cls) : 1;
		per[i] = -logp[(n * L->c + cls) * L->d + d] * wt;
		sum += per[i], wsum += wt;
	}
	ox_val *y = L->reduction == R_NONE ? ox_out_tensor(k, 0, x->type, t->rank, t->dims)
					   : ox_out_tensor(k, 0, x->type, 0, NULL);
	if (y && L->reduction == R_NONE)
		ox_store_f64(y, per);
	else if (y)
		ox_set_f64(y, 0, L->reduction == R_SUM ? sum : sum / (w || L->has_ignore ? wsum : (double)m));
	free(per);
	return y ? 0 : -1;
}

/* log_softmax over the class axis of [N, C, D], in place. */
static void log_softmax(const loss *L, double *v)
{
	for (int64_t n = 0; n < L->n; n++)
		for (int64_t d = 0; d < L->d; d++) {
			double *p = v + n * L->c * L->d + d, mx = -INFINITY, s = 0;
			for (int64_t c = 0; c < L->c; c++)
				mx = fmax(mx, p[c * L->d]);
			for (int64_t c = 0; c < L->c; c++)
				s += exp(p[c * L->d] - mx);
			double lse = mx + log(s);
			for (int64_t c = 0; c < L->c; c++)
				p[c * L->d] -= lse;
		}
}

/* NegativeLogLikelihoodLoss reads log-probabilities as its input; SoftmaxCrossEntropyLoss
 * reads scores, takes their log_softmax and may output it too. */
static int run_loss(ox_k *k, bool softmax)
{
	ox_val *in[3];
	loss L = {0}; /* all set by loss_setup; GCC cannot see that through the inlining */
	if (loss_setup(k, in, &L) < 0)
		return -1;
	ox_val *x = in[0];
	double *xd = ox_load_f64(k, x, softmax ? "scores" : "input");
	if (!xd)
		return -1;
	if (softmax)
		log_softmax(&L, xd);
	int rc = loss_finish(k, &L, xd, in[1], in[2], x);
	if (rc == 0 && softmax && ox_out_wanted(k, 1)) {
		ox_val *lp = ox_out_tensor(k, 1, x->type, x->rank, x->dims);
		if (lp)
			ox_store_f64(lp, xd);
		rc = lp ? 0 : -1;
	}
	free(xd);
	return rc;
}

OX_KERNEL(ox_op_NegativeLogLikelihoodLoss, run_loss(k, false))
OX_KERNEL(ox_op_SoftmaxCrossEntropyLoss, run_loss(k, true))
