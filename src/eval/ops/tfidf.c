/* TfIdfVectorizer: counts of the n-grams of a pool (int64 or string tokens, with skips)
 * along the last axis, weighted as TF, IDF or TFIDF. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "eval/kernel.h"

/* The pool's n-grams: n-gram j has size len[j], starts at pool item at[j] and counts in
 * output column col[j]. Sizes outside [min, max] are left out but still take an id. */
typedef struct tfidf {
	ox_k *k;
	int64_t min, max, skip, ncols, ngrams;
	int64_t *len, *at, *col;
	const int64_t *pool_i;
	const ProtobufCBinaryData *pool_s;
	int64_t pool_n;
	bool strings;
} tfidf;

static int tfidf_pool(tfidf *T)
{
	const int64_t *counts, *idx;
	int64_t nc = ox_attr_ints(T->k, "ngram_counts", &counts), ni = ox_attr_ints(T->k, "ngram_indexes", &idx);
	if (nc < 0 || ni < 0)
		return ox_kfail(T->k, "attributes ngram_counts and ngram_indexes are required");
	int64_t n = 0, id = 0;
	if (!(T->len = ox_scratch(T->k, T->pool_n, sizeof *T->len, "n-grams")) ||
	    !(T->at = ox_scratch(T->k, T->pool_n, sizeof *T->at, "n-grams")) ||
	    !(T->col = ox_scratch(T->k, T->pool_n, sizeof *T->col, "n-grams")))
		return -1;
	for (int64_t i = 0; i < ni; i++)
		T->ncols = idx[i] + 1 > T->ncols ? idx[i] + 1 : T->ncols;
	for (int64_t s = 0; s < nc; s++) {
		int64_t begin = counts[s], end = s + 1 < nc ? counts[s + 1] : T->pool_n, size = s + 1;
		if (begin < 0 || end > T->pool_n || begin > end)
			return ox_kfail(T->k, "ngram_counts must be ascending offsets into the pool");
		for (int64_t p = begin; p + size <= end; p += size, id++) {
			if (size < T->min || size > T->max)
				continue;
			if (id >= ni || idx[id] < 0)
				return ox_kfail(T->k, "ngram_indexes has no valid column for n-gram %lld", (long long)id);
			T->len[n] = size, T->at[n] = p, T->col[n++] = idx[id];
		}
	}
	T->ngrams = n;
	return 0;
}

static bool item_eq(const tfidf *T, const ox_val *x, int64_t xi, int64_t pi)
{
	if (!T->strings)
		return ox_get_i64(x, xi) == T->pool_i[pi];
	const ox_str *s = &((const ox_str *)x->data)[xi];
	return s->n == T->pool_s[pi].len && (s->n == 0 || memcmp(s->p, T->pool_s[pi].data, s->n) == 0);
}

/* The column of the pool n-gram equal to x[start], x[start + step], ... (size items), or
 * -1; the last of duplicate n-grams wins, as in the reference. */
static int64_t tfidf_find(const tfidf *T, const ox_val *x, int64_t start, int64_t step, int64_t size)
{
	int64_t col = -1;
	for (int64_t j = 0; j < T->ngrams; j++) {
		if (T->len[j] != size)
			continue;
		int64_t i = 0;
		while (i < size && item_eq(T, x, start + i * step, T->at[j] + i))
			i++;
		if (i == size)
			col = T->col[j];
	}
	return col;
}

/* Counts the n-grams of one row; unigrams only at the first skip distance. */
static void tfidf_row(const tfidf *T, const ox_val *x, int64_t row, int64_t c, int64_t *freq)
{
	int64_t first = T->min;
	for (int64_t step = 1; step <= T->skip + 1; step++) {
		for (int64_t s = 0; s < c; s++)
			for (int64_t size = first; size <= T->max && s + (size - 1) * step < c; size++) {
				int64_t col = tfidf_find(T, x, row * c + s, step, size);
				if (col >= 0)
					freq[col]++;
			}
		if (first == 1 && ++first > T->max)
			break;
	}
}

static int tfidf_weigh(tfidf *T, const int64_t *freq, ox_val *y)
{
	const float *w;
	int64_t nw = ox_attr_floats(T->k, "weights", &w);
	bool tf = ox_attr_str_is(T->k, "mode", "", "TF"), idf = ox_attr_str_is(T->k, "mode", "", "IDF");
	if (!tf && !idf && !ox_attr_str_is(T->k, "mode", "", "TFIDF"))
		return ox_kfail(T->k, "mode must be TF, IDF or TFIDF");
	if (nw > 0 && nw < T->ncols)
		return ox_kfail(T->k, "weights has %lld values; expected %lld", (long long)nw, (long long)T->ncols);
	float *out = y->data;
	for (int64_t i = 0; i < y->count; i++) {
		double f = (double)freq[i], wi = nw > 0 ? w[i % T->ncols] : 1;
		out[i] = (float)(tf ? f : idf ? (f > 0 ? wi : 0) : wi * f);
	}
	return 0;
}

int ox_op_TfIdfVectorizer(ox_k *k)
{
	tfidf T = {.k = k};
	ox_val *x = ox_in_tensor(k, 0, true);
	static const int xt[] = {OX_STRING, OX_INT32, OX_INT64, 0};
	if (!x || ox_check_type(k, x, "X", xt) < 0)
		return -1;
	const Onnx__AttributeProto *ps = ox_attr(k, "pool_strings");
	T.strings = x->type == OX_STRING;
	if (T.strings ? !ps : ox_attr_ints(k, "pool_int64s", &T.pool_i) < 0)
		return ox_kfail(k, "attribute %s is required for %s input", T.strings ? "pool_strings" : "pool_int64s",
				ox_elem_label(x->type));
	T.pool_n = T.strings ? (int64_t)ps->n_strings : ox_attr_ints(k, "pool_int64s", &T.pool_i);
	T.pool_s = T.strings ? ps->strings : NULL;
	T.min = ox_attr_int(k, "min_gram_length", 1), T.max = ox_attr_int(k, "max_gram_length", 1);
	T.skip = ox_attr_int(k, "max_skip_count", 0);
	if (x->rank > 2 || T.min < 1 || T.max < T.min || T.skip < 0)
		return ox_kfail(k, "X must be [C] or [N, C], and 1 <= min_gram_length <= max_gram_length, max_skip_count >= 0");
	int64_t rows = x->rank == 2 ? x->dims[0] : 1, c = x->rank == 0 ? 1 : x->dims[x->rank - 1];
	int rc = -1;
	int64_t *freq = NULL;
	if (tfidf_pool(&T) == 0) {
		int64_t dims[2] = {rows, T.ncols};
		ox_val *y = x->rank == 2 ? ox_out_tensor(k, 0, OX_FLOAT, 2, dims) : ox_out_tensor(k, 0, OX_FLOAT, 1, dims + 1);
		if (y && (freq = ox_scratch(k, y->count, sizeof *freq, "counts"))) {
			memset(freq, 0, (size_t)y->count * sizeof *freq);
			for (int64_t r = 0; r < rows && T.ncols; r++)
				tfidf_row(&T, x, r, c, freq + r * T.ncols);
			rc = tfidf_weigh(&T, freq, y);
		}
	}
	free(T.len), free(T.at), free(T.col), free(freq);
	return rc;
}
