// The release's proof against real parts: the image of dist/ (written by
// `make release-snapshot`) rebuilds to the same digest, goes into a CNCF
// distribution registry started here, comes back by digest with both
// platforms, is signed and verified with cosign, and carries its SBOM the
// way cosign attaches one. `make release-test` runs it; the tools are the
// ones `make release-tools` puts in bin/release.
package release

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

var (
	root  = func() string { d, _ := filepath.Abs(".."); return d }()
	dist  = filepath.Join(root, "dist")
	tools = func() string { // the Makefile's RELEASE_BIN
		if d := os.Getenv("RELEASE_BIN"); d != "" {
			return d
		}
		return filepath.Join(root, "bin", "release")
	}()
	module = "github.com/sidecar-lifecycle/sidecar-lifecycle"
)

func tool(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(tools, name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%s is missing: run `make release-tools` (%v)", p, err)
	}
	return p
}

func run(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// snapshot is the image index dist/ holds, with what it was stamped with.
type snapshot struct {
	digest            v1.Hash
	version, revision string
	epoch             int64
}

func readSnapshot(t *testing.T) snapshot {
	t.Helper()
	l, err := layout.ImageIndexFromPath(filepath.Join(dist, "image"))
	if err != nil {
		t.Fatalf("dist/image: %v (run `make release-snapshot`)", err)
	}
	m, err := l.IndexManifest()
	if err != nil || len(m.Manifests) != 1 {
		t.Fatalf("dist/image/index.json: %v, %d entries, want one index", err, len(m.Manifests))
	}
	s := snapshot{digest: m.Manifests[0].Digest}
	want, err := os.ReadFile(filepath.Join(dist, "image.digest"))
	if err != nil || strings.TrimSpace(string(want)) != s.digest.String() {
		t.Fatalf("dist/image.digest is %q (%v), the layout's index is %s", want, err, s.digest)
	}
	idx, err := l.ImageIndex(s.digest)
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	s.version = im.Annotations["org.opencontainers.image.version"]
	s.revision = im.Annotations["org.opencontainers.image.revision"]
	created, err := time.Parse(time.RFC3339, im.Annotations["org.opencontainers.image.created"])
	if err != nil {
		t.Fatalf("the index's created annotation: %v", err)
	}
	s.epoch = created.Unix()
	return s
}

// TestReproducible rebuilds the linux binaries from this checkout with the
// release's flags and the image from them, and wants the bytes of dist/:
// same source, same digest.
func TestReproducible(t *testing.T) {
	s := readSnapshot(t)
	dir := t.TempDir()
	args := []string{"-out", filepath.Join(dir, "image"), "-epoch", strconv.FormatInt(s.epoch, 10),
		"-version", s.version, "-revision", s.revision}
	for _, arch := range []string{"amd64", "arm64"} {
		out := filepath.Join(dir, "sidecar-lifecycle-linux-"+arch)
		cli := module + "/internal/cli"
		cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false",
			"-ldflags", fmt.Sprintf("-s -w -buildid= -X %s.version=%s -X %s.commit=%s", cli, s.version, cli, s.revision),
			"-o", out, ".")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build linux/%s: %v\n%s", arch, err, b)
		}
		if got, want := fileSum(t, out), fileSum(t, filepath.Join(dist, "sidecar-lifecycle-linux-"+arch)); got != want {
			t.Errorf("linux/%s binary rebuilt as sha256 %s, dist/ holds %s", arch, got, want)
		}
		args = append(args, "-binary", "linux/"+arch+"="+out)
	}
	got := strings.TrimSpace(run(t, nil, tool(t, "image"), args...))
	if got != s.digest.String() {
		t.Errorf("the image rebuilt as %s, dist/image holds %s", got, s.digest)
	}
}

