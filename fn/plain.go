package fn

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/stream"
)

// runPlain is `sidecar-lifecycle --config FILE [FILE|DIR ...]`: it edits a
// plain multi-document YAML stream, read from the files or stdin, to
// stdout. Helm 3 runs it as a post-renderer as it is.
func runPlain(args []string, stdin io.Reader, stdout io.Writer, stderr lines) int {
	configFile, inputs, err := plainArgs(args)
	if err != nil {
		stderr.fail(err.Error())
		return 1
	}
	cfg, err := readConfig(configFile)
	if err != nil {
		stderr.fail(err.Error())
		return 1
	}
	in := stdin
	if len(inputs) > 0 {
		files, err := inputFiles(inputs)
		if err != nil {
			stderr.fail(err.Error())
			return 1
		}
		r, closeAll, err := concatenate(files)
		if err != nil {
			stderr.fail(err.Error())
			return 1
		}
		defer closeAll()
		in = r
	}
	rep, err := driver.PlainStream(cfg, in, stdout)
	for _, r := range rep.Problems {
		stderr.result(r)
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, report.ErrResults):
		stderr.note("nothing was written")
	default:
		stderr.fail(err.Error())
	}
	return 1
}

// readConfig reads the config file: one YAML document, a SidecarLifecycle
// or a ConfigMap, as the functionConfig would be. Unlike an absent
// functionConfig, a file with no document (empty, blank, only comments,
// /dev/null) is an error: a policy file truncated in CI must not run with
// the defaults.
func readConfig(path string) (*yaml.RNode, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the config: %v", unwrapPath(err))
	}
	doc, err := stream.DecodeOne(bytes.NewReader(data))
	switch {
	case err == io.EOF || len(bytes.TrimSpace(data)) == 0: // YAML takes no tab there
		return nil, fmt.Errorf("config %s holds no YAML document: expected a SidecarLifecycle or a ConfigMap; for the defaults, give a SidecarLifecycle without spec", quotePath(path))
	case err == stream.ErrMoreDocuments:
		return nil, fmt.Errorf("config %s holds more than one YAML document: expected one SidecarLifecycle or ConfigMap", quotePath(path))
	case err != nil:
		return nil, fmt.Errorf("config %s is not valid YAML: %s", quotePath(path), err)
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("config %s is not a mapping: expected a SidecarLifecycle or a ConfigMap", quotePath(path))
	}
	return yaml.NewRNode(doc.Content[0]), nil
}

// inputFiles expands the inputs: a file as it is, a directory as its
// .yaml, .yml and .json files, in name order (not its subdirectories).
func inputFiles(inputs []string) ([]string, error) {
	var files []string
	for _, in := range inputs {
		st, err := os.Stat(in)
		if err != nil {
			return nil, fmt.Errorf("reading input: %v", unwrapPath(err))
		}
		if !st.IsDir() {
			files = append(files, in)
			continue
		}
		entries, err := os.ReadDir(in)
		if err != nil {
			return nil, fmt.Errorf("reading input: %v", unwrapPath(err))
		}
		var names []string
		for _, e := range entries {
			switch filepath.Ext(e.Name()) {
			case ".yaml", ".yml", ".json":
				if !e.IsDir() {
					names = append(names, filepath.Join(in, e.Name()))
				}
			}
		}
		sort.Strings(names)
		files = append(files, names...)
	}
	return files, nil
}

// concatenate opens the files and joins them into one stream, with a "---"
// line between two files and a line end after a file that lacks one.
func concatenate(files []string) (io.Reader, func(), error) {
	var readers []io.Reader
	var opened []*os.File
	closeAll := func() {
		for _, f := range opened {
			f.Close()
		}
	}
	for i, name := range files {
		f, err := os.Open(name)
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("reading input: %v", unwrapPath(err))
		}
		opened = append(opened, f)
		if i > 0 {
			readers = append(readers, &separator{previous: opened[i-1].Name()})
		}
		readers = append(readers, &lastByte{r: f})
	}
	// Each separator needs to know whether the file before it ended with a
	// line end: point it at that file's reader.
	for i := 1; i < len(readers); i += 2 {
		readers[i].(*separator).before = readers[i-1].(*lastByte)
	}
	return io.MultiReader(readers...), closeAll, nil
}

// lastByte passes a reader through and remembers the last byte read.
type lastByte struct {
	r    io.Reader
	last byte
}

func (l *lastByte) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if n > 0 {
		l.last = p[n-1]
	}
	return n, err
}

// separator is the text between two files: a line end when the first
// lacks one, then "---".
type separator struct {
	previous string
	before   *lastByte
	text     []byte
	started  bool
}

func (s *separator) Read(p []byte) (int, error) {
	if !s.started {
		s.started = true
		if s.before.last != '\n' && s.before.last != 0 {
			s.text = append(s.text, '\n')
		}
		s.text = append(s.text, "---\n"...)
	}
	if len(s.text) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.text)
	s.text = s.text[n:]
	return n, nil
}

// unwrapPath shortens an *os.PathError to "open FILE: reason" with the
// file name quoted.
func unwrapPath(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s %s: %v", pe.Op, quotePath(pe.Path), pe.Err)
	}
	return err.Error()
}

// quotePath quotes a file name for a message, escaped but never shortened:
// the user needs all of it to find the file.
func quotePath(path string) string { return strconv.Quote(path) }
