/* SPDX-License-Identifier: MIT */
/*
 * The gpuproj command: shared helpers of the sub-command files.
 */
#ifndef GPUPROJ_CLI_H
#define GPUPROJ_CLI_H

#include <stdbool.h>
#include <getopt.h>
#include <stdio.h>

#include <gpuproj/error.h>
#include <gpuproj/model.h>
#include <gpuproj/target.h>

/*
 * The exit statuses of every command: the one table (docs/cli/gpuproj.md
 * "Exit status"; cli_print_exit_status() prints it). The convention of
 * diff(1), cmp(1) and grep(1), and of `gpuproj gate` since it was
 * written: 1 is a negative answer, 2 is trouble, so a CI job tells "the
 * gate found a regression" from "the gate could not decide".
 */
enum cli_exit_status {
	EXIT_OK = 0,       /* success; gate: pass */
	EXIT_VERDICT = 1,  /* the verdict failed: gate found a regression */
	/*
	 * No result: bad usage or input, an unknown GPU, an output that
	 * cannot be written, out of memory. Nothing is written.
	 */
	EXIT_ERROR = 2,
	EXIT_USAGE = EXIT_ERROR, /* bad usage: the status of any error */
	EXIT_FAIL = EXIT_ERROR,  /* an error while working: the same status */
	EXIT_CANNOT_EXEC = 126,  /* run: APP cannot be executed (as sh(1)) */
	EXIT_NOT_FOUND = 127,    /* run: APP not found (as sh(1)) */
};

/*
 * "Exit status: …" for `cmd`'s --help (NULL: gpuproj's own, every status),
 * from the table in cli-common.c.
 */
void cli_print_exit_status(FILE *f, const char *cmd);

