/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rspreload_calls.h - every call any librspreload release replaces.
 *
 * One list for the gate, which must define each of them ahead of
 * librspreload (a call it does not define goes straight to librspreload in
 * every program, chosen or not), and for the probe, which refuses
 * --transport=rsocket on a node whose librspreload exports anything else.
 *
 * From rdma-core's librdmacm/librspreload.map:
 *   v44 (Debian 12) .. v62: the first 26 below (fcntl is listed apart: it is
 *     variadic);
 *   v63: + accept4, dup, fcntl64, sendfile64;
 *   master after v64 (July 2026): + epoll_create, epoll_create1, epoll_ctl,
 *     epoll_wait.
 *
 * X(return type, name, parameters, arguments)
 */
#ifndef RSPRELOAD_CALLS_H
#define RSPRELOAD_CALLS_H

#define RSPRELOAD_CALLS(X)                                                                  \
	X(int, socket, (int d, int t, int p), (d, t, p))                                     \
	X(int, bind, (int s, const struct sockaddr *a, socklen_t l), (s, a, l))              \
	X(int, listen, (int s, int b), (s, b))                                               \
	X(int, accept, (int s, struct sockaddr *a, socklen_t *l), (s, a, l))                 \
	X(int, connect, (int s, const struct sockaddr *a, socklen_t l), (s, a, l))           \
	X(ssize_t, recv, (int s, void *b, size_t n, int f), (s, b, n, f))                    \
	X(ssize_t, recvfrom, (int s, void *b, size_t n, int f, struct sockaddr *a,           \
			      socklen_t *l), (s, b, n, f, a, l))                             \
	X(ssize_t, recvmsg, (int s, struct msghdr *m, int f), (s, m, f))                     \
	X(ssize_t, read, (int s, void *b, size_t n), (s, b, n))                              \
	X(ssize_t, readv, (int s, const struct iovec *v, int n), (s, v, n))                  \
	X(ssize_t, send, (int s, const void *b, size_t n, int f), (s, b, n, f))              \
	X(ssize_t, sendto, (int s, const void *b, size_t n, int f,                           \
			    const struct sockaddr *a, socklen_t l), (s, b, n, f, a, l))      \
	X(ssize_t, sendmsg, (int s, const struct msghdr *m, int f), (s, m, f))               \
	X(ssize_t, write, (int s, const void *b, size_t n), (s, b, n))                       \
	X(ssize_t, writev, (int s, const struct iovec *v, int n), (s, v, n))                 \
	X(int, poll, (struct pollfd *f, nfds_t n, int t), (f, n, t))                         \
	X(int, shutdown, (int s, int h), (s, h))                                             \
	X(int, close, (int s), (s))                                                          \
	X(int, getpeername, (int s, struct sockaddr *a, socklen_t *l), (s, a, l))            \
	X(int, getsockname, (int s, struct sockaddr *a, socklen_t *l), (s, a, l))            \
	X(int, setsockopt, (int s, int lv, int o, const void *v, socklen_t l),               \
	  (s, lv, o, v, l))                                                                  \
	X(int, getsockopt, (int s, int lv, int o, void *v, socklen_t *l), (s, lv, o, v, l))  \
	X(int, dup2, (int a, int b), (a, b))                                                 \
	X(ssize_t, sendfile, (int o, int i, off_t *p, size_t n), (o, i, p, n))               \
	X(int, accept4, (int s, struct sockaddr *a, socklen_t *l, int f), (s, a, l, f))      \
	X(int, dup, (int a), (a))                                                            \
	X(ssize_t, sendfile64, (int o, int i, off64_t *p, size_t n), (o, i, p, n))           \
	X(int, epoll_create, (int n), (n))                                                   \
	X(int, epoll_create1, (int f), (f))                                                  \
	X(int, epoll_ctl, (int e, int op, int fd, struct epoll_event *ev), (e, op, fd, ev))  \
	X(int, epoll_wait, (int e, struct epoll_event *ev, int n, int t), (e, ev, n, t))

/*
 * Defined by hand in the gate: select (served through poll where
 * librspreload's own is wrong) and the variadic fcntl, fcntl64.
 */
#define RSPRELOAD_CALLS_BY_HAND "select", "fcntl", "fcntl64"

#define RSPRELOAD_CALL_NAME(ret, name, params, args) #name,
/* Every name, for the probe: { RSPRELOAD_CALL_NAMES, NULL }. */
#define RSPRELOAD_CALL_NAMES RSPRELOAD_CALLS(RSPRELOAD_CALL_NAME) RSPRELOAD_CALLS_BY_HAND

#endif
