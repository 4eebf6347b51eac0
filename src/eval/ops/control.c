/* Control flow: If, Loop, Scan and SequenceMap run the sub-graphs of their attributes
 * through the executor (ox_run_graph), with the slicing and stacking of tensors along an
 * axis that scan inputs and outputs need. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/kernel.h"

/* ---- values ---------------------------------------------------------------------------- */

/* A condition: a bool tensor of one element. */
static int truth(ox_k *k, const ox_val *v, const char *what, bool *out)
{
	char d[96];
	if (!v || v->kind != OX_TENSOR || v->type != OX_BOOL || v->count != 1)
		return ox_kfail(k, "%s must be a bool tensor of one element, not %s", what, ox_val_describe(v, d, sizeof d));
	*out = *(const unsigned char *)v->data != 0;
	return 0;
}

static bool same_shape(const ox_val *a, const ox_val *b)
{
	return a->type == b->type && a->rank == b->rank && memcmp(a->dims, b->dims, (size_t)a->rank * sizeof *a->dims) == 0;
}

/* Copies n elements of src from element si to dst at element di; strings are duplicated. */
static bool copy_elems(ox_val *dst, int64_t di, const ox_val *src, int64_t si, int64_t n)
{
	if (n == 0) /* the data of empty tensors is NULL: no offsets from it */
		return true;
	if (dst->type == OX_STRING) {
		const ox_str *s = (const ox_str *)src->data + si;
		ox_str *d = (ox_str *)dst->data + di;
		for (int64_t i = 0; i < n; i++)
			if (!ox_str_set(&d[i], s[i].p, s[i].n))
				return false;
		return true;
	}
	size_t es = ox_elem_size(dst->type);
	memcpy((char *)dst->data + (size_t)di * es, (const char *)src->data + (size_t)si * es, (size_t)n * es);
	return true;
}

/* A new tensor of zeros (empty strings) of the given type and shape; NULL after failing. */
static ox_val *zeros(ox_k *k, int type, int rank, const int64_t *dims)
{
	const char *why;
	ox_val *v = ox_tensor_new(type, rank, dims, &why);
	if (!v)
		ox_kfail(k, "cannot make a %s tensor: %s", ox_elem_label(type), why);
	else if (v->count && type != OX_STRING)
		memset(v->data, 0, (size_t)v->count * ox_elem_size(type));
	return v;
}

static int64_t span(const int64_t *dims, int from, int to)
{
	int64_t n = 1;
	for (int i = from; i < to; i++)
		n *= dims[i];
	return n;
}

/* *slot made a tensor of the given type and shape: kept when nobody else holds it and it
 * has that shape already (every iteration of a scan slices the same shape), else new. */
static int slot_tensor(ox_k *k, ox_val **slot, int type, int rank, const int64_t *dims)
{
	const ox_val *v = *slot;
	if (v && v->refs == 1 && v->kind == OX_TENSOR && !v->owner && v->type == type && v->rank == rank &&
	    memcmp(v->dims, dims, (size_t)rank * sizeof *dims) == 0)
		return 0;
	ox_val_unref(*slot);
	const char *why;
	if (!(*slot = ox_tensor_new(type, rank, dims, &why)))
		return ox_kfail(k, "cannot slice %s: %s", ox_elem_label(type), why);
	return 0;
}

/* *slot = x[..., t, ...]: the sub-tensor at index t of axis, one rank lower. */
static int slice_axis(ox_k *k, ox_val **slot, const ox_val *x, int axis, int64_t t)
{
	int64_t dims[OX_MAX_RANK];
	for (int i = 0, j = 0; i < x->rank; i++)
		if (i != axis)
			dims[j++] = x->dims[i];
	if (slot_tensor(k, slot, x->type, x->rank - 1, dims) < 0)
		return -1;
	int64_t outer = span(x->dims, 0, axis), n = x->dims[axis], inner = span(x->dims, axis + 1, x->rank);
	for (int64_t o = 0; o < outer; o++)
		if (!copy_elems(*slot, o * inner, x, (o * n + t) * inner, inner))
			return ox_kfail(k, "out of memory");
	return 0;
}

/* *slot = the index-th block of x seen as [d0*...*d(lead-1), rest...], a tensor of the rest. */
static int slice_lead(ox_k *k, ox_val **slot, const ox_val *x, int lead, int64_t index)
{
	if (slot_tensor(k, slot, x->type, x->rank - lead, x->dims + lead) < 0)
		return -1;
	int64_t n = (*slot)->count;
	return copy_elems(*slot, 0, x, index * n, n) ? 0 : ox_kfail(k, "out of memory");
}

