/* SPDX-License-Identifier: MIT */
/*
 * NVIDIA tools for the SASS analysis: finding nvdisasm and ptxas, running
 * them, and compiling PTX with libnvJitLink loaded at run time (dlopen),
 * so the core library has no link-time CUDA dependency.
 *
 * Legacy tools: CUDA 13 (nvdisasm, ptxas, nvJitLink 13.x) dropped sm_70
 * and sm_72 (Volta). What a tool supports is read from its --help (the
 * allowed values of nvdisasm --binary and ptxas --gpu-name); for an
 * architecture the tools found first lack, a CUDA 11/12 one is looked for
 * ($GPUPROJ_NVDISASM_LEGACY / $GPUPROJ_PTXAS_LEGACY, the legacy directory
 * ${XDG_CACHE_HOME:-$HOME/.cache}/gpuproj/legacy-cuda/bin that
 * scripts/setup-deps.sh fills, PATH; docs/sass.md).
 *
 * Thread safety: every function may be called from several threads; the
 * library handle is loaded once (pthread_once). Children are started with
 * posix_spawn and pipes opened close-on-exec, so concurrent children do
 * not inherit each other's pipes.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sass-private.h"
#include "util.h"

extern char **environ;

#define NVDISASM_HOWTO "install the CUDA toolkit's nvdisasm or `pip install nvidia-cuda-nvdisasm`"

/* ---- processes ---- */

void
proc_result_clear(struct proc_result *res)
{
	free(res->out);
	free(res->err);
	memset(res, 0, sizeof(*res));
}

struct growbuf {
	char *p;
	size_t len, cap;
};

static bool
growbuf_read(struct growbuf *b, int fd, bool *eof)
{
	ssize_t n;

	if (b->cap - b->len < 65536 + 1) {
		size_t cap = b->cap ? b->cap * 2 : 131072;
		char *p = realloc(b->p, cap);

		if (!p)
			return false;
		b->p = p;
		b->cap = cap;
	}
	n = read(fd, b->p + b->len, b->cap - b->len - 1);
	if (n > 0)
		b->len += (size_t)n;
	else if (n == 0 || (errno != EINTR && errno != EAGAIN))
		*eof = true;
	b->p[b->len] = '\0';
	return true;
}

int
proc_run(const char *const *argv, struct proc_result *res, struct gpuproj_error *err)
{
	int out_pipe[2] = { -1, -1 }, err_pipe[2] = { -1, -1 }, r, wstatus = 0;
	posix_spawn_file_actions_t fa;
	bool fa_init = false, out_eof = false, err_eof = false, oom = false;
	struct growbuf ob = { 0 }, eb = { 0 };
	pid_t pid = -1;

	memset(res, 0, sizeof(*res));
	if (pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC)) {
		r = error_set(err, GPUPROJ_E_BACKEND, argv[0], 0, 0, "pipe: %s", strerror(errno));
		goto out;
	}
	if (posix_spawn_file_actions_init(&fa)) {
		r = error_set(err, GPUPROJ_E_NOMEM, argv[0], 0, 0, "out of memory");
		goto out;
	}
	fa_init = true;
	if (posix_spawn_file_actions_adddup2(&fa, out_pipe[1], STDOUT_FILENO) ||
	    posix_spawn_file_actions_adddup2(&fa, err_pipe[1], STDERR_FILENO) ||
	    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0)) {
		r = error_set(err, GPUPROJ_E_NOMEM, argv[0], 0, 0, "out of memory");
		goto out;
	}
	r = posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)argv, environ);
	if (r) {
		pid = -1;
		r = error_set(err, GPUPROJ_E_BACKEND, argv[0], 0, 0, "cannot run: %s",
			      strerror(r));
		goto out;
	}
	close(out_pipe[1]);
	close(err_pipe[1]);
	out_pipe[1] = err_pipe[1] = -1;
	while (!out_eof || !err_eof) {
		struct pollfd pfd[2];
		nfds_t n = 0;
		int o = -1, e = -1;

		if (!out_eof) {
			pfd[n] = (struct pollfd){ .fd = out_pipe[0], .events = POLLIN };
			o = (int)n++;
		}
		if (!err_eof) {
			pfd[n] = (struct pollfd){ .fd = err_pipe[0], .events = POLLIN };
			e = (int)n++;
		}
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (o >= 0 && pfd[o].revents && !growbuf_read(&ob, out_pipe[0], &out_eof))
			oom = true;
		if (e >= 0 && pfd[e].revents && !growbuf_read(&eb, err_pipe[0], &err_eof))
			oom = true;
		if (oom)
			break;
	}
	if (oom)
		kill(pid, SIGKILL);
	while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
		;
	pid = -1;
	if (oom) {
		r = error_set(err, GPUPROJ_E_NOMEM, argv[0], 0, 0, "out of memory");
		goto out;
	}
	res->status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
	res->out = ob.p ? ob.p : calloc(1, 1);
	res->out_len = ob.len;
	res->err = eb.p ? eb.p : calloc(1, 1);
	res->err_len = eb.len;
	ob.p = eb.p = NULL;
	if (!res->out || !res->err) {
		proc_result_clear(res);
		r = error_set(err, GPUPROJ_E_NOMEM, argv[0], 0, 0, "out of memory");
		goto out;
	}
	r = GPUPROJ_OK;
