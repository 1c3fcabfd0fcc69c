package driver_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/bench/corpus"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
)

// app is an application container with n environment entries, one of
// them a literal block scalar with a blank line, and every other field
// that is elided, as a sequence entry at column 0.
func app(name string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "- name: %s\n  image: shop/%s:1\n  env:\n", name, name)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - name: SETTING_%d\n    value: upstream-%d.catalog.svc.cluster.local\n", i, i)
	}
	b.WriteString("  - name: SCRIPT\n    value: |\n      first\n\n      third\n")
	fmt.Fprintf(&b, "  envFrom:\n  - configMapRef:\n      name: %s\n", name)
	b.WriteString("  resources:\n    limits:\n      cpu: \"1\"\n  volumeMounts:\n  - name: data\n    mountPath: /data\n")
	b.WriteString("  securityContext:\n    runAsUser: 1000\n  ports:\n  - containerPort: 8080\n")
	return b.String()
}

const linkerdProxy = "- name: linkerd-proxy\n  image: cr.l5d.io/linkerd/proxy:stable-2.14.10\n  env:\n  - name: LINKERD2_PROXY_LOG\n    value: warn\n"

// cloudSQLProxy is a Cloud SQL Auth Proxy container set up by its
// environment.
func cloudSQLProxy(env ...string) string {
	var b strings.Builder
	b.WriteString("- name: cloud-sql-proxy\n  image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.3\n  args:\n  - project:region:orders\n  env:\n")
	for i := 0; i+1 < len(env); i += 2 {
		fmt.Fprintf(&b, "  - name: %s\n    value: %q\n", env[i], env[i+1])
	}
	return b.String()
}

