/* Structural check of a model, after the ONNX checker (onnx/checker.cc): names in single
 * static assignment form and defined before use, opset imports, required fields, tensor
 * and attribute values, and attribute names and types of the default domain's operators. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/check.h"
#include "diag.h"
#include "infer/infer.h"
#include "text/lexer.h"
#include "names.h"
#include "onnx.h"
#include "schema/schema.h"
#include "spans.h"
#include "text/tensor.h"
#include "types.h"

#define AT(x) ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__##x

/* ---- the checker's state ------------------------------------------------------------------ */

typedef ox_check ctx;
typedef ox_scope scope;
#define problem(c, ...) ox_check_report(c, ONNXTXT_ERR_INVALID, __VA_ARGS__)
#define warning(c, ...) ox_check_report(c, ONNXTXT_WARNING, __VA_ARGS__)
#define path_push ox_check_path_push
#define path_pop ox_check_path_pop

/* Out of memory: nothing more can be recorded. Problems past the limit are still counted,
 * so that the caller can say how many it was not given. */
static bool full(const ctx *c)
{
	return c->nomem;
}

size_t ox_check_path_push(ctx *c, const char *fmt, ...)
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

void ox_check_path_pop(ctx *c, size_t len)
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
static void node_token(const char *text, size_t s, size_t e, enum ox_part part, size_t index, ox_tok *at)
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
		else if (stage == 0 && part == OX_P_OUTPUT && k == index && is_name_token(t.code))
			*at = t;
		else if (stage == 1 && is_name_token(t.code) && (part == OX_P_OP || part == OX_P_ALL) && !at->n)
			*at = t;
		else if (stage == 1 && (t.code == TK_DOT || t.code == TK_ID) && at->n && (part == OX_P_OP || part == OX_P_ALL))
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
		} else if (stage == 2 && inputs && d == 1 && part == OX_P_INPUT && k == index && is_name_token(t.code)) {
			*at = t;
			return;
		}
		if (part == OX_P_OUTPUT && at->n)
			return;
		if (stage == 2 && (part == OX_P_OP || part == OX_P_ALL))
			return;
	}
}

/* Fills the problem's position from the span of msg; a node's part is found in its text. */
static void locate(const ctx *c, OnnxError *e, const void *msg, enum ox_part part, size_t index)
{
	const ox_span *sp = msg ? ox_span_find(c->spans, msg) : NULL;
	if (!sp)
		return;
	ox_tok at = {c->text + sp->start, sp->end - sp->start, 0, 0};
	if (msg == c->node) {
		node_token(c->text, sp->start, sp->end, part, index, &at);
		if (!at.n && part != OX_P_OP)
			node_token(c->text, sp->start, sp->end, OX_P_OP, 0, &at);
		if (!at.n)
			return;
	}
	e->offset = (size_t)(at.p - c->text);
	e->length = at.n;
	ox_locate(c->text, c->len, e->offset, &e->line, &e->column);
}

void ox_check_report(ctx *c, OnnxStatus code, const void *msg, enum ox_part part, size_t index, const char *fmt, ...)
{
	if (full(c))
		return;
	c->total++;
	if (c->n >= c->max)
		return;
	if (!ox_grow(&c->problems, &c->cap, c->n, sizeof *c->problems, 8)) {
		c->nomem = true;
		return;
	}
	OnnxError *e = &c->problems[c->n++];
	memset(e, 0, sizeof *e);
	e->code = code;
	c->errors += code != ONNXTXT_WARNING;
	char what[160] = "";
	const Onnx__NodeProto *n = c->node;
	if (n)
		snprintf(what, sizeof what, " (%s%s%s)", n->domain && *n->domain ? n->domain : "",
			 n->domain && *n->domain ? "." : "", n->op_type ? n->op_type : "");
	snprintf(e->path, sizeof e->path, "%s", c->path);
	int used = snprintf(e->message, sizeof e->message, "%s%s%s", c->path, what, c->plen ? ": " : "");
	va_list ap;
	va_start(ap, fmt);
	if (used >= 0 && (size_t)used < sizeof e->message)
		vsnprintf(e->message + used, sizeof e->message - (size_t)used, fmt, ap);
	va_end(ap);
	snprintf(e->path, sizeof e->path, "%s", c->path);
	locate(c, e, msg, part, index);
}

