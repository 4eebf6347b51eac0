/* The inference engine: walks a model's graphs in order, scope by scope, seeding values with
 * what the model declares, checking each node's inferred input types against its schema's
 * type constraints, calling its operator's rule (or inferring a model-local function's body),
 * and comparing what it infers with what the model declares. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "infer/engine.h"
#include "proto.h"

#define problem(c, ...) ox_check_report(c, ONNXTXT_ERR_INVALID, __VA_ARGS__)

static const char *str(const char *s)
{
	return s ? s : "";
}

/* ---- scopes -------------------------------------------------------------------------------- */

static void put_in(ox_infer *e, ox_names *t, const char *name, const ox_type *v)
{
	const intptr_t *old = ox_names_get(t, name);
	if (old)
		*(intptr_t *)old = (intptr_t)v; /* the table's own slot */
	else if (!ox_names_put(t, name, (intptr_t)v))
		e->nomem = true;
}

void ox_infer_scope_put(ox_infer *e, ox_iscope *sc, const char *name, const ox_type *t)
{
	if (*name)
		put_in(e, &sc->types, name, t);
}

const ox_type *ox_infer_lookup(const ox_iscope *sc, const char *name, bool *found)
{
	for (*found = false; sc; sc = sc->up) {
		const intptr_t *v = ox_names_get(&sc->types, name);
		if (v) {
			*found = true;
			return (const ox_type *)*v;
		}
	}
	return NULL;
}

/* Whether the model declares name's type in sc or around it (the structural check has then
 * compared it with the type constraints already). */
static bool declared(const ox_iscope *sc, const char *name)
{
	for (; sc; sc = sc->up)
		if (ox_names_get(&sc->declared, name))
			return true;
	return false;
}

void ox_infer_scope_free(ox_iscope *sc)
{
	ox_names_free(&sc->types);
	ox_names_free(&sc->declared);
}

/* ---- type constraints ------------------------------------------------------------------------ */

static const ox_formal *formal_at(const ox_formal *f, size_t n, size_t index)
{
	if (index < n)
		return &f[index];
	return n && f[n - 1].option == OX_FORMAL_VARIADIC ? &f[n - 1] : NULL;
}

typedef struct binding {
	intptr_t type;
	const char *by;
} binding;

/* Input i's inferred type against its formal: allowed, and the same as the type parameter's
 * earlier binding. Same messages as the structural check gives for declared types. */
static void check_input_type(ox_ictx *x, size_t i, const ox_formal *f, binding *bound)
{
	const ox_schema *s = x->schema;
	const char *name = x->node->input[i];
	intptr_t type = ox_infer_code(x->in[i]);
	if (type >> 8 == OX_KIND_SPARSE) /* taken where a tensor goes, as the structural check does */
		type = (type & 0xff) | OX_KIND_TENSOR << 8;
	int k = ox_check_constraint_of(s, f);
	char have[64], was[64];
	if (!type)
		return;
	bool skip = declared(x->e->scope, name); /* the structural check said it */
	ox_check_type_name(type, have, sizeof have);
	if (!ox_check_type_allowed(f->set, type)) {
		const char *list = k >= 0 ? s->constraints[k].allowed : f->type;
		if (!skip)
			ox_ierr(x, OX_P_INPUT, i, "input '%s' is %s, which %s%s does not allow%s%s%s", name, have,
				k >= 0 ? "type parameter " : "the formal type ", f->type,
				k >= 0 && strlen(list) <= 160 ? " (it allows " : "", k >= 0 && strlen(list) <= 160 ? list : "",
				k >= 0 && strlen(list) <= 160 ? ")" : "");
		x->failed = true;
		return;
	}
	if (k < 0 || (f->option == OX_FORMAL_VARIADIC && !f->homogeneous))
		return;
	if (!bound[k].type) {
		bound[k] = (binding){type, name};
		return;
	}
	if (bound[k].type == type)
		return;
	ox_check_type_name(bound[k].type, was, sizeof was);
	if (!skip || !declared(x->e->scope, bound[k].by))
		ox_ierr(x, OX_P_INPUT, i, "input '%s' is %s, but %s is %s (input '%s')", name, have, f->type, was, bound[k].by);
	x->failed = true;
}

