/* SPDX-License-Identifier: MIT */
/*
 * Output of libproj.so (see output.h): the exit report (table on stderr,
 * JSON written to a temporary file and renamed) and the live projection.
 * Everything goes to stderr or files; the application's stdout is never
 * touched.
 *
 * Thread safety: inj_output_live() on the worker thread works on a copy of
 * the profile taken under the collector lock (inj_collector_snapshot());
 * inj_output_final() runs once, after collection stopped, and holds the
 * lock while it reads the profile. Either way a report is a consistent
 * snapshot.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gpuproj/model.h>
#include <gpuproj/project.h>

#include "log.h"
#include "output.h"
#include "profile-private.h"
#include "util.h"

struct inj_output {
	const struct inj_config *cfg;
	const struct inj_backend_ops *backend;
	double start_ns;
	long pid, rank;
	char host[256];
	char *path;			/* expanded GPUPROJ_OUTPUT, absolute (at start-up) */
	char *display;			/* the expanded pattern as given, for messages */
	char *cwd;			/* the working directory at start-up, or NULL */
	char *live_path;		/* <path without .json>.live.json */
	/* The file at `path` at start-up (a profile of an earlier run), if any. */
	bool existed;
	struct stat at_start;
	struct gpuproj_targets *targets;
	char *targets_origin;
	/* live */
	bool live_tty;
	bool live_printed;
	bool live_failed;
	bool source_warned;
};

double
inj_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void
load_targets(struct inj_output *o)
{
	struct gpuproj_error err = { 0 };
	char msg[GPUPROJ_ERROR_MSG_SIZE + GPUPROJ_ERROR_FILE_SIZE + 64];

	if (o->cfg->targets) {
		if (gpuproj_targets_load(o->cfg->targets, &o->targets, &err) == GPUPROJ_OK) {
			o->targets_origin = strdup(o->cfg->targets);
			return;
		}
		inj_warn("GPUPROJ_TARGETS: %s; using the built-in targets.yaml",
			 gpuproj_error_format(&err, msg, sizeof(msg)));
	}
	memset(&err, 0, sizeof(err));
	if (gpuproj_targets_load_builtin(&o->targets, &err) == GPUPROJ_OK) {
		o->targets_origin = strdup("built-in");
		return;
	}
	inj_warn("the built-in targets.yaml does not load (%s): profiles are written without "
		 "projections", gpuproj_error_format(&err, msg, sizeof(msg)));
}

/*
 * Where the report goes when its own place cannot be written
 * (a directory the application's user cannot write, a read-only file
 * system, a directory gone by exit): $TMPDIR when it is absolute, else
 * /tmp, under the report's own name (gpuproj-<pid>.json when that name is
 * longer than 128 bytes). NULL on ENOMEM, or when that is the report's own
 * path (nothing else to try).
 */
static char *
fallback_path(const struct inj_output *o)
{
	const char *dir = secure_getenv("TMPDIR");
	char *dup = strdup(o->path), *r = NULL;
	const char *base;

	if (!dir || dir[0] != '/')
		dir = "/tmp";
	if (dup) {
		base = basename(dup);
		r = strlen(base) > 128 || !*base || strcmp(base, "/") == 0
			    ? xasprintf("%s/gpuproj-%ld.json", dir, o->pid)
			    : xasprintf("%s/%s", dir, base);
	}
	free(dup);
	if (r && strcmp(r, o->path) == 0) {
		free(r);
		r = NULL;
	}
	return r;
}

/*
 * Say at start-up, not at exit, that the report's place
 * cannot be written (file_probe_dir(): a name beyond NAME_MAX, a directory
 * the user cannot write, a read-only file system), and send the report to
 * the fallback place (fallback_path()) when that one can be; the start-up
 * line then names where it goes. -1 on ENOMEM.
 */
