package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/pflag"

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

// args are the command line, read through pflag whatever the order of its
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

// words are the commands that count only as the first argument, alone.
var words = map[string]command{"help": cmdHelp, "version": cmdVersion, "schema": cmdSchema}

var errConfigFile = errors.New("--config needs a file: --config policy.yaml")

// parseArgs reads the command line. A first argument validate, mutate or
// explain is a verb over a plain stream; help, version and schema as the
// first argument stand alone. The flags are those of flagSet, in any order
// among the files and directories of the plain stream, each at most once:
// an unknown flag, a flag given twice and a combination that cannot work
// are errors.
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
	fs := flagSet(a.verb)
	given := map[string]bool{}
	raw := rawArgs{list: list}
	bareExplain := -1 // the index after a bare --explain
	err := fs.ParseAll(list, func(f *pflag.Flag, value string) error {
		arg := raw.take(f)
		d := flagDefs[f.Name]
		if d.command != cmdRun { // --help, --version, --schema
			if value != "true" || strings.Contains(arg, "=") {
				return fmt.Errorf("unknown argument %s; see --help", report.Quote(arg))
			}
			if a.flag != "" {
				return alone(arg, a.flag)
			}
			a.command, a.flag = d.command, arg
			return nil
		}
		twice := given[f.Name]
		given[f.Name] = true
		switch f.Name {
		case "format":
			if value != "text" && value != "markdown" {
				return fmt.Errorf("unknown format %s; use --format text or --format markdown", report.Quote(value))
			}
			if twice {
				return errors.New("--format is given twice: one format per run")
			}
			a.format = value
		case "explain":
			if a.verb != "" {
				return fmt.Errorf("%s takes no --explain: use the explain command (sidecar-lifecycle explain [--format markdown] ...)", a.verb)
			}
			if value == bare {
				value = ""
				bareExplain = raw.next
			} else if value != "text" && value != "markdown" {
				return fmt.Errorf("unknown argument %s; use --explain, --explain=text or --explain=markdown", report.Quote(arg))
			}
			if twice {
				return errors.New("--explain is given twice: one format per run")
			}
			if a.flag != "" {
				return alone(a.flag, arg)
			}
			a.command, a.flag, a.format = cmdExplain, arg, value
		case "config":
			if twice {
				return errors.New("--config is given twice: one config file per run")
			}
			if value == "" {
				return errConfigFile
			}
			a.config = value
		case "max-document-size":
			if twice {
				return errors.New("--max-document-size is given twice: one size per run")
			}
			if _, err := parseSize("--max-document-size", value); err != nil {
				return err
			}
			a.maxDocumentSize = value
		case "output", "output-file":
			return a.setOutput("--"+f.Name, value)
		}
		return nil
	})
	if err != nil {
		return args{}, flagError(err, list)
	}
	if fs.ArgsLenAtDash() >= 0 {
		return args{}, fmt.Errorf("unknown argument %s; see --help", report.Quote("--"))
	}
	for _, arg := range fs.Args() {
		if arg == "-" {
			return args{}, errors.New("read stdin by naming no input file, not \"-\"")
		}
	}
	if bareExplain >= 0 && bareExplain < len(list) && (list[bareExplain] == "text" || list[bareExplain] == "markdown") {
		arg := list[bareExplain]
		return args{}, fmt.Errorf("--explain takes its format after \"=\": --explain=%s (a file named %s is ./%s)", arg, arg, arg)
	}
	a.inputs = fs.Args()
	if len(a.inputs) == 0 {
		a.inputs = nil
	}
	if err := a.checkOutput(); err != nil {
		return args{}, err
	}
	if a.flag != "" && a.verb == "" && a.command != cmdExplain && (given["config"] || len(a.inputs) > 0) {
		other := "--config"
		if !given["config"] {
			other = a.inputs[0]
		}
		return args{}, alone(a.flag, other)
	}
	return a, nil
}

// flagError turns pflag's parse errors into the command's own: an unknown
// flag is named as it was written, a flag without its value says what the
// value is.
func flagError(err error, list []string) error {
	var (
		unknown  *pflag.NotExistError
		required *pflag.ValueRequiredError
		syntax   *pflag.InvalidSyntaxError
	)
	switch {
	case errors.As(err, &unknown):
		arg, short := "--"+unknown.GetSpecifiedName(), unknown.GetSpecifiedShortnames() != ""
		if short {
			arg = "-" + unknown.GetSpecifiedName()
		}
		for _, s := range list {
			name, _, _ := strings.Cut(s, "=")
			if name == arg || short && !strings.HasPrefix(s, "--") && strings.HasPrefix(s, "-") && strings.Contains(s, unknown.GetSpecifiedName()) {
				arg = s
				break
			}
		}
		return fmt.Errorf("unknown argument %s; see --help", report.Quote(arg))
	case errors.As(err, &syntax):
		return fmt.Errorf("unknown argument %s; see --help", report.Quote(syntax.GetSpecifiedFlag()))
	case errors.As(err, &required):
		return errors.New(flagDefs[required.GetFlag().Name].needs)
	}
	return err
}

// rawArgs finds the argument that gave each flag pflag reports, in order,
// for the messages that name it as written (-h, --explain=markdown).
type rawArgs struct {
	list []string
	// next is the index after the last flag found (and its value, when
	// that was the next argument).
	next int
}

// take returns the argument that gave the flag, and moves past it.
func (r *rawArgs) take(f *pflag.Flag) string {
	for ; r.next < len(r.list); r.next++ {
		s := r.list[r.next]
		name, _, hasValue := strings.Cut(s, "=")
		if name == "--"+f.Name || (f.Shorthand != "" && name == "-"+f.Shorthand) {
			r.next++
			if !hasValue && f.NoOptDefVal == "" {
				r.next++
			}
			return s
		}
	}
	return "--" + f.Name
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
