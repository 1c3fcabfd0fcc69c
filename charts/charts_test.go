// Package charts tests the Helm chart of charts/: it renders with the
// pinned Helm 3 and Helm 4 (`make tools` installs them into bin/), every
// object decodes strictly into its Kubernetes type, the webhook
// configurations select what the chart's README says, the function's own
// `validate` passes the chart's manifests, and the webhook binary serves
// with the chart's flags, files and certificate.
package charts

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/testbin"
)

// The chart, and the release the tests install it as.
const (
	chartDir    = "sidecar-lifecycle-webhook"
	release     = "sidecar-lifecycle-webhook"
	namespace   = "sidecar-lifecycle"
	kubeVersion = "1.34.0" // the Helm binaries `go install` builds assume 1.20 otherwise
)

// The Helm versions `make tools` installs, each in its own directory.
var helms = []struct{ dir, version string }{
	{"helm3", "v3.22.0"},
	{"helm4", "v4.3.1"},
}

// The TLS modes of values.yaml.
var modes = []string{"cert-manager", "self-signed"}

func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Remove()
	os.Exit(code)
}

// helmTool returns bin/<dir>/helm at its pinned version, or fails the test
// (a missing tool is an error, never a skip).
func helmTool(t *testing.T, dir, version string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("..", "bin", dir, "helm"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("helm is not installed at %s: run `make tools` (installs helm %s there)", path, version)
	}
	out, err := exec.Command(path, "version", "--short").Output()
	if got := strings.TrimSpace(string(out)); err != nil || got != version {
		t.Fatalf("%s version is %q (%v), want %s: run `make tools`", path, got, err, version)
	}
	return path
}

// runHelm runs Helm with its data, config and cache in the test's own
// directories.
func runHelm(t *testing.T, helm string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(helm, args...)
	cmd.Env = append(os.Environ(),
		"HELM_DATA_HOME="+filepath.Join(home, "data"),
		"HELM_CONFIG_HOME="+filepath.Join(home, "config"),
		"HELM_CACHE_HOME="+filepath.Join(home, "cache"))
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// templateArgs are the arguments of `helm template` for the release with
// the values set.
func templateArgs(set ...string) []string {
	args := []string{"template", release, chartDir, "--namespace", namespace, "--kube-version", kubeVersion}
	for _, s := range set {
		args = append(args, "--set", s)
	}
	return args
}

// render renders the chart, or fails the test.
func render(t *testing.T, helm string, set ...string) string {
	t.Helper()
	out, stderr, err := runHelm(t, helm, templateArgs(set...)...)
	if err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(templateArgs(set...), " "), err, stderr)
	}
	return out
}

// The cert-manager kinds the chart writes, with the fields it uses of
// cert-manager.io/v1; strict decoding holds the chart to these names.
type issuer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		SelfSigned *struct{} `json:"selfSigned,omitempty"`
	} `json:"spec"`
}

type certificate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		SecretName  string   `json:"secretName"`
		DNSNames    []string `json:"dnsNames"`
		Duration    string   `json:"duration"`
		RenewBefore string   `json:"renewBefore"`
		PrivateKey  struct {
			Algorithm      string `json:"algorithm"`
			Size           int    `json:"size"`
			RotationPolicy string `json:"rotationPolicy"`
		} `json:"privateKey"`
		Usages    []string `json:"usages"`
		IssuerRef struct {
			Name  string `json:"name"`
			Kind  string `json:"kind"`
			Group string `json:"group,omitempty"`
		} `json:"issuerRef"`
	} `json:"spec"`
}

// kinds maps each apiVersion and kind the chart may write to its type.
var kinds = map[string]func() any{
	"v1/ServiceAccount":             func() any { return &corev1.ServiceAccount{} },
	"v1/ConfigMap":                  func() any { return &corev1.ConfigMap{} },
	"v1/Secret":                     func() any { return &corev1.Secret{} },
	"v1/Service":                    func() any { return &corev1.Service{} },
	"apps/v1/Deployment":            func() any { return &appsv1.Deployment{} },
	"policy/v1/PodDisruptionBudget": func() any { return &policyv1.PodDisruptionBudget{} },
	"rbac.authorization.k8s.io/v1/ClusterRole":                       func() any { return &rbacv1.ClusterRole{} },
	"rbac.authorization.k8s.io/v1/ClusterRoleBinding":                func() any { return &rbacv1.ClusterRoleBinding{} },
	"admissionregistration.k8s.io/v1/MutatingWebhookConfiguration":   func() any { return &admissionregistrationv1.MutatingWebhookConfiguration{} },
	"admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration": func() any { return &admissionregistrationv1.ValidatingWebhookConfiguration{} },
	"cert-manager.io/v1/Issuer":                                      func() any { return &issuer{} },
	"cert-manager.io/v1/Certificate":                                 func() any { return &certificate{} },
}

// manifests is a render decoded: each object under "Kind/name".
type manifests struct {
	text string
	objs map[string]any
}

