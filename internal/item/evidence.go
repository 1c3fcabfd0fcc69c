package item

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/podspec"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
)

// podContainer is what recognition reads of one container of a pod to
// tell a sidecar from the application it would serve.
type podContainer struct {
	name, image string
	// named: the name is a scalar (a container with none is not recognised).
	named bool
	// byName and byImage are the config's entries whose presets recognise
	// it by its name, and by its image only (see Editor.readPod).
	byName, byImage []int
	// regular: in containers, not initContainers.
	regular bool
	// always: an init container with restartPolicy Always (a native sidecar).
	always bool
	// ports are the ports it declares, by number and by name.
	ports []string
	// hostPorts are the host ports it binds.
	hostPorts []string
	// hookPorts are the ports its postStart and preStop hooks call.
	hookPorts []string
	// probePorts are the ports its probes call: ports it serves.
	probePorts []string
	// mounts are its volume mounts, by volume name: true when writable.
	mounts map[string]bool
	// env are its environment variables.
	env []preset.Env
}

// readContainers reads the containers and init containers of a pod spec.
func readContainers(spec *yaml.RNode) []podContainer {
	var out []podContainer
	for _, field := range []string{podspec.InitContainers, podspec.Containers} {
		list := podspec.List(spec, field)
		if list == nil {
			continue
		}
		for _, n := range list.YNode().Content {
			if n.Kind != yaml.MappingNode {
				continue
			}
			name := tree.Value(n, "name")
			c := podContainer{name: scalar(n, "name"), named: name != nil && name.Kind == yaml.ScalarNode, image: text(tree.Value(n, "image")), regular: field == podspec.Containers,
				always: field == podspec.InitContainers && scalar(n, "restartPolicy") == "Always", mounts: map[string]bool{}}
			for _, p := range seq(n, "ports") {
				c.ports = appendNonEmpty(c.ports, scalar(p, "containerPort"), scalar(p, "name"))
				c.hostPorts = appendNonEmpty(c.hostPorts, scalar(p, "hostPort"))
			}
			if lc := tree.Value(n, "lifecycle"); lc != nil {
				for _, hook := range []string{"postStart", "preStop"} {
					c.hookPorts = appendNonEmpty(c.hookPorts, handlerPort(tree.Value(lc, hook)))
				}
			}
			for _, probe := range []string{"readinessProbe", "livenessProbe", "startupProbe"} {
				c.probePorts = appendNonEmpty(c.probePorts, handlerPort(tree.Value(n, probe)))
			}
			for _, m := range seq(n, "volumeMounts") {
				c.mounts[scalar(m, "name")] = scalar(m, "readOnly") != "true"
			}
			for _, e := range seq(n, "env") {
				c.env = append(c.env, preset.Env{Container: c.name, Name: scalar(e, "name"), Value: scalar(e, "value")})
			}
			out = append(out, c)
		}
	}
	return out
}

// handlerPort is the port an httpGet, tcpSocket or grpc handler calls.
func handlerPort(h *yaml.Node) string {
	for _, kind := range []string{"httpGet", "tcpSocket", "grpc"} {
		if a := tree.Value(h, kind); a != nil {
			return scalar(a, "port")
		}
	}
	return ""
}

// serves reports whether the container serves the port: it declares it,
// or its own probes call it.
func (c podContainer) serves(port string) bool {
	return port != "" && (slices.Contains(c.ports, port) || slices.Contains(c.probePorts, port))
}

// helps reports whether the container is a helper of the candidate: the
// candidate's own hooks call a port it serves (Contour's and Envoy
// Gateway's shutdown-manager, which holds Envoy's preStop until it has
// drained).
func (c podContainer) helps(candidate podContainer) bool {
	for _, p := range candidate.hookPorts {
		if c.serves(p) && !candidate.serves(p) {
			return true
		}
	}
	return false
}

// candidate is one container of the pod that a sidecar of the plan names.
type candidate struct {
	podContainer
	// plan is its index in plan.sidecars.
	plan int
	// judged: the container was recognised by its preset's names or
	// images, not named by the config, so evidence that it is the pod's
	// application can overrule the recognition.
	judged bool
}

