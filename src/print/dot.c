/* A model's graph in the Graphviz DOT language: a box per node with its op type, name and
 * attributes, ellipses for the graph's inputs and outputs, edges labelled with the types
 * the model declares, and the graphs of attributes (If, Loop, Scan) as clusters. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "file.h"
#include "names.h"
#include "out.h"
#include "print.h"
#include "types.h"

#define ATTR_LINES 8  /* attributes shown per node, then "..." */
#define ATTR_WIDTH 48 /* characters of an attribute's text */

typedef struct dot {
	ox_out *o;
	/* Edges wait here for the end: Graphviz puts a node in every cluster whose body
	 * mentions it, so edges may only be written outside them all. */
	ox_out edges;
	long next;    /* DOT node ids: n1, n2, ... */
	long cluster; /* cluster_1, ... */
	bool nomem;
} dot;

/* What a graph knows of its values; lookups continue in the enclosing graph. */
typedef struct dscope {
	ox_names producer; /* name -> DOT id of the node or input that defines it */
	ox_names type;     /* name -> const Onnx__TypeProto * of its value info */
	ox_names init;     /* name -> const Onnx__TensorProto *, initializers */
	const struct dscope *up;
} dscope;

static const intptr_t *find(const dscope *s, size_t which, const char *name)
{
	for (; s; s = s->up) {
		const ox_names *t = which == 0 ? &s->producer : which == 1 ? &s->type : &s->init;
		const intptr_t *v = ox_names_get(t, name);
		if (v)
			return v;
	}
	return NULL;
}

/* Records name -> v; nothing for an empty name or a missing v (an untyped value). */
static void put_name(dot *d, ox_names *t, const char *name, intptr_t v)
{
	if (name && *name && v && !ox_names_put(t, name, v))
		d->nomem = true;
}

/* ---- escaping ------------------------------------------------------------------------ */

/* Text inside an HTML-like label: XML escapes; control bytes dropped; a byte that is not
 * UTF-8 as U+FFFD. */
static void put_html(ox_out *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x80)
			i += ox_put_text_char(o, s + i, n - i) - 1;
		else if (c == '&')
			ox_puts(o, "&amp;");
		else if (c == '<')
			ox_puts(o, "&lt;");
		else if (c == '>')
			ox_puts(o, "&gt;");
		else if (c == '"')
			ox_puts(o, "&quot;");
		else if (c >= 0x20 && c != 0x7f)
			ox_putc(o, (char)c);
	}
}

/* s inside a DOT quoted string: quotes and backslashes escaped, control bytes left out,
 * a byte that is not UTF-8 as U+FFFD. */
static void put_escaped(ox_out *o, const char *s)
{
	for (size_t i = 0, n = strlen(s); i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x80) {
			i += ox_put_text_char(o, s + i, n - i) - 1;
			continue;
		}
		if (c == '"' || c == '\\')
			ox_putc(o, '\\');
		if (c >= 0x20)
			ox_putc(o, (char)c);
	}
}

static void put_quoted(ox_out *o, const char *s)
{
	ox_putc(o, '"');
	put_escaped(o, s);
	ox_putc(o, '"');
}

/* ---- short descriptions ------------------------------------------------------------------- */

/* A message as the printer writes it, on one line, cut to width characters; or NULL. */
static char *brief(dot *d, const void *msg, size_t width)
{
	ox_out s;
	ox_out_init(&s, NULL, ONNXTXT_PRINT_NO_ANNOTATIONS, &d->nomem);
	s.limit = 4 * width; /* long lists stop printing there */
	ox_print_message(&s, msg);
	size_t n = 0, chars = 0;
	char *r = malloc(width * 4 + 8);
	if (!r) {
		d->nomem = true;
		ox_out_free(&s);
		return NULL;
	}
	bool blank = false, cut = s.failed;
	for (size_t i = 0; i < s.len; i++) {
		char c = s.buf[i] == '\n' ? ' ' : s.buf[i];
		if (c == ' ' && (blank || n == 0))
			continue; /* a broken line's newline and indentation: one space */
		bool starts = ((unsigned char)c & 0xc0) != 0x80; /* a UTF-8 character */
		if (starts && chars == width) {
			cut = true;
			break;
		}
		chars += starts;
		blank = c == ' ';
		r[n++] = c;
	}
	while (n && r[n - 1] == ' ')
		n--;
	if (cut) {
		memcpy(r + n, "...", 3);
		n += 3;
	}
	r[n] = '\0';
	ox_out_free(&s);
	return r;
}

