/* Key tables for the structural check, the DOT renderer and the planner: open addressing
 * with linear probing, FNV-1a hashes, at most half full. */
#include "names.h"

#include <stdlib.h>
#include <string.h>

static size_t hash(const void *k, size_t n)
{
	const unsigned char *b = k;
	uint64_t h = 1469598103934665603u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211u;
	return (size_t)h;
}

static size_t slot(const ox_names *t, const void *k, size_t n)
{
	size_t i = hash(k, n) & (t->cap - 1);
	while (t->key[i] && (t->len[i] != n || memcmp(t->key[i], k, n) != 0))
		i = (i + 1) & (t->cap - 1);
	return i;
}

const intptr_t *ox_names_find(const ox_names *t, const void *k, size_t n)
{
	if (!t->cap)
		return NULL;
	size_t i = slot(t, k, n);
	return t->key[i] ? &t->val[i] : NULL;
}

static bool grow(ox_names *t)
{
	size_t cap = t->cap ? 2 * t->cap : 64;
	ox_names bigger = {calloc(cap, sizeof(void *)), malloc(cap * sizeof(size_t)), malloc(cap * sizeof(intptr_t)),
			   cap, 0};
	if (!bigger.key || !bigger.len || !bigger.val) {
		ox_names_free(&bigger);
		return false;
	}
	for (size_t i = 0; i < t->cap; i++)
		if (t->key[i])
			ox_names_add(&bigger, t->key[i], t->len[i], t->val[i]);
	ox_names_free(t);
	*t = bigger;
	return true;
}

bool ox_names_add(ox_names *t, const void *k, size_t n, intptr_t v)
{
	if (2 * (t->n + 1) > t->cap && !grow(t))
		return false;
	size_t i = slot(t, k, n);
	if (!t->key[i]) {
		t->key[i] = k;
		t->len[i] = n;
		t->val[i] = v;
		t->n++;
	}
	return true;
}

const intptr_t *ox_names_get(const ox_names *t, const char *k)
{
	return ox_names_find(t, k, strlen(k));
}

bool ox_names_put(ox_names *t, const char *k, intptr_t v)
{
	return ox_names_add(t, k, strlen(k), v);
}

void ox_names_free(ox_names *t)
{
	free(t->key);
	free(t->len);
	free(t->val);
	t->key = NULL;
	t->len = NULL;
	t->val = NULL;
	t->cap = t->n = 0;
}
