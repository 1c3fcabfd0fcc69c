package driver_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/bench/corpus"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
)

// BenchmarkRun runs 1,000 workloads through ResourceList (the streaming path,
// with the generated functionConfig and with none) and through the whole-list
// path.
func BenchmarkRun(b *testing.B) {
	var list, zero bytes.Buffer
	if err := corpus.Write(&list, 1000); err != nil {
		b.Fatal(err)
	}
	if err := corpus.WriteZeroConfig(&zero, 1000); err != nil {
		b.Fatal(err)
	}
	for _, path := range []struct {
		name string
		list *bytes.Buffer
		run  func(io.Reader, io.Writer) error
	}{
		{"stream", &list, driver.Run},
		{"stream-zero-config", &zero, driver.Run},
		{"whole-list", &list, func(r io.Reader, w io.Writer) error { _, err := driver.RunWholeList(r, w); return err }},
	} {
		list := path.list
		b.Run(path.name, func(b *testing.B) {
			b.SetBytes(int64(list.Len()))
			b.ReportAllocs()
			for b.Loop() {
				if err := path.run(bytes.NewReader(list.Bytes()), io.Discard); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRunPublished runs the vendors' published manifests, repeated to
// 4 MiB, through ResourceList: what the profile of real manifests shows.
func BenchmarkRunPublished(b *testing.B) {
	var dirs []string
	for _, dir := range corpus.PublishedDirs() {
		dirs = append(dirs, "../../"+dir)
	}
	files, err := corpus.Published(dirs...)
	if err != nil {
		b.Fatal(err)
	}
	var list bytes.Buffer
	if err := corpus.WritePublished(&list, files, 4<<20); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(list.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if err := driver.Run(bytes.NewReader(list.Bytes()), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
