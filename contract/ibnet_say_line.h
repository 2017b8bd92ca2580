/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_say_line.h - one line to stderr in one write(2), for what the job's
 * preloaded libraries say from inside a user's processes.
 *
 * Why not fprintf(stderr, ...): stderr is unbuffered, and from glibc 2.37
 * an unbuffered stream's printf writes its output 128 bytes at a time
 * (Debian 13's 2.41 does; 12's 2.36 wrote the line whole). Several ranks on
 * a node share the step's stderr, so their long lines were cut and
 * interleaved mid-line: in CI a rank's report line was found spliced into
 * another's, and a test reading rank 0's line did not find it. A pipe
 * takes a write of up to PIPE_BUF (4096) bytes whole; a line is cut to
 * IBNET_SAY_LINE_MAX and always ends in its newline.
 *
 * Hidden: each preloaded library (the gate, the job preload, the paced
 * builds) has its own copy, and none lends it to the program or the others.
 */
#ifndef IBNET_SAY_LINE_H
#define IBNET_SAY_LINE_H

/* The line's buffer: a line is at most IBNET_SAY_LINE_MAX - 1 bytes, its newline
 * included, so a write is under PIPE_BUF. */
#define IBNET_SAY_LINE_MAX 2048

/* The line (no newline in fmt: one is added) to stderr in one write(2),
 * the system call (retried on EINTR and a short write), cut to
 * IBNET_SAY_LINE_MAX - 1 bytes ending "...\n" where longer; errno as it was. */
__attribute__((visibility("hidden"), format(printf, 1, 2)))
void ibnet_say_line(const char *fmt, ...);

#endif
