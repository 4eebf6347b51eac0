/* Structural check of a model, after the ONNX checker (onnx/checker.cc): names in single
 * static assignment form and defined before use, opset imports, required fields, tensor
 * and attribute values, and attribute names and types of the default domain's operators. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "text/lexer.h"
#include "names.h"
#include "onnx.h"
#include "spans.h"
#include "types.h"

#define AT(x) ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__##x

/* ---- the checker's state ------------------------------------------------------------------ */

/* What defines a name in a scope: a node (its index, >= 0) or one of these. */
enum { DEF_INPUT = -1, DEF_INIT = -2 };

/* The names a graph or function body defines; lookups continue in the enclosing one. */
typedef struct scope {
	ox_names defs;
	const struct scope *up;
} scope;

/* Which part of a node a problem is about, to point at it in the text. */
enum part { P_ALL, P_OP, P_INPUT, P_OUTPUT };

typedef struct ctx {
	const char *text; /* with spans: the model's text */
	size_t len;
	const ox_spans *spans;
	OnnxError *problems;
	size_t n, cap;
	bool nomem;
	int64_t ir_version;
	const ox_names *opsets; /* domain -> version for the nodes being checked */
	const Onnx__ModelProto *model;
	bool in_function;
	const Onnx__NodeProto *node; /* the node being checked, named after the path */
	char path[1024];
	size_t plen;
} ctx;

static bool full(const ctx *c)
{
	return c->nomem || c->n >= ONNXTXT_MAX_PROBLEMS;
}

