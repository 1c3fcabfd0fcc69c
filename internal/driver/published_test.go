package driver_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/list"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// publishedConfigs are the functionConfigs every published file runs
// through. None names a sidecar: what the function does is recognition's
// alone, as for a team that adds it to a pipeline with no config.
var publishedConfigs = []struct{ name, config string }{
	{"ordered", ""},
	{"native", "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: published}\nspec: {mode: native, kubernetesVersion: \"1.33\"}\n"},
	{"validate", "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: published}\nspec: {action: validate}\n"},
}

// TestPublished runs what vendors publish (testdata/published/<case>: their
// charts rendered with the pinned Helm, their manifests and their
// injectors' goldens byte for byte, each with source.yaml saying how it was
// made) through each of publishedConfigs, and checks against the case's
// expect.yaml, which names the containers of each workload that are
// sidecars (they serve an application in the same pod):
//
//   - the run does not panic, its output parses strictly and every
//     workload in it decodes strictly into its k8s.io/api type; the
//     invariants of krmtest.Check hold (nothing lost, untouched items as
//     kyaml writes them, comments kept, changes reported);
//   - every other container stays in the list it was in, keeps its
//     restartPolicy, lifecycle and startupProbe, and keeps its place among
//     the other non-sidecar containers of its list: no application is
//     moved, hooked or made native;
//   - a sidecar that is already native stays as it is, and a pod whose
//     sidecars are all native already (what the injectors write by
//     default) is left byte for byte, with no change reported for it, in
//     native and in ordered mode;
//   - no run gives an error result to a valid workload without a sidecar
//     (in the manifest or injected at admission) or whose sidecars are
//     native already; validate changes nothing and fails exactly when the
//     ordered run would change something;
//   - the output run again changes nothing and reports no change;
//   - the plain stream (--config, the Helm post-renderer) writes the same
//     data and fails exactly when the ResourceList run does.
func TestPublished(t *testing.T) {
	sources, err := filepath.Glob("testdata/published/*/source.yaml")
	if err != nil || len(sources) == 0 {
		t.Fatalf("no published cases: %v", err)
	}
	runs := 0
	for _, source := range sources {
		dir := filepath.Dir(source)
		name := filepath.Base(dir)
		expect := readPublishedExpect(t, dir)
		files := publishedFiles(t, dir)
		t.Run(name+"/expect.yaml", func(t *testing.T) {
			for _, e := range expect.unknown(t, dir, files) {
				t.Error(e)
			}
		})
		for _, file := range files {
			text, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			sidecars := expect.forFile(file)
			for _, cfg := range publishedConfigs {
				t.Run(name+"/"+file+"/"+cfg.name, func(t *testing.T) {
					checkPublished(t, text, cfg.name, cfg.config, sidecars)
				})
				runs++
			}
		}
	}
	if runs < 3*200 {
		t.Errorf("only %d runs: published files missing", runs)
	}
}

// publishedFiles lists the files of a case directory that hold resources:
// all but source.yaml and expect.yaml.
func publishedFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if !e.IsDir() && e.Name() != "source.yaml" && e.Name() != "expect.yaml" {
			files = append(files, e.Name())
		}
	}
	if len(files) == 0 {
		t.Fatalf("%s: no files", dir)
	}
	return files
}

// publishedExpect is a case's expect.yaml: the sidecar containers of each
// workload ("Kind namespace/name", "Kind name" without a namespace), for
// every file of the case, or under a file's name for that file only.
type publishedExpect struct {
	all   map[string][]sidecarEntry
	files map[string]map[string][]sidecarEntry
}

// sidecarEntry is one sidecar of a workload: a container of the manifest
// (a name in expect.yaml), or one the mesh injects at admission
// ({injected: name}).
type sidecarEntry struct {
	name     string
	injected bool
}

// present is the names of the sidecars that are containers of the manifest.
func present(entries []sidecarEntry) []string {
	var names []string
	for _, e := range entries {
		if !e.injected {
			names = append(names, e.name)
		}
	}
	return names
}

