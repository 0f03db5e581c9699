#!/usr/bin/env bash
# The project's one true check: every test, one dot each.
cd "$(dirname "$0")/.." && node --test --test-reporter=dot
