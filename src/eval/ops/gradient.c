/* Gradient (ai.onnx.preview.training 1): reverse-mode differentiation of the graph that
 * holds the node. The nodes computing y from xs and zs (the node's inputs) and
 * initializers are run again, forward, on a tape; then each taped node's vector-Jacobian
 * product sends dy (ones: the gradient of the sum of y) back to the xs. Works in double. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "eval/kernel.h"
#include "schema/schema.h"

typedef struct tape {
	ox_k *k;
	int nslots;
	ox_val **v;    /* per slot: the forward value (a reference) or NULL */
	double **g;    /* per slot: the gradient so far, or NULL */
	bool *dep;     /* per slot: whether it depends on an xs entry (only those get gradients) */
	size_t *order; /* taped node indices, in run order */
	size_t n;
} tape;

/* ---- forward ---------------------------------------------------------------------------- */

static int bind_names(tape *T, const char *attr, int first, int *count)
{
	const Onnx__AttributeProto *a = ox_attr(T->k, attr);
	*count = a ? (int)a->n_strings : 0;
	for (int i = 0; i < *count; i++) {
		char name[256];
		snprintf(name, sizeof name, "%.*s", (int)a->strings[i].len, (const char *)a->strings[i].data);
		int s = ox_body_slot(T->k, name);
		ox_val *x = ox_in(T->k, first + i);
		if (s < 0 || !x)
			return ox_kfail(T->k, "%s names '%s', which the graph does not define or the node is not given", attr, name);
		ox_val_unref(T->v[s]);
		T->v[s] = ox_val_ref(x);
		T->dep[s] = first == 0;
	}
	return 0;
}

/* Runs node i when every input it names has a value; 1 when it ran. */
static int forward_node(tape *T, size_t i)
{
	ox_k nk;
	const int *outs, *ins = ox_body_node(T->k, i, &nk, &outs);
	if (nk.proto == T->k->proto || nk.nin > 16 || nk.nout > 16)
		return 0;
	ox_val *in[16], *out[16] = {0};
	for (int j = 0; j < nk.nin; j++) {
		if (ins[j] >= 0 && !T->v[ins[j]])
			return 0;
		in[j] = ins[j] >= 0 ? T->v[ins[j]] : NULL;
	}
	if (ox_body_call(T->k, i, in, out) < 0)
		return -1;
	bool dep = false;
	for (int j = 0; j < nk.nin; j++)
		dep |= ins[j] >= 0 && T->dep[ins[j]];
	for (int j = 0; j < nk.nout; j++) {
		if (outs[j] >= 0) {
			T->dep[outs[j]] = dep;
			ox_val_unref(T->v[outs[j]]);
			T->v[outs[j]] = out[j];
		} else {
			ox_val_unref(out[j]);
		}
	}
	T->order[T->n++] = i;
	return 1;
}

/* ---- backward: helpers ----------------------------------------------------------------- */

/* The gradient buffer of slot s (zeros at first), or NULL when s holds no real tensor. */
static double *grad(tape *T, int s)
{
	if (s < 0 || !T->dep[s] || !T->v[s] || T->v[s]->kind != OX_TENSOR || !ox_is_real(T->v[s]->type))
		return NULL;
	if (!T->g[s])
		T->g[s] = calloc((size_t)(T->v[s]->count ? T->v[s]->count : 1), sizeof(double));
	return T->g[s];
}

static double *values(tape *T, int s)
{
	return ox_load_f64(T->k, T->v[s], "forward value");
}

/* Per element of the broadcast output y: the flat indices in a and b. */
static void bcast_index(const ox_val *y, const ox_val *a, int64_t e, int64_t *ia, const int64_t *sa)
{
	int64_t rem = e, off = 0;
	for (int d = y->rank - 1; d >= 0; d--) {
		off += (rem % y->dims[d]) * sa[d];
		rem /= y->dims[d];
	}
	(void)a;
	*ia = off;
}

enum { B_ADD, B_SUB, B_MUL, B_DIV };

