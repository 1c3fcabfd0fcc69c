package cli

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/driver"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/report"
)

// maxDocumentSizeEnv sets the maximum document size in both modes;
// --max-document-size overrides it in --config mode.
const maxDocumentSizeEnv = "SIDECAR_LIFECYCLE_MAX_DOCUMENT_SIZE"

// envOptions are the driver options the environment sets.
func envOptions(getenv func(string) string) (driver.Options, error) {
	size, err := envMaxDocumentSize(getenv)
	return driver.Options{MaxDocumentSize: size}, err
}

// envMaxDocumentSize is the size SIDECAR_LIFECYCLE_MAX_DOCUMENT_SIZE sets,
// or 0 (the default) when it is unset.
func envMaxDocumentSize(getenv func(string) string) (int64, error) {
	value := getenv(maxDocumentSizeEnv)
	if value == "" {
		return 0, nil
	}
	return parseSize(maxDocumentSizeEnv, value)
}

// parseSize reads a size in bytes written as a Kubernetes quantity: 512Mi,
// 1Gi, 300M, 1000000.
func parseSize(what, value string) (int64, error) {
	q, err := resource.ParseQuantity(value)
	if err != nil || q.Sign() <= 0 {
		return 0, fmt.Errorf("%s %s is not a size: write a positive number of bytes, or one with a suffix such as 512Mi or 1Gi", what, report.Quote(value))
	}
	return q.Value(), nil
}
