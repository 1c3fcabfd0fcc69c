// Package tables renders the built-in catalog as Markdown: the compact
// table of README.md, in docs/catalog.md the same table followed by every
// fact of every entry with the source it was read in, then the load
// balancers' facts with theirs, and in docs/configuration.md a sidecar's
// defaults per preset and the fields kubelets serve from some version on.
package tables

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/budget"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/deadline"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/kubelet"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
)

// The lines between which a page holds its generated catalog table.
const (
	Begin = "<!-- BEGIN catalog table (generated) -->"
	End   = "<!-- END catalog table -->"
)

// The lines between which docs/configuration.md holds its generated table
// of a sidecar's defaults per preset.
const (
	DefaultsBegin = "<!-- BEGIN defaults table (generated) -->"
	DefaultsEnd   = "<!-- END defaults table -->"
)

// Page is a documentation page with its generated tables rewritten.
type Page struct {
	// Path is the page's path from the repository's root, slash-separated.
	Path string
	// Text is the whole page.
	Text []byte
}

// block is a generated part of a page: the lines around it, and what goes
// between them.
type block struct {
	begin, end string
	render     func([]preset.Entry) (string, error)
}

// pages are the pages that hold generated tables, and what goes in each.
var pages = []struct {
	path   string
	blocks []block
}{
	{"README.md", []block{{Begin, End, func(entries []preset.Entry) (string, error) { return Table(entries), nil }}}},
	{"docs/catalog.md", []block{{Begin, End, func(entries []preset.Entry) (string, error) {
		catalog, err := Catalog(entries)
		if err != nil {
			return "", err
		}
		lbs, err := LoadBalancers(budget.LoadBalancers())
		return catalog + "\n" + lbs, err
	}}}},
	{"docs/configuration.md", []block{
		{DefaultsBegin, DefaultsEnd, func([]preset.Entry) (string, error) { return Defaults(preset.Names()) }},
		{KubeletBegin, KubeletEnd, func([]preset.Entry) (string, error) { return Kubelets(kubelet.Catalog()) }},
		{DeadlinesBegin, DeadlinesEnd, func([]preset.Entry) (string, error) { return NodeDeadlines(deadline.Data()) }},
	}},
}

// Generate returns every page that holds a generated table, read under
// root, with the text between each pair of markers rendered from the
// built-in catalog and the config's defaults.
func Generate(root string) ([]Page, error) {
	var out []Page
	for _, p := range pages {
		old, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p.path)))
		if err != nil {
			return nil, err
		}
		text := string(old)
		for _, b := range p.blocks {
			rendered, err := b.render(preset.Builtin())
			if err != nil {
				return nil, fmt.Errorf("%s: %v", p.path, err)
			}
			if text, err = Replace(text, b.begin, b.end, rendered); err != nil {
				return nil, fmt.Errorf("%s: %v", p.path, err)
			}
		}
		out = append(out, Page{Path: p.path, Text: []byte(text)})
	}
	return out, nil
}

// Replace puts block, between blank lines, in place of what text holds
// between the lines begin and end.
func Replace(text, begin, end, block string) (string, error) {
	if n := strings.Count(text, begin+"\n"); n != 1 {
		return "", fmt.Errorf("%d lines %q, want one", n, begin)
	}
	start := strings.Index(text, begin+"\n") + len(begin) + 1
	stop := strings.Index(text[start:], end+"\n")
	if stop < 0 {
		return "", fmt.Errorf("no line %q after %q", end, begin)
	}
	return text[:start] + "\n" + block + "\n" + text[start+stop:], nil
}

