/* Einsum: any equation (explicit or implicit output, ellipsis with broadcasting, repeated
 * labels as diagonals). Each operand is first reduced to distinct labels, labels used
 * nowhere else are summed out early, then operands are contracted left to right, each
 * pair as a transpose into [batch, free, contracted] order and a batched matrix product.
 * Float types compute in double, integer types in int64 (wrapping). */
#include <stdlib.h>
#include <string.h>
#include "einsum.h"
#include "eval/kernel.h"
#include "eval/move.h"


#define MAXL OX_EINSUM_MAXL /* labels: letters, then ellipsis dims */

/* An operand: nl labels with their dims, row-major elements of 8 bytes (double or int64). */
typedef struct term {
	int nl;
	int lab[MAXL];
	int64_t dims[MAXL];
	int64_t count;
	void *data;
} term;

typedef struct einsum {
	ox_k *k;
	bool is_int;
	int nin, nell;       /* inputs; ellipsis dims (the most any input has) */
	int nout, out[MAXL]; /* output labels */
	int64_t size[MAXL];  /* each label's broadcast size */
	term *t;             /* the operands */
} einsum;

/* ---- parsing (einsum.h) and label sizes -------------------------------------------- */

/* Each label's size: numpy's broadcasting, a size-1 dim meeting any other. */
static int label_sizes(einsum *E, int (*lab)[MAXL], const int *nl)
{
	for (int l = 0; l < MAXL; l++)
		E->size[l] = -1;
	for (int i = 0; i < E->nin; i++)
		for (int j = 0; j < nl[i]; j++) {
			int l = lab[i][j];
			int64_t d = E->k->in[i]->dims[j];
			if (E->size[l] < 0 || E->size[l] == 1)
				E->size[l] = d;
			else if (d != 1 && d != E->size[l])
				return ox_kfail(E->k, "equation: a label has sizes %lld and %lld", (long long)E->size[l],
						(long long)d);
		}
	return 0;
}

static int parse(einsum *E, int (*lab)[MAXL], int *nl)
{
	size_t n;
	const char *eq = ox_attr_str(E->k, "equation", NULL, &n);
	if (!eq)
		return ox_kfail(E->k, "attribute 'equation' is required");
	int *ranks = ox_scratch(E->k, E->nin, sizeof *ranks, "ranks");
	if (!ranks)
		return -1;
	ox_einsum q = {.nin = E->nin, .lab = lab, .nl = nl};
	for (int i = 0; i < E->nin; i++)
		ranks[i] = E->k->in[i]->rank;
	int rc = ox_einsum_parse(&q, eq, n, ranks);
	free(ranks);
	if (rc < 0)
		return ox_kfail(E->k, "%s", q.err);
	E->nell = q.nell, E->nout = q.nout;
	memcpy(E->out, q.out, sizeof E->out);
	return label_sizes(E, lab, nl);
}

/* ---- operand primitives ------------------------------------------------------------ */

static int term_alloc(einsum *E, term *t)
{
	t->count = ox_shape_count(t->nl, t->dims);
	if (t->count < 0)
		return ox_kfail(E->k, "an intermediate result would have too many elements");
	t->data = ox_scratch(E->k, t->count, 8, "intermediate");
	return t->data ? 0 : -1;
}

/* dst[i] = src[offset(i)] for every index i of dims, offsets from per-dim source strides. */
static void strided_copy(uint64_t *dst, const uint64_t *src, int rank, const int64_t *dims, const int64_t *st)
{
	int64_t idx[MAXL] = {0}, off = 0, n = ox_shape_count(rank, dims);
	if (rank == 0) {
		if (n)
			dst[0] = src[0];
		return;
	}
	int64_t in = dims[rank - 1], is = st[rank - 1];
	for (int64_t i = 0; i < n; i += in) {
		for (int64_t j = 0; j < in; j++)
			dst[i + j] = src[off + j * is];
		off = ox_odometer_next(rank - 1, dims, st, idx, off); /* the last axis is the row */
	}
}

