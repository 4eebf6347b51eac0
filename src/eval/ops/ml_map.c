/* ai.onnx.ml operators on maps: ZipMap (rows to a sequence of maps), CastMap and
 * DictVectorizer (a map to a tensor). */
#include <stdlib.h>
#include <string.h>

#include "ml.h"

/* Z = one map per row of X, from each class label to its column. */
int ox_ml_ZipMap(ox_k *k)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	if (!x)
		return -1;
	if (x->type != OX_FLOAT)
		return ox_kfail(k, "input X has element type %s; expected float", ox_elem_label(x->type));
	const Onnx__AttributeProto *as = ox_attr(k, "classlabels_strings"), *ai = ox_attr(k, "classlabels_int64s");
	if (!!as == !!ai)
		return ox_kfail(k, "expected exactly one of classlabels_strings and classlabels_int64s");
	int64_t n, c, nl = as ? (int64_t)as->n_strings : (int64_t)ai->n_ints;
	if (x->rank != 1 && x->rank != 2)
		return ox_kfail(k, "input X has rank %d; expected 1 or 2", x->rank);
	n = x->rank == 2 ? x->dims[0] : 1;
	c = x->dims[x->rank - 1];
	if (c != nl)
		return ox_kfail(k, "input X has %lld columns but there are %lld class labels", (long long)c, (long long)nl);
	ox_val *seq = ox_sequence_new(0, (size_t)n);
	if (!seq)
		return ox_kfail(k, "out of memory");
	seq->elem_kind = OX_MAP;
	seq->type = as ? OX_STRING : OX_INT64;
	ox_out_set(k, 0, seq);
	for (int64_t r = 0; r < n; r++) {
		ox_val *keys = ox_tensor_new(as ? OX_STRING : OX_INT64, 1, &c, NULL), *vals = ox_tensor_new(OX_FLOAT, 1, &c, NULL);
		if (!keys || !vals || !(seq->items[r] = ox_map_new(keys, vals)))
			return ox_kfail(k, "out of memory");
		memcpy(vals->data, (const float *)x->data + r * c, (size_t)c * sizeof(float));
		for (int64_t j = 0; j < c; j++)
			if (ai)
				((int64_t *)keys->data)[j] = ai->ints[j];
			else if (!ox_str_set(&((ox_str *)keys->data)[j], (const char *)as->strings[j].data, as->strings[j].len))
				return ox_kfail(k, "out of memory");
	}
	return 0;
}

/* The map of input 0: a map(want_key, ...), or NULL after failing. */
static const ox_val *in_map(ox_k *k, int want_key)
{
	const ox_val *m = ox_in(k, 0);
	if (!m)
		ox_kfail(k, "input 0 is required");
	else if (m->kind != OX_MAP)
		ox_kfail(k, "input 0 must be a map");
	else if (want_key && m->items[0]->type != want_key)
		ox_kfail(k, "input 0 is a map(%s, %s); expected %s keys", ox_elem_label(m->items[0]->type),
			 ox_elem_label(m->items[1]->type), ox_elem_label(want_key));
	else
		return m;
	return NULL;
}

static int by_key(const void *a, const void *b)
{
	int64_t x = ((const int64_t *)a)[0], y = ((const int64_t *)b)[0];
	return (x > y) - (x < y);
}

/* Stores value j of the map (float or string) as element i of y (float, int64 or
 * string): strings to numbers as strtod reads them, numbers to the shortest text that
 * reads back as them (onnxruntime writes six decimals; the spec says nothing). */
static int cast_value(ox_k *k, const ox_val *v, int64_t j, ox_val *y, int64_t i)
{
	if (v->type == OX_STRING) {
		const ox_str *s = &((const ox_str *)v->data)[j];
		if (y->type == OX_STRING)
			return ox_str_set(&((ox_str *)y->data)[i], s->p, s->n) ? 0 : ox_kfail(k, "out of memory");
		char *end;
		double d = strtod(s->p ? s->p : "", &end);
		if (!s->n || *end)
			return ox_kfail(k, "map value \"%.*s\" is not a number", (int)(s->n > 40 ? 40 : s->n), s->p ? s->p : "");
		ox_set_f64(y, i, y->type == OX_INT64 ? (double)ox_f64_to_i64(d) : d);
		return 0;
	}
	double d = ox_get_f64(v, j);
	if (y->type != OX_STRING) {
		ox_set_f64(y, i, y->type == OX_INT64 ? (double)ox_f64_to_i64(d) : d);
		return 0;
	}
	char buf[32];
	for (int p = 1; p <= 17; p++) { /* the shortest text that reads back as the value */
		snprintf(buf, sizeof buf, "%.*g", p, d);
		double back = strtod(buf, NULL);
		if (v->type == OX_FLOAT ? (float)back == (float)d : back == d)
			break;
	}
	return ox_str_set(&((ox_str *)y->data)[i], buf, strlen(buf)) ? 0 : ox_kfail(k, "out of memory");
}

/* Y = [1, n]: the values in ascending key order (DENSE), or at the position of their key
 * among max_map columns (SPARSE, absent keys 0), cast as cast_to says. */