out:
	if (fa_init)
		posix_spawn_file_actions_destroy(&fa);
	for (int i = 0; i < 2; i++) {
		if (out_pipe[i] >= 0)
			close(out_pipe[i]);
		if (err_pipe[i] >= 0)
			close(err_pipe[i]);
	}
	free(ob.p);
	free(eb.p);
	return r;
}

/* ---- finding tools ---- */

static bool
is_executable(const char *path)
{
	struct stat st;

	return path && *path && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

/* prog in $PATH, malloc'd, or NULL. */
static char *
search_path(const char *prog)
{
	const char *path = getenv("PATH"), *p, *colon;

	if (!path)
		return NULL;
	for (p = path; ; p = colon + 1) {
		char *cand;

		colon = strchr(p, ':');
		if (colon == p || *p == '\0')
			cand = NULL; /* empty PATH element: the current directory; skip */
		else
			cand = xasprintf("%.*s/%s", (int)(colon ? (size_t)(colon - p) : strlen(p)),
					 p, prog);
		if (cand && is_executable(cand))
			return cand;
		free(cand);
		if (!colon)
			return NULL;
	}
}

/* prog in $CUDA_HOME/bin, $CUDA_PATH/bin or /usr/local/cuda/bin. */
static char *
search_cuda(const char *prog)
{
	const char *homes[] = { getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda" };
	size_t i;

	for (i = 0; i < ARRAY_LENGTH(homes); i++) {
		char *cand;

		if (!homes[i] || !*homes[i])
			continue;
		cand = xasprintf("%s/bin/%s", homes[i], prog);
		if (cand && is_executable(cand))
			return cand;
		free(cand);
	}
	return NULL;
}

/*
 * A file of NVIDIA's PyPI wheels (namespace package `nvidia`), through
 * python3: the first of rels (paths below a directory of nvidia.__path__,
 * NULL-terminated) that is an executable file.
 */
static char *
search_wheel_for(const char *const *rels)
{
	static const char script[] =
		"import os, sys\n"
		"try:\n"
		"    import nvidia\n"
		"except Exception:\n"
		"    sys.exit(1)\n"
		"for rel in sys.argv[1:]:\n"
		"    for p in list(getattr(nvidia, '__path__', [])):\n"
		"        f = os.path.join(p, rel)\n"
		"        if os.path.isfile(f) and os.access(f, os.X_OK):\n"
		"            print(f)\n"
		"            sys.exit(0)\n"
		"sys.exit(1)\n";
	char *python = search_path("python3"), *found = NULL;
	struct proc_result res;
	const char *argv[12];
	size_t n = 0;

	if (!python)
		return NULL;
	argv[n++] = python;
	argv[n++] = "-c";
	argv[n++] = script;
	while (*rels && n < ARRAY_LENGTH(argv) - 1)
		argv[n++] = *rels++;
	argv[n] = NULL;
	if (proc_run(argv, &res, NULL) == GPUPROJ_OK) {
		if (res.status == 0) {
			res.out[strcspn(res.out, "\r\n")] = '\0';
			if (is_executable(res.out))
				found = xstrdup(res.out);
		}
		proc_result_clear(&res);
	}
	free(python);
	return found;
}

/* nvdisasm of NVIDIA's PyPI wheel (nvidia-cuda-nvdisasm). */
static char *
search_wheel(void)
{
	static const char *const rels[] = { "cu13/bin/nvdisasm", "cu12/bin/nvdisasm",
					    "cuda_nvdisasm/bin/nvdisasm", NULL };

	return search_wheel_for(rels);
}

int
gpuproj_sass_find_nvdisasm(char **ret, struct gpuproj_error *reterr)
{
	const char *env = getenv("GPUPROJ_NVDISASM");
	char *p;

	*ret = NULL;
	if (env && *env) {
		if (!is_executable(env))
			return error_set(reterr, GPUPROJ_E_MISSING, "", 0, 0,
					 "GPUPROJ_NVDISASM=%s is not an executable file: "
					 NVDISASM_HOWTO ", or unset GPUPROJ_NVDISASM", env);
		p = xstrdup(env);
	} else {
		p = search_path("nvdisasm");
		if (!p)
			p = search_cuda("nvdisasm");
		if (!p)
			p = search_wheel();
		if (!p)
			return error_set(reterr, GPUPROJ_E_MISSING, "", 0, 0,
					 "nvdisasm not found (searched $GPUPROJ_NVDISASM, PATH, "
					 "$CUDA_HOME/bin, /usr/local/cuda/bin and python3's nvidia "
					 "package): " NVDISASM_HOWTO);
	}
	if (!p)
		return error_set(reterr, GPUPROJ_E_NOMEM, "", 0, 0, "out of memory");
	*ret = p;
	return GPUPROJ_OK;
}

char *
sass_find_ptxas(void)
{
	const char *env = getenv("GPUPROJ_PTXAS");
	char *p;

	if (env && *env)
		return is_executable(env) ? xstrdup(env) : NULL;
	p = search_path("ptxas");
	return p ? p : search_cuda("ptxas");
}

/* ---- what a tool supports; tools for the architectures CUDA 13 dropped ---- */

/* What `tool --help` lists, per path (a few tools per process; no heap). */
static struct tool_caps {
	char path[1024];
	bool listed;             /* the help lists the allowed architectures */
	uint64_t plain[4];       /* bit a: plain sm_<a> (no a/f suffix) listed, a < 256 */
} caps[8];
static size_t n_caps;
static pthread_mutex_t caps_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * The allowed values of `option` in a tool's --help: nvdisasm
 * "--binary <SMxy>" ('SM70','SM75',…), ptxas "--gpu-name" ('compute_70',
 * 'sm_70',…). Sets the bits of the plain sm_XY values; false when the
 * help has no such list.
 */
static bool
parse_allowed(const char *help, enum sass_tool kind, uint64_t plain[4])
{
	const char *opt = kind == SASS_NVDISASM ? "\n--binary " : "\n--gpu-name ";
	const char *prefix = kind == SASS_NVDISASM ? "'SM" : "'sm_";
	const char *p = strstr(help, opt), *next, *end, *q;
	bool any = false;

	if (!p)
		return false;
	/* This option's block ends where the next option starts. */
	next = strstr(p + 1, "\n--");
	if (!next)
		next = p + strlen(p);
	p = strstr(p, "Allowed values for this option:");
	end = p ? strstr(p, "'.") : NULL;
	if (!p || !end || end > next)
		return false;
	for (q = strstr(p, prefix); q && q < end; q = strstr(q + 1, prefix)) {
		const char *d = q + strlen(prefix);
		int a = 0;

		if (*d < '0' || *d > '9')
			continue;
		while (*d >= '0' && *d <= '9' && a < 1000)
			a = a * 10 + (*d++ - '0');
		if (*d == '\'' && a < 256) {
			plain[a / 64] |= (uint64_t)1 << (a % 64);
			any = true;
		}
	}
	return any;
}

bool
sass_tool_supports(const char *path, enum sass_tool kind, int arch)
{
	struct tool_caps c = { 0 };
	struct proc_result res;
	const char *argv[3] = { path, "--help", NULL };
	size_t i;

	if (!path || arch < 0 || arch >= 256)
		return true;
	pthread_mutex_lock(&caps_lock);
	/* n_caps counts every insertion; the ring holds the last ARRAY_LENGTH(caps). */
	for (i = 0; i < n_caps && i < ARRAY_LENGTH(caps); i++) {
		if (strcmp(caps[i].path, path) == 0) {
			c = caps[i];
			pthread_mutex_unlock(&caps_lock);
			return !c.listed || (c.plain[arch / 64] >> (arch % 64) & 1);
		}
	}
	pthread_mutex_unlock(&caps_lock);
	snprintf(c.path, sizeof(c.path), "%s", path);
	if (proc_run(argv, &res, NULL) == GPUPROJ_OK) {
		c.listed = parse_allowed(res.out, kind, c.plain) ||
			   parse_allowed(res.err, kind, c.plain);
		proc_result_clear(&res);
	}
	pthread_mutex_lock(&caps_lock);
	if (strlen(path) < sizeof(caps[0].path))
		caps[n_caps++ % ARRAY_LENGTH(caps)] = c;
	pthread_mutex_unlock(&caps_lock);
	return !c.listed || (c.plain[arch / 64] >> (arch % 64) & 1);
}

void
sass_tool_release(const char *path, char *buf, size_t size)
{
	const char *argv[3] = { path, "--version", NULL };
	struct proc_result res;
	const char *p;

	snprintf(buf, size, "?");
	if (proc_run(argv, &res, NULL) != GPUPROJ_OK)
		return;
	p = strstr(res.out, "release ");
	if (p) {
		p += strlen("release ");
		snprintf(buf, size, "%.*s", (int)strcspn(p, ", \n"), p);
	}
	proc_result_clear(&res);
}

char *
sass_legacy_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg == '/')
		return xasprintf("%s/gpuproj/legacy-cuda/bin", xdg);
	return xasprintf("%s/.cache/gpuproj/legacy-cuda/bin", home && *home ? home : "");
}

