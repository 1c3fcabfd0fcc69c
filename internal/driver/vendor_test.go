package driver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
)

// vendorModes are the functionConfigs each vendor case runs through.
var vendorModes = []string{"ordered", "native", "validate"}

// TestVendorCorpus runs every testdata/vendor/<mesh>/items.yaml, written in
// the shape of that mesh's own injected output, through ordered.yaml,
// native.yaml and validate.yaml next to it, with the checks of TestGolden
// (expected-<mode>.yaml, results-<mode>.yaml), and checks each workload
// against what the mesh's own injector writes: init container order, the
// native proxy's probe and hooks, Istio's status annotation, the mesh's
// exit-delay settings, and that a mesh's opt-out and a gateway are left alone.
func TestVendorCorpus(t *testing.T) {
	dirs, err := filepath.Glob("testdata/vendor/*/items.yaml")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no vendor cases: %v", err)
	}
	for _, itemsPath := range dirs {
		dir := filepath.Dir(itemsPath)
		for _, mode := range vendorModes {
			t.Run(filepath.Base(dir)+"/"+mode, func(t *testing.T) {
				cfg, err := os.ReadFile(filepath.Join(dir, mode+".yaml"))
				if err != nil {
					t.Fatal(err)
				}
				o := goldenCase(t, readOptional(t, itemsPath), cfg,
					filepath.Join(dir, "expected-"+mode+".yaml"), filepath.Join(dir, "results-"+mode+".yaml"))
				warned := map[string]string{}
				for _, r := range o.ResultList() {
					if r.Severity == "warning" {
						warned[r.Ref] += r.Message + "\n"
					}
				}
				in, err := (&kio.ByteReader{Reader: bytes.NewReader(readOptional(t, itemsPath)), OmitReaderAnnotations: true}).Read()
				if err != nil || len(in) != len(o.Items) {
					t.Fatalf("%d items in, %d out: %v", len(in), len(o.Items), err)
				}
				for i, item := range o.Items {
					w, ok := workload.Find(item, nil)
					if !ok {
						continue
					}
					if word := vendorWritten(w); word != "" {
						if text, err := krmtest.Strings([]*yaml.RNode{in[i], item}); err != nil || text[0] != text[1] {
							t.Errorf("%s %s: changed although %s (%v):\n%s", w.Kind, w.Name, word, err, krmtest.Diff(text[0], text[1]))
						}
						// A gateway, whose proxy is the whole pod, is left silently.
						spec, _ := w.PodSpec()
						gateway := len(podspec.Names(spec, podspec.Containers)) == 1
						if !gateway && !strings.Contains(warned[krmtest.ID(item)], "left as its vendor wrote it") {
							t.Errorf("%s %s: no warning that it is left as its vendor wrote it (%s)", w.Kind, w.Name, word)
						}
						continue
					}
					for _, e := range asInjected(w, mode, warned[krmtest.ID(item)], drainPort(in[i])) {
						t.Errorf("%s %s: %s", w.Kind, w.Name, e)
					}
				}
			})
		}
	}
}

// vendorWritten names the vendor's own word, read here from the vendors'
// sources independently of the catalog, that the workload's proxy runs as
// the vendor wrote it, or is empty: an Istio injection template other than
// the sidecar one (pkg/kube/inject/inject.go selectTemplates), Istio's
// status port 0 (no status server), Linkerd's control-plane label.
func vendorWritten(w *workload.Workload) string {
	if v, ok := w.Annotation("inject.istio.io/templates"); ok && !slices.Contains(strings.Split(v, ","), "sidecar") {
		return "inject.istio.io/templates is " + strconv.Quote(v)
	}
	if v, _ := w.Annotation("status.sidecar.istio.io/port"); v == "0" {
		return "status.sidecar.istio.io/port is \"0\""
	}
	if v, ok := w.TemplateLabel("linkerd.io/control-plane-component"); ok {
		return "linkerd.io/control-plane-component is " + strconv.Quote(v)
	}
	return ""
}