/* Appends to the path; returns the old length for path_pop. */
static size_t path_push(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t path_push(ctx *c, const char *fmt, ...)
{
	size_t old = c->plen;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(c->path + c->plen, sizeof c->path - c->plen, fmt, ap);
	va_end(ap);
	if (n > 0)
		c->plen = c->plen + (size_t)n < sizeof c->path ? c->plen + (size_t)n : sizeof c->path - 1;
	return old;
}

static void path_pop(ctx *c, size_t len)
{
	c->plen = len;
	c->path[len] = '\0';
}

static bool is_name_token(int code)
{
	switch (code) {
	case TK_LT: case TK_GT: case TK_LPAREN: case TK_RPAREN: case TK_LBRACKET: case TK_RBRACKET:
	case TK_LBRACE: case TK_RBRACE: case TK_COMMA: case TK_COLON: case TK_EQ: case TK_ARROW:
	case TK_DOT: case TK_AT: case TK_QUESTION: case TK_ANNOT: case OX_TOK_EOF: case OX_TOK_ERROR:
		return false;
	default:
		return true;
	}
}

static int bracket(int code)
{
	switch (code) {
	case TK_LT: case TK_LPAREN: case TK_LBRACKET: case TK_LBRACE: return 1;
	case TK_GT: case TK_RPAREN: case TK_RBRACKET: case TK_RBRACE: return -1;
	default: return 0;
	}
}

/* Finds, in a node's text [s, e), its op name (all of "a.b.Op"), or its index-th output or
 * input name; *at gets the token (its length 0 when it is not there). A node reads
 * "[label] outs = op (ins) <attrs>", the attributes maybe before the inputs. */
static void node_token(const char *text, size_t s, size_t e, enum part part, size_t index, ox_tok *at)
{
	ox_lexer L;
	ox_lex_init(&L, text + s, e - s);
	int depth = 0, stage = 0; /* 0: label and outputs, 1: op, 2: inputs and attributes */
	size_t k = 0;
	bool inputs = false;
	at->n = 0;
	for (ox_tok t = ox_lex(&L); t.code != OX_TOK_EOF && t.code != OX_TOK_ERROR; t = ox_lex(&L)) {
		int b = bracket(t.code), d = depth;
		depth += b;
		if (t.code == TK_ANNOT || (stage == 0 && (t.code == TK_LBRACKET || d > 0)))
			continue; /* annotations and the label */
		if (stage == 0 && t.code == TK_EQ)
			stage = 1;
		else if (stage == 0 && t.code == TK_COMMA)
			k++;
		else if (stage == 0 && part == P_OUTPUT && k == index && is_name_token(t.code))
			*at = t;
		else if (stage == 1 && is_name_token(t.code) && (part == P_OP || part == P_ALL) && !at->n)
			*at = t;
		else if (stage == 1 && (t.code == TK_DOT || t.code == TK_ID) && at->n && (part == P_OP || part == P_ALL))
			at->n = (uint32_t)(t.p + t.n - at->p); /* "a.b.Op": the whole of it */
		if (stage == 1 && d == 0 && b > 0) {
			stage = 2;
			inputs = t.code == TK_LPAREN;
			k = 0;
		} else if (stage == 2 && d == 0 && b > 0) {
			inputs = t.code == TK_LPAREN;
			k = 0;
		} else if (stage == 2 && inputs && d == 1 && t.code == TK_COMMA) {
			k++;
		} else if (stage == 2 && inputs && d == 1 && part == P_INPUT && k == index && is_name_token(t.code)) {
			*at = t;
			return;
		}
		if (part == P_OUTPUT && at->n)
			return;
		if (stage == 2 && (part == P_OP || part == P_ALL))
			return;
	}
}

/* Fills the problem's position from the span of msg; a node's part is found in its text. */
static void locate(const ctx *c, OnnxError *e, const void *msg, enum part part, size_t index)
{
	const ox_span *sp = msg ? ox_span_find(c->spans, msg) : NULL;
	if (!sp)
		return;
	ox_tok at = {c->text + sp->start, sp->end - sp->start, 0, 0};
	if (msg == c->node) {
		node_token(c->text, sp->start, sp->end, part, index, &at);
		if (!at.n && part != P_OP)
			node_token(c->text, sp->start, sp->end, P_OP, 0, &at);
		if (!at.n)
			return;
	}
	e->offset = (size_t)(at.p - c->text);
	e->length = at.n;
	ox_locate(c->text, c->len, e->offset, &e->line, &e->column);
}

/* Records a problem: "PATH (Op): message", placed at msg (a node's part) in the text. */
static void problem(ctx *c, const void *msg, enum part part, size_t index, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void problem(ctx *c, const void *msg, enum part part, size_t index, const char *fmt, ...)
{
	if (full(c))
		return;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 8;
		OnnxError *v = realloc(c->problems, cap * sizeof *v);
		if (!v) {
			c->nomem = true;
			return;
		}
		c->problems = v;
		c->cap = cap;
	}
	OnnxError *e = &c->problems[c->n++];
	memset(e, 0, sizeof *e);
	e->code = ONNXTXT_ERR_INVALID;
	char what[160] = "";
	const Onnx__NodeProto *n = c->node;
	if (n)
		snprintf(what, sizeof what, " (%s%s%s)", n->domain && *n->domain ? n->domain : "",
			 n->domain && *n->domain ? "." : "", n->op_type ? n->op_type : "");
	int used = snprintf(e->message, sizeof e->message, "%s%s%s", c->path, what, c->plen ? ": " : "");
	va_list ap;
	va_start(ap, fmt);
	if (used >= 0 && (size_t)used < sizeof e->message)
		vsnprintf(e->message + used, sizeof e->message - (size_t)used, fmt, ap);
	va_end(ap);
	locate(c, e, msg, part, index);
}

static const char *str(const char *s)
{
	return s ? s : "";
}

/* ---- tensors ---------------------------------------------------------------------------- */

/* Each data field with values: the first one's name, or NULL; *fields counts them. */
static const char *data_field(const Onnx__TensorProto *t, int *fields)
{
	const char *f = NULL;
	*fields = 0;
	for (int i = 0; i < OX_NFIELDS; i++)
		if (ox_field_count(t, i)) {
			++*fields;
			f = f ? f : ox_field_name(i);
		}
	if (t->has_raw_data && t->raw_data.len) {
		++*fields;
		f = f ? f : "raw_data";
	}
	return f;
}

/* The checker's rules for a tensor's data: a defined element type; one data field, the
 * one the type uses (or none for an empty tensor or external data); strings not raw. */
static void check_tensor(ctx *c, const Onnx__TensorProto *t, const void *at)
{
	const char *name = str(t->name);
	if (!t->has_data_type || t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__UNDEFINED) {
		problem(c, at, P_ALL, 0, "tensor '%s' has no element type (data_type)", name);
		return;
	}
	int fields;
	const char *field = data_field(t, &fields);
	bool external = t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
	uint64_t count = 1;
	for (size_t i = 0; i < t->n_dims; i++)
		count *= t->dims[i] < 0 ? 0 : (uint64_t)t->dims[i];
	if (external && fields)
		problem(c, at, P_ALL, 0, "tensor '%s' is stored externally but also has %s", name, field);
	else if (!external && count == 0 && fields)
		problem(c, at, P_ALL, 0, "tensor '%s' has no elements but has %s", name, field);
	else if (!external && count && fields != 1)
		problem(c, at, P_ALL, 0, "tensor '%s' needs its values in exactly one data field, not %d", name, fields);
	else if (field && !strcmp(field, "raw_data") && t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__STRING)
		problem(c, at, P_ALL, 0, "tensor '%s': strings cannot be stored in raw_data", name);
	else if (field && strcmp(field, "raw_data") && strcmp(field, ox_field_name(ox_elem_field(t->data_type))))
		problem(c, at, P_ALL, 0, "tensor '%s': %s values belong in %s, not %s", name,
			ox_elem_name(t->data_type) ? ox_elem_name(t->data_type) : "these",
			ox_field_name(ox_elem_field(t->data_type)), field);
}

/* ---- attributes ------------------------------------------------------------------------- */

static void check_graph(ctx *c, const Onnx__GraphProto *g, const scope *up, bool main_graph);

/* Whether each value field of a is present; returns how many are, and the type of the
 * last one in *type. */
static int value_fields(const Onnx__AttributeProto *a, int *type)
{
	struct { bool set; int type; } f[] = {
		{a->has_f, AT(FLOAT)}, {a->has_i, AT(INT)}, {a->has_s, AT(STRING)}, {a->t != NULL, AT(TENSOR)},
		{a->g != NULL, AT(GRAPH)}, {a->sparse_tensor != NULL, AT(SPARSE_TENSOR)}, {a->tp != NULL, AT(TYPE_PROTO)},
		{a->n_floats > 0, AT(FLOATS)}, {a->n_ints > 0, AT(INTS)}, {a->n_strings > 0, AT(STRINGS)},
		{a->n_tensors > 0, AT(TENSORS)}, {a->n_graphs > 0, AT(GRAPHS)},
		{a->n_sparse_tensors > 0, AT(SPARSE_TENSORS)}, {a->n_type_protos > 0, AT(TYPE_PROTOS)}};
	int n = 0;
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		if (f[i].set) {
			n++;
			*type = f[i].type;
		}
	return n;
}

static const char *type_name(int type)
{
	const char *s = ox_attr_type_name(type);
	return s ? s : "undefined";
}

/* The attribute's own rules: a name, at most one value, of its declared type; references
 * only inside functions; then its tensors and graphs. */
static void check_attribute(ctx *c, const Onnx__AttributeProto *a, const scope *sc)
{
	const char *name = str(a->name);
	int vtype = 0, nvalues = value_fields(a, &vtype);
	if (!*name)
		problem(c, a, P_ALL, 0, "an attribute has no name");
	if (a->ref_attr_name && *a->ref_attr_name && !c->in_function)
		problem(c, a, P_ALL, 0, "attribute '%s' refers to '@%s', but references are only allowed in a function",
			name, a->ref_attr_name);
	if (!(a->has_type && a->type) && c->ir_version >= 2)
		problem(c, a, P_ALL, 0, "attribute '%s' has no type", name);
	if (nvalues > 1)
		problem(c, a, P_ALL, 0, "attribute '%s' has %d values; an attribute has one", name, nvalues);
	else if (nvalues == 1 && a->has_type && (int)a->type != vtype)
		problem(c, a, P_ALL, 0, "attribute '%s' is declared %s but holds a %s value", name, type_name(a->type),
			type_name(vtype));
	if (a->t)
		check_tensor(c, a->t, a);
	for (size_t i = 0; i < a->n_tensors; i++)
		check_tensor(c, a->tensors[i], a);
	const Onnx__NodeProto *node = c->node;
	if (a->g) {
		size_t old = path_push(c, ".%s", name);
		c->node = NULL;
		check_graph(c, a->g, sc, false);
		c->node = node;
		path_pop(c, old);
	}
	for (size_t i = 0; i < a->n_graphs; i++) {
		size_t old = path_push(c, ".%s[%zu]", name, i);
		c->node = NULL;
		check_graph(c, a->graphs[i], sc, false);
		c->node = node;
		path_pop(c, old);
	}
}

/* The schema summary of an operator of the default domain (check_ops.h), or NULL. */
#include "check_ops.h"

static const struct op_attrs *op_find(const char *op)
{
	size_t lo = 0, hi = sizeof op_attrs / sizeof op_attrs[0];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int cmp = strcmp(op, op_attrs[mid].op);
		if (cmp == 0)
			return &op_attrs[mid];
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static int letter_type(char l)
{
	static const char letters[] = "fistgpyFISTGPY";
	static const int types[] = {AT(FLOAT), AT(INT), AT(STRING), AT(TENSOR), AT(GRAPH), AT(SPARSE_TENSOR),
				    AT(TYPE_PROTO), AT(FLOATS), AT(INTS), AT(STRINGS), AT(TENSORS), AT(GRAPHS),
				    AT(SPARSE_TENSORS), AT(TYPE_PROTOS)};
	const char *p = strchr(letters, l);
	return p && l ? types[p - letters] : -1;
}

/* One "name!:types" entry of a spec, starting at *s (advanced past it). */
typedef struct spec_attr {
	const char *name;
	size_t len;
	bool required;
	const char *types;
	size_t ntypes;
} spec_attr;

static bool next_attr(const char **s, spec_attr *a)
{
	const char *p = *s;
	while (*p == ' ')
		p++;
	if (!*p)
		return false;
	const char *colon = strchr(p, ':');
	a->name = p;
	a->required = colon[-1] == '!';
	a->len = (size_t)(colon - p) - a->required;
	a->types = colon + 1;
	a->ntypes = strcspn(a->types, " ");
	*s = a->types + a->ntypes;
	return true;
}

static const Onnx__AttributeProto *find_attr(const Onnx__NodeProto *n, const char *name, size_t len)
{
	for (size_t i = 0; i < n->n_attribute; i++)
		if (n->attribute[i]->name && strlen(n->attribute[i]->name) == len && !memcmp(n->attribute[i]->name, name, len))
			return n->attribute[i];
	return NULL;
}

/* A value's type as the node's attribute holds it: declared, else from its value. */
static int attr_type(const Onnx__AttributeProto *a)
{
	int vtype = 0;
	if (a->has_type && a->type)
		return a->type;
	return value_fields(a, &vtype) ? vtype : 0;
}

static void check_attr_type(ctx *c, const Onnx__AttributeProto *a, const spec_attr *sa)
{
	int type = attr_type(a), vtype = 0;
	if (!type || (a->ref_attr_name && *a->ref_attr_name))
		return;
	if (value_fields(a, &vtype) == 1 && vtype != type)
		return; /* declared one type, holds another: check_attribute says so */
	char want[64] = "";
	size_t used = 0;
	for (size_t i = 0; i < sa->ntypes; i++) {
		if (letter_type(sa->types[i]) == type)
			return;
		used += (size_t)snprintf(want + used, sizeof want - used, "%s%s", i ? " or " : "",
					 type_name(letter_type(sa->types[i])));
	}
	bool int_for_float = type == AT(INT) && sa->ntypes == 1 && letter_type(sa->types[0]) == AT(FLOAT);
	problem(c, a, P_ALL, 0, "attribute '%s' must be %s, not %s%s", str(a->name), want, type_name(type),
		int_for_float ? " (write a float literal: 1.0, not 1)" : "");
}

static const char *closest_op(const char *op)
{
	const char *best = NULL;
	size_t bd = strlen(op) >= 5 ? 3 : 2; /* two edits away, one for short names ("Foo" is not "Cos") */
	for (size_t i = 0; i < sizeof op_attrs / sizeof op_attrs[0]; i++) {
		size_t d = ox_edit_distance(op, strlen(op), op_attrs[i].op, strlen(op_attrs[i].op), true);
		if (d < bd) {
			bd = d;
			best = op_attrs[i].op;
		}
	}
	return best;
}

static void check_arity(ctx *c, const Onnx__NodeProto *n, const char *what, size_t count, int min, int max)
{
	if (count >= (size_t)min && (max < 0 || count <= (size_t)max))
		return;
	if (max < 0)
		problem(c, n, P_OP, 0, "takes at least %d %ss, not %zu", min, what, count);
	else if (min == max)
		problem(c, n, P_OP, 0, "takes %d %s%s, not %zu", min, what, min == 1 ? "" : "s", count);
	else
		problem(c, n, P_OP, 0, "takes %d to %d %ss, not %zu", min, max, what, count);
}

/* An operator of the default domain, against check_ops.h: it exists in the imported
 * opset, takes as many inputs and outputs as some version of it does, and has the
 * attributes it requires and no others, of the right types. The table knows operator
 * names up to OX_NAMES_OPSET but inputs and attributes only up to OX_ATTRS_OPSET; later
 * opsets change them (ReduceMean's axes became an input in opset 18), so beyond it only
 * the types of the attributes it knows are checked. */
static void check_op(ctx *c, const Onnx__NodeProto *n, int64_t version)
{
	const struct op_attrs *op = op_find(n->op_type);
	bool known_version = version <= OX_ATTRS_OPSET;
	if (!op && version <= OX_NAMES_OPSET) {
		const char *near = closest_op(n->op_type);
		problem(c, n, P_OP, 0, "no operator '%s' in the default domain%s%s%s", n->op_type, near ? " (did you mean '" : "",
			near ? near : "", near ? "'?)" : "");
	}
	if (!op)
		return;
	if (op->since > version) {
		problem(c, n, P_OP, 0, "the operator first appears in opset %d, but the default domain is imported at opset %lld",
			op->since, (long long)version);
		return;
	}
	if (!op->attrs)
		return; /* a newer operator: its name is all the table knows */
	if (known_version) {
		check_arity(c, n, "input", n->n_input, op->min_in, op->max_in);
		check_arity(c, n, "output", n->n_output, op->min_out, op->max_out);
	}
	spec_attr sa;
	for (const char *s = op->attrs; next_attr(&s, &sa);) {
		const Onnx__AttributeProto *a = find_attr(n, sa.name, sa.len);
		if (a)
			check_attr_type(c, a, &sa);
		else if (sa.required && known_version)
			problem(c, n, P_OP, 0, "required attribute '%.*s' is missing", (int)sa.len, sa.name);
	}
	for (size_t i = 0; known_version && i < n->n_attribute; i++) {
		const char *name = str(n->attribute[i]->name);
		bool found = false;
		for (const char *s = op->attrs; !found && next_attr(&s, &sa);)
			found = strlen(name) == sa.len && !memcmp(name, sa.name, sa.len);
		if (!found && *name)
			problem(c, n->attribute[i], P_ALL, 0, "unknown attribute '%s'", name);
	}
}

/* ---- nodes and graphs ------------------------------------------------------------------- */

static const char *domain_of(const Onnx__NodeProto *n)
{
	const char *d = str(n->domain);
	return strcmp(d, "ai.onnx") == 0 ? "" : d;
}

/* Whether the model defines the node's operator as a function. */
static bool local_function(const ctx *c, const Onnx__NodeProto *n)
{
	for (size_t i = 0; c->model && i < c->model->n_functions; i++) {
		const Onnx__FunctionProto *f = c->model->functions[i];
		if (!strcmp(str(f->name), n->op_type) && !strcmp(str(f->domain), str(n->domain)))
			return true;
	}
	return false;
}

static void check_node_fields(ctx *c, const Onnx__NodeProto *n)
{
	if (!n->op_type || !*n->op_type)
		problem(c, n, P_ALL, 0, "the node has no op_type");
	if (!n->n_input && !n->n_output)
		problem(c, n, P_OP, 0, "the node has no inputs and no outputs");
	const intptr_t *version = ox_names_get(c->opsets, domain_of(n));
	if (!version)
		problem(c, n, P_OP, 0, "no opset_import for domain '%s'", domain_of(n));
	for (size_t i = 0; i < n->n_attribute; i++)
		for (size_t j = 0; j < i; j++)
			if (n->attribute[i]->name && n->attribute[j]->name &&
			    !strcmp(n->attribute[i]->name, n->attribute[j]->name)) {
				problem(c, n->attribute[i], P_ALL, 0, "attribute '%s' is given twice", n->attribute[i]->name);
				break;
			}
	if (version && !*domain_of(n) && n->op_type && *n->op_type && !local_function(c, n))
		check_op(c, n, *version);
}

/* Where name is defined, searching sc and the scopes around it; *outer tells whether the
 * definition is in an enclosing scope. */
static const intptr_t *lookup(const scope *sc, const char *name, bool *outer)
{
	*outer = false;
	for (; sc; sc = sc->up, *outer = true) {
		const intptr_t *d = ox_names_get(&sc->defs, name);
		if (d)
			return d;
	}
	return NULL;
}

static void describe_def(intptr_t def, bool outer, char *buf, size_t size)
{
	if (outer)
		snprintf(buf, size, "in an enclosing graph");
	else if (def == DEF_INPUT)
		snprintf(buf, size, "by an input");
	else if (def == DEF_INIT)
		snprintf(buf, size, "by an initializer");
	else
		snprintf(buf, size, "by node[%d]", (int)def);
}

/* Every input of a node defined before it: in scope, else a later node's output (not in
 * topological order) or nowhere. */
static void check_inputs(ctx *c, const Onnx__NodeProto *n, const scope *sc, const ox_names *later)
{
	for (size_t i = 0; i < n->n_input; i++) {
		const char *in = str(n->input[i]);
		bool outer;
		if (!*in || lookup(sc, in, &outer))
			continue; /* "" is an omitted optional input */
		const intptr_t *def = ox_names_get(later, in);
		if (def)
			problem(c, n, P_INPUT, i,
				"input '%s' is used before node[%d] defines it: nodes must be in topological order", in,
				(int)*def);
		else
			problem(c, n, P_INPUT, i, "input '%s' is not defined anywhere", in);
	}
}

/* Outputs are single assignments: no name defined before, here or in an enclosing scope. */
static void define_outputs(ctx *c, const Onnx__NodeProto *n, intptr_t index, scope *sc)
{
	for (size_t i = 0; i < n->n_output; i++) {
		const char *out = str(n->output[i]);
		bool outer;
		const intptr_t *def = *out ? lookup(sc, out, &outer) : NULL;
		if (def) {
			char by[48];
			describe_def(*def, outer, by, sizeof by);
			problem(c, n, P_OUTPUT, i, "output '%s' is already defined %s", out, by);
		} else if (*out && !ox_names_put(&sc->defs, out, index)) {
			c->nomem = true;
		}
	}
}

static void check_nodes(ctx *c, Onnx__NodeProto *const *nodes, size_t count, scope *sc)
{
	ox_names later = {0};
	for (size_t i = count; i-- > 0;)
		for (size_t j = 0; j < nodes[i]->n_output; j++)
			if (nodes[i]->output[j] && *nodes[i]->output[j] && !ox_names_put(&later, nodes[i]->output[j], (intptr_t)i))
				c->nomem = true;
	for (size_t i = 0; i < count && !full(c); i++) {
		const Onnx__NodeProto *n = nodes[i];
		size_t old = path_push(c, ".node[%zu]", i);
		c->node = n;
		check_node_fields(c, n);
		check_inputs(c, n, sc, &later);
		for (size_t j = 0; j < n->n_attribute; j++)
			check_attribute(c, n->attribute[j], sc);
		c->node = n;
		define_outputs(c, n, (intptr_t)i, sc);
		c->node = NULL;
		path_pop(c, old);
	}
	ox_names_free(&later);
}

/* The main graph's inputs and outputs need a type, and tensor types an
 * element type and a shape (the checker relaxes this for sub-graphs). */
static void check_value_info(ctx *c, const Onnx__ValueInfoProto *vi, const char *field, size_t i, bool typed)
{
	const char *name = str(vi->name);
	size_t old = path_push(c, "%s[%zu]", field, i);
	const Onnx__TypeProto *t = vi->type;
	if (!*name)
		problem(c, vi, P_ALL, 0, "a value has no name");
	else if (typed && !t)
		problem(c, vi, P_ALL, 0, "'%s' has no type (the main graph's inputs and outputs need one)", name);
	else if (typed && t->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
		 (!t->tensor_type->has_elem_type || !t->tensor_type->elem_type))
		problem(c, vi, P_ALL, 0, "'%s' has no element type", name);
	else if (typed && t->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && !t->tensor_type->shape)
		problem(c, vi, P_ALL, 0, "'%s' has no shape (the main graph's tensors need one, if only [N])", name);
	path_pop(c, old);
}

/* A name defined twice among a graph's inputs or a function's inputs. */
static void define_input(ctx *c, scope *sc, const char *name, const void *at)
{
	if (!*name)
		return;
	if (ox_names_get(&sc->defs, name))
		problem(c, at, P_ALL, 0, "input '%s' is defined twice", name);
	else if (!ox_names_put(&sc->defs, name, DEF_INPUT))
		c->nomem = true;
}

static void check_initializers(ctx *c, const Onnx__GraphProto *g, scope *sc)
{
	ox_names seen = {0};
	for (size_t i = 0; i < g->n_initializer && !full(c); i++) {
		const Onnx__TensorProto *t = g->initializer[i];
		const char *name = str(t->name);
		size_t old = path_push(c, ".initializer[%zu]", i);
		if (!*name)
			problem(c, t, P_ALL, 0, "an initializer has no name");
		else if (ox_names_get(&seen, name))
			problem(c, t, P_ALL, 0, "initializer '%s' is defined twice", name);
		else if (!ox_names_put(&seen, name, 0))
			c->nomem = true;
		check_tensor(c, t, t);
		if (*name && c->ir_version <= 3 && !ox_names_get(&sc->defs, name))
			problem(c, t, P_ALL, 0, "initializer '%s' is not a graph input, as IR version 3 and earlier require", name);
		if (*name && !ox_names_put(&sc->defs, name, DEF_INIT))
			c->nomem = true; /* defined all the same: one problem is enough */
		path_pop(c, old);
	}
	ox_names_free(&seen);
}

/* Every output is defined: by a node, an input or an initializer, or around a sub-graph. */
static void check_outputs(ctx *c, const Onnx__GraphProto *g, const scope *sc, bool main_graph)
{
	for (size_t i = 0; i < g->n_output; i++) {
		const Onnx__ValueInfoProto *vi = g->output[i];
		check_value_info(c, vi, ".output", i, main_graph);
		bool outer;
		if (vi->name && *vi->name && !lookup(sc, vi->name, &outer)) {
			size_t old = path_push(c, ".output[%zu]", i);
			problem(c, vi, P_ALL, 0, "output '%s' is not defined anywhere", vi->name);
			path_pop(c, old);
		}
	}
}

static void check_graph(ctx *c, const Onnx__GraphProto *g, const scope *up, bool main_graph)
{
	scope sc = {{0}, up};
	if (!g->name || !*g->name)
		problem(c, g, P_ALL, 0, "the graph has no name");
	for (size_t i = 0; i < g->n_input; i++) {
		check_value_info(c, g->input[i], ".input", i, main_graph);
		size_t old = path_push(c, ".input[%zu]", i);
		define_input(c, &sc, str(g->input[i]->name), g->input[i]);
		path_pop(c, old);
	}
	check_initializers(c, g, &sc);
	check_nodes(c, g->node, g->n_node, &sc);
	check_outputs(c, g, &sc, main_graph);
	ox_names_free(&sc.defs);
}

/* domain -> version of a list of opset imports ("ai.onnx" is the default domain). */
static void add_opsets(ctx *c, ox_names *t, Onnx__OperatorSetIdProto *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *d = str(v[i]->domain);
		int64_t version = v[i]->version;
		if (!ox_names_put(t, strcmp(d, "ai.onnx") ? d : "", version > INTPTR_MAX ? INTPTR_MAX : (intptr_t)version))
			c->nomem = true;
	}
}

static void check_function(ctx *c, const Onnx__FunctionProto *f, size_t index)
{
	size_t old = path_push(c, "functions[%zu]", index);
	ox_names opsets = {0};
	const ox_names *model_opsets = c->opsets;
	add_opsets(c, &opsets, f->opset_import, f->n_opset_import);
	if (f->n_opset_import)
		c->opsets = &opsets;
	if (!f->name || !*f->name)
		problem(c, f, P_ALL, 0, "the function has no name");
	if (!f->domain)
		problem(c, f, P_ALL, 0, "function '%s' has no domain", str(f->name));
	for (size_t j = 0; j < index; j++) {
		const Onnx__FunctionProto *g = c->model->functions[j];
		if (!strcmp(str(g->name), str(f->name)) && !strcmp(str(g->domain), str(f->domain)) &&
		    !strcmp(str(g->overload), str(f->overload)))
			problem(c, f, P_ALL, 0, "function '%s' of domain '%s' is defined twice", str(f->name), str(f->domain));
	}
	scope sc = {{0}, NULL};
	for (size_t i = 0; i < f->n_input; i++)
		define_input(c, &sc, str(f->input[i]), f);
	c->in_function = true;
	check_nodes(c, f->node, f->n_node, &sc);
	c->in_function = false;
	for (size_t i = 0; i < f->n_output; i++) {
		bool outer;
		if (f->output[i] && *f->output[i] && !lookup(&sc, f->output[i], &outer))
			problem(c, f, P_ALL, 0, "output '%s' is not defined by any node of the function", f->output[i]);
	}
	ox_names_free(&sc.defs);
	ox_names_free(&opsets);
	c->opsets = model_opsets;
	path_pop(c, old);
}

/* The model's header: an IR version, and opset imports from IR version 3 on. */
static void check_header(ctx *c, const Onnx__ModelProto *m, ox_names *opsets)
{
	c->ir_version = m->has_ir_version ? m->ir_version : 0;
	if (c->ir_version <= 0)
		problem(c, NULL, P_ALL, 0, "ir_version is missing");
	add_opsets(c, opsets, m->opset_import, m->n_opset_import);
	if (c->ir_version >= 3 && !m->n_opset_import)
		problem(c, NULL, P_ALL, 0, "opset_import is empty: IR version 3 and later need one for the default domain \"\"");
	else if (c->ir_version > 0 && c->ir_version < 3 && m->n_opset_import)
		problem(c, m->opset_import[0], P_ALL, 0, "opset_import needs IR version 3 or later, not %lld",
			(long long)c->ir_version);
	/* Before IR version 3 the first opset is implied. Without an opset_import (reported
	 * above) the version is unknown: nodes are checked as if it were a later one. */
	if (!m->n_opset_import && !ox_names_put(opsets, "", c->ir_version >= 3 ? INTPTR_MAX : 1))
		c->nomem = true;
}

static OnnxStatus check_model(ctx *c, const Onnx__ModelProto *m, OnnxError **problems, size_t *count, OnnxError *err)
{
	ox_names opsets = {0};
	c->model = m;
	c->opsets = &opsets;
	check_header(c, m, &opsets);
	if (!m->graph) {
		problem(c, NULL, P_ALL, 0, "the model has no graph");
	} else {
		size_t old = path_push(c, "graph");
		check_graph(c, m->graph, NULL, true);
		path_pop(c, old);
	}
	for (size_t i = 0; i < m->n_functions && !full(c); i++)
		check_function(c, m->functions[i], i);
	ox_names_free(&opsets);
	OnnxStatus st = c->nomem ? ONNXTXT_ERR_NOMEM : c->n ? ONNXTXT_ERR_INVALID : ONNXTXT_OK;
	if (st == ONNXTXT_ERR_NOMEM)
		ox_error_set(err, st, "out of memory");
	else if (st != ONNXTXT_OK)
		*err = c->problems[0];
	if (problems && st == ONNXTXT_ERR_INVALID) {
		*problems = c->problems;
		*count = c->n;
	} else {
		free(c->problems);
	}
	return st;
}

OnnxStatus OnnxModel_Check(const Onnx__ModelProto *model, OnnxError **problems, size_t *count, OnnxError *err)
{
	OnnxError local;
	if (!err)
		err = &local;
	memset(err, 0, sizeof *err);
	if (problems)
		*problems = NULL;
	if (count)
		*count = 0;
	if (!model || (problems && !count)) {
		ox_error_set(err, ONNXTXT_ERR_ARG, "invalid argument: %s is NULL", model ? "count" : "model");
		return err->code;
	}
	ctx c = {0};
	return check_model(&c, model, problems, count, err);
}

OnnxStatus OnnxModel_CheckText(const char *text, size_t len, OnnxError **problems, size_t *count, OnnxError *err)
{
	OnnxError local;
	if (!err)
		err = &local;
	if (problems)
		*problems = NULL;
	if (count)
		*count = 0;
	if (problems && !count) {
		ox_error_set(err, ONNXTXT_ERR_ARG, "invalid argument: count is NULL");
		return err->code;
	}
	ox_spans spans = {0};
	Onnx__ModelProto *m;
	OnnxStatus st = ox_parse_model_spans(text, len, &m, &spans, err);
	if (st == ONNXTXT_OK) {
		ctx c = {.text = text, .len = len, .spans = &spans};
		memset(err, 0, sizeof *err);
		st = check_model(&c, m, problems, count, err);
		OnnxProto_Free(m);
	}
	ox_spans_free(&spans);
	return st;
}
