package elide_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/elide"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/emit"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/scan"
)

// canonical is the item as emit.ItemText writes it, which ScanItem must
// accept.
func canonical(t *testing.T, doc string) []byte {
	t.Helper()
	node, err := yaml.Parse(doc)
	if err != nil {
		t.Fatal(err)
	}
	text, err := emit.ItemText(node)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := scan.ScanItem(text); !ok {
		t.Fatalf("ScanItem does not take the item:\n%s", text)
	}
	return text
}

// proxy is the only sidecar of the tests.
func proxy(name, image string) bool { return name == "linkerd-proxy" }

var deploymentPath = []string{"spec", "template", "spec"}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
spec:
  template:
    spec:
      containers:
      - name: app
        image: shop/app:1
        env:
        - name: APP_SETTING
          value: one
        - name: APP_SCRIPT
          value: |
            first

            third
        resources:
          limits:
            cpu: "1"
        volumeMounts:
        - name: data
          mountPath: /data
        securityContext:
          runAsUser: 1000
        ports:
        - containerPort: 8080
      - name: linkerd-proxy
        image: cr.l5d.io/linkerd/proxy:stable-2.14.10
        env:
        - name: PROXY_SETTING
          value: kept
`

// TestReduce: the elided blocks are those of Keys in the containers that
// are not sidecars; the reduced text is an item ScanItem takes, and it
// restores, as it is or parsed and encoded again, to the item's text.
func TestReduce(t *testing.T) {
	cronJob := `apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly
spec:
  jobTemplate:
    spec:
      template:
        spec:
          initContainers:
          - name: migrate
            envFrom:
            - configMapRef:
                name: migrate
          containers:
          - env:
            - name: FIRST_KEY
              value: x
            name: "job"
            image: 'shop/job:1'