// decode reads every document of a render strictly (a strict YAML reader,
// then no unknown or duplicate field in its k8s.io/api type), or fails the
// test.
func decode(t *testing.T, text string) manifests {
	t.Helper()
	if err := krmtest.Strict([]byte(text)); err != nil {
		t.Fatalf("the render is not strict YAML: %v", err)
	}
	items, err := (&kio.ByteReader{Reader: strings.NewReader(text), OmitReaderAnnotations: true}).Read()
	if err != nil {
		t.Fatalf("the render is not YAML: %v", err)
	}
	m := manifests{text: text, objs: map[string]any{}}
	for _, item := range items {
		key := item.GetApiVersion() + "/" + item.GetKind()
		mk, ok := kinds[key]
		if !ok {
			t.Errorf("%s %s: not a kind the chart should write", key, item.GetName())
			continue
		}
		js, err := item.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		obj := mk()
		problems, err := sigsjson.UnmarshalStrict(js, obj, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
		if err != nil || len(problems) > 0 {
			t.Errorf("%s %s does not decode strictly: %v %v", key, item.GetName(), err, problems)
			continue
		}
		name := item.GetKind() + "/" + item.GetName()
		if _, dup := m.objs[name]; dup {
			t.Errorf("%s is rendered twice", name)
		}
		m.objs[name] = obj
	}
	return m
}

// get returns the object of that kind and name, or fails the test.
func get[T any](t *testing.T, m manifests, kind, name string) T {
	t.Helper()
	obj, ok := m.objs[kind+"/"+name].(T)
	if !ok {
		t.Fatalf("no %s/%s in the render; it has %v", kind, name, m.names())
	}
	return obj
}

func (m manifests) names() []string {
	var names []string
	for n := range m.objs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// The objects' names for the release.
const (
	fullname   = release
	configName = "zz-" + release
	tlsSecret  = release + "-tls"
	certName   = release + "-serving"
	policyMap  = release + "-policy"
	serviceDNS = fullname + "." + namespace + ".svc"
)

// TestChartRenders renders the chart with Helm 3 and Helm 4, in each TLS
// mode, and checks every object against what the README promises.
func TestChartRenders(t *testing.T) {
	for _, h := range helms {
		helm := helmTool(t, h.dir, h.version)
		for _, mode := range modes {
			t.Run(h.dir+"/"+mode, func(t *testing.T) {
				m := decode(t, render(t, helm, "tls.mode="+mode))
				want := []string{
					"ClusterRole/" + fullname, "ClusterRoleBinding/" + fullname, "ConfigMap/" + policyMap,
					"Deployment/" + fullname, "MutatingWebhookConfiguration/" + configName,
					"PodDisruptionBudget/" + fullname, "Service/" + fullname, "ServiceAccount/" + fullname,
					"ValidatingWebhookConfiguration/" + configName,
				}
				if mode == "cert-manager" {
					want = append(want, "Certificate/"+certName, "Issuer/"+fullname+"-selfsigned")
				} else {
					want = append(want, "Secret/"+tlsSecret)
				}
				sort.Strings(want)
				if got := m.names(); !reflect.DeepEqual(got, want) {
					t.Errorf("rendered objects\n%v\nwant\n%v", got, want)
				}
				checkDeployment(t, m)
				checkService(t, m)
				checkRBAC(t, m)
				checkPolicy(t, m)
				checkWebhooks(t, m, mode)
				checkTLS(t, m, mode)
				checkValidate(t, m)
			})
		}
	}
}

// TestChartSameWithHelm3AndHelm4: with the CA from cert-manager (nothing
// random in the render) both Helms write the same objects (Helm 4 orders
// and spaces the documents its own way).
func TestChartSameWithHelm3AndHelm4(t *testing.T) {
	var renders []manifests
	for _, h := range helms {
		renders = append(renders, decode(t, render(t, helmTool(t, h.dir, h.version))))
	}
	for _, name := range renders[0].names() {
		if !reflect.DeepEqual(renders[0].objs[name], renders[1].objs[name]) {
			a, _ := json.Marshal(renders[0].objs[name])
			b, _ := json.Marshal(renders[1].objs[name])
			t.Errorf("%s differs:\nhelm3 %s\nhelm4 %s", name, a, b)
		}
	}
	if a, b := renders[0].names(), renders[1].names(); !reflect.DeepEqual(a, b) {
		t.Errorf("Helm 3 renders %v, Helm 4 %v", a, b)
	}
}

func checkDeployment(t *testing.T, m manifests) {
	t.Helper()
	d := get[*appsv1.Deployment](t, m, "Deployment", fullname)
	if d.Namespace != namespace {
		t.Errorf("Deployment namespace %q, want %q", d.Namespace, namespace)
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
		t.Errorf("Deployment replicas %v, want 2", d.Spec.Replicas)
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil || !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("the Deployment's selector %v does not select its pods (%v)", d.Spec.Selector, err)
	}
	pod := d.Spec.Template.Spec
	if len(pod.Containers) != 1 || len(pod.InitContainers) != 0 {
		t.Fatalf("want one container and no init container, got %d and %d", len(pod.Containers), len(pod.InitContainers))
	}
	c := pod.Containers[0]
	if c.Image != "ghcr.io/sidecar-lifecycle/sidecar-lifecycle@sha256:7bd209b6b81150f3f008f00f4e795836907f2d5a66b20990658840d169e8d4db" {
		t.Errorf("image %q", c.Image)
	}
	if len(c.Command) != 0 || len(c.Args) == 0 || c.Args[0] != "webhook" {
		t.Errorf("the container must run the image's entrypoint with the webhook verb: command %q args %q", c.Command, c.Args)
	}

	// The restricted Pod Security profile.
	psc, sc := pod.SecurityContext, c.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		t.Error("pod: runAsNonRoot is not true")
	}
	if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Error("pod: seccompProfile is not RuntimeDefault")
	}
	if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Error("container: allowPrivilegeEscalation is not false")
	}
	if sc == nil || sc.Capabilities == nil || !reflect.DeepEqual(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0 {
		t.Error("container: capabilities do not drop ALL and add none")
	}
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Error("container: readOnlyRootFilesystem is not true")
	}
	if sc != nil && sc.Privileged != nil && *sc.Privileged {
		t.Error("container: privileged")
	}
	if pod.HostNetwork || pod.HostPID || pod.HostIPC {
		t.Error("pod: host namespaces")
	}
	for _, v := range pod.Volumes {
		if v.ConfigMap == nil && v.Secret == nil && v.EmptyDir == nil && v.Projected == nil {
			t.Errorf("volume %s: a type the restricted profile does not allow", v.Name)
		}
	}

	// Probes on the TLS port.
	port := map[string]int32{}
	for _, p := range c.Ports {
		port[p.Name] = p.ContainerPort
	}
	if port["https"] != 8443 || port["metrics"] != 9090 {
		t.Errorf("container ports %v, want https 8443 and metrics 9090", c.Ports)
	}
	for name, probe := range map[string]*corev1.Probe{"/readyz": c.ReadinessProbe, "/healthz": c.LivenessProbe} {
		if probe == nil || probe.HTTPGet == nil {
			t.Errorf("no httpGet probe on %s", name)
			continue
		}
		if g := probe.HTTPGet; g.Path != name || g.Scheme != corev1.URISchemeHTTPS || g.Port.String() != "https" {
			t.Errorf("probe %s: %s %s %s, want HTTPS on port https", name, g.Scheme, g.Path, g.Port.String())
		}
	}

	// Its own graceful shutdown: not ready for 5 s, then the reviews in
	// flight, each at most timeoutSeconds, and the 10 s margin.
	if g := pod.TerminationGracePeriodSeconds; g == nil || *g < 5+5+10 {
		t.Errorf("terminationGracePeriodSeconds %v, want at least 20", g)
	}

	// The flags name the mounted files.
	mounts := map[string]corev1.Volume{}
	for _, vm := range c.VolumeMounts {
		if vm.SubPath != "" {
			t.Errorf("mount %s uses subPath: the kubelet would not update the file, and the webhook would not reload it", vm.Name)
		}
		for _, v := range pod.Volumes {
			if v.Name == vm.Name {
				mounts[vm.MountPath] = v
			}
		}
	}
	files := map[string]func(corev1.Volume) bool{
		"--config":    func(v corev1.Volume) bool { return v.ConfigMap != nil && v.ConfigMap.Name == policyMap },
		"--cert-file": func(v corev1.Volume) bool { return v.Secret != nil && v.Secret.SecretName == tlsSecret },
		"--key-file":  func(v corev1.Volume) bool { return v.Secret != nil && v.Secret.SecretName == tlsSecret },
	}
	for flag, ok := range files {
		path := flagValue(c.Args, flag)
		v, mounted := mounts[filepath.Dir(path)]
		if path == "" || !mounted || !ok(v) {
			t.Errorf("%s=%q is not a file of the right volume (mounts %v)", flag, path, c.VolumeMounts)
		}
	}
	if got := flagValue(c.Args, "--listen"); got != ":8443" {
		t.Errorf("--listen=%q, want :8443 (the https port)", got)
	}
	if got := flagValue(c.Args, "--metrics-listen"); got != ":9090" {
		t.Errorf("--metrics-listen=%q, want :9090 (the metrics port)", got)
	}
	if got := flagValue(c.Args, "--validation-actions"); got != "Warn" {
		t.Errorf("--validation-actions=%q, want Warn", got)
	}

	// The PodDisruptionBudget keeps one of the two.
	pdb := get[*policyv1.PodDisruptionBudget](t, m, "PodDisruptionBudget", fullname)
	if pdb.Spec.MaxUnavailable == nil || pdb.Spec.MaxUnavailable.IntValue() != 1 || pdb.Spec.MinAvailable != nil {
		t.Errorf("PodDisruptionBudget: maxUnavailable %v minAvailable %v, want maxUnavailable 1", pdb.Spec.MaxUnavailable, pdb.Spec.MinAvailable)
	}
	psel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil || !psel.Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("the PodDisruptionBudget does not select the webhook's pods (%v)", err)
	}
}

