package endpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// Sidecar is one sidecar of a workload and what the config gives for it.
type Sidecar struct {
	// Name is the container name.
	Name string
	// Preset is the sidecar's catalog entry.
	Preset preset.Preset
	// Native is native mode: kubelet waits on the startupProbe, which it
	// sends to the pod IP.
	Native bool
	// Require makes an endpoint that is off or out of kubelet's reach an
	// error instead of switching it on (the config's healthCheck: require).
	Require bool
	// WaitForReady is the config's wait command; nil lets the function derive it.
	WaitForReady []string
	// StartupProbe is the config's probe; nil means the container's own or a derived one.
	StartupProbe *corev1.Probe
	// Log receives the warnings and errors.
	Log *report.Log
}

// Plan is what the function writes for one sidecar's readiness.
type Plan struct {
	// Decided says the plan replaces the wait command and the probe the
	// preset gives; otherwise they are left as they are. A decided plan
	// without a wait command has said why on the Log.
	Decided bool
	// WaitCommand is the ordered-mode wait; nil when none can be written.
	WaitCommand []string
	// StartupProbe is the native-mode probe when the config and the
	// container give none; nil when none can be written.
	StartupProbe *corev1.Probe
	// Filters switch the endpoint on; empty when it is on.
	Filters []kio.Filter
}

// need is what of a sidecar needs its readiness endpoint.
type need struct {
	// what is "wait command" or "startupProbe"; empty when nothing does.
	what string
	// configured says the config or the container gave it, not the catalog.
	configured bool
	// kubelet says kubelet sends it to the pod IP (an HTTP probe): the
	// endpoint must listen where that reaches it.
	kubelet bool
}

// Resolve reads the sidecar's container in the pod spec (specPath is the
// pod spec's field path, for messages) and returns what to write for it:
// a wait command and a probe on the port its endpoint is served on, and
// the switch of the endpoint when it is off or out of kubelet's reach.
// What cannot pass is not written: the catalog's own wait or probe is
// left out with a warning, the config's is an error on the Log.
func (s Sidecar) Resolve(spec *yaml.RNode, specPath string) Plan {
	c, at := locate(spec, specPath, s.Name)
	if c == nil {
		return Plan{}
	}
	ct := Read(c, at, s.Preset)
	ep := ct.Ready.Endpoint
	switch {
	case ep == nil:
		return Plan{}
	case ep.Switch == nil:
		return s.fixed(c, at, ct)
	}
	for _, b := range ct.Broken {
		s.Log.Fail(b.Kind, b.Field, "%s", b.Detail)
	}
	plan := Plan{Decided: true}
	var n need
	if s.Native {
		n = s.nativeNeeds(c, at, ct, &plan)
	} else {
		var decided bool
		n, decided = s.orderedNeeds(at, ct, &plan)
		plan.Decided = decided
	}
	if n.what == "" {
		return plan
	}
	reach := n.kubelet
	if port, err := strconv.Atoi(ct.Port()); err != nil || port < 1 || port > 65535 {
		what := "is not a port number"
		if err == nil || errors.Is(err, strconv.ErrRange) {
			what = "is out of range"
		}
		s.Log.Fail(report.KindReadiness, report.At(at), "%s: the sidecar's health port %q, which its %s needs, %s: give it one from 1 to 65535", at, ct.Port(), n.what, what)
		return Plan{Decided: true}
	}
	if len(ct.Unread) > 0 {
		s.Log.Warn(report.KindReadiness, report.At(at), "%s: the function cannot read %s, which may set the sidecar's health check, address or port; it assumes port %s",
			at, strings.Join(ct.Unread, ", "), ct.Port())
	}
	if ct.On() && (!reach || ct.Reachable()) {
		return plan
	}
	if why := ct.cannot(reach); why != "" {
		return s.cannotPass(at, ct, n, why, plan)
	}
	if s.Require {
		s.Log.Fail(report.KindReadiness, report.At(at), "%s: the sidecar's health endpoints are %s, so its %s cannot pass: add %s (or set healthCheck: enable to let the function do it)",
			at, ct.offWhy(reach), n.what, ct.toAdd(reach))
		return plan // not written: the error leaves the workload as it was
	}
	plan.Filters = []kio.Filter{Enable{Container: s.Name, Preset: s.Preset, Reachable: reach, Log: s.Log}}
	return plan
}

