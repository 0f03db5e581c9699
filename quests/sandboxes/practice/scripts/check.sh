#!/usr/bin/env bash
# The project's one true check: every test, one dot a test.
set -eu
cd "$(dirname "$0")/.."
node --test --test-reporter=dot
