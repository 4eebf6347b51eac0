/* ai.onnx.ml tree ensembles: TreeEnsembleRegressor and TreeEnsembleClassifier (opsets 1,
 * 3 and 5: nodes named by (tree id, node id)) and TreeEnsemble (opset 5: nodes and leaves
 * by index). Both compile into one flat forest that every row walks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../simd/ml_simd.h"
#include "ml.h"

enum { LEQ, LT, GTE, GT, EQ, NEQ, MEMBER, LEAF };

typedef struct tnode {
	int mode;
	bool nan_true;     /* a missing (NaN) feature takes the true branch */
	int64_t feature;
	double split;
	int64_t t, f;      /* the next nodes */
	int64_t lo, hi;    /* LEAF: its weights w[lo..hi); MEMBER: its set m[lo..hi) */
} tnode;

typedef struct forest {
	tnode *nodes;
	int64_t nnodes, *roots, ntrees;
	int64_t *target;   /* per weight: its target or class */
	double *w, *m;     /* weights; membership sets */
	double *base;      /* base_values, added to every row's scores: nbase of them (0, 1 or one per target) */
	int64_t nbase;
	bool nan_compare;  /* opset 5 TreeEnsemble: NaN takes the branch its comparison gives, or true when tracked */
	bool single;       /* sums round to float after each weight, as for float input onnxruntime does */
	ox_ml_trees flat;  /* when every node has one ordered mode: the forest for ox_ml_vec.walk */
	int32_t *flat_mem;
	double *flat_split;
} forest;

static void forest_free(forest *F)
{
	void *owned[] = {F->nodes, F->roots, F->target, F->w, F->m, F->base, F->flat_mem, F->flat_split};
	for (size_t i = 0; i < sizeof owned / sizeof *owned; i++)
		free(owned[i]);
}

static bool branch(const forest *F, const tnode *nd, double x)
{
	if (isnan(x) && (!F->nan_compare || nd->nan_true))
		return nd->nan_true;
	switch (nd->mode) {
	case LEQ: return x <= nd->split;
	case LT: return x < nd->split;
	case GTE: return x >= nd->split;
	case GT: return x > nd->split;
	case EQ: return x == nd->split;
	case NEQ: return x != nd->split;
	default:
		for (int64_t i = nd->lo; i < nd->hi; i++)
			if (F->m[i] == x)
				return true;
		return false;
	}
}

/* The leaf that row x reaches in tree t; -1 when the walk does not end (a cycle). */
static int64_t walk(const forest *F, int64_t t, const double *x)
{
	int64_t i = F->roots[t];
	for (int64_t steps = 0; F->nodes[i].mode != LEAF; steps++) {
		if (steps > F->nnodes)
			return -1;
		const tnode *nd = &F->nodes[i];
		i = branch(F, nd, x[nd->feature]) ? nd->t : nd->f;
	}
	return i;
}

/* Checks that every feature a node reads is within the c columns of X. */
static int check_features(ox_k *k, const forest *F, int64_t c)
{
	for (int64_t i = 0; i < F->nnodes; i++)
		if (F->nodes[i].mode != LEAF && (F->nodes[i].feature < 0 || F->nodes[i].feature >= c))
			return ox_kfail(k, "node %lld reads feature %lld, but X has %lld columns", (long long)i,
					(long long)F->nodes[i].feature, (long long)c);
	return 0;
}

/* The flat form of F (F->flat) when every internal node has the same ordered mode, the
 * form ox_ml_vec.walk takes; otherwise F->flat.t stays NULL. Returns -1 only after
 * failing (out of memory). */