static int
probe_output(struct inj_output *o)
{
	struct gpuproj_error err = { 0 }, fe = { 0 };
	char *fb;
	struct stat st;

	if (file_probe_dir(o->path, &err) == GPUPROJ_OK)
		return 0;
	if (err.status == GPUPROJ_E_NOMEM)
		return -1;
	fb = fallback_path(o);
	if (fb && file_probe_dir(fb, &fe) == GPUPROJ_OK) {
		inj_warn("GPUPROJ_OUTPUT: the report cannot be written as %s (%s): it goes to %s "
			 "instead", o->display, err.message, fb);
		free(o->path);
		o->path = fb;
		free(o->display);
		o->display = strdup(fb);
		if (!o->display)
			return -1;
		o->existed = lstat(o->path, &st) == 0 && S_ISREG(st.st_mode);
		if (o->existed)
			o->at_start = st;
		return 0;
	}
	if (fb)
		inj_warn("GPUPROJ_OUTPUT: the report cannot be written as %s (%s), nor as %s "
			 "(%s): at exit it is tried again there", o->display, err.message, fb,
			 fe.message);
	else
		inj_warn("GPUPROJ_OUTPUT: the report cannot be written as %s (%s): at exit it is "
			 "tried again there", o->display, err.message);
	free(fb);
	return 0;
}

/*
 * A relative output path names a file in the working directory at
 * start-up, not in whatever directory the application has chdir()ed to by
 * exit. Also remembers the file already there (an earlier run's profile,
 * which the report may replace; one that appears or changes during the run
 * was written by another process, and is never replaced). -1 on ENOMEM.
 */
static int
resolve_path(struct inj_output *o)
{
	char buf[PATH_MAX];
	struct stat st;

	o->display = strdup(o->path);
	if (!o->display)
		return -1;
	if (getcwd(buf, sizeof(buf))) {
		o->cwd = strdup(buf);
		if (!o->cwd)
			return -1;
	}
	if (o->path[0] != '/') {
		char *abs;

		if (!o->cwd) {
			inj_warn("cannot read the working directory (%s): the report goes to %s in "
				 "the directory the application is in at exit", strerror(errno),
				 o->path);
			return 0;
		}
		abs = xasprintf("%s/%s", o->cwd, o->path);
		if (!abs)
			return -1;
		free(o->path);
		o->path = abs;
	}
	if (lstat(o->path, &st) == 0 && S_ISREG(st.st_mode)) {
		o->existed = true;
		o->at_start = st;
	}
	return 0;
}

struct inj_output *
inj_output_new(const struct inj_config *cfg, const struct inj_backend_ops *backend,
	       double start_ns)
{
	struct inj_output *o = calloc(1, sizeof(*o));

	if (!o)
		goto oom;
	o->cfg = cfg;
	o->backend = backend;
	o->start_ns = start_ns;
	o->pid = (long)getpid();
	o->rank = inj_mpi_rank();
	if (gethostname(o->host, sizeof(o->host) - 1) != 0)
		snprintf(o->host, sizeof(o->host), "localhost");
	o->path = inj_pattern_expand(cfg->output, o->pid, o->host, o->rank);
	if (o->path && (!o->path[0] || strcmp(o->path, "-") == 0)) {
		/* env.c rejects these patterns; %q{VAR} can still expand to them. */
		inj_warn("GPUPROJ_OUTPUT='%s' expands to %s; using %s", cfg->output,
			 o->path[0] ? "'-', the application's standard output" : "an empty path",
			 INJ_DEFAULT_OUTPUT);
		free(o->path);
		o->path = inj_pattern_expand(INJ_DEFAULT_OUTPUT, o->pid, o->host, o->rank);
	}
	if (!o->path)
		goto oom;
	if (resolve_path(o) || probe_output(o))
		goto oom;
	o->live_path = inj_path_infix(o->path, ".live");
	if (!o->live_path)
		goto oom;
	o->live_tty = isatty(STDERR_FILENO) == 1;
	load_targets(o);
	return o;
oom:
	inj_error("out of memory at start-up: gpuproj is off");
	inj_output_free(o);
	return NULL;
}

void
inj_output_free(struct inj_output *o)
{
	if (!o)
		return;
	free(o->path);
	free(o->display);
	free(o->cwd);
	free(o->live_path);
	free(o->targets_origin);
	gpuproj_targets_free(o->targets);
	free(o);
}

const char *
inj_output_path(const struct inj_output *o)
{
	return o->path;
}

const char *
inj_output_name(const struct inj_output *o)
{
	return o->display;
}

/* ---- process description ---- */

/* The buffer is on the heap: exit() may run on an application thread with a small stack. */
#define CMDLINE_MAX 65536

