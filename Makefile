# sidecar-lifecycle: build, test and run the examples.
#
# Only Go is needed on a fresh machine: `make tools` installs kustomize,
# Helm and act (a GitHub Actions runner) into bin/, with npm the Mermaid
# packages the chart tests run with node and the report checkers, and with
# apt-get (sudo when not root) Debian's chromium, the headless browser the
# charts are drawn in, and pre-commit. The kpt example needs kpt on PATH.

SHELL := /usr/bin/env bash
.DEFAULT_GOAL := help

BIN := $(CURDIR)/bin
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

# The container image `make image` builds, and the engine that builds it:
# docker when `docker info` works, else podman (looked up once, when used).
IMAGE ?= ghcr.io/sidecar-lifecycle/sidecar-lifecycle
TAG ?= $(VERSION)
CONTAINER_ENGINE ?= $(eval CONTAINER_ENGINE := $(shell if docker info >/dev/null 2>&1; then echo docker; \
	elif command -v podman >/dev/null 2>&1; then echo podman; fi))$(CONTAINER_ENGINE)

KUSTOMIZE_VERSION := v5.8.2
KUSTOMIZE := $(BIN)/kustomize
KPT_VERSION := v1.0.0-beta.56
# Helm 3 and Helm 4 for the Helm examples; both binaries are named helm, so
# each has its own directory. The version is stamped the way Helm's own
# Makefile does it, so `helm version` names it.
HELM3_VERSION := v3.22.0
HELM4_VERSION := v4.3.1
HELM3 := $(BIN)/helm3/helm
HELM4 := $(BIN)/helm4/helm
# nektos/act, a GitHub Actions runner, for the test of action.yml
# (examples/action_test.go): it runs the action on this host.
ACT_VERSION := v0.2.82
ACT := $(BIN)/act
# Mermaid and marked for internal/explain's chart test, at the versions of
# its lock file.
MERMAID := $(BIN)/mermaid
MERMAID_FILES := internal/explain/testdata/mermaid
# Microsoft's SARIF multitool and junit2json for internal/cli's report tests, at the
# versions of their lock file, and the OASIS SARIF 2.1.0 schema: go-sarif
# v3 carries it, byte for byte the one of oasis-tcs/sarif-spec
# (sarif-2.1/schema/sarif-schema-2.1.0.json), as a Go constant.
REPORTS := $(BIN)/reports
REPORTS_FILES := internal/cli/testdata/reports
SARIF_SCHEMA := $(BIN)/sarif-schema-2.1.0.json
SARIF_SCHEMA_MODULE := github.com/owenrumney/go-sarif/v3@v3.3.1

# Fuzz targets as package:Func; each runs for FUZZTIME.
FUZZ_TARGETS ?= ./internal/driver:FuzzRun ./internal/yamlio/scan:FuzzScanAgreesWithParse ./internal/yamlio/scan:FuzzScanItemIsItemText ./internal/driver:FuzzStreamMatchesWholeList ./internal/driver:FuzzPlainStream ./internal/cli:FuzzStderr ./internal/podcheck:FuzzChecks ./internal/yamlio/emit:FuzzResultsText ./internal/webhook:FuzzWebhookHandler ./internal/yamlio:FuzzDecodeJSON
FUZZTIME ?= 20s

.PHONY: help build tools kustomize act mermaid chromium reports demo test verify e2e fuzz clean image image-test catalog-table

help: ## List the targets
	@echo "Targets:"
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_-]+:.*## / {printf "  %-13s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

COMMIT ?= $(shell git rev-parse HEAD 2>/dev/null)
CLI_PKG := github.com/sidecar-lifecycle/sidecar-lifecycle/internal/cli
VERSION_LDFLAGS := -X $(CLI_PKG).version=$(VERSION) -X $(CLI_PKG).commit=$(COMMIT)

build: ## Build bin/sidecar-lifecycle
	go build -ldflags "$(VERSION_LDFLAGS)" -o $(BIN)/sidecar-lifecycle .

