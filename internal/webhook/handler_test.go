package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

func read(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func loadPolicy(t testing.TB, text string) *config.SidecarLifecycle {
	t.Helper()
	cfg, err := config.LoadBytes([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// podJSON is testdata/pod.yaml as the API server sends it.
func podJSON(t testing.TB) []byte {
	t.Helper()
	rn, err := yaml.Parse(string(read(t, "pod.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	b, err := rn.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func reviewBody(t testing.TB, uid string, object []byte) []byte {
	t.Helper()
	b, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:       types.UID(uid),
			Kind:      metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
			Resource:  metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
			Namespace: "shop",
			Operation: admissionv1.Create,
			Object:    runtime.RawExtension{Raw: object},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func post(t testing.TB, h http.Handler, body []byte) (*httptest.ResponseRecorder, *admissionv1.AdmissionResponse) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body)))
	if rec.Code != http.StatusOK {
		return rec, nil
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
		t.Fatalf("response is not a review: %v\n%s", err, rec.Body)
	}
	if out.Response == nil {
		t.Fatalf("review without response: %s", rec.Body)
	}
	return rec, out.Response
}

func newHandler(t testing.TB, cfg *config.SidecarLifecycle) *Handler {
	t.Helper()
	h, err := NewHandler(cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// applyPatch applies a response's JSONPatch to the pod.
func applyPatch(t testing.TB, pod []byte, resp *admissionv1.AdmissionResponse) []byte {
	t.Helper()
	if resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
		t.Fatalf("patch type %v", resp.PatchType)
	}
	p, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Apply(pod)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// resourceList runs the pod through the ResourceList path with policy and
// returns the item written (as JSON) and the results.
func resourceList(t testing.TB, policy string) ([]byte, []string) {
	t.Helper()
	pod := strings.TrimSpace(string(read(t, "pod.yaml")))
	var in strings.Builder
	in.WriteString("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n")
	for _, l := range strings.Split(strings.TrimSpace(policy), "\n") {
		in.WriteString("  " + l + "\n")
	}
	in.WriteString("items:\n")
	first := true
	for _, l := range strings.Split(pod, "\n") {
		if strings.HasPrefix(l, "#") {
			continue
		}
		if first {
			in.WriteString("- " + l + "\n")
			first = false
			continue
		}
		in.WriteString("  " + l + "\n")
	}
	var out bytes.Buffer
	_, _ = driver.ResourceList(strings.NewReader(in.String()), &out) // an error result is an error too; the output says it
	rl, err := yaml.Parse(out.String())
	if err != nil {
		t.Fatal(err)
	}
	items, err := rl.Pipe(yaml.Lookup("items"))
	if err != nil || items == nil || len(items.Content()) != 1 {
		t.Fatalf("items: %v\n%s", err, out.String())
	}
	obj, err := yaml.NewRNode(items.Content()[0]).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var results fn.Results
	if r := rl.Field("results"); r != nil {
		s, _ := r.Value.String()
		if err := yaml.Unmarshal([]byte(s), &results); err != nil {
			t.Fatal(err)
		}
	}
	return obj, resultLines(results)
}

func resultLines(results fn.Results) []string {
	var out []string
	for _, r := range results {
		out = append(out, string(r.Severity)+": "+r.Message)
	}
	return out
}

func sameJSON(t testing.TB, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

// TestWebhookPatchIsMutate: the pod /mutate's patch makes is the pod the
// ResourceList path writes, with the same results; reviewing the patched
// pod again gives no patch, so reinvocation converges.
func TestWebhookPatchIsMutate(t *testing.T) {
	policy := string(read(t, "policy.yaml"))
	want, wantResults := resourceList(t, policy)
	h := newHandler(t, loadPolicy(t, policy))
	pod := podJSON(t)

	_, resp := post(t, h.Mutate(), reviewBody(t, "u-1", pod))
	if resp == nil || !resp.Allowed || resp.UID != "u-1" {
		t.Fatalf("response %+v", resp)
	}
	got := applyPatch(t, pod, resp)
	if !sameJSON(t, got, want) {
		t.Errorf("patched pod\n%s\nwant (ResourceList)\n%s", got, want)
	}
	if sameJSON(t, got, pod) {
		t.Fatal("the pod did not change; the test proves nothing")
	}

	rn, err := yaml.ConvertJSONToYamlNode(string(pod))
	if err != nil {
		t.Fatal(err)
	}
	_, results, changed := admit(engine.NewAdmission(h.Config()), nil, rn)
	if !changed || !reflect.DeepEqual(resultLines(results), wantResults) {
		t.Errorf("admit results (changed %v)\n%q\nwant\n%q", changed, resultLines(results), wantResults)
	}

	_, again := post(t, h.Mutate(), reviewBody(t, "u-2", got))
	if again == nil || !again.Allowed || again.Patch != nil || again.PatchType != nil {
		t.Errorf("second review of the patched pod: %+v", again)
	}
}

// TestWebhookValidateActions: the findings of validate come back as
// warnings, a denial or audit annotations, as the findings the
// ResourceList path gives with action validate.
func TestWebhookValidateActions(t *testing.T) {
	policy := strings.Replace(string(read(t, "policy.yaml")), "spec:\n", "spec:\n  action: validate\n", 1)
	_, wantResults := resourceList(t, policy)
	var want []string
	for _, r := range wantResults {
		if strings.HasPrefix(r, "error: ") || strings.HasPrefix(r, "warning: ") {
			want = append(want, r)
		}
	}
	if len(want) == 0 {
		t.Fatalf("no findings from the ResourceList path: %q", wantResults)
	}
	cfg := loadPolicy(t, string(read(t, "policy.yaml")))
	for _, action := range []string{ActionWarn, ActionDeny, ActionAudit} {
		t.Run(action, func(t *testing.T) {
			h := newHandler(t, cfg)
			h.ValidationAction = action
			_, resp := post(t, h.Validate(), reviewBody(t, "v", podJSON(t)))
			if resp == nil {
				t.Fatal("no response")
			}
			var got []string
			switch action {
			case ActionWarn:
				got = resp.Warnings
			case ActionDeny:
				got = resp.Warnings
				if resp.Allowed || resp.Result == nil || resp.Result.Code != http.StatusForbidden {
					t.Errorf("not denied: %+v", resp)
				}
			case ActionAudit:
				for i := range len(resp.AuditAnnotations) {
					got = append(got, resp.AuditAnnotations[fmt.Sprintf("finding-%d", i+1)])
				}
			}
			if action != ActionDeny && !resp.Allowed {
				t.Errorf("refused with %s", action)
			}
			if !reflect.DeepEqual(trimFields(got), want) {
				t.Errorf("findings\n%q\nwant\n%q", got, want)
			}
		})
	}
}

func trimFields(lines []string) []string {
	var out []string
	for _, l := range lines {
		if i := strings.LastIndex(l, " ("); i > 0 && strings.HasSuffix(l, ")") {
			l = l[:i]
		}
		out = append(out, l)
	}
	return out
}

// TestWebhookBadInput: what is not a review is a 400; a review the webhook
// cannot act on, or that faults, is allowed unchanged with a warning.
func TestWebhookBadInput(t *testing.T) {
	h := newHandler(t, nil)
	for name, body := range map[string]string{
		"malformed":  `{"apiVersion":`,
		"no request": `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`,
		"not review": `{"apiVersion":"v1","kind":"Pod"}`,
		"oversized":  `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","x":"` + strings.Repeat("a", MaxRequestBytes) + `"}`,
	} {
		rec, _ := post(t, h.Mutate(), []byte(body))
		if rec.Code != http.StatusBadRequest {
			t.Errorf("%s: status %d", name, rec.Code)
		}
	}

	notPod := bytes.Replace(reviewBody(t, "n", []byte(`{"kind":"Secret"}`)), []byte(`"kind":"Pod"`), []byte(`"kind":"Secret"`), 1)
	if _, resp := post(t, h.Mutate(), notPod); resp == nil || !resp.Allowed || len(resp.Warnings) != 1 || resp.Patch != nil {
		t.Errorf("not a pod: %+v", resp)
	}
	if _, resp := post(t, h.Mutate(), reviewBody(t, "j", []byte(`[1,2]`))); resp == nil || !resp.Allowed || len(resp.Warnings) != 1 || resp.UID != "j" {
		t.Errorf("pod that does not decode: %+v", resp)
	}

	h.admit = func(*engine.Transformer, *yaml.RNode, *yaml.RNode) (*yaml.RNode, fn.Results, bool) {
		panic("boom")
	}
	_, resp := post(t, h.Mutate(), reviewBody(t, "p", podJSON(t)))
	if resp == nil || !resp.Allowed || resp.Patch != nil || len(resp.Warnings) != 1 || !strings.Contains(resp.Warnings[0], "boom") {
		t.Errorf("panic: %+v", resp)
	}

	h.admit = func(*engine.Transformer, *yaml.RNode, *yaml.RNode) (*yaml.RNode, fn.Results, bool) {
		time.Sleep(time.Second)
		return nil, nil, false
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/mutate?timeout=100ms", bytes.NewReader(reviewBody(t, "d", podJSON(t))))
	start := time.Now()
	h.Mutate().ServeHTTP(rec, req)
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Response == nil || !out.Response.Allowed ||
		len(out.Response.Warnings) != 1 || !strings.Contains(out.Response.Warnings[0], "deadline") {
		t.Errorf("deadline: %v %s", err, rec.Body)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("deadline answered after %v", d)
	}
}

// FuzzWebhookHandler: no body makes the handler crash or answer other
// than 200 or 4xx; a review as the API server writes it (the body as
// encoding/json reads it, written back) is answered with its uid.
func FuzzWebhookHandler(f *testing.F) {
	f.Add(reviewBody(f, "f", podJSON(f)))
	f.Add([]byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"x","kind":{"kind":"Pod","version":"v1"},"operation":"CREATE","object":{"spec":{"containers":[{"name":"a"},null]}}}}`))
	f.Add([]byte(`{}`))
	h := newHandler(f, loadPolicy(f, string(read(f, "policy.yaml"))))
	f.Fuzz(func(t *testing.T, body []byte) {
		type send struct {
			body []byte
			// review is set for a review as the API server writes it.
			review bool
		}
		sends := []send{{body: body}}
		var in admissionv1.AdmissionReview
		if json.Unmarshal(body, &in) == nil && in.Request != nil && in.APIVersion == "admission.k8s.io/v1" && in.Kind == "AdmissionReview" {
			canonical, err := json.Marshal(in)
			if err != nil {
				t.Fatal(err)
			}
			sends = append(sends, send{canonical, true})
		}
		for _, hh := range []http.Handler{h.Mutate(), h.Validate()} {
			for _, s := range sends {
				rec := httptest.NewRecorder()
				hh.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(s.body)))
				switch {
				case rec.Code == http.StatusBadRequest && !s.review:
					continue
				case rec.Code != http.StatusOK:
					t.Fatalf("status %d for %s", rec.Code, s.body)
				}
				var out admissionv1.AdmissionReview
				if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Response == nil || s.review && out.Response.UID != in.Request.UID {
					t.Fatalf("response %s", rec.Body)
				}
			}
		}
	})
}
