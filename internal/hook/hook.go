// Package hook reads and writes a container's lifecycle hooks and probes on
// kyaml nodes, keeping comments on everything it does not replace.
package hook

import (
	"path"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
)

// Hook names under a container's lifecycle.
const (
	// PostStart runs right after the container starts; kubelet waits for it.
	PostStart = "postStart"
	// PreStop runs before the container gets SIGTERM.
	PreStop = "preStop"
)

// Get returns the hook's handler node, or nil.
func Get(container *yaml.RNode, name string) *yaml.RNode {
	n, err := tree.Lookup(container, "lifecycle", name)
	if err != nil || n == nil || n.IsNilOrEmpty() {
		return nil
	}
	return n
}

// Exec returns the hook's exec command, and whether the hook has one.
func Exec(container *yaml.RNode, name string) ([]string, bool) {
	h := Get(container, name)
	if h == nil {
		return nil, false
	}
	cmd, err := tree.Lookup(h, "exec", "command")
	if err != nil || cmd == nil || cmd.YNode().Kind != yaml.SequenceNode {
		return nil, false
	}
	return Strings(cmd), true
}

// Strings returns the scalar values of a sequence node.
func Strings(seq *yaml.RNode) []string {
	var out []string
	for _, n := range seq.YNode().Content {
		out = append(out, n.Value)
	}
	return out
}

// SleepAction returns the seconds of the hook's sleep action, if it has one.
func SleepAction(container *yaml.RNode, name string) (int64, bool) {
	h := Get(container, name)
	if h == nil {
		return 0, false
	}
	n, err := tree.Lookup(h, "sleep", "seconds")
	if err != nil || n == nil {
		return 0, false
	}
	s, err := strconv.ParseInt(yaml.GetValue(n), 10, 64)
	return s, err == nil
}

// SleepSeconds returns how long the hook sleeps when it is only a sleep: a
// sleep action, an exec of a sleep binary (`/bin/sleep 30`), or a shell running
// one (`sh -c "sleep 30"`).
func SleepSeconds(container *yaml.RNode, name string) (int64, bool) {
	if s, ok := SleepAction(container, name); ok {
		return s, true
	}
	cmd, ok := Exec(container, name)
	if !ok {
		return 0, false
	}
	return SleepCommandSeconds(cmd)
}

// SleepCommandSeconds returns the seconds of a command that only sleeps.
func SleepCommandSeconds(cmd []string) (int64, bool) {
	if len(cmd) == 3 && (path.Base(cmd[0]) == "sh" || path.Base(cmd[0]) == "bash") && cmd[1] == "-c" {
		cmd = strings.Fields(cmd[2])
	}
	if len(cmd) != 2 || path.Base(cmd[0]) != "sleep" {
		return 0, false
	}
	s, err := strconv.ParseInt(cmd[1], 10, 64)
	return s, err == nil && s >= 0
}

// StringList builds a block sequence of string scalars, quoted where needed.
func StringList(values ...string) *yaml.RNode {
	seq := yaml.NewListRNode()
	for _, v := range values {
		n := yaml.NewStringRNode(v).YNode()
		if !tree.PlainString(v) && yaml.IsYaml1_1NonString(n) {
			n.Style = yaml.DoubleQuotedStyle // "on", "no", "y": strings to every decoder
		}
		seq.YNode().Content = append(seq.YNode().Content, n)
	}
	return seq
}

// Int builds an integer scalar node.
func Int(n int64) *yaml.RNode {
	rn := yaml.NewScalarRNode(strconv.FormatInt(n, 10))
	rn.YNode().Tag = yaml.NodeTagInt
	return rn
}

// SetInt sets an integer field of a mapping, keeping the comments written on
// the value it replaces.
func SetInt(m *yaml.RNode, field string, n int64) error {
	if f := m.Field(field); f != nil && f.Value.YNode().Kind == yaml.ScalarNode {
		v := f.Value.YNode()
		v.Value, v.Tag, v.Style = strconv.FormatInt(n, 10), yaml.NodeTagInt, 0
		return nil
	}
	return m.PipeE(yaml.SetField(field, Int(n)))
}