/* The type one set allows when it allows exactly one, else 0. */
static intptr_t only_type(const ox_typeset *set)
{
	if ((set->other && *set->other) || set->seq || set->opt || set->optseq || set->sparse)
		return 0;
	uint32_t m = set->tensor;
	return m && !(m & (m - 1)) ? (intptr_t)__builtin_ctz(m) | OX_KIND_TENSOR << 8 : 0;
}

/* The generic part of every standard node: input types against the constraints, and the
 * outputs' types where a constraint bound by the inputs (or a fixed type) gives them. */
static void generic(ox_ictx *x)
{
	const ox_schema *s = x->schema;
	binding bound[256] = {{0}};
	for (size_t i = 0; i < x->n_in; i++) {
		const ox_formal *f = formal_at(s->inputs, s->n_inputs, i);
		if (f && x->in[i])
			check_input_type(x, i, f, bound);
	}
	for (size_t i = 0; i < x->n_out; i++) {
		const ox_formal *f = formal_at(s->outputs, s->n_outputs, i);
		if (!f)
			continue;
		int k = ox_check_constraint_of(s, f);
		intptr_t code = k >= 0 && bound[k].type ? bound[k].type : only_type(k >= 0 ? &s->constraints[k].set : f->set);
		if (code)
			x->out[i] = ox_infer_from_code(x->e, code);
	}
}

/* ---- nodes ---------------------------------------------------------------------------------- */

static int64_t version_of(const ox_infer *e, const char *domain)
{
	const intptr_t *v = ox_names_get(e->opsets, domain);
	return v ? *v : 0;
}

static const char *domain_of(const Onnx__NodeProto *n)
{
	return n->domain && strcmp(n->domain, "ai.onnx") ? n->domain : "";
}

/* The model-local function a node calls, or -1. */
static intptr_t local_function(const ox_infer *e, const Onnx__NodeProto *n)
{
	if (!e->functions.n || !n->op_type)
		return -1;
	size_t dl = strlen(str(n->domain)), ol = strlen(n->op_type), vl = strlen(str(n->overload));
	char buf[512];
	if (dl + ol + vl + 3 > sizeof buf)
		return -1;
	snprintf(buf, sizeof buf, "%s\n%s\n%s", str(n->domain), n->op_type, str(n->overload));
	const intptr_t *v = ox_names_get(&e->functions, buf);
	return v ? *v : -1;
}

static void infer_call(ox_ictx *x, size_t index);

/* The rule for a standard node, cached by schema (the table is one array). */
static ox_rule_fn rule_for(ox_infer *e, const ox_schema *s)
{
	size_t n;
	const ox_schema *all = ox_schema_all(&n);
	size_t i = (size_t)(s - all);
	if (!e->rule_cache) {
		e->rule_cache = calloc(n, sizeof *e->rule_cache);
		e->rule_looked = calloc(n, 1);
		if (!e->rule_cache || !e->rule_looked) {
			e->nomem = true;
			return NULL;
		}
	}
	if (!e->rule_looked[i]) {
		e->rule_cache[i] = ox_rule_find(s->domain, s->name, s->since);
		e->rule_looked[i] = 1;
	}
	return e->rule_cache[i];
}

static void infer_standard(ox_ictx *x, const char *domain)
{
	const ox_schema_domain *d = ox_schema_domain_find(domain);
	int64_t v = x->version > d->max ? d->max : x->version;
	const ox_schema *s = ox_schema_find(domain, x->node->op_type, v);
	if (!s || (s->flags & OX_SCHEMA_DEPRECATED))
		return; /* the structural check said so */
	x->schema = s;
	generic(x);
	if (x->failed)
		return;
	ox_rule_fn fn = rule_for(x->e, s);
	if (fn)
		fn(x);
	else if (x->e->o.strict)
		ox_ierr(x, OX_P_OP, 0, "no inference rule for %s (opset %d): its outputs' shapes are unknown (--strict)",
			x->node->op_type, s->since);
}

