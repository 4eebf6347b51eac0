/* File helpers: whole-file reads and atomic writes (temporary file + fsync + rename), so a
 * failed conversion never leaves a truncated or half-replaced output behind. */
#define _GNU_SOURCE
#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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
	if (!path) {
		ox_error_null(err);
		return NULL;
	}
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

/* Files from this size on are mapped rather than read: a read copies every byte into
 * fresh memory that the kernel must first zero, and on light-random shufflenet (a 5.7 MB
 * model) reading was a third of a whole `onnxtxt test` process. Below it, a read costs
 * less than setting up a mapping. The pages are populated at once, so that the whole file
 * is read in one go; a file truncated by another process while it is being parsed can
 * still end in SIGBUS, as with any mapped file. */
#define MAP_MIN ((size_t)1 << 20)

/* Maps the regular file f of at least MAP_MIN bytes into v; false to read it instead. */
static bool map_file(FILE *f, ox_file_view *v)
{
	struct stat st;
	if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < MAP_MIN ||
	    (uint64_t)st.st_size > SIZE_MAX / 2)
		return false;
	void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fileno(f), 0);
	if (p == MAP_FAILED)
		return false;
	*v = (ox_file_view){p, (size_t)st.st_size, (size_t)st.st_size};
	return true;
}

OnnxStatus ox_view_file(const char *path, ox_file_view *v, OnnxError *err)
{
	*v = (ox_file_view){NULL, 0, 0};
	FILE *f = path ? fopen(path, "rb") : NULL;
	bool mapped = f && map_file(f, v);
	if (f)
		fclose(f);
	if (!mapped && !(v->data = ox_read_file(path, &v->len, err)))
		return err->code;
	return ONNXTXT_OK;
}

void ox_file_view_release(ox_file_view *v)
{
	if (v->mapped)
		munmap((void *)v->data, v->mapped);
	else
		free((void *)v->data);
	*v = (ox_file_view){NULL, 0, 0};
}

/* The temporary files of the writes in progress, for OnnxLibrary_RemoveTempFiles, which a
 * program's signal handler calls: fixed slots, so that it needs no allocation and no lock,
 * claimed and released with atomic operations (lock-free on an int, hence safe there). */
enum { TEMP_FREE, TEMP_BUSY, TEMP_READY, TEMP_SLOTS = 16 };
static struct temp_slot {
	int state;
	char path[PATH_MAX];
} temps[TEMP_SLOTS];

/* Records path in a slot (the same one again for the next name of one write); -1 when
 * every slot is taken or the name is too long: that write is then not cleaned up. */
static int temp_record(int slot, const char *path)
{
	size_t n = strlen(path);
	if (slot < 0 && n < PATH_MAX)
		for (int i = 0; i < TEMP_SLOTS && slot < 0; i++) {
			int want = TEMP_FREE;
			if (__atomic_compare_exchange_n(&temps[i].state, &want, TEMP_BUSY, false, __ATOMIC_ACQUIRE,
							__ATOMIC_RELAXED))
				slot = i;
		}
	if (slot < 0)
		return -1;
	if (n >= PATH_MAX) {
		__atomic_store_n(&temps[slot].state, TEMP_FREE, __ATOMIC_RELEASE);
		return -1;
	}
	__atomic_store_n(&temps[slot].state, TEMP_BUSY, __ATOMIC_RELEASE);
	memcpy(temps[slot].path, path, n + 1);
	__atomic_store_n(&temps[slot].state, TEMP_READY, __ATOMIC_RELEASE);
	return slot;
}

static void temp_forget(int slot)
{
	if (slot >= 0)
		__atomic_store_n(&temps[slot].state, TEMP_FREE, __ATOMIC_RELEASE);
}

void OnnxLibrary_RemoveTempFiles(void)
{
	int saved = errno;
	for (int i = 0; i < TEMP_SLOTS; i++)
		if (__atomic_load_n(&temps[i].state, __ATOMIC_ACQUIRE) == TEMP_READY)
			unlink(temps[i].path); /* gone already after a rename: harmless */
	errno = saved;
}

/* A fresh, short name in dir ("dir/.onnxtxt-PID-N.tmp": short, so that a long target
 * name still leaves room), created with O_EXCL so the umask applies as for any new file.
 * The name is recorded (*slot) before the file exists, so that a signal can never come
 * between the two and leave it behind. */