/* dst[offset(i)] += src[i] for every index i of src's dims (dst strides 0 on summed dims). */
static void strided_sum(bool is_int, void *dst, const void *src, int rank, const int64_t *dims, const int64_t *st)
{
	int64_t idx[MAXL] = {0}, off = 0, n = ox_shape_count(rank, dims);
	int64_t in = rank ? dims[rank - 1] : 1, is = rank ? st[rank - 1] : 0;
	for (int64_t i = 0; i < n; i += in) {
		if (is_int)
			for (int64_t j = 0; j < in; j++)
				((uint64_t *)dst)[off + j * is] += ((const uint64_t *)src)[i + j];
		else
			for (int64_t j = 0; j < in; j++)
				((double *)dst)[off + j * is] += ((const double *)src)[i + j];
		off = ox_odometer_next(rank - 1, dims, st, idx, off); /* the last axis is the row */
	}
}

static int find(const int *lab, int n, int l)
{
	for (int i = 0; i < n; i++)
		if (lab[i] == l)
			return i;
	return -1;
}

/* Sums t over the labels for which drop[label] is set. */
static int sum_out(einsum *E, term *t, const bool *drop)
{
	term r = {0};
	int64_t st[MAXL], rst[MAXL];
	for (int i = 0; i < t->nl; i++)
		if (!drop[t->lab[i]]) {
			r.lab[r.nl] = t->lab[i];
			r.dims[r.nl++] = t->dims[i];
		}
	if (r.nl == t->nl)
		return 0;
	if (term_alloc(E, &r) < 0)
		return -1;
	memset(r.data, 0, (size_t)r.count * 8);
	ox_strides(r.nl, r.dims, rst);
	for (int i = 0, j = 0; i < t->nl; i++)
		st[i] = drop[t->lab[i]] ? 0 : rst[j++];
	strided_sum(E->is_int, r.data, t->data, t->nl, t->dims, st);
	free(t->data);
	*t = r;
	return 0;
}

/* Rearranges t into the label order lab[0..n), broadcasting size-1 dims to dims[]. */
static int permute(einsum *E, term *t, const int *lab, const int64_t *dims, int n)
{
	term r = {0};
	int64_t st[MAXL], tst[MAXL];
	bool same = n == t->nl;
	ox_strides(t->nl, t->dims, tst);
	for (int i = 0; i < n; i++) {
		int j = find(t->lab, t->nl, lab[i]);
		r.lab[i] = lab[i], r.dims[i] = dims[i];
		st[i] = j < 0 || t->dims[j] != dims[i] ? 0 : tst[j];
		same = same && j == i && t->dims[j] == dims[i];
	}
	r.nl = n;
	if (same)
		return 0;
	if (term_alloc(E, &r) < 0)
		return -1;
	strided_copy(r.data, t->data, n, r.dims, st);
	free(t->data);
	*t = r;
	return 0;
}

/* c[b] = a[b] (m x kk) times b[b] (kk x n), for nb batches. */
static void batched_matmul(bool is_int, const void *a, const void *b, void *c, int64_t nb, int64_t m, int64_t kk,
			   int64_t n)
{
	memset(c, 0, (size_t)(nb * m * n) * 8);
	for (int64_t p = 0; p < nb; p++)
		for (int64_t i = 0; i < m; i++)
			for (int64_t l = 0; l < kk; l++) {
				int64_t ao = (p * m + i) * kk + l, bo = (p * kk + l) * n, co = (p * m + i) * n;
				if (is_int) {
					uint64_t av = ((const uint64_t *)a)[ao];
					for (int64_t j = 0; j < n; j++)
						((uint64_t *)c)[co + j] += av * ((const uint64_t *)b)[bo + j];
				} else {
					double av = ((const double *)a)[ao];
					for (int64_t j = 0; j < n; j++)
						((double *)c)[co + j] += av * ((const double *)b)[bo + j];
				}
			}
}

/* ---- the algorithm ----------------------------------------------------------------- */

/* Input i as a term: its elements as 8-byte numbers, repeated labels folded into their
 * diagonal. */
