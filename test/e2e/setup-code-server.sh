#!/usr/bin/env bash
# Installs a real VS Code (code-server, from the npm registry) that runs offline, following
# ../shared/notes/vscode-offline.md. Idempotent: a finished install is marked and reused.
# System packages (chromium, ripgrep, build headers) are .ci/run's job; this script only needs npm.
set -euo pipefail

VERSION="${CODE_SERVER_VERSION:-4.100.3}"
HOST="${TOLLGATE_VSCODE_HOST:-$HOME/.cache/tollgate-vscode-host/$VERSION}"
DONE="$HOST/.installed"

if [[ -f "$DONE" ]]; then
  echo "code-server $VERSION already installed in $HOST"
  exit 0
fi

export npm_config_yes=true npm_config_audit=false npm_config_fund=false
mkdir -p "$HOST"
cd "$HOST"
[[ -f package.json ]] || npm init -y > /dev/null
# --ignore-scripts: code-server's postinstall downloads ripgrep from the internet; the steps below do its work.
npm install "code-server@$VERSION" playwright-core@1 --ignore-scripts --no-save

cd node_modules/code-server/lib/vscode
npm install --omit=dev --ignore-scripts
mkdir -p node_modules/@vscode/ripgrep/bin
cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
npm rebuild node-pty @parcel/watcher @vscode/spdlog kerberos native-watchdog @vscode/deviceid
ln -sfn node_modules node_modules.asar

cd "$HOST"
npm rebuild argon2
touch "$DONE"
echo "code-server $VERSION installed in $HOST"
