/* ai.onnx.ml linear models: LinearRegressor and LinearClassifier. Scores are computed in
 * double, row by row, then rounded to float. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../simd/ml_simd.h"
#include "ml.h"

/* s[r * t + j] = intercept[j] + X[r] . coef[j] for t targets over c features. */
static void linear_scores(const double *x, int64_t n, int64_t c, const float *coef, int64_t t, const float *icpt,
			  int64_t nicpt, double *s)
{
	const ox_ml_vec *v = ox_ml_vec_get();
	for (int64_t r = 0; r < n; r++)
		for (int64_t j = 0; j < t; j++)
			s[r * t + j] = (nicpt > 0 ? icpt[nicpt == 1 ? 0 : j] : 0) + v->dot(x + r * c, coef + j * c, c);
}

/* Reads X and the coefficients; *t is the number of coefficient rows (from the
 * attribute's length, or given in *t). Returns the rows of X or NULL after failing. */
static double *linear_setup(ox_k *k, int64_t *n, int64_t *c, const float **coef, int64_t *t, const float **icpt,
			    int64_t *nicpt)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	double *d = x ? ox_ml_rows(k, x, n, c) : NULL;
	if (!d)
		return NULL;
	int64_t nc = ox_attr_floats(k, "coefficients", coef);
	*nicpt = ox_attr_floats(k, "intercepts", icpt);
	if (nc < 0)
		nc = 0;
	if (*t <= 0)
		*t = *c ? nc / *c : 0;
	bool fits = *c ? nc % *c == 0 && nc / *c == *t : nc == 0; /* nc == t * c, without overflow */
	if (!fits || (*nicpt > 0 && *nicpt != *t && *nicpt != 1)) {
		ox_kfail(k, "%lld coefficients and %lld intercepts do not fit %lld features and %lld targets or classes",
			 (long long)nc, (long long)(*nicpt < 0 ? 0 : *nicpt), (long long)*c, (long long)*t);
		free(d);
		return NULL;
	}
	return d;
}

int ox_ml_LinearRegressor(ox_k *k)
{
	int64_t n, c, t = ox_attr_int(k, "targets", 1), nicpt;
	const float *coef, *icpt;
	int pt = ox_ml_post_transform(k);
	if (pt < 0)
		return -1;
	if (t < 1)
		return ox_kfail(k, "targets is %lld; expected at least 1", (long long)t);
	double *x = linear_setup(k, &n, &c, &coef, &t, &icpt, &nicpt);
	if (!x)
		return -1;
	double *s = malloc((size_t)(n * t + 1) * sizeof *s);
	int rc = s ? 0 : ox_kfail(k, "out of memory");
	if (s) {
		linear_scores(x, n, c, coef, t, icpt, nicpt, s);
		for (int64_t r = 0; r < n; r++) /* a single target too: the spec makes no exception */
			ox_ml_post(pt, s + r * t, t);
		rc = ox_ml_out_scores(k, 0, s, n, t);
	}
	free(s);
	free(x);
	return rc;
}

/* The number of class labels (ints or strings). */
static int64_t class_count(ox_k *k, const char *ints, const char *strings)
{
	const Onnx__AttributeProto *ai = ox_attr(k, ints), *as = ox_attr(k, strings);
	return as && as->n_strings ? (int64_t)as->n_strings : ai ? (int64_t)ai->n_ints : 0;
}

/* Labels of one-column scores: the first class label when the score reaches the
 * threshold (0, or 0.5 after a post_transform), else 0 (or ""). */
static void one_column_labels(const double *s, int64_t n, int pt, int64_t *idx)
{
	for (int64_t r = 0; r < n; r++)
		idx[r] = s[r] >= (pt == OX_PT_NONE ? 0.0 : 0.5) ? 0 : -1;
}

int ox_ml_LinearClassifier(ox_k *k)
{
	int64_t n, c, t = 0, nicpt;
	const float *coef, *icpt;
	int pt = ox_ml_post_transform(k);
	double *x = pt < 0 ? NULL : linear_setup(k, &n, &c, &coef, &t, &icpt, &nicpt);
	if (!x)
		return -1;
	int64_t ncls = class_count(k, "classlabels_ints", "classlabels_strings");
	bool binary = t == 1 && ncls == 2; /* one coefficient row for two classes */
	int64_t w = binary ? 2 : t;
	double *s = malloc((size_t)(n * (t + w) + 1) * sizeof *s);
	int64_t *idx = malloc((size_t)(n ? n : 1) * sizeof *idx);
	int rc = s && idx ? 0 : ox_kfail(k, "out of memory");
	if (rc == 0) {
		double *raw = s + n * w;
		linear_scores(x, n, c, coef, t, icpt, nicpt, raw);
		for (int64_t r = 0; r < n; r++) {
			if (binary) { /* the positive class when its score is above 0 */
				ox_ml_binary_scores(raw[r], pt, s + r * 2);
				idx[r] = raw[r] > 0;
				continue;
			}
			memcpy(s + r * w, raw + r * t, (size_t)t * sizeof *s);
			ox_ml_post(pt, s + r * w, w);
			idx[r] = w > 1 ? ox_ml_argmax(s + r * w, w) : 0;
		}
		if (w == 1)
			one_column_labels(s, n, pt, idx);
		rc = ox_ml_classifier_out(k, idx, s, n, w, "classlabels_ints");
	}
	free(idx);
	free(s);
	free(x);
	return rc;
}