static int create_temp(const char *dir, char **tmp, int *slot)
{
	size_t n = strlen(dir) + 48;
	*tmp = malloc(n);
	if (!*tmp) {
		errno = ENOMEM;
		return -1;
	}
	static unsigned counter;
	for (int attempt = 0; attempt < 100; attempt++) {
		snprintf(*tmp, n, "%s/.onnxtxt-%ld-%u.tmp", dir, (long)getpid(),
			 __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
		*slot = temp_record(*slot, *tmp);
		int fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	return !slash ? strdup(".") : slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
}

/* The file to replace: what a chain of symbolic links leads to, even a target that does
 * not exist yet (the links themselves stay), else path. */
static char *target_of(const char *path)
{
	char *cur = strdup(path);
	struct stat st;
	for (int hops = 0; cur && hops < 40 && lstat(cur, &st) == 0 && S_ISLNK(st.st_mode); hops++) {
		char link[PATH_MAX], *next = NULL;
		ssize_t n = readlink(cur, link, sizeof link - 1);
		if (n < 0)
			break;
		link[n] = '\0';
		char *dir = link[0] == '/' ? NULL : dir_of(cur);
		if (dir ? asprintf(&next, "%s/%s", dir, link) < 0 : !(next = strdup(link)))
			next = NULL;
		free(dir);
		free(cur);
		cur = next;
	}
	return cur;
}

/* Runs write_fn on f and flushes; returns 0 with errno from the call that failed. */
static int run_writer(FILE *f, ox_writer *write_fn, void *ctx, OnnxError *err, bool sync)
{
	errno = 0;
	if (!write_fn(f, ctx, err)) {
		if (err->code == ONNXTXT_ERR_IO) { /* the stream's own failure: said with the path */
			errno = err->sys_errno;
			err->code = ONNXTXT_OK;
		}
		return errno = errno ? errno : EIO, 0;
	}
	if (fflush(f) != 0 || (sync && fsync(fileno(f)) != 0))
		return 0;
	return 1;
}

/* Devices and pipes cannot be replaced, and should not be: write to them as they are. */
static OnnxStatus write_in_place(const char *path, ox_writer *write_fn, void *ctx, OnnxError *err)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return io_error(err, "cannot write", path);
	int ok = run_writer(f, write_fn, ctx, err, false);
	int saved = errno;
	if (fclose(f) != 0 && ok)
		ok = 0, saved = errno;
	errno = saved;
	if (ok)
		return ONNXTXT_OK;
	return err->code != ONNXTXT_OK ? err->code : io_error(err, "cannot write", path);
}

/* Writes into a temporary file in dir, then renames it over target, which keeps its
 * permissions (and owner, where that is allowed) when it exists: old, else NULL. */
static OnnxStatus replace_via(const char *path, const char *target, const char *dir, const struct stat *old,
			      char **tmp, int *slot, ox_writer *write_fn, void *ctx, OnnxError *err)
{
	int fd = create_temp(dir, tmp, slot);
	if (fd < 0 && !*tmp) {
		ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
		return err->code;
	}
	if (fd < 0)
		return io_error(err, "cannot create a temporary file for", path);
	if (old) {
		/* another owner is kept only where that is allowed (root): otherwise the file
		 * becomes ours, as with any editor, and keeps its mode */
		fchown(fd, old->st_uid, old->st_gid);
		fchmod(fd, old->st_mode & 07777);
	}
	FILE *f = fdopen(fd, "wb");
	if (!f) {
		int saved = errno;
		close(fd);
		unlink(*tmp);
		errno = saved;
		return io_error(err, "cannot write", path);
	}
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	int ok = run_writer(f, write_fn, ctx, err, true);
	int saved = errno;
	if (fclose(f) != 0 && ok)
		ok = 0, saved = errno;
	if (ok && rename(*tmp, target) != 0)
		ok = 0, saved = errno;
	if (ok)
		return ONNXTXT_OK;
	unlink(*tmp);
	errno = saved;
	return err->code != ONNXTXT_OK ? err->code : io_error(err, "cannot write", path);
}

/* replace_via, with the temporary file's name kept for a signal handler meanwhile. */
static OnnxStatus replace(const char *path, const char *target, const char *dir, const struct stat *old, char **tmp,
			  ox_writer *write_fn, void *ctx, OnnxError *err)
{
	int slot = -1;
	OnnxStatus st = replace_via(path, target, dir, old, tmp, &slot, write_fn, ctx, err);
	int saved = errno;
	temp_forget(slot);
	errno = saved;
	return st;
}

OnnxStatus ox_write_atomic(const char *path, ox_writer *write_fn, void *ctx, OnnxError *err)
{
	char *target = target_of(path), *dir = target ? dir_of(target) : NULL, *tmp = NULL;
	struct stat st;
	bool exists = target && stat(target, &st) == 0;
	OnnxStatus status;
	if (!target || !dir) {
		ox_error_set(err, ONNXTXT_ERR_NOMEM, "out of memory");
		status = err->code;
	} else if (exists && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		status = io_error(err, "cannot write", path);
	} else if (exists && !S_ISREG(st.st_mode)) {
		status = write_in_place(target, write_fn, ctx, err);
	} else {
		status = replace(path, target, dir, exists ? &st : NULL, &tmp, write_fn, ctx, err);
	}
	free(tmp);
	free(dir);
	free(target);
	return status;
}

int ox_write_bytes(FILE *f, void *ctx, OnnxError *err)
{
	const ox_write_job *job = ctx;
	(void)err; /* a failed write is the stream's own */
	return fwrite(job->p, 1, job->n, f) == job->n;
}
