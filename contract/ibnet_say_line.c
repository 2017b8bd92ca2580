/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ibnet_say_line.c - one line to stderr in one write(2); see the header for why. */
#include "ibnet_say_line.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The line into out[len] as it is written: cut to len - 1 bytes with "..."
 * where longer, always ending in "\n". Returns its length. */
__attribute__((format(printf, 3, 0)))
static size_t format_line(char *out, size_t len, const char *fmt, va_list ap)
{
	static const char cut[] = "...\n";
	int n;

	if (len < sizeof(cut)) {
		if (len)
			out[0] = '\0';
		return 0;
	}
	n = vsnprintf(out, len - 1, fmt, ap);	/* room kept for the newline */
	if (n < 0)
		n = 0;
	if ((size_t)n >= len - 1) {	/* cut: say so */
		memcpy(out + len - sizeof(cut), cut, sizeof(cut));
		return len - 1;
	}
	out[n] = '\n';
	out[n + 1] = '\0';
	return (size_t)n + 1;
}

void ibnet_say_line(const char *fmt, ...)
{
	char line[IBNET_SAY_LINE_MAX];
	int saved = errno;
	size_t len, done = 0;
	va_list ap;

	va_start(ap, fmt);
	len = format_line(line, sizeof(line), fmt, ap);
	va_end(ap);
	while (done < len) {
		/* The system call itself, as glibc's fprintf wrote: not a write()
		 * another preloaded library wraps (librspreload in an rsocket
		 * step, an I/O profiler such as Darshan counting it as the
		 * program's). */
		long w = syscall(SYS_write, STDERR_FILENO, line + done, len - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	errno = saved;
}
