package tables

import (
	"fmt"
	"strings"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/preset"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// Defaults renders the table of a sidecar's defaults per preset: what
// config.Load fills in for a sidecar that gives only its preset (and a
// name for a preset without a container), and which values of ifAbsent and
// healthCheck it accepts.
func Defaults(names []string) (string, error) {
	var b strings.Builder
	b.WriteString("| preset | `name` | `ifAbsent` | `healthCheck` | `sleepCommand` |\n")
	b.WriteString("| --- | --- | --- | --- | --- |\n")
	for _, name := range names {
		row, err := defaultsRow(name)
		if err != nil {
			return "", fmt.Errorf("preset %s: %v", name, err)
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	return b.String(), nil
}

// defaultsRow is one preset's row of the defaults table.
func defaultsRow(name string) ([]string, error) {
	cfg, err := loadSidecar(name, "")
	if err != nil {
		return nil, err
	}
	sc := cfg.Spec.Sidecars[0]
	container := "none: give one"
	if sc.Recognise {
		container = code(sc.Name)
	}
	ifAbsent := choice(string(sc.IfAbsent), accepted(name, "ifAbsent", config.IfAbsentAnnotate, config.IfAbsentSkip, config.IfAbsentFail))
	healthCheck := choice(string(sc.HealthCheck), accepted(name, "healthCheck", config.HealthCheckEnable, config.HealthCheckRequire))
	sleep := "none: the sleep action only"
	if sc.SleepCommand != nil {
		sleep = code(fmt.Sprintf("%q", sc.SleepCommand))
		sleep = code("[" + strings.Join(quoted(sc.SleepCommand), ", ") + "]")
	}
	return []string{code(name), container, ifAbsent, healthCheck, sleep}, nil
}

// loadSidecar loads a config of one sidecar of the preset, with the field
// line added to it.
func loadSidecar(name, line string) (*config.SidecarLifecycle, error) {
	text := "apiVersion: " + config.APIVersion + "\nkind: " + config.Kind + "\nspec:\n  sidecars:\n  - preset: " + name + "\n"
	if name == preset.None {
		text += "    name: app-proxy\n"
	}
	if line != "" {
		text += "    " + line + "\n"
	}
	return config.LoadBytes([]byte(text))
}

// accepted lists the values of a sidecar's field that a config of the
// preset takes.
func accepted[T ~string](name, field string, values ...T) []string {
	var ok []string
	for _, v := range values {
		if _, err := loadSidecar(name, field+": "+string(v)); err == nil {
			ok = append(ok, string(v))
		}
	}
	return ok
}

// choice is a field's default followed by the other values it takes, or
// "not taken" when it takes none.
func choice(def string, values []string) string {
	if len(values) == 0 {
		return "not taken"
	}
	var others []string
	for _, v := range values {
		if v != def {
			others = append(others, code(v))
		}
	}
	text := "no default"
	if def != "" {
		text = code(def)
	}
	if len(others) > 0 {
		text += " (or " + strings.Join(others, ", ") + ")"
	}
	return text
}

// quoted is each argument as a JSON string.
func quoted(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = fmt.Sprintf("%q", a)
	}
	return out
}
