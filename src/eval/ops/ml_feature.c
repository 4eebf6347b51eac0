/* ai.onnx.ml feature transforms: ArrayFeatureExtractor, Binarizer, FeatureVectorizer,
 * Imputer, Normalizer, Scaler. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ml.h"

/* Z = X[..., Y]: the last axis picked by the indices Y; a 1-D X gives [1, len(Y)]. */
int ox_ml_ArrayFeatureExtractor(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true), *y = ox_in_tensor(k, 1, true);
	if (!x || !y)
		return -1;
	if (y->type != OX_INT64)
		return ox_kfail(k, "input Y has element type %s; expected int64", ox_elem_label(y->type));
	if (x->rank < 1)
		return ox_kfail(k, "input X is a scalar; expected rank 1 or more");
	int64_t c = x->dims[x->rank - 1], dims[OX_MAX_RANK];
	int rank = x->rank == 1 ? 2 : x->rank;
	if (x->rank == 1)
		dims[0] = 1;
	else
		memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
	dims[rank - 1] = y->count;
	const int64_t *idx = y->data;
	for (int64_t j = 0; j < y->count; j++)
		if (idx[j] < 0 || idx[j] >= c)
			return ox_kfail(k, "index %lld (Y[%lld]) is out of range for the last axis of X, of size %lld",
					(long long)idx[j], (long long)j, (long long)c);
	ox_val *z = ox_out_tensor(k, 0, x->type, rank, dims);
	if (!z)
		return -1;
	int64_t rows = c ? x->count / c : 0;
	size_t es = ox_elem_size(x->type);
	for (int64_t r = 0; r < rows; r++)
		for (int64_t j = 0; j < y->count; j++) {
			const char *src = (const char *)x->data + (size_t)(r * c + idx[j]) * es;
			char *dst = (char *)z->data + (size_t)(r * y->count + j) * es;
			if (x->type != OX_STRING)
				memcpy(dst, src, es);
			else if (!ox_str_set((ox_str *)dst, ((const ox_str *)src)->p, ((const ox_str *)src)->n))
				return ox_kfail(k, "out of memory");
		}
	return 0;
}

/* Y = 1 where X > threshold, else 0, in X's type: NaN compares false, so gives 0 (the
 * spec's "either 0 or 1"; onnxruntime refuses NaN instead). */
int ox_ml_Binarizer(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x || ox_ml_check_numeric(k, x) < 0)
		return -1;
	double th = ox_attr_float(k, "threshold", 0.0f);
	ox_val *y = ox_out_tensor(k, 0, x->type, x->rank, x->dims);
	if (!y)
		return -1;
	for (int64_t i = 0; i < x->count; i++) {
		ox_set_f64(y, i, ox_get_f64(x, i) > th ? 1.0 : 0.0);
	}
	return 0;
}

/* Y = the inputs side by side, input i given inputdimensions[i] columns (cut or padded
 * with zeros), as float [N, sum of inputdimensions]. */
int ox_ml_FeatureVectorizer(ox_k *k)
{
	const int64_t *dim;
	int64_t nd = ox_attr_ints(k, "inputdimensions", &dim), total = 0, n = -1;
	if (nd != k->nin)
		return ox_kfail(k, "inputdimensions has %lld entries for %d inputs", (long long)(nd < 0 ? 0 : nd), k->nin);
	for (int i = 0; i < k->nin; i++) {
		ox_val *x = ox_in_tensor(k, i, true);
		if (!x)
			return -1;
		if (!ox_ml_numeric(x->type) || x->rank < 1)
			return ox_kfail(k, "input %d: expected a float, double, int64 or int32 tensor of rank 1 or more", i);
		int64_t rows = x->rank == 1 ? 1 : x->count / (x->dims[x->rank - 1] ? x->dims[x->rank - 1] : 1);
		if (x->rank > 1 && x->dims[x->rank - 1] == 0)
			rows = x->dims[0];
		if (n >= 0 && rows != n)
			return ox_kfail(k, "input %d has %lld rows, input 0 has %lld", i, (long long)rows, (long long)n);
		if (dim[i] < 0 || dim[i] > OX_MAX_ELEMENTS)
			return ox_kfail(k, "inputdimensions[%d] is %lld; expected 0 to 2^36", i, (long long)dim[i]);
		n = rows;
		total += dim[i];
	}
	int64_t dims[2] = {n < 0 ? 0 : n, total};
	ox_val *y = ox_out_tensor(k, 0, OX_FLOAT, 2, dims);
	if (!y)
		return -1;
	float *out = y->data;
	int64_t at = 0;
	for (int i = 0; i < k->nin; i++) {
		const ox_val *x = k->in[i];
		int64_t c = x->dims[x->rank - 1];
		for (int64_t r = 0; r < dims[0]; r++)
			for (int64_t j = 0; j < dim[i]; j++)
				out[r * total + at + j] = j < c ? (float)ox_get_f64(x, r * c + j) : 0.0f;
		at += dim[i];
	}
	return 0;
}

