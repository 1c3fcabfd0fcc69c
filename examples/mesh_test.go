package examples_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

// TestLinkerdNative renders examples/linkerd-native/emojivoto-web, a
// Deployment as `linkerd inject --manual` writes it, with its Kptfile
// pipeline (mode native), then renders the result again.
func TestLinkerdNative(t *testing.T) {
	items := renderKptExample(t, "linkerd-native", "emojivoto-web")
	spec := podSpecOf(t, items, "Deployment", "web")
	checkNativeSidecar(t, spec, "Deployment/web", "linkerd-proxy", "linkerd-init")
	proxy := containerNamed(t, spec, "initContainers", "linkerd-proxy")
	if hook, _ := proxy.Pipe(yaml.Lookup("lifecycle", "postStart")); hook != nil {
		t.Errorf("Deployment/web: linkerd-proxy kept its linkerd-await postStart, which would hold back the init containers after it:\n%s", hook.MustString())
	}
	if got := stringAt(containerNamed(t, spec, "containers", "web-svc"), "lifecycle", "preStop", "sleep", "seconds"); got != "5" {
		t.Errorf("Deployment/web: web-svc preStop sleep is %q, want 5 (app.drainDelay)", got)
	}
}

// TestIstioAnnotate runs the function with kpt fn eval --exec on
// examples/istio-annotate/shop, where Istio injects its proxy at admission,
// then runs it again on the result.
func TestIstioAnnotate(t *testing.T) {
	kpt := kptTool(t)
	dir := workDir(t, "istio-annotate")
	copyDir(t, "istio-annotate", dir)
	eval := execEval(t, kpt, dir, "shop", "--fn-config", "sidecar-lifecycle.yaml")

	results := eval()
	pkg := filepath.Join(dir, "shop")
	checkGoldenDir(t, filepath.Join("istio-annotate", "expected", "shop"), pkg)
	checkGolden(t, filepath.Join("istio-annotate", "expected", "results.yaml"), results)
	items := readPackage(t, pkg)
	checkValidItems(t, items)

	// The team's own ProxyConfig keys are kept next to the function's.
	config := podAnnotation(t, items, "Deployment", "checkout", "proxy.istio.io/config")
	proxyConfig, err := yaml.Parse(config)
	if err != nil {
		t.Fatalf("Deployment/checkout: proxy.istio.io/config is not YAML: %v\n%s", err, config)
	}
	for path, want := range map[string]string{
		"concurrency":                          "2",
		"proxyMetadata.ISTIO_META_DNS_CAPTURE": "true",
		"holdApplicationUntilProxyStarts":      "true",
		"terminationDrainDuration":             "20s",
	} {
		if got := stringAt(proxyConfig, strings.Split(path, ".")...); got != want {
			t.Errorf("Deployment/checkout: proxy.istio.io/config %s is %q, want %q", path, got, want)
		}
	}
	if got := podAnnotation(t, items, "CronJob", "reindex", "sidecar.istio.io/nativeSidecar"); got != "true" {
		t.Errorf("CronJob/reindex asks for native mode, but sidecar.istio.io/nativeSidecar is %q", got)
	}
	if got := podAnnotation(t, items, "Deployment", "storefront", "sidecar.istio.io/nativeSidecar"); got != "" {
		t.Errorf("Deployment/storefront is in ordered mode, but sidecar.istio.io/nativeSidecar is %q", got)
	}

	first := readDir(t, pkg)
	results = eval()
	sameFiles(t, "the first eval", first, "the second eval", readDir(t, pkg))
	checkNoChanges(t, results)
}

// TestCloudSQLJob renders examples/cloud-sql-job/ledger, a Job and a CronJob
// with the Cloud SQL Auth Proxy, with a Kptfile pipeline whose functionConfig
// is an inline ConfigMap (mode native), then renders the result again.
func TestCloudSQLJob(t *testing.T) {
	items := renderKptExample(t, "cloud-sql-job", "ledger")
	for _, w := range []struct{ kind, name string }{{"Job", "ledger-migrate"}, {"CronJob", "ledger-export"}} {
		spec := podSpecOf(t, items, w.kind, w.name)
		checkNativeSidecar(t, spec, w.kind+"/"+w.name, "cloud-sql-proxy", "")
		proxy := containerNamed(t, spec, "initContainers", "cloud-sql-proxy")
		if got := stringAt(proxy, "startupProbe", "httpGet", "path"); got != "/startup" {
			t.Errorf("%s/%s: cloud-sql-proxy startupProbe path is %q, want /startup (served by --health-check)", w.kind, w.name, got)
		}
	}
}

