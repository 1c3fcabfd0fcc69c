#!/usr/bin/env bash
# Image loader for kind clusters, the suite's default:
#   kind-load-image.sh NAME:TAG ROOTFS_DIR '["/entrypoint"]'.
# Packs the directory as a one-layer docker-archive and runs
# `kind load image-archive` (KIND_CLUSTER names the cluster, default kind;
# IMAGE_ARCH the architecture, default go env GOARCH, as the suite builds).
#   E2E_IMAGE_LOADER=$PWD/e2e/kind-load-image.sh make e2e-kube
set -euo pipefail
name=$1 rootfs=$2 entry=$3
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
tar -C "$rootfs" -cf "$d/layer.tar" .
ds=$(sha256sum "$d/layer.tar" | cut -d' ' -f1)
printf '{"architecture":"%s","os":"linux","config":{"Entrypoint":%s,"Env":["PATH=/bin:/usr/bin:/usr/local/bin"]},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' "${IMAGE_ARCH:-$(go env GOARCH)}" "$entry" "$ds" > "$d/config.json"
cs=$(sha256sum "$d/config.json" | cut -d' ' -f1)
mv "$d/config.json" "$d/$cs.json"
printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["layer.tar"]}]' "$cs" "$name" > "$d/manifest.json"
tar -C "$d" -cf "$d/image.tar" manifest.json "$cs.json" layer.tar
kind load image-archive "$d/image.tar" --name "${KIND_CLUSTER:-kind}"
