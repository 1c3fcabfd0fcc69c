#!/bin/sh
# Applies policy/sidecar-lifecycle.yaml (action: mutate) to manifests/ in
# place. kpt keeps the files' comments and layout. Extra arguments go to
# kpt fn eval, e.g. --results-dir DIR.
#
# Needs kpt and sidecar-lifecycle on PATH; KPT overrides the kpt binary.
set -eu
cd "$(dirname "$0")"
exec "${KPT:-kpt}" fn eval manifests --exec sidecar-lifecycle \
  --fn-config policy/sidecar-lifecycle.yaml "$@"
