package hook_test

import (
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/hook"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

func TestGetAndExec(t *testing.T) {
	tests := []struct {
		name      string
		container string
		hook      string
		wantHook  bool
		wantCmd   []string
		wantExec  bool
	}{
		{"block exec", `name: s
lifecycle:
  postStart: # wait
    exec:
      command:
      - /usr/lib/linkerd/linkerd-await
      - --timeout=2m
`, hook.PostStart, true, []string{"/usr/lib/linkerd/linkerd-await", "--timeout=2m"}, true},
		{"flow exec", "name: s\nlifecycle: {preStop: {exec: {command: [sh, -c, \"sleep 5\"]}}}\n", hook.PreStop, true, []string{"sh", "-c", "sleep 5"}, true},
		{"other hook", "name: s\nlifecycle: {preStop: {exec: {command: [a]}}}\n", hook.PostStart, false, nil, false},
		{"no lifecycle", "name: s\n", hook.PreStop, false, nil, false},
		{"empty handler", "name: s\nlifecycle: {preStop: {}}\n", hook.PreStop, false, nil, false},
		{"null handler", "name: s\nlifecycle:\n  preStop:\n", hook.PreStop, false, nil, false},
		{"sleep action", "name: s\nlifecycle: {preStop: {sleep: {seconds: 5}}}\n", hook.PreStop, true, nil, false},
		{"httpGet", "name: s\nlifecycle: {postStart: {httpGet: {path: /ready, port: 4191}}}\n", hook.PostStart, true, nil, false},
		{"command not a list", "name: s\nlifecycle: {postStart: {exec: {command: /bin/true}}}\n", hook.PostStart, true, nil, false},
		{"empty command", "name: s\nlifecycle: {postStart: {exec: {command: []}}}\n", hook.PostStart, true, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := krmtest.Parse(t, tc.container)
			if got := hook.Get(c, tc.hook); (got != nil) != tc.wantHook {
				t.Errorf("Get = %v, want a hook: %v", got, tc.wantHook)
			}
			cmd, ok := hook.Exec(c, tc.hook)
			if ok != tc.wantExec || !reflect.DeepEqual(cmd, tc.wantCmd) {
				t.Errorf("Exec = %q, %v; want %q, %v", cmd, ok, tc.wantCmd, tc.wantExec)
			}
		})
	}
}

func TestSleepActionAndSleepSeconds(t *testing.T) {
	tests := []struct {
		name       string
		preStop    string // the preStop handler, flow style; "" for none
		wantAction int64
		wantIsAct  bool
		wantSleep  int64
		wantSleeps bool
	}{
		{"sleep action", "{sleep: {seconds: 30}}", 30, true, 30, true},
		{"sleep action zero", "{sleep: {seconds: 0}}", 0, true, 0, true},
		{"sleep action quoted", `{sleep: {seconds: "15"}}`, 15, true, 15, true},
		{"sleep action garbage", "{sleep: {seconds: soon}}", 0, false, 0, false},
		{"sleep action without seconds", "{sleep: {}}", 0, false, 0, false},
		{"exec /bin/sleep", "{exec: {command: [/bin/sleep, \"20\"]}}", 0, false, 20, true},
		{"exec sleep", "{exec: {command: [sleep, \"7\"]}}", 0, false, 7, true},
		{"exec sh -c sleep", "{exec: {command: [sh, -c, \"sleep 12\"]}}", 0, false, 12, true},
		{"exec /bin/sh -c sleep", "{exec: {command: [/bin/sh, -c, \"sleep 12\"]}}", 0, false, 12, true},
		{"exec bash -c sleep", "{exec: {command: [bash, -c, \" sleep  9 \"]}}", 0, false, 9, true},
		{"exec drain script", "{exec: {command: [/drain.sh]}}", 0, false, 0, false},
		{"httpGet", "{httpGet: {path: /shutdown, port: 8080}}", 0, false, 0, false},
		{"none", "", 0, false, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := "name: s\n"
			if tc.preStop != "" {
				src += "lifecycle:\n  preStop: " + tc.preStop + "\n"
			}
			c := krmtest.Parse(t, src)
			if got, ok := hook.SleepAction(c, hook.PreStop); got != tc.wantAction || ok != tc.wantIsAct {
				t.Errorf("SleepAction = %d, %v; want %d, %v", got, ok, tc.wantAction, tc.wantIsAct)
			}
			if got, ok := hook.SleepSeconds(c, hook.PreStop); got != tc.wantSleep || ok != tc.wantSleeps {
				t.Errorf("SleepSeconds = %d, %v; want %d, %v", got, ok, tc.wantSleep, tc.wantSleeps)
			}
			if _, ok := hook.SleepSeconds(c, hook.PostStart); ok {
				t.Error("SleepSeconds(postStart) found a sleep in the preStop")
			}
		})
	}
}

