package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMakeFuzzRunsEveryTarget: the Makefile's FUZZ_TARGETS, which make fuzz
// runs, lists every fuzz target in the tree, as package:Func.
func TestMakeFuzzRunsEveryTarget(t *testing.T) {
	makefile, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^FUZZ_TARGETS \?= (.*)$`).FindSubmatch(makefile)
	if m == nil {
		t.Fatal("no FUZZ_TARGETS in the Makefile")
	}
	listed := strings.Fields(string(m[1]))
	var found []string
	fuzz := regexp.MustCompile(`(?m)^func (Fuzz\w*)\(`)
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		text, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, f := range fuzz.FindAllSubmatch(text, -1) {
			found = append(found, "./"+filepath.ToSlash(filepath.Dir(path))+":"+string(f[1]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) == 0 {
		t.Fatal("no fuzz target found")
	}
	slices.Sort(listed)
	slices.Sort(found)
	if !slices.Equal(listed, found) {
		t.Errorf("FUZZ_TARGETS lists\n%s\nthe tree has\n%s", strings.Join(listed, "\n"), strings.Join(found, "\n"))
	}
}