tools: kustomize act mermaid chromium reports ## Install kustomize v5.8.2, Helm 3, Helm 4, act, (with npm) Mermaid and the report checkers into bin/, chromium and pre-commit, and check for kpt
	@if [ "$$($(HELM3) version --short 2>/dev/null)" != "$(HELM3_VERSION)" ]; then \
		echo "installing helm $(HELM3_VERSION) into $(BIN)/helm3"; \
		GOBIN=$(BIN)/helm3 go install -ldflags "-X helm.sh/helm/v3/internal/version.version=$(HELM3_VERSION)" \
			helm.sh/helm/v3/cmd/helm@$(HELM3_VERSION); \
	fi
	@if [ "$$($(HELM4) version --short 2>/dev/null)" != "$(HELM4_VERSION)" ]; then \
		echo "installing helm $(HELM4_VERSION) into $(BIN)/helm4"; \
		GOBIN=$(BIN)/helm4 go install -ldflags "-X helm.sh/helm/v4/internal/version.version=$(HELM4_VERSION)" \
			helm.sh/helm/v4/cmd/helm@$(HELM4_VERSION); \
	fi
	@if ! command -v pre-commit >/dev/null 2>&1; then \
		echo "installing pre-commit (Debian's package) for the hook's test"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq pre-commit >/dev/null; \
	fi
	@if ! command -v kpt >/dev/null 2>&1; then \
		echo "kpt is not on PATH: the kpt example tests will fail."; \
		echo "Install kpt $(KPT_VERSION) from https://github.com/kptdev/kpt/releases and put it on PATH."; \
	fi

# kustomize alone is all `make demo` needs.
kustomize:
	@if [ "$$($(KUSTOMIZE) version 2>/dev/null)" != "$(KUSTOMIZE_VERSION)" ]; then \
		echo "installing kustomize $(KUSTOMIZE_VERSION) into $(BIN)"; \
		GOBIN=$(BIN) go install sigs.k8s.io/kustomize/kustomize/v5@$(KUSTOMIZE_VERSION); \
	fi

act:
	@if [ "$$($(ACT) --version 2>/dev/null)" != "act version $(ACT_VERSION:v%=%)" ]; then \
		echo "installing act $(ACT_VERSION) into $(BIN)"; \
		GOBIN=$(BIN) go install github.com/nektos/act@$(ACT_VERSION); \
	fi

# The packages of $(MERMAID_FILES)/package-lock.json, installed with npm
# into bin/mermaid when its copy of the lock file differs. Without npm the
# chart test is skipped, and fails under CI=true.
mermaid:
	@if ! command -v npm >/dev/null 2>&1; then \
		echo "npm is not on PATH: the chart test of internal/explain is skipped (it fails under CI=true)."; \
	elif ! cmp -s $(MERMAID_FILES)/package-lock.json $(MERMAID)/package-lock.json || [ ! -f $(MERMAID)/node_modules/mermaid/package.json ]; then \
		echo "installing $(MERMAID_FILES)/package-lock.json into $(MERMAID)"; \
		rm -rf $(MERMAID).tmp && mkdir -p $(MERMAID).tmp && \
		cp $(MERMAID_FILES)/package.json $(MERMAID_FILES)/package-lock.json $(MERMAID).tmp/ && \
		(cd $(MERMAID).tmp && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error --prefer-offline) && \
		rm -rf $(MERMAID) && mv $(MERMAID).tmp $(MERMAID); \
	fi

# Debian's chromium, with the Liberation fonts (Arial's metrics), for the
# test of internal/explain that draws the charts with Mermaid in a headless
# browser; installed with apt-get when chromium is not on PATH. Without it
# that test is skipped, and fails under CI=true.
chromium:
	@if ! command -v chromium >/dev/null 2>&1; then \
		echo "installing chromium (Debian's package) for the chart test of internal/explain"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-liberation >/dev/null; \
	fi