// judge reaches the plan's verdict on the pod, once, for every later step:
// a recognised container that is the pod's application, not a sidecar
// of it, leaves the plan's sidecars; a vendor's own word, or evidence that
// conflicts, leaves the whole pod as it is (plan.leave, plan.conflict).
func judge(view *Pod, p *plan) {
	spec := view.spec
	if spec == nil || len(p.sidecars) == 0 {
		return
	}
	pod := view.containers
	var cands []candidate
	for i, sc := range p.sidecars {
		if sc.admitted {
			continue
		}
		for _, c := range pod {
			if c.name == sc.Name && (c.regular || c.always) {
				cands = append(cands, candidate{podContainer: c, plan: i, judged: sc.byPreset})
			}
		}
	}
	isCand := func(name string) bool {
		return slices.ContainsFunc(cands, func(c candidate) bool { return c.name == name })
	}
	ownInit := preset.MeshInitContainers()
	for _, sc := range p.sidecars {
		ownInit = append(ownInit, sc.preset.InitContainers...)
	}
	// Pass one: a container with no application beside it (every other
	// container is a sidecar or its own helper) is the application.
	apps := map[string]bool{}
	for _, c := range cands {
		if c.judged && len(others(pod, c.podContainer, isCand, nil, ownInit)) == 0 {
			apps[c.name] = true
		}
	}
	// Pass two: evidence that a container serving an application is the
	// pod's purpose all the same conflicts.
	var conflicts []string
	for _, c := range cands {
		if !c.judged || apps[c.name] {
			continue
		}
		if ev := purpose(view, c, ownInit); len(ev) > 0 {
			beside := others(pod, c.podContainer, isCand, apps, ownInit)
			conflicts = append(conflicts, fmt.Sprintf("%s (%s) is recognised as a sidecar of %s, but %s",
				c.name, p.sidecars[c.plan].preset.Name, quoteNames(beside), strings.Join(ev, ", and ")))
		}
	}
	var words []string
	seen := map[string]bool{}
	env := podEnv(pod)
	for _, sc := range p.sidecars {
		if apps[sc.Name] || seen[sc.preset.Name] || !(sc.admitted || isCand(sc.Name)) {
			continue
		}
		seen[sc.preset.Name] = true
		for _, word := range sc.preset.LeftAlone(view, env) {
			words = append(words, fmt.Sprintf("%s (%s): %s", sc.Name, sc.preset.Name, word))
		}
	}
	switch {
	case len(conflicts) > 0:
		p.conflict = strings.Join(conflicts, "; ")
	case len(words) > 0:
		p.leave = strings.Join(words, "; ")
	}
	if len(apps) == 0 {
		return
	}
	kept := p.sidecars[:0]
	for _, sc := range p.sidecars {
		if sc.admitted || !apps[sc.Name] {
			kept = append(kept, sc)
			continue
		}
		p.applications = append(p.applications, sc.Name)
	}
	p.sidecars = kept
}

// others are the regular containers beside c that could be the
// application it serves: not a sidecar of the plan (unless one of apps,
// found to be an application) and not a helper of c.
func others(pod []podContainer, c podContainer, isCand func(string) bool, apps map[string]bool, ownInit []string) []string {
	prep := preparers(pod, c, ownInit)
	var out []string
	for _, o := range pod {
		if !o.regular || o.name == c.name || (isCand(o.name) && !apps[o.name]) || o.helps(c) || slices.Contains(prep, preset.ImageRepository(o.image)) {
			continue
		}
		out = append(out, o.name)
	}
	return out
}

// preparers are the image repositories of the init containers that
// prepare c (see prepares); a container of the same image is a helper of
// c, from the same vendor (Contour's shutdown-manager beside Envoy).
func preparers(pod []podContainer, c podContainer, ownInit []string) []string {
	var out []string
	for _, init := range pod {
		if len(prepares(pod, init, c, ownInit)) > 0 && init.image != "" {
			out = append(out, preset.ImageRepository(init.image))
		}
	}
	return out
}

// prepares lists the volumes the init container writes that only c reads;
// none for a container that is not a plain init container, or is one of
// the sidecar vendors' own (ownInit: linkerd-init, istio-init), which
// prepare their sidecars.
func prepares(pod []podContainer, init, c podContainer, ownInit []string) []string {
	if init.regular || init.always || slices.Contains(ownInit, init.name) {
		return nil
	}
	var out []string
	for _, vol := range slices.Sorted(maps.Keys(init.mounts)) {
		if r := readers(pod, vol); init.mounts[vol] && len(r) == 1 && r[0] == c.name {
			out = append(out, vol)
		}
	}
	return out
}

