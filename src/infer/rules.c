/* The one table of inference rules, built from the list of rules.h, looked up by (domain, op,
 * the since version of the schema in force). */
#include <string.h>

#include "infer/infer.h"
#include "infer/rules.h"

#define OX_RULE_ENTRY(domain, op, since, until, name) {domain, #op, since, until, ox_rule_##name},
static const ox_rule rules[] = {OX_INFER_RULES(OX_RULE_ENTRY)};
#undef OX_RULE_ENTRY

static bool same_domain(const char *a, const char *b)
{
	if (!strcmp(a, "ai.onnx"))
		a = "";
	if (!strcmp(b, "ai.onnx"))
		b = "";
	return !strcmp(a, b);
}

/* A linear scan in list order (the first match wins): the table holds a few hundred rules,
 * and the engine caches what it finds per (domain, op, since) so that a model pays for each
 * operator once. */
ox_rule_fn ox_rule_find(const char *domain, const char *op, int since)
{
	for (const ox_rule *r = rules; r < rules + sizeof rules / sizeof *rules; r++)
		if (!strcmp(r->op, op) && same_domain(r->domain, domain) && since >= r->since &&
		    (!r->until || since <= r->until))
			return r->fn;
	return NULL;
}
