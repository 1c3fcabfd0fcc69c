//go:build e2e

package charts

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
)

// TestWebhookChartOnTheAPIServer applies the chart, rendered with the
// pinned Helm 3 and Helm 4 in each TLS mode, with `kubectl apply
// --dry-run=server` to the cluster in KUBECONFIG (`make e2e-kube`): the
// API server validates every object, compiles the matchConditions' CEL,
// and its Pod Security admission finds the Deployment within the
// restricted profile. The release namespace is a new one, enforcing
// restricted, removed afterwards. cert-manager's kinds are left out when
// the cluster does not serve them.
func TestWebhookChartOnTheAPIServer(t *testing.T) {
	if os.Getenv("KUBECONFIG") == "" {
		t.Fatal("KUBECONFIG is not set: this test needs a cluster (make e2e-kube)")
	}
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatal(err)
	}
	var id [3]byte
	if _, err := rand.Read(id[:]); err != nil {
		t.Fatal(err)
	}
	ns := "chart-" + hex.EncodeToString(id[:])
	run := func(stdin string, args ...string) (string, string, error) {
		cmd := exec.Command(kubectl, args...)
		cmd.Stdin = strings.NewReader(stdin)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		return o.String(), e.String(), err
	}
	if _, stderr, err := run("", "create", "namespace", ns); err != nil {
		t.Fatalf("kubectl create namespace %s: %v\n%s", ns, err, stderr)
	}
	t.Cleanup(func() {
		if _, stderr, err := run("", "delete", "namespace", ns, "--wait=false"); err != nil {
			t.Errorf("kubectl delete namespace %s: %v\n%s", ns, err, stderr)
		}
	})
	if _, stderr, err := run("", "label", "namespace", ns,
		"pod-security.kubernetes.io/enforce=restricted", "pod-security.kubernetes.io/warn=restricted"); err != nil {
		t.Fatalf("kubectl label: %v\n%s", err, stderr)
	}
	_, _, crdErr := run("", "get", "crd", "certificates.cert-manager.io")
	certManager := crdErr == nil

	for _, h := range helms {
		helm := helmTool(t, h.dir, h.version)
		for _, mode := range modes {
			t.Run(h.dir+"/"+mode, func(t *testing.T) {
				args := []string{"template", release, chartDir, "--namespace", ns, "--kube-version", kubeVersion, "--set", "tls.mode=" + mode}
				out, stderr, err := runHelm(t, helm, args...)
				if err != nil {
					t.Fatalf("helm template: %v\n%s", err, stderr)
				}
				items, err := (&kio.ByteReader{Reader: strings.NewReader(out), OmitReaderAnnotations: true}).Read()
				if err != nil {
					t.Fatal(err)
				}
				var keep []string
				for _, item := range items {
					if strings.HasPrefix(item.GetApiVersion(), "cert-manager.io/") && !certManager {
						t.Logf("the cluster serves no cert-manager.io: %s %s left out", item.GetKind(), item.GetName())
						continue
					}
					keep = append(keep, item.MustString())
				}
				stdout, stderr, err := run(strings.Join(keep, "---\n"), "apply", "--dry-run=server", "-o", "name", "-f", "-")
				if err != nil {
					t.Fatalf("kubectl apply --dry-run=server: %v\n%s", err, stderr)
				}
				if strings.Contains(stderr, "PodSecurity") || strings.Contains(stderr, "Warning") {
					t.Errorf("the API server warned:\n%s", stderr)
				}
				if !strings.Contains(stdout, "deployment.apps/") {
					t.Errorf("nothing applied:\n%s", stdout)
				}
				for _, want := range []string{
					"deployment.apps/" + fullname,
					"mutatingwebhookconfiguration.admissionregistration.k8s.io/" + configName,
					"validatingwebhookconfiguration.admissionregistration.k8s.io/" + configName,
				} {
					if !strings.Contains(stdout, want+"\n") {
						t.Errorf("kubectl applied\n%s\nwithout %s", stdout, want)
					}
				}
			})
		}
	}

	// The API server does compile the conditions: a broken one is refused.
	t.Run("broken-condition", func(t *testing.T) {
		helm := helmTool(t, helms[1].dir, helms[1].version)
		out, stderr, err := runHelm(t, helm, "template", release, chartDir, "--namespace", ns, "--kube-version", kubeVersion,
			"--set", "tls.mode=self-signed", "--set", "webhook.validating.enabled=false",
			"--set", "webhook.extraMatchConditions[0].name=broken",
			"--set", "webhook.extraMatchConditions[0].expression=size(object.spec.containers) >")
		if err != nil {
			t.Fatalf("helm template: %v\n%s", err, stderr)
		}
		_, stderr, err = run(out, "apply", "--dry-run=server", "-o", "name", "-f", "-")
		if err == nil || !strings.Contains(stderr, "matchConditions[3].expression") {
			t.Errorf("the API server took a broken condition: %v\n%s", err, stderr)
		}
	})
}
