package budget_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kptdev/krm-functions-sdk/go/fn"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

func TestParseAttributes(t *testing.T) {
	tests := []struct {
		in      string
		seconds int64
		known   bool
		problem string
	}{
		{"deregistration_delay.timeout_seconds=300", 300, true, ""},
		{"stickiness.enabled=true, deregistration_delay.timeout_seconds = 30 ,slow_start.duration_seconds=0", 30, true, ""},
		{"deregistration_delay.timeout_seconds=0", 0, true, ""},
		{"stickiness.enabled=true", 0, false, ""},
		{"", 0, false, ""},
		{"deregistration_delay.timeout_seconds=5m", 0, false, `deregistration_delay.timeout_seconds="5m" is not a whole number of seconds`},
		{"deregistration_delay.timeout_seconds=-1", 0, false, `"-1" is negative`},
		{"deregistration_delay.timeout_seconds=-99999999999999999999", 0, false, "is negative"},
		{"deregistration_delay.timeout_seconds=99999999999999999999", 0, false, `"99999999999999999999" is out of range: past the int64 maximum 9223372036854775807`},
	}
	for _, tc := range tests {
		a := budget.ParseAttributes(tc.in, "deregistration_delay.timeout_seconds")
		if !a.Set || a.Known != tc.known || a.Seconds != tc.seconds || !strings.Contains(a.Problem, tc.problem) || (tc.problem == "" && a.Problem != "") {
			t.Errorf("ParseAttributes(%q) = %+v, want %ds known %v problem %q", tc.in, a, tc.seconds, tc.known, tc.problem)
		}
	}
}

func observe(t *testing.T, text string) budget.Fact {
	t.Helper()
	n := krmtest.Parse(t, text)
	return budget.Observe(n, budget.Ref{Resource: &fn.ResourceRef{Kind: n.GetKind(), Name: n.GetName(), Namespace: n.GetNamespace()}})
}

func TestObserveIngress(t *testing.T) {
	tests := []struct {
		name     string
		text     string
		alb      bool
		services []string
		delay    int64
	}{
		{"v1 with class and rules", `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: i, annotations: {alb.ingress.kubernetes.io/target-group-attributes: deregistration_delay.timeout_seconds=300}}
spec:
  ingressClassName: alb
  defaultBackend: {service: {name: b}}
  rules:
  - http: {paths: [{backend: {service: {name: a}}}, {backend: {service: {name: b}}}]}
  - host: x
`, true, []string{"b", "a"}, 300},
		{"v1beta1 with the class annotation", `apiVersion: extensions/v1beta1
kind: Ingress
metadata: {name: i, annotations: {kubernetes.io/ingress.class: alb}}
spec:
  backend: {serviceName: a, servicePort: 80}
  rules: [{http: {paths: [{backend: {serviceName: c}}]}}]
`, true, []string{"a", "c"}, 0},
		{"alb annotation alone", "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: i, annotations: {alb.ingress.kubernetes.io/scheme: internal}}\n", true, nil, 0},
		{"nginx", "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: i}\nspec: {ingressClassName: nginx, defaultBackend: {service: {name: a}}}\n", false, []string{"a"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := observe(t, tc.text).Ingress
			if in == nil {
				t.Fatal("not read as an Ingress")
			}
			if (in.Controller != nil) != tc.alb || !reflect.DeepEqual(in.Services, tc.services) || in.Attributes.Seconds != tc.delay {
				t.Errorf("read %+v, want alb %v services %q delay %d", in, tc.alb, tc.services, tc.delay)
			}
		})
	}
	if f := observe(t, "apiVersion: example.com/v1\nkind: Ingress\nmetadata: {name: i}\n"); f.Ingress != nil {
		t.Error("an Ingress of another group is read")
	}
}

func TestObserveService(t *testing.T) {
	s := observe(t, `apiVersion: v1
kind: Service
metadata:
  name: s
  annotations:
    service.beta.kubernetes.io/aws-load-balancer-type: external
    service.beta.kubernetes.io/aws-load-balancer-target-group-attributes: deregistration_delay.timeout_seconds=120
    alb.ingress.kubernetes.io/target-group-attributes: deregistration_delay.timeout_seconds=20
    cloud.google.com/backend-config: '{"default": "d", "ports": {"http": "p", "80": "d"}}'
spec: {type: LoadBalancer, selector: {app: a, tier: web}}
`).Service
	if s == nil || !s.Serves || s.Attributes.Seconds != 120 || s.Overrides["aws-load-balancer-controller"].Seconds != 20 ||
		!reflect.DeepEqual(s.Selector, map[string]string{"app": "a", "tier": "web"}) || !reflect.DeepEqual(s.Referenced, []string{"d", "p"}) || s.ReferencedBy == nil || s.ReferencedBy.Name != "ingress-gce" {
		t.Errorf("read %+v", s)
	}
	for text, nlb := range map[string]bool{
		"spec: {type: LoadBalancer, loadBalancerClass: service.k8s.aws/nlb}":                                              true,
		"spec: {type: ClusterIP}\nmetadata: {annotations: {service.beta.kubernetes.io/aws-load-balancer-type: external}}": false,
		"spec: {type: LoadBalancer}": false,
		"metadata: {annotations: {service.beta.kubernetes.io/aws-load-balancer-type: nlb-ip}}\nspec: {type: LoadBalancer}": true,
	} {
		if got := observe(t, "apiVersion: v1\nkind: Service\n"+text+"\n").Service.Serves; got != nlb {
			t.Errorf("%s: NLB %v, want %v", text, got, nlb)
		}
	}
	beta := observe(t, "apiVersion: v1\nkind: Service\nmetadata: {name: s, annotations: {beta.cloud.google.com/backend-config: '{\"default\": \"old\"}'}}\n").Service
	if !reflect.DeepEqual(beta.Referenced, []string{"old"}) {
		t.Errorf("beta annotation read as %q", beta.Referenced)
	}
	bad := observe(t, "apiVersion: v1\nkind: Service\nmetadata: {name: s, annotations: {cloud.google.com/backend-config: web}}\n").Service
	if bad.Problem == "" || !strings.Contains(bad.Problem, `"web" is not JSON`) {
		t.Errorf("bad annotation: problem %q", bad.Problem)
	}
}

