package tables

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
)

// fact is one line of an entry's section: what the catalog states, and
// the entry's source for it ("<key> <where>"; empty when the fact is the
// function's own).
type fact struct {
	text, source string
}

// section renders an entry's facts, each with its source cited as
// "repository@version where".
func section(e preset.Entry) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n%s.", code(e.Name), e.Title)
	if e.Mesh {
		b.WriteString(" A mesh proxy: it starts before every other sidecar.")
	}
	b.WriteString("\n\n")
	for _, f := range facts(e) {
		line := "- " + f.text
		if f.source != "" {
			c, err := cite(e.Sources, f.source)
			if err != nil {
				return "", err
			}
			line += " — " + c
		}
		b.WriteString(line + "\n")
	}
	return b.String(), nil
}

// cite renders a source as link-free citations, "; " between them: each
// "<key> <where>" becomes "repository@version where"; a part that does not
// start with a key goes on with the citation before it.
func cite(sources map[string]preset.Source, source string) (string, error) {
	var cites []string
	for i, part := range strings.Split(source, "; ") {
		key, where, _ := strings.Cut(part, " ")
		s, ok := sources[key]
		switch {
		case ok:
			cites = append(cites, s.Repository+"@"+s.Version+" "+where)
		case i == 0:
			return "", fmt.Errorf("source %q names no entry of sources", source)
		default:
			cites[len(cites)-1] += "; " + part
		}
	}
	for i, c := range cites {
		cites[i] = code(c)
	}
	return strings.Join(cites, "; "), nil
}

// facts lists every fact of an entry, in the order of the entry's file.
func facts(e preset.Entry) []fact {
	var list []fact
	for i, c := range e.Containers {
		text := "container " + code(c.Name)
		if i == 0 {
			text += ", its default name"
		}
		list = append(list, fact{text, c.Source})
	}
	for _, im := range e.Images {
		list = append(list, fact{"image " + code(im.Pattern) + ", any tag or digest", im.Source})
	}
	for _, c := range e.InitContainers {
		list = append(list, fact{"init container " + code(c.Name) + ", which runs before it", c.Source})
	}
	list = append(list, readyFacts(e.Ready)...)
	if im := e.Image; im != nil {
		list = append(list, fact{imageText(*im), im.Source})
	}
	list = append(list, exitFacts(e.Exit)...)
	list = append(list, injectorFacts(e.Injector)...)
	return list
}

// readyFacts are how the sidecar tells it is ready.
func readyFacts(r *preset.Ready) []fact {
	if r == nil {
		return nil
	}
	list := formFacts("", r.Endpoint, r.Wait, r.StartupProbe)
	for _, v := range r.Variants {
		lead := code(v.Name) + ": "
		for _, im := range v.Images {
			list = append(list, fact{lead + "recognised by the image " + code(im.Pattern) + ", any tag or digest", im.Source})
		}
		for _, prog := range v.Programs {
			list = append(list, fact{lead + "recognised by the program " + code(prog.Name), prog.Source})
		}
		list = append(list, formFacts(lead, v.Endpoint, v.Wait, v.StartupProbe)...)
		if v.Wait == nil {
			list = append(list, fact{lead + "no wait command", ""})
		}
	}
	return list
}

// formFacts are how one form of the sidecar tells it is ready, each line
// starting with lead.
func formFacts(lead string, ep *preset.Endpoint, w *preset.Wait, p *preset.ProbeFact) []fact {
	var list []fact
	if ep != nil {
		list = append(list, fact{lead + endpointText(*ep), ep.Source})
		if sw := ep.Switch; sw != nil {
			list = append(list, switchFacts(lead, *sw)...)
		}
	}
	if w != nil {
		text := "wait, ordered mode's postStart: " + code(argv(w.Command))
		if w.PortFlag != "" {
			text += ", told the port with " + code("--"+w.PortFlag)
		}
		if w.AddressFlag != "" {
			text += " and the address with " + code("--"+w.AddressFlag)
		}
		if w.Since != "" {
			text += ", since " + w.Since
		}
		list = append(list, fact{lead + text, w.Source})
	}
	if p != nil && p.Probe != nil {
		list = append(list, fact{lead + "startupProbe in native mode: " + probe(p.Probe), p.Source})
	}
	return list
}

