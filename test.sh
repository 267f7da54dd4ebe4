#!/usr/bin/env bash
# The project's test command: what README.md tells users to run and what CI
# runs (.ci/run). Needs only Go; the race detector pass needs a C compiler
# (cgo) and is skipped, with a message, when there is none.
set -euo pipefail
cd "$(dirname "$0")"

go vet ./...
go test ./...
# The reference loops alone (internal/cpu's purego tag) against the same tests.
go test -short -tags purego ./internal/cpu ./ppr

cc=$(go env CC)
if [ "$(go env CGO_ENABLED)" = 1 ] && command -v "${cc%% *}" >/dev/null 2>&1; then
  go test -race -short ./...
else
  echo "test.sh: race detector pass skipped: no C compiler for cgo (install gcc to run it)"
fi