static int flatten(ox_k *k, forest *F)
{
	int mode = -1;
	for (int64_t i = 0; i < F->nnodes; i++)
		if (F->nodes[i].mode != LEAF && (mode = mode < 0 ? F->nodes[i].mode : mode) != F->nodes[i].mode)
			return 0;
	if (mode > GT || F->nnodes >= INT32_MAX / 2)
		return 0;
	size_t nn = (size_t)F->nnodes;
	if (!(F->flat_mem = malloc(4 * nn * sizeof(int32_t))) || !(F->flat_split = malloc(nn * sizeof(double))))
		return ox_kfail(k, "out of memory");
	int32_t *feat = F->flat_mem, *t = feat + nn, *f = t + nn, *nan_true = f + nn;
	for (size_t i = 0; i < nn; i++) {
		const tnode *nd = &F->nodes[i];
		bool leaf = nd->mode == LEAF;
		feat[i] = leaf ? 0 : (int32_t)nd->feature, t[i] = leaf ? -1 : (int32_t)nd->t;
		f[i] = leaf ? -1 : (int32_t)nd->f, nan_true[i] = nd->nan_true ? -1 : 0;
		F->flat_split[i] = nd->split;
	}
	F->flat = (ox_ml_trees){mode < 0 ? 0 : mode, (int32_t)nn, feat, t, f, nan_true, F->flat_split};
	return 0;
}

/* Scores s[n * nt]: aggregated, base values added, post_transform applied. */
/* ---- aggregation ------------------------------------------------------------------ */

enum { AGG_AVERAGE, AGG_SUM, AGG_MIN, AGG_MAX };

/* Adds the weights of a leaf to the scores s of its targets. */
static void accumulate(const forest *F, int64_t leaf, int agg, double *s, bool *seen)
{
		for (int64_t e = F->nodes[leaf].lo; e < F->nodes[leaf].hi; e++) {
			int64_t j = F->target[e];
			double v = F->w[e];
			if (agg == AGG_MIN)
				s[j] = seen[j] && s[j] < v ? s[j] : v;
			else if (agg == AGG_MAX)
				s[j] = seen[j] && s[j] > v ? s[j] : v;
			else
				s[j] = F->single ? (float)(s[j] + v) : s[j] + v;
			seen[j] = true;
		}
}

static int cycle(ox_k *k, int64_t t)
{
	return ox_kfail(k, "tree %lld does not end in a leaf (its nodes form a cycle)", (long long)t);
}

/* s[0..nt) = the aggregate over the trees of the weights of the leaves row x reaches (or,
 * with leaves, of leaves[t * stride]); a target no leaf names stays 0 under MIN and MAX. */
static int aggregate(ox_k *k, const forest *F, const double *x, const int32_t *leaves, int64_t stride, int agg,
		     double *s, bool *seen, int64_t nt)
{
	memset(s, 0, (size_t)nt * sizeof *s);
	memset(seen, 0, (size_t)nt * sizeof *seen);
	for (int64_t t = 0; t < F->ntrees; t++) {
		int64_t leaf = leaves ? leaves[t * stride] : walk(F, t, x);
		if (leaf < 0)
			return cycle(k, t);
		accumulate(F, leaf, agg, s, seen);
	}
	if (agg == AGG_AVERAGE)
		for (int64_t j = 0; j < nt; j++)
			s[j] /= (double)(F->ntrees ? F->ntrees : 1);
	return 0;
}

/* ---- opsets 1, 3, 5 of the regressor and classifier: (tree id, node id) ------------ */

typedef struct nid {
	int64_t tree, node, index;
} nid;

