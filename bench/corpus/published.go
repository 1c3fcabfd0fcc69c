package corpus

import (
	"bufio"
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// PublishedDirs returns the directories, relative to the module root, that
// hold the vendors' published manifests and rendered charts the tests
// read: every YAML file in them but a case's source.yaml and expect.yaml.
func PublishedDirs() []string {
	return []string{
		"internal/driver/testdata/published",
		"internal/driver/testdata/catalog",
	}
}

// publishedRefused are the published files the function refuses: Kuma's
// injector golden of a Pod whose init container and container share a
// name. One error result makes a run write every item as it came, after a
// second pass: the benchmark measures a run that succeeds.
var publishedRefused = map[string]bool{"inject.32.golden.yaml": true}

// Published is the text of every published file under dirs, in path
// order, but those the function refuses: the documents people really
// render, with the vendors' comments, flow-style lines and block scalars as
// they wrote them.
func Published(dirs ...string) ([][]byte, error) {
	var paths []string
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if !d.IsDir() && strings.HasSuffix(name, ".yaml") && name != "source.yaml" && name != "expect.yaml" && !(publishedRefused[name] && strings.HasSuffix(filepath.Dir(path), "kuma-inject")) {
				paths = append(paths, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(paths)
	var files [][]byte
	for _, path := range paths {
		text, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		files = append(files, text)
	}
	return files, nil
}

// WritePublished writes the resources of files, repeated until the list
// holds at least size bytes of them, as a ResourceList the way kustomize
// and kpt send one (read by kio.ByteReader, written by kio.ByteWriter),
// with the FunctionConfig. A file kio.ByteReader does not read as
// resources is left out.
func WritePublished(w io.Writer, files [][]byte, size int) error {
	var once []*yaml.RNode
	total := 0
	for _, text := range files {
		nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(text), OmitReaderAnnotations: true}).Read()
		if err != nil {
			continue
		}
		once = append(once, nodes...)
		total += len(text)
	}
	var items []*yaml.RNode
	for n := 0; n < size && total > 0; n += total {
		for _, node := range once {
			items = append(items, node.Copy())
		}
	}
	fc, err := yaml.Parse(FunctionConfig)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	kw := kio.ByteWriter{Writer: bw, WrappingKind: kio.ResourceListKind, WrappingAPIVersion: kio.ResourceListAPIVersion, FunctionConfig: fc}
	if err := kw.Write(items); err != nil {
		return err
	}
	return bw.Flush()
}

// WritePublishedPlain writes files, repeated until at least size bytes,
// as one plain multi-document stream, each file as it is: the input of
// --config mode, as a repository's rendered charts and examples are
// concatenated.
func WritePublishedPlain(w io.Writer, files [][]byte, size int) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	written := 0
	for first := true; written < size; {
		for _, text := range files {
			if !first {
				bw.WriteString("---\n")
			}
			first = false
			bw.Write(text)
			if len(text) > 0 && text[len(text)-1] != '\n' {
				bw.WriteString("\n")
			}
			written += len(text)
		}
	}
	return bw.Flush()
}
