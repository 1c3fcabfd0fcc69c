package config_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// header starts every SidecarLifecycle config of these tests.
const header = `apiVersion: fn.sidecar-lifecycle.dev/v1alpha1
kind: SidecarLifecycle
metadata:
  name: test # a comment the decoder must ignore
`

// fieldErrors returns the config.Errors in err, failing the test when err is
// some other error.
func fieldErrors(t *testing.T, err error) config.Errors {
	t.Helper()
	if err == nil {
		return nil
	}
	var errs config.Errors
	if !errors.As(err, &errs) {
		t.Fatalf("error is %T, not config.Errors: %v", err, err)
	}
	return errs
}

// paths lists the field paths of the errors, in order.
func paths(errs config.Errors) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Path)
	}
	return out
}

// checkSpecDefaults checks the defaults of every spec field besides the sidecars.
func checkSpecDefaults(t *testing.T, s config.Spec) {
	t.Helper()
	if s.KubernetesVersion != "1.30" {
		t.Errorf("kubernetesVersion = %q, want 1.30", s.KubernetesVersion)
	}
	if got := s.Version(); got != (config.Version{Major: 1, Minor: 30}) {
		t.Errorf("Version() = %v, want 1.30", got)
	}
	if s.Mode != config.ModeOrdered {
		t.Errorf("mode = %q, want ordered", s.Mode)
	}
	if s.Action != config.ActionMutate {
		t.Errorf("action = %q, want mutate", s.Action)
	}
	if s.TerminationGracePeriod.Policy != config.GraceRaise {
		t.Errorf("terminationGracePeriod.policy = %q, want raise", s.TerminationGracePeriod.Policy)
	}
	if s.TerminationGracePeriod.Margin.Value != 10*time.Second {
		t.Errorf("terminationGracePeriod.margin = %v, want 10s", s.TerminationGracePeriod.Margin.Value)
	}
	if s.ExistingHooks != config.HooksKeep {
		t.Errorf("existingHooks = %q, want keep", s.ExistingHooks)
	}
	if s.App.DrainDelay.Value != 0 {
		t.Errorf("app.drainDelay = %v, want 0", s.App.DrainDelay.Value)
	}
}

