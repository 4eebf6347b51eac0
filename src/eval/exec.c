/* The executor. Planning maps every name of a graph to a slot, checks the graph (inputs
 * defined before use, each name assigned once, operators known), records after which node
 * each value is last used so intermediates are freed as early as possible, plans the
 * sub-graphs of attributes (which see the enclosing scopes through captured slots), and
 * expands model-local function calls into plans of their bodies with the call's
 * attributes resolved. Running walks the nodes over a frame of slots. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "exec.h"
#include "names.h"
#include "registry.h"

typedef struct capture {
	int local, outer;
} capture;

typedef struct sub {
	const char *attr;
	ox_plan *plan;
} sub;

struct ox_node {
	const Onnx__NodeProto *proto;
	const ox_op *op;
	ox_plan *fn; /* the function body, planned for this call site */
	int64_t version;
	int *in, *out;
	int nin, nout;
	const Onnx__AttributeProto **attrs;
	size_t nattrs;
	sub *subs;
	size_t nsubs;
	int *frees;
	size_t nfrees;
};

struct ox_plan {
	ox_plan *parent;
	ox_names tab; /* name -> slot */
	int nslots, capslots;
	const char **slot_names;
	ox_val **init; /* per slot: an initializer's value, owned by the plan */
	int *inputs, *outputs;
	size_t ninputs, noutputs;
	const Onnx__ValueInfoProto **input_info; /* graphs, not function bodies */
	ox_node *nodes;
	size_t nnodes;
	capture *caps;
	size_t ncaps, capcaps;
	int *last; /* per slot, while planning */
	ox_plan *next;  /* every plan of a model, for ox_plan_free */
	ox_plan *chain; /* in the main plan: the first of them */
};

/* What planning one body needs beyond the body itself. */
typedef struct planner {
	ox_arena *a;
	const Onnx__ModelProto *model;
	ox_status *st;
	int depth;
	/* opsets in force: the model's, or a function's own */
	Onnx__OperatorSetIdProto **opsets;
	size_t nopsets;
	/* attributes of the function call being expanded, for attribute references */
	const Onnx__AttributeProto *const *call_attrs;
	size_t ncall_attrs;
	ox_plan **all; /* every plan made, so their initializers can be released */
} planner;

/* One graph or function body, seen the same way. */
typedef struct body {
	const char *what; /* for messages: "graph 'g'", "function 'f'" */
	size_t ninputs, noutputs, nnodes, ninit;
	const char *const *input_names;
	const char *const *output_names;
	Onnx__NodeProto *const *nodes;
	Onnx__TensorProto *const *init;
	size_t nsparse;
} body;