// SetExec makes the hook an exec of cmd, replacing any other handler.
func SetExec(container *yaml.RNode, name string, cmd []string) error {
	exec := yaml.NewMapRNode(nil)
	if err := exec.PipeE(yaml.SetField("command", StringList(cmd...))); err != nil {
		return err
	}
	handler := yaml.NewMapRNode(nil)
	if err := handler.PipeE(yaml.SetField("exec", exec)); err != nil {
		return err
	}
	return set(container, name, handler)
}

// SetSleep makes the hook a sleep action of the given seconds.
func SetSleep(container *yaml.RNode, name string, seconds int64) error {
	sleep := yaml.NewMapRNode(nil)
	if err := sleep.PipeE(yaml.SetField("seconds", Int(seconds))); err != nil {
		return err
	}
	handler := yaml.NewMapRNode(nil)
	if err := handler.PipeE(yaml.SetField("sleep", sleep)); err != nil {
		return err
	}
	return set(container, name, handler)
}

func set(container *yaml.RNode, name string, handler *yaml.RNode) error {
	if old := Get(container, name); old != nil {
		// Keep the comments written on the old handler.
		handler.YNode().HeadComment = old.YNode().HeadComment
		handler.YNode().LineComment = old.YNode().LineComment
		handler.YNode().FootComment = old.YNode().FootComment
	}
	return container.PipeE(yaml.LookupCreate(yaml.MappingNode, "lifecycle"), yaml.SetField(name, handler))
}

// Remove deletes the hook, and the lifecycle field when nothing is left in it.
func Remove(container *yaml.RNode, name string) error {
	return RemoveField(container, "lifecycle", name)
}

// RemoveField deletes parent.field, and parent when it is left empty. The
// comments written on what is removed move to the entry that takes its
// place, or to the one before it, so that no comment is lost.
func RemoveField(container *yaml.RNode, parent, field string) error {
	p := container.Field(parent)
	if p == nil || p.Value.YNode().Kind != yaml.MappingNode {
		return nil
	}
	m := p.Value.YNode()
	comments, at := removeKey(m, field)
	if at < 0 {
		return nil
	}
	if len(m.Content) > 0 {
		attach(m, at, comments)
		return nil
	}
	more, at := removeKey(container.YNode(), parent)
	attach(container.YNode(), at, append(more, comments...))
	return nil
}

// removeKey deletes key from the mapping and returns every comment written on
// the entry, and the entry's index.
func removeKey(m *yaml.Node, key string) ([]string, int) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			comments := collect(m.Content[i+1], collect(m.Content[i], nil))
			m.Content = append(m.Content[:i:i], m.Content[i+2:]...)
			return comments, i
		}
	}
	return nil, -1
}

func collect(n *yaml.Node, out []string) []string {
	for _, c := range []string{n.HeadComment, n.LineComment, n.FootComment} {
		if c != "" {
			out = append(out, c)
		}
	}
	for _, k := range n.Content {
		out = collect(k, out)
	}
	return out
}

// attach writes comments above the mapping entry at index at, or below the
// last entry when at is past the end, or on the mapping when it is empty.
func attach(m *yaml.Node, at int, comments []string) {
	if len(comments) == 0 {
		return
	}
	text := strings.Join(comments, "\n")
	switch {
	case at < len(m.Content):
		m.Content[at].HeadComment = strings.TrimSpace(text + "\n" + m.Content[at].HeadComment)
	case len(m.Content) >= 2:
		last := m.Content[len(m.Content)-2]
		last.FootComment = strings.TrimSpace(last.FootComment + "\n" + text)
	default:
		m.FootComment = strings.TrimSpace(m.FootComment + "\n" + text)
	}
}

// Equal reports whether two argv lists are the same.
func Equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
