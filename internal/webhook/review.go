package webhook

import (
	"errors"
	"fmt"
	"io"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/yamlio/tree"
)

// unread are the parts of a review no path of the engine reads nor any
// patch touches, left out of the nodes: the old object, and the object's
// managedFields, which the API server fills in before admission, often
// half of a pod's nodes.
var unread = [][]string{{"request", "oldObject"}, {"request", "object", "metadata", "managedFields"}}

// readReview reads an AdmissionReview v1 with a request in one pass over
// its JSON: the request's fields the webhook uses, and its object as the
// engine's nodes (nil when absent or null) without what is unread, so the
// pod is not decoded twice. Keys are matched as the API server writes
// them. Anything that is not such a review is errNotReview (wrapped).
func readReview(body io.Reader) (*admissionv1.AdmissionReview, *yaml.Node, error) {
	b, err := io.ReadAll(io.LimitReader(body, MaxRequestBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errNotReview, err)
	}
	if len(b) > MaxRequestBytes {
		return nil, nil, fmt.Errorf("%w: body over %d bytes", errNotReview, MaxRequestBytes)
	}
	root, err := yamlio.DecodeJSONLeaving(b, unread...)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errNotReview, err)
	}
	review := &admissionv1.AdmissionReview{}
	req, object, err := readFields(root, review)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", errNotReview, err)
	}
	if review.APIVersion != "admission.k8s.io/v1" || review.Kind != "AdmissionReview" {
		return nil, nil, fmt.Errorf("%w: apiVersion %q kind %q", errNotReview, review.APIVersion, review.Kind)
	}
	if req == nil {
		return nil, nil, fmt.Errorf("%w: no request", errNotReview)
	}
	review.Request = req
	return review, object, nil
}

// readFields reads the review's type and its request's uid, kind,
// namespace, operation and object.
func readFields(root *yaml.Node, review *admissionv1.AdmissionReview) (*admissionv1.AdmissionRequest, *yaml.Node, error) {
	if root.Kind != yaml.MappingNode {
		return nil, nil, errors.New("not a JSON object")
	}
	var errs []error
	text := func(m *yaml.Node, key string) string {
		s, err := stringField(m, key)
		errs = append(errs, err)
		return s
	}
	review.APIVersion, review.Kind = text(root, "apiVersion"), text(root, "kind")
	r := field(root, "request")
	if r == nil {
		return nil, nil, errors.Join(errs...)
	}
	if r.Kind != yaml.MappingNode {
		return nil, nil, errors.New("request is not an object")
	}
	req := &admissionv1.AdmissionRequest{UID: types.UID(text(r, "uid")), Namespace: text(r, "namespace"),
		Operation: admissionv1.Operation(text(r, "operation"))}
	if k := field(r, "kind"); k != nil {
		if k.Kind != yaml.MappingNode {
			return nil, nil, errors.New("request.kind is not an object")
		}
		req.Kind.Group, req.Kind.Version, req.Kind.Kind = text(k, "group"), text(k, "version"), text(k, "kind")
	}
	return req, field(r, "object"), errors.Join(errs...)
}

// field is the value of key in mapping m, nil when it is absent or null.
func field(m *yaml.Node, key string) *yaml.Node {
	if v := tree.Value(m, key); v != nil && v.Tag != yaml.NodeTagNull {
		return v
	}
	return nil
}

// stringField is the string at key in m, "" when it is absent or null.
func stringField(m *yaml.Node, key string) (string, error) {
	v := field(m, key)
	switch {
	case v == nil:
		return "", nil
	case v.Tag != yaml.NodeTagString:
		return "", fmt.Errorf("%s is not a string", key)
	}
	return v.Value, nil
}