/* "iteration 3"; with per iterations per batch entry, "batch entry 1, iteration 0"; with
 * per -1, "batch entry 3". */
static const char *where(int64_t i, int64_t per, char *buf, size_t size)
{
	if (per < 0)
		snprintf(buf, size, "batch entry %lld", (long long)i);
	else if (per)
		snprintf(buf, size, "batch entry %lld, iteration %lld", (long long)(i / per), (long long)(i % per));
	else
		snprintf(buf, size, "iteration %lld", (long long)i);
	return buf;
}

/* Fails unless the non-NULL items[0], items[stride], ... are tensors of one type and shape;
 * per says how to name items (see where). */
static int alike(ox_k *k, const char *what, ox_val *const *items, int64_t n, size_t stride, int64_t per)
{
	const ox_val *model = NULL;
	int64_t m = 0;
	char d1[96], d2[96], w1[64], w2[64];
	for (int64_t t = 0; t < n; t++) {
		const ox_val *v = items[(size_t)t * stride];
		if (v && v->kind != OX_TENSOR)
			return ox_kfail(k, "%s: %s gives %s; expected a tensor", what, where(t, per, w1, sizeof w1),
					ox_val_describe(v, d1, sizeof d1));
		if (v && !model)
			model = v, m = t;
		else if (v && !same_shape(v, model))
			return ox_kfail(k, "%s: %s gives %s, %s gave %s (every iteration must give one type and shape)", what,
					where(t, per, w1, sizeof w1), ox_val_describe(v, d1, sizeof d1), where(m, per, w2, sizeof w2),
					ox_val_describe(model, d2, sizeof d2));
	}
	return 0;
}

/* The n tensors items[0], items[stride], ... stacked along a new axis: item t lands at
 * index t, or n-1-t when reverse. All have the type and shape of model (see alike); NULL
 * items are zeros (Scan-8 pads short sequences so). NULL after failing. */
static ox_val *stack(ox_k *k, const char *what, ox_val *const *items, int64_t n, size_t stride, int axis,
		     bool reverse, const ox_val *model)
{
	if (model->rank + 1 > OX_MAX_RANK)
		return ox_kfail(k, "%s: stacking rank-%d values exceeds the rank limit", what, model->rank), NULL;
	int64_t dims[OX_MAX_RANK];
	for (int i = 0, j = 0; i <= model->rank; i++)
		dims[i] = i == axis ? n : model->dims[j++];
	ox_val *y = zeros(k, model->type, model->rank + 1, dims);
	if (!y)
		return NULL;
	int64_t outer = span(model->dims, 0, axis), inner = span(model->dims, axis, model->rank);
	for (int64_t t = 0; t < n; t++) {
		const ox_val *v = items[(size_t)t * stride];
		int64_t at = reverse ? n - 1 - t : t;
		for (int64_t o = 0; v && o < outer; o++)
			if (!copy_elems(y, (o * n + at) * inner, v, o * inner, inner)) {
				ox_val_unref(y);
				return ox_kfail(k, "out of memory"), NULL;
			}
	}
	return y;
}

/* The first tensor among items[0], items[stride], ..., or NULL. */
static const ox_val *first(ox_val *const *items, int64_t n, size_t stride)
{
	for (int64_t t = 0; t < n; t++)
		if (items[(size_t)t * stride])
			return items[(size_t)t * stride];
	return NULL;
}

/* The element type and shape the graph of attr declares for its output j, with unknown
 * dims as 0: what a scan output is made of when no iteration ran. */
static int declared(ox_k *k, const char *attr, int j, int *type, int *rank, int64_t *dims)
{
	const Onnx__GraphProto *g = ox_attr_graph(k, attr);
	const Onnx__TypeProto *t = g && (size_t)j < g->n_output ? g->output[j]->type : NULL;
	if (!t || t->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !t->tensor_type->elem_type)
		return ox_kfail(k, "no iteration ran, and output %d of attribute '%s' declares no tensor element type to "
			       "make the empty scan output of", j, attr);
	const Onnx__TensorShapeProto *s = t->tensor_type->shape;
	*type = t->tensor_type->elem_type;
	*rank = s ? (int)s->n_dim : 0;
	if (*rank >= OX_MAX_RANK)
		return ox_kfail(k, "output %d of attribute '%s' has rank %d, beyond the limit", j, attr, *rank);
	for (int i = 0; i < *rank; i++)
		dims[i] = s->dim[i]->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ? s->dim[i]->dim_value
													 : 0;
	return 0;
}

