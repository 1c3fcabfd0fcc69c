package transformer

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/kptdev/krm-functions-sdk/go/fn"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/stream"
)

// TestDiagnosticsSameOnBothPaths: the streaming and the whole-list path
// give the same warnings and errors for stderr, in the same order, and mark
// them shown when kpt fn render shows the results itself.
func TestDiagnosticsSameOnBothPaths(t *testing.T) {
	const (
		head    = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n"
		linkerd = "functionConfig: {apiVersion: fn.sidecar-lifecycle.dev/v1alpha1, kind: SidecarLifecycle, spec: {sidecars: [{preset: linkerd}]}}\n"
		job     = "- apiVersion: batch/v1\n  kind: Job\n  metadata: {name: migrate, namespace: shop%s}\n  spec: {template: {spec: {containers: [{name: app}, {name: linkerd-proxy}]}}}\n"
		twice   = "- apiVersion: v1\n  kind: Pod\n  metadata: {name: \"p\\n::error::x\"%s}\n  spec: {containers: [{name: a}, {name: a}]}\n"
		kpt     = ", annotations: {internal.config.kubernetes.io/package-path: /pkg, internal.config.kubernetes.io/path: job.yaml}"
	)
	withAnnotations := func(item, annotations string) string { return strings.Replace(item, "%s", annotations, 1) }
	for _, tc := range []struct {
		name, in string
		want     []Diagnostic
	}{
		{"warning", head + withAnnotations(job, "") + linkerd, []Diagnostic{
			{Severity: fn.Warning, Text: "Job shop/migrate: Job in ordered mode: a sidecar that never exits keeps the Job running; mode native lets it complete"},
		}},
		{"error after a warning", head + withAnnotations(job, "") + withAnnotations(twice, "") + linkerd, []Diagnostic{
			{Severity: fn.Warning, Text: "Job shop/migrate: Job in ordered mode: a sidecar that never exits keeps the Job running; mode native lets it complete"},
			{Severity: fn.Error, Text: `Pod "p\n::error::x": spec.containers[1].name: found the string "a"; want unique container names: spec.containers[0].name has the same name; rename one`},
		}},
		{"under kpt fn render", head + withAnnotations(job, kpt) + linkerd, []Diagnostic{
			{Severity: fn.Warning, Text: "Job shop/migrate: Job in ordered mode: a sidecar that never exits keeps the Job running; mode native lets it complete", File: "job.yaml", Shown: true},
		}},
		{"config error under kpt fn render", head + withAnnotations(job, kpt) + "functionConfig: {apiVersion: fn.sidecar-lifecycle.dev/v1alpha1, kind: SidecarLifecycle, spec: {mode: [x]}}\n", []Diagnostic{
			{Severity: fn.Error, Text: "spec.mode: expected one of ordered, native, auto, found a list of 1 entry", Shown: true},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var whole []Diagnostic
			wholeErr := runWhole([]byte(tc.in), io.Discard, &whole)
			in, err := stream.Read(strings.NewReader(tc.in), stream.Options{Mark: mayNameNamespace, MemoryLimit: spoolLimit})
			if err != nil {
				t.Fatal(err)
			}
			defer in.Close()
			var streamed []Diagnostic
			done, streamErr := runStream(in, io.Discard, &streamed)
			if !done {
				t.Fatal("the streaming path declined the input")
			}
			if !reflect.DeepEqual(whole, tc.want) || !reflect.DeepEqual(streamed, tc.want) {
				t.Errorf("diagnostics:\nwhole list: %+v\nstreamed:   %+v\nwant:       %+v", whole, streamed, tc.want)
			}
			wantErr := tc.want[len(tc.want)-1].Severity == fn.Error
			if errors.Is(wholeErr, ErrResults) != wantErr || errors.Is(streamErr, ErrResults) != wantErr {
				t.Errorf("errors: whole list %v, streamed %v", wholeErr, streamErr)
			}
		})
	}
}
