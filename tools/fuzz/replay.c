/* Runs a fuzz harness over files instead of under libFuzzer, so that the seed corpus and
 * every regression input in corpus/fuzz/ are replayed by meson test in each build (plain,
 * ASan+UBSan, valgrind). Arguments are files or directories (their files, sorted); after
 * --text-to-binary, each text model is parsed and its packed bytes are fed instead, until
 * --raw. Prints TAP; a broken property aborts. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count;

static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	uint8_t *buf = malloc(cap);
	for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
		n += got;
		if (n == cap)
			buf = realloc(buf, cap *= 2);
	}
	fclose(f);
	*len = n;
	return buf;
}

static void run_file(const char *path, int to_binary)
{
	size_t len;
	uint8_t *data = read_all(path, &len);
	if (!data) {
		printf("not ok %d - %s: cannot read\n", ++count, path);
		return;
	}
	if (to_binary) {
		Onnx__ModelProto *m;
		OnnxError err;
		if (OnnxParser_Parse((const char *)data, len, &m, &err) != ONNXTXT_OK) {
			free(data);
			return; /* not a model: nothing to convert */
		}
		free(data);
		data = fz_pack(m, &len);
		OnnxProto_Free(m);
	}
	/* an exact-size copy, so that a sanitizer sees any read past the end */
	uint8_t *copy = malloc(len ? len : 1);
	memcpy(copy, data, len);
	free(data);
	LLVMFuzzerTestOneInput(copy, len);
	free(copy);
	printf("ok %d - %s\n", ++count, path);
	fflush(stdout);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static void run_path(const char *path, int to_binary)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		printf("not ok %d - %s: missing\n", ++count, path);
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		run_file(path, to_binary);
		return;
	}
	struct dirent **names;
	int n = scandir(path, &names, NULL, by_name);
	for (int i = 0; i < n; i++) {
		char *full;
		if (names[i]->d_name[0] != '.' && asprintf(&full, "%s/%s", path, names[i]->d_name) >= 0) {
			if (stat(full, &st) == 0 && S_ISREG(st.st_mode))
				run_file(full, to_binary);
			free(full);
		}
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	int to_binary = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--text-to-binary") == 0)
			to_binary = 1;
		else if (strcmp(argv[i], "--raw") == 0)
			to_binary = 0;
		else
			run_path(argv[i], to_binary);
	}
	printf("1..%d\n", count);
	return 0;
}