func fileSum(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// startRegistry runs the CNCF distribution registry on a free loopback
// port, storing in a temporary directory, and returns host:port.
func startRegistry(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	config := filepath.Join(dir, "config.yml")
	os.WriteFile(config, []byte(fmt.Sprintf(`version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: %s
  delete:
    enabled: true
http:
  addr: %s
`, filepath.Join(dir, "data"), addr)), 0o644)
	cmd := exec.Command(tool(t, "registry"), "serve", config)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("registry log:\n%s", logs.String())
		}
	})
	for i := 0; ; i++ {
		resp, err := http.Get("http://" + addr + "/v2/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return addr
			}
		}
		if i == 100 {
			t.Fatalf("the registry does not answer on %s: %v\n%s", addr, err, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestRegistry pushes dist/image to a local registry and reads it back by
// digest with crane; then signs that digest with cosign, verifies it, and
// attaches the image's SBOM and downloads it again.
func TestRegistry(t *testing.T) {
	s := readSnapshot(t)
	crane, cosign := tool(t, "crane"), tool(t, "cosign")
	repo := startRegistry(t) + "/sidecar-lifecycle"
	tagged := repo + ":" + s.version

	run(t, nil, crane, "push", filepath.Join(dist, "image"), tagged)
	if got := strings.TrimSpace(run(t, nil, crane, "digest", tagged)); got != s.digest.String() {
		t.Fatalf("the registry serves %s as %s, dist/image holds %s", tagged, got, s.digest)
	}
	byDigest := repo + "@" + s.digest.String()
	var index v1.IndexManifest
	if err := json.Unmarshal([]byte(run(t, nil, crane, "manifest", byDigest)), &index); err != nil {
		t.Fatal(err)
	}
	platforms := map[string]v1.Hash{}
	for _, m := range index.Manifests {
		if m.Platform != nil {
			platforms[m.Platform.OS+"/"+m.Platform.Architecture] = m.Digest
		}
	}
	if len(index.Manifests) != 2 || platforms["linux/amd64"] == (v1.Hash{}) || platforms["linux/arm64"] == (v1.Hash{}) {
		t.Fatalf("the index of %s lists %v, want linux/amd64 and linux/arm64", byDigest, platforms)
	}
	for platform, digest := range platforms {
		var config v1.ConfigFile
		out := run(t, nil, crane, "config", "--platform", platform, byDigest)
		if err := json.Unmarshal([]byte(out), &config); err != nil {
			t.Fatal(err)
		}
		if config.OS+"/"+config.Architecture != platform || config.Config.User != "65532:65532" ||
			len(config.Config.Entrypoint) != 1 || config.Config.Entrypoint[0] != "/usr/local/bin/sidecar-lifecycle" {
			t.Errorf("%s's config: %s/%s, user %q, entrypoint %q", platform, config.OS, config.Architecture, config.Config.User, config.Config.Entrypoint)
		}
		if got := strings.TrimSpace(run(t, nil, crane, "digest", "--platform", platform, byDigest)); got != digest.String() {
			t.Errorf("%s resolves to %s, the index lists %s", platform, got, digest)
		}
		files := run(t, nil, crane, "export", "--platform", platform, repo+"@"+digest.String(), "-")
		for _, want := range []string{"usr/local/bin/sidecar-lifecycle", "etc/ssl/certs/ca-certificates.crt", "etc/passwd"} {
			if !strings.Contains(files, want) {
				t.Errorf("%s's filesystem has no %s", platform, want)
			}
		}
	}

	t.Run("kpt fn eval --image", func(t *testing.T) {
		kptImage(t, byDigest, s)
		t.Run("examples", func(t *testing.T) { examplesOnImage(t, byDigest) })
	})

	// cosign with a key made here; no Rekor, no Fulcio, no TUF over the
	// network: the transparency log is neither written nor checked.
	dir := t.TempDir()
	env := []string{"COSIGN_PASSWORD=", "TUF_ROOT=" + filepath.Join(dir, "tuf"), "HOME=" + dir,
		"SIGSTORE_NO_CACHE=true", "COSIGN_EXPERIMENTAL=0"}
	keys := filepath.Join(dir, "keys")
	os.Mkdir(keys, 0o700)
	cmd := exec.Command(cosign, "generate-key-pair")
	cmd.Dir, cmd.Env = keys, append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cosign generate-key-pair: %v\n%s", err, b)
	}
	key, pub := filepath.Join(keys, "cosign.key"), filepath.Join(keys, "cosign.pub")
	run(t, env, cosign, "sign", "--yes", "--key", key, "--tlog-upload=false", "--allow-http-registry", byDigest)
	out := run(t, env, cosign, "verify", "--key", pub, "--insecure-ignore-tlog=true", "--allow-http-registry", byDigest)
	var verified []struct {
		Critical struct {
			Image struct {
				Digest string `json:"docker-manifest-digest"`
			} `json:"image"`
		} `json:"critical"`
	}
	if err := json.Unmarshal([]byte(out), &verified); err != nil || len(verified) == 0 || verified[0].Critical.Image.Digest != s.digest.String() {
		t.Fatalf("cosign verify printed %q (%v), want a signature over %s", out, err, s.digest)
	}
	// Another key does not verify it: the check can fail.
	other := filepath.Join(dir, "other")
	os.Mkdir(other, 0o700)
	cmd = exec.Command(cosign, "generate-key-pair")
	cmd.Dir, cmd.Env = other, append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("cosign generate-key-pair: %v\n%s", err, b)
	}
	cmd = exec.Command(cosign, "verify", "--key", filepath.Join(other, "cosign.pub"), "--insecure-ignore-tlog=true", "--allow-http-registry", byDigest)
	cmd.Env = append(os.Environ(), env...)
	if b, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("cosign verify with a key that did not sign passed:\n%s", b)
	}

	// The SBOM, attached as cosign attaches one (a .sbom tag beside the
	// digest), and read back.
	sbom := filepath.Join(dist, "image.spdx.json")
	run(t, env, cosign, "attach", "sbom", "--sbom", sbom, "--type", "spdx", "--allow-http-registry", byDigest)
	got := run(t, env, cosign, "download", "sbom", "--allow-http-registry", byDigest)
	want, _ := os.ReadFile(sbom)
	if strings.TrimSpace(got) != strings.TrimSpace(string(want)) {
		t.Errorf("cosign download sbom gave %d bytes, dist/image.spdx.json has %d", len(got), len(want))
	}
	var doc struct {
		SPDXVersion string `json:"spdxVersion"`
		Packages    []struct {
			Checksums []struct {
				Value string `json:"checksumValue"`
			} `json:"checksums"`
		} `json:"packages"`
	}
	if err := json.Unmarshal([]byte(got), &doc); err != nil || doc.SPDXVersion != "SPDX-2.3" || len(doc.Packages) == 0 ||
		len(doc.Packages[0].Checksums) == 0 || doc.Packages[0].Checksums[0].Value != s.digest.Hex {
		t.Errorf("the SBOM read back is not an SPDX 2.3 document describing %s (%v)", s.digest, err)
	}
}