/* "float[4, 8]": a tensor's element type and dimensions. */
static void put_tensor_type(ox_out *o, const Onnx__TensorProto *t)
{
	const char *e = t->has_data_type ? ox_elem_name(t->data_type) : NULL;
	ox_puts(o, e ? e : "tensor");
	if (t->n_dims)
		ox_put_dims(o, t->dims, t->n_dims);
}

/* ---- nodes --------------------------------------------------------------------------------- */

static long new_id(dot *d)
{
	return ++d->next;
}

static void put_indent(dot *d, int depth)
{
	for (int i = 0; i <= depth; i++)
		ox_puts(d->o, "  ");
}

/* An ellipse for a graph input or output: its name and type. */
static void value_node(dot *d, int depth, long id, const char *name, const Onnx__TypeProto *type,
		       const char *color)
{
	ox_out *o = d->o;
	put_indent(d, depth);
	ox_putc(o, 'n');
	ox_put_int(o, id);
	ox_puts(o, " [shape=ellipse, style=filled, fillcolor=\"");
	ox_puts(o, color);
	ox_puts(o, "\", label=<<b>");
	put_html(o, name, strlen(name));
	ox_puts(o, "</b>");
	char *t = type ? brief(d, type, ATTR_WIDTH) : NULL;
	if (t && *t) {
		ox_puts(o, "<br/>");
		put_html(o, t, strlen(t));
	}
	free(t);
	ox_puts(o, ">];\n");
}

/* Starts a line of a node's small print (which an empty <font> would break). */
static void small_line(ox_out *o, bool *open)
{
	if (!*open)
		ox_puts(o, "<font point-size=\"9\">");
	*open = true;
	ox_puts(o, "<br/>");
}

/* An attribute as a label line: "alpha = 0.5"; tensors by their type, graphs by name. */
static void attr_line(dot *d, const Onnx__AttributeProto *a, bool *open)
{
	ox_out *o = d->o;
	small_line(o, open);
	if (a->t || a->g || a->n_graphs) {
		put_html(o, a->name ? a->name : "", a->name ? strlen(a->name) : 0);
		ox_puts(o, " = ");
		if (a->t)
			put_tensor_type(o, a->t);
		else
			ox_puts(o, a->g ? "graph" : "graphs");
		return;
	}
	char *s = brief(d, a, ATTR_WIDTH);
	if (s)
		put_html(o, s, strlen(s));
	free(s);
}

/* The node's box: op type in bold, its name, attributes, and the initializers it reads
 * (drawn in the box rather than as nodes of their own). */
static void node_box(dot *d, int depth, long id, const Onnx__NodeProto *n, const dscope *sc)
{
	ox_out *o = d->o;
	put_indent(d, depth);
	ox_putc(o, 'n');
	ox_put_int(o, id);
	ox_puts(o, " [label=<<b>");
	if (n->domain && *n->domain && strcmp(n->domain, "ai.onnx")) {
		put_html(o, n->domain, strlen(n->domain));
		ox_putc(o, '.');
	}
	const char *op = n->op_type && *n->op_type ? n->op_type : "(no op type)";
	put_html(o, op, strlen(op));
	ox_puts(o, "</b>");
	if (n->name && *n->name) {
		ox_puts(o, "<br/><i>");
		put_html(o, n->name, strlen(n->name));
		ox_puts(o, "</i>");
	}
	bool open = false;
	for (size_t i = 0; i < n->n_attribute && i <= ATTR_LINES; i++) {
		if (i == ATTR_LINES) {
			small_line(o, &open);
			ox_puts(o, "...");
		} else {
			attr_line(d, n->attribute[i], &open);
		}
	}
	for (size_t i = 0; i < n->n_input; i++) {
		const intptr_t *t = n->input[i] && *n->input[i] && !find(sc, 0, n->input[i]) ? find(sc, 2, n->input[i]) : NULL;
		if (!t)
			continue;
		small_line(o, &open);
		put_html(o, n->input[i], strlen(n->input[i]));
		ox_puts(o, ": ");
		put_tensor_type(o, (const Onnx__TensorProto *)*t);
	}
	ox_puts(o, open ? "</font>>];\n" : ">];\n");
}

static void edge(dot *d, long from, long to)
{
	ox_out *e = &d->edges;
	ox_puts(e, "  n");
	ox_put_int(e, from);
	ox_puts(e, " -> n");
	ox_put_int(e, to);
}