static int binary_vjp(tape *T, const int *in, const int *out, int op)
{
	ox_val *a = T->v[in[0]], *b = T->v[in[1]], *y = T->v[out[0]];
	double *dy = T->g[out[0]], *ga = grad(T, in[0]), *gb = grad(T, in[1]);
	double *av = values(T, in[0]), *bv = av ? values(T, in[1]) : NULL;
	if (!bv) {
		free(av);
		return -1;
	}
	int64_t sa[OX_MAX_RANK], sb[OX_MAX_RANK];
	ox_broadcast_strides(a->rank, a->dims, y->rank, y->dims, sa);
	ox_broadcast_strides(b->rank, b->dims, y->rank, y->dims, sb);
	for (int64_t e = 0; e < y->count; e++) {
		int64_t i, j;
		bcast_index(y, a, e, &i, sa);
		bcast_index(y, b, e, &j, sb);
		double d = dy[e], x1 = av[i], x2 = bv[j];
		double da = op == B_MUL ? d * x2 : op == B_DIV ? d / x2 : d;
		double db = op == B_ADD ? d : op == B_SUB ? -d : op == B_MUL ? d * x1 : -d * x1 / (x2 * x2);
		if (ga)
			ga[i] += da;
		if (gb)
			gb[j] += db;
	}
	free(av), free(bv);
	return 0;
}

/* Sum: each input gets dy, summed over the dims it was broadcast along. */
static int sum_vjp(tape *T, const ox_k *nk, const int *in, const int *out)
{
	ox_val *y = T->v[out[0]];
	double *dy = T->g[out[0]];
	for (int j = 0; j < nk->nin; j++) {
		double *gx = grad(T, in[j]);
		if (!gx)
			continue;
		int64_t sx[OX_MAX_RANK];
		ox_broadcast_strides(T->v[in[j]]->rank, T->v[in[j]]->dims, y->rank, y->dims, sx);
		for (int64_t e = 0; e < y->count; e++) {
			int64_t i;
			bcast_index(y, y, e, &i, sx);
			gx[i] += dy[e];
		}
	}
	return 0;
}

/* Unary ops whose derivative needs x (the input) or y (the output) elementwise. */
static double unary_d(const char *op, double x, double y)
{
	if (!strcmp(op, "Neg"))
		return -1;
	if (!strcmp(op, "Relu"))
		return x > 0;
	if (!strcmp(op, "Sigmoid"))
		return y * (1 - y);
	if (!strcmp(op, "Tanh"))
		return 1 - y * y;
	if (!strcmp(op, "Exp"))
		return y;
	if (!strcmp(op, "Log"))
		return 1 / x;
	if (!strcmp(op, "Sqrt"))
		return 0.5 / y;
	if (!strcmp(op, "Abs"))
		return x > 0 ? 1 : x < 0 ? -1 : 0;
	return 1; /* Identity and the reshaping ops: the same elements in the same order */
}

static int unary_vjp(tape *T, const char *op, const int *in, const int *out)
{
	double *dy = T->g[out[0]], *gx = grad(T, in[0]);
	if (!gx)
		return 0;
	double *xv = values(T, in[0]), *yv = xv ? values(T, out[0]) : NULL;
	if (!yv) {
		free(xv);
		return -1;
	}
	for (int64_t e = 0; e < T->v[in[0]]->count; e++)
		gx[e] += dy[e] * unary_d(op, xv[e], yv[e]);
	free(xv), free(yv);
	return 0;
}

/* ---- backward: MatMul, Gemm, reductions, Transpose ------------------------------------------ */

typedef struct mm {
	int64_t m, k, n;
	bool ta, tb;
	double alpha;
} mm;

/* Y[m, n] = alpha * op(A) op(B): dA and dB of one (batch) matrix product. */
static void mm_vjp(const mm *p, const double *a, const double *b, const double *dy, double *ga, double *gb)
{
	for (int64_t i = 0; i < p->m; i++)
		for (int64_t q = 0; q < p->k; q++) {
			int64_t ai = p->ta ? q * p->m + i : i * p->k + q;
			for (int64_t j = 0; j < p->n; j++) {
				int64_t bi = p->tb ? j * p->k + q : q * p->n + j;
				double d = p->alpha * dy[i * p->n + j];
				if (ga)
					ga[ai] += d * b[bi];
				if (gb)
					gb[bi] += d * a[ai];
			}
		}
}