// renderKptExample renders examples/<example>/<pkg> with its Kptfile
// pipeline (exec: sidecar-lifecycle, found on PATH), compares the package and
// kpt's results with examples/<example>/expected, renders the result again
// and requires no change. It returns the rendered items.
func renderKptExample(t *testing.T, example, pkgName string) []*yaml.RNode {
	t.Helper()
	kpt := kptTool(t)
	pkg := filepath.Join(workDir(t, example), pkgName)
	copyDir(t, filepath.Join(example, pkgName), pkg)
	env := toolsOnPath(t, functionBinary())
	render := func() string {
		t.Helper()
		results := t.TempDir()
		mustRun(t, pkg, env, kpt, "fn", "render", "--allow-exec", "--results-dir", results, ".")
		return readFile(t, filepath.Join(results, "results.yaml"))
	}

	results := render()
	checkGoldenDir(t, filepath.Join(example, "expected", pkgName), pkg)
	checkGolden(t, filepath.Join(example, "expected", "results.yaml"), results)
	items := readPackage(t, pkg)
	checkValidItems(t, items)

	first := readDir(t, pkg)
	results = render()
	sameFiles(t, "the first render", first, "the second render", readDir(t, pkg))
	checkNoChanges(t, results)
	return items
}

// toolsOnPath returns a PATH setting for run and mustRun that puts a
// directory holding the given executables (linked by base name) first.
func toolsOnPath(t *testing.T, tools ...string) []string {
	t.Helper()
	dir := t.TempDir()
	for _, tool := range tools {
		if err := os.Symlink(tool, filepath.Join(dir, filepath.Base(tool))); err != nil {
			t.Fatal(err)
		}
	}
	return []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH")}
}

// checkValidItems checks that every workload decodes strictly into its
// k8s.io/api type and passes the API server's container rules.
func checkValidItems(t *testing.T, items []*yaml.RNode) {
	t.Helper()
	for _, item := range items {
		if err := krmtest.Valid(item); err != nil {
			t.Errorf("%s is not valid: %v", krmtest.ID(item), err)
		}
	}
}

// findItem returns the item of that kind and name, or fails the test.
func findItem(t *testing.T, items []*yaml.RNode, kind, name string) *yaml.RNode {
	t.Helper()
	for _, item := range items {
		if item.GetKind() == kind && item.GetName() == name {
			return item
		}
	}
	t.Fatalf("no %s/%s in the output", kind, name)
	return nil
}

// podTemplatePath is where each workload kind of the examples keeps its pod template.
var podTemplatePath = map[string][]string{
	"Deployment": {"spec", "template"},
	"Job":        {"spec", "template"},
	"CronJob":    {"spec", "jobTemplate", "spec", "template"},
}

func podTemplateOf(t *testing.T, items []*yaml.RNode, kind, name string) *yaml.RNode {
	t.Helper()
	path, ok := podTemplatePath[kind]
	if !ok {
		t.Fatalf("no pod template path for kind %s", kind)
	}
	template, err := findItem(t, items, kind, name).Pipe(yaml.Lookup(path...))
	if err != nil || template == nil {
		t.Fatalf("%s/%s has no %s: %v", kind, name, strings.Join(path, "."), err)
	}
	return template
}

func podSpecOf(t *testing.T, items []*yaml.RNode, kind, name string) *yaml.RNode {
	t.Helper()
	spec, err := podTemplateOf(t, items, kind, name).Pipe(yaml.Lookup("spec"))
	if err != nil || spec == nil {
		t.Fatalf("%s/%s has no pod spec: %v", kind, name, err)
	}
	return spec
}

// podAnnotation returns an annotation of the workload's pod template, or "".
func podAnnotation(t *testing.T, items []*yaml.RNode, kind, name, key string) string {
	t.Helper()
	return podTemplateOf(t, items, kind, name).GetAnnotations()[key]
}

// containerNamed returns the named container of spec.<field>, or fails.
func containerNamed(t *testing.T, spec *yaml.RNode, field, name string) *yaml.RNode {
	t.Helper()
	c, err := spec.Pipe(yaml.Lookup(field, "[name="+name+"]"))
	if err != nil || c == nil {
		t.Fatalf("no %s named %s: %v", field, name, err)
	}
	return c
}

// containerNames lists the names in spec.<field>.
func containerNames(spec *yaml.RNode, field string) []string {
	list, err := spec.Pipe(yaml.Lookup(field))
	if err != nil || list == nil {
		return nil
	}
	var names []string
	for _, c := range list.Content() {
		names = append(names, stringAt(yaml.NewRNode(c), "name"))
	}
	return names
}