// flagValue returns the value of --flag=value in args.
func flagValue(args []string, flag string) string {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v
		}
	}
	return ""
}

func checkService(t *testing.T, m manifests) {
	t.Helper()
	s := get[*corev1.Service](t, m, "Service", fullname)
	d := get[*appsv1.Deployment](t, m, "Deployment", fullname)
	if !labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)) || len(s.Spec.Selector) == 0 {
		t.Errorf("the Service's selector %v does not select the webhook's pods", s.Spec.Selector)
	}
	ports := map[string]corev1.ServicePort{}
	for _, p := range s.Spec.Ports {
		ports[p.Name] = p
	}
	if p := ports["https"]; p.Port != 443 || p.TargetPort.String() != "https" {
		t.Errorf("Service port https: %d → %s, want 443 → https (8443)", p.Port, p.TargetPort.String())
	}
	if p := ports["metrics"]; p.Port != 9090 || p.TargetPort.String() != "metrics" {
		t.Errorf("Service port metrics: %d → %s, want 9090 → metrics", p.Port, p.TargetPort.String())
	}
}

func checkRBAC(t *testing.T, m manifests) {
	t.Helper()
	sa := get[*corev1.ServiceAccount](t, m, "ServiceAccount", fullname)
	d := get[*appsv1.Deployment](t, m, "Deployment", fullname)
	if d.Spec.Template.Spec.ServiceAccountName != sa.Name || sa.Namespace != namespace {
		t.Errorf("the pods run as %q, the ServiceAccount is %s/%s", d.Spec.Template.Spec.ServiceAccountName, sa.Namespace, sa.Name)
	}
	role := get[*rbacv1.ClusterRole](t, m, "ClusterRole", fullname)
	want := []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"get", "list", "watch"}}}
	if !reflect.DeepEqual(role.Rules, want) || role.AggregationRule != nil {
		t.Errorf("ClusterRole rules %+v, want get, list and watch on namespaces only", role.Rules)
	}
	b := get[*rbacv1.ClusterRoleBinding](t, m, "ClusterRoleBinding", fullname)
	wantSubjects := []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa.Name, Namespace: namespace}}
	if b.RoleRef != (rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role.Name}) || !reflect.DeepEqual(b.Subjects, wantSubjects) {
		t.Errorf("ClusterRoleBinding %+v %+v does not bind the ClusterRole to the ServiceAccount", b.RoleRef, b.Subjects)
	}
}