/* Sub-commands: argv[0] is the sub-command name. */
int cmd_project(int argc, char **argv);
int cmd_targets(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_ncu_metrics(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_sass(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_bench(int argc, char **argv);

/*
 * The sources of `gpuproj import` and the verbs of `gpuproj targets`
 * (with their argument, "show NAME"), from the tables of cmd-import.c and
 * cmd-targets.c: the i-th, or NULL past the last.
 */
const char *cli_import_source(size_t i);
const char *cli_targets_verb(size_t i);

/* "gpuproj: <cmd>: message" on stderr; returns EXIT_USAGE (EXIT_ERROR). */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "gpuproj: message" on stderr; returns EXIT_FAIL (EXIT_ERROR). */
int cli_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print a library error as "gpuproj: file:line:col: message"; returns EXIT_FAIL (EXIT_ERROR). */
int cli_fail_error(const struct gpuproj_error *err);
/* "gpuproj: warning: message" on stderr (escaped as cli_fail()'s). */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Text from an input (a kernel, device or file name, an importer's warning)
 * as it may be shown on a terminal or in a CI log: escaped by util.h's
 * term_text(). The copy stays valid until 16 later calls (the command is
 * single-threaded where it prints); "" when out of memory. cli_usage_error(),
 * cli_fail() and cli_warn() escape their whole message themselves.
 */
const char *cli_shown(const char *s);

/* Load --targets FILE, $GPUPROJ_TARGETS or the built-in set; prints errors. */
int cli_load_targets(const char *path, struct gpuproj_targets **ret, const char **ret_origin);

/*
 * The GPU a --target NAME names (name or match string). When there is none,
 * prints "gpuproj: [CMD: ]" and gpuproj_targets_lookup()'s message ("target
 * GPU 'NAME' is not in targets.yaml; close names: … (`gpuproj targets list`
 * shows all)") and returns NULL.
 */
const struct gpuproj_target *cli_target(const struct gpuproj_targets *targets, const char *cmd,
					const char *name);

/*
 * The usage error for what getopt_long returned as ':' (missing value) or
 * '?' (unknown option), naming the option as the user wrote it (a short
 * option inside a cluster such as -qx by its letter). Returns EXIT_USAGE.
 */
int cli_option_error(const char *cmd, int c, char *const *argv);

/* Print "NAME  summary" for every model (`--model list`). */
void cli_print_models(void);

/*
 * The words of a table joined for a message: "a, b or c", each between
 * `quote` ("" or "'"). Returns buf (always NUL-terminated when size > 0).
 */
const char *cli_word_list(char *buf, size_t size, const struct gpuproj_word *w, size_t n,
			  const char *quote);
/* *ret = the value of the word `value` is (exactly) in w[0..n); false when none is. */
bool cli_word(const char *value, const struct gpuproj_word *w, size_t n, int *ret);

/*
 * The projection options of `project` and `validate` (--l2-capacity,
 * --waves, --occupancy, --clock, --compute, --rates, --launch-floor,
 * --fp32): in a command's getopt_long table with the value
 * CLI_O_MODEL(enum gpuproj_option).
 */
#define CLI_O_MODEL(o) (1000 + (int)(o))
/*
 * getopt_long's `c` when it is one of those: its value `value`
 * (gpuproj_option_from_name(): a word of the option's table or "default",
 * in any case) into `mopt`; `name` is the option's entry in the table
 * (getopt_long's longindex). Returns 1 when applied; 0 when `c` is not
 * one of them; -1 after printing "gpuproj: CMD: --NAME must be <the
 * table's words>, not 'VALUE'".
 */
int cli_model_option(const char *cmd, const char *name, int c, const char *value,
		     struct gpuproj_model_options *mopt);
/*
 * --intervals FILE|builtin|levels: "levels" sets mopt->level_interval,
 * "builtin" keeps the built-in table, FILE is loaded into *iv (an earlier
 * one freed; the caller frees the last) and made mopt->intervals. Prints
 * the error; returns EXIT_OK or EXIT_FAIL.
 */
int cli_apply_intervals(const char *value, struct gpuproj_model_options *mopt,
			struct gpuproj_intervals **iv);

/*
 * Write what `render` prints to `path` (NULL or "-": standard output). A
 * file is rendered in memory first and then written atomically, so a
 * failure leaves no half-written output. Prints "gpuproj: PATH: why" on
 * failure. Returns EXIT_OK or EXIT_FAIL.
 */
int cli_write_output(const char *path, int (*render)(FILE *f, void *userdata), void *userdata);

/*
 * --format NAME: *ret = the index of NAME in names[0..n) (list the names in
 * the order of the command's format enum). Otherwise prints "gpuproj: CMD:
 * --format must be A, B or C, not 'NAME'" and returns false.
 */
bool cli_parse_format(const char *cmd, const char *value, const char *const *names, size_t n,
		      int *ret);

/* Parse a positive integer option value; prints a usage error. */
bool cli_parse_size(const char *cmd, const char *opt, const char *value, size_t *ret);

/* Whether stderr is a terminal. */
bool cli_stderr_is_tty(void);

/*
 * The options every command that works long takes (the one table:
 * cli_shared_options in cli-common.c; docs/cli/gpuproj.md "Options every
 * command shares"): -q/--quiet (no progress; warnings and errors stay)
 * and --progress auto|always|never. A command's getopt table is
 * cli_options(own): its own entries, then the shared ones.
 */
enum cli_progress_mode { CLI_PROGRESS_AUTO, CLI_PROGRESS_ALWAYS, CLI_PROGRESS_NEVER };
struct cli_shared {
	enum cli_progress_mode progress;
	bool quiet;
};
#define CLI_O_PROGRESS 3000
/* own + the shared entries, terminated; static storage (one command per process). */
const struct option *cli_options(const struct option *own);
/*
 * own + -q/--quiet only, for the commands that print at once and have no
 * progress to show (`targets`, `ncu-metrics`: -q drops their notes on
 * stderr); as cli_options() otherwise.
 */
const struct option *cli_quiet_options(const struct option *own);
/*
 * getopt_long's `c` when it is a shared option: applied to `s`; returns 1,
 * 0 when `c` is not one, -1 after the usage error of a bad --progress.
 */
int cli_shared_option(const char *cmd, int c, const char *value, struct cli_shared *s);
/* The help lines of the shared options. */
void cli_print_shared_help(FILE *f);

/*
 * Progress on standard error (cli_progress_update() as a library's progress
 * callback): on a terminal one line redrawn, with the share done and an
 * estimate of the time left; elsewhere (a CI log) a line each 10 % or 10 s,
 * from the first 10 s on (a short run prints nothing) or from the start with
 * --progress always; nothing with never or --quiet.
 */
struct cli_progress {
	const char *cmd, *unit;   /* "validate", "kernel x target" */
	bool on, tty, shown;
	bool ended;               /* done == total shown: a repeat is not shown again */
	double start, last;       /* s, monotonic */
	size_t last_tenth;
	char phase[48];           /* cli_progress_phase(): the phase shown as the unit */
};
void cli_progress_init(struct cli_progress *p, const struct cli_shared *s, const char *cmd,
		       const char *unit);
/* `userdata` is a struct cli_progress. */
void cli_progress_update(void *userdata, size_t done, size_t total);
/*
 * For a library's phased progress ((phase, done, total): sass, report):
 * the phase is the unit shown ("gpuproj report: 2/5 loading (40%)"); a new
 * phase starts its 10 % steps afresh, the clock runs on. `p` as above.
 */
void cli_progress_phase(struct cli_progress *p, const char *phase, size_t done, size_t total);
/* Before a warning: end a redrawn line so the warning starts a fresh one. */
void cli_progress_break(struct cli_progress *p);

#endif
