package preset

import (
	"slices"
)

// all returns every preset in the start order an empty config applies them:
// the mesh proxies first, which carry the other sidecars' traffic, then the
// other entries of the catalog by name; none, which has no container, last.
// Adding a sidecar kind is adding its file to transformer/config/catalog/. It is a function so
// that callers cannot share mutable values.
func all() []Preset {
	var meshes, others []Preset
	for _, e := range Builtin() {
		p := Of(e)
		if p.Mesh {
			meshes = append(meshes, p)
		} else {
			others = append(others, p)
		}
	}
	return append(append(meshes, others...), none())
}

// none is the preset of a sidecar the catalog does not know.
func none() Preset { return Preset{Name: None, SleepCommand: DefaultSleepCommand} }

// Of returns what the engine asks of the entry's sidecar.
func Of(e Entry) Preset {
	p := Preset{Name: e.Name, Title: e.Title, Mesh: e.Mesh, Ready: e.Ready, SleepCommand: DefaultSleepCommand, LeaveAlone: slices.Clone(e.LeaveAlone)}
	for _, c := range e.Containers {
		p.Containers = append(p.Containers, c.Name)
	}
	if len(p.Containers) > 0 {
		p.Container = p.Containers[0]
	}
	for _, im := range e.Images {
		p.Images = append(p.Images, im.Pattern)
	}
	for _, c := range e.InitContainers {
		p.InitContainers = append(p.InitContainers, c.Name)
	}
	if r := e.Ready; r != nil {
		if r.Wait != nil {
			p.WaitCommand = slices.Clone(r.Wait.Command)
		}
		if r.StartupProbe != nil && r.StartupProbe.Probe != nil {
			p.StartupProbe = r.StartupProbe.Probe.DeepCopy()
		}
	}
	if e.Image != nil {
		p.SleepCommand = slices.Clone(e.Image.Sleep)
		p.NoShell = !e.Image.Shell
		p.ShellTags, p.NoShellTags = slices.Clone(e.Image.ShellTags), slices.Clone(e.Image.NoShellTags)
	}
	if x := e.Exit; x != nil {
		p.NoSleep = x.NoSleep
		p.ExitDelays = slices.Clone(x.Delays)
		if x.NativePreStop != nil {
			p.NativePreStop = slices.Clone(x.NativePreStop.Command)
			p.NativePreStopArg = x.NativePreStop.ArgAnnotation
		}
	}
	if inj := e.Injector; inj != nil {
		p.Injector = &Injector{
			Enabled:     switches(inj.Enabled),
			Disabled:    switches(inj.Disabled),
			OptOuts:     switches(inj.OptOuts),
			Dialect:     inj.Annotate,
			Annotations: inj.Annotations,
			Ordering:    inj.Ordering,
			Webhooks:    inj.Webhooks,
			Refuses:     inj.Refuses,
		}
		if inj.Record != nil {
			p.Injector.Record = inj.Record.Annotation
		}
		if n := inj.Native; n != nil {
			p.Injector.Native = NativeSwitch{Keys: slices.Clone(n.Keys), Boolean: n.Boolean, Default: n.Default, NoStartupProbe: n.NoStartupProbe}
		}
	}
	return p
}

// switches converts an entry's switches.
func switches(facts []SwitchFact) []Switch {
	var out []Switch
	for _, f := range facts {
		s := Switch{Key: f.Annotation, Field: f.Field, Value: f.Value, Namespace: f.Namespace, UnlessLabel: f.UnlessLabel}
		if f.Label != "" {
			s.Label, s.Key = true, f.Label
		}
		out = append(out, s)
	}
	return out
}
