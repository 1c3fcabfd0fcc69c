package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// command is what a run does.
type command int

// Commands.
const (
	// cmdRun edits a ResourceList on stdin, or a plain stream with --config.
	cmdRun command = iota
	cmdHelp
	cmdVersion
	cmdSchema
	// cmdExplain explains a ResourceList on stdin, or a plain stream with --config.
	cmdExplain
)

// args are the command line, read by one parser whatever the order of its
// arguments.
type args struct {
	command command
	// flag is the argument that chose the command (not cmdRun), for messages.
	flag string
	// format is the value of --explain: "", text or markdown.
	format string
	// config is the file of --config; empty without it.
	config string
	// inputs are the files and directories of the plain stream.
	inputs []string
	// maxDocumentSize is the value of --max-document-size; empty without it.
	maxDocumentSize string
	// output is the value of --output, empty without it; outputFile that
	// of --output-file.
	output, outputFile string
	// verb is the first argument when it is validate, mutate or explain:
	// the run reads a plain stream (the inputs, or stdin), with --config or
	// the defaults.
	verb string
}

// verbs are the commands over files, directories or stdin, as the first
// argument; a verb reads a plain stream whether or not --config is given.
var verbs = map[string]command{"validate": cmdRun, "mutate": cmdRun, "explain": cmdExplain}

// plain reports whether the run reads a plain stream rather than a
// ResourceList: with a verb, --config or inputs.
func (a args) plain() bool { return a.verb != "" || a.config != "" || len(a.inputs) > 0 }

// standalone are the arguments that take no other, with their commands;
// the words count only as the first argument.
var (
	standalone = map[string]command{"--help": cmdHelp, "-h": cmdHelp, "--version": cmdVersion, "--schema": cmdSchema}
	words      = map[string]command{"help": cmdHelp, "version": cmdVersion, "schema": cmdSchema}
)

var errConfigFile = errors.New("--config needs a file: --config policy.yaml")

// parseArgs reads the command line. A first argument validate, mutate or
// explain is a verb over a plain stream. Flags and inputs come in any
// order: --explain[=text|markdown] (explain's --format text|markdown),
// --config FILE (or --config=FILE), --output FORMAT and --output-file
// PATH at most once each, and the files and
// directories of the plain stream, read with the config or, without
// --config, the defaults. --help, --version and --schema (and help,
// version and schema as the first argument) stand alone. An unknown flag,
// a flag given twice and a combination that cannot work are errors.
func parseArgs(list []string) (args, error) {
	var a args
	if len(list) > 0 {
		if c, ok := verbs[list[0]]; ok {
			a.command, a.verb = c, list[0]
			list = list[1:]
		} else if c, ok := words[list[0]]; ok {
			if len(list) > 1 {
				return args{}, alone(list[0], list[1])
			}
			return args{command: c, flag: list[0]}, nil
		}
	}
	configSet, afterExplain := false, false
	for i := 0; i < len(list); i++ {
		arg := list[i]
		name, value, hasValue := strings.Cut(arg, "=")
		bareExplain := afterExplain
		afterExplain = false
		if c, ok := standalone[arg]; ok {
			if a.flag != "" {
				return args{}, alone(arg, a.flag)
			}
			a.command, a.flag = c, arg
			continue
		}
		switch {
		case name == "--format" && a.verb == "explain":
			if !hasValue {
				if i+1 == len(list) {
					return args{}, errors.New("--format needs text or markdown: explain --format markdown")
				}
				i++
				value = list[i]
			}
			if value != "text" && value != "markdown" {
				return args{}, fmt.Errorf("unknown format %s; use --format text or --format markdown", report.Quote(value))
			}
			if a.format != "" {
				return args{}, errors.New("--format is given twice: one format per run")
			}
			a.format = value
		case name == "--explain" && a.verb != "":
			return args{}, fmt.Errorf("%s takes no --explain: use the explain command (sidecar-lifecycle explain [--format markdown] ...)", a.verb)
		case name == "--explain":
			if hasValue && value != "text" && value != "markdown" {
				return args{}, fmt.Errorf("unknown argument %s; use --explain, --explain=text or --explain=markdown", report.Quote(arg))
			}
			if a.command == cmdExplain {
				return args{}, errors.New("--explain is given twice: one format per run")
			}
			if a.flag != "" {
				return args{}, alone(a.flag, arg)
			}
			a.command, a.flag, a.format = cmdExplain, arg, value
			afterExplain = !hasValue
		case name == "--config":
			if !hasValue {
				if i+1 == len(list) {
					return args{}, errConfigFile
				}
				i++
				value = list[i]
			}
			if configSet {
				return args{}, errors.New("--config is given twice: one config file per run")
			}
			if value == "" {
				return args{}, errConfigFile
			}
			a.config, configSet = value, true
		case name == "--max-document-size":
			if !hasValue {
				if i+1 == len(list) {
					return args{}, errors.New("--max-document-size needs a size: --max-document-size 512Mi")
				}
				i++
				value = list[i]
			}
			if a.maxDocumentSize != "" {
				return args{}, errors.New("--max-document-size is given twice: one size per run")
			}
			if _, err := parseSize("--max-document-size", value); err != nil {
				return args{}, err
			}
			a.maxDocumentSize = value
		case name == "--output" || name == "--output-file":
			if !hasValue {
				if i+1 == len(list) {
					return args{}, fmt.Errorf("%s needs a value: %s", name, outputExamples[name])
				}
				i++
				value = list[i]
			}
			if err := a.setOutput(name, value); err != nil {
				return args{}, err
			}
		case arg == "-":
			return args{}, errors.New("read stdin by naming no input file, not \"-\"")
		case strings.HasPrefix(arg, "-"):
			return args{}, fmt.Errorf("unknown argument %s; see --help", report.Quote(arg))
		case bareExplain && (arg == "text" || arg == "markdown"):
			return args{}, fmt.Errorf("--explain takes its format after \"=\": --explain=%s (a file named %s is ./%s)", arg, arg, arg)
		default:
			a.inputs = append(a.inputs, arg)
		}
	}
	if err := a.checkOutput(); err != nil {
		return args{}, err
	}
	if a.flag != "" && a.verb == "" && a.command != cmdExplain && (configSet || len(a.inputs) > 0) {
		other := "--config"
		if !configSet {
			other = a.inputs[0]
		}
		return args{}, alone(a.flag, other)
	}
	return a, nil
}

// alone is the error for a standalone argument given with another.
func alone(flag, other string) error {
	return fmt.Errorf("%s takes no other argument, found %s", flag, report.Quote(other))
}

// options are the driver options the arguments and the environment
// (getenv) set: --max-document-size, else SIDECAR_LIFECYCLE_MAX_DOCUMENT_SIZE.
func (a args) options(getenv func(string) string) (driver.Options, error) {
	if a.maxDocumentSize == "" {
		return envOptions(getenv)
	}
	size, err := parseSize("--max-document-size", a.maxDocumentSize)
	return driver.Options{MaxDocumentSize: size}, err
}
