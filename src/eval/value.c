/* Runtime values: allocation with limits, sharing, and element conversions between the
 * stored forms of every element type. */
#define _GNU_SOURCE /* madvise */
#include <math.h>
#include <pthread.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "budget.h"
#include "slab.h"
#include "value.h"

int64_t ox_shape_count(int rank, const int64_t *dims)
{
	int64_t n = 1;
	for (int i = 0; i < rank; i++) {
		if (dims[i] < 0)
			return -1;
		if (dims[i] == 0)
			n = 0;
		else if (n > OX_MAX_ELEMENTS / dims[i])
			return -1;
		else
			n *= dims[i];
	}
	/* a zero dim anywhere makes the count 0, but the other dims must still be sane */
	return n;
}

/* ---- tensor memory ----------------------------------------------------------------
 * Large buffers are recycled. A run allocates and frees the same sizes again and again,
 * and a fresh block from the system costs a page fault per 4 KB on first touch: on
 * resnet50 that was a fifth of the run. Freed blocks of at least CACHE_MIN bytes are
 * kept (up to CACHE_BYTES) and handed out again for the same size class. Under
 * AddressSanitizer nothing is kept, so use-after-free stays detectable. */
#if defined(__SANITIZE_ADDRESS__)
#define CACHE_SLOTS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CACHE_SLOTS 0
#endif
#endif
#ifndef CACHE_SLOTS
#define CACHE_SLOTS 64
#endif
#define CACHE_MIN ((size_t)64 << 10)
#define CACHE_BYTES ((size_t)256 << 20)

struct block {
	void *p;
	size_t size;
};
/* blocks smaller than this go to malloc's own free lists, which reuse them well */
#define OX_BLOCK_MIN ((size_t)4 << 10)

#if CACHE_SLOTS
static struct block cache[CACHE_SLOTS];
static size_t cached;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
#endif

/* Sizes are rounded up to a class 1/8 of their power of two apart, so that buffers of
 * nearly the same size share a class. */
static size_t size_class(size_t n)
{
	if (n < CACHE_MIN)
		return (n + OX_ALIGN - 1) & ~(size_t)(OX_ALIGN - 1);
	size_t step = (size_t)1 << (63 - __builtin_clzll(n) - 3);
	return (n + step - 1) & ~(step - 1);
}

/* ---- a session's blocks ----------------------------------------------------------------
 * While a session runs, the memory its tensors free stays with it (the session's memory
 * plan) as free extents of its slab, in address order, neighbours merged. A new tensor
 * takes the place the same tensor of the run before had (the i-th block of at least
 * OX_BLOCK_MIN bytes, when it is the same size and free), else the smallest extent it
 * fits (best fit), and leaves the rest. A run that asks for the sizes the one before did,
 * in its order, so gets the same places and takes nothing from the system; and a run's
 * tensors are packed into little more than the most of them that are live at once. That
 * keeps a run's data in the caches from one run to the next: light squeezenet's took
 * 16 MB with blocks kept per size and Concat outputs apart, 4 MB packed (a run on one
 * thread, the same kernels otherwise: 4.11 -> 3.53 ms). The memory goes back to the
 * system with the session. */
struct ox_blocks {
	struct block *b; /* free extents, in address order */
	size_t n, cap;
	struct block *run, *was; /* the blocks this run and the one before took, in order */
	size_t nrun, capr, nwas, capw, next;
	bool replay;   /* this run took every block where the run before did, so far */
	ox_slab *slab; /* where its memory comes from (slab.c) */
};

static _Thread_local ox_blocks *current_blocks;
static _Atomic uint64_t system_allocs; /* see ox_system_allocs */

ox_blocks *ox_blocks_new(void)
{
	ox_blocks *k = calloc(1, sizeof(ox_blocks));
	/* made now, not at the first block: worker threads may take blocks from it at once */
	if (k && CACHE_SLOTS && !(k->slab = ox_slab_new())) {
		free(k);
		return NULL;
	}
	return k;
}

void ox_blocks_free(ox_blocks *k)
{
	for (size_t i = 0; k && i < k->n; i++)
		ox_free_big(k->b[i].p);
	if (k) {
		free(k->b);
		free(k->run);
		free(k->was);
		ox_slab_close(k->slab);
	}
	free(k);
}

