# SPDX-License-Identifier: GPL-2.0-or-later
# ibnet-hosts-find.sh - how spank-ibnet's scripts find ibnet-hosts, the
# plugin's decisions on the command line. Sourced, not run (POSIX sh):
# gaussian-ib-setup, gaussian-ib-input and the g16/g09 wrapper source it;
# gaussian-ib-setup writes it into each linda-rsockets wrapper it makes.
#
#   ibnet_hosts_find DIR [RECORDED]
#
# Prints the path of the first of:
#   DIR/../build/ibnet-hosts       the source tree DIR belongs to (DIR is scripts/)
#   DIR/../../../bin/ibnet-hosts   the installation DIR belongs to, only where
#                                  DIR is PREFIX/share/spank-ibnet/scripts (a
#                                  source tree's ../../bin is someone else's)
#   ibnet-hosts on PATH            this node's
#   RECORDED                       a path found earlier, elsewhere (the wrapper's:
#                                  the one gaussian-ib-setup used)
# A script's own tree comes before PATH, so that it asks the tool of its own
# version. An empty DIR (a script that belongs to no tree, as the wrapper in
# a Gaussian tree) skips the first two. Status 1, and nothing printed, if
# none is there.

# _ibnet_hosts_at PATH: print PATH if it is an executable file.
_ibnet_hosts_at() {
	[ -f "$1" ] && [ -x "$1" ] && echo "$1"
}

ibnet_hosts_find() {
	if [ -n "${1-}" ]; then
		_ibnet_hosts_at "$1/../build/ibnet-hosts" && return 0
		case $(cd "$1" 2>/dev/null && pwd -P) in
		*/share/spank-ibnet/scripts)
			_ibnet_hosts_at "$1/../../../bin/ibnet-hosts" && return 0 ;;
		esac
	fi
	if _ibnet_hosts=$(command -v ibnet-hosts 2>/dev/null) && [ -x "$_ibnet_hosts" ]; then
		echo "$_ibnet_hosts"
		return 0
	fi
	if [ -n "${2-}" ]; then
		_ibnet_hosts_at "$2" && return 0
	fi
	return 1
}
