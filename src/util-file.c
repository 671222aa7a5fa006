/* SPDX-License-Identifier: MIT */
/*
 * Internal helpers, files and process state (util.h): the input size
 * limit, the files this process has read, bounded reading, temporary files
 * removed on signals, and writes that replace a file atomically and only
 * as a regular file (docs/security.md).
 * Thread safety: the input limit and the lists of inputs and temporaries
 * are process state, guarded by their locks; everything else is reentrant.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <locale.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

/* ---- input size limit ---- */

/* Set by file_set_input_limit() (the command's --max-input-size); 0 = not set. */
static uint64_t input_limit_override;

bool
parse_byte_size(const char *s, uint64_t *ret)
{
	static const struct {
		const char *suffix;
		uint64_t scale;
	} units[] = {
		{ "", 1 }, { "B", 1 },
		{ "K", 1ull << 10 }, { "KiB", 1ull << 10 }, { "M", 1ull << 20 }, { "MiB", 1ull << 20 },
		{ "G", 1ull << 30 }, { "GiB", 1ull << 30 }, { "T", 1ull << 40 }, { "TiB", 1ull << 40 },
	};
	unsigned long long v;
	char *end;
	size_t i;

	/* Digits only: strtoull would accept blanks and a sign, and wrap "-5". */
	if (!s || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE || v == 0)
		return false;
	for (i = 0; i < ARRAY_LENGTH(units); i++) {
		if (strcmp(end, units[i].suffix) == 0) {
			if (v > UINT64_MAX / units[i].scale)
				return false;
			*ret = (uint64_t)v * units[i].scale;
			return true;
		}
	}
	return false;
}

void
file_set_input_limit(uint64_t bytes)
{
	__atomic_store_n(&input_limit_override, bytes, __ATOMIC_RELAXED);
}

int
file_input_limit(uint64_t *ret, bool *ret_explicit, struct gpuproj_error *err)
{
	uint64_t v = __atomic_load_n(&input_limit_override, __ATOMIC_RELAXED);
	const char *env;

	if (ret_explicit)
		*ret_explicit = true;
	if (v) {
		*ret = v;
		return GPUPROJ_OK;
	}
	env = getenv("GPUPROJ_MAX_INPUT_SIZE");
	if (env && *env) {
		if (!parse_byte_size(env, &v))
			return error_set(err, GPUPROJ_E_INVAL, NULL, 0, 0,
					 "GPUPROJ_MAX_INPUT_SIZE='%s' is not a size in bytes "
					 "(a positive integer, optionally with K, M, G or T)", env);
		*ret = v;
		return GPUPROJ_OK;
	}
	if (ret_explicit)
		*ret_explicit = false;
	*ret = GPUPROJ_INPUT_LIMIT_DEFAULT;
	return GPUPROJ_OK;
}

char *
format_bytes(uint64_t n, char *buf, size_t size)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	size_t i;

	if (n < 1024) {
		snprintf(buf, size, "%" PRIu64 " bytes", n);
		return buf;
	}
	for (i = 0; i + 1 < ARRAY_LENGTH(units) && v >= 1024.0 * 1024.0; i++)
		v /= 1024.0;
	v /= 1024.0;
	if (v == floor(v))
		snprintf(buf, size, "%.0f %s", v, units[i]);
	else
		snprintf(buf, size, "%.1f %s", v, units[i]);
	return buf;
}

static int
too_big(struct gpuproj_error *err, const char *path, uint64_t size, bool exact, uint64_t limit,
	const char *what)
{
	char a[32], b[32];

	return error_set(err, GPUPROJ_E_LIMIT, path, 0, 0,
			 "%s %s%s, larger than the limit of %s for %s (raise it with "
			 "--max-input-size or GPUPROJ_MAX_INPUT_SIZE)", exact ? "is" : "holds",
			 exact ? "" : "more than ", format_bytes(exact ? size : limit, a, sizeof(a)),
			 format_bytes(limit, b, sizeof(b)), what);
}

/* ---- files this process has read (never overwritten: file_check_output()) ---- */

struct input_file {
	dev_t dev;
	ino_t ino;
	char *path;
};

static pthread_mutex_t inputs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct input_file *inputs;
static size_t n_inputs, cap_inputs;
static bool protect_inputs;

void
file_protect_inputs(bool on)
{
	__atomic_store_n(&protect_inputs, on, __ATOMIC_RELAXED);
}