// checkPolicy: the ConfigMap holds the default policy, an empty
// SidecarLifecycle.
func checkPolicy(t *testing.T, m manifests) {
	t.Helper()
	cm := get[*corev1.ConfigMap](t, m, "ConfigMap", policyMap)
	if len(cm.Data) != 1 {
		t.Errorf("the policy ConfigMap has keys %v, want policy.yaml only", cm.Data)
	}
	node, err := yaml.Parse(cm.Data["policy.yaml"])
	if err != nil {
		t.Fatalf("policy.yaml: %v", err)
	}
	if node.GetApiVersion() != "fn.sidecar-lifecycle.dev/v1alpha1" || node.GetKind() != "SidecarLifecycle" {
		t.Errorf("policy.yaml is %s %s, want a SidecarLifecycle", node.GetApiVersion(), node.GetKind())
	}
	if spec, _ := node.Pipe(yaml.Lookup("spec")); spec == nil || len(spec.Content()) != 0 {
		t.Errorf("policy.yaml's spec is not empty:\n%s", cm.Data["policy.yaml"])
	}
}

// checkWebhooks checks both configurations: what they call, on what,
// how they fail, the namespaces and pods they leave out.
func checkWebhooks(t *testing.T, m manifests, mode string) {
	t.Helper()
	mw := get[*admissionregistrationv1.MutatingWebhookConfiguration](t, m, "MutatingWebhookConfiguration", configName)
	vw := get[*admissionregistrationv1.ValidatingWebhookConfiguration](t, m, "ValidatingWebhookConfiguration", configName)
	if len(mw.Webhooks) != 1 || len(vw.Webhooks) != 1 {
		t.Fatalf("want one webhook in each configuration, got %d and %d", len(mw.Webhooks), len(vw.Webhooks))
	}
	mh, vh := mw.Webhooks[0], vw.Webhooks[0]
	if mh.Name != "mutate.sidecar-lifecycle.dev" || vh.Name != "validate.sidecar-lifecycle.dev" {
		t.Errorf("webhook names %q and %q", mh.Name, vh.Name)
	}
	if mh.ReinvocationPolicy == nil || *mh.ReinvocationPolicy != admissionregistrationv1.IfNeededReinvocationPolicy {
		t.Errorf("mutating webhook: reinvocationPolicy %v, want IfNeeded", mh.ReinvocationPolicy)
	}
	type common struct {
		kind          string
		path          string
		cc            admissionregistrationv1.WebhookClientConfig
		rules         []admissionregistrationv1.RuleWithOperations
		versions      []string
		sideEffects   *admissionregistrationv1.SideEffectClass
		failure       *admissionregistrationv1.FailurePolicyType
		timeout       *int32
		nsSel, objSel *metav1.LabelSelector
		conditions    []admissionregistrationv1.MatchCondition
		annotations   map[string]string
	}
	for _, w := range []common{
		{"mutating", "/mutate", mh.ClientConfig, mh.Rules, mh.AdmissionReviewVersions, mh.SideEffects, mh.FailurePolicy, mh.TimeoutSeconds, mh.NamespaceSelector, mh.ObjectSelector, mh.MatchConditions, mw.Annotations},
		{"validating", "/validate", vh.ClientConfig, vh.Rules, vh.AdmissionReviewVersions, vh.SideEffects, vh.FailurePolicy, vh.TimeoutSeconds, vh.NamespaceSelector, vh.ObjectSelector, vh.MatchConditions, vw.Annotations},
	} {
		s := w.cc.Service
		if s == nil || s.Name != fullname || s.Namespace != namespace || s.Path == nil || *s.Path != w.path || s.Port == nil || *s.Port != 443 || w.cc.URL != nil {
			t.Errorf("%s: clientConfig %+v, want Service %s/%s port 443 path %s", w.kind, w.cc, namespace, fullname, w.path)
		}
		scope := admissionregistrationv1.NamespacedScope
		wantRules := []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}, Scope: &scope},
		}}
		if !reflect.DeepEqual(w.rules, wantRules) {
			t.Errorf("%s: rules %+v, want pods CREATE only", w.kind, w.rules)
		}
		if !reflect.DeepEqual(w.versions, []string{"v1"}) {
			t.Errorf("%s: admissionReviewVersions %v, want [v1]", w.kind, w.versions)
		}
		if w.sideEffects == nil || *w.sideEffects != admissionregistrationv1.SideEffectClassNone {
			t.Errorf("%s: sideEffects %v, want None", w.kind, w.sideEffects)
		}
		if w.failure == nil || *w.failure != admissionregistrationv1.Ignore {
			t.Errorf("%s: failurePolicy %v, want Ignore", w.kind, w.failure)
		}
		if w.timeout == nil || *w.timeout != 5 {
			t.Errorf("%s: timeoutSeconds %v, want 5", w.kind, w.timeout)
		}
		checkNamespaceSelector(t, w.kind, w.nsSel)
		if w.objSel == nil || len(w.objSel.MatchLabels)+len(w.objSel.MatchExpressions) != 0 {
			t.Errorf("%s: objectSelector %v, want every pod", w.kind, w.objSel)
		}
		if !reflect.DeepEqual(w.conditions, chartConditions) {
			t.Errorf("%s: matchConditions\n%+v\nwant\n%+v", w.kind, w.conditions, chartConditions)
		}
		inject, has := w.annotations["cert-manager.io/inject-ca-from"]
		switch mode {
		case "cert-manager":
			if inject != namespace+"/"+certName {
				t.Errorf("%s: cert-manager.io/inject-ca-from %q, want %s/%s", w.kind, inject, namespace, certName)
			}
			if len(w.cc.CABundle) != 0 {
				t.Errorf("%s: a caBundle beside cert-manager's injection", w.kind)
			}
		case "self-signed":
			if has {
				t.Errorf("%s: cert-manager.io/inject-ca-from in self-signed mode", w.kind)
			}
		}
	}
}

