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

# use_temp_dir: a fresh $dir, removed at exit together with the control
# plane whose pid a script keeps in $cp_pid (KEEP=1 keeps both, to look at).
use_temp_dir() {
  dir=$(mktemp -d)
  cp_pid=
  trap remove_temp_dir EXIT
  [ -n "${KEEP:-}" ] && trap - EXIT
}
remove_temp_dir() {
  [ -n "$cp_pid" ] && kill "$cp_pid" 2>/dev/null && wait "$cp_pid" 2>/dev/null
  rm -rf "$dir"
}
