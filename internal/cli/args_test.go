package cli

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestParseArgs: one parser reads every flag in any order; an unknown flag,
// a flag given twice and a combination that cannot work are errors.
func TestParseArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want args
	}{
		{nil, args{}},
		{[]string{"help"}, args{command: cmdHelp, flag: "help"}},
		{[]string{"-h"}, args{command: cmdHelp, flag: "-h"}},
		{[]string{"--version"}, args{command: cmdVersion, flag: "--version"}},
		{[]string{"schema"}, args{command: cmdSchema, flag: "schema"}},
		{[]string{"--explain"}, args{command: cmdExplain, flag: "--explain"}},
		{[]string{"--explain", "--config", "p.yaml", "dir/"}, args{command: cmdExplain, flag: "--explain", config: "p.yaml", inputs: []string{"dir/"}}},
		{[]string{"--config", "p.yaml", "--explain=markdown", "dir/"}, args{command: cmdExplain, flag: "--explain=markdown", format: "markdown", config: "p.yaml", inputs: []string{"dir/"}}},
		{[]string{"a.yaml", "--explain=text", "--config=p.yaml", "help"}, args{command: cmdExplain, flag: "--explain=text", format: "text", config: "p.yaml", inputs: []string{"a.yaml", "help"}}},
		{[]string{"dir/", "--config=p.yaml"}, args{config: "p.yaml", inputs: []string{"dir/"}}},
		{[]string{"--config", "--explain"}, args{config: "--explain"}}, // the file is what follows --config
		{[]string{"dir/"}, args{inputs: []string{"dir/"}}},             // the defaults
		{[]string{"--explain", "a.yaml"}, args{command: cmdExplain, flag: "--explain", inputs: []string{"a.yaml"}}},
		{[]string{"validate"}, args{verb: "validate"}},
		{[]string{"validate", "--config", "p.yaml", "dir/", "a.yaml"}, args{verb: "validate", config: "p.yaml", inputs: []string{"dir/", "a.yaml"}}},
		{[]string{"mutate", "validate"}, args{verb: "mutate", inputs: []string{"validate"}}}, // a verb only first
		{[]string{"explain", "--format", "markdown", "a.yaml"}, args{command: cmdExplain, verb: "explain", format: "markdown", inputs: []string{"a.yaml"}}},
		{[]string{"explain", "--format=text"}, args{command: cmdExplain, verb: "explain", format: "text"}},
		{[]string{"validate", "--help"}, args{command: cmdHelp, flag: "--help", verb: "validate"}},
	} {
		got, err := parseArgs(tc.args)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %+v, %v; want %+v", tc.args, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--explain", "--schema"}, `--schema takes no other argument, found "--explain"`},
		{[]string{"--schema", "--explain=markdown"}, `--schema takes no other argument, found "--explain=markdown"`},
		{[]string{"--version", "--help"}, `--help takes no other argument, found "--version"`},
		{[]string{"--help", "--config", "p.yaml"}, `--help takes no other argument, found "--config"`},
		{[]string{"--config", "p.yaml", "a.yaml", "--version"}, `--version takes no other argument, found "--config"`},
		{[]string{"--schema", "a.yaml"}, `--schema takes no other argument, found "a.yaml"`},
		{[]string{"version", "--explain"}, `version takes no other argument, found "--explain"`},
		{[]string{"--explain", "--bogus"}, `unknown argument "--bogus"; see --help`},
		{[]string{"--config", "p.yaml", "-v"}, `unknown argument "-v"`},
		{[]string{"--explain=html"}, `unknown argument "--explain=html"; use --explain, --explain=text or --explain=markdown`},
		{[]string{"--explain="}, `unknown argument "--explain="`},
		{[]string{"--explain", "--explain=text"}, "--explain is given twice"},
		{[]string{"--explain", "markdown"}, `--explain takes its format after "=": --explain=markdown (a file named markdown is ./markdown)`},
		{[]string{"validate", "--explain"}, "validate takes no --explain: use the explain command"},
		{[]string{"explain", "--format", "html"}, `unknown format "html"`},
		{[]string{"explain", "--format"}, "--format needs text or markdown"},
		{[]string{"explain", "--format=text", "--format=markdown"}, "--format is given twice"},
		{[]string{"mutate", "--format=text"}, `unknown argument "--format=text"`},
		{[]string{"--config=p.yaml", "--config", "q.yaml"}, "--config is given twice"},
		{[]string{"--explain", "--config"}, "--config needs a file"},
		{[]string{"--config="}, "--config needs a file"},
		{[]string{"--config=p.yaml", "-"}, `read stdin by naming no input file, not "-"`},
	} {
		if _, err := parseArgs(tc.args); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.err)
		}
	}
}

