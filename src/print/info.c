/* OnnxModel_Info: a model's summary (versions, interface, operator counts, sub-graphs,
 * functions, parameters, external data, largest tensors) as text or JSON. It counts and
 * never reads a tensor's values, so it stays fast on models of any size. */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "out.h"
#include "print.h"
#include "types.h"

#define TOP_TENSORS 10
#define MAX_LISTED_SUBGRAPHS 1000

typedef struct op_count {
	const char *domain, *op; /* op NULL: a domain's total */
	uint64_t n;
} op_count;

typedef struct counts {
	op_count *v;
	size_t n, cap;
} counts;

typedef struct sub_graph {
	char *path;
	uint64_t nodes;
} sub_graph;

typedef struct tensor_ref {
	const Onnx__TensorProto *t;
	uint64_t elems, bytes;
} tensor_ref;

typedef struct ext_file {
	const char *location;
	uint64_t tensors, bytes;
} ext_file;

typedef struct info {
	counts ops, domains;
	uint64_t nodes_main, nodes_sub, nodes_fn;
	sub_graph *subs;
	size_t nsubs, capsubs;
	uint64_t subs_total;
	uint64_t inits, sparse, params, bytes;
	uint64_t by_type[OX_MAX_ELEM_TYPE + 1][3]; /* tensors, elements, bytes */
	uint64_t by_type_other[3];                 /* element types beyond the table */
	tensor_ref top[TOP_TENSORS];
	size_t ntop;
	ext_file *ext;
	size_t next, capext;
	const char **init_names; /* the main graph's initializers, sorted: inputs with a default */
	size_t ninit_names;
	bool nomem;
} info;

/* ---- counting ---------------------------------------------------------------------------- */

static const char *dom(const char *d)
{
	return d && strcmp(d, "ai.onnx") != 0 ? d : "";
}