// purpose lists the evidence that the candidate is the pod's purpose
// rather than a sidecar of it: the workload is named for it, it binds the
// node's ports, or an init container of another vendor prepares a volume
// only it reads (ownInit are the sidecar vendors' own init containers,
// which prepare their sidecars), or its own hooks call a helper.
func purpose(view *Pod, c candidate, ownInit []string) []string {
	spec, pod := view.spec, view.containers
	var ev []string
	if s := namedFor(view, c.name); s != "" {
		ev = append(ev, s)
	}
	if len(c.hostPorts) > 0 {
		ev = append(ev, fmt.Sprintf("it binds the node's ports %s", strings.Join(c.hostPorts, ", ")))
	} else if v := scalar(spec.YNode(), "hostNetwork"); v == "true" {
		ev = append(ev, "the pod runs in the node's network (hostNetwork)")
	}
	for _, init := range pod {
		for _, vol := range prepares(pod, init, c.podContainer, ownInit) {
			ev = append(ev, fmt.Sprintf("init container %s writes the volume %s that only it reads", strconv.Quote(init.name), strconv.Quote(vol)))
		}
	}
	for _, o := range pod {
		if o.regular && o.name != c.name && o.helps(c.podContainer) {
			ev = append(ev, fmt.Sprintf("its own hooks call container %s", strconv.Quote(o.name)))
		}
	}
	return ev
}

// readers are the regular containers and native sidecars that mount the
// volume.
func readers(pod []podContainer, vol string) []string {
	var out []string
	for _, c := range pod {
		if _, ok := c.mounts[vol]; ok && (c.regular || c.always) {
			out = append(out, c.name)
		}
	}
	return out
}

// namedFor says how the workload is named or labelled for the container,
// or is empty: its name is the container's (with a release prefix or a
// suffix after a dash), or its app label is.
func namedFor(view *Pod, name string) string {
	w := view.w
	if name == "" {
		return ""
	}
	if w.Name == name || strings.HasPrefix(w.Name, name+"-") || strings.HasSuffix(w.Name, "-"+name) {
		return fmt.Sprintf("the %s is named %s", w.Kind, strconv.Quote(w.Name))
	}
	for _, key := range appLabels {
		if v, ok := view.TemplateLabel(key); ok && v == name {
			return fmt.Sprintf("its pod template's label %s is %s", key, strconv.Quote(v))
		}
		if v := w.Labels()[key]; v == name {
			return fmt.Sprintf("the %s's label %s is %s", w.Kind, key, strconv.Quote(v))
		}
	}
	return ""
}

// appLabels are the labels that name the application a workload runs.
var appLabels = []string{"app.kubernetes.io/name", "app", "k8s-app"}

// podEnv are the environment variables of every container of the pod.
func podEnv(pod []podContainer) []preset.Env {
	var out []preset.Env
	for _, c := range pod {
		out = append(out, c.env...)
	}
	return out
}

// quoteNames names containers for a message: "a" and "b".
func quoteNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = report.Quote(n)
	}
	switch len(q) {
	case 0:
		return "nothing"
	case 1:
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// scalar is the value of a mapping's scalar field, or empty.
func scalar(n *yaml.Node, key string) string {
	if v := tree.Value(n, key); v != nil && v.Kind == yaml.ScalarNode {
		return v.Value
	}
	return ""
}

// seq is the entries of a mapping's sequence field.
func seq(n *yaml.Node, key string) []*yaml.Node {
	if v := tree.Value(n, key); v != nil && v.Kind == yaml.SequenceNode {
		return v.Content
	}
	return nil
}

// appendNonEmpty appends the values that are not empty.
func appendNonEmpty(list []string, values ...string) []string {
	for _, v := range values {
		if v != "" {
			list = append(list, v)
		}
	}
	return list
}

// text is a node's value as kyaml's GetValue reads it: empty for a
// missing or null node.
func text(n *yaml.Node) string {
	if n == nil || n.Tag == yaml.NodeTagNull {
		return ""
	}
	return n.Value
}