func readPublishedExpect(t *testing.T, dir string) publishedExpect {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(dir, "expect.yaml"))
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	var raw map[string]any
	if err := yaml.Unmarshal(text, &raw); err != nil {
		t.Fatalf("%s/expect.yaml: %v", dir, err)
	}
	e := publishedExpect{all: map[string][]sidecarEntry{}, files: map[string]map[string][]sidecarEntry{}}
	for key, v := range raw {
		if strings.Contains(key, " ") {
			e.all[key] = sidecarList(t, dir, key, v)
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s/expect.yaml: %s: want a map of workloads to containers, got %T", dir, key, v)
		}
		e.files[key] = map[string][]sidecarEntry{}
		for w, names := range m {
			e.files[key][w] = sidecarList(t, dir, key+": "+w, names)
		}
	}
	return e
}

func sidecarList(t *testing.T, dir, key string, v any) []sidecarEntry {
	t.Helper()
	list, ok := v.([]any)
	if !ok {
		t.Fatalf("%s/expect.yaml: %s: want a list of container names, got %T", dir, key, v)
	}
	var out []sidecarEntry
	for _, n := range list {
		switch n := n.(type) {
		case string:
			out = append(out, sidecarEntry{name: n})
		case map[string]any:
			name, ok := n["injected"].(string)
			if !ok || len(n) != 1 {
				t.Fatalf("%s/expect.yaml: %s: %v is not {injected: name}", dir, key, n)
			}
			out = append(out, sidecarEntry{name: name, injected: true})
		default:
			t.Fatalf("%s/expect.yaml: %s: %v is not a container name", dir, key, n)
		}
	}
	return out
}

// forFile is the sidecars of each workload of one file.
func (e publishedExpect) forFile(file string) map[string][]sidecarEntry {
	out := map[string][]sidecarEntry{}
	for w, names := range e.all {
		out[w] = names
	}
	for w, names := range e.files[file] {
		out[w] = append(out[w], names...)
	}
	return out
}

// unknown lists the entries of expect.yaml that name no file, no workload
// or no container: each must stand for something in the case.
func (e publishedExpect) unknown(t *testing.T, dir string, files []string) []string {
	var errs []string
	found := map[string]bool{}
	for f := range e.files {
		if !slices.Contains(files, f) {
			errs = append(errs, fmt.Sprintf("expect.yaml names %s, not a file of %s", f, dir))
		}
	}
	for _, file := range files {
		text, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		rl, err := krmtest.ResourceList(text, nil)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", file, err))
			continue
		}
		in, err := krmtest.Split(rl)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", file, err))
			continue
		}
		pods := map[string]*corev1.PodSpec{}
		for _, r := range resourcesOf(in.Items) {
			if ps, ok, err := podSpecOf(r, false); ok && err == nil {
				pods[workloadKey(r)] = ps
			}
		}
		check := func(w string, entries []sidecarEntry, where string) {
			ps, ok := pods[w]
			if !ok {
				return
			}
			found[where+w] = true
			for _, e := range entries {
				_, ok := findContainer(ps, e.name, false)
				switch {
				case !ok && !e.injected:
					errs = append(errs, fmt.Sprintf("expect.yaml: %s in %s has no container %s", w, file, e.name))
				case ok && e.injected:
					errs = append(errs, fmt.Sprintf("expect.yaml: %s in %s has a container %s, said to be injected at admission", w, file, e.name))
				}
			}
		}
		for w, names := range e.all {
			check(w, names, "")
		}
		for w, names := range e.files[file] {
			check(w, names, file+": ")
			if !found[file+": "+w] {
				errs = append(errs, fmt.Sprintf("expect.yaml: %s has no workload %s", file, w))
			}
		}
	}
	for w := range e.all {
		if !found[w] {
			errs = append(errs, fmt.Sprintf("expect.yaml: no file of %s has a workload %s", dir, w))
		}
	}
	sort.Strings(errs)
	return errs
}

// runPublished runs the function in-process on a ResourceList and turns a
// panic into a failure that says where.
func runPublished(t *testing.T, rl []byte, what string) (out []byte, failed bool) {
	t.Helper()
	var buf bytes.Buffer
	var err error
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("%s: panic: %v\n%s", what, p, debug.Stack())
			}
		}()
		err = driver.Run(bytes.NewReader(rl), &buf)
	}()
	if err != nil && !errors.Is(err, report.ErrResults) {
		t.Fatalf("%s: %v", what, err)
	}
	return buf.Bytes(), err != nil
}