// TestExplainInputs: --explain with --config reads the files, the
// directories and stdin as the plain-stream mode does, with its flags in
// any order, and explains what a ResourceList of the same resources and
// config gives.
func TestExplainInputs(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"policy.yaml":         plainPolicy,
		"manifests/web.yaml":  plainDeployment,
		"manifests/api.json":  `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "api"}, "spec": {"template": {"spec": {"containers": [{"name": "api"}, {"name": "linkerd-proxy"}]}}}}]}`,
		"manifests/notes.txt": "not YAML: [",
		"one.yaml":            plainDeployment,
		"broken/bad.yaml":     "kind: [\n",
		"bad-policy.yaml":     "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {mood: calm}\n",
	})
	p := func(name string) string { return filepath.Join(dir, name) }
	want := runWith([]string{"--explain"}, "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- "+strings.ReplaceAll(strings.TrimSuffix(plainDeployment, "\n"), "\n", "\n  ")+"\nfunctionConfig:\n  "+strings.ReplaceAll(strings.TrimSuffix(plainPolicy, "\n"), "\n", "\n  ")+"\n", nil)
	if want.code != 0 || !strings.Contains(want.stdout, "Deployment web") {
		t.Fatalf("ResourceList: code %d, stderr %q, stdout:\n%s", want.code, want.stderr, want.stdout)
	}
	for _, tc := range []struct {
		args []string
		in   string
	}{
		{[]string{"--explain", "--config", p("policy.yaml")}, plainDeployment},
		{[]string{"--config=" + p("policy.yaml"), "--explain"}, plainDeployment},
		{[]string{"--explain", "--config", p("policy.yaml"), p("one.yaml")}, ""},
		{[]string{p("one.yaml"), "--explain=text", "--config", p("policy.yaml")}, ""},
	} {
		if r := runWith(tc.args, tc.in, nil); r.code != 0 || r.stdout != want.stdout {
			t.Errorf("%q: code %d, stderr %q, stdout:\n%s\nwant:\n%s", tc.args, r.code, r.stderr, r.stdout, want.stdout)
		}
	}
	r := runWith([]string{"--config", p("policy.yaml"), "--explain=markdown", p("manifests")}, "", nil)
	if r.code != 0 || !strings.Contains(r.stdout, "\n## Deployment api\n") || !strings.Contains(r.stdout, "\n## Deployment web\n") ||
		strings.Index(r.stdout, "## Deployment api") > strings.Index(r.stdout, "## Deployment web") {
		t.Errorf("directory (a List in api.json, then web.yaml): code %d, stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
	}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--explain", "--config", p("nope.yaml")}, `sidecar-lifecycle: error: reading the config: open "` + p("nope.yaml") + `"`},
		{[]string{"--explain", "--config", p("bad-policy.yaml"), p("one.yaml")}, "sidecar-lifecycle: error: " + p("bad-policy.yaml") + ":3: config: spec.mood: unknown field"},
		{[]string{"--explain", "--config", p("policy.yaml"), p("nope.yaml")}, "sidecar-lifecycle: error: reading input: stat"},
		{[]string{"--explain", "--config", p("policy.yaml"), p("broken")}, "sidecar-lifecycle: error: " + filepath.Join(p("broken"), "bad.yaml") + ":1: not valid YAML"},
		{[]string{"--explain", "--schema"}, `sidecar-lifecycle: error: --schema takes no other argument, found "--explain"`},
	} {
		if r := runWith(tc.args, "", nil); r.code != 1 || r.stdout != "" || !strings.Contains(r.stderr, tc.err) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%q: code %d, stdout %q, stderr %q, want %q", tc.args, r.code, r.stdout, r.stderr, tc.err)
		}
	}
}

// TestHelpListsEveryFlag: --help is generated from flagList: every flag,
// as it is written, and every environment variable that sets one.
func TestHelpListsEveryFlag(t *testing.T) {
	var out strings.Builder
	if code := run([]string{"--help"}, nil, &out, newLines(&out, func(string) string { return "" }, "/")); code != 0 {
		t.Fatalf("--help: exit %d", code)
	}
	for _, d := range flagList {
		want := "--" + d.name
		if d.shorthand != "" {
			want = "-" + d.shorthand + ", " + want
		}
		if d.optional {
			want += "[=" + d.value + "]"
		} else if d.value != "" {
			want += " " + d.value
		}
		if !strings.Contains(out.String(), "\n  "+want+"\n") {
			t.Errorf("--help does not list %q", want)
		}
	}
	for _, env := range []string{outputEnv, outputFileEnv, maxDocumentSizeEnv} {
		if !strings.Contains(out.String(), env) {
			t.Errorf("--help does not name %s", env)
		}
	}
	for verb := range verbs {
		if !strings.Contains(out.String(), "sidecar-lifecycle "+verb+" ") {
			t.Errorf("--help does not show the verb %s", verb)
		}
	}
}

// TestFlagErrors: what pflag refuses is one line of the command's own.
func TestFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--help=true"}, `unknown argument "--help=true"; see --help`},
		{[]string{"a.yaml", "--"}, `unknown argument "--"; see --help`},
		{[]string{"---x"}, `unknown argument "---x"; see --help`},
		{[]string{"--bogus=1", "a.yaml"}, `unknown argument "--bogus=1"; see --help`},
		{[]string{"-hv"}, `unknown argument "-hv"; see --help`},
		{[]string{"--output"}, "--output needs a value: --output=sarif"},
		{[]string{"--output-file"}, "--output-file needs a value: --output-file=results.sarif"},
		{[]string{"--max-document-size"}, "--max-document-size needs a size"},
		{[]string{"--max-document-size", "1Mi", "--max-document-size=2Mi"}, "--max-document-size is given twice"},
	} {
		_, err := parseArgs(tc.args)
		if err == nil || err.Error() != tc.err && !strings.HasPrefix(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.err)
		}
	}
	for _, list := range [][]string{{"--max-document-size", "1Mi"}, {"--max-document-size=1Mi"}, {"--output", "json", "--output-file", "r.json"}, {"--output=json", "--output-file=r.json"}} {
		if _, err := parseArgs(list); err != nil {
			t.Errorf("%q: %v", list, err)
		}
	}
}
