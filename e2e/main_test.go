//go:build e2e

// Package e2e proves on a real kubelet what sidecar-lifecycle promises: with
// its output the application's first request through the sidecar succeeds,
// its last requests during shutdown succeed too, and a Job with a native
// sidecar completes; without it (the control) they fail. It also has the API
// server check every example output. See README.md; run it with
// `make e2e-kube` against the cluster in KUBECONFIG.
package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// managedBy labels every pod the suite creates, so a later run can remove
// what an interrupted one left behind.
const managedBy = "sidecar-lifecycle-e2e"

// suite holds what every test needs; setup fills it from the environment.
var suite struct {
	repoRoot     string
	kubectl      string
	function     string // the sidecar-lifecycle binary
	namespace    string
	node         string
	portBase     int
	runID        string
	artifacts    string
	cache        string // where the vendors' proxies are built, kept between runs
	sidecarImage string
	appImage     string
}

func TestMain(m *testing.M) {
	started := time.Now()
	if err := setup(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e setup:", err)
		os.Exit(1)
	}
	fmt.Printf("e2e: run %s in namespace %s on node %s; setup took %s; artifacts in %s\n",
		suite.runID, suite.namespace, suite.node, time.Since(started).Round(100*time.Millisecond), suite.artifacts)
	code := m.Run()
	var table bytes.Buffer
	summary.print(&table)
	fmt.Fprintf(&table, "API server warnings: %s\n", &apiWarnings)
	for _, v := range vendorProxies {
		fmt.Fprintf(&table, "vendor proxy: %s (%s), image %s\n", v, v.module, v.image)
	}
	fmt.Print("\n" + table.String())
	fmt.Printf("e2e: %s in total\n", time.Since(started).Round(time.Second))
	_ = os.WriteFile(filepath.Join(suite.artifacts, "summary.txt"), table.Bytes(), 0o644)
	os.Exit(code)
}

// setup reads the environment, checks the cluster, builds and loads the
// stand-in images and removes pods an earlier run left behind.
func setup() error {
	if os.Getenv("KUBECONFIG") == "" {
		return errors.New("KUBECONFIG is not set: the suite needs a test cluster (.ci/kube.sh starts a local one)")
	}
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	suite.repoRoot = filepath.Dir(wd)
	suite.kubectl = envOr("KUBECTL", "kubectl")
	if _, err := exec.LookPath(suite.kubectl); err != nil {
		return fmt.Errorf("kubectl: %w", err)
	}
	suite.function = envOr("SIDECAR_LIFECYCLE", filepath.Join(suite.repoRoot, "bin", "sidecar-lifecycle"))
	if _, err := os.Stat(suite.function); err != nil {
		return fmt.Errorf("the function binary (make build, or set SIDECAR_LIFECYCLE): %w", err)
	}
	suite.namespace = envOr("E2E_NAMESPACE", "sidecar-lifecycle-e2e")
	if suite.portBase, err = strconv.Atoi(envOr("E2E_PORT_BASE", "28180")); err != nil {
		return fmt.Errorf("E2E_PORT_BASE: %w", err)
	}
	var id [3]byte
	if _, err := rand.Read(id[:]); err != nil {
		return err
	}
	suite.runID = hex.EncodeToString(id[:])
	suite.artifacts = envOr("E2E_ARTIFACTS", filepath.Join(suite.repoRoot, "bin", "e2e-artifacts", time.Now().UTC().Format("20060102-150405")))
	if err := os.MkdirAll(suite.artifacts, 0o755); err != nil {
		return err
	}
	suite.cache = envOr("E2E_CACHE", filepath.Join(suite.repoRoot, "bin", "e2e-cache"))

	// A cold build of the vendors' proxies takes a few minutes on two cores.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	if err := checkServerVersion(ctx); err != nil {
		return err
	}
	if suite.node, err = pickNode(ctx); err != nil {
		return err
	}
	if err := ensureNamespace(ctx); err != nil {
		return err
	}
	if err := removeLeftovers(ctx); err != nil {
		return err
	}
	return buildAndLoadImages(ctx)
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