# The packages of $(REPORTS_FILES)/package-lock.json, installed with npm
# into bin/reports as the mermaid target does (the multitool's install
# script only makes its binary executable: chmod does it), and the SARIF
# schema, cut out of go-sarif's source from the module proxy. Without npm
# the report tests are skipped, and fail under CI=true.
reports:
	@if ! command -v npm >/dev/null 2>&1; then \
		echo "npm is not on PATH: the report tests of internal/cli are skipped (they fail under CI=true)."; \
	elif ! cmp -s $(REPORTS_FILES)/package-lock.json $(REPORTS)/package-lock.json || [ ! -f $(REPORTS)/node_modules/junit2json/package.json ]; then \
		echo "installing $(REPORTS_FILES)/package-lock.json into $(REPORTS)"; \
		rm -rf $(REPORTS).tmp && mkdir -p $(REPORTS).tmp && \
		cp $(REPORTS_FILES)/package.json $(REPORTS_FILES)/package-lock.json $(REPORTS).tmp/ && \
		(cd $(REPORTS).tmp && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error --prefer-offline) && \
		chmod u+x $(REPORTS).tmp/node_modules/@microsoft/sarif-multitool-*/Sarif.Multitool && \
		rm -rf $(REPORTS) && mv $(REPORTS).tmp $(REPORTS); \
	fi
	@if [ ! -s $(SARIF_SCHEMA) ]; then \
		echo "writing the SARIF 2.1.0 schema of $(SARIF_SCHEMA_MODULE) into $(SARIF_SCHEMA)"; \
		dir=$$(go mod download -json $(SARIF_SCHEMA_MODULE) | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p') && \
		mkdir -p $(BIN) && \
		awk 'f && /^`/ {exit} f {print} /^const schema = `/ {f=1; sub(/^const schema = `/, ""); if (length($$0)) print}' \
			"$$dir/pkg/report/v210/sarif/schema.go" > $(SARIF_SCHEMA).tmp && \
		[ -s $(SARIF_SCHEMA).tmp ] && mv $(SARIF_SCHEMA).tmp $(SARIF_SCHEMA); \
	fi

demo: build kustomize ## Render examples/kustomize-exec with kustomize and the function
	$(KUSTOMIZE) build --enable-alpha-plugins --enable-exec examples/kustomize-exec

# The tests that run the binary take the one `build` wrote.
TEST_ENV := SIDECAR_LIFECYCLE_BINARY=$(BIN)/sidecar-lifecycle

# The driver package's differential tests take two minutes on a quiet
# 2-core machine and up to ten on a busy one: near or past go test's
# default limit of 10 minutes per package.
test: build tools ## Run every test: unit, golden and the examples with the real tools
	$(TEST_ENV) go test -count=1 -timeout 30m ./...

verify: ## Check formatting, run go vet, then test
	@unformatted=$$(gofmt -l .); \
	if [ -n "$$unformatted" ]; then \
		echo "gofmt would change these files (run gofmt -w):"; echo "$$unformatted"; exit 1; \
	fi
	go vet ./...
	go vet -tags bench ./bench/ ./internal/cli/
	$(MAKE) test

e2e: build tools ## Run only the examples tests
	$(TEST_ENV) go test -count=1 ./examples/...

image: ## Build the container image IMAGE:TAG with docker, else podman
	@if [ -z "$(CONTAINER_ENGINE)" ]; then \
		echo "image: no container engine: docker info fails and podman is not on PATH (or set CONTAINER_ENGINE)"; exit 1; \
	fi
	$(CONTAINER_ENGINE) build --build-arg VERSION=$(VERSION) -t $(IMAGE):$(TAG) .

image-test: image build tools ## Build the image, then run the container tests on it
	$(TEST_ENV) SIDECAR_LIFECYCLE_IMAGE=$(IMAGE):$(TAG) KPT_FN_RUNTIME=$(CONTAINER_ENGINE) \
		go test -count=1 -run '^TestContainer' -v ./examples/

fuzz: ## Run each fuzz target for FUZZTIME (default 20s)
	@for target in $(FUZZ_TARGETS); do \
		pkg=$${target%%:*}; name=$${target##*:}; \
		echo "go test $$pkg -run '^$$' -fuzz '^$$name\$$' -fuzztime $(FUZZTIME)"; \
		go test $$pkg -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 5s || exit 1; \
	done

catalog-table: ## Write the generated tables of README.md, docs/catalog.md and docs/configuration.md from the catalog and the config
	go run ./internal/preset/internal/gentable -root .

clean: ## Remove bin/ (the binary and the installed tools)
	rm -rf $(BIN)

.PHONY: e2e-kube
e2e-kube: build ## Run e2e/ and charts/' API server test on the cluster in KUBECONFIG (fails without one)
	@if [ -z "$$KUBECONFIG" ]; then \
		echo "e2e-kube: KUBECONFIG is not set: point it at a test cluster, or run .ci/kube.sh, which starts one"; \
		exit 1; \
	fi
	go test -tags e2e -count=1 -v -timeout 20m ./e2e/ ./charts/

# Workload counts `make bench` generates lists of; CI can run a tiny one,
# e.g. `make bench BENCH_SIZES=1,50 BENCHTIME=1x`.
BENCH_SIZES ?= 1,50,1000,10000
# The performance table's rows (10,000 workloads, 50 MiB documents, the
# mix); BENCH_TABLE= (empty) leaves them out, as CI's tiny run does.
BENCH_TABLE ?= yes
BENCHTIME ?= 1s
# Reviews sent to the webhook and to the no-op webhook beside it.
WEBHOOK_REVIEWS ?= 10000

.PHONY: bench
bench: build ## The performance table (docs/performance.md), the function against a kyaml identity round trip (BENCH_SIZES), the memory and collector tests, then the Go benchmarks
	go build -o $(BIN)/kyaml-identity ./bench/identity
	go build -o $(BIN)/yamlv3-identity ./bench/yamlv3
	@if [ -n "$(BENCH_TABLE)" ]; then \
		echo "go run ./bench -table ..."; \
		go run ./bench -table -function $(BIN)/sidecar-lifecycle -identity $(BIN)/kyaml-identity -yamlv3 $(BIN)/yamlv3-identity; \
	fi
	go run ./bench -function $(BIN)/sidecar-lifecycle -identity $(BIN)/kyaml-identity -sizes $(BENCH_SIZES)
	$(TEST_ENV) go test -tags bench -count=1 -run '^(TestMemoryBoundedOnEveryForm|TestLargeWorkloadElided|TestFollowLiveHeap)$$' ./bench/ ./internal/cli/
	go test ./internal/... ./transformer/... -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME)
	go run ./bench/webhook -function $(BIN)/sidecar-lifecycle -reviews $(WEBHOOK_REVIEWS)

# --- Releases (docs/development.md, "Releases") ---------------------------
#
# `make release-snapshot` writes dist/ offline: the four binaries, their
# checksums, the image as an OCI image layout (dist/image, an index of
# linux/amd64 and linux/arm64 built from the cross-compiled binaries by
# release/cmd/image, no container engine) and SPDX SBOMs. Every timestamp
# is the commit's (SOURCE_DATE_EPOCH), so two builds of one commit give the
# same bytes and the same index digest (dist/image.digest).
# The release tools live in their own module (release/) and their own bin
# directory, so that the function's go.mod does not carry them.
DIST := $(CURDIR)/dist
RELEASE_BIN ?= $(BIN)/release
SOURCE_DATE_EPOCH ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 0)
RELEASE_PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
IMAGE_PLATFORMS := linux/amd64 linux/arm64
CRANE_VERSION := v0.22.1
REGISTRY_VERSION := v3.1.2
COSIGN_VERSION := v2.6.5

.PHONY: release-tools release-snapshot release-test release-pin release-publish

release-tools: ## Build the release's tools into bin/release: its image and SBOM writers, crane, the CNCF distribution registry and cosign
	cd release && go build -trimpath -o $(RELEASE_BIN)/ ./cmd/...
	@if [ "$$($(RELEASE_BIN)/crane version 2>/dev/null)" != "$(CRANE_VERSION)" ]; then \
		echo "installing crane $(CRANE_VERSION) into $(RELEASE_BIN)"; \
		GOBIN=$(RELEASE_BIN) go install github.com/google/go-containerregistry/cmd/crane@$(CRANE_VERSION); \
	fi
	@if ! $(RELEASE_BIN)/registry --version 2>/dev/null | grep -q ' $(REGISTRY_VERSION)'; then \
		echo "installing the distribution registry $(REGISTRY_VERSION) into $(RELEASE_BIN)"; \
		GOBIN=$(RELEASE_BIN) go install github.com/distribution/distribution/v3/cmd/registry@$(REGISTRY_VERSION); \
	fi
	@if ! $(RELEASE_BIN)/cosign version 2>/dev/null | grep -q '$(COSIGN_VERSION)'; then \
		echo "installing cosign $(COSIGN_VERSION) into $(RELEASE_BIN) (a few minutes)"; \
		GOBIN=$(RELEASE_BIN) go install github.com/sigstore/cosign/v2/cmd/cosign@$(COSIGN_VERSION); \
	fi

release-snapshot: ## Write dist/ offline: binaries, checksums, the multi-arch image as an OCI layout, SBOMs
	cd release && go build -trimpath -o $(RELEASE_BIN)/ ./cmd/...
	rm -rf $(DIST) && mkdir -p $(DIST)
	@set -e; for p in $(RELEASE_PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; \
		echo "go build $$os/$$arch"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch go build -trimpath -buildvcs=false \
			-ldflags "-s -w -buildid= $(VERSION_LDFLAGS)" \
			-o $(DIST)/sidecar-lifecycle-$$os-$$arch . ; \
	done
	$(RELEASE_BIN)/image -out $(DIST)/image -epoch $(SOURCE_DATE_EPOCH) -version $(VERSION) -revision $(COMMIT) \
		$(foreach p,$(IMAGE_PLATFORMS),-binary $(p)=$(DIST)/sidecar-lifecycle-$(subst /,-,$(p))) > $(DIST)/image.digest
	@set -e; for p in $(RELEASE_PLATFORMS); do \
		f=sidecar-lifecycle-$${p%/*}-$${p#*/}; \
		$(RELEASE_BIN)/spdx -epoch $(SOURCE_DATE_EPOCH) -version $(VERSION) -binary $(DIST)/$$f > $(DIST)/$$f.spdx.json; \
	done
	$(RELEASE_BIN)/spdx -epoch $(SOURCE_DATE_EPOCH) -version $(VERSION) -image $(DIST)/image -repository $(IMAGE) \
		$(foreach p,$(IMAGE_PLATFORMS),-binary $(p)=$(DIST)/sidecar-lifecycle-$(subst /,-,$(p))) > $(DIST)/image.spdx.json
	cd $(DIST) && sha256sum sidecar-lifecycle-* image.spdx.json image.digest > checksums.txt
	@echo "dist/: $(VERSION) ($(COMMIT)), image $$(cat $(DIST)/image.digest)"

# The Go test of the release (release/release_test.go) over dist/ and
# bin/release; .ci/run calls it after make test.
# act runs the workflow's dry run (TestWorkflowDryRun), which is skipped
# inside that run (RELEASE_DRY_RUN=true).
release-test: release-tools ## Rebuild the image to the same digest, push it to a local registry, pull by digest, sign, verify, attach the SBOM, dry-run the workflow
	@if [ "$$RELEASE_DRY_RUN" != true ]; then $(MAKE) --no-print-directory act; fi
	@if [ ! -s $(DIST)/image.digest ]; then $(MAKE) release-snapshot; fi
	cd release && go test -count=1 -v -timeout 20m .

# Every file that names the image; internal/release's TestImagesPinned
# checks the same list.
RELEASE_PIN_FILES := metadata.yaml examples/container_test.go \
	examples/kpt-image/payments/Kptfile examples/kpt-image/expected/payments/Kptfile \
	examples/kpt-image/expected/results.yaml examples/kustomize-container/sidecar-lifecycle.yaml \
	$(wildcard charts/sidecar-lifecycle-webhook/values.yaml charts/charts_test.go)

release-pin: ## Point the examples, metadata.yaml and the chart at IMAGE@DIGEST (DIGEST=sha256:..., default dist/image.digest)
	cd release && go build -trimpath -o $(RELEASE_BIN)/ ./cmd/...
	$(RELEASE_BIN)/pin -image $(IMAGE) -digest $(or $(DIGEST),$(shell cat $(DIST)/image.digest 2>/dev/null)) \
		$(addprefix $(CURDIR)/,$(RELEASE_PIN_FILES))
