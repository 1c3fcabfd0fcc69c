package endpoint

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// Enable switches a sidecar's readiness endpoint on, and with Reachable
// makes it listen where kubelet reaches it, with the settings its catalog
// entry names. A setting written as off or on localhost is rewritten where
// it is; a missing one is added in the container's style: a variable when
// the container configures the sidecar through its environment, else a
// flag in args (goflag: right after the program, where Go's flag parser
// still reads it).
type Enable struct {
	// Container is the sidecar's container name.
	Container string
	// Preset is the sidecar's catalog entry.
	Preset preset.Preset
	// Reachable also makes the endpoint reachable by kubelet (native mode's probe).
	Reachable bool
	// Log receives what changed.
	Log *report.Log
}

var _ kio.Filter = Enable{}

// Filter applies the switch to each pod spec node.
func (f Enable) Filter(specs []*yaml.RNode) ([]*yaml.RNode, error) {
	return kio.FilterAll(yaml.FilterFunc(f.filter)).Filter(specs)
}

func (f Enable) filter(spec *yaml.RNode) (*yaml.RNode, error) {
	at := report.Container(podspec.Containers, f.Container)
	c := podspec.Find(spec, podspec.Containers, f.Container)
	if c == nil {
		at = report.Container(podspec.InitContainers, f.Container)
		c = podspec.Find(spec, podspec.InitContainers, f.Container)
	}
	if c == nil {
		return spec, nil
	}
	ct := Read(c, "", f.Preset)
	sw := ct.swtch()
	if sw == nil {
		return spec, nil
	}
	var switched, reachable string
	if !ct.On() {
		written, err := ct.switchOn(c, sw)
		if err != nil {
			return nil, fmt.Errorf("container %q: %w", f.Container, err)
		}
		switched = "switched on the health endpoints of " + f.Container + " (" + written + ")"
	}
	if f.Reachable && !ct.Reachable() && sw.Address != nil {
		written, err := ct.setAddress(c, sw)
		if err != nil {
			return nil, fmt.Errorf("container %q: %w", f.Container, err)
		}
		reachable = "made the health endpoints of " + f.Container + " reachable by kubelet (" + written + ")"
		if switched != "" {
			reachable = "made them reachable by kubelet (" + written + ")"
		}
	}
	if done := strings.Join(slices.DeleteFunc([]string{switched, reachable}, func(s string) bool { return s == "" }), " and "); done != "" {
		if sw.As != "" {
			f.Log.Change(at, "%s, as %s does (healthCheck: require makes this an error instead)", done, sw.As)
		} else {
			f.Log.Change(at, "%s, which healthCheck: require makes an error instead", done)
		}
	}
	return spec, nil
}

// switchOn writes the switch and says what it wrote.
func (ct Container) switchOn(c *yaml.RNode, sw *preset.EndpointSwitch) (string, error) {
	flag := sw.Dashes() + sw.On.Flag
	env := sw.On.Env
	switch from := ct.on.from; {
	case from.field == "env":
		return env + "=true", setEnvValue(c, from.index, "true")
	case from.field != "":
		return flag, setItem(c, from.field, from.index, flag)
	case ct.EnvStyle && env != "":
		return env + "=true", addEnv(c, env, "true")
	}
	return flag, addFlag(c, sw, flag)
}

// addFlag adds a flag where the sidecar's parser reads it: goflag right
// after the program (in command when it is there, else first in args),
// pflag at the end of args but before a "--".
func addFlag(c *yaml.RNode, sw *preset.EndpointSwitch, flag string) error {
	args := stringList(c, "args")
	switch {
	case sw.Flags == preset.GoFlag && len(stringList(c, "command")) > 0:
		return insertItem(c, "command", 1, flag)
	case sw.Flags == preset.GoFlag:
		return insertItem(c, "args", 0, flag)
	case slices.Contains(args, "--"):
		return insertItem(c, "args", slices.Index(args, "--"), flag)
	}
	return appendItem(c, "args", flag)
}