/* Every prog in PATH (in order), then in the CUDA homes; NULL-terminated, malloc'd. */
static char **
all_in_path(const char *prog)
{
	const char *path = getenv("PATH"), *p, *colon;
	const char *homes[] = { getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda" };
	char **v = NULL;
	size_t n = 0, i;

	for (p = path; p; p = colon ? colon + 1 : NULL) {
		char *cand, **nv;

		colon = strchr(p, ':');
		if (colon == p || *p == '\0')
			continue;
		cand = xasprintf("%.*s/%s", (int)(colon ? (size_t)(colon - p) : strlen(p)), p, prog);
		if (!cand || !is_executable(cand) || !(nv = realloc(v, (n + 2) * sizeof(*v)))) {
			free(cand);
			continue;
		}
		v = nv;
		v[n++] = cand;
		v[n] = NULL;
	}
	for (i = 0; i < ARRAY_LENGTH(homes); i++) {
		char *cand, **nv;

		if (!homes[i] || !*homes[i])
			continue;
		cand = xasprintf("%s/bin/%s", homes[i], prog);
		if (!cand || !is_executable(cand) || !(nv = realloc(v, (n + 2) * sizeof(*v)))) {
			free(cand);
			continue;
		}
		v = nv;
		v[n++] = cand;
		v[n] = NULL;
	}
	return v;
}

static void
free_list(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

int
sass_find_legacy_tool(enum sass_tool kind, int arch, const char *primary, char **ret,
		      struct gpuproj_error *err)
{
	const char *prog = kind == SASS_NVDISASM ? "nvdisasm" : "ptxas";
	const char *var = kind == SASS_NVDISASM ? "GPUPROJ_NVDISASM_LEGACY" : "GPUPROJ_PTXAS_LEGACY";
	const char *env = getenv(var);
	char *dir = sass_legacy_dir(), *cand = NULL, **list = NULL, rel[32], have[600];
	int r = GPUPROJ_OK;
	size_t i;

	*ret = NULL;
	if (!dir)
		return error_set(err, GPUPROJ_E_NOMEM, "", 0, 0, "out of memory");
	if (env && *env) {
		if (!is_executable(env)) {
			r = error_set(err, GPUPROJ_E_MISSING, "", 0, 0,
				      "%s=%s is not an executable file: name the %s of a CUDA 11 or "
				      "12 toolkit, or unset %s", var, env, prog, var);
		} else if (!sass_tool_supports(env, kind, arch)) {
			sass_tool_release(env, rel, sizeof(rel));
			r = error_set(err, GPUPROJ_E_MISSING, "", 0, 0,
				      "%s=%s (CUDA %s) cannot %s sm_%d code either: name the %s of "
				      "a CUDA 11 or 12 toolkit", var, env, rel,
				      kind == SASS_NVDISASM ? "disassemble" : "compile PTX to", arch,
				      prog);
		} else {
			*ret = xstrdup(env);
		}
		goto out;
	}
	/* ptxas: CUDA 12's from the nvidia-cuda-nvcc-cu12 wheel reads newer PTX than 11.8's. */
	if (kind == SASS_PTXAS) {
		static const char *const rels[] = { "cuda_nvcc/bin/ptxas", NULL };

		cand = search_wheel_for(rels);
		if (cand && sass_tool_supports(cand, kind, arch))
			goto found;
		free(cand);
	}
	cand = xasprintf("%s/%s", dir, prog);
	if (cand && is_executable(cand) && sass_tool_supports(cand, kind, arch))
		goto found;
	free(cand);
	cand = NULL;
	list = all_in_path(prog);
	for (i = 0; list && list[i]; i++) {
		if (sass_tool_supports(list[i], kind, arch)) {
			cand = xstrdup(list[i]);
			goto found;
		}
	}
	if (primary) {
		sass_tool_release(primary, rel, sizeof(rel));
		snprintf(have, sizeof(have), "%s %s (CUDA %s) cannot %s sm_%d code%s", prog, primary,
			 rel, kind == SASS_NVDISASM ? "disassemble" : "compile PTX to", arch,
			 arch < 75 ? " (CUDA 13 dropped sm_70 and sm_72)" : "");
	} else {
		snprintf(have, sizeof(have), "no tool found first can %s sm_%d code",
			 kind == SASS_NVDISASM ? "disassemble" : "compile PTX to", arch);
	}
	r = error_set(err, GPUPROJ_E_MISSING, "", 0, 0,
		      "%s, and no %s that can was found ($%s, %s%s, PATH, $CUDA_HOME/bin): "
		      "set %s to the %s of a CUDA 11 or 12 toolkit, or unpack one into %s "
		      "(scripts/setup-deps.sh does; docs/sass.md)", have, prog, var,
		      kind == SASS_PTXAS ? "python3's nvidia/cuda_nvcc, " : "", dir, var, prog, dir);
	goto out;
found:
	*ret = cand;
	if (!cand)
		r = error_set(err, GPUPROJ_E_NOMEM, "", 0, 0, "out of memory");
out:
	free_list(list);
	free(dir);
	return r;
}

/* ---- libnvJitLink, loaded at run time ---- */

/*
 * The subset of nvJitLink.h we call (CUDA 12.0+; the unversioned symbols
 * exist in libnvJitLink.so.12 and .13). Results are an enum (0 = success).
 */
#define NVJITLINK_INPUT_PTX 2

static struct {
	void *lib;
	int (*create)(void **h, uint32_t n, const char **opts);
	int (*add_data)(void *h, int kind, const void *data, size_t size, const char *name);
	int (*complete)(void *h);
	int (*cubin_size)(void *h, size_t *size);
	int (*cubin)(void *h, void *buf);
	int (*destroy)(void **h);
	int (*log_size)(void *h, size_t *size);
	int (*log)(void *h, char *buf);
	unsigned major;   /* nvJitLinkVersion() (CUDA 12.3+), 0 when unknown */
	char why[512];
} jl;

static pthread_once_t jl_once = PTHREAD_ONCE_INIT;

static void *
jl_sym(const char *name)
{
	void *f = dlsym(jl.lib, name);

	if (!f && !jl.why[0])
		snprintf(jl.why, sizeof(jl.why), "libnvJitLink lacks %s", name);
	return f;
}

static void
jl_load(void)
{
	const char *env = getenv("GPUPROJ_NVJITLINK");
	const char *homes[] = { getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda" };
	const char *names[] = { "libnvJitLink.so.13", "libnvJitLink.so.12", "libnvJitLink.so" };
	size_t i;

	if (env && *env) {
		jl.lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
	} else {
		for (i = 0; !jl.lib && i < ARRAY_LENGTH(names); i++)
			jl.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		for (i = 0; !jl.lib && i < ARRAY_LENGTH(homes); i++) {
			char *p;

			if (!homes[i] || !*homes[i])
				continue;
			p = xasprintf("%s/lib64/libnvJitLink.so", homes[i]);
			if (p)
				jl.lib = dlopen(p, RTLD_NOW | RTLD_LOCAL);
			free(p);
		}
	}
	if (!jl.lib) {
		snprintf(jl.why, sizeof(jl.why), "libnvJitLink not found (CUDA toolkit 12+; "
			 "GPUPROJ_NVJITLINK names it)");
		return;
	}
	*(void **)&jl.create = jl_sym("nvJitLinkCreate");
	*(void **)&jl.add_data = jl_sym("nvJitLinkAddData");
	*(void **)&jl.complete = jl_sym("nvJitLinkComplete");
	*(void **)&jl.cubin_size = jl_sym("nvJitLinkGetLinkedCubinSize");
	*(void **)&jl.cubin = jl_sym("nvJitLinkGetLinkedCubin");
	*(void **)&jl.destroy = jl_sym("nvJitLinkDestroy");
	*(void **)&jl.log_size = jl_sym("nvJitLinkGetErrorLogSize");
	*(void **)&jl.log = jl_sym("nvJitLinkGetErrorLog");
	if (jl.why[0]) {
		dlclose(jl.lib);
		jl.lib = NULL;
		return;
	}
	{
		int (*version)(unsigned *major, unsigned *minor);
		unsigned major = 0, minor = 0;

		*(void **)&version = dlsym(jl.lib, "nvJitLinkVersion");
		if (version && version(&major, &minor) == 0)
			jl.major = major;
	}
}

/* First line of a log, trimmed, into buf. */
static const char *
first_line(const char *log, char *buf, size_t size)
{
	size_t n;

	while (*log == '\n' || *log == ' ')
		log++;
	n = strcspn(log, "\n");
	snprintf(buf, size, "%.*s", (int)n, log);
	return buf;
}

static int
compile_nvjitlink(const char *ptx, size_t len, int arch, const char *name, unsigned char **ret,
		  size_t *ret_len, struct gpuproj_error *err)
{
	char opt[32], line[400];
	const char *opts[1] = { opt };
	void *h = NULL;
	size_t n = 0;
	int rc, r;

	snprintf(opt, sizeof(opt), "-arch=sm_%d", arch);
	rc = jl.create(&h, 1, opts);
	if (rc)
		return error_set(err, GPUPROJ_E_BACKEND, name, 0, 0,
				 "nvJitLinkCreate(%s) failed (error %d)", opt, rc);
	rc = jl.add_data(h, NVJITLINK_INPUT_PTX, ptx, len, name);
	if (!rc)
		rc = jl.complete(h);
	if (rc) {
		char *log = NULL;

		if (jl.log_size(h, &n) == 0 && n > 0 && (log = calloc(1, n + 1)) &&
		    jl.log(h, log) == 0)
			first_line(log, line, sizeof(line));
		else
			snprintf(line, sizeof(line), "no log");
		free(log);
		r = error_set(err, GPUPROJ_E_BACKEND, name, 0, 0,
			      "nvJitLink could not compile the PTX for sm_%d (error %d): %s", arch,
			      rc, line);
		goto out;
	}
	if (jl.cubin_size(h, &n) || n == 0 || !(*ret = malloc(n))) {
		r = error_set(err, n ? GPUPROJ_E_NOMEM : GPUPROJ_E_BACKEND, name, 0, 0,
			      "nvJitLink produced no cubin for sm_%d", arch);
		goto out;
	}
	if (jl.cubin(h, *ret)) {
		free(*ret);
		*ret = NULL;
		r = error_set(err, GPUPROJ_E_BACKEND, name, 0, 0,
			      "nvJitLinkGetLinkedCubin failed for sm_%d", arch);
		goto out;
	}
	*ret_len = n;
	r = GPUPROJ_OK;
out:
	jl.destroy(&h);
	return r;
}

/* Write len bytes to a new temporary file; returns the malloc'd path or NULL (errno). */
static char *
write_temp(const void *data, size_t len, const char *suffix)
{
	const char *dir = getenv("TMPDIR");
	char *path = xasprintf("%s/gpuproj-sass-XXXXXX%s", dir && *dir ? dir : "/tmp", suffix);
	const char *p = data;
	int fd;

	if (!path)
		return NULL;
	fd = mkstemps(path, (int)strlen(suffix));
	if (fd < 0) {
		free(path);
		return NULL;
	}
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			unlink(path);
			free(path);
			return NULL;
		}
		p += n;
		len -= (size_t)n;
	}
	if (close(fd)) {
		unlink(path);
		free(path);
		return NULL;
	}
	return path;
}

static int
compile_ptxas(const char *ptxas, const char *ptx, size_t len, int arch, const char *name,
	      unsigned char **ret, size_t *ret_len, struct gpuproj_error *err)
{
	char archopt[32], line[400];
	char *in = NULL, *out = NULL, *cubin = NULL;
	const char *argv[6];
	struct proc_result res = { 0 };
	size_t n = 0;
	int r;

	in = write_temp(ptx, len, ".ptx");
	out = in ? xasprintf("%.*s.cubin", (int)(strlen(in) - 4), in) : NULL;
	if (!in || !out) {
		r = error_set(err, GPUPROJ_E_IO, name, 0, 0, "cannot write a temporary file: %s",
			      strerror(errno));
		goto out;
	}
	snprintf(archopt, sizeof(archopt), "-arch=sm_%d", arch);
	argv[0] = ptxas;
	argv[1] = archopt;
	argv[2] = "-o";
	argv[3] = out;
	argv[4] = in;
	argv[5] = NULL;
	r = proc_run(argv, &res, err);
	if (r)
		goto out;
	if (res.status != 0) {
		/* Drop "ptxas /tmp/gpuproj-sass-XXXXXX.ptx, line 9; " (a temporary file). */
		const char *msg = first_line(res.err, line, sizeof(line)), *semi = strstr(msg, "; ");

		if (semi && strncmp(msg, "ptxas ", 6) == 0 && strstr(msg, in))
			msg = semi + 2;
		r = error_set(err, GPUPROJ_E_BACKEND, name, 0, 0,
			      "ptxas could not compile the PTX for sm_%d (exit %d): %s%s", arch,
			      res.status, msg, strstr(res.err, "Unsupported .version") ?
			      " (the PTX is newer than this ptxas reads: use the ptxas of the CUDA "
			      "release that built it, e.g. CUDA 12's from `pip install "
			      "nvidia-cuda-nvcc-cu12`, or GPUPROJ_PTXAS_LEGACY)" : "");
		goto out;
	}
	r = file_read_all(out, &cubin, &n, err);
	if (r)
		goto out;
	*ret = (unsigned char *)cubin;
	*ret_len = n;
out:
	proc_result_clear(&res);
	if (in)
		unlink(in);
	if (out)
		unlink(out);
	free(in);
	free(out);
	return r;
}

bool
sass_ptx_needs_legacy(int arch)
{
	char *ptxas;
	bool ok;

	if (arch >= 75)
		return false;
	pthread_once(&jl_once, jl_load);
	if (jl.lib && jl.major < 13) /* 0: unknown (before 12.3) */
		return false;
	ptxas = sass_find_ptxas();
	ok = ptxas && sass_tool_supports(ptxas, SASS_PTXAS, arch);
	free(ptxas);
	return !ok;
}

int
sass_compile_ptx(const char *ptx, size_t len, int arch, const char *name,
		 const char *legacy_ptxas, unsigned char **ret, size_t *ret_len,
		 const char **ret_tool, struct gpuproj_error *err)
{
	struct gpuproj_error jl_err = { 0 };
	char *ptxas;
	int r;

	*ret = NULL;
	*ret_len = 0;
	if (legacy_ptxas) {
		r = compile_ptxas(legacy_ptxas, ptx, len, arch, name, ret, ret_len, err);
		if (r == GPUPROJ_OK)
			*ret_tool = "legacy ptxas";
		return r;
	}
	pthread_once(&jl_once, jl_load);
	if (jl.lib) {
		r = compile_nvjitlink(ptx, len, arch, name, ret, ret_len, &jl_err);
		if (r == GPUPROJ_OK) {
			*ret_tool = "nvJitLink";
			return r;
		}
		if (r == GPUPROJ_E_NOMEM) {
			if (err)
				*err = jl_err;
			return r;
		}
	}
	ptxas = sass_find_ptxas();
	if (!ptxas) {
		if (jl.lib) {
			if (err)
				*err = jl_err;
			return jl_err.status;
		}
		return error_set(err, GPUPROJ_E_MISSING, name, 0, 0,
				 "cannot compile PTX for sm_%d: %s, and ptxas is not in PATH, "
				 "$CUDA_HOME/bin or /usr/local/cuda/bin; install the CUDA toolkit",
				 arch, jl.why);
	}
	r = compile_ptxas(ptxas, ptx, len, arch, name, ret, ret_len, err);
	free(ptxas);
	if (r == GPUPROJ_OK)
		*ret_tool = "ptxas";
	else if (jl.lib && err && r == GPUPROJ_E_BACKEND)
		snprintf(err->message + strlen(err->message),
			 sizeof(err->message) - strlen(err->message), "; %s", jl_err.message);
	return r;
}