// checkServerVersion requires native sidecars (on by default from 1.29).
func checkServerVersion(ctx context.Context) error {
	out, err := kubectl(ctx, "version", "-o", "json")
	if err != nil {
		return fmt.Errorf("reaching the cluster: %w", err)
	}
	var v struct {
		ServerVersion struct{ Major, Minor, GitVersion string } `json:"serverVersion"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		return fmt.Errorf("kubectl version: %w", err)
	}
	minor, _ := strconv.Atoi(strings.TrimRight(v.ServerVersion.Minor, "+"))
	if v.ServerVersion.Major != "1" || minor < 29 {
		return fmt.Errorf("server %s: the suite needs Kubernetes 1.29 or later (native sidecars)", v.ServerVersion.GitVersion)
	}
	return nil
}

// pickNode returns E2E_NODE or the first Ready node: pods name their node, so
// the suite also runs on clusters without a scheduler.
func pickNode(ctx context.Context) (string, error) {
	if node := os.Getenv("E2E_NODE"); node != "" {
		return node, nil
	}
	out, err := kubectl(ctx, "get", "nodes", "-o", `jsonpath={range .items[*]}{.metadata.name} {.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}`)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(out, "\n") {
		if name, status, ok := strings.Cut(strings.TrimSpace(line), " "); ok && status == "True" {
			return name, nil
		}
	}
	return "", fmt.Errorf("no Ready node: %q", out)
}

func ensureNamespace(ctx context.Context) error {
	phase, err := kubectl(ctx, "get", "namespace", suite.namespace, "-o", "jsonpath={.status.phase}", "--ignore-not-found")
	if err != nil {
		return err
	}
	switch phase {
	case "":
		_, err = kubectl(ctx, "create", "namespace", suite.namespace)
		return err
	case "Active":
		return nil
	default:
		return fmt.Errorf("namespace %s is %s: set E2E_NAMESPACE to another name", suite.namespace, phase)
	}
}

// removeLeftovers deletes the suite's pods from an interrupted run: they
// would hold its host ports.
func removeLeftovers(ctx context.Context) error {
	out, err := kubectl(ctx, "get", "pods", "-n", suite.namespace, "-l", "app.kubernetes.io/managed-by="+managedBy, "-o", "name")
	if err != nil {
		return err
	}
	names := strings.Fields(out)
	for _, name := range names {
		forceDelete(ctx, strings.TrimPrefix(name, "pod/"))
	}
	if len(names) == 0 {
		return nil
	}
	_, err = kubectl(ctx, "wait", "--for=delete", "-n", suite.namespace, "--timeout=120s", "pod", "-l", "app.kubernetes.io/managed-by="+managedBy)
	return err
}

// buildAndLoadImages builds the stand-in programs as static binaries, and
// the vendors' proxies from the Go module proxy (vendor_images_test.go), each
// into a one-file root filesystem, and hands it to the image loader:
// $E2E_IMAGE_LOADER NAME:TAG ROOTFS_DIR ENTRYPOINT_JSON.
func buildAndLoadImages(ctx context.Context) error {
	loader := os.Getenv("E2E_IMAGE_LOADER")
	if loader == "" {
		loader = filepath.Join(suite.repoRoot, "e2e", "kind-load-image.sh")
	}
	for _, img := range []struct {
		program string
		ref     *string
	}{{"stand-in-sidecar", &suite.sidecarImage}, {"stand-in-app", &suite.appImage}} {
		err := withRootfs(func(rootfs string) error {
			binary := filepath.Join(rootfs, img.program)
			build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", binary, "./cmd/"+img.program)
			build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
			if out, err := build.CombinedOutput(); err != nil {
				return fmt.Errorf("building %s: %w\n%s", img.program, err, out)
			}
			var err error
			*img.ref, err = loadImage(ctx, loader, "docker.io/local/"+img.program, "e2e-", rootfs, img.program)
			return err
		})
		if err != nil {
			return err
		}
	}
	for _, v := range vendorProxies {
		if err := v.buildAndLoad(ctx, loader); err != nil {
			return err
		}
	}
	return nil
}

// withRootfs runs fill with a new empty directory, then removes it.
func withRootfs(fill func(rootfs string) error) error {
	rootfs, err := os.MkdirTemp("", "e2e-rootfs-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(rootfs)
	if err := os.Chmod(rootfs, 0o755); err != nil {
		return err
	}
	return fill(rootfs)
}

// loadImage loads rootfs, whose /program is the entrypoint, as the image
// name:TAG, where TAG is tagPrefix and a hash of the binary, so a node never
// runs a stale build; it returns the reference.
func loadImage(ctx context.Context, loader, name, tagPrefix, rootfs, program string) (string, error) {
	content, err := os.ReadFile(filepath.Join(rootfs, program))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(content)
	ref := name + ":" + tagPrefix + hex.EncodeToString(sum[:6])
	entrypoint := `["/` + program + `"]`
	load := exec.CommandContext(ctx, "bash", "-c", loader+` "$@"`, "loader", ref, rootfs, entrypoint)
	if out, err := load.CombinedOutput(); err != nil {
		return "", fmt.Errorf("loading %s with %q: %w\n%s", ref, loader, err, out)
	}
	return ref, nil
}

// kubectl runs kubectl and returns its stdout; the error carries stderr.
// Warnings the API server sends back are collected for the summary.
func kubectl(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, suite.kubectl, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.HasPrefix(line, "Warning: ") {
			apiWarnings.add(strings.TrimPrefix(line, "Warning: "))
		}
	}
	if err != nil {
		return stdout.String(), fmt.Errorf("kubectl %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// apiWarnings holds each distinct warning the API server gave kubectl.
var apiWarnings warnings

type warnings struct {
	mu   sync.Mutex
	seen []string
}

func (w *warnings) add(msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.seen {
		if s == msg {
			return
		}
	}
	w.seen = append(w.seen, msg)
}

func (w *warnings) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.seen) == 0 {
		return "none"
	}
	return "\n  " + strings.Join(w.seen, "\n  ")
}
