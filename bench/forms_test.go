package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/bench/corpus"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/testbin"
)

// TestMain removes the binary the tests built, if they built one.
func TestMain(m *testing.M) {
	code := m.Run()
	testbin.Remove()
	os.Exit(code)
}

// inputForm is a generated list written one way, and how much more peak
// memory than the lf form it may take (0 for lf itself).
type inputForm struct {
	name  string
	in    []byte
	bound float64
}

// inputForms writes a list of the given number of workloads as kustomize
// and kpt write it, then the same list with CRLF line breaks, with a byte
// order mark, with comments and blank lines between the items, and as JSON.
func inputForms(workloads int) ([]inputForm, error) {
	var lf, crlf, jsonList bytes.Buffer
	for _, w := range []struct {
		buf   *bytes.Buffer
		write func(w *bytes.Buffer, n int) error
	}{
		{&lf, func(w *bytes.Buffer, n int) error { return corpus.Write(w, n) }},
		{&crlf, func(w *bytes.Buffer, n int) error { return corpus.WriteCRLF(w, n) }},
		{&jsonList, func(w *bytes.Buffer, n int) error { return corpus.WriteJSON(w, n) }},
	} {
		if err := w.write(w.buf, workloads); err != nil {
			return nil, err
		}
	}
	commented := strings.ReplaceAll(lf.String(), "\n- ", "\n# the next item\n\n- ")
	commented = strings.Replace(commented, "\nfunctionConfig:", "\n# the end of the items\n\nfunctionConfig:", 1)
	return []inputForm{
		{"lf", lf.Bytes(), 0},
		{"crlf", crlf.Bytes(), 1.5},
		{"bom", append([]byte("\ufeff"), lf.Bytes()...), 1.5},
		{"comments", []byte(commented), 1.5},
		{"json", jsonList.Bytes(), 2},
	}, nil
}

// TestEveryFormRuns: the binary takes every form of a list and a
// Deployment too large to parse whole, from a pipe, and writes output;
// their peak memory is measured by `make bench` (memory_test.go).
func TestEveryFormRuns(t *testing.T) {
	dir := t.TempDir()
	binary := testbin.For(t)
	forms, err := inputForms(50)
	if err != nil {
		t.Fatal(err)
	}
	var big bytes.Buffer
	if err := corpus.WriteBigDeployment(&big, 2<<20); err != nil {
		t.Fatal(err)
	}
	forms = append(forms, inputForm{name: "large deployment", in: big.Bytes()})
	for _, form := range forms {
		path := filepath.Join(dir, strings.ReplaceAll(form.name, " ", "-"))
		if err := os.WriteFile(path, form.in, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := measure(binary, path, "pipe"); err != nil {
			t.Errorf("%s: %v", form.name, err)
		}
	}
}
