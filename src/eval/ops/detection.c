/* NonMaxSuppression: greedy selection of boxes per batch and class by score, dropping
 * boxes that overlap a kept one by more than the IoU threshold. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "eval/kernel.h"

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
	if (!*bx || !*sc || ox_check_type(k, *bx, "boxes", ft) < 0 || ox_check_type(k, *sc, "scores", ft) < 0 ||
	    (iou && ox_check_type(k, iou, "iou_threshold", ft) < 0) ||
	    (st && ox_check_type(k, st, "score_threshold", ft) < 0))
		return -1;
	if ((*bx)->rank != 3 || (*bx)->dims[2] != 4 || (*sc)->rank != 3 || (*sc)->dims[0] != (*bx)->dims[0] ||
	    (*sc)->dims[2] != (*bx)->dims[1])
		return ox_kfail(k, "boxes must be [batches, boxes, 4] and scores [batches, classes, boxes]");
	S->batches = (*bx)->dims[0], S->boxes = (*bx)->dims[1], S->classes = (*sc)->dims[1];
	S->max_out = mo && mo->count ? ox_scalar_i64(mo) : 0;
	if (mo && mo->type != OX_INT64)
		return ox_kfail(k, "max_output_boxes_per_class must be int64, not %s", ox_elem_label(mo->type));
	S->max_out = S->max_out < 0 ? 0 : S->max_out;
	S->iou = iou && iou->count ? ox_scalar_f64(iou) : 0;
	S->has_score = st && st->count;
	S->score = S->has_score ? ox_scalar_f64(st) : 0;
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
	int64_t nsel = ox_mul_count(ox_mul_count(S.batches, S.classes), most);
	if (nsel < 0 || nsel > OX_MAX_ELEMENTS / 3)
		return ox_kfail(k, "the selection could hold more than %lld boxes", (long long)(OX_MAX_ELEMENTS / 3));
	double *b = ox_load_f64(k, bx, "boxes"), *s = b ? ox_load_f64(k, sc, "scores") : NULL;
	S.bx = b, S.sc = s;
	if (s && (S.c = ox_scratch(k, S.boxes, sizeof *S.c, "candidates")) &&
	    (S.kept = ox_scratch(k, S.boxes, sizeof *S.kept, "candidates")) &&
	    (S.sel = ox_scratch(k, nsel * 3, sizeof *S.sel, "selection"))) {
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
