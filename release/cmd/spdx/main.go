// Command spdx writes SPDX 2.3 JSON software bills of materials: one for a
// Go binary, from the module list the Go toolchain records in it
// (debug/buildinfo), and one for the image in an OCI image layout, naming
// the index, each platform's image and the binary and CA bundle it holds.
// The documents depend only on their inputs and -epoch, so a rebuild from
// the same source writes the same bytes.
//
//	spdx -epoch E -version V -binary dist/sidecar-lifecycle-linux-amd64 > x.spdx.json
//	spdx -epoch E -version V -image dist/image -repository ghcr.io/o/n \
//	  -binary linux/amd64=dist/sidecar-lifecycle-linux-amd64 ... > image.spdx.json
package main

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"golang.org/x/crypto/x509roots/fallback/bundle"
)

const (
	module  = "github.com/sidecar-lifecycle/sidecar-lifecycle"
	source  = "https://github.com/sidecar-lifecycle/sidecar-lifecycle"
	caRoots = "golang.org/x/crypto/x509roots/fallback"
)

type document struct {
	SPDXVersion       string         `json:"spdxVersion"`
	DataLicense       string         `json:"dataLicense"`
	SPDXID            string         `json:"SPDXID"`
	Name              string         `json:"name"`
	DocumentNamespace string         `json:"documentNamespace"`
	CreationInfo      creationInfo   `json:"creationInfo"`
	Packages          []pkg          `json:"packages"`
	Relationships     []relationship `json:"relationships"`
}

type creationInfo struct {
	Created  string   `json:"created"`
	Creators []string `json:"creators"`
}

type pkg struct {
	Name             string     `json:"name"`
	SPDXID           string     `json:"SPDXID"`
	VersionInfo      string     `json:"versionInfo,omitempty"`
	Supplier         string     `json:"supplier,omitempty"`
	DownloadLocation string     `json:"downloadLocation"`
	FilesAnalyzed    bool       `json:"filesAnalyzed"`
	Checksums        []checksum `json:"checksums,omitempty"`
	LicenseConcluded string     `json:"licenseConcluded"`
	LicenseDeclared  string     `json:"licenseDeclared"`
	CopyrightText    string     `json:"copyrightText"`
	Purpose          string     `json:"primaryPackagePurpose,omitempty"`
	Comment          string     `json:"comment,omitempty"`
	ExternalRefs     []ref      `json:"externalRefs,omitempty"`
}

type checksum struct {
	Algorithm string `json:"algorithm"`
	Value     string `json:"checksumValue"`
}

type ref struct {
	Category string `json:"referenceCategory"`
	Type     string `json:"referenceType"`
	Locator  string `json:"referenceLocator"`
}

type relationship struct {
	Element string `json:"spdxElementId"`
	Type    string `json:"relationshipType"`
	Related string `json:"relatedSpdxElement"`
}

type binaries []string

func (b *binaries) String() string     { return strings.Join(*b, ",") }
func (b *binaries) Set(v string) error { *b = append(*b, v); return nil }

func main() {
	var bins binaries
	epoch := flag.Int64("epoch", 0, "SOURCE_DATE_EPOCH: the documents' creation time")
	version := flag.String("version", "dev", "the release's version")
	imageDir := flag.String("image", "", "an OCI image layout: describe its image instead of one binary")
	repository := flag.String("repository", "ghcr.io/sidecar-lifecycle/sidecar-lifecycle", "the image's repository, for its purl")
	flag.Var(&bins, "binary", "a binary (alone), or os/arch=path per platform with -image")
	flag.Parse()
	doc := &document{
		SPDXVersion: "SPDX-2.3",
		DataLicense: "CC0-1.0",
		SPDXID:      "SPDXRef-DOCUMENT",
		CreationInfo: creationInfo{
			Created:  time.Unix(*epoch, 0).UTC().Format(time.RFC3339),
			Creators: []string{"Organization: sidecar-lifecycle", "Tool: sidecar-lifecycle-release-spdx"},
		},
	}
	var err error
	if *imageDir != "" {
		err = describeImage(doc, *imageDir, *repository, *version, bins)
	} else if len(bins) == 1 {
		var id string
		id, err = describeBinary(doc, bins[0], *version, "")
		doc.Name = "sidecar-lifecycle-" + *version + "-" + filepath.Base(bins[0])
		doc.rel("SPDXRef-DOCUMENT", "DESCRIBES", id)
	} else {
		err = fmt.Errorf("want one -binary, or -image with -binary os/arch=path per platform")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "spdx:", err)
		os.Exit(1)
	}
	doc.DocumentNamespace = source + "/spdx/" + url.PathEscape(doc.Name)
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		fmt.Fprintln(os.Stderr, "spdx:", err)
		os.Exit(1)
	}
}

