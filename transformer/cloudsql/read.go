// Package cloudsql reads a Cloud SQL Auth Proxy container the way the proxy
// reads its own settings (flags and CSQL_PROXY_* environment variables for
// v2, single-dash flags for v1), switches its health endpoints on the way
// Google's Cloud SQL Proxy Operator does, and derives the wait command and
// startup probe that can pass for it.
package cloudsql

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/yamlnode"
)

// Flag names of the v2 proxy (cmd/root.go) and of the v1 proxy
// (cmd/cloud_sql_proxy/cloud_sql_proxy.go).
const (
	flagHealthCheck   = "health-check"
	flagHTTPAddress   = "http-address"
	flagHTTPPort      = "http-port"
	flagV1HealthCheck = "use_http_health_check"
	flagV1HealthPort  = "health_check_port"
	// envPrefix starts the v2 proxy's environment variables (viper SetEnvPrefix).
	envPrefix = "CSQL_PROXY"
)

// Default ports: v2 serves its HTTP endpoints on localhost:9090, v1 its
// health check on all interfaces at 8090.
const (
	DefaultPort   = 9090
	DefaultV1Port = 8090
)

// v1BoolFlags are the v1 proxy's boolean flags, which take no separate value.
var v1BoolFlags = map[string]bool{
	"check_region": true, "enable_iam_login": true, "fuse": true, "log_debug_stdout": true, "quiet": true,
	"skip_failed_instance_config": true, "structured_logs": true, "use_http_health_check": true, "verbose": true, "version": true,
}

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

// setting is one setting of the proxy and where it comes from.
type setting struct {
	value string
	from  source
}

// set reports whether the container writes the setting.
func (s setting) set() bool { return s.from.field != "" }

// Proxy is what the function reads of one Cloud SQL Auth Proxy container.
type Proxy struct {
	// V1 is the v1 proxy (gce-proxy image, /cloud_sql_proxy).
	V1 bool
	// Image is the container's image.
	Image string
	// NoWait is why the image has no wait command; empty when it has one.
	NoWait string
	// EnvStyle: the container configures the proxy through CSQL_PROXY_* variables.
	EnvStyle bool
	// Broken lists arguments the proxy's flag parser rejects, each with its fix.
	Broken []string
	// Unread lists sources of settings the function cannot read.
	Unread []string

	healthCheck, address, port setting
	// flags is where the proxy's flags are: the command after its program, then args.
	flags []token
}

// token is one argument of the proxy and where it is.
type token struct {
	field string
	index int
	value string
}

// Read reads the proxy container's settings; at is its field path for messages.
func Read(c *yaml.RNode, at string) Proxy {
	p := Proxy{Image: stringField(c, "image")}
	command := stringList(c, "command")
	p.V1 = isV1(p.Image, command)
	for i, v := range command {
		if i > 0 {
			p.flags = append(p.flags, token{"command", i, v})
		}
	}
	for i, v := range stringList(c, "args") {
		p.flags = append(p.flags, token{"args", i, v})
	}
	if p.V1 {
		p.readV1Flags(at)
		p.NoWait = "the v1 proxy has no wait command"
		return p
	}
	p.readEnv(c, at)
	p.readFlags(at)
	if v, ok := imageVersion(p.Image); ok && (v[0] < 2 || (v[0] == 2 && v[1] < 8)) {
		p.NoWait = fmt.Sprintf("image %q is older than 2.8.0, the first proxy with a wait command", p.Image)
	}
	return p
}

// isV1 recognises the v1 proxy by its image name or its program.
func isV1(image string, command []string) bool {
	if len(command) > 0 && path.Base(command[0]) == "cloud_sql_proxy" {
		return true
	}
	return imageName(image) == "gce-proxy"
}

// imageName returns the last path segment of an image reference, without tag or digest.
func imageName(image string) string {
	name, _, _ := strings.Cut(image, "@")
	name = name[strings.LastIndex(name, "/")+1:]
	name, _, _ = strings.Cut(name, ":")
	return name
}

// imageVersion parses the major, minor and patch of an image tag such as
// "2.11.0", "v2.8.1" or "2.14.1-alpine".
func imageVersion(image string) ([3]int, bool) {
	var v [3]int
	ref, _, _ := strings.Cut(image, "@")
	i := strings.LastIndex(ref, ":")
	if i < 0 || strings.Contains(ref[i:], "/") {
		return v, false
	}
	tag := strings.TrimPrefix(ref[i+1:], "v")
	tag, _, _ = strings.Cut(tag, "-")
	parts := strings.Split(tag, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return v, false
	}
	for j, s := range parts {
		n, err := strconv.Atoi(s)
		if err != nil {
			return v, false
		}
		v[j] = n
	}
	return v, true
}

