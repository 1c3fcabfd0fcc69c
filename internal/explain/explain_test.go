package explain_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/explain"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
)

// golden builds the ResourceList of a golden case of the engine.
func golden(t *testing.T, name string) []byte {
	t.Helper()
	dir := filepath.Join("..", "driver", "testdata", name)
	items, err := os.ReadFile(filepath.Join(dir, "items.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := os.ReadFile(filepath.Join(dir, "config.yaml"))
	rl, err := krmtest.ResourceList(items, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rl
}

func render(t *testing.T, rl []byte, format explain.Format) string {
	t.Helper()
	var out bytes.Buffer
	if err := explain.Run(bytes.NewReader(rl), &out, format); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// row is one line of the shutdown table.
type row struct {
	at     int64
	breaks bool
	text   string
}

var (
	textRow     = regexp.MustCompile(`^  (\d+)\s+(!?)\s+(\S.*)$`)
	markdownRow = regexp.MustCompile(`^\| (\d+) \| (.*) \|$`)
)

// rows reads the shutdown table of a text or Markdown explanation.
func rows(t *testing.T, out string, markdown bool) []row {
	t.Helper()
	var rs []row
	for _, line := range strings.Split(out, "\n") {
		if m := textRow.FindStringSubmatch(line); !markdown && m != nil {
			at, _ := strconv.ParseInt(m[1], 10, 64)
			rs = append(rs, row{at, m[2] == "!", m[3]})
		}
		if m := markdownRow.FindStringSubmatch(line); markdown && m != nil {
			at, _ := strconv.ParseInt(m[1], 10, 64)
			text := m[2]
			bold := strings.HasPrefix(text, "**") && strings.HasSuffix(text, "**")
			rs = append(rs, row{at, bold, strings.Trim(text, "*")})
		}
	}
	for i := 1; i < len(rs); i++ {
		if rs[i].at < rs[i-1].at {
			t.Errorf("shutdown rows out of time order: %d after %d", rs[i].at, rs[i-1].at)
		}
	}
	return rs
}

// has reports whether a row at the time, flagged as a break or not, contains all of the words.
func has(rs []row, at int64, breaks bool, words ...string) bool {
	for _, r := range rs {
		if r.at != at || r.breaks != breaks {
			continue
		}
		all := true
		for _, w := range words {
			all = all && strings.Contains(r.text, w)
		}
		if all {
			return true
		}
	}
	return false
}

// TestIssueCase: the case that started the project, in both formats: the
// workload as the function writes it (the grace period raised to 140), the
// proxy leaving at 30 s, the app's SIGTERM at 130 s, the ALB at 300 s.
func TestIssueCase(t *testing.T) {
	rl := golden(t, "budget-issue-case")
	for _, format := range []explain.Format{explain.Text, explain.Markdown} {
		t.Run(string(format), func(t *testing.T) {
			out := render(t, rl, format)
			rs := rows(t, out, format == explain.Markdown)
			wants := []struct {
				at     int64
				breaks bool
				words  []string
			}{
				{0, false, []string{"termination starts"}},
				{0, false, []string{"linkerd-proxy", "preStop starts", "30s"}},
				{0, false, []string{"myapp", "preStop starts", "130s"}},
				{30, true, []string{"linkerd-proxy", "SIGTERM", "leaves"}},
				{130, false, []string{"myapp", "SIGTERM"}},
				{140, false, []string{"grace period ends", "SIGKILL"}},
				{300, true, []string{"Ingress shop/myapp → Service shop/myapp", "stops sending"}},
			}
			for _, w := range wants {
				if !has(rs, w.at, w.breaks, w.words...) {
					t.Errorf("no row at %ds (break %v) with %q in:\n%s", w.at, w.breaks, w.words, out)
				}
			}
			if len(rs) != len(wants) {
				t.Errorf("%d shutdown rows, want %d", len(rs), len(wants))
			}
			order := regexp.MustCompile(`(?m)^\s*1\.\s+` + "`?" + `linkerd-proxy` + "`?" + `:?\s+postStart "/usr/lib/linkerd/linkerd-await[^"]*"[^\n]*\n\s*2\.\s+` + "`?" + `myapp`)
			if !order.MatchString(out) {
				t.Errorf("start-up order is not linkerd-proxy (with its wait) then myapp:\n%s", out)
			}
			for _, b := range []string{"linkerd-proxy leaves at 30s, before the preStop of myapp (130s) ends", "sends for 300s, 170s after the application's drain (130s) ends"} {
				if !strings.Contains(out, b) {
					t.Errorf("break %q missing", b)
				}
			}
		})
	}
}

// TestMermaid: the Markdown chart has a bar per preStop and load balancer,
// from its start to its end in milliseconds, crit where the budget breaks,
// and the grace deadline as a milestone; the load balancer's row is
// labelled short, and the table after the chart names its resources
// (TestMermaidDrawsTheTimeline reads the charts with Mermaid itself,
// TestBrowserDrawsTheChart draws them).
func TestMermaid(t *testing.T) {
	out := render(t, golden(t, "budget-issue-case"), explain.Markdown)
	start := strings.Index(out, "```mermaid\n")
	end := strings.Index(out[start+1:], "```\n")
	if start < 0 || end < 0 {
		t.Fatalf("no mermaid block:\n%s", out)
	}
	chart := out[start : start+1+end]
	for _, line := range []string{
		"gantt", "dateFormat x", "axisFormat %s", "section linkerd-proxy", "preStop 30s :crit, 0, 30000",
		"section myapp", "preStop 130s :0, 130000", "section load balancer 1", "sends 300s :crit, 0, 300000",
		"grace period ends :milestone, 140000, 140000",
	} {
		if !regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(line) + `$`).MatchString(chart) {
			t.Errorf("chart lacks %q:\n%s", line, chart)
		}
	}
	if !strings.Contains(out, "```\n\n| chart row | container or load balancer |\n| --- | --- |\n| load balancer 1 | Ingress shop/myapp → Service shop/myapp |\n") {
		t.Errorf("no table of chart rows after the chart:\n%s", out)
	}
	if !strings.HasPrefix(out, "# Termination budget\n") || !strings.Contains(out, "\n## Deployment shop/myapp\n") {
		t.Errorf("no headings:\n%s", out)
	}
}

// TestNative: a native sidecar starts first and leaves after the app has
// exited; the grace period covers the app's own drain.
func TestNative(t *testing.T) {
	out := render(t, golden(t, "budget-native-grace"), explain.Text)
	rs := rows(t, out, false)
	if !has(rs, 90, false, "api", "SIGTERM") || !has(rs, 90, false, "every container has exited") ||
		!has(rs, 90, false, "linkerd-proxy (sidecar)", "no preStop", "leaves") || !has(rs, 100, false, "grace period ends") {
		t.Errorf("native shutdown wrong:\n%s", out)
	}
	if !regexp.MustCompile(`1\.\s+linkerd-proxy\s+native sidecar: the next container starts once its startupProbe passes\n\s+2\.\s+api`).MatchString(out) {
		t.Errorf("native start-up order wrong:\n%s", out)
	}
	if !strings.Contains(out, "the termination budget holds") {
		t.Errorf("budget should hold:\n%s", out)
	}
}

// TestDescribesMutateOutput: with action validate, explain still shows the
// workload as action mutate writes it: waitBeforeExit auto gives the proxy
// 135 s and the grace period 145 s.
func TestDescribesMutateOutput(t *testing.T) {
	rs := rows(t, render(t, golden(t, "budget-lb-validate"), explain.Text), false)
	if !has(rs, 135, false, "linkerd-proxy", "leaves") || !has(rs, 145, false, "grace period ends") || !has(rs, 300, true, "stops sending") {
		t.Errorf("not the mutate output: %+v", rs)
	}
}

// TestUnknownAndFailed: a preStop whose duration cannot be read is said so
// and not placed; a workload the function fails on shows its error.
func TestUnknownAndFailed(t *testing.T) {
	out := render(t, golden(t, "budget-auto-unreadable"), explain.Text)
	if !strings.Contains(out, "error: linkerd-proxy: waitBeforeExit auto") {
		t.Errorf("no error line:\n%s", out)
	}
	if !has(rows(t, out, false), 0, false, "api", "cannot be read (httpGet)") {
		t.Errorf("unknown preStop not said:\n%s", out)
	}
}

func TestBadInput(t *testing.T) {
	for name, in := range map[string]string{
		"not a ResourceList": "apiVersion: v1\nkind: Pod\n",
		"bad config":         "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig: {apiVersion: fn.sidecar-lifecycle.dev/v1alpha1, kind: SidecarLifecycle, spec: {mode: sideways}}\n",
	} {
		if err := explain.Run(strings.NewReader(in), &bytes.Buffer{}, explain.Text); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := explain.ParseFormat("html"); err == nil {
		t.Error("--explain=html accepted")
	}
	if f, err := explain.ParseFormat(""); err != nil || f != explain.Text {
		t.Errorf("default format %q, %v", f, err)
	}
}

// TestNames: names the API server would reject are flagged, each once,
// in both formats; valid names are not; the text has no control character
// from the input; in Markdown, GitHub's :emoji: and $math$ are escaped too
// (TestMarkdownReadsAsTheTimeline checks the rest with a Markdown parser).
func TestNames(t *testing.T) {
	rl, err := os.ReadFile("testdata/names.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := render(t, rl, explain.Text)
	for _, note := range []string{
		`note: the API server rejects the name "web%%x` + "`" + `y<z>|w:v_a *b* #c; &amp; $x$ ~~s~~ [l](u) \\g :smile:": a lowercase RFC 1123 subdomain`,
		`note: the API server rejects the namespace "Shop_1": a lowercase RFC 1123 label`,
		`note: the API server rejects the init container name "mesh|` + "`x`" + `<y>%%z:w": a lowercase RFC 1123 label`,
		`note: the API server rejects the init container name "proxy#58;ﬂ°°58¶ß"`,
		`note: the API server rejects the container name "app\x1b[31m red"`,
		`note: the API server rejects the name "a-cron-job-whose-name-is-longer-than-fifty-two-characters": a CronJob's name must be no more than 52 characters`,
	} {
		if strings.Count(text, note) != 1 {
			t.Errorf("%q not said once:\n%s", note, text)
		}
	}
	if n := strings.Count(text, "note:"); n != 6 {
		t.Errorf("%d notes, want 6:\n%s", n, text)
	}
	if strings.ContainsRune(text, '\x1b') {
		t.Errorf("a control character reaches the text:\n%q", text)
	}
	md := render(t, rl, explain.Markdown)
	if strings.Count(md, "> **Note:** the API server rejects") != 6 || !strings.Contains(md, `\:smile:`) || !strings.Contains(md, `\$x\$`) || strings.ContainsRune(md, '\x1b') {
		t.Errorf("Markdown notes or escapes wrong:\n%s", md)
	}
	if out := render(t, golden(t, "budget-issue-case"), explain.Text); strings.Contains(out, "note:") {
		t.Errorf("valid names flagged:\n%s", out)
	}
}

// goldenFiles returns a golden case's items (a plain stream) and its
// config node.
func goldenFiles(t *testing.T, name string) ([]byte, *yaml.RNode) {
	t.Helper()
	dir := filepath.Join("..", "driver", "testdata", name)
	items, err := os.ReadFile(filepath.Join(dir, "items.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg *yaml.RNode
	if text, err := os.ReadFile(filepath.Join(dir, "config.yaml")); err == nil {
		cfg = krmtest.Parse(t, string(text))
	}
	return items, cfg
}

// asList wraps a plain stream's documents into one List of the kind.
func asList(t *testing.T, stream []byte, kind string) []byte {
	t.Helper()
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(stream), OmitReaderAnnotations: true}).Read()
	if err != nil {
		t.Fatal(err)
	}
	list := krmtest.Parse(t, "apiVersion: v1\nkind: "+kind+"\nmetadata: {}\nitems: []\n")
	seq := list.Field("items").Value.YNode()
	for _, n := range nodes {
		seq.Content = append(seq.Content, n.YNode())
	}
	seq.Style = 0
	return []byte(list.MustString())
}

// TestInputForms: a plain stream with a config, and the same resources in
// a List (kind List or a typed list), in a ResourceList or a plain stream,
// are explained as the ResourceList of the resources is.
func TestInputForms(t *testing.T) {
	for _, name := range []string{"budget-issue-case", "budget-native-grace", "budget-lb-validate"} {
		items, cfg := goldenFiles(t, name)
		for _, format := range []explain.Format{explain.Text, explain.Markdown} {
			want := render(t, golden(t, name), format)
			plain := func(in []byte) string {
				var out bytes.Buffer
				if err := explain.RunPlain(cfg, bytes.NewReader(in), &out, format); err != nil {
					t.Fatal(err)
				}
				return out.String()
			}
			forms := map[string]string{"plain stream": plain(items)}
			for _, kind := range []string{"List", "DeploymentList"} {
				list := asList(t, items, kind)
				forms[kind+" in a plain stream"] = plain(list)
				var cfgText []byte
				if cfg != nil {
					cfgText = []byte(cfg.MustString())
				}
				rl, err := krmtest.ResourceList(list, cfgText)
				if err != nil {
					t.Fatal(err)
				}
				forms[kind+" in a ResourceList"] = render(t, rl, format)
			}
			for form, got := range forms {
				if got != want {
					t.Errorf("%s, %s as a %s:\n%s\nwant:\n%s", name, format, form, got, want)
				}
			}
		}
	}
}

// TestPlainErrors: a config that does not load and a document that is not
// YAML are one-line errors.
func TestPlainErrors(t *testing.T) {
	bad := krmtest.Parse(t, "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {mode: sideways}\n")
	if err := explain.RunPlain(bad, strings.NewReader(""), &bytes.Buffer{}, explain.Text); err == nil || !strings.HasPrefix(err.Error(), "config: spec.mode") {
		t.Errorf("bad config: %v", err)
	}
	if err := explain.RunPlain(nil, strings.NewReader("kind: Pod\n---\nkind: [\n"), &bytes.Buffer{}, explain.Text); err == nil || !strings.Contains(err.Error(), "line 3: not valid YAML") {
		t.Errorf("bad document: %v", err)
	}
}

// TestLiveList: the workloads of a List from kubectl are explained one by
// one, as action mutate writes them; the ReplicaSets and Pods a
// Deployment owns are not, as the function leaves them to it.
func TestLiveList(t *testing.T) {
	workloads, err := explain.Explain(golden(t, "live-cluster-audit"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range workloads {
		names = append(names, w.Name)
	}
	if got := strings.Join(names, ", "); got != "Deployment shop/api, Deployment shop/web" {
		t.Errorf("explained %s, want the two Deployments", got)
	}
	// Both as the policy wants them: the proxy leaves after its 30s preStop.
	out := render(t, golden(t, "live-cluster-audit"), explain.Text)
	leaves := regexp.MustCompile(`(?m)^  30\s+linkerd-proxy \(sidecar\): preStop ends; SIGTERM, it leaves$`)
	if n := len(leaves.FindAllString(out, -1)); n != 2 {
		t.Errorf("%d workloads whose proxy leaves at 30s, want 2:\n%s", n, out)
	}
}

// TestInjected: a sidecar its mesh injects at admission is in the start-up
// order and the shutdown, marked injected, leaving as its own settings on
// the pod template say: Linkerd's wait-before-exit, on a pod template or
// switched on by the Namespace; Istio's terminationDrainDuration, its
// default, and EXIT_ON_ZERO_ACTIVE_CONNECTIONS.
func TestInjected(t *testing.T) {
	tests := []struct {
		golden   string
		workload string
		at       int64
		breaks   bool
		words    []string
	}{
		{"budget-injected-linkerd", "Deployment shop/web", 30, true, []string{"linkerd-proxy (injected) leaves"}},
		{"budget-injected-linkerd", "Deployment shop/web", 0, false, []string{"linkerd-proxy (injected): stays 30s", `proxy-wait-before-exit-seconds "30"`}},
		{"budget-injected-linkerd", "Deployment pay/checkout", 60, false, []string{"linkerd-proxy (injected) leaves"}},
		{"budget-injected-istio", "Deployment shop/api", 20, true, []string{"istio-proxy (injected) leaves"}},
		{"budget-injected-istio", "Deployment shop/cart", 5, true, []string{"istio-proxy (injected) leaves"}},
		{"budget-injected-istio", "Deployment shop/cart", 0, false, []string{"no terminationDrainDuration in proxy.istio.io/config: its default 5s"}},
		{"budget-injected-istio", "Deployment shop/search", 0, false, []string{"stays until its connections have closed, at least 5s", "EXIT_ON_ZERO_ACTIVE_CONNECTIONS"}},
		{"budget-injected-istio", "Deployment shop/search", 40, false, []string{"istio-proxy (injected) leaves once the application has exited"}},
	}
	for _, tc := range tests {
		t.Run(tc.golden+"/"+tc.workload, func(t *testing.T) {
			workloads, err := explain.Explain(golden(t, tc.golden))
			if err != nil {
				t.Fatal(err)
			}
			for _, wl := range workloads {
				if wl.Name != tc.workload {
					continue
				}
				if len(wl.Startup) == 0 || !strings.HasSuffix(wl.Startup[0].Name, "(injected)") {
					t.Errorf("start-up order %+v: no injected sidecar first", wl.Startup)
				}
				for _, m := range wl.Marks {
					if m.At == tc.at && m.Breaks == tc.breaks && containsAll(m.Text, tc.words) {
						return
					}
				}
				t.Errorf("no mark at %d (break %v) with %q in %+v", tc.at, tc.breaks, tc.words, wl.Marks)
				return
			}
			t.Errorf("no workload %s", tc.workload)
		})
	}
}

// TestInjectedSwitches: a sidecar counts as injected only where its
// injector is switched on, not off, and its container is not in the pod.
func TestInjectedSwitches(t *testing.T) {
	tests := []struct {
		name, template string
		want           bool
	}{
		{"linkerd on", "metadata: {annotations: {linkerd.io/inject: enabled}}", true},
		{"istio label on", "metadata: {labels: {sidecar.istio.io/inject: \"true\"}}", true},
		{"istio label on wins over annotation off", "metadata: {labels: {sidecar.istio.io/inject: \"true\"}, annotations: {sidecar.istio.io/inject: \"false\"}}", true},
		{"istio turned off by label", "metadata: {labels: {sidecar.istio.io/inject: \"false\"}, annotations: {sidecar.istio.io/inject: \"true\"}}", false},
		{"no switch", "metadata: {labels: {app: web}}", false},
		{"in the pod already", "metadata: {annotations: {linkerd.io/inject: enabled}}\n    spec:\n      containers: [{name: linkerd-proxy, image: p:1}, {name: app, image: a:1}]", false},
		{"in the pod already, under another name", "metadata: {annotations: {linkerd.io/inject: enabled}}\n    spec:\n      containers: [{name: mesh, image: cr.l5d.io/linkerd/proxy:edge-26.8.3}, {name: app, image: a:1}]", false},
		{"only the mesh's init container, which shares its image", "metadata: {labels: {sidecar.istio.io/inject: \"true\"}}\n    spec:\n      initContainers: [{name: istio-init, image: docker.io/istio/proxyv2:1.30.3}]\n      containers: [{name: app, image: a:1}]", true},
		{"a gateway's proxy is the application; the pod is not injected again", "metadata: {labels: {sidecar.istio.io/inject: \"true\"}}\n    spec:\n      containers: [{name: istio-proxy, image: docker.io/istio/proxyv2:1.30.3}]", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := "\n    spec:\n      containers: [{name: app, image: a:1}]"
			if strings.Contains(tc.template, "spec:") {
				spec = ""
			}
			items := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    " + tc.template + spec + "\n"
			var out bytes.Buffer
			if err := explain.RunPlain(nil, strings.NewReader(items), &out, explain.Text); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(out.String(), "(injected)"); got != tc.want {
				t.Errorf("injected %v, want %v:\n%s", got, tc.want, out.String())
			}
			// The run itself reads the same verdict: it reports the
			// injected sidecar exactly when the explanation shows one.
			nodes, err := (&kio.ByteReader{Reader: strings.NewReader(items)}).Read()
			if err != nil {
				t.Fatal(err)
			}
			_, results := engine.New(krmtest.Config(t, "")).Transform(nodes)
			var said strings.Builder
			for _, r := range results {
				said.WriteString(r.Message + "\n")
			}
			if got := strings.Contains(said.String(), "(added at admission)"); got != tc.want {
				t.Errorf("the run reports an injected sidecar: %v, want %v:\n%s", got, tc.want, said.String())
			}
		})
	}
}

func containsAll(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

// TestInjectedAsTheRunFindsIt: a sidecar the config names, with ifAbsent
// annotate and no injector switch on the workload, is injected as far as
// the run goes (it annotates for it and checks its exit); the explanation
// shows it too, with the same break.
func TestInjectedAsTheRunFindsIt(t *testing.T) {
	cfg := "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nmetadata: {name: x}\nspec:\n  sidecars:\n  - {preset: istio, waitBeforeExit: 20s}\n"
	items := `apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: shop}
spec:
  template:
    metadata:
      annotations:
        sidecar.istio.io/inject: "true"
        proxy.istio.io/config: '{"terminationDrainDuration": "20s"}'
    spec:
      containers:
      - name: api
        image: shop/api:1
        lifecycle: {preStop: {sleep: {seconds: 40}}}
`
	nodes, err := (&kio.ByteReader{Reader: strings.NewReader(items)}).Read()
	if err != nil {
		t.Fatal(err)
	}
	_, results := engine.New(krmtest.Config(t, cfg)).Transform(nodes)
	runBreak := false
	for _, r := range results {
		runBreak = runBreak || strings.Contains(r.Message, "istio-proxy (injected by the mesh) leaves at 20s")
	}
	var out bytes.Buffer
	if err := explain.RunPlain(krmtest.Parse(t, cfg), strings.NewReader(items), &out, explain.Text); err != nil {
		t.Fatal(err)
	}
	explained := strings.Contains(out.String(), "istio-proxy (injected) leaves at 20s, before the preStop of api (40s) ends")
	if !runBreak || !explained {
		t.Errorf("the run reports the injected proxy's break: %v; the explanation: %v\n%s", runBreak, explained, out.String())
	}
}

// TestGraceTail: where the app's preStop runs past the pod's own grace, or
// ends with it, the grace's end is kubelet's SIGTERM with its 2 s minimum
// grace and SIGKILL 2 s later, in text, Markdown and the Mermaid chart
// (a tail after the grace milestone); the workloads of TestIssueCase and
// TestNative, whose containers leave before it, end with one SIGKILL.
func TestGraceTail(t *testing.T) {
	rl, err := os.ReadFile("testdata/grace-tail.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []explain.Format{explain.Text, explain.Markdown} {
		out := render(t, rl, format)
		web, api, _ := strings.Cut(out, "Deployment shop/api")
		for _, w := range []struct {
			part  string
			grace int64
		}{{web, 30}, {api, 20}} {
			rs := rows(t, w.part, format == explain.Markdown)
			if !has(rs, w.grace, false, "the grace period ends: SIGKILL to every container that got SIGTERM before it and still runs") ||
				!has(rs, w.grace, false, "grace period: every container still in its preStop, and every native sidecar still running, gets SIGTERM with kubelet's 2s minimum grace") ||
				!has(rs, w.grace+2, false, "grace period: SIGKILL to every container still running") {
				t.Errorf("%v: no tail after the grace at %ds:\n%s", format, w.grace, w.part)
			}
		}
	}
	chart := render(t, rl, explain.Markdown)
	for _, line := range []string{"grace period ends :milestone, 30000, 30000", "tail 2s :30000, 32000", "grace period ends :milestone, 20000, 20000", "tail 2s :20000, 22000"} {
		if !regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(line) + `$`).MatchString(chart) {
			t.Errorf("chart lacks %q:\n%s", line, chart)
		}
	}
	for _, name := range []string{"budget-issue-case", "budget-native-grace"} {
		out := render(t, golden(t, name), explain.Markdown)
		if strings.Contains(out, "grace period:") || strings.Contains(out, "tail 2s") || strings.Count(out, "the grace period ends: SIGKILL to every container still running") != 1 {
			t.Errorf("%s: the grace ends with more than one SIGKILL:\n%s", name, out)
		}
	}
}

// TestNodeDeadlines: each node deadline that reaches a workload is a
// moment of its shutdown (a break where it cuts a preStop), with the
// native sidecars' 2 s tail after it, in text, Markdown and the Mermaid
// chart; a workload the NodePool does not hold has none.
func TestNodeDeadlines(t *testing.T) {
	rl := golden(t, "deadline-karpenter")
	for _, format := range []explain.Format{explain.Text, explain.Markdown} {
		out := render(t, rl, format)
		web, batch, _ := strings.Cut(out, "Deployment shop/batch")
		rs := rows(t, web, format == explain.Markdown)
		if !has(rs, 60, true, "node deadline of Karpenter NodePool web nodes", "terminationGracePeriod", "the grace ends") ||
			!has(rs, 60, false, "every native sidecar still running", "SIGTERM", "2s minimum grace") || !has(rs, 62, false, "node deadline: SIGKILL to every container still running") {
			t.Errorf("%v: node deadline not on the timeline:\n%s", format, out)
		}
		if !strings.Contains(out, "the node deadline of Karpenter NodePool web nodes (60s) cuts the preStop of web (90s)") {
			t.Errorf("%v: the cut is not a break:\n%s", format, out)
		}
		if strings.Contains(batch, "node deadline") {
			t.Errorf("%v: the batch workload, on another NodePool, is held to the deadline too:\n%s", format, batch)
		}
	}
	chart := render(t, rl, explain.Markdown)
	for _, line := range []string{"node deadline :crit, milestone, 60000, 60000", "tail 2s :crit, 60000, 62000"} {
		if !regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(line) + `$`).MatchString(chart) {
			t.Errorf("chart lacks %q:\n%s", line, chart)
		}
	}
	if out := render(t, golden(t, "budget-native-grace"), explain.Text); strings.Contains(out, "node deadline") {
		t.Errorf("a run with no node class draws a node deadline:\n%s", out)
	}
}

// TestNativePreStop: a native sidecar's preStop runs from the termination's
// start, alongside the app's, as kubelet's killContainer runs it, and its
// SIGTERM comes at the later of the preStop's end and its turn (the app
// has exited), in the table and as a bar from 0 in the chart.
func TestNativePreStop(t *testing.T) {
	rl, err := os.ReadFile("testdata/native-prestop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := render(t, rl, explain.Text)
	pod, deployment, ok := strings.Cut(out, "Deployment shop/api")
	if !ok {
		t.Fatalf("no Deployment in the explanation:\n%s", out)
	}
	rs := rows(t, pod, false)
	if !has(rs, 0, false, "proxy (sidecar): preStop starts with the termination (5s") || !has(rs, 5, false, "proxy (sidecar): preStop ends; its SIGTERM waits for its turn") ||
		!has(rs, 12, false, "every container has exited") || !has(rs, 12, false, "proxy (sidecar): its turn; SIGTERM, it leaves") {
		t.Errorf("the pod's native sidecar does not leave at its turn (12s) after a preStop from 0 to 5s:\n%s", pod)
	}
	rs = rows(t, deployment, false)
	if !has(rs, 0, false, "proxy (sidecar): preStop starts with the termination (15s") || !has(rs, 10, false, "api: preStop ends; SIGTERM") ||
		!has(rs, 15, false, "proxy (sidecar): preStop ends; SIGTERM, it leaves") || has(rs, 25, false, "proxy") {
		t.Errorf("the Deployment's native sidecar does not leave at its preStop's end (15s):\n%s", deployment)
	}
	md := render(t, rl, explain.Markdown)
	for _, want := range []string{"    section proxy\n    preStop 5s :0, 5000\n", "    section proxy\n    preStop 15s :0, 15000\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("no chart bar %q:\n%s", want, md)
		}
	}
}