static char **
read_cmdline(void)
{
	char *buf, **argv = NULL;
	ssize_t n, total = 0;
	size_t count = 0, i;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	char *p;

	if (fd < 0)
		return NULL;
	buf = malloc(CMDLINE_MAX);
	while (buf && total < CMDLINE_MAX - 1 &&
	       (n = read(fd, buf + total, CMDLINE_MAX - 1 - (size_t)total)) > 0)
		total += n;
	close(fd);
	if (total <= 0)
		goto out;
	buf[total] = '\0';
	for (i = 0; i < (size_t)total; i++)
		count += buf[i] == '\0';
	if (buf[total - 1] != '\0')
		count++;
	argv = calloc(count + 1, sizeof(*argv));
	if (!argv)
		goto out;
	for (p = buf, i = 0; i < count && p < buf + total; i++) {
		argv[i] = strdup(p);
		p += strlen(p) + 1;
	}
out:
	free(buf);
	return argv;
}

static void
free_argv(char **argv)
{
	size_t i;

	for (i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

/* Demangle kernel names with the C++ runtime already in the process, if any. */
static void
demangle_all(struct gpuproj_profile *p)
{
	demangle_fn fn;
	size_t i;

	{
		/*
		 * The process's C++ runtime may be out of the global scope
		 * (loaded as a dependency of something dlopen()ed RTLD_LOCAL, a
		 * Python extension module for one): ask libstdc++.so.6 itself
		 * first, without loading it.
		 */
		void *cxx = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
		void *sym = cxx ? dlsym(cxx, "__cxa_demangle") : NULL;

		if (!sym)
			sym = dlsym(RTLD_DEFAULT, "__cxa_demangle");
		memcpy(&fn, &sym, sizeof(sym));
		if (cxx)
			dlclose(cxx); /* drops the reference RTLD_NOLOAD took; the library stays */
	}
	if (!fn)
		return;
	for (i = 0; i < gpuproj_profile_count(p); i++) {
		struct gpuproj_kernel *k = gpuproj_profile_at(p, i);
		int status = -1;
		char *d;

		if (k->demangled || strncmp(k->name, "_Z", 2) != 0)
			continue;
		d = fn(k->name, NULL, NULL, &status);
		if (d && status == 0)
			profile_kernel_set_demangled(k, d);
		free(d);
	}
}

static void
iso_now(char *buf, size_t size)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void
describe(struct inj_output *o, struct gpuproj_profile *p, const char *why)
{
	const struct inj_config *cfg = o->cfg;
	char buf[64], **argv = read_cmdline();
	const char *app = NULL;
	size_t i;

	if (argv && argv[0]) {
		app = strrchr(argv[0], '/');
		app = app ? app + 1 : argv[0];
	}
	gpuproj_profile_set_process(p, app, o->host, o->pid, o->rank, (const char *const *)argv);
	free_argv(argv);

	gpuproj_profile_set_attr(p, "origin", "injection");
	iso_now(buf, sizeof(buf));
	gpuproj_profile_set_attr(p, "created", buf);
	gpuproj_profile_set_attr(p, "libproj", "gpuproj " GPUPROJ_VERSION);
	gpuproj_profile_set_attr(p, "report", why);
	gpuproj_profile_set_attr(p, "mode", inj_mode_name(cfg->mode));
	gpuproj_profile_set_attr(p, "tensor", gpuproj_tensor_mode_name(cfg->tensor));
	snprintf(buf, sizeof(buf), "%u", cfg->profile_launches);
	gpuproj_profile_set_attr(p, "profile_launches", buf);
	if (cfg->kernel_regex)
		gpuproj_profile_set_attr(p, "kernel_regex", cfg->kernel_regex);
	if (o->targets_origin)
		gpuproj_profile_set_attr(p, "targets", o->targets_origin);
	for (i = 0; i < cfg->n_echo; i++) {
		char key[64];

		snprintf(key, sizeof(key), "env.%s", cfg->echo[i].name);
		gpuproj_profile_set_attr(p, key, cfg->echo[i].value);
	}
	o->backend->describe(p);
	gpuproj_profile_run_info_mut(p)->wall_ns = inj_now_ns() - o->start_ns;
	demangle_all(p);
}

/* ---- projection ---- */

/*
 * Project every target with the default model (gpuproj_project_targets():
 * a GPU targets.yaml does not list is projected from a provisional entry
 * derived from its device attributes). GPUPROJ_E_NOTFOUND without targets;
 * `ret` is cleared by the caller either way.
 */
static int
project(struct inj_output *o, struct gpuproj_profile *p, struct gpuproj_projections *ret,
	struct gpuproj_error *err)
{
	struct gpuproj_project_request req = { .targets = o->targets };

	memset(ret, 0, sizeof(*ret));
	if (!o->targets)
		return GPUPROJ_E_NOTFOUND;
	return gpuproj_project_targets(p, &req, ret, err);
}

/* What follows "no provisional entry either: " in a derivation's error, else the error. */
static const char *
provisional_why(const struct gpuproj_error *err)
{
	static const char tag[] = "no provisional entry either: ";
	const char *w = strstr(err->message, tag);

	return w ? w + strlen(tag) : err->message;
}

static void
print_table(const struct gpuproj_profile *p, const struct gpuproj_target *src,
	    const struct gpuproj_run_projection *runs, size_t n, const char *path)
{
	struct gpuproj_project_write_options opt = { .top_kernels = 5, .profile_label = path };
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (!inj_log_enabled(INJ_LOG_INFO))
		return;
	f = open_memstream(&text, &len);
	if (!f)
		return;
	gpuproj_project_table(f, p, src, runs, n, &opt);
	fclose(f);
	inj_log_block(INJ_LOG_INFO, text);
	free(text);
}

/*
 * How messages name the report: as the pattern expanded, unless the
 * application has changed its working directory since start-up (then the
 * absolute path it went to).
 */
static const char *
shown_path(const struct inj_output *o)
{
	char buf[PATH_MAX];

	if (o->display[0] == '/' || !o->cwd || (getcwd(buf, sizeof(buf)) &&
						strcmp(buf, o->cwd) == 0))
		return o->display;
	return o->path;
}

/*
 * Write `text` as `path` (never over a file another process wrote during
 * this run: then `<name>.<pid>.json`, `-2`, `-3`… after the pid, *ret_infix
 * set to what was inserted). `replaceable`: the earlier run's file that
 * may be replaced, or NULL.
 */
static int
write_at(const struct inj_output *o, const char *path, const struct stat *replaceable,
	 const char *text, char *infix, size_t infix_size, bool *ret_infix,
	 struct gpuproj_error *err)
{
	bool exists = false;
	char *alt = NULL;
	int r, k;

	*ret_infix = false;
	/*
	 * Replace only the file there at start-up, if it is still there
	 * unchanged; checked in the rename itself (util.h), so two processes
	 * that both found an earlier run's profile never both replace it.
	 */
	r = file_write_atomic_ex(path, text, strlen(text),
				 FILE_WRITE_REGULAR | FILE_WRITE_NOREPLACE,
				 replaceable, &exists, err);
	for (k = 1; r != GPUPROJ_OK && exists && k <= 100; k++) {
		/* Another process wrote the name during this run: keep its profile. */
		if (k == 1)
			snprintf(infix, infix_size, ".%ld", o->pid);
		else
			snprintf(infix, infix_size, ".%ld-%d", o->pid, k);
		free(alt);
		alt = inj_path_infix(path, infix);
		if (!alt)
			break;
		memset(err, 0, sizeof(*err));
		r = file_write_atomic_ex(alt, text, strlen(text),
					 FILE_WRITE_REGULAR | FILE_WRITE_NOREPLACE, NULL, &exists,
					 err);
		*ret_infix = true;
	}
	free(alt);
	return r;
}

/*
 * Write the report: only ever create or replace a regular file (a planted
 * symbolic link, FIFO or device is refused with one line: never opened,
 * nothing hangs), and never replace a profile another process wrote during
 * this run (two processes with one GPUPROJ_OUTPUT): then `<name>.<pid>.json`
 * (`-2`, `-3`… after the pid if that is taken too), said in the line.
 * When the report cannot be written there at all, it goes to
 * the fallback place (fallback_path()), named in the one line, rather than
 * the run being lost.
 */
static void
write_report(struct inj_output *o, const struct gpuproj_profile *p,
	     const struct gpuproj_target *src, const struct gpuproj_run_projection *runs,
	     size_t n_runs, const struct inj_totals *t)
{
	char msg[GPUPROJ_ERROR_MSG_SIZE + GPUPROJ_ERROR_FILE_SIZE + 64];
	struct gpuproj_error err = { 0 }, fe = { 0 };
	char *text = NULL, infix[48], counts[160];
	const char *wrote = shown_path(o);
	size_t n = gpuproj_profile_count(p);
	bool moved = false;
	int r;

	if (gpuproj_project_json_text(p, src, runs, n_runs, NULL, &text, &err) != GPUPROJ_OK) {
		inj_error("cannot write the report: %s: %s", wrote,
			  gpuproj_error_format(&err, msg, sizeof(msg)));
		return;
	}
	snprintf(counts, sizeof(counts), "%zu kernel signature%s, %" PRIu64 " launch%s, %" PRIu64
		 " profiled", n, n == 1 ? "" : "s", t->launches, t->launches == 1 ? "" : "es",
		 t->profiled);
	r = write_at(o, o->path, o->existed ? &o->at_start : NULL, text, infix, sizeof(infix),
		     &moved, &err);
	if (r != GPUPROJ_OK && r != GPUPROJ_E_NOMEM) {
		char *fb = fallback_path(o), *shown_fb;
		bool fb_moved = false;

		if (fb && write_at(o, fb, NULL, text, infix, sizeof(infix), &fb_moved, &fe) ==
			      GPUPROJ_OK) {
			shown_fb = fb_moved ? inj_path_infix(fb, infix) : NULL;
			inj_warn("cannot write the report: %s; wrote %s instead (%s)",
				 gpuproj_error_format(&err, msg, sizeof(msg)),
				 shown_fb ? shown_fb : fb, counts);
			free(shown_fb);
			free(fb);
			free(text);
			return;
		}
		free(fb);
	}
	free(text);
	if (r != GPUPROJ_OK) {
		inj_error("cannot write the report: %s",
			  gpuproj_error_format(&err, msg, sizeof(msg)));
	} else if (moved) {
		/* Named as the report is shown: the pattern's name, or the absolute path. */
		char *shown = inj_path_infix(wrote, infix);

		inj_info("wrote %s (%s): %s was written by another process during this run "
			 "(give each process its own GPUPROJ_OUTPUT, with %%p or %%r)",
			 shown ? shown : o->path, counts, wrote);
		free(shown);
	} else {
		inj_info("wrote %s (%s)", wrote, counts);
	}
}

void
inj_output_final(struct inj_output *o, struct inj_collector *c, const char *why)
{
	struct gpuproj_projections proj;
	const struct gpuproj_target *src;
	struct gpuproj_error err = { 0 };
	struct gpuproj_profile *p;
	struct inj_totals t;
	int r;

	inj_output_live_end(o);
	/*
	 * The locks are waited for with a bound at exit
	 * (inj_collector_exit_by()); a frame that exit() froze from a signal
	 * handler may hold one. Without the recorder's, the profile goes
	 * without its timeline; without the data lock, nothing can be read.
	 */
	r = inj_collector_finish(c);
	if (r == INJ_FINISH_NO_DATA || !inj_collector_totals(c, &t) ||
	    !(p = inj_collector_lock(c))) {
		inj_error("the report is not written: the profile's lock was still held when exit "
			  "could wait no longer (GPUPROJ_WAIT; exit() called from a signal handler "
			  "that interrupted gpuproj?)");
		return;
	}
	if (r == INJ_FINISH_NO_TIMELINE)
		inj_warn("the whole-run timeline is left out of the report: its recorder's lock "
			 "was still held when exit could wait no longer (GPUPROJ_WAIT)");
	if (!gpuproj_profile_device(p)->name && gpuproj_profile_count(p) == 0) {
		inj_collector_unlock(c);
		inj_debug("no CUDA context was created: nothing to report");
		return;
	}
	describe(o, p, why);
	gpuproj_profile_sort_by_time(p);

	r = project(o, p, &proj, &err);
	src = proj.source; /* set once resolved, even when projecting failed later */
	if (r == GPUPROJ_E_NOMEM) {
		inj_error("out of memory projecting: the profile is written without projections");
	} else if (r != GPUPROJ_OK && o->targets) {
		const char *name = gpuproj_profile_device(p)->name;

		inj_warn("the source GPU '%s' is not in targets.yaml (%s) and no provisional entry "
			 "could be derived (%s): the profile is written without projections; add a "
			 "targets.yaml entry (`gpuproj bench` writes one) or project later with "
			 "`gpuproj project --source NAME %s`", name ? name : "?",
			 o->targets_origin ? o->targets_origin : "built-in", provisional_why(&err),
			 o->path);
	} else if (r == GPUPROJ_OK && src->provisional) {
		inj_warn("the source GPU '%s' is not in targets.yaml (%s): projecting from a "
			 "provisional entry derived from its device attributes and the per-SM "
			 "figures of %s (basis %s; `gpuproj targets derive %s` prints it to refine)",
			 gpuproj_profile_device(p)->name, o->targets_origin ? o->targets_origin
									   : "built-in",
			 src->derived_from, src->provisional, o->path);
	}
	if (r == GPUPROJ_OK)
		print_table(p, src, proj.runs, proj.n_runs, shown_path(o));
	memset(&err, 0, sizeof(err));
	write_report(o, p, src, r == GPUPROJ_OK ? proj.runs : NULL,
		     r == GPUPROJ_OK ? proj.n_runs : 0, &t);
	inj_collector_unlock(c);
	gpuproj_projections_clear(&proj);
	if (t.dropped)
		inj_warn("CUPTI dropped %" PRIu64 " activity record%s (buffers full): those launches "
			 "are missing from the counts and times", t.dropped, t.dropped == 1 ? "" : "s");
}

/* ---- kept files ---- */

bool
inj_keep_file(const char *dir, const char *name, const void *data, size_t size)
{
	static atomic_bool warned;
	const char *why = NULL;
	char whybuf[96];
	struct stat st;
	size_t off = 0;
	int dfd, fd;

	(void)mkdir(dir, 0777);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		if ((errno == ELOOP || errno == ENOTDIR) && lstat(dir, &st) == 0 &&
		    !S_ISDIR(st.st_mode))
			why = S_ISLNK(st.st_mode) ? "is a symbolic link, not a directory"
						  : "is not a directory";
		else
			why = strerror(errno);
		if (!atomic_exchange(&warned, true))
			inj_warn("GPUPROJ_KEEP_CUBINS: cannot keep cubins in %s: %s", dir, why);
		return false;
	}
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		    0666);
	if (fd < 0) {
		if (errno == EEXIST && fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (S_ISREG(st.st_mode)) {
				close(dfd);
				return true; /* the same content hash: kept already */
			}
			snprintf(whybuf, sizeof(whybuf), "is %s, not a regular file; left as it is",
				 S_ISLNK(st.st_mode) ? "a symbolic link" : S_ISFIFO(st.st_mode) ? "a FIFO"
				 : S_ISDIR(st.st_mode) ? "a directory" : "a device or socket");
			why = whybuf;
		} else {
			why = strerror(errno);
		}
		if (!atomic_exchange(&warned, true))
			inj_warn("GPUPROJ_KEEP_CUBINS: %s/%s %s", dir, name, why);
		close(dfd);
		return false;
	}
	while (off < size) {
		ssize_t w = write(fd, (const char *)data + off, size - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (!atomic_exchange(&warned, true))
				inj_warn("GPUPROJ_KEEP_CUBINS: cannot write %s/%s: %s", dir, name,
					 strerror(w < 0 ? errno : EIO));
			break;
		}
		off += (size_t)w;
	}
	close(fd);
	if (off != size)
		unlinkat(dfd, name, 0);
	close(dfd);
	return off == size;
}

