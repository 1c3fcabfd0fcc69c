package cli

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/testbin"
)

// TestMain removes the binary the tests built, if they built one.
func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Remove()
	os.Exit(code)
}

// TestClosedOutputPipe runs the built binary, in both modes, with its
// stdout a pipe whose reader reads one line and goes away (`... | head
// -1`): it ends quietly with exit code 141, whether SIGPIPE ends it or,
// ignored, the write fails with EPIPE.
func TestClosedOutputPipe(t *testing.T) {
	dir := t.TempDir()
	binary := testbin.For(t)
	policy := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(policy, []byte(plainPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	docs := strings.Repeat("---\n"+plainDeployment, 5000)
	list := "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n" +
		strings.Repeat("- {apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: app}, {name: linkerd-proxy}]}}\n", 5000)
	for _, tc := range []struct {
		name, in string
		args     []string
	}{
		{"plain stream", docs, []string{binary, "--config", policy}},
		{"ResourceList", list, []string{binary}},
		{"plain stream, SIGPIPE ignored", docs, []string{"sh", "-c", `trap "" PIPE; exec "$0" "$@"`, binary, "--config", policy}},
		{"ResourceList, SIGPIPE ignored", list, []string{"sh", "-c", `trap "" PIPE; exec "$0" "$@"`, binary}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(tc.args[0], tc.args[1:]...)
			cmd.Stdin = strings.NewReader(tc.in)
			var errOut bytes.Buffer
			cmd.Stderr = &errOut
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
				t.Fatal(err)
			}
			stdout.Close()
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != exitBrokenPipe || errOut.Len() > 0 {
				t.Errorf("exit code %d, stderr %q: want %d and nothing", code, errOut.String(), exitBrokenPipe)
			}
		})
	}
}
