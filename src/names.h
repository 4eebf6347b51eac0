/* A hash table from keys (bytes the caller keeps alive: names, or packed call keys) to
 * integers: the scopes of the structural check, of the DOT renderer and of the
 * evaluator's planner, and the planner's function bodies. */
#ifndef OX_NAMES_H
#define OX_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ox_names {
	const void **key;
	size_t *len;
	intptr_t *val;
	size_t cap, n;
} ox_names; /* zero-initialized is empty */

/* The value of the key k[0..n), or NULL. */
const intptr_t *ox_names_find(const ox_names *t, const void *k, size_t n);
/* Adds k[0..n) -> v unless the key is there already; false when out of memory. */
bool ox_names_add(ox_names *t, const void *k, size_t n, intptr_t v);
/* The same for a NUL-terminated name. */
const intptr_t *ox_names_get(const ox_names *t, const char *k);
bool ox_names_put(ox_names *t, const char *k, intptr_t v);
void ox_names_free(ox_names *t);

#endif