/* ---- live ---- */

struct live_target {
	const char *name;
	double ns;
};

static int
cmp_live(const void *a, const void *b)
{
	const struct live_target *x = a, *y = b;

	return (x->ns > y->ns) - (x->ns < y->ns);
}

static size_t
term_width(void)
{
	struct winsize ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		return ws.ws_col;
	return 160;
}

/*
 * The live snapshot: a regular file only (as the report), marked as a
 * snapshot (attribute "snapshot": "live", process described) so that
 * `gpuproj merge` refuses it (a glob like rank-*.json catches it too).
 * Failures are said once.
 */
static void
write_live(struct inj_output *o, struct gpuproj_profile *p, const struct gpuproj_target *src,
	   const struct gpuproj_run_projection *runs, size_t n_runs)
{
	char msg[GPUPROJ_ERROR_MSG_SIZE + GPUPROJ_ERROR_FILE_SIZE + 64];
	struct gpuproj_error err = { 0 };
	char *text = NULL;
	int r;

	gpuproj_profile_set_process(p, NULL, o->host, o->pid, o->rank, NULL);
	gpuproj_profile_set_attr(p, "snapshot", "live");
	r = gpuproj_project_json_text(p, src, runs, n_runs, NULL, &text, &err);
	if (r == GPUPROJ_OK)
		r = file_write_atomic_ex(o->live_path, text, strlen(text), FILE_WRITE_REGULAR, NULL,
					 NULL, &err);
	free(text);
	if (r != GPUPROJ_OK && !o->live_failed) {
		o->live_failed = true;
		inj_warn("live snapshot not written: %s",
			 gpuproj_error_format(&err, msg, sizeof(msg)));
	}
}

