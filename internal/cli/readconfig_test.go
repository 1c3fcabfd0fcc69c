package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPlainConfigWithoutDocument: a --config file that holds no YAML
// document (empty, blank, only comments, /dev/null) is an error, not the
// defaults, while a SidecarLifecycle without spec gives the defaults.
func TestPlainConfigWithoutDocument(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"empty.yaml":    "",
		"blank.yaml":    " \n\t\n\n",
		"comments.yaml": "# policy for the shop\n#   action: validate\n",
		"crlf.yaml":     "\r\n# truncated\r\n",
		"defaults.yaml": "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\n",
	})
	for _, path := range []string{"empty.yaml", "blank.yaml", "comments.yaml", "crlf.yaml", "/dev/null"} {
		t.Run(path, func(t *testing.T) {
			if !filepath.IsAbs(path) {
				path = filepath.Join(dir, path)
			}
			r := runWith([]string{"--config", path}, plainDeployment, nil)
			want := "sidecar-lifecycle: error: config " + quotePath(path) + " holds no YAML document: expected a SidecarLifecycle or a ConfigMap"
			if r.code != 1 || r.stdout != "" || !strings.HasPrefix(r.stderr, want) {
				t.Errorf("code %d, stdout %q, stderr %q: want 1, nothing, %q", r.code, r.stdout, r.stderr, want)
			}
			checkLines(t, r.stderr)
		})
	}
	r := runWith([]string{"--config", filepath.Join(dir, "defaults.yaml")}, plainDeployment, nil)
	if r.code != 0 || !strings.Contains(r.stdout, "linkerd-await") {
		t.Errorf("a SidecarLifecycle without spec: code %d, stderr %q, stdout:\n%s", r.code, r.stderr, r.stdout)
	}
}