static int matmul_vjp(tape *T, const ox_k *nk, const int *in, const int *out, bool gemm)
{
	ox_val *a = T->v[in[0]], *b = T->v[in[1]];
	mm p = {0, 0, 0, gemm && ox_attr_int(nk, "transA", 0), gemm && ox_attr_int(nk, "transB", 0),
		gemm ? ox_attr_float(nk, "alpha", 1.0f) : 1};
	int r = a->rank;
	if (r < 2 || b->rank != r || memcmp(a->dims, b->dims, (size_t)(r - 2) * sizeof *a->dims))
		return ox_kfail(T->k, "cannot differentiate %s of shapes other than two matrices or equal batches of them",
				nk->proto->op_type);
	p.m = a->dims[r - (p.ta ? 1 : 2)], p.k = a->dims[r - (p.ta ? 2 : 1)], p.n = b->dims[r - (p.tb ? 2 : 1)];
	double *av = values(T, in[0]), *bv = av ? values(T, in[1]) : NULL;
	double *ga = grad(T, in[0]), *gb = grad(T, in[1]), *dy = T->g[out[0]];
	if (!bv) {
		free(av);
		return -1;
	}
	int64_t mk = p.m * p.k, batch = mk > 0 ? a->count / mk : 0;
	for (int64_t s = 0; s < batch; s++)
		mm_vjp(&p, av + s * p.m * p.k, bv + s * p.k * p.n, dy + s * p.m * p.n, ga ? ga + s * p.m * p.k : NULL,
		       gb ? gb + s * p.k * p.n : NULL);
	free(av), free(bv);
	double *gc = gemm && nk->nin > 2 ? grad(T, in[2]) : NULL;
	if (gc) { /* dC: beta * dY summed over C's broadcast dims */
		ox_val *c = T->v[in[2]], *y = T->v[out[0]];
		int64_t sc[OX_MAX_RANK];
		double beta = ox_attr_float(nk, "beta", 1.0f);
		ox_broadcast_strides(c->rank, c->dims, y->rank, y->dims, sc);
		for (int64_t e = 0; e < y->count; e++) {
			int64_t i;
			bcast_index(y, c, e, &i, sc);
			gc[i] += beta * dy[e];
		}
	}
	return 0;
}

/* The reduced axes of ReduceSum / ReduceMean as flags, as the forward kernel (reduce.c)
 * took them: input 1 where the version's schema has it (from 13 / 18), else the attribute;
 * an input 1 given at an older version is not read (the forward reduced every axis). */
static int reduce_axes(tape *T, const ox_k *nk, const int *in, const ox_val *x, bool *red)
{
	int64_t axes[OX_MAX_RANK];
	int64_t n = 0;
	const int64_t *attr;
	bool input = nk->schema && nk->schema->max_in > 1;
	if (input && nk->nin > 1 && in[1] >= 0) {
		ox_val *t = T->v[in[1]];
		n = t->count > OX_MAX_RANK ? OX_MAX_RANK : t->count;
		for (int64_t i = 0; i < n; i++)
			axes[i] = ox_get_i64(t, i);
	} else if (!input && (n = ox_attr_ints(nk, "axes", &attr)) > 0) {
		n = n > OX_MAX_RANK ? OX_MAX_RANK : n;
		memcpy(axes, attr, (size_t)n * sizeof *axes);
	} else {
		n = 0;
	}
	bool noop = input && n == 0 && ox_attr_int(nk, "noop_with_empty_axes", 0);
	for (int d = 0; d < x->rank; d++)
		red[d] = n == 0 && !noop;
	for (int64_t i = 0; i < n; i++) {
		int ax = ox_axis(T->k, axes[i], x->rank);
		if (ax < 0)
			return -1;
		red[ax] = true;
	}
	return 0;
}

