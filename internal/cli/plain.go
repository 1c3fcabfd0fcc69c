package cli

import (
	krm "github.com/kptdev/krm-functions-sdk/go/fn"

	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// runPlain is `sidecar-lifecycle [mutate] [--config FILE] [FILE|DIR ...]`:
// it edits a plain multi-document YAML stream, read from the files or
// stdin, to stdout, with the config file or the defaults. Helm 3 runs it as
// a post-renderer as it is. `validate` is the same run with action
// validate, which writes no manifests: its findings are its output. Every
// error and warning about a resource or a place in the input names the
// file and the line in it.
func runPlain(a args, opts driver.Options, out outputs, stdin io.Reader, stdout io.Writer, stderr lines) int {
	cfg, err := readOptionalConfig(a.config)
	if err != nil {
		return out.fail(err.Error(), stdout, stderr)
	}
	manifests := stdout
	if a.verb == "validate" || out.toStdout() {
		manifests = io.Discard
	}
	if a.verb == "validate" {
		opts.Action = config.ActionValidate
	}
	src, err := openInputs(a.inputs, stdin, stderr)
	if err != nil {
		return out.fail(err.Error(), stdout, stderr)
	}
	defer src.close()
	var found findings
	rep, err := driver.PlainStreamWith(cfg, src.reader(), manifests, opts)
	for i, r := range rep.Problems {
		line := 0
		if i < len(rep.Lines) {
			line = rep.Lines[i]
		}
		at := src.position(line)
		if r.Field != nil && r.ResourceRef == nil { // a config error: its place in the config file
			at = configPosition(a.config, cfg, r.Field.Path)
		}
		if r.Severity != krm.Info {
			stderr.resultAt(r, at)
		}
		found.add(r, at)
	}
	for i, r := range rep.Shared {
		line := 0
		if i < len(rep.SharedLines) {
			line = rep.SharedLines[i]
		}
		found.add(r, src.position(line))
	}
	found.addWorkloads(rep.Workloads, src.position)
	switch {
	case err == nil:
		return out.write(&found, 0, stdout, stderr)
	case brokenPipe(err):
		return exitBrokenPipe
	case errors.Is(err, report.ErrResults) && a.verb != "validate": // validate writes nothing anyway
		stderr.note("nothing was written")
	case errors.Is(err, report.ErrResults):
	default:
		msg, at := src.explain(err)
		stderr.failAt(msg, at)
		found.fail(msg, at)
	}
	return out.write(&found, 1, stdout, stderr)
}

// readOptionalConfig is readConfig, or nil (the defaults) for no file.
func readOptionalConfig(path string) (*yaml.RNode, error) {
	if path == "" {
		return nil, nil
	}
	return readConfig(path)
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
	doc, err := yamlio.DecodeOne(bytes.NewReader(data))
	switch {
	case err == io.EOF || len(bytes.TrimSpace(data)) == 0: // YAML takes no tab there
		return nil, fmt.Errorf("config %s holds no YAML document: expected a SidecarLifecycle or a ConfigMap; for the defaults, give a SidecarLifecycle without spec", quotePath(path))
	case err == yamlio.ErrMoreDocuments:
		return nil, fmt.Errorf("config %s holds more than one YAML document: expected one SidecarLifecycle or ConfigMap", quotePath(path))
	case err != nil:
		return nil, fmt.Errorf("config %s is not valid YAML: %s", quotePath(path), driver.YAMLErrorText(err, data))
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("config %s is not a mapping: expected a SidecarLifecycle or a ConfigMap", quotePath(path))
	}
	return yaml.NewRNode(doc.Content[0]), nil
}

// inputFiles expands the inputs: a file as it is, a directory as its
// .yaml, .yml and .json files, in name order (not its subdirectories). A
// named pipe, socket or device among a directory's files is skipped with a
// warning: reading it could wait for ever. One named on the command line
// is read: that is how `<(helm template ...)` arrives.
func inputFiles(inputs []string, stderr lines) ([]string, error) {
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
			default:
				continue
			}
			name := filepath.Join(in, e.Name())
			st, err := os.Stat(name)
			switch {
			case err != nil:
				return nil, fmt.Errorf("reading input: %v", unwrapPath(err))
			case st.Mode().IsRegular():
				names = append(names, name)
			case !st.IsDir():
				stderr.warn(fmt.Sprintf("%s is skipped: it is a %s, not a file", quotePath(name), fileKind(st.Mode())))
			}
		}
		sort.Strings(names)
		files = append(files, names...)
	}
	return files, nil
}

// fileKind names what a file that is not a regular file is.
func fileKind(mode os.FileMode) string {
	switch {
	case mode&os.ModeNamedPipe != 0:
		return "named pipe"
	case mode&os.ModeSocket != 0:
		return "socket"
	case mode&os.ModeDevice != 0:
		return "device"
	}
	return "special file"
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