// cannotPass reports a wait or probe that cannot pass because the
// function cannot switch the endpoint on or into kubelet's reach, for the
// reason why: the config's is an error, the catalog's is left out with a
// warning, the container's own is warned about.
func (s Sidecar) cannotPass(at string, ct Container, n need, why string, plan Plan) Plan {
	state := ct.offWhy(n.kubelet)
	switch {
	case n.configured && s.Native && s.StartupProbe == nil:
		s.Log.Warn(report.KindReadiness, report.At(at+".startupProbe"), "%s: the sidecar's health endpoints are %s, and %s: its startupProbe cannot pass", at, state, why)
		return plan
	case n.configured:
		field := "waitForReady"
		if s.Native {
			field = "startupProbe"
		}
		s.Log.Fail(report.KindReadiness, report.At(at), "%s: the sidecar's health endpoints are %s, and %s: the config's %s cannot pass; switch them on in the container, or remove it",
			at, state, why, field)
		return plan
	case s.Native:
		s.Log.Warn(report.KindReadiness, report.At(at), "%s: the sidecar's health endpoints are %s, and %s: a startupProbe cannot pass, so the function writes none, and kubelet starts the next container as soon as the sidecar runs; switch them on and set startupProbe",
			at, state, why)
		plan.StartupProbe = nil
	default:
		s.Log.Warn(report.KindReadiness, report.At(at), "%s: the sidecar's health endpoints are %s, and %s: a wait command cannot pass, so the function writes none, and order alone does not wait for the sidecar's readiness; switch them on and set waitForReady",
			at, state, why)
		plan.WaitCommand = nil
	}
	return plan
}

// fixed decides for a sidecar whose endpoint the catalog does not say
// how to switch: the catalog's wait on an endpoint that is off, or its
// probe on an endpoint kubelet cannot reach, is left out with a warning.
// Whatever the config or the container gives is left alone.
func (s Sidecar) fixed(c *yaml.RNode, at string, ct Container) Plan {
	ep := ct.Ready.Endpoint
	plan := Plan{Decided: ct.Ready.Variant != "", StartupProbe: ct.Ready.StartupProbe}
	if ct.Ready.Wait != nil {
		plan.WaitCommand = slices.Clone(ct.Ready.Wait.Command)
	}
	entry := fmt.Sprintf("the catalog entry %s does not say how to switch them on", s.Preset.Name)
	switch {
	case s.Native && (s.StartupProbe != nil || c.Field("startupProbe") != nil || plan.StartupProbe == nil):
	case s.Native && !ep.On:
		s.Log.Warn(report.KindReadiness, report.At(at), "%s: the sidecar's health endpoints are off by default, and %s: a startupProbe cannot pass, so the function writes none; switch them on and set startupProbe", at, entry)
		return Plan{Decided: true}
	case s.Native && bySender(plan.StartupProbe) && preset.Loopback(ep.Address):
		s.Log.Warn(report.KindReadiness, report.At(at), "%s: the sidecar's health endpoints are on %s only, which kubelet cannot reach, and the catalog entry %s does not say how to bind them elsewhere: a startupProbe cannot pass, so the function writes none; set startupProbe", at, ep.Address, s.Preset.Name)
		return Plan{Decided: true}
	case s.Native:
	case s.WaitForReady == nil && plan.WaitCommand != nil && !ep.On:
		s.Log.Warn(report.KindReadiness, report.At(at), "%s: the sidecar's health endpoints are off by default, and %s: a wait command cannot pass, so the function writes none, and order alone does not wait for the sidecar's readiness; switch them on and set waitForReady", at, entry)
		return Plan{Decided: true}
	}
	return plan
}

