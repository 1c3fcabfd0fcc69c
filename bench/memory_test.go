//go:build bench

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/bench/corpus"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/testbin"
)

// TestMemoryBoundedOnEveryForm runs the function binary on a list of a few
// MiB written as kustomize and kpt write it, then the same list with CRLF
// line breaks, with a byte order mark, with comments and blank lines
// between the items, and as JSON, and compares the peak RSS of each with
// the first's: within 1.5 times (2 for JSON). The whole-list path, which
// took these forms before, needs 150 to 300 times the input. A form over
// its bound is run once more and the better run counts, so that load on a
// shared machine counts less. Peak memory depends on the machine's load,
// so `make bench` runs it (build tag bench); TestEveryFormRuns is its
// functional part in the unit suite.
func TestMemoryBoundedOnEveryForm(t *testing.T) {
	dir := t.TempDir()
	binary := testbin.For(t)
	forms, err := inputForms(1000)
	if err != nil {
		t.Fatal(err)
	}
	var base int64
	for _, form := range forms {
		path := filepath.Join(dir, form.name)
		if err := os.WriteFile(path, form.in, 0o644); err != nil {
			t.Fatal(err)
		}
		// The least peak of a few runs: a busy machine raises one run's
		// peak (the collector runs later), never lowers it. The base is the
		// least of three.
		var rss int64
		for run := 0; run < 4 && (rss == 0 || (form.bound == 0 && run < 3) || (form.bound > 0 && float64(rss) > form.bound*float64(base))); run++ {
			m, err := measure(binary, path, "pipe")
			if err != nil {
				t.Fatal(err)
			}
			if rss == 0 || m.rss < rss {
				rss = m.rss
			}
		}
		if form.bound == 0 {
			base = rss
			t.Logf("%s: %s in, peak RSS %s", form.name, mib(int64(len(form.in))), mib(rss))
			continue
		}
		ratio := float64(rss) / float64(base)
		t.Logf("%s: %s in, peak RSS %s, %.2f times lf", form.name, mib(int64(len(form.in))), mib(rss), ratio)
		if ratio > form.bound {
			t.Errorf("%s: peak RSS %s is %.2f times the lf list's %s; want at most %.1f", form.name, mib(rss), ratio, mib(base), form.bound)
		}
	}
}

// TestLargeWorkloadElided runs the function binary on one 20 MiB
// Deployment whose application has a long environment: elided rather than
// parsed (see internal/yamlio/elide), it must peak within 12 times the input,
// where parsed whole it took 54 times. The least peak of two runs counts.
func TestLargeWorkloadElided(t *testing.T) {
	dir := t.TempDir()
	binary := testbin.For(t)
	var b bytes.Buffer
	if err := corpus.WriteBigDeployment(&b, 20<<20); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "deployment")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var rss int64
	for run := 0; run < 2; run++ {
		m, err := measure(binary, path, "pipe")
		if err != nil {
			t.Fatal(err)
		}
		if rss == 0 || m.rss < rss {
			rss = m.rss
		}
	}
	ratio := float64(rss) / float64(b.Len())
	t.Logf("%s in, peak RSS %s, %.1f times the input", mib(int64(b.Len())), mib(rss), ratio)
	if ratio > 12 {
		t.Errorf("peak RSS %s is %.1f times the input's %s; want at most 12", mib(rss), ratio, mib(int64(b.Len())))
	}
}