// drainPort is the status port of the drain preStop Istio's injector wrote
// on a native istio-proxy of the input item, or empty.
func drainPort(item *yaml.RNode) string {
	w, ok := workload.Find(item, nil)
	if !ok {
		return ""
	}
	spec, err := w.PodSpec()
	if err != nil || spec == nil {
		return ""
	}
	c := podspec.Find(spec, podspec.InitContainers, "istio-proxy")
	if c == nil {
		return ""
	}
	cmd, err := c.Pipe(yaml.Lookup("lifecycle", "preStop", "exec", "command"))
	if err != nil || cmd == nil {
		return ""
	}
	var args []string
	for _, n := range cmd.YNode().Content {
		args = append(args, n.Value)
	}
	if len(args) == 5 && args[0] == "pilot-agent" && args[4] == "drain" {
		return strings.TrimPrefix(args[2], "--debug-port=")
	}
	return ""
}

// asInjected lists how the workload differs from what its mesh's injector
// writes for the mode; warnings are the run's warnings about the workload.
func asInjected(w *workload.Workload, mode, warnings, injectedPort string) []string {
	spec, err := w.PodSpec()
	if err != nil || spec == nil {
		return []string{fmt.Sprintf("no pod spec: %v", err)}
	}
	js, err := spec.MarshalJSON()
	if err != nil {
		return []string{err.Error()}
	}
	var ps corev1.PodSpec
	if err := json.Unmarshal(js, &ps); err != nil {
		return []string{err.Error()}
	}
	var errs []string
	if len(ps.Containers) == 0 {
		errs = append(errs, "no containers")
	}
	for _, proxy := range []string{"istio-proxy", "linkerd-proxy"} {
		if i := slices.IndexFunc(ps.InitContainers, func(c corev1.Container) bool { return c.Name == proxy }); i >= 0 {
			errs = append(errs, nativeAsInjected(w, &ps, i, warnings, injectedPort)...)
		} else if i := slices.IndexFunc(ps.Containers, func(c corev1.Container) bool { return c.Name == proxy }); i >= 0 {
			errs = append(errs, regularAsInjected(w, &ps, i, mode)...)
		}
	}
	return errs
}

// nativeAsInjected checks a native proxy at initContainers[i].
func nativeAsInjected(w *workload.Workload, ps *corev1.PodSpec, i int, warnings, injectedPort string) []string {
	var errs []string
	c := ps.InitContainers[i]
	mesh := preset.MeshInitContainers()
	for j, ic := range ps.InitContainers {
		if isMesh := slices.Contains(mesh, ic.Name); isMesh != (j < i) {
			errs = append(errs, fmt.Sprintf("initContainers[%d] %s is on the wrong side of %s", j, ic.Name, c.Name))
		}
	}
	if c.RestartPolicy == nil || *c.RestartPolicy != corev1.ContainerRestartPolicyAlways {
		errs = append(errs, c.Name+" has no restartPolicy Always")
	}
	p, _ := preset.Lookup(map[string]string{"istio-proxy": preset.Istio, "linkerd-proxy": preset.Linkerd}[c.Name])
	if !equality.Semantic.DeepEqual(c.StartupProbe, p.StartupProbe) {
		errs = append(errs, fmt.Sprintf("%s startupProbe %+v, the injector writes %+v", c.Name, c.StartupProbe, p.StartupProbe))
	}
	switch c.Name {
	case "istio-proxy":
		port, ok := w.Annotation("status.sidecar.istio.io/port")
		if !ok {
			port = "15020" // Istio values.yaml global.proxy.statusPort
		}
		if injectedPort != "" {
			port = injectedPort // the injector's own, from its configured values
		}
		if c.Lifecycle == nil || c.Lifecycle.PostStart != nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Exec == nil ||
			!slices.Equal(c.Lifecycle.PreStop.Exec.Command, []string{"pilot-agent", "request", "--debug-port=" + port, "POST", "drain"}) {
			errs = append(errs, fmt.Sprintf("istio-proxy lifecycle %+v, the injector writes only the drain preStop on port %s", c.Lifecycle, port))
		}
		if v, _ := w.Annotation("sidecar.istio.io/nativeSidecar"); v == "false" && !strings.Contains(warnings, "istio-proxy is") {
			errs = append(errs, "native istio-proxy under sidecar.istio.io/nativeSidecar: \"false\", without a warning")
		}
		errs = append(errs, istioStatus(w, ps)...)
	case "linkerd-proxy":
		if c.Lifecycle != nil {
			errs = append(errs, fmt.Sprintf("linkerd-proxy lifecycle %+v, the injector writes none on a native proxy", c.Lifecycle))
		}
		if v, ok := w.Annotation("config.alpha.linkerd.io/proxy-wait-before-exit-seconds"); ok {
			errs = append(errs, "native linkerd-proxy with proxy-wait-before-exit-seconds "+v)
		}
		if v, ok := w.Annotation("config.alpha.linkerd.io/proxy-enable-native-sidecar"); ok && v != "true" {
			errs = append(errs, "native linkerd-proxy under proxy-enable-native-sidecar "+strconv.Quote(v))
		}
	}
	return errs
}

