# Sourced by tests/cli/*_test.sh: from the script's first argument (the
# build directory, default build/) sets $root and $xdsfed, sets failures=0,
# and defines expect.
root=$(cd "$(dirname "$0")/../.." && pwd)
case "${1:-build}" in
  /*) xdsfed="$1/bin/xdsfed" ;;
  *) xdsfed="$root/${1:-build}/bin/xdsfed" ;;
esac
failures=0

# expect NAME WANT_EXIT WANT_SUBSTRING COMMAND...: runs COMMAND and checks its
# exit status and that its output (stdout + stderr) contains WANT_SUBSTRING.
expect() {
  name=$1 want_rc=$2 want=$3
  shift 3
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" != "$want_rc" ]; then
    echo "FAIL $name: exit $rc, want $want_rc: $out"
    failures=$((failures + 1))
  elif ! printf '%s' "$out" | grep -qF -- "$want"; then
    echo "FAIL $name: output lacks $want: $out"
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}
