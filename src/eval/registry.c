/* The operator tables, built from the X-macro lists in ops.h, and the lookup by version
 * range. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "registry.h"

#define ENTRY(name) {#name, ox_op_##name, "", 1},
#define VERSION_ENTRY(name, since) {#name, ox_op_##name##_##since, "", since},
#define ML_ENTRY(name) {#name, ox_ml_##name, "ai.onnx.ml", 1},
#define ML_VERSION_ENTRY(name, since) {#name, ox_ml_##name##_##since, "ai.onnx.ml", since},
#define DOMAIN_ENTRY(domain, name) {#name, ox_op_##name, domain, 1},
static const ox_op table[] = {OX_OPS(ENTRY, VERSION_ENTRY) OX_OPS_ML(ML_ENTRY, ML_VERSION_ENTRY)
				      OX_DOMAIN_OPS(DOMAIN_ENTRY)};
#undef DOMAIN_ENTRY
#undef ML_VERSION_ENTRY
#undef ML_ENTRY
#undef VERSION_ENTRY
#undef ENTRY

#define NOPS (sizeof table / sizeof table[0])

/* Families and domains are listed separately; one index over all of them, sorted by
 * (domain, name, since). */
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
	int c = compare(x->domain, x->name, y->domain, y->name);
	return c ? c : (x->since > y->since) - (x->since < y->since);
}

static void build(void)
{
	for (size_t i = 0; i < NOPS; i++)
		sorted[i] = &table[i];
	qsort(sorted, NOPS, sizeof sorted[0], by_name);
	nsorted = NOPS;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

/* The index of the first entry of (domain, op_type), or nsorted when there is none. */
static size_t first_entry(const char *domain, const char *op_type)
{
	size_t lo = 0, hi = nsorted;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (compare(domain, op_type, sorted[mid]->domain, sorted[mid]->name) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nsorted && !compare(domain, op_type, sorted[lo]->domain, sorted[lo]->name) ? lo : nsorted;
}

const ox_op *ox_op_find(const char *domain, const char *op_type, int64_t version, int *oldest)
{
	if (!domain || strcmp(domain, "ai.onnx") == 0)
		domain = "";
	pthread_once(&once, build);
	size_t i = first_entry(domain, op_type);
	const ox_op *found = NULL;
	for (size_t j = i; j < nsorted && !compare(domain, op_type, sorted[j]->domain, sorted[j]->name); j++)
		if (sorted[j]->since <= version)
			found = sorted[j];
	if (oldest)
		*oldest = i < nsorted ? sorted[i]->since : 0;
	return found;
}
