/* Chained bump allocator that owns every message onnxtxt hands out. */
#ifndef OX_ARENA_H
#define OX_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <protobuf-c/protobuf-c.h>

typedef struct ox_arena ox_arena;

ox_arena *ox_arena_new(void);
void ox_arena_free(ox_arena *a);

/* 8-byte aligned and zero-filled; NULL when out of memory. */
void *ox_arena_alloc(ox_arena *a, size_t size);
void *ox_arena_memdup(ox_arena *a, const void *p, size_t n);
/* Copies n bytes and appends a NUL. */
char *ox_arena_strndup(ox_arena *a, const char *s, size_t n);
size_t ox_arena_bytes(const ox_arena *a);
/* Refuses blocks that would take the arena beyond limit bytes in all (0: no limit), so
 * that hostile input cannot make one call take memory out of proportion to its size;
 * ox_arena_over() then tells that apart from the system running out of memory. */
void ox_arena_set_limit(ox_arena *a, size_t limit);
bool ox_arena_over(const ox_arena *a);
/* The limit for messages built from input_len bytes: ONNXTXT_MAX_EXPANSION per byte, plus
 * ox_memory_base (ONNXTXT_MAX_MEMORY_BASE; tests lower it to reach the limit cheaply). */
size_t ox_memory_limit(size_t input_len);
extern size_t ox_memory_base;
/* Frees everything but the largest block, which is zeroed for reuse, and restarts the
 * growth from its size: an arena for one short-lived thing at a time (a node being
 * streamed) allocates nothing in steady state. */
void ox_arena_reset(ox_arena *a);

/* Allocator for protobuf_c_message_unpack(); free() is a no-op. */
ProtobufCAllocator ox_arena_allocator(ox_arena *a);

/* Root messages carry a hidden header that names their arena, so that one call
 * (OnnxProto_Free) releases any tree the library returned. */
void *ox_arena_root(ox_arena *a, size_t size);
ox_arena *ox_root_arena(const void *root);

/* Beside the arena, for malloc'd arrays that grow: makes room for element n of the array
 * at *(T **)array, of *cap elements of size bytes (doubling from first as often as it
 * takes); false when out of memory, the array as it was. */
bool ox_grow(void *array, size_t *cap, size_t n, size_t size, size_t first);

/* Text that grows in malloc'd memory, NUL-terminated once written to; `failed` once memory
 * ran out, and what comes after is dropped. */
typedef struct ox_text {
	char *p;
	size_t n, cap;
	bool failed;
} ox_text;

void ox_text_put(ox_text *t, const char *s, size_t n);

#endif
