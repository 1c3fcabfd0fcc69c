// Package endpoint fits a sidecar's wait command and startup probe to its
// readiness endpoint, and switches the endpoint on where it is off, with
// the facts of the sidecar's catalog entry: how the sidecar reads its
// settings (flags and environment variables), which setting switches the
// endpoint on, which binds it where kubelet reaches it, and which sets its
// port. One generic edit serves every entry that states them; a wait or a
// probe that cannot pass is never written.
package endpoint

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
)

// source says where a setting is written, so that it can be rewritten there.
type source struct {
	// field is "command", "args" or "env"; empty when the setting is not written.
	field string
	// index is the list index of the flag or the env entry.
	index int
	// valueField and valueIndex say where the value is in the two-argument
	// form (the flag at the end of command, its value first in args); empty otherwise.
	valueField string
	valueIndex int
}

// setting is one setting of the sidecar and where it comes from.
type setting struct {
	value string
	from  source
}

// set reports whether the container writes the setting.
func (s setting) set() bool { return s.from.field != "" }

// token is one argument of the sidecar and where it is.
type token struct {
	field string
	index int
	value string
}

// Container is what the function reads of one sidecar container's
// readiness endpoint, the way the sidecar reads its own settings.
type Container struct {
	// Image is the container's image.
	Image string
	// Ready is how the container's form of the sidecar tells it is ready.
	Ready preset.Readiness
	// EnvStyle: the container configures the sidecar through its environment.
	EnvStyle bool
	// Broken lists arguments the sidecar's flag parser rejects, each with its fix.
	Broken report.Findings
	// Unread lists sources of settings the function cannot read.
	Unread []string

	on, address, port setting
	// flags is where the sidecar's flags are: the command after its program, then args.
	flags []token
}

// program is the container's program: command[0], empty when the image's
// entrypoint runs.
func program(c *yaml.RNode) string {
	if command := stringList(c, "command"); len(command) > 0 {
		return command[0]
	}
	return ""
}

// Read reads a sidecar container of the preset; at is its field path for
// messages. The settings are read only when the container's form has a
// readiness endpoint with a Switch.
func Read(c *yaml.RNode, at string, p preset.Preset) Container {
	ct := Container{Image: stringField(c, "image")}
	ct.Ready = p.ReadinessFor(ct.Image, program(c))
	sw := ct.swtch()
	if sw == nil {
		return ct
	}
	for i, v := range stringList(c, "command") {
		if i > 0 {
			ct.flags = append(ct.flags, token{"command", i, v})
		}
	}
	for i, v := range stringList(c, "args") {
		ct.flags = append(ct.flags, token{"args", i, v})
	}
	if sw.Env != nil && !preset.ImageOlder(ct.Image, sw.Env.Since) {
		ct.readEnv(c, at, sw)
	}
	if sw.Flags == preset.GoFlag {
		ct.readGoFlags(at, sw)
	} else {
		ct.readPFlags(at, sw)
	}
	return ct
}

// swtch is the Switch of the container's endpoint; nil when it has none.
func (ct Container) swtch() *preset.EndpointSwitch {
	if ct.Ready.Endpoint == nil {
		return nil
	}
	return ct.Ready.Endpoint.Switch
}

// readEnv reads the sidecar's variables as viper does: a later entry
// wins, an empty value is unset; any variable of the prefix makes the
// container environment-styled.
func (ct *Container) readEnv(c *yaml.RNode, at string, sw *preset.EndpointSwitch) {
	env, err := tree.Lookup(c, "env")
	if err == nil && env != nil && env.YNode().Kind == yaml.SequenceNode {
		for i, e := range env.YNode().Content {
			name := stringField(yaml.NewRNode(e), "name")
			if !strings.HasPrefix(name, sw.Env.Prefix+"_") {
				continue
			}
			ct.EnvStyle = true
			target := ct.settingForEnv(sw, name)
			if target == nil {
				continue
			}
			if e.Kind == yaml.MappingNode && yaml.NewRNode(e).Field("valueFrom") != nil {
				ct.Unread = append(ct.Unread, fmt.Sprintf("%s.env[%d] (%s from valueFrom)", at, i, name))
				continue
			}
			if v := stringField(yaml.NewRNode(e), "value"); v != "" {
				*target = setting{value: v, from: source{field: "env", index: i}}
			}
		}
	}
	if from, err := tree.Lookup(c, "envFrom"); err == nil && from != nil && len(from.YNode().Content) > 0 {
		ct.Unread = append(ct.Unread, at+".envFrom")
	}
}

