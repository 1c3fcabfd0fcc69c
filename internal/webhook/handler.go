// Package webhook is the admission door to the engine: it answers
// AdmissionReviews for Pods with the JSONPatch that makes the admitted pod
// what the function writes for it (/mutate), and with the pod's findings as
// warnings, a denial or audit annotations (/validate).
package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/engine"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/transformer/config"
)

// MaxRequestBytes is the largest review read: the API server's own limit
// on a request body (3 MiB) plus room for the review around the object.
const MaxRequestBytes = 3<<20 + 256<<10

// DefaultTimeout bounds one review when the API server sends no timeout.
const DefaultTimeout = 10 * time.Second

// Validation actions, as ValidatingAdmissionPolicy names them.
const (
	ActionWarn  = "Warn"
	ActionDeny  = "Deny"
	ActionAudit = "Audit"
)

// Handler serves /mutate and /validate with the current config.
type Handler struct {
	// mutate runs the config /mutate uses; check runs it with action
	// validate, for /validate, as the validate verb runs it. Each review
	// is a run of its own; what a config derives is derived once.
	mutate, check atomic.Pointer[engine.Transformer]
	// Namespace returns the Namespace of that name as a KRM item, or nil.
	Namespace func(name string) *yaml.RNode
	// ValidationAction is Warn, Deny or Audit.
	ValidationAction string
	Log              *slog.Logger
	Metrics          *Metrics
	// admit is the engine call; tests replace it to fault it.
	admit func(*engine.Transformer, *yaml.RNode, *yaml.RNode) (*yaml.RNode, fn.Results, bool)
	// workers run the reviews.
	workers *workers
}

// NewHandler returns a Handler for cfg (the catalog's defaults when nil).
func NewHandler(cfg *config.SidecarLifecycle, log *slog.Logger, m *Metrics) (*Handler, error) {
	if cfg == nil {
		c, err := config.Load(nil)
		if err != nil {
			return nil, err
		}
		cfg = c
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Handler{ValidationAction: ActionWarn, Log: log, Metrics: m, admit: admit, workers: newWorkers()}
	h.SetConfig(cfg)
	return h, nil
}

// SetConfig replaces the config later reviews use.
func (h *Handler) SetConfig(cfg *config.SidecarLifecycle) {
	check := *cfg
	check.Spec.Action = config.ActionValidate
	h.check.Store(engine.NewAdmission(&check))
	h.mutate.Store(engine.NewAdmission(cfg))
}

// Config is the config reviews use now.
func (h *Handler) Config() *config.SidecarLifecycle { return h.mutate.Load().Config }

// Mutate is the /mutate handler.
func (h *Handler) Mutate() http.Handler { return h.serve("/mutate", true) }

// Validate is the /validate handler.
func (h *Handler) Validate() http.Handler { return h.serve("/validate", false) }

// errNotReview is a request body that is not an AdmissionReview.
var errNotReview = errors.New("not an AdmissionReview")

func (h *Handler) serve(path string, mutate bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		outcome := "error"
		defer func() { h.Metrics.observe(path, outcome, time.Since(start)) }()
		if r.Method != http.MethodPost {
			outcome = "bad_request"
			h.Log.Warn("review refused", "path", path, "reason", "method "+r.Method)
			http.Error(w, "POST an AdmissionReview", http.StatusMethodNotAllowed)
			return
		}
		review, object, err := readReview(r.Body)
		if err != nil {
			outcome = "bad_request"
			h.Log.Warn("review refused", "path", path, "reason", err.Error())
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		timeout := DefaultTimeout
		if t, err := time.ParseDuration(r.URL.Query().Get("timeout")); err == nil && t > 0 {
			timeout = t - t/10 // answer before the API server gives up
		}
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		resp, out := h.review(ctx, path, review.Request, object, mutate)
		outcome = out
		review.Response = resp
		review.Request = nil
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(w).Encode(review); err != nil {
			h.Log.Error("writing review", "path", path, "err", err)
		}
	})
}

