/* SPDX-License-Identifier: MIT */
/*
 * The stderr sink of libproj.so (see log.h).
 *
 * Thread safety: the level is an atomic; each message is formatted into a
 * stack buffer and written with one write(2) call (atomic for a pipe up to
 * PIPE_BUF bytes, and never interleaved with the application's stdio).
 * SIGPIPE is blocked in the writing thread for the write (a closed stderr
 * pipe must not kill the application).
 */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "util.h"

#define PREFIX "[gpuproj] "
#define LINE_MAX_BYTES 2048

static atomic_int log_level = INJ_LOG_INFO;

void
inj_log_set_level(enum inj_log_level level)
{
	atomic_store(&log_level, (int)level);
}

bool
inj_log_enabled(enum inj_log_level level)
{
	return (int)level >= atomic_load(&log_level);
}

void
inj_log_raw(const char *text, size_t len)
{
	static const struct timespec zero;
	sigset_t pipe_set, old, pending;
	bool was_pending, broken = false;

	/*
	 * A stderr pipe whose reader is gone must not kill the application
	 * with SIGPIPE (it might never write to stderr itself): block it
	 * around the write, and consume the one our write raised.
	 */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
	while (len > 0) {
		ssize_t w = write(STDERR_FILENO, text, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			broken = errno == EPIPE;
			break; /* stderr closed: nothing we can do, and nothing to harm */
		}
		text += w;
		len -= (size_t)w;
	}
	if (broken && !was_pending)
		sigtimedwait(&pipe_set, NULL, &zero);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void
inj_logv(enum inj_log_level level, const char *fmt, va_list ap)
{
	char msg[LINE_MAX_BYTES], buf[LINE_MAX_BYTES];
	size_t n = sizeof(PREFIX) - 1;
	int saved = errno;
	locale_t c, old = (locale_t)0;
	int r;

	if (!inj_log_enabled(level))
		return;
	/* Numbers in the C locale, whatever the application set (util.h c_locale()). */
	c = c_locale();
	if (c)
		old = uselocale(c);
	r = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (c)
		uselocale(old);
	if (r < 0)
		msg[0] = '\0';
	else if ((size_t)r >= sizeof(msg))
		memcpy(msg + sizeof(msg) - 4, "...", 4); /* truncated: mark it so a reader knows */
	/*
	 * Kernel names, paths and values come from the application and its
	 * environment: what a terminal or a CI log would act on is escaped
	 * (term_text(); idempotent, so the table's escaped names pass as they are).
	 */
	memcpy(buf, PREFIX, n);
	term_text_buf(msg, buf + n, sizeof(buf) - n - 1);
	n += strlen(buf + n);
	buf[n++] = '\n';
	inj_log_raw(buf, n);
	errno = saved;
}

void
inj_log(enum inj_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	inj_logv(level, fmt, ap);
	va_end(ap);
}

void
inj_log_block(enum inj_log_level level, const char *text)
{
	const char *p = text, *nl;

	if (!inj_log_enabled(level))
		return;
	while (*p) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		inj_log(level, "%.*s", (int)(nl - p), p);
		p = *nl ? nl + 1 : nl;
	}
}
