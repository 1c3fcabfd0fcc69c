#!/bin/sh
# Renders each app under apps/ with kustomize and sidecar-lifecycle into
# rendered/<app>.yaml, the directory Flux deploys. CI runs this on every push
# to main and commits rendered/ (ci/render.yaml); run it before you push to
# review the diff.
#
# Needs kustomize (v5) and sidecar-lifecycle on PATH; KUSTOMIZE overrides the
# kustomize binary.
set -eu
cd "$(dirname "$0")"
kustomize=${KUSTOMIZE:-kustomize}

# Render everything first, so that a failed build leaves rendered/ as it was.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for app in apps/*/; do
  name=$(basename "$app")
  {
    echo "# Rendered from apps/$name by render.sh. Edit apps/ or policy/, not this file."
    "$kustomize" build --enable-alpha-plugins --enable-exec "apps/$name"
  } >"$tmp/$name.yaml"
done

# rendered/ holds nothing else: an app removed from apps/ disappears from it,
# and Flux (prune: true) deletes its objects.
rm -rf rendered
mkdir rendered
cp "$tmp"/*.yaml rendered/
