package output

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/kptdev/krm-functions-sdk/go/fn"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// Workload is a workload a run counted: a JUnit test case.
type Workload struct {
	// Ref is its resourceRef.
	Ref *fn.ResourceRef
	// File and Line are where it is in the input, as a Finding's are.
	File string
	Line int
	// Skipped reports that the run left it as it is.
	Skipped bool
}

// The JUnit XML elements, as the Ant and Jenkins reports write them.
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Errors   int          `xml:"errors,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Errors   int         `xml:"errors,attr"`
		Skipped  int         `xml:"skipped,attr"`
		Time     string      `xml:"time,attr"`
		Cases    []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Classname string         `xml:"classname,attr"`
		Name      string         `xml:"name,attr"`
		File      string         `xml:"file,attr,omitempty"`
		Line      int            `xml:"line,attr,omitempty"`
		Time      string         `xml:"time,attr"`
		Skipped   *struct{}      `xml:"skipped"`
		Failures  []junitFailure `xml:"failure"`
		SystemOut string         `xml:"system-out,omitempty"`
	}
	junitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
)

// writeJUnit writes the run as JUnit XML: one test suite, one test case
// per workload (classname namespace/Kind, name its name), a failure per
// error finding about it (type the kind, text its file:line and field)
// and its warnings in system-out. A workload the run left as it is, is
// skipped. A finding about no workload counted (the config, the input, a
// Service's load balancer) is a test case of its own, by its resource or
// its kind.
func writeJUnit(w io.Writer, run Run) error {
	cases, index := []junitCase{}, map[string]int{}
	for _, wl := range run.Workloads {
		key := caseKey(wl.Ref, wl.File)
		if _, dup := index[key]; dup {
			continue
		}
		index[key] = len(cases)
		c := junitCase{Classname: classname(wl.Ref), Name: wl.Ref.Name, File: run.uri(wl.File), Line: wl.Line, Time: "0"}
		if wl.Skipped {
			c.Skipped = &struct{}{}
		}
		cases = append(cases, c)
	}
	for _, f := range run.Findings {
		key := caseKey(f.Result.ResourceRef, f.File)
		if f.Result.ResourceRef == nil {
			key = "\x00" + string(f.Kind())
		}
		i, ok := index[key]
		if !ok {
			i, index[key] = len(cases), len(cases)
			cases = append(cases, otherCase(f, run))
		}
		addFinding(&cases[i], f, run)
	}
	suite := junitSuite{Name: toolName, Tests: len(cases), Time: "0", Cases: cases}
	for _, c := range cases {
		switch {
		case len(c.Failures) > 0:
			suite.Failures++
		case c.Skipped != nil:
			suite.Skipped++
		}
	}
	out := junitSuites{Name: toolName, Tests: suite.Tests, Failures: suite.Failures, Skipped: suite.Skipped, Suites: []junitSuite{suite}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// caseKey is what makes a finding a workload's: its resource and file.
func caseKey(ref *fn.ResourceRef, file string) string {
	if ref == nil {
		return ""
	}
	return ref.Kind + "\x00" + ref.Namespace + "\x00" + ref.Name + "\x00" + file
}

// classname is a test case's class: namespace/Kind, or Kind.
func classname(ref *fn.ResourceRef) string {
	if ref.Namespace == "" {
		return ref.Kind
	}
	return ref.Namespace + "/" + ref.Kind
}

// otherCase is the test case of a finding about no workload counted: by
// its resource, else by its kind (the config, the input).
func otherCase(f Finding, run Run) junitCase {
	c := junitCase{Classname: toolName, Name: string(f.Kind()), File: run.uri(f.File), Line: f.Line, Time: "0"}
	if ref := f.Result.ResourceRef; ref != nil {
		c.Classname, c.Name = classname(ref), ref.Name
	}
	return c
}

// addFinding adds a finding to its test case: an error as a failure, a
// warning or an info as a line of system-out.
func addFinding(c *junitCase, f Finding, run Run) {
	where := place(f, run)
	if f.Result.Severity == fn.Error {
		c.Failures = append(c.Failures, junitFailure{Message: report.Clean(f.Result.Message), Type: string(f.Kind()), Text: where})
		return
	}
	line := fmt.Sprintf("%s [%s] %s: %s", f.Result.Severity, f.Kind(), where, report.Clean(f.Result.Message))
	c.SystemOut = strings.TrimPrefix(c.SystemOut+"\n"+line, "\n")
}

// place is where a finding is: file:line, then its field, as far as
// known; "-" for nothing.
func place(f Finding, run Run) string {
	var parts []string
	if f.File != "" {
		at := run.uri(f.File)
		if f.Line > 0 {
			at += fmt.Sprintf(":%d", f.Line)
		}
		parts = append(parts, at)
	}
	if path := fieldPath(f.Result); path != "" {
		parts = append(parts, path)
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}