/* Output j's inferred type against the declared one; the value's type becomes what either
 * knows. */
static void settle_output(ox_ictx *x, ox_iscope *sc, size_t j)
{
	const char *name = str(x->node->output[j]);
	const ox_type *t = x->failed ? NULL : x->out[j];
	const intptr_t *d = ox_names_get(&sc->declared, name);
	const ox_type *decl = d ? (const ox_type *)*d : NULL;
	if (t && decl && !ox_type_compatible(t, decl)) {
		char a[160], b[160];
		ox_type_str(t, a, sizeof a);
		ox_type_str(decl, b, sizeof b);
		ox_ierr(x, OX_P_OUTPUT, j, "output '%s' is inferred as %s, but it is declared as %s", name, a, b);
		t = NULL;
	}
	ox_infer_scope_put(x->e, sc, name, t && decl ? ox_infer_merge(x->e, t, decl) : t ? t : decl);
}

static void infer_node(ox_infer *e, ox_iscope *sc, const Onnx__NodeProto *n)
{
	const char *domain = domain_of(n);
	ox_ictx x = {.e = e, .node = n, .domain = domain, .version = version_of(e, domain), .n_in = n->n_input,
		     .n_out = n->n_output};
	const ox_type **in = ox_arena_alloc(e->arena, (n->n_input + 1) * sizeof *in);
	const ox_type **out = ox_arena_alloc(e->arena, (n->n_output + 1) * sizeof *out);
	if (!in || !out) {
		e->nomem = true;
		return;
	}
	for (size_t i = 0; i < n->n_input; i++) {
		bool found;
		in[i] = *str(n->input[i]) ? ox_infer_lookup(sc, n->input[i], &found) : NULL;
	}
	x.in = in;
	x.out = out;
	e->scope = sc;
	e->c->node = n;
	intptr_t f = local_function(e, n);
	if (f >= 0)
		infer_call(&x, (size_t)f);
	else if (ox_schema_domain_find(domain) && n->op_type)
		infer_standard(&x, domain);
	else if (e->o.strict)
		ox_ierr(&x, OX_P_OP, 0, "no inference rule for operator '%s' of domain '%s' (--strict)", str(n->op_type), domain);
	for (size_t j = 0; j < n->n_output; j++)
		settle_output(&x, sc, j);
	e->c->node = NULL;
}

/* ---- graphs --------------------------------------------------------------------------------- */

static void declare(ox_infer *e, ox_iscope *sc, const Onnx__ValueInfoProto *vi)
{
	ox_type *t = vi->type ? ox_infer_from_proto(e, vi->type) : NULL;
	if (t && vi->name && *vi->name)
		put_in(e, &sc->declared, vi->name, t);
}

/* Inputs typed by in[i] (merged with their declarations), initializers with their values. */
static void seed(ox_infer *e, const Onnx__GraphProto *g, ox_iscope *sc, const ox_type *const *in, size_t n)
{
	for (size_t i = 0; i < g->n_value_info; i++)
		declare(e, sc, g->value_info[i]);
	for (size_t i = 0; i < g->n_output; i++)
		declare(e, sc, g->output[i]);
	for (size_t i = 0; i < g->n_input; i++) {
		const Onnx__ValueInfoProto *vi = g->input[i];
		ox_type *d = vi->type ? ox_infer_from_proto(e, vi->type) : NULL;
		const ox_type *given = i < n ? in[i] : NULL;
		if (d && vi->name && *vi->name)
			put_in(e, &sc->declared, vi->name, d);
		ox_infer_scope_put(e, sc, str(vi->name), given && ox_type_compatible(given, d) ? ox_infer_merge(e, given, d) : d);
	}
	for (size_t i = 0; i < g->n_initializer; i++) {
		const Onnx__TensorProto *t = g->initializer[i];
		bool found;
		const ox_type *d = ox_infer_lookup(sc, str(t->name), &found);
		/* an initializer that is also an input is a default the caller may override; onnx's
		 * inference takes its values all the same, and so does this one, to agree */
		ox_type *it = ox_infer_from_tensor(e, t, true);
		ox_infer_scope_put(e, sc, str(t->name), d && ox_type_compatible(it, d) ? ox_infer_merge(e, it, d) : it);
	}
}

