#!/usr/bin/env bash
# CI: builds the function's image from ./Dockerfile with podman, offline, and
# prints the environment the container tests need, as `export` lines:
#
#   ci_env=$(.ci/podman.sh) && eval "$ci_env"
#
# The CI machine has no Docker engine and no registry access.
# ../shared/tools/offline-podman.sh (beside the clone) installs podman, makes
# local stand-ins for the Dockerfile's base images and starts podman's
# Docker-compatible API (for kustomize, which runs functions with the docker
# CLI). The modules come from the host's module cache, mounted into the build
# as a throwaway overlay, with GOPROXY=off. Everything but the export lines
# goes to stderr.
#
#   SIDECAR_LIFECYCLE_IMAGE  the tag to build (default localhost/sidecar-lifecycle:ci)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

image=${SIDECAR_LIFECYCLE_IMAGE:-localhost/sidecar-lifecycle:ci}
version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)

env_file=$(../shared/tools/offline-podman.sh up Dockerfile | tail -n 1)
# shellcheck source=/dev/null
source "$env_file"

# Fills the host's module cache (a no-op when it is complete), so that the
# build needs no network.
go mod download >&2

start=$SECONDS
podman build --pull=never --network=none \
  --volume "$(go env GOMODCACHE):/go/pkg/mod:O" \
  --build-arg GOPROXY=off \
  --build-arg TARGETOS="$(go env GOOS)" --build-arg TARGETARCH="$(go env GOARCH)" \
  --build-arg VERSION="$version" \
  --tag "$image" . >&2
echo "podman.sh: built $image ($version) in $((SECONDS - start))s" >&2
podman run --rm --network=none --user nobody "$image" --version >&2

cat "$env_file"
echo "export SIDECAR_LIFECYCLE_IMAGE=$image"