// checkNamespaceSelector evaluates the selector on Namespaces' labels as
// the API server does.
func checkNamespaceSelector(t *testing.T, kind string, ls *metav1.LabelSelector) {
	t.Helper()
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		t.Errorf("%s: namespaceSelector: %v", kind, err)
		return
	}
	name := "kubernetes.io/metadata.name"
	for _, c := range []struct {
		labels map[string]string
		want   bool
	}{
		{map[string]string{name: "shop"}, true},
		{map[string]string{name: "shop", "sidecar-lifecycle.dev/webhook": "enabled"}, true},
		{map[string]string{name: "shop", "istio-injection": "enabled"}, true},
		{map[string]string{name: "kube-system"}, false},
		{map[string]string{name: namespace}, false},
		{map[string]string{name: "shop", "sidecar-lifecycle.dev/webhook": "disabled"}, false},
	} {
		if got := sel.Matches(labels.Set(c.labels)); got != c.want {
			t.Errorf("%s: namespaceSelector %q selects Namespace %v: %v, want %v", kind, sel, c.labels, got, c.want)
		}
	}
}

// chartConditions are the chart's own matchConditions. The CEL library
// is not a dependency of this module, so the expressions are held to
// their text here; e2e applies the chart to the real API server, which
// compiles them.
var chartConditions = []admissionregistrationv1.MatchCondition{
	{Name: "more-than-one-container", Expression: "size(object.spec.containers) + (has(object.spec.initContainers) ? size(object.spec.initContainers) : 0) > 1"},
	{Name: "not-a-mirror-pod", Expression: "!has(object.metadata.annotations) || !('kubernetes.io/config.mirror' in object.metadata.annotations)"},
	{Name: "not-skipped", Expression: "!has(object.metadata.annotations) || !('sidecar-lifecycle.dev/skip' in object.metadata.annotations) || object.metadata.annotations['sidecar-lifecycle.dev/skip'] != 'true'"},
}

// TestMatchConditions: the chart's conditions read only the admitted
// object (a CREATE has no oldObject), are balanced, and the extra ones
// from values come after them in both configurations.
func TestMatchConditions(t *testing.T) {
	for _, c := range chartConditions {
		e := c.Expression
		if strings.Contains(e, "oldObject") || strings.Contains(e, "request.") || !strings.Contains(e, "object.") {
			t.Errorf("%s: %q must read object only", c.Name, e)
		}
		if strings.Count(e, "(") != strings.Count(e, ")") || strings.Count(e, "'")%2 != 0 {
			t.Errorf("%s: %q is unbalanced", c.Name, e)
		}
	}
	h := helms[1]
	extra := admissionregistrationv1.MatchCondition{Name: "team-a", Expression: "object.metadata.namespace != 'team-b'"}
	m := decode(t, render(t, helmTool(t, h.dir, h.version),
		"webhook.extraMatchConditions[0].name="+extra.Name, "webhook.extraMatchConditions[0].expression="+extra.Expression))
	want := append(slices.Clone(chartConditions), extra)
	mw := get[*admissionregistrationv1.MutatingWebhookConfiguration](t, m, "MutatingWebhookConfiguration", configName)
	vw := get[*admissionregistrationv1.ValidatingWebhookConfiguration](t, m, "ValidatingWebhookConfiguration", configName)
	if !reflect.DeepEqual(mw.Webhooks[0].MatchConditions, want) || !reflect.DeepEqual(vw.Webhooks[0].MatchConditions, want) {
		t.Errorf("matchConditions with an extra one:\n%+v\n%+v\nwant\n%+v", mw.Webhooks[0].MatchConditions, vw.Webhooks[0].MatchConditions, want)
	}
}

// TestCalledAfterTheInjectors: the API server calls mutating webhook
// configurations in the order of their names, so the chart's sorts after
// the injectors' configurations as their charts render them
// (internal/preset/testdata/webhooks) and after any name the prefix "zz-"
// does not precede.
func TestCalledAfterTheInjectors(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "internal", "preset", "testdata", "webhooks", "*.yaml"))
	if len(files) == 0 {
		t.Fatal("no rendered injector webhook configurations")
	}
	// Vault's chart names its configuration <fullname>-agent-injector-cfg
	// (hashicorp/vault-helm, templates/injector-mutating-webhook.yaml) and
	// Dapr's dapr-sidecar-injector (dapr/dapr, charts/dapr/charts/
	// dapr_sidecar_injector); "z-last" stands for any name under "zz-".
	names := []string{"vault-agent-injector-cfg", "dapr-sidecar-injector", "z-last"}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		items, err := (&kio.ByteReader{Reader: bytes.NewReader(data), OmitReaderAnnotations: true}).Read()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, item := range items {
			if item.GetKind() == "MutatingWebhookConfiguration" {
				names = append(names, item.GetName())
			}
		}
	}
	h := helms[1]
	m := decode(t, render(t, helmTool(t, h.dir, h.version)))
	var mine []string
	for _, obj := range m.objs {
		if mw, ok := obj.(*admissionregistrationv1.MutatingWebhookConfiguration); ok {
			mine = append(mine, mw.Name)
		}
	}
	if len(mine) != 1 {
		t.Fatalf("mutating webhook configurations %v, want one", mine)
	}
	for _, n := range names {
		if mine[0] <= n {
			t.Errorf("%q does not sort after %q", mine[0], n)
		}
	}
	if len(names) < 5 {
		t.Errorf("read only %v from the rendered injectors", names)
	}
}

