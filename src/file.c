/* File helpers: whole-file reads and atomic writes (temporary file + fsync + rename), so a
 * failed conversion never leaves a truncated or half-replaced output behind. */
#define _GNU_SOURCE
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"

static OnnxStatus io_error(OnnxError *err, const char *what, const char *path)
{
	int e = errno;
	ox_error_set(err, ONNXTXT_ERR_IO, "%s %s: %s", what, path, strerror(e));
	err->sys_errno = e;
	return ONNXTXT_ERR_IO;
}

char *ox_read_file(const char *path, size_t *len, OnnxError *err)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		io_error(err, "cannot open", path);
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		cap = (size_t)st.st_size + 1;
	char *buf = malloc(cap);
	while (buf) {
		n += fread(buf + n, 1, cap - n - 1, f);
		if (ferror(f) || feof(f))
			break;
		char *bigger = cap < SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
		if (!bigger) {
			free(buf);
			buf = NULL;
			break;
		}
		buf = bigger;
		cap *= 2;
	}
	if (!buf) {
		fclose(f);
		ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory reading %s", path);
		return NULL;
	}
	if (ferror(f)) {
		io_error(err, "cannot read", path);
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* A fresh name beside path, created with O_EXCL so the umask applies as for any new file. */
static int create_temp(const char *path, char **tmp)
{
	size_t n = strlen(path) + 40;
	*tmp = malloc(n);
	if (!*tmp) {
		errno = ENOMEM;
		return -1;
	}
	static unsigned counter;
	for (int attempt = 0; attempt < 100; attempt++) {
		snprintf(*tmp, n, "%s.tmp-%ld-%u", path, (long)getpid(), __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
		int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

OnnxStatus ox_write_atomic(const char *path, ox_writer *write_fn, void *ctx, OnnxError *err)
{
	char *tmp;
	int fd = create_temp(path, &tmp);
	if (fd < 0) {
		OnnxStatus st = io_error(err, "cannot create a temporary file for", path);
		free(tmp);
		return st;
	}
	FILE *f = fdopen(fd, "wb");
	if (!f) {
		close(fd);
		unlink(tmp);
		free(tmp);
		return io_error(err, "cannot write", path);
	}
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	errno = 0;
	int ok = write_fn(f, ctx, err);
	int saved = errno;
	if (ok && fflush(f) == 0 && fsync(fileno(f)) == 0) {
		if (fclose(f) == 0 && rename(tmp, path) == 0) {
			free(tmp);
			return ONNXTXT_OK;
		}
		f = NULL;
	} else {
		errno = saved ? saved : EIO;
	}
	OnnxStatus st = err->code != ONNXTXT_OK ? err->code : io_error(err, "cannot write", path);
	if (f)
		fclose(f);
	unlink(tmp);
	free(tmp);
	return st;
}
