package driver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

// itemFragments are items as entries of a block sequence at column 0, with
// the YAML the streaming path has to cut and re-encode exactly: comments in
// many places, block scalars of every chomping, anchors, aliases and merge
// keys inside an item (on the sidecar too), comment blocks and blank lines
// between list entries, a duplicate key, tags, quoting, flow style, empty
// annotations, complex keys, long lines.
var itemFragments = []string{
	`- # A pod with a proxy second.
  apiVersion: v1
  kind: Pod
  metadata:
    name: web # line comment
    namespace: shop
  spec:
    containers:
    # the app
    - name: app
      image: app:1
      readinessProbe: {httpGet: {path: /healthz, port: 8080}}
    - name: linkerd-proxy
      image: proxy:2
      # end of the proxy
    initContainers:
    - name: linkerd-init
`,
	`- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: api, namespace: shop, labels: {app: api}}
  spec:
    template:
      metadata:
        annotations: {}
      spec:
        terminationGracePeriodSeconds: 20 # agreed
        containers: [{name: app, image: "api:1"}, {name: linkerd-proxy, image: 'proxy:2'}]
`,
	`- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: scripts
    annotations: {}
  data:
    keep: |+
      line

    strip: >-
      folded
      text
    indented: |2
        two more
    script: |
      #!/bin/sh
      # not a comment
      echo "---"
`,
	`- apiVersion: apps/v1
  kind: StatefulSet
  metadata:
    name: db
    labels: &labels
      app: db
  spec:
    selector:
      matchLabels: *labels
    template:
      metadata:
        labels:
          <<: *labels
          tier: data
      spec:
        containers:
        - &proxy
          name: linkerd-proxy
          image: proxy:2
        - name: db
          image: !!str 15
          args: [--a=1, "on", 'no', ~, null]
`,
	`- apiVersion: v1
  kind: Namespace
  metadata:
    name: quiet
    annotations:
      sidecar-lifecycle.dev/skip: "true"
`,
	`- apiVersion: v1
  kind: Pod
  metadata: {name: skipped, namespace: quiet}
  spec:
    containers: [{name: app}, {name: linkerd-proxy}]
`,
	`- {apiVersion: v1, kind: Pod, metadata: {name: flow}, spec: {containers: [{name: app}, {name: linkerd-proxy}]}}
`,
	`- apiVersion: batch/v1
  kind: Job
  metadata:
    name: "Name\x73pace \u00e9"
    annotations:
      note: "escaped\
        line"
      plain: a plain
        multi-line scalar
  spec:
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: job
        - name: linkerd-proxy
          lifecycle:
            postStart:
              exec:
                command: [/bin/true]
`,
	`- apiVersion: v1
  kind: Service
  metadata:
    name: svc
  spec:
    ? selector
    : app: web
    ports:
    - port: 80

`,
	`- apiVersion: v1
  kind: Secret
  metadata: {name: s}
  type: Opaque
  data:
    key: !!binary aGVsbG8=
    custom: !thing value
    long: LONGVALUE
`,
	`-
  apiVersion: v1
  kind: Pod
  metadata:
    name: dash-alone
  spec:
    containers:
      - name: linkerd-proxy
      - name: app
`,
	`- apiVersion: v1
  kind: Namespace
  metadata: {name: "Namespace", annotations: {sidecar-lifecycle.dev/skip: "false"}}
`,
	`- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: aliased}
  spec:
    template:
      spec:
        containers:
        - &app
          name: app
          env: &env
          - {name: A, value: "1"}
          resources: &res {requests: {cpu: 1m}}
          readinessProbe: &probe {httpGet: {port: 8080}}
        - <<: *app
          name: linkerd-proxy
          env: *env
          resources: *res
          readinessProbe: *probe
        - <<: [{name: extra}, *app]
`,
	`- apiVersion: v1
  kind: Pod
  metadata: {name: vendor-comments}
  spec:
    containers:
    - name: app
    - name: linkerd-proxy
      env:
      # Replace the port

      # with your own
      - name: PORT
        value: "5432"

      # If connecting over private IP

      # - name: PRIVATE_IP
      #   value: "true"

      # Health checks
      - name: HEALTH
        value: "true"

      # - name: LOGS
      #   value: "true"
      args: [--quiet]
`,
	`- apiVersion: v1
  kind: Pod
  metadata: {name: duplicate}
  spec:
    containers:
    - name: app
    - name: linkerd-proxy
      lifecycle: {}
      lifecycle: {}
`,
}

// randomConfigs are functionConfigs for the random lists, or none.
var randomConfigs = []string{
	"",
	"  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  data: {preset: linkerd, waitBeforeExit: 10s}\n",
	"  apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\n  kind: SidecarLifecycle\n  metadata:\n    name: c # the config\n  spec:\n    rolloutOnChange: true\n    sidecars:\n    - preset: linkerd\n      waitBeforeExit: 30s\n    app: {drainDelay: 5s}\n",
	"  apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\n  kind: SidecarLifecycle\n  spec: {action: validate, sidecars: [{preset: linkerd}]}\n",
	"  apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\n  kind: SidecarLifecycle\n  spec: {mode: native, sidecars: [{preset: linkerd, ifAbsent: fail}]}\n",
	"  apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\n  kind: SidecarLifecycle\n  spec: {sidecars: [{preset: linkerd, waitBeforeExit: soon}]}\n",
}

