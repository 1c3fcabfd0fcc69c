package cloudsql

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/report"
)

// WaitProgram is the v2 proxy's binary in its images (ENTRYPOINT of its Dockerfiles).
const WaitProgram = "/cloud-sql-proxy"

// WaitMax is how long the wait command waits for /startup.
const WaitMax = "--max=30s"

// healthPaths are the proxy's health endpoints, v1 and v2 alike.
var healthPaths = []string{"/startup", "/liveness", "/readiness"}

// Sidecar is one Cloud SQL Auth Proxy sidecar and what the config gives for it.
type Sidecar struct {
	// Name is the container name.
	Name string
	// Native is native mode: kubelet waits on the startupProbe, which must reach the proxy.
	Native bool
	// Require makes health endpoints that are off an error instead of switching them on.
	Require bool
	// WaitForReady is the config's wait command; nil lets the function derive it.
	WaitForReady []string
	// StartupProbe is the config's probe; nil means the container's own or a derived one.
	StartupProbe *corev1.Probe
	// Log receives the warnings and errors.
	Log *report.Log
}

// Plan is what the function writes for one proxy sidecar.
type Plan struct {
	// WaitCommand is the ordered-mode wait; nil when none can be written.
	WaitCommand []string
	// StartupProbe is the native-mode probe when the config and the container give none.
	StartupProbe *corev1.Probe
	// Filters switch the health endpoints on; empty when they are on.
	Filters []kio.Filter
}

// Resolve reads the proxy container in the pod spec (specPath is the pod
// spec's field path, for messages) and returns what to write for it: a wait
// command and a probe on the port the proxy listens on, and the switch for
// its health endpoints when they are off. What cannot pass is an error on
// the Log, never written.
func (s Sidecar) Resolve(spec *yaml.RNode, specPath string) Plan {
	c, at := locate(spec, specPath, s.Name)
	if c == nil {
		return Plan{}
	}
	p := Read(c, at)
	for _, b := range p.Broken {
		s.Log.Fail("%s", b)
	}
	var plan Plan
	var needs string // what needs the health endpoints
	if s.Native {
		needs = s.nativeNeeds(c, at, p, &plan)
	} else {
		needs = s.orderedNeeds(at, p, &plan)
	}
	reach := s.Native // kubelet probes from outside the container
	if needs == "" {
		return plan
	}
	if n, err := strconv.Atoi(p.Port()); err != nil || n < 1 || n > 65535 {
		what := "is not a port number"
		if err == nil || errors.Is(err, strconv.ErrRange) {
			what = "is out of range"
		}
		s.Log.Fail("%s: the proxy's health port %q, which its %s needs, %s: give it one from 1 to 65535", at, p.Port(), needs, what)
		return Plan{}
	}
	if len(p.Unread) > 0 {
		s.Log.Warn("%s: the function cannot read %s, which may set the proxy's health check, address or port; it assumes port %s",
			at, strings.Join(p.Unread, ", "), p.Port())
	}
	if p.HealthCheck() && (!reach || p.Reachable()) {
		return plan
	}
	if s.Require {
		s.Log.Fail("%s: the proxy's health endpoints are %s, so its %s cannot pass: add %s (or set cloudSQLProxy.healthCheck: enable to let the function do it)",
			at, p.offWhy(reach), needs, p.toAdd(reach))
		return plan // not written: the error leaves the workload as it was
	}
	plan.Filters = []kio.Filter{EnableHealthCheck{Container: s.Name, Reachable: reach, Log: s.Log}}
	return plan
}

// nativeNeeds sets the derived probe when the config and the container
// give none, and says what of the probe needs the health endpoints ("" when
// nothing does). A probe on the proxy's endpoints on another port is warned about.
func (s Sidecar) nativeNeeds(c *yaml.RNode, at string, p Proxy, plan *Plan) string {
	probe, from := s.StartupProbe, "the config's startupProbe"
	if probe == nil {
		probe, from = ownProbe(c), at+".startupProbe"
	}
	switch {
	case probe == nil:
		plan.StartupProbe = p.probe()
	case probe.HTTPGet != nil && slices.Contains(healthPaths, probe.HTTPGet.Path):
		if port := probe.HTTPGet.Port; port.Type == intstr.Int && strconv.Itoa(port.IntValue()) != p.Port() {
			s.Log.Warn("%s: port %d is not the port the proxy's health endpoints listen on (%s): kubelet never sees the proxy start; set it to %s",
				from, port.IntValue(), p.Port(), p.Port())
		}
	default:
		return ""
	}
	return "startupProbe"
}