// workloadDoc is a Deployment or CronJob with the init containers and
// containers.
func workloadDoc(kind, name string, initContainers, containers []string) string {
	head := "apiVersion: apps/v1\nkind: Deployment\n"
	indent := "      "
	nest := "spec:\n  template:\n    spec:\n"
	if kind == "CronJob" {
		head = "apiVersion: batch/v1\nkind: CronJob\n"
		indent = "          "
		nest = "spec:\n  schedule: \"0 3 * * *\"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%smetadata:\n  name: %s\n  namespace: shop\n%s", head, name, nest)
	for _, list := range []struct {
		key        string
		containers []string
	}{{"initContainers", initContainers}, {"containers", containers}} {
		if len(list.containers) == 0 {
			continue
		}
		fmt.Fprintf(&b, "%s%s:\n", indent, list.key)
		for _, c := range list.containers {
			for _, line := range strings.SplitAfter(strings.TrimSuffix(c, "\n"), "\n") {
				b.WriteString(indent + line)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// deployment is a Deployment named big.
func deployment(initContainers, containers []string) string {
	return workloadDoc("Deployment", "big", initContainers, containers)
}

// listOf is a ResourceList of the documents with the functionConfig.
func listOf(t testing.TB, config string, docs ...string) []byte {
	t.Helper()
	rl, err := krmtest.ResourceList([]byte(strings.Join(docs, "---\n")), []byte(config))
	if err != nil {
		t.Fatal(err)
	}
	return rl
}

// containerIn is a container of the named workload in an output list, in
// either list, or nil.
func containerIn(t *testing.T, out, workloadName, container string) *yaml.RNode {
	t.Helper()
	o, err := krmtest.Split([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	for _, item := range o.Items {
		w, ok := workload.Find(item, nil)
		if !ok || w.Name != workloadName {
			continue
		}
		spec, err := w.PodSpec()
		if err != nil {
			t.Fatal(err)
		}
		for _, field := range []string{"initContainers", "containers"} {
			if c, err := spec.Pipe(yaml.Lookup(field, "[name="+container+"]")); err == nil && c != nil {
				return c
			}
		}
	}
	return nil
}

// strings of a list field of a node, or nil.
func stringsAt(t *testing.T, n *yaml.RNode, path ...string) []string {
	t.Helper()
	if n == nil {
		return nil
	}
	f, err := n.Pipe(yaml.Lookup(path...))
	if err != nil || f == nil {
		return nil
	}
	var out []string
	for _, e := range f.Content() {
		if e.Kind == yaml.ScalarNode {
			out = append(out, e.Value)
		} else {
			s, _ := yaml.NewRNode(e).String()
			out = append(out, s)
		}
	}
	return out
}

// containerOrder is the names of a list of the workload's pod spec in an
// output list.
func containerOrder(t *testing.T, out, workloadName, field string) []string {
	t.Helper()
	o, err := krmtest.Split([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	for _, item := range o.Items {
		if w, ok := workload.Find(item, nil); ok && w.Name == workloadName {
			spec, _ := w.PodSpec()
			var names []string
			for _, c := range stringsAt(t, spec, field) {
				name, _, _ := strings.Cut(strings.TrimPrefix(c, "name: "), "\n")
				names = append(names, name)
			}
			return names
		}
	}
	return nil
}

const configHead = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata:\n  name: c\nspec:\n"

// elisionLists are generated workloads with large environments in their
// application containers, through configs that edit them.
func elisionLists(t *testing.T) []elisionCase {
	nativeLinkerd := configHead + "  kubernetesVersion: \"1.30\"\n  mode: native\n  sidecars:\n  - preset: linkerd\n"
	cloudSQL := configHead + "  kubernetesVersion: \"1.30\"\n  sidecars:\n  - preset: cloud-sql-proxy\n"
	cloudSQLNative := configHead + "  kubernetesVersion: \"1.30\"\n  mode: native\n  sidecars:\n  - preset: cloud-sql-proxy\n"
	named := configHead + "  sidecars:\n  - name: log-shipper\n    waitBeforeExit: 10s\n"
	validate := strings.Replace(corpus.FunctionConfig, "spec:\n", "spec:\n  action: validate\n", 1)
	big := []string{app("app", 300), linkerdProxy}
	movedFirst := func(t *testing.T, out string) {
		if got := containerOrder(t, out, "big", "containers"); !slices.Equal(got, []string{"linkerd-proxy", "app"}) {
			t.Errorf("containers %q, want linkerd-proxy before app", got)
		}
		if cmd := stringsAt(t, containerIn(t, out, "big", "linkerd-proxy"), "lifecycle", "postStart", "exec", "command"); len(cmd) == 0 {
			t.Error("linkerd-proxy has no wait command")
		}
		if containerIn(t, out, "big", "app").Field("lifecycle") == nil {
			t.Error("the app has no drain delay")
		}
	}
	return []elisionCase{
		{name: "generated/ordered linkerd moved before the app", elided: 1, in: listOf(t, corpus.FunctionConfig, deployment(nil, big)), check: movedFirst},
		{name: "generated/two apps and the proxy between them", elided: 1,
			in: listOf(t, corpus.FunctionConfig, deployment(nil, []string{app("app", 100), linkerdProxy, app("worker", 100)}))},
		{name: "generated/native linkerd with an init container", elided: 1,
			in: listOf(t, nativeLinkerd, deployment([]string{app("migrate", 100)}, big)),
			check: func(t *testing.T, out string) {
				if got := containerOrder(t, out, "big", "initContainers"); !slices.Equal(got, []string{"linkerd-proxy", "migrate"}) {
					t.Errorf("initContainers %q, want linkerd-proxy before migrate", got)
				}
			}},
		{name: "generated/a CronJob", elided: 1,
			in: listOf(t, corpus.FunctionConfig, workloadDoc("CronJob", "big", []string{app("migrate", 50)}, big)),
			check: func(t *testing.T, out string) {
				if got := containerOrder(t, out, "big", "containers"); !slices.Equal(got, []string{"linkerd-proxy", "app"}) {
					t.Errorf("containers %q, want linkerd-proxy before app", got)
				}
			}},
		{name: "generated/the catalog recognises the proxy by its image", elided: 1,
			in: listOf(t, "", deployment(nil, []string{app("app", 300), strings.Replace(linkerdProxy, "name: linkerd-proxy", "name: mesh", 1)})),
			check: func(t *testing.T, out string) {
				if got := containerOrder(t, out, "big", "containers"); !slices.Equal(got, []string{"mesh", "app"}) {
					t.Errorf("containers %q, want mesh before app", got)
				}
			}},
		{name: "generated/Cloud SQL proxy set up by its environment, ordered", elided: 1,
			in: listOf(t, cloudSQL, deployment(nil, []string{app("app", 300), cloudSQLProxy("CSQL_PROXY_HTTP_PORT", "9801", "CSQL_PROXY_HEALTH_CHECK", "true", "CSQL_PROXY_HTTP_ADDRESS", "0.0.0.0")})),
			check: func(t *testing.T, out string) {
				cmd := stringsAt(t, containerIn(t, out, "big", "cloud-sql-proxy"), "lifecycle", "postStart", "exec", "command")
				if !slices.Contains(cmd, "9801") {
					t.Errorf("wait command %q, want the HTTP port of the proxy's environment, 9801", cmd)
				}
			}},
		{name: "generated/Cloud SQL proxy with its health check off in its environment, native", elided: 1,
			in: listOf(t, cloudSQLNative, deployment(nil, []string{app("app", 300), cloudSQLProxy("CSQL_PROXY_HTTP_PORT", "9801")})),
			check: func(t *testing.T, out string) {
				proxy := containerIn(t, out, "big", "cloud-sql-proxy")
				if env := strings.Join(stringsAt(t, proxy, "env"), "\n"); !strings.Contains(env, "CSQL_PROXY_HEALTH_CHECK") {
					t.Errorf("the proxy's health check is not switched on in its environment:\n%s", env)
				}
				if port, _ := proxy.Pipe(yaml.Lookup("startupProbe", "httpGet", "port")); port == nil || port.YNode().Value != "9801" {
					t.Errorf("startupProbe port %v, want 9801", port)
				}
			}},
		{name: "generated/a sidecar the config names keeps its environment", elided: 1,
			in: listOf(t, named, deployment(nil, []string{app("app", 100), app("log-shipper", 100)})),
			check: func(t *testing.T, out string) {
				if got := containerOrder(t, out, "big", "containers"); !slices.Equal(got, []string{"log-shipper", "app"}) {
					t.Errorf("containers %q, want log-shipper before app", got)
				}
			}},
		{name: "generated/validate", elided: 1, in: listOf(t, validate, deployment(nil, big))},
		{name: "generated/another item fails: every item as it came", elided: 1,
			in: listOf(t, corpus.FunctionConfig, deployment(nil, big),
				strings.Replace(workloadDoc("Deployment", "broken", nil, []string{app("app", 1), linkerdProxy}), "  namespace: shop\n",
					"  namespace: shop\n  annotations:\n    sidecar-lifecycle.dev/mode: sideways\n", 1)),
			check: func(t *testing.T, out string) {
				if got := containerOrder(t, out, "big", "containers"); !slices.Equal(got, []string{"app", "linkerd-proxy"}) {
					t.Errorf("containers %q, want them as they came", got)
				}
			}},
		{name: "generated/several workloads", elided: 3,
			in: listOf(t, corpus.FunctionConfig, deployment(nil, big), workloadDoc("Deployment", "other", nil, []string{app("web", 20), linkerdProxy}),
				workloadDoc("CronJob", "nightly", nil, []string{app("job", 20)}))},
	}
}