static int load_input(einsum *E, int i, const int *lab, int nl, term *t)
{
	const ox_val *x = E->k->in[i];
	int64_t xst[OX_MAX_RANK], st[MAXL];
	ox_strides(x->rank, x->dims, xst);
	t->nl = 0;
	for (int j = 0; j < nl; j++) {
		int at = find(t->lab, t->nl, lab[j]);
		if (at >= 0 && t->dims[at] != x->dims[j])
			return ox_kfail(E->k, "input %d: a repeated label has sizes %lld and %lld", i,
					(long long)t->dims[at], (long long)x->dims[j]);
		if (at >= 0) {
			st[at] += xst[j];
			continue;
		}
		t->lab[t->nl] = lab[j], t->dims[t->nl] = x->dims[j], st[t->nl++] = xst[j];
	}
	uint64_t *all = ox_scratch(E->k, x->count, 8, "input");
	if (!all || term_alloc(E, t) < 0) {
		free(all);
		return -1;
	}
	for (int64_t j = 0; j < x->count; j++) {
		if (E->is_int)
			((int64_t *)all)[j] = ox_get_i64(x, j);
		else
			((double *)all)[j] = ox_get_f64(x, j);
	}
	strided_copy(t->data, all, t->nl, t->dims, st);
	free(all);
	return 0;
}

/* Labels needed after operand i: the output's and those of operands after i. */
static void needed_after(const einsum *E, int i, bool *keep)
{
	memset(keep, 0, MAXL * sizeof *keep);
	for (int j = 0; j < E->nout; j++)
		keep[E->out[j]] = true;
	for (int o = i + 1; o < E->nin; o++)
		for (int j = 0; j < E->t[o].nl; j++)
			keep[E->t[o].lab[j]] = true;
}

/* Sums out of t the labels neither kept nor shared with u at the same size (a label of
 * size n against 1 in u sums out here; u's size-1 copy follows). */
static int prune(einsum *E, term *t, const term *u, const bool *keep)
{
	bool drop[MAXL] = {false};
	for (int i = 0; i < t->nl; i++) {
		int j = u ? find(u->lab, u->nl, t->lab[i]) : -1;
		drop[t->lab[i]] = !keep[t->lab[i]] && (j < 0 || (u->dims[j] != t->dims[i] && t->dims[i] != 1));
	}
	return sum_out(E, t, drop);
}

/* The label lists of a contraction: batch (shared, kept), free in a, free in b, and
 * contracted (shared, not kept). */
typedef struct plan {
	int nb, na, nbf, nc;
	int batch[MAXL], afree[MAXL], bfree[MAXL], con[MAXL];
} plan;

static void classify(const term *a, const term *b, const bool *keep, plan *p)
{
	memset(p, 0, sizeof *p);
	for (int i = 0; i < a->nl; i++) {
		int l = a->lab[i];
		if (find(b->lab, b->nl, l) < 0)
			p->afree[p->na++] = l;
		else if (keep[l])
			p->batch[p->nb++] = l;
		else
			p->con[p->nc++] = l;
	}
	for (int i = 0; i < b->nl; i++)
		if (find(a->lab, a->nl, b->lab[i]) < 0)
			p->bfree[p->nbf++] = b->lab[i];
}

static int64_t label_dim(const term *a, const term *b, int l)
{
	int i = find(a->lab, a->nl, l), j = find(b->lab, b->nl, l);
	if (i < 0 || j < 0)
		return i < 0 ? b->dims[j] : a->dims[i];
	/* a shared label broadcasts from size 1 (to 0 as well) */
	return a->dims[i] == 1 ? b->dims[j] : a->dims[i];
}

static void push(int *lab, int64_t *dims, int *n, int l, int64_t d)
{
	lab[*n] = l;
	dims[(*n)++] = d;
}

/* a becomes the contraction of a and b over their shared labels that keep does not hold:
 * a as [batch, afree, con], b as [batch, con, bfree], one batched matrix product. */