// checkTLS: with cert-manager, the Certificate writes the Secret the pods
// mount, for the Service's names, from the chart's self-signed Issuer;
// self-signed, the Secret's certificate is valid for the Service's name
// under the CA both configurations carry.
func checkTLS(t *testing.T, m manifests, mode string) {
	t.Helper()
	if mode == "cert-manager" {
		c := get[*certificate](t, m, "Certificate", certName)
		if c.Namespace != namespace || c.Spec.SecretName != tlsSecret {
			t.Errorf("Certificate %s/%s writes %q, want %s/%s", c.Namespace, c.Name, c.Spec.SecretName, namespace, tlsSecret)
		}
		if !slices.Contains(c.Spec.DNSNames, serviceDNS) {
			t.Errorf("Certificate dnsNames %v lack %s, the name the API server calls", c.Spec.DNSNames, serviceDNS)
		}
		if !slices.Contains(c.Spec.Usages, "server auth") {
			t.Errorf("Certificate usages %v lack server auth", c.Spec.Usages)
		}
		is := get[*issuer](t, m, "Issuer", fullname+"-selfsigned")
		if c.Spec.IssuerRef.Kind != "Issuer" || c.Spec.IssuerRef.Name != is.Name || is.Spec.SelfSigned == nil || is.Namespace != namespace {
			t.Errorf("Certificate issuerRef %+v, want the chart's self-signed Issuer", c.Spec.IssuerRef)
		}
		return
	}
	ca, crt, key := selfSignedFiles(t, m)
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		t.Fatal("ca.crt holds no certificate")
	}
	if _, err := tls.X509KeyPair(crt, key); err != nil {
		t.Errorf("tls.crt and tls.key are not a pair: %v", err)
	}
	block, _ := pem.Decode(crt)
	if block == nil {
		t.Fatal("tls.crt is not PEM")
	}
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: serviceDNS, Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		t.Errorf("tls.crt does not verify for %s under ca.crt: %v", serviceDNS, err)
	}
	mw := get[*admissionregistrationv1.MutatingWebhookConfiguration](t, m, "MutatingWebhookConfiguration", configName)
	vw := get[*admissionregistrationv1.ValidatingWebhookConfiguration](t, m, "ValidatingWebhookConfiguration", configName)
	if !bytes.Equal(mw.Webhooks[0].ClientConfig.CABundle, ca) || !bytes.Equal(vw.Webhooks[0].ClientConfig.CABundle, ca) {
		t.Error("the configurations' caBundle is not the Secret's ca.crt")
	}
}

// selfSignedFiles returns ca.crt, tls.crt and tls.key of the self-signed
// Secret.
func selfSignedFiles(t *testing.T, m manifests) (ca, crt, key []byte) {
	t.Helper()
	s := get[*corev1.Secret](t, m, "Secret", tlsSecret)
	if s.Type != corev1.SecretTypeTLS {
		t.Errorf("Secret type %q, want %s", s.Type, corev1.SecretTypeTLS)
	}
	return s.Data["ca.crt"], s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey]
}