// readEnv reads the CSQL_PROXY_* variables the way the proxy's viper does:
// the flag name upper-cased with "-" as "_"; a later entry wins, an empty
// value is unset.
func (p *Proxy) readEnv(c *yaml.RNode, at string) {
	env, err := yamlnode.Lookup(c, "env")
	if err == nil && env != nil && env.YNode().Kind == yaml.SequenceNode {
		for i, e := range env.YNode().Content {
			name := stringField(yaml.NewRNode(e), "name")
			if !strings.HasPrefix(name, envPrefix+"_") {
				continue
			}
			p.EnvStyle = true
			target := p.settingFor(strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(name, envPrefix+"_"), "_", "-")))
			if target == nil {
				continue
			}
			if e.Kind == yaml.MappingNode && yaml.NewRNode(e).Field("valueFrom") != nil {
				p.Unread = append(p.Unread, fmt.Sprintf("%s.env[%d] (%s from valueFrom)", at, i, name))
				continue
			}
			if v := stringField(yaml.NewRNode(e), "value"); v != "" {
				*target = setting{value: v, from: source{field: "env", index: i}}
			}
		}
	}
	if from, err := yamlnode.Lookup(c, "envFrom"); err == nil && from != nil && len(from.YNode().Content) > 0 {
		p.Unread = append(p.Unread, at+".envFrom")
	}
}

func (p *Proxy) settingFor(flag string) *setting {
	switch flag {
	case flagHealthCheck, flagV1HealthCheck:
		return &p.healthCheck
	case flagHTTPAddress:
		return &p.address
	case flagHTTPPort, flagV1HealthPort:
		return &p.port
	}
	return nil
}

// readFlags reads the v2 flags as pflag does: --name=value, --name value
// (for flags that take a value), --name for booleans, anywhere before "--";
// a flag set again wins.
func (p *Proxy) readFlags(at string) {
	for i := 0; i < len(p.flags); i++ {
		t := p.flags[i]
		if t.value == "--" {
			return
		}
		if !strings.HasPrefix(t.value, "--") {
			continue
		}
		name, value, hasValue := strings.Cut(t.value[2:], "=")
		if strings.ContainsAny(name, " \t") {
			p.broken(at, t, "--")
			continue
		}
		if name == "config-file" {
			p.Unread = append(p.Unread, fmt.Sprintf("%s.%s[%d] (%q)", at, t.field, t.index, t.value))
		}
		target := p.settingFor(name)
		switch {
		case target == nil:
		case name == flagHealthCheck && !hasValue:
			*target = setting{value: "true", from: source{field: t.field, index: t.index}}
		case hasValue:
			*target = setting{value: value, from: source{field: t.field, index: t.index}}
		case i+1 < len(p.flags):
			next := p.flags[i+1]
			*target = setting{value: next.value, from: source{field: t.field, index: t.index, valueField: next.field, valueIndex: next.index}}
			i++
		}
	}
}

// readV1Flags reads the v1 flags as Go's flag package does: -name or
// --name, =value or a separate value for non-boolean flags, up to the
// first argument that is not a flag.
func (p *Proxy) readV1Flags(at string) {
	for i := 0; i < len(p.flags); i++ {
		t := p.flags[i]
		if t.value == "--" || len(t.value) < 2 || t.value[0] != '-' {
			return
		}
		dashes := "-"
		if strings.HasPrefix(t.value, "--") {
			dashes = "--"
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(t.value, dashes), "=")
		if strings.ContainsAny(name, " \t") {
			p.broken(at, t, dashes)
			return
		}
		target := p.settingFor(name)
		switch {
		case hasValue && target != nil:
			*target = setting{value: value, from: source{field: t.field, index: t.index}}
		case hasValue:
		case v1BoolFlags[name]:
			if target != nil {
				*target = setting{value: "true", from: source{field: t.field, index: t.index}}
			}
		case i+1 < len(p.flags):
			if target != nil {
				next := p.flags[i+1]
				*target = setting{value: next.value, from: source{field: t.field, index: t.index, valueField: next.field, valueIndex: next.index}}
			}
			i++
		}
	}
}

// broken records an argument that holds a flag and its value with a space:
// the flag parser takes it as one unknown flag and the proxy exits.
func (p *Proxy) broken(at string, t token, dashes string) {
	name, value, _ := strings.Cut(strings.TrimPrefix(t.value, dashes), " ")
	fix := dashes + name + "=" + strings.TrimSpace(value)
	p.Broken = append(p.Broken, fmt.Sprintf("%s.%s[%d]: %q is one argument holding a space, which the proxy's flag parser rejects as an unknown flag (the container exits): write %q, or the flag and its value as two arguments",
		at, t.field, t.index, t.value, fix))
}

// HealthCheck reports whether the health endpoints are on.
func (p Proxy) HealthCheck() bool {
	on, err := strconv.ParseBool(p.healthCheck.value)
	return err == nil && on
}

// Port returns the port of the health endpoints as written, the default when unset.
func (p Proxy) Port() string {
	switch {
	case p.port.set():
		return p.port.value
	case p.V1:
		return strconv.Itoa(DefaultV1Port)
	}
	return strconv.Itoa(DefaultPort)
}

// Address returns the address the v2 health endpoints listen on, "localhost" when unset.
func (p Proxy) Address() string {
	if p.address.set() {
		return p.address.value
	}
	return "localhost"
}

// Reachable reports whether kubelet can reach the health endpoints: v1
// listens on every interface; v2 on its --http-address, localhost by default.
func (p Proxy) Reachable() bool {
	if p.V1 {
		return true
	}
	switch a := strings.Trim(p.Address(), "[]"); {
	case a == "localhost", a == "::1", strings.HasPrefix(a, "127."):
		return false
	}
	return true
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
