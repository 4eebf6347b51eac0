/* NonMaxSuppression, TfIdfVectorizer, DeformConv and TensorScatter. (ImageDecoder is not implemented:
 * decoding JPEG, PNG, TIFF or WebP needs image libraries the project does not depend on,
 * so the planner reports it as an unsupported operator.) */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "geometry.h"
#include "moreutil.h"

/* ---- NonMaxSuppression ----------------------------------------------------------- */

typedef struct cand {
	double score;
	int64_t idx;
} cand;

/* Higher score first; equal scores by lower box index (the reference's order). */
static int by_score(const void *a, const void *b)
{
	const cand *x = a, *y = b;
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* A box as (x_min, y_min, x_max, y_max). */
static void box_corners(const double *b, bool center, double *c)
{
	if (center) {
		c[0] = b[0] - b[2] / 2, c[2] = b[0] + b[2] / 2;
		c[1] = b[1] - b[3] / 2, c[3] = b[1] + b[3] / 2;
	} else {
		c[0] = fmin(b[1], b[3]), c[2] = fmax(b[1], b[3]);
		c[1] = fmin(b[0], b[2]), c[3] = fmax(b[0], b[2]);
	}
}

static bool suppressed(const double *a, const double *b, bool center, double iou)
{
	double p[4], q[4];
	box_corners(a, center, p);
	box_corners(b, center, q);
	double ix = fmin(p[2], q[2]) - fmax(p[0], q[0]), iy = fmin(p[3], q[3]) - fmax(p[1], q[1]);
	if (ix <= 0 || iy <= 0)
		return false;
	double inter = ix * iy, a1 = (p[2] - p[0]) * (p[3] - p[1]), a2 = (q[2] - q[0]) * (q[3] - q[1]);
	double uni = a1 + a2 - inter;
	if (a1 <= 0 || a2 <= 0 || uni <= 0)
		return false;
	return inter / uni > iou;
}

typedef struct nms {
	int64_t batches, classes, boxes, max_out;
	double iou, score;
	bool has_score, center;
	const double *bx, *sc;
	int64_t *sel, nsel; /* triples */
	cand *c;
	int64_t *kept;
} nms;

static void nms_class(nms *S, int64_t b, int64_t cl)
{
	int64_t n = 0, nkept = 0;
	const double *scores = S->sc + (b * S->classes + cl) * S->boxes, *boxes = S->bx + b * S->boxes * 4;
	for (int64_t i = 0; i < S->boxes; i++)
		if (!S->has_score || scores[i] > S->score)
			S->c[n++] = (cand){scores[i], i};
	qsort(S->c, (size_t)n, sizeof *S->c, by_score);
	for (int64_t i = 0; i < n && nkept < S->max_out; i++) {
		bool keep = true;
		for (int64_t j = 0; keep && j < nkept; j++)
			keep = !suppressed(boxes + S->c[i].idx * 4, boxes + S->kept[j] * 4, S->center, S->iou);
		if (!keep)
			continue;
		S->kept[nkept++] = S->c[i].idx;
		int64_t *t = S->sel + 3 * S->nsel++;
		t[0] = b, t[1] = cl, t[2] = S->c[i].idx;
	}
}

static int nms_inputs(ox_k *k, nms *S, ox_val **bx, ox_val **sc)
{
	static const int ft[] = {OX_FLOAT, OX_FLOAT16, OX_DOUBLE, 0};
	*bx = ox_in_tensor(k, 0, true), *sc = ox_in_tensor(k, 1, true);
	ox_val *mo = ox_in_tensor(k, 2, false), *iou = ox_in_tensor(k, 3, false), *st = ox_in_tensor(k, 4, false);
	if (!*bx || !*sc || ox_more_check_type(k, *bx, "boxes", ft) < 0 || ox_more_check_type(k, *sc, "scores", ft) < 0 ||
	    (iou && ox_more_check_type(k, iou, "iou_threshold", ft) < 0) ||
	    (st && ox_more_check_type(k, st, "score_threshold", ft) < 0))
		return -1;
	if ((*bx)->rank != 3 || (*bx)->dims[2] != 4 || (*sc)->rank != 3 || (*sc)->dims[0] != (*bx)->dims[0] ||
	    (*sc)->dims[2] != (*bx)->dims[1])
		return ox_kfail(k, "boxes must be [batches, boxes, 4] and scores [batches, classes, boxes]");
	S->batches = (*bx)->dims[0], S->boxes = (*bx)->dims[1], S->classes = (*sc)->dims[1];
	S->max_out = mo && mo->count ? ox_more_scalar_i64(mo) : 0;
	if (mo && mo->type != OX_INT64)
		return ox_kfail(k, "max_output_boxes_per_class must be int64, not %s", ox_elem_label(mo->type));
	S->max_out = S->max_out < 0 ? 0 : S->max_out;
	S->iou = iou && iou->count ? ox_more_scalar_f64(iou) : 0;
	S->has_score = st && st->count;
	S->score = S->has_score ? ox_more_scalar_f64(st) : 0;
	S->center = ox_attr_int(k, "center_point_box", 0) != 0;
	return 0;
}

int ox_op_NonMaxSuppression(ox_k *k)
{
	nms S = {0};
	ox_val *bx, *sc;
	if (nms_inputs(k, &S, &bx, &sc) < 0)
		return -1;
	int64_t most = S.max_out < S.boxes ? S.max_out : S.boxes, rc = -1;
	int64_t nsel = ox_more_mul(ox_more_mul(S.batches, S.classes), most);
	if (nsel < 0 || nsel > OX_MAX_ELEMENTS / 3)
		return ox_kfail(k, "the selection could hold more than %lld boxes", (long long)(OX_MAX_ELEMENTS / 3));
	double *b = ox_more_load(k, bx, "boxes"), *s = b ? ox_more_load(k, sc, "scores") : NULL;
	S.bx = b, S.sc = s;
	if (s && (S.c = ox_more_alloc(k, S.boxes, sizeof *S.c, "candidates")) &&
	    (S.kept = ox_more_alloc(k, S.boxes, sizeof *S.kept, "candidates")) &&
	    (S.sel = ox_more_alloc(k, nsel * 3, sizeof *S.sel, "selection"))) {
		for (int64_t i = 0; i < S.batches; i++)
			for (int64_t j = 0; j < S.classes; j++)
				nms_class(&S, i, j);
		int64_t dims[2] = {S.nsel, 3};
		ox_val *y = ox_out_tensor(k, 0, OX_INT64, 2, dims);
		if (y && S.nsel)
			memcpy(y->data, S.sel, (size_t)(3 * S.nsel) * sizeof *S.sel);
		rc = y ? 0 : -1;
	}
	free(b), free(s), free(S.c), free(S.kept), free(S.sel);
	return (int)rc;
}

/* ---- TfIdfVectorizer --------------------------------------------------------------- */

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
	if (!(T->len = ox_more_alloc(T->k, T->pool_n, sizeof *T->len, "n-grams")) ||
	    !(T->at = ox_more_alloc(T->k, T->pool_n, sizeof *T->at, "n-grams")) ||
	    !(T->col = ox_more_alloc(T->k, T->pool_n, sizeof *T->col, "n-grams")))
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
	if (!x || ox_more_check_type(k, x, "X", xt) < 0)
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
		if (y && (freq = ox_more_alloc(k, y->count, sizeof *freq, "counts"))) {
			memset(freq, 0, (size_t)y->count * sizeof *freq);
			for (int64_t r = 0; r < rows && T.ncols; r++)
				tfidf_row(&T, x, r, c, freq + r * T.ncols);
			rc = tfidf_weigh(&T, freq, y);
		}
	}
	free(T.len), free(T.at), free(T.col), free(freq);
	return rc;
}