// regularAsInjected checks a proxy at containers[i]: in native mode only a
// gateway or a workload that opts out of native sidecars keeps one there; in
// ordered mode the mesh's own exit-delay setting says what the preStop does.
func regularAsInjected(w *workload.Workload, ps *corev1.PodSpec, i int, mode string) []string {
	c := ps.Containers[i]
	gateway := len(ps.Containers) == 1
	optOut := false
	for _, key := range []string{"sidecar.istio.io/nativeSidecar", "config.linkerd.io/proxy-enable-native-sidecar", "config.beta.linkerd.io/proxy-enable-native-sidecar"} {
		v, _ := w.Annotation(key)
		optOut = optOut || v == "false"
	}
	if v, _ := w.Annotation("config.linkerd.io/proxy-await"); v == "disabled" {
		optOut = true
	}
	var errs []string
	if mode == "native" && !gateway && !optOut {
		errs = append(errs, c.Name+" left in containers")
	}
	if mode != "ordered" || gateway || optOut {
		return errs
	}
	if i != 0 {
		errs = append(errs, fmt.Sprintf("%s is containers[%d], not first", c.Name, i))
	}
	var sleep int64
	if c.Lifecycle != nil && c.Lifecycle.PreStop != nil && c.Lifecycle.PreStop.Sleep != nil {
		sleep = c.Lifecycle.PreStop.Sleep.Seconds
	}
	if v, ok := w.Annotation("config.alpha.linkerd.io/proxy-wait-before-exit-seconds"); ok && v != strconv.FormatInt(sleep, 10) {
		errs = append(errs, fmt.Sprintf("proxy-wait-before-exit-seconds %q, but the preStop sleeps %ds", v, sleep))
	}
	if cfg, ok := w.Annotation("proxy.istio.io/config"); ok && strings.Contains(cfg, "terminationDrainDuration") &&
		!strings.Contains(cfg, fmt.Sprintf(`"terminationDrainDuration":"%ds"`, sleep)) {
		errs = append(errs, fmt.Sprintf("proxy.istio.io/config %s, but the preStop sleeps %ds", cfg, sleep))
	}
	return errs
}

// istioStatus checks that sidecar.istio.io/status lists each injected
// container in the list it is in, in the pod's order.
func istioStatus(w *workload.Workload, ps *corev1.PodSpec) []string {
	v, ok := w.Annotation("sidecar.istio.io/status")
	if !ok {
		return nil
	}
	var status struct {
		InitContainers []string `json:"initContainers"`
		Containers     []string `json:"containers"`
	}
	if err := yaml.Unmarshal([]byte(v), &status); err != nil {
		return []string{"sidecar.istio.io/status: " + err.Error()}
	}
	var errs []string
	for _, list := range []struct {
		names      []string
		containers []corev1.Container
		field      string
	}{{status.InitContainers, ps.InitContainers, "initContainers"}, {status.Containers, ps.Containers, "containers"}} {
		at := -1
		for _, n := range list.names {
			i := slices.IndexFunc(list.containers, func(c corev1.Container) bool { return c.Name == n })
			if i <= at {
				errs = append(errs, fmt.Sprintf("sidecar.istio.io/status lists %s in %s, not where the pod has it: %s", n, list.field, v))
			}
			at = i
		}
	}
	return errs
}