// switchFacts are the settings of a readiness endpoint that the function
// reads and writes.
func switchFacts(lead string, sw preset.EndpointSwitch) []fact {
	text := "its settings are read as " + code(sw.Flags) + " reads flags"
	if len(sw.BoolFlags) > 0 {
		text += ", with the boolean flags " + code(strings.Join(sw.BoolFlags, ", "))
	}
	if sw.ConfigFile != "" {
		text += "; " + code(sw.Dashes()+sw.ConfigFile) + " names a file of settings the function cannot read"
	}
	if sw.As != "" {
		text += "; the function switches the endpoint on as " + sw.As + " does"
	}
	list := []fact{{lead + text, sw.Source}}
	if e := sw.Env; e != nil {
		list = append(list, fact{lead + "a flag not given is read from the variable " + code(e.Prefix+"_") + " and the flag in upper case, " + code("_") + " for " + code("-") + sinceText(e.Since), e.Source})
	}
	for _, s := range []struct {
		what string
		set  *preset.Setting
	}{{"switched on with ", &sw.On}, {"bound with ", sw.Address}, {"port set with ", sw.Port}} {
		if s.set == nil {
			continue
		}
		text := s.what + code(sw.Dashes()+s.set.Flag)
		if s.set.Env != "" {
			text += " or " + code(s.set.Env)
		}
		text += sinceText(s.set.Since)
		if s.set == sw.Address {
			text += "; the function writes " + code(sw.Reachable) + " there for kubelet's probes"
		}
		list = append(list, fact{lead + text, s.set.Source})
	}
	return list
}

// sinceText is ", since <version>", empty when the version is.
func sinceText(v string) string {
	if v == "" {
		return ""
	}
	return ", since " + v
}

// endpointText describes a readiness endpoint.
func endpointText(ep preset.Endpoint) string {
	text := "readiness endpoint " + code(ep.Path)
	if ep.Port != 0 {
		text += fmt.Sprintf(" on port %d", ep.Port)
	}
	if ep.Address == "" {
		text += ", every interface"
	} else {
		text += ", bound to " + code(ep.Address)
	}
	if ep.On {
		return text + ", served by default"
	}
	return text + ", served only when switched on"
}

// imageText says what the sidecar's image holds.
func imageText(im preset.ImageFacts) string {
	text := "image: no shell"
	if im.Shell {
		text = "image: a shell"
	}
	if len(im.Sleep) == 0 {
		return text + ", no sleep"
	}
	return text + ", sleep " + code(argv(im.Sleep))
}

// exitFacts are how the sidecar stops.
func exitFacts(x *preset.Exit) []fact {
	if x == nil {
		return nil
	}
	var list []fact
	if x.SIGTERM != "" {
		list = append(list, fact{"on SIGTERM: " + x.SIGTERM, x.Source})
	}
	for _, d := range x.Delays {
		text := "exit setting " + setting(d) + defaultText(d)
		if d.Format != "" {
			text += ", written as " + formatText(d.Format)
		}
		list = append(list, fact{text, d.Source})
	}
	if x.NoSleep != "" {
		list = append(list, fact{"instead of a preStop sleep: " + x.NoSleep, x.Source})
	}
	if p := x.NativePreStop; p != nil {
		text := "its injector's preStop on a native sidecar: " + code(argv(p.Command))
		if a := p.ArgAnnotation; a != nil {
			text += ", " + code(a.Prefix) + " taken from the annotation " + code(a.Annotation)
		}
		list = append(list, fact{text, p.Source})
	}
	return list
}

// formatText names a delay format.
func formatText(format string) string {
	if format == preset.FormatSeconds {
		return `seconds ("30")`
	}
	return `a duration ("30s")`
}

