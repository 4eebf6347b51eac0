/* The executor. Planning maps every name of a graph to a slot, checks the graph (inputs
 * defined before use, each name assigned once, operators known), records after which node
 * each value is last used so intermediates are freed as early as possible, plans the
 * sub-graphs of attributes (which see the enclosing scopes through captured slots), and
 * plans model-local function bodies with the call's attributes resolved, once per
 * (function, opsets, attribute values), shared by the call sites. Running walks the nodes
 * over a frame of slots. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "convert.h"
#include "diag.h"
#include "exec.h"
#include "fold.h"
#include "infer/infer.h"
#include "names.h"
#include "ops/conv.h"
#include "proto.h"
#include "simd/cpu.h"
#include "registry.h"
#include "threads.h"
#include "schema/schema.h"
#include "types.h"

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
	const ox_schema *schema; /* of op at the imported opset (NULL outside the standard domains) */
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
	bool foldable;         /* deterministic, no sub-graphs: results on constants may be kept */
	struct folded *cache;  /* outputs computed from constant inputs, see "folding" */
	struct fusion *fuse;   /* nodes after this one done in its output pass */
	bool fused_away;       /* done by an earlier node's fusion whenever input fused_in is absent */
	int fused_in;
};

struct ox_plan {
	ox_plan *parent;
	bool main; /* the model's main graph: its nodes are "graph.node[i]" */
	ox_names tab; /* name -> slot */
	int nslots, capslots;
	const char **slot_names;
	ox_val **init; /* per slot: an initializer's value, owned by the plan */
	int *inputs, *outputs;
	size_t ninputs, noutputs;
	const Onnx__ValueInfoProto **input_info, **output_info; /* graphs, not function bodies */
	ox_node *nodes;
	size_t nnodes;
	capture *caps;
	size_t ncaps, capcaps;
	int *last; /* per slot, while planning */
	int height; /* how deep function calls and sub-graphs nest below this body */
	ox_plan *next;  /* every plan of a model, for ox_plan_free */
	ox_plan *chain; /* in the main plan: the first of them */
	ox_observer observe; /* in the main plan: shown each value its nodes store, or NULL */
	void *observe_ctx;
	struct placement *place; /* in the main plan: values made in a Concat's output, or NULL */
	const Onnx__ModelProto *model; /* in the main plan */
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
	/* function bodies planned so far, shared by their call sites: from the key of a call
	 * (call_key) to its ox_plan */
	ox_names *fns;
	size_t *planned;      /* nodes and attributes planned so far, against ox_plan_limit */
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

/* "graph.node[3] (Relu)", the path check gives the node; inside a sub-graph or function
 * body, "node[0] (Add)" after the label of the node that runs it. */
static const char *node_label(const Onnx__NodeProto *n, size_t i, bool main, char *buf, size_t size)
{
	snprintf(buf, size, "%snode[%zu] (%s%s%s)", main ? "graph." : "", i, n->domain && *n->domain ? n->domain : "",
		 n->domain && *n->domain ? "." : "", n->op_type ? n->op_type : "?");
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

/* ---- function bodies, planned once per key ------------------------------------------ */

/* The key of a call: the function, the opsets in force and the call's attributes, each
 * packed after its length; all that planning a body depends on. Input types are not part
 * of it: the planner does not specialise on types (kernels dispatch on them at run time). */
static const uint8_t *call_key(planner *P, const Onnx__FunctionProto *f, Onnx__OperatorSetIdProto **opsets,
			       const Onnx__AttributeProto *const *ca, size_t n, size_t *len)
{
	size_t head = sizeof f + sizeof opsets, total = head + ox_attrs_pack(ca, n, NULL);
	uint8_t *b = alloc(P, total);
	if (!b)
		return NULL;
	memcpy(b, &f, sizeof f);
	memcpy(b + sizeof f, &opsets, sizeof opsets);
	ox_attrs_pack(ca, n, b + head);
	*len = total;
	return b;
}

/* The call's attributes, then the function's defaults for the ones it leaves out. */
static const Onnx__AttributeProto **call_attrs(planner *P, const ox_node *N, const Onnx__FunctionProto *f,
					       size_t *count)
{
	size_t n = N->nattrs + f->n_attribute_proto, k = 0;
	const Onnx__AttributeProto **ca = alloc(P, n * sizeof *ca);
	if (!ca)
		return NULL;
	for (size_t i = 0; i < N->nattrs; i++)
		ca[k++] = N->attrs[i];
	for (size_t i = 0; i < f->n_attribute_proto; i++) {
		bool given = false;
		for (size_t j = 0; j < N->nattrs; j++)
			given |= strcmp(N->attrs[j]->name, f->attribute_proto[i]->name) == 0;
		if (!given)
			ca[k++] = f->attribute_proto[i];
	}
	*count = k;
	return ca;
}

static int plan_call(planner *P, ox_node *N, const Onnx__FunctionProto *f, const char *label)
{
	static const char deep[] = "%s: function calls nest deeper than %d (is the function recursive?)";
	if (P->depth >= OX_MAX_NESTING)
		return fail(P, ONNXTXT_ERR_LIMIT, deep, label, OX_MAX_NESTING);
	planner Q = *P;
	if (!(Q.call_attrs = call_attrs(P, N, f, &Q.ncall_attrs)))
		return -1;
	Q.depth = P->depth + 1;
	if (f->n_opset_import) {
		Q.opsets = f->opset_import;
		Q.nopsets = f->n_opset_import;
	}
	size_t len;
	const uint8_t *key = call_key(P, f, Q.opsets, Q.call_attrs, Q.ncall_attrs, &len);
	if (!key)
		return -1;
	const intptr_t *done = ox_names_find(P->fns, key, len);
	if (done) {
		/* planned at a shallower call site: its nesting must still fit from here */
		ox_plan *shared = (ox_plan *)*done;
		if (P->depth + shared->height >= OX_MAX_NESTING)
			return fail(P, ONNXTXT_ERR_LIMIT, deep, label, OX_MAX_NESTING);
		N->fn = shared;
		return 0;
	}
	char what[300];
	if (snprintf(what, sizeof what, "%s, function '%s'", label, f->name) < 0)
		what[0] = '\0';
	body b = {what, f->n_input, f->n_output, f->n_node, 0, (const char *const *)f->input,
		  (const char *const *)f->output, f->node, NULL, 0};
	if (!(N->fn = plan_body(&Q, &b, NULL, NULL)))
		return -1;
	return ox_names_add(P->fns, key, len, (intptr_t)N->fn) ? 0 : fail(P, ONNXTXT_ERR_NOMEM, "out of memory");
}

/* The name is used before any node defines it: say whether some later node does. */
static int undefined(planner *P, const body *b, size_t i, const char *name, const char *label)
{
	for (size_t j = i + 1; j < b->nnodes; j++)
		for (size_t o = 0; o < b->nodes[j]->n_output; o++)
			if (strcmp(b->nodes[j]->output[o], name) == 0)
				return fail(P, ONNXTXT_ERR_EVAL,
					    "%s: input '%s' is used before node[%zu] defines it (nodes must be in topological order)",
					    label, name, j);
	return fail(P, ONNXTXT_ERR_EVAL, "%s: input '%s' is not defined", label, name);
}

/* The slot one name of node i reads (out false: found, or an error saying why not) or
 * writes (out true: a new one, each name assigned once); -1 for an empty name (an optional
 * one left out), -2 after failing. */
static int name_slot(planner *P, ox_plan *p, const body *b, size_t i, const char *name, bool out, const char *label)
{
	if (!*name)
		return -1;
	if (out && lookup(&p->tab, name) >= 0) {
		fail(P, ONNXTXT_ERR_EVAL, "%s: output '%s' is already defined (each name is assigned once)", label, name);
		return -2;
	}
	int s = out ? new_slot(P, p, name) : resolve(P, p, name);
	if (s == -1 && !out)
		undefined(P, b, i, name, label);
	return s < 0 ? -2 : s;
}

/* The slots of node i's inputs (out false) or outputs (out true); each slot notes the last
 * node that uses it. */
static int plan_slots(planner *P, ox_plan *p, const body *b, size_t i, bool out, const char *label)
{
	ox_node *N = &p->nodes[i];
	size_t n = out ? N->proto->n_output : N->proto->n_input;
	char *const *names = out ? N->proto->output : N->proto->input;
	*(out ? &N->nout : &N->nin) = (int)n;
	int *slots = *(out ? &N->out : &N->in) = alloc(P, n * sizeof *slots);
	if (!slots)
		return -1;
	for (size_t j = 0; j < n; j++) {
		if ((slots[j] = name_slot(P, p, b, i, names[j], out, label)) == -2)
			return -1;
		if (slots[j] >= 0)
			p->last[slots[j]] = (int)i;
	}
	return 0;
}

size_t ox_plan_limit = OX_MAX_PLANNED;

/* The schema attribute nearest a misspelled name, for "did you mean". */
static const char *near_attr(const ox_schema *s, const char *name)
{
	const char *best = NULL;
	size_t bd = strlen(name) >= 5 ? 3 : 2;
	for (size_t i = 0; i < s->n_attrs; i++) {
		size_t d = ox_edit_distance(name, strlen(name), s->attrs[i].name, strlen(s->attrs[i].name), true);
		if (d < bd) {
			bd = d;
			best = s->attrs[i].name;
		}
	}
	return best;
}

static const char *attr_type(int type)
{
	const char *s = ox_attr_type_name(type);
	return s ? s : "undefined";
}

/* The type an attribute holds: declared, else that of its one value. */
static int held_type(const Onnx__AttributeProto *a)
{
	if (a->has_type && a->type)
		return a->type;
	if (a->has_f || a->has_i || a->has_s)
		return a->has_f ? ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT
		       : a->has_i ? ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT : ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
	return 0;
}

/* The node's attributes against its schema at the imported opset: none unknown, each of
 * its type, every required one there; a session refuses the model otherwise, rather than
 * run with a misspelled attribute silently ignored. */
static int check_attrs(planner *P, const ox_node *N, const ox_schema *s, const char *label)
{
	for (size_t i = 0; i < N->nattrs; i++) {
		const Onnx__AttributeProto *a = N->attrs[i];
		const char *name = a->name ? a->name : "";
		const ox_schema_attr *sa = ox_schema_attr_find(s, name);
		const char *near = sa ? NULL : near_attr(s, name);
		if (!sa)
			return fail(P, ONNXTXT_ERR_EVAL, "%s: unknown attribute '%s' (%s has none such at opset %lld%s%s%s)",
				    label, name, s->name, (long long)N->version, near ? "; did you mean '" : "", near ? near : "",
				    near ? "'?" : "");
		int type = held_type(a);
		if (type && type != sa->type)
			return fail(P, ONNXTXT_ERR_EVAL, "%s: attribute '%s' must be %s, not %s", label, name, attr_type(sa->type),
				    attr_type(type));
	}
	for (size_t k = 0; k < s->n_attrs; k++) {
		bool found = false;
		for (size_t i = 0; i < N->nattrs && !found; i++)
			found = N->attrs[i]->name && !strcmp(N->attrs[i]->name, s->attrs[k].name);
		if (s->attrs[k].required && !found)
			return fail(P, ONNXTXT_ERR_EVAL, "%s: required attribute '%s' is missing", label, s->attrs[k].name);
	}
	return 0;
}

/* The schema in force for a node with a kernel: the kernel runs the version of the operator
 * the model's opset selects, so an operator newer than the opset is refused. A deprecated
 * one (GroupNormalization-18) still runs: the checker is the one to object. */
static int plan_schema(planner *P, ox_node *N, const char *dom, const char *label)
{
	const Onnx__NodeProto *n = N->proto;
	size_t nv;
	const ox_schema *v = ox_schema_versions(dom, n->op_type, &nv);
	const ox_schema_domain *d = ox_schema_domain_find(dom);
	if (!v || !d)
		return 0; /* an operator the schemas do not describe */
	N->schema = ox_schema_find(dom, n->op_type, N->version < d->max ? N->version : d->max);
	if (!N->schema)
		return fail(P, ONNXTXT_ERR_EVAL, "%s: the operator first appears in opset %d, but the model imports opset %lld",
			    label, v[0].since, (long long)N->version);
	return check_attrs(P, N, N->schema, label);
}

/* The node's kernel, picked once here: the registry's entry for the operator version in
 * force (the schema's since; the opset for an operator the schemas do not describe). */
static int plan_kernel(planner *P, ox_node *N, const char *dom, const char *label)
{
	const char *op = N->proto->op_type;
	int oldest;
	if (!ox_op_find(dom, op, INT64_MAX, &oldest))
		return fail(P, ONNXTXT_ERR_UNSUPPORTED, "%s: operator %s%s%s is not supported", label, dom, *dom ? "." : "",
			    op);
	if (plan_schema(P, N, dom, label) < 0)
		return -1;
	int64_t v = N->schema ? N->schema->since : N->version;
	if (!(N->op = ox_op_find(dom, op, v, &oldest)))
		return fail(P, ONNXTXT_ERR_UNSUPPORTED,
			    "%s: operator %s%s%s version %lld is not supported (the evaluator runs it from version %d on)",
			    label, dom, *dom ? "." : "", op, (long long)v, oldest);
	return 0;
}

static int plan_node(planner *P, ox_plan *p, const body *b, size_t i)
{
	ox_node *N = &p->nodes[i];
	const Onnx__NodeProto *n = b->nodes[i];
	char label[300];
	node_label(n, i, p->main, label, sizeof label);
	if ((*P->planned += 1 + n->n_attribute) > ox_plan_limit)
		return fail(P, ONNXTXT_ERR_LIMIT,
			    "%s: planning the model takes more than %zu nodes and attributes (each sub-graph counts, "
			    "and each function once per distinct set of attribute values)",
			    label, ox_plan_limit);
	N->proto = n;
	if (p->main)
		P->st->node = (long)i; /* what a planning error is about, if one comes */
	if (plan_slots(P, p, b, i, false, label) < 0 || resolve_attrs(P, N) < 0)
		return -1;
	const char *dom = n->domain ? n->domain : "";
	N->version = opset_version(P, dom);
	const Onnx__FunctionProto *f = find_function(P, n);
	if (!f && N->version < 0)
		return fail(P, ONNXTXT_ERR_EVAL, "%s: domain '%s' is not imported (opset_import)", label, dom);
	if (f ? plan_call(P, N, f, label) < 0 : plan_kernel(P, N, dom, label) < 0)
		return -1;
	if (plan_subgraphs(P, p, N, (int)i, label) < 0)
		return -1;
	N->foldable = !f && !N->nsubs && ox_fold_deterministic(dom, n->op_type);
	return plan_slots(P, p, b, i, true, label);
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
		/* the model outlives the plan (OnnxSession_New) */
		if (!(p->init[s] = ox_val_borrow_tensor_proto(b->init[i], P->st->msg)))
			return P->st->code = ox_convert_status(P->st->msg, ONNXTXT_ERR_EVAL), -1;
		p->init[s]->konst = true;
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

/* How deep calls and sub-graphs nest below p, for bodies reused at deeper call sites. */
static void note_height(ox_plan *p, const ox_node *N)
{
	if (N->fn && N->fn->height + 1 > p->height)
		p->height = N->fn->height + 1;
	for (size_t i = 0; i < N->nsubs; i++)
		if (N->subs[i].plan->height + 1 > p->height)
			p->height = N->subs[i].plan->height + 1;
}

static ox_plan *plan_body(planner *P, const body *b, ox_plan *parent, const Onnx__GraphProto *g)
{
	ox_plan *p = alloc(P, sizeof *p);
	if (!p)
		return NULL;
	p->next = *P->all;
	*P->all = p;
	p->parent = parent;
	p->main = P->model->graph && b->nodes == P->model->graph->node;
	p->model = p->main ? P->model : NULL;
	p->nnodes = b->nnodes;
	if (!(p->nodes = alloc(P, b->nnodes * sizeof *p->nodes)))
		return NULL;
	if (plan_initializers(P, p, b) < 0 || plan_io(P, p, b) < 0)
		return NULL;
	if (g && !(p->input_info = alloc(P, g->n_input * sizeof *p->input_info)))
		return NULL;
	for (size_t i = 0; g && i < g->n_input; i++)
		p->input_info[i] = g->input[i];
	if (g && !(p->output_info = alloc(P, g->n_output * sizeof *p->output_info)))
		return NULL;
	for (size_t i = 0; g && i < g->n_output; i++)
		p->output_info[i] = g->output[i];
	for (size_t i = 0; i < b->nnodes; i++) {
		if (plan_node(P, p, b, i) < 0)
			return NULL;
		note_height(p, &p->nodes[i]);
	}
	if (p->main)
		P->st->node = -1;
	if (plan_outputs_of_body(P, p, b) < 0 || plan_frees(P, p) < 0)
		return NULL;
	return p;
}

static void drop_cache(ox_node *N);
static void drop_fusion(ox_node *N);
static void drop_placement(ox_plan *p);

static void release(ox_plan *p)
{
	for (; p; p = p->next) {
		for (int s = 0; s < p->nslots; s++)
			ox_val_unref(p->init[s]);
		ox_names_free(&p->tab);
		for (size_t i = 0; i < p->nnodes; i++) {
			drop_cache(&p->nodes[i]);
			drop_fusion(&p->nodes[i]);
		}
		drop_placement(p);
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
	ox_names fns = {0};
	size_t planned = 0;
	planner P = {a, m, st, 0, m->opset_import, m->n_opset_import, NULL, 0, &all, &fns, &planned};
	st->code = 0;
	st->msg[0] = '\0';
	st->node = -1;
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
	ox_names_free(&fns);
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

const Onnx__TypeProto *ox_plan_output_type(const ox_plan *p, size_t i)
{
	return p->output_info ? p->output_info[i]->type : NULL;
}


/* ---- running ------------------------------------------------------------------------- */

typedef struct frame {
	const ox_plan *p;
	ox_val **v;
	struct frame *parent;
	ox_status *st;
	/* a limit of the run met inside a sub-graph of the node running: the message as the
	 * sub-graph's run gave it, which the node's own wording ("iteration 5: ...") would
	 * make depend on timing */
	char limit[OX_MSG];
	/* with the plan's placement: per slot, a Concat's output made before the Concat runs,
	 * which values placed in it are views of (see "placement") */
	ox_val **pending;
	int dest; /* the slot the running node's output 0 goes to */
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
			n += v->kind == OX_MAP ? (size_t)snprintf(buf + n, size - n, "map of %lld", (long long)v->items[0]->count)
					       : (size_t)snprintf(buf + n, size - n, "%s of %zu",
								  v->kind == OX_SEQUENCE ? "sequence" : "optional", v->nitems);
		}
	}
}

/* "label: inner", cut in the middle at a label when too long: a failure forty function
 * calls deep would otherwise be forty labels, with the reason cut off at the end. */
static int nested_fail(ox_status *st, int code, const char *label, const char *inner)
{
	size_t ll = strlen(label), il = strlen(inner);
	if (ll + 2 + il < sizeof st->msg)
		return run_fail(st, code, "%s: %s", label, inner);
	/* cut once: an inner message cut already loses its first label instead */
	const char *cut = strstr(inner, ": ... ");
	if (cut && ll + 7 + strlen(cut + 6) < sizeof st->msg)
		return run_fail(st, code, "%s: ... %s", label, cut + 6);
	size_t keep = sizeof st->msg - 1 - ll - 6;
	const char *tail = inner + il - keep, *next = strstr(tail, ": node ");
	return run_fail(st, code, "%s: ... %s", label, next ? next + 2 : tail);
}

/* A run's limit (memory budget, deadline) met by the node: the path of nodes down to
 * where it was met, then the limit, in the same words wherever the check fired. */
static int limit_fail(frame *F, const char *label, const char *limit)
{
	char inner[OX_MSG];
	snprintf(inner, sizeof inner, "%s", F->limit[0] ? F->limit : limit);
	F->limit[0] = '\0';
	return nested_fail(F->st, ONNXTXT_ERR_LIMIT, label, inner);
}

/* The label is formatted only on failure: loop bodies call kernels millions of times. */
static int call_kernel(frame *F, const ox_node *N, size_t i, ox_val **in, int nin, ox_val **out, int act)
{
	char msg[OX_MSG], label[300];
	msg[0] = '\0';
	if (N->fn) {
		ox_status inner;
		if (run_plan(N->fn, NULL, in, (size_t)N->nin, out, (size_t)N->nout, &inner) == 0)
			return 0;
		node_label(N->proto, i, F->p->main, label, sizeof label);
		return nested_fail(F->st, inner.code, label, inner.msg);
	}
	ox_k k = {N, N->proto, N->version, in, nin, out, N->nout, N->attrs, N->nattrs, F, msg, N->schema, act};
	if (N->op->run(&k) == 0)
		return 0;
	node_label(N->proto, i, F->p->main, label, sizeof label);
	const char *limit = ox_budget_tripped();
	if (limit)
		return limit_fail(F, label, limit);
	char shapes[200];
	describe_inputs(in, nin, shapes, sizeof shapes);
	/* a kernel that ran out of memory says so in its message */
	return run_fail(F->st, ox_convert_status(msg, ONNXTXT_ERR_EVAL), "%s: %s%s%s%s", label, msg[0] ? msg : "failed",
			N->nin ? " (inputs: " : "", shapes, N->nin ? ")" : "");
}

/* ---- folding: results computed from constants, kept -----------------------------------
 * A deterministic node whose inputs are all constants (initializers, or results kept this
 * way) keeps its outputs with the ids of the inputs they came from. While a run gives it
 * the same input values, it hands them out again instead of running; a graph input that
 * overrides an initializer is another value, so the node runs as usual then. The session
 * computes them once when it is created (ox_plan_optimize). */
typedef struct folded {
	uint64_t *ids; /* of the inputs, 0 for an omitted one */
	ox_val **out;
} folded;

static void drop_cache(ox_node *N)
{
	folded *c = N->cache;
	if (!c)
		return;
	for (int j = 0; j < N->nout; j++)
		ox_val_unref(c->out[j]);
	free(c);
	N->cache = NULL;
}

static bool all_konst(const ox_node *N, ox_val *const *in)
{
	for (int j = 0; j < N->nin; j++)
		if (in[j] && !in[j]->konst)
			return false;
	return N->foldable;
}

static bool cache_hit(const ox_node *N, ox_val *const *in, ox_val **out)
{
	const folded *c = N->cache;
	if (!c)
		return false;
	for (int j = 0; j < N->nin; j++)
		if ((in[j] ? in[j]->id : 0) != c->ids[j])
			return false;
	for (int j = 0; j < N->nout; j++)
		out[j] = ox_val_ref(c->out[j]);
	return true;
}

/* Keeps out[] as the node's results on in[]; without memory it simply keeps nothing. */
static void cache_store(ox_node *N, ox_val *const *in, ox_val *const *out)
{
	size_t ni = (size_t)N->nin, no = (size_t)N->nout;
	folded *c = malloc(sizeof *c + ni * sizeof(uint64_t) + no * sizeof(ox_val *));
	if (!c)
		return;
	drop_cache(N);
	c->ids = (uint64_t *)(c + 1);
	c->out = (ox_val **)(c->ids + ni);
	for (size_t j = 0; j < ni; j++)
		c->ids[j] = in[j] ? in[j]->id : 0;
	for (size_t j = 0; j < no; j++) {
		if (out[j])
			out[j]->konst = true;
		c->out[j] = ox_val_ref(out[j]);
	}
	N->cache = c;
}

/* ---- fusion: a Conv with the BatchNormalization and Relu after it ---------------------
 * Made by ox_plan_optimize when the Conv's output feeds only the BatchNormalization (and
 * that one's only the Relu; a Mul and an Add by per-channel constants may come between,
 * as caffe2's converted models have them), and/or an Add (or two-input Sum) of a value
 * made before the Conv (ResNet's residual). The Conv then runs with the folded weights,
 * adds the residual and applies Relu as it stores, and puts its result where the last
 * fused node's goes; those nodes see their input absent and do nothing. A residual that
 * is not a float tensor of the Conv's output shape is left to the Add (and the Relu). The weights are valid while the run gives the Conv and
 * the BatchNormalization the constants they were made from; otherwise each node runs
 * on its own. */
typedef struct fusion {
	ox_val *w, *b;  /* W and B with the BatchNormalization folded in, or NULL */
	uint64_t ids[8]; /* W, B, scale, bias, mean, var, the Mul's and Add's constants */
	int bn;         /* the BatchNormalization's node, or -1 */
	int chan[2];    /* the Mul and the Add by per-channel constants after it, or -1 */
	int mk[2];      /* the nodes that make their constants (kept results), or -1 */
	int act;        /* OX_ACT_* applied in the output pass */
	int out;        /* the slot the result goes to */
	/* a BatchNormalization that heads the fusion itself (no Conv before it): w and b are
	 * its scale and B with the Mul's and Add's constants folded in, valid for inputs of
	 * rank (0: any) */
	bool bn_head;
	int rank;
	bool ew_head; /* an Add or a Sum of two, with the Relu after it */
	int add, res, pre; /* the residual Add and its other operand's slot, or -1; the slot before it */
} fusion;

static void drop_fusion(ox_node *N)
{
	if (!N->fuse)
		return;
	ox_val_unref(N->fuse->w);
	ox_val_unref(N->fuse->b);
	free(N->fuse);
	N->fuse = NULL;
}

static uint64_t slot_id(const frame *F, int s)
{
	return s >= 0 && F->v[s] ? F->v[s]->id : 0;
}

/* The id that slot s's value has, or will have when mk (its maker, or -1) runs later on
 * the inputs it has now and gives its kept results; 0 when not known. The per-channel
 * constants of caffe2's models come from an Unsqueeze that runs after the Conv. */
static uint64_t coming_id(const frame *F, int s, int mk)
{
	if (s < 0 || F->v[s])
		return slot_id(F, s);
	const ox_node *P = mk >= 0 ? &F->p->nodes[mk] : NULL;
	const folded *c = P ? P->cache : NULL;
	for (int j = 0; c && j < P->nin; j++)
		if (slot_id(F, P->in[j]) != c->ids[j])
			return 0;
	for (int j = 0; c && j < P->nout; j++)
		if (P->out[j] == s)
			return c->out[j] ? c->out[j]->id : 0;
	return 0;
}

/* Whether a fusion headed by a BatchNormalization holds: its parameters and the Mul's and
 * Add's constants are those it was made from, and X is a float tensor of the rank for
 * which their constants are per channel (the BatchNormalization kernel applies the fused
 * activation on float32 inference only). */
static bool bn_head_valid(const frame *F, const ox_node *N, ox_val *const *in)
{
	const fusion *u = N->fuse;
	const ox_val *x = in[0];
	if (!x || x->kind != OX_TENSOR || x->type != OX_FLOAT || (u->rank && x->rank != u->rank))
		return false;
	uint64_t now[8] = {0};
	for (int j = 1; j < 5; j++)
		now[j - 1] = in[j] ? in[j]->id : 0;
	for (int j = 0; j < 2; j++)
		now[6 + j] = u->chan[j] >= 0 ? coming_id(F, F->p->nodes[u->chan[j]].in[1], u->mk[j]) : 0;
	return memcmp(now, u->ids, sizeof now) == 0;
}

/* Whether the fusion's folded weights still hold for this run's values. */
static bool fusion_valid(const frame *F, const ox_node *N, ox_val *const *in)
{
	const fusion *u = N->fuse;
	if (u->bn_head)
		return bn_head_valid(F, N, in);
	if (u->ew_head) /* the elementwise kernel applies the Relu on float32 only */
		return N->nin == 2 && in[0] && in[1] && in[0]->kind == OX_TENSOR && in[0]->type == OX_FLOAT &&
		       in[1]->kind == OX_TENSOR && in[1]->type == OX_FLOAT;
	if (u->bn < 0)
		return true;
	const ox_node *B = &F->p->nodes[u->bn];
	uint64_t now[8] = {in[1] ? in[1]->id : 0, N->nin > 2 && in[2] ? in[2]->id : 0};
	for (int j = 1; j < 5; j++)
		now[j + 1] = slot_id(F, B->in[j]);
	for (int j = 0; j < 2; j++)
		now[6 + j] = u->chan[j] >= 0 ? coming_id(F, F->p->nodes[u->chan[j]].in[1], u->mk[j]) : 0;
	return memcmp(now, u->ids, sizeof now) == 0;
}

/* A float tensor of the shape of the Conv's result, as the Conv checks (conv.c). */
static bool residual_fits(const ox_val *r, const ox_val *y)
{
	return r && y && r->kind == OX_TENSOR && r->type == OX_FLOAT && y->type == OX_FLOAT && r->rank == y->rank &&
	       memcmp(r->dims, y->dims, (size_t)y->rank * sizeof(int64_t)) == 0;
}

/* The Conv with its fusion: the residual as a fourth input; when the Conv leaves it (not
 * of its output's shape), the result goes where the Add reads it and the Add runs. */
static int compute_fused(frame *F, const ox_node *N, size_t i, ox_val **in, ox_val **out, int *dest)
{
	const fusion *u = N->fuse;
	ox_val *r = u->add >= 0 ? F->v[u->res] : NULL;
	ox_val *fin[4] = {in[0], u->w ? u->w : in[1], u->w ? u->b : N->nin > 2 ? in[2] : NULL, r};
	int rc = call_kernel(F, N, i, fin, r ? 4 : u->w ? 3 : N->nin, out, r || u->add < 0 ? u->act : OX_ACT_NONE);
	*dest = u->add >= 0 && (!r || !residual_fits(r, out[0])) ? u->pre : u->out;
	return rc;
}

/* Runs the node, from its kept results when they hold, fused when its fusion holds;
 * *dest gets the slot of output 0. */
static int compute(frame *F, const ox_node *N, size_t i, ox_val **in, ox_val **out, int *dest)
{
	F->dest = *dest = N->nout ? N->out[0] : -1;
	if (cache_hit(N, in, out))
		return 0;
	if (N->fuse && fusion_valid(F, N, in)) {
		const fusion *u = N->fuse;
		F->dest = *dest = u->out;
		if (u->ew_head)
			return call_kernel(F, N, i, in, N->nin, out, u->act);
		if (u->bn_head) {
			ox_val *bin[5] = {in[0], u->w ? u->w : in[1], u->b ? u->b : in[2], in[3], in[4]};
			return call_kernel(F, N, i, bin, 5, out, u->act);
		}
		return compute_fused(F, N, i, in, out, dest);
	}
	int rc = call_kernel(F, N, i, in, N->nin, out, OX_ACT_NONE);
	if (rc == 0 && all_konst(N, in))
		cache_store((ox_node *)N, in, out); /* the plan's nodes are ours to update */
	return rc;
}

static void free_after(frame *F, const ox_node *N)
{
	for (size_t j = 0; j < N->nfrees; j++) {
		ox_val_unref(F->v[N->frees[j]]);
		F->v[N->frees[j]] = NULL;
	}
}

/* Shows the observer what the node stored, under the names of the slots they went to (a
 * fused Conv's result is the last fused node's output). */
static void observe(const frame *F, const ox_node *N, int dest, ox_val *const *out)
{
	for (int j = 0; j < N->nout; j++)
		if (N->out[j] >= 0)
			F->p->observe(F->p->observe_ctx, F->p->slot_names[j ? N->out[j] : dest], out[j]);
}

/* ---- placement: values made in a Concat's output --------------------------------------
 * A Concat along an axis with nothing but 1s before it (batch 1, channels: densenet,
 * inception and squeezenet concatenate every block) has each input as one contiguous
 * piece of its output. ox_plan_optimize notes the Concats and the shapes inference gives
 * them (seed_shapes); each run records the shapes they were given (note_shapes), and the
 * node that makes an input of one gets its output as a view at that input's place in the
 * Concat's output (ox_exec_placed), made when the first such view is asked for, with the
 * shape inference or the last run gave. The Concat then finds those inputs in place and
 * copies only the others. A Concat's output that is itself an input of a later Concat is
 * placed there the same way, so a chain of them (densenet's blocks) is one buffer.
 * Nothing else writes into a placed value; a shape that differs from the noted one
 * simply gets its own buffer, and the Concat its own output when an input made in place
 * is not where its shapes put it now (ops/shape.c). */
typedef struct seen_shape {
	int type, rank; /* rank -1: not seen */
	int64_t dims[OX_MAX_RANK];
} seen_shape;

typedef struct placement {
	int *into;     /* per slot: the Concat node whose output holds it, or -1 */
	int *pos;      /* per slot: its input number there */
	int64_t *axis; /* per slot that is a Concat's output: the axis attribute */
	bool *concat;  /* per node: a Concat whose shapes are recorded */
	seen_shape *seen; /* per slot: the shape the last run gave it */
} placement;

static void drop_placement(ox_plan *p)
{
	placement *P = p->place;
	if (P) {
		void *arrays[] = {P->into, P->pos, P->axis, P->concat, P->seen, P};
		for (size_t a = 0; a < sizeof arrays / sizeof *arrays; a++)
			free(arrays[a]);
		p->place = NULL;
	}
}

static int64_t shape_bytes(const seen_shape *s)
{
	return ox_shape_count(s->rank, s->dims) * (int64_t)ox_elem_size(s->type);
}

static bool shape_is(const seen_shape *s, int type, int rank, const int64_t *dims)
{
	return s->rank == rank && s->type == type && memcmp(s->dims, dims, (size_t)rank * sizeof *dims) == 0;
}

static void note_shape(seen_shape *d, const ox_val *v)
{
	if (!v || v->kind != OX_TENSOR || v->type == OX_STRING) {
		d->rank = -1;
		return;
	}
	d->type = v->type;
	d->rank = v->rank;
	memcpy(d->dims, v->dims, (size_t)v->rank * sizeof *d->dims);
}

/* After Concat node i ran on in[]: the shapes of its inputs and output, for the next run. */
static void note_shapes(frame *F, size_t i, ox_val *const *in)
{
	const ox_node *N = &F->p->nodes[i];
	placement *P = F->p->place; /* the plan's to update, as the folding cache is */
	if (!P->concat[i])
		return;
	for (int j = 0; j < N->nin; j++)
		if (N->in[j] >= 0)
			note_shape(&P->seen[N->in[j]], in[j]);
	note_shape(&P->seen[N->out[0]], F->v[N->out[0]]);
}

/* The byte offset of slot s in the output of the Concat that holds it, by the last run's
 * shapes, into *off; that output's slot into *r. False when they do not give one. */
static bool offset_in(const ox_plan *p, int s, int *r, int64_t *off)
{
	const placement *P = p->place;
	const ox_node *C = &p->nodes[P->into[s]];
	const seen_shape *y = &P->seen[C->out[0]];
	int64_t axis = P->axis[C->out[0]];
	axis += axis < 0 ? y->rank : 0;
	if (y->rank < 1 || axis < 0 || axis >= y->rank)
		return false;
	for (int64_t d = 0; d < axis; d++)
		if (y->dims[d] != 1)
			return false;
	int64_t o = 0;
	for (int j = 0; j < P->pos[s]; j++) {
		const seen_shape *x = C->in[j] >= 0 ? &P->seen[C->in[j]] : NULL;
		if (!x || x->rank != y->rank || x->type != y->type)
			return false;
		o += shape_bytes(x);
	}
	*r = C->out[0];
	*off = o;
	return true;
}

ox_val *ox_exec_placed(ox_k *k, int i, int type, int rank, const int64_t *dims)
{
	frame *F = k->exec;
	if (!F->pending || i >= k->nout) /* the frame is that of the plan the node is in */
		return NULL;
	const placement *P = F->p->place;
	int s = i ? k->node->out[i] : F->dest, r = s;
	if (s < 0 || type == OX_STRING || !shape_is(&P->seen[s], type, rank, dims))
		return NULL;
	if (P->into[s] < 0) { /* a Concat's output made already: the Concat takes it */
		ox_val *y = F->pending[s];
		F->pending[s] = NULL;
		return y;
	}
	int64_t off = 0, o;
	for (int t = s; P->into[t] >= 0; t = r, off += o)
		if (!offset_in(F->p, t, &r, &o))
			return NULL;
	const seen_shape *root = &P->seen[r];
	if (!F->pending[r] && !(F->pending[r] = ox_tensor_new(root->type, root->rank, root->dims, NULL)))
		return NULL;
	return ox_tensor_view_at(F->pending[r], (size_t)off, rank, dims);
}

static int run_node(frame *F, size_t i)
{
	const ox_node *N = &F->p->nodes[i];
	if (N->fused_away && N->in[N->fused_in] >= 0 && !F->v[N->in[N->fused_in]]) {
		free_after(F, N); /* the node before did this one's work */
		return 0;
	}
	ox_val *inbuf[16], *outbuf[16];
	ox_val **in = N->nin <= 16 ? inbuf : calloc((size_t)N->nin, sizeof *in);
	ox_val **out = N->nout <= 16 ? outbuf : calloc((size_t)N->nout, sizeof *out);
	int rc = in && out ? 0 : run_fail(F->st, ONNXTXT_ERR_NOMEM, "out of memory"), dest = -1;
	for (int j = 0; rc == 0 && j < N->nin; j++) {
		in[j] = N->in[j] >= 0 ? F->v[N->in[j]] : NULL;
		if (N->in[j] >= 0 && !in[j])
			rc = run_fail(F->st, ONNXTXT_ERR_EVAL, "%snode[%zu] (%s): input '%s' has no value",
				      F->p->main ? "graph." : "", i, N->proto->op_type, F->p->slot_names[N->in[j]]);
	}
	if (out)
		memset(out, 0, (size_t)N->nout * sizeof *out);
	if (rc == 0)
		rc = compute(F, N, i, in, out, &dest);
	if (rc < 0 && F->p->main)
		F->st->node = (long)i;
	for (int j = 0; rc == 0 && j < N->nout; j++)
		if (N->out[j] >= 0 && !out[j])
			rc = run_fail(F->st, ONNXTXT_ERR_EVAL, "%snode[%zu] (%s): output '%s' was not produced",
				      F->p->main ? "graph." : "", i, N->proto->op_type, F->p->slot_names[N->out[j]]);
	for (int j = 0; out && j < N->nout; j++) {
		if (rc == 0 && N->out[j] >= 0)
			F->v[j ? N->out[j] : dest] = out[j];
		else
			ox_val_unref(out[j]);
	}
	if (rc == 0 && F->p->observe)
		observe(F, N, dest, out);
	if (rc == 0 && F->pending)
		note_shapes(F, i, in);
	if (rc == 0)
		free_after(F, N);
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
	/* every graph entered (a Loop or Scan iteration, a function call) checks the clock */
	const char *late;
	if (ox_budget_check_time(&late) < 0) {
		for (size_t o = 0; o < nout; o++)
			out[o] = NULL;
		return run_fail(st, ONNXTXT_ERR_LIMIT, "%s", late);
	}
	ox_val *buf[64];
	ox_val **v = p->nslots <= 64 ? buf : calloc((size_t)p->nslots, sizeof *v);
	if (!v)
		return run_fail(st, ONNXTXT_ERR_NOMEM, "out of memory");
	frame F = {p, v, parent, st, "", NULL, -1};
	if (p->place && !(F.pending = calloc((size_t)p->nslots, sizeof *F.pending))) {
		if (v != buf)
			free(v);
		return run_fail(st, ONNXTXT_ERR_NOMEM, "out of memory");
	}
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
	for (int s = 0; s < p->nslots; s++) {
		ox_val_unref(v[s]);
		if (F.pending)
			ox_val_unref(F.pending[s]);
	}
	free(F.pending);
	if (v != buf)
		free(v);
	return rc;
}

void ox_plan_observe(ox_plan *p, ox_observer fn, void *ctx)
{
	p->observe = fn;
	p->observe_ctx = ctx;
}

int ox_plan_run(const ox_plan *p, ox_val *const *in, ox_val **out, ox_status *st)
{
	st->code = 0;
	st->msg[0] = '\0';
	st->node = -1;
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
	if (run_plan(s, k->exec, in, (size_t)nin, out, (size_t)nout, &st) == 0)
		return 0;
	if (ox_budget_tripped())
		snprintf(((frame *)k->exec)->limit, OX_MSG, "%s", st.msg);
	return ox_kfail(k, "in attribute '%s': %s", attr, st.msg);
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

/* ---- session-time optimization --------------------------------------------------------- */

static bool is_op(const ox_node *N, const char *op)
{
	const char *d = N->proto->domain ? N->proto->domain : "";
	return N->op && !N->fn && (!*d || strcmp(d, "ai.onnx") == 0) && strcmp(N->proto->op_type, op) == 0;
}

static const Onnx__AttributeProto *node_attr(const ox_node *N, const char *name)
{
	for (size_t a = 0; a < N->nattrs; a++)
		if (N->attrs[a] && strcmp(N->attrs[a]->name, name) == 0)
			return N->attrs[a];
	return NULL;
}

static int64_t attr_int(const ox_node *N, const char *name, int64_t def)
{
	const Onnx__AttributeProto *a = node_attr(N, name);
	return a ? a->i : def;
}

/* Uses of each slot: node inputs, the plan's outputs (which count as many), captures. */
static int *count_uses(const ox_plan *p)
{
	int *uses = calloc((size_t)p->nslots + 1, sizeof *uses);
	for (size_t i = 0; uses && i < p->nnodes; i++) {
		const ox_node *N = &p->nodes[i];
		for (int j = 0; j < N->nin; j++)
			if (N->in[j] >= 0)
				uses[N->in[j]]++;
		for (size_t k = 0; k < N->nsubs; k++)
			for (size_t c = 0; c < N->subs[k].plan->ncaps; c++)
				uses[N->subs[k].plan->caps[c].outer] += 2;
	}
	for (size_t o = 0; uses && o < p->noutputs; o++)
		uses[p->outputs[o]] += 2;
	return uses;
}

/* The node after i that is the only reader of slot s, as its input 0, with op; or -1. */
static int sole_reader(const ox_plan *p, const int *uses, int s, size_t i, const char *op)
{
	if (s < 0 || uses[s] != 1)
		return -1;
	for (size_t j = i + 1; j < p->nnodes; j++) {
		const ox_node *M = &p->nodes[j];
		for (int k = 0; k < M->nin; k++)
			if (M->in[k] == s)
				return k == 0 && is_op(M, op) ? (int)j : -1;
	}
	return -1;
}

/* Only output 0 named (the others, when any, unused). */
static bool one_output(const ox_node *N)
{
	for (int j = 1; j < N->nout; j++)
		if (N->out[j] >= 0)
			return false;
	return N->nout >= 1 && N->out[0] >= 0;
}

/* A BatchNormalization in inference mode whose parameters are constants now. */
static bool bn_foldable(const ox_node *B, ox_val *const *v)
{
	/* by operator version, as kernels are picked: versions before 9 (is_test, spatial) run unfused */
	if (!B->schema || B->schema->since < 9 || B->nin != 5 || !one_output(B) || attr_int(B, "training_mode", 0) != 0)
		return false;
	for (int j = 1; j < 5; j++)
		if (B->in[j] < 0 || !v[B->in[j]] || !v[B->in[j]]->konst)
			return false;
	return true;
}

/* The Conv's weights with the BatchNormalization's scale a folded in: where the Conv is
 * sure to go through the GEMM (more than one input channel per group), only packed, with
 * the scale applied while packing (a view of W carries them), so no scaled copy of W is
 * made; otherwise a scaled copy. */
static ox_val *scaled_weights(const ox_node *N, ox_val *w, const float *a)
{
	int64_t group = attr_int(N, "group", 1), cout = w->dims[0];
	if (w->dims[1] > 1 && group >= 1 && cout % group == 0) {
		ox_val *v = ox_tensor_view(w, w->rank, w->dims);
		if (v && (v->derived = ox_conv_prepack(ox_cpu_level(), w->data, cout, group, w->count / cout, a)))
			return v;
		ox_val_unref(v);
	}
	return ox_fold_scale_rows(w, a);
}

/* Input 1 of M when it is a float constant of cout values along axis 1 of a rank-r output
 * ([cout, 1, ...] or [1, cout, 1, ...], broadcast the numpy way), else NULL. */
static const ox_val *channel_const(const ox_node *M, ox_val *const *v, int64_t cout, int r)
{
	const ox_val *c = M->nin == 2 && M->in[1] >= 0 ? v[M->in[1]] : NULL;
	if (M->version < 7 || !one_output(M) || !c || !c->konst || c->type != OX_FLOAT || c->count != cout ||
	    c->rank > r || c->rank < r - 1)
		return NULL;
	for (int i = 0; i < c->rank; i++)
		if (c->dims[i] != (i == c->rank - r + 1 ? cout : 1))
			return NULL;
	return c;
}

/* The node after j that alone reads slot s, an op by a per-channel constant (see
 * channel_const), or -1; *c gets the constant. */
static int channel_op(const ox_plan *p, const int *uses, ox_val *const *v, int s, size_t j, const char *op,
		      const ox_val *w, const ox_val **c)
{
	int m = sole_reader(p, uses, s, j, op);
	*c = m >= 0 ? channel_const(&p->nodes[m], v, w->dims[0], w->rank) : NULL;
	return *c ? m : -1;
}

/* y = (x * a + b) * m + c as x * (a * m) + (b * m + c): the Mul's and Add's constants (m
 * and c, NULL when absent) taken into the folded scale a and bias b. */
static void fold_channel_ops(const fusion *u, const ox_plan *p, ox_val *const *v, float *a, int64_t cout)
{
	const float *m = u->chan[0] >= 0 ? v[p->nodes[u->chan[0]].in[1]]->data : NULL;
	const float *c = u->chan[1] >= 0 ? v[p->nodes[u->chan[1]].in[1]]->data : NULL;
	float *b = u->b->data;
	for (int64_t i = 0; i < cout; i++) {
		if (m)
			a[i] *= m[i], b[i] *= m[i];
		if (c)
			b[i] += c[i];
	}
}

static bool fold_bn_into(const ox_plan *pl, ox_node *N, const ox_node *B, int bn, ox_val *const *v, fusion *u)
{
	ox_val *w = v[N->in[1]], *b = N->nin > 2 && N->in[2] >= 0 ? v[N->in[2]] : NULL, *p[4];
	if (!w->konst || (b && !b->konst) || (N->nin > 2 && N->in[2] >= 0 && !b) || w->rank < 3 || w->dims[0] <= 0)
		return false;
	for (int j = 0; j < 4; j++)
		p[j] = v[B->in[j + 1]];
	const Onnx__AttributeProto *eps = node_attr(B, "epsilon");
	float *a = malloc((size_t)w->dims[0] * sizeof *a);
	bool ok = a && ox_fold_bn(w, b, p, eps ? eps->f : 1e-5, a, &u->b);
	if (ok)
		fold_channel_ops(u, pl, v, a, w->dims[0]);
	if (ok && !(u->w = scaled_weights(N, w, a))) {
		ox_val_unref(u->b);
		u->b = NULL;
		ok = false;
	}
	free(a);
	if (!ok)
		return false;
	u->w->konst = u->b->konst = true;
	u->ids[0] = w->id;
	u->ids[1] = b ? b->id : 0;
	for (int j = 0; j < 4; j++)
		u->ids[j + 2] = p[j]->id;
	for (int j = 0; j < 2; j++)
		u->ids[6 + j] = u->chan[j] >= 0 ? v[pl->nodes[u->chan[j]].in[1]]->id : 0;
	u->bn = bn;
	u->out = u->chan[1] >= 0 ? pl->nodes[u->chan[1]].out[0] : u->chan[0] >= 0 ? pl->nodes[u->chan[0]].out[0] : B->out[0];
	return true;
}

/* The node whose output is slot s, or -1. */
static int maker(const ox_plan *p, int s)
{
	for (size_t j = 0; j < p->nnodes; j++)
		for (int k = 0; k < p->nodes[j].nout; k++)
			if (p->nodes[j].out[k] == s)
				return (int)j;
	return -1;
}

/* The Mul and then the Add by per-channel constants that may follow the BatchNormalization
 * bn (each reading only the one before), into u->chan. */
static void chain_after_bn(const ox_plan *p, const int *uses, ox_val *const *v, int bn, const ox_val *w, fusion *u)
{
	const ox_val *c;
	if (w->type != OX_FLOAT || w->rank < 3 || w->dims[0] <= 0)
		return;
	int s = p->nodes[bn].out[0], m = channel_op(p, uses, v, s, (size_t)bn, "Mul", w, &c);
	u->chan[0] = m;
	if (m >= 0)
		s = p->nodes[m].out[0];
	u->chan[1] = channel_op(p, uses, v, s, (size_t)(m >= 0 ? m : bn), "Add", w, &c);
	for (int j = 0; j < 2; j++)
		u->mk[j] = u->chan[j] >= 0 ? maker(p, p->nodes[u->chan[j]].in[1]) : -1;
}

/* The Add (or two-input Sum) after node j that alone reads slot s, as either operand,
 * when its other one is made before the Conv i (or is no node's); else -1. Into u: the
 * Add, that operand, the slot before it, and the Add's output as the fusion's. */
static int fuse_residual(ox_plan *p, const int *uses, size_t i, int s, size_t j, fusion *u)
{
	for (size_t m = j + 1; s >= 0 && uses[s] == 1 && m < p->nnodes; m++) {
		ox_node *M = &p->nodes[m];
		for (int k = 0; k < M->nin; k++) {
			if (M->in[k] != s)
				continue;
			int r = M->nin == 2 ? M->in[1 - k] : -1;
			if ((!is_op(M, "Add") && !is_op(M, "Sum")) || !M->schema || M->schema->since < 7 || r < 0 ||
			    r == s || !one_output(M) || maker(p, r) > (int)i)
				return -1;
			M->fused_in = k;
			u->add = (int)m, u->res = r, u->pre = s, u->out = M->out[0];
			return (int)m;
		}
	}
	return -1;
}


/* The Relu that alone reads u->out, after node after, taken into the fusion: its node, or
 * -1. */
static int take_relu(const ox_plan *p, const int *uses, fusion *u, int after)
{
	int relu = sole_reader(p, uses, u->out, (size_t)after, "Relu");
	if (relu < 0 || !one_output(&p->nodes[relu]))
		return -1;
	u->act = OX_ACT_RELU;
	u->out = p->nodes[relu].out[0];
	return relu;
}

/* Conv (float weights, constant) followed by BatchNormalization, a residual Add and/or
 * Relu that read nothing else: one fusion. */
static void fuse_conv(ox_plan *p, const int *uses, ox_val *const *v, size_t i)
{
	ox_node *N = &p->nodes[i];
	if (!is_op(N, "Conv") || !one_output(N) || N->nin < 2 || N->in[1] < 0 || !v[N->in[1]] ||
	    v[N->in[1]]->type != OX_FLOAT)
		return;
	fusion u = {NULL, NULL, {0}, -1, {-1, -1}, {-1, -1}, OX_ACT_NONE, N->out[0], false, 0, false, -1, -1, -1};
	int bn = sole_reader(p, uses, N->out[0], i, "BatchNormalization");
	if (bn >= 0 && bn_foldable(&p->nodes[bn], v))
		chain_after_bn(p, uses, v, bn, v[N->in[1]], &u);
	if (bn >= 0 && (!bn_foldable(&p->nodes[bn], v) || !fold_bn_into(p, N, &p->nodes[bn], bn, v, &u)))
		bn = -1, u.chan[0] = u.chan[1] = -1;
	int after = u.chan[1] >= 0 ? u.chan[1] : u.chan[0] >= 0 ? u.chan[0] : bn >= 0 ? bn : (int)i;
	int add = fuse_residual(p, uses, i, u.out, (size_t)after, &u);
	int relu = take_relu(p, uses, &u, add >= 0 ? add : after);
	if ((bn < 0 && relu < 0 && add < 0) || !(N->fuse = malloc(sizeof u))) {
		ox_val_unref(u.w);
		ox_val_unref(u.b);
		if (add >= 0)
			p->nodes[add].fused_in = 0;
		return;
	}
	*N->fuse = u;
	if (bn >= 0)
		p->nodes[bn].fused_away = true;
	for (int j = 0; j < 2; j++)
		if (u.chan[j] >= 0)
			p->nodes[u.chan[j]].fused_away = true;
	if (relu >= 0)
		p->nodes[relu].fused_away = true;
	if (add >= 0)
		p->nodes[add].fused_away = true;
}

/* The rank of X for which the constant input 1 of the Mul or Add that alone reads slot s
 * (after node j) is per channel of c channels: [c, 1, ...] (one less than X's rank) or
 * [1, c, 1, ...]; 0 when there is no such node. */
static int channel_rank(const ox_plan *p, const int *uses, ox_val *const *v, int s, size_t j, int64_t c)
{
	int m = sole_reader(p, uses, s, j, "Mul");
	if (m < 0)
		m = sole_reader(p, uses, s, j, "Add");
	const ox_val *k = m >= 0 && p->nodes[m].nin == 2 && p->nodes[m].in[1] >= 0 ? v[p->nodes[m].in[1]] : NULL;
	if (!k || k->kind != OX_TENSOR || k->rank < 2 || c < 2)
		return 0;
	return k->dims[0] == c ? k->rank + 1 : k->dims[0] == 1 && k->dims[1] == c ? k->rank : 0;
}

/* s * m and b * m + c: a BatchNormalization's scale and B with the Mul's and Add's
 * constants (NULL when absent) taken in. */
static bool fold_bn_params(const ox_plan *p, ox_val *const *v, const ox_node *B, fusion *u)
{
	const ox_val *s = v[B->in[1]], *b = v[B->in[2]];
	int64_t n = s->dims[0];
	const float *m = u->chan[0] >= 0 ? v[p->nodes[u->chan[0]].in[1]]->data : NULL;
	const float *c = u->chan[1] >= 0 ? v[p->nodes[u->chan[1]].in[1]]->data : NULL;
	if (!m && !c)
		return true;
	if (!(u->w = ox_tensor_new(OX_FLOAT, 1, &n, NULL)) || !(u->b = ox_tensor_new(OX_FLOAT, 1, &n, NULL)))
		return false;
	const float *sf = s->data, *bf = b->data;
	float *ws = u->w->data, *wb = u->b->data;
	for (int64_t i = 0; i < n; i++) {
		ws[i] = m ? sf[i] * m[i] : sf[i];
		wb[i] = (m ? bf[i] * m[i] : bf[i]) + (c ? c[i] : 0);
	}
	u->w->konst = u->b->konst = true;
	return true;
}

/* A BatchNormalization that no Conv took (densenet's come after a Concat), with the Mul
 * and Add by per-channel constants and the Relu that may follow it: one pass over the
 * data instead of four. */
static void fuse_bn(ox_plan *p, const int *uses, ox_val *const *v, size_t i)
{
	ox_node *B = &p->nodes[i];
	if (!is_op(B, "BatchNormalization") || B->fused_away || B->fuse || !bn_foldable(B, v))
		return;
	const ox_val *s = v[B->in[1]], *b = v[B->in[2]];
	if (s->type != OX_FLOAT || s->rank != 1 || s->dims[0] <= 0 || b->type != OX_FLOAT || b->count != s->count)
		return;
	fusion u = {NULL, NULL, {0}, (int)i, {-1, -1}, {-1, -1}, OX_ACT_NONE, B->out[0], true, 0, false, -1, -1, -1};
	u.rank = channel_rank(p, uses, v, B->out[0], i, s->dims[0]);
	if (u.rank >= 3) {
		ox_val shape = {.kind = OX_TENSOR, .type = OX_FLOAT, .rank = u.rank};
		shape.dims[0] = s->dims[0];
		chain_after_bn(p, uses, v, (int)i, &shape, &u);
	}
	if (u.chan[0] < 0 && u.chan[1] < 0)
		u.rank = 0;
	int after = u.chan[1] >= 0 ? u.chan[1] : u.chan[0] >= 0 ? u.chan[0] : (int)i;
	u.out = after == (int)i ? B->out[0] : p->nodes[after].out[0];
	int relu = take_relu(p, uses, &u, after);
	if ((u.chan[0] < 0 && u.chan[1] < 0 && relu < 0) || !fold_bn_params(p, v, B, &u) || !(B->fuse = malloc(sizeof u))) {
		ox_val_unref(u.w);
		ox_val_unref(u.b);
		return;
	}
	for (int j = 1; j < 5; j++)
		u.ids[j - 1] = v[B->in[j]]->id;
	for (int j = 0; j < 2; j++)
		u.ids[6 + j] = u.chan[j] >= 0 ? v[p->nodes[u.chan[j]].in[1]]->id : 0;
	*B->fuse = u;
	for (int j = 0; j < 2; j++)
		if (u.chan[j] >= 0)
			p->nodes[u.chan[j]].fused_away = true;
	if (relu >= 0)
		p->nodes[relu].fused_away = true;
}

/* Before the first run, the shapes inference gives the Concats' inputs and outputs where
 * they are static, as a run would note them: the first run then makes them in place as
 * the later ones do, and the second asks for the sizes the first did, so it takes no
 * memory from the system. A model inference cannot follow, or dims it leaves open, are
 * learnt from the first run instead. */
static void seed_shapes(ox_plan *p)
{
	placement *P = p->place;
	struct ox_infer *e = NULL;
	OnnxError err;
	ox_check_infer(p->model, &e, NULL, NULL, &err);
	for (size_t i = 0; e && i < p->nnodes; i++) {
		const ox_node *C = &p->nodes[i];
		for (int j = -1; P->concat[i] && j < C->nin; j++) {
			int s = j < 0 ? C->out[0] : C->in[j];
			const ox_type *t = s >= 0 ? ox_infer_type_of(e, p->slot_names[s]) : NULL;
			bool known = t && t->kind == OX_T_TENSOR && ox_elem_size(t->elem) && t->elem != OX_STRING &&
				     t->rank >= 0 && t->rank <= OX_MAX_RANK;
			for (int a = 0; known && a < t->rank; a++)
				known = ox_dim_known(t->dims[a]);
			if (!known)
				continue;
			seen_shape *d = &P->seen[s];
			d->type = t->elem, d->rank = t->rank;
			for (int a = 0; a < t->rank; a++)
				d->dims[a] = t->dims[a].v;
		}
	}
	ox_infer_free(e);
}

/* Outputs after the first that nothing reads (no node, sub-graph or graph output: a
 * Dropout's mask, a MaxPool's indices) are no longer made: kernels see them unwanted. */
static void drop_unread(ox_plan *p, const int *uses)
{
	for (size_t i = 0; i < p->nnodes; i++)
		for (int j = 1; j < p->nodes[i].nout; j++)
			if (p->nodes[i].out[j] >= 0 && !uses[p->nodes[i].out[j]])
				p->nodes[i].out[j] = -1;
}

bool ox_node_out_used(const ox_node *n, int i)
{
	return i == 0 || (i < n->nout && n->out[i] >= 0);
}

/* The Concats of the main graph and the inputs each may hold (see "placement"): every
 * input slot made by a node, once, in the first Concat that reads it. */
static void plan_placement(ox_plan *p)
{
	placement *P = calloc(1, sizeof *P);
	size_t ns = (size_t)p->nslots + 1;
	if (!P || !(P->into = malloc(ns * sizeof *P->into)) || !(P->pos = calloc(ns, sizeof *P->pos)) ||
	    !(P->axis = calloc(ns, sizeof *P->axis)) || !(P->concat = calloc(p->nnodes + 1, sizeof *P->concat)) ||
	    !(P->seen = malloc(ns * sizeof *P->seen))) {
		p->place = P;
		drop_placement(p);
		return;
	}
	p->place = P;
	bool any = false;
	for (size_t s = 0; s < ns; s++)
		P->into[s] = -1, P->seen[s].rank = -1;
	for (size_t i = 0; i < p->nnodes; i++) {
		const ox_node *C = &p->nodes[i];
		if (!is_op(C, "Concat") || !one_output(C) || C->nout != 1)
			continue;
		P->concat[i] = true;
		P->axis[C->out[0]] = attr_int(C, "axis", 1);
		for (int j = 0; j < C->nin; j++) {
			int x = C->in[j];
			bool twice = false;
			for (int l = 0; l < j; l++)
				twice = twice || C->in[l] == x;
			if (x >= 0 && !p->init[x] && maker(p, x) >= 0 && P->into[x] < 0 && !twice) {
				P->into[x] = (int)i, P->pos[x] = j;
				any = true;
			}
		}
	}
	if (!any)
		drop_placement(p);
	else
		seed_shapes(p);
}

/* An Add, or a Sum of two (resnet's and shufflenet's residual sums), with the Relu that
 * alone reads it: the Relu applied to each piece of the sum as it is stored. */
static void fuse_ew(ox_plan *p, const int *uses, size_t i)
{
	ox_node *N = &p->nodes[i];
	if ((!is_op(N, "Add") && !is_op(N, "Sum")) || N->nin != 2 || N->fused_away || N->fuse || !one_output(N))
		return;
	fusion u = {NULL, NULL, {0}, -1, {-1, -1}, {-1, -1}, OX_ACT_NONE, N->out[0], false, 0, true, -1, -1, -1};
	int relu = take_relu(p, uses, &u, (int)i);
	if (relu < 0 || !(N->fuse = malloc(sizeof u)))
		return;
	*N->fuse = u;
	p->nodes[relu].fused_away = true;
}

/* Conv weights that are constants get their packed form (value.h: derived): packed one
 * weight a task, largest first, on the session's threads. */
typedef struct to_pack {
	ox_val *w;
	int64_t group;
} to_pack;

typedef struct pack_job {
	to_pack *t;
	int level;
	ox_blocks *blocks;
} pack_job;

/* The constant float weights of Conv node N not packed yet, or NULL. */
static ox_val *weights_to_pack(const ox_node *N, ox_val *const *v, int64_t *group)
{
	ox_val *w = N->nin > 1 && N->in[1] >= 0 ? v[N->in[1]] : NULL;
	if (N->fuse && N->fuse->w)
		w = N->fuse->w;
	if (!is_op(N, "Conv") || !w || !w->konst || w->derived || w->type != OX_FLOAT || w->rank < 3)
		return NULL;
	*group = attr_int(N, "group", 1);
	return *group >= 1 && w->dims[0] % *group == 0 ? w : NULL;
}

static void pack_task(void *ctx, int64_t i)
{
	const pack_job *J = ctx;
	ox_val *w = J->t[i].w;
	/* the packed blocks come from the session's slab, on whichever thread */
	ox_blocks *old = ox_blocks_enter(J->blocks);
	w->derived = ox_conv_prepack(J->level, w->data, w->dims[0], J->t[i].group, w->count / w->dims[0], NULL);
	ox_blocks_enter(old);
}

static int by_size_down(const void *a, const void *b)
{
	int64_t x = ((const to_pack *)a)->w->count, y = ((const to_pack *)b)->w->count;
	return (x < y) - (x > y);
}

static void prepack_convs(const ox_plan *p, ox_val *const *v, int level)
{
	pack_job J = {calloc(p->nnodes + 1, sizeof *J.t), level, ox_blocks_current()};
	size_t n = 0;
	if (!J.t)
		return; /* out of memory: the weights stay unpacked, which the kernels take too */
	for (size_t i = 0; i < p->nnodes; i++) {
		int64_t group;
		ox_val *w = weights_to_pack(&p->nodes[i], v, &group);
		bool seen = false; /* weights shared by several Conv nodes: packed for the first */
		for (size_t j = 0; w && j < n && !seen; j++)
			seen = J.t[j].w == w;
		if (w && !seen)
			J.t[n++] = (to_pack){w, group};
	}
	qsort(J.t, n, sizeof *J.t, by_size_down);
	ox_parallel_for((int64_t)n, pack_task, &J);
	free(J.t);
}

/* Runs each node whose inputs are all constants now, keeping its results (folding). */
static void fold_constants(ox_plan *p, ox_val **v)
{
	ox_status st;
	frame F = {p, v, NULL, &st, "", NULL, -1};
	for (size_t i = 0; i < p->nnodes; i++) {
		ox_node *N = &p->nodes[i];
		ox_val *in[16], *out[16] = {NULL};
		bool ok = N->foldable && N->nin <= 16 && N->nout <= 16;
		for (int j = 0; ok && j < N->nin; j++)
			ok = N->in[j] < 0 || (v[N->in[j]] && v[N->in[j]]->konst);
		for (int j = 0; ok && j < N->nin; j++)
			in[j] = N->in[j] >= 0 ? v[N->in[j]] : NULL;
		/* a failure is the run's to report, with the run's inputs */
		if (!ok || call_kernel(&F, N, i, in, N->nin, out, OX_ACT_NONE) < 0)
			continue;
		cache_store(N, in, out);
		for (int j = 0; j < N->nout; j++) {
			if (N->out[j] >= 0 && N->cache)
				v[N->out[j]] = out[j];
			else
				ox_val_unref(out[j]);
		}
	}
}

void ox_plan_optimize(ox_plan *p)
{
	ox_val **v = calloc((size_t)p->nslots + 1, sizeof *v);
	int *uses = count_uses(p);
	if (v && uses) {
		for (int s = 0; s < p->nslots; s++)
			v[s] = ox_val_ref(p->init[s]);
		drop_unread(p, uses);
		fold_constants(p, v);
		for (size_t i = 0; i < p->nnodes; i++)
			fuse_conv(p, uses, v, i);
		for (size_t i = 0; i < p->nnodes; i++)
			fuse_bn(p, uses, v, i);
		for (size_t i = 0; i < p->nnodes; i++)
			fuse_ew(p, uses, i);
		plan_placement(p);
		prepack_convs(p, v, ox_cpu_level());
	}
	for (int s = 0; v && s < p->nslots; s++)
		ox_val_unref(v[s]);
	free(v);
	free(uses);
}

/* The constant a slot holds before any run: its initializer or a kept result. */
static const ox_val *constant_of(const ox_plan *p, int s)
{
	if (s < 0 || p->init[s])
		return s < 0 ? NULL : p->init[s];
	for (size_t i = 0; i < p->nnodes; i++)
		for (int j = 0; p->nodes[i].cache && j < p->nodes[i].nout; j++)
			if (p->nodes[i].out[j] == s)
				return p->nodes[i].cache->out[j];
	return NULL;
}

void ox_plan_counts(const ox_plan *p, ox_plan_stats *c)
{
	memset(c, 0, sizeof *c);
	for (size_t i = 0; i < p->nnodes; i++) {
		const ox_node *N = &p->nodes[i];
		for (int j = 1; j < N->nout; j++)
			c->unread += N->out[j] < 0 && N->proto->output[j] && N->proto->output[j][0];
		const ox_val *w = N->fuse && N->fuse->w ? N->fuse->w : N->nin > 1 ? constant_of(p, N->in[1]) : NULL;
		c->kept += N->cache != NULL;
		c->fused += N->fused_away;
		c->packed += is_op(N, "Conv") && w && w->derived;
	}
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
	*node = (ox_k){N, N->proto, N->version, NULL, N->nin, NULL, N->nout, N->attrs, N->nattrs, k->exec, k->msg,
		       N->schema, OX_ACT_NONE};
	*out = N->out;
	return N->in;
}

int ox_body_call(ox_k *k, size_t i, ox_val **in, ox_val **out)
{
	frame *F = k->exec;
	ox_status st;
	frame G = {F->p, F->v, F->parent, &st, "", NULL, -1};
	const ox_node *N = &F->p->nodes[i];
	if (call_kernel(&G, N, i, in, N->nin, out, OX_ACT_NONE) < 0)
		return ox_kfail(k, "%s", st.msg);
	return 0;
}
