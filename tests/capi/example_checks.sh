# Sourced by the example tests (build_custom_op_example.sh, build_custom_ep_example.sh).

# Runs a command, keeping its output in $1; a failing run shows that output and stops the test.
run_example() {
  out=$1
  shift
  if ! "$@" > "$out" 2>&1; then
    cat "$out"
    echo "failed: $*" >&2
    exit 1
  fi
  cat "$out"
}

# Fails the test unless file $1 has a line matching the basic regular expression $2.
expect_line() {
  grep -q "$2" "$1" || { echo "$(basename "$1"): no line matching '$2'" >&2; exit 1; }
}
