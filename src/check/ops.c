/* The structural check's operator rules, against the schema table (src/schema): the
 * operator exists at the imported opset, its inputs and outputs count as the schema says,
 * its attributes are the schema's, of their types, and declared value types meet the type
 * constraints. Also the opset imports themselves (versions newer than known, functions). */
#include <stdio.h>
#include <string.h>

#include "check/check.h"
#include "schema/schema.h"
#include "types.h"

#define AT(x) ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__##x
#define problem(c, ...) ox_check_report(c, ONNXTXT_ERR_INVALID, __VA_ARGS__)

static const char *str(const char *s)
{
	return s ? s : "";
}

/* "the default domain" or "domain 'ai.onnx.ml'", for messages. */
static const char *domain_label(const char *domain, char *buf, size_t size)
{
	if (!*domain)
		return "the default domain";
	snprintf(buf, size, "domain '%s'", domain);
	return buf;
}

/* ---- the operator at its opset ------------------------------------------------------------ */

/* The schema in force; NULL (and a problem) when the operator is unknown, not yet there
 * or deprecated at version. */
static const ox_schema *schema_in_force(ox_check *c, const Onnx__NodeProto *n, const char *domain, int64_t version)
{
	char buf[160];
	const char *where = domain_label(domain, buf, sizeof buf);
	size_t nv;
	const ox_schema *v = ox_schema_versions(domain, n->op_type, &nv);
	const ox_schema_domain *d = ox_schema_domain_find(domain);
	if (version > d->max)
		version = d->max; /* newer than known: a warning says so; judged by the newest */
	if (!v) {
		const char *near = ox_schema_suggest(domain, n->op_type);
		size_t before = c->n;
		problem(c, n, OX_P_OP, 0, "no operator '%s' in %s%s%s%s", n->op_type, where, near ? " (did you mean '" : "",
			near ? near : "", near ? "'?)" : "");
		if (near && c->n > before)
			ox_check_suggest(&c->problems[before], near);
		return NULL;
	}
	if (v[0].since > version) {
		problem(c, n, OX_P_OP, 0, "the operator first appears in opset %d, but %s is imported at opset %lld", v[0].since,
			where, (long long)version);
		return NULL;
	}
	const ox_schema *s = ox_schema_find(domain, n->op_type, version);
	if (!(s->flags & OX_SCHEMA_DEPRECATED))
		return s;
	const ox_schema *back = s + 1 < v + nv ? s + 1 : NULL;
	if (back)
		problem(c, n, OX_P_OP, 0, "the operator is deprecated from opset %d of %s (imported at %lld) until opset %d",
			s->since, where, (long long)version, back->since);
	else
		problem(c, n, OX_P_OP, 0, "the operator was removed in opset %d of %s (imported at %lld); its last version is "
			"from opset %d", s->since, where, (long long)version, s > v ? s[-1].since : s->since);
	return NULL;
}

static void check_count(ox_check *c, const Onnx__NodeProto *n, const char *what, size_t count, int min, int max)
{
	if (count >= (size_t)min && (max < 0 || count <= (size_t)max))
		return;
	if (max < 0)
		problem(c, n, OX_P_OP, 0, "takes at least %d %ss, not %zu", min, what, count);
	else if (min == max)
		problem(c, n, OX_P_OP, 0, "takes %d %s%s, not %zu", min, what, min == 1 ? "" : "s", count);
	else
		problem(c, n, OX_P_OP, 0, "takes %d to %d %ss, not %zu", min, max, what, count);
}

/* The formal the index-th actual input or output stands for (a variadic last one takes
 * the rest), or NULL beyond them. */
static const ox_formal *formal_at(const ox_formal *f, size_t n, size_t index)
{
	if (index < n)
		return &f[index];
	return n && f[n - 1].option == OX_FORMAL_VARIADIC ? &f[n - 1] : NULL;
}