/* ---- running a sub-graph repeatedly ------------------------------------------------------- */

typedef struct body {
	const char *attr;
	int nin, nout;
	ox_val **in, **out; /* one allocation; both hold references */
} body;

static int body_open(ox_k *k, body *b, const char *attr, int nin, int nout, const char *expect)
{
	int gout, gin = ox_graph_arity(k, attr, &gout);
	if (gin < 0)
		return ox_kfail(k, "attribute '%s' must hold a graph", attr);
	if (gin != nin || (nout >= 0 && gout != nout))
		return ox_kfail(k, "attribute '%s' has %d inputs and %d outputs; %s", attr, gin, gout, expect);
	*b = (body){attr, gin, gout, NULL, NULL};
	if (!(b->in = calloc((size_t)gin + (size_t)gout + 1, sizeof *b->in)))
		return ox_kfail(k, "out of memory");
	b->out = b->in + gin;
	return 0;
}

static void body_clear(body *b)
{
	for (int i = 0; b->out && i < b->nout; i++) {
		ox_val_unref(b->out[i]);
		b->out[i] = NULL;
	}
}

static void body_close(body *b)
{
	body_clear(b);
	for (int i = 0; b->in && i < b->nin; i++)
		ox_val_unref(b->in[i]);
	free(b->in);
}

/* Runs the graph on b->in, replacing b->out; errors say which iteration failed. */
static int body_run(ox_k *k, body *b, int64_t iteration)
{
	body_clear(b);
	if (ox_run_graph(k, b->attr, b->in, b->nin, b->out, b->nout) == 0)
		return 0;
	char inner[OX_MSG];
	memcpy(inner, k->msg, OX_MSG);
	return ox_kfail(k, "iteration %lld: %s", (long long)iteration, inner);
}

/* ---- If ------------------------------------------------------------------------------- */

int ox_op_If(ox_k *k)
{
	bool c = false;
	if (truth(k, ox_in(k, 0), "cond", &c) < 0)
		return -1;
	const char *attr = c ? "then_branch" : "else_branch";
	int nout;
	if (ox_graph_arity(k, attr, &nout) < 0)
		return ox_kfail(k, "attribute '%s' must hold a graph", attr);
	if (nout != k->nout)
		return ox_kfail(k, "attribute '%s' has %d outputs, If %d (they must match)", attr, nout, k->nout);
	return ox_run_graph(k, attr, NULL, 0, k->out, k->nout);
}

/* ---- Loop ------------------------------------------------------------------------------ */

/* Per-iteration scan outputs of Loop: rows of K values, grown as iterations run. */
typedef struct rows {
	ox_val **v;
	int64_t n, cap;
	size_t k;
} rows;

static int rows_push(ox_k *k, rows *r, ox_val **vals)
{
	if (r->n == r->cap) {
		int64_t cap = r->cap ? 2 * r->cap : 16;
		if (cap > OX_MAX_ELEMENTS)
			return ox_kfail(k, "scan outputs of more than %lld iterations exceed the element limit",
					(long long)OX_MAX_ELEMENTS);
		ox_val **v = realloc(r->v, (size_t)cap * r->k * sizeof *v);
		if (!v)
			return ox_kfail(k, "out of memory");
		r->v = v, r->cap = cap;
	}
	for (size_t j = 0; j < r->k; j++) {
		r->v[(size_t)r->n * r->k + j] = vals[j];
		vals[j] = NULL;
	}
	r->n++;
	return 0;
}

static void rows_free(rows *r)
{
	for (size_t i = 0; r->v && i < (size_t)r->n * r->k; i++)
		ox_val_unref(r->v[i]);
	free(r->v);
}

/* The maximum trip count M: absent means no limit. */
static int trip_count(ox_k *k, int64_t *m)
{
	const ox_val *v = ox_in(k, 0);
	char d[96];
	*m = INT64_MAX;
	if (!v)
		return 0;
	if (v->kind != OX_TENSOR || v->count != 1 || (v->type != OX_INT64 && v->type != OX_INT32))
		return ox_kfail(k, "M must be an int64 tensor of one element, not %s", ox_val_describe(v, d, sizeof d));
	*m = v->type == OX_INT64 ? *(const int64_t *)v->data : *(const int32_t *)v->data;
	return 0;
}