// setAddress makes the endpoint listen where kubelet reaches it and says what it wrote.
func (ct Container) setAddress(c *yaml.RNode, sw *preset.EndpointSwitch) (string, error) {
	name, to := sw.Dashes()+sw.Address.Flag, sw.Reachable
	env := sw.Address.Env
	switch from := ct.address.from; {
	case from.field == "env":
		return env + "=" + to, setEnvValue(c, from.index, to)
	case from.valueField != "":
		return name + " " + to, setItem(c, from.valueField, from.valueIndex, to)
	case from.field != "":
		return name + "=" + to, setItem(c, from.field, from.index, name+"="+to)
	case ct.EnvStyle && env != "":
		return env + "=" + to, addEnv(c, env, to)
	}
	return name + "=" + to, addFlag(c, sw, name+"="+to)
}

func list(c *yaml.RNode, field string) (*yaml.Node, error) {
	seq, err := c.Pipe(yaml.LookupCreate(yaml.SequenceNode, field))
	if err != nil {
		return nil, err
	}
	if seq.YNode().Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s is not a list", field)
	}
	return seq.YNode(), nil
}

// setItem rewrites one list item, keeping its style and comments.
func setItem(c *yaml.RNode, field string, index int, value string) error {
	seq, err := list(c, field)
	if err != nil {
		return err
	}
	seq.Content[index].Value = value
	seq.Content[index].Tag = "!!str"
	return nil
}

// newItem makes a string item styled like the list's last item.
func newItem(seq *yaml.Node, value string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value}
	if len(seq.Content) > 0 {
		n.Style = seq.Content[len(seq.Content)-1].Style
	}
	return n
}

func appendItem(c *yaml.RNode, field, value string) error {
	seq, err := list(c, field)
	if err != nil {
		return err
	}
	seq.Content = append(seq.Content, newItem(seq, value))
	return nil
}

func insertItem(c *yaml.RNode, field string, at int, value string) error {
	seq, err := list(c, field)
	if err != nil {
		return err
	}
	at = min(at, len(seq.Content))
	seq.Content = append(seq.Content[:at], append([]*yaml.Node{newItem(seq, value)}, seq.Content[at:]...)...)
	return nil
}

// setEnvValue sets the value of the env entry at index.
func setEnvValue(c *yaml.RNode, index int, value string) error {
	seq, err := list(c, "env")
	if err != nil {
		return err
	}
	entry := yaml.NewRNode(seq.Content[index])
	if f := entry.Field("value"); f != nil && f.Value.YNode().Kind == yaml.ScalarNode {
		n := f.Value.YNode()
		n.Value, n.Tag = value, "!!str"
		if n.Style == 0 && plainIsNotString(value) {
			n.Style = yaml.DoubleQuotedStyle
		}
		return nil
	}
	return entry.PipeE(yaml.SetField("value", quoted(value)))
}

// plainIsNotString reports whether the value written plain would read as a
// boolean or a number, which an env value must not be.
func plainIsNotString(value string) bool {
	_, errBool := strconv.ParseBool(value)
	_, errNum := strconv.ParseFloat(value, 64)
	return errBool == nil || errNum == nil
}

// addEnv appends an env entry.
func addEnv(c *yaml.RNode, name, value string) error {
	seq, err := list(c, "env")
	if err != nil {
		return err
	}
	entry := yaml.NewMapRNode(nil)
	if err := entry.PipeE(yaml.SetField("name", yaml.NewStringRNode(name))); err != nil {
		return err
	}
	if err := entry.PipeE(yaml.SetField("value", quoted(value))); err != nil {
		return err
	}
	if len(seq.Content) > 0 {
		entry.YNode().Style = seq.Content[len(seq.Content)-1].Style
	}
	seq.Content = append(seq.Content, entry.YNode())
	return nil
}

// quoted is a string scalar written in double quotes, as env values such as
// "true" must be.
func quoted(value string) *yaml.RNode {
	n := yaml.NewStringRNode(value)
	n.YNode().Style = yaml.DoubleQuotedStyle
	return n
}