static void infer_nodes(ox_infer *e, const Onnx__GraphProto *g, ox_iscope *sc)
{
	ox_check *c = e->c;
	for (size_t i = 0; i < g->n_node && !e->nomem && !c->nomem; i++) {
		size_t old = ox_check_path_push(c, ".node[%zu]", i);
		infer_node(e, sc, g->node[i]);
		ox_check_path_pop(c, old);
	}
}

/* Keeps a graph's scope for ox_infer_type_in (sub-graphs of the main graph, not of calls). */
static void keep_scope(ox_infer *e, const Onnx__GraphProto *g, ox_iscope *sc)
{
	bool grown = !e->function && ox_grow(&e->kept, &e->kept_cap, e->n_kept, sizeof *e->kept, 8);
	e->nomem |= !e->function && !grown;
	if (!grown) {
		ox_infer_scope_free(sc);
		free(sc);
		return;
	}
	e->kept[e->n_kept++] = (ox_kept){g, sc};
}

int ox_infer_graph(ox_ictx *x, const Onnx__GraphProto *g, const char *attr, const ox_type *const *in, size_t n,
		   const ox_type **out)
{
	ox_infer *e = x->e;
	ox_check *c = e->c;
	const ox_iscope *outer = e->scope;
	size_t errors = c->errors, old = ox_check_path_push(c, ".%s", attr);
	ox_iscope *sc = calloc(1, sizeof *sc);
	for (size_t i = 0; i < g->n_output; i++)
		out[i] = NULL;
	if (!sc || e->depth > 64) {
		e->nomem |= !sc;
		free(sc);
		ox_check_path_pop(c, old);
		return 0;
	}
	sc->up = outer;
	e->depth++;
	seed(e, g, sc, in, n);
	infer_nodes(e, g, sc);
	e->depth--;
	for (size_t i = 0; i < g->n_output; i++) {
		bool found;
		out[i] = ox_infer_lookup(sc, str(g->output[i]->name), &found);
	}
	keep_scope(e, g, sc);
	ox_check_path_pop(c, old);
	e->scope = outer;
	c->node = x->node;
	return c->errors > errors || x->failed ? -1 : 0;
}

/* ---- model-local functions ------------------------------------------------------------------- */

static void add_opsets(ox_infer *e, ox_names *t, Onnx__OperatorSetIdProto *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *d = str(v[i]->domain);
		if (!ox_names_put(t, strcmp(d, "ai.onnx") ? d : "", v[i]->version > INTPTR_MAX ? INTPTR_MAX : (intptr_t)v[i]->version))
			e->nomem = true;
	}
}

/* ---- call keys: a body is inferred once per function, opsets, attributes and input types ---- */

typedef struct keybuf {
	uint8_t *b;
	size_t n, cap;
	bool nomem;
} keybuf;

/* Whether n more bytes fit (growing the buffer); false once out of memory. */
static bool reserve(keybuf *k, size_t n)
{
	k->nomem |= !k->nomem && k->n + n > k->cap && !ox_grow(&k->b, &k->cap, k->n + n, 1, 256);
	return !k->nomem;
}

static void put(keybuf *k, const void *v, size_t n)
{
	if (reserve(k, n)) {
		memcpy(k->b + k->n, v, n);
		k->n += n;
	}
}