static int fail(planner *P, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(planner *P, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(P->st->msg, sizeof P->st->msg, fmt, ap);
	va_end(ap);
	P->st->code = code;
	return -1;
}

static void *alloc(planner *P, size_t n)
{
	void *p = ox_arena_alloc(P->a, n ? n : 1);
	if (!p)
		fail(P, ONNXTXT_ERR_NOMEM, "out of memory");
	return p;
}

/* ---- name table ---------------------------------------------------------------------- */

static int lookup(const ox_names *t, const char *name)
{
	const intptr_t *v = ox_names_get(t, name);
	return v ? (int)*v : -1;
}

static int insert(planner *P, ox_names *t, const char *name, int val)
{
	if (!ox_names_put(t, name, val))
		return fail(P, ONNXTXT_ERR_NOMEM, "out of memory");
	return 0;
}

/* ---- slots --------------------------------------------------------------------------- */

static int new_slot(planner *P, ox_plan *p, const char *name)
{
	if (p->nslots == p->capslots) {
		int cap = p->capslots ? 2 * p->capslots : 16;
		const char **n = alloc(P, (size_t)cap * sizeof *n);
		ox_val **v = alloc(P, (size_t)cap * sizeof *v);
		int *l = alloc(P, (size_t)cap * sizeof *l);
		if (!n || !v || !l)
			return -1;
		if (p->nslots) {
			memcpy(n, p->slot_names, (size_t)p->nslots * sizeof *n);
			memcpy(v, p->init, (size_t)p->nslots * sizeof *v);
			memcpy(l, p->last, (size_t)p->nslots * sizeof *l);
		}
		p->slot_names = n, p->init = v, p->last = l, p->capslots = cap;
	}
	int s = p->nslots++;
	p->slot_names[s] = name;
	p->last[s] = -1;
	return insert(P, &p->tab, name, s) < 0 ? -1 : s;
}

/* The slot of name in p, capturing it from the enclosing scopes when p does not define
 * it; -1 when no scope does (-2 after an allocation failure). */
static int resolve(planner *P, ox_plan *p, const char *name)
{
	int s = lookup(&p->tab, name);
	if (s >= 0 || !p->parent)
		return s;
	int outer = resolve(P, p->parent, name);
	if (outer < 0)
		return outer;
	if (p->ncaps == p->capcaps) {
		size_t cap = p->capcaps ? 2 * p->capcaps : 8;
		capture *c = alloc(P, cap * sizeof *c);
		if (!c)
			return -2;
		if (p->ncaps)
			memcpy(c, p->caps, p->ncaps * sizeof *c);
		p->caps = c, p->capcaps = cap;
	}
	if ((s = new_slot(P, p, name)) < 0)
		return -2;
	p->caps[p->ncaps++] = (capture){s, outer};
	return s;
}

/* ---- nodes ----------------------------------------------------------------------------- */

static const char *node_label(const Onnx__NodeProto *n, size_t i, char *buf, size_t size)
{
	if (n->name && *n->name)
		snprintf(buf, size, "node %zu '%s' (%s)", i, n->name, n->op_type ? n->op_type : "?");
	else
		snprintf(buf, size, "node %zu (%s)", i, n->op_type ? n->op_type : "?");
	return buf;
}

static int64_t opset_version(const planner *P, const char *domain)
{
	bool dflt = !domain || !*domain || strcmp(domain, "ai.onnx") == 0;
	for (size_t i = 0; i < P->nopsets; i++) {
		const char *d = P->opsets[i]->domain ? P->opsets[i]->domain : "";
		bool idflt = !*d || strcmp(d, "ai.onnx") == 0;
		if (dflt ? idflt : strcmp(d, domain) == 0)
			return P->opsets[i]->version;
	}
	return -1;
}

static const Onnx__FunctionProto *find_function(const planner *P, const Onnx__NodeProto *n)
{
	const char *dom = n->domain ? n->domain : "", *ovl = n->overload ? n->overload : "";
	for (size_t i = 0; i < P->model->n_functions; i++) {
		const Onnx__FunctionProto *f = P->model->functions[i];
		if (f->name && n->op_type && strcmp(f->name, n->op_type) == 0 &&
		    strcmp(f->domain ? f->domain : "", dom) == 0 && strcmp(f->overload ? f->overload : "", ovl) == 0)
			return f;
	}
	return NULL;
}

static const Onnx__AttributeProto *call_attr(const planner *P, const char *name)
{
	for (size_t i = 0; i < P->ncall_attrs; i++)
		if (P->call_attrs[i]->name && strcmp(P->call_attrs[i]->name, name) == 0)
			return P->call_attrs[i];
	return NULL;
}

/* The node's attributes with references ("alpha: float = @a") replaced by the value the
 * function call supplies, renamed to the referring attribute; unresolved ones vanish. */
static int resolve_attrs(planner *P, ox_node *N)
{
	const Onnx__NodeProto *n = N->proto;
	if (!(N->attrs = alloc(P, n->n_attribute * sizeof *N->attrs)))
		return -1;
	for (size_t i = 0; i < n->n_attribute; i++) {
		const Onnx__AttributeProto *a = n->attribute[i];
		if (a->ref_attr_name && *a->ref_attr_name) {
			const Onnx__AttributeProto *v = call_attr(P, a->ref_attr_name);
			if (!v)
				continue;
			Onnx__AttributeProto *c = alloc(P, sizeof *c);
			if (!c)
				return -1;
			*c = *v;
			c->name = a->name;
			c->ref_attr_name = NULL;
			a = c;
		}
		N->attrs[N->nattrs++] = a;
	}
	return 0;
}

static ox_plan *plan_body(planner *P, const body *b, ox_plan *parent, const Onnx__GraphProto *g);

static int plan_subgraphs(planner *P, ox_plan *p, ox_node *N, int index, const char *label)
{
	for (size_t i = 0; i < N->nattrs; i++)
		if (N->attrs[i]->g)
			N->nsubs++;
	if (!N->nsubs)
		return 0;
	if (P->depth >= OX_MAX_NESTING)
		return fail(P, ONNXTXT_ERR_LIMIT, "%s: sub-graphs nest deeper than %d", label, OX_MAX_NESTING);
	if (!(N->subs = alloc(P, N->nsubs * sizeof *N->subs)))
		return -1;
	size_t k = 0;
	for (size_t i = 0; i < N->nattrs; i++) {
		const Onnx__GraphProto *g = N->attrs[i]->g;
		if (!g)
			continue;
		const char **in = alloc(P, g->n_input * sizeof *in), **out = alloc(P, g->n_output * sizeof *out);
		if (!in || !out)
			return -1;
		for (size_t j = 0; j < g->n_input; j++)
			in[j] = g->input[j]->name ? g->input[j]->name : "";
		for (size_t j = 0; j < g->n_output; j++)
			out[j] = g->output[j]->name ? g->output[j]->name : "";
		char what[300];
		if (snprintf(what, sizeof what, "%s, attribute '%s'", label, N->attrs[i]->name) < 0)
			what[0] = '\0';
		body b = {what, g->n_input, g->n_output, g->n_node, g->n_initializer, in, out, g->node,
			  g->initializer, g->n_sparse_initializer};
		P->depth++;
		ox_plan *s = plan_body(P, &b, p, g);
		P->depth--;
		if (!s)
			return -1;
		/* what the sub-graph captures is used by this node */
		for (size_t c = 0; c < s->ncaps; c++)
			p->last[s->caps[c].outer] = index;
		N->subs[k++] = (sub){N->attrs[i]->name, s};
	}
	return 0;
}

static int plan_call(planner *P, ox_node *N, const Onnx__FunctionProto *f, const char *label)
{
	if (P->depth >= OX_MAX_NESTING)
		return fail(P, ONNXTXT_ERR_LIMIT, "%s: function calls nest deeper than %d (is the function recursive?)",
			    label, OX_MAX_NESTING);
	/* the call's attributes, then the function's defaults for the ones it leaves out */
	size_t n = N->nattrs + f->n_attribute_proto;
	const Onnx__AttributeProto **ca = alloc(P, n * sizeof *ca);
	if (!ca)
		return -1;
	size_t k = 0;
	for (size_t i = 0; i < N->nattrs; i++)
		ca[k++] = N->attrs[i];
	for (size_t i = 0; i < f->n_attribute_proto; i++) {
		bool given = false;
		for (size_t j = 0; j < N->nattrs; j++)
			given |= strcmp(N->attrs[j]->name, f->attribute_proto[i]->name) == 0;
		if (!given)
			ca[k++] = f->attribute_proto[i];
	}
	planner Q = *P;
	Q.call_attrs = ca;
	Q.ncall_attrs = k;
	Q.depth = P->depth + 1;
	if (f->n_opset_import) {
		Q.opsets = f->opset_import;
		Q.nopsets = f->n_opset_import;
	}
	char what[300];
	if (snprintf(what, sizeof what, "%s, function '%s'", label, f->name) < 0)
		what[0] = '\0';
	body b = {what, f->n_input, f->n_output, f->n_node, 0, (const char *const *)f->input,
		  (const char *const *)f->output, f->node, NULL, 0};
	N->fn = plan_body(&Q, &b, NULL, NULL);
	return N->fn ? 0 : -1;
}

/* The name is used before any node defines it: say whether some later node does. */
static int undefined(planner *P, const body *b, size_t i, const char *name, const char *label)
{
	for (size_t j = i + 1; j < b->nnodes; j++)
		for (size_t o = 0; o < b->nodes[j]->n_output; o++)
			if (strcmp(b->nodes[j]->output[o], name) == 0)
				return fail(P, ONNXTXT_ERR_EVAL,
					    "%s: input '%s' is used before node %zu defines it (nodes must be in topological order)",
					    label, name, j);
	return fail(P, ONNXTXT_ERR_EVAL, "%s: input '%s' is not defined", label, name);
}

static int plan_inputs(planner *P, ox_plan *p, const body *b, size_t i, ox_node *N, const char *label)
{
	const Onnx__NodeProto *n = N->proto;
	N->nin = (int)n->n_input;
	if (!(N->in = alloc(P, n->n_input * sizeof *N->in)))
		return -1;
	for (size_t j = 0; j < n->n_input; j++) {
		const char *name = n->input[j];
		N->in[j] = -1;
		if (!*name)
			continue;
		int s = resolve(P, p, name);
		if (s == -2)
			return -1;
		if (s < 0)
			return undefined(P, b, i, name, label);
		N->in[j] = s;
		p->last[s] = (int)i;
	}
	return 0;
}

static int plan_outputs(planner *P, ox_plan *p, ox_node *N, size_t i, const char *label)
{
	const Onnx__NodeProto *n = N->proto;
	N->nout = (int)n->n_output;
	if (!(N->out = alloc(P, n->n_output * sizeof *N->out)))
		return -1;
	for (size_t j = 0; j < n->n_output; j++) {
		const char *name = n->output[j];
		N->out[j] = -1;
		if (!*name)
			continue;
		if (lookup(&p->tab, name) >= 0)
			return fail(P, ONNXTXT_ERR_EVAL, "%s: output '%s' is already defined (each name is assigned once)",
				    label, name);
		int s = new_slot(P, p, name);
		if (s < 0)
			return -1;
		N->out[j] = s;
		p->last[s] = (int)i;
	}
	return 0;
}

static int plan_node(planner *P, ox_plan *p, const body *b, size_t i)
{
	ox_node *N = &p->nodes[i];
	const Onnx__NodeProto *n = b->nodes[i];
	char label[300];
	node_label(n, i, label, sizeof label);
	N->proto = n;
	if (plan_inputs(P, p, b, i, N, label) < 0 || resolve_attrs(P, N) < 0)
		return -1;
	const char *dom = n->domain ? n->domain : "";
	N->version = opset_version(P, dom);
	const Onnx__FunctionProto *f = find_function(P, n);
	if (!f && N->version < 0)
		return fail(P, ONNXTXT_ERR_EVAL, "%s: domain '%s' is not imported (opset_import)", label, dom);
	if (f ? plan_call(P, N, f, label) < 0 : !(N->op = ox_op_find(dom, n->op_type)))
		return f ? -1 : fail(P, ONNXTXT_ERR_UNSUPPORTED, "%s: operator %s%s%s is not supported", label, dom,
				     *dom ? "." : "", n->op_type);
	if (plan_subgraphs(P, p, N, (int)i, label) < 0)
		return -1;
	return plan_outputs(P, p, N, i, label);
}

/* After which node each slot can go: frees[] lists per node; outputs stay. */
static int plan_frees(planner *P, ox_plan *p)
{
	for (size_t o = 0; o < p->noutputs; o++)
		p->last[p->outputs[o]] = -1;
	size_t *count = calloc(p->nnodes + 1, sizeof *count);
	if (!count)
		return fail(P, ONNXTXT_ERR_NOMEM, "out of memory");
	for (int s = 0; s < p->nslots; s++)
		if (p->last[s] >= 0)
			count[p->last[s]]++;
	int rc = 0;
	for (size_t i = 0; i < p->nnodes && rc == 0; i++)
		if (count[i] && !(p->nodes[i].frees = alloc(P, count[i] * sizeof(int))))
			rc = -1;
	for (int s = 0; s < p->nslots && rc == 0; s++)
		if (p->last[s] >= 0) {
			ox_node *N = &p->nodes[p->last[s]];
			N->frees[N->nfrees++] = s;
		}
	free(count);
	return rc;
}

static int plan_initializers(planner *P, ox_plan *p, const body *b)
{
	if (b->nsparse)
		return fail(P, ONNXTXT_ERR_UNSUPPORTED, "%s: sparse initializers are not supported", b->what);
	for (size_t i = 0; i < b->ninit; i++) {
		const char *name = b->init[i]->name ? b->init[i]->name : "";
		if (lookup(&p->tab, name) >= 0)
			return fail(P, ONNXTXT_ERR_EVAL, "%s: initializer '%s' is defined twice", b->what, name);
		int s = new_slot(P, p, name);
		if (s < 0)
			return -1;
		if (!(p->init[s] = ox_val_from_tensor_proto(b->init[i], P->st->msg)))
			return P->st->code = ox_convert_status(P->st->msg, ONNXTXT_ERR_EVAL), -1;
	}
	return 0;
}

static int plan_io(planner *P, ox_plan *p, const body *b)
{
	p->ninputs = b->ninputs;
	p->noutputs = b->noutputs;
	if (!(p->inputs = alloc(P, b->ninputs * sizeof(int))) || !(p->outputs = alloc(P, b->noutputs * sizeof(int))))
		return -1;
	for (size_t i = 0; i < b->ninputs; i++) {
		int s = lookup(&p->tab, b->input_names[i]);
		if (s >= 0 && !p->init[s])
			return fail(P, ONNXTXT_ERR_EVAL, "%s: input '%s' is declared twice", b->what, b->input_names[i]);
		if (s < 0 && (s = new_slot(P, p, b->input_names[i])) < 0)
			return -1;
		p->inputs[i] = s;
	}
	return 0;
}

static int plan_outputs_of_body(planner *P, ox_plan *p, const body *b)
{
	for (size_t o = 0; o < b->noutputs; o++) {
		int s = resolve(P, p, b->output_names[o]);
		if (s == -2)
			return -1;
		if (s < 0)
			return fail(P, ONNXTXT_ERR_EVAL, "%s: output '%s' is never computed", b->what, b->output_names[o]);
		p->outputs[o] = s;
	}
	return 0;
}

static ox_plan *plan_body(planner *P, const body *b, ox_plan *parent, const Onnx__GraphProto *g)
{
	ox_plan *p = alloc(P, sizeof *p);
	if (!p)
		return NULL;
	p->next = *P->all;
	*P->all = p;
	p->parent = parent;
	p->nnodes = b->nnodes;
	if (!(p->nodes = alloc(P, b->nnodes * sizeof *p->nodes)))
		return NULL;
	if (plan_initializers(P, p, b) < 0 || plan_io(P, p, b) < 0)
		return NULL;
	if (g && !(p->input_info = alloc(P, g->n_input * sizeof *p->input_info)))
		return NULL;
	for (size_t i = 0; g && i < g->n_input; i++)
		p->input_info[i] = g->input[i];
	for (size_t i = 0; i < b->nnodes; i++)
		if (plan_node(P, p, b, i) < 0)
			return NULL;
	if (plan_outputs_of_body(P, p, b) < 0 || plan_frees(P, p) < 0)
		return NULL;
	return p;
}

static void release(ox_plan *p)
{
	for (; p; p = p->next) {
		for (int s = 0; s < p->nslots; s++)
			ox_val_unref(p->init[s]);
		ox_names_free(&p->tab);
	}
}

void ox_plan_free(ox_plan *p)
{
	if (p)
		release(p->chain);
}

ox_plan *ox_plan_model(ox_arena *a, const Onnx__ModelProto *m, ox_status *st)
{
	ox_plan *all = NULL;
	planner P = {a, m, st, 0, m->opset_import, m->n_opset_import, NULL, 0, &all};
	st->code = 0;
	st->msg[0] = '\0';
	const Onnx__GraphProto *g = m->graph;
	if (!g) {
		fail(&P, ONNXTXT_ERR_EVAL, "the model has no graph");
		return NULL;
	}
	const char **in = alloc(&P, g->n_input * sizeof *in), **out = alloc(&P, g->n_output * sizeof *out);
	if (!in || !out)
		return NULL;
	for (size_t j = 0; j < g->n_input; j++)
		in[j] = g->input[j]->name ? g->input[j]->name : "";
	for (size_t j = 0; j < g->n_output; j++)
		out[j] = g->output[j]->name ? g->output[j]->name : "";
	char what[300];
	snprintf(what, sizeof what, "graph '%s'", g->name ? g->name : "");
	body b = {what, g->n_input, g->n_output, g->n_node, g->n_initializer, in, out, g->node, g->initializer,
		  g->n_sparse_initializer};
	ox_plan *p = plan_body(&P, &b, NULL, g);
	if (!p) {
		release(all);
		return NULL;
	}
	p->chain = all;
	return p;
}

/* ---- plans as the session sees them --------------------------------------------------- */

size_t ox_plan_inputs(const ox_plan *p)
{
	return p->ninputs;
}

const Onnx__ValueInfoProto *ox_plan_input(const ox_plan *p, size_t i, int *has_default)
{
	if (has_default)
		*has_default = p->init[p->inputs[i]] != NULL;
	return p->input_info[i];
}

size_t ox_plan_outputs(const ox_plan *p)
{
	return p->noutputs;
}

const char *ox_plan_output_name(const ox_plan *p, size_t i)
{
	return p->slot_names[p->outputs[i]];
}


/* ---- running ------------------------------------------------------------------------- */

typedef struct frame {
	const ox_plan *p;
	ox_val **v;
	struct frame *parent;
	ox_status *st;
} frame;

static int run_plan(const ox_plan *p, frame *parent, ox_val *const *in, size_t nin, ox_val **out, size_t nout,
		    ox_status *st);

static int run_fail(ox_status *st, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int run_fail(ox_status *st, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(st->msg, sizeof st->msg, fmt, ap);
	va_end(ap);
	st->code = code;
	return -1;
}

/* "float[1,3,224,224], int64[2]": what the node was given, for error messages. */
static void describe_inputs(ox_val *const *in, int nin, char *buf, size_t size)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int i = 0; i < nin && n + 40 < size; i++) {
		const ox_val *v = in[i];
		n += (size_t)snprintf(buf + n, size - n, "%s", i ? ", " : "");
		if (!v) {
			n += (size_t)snprintf(buf + n, size - n, "(none)");
		} else if (v->kind == OX_TENSOR) {
			n += (size_t)snprintf(buf + n, size - n, "%s[", ox_elem_label(v->type));
			for (int d = 0; d < v->rank && n + 24 < size; d++)
				n += (size_t)snprintf(buf + n, size - n, "%s%lld", d ? "," : "", (long long)v->dims[d]);
			n += (size_t)snprintf(buf + n, size - n, "]");
		} else {
			n += (size_t)snprintf(buf + n, size - n, "%s of %zu", v->kind == OX_SEQUENCE ? "sequence" : "optional",
					      v->nitems);
		}
	}
}

