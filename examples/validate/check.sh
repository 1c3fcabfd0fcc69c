#!/bin/sh
# The CI check: exits 1, naming each workload and the fix, when a workload in
# manifests/ does not follow policy/sidecar-lifecycle.yaml. It builds check/,
# which runs that policy with action: validate and changes nothing.
#
# Needs kustomize (v5) and sidecar-lifecycle on PATH; KUSTOMIZE overrides the
# kustomize binary.
set -eu
cd "$(dirname "$0")"
if ! "${KUSTOMIZE:-kustomize}" build --enable-alpha-plugins --enable-exec check >/dev/null; then
  echo "check.sh: manifests/ does not follow policy/sidecar-lifecycle.yaml; run ./fix.sh and commit the result" >&2
  exit 1
fi
echo "check.sh: manifests/ follows policy/sidecar-lifecycle.yaml"