/* The scan output j (body output 1+N+j) of a Loop that ran r->n times. */
static int loop_scan_output(ox_k *k, rows *r, int n_carried, int j)
{
	int out = n_carried + j;
	char what[64];
	snprintf(what, sizeof what, "scan output %d", j);
	ox_val *y;
	if (r->n) {
		if (alike(k, what, r->v + j, r->n, r->k, 0) < 0)
			return -1;
		y = stack(k, what, r->v + j, r->n, r->k, 0, false, r->v[j]);
	} else {
		int type, rank;
		int64_t dims[OX_MAX_RANK];
		if (declared(k, "body", 1 + n_carried + j, &type, &rank, dims + 1) < 0)
			return -1;
		dims[0] = 0;
		y = zeros(k, type, rank + 1, dims);
	}
	if (!y)
		return -1;
	ox_out_set(k, out, y);
	return 0;
}

/* The scalar *slot set to elem: the previous one when the body kept no reference to it
 * (nobody else can see it change), else a new one. */
static int counter(ox_k *k, ox_val **slot, int type, const void *elem)
{
	if (*slot && (*slot)->refs == 1 && !(*slot)->owner) {
		memcpy((*slot)->data, elem, ox_elem_size(type));
		return 0;
	}
	ox_val_unref(*slot);
	if (!(*slot = ox_tensor_scalar(type, elem)))
		return ox_kfail(k, "out of memory");
	return 0;
}

/* Runs the body while the trip count and the condition allow; the loop-carried values
 * end in b->in[2..], the scan outputs in r. The body's condition output is honoured even
 * when the cond input is omitted, as onnxruntime and the reference implementation do. */
static int loop_iterate(ox_k *k, body *b, int n, rows *r)
{
	int64_t m;
	bool cond = true;
	if (trip_count(k, &m) < 0 || (ox_in(k, 1) && truth(k, ox_in(k, 1), "cond", &cond) < 0))
		return -1;
	for (int64_t i = 0; i < m && cond; i++) {
		unsigned char c = cond;
		if (counter(k, &b->in[0], OX_INT64, &i) < 0 || counter(k, &b->in[1], OX_BOOL, &c) < 0 ||
		    body_run(k, b, i) < 0 || truth(k, b->out[0], "the body's condition output", &cond) < 0)
			return -1;
		ox_val_unref(b->out[0]); /* often the cond input itself, which counter() can then reuse */
		b->out[0] = NULL;
		for (int j = 0; j < n; j++) {
			ox_val_unref(b->in[2 + j]);
			b->in[2 + j] = b->out[1 + j];
			b->out[1 + j] = NULL;
		}
		if (r->k && rows_push(k, r, b->out + 1 + n) < 0)
			return -1;
	}
	return 0;
}

int ox_op_Loop(ox_k *k)
{
	int n = k->nin > 2 ? k->nin - 2 : 0;
	body b;
	char expect[160];
	snprintf(expect, sizeof expect, "expected %d inputs (iteration, condition, %d loop-carried values)", 2 + n, n);
	if (body_open(k, &b, "body", 2 + n, -1, expect) < 0)
		return -1;
	int nscan = b.nout - 1 - n;
	if (nscan < 0 || k->nout > n + nscan) {
		body_close(&b);
		return ox_kfail(k, "attribute 'body' has %d outputs; expected the condition, %d loop-carried values and "
			       "%d scan outputs for the %d outputs of Loop", b.nout, n, k->nout - n > 0 ? k->nout - n : 0,
			       k->nout);
	}
	for (int j = 0; j < n; j++)
		b.in[2 + j] = ox_val_ref(ox_in(k, 2 + j));
	rows r = {NULL, 0, 0, (size_t)nscan};
	int rc = loop_iterate(k, &b, n, &r);
	for (int j = 0; j < n; j++) {
		if (rc == 0)
			ox_out_set(k, j, b.in[2 + j]);
		else
			ox_val_unref(b.in[2 + j]);
		b.in[2 + j] = NULL;
	}
	for (int j = 0; rc == 0 && j < nscan && n + j < k->nout; j++)
		if (ox_out_wanted(k, n + j))
			rc = loop_scan_output(k, &r, n, j);
	rows_free(&r);
	body_close(&b);
	return rc;
}


/* ---- Scan ------------------------------------------------------------------------------ */

