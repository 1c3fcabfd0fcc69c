# sidecar-lifecycle: the KRM function as a container image.
#
#   docker build -t sidecar-lifecycle:dev .
#   docker buildx build --platform linux/amd64,linux/arm64 --build-arg VERSION=v0.1.0 -t IMAGE:TAG --push .
#
# `make image` builds IMAGE:TAG this way with docker or podman, VERSION from
# git. Docker needs BuildKit (its default builder since 23.0) for the cache
# mount below. The build stage runs on the build machine's platform and
# cross-compiles for the target platform, so multi-platform builds need no
# emulation.

FROM --platform=$BUILDPLATFORM golang:1.26 AS build
WORKDIR /src
# A build arg for a private proxy, or GOPROXY=off for an offline build with
# a module cache mounted at /go/pkg/mod (.ci/podman.sh does that).
ARG GOPROXY=https://proxy.golang.org,direct
# The modules first: this layer is reused until go.mod or go.sum changes.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=dev
# The compiler cache survives between builds (BuildKit and podman).
RUN --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 GOOS=$TARGETOS GOARCH=$TARGETARCH \
    go build -trimpath -ldflags "-s -w -X github.com/sidecar-lifecycle/sidecar-lifecycle/internal/cli.version=$VERSION" \
      -o /out/sidecar-lifecycle .

# A static binary needs no more than distroless/static. kpt and kustomize run
# functions with --user nobody; the binary is world-executable and the
# function writes only unlinked temporary files, for lists over 4 MiB, in
# /tmp, which any user may write, so any user works.
FROM gcr.io/distroless/static:nonroot
COPY --from=build /out/sidecar-lifecycle /usr/local/bin/sidecar-lifecycle
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/sidecar-lifecycle"]
