package grace_test

import (
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/grace"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// sidecarSleeping is a pod spec whose sidecar has a 40 s preStop sleep action.
const sidecarSleeping = `# pod spec
containers:
- name: linkerd-proxy # first
  lifecycle:
    preStop:
      sleep:
        seconds: 40
- name: app
`

func TestFilter(t *testing.T) {
	tests := []struct {
		name   string
		spec   string
		policy config.GracePolicy
		margin time.Duration
		// floor is Filter.Floor: a delay to cover even without a preStop.
		floor int64
		// want is the exact output; "" means unchanged.
		want              string
		changes, warnings []string
		errors            []string
		// wantGrace is grace.Current of the output.
		wantGrace int64
	}{
		{
			name:   "absent field is raised from the default 30",
			spec:   sidecarSleeping,
			policy: config.GraceRaise, margin: 10 * time.Second,
			want: `# pod spec
containers:
- name: linkerd-proxy # first
  lifecycle:
    preStop:
      sleep:
        seconds: 40
- name: app
terminationGracePeriodSeconds: 50
`,
			changes:   []string{"raised terminationGracePeriodSeconds from 30 to 50 (preStop of linkerd-proxy 40s + margin 10s)"},
			wantGrace: 50,
		},
		{
			name: "present field is raised in place",
			spec: `terminationGracePeriodSeconds: 20
containers:
- name: s
  lifecycle: {preStop: {exec: {command: [/bin/sleep, "30"]}}}
`,
			policy: config.GraceRaise, margin: 10 * time.Second,
			want: `terminationGracePeriodSeconds: 40
containers:
- name: s
  lifecycle: {preStop: {exec: {command: [/bin/sleep, "30"]}}}
`,
			changes:   []string{"raised terminationGracePeriodSeconds from 20 to 40 (preStop of s 30s + margin 10s)"},
			wantGrace: 40,
		},
		{
			name: "the application's own drain counts: a shell preStop that sleeps first",
			spec: `terminationGracePeriodSeconds: 60
containers:
- name: linkerd-proxy
  lifecycle: {preStop: {sleep: {seconds: 30}}}
- name: app
  lifecycle: {preStop: {exec: {command: [/bin/bash, -c, 'sleep 130 && while pkill -QUIT -f myapp; do sleep 1; done']}}}
`,
			policy: config.GraceRaise, margin: 10 * time.Second,
			want: `terminationGracePeriodSeconds: 140
containers:
- name: linkerd-proxy
  lifecycle: {preStop: {sleep: {seconds: 30}}}
- name: app
  lifecycle: {preStop: {exec: {command: [/bin/bash, -c, 'sleep 130 && while pkill -QUIT -f myapp; do sleep 1; done']}}}
`,
			changes:   []string{"raised terminationGracePeriodSeconds from 60 to 140 (preStop of app 130s + margin 10s)"},
			wantGrace: 140,
		},
		{
			name:   "an httpGet preStop has no duration to cover",
			spec:   "terminationGracePeriodSeconds: 20\ncontainers:\n- name: app\n  lifecycle: {preStop: {httpGet: {path: /drain, port: 80}}}\n",
			policy: config.GraceRaise, margin: 10 * time.Second,
			wantGrace: 20,
		},
		{
			name:   "absent field: the default 30 covers 15 s + 10 s",
			spec:   "containers:\n- name: s\n  lifecycle: {preStop: {sleep: {seconds: 15}}}\n",
			policy: config.GraceRaise, margin: 10 * time.Second,
			wantGrace: 30,
		},
		{
			name:   "exactly enough",
			spec:   "terminationGracePeriodSeconds: 50\ncontainers:\n- name: s\n  lifecycle: {preStop: {sleep: {seconds: 40}}}\n",
			policy: config.GraceRaise, margin: 10 * time.Second,
			wantGrace: 50,
		},
		{
			name:   "never lowered",
			spec:   "terminationGracePeriodSeconds: 300\ncontainers:\n- name: s\n  lifecycle: {preStop: {sleep: {seconds: 40}}}\n",
			policy: config.GraceRaise, margin: 10 * time.Second,
			wantGrace: 300,
		},
		{
			name:   "no preStop sleep",
			spec:   "terminationGracePeriodSeconds: 5\ncontainers:\n- name: s\n  lifecycle: {preStop: {exec: {command: [/drain.sh]}}}\n",
			policy: config.GraceRaise, margin: time.Minute,
			wantGrace: 5,
		},
		{
			name:   "empty list",
			spec:   "containers: []\n",
			policy: config.GraceRaise, margin: time.Minute,
			wantGrace: 30,
		},
		{
			name:   "margin rounds up to whole seconds",
			spec:   "containers:\n- name: s\n  lifecycle: {preStop: {sleep: {seconds: 40}}}\n",
			policy: config.GraceRaise, margin: 1500 * time.Millisecond,
			want:      "containers:\n- name: s\n  lifecycle: {preStop: {sleep: {seconds: 40}}}\nterminationGracePeriodSeconds: 42\n",
			changes:   []string{"from 30 to 42 (preStop of s 40s + margin 1.5s)"},
			wantGrace: 42,
		},
		{
			name:   "zero margin",
			spec:   "terminationGracePeriodSeconds: 30\ncontainers:\n- name: s\n  lifecycle: {preStop: {sleep: {seconds: 30}}}\n",
			policy: config.GraceRaise, margin: 0,
			wantGrace: 30,
		},
		{
			name: "the longest preStop counts, also of init containers and shell sleeps",
			spec: `initContainers:
- name: istio-proxy
  restartPolicy: Always
  lifecycle: {preStop: {exec: {command: [sh, -c, "sleep 45"]}}}
containers:
- name: a
  lifecycle: {preStop: {sleep: {seconds: 20}}}
- name: b
  lifecycle: {preStop: {exec: {command: [/bin/sleep, "60"]}}}
- name: c
  lifecycle: {preStop: {sleep: {seconds: 60}}}
`,
			policy: config.GraceRaise, margin: 5 * time.Second,
			want: `initContainers:
- name: istio-proxy
  restartPolicy: Always
  lifecycle: {preStop: {exec: {command: [sh, -c, "sleep 45"]}}}
containers:
- name: a
  lifecycle: {preStop: {sleep: {seconds: 20}}}
- name: b
  lifecycle: {preStop: {exec: {command: [/bin/sleep, "60"]}}}
- name: c
  lifecycle: {preStop: {sleep: {seconds: 60}}}
terminationGracePeriodSeconds: 65
`,
			changes:   []string{"from 30 to 65 (preStop of b 60s + margin 5s)"},
			wantGrace: 65,
		},
		{
			name:   "warn: warning, unchanged",
			spec:   sidecarSleeping,
			policy: config.GraceWarn, margin: 10 * time.Second,
			warnings:  []string{"terminationGracePeriodSeconds is 30, shorter than ...preStop of linkerd-proxy (40s) + margin 10s = 50: the pod may be killed before it drains; raise it to 50 or set terminationGracePeriod.policy to raise"},
			errors:    []string{"the preStop sleep action of linkerd-proxy (40s) is longer than terminationGracePeriodSeconds (30)"},
			wantGrace: 30,
		},
		{
			name:   "warn: an exec sleep longer than the grace period is only a warning",
			spec:   "terminationGracePeriodSeconds: 10\ncontainers:\n- name: s\n  lifecycle: {preStop: {exec: {command: [/bin/sleep, \"40\"]}}}\n",
			policy: config.GraceWarn, margin: 10 * time.Second,
			warnings:  []string{"terminationGracePeriodSeconds is 10, shorter than ...preStop of s (40s) + margin 10s = 50"},
			wantGrace: 10,
		},
		{
			name:   "warn: enough for the sleep, not for the margin",
			spec:   "terminationGracePeriodSeconds: 45\ncontainers:\n- name: s\n  lifecycle: {preStop: {sleep: {seconds: 40}}}\n",
			policy: config.GraceWarn, margin: 10 * time.Second,
			warnings:  []string{"is 45, shorter than"},
			wantGrace: 45,
		},
		{
			name:   "keep: silent, unchanged",
			spec:   "terminationGracePeriodSeconds: 45\ncontainers:\n- name: s\n  lifecycle: {preStop: {sleep: {seconds: 40}}}\n",
			policy: config.GraceKeep, margin: 10 * time.Second,
			wantGrace: 45,
		},
		{
			name:   "keep: a sleep action above the grace period is an error",
			spec:   sidecarSleeping,
			policy: config.GraceKeep, margin: 10 * time.Second,
			errors:    []string{"the preStop sleep action of linkerd-proxy (40s) is longer than terminationGracePeriodSeconds (30), which the API server rejects: raise terminationGracePeriodSeconds or set terminationGracePeriod.policy to raise"},
			wantGrace: 30,
		},
		{
			name:   "keep: a sleep action equal to the grace period is valid",
			spec:   "terminationGracePeriodSeconds: 40\ncontainers:\n- name: s\n  lifecycle: {preStop: {sleep: {seconds: 40}}}\n",
			policy: config.GraceKeep, margin: 10 * time.Second,
			wantGrace: 40,
		},
		{
			name: "keep: every sleep action above the grace period is an error",
			spec: `terminationGracePeriodSeconds: 10
initContainers:
- name: i
  lifecycle: {preStop: {sleep: {seconds: 15}}}
containers:
- name: a
  lifecycle: {preStop: {sleep: {seconds: 20}}}
- name: b
  lifecycle: {preStop: {exec: {command: [/bin/sleep, "25"]}}}
`,
			policy: config.GraceKeep, margin: 0,
			errors:    []string{"sleep action of i (15s)", "sleep action of a (20s)"},
			wantGrace: 10,
		},
		{
			name:   "keep: an exec sleep above the grace period is not an error",
			spec:   "terminationGracePeriodSeconds: 10\ncontainers:\n- name: s\n  lifecycle: {preStop: {exec: {command: [/bin/sleep, \"40\"]}}}\n",
			policy: config.GraceKeep, margin: 10 * time.Second,
			wantGrace: 10,
		},
		{
			name:   "raise: a sleep action above the old grace period is fine once raised",
			spec:   "terminationGracePeriodSeconds: 10\ncontainers:\n- name: s\n  lifecycle: {preStop: {sleep: {seconds: 40}}}\n",
			policy: config.GraceRaise, margin: 0,
			want:      "terminationGracePeriodSeconds: 40\ncontainers:\n- name: s\n  lifecycle: {preStop: {sleep: {seconds: 40}}}\n",
			changes:   []string{"from 10 to 40 (preStop of s 40s + margin 0s)"},
			wantGrace: 40,
		},
		{
			name:   "floor without any preStop",
			spec:   "containers:\n- name: cloud-sql-proxy\n  restartPolicy: Always\n",
			policy: config.GraceRaise, margin: 10 * time.Second, floor: 60,
			want:      "containers:\n- name: cloud-sql-proxy\n  restartPolicy: Always\nterminationGracePeriodSeconds: 70\n",
			changes:   []string{"from 30 to 70 (...waitBeforeExit 60s + margin 10s)"},
			wantGrace: 70,
		},
		{
			name:   "a longer preStop wins over the floor",
			spec:   "containers:\n- name: s\n  lifecycle: {preStop: {sleep: {seconds: 40}}}\n",
			policy: config.GraceRaise, margin: 10 * time.Second, floor: 20,
			want:      "containers:\n- name: s\n  lifecycle: {preStop: {sleep: {seconds: 40}}}\nterminationGracePeriodSeconds: 50\n",
			changes:   []string{"from 30 to 50 (preStop of s 40s + margin 10s)"},
			wantGrace: 50,
		},
		{
			name:   "raise: a preStop longer than kubelet can count is covered up to its limit, and said so",
			spec:   "containers:\n- name: app\n  lifecycle: {preStop: {exec: {command: [sleep, \"9999999999\"]}}}\n",
			policy: config.GraceRaise, margin: 10 * time.Second,
			want:      "containers:\n- name: app\n  lifecycle: {preStop: {exec: {command: [sleep, \"9999999999\"]}}}\nterminationGracePeriodSeconds: 9223372036\n",
			changes:   []string{"raised terminationGracePeriodSeconds from 30 to 9223372036 (preStop of app 9999999999s + margin 10s, capped at the most kubelet can count)"},
			warnings:  []string{"preStop of app 9999999999s + margin 10s needs a grace period of 10000000009, longer than kubelet can count (at most 9223372036 seconds): the pod is killed before it ends; shorten it"},
			wantGrace: 9223372036,
		},
		{
			name:   "raise: a sleep past the int64 limit never writes a grace period kubelet wraps",
			spec:   "containers:\n- name: app\n  lifecycle: {preStop: {exec: {command: [sleep, \"9223372036854775807\"]}}}\n",
			policy: config.GraceRaise, margin: 10 * time.Second,
			want:      "containers:\n- name: app\n  lifecycle: {preStop: {exec: {command: [sleep, \"9223372036854775807\"]}}}\nterminationGracePeriodSeconds: 9223372036\n",
			changes:   []string{"from 30 to 9223372036 (...capped at the most kubelet can count)"},
			warnings:  []string{"needs a grace period of 9223372036854775807, longer than kubelet can count"},
			wantGrace: 9223372036,
		},
		{
			name:   "raise: a preStop that fits exactly is not capped",
			spec:   "containers:\n- name: app\n  lifecycle: {preStop: {exec: {command: [sleep, \"9223372026\"]}}}\n",
			policy: config.GraceRaise, margin: 10 * time.Second,
			want:      "containers:\n- name: app\n  lifecycle: {preStop: {exec: {command: [sleep, \"9223372026\"]}}}\nterminationGracePeriodSeconds: 9223372036\n",
			changes:   []string{"raised terminationGracePeriodSeconds from 30 to 9223372036 (preStop of app 9223372026s + margin 10s)"},
			wantGrace: 9223372036,
		},
		{
			name:   "raise: a sleep action longer than kubelet can count is an error that says to shorten it",
			spec:   "containers:\n- name: app\n  lifecycle: {preStop: {sleep: {seconds: 9999999999}}}\n",
			policy: config.GraceRaise, margin: 10 * time.Second,
			want:      "containers:\n- name: app\n  lifecycle: {preStop: {sleep: {seconds: 9999999999}}}\nterminationGracePeriodSeconds: 9223372036\n",
			changes:   []string{"from 30 to 9223372036"},
			warnings:  []string{"needs a grace period of 10000000009"},
			errors:    []string{"the preStop sleep action of app (9999999999s) is longer than terminationGracePeriodSeconds (9223372036), which the API server rejects, and longer than kubelet can count (at most 9223372036 seconds): shorten it"},
			wantGrace: 9223372036,
		},
		{
			name:   "warn: a preStop longer than kubelet can count is one warning, with no impossible raise",
			spec:   "containers:\n- name: app\n  lifecycle: {preStop: {exec: {command: [sleep, \"9999999999\"]}}}\n",
			policy: config.GraceWarn, margin: 10 * time.Second,
			warnings:  []string{"needs a grace period of 10000000009, longer than kubelet can count (at most 9223372036 seconds): the pod is killed before it ends; shorten it"},
			wantGrace: 30,
		},
		{
			name:   "an input grace period kubelet wraps is a warning, whatever the policy",
			spec:   "terminationGracePeriodSeconds: 9223372037\ncontainers:\n- name: s\n  lifecycle: {preStop: {sleep: {seconds: 40}}}\n",
			policy: config.GraceKeep, margin: 10 * time.Second,
			warnings:  []string{"terminationGracePeriodSeconds is 9223372037, longer than kubelet can count: it multiplies the seconds by time.Second in an int64 of nanoseconds, which wraps around above 9223372036; set it to at most 9223372036"},
			wantGrace: 9223372037,
		},
		{
			name:   "an input grace period kubelet wraps is reported with no preStop too",
			spec:   "terminationGracePeriodSeconds: 9223372036854775807\ncontainers: [{name: s}]\n",
			policy: config.GraceRaise, margin: 10 * time.Second,
			warnings:  []string{"terminationGracePeriodSeconds is 9223372036854775807, longer than kubelet can count"},
			wantGrace: 9223372036854775807,
		},
		{
			name:   "floor within the default grace period",
			spec:   "containers: [{name: s}]\n",
			policy: config.GraceRaise, margin: 10 * time.Second, floor: 20,
			wantGrace: 30,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := krmtest.Parse(t, tc.spec)
			before := spec.MustString()
			log := &report.Log{}
			out, err := grace.Filter{Policy: tc.policy, Margin: tc.margin, Floor: tc.floor, Log: log}.Filter([]*yaml.RNode{spec})
			if err != nil {
				t.Fatalf("Filter: %v", err)
			}
			if len(out) != 1 || out[0] != spec {
				t.Fatalf("Filter returned %d nodes, want the input spec", len(out))
			}
			got := spec.MustString()
			want := tc.want
			if want == "" {
				want = before
			}
			if got != want {
				t.Errorf("output:\n%s\nwant:\n%s", got, want)
			}
			if g := grace.Current(spec); g != tc.wantGrace {
				t.Errorf("grace period after = %d, want %d", g, tc.wantGrace)
			}
			krmtest.CheckLog(t, "changes", log.Changes, tc.changes)
			krmtest.CheckLog(t, "warnings", log.Warnings, tc.warnings)
			krmtest.CheckLog(t, "errors", log.Errors, tc.errors)
		})
	}
}

