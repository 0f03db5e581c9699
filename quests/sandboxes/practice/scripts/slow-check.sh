#!/usr/bin/env bash
# A check that takes its time: a line a second for ten seconds, then the tests.
# With --forever it never ends (stop it with Escape in Pi, or Ctrl+C).
set -u
cd "$(dirname "$0")/.."
step=1
while :; do
  echo "slow check: step $step..."
  sleep 1
  step=$((step + 1))
  if [ "${1:-}" != "--forever" ] && [ "$step" -gt 10 ]; then break; fi
done
node --test
