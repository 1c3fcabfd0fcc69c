package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigErrorsNameTheLine: in --config mode, with or without
// --explain, an error in the config file names the file and the line of
// the field (or of the nearest field the file has), in both config forms.
func TestConfigErrorsNameTheLine(t *testing.T) {
	dir := t.TempDir()
	const head = "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\n"
	for _, tc := range []struct{ name, config, want string }{
		{"unknown field", head + "spec:\n  mode: ordered\n  mood: happy\n", ":5: spec.mood: unknown field"},
		{"list entry field", head + "spec:\n  sidecars:\n  - preset: linkerd\n  - preset: istio\n    waitBeforeExit: [3]\n", ":7: spec.sidecars[1].waitBeforeExit: expected a duration"},
		{"flow style", head + "spec: {sidecars: [{name: a}, {name: b, ifAbsent: maybe}]}\n", ":3: spec.sidecars[1].ifAbsent: \"maybe\" is not one of"},
		{"ConfigMap", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  preset: linkerd\n  action: [validate]\n", ":6: data.action: expected one of mutate, validate"},
		{"wrong kind", "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n", ":1: functionConfig"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".yaml")
			if err := os.WriteFile(file, []byte(tc.config), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"--config", file}, {"--explain", "--config", file}} {
				r := runWith(args, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: app}]}\n", nil)
				got := strings.Replace(r.stderr, ": config: ", ": ", 1) // --explain says which input it could not read
				if want := "sidecar-lifecycle: error: " + file + tc.want; r.code != 1 || !strings.HasPrefix(got, want) {
					t.Errorf("%q: code %d, stderr %q, want it to start with %q", args, r.code, r.stderr, want)
				}
			}
		})
	}
}
