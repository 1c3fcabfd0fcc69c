package examples_test

import (
	"regexp"
	"strings"
	"testing"
)

// TestValidateExplain runs examples/validate/explain.sh as its CI workflow
// does: in Markdown, each workload under the policy, as the fix writes it,
// with its start-up order, shutdown table and Mermaid chart; in text, the
// same numbers.
func TestValidateExplain(t *testing.T) {
	kpt := kptTool(t)
	dir := workDir(t, "validate-explain")
	copyDir(t, "validate", dir)
	env := append(toolsOnPath(t, functionBinary()), "KPT="+kpt)

	md := mustRun(t, dir, env, "sh", "explain.sh", "markdown")
	for _, want := range []string{
		"\n## Deployment orders/api\n", "\n## Deployment orders/worker\n",
		"2. `linkerd-proxy`: postStart", "3. `api`: container",
		"| 30 | linkerd-proxy (sidecar): preStop ends; SIGTERM, it leaves |",
		"| 40 | the grace period ends: SIGKILL to every container still running |",
		"```mermaid\n%%{init: {\"gantt\": {\"leftPadding\": ", "}}}%%\ngantt\n", "    preStop 30s :0, 30000\n", "    grace period ends :milestone, 40000, 40000\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("explain.sh markdown lacks %q:\n%s", want, md)
		}
	}
	text := mustRun(t, dir, env, "sh", "explain.sh")
	if !regexp.MustCompile(`(?m)^  30\s+linkerd-proxy \(sidecar\): preStop ends; SIGTERM, it leaves$`).MatchString(text) ||
		strings.Contains(text, "```") {
		t.Errorf("explain.sh text:\n%s", text)
	}
}