func TestSleepCommandSeconds(t *testing.T) {
	tests := []struct {
		cmd  []string
		want int64
		ok   bool
	}{
		{[]string{"/bin/sleep", "30"}, 30, true},
		{[]string{"sleep", "5"}, 5, true},
		{[]string{"/usr/bin/sleep", "0"}, 0, true},
		{[]string{"/bin/sleep", "-1"}, 0, false},
		{[]string{"/bin/sleep", "30s"}, 0, false},
		{[]string{"/bin/sleep", "infinity"}, 0, false},
		{[]string{"/bin/sleep"}, 0, false},
		{[]string{"/bin/sleep", "1", "2"}, 0, false},
		{[]string{"sh", "-c", "sleep 30"}, 30, true},
		{[]string{"/bin/sh", "-c", "sleep 30"}, 30, true},
		{[]string{"/bin/bash", "-c", "sleep 4"}, 4, true},
		{[]string{"sh", "-c", "/bin/sleep 8"}, 8, true},
		{[]string{"sh", "-c", "sleep 30 && kill 1"}, 0, false},
		{[]string{"sh", "-c", "sleep"}, 0, false},
		{[]string{"sh", "-c", "echo 30"}, 0, false},
		{[]string{"sh", "-e", "sleep 30"}, 0, false},
		{[]string{"zsh", "-c", "sleep 30"}, 0, false},
		{[]string{"busybox", "sleep", "30"}, 0, false},
		{[]string{"/bin/sleepy", "30"}, 0, false},
		{nil, 0, false},
	}
	for _, tc := range tests {
		// The seconds only count when ok.
		if got, ok := hook.SleepCommandSeconds(tc.cmd); ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("SleepCommandSeconds(%q) = %d, %v; want %d, %v", tc.cmd, got, ok, tc.want, tc.ok)
		}
	}
}

func TestStringList(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		want   string
	}{
		{"plain", []string{"/usr/lib/linkerd/linkerd-await", "--timeout=2m", "--port=4191"},
			"- /usr/lib/linkerd/linkerd-await\n- --timeout=2m\n- --port=4191\n"},
		{"a number stays a string", []string{"/bin/sleep", "30"}, "- /bin/sleep\n- \"30\"\n"},
		{"other YAML 1.2 scalars stay strings", []string{"true", "null", "1.5", "~", "0x1F", ""},
			"- \"true\"\n- \"null\"\n- \"1.5\"\n- \"~\"\n- \"0x1F\"\n- \"\"\n"},
		{"shell text", []string{"sh", "-c", "sleep 5 && echo: done"}, "- sh\n- -c\n- \"sleep 5 && echo: done\"\n"},
		{"YAML 1.1 booleans stay strings for kubectl", []string{"/check", "on", "no", "y"}, "- /check\n- \"on\"\n- \"no\"\n- \"y\"\n"},
		{"empty", nil, "[]\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			seq := hook.StringList(tc.values...)
			got := seq.MustString()
			if got != tc.want {
				t.Errorf("StringList encodes as\n%s\nwant\n%s", got, tc.want)
			}
			// Decoding gives back the same strings.
			back := hook.Strings(krmtest.Parse(t, got))
			if len(tc.values) > 0 && !reflect.DeepEqual(back, tc.values) {
				t.Errorf("round trip = %q, want %q", back, tc.values)
			}
		})
	}
}

func TestInt(t *testing.T) {
	n := hook.Int(40)
	if n.YNode().Tag != yaml.NodeTagInt || n.YNode().Value != "40" {
		t.Errorf("Int(40) = %q %q", n.YNode().Tag, n.YNode().Value)
	}
	if got := n.MustString(); got != "40\n" {
		t.Errorf("Int(40) encodes as %q", got)
	}
}

