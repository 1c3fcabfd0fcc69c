package cli

const usage = `sidecar-lifecycle: a KRM function that makes sidecars start before the
application containers and stop after them, with no change to any image.

Usage:
  sidecar-lifecycle validate [--config policy.yaml] [FILE|DIR ...]
      checks the manifests (files, directories' .yaml/.yml/.json files, or
      stdin) and writes no manifests: one line per finding, exit 1 when a
      workload is not as configured. Without --config the defaults apply:
      the catalog's sidecars, recognised by name, image or injector.
        sidecar-lifecycle validate k8s/
  sidecar-lifecycle mutate [--config policy.yaml] [FILE|DIR ...] > out.yaml
      writes the manifests as the function edits them (the plain-stream run
      below; "mutate" may be left out when inputs are named).
        kustomize build . | sidecar-lifecycle mutate | kubectl apply -f -
  sidecar-lifecycle explain [--format text|markdown] [--config policy.yaml] [FILE|DIR ...]
      prints each workload's start-up order and shutdown timeline (below).
        sidecar-lifecycle explain --format markdown k8s/ >> "$GITHUB_STEP_SUMMARY"
  sidecar-lifecycle < resourcelist.yaml > out.yaml
  sidecar-lifecycle --help | --version
  sidecar-lifecycle --schema > sidecarlifecycle.schema.json   # JSON schema of the config
  sidecar-lifecycle --config policy.yaml [FILE|DIR ...] > out.yaml   # a plain YAML stream
  sidecar-lifecycle --explain[=text|markdown] < resourcelist.yaml
  sidecar-lifecycle --explain[=text|markdown] --config policy.yaml [FILE|DIR ...]
      prints each workload's start-up order and shutdown timeline (preStops,
      SIGTERM, when each sidecar leaves, when the load balancer stops sending,
      the grace deadline, what breaks the termination budget) as the function
      writes it; markdown adds a Mermaid gantt chart (for $GITHUB_STEP_SUMMARY).
      It reads what a run reads: a ResourceList, or with --config a plain
      stream (files, directories or stdin); Lists are read as their items.

Flags come in any order; --help, --version and --schema stand alone. A verb
(validate, mutate, explain) comes first.

--output=text|github|sarif|junit|json (or SIDECAR_LIFECYCLE_OUTPUT) chooses
how validate, mutate and a ResourceList run give their findings: text and
github are the lines on stderr (github, the workflow commands, is the
default under GITHUB_ACTIONS=true); sarif (SARIF 2.1.0, for code scanning),
junit (JUnit XML) and json (the kpt results) are a report, on stdout, which
then carries no manifests, or with --output-file=PATH (or
SIDECAR_LIFECYCLE_OUTPUT_FILE; - for stdout) in that file, while stdout
carries the manifests and stderr its lines as usual. The exit code is the same.
  sidecar-lifecycle validate --output=sarif --output-file=results.sarif k8s/

It reads a ResourceList on stdin and writes it, with results, on stdout. Exit
code 0 without error results, 1 with any (the items are then left unchanged).
Each warning and error is also one line on stderr, for kustomize, which shows
nothing else: "sidecar-lifecycle: warning: Deployment shop/web spec.template.spec: ..." or
"sidecar-lifecycle: error: ...". With GITHUB_ACTIONS=true they are GitHub
workflow commands ("::error file=manifests/web.yaml::...") instead. Under
kpt fn render, which shows the results itself, they are left out.

With a verb, --config or named inputs it reads a plain multi-document YAML
stream instead (the named files, a directory's .yaml/.yml/.json files in
name order, or stdin) and writes the edited stream on stdout: the policy
file is the same SidecarLifecycle or ConfigMap (the defaults without
--config); untouched documents, separators and comments
come out as they went in; on any error nothing is written and the exit code
is 1, and each error names the file and the line. --max-document-size SIZE
(or SIDECAR_LIFECYCLE_MAX_DOCUMENT_SIZE, in both modes; default 256Mi)
refuses a larger document before reading it. A closed output pipe ends the
run quietly with exit code 141.

Run it from:
  kustomize   transformers: [fn.yaml], fn.yaml being the functionConfig annotated
                config.kubernetes.io/function: "exec: {path: ./sidecar-lifecycle}"
              kustomize build --enable-alpha-plugins --enable-exec .
              or, from the image: "container: {image: ghcr.io/sidecar-lifecycle/sidecar-lifecycle:TAG}"
              kustomize build --enable-alpha-plugins .
              (kubectl kustomize has no --enable-exec: use the standalone kustomize)
  kpt         kpt fn eval --exec sidecar-lifecycle --fn-config fn.yaml pkg/
              Kptfile pipeline.mutators: "- exec: sidecar-lifecycle" (kpt fn render --allow-exec)
              or "- image: ghcr.io/sidecar-lifecycle/sidecar-lifecycle:TAG" (kpt fn render)
  Argo CD     argocd-cm kustomize.buildOptions: --enable-alpha-plugins --enable-exec,
              with the binary in the repo server, or a ConfigManagementPlugin
              whose generate command runs kustomize build with it
  Flux        render in CI (kustomize build with the function), commit the
              output, and point a Flux Kustomization at it
  Helm 3      helm install|template ... --post-renderer sidecar-lifecycle \
                --post-renderer-args --config=policy.yaml
  Helm 4      helm plugin install <repo>/helm-plugin, then the same flags
  pipes       kustomize build . | sidecar-lifecycle --config policy.yaml | kubectl apply -f -
  CI check    the same config with spec.action: validate fails (exit 1) on
              every workload that is not as configured

Helm 3 does not pass a chart's hooks (helm.sh/hook Jobs, helm test Pods) to
a post-renderer: they are installed, or printed by helm template, unedited,
and the function cannot tell they were left out. Helm 4 passes them. For a
chart whose hooks carry a sidecar, use Helm 4, or kustomize helmCharts: (or
helm template ... | sidecar-lifecycle --config policy.yaml), where hooks
are documents like the rest and are edited.

functionConfig (every field optional):
  apiVersion: fn.sidecar-lifecycle.dev/v1alpha1
  kind: SidecarLifecycle
  spec:
    kubernetesVersion: "1.30"   # oldest kubelet the output runs on; auto: the input's Nodes
    mode: ordered               # ordered | native | auto
    action: mutate              # mutate | validate
    targets: {include: [], exclude: []}  # kind, group, version, name, namespace
                                         # (exact or glob), labelSelector, annotationSelector
    sidecars:                   # start order; default: every preset present
    - preset: linkerd           # a catalog entry (docs/catalog.md) or none
      name: linkerd-proxy       # container name (defaults to the preset's)
      waitForReady: {command: [...]}  # ordered: blocking postStart
      startupProbe: {...}       # native: what kubelet waits on
      waitBeforeExit: 30s       # ordered: preStop delay; auto = the app's drain + 5s
      sleepCommand: [/bin/sleep]      # below 1.30, where there is no sleep action
      ifAbsent: annotate        # annotate | skip | fail
      healthCheck: enable       # enable | require: health endpoints off (alloydb, cloud-sql)
    app: {drainDelay: 0s}       # preStop sleep for app containers without one
    terminationGracePeriod: {policy: raise, margin: 10s}  # raise | warn | keep
    existingHooks: keep         # keep | replace | fail
    rolloutOnChange: false
    podSpecPaths: [{group: argoproj.io, kind: Rollout, path: spec/template/spec}]

A ConfigMap works too, for one sidecar: data keys sidecar, preset, mode,
kubernetesVersion, waitBeforeExit, appDrainDelay, action.

Per-workload annotations: sidecar-lifecycle.dev/skip: "true",
sidecar-lifecycle.dev/mode, sidecar-lifecycle.dev/wait-before-exit,
sidecar-lifecycle.dev/app-drain-delay.
`
