# Shared by every bats file: paths, and bats-support/bats-assert.
REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
BUILD=$REPO/build
IBNET_HOSTS=$BUILD/ibnet-hosts
VECTORS=$REPO/tests/vectors
RSPRELOAD=$(for p in /usr/lib/x86_64-linux-gnu/rsocket/librspreload.so \
	/usr/lib64/rsocket/librspreload.so; do [ -e "$p" ] && echo "$p" && break; done)
RSGATE=$BUILD/libibnet-rsgate.so
PAPER_RULE='s/^c([0-9]+-[0-9]+)$/cib\1/'

load /usr/lib/bats/bats-support/load
load /usr/lib/bats/bats-assert/load
