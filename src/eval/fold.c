/* Session-time folding helpers: the operators whose results on constants may be kept,
 * and BatchNormalization folded into Conv weights. */
#include <math.h>
#include <string.h>

#include "fold.h"

bool ox_fold_deterministic(const char *domain, const char *op)
{
	static const char *const random[] = {"RandomNormal", "RandomUniform", "RandomNormalLike",
					     "RandomUniformLike", "Multinomial", "Bernoulli", "Dropout"};
	if (*domain && strcmp(domain, "ai.onnx") != 0)
		return false; /* ai.onnx.ml and model-local functions: not looked at */
	for (size_t i = 0; i < sizeof random / sizeof *random; i++)
		if (strcmp(op, random[i]) == 0)
			return false;
	return true;
}

static bool is_vec(const ox_val *v, int64_t n)
{
	return v && v->kind == OX_TENSOR && v->type == OX_FLOAT && v->rank == 1 && v->dims[0] == n;
}

bool ox_fold_bn(const ox_val *w, const ox_val *b, ox_val *const bn[4], double eps, float *a, ox_val **b2)
{
	if (!w || w->kind != OX_TENSOR || w->type != OX_FLOAT || w->rank < 3 || w->dims[0] <= 0)
		return false;
	int64_t cout = w->dims[0];
	for (int i = 0; i < 4; i++)
		if (!is_vec(bn[i], cout))
			return false;
	if ((b && !is_vec(b, cout)) || !(*b2 = ox_tensor_new(OX_FLOAT, 1, &cout, NULL)))
		return false;
	const float *s = bn[0]->data, *bias = bn[1]->data, *mean = bn[2]->data, *var = bn[3]->data;
	const float *bf = b ? b->data : NULL;
	float *bo = (*b2)->data;
	for (int64_t c = 0; c < cout; c++) {
		/* the scale and shift that BatchNormalization's kernel applies (norm.c) */
		double sc = s[c] / sqrt(var[c] + eps);
		float shift = (float)(bias[c] - mean[c] * sc);
		a[c] = (float)sc;
		bo[c] = (bf ? bf[c] * a[c] : 0) + shift;
	}
	return true;
}

ox_val *ox_fold_scale_rows(const ox_val *w, const float *a)
{
	ox_val *w2 = ox_tensor_new(OX_FLOAT, w->rank, w->dims, NULL);
	if (!w2)
		return NULL;
	int64_t cout = w->dims[0], per = w->count / cout;
	const float *wf = w->data;
	float *wo = w2->data;
	for (int64_t c = 0; c < cout; c++)
		for (int64_t j = 0; j < per; j++)
			wo[c * per + j] = wf[c * per + j] * a[c];
	return w2;
}