/* ---- DeformConv -------------------------------------------------------------------- */

typedef struct deform {
	ox_conv_geom g;
	int64_t n, c, m, group, ogroup, insz, outsz, ksz;
	int64_t istr[OX_MAX_RANK];
	const double *x, *w, *off, *mask, *bias;
} deform;

/* The kernel tap kk of output position o, displaced by its offsets, sampled bilinearly
 * (zero outside) in every channel of offset group og of image n: col[c][kk][o]. */
static void deform_tap(const deform *D, int64_t n, int64_t og, int64_t o, int64_t kk, double *col)
{
	const ox_conv_geom *g = &D->g;
	int r = g->nsp;
	int64_t base[OX_MAX_RANK], oc = o, kc = kk;
	double frac[OX_MAX_RANK];
	bool inside = true;
	for (int d = r - 1; d >= 0; d--) {
		int64_t od = oc % g->out[d], kd = kc % g->kernel[d];
		oc /= g->out[d], kc /= g->kernel[d];
		int64_t ch = ((og * D->ksz + kk) * r + d);
		double p = (double)(od * g->stride[d] - g->pad0[d] + kd * g->dil[d]) +
			   D->off[((n * D->ogroup * D->ksz * r) + ch) * D->outsz + o];
		inside = inside && p > -1 && p < (double)g->in[d];
		double f = inside ? floor(p) : 0;
		base[d] = (int64_t)f, frac[d] = p - f;
	}
	double m = D->mask ? D->mask[(n * D->ogroup * D->ksz + og * D->ksz + kk) * D->outsz + o] : 1;
	int64_t cpg = D->c / D->ogroup;
	for (int64_t c = og * cpg; c < (og + 1) * cpg; c++) {
		double v = 0;
		const double *src = D->x + (n * D->c + c) * D->insz;
		for (int64_t corner = 0; inside && corner < ((int64_t)1 << r); corner++) {
			double wt = 1;
			int64_t at = 0;
			for (int d = 0; d < r && wt != 0; d++) {
				int64_t i = base[d] + ((corner >> d) & 1);
				wt *= (corner >> d) & 1 ? frac[d] : 1 - frac[d];
				wt = i < 0 || i >= g->in[d] ? 0 : wt;
				at += i * D->istr[d];
			}
			v += wt != 0 ? wt * src[at] : 0;
		}
		col[(c * D->ksz + kk) * D->outsz + o] = v * m;
	}
}