static int cmp_nid(const void *a, const void *b)
{
	const nid *x = a, *y = b;
	if (x->tree != y->tree)
		return x->tree < y->tree ? -1 : 1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

static int64_t find_nid(const nid *ids, int64_t n, int64_t tree, int64_t node)
{
	int64_t lo = 0, hi = n;
	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;
		if (ids[mid].tree < tree || (ids[mid].tree == tree && ids[mid].node < node))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && ids[lo].tree == tree && ids[lo].node == node ? ids[lo].index : -1;
}

static int mode_of(const char *s, size_t n)
{
	static const char *const names[] = {"BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT",
					    "BRANCH_EQ",  "BRANCH_NEQ", "BRANCH_MEMBER", "LEAF"};
	for (int i = 0; i < 8; i++)
		if (i != MEMBER && strlen(names[i]) == n && !memcmp(s, names[i], n))
			return i;
	return -1;
}

/* The five per-node INTS attributes names[i] into *v[i] and the length they share into
 * *n; -1 after failing on lengths that differ. */
static int node_lists(ox_k *k, const char *const names[5], const int64_t **v[5], int64_t *n)
{
	*n = ox_attr_ints(k, names[0], v[0]);
	for (int i = 1; i < 5; i++) {
		int64_t ni = ox_attr_ints(k, names[i], v[i]);
		if (ni != *n)
			return ox_kfail(k, "the nodes_* attributes have different lengths (%lld and %lld)", (long long)*n,
					(long long)ni);
	}
	return 0;
}

typedef struct legacy {
	const int64_t *tree, *node, *feat, *tid, *fid, *miss;
	int64_t n, nmiss;
	const Onnx__AttributeProto *modes;
	double *split;
	nid *ids;
} legacy;

static int legacy_read(ox_k *k, legacy *L)
{
	static const char *const names[5] = {"nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_truenodeids",
					     "nodes_falsenodeids"};
	L->nmiss = ox_attr_ints(k, "nodes_missing_value_tracks_true", &L->miss);
	L->modes = ox_attr(k, "nodes_modes");
	int64_t nsplit, n;
	if (ox_ml_floats(k, "nodes_values", &L->split, &nsplit) < 0 ||
	    node_lists(k, names, (const int64_t **[5]){&L->tree, &L->node, &L->feat, &L->tid, &L->fid}, &n) < 0)
		return -1;
	L->n = n;
	if (n < 1 || !L->modes || (int64_t)L->modes->n_strings != n || (nsplit != n) || (L->nmiss > 0 && L->nmiss != n))
		return ox_kfail(k, "the nodes_* attributes (modes, values, missing_value_tracks_true) must all describe "
				   "the %lld nodes", (long long)n);
	return 0;
}

/* Nodes, their links and the trees' roots (each tree's first node). */
static int legacy_nodes(ox_k *k, legacy *L, forest *F)
{
	int64_t n = L->n;
	if (!(L->ids = malloc((size_t)n * sizeof *L->ids)) || !(F->nodes = calloc((size_t)n, sizeof *F->nodes)) ||
	    !(F->roots = malloc((size_t)n * sizeof *F->roots)))
		return ox_kfail(k, "out of memory");
	F->nnodes = n;
	for (int64_t i = 0; i < n; i++)
		L->ids[i] = (nid){L->tree[i], L->node[i], i};
	qsort(L->ids, (size_t)n, sizeof *L->ids, cmp_nid);
	for (int64_t i = 0; i < n; i++) {
		if (i && L->ids[i].tree == L->ids[i - 1].tree && L->ids[i].node == L->ids[i - 1].node)
			return ox_kfail(k, "node (tree %lld, node %lld) is given twice", (long long)L->ids[i].tree,
					(long long)L->ids[i].node);
		if (!i || L->ids[i].tree != L->ids[i - 1].tree) /* the lowest index of the tree: its root */
			F->roots[F->ntrees++] = L->ids[i].index;
		else if (L->ids[i].index < F->roots[F->ntrees - 1])
			F->roots[F->ntrees - 1] = L->ids[i].index;
	}
	for (int64_t i = 0; i < n; i++) {
		tnode *nd = &F->nodes[i];
		size_t len;
		const char *ms = ox_ml_str(L->modes, (size_t)i, &len);
		if ((nd->mode = mode_of(ms, len)) < 0)
			return ox_kfail(k, "nodes_modes[%lld] '%.*s' is not a BRANCH_* mode or LEAF", (long long)i, (int)len, ms);
		nd->feature = L->feat[i], nd->split = L->split[i], nd->nan_true = L->nmiss > 0 && L->miss[i] != 0;
		if (nd->mode == LEAF)
			continue;
		nd->t = find_nid(L->ids, n, L->tree[i], L->tid[i]);
		nd->f = find_nid(L->ids, n, L->tree[i], L->fid[i]);
		if (nd->t < 0 || nd->f < 0)
			return ox_kfail(k, "node %lld of tree %lld leads to node %lld, which the tree does not have",
					(long long)L->node[i], (long long)L->tree[i], (long long)(nd->t < 0 ? L->tid[i] : L->fid[i]));
	}
	return 0;
}

/* Attaches the weights (prefix "target" or "class") to their leaves. */
static int legacy_weights(ox_k *k, legacy *L, forest *F, const char *p, int64_t ntargets)
{
	char a[4][48];
	const int64_t *tree, *node, *id;
	snprintf(a[0], sizeof a[0], "%s_treeids", p);
	snprintf(a[1], sizeof a[1], "%s_nodeids", p);
	snprintf(a[2], sizeof a[2], "%s_ids", p);
	snprintf(a[3], sizeof a[3], "%s_weights", p);
	int64_t ne = ox_attr_ints(k, a[0], &tree), nw;
	double *w;
	if (ox_ml_floats(k, a[3], &w, &nw) < 0)
		return -1;
	F->w = w;
	if (ne < 0)
		ne = 0;
	if (ox_attr_ints(k, a[1], &node) != ne || ox_attr_ints(k, a[2], &id) != ne || nw != ne)
		return ne ? ox_kfail(k, "the %s_* attributes have different lengths", p) : 0;
	int64_t *cnt = calloc((size_t)F->nnodes + 1, sizeof *cnt), *leaf = malloc((size_t)(ne ? ne : 1) * sizeof *leaf);
	double *ws = malloc((size_t)(ne ? ne : 1) * sizeof *ws);
	F->target = malloc((size_t)(ne ? ne : 1) * sizeof *F->target);
	int rc = cnt && leaf && ws && F->target ? 0 : ox_kfail(k, "out of memory");
	for (int64_t e = 0; rc == 0 && e < ne; e++) {
		leaf[e] = find_nid(L->ids, L->n, tree[e], node[e]);
		if (leaf[e] < 0 || F->nodes[leaf[e]].mode != LEAF || id[e] < 0 || id[e] >= ntargets)
			rc = ox_kfail(k, "%s weight %lld: (tree %lld, node %lld, id %lld) is not a leaf and a target below %lld",
				      p, (long long)e, (long long)tree[e], (long long)node[e], (long long)id[e], (long long)ntargets);
		else
			cnt[leaf[e] + 1]++;
	}
	for (int64_t i = 0; rc == 0 && i < F->nnodes; i++) {
		cnt[i + 1] += cnt[i];
		F->nodes[i].lo = F->nodes[i].hi = cnt[i];
	}
	for (int64_t e = 0; rc == 0 && e < ne; e++) { /* stable: each leaf keeps its weights' order */
		int64_t at = F->nodes[leaf[e]].hi++;
		F->target[at] = id[e], ws[at] = w[e];
	}
	if (rc == 0 && ne)
		memcpy(F->w, ws, (size_t)ne * sizeof *ws);
	free(cnt);
	free(leaf);
	free(ws);
	return rc;
}

static int legacy_forest(ox_k *k, forest *F, const char *p, int64_t ntargets)
{
	legacy L = {0};
	int rc = legacy_read(k, &L);
	if (rc == 0)
		rc = legacy_nodes(k, &L, F);
	if (rc == 0)
		rc = legacy_weights(k, &L, F, p, ntargets);
	if (rc == 0)
		rc = ox_ml_floats(k, "base_values", &F->base, &F->nbase);
	if (rc == 0 && F->nbase && F->nbase != ntargets)
		rc = ox_kfail(k, "base_values has %lld values for %lld %s", (long long)F->nbase, (long long)ntargets,
			      strcmp(p, "class") == 0 ? "classes" : "targets");
	free(L.split);
	free(L.ids);
	return rc;
}

/* Rows of X, checked against the forest; NULL after failing. */
static double *forest_rows(ox_k *k, forest *F, int64_t *n, int64_t *c)
{
	ox_val *x = ox_in_tensor(k, 0, true);
	double *d = x ? ox_ml_rows(k, x, n, c) : NULL;
	F->single = x && x->type != OX_DOUBLE;
	if (d && (check_features(k, F, *c) < 0 || flatten(k, F) < 0)) {
		free(d);
		return NULL;
	}
	return d;
}

static int agg_of(ox_k *k)
{
	size_t len;
	const char *s = ox_attr_str(k, "aggregate_function", "SUM", &len);
	static const char *const names[] = {"AVERAGE", "SUM", "MIN", "MAX"};
	for (int i = 0; i < 4; i++)
		if (strlen(names[i]) == len && !memcmp(s, names[i], len))
			return i;
	return ox_kfail(k, "aggregate_function '%.*s' is not AVERAGE, SUM, MIN or MAX", (int)len, s);
}

enum { BLOCK = 64 }; /* rows that walk the trees together */

static int forest_scores(ox_k *k, const forest *F, const double *x, int64_t n, int64_t c, int agg, int pt, double *s,
			 int64_t nt)
{
	bool flat = F->flat.t && c >= 1 && c < (1 << 28); /* 8 rows of c: int32 offsets */
	bool *seen = malloc((size_t)(nt ? nt : 1));
	int32_t *leaves = flat ? malloc((size_t)(F->ntrees * BLOCK + 1) * sizeof *leaves) : NULL;
	int rc = seen && (leaves || !flat) ? 0 : ox_kfail(k, "out of memory");
	const ox_ml_vec *v = ox_ml_vec_get();
	for (int64_t r0 = 0; rc == 0 && r0 < n; r0 += BLOCK) {
		int64_t nb = n - r0 < BLOCK ? n - r0 : BLOCK; /* rows r0.. walk each tree together */
		for (int64_t t = 0; flat && t < F->ntrees; t++)
			v->walk(&F->flat, (int32_t)F->roots[t], x + r0 * c, nb, c, leaves + t * BLOCK);
		for (int64_t r = r0; rc == 0 && r < r0 + nb; r++) {
			rc = aggregate(k, F, x + r * c, flat ? leaves + (r - r0) : NULL, BLOCK, agg, s + r * nt, seen, nt);
			for (int64_t j = 0; j < nt && F->nbase; j++)
				s[r * nt + j] += F->base[F->nbase == 1 ? 0 : j];
			if (pt >= 0)
				ox_ml_post(pt, s + r * nt, nt);
		}
	}
	free(leaves);
	free(seen);
	return rc;
}

int ox_ml_TreeEnsembleRegressor(ox_k *k)
{
	forest F = {0};
	int64_t nt = ox_attr_int(k, "n_targets", 1), n, c;
	int agg = agg_of(k), pt = ox_ml_post_transform(k);
	if (agg < 0 || pt < 0)
		return -1;
	if (nt < 1 || nt > OX_MAX_ELEMENTS)
		return ox_kfail(k, "n_targets is %lld; expected 1 to 2^36", (long long)nt);
	double *x = NULL, *s = NULL;
	int rc = legacy_forest(k, &F, "target", nt);
	if (rc == 0 && !(x = forest_rows(k, &F, &n, &c)))
		rc = -1;
	if (rc == 0 && n > OX_MAX_ELEMENTS / nt)
		rc = ox_kfail(k, "%lld rows of %lld targets exceed the limit of 2^36 elements", (long long)n, (long long)nt);
	if (rc == 0 && !(s = malloc((size_t)(n * nt + 1) * sizeof *s)))
		rc = ox_kfail(k, "out of memory");
	if (rc == 0)
		rc = forest_scores(k, &F, x, n, c, agg, pt, s, nt);
	if (rc == 0)
		rc = ox_ml_out_scores(k, 0, s, n, nt);
	free(s);
	free(x);
	forest_free(&F);
	return rc;
}

/* A binary classifier: every class weight names the same class (id), so that only the
 * positive class is scored. With weights all positive its score s is a probability:
 * [1 - s, s], positive above 0.5; else a margin: [-s, s], positive above 0. Scores in
 * column 1 leave column 0 as it is (as onnxruntime decides; the spec says nothing, the
 * ONNX reference implementation always writes [1 - s, s] from column 0). */
typedef struct binary {
	bool on, allpos;
	int64_t id;
} binary;

static int binary_of(ox_k *k, int64_t ncls, binary *b)
{
	const int64_t *id;
	int64_t n = ox_attr_ints(k, "class_ids", &id), ncw;
	*b = (binary){n > 0, true, n > 0 ? id[0] : 0};
	for (int64_t i = 1; i < n; i++)
		b->on = b->on && id[i] == id[0];
	b->on = b->on && b->id >= 0 && b->id < ncls;
	double *cw;
	if (!b->on || ox_ml_floats(k, "class_weights", &cw, &ncw) < 0)
		return b->on ? -1 : 0;
	for (int64_t i = 0; i < ncw; i++)
		b->allpos = b->allpos && cw[i] >= 0;
	free(cw);
	return 0;
}

/* Final scores (rows of w) and label indices from the sums s (rows of ncls). */
static void classify(const binary *b, int pt, double *s, int64_t n, int64_t ncls, int64_t w, int64_t *idx)
{
	for (int64_t r = n - 1; w != ncls && r >= 0; r--) /* widen rows of 1 to 2 */
		s[r * 2] = s[r], s[r * 2 + 1] = 0;
	for (int64_t r = 0; r < n; r++) {
		double *row = s + r * w;
		if (b->on) { /* the scored column writes the other only when it is column 0 */
			double v = row[w == ncls ? b->id : 0];
			if (w != ncls || b->id == 0) {
				ox_ml_binary_scores(v, pt, row);
				if (pt == OX_PT_NONE && !b->allpos)
					row[0] = -v;
			} else {
				ox_ml_post(pt, row, w);
			}
			idx[r] = v > (b->allpos ? 0.5 : 0);
			continue;
		}
		ox_ml_post(pt, row, w);
		idx[r] = ox_ml_argmax(row, w);
	}
}

int ox_ml_TreeEnsembleClassifier(ox_k *k)
{
	forest F = {0};
	binary b;
	const Onnx__AttributeProto *ai = ox_attr(k, "classlabels_int64s"), *as = ox_attr(k, "classlabels_strings");
	int64_t ncls = as && as->n_strings ? (int64_t)as->n_strings : ai ? (int64_t)ai->n_ints : 0, n, c;
	int pt = ox_ml_post_transform(k);
	if (pt < 0 || binary_of(k, ncls, &b) < 0)
		return -1;
	if (ncls < 1)
		return ox_kfail(k, "classlabels_int64s or classlabels_strings is required");
	int64_t w = b.on && ncls == 1 ? 2 : ncls, *idx = NULL;
	double *x = NULL, *s = NULL;
	int rc = legacy_forest(k, &F, "class", ncls);
	if (rc == 0 && !(x = forest_rows(k, &F, &n, &c)))
		rc = -1;
	if (rc == 0 && (!(s = calloc((size_t)(n * (w + 1) + 1), sizeof *s)) || !(idx = malloc((size_t)(n + 1) * sizeof *idx))))
		rc = ox_kfail(k, "out of memory");
	if (rc == 0)
		rc = forest_scores(k, &F, x, n, c, AGG_SUM, -1, s, ncls);
	if (rc == 0)
		classify(&b, pt, s, n, ncls, w, idx);
	if (rc == 0)
		rc = ox_ml_classifier_out(k, idx, s, n, w, "classlabels_int64s");
	free(idx);
	free(s);
	free(x);
	forest_free(&F);
	return rc;
}

/* ---- TreeEnsemble (opset 5): nodes and leaves by index ----------------------------- */

/* The elements of TENSOR attribute name as doubles (malloc'd, *n of them); NULL with
 * *n = -1 when absent, NULL with *n = -2 after failing. */
static double *tensor_attr(ox_k *k, const char *name, int64_t *n)
{
	const Onnx__TensorProto *tp = ox_attr_tensor(k, name);
	*n = -1;
	if (!tp)
		return NULL;
	*n = -2;
	ox_val *t = ox_val_from_attr_tensor(k, tp);
	if (!t)
		return NULL;
	double *d = NULL;
	if (t->type == OX_STRING || t->type == OX_COMPLEX64 || t->type == OX_COMPLEX128)
		ox_kfail(k, "attribute %s has element type %s; expected numbers", name, ox_elem_label(t->type));
	else if (!(d = malloc((size_t)(t->count ? t->count : 1) * sizeof *d)))
		ox_kfail(k, "out of memory");
	else
		ox_to_f64(t, d), *n = t->count;
	ox_val_unref(t);
	return d;
}

typedef struct v5 {
	const int64_t *feat, *tid, *tleaf, *fid, *fleaf, *miss, *roots, *ltarget;
	int64_t n, nmiss, nroots, nleaves, nmodes, nsplits, nmem, nweights;
	double *modes, *splits, *mem, *weights;
} v5;

static int v5_read(ox_k *k, v5 *V)
{
	static const char *const names[5] = {"nodes_featureids", "nodes_truenodeids", "nodes_trueleafs",
					     "nodes_falsenodeids", "nodes_falseleafs"};
	V->nmiss = ox_attr_ints(k, "nodes_missing_value_tracks_true", &V->miss);
	V->nroots = ox_attr_ints(k, "tree_roots", &V->roots);
	V->nleaves = ox_attr_ints(k, "leaf_targetids", &V->ltarget);
	V->modes = tensor_attr(k, "nodes_modes", &V->nmodes);
	V->splits = V->nmodes == -2 ? NULL : tensor_attr(k, "nodes_splits", &V->nsplits);
	V->weights = V->nsplits == -2 ? NULL : tensor_attr(k, "leaf_weights", &V->nweights);
	V->mem = V->nweights == -2 ? NULL : tensor_attr(k, "membership_values", &V->nmem);
	if (V->nmodes == -2 || V->nsplits == -2 || V->nweights == -2 || V->nmem == -2 ||
	    node_lists(k, names, (const int64_t **[5]){&V->feat, &V->tid, &V->tleaf, &V->fid, &V->fleaf}, &V->n) < 0)
		return -1;
	int64_t n = V->n;
	if (n < 1 || V->nmodes != n || V->nsplits != n || (V->nmiss > 0 && V->nmiss != n))
		return ox_kfail(k, "nodes_modes, nodes_splits and nodes_missing_value_tracks_true must describe the %lld "
				   "nodes", (long long)n);
	if (V->nroots < 1 || V->nleaves < 1 || V->nweights != V->nleaves)
		return ox_kfail(k, "tree_roots, leaf_targetids and leaf_weights (of the same length) are required");
	return 0;
}

/* Node i of the forest: the n nodes, then one leaf node per leaf. */
static int v5_node(ox_k *k, const v5 *V, forest *F, int64_t i, int64_t *mem_at, int64_t ntargets)
{
	tnode *nd = &F->nodes[i];
	double mode = V->modes[i];
	if (!(mode >= 0 && mode <= 6) || mode != floor(mode))
		return ox_kfail(k, "nodes_modes[%lld] is %g; expected 0 to 6", (long long)i, mode);
	nd->mode = (int)mode, nd->feature = V->feat[i], nd->split = V->splits[i];
	nd->nan_true = V->nmiss > 0 && V->miss[i] != 0;
	nd->t = V->tleaf[i] ? V->n + V->tid[i] : V->tid[i];
	nd->f = V->fleaf[i] ? V->n + V->fid[i] : V->fid[i];
	if (V->tid[i] < 0 || V->fid[i] < 0 || V->tid[i] >= (V->tleaf[i] ? V->nleaves : V->n) ||
	    V->fid[i] >= (V->fleaf[i] ? V->nleaves : V->n))
		return ox_kfail(k, "node %lld leads to a node or leaf that does not exist", (long long)i);
	if (nd->mode == MEMBER) { /* the next NaN-delimited run of membership_values */
		nd->lo = *mem_at;
		while (*mem_at < V->nmem && !isnan(F->m[*mem_at]))
			(*mem_at)++;
		nd->hi = *mem_at;
		if (*mem_at >= V->nmem && nd->lo == nd->hi)
			return ox_kfail(k, "node %lld is BRANCH_MEMBER, but membership_values has no set left for it", (long long)i);
		(*mem_at)++;
	}
	(void)ntargets;
	return 0;
}

static int v5_forest(ox_k *k, v5 *V, forest *F, int64_t ntargets)
{
	int64_t nn = V->n + V->nleaves, mem_at = 0;
	if (!(F->nodes = calloc((size_t)nn, sizeof *F->nodes)) || !(F->roots = malloc((size_t)V->nroots * sizeof *F->roots)) ||
	    !(F->target = malloc((size_t)V->nleaves * sizeof *F->target)))
		return ox_kfail(k, "out of memory");
	F->nnodes = nn, F->nan_compare = true, F->w = V->weights, V->weights = NULL, F->m = V->mem, V->mem = NULL;
	for (int64_t i = 0; i < V->n; i++)
		if (v5_node(k, V, F, i, &mem_at, ntargets) < 0)
			return -1;
	for (int64_t l = 0; l < V->nleaves; l++) {
		if (V->ltarget[l] < 0 || V->ltarget[l] >= ntargets)
			return ox_kfail(k, "leaf_targetids[%lld] is %lld; expected 0 to n_targets - 1 = %lld", (long long)l,
					(long long)V->ltarget[l], (long long)(ntargets - 1));
		F->nodes[V->n + l] = (tnode){.mode = LEAF, .lo = l, .hi = l + 1};
		F->target[l] = V->ltarget[l];
	}
	for (int64_t t = 0; t < V->nroots; t++) {
		int64_t r = V->roots[t];
		if (r < 0 || r >= V->n)
			return ox_kfail(k, "tree_roots[%lld] is %lld; there are %lld nodes", (long long)t, (long long)r, (long long)V->n);
		/* a tree that is a single leaf: both branches lead to the same leaf, whose index is the root's */
		bool leaf = V->tleaf[r] && V->fleaf[r] && V->tid[r] == V->fid[r];
		if (leaf && r >= V->nleaves)
			return ox_kfail(k, "tree %lld is a single leaf, but there is no leaf %lld", (long long)t, (long long)r);
		F->roots[t] = leaf ? V->n + r : r;
	}
	F->ntrees = V->nroots;
	return 0;
}

int ox_ml_TreeEnsemble(ox_k *k)
{
	ox_val *xv = ox_in_tensor(k, 0, true);
	if (!xv)
		return -1;
	if (xv->type != OX_FLOAT && xv->type != OX_DOUBLE && xv->type != OX_FLOAT16)
		return ox_kfail(k, "input X has element type %s; expected float, double or float16", ox_elem_label(xv->type));
	const Onnx__AttributeProto *na = ox_attr(k, "n_targets");
	int64_t nt = na ? na->i : 0, agg = ox_attr_int(k, "aggregate_function", 1), pt = ox_attr_int(k, "post_transform", 0);
	if (nt < 1 || nt > OX_MAX_ELEMENTS)
		return ox_kfail(k, "n_targets is required, from 1 to 2^36");
	if (agg < 0 || agg > 3 || pt < 0 || pt > 4)
		return ox_kfail(k, "aggregate_function %lld (0 to 3) or post_transform %lld (0 to 4) is out of range",
				(long long)agg, (long long)pt);
	v5 V = {0};
	forest F = {0};
	int64_t n = 0, c = 0;
	double *x = NULL, *s = NULL;
	int rc = v5_read(k, &V);
	if (rc == 0)
		rc = v5_forest(k, &V, &F, nt);
	if (rc == 0 && (!(x = ox_ml_rows_any(k, xv, &n, &c)) || check_features(k, &F, c) < 0 || flatten(k, &F) < 0))
		rc = -1;
	F.single = xv->type != OX_DOUBLE;
	if (rc == 0 && n > OX_MAX_ELEMENTS / nt)
		rc = ox_kfail(k, "%lld rows of %lld targets exceed the limit of 2^36 elements", (long long)n, (long long)nt);
	if (rc == 0 && !(s = malloc((size_t)(n * nt + 1) * sizeof *s)))
		rc = ox_kfail(k, "out of memory");
	if (rc == 0) /* pt numbers the spec's way: 1 SOFTMAX, 2 LOGISTIC (onnxruntime swaps them) */
		rc = forest_scores(k, &F, x, n, c, (int)agg, (int)pt, s, nt);
	int64_t dims[2] = {n, nt};
	ox_val *y = rc == 0 ? ox_out_tensor(k, 0, xv->type, 2, dims) : NULL;
	for (int64_t i = 0; y && i < n * nt; i++)
		ox_set_f64(y, i, s[i]);
	free(s);
	free(x);
	free(V.modes);
	free(V.splits);
	free(V.mem);
	free(V.weights);
	forest_free(&F);
	return rc == 0 && !y ? -1 : rc;
}
