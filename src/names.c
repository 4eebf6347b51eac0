/* Name tables for the structural check, the DOT renderer and the planner: open addressing with
 * linear probing, FNV-1a hashes, at most half full. */
#include "names.h"

#include <stdlib.h>
#include <string.h>

static size_t hash(const char *s)
{
	uint64_t h = 1469598103934665603u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return (size_t)h;
}

static size_t slot(const ox_names *t, const char *k)
{
	size_t i = hash(k) & (t->cap - 1);
	while (t->key[i] && strcmp(t->key[i], k) != 0)
		i = (i + 1) & (t->cap - 1);
	return i;
}

const intptr_t *ox_names_get(const ox_names *t, const char *k)
{
	if (!t->cap)
		return NULL;
	size_t i = slot(t, k);
	return t->key[i] ? &t->val[i] : NULL;
}

static bool grow(ox_names *t)
{
	size_t cap = t->cap ? 2 * t->cap : 64;
	ox_names bigger = {calloc(cap, sizeof(char *)), malloc(cap * sizeof(intptr_t)), cap, 0};
	if (!bigger.key || !bigger.val) {
		free(bigger.key);
		free(bigger.val);
		return false;
	}
	for (size_t i = 0; i < t->cap; i++)
		if (t->key[i])
			ox_names_put(&bigger, t->key[i], t->val[i]);
	free(t->key);
	free(t->val);
	*t = bigger;
	return true;
}

bool ox_names_put(ox_names *t, const char *k, intptr_t v)
{
	if (2 * (t->n + 1) > t->cap && !grow(t))
		return false;
	size_t i = slot(t, k);
	if (!t->key[i]) {
		t->key[i] = k;
		t->val[i] = v;
		t->n++;
	}
	return true;
}

void ox_names_free(ox_names *t)
{
	free(t->key);
	free(t->val);
	t->key = NULL;
	t->val = NULL;
	t->cap = t->n = 0;
}