ox_blocks *ox_blocks_current(void)
{
	return current_blocks;
}

ox_blocks *ox_blocks_enter(ox_blocks *k)
{
	ox_blocks *old = current_blocks;
	current_blocks = k;
	return old;
}

void ox_blocks_start(ox_blocks *k)
{
	if (!k)
		return;
	struct block *t = k->was;
	size_t cap = k->capw;
	k->was = k->run, k->capw = k->capr, k->nwas = k->nrun;
	k->run = t, k->capr = cap, k->nrun = 0;
	k->next = 0;
	k->replay = true;
}

/* Room for one more entry in *a (n used of *cap); false when it cannot grow. */
static bool room(struct block **a, size_t n, size_t *cap)
{
	if (n < *cap)
		return true;
	size_t c = *cap ? 2 * *cap : 64;
	struct block *g = realloc(*a, c * sizeof *g);
	if (!g)
		return false;
	*a = g, *cap = c;
	return true;
}

/* The index of the first free extent after p. */
static size_t after(const ox_blocks *k, const void *p)
{
	size_t lo = 0, hi = k->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((const char *)k->b[mid].p <= (const char *)p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* [p, p + size) out of free extent i, which holds it: what is left before and after it
 * stays free. Each piece is a block of the slab to release. */
static bool carve(ox_blocks *k, size_t i, char *p, size_t size)
{
	struct block *e = &k->b[i];
	char *end = (char *)e->p + e->size;
	bool before = p > (char *)e->p, behind = p + size < end;
	if (before && behind && !room(&k->b, k->n, &k->cap))
		return false;
	e = &k->b[i];
	if (before && behind) {
		memmove(e + 2, e + 1, (k->n - i - 1) * sizeof *e);
		k->n++;
		e[1] = (struct block){p + size, (size_t)(end - (p + size))};
		e->size = (size_t)(p - (char *)e->p);
		ox_slab_retain(p);
		ox_slab_retain(p + size);
	} else if (before) {
		e->size = (size_t)(p - (char *)e->p);
		ox_slab_retain(p);
	} else if (behind) {
		e->p = p + size;
		e->size -= size;
		ox_slab_retain(p + size);
	} else {
		memmove(e, e + 1, (k->n - i - 1) * sizeof *e);
		k->n--;
	}
	return true;
}

/* size bytes (a multiple of OX_ALIGN) where the run before took its block of this turn,
 * when that is free and the same size; else from the smallest free extent they fit;
 * NULL when none does. */
static void *blocks_take(ox_blocks *k, size_t size)
{
	const struct block *w = k->replay && k->next < k->nwas ? &k->was[k->next] : NULL;
	size_t i = w && w->size == size ? after(k, w->p) : 0;
	k->next++;
	if (i > 0 && (char *)w->p + size <= (char *)k->b[i - 1].p + k->b[i - 1].size && carve(k, i - 1, w->p, size))
		return w->p;
	k->replay = false;
	size_t best = k->n;
	for (i = 0; i < k->n; i++)
		if (k->b[i].size >= size && (best == k->n || k->b[i].size < k->b[best].size))
			best = i;
	void *p = best < k->n ? k->b[best].p : NULL;
	return p && carve(k, best, p, size) ? p : NULL;
}

/* p (size bytes, as taken) back among the free extents, merged with its neighbours; false
 * when it is not memory of k's slab, or the list cannot grow. */
static bool blocks_keep(ox_blocks *k, void *p, size_t size)
{
	if (!ox_slab_owns(k->slab, p))
		return false;
	size_t i = after(k, p);
	struct block *prev = i ? &k->b[i - 1] : NULL, *next = i < k->n ? &k->b[i] : NULL;
	bool joins_prev = prev && (char *)prev->p + prev->size == (char *)p;
	bool joins_next = next && (char *)p + size == (char *)next->p;
	if (joins_prev) {
		prev->size += size;
		ox_slab_release(p);
		if (joins_next) {
			prev->size += next->size;
			ox_slab_release(next->p);
			memmove(next, next + 1, (k->n - i - 1) * sizeof *next);
			k->n--;
		}
		return true;
	}
	if (joins_next) {
		ox_slab_release(next->p);
		next->p = p;
		next->size += size;
		return true;
	}
	if (!room(&k->b, k->n, &k->cap))
		return false;
	memmove(k->b + i + 1, k->b + i, (k->n - i) * sizeof *k->b);
	k->b[i] = (struct block){p, size};
	k->n++;
	return true;
}

/* The bytes a tensor of n bytes takes in a session's plan. */
static size_t plan_size(size_t n)
{
	return (n + OX_ALIGN - 1) & ~(size_t)(OX_ALIGN - 1);
}

static void *data_alloc(size_t n)
{
	ox_blocks *k = CACHE_SLOTS ? current_blocks : NULL;
	size_t exact = plan_size(n);
	/* as data_free decides: smaller blocks would be carved from the slab every run */
	if (k && exact >= OX_BLOCK_MIN) {
		void *p = blocks_take(k, exact);
		if (!p && (p = ox_slab_alloc(k->slab, exact)))
			system_allocs++;
		if (p && room(&k->run, k->nrun, &k->capr))
			k->run[k->nrun++] = (struct block){p, exact};
		if (p)
			return p;
	}
	size_t size = size_class(n);
#if CACHE_SLOTS
	if (size >= CACHE_MIN) {
		void *p = NULL;
		pthread_mutex_lock(&cache_lock);
		for (int i = 0; i < CACHE_SLOTS && !p; i++)
			if (cache[i].p && cache[i].size == size) {
				p = cache[i].p;
				cache[i].p = NULL;
				cached -= size;
			}
		pthread_mutex_unlock(&cache_lock);
		if (p)
			return p;
	}
#endif
	return ox_alloc_big(size);
}

/* Blocks of 2 MiB or more are aligned to 2 MiB and offered to the kernel for
 * transparent huge pages (where it is in "madvise" mode): the weights of a model and its
 * large activations are then faulted in 2 MiB at a time. Measured on light resnet50, whose
 * session makes 200 MB of weights, the 4 KiB faults were a third of a whole process. */
#define HUGE_PAGE ((size_t)2 << 20)
#define HUGE_MIN HUGE_PAGE

uint64_t ox_system_allocs(void)
{
	return system_allocs;
}

bool ox_blocks_active(void)
{
	return CACHE_SLOTS != 0;
}

void *ox_alloc_big(size_t n)
{
	system_allocs += n >= OX_BLOCK_MIN;
#if CACHE_SLOTS
	/* while a session is entered, from its slab: packed weights, folded constants and the
	 * blocks of its runs, all kept until the session goes */
	ox_blocks *k = current_blocks;
	if (k && k->slab && n >= OX_BLOCK_MIN) {
		void *p = ox_slab_alloc(k->slab, n);
		if (p)
			return p;
	}
#endif
#if defined(MADV_HUGEPAGE) && CACHE_SLOTS
	if (n >= HUGE_MIN) {
		/* only whole huge pages are advised: the tail stays in small pages, not rounded up */
		void *p = aligned_alloc(HUGE_PAGE, (n + OX_ALIGN - 1) & ~(size_t)(OX_ALIGN - 1));
		if (p)
			madvise(p, n & ~(HUGE_PAGE - 1), MADV_HUGEPAGE); /* advice: a failure changes nothing */
		return p;
	}
#endif
	return aligned_alloc(OX_ALIGN, (n + OX_ALIGN - 1) & ~(size_t)(OX_ALIGN - 1));
}

void ox_free_big(void *p)
{
	if (!ox_slab_release(p))
		free(p);
}

static void data_free(void *p, size_t n)
{
	if (CACHE_SLOTS && current_blocks && p && plan_size(n) >= OX_BLOCK_MIN &&
	    blocks_keep(current_blocks, p, plan_size(n)))
		return;
	/* a session's block outliving the session's runs (an output), or one kept blocks
	 * could not take: back to its slab, never into the cache */
	if (ox_slab_release(p))
		return;
#if CACHE_SLOTS
	size_t size = size_class(n);
	if (p && size >= CACHE_MIN && size <= CACHE_BYTES / 4) {
		pthread_mutex_lock(&cache_lock);
		int slot = -1;
		for (int i = 0; i < CACHE_SLOTS && slot < 0; i++)
			if (!cache[i].p)
				slot = i;
		if (slot >= 0 && cached + size <= CACHE_BYTES) {
			cache[slot] = (struct block){p, size};
			cached += size;
			p = NULL;
		}
		pthread_mutex_unlock(&cache_lock);
	}
#else
	(void)n;
#endif
	free(p);
}

static ox_val *value_new(int kind)
{
	static _Atomic uint64_t next_id = 1; /* sessions may run on several threads */
	ox_val *v = calloc(1, sizeof *v);
	if (v) {
		v->kind = kind;
		v->refs = 1;
		v->id = next_id++;
	}
	return v;
}

/* A tensor's element type and shape, for a new tensor or a view */
static void set_shape(ox_val *v, int type, int rank, const int64_t *dims, int64_t count)
{
	v->type = type;
	v->rank = rank;
	if (rank)
		memcpy(v->dims, dims, (size_t)rank * sizeof *dims);
	v->count = count;
}

ox_val *ox_tensor_new(int type, int rank, const int64_t *dims, const char **why)
{
	const char *dummy;
	if (!why)
		why = &dummy;
	size_t es = ox_elem_size(type);
	if (!es) {
		*why = "unsupported element type";
		return NULL;
	}
	if (rank < 0 || rank > OX_MAX_RANK) {
		*why = "rank exceeds the limit of " "16";
		return NULL;
	}
	int64_t count = ox_shape_count(rank, dims);
	if (count < 0 || (size_t)count > OX_MAX_BYTES / es) {
		*why = count < 0 && rank && dims[0] >= 0 ? "element count exceeds the limit of 2^36"
							 : "shape is negative or too large";
		return NULL;
	}
	size_t bytes = (size_t)count * es;
	ox_budget *budget;
	if (ox_budget_charge(bytes, &budget, why) < 0)
		return NULL;
	ox_val *v = value_new(OX_TENSOR);
	if (!v) {
		ox_budget_credit(budget, bytes);
		*why = "out of memory";
		return NULL;
	}
	v->budget = budget;
	set_shape(v, type, rank, dims, count);
	/* an empty tensor gets a block too: see value.h */
	v->data = data_alloc(bytes ? bytes : 1);
	if (!v->data) {
		ox_budget_credit(budget, bytes);
		free(v);
		*why = "out of memory";
		return NULL;
	}
	if (type == OX_STRING)
		memset(v->data, 0, bytes);
	return v;
}

ox_val *ox_tensor_borrow(int type, int rank, const int64_t *dims, int64_t count, void *data)
{
	ox_val *v = value_new(OX_TENSOR);
	if (v) {
		set_shape(v, type, rank, dims, count);
		v->data = data;
		v->borrowed = true;
	}
	return v;
}

/* Whether v's data (or an item's, at any depth) is borrowed. */
static bool holds_borrowed(const ox_val *v)
{
	if (v->borrowed || (v->owner && v->owner->borrowed))
		return true;
	for (size_t i = 0; i < v->nitems; i++)
		if (v->items[i] && holds_borrowed(v->items[i]))
			return true;
	return false;
}

bool ox_val_own(ox_val **slot)
{
	ox_val *v = *slot;
	if (!v || !holds_borrowed(v))
		return true;
	if (v->kind == OX_TENSOR) {
		ox_val *c = ox_tensor_new(v->type, v->rank, v->dims, NULL);
		if (!c || !ox_tensor_copy_data(c, v)) {
			ox_val_unref(c);
			return false;
		}
		ox_val_unref(v);
		*slot = c;
		return true;
	}
	/* an item copied in place changes no value that others see */
	for (size_t i = 0; i < v->nitems; i++)
		if (!ox_val_own(&v->items[i]))
			return false;
	return true;
}

ox_val *ox_tensor_view(ox_val *base, int rank, const int64_t *dims)
{
	if (rank > OX_MAX_RANK || ox_shape_count(rank, dims) != base->count)
		return NULL;
	ox_val *v = value_new(OX_TENSOR);
	if (!v)
		return NULL;
	set_shape(v, base->type, rank, dims, base->count);
	v->data = base->data;
	v->owner = ox_val_ref(base->owner ? base->owner : base);
	return v;
}

ox_val *ox_tensor_view_at(ox_val *base, size_t offset, int rank, const int64_t *dims)
{
	int64_t n = rank <= OX_MAX_RANK ? ox_shape_count(rank, dims) : -1;
	size_t es = ox_elem_size(base->type);
	if (n < 0 || base->type == OX_STRING || offset > (size_t)base->count * es ||
	    (size_t)n > ((size_t)base->count * es - offset) / es)
		return NULL;
	ox_val *v = value_new(OX_TENSOR);
	if (!v)
		return NULL;
	set_shape(v, base->type, rank, dims, n);
	v->data = (char *)base->data + offset;
	v->owner = ox_val_ref(base->owner ? base->owner : base);
	return v;
}

ox_val *ox_tensor_scalar(int type, const void *elem)
{
	ox_val *v = ox_tensor_new(type, 0, NULL, NULL);
	if (v && type != OX_STRING)
		memcpy(v->data, elem, ox_elem_size(type));
	else if (v && !ox_str_set(v->data, ((const ox_str *)elem)->p, ((const ox_str *)elem)->n)) {
		ox_val_unref(v);
		v = NULL;
	}
	return v;
}

ox_val *ox_sequence_new(int elem_type, size_t n)
{
	ox_val *v = value_new(OX_SEQUENCE);
	if (!v)
		return NULL;
	v->type = elem_type;
	v->elem_kind = OX_TENSOR;
	if (n && !(v->items = calloc(n, sizeof *v->items))) {
		free(v);
		return NULL;
	}
	v->nitems = n;
	return v;
}

ox_val *ox_optional_new(int elem_kind, int elem_type, ox_val *elem)
{
	ox_val *v = value_new(OX_OPTIONAL);
	if (!v || (elem && !(v->items = malloc(sizeof *v->items)))) {
		free(v);
		ox_val_unref(elem);
		return NULL;
	}
	v->elem_kind = elem_kind;
	v->type = elem_type;
	if (elem) {
		v->items[0] = elem;
		v->nitems = 1;
	}
	return v;
}

ox_val *ox_map_new(ox_val *keys, ox_val *values)
{
	ox_val *v = value_new(OX_MAP);
	if (!v || !(v->items = malloc(2 * sizeof *v->items))) {
		free(v);
		ox_val_unref(keys);
		ox_val_unref(values);
		return NULL;
	}
	v->type = keys->type;
	v->elem_kind = OX_TENSOR;
	v->items[0] = keys;
	v->items[1] = values;
	v->nitems = 2;
	return v;
}

bool ox_map_key_ok(int type)
{
	/* MapProto: the integer types of 8 to 64 bits, and string */
	switch (type) {
	case OX_INT8: case OX_INT16: case OX_INT32: case OX_INT64: case OX_UINT8: case OX_UINT16:
	case OX_UINT32: case OX_UINT64: case OX_STRING:
		return true;
	default:
		return false;
	}
}

void ox_val_unref(ox_val *v)
{
	if (!v || --v->refs)
		return;
	if (v->owner) {
		ox_val_unref(v->owner);
	} else if (v->kind == OX_TENSOR && !v->borrowed) {
		if (v->type == OX_STRING)
			for (int64_t i = 0; i < v->count; i++)
				free(((ox_str *)v->data)[i].p);
		data_free(v->data, (size_t)v->count * ox_elem_size(v->type));
		ox_budget_credit(v->budget, (size_t)v->count * ox_elem_size(v->type));
	}
	for (size_t i = 0; i < v->nitems; i++)
		ox_val_unref(v->items[i]);
	free(v->items);
	ox_free_big(v->derived);
	free(v);
}

bool ox_str_set(ox_str *s, const char *p, size_t n)
{
	char *c = malloc(n + 1);
	if (!c)
		return false;
	if (n)
		memcpy(c, p, n);
	c[n] = '\0';
	free(s->p);
	s->p = c;
	s->n = n;
	return true;
}

bool ox_tensor_copy_data(ox_val *dst, const ox_val *src)
{
	if (src->type != OX_STRING) {
		if (src->count)
			memcpy(dst->data, src->data, (size_t)src->count * ox_elem_size(src->type));
		return true;
	}
	const ox_str *s = src->data;
	ox_str *d = dst->data;
	for (int64_t i = 0; i < src->count; i++)
		if (!ox_str_set(&d[i], s[i].p, s[i].n))
			return false;
	return true;
}

/* ---- narrow floats --------------------------------------------------------------- */

static inline uint32_t f2u(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static inline float u2f(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

float ox_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
	if (e == 0x1f)
		return u2f(sign | 0x7f800000 | (m << 13));
	if (e == 0) /* zero and subnormals: m * 2^-24 */
		return u2f(sign) + (sign ? -1.0f : 1.0f) * (float)m * 0x1p-24f;
	return u2f(sign | ((e + 112) << 23) | (m << 13));
}

uint16_t ox_f32_to_f16(float f)
{
	uint32_t u = f2u(f), sign = (u >> 16) & 0x8000, a = u & 0x7fffffff;
	if (a >= 0x7f800000) /* inf or NaN (kept quiet) */
		return (uint16_t)(sign | 0x7c00 | (a > 0x7f800000 ? 0x200 | ((a >> 13) & 0x3ff) : 0));
	if (a >= 0x477ff000) /* rounds to beyond 65504 */
		return (uint16_t)(sign | 0x7c00);
	if (a < 0x38800000) { /* below the smallest normal: round in the subnormal grid */
		float r = u2f(a) * 0x1p24f; /* exact scaling; nearbyint rounds to even */
		return (uint16_t)(sign | (uint32_t)nearbyintf(r));
	}
	uint32_t m = a + 0xfff + ((a >> 13) & 1) - 0x38000000; /* rebias by 112 << 23 */
	return (uint16_t)(sign | (m >> 13));
}

float ox_bf16_to_f32(uint16_t h)
{
	return u2f((uint32_t)h << 16);
}

uint16_t ox_f32_to_bf16(float f)
{
	uint32_t u = f2u(f);
	if ((u & 0x7fffffff) > 0x7f800000)
		return (uint16_t)((u >> 16) | 0x40);
	return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

/* The float8 formats of the element-type table, as the conversions below use them:
 * "FNUZ" (one NaN at 0x80, no negative zero, no infinity), "FN" (NaN at all ones, no
 * infinity) or IEEE-like (E5M2: infinities and NaNs). */
typedef struct f8fmt {
	int mbits, bias;
	bool fnuz, fn;
	float max;
} f8fmt;

static f8fmt f8_format(int type)
{
	const ox_float_format *f = ox_elem_narrow(type);
	return (f8fmt){f->mbits, f->bias, f->nan == OX_NAN_FNUZ, f->nan == OX_NAN_ALL_ONES, (float)f->max};
}

float ox_f8_to_f32(int type, uint8_t b)
{
	if (type == OX_FLOAT8E8M0)
		return b == 0xff ? NAN : ldexpf(1.0f, (int)b - 127);
	f8fmt F = f8_format(type);
	int ebits = 7 - F.mbits, emax = (1 << ebits) - 1;
	int e = (b >> F.mbits) & emax, m = b & ((1 << F.mbits) - 1);
	bool neg = b & 0x80;
	if (F.fnuz && b == 0x80)
		return NAN;
	if (F.fn && (b & 0x7f) == 0x7f)
		return NAN;
	if (!F.fnuz && !F.fn && e == emax)
		return m ? NAN : (neg ? -INFINITY : INFINITY);
	float v = e ? ldexpf(1.0f + (float)m / (float)(1 << F.mbits), e - F.bias)
		    : ldexpf((float)m / (float)(1 << F.mbits), 1 - F.bias);
	return neg ? -v : v;
}

/* Rounds |f| to nearest-even on the format's grid, giving a code without the sign, or
 * -1 when the rounded value exceeds the largest finite one. */
static int f8_round(const f8fmt *F, float a)
{
	int ebits = 7 - F->mbits;
	int e;
	frexpf(a, &e); /* a = x * 2^e, x in [0.5, 1) so the unit exponent is e - 1 */
	int E = e - 1 + F->bias;
	if (E < 1)
		E = 1; /* subnormal range: fixed quantum */
	float q = ldexpf(1.0f, E - F->bias - F->mbits);
	float k = nearbyintf(a / q); /* exact division by a power of two */
	float r = k * q;
	if (r > F->max)
		return -1;
	/* re-encode r */
	if (r == 0)
		return 0;
	frexpf(r, &e);
	E = e - 1 + F->bias;
	int code;
	if (E < 1)
		code = (int)(r / ldexpf(1.0f, 1 - F->bias - F->mbits));
	else
		code = (E << F->mbits) | (int)((ldexpf(r, -(e - 1)) - 1.0f) * (float)(1 << F->mbits));
	(void)ebits;
	return code;
}

uint8_t ox_f32_to_f8(int type, float f, bool saturate)
{
	if (type == OX_FLOAT8E8M0) {
		if (isnan(f) || f <= 0 || isinf(f))
			return f > 0 && saturate ? 0xfe : 0xff;
		int e;
		frexpf(f, &e);
		float lo = ldexpf(1.0f, e - 1);
		int E = (f >= 1.5f * lo ? e : e - 1) + 127;
		return (uint8_t)(E < 0 ? 0 : E > 254 ? (saturate ? 254 : 255) : E);
	}
	f8fmt F = f8_format(type);
	uint8_t sign = signbit(f) ? 0x80 : 0;
	uint8_t nan = F.fnuz ? 0x80 : 0x7f;
	if (isnan(f))
		return F.fnuz ? 0x80 : (uint8_t)(sign | 0x7f);
	float a = fabsf(f);
	int code = isinf(a) ? -1 : f8_round(&F, a);
	if (code < 0) {
		if (saturate && !(isinf(a) && F.fnuz))
			return (uint8_t)(sign | f8_round(&F, F.max));
		if (!F.fn && !F.fnuz)
			return (uint8_t)(sign | 0x7c); /* E5M2 infinity */
		return F.fnuz ? nan : (uint8_t)(sign | nan);
	}
	if (code == 0 && F.fnuz)
		return 0; /* no negative zero */
	return (uint8_t)(sign | code);
}

float ox_f4_to_f32(uint8_t b)
{
	static const float v[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
	return (b & 8) ? -v[b & 7] : v[b & 7];
}

uint8_t ox_f32_to_f4(float f)
{
	static const float mid[7] = {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5.0f};
	uint8_t sign = signbit(f) ? 8 : 0;
	if (isnan(f))
		return 0x7;
	float a = fabsf(f);
	uint8_t c = 0;
	while (c < 7 && (a > mid[c] || (a == mid[c] && (c & 1)))) /* ties to the even code */
		c++;
	return (uint8_t)(sign | c);
}

/* ---- generic element access ------------------------------------------------------ */

double ox_get_f64(const ox_val *t, int64_t i)
{
	const void *d = t->data;
	switch (t->type) {
	case OX_FLOAT: return ((const float *)d)[i];
	case OX_DOUBLE: return ((const double *)d)[i];
	case OX_UINT8: case OX_UINT4: case OX_UINT2: case OX_BOOL: return ((const uint8_t *)d)[i];
	case OX_INT8: case OX_INT4: case OX_INT2: return ((const int8_t *)d)[i];
	case OX_UINT16: return ((const uint16_t *)d)[i];
	case OX_INT16: return ((const int16_t *)d)[i];
	case OX_INT32: return ((const int32_t *)d)[i];
	case OX_INT64: return (double)((const int64_t *)d)[i];
	case OX_UINT32: return ((const uint32_t *)d)[i];
	case OX_UINT64: return (double)((const uint64_t *)d)[i];
	case OX_FLOAT16: return ox_f16_to_f32(((const uint16_t *)d)[i]);
	case OX_BFLOAT16: return ox_bf16_to_f32(((const uint16_t *)d)[i]);
	case OX_COMPLEX64: return ((const float *)d)[2 * i];
	case OX_COMPLEX128: return ((const double *)d)[2 * i];
	case OX_FLOAT4E2M1: return ox_f4_to_f32(((const uint8_t *)d)[i]);
	case OX_FLOAT8E4M3FN: case OX_FLOAT8E4M3FNUZ: case OX_FLOAT8E5M2: case OX_FLOAT8E5M2FNUZ:
	case OX_FLOAT8E8M0:
		return ox_f8_to_f32(t->type, ((const uint8_t *)d)[i]);
	default: return 0;
	}
}

/* C conversion of an out-of-range double to an integer is undefined; wrap through
 * int64/uint64 the way common hardware does for in-range values, and saturate the rest. */
int64_t ox_f64_to_i64(double x)
{
	if (isnan(x))
		return 0;
	if (x >= 9223372036854775807.0)
		return INT64_MAX;
	if (x <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)x;
}

void ox_set_f64(ox_val *t, int64_t i, double x)
{
	void *d = t->data;
	switch (t->type) {
	case OX_FLOAT: ((float *)d)[i] = (float)x; break;
	case OX_DOUBLE: ((double *)d)[i] = x; break;
	case OX_BOOL: ((uint8_t *)d)[i] = x != 0; break;
	case OX_FLOAT16: ((uint16_t *)d)[i] = ox_f32_to_f16((float)x); break;
	case OX_BFLOAT16: ((uint16_t *)d)[i] = ox_f32_to_bf16((float)x); break;
	case OX_COMPLEX64: ((float *)d)[2 * i] = (float)x; ((float *)d)[2 * i + 1] = 0; break;
	case OX_COMPLEX128: ((double *)d)[2 * i] = x; ((double *)d)[2 * i + 1] = 0; break;
	case OX_FLOAT4E2M1: ((uint8_t *)d)[i] = ox_f32_to_f4((float)x); break;
	case OX_FLOAT8E4M3FN: case OX_FLOAT8E4M3FNUZ: case OX_FLOAT8E5M2: case OX_FLOAT8E5M2FNUZ:
	case OX_FLOAT8E8M0:
		((uint8_t *)d)[i] = ox_f32_to_f8(t->type, (float)x, true);
		break;
	case OX_UINT64:
		((uint64_t *)d)[i] = x >= 18446744073709551615.0 ? UINT64_MAX
				     : x >= 0 ? (uint64_t)x : (uint64_t)ox_f64_to_i64(x);
		break;
	default: ox_set_i64(t, i, ox_f64_to_i64(x)); break;
	}
}

int64_t ox_get_i64(const ox_val *t, int64_t i)
{
	const void *d = t->data;
	switch (t->type) {
	case OX_INT64: return ((const int64_t *)d)[i];
	case OX_UINT64: return (int64_t)((const uint64_t *)d)[i];
	case OX_INT32: return ((const int32_t *)d)[i];
	case OX_UINT32: return ((const uint32_t *)d)[i];
	default: return ox_f64_to_i64(ox_get_f64(t, i));
	}
}

/* Sub-byte integers keep their low bits, sign-extended for the signed ones. */
static int8_t wrap_signed(int64_t x, int bits)
{
	int sh = 64 - bits;
	return (int8_t)((int64_t)((uint64_t)x << sh) >> sh);
}

void ox_set_i64(ox_val *t, int64_t i, int64_t x)
{
	void *d = t->data;
	switch (t->type) {
	case OX_INT64: ((int64_t *)d)[i] = x; break;
	case OX_UINT64: ((uint64_t *)d)[i] = (uint64_t)x; break;
	case OX_INT32: ((int32_t *)d)[i] = (int32_t)(uint32_t)x; break;
	case OX_UINT32: ((uint32_t *)d)[i] = (uint32_t)x; break;
	case OX_INT16: ((int16_t *)d)[i] = (int16_t)(uint16_t)x; break;
	case OX_UINT16: ((uint16_t *)d)[i] = (uint16_t)x; break;
	case OX_INT8: ((int8_t *)d)[i] = (int8_t)(uint8_t)x; break;
	case OX_UINT8: ((uint8_t *)d)[i] = (uint8_t)x; break;
	case OX_BOOL: ((uint8_t *)d)[i] = x != 0; break;
	case OX_UINT4: ((uint8_t *)d)[i] = (uint8_t)(x & 0xf); break;
	case OX_INT4: ((int8_t *)d)[i] = wrap_signed(x, 4); break;
	case OX_UINT2: ((uint8_t *)d)[i] = (uint8_t)(x & 0x3); break;
	case OX_INT2: ((int8_t *)d)[i] = wrap_signed(x, 2); break;
	default: ox_set_f64(t, i, (double)x); break;
	}
}

/* "float[2,3]", "a sequence", ...: what a value is, for messages. */
const char *ox_val_describe(const ox_val *v, char *buf, size_t size)
{
	if (!v)
		return "nothing";
	if (v->kind == OX_SEQUENCE)
		return "a sequence";
	if (v->kind == OX_OPTIONAL)
		return "an optional";
	if (v->kind == OX_MAP)
		return "a map";
	size_t n = (size_t)snprintf(buf, size, "%s[", ox_elem_label(v->type));
	for (int i = 0; i < v->rank && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%lld", i ? "," : "", (long long)v->dims[i]);
	if (n < size)
		snprintf(buf + n, size - n, "]");
	return buf;
}
