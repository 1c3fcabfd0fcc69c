package driver_test

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
)

// form is one form of a catalog entry's sidecar, as this test builds it:
// the entry's own, or one of its variants.
type form struct {
	entry   preset.Entry
	variant string
	image   string
	program string
	ep      *preset.Endpoint
	wait    *preset.Wait
	probe   bool
}

// forms lists the forms of every built-in entry.
func forms() []form {
	var out []form
	for _, e := range preset.Builtin() {
		f := form{entry: e, image: exampleImage(e.Images)}
		if r := e.Ready; r != nil {
			f.ep, f.wait, f.probe = r.Endpoint, r.Wait, r.StartupProbe != nil
			for _, v := range r.Variants {
				vf := form{entry: e, variant: v.Name, image: exampleImage(v.Images), ep: v.Endpoint, wait: v.Wait, probe: v.StartupProbe != nil}
				if len(v.Programs) > 0 {
					vf.program = "/" + v.Programs[0].Name
				}
				if vf.image == "" {
					vf.image = f.image
				}
				out = append(out, vf)
			}
		}
		out = append(out, f)
	}
	return out
}

// exampleImage is an image the first pattern matches, with a tag that
// names no version.
func exampleImage(patterns []preset.ImagePattern) string {
	if len(patterns) == 0 {
		return ""
	}
	p := strings.ReplaceAll(strings.TrimPrefix(patterns[0].Pattern, "**/"), "*", "x")
	return "registry.example/" + p + ":latest"
}

// name is the container's name in the test's pods.
func (f form) name() string {
	if len(f.entry.Containers) > 0 {
		return f.entry.Containers[0].Name
	}
	return f.entry.Name
}

func (f form) String() string {
	if f.variant != "" {
		return f.entry.Name + " (" + f.variant + ")"
	}
	return f.entry.Name
}

// style is one way a container writes its endpoint's settings.
type style struct {
	name string
	args []string
	env  [][2]string
}

// styles are the ways a container of the form writes the settings of its
// endpoint: not at all, and, where the catalog says how the sidecar reads
// them, as --flag=value, as --flag value, as variables, and written as off.
func (f form) styles() []style {
	out := []style{{name: "nothing set"}}
	if f.ep == nil || f.ep.Switch == nil {
		return out
	}
	sw := f.ep.Switch
	dash := "--"
	if sw.Flags == preset.GoFlag {
		dash = "-"
	}
	eq := style{name: "--flag=value", args: []string{dash + sw.On.Flag + "=true"}}
	split := style{name: "--flag value", args: []string{dash + sw.On.Flag}}
	off := style{name: "written as off", args: []string{dash + sw.On.Flag + "=false"}}
	if sw.Port != nil {
		eq.args = append(eq.args, dash+sw.Port.Flag+"=9555")
		split.args = append(split.args, dash+sw.Port.Flag, "9556")
	}
	if sw.Address != nil {
		eq.args = append(eq.args, dash+sw.Address.Flag+"=127.0.0.1")
		split.args = append(split.args, dash+sw.Address.Flag, sw.Reachable)
	}
	out = append(out, eq, split, off)
	if sw.Env != nil {
		env := style{name: "variables"}
		if sw.Port != nil && sw.Port.Env != "" {
			env.env = append(env.env, [2]string{sw.Port.Env, "9557"})
		}
		if sw.Address != nil && sw.Address.Env != "" {
			env.env = append(env.env, [2]string{sw.Address.Env, "localhost"})
		}
		if sw.On.Env != "" {
			on := style{name: "switched on by a variable, off by a flag", args: off.args, env: [][2]string{{sw.On.Env, "true"}}}
			out = append(out, on)
		}
		out = append(out, env)
	}
	return out
}

// pod is a Deployment of an application and the form's container written in the style.
func (f form) pod(s style) string {
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  selector: {matchLabels: {app: web}}\n")
	fmt.Fprintf(&b, "  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - {name: web, image: registry.example/shop/web:1.0.0}\n")
	fmt.Fprintf(&b, "      - name: %s\n", f.name())
	if f.image != "" {
		fmt.Fprintf(&b, "        image: %s\n", f.image)
	}
	if f.program != "" {
		fmt.Fprintf(&b, "        command: [%q]\n", f.program)
	}
	if len(s.args) > 0 {
		fmt.Fprintf(&b, "        args: [%s]\n", quoteAll(s.args))
	}
	if len(s.env) > 0 {
		b.WriteString("        env:\n")
		for _, e := range s.env {
			fmt.Fprintf(&b, "        - {name: %s, value: %q}\n", e[0], e[1])
		}
	}
	return b.String()
}

func quoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = strconv.Quote(a)
	}
	return strings.Join(q, ", ")
}