/* What Scan's inputs and attributes say. */
typedef struct scan {
	int nstate, nscan, nout; /* N state values, M scan inputs, K scan outputs */
	int first;               /* input index of the first state value: 1 at version 8, else 0 */
	int64_t len;             /* iterations (Scan-8: the longest sequence) */
	const int64_t *in_axes, *in_dirs, *out_axes, *out_dirs; /* NULL: all 0 */
} scan;

static int64_t at(const int64_t *v, int i)
{
	return v ? v[i] : 0;
}

/* A list attribute of count values, or NULL in *v when absent. */
static int list_attr(ox_k *k, const char *name, int count, const int64_t **v)
{
	int64_t n = ox_attr_ints(k, name, v);
	if (n < 0)
		*v = NULL;
	else if (n != count)
		return ox_kfail(k, "attribute '%s' has %lld values, expected %d", name, (long long)n, count);
	return 0;
}

/* Counts and body arity, common to every version; Scan-8 has sequence_lens first (lens). */
static int scan_open(ox_k *k, bool lens, scan *s, body *b)
{
	int64_t m = ox_attr_int(k, "num_scan_inputs", -1);
	s->first = lens;
	if (m < 1 || m > k->nin - s->first)
		return ox_kfail(k, "attribute 'num_scan_inputs' is %lld; expected 1 to %d, the inputs given%s", (long long)m,
				k->nin - s->first, s->first ? " after sequence_lens" : "");
	s->nscan = (int)m;
	s->nstate = k->nin - s->first - s->nscan;
	char expect[160];
	snprintf(expect, sizeof expect, "expected %d inputs (%d state values, %d scan elements)", s->nstate + s->nscan,
		 s->nstate, s->nscan);
	if (body_open(k, b, "body", s->nstate + s->nscan, -1, expect) < 0)
		return -1;
	s->nout = b->nout - s->nstate;
	if (s->nout < 0 || k->nout > s->nstate + s->nout)
		return ox_kfail(k, "attribute 'body' has %d outputs; expected %d state values and a scan output for each "
			       "further output of Scan", b->nout, s->nstate);
	return 0;
}

/* Scan-9 and later: axes and directions, and the common length of the scan inputs. */
static int scan_setup(ox_k *k, scan *s)
{
	if (list_attr(k, "scan_input_axes", s->nscan, &s->in_axes) < 0 ||
	    list_attr(k, "scan_input_directions", s->nscan, &s->in_dirs) < 0 ||
	    list_attr(k, "scan_output_axes", s->nout, &s->out_axes) < 0 ||
	    list_attr(k, "scan_output_directions", s->nout, &s->out_dirs) < 0)
		return -1;
	for (int i = 0; i < s->nscan; i++) {
		const ox_val *x = ox_in_tensor(k, s->nstate + i, true);
		if (!x)
			return -1;
		if (x->rank < 1)
			return ox_kfail(k, "scan input %d is a scalar; it needs an axis to scan", i);
		int64_t a = at(s->in_axes, i) < 0 ? at(s->in_axes, i) + x->rank : at(s->in_axes, i);
		if (a < 0 || a >= x->rank)
			return ox_kfail(k, "scan_input_axes[%d] is %lld, out of range for scan input %d of rank %d", i,
					(long long)at(s->in_axes, i), i, x->rank);
		if (i && x->dims[a] != s->len)
			return ox_kfail(k, "scan input %d has %lld elements along its scan axis, scan input 0 %lld", i,
					(long long)x->dims[a], (long long)s->len);
		s->len = x->dims[a];
	}
	return 0;
}

/* Takes the body's state outputs as the next state inputs and moves its scan outputs
 * into items[0], items[stride], ... */
static void scan_advance(scan *s, body *b, ox_val **items, size_t stride)
{
	for (int j = 0; j < s->nstate; j++) {
		ox_val_unref(b->in[j]);
		b->in[j] = b->out[j];
		b->out[j] = NULL;
	}
	for (int j = 0; j < s->nout; j++) {
		items[(size_t)j * stride] = b->out[s->nstate + j];
		b->out[s->nstate + j] = NULL;
	}
}

