/* SPDX-License-Identifier: MIT */
/*
 * What every command shares (cli.h): messages (escaped for the terminal),
 * loading targets, parsing the options several commands take, writing an
 * output file atomically. Thread safety: single-threaded, as the command.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gpuproj/interval.h>

#include "cli.h"
#include "util.h"

/*
 * One message line on stderr after `prefix`, escaped for a terminal or a CI
 * log (util.h term_text()): messages quote file names, options and what
 * inputs say, any of which may hold ESC, BEL or a carriage return.
 */
static void __attribute__((format(printf, 2, 0)))
message_v(const char *prefix, const char *fmt, va_list ap)
{
	char *text = NULL, *shown;

	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	shown = term_strdup(text ? text : "out of memory");
	fprintf(stderr, "%s%s\n", prefix, shown ? shown : "out of memory");
	free(shown);
	free(text);
}

const char *
cli_shown(const char *s)
{
	static char *ring[16];
	static unsigned next;
	char **slot = &ring[next++ % 16];

	free(*slot);
	*slot = term_strdup(s ? s : "");
	return *slot ? *slot : "";
}

int
cli_usage_error(const char *cmd, const char *fmt, ...)
{
	char prefix[96];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "gpuproj: %s%s", cmd ? cmd : "", cmd ? ": " : "");
	va_start(ap, fmt);
	message_v(prefix, fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try 'gpuproj %s%s--help'.\n", cmd ? cmd : "", cmd ? " " : "");
	return EXIT_USAGE;
}

int
cli_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message_v("gpuproj: ", fmt, ap);
	va_end(ap);
	return EXIT_FAIL;
}

void
cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	message_v("gpuproj: warning: ", fmt, ap);
	va_end(ap);
}

int
cli_fail_error(const struct gpuproj_error *err)
{
	char buf[GPUPROJ_ERROR_MSG_SIZE + GPUPROJ_ERROR_FILE_SIZE + 64];

	return cli_fail("%s", gpuproj_error_format(err, buf, sizeof(buf)));
}

int
cli_load_targets(const char *path, struct gpuproj_targets **ret, const char **ret_origin)
{
	struct gpuproj_error err = { 0 };

	if (gpuproj_targets_load_default(path, ret, ret_origin, &err))
		return cli_fail_error(&err);
	return EXIT_OK;
}

const struct gpuproj_target *
cli_target(const struct gpuproj_targets *targets, const char *cmd, const char *name)
{
	static const struct gpuproj_lookup_words words = { .what = "target GPU" };
	struct gpuproj_error err = { 0 };
	const struct gpuproj_target *t;

	if (gpuproj_targets_lookup(targets, name, &words, &t, &err)) {
		cli_fail("%s%s%s", cmd ? cmd : "", cmd ? ": " : "", err.message);
		return NULL;
	}
	return t;
}

int
cli_option_error(const char *cmd, int c, char *const *argv)
{
	const char *word = optind > 0 ? argv[optind - 1] : "";
	char letter[3] = { '-', (char)optopt, '\0' };

	/* A long option is named as written; a short one by its letter. */
	if (strncmp(word, "--", 2) != 0 && optopt > 0 && optopt < 128)
		word = letter;
	if (c == ':')
		return cli_usage_error(cmd, "option '%s' needs a value", word);
	return cli_usage_error(cmd, "unknown option '%s'", word);
}

void
cli_print_models(void)
{
	size_t i;

	for (i = 0; i < gpuproj_model_count(); i++)
		printf("%-10s %s\n", gpuproj_model_name(gpuproj_model_at(i)),
		       gpuproj_model_summary(gpuproj_model_at(i)));
	printf("%-10s %s (by name only, not in 'all')\n", "naive",
	       gpuproj_model_summary(gpuproj_model_find("naive")));
}

const char *
cli_word_list(char *buf, size_t size, const struct gpuproj_word *w, size_t n, const char *quote)
{
	size_t i, len;

	if (!size)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s%s%s",
			 i == 0 ? "" : i + 1 == n ? " or " : ", ", quote, w[i].name, quote);
	}
	return buf;
}

bool
cli_word(const char *value, const struct gpuproj_word *w, size_t n, int *ret)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(value, w[i].name) == 0) {
			*ret = w[i].value;
			return true;
		}
	}
	return false;
}

