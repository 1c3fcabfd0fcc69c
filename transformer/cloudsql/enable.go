package cloudsql

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/report"
)

// AllInterfaces is the address that makes the v2 health endpoints reachable
// by kubelet, as the operator sets it.
const AllInterfaces = "0.0.0.0"

// EnableHealthCheck switches a proxy's health endpoints on, and with
// Reachable makes them listen on every interface, as Google's Cloud SQL
// Proxy Operator does. A setting written as off or on localhost is
// rewritten where it is; a missing one is added in the container's style:
// a CSQL_PROXY_* variable when the container configures the proxy through
// its environment, else a flag in args (v1: a flag right after the program,
// where Go's flag parser still reads it).
type EnableHealthCheck struct {
	// Container is the proxy's container name.
	Container string
	// Reachable also makes the endpoints reachable by kubelet (native mode's probe).
	Reachable bool
	// Log receives what changed.
	Log *report.Log
}

var _ kio.Filter = EnableHealthCheck{}

// Filter applies the switch to each pod spec node.
func (f EnableHealthCheck) Filter(specs []*yaml.RNode) ([]*yaml.RNode, error) {
	return kio.FilterAll(yaml.FilterFunc(f.filter)).Filter(specs)
}

func (f EnableHealthCheck) filter(spec *yaml.RNode) (*yaml.RNode, error) {
	c := podspec.Find(spec, podspec.Containers, f.Container)
	if c == nil {
		c = podspec.Find(spec, podspec.InitContainers, f.Container)
	}
	if c == nil {
		return spec, nil
	}
	p := Read(c, "")
	var switched, reachable string
	if !p.HealthCheck() {
		written, err := p.switchOn(c)
		if err != nil {
			return nil, fmt.Errorf("container %q: %w", f.Container, err)
		}
		switched = "switched on the health endpoints of " + f.Container + " (" + written + ")"
	}
	if f.Reachable && !p.Reachable() {
		written, err := p.setAddress(c)
		if err != nil {
			return nil, fmt.Errorf("container %q: %w", f.Container, err)
		}
		reachable = "made the health endpoints of " + f.Container + " reachable by kubelet (" + written + ")"
		if switched != "" {
			reachable = "made them reachable by kubelet (" + written + ")"
		}
	}
	if done := strings.Join(slices.DeleteFunc([]string{switched, reachable}, func(s string) bool { return s == "" }), " and "); done != "" {
		f.Log.Change("%s, as Google's Cloud SQL Proxy Operator does (cloudSQLProxy.healthCheck: require makes this an error instead)", done)
	}
	return spec, nil
}

// switchOn writes the health check switch and says what it wrote.
func (p Proxy) switchOn(c *yaml.RNode) (string, error) {
	flag := "--" + flagHealthCheck
	if p.V1 {
		flag = "-" + flagV1HealthCheck
	}
	env := envName(flagHealthCheck)
	switch from := p.healthCheck.from; {
	case from.field == "env":
		return env + "=true", setEnvValue(c, from.index, "true")
	case from.field != "":
		return flag, setItem(c, from.field, from.index, flag)
	case p.EnvStyle:
		return env + "=true", addEnv(c, env, "true")
	case p.V1 && len(stringList(c, "command")) > 0:
		return flag, insertItem(c, "command", 1, flag)
	}
	return flag, appendItem(c, "args", flag)
}

// setAddress makes the v2 endpoints listen on every interface and says what it wrote.
func (p Proxy) setAddress(c *yaml.RNode) (string, error) {
	flag := "--" + flagHTTPAddress + "=" + AllInterfaces
	env := envName(flagHTTPAddress)
	switch from := p.address.from; {
	case from.field == "env":
		return env + "=" + AllInterfaces, setEnvValue(c, from.index, AllInterfaces)
	case from.valueField != "":
		return "--" + flagHTTPAddress + " " + AllInterfaces, setItem(c, from.valueField, from.valueIndex, AllInterfaces)
	case from.field != "":
		return flag, setItem(c, from.field, from.index, flag)
	case p.EnvStyle:
		return env + "=" + AllInterfaces, addEnv(c, env, AllInterfaces)
	}
	return flag, appendItem(c, "args", flag)
}

// envName is the variable the v2 proxy reads a flag from.
func envName(flag string) string {
	return envPrefix + "_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
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
