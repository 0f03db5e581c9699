#!/usr/bin/env bash
# The plays' setup: the workspace becomes a newcomer's checkout of this repository, as `git
# clone` and `npm ci` leave it. The clone is of the repository this pack is in ($PI_QUESTS_PACK,
# which pi-quests test sets), at its HEAD; node_modules links each package the repository has
# installed (nothing is installed, nothing of the repository is written). A workspace that holds
# the checkout already (a chain's earlier play made it) is left as it is.
set -euo pipefail
if [ -e package.json ]; then exit 0; fi
repo="$(git -C "$PI_QUESTS_PACK" rev-parse --show-toplevel)"
git clone --quiet "$repo" .
mkdir node_modules
ln -s "$repo"/node_modules/* "$repo"/node_modules/.bin "$repo"/node_modules/.package-lock.json node_modules/
# As npm ci leaves it: the installed tree no older than the lock file (scripts/run.sh then installs nothing).
touch -r node_modules/.package-lock.json package-lock.json
