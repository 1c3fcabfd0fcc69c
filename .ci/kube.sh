#!/usr/bin/env bash
# Proof on a real kubelet: starts the local one-node cluster
# (../shared/tools/local-kube/up.sh, beside the repository; LOCAL_KUBE overrides
# the directory), runs `make e2e-kube` against it, and always tears the cluster
# down, exiting with the suite's exit code. Needs root, as up.sh does.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
LOCAL_KUBE=${LOCAL_KUBE:-$(cd .. && pwd)/shared/tools/local-kube}
if [ ! -x "$LOCAL_KUBE/up.sh" ]; then
  echo "kube.sh: no $LOCAL_KUBE/up.sh (set LOCAL_KUBE to the local-kube directory)" >&2
  exit 1
fi

teardown() {
  local code=$?
  echo "kube.sh: tearing the cluster down" >&2
  "$LOCAL_KUBE/down.sh" >&2 || echo "kube.sh: down.sh failed" >&2
  exit "$code"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

start=$(date +%s)
echo "kube.sh: starting the cluster (the first build takes about 9 minutes)" >&2
KUBECONFIG=$("$LOCAL_KUBE/up.sh")
export KUBECONFIG
echo "kube.sh: cluster up in $(($(date +%s) - start))s, KUBECONFIG=$KUBECONFIG" >&2

E2E_IMAGE_LOADER=${E2E_IMAGE_LOADER:-$LOCAL_KUBE/load-image.sh} make e2e-kube
