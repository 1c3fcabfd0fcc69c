package ordered_test

import (
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/ordered"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

var linkerdAwait = []string{"/usr/lib/linkerd/linkerd-await", "--timeout=2m", "--port=4191"}

func waitForReady(container string, cmd []string, policy config.ExistingHooks) func(*report.Log) kio.Filter {
	return func(log *report.Log) kio.Filter {
		return ordered.WaitForReady{Container: container, Command: cmd, ExistingHooks: policy, Log: log}
	}
}

// foreignPostStart is a sidecar whose postStart this function did not write.
const foreignPostStart = `containers:
- name: linkerd-proxy
  lifecycle:
    # the team's own check
    postStart: # do not touch
      httpGet: {path: /warmup, port: 8080}
- name: app
`

func TestWaitForReady(t *testing.T) {
	tests := []filterCase{
		{
			name: "added to a sidecar without lifecycle",
			spec: `containers:
# the proxy
- name: linkerd-proxy # injected
  image: proxy
- name: app
`,
			filter: waitForReady("linkerd-proxy", linkerdAwait, config.HooksKeep),
			want: `containers:
# the proxy
- name: linkerd-proxy # injected
  image: proxy
  lifecycle:
    postStart:
      exec:
        command:
        - /usr/lib/linkerd/linkerd-await
        - --timeout=2m
        - --port=4191
- name: app
`,
			changes: []string{`added postStart ["/usr/lib/linkerd/linkerd-await", "--timeout=2m", "--port=4191"] to linkerd-proxy`},
		},
		{
			name:   "added next to an existing preStop",
			spec:   "containers:\n- name: s\n  lifecycle:\n    preStop: {sleep: {seconds: 5}} # keep\n",
			filter: waitForReady("s", []string{"pilot-agent", "wait"}, config.HooksKeep),
			want: `containers:
- name: s
  lifecycle:
    preStop: {sleep: {seconds: 5}} # keep
    postStart:
      exec:
        command:
        - pilot-agent
        - wait
`,
			changes: []string{`added postStart ["pilot-agent", "wait"] to s`},
		},
		{
			name:    "added to a flow-style container",
			spec:    "containers: [{name: app}, {name: s}]\n",
			filter:  waitForReady("s", []string{"wait", "30"}, config.HooksKeep),
			want:    "containers: [{name: app}, {name: s, lifecycle: {postStart: {exec: {command: [wait, \"30\"]}}}}]\n",
			changes: []string{`added postStart ["wait", "30"] to s`},
		},
		{
			name:    "an empty postStart counts as none and keeps its flow style",
			spec:    "containers:\n- name: s\n  lifecycle:\n    postStart: {}\n",
			filter:  waitForReady("s", []string{"wait"}, config.HooksFail),
			want:    "containers:\n- name: s\n  lifecycle:\n    postStart: {exec: {command: [wait]}}\n",
			changes: []string{"added postStart"},
		},
		{
			name: "same command: bytes identical, nothing logged",
			spec: `containers:
- name: linkerd-proxy
  lifecycle:
    postStart: # ours
      exec:
        command: [/usr/lib/linkerd/linkerd-await, --timeout=2m, --port=4191] # flow
`,
			filter:    waitForReady("linkerd-proxy", linkerdAwait, config.HooksFail),
			unchanged: true,
		},
		{
			name: "same program, other args: updated and logged",
			spec: `containers:
- name: linkerd-proxy
  lifecycle:
    # wait for the proxy
    postStart: # blocks
      exec:
        command:
        - /usr/lib/linkerd/linkerd-await
        - --timeout=30s
`,
			filter: waitForReady("linkerd-proxy", linkerdAwait, config.HooksFail),
			want: `containers:
- name: linkerd-proxy
  lifecycle:
    # wait for the proxy
    postStart: # blocks
      exec:
        command:
        - /usr/lib/linkerd/linkerd-await
        - --timeout=2m
        - --port=4191
`,
			changes: []string{`updated postStart of linkerd-proxy to ["/usr/lib/linkerd/linkerd-await", "--timeout=2m", "--port=4191"]`},
		},
		{
			name: "other program, keep: warning and unchanged",
			spec: `containers:
- name: linkerd-proxy
  lifecycle:
    postStart:
      exec: {command: [/bin/check-mesh]} # the team's
`,
			filter:    waitForReady("linkerd-proxy", linkerdAwait, config.HooksKeep),
			unchanged: true,
			warnings:  []string{"linkerd-proxy keeps its own postStart hook (existingHooks: keep): it may not wait for readiness; set existingHooks to replace to have the function write its own"},
		},
		{
			name:      "other handler, keep: warning and unchanged",
			spec:      foreignPostStart,
			filter:    waitForReady("linkerd-proxy", linkerdAwait, config.HooksKeep),
			unchanged: true,
			warnings:  []string{"existingHooks: keep"},
		},
		{
			name:      "unset policy behaves as keep",
			spec:      foreignPostStart,
			filter:    waitForReady("linkerd-proxy", linkerdAwait, ""),
			unchanged: true,
			warnings:  []string{"keeps its own postStart hook"},
		},
		{
			name:   "other handler, replace: replaced, key comments kept, logged",
			spec:   foreignPostStart,
			filter: waitForReady("linkerd-proxy", linkerdAwait, config.HooksReplace),
			want: `containers:
- name: linkerd-proxy
  lifecycle:
    # the team's own check
    postStart: # do not touch
      exec:
        command:
        - /usr/lib/linkerd/linkerd-await
        - --timeout=2m
        - --port=4191
- name: app
`,
			absent:  []string{"httpGet"},
			changes: []string{"replaced the postStart hook of linkerd-proxy (existingHooks: replace)"},
		},
		{
			name:      "other handler, fail: error and unchanged",
			spec:      foreignPostStart,
			filter:    waitForReady("linkerd-proxy", linkerdAwait, config.HooksFail),
			unchanged: true,
			errors:    []string{"linkerd-proxy already has a postStart hook that this function did not write: remove it, or set existingHooks to keep or replace"},
		},
		{
			name:      "sidecar absent",
			spec:      "containers: [{name: app}]\n",
			filter:    waitForReady("linkerd-proxy", linkerdAwait, config.HooksKeep),
			unchanged: true,
		},
		{
			name:      "sidecar only in initContainers is not touched",
			spec:      "initContainers:\n- name: linkerd-proxy # native\n  restartPolicy: Always\ncontainers: [{name: app}]\n",
			filter:    waitForReady("linkerd-proxy", linkerdAwait, config.HooksReplace),
			unchanged: true,
		},
		{
			name:      "no command",
			spec:      "containers: [{name: s}]\n",
			filter:    waitForReady("s", nil, config.HooksReplace),
			unchanged: true,
		},
		{
			name:      "empty list",
			spec:      "containers: []\n",
			filter:    waitForReady("s", linkerdAwait, config.HooksReplace),
			unchanged: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, tc.run)
	}
}

func exitDelay(container string, seconds int64, sleep ordered.Sleep, policy config.ExistingHooks) func(*report.Log) kio.Filter {
	return func(log *report.Log) kio.Filter {
		return ordered.ExitDelay{
			Container: container, Seconds: seconds, Sleep: sleep,
			NoSleepMessage: "give sleepCommand", ExistingHooks: policy, Log: log,
		}
	}
}

var (
	sleepAction = ordered.Sleep{Action: true}
	sleepExec   = ordered.Sleep{Command: []string{"/bin/sleep"}}
)

// foreignPreStop is a sidecar whose preStop does more than sleep.
const foreignPreStop = `containers:
- name: istio-proxy
  lifecycle:
    preStop: # drain connections
      exec:
        command: [/usr/local/bin/pilot-agent, request, POST, drain]
- name: app
`

func TestExitDelay(t *testing.T) {
	tests := []filterCase{
		{
			name: "sleep action added",
			spec: `containers:
- name: linkerd-proxy # the proxy
  lifecycle:
    postStart:
      exec:
        command: [wait]
- name: app
`,
			filter: exitDelay("linkerd-proxy", 30, sleepAction, config.HooksKeep),
			want: `containers:
- name: linkerd-proxy # the proxy
  lifecycle:
    postStart:
      exec:
        command: [wait]
    preStop:
      sleep:
        seconds: 30
- name: app
`,
			changes: []string{"added preStop sleep 30s to linkerd-proxy"},
		},
		{
			name:   "exec sleep added without the sleep action",
			spec:   "containers:\n- name: linkerd-proxy\n",
			filter: exitDelay("linkerd-proxy", 30, sleepExec, config.HooksKeep),
			want: `containers:
- name: linkerd-proxy
  lifecycle:
    preStop:
      exec:
        command:
        - /bin/sleep
        - "30"
`,
			changes: []string{"added preStop sleep 30s to linkerd-proxy"},
		},
		{
			name:      "same sleep action: bytes identical, nothing logged",
			spec:      "containers:\n- name: s\n  lifecycle:\n    preStop: {sleep: {seconds: 30}} # ours\n",
			filter:    exitDelay("s", 30, sleepAction, config.HooksFail),
			unchanged: true,
		},
		{
			name:      "same exec sleep: bytes identical, nothing logged",
			spec:      "containers:\n- name: s\n  lifecycle:\n    preStop:\n      exec:\n        command: [/bin/sleep, \"30\"]\n",
			filter:    exitDelay("s", 30, sleepExec, config.HooksFail),
			unchanged: true,
		},
		{
			name: "/bin/sleep N is taken as own and updated",
			spec: `containers:
- name: s
  lifecycle:
    # give the app time
    preStop: # sleep first
      exec:
        command: [/bin/sleep, "5"]
`,
			filter: exitDelay("s", 20, sleepAction, config.HooksFail),
			want: `containers:
- name: s
  lifecycle:
    # give the app time
    preStop: # sleep first
      sleep:
        seconds: 20
`,
			changes: []string{"set preStop sleep of s to 20s"},
		},
		{
			name:    `sh -c "sleep N" is taken as own and updated`,
			spec:    "containers:\n- name: s\n  lifecycle:\n    preStop: {exec: {command: [sh, -c, \"sleep 5\"]}}\n",
			filter:  exitDelay("s", 20, sleepExec, config.HooksFail),
			want:    "containers:\n- name: s\n  lifecycle:\n    preStop: {exec: {command: [/bin/sleep, \"20\"]}}\n",
			changes: []string{"set preStop sleep of s to 20s"},
		},
		{
			name:    "exec sleep of the same length becomes a sleep action",
			spec:    "containers:\n- name: s\n  lifecycle:\n    preStop:\n      exec:\n        command: [/bin/sleep, \"30\"]\n",
			filter:  exitDelay("s", 30, sleepAction, config.HooksFail),
			inOrder: []string{"preStop:", "sleep:", "seconds: 30"},
			absent:  []string{"exec", "/bin/sleep"},
			changes: []string{"set preStop sleep of s to 30s"},
		},
		{
			name:    "sleep action becomes exec sleep below 1.30",
			spec:    "containers:\n- name: s\n  lifecycle:\n    preStop:\n      sleep: {seconds: 30}\n",
			filter:  exitDelay("s", 30, ordered.Sleep{Command: []string{"/busybox/sleep"}}, config.HooksFail),
			inOrder: []string{"preStop:", "exec:", "command:", "- /busybox/sleep", `- "30"`},
			absent:  []string{"seconds"},
			changes: []string{"set preStop sleep of s to 30s"},
		},
		{
			name:      "other preStop, keep: warning and unchanged",
			spec:      foreignPreStop,
			filter:    exitDelay("istio-proxy", 30, sleepAction, config.HooksKeep),
			unchanged: true,
			warnings:  []string{"istio-proxy keeps its own preStop hook (existingHooks: keep): it may exit before the application drains; set existingHooks to replace to have the function write its own"},
		},
		{
			name:   "other preStop, replace: replaced and logged",
			spec:   foreignPreStop,
			filter: exitDelay("istio-proxy", 30, sleepAction, config.HooksReplace),
			want: `containers:
- name: istio-proxy
  lifecycle:
    preStop: # drain connections
      sleep:
        seconds: 30
- name: app
`,
			changes: []string{"replaced the preStop hook of istio-proxy (existingHooks: replace)"},
		},
		{
			name:      "other preStop, fail: error and unchanged",
			spec:      foreignPreStop,
			filter:    exitDelay("istio-proxy", 30, sleepAction, config.HooksFail),
			unchanged: true,
			errors:    []string{"istio-proxy already has a preStop hook that this function did not write"},
		},
		{
			name:      "no way to sleep: error that says what to do",
			spec:      "containers:\n- name: cloud-sql-proxy\n",
			filter:    exitDelay("cloud-sql-proxy", 30, ordered.Sleep{}, config.HooksKeep),
			unchanged: true,
			errors:    []string{"cloud-sql-proxy: waitBeforeExit 30s: give sleepCommand"},
		},
		{
			name:      "no way to sleep, but already the right sleep action",
			spec:      "containers:\n- name: s\n  lifecycle: {preStop: {sleep: {seconds: 30}}}\n",
			filter:    exitDelay("s", 30, ordered.Sleep{}, config.HooksKeep),
			unchanged: true,
			errors:    []string{"waitBeforeExit 30s"},
		},
		{
			name:      "zero seconds leaves the container alone",
			spec:      "containers:\n- name: s\n  lifecycle: {preStop: {sleep: {seconds: 30}}}\n",
			filter:    exitDelay("s", 0, sleepAction, config.HooksReplace),
			unchanged: true,
		},
		{
			name:      "sidecar absent",
			spec:      "containers: [{name: app}]\ninitContainers: [{name: s}]\n",
			filter:    exitDelay("s", 30, sleepAction, config.HooksReplace),
			unchanged: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, tc.run)
	}
}

func appDrain(seconds int64, sleep ordered.Sleep, sidecars ...string) func(*report.Log) kio.Filter {
	return func(log *report.Log) kio.Filter {
		return ordered.AppDrain{Sidecars: sidecars, Seconds: seconds, Sleep: sleep, Log: log}
	}
}

func TestAppDrain(t *testing.T) {
	tests := []filterCase{
		{
			name: "sidecars and containers with a preStop are skipped",
			spec: `initContainers:
- name: migrate # an init container gets no drain delay
containers:
- name: linkerd-proxy
- name: app # the app
- name: worker
  lifecycle:
    preStop: # its own
      exec: {command: [/stop.sh]}
- name: metrics
`,
			filter: appDrain(5, sleepAction, "linkerd-proxy"),
			want: `initContainers:
- name: migrate # an init container gets no drain delay
containers:
- name: linkerd-proxy
- name: app # the app
  lifecycle:
    preStop:
      sleep:
        seconds: 5
- name: worker
  lifecycle:
    preStop: # its own
      exec: {command: [/stop.sh]}
- name: metrics
  lifecycle:
    preStop:
      sleep:
        seconds: 5
`,
			changes: []string{
				"added preStop sleep 5s to app (app drain delay)",
				"added preStop sleep 5s to metrics (app drain delay)",
			},
		},
		{
			name:    "exec sleep without the sleep action, flow style",
			spec:    "containers: [{name: app}, {name: s}]\n",
			filter:  appDrain(7, sleepExec, "s"),
			want:    "containers: [{name: app, lifecycle: {preStop: {exec: {command: [/bin/sleep, \"7\"]}}}}, {name: s}]\n",
			changes: []string{"added preStop sleep 7s to app (app drain delay)"},
		},
		{
			name:    "a postStart does not count as a preStop",
			spec:    "containers:\n- name: app\n  lifecycle:\n    postStart: {exec: {command: [warm]}}\n",
			filter:  appDrain(5, sleepAction),
			inOrder: []string{"postStart: {exec: {command: [warm]}}", "preStop:", "seconds: 5"},
			changes: []string{"added preStop sleep 5s to app"},
		},
		{
			name:      "an existing sleep is left alone, even of another length",
			spec:      "containers:\n- name: app\n  lifecycle:\n    preStop: {sleep: {seconds: 2}}\n",
			filter:    appDrain(5, sleepAction),
			unchanged: true,
		},
		{
			name:      "zero seconds",
			spec:      "containers: [{name: app}]\n",
			filter:    appDrain(0, sleepAction),
			unchanged: true,
		},
		{
			name:      "only sidecars",
			spec:      "containers: [{name: a}, {name: b}]\n",
			filter:    appDrain(5, sleepAction, "a", "b"),
			unchanged: true,
		},
		{
			name:      "empty list",
			spec:      "containers: []\ninitContainers: [{name: init}]\n",
			filter:    appDrain(5, sleepAction),
			unchanged: true,
		},
		{
			name:      "no containers",
			spec:      "restartPolicy: Always\n",
			filter:    appDrain(5, sleepAction),
			unchanged: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, tc.run)
	}
}