int ox_ml_CastMap(ox_k *k)
{
	const ox_val *m = in_map(k, OX_INT64);
	if (!m)
		return -1;
	const ox_val *keys = m->items[0], *vals = m->items[1];
	size_t len;
	const char *to = ox_attr_str(k, "cast_to", "TO_FLOAT", &len);
	int type = len == 8 && !memcmp(to, "TO_FLOAT", 8) ? OX_FLOAT : len == 9 && !memcmp(to, "TO_STRING", 9) ? OX_STRING
					       : len == 8 && !memcmp(to, "TO_INT64", 8)		    ? OX_INT64
													    : 0;
	if (!type)
		return ox_kfail(k, "cast_to '%.*s' is not TO_FLOAT, TO_STRING or TO_INT64", (int)len, to);
	bool sparse = ox_attr_str_is(k, "map_form", "DENSE", "SPARSE");
	if (!sparse && !ox_attr_str_is(k, "map_form", "DENSE", "DENSE"))
		return ox_kfail(k, "map_form is not DENSE or SPARSE");
	int64_t max = ox_attr_int(k, "max_map", 1), n = keys->count;
	if (sparse && max < 0)
		return ox_kfail(k, "max_map is negative");
	int64_t (*order)[2] = malloc((size_t)(n ? n : 1) * sizeof *order), dims[2] = {1, sparse ? max : n};
	if (!order)
		return ox_kfail(k, "out of memory");
	for (int64_t i = 0; i < n; i++)
		order[i][0] = ((const int64_t *)keys->data)[i], order[i][1] = i;
	qsort(order, (size_t)n, sizeof *order, by_key);
	ox_val *y = ox_out_tensor(k, 0, type, 2, dims);
	int rc = y ? 0 : -1;
	for (int64_t i = 0; rc == 0 && sparse && i < max; i++)
		rc = type == OX_STRING ? (ox_str_set(&((ox_str *)y->data)[i], "0", 1) ? 0 : ox_kfail(k, "out of memory"))
				       : (ox_set_f64(y, i, 0), 0);
	for (int64_t i = 0; rc == 0 && i < n; i++) {
		int64_t key = order[i][0];
		if (sparse && (key < 0 || key >= max))
			rc = ox_kfail(k, "map key %lld is outside [0, max_map - 1] = [0, %lld]", (long long)key, (long long)(max - 1));
		else
			rc = cast_value(k, vals, order[i][1], y, sparse ? key : i);
	}
	free(order);
	return rc;
}

static bool same_key(const ox_val *keys, int64_t i, const Onnx__AttributeProto *voc, size_t j)
{
	if (keys->type != OX_STRING)
		return ((const int64_t *)keys->data)[i] == voc->ints[j];
	const ox_str *s = &((const ox_str *)keys->data)[i];
	return s->n == voc->strings[j].len && (!s->n || !memcmp(s->p, voc->strings[j].data, s->n));
}

/* Y = [1, vocabulary]: each value of the map at the position of its key in the
 * vocabulary of the key type; the other positions 0 (or ""). */
int ox_ml_DictVectorizer(ox_k *k)
{
	const ox_val *m = in_map(k, 0);
	if (!m)
		return -1;
	const ox_val *keys = m->items[0], *vals = m->items[1];
	bool str = keys->type == OX_STRING;
	if (!str && keys->type != OX_INT64)
		return ox_kfail(k, "map keys are %s; expected string or int64", ox_elem_label(keys->type));
	const Onnx__AttributeProto *voc = ox_attr(k, str ? "string_vocabulary" : "int64_vocabulary");
	if (!voc)
		return ox_kfail(k, "attribute %s is required for %s keys", str ? "string_vocabulary" : "int64_vocabulary",
				ox_elem_label(keys->type));
	int64_t nv = str ? (int64_t)voc->n_strings : (int64_t)voc->n_ints, dims[2] = {1, nv};
	ox_val *y = ox_out_tensor(k, 0, vals->type, 2, dims);
	if (!y)
		return -1;
	if (vals->type != OX_STRING)
		memset(y->data, 0, (size_t)nv * ox_elem_size(vals->type));
	size_t es = ox_elem_size(vals->type);
	for (int64_t i = 0; i < keys->count; i++) {
		int64_t j = 0;
		while (j < nv && !same_key(keys, i, voc, (size_t)j))
			j++;
		if (j == nv && str) {
			const ox_str *key = &((const ox_str *)keys->data)[i];
			return ox_kfail(k, "map key \"%.*s\" is not in string_vocabulary", (int)(key->n > 60 ? 60 : key->n),
					key->p ? key->p : "");
		}
		if (j == nv)
			return ox_kfail(k, "map key %lld is not in int64_vocabulary", (long long)((const int64_t *)keys->data)[i]);
		const char *src = (const char *)vals->data + (size_t)i * es;
		if (vals->type != OX_STRING)
			memcpy((char *)y->data + (size_t)j * es, src, es);
		else if (!ox_str_set(&((ox_str *)y->data)[j], ((const ox_str *)src)->p, ((const ox_str *)src)->n))
			return ox_kfail(k, "out of memory");
	}
	return 0;
}
