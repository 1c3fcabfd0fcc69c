package cli

import (
	"strings"

	"github.com/spf13/pflag"
)

// bare is the value pflag gives a bare --explain: no argument holds a NUL.
const bare = "\x00"

// flagDef is one flag of the command: parseArgs reads it, through the
// pflag set flagSet builds, and --help lists it (flagHelp).
type flagDef struct {
	name, shorthand string
	// value names what the flag takes, for the help; empty for a flag
	// that takes none.
	value string
	// optional says the value is optional and only follows "=".
	optional bool
	// command is what a flag that stands alone runs; cmdRun for the others.
	command command
	// explainOnly says only the explain verb takes the flag.
	explainOnly bool
	// env is the environment variable that sets the same when the flag is
	// not given.
	env string
	// needs is the error for the flag given last without its value.
	needs string
	usage string
}

// flagList are the command's flags, in the order --help lists them.
var flagList = []flagDef{
	{name: "help", shorthand: "h", command: cmdHelp, usage: "Prints this help. Stands alone."},
	{name: "version", command: cmdVersion, usage: "Prints the version. Stands alone."},
	{name: "schema", command: cmdSchema, usage: "Prints the JSON schema of the config. Stands alone."},
	{name: "config", value: "FILE", needs: errConfigFile.Error(),
		usage: "The policy, a SidecarLifecycle or a ConfigMap; with it the run reads a plain stream (the named files and directories, or stdin) rather than a ResourceList."},
	{name: "explain", value: "text|markdown", optional: true,
		usage: "Prints each workload's start-up order and shutdown timeline instead of the manifests, from a ResourceList or with --config a plain stream; the format follows \"=\" (the explain verb takes --format instead)."},
	{name: "format", value: "text|markdown", explainOnly: true, needs: "--format needs text or markdown: explain --format markdown",
		usage: "The explain verb's format: text (the default) or markdown, which adds a Mermaid gantt chart."},
	{name: "output", value: "text|github|sarif|junit|json", env: outputEnv, needs: "--output needs a value: " + outputExamples["--output"],
		usage: "How validate, mutate and a ResourceList run give their findings: text and github are the lines on stderr (github, the workflow commands, is the default under GITHUB_ACTIONS=true); sarif (SARIF 2.1.0, for code scanning), junit (JUnit XML) and json (the kpt results) are a report, on stdout instead of the manifests, or in --output-file. The exit code is the same."},
	{name: "output-file", value: "PATH", env: outputFileEnv, needs: "--output-file needs a value: " + outputExamples["--output-file"],
		usage: "The file of the --output report (- for stdout), while stdout carries the manifests and stderr its lines as usual."},
	{name: "max-document-size", value: "SIZE", env: maxDocumentSizeEnv, needs: "--max-document-size needs a size: --max-document-size 512Mi",
		usage: "Refuses a larger document before reading it, in both modes (default 256Mi): 512Mi, 1Gi, a number of bytes."},
}

// flagDefs are flagList by name.
var flagDefs = func() map[string]flagDef {
	m := map[string]flagDef{}
	for _, d := range flagList {
		m[d.name] = d
	}
	return m
}()

// flagSet is the pflag set of a run with the verb ("" for none): every
// flag of flagList the verb takes. parseArgs handles each flag as pflag
// meets it, so the values hold nothing.
func flagSet(verb string) *pflag.FlagSet {
	fs := pflag.NewFlagSet("sidecar-lifecycle", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.Usage = func() {}
	for _, d := range flagList {
		if d.explainOnly && verb != "explain" {
			continue
		}
		kind := "string"
		if d.value == "" {
			kind = "bool"
		}
		f := fs.VarPF(noValue(kind), d.name, d.shorthand, d.usage)
		switch {
		case d.value == "":
			f.NoOptDefVal = "true"
		case d.optional:
			f.NoOptDefVal = bare
		}
	}
	return fs
}

// noValue is a flag's value: parseArgs reads the flags as pflag meets them.
type noValue string

func (v noValue) String() string   { return "" }
func (v noValue) Set(string) error { return nil }
func (v noValue) Type() string     { return string(v) }

// flagHelp lists the flags of flagSet for --help: each as it is written,
// what it does, and the environment variable that sets the same.
func flagHelp() string {
	var b strings.Builder
	b.WriteString("\nFlags come in any order, each at most once; a verb (validate, mutate,\nexplain) comes first. A flag wins over its environment variable.\n")
	fs := flagSet("explain")
	for _, d := range flagList {
		f := fs.Lookup(d.name)
		b.WriteString("  ")
		if f.Shorthand != "" {
			b.WriteString("-" + f.Shorthand + ", ")
		}
		b.WriteString("--" + f.Name)
		switch {
		case d.optional:
			b.WriteString("[=" + d.value + "]")
		case d.value != "":
			b.WriteString(" " + d.value)
		}
		b.WriteString("\n")
		text := f.Usage
		if d.env != "" {
			text += " Without the flag: " + d.env + "."
		}
		if d.explainOnly {
			text = "(explain) " + text
		}
		line := "     "
		for _, word := range strings.Fields(text) {
			if len(line)+1+len(word) > 78 {
				b.WriteString(line + "\n")
				line = "     "
			}
			line += " " + word
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("      sidecar-lifecycle validate --output=sarif --output-file=results.sarif k8s/\n")
	return b.String()
}

// usage is the text of --help: the forms of the command, the flags as
// flagSet defines them (flagHelp), then how to run it and its config.
var usage = usageHead + flagHelp() + usageTail

// usageHead are the forms of the command.
const usageHead = `sidecar-lifecycle: a KRM function that makes sidecars start before the
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
  sidecar-lifecycle webhook --cert-file tls.crt --key-file tls.key [--config policy.yaml]
          [--listen :8443] [--metrics-listen :9090] [--validation-actions Warn|Deny|Audit]
      serves the admission webhook: POST /mutate patches each admitted Pod
      into what mutate writes for it, POST /validate gives its findings as
      warnings (Deny refuses the pod, Audit adds audit annotations), GET
      /healthz and /readyz on the same TLS port, /metrics on its own. Each
      flag also as SIDECAR_LIFECYCLE_<FLAG> (SIDECAR_LIFECYCLE_CERT_FILE).
      The Namespaces' switches come from the cluster it runs in.
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
`

// usageTail is how a run reads and writes, where to run it from, and the
// config.
const usageTail = `
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
is 1, and each error names the file and the line. A closed output pipe
ends the run quietly with exit code 141.

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
