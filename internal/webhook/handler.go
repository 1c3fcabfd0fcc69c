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
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/kptdev/krm-functions-sdk/go/fn"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
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
	// cfg is the config /mutate uses; check is it with action validate,
	// for /validate, as the validate verb runs it.
	cfg, check atomic.Pointer[config.SidecarLifecycle]
	// Namespace returns the Namespace of that name as a KRM item, or nil.
	Namespace func(name string) *yaml.RNode
	// ValidationAction is Warn, Deny or Audit.
	ValidationAction string
	Log              *slog.Logger
	Metrics          *Metrics
	// admit is the engine call; tests replace it to fault it.
	admit func(*config.SidecarLifecycle, *yaml.RNode, *yaml.RNode) (*yaml.RNode, fn.Results, bool)
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
	h := &Handler{ValidationAction: ActionWarn, Log: log, Metrics: m, admit: admit}
	h.SetConfig(cfg)
	return h, nil
}

// SetConfig replaces the config later reviews use.
func (h *Handler) SetConfig(cfg *config.SidecarLifecycle) {
	check := *cfg
	check.Spec.Action = config.ActionValidate
	h.check.Store(&check)
	h.cfg.Store(cfg)
}

// Config is the config reviews use now.
func (h *Handler) Config() *config.SidecarLifecycle { return h.cfg.Load() }

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
		review, err := readReview(r.Body)
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
		resp, out := h.review(ctx, path, review.Request, mutate)
		outcome = out
		review.Response = resp
		review.Request = nil
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(w).Encode(review); err != nil {
			h.Log.Error("writing review", "path", path, "err", err)
		}
	})
}

// readReview decodes an AdmissionReview v1 with a request, or returns
// errNotReview (wrapped) for anything else.
func readReview(body io.Reader) (*admissionv1.AdmissionReview, error) {
	b, err := io.ReadAll(io.LimitReader(body, MaxRequestBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNotReview, err)
	}
	if len(b) > MaxRequestBytes {
		return nil, fmt.Errorf("%w: body over %d bytes", errNotReview, MaxRequestBytes)
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(b, &review); err != nil {
		return nil, fmt.Errorf("%w: %v", errNotReview, err)
	}
	if review.APIVersion != "admission.k8s.io/v1" || review.Kind != "AdmissionReview" {
		return nil, fmt.Errorf("%w: apiVersion %q kind %q", errNotReview, review.APIVersion, review.Kind)
	}
	if review.Request == nil {
		return nil, fmt.Errorf("%w: no request", errNotReview)
	}
	return &review, nil
}

// review answers one request: never a refusal unless Deny was asked for
// and the pod has findings. The outcome names the metric's label.
func (h *Handler) review(ctx context.Context, path string, req *admissionv1.AdmissionRequest, mutate bool) (*admissionv1.AdmissionResponse, string) {
	resp := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	if req.Kind.Kind != "Pod" || req.Kind.Group != "" || len(req.Object.Raw) == 0 {
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
	go func() {
		defer func() {
			if p := recover(); p != nil {
				h.Log.Error("review panicked", "path", path, "uid", req.UID, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				done <- answer{err: fmt.Errorf("internal error: %v", p)}
			}
		}()
		patch, findings, err := h.run(req, mutate)
		done <- answer{patch, findings, err}
	}()
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

// run decodes the pod, runs the engine and returns the JSONPatch from the
// admitted pod to the written one (nil when nothing changed) and the
// findings: the results that are warnings or errors.
func (h *Handler) run(req *admissionv1.AdmissionRequest, mutate bool) ([]byte, []string, error) {
	raw := req.Object.Raw
	node, err := yamlio.DecodeJSON(raw)
	if err == nil && node.Kind != yaml.MappingNode {
		err = errors.New("not a JSON object")
	}
	if err != nil {
		return nil, nil, fmt.Errorf("decoding the pod: %w", err)
	}
	pod := yaml.NewRNode(node)
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
	cfg := h.cfg.Load()
	if !mutate {
		cfg = h.check.Load()
	}
	patched, results, changed := h.admit(cfg, ns, pod)
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
