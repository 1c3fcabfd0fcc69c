package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kptdev/krm-functions-sdk/go/fn"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/krmtest"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

const (
	noWait = "log-shipper is moved first but has no wait command: order alone does not wait for its readiness; set waitForReady"
	// shipperPod is a Pod with a Fluent Bit log shipper, which the catalog
	// recognises by its image and which has no wait command.
	shipperPod = "apiVersion: v1\nkind: Pod\nmetadata: {name: web-%d, namespace: shop}\nspec:\n  containers: [{name: app}, {name: log-shipper, image: \"fluent/fluent-bit:3.%d\"}]\n"
	shipperJob = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: migrate-%d, namespace: shop}\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: app}, {name: log-shipper, image: fluent/fluent-bit}]\n"
)

// shippers are n Pods with a log shipper, then two Jobs with one.
func shippers(n int) []string {
	var docs []string
	for i := range n {
		docs = append(docs, fmt.Sprintf(shipperPod, i, i%3))
	}
	return append(docs, fmt.Sprintf(shipperJob, 0), fmt.Sprintf(shipperJob, 1))
}

// containing are the results whose message contains text.
func containing(results fn.Results, text string) fn.Results {
	var out fn.Results
	for _, r := range results {
		if strings.Contains(r.Message, text) {
			out = append(out, r)
		}
	}
	return out
}

// TestSharedWarningSaidOnce: a warning that the catalog alone decides (a
// sidecar kind without a wait command) is one closing result, with the
// number of workloads and the first three of them, and no resourceRef;
// a warning about the workload itself (a Job in ordered mode) stays with
// each workload. With zero config and with a config, mutate and validate.
func TestSharedWarningSaidOnce(t *testing.T) {
	for _, cfg := range []string{"", "apiVersion: fn.sidecar-lifecycle.dev/v1alpha1\nkind: SidecarLifecycle\nspec: {action: validate, sidecars: [{preset: fluent-bit}]}\n"} {
		_, results := engine.New(krmtest.Config(t, cfg)).Transform(items(t, shippers(5)...))
		once := containing(results, noWait)
		if len(once) != 1 {
			t.Fatalf("config %q: %d results say %q, want 1: %v", cfg, len(once), noWait, results)
		}
		want := noWait + " (7 workloads: Pod shop/web-0, Pod shop/web-1, Pod shop/web-2, and 4 more)"
		if r := once[0]; r.Message != want || r.Severity != fn.Warning || r.ResourceRef != nil {
			t.Errorf("config %q: got %q (%s, resourceRef %v), want the warning %q without resourceRef", cfg, r.Message, r.Severity, r.ResourceRef, want)
		}
		if last := results[len(results)-2]; last != once[0] {
			t.Errorf("config %q: the shared warning is not with the closing results, before the summary: %v", cfg, results)
		}
		jobs := containing(results, "Job in ordered mode")
		if len(jobs) != 2 || jobs[0].ResourceRef == nil || jobs[0].ResourceRef.Name != "migrate-0" || jobs[1].ResourceRef.Name != "migrate-1" {
			t.Errorf("config %q: a Job's own warning is not said for each Job: %v", cfg, jobs)
		}
	}
}

// TestSharedWarningAfterAFailure: a run that learns of a failed item late
// counts each workload of a shared warning once.
func TestSharedWarningAfterAFailure(t *testing.T) {
	m := &memoryPass{items: items(t, append(shippers(2), twicePod)...)}
	e := engine.New(krmtest.Config(t, "")).Start()
	closing, err := engine.Run(e, m.pass(e))
	if err != nil {
		t.Fatal(err)
	}
	if m.failedAt < 0 {
		t.Fatal("the run met no failed item")
	}
	once := containing(closing, noWait)
	if len(once) != 1 || !strings.HasSuffix(once[0].Message, "(4 workloads: Pod shop/web-0, Pod shop/web-1, Job shop/migrate-0, and 1 more)") {
		t.Errorf("after the failure: %v, want one warning about 4 workloads", once)
	}
}