#define PUT(k, v) put(k, &(v), sizeof(v))

/* Every field of t that a rule may read. Dimension parameters and symbols are interned, so
 * their pointers stand for their names. */
static void put_type(keybuf *k, const ox_type *t)
{
	int64_t head[5] = {t ? t->kind : -1, t ? t->elem : 0, t ? t->key : 0, t ? t->rank : 0, t ? t->nvals : 0};
	PUT(k, head);
	if (!t)
		return;
	for (int i = 0; i < t->rank; i++) {
		PUT(k, t->dims[i].v);
		PUT(k, t->dims[i].param);
	}
	put_type(k, t->inner);
	size_t n = t->nvals > 0 ? (size_t)t->nvals : 0;
	uint8_t has[4] = {t->vals != NULL, t->fvals != NULL, t->known != NULL, t->sym != NULL};
	PUT(k, has);
	if (t->vals)
		put(k, t->vals, n * sizeof *t->vals);
	if (t->fvals)
		put(k, t->fvals, n * sizeof *t->fvals);
	if (t->known)
		put(k, t->known, n * sizeof *t->known);
	if (t->sym)
		put(k, t->sym, n * sizeof *t->sym);
}

/* The attributes of the call x makes: those that refer to an attribute of the call being
 * inferred (the call is in a function body) take its value, as the evaluator's planner
 * resolves them, so a body sees values however deep the calls pass them on; one that
 * finds none is left out (the body takes its default). */
static const Onnx__AttributeProto **call_attrs(ox_ictx *x, size_t *n)
{
	ox_infer *e = x->e;
	const Onnx__NodeProto *node = x->node;
	const Onnx__AttributeProto **v = ox_arena_alloc(e->arena, (node->n_attribute + 1) * sizeof *v);
	*n = 0;
	for (size_t i = 0; v && i < node->n_attribute; i++) {
		const Onnx__AttributeProto *a = node->attribute[i];
		if (a->ref_attr_name && *a->ref_attr_name) {
			const Onnx__AttributeProto *r = a->name ? ox_iattr(x, a->name) : NULL;
			Onnx__AttributeProto *c = r && !(r->ref_attr_name && *r->ref_attr_name)
							  ? ox_arena_alloc(e->arena, sizeof *c)
							  : NULL;
			if (!c)
				continue;
			*c = *r;
			c->name = a->name;
			a = c;
		}
		v[(*n)++] = a;
	}
	e->nomem |= !v;
	return v;
}

/* The key of calling function index from x: what inferring its body depends on. The
 * opsets in force count only when the function imports none of its own, by content (the
 * table is the caller's, on its stack), in the table's order: equal tables built in
 * another order give another key, which only costs sharing. The call's attributes count
 * as resolved (call_attrs: n of them at attrs). A body inferred quietly (inside a
 * function whose error was reported) is inferred again where errors show. */
static void call_key(keybuf *k, const ox_ictx *x, size_t index, const Onnx__AttributeProto *const *attrs, size_t n)
{
	const ox_infer *e = x->e;
	const Onnx__FunctionProto *f = e->m->functions[index];
	bool quiet = e->quiet > 0;
	PUT(k, index);
	PUT(k, quiet);
	for (size_t i = 0; !f->n_opset_import && i < e->opsets->cap; i++)
		if (e->opsets->key[i]) {
			PUT(k, e->opsets->len[i]);
			put(k, e->opsets->key[i], e->opsets->len[i]);
			PUT(k, e->opsets->val[i]);
		}
	PUT(k, n);
	size_t size = ox_attrs_pack(attrs, n, NULL);
	if (reserve(k, size))
		k->n += ox_attrs_pack(attrs, n, k->b + k->n);
	PUT(k, x->n_in);
	for (size_t i = 0; i < x->n_in; i++)
		put_type(k, x->in[i]);
}