/* Scan-9 and later: items[t*K + j] gets scan output j of iteration t. */
static int scan_iterate(ox_k *k, scan *s, body *b, ox_val **items)
{
	for (int64_t t = 0; t < s->len; t++) {
		for (int i = 0; i < s->nscan; i++) {
			const ox_val *x = k->in[s->nstate + i];
			int a = (int)(at(s->in_axes, i) < 0 ? at(s->in_axes, i) + x->rank : at(s->in_axes, i));
			if (slice_axis(k, &b->in[s->nstate + i], x, a, at(s->in_dirs, i) ? s->len - 1 - t : t) < 0)
				return -1;
		}
		if (body_run(k, b, t) < 0)
			return -1;
		scan_advance(s, b, items + (size_t)t * (size_t)s->nout, 1);
	}
	return 0;
}

/* Scan output j from the values of every iteration, along its axis and direction. */
static int scan_output(ox_k *k, scan *s, int j, ox_val *const *items, size_t stride)
{
	char what[64];
	snprintf(what, sizeof what, "scan output %d", j);
	const ox_val *model = first(items, s->len, stride);
	int type = 0, rank = 0;
	int64_t dims[OX_MAX_RANK];
	if (!model && declared(k, "body", s->nstate + j, &type, &rank, dims) < 0)
		return -1;
	int r = model ? model->rank : rank;
	int64_t a = at(s->out_axes, j) < 0 ? at(s->out_axes, j) + r + 1 : at(s->out_axes, j);
	if (a < 0 || a > r)
		return ox_kfail(k, "scan_output_axes[%d] is %lld, out of range for scan output %d of rank %d", j,
				(long long)at(s->out_axes, j), j, r + 1);
	ox_val *y;
	if (model) {
		if (alike(k, what, items, s->len, stride, 0) < 0)
			return -1;
		y = stack(k, what, items, s->len, stride, (int)a, at(s->out_dirs, j) != 0, model);
	} else {
		memmove(dims + a + 1, dims + a, (size_t)(rank - a) * sizeof *dims);
		dims[a] = 0;
		y = zeros(k, type, rank + 1, dims);
	}
	if (!y)
		return -1;
	ox_out_set(k, s->nstate + j, y);
	return 0;
}

/* An array of n value slots, NULL after failing when n is beyond reason. */
static ox_val **slots(ox_k *k, int64_t a, int64_t b, int64_t c)
{
	if (a && b && c && (b > OX_MAX_ELEMENTS / a || c > OX_MAX_ELEMENTS / (a * b)))
		return ox_kfail(k, "%lld x %lld x %lld per-iteration values exceed the element limit", (long long)a,
				(long long)b, (long long)c), NULL;
	ox_val **v = calloc((size_t)(a * b * c) + 1, sizeof *v);
	if (!v)
		ox_kfail(k, "out of memory");
	return v;
}

static void slots_free(ox_val **v, int64_t n)
{
	for (int64_t i = 0; v && i < n; i++)
		ox_val_unref(v[i]);
	free(v);
}

static int scan9(ox_k *k, scan *s, body *b)
{
	if (scan_setup(k, s) < 0)
		return -1;
	for (int j = 0; j < s->nstate; j++)
		b->in[j] = ox_val_ref(ox_in(k, j));
	ox_val **items = slots(k, s->len, s->nout, 1);
	int rc = items ? scan_iterate(k, s, b, items) : -1;
	for (int j = 0; rc == 0 && j < s->nstate; j++) {
		ox_out_set(k, j, b->in[j]);
		b->in[j] = NULL;
	}
	for (int j = 0; rc == 0 && j < s->nout && s->nstate + j < k->nout; j++)
		if (ox_out_wanted(k, s->nstate + j))
			rc = scan_output(k, s, j, items + j, (size_t)s->nout);
	slots_free(items, s->len * s->nout);
	return rc;
}

/* Scan-8: batch axis 0 and sequence axis 1 in every scan input, axis 0 of every state
 * the batch; sequence_lens, when given, from 0 to the longest sequence. */
