/* The operator tables, built from the X-macro lists in ops.h. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "ops.h"
#include "registry.h"

#define ENTRY(name) {#name, ox_op_##name},
static const ox_op table[] = {OX_OPS(ENTRY)};
#undef ENTRY
#define ML_ENTRY(name) {#name, ox_ml_##name},
static const ox_op ml_table[] = {OX_OPS_ML(ML_ENTRY)}; /* sorted in ops.h */
#undef ML_ENTRY

#define NOPS (sizeof table / sizeof table[0])

/* Families are sorted separately; one sorted index over all of them. */
static const ox_op *sorted[NOPS];
static size_t nsorted;

static int by_name(const void *a, const void *b)
{
	return strcmp((*(const ox_op *const *)a)->name, (*(const ox_op *const *)b)->name);
}

static void build(void)
{
	for (size_t i = 0; i < NOPS; i++)
		sorted[i] = &table[i];
	qsort(sorted, NOPS, sizeof sorted[0], by_name);
	nsorted = NOPS;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

static const ox_op *find_ml(const char *op_type)
{
	size_t lo = 0, hi = sizeof ml_table / sizeof ml_table[0];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(op_type, ml_table[mid].name);
		if (c == 0)
			return &ml_table[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const ox_op *ox_op_find(const char *domain, const char *op_type)
{
	if (domain && strcmp(domain, "ai.onnx.ml") == 0)
		return find_ml(op_type);
	if (domain && *domain && strcmp(domain, "ai.onnx") != 0)
		return NULL;
	pthread_once(&once, build);
	size_t lo = 0, hi = nsorted;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(op_type, sorted[mid]->name);
		if (c == 0)
			return sorted[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const ox_op *const *ox_op_list(size_t *n)
{
	pthread_once(&once, build);
	*n = nsorted;
	return sorted;
}
