package endpoint

import (
	"fmt"
	"path"
	"strings"

	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/hook"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
)

// Check says why the wait command and the startup probe a sidecar
// container holds cannot pass, read as Resolve reads the container: a
// wait the image does not have, or one on an endpoint that is off, on
// another port or out of its reach; an HTTP probe on an endpoint that is
// off, on another port or out of kubelet's reach. It reads only a
// container whose form of the sidecar says how its endpoint is switched
// (others are left to their owners), and returns nil when nothing stops them.
func Check(c *yaml.RNode, p preset.Preset) []string {
	ct := Read(c, "", p)
	ep := ct.Ready.Endpoint
	if ep == nil || ep.Switch == nil {
		return nil
	}
	var out []string
	if cmd, ok := hook.Exec(c, hook.PostStart); ok && len(cmd) > 0 {
		if why := ct.waitCannot(cmd, p); why != "" {
			out = append(out, fmt.Sprintf("its postStart %q cannot pass: %s", strings.Join(cmd, " "), why))
		}
	}
	if probe := ownProbe(c); probe != nil && probe.HTTPGet != nil && ct.onEndpoint(probe.HTTPGet.Path) {
		var why string
		port := probe.HTTPGet.Port
		switch {
		case !ct.On():
			why = "the health endpoints are off"
		case port.Type == intstr.Int && port.String() != ct.Port():
			why = fmt.Sprintf("it polls port %s, but the health endpoints listen on %s", port.String(), ct.Port())
		case !ct.Reachable():
			why = fmt.Sprintf("the health endpoints are on %s only, which kubelet cannot reach", ct.Address())
		}
		if why != "" {
			out = append(out, "its startupProbe cannot pass: "+why)
		}
	}
	return out
}

// waitCannot says why a postStart that runs the sidecar's wait command
// cannot pass; empty when it can, or when it runs another command.
func (ct Container) waitCannot(cmd []string, p preset.Preset) string {
	w := ct.Ready.Wait
	own := p.Ready != nil && p.Ready.Wait != nil && len(p.Ready.Wait.Command) > 0 && path.Base(cmd[0]) == path.Base(p.Ready.Wait.Command[0])
	switch {
	case w == nil && own:
		return ct.Ready.Variant + " has no wait command"
	case !ct.isWait(cmd):
		return ""
	case preset.ImageOlder(ct.Image, w.Since):
		return fmt.Sprintf("image %q is older than %s, the first with the wait command", ct.Image, w.Since)
	case !ct.On():
		return "the health endpoints are off"
	}
	if port := ct.waitPort(cmd); port != ct.Port() {
		return fmt.Sprintf("it polls port %s, but the health endpoints listen on %s", port, ct.Port())
	}
	host := "localhost"
	if w.AddressFlag != "" {
		if v, ok := flagValue(cmd, w.AddressFlag); ok {
			host = v
		}
	}
	if a := ct.Address(); host != a && !(preset.Loopback(host) && (anyAddress(a) || preset.Loopback(a))) {
		return fmt.Sprintf("it polls %s, but the health endpoints listen on %s", host, a)
	}
	return ""
}