/*
 * A projection option's value (gpuproj_option_from_name()), or the usage
 * error "FLAG must be <its words>, not 'VALUE'".
 */
static bool
parse_option(const char *cmd, const char *flag, enum gpuproj_option o, const char *value,
	     int *ret)
{
	const struct gpuproj_word *w;
	char list[256];
	size_t n;

	if (gpuproj_option_from_name(o, value, ret) == GPUPROJ_OK)
		return true;
	w = gpuproj_option_words(o, &n);
	cli_usage_error(cmd, "%s must be %s, not '%s'", flag,
			cli_word_list(list, sizeof(list), w, n, ""), value);
	return false;
}

int
cli_model_option(const char *cmd, const char *name, int c, const char *value,
		 struct gpuproj_model_options *mopt)
{
	enum gpuproj_option o = (enum gpuproj_option)(c - CLI_O_MODEL(0));
	char flag[64];
	int v;

	if (c < CLI_O_MODEL(0) || c >= CLI_O_MODEL(GPUPROJ_OPTION_COUNT))
		return 0;
	snprintf(flag, sizeof(flag), "--%s", name);
	if (!parse_option(cmd, flag, o, value, &v))
		return -1;
	switch (o) {
	case GPUPROJ_OPTION_L2_CAPACITY: mopt->l2_capacity = (enum gpuproj_l2_capacity)v; break;
	case GPUPROJ_OPTION_WAVES: mopt->waves = (enum gpuproj_waves)v; break;
	case GPUPROJ_OPTION_OCCUPANCY_TERM:
		mopt->occupancy_term = (enum gpuproj_occupancy_term)v;
		break;
	case GPUPROJ_OPTION_CLOCK: mopt->clock = (enum gpuproj_clock)v; break;
	case GPUPROJ_OPTION_COMPUTE: mopt->compute = (enum gpuproj_compute)v; break;
	case GPUPROJ_OPTION_RATES: mopt->rates = (enum gpuproj_rates)v; break;
	case GPUPROJ_OPTION_LAUNCH_FLOOR:
		mopt->launch_floor = (enum gpuproj_launch_floor)v;
		break;
	case GPUPROJ_OPTION_FP32: mopt->fp32 = (enum gpuproj_fp32)v; break;
	case GPUPROJ_OPTION_COUNT: break;
	}
	return 1;
}

int
cli_apply_intervals(const char *value, struct gpuproj_model_options *mopt,
		    struct gpuproj_intervals **iv)
{
	struct gpuproj_error err = { 0 };

	if (strcmp(value, "levels") == 0) {
		mopt->level_interval = true;
	} else if (strcmp(value, "builtin") != 0) {
		gpuproj_intervals_free(*iv);
		*iv = NULL;
		if (gpuproj_intervals_load(value, iv, &err))
			return cli_fail_error(&err);
		mopt->intervals = *iv;
	}
	return EXIT_OK;
}

int
cli_write_output(const char *path, int (*render)(FILE *f, void *userdata), void *userdata)
{
	struct gpuproj_error err = { 0 };
	struct file_tmp t;
	FILE *f;
	int r, e;
	bool bad;

	if (!path || strcmp(path, "-") == 0) {
		r = render(stdout, userdata);
		if (fflush(stdout) != 0 || r)
			return cli_fail("<stdout>: write error: %s", strerror(errno));
		return EXIT_OK;
	}
	/*
	 * Rendered straight into the hidden temporary file, then renamed: a large
	 * CSV is never held in memory, and a failure still leaves no
	 * half-written output.
	 */
	if (file_tmp_open(&t, path, 0, &err))
		return cli_fail_error(&err);
	f = file_tmp_stream(&t);
	if (!f) {
		file_tmp_abort(&t);
		return cli_fail("out of memory");
	}
	r = render(f, userdata);
	e = errno;
	bad = ferror(f) != 0;
	if (r || bad) {
		file_tmp_abort(&t);
		if (r == GPUPROJ_E_IO || (!r && bad))
			return cli_fail("%s: write error: %s", path, strerror(e));
		return cli_fail("%s: %s", path, gpuproj_strerror(r));
	}
	return file_tmp_commit(&t, NULL, &err) ? cli_fail_error(&err) : EXIT_OK;
}

