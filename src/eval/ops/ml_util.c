/* Helpers shared by the ai.onnx.ml kernels (ml.h): input rows, post_transform, labels. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ml.h"

bool ox_ml_numeric(int type)
{
	return type == OX_FLOAT || type == OX_DOUBLE || type == OX_INT64 || type == OX_INT32;
}

int ox_ml_check_numeric(ox_k *k, const ox_val *x)
{
	if (ox_ml_numeric(x->type))
		return 0;
	return ox_kfail(k, "input X has element type %s; expected float, double, int64 or int32", ox_elem_label(x->type));
}

double *ox_ml_rows(ox_k *k, const ox_val *x, int64_t *n, int64_t *c)
{
	return ox_ml_check_numeric(k, x) < 0 ? NULL : ox_ml_rows_any(k, x, n, c);
}

double *ox_ml_rows_any(ox_k *k, const ox_val *x, int64_t *n, int64_t *c)
{
	if (x->rank != 1 && x->rank != 2) {
		ox_kfail(k, "input X has rank %d; expected 1 (one row) or 2 (rows and features)", x->rank);
		return NULL;
	}
	*n = x->rank == 2 ? x->dims[0] : 1;
	*c = x->dims[x->rank - 1];
	double *d = malloc((size_t)(x->count ? x->count : 1) * sizeof *d);
	if (!d) {
		ox_kfail(k, "out of memory");
		return NULL;
	}
	ox_to_f64(x, d);
	return d;
}

static const char *const pt_names[] = {"NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT"};

int ox_ml_post_transform(ox_k *k)
{
	size_t len;
	const char *s = ox_attr_str(k, "post_transform", "NONE", &len);
	for (int i = 0; i < 5; i++)
		if (strlen(pt_names[i]) == len && memcmp(s, pt_names[i], len) == 0)
			return i;
	return ox_kfail(k, "post_transform '%.*s' is not NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO or PROBIT", (int)len, s);
}

double ox_ml_logistic(double x)
{
	double v = 1.0 / (1.0 + exp(-fabs(x)));
	return x < 0 ? 1.0 - v : v;
}

/* sqrt(2) * erfinv(2p - 1), erfinv by Winitzki's approximation, as the ONNX reference
 * implementation and onnxruntime compute it. */
double ox_ml_probit(double p)
{
	double x = 2 * p - 1, sgn = x < 0 ? -1.0 : 1.0;
	x = (1 - x) * (1 + x);
	if (x == 0)
		return 0;
	double l = log(x), v = 2.0 / (3.14159265358979323846 * 0.147) + 0.5 * l, v2 = l / 0.147;
	return 1.41421356 * sgn * sqrt(-v + sqrt(v * v - v2));
}

static void softmax(double *s, int64_t n, bool zero)
{
	double m = -INFINITY, sum = 0;
	for (int64_t i = 0; i < n; i++)
		m = s[i] > m ? s[i] : m;
	for (int64_t i = 0; i < n; i++) {
		/* SOFTMAX_ZERO: exact zeros stay (almost) zero instead of counting as exp(0) */
		s[i] = zero && fabs(s[i]) <= 1e-7 ? s[i] * exp(-m) : exp(s[i] - m);
		sum += s[i];
	}
	for (int64_t i = 0; i < n; i++)
		s[i] = zero && sum == 0 ? 0.5 : s[i] / sum;
}

void ox_ml_post(int pt, double *s, int64_t n)
{
	switch (pt) {
	case OX_PT_SOFTMAX: softmax(s, n, false); break;
	case OX_PT_SOFTMAX_ZERO: softmax(s, n, true); break;
	case OX_PT_LOGISTIC:
		for (int64_t i = 0; i < n; i++)
			s[i] = ox_ml_logistic(s[i]);
		break;
	case OX_PT_PROBIT:
		for (int64_t i = 0; i < n; i++)
			s[i] = ox_ml_probit(s[i]);
		break;
	default: break;
	}
}

int ox_ml_floats(ox_k *k, const char *name, double **v, int64_t *n)
{
	char tname[64];
	snprintf(tname, sizeof tname, "%s_as_tensor", name);
	const float *f;
	int64_t nf = ox_attr_floats(k, name, &f);
	const Onnx__TensorProto *tp = ox_attr_tensor(k, tname);
	*v = NULL;
	*n = 0;
	if (nf < 0 && !tp)
		return 0;
	ox_val *t = NULL;
	if (nf < 0 && !(t = ox_val_from_attr_tensor(k, tp)))
		return -1;
	if (t && t->type != OX_FLOAT && t->type != OX_DOUBLE) {
		ox_val_unref(t);
		return ox_kfail(k, "attribute %s has element type %s; expected float or double", tname, ox_elem_label(t->type));
	}
	int64_t cnt = t ? t->count : nf;
	if (!(*v = malloc((size_t)(cnt ? cnt : 1) * sizeof **v))) {
		ox_val_unref(t);
		return ox_kfail(k, "out of memory");
	}
	if (t)
		ox_to_f64(t, *v);
	for (int64_t i = 0; !t && i < cnt; i++)
		(*v)[i] = f[i];
	ox_val_unref(t);
	*n = cnt;
	return 0;
}

int ox_ml_labels(ox_k *k, int i, const int64_t *idx, int64_t n, const char *ints, const char *strings)
{
	const Onnx__AttributeProto *as = ox_attr(k, strings);
	const int64_t *li;
	int64_t nli = ox_attr_ints(k, ints, &li);
	bool str = as && as->n_strings;
	ox_val *y = ox_out_tensor(k, i, str ? OX_STRING : OX_INT64, 1, &n);
	if (!y)
		return -1;
	for (int64_t r = 0; r < n; r++) {
		int64_t j = idx[r];
		if (str) {
			size_t len;
			const char *s = j >= 0 && (size_t)j < as->n_strings ? ox_ml_str(as, (size_t)j, &len) : "";
			if (!(j >= 0 && (size_t)j < as->n_strings))
				len = 0;
			if (!ox_str_set(&((ox_str *)y->data)[r], s, len))
				return ox_kfail(k, "out of memory");
		} else {
			((int64_t *)y->data)[r] = nli > 0 ? (j >= 0 && j < nli ? li[j] : 0) : j;
		}
	}
	return 0;
}

int ox_ml_out_scores(ox_k *k, int i, const double *s, int64_t n, int64_t c)
{
	int64_t dims[2] = {n, c};
	ox_val *z = ox_out_tensor(k, i, OX_FLOAT, 2, dims);
	if (!z)
		return -1;
	for (int64_t j = 0; j < n * c; j++)
		((float *)z->data)[j] = (float)s[j];
	return 0;
}

int64_t ox_ml_argmax(const double *s, int64_t n)
{
	int64_t best = 0;
	for (int64_t j = 1; j < n; j++)
		if (s[j] > s[best])
			best = j;
	return best;
}

int ox_ml_classifier_out(ox_k *k, const int64_t *idx, const double *s, int64_t n, int64_t w, const char *ints)
{
	int rc = ox_ml_labels(k, 0, idx, n, ints, "classlabels_strings");
	return rc == 0 && k->nout > 1 ? ox_ml_out_scores(k, 1, s, n, w) : rc;
}

void ox_ml_binary_scores(double s, int pt, double *out)
{
	out[1] = s;
	out[0] = pt == OX_PT_NONE || pt == OX_PT_PROBIT ? 1 - s : -s;
	ox_ml_post(pt, out, 2);
}