func (d *document) rel(a, typ, b string) {
	d.Relationships = append(d.Relationships, relationship{a, typ, b})
}

var unsafeID = regexp.MustCompile(`[^A-Za-z0-9.-]+`)

func spdxID(parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return "SPDXRef-" + unsafeID.ReplaceAllString(strings.Join(kept, "-"), "-")
}

// describeBinary adds the binary, the Go standard library and every module
// linked into it, and returns the binary's SPDX id. prefix keeps the ids of
// several binaries in one document apart.
func describeBinary(d *document, file, version, prefix string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	info, err := buildinfo.ReadFile(file)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	var goos, goarch string
	for _, s := range info.Settings {
		switch s.Key {
		case "GOOS":
			goos = s.Value
		case "GOARCH":
			goarch = s.Value
		}
	}
	id := spdxID(prefix, "binary", goos, goarch)
	d.Packages = append(d.Packages, pkg{
		Name:             "sidecar-lifecycle",
		SPDXID:           id,
		VersionInfo:      version,
		Supplier:         "Organization: sidecar-lifecycle",
		DownloadLocation: source,
		Checksums:        []checksum{{"SHA256", hex.EncodeToString(sum[:])}},
		LicenseConcluded: "Apache-2.0",
		LicenseDeclared:  "Apache-2.0",
		CopyrightText:    "NOASSERTION",
		Purpose:          "APPLICATION",
		Comment:          fmt.Sprintf("%s for %s/%s, built with %s", filepath.Base(file), goos, goarch, info.GoVersion),
		ExternalRefs: []ref{{"PACKAGE-MANAGER", "purl",
			fmt.Sprintf("pkg:golang/%s@%s?goos=%s&goarch=%s", module, url.PathEscape(version), goos, goarch)}},
	})
	std := spdxID(prefix, goos, goarch, "stdlib")
	d.Packages = append(d.Packages, goPackage(std, "stdlib", info.GoVersion, ""))
	d.rel(id, "DEPENDS_ON", std)
	for _, m := range info.Deps {
		if m.Replace != nil {
			m = m.Replace
		}
		mid := spdxID(prefix, goos, goarch, "go", m.Path, m.Version)
		d.Packages = append(d.Packages, goPackage(mid, m.Path, m.Version, m.Sum))
		d.rel(id, "DEPENDS_ON", mid)
	}
	return id, nil
}

func goPackage(id, path, version, sum string) pkg {
	p := pkg{
		Name:             path,
		SPDXID:           id,
		VersionInfo:      version,
		DownloadLocation: "NOASSERTION",
		LicenseConcluded: "NOASSERTION",
		LicenseDeclared:  "NOASSERTION",
		CopyrightText:    "NOASSERTION",
		Purpose:          "LIBRARY",
		ExternalRefs:     []ref{{"PACKAGE-MANAGER", "purl", "pkg:golang/" + path + "@" + version}},
	}
	if path != "stdlib" {
		p.DownloadLocation = "https://proxy.golang.org/" + path + "/@v/" + version + ".zip"
	}
	if sum != "" {
		p.Comment = "go.sum " + sum
	}
	return p
}

