#!/bin/sh
# Prints each workload's start-up order and shutdown timeline under
# policy/sidecar-lifecycle.yaml, as the policy's fix writes it: the proxy's
# preStop, the app's SIGTERM, the grace deadline and any break of the
# termination budget. The first argument is the format: text (default) or
# markdown (a Mermaid gantt chart per workload, for $GITHUB_STEP_SUMMARY).
#
# Needs kpt and sidecar-lifecycle on PATH; KPT overrides the kpt binary.
set -eu
cd "$(dirname "$0")"
"${KPT:-kpt}" fn source manifests --fn-config policy/sidecar-lifecycle.yaml |
  sidecar-lifecycle --explain="${1:-text}"
