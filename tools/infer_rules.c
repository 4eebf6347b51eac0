/* infer_rules: what tools/infercoverage.py knows of inference, asked of the code itself so that
 * the coverage table cannot drift from it: which schemas of the table have a rule (the
 * engine's own lookup, ox_rule_find), and which schemas the nodes of text models use.
 *
 *   infer_rules schemas        one line per schema: DOMAIN OP SINCE RULE DEPRECATED (tabs;
 *                              RULE and DEPRECATED are 0 or 1, DOMAIN "ai.onnx" for "")
 *   infer_rules uses FILE...   one line per node of a standard domain: FILE DOMAIN OP SINCE,
 *                              SINCE the schema in force as inference picks it (main graph,
 *                              sub-graphs and model-local function bodies)
 * Not installed; exit 1 (with a message) when a file does not read or parse. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "file.h"
#include "infer/infer.h"

static const char *str(const char *s)
{
	return s ? s : "";
}

/* "" and "ai.onnx" are one domain; lines spell it "ai.onnx". */
static const char *shown(const char *domain)
{
	return *domain ? domain : "ai.onnx";
}

static int list_schemas(void)
{
	size_t n;
	const ox_schema *all = ox_schema_all(&n);
	for (size_t i = 0; i < n; i++) {
		const ox_schema *s = &all[i];
		bool rule = ox_rule_find(s->domain, s->name, s->since) != NULL;
		printf("%s\t%s\t%d\t%d\t%d\n", shown(s->domain), s->name, s->since, rule,
		       (s->flags & OX_SCHEMA_DEPRECATED) != 0);
	}
	return 0;
}

/* The state of one model's walk: its opsets in force (domain -> version) and its functions. */
typedef struct walk {
	const char *file;
	const Onnx__ModelProto *m;
	Onnx__OperatorSetIdProto *const *opsets;
	size_t n_opsets;
} walk;

static int64_t version_of(const walk *w, const char *domain)
{
	for (size_t i = 0; i < w->n_opsets; i++) {
		const char *d = str(w->opsets[i]->domain);
		if (!strcmp(d, "ai.onnx"))
			d = "";
		if (!strcmp(d, domain))
			return w->opsets[i]->version;
	}
	return 0;
}

/* Whether n calls a model-local function (the engine infers its body instead). */
static bool local_call(const walk *w, const Onnx__NodeProto *n)
{
	for (size_t i = 0; i < w->m->n_functions; i++) {
		const Onnx__FunctionProto *f = w->m->functions[i];
		if (!strcmp(str(f->domain), str(n->domain)) && !strcmp(str(f->name), str(n->op_type)) &&
		    !strcmp(str(f->overload), str(n->overload)))
			return true;
	}
	return false;
}

static void walk_nodes(const walk *w, Onnx__NodeProto *const *nodes, size_t n);

/* One node as the engine picks its schema: the domain's version, clamped to the table's. */
static void walk_node(const walk *w, const Onnx__NodeProto *n)
{
	const char *domain = n->domain && strcmp(n->domain, "ai.onnx") ? n->domain : "";
	const ox_schema_domain *d = ox_schema_domain_find(domain);
	if (d && n->op_type && !local_call(w, n)) {
		int64_t v = version_of(w, domain);
		const ox_schema *s = ox_schema_find(domain, n->op_type, v > d->max ? d->max : v);
		if (s)
			printf("%s\t%s\t%s\t%d\n", w->file, shown(s->domain), s->name, s->since);
	}
	for (size_t i = 0; i < n->n_attribute; i++) {
		const Onnx__AttributeProto *a = n->attribute[i];
		if (a->g)
			walk_nodes(w, a->g->node, a->g->n_node);
		for (size_t j = 0; j < a->n_graphs; j++)
			walk_nodes(w, a->graphs[j]->node, a->graphs[j]->n_node);
	}
}

static void walk_nodes(const walk *w, Onnx__NodeProto *const *nodes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		walk_node(w, nodes[i]);
}

static int list_uses(const char *file)
{
	size_t len;
	OnnxError err;
	char *text = ox_read_file(file, &len, &err);
	Onnx__ModelProto *m = NULL;
	if (!text || OnnxParser_Parse(text, len, &m, &err) != ONNXTXT_OK) {
		fprintf(stderr, "infer_rules: %s:%u:%u: %s\n", file, err.line, err.column, err.message);
		free(text);
		return 1;
	}
	walk w = {file, m, m->opset_import, m->n_opset_import};
	if (m->graph)
		walk_nodes(&w, m->graph->node, m->graph->n_node);
	for (size_t i = 0; i < m->n_functions; i++) {
		const Onnx__FunctionProto *f = m->functions[i];
		walk fw = w;
		if (f->n_opset_import) /* a function's own imports replace the model's */
			fw.opsets = f->opset_import, fw.n_opsets = f->n_opset_import;
		walk_nodes(&fw, f->node, f->n_node);
	}
	OnnxProto_Free(m);
	free(text);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "schemas"))
		return list_schemas();
	if (argc >= 2 && !strcmp(argv[1], "uses")) {
		int rc = 0;
		for (int i = 2; i < argc; i++)
			rc |= list_uses(argv[i]);
		return rc;
	}
	fprintf(stderr, "usage: infer_rules schemas | infer_rules uses FILE...\n");
	return 2;
}
