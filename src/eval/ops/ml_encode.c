/* ai.onnx.ml encoders: LabelEncoder (opsets 1, 2 and 4), CategoryMapper and
 * OneHotEncoder. Keys are looked up in a sorted index: vocabularies can be large. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ml.h"

/* One key of a vocabulary, comparable whatever its type. */
typedef struct key {
	int type; /* OX_STRING, OX_INT64 (every integer type) or OX_DOUBLE (float, double) */
	int64_t i;
	double f;
	const char *s;
	size_t n;
	int64_t pos;
} key;

static int cmp_key(const key *a, const key *b)
{
	if (a->type == OX_STRING) {
		size_t n = a->n < b->n ? a->n : b->n;
		int c = n ? memcmp(a->s, b->s, n) : 0;
		return c ? c : (a->n > b->n) - (a->n < b->n);
	}
	if (a->type == OX_INT64)
		return (a->i > b->i) - (a->i < b->i);
	if (isnan(a->f) || isnan(b->f)) /* NaN after every number, and equal to NaN */
		return isnan(a->f) - isnan(b->f);
	return (a->f > b->f) - (a->f < b->f);
}

static int cmp_sort(const void *a, const void *b)
{
	int c = cmp_key(a, b);
	return c ? c : (((const key *)a)->pos > ((const key *)b)->pos) - (((const key *)a)->pos < ((const key *)b)->pos);
}

static int key_class(int type)
{
	return type == OX_STRING ? OX_STRING : ox_elem_is_float(type) ? OX_DOUBLE : OX_INT64;
}

static key key_of(const ox_val *t, int64_t i)
{
	key e = {key_class(t->type), 0, 0, NULL, 0, i};
	if (e.type == OX_STRING) {
		const ox_str *s = &((const ox_str *)t->data)[i];
		e.s = s->p ? s->p : "", e.n = s->n;
	} else if (e.type == OX_INT64) {
		e.i = ox_get_i64(t, i);
	} else {
		e.f = ox_get_f64(t, i);
	}
	return e;
}

/* The position of the first key equal to x in the sorted index, or -1. */
static int64_t lookup(const key *idx, int64_t n, const key *x)
{
	int64_t lo = 0, hi = n;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (cmp_key(&idx[mid], x) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && cmp_key(&idx[lo], x) == 0 ? idx[lo].pos : -1;
}

/* Y[i] = vals[position of X[i] in keys], or dflt (a scalar of vals' type). A NaN is found
 * among the keys only from LabelEncoder-4 on (nan_match), whose keys compare bitwise. */
static int encode(ox_k *k, const ox_val *x, const ox_val *keys, const ox_val *vals, const ox_val *dflt,
		  bool nan_match)
{
	if (key_class(x->type) != key_class(keys->type))
		return ox_kfail(k, "input X has element type %s but the keys are %s", ox_elem_label(x->type),
				ox_elem_label(keys->type));
	if (keys->count != vals->count)
		return ox_kfail(k, "%lld keys but %lld values", (long long)keys->count, (long long)vals->count);
	key *idx = malloc((size_t)(keys->count ? keys->count : 1) * sizeof *idx);
	if (!idx)
		return ox_kfail(k, "out of memory");
	for (int64_t i = 0; i < keys->count; i++)
		idx[i] = key_of(keys, i);
	qsort(idx, (size_t)keys->count, sizeof *idx, cmp_sort);
	ox_val *y = ox_out_tensor(k, 0, vals->type, x->rank, x->dims);
	size_t es = ox_elem_size(vals->type);
	int rc = y ? 0 : -1;
	for (int64_t i = 0; rc == 0 && i < x->count; i++) {
		key e = key_of(x, i);
		int64_t p = e.type == OX_DOUBLE && isnan(e.f) && !nan_match ? -1 : lookup(idx, keys->count, &e);
		const char *src = p >= 0 ? (const char *)vals->data + (size_t)p * es : (const char *)dflt->data;
		char *dst = (char *)y->data + (size_t)i * es;
		if (vals->type != OX_STRING)
			memcpy(dst, src, es);
		else if (!ox_str_set((ox_str *)dst, ((const ox_str *)src)->p, ((const ox_str *)src)->n))
			rc = ox_kfail(k, "out of memory");
	}
	free(idx);
	return rc;
}

/* A 1-D tensor from an INTS, FLOATS or STRINGS attribute (NULL after failing). */
static ox_val *attr_column(ox_k *k, const Onnx__AttributeProto *a, int type)
{
	int64_t n = type == OX_STRING ? (int64_t)a->n_strings : type == OX_FLOAT ? (int64_t)a->n_floats : (int64_t)a->n_ints;
	ox_val *t = ox_tensor_new(type, 1, &n, NULL);
	if (!t) {
		ox_kfail(k, "out of memory");
		return NULL;
	}
	for (int64_t i = 0; i < n; i++)
		if (type == OX_FLOAT) {
			((float *)t->data)[i] = a->floats[i];
		} else if (type == OX_INT64) {
			((int64_t *)t->data)[i] = a->ints[i];
		} else if (!ox_str_set(&((ox_str *)t->data)[i], (const char *)a->strings[i].data, a->strings[i].len)) {
			ox_val_unref(t);
			ox_kfail(k, "out of memory");
			return NULL;
		}
	return t;
}

/* "keys" or "values" of LabelEncoder 2 and 4: from PREFIX_strings, _int64s, _floats, or
 * (version 4, tensors) _tensor; exactly one of them. */
static ox_val *encoder_column(ox_k *k, const char *prefix, bool tensors)
{
	static const char *const sfx[] = {"strings", "int64s", "floats"};
	static const int types[] = {OX_STRING, OX_INT64, OX_FLOAT};
	ox_val *found = NULL;
	int count = 0;
	char name[64];
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof name, "%s_%s", prefix, sfx[i]);
		const Onnx__AttributeProto *a = ox_attr(k, name);
		if (a && count++ == 0 && !(found = attr_column(k, a, types[i])))
			return NULL;
	}
	snprintf(name, sizeof name, "%s_tensor", prefix);
	const Onnx__TensorProto *tp = tensors ? ox_attr_tensor(k, name) : NULL;
	if (tp && count++ == 0 && !(found = ox_val_from_attr_tensor(k, tp)))
		return NULL;
	if (count != 1) {
		ox_val_unref(found);
		ox_kfail(k, "expected exactly one of %s_strings, %s_int64s, %s_floats%s; found %d", prefix, prefix, prefix,
			 tensors ? " and the _tensor form" : "", count);
		return NULL;
	}
	return found;
}