// TestEveryWaitAndProbeCanPass runs every form of every entry of the
// built-in catalog, in ordered and native mode, with healthCheck enable
// and require where the entry says how to switch its endpoint, and with
// the endpoint's settings absent, as --flag=value, as --flag value, as
// variables and written as off. Every wait command and startup probe the
// function writes must target the endpoint switched on in the output, on
// an address its prober reaches (the wait runs in the container, kubelet
// sends the probe to the pod IP), on the port it is served on: read here
// from the output with the catalog's facts, by this test's own reading of
// flags and variables. Where the function writes none of the catalog's, a
// result must say why; and every wait and probe of the catalog must be
// written in some case, so that an entry that gains one without the facts
// to make it pass fails here.
func TestEveryWaitAndProbeCanPass(t *testing.T) {
	written := map[string]bool{}
	cases := 0
	for _, f := range forms() {
		for _, mode := range []string{"ordered", "native"} {
			checks := []string{""}
			if f.ep != nil && f.ep.Switch != nil {
				checks = []string{"enable", "require"}
			}
			for _, check := range checks {
				for _, s := range f.styles() {
					cases++
					name := fmt.Sprintf("%s/%s/%s/%s", f, mode, check, s.name)
					cfg := fmt.Sprintf("apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: x}\nspec:\n  kubernetesVersion: \"1.31\"\n  mode: %s\n  sidecars:\n  - {preset: %s, name: %s}\n",
						mode, f.entry.Name, f.name())
					if check != "" {
						cfg = strings.TrimSuffix(cfg, "}\n") + ", healthCheck: " + check + "}\n"
					}
					rl, err := krmtest.ResourceList([]byte(f.pod(s)), []byte(cfg))
					if err != nil {
						t.Fatal(err)
					}
					out, _ := run(t, rl)
					o, err := krmtest.Split(out)
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					wait, probe, errs := checkSidecar(o.Items[0], f)
					for _, e := range errs {
						t.Errorf("%s: %s", name, e)
					}
					written[f.String()+"/wait"] = written[f.String()+"/wait"] || wait
					written[f.String()+"/probe"] = written[f.String()+"/probe"] || probe
					said := false
					for _, r := range o.ResultList() {
						said = said || r.Severity == "error" || (r.Severity == "warning" && strings.Contains(r.Message, f.name()))
					}
					if (mode == "ordered" && f.wait != nil && !wait || mode == "native" && f.probe && !probe) && !said {
						t.Errorf("%s: no %s written, and no result says why", name, map[string]string{"ordered": "wait", "native": "startupProbe"}[mode])
					}
				}
			}
		}
	}
	for _, f := range forms() {
		if f.wait != nil && !written[f.String()+"/wait"] {
			t.Errorf("%s: the catalog's wait command is never written: give its endpoint the facts that make it pass (ready.endpoint with on, or its switch)", f)
		}
		if f.probe && !written[f.String()+"/probe"] {
			t.Errorf("%s: the catalog's startupProbe is never written: give its endpoint the facts that make it pass (ready.endpoint with on and an address kubelet reaches, or its switch)", f)
		}
	}
	if cases < 60 {
		t.Errorf("ran %d cases, want every form of every entry in every style", cases)
	}
}

// checkSidecar checks the wait command and the startup probe of the form's
// container in a workload of the output, and says whether it has them.
func checkSidecar(item *yaml.RNode, f form) (wait, probe bool, errs []string) {
	var c *yaml.RNode
	for _, field := range []string{"initContainers", "containers"} {
		list, _ := item.Pipe(yaml.Lookup("spec", "template", "spec", field))
		if list == nil {
			continue
		}
		for _, n := range list.YNode().Content {
			if rn := yaml.NewRNode(n); yaml.GetValue(rn.Field("name").Value) == f.name() {
				c = rn
			}
		}
	}
	if c == nil {
		return false, false, []string{"the sidecar is not in the output"}
	}
	ep := f.ep
	var on bool
	var address, port string
	if ep != nil {
		on, address, port = served(c, ep)
	}
	if cmd, _ := c.Pipe(yaml.Lookup("lifecycle", "postStart", "exec", "command")); cmd != nil {
		wait = true
		argv := words(cmd)
		switch {
		case f.wait == nil || len(argv) == 0 || path.Base(argv[0]) != path.Base(f.wait.Command[0]):
			errs = append(errs, fmt.Sprintf("postStart %q is not the catalog's wait command", argv))
		case ep == nil:
			errs = append(errs, fmt.Sprintf("postStart %q waits on an endpoint the catalog does not know", argv))
		default:
			errs = append(errs, checkWait(argv, f.wait, ep, on, address, port)...)
		}
	}
	if p, _ := c.Pipe(yaml.Lookup("startupProbe")); p != nil {
		probe = true
		switch {
		case ep == nil:
			errs = append(errs, "a startupProbe on an endpoint the catalog does not know")
		case !on:
			errs = append(errs, "a startupProbe, but the endpoint is off")
		}
		if h := p.Field("httpGet"); h != nil && ep != nil {
			get := h.Value
			if p := yaml.GetValue(get.Field("path").Value); p != ep.Path && !slices.Contains(ep.Paths, p) {
				errs = append(errs, fmt.Sprintf("a startupProbe on %s, which the endpoint does not serve", p))
			}
			if p := yaml.GetValue(get.Field("port").Value); p != port {
				errs = append(errs, fmt.Sprintf("a startupProbe on port %s, the endpoint is served on %s", p, port))
			}
			if !podIPReaches(address) {
				errs = append(errs, fmt.Sprintf("an httpGet startupProbe, which kubelet sends to the pod IP, but the endpoint is bound to %s", address))
			}
		}
	}
	return wait, probe, errs
}

