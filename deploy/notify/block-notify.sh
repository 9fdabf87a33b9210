#!/bin/sh
# A Bitcoin Core-style node's -blocknotify: tells each app instance that a block came, so its deposit watcher
# reads the chain at once instead of at its next poll (see docs/deposit-push.md).
#
#   block-notify.sh NETWORK HEADER_FILE URL...
#
# NETWORK is the watcher's (litecoin, bitcoin); HEADER_FILE holds the one line
# "Authorization: Bearer <DEPOSIT_NOTIFY_SECRET>" (readable by the node's user only, never on a command line);
# each URL is an instance's DEPOSIT_NOTIFY_LISTEN, e.g. http://127.0.0.1:9735. The calls go out side by side,
# each given 2 seconds: a notice that does not arrive is caught by the watcher's poll.
set -u
network=$1
header=$2
shift 2
for url in "$@"; do
  curl -fsS -m 2 -o /dev/null -X POST -H "@$header" "$url/notify/$network" &
done
wait