func TestLoadEmptyConfigDefaults(t *testing.T) {
	type sidecar struct {
		name, preset string
		ifAbsent     config.IfAbsent
		sleep        []string
	}
	// Every entry of the catalog, in its start order, under its first
	// container name; the sleep its image has, as the vendors ship it.
	sleeps := map[string][]string{"istio": {"/bin/sleep"}, "linkerd": {"/bin/sleep"}, "cloud-sql-proxy": nil}
	var want []sidecar
	for _, p := range preset.Catalog() {
		want = append(want, sidecar{p.Container, p.Name, config.IfAbsentSkip, p.SleepCommand})
		if sleep, ok := sleeps[p.Name]; ok && !slices.Equal(sleep, p.SleepCommand) {
			t.Errorf("preset %s sleeps with %q, want %q", p.Name, p.SleepCommand, sleep)
		}
		delete(sleeps, p.Name)
	}
	if len(sleeps) > 0 {
		t.Errorf("the catalog lacks %v", sleeps)
	}
	load := map[string]func() (*config.SidecarLifecycle, error){
		"Load(nil)":          func() (*config.SidecarLifecycle, error) { return config.Load(nil) },
		"Load(empty map)":    func() (*config.SidecarLifecycle, error) { return config.Load(yaml.NewMapRNode(nil)) },
		"LoadBytes(nil)":     func() (*config.SidecarLifecycle, error) { return config.LoadBytes(nil) },
		"LoadBytes(blank)":   func() (*config.SidecarLifecycle, error) { return config.LoadBytes([]byte("  \n\n")) },
		"LoadBytes({})":      func() (*config.SidecarLifecycle, error) { return config.LoadBytes([]byte("{}\n")) },
		"LoadBytes(null)":    func() (*config.SidecarLifecycle, error) { return config.LoadBytes([]byte("null\n")) },
		"LoadBytes(---)":     func() (*config.SidecarLifecycle, error) { return config.LoadBytes([]byte("---\n")) },
		"LoadBytes(comment)": func() (*config.SidecarLifecycle, error) { return config.LoadBytes([]byte("# nothing to say\n{}\n")) },
		"ConfigMap without data": func() (*config.SidecarLifecycle, error) {
			return config.LoadBytes([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: empty}\n"))
		},
		"SidecarLifecycle without spec": func() (*config.SidecarLifecycle, error) {
			return config.LoadBytes([]byte(header))
		},
		"SidecarLifecycle with empty sidecars": func() (*config.SidecarLifecycle, error) {
			return config.LoadBytes([]byte(header + "spec:\n  sidecars: []\n"))
		},
	}
	for name, fn := range load {
		t.Run(name, func(t *testing.T) {
			cfg, err := fn()
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			checkSpecDefaults(t, cfg.Spec)
			if len(cfg.Spec.Sidecars) != len(want) {
				t.Fatalf("got %d sidecars, want %d: %+v", len(cfg.Spec.Sidecars), len(want), cfg.Spec.Sidecars)
			}
			for i, w := range want {
				got := cfg.Spec.Sidecars[i]
				if got.Name != w.name || got.Preset != w.preset || got.IfAbsent != w.ifAbsent {
					t.Errorf("sidecars[%d] = {name %q, preset %q, ifAbsent %q}, want {%q, %q, %q}",
						i, got.Name, got.Preset, got.IfAbsent, w.name, w.preset, w.ifAbsent)
				}
				if !reflect.DeepEqual(got.SleepCommand, w.sleep) {
					t.Errorf("sidecars[%d].sleepCommand = %#v, want %#v", i, got.SleepCommand, w.sleep)
				}
				if got.WaitBeforeExit.Value != 0 || got.WaitForReady != nil {
					t.Errorf("sidecars[%d] has waitBeforeExit %v, waitForReady %v; want neither", i, got.WaitBeforeExit.Value, got.WaitForReady)
				}
			}
		})
	}
}

func TestLoadSidecarDefaultsPerPreset(t *testing.T) {
	tests := []struct {
		name      string
		sidecar   string // one spec.sidecars entry, flow style
		wantName  string
		wantIf    config.IfAbsent
		wantSleep []string
	}{
		{"linkerd", "{preset: linkerd}", "linkerd-proxy", config.IfAbsentAnnotate, []string{"/bin/sleep"}},
		{"istio", "{preset: istio}", "istio-proxy", config.IfAbsentAnnotate, []string{"/bin/sleep"}},
		{"cloud-sql-proxy", "{preset: cloud-sql-proxy}", "cloud-sql-proxy", config.IfAbsentSkip, nil},
		{"none is the default preset", "{name: vault-agent}", "vault-agent", config.IfAbsentSkip, []string{"/bin/sleep"}},
		{"explicit none", "{name: envoy, preset: none}", "envoy", config.IfAbsentSkip, []string{"/bin/sleep"}},
		{"own name wins over the preset's", "{name: proxy, preset: linkerd}", "proxy", config.IfAbsentAnnotate, []string{"/bin/sleep"}},
		{"own ifAbsent wins", "{preset: istio, ifAbsent: fail}", "istio-proxy", config.IfAbsentFail, []string{"/bin/sleep"}},
		{"own sleepCommand wins", "{preset: linkerd, sleepCommand: [/busybox/sleep]}", "linkerd-proxy", config.IfAbsentAnnotate, []string{"/busybox/sleep"}},
		{"sleepCommand for cloud-sql-proxy", "{preset: cloud-sql-proxy, sleepCommand: [/bin/sh, -c]}", "cloud-sql-proxy", config.IfAbsentSkip, []string{"/bin/sh", "-c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.LoadBytes([]byte(header + "spec:\n  sidecars:\n  - " + tc.sidecar + "\n"))
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if len(cfg.Spec.Sidecars) != 1 {
				t.Fatalf("got %d sidecars, want 1", len(cfg.Spec.Sidecars))
			}
			sc := cfg.Spec.Sidecars[0]
			if sc.Name != tc.wantName {
				t.Errorf("name = %q, want %q", sc.Name, tc.wantName)
			}
			if sc.IfAbsent != tc.wantIf {
				t.Errorf("ifAbsent = %q, want %q", sc.IfAbsent, tc.wantIf)
			}
			if !reflect.DeepEqual(sc.SleepCommand, tc.wantSleep) {
				t.Errorf("sleepCommand = %#v, want %#v", sc.SleepCommand, tc.wantSleep)
			}
			checkSpecDefaults(t, cfg.Spec)
		})
	}
}

func TestLoadFullSidecarLifecycle(t *testing.T) {
	cfg, err := config.LoadBytes([]byte(header + `spec:
  kubernetesVersion: "v1.29.3" # patch is ignored
  mode: auto
  action: validate
  targets:
    include:
    - kind: Deployment
      labelSelector: "app.kubernetes.io/part-of=shop"
    exclude:
    - name: "legacy-*"
  sidecars:
  - name: linkerd-proxy
    preset: linkerd
    waitForReady:
      command: ["/usr/lib/linkerd/linkerd-await", "--timeout=1m"]
    waitBeforeExit: 30s
  - preset: cloud-sql-proxy
    waitBeforeExit: 45 # bare seconds
  app:
    drainDelay: 2m
  terminationGracePeriod:
    policy: warn
    margin: "0"
  existingHooks: replace
  rolloutOnChange: true
  podSpecPaths:
  - {group: example.com, version: v1, kind: Widget, path: spec/pod}
`))
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	s := cfg.Spec
	checks := []struct {
		what      string
		got, want any
	}{
		{"version", s.Version(), config.Version{Major: 1, Minor: 29}},
		{"mode", s.Mode, config.ModeAuto},
		{"action", s.Action, config.ActionValidate},
		{"include kind", s.Targets.Include[0].Kind, "Deployment"},
		{"include labelSelector", s.Targets.Include[0].LabelSelector, "app.kubernetes.io/part-of=shop"},
		{"exclude name", s.Targets.Exclude[0].Name, "legacy-*"},
		{"sidecar 0 waitForReady", s.Sidecars[0].WaitForReady.Command, []string{"/usr/lib/linkerd/linkerd-await", "--timeout=1m"}},
		{"sidecar 0 waitBeforeExit", s.Sidecars[0].WaitBeforeExit.Value, 30 * time.Second},
		{"sidecar 1 name", s.Sidecars[1].Name, "cloud-sql-proxy"},
		{"sidecar 1 waitBeforeExit", s.Sidecars[1].WaitBeforeExit.Value, 45 * time.Second},
		{"sidecar 1 waitBeforeExit raw", s.Sidecars[1].WaitBeforeExit.Raw, "45"},
		{"drainDelay", s.App.DrainDelay.Value, 2 * time.Minute},
		{"policy", s.TerminationGracePeriod.Policy, config.GraceWarn},
		{"margin 0 is kept, not defaulted", s.TerminationGracePeriod.Margin.Value, time.Duration(0)},
		{"existingHooks", s.ExistingHooks, config.HooksReplace},
		{"rolloutOnChange", s.RolloutOnChange, true},
		{"podSpecPaths", s.PodSpecPaths, []config.PodSpecPath{{Group: "example.com", Version: "v1", Kind: "Widget", Path: "spec/pod"}}},
	}
	for _, c := range checks {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s = %#v, want %#v", c.what, c.got, c.want)
		}
	}
}