func TestObserveBackendConfig(t *testing.T) {
	for _, apiVersion := range []string{"cloud.google.com/v1", "cloud.google.com/v1beta1"} {
		b := observe(t, "apiVersion: "+apiVersion+"\nkind: BackendConfig\nmetadata: {name: b}\nspec: {connectionDraining: {drainingTimeoutSec: 90}}\n").Referenced
		if b == nil || b.Seconds != 90 {
			t.Errorf("%s read as %+v", apiVersion, b)
		}
	}
	if b := observe(t, "apiVersion: cloud.google.com/v1\nkind: BackendConfig\nmetadata: {name: b}\nspec: {timeoutSec: 40}\n").Referenced; b.Seconds != 0 || b.Problem != "" {
		t.Errorf("absent draining read as %+v", b)
	}
	if b := observe(t, "apiVersion: cloud.google.com/v1\nkind: BackendConfig\nmetadata: {name: b}\nspec: {connectionDraining: {drainingTimeoutSec: 9223372036854775808}}\n").Referenced; b.Problem != `spec.connectionDraining.drainingTimeoutSec "9223372036854775808" is out of range: past the int64 maximum 9223372036854775807` {
		t.Errorf("a drainingTimeoutSec past int64: problem %q", b.Problem)
	}
	if b := observe(t, "apiVersion: cloud.google.com/v1\nkind: BackendConfig\nmetadata: {name: b}\nspec: {connectionDraining: {drainingTimeoutSec: long}}\n").Referenced; b.Problem == "" {
		t.Error("a drainingTimeoutSec that is not a number has no problem")
	}
}

// TestCollectorResults: an ALB Ingress's delay, overridden by its
// Service's, resolved to the workloads the Service selects.
func TestCollectorResults(t *testing.T) {
	var c budget.Collector
	alb := &budget.LoadBalancers().Controllers[0]
	delay := alb.Attributes.Delay.Attribute
	ns := func(kind, name string) budget.Ref {
		return budget.Ref{Resource: &fn.ResourceRef{Kind: kind, Name: name, Namespace: "shop"}}
	}
	c.Add(budget.Fact{Workload: &budget.Workload{Ref: ns("Deployment", "api"), Labels: map[string]string{"app": "api"}, Drain: budget.Drain{Seconds: 40, Container: "api"}}})
	c.Add(budget.Fact{Workload: &budget.Workload{Ref: ns("Deployment", "other"), Labels: map[string]string{"app": "other"}}})
	c.Add(budget.Fact{Ingress: &budget.Ingress{Ref: ns("Ingress", "web"), Controller: alb, Attributes: budget.ParseAttributes("deregistration_delay.timeout_seconds=100", delay), Services: []string{"api", "tuned", "missing"}}})
	c.Add(budget.Fact{Service: &budget.Service{Ref: ns("Service", "api"), Selector: map[string]string{"app": "api"}}})
	c.Add(budget.Fact{Service: &budget.Service{Ref: ns("Service", "tuned"), Selector: map[string]string{"app": "api"}, Overrides: map[string]budget.Attribute{alb.Name: budget.ParseAttributes("deregistration_delay.timeout_seconds=10", delay)}}})
	for action, severity := range map[config.Action]fn.Severity{config.ActionMutate: fn.Warning, config.ActionValidate: fn.Error} {
		res := c.Results(action)
		if len(res) != 1 {
			t.Fatalf("%s: results %v, want one", action, res)
		}
		r := res[0]
		if r.Severity != severity || r.ResourceRef.Kind != "Ingress" {
			t.Errorf("%s: %s result on %v", action, r.Severity, r.ResourceRef)
		}
		for _, want := range []string{"Ingress shop/web → Service shop/api", "Deployment shop/api", "100s", "preStop of api, 40s", "60s after"} {
			if !strings.Contains(r.Message, want) {
				t.Errorf("message %q lacks %q", r.Message, want)
			}
		}
	}
}

// TestUnknownDrainIsSaid: a workload with an ordered sidecar and an app
// preStop of unknown duration gets an info result, never a guess.
func TestUnknownDrainIsSaid(t *testing.T) {
	var c budget.Collector
	pod := budget.ReadPod(krmtest.Parse(t, "containers:\n- name: proxy\n- name: app\n  lifecycle: {preStop: {httpGet: {port: 80}}}\n"), map[string]bool{"proxy": true})
	c.Add(budget.Fact{Workload: &budget.Workload{Ref: budget.Ref{Resource: &fn.ResourceRef{Kind: "Deployment", Name: "d"}}, Drain: pod.Drain(), Sidecars: pod.OrderedSidecars()}})
	res := c.Results(config.ActionValidate)
	if len(res) != 1 || res[0].Severity != fn.Info || res[0].ResourceRef != nil ||
		res[0].Message != "Deployment d: the preStop of app has a duration the function cannot read (httpGet): whether proxy outlives it is not checked" {
		t.Errorf("results %v", res)
	}
}