bool
cli_parse_format(const char *cmd, const char *value, const char *const *names, size_t n,
		 int *ret)
{
	char list[256] = "";
	size_t i, len;

	for (i = 0; i < n; i++) {
		if (strcmp(value, names[i]) == 0) {
			*ret = (int)i;
			return true;
		}
	}
	for (i = 0; i < n; i++) {
		len = strlen(list);
		snprintf(list + len, sizeof(list) - len, "%s%s",
			 i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
	}
	cli_usage_error(cmd, "--format must be %s, not '%s'", list, value);
	return false;
}

bool
cli_parse_size(const char *cmd, const char *opt, const char *value, size_t *ret)
{
	char *end;
	unsigned long long v;

	/* Digits only: strtoull would accept blanks and a sign, and wrap "-5". */
	if (!value || !isdigit((unsigned char)value[0])) {
		cli_usage_error(cmd, "%s needs a positive integer, got '%s'", opt,
				value ? value : "");
		return false;
	}
	errno = 0;
	v = strtoull(value, &end, 10);
	if (*end || v == 0 || errno == ERANGE || v > SIZE_MAX) {
		cli_usage_error(cmd, "%s needs a positive integer, got '%s'", opt, value);
		return false;
	}
	*ret = (size_t)v;
	return true;
}

bool
cli_stderr_is_tty(void)
{
	return isatty(STDERR_FILENO) == 1;
}

/*
 * The statuses of cli.h's enum cli_exit_status: what they mean, in gate's
 * words, and the one command that uses a status (NULL: every command).
 */
static const struct exit_row {
	int status;
	const char *meaning, *gate;
	const char *only;
} exit_rows[] = {
	{ EXIT_OK, "success", "pass", NULL },
	{ EXIT_VERDICT, "the verdict failed (gate: a regression)", "a regression", "gate" },
	{ EXIT_ERROR, "an error: bad usage or input, an unknown GPU, an output that cannot be "
	  "written (nothing is written)", "no verdict: bad usage or input, an unknown GPU, "
	  "different source GPUs, a report that cannot be written (none is written)", NULL },
	{ EXIT_CANNOT_EXEC, "APP cannot be executed (run)", NULL, "run" },
	{ EXIT_NOT_FOUND, "APP not found (run)", NULL, "run" },
};

void
cli_print_exit_status(FILE *f, const char *cmd)
{
	bool run = cmd && strcmp(cmd, "run") == 0;
	char text[1024], *word, *save = NULL;
	size_t i, len, col = 0, n = run;

	len = (size_t)snprintf(text, sizeof(text), "Exit status:%s", run ? " APP's own" : "");
	for (i = 0; i < sizeof(exit_rows) / sizeof(exit_rows[0]); i++) {
		const struct exit_row *e = &exit_rows[i];

		if ((e->only && cmd && strcmp(e->only, cmd) != 0) || (run && e->status == EXIT_OK))
			continue;
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s %d %s",
					n++ ? ";" : "", e->status,
					cmd && strcmp(cmd, "gate") == 0 ? e->gate : e->meaning);
	}
	/* Wrapped at 79 columns, as the help texts are. */
	for (word = strtok_r(text, " ", &save); word; word = strtok_r(NULL, " ", &save)) {
		len = strlen(word);
		if (col && col + 1 + len > 79) {
			fputc('\n', f);
			col = 0;
		}
		fprintf(f, "%s%s", col ? " " : "", word);
		col += (col ? 1 : 0) + len;
	}
	fputs(".\n", f);
}

/* The shared options: the one table (cli.h). */
static const struct option cli_shared_options[] = {
	{ "quiet", no_argument, NULL, 'q' },
	{ "progress", required_argument, NULL, CLI_O_PROGRESS },
};
static const char *const progress_words[] = { "auto", "always", "never" };

/* own + the first `n_shared` shared entries, terminated, in static storage. */
static const struct option *
options_with(const struct option *own, size_t n_shared)
{
	static struct option all[128];
	size_t n = 0, i;

	while (own[n].name && n + ARRAY_LENGTH(cli_shared_options) + 1 < ARRAY_LENGTH(all)) {
		all[n] = own[n];
		n++;
	}
	for (i = 0; i < n_shared; i++)
		all[n++] = cli_shared_options[i];
	memset(&all[n], 0, sizeof(all[n]));
	return all;
}

const struct option *
cli_options(const struct option *own)
{
	return options_with(own, ARRAY_LENGTH(cli_shared_options));
}