// injectorFacts are the admission webhook that adds the sidecar.
func injectorFacts(inj *preset.InjectorFacts) []fact {
	if inj == nil {
		return []fact{{"no injector adds it: it is written in the pod template", ""}}
	}
	var list []fact
	for _, groups := range []struct {
		lead string
		list []preset.SwitchFact
	}{
		{"injected with ", inj.Enabled},
		{"not injected with ", inj.Disabled},
		{"ordering turned off by the workload with ", inj.OptOuts},
	} {
		for _, s := range groups.list {
			list = append(list, fact{groups.lead + switchText(s, s.Value), s.Source})
		}
	}
	if n := inj.Native; n != nil {
		list = append(list, fact{nativeText(*n), n.Source})
	}
	if inj.Annotate != "" {
		list = append(list, fact{"the function annotates the pod template in the " + code(string(inj.Annotate)) + " dialect", ""})
	}
	if a := inj.Annotations; a != nil {
		list = append(list, fact{annotationsText(*a), a.Source})
	}
	if r := inj.Record; r != nil {
		list = append(list, fact{"the injector lists the containers it added in annotation " + code(r.Annotation) + ", which the function keeps true to a proxy made native", r.Source})
	}
	if inj.Ordering != "" {
		list = append(list, fact{"what its injector offers to order it: " + inj.Ordering, inj.Source})
	}
	for _, w := range inj.Webhooks {
		text := "its webhook " + code(w.Name) + " sees a pod whose Namespace matches " + selectorText(w.NamespaceSelector) + " and whose labels match " + selectorText(w.ObjectSelector)
		if w.Values != "" {
			text += "; chart values that change it: " + w.Values
		}
		list = append(list, fact{text, w.Source})
	}
	for _, r := range inj.Refuses {
		var what []string
		if r.HostNetwork {
			what = append(what, "a pod with hostNetwork")
		}
		if len(r.Namespaces) > 0 {
			what = append(what, "a pod in Namespace "+strings.Join(r.Namespaces, ", "))
		}
		if len(r.Containers) > 0 {
			what = append(what, "a pod with a container or init container named "+strings.Join(r.Containers, ", "))
		}
		if len(r.Images) > 0 {
			what = append(what, "a pod with a container or init container whose image starts with "+strings.Join(r.Images, ", "))
		}
		if len(r.InitContainers) > 0 {
			what = append(what, "a pod with an init container named "+strings.Join(r.InitContainers, ", "))
		}
		if len(r.InitImages) > 0 {
			what = append(what, "a pod with an init container whose image starts with "+strings.Join(r.InitImages, ", "))
		}
		for _, k := range slices.Sorted(maps.Keys(r.Labels)) {
			what = append(what, "a pod labelled "+keyValueText(k, r.Labels[k]))
		}
		for _, k := range slices.Sorted(maps.Keys(r.Annotations)) {
			what = append(what, "a pod annotated "+keyValueText(k, r.Annotations[k]))
		}
		if x := r.Invalid; x != nil {
			where := "a pod"
			if x.Namespace {
				where += " or its Namespace"
			}
			what = append(what, where+" annotated "+code(x.Annotation)+" with a value other than "+strings.Join(x.Values, ", "))
		}
		list = append(list, fact{"its injector refuses " + strings.Join(what, " or ") + ", whatever the switches say: " + r.Says, r.Source})
	}
	return list
}

// selectorText writes a label selector as its requirements.
func selectorText(s *preset.SelectorFact) string {
	if s == nil {
		return "anything"
	}
	var reqs []string
	keys := make([]string, 0, len(s.MatchLabels))
	for k := range s.MatchLabels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		reqs = append(reqs, code(k+"="+s.MatchLabels[k]))
	}
	for _, e := range s.MatchExpressions {
		r := e.Key + " " + e.Operator
		if len(e.Values) > 0 {
			r += " (" + strings.Join(e.Values, ", ") + ")"
		}
		reqs = append(reqs, code(r))
	}
	if len(reqs) == 0 {
		return "anything"
	}
	return strings.Join(reqs, ", ")
}

// nativeText describes the injector's native sidecar switch.
func nativeText(n preset.NativeFact) string {
	text := "no per-workload native sidecar switch"
	if len(n.Keys) > 0 {
		text = plural("native sidecar switch: annotation", "native sidecar switch: annotations, read in this order,", n.Keys)
		if n.Boolean {
			text += ", read as a boolean"
		} else {
			text += `, off only with "false"`
		}
	}
	if n.NoStartupProbe {
		text += "; the native sidecar it writes has no startupProbe"
	}
	if n.Default == nil {
		return text + "; native sidecars are off by default"
	}
	return text + "; native sidecars by default " + since(*n.Default)
}

// inField is an annotation's key, followed by the field of its value when
// the value is a mapping.
func inField(key, field string) string {
	if field == "" {
		return key
	}
	return key + " " + field
}

// annotationsText lists the annotations the function writes for an
// injector.
func annotationsText(a preset.Annotations) string {
	var parts []string
	for _, kv := range a.Ordered {
		parts = append(parts, "ordered "+code(inField(kv.Key, kv.Field)+": "+quote(kv.Value)))
	}
	if d := a.ExitDelay; d != nil {
		parts = append(parts, "the exit delay in "+code(inField(d.Key, d.Field))+", as "+formatText(d.Format))
	}
	if kv := a.Native; kv != nil {
		parts = append(parts, "native "+code(kv.Key+": "+quote(kv.Value)))
	}
	return "annotations the function writes: " + strings.Join(parts, "; ")
}

// keyValueText is a label or annotation with its value, "*" for any value.
func keyValueText(key, value string) string {
	if value == "*" {
		return code(key) + " (any value)"
	}
	return code(key + ": " + value)
}
