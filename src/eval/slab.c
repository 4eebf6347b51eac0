/* A session's tensor memory in transparent huge pages: blocks are carved one after the
 * other out of 2 MiB-aligned chunks advised for huge pages, so a session's first run and
 * its folded and packed weights fault their memory in 2 MiB at a time instead of 4 KiB. */
#define _GNU_SOURCE /* madvise, MAP_NORESERVE */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "slab.h"

/* valgrind sees fresh mappings as defined (zeros): a block is marked undefined when it is
 * handed out, as malloc's are, so reads of tensor data never written stay reported */
#if defined(__has_include)
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#endif
#endif
#ifndef VALGRIND_MAKE_MEM_UNDEFINED
#define VALGRIND_MAKE_MEM_UNDEFINED(p, n) ((void)(p), (void)(n))
#endif

/* Measured on light inception_v1 and densenet121 (whole `onnxtxt test` processes): 4 KiB
 * faults were 40% of the CPU time, most of it the kernel's work per fault rather than
 * zeroing pages. */
#define HUGE ((size_t)2 << 20)
#define CHUNK ((size_t)32 << 20)
#define ALIGN ((size_t)64)

typedef struct chunk {
	char *base;
	size_t size;
	ox_slab *owner;
} chunk;

struct ox_slab {
	char *next, *end; /* the free tail of the chunk blocks are carved from */
	size_t live;      /* blocks handed out and not yet released */
	bool closed;      /* the owner is done: unmapped with the last block */
};

/* Every slab's chunks, for telling a slab block from a malloc'd one on release. Blocks
 * may be released on any thread, and sessions run on several at once. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static chunk *chunks;
static size_t nchunks, capchunks;

/* Chunks of slabs that are gone, kept for the next: a session over a small model would
 * otherwise map, fault in (the kernel zeroing a whole huge page) and unmap a chunk each
 * time, which took a one-Relu session on 8 KB from 31 to 72 us. */
#define SPARE_MAX 2
static char *spare[SPARE_MAX];
static size_t nspare;

ox_slab *ox_slab_new(void)
{
	return calloc(1, sizeof(ox_slab));
}

/* A new chunk of at least n bytes for s, registered; false when the system refuses. */
static bool grow(ox_slab *s, size_t n)
{
	size_t size = n > CHUNK ? (n + HUGE - 1) & ~(HUGE - 1) : CHUNK;
	if (nchunks == capchunks) {
		size_t cap = capchunks ? 2 * capchunks : 16;
		chunk *c = realloc(chunks, cap * sizeof *c);
		if (!c)
			return false;
		chunks = c, capchunks = cap;
	}
	if (size == CHUNK && nspare) {
		char *base = spare[--nspare];
		chunks[nchunks++] = (chunk){base, size, s};
		s->next = base, s->end = base + size;
		return true;
	}
	/* mapped one huge page more, then trimmed to a 2 MiB-aligned range; untouched pages
	 * cost nothing */
	char *p = mmap(NULL, size + HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return false;
	char *base = (char *)(((uintptr_t)p + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
	if (base > p)
		munmap(p, (size_t)(base - p));
	munmap(base + size, (size_t)(p + HUGE - base));
	madvise(base, size, MADV_HUGEPAGE); /* advice: a failure changes nothing */
	chunks[nchunks++] = (chunk){base, size, s};
	s->next = base, s->end = base + size;
	return true;
}

void *ox_slab_alloc(ox_slab *s, size_t n)
{
	n = (n + ALIGN - 1) & ~(ALIGN - 1);
	pthread_mutex_lock(&lock);
	void *p = NULL;
	if (n && ((size_t)(s->end - s->next) >= n || grow(s, n))) {
		p = s->next;
		s->next += n;
		s->live++;
	}
	pthread_mutex_unlock(&lock);
	if (p)
		VALGRIND_MAKE_MEM_UNDEFINED(p, n);
	return p;
}

/* Unmaps the chunks of s (or keeps them spare) and forgets them; the lock is held. */
static void unmap(ox_slab *s)
{
	size_t k = 0;
	for (size_t i = 0; i < nchunks; i++)
		if (chunks[i].owner != s)
			chunks[k++] = chunks[i];
		else if (chunks[i].size == CHUNK && nspare < SPARE_MAX)
			spare[nspare++] = chunks[i].base;
		else
			munmap(chunks[i].base, chunks[i].size);
	nchunks = k;
	free(s);
}

/* The slab whose memory holds p, or NULL; the lock is held. */
static ox_slab *owner_of(const void *p)
{
	for (size_t i = 0; p && i < nchunks; i++)
		if ((const char *)p >= chunks[i].base && (const char *)p < chunks[i].base + chunks[i].size)
			return chunks[i].owner;
	return NULL;
}

bool ox_slab_owns(const ox_slab *s, const void *p)
{
	pthread_mutex_lock(&lock);
	bool owns = s && owner_of(p) == s;
	pthread_mutex_unlock(&lock);
	return owns;
}

void ox_slab_retain(void *p)
{
	pthread_mutex_lock(&lock);
	ox_slab *s = owner_of(p);
	if (s)
		s->live++;
	pthread_mutex_unlock(&lock);
}

bool ox_slab_release(void *p)
{
	pthread_mutex_lock(&lock);
	ox_slab *s = owner_of(p);
	if (s && --s->live == 0 && s->closed)
		unmap(s);
	pthread_mutex_unlock(&lock);
	return s != NULL;
}

void ox_slab_close(ox_slab *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&lock);
	s->closed = true;
	if (s->live == 0)
		unmap(s);
	pthread_mutex_unlock(&lock);
}