static void deform_image(const deform *D, int64_t n, double *col, double *y)
{
	for (int64_t og = 0; og < D->ogroup; og++)
		for (int64_t kk = 0; kk < D->ksz; kk++)
			for (int64_t o = 0; o < D->outsz; o++)
				deform_tap(D, n, og, o, kk, col);
	int64_t cg = D->c / D->group, mg = D->m / D->group, rows = cg * D->ksz;
	for (int64_t m = 0; m < D->m; m++) {
		double *out = y + (n * D->m + m) * D->outsz;
		const double *cols = col + (m / mg) * rows * D->outsz;
		for (int64_t o = 0; o < D->outsz; o++)
			out[o] = D->bias ? D->bias[m] : 0;
		for (int64_t r = 0; r < rows; r++) {
			double wv = D->w[m * rows + r];
			for (int64_t o = 0; wv != 0 && o < D->outsz; o++)
				out[o] += wv * cols[r * D->outsz + o];
		}
	}
}

static int deform_shape(ox_k *k, const ox_val *x, const ox_val *w, const ox_val *off, const ox_val *mask,
			const ox_val *b, deform *D)
{
	if (x->rank < 3 || w->rank != x->rank || off->rank != x->rank)
		return ox_kfail(k, "X, W and offset must have the same rank, 3 or more");
	D->n = x->dims[0], D->c = x->dims[1], D->m = w->dims[0];
	D->group = ox_attr_int(k, "group", 1), D->ogroup = ox_attr_int(k, "offset_group", 1);
	if (D->group < 1 || D->ogroup < 1 || D->c % D->group || D->m % D->group || w->dims[1] * D->group != D->c ||
	    D->c % D->ogroup)
		return ox_kfail(k, "group and offset_group must divide the channels, and W must have C / group inputs");
	if (ox_conv_attrs(k, x, w, &D->g) < 0 || ox_conv_out(k, &D->g) < 0)
		return -1;
	D->insz = D->outsz = D->ksz = 1;
	for (int d = 0; d < D->g.nsp; d++) {
		if (off->dims[2 + d] != D->g.out[d])
			return ox_kfail(k, "offset's spatial dims must be the output's (%lld at dim %d)",
					(long long)D->g.out[d], d);
		D->insz *= D->g.in[d], D->outsz *= D->g.out[d], D->ksz *= D->g.kernel[d];
	}
	ox_more_strides(D->g.nsp, D->g.in, D->istr);
	if (off->dims[0] != D->n || off->dims[1] != D->ogroup * D->ksz * D->g.nsp)
		return ox_kfail(k, "offset must have shape [N, offset_group * kernel size * %d, output dims...]", D->g.nsp);
	if (mask && mask->count != D->n * D->ogroup * D->ksz * D->outsz)
		return ox_kfail(k, "mask must have shape [N, offset_group * kernel size, output dims...]");
	if (b && b->count != D->m)
		return ox_kfail(k, "B must have one value per output channel");
	return 0;
}