void ox_check_suggest(OnnxError *e, const char *word)
{
	snprintf(e->hint, sizeof e->hint, "did you mean '%s'?", word);
	if (!e->line)
		return;
	e->fix_set = 1;
	e->fix_offset = e->offset;
	e->fix_length = e->length;
	snprintf(e->fix, sizeof e->fix, "%s", word);
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

/* The number of values the tensor's field holds: typed fields count values (complex ones
 * two per element, 4- and 2-bit ones packed a byte per int32_data entry), raw_data bytes.
 * *want gets what a shape of count elements needs there. */
static size_t field_values(const Onnx__TensorProto *t, const char *field, uint64_t count, uint64_t *want)
{
	int bits = ox_elem_bits(t->data_type);
	bool complex = t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX64 ||
		       t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__COMPLEX128;
	*want = complex ? 2 * count : count;
	if (!strcmp(field, "raw_data")) {
		*want = (count * (uint64_t)bits + 7) / 8;
		return t->raw_data.len;
	}
	if (bits > 0 && bits < 8)
		*want = (count * (uint64_t)bits + 7) / 8;
	struct { const char *name; size_t n; } all[] = {
		{"float_data", t->n_float_data}, {"int32_data", t->n_int32_data}, {"string_data", t->n_string_data},
		{"int64_data", t->n_int64_data}, {"double_data", t->n_double_data}, {"uint64_data", t->n_uint64_data}};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		if (!strcmp(all[i].name, field))
			return all[i].n;
	return 0;
}

/* The element count of a tensor's dims into *count; false, with the problem reported, for
 * a negative dimension or a product past 64 bits (which would otherwise wrap, to 0 for
 * [2^32, 2^32, 4], and read as "no elements"). */
static bool element_count(ctx *c, const Onnx__TensorProto *t, const void *at, uint64_t *count)
{
	*count = 1;
	for (size_t i = 0; i < t->n_dims; i++)
		if (t->dims[i] < 0) {
			problem(c, at, OX_P_ALL, 0, "tensor '%s' has a negative dimension: dims[%zu] is %lld", str(t->name),
				i, (long long)t->dims[i]);
			return false;
		}
	for (size_t i = 0; i < t->n_dims; i++)
		if (__builtin_mul_overflow(*count, (uint64_t)t->dims[i], count)) {
			for (size_t j = i; j < t->n_dims; j++)
				if (t->dims[j] == 0)
					return *count = 0, true; /* a later 0 makes it empty after all */
			problem(c, at, OX_P_ALL, 0, "tensor '%s' has too many elements: the product of its dims does not fit in 64 "
				"bits", str(t->name));
			return false;
		}
	return true;
}

/* External data: a location, relative and inside the model's directory (as run refuses
 * others), and no data fields besides. */
static void check_external(ctx *c, const Onnx__TensorProto *t, const void *at, const char *field)
{
	const char *name = str(t->name), *location = NULL;
	for (size_t i = 0; i < t->n_external_data; i++)
		if (t->external_data[i]->key && !strcmp(t->external_data[i]->key, "location"))
			location = str(t->external_data[i]->value);
	if (field)
		problem(c, at, OX_P_ALL, 0, "tensor '%s' is stored externally but also has %s", name, field);
	else if (!location)
		problem(c, at, OX_P_ALL, 0, "tensor '%s' is stored externally but has no location", name);
	else if (!ox_external_location_ok(location))
		problem(c, at, OX_P_ALL, 0,
			"tensor '%s': external data location '%s' must be a relative path inside the model's directory"
			" (no absolute path, no '..')", name, location);
}

/* The checker's rules for a tensor's data: a known element type; one data field, the one
 * the type uses (or none for an empty tensor or external data), with as many values as
 * the shape needs (the text parser's rule); strings not raw. */
static void check_tensor(ctx *c, const Onnx__TensorProto *t, const void *at)
{
	const char *name = str(t->name);
	if (!t->has_data_type || t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__UNDEFINED) {
		problem(c, at, OX_P_ALL, 0, "tensor '%s' has no element type (data_type)", name);
		return;
	}
	if (!ox_elem_name(t->data_type)) {
		problem(c, at, OX_P_ALL, 0, "tensor '%s' has an unknown element type (data_type %d)", name, t->data_type);
		return;
	}
	ox_check_ir_elem(c, t->data_type, at, name);
	int fields;
	const char *field = data_field(t, &fields);
	uint64_t count, want;
	if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
		check_external(c, t, at, field);
	else if (!element_count(c, t, at, &count))
		return;
	else if (count == 0 && fields)
		problem(c, at, OX_P_ALL, 0, "tensor '%s' has no elements but has %s", name, field);
	else if (count && fields != 1)
		problem(c, at, OX_P_ALL, 0, "tensor '%s' needs its values in exactly one data field, not %d", name, fields);
	else if (field && !strcmp(field, "raw_data") && t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__STRING)
		problem(c, at, OX_P_ALL, 0, "tensor '%s': strings cannot be stored in raw_data", name);
	else if (field && strcmp(field, "raw_data") && strcmp(field, ox_field_name(ox_elem_field(t->data_type))))
		problem(c, at, OX_P_ALL, 0, "tensor '%s': %s values belong in %s, not %s", name,
			ox_elem_name(t->data_type), ox_field_name(ox_elem_field(t->data_type)), field);
	else if (field && field_values(t, field, count, &want) != want)
		problem(c, at, OX_P_ALL, 0, "tensor '%s' has %zu %s in %s but its shape needs %llu", name,
			field_values(t, field, count, &want), strcmp(field, "raw_data") ? "value(s)" : "byte(s)", field,
			(unsigned long long)want);
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

int ox_check_attr_type(const Onnx__AttributeProto *a, bool *conflict)
{
	int vtype = 0, n = value_fields(a, &vtype);
	*conflict = n > 1 || (n == 1 && a->has_type && a->type && (int)a->type != vtype);
	return a->has_type && a->type ? (int)a->type : n ? vtype : 0;
}

/* The attribute's own rules: a name, at most one value, of its declared type; references
 * only inside functions; then its tensors and graphs. */
static void check_attribute(ctx *c, const Onnx__AttributeProto *a, const scope *sc)
{
	const char *name = str(a->name);
	int vtype = 0, nvalues = value_fields(a, &vtype);
	if (!*name)
		problem(c, a, OX_P_ALL, 0, "an attribute has no name");
	if (a->ref_attr_name && *a->ref_attr_name && !c->in_function)
		problem(c, a, OX_P_ALL, 0, "attribute '%s' refers to '@%s', but references are only allowed in a function",
			name, a->ref_attr_name);
	if (!(a->has_type && a->type) && c->ir_version >= 2)
		problem(c, a, OX_P_ALL, 0, "attribute '%s' has no type", name);
	if (nvalues > 1)
		problem(c, a, OX_P_ALL, 0, "attribute '%s' has %d values; an attribute has one", name, nvalues);
	else if (nvalues == 1 && a->has_type && (int)a->type != vtype)
		problem(c, a, OX_P_ALL, 0, "attribute '%s' is declared %s but holds a %s value", name, type_name(a->type),
			type_name(vtype));
	if (a->t)
		check_tensor(c, a->t, a);
	for (size_t i = 0; i < a->n_tensors; i++)
		check_tensor(c, a->tensors[i], a);
	if (a->tp)
		ox_check_ir_type(c, a->tp, a, name);
	for (size_t i = 0; i < a->n_type_protos; i++)
		ox_check_ir_type(c, a->type_protos[i], a, name);
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

/* ---- nodes and graphs ------------------------------------------------------------------- */

static const char *domain_of(const Onnx__NodeProto *n)
{
	const char *d = str(n->domain);
	return strcmp(d, "ai.onnx") == 0 ? "" : d;
}

/* The key of a model-local function in c->functions: "domain\nname\noverload" ("" for
 * ai.onnx). */
static char *function_key(const char *domain, const char *name, const char *overload)
{
	domain = strcmp(domain, "ai.onnx") ? domain : "";
	size_t nd = strlen(domain), nn = strlen(name), no = strlen(overload);
	char *k = malloc(nd + nn + no + 3);
	if (k) {
		memcpy(k, domain, nd);
		k[nd] = '\n';
		memcpy(k + nd + 1, name, nn);
		k[nd + 1 + nn] = '\n';
		memcpy(k + nd + nn + 2, overload, no + 1);
	}
	return k;
}

/* The index of the model-local function the node calls, or -1. */
static intptr_t local_function(ctx *c, const Onnx__NodeProto *n)
{
	if (!c->functions.n || !n->op_type)
		return -1;
	char *k = function_key(str(n->domain), n->op_type, str(n->overload));
	if (!k) {
		c->nomem = true;
		return -1;
	}
	const intptr_t *i = ox_names_get(&c->functions, k);
	free(k);
	return i ? *i : -1;
}

/* No attribute name twice: pairwise for a few, with a table for many. */
static void check_attribute_names(ctx *c, const Onnx__NodeProto *n)
{
	ox_names seen = {0};
	for (size_t i = 0; i < n->n_attribute; i++) {
		const char *name = n->attribute[i]->name;
		bool twice = false;
		if (!name)
			continue;
		if (n->n_attribute > 16) {
			twice = ox_names_get(&seen, name) != NULL;
			if (!twice && !ox_names_put(&seen, name, 0))
				c->nomem = true;
		}
		for (size_t j = 0; n->n_attribute <= 16 && j < i && !twice; j++)
			twice = n->attribute[j]->name && !strcmp(name, n->attribute[j]->name);
		if (twice)
			problem(c, n->attribute[i], OX_P_ALL, 0, "attribute '%s' is given twice", name);
	}
	ox_names_free(&seen);
}

static void check_node_fields(ctx *c, const Onnx__NodeProto *n, const scope *sc)
{
	if (!n->op_type || !*n->op_type)
		problem(c, n, OX_P_ALL, 0, "the node has no op_type");
	if (!n->n_input && !n->n_output)
		problem(c, n, OX_P_OP, 0, "the node has no inputs and no outputs");
	const intptr_t *version = ox_names_get(c->opsets, domain_of(n));
	if (!version)
		problem(c, n, OX_P_OP, 0, "no opset_import for domain '%s'", domain_of(n));
	check_attribute_names(c, n);
	ox_check_ir_node(c, n);
	if (version && c->in_function)
		ox_check_function_opsets(c, n, domain_of(n));
	if (version && n->op_type && *n->op_type && ox_schema_domain_find(domain_of(n)) && local_function(c, n) < 0)
		ox_check_op(c, n, domain_of(n), *version, sc);
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
	else if (def == OX_DEF_INPUT)
		snprintf(buf, size, "by an input");
	else if (def == OX_DEF_INIT)
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
			problem(c, n, OX_P_INPUT, i,
				"input '%s' is used before node[%d] defines it: nodes must be in topological order", in,
				(int)*def);
		else
			problem(c, n, OX_P_INPUT, i, "input '%s' is not defined anywhere", in);
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
			problem(c, n, OX_P_OUTPUT, i, "output '%s' is already defined %s", out, by);
		}
		/* defined here all the same (one problem is enough: not its graph's outputs too) */
		if (*out && (!def || outer) && !ox_names_put(&sc->defs, out, index)) {
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
		check_node_fields(c, n, sc);
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
 * element type and a shape (the checker relaxes this for sub-graphs); every type, what
 * the IR version has. */
static void check_value_info(ctx *c, const Onnx__ValueInfoProto *vi, const char *field, size_t i, bool typed)
{
	const char *name = str(vi->name);
	size_t old = path_push(c, "%s[%zu]", field, i);
	const Onnx__TypeProto *t = vi->type;
	if (!*name)
		problem(c, vi, OX_P_ALL, 0, "a value has no name");
	else if (typed && !t)
		problem(c, vi, OX_P_ALL, 0, "'%s' has no type (the main graph's inputs and outputs need one)", name);
	else if (typed && t->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
		 (!t->tensor_type->has_elem_type || !t->tensor_type->elem_type))
		problem(c, vi, OX_P_ALL, 0, "'%s' has no element type", name);
	else if (typed && t->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && !t->tensor_type->shape)
		problem(c, vi, OX_P_ALL, 0, "'%s' has no shape (the main graph's tensors need one, if only [N])", name);
	if (t)
		ox_check_ir_type(c, t, vi, name);
	path_pop(c, old);
}

/* Records a value's declared type, for the operators' type constraints. */
static void declare(ctx *c, scope *sc, const char *name, intptr_t type)
{
	if (name && *name && type && !ox_names_put(&sc->types, name, type))
		c->nomem = true;
}

static void declare_types(ctx *c, const Onnx__GraphProto *g, scope *sc)
{
	for (size_t i = 0; i < g->n_input; i++)
		declare(c, sc, g->input[i]->name, ox_check_type_code(g->input[i]->type));
	for (size_t i = 0; i < g->n_output; i++)
		declare(c, sc, g->output[i]->name, ox_check_type_code(g->output[i]->type));
	for (size_t i = 0; i < g->n_value_info; i++)
		declare(c, sc, g->value_info[i]->name, ox_check_type_code(g->value_info[i]->type));
	for (size_t i = 0; i < g->n_initializer; i++)
		if (ox_elem_name(g->initializer[i]->data_type))
			declare(c, sc, g->initializer[i]->name, OX_KIND_TENSOR << 8 | g->initializer[i]->data_type);
}

/* A name defined twice among a graph's inputs or a function's inputs. */
static void define_input(ctx *c, scope *sc, const char *name, const void *at)
{
	if (!*name)
		return;
	if (ox_names_get(&sc->defs, name))
		problem(c, at, OX_P_ALL, 0, "input '%s' is defined twice", name);
	else if (!ox_names_put(&sc->defs, name, OX_DEF_INPUT))
		c->nomem = true;
}

/* An initializer's name: given, once, a graph input up to IR version 3; then defined. */
static void define_initializer(ctx *c, scope *sc, ox_names *seen, const char *name, const void *at)
{
	if (!*name)
		problem(c, at, OX_P_ALL, 0, "an initializer has no name");
	else if (ox_names_get(seen, name))
		problem(c, at, OX_P_ALL, 0, "initializer '%s' is defined twice", name);
	else if (!ox_names_put(seen, name, 0))
		c->nomem = true;
	if (*name && c->ir_version <= 3 && !ox_names_get(&sc->defs, name))
		problem(c, at, OX_P_ALL, 0, "initializer '%s' is not a graph input, as IR version 3 and earlier require", name);
	if (*name && !ox_names_put(&sc->defs, name, OX_DEF_INIT))
		c->nomem = true; /* defined all the same: one problem is enough */
}

/* Initializers, dense and sparse (whose values tensor carries the name). */
static void check_initializers(ctx *c, const Onnx__GraphProto *g, scope *sc)
{
	ox_names seen = {0};
	for (size_t i = 0; i < g->n_initializer && !full(c); i++) {
		const Onnx__TensorProto *t = g->initializer[i];
		size_t old = path_push(c, ".initializer[%zu]", i);
		define_initializer(c, sc, &seen, str(t->name), t);
		check_tensor(c, t, t);
		path_pop(c, old);
	}
	for (size_t i = 0; i < g->n_sparse_initializer && !full(c); i++) {
		const Onnx__SparseTensorProto *sp = g->sparse_initializer[i];
		size_t old = path_push(c, ".sparse_initializer[%zu]", i);
		if (!sp->values)
			problem(c, sp, OX_P_ALL, 0, "a sparse initializer has no values");
		else
			define_initializer(c, sc, &seen, str(sp->values->name), sp);
		if (sp->values && ox_elem_name(sp->values->data_type))
			declare(c, sc, sp->values->name, OX_KIND_TENSOR << 8 | sp->values->data_type);
		path_pop(c, old);
	}
	ox_names_free(&seen);
}

/* Every output is defined: by a node, an input or an initializer of its own graph (a
 * sub-graph's output cannot be a name of the graph around it). */
static void check_outputs(ctx *c, const Onnx__GraphProto *g, const scope *sc, bool main_graph)
{
	for (size_t i = 0; i < g->n_output; i++) {
		const Onnx__ValueInfoProto *vi = g->output[i];
		check_value_info(c, vi, ".output", i, main_graph);
		bool outer;
		if (!vi->name || !*vi->name || (lookup(sc, vi->name, &outer) && !outer))
			continue;
		size_t old = path_push(c, ".output[%zu]", i);
		if (lookup(sc, vi->name, &outer))
			problem(c, vi, OX_P_ALL, 0, "output '%s' is only defined in an enclosing graph: a sub-graph's outputs must "
				"be defined in it (pass it through an Identity node)", vi->name);
		else
			problem(c, vi, OX_P_ALL, 0, "output '%s' is not defined anywhere", vi->name);
		path_pop(c, old);
	}
}

static void check_graph(ctx *c, const Onnx__GraphProto *g, const scope *up, bool main_graph)
{
	scope sc = {{0}, {0}, up};
	if (!g->name || !*g->name)
		problem(c, g, OX_P_ALL, 0, "the graph has no name");
	declare_types(c, g, &sc);
	for (size_t i = 0; i < g->n_input; i++) {
		check_value_info(c, g->input[i], ".input", i, main_graph);
		size_t old = path_push(c, ".input[%zu]", i);
		define_input(c, &sc, str(g->input[i]->name), g->input[i]);
		path_pop(c, old);
	}
	for (size_t i = 0; i < g->n_value_info; i++)
		check_value_info(c, g->value_info[i], ".value_info", i, false);
	check_initializers(c, g, &sc);
	check_nodes(c, g->node, g->n_node, &sc);
	check_outputs(c, g, &sc, main_graph);
	ox_names_free(&sc.defs);
	ox_names_free(&sc.types);
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

static void check_function_body(ctx *c, const Onnx__FunctionProto *f)
{
	scope sc = {{0}, {0}, NULL};
	for (size_t i = 0; i < f->n_value_info; i++) {
		check_value_info(c, f->value_info[i], ".value_info", i, false);
		declare(c, &sc, f->value_info[i]->name, ox_check_type_code(f->value_info[i]->type));
	}
	for (size_t i = 0; i < f->n_input; i++)
		define_input(c, &sc, str(f->input[i]), f);
	c->in_function = true;
	check_nodes(c, f->node, f->n_node, &sc);
	c->in_function = false;
	for (size_t i = 0; i < f->n_output; i++) {
		bool outer;
		if (f->output[i] && *f->output[i] && !lookup(&sc, f->output[i], &outer))
			problem(c, f, OX_P_ALL, 0, "output '%s' is not defined by any node of the function", f->output[i]);
	}
	ox_names_free(&sc.defs);
	ox_names_free(&sc.types);
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
		problem(c, f, OX_P_ALL, 0, "the function has no name");
	if (!f->domain)
		problem(c, f, OX_P_ALL, 0, "function '%s' has no domain", str(f->name));
	const intptr_t *first = c->function_keys && c->function_keys[index] ? ox_names_get(&c->functions, c->function_keys[index]) : NULL;
	if (first && *first != (intptr_t)index)
		problem(c, f, OX_P_ALL, 0, "function '%s' of domain '%s' is defined twice", str(f->name), str(f->domain));
	ox_check_ir_function(c, f);
	check_function_body(c, f);
	ox_names_free(&opsets);
	c->opsets = model_opsets;
	path_pop(c, old);
}

/* ---- model-local functions: a table by name, and no recursion -------------------------- */

/* c->functions: "domain\nname\noverload" of every function -> the first index with it. */
static void index_functions(ctx *c, const Onnx__ModelProto *m)
{
	c->function_keys = calloc(m->n_functions ? m->n_functions : 1, sizeof *c->function_keys);
	if (!c->function_keys) {
		c->nomem = true;
		return;
	}
	for (size_t i = 0; i < m->n_functions; i++) {
		const Onnx__FunctionProto *f = m->functions[i];
		c->function_keys[i] = function_key(str(f->domain), str(f->name), str(f->overload));
		if (!c->function_keys[i] || !ox_names_put(&c->functions, c->function_keys[i], (intptr_t)i))
			c->nomem = true;
	}
}

static void free_functions(ctx *c, size_t n)
{
	for (size_t i = 0; c->function_keys && i < n; i++)
		free(c->function_keys[i]);
	free(c->function_keys);
	ox_names_free(&c->functions);
}

/* The calls of model-local functions in nodes (and their sub-graphs), as edges from. */
typedef struct calls {
	size_t *from, *to, n, cap;
} calls;

static void add_calls(ctx *c, calls *e, size_t from, Onnx__NodeProto *const *nodes, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		intptr_t to = local_function(c, nodes[i]);
		if (to >= 0 && e->n == e->cap) {
			size_t cap = e->cap ? 2 * e->cap : 64;
			size_t *f = realloc(e->from, cap * sizeof *f), *t = f ? realloc(e->to, cap * sizeof *t) : NULL;
			e->from = f ? f : e->from;
			e->to = t ? t : e->to;
			if (!f || !t) {
				c->nomem = true;
				return;
			}
			e->cap = cap;
		}
		if (to >= 0) {
			e->from[e->n] = from;
			e->to[e->n++] = (size_t)to;
		}
		for (size_t j = 0; j < nodes[i]->n_attribute; j++) {
			const Onnx__AttributeProto *a = nodes[i]->attribute[j];
			if (a->g)
				add_calls(c, e, from, a->g->node, a->g->n_node);
			for (size_t k = 0; k < a->n_graphs; k++)
				add_calls(c, e, from, a->graphs[k]->node, a->graphs[k]->n_node);
		}
	}
}

static void report_cycle(ctx *c, const Onnx__ModelProto *m, size_t start, size_t last)
{
	const Onnx__FunctionProto *f = m->functions[start];
	size_t old = path_push(c, "functions[%zu]", start);
	if (start == last)
		problem(c, f, OX_P_ALL, 0, "function '%s' calls itself: model-local functions cannot be recursive",
			str(f->name));
	else
		problem(c, f, OX_P_ALL, 0, "function '%s' calls itself through '%s': model-local functions cannot be recursive",
			str(f->name), str(m->functions[last]->name));
	path_pop(c, old);
}

/* Depth-first search over the call edges (sorted by caller) with an explicit stack, so that
 * a chain of 40k functions needs no deep recursion; a call back into a function on the
 * stack is a cycle. */
static void find_cycles(ctx *c, const Onnx__ModelProto *m, const size_t *first, const size_t *to)
{
	size_t nf = m->n_functions, *stack = malloc(nf * sizeof *stack), *next = malloc(nf * sizeof *next);
	unsigned char *state = calloc(nf, 1); /* 0 new, 1 on the stack, 2 done */
	if (!stack || !next || !state)
		c->nomem = true;
	for (size_t root = 0; stack && next && state && root < nf && !full(c); root++) {
		if (state[root])
			continue;
		size_t depth = 0;
		stack[depth++] = root;
		state[root] = 1;
		next[root] = first[root];
		while (depth) {
			size_t u = stack[depth - 1];
			if (next[u] == first[u + 1]) {
				state[u] = 2;
				depth--;
				continue;
			}
			size_t v = to[next[u]++];
			if (state[v] == 1)
				report_cycle(c, m, v, u);
			else if (state[v] == 0) {
				state[v] = 1;
				next[v] = first[v];
				stack[depth++] = v;
			}
		}
	}
	free(stack);
	free(next);
	free(state);
}

static void check_recursion(ctx *c, const Onnx__ModelProto *m)
{
	calls e = {0};
	for (size_t i = 0; i < m->n_functions; i++)
		add_calls(c, &e, i, m->functions[i]->node, m->functions[i]->n_node);
	size_t *first = calloc(m->n_functions + 1, sizeof *first);
	if (first && !c->nomem && e.n) {
		for (size_t i = 0; i < e.n; i++) /* edges come in caller order already */
			first[e.from[i] + 1]++;
		for (size_t i = 0; i < m->n_functions; i++)
			first[i + 1] += first[i];
		find_cycles(c, m, first, e.to);
	} else if (!first) {
		c->nomem = true;
	}
	free(first);
	free(e.from);
	free(e.to);
}

/* The model's header: an IR version, and opset imports from IR version 3 on. */
static void check_header(ctx *c, const Onnx__ModelProto *m, ox_names *opsets)
{
	c->ir_version = m->has_ir_version ? m->ir_version : 0;
	if (c->ir_version < 0) /* a varint of ten 0xff-ish bytes: there, but no version */
		problem(c, NULL, OX_P_ALL, 0, "ir_version is %lld; an IR version is a positive number",
			(long long)c->ir_version);
	else if (c->ir_version == 0)
		problem(c, NULL, OX_P_ALL, 0, "ir_version is missing");
	if (c->ir_version < 0)
		c->ir_version = 0;
	add_opsets(c, opsets, m->opset_import, m->n_opset_import);
	if (c->ir_version >= 3 && !m->n_opset_import)
		problem(c, NULL, OX_P_ALL, 0, "opset_import is empty: IR version 3 and later need one for the default domain \"\"");
	else if (c->ir_version > 0 && c->ir_version < 3 && m->n_opset_import)
		problem(c, m->opset_import[0], OX_P_ALL, 0, "opset_import needs IR version 3 or later, not %lld",
			(long long)c->ir_version);
	/* Before IR version 3 the first opset is implied. Without an opset_import (reported
	 * above) the version is unknown: nodes are checked as if it were a later one. */
	if (!m->n_opset_import && !ox_names_put(opsets, "", c->ir_version >= 3 ? INTPTR_MAX : 1))
		c->nomem = true;
	ox_check_opset_imports(c, m);
	ox_check_ir_opsets(c, m);
}

/* Hands the problems over: ONNXTXT_ERR_INVALID when any is an error; warnings alone
 * leave the model valid (ONNXTXT_OK) but are handed over all the same. */
static OnnxStatus finish(ctx *c, OnnxError **problems, size_t *count, OnnxError *err)
{
	OnnxStatus st = c->nomem ? ONNXTXT_ERR_NOMEM : c->errors ? ONNXTXT_ERR_INVALID : ONNXTXT_OK;
	if (st == ONNXTXT_ERR_NOMEM) {
		ox_error_set(err, st, "out of memory");
	} else if (st != ONNXTXT_OK) {
		for (size_t i = 0; i < c->n; i++)
			if (c->problems[i].code != ONNXTXT_WARNING) {
				*err = c->problems[i];
				break;
			}
	}
	if (problems && st != ONNXTXT_ERR_NOMEM && c->n) {
		*problems = c->problems;
		*count = c->n;
	} else {
		free(c->problems);
	}
	if (c->want_total)
		*c->want_total = st == ONNXTXT_ERR_INVALID ? c->total : 0;
	return st;
}

/* Type and shape inference, after a structural check without errors (inference assumes
 * names defined before use and nodes that meet their schemas). */
static void infer(ctx *c, const Onnx__ModelProto *m)
{
	if (full(c) || c->errors || c->no_infer || !m->graph)
		return;
	ox_infer_opts o = {.strict = c->strict};
	ox_infer *e = ox_infer_model(c, m, &o);
	if (c->keep)
		*c->keep = e;
	else
		ox_infer_free(e);
}

static OnnxStatus check_model(ctx *c, const Onnx__ModelProto *m, OnnxError **problems, size_t *count, OnnxError *err)
{
	ox_names opsets = {0};
	c->model = m;
	c->opsets = c->model_opsets = &opsets;
	check_header(c, m, &opsets);
	index_functions(c, m);
	if (!m->graph) {
		problem(c, NULL, OX_P_ALL, 0, "the model has no graph");
	} else if (!c->nomem) {
		size_t old = path_push(c, "graph");
		check_graph(c, m->graph, NULL, true);
		path_pop(c, old);
	}
	for (size_t i = 0; i < m->n_functions && !full(c); i++)
		check_function(c, m->functions[i], i);
	if (!full(c))
		check_recursion(c, m);
	free_functions(c, m->n_functions);
	infer(c, m);
	ox_names_free(&opsets);
	return finish(c, problems, count, err);
}


/* Clears the outputs and checks the arguments common to every entry point. */
static bool check_args(OnnxError *err, const void *what, const char *what_name, OnnxError **problems, size_t *count,
		       size_t *total)
{
	memset(err, 0, sizeof *err);
	if (problems)
		*problems = NULL;
	if (count)
		*count = 0;
	if (total)
		*total = 0;
	if (!what || (problems && !count)) {
		ox_error_set(err, ONNXTXT_ERR_ARG, "invalid argument: %s is NULL", what ? "count" : what_name);
		return false;
	}
	return true;
}

/* The checker's state for opts (NULL: the defaults). */
static ctx options(const OnnxCheckOptions *opts, size_t *total)
{
	OnnxCheckOptions o = opts ? *opts : (OnnxCheckOptions){0};
	return (ctx){.max = o.max_problems ? o.max_problems : SIZE_MAX, .want_total = total, .no_infer = o.no_infer,
		     .strict = o.strict};
}

OnnxStatus OnnxModel_CheckWith(const Onnx__ModelProto *model, size_t max_problems, OnnxError **problems,
			       size_t *count, size_t *total, OnnxError *err)
{
	return OnnxModel_CheckOpts(model, &(OnnxCheckOptions){.max_problems = max_problems}, problems, count, total, err);
}

OnnxStatus OnnxModel_Check(const Onnx__ModelProto *model, OnnxError **problems, size_t *count, OnnxError *err)
{
	return OnnxModel_CheckWith(model, ONNXTXT_MAX_PROBLEMS, problems, count, NULL, err);
}

/* Checks (and infers) the model parsed from text (spans: where each element is in it);
 * with keep, the model is inferred into on success. */
static OnnxStatus check_parsed(const char *text, size_t len, const ox_spans *spans, Onnx__ModelProto *m,
			       const OnnxCheckOptions *opts, bool keep, OnnxError **problems, size_t *count,
			       size_t *total, OnnxError *err)
{
	ctx c = options(opts, total);
	ox_infer *e = NULL;
	c.text = text;
	c.len = len;
	c.spans = spans;
	if (keep) {
		c.keep = &e;
		c.no_infer = false;
	}
	memset(err, 0, sizeof *err);
	OnnxStatus st = check_model(&c, m, problems, count, err);
	if (keep && st == ONNXTXT_OK && e && !ox_infer_annotate(e, m)) {
		st = ONNXTXT_ERR_NOMEM;
		ox_error_set(err, st, "out of memory");
	}
	ox_infer_free(e);
	return st;
}

/* The entry points given a model rather than text: checks it and, with keep, infers into it
 * (model is written only then). */
static OnnxStatus check_given(Onnx__ModelProto *model, const OnnxCheckOptions *opts, bool keep, OnnxError **problems,
			      size_t *count, size_t *total, OnnxError *err)
{
	OnnxError local;
	if (!err)
		err = &local;
	if (!check_args(err, model, "model", problems, count, total))
		return err->code;
	return check_parsed(NULL, 0, NULL, model, opts, keep, problems, count, total, err);
}

OnnxStatus ox_check_infer(const Onnx__ModelProto *model, struct ox_infer **e, OnnxError **problems, size_t *count,
			  OnnxError *err)
{
	ctx c = options(NULL, NULL);
	*e = NULL;
	c.keep = e;
	if (!check_args(err, model, "model", problems, count, NULL))
		return err->code;
	return check_model(&c, model, problems, count, err);
}

OnnxStatus OnnxModel_CheckOpts(const Onnx__ModelProto *model, const OnnxCheckOptions *opts, OnnxError **problems,
			       size_t *count, size_t *total, OnnxError *err)
{
	return check_given((Onnx__ModelProto *)model, opts, false, problems, count, total, err);
}

OnnxStatus OnnxModel_CheckTextOpts(const char *text, size_t len, const OnnxCheckOptions *opts, OnnxError **problems,
				   size_t *count, size_t *total, OnnxError *err)
{
	OnnxError local;
	if (!err)
		err = &local;
	if (!check_args(err, text || !len ? "" : NULL, "text", problems, count, total))
		return err->code;
	ox_spans spans = {0};
	Onnx__ModelProto *m;
	OnnxStatus st = ox_parse_model_spans(text, len, &m, &spans, err);
	if (st == ONNXTXT_OK) {
		st = check_parsed(text, len, &spans, m, opts, false, problems, count, total, err);
		OnnxProto_Free(m);
	}
	ox_spans_free(&spans);
	return st;
}

OnnxStatus OnnxModel_CheckTextWith(const char *text, size_t len, size_t max_problems, OnnxError **problems,
				   size_t *count, size_t *total, OnnxError *err)
{
	return OnnxModel_CheckTextOpts(text, len, &(OnnxCheckOptions){.max_problems = max_problems}, problems, count,
				       total, err);
}

OnnxStatus OnnxModel_CheckText(const char *text, size_t len, OnnxError **problems, size_t *count, OnnxError *err)
{
	return OnnxModel_CheckTextWith(text, len, ONNXTXT_MAX_PROBLEMS, problems, count, NULL, err);
}

OnnxStatus OnnxModel_Infer(Onnx__ModelProto *model, const OnnxCheckOptions *opts, OnnxError **problems,
			   size_t *count, size_t *total, OnnxError *err)
{
	return check_given(model, opts, true, problems, count, total, err);
}

OnnxStatus OnnxModel_InferText(const char *text, size_t len, const OnnxCheckOptions *opts, Onnx__ModelProto **model,
			       OnnxError **problems, size_t *count, size_t *total, OnnxError *err)
{
	OnnxError local;
	if (!err)
		err = &local;
	if (model)
		*model = NULL;
	if (!check_args(err, (text || !len) && model ? "" : NULL, text || !len ? "model" : "text", problems, count, total))
		return err->code;
	ox_spans spans = {0};
	Onnx__ModelProto *m = NULL;
	OnnxStatus st = ox_parse_model_spans(text, len, &m, &spans, err);
	if (st == ONNXTXT_OK)
		st = check_parsed(text, len, &spans, m, opts, true, problems, count, total, err);
	ox_spans_free(&spans);
	if (st == ONNXTXT_OK)
		*model = m;
	else if (m)
		OnnxProto_Free(m);
	return st;
}

/* The main graph's node or output that a path "graph.node[N]" or "graph.output[N]" (with
 * nothing after it) names, or NULL; *node: whether it is a node. */
static const void *element_at(const Onnx__ModelProto *m, const char *path, bool *node)
{
	unsigned long long i;
	int used = 0;
	*node = false;
	if (!m->graph)
		return NULL;
	if (sscanf(path, "graph.node[%llu]%n", &i, &used) == 1 && !path[used] && i < m->graph->n_node)
		return *node = true, m->graph->node[i];
	used = 0;
	if (sscanf(path, "graph.output[%llu]%n", &i, &used) == 1 && !path[used] && i < m->graph->n_output)
		return m->graph->output[i];
	return NULL;
}

OnnxStatus OnnxModel_LocateText(const char *text, size_t len, OnnxError *err)
{
	if (!err || (!text && len))
		return ONNXTXT_ERR_ARG;
	OnnxError parse_err;
	ox_spans spans = {0};
	Onnx__ModelProto *m;
	OnnxStatus st = ox_parse_model_spans(text, len, &m, &spans, &parse_err);
	if (st == ONNXTXT_OK) {
		bool node;
		const void *at = element_at(m, err->path, &node);
		ctx c = {.text = text, .len = len, .spans = &spans, .node = node ? at : NULL};
		OnnxError where = {0};
		if (at)
			locate(&c, &where, at, OX_P_OP, 0);
		st = where.line ? ONNXTXT_OK : ONNXTXT_ERR_VALUE;
		if (st == ONNXTXT_OK) {
			err->line = where.line;
			err->column = where.column;
			err->offset = where.offset;
			err->length = where.length;
		}
		OnnxProto_Free(m);
	} else {
		st = ONNXTXT_ERR_VALUE;
	}
	ox_spans_free(&spans);
	return st;
}