/* The label is formatted only on failure: loop bodies call kernels millions of times. */
static int call_kernel(frame *F, const ox_node *N, size_t i, ox_val **in, ox_val **out)
{
	char msg[OX_MSG], label[300];
	msg[0] = '\0';
	if (N->fn) {
		ox_status inner;
		if (run_plan(N->fn, NULL, in, (size_t)N->nin, out, (size_t)N->nout, &inner) == 0)
			return 0;
		node_label(N->proto, i, label, sizeof label);
		return run_fail(F->st, inner.code, "%s: %s", label, inner.msg);
	}
	ox_k k = {N, N->proto, N->version, in, N->nin, out, N->nout, N->attrs, N->nattrs, F, msg};
	if (N->op->run(&k) == 0)
		return 0;
	node_label(N->proto, i, label, sizeof label);
	char shapes[200];
	describe_inputs(in, N->nin, shapes, sizeof shapes);
	/* a kernel that ran out of memory says so in its message */
	return run_fail(F->st, ox_convert_status(msg, ONNXTXT_ERR_EVAL), "%s: %s%s%s%s", label, msg[0] ? msg : "failed",
			N->nin ? " (inputs: " : "", shapes, N->nin ? ")" : "");
}

static int run_node(frame *F, size_t i)
{
	const ox_node *N = &F->p->nodes[i];
	ox_val *inbuf[16], *outbuf[16];
	ox_val **in = N->nin <= 16 ? inbuf : calloc((size_t)N->nin, sizeof *in);
	ox_val **out = N->nout <= 16 ? outbuf : calloc((size_t)N->nout, sizeof *out);
	int rc = in && out ? 0 : run_fail(F->st, ONNXTXT_ERR_NOMEM, "out of memory");
	for (int j = 0; rc == 0 && j < N->nin; j++) {
		in[j] = N->in[j] >= 0 ? F->v[N->in[j]] : NULL;
		if (N->in[j] >= 0 && !in[j])
			rc = run_fail(F->st, ONNXTXT_ERR_EVAL, "node %zu (%s): input '%s' has no value", i, N->proto->op_type,
				      F->p->slot_names[N->in[j]]);
	}
	if (out)
		memset(out, 0, (size_t)N->nout * sizeof *out);
	if (rc == 0)
		rc = call_kernel(F, N, i, in, out);
	for (int j = 0; rc == 0 && j < N->nout; j++)
		if (N->out[j] >= 0 && !out[j])
			rc = run_fail(F->st, ONNXTXT_ERR_EVAL, "node %zu (%s): output '%s' was not produced", i,
				      N->proto->op_type, F->p->slot_names[N->out[j]]);
	for (int j = 0; out && j < N->nout; j++) {
		if (rc == 0 && N->out[j] >= 0)
			F->v[N->out[j]] = out[j];
		else
			ox_val_unref(out[j]);
	}
	for (size_t j = 0; rc == 0 && j < N->nfrees; j++) {
		ox_val_unref(F->v[N->frees[j]]);
		F->v[N->frees[j]] = NULL;
	}
	if (in != inbuf)
		free(in);
	if (out != outbuf)
		free(out);
	return rc;
}