void
inj_output_live(struct inj_output *o, struct inj_collector *c)
{
	struct gpuproj_projections proj = { 0 };
	const struct gpuproj_run_projection *runs = NULL;
	const struct gpuproj_target *src = NULL;
	struct gpuproj_error err = { 0 };
	struct live_target *lt = NULL;
	struct gpuproj_profile *p;
	struct inj_totals t;
	struct strbuf sb;
	size_t n_runs = 0, i, shown = 0, width;
	char a[32], b[32];

	inj_collector_totals(c, &t);
	/*
	 * A copy of the profile is taken under the collector lock (launch
	 * callbacks and the CUPTI buffer thread update it); projecting,
	 * rendering and the fsync'ed write happen on the copy, unlocked.
	 */
	p = inj_collector_snapshot(c);
	if (!p) {
		inj_debug("live snapshot skipped: out of memory");
	} else if (project(o, p, &proj, &err) == GPUPROJ_OK) {
		src = proj.source;
		runs = proj.runs;
		n_runs = proj.n_runs;
		write_live(o, p, src, runs, n_runs);
	} else {
		src = proj.source; /* set once resolved, even when projecting failed later */
		if (gpuproj_profile_device(p)->name)
			write_live(o, p, NULL, NULL, 0);
	}

	strbuf_init(&sb);
	strbuf_printf(&sb, "[gpuproj] live %.1f s: %" PRIu64 " launch%s, %" PRIu64 " kernel%s, "
		      "GPU %s", (inj_now_ns() - o->start_ns) / 1e9, t.launches,
		      t.launches == 1 ? "" : "es", t.kernels, t.kernels == 1 ? "" : "s",
		      format_ns(t.gpu_ns, a, sizeof(a)));
	lt = calloc(n_runs ? n_runs : 1, sizeof(*lt));
	for (i = 0; lt && i < n_runs; i++) {
		lt[i].name = runs[i].target->name;
		lt[i].ns = runs[i].point_ns;
	}
	if (lt)
		qsort(lt, n_runs, sizeof(*lt), cmp_live);
	width = o->live_tty ? term_width() - 1 : SIZE_MAX;
	for (i = 0; lt && i < n_runs; i++) {
		char item[160];
		double src_ns = runs[0].source_ns;

		snprintf(item, sizeof(item), " | %s %s (%sx)", lt[i].name,
			 format_ns(lt[i].ns, a, sizeof(a)),
			 lt[i].ns > 0 ? (snprintf(b, sizeof(b), "%.2f", src_ns / lt[i].ns), b) : "-");
		if (sb.len + strlen(item) + 24 > width)
			break;
		strbuf_append(&sb, item);
		shown++;
	}
	if (shown < n_runs)
		strbuf_printf(&sb, " | +%zu more in %s", n_runs - shown, o->live_path);
	if (!src && t.kernels)
		strbuf_append(&sb, " | no projection (source GPU not in targets.yaml)");
	free(lt);
	gpuproj_projections_clear(&proj);
	gpuproj_profile_free(p);
	if (sb.oom || !inj_log_enabled(INJ_LOG_INFO)) {
		strbuf_free(&sb);
		return;
	}
	if (o->live_tty) {
		inj_log_raw("\r\033[K", 4);
		inj_log_raw(sb.buf, sb.len);
	} else {
		strbuf_append(&sb, "\n");
		inj_log_raw(sb.buf, sb.len);
	}
	o->live_printed = true;
	strbuf_free(&sb);
}

void
inj_output_live_end(struct inj_output *o)
{
	if (o && o->live_tty && o->live_printed) {
		inj_log_raw("\n", 1);
		o->live_printed = false;
	}
}
