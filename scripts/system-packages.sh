#!/usr/bin/env bash
# The system programs the whole test suite starts for real, installed from Debian's packages when one is
# missing (as root; nothing is downloaded from elsewhere). A machine that has them all is left untouched.
#   redis-server, redis-cli   policy tests on one server and on a three-node Redis Cluster
#   postgres (postgresql)     the postgres SQL kind, a throwaway cluster per run
#   chromium                  the console and the extension's end-to-end tests (code-server)
#   rg and the headers        code-server's native modules are built locally (test/e2e/setup-code-server.sh)
set -euo pipefail

needed=()
command -v redis-server > /dev/null || needed+=(redis-server)
compgen -G '/usr/lib/postgresql/*/bin/postgres' > /dev/null || needed+=(postgresql)
command -v chromium > /dev/null || needed+=(chromium)
command -v rg > /dev/null || needed+=(ripgrep)
for header in pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev; do
  dpkg -s "$header" > /dev/null 2>&1 || needed+=("$header")
done
[[ ${#needed[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -ne 0 ]]; then
  echo "Missing system packages: ${needed[*]} (install them with apt-get as root)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${needed[@]}" > /dev/null
