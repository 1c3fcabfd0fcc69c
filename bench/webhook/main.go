// Command webhook measures the admission webhook as the API server meets
// it: reviews per second, p50 and p99 latency over kept-alive TLS with
// concurrent clients, the server's CPU time per review and its resident
// memory after the run, for `sidecar-lifecycle webhook` and, in the same
// run, a no-op webhook with the same TLS server and collector settings,
// decoding and encoding but no engine. The two alternate for a few rounds, each on a fresh process,
// and the ratios are the median round's: the load of a shared machine
// drifts between runs more than within a pair.
//
// The review is pod.json: the Pod a ReplicaSet creates from Istio's
// injected "hello" Deployment (istio/istio
// 86c9f01fd735fb01d8192f5bcaf0d424afb7f14c
// pkg/kube/inject/testdata/inject/hello-old-version.yaml.injected, its pod
// template with a name, a namespace and serviceAccountName: hello), as
// Kubernetes 1.34's API server hands it to admission: the output of
// `kubectl create --dry-run=server -o json --show-managed-fields`.
package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"crypto/tls"
	"crypto/x509"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/testcert"
	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/webhook"
)

//go:embed pod.json
var podJSON []byte

func main() {
	function := flag.String("function", "bin/sidecar-lifecycle", "the sidecar-lifecycle binary")
	reviews := flag.Int("reviews", 10000, "reviews sent to each webhook")
	clients := flag.Int("clients", 8, "concurrent clients, each on its own kept-alive connection")
	rounds := flag.Int("rounds", 3, "rounds of the two webhooks, one after the other")
	noop := flag.Bool("serve-noop", false, "serve the no-op webhook (the benchmark runs itself so)")
	cert := flag.String("cert-file", "", "with -serve-noop: the certificate")
	key := flag.String("key-file", "", "with -serve-noop: the key")
	listen := flag.String("listen", "", "with -serve-noop: the address")
	flag.Parse()
	if *noop {
		if err := serveNoop(*cert, *key, *listen); err != nil {
			fmt.Fprintln(os.Stderr, "webhook bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*function, *reviews, *clients, *rounds); err != nil {
		fmt.Fprintln(os.Stderr, "webhook bench:", err)
		os.Exit(1)
	}
}

// run measures both webhooks, rounds times, and prints the table.
func run(function string, reviews, clients, rounds int) error {
	dir, err := os.MkdirTemp("", "webhook-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ca, err := testcert.NewCA()
	if err != nil {
		return err
	}
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := ca.Write(certFile, keyFile, 2); err != nil {
		return err
	}
	body, err := reviewBody()
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	servers := []struct {
		name string
		cmd  func(addr string) *exec.Cmd
	}{
		{"no-op webhook (TLS, decode, encode)", func(addr string) *exec.Cmd {
			return exec.Command(self, "-serve-noop", "-cert-file", certFile, "-key-file", keyFile, "-listen", addr)
		}},
		{"sidecar-lifecycle webhook", func(addr string) *exec.Cmd {
			c := exec.Command(function, "webhook", "--cert-file", certFile, "--key-file", keyFile,
				"--listen", addr, "--metrics-listen", "127.0.0.1:0")
			c.Env = append(os.Environ(), "KUBECONFIG=/nonexistent")
			return c
		}},
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca.PEM)
	fmt.Printf("Admission reviews of a %.1f KB Pod over kept-alive TLS, %d reviews each webhook with %d clients for %d rounds, then a quarter as many with one client:\n\n", float64(len(body))/1024, reviews, clients, rounds)
	fmt.Println("| round | clients | webhook | reviews/s | p50 | p99 | server CPU per review | resident memory after |")
	fmt.Println("|---:|---:|---|---:|---:|---:|---:|---:|")
	var p50, cpu []float64
	var alone [2]result
	for round := 1; round <= rounds+1; round++ {
		n, c := reviews, clients
		if round > rounds { // one client: the latency of a review that waits for none
			n, c = max(reviews/4, 100), 1
		}
		var pair [2]result
		for i, s := range servers {
			addr, err := freeAddr()
			if err != nil {
				return err
			}
			cmd := s.cmd(addr)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				return err
			}
			r, err := measure(addr, pool, body, n, c, cmd.Process.Pid)
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
			if err != nil {
				return fmt.Errorf("%s: %v\n%s", s.name, err, stderr.String())
			}
			pair[i] = r
			fmt.Printf("| %d | %d | %s | %.0f | %s | %s | %s | %.1f MiB |\n", round, c, s.name, r.rate, ms(r.p50), ms(r.p99), ms(r.cpu), float64(r.rss)/(1<<20))
		}
		if round > rounds {
			alone = pair
			continue
		}
		p50 = append(p50, float64(pair[1].p50)/float64(pair[0].p50))
		cpu = append(cpu, float64(pair[1].cpu)/float64(pair[0].cpu))
	}
	fmt.Printf("\nsidecar-lifecycle / no-op, median of %d rounds with %d clients: p50 %.2f, server CPU per review %.2f\n", rounds, clients, median(p50), median(cpu))
	fmt.Printf("with one client: p50 %s and p99 %s (no-op: %s and %s)\n", ms(alone[1].p50), ms(alone[1].p99), ms(alone[0].p50), ms(alone[0].p99))
	return nil
}

// median is the middle value (the upper one of an even count).
func median(v []float64) float64 {
	v = slices.Clone(v)
	slices.Sort(v)
	return v[len(v)/2]
}

// reviewBody is the AdmissionReview of pod.json, compact, as the API
// server sends it.
func reviewBody() ([]byte, error) {
	var pod bytes.Buffer
	if err := json.Compact(&pod, podJSON); err != nil {
		return nil, err
	}
	return json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:       types.UID("4f1c0a4e-8d1b-4d0e-9a57-0d6a3c1c2b7e"),
			Kind:      metav1.GroupVersionKind{Version: "v1", Kind: "Pod"},
			Resource:  metav1.GroupVersionResource{Version: "v1", Resource: "pods"},
			Namespace: "default", Operation: admissionv1.Create,
			Object: runtime.RawExtension{Raw: pod.Bytes()},
		},
	})
}

