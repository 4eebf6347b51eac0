/* Lookups in the operator schema table that gen.py generates from operators.txt: the
 * schema in force for (domain, op, opset version), an operator's versions, near names. */
#include <stdint.h>
#include <string.h>

#include "diag.h"
#include "onnx.pb-c.h"
#include "schema/schema.h"

extern const ox_schema ox_schema_table[];
extern const size_t ox_schema_count;
extern const ox_schema_domain ox_schema_domains[];
extern const size_t ox_schema_domain_count;

static const char *canonical(const char *domain)
{
	return !domain || !strcmp(domain, "ai.onnx") ? "" : domain;
}

const ox_schema_domain *ox_schema_domain_find(const char *domain)
{
	domain = canonical(domain);
	for (size_t i = 0; i < ox_schema_domain_count; i++)
		if (!strcmp(ox_schema_domains[i].name, domain))
			return &ox_schema_domains[i];
	return NULL;
}

static int compare(const char *domain, const char *op, const ox_schema *s)
{
	int c = strcmp(domain, s->domain);
	return c ? c : strcmp(op, s->name);
}

const ox_schema *ox_schema_versions(const char *domain, const char *op, size_t *n)
{
	domain = canonical(domain);
	size_t lo = 0, hi = ox_schema_count;
	while (lo < hi) { /* the first entry not before (domain, op) */
		size_t mid = (lo + hi) / 2;
		if (compare(domain, op ? op : "", &ox_schema_table[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < ox_schema_count && !compare(domain, op ? op : "", &ox_schema_table[end]))
		end++;
	*n = end - lo;
	return end > lo ? &ox_schema_table[lo] : NULL;
}

const ox_schema *ox_schema_find(const char *domain, const char *op, int64_t version)
{
	size_t n;
	const ox_schema *v = ox_schema_versions(domain, op, &n);
	while (n > 0 && v[n - 1].since > version)
		n--;
	return n ? &v[n - 1] : NULL;
}

const ox_schema_attr *ox_schema_attr_find(const ox_schema *s, const char *name)
{
	size_t lo = 0, hi = s->n_attrs;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(name, s->attrs[mid].name);
		if (c == 0)
			return &s->attrs[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const ox_schema *ox_schema_all(size_t *n)
{
	*n = ox_schema_count;
	return ox_schema_table;
}

const char *ox_schema_suggest(const char *domain, const char *op)
{
	domain = canonical(domain);
	const char *best = NULL;
	size_t bd = strlen(op) >= 5 ? 3 : 2; /* two edits away, one for short names ("Foo" is not "Cos") */
	for (size_t i = 0; i < ox_schema_count; i++) {
		const ox_schema *s = &ox_schema_table[i];
		if (strcmp(s->domain, domain) || (best && !strcmp(best, s->name)))
			continue;
		size_t d = ox_edit_distance(op, strlen(op), s->name, strlen(s->name), true);
		if (d < bd) {
			bd = d;
			best = s->name;
		}
	}
	return best;
}

/* ---- attribute values with the schema's defaults ---------------------------------------------- */

/* The schema's default for an absent attribute of that type, or NULL (s NULL: no schema). */
static const ox_schema_attr *default_of(const ox_schema *s, const Onnx__AttributeProto *a, const char *name, int type)
{
	const ox_schema_attr *sa = !a && s ? ox_schema_attr_find(s, name) : NULL;
	return sa && sa->has_default && sa->type == type ? sa : NULL;
}

int64_t ox_schema_attr_int(const ox_schema *s, const Onnx__AttributeProto *a, const char *name, int64_t def)
{
	const ox_schema_attr *sa = default_of(s, a, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
	return a ? a->i : sa ? sa->i : def;
}

float ox_schema_attr_float(const ox_schema *s, const Onnx__AttributeProto *a, const char *name, float def)
{
	const ox_schema_attr *sa = default_of(s, a, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
	return a ? a->f : sa ? sa->f : def;
}

const char *ox_schema_attr_str(const ox_schema *s, const Onnx__AttributeProto *a, const char *name, const char *def,
			       size_t *len)
{
	const ox_schema_attr *sa = default_of(s, a, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
	if (!a) {
		def = sa && sa->s ? sa->s : def;
		if (len)
			*len = def ? strlen(def) : 0;
		return def;
	}
	if (len)
		*len = a->s.len;
	return a->s.data ? (const char *)a->s.data : "";
}

/* The INTS and FLOATS readers differ only in the field names, so one definition serves both. */
#define LIST_ATTR(fn, T, field, KIND)                                                                          \
	int64_t fn(const ox_schema *s, const Onnx__AttributeProto *a, const char *name, const T **v)           \
	{                                                                                                      \
		const ox_schema_attr *sa = default_of(s, a, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__##KIND); \
		if (sa) {                                                                                      \
			*v = sa->field;                                                                        \
			return (int64_t)sa->n;                                                                 \
		}                                                                                              \
		if (!a)                                                                                        \
			return -1;                                                                             \
		*v = a->field;                                                                                 \
		return (int64_t)a->n_##field;                                                                  \
	}
LIST_ATTR(ox_schema_attr_ints, int64_t, ints, INTS)
LIST_ATTR(ox_schema_attr_floats, float, floats, FLOATS)