// randomList is a random YAML list (randomYAML), sometimes with CRLF line
// breaks or a byte order mark, or as JSON on one line or pretty-printed.
func randomList(r *rand.Rand) string {
	in := randomYAML(r)
	switch r.Intn(10) {
	case 0:
		return strings.ReplaceAll(in, "\n", "\r\n")
	case 1:
		return "\ufeff" + in
	case 2, 3:
		node, err := yaml.Parse(in)
		if err != nil {
			return in
		}
		b, err := node.MarshalJSON()
		if err != nil {
			return in
		}
		if r.Intn(2) == 0 {
			return string(b)
		}
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, b, "", strings.Repeat(" ", r.Intn(5))); err != nil {
			return in
		}
		return pretty.String()
	}
	return in
}

// randomYAML builds a ResourceList from random fragments, then disturbs it:
// comment and blank lines at random places and depths and between items,
// line comments, the functionConfig before or after the items, the items
// indented.
func randomYAML(r *rand.Rand) string {
	var items []string
	for n := 1 + r.Intn(6); n > 0; n-- {
		items = append(items, strings.Replace(itemFragments[r.Intn(len(itemFragments))], "LONGVALUE", strings.Repeat("x", r.Intn(2)*70000), 1))
	}
	lines := strings.SplitAfter(strings.Join(items, ""), "\n")
	lines = lines[:len(lines)-1]
	for n := r.Intn(4); n > 0; n-- {
		at := 1 + r.Intn(len(lines))
		var insert string
		switch r.Intn(4) {
		case 3:
			for at < len(lines) && !strings.HasPrefix(lines[at], "- ") {
				at++
			}
			for k := 1 + r.Intn(3); k > 0; k-- {
				insert += strings.Repeat("\n", r.Intn(3)) + fmt.Sprintf("# between items %d\n", r.Intn(100))
			}
			insert += strings.Repeat("\n", r.Intn(3))
		case 0:
			insert = strings.Repeat(" ", r.Intn(12)) + "# inserted\n"
		case 1:
			insert = "\n"
		default:
			line := strings.TrimSuffix(lines[at-1], "\n")
			lines[at-1] = line + " # appended\n"
			continue
		}
		lines = append(lines[:at], append([]string{insert}, lines[at:]...)...)
	}
	body := strings.Join(lines, "")
	if r.Intn(4) == 0 {
		var b strings.Builder
		for _, line := range strings.SplitAfter(body, "\n") {
			if line != "" && line != "\n" {
				b.WriteString("  ")
			}
			b.WriteString(line)
		}
		body = b.String()
	}
	head := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n"
	if r.Intn(5) == 0 {
		head = "# from an earlier function\n" + head + "metadata: {name: list}\n"
	}
	tail := ""
	if r.Intn(5) == 0 {
		tail = "results:\n- message: from an earlier function # kept?\n  severity: info\n"
	}
	cfg := randomConfigs[r.Intn(len(randomConfigs))]
	switch {
	case cfg == "":
		return head + "items:\n" + body + tail
	case r.Intn(2) == 0:
		return head + "functionConfig:\n" + cfg + "items:\n" + body + tail
	}
	return head + "items:\n" + body + "functionConfig:\n" + cfg + tail
}

// TestStreamRandomLists compares the streaming and whole-list paths on
// thousands of random lists of tricky items, checks that the streaming
// path takes most of them, and that a second run changes no item. STREAM_RANDOM_LISTS=n runs n lists from a new
// seed instead.
func TestStreamRandomLists(t *testing.T) {
	n, seed := 600, int64(1)
	if testing.Short() {
		n = 100
	}
	if v, err := strconv.Atoi(os.Getenv("STREAM_RANDOM_LISTS")); err == nil {
		n, seed = v, time.Now().UnixNano()
		t.Logf("seed %d", seed)
	}
	r := rand.New(rand.NewSource(seed))
	streamed := 0
	for i := 0; i < n; i++ {
		in := randomList(r)
		ok, problem := compareRuns([]byte(in))
		if problem != "" {
			t.Fatalf("list %d: %s\ninput:\n%s", i, problem, in)
		}
		if ok {
			streamed++
		}
		if problem := secondRunChanges([]byte(in)); problem != "" {
			t.Fatalf("list %d: %s\ninput:\n%s", i, problem, in)
		}
	}
	t.Logf("the streaming path took %d of %d random lists", streamed, n)
	if streamed < n/3 {
		t.Errorf("the streaming path took only %d of %d random lists", streamed, n)
	}
}

// secondRunChanges runs the function on in and, when that succeeds, on its
// output, and describes how the items changed the second time.
func secondRunChanges(in []byte) string {
	var first, second bytes.Buffer
	if driver.Run(bytes.NewReader(in), &first) != nil {
		return ""
	}
	if err := driver.Run(bytes.NewReader(first.Bytes()), &second); err != nil {
		return fmt.Sprintf("the second run failed: %v", err)
	}
	a, errA := krmtest.Split(first.Bytes())
	b, errB := krmtest.Split(second.Bytes())
	if errA != nil || errB != nil {
		return fmt.Sprintf("outputs do not parse: %v, %v", errA, errB)
	}
	x, _ := krmtest.Stream(a.Items)
	y, _ := krmtest.Stream(b.Items)
	if !bytes.Equal(x, y) {
		return "not idempotent:\n" + krmtest.Diff(string(x), string(y))
	}
	return ""
}