// settingForEnv is the setting a variable sets; nil for any other.
func (ct *Container) settingForEnv(sw *preset.EndpointSwitch, name string) *setting {
	switch {
	case name == sw.On.Env:
		return &ct.on
	case sw.Address != nil && name == sw.Address.Env:
		return &ct.address
	case sw.Port != nil && name == sw.Port.Env:
		return &ct.port
	}
	return nil
}

// settingForFlag is the setting a flag sets; nil for any other.
func (ct *Container) settingForFlag(sw *preset.EndpointSwitch, name string) *setting {
	switch {
	case name == sw.On.Flag:
		return &ct.on
	case sw.Address != nil && name == sw.Address.Flag:
		return &ct.address
	case sw.Port != nil && name == sw.Port.Flag:
		return &ct.port
	}
	return nil
}

// readPFlags reads flags as pflag does: --name=value, --name value (for
// flags that take a value), --name for the switch, anywhere before "--";
// a flag set again wins.
func (ct *Container) readPFlags(at string, sw *preset.EndpointSwitch) {
	for i := 0; i < len(ct.flags); i++ {
		t := ct.flags[i]
		if t.value == "--" {
			return
		}
		if !strings.HasPrefix(t.value, "--") {
			continue
		}
		name, value, hasValue := strings.Cut(t.value[2:], "=")
		if strings.ContainsAny(name, " \t") {
			ct.broken(at, t, "--")
			continue
		}
		if sw.ConfigFile != "" && name == sw.ConfigFile {
			ct.Unread = append(ct.Unread, fmt.Sprintf("%s.%s[%d] (%q)", at, t.field, t.index, t.value))
		}
		target := ct.settingForFlag(sw, name)
		switch {
		case target == nil:
		case target == &ct.on && !hasValue:
			*target = setting{value: "true", from: source{field: t.field, index: t.index}}
		case hasValue:
			*target = setting{value: value, from: source{field: t.field, index: t.index}}
		case i+1 < len(ct.flags):
			next := ct.flags[i+1]
			*target = setting{value: next.value, from: source{field: t.field, index: t.index, valueField: next.field, valueIndex: next.index}}
			i++
		}
	}
}

// readGoFlags reads flags as Go's flag package does: -name or --name,
// =value or a separate value for flags that are not boolean, up to "--"
// or the first argument that is not a flag.
func (ct *Container) readGoFlags(at string, sw *preset.EndpointSwitch) {
	for i := 0; i < len(ct.flags); i++ {
		t := ct.flags[i]
		if t.value == "--" || len(t.value) < 2 || t.value[0] != '-' {
			return
		}
		dashes := "-"
		if strings.HasPrefix(t.value, "--") {
			dashes = "--"
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(t.value, dashes), "=")
		if strings.ContainsAny(name, " \t") {
			ct.broken(at, t, dashes)
			return
		}
		if sw.ConfigFile != "" && name == sw.ConfigFile {
			ct.Unread = append(ct.Unread, fmt.Sprintf("%s.%s[%d] (%q)", at, t.field, t.index, t.value))
		}
		target := ct.settingForFlag(sw, name)
		switch {
		case hasValue && target != nil:
			*target = setting{value: value, from: source{field: t.field, index: t.index}}
		case hasValue:
		case slices.Contains(sw.BoolFlags, name):
			if target != nil {
				*target = setting{value: "true", from: source{field: t.field, index: t.index}}
			}
		case i+1 < len(ct.flags):
			if target != nil {
				next := ct.flags[i+1]
				*target = setting{value: next.value, from: source{field: t.field, index: t.index, valueField: next.field, valueIndex: next.index}}
			}
			i++
		}
	}
}