static int scan8_setup(ox_k *k, scan *s, int64_t *batch)
{
	if (list_attr(k, "directions", s->nscan, &s->in_dirs) < 0)
		return -1;
	for (int i = 0; i < s->nscan; i++) {
		const ox_val *x = ox_in_tensor(k, 1 + s->nstate + i, true);
		if (!x)
			return -1;
		if (x->rank < 2)
			return ox_kfail(k, "scan input %d has rank %d; expected a batch axis and a sequence axis", i, x->rank);
		if (i && (x->dims[0] != *batch || x->dims[1] != s->len))
			return ox_kfail(k, "scan input %d has batch %lld and length %lld, scan input 0 %lld and %lld", i,
					(long long)x->dims[0], (long long)x->dims[1], (long long)*batch, (long long)s->len);
		*batch = x->dims[0];
		s->len = x->dims[1];
	}
	for (int j = 0; j < s->nstate; j++) {
		const ox_val *x = ox_in_tensor(k, 1 + j, true);
		if (!x)
			return -1;
		if (x->rank < 1 || x->dims[0] != *batch)
			return ox_kfail(k, "state value %d must have the batch size %lld as its first dimension", j,
					(long long)*batch);
	}
	const ox_val *lens = ox_in(k, 0);
	if (!lens)
		return 0;
	if (lens->kind != OX_TENSOR || (lens->type != OX_INT64 && lens->type != OX_INT32) || lens->count != *batch)
		return ox_kfail(k, "sequence_lens must be an int64 tensor of %lld values", (long long)*batch);
	for (int64_t b = 0; b < *batch; b++) {
		int64_t n = ox_get_i64(lens, b);
		if (n < 0 || n > s->len)
			return ox_kfail(k, "sequence_lens[%lld] is %lld; expected 0 to %lld", (long long)b, (long long)n,
					(long long)s->len);
	}
	return 0;
}

/* One batch entry: its states, then len iterations; scan output j of iteration t goes to
 * items[(j*batch + bi)*len + t], the final states to finals[j*batch + bi]. */
static int scan8_entry(ox_k *k, scan *s, body *b, int64_t bi, int64_t batch, ox_val **items, ox_val **finals)
{
	const ox_val *lens = ox_in(k, 0);
	int64_t n = lens ? ox_get_i64(lens, bi) : s->len;
	for (int j = 0; j < s->nstate; j++)
		if (slice_lead(k, &b->in[j], k->in[1 + j], 1, bi) < 0)
			return -1;
	for (int64_t t = 0; t < n; t++) {
		for (int i = 0; i < s->nscan; i++) {
			int64_t at_t = at(s->in_dirs, i) ? n - 1 - t : t;
			if (slice_lead(k, &b->in[s->nstate + i], k->in[1 + s->nstate + i], 2, bi * s->len + at_t) < 0)
				return -1;
		}
		if (body_run(k, b, t) < 0)
			return -1;
		scan_advance(s, b, items + bi * s->len + t, (size_t)(batch * s->len));
	}
	for (int j = 0; j < s->nstate; j++) {
		finals[j * batch + bi] = b->in[j];
		b->in[j] = NULL;
	}
	return 0;
}

/* Scan-8 output j: the final states of every batch entry, or a scan output padded with
 * zeros to [batch, len, ...]. */
static int scan8_output(ox_k *k, scan *s, int j, int64_t batch, ox_val **items, ox_val **finals)
{
	char what[64];
	if (j < s->nstate) {
		snprintf(what, sizeof what, "state value %d", j);
		if (alike(k, what, finals + j * batch, batch, 1, -1) < 0)
			return -1;
		ox_val *y = batch ? stack(k, what, finals + j * batch, batch, 1, 0, false, finals[j * batch])
				  : ox_val_ref(k->in[1 + j]);
		ox_out_set(k, j, y);
		return y ? 0 : -1;
	}
	int o = j - s->nstate, type, rank;
	int64_t dims[OX_MAX_RANK], n = batch * s->len;
	ox_val *const *v = items + o * n;
	snprintf(what, sizeof what, "scan output %d", o);
	const ox_val *model = first(v, n, 1);
	if (!model && declared(k, "body", j, &type, &rank, dims + 2) < 0)
		return -1;
	ox_val *y;
	if (model) {
		if (alike(k, what, v, n, 1, s->len) < 0)
			return -1;
		ox_val *flat = stack(k, what, v, n, 1, 0, false, model);
		dims[0] = batch, dims[1] = s->len;
		memcpy(dims + 2, model->dims, (size_t)model->rank * sizeof *dims);
		y = flat ? ox_tensor_view(flat, model->rank + 2, dims) : NULL;
		ox_val_unref(flat);
		if (flat && !y)
			return ox_kfail(k, "%s: out of memory or beyond the rank limit", what);
	} else {
		dims[0] = batch, dims[1] = s->len;
		y = rank + 2 <= OX_MAX_RANK ? zeros(k, type, rank + 2, dims) : NULL;
	}
	if (!y)
		return k->msg[0] ? -1 : ox_kfail(k, "%s: beyond the rank limit", what);
	ox_out_set(k, j, y);
	return 0;
}