// Table renders the catalog table: one row an entry.
func Table(entries []preset.Entry) string {
	var b strings.Builder
	b.WriteString("| preset | title | recognised by | ordered: `postStart` | native: `startupProbe` | exit delayed by | native by default |\n")
	b.WriteString("| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, e := range entries {
		row := []string{code(e.Name), e.Title, recognisedBy(e), orderedWait(e), nativeProbe(e), exitDelays(e), nativeDefault(e)}
		for i := range row {
			row[i] = cell(row[i])
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	return b.String()
}

// Catalog renders the catalog table followed by one section an entry,
// which lists its facts with their sources.
func Catalog(entries []preset.Entry) (string, error) {
	var b strings.Builder
	b.WriteString(Table(entries))
	for _, e := range entries {
		s, err := section(e)
		if err != nil {
			return "", fmt.Errorf("%s: %v", e.Name, err)
		}
		b.WriteString("\n" + s)
	}
	return b.String(), nil
}

// cell makes a text fit in a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\n", " "), "|", `\|`)
}

// code is s as a Markdown code span.
func code(s string) string {
	if strings.Contains(s, "`") {
		return "`` " + s + " ``"
	}
	return "`" + s + "`"
}

// argv is a command as one line, arguments with spaces quoted.
func argv(cmd []string) string {
	args := make([]string, len(cmd))
	for i, a := range cmd {
		args[i] = a
		if a == "" || strings.ContainsAny(a, " \t\"'") {
			args[i] = fmt.Sprintf("%q", a)
		}
	}
	return strings.Join(args, " ")
}

// plural is "name `a`" or "names `a`, `b`".
func plural(one, many string, items []string) string {
	if len(items) == 1 {
		return one + " " + code(items[0])
	}
	spans := make([]string, len(items))
	for i, it := range items {
		spans[i] = code(it)
	}
	return many + " " + strings.Join(spans, ", ")
}

// recognisedBy says what recognises the entry's sidecar: its container
// names, its image patterns, and the switches that make its injector add it.
func recognisedBy(e preset.Entry) string {
	var parts []string
	if len(e.Containers) > 0 {
		var names []string
		for _, c := range e.Containers {
			names = append(names, c.Name)
		}
		parts = append(parts, plural("container", "containers", names))
	}
	if len(e.Images) > 0 {
		var patterns []string
		for _, im := range e.Images {
			patterns = append(patterns, im.Pattern)
		}
		parts = append(parts, plural("image", "images", patterns))
	}
	if e.Injector != nil && len(e.Injector.Enabled) > 0 {
		parts = append(parts, "injected with "+switches(e.Injector.Enabled))
	}
	return strings.Join(parts, "; ")
}

// switches says which switches set something, any one of them enough;
// consecutive switches on the same key are one, with their values.
func switches(list []preset.SwitchFact) string {
	var groups []string
	for i := 0; i < len(list); {
		s := list[i]
		values := []string{s.Value}
		for i++; i < len(list) && sameKey(list[i], s); i++ {
			values = append(values, list[i].Value)
		}
		groups = append(groups, switchText(s, values...))
	}
	return strings.Join(groups, " or ")
}

// sameKey reports whether two switches are read from the same place.
func sameKey(a, b preset.SwitchFact) bool {
	return a.Annotation == b.Annotation && a.Label == b.Label && a.Field == b.Field && a.Namespace == b.Namespace
}

// switchText is one switch, or several on the same key: its kind, key,
// field and values, and where it is read.
func switchText(s preset.SwitchFact, values ...string) string {
	kind, key := "annotation", s.Annotation
	if s.Label != "" {
		kind, key = "label", s.Label
	}
	text := kind + " " + code(key+": "+quote(values[0]))
	if s.Field != "" {
		text = kind + " " + code(key) + " with " + code(s.Field+": "+quote(values[0]))
	}
	for _, v := range values[1:] {
		text += " or " + code(quote(v))
	}
	if s.Namespace {
		text += " (pod or Namespace)"
	}
	return text
}

// quote is a switch's value as a quoted YAML string.
func quote(v string) string {
	return fmt.Sprintf("%q", v)
}

// orderedWait is ordered mode's postStart: the entry's wait command.
func orderedWait(e preset.Entry) string {
	if e.Ready == nil || e.Ready.Wait == nil {
		return "none"
	}
	text := code(argv(e.Ready.Wait.Command))
	if fitted(e.Ready) {
		text += " (fitted to the container's flags)"
	}
	return text
}

// nativeProbe is native mode's startupProbe.
func nativeProbe(e preset.Entry) string {
	if e.Ready == nil || e.Ready.StartupProbe == nil || e.Ready.StartupProbe.Probe == nil {
		return "none"
	}
	text := probe(e.Ready.StartupProbe.Probe)
	if fitted(e.Ready) {
		text += " (fitted to the container's flags)"
	}
	return text
}

// fitted reports whether the entry says how to switch its readiness
// endpoint on: the function then fits the wait command and the probe to
// each container's settings.
func fitted(r *preset.Ready) bool {
	return r.Endpoint != nil && r.Endpoint.Switch != nil
}

// probe is a probe in one line: its handler, then its timings.
func probe(p *corev1.Probe) string {
	var parts []string
	switch h := p.ProbeHandler; {
	case h.HTTPGet != nil:
		parts = append(parts, "httpGet "+code(h.HTTPGet.Path)+" :"+h.HTTPGet.Port.String())
	case h.Exec != nil:
		parts = append(parts, "exec "+code(argv(h.Exec.Command)))
	case h.TCPSocket != nil:
		parts = append(parts, "tcpSocket :"+h.TCPSocket.Port.String())
	case h.GRPC != nil:
		parts = append(parts, fmt.Sprintf("grpc :%d", h.GRPC.Port))
	}
	for _, t := range []struct {
		name  string
		value int32
	}{
		{"initialDelay", p.InitialDelaySeconds},
		{"period", p.PeriodSeconds},
		{"timeout", p.TimeoutSeconds},
		{"failureThreshold", p.FailureThreshold},
	} {
		if t.value != 0 {
			parts = append(parts, fmt.Sprintf("%s %d", t.name, t.value))
		}
	}
	return strings.Join(parts, ", ")
}

// exitDelays says what delays the sidecar's exit: the preStop sleep the
// function writes, and the sidecar's own settings.
func exitDelays(e preset.Entry) string {
	text := "sleep action only (no sleep in the image)"
	if sleep := preset.Of(e).SleepCommand; sleep != nil {
		text = "sleep action, else " + code(argv(sleep)+" N")
	}
	if e.Exit == nil || len(e.Exit.Delays) == 0 {
		return text
	}
	var own []string
	for _, d := range e.Exit.Delays {
		own = append(own, setting(d)+defaultText(d))
	}
	return text + "; its own " + strings.Join(own, ", ")
}

// setting names where an exit setting is read.
func setting(d preset.Delay) string {
	text := "env " + code(d.Env)
	if d.Annotation != "" {
		text = code(d.Annotation)
	}
	if d.Field != "" {
		text += " field " + code(d.Field)
	}
	return text
}

// defaultText is an exit setting's default, in parentheses.
func defaultText(d preset.Delay) string {
	if d.Default == "" {
		return ""
	}
	return " (default " + d.Default + ")"
}

// nativeDefault says whether the injector writes native sidecars by default.
func nativeDefault(e preset.Entry) string {
	switch {
	case e.Injector == nil:
		return "no injector"
	case e.Injector.Native == nil || e.Injector.Native.Default == nil:
		return "no"
	}
	return since(*e.Injector.Native.Default)
}

// since is "since V on Kubernetes ≥ K".
func since(s preset.Since) string {
	var parts []string
	if s.Version != "" {
		parts = append(parts, "since "+s.Version)
	}
	if s.Kubernetes != "" {
		parts = append(parts, "on Kubernetes ≥ "+s.Kubernetes)
	}
	if len(parts) == 0 {
		return "yes"
	}
	return strings.Join(parts, ", ")
}