// checkPublished runs one file with one config and checks what
// TestPublished says.
func checkPublished(t *testing.T, items []byte, mode, config string, sidecars map[string][]sidecarEntry) {
	rl, err := krmtest.ResourceList(items, []byte(config))
	if err != nil {
		t.Fatalf("the file does not read as resources: %v", err)
	}
	in, err := krmtest.Split(rl)
	if err != nil {
		t.Fatal(err)
	}
	out, failed := runPublished(t, rl, "run")
	o, err := krmtest.Split(out)
	if err != nil {
		t.Fatalf("the output is not a ResourceList: %v", err)
	}
	if err := krmtest.Strict(out); err != nil {
		t.Errorf("the output does not parse strictly: %v", err)
	}
	for _, e := range krmtest.Check(rl, out) {
		t.Error(e)
	}
	results := o.ResultList()
	if failed != krmtest.HasErrors(results) {
		t.Errorf("error results %v, but the run failed: %v", krmtest.HasErrors(results), failed)
	}
	changed, errored := map[string]bool{}, map[string][]string{}
	for _, r := range results {
		switch {
		case r.Severity == "info" && r.Ref != "":
			changed[r.Ref] = true
		case r.Severity == "error":
			errored[r.Ref] = append(errored[r.Ref], r.Message)
		}
	}

	ins, outs := resourcesOf(in.Items), resourcesOf(o.Items)
	if len(ins) != len(outs) {
		t.Fatalf("%d resources in, %d out", len(ins), len(outs))
	}
	texts := func(rs []*yaml.RNode) []string {
		s, err := krmtest.Strings(rs)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	inTexts, outTexts := texts(ins), texts(outs)
	for i := range ins {
		key, ref := workloadKey(ins[i]), krmtest.ID(ins[i])
		if mode == "validate" && inTexts[i] != outTexts[i] {
			t.Errorf("%s: validate changed it:\n%s", key, lineDiff(inTexts[i], outTexts[i]))
		}
		if err := strictWorkload(outs[i]); err != nil {
			if strictWorkload(ins[i]) != nil {
				err = fmt.Errorf("%w (the input does not either)", err)
			}
			t.Errorf("%s: %v", key, err)
		}
		inPod, ok, err := podSpecOf(ins[i], false)
		if !ok {
			continue
		}
		if err != nil {
			t.Errorf("%s: input: %v", key, err)
			continue
		}
		outPod, _, err := podSpecOf(outs[i], false)
		if err != nil {
			t.Errorf("%s: output: %v", key, err)
			continue
		}
		listed := present(sidecars[key])
		for _, e := range applicationChanges(inPod, outPod, listed) {
			t.Errorf("%s: %s", key, e)
		}
		// An error result is the function's word that the workload must
		// change (validate) or that it cannot be run as it is: wrong for a
		// valid workload that has no sidecar, in the manifest or injected,
		// or whose sidecars are native already.
		native := alreadyNative(inPod, listed)
		if len(errored[ref]) > 0 && (len(sidecars[key]) == 0 || native) {
			why := "has no sidecar"
			if native {
				why = "has its sidecars native already"
			}
			if krmtest.Valid(ins[i]) == nil {
				t.Errorf("%s %s, but the run gives it error results: %q", key, why, errored[ref])
			}
		}
		if mode == "validate" {
			continue
		}
		for _, e := range nativeSidecarChanges(inPod, outPod, listed) {
			t.Errorf("%s: %s", key, e)
		}
		if native && (inTexts[i] != outTexts[i] || changed[ref]) {
			t.Errorf("%s: its sidecars %v are native already (the injector's output), but the %s run changed it (reported: %v):\n%s",
				key, listed, mode, changed[ref], lineDiff(inTexts[i], outTexts[i]))
		}
	}

	if mode == "validate" {
		checkValidateMatchesMutate(t, items, failed)
	}
	checkSecondRun(t, out, mode, failed)
	if mode != "validate" { // validate writes no manifests in a plain stream
		checkPlainAgrees(t, items, config, outs, failed)
		checkListAgrees(t, ins, config, outs, failed)
	}
}

// checkListAgrees runs the file's resources as the items of one v1 List
// (as kubectl get -o yaml writes a live cluster's objects) with the same
// config, and checks that the List's entries come out with the same data
// as the items of the ResourceList run, and that it fails exactly when
// that run did.
func checkListAgrees(t *testing.T, ins []*yaml.RNode, config string, rlOut []*yaml.RNode, rlFailed bool) {
	entries := yaml.NewListRNode()
	for _, in := range ins {
		entries.YNode().Content = append(entries.YNode().Content, in.Copy().YNode())
	}
	l := yaml.NewMapRNode(&map[string]string{"apiVersion": "v1", "kind": "List"})
	if err := l.PipeE(yaml.SetField("items", entries)); err != nil {
		t.Fatal(err)
	}
	// Not through kio.ByteReader, which reads a List as its items.
	var fc *yaml.RNode
	if config != "" {
		fc = krmtest.Parse(t, config)
	}
	var buf bytes.Buffer
	w := kio.ByteWriter{Writer: &buf, WrappingKind: kio.ResourceListKind, WrappingAPIVersion: kio.ResourceListAPIVersion, FunctionConfig: fc}
	if err := w.Write([]*yaml.RNode{l}); err != nil {
		t.Fatal(err)
	}
	rl := buf.Bytes()
	out, failed := runPublished(t, rl, "List")
	if failed != rlFailed {
		t.Errorf("the List fails: %v; the items as a ResourceList fail: %v", failed, rlFailed)
	}
	if rlFailed {
		return
	}
	o, err := krmtest.Split(out)
	if err != nil || len(o.Items) != 1 {
		t.Fatalf("the List's run: %d items out (%v)", len(o.Items), err)
	}
	got := resourcesOf(o.Items)
	if len(got) != len(rlOut) {
		t.Fatalf("the List: %d entries out, the ResourceList %d items", len(got), len(rlOut))
	}
	for i := range got {
		if !krmtest.SameData(withoutEmptyAnnotations(got[i]), withoutEmptyAnnotations(rlOut[i])) {
			text, _ := krmtest.Strings([]*yaml.RNode{rlOut[i], got[i]})
			t.Errorf("%s: the List's entry holds other data than the ResourceList's item:\n%s", workloadKey(rlOut[i]), lineDiff(text[0], text[1]))
		}
	}
}

// withoutEmptyAnnotations is the item without an empty metadata.annotations
// mapping, which kyaml's ResourceList writer drops and a plain stream keeps.
func withoutEmptyAnnotations(n *yaml.RNode) *yaml.RNode {
	if a, _ := n.Pipe(yaml.Lookup(yaml.MetadataField, yaml.AnnotationsField)); a != nil && len(a.Content()) == 0 {
		n = n.Copy()
		_ = n.PipeE(yaml.Lookup(yaml.MetadataField), yaml.Clear(yaml.AnnotationsField))
	}
	return n
}

// checkPlainAgrees runs the file as a plain stream (the Helm post-renderer
// and --config path) with the same config and checks that it reaches the
// same verdicts: it fails exactly when that run did, and otherwise every
// resource holds the same data as in the ResourceList's output.
func checkPlainAgrees(t *testing.T, items []byte, config string, rlOut []*yaml.RNode, rlFailed bool) {
	var cfgNode *yaml.RNode
	if config != "" {
		cfgNode = krmtest.Parse(t, config)
	}
	var buf bytes.Buffer
	_, err := driver.PlainStream(cfgNode, bytes.NewReader(items), &buf)
	if err != nil && !errors.Is(err, report.ErrResults) {
		t.Fatalf("plain stream: %v", err)
	}
	if (err != nil) != rlFailed {
		t.Errorf("the plain stream fails: %v; the ResourceList run fails: %v", err, rlFailed)
	}
	if rlFailed {
		return // a failed plain stream writes nothing
	}
	got, rerr := (&kio.ByteReader{Reader: &buf, OmitReaderAnnotations: true}).Read()
	if rerr != nil {
		t.Fatalf("the plain stream's output does not read: %v", rerr)
	}
	outs := resourcesOf(got)
	if len(outs) != len(rlOut) {
		t.Fatalf("plain stream: %d resources out, the ResourceList %d", len(outs), len(rlOut))
	}
	for i := range outs {
		if !krmtest.SameData(withoutEmptyAnnotations(outs[i]), withoutEmptyAnnotations(rlOut[i])) {
			text, _ := krmtest.Strings([]*yaml.RNode{rlOut[i], outs[i]})
			t.Errorf("%s: the plain stream writes other data than the ResourceList run:\n%s", workloadKey(rlOut[i]), lineDiff(text[0], text[1]))
		}
	}
}

// checkValidateMatchesMutate checks that validate failed exactly when the
// ordered run (the same config but mutate) changes something or fails.
func checkValidateMatchesMutate(t *testing.T, items []byte, validateFailed bool) {
	t.Helper()
	rl, err := krmtest.ResourceList(items, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, failed := runPublished(t, rl, "the ordered run beside validate")
	o, err := krmtest.Split(out)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := krmtest.Split(rl)
	a, _ := krmtest.Strings(in.Items)
	b, _ := krmtest.Strings(o.Items)
	var changes []string
	for i := range a {
		if i < len(b) && a[i] != b[i] {
			changes = append(changes, krmtest.ID(in.Items[i]))
		}
	}
	if validateFailed != (failed || len(changes) > 0) {
		t.Errorf("validate failed: %v, but the ordered run changes %v (error results: %v)", validateFailed, changes, failed)
	}
}

// checkSecondRun runs the output through the function again: the items
// must not change, no change may be reported, a run without error results
// stays without, and a mutating run's summary counts nothing.
func checkSecondRun(t *testing.T, out []byte, mode string, failed bool) {
	t.Helper()
	second, secondFailed := runPublished(t, out, "second run")
	first, _ := krmtest.Split(out)
	next, err := krmtest.Split(second)
	if err != nil {
		t.Fatalf("second run: the output is not a ResourceList: %v", err)
	}
	a, _ := krmtest.Stream(first.Items)
	b, _ := krmtest.Stream(next.Items)
	if !bytes.Equal(a, b) {
		t.Errorf("not idempotent: the second run changed the items:\n%s", lineDiff(string(a), string(b)))
	}
	if secondFailed && !failed {
		t.Errorf("the second run has error results, the first had none: %v", krmtest.Reported(next.ResultList()))
	}
	results := next.ResultList()
	for i, r := range results {
		if r.Severity == "info" && r.Ref != "" {
			t.Errorf("the second run reports a change to %s: %s", r.Ref, r.Message)
		}
		if mode != "validate" && r.Severity == "info" && i == len(results)-1 &&
			!strings.HasPrefix(r.Message, "ordered 0 workloads, converted 0 to native sidecars, annotated 0,") {
			t.Errorf("the second run's summary counts changes: %s", r.Message)
		}
	}
}

// resourcesOf flattens items: a List (see list.Items) as its entries.
func resourcesOf(items []*yaml.RNode) []*yaml.RNode {
	var out []*yaml.RNode
	for _, it := range items {
		if entries, ok := list.Items(it); ok {
			for _, e := range entries {
				out = append(out, yaml.NewRNode(e))
			}
			continue
		}
		out = append(out, it)
	}
	return out
}

// workloadKey is "Kind namespace/name", or "Kind name" without a
// namespace; a Pod with only a generateName is named by it.
func workloadKey(rn *yaml.RNode) string {
	name := rn.GetName()
	if name == "" {
		name, _ = rn.GetString("metadata.generateName")
	}
	if ns := rn.GetNamespace(); ns != "" {
		return rn.GetKind() + " " + ns + "/" + name
	}
	return rn.GetKind() + " " + name
}

// workloadObject returns an empty k8s.io/api object for the built-in
// pod-bearing kinds and a function that returns its pod spec. Like the
// function, it goes by group and kind: an older version (batch/v1beta1
// CronJob) is decoded as the v1 type, whose pod template is the same.
func workloadObject(apiVersion, kind string) (any, func() *corev1.PodSpec, bool) {
	group := ""
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		group = apiVersion[:i]
	}
	if group == "extensions" {
		group = "apps"
	}
	switch group + "/" + kind {
	case "/Pod":
		o := &corev1.Pod{}
		return o, func() *corev1.PodSpec { return &o.Spec }, true
	case "/ReplicationController":
		o := &corev1.ReplicationController{}
		return o, func() *corev1.PodSpec {
			if o.Spec.Template == nil {
				return &corev1.PodSpec{}
			}
			return &o.Spec.Template.Spec
		}, true
	case "apps/Deployment":
		o := &appsv1.Deployment{}
		return o, func() *corev1.PodSpec { return &o.Spec.Template.Spec }, true
	case "apps/StatefulSet":
		o := &appsv1.StatefulSet{}
		return o, func() *corev1.PodSpec { return &o.Spec.Template.Spec }, true
	case "apps/DaemonSet":
		o := &appsv1.DaemonSet{}
		return o, func() *corev1.PodSpec { return &o.Spec.Template.Spec }, true
	case "apps/ReplicaSet":
		o := &appsv1.ReplicaSet{}
		return o, func() *corev1.PodSpec { return &o.Spec.Template.Spec }, true
	case "batch/Job":
		o := &batchv1.Job{}
		return o, func() *corev1.PodSpec { return &o.Spec.Template.Spec }, true
	case "batch/CronJob":
		o := &batchv1.CronJob{}
		return o, func() *corev1.PodSpec { return &o.Spec.JobTemplate.Spec.Template.Spec }, true
	}
	return nil, nil, false
}

// podSpecOf decodes a built-in workload, strictly or not, and returns its
// pod spec; ok is false for every other kind.
func podSpecOf(rn *yaml.RNode, strict bool) (spec *corev1.PodSpec, ok bool, err error) {
	obj, specOf, ok := workloadObject(rn.GetApiVersion(), rn.GetKind())
	if !ok {
		return nil, false, nil
	}
	js, err := rn.MarshalJSON()
	if err != nil {
		return nil, true, err
	}
	if !strict {
		if err := json.Unmarshal(js, obj); err != nil {
			return nil, true, fmt.Errorf("decoding %s: %w", rn.GetKind(), err)
		}
		return specOf(), true, nil
	}
	problems, err := sigsjson.UnmarshalStrict(js, obj, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil {
		return nil, true, fmt.Errorf("decoding %s %s: %w", rn.GetApiVersion(), rn.GetKind(), err)
	}
	if len(problems) > 0 {
		return nil, true, fmt.Errorf("decoding %s %s strictly: %v", rn.GetApiVersion(), rn.GetKind(), problems)
	}
	return specOf(), true, nil
}

// strictWorkload says why a built-in workload does not decode strictly
// into its k8s.io/api type; nil for a workload that does and for every
// other kind.
func strictWorkload(rn *yaml.RNode) error {
	_, _, err := podSpecOf(rn, true)
	return err
}

// placed is a container and where it is in its pod.
type placed struct {
	c    corev1.Container
	init bool
}

func listName(init bool) string {
	if init {
		return "initContainers"
	}
	return "containers"
}

// findContainer finds a container by name, in the list given first.
func findContainer(ps *corev1.PodSpec, name string, init bool) (placed, bool) {
	for _, inInit := range []bool{init, !init} {
		list := ps.Containers
		if inInit {
			list = ps.InitContainers
		}
		for _, c := range list {
			if c.Name == name {
				return placed{c, inInit}, true
			}
		}
	}
	return placed{}, false
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// applicationChanges lists how the containers that are not sidecars
// changed from in to out: each must stay in its list with its
// restartPolicy, lifecycle and startupProbe, and the non-sidecars of each
// list keep their relative order.
func applicationChanges(in, out *corev1.PodSpec, sidecars []string) []string {
	var errs []string
	for _, init := range []bool{true, false} {
		list := in.Containers
		if init {
			list = in.InitContainers
		}
		var before []string
		for _, c := range list {
			if slices.Contains(sidecars, c.Name) {
				continue
			}
			before = append(before, c.Name)
			got, ok := findContainer(out, c.Name, init)
			if !ok {
				errs = append(errs, fmt.Sprintf("%s %s is gone", listName(init), c.Name))
				continue
			}
			if got.init != init {
				errs = append(errs, fmt.Sprintf("%s %s, not a sidecar, was moved to %s", listName(init), c.Name, listName(got.init)))
			}
			if !equality.Semantic.DeepEqual(c.RestartPolicy, got.c.RestartPolicy) {
				errs = append(errs, fmt.Sprintf("%s %s, not a sidecar, has restartPolicy %s, was %s", listName(init), c.Name, jsonOf(got.c.RestartPolicy), jsonOf(c.RestartPolicy)))
			}
			if !equality.Semantic.DeepEqual(c.Lifecycle, got.c.Lifecycle) {
				errs = append(errs, fmt.Sprintf("%s %s, not a sidecar, has lifecycle %s, was %s", listName(init), c.Name, jsonOf(got.c.Lifecycle), jsonOf(c.Lifecycle)))
			}
			if !equality.Semantic.DeepEqual(c.StartupProbe, got.c.StartupProbe) {
				errs = append(errs, fmt.Sprintf("%s %s, not a sidecar, has startupProbe %s, was %s", listName(init), c.Name, jsonOf(got.c.StartupProbe), jsonOf(c.StartupProbe)))
			}
		}
		outList := out.Containers
		if init {
			outList = out.InitContainers
		}
		var after []string
		for _, c := range outList {
			if slices.Contains(before, c.Name) {
				after = append(after, c.Name)
			}
		}
		var stayed []string
		for _, n := range before {
			if slices.Contains(after, n) {
				stayed = append(stayed, n)
			}
		}
		if !slices.Equal(stayed, after) {
			errs = append(errs, fmt.Sprintf("the non-sidecar %s %v came out in the order %v", listName(init), stayed, after))
		}
	}
	return errs
}

// isNative says whether a container is a native sidecar: an init
// container with restartPolicy Always.
func isNative(p placed) bool {
	return p.init && p.c.RestartPolicy != nil && *p.c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// alreadyNative says whether a pod's sidecars are native already: one is
// an init container with restartPolicy Always and none of another name is
// a regular container.
func alreadyNative(ps *corev1.PodSpec, sidecars []string) bool {
	var native []string
	for _, c := range ps.InitContainers {
		if slices.Contains(sidecars, c.Name) && isNative(placed{c, true}) {
			native = append(native, c.Name)
		}
	}
	if len(native) == 0 {
		return false
	}
	for _, c := range ps.Containers {
		if slices.Contains(sidecars, c.Name) && !slices.Contains(native, c.Name) {
			return false
		}
	}
	return true
}

// nativeSidecarChanges lists the sidecars that were native in the input
// and changed.
func nativeSidecarChanges(in, out *corev1.PodSpec, sidecars []string) []string {
	var errs []string
	for _, c := range in.InitContainers {
		if !slices.Contains(sidecars, c.Name) || !isNative(placed{c, true}) {
			continue
		}
		got, ok := findContainer(out, c.Name, true)
		switch {
		case !ok:
			errs = append(errs, fmt.Sprintf("native sidecar %s is gone", c.Name))
		case !got.init:
			errs = append(errs, fmt.Sprintf("native sidecar %s was moved to containers", c.Name))
		case !equality.Semantic.DeepEqual(c, got.c):
			errs = append(errs, fmt.Sprintf("native sidecar %s changed: %s", c.Name, strings.Join(fieldChanges(c, got.c), "; ")))
		}
	}
	return errs
}

// fieldChanges lists the fields of a container that differ, with their
// values before and after.
func fieldChanges(a, b corev1.Container) []string {
	var ma, mb map[string]any
	_ = json.Unmarshal([]byte(jsonOf(a)), &ma)
	_ = json.Unmarshal([]byte(jsonOf(b)), &mb)
	keys := map[string]bool{}
	for k := range ma {
		keys[k] = true
	}
	for k := range mb {
		keys[k] = true
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if !equality.Semantic.DeepEqual(ma[k], mb[k]) {
			out = append(out, fmt.Sprintf("%s %s became %s", k, jsonOf(ma[k]), jsonOf(mb[k])))
		}
	}
	return out
}

// lineDiff shows the lines that differ between two texts, - for a's and +
// for b's, each run of changes with the line before it, at most 40 lines.
func lineDiff(a, b string) string {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	// lcs[i][j] is the length of the longest common subsequence of x[i:] and y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []string
	last := -1
	context := func(i int) {
		if i > 0 && i-1 != last {
			out = append(out, fmt.Sprintf("  %d: %s", i, x[i-1]))
		}
	}
	i, j := 0, 0
	for (i < len(x) || j < len(y)) && len(out) < 40 {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			i, j = i+1, j+1
		case j < len(y) && (i == len(x) || lcs[i][j+1] >= lcs[i+1][j]):
			context(i)
			out = append(out, "+ "+y[j])
			last, j = i-1, j+1
		default:
			context(i)
			out = append(out, fmt.Sprintf("- %d: %s", i+1, x[i]))
			last, i = i, i+1
		}
	}
	return strings.Join(out, "\n")
}
