package output

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// Project is the project's home: the tool's informationUri, and where
// the rules' help lies.
const Project = "https://github.com/sidecar-lifecycle/sidecar-lifecycle"

// toolName is the SARIF tool driver's name.
const toolName = "sidecar-lifecycle"

// FingerprintKey is the key of a SARIF result's partial fingerprint: a
// hash of its kind, its logical location and its field, not of its line,
// so that code scanning follows a finding from commit to commit.
const FingerprintKey = "sidecarLifecycleFinding/v1"

// HelpURI is the help of a kind of finding: its row in docs/results.md.
func HelpURI(k report.Kind) string {
	return Project + "/blob/main/docs/results.md#kind-" + string(k)
}

// writeSARIF writes the findings as a SARIF 2.1.0 log of one run: one
// rule per kind of finding, one result per finding with its physical
// location (file and line, where the input gives them) and its logical
// one (namespace/Kind/name/container).
func writeSARIF(w io.Writer, run Run) error {
	r := sarif.NewRunWithInformationURI(toolName, Project)
	r.Tool.Driver.WithVersion(run.Version)
	if v := semantic(run.Version); v != "" {
		r.Tool.Driver.WithSemanticVersion(v)
	}
	index := map[report.Kind]int{}
	for i, k := range report.Kinds() {
		index[k] = i
		r.AddRule(string(k)).
			WithName(ruleName(k)).
			WithShortDescription(sarif.NewMultiformatMessageString(k.Title())).
			WithFullDescription(sarif.NewMultiformatMessageString(plain(k.Description())).WithMarkdown(k.Description())).
			WithHelpURI(HelpURI(k)).
			WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(defaultLevel(k)))
	}
	seen := map[string]int{}
	for _, f := range run.Findings {
		r.AddResult(sarifResult(f, index[f.Kind()], run, seen))
	}
	log, err := sarif.New(sarif.Version210)
	if err != nil {
		return err
	}
	log.AddRun(r)
	if err := log.PrettyWrite(w); err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n")
	return err
}

// sarifResult is one finding as a SARIF result, its rule at ruleIndex.
func sarifResult(f Finding, ruleIndex int, run Run, seen map[string]int) *sarif.Result {
	kind := f.Kind()
	logical := logicalName(f.Result)
	res := sarif.NewRuleResult(string(kind)).
		WithRuleIndex(ruleIndex).
		WithLevel(level(f.Result.Severity)).
		WithMessage(sarif.NewTextMessage(report.Line(f.Result)))
	loc := sarif.NewLocation()
	if f.File != "" {
		line := f.Line
		if line < 1 {
			line = 1 // the file's start: the orchestrator gives no line
		}
		loc.WithPhysicalLocation(sarif.NewPhysicalLocation().
			WithArtifactLocation(sarif.NewSimpleArtifactLocation(artifactURI(run.uri(f.File)))).
			WithRegion(sarif.NewRegion().WithStartLine(line)))
	}
	if logical != "" {
		loc.AddLogicalLocations(sarif.NewLogicalLocation().
			WithFullyQualifiedName(logical).
			WithKind(logicalKind(f.Result)))
	}
	if loc.PhysicalLocation != nil || len(loc.LogicalLocations) > 0 {
		res.AddLocation(loc)
	}
	identity := logical
	if identity == "" { // about no resource: the input file is what it is about
		identity = "file:" + run.uri(f.File)
	}
	print := fingerprint(kind, identity, fieldPath(f.Result))
	seen[print]++
	if n := seen[print]; n > 1 { // the same finding again in this run
		print += ":" + strconv.Itoa(n)
	}
	res.WithPartialFingerPrints(map[string]any{FingerprintKey: print})
	if path := fieldPath(f.Result); path != "" {
		props := sarif.NewPropertyBag()
		props.Add("field", path)
		res.AttachPropertyBag(props)
	}
	return res
}

// level is a severity's SARIF level.
func level(s fn.Severity) string {
	switch s {
	case fn.Error:
		return "error"
	case fn.Warning:
		return "warning"
	}
	return "note"
}

// defaultLevel is a rule's level: error for what stops a run, note for
// the edits (an error with action validate), warning for the rest.
func defaultLevel(k report.Kind) string {
	switch k {
	case report.KindConfig, report.KindInput:
		return "error"
	case report.KindEdit, report.KindRecognition:
		return "note"
	}
	return "warning"
}

// ruleName is a kind's rule name, in PascalCase after "Sidecar", so that
// it differs from the id as SARIF asks: grace-period is
// SidecarGracePeriod.
func ruleName(k report.Kind) string {
	var b strings.Builder
	b.WriteString("Sidecar")
	for _, word := range strings.Split(string(k), "-") {
		if word != "" {
			b.WriteString(strings.ToUpper(word[:1]) + word[1:])
		}
	}
	return b.String()
}

// plain is a description without its Markdown code spans.
func plain(markdown string) string { return strings.ReplaceAll(markdown, "`", "") }

// semantic is the version without a leading v, or empty when it is not
// a release's (dev, a commit).
func semantic(version string) string {
	v := strings.TrimPrefix(version, "v")
	if v == version || v == "" || v[0] < '0' || v[0] > '9' {
		return ""
	}
	return v
}

// artifactURI is a file as a URI reference: a relative path, escaped,
// or a file: URI for an absolute one.
func artifactURI(file string) string {
	u := url.URL{Path: filepath.ToSlash(file)}
	if filepath.IsAbs(file) {
		u.Scheme = "file"
	}
	return u.String()
}

// logicalName is the resource and container a result is about:
// namespace/Kind/name/container, without the parts it has not (a
// resource with no namespace is Kind/name); for a functionConfig field,
// its path.
func logicalName(r *fn.Result) string {
	ref := r.ResourceRef
	if ref == nil {
		return fieldPath(r)
	}
	var parts []string
	for _, p := range []string{ref.Namespace, ref.Kind, ref.Name, container(fieldPath(r))} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, "/")
}

// logicalKind is SARIF's kind of a logical location: a resource, or a
// property of the config.
func logicalKind(r *fn.Result) string {
	if r.ResourceRef == nil {
		return "property"
	}
	return "resource"
}

// fieldPath is the path of a result's field, or empty.
func fieldPath(r *fn.Result) string {
	if r.Field == nil {
		return ""
	}
	return r.Field.Path
}

// container is the container a field path lies in: the name of its
// containers[name=...] or initContainers[name=...] step, or empty.
func container(path string) string {
	name := ""
	for _, list := range []string{"containers[name=", "initContainers[name="} {
		rest, found := "", false
		if strings.HasPrefix(path, list) {
			rest, found = path[len(list):], true
		}
		if i := strings.LastIndex(path, "."+list); i >= 0 {
			rest, found = path[i+1+len(list):], true
		}
		if end := strings.IndexByte(rest, ']'); found && end >= 0 {
			name = rest[:end]
		}
	}
	return name
}

// fingerprint is the hash of a finding's kind, logical location (for a
// finding about no resource, its file) and field, in hex.
func fingerprint(k report.Kind, logical, field string) string {
	sum := sha256.Sum256([]byte(string(k) + "\x00" + logical + "\x00" + field))
	return hex.EncodeToString(sum[:16])
}