func TestSetExecAndSetSleep(t *testing.T) {
	tests := []struct {
		name string
		in   string
		set  func(c *yaml.RNode) error
		want string
	}{
		{
			name: "exec added to a container without lifecycle",
			in:   "name: s # the sidecar\nimage: proxy\n",
			set:  func(c *yaml.RNode) error { return hook.SetExec(c, hook.PostStart, []string{"pilot-agent", "wait"}) },
			want: `name: s # the sidecar
image: proxy
lifecycle:
  postStart:
    exec:
      command:
      - pilot-agent
      - wait
`,
		},
		{
			name: "sleep added next to another hook",
			in: `name: s
lifecycle:
  # keep this
  postStart:
    exec:
      command: [wait]
`,
			set: func(c *yaml.RNode) error { return hook.SetSleep(c, hook.PreStop, 30) },
			want: `name: s
lifecycle:
  # keep this
  postStart:
    exec:
      command: [wait]
  preStop:
    sleep:
      seconds: 30
`,
		},
		{
			name: "comments on the hook key are kept, those inside the replaced handler go",
			in: `name: s
lifecycle:
  # why we wait
  postStart: # blocks until ready
    # the old command
    exec:
      command: [old, "1"] # old args
  preStop: {sleep: {seconds: 3}} # short
`,
			set: func(c *yaml.RNode) error { return hook.SetExec(c, hook.PostStart, []string{"new", "2"}) },
			want: `name: s
lifecycle:
  # why we wait
  postStart: # blocks until ready
    exec:
      command:
      - new
      - "2"
  preStop: {sleep: {seconds: 3}} # short
`,
		},
		{
			name: "a flow handler keeps its style and line comment",
			in: `name: s
lifecycle:
  preStop: {exec: {command: [/bin/sleep, "5"]}} # drain
`,
			set: func(c *yaml.RNode) error { return hook.SetSleep(c, hook.PreStop, 20) },
			want: `name: s
lifecycle:
  preStop: {sleep: {seconds: 20}} # drain
`,
		},
		{
			name: "sleep replaced by exec",
			in: `name: s
lifecycle:
  preStop:
    sleep:
      seconds: 5
`,
			set: func(c *yaml.RNode) error { return hook.SetExec(c, hook.PreStop, []string{"/bin/sleep", "5"}) },
			want: `name: s
lifecycle:
  preStop:
    exec:
      command:
      - /bin/sleep
      - "5"
`,
		},
		{
			name: "flow container",
			in:   "{name: s, image: proxy}\n",
			set:  func(c *yaml.RNode) error { return hook.SetSleep(c, hook.PreStop, 5) },
			want: "{name: s, image: proxy, lifecycle: {preStop: {sleep: {seconds: 5}}}}\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := krmtest.Parse(t, tc.in)
			if err := tc.set(c); err != nil {
				t.Fatal(err)
			}
			if got := c.MustString(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestSetReadsBack(t *testing.T) {
	c := krmtest.Parse(t, "name: s\n")
	if err := hook.SetExec(c, hook.PostStart, []string{"/cloud-sql-proxy", "wait", "--max=30s"}); err != nil {
		t.Fatal(err)
	}
	if err := hook.SetSleep(c, hook.PreStop, 45); err != nil {
		t.Fatal(err)
	}
	if cmd, ok := hook.Exec(c, hook.PostStart); !ok || !hook.Equal(cmd, []string{"/cloud-sql-proxy", "wait", "--max=30s"}) {
		t.Errorf("Exec = %q, %v", cmd, ok)
	}
	if s, ok := hook.SleepAction(c, hook.PreStop); !ok || s != 45 {
		t.Errorf("SleepAction = %d, %v", s, ok)
	}
}

func TestRemove(t *testing.T) {
	tests := []struct {
		name, in, hook, want string
	}{
		{
			name: "the last hook takes lifecycle with it",
			in: `name: s # sidecar
lifecycle:
  preStop:
    sleep: {seconds: 5}
image: proxy
`,
			hook: hook.PreStop,
			want: "name: s # sidecar\nimage: proxy\n",
		},
		{
			name: "the other hook stays",
			in: `name: s
lifecycle:
  postStart: {exec: {command: [wait]}} # wait
  preStop: {sleep: {seconds: 5}}
`,
			hook: hook.PreStop,
			want: "name: s\nlifecycle:\n  postStart: {exec: {command: [wait]}} # wait\n",
		},
		{
			name: "absent hook",
			in:   "name: s\nlifecycle:\n  postStart: {exec: {command: [wait]}}\n",
			hook: hook.PreStop,
			want: "name: s\nlifecycle:\n  postStart: {exec: {command: [wait]}}\n",
		},
		{
			name: "no lifecycle",
			in:   "name: s\n",
			hook: hook.PreStop,
			want: "name: s\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := krmtest.Parse(t, tc.in)
			if err := hook.Remove(c, tc.hook); err != nil {
				t.Fatal(err)
			}
			if got := c.MustString(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestRemoveField(t *testing.T) {
	tests := []struct {
		name, in, parent, field, want string
	}{
		{"parent left empty is removed", "name: s\nresources:\n  limits: {cpu: 1}\n", "resources", "limits", "name: s\n"},
		{"parent with other fields stays", "name: s\nresources:\n  limits: {cpu: 1}\n  requests: {cpu: 1}\n", "resources", "limits", "name: s\nresources:\n  requests: {cpu: 1}\n"},
		{"absent field leaves the parent", "name: s\nresources:\n  requests: {cpu: 1}\n", "resources", "limits", "name: s\nresources:\n  requests: {cpu: 1}\n"},
		{"absent parent", "name: s\n", "resources", "limits", "name: s\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := krmtest.Parse(t, tc.in)
			if err := hook.RemoveField(c, tc.parent, tc.field); err != nil {
				t.Fatal(err)
			}
			if got := c.MustString(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestEqual(t *testing.T) {
	tests := []struct {
		a, b []string
		want bool
	}{
		{nil, nil, true},
		{nil, []string{}, true},
		{[]string{"a", "b"}, []string{"a", "b"}, true},
		{[]string{"a", "b"}, []string{"b", "a"}, false},
		{[]string{"a"}, []string{"a", "b"}, false},
	}
	for _, tc := range tests {
		if got := hook.Equal(tc.a, tc.b); got != tc.want {
			t.Errorf("Equal(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestRemoveKeepsComments checks that removing a hook keeps the comments
// written on it in the output, above what takes its place.
func TestRemoveKeepsComments(t *testing.T) {
	tests := []struct {
		name, in, hook string
		// comments must each be in the output, between after and before.
		comments      []string
		after, before string
	}{
		{
			name: "moved to the next hook",
			in: `name: s
lifecycle:
  # wait for the proxy
  postStart: {exec: {command: [wait]}} # written by an earlier run
  preStop: {sleep: {seconds: 5}}
`,
			hook:     hook.PostStart,
			comments: []string{"# wait for the proxy", "# written by an earlier run"},
			after:    "lifecycle:",
			before:   "preStop: {sleep: {seconds: 5}}",
		},
		{
			name: "moved to the container when lifecycle goes",
			in: `name: s
lifecycle:
  # drain first
  preStop:
    sleep:
      seconds: 5 # five seconds
image: proxy
`,
			hook:     hook.PreStop,
			comments: []string{"# drain first", "# five seconds"},
			after:    "name: s",
			before:   "image: proxy",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := krmtest.Parse(t, tc.in)
			if err := hook.Remove(c, tc.hook); err != nil {
				t.Fatal(err)
			}
			got := c.MustString()
			if hook.Get(c, tc.hook) != nil {
				t.Errorf("%s is still there:\n%s", tc.hook, got)
			}
			from, to := strings.Index(got, tc.after), strings.Index(got, tc.before)
			if from < 0 || to < from {
				t.Fatalf("output lacks %q before %q:\n%s", tc.after, tc.before, got)
			}
			between := got[from:to]
			for _, comment := range tc.comments {
				if !strings.Contains(between, comment) {
					t.Errorf("comment %q is not between %q and %q:\n%s", comment, tc.after, tc.before, got)
				}
			}
			if _, err := yaml.Parse(got); err != nil {
				t.Errorf("output does not parse: %v\n%s", err, got)
			}
		})
	}
}