/* A graph input declared optional(T) that is given a T holds it as a present optional, as
 * its type says: a Loop carries the sequence its body returns into the body input declared
 * optional(seq(T)), and OptionalHasElement before opset 18 takes optionals only. */
static ox_val *bind_input(const ox_plan *p, size_t i, ox_val *x)
{
	const Onnx__TypeProto *t = p->input_info ? p->input_info[i]->type : NULL;
	if (!t || t->value_case != ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE || x->kind == OX_OPTIONAL)
		return ox_val_ref(x);
	return ox_optional_new(x->kind, x->type, ox_val_ref(x));
}

static int run_plan(const ox_plan *p, frame *parent, ox_val *const *in, size_t nin, ox_val **out, size_t nout,
		    ox_status *st)
{
	ox_val *buf[64];
	ox_val **v = p->nslots <= 64 ? buf : calloc((size_t)p->nslots, sizeof *v);
	if (!v)
		return run_fail(st, ONNXTXT_ERR_NOMEM, "out of memory");
	frame F = {p, v, parent, st};
	for (int s = 0; s < p->nslots; s++)
		v[s] = ox_val_ref(p->init[s]);
	for (size_t c = 0; c < p->ncaps; c++)
		v[p->caps[c].local] = ox_val_ref(parent->v[p->caps[c].outer]);
	int rc = 0;
	for (size_t i = 0; i < p->ninputs && i < nin; i++)
		if (in[i]) {
			ox_val_unref(v[p->inputs[i]]);
			if (!(v[p->inputs[i]] = bind_input(p, i, in[i])))
				rc = run_fail(st, ONNXTXT_ERR_NOMEM, "out of memory");
		}
	for (size_t i = 0; i < p->nnodes && rc == 0; i++)
		rc = run_node(&F, i);
	for (size_t o = 0; o < nout; o++)
		out[o] = NULL;
	for (size_t o = 0; rc == 0 && o < p->noutputs && o < nout; o++)
		if (!(out[o] = ox_val_ref(v[p->outputs[o]])))
			rc = run_fail(st, ONNXTXT_ERR_EVAL, "output '%s' has no value", p->slot_names[p->outputs[o]]);
	if (rc)
		for (size_t o = 0; o < nout; o++) {
			ox_val_unref(out[o]);
			out[o] = NULL;
		}
	for (int s = 0; s < p->nslots; s++)
		ox_val_unref(v[s]);
	if (v != buf)
		free(v);
	return rc;
}

