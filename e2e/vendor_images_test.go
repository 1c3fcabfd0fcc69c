//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// vendorProxy is a vendor's own proxy, built with `go install` of a pinned
// version from the Go module proxy and run in the suite's pods.
type vendorProxy struct {
	// program is the binary's name and the image's entrypoint, as in the vendor's images.
	program string
	// module is the Go package path; version is pinned.
	module, version string
	// toolchain is the GOTOOLCHAIN the build needs; empty for the local one.
	toolchain string
	// versionVar is the variable the vendor's own build stamps the version
	// into (-ldflags -X), for a program that prints it with --version only so.
	versionVar string
	// image is the loaded image's reference, set by buildAndLoad.
	image string
	// preset is its catalog entry; container the container name the
	// scenarios' bases give it; prefix names its scenarios.
	preset, container, prefix string
	// deployment and job are its scenarios' bases in testdata/; without a
	// job it runs no Job scenario.
	deployment, job string
	// noWait: its catalog entry has no wait command or startup probe, so
	// the function only orders it and the start-up scenario is not run.
	noWait bool
	// port is the first of the thirteen ports (the suite's base plus it)
	// its scenarios listen on (see TestVendorProxies).
	port int
}

// cloudSQLProxy is Google's Cloud SQL Auth Proxy v2.
var cloudSQLProxy = &vendorProxy{
	program: "cloud-sql-proxy",
	module:  "github.com/GoogleCloudPlatform/cloud-sql-proxy/v2",
	version: "v2.27.0",
	preset:  "cloud-sql-proxy", container: "cloud-sql-proxy", prefix: "csql",
	deployment: "csql-deployment.yaml", job: "csql-job.yaml",
	port: 20,
}

// alloyDBProxy is Google's AlloyDB Auth Proxy; v1.17.2 builds with Go 1.27.
var alloyDBProxy = &vendorProxy{
	program:   "alloydb-auth-proxy",
	module:    "github.com/GoogleCloudPlatform/alloydb-auth-proxy",
	version:   "v1.17.2",
	toolchain: "go1.27.3",
	preset:    "alloydb-auth-proxy", container: "alloydb-auth-proxy", prefix: "alloydb",
	deployment: "alloydb-deployment.yaml", job: "alloydb-job.yaml",
	port: 33,
}

// oauth2Proxy is oauth2-proxy, in front of an application: its shutdown
// is where the order matters.
var oauth2Proxy = &vendorProxy{
	program: "oauth2-proxy",
	module:  "github.com/oauth2-proxy/oauth2-proxy/v7",
	version: "v7.15.6",
	preset:  "oauth2-proxy", container: "oauth2-proxy", prefix: "oauth2-proxy",
	deployment: "oauth2-proxy-deployment.yaml",
	noWait:     true,
	port:       46,
	// Its Makefile stamps the version; go install alone prints "undefined".
	versionVar: "github.com/oauth2-proxy/oauth2-proxy/v7/pkg/version.VERSION",
}

// vendorProxies are the proxies setup builds and loads.
var vendorProxies = []*vendorProxy{cloudSQLProxy, alloyDBProxy, oauth2Proxy}

// String names the proxy and its version, for the summary.
func (v *vendorProxy) String() string { return v.program + " " + v.version }

// binary builds the proxy into the cache, once per version, and returns its path.
func (v *vendorProxy) binary(ctx context.Context) (string, error) {
	dir := filepath.Join(suite.cache, v.program+"@"+v.version)
	path := filepath.Join(dir, v.program)
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	ldflags := "-s -w"
	if v.versionVar != "" {
		ldflags += " -X " + v.versionVar + "=" + v.version
	}
	install := exec.CommandContext(ctx, "go", "install", "-trimpath", "-ldflags="+ldflags, v.module+"@"+v.version)
	install.Dir = tmp // outside this module: go install pkg@version builds the module as released
	install.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOBIN="+tmp, "GOFLAGS=")
	if v.toolchain != "" {
		install.Env = append(install.Env, "GOTOOLCHAIN="+v.toolchain)
	}
	if out, err := install.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install %s@%s: %w\n%s", v.module, v.version, err, out)
	}
	// A complete binary or none: a build cut short leaves nothing cached.
	if err := os.Rename(filepath.Join(tmp, v.program), path); err != nil {
		return "", err
	}
	return path, nil
}

// buildAndLoad builds the proxy (or takes it from the cache), checks that it
// is the pinned version, and loads it as a one-file image whose entrypoint is
// /program, as in the vendor's images.
func (v *vendorProxy) buildAndLoad(ctx context.Context, loader string) error {
	binary, err := v.binary(ctx)
	if err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, binary, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), strings.TrimPrefix(v.version, "v")) {
		return fmt.Errorf("%s --version: %v: %q, want %s", binary, err, out, v.version)
	}
	content, err := os.ReadFile(binary)
	if err != nil {
		return err
	}
	return withRootfs(func(rootfs string) error {
		if err := os.WriteFile(filepath.Join(rootfs, v.program), content, 0o755); err != nil {
			return err
		}
		// The tag starts with the version, as the vendor's do.
		v.image, err = loadImage(ctx, loader, "docker.io/local/"+v.program, strings.TrimPrefix(v.version, "v")+"-e2e-", rootfs, v.program)
		return err
	})
}
