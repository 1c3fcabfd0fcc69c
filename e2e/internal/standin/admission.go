// Package standin is the admission side the e2e stand-in injectors share: a
// TLS server that answers AdmissionReviews for Pods with the JSON Patch an
// injector returns, the way an injector's webhook does.
package standin

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
)

// Op is one JSON Patch operation.
type Op struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// Injector returns the patch that injects into pod, or none.
type Injector func(pod *corev1.Pod) ([]Op, error)

// Flags are what every stand-in injector takes.
type Flags struct {
	Listen, CertFile, KeyFile, Image string
}

// Main parses the flags shared by the stand-ins (and extra ones the caller
// registered on flag.CommandLine), then serves inject on /mutate until
// SIGTERM or SIGINT; it exits the process.
func Main(name string, inject func(Flags) Injector) {
	var f Flags
	flag.StringVar(&f.Listen, "listen", "127.0.0.1:0", "TLS address to serve /mutate on")
	flag.StringVar(&f.CertFile, "cert-file", "", "serving certificate (PEM)")
	flag.StringVar(&f.KeyFile, "key-file", "", "serving key (PEM)")
	flag.StringVar(&f.Image, "image", "", "the image of the container it injects")
	flag.Parse()
	if f.CertFile == "" || f.KeyFile == "" || f.Image == "" {
		fmt.Fprintf(os.Stderr, "%s: --cert-file, --key-file and --image are required\n", name)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := Serve(ctx, f.Listen, f.CertFile, f.KeyFile, inject(f)); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

// Serve answers POST /mutate over TLS until ctx is done.
func Serve(ctx context.Context, listen, certFile, keyFile string, inject Injector) error {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /mutate", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var review admissionv1.AdmissionReview
		if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
			http.Error(w, "not an AdmissionReview", http.StatusBadRequest)
			return
		}
		resp := &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		var pod corev1.Pod
		if err := json.Unmarshal(review.Request.Object.Raw, &pod); err != nil {
			resp.Warnings = []string{"stand-in injector: " + err.Error()}
		} else if ops, err := inject(&pod); err != nil {
			resp.Warnings = []string{"stand-in injector: " + err.Error()}
		} else if len(ops) > 0 {
			patch, _ := json.Marshal(ops)
			pt := admissionv1.PatchTypeJSONPatch
			resp.Patch, resp.PatchType = patch, &pt
			log.Printf("injected into pod %s/%s: %s", review.Request.Namespace, pod.Name, patch)
		}
		review.Response, review.Request = resp, nil
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(review)
	})
	srv := &http.Server{
		Addr: listen, Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
	}
	errs := make(chan error, 1)
	go func() { errs <- srv.ListenAndServeTLS("", "") }()
	log.Printf("serving /mutate on %s", listen)
	select {
	case err := <-errs:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// AddContainer returns the ops that append c to the list at path
// (/spec/containers or /spec/initContainers), which holds n items.
func AddContainer(path string, n int, c corev1.Container) []Op {
	if n == 0 {
		return []Op{{Op: "add", Path: path, Value: []corev1.Container{c}}}
	}
	return []Op{{Op: "add", Path: path + "/-", Value: c}}
}

// SetKeys returns the ops that set each key to its value in the string
// map at path (/metadata/annotations or /metadata/labels), creating the
// map when the pod has none.
func SetKeys(path string, current map[string]string, kv ...string) []Op {
	if current == nil {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return []Op{{Op: "add", Path: path, Value: m}}
	}
	var ops []Op
	for i := 0; i+1 < len(kv); i += 2 {
		ops = append(ops, Op{Op: "add", Path: path + "/" + escape(kv[i]), Value: kv[i+1]})
	}
	return ops
}

// escape escapes a JSON Pointer token (RFC 6901).
func escape(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '~':
			out = append(out, '~', '0')
		case '/':
			out = append(out, '~', '1')
		default:
			out = append(out, s[i])
		}
	}
	return string(out)
}