func TestLoadConfigMap(t *testing.T) {
	tests := []struct {
		name  string
		data  string
		check func(t *testing.T, s config.Spec)
	}{
		{
			name: "every key",
			data: `
  sidecar: my-proxy # the container
  preset: linkerd
  mode: auto
  kubernetesVersion: "1.29"
  waitBeforeExit: 20s
  appDrainDelay: "5"
  action: validate
`,
			check: func(t *testing.T, s config.Spec) {
				if len(s.Sidecars) != 1 {
					t.Fatalf("got %d sidecars, want 1", len(s.Sidecars))
				}
				sc := s.Sidecars[0]
				if sc.Name != "my-proxy" || sc.Preset != "linkerd" || sc.WaitBeforeExit.Value != 20*time.Second || sc.IfAbsent != config.IfAbsentAnnotate {
					t.Errorf("sidecar = %+v", sc)
				}
				if s.Mode != config.ModeAuto || s.Action != config.ActionValidate || s.Version() != (config.Version{Major: 1, Minor: 29}) {
					t.Errorf("mode %q, action %q, version %v", s.Mode, s.Action, s.Version())
				}
				if s.App.DrainDelay.Value != 5*time.Second {
					t.Errorf("drainDelay = %v, want 5s", s.App.DrainDelay.Value)
				}
				if s.TerminationGracePeriod.Policy != config.GraceRaise || s.ExistingHooks != config.HooksKeep {
					t.Errorf("defaults not applied: %+v", s)
				}
			},
		},
		{
			name: "preset only names the sidecar",
			data: "\n  preset: istio\n",
			check: func(t *testing.T, s config.Spec) {
				if len(s.Sidecars) != 1 || s.Sidecars[0].Name != "istio-proxy" || s.Sidecars[0].Preset != "istio" {
					t.Errorf("sidecars = %+v", s.Sidecars)
				}
				checkSpecDefaults(t, s)
			},
		},
		{
			name: "sidecar only is preset none",
			data: "\n  sidecar: vault-agent\n",
			check: func(t *testing.T, s config.Spec) {
				if len(s.Sidecars) != 1 || s.Sidecars[0].Preset != "none" || s.Sidecars[0].IfAbsent != config.IfAbsentSkip {
					t.Errorf("sidecars = %+v", s.Sidecars)
				}
			},
		},
		{
			name: "no sidecar means every preset",
			data: "\n  mode: ordered\n  kubernetesVersion: \"1.31\"\n",
			check: func(t *testing.T, s config.Spec) {
				if len(s.Sidecars) != len(preset.Catalog()) {
					t.Errorf("got %d sidecars, want the %d entries of the catalog", len(s.Sidecars), len(preset.Catalog()))
				}
				if s.Version() != (config.Version{Major: 1, Minor: 31}) {
					t.Errorf("version = %v", s.Version())
				}
			},
		},
		{
			name: "values of the types of the fields they stand for",
			data: "\n  sidecar: proxy\n  waitBeforeExit: 30\n  appDrainDelay: 1e1\n  mode: null\n",
			check: func(t *testing.T, s config.Spec) {
				if s.Sidecars[0].WaitBeforeExit.Value != 30*time.Second || s.App.DrainDelay.Value != 10*time.Second || s.Mode != config.ModeOrdered {
					t.Errorf("waitBeforeExit %v, drainDelay %v, mode %q", s.Sidecars[0].WaitBeforeExit.Value, s.App.DrainDelay.Value, s.Mode)
				}
			},
		},
		{
			name: "merge keys",
			data: "\n  <<: {preset: istio, sidecar: base}\n  sidecar: own\n",
			check: func(t *testing.T, s config.Spec) {
				if s.Sidecars[0].Name != "own" || s.Sidecars[0].Preset != "istio" {
					t.Errorf("sidecars = %+v", s.Sidecars)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, apiVersion := range []string{"apiVersion: v1\n", ""} {
				cfg, err := config.LoadBytes([]byte(apiVersion + "kind: ConfigMap\nmetadata:\n  name: cfg\ndata:" + tc.data))
				if err != nil {
					t.Fatalf("%q: unexpected error: %v", apiVersion, err)
				}
				tc.check(t, cfg.Spec)
			}
		})
	}
}

// TestLoadHealthCheck: a sidecar whose catalog entry says how to switch
// its health endpoints on has them switched on unless the config requires
// them, under healthCheck or its older name, cloudSQLProxy.healthCheck.
func TestLoadHealthCheck(t *testing.T) {
	for sidecar, want := range map[string]config.HealthCheck{
		"{preset: cloud-sql-proxy}":                                           config.HealthCheckEnable,
		"{preset: alloydb-auth-proxy}":                                        config.HealthCheckEnable,
		"{preset: alloydb-auth-proxy, healthCheck: require}":                  config.HealthCheckRequire,
		"{preset: cloud-sql-proxy, cloudSQLProxy: {}}":                        config.HealthCheckEnable,
		"{preset: cloud-sql-proxy, cloudSQLProxy: {healthCheck: require}}":    config.HealthCheckRequire,
		"{preset: alloydb-auth-proxy, cloudSQLProxy: {healthCheck: require}}": config.HealthCheckRequire,
	} {
		cfg, err := config.LoadBytes([]byte(header + "spec:\n  sidecars:\n  - " + sidecar + "\n"))
		if err != nil {
			t.Fatalf("%s: %v", sidecar, err)
		}
		if got := cfg.Spec.Sidecars[0].HealthCheck; got != want {
			t.Errorf("%s: healthCheck %q, want %q", sidecar, got, want)
		}
	}
	cfg, err := config.LoadBytes([]byte(header + "spec:\n  sidecars:\n  - {preset: linkerd}\n"))
	if err != nil || cfg.Spec.Sidecars[0].HealthCheck != "" {
		t.Errorf("linkerd gets healthCheck %q (%v), want none", cfg.Spec.Sidecars[0].HealthCheck, err)
	}
}

func TestLoadErrors(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata:\n"
	spec := header + "spec:\n"
	tests := []struct {
		name      string
		config    string
		wantPaths []string
		wantMsg   []string // substrings of the joined error
	}{
		// Kinds.
		{"wrong kind", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\n", []string{"functionConfig"},
			[]string{`"Deployment"`, "expected kind SidecarLifecycle (apiVersion fn.sidecar-lifecycle.dev/v1alpha1) or ConfigMap (apiVersion v1)"}},
		{"wrong apiVersion of the own kind", "apiVersion: fn.sidecar-lifecycle.dev/v1\nkind: SidecarLifecycle\n", []string{"functionConfig"},
			[]string{"SidecarLifecycle", "ConfigMap"}},
		{"own kind without apiVersion", "kind: SidecarLifecycle\n", []string{"functionConfig"}, []string{"is not accepted"}},
		{"ConfigMap of another apiVersion", "apiVersion: v2\nkind: ConfigMap\n", []string{"functionConfig"}, []string{"ConfigMap (apiVersion v1)"}},
		{"not a mapping", "- a\n- b\n", []string{"functionConfig"}, []string{"must be a mapping"}},

		// ConfigMap form.
		{"ConfigMap unknown key", cm + "  sidecar: a\n  wait: 30s\n", []string{"data.wait"},
			[]string{"unknown key", "sidecar, preset, mode, kubernetesVersion, waitBeforeExit, appDrainDelay, action"}},
		{"ConfigMap unknown keys sorted", cm + "  zeta: 1\n  alpha: 2\n", []string{"data.alpha", "data.zeta"}, nil},
		{"ConfigMap waitBeforeExit without sidecar", cm + "  waitBeforeExit: 30s\n", []string{"data.waitBeforeExit"}, []string{"needs data.sidecar or data.preset"}},
		{"ConfigMap bad values name their keys", cm + "  preset: acme-proxy\n  mode: fast\n  kubernetesVersion: \"2.0\"\n  waitBeforeExit: soon\n  appDrainDelay: -1s\n  action: dry\n",
			[]string{"data.kubernetesVersion", "data.mode", "data.action", "data.appDrainDelay", "data.preset", "data.waitBeforeExit"}, nil},
		{"ConfigMap values of the wrong type", cm + "  action: [validate]\n  waitBeforeExit: [30s]\n  preset: {a: b}\n  kubernetesVersion: 1.28\n  mode: \"\"\n",
			[]string{"data.action", "data.waitBeforeExit", "data.preset", "data.kubernetesVersion", "data.mode"},
			[]string{"data.action: expected one of mutate, validate, found a list of 1 entry", "data.waitBeforeExit: expected a duration",
				"data.preset: expected a string, found a mapping of 1 key",
				"data.kubernetesVersion: expected a string, found the float 1.28: write it in quotes",
				`data.mode: expected one of ordered, native, auto, found the string ""`}},
		{"ConfigMap data not a mapping", cm[:len(cm)-len("data:\n")] + "data: [a, b]\n", []string{"data"}, []string{"data: expected a mapping, found a list of 2 entries"}},
		{"ConfigMap fields other than data", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, labels: {a: 1}}\nspec: {mode: native}\nbinaryData: {}\n",
			[]string{"binaryData", "spec", "metadata.labels.a"}, []string{"unknown field: the fields here are apiVersion, data, kind, metadata"}},
		{"ConfigMap empty sidecar", cm + "  sidecar: \"\"\n", []string{"data.sidecar"}, []string{"is required"}},
		{"ConfigMap native below 1.29", cm + "  mode: native\n  kubernetesVersion: \"1.28\"\n", []string{"data.mode"}, []string{"1.29"}},
		{"ConfigMap cloud-sql-proxy exit delay below 1.30", cm + "  preset: cloud-sql-proxy\n  waitBeforeExit: 30s\n  kubernetesVersion: \"1.29\"\n",
			[]string{"data.waitBeforeExit"}, []string{"no sleep binary"}},

		// Strict decoding.
		{"unknown sidecar field", spec + "  sidecars:\n  - name: a\n    foo: 1\n", []string{"spec.sidecars[0].foo"}, []string{"unknown field"}},
		{"unknown field of the second sidecar", spec + "  sidecars:\n  - name: a\n  - name: b\n    waitBeforeExt: 5s\n", []string{"spec.sidecars[1].waitBeforeExt"}, []string{"unknown field"}},
		{"unknown top-level field", header + "sepc: {}\n", []string{"sepc"}, []string{"unknown field"}},
		{"unknown nested field", spec + "  terminationGracePeriod:\n    maring: 5s\n", []string{"spec.terminationGracePeriod.maring"}, nil},
		{"unknown fields all reported, sorted", spec + "  foo: 1\n  bar: 2\n", []string{"spec.bar", "spec.foo"}, nil},
		{"string instead of mode", spec + "  mode: 3\n", []string{"spec.mode"}, []string{"expected one of ordered, native, auto, found the integer 3"}},
		{"mapping instead of sidecars", spec + "  sidecars: {}\n", []string{"spec.sidecars"}, []string{"expected a list"}},
		{"string instead of boolean", spec + "  rolloutOnChange: \"true\"\n", []string{"spec.rolloutOnChange"}, []string{`expected a boolean (true or false), found the string "true"`}},
		{"list instead of duration", spec + "  sidecars:\n  - name: a\n    waitBeforeExit: [1]\n", []string{"spec.sidecars[0].waitBeforeExit"}, []string{"expected a duration", "found a list of 1 entry"}},
		{"duplicate key", spec + "  mode: ordered\n  mode: native\n", []string{"spec"}, []string{`duplicate key "mode"`}},
		{"duplicate key in a list entry", spec + "  sidecars:\n  - {preset: linkerd, preset: istio}\n", []string{"spec.sidecars[0]"}, []string{`duplicate key "preset"`}},
		{"number instead of string", spec + "  kubernetesVersion: 1.30\n", []string{"spec.kubernetesVersion"}, []string{"expected a string, found the float 1.30: write it in quotes"}},
		{"probe port of the second sidecar", spec + "  sidecars:\n  - preset: linkerd\n  - name: x\n    startupProbe: {httpGet: {port: [1]}}\n",
			[]string{"spec.sidecars[1].startupProbe.httpGet.port"}, []string{"expected a port number or name (an integer or a string), found a list of 1 entry"}},
		{"probe ports that are neither integers nor strings", spec + "  sidecars:\n  - name: x\n    startupProbe: {httpGet: {port: 1.5}}\n  - name: y\n    startupProbe: {tcpSocket: {port: true}}\n",
			[]string{"spec.sidecars[0].startupProbe.httpGet.port", "spec.sidecars[1].startupProbe.tcpSocket.port"}, []string{"found the float 1.5", "found the boolean true"}},
		{"probe field out of range", spec + "  sidecars:\n  - name: x\n    startupProbe: {grpc: {port: 99999999999}, periodSeconds: x}\n",
			[]string{"spec.sidecars[0].startupProbe.grpc.port", "spec.sidecars[0].startupProbe.periodSeconds"}, []string{"at most 32 bits", `found the string "x"`}},
		{"unknown fields and wrong types all reported", spec + "  mode: [a]\n  sidecars:\n  - name: x\n    bogus: 1\n    startupProbe: {httpGet: {port: {}}, tcp: {}}\n  app: {drainDelay: {}}\n",
			[]string{"spec.mode", "spec.sidecars[0].startupProbe.httpGet.port", "spec.sidecars[0].startupProbe.tcp", "spec.sidecars[0].bogus", "spec.app.drainDelay"}, []string{"unknown field"}},
		{"metadata is checked too", "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: [x], labels: {a: 1}}\n", []string{"metadata.name", "metadata.labels.a"}, []string{"write it in quotes"}},
		{"invalid YAML", "spec: [\n", []string{"functionConfig"}, []string{"not valid YAML"}},

		// Values.
		{"bad version", spec + "  kubernetesVersion: \"2.0\"\n", []string{"spec.kubernetesVersion"}, []string{"1.x"}},
		{"version without minor", spec + "  kubernetesVersion: \"1\"\n", []string{"spec.kubernetesVersion"}, nil},
		{"bad mode", spec + "  mode: fast\n", []string{"spec.mode"}, []string{`"fast" is not one of ordered, native, auto`}},
		{"bad action", spec + "  action: dry-run\n", []string{"spec.action"}, []string{"mutate, validate"}},
		{"bad grace policy", spec + "  terminationGracePeriod: {policy: lower}\n", []string{"spec.terminationGracePeriod.policy"}, []string{"raise, warn, keep"}},
		{"bad margin", spec + "  terminationGracePeriod: {margin: -10s}\n", []string{"spec.terminationGracePeriod.margin"}, []string{"negative"}},
		{"bad drain delay", spec + "  app: {drainDelay: soon}\n", []string{"spec.app.drainDelay"}, []string{"not a duration"}},
		{"bad existingHooks", spec + "  existingHooks: merge\n", []string{"spec.existingHooks"}, []string{"keep, replace, fail"}},
		{"native below 1.29", spec + "  mode: native\n  kubernetesVersion: \"1.28\"\n", []string{"spec.mode"},
			[]string{"native sidecars need kubernetesVersion >= 1.29, got 1.28"}},
		{"unknown preset", spec + "  sidecars: [{preset: acme-proxy}]\n", []string{"spec.sidecars[0].preset"}, []string{"alloydb-auth-proxy, cloud-sql-proxy, consul, dapr, envoy, fluent-bit, gcs-fuse, istio, kuma, linkerd, none, oauth2-proxy, opentelemetry-collector, vault-agent"}},
		{"preset none without name", spec + "  sidecars: [{preset: none}]\n", []string{"spec.sidecars[0].name"}, []string{"required"}},
		{"empty waitForReady", spec + "  sidecars: [{preset: linkerd, waitForReady: {command: []}}]\n", []string{"spec.sidecars[0].waitForReady.command"}, []string{"must not be empty"}},
		{"waitForReady without command", spec + "  sidecars: [{preset: linkerd, waitForReady: {}}]\n", []string{"spec.sidecars[0].waitForReady.command"}, nil},
		{"empty sleepCommand entry", spec + "  sidecars: [{name: a, sleepCommand: [/bin/sleep, \"\"]}]\n", []string{"spec.sidecars[0].sleepCommand[1]"}, nil},
		{"ifAbsent annotate for a preset without annotations", spec + "  sidecars: [{preset: cloud-sql-proxy, ifAbsent: annotate}]\n", []string{"spec.sidecars[0].ifAbsent"}, []string{"cloud-sql-proxy"}},
		{"bad ifAbsent", spec + "  sidecars: [{preset: istio, ifAbsent: ignore}]\n", []string{"spec.sidecars[0].ifAbsent"}, []string{"annotate, skip, fail"}},
		{"bad cloudSQLProxy.healthCheck", spec + "  sidecars: [{preset: cloud-sql-proxy, cloudSQLProxy: {healthCheck: off}}]\n",
			[]string{"spec.sidecars[0].cloudSQLProxy.healthCheck"}, []string{`"off" is not one of enable, require`}},
		{"cloudSQLProxy on another preset", spec + "  sidecars: [{preset: linkerd, cloudSQLProxy: {healthCheck: require}}]\n",
			[]string{"spec.sidecars[0].cloudSQLProxy"}, []string{"applies to presets whose catalog entry says how to switch their health endpoints on (alloydb-auth-proxy, cloud-sql-proxy), not linkerd: remove it"}},
		{"healthCheck on another preset", spec + "  sidecars: [{preset: istio, healthCheck: enable}]\n",
			[]string{"spec.sidecars[0].healthCheck"}, []string{"not istio: remove it"}},
		{"bad healthCheck", spec + "  sidecars: [{preset: alloydb-auth-proxy, healthCheck: off}]\n",
			[]string{"spec.sidecars[0].healthCheck"}, []string{`"off" is not one of enable, require`}},
		{"healthCheck and its older name", spec + "  sidecars: [{preset: cloud-sql-proxy, healthCheck: enable, cloudSQLProxy: {healthCheck: enable}}]\n",
			[]string{"spec.sidecars[0].cloudSQLProxy"}, []string{"is the older name of healthCheck: give only healthCheck"}},
		{"negative waitBeforeExit", spec + "  sidecars: [{name: a, waitBeforeExit: -5s}]\n", []string{"spec.sidecars[0].waitBeforeExit"}, []string{"negative"}},
		{"garbage waitBeforeExit", spec + "  sidecars: [{name: a, waitBeforeExit: 5 minutes}]\n", []string{"spec.sidecars[0].waitBeforeExit"}, []string{"not a duration"}},
		{"cloud-sql-proxy exit delay below 1.30 in ordered mode", spec + "  kubernetesVersion: \"1.29\"\n  sidecars:\n  - preset: linkerd\n    waitBeforeExit: 30s\n  - preset: cloud-sql-proxy\n    waitBeforeExit: 10s\n",
			[]string{"spec.sidecars[1].waitBeforeExit"}, []string{"cloud-sql-proxy image has no sleep binary", "kubernetesVersion 1.29", "1.30"}},
		{"duplicate sidecar names", spec + "  sidecars:\n  - preset: linkerd\n  - name: linkerd-proxy\n", []string{"spec.sidecars[1].name"}, []string{`"linkerd-proxy" is already the name of spec.sidecars[0], and a container is ordered once: remove this entry or merge it into spec.sidecars[0]`}},
		{"bad label selector", spec + "  targets:\n    include:\n    - labelSelector: \"app in (\"\n", []string{"spec.targets.include[0].labelSelector"}, nil},
		{"bad annotation selector", spec + "  targets:\n    exclude:\n    - {}\n    - annotationSelector: \"a==b==c\"\n", []string{"spec.targets.exclude[1].annotationSelector"}, nil},
		{"bad glob", spec + "  targets:\n    include:\n    - kind: Deployment\n    - name: \"web-[\"\n", []string{"spec.targets.include[1].name"}, []string{`"web-[" is not a valid glob`}},
		{"bad exclude glob", spec + "  targets:\n    exclude:\n    - namespace: \"[a-\"\n", []string{"spec.targets.exclude[0].namespace"}, nil},
		{"podSpecPath without kind and path", spec + "  podSpecPaths:\n  - {group: example.com, path: /}\n", []string{"spec.podSpecPaths[0].kind", "spec.podSpecPaths[0].path"}, nil},
		{"errors are combined in field order", spec + "  kubernetesVersion: x\n  mode: fast\n  sidecars:\n  - {preset: acme-proxy}\n  - {name: a, waitBeforeExit: x}\n",
			[]string{"spec.kubernetesVersion", "spec.mode", "spec.sidecars[0].preset", "spec.sidecars[1].waitBeforeExit"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.LoadBytes([]byte(tc.config))
			if err == nil {
				t.Fatalf("want an error, got config %+v", cfg)
			}
			if cfg != nil {
				t.Errorf("want no config with an error, got %+v", cfg)
			}
			errs := fieldErrors(t, err)
			if got := paths(errs); !reflect.DeepEqual(got, tc.wantPaths) {
				t.Errorf("paths = %q, want %q\nerror: %v", got, tc.wantPaths, err)
			}
			for _, m := range tc.wantMsg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not contain %q", err, m)
				}
			}
			for _, e := range errs {
				if e.Message == "" {
					t.Errorf("error at %q has no message", e.Path)
				}
			}
		})
	}
}

