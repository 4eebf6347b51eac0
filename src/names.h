/* A hash table from names (NUL-terminated strings the caller keeps alive) to integers:
 * the scopes of the structural check, of the DOT renderer and of the evaluator's planner. */
#ifndef OX_NAMES_H
#define OX_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ox_names {
	const char **key;
	intptr_t *val;
	size_t cap, n;
} ox_names; /* zero-initialized is empty */

/* The value of k, or NULL. */
const intptr_t *ox_names_get(const ox_names *t, const char *k);
/* Adds k -> v unless k is there already; false when out of memory. */
bool ox_names_put(ox_names *t, const char *k, intptr_t v);
void ox_names_free(ox_names *t);

#endif
