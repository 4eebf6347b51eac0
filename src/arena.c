/* Chained bump allocator: parsed and unpacked models live in one arena and are
 * released with a single free, whatever their shape. Memory is handed out zeroed, so
 * building a message costs no initialisation beyond its descriptor. */
#define _GNU_SOURCE
#include "arena.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "onnxtxt/onnxtxt.h"

#define FIRST_BLOCK 4096u
#define MAX_BLOCK (8u << 20)
#define BIG_BLOCK (2u << 20)
#define ALIGN 8u
#define ROOT_MAGIC 0x6f6e6e7874787431ull /* "onnxtxt1" */

typedef struct block {
	struct block *next;
	size_t size, used;
	size_t mapped; /* bytes mmap'd for this block; 0 when calloc'd */
	max_align_t data[]; /* aligned payload */
} block;

struct ox_arena {
	block *head;
	size_t next_size, total;
	size_t limit; /* of total; 0: none */
	bool over;    /* a block was refused for the limit */
};

size_t ox_memory_base = ONNXTXT_MAX_MEMORY_BASE;

size_t ox_memory_limit(size_t input_len)
{
	size_t k = ONNXTXT_MAX_EXPANSION;
	return input_len > (SIZE_MAX - ox_memory_base) / k ? SIZE_MAX : input_len * k + ox_memory_base;
}

void ox_arena_set_limit(ox_arena *a, size_t limit)
{
	a->limit = limit;
	a->over = false;
}

bool ox_arena_over(const ox_arena *a)
{
	return a->over;
}

typedef struct root_header {
	uint64_t magic;
	ox_arena *arena;
} root_header;

ox_arena *ox_arena_new(void)
{
	ox_arena *a = calloc(1, sizeof *a);
	if (a)
		a->next_size = FIRST_BLOCK;
	return a;
}

static void release(block *b)
{
	if (b->mapped)
		munmap(b, b->mapped);
	else
		free(b);
}

void ox_arena_free(ox_arena *a)
{
	if (!a)
		return;
	for (block *b = a->head, *next; b; b = next) {
		next = b->next;
		release(b);
	}
	free(a);
}

/* Small blocks come from calloc. Large ones are fresh anonymous pages, already zero and
 * returned to the system on free; they are populated in one call rather than faulted in
 * page by page (cold node-heavy parse 171 -> 160 ms), as blocks fill before the next one
 * is made. (Huge pages were measured and dropped: in a fresh process the kernel's
 * compaction stalls ate the gain.) */
static block *new_block(size_t payload)
{
	size_t bytes = sizeof(block) + payload;
	if (bytes < BIG_BLOCK) {
		block *b = calloc(1, bytes);
		if (b)
			b->size = payload;
		return b;
	}
	size_t mapped = (bytes + BIG_BLOCK - 1) & ~(size_t)(BIG_BLOCK - 1);
	void *p = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	block *b = p;
	b->mapped = mapped;
	b->size = mapped - sizeof(block);
	return b;
}

static block *grow(ox_arena *a, size_t size)
{
	/* Blocks double up to MAX_BLOCK; a larger request gets a block of its own size. */
	size_t want = a->next_size;
	if (a->next_size < MAX_BLOCK)
		a->next_size *= 2;
	if (size > want)
		want = size;
	if (a->limit && (want > a->limit || a->total > a->limit - want)) {
		a->over = true;
		return NULL;
	}
	block *b = new_block(want);
	if (!b)
		return NULL;
	b->next = a->head;
	a->head = b;
	a->total += b->size;
	return b;
}

void *ox_arena_alloc(ox_arena *a, size_t size)
{
	if (size > SIZE_MAX / 2)
		return NULL;
	size = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	if (size == 0)
		size = ALIGN;
	block *b = a->head;
	if (!b || b->size - b->used < size) {
		b = grow(a, size);
		if (!b)
			return NULL;
	}
	void *p = (char *)b->data + b->used;
	b->used += size;
	return p;
}

void *ox_arena_memdup(ox_arena *a, const void *p, size_t n)
{
	void *q = ox_arena_alloc(a, n);
	if (q && n)
		memcpy(q, p, n);
	return q;
}

char *ox_arena_strndup(ox_arena *a, const char *s, size_t n)
{
	if (n == SIZE_MAX)
		return NULL;
	char *q = ox_arena_alloc(a, n + 1);
	if (q) {
		if (n)
			memcpy(q, s, n);
		q[n] = '\0';
	}
	return q;
}

/* Keeps the largest block and restarts the doubling from its size. Keeping the first
 * (4 KiB) block while next_size stayed at its peak gave every later node with more than
 * 4 KiB of data a fresh 8 MiB populated mapping, unmapped at the next reset (a 1.8 MB
 * model of Constant weights: 9 mappings, 80 MiB pre-faulted, 35 ms of system time). Now a
 * node no larger than the largest so far allocates nothing, and a larger one at most
 * doubles it. */
void ox_arena_reset(ox_arena *a)
{
	block *keep = a->head;
	for (block *b = a->head; b; b = b->next)
		if (b->size > keep->size)
			keep = b;
	for (block *b = a->head, *next; b; b = next) {
		next = b->next;
		if (b != keep) {
			a->total -= b->size;
			release(b);
		}
	}
	a->head = keep;
	if (!keep)
		return;
	keep->next = NULL;
	memset(keep->data, 0, keep->used);
	keep->used = 0;
	a->next_size = keep->size < MAX_BLOCK / 2 ? 2 * keep->size : MAX_BLOCK;
	if (a->next_size < FIRST_BLOCK)
		a->next_size = FIRST_BLOCK;
}

size_t ox_arena_bytes(const ox_arena *a)
{
	return a->total;
}

static void *pb_alloc(void *data, size_t size)
{
	return ox_arena_alloc(data, size);
}

static void pb_free(void *data, void *p)
{
	(void)data;
	(void)p;
}

ProtobufCAllocator ox_arena_allocator(ox_arena *a)
{
	return (ProtobufCAllocator){.alloc = pb_alloc, .free = pb_free, .allocator_data = a};
}

void *ox_arena_root(ox_arena *a, size_t size)
{
	root_header *h = ox_arena_alloc(a, sizeof *h + size);
	if (!h)
		return NULL;
	h->magic = ROOT_MAGIC;
	h->arena = a;
	return h + 1;
}

ox_arena *ox_root_arena(const void *root)
{
	const root_header *h = (const root_header *)root - 1;
	return h->magic == ROOT_MAGIC ? h->arena : NULL;
}

bool ox_grow(void *array, size_t *cap, size_t n, size_t size, size_t first)
{
	if (n < *cap)
		return true;
	size_t c = *cap ? 2 * *cap : first;
	while (c <= n && c <= SIZE_MAX / 2)
		c *= 2;
	void *old, *grown;
	memcpy(&old, array, sizeof old);
	if (c <= n || c > SIZE_MAX / size || !(grown = realloc(old, c * size)))
		return false;
	memcpy(array, &grown, sizeof grown);
	*cap = c;
	return true;
}

void ox_text_put(ox_text *t, const char *s, size_t n)
{
	if (!t->failed && !ox_grow(&t->p, &t->cap, t->n + n, 1, 64))
		t->failed = true;
	if (t->failed)
		return;
	memcpy(t->p + t->n, s, n);
	t->n += n;
	t->p[t->n] = '\0';
}