// checkNativeSidecar checks that sidecar is a native sidecar of the pod spec:
// an init container with restartPolicy Always and a startupProbe, right
// after the init container named after (or first when after is ""), and no
// longer a regular container.
func checkNativeSidecar(t *testing.T, spec *yaml.RNode, workload, sidecar, after string) {
	t.Helper()
	for _, name := range containerNames(spec, "containers") {
		if name == sidecar {
			t.Errorf("%s: %s is still in containers", workload, sidecar)
		}
	}
	inits := containerNames(spec, "initContainers")
	want := 0
	for i, name := range inits {
		if name == after {
			want = i + 1
		}
	}
	if want >= len(inits) || inits[want] != sidecar {
		t.Errorf("%s: initContainers are %v, want %s at index %d", workload, inits, sidecar, want)
		return
	}
	c := containerNamed(t, spec, "initContainers", sidecar)
	if got := stringAt(c, "restartPolicy"); got != "Always" {
		t.Errorf("%s: %s restartPolicy is %q, want Always", workload, sidecar, got)
	}
	if probe, _ := c.Pipe(yaml.Lookup("startupProbe")); probe == nil {
		t.Errorf("%s: %s has no startupProbe, so kubelet would not wait for it", workload, sidecar)
	}
}

// TestCatalogZeroConfig runs the function with kpt fn eval --exec and no
// functionConfig on examples/catalog/apps, as a new user first does: each
// sidecar of the catalog is recognised with no configuration (the Cloud
// SQL proxy by its image under the operator's container name, Kuma by its
// injection label, Istio by its Namespace's label, Dapr by its annotation)
// and reported; Contour's Envoy DaemonSet, whose Envoy image the catalog
// knows, is the application of its pod and is left alone; a second run
// changes nothing.
func TestCatalogZeroConfig(t *testing.T) {
	kpt := kptTool(t)
	dir := workDir(t, "catalog")
	copyDir(t, "catalog", dir)
	eval := execEval(t, kpt, dir, "apps")

	results := eval()
	pkg := filepath.Join(dir, "apps")
	checkGoldenDir(t, filepath.Join("catalog", "expected", "apps"), pkg)
	checkGolden(t, filepath.Join("catalog", "expected", "results.yaml"), results)
	items := readPackage(t, pkg)
	checkValidItems(t, items)
	for _, want := range []string{
		`recognised csql-billing-orders (cloud-sql-proxy) by its image "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.27.0"`,
		`recognised kuma-sidecar (kuma) by label kuma.io/sidecar-injection: "enabled" on the pod template (added at admission)`,
		`recognised istio-proxy (istio) by label istio-injection: "enabled" on its Namespace (added at admission)`,
		`daprd (dapr), recognised by annotation dapr.io/enabled: "true" on the pod template (added at admission): the function cannot ask its injector to order it`,
	} {
		if !strings.Contains(results, want) {
			t.Errorf("the results do not say %q:\n%s", want, results)
		}
	}
	// Contour's Envoy is the application of its pod: nothing is said of
	// it, and its containers come out as they went in.
	if strings.Contains(results, "name: envoy") {
		t.Errorf("the results name Contour's Envoy DaemonSet, which is no sidecar's:\n%s", results)
	}
	in, err := os.ReadFile(filepath.Join("catalog", "apps", "envoy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if out := readFile(t, filepath.Join(pkg, "envoy.yaml")); !sameContainers(t, string(in), out) {
		t.Errorf("Contour's Envoy DaemonSet changed:\n%s", out)
	}
	if got := podAnnotation(t, items, "Deployment", "payments", "kuma.io/wait-for-dataplane-ready"); got != "true" {
		t.Errorf("Deployment/payments: kuma.io/wait-for-dataplane-ready is %q, want \"true\"", got)
	}

	first := readDir(t, pkg)
	results = eval()
	sameFiles(t, "the first eval", first, "the second eval", readDir(t, pkg))
	checkNoChanges(t, results)
}

// execEval returns a function that runs kpt fn eval --exec on the package
// pkg of dir with the function on PATH and the extra arguments, and
// returns the results kpt writes.
func execEval(t *testing.T, kpt, dir, pkg string, args ...string) func() string {
	env := toolsOnPath(t, functionBinary())
	return func() string {
		t.Helper()
		results := t.TempDir()
		mustRun(t, dir, env, kpt, append([]string{"fn", "eval", pkg, "--exec", "sidecar-lifecycle", "--results-dir", results}, args...)...)
		return readFile(t, filepath.Join(results, "results.yaml"))
	}
}

// sameContainers reports whether two texts of one workload hold the same
// containers and init containers, in the same order, with the same data.
func sameContainers(t *testing.T, a, b string) bool {
	t.Helper()
	lists := func(text string) string {
		n, err := yaml.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		spec, err := n.Pipe(yaml.Lookup("spec", "template", "spec"))
		if err != nil || spec == nil {
			t.Fatalf("no pod spec: %v", err)
		}
		var out strings.Builder
		for _, field := range []string{"initContainers", "containers"} {
			if l := spec.Field(field); l != nil {
				s, err := l.Value.String()
				if err != nil {
					t.Fatal(err)
				}
				out.WriteString(field + ":\n" + s)
			}
		}
		return out.String()
	}
	return lists(a) == lists(b)
}