int ox_op_DeformConv(ox_k *k)
{
	static const int ft[] = {OX_FLOAT, OX_FLOAT16, OX_DOUBLE, OX_BFLOAT16, 0};
	ox_val *x = ox_in_tensor(k, 0, true), *w = ox_in_tensor(k, 1, true), *off = ox_in_tensor(k, 2, true);
	ox_val *b = ox_in_tensor(k, 3, false), *mask = ox_in_tensor(k, 4, false);
	deform D = {0};
	if (!x || !w || !off || ox_more_check_type(k, x, "X", ft) < 0 || deform_shape(k, x, w, off, mask, b, &D) < 0)
		return -1;
	int64_t dims[OX_MAX_RANK] = {D.n, D.m};
	for (int d = 0; d < D.g.nsp; d++)
		dims[2 + d] = D.g.out[d];
	ox_val *y = ox_out_tensor(k, 0, x->type, x->rank, dims);
	double *xd = y ? ox_more_load(k, x, "X") : NULL, *wd = xd ? ox_more_load(k, w, "W") : NULL;
	double *od = wd ? ox_more_load(k, off, "offset") : NULL;
	double *md = od && mask ? ox_more_load(k, mask, "mask") : NULL, *bd = od && b ? ox_more_load(k, b, "B") : NULL;
	bool ok = od && (!mask || md) && (!b || bd);
	int64_t ncol = ox_more_mul(ox_more_mul(D.c, D.ksz), D.outsz);
	double *col = ok && ncol >= 0 ? ox_more_alloc(k, ncol, 8, "columns") : NULL;
	double *yd = col ? ox_more_alloc(k, y->count, sizeof *yd, "output") : NULL;
	if (yd) {
		D.x = xd, D.w = wd, D.off = od, D.mask = md, D.bias = bd;
		for (int64_t n = 0; n < D.n; n++)
			deform_image(&D, n, col, yd);
		ox_more_store(y, yd);
	} else if (ok && ncol < 0) {
		ox_kfail(k, "the column buffer would have more than %lld elements", (long long)OX_MAX_ELEMENTS);
	}
	free(xd), free(wd), free(od), free(md), free(bd), free(col), free(yd);
	return yd ? 0 : -1;
}

/* ---- TensorScatter ----------------------------------------------------------------- */

/* Copies element run [from, from + n) of src to [to, to + n) of dst (any element type). */
static int copy_run(ox_k *k, ox_val *dst, int64_t to, const ox_val *src, int64_t from, int64_t n)
{
	if (dst->type != OX_STRING) {
		size_t es = ox_elem_size(dst->type);
		memcpy((char *)dst->data + (size_t)to * es, (const char *)src->data + (size_t)from * es, (size_t)n * es);
		return 0;
	}
	for (int64_t i = 0; i < n; i++) {
		const ox_str *s = &((const ox_str *)src->data)[from + i];
		if (!ox_str_set(&((ox_str *)dst->data)[to + i], s->p, s->n))
			return ox_kfail(k, "out of memory");
	}
	return 0;
}

static int scatter_check(ox_k *k, const ox_val *cache, const ox_val *upd, const ox_val *wi, int axis)
{
	if (upd->type != cache->type || upd->rank != cache->rank)
		return ox_kfail(k, "update must have past_cache's type and rank");
	for (int i = 0; i < cache->rank; i++)
		if (i == axis ? upd->dims[i] > cache->dims[i] : upd->dims[i] != cache->dims[i])
			return ox_kfail(k, "update's dimension %d (%lld) does not fit past_cache's (%lld)", i,
					(long long)upd->dims[i], (long long)cache->dims[i]);
	if (wi && (wi->type != OX_INT64 || wi->rank != 1 || wi->dims[0] != cache->dims[0]))
		return ox_kfail(k, "write_indices must be an int64 vector of one index per batch");
	return 0;
}

int ox_op_TensorScatter(ox_k *k)
{
	ox_val *cache = ox_in_tensor(k, 0, true), *upd = ox_in_tensor(k, 1, true), *wi = ox_in_tensor(k, 2, false);
	if (!cache || !upd || (!wi && ox_in(k, 2)))
		return -1;
	int axis = ox_axis(k, ox_attr_int(k, "axis", -2), cache->rank);
	bool circular = ox_attr_str_is(k, "mode", "linear", "circular");
	if (axis < 0 || scatter_check(k, cache, upd, wi, axis) < 0)
		return -1;
	if (axis == 0)
		return ox_kfail(k, "axis must not be the batch axis 0");
	if (!circular && !ox_attr_str_is(k, "mode", "linear", "linear"))
		return ox_kfail(k, "mode must be linear or circular");
	ox_val *y = ox_out_tensor(k, 0, cache->type, cache->rank, cache->dims);
	if (!y || !ox_tensor_copy_data(y, cache))
		return y ? ox_kfail(k, "out of memory") : -1;
	int64_t outer = 1, inner = 1, max = cache->dims[axis], len = upd->dims[axis];
	for (int i = 0; i < axis; i++)
		outer *= cache->dims[i];
	for (int i = axis + 1; i < cache->rank; i++)
		inner *= cache->dims[i];
	int64_t per_batch = cache->dims[0] ? outer / cache->dims[0] : 0;
	for (int64_t o = 0; o < outer; o++)
		for (int64_t s = 0; s < len; s++) {
			int64_t at = (wi ? ((const int64_t *)wi->data)[o / per_batch] : 0) + s;
			at = circular && max ? ((at % max) + max) % max : at;
			if (at < 0 || at >= max)
				return ox_kfail(k, "write index %lld is outside the cache's %lld positions", (long long)at,
						(long long)max);
			if (copy_run(k, y, (o * max + at) * inner, upd, (o * len + s) * inner, inner) < 0)
				return -1;
		}
	return 0;
}
