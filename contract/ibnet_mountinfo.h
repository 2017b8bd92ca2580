/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ibnet_mountinfo.h - what both sides read of /proc/self/mountinfo the same
 * way: the plugin's BPF tier (the cgroup2 mount, spank-ibnet/ibnet_bpf_floor.c)
 * and the paced library (the memory cgroup's mount, alltoall/ibnet_a2a_room.c).
 */
#ifndef IBNET_MOUNTINFO_H
#define IBNET_MOUNTINFO_H

/* mountinfo escapes blanks in paths as \040 (octal); undo that in place. */
static inline void ibnet_mountinfo_unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

#endif