// describeImage adds the image index of the layout, each platform's image,
// and what each holds: the binary (with its modules) and the CA bundle.
func describeImage(d *document, dir, repository, version string, bins []string) error {
	files := map[string]string{}
	for _, b := range bins {
		platform, file, ok := strings.Cut(b, "=")
		if !ok {
			return fmt.Errorf("-binary %q: want os/arch=path with -image", b)
		}
		files[platform] = file
	}
	root, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return err
	}
	rm, err := root.IndexManifest()
	if err != nil {
		return err
	}
	if len(rm.Manifests) != 1 {
		return fmt.Errorf("%s holds %d manifests, want one image index", dir, len(rm.Manifests))
	}
	idx, err := root.ImageIndex(rm.Manifests[0].Digest)
	if err != nil {
		return err
	}
	digest := rm.Manifests[0].Digest
	d.Name = "sidecar-lifecycle-image-" + version
	name := repository[strings.LastIndex(repository, "/")+1:]
	purl := func(dg v1.Hash, extra string) string {
		return fmt.Sprintf("pkg:oci/%s@%s?repository_url=%s%s", name, url.QueryEscape(dg.String()), url.QueryEscape(repository), extra)
	}
	indexID := spdxID("image-index")
	d.Packages = append(d.Packages, pkg{
		Name: repository, SPDXID: indexID, VersionInfo: version,
		Supplier: "Organization: sidecar-lifecycle", DownloadLocation: "NOASSERTION",
		Checksums:        []checksum{{"SHA256", digest.Hex}},
		LicenseConcluded: "Apache-2.0", LicenseDeclared: "Apache-2.0", CopyrightText: "NOASSERTION",
		Purpose: "CONTAINER", Comment: "image index " + digest.String(),
		ExternalRefs: []ref{{"PACKAGE-MANAGER", "purl", purl(digest, "")}},
	})
	d.rel("SPDXRef-DOCUMENT", "DESCRIBES", indexID)
	im, err := idx.IndexManifest()
	if err != nil {
		return err
	}
	for _, m := range im.Manifests {
		if m.Platform == nil {
			return fmt.Errorf("manifest %s has no platform", m.Digest)
		}
		platform := m.Platform.OS + "/" + m.Platform.Architecture
		imgID := spdxID("image", m.Platform.OS, m.Platform.Architecture)
		d.Packages = append(d.Packages, pkg{
			Name: repository, SPDXID: imgID, VersionInfo: version,
			Supplier: "Organization: sidecar-lifecycle", DownloadLocation: "NOASSERTION",
			Checksums:        []checksum{{"SHA256", m.Digest.Hex}},
			LicenseConcluded: "Apache-2.0", LicenseDeclared: "Apache-2.0", CopyrightText: "NOASSERTION",
			Purpose: "CONTAINER", Comment: platform + " image manifest " + m.Digest.String(),
			ExternalRefs: []ref{{"PACKAGE-MANAGER", "purl", purl(m.Digest, "&arch="+m.Platform.Architecture+"&os="+m.Platform.OS)}},
		})
		d.rel(indexID, "CONTAINS", imgID)
		file, ok := files[platform]
		if !ok {
			return fmt.Errorf("no -binary %s=path for the image's %s manifest", platform, platform)
		}
		binID, err := describeBinary(d, file, version, "image")
		if err != nil {
			return err
		}
		d.rel(imgID, "CONTAINS", binID)
		caID := spdxID("image", m.Platform.OS, m.Platform.Architecture, "ca-certificates")
		p := goPackage(caID, caRoots, caRootsVersion(), "")
		p.Comment = "/etc/ssl/certs/ca-certificates.crt: the Mozilla NSS roots of this module"
		p.Purpose = "FILE"
		d.Packages = append(d.Packages, p)
		d.rel(imgID, "CONTAINS", caID)
	}
	return nil
}

// caRootsVersion is the version of the CA bundle module the image command
// was built with, read from this program's own build information (both are
// built from the release module's go.mod).
func caRootsVersion() string {
	self, err := os.Executable()
	if err == nil {
		if info, err := buildinfo.ReadFile(self); err == nil {
			for _, m := range info.Deps {
				if m.Path == caRoots {
					return m.Version
				}
			}
		}
	}
	return "NOASSERTION"
}

// The CA bundle is linked in so that caRootsVersion reads the version the
// image command used.
var _ = bundle.Roots