int ox_plan_run(const ox_plan *p, ox_val *const *in, ox_val **out, ox_status *st)
{
	st->code = 0;
	st->msg[0] = '\0';
	return run_plan(p, NULL, in, p->ninputs, out, p->noutputs, st);
}

/* ---- sub-graphs, for control-flow kernels ---------------------------------------------- */

static const ox_plan *sub_plan(const ox_k *k, const char *attr)
{
	const ox_node *N = k->node;
	for (size_t i = 0; i < N->nsubs; i++)
		if (strcmp(N->subs[i].attr, attr) == 0)
			return N->subs[i].plan;
	return NULL;
}

int ox_run_graph(ox_k *k, const char *attr, ox_val *const *in, int nin, ox_val **out, int nout)
{
	const ox_plan *s = sub_plan(k, attr);
	if (!s)
		return ox_kfail(k, "attribute '%s' must hold a graph", attr);
	ox_status st;
	if (run_plan(s, k->exec, in, (size_t)nin, out, (size_t)nout, &st) < 0)
		return ox_kfail(k, "in attribute '%s': %s", attr, st.msg);
	return 0;
}

int ox_graph_arity(ox_k *k, const char *attr, int *nout)
{
	const ox_plan *s = sub_plan(k, attr);
	if (!s)
		return -1;
	if (nout)
		*nout = (int)s->noutputs;
	return (int)s->ninputs;
}