/* A call's outputs as inferred once, for the calls with the same key. */
typedef struct call_done {
	size_t n;
	const ox_type *out[];
} call_done;

/* Infers the body of function index with the call's input types and attributes (n at
 * attrs); its outputs become the call's. An error inside is reported once per function
 * (at the body's node), and the call fails. */
static void infer_body(ox_ictx *x, size_t index, const Onnx__AttributeProto **attrs, size_t n)
{
	ox_infer *e = x->e;
	ox_check *c = e->c;
	const Onnx__FunctionProto *f = e->m->functions[index];
	char path[sizeof c->path];
	size_t plen = c->plen, errors = c->errors;
	memcpy(path, c->path, sizeof path);
	ox_check_path_pop(c, 0);
	ox_check_path_push(c, "functions[%zu]", index);
	ox_iscope sc = {{0}, {0}, NULL};
	ox_names opsets = {0};
	const ox_names *saved_opsets = e->opsets;
	const Onnx__NodeProto *saved_caller = e->caller;
	const Onnx__AttributeProto **saved_attrs = e->caller_attrs;
	size_t saved_n = e->n_caller_attrs;
	const Onnx__FunctionProto *saved_function = e->function;
	const ox_iscope *saved_scope = e->scope;
	add_opsets(e, &opsets, f->opset_import, f->n_opset_import);
	e->opsets = f->n_opset_import ? &opsets : saved_opsets;
	e->caller = x->node;
	e->caller_attrs = attrs, e->n_caller_attrs = n;
	e->function = f;
	e->in_progress[index] = true;
	e->quiet += e->reported[index];
	e->depth++;
	for (size_t i = 0; i < f->n_value_info; i++)
		declare(e, &sc, f->value_info[i]);
	for (size_t i = 0; i < f->n_input; i++)
		ox_infer_scope_put(e, &sc, str(f->input[i]), i < x->n_in ? x->in[i] : NULL);
	for (size_t i = 0; i < f->n_node && !e->nomem; i++) {
		size_t old = ox_check_path_push(c, ".node[%zu]", i);
		infer_node(e, &sc, f->node[i]);
		ox_check_path_pop(c, old);
	}
	for (size_t i = 0; i < f->n_output && i < x->n_out; i++) {
		bool found;
		x->out[i] = ox_infer_lookup(&sc, str(f->output[i]), &found);
	}
	e->depth--;
	e->quiet -= e->reported[index];
	e->reported[index] |= c->errors > errors;
	e->in_progress[index] = false;
	e->opsets = saved_opsets;
	e->caller = saved_caller;
	e->caller_attrs = saved_attrs, e->n_caller_attrs = saved_n;
	e->function = saved_function;
	e->scope = saved_scope;
	ox_names_free(&opsets);
	ox_infer_scope_free(&sc);
	memcpy(c->path, path, sizeof path);
	c->plen = plen;
	c->node = x->node;
}

/* A call with the key of one inferred before takes its outputs, so a model whose
 * functions each call the next twice is inferred in time linear in its size. */
static void infer_call(ox_ictx *x, size_t index)
{
	ox_infer *e = x->e;
	const Onnx__FunctionProto *f = e->m->functions[index];
	if (e->in_progress[index] || e->depth > 64)
		return; /* recursion: the structural check reports it */
	size_t n;
	const Onnx__AttributeProto **attrs = call_attrs(x, &n);
	keybuf k = {0};
	call_key(&k, x, index, attrs, n);
	const intptr_t *hit = k.nomem ? NULL : ox_names_find(&e->calls, k.b, k.n);
	if (hit) {
		const call_done *d = (const call_done *)*hit;
		for (size_t i = 0; i < d->n && i < x->n_out; i++)
			x->out[i] = d->out[i];
		free(k.b);
		return;
	}
	infer_body(x, index, attrs, n);
	call_done *d = ox_arena_alloc(e->arena, sizeof *d + f->n_output * sizeof *d->out);
	uint8_t *key = ox_arena_alloc(e->arena, k.n + 1);
	if (!k.nomem && d && key) {
		d->n = f->n_output < x->n_out ? f->n_output : x->n_out;
		memcpy(d->out, x->out, d->n * sizeof *d->out);
		memcpy(key, k.b, k.n);
		e->nomem |= !ox_names_add(&e->calls, key, k.n, (intptr_t)d);
	}
	free(k.b);
}