static int reduce_vjp(tape *T, const ox_k *nk, const int *in, const int *out, bool mean)
{
	ox_val *x = T->v[in[0]];
	double *gx = grad(T, in[0]), *dy = T->g[out[0]];
	bool red[OX_MAX_RANK];
	if (!gx || reduce_axes(T, nk, in, x, red) < 0)
		return gx ? -1 : 0;
	int64_t kd[OX_MAX_RANK], s[OX_MAX_RANK], cnt = 1;
	for (int d = 0; d < x->rank; d++) {
		kd[d] = red[d] ? 1 : x->dims[d];
		cnt *= red[d] ? x->dims[d] : 1;
	}
	ox_broadcast_strides(x->rank, kd, x->rank, x->dims, s);
	for (int64_t e = 0; e < x->count; e++) {
		int64_t i;
		bcast_index(x, x, e, &i, s);
		gx[e] += dy[i] / (mean && cnt ? (double)cnt : 1);
	}
	return 0;
}

static int transpose_vjp(tape *T, const ox_k *nk, const int *in, const int *out)
{
	ox_val *x = T->v[in[0]], *y = T->v[out[0]];
	double *gx = grad(T, in[0]), *dy = T->g[out[0]];
	const int64_t *perm;
	int64_t np = ox_attr_ints(nk, "perm", &perm), xs[OX_MAX_RANK], ps[OX_MAX_RANK];
	if (!gx)
		return 0;
	xs[x->rank - 1 < 0 ? 0 : x->rank - 1] = 1;
	for (int d = x->rank - 2; d >= 0; d--)
		xs[d] = xs[d + 1] * x->dims[d + 1];
	for (int d = 0; d < y->rank; d++)
		ps[d] = xs[np == y->rank ? perm[d] : y->rank - 1 - d];
	for (int64_t e = 0; e < y->count; e++) {
		int64_t i;
		bcast_index(y, x, e, &i, ps);
		gx[i] += dy[e];
	}
	return 0;
}

/* ---- backward: dispatch ----------------------------------------------------------------- */

static bool is_any(const char *op, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(op, *list))
			return true;
	return false;
}

static const char *const unary_ops[] = {"Neg", "Relu", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Abs", "Identity",
					"Reshape", "Flatten", "Squeeze", "Unsqueeze", NULL};
static const char *const binary_ops[] = {"Add", "Sub", "Mul", "Div", NULL};

/* Sends the gradients of node i's outputs to its inputs. */
static int backward_node(tape *T, size_t i)
{
	ox_k nk;
	const int *out, *in = ox_body_node(T->k, i, &nk, &out);
	const char *op = nk.proto->op_type;
	bool any = false;
	for (int j = 0; j < nk.nout; j++)
		any |= out[j] >= 0 && T->g[out[j]] != NULL;
	if (!any)
		return 0;
	if (nk.proto->domain && *nk.proto->domain && strcmp(nk.proto->domain, "ai.onnx"))
		return ox_kfail(T->k, "cannot differentiate operator %s.%s (node %zu)", nk.proto->domain, op, i);
	if (is_any(op, unary_ops))
		return unary_vjp(T, op, in, out);
	for (int b = 0; binary_ops[b]; b++)
		if (!strcmp(op, binary_ops[b]))
			return binary_vjp(T, in, out, b);
	if (!strcmp(op, "Sum"))
		return sum_vjp(T, &nk, in, out);
	if (!strcmp(op, "MatMul") || !strcmp(op, "Gemm"))
		return matmul_vjp(T, &nk, in, out, op[0] == 'G');
	if (!strcmp(op, "ReduceSum") || !strcmp(op, "ReduceMean"))
		return reduce_vjp(T, &nk, in, out, op[6] == 'M');
	if (!strcmp(op, "Transpose"))
		return transpose_vjp(T, &nk, in, out);
	return ox_kfail(T->k, "cannot differentiate operator %s (node %zu%s%s); differentiable are Add, Sub, Mul, "
			"Div, Sum, Neg, Abs, Exp, Log, Sqrt, Relu, Sigmoid, Tanh, MatMul, Gemm, ReduceSum, ReduceMean, "
			"Identity, Reshape, Flatten, Squeeze, Unsqueeze and Transpose",
			op, i, nk.proto->name && *nk.proto->name ? ", " : "", nk.proto->name ? nk.proto->name : "");
}