/* Remember a regular file that was read. Best effort: on ENOMEM it is not remembered. */
static void
note_input(const struct stat *st, const char *path)
{
	size_t i;

	if (!S_ISREG(st->st_mode) || !__atomic_load_n(&protect_inputs, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&inputs_lock);
	for (i = 0; i < n_inputs; i++) {
		if (inputs[i].dev == st->st_dev && inputs[i].ino == st->st_ino)
			goto out;
	}
	if (n_inputs == cap_inputs) {
		size_t cap = cap_inputs ? cap_inputs * 2 : 16;
		struct input_file *v = realloc(inputs, cap * sizeof(*v));

		if (!v)
			goto out;
		inputs = v;
		cap_inputs = cap;
	}
	inputs[n_inputs].path = strdup(path);
	if (!inputs[n_inputs].path)
		goto out;
	inputs[n_inputs].dev = st->st_dev;
	inputs[n_inputs].ino = st->st_ino;
	n_inputs++;
out:
	pthread_mutex_unlock(&inputs_lock);
}

bool
file_same(const char *a, const char *b)
{
	struct stat sa, sb;

	return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

void
file_note_input(const char *path)
{
	struct stat st;

	if (path && strcmp(path, "-") != 0 && stat(path, &st) == 0)
		note_input(&st, path);
}

int
file_check_output(const char *path, struct gpuproj_error *err)
{
	struct stat st;
	size_t i;
	int r = GPUPROJ_OK;

	/* stat() follows symbolic links; hard links share the inode. */
	if (!path || strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return GPUPROJ_OK;
	pthread_mutex_lock(&inputs_lock);
	for (i = 0; i < n_inputs; i++) {
		if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino) {
			if (strcmp(inputs[i].path, path) == 0)
				r = error_set(err, GPUPROJ_E_INVAL, path, 0, 0,
					      "is an input of this command; refusing to overwrite it "
					      "(name another output file)");
			else
				r = error_set(err, GPUPROJ_E_INVAL, path, 0, 0,
					      "is the same file as the input %s; refusing to "
					      "overwrite it (name another output file)", inputs[i].path);
			break;
		}
	}
	pthread_mutex_unlock(&inputs_lock);
	return r;
}

void
file_forget_input(const char *path)
{
	struct stat st;
	size_t i;

	if (!path || stat(path, &st) != 0)
		return;
	pthread_mutex_lock(&inputs_lock);
	for (i = 0; i < n_inputs; i++) {
		if (inputs[i].dev == st.st_dev && inputs[i].ino == st.st_ino) {
			free(inputs[i].path);
			inputs[i] = inputs[--n_inputs];
			break;
		}
	}
	pthread_mutex_unlock(&inputs_lock);
}

void
file_forget_inputs(void)
{
	size_t i;

	pthread_mutex_lock(&inputs_lock);
	for (i = 0; i < n_inputs; i++)
		free(inputs[i].path);
	free(inputs);
	inputs = NULL;
	n_inputs = cap_inputs = 0;
	pthread_mutex_unlock(&inputs_lock);
}

/* ---- reading ---- */

static bool inputs_regular_only;

void
file_inputs_regular_only(bool on)
{
	__atomic_store_n(&inputs_regular_only, on, __ATOMIC_RELAXED);
}

static bool
regular_only(void)
{
	return __atomic_load_n(&inputs_regular_only, __ATOMIC_RELAXED);
}

static const char *file_kind(mode_t m);

int
file_read_limited(const char *path, uint64_t limit, const char *what, char **ret,
		  size_t *ret_len, struct gpuproj_error *err)
{
	bool is_stdin = strcmp(path, "-") == 0;
	const char *name = is_stdin ? "<stdin>" : path;
	uint64_t max;
	size_t len = 0, cap;
	char *buf = NULL;
	struct stat st;
	int fd, r;

	r = file_input_limit(&max, NULL, err);
	if (r)
		return r;
	if (limit && limit < max)
		max = limit;
	if (max > SIZE_MAX - 2)
		max = SIZE_MAX - 2;
	if (!what)
		what = "an input file";
	/* Regular files only: O_NONBLOCK, so a FIFO there cannot block the open. */
	fd = is_stdin ? STDIN_FILENO
		      : open(path, O_RDONLY | O_CLOEXEC | (regular_only() ? O_NONBLOCK : 0));
	if (fd < 0)
		return error_set(err, GPUPROJ_E_IO, name, 0, 0, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) != 0) {
		r = error_set(err, GPUPROJ_E_IO, name, 0, 0, "cannot stat: %s", strerror(errno));
		goto fail;
	}
	if (regular_only() && !is_stdin && !S_ISREG(st.st_mode)) {
		r = error_set(err, GPUPROJ_E_IO, name, 0, 0, "is %s, not a regular file; only regular "
			      "files are read here", file_kind(st.st_mode));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		r = error_set(err, GPUPROJ_E_IO, name, 0, 0, "is a directory");
		goto fail;
	}
	/* A regular file's size is known before reading: refuse without reading. */
	if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > max) {
		r = too_big(err, name, (uint64_t)st.st_size, true, max, what);
		goto fail;
	}
	cap = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 1 : 65536;
	if (cap > max + 1)
		cap = (size_t)max + 1;
	buf = malloc(cap + 1);
	if (!buf) {
		r = error_set(err, GPUPROJ_E_NOMEM, name, 0, 0, "out of memory reading %s",
			      format_bytes(cap, (char[32]){ 0 }, 32));
		goto fail;
	}
	for (;;) {
		ssize_t n;

		if (len == cap) {
			/* Pipes, devices and growing files: at most max + 1 bytes are kept. */
			size_t ncap = cap > (size_t)max / 2 ? (size_t)max + 1 : cap * 2;
			char *nb;

			if (len > max) {
				r = too_big(err, name, 0, false, max, what);
				goto fail;
			}
			nb = realloc(buf, ncap + 1);
			if (!nb) {
				r = error_set(err, GPUPROJ_E_NOMEM, name, 0, 0,
					      "out of memory after reading %s",
					      format_bytes(len, (char[32]){ 0 }, 32));
				goto fail;
			}
			buf = nb;
			cap = ncap;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = error_set(err, GPUPROJ_E_IO, name, 0, 0, "read error: %s", strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > max) {
		r = too_big(err, name, 0, false, max, what);
		goto fail;
	}
	if (!is_stdin) {
		note_input(&st, path);
		close(fd);
	}
	buf[len] = '\0';
	if (ret_len)
		*ret_len = len;
	*ret = buf;
	return GPUPROJ_OK;
fail:
	free(buf);
	if (!is_stdin)
		close(fd);
	return r;
}

int
file_reader_open(struct file_reader *r, const char *path, uint64_t limit, const char *what,
		 struct gpuproj_error *err)
{
	int st;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	r->is_stdin = strcmp(path, "-") == 0;
	r->path = path;
	r->name = r->is_stdin ? "<stdin>" : path;
	r->what = what ? what : "an input file";
	st = file_input_limit(&r->max, NULL, err);
	if (st)
		return st;
	if (limit && limit < r->max)
		r->max = limit;
	r->fd = r->is_stdin ? STDIN_FILENO
			    : open(path, O_RDONLY | O_CLOEXEC | (regular_only() ? O_NONBLOCK : 0));
	if (r->fd < 0)
		return error_set(err, GPUPROJ_E_IO, r->name, 0, 0, "cannot open: %s",
				 strerror(errno));
	if (fstat(r->fd, &r->st) != 0) {
		st = error_set(err, GPUPROJ_E_IO, r->name, 0, 0, "cannot stat: %s", strerror(errno));
		goto fail;
	}
	if (S_ISDIR(r->st.st_mode)) {
		st = error_set(err, GPUPROJ_E_IO, r->name, 0, 0, "is a directory");
		goto fail;
	}
	if (regular_only() && !r->is_stdin && !S_ISREG(r->st.st_mode)) {
		st = error_set(err, GPUPROJ_E_IO, r->name, 0, 0, "is %s, not a regular file; only "
			       "regular files are read here", file_kind(r->st.st_mode));
		goto fail;
	}
	/* A regular file's size is known before reading: refuse without reading. */
	if (S_ISREG(r->st.st_mode) && (uint64_t)r->st.st_size > r->max) {
		st = too_big(err, r->name, (uint64_t)r->st.st_size, true, r->max, r->what);
		goto fail;
	}
	return GPUPROJ_OK;
fail:
	if (!r->is_stdin)
		close(r->fd);
	r->fd = -1;
	return st;
}

ssize_t
file_reader_read(struct file_reader *r, char *buf, size_t size, struct gpuproj_error *err)
{
	for (;;) {
		ssize_t n = read(r->fd, buf, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error_set(err, GPUPROJ_E_IO, r->name, 0, 0, "read error: %s", strerror(errno));
			return -1;
		}
		r->total += (uint64_t)n;
		/* Pipes, devices and growing files: refused once past the limit. */
		if (r->total > r->max) {
			too_big(err, r->name, 0, false, r->max, r->what);
			return -1;
		}
		return n;
	}
}

void
file_reader_close(struct file_reader *r, bool ok)
{
	if (r->fd < 0)
		return;
	if (!r->is_stdin) {
		if (ok)
			note_input(&r->st, r->path);
		close(r->fd);
	}
	r->fd = -1;
}

int
file_read_all(const char *path, char **ret, size_t *ret_len, struct gpuproj_error *err)
{
	return file_read_limited(path, 0, NULL, ret, ret_len, err);
}

/* ---- temporary files of writes in progress, removed on SIGINT/SIGTERM/SIGHUP ---- */

/*
 * A fixed table, so the signal handler touches no lock and no heap: a slot
 * is claimed (1), filled, then published (2); the handler unlinks the
 * paths of published slots only. Writes beyond TMP_SLOTS at once are not
 * covered (the CLI writes one file at a time).
 */
#define TMP_SLOTS 16
static struct {
	int state; /* 0 free, 1 being filled, 2 published */
	char path[PATH_MAX];
} tmp_slots[TMP_SLOTS];

static int
tmp_register(const char *path)
{
	size_t len = strlen(path);
	int i;

	if (len >= PATH_MAX)
		return -1;
	for (i = 0; i < TMP_SLOTS; i++) {
		int expected = 0;

		if (__atomic_compare_exchange_n(&tmp_slots[i].state, &expected, 1, false,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			memcpy(tmp_slots[i].path, path, len + 1);
			__atomic_store_n(&tmp_slots[i].state, 2, __ATOMIC_RELEASE);
			return i;
		}
	}
	return -1;
}

static void
tmp_unregister(int slot)
{
	if (slot >= 0)
		__atomic_store_n(&tmp_slots[slot].state, 0, __ATOMIC_RELEASE);
}

void
file_remove_temporaries(void)
{
	int i;

	for (i = 0; i < TMP_SLOTS; i++) {
		if (__atomic_load_n(&tmp_slots[i].state, __ATOMIC_ACQUIRE) == 2)
			unlink(tmp_slots[i].path); /* async-signal-safe */
	}
}

static void
on_fatal_signal(int sig)
{
	int e = errno;

	file_remove_temporaries();
	/* Die of the same signal, so the parent sees why (shells print "Terminated"). */
	signal(sig, SIG_DFL);
	raise(sig);
	errno = e;
}

int
file_remove_temporaries_on_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	size_t i;

	for (i = 0; i < ARRAY_LENGTH(sigs); i++) {
		struct sigaction sa, old;

		/* A signal the parent ignores (nohup: SIGHUP) stays ignored. */
		if (sigaction(sigs[i], NULL, &old) != 0)
			return -1;
		if (old.sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_fatal_signal;
		sigemptyset(&sa.sa_mask);
		if (sigaction(sigs[i], &sa, NULL) != 0)
			return -1;
	}
	return 0;
}

static void (*write_hook)(const char *tmp_path, size_t written, size_t total);

void
file_write_set_test_hook(void (*hook)(const char *tmp_path, size_t written, size_t total))
{
	write_hook = hook;
}

/*
 * Write all `len` bytes to `fd` in chunks of 1 MiB, retrying after EINTR.
 * Returns 0 or the errno of the failure.
 */
static int
write_all(int fd, const char *data, size_t len, const char *tmp_path)
{
	size_t off = 0;

	while (off < len) {
		size_t chunk = len - off > ((size_t)1 << 20) ? (size_t)1 << 20 : len - off;
		ssize_t w = write(fd, data + off, chunk);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		off += (size_t)w;
		if (write_hook && tmp_path)
			write_hook(tmp_path, off, len);
	}
	return 0;
}

/* What lstat() says a path is, for messages. */
static const char *
file_kind(mode_t m)
{
	if (S_ISLNK(m))
		return "a symbolic link";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISDIR(m))
		return "a directory";
	return "not a regular file";
}

int
file_check_regular(const char *path, struct gpuproj_error *err)
{
	struct stat st;

	if (lstat(path, &st) != 0 || S_ISREG(st.st_mode))
		return GPUPROJ_OK;
	return error_set(err, GPUPROJ_E_IO, path, 0, 0,
			 "is %s, not a regular file; only a regular file is created or replaced "
			 "there", file_kind(st.st_mode));
}

/*
 * rename() that never replaces `path` (RENAME_NOREPLACE, Linux 3.15; on a
 * file system without it, link() + unlink(), which fails on an existing
 * name as well). -1 with errno EEXIST when `path` exists.
 */
static int
rename_noreplace(const char *tmp, const char *path)
{
	struct stat st;

	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
		return -1;
	if (link(tmp, path) == 0) {
		unlink(tmp);
		return 0;
	}
	if (errno == EEXIST)
		return -1;
	/* No hard links either (some FUSE and network file systems): check, then rename. */
	if (lstat(path, &st) == 0) {
		errno = EEXIST;
		return -1;
	}
	return rename(tmp, path);
}

/* Whether `st` (lstat()) is the regular file `old` described: device, inode, mtime. */
static bool
same_file(const struct stat *st, const struct stat *old)
{
	return S_ISREG(st->st_mode) && st->st_dev == old->st_dev && st->st_ino == old->st_ino &&
	       st->st_mtim.tv_sec == old->st_mtim.tv_sec &&
	       st->st_mtim.tv_nsec == old->st_mtim.tv_nsec;
}

/*
 * After rename_noreplace() found `path` taken: replace it only if it is
 * still the file `old` described. renameat2(RENAME_EXCHANGE) swaps the two
 * names in one step, so what is checked is what was replaced: the file now
 * at `tmp` is removed if it is `old`, else (another process's profile, put
 * there since) the names are swapped back. Without the exchange (NFS and
 * other file systems without it), lstat() then rename(). -1 with errno
 * EEXIST when `path` is another file.
 */
static int
rename_over_same(const char *tmp, const char *path, const struct stat *old)
{
	struct stat st;

	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) == 0) {
		if (lstat(tmp, &st) == 0 && same_file(&st, old)) {
			unlink(tmp);
			return 0;
		}
		/*
		 * Put theirs back. Should `path` have gone meanwhile, theirs still
		 * gets the name, and ours, now at `path`, is replaced by it: the
		 * caller writes its report under another name.
		 */
		if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE) != 0)
			rename(tmp, path);
		errno = EEXIST;
		return -1;
	}
	if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
		return -1;
	if (lstat(path, &st) == 0 && same_file(&st, old))
		return rename(tmp, path);
	errno = EEXIST;
	return -1;
}