static int contract(einsum *E, term *a, term *b, const bool *keep)
{
	if (prune(E, a, b, keep) < 0 || prune(E, b, a, keep) < 0 || prune(E, a, b, keep) < 0)
		return -1;
	plan p;
	classify(a, b, keep, &p);
	int la[MAXL], lb[MAXL], ra = 0, rb = 0;
	int64_t da[MAXL], db[MAXL], nb = 1, m = 1, kk = 1, n = 1;
	term r = {0};
	for (int i = 0; i < p.nb; i++) {
		int64_t d = label_dim(a, b, p.batch[i]);
		push(la, da, &ra, p.batch[i], d), push(lb, db, &rb, p.batch[i], d), push(r.lab, r.dims, &r.nl, p.batch[i], d);
		nb *= d;
	}
	for (int i = 0; i < p.na; i++) {
		int64_t d = label_dim(a, b, p.afree[i]);
		push(la, da, &ra, p.afree[i], d), push(r.lab, r.dims, &r.nl, p.afree[i], d);
		m *= d;
	}
	for (int i = 0; i < p.nc; i++) {
		int64_t d = label_dim(a, b, p.con[i]);
		push(la, da, &ra, p.con[i], d), push(lb, db, &rb, p.con[i], d);
		kk *= d;
	}
	for (int i = 0; i < p.nbf; i++) {
		int64_t d = label_dim(a, b, p.bfree[i]);
		push(lb, db, &rb, p.bfree[i], d), push(r.lab, r.dims, &r.nl, p.bfree[i], d);
		n *= d;
	}
	if (permute(E, a, la, da, ra) < 0 || permute(E, b, lb, db, rb) < 0 || term_alloc(E, &r) < 0)
		return -1;
	batched_matmul(E->is_int, a->data, b->data, r.data, nb, m, kk, n);
	free(a->data), free(b->data);
	*a = r;
	b->data = NULL;
	return 0;
}

static const int einsum_types[] = {OX_FLOAT, OX_DOUBLE, OX_FLOAT16, OX_BFLOAT16, OX_INT8, OX_INT16, OX_INT32,
				   OX_INT64, OX_UINT8, OX_UINT16, OX_UINT32, OX_UINT64, 0};

static int check_inputs(ox_k *k)
{
	if (k->nin < 1)
		return ox_kfail(k, "Einsum needs at least one input");
	for (int i = 0; i < k->nin; i++) {
		ox_val *x = ox_in_tensor(k, i, true);
		if (!x || ox_check_type(k, x, "input", einsum_types) < 0)
			return -1;
		if (x->type != k->in[0]->type)
			return ox_kfail(k, "input %d has type %s; expected %s like input 0", i, ox_elem_label(x->type),
					ox_elem_label(k->in[0]->type));
	}
	return 0;
}

static int run(einsum *E, int (*lab)[MAXL], const int *nl)
{
	bool keep[MAXL];
	for (int i = 0; i < E->nin; i++)
		if (load_input(E, i, lab[i], nl[i], &E->t[i]) < 0)
			return -1;
	for (int i = 1; i < E->nin; i++) {
		needed_after(E, i, keep);
		if (contract(E, &E->t[0], &E->t[i], keep) < 0)
			return -1;
	}
	needed_after(E, E->nin, keep);
	int64_t dims[MAXL];
	for (int j = 0; j < E->nout; j++)
		dims[j] = E->t[0].dims[find(E->t[0].lab, E->t[0].nl, E->out[j])];
	if (prune(E, &E->t[0], NULL, keep) < 0 || permute(E, &E->t[0], E->out, dims, E->nout) < 0)
		return -1;
	ox_val *y = ox_out_tensor(E->k, 0, E->k->in[0]->type, E->nout, dims);
	if (!y)
		return -1;
	for (int64_t j = 0; j < y->count; j++) {
		if (E->is_int)
			ox_set_i64(y, j, ((int64_t *)E->t[0].data)[j]);
		else
			ox_set_f64(y, j, ((double *)E->t[0].data)[j]);
	}
	return 0;
}

int ox_op_Einsum(ox_k *k)
{
	if (check_inputs(k) < 0)
		return -1;
	einsum E = {k, ox_elem_is_int(k->in[0]->type), k->nin, 0, 0, {0}, {0}, NULL};
	int (*lab)[MAXL] = ox_scratch(k, k->nin, sizeof *lab, "labels");
	int *nl = lab ? ox_scratch(k, k->nin, sizeof *nl, "labels") : NULL;
	E.t = nl ? ox_scratch(k, k->nin, sizeof *E.t, "operands") : NULL;
	int rc = -1;
	if (E.t) {
		memset(E.t, 0, (size_t)k->nin * sizeof *E.t);
		rc = parse(&E, lab, nl) < 0 ? -1 : run(&E, lab, nl);
		for (int i = 0; i < k->nin; i++)
			free(E.t[i].data);
	}
	free(lab), free(nl), free(E.t);
	return rc;
}