// bySender reports whether kubelet sends the probe to the pod IP (an exec
// probe runs in the container).
func bySender(p *corev1.Probe) bool {
	return p.HTTPGet != nil || p.TCPSocket != nil || p.GRPC != nil
}

// nativeNeeds sets the derived probe when the config and the container
// give none, and says what needs the endpoint. A probe on the endpoint on
// another port is warned about.
func (s Sidecar) nativeNeeds(c *yaml.RNode, at string, ct Container, plan *Plan) need {
	probe, from := s.StartupProbe, "the config's startupProbe"
	if probe == nil {
		probe, from = ownProbe(c), at+".startupProbe"
	}
	switch {
	case probe == nil && ct.Ready.StartupProbe == nil:
		return need{}
	case probe == nil:
		plan.StartupProbe = ct.probe()
		return need{what: "startupProbe", kubelet: bySender(plan.StartupProbe)}
	case probe.HTTPGet != nil && ct.onEndpoint(probe.HTTPGet.Path):
		if port := probe.HTTPGet.Port; port.Type == intstr.Int && strconv.Itoa(port.IntValue()) != ct.Port() {
			s.Log.Warn(report.KindReadiness, report.At(at+".startupProbe.httpGet.port").Values(port.IntValue(), ct.Port()), "%s: port %d is not the port the sidecar's health endpoints listen on (%s): kubelet never sees the sidecar start; set it to %s",
				from, port.IntValue(), ct.Port(), ct.Port())
		}
		return need{what: "startupProbe", configured: true, kubelet: true}
	}
	return need{}
}

// orderedNeeds sets the wait command, the config's or one on the
// endpoint's port, and says what needs the endpoint. A form of the
// sidecar without the wait command is an error; decided is false when no
// form of it has one, which leaves the preset's lack of one to the caller.
func (s Sidecar) orderedNeeds(at string, ct Container, plan *Plan) (n need, decided bool) {
	w := ct.Ready.Wait
	switch {
	case s.WaitForReady != nil:
		plan.WaitCommand = s.WaitForReady
		if !ct.isWait(s.WaitForReady) {
			return need{}, true
		}
		if port := ct.waitPort(s.WaitForReady); port != ct.Port() {
			fix := ""
			if w.PortFlag != "" {
				fix = fmt.Sprintf("; pass --%s %s", w.PortFlag, ct.Port())
			}
			s.Log.Warn(report.KindReadiness, report.At(at+".lifecycle.postStart"), "%s: the config's waitForReady polls port %s, but the sidecar's health endpoints listen on %s: the postStart never returns in time%s",
				at, port, ct.Port(), fix)
		}
		return need{what: "wait command", configured: true}, true
	case w == nil && s.Preset.WaitCommand == nil:
		return need{}, false
	case w == nil:
		s.noWait(at, ct, ct.Ready.Variant+" has no wait command")
		return need{}, true
	case preset.ImageOlder(ct.Image, w.Since):
		s.noWait(at, ct, fmt.Sprintf("image %q is older than %s, the first with the wait command", ct.Image, w.Since))
		return need{}, true
	}
	plan.WaitCommand = ct.waitCommand()
	return need{what: "wait command"}, true
}