static void bump(info *I, counts *c, const char *domain, const char *op)
{
	for (size_t i = c->n; i-- > 0;)
		if (!strcmp(c->v[i].domain, domain) && (!op || !strcmp(c->v[i].op, op))) {
			c->v[i].n++;
			return;
		}
	if (!ox_grow(&c->v, &c->cap, c->n, sizeof *c->v, 32)) {
		I->nomem = true;
		return;
	}
	c->v[c->n++] = (op_count){domain, op, 1};
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static uint64_t elements(const Onnx__TensorProto *t)
{
	uint64_t n = 1;
	for (size_t i = 0; i < t->n_dims; i++)
		n = t->dims[i] < 0 ? 0 : sat_mul(n, (uint64_t)t->dims[i]);
	return n;
}

static const char *ext_entry(const Onnx__TensorProto *t, const char *key)
{
	for (size_t i = 0; i < t->n_external_data; i++)
		if (t->external_data[i]->key && !strcmp(t->external_data[i]->key, key))
			return t->external_data[i]->value;
	return NULL;
}

/* Bytes of data: what raw_data or the external file holds, else what the elements take. */
static uint64_t data_bytes(const Onnx__TensorProto *t, uint64_t elems)
{
	const char *len = t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL ? ext_entry(t, "length") : NULL;
	if (len)
		return strtoull(len, NULL, 10);
	if (t->has_raw_data && t->raw_data.len)
		return t->raw_data.len;
	if (t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__STRING) {
		uint64_t n = 0;
		for (size_t i = 0; i < t->n_string_data; i++)
			n += t->string_data[i].len;
		return n;
	}
	return (sat_mul(elems, (uint64_t)ox_elem_bits(t->data_type)) + 7) / 8;
}

static void add_external(info *I, const Onnx__TensorProto *t, uint64_t bytes)
{
	const char *loc = ext_entry(t, "location");
	if (t->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL || !loc)
		return;
	for (size_t i = 0; i < I->next; i++)
		if (!strcmp(I->ext[i].location, loc)) {
			I->ext[i].tensors++, I->ext[i].bytes += bytes;
			return;
		}
	if (!ox_grow(&I->ext, &I->capext, I->next, sizeof *I->ext, 4)) {
		I->nomem = true;
		return;
	}
	I->ext[I->next++] = (ext_file){loc, 1, bytes};
}

/* Keeps the TOP_TENSORS largest, largest first (ties: the earlier one first). */
static void add_top(info *I, const Onnx__TensorProto *t, uint64_t elems, uint64_t bytes)
{
	size_t at = I->ntop;
	while (at > 0 && I->top[at - 1].bytes < bytes)
		at--;
	if (at == TOP_TENSORS)
		return;
	size_t n = I->ntop < TOP_TENSORS ? I->ntop : TOP_TENSORS - 1;
	memmove(&I->top[at + 1], &I->top[at], (n - at) * sizeof I->top[0]);
	I->top[at] = (tensor_ref){t, elems, bytes};
	if (I->ntop < TOP_TENSORS)
		I->ntop++;
}

static void add_initializer(info *I, const Onnx__TensorProto *t)
{
	uint64_t elems = elements(t), bytes = data_bytes(t, elems);
	int dt = t->data_type;
	uint64_t *row = dt > 0 && dt <= OX_MAX_ELEM_TYPE ? I->by_type[dt] : I->by_type_other;
	row[0]++, row[1] += elems, row[2] += bytes;
	I->inits++, I->params += elems, I->bytes += bytes;
	add_external(I, t, bytes);
	add_top(I, t, elems, bytes);
}

static void count_graph(info *I, const Onnx__GraphProto *g, char *path, size_t plen, uint64_t *nodes);

/* Lists a sub-graph by its path (the first MAX_LISTED_SUBGRAPHS of them); its slot, or
 * SIZE_MAX when it is not listed. */
static size_t list_subgraph(info *I, const char *path)
{
	I->subs_total++;
	if (I->nsubs == MAX_LISTED_SUBGRAPHS)
		return SIZE_MAX;
	if (!ox_grow(&I->subs, &I->capsubs, I->nsubs, sizeof *I->subs, 8)) {
		I->nomem = true;
		return SIZE_MAX;
	}
	I->subs[I->nsubs] = (sub_graph){strdup(path), 0};
	if (!I->subs[I->nsubs].path)
		I->nomem = true;
	return I->nsubs++;
}

/* The graphs a node's attributes hold, as sub-graphs at PATH.node[i].ATTR (ATTR[k] for a
 * list of graphs). */
static void count_attr_graphs(info *I, const Onnx__NodeProto *n, char *path, size_t plen, size_t index)
{
	for (size_t a = 0; a < n->n_attribute; a++) {
		const Onnx__AttributeProto *at = n->attribute[a];
		const char *name = at->name ? at->name : "";
		for (size_t k = 0; k < (at->g ? 1 : at->n_graphs); k++) {
			int m = at->g ? snprintf(path + plen, 1024 - plen, ".node[%zu].%s", index, name)
				      : snprintf(path + plen, 1024 - plen, ".node[%zu].%s[%zu]", index, name, k);
			size_t sub = m < 0 || plen + (size_t)m >= 1024 ? 1023 : plen + (size_t)m;
			size_t slot = list_subgraph(I, path);
			uint64_t nodes = 0;
			count_graph(I, at->g ? at->g : at->graphs[k], path, sub, &nodes);
			if (slot != SIZE_MAX)
				I->subs[slot].nodes = nodes;
			I->nodes_sub += nodes;
			path[plen] = '\0';
		}
	}
}

static void count_graph(info *I, const Onnx__GraphProto *g, char *path, size_t plen, uint64_t *nodes)
{
	*nodes += g->n_node;
	for (size_t i = 0; i < g->n_node; i++) {
		const Onnx__NodeProto *n = g->node[i];
		bump(I, &I->ops, dom(n->domain), n->op_type ? n->op_type : "");
		bump(I, &I->domains, dom(n->domain), NULL);
		count_attr_graphs(I, n, path, plen, i);
	}
	for (size_t i = 0; i < g->n_initializer; i++)
		add_initializer(I, g->initializer[i]);
	I->sparse += g->n_sparse_initializer;
}

static int by_count(const void *a, const void *b)
{
	const op_count *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	int d = strcmp(x->domain, y->domain);
	return d ? d : strcmp(x->op ? x->op : "", y->op ? y->op : "");
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether the main graph's input named name has an initializer (a default value). */
static bool has_initializer(const info *I, const char *name)
{
	return name && I->ninit_names && bsearch(&name, I->init_names, I->ninit_names, sizeof *I->init_names, by_name);
}

static void sort_initializer_names(info *I, const Onnx__GraphProto *g)
{
	I->init_names = malloc((g->n_initializer + 1) * sizeof *I->init_names);
	if (!I->init_names) {
		I->nomem = true;
		return;
	}
	for (size_t i = 0; i < g->n_initializer; i++)
		if (g->initializer[i]->name)
			I->init_names[I->ninit_names++] = g->initializer[i]->name;
	qsort(I->init_names, I->ninit_names, sizeof *I->init_names, by_name);
}

static void collect(info *I, const Onnx__ModelProto *m)
{
	char path[1024] = "graph";
	if (m->graph)
		sort_initializer_names(I, m->graph);
	if (m->graph)
		count_graph(I, m->graph, path, strlen(path), &I->nodes_main);
	for (size_t f = 0; f < m->n_functions; f++) {
		const Onnx__FunctionProto *fn = m->functions[f];
		I->nodes_fn += fn->n_node;
		for (size_t i = 0; i < fn->n_node; i++) {
			bump(I, &I->ops, dom(fn->node[i]->domain), fn->node[i]->op_type ? fn->node[i]->op_type : "");
			bump(I, &I->domains, dom(fn->node[i]->domain), NULL);
		}
	}
	if (I->ops.n > 1) /* qsort may not be given NULL, even for no elements */
		qsort(I->ops.v, I->ops.n, sizeof *I->ops.v, by_count);
	if (I->domains.n > 1)
		qsort(I->domains.v, I->domains.n, sizeof *I->domains.v, by_count);
}

static void release(info *I)
{
	for (size_t i = 0; i < I->nsubs; i++)
		free(I->subs[i].path);
	free(I->subs), free(I->ops.v), free(I->domains.v), free(I->ext), free(I->init_names);
}

/* ---- rendering --------------------------------------------------------------------------- */

/* A name or string of the model in the text report: a byte that is not UTF-8 as U+FFFD
 * (to-text writes it as \xHH). */
static void put_text(ox_out *o, const char *s)
{
	for (size_t i = 0, n = s ? strlen(s) : 0; i < n; i++) {
		if ((unsigned char)s[i] >= 0x80)
			i += ox_put_text_char(o, s + i, n - i) - 1;
		else
			ox_putc(o, s[i]);
	}
}

/* A JSON string: control bytes as \u00XX, a byte that is not UTF-8 as U+FFFD (JSON text
 * is Unicode: it has no escape for a byte). */
static void put_json_string(ox_out *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	ox_putc(o, '"');
	for (size_t i = 0, n = s ? strlen(s) : 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x80) {
			i += ox_put_text_char(o, s + i, n - i) - 1;
		} else if (c == '"' || c == '\\') {
			ox_putc(o, '\\'), ox_putc(o, (char)c);
		} else if (c < 0x20 || c == 0x7f) {
			char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
			ox_put(o, u, 6);
		} else {
			ox_putc(o, (char)c);
		}
	}
	ox_putc(o, '"');
}

/* A value's type as the text syntax writes it ("float[N, 3]"), without the printer's
 * final newline; "?" when it has none. */
static void put_type(ox_out *o, const Onnx__TypeProto *t)
{
	size_t start = o->len;
	if (!t || !ox_print_message(o, &t->base))
		ox_putc(o, '?');
	while (o->len > start && o->buf[o->len - 1] == '\n')
		o->len--;
}

static void put_tensor_type(ox_out *o, const Onnx__TensorProto *t)
{
	const char *name = ox_elem_name(t->data_type);
	ox_puts(o, name ? name : "?");
	ox_put_dims(o, t->dims, t->n_dims);
}

/* A type as a JSON string: printed into a scratch buffer, then escaped. */
static void put_json_type(ox_out *o, const Onnx__TypeProto *t, const Onnx__TensorProto *tensor)
{
	ox_out tmp;
	ox_out_init(&tmp, NULL, 0, o->nomem);
	if (tensor)
		put_tensor_type(&tmp, tensor);
	else
		put_type(&tmp, t);
	ox_putc(&tmp, '\0');
	if (tmp.failed)
		o->failed = true;
	else
		put_json_string(o, tmp.buf);
	ox_out_free(&tmp);
}

static const char *op_name(const op_count *c, char *buf, size_t size)
{
	if (!*c->domain)
		return c->op;
	snprintf(buf, size, "%s.%s", c->domain, c->op);
	return buf;
}

static void text_line(ox_out *o, const char *key, uint64_t v)
{
	ox_puts(o, key);
	ox_put_uint(o, v);
	ox_putc(o, '\n');
}

/* The values of an interface: for inputs, those without an initializer (a default
 * value: IR version 3 lists every weight as an input), and how many have one. */
static void text_values(ox_out *o, const info *I, const char *what, size_t n, Onnx__ValueInfoProto *const *v)
{
	size_t defaults = 0;
	for (size_t i = 0; I && i < n; i++)
		defaults += has_initializer(I, v[i]->name);
	ox_puts(o, what);
	ox_puts(o, " (");
	ox_put_uint(o, n - defaults);
	if (defaults) {
		ox_puts(o, ", and ");
		ox_put_uint(o, defaults);
		ox_puts(o, " with an initializer");
	}
	ox_puts(o, "):\n");
	for (size_t i = 0; i < n; i++) {
		if (I && has_initializer(I, v[i]->name))
			continue;
		ox_puts(o, "  ");
		put_text(o, v[i]->name);
		ox_puts(o, ": ");
		put_type(o, v[i]->type);
		ox_putc(o, '\n');
	}
}

/* "N tensors, N parameters, N bytes" */
static void text_sizes(ox_out *o, uint64_t tensors, uint64_t params, uint64_t bytes)
{
	ox_put_uint(o, tensors);
	ox_puts(o, tensors == 1 ? " tensor, " : " tensors, ");
	ox_put_uint(o, params);
	ox_puts(o, params == 1 ? " parameter, " : " parameters, ");
	ox_put_uint(o, bytes);
	ox_puts(o, bytes == 1 ? " byte\n" : " bytes\n");
}

static void text_header(ox_out *o, const info *I, const Onnx__ModelProto *m)
{
	text_line(o, "ir_version: ", (uint64_t)m->ir_version);
	ox_puts(o, "opset_import:");
	for (size_t i = 0; i < m->n_opset_import; i++) {
		ox_puts(o, i ? ", " : " ");
		ox_put_string(o, m->opset_import[i]->domain ? m->opset_import[i]->domain : "",
			      m->opset_import[i]->domain ? strlen(m->opset_import[i]->domain) : 0);
		ox_puts(o, ": ");
		ox_put_int(o, m->opset_import[i]->version);
	}
	ox_putc(o, '\n');
	const char *keys[] = {"producer_name: ", "producer_version: ", "domain: "};
	const char *vals[] = {m->producer_name, m->producer_version, m->domain};
	for (int k = 0; k < 3; k++)
		if (vals[k] && *vals[k]) {
			ox_puts(o, keys[k]);
			put_text(o, vals[k]);
			ox_putc(o, '\n');
		}
	if (m->has_model_version)
		text_line(o, "model_version: ", (uint64_t)m->model_version);
	if (m->graph) {
		ox_puts(o, "graph: ");
		put_text(o, m->graph->name);
		ox_putc(o, '\n');
		text_values(o, I, "inputs", m->graph->n_input, m->graph->input);
		text_values(o, NULL, "outputs", m->graph->n_output, m->graph->output);
	}
}

static void text_nodes(ox_out *o, const info *I, const Onnx__ModelProto *m)
{
	char buf[512];
	const char *labels[] = {"nodes: ", " (main graph ", ", sub-graphs ", ", functions "};
	const uint64_t n[] = {I->nodes_main + I->nodes_sub + I->nodes_fn, I->nodes_main, I->nodes_sub, I->nodes_fn};
	for (int k = 0; k < 4; k++) {
		ox_puts(o, labels[k]);
		ox_put_uint(o, n[k]);
	}
	ox_puts(o, ")\noperators:\n");
	for (size_t i = 0; i < I->ops.n; i++) {
		ox_puts(o, "  ");
		put_text(o, op_name(&I->ops.v[i], buf, sizeof buf));
		text_line(o, ": ", I->ops.v[i].n);
	}
	ox_puts(o, "domains:\n");
	for (size_t i = 0; i < I->domains.n; i++) {
		ox_puts(o, "  ");
		put_text(o, *I->domains.v[i].domain ? I->domains.v[i].domain : "ai.onnx");
		text_line(o, ": ", I->domains.v[i].n);
	}
	text_line(o, "functions: ", m->n_functions);
	for (size_t f = 0; f < m->n_functions; f++) {
		ox_puts(o, "  ");
		put_text(o, m->functions[f]->domain);
		ox_putc(o, '.');
		put_text(o, m->functions[f]->name);
		if (m->functions[f]->overload && *m->functions[f]->overload) {
			ox_putc(o, ':');
			put_text(o, m->functions[f]->overload);
		}
		text_line(o, ": nodes ", m->functions[f]->n_node);
	}
	text_line(o, "sub-graphs: ", I->subs_total);
	for (size_t i = 0; i < I->nsubs; i++) {
		ox_puts(o, "  ");
		put_text(o, I->subs[i].path ? I->subs[i].path : "?");
		text_line(o, ": nodes ", I->subs[i].nodes);
	}
}

static void text_tensors(ox_out *o, const info *I)
{
	ox_puts(o, "initializers: ");
	text_sizes(o, I->inits, I->params, I->bytes);
	for (int dt = 1; dt <= OX_MAX_ELEM_TYPE + 1; dt++) {
		const uint64_t *row = dt <= OX_MAX_ELEM_TYPE ? I->by_type[dt] : I->by_type_other;
		if (!row[0])
			continue;
		ox_puts(o, "  ");
		ox_puts(o, dt <= OX_MAX_ELEM_TYPE ? ox_elem_name(dt) : "other");
		ox_puts(o, ": ");
		text_sizes(o, row[0], row[1], row[2]);
	}
	if (I->sparse)
		text_line(o, "sparse initializers: ", I->sparse);
	ox_puts(o, I->next ? "external data:\n" : "external data: none\n");
	for (size_t i = 0; i < I->next; i++) {
		ox_puts(o, "  ");
		put_text(o, I->ext[i].location);
		ox_puts(o, ": ");
		ox_put_uint(o, I->ext[i].tensors);
		ox_puts(o, I->ext[i].tensors == 1 ? " tensor, " : " tensors, ");
		ox_put_uint(o, I->ext[i].bytes);
		ox_puts(o, " bytes\n");
	}
	ox_puts(o, I->ntop ? "largest tensors:\n" : "largest tensors: none\n");
	for (size_t i = 0; i < I->ntop; i++) {
		ox_puts(o, "  ");
		put_text(o, I->top[i].t->name);
		ox_puts(o, ": ");
		put_tensor_type(o, I->top[i].t);
		ox_puts(o, ", ");
		ox_put_uint(o, I->top[i].bytes);
		ox_puts(o, I->top[i].bytes == 1 ? " byte\n" : " bytes\n");
	}
}

/* ---- JSON -------------------------------------------------------------------------------- */

static void json_key(ox_out *o, const char *key)
{
	ox_puts(o, key); /* keys are written already quoted, with their colon */
}

/* A count between the text before it (its key, and what closes the member before) and the
 * text after it (what separates or closes it) */
static void json_uint(ox_out *o, const char *before, uint64_t v, const char *after)
{
	json_key(o, before);
	ox_put_uint(o, v);
	ox_puts(o, after);
}

/* Opens an object of a list with its first member, a string, and the comma before the next
 * member (every object has more); `more`: not the list's first object; `own_line`: each
 * object on a line of its own. */
static void json_item(ox_out *o, bool more, bool own_line, const char *key, const char *s)
{
	if (more)
		ox_putc(o, ',');
	ox_puts(o, own_line ? "\n    {" : more ? " {" : "{");
	json_key(o, key);
	put_json_string(o, s);
	ox_puts(o, ", ");
}

static void json_values(ox_out *o, const info *I, const char *key, size_t n, Onnx__ValueInfoProto *const *v)
{
	json_key(o, key);
	ox_putc(o, '[');
	size_t defaults = 0;
	for (size_t i = 0; i < n; i++) {
		if (I && has_initializer(I, v[i]->name)) {
			defaults++;
			continue;
		}
		json_item(o, i > defaults, false, "\"name\": ", v[i]->name);
		ox_puts(o, "\"type\": ");
		put_json_type(o, v[i]->type, NULL);
		ox_putc(o, '}');
	}
	ox_puts(o, "],\n");
	if (I)
		json_uint(o, "  \"inputs_with_initializer\": ", defaults, ",\n");
}

static void json_header(ox_out *o, const info *I, const Onnx__ModelProto *m)
{
	json_uint(o, "{\n  \"ir_version\": ", (uint64_t)m->ir_version, ",\n  \"opset_import\": [");
	for (size_t i = 0; i < m->n_opset_import; i++) {
		json_item(o, i, false, "\"domain\": ", dom(m->opset_import[i]->domain));
		ox_puts(o, "\"version\": ");
		ox_put_int(o, m->opset_import[i]->version);
		ox_putc(o, '}');
	}
	ox_puts(o, "],\n  \"producer_name\": ");
	put_json_string(o, m->producer_name);
	ox_puts(o, ", \"producer_version\": ");
	put_json_string(o, m->producer_version);
	ox_puts(o, ", \"domain\": ");
	put_json_string(o, m->domain);
	ox_puts(o, ", \"model_version\": ");
	ox_put_int(o, m->model_version);
	ox_puts(o, ",\n  \"graph\": ");
	put_json_string(o, m->graph ? m->graph->name : NULL);
	ox_puts(o, ",\n  ");
	json_values(o, I, "\"inputs\": ", m->graph ? m->graph->n_input : 0, m->graph ? m->graph->input : NULL);
	ox_puts(o, "  ");
	json_values(o, NULL, "\"outputs\": ", m->graph ? m->graph->n_output : 0, m->graph ? m->graph->output : NULL);
}

static void json_counts(ox_out *o, const counts *c, bool ops)
{
	for (size_t i = 0; i < c->n; i++) {
		json_item(o, i, true, "\"domain\": ", c->v[i].domain);
		if (ops) {
			ox_puts(o, "\"op_type\": ");
			put_json_string(o, c->v[i].op);
			ox_puts(o, ", ");
		}
		json_uint(o, "\"count\": ", c->v[i].n, "}");
	}
	ox_puts(o, c->n ? "\n  ],\n" : "],\n");
}

static void json_nodes(ox_out *o, const info *I, const Onnx__ModelProto *m)
{
	json_uint(o, "  \"nodes\": {\"total\": ", I->nodes_main + I->nodes_sub + I->nodes_fn, ", ");
	json_uint(o, "\"main_graph\": ", I->nodes_main, ", ");
	json_uint(o, "\"sub_graphs\": ", I->nodes_sub, ", ");
	json_uint(o, "\"functions\": ", I->nodes_fn, "},\n  \"operators\": [");
	json_counts(o, &I->ops, true);
	ox_puts(o, "  \"domains\": [");
	json_counts(o, &I->domains, false);
	ox_puts(o, "  \"functions\": [");
	for (size_t f = 0; f < m->n_functions; f++) {
		json_item(o, f, false, "\"domain\": ", m->functions[f]->domain);
		ox_puts(o, "\"name\": ");
		put_json_string(o, m->functions[f]->name);
		ox_puts(o, ", \"overload\": ");
		put_json_string(o, m->functions[f]->overload);
		json_uint(o, ", \"nodes\": ", m->functions[f]->n_node, "}");
	}
	json_uint(o, "],\n  \"sub_graph_count\": ", I->subs_total, ", \"sub_graphs\": [");
	for (size_t i = 0; i < I->nsubs; i++) {
		json_item(o, i, false, "\"path\": ", I->subs[i].path);
		json_uint(o, "\"nodes\": ", I->subs[i].nodes, "}");
	}
	ox_puts(o, "],\n");
}

static void json_sizes(ox_out *o, uint64_t tensors, uint64_t params, uint64_t bytes, const char *after)
{
	json_uint(o, "\"tensors\": ", tensors, ", ");
	json_uint(o, "\"parameters\": ", params, ", ");
	json_uint(o, "\"bytes\": ", bytes, after);
}

static void json_by_type(ox_out *o, const info *I)
{
	bool first = true;
	for (int dt = 1; dt <= OX_MAX_ELEM_TYPE + 1; dt++) {
		const uint64_t *row = dt <= OX_MAX_ELEM_TYPE ? I->by_type[dt] : I->by_type_other;
		if (!row[0])
			continue;
		json_item(o, !first, false, "\"type\": ", dt <= OX_MAX_ELEM_TYPE ? ox_elem_name(dt) : "other");
		first = false;
		json_sizes(o, row[0], row[1], row[2], "}");
	}
}

static void json_tensors(ox_out *o, const info *I)
{
	ox_puts(o, "  \"initializers\": {");
	json_sizes(o, I->inits, I->params, I->bytes, ", \"by_type\": [");
	json_by_type(o, I);
	json_uint(o, "]},\n  \"sparse_initializers\": ", I->sparse, ",\n  \"external_data\": [");
	for (size_t i = 0; i < I->next; i++) {
		json_item(o, i, false, "\"location\": ", I->ext[i].location);
		json_uint(o, "\"tensors\": ", I->ext[i].tensors, ", ");
		json_uint(o, "\"bytes\": ", I->ext[i].bytes, "}");
	}
	ox_puts(o, "],\n  \"largest_tensors\": [");
	for (size_t i = 0; i < I->ntop; i++) {
		json_item(o, i, true, "\"name\": ", I->top[i].t->name);
		ox_puts(o, "\"type\": ");
		put_json_type(o, NULL, I->top[i].t);
		json_uint(o, ", \"parameters\": ", I->top[i].elems, ", ");
		json_uint(o, "\"bytes\": ", I->top[i].bytes, "}");
	}
	ox_puts(o, I->ntop ? "\n  ]\n}\n" : "]\n}\n");
}

/* ---- entry point ------------------------------------------------------------------------- */

OnnxStatus OnnxModel_Info(const Onnx__ModelProto *model, unsigned flags, char **text, size_t *len, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!model || !text)
		return ox_error_null(err);
	*text = NULL;
	info I = {0};
	collect(&I, model);
	ox_out o;
	bool nomem = I.nomem;
	ox_out_init(&o, NULL, 0, &nomem);
	if (flags & ONNXTXT_INFO_JSON) {
		json_header(&o, &I, model);
		json_nodes(&o, &I, model);
		json_tensors(&o, &I);
	} else {
		text_header(&o, &I, model);
		text_nodes(&o, &I, model);
		text_tensors(&o, &I);
	}
	release(&I);
	return ox_out_take(&o, text, len, err);
}