// checkValidate runs the function's own validate over the render, with the
// catalog's defaults and with the chart's policy: exit 0 and no finding,
// termination budget included.
func checkValidate(t *testing.T, m manifests) {
	t.Helper()
	bin, err := testbin.Path()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "chart.yaml")
	policy := filepath.Join(dir, "policy.yaml")
	cm := get[*corev1.ConfigMap](t, m, "ConfigMap", policyMap)
	for path, text := range map[string]string{out: m.text, policy: cm.Data["policy.yaml"]} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"validate", out}, {"validate", "--config", policy, out}} {
		cmd := exec.Command(bin, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil || stderr.Len() != 0 {
			t.Errorf("sidecar-lifecycle %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
	}
	// validate holds only pods with a sidecar to the budget; explain reads
	// the webhook's own shutdown timeline.
	cmd := exec.Command(bin, "explain", "--config", policy, out)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	d := get[*appsv1.Deployment](t, m, "Deployment", fullname)
	head := fmt.Sprintf("Deployment %s/%s (terminationGracePeriodSeconds %d)", namespace, fullname, *d.Spec.Template.Spec.TerminationGracePeriodSeconds)
	if err != nil || stderr.Len() != 0 || !strings.Contains(stdout.String(), head) ||
		!strings.Contains(stdout.String(), "the termination budget holds") || strings.Contains(stdout.String(), "budget breaks") {
		t.Errorf("sidecar-lifecycle explain: %v, want %q and the budget holding:\n%s%s", err, head, stdout.String(), stderr.String())
	}
}

// TestChartLint: `helm lint --strict` passes in both TLS modes with both
// Helms.
func TestChartLint(t *testing.T) {
	for _, h := range helms {
		helm := helmTool(t, h.dir, h.version)
		for _, mode := range modes {
			out, stderr, err := runHelm(t, helm, "lint", "--strict", chartDir, "--kube-version", kubeVersion, "--set", "tls.mode="+mode)
			if err != nil || !strings.Contains(out, "0 chart(s) failed") {
				t.Errorf("%s lint --strict (tls.mode=%s): %v\n%s%s", h.dir, mode, err, out, stderr)
			}
		}
	}
}

// TestChartRefusesBadValues: values.schema.json and the chart's own checks
// refuse what would install a broken webhook, with a message naming it.
func TestChartRefusesBadValues(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--set", "tls.mode=bogus"}, "tls/mode"},
		{[]string{"--set", "webhook.failurePolicy=Sometimes"}, "failurePolicy"},
		{[]string{"--set", "webhook.timeoutSeconds=31"}, "timeoutSeconds"},
		{[]string{"--set", "validationActions=Block"}, "validationActions"},
		{[]string{"--set", "policy.kind=Deployment"}, "policy/kind"},
		{[]string{"--set", "metrics.port=8443"}, "metrics/port"},
		{[]string{"--set", "replicas=3"}, "replicas"},
		{[]string{"--set", "terminationGracePeriodSeconds=15"}, "terminationGracePeriodSeconds 15 is too short"},
		{[]string{"--set", "webhook.timeoutSeconds=20"}, "give it at least 35"},
		{[]string{"--set", "tls.certManager.issuerRef.kind=ClusterIssuer"}, "issuerRef needs a name"},
		{[]string{"--kube-version", "1.29.0"}, "kubeVersion"},
	}
	for _, h := range helms {
		helm := helmTool(t, h.dir, h.version)
		for _, c := range cases {
			args := append([]string{"template", release, chartDir, "--namespace", namespace}, c.args...)
			if !slices.Contains(c.args, "--kube-version") {
				args = append(args, "--kube-version", kubeVersion)
			}
			out, stderr, err := runHelm(t, helm, args...)
			if err == nil || !strings.Contains(stderr, c.want) {
				t.Errorf("%s %v: err %v, want a refusal naming %q\nstderr: %s\nstdout: %.200s", h.dir, c.args, err, c.want, stderr, out)
			}
		}
	}
}

// TestChartServes runs the webhook binary as the chart's container runs
// it: the chart's args, the policy from its ConfigMap and the certificate
// the chart made, at the paths the pod mounts them (moved into a
// temporary directory). The API server's name for the Service verifies
// under the configurations' caBundle, the probes and the configurations'
// paths answer, and on SIGTERM it stops being ready, then exits 0 well
// within the pod's grace period.
func TestChartServes(t *testing.T) {
	bin, err := testbin.Path()
	if err != nil {
		t.Fatal(err)
	}
	h := helms[1]
	m := decode(t, render(t, helmTool(t, h.dir, h.version), "tls.mode=self-signed"))
	d := get[*appsv1.Deployment](t, m, "Deployment", fullname)
	pod := d.Spec.Template.Spec
	c := pod.Containers[0]
	ca, crt, key := selfSignedFiles(t, m)
	cm := get[*corev1.ConfigMap](t, m, "ConfigMap", policyMap)

	// The volumes' files, under root at their mount paths.
	root := t.TempDir()
	for _, vm := range c.VolumeMounts {
		dir := filepath.Join(root, vm.MountPath)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var files map[string][]byte
		for _, v := range pod.Volumes {
			switch {
			case v.Name != vm.Name:
			case v.ConfigMap != nil:
				files = map[string][]byte{"policy.yaml": []byte(cm.Data["policy.yaml"])}
			case v.Secret != nil:
				files = map[string][]byte{"ca.crt": ca, "tls.crt": crt, "tls.key": key}
			}
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	listen, metrics := freePort(t), freePort(t)
	var args []string
	for _, a := range c.Args {
		switch {
		case strings.HasPrefix(a, "--listen="):
			a = "--listen=127.0.0.1:" + listen
		case strings.HasPrefix(a, "--metrics-listen="):
			a = "--metrics-listen=127.0.0.1:" + metrics
		case strings.HasPrefix(a, "--config="), strings.HasPrefix(a, "--cert-file="), strings.HasPrefix(a, "--key-file="):
			flag, path, _ := strings.Cut(a, "=")
			a = flag + "=" + filepath.Join(root, path)
		}
		args = append(args, a)
	}
	cmd := exec.Command(bin, args...)
	// No cluster: the Namespaces' switches are not read.
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("webhook log:\n%s", logs.String())
		}
	}()

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(get[*admissionregistrationv1.MutatingWebhookConfiguration](t, m, "MutatingWebhookConfiguration", configName).Webhooks[0].ClientConfig.CABundle)
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: serviceDNS},
	}}
	base := "https://127.0.0.1:" + listen
	probe := func(path string) int {
		resp, err := client.Get(base + path)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	deadline := time.Now().Add(30 * time.Second)
	for probe(c.ReadinessProbe.HTTPGet.Path) != http.StatusOK {
		if time.Now().After(deadline) {
			t.Fatalf("%s never answered 200 within 30 s", c.ReadinessProbe.HTTPGet.Path)
		}
		select {
		case err := <-exited:
			t.Fatalf("the webhook exited: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
	}
	if got := probe(c.LivenessProbe.HTTPGet.Path); got != http.StatusOK {
		t.Errorf("%s: %d, want 200", c.LivenessProbe.HTTPGet.Path, got)
	}
	resp, err := http.Get("http://127.0.0.1:" + metrics + "/metrics")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/metrics on the metrics port: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	// Each configuration's path answers a review of a two-container pod.
	vw := get[*admissionregistrationv1.ValidatingWebhookConfiguration](t, m, "ValidatingWebhookConfiguration", configName)
	mw := get[*admissionregistrationv1.MutatingWebhookConfiguration](t, m, "MutatingWebhookConfiguration", configName)
	for _, path := range []string{*mw.Webhooks[0].ClientConfig.Service.Path, *vw.Webhooks[0].ClientConfig.Service.Path} {
		review := admissionReview(t, fmt.Sprintf("uid-%s", strings.Trim(path, "/")))
		resp, err := client.Post(base+path, "application/json", bytes.NewReader(review))
		if err != nil {
			t.Errorf("POST %s: %v", path, err)
			continue
		}
		var got admissionv1.AdmissionReview
		err = json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || got.Response == nil || string(got.Response.UID) != "uid-"+strings.Trim(path, "/") || !got.Response.Allowed {
			t.Errorf("POST %s: %d %+v %v, want an allowed response with the review's uid", path, resp.StatusCode, got.Response, err)
		}
	}

	// SIGTERM: not ready at once, then a clean exit within the grace period.
	stopped := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	notReady := false
	for !notReady && time.Since(stopped) < 4*time.Second {
		notReady = probe(c.ReadinessProbe.HTTPGet.Path) != http.StatusOK
		time.Sleep(100 * time.Millisecond)
	}
	if !notReady {
		t.Error("/readyz still answers 200 4 s after SIGTERM")
	}
	grace := time.Duration(*pod.TerminationGracePeriodSeconds) * time.Second
	select {
	case err := <-exited:
		took := time.Since(stopped)
		if err != nil {
			t.Errorf("the webhook exited with %v after SIGTERM", err)
		}
		// The grace period less the margin the chart asks for.
		if took > grace-10*time.Second {
			t.Errorf("the webhook took %s to stop, more than the grace period %s less its 10 s margin", took, grace)
		}
	case <-time.After(grace):
		t.Errorf("the webhook did not stop within the grace period %s", grace)
	}
}

// freePort returns a TCP port on 127.0.0.1 free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// admissionReview is a review of a pod with an application and a sidecar
// on CREATE.
func admissionReview(t *testing.T, uid string) []byte {
	t.Helper()
	pod := corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "web", Image: "ghcr.io/example/web:1.0"},
			{Name: "linkerd-proxy", Image: "cr.l5d.io/linkerd/proxy:edge-25.4.1"},
		}},
	}
	raw, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	review := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:       types.UID(uid),
			Kind:      metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
			Resource:  metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
			Namespace: "shop", Name: "web",
			Operation: admissionv1.Create,
		},
	}
	review.Request.Object.Raw = raw
	data, err := json.Marshal(review)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestChartReadme: the README's table of values names every value of
