package config

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// decodeJSON decodes a config's JSON form strictly with Kubernetes' JSON
// decoder: what readConfig must decode, for a config it accepts.
func decodeJSON(t *testing.T, rn *yaml.RNode) *SidecarLifecycle {
	t.Helper()
	js, err := rn.MarshalJSON()
	if err != nil {
		t.Fatalf("JSON form: %v", err)
	}
	cfg := &SidecarLifecycle{}
	strict, err := sigsjson.UnmarshalStrict(js, cfg, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil || len(strict) > 0 {
		t.Fatalf("the JSON decoder rejects %s: %v %v", js, err, strict)
	}
	return cfg
}

// checkDecodesAsJSON reads a config and compares it with its JSON decoding.
func checkDecodesAsJSON(t *testing.T, text string) {
	t.Helper()
	rn, err := yaml.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	got, errs := readConfig(rn.YNode())
	if errs != nil {
		t.Fatalf("readConfig: %v\n%s", errs, text)
	}
	if want := decodeJSON(t, rn); !reflect.DeepEqual(got, want) {
		t.Errorf("readConfig decodes\n%s\nas %+v,\nthe JSON decoder as %+v", text, got, want)
	}
}

// TestReadDecodesAsJSON: what readConfig decodes is what encoding/json
// decodes from the config's JSON form, for every golden config and for
// YAML's own forms: aliases, merge keys, nulls, numbers written in other
// bases, timestamps.
func TestReadDecodesAsJSON(t *testing.T) {
	paths, _ := filepath.Glob("../../internal/driver/testdata/*/config.yaml")
	checked := 0
	for _, p := range paths {
		b, _ := os.ReadFile(p)
		rn, err := yaml.Parse(string(b))
		if err != nil || rn.GetKind() != Kind {
			continue
		}
		if _, errs := readConfig(rn.YNode()); errs == nil {
			t.Run(p, func(t *testing.T) { checkDecodesAsJSON(t, string(b)) })
			checked++
		}
	}
	if checked < 10 {
		t.Fatalf("only %d golden configs checked", checked)
	}
	head := "apiVersion: " + APIVersion + "\nkind: " + Kind + "\n"
	for name, text := range map[string]string{
		"aliases":                         head + "spec:\n  targets:\n    include: [&sel {kind: Deployment}, *sel]\n    exclude: [*sel]\n",
		"merge keys, own keys win":        head + "spec:\n  sidecars:\n  - &a {name: a, ifAbsent: fail, waitBeforeExit: 5s}\n  - {<<: *a, name: b}\n",
		"merge of a list, the first wins": head + "spec:\n  app: {<<: [{drainDelay: 5s}, {drainDelay: 9s}]}\n",
		"nulls": head + "metadata: {labels: null}\nspec:\n  mode: null\n  sidecars: [{name: a, waitForReady: ~, waitBeforeExit: null, sleepCommand: null}]\n" +
			"  app: {drainDelay: }\n",
		"numbers as durations": head + "spec:\n  sidecars: [{name: a, waitBeforeExit: 0x1e}, {name: b, waitBeforeExit: 1e3}, {name: c, waitBeforeExit: 1_0}, {name: d, waitBeforeExit: 30.0}]\n",
		"ports":                head + "spec:\n  sidecars: [{name: a, startupProbe: {httpGet: {port: 0x50}}}, {name: b, startupProbe: {tcpSocket: {port: http}}}]\n",
		"metadata": head + "metadata:\n  name: x\n  creationTimestamp: 2024-05-06T07:08:09Z\n  deletionTimestamp: \"2024-05-06T07:08:09+02:00\"\n" +
			"  generation: 3\n  labels: {a: b}\n  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: c, uid: u, controller: true}]\n" +
			"  managedFields: [{manager: kubectl, time: 2024-05-06, fieldsV1: {f:metadata: {f:name: {}}}}]\n",
		"empty lists and mappings": head + "metadata: {labels: {}}\nspec:\n  sidecars: []\n  targets: {}\n",
	} {
		t.Run(name, func(t *testing.T) { checkDecodesAsJSON(t, text) })
	}
}

// TestReadErrors: a merged mapping is checked like the mapping's own keys,
// with the path of the mapping that merges it; a missing required field is
// reported after the other problems of its mapping, unless Validate reports
// it with what to give.
func TestReadErrors(t *testing.T) {
	head := "apiVersion: " + APIVersion + "\nkind: " + Kind + "\n"
	for _, tc := range []struct {
		name, text string
		want       Errors
	}{
		{"wrong type", head + "spec: {<<: {mode: 3}}\n",
			Errors{{"spec.mode", "expected one of ordered, native, auto, found the integer 3"}}},
		{"unknown field", head + "base: &b {mdoe: native}\nspec: {app: {drainDelay: 1s}, <<: *b}\n",
			Errors{{"spec.mdoe", "unknown field: the fields here are action, app, catalog, existingHooks, kubernetesVersion, mode, nodes, podSpecPaths, rolloutOnChange, sidecars, targets, terminationGracePeriod"},
				{"base", "unknown field: the fields here are apiVersion, kind, metadata, spec"}}},
		{"not a mapping", head + "spec: {<<: [{mode: auto}, 5]}\n",
			Errors{{"spec.<<", "expected a mapping or a list of mappings to merge, found the integer 5"}}},
		{"required fields", head + "metadata: {ownerReferences: [{kind: Deployment, name: web, uid: u, apiVersion: apps/v1}, {name: x, bogus: 1}]}\n" +
			"spec: {sidecars: [{name: a, startupProbe: {httpGet: {port: 80, httpHeaders: [{name: X-Probe}]}}}]}\n",
			Errors{{"metadata.ownerReferences[1].apiVersion", "is required"}, {"metadata.ownerReferences[1].kind", "is required"},
				{"metadata.ownerReferences[1].uid", "is required"},
				{"metadata.ownerReferences[1].bogus", "unknown field: the fields here are apiVersion, blockOwnerDeletion, controller, kind, name, uid"},
				{"spec.sidecars[0].startupProbe.httpGet.httpHeaders[0].value", "is required"}}},
		{"required fields that Validate reports", head + "spec: {podSpecPaths: [{group: g}], sidecars: [{name: a, startupProbe: {tcpSocket: {host: h}}}]}\n", nil},
		{"null is the field left out", head + "metadata: null\nspec: {mode: null, sidecars: [{name: a, waitForReady: ~}], app: {drainDelay: }}\n", nil},
		{"a required field's null is the field left out", head + "spec: {sidecars: [{name: a, startupProbe: {httpGet: {port: 80, httpHeaders: [{name: X, value: null}]}}}]}\n",
			Errors{{"spec.sidecars[0].startupProbe.httpGet.httpHeaders[0].value", "is required"}}},
		{"null entries and values", head + "metadata: {labels: {a: null}}\nspec: {sidecars: [null], targets: {include: [~]}}\n",
			Errors{{"metadata.labels.a", "expected a string, found null"}, {"spec.sidecars[0]", "expected a mapping, found null"},
				{"spec.targets.include[0]", "expected a mapping, found null"}}},
		{"empty strings that are not the field left out", head + "spec: {kubernetesVersion: \"\", mode: \"\", app: {drainDelay: \"\"}, sidecars: [{preset: \"\", sleepCommand: [a, \"\"]}]}\n",
			Errors{{"spec.kubernetesVersion", "must not be empty"}, {"spec.mode", `expected one of ordered, native, auto, found the string ""`},
				{"spec.app.drainDelay", `expected a duration (a string such as 30s or 2m, or a number of seconds), found the string ""`},
				{"spec.sidecars[0].preset", "must not be empty"},
				{"spec.sidecars[0].sleepCommand[1]", "must not be empty"}}},
		{"empty commands", head + "spec: {sidecars: [{name: a, sleepCommand: [], waitForReady: {command: []}, startupProbe: {exec: {command: []}}}]}\n",
			Errors{{"spec.sidecars[0].sleepCommand", "must not be empty"}, {"spec.sidecars[0].waitForReady.command", "must not be empty"},
				{"spec.sidecars[0].startupProbe.exec.command", "must not be empty"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rn, err := yaml.Parse(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if _, errs := readConfig(rn.YNode()); !reflect.DeepEqual(errs, tc.want) {
				t.Errorf("errors %q, want %q", errs, tc.want)
			}
		})
	}
}