type result struct {
	rate          float64
	p50, p99, cpu time.Duration
	rss           int64
}

// measure waits for the server, sends a warm-up, then reviews from the
// clients, and reads the server's resident memory.
func measure(addr string, pool *x509.CertPool, body []byte, reviews, clients, pid int) (result, error) {
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	url := "https://" + addr + "/mutate?timeout=10s"
	deadline := time.Now().Add(30 * time.Second)
	for {
		if err := post(client, url, body, true); err == nil {
			break
		} else if time.Now().After(deadline) {
			return result{}, err
		}
		time.Sleep(50 * time.Millisecond)
	}
	for range 200 {
		if err := post(client, url, body, false); err != nil {
			return result{}, err
		}
	}
	cpuBefore, err := cpuTime(pid)
	if err != nil {
		return result{}, err
	}
	lat := make([]time.Duration, reviews)
	var next int64
	var mu sync.Mutex
	var firstErr error
	var wg sync.WaitGroup
	start := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if int(i) >= reviews {
					return
				}
				t := time.Now()
				if err := post(client, url, body, false); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return
				}
				lat[i] = time.Since(t)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		return result{}, firstErr
	}
	slices.Sort(lat)
	cpuAfter, err := cpuTime(pid)
	if err != nil {
		return result{}, err
	}
	rss, err := residentBytes(pid)
	if err != nil {
		return result{}, err
	}
	return result{rate: float64(reviews) / elapsed.Seconds(), p50: lat[len(lat)/2], p99: lat[len(lat)*99/100],
		cpu: (cpuAfter - cpuBefore) / time.Duration(reviews), rss: rss}, nil
}

// post sends one review and checks the answer allows the pod.
func post(client *http.Client, url string, body []byte, quiet bool) error {
	resp, err := client.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(b, &review); err != nil || review.Response == nil || !review.Response.Allowed {
		return fmt.Errorf("answer %d: %.200s", resp.StatusCode, b)
	}
	return nil
}

// tree is the process and its descendants (each thread's children).
func tree(pid int) []int {
	out := []int{pid}
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	for _, file := range files {
		b, _ := os.ReadFile(file)
		for _, f := range strings.Fields(string(b)) {
			if child, err := strconv.Atoi(f); err == nil {
				out = append(out, tree(child)...)
			}
		}
	}
	return out
}

// cpuTime is the CPU time the process and its descendants have used,
// user and system.
func cpuTime(pid int) (time.Duration, error) {
	var sum time.Duration
	for _, p := range tree(pid) {
		t, err := processCPU(p)
		if err != nil {
			return 0, err
		}
		sum += t
	}
	return sum, nil
}

// processCPU is one process's CPU time from /proc/<pid>/stat (in clock
// ticks of 1/100 s, as Linux reports them to user space).
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command, whose parentheses may hold anything.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	var ticks int64
	for _, s := range f[11:13] { // utime, stime
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, err
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond, nil
}

// residentBytes is the VmRSS of the process and its descendants.
func residentBytes(pid int) (int64, error) {
	var sum int64
	for _, p := range tree(pid) {
		n, err := processRSS(p)
		if err != nil {
			return 0, err
		}
		sum += n
	}
	return sum, nil
}

// processRSS is one process's VmRSS.
func processRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// serveNoop serves /mutate with controller-runtime's webhook server and
// the collector settings of the function's webhook, as that does: it
// decodes each review and answers it allowed, unchanged.
func serveNoop(certFile, keyFile, listen string) error {
	webhook.TuneCollector(os.Getenv)
	host, portText, err := net.SplitHostPort(listen)
	if err != nil {
		return err
	}
	port, err := strconv.Atoi(portText)
	if err != nil {
		return err
	}
	srv := crwebhook.NewServer(crwebhook.Options{Host: host, Port: port, CertDir: filepath.Dir(certFile),
		CertName: filepath.Base(certFile), KeyName: filepath.Base(keyFile)})
	srv.Register("/mutate", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
			http.Error(w, "not a review", http.StatusBadRequest)
			return
		}
		review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		review.Request = nil
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(review)
	}))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	return srv.Start(ctx)
}