// noWait reports a sidecar whose image has no wait command, with what works instead.
func (s Sidecar) noWait(at string, ct Container, why string) {
	var instead []string
	if ct.Ready.StartupProbe != nil {
		instead = append(instead, "use mode native (kubernetesVersion 1.29 or newer), where kubelet waits on its health check")
	}
	if w := s.Preset.Ready; w != nil && w.Wait != nil && w.Wait.Since != "" && len(s.Preset.Images) > 0 {
		instead = append(instead, fmt.Sprintf("move to %s %s or newer", strings.TrimPrefix(s.Preset.Images[0], "**/"), w.Wait.Since))
	}
	instead = append(instead, "or give waitForReady")
	s.Log.Fail(report.KindReadiness, report.At(at), "%s: %s: ordered mode cannot hold the application until the sidecar is ready; %s", at, why, strings.Join(instead, ", "))
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

// onEndpoint reports whether an HTTP path is one the endpoint's server answers.
func (ct Container) onEndpoint(path string) bool {
	ep := ct.Ready.Endpoint
	return path == ep.Path || slices.Contains(ep.Paths, path)
}

// probe is the form's startup probe, on the port the endpoint is served on.
func (ct Container) probe() *corev1.Probe {
	probe := ct.Ready.StartupProbe.DeepCopy()
	if h := probe.HTTPGet; h != nil && ct.onEndpoint(h.Path) {
		if port, err := strconv.Atoi(ct.Port()); err == nil {
			h.Port = intstr.FromInt32(int32(port))
		}
	}
	return probe
}

// waitCommand is the form's wait command on the endpoint's port, and on
// its address when localhost does not reach it. The command reads only its
// flags, so the port is always passed.
func (ct Container) waitCommand() []string {
	w := ct.Ready.Wait
	cmd := slices.Clone(w.Command)
	if w.PortFlag != "" {
		cmd = setFlag(cmd, w.PortFlag, ct.Port())
	}
	if a := ct.Address(); w.AddressFlag != "" && !preset.Loopback(a) && !anyAddress(a) {
		cmd = setFlag(cmd, w.AddressFlag, a)
	}
	return cmd
}

// setFlag sets a flag's value in a command, --name value or --name=value
// where it is, or added as --name value.
func setFlag(cmd []string, name, value string) []string {
	for i, a := range cmd {
		switch {
		case a == "--"+name && i+1 < len(cmd):
			cmd[i+1] = value
			return cmd
		case strings.HasPrefix(a, "--"+name+"="):
			cmd[i] = "--" + name + "=" + value
			return cmd
		}
	}
	return append(cmd, "--"+name, value)
}

// anyAddress reports whether an address is every interface, which
// localhost reaches.
func anyAddress(a string) bool {
	switch strings.Trim(a, "[]") {
	case "", "0.0.0.0", "::":
		return true
	}
	return false
}

// cannot says why the function cannot switch the endpoint on, or (reach)
// make kubelet reach it; empty when it can.
func (ct Container) cannot(reach bool) string {
	sw := ct.swtch()
	older := func(s preset.Setting) string {
		if preset.ImageOlder(ct.Image, s.Since) {
			return fmt.Sprintf("image %q is older than %s, the first with %s%s", ct.Image, s.Since, sw.Dashes(), s.Flag)
		}
		return ""
	}
	if !ct.On() {
		if why := older(sw.On); why != "" {
			return why
		}
	}
	if reach && !ct.Reachable() {
		if sw.Address == nil {
			return "the catalog does not say how to bind them elsewhere"
		}
		return older(*sw.Address)
	}
	return ""
}

// offWhy says why the endpoint cannot be used.
func (ct Container) offWhy(reach bool) string {
	switch {
	case !ct.On() && reach && !ct.Reachable():
		return "off and on " + ct.Address() + " only"
	case !ct.On():
		return "off"
	}
	return "on " + ct.Address() + " only, which kubelet cannot reach"
}

// toAdd names what to add, in the container's style.
func (ct Container) toAdd(reach bool) string {
	sw := ct.swtch()
	var add []string
	if !ct.On() {
		if ct.EnvStyle && sw.On.Env != "" {
			add = append(add, sw.On.Env+"=true")
		} else {
			add = append(add, sw.Dashes()+sw.On.Flag)
		}
	}
	if reach && !ct.Reachable() {
		if ct.EnvStyle && sw.Address.Env != "" {
			add = append(add, sw.Address.Env+"="+sw.Reachable)
		} else {
			add = append(add, sw.Dashes()+sw.Address.Flag+"="+sw.Reachable)
		}
	}
	return strings.Join(add, " and ")
}