/* The default for values of type t: default_tensor (LabelEncoder-4; the session refuses it
 * elsewhere), or default_string, default_int64, default_float (cast to t). */
static ox_val *encoder_default(ox_k *k, int t)
{
	const Onnx__TensorProto *tp = ox_attr_tensor(k, "default_tensor");
	if (tp) {
		ox_val *d = ox_val_from_attr_tensor(k, tp);
		if (d && (d->type != t || d->count != 1)) {
			ox_kfail(k, "default_tensor is %s of %lld elements; expected one %s", ox_elem_label(d->type),
				 (long long)d->count, ox_elem_label(t));
			ox_val_unref(d);
			return NULL;
		}
		return d;
	}
	ox_val *d = ox_tensor_new(t, 0, NULL, NULL);
	if (!d) {
		ox_kfail(k, "out of memory");
		return NULL;
	}
	size_t len;
	if (t == OX_STRING) {
		const char *s = ox_attr_str(k, "default_string", "_Unused", &len);
		if (!ox_str_set(d->data, s, len)) {
			ox_val_unref(d);
			ox_kfail(k, "out of memory");
			return NULL;
		}
	} else if (ox_elem_is_float(t)) {
		ox_set_f64(d, 0, ox_attr_float(k, "default_float", -0.0f));
	} else {
		ox_set_i64(d, 0, ox_attr_int(k, "default_int64", -1));
	}
	return d;
}

/* encode with the columns and default made for it, which it releases; -1 when making one
 * of them failed (and said why). nan_match: NaN keys match NaN (LabelEncoder 4). */
static int encode_owned(ox_k *k, const ox_val *x, ox_val *keys, ox_val *vals, ox_val *dflt, bool nan_match)
{
	int rc = keys && vals && dflt ? encode(k, x, keys, vals, dflt, nan_match) : -1;
	ox_val_unref(keys);
	ox_val_unref(vals);
	ox_val_unref(dflt);
	return rc;
}

/* Version 1: strings to their index in classes_strings, or indices to those strings. */
int ox_ml_LabelEncoder_1(ox_k *k)
{
	const ox_val *x = ox_in_tensor(k, 0, true);
	if (!x)
		return -1;
	const Onnx__AttributeProto *a = ox_attr(k, "classes_strings");
	if (!a)
		return ox_kfail(k, "attribute classes_strings is required");
	bool to_int = x->type == OX_STRING;
	if (!to_int && x->type != OX_INT64)
		return ox_kfail(k, "input X has element type %s; expected string or int64", ox_elem_label(x->type));
	int64_t n = (int64_t)a->n_strings;
	ox_val *names = attr_column(k, a, OX_STRING), *ids = ox_tensor_new(OX_INT64, 1, &n, NULL);
	ox_val *dflt = encoder_default(k, to_int ? OX_INT64 : OX_STRING);
	if (!ids)
		ox_kfail(k, "out of memory");
	for (int64_t i = 0; ids && i < n; i++)
		((int64_t *)ids->data)[i] = i;
	return encode_owned(k, x, to_int ? names : ids, to_int ? ids : names, dflt, false);
}