// TestSharedWarningCountsWithCommas: a count of thousands reads with
// commas.
func TestSharedWarningCountsWithCommas(t *testing.T) {
	var docs []string
	for i := range 1200 {
		docs = append(docs, fmt.Sprintf(shipperPod, i, 0))
	}
	_, results := engine.New(krmtest.Config(t, "")).Transform(items(t, docs...))
	once := containing(results, noWait)
	if len(once) != 1 || !strings.HasSuffix(once[0].Message, "(1,200 workloads: Pod shop/web-0, Pod shop/web-1, Pod shop/web-2, and 1,197 more)") {
		t.Errorf("got %v", once)
	}
}

// TestSharedWarningOfOneWorkload: a shared warning found in one workload
// only is said of it, with its resourceRef and the file it came from, as
// any warning about a workload.
func TestSharedWarningOfOneWorkload(t *testing.T) {
	docs := items(t, fmt.Sprintf(shipperPod, 0, 0))
	docs[0].SetAnnotations(map[string]string{"config.kubernetes.io/path": "pods/web.yaml"})
	_, results := engine.New(krmtest.Config(t, "")).Transform(docs)
	once := containing(results, noWait)
	if len(once) != 1 {
		t.Fatalf("%d results say %q, want 1: %v", len(once), noWait, results)
	}
	r := once[0]
	if r.Message != noWait || r.ResourceRef == nil || r.ResourceRef.Name != "web-0" || r.File == nil || r.File.Path != "pods/web.yaml" {
		t.Errorf("got %q, resourceRef %+v, file %+v; want the warning itself, of Pod shop/web-0 in pods/web.yaml", r.Message, r.ResourceRef, r.File)
	}
}

// TestSharedWarningEach: for a report, a shared warning is listed once for
// each workload it was found in, in input order, with its resourceRef and
// its field there; the closing result says how many (report.WorkloadsTag).
func TestSharedWarningEach(t *testing.T) {
	e := engine.New(krmtest.Config(t, "")).Start()
	e.KeepSharedEach()
	_, results := e.Transform(items(t, shippers(2)...))
	once := containing(results, noWait)
	if len(once) != 1 || once[0].Tags[report.WorkloadsTag] != "4" {
		t.Fatalf("closing results %v, want one saying 4 workloads", once)
	}
	each := containing(e.SharedEach(), noWait)
	want := []string{"Pod shop/web-0 spec.containers[name=log-shipper].lifecycle.postStart", "Pod shop/web-1 spec.containers[name=log-shipper].lifecycle.postStart",
		"Job shop/migrate-0 spec.template.spec.containers[name=log-shipper].lifecycle.postStart", "Job shop/migrate-1 spec.template.spec.containers[name=log-shipper].lifecycle.postStart"}
	if len(each) != len(want) {
		t.Fatalf("SharedEach: %v, want one for each of %q", each, want)
	}
	for i, r := range each {
		if r.ResourceRef == nil || r.Field == nil || report.Resource(r.ResourceRef.Kind, r.ResourceRef.Namespace, r.ResourceRef.Name)+" "+r.Field.Path != want[i] || r.Message != noWait || r.Severity != fn.Warning {
			t.Errorf("SharedEach[%d] = %+v at %+v, want the warning about %s", i, r, r.Field, want[i])
		}
	}
}

// TestSharedWarningEachKept: without KeepSharedEach the run keeps no list
// of the workloads of a shared warning, and says it once all the same.
func TestSharedWarningEachKept(t *testing.T) {
	e := engine.New(krmtest.Config(t, "")).Start()
	_, results := e.Transform(items(t, shippers(2)...))
	if once := containing(results, noWait); len(once) != 1 || once[0].Tags[report.WorkloadsTag] != "4" {
		t.Fatalf("closing results %v, want one saying 4 workloads", once)
	}
	if each := e.SharedEach(); len(each) != 0 {
		t.Fatalf("SharedEach without KeepSharedEach: %v, want none", each)
	}
}
