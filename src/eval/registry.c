/* The operator tables, built from the X-macro lists in ops.h. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "registry.h"

#define ENTRY(name) {#name, ox_op_##name, ""},
#define ML_ENTRY(name) {#name, ox_ml_##name, "ai.onnx.ml"},
#define DOMAIN_ENTRY(domain, name) {#name, ox_op_##name, domain},
static const ox_op table[] = {OX_OPS(ENTRY) OX_OPS_ML(ML_ENTRY) OX_DOMAIN_OPS(DOMAIN_ENTRY)};
#undef DOMAIN_ENTRY
#undef ML_ENTRY
#undef ENTRY

#define NOPS (sizeof table / sizeof table[0])

/* Families and domains are listed separately; one index over all of them, sorted by
 * (domain, name). */
static const ox_op *sorted[NOPS];
static size_t nsorted;

static int compare(const char *da, const char *na, const char *db, const char *nb)
{
	int c = strcmp(da, db);
	return c ? c : strcmp(na, nb);
}

static int by_name(const void *a, const void *b)
{
	const ox_op *x = *(const ox_op *const *)a, *y = *(const ox_op *const *)b;
	return compare(x->domain, x->name, y->domain, y->name);
}

static void build(void)
{
	for (size_t i = 0; i < NOPS; i++)
		sorted[i] = &table[i];
	qsort(sorted, NOPS, sizeof sorted[0], by_name);
	nsorted = NOPS;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

const ox_op *ox_op_find(const char *domain, const char *op_type)
{
	if (!domain || strcmp(domain, "ai.onnx") == 0)
		domain = "";
	pthread_once(&once, build);
	size_t lo = 0, hi = nsorted;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = compare(domain, op_type, sorted[mid]->domain, sorted[mid]->name);
		if (c == 0)
			return sorted[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}