/* An edge from the producer of name (or a red "undefined" ellipse) to node id, labelled
 * with the value's name, then its type when the model declares it: "b" over "float[2]".
 * operand >= 0 puts the input's place first ("1: b"), so that Sub(b, a) after Split reads
 * back in order even when both edges join the same two boxes. */
static void edge_in(dot *d, int depth, dscope *sc, const char *name, long to, long operand)
{
	ox_out *o = d->o, *e = &d->edges;
	const intptr_t *from = find(sc, 0, name);
	long src;
	if (from) {
		src = (long)*from;
	} else {
		src = new_id(d);
		put_indent(d, depth);
		ox_putc(o, 'n');
		ox_put_int(o, src);
		ox_puts(o, " [shape=ellipse, color=red, fontcolor=red, label=<");
		put_html(o, name, strlen(name));
		ox_puts(o, "<br/>(undefined)>];\n");
		put_name(d, &sc->producer, name, src);
	}
	edge(d, src, to);
	const intptr_t *type = find(sc, 1, name);
	char *t = type ? brief(d, (const void *)*type, ATTR_WIDTH) : NULL;
	ox_puts(e, " [label=\"");
	if (operand >= 0) {
		ox_put_int(e, operand);
		ox_puts(e, ": ");
	}
	put_escaped(e, name);
	if (t && *t) {
		ox_puts(e, "\\n"); /* DOT's line break inside a label */
		put_escaped(e, t);
	}
	ox_puts(e, "\"]");
	free(t);
	ox_puts(e, ";\n");
}

/* ---- graphs ---------------------------------------------------------------------------------- */

static void render_graph(dot *d, int depth, const Onnx__GraphProto *g, const dscope *up, long owner);

/* Each graph-valued attribute of a node, as a cluster beside it. */
static void clusters(dot *d, int depth, const Onnx__NodeProto *n, const dscope *sc, long id)
{
	for (size_t i = 0; i < n->n_attribute; i++) {
		const Onnx__AttributeProto *a = n->attribute[i];
		size_t count = a->g ? 1 : a->n_graphs;
		for (size_t j = 0; j < count; j++) {
			ox_out *o = d->o;
			put_indent(d, depth);
			ox_puts(o, "subgraph cluster_");
			ox_put_int(o, ++d->cluster);
			ox_puts(o, " {\n");
			put_indent(d, depth + 1);
			ox_puts(o, "label=<");
			put_html(o, n->op_type ? n->op_type : "", n->op_type ? strlen(n->op_type) : 0);
			ox_putc(o, ' ');
			put_html(o, a->name ? a->name : "", a->name ? strlen(a->name) : 0);
			ox_puts(o, ">; style=\"rounded,dashed\"; color=\"#888888\";\n");
			render_graph(d, depth + 1, a->g ? a->g : a->graphs[j], sc, id);
			put_indent(d, depth);
			ox_puts(o, "}\n");
		}
	}
}

static void declare_values(dot *d, const Onnx__GraphProto *g, dscope *sc)
{
	for (size_t i = 0; i < g->n_input; i++)
		put_name(d, &sc->type, g->input[i]->name, (intptr_t)g->input[i]->type);
	for (size_t i = 0; i < g->n_output; i++)
		put_name(d, &sc->type, g->output[i]->name, (intptr_t)g->output[i]->type);
	for (size_t i = 0; i < g->n_value_info; i++)
		put_name(d, &sc->type, g->value_info[i]->name, (intptr_t)g->value_info[i]->type);
	for (size_t i = 0; i < g->n_initializer; i++)
		put_name(d, &sc->init, g->initializer[i]->name, (intptr_t)g->initializer[i]);
}

/* Inputs that are initializers too (as IR version 3 wanted) are drawn as initializers. */
static void inputs(dot *d, int depth, const Onnx__GraphProto *g, dscope *sc)
{
	for (size_t i = 0; i < g->n_input; i++) {
		const Onnx__ValueInfoProto *vi = g->input[i];
		if (!vi->name || ox_names_get(&sc->init, vi->name))
			continue;
		long id = new_id(d);
		value_node(d, depth, id, vi->name, vi->type, "#dbeafe");
		put_name(d, &sc->producer, vi->name, id);
	}
}