/* ---- the enclosing body, for Gradient ------------------------------------------------- */

static const ox_plan *body_of(const ox_k *k)
{
	return ((const frame *)k->exec)->p;
}

int ox_body_slots(const ox_k *k)
{
	return body_of(k)->nslots;
}

int ox_body_slot(const ox_k *k, const char *name)
{
	return lookup(&body_of(k)->tab, name);
}

ox_val *ox_body_init(const ox_k *k, int slot)
{
	return body_of(k)->init[slot];
}

size_t ox_body_nodes(const ox_k *k)
{
	return body_of(k)->nnodes;
}

const int *ox_body_node(const ox_k *k, size_t i, ox_k *node, const int **out)
{
	const ox_node *N = &body_of(k)->nodes[i];
	*node = (ox_k){N, N->proto, N->version, NULL, N->nin, NULL, N->nout, N->attrs, N->nattrs, k->exec, k->msg};
	*out = N->out;
	return N->in;
}

int ox_body_call(ox_k *k, size_t i, ox_val **in, ox_val **out)
{
	frame *F = k->exec;
	ox_status st;
	frame G = {F->p, F->v, F->parent, &st};
	if (call_kernel(&G, &F->p->nodes[i], i, in, out) < 0)
		return ox_kfail(k, "%s", st.msg);
	return 0;
}