/* Counts, and no single (required) input or output left out with "". */
static void check_arity(ox_check *c, const Onnx__NodeProto *n, const ox_schema *s)
{
	check_count(c, n, "input", n->n_input, s->min_in, s->max_in);
	check_count(c, n, "output", n->n_output, s->min_out, s->max_out);
	for (size_t i = 0; i < n->n_input; i++) {
		const ox_formal *f = formal_at(s->inputs, s->n_inputs, i);
		if (f && f->option == OX_FORMAL_SINGLE && !*str(n->input[i]))
			problem(c, n, OX_P_INPUT, i, "input %zu (%s) is required, but it is left out (\"\")", i, f->name);
	}
	for (size_t i = 0; i < n->n_output; i++) {
		const ox_formal *f = formal_at(s->outputs, s->n_outputs, i);
		if (f && f->option == OX_FORMAL_SINGLE && !*str(n->output[i]))
			problem(c, n, OX_P_OUTPUT, i, "output %zu (%s) is required, but it is left out (\"\")", i, f->name);
	}
}

/* ---- attributes ---------------------------------------------------------------------------- */

static const char *attr_type_name(int type)
{
	const char *s = ox_attr_type_name(type);
	return s ? s : "undefined";
}

static void check_attr_type(ox_check *c, const Onnx__AttributeProto *a, const ox_schema_attr *sa)
{
	bool conflict;
	int type = ox_check_attr_type(a, &conflict);
	if (!type || conflict || (a->ref_attr_name && *a->ref_attr_name) || type == sa->type)
		return; /* untyped, or declared one type and holding another: check.c says so */
	problem(c, a, OX_P_ALL, 0, "attribute '%s' must be %s, not %s%s", str(a->name), attr_type_name(sa->type),
		attr_type_name(type),
		/* the hint is about the text syntax: a binary model's writer has no literal to fix */
		c->text && type == AT(INT) && sa->type == AT(FLOAT) ? " (write a float literal: 1.0, not 1)" : "");
}

/* Every attribute known to the schema and of its type; every required one there. A node
 * with many attributes gets a table of their names, so that the check stays linear. */
static void check_attributes(ox_check *c, const Onnx__NodeProto *n, const ox_schema *s)
{
	ox_names given = {0};
	for (size_t i = 0; i < n->n_attribute; i++) {
		const Onnx__AttributeProto *a = n->attribute[i];
		const ox_schema_attr *sa = a->name ? ox_schema_attr_find(s, a->name) : NULL;
		if (sa)
			check_attr_type(c, a, sa);
		else if (a->name && *a->name)
			problem(c, a, OX_P_ALL, 0, "unknown attribute '%s'", a->name);
		if (n->n_attribute > 8 && a->name && !ox_names_put(&given, a->name, 0))
			c->nomem = true;
	}
	for (size_t k = 0; k < s->n_attrs; k++) {
		if (!s->attrs[k].required)
			continue;
		bool found = n->n_attribute > 8 && ox_names_get(&given, s->attrs[k].name);
		for (size_t i = 0; n->n_attribute <= 8 && i < n->n_attribute && !found; i++)
			found = n->attribute[i]->name && !strcmp(n->attribute[i]->name, s->attrs[k].name);
		if (!found)
			problem(c, n, OX_P_OP, 0, "required attribute '%s' is missing", s->attrs[k].name);
	}
	ox_names_free(&given);
}

/* ---- declared types against the type constraints ------------------------------------------- */

bool ox_check_type_allowed(const ox_typeset *set, intptr_t type)
{
	uint32_t bit = 1u << (type & 0xff);
	switch (type >> 8) {
	case OX_KIND_TENSOR: return set->tensor & bit;
	case OX_KIND_SEQ: return set->seq & bit;
	case OX_KIND_OPT: return set->opt & bit;
	case OX_KIND_OPTSEQ: return set->optseq & bit;
	default: return set->sparse & bit;
	}
}

/* What a type parameter is bound to in one node, and by which input or output. */
typedef struct binding {
	intptr_t type;
	const char *by, *what;
} binding;

int ox_check_constraint_of(const ox_schema *s, const ox_formal *f)
{
	for (int k = 0; k < s->n_constraints; k++)
		if (!strcmp(s->constraints[k].param, f->type))
			return k;
	return -1;
}