static void nodes(dot *d, int depth, const Onnx__GraphProto *g, dscope *sc)
{
	for (size_t i = 0; i < g->n_node && !d->nomem; i++) {
		const Onnx__NodeProto *n = g->node[i];
		long id = new_id(d);
		node_box(d, depth, id, n, sc);
		clusters(d, depth, n, sc, id);
		for (size_t j = 0; j < n->n_input; j++)
			if (n->input[j] && *n->input[j] && (find(sc, 0, n->input[j]) || !find(sc, 2, n->input[j])))
				edge_in(d, depth, sc, n->input[j], id, n->n_input > 1 ? (long)j : -1);
		for (size_t j = 0; j < n->n_output; j++)
			put_name(d, &sc->producer, n->output[j], id);
	}
}

/* Outputs as ellipses; a sub-graph's outputs also lead (dashed) to the node that owns it. */
static void outputs(dot *d, int depth, const Onnx__GraphProto *g, dscope *sc, long owner)
{
	for (size_t i = 0; i < g->n_output; i++) {
		const Onnx__ValueInfoProto *vi = g->output[i];
		if (!vi->name)
			continue;
		long id = new_id(d);
		value_node(d, depth, id, vi->name, vi->type, "#dcfce7");
		if (find(sc, 0, vi->name) || !find(sc, 2, vi->name))
			edge_in(d, depth, sc, vi->name, id, -1);
		if (owner) {
			edge(d, id, owner);
			ox_puts(&d->edges, " [style=dashed];\n");
		}
	}
}

static void render_graph(dot *d, int depth, const Onnx__GraphProto *g, const dscope *up, long owner)
{
	dscope sc = {.up = up};
	declare_values(d, g, &sc);
	inputs(d, depth, g, &sc);
	nodes(d, depth, g, &sc);
	outputs(d, depth, g, &sc, owner);
	ox_names_free(&sc.producer);
	ox_names_free(&sc.type);
	ox_names_free(&sc.init);
}

OnnxStatus OnnxPrinter_Dot(const Onnx__ModelProto *model, FILE *f, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!model || !f) {
		ox_error_set(err, ONNXTXT_ERR_ARG, "invalid argument: %s is NULL", model ? "file" : "model");
		return err->code;
	}
	ox_out o;
	dot d = {.o = &o};
	ox_out_init(&o, f, 0, &d.nomem);
	ox_out_init(&d.edges, NULL, 0, &d.nomem);
	const Onnx__GraphProto *g = model->graph;
	ox_puts(&o, "digraph ");
	put_quoted(&o, g && g->name ? g->name : "model");
	ox_puts(&o, " {\n  graph [fontname=\"Helvetica\", fontsize=11, labelloc=t, label=");
	put_quoted(&o, g && g->name ? g->name : "");
	ox_puts(&o, "];\n  node [fontname=\"Helvetica\", fontsize=10, shape=box, style=\"rounded,filled\", "
		    "fillcolor=\"#f3f4f6\"];\n  edge [fontname=\"Helvetica\", fontsize=9, color=\"#555555\"];\n");
	if (g)
		render_graph(&d, 0, g, NULL, 0);
	if (d.edges.len) /* no memcpy from the NULL buffer of a graph without edges */
		ox_put(&o, d.edges.buf, d.edges.len);
	ox_puts(&o, "}\n");
	d.nomem |= d.edges.failed;
	ox_out_free(&d.edges);
	o.nbreaks = 0;
	o.last.open = false;
	ox_out_flush(&o);
	errno = 0;
	OnnxStatus st = d.nomem ? ONNXTXT_ERR_NOMEM : o.failed || fflush(f) != 0 ? ONNXTXT_ERR_IO : ONNXTXT_OK;
	if (st == ONNXTXT_ERR_NOMEM)
		ox_error_set(err, st, "out of memory");
	else if (st != ONNXTXT_OK)
		ox_error_io(err, o.failed ? o.sys_errno : errno, "cannot write the graph");
	ox_out_free(&o);
	return st;
}

static int dot_to(FILE *f, void *model, OnnxError *err)
{
	return OnnxPrinter_Dot(model, f, err) == ONNXTXT_OK;
}

OnnxStatus OnnxPrinter_DotFile(const Onnx__ModelProto *model, const char *path, OnnxError *err)
{
	OnnxError local;
	err = ox_error_reset(err, &local);
	if (!model || !path) {
		ox_error_set(err, ONNXTXT_ERR_ARG, "invalid argument: %s is NULL", model ? "path" : "model");
		return err->code;
	}
	return ox_write_atomic(path, dot_to, (void *)model, err);
}
