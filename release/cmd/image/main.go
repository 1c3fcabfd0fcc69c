// Command image writes the function's multi-platform image as an OCI image
// layout, from binaries cross-compiled beforehand: no container engine and
// no emulation. Every byte comes from its inputs and -epoch (the commit
// time), so the same source gives the same index digest.
//
//	image -out dist/image -epoch 1700000000 -version v0.1.0 -revision SHA \
//	  -binary linux/amd64=dist/sidecar-lifecycle-linux-amd64 \
//	  -binary linux/arm64=dist/sidecar-lifecycle-linux-arm64
//
// The base layer stands in for gcr.io/distroless/static:nonroot, which
// cannot be pulled offline: /etc/passwd and /etc/group with root, nobody
// (65534) and nonroot (65532), the Mozilla NSS roots of
// golang.org/x/crypto/x509roots/fallback as /etc/ssl/certs/ca-certificates.crt,
// /tmp and /home/nonroot. The image runs as 65532:65532.
package main

import (
	"archive/tar"
	"bytes"
	"encoding/pem"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
	"golang.org/x/crypto/x509roots/fallback/bundle"
)

const binaryPath = "/usr/local/bin/sidecar-lifecycle"

type binaries []string

func (b *binaries) String() string     { return strings.Join(*b, ",") }
func (b *binaries) Set(v string) error { *b = append(*b, v); return nil }

func main() {
	var bins binaries
	out := flag.String("out", "dist/image", "the OCI image layout to write (replaced)")
	epoch := flag.Int64("epoch", 0, "SOURCE_DATE_EPOCH: every timestamp in the image")
	version := flag.String("version", "dev", "org.opencontainers.image.version")
	revision := flag.String("revision", "", "org.opencontainers.image.revision")
	source := flag.String("source", "https://github.com/sidecar-lifecycle/sidecar-lifecycle", "org.opencontainers.image.source")
	flag.Var(&bins, "binary", "os/arch=path of a static binary; repeat per platform")
	flag.Parse()
	if len(bins) == 0 {
		fail(fmt.Errorf("no -binary given"))
	}
	created := time.Unix(*epoch, 0).UTC()
	labels := map[string]string{
		"org.opencontainers.image.title":    "sidecar-lifecycle",
		"org.opencontainers.image.version":  *version,
		"org.opencontainers.image.revision": *revision,
		"org.opencontainers.image.source":   *source,
		"org.opencontainers.image.licenses": "Apache-2.0",
		"org.opencontainers.image.created":  created.Format(time.RFC3339),
	}
	base, err := layer(baseFiles(), created)
	if err != nil {
		fail(err)
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, b := range bins {
		platform, file, ok := strings.Cut(b, "=")
		goos, arch, ok2 := strings.Cut(platform, "/")
		if !ok || !ok2 {
			fail(fmt.Errorf("-binary %q: want os/arch=path", b))
		}
		img, err := image(base, file, goos, arch, created, labels)
		if err != nil {
			fail(fmt.Errorf("%s: %w", platform, err))
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: goos, Architecture: arch}},
		})
	}
	idx = mutate.Annotations(idx, labels).(v1.ImageIndex)
	if err := os.RemoveAll(*out); err != nil {
		fail(err)
	}
	p, err := layout.Write(*out, empty.Index)
	if err != nil {
		fail(err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": *version,
	})); err != nil {
		fail(err)
	}
	d, err := idx.Digest()
	if err != nil {
		fail(err)
	}
	fmt.Println(d)
}

// image is one platform's image: the base layer, then the binary.
func image(base v1.Layer, file, goos, arch string, created time.Time, labels map[string]string) (v1.Image, error) {
	bin, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	top, err := layer([]entry{
		{name: "usr/", mode: 0o755, dir: true},
		{name: "usr/local/", mode: 0o755, dir: true},
		{name: "usr/local/bin/", mode: 0o755, dir: true},
		{name: strings.TrimPrefix(binaryPath, "/"), mode: 0o755, data: bin},
	}, created)
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: base, History: v1.History{Created: v1.Time{Time: created}, CreatedBy: "base: passwd, group, CA certificates, /tmp", Comment: "sidecar-lifecycle release"}},
		mutate.Addendum{Layer: top, History: v1.History{Created: v1.Time{Time: created}, CreatedBy: "COPY sidecar-lifecycle " + binaryPath, Comment: "sidecar-lifecycle release"}},
	)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Created = v1.Time{Time: created}
	cf.OS, cf.Architecture = goos, arch
	cf.Config.User = "65532:65532"
	cf.Config.Entrypoint = []string{binaryPath}
	cf.Config.Env = []string{
		"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt",
	}
	cf.Config.WorkingDir = "/"
	cf.Config.Labels = labels
	return mutate.ConfigFile(img, cf)
}

type entry struct {
	name     string
	mode     int64
	dir      bool
	uid, gid int
	data     []byte
}

// baseFiles is what distroless/static:nonroot holds that a static binary
// may need.
func baseFiles() []entry {
	var certs bytes.Buffer
	for root := range bundle.Roots() {
		if root.Constraint != nil { // a distrust date X.509 cannot carry
			continue
		}
		pem.Encode(&certs, &pem.Block{Type: "CERTIFICATE", Bytes: root.Certificate})
	}
	return []entry{
		{name: "etc/", mode: 0o755, dir: true},
		{name: "etc/group", mode: 0o644, data: []byte("root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n")},
		{name: "etc/nsswitch.conf", mode: 0o644, data: []byte("hosts: files dns\n")},
		{name: "etc/passwd", mode: 0o644, data: []byte("root:x:0:0:root:/root:/sbin/nologin\n" +
			"nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n" +
			"nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n")},
		{name: "etc/ssl/", mode: 0o755, dir: true},
		{name: "etc/ssl/certs/", mode: 0o755, dir: true},
		{name: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, data: certs.Bytes()},
		{name: "home/", mode: 0o755, dir: true},
		{name: "home/nonroot/", mode: 0o700, dir: true, uid: 65532, gid: 65532},
		{name: "root/", mode: 0o700, dir: true},
		{name: "tmp/", mode: 0o1777, dir: true},
	}
}

// layer is a gzip layer of the entries, in order, every time set to
// created and every owner numeric, so that it is the same bytes each build.
func layer(entries []entry, created time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{
			Name:    e.name,
			Mode:    e.mode,
			Uid:     e.uid,
			Gid:     e.gid,
			ModTime: created,
			Format:  tar.FormatPAX,
		}
		if e.dir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(e.data))
		}
		if path.Clean(e.name) == "" {
			return nil, fmt.Errorf("empty name")
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(b)), nil
	}, tarball.WithMediaType(types.OCILayer))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "image:", err)
	os.Exit(1)
}