func TestFilterIdempotent(t *testing.T) {
	krmtest.CheckFilterIdempotent(t, krmtest.Parse(t, sidecarSleeping), func(log *report.Log) kio.Filter {
		return grace.Filter{Policy: config.GraceRaise, Margin: 10 * time.Second, Log: log}
	})
}

func TestCurrent(t *testing.T) {
	tests := []struct {
		spec string
		want int64
	}{
		{"containers: []\n", 30},
		{"terminationGracePeriodSeconds: 45\n", 45},
		{"terminationGracePeriodSeconds: 0\n", 0},
		{"terminationGracePeriodSeconds: \"60\"\n", 60},
		{"terminationGracePeriodSeconds:\n", 30},
		{"terminationGracePeriodSeconds: null\n", 30},
		{"terminationGracePeriodSeconds: soon\n", 30},
	}
	for _, tc := range tests {
		if got := grace.Current(krmtest.Parse(t, tc.spec)); got != tc.want {
			t.Errorf("Current(%q) = %d, want %d", tc.spec, got, tc.want)
		}
	}
}

func TestLongest(t *testing.T) {
	tests := []struct {
		name     string
		spec     string
		want     int64
		wantName string
	}{
		{"none", "containers: [{name: a}]\n", 0, ""},
		{"empty", "containers: []\n", 0, ""},
		{"sleep action", "containers: [{name: a, lifecycle: {preStop: {sleep: {seconds: 9}}}}]\n", 9, "a"},
		{"postStart does not count", "containers: [{name: a, lifecycle: {postStart: {exec: {command: [sleep, \"99\"]}}}}]\n", 0, ""},
		{"the first of equals", "containers: [{name: a, lifecycle: {preStop: {sleep: {seconds: 9}}}}, {name: b, lifecycle: {preStop: {sleep: {seconds: 9}}}}]\n", 9, "a"},
		{"init container", "initContainers: [{name: i, lifecycle: {preStop: {sleep: {seconds: 50}}}}]\ncontainers: [{name: a, lifecycle: {preStop: {sleep: {seconds: 9}}}}]\n", 50, "i"},
		{"shell sleep", "containers: [{name: a, lifecycle: {preStop: {exec: {command: [/bin/sh, -c, \"sleep 12\"]}}}}]\n", 12, "a"},
		{"a script is not a sleep", "containers: [{name: a, lifecycle: {preStop: {exec: {command: [/drain.sh, \"99\"]}}}}]\n", 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The name says which container sleeps longest; it may be
			// worded ("preStop of a"), so only its end is checked.
			got, name := grace.Longest(krmtest.Parse(t, tc.spec))
			if got != tc.want || !strings.HasSuffix(name, tc.wantName) || (tc.wantName == "") != (name == "") {
				t.Errorf("Longest = %d, %q; want %d, %q", got, name, tc.want, tc.wantName)
			}
		})
	}
}

// TestFilterLongestNearInt64: a preStop that sleeps almost the int64 limit
// plus the margin does not wrap around to a negative grace period that is
// never raised, and is capped at what kubelet can count, not at the int64
// limit the API server takes (kubelet would wrap that around).
func TestFilterLongestNearInt64(t *testing.T) {
	spec := krmtest.Parse(t, "containers:\n- name: app\n  lifecycle: {preStop: {exec: {command: [sleep, \"9223372036854775800\"]}}}\n")
	var log report.Log
	if _, err := (grace.Filter{Policy: config.GraceRaise, Margin: 10 * time.Second, Log: &log}).Filter([]*yaml.RNode{spec}); err != nil {
		t.Fatal(err)
	}
	if got := grace.Current(spec); got != grace.KubeletMaxSeconds {
		t.Errorf("grace period %d, want %d; changes %q", got, grace.KubeletMaxSeconds, log.Changes)
	}
	if grace.KubeletMaxSeconds != 9223372036 {
		t.Errorf("KubeletMaxSeconds = %d, want 9223372036", grace.KubeletMaxSeconds)
	}
}