// checkWait checks a wait command run in the container against the endpoint it polls.
func checkWait(argv []string, w *preset.Wait, ep *preset.Endpoint, on bool, address, port string) []string {
	var errs []string
	if !on {
		errs = append(errs, fmt.Sprintf("postStart %q, but the endpoint is off", argv))
	}
	polls := strconv.Itoa(int(ep.Port))
	if w.PortFlag != "" {
		if v, ok := lastFlag(argv, w.PortFlag); ok {
			polls = v
		}
	}
	if polls != port {
		errs = append(errs, fmt.Sprintf("postStart %q polls port %s, the endpoint is served on %s", argv, polls, port))
	}
	host := "localhost"
	if w.AddressFlag != "" {
		if v, ok := lastFlag(argv, w.AddressFlag); ok {
			host = v
		}
	}
	if !reaches(host, address) {
		errs = append(errs, fmt.Sprintf("postStart %q polls %s, the endpoint is bound to %s", argv, host, address))
	}
	return errs
}

// served reads, as the sidecar does, whether the endpoint is on, the
// address it binds and its port: the catalog's defaults, then its
// variables, then its flags, which win.
func served(c *yaml.RNode, ep *preset.Endpoint) (on bool, address, port string) {
	on, address, port = ep.On, ep.Address, strconv.Itoa(int(ep.Port))
	sw := ep.Switch
	if sw == nil {
		return
	}
	set := func(name, value string, flag bool) {
		switch {
		case flag && name == sw.On.Flag, !flag && name == sw.On.Env:
			on, _ = strconv.ParseBool(value)
		case sw.Address != nil && (flag && name == sw.Address.Flag || !flag && name == sw.Address.Env):
			address = value
		case sw.Port != nil && (flag && name == sw.Port.Flag || !flag && name == sw.Port.Env):
			port = value
		}
	}
	if env := c.Field("env"); env != nil && sw.Env != nil {
		for _, e := range env.Value.YNode().Content {
			n := yaml.NewRNode(e)
			if v := n.Field("value"); v != nil && yaml.GetValue(v.Value) != "" {
				set(yaml.GetValue(n.Field("name").Value), yaml.GetValue(v.Value), false)
			}
		}
	}
	var argv []string
	if cmd := c.Field("command"); cmd != nil && len(cmd.Value.YNode().Content) > 0 {
		argv = words(cmd.Value)[1:]
	}
	if args := c.Field("args"); args != nil {
		argv = append(argv, words(args.Value)...)
	}
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		if a == "--" || (sw.Flags == preset.GoFlag && !strings.HasPrefix(a, "-")) {
			break
		}
		if !strings.HasPrefix(a, "-") || (sw.Flags == preset.PFlag && !strings.HasPrefix(a, "--")) {
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		isBool := name == sw.On.Flag || slices.Contains(sw.BoolFlags, name)
		switch {
		case hasValue:
		case isBool:
			value = "true"
		case i+1 < len(argv):
			value = argv[i+1]
			i++
		}
		set(name, value, true)
	}
	return on, address, port
}

// podIPReaches reports whether a connection to the pod IP reaches an
// endpoint bound to the address: every interface, or one that is not loopback.
func podIPReaches(address string) bool {
	a := strings.Trim(address, "[]")
	return a != "localhost" && a != "::1" && !strings.HasPrefix(a, "127.")
}

// reaches reports whether a connection from inside the container to host
// reaches an endpoint bound to the address.
func reaches(host, address string) bool {
	switch a := strings.Trim(address, "[]"); {
	case a == "" || a == "0.0.0.0" || a == "::":
		return true
	case a == "localhost" || a == "::1" || strings.HasPrefix(a, "127."):
		return host == "localhost" || strings.HasPrefix(host, "127.") || host == a
	default:
		return host == a
	}
}

// lastFlag is the last value of --name in a command, as --name=value or --name value.
func lastFlag(argv []string, name string) (string, bool) {
	var v string
	found := false
	for i, a := range argv {
		if after, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			v, found = after, true
		} else if a == "--"+name && i+1 < len(argv) {
			v, found = argv[i+1], true
		}
	}
	return v, found
}

// words are the strings of a sequence node.
func words(n *yaml.RNode) []string {
	var out []string
	for _, w := range n.YNode().Content {
		out = append(out, w.Value)
	}
	return out
}