const struct option *
cli_quiet_options(const struct option *own)
{
	return options_with(own, 1); /* "quiet" is the table's first entry */
}

int
cli_shared_option(const char *cmd, int c, const char *value, struct cli_shared *s)
{
	int v;

	if (c == 'q') {
		s->quiet = true;
		return 1;
	}
	if (c != CLI_O_PROGRESS)
		return 0;
	for (v = 0; v < (int)ARRAY_LENGTH(progress_words); v++) {
		if (strcmp(value, progress_words[v]) == 0) {
			s->progress = (enum cli_progress_mode)v;
			return 1;
		}
	}
	cli_usage_error(cmd, "--progress must be auto, always or never, not '%s'", value);
	return -1;
}

void
cli_print_shared_help(FILE *f)
{
	fputs("Progress (as every command that works long; docs/cli/gpuproj.md):\n"
	      "  -q, --quiet                  no progress and no summary (warnings and\n"
	      "                               errors stay)\n"
	      "  --progress auto|always|never progress on stderr: auto (default) a line\n"
	      "                               redrawn with the time left on a terminal, else\n"
	      "                               a line each 10 % or 10 s after the first 10 s;\n"
	      "                               always: those lines from the start\n\n", f);
}

static double
mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void
cli_progress_init(struct cli_progress *p, const struct cli_shared *s, const char *cmd,
		  const char *unit)
{
	memset(p, 0, sizeof(*p));
	p->cmd = cmd;
	p->unit = unit;
	p->on = !s->quiet && s->progress != CLI_PROGRESS_NEVER;
	p->tty = s->progress == CLI_PROGRESS_AUTO && cli_stderr_is_tty();
	p->start = p->last = mono_s();
	/* always: from the start; auto off a terminal: from 10 s on. */
	p->shown = s->progress == CLI_PROGRESS_ALWAYS;
}

/* "1 min 20 s", "8 s" */
static void
duration_text(double s, char *buf, size_t size)
{
	if (s >= 60)
		snprintf(buf, size, "%.0f min %.0f s", floor(s / 60), fmod(s, 60));
	else
		snprintf(buf, size, "%.0f s", s);
}

void
cli_progress_update(void *userdata, size_t done, size_t total)
{
	struct cli_progress *p = userdata;
	double t = mono_s(), el = t - p->start;
	size_t tenth = total ? done * 10 / total : 10;
	char left[80] = "", took[48];

	if (!p->on || !total || (done == total && p->ended))
		return;
	p->ended = done == total;
	if (p->tty) {
		if (done < total && t - p->last < 0.1)
			return;
		if (done > 0 && done < total) {
			/* The rate so far, for what is left. */
			duration_text(el * (double)(total - done) / (double)done, took,
				      sizeof(took));
			snprintf(left, sizeof(left), ", about %s left", took);
		}
		fprintf(stderr, "\r\033[Kgpuproj %s: %zu/%zu %s (%zu%%%s)", p->cmd, done, total,
			p->unit, done * 100 / total, left);
		if (done == total)
			fputc('\n', stderr);
		p->last = t;
		p->shown = done < total;
		fflush(stderr);
		return;
	}
	/* A log: each 10 % step or 10 s, once the run has taken 10 s (or always). */
	if (!p->shown && el < 10)
		return;
	if (done < total && tenth == p->last_tenth && t - p->last < 10 && p->shown)
		return;
	if (done == total && !p->shown && el < 10)
		return;
	p->shown = true;
	p->last = t;
	p->last_tenth = tenth;
	duration_text(el, took, sizeof(took));
	fprintf(stderr, "gpuproj %s: %zu/%zu %s (%zu%%, %s)\n", p->cmd, done, total, p->unit,
		done * 100 / total, took);
	fflush(stderr);
}

void
cli_progress_phase(struct cli_progress *p, const char *phase, size_t done, size_t total)
{
	if (!phase)
		phase = "";
	if (strcmp(p->phase, phase) != 0) {
		snprintf(p->phase, sizeof(p->phase), "%s", phase);
		p->last_tenth = 0;
		p->ended = false;
	}
	p->unit = p->phase;
	cli_progress_update(p, done, total);
}

void
cli_progress_break(struct cli_progress *p)
{
	if (p && p->tty && p->shown) {
		fputc('\n', stderr);
		p->shown = false;
	}
}
