#!/bin/sh
# Issue 26 item 1: the README's module map is true. Every library folder
# under lib/ has a row in the map's table and a place in the dependency
# order the README states, and every module the order names exists.
# Usage: tests/docs/module_map_test.sh [SOURCE_DIR]   (default: the repo)
set -u
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
readme="$root/README.md"
failures=0
# The order: the backquoted list after "modules to its left:".
order=$(tr '\n' ' ' <"$readme" | sed -n 's/.*modules to its left: `\([^`]*\)`.*/\1/p' | tr -d ',')
if [ -z "$order" ]; then
  echo "FAIL the README states no module order (\"modules to its left: \`...\`\")"
  exit 1
fi
for dir in "$root"/lib/*/; do
  module=$(basename "$dir")
  if ! grep -qF "| \`lib/$module/\` |" "$readme"; then
    echo "FAIL lib/$module has no row in the README's module map"
    failures=$((failures + 1))
  fi
  case " $order " in
    *" $module "*) ;;
    *)
      echo "FAIL lib/$module is missing from the README's module order: $order"
      failures=$((failures + 1))
      ;;
  esac
done
for module in $order; do
  if [ ! -d "$root/lib/$module" ]; then
    echo "FAIL the README's module order names $module, which lib/ does not have"
    failures=$((failures + 1))
  fi
done
[ "$failures" -eq 0 ] && echo "ok   module map: $(echo $order | wc -w) modules"
[ "$failures" -eq 0 ]