// TestLoadTypeErrorInList checks that a wrong type inside a list names the
// list entry by its index and the field by its YAML name.
func TestLoadTypeErrorInList(t *testing.T) {
	tests := []struct {
		name, config, path, msg string
	}{
		{"command is not a list", "  sidecars:\n  - name: a\n    waitForReady: {command: 5}\n", "spec.sidecars[0].waitForReady.command", "expected a list, found the integer 5"},
		{"sleepCommand is not a list", "  sidecars:\n  - name: a\n  - name: b\n    sleepCommand: /bin/sleep\n", "spec.sidecars[1].sleepCommand", `expected a list, found the string "/bin/sleep"`},
		{"selector entry is not a mapping", "  targets: {include: [{kind: Job}, Deployment]}\n", "spec.targets.include[1]", `expected a mapping, found the string "Deployment"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.LoadBytes([]byte(header + "spec:\n" + tc.config))
			errs := fieldErrors(t, err)
			if len(errs) != 1 {
				t.Fatalf("want one error, got %v", err)
			}
			if errs[0].Path != tc.path || errs[0].Message != tc.msg {
				t.Errorf("error = %s: %s, want %s: %s", errs[0].Path, errs[0].Message, tc.path, tc.msg)
			}
		})
	}
}

// TestLoadErrorsHaveNoGoNames checks that no config error names a Go type
// or field, whatever is wrong.
func TestLoadErrorsHaveNoGoNames(t *testing.T) {
	for _, cfg := range []string{
		"  sidecars: [{name: a, startupProbe: {httpGet: {port: [1]}, exec: {command: 1}, initialDelaySeconds: 1.5}}]\n",
		"  sidecars: [{name: a, startupProbe: {tcpSocket: {port: true, host: 1}, grpc: {service: []}}}]\n",
		"  podSpecPaths: [{kind: 1, path: {}}]\n  terminationGracePeriod: []\n",
	} {
		_, err := config.LoadBytes([]byte(header + "spec:\n" + cfg))
		if err == nil {
			t.Fatalf("no error for %q", cfg)
		}
		for _, goName := range []string{"ProbeHandler", "int32", "v1.", "IntOrString", "Go struct", "config.", "TCPSocket", "HTTPGet"} {
			if strings.Contains(err.Error(), goName) {
				t.Errorf("error names %q: %v", goName, err)
			}
		}
	}
}

func TestLoadAcceptedVersionAndModeCombinations(t *testing.T) {
	tests := []struct {
		name, spec string
	}{
		{"native from 1.29", "  mode: native\n  kubernetesVersion: \"1.29\"\n"},
		{"auto below 1.29", "  mode: auto\n  kubernetesVersion: \"1.27\"\n"},
		{"cloud-sql-proxy exit delay from 1.30", "  kubernetesVersion: \"1.30\"\n  sidecars: [{preset: cloud-sql-proxy, waitBeforeExit: 30s}]\n"},
		{"cloud-sql-proxy exit delay in native mode", "  mode: native\n  kubernetesVersion: \"1.29\"\n  sidecars: [{preset: cloud-sql-proxy, waitBeforeExit: 30s}]\n"},
		{"cloud-sql-proxy with sleepCommand below 1.30", "  kubernetesVersion: \"1.28\"\n  sidecars: [{preset: cloud-sql-proxy, waitBeforeExit: 30s, sleepCommand: [/bin/sleep]}]\n"},
		{"cloud-sql-proxy without exit delay below 1.30", "  kubernetesVersion: \"1.28\"\n  sidecars: [{preset: cloud-sql-proxy}]\n"},
		{"linkerd exit delay below 1.30 sleeps with its binary", "  kubernetesVersion: \"1.28\"\n  sidecars: [{preset: linkerd, waitBeforeExit: 30s}]\n"},
		{"valid globs and selectors", "  targets:\n    include:\n    - {kind: \"Deploy*\", name: \"web-?\", namespace: \"prod-[a-z]*\", labelSelector: \"tier in (web,api),!legacy\"}\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := config.LoadBytes([]byte(header + "spec:\n" + tc.spec)); err != nil {
				t.Errorf("unexpected error: %v", err)
			}
		})
	}
}

func TestErrorsFormat(t *testing.T) {
	errs := config.Errors{
		{Path: "spec.mode", Message: `"x" is not one of ordered, native, auto`},
		{Message: "no path"},
	}
	want := `spec.mode: "x" is not one of ordered, native, auto; no path`
	if got := errs.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// TestLoadErrorsBounded: a config whose every list entry has the same
// mistakes, through aliases, gives a bounded list of errors.
func TestLoadErrorsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(header + "spec:\n  app: &bad {" + strings.Repeat("x", 1) + "0: 1")
	for i := 1; i < 100; i++ {
		fmt.Fprintf(&b, ", x%d: 1", i)
	}
	b.WriteString("}\n  targets:\n    include: [")
	for i := 0; i < 2000; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("*bad")
	}
	b.WriteString("]\n")
	_, err := config.LoadBytes([]byte(b.String()))
	errs := fieldErrors(t, err)
	if len(errs) != 51 {
		t.Fatalf("%d errors, want 50 and one that counts the rest", len(errs))
	}
	if last := errs[50]; last.Path != "functionConfig" || last.Message != "has 200050 more problems; fix the ones above first" {
		t.Errorf("last error = %s", last)
	}
}