/* Versions 2 and 4 (v4: the _tensor attributes, and NaN keys match). */
static int label_encoder(ox_k *k, bool v4)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x)
		return -1;
	ox_val *keys = encoder_column(k, "keys", v4), *vals = keys ? encoder_column(k, "values", v4) : NULL;
	return encode_owned(k, x, keys, vals, vals ? encoder_default(k, vals->type) : NULL, v4);
}

OX_KERNEL(ox_ml_LabelEncoder_2, label_encoder(k, false))
OX_KERNEL(ox_ml_LabelEncoder_4, label_encoder(k, true))

/* strings to int64 and back through the pairs (cats_strings[i], cats_int64s[i]). */
int ox_ml_CategoryMapper(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x)
		return -1;
	if (x->type != OX_STRING && x->type != OX_INT64)
		return ox_kfail(k, "input X has element type %s; expected string or int64", ox_elem_label(x->type));
	const Onnx__AttributeProto *as = ox_attr(k, "cats_strings"), *ai = ox_attr(k, "cats_int64s");
	if (!as || !ai || as->n_strings != ai->n_ints)
		return ox_kfail(k, "cats_strings and cats_int64s are required and of the same length");
	bool to_int = x->type == OX_STRING;
	ox_val *s = attr_column(k, as, OX_STRING), *i = s ? attr_column(k, ai, OX_INT64) : NULL;
	ox_val *dflt = i ? encoder_default(k, to_int ? OX_INT64 : OX_STRING) : NULL;
	/* string and int64 keys: no NaN to match */
	return encode_owned(k, x, to_int ? s : i, to_int ? i : s, dflt, false);
}

/* Y = X.shape + [categories] floats, 1 where X equals the category. Numbers are compared
 * as int64 with cats_int64s, strings with cats_strings. */
int ox_ml_OneHotEncoder(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x)
		return -1;
	bool str = x->type == OX_STRING;
	if (!str && x->type != OX_INT64 && x->type != OX_INT32 && x->type != OX_FLOAT && x->type != OX_DOUBLE)
		return ox_kfail(k, "input X has element type %s; expected string, int64, int32, float or double",
				ox_elem_label(x->type));
	const Onnx__AttributeProto *a = ox_attr(k, str ? "cats_strings" : "cats_int64s");
	if (!a || !(str ? a->n_strings : a->n_ints))
		return ox_kfail(k, "attribute %s is required for %s input", str ? "cats_strings" : "cats_int64s",
				ox_elem_label(x->type));
	if (x->rank >= OX_MAX_RANK)
		return ox_kfail(k, "input X has rank %d; the output would exceed rank 16", x->rank);
	ox_val *cats = attr_column(k, a, str ? OX_STRING : OX_INT64);
	key *idx = cats ? malloc((size_t)cats->count * sizeof *idx) : NULL;
	if (!idx) {
		ox_val_unref(cats);
		return cats ? ox_kfail(k, "out of memory") : -1;
	}
	for (int64_t j = 0; j < cats->count; j++) /* sorted, for categories by the thousand */
		idx[j] = key_of(cats, j);
	qsort(idx, (size_t)cats->count, sizeof *idx, cmp_sort);
	int64_t dims[OX_MAX_RANK], nc = cats->count;
	memcpy(dims, x->dims, (size_t)x->rank * sizeof *dims);
	dims[x->rank] = nc;
	ox_val *y = ox_out_tensor(k, 0, OX_FLOAT, x->rank + 1, dims);
	int rc = y ? 0 : -1;
	bool zeros = ox_attr_int(k, "zeros", 1) != 0;
	for (int64_t i = 0; rc == 0 && i < x->count; i++) {
		float *row = (float *)y->data + i * nc;
		memset(row, 0, (size_t)nc * sizeof *row);
		key e = str ? key_of(x, i) : (key){OX_INT64, ox_get_i64(x, i), 0, NULL, 0, i};
		int64_t j = lookup(idx, nc, &e);
		if (j >= 0)
			row[j] = 1;
		else if (!zeros)
			rc = ox_kfail(k, "X[%lld] is not one of the categories, and zeros is 0", (long long)i);
	}
	free(idx);
	ox_val_unref(cats);
	return rc;
}