static void index_functions(ox_infer *e, const Onnx__ModelProto *m)
{
	e->function_keys = calloc(m->n_functions + 1, sizeof *e->function_keys);
	e->in_progress = calloc(m->n_functions + 1, 1);
	e->reported = calloc(m->n_functions + 1, 1);
	if (!e->function_keys || !e->in_progress || !e->reported) {
		e->nomem = true;
		return;
	}
	for (size_t i = 0; i < m->n_functions; i++) {
		const Onnx__FunctionProto *f = m->functions[i];
		size_t len = strlen(str(f->domain)) + strlen(str(f->name)) + strlen(str(f->overload)) + 3;
		char *k = e->function_keys[i] = malloc(len);
		if (!k) {
			e->nomem = true;
			return;
		}
		snprintf(k, len, "%s\n%s\n%s", str(f->domain), str(f->name), str(f->overload));
		if (!ox_names_get(&e->functions, k) && !ox_names_put(&e->functions, k, (intptr_t)i))
			e->nomem = true;
	}
}

/* ---- the model ------------------------------------------------------------------------------- */

ox_infer *ox_infer_model(ox_check *c, const Onnx__ModelProto *m, const ox_infer_opts *o)
{
	ox_infer *e = calloc(1, sizeof *e);
	if (!e || !(e->arena = ox_arena_new())) {
		free(e);
		c->nomem = true;
		return NULL;
	}
	e->c = c;
	e->m = m;
	e->o = o ? *o : (ox_infer_opts){0};
	add_opsets(e, &e->model_opsets, m->opset_import, m->n_opset_import);
	e->opsets = &e->model_opsets;
	index_functions(e, m);
	if (m->graph && !e->nomem && !(e->top = calloc(1, sizeof *e->top)))
		e->nomem = true;
	if (e->top) {
		size_t old = ox_check_path_push(c, "graph");
		seed(e, m->graph, e->top, NULL, 0);
		infer_nodes(e, m->graph, e->top);
		ox_check_path_pop(c, old);
	}
	c->nomem |= e->nomem;
	return e;
}

const ox_type *ox_infer_type_of(const ox_infer *e, const char *name)
{
	bool found;
	return e && e->top ? ox_infer_lookup(e->top, name, &found) : NULL;
}

const ox_type *ox_infer_type_in(const ox_infer *e, const Onnx__GraphProto *g, const char *name)
{
	bool found;
	if (e && e->m && g == e->m->graph)
		return ox_infer_type_of(e, name);
	for (size_t i = e ? e->n_kept : 0; i-- > 0;)
		if (e->kept[i].g == g) {
			const intptr_t *v = ox_names_get(&e->kept[i].sc->types, name);
			return v ? (const ox_type *)*v : NULL;
		}
	(void)found;
	return NULL;
}

void ox_infer_free(ox_infer *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->n_kept; i++) {
		ox_infer_scope_free(e->kept[i].sc);
		free(e->kept[i].sc);
	}
	free(e->kept);
	if (e->top)
		ox_infer_scope_free(e->top);
	free(e->top);
	for (size_t i = 0; e->function_keys && i < e->m->n_functions; i++)
		free(e->function_keys[i]);
	free(e->function_keys);
	free(e->in_progress);
	free(e->reported);
	free(e->rule_cache);
	free(e->rule_looked);
	ox_names_free(&e->functions);
	ox_names_free(&e->calls);
	ox_names_free(&e->params);
	ox_names_free(&e->model_opsets);
	ox_arena_free(e->arena);
	free(e);
}