/* Y = X with each value equal to replaced_value_* (NaN matching NaN) replaced by the
 * imputed value of its column (or the single imputed value). */
int ox_ml_Imputer(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x || ox_ml_check_numeric(k, x) < 0)
		return -1;
	bool isf = ox_elem_is_float(x->type);
	const float *fv;
	const int64_t *iv;
	int64_t n = isf ? ox_attr_floats(k, "imputed_value_floats", &fv) : ox_attr_ints(k, "imputed_value_int64s", &iv);
	int64_t c = x->rank ? x->dims[x->rank - 1] : 1;
	if (n < 1 || (n != 1 && n != c))
		return ox_kfail(k, "%s has %lld values; expected 1 or one per column (%lld)",
				isf ? "imputed_value_floats" : "imputed_value_int64s", (long long)(n < 0 ? 0 : n), (long long)c);
	double rep = isf ? ox_attr_float(k, "replaced_value_float", 0.0f) : (double)ox_attr_int(k, "replaced_value_int64", 0);
	ox_val *y = ox_out_tensor(k, 0, x->type, x->rank, x->dims);
	if (!y)
		return -1;
	for (int64_t i = 0; i < x->count; i++) {
		int64_t j = n == 1 ? 0 : i % c;
		if (isf) {
			double v = ox_get_f64(x, i);
			bool hit = isnan(rep) ? isnan(v) : v == rep;
			ox_set_f64(y, i, hit ? fv[j] : v);
		} else {
			int64_t v = ox_get_i64(x, i);
			ox_set_i64(y, i, v == (int64_t)rep ? iv[j] : v);
		}
	}
	return 0;
}

/* Each row divided by its MAX (the largest value, not magnitude), L1 or L2 norm, as
 * float; a row whose divisor is 0 stays as it is (the spec's zero-divisor rule). */
int ox_ml_Normalizer(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x)
		return -1;
	size_t len;
	const char *norm = ox_attr_str(k, "norm", "MAX", &len);
	int mode = len == 3 && !memcmp(norm, "MAX", 3) ? 0 : len == 2 && !memcmp(norm, "L1", 2) ? 1
					   : len == 2 && !memcmp(norm, "L2", 2)		       ? 2
												       : -1;
	if (mode < 0)
		return ox_kfail(k, "norm '%.*s' is not MAX, L1 or L2", (int)len, norm);
	int64_t n, c;
	double *d = ox_ml_rows(k, x, &n, &c);
	if (!d)
		return -1;
	for (int64_t r = 0; r < n; r++) {
		double *row = d + r * c, s = mode == 0 ? -INFINITY : 0;
		for (int64_t j = 0; j < c; j++)
			s = mode == 0 ? (row[j] > s ? row[j] : s) : mode == 1 ? s + fabs(row[j]) : s + row[j] * row[j];
		if (mode == 2)
			s = sqrt(s);
		for (int64_t j = 0; j < c && s != 0; j++)
			row[j] /= s;
	}
	ox_val *y = ox_out_tensor(k, 0, OX_FLOAT, x->rank, x->dims);
	for (int64_t i = 0; y && i < x->count; i++)
		((float *)y->data)[i] = (float)d[i];
	free(d);
	return y ? 0 : -1;
}

/* Y = (X - offset) * scale, offset and scale one value or one per column, as float. */
int ox_ml_Scaler(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x || ox_ml_check_numeric(k, x) < 0)
		return -1;
	const float *off, *sc;
	int64_t no = ox_attr_floats(k, "offset", &off), ns = ox_attr_floats(k, "scale", &sc);
	int64_t c = x->rank ? x->dims[x->rank - 1] : 1;
	if ((no > 1 && no != c) || (ns > 1 && ns != c))
		return ox_kfail(k, "offset has %lld values and scale %lld; expected 1 or one per column (%lld)",
				(long long)no, (long long)ns, (long long)c);
	ox_val *y = ox_out_tensor(k, 0, OX_FLOAT, x->rank, x->dims);
	if (!y)
		return -1;
	for (int64_t i = 0; i < x->count; i++) {
		double o = no < 1 ? 0 : off[no == 1 ? 0 : i % c], s = ns < 1 ? 1 : sc[ns == 1 ? 0 : i % c];
		((float *)y->data)[i] = (float)((ox_get_f64(x, i) - o) * s);
	}
	return 0;
}