static void check_value_type(ox_check *c, const Onnx__NodeProto *n, const ox_schema *s, enum ox_part part, size_t i,
			     const ox_formal *f, binding *bound)
{
	const char *what = part == OX_P_INPUT ? "input" : "output";
	const char *name = part == OX_P_INPUT ? n->input[i] : n->output[i];
	char have[64], was[64];
	int k = ox_check_constraint_of(s, f);
	intptr_t type = ox_check_type_of(c->scope, name);
	if (!type)
		return;
	ox_check_type_name(type, have, sizeof have);
	if (!ox_check_type_allowed(f->set, type) && k < 0) {
		problem(c, n, part, i, "%s '%s' is %s, but it must be %s", what, name, have, f->type);
		return;
	}
	if (!ox_check_type_allowed(f->set, type)) {
		const char *list = s->constraints[k].allowed;
		bool listed = strlen(list) <= 160;
		problem(c, n, part, i, "%s '%s' is %s, which type parameter %s does not allow%s%s%s", what, name, have,
			f->type, listed ? " (it allows " : "", listed ? list : "", listed ? ")" : "");
		return;
	}
	if (k < 0 || (f->option == OX_FORMAL_VARIADIC && !f->homogeneous))
		return;
	if (!bound[k].type) {
		bound[k] = (binding){type, name, what};
		return;
	}
	if (bound[k].type == type)
		return;
	ox_check_type_name(bound[k].type, was, sizeof was);
	problem(c, n, part, i, "%s '%s' is %s, but %s is %s (%s '%s')", what, name, have, f->type, was, bound[k].what,
		bound[k].by);
}

static void check_types(ox_check *c, const Onnx__NodeProto *n, const ox_schema *s)
{
	binding bound[256] = {{0}};
	for (size_t i = 0; i < n->n_input; i++) {
		const ox_formal *f = formal_at(s->inputs, s->n_inputs, i);
		if (f && *str(n->input[i]))
			check_value_type(c, n, s, OX_P_INPUT, i, f, bound);
	}
	for (size_t i = 0; i < n->n_output; i++) {
		const ox_formal *f = formal_at(s->outputs, s->n_outputs, i);
		if (f && *str(n->output[i]))
			check_value_type(c, n, s, OX_P_OUTPUT, i, f, bound);
	}
}

void ox_check_op(ox_check *c, const Onnx__NodeProto *n, const char *domain, int64_t version, const ox_scope *sc)
{
	const ox_schema *s = schema_in_force(c, n, domain, version);
	if (!s)
		return;
	c->scope = sc;
	check_arity(c, n, s);
	check_attributes(c, n, s);
	check_types(c, n, s);
}

/* ---- opset imports --------------------------------------------------------------------------- */

void ox_check_opset_imports(ox_check *c, const Onnx__ModelProto *m)
{
	char buf[160];
	for (size_t i = 0; i < m->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *op = m->opset_import[i];
		const ox_schema_domain *d = ox_schema_domain_find(str(op->domain));
		if (d && op->version > d->max)
			ox_check_report(c, ONNXTXT_WARNING, op, OX_P_ALL, 0,
					"opset %lld of %s is newer than any this checker knows (%d): its operators are "
					"checked as of opset %d", (long long)op->version,
					domain_label(d->name, buf, sizeof buf), d->max, d->max);
	}
}

/* A function's node whose domain the function imports at another version than the model:
 * the operator must be the same at both (as onnx's checker requires). */
void ox_check_function_opsets(ox_check *c, const Onnx__NodeProto *n, const char *domain)
{
	const intptr_t *fv = ox_names_get(c->opsets, domain), *mv = ox_names_get(c->model_opsets, domain);
	if (!fv || !mv || *fv == *mv || !n->op_type)
		return;
	const ox_schema *fs = ox_schema_find(domain, n->op_type, *fv), *ms = ox_schema_find(domain, n->op_type, *mv);
	if (!fs && !ms)
		return; /* not a standard operator: nothing to compare */
	if (fs && ms && fs->since == ms->since)
		return;
	char buf[160], fwhen[32] = "none", mwhen[32] = "none";
	if (fs)
		snprintf(fwhen, sizeof fwhen, "from opset %d", fs->since);
	if (ms)
		snprintf(mwhen, sizeof mwhen, "from opset %d", ms->since);
	problem(c, n, OX_P_OP, 0,
		"the function imports %s at opset %lld but the model at %lld, and the operator differs between them "
		"(its version %s vs %s)", domain_label(domain, buf, sizeof buf), (long long)*fv, (long long)*mv, fwhen, mwhen);
}