static int scan8(ox_k *k, scan *s, body *b)
{
	int64_t batch = 0;
	if (scan8_setup(k, s, &batch) < 0)
		return -1;
	ox_val **items = slots(k, s->nout, batch, s->len), **finals = slots(k, s->nstate, batch, 1);
	int rc = items && finals ? 0 : -1;
	for (int64_t bi = 0; rc == 0 && bi < batch; bi++)
		rc = scan8_entry(k, s, b, bi, batch, items, finals);
	for (int j = 0; rc == 0 && j < k->nout; j++)
		if (ox_out_wanted(k, j))
			rc = scan8_output(k, s, j, batch, items, finals);
	slots_free(items, s->nout * batch * s->len);
	slots_free(finals, s->nstate * batch);
	return rc;
}

/* Scan-8 takes a batch axis and sequence_lens; from 9 there is neither. */
static int run_scan(ox_k *k, bool v8)
{
	scan s = {0};
	body b = {0};
	int rc = scan_open(k, v8, &s, &b);
	if (rc == 0)
		rc = v8 ? scan8(k, &s, &b) : scan9(k, &s, &b);
	body_close(&b);
	return rc;
}

OX_KERNEL(ox_op_Scan_8, run_scan(k, true))
OX_KERNEL(ox_op_Scan_9, run_scan(k, false))

/* ---- SequenceMap ----------------------------------------------------------------------- */

/* Runs the body on item i of every sequence input (tensor inputs as they are) for each
 * item of the first input; output j collects output j of every run. */
static int map_items(ox_k *k, body *b, size_t n, ox_val **outs)
{
	for (size_t i = 0; i < n; i++) {
		for (int j = 0; j < b->nin; j++) {
			ox_val *v = ox_in(k, j);
			ox_val_unref(b->in[j]);
			b->in[j] = ox_val_ref(v && v->kind == OX_SEQUENCE ? v->items[i] : v);
		}
		if (body_run(k, b, (int64_t)i) < 0)
			return -1;
		for (int j = 0; j < b->nout; j++) {
			char d[96];
			if (b->out[j]->kind != OX_TENSOR)
				return ox_kfail(k, "iteration %zu: output %d of the body is %s; expected a tensor", i, j,
						ox_val_describe(b->out[j], d, sizeof d));
			outs[j]->items[i] = b->out[j];
			b->out[j] = NULL;
		}
	}
	return 0;
}

/* The output sequences, with their element types from the body's declarations when
 * there are no items to take them from. */
static int map_outputs(ox_k *k, const ox_val *seq, ox_val **outs)
{
	const Onnx__GraphProto *g = ox_attr_graph(k, "body");
	for (int j = 0; j < k->nout; j++) {
		const Onnx__TypeProto *t = g && (size_t)j < g->n_output ? g->output[j]->type : NULL;
		int type = t && t->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ? t->tensor_type->elem_type : 0;
		if (!(outs[j] = ox_sequence_new(type, seq->nitems)))
			return ox_kfail(k, "out of memory");
	}
	return 0;
}

int ox_op_SequenceMap(ox_k *k)
{
	const ox_val *seq = ox_in(k, 0);
	if (!seq || seq->kind != OX_SEQUENCE)
		return ox_kfail(k, "input 0 must be a sequence");
	for (int j = 1; j < k->nin; j++) {
		const ox_val *v = ox_in(k, j);
		if (v && v->kind == OX_SEQUENCE && v->nitems != seq->nitems)
			return ox_kfail(k, "input %d is a sequence of %zu items, input 0 of %zu (they must match)", j,
					v->nitems, seq->nitems);
	}
	body b;
	if (body_open(k, &b, "body", k->nin, k->nout, "expected as many as SequenceMap has") < 0)
		return -1;
	ox_val **outs = calloc((size_t)k->nout + 1, sizeof *outs);
	int rc = !outs ? ox_kfail(k, "out of memory") : map_outputs(k, seq, outs);
	if (rc == 0)
		rc = map_items(k, &b, seq->nitems, outs);
	for (int j = 0; outs && j < k->nout; j++) {
		if (rc == 0 && outs[j]->nitems)
			outs[j]->type = outs[j]->items[0]->type;
		if (rc == 0)
			ox_out_set(k, j, outs[j]);
		else
			ox_val_unref(outs[j]);
	}
	free(outs);
	body_close(&b);
	return rc;
}
