#!/usr/bin/env bash
# The project's test command: what README.md tells users to run and what CI
# runs (.ci/run). Needs only Go; the race detector pass needs a C compiler
# (cgo) and is skipped, with a message, when there is none.
set -euo pipefail
cd "$(dirname "$0")"

go vet ./...
go test ./...
# The reference loops alone (internal/cpu's purego tag) against the same tests.
go test -short -tags purego ./internal/cpu ./internal/prefetch ./ppr

cc=$(go env CC)
if [ "$(go env CGO_ENABLED)" = 1 ] && command -v "${cc%% *}" >/dev/null 2>&1; then
  go test -race -short ./...
else
  echo "test.sh: race detector pass skipped: no C compiler for cgo (install gcc to run it)"
fi

# The Python binding (python/): the shared library is built into a temporary
# directory and the stdlib tests run with every python3 found (PATH's and
# Debian's /usr/bin/python3, which may have igraph and numpy for the extra
# comparisons). Needs python3 and a C compiler for cgo; skipped, saying so,
# otherwise.
if command -v python3 >/dev/null 2>&1 && [ "$(go env CGO_ENABLED)" = 1 ] && command -v "${cc%% *}" >/dev/null 2>&1; then
  pylib=$(mktemp -d)
  trap 'rm -rf "$pylib"' EXIT
  python/build.sh "$pylib" >/dev/null
  seen=""
  for py in "$(command -v python3)" /usr/bin/python3; do
    [ -x "$py" ] || continue
    real=$(readlink -f "$py")
    case " $seen " in *" $real "*) continue ;; esac
    seen="$seen $real"
    echo "test.sh: Python binding tests with $py"
    AUTHPPR_LIB="$pylib/libauthppr.so" "$py" -m unittest discover -v -s python/tests 2>&1
  done
else
  echo "test.sh: Python binding tests skipped: they need python3 and a C compiler for cgo"
fi
