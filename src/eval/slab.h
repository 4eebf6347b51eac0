/* A session's tensor memory in transparent huge pages (slab.c). */
#ifndef OX_SLAB_H
#define OX_SLAB_H

#include <stdbool.h>
#include <stddef.h>

typedef struct ox_slab ox_slab;

/* An empty slab; NULL when out of memory. */
ox_slab *ox_slab_new(void);
/* n bytes (rounded up to 64), 64-byte aligned, carved from s; NULL when the system has no
 * more memory for it. Blocks are not reused: they go back to the system together, once s
 * is closed and each of them is released. Any thread. */
void *ox_slab_alloc(ox_slab *s, size_t n);
/* Releases p when it is a block of a slab (true), else does nothing (false). Any thread. */
bool ox_slab_release(void *p);
/* Whether p lies in memory of s. Any thread. */
bool ox_slab_owns(const ox_slab *s, const void *p);
/* Counts one more block at p, which lies in memory of a slab: a block split in two is two
 * blocks to release, and of two blocks merged into one, one is released. */
void ox_slab_retain(void *p);
/* The owner of s is done with it: its memory goes back to the system as soon as every
 * block is released (values the session handed out may outlive it). */
void ox_slab_close(ox_slab *s);

#endif