void
file_tmp_abort(struct file_tmp *t)
{
	if (t->f)
		fclose(t->f);
	else if (t->fd >= 0)
		close(t->fd);
	if (t->tmp) {
		unlink(t->tmp);
		tmp_unregister(t->slot);
		free(t->tmp);
	}
	free(t->path);
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->slot = -1;
}

/* Bytes of the destination's name a temporary name keeps (tmp_name()). */
#define TMP_BASE_MAX 32

/*
 * The temporary name beside `path`: "<dir>/.<base>.<pid>.<n>.<ns>", the
 * base cut to TMP_BASE_MAX bytes, so that it is at most 64 bytes: a
 * destination whose own name is valid (up to NAME_MAX) always has a valid
 * temporary one (a 244-byte name would make it exceed NAME_MAX).
 * NULL on ENOMEM.
 */
static char *
tmp_name(const char *path)
{
	static unsigned counter;
	char *dup1 = strdup(path), *dup2 = strdup(path), *r = NULL;
	struct timespec ts;

	if (dup1 && dup2) {
		clock_gettime(CLOCK_REALTIME, &ts);
		r = xasprintf("%s/.%.*s.%ld.%u.%lx", dirname(dup1), TMP_BASE_MAX, basename(dup2),
			      (long)getpid(), __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED),
			      (unsigned long)ts.tv_nsec);
	}
	free(dup1);
	free(dup2);
	return r;
}