// kptImage runs the kpt example with `kpt fn eval --image REGISTRY/...@sha256:...`
// through podman, which pulls the image by digest from the local registry,
// and wants the output `kpt fn eval --exec` gives with the dist/ binary of
// this machine's platform. The podman environment is .ci/podman.sh's
// (offline-podman.sh's env file, KPT_FN_RUNTIME=podman).
func kptImage(t *testing.T, ref string, s snapshot) {
	if os.Getenv("KPT_FN_RUNTIME") != "podman" || os.Getenv("CONTAINERS_STORAGE_CONF") == "" {
		t.Fatalf("KPT_FN_RUNTIME=podman and offline-podman.sh's environment are needed: source the env file `offline-podman.sh up Dockerfile` prints")
	}
	kpt, err := exec.LookPath("kpt")
	if err != nil {
		t.Fatal("kpt is not on PATH")
	}
	run(t, nil, "podman", "pull", "--tls-verify=false", "--quiet", ref)
	t.Cleanup(func() { exec.Command("podman", "rmi", "--force", ref).Run() })
	pkg := filepath.Join(t.TempDir(), "payments")
	copyTree(t, filepath.Join(root, "examples", "kpt-image", "payments"), pkg)
	config := filepath.Join(pkg, "sidecar-lifecycle.yaml")
	image := run(t, nil, kpt, "fn", "eval", pkg, "-o", "stdout", "--image", ref, "--fn-config", config)
	binary := filepath.Join(dist, "sidecar-lifecycle-"+runtime.GOOS+"-"+runtime.GOARCH)
	exe := run(t, nil, kpt, "fn", "eval", pkg, "-o", "stdout", "--exec", binary, "--fn-config", config)
	if image != exe {
		t.Errorf("kpt fn eval --image %s wrote:\n%s\nwith --exec %s:\n%s", ref, image, binary, exe)
	}
	if !strings.Contains(image, "preStop") {
		t.Errorf("kpt fn eval --image %s changed nothing:\n%s", ref, image)
	}
	if got := run(t, nil, "podman", "run", "--rm", "--network=none", "--user", "nobody", ref, "--version"); !strings.Contains(got, s.revision) {
		t.Errorf("the image's --version is %q, want the commit %s", got, s.revision)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// examplesOnImage runs the container examples' tests (examples/container_test.go:
// kustomize's `container:` transformer, kpt's pipeline, the image against
// the binary) on the pushed image, pulled by digest, with the dist/ binary
// of this machine as the binary they compare with. kustomize runs the
// image with the docker CLI, through podman's Docker API (DOCKER_HOST).
func examplesOnImage(t *testing.T, ref string) {
	if os.Getenv("RELEASE_DRY_RUN") == "true" {
		t.Skip("the workflow's dry run has no bin/kustomize; make release-test runs this outside it")
	}
	cmd := exec.Command("go", "test", "-count=1", "-v", "-run", "^TestContainer", "./examples/")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "SIDECAR_LIFECYCLE_IMAGE="+ref,
		"SIDECAR_LIFECYCLE_BINARY="+filepath.Join(dist, "sidecar-lifecycle-"+runtime.GOOS+"-"+runtime.GOARCH))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the container examples on %s: %v\n%s", ref, err, out)
	}
	for _, test := range []string{"TestContainerImage", "TestContainerImageLargeList", "TestContainerKustomize", "TestContainerKpt"} {
		if !strings.Contains(string(out), "--- PASS: "+test+" ") {
			t.Errorf("%s did not pass on %s:\n%s", test, ref, out)
		}
	}
}