// broken records an argument that holds a flag and its value with a space:
// the flag parser takes it as one unknown flag and the sidecar exits.
func (ct *Container) broken(at string, t token, dashes string) {
	name, value, _ := strings.Cut(strings.TrimPrefix(t.value, dashes), " ")
	fix := dashes + name + "=" + strings.TrimSpace(value)
	arg := fmt.Sprintf("%s.%s[%d]", at, t.field, t.index)
	ct.Broken = append(ct.Broken, report.NewFinding(report.KindFieldValue, fn.Error, report.At(arg).Values(t.value, fix), "%s: %q is one argument holding a space, which the sidecar's flag parser rejects as an unknown flag (the container exits): write %q, or the flag and its value as two arguments",
		arg, t.value, fix))
}

// On reports whether the endpoint is served: switched on in the container,
// or on by default.
func (ct Container) On() bool {
	if ct.Ready.Endpoint == nil {
		return false
	}
	if !ct.on.set() {
		return ct.Ready.Endpoint.On
	}
	on, err := strconv.ParseBool(ct.on.value)
	return err == nil && on
}

// Port returns the endpoint's port as written, the default when unset.
func (ct Container) Port() string {
	if ct.port.set() {
		return ct.port.value
	}
	if ct.Ready.Endpoint == nil {
		return ""
	}
	return strconv.Itoa(int(ct.Ready.Endpoint.Port))
}

// Address returns the address the endpoint binds, as written, the default
// when unset; empty is every interface.
func (ct Container) Address() string {
	if ct.address.set() {
		return ct.address.value
	}
	if ct.Ready.Endpoint == nil {
		return ""
	}
	return ct.Ready.Endpoint.Address
}

// Reachable reports whether kubelet, which probes the pod IP, reaches the
// endpoint: it binds every interface or an address that is not loopback.
func (ct Container) Reachable() bool { return !preset.Loopback(ct.Address()) }

// isWait reports whether a command runs the form's wait command: its
// program, and its subcommand when it has one.
func (ct Container) isWait(cmd []string) bool {
	w := ct.Ready.Wait
	if w == nil || len(w.Command) == 0 || len(cmd) == 0 || path.Base(cmd[0]) != path.Base(w.Command[0]) {
		return false
	}
	return len(w.Command) < 2 || strings.HasPrefix(w.Command[1], "-") || (len(cmd) > 1 && cmd[1] == w.Command[1])
}

// waitPort is the port a wait command polls: the value of its port flag,
// else the endpoint's default port. The command reads only its flags.
func (ct Container) waitPort(cmd []string) string {
	port := strconv.Itoa(int(ct.Ready.Endpoint.Port))
	if f := ct.Ready.Wait.PortFlag; f != "" {
		if v, ok := flagValue(cmd, f); ok {
			port = v
		}
	}
	return port
}

// flagValue is the last value of a flag in a command, --name=value or --name value.
func flagValue(cmd []string, name string) (string, bool) {
	var v string
	found := false
	for i, a := range cmd {
		if after, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			v, found = after, true
		} else if a == "--"+name && i+1 < len(cmd) {
			v, found = cmd[i+1], true
		}
	}
	return v, found
}

func stringField(n *yaml.RNode, field string) string {
	f := n.Field(field)
	if f == nil || f.Value.YNode().Kind != yaml.ScalarNode {
		return ""
	}
	return f.Value.YNode().Value
}

func stringList(n *yaml.RNode, field string) []string {
	f := n.Field(field)
	if f == nil || f.Value.YNode().Kind != yaml.SequenceNode {
		return nil
	}
	var out []string
	for _, v := range f.Value.YNode().Content {
		out = append(out, v.Value)
	}
	return out
}
