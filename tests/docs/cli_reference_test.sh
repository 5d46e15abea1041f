#!/bin/sh
# Issue 26 item 1: docs/cli.md is the CLI reference. Every command that
# `xdsfed --help` lists has a "## COMMAND" section, and every flag its help
# line names appears in that section; the global flags of the usage line
# appear in the reference too.
# Usage: tests/docs/cli_reference_test.sh XDSFED SOURCE_DIR
set -u
xdsfed=$1
doc="$2/docs/cli.md"
failures=0
help=$("$xdsfed" --help 2>&1) || { echo "FAIL xdsfed --help: $help"; exit 1; }
commands=0
for flag in $(printf '%s\n' "$help" | sed -n 1p | grep -o -- '--[a-z][a-z-]*'); do
  if ! grep -qF -- "$flag" "$doc"; then
    echo "FAIL global flag $flag is not in docs/cli.md"
    failures=$((failures + 1))
  fi
done
# The command lines: two-space indent after "commands:".
printf '%s\n' "$help" | sed -n '/^commands:/,$p' | grep '^  [a-z]' >"${TMPDIR:-/tmp}/cli_ref.$$"
while read -r command rest; do
  commands=$((commands + 1))
  # The section: from "## command" to the next "## ".
  section=$(awk -v h="## $command" '$0 == h { on = 1; next } on && /^## / { exit } on' "$doc")
  if [ -z "$section" ]; then
    echo "FAIL command $command has no \"## $command\" section in docs/cli.md"
    failures=$((failures + 1))
    continue
  fi
  for flag in $(printf '%s\n' "$rest" | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    if ! printf '%s\n' "$section" | grep -qF -- "$flag"; then
      echo "FAIL $command: flag $flag is not in its docs/cli.md section"
      failures=$((failures + 1))
    fi
  done
done <"${TMPDIR:-/tmp}/cli_ref.$$"
rm -f "${TMPDIR:-/tmp}/cli_ref.$$"
if [ "$commands" -eq 0 ]; then
  echo "FAIL xdsfed --help lists no command"
  exit 1
fi
[ "$failures" -eq 0 ] || exit 1
echo "$commands commands: every flag of xdsfed --help is in docs/cli.md"