/* ---- the kernel ------------------------------------------------------------------------- */

static int run_forward(tape *T, int ys)
{
	size_t n = ox_body_nodes(T->k);
	for (size_t i = 0; i < n && !T->v[ys]; i++)
		if (forward_node(T, i) < 0)
			return -1;
	if (!T->v[ys] || T->v[ys]->kind != OX_TENSOR || !ox_is_real(T->v[ys]->type))
		return ox_kfail(T->k, "y is not a floating-point tensor computed from xs, zs and initializers");
	return 0;
}

static int differentiate(tape *T, int ys, int nx)
{
	double *dy = grad(T, ys); /* NULL when y does not depend on xs: the gradients are 0 */
	for (int64_t e = 0; dy && e < T->v[ys]->count; e++)
		dy[e] = 1;
	for (size_t t = T->n; dy && t-- > 0;)
		if (backward_node(T, T->order[t]) < 0)
			return -1;
	const Onnx__AttributeProto *xs = ox_attr(T->k, "xs");
	for (int i = 0; i < nx && i < T->k->nout; i++) {
		char name[256];
		snprintf(name, sizeof name, "%.*s", (int)xs->strings[i].len, (const char *)xs->strings[i].data);
		int s = ox_body_slot(T->k, name);
		ox_val *x = T->v[s];
		double *g = grad(T, s);
		if (!g)
			return ox_kfail(T->k, "xs entry '%s' is not a floating-point tensor", name);
		ox_val *o = ox_out_wanted(T->k, i) ? ox_out_tensor(T->k, i, x->type, x->rank, x->dims) : NULL;
		if (ox_out_wanted(T->k, i) && !o)
			return -1;
		if (o)
			ox_store_f64(o, g);
	}
	return 0;
}

static int gradient_setup(tape *T, int *ys, int *nx)
{
	size_t ylen;
	const char *y = ox_attr_str(T->k, "y", "", &ylen);
	char yname[256];
	snprintf(yname, sizeof yname, "%.*s", (int)ylen, y);
	int nz;
	if (!ox_attr(T->k, "xs") || !ylen)
		return ox_kfail(T->k, "attributes 'xs' and 'y' are required");
	for (int s = 0; s < T->nslots; s++)
		T->v[s] = ox_val_ref(ox_body_init(T->k, s));
	if (bind_names(T, "xs", 0, nx) < 0 || bind_names(T, "zs", *nx, &nz) < 0)
		return -1;
	if (T->k->nin != *nx + nz)
		return ox_kfail(T->k, "the node has %d inputs: xs and zs name %d", T->k->nin, *nx + nz);
	if ((*ys = ox_body_slot(T->k, yname)) < 0)
		return ox_kfail(T->k, "y names '%s', which the graph does not define", yname);
	return 0;
}

int ox_op_Gradient(ox_k *k)
{
	tape T = {k, ox_body_slots(k), NULL, NULL, NULL, NULL, 0};
	T.v = calloc((size_t)T.nslots + 1, sizeof *T.v);
	T.g = calloc((size_t)T.nslots + 1, sizeof *T.g);
	T.dep = calloc((size_t)T.nslots + 1, sizeof *T.dep);
	T.order = calloc(ox_body_nodes(k) + 1, sizeof *T.order);
	int ys = 0, nx = 0, rc = T.v && T.g && T.dep && T.order ? 0 : ox_kfail(k, "out of memory");
	if (rc == 0)
		rc = gradient_setup(&T, &ys, &nx);
	if (rc == 0 && (rc = run_forward(&T, ys)) == 0)
		rc = differentiate(&T, ys, nx);
	for (int s = 0; s < T.nslots && T.v; s++)
		ox_val_unref(T.v[s]);
	for (int s = 0; s < T.nslots && T.g; s++)
		free(T.g[s]);
	free(T.v), free(T.g), free(T.dep), free(T.order);
	return rc;
}