int
file_probe_dir(const char *path, struct gpuproj_error *err)
{
	char *dup1 = strdup(path), *dup2 = strdup(path), *tmp = NULL;
	const char *dir, *base;
	int status = GPUPROJ_OK, fd, slot;
	long max;

	if (!dup1 || !dup2) {
		status = error_set(err, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory");
		goto out;
	}
	dir = dirname(dup1);
	base = basename(dup2);
	errno = 0;
	max = pathconf(dir, _PC_NAME_MAX);
	if (max < 0 && errno) {
		status = error_set(err, GPUPROJ_E_IO, path, 0, 0, "its directory %s: %s", dir,
				   strerror(errno));
		goto out;
	}
	if (max > 0 && strlen(base) > (size_t)max) {
		status = error_set(err, GPUPROJ_E_IO, path, 0, 0, "the name is %zu bytes, above "
				   "the %ld its file system allows", strlen(base), max);
		goto out;
	}
	tmp = tmp_name(path);
	if (!tmp) {
		status = error_set(err, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory");
		goto out;
	}
	slot = tmp_register(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0666);
	if (fd < 0) {
		status = error_set(err, GPUPROJ_E_IO, path, 0, 0, "cannot create a file in %s: %s",
				   dir, strerror(errno));
	} else {
		close(fd);
		unlink(tmp);
	}
	tmp_unregister(slot);
out:
	free(tmp);
	free(dup1);
	free(dup2);
	return status;
}

int
file_tmp_open(struct file_tmp *t, const char *path, unsigned flags, struct gpuproj_error *err)
{
	int status;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->slot = -1;
	t->flags = flags;
	if (strcmp(path, "-") == 0) {
		t->f = NULL;
		t->to_stdout = true;
		return GPUPROJ_OK;
	}
	/* Never replace a file this process read (the same inode, through any name). */
	status = file_check_output(path, err);
	if (status)
		return status;
	if (flags & FILE_WRITE_REGULAR) {
		/* lstat(): a planted symbolic link is refused too, whatever it points at. */
		status = file_check_regular(path, err);
		if (status)
			return status;
	} else {
		/*
		 * A target that exists and is not a regular file (/dev/null, a FIFO,
		 * a terminal) cannot be replaced by rename: the command writes to it
		 * in place (a path its user named).
		 */
		struct stat st;

		if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
			if (S_ISDIR(st.st_mode))
				return error_set(err, GPUPROJ_E_IO, path, 0, 0, "is a directory");
			t->fd = open(path, O_WRONLY | O_CLOEXEC);
			if (t->fd < 0)
				return error_set(err, GPUPROJ_E_IO, path, 0, 0,
						 "cannot open for writing: %s", strerror(errno));
			t->in_place = true;
			t->path = strdup(path);
			if (!t->path) {
				file_tmp_abort(t);
				return error_set(err, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory");
			}
			return GPUPROJ_OK;
		}
	}
	t->path = strdup(path);
	if (!t->path) {
		status = error_set(err, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory");
		goto fail;
	}
	/*
	 * open(O_CREAT | O_EXCL, 0666) under a fresh name, so the kernel applies
	 * the process umask (mkstemp creates 0600, and reading the umask back
	 * would mean changing it, racing other threads of an application we run
	 * inside). O_EXCL never follows a symbolic link; O_NOFOLLOW and
	 * O_NONBLOCK say so twice (nothing planted there can make us block).
	 * The name is registered before the file exists, so a signal at any
	 * point after creation finds it (file_remove_temporaries()).
	 */
	{
		unsigned attempt;

		for (attempt = 0; attempt < 100; attempt++) {
			tmp_unregister(t->slot);
			free(t->tmp);
			t->tmp = tmp_name(path);
			if (!t->tmp) {
				t->slot = -1;
				status = error_set(err, GPUPROJ_E_NOMEM, path, 0, 0, "out of memory");
				goto fail;
			}
			t->slot = tmp_register(t->tmp);
			t->fd = open(t->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW |
					     O_NONBLOCK, 0666);
			if (t->fd >= 0 || errno != EEXIST)
				break;
		}
	}
	if (t->fd < 0) {
		status = error_set(err, GPUPROJ_E_IO, path, 0, 0,
				   "cannot create a temporary file beside it: %s", strerror(errno));
		goto fail;
	}
	return GPUPROJ_OK;
fail:
	file_tmp_abort(t);
	return status;
}

FILE *
file_tmp_stream(struct file_tmp *t)
{
	if (t->to_stdout)
		return stdout;
	if (!t->f && t->fd >= 0)
		t->f = fdopen(t->fd, "w");
	return t->f;
}

int
file_tmp_write(struct file_tmp *t, const char *data, size_t len)
{
	if (t->to_stdout)
		return fwrite(data, 1, len, stdout) == len ? 0 : errno ? errno : EIO;
	if (t->f)
		return fwrite(data, 1, len, t->f) == len ? 0 : errno ? errno : EIO;
	return write_all(t->fd, data, len, t->in_place ? NULL : t->tmp);
}

int
file_tmp_commit(struct file_tmp *t, bool *ret_exists, struct gpuproj_error *err)
{
	const char *path = t->path ? t->path : "<stdout>";
	int status = GPUPROJ_OK, renamed;

	if (ret_exists)
		*ret_exists = false;
	if (t->to_stdout) {
		if (fflush(stdout) != 0 || ferror(stdout))
			status = error_set(err, GPUPROJ_E_IO, "<stdout>", 0, 0, "write error: %s",
					   strerror(errno ? errno : EIO));
		memset(t, 0, sizeof(*t));
		t->fd = t->slot = -1;
		return status;
	}
	if (t->f) {
		if (fflush(t->f) != 0 || ferror(t->f)) {
			status = error_set(err, GPUPROJ_E_IO, path, 0, 0, "write error: %s",
					   strerror(errno ? errno : EIO));
			goto out;
		}
	}
	if (t->in_place) {
		int r = t->f ? fclose(t->f) : close(t->fd);

		t->f = NULL;
		t->fd = -1;
		if (r != 0)
			status = error_set(err, GPUPROJ_E_IO, path, 0, 0, "close failed: %s",
					   strerror(errno));
		goto out;
	}
	if (fsync(t->f ? fileno(t->f) : t->fd) != 0 && errno != EINVAL && errno != EROFS) {
		status = error_set(err, GPUPROJ_E_IO, path, 0, 0, "fsync failed: %s",
				   strerror(errno));
		goto out;
	}
	{
		int r = t->f ? fclose(t->f) : close(t->fd);

		t->f = NULL;
		t->fd = -1;
		if (r != 0) {
			status = error_set(err, GPUPROJ_E_IO, path, 0, 0, "close failed: %s",
					   strerror(errno));
			goto out;
		}
	}
	if (t->flags & FILE_WRITE_REGULAR) {
		/* Something planted while we wrote: still never replace it. */
		status = file_check_regular(path, err);
		if (status)
			goto out;
	}
	if (t->flags & FILE_WRITE_NOREPLACE) {
		renamed = rename_noreplace(t->tmp, path);
		if (renamed != 0 && errno == EEXIST && t->have_replaceable)
			renamed = rename_over_same(t->tmp, path, &t->replaceable);
	} else {
		renamed = rename(t->tmp, path);
	}
	if (renamed != 0) {
		if (errno == EEXIST && ret_exists)
			*ret_exists = true;
		status = error_set(err, GPUPROJ_E_IO, path, 0, 0, "cannot rename %s over it: %s",
				   t->tmp, strerror(errno));
		goto out;
	}
	tmp_unregister(t->slot);
	t->slot = -1;
	free(t->tmp);
	t->tmp = NULL;
out:
	file_tmp_abort(t);
	return status;
}

int
file_write_atomic_ex(const char *path, const char *data, size_t len, unsigned flags,
		     const struct stat *replaceable, bool *ret_exists, struct gpuproj_error *err)
{
	struct file_tmp t;
	int status, e;

	if (ret_exists)
		*ret_exists = false;
	status = file_tmp_open(&t, path, flags, err);
	if (status)
		return status;
	if (replaceable) {
		t.have_replaceable = true;
		t.replaceable = *replaceable;
	}
	e = file_tmp_write(&t, data, len);
	if (e) {
		status = error_set(err, GPUPROJ_E_IO, t.to_stdout ? "<stdout>" : path, 0, 0,
				   "write error: %s", strerror(e));
		file_tmp_abort(&t);
		return status;
	}
	return file_tmp_commit(&t, ret_exists, err);
}

int
file_write_atomic(const char *path, const char *data, size_t len, struct gpuproj_error *err)
{
	return file_write_atomic_ex(path, data, len, 0, NULL, NULL, err);
}

