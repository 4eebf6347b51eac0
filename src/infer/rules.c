/* The one table of inference rules: every family file's array, looked up by (domain, op,
 * the since version of the schema in force). */
#include <string.h>

#include "infer/infer.h"
#include "infer/rules.h"

const ox_rule *const ox_rule_families[] = {
	ox_rules_elementwise,
	ox_rules_shape,
	ox_rules_linalg,
	ox_rules_nn,
	ox_rules_reduce,
	ox_rules_control,
	ox_rules_index,
	ox_rules_misc,
	ox_rules_resample,
	ox_rules_seq,
	ox_rules_loss,
	ox_rules_ml,
	ox_rules_train,
	ox_rules_attention,
	NULL,
};

static bool same_domain(const char *a, const char *b)
{
	if (!strcmp(a, "ai.onnx"))
		a = "";
	if (!strcmp(b, "ai.onnx"))
		b = "";
	return !strcmp(a, b);
}

/* A linear scan: the families hold a few hundred rules, and the engine caches what it
 * finds per (domain, op, since) so that a model pays for each operator once. */
ox_rule_fn ox_rule_find(const char *domain, const char *op, int since)
{
	for (size_t f = 0; ox_rule_families[f]; f++)
		for (const ox_rule *r = ox_rule_families[f]; r->op; r++)
			if (!strcmp(r->op, op) && same_domain(r->domain, domain) && since >= r->since &&
			    (!r->until || since <= r->until))
				return r->fn;
	return NULL;
}