// review answers one request: never a refusal unless Deny was asked for
// and the pod has findings. The outcome names the metric's label.
func (h *Handler) review(ctx context.Context, path string, req *admissionv1.AdmissionRequest, object *yaml.Node, mutate bool) (*admissionv1.AdmissionResponse, string) {
	resp := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	if req.Kind.Kind != "Pod" || req.Kind.Group != "" || object == nil {
		resp.Warnings = []string{fmt.Sprintf("sidecar-lifecycle: %s/%s is not a Pod; admitted unchanged", req.Kind.Group, req.Kind.Kind)}
		h.Log.Warn("review skipped", "path", path, "uid", req.UID, "kind", req.Kind.Kind)
		return resp, "skipped"
	}
	if mutate && req.Operation != admissionv1.Create {
		return resp, "skipped"
	}
	type answer struct {
		patch    []byte
		findings []string
		err      error
	}
	done := make(chan answer, 1)
	h.workers.run(func() {
		defer func() {
			if p := recover(); p != nil {
				h.Log.Error("review panicked", "path", path, "uid", req.UID, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				done <- answer{err: fmt.Errorf("internal error: %v", p)}
			}
		}()
		patch, findings, err := h.run(req, object, mutate)
		done <- answer{patch, findings, err}
	})
	var a answer
	select {
	case a = <-done:
	case <-ctx.Done():
		h.Log.Error("review ran past its deadline", "path", path, "uid", req.UID)
		resp.Warnings = []string{"sidecar-lifecycle: the review ran past its deadline; admitted unchanged"}
		return resp, "timeout"
	}
	if a.err != nil {
		h.Log.Error("review failed", "path", path, "uid", req.UID, "err", a.err)
		resp.Warnings = []string{"sidecar-lifecycle: " + a.err.Error() + "; admitted unchanged"}
		return resp, "error"
	}
	if mutate {
		if len(a.patch) == 0 {
			return resp, "unchanged"
		}
		pt := admissionv1.PatchTypeJSONPatch
		resp.Patch, resp.PatchType = a.patch, &pt
		return resp, "patched"
	}
	if len(a.findings) == 0 {
		return resp, "clean"
	}
	switch h.ValidationAction {
	case ActionDeny:
		resp.Allowed = false
		resp.Result = &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden,
			Reason: metav1.StatusReasonForbidden, Message: joinFindings(a.findings)}
		resp.Warnings = a.findings
		return resp, "denied"
	case ActionAudit:
		resp.AuditAnnotations = map[string]string{}
		for i, f := range a.findings {
			resp.AuditAnnotations[fmt.Sprintf("finding-%d", i+1)] = f
		}
		return resp, "audited"
	}
	resp.Warnings = a.findings
	return resp, "warned"
}

// run runs the engine over the admitted pod and returns the JSONPatch from
// it to the written one (nil when nothing changed) and the findings: the
// results that are warnings or errors.
func (h *Handler) run(req *admissionv1.AdmissionRequest, object *yaml.Node, mutate bool) ([]byte, []string, error) {
	if object.Kind != yaml.MappingNode {
		return nil, nil, errors.New("decoding the pod: not a JSON object")
	}
	pod := yaml.NewRNode(object)
	if pod.GetNamespace() == "" && req.Namespace != "" {
		// The API server fills metadata.namespace after admission; the
		// engine reads it to find the Namespace's switches.
		if err := pod.SetNamespace(req.Namespace); err != nil {
			return nil, nil, err
		}
	}
	var ns *yaml.RNode
	if h.Namespace != nil && req.Namespace != "" {
		ns = h.Namespace(req.Namespace)
	}
	t := h.mutate.Load()
	if !mutate {
		t = h.check.Load()
	}
	patched, results, changed := h.admit(t, ns, pod)
	findings := findingsOf(results)
	if !changed {
		return nil, findings, nil
	}
	b, err := jsonPatch(pod.YNode(), patched.YNode())
	if err != nil {
		return nil, nil, fmt.Errorf("making the patch: %w", err)
	}
	return b, findings, nil
}

// findingsOf are the results to show: warnings and errors, one line each.
func findingsOf(results fn.Results) []string {
	var out []string
	for _, r := range results {
		if r == nil || (r.Severity != fn.Warning && r.Severity != fn.Error) {
			continue
		}
		line := string(r.Severity) + ": " + r.Message
		if r.Field != nil && r.Field.Path != "" {
			line += " (" + r.Field.Path + ")"
		}
		out = append(out, line)
	}
	return out
}

func joinFindings(f []string) string {
	s := "sidecar-lifecycle:"
	for _, l := range f {
		s += "\n- " + l
	}
	return s
}