// orderedNeeds sets the wait command, the config's or one on the proxy's
// port, and says what needs the health endpoints ("" when nothing does).
// An image without a wait command is an error.
func (s Sidecar) orderedNeeds(at string, p Proxy, plan *Plan) string {
	switch {
	case s.WaitForReady != nil:
		plan.WaitCommand = s.WaitForReady
		if len(s.WaitForReady) < 2 || path.Base(s.WaitForReady[0]) != path.Base(WaitProgram) || s.WaitForReady[1] != "wait" {
			return ""
		}
		if port := waitPort(s.WaitForReady); port != p.Port() {
			s.Log.Warn("%s: the config's waitForReady polls port %s, but the proxy's health endpoints listen on %s: the postStart never returns in time; pass --http-port %s",
				at, port, p.Port(), p.Port())
		}
	case p.NoWait != "":
		s.Log.Fail("%s: %s: ordered mode cannot hold the application until the proxy is ready; use mode native (kubernetesVersion 1.29 or newer), where kubelet waits on the proxy's health check, move to the v2 proxy 2.8.0 or newer (gcr.io/cloud-sql-connectors/cloud-sql-proxy), or give waitForReady",
			at, p.NoWait)
		return ""
	default:
		plan.WaitCommand = p.waitCommand()
	}
	return "wait command"
}

// locate finds the named container in either list and its field path.
func locate(spec *yaml.RNode, specPath, name string) (*yaml.RNode, string) {
	for _, field := range []string{podspec.Containers, podspec.InitContainers} {
		for i, n := range podspec.Names(spec, field) {
			if n == name {
				return podspec.Find(spec, field, name), fmt.Sprintf("%s.%s[%d]", specPath, field, i)
			}
		}
	}
	return nil, ""
}

// ownProbe decodes the container's own startupProbe; nil when it has none.
func ownProbe(c *yaml.RNode) *corev1.Probe {
	f := c.Field("startupProbe")
	if f == nil {
		return nil
	}
	var probe corev1.Probe
	js, err := f.Value.MarshalJSON()
	if err != nil || json.Unmarshal(js, &probe) != nil {
		return &corev1.Probe{} // unreadable: the container's own, left alone
	}
	return &probe
}

// probe is the startup probe on the proxy's /startup endpoint, with the
// timings of the operator (v2: period 1, timeout 10, 60 failures) and of
// the v1 health-check example (period 1, timeout 5, 20 failures).
func (p Proxy) probe() *corev1.Probe {
	port, _ := strconv.Atoi(p.Port())
	probe := &corev1.Probe{
		ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/startup", Port: intstr.FromInt32(int32(port))}},
		PeriodSeconds: 1, TimeoutSeconds: 10, FailureThreshold: 60,
	}
	if p.V1 {
		probe.TimeoutSeconds, probe.FailureThreshold = 5, 20
	}
	return probe
}

// waitCommand is the v2 wait command on the proxy's port. The wait command
// reads only its flags, not the CSQL_PROXY_* variables, so the port is
// always passed, and the address when localhost does not reach it.
func (p Proxy) waitCommand() []string {
	cmd := []string{WaitProgram, "wait", WaitMax, "--" + flagHTTPPort, p.Port()}
	switch a := p.Address(); a {
	case "localhost", AllInterfaces, "::", "[::]":
	default:
		if !strings.HasPrefix(a, "127.") {
			cmd = append(cmd, "--"+flagHTTPAddress, a)
		}
	}
	return cmd
}

// waitPort is the port a wait command polls: its --http-port, else 9090.
// The wait command reads only its flags, never the environment.
func waitPort(cmd []string) string {
	port := strconv.Itoa(DefaultPort)
	for i, a := range cmd {
		if v, ok := strings.CutPrefix(a, "--"+flagHTTPPort+"="); ok {
			port = v
		} else if a == "--"+flagHTTPPort && i+1 < len(cmd) {
			port = cmd[i+1]
		}
	}
	return port
}

// offWhy says why the endpoints cannot be used.
func (p Proxy) offWhy(reach bool) string {
	switch {
	case !p.HealthCheck() && reach && !p.Reachable():
		return "off and on " + p.Address() + " only"
	case !p.HealthCheck():
		return "off"
	}
	return "on " + p.Address() + " only, which kubelet cannot reach"
}

// toAdd names what to add, in the container's style.
func (p Proxy) toAdd(reach bool) string {
	var add []string
	if !p.HealthCheck() {
		switch {
		case p.V1:
			add = append(add, "-"+flagV1HealthCheck)
		case p.EnvStyle:
			add = append(add, envName(flagHealthCheck)+"=true")
		default:
			add = append(add, "--"+flagHealthCheck)
		}
	}
	if reach && !p.Reachable() {
		if p.EnvStyle {
			add = append(add, envName(flagHTTPAddress)+"="+AllInterfaces)
		} else {
			add = append(add, "--"+flagHTTPAddress+"="+AllInterfaces)
		}
	}
	return strings.Join(add, " and ")
}