// values.yaml (a row may name a whole map, as `resources`) and nothing
// else, and its values file renders and carries a policy the function
// loads.
func TestChartReadme(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(chartDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "\n## Values\n")
	if !ok {
		t.Fatal("README.md has no Values section")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	var named []string
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		for _, name := range strings.Split(cells[1], ",") {
			named = append(named, strings.Trim(strings.TrimSpace(name), "`"))
		}
	}
	values, err := yaml.ReadFile(filepath.Join(chartDir, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range named {
		if n, err := values.Pipe(yaml.Lookup(strings.Split(name, ".")...)); err != nil || n == nil {
			t.Errorf("README.md names %q, which values.yaml does not have", name)
		}
	}
	var leaves []string
	var walk func(prefix string, n *yaml.RNode)
	walk = func(prefix string, n *yaml.RNode) {
		fields, err := n.Fields()
		if n.YNode().Kind != yaml.MappingNode || err != nil || len(fields) == 0 {
			leaves = append(leaves, prefix)
			return
		}
		for _, f := range fields {
			walk(strings.TrimPrefix(prefix+"."+f, "."), n.Field(f).Value)
		}
	}
	walk("", values)
	for _, leaf := range leaves {
		covered := slices.ContainsFunc(named, func(name string) bool {
			return leaf == name || strings.HasPrefix(leaf, name+".")
		})
		if !covered {
			t.Errorf("README.md's Values table does not name %s", leaf)
		}
	}
	if len(named) < 30 {
		t.Errorf("read only %d names from the Values table: %v", len(named), named)
	}

	// The values file of the README.
	_, block, _ := strings.Cut(string(readme), "```yaml\n# values-shop.yaml\n")
	block, _, ok = strings.Cut(block, "```")
	if !ok {
		t.Fatal("README.md has no values-shop.yaml block")
	}
	file := filepath.Join(t.TempDir(), "values-shop.yaml")
	if err := os.WriteFile(file, []byte(block), 0o644); err != nil {
		t.Fatal(err)
	}
	h := helms[1]
	m := decode(t, render(t, helmTool(t, h.dir, h.version), "tls.mode=self-signed")) // the defaults' render
	shop, stderr, err := runHelm(t, helmTool(t, h.dir, h.version), append(templateArgs(), "-f", file)...)
	if err != nil {
		t.Fatalf("helm template -f values-shop.yaml: %v\n%s", err, stderr)
	}
	ms := decode(t, shop)
	policy := get[*corev1.ConfigMap](t, ms, "ConfigMap", policyMap).Data["policy.yaml"]
	if policy == get[*corev1.ConfigMap](t, m, "ConfigMap", policyMap).Data["policy.yaml"] || !strings.Contains(policy, "mode: auto") {
		t.Errorf("the README's policy is not in the ConfigMap:\n%s", policy)
	}
	checkValidate(t, ms)
}