`
	for _, c := range []struct {
		name, doc     string
		path          []string
		elided        int
		gone, present []string
	}{
		{"a deployment", deployment, deploymentPath, 4,
			[]string{"APP_SETTING", "APP_SCRIPT", "limits", "mountPath", "runAsUser"},
			[]string{"PROXY_SETTING", "containerPort: 8080", "image: shop/app:1"}},
		{"a cron job, an init container, a key on the entry's line, quoted names", cronJob,
			[]string{"spec", "jobTemplate", "spec", "template", "spec"}, 2,
			[]string{"FIRST_KEY", "configMapRef"}, []string{`name: "job"`, "name: migrate"}},
		{"an item that holds the first placeholder prefix", strings.Replace(deployment, "value: one", "value: elided-one", 1), deploymentPath, 4,
			[]string{"APP_SETTING", "runAsUser"}, []string{"PROXY_SETTING"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := canonical(t, c.doc)
			it, ok := elide.Reduce(text, c.path, proxy)
			if !ok || it.Elided() != c.elided {
				t.Fatalf("Reduce: ok %v, elided %d; want %d", ok, it.Elided(), c.elided)
			}
			for _, s := range c.gone {
				if bytes.Contains(it.Text, []byte(s)) {
					t.Errorf("%q is in the reduced text:\n%s", s, it.Text)
				}
			}
			for _, s := range c.present {
				if !bytes.Contains(it.Text, []byte(s)) {
					t.Errorf("%q is not in the reduced text:\n%s", s, it.Text)
				}
			}
			if _, ok := scan.ScanItem(it.Text); !ok {
				t.Errorf("ScanItem does not take the reduced text:\n%s", it.Text)
			}
			if got, ok := it.Restore(it.Text); !ok || !bytes.Equal(got, text) {
				t.Errorf("Restore of the reduced text: ok %v\n%s\nwant\n%s", ok, got, text)
			}
			node, err := yamlio.ParseItem(it.Text)
			if err != nil {
				t.Fatal(err)
			}
			encoded, err := emit.ItemText(node)
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := it.Restore(encoded); !ok || !bytes.Equal(got, text) {
				t.Errorf("Restore of the reduced text encoded again: ok %v\n%s\nwant\n%s", ok, got, text)
			}
		})
	}
}

// TestReduceNothing: no pod spec where the path says, no container list,
// no block to elide, or only containers that are sidecars or whose name
// or image is not read: nothing is elided.
func TestReduceNothing(t *testing.T) {
	for _, c := range []struct{ name, doc string }{
		{"another path", strings.Replace(deployment, "template:", "templates:", 1)},
		{"a pod spec that is not a mapping", "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec: none\n"},
		{"empty containers", "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers: none\n"},
		{"env not a block", "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        env: null\n        resources: none\n"},
		{"no name", "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - image: app\n        env:\n        - name: A\n          value: b\n"},
		{"a name in a block scalar", "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - name: |\n          app\n        env:\n        - name: A\n          value: b\n"},
		{"an image in a block scalar", "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        image: |-\n          app\n        env:\n        - name: A\n          value: b\n"},
		{"a container that is a block scalar", "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - |\n        name: app\n        env:\n        - x\n"},
		{"only the sidecar", "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - name: linkerd-proxy\n        env:\n        - name: A\n          value: b\n"},
		{"every placeholder prefix in the item", strings.Replace(deployment, "value: one", "value: elided- elided-block- sidecar-lifecycle-elided- elided-value-of-key-", 1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if it, ok := elide.Reduce(canonical(t, c.doc), deploymentPath, proxy); ok {
				t.Errorf("Reduce elided %d blocks:\n%s", it.Elided(), it.Text)
			}
		})
	}
}

// reduceDeployment reduces the test deployment and returns its text, the
// item, and the placeholder of its first block.
func reduceDeployment(t *testing.T) ([]byte, *elide.Item, string) {
	t.Helper()
	text := canonical(t, deployment)
	it, ok := elide.Reduce(text, deploymentPath, proxy)
	if !ok {
		t.Fatal("nothing elided")
	}
	_, after, _ := bytes.Cut(it.Text, []byte("\n          env: "))
	first, _, _ := bytes.Cut(after, []byte("\n"))
	return text, it, string(first)
}

// TestRestoreMoved: a key at another column gets its block moved as far;
// the blank line of a literal block scalar stays blank.
func TestRestoreMoved(t *testing.T) {
	text, it, first := reduceDeployment(t)
	for _, delta := range []int{2, -2, 4} {
		key := "\n          env: " + first + "\n"
		moved := "\n" + strings.Repeat(" ", 10+delta) + "env: " + first + "\n"
		got, ok := it.Restore(bytes.Replace(it.Text, []byte(key), []byte(moved), 1))
		if !ok {
			t.Fatalf("moved by %d: not restored", delta)
		}
		var want bytes.Buffer
		start := bytes.Index(text, []byte("\n          env:\n")) + 1
		end := bytes.Index(text, []byte("\n          resources:\n")) + 1
		want.Write(text[:start])
		for _, line := range strings.SplitAfter(string(text[start:end]), "\n") {
			switch {
			case line == "" || line == "\n":
				want.WriteString(line)
			case delta > 0:
				want.WriteString(strings.Repeat(" ", delta) + line)
			default:
				want.WriteString(line[-delta:])
			}
		}
		want.Write(text[end:])
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("moved by %d:\n%s\nwant\n%s", delta, got, want.Bytes())
		}
	}
	onDash := bytes.Replace(it.Text, []byte("        - name: app\n          image: shop/app:1\n          env: "+first+"\n"),
		[]byte("        - env: "+first+"\n          name: app\n          image: shop/app:1\n"), 1)
	got, ok := it.Restore(onDash)
	if !ok || !bytes.Contains(got, []byte("\n        - env:\n          - name: APP_SETTING\n")) {
		t.Errorf("a key on its entry's line: ok %v\n%s", ok, got)
	}
}

// TestRestoreFails: unless each placeholder is alone on its key's line
// once, and the prefix nowhere else, Restore reports false.
func TestRestoreFails(t *testing.T) {
	_, it, first := reduceDeployment(t)
	prefix := strings.TrimRight(first, "0123456789")
	line := "\n          env: " + first + "\n"
	for _, c := range []struct{ name, old, new string }{
		{"missing", line, "\n"},
		{"twice", line, line + line[1:]},
		{"under another key", line, "\n          envs: " + first + "\n"},
		{"quoted", line, "\n          env: '" + first + "'\n"},
		{"with more after it", line, "\n          env: " + first + " more\n"},
		{"the prefix elsewhere", "image: shop/app:1", "image: " + prefix + "image"},
		{"a placeholder as a list entry", "image: shop/app:1\n", "image: shop/app:1\n          command:\n          - " + first + "\n"},
		{"an index out of range", line, line + "          args: " + prefix + "99\n"},
		{"an index with a leading zero", line, "\n          env: " + prefix + "0" + strings.TrimPrefix(first, prefix) + "\n"},
	} {
		encoded := strings.Replace(string(it.Text), c.old, c.new, 1)
		if encoded == string(it.Text) {
			t.Fatalf("%s: the text did not change", c.name)
		}
		if got, ok := it.Restore([]byte(encoded)); ok {
			t.Errorf("%s: restored\n%s", c.name, got)
		}
	}
}

// ExampleReduce shows the reduced text of a small Deployment.
func ExampleReduce() {
	text := []byte(`- apiVersion: apps/v1
  kind: Deployment
  spec:
    template:
      spec:
        containers:
        - name: app
          env:
          - name: A
            value: b
        - name: linkerd-proxy
          env:
          - name: C
            value: d
`)
	it, _ := elide.Reduce(text, []string{"spec", "template", "spec"}, func(name, image string) bool { return name == "linkerd-proxy" })
	fmt.Print(string(it.Text))
	// Output:
	// - apiVersion: apps/v1
	//   kind: Deployment
	//   spec:
	//     template:
	//       spec:
	//         containers:
	//         - name: app
	//           env: elided-0
	//         - name: linkerd-proxy
	//           env:
	//           - name: C
	//             value: d
}
