// Package corpus generates realistic ResourceLists for the benchmarks and the
// differential tests: meshed workloads with several containers, probes,
// comments and a Linkerd proxy that is not first, mixed with resources the
// function does not edit, laid out the way kustomize and kpt write them
// (items first, then the functionConfig), or the same list with CRLF line
// breaks, or as JSON.
package corpus

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// FunctionConfig is the config the generated lists carry: order the Linkerd
// proxy, keep it up 30s after shutdown starts, and give the apps 5s to drain.
const FunctionConfig = `apiVersion: fn.sidecar-lifecycle.dev/v1alpha1
kind: SidecarLifecycle
metadata:
  name: mesh-order
spec:
  sidecars:
  - preset: linkerd
    # Keep the proxy up while the app drains.
    waitBeforeExit: 30s
  app:
    drainDelay: 5s
`

// Write writes a ResourceList with the given number of workloads to w. The
// output is deterministic: the same count gives the same bytes.
func Write(w io.Writer, workloads int) error {
	return writeList(w, func(f func(doc string) error) error { return docs(workloads, f) })
}

// WriteZeroConfig writes the list Write writes without its functionConfig,
// as users run the function by default: the catalog recognises the
// sidecars.
func WriteZeroConfig(w io.Writer, workloads int) error {
	return writeListWith(w, func(f func(doc string) error) error { return docs(workloads, f) }, "")
}

// WriteCRLF writes the list Write writes with CRLF line breaks.
func WriteCRLF(w io.Writer, workloads int) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	if err := Write(crlfWriter{bw}, workloads); err != nil {
		return err
	}
	return bw.Flush()
}

// crlfWriter writes CRLF for every LF.
type crlfWriter struct{ w *bufio.Writer }

func (c crlfWriter) Write(p []byte) (int, error) {
	for _, b := range p {
		if b == '\n' {
			c.w.WriteByte('\r')
		}
		c.w.WriteByte(b)
	}
	return len(p), nil
}

// WriteJSON writes the list Write writes as JSON on one line, as an
// orchestrator may send it; it has no comments.
func WriteJSON(w io.Writer, workloads int) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(`{"apiVersion":"config.kubernetes.io/v1","kind":"ResourceList","items":[`)
	first := true
	err := docs(workloads, func(doc string) error {
		if !first {
			bw.WriteByte(',')
		}
		first = false
		return writeJSON(bw, doc)
	})
	if err != nil {
		return err
	}
	bw.WriteString(`],"functionConfig":`)
	if err := writeJSON(bw, FunctionConfig); err != nil {
		return err
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// writeJSON writes a YAML document as JSON.
func writeJSON(w *bufio.Writer, doc string) error {
	node, err := yaml.Parse(doc)
	if err != nil {
		return err
	}
	b, err := node.MarshalJSON()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// docs calls f with every resource of a list of the given number of
// workloads, in order.
func docs(workloads int, f func(doc string) error) error {
	for i := 0; i < workloads; i++ {
		if i%50 == 0 {
			if err := f(namespace(i / 50)); err != nil {
				return err
			}
		}
		if err := f(workload(i)); err != nil {
			return err
		}
		if i%4 == 0 {
			if err := f(service(i)); err != nil {
				return err
			}
		}
		if i%10 == 0 {
			if err := f(configMap(i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// item writes one resource as an entry of the items list: "- " before the
// first line, two spaces before the others.
func item(w *bufio.Writer, doc string) {
	for i, line := range strings.SplitAfter(strings.TrimSuffix(doc, "\n"), "\n") {
		switch {
		case i == 0:
			w.WriteString("- ")
		case line == "\n":
		default:
			w.WriteString("  ")
		}
		w.WriteString(line)
	}
	w.WriteString("\n")
}

var teams = []string{"shop", "payments", "search", "catalog", "identity", "shipping", "reviews"}

func team(i int) string { return teams[i%len(teams)] }

func namespace(n int) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata:
  name: %s-%d
  annotations:
    linkerd.io/inject: enabled
`, team(n), n)
}

// workload is a Deployment (most), StatefulSet or CronJob with an app
// container, the Linkerd proxy second or third, a log shipper, probes,
// resources and comments. Every 12th has no proxy (the mesh injects it at
// admission, so the function annotates the pod template instead).
func workload(i int) string {
	name := fmt.Sprintf("%s-svc-%d", team(i), i)
	ns := fmt.Sprintf("%s-%d", team(i/50), i/50)
	containers := appContainer(i)
	switch {
	case i%12 == 11:
		containers += shipper(i)
	case i%3 == 0:
		containers += shipper(i) + proxy(i)
	default:
		containers += proxy(i) + shipper(i)
	}
	pod := fmt.Sprintf(`metadata:
  labels:
    app.kubernetes.io/name: %[1]s
    app.kubernetes.io/part-of: %[2]s
  annotations:
    # Scraped by the cluster's Prometheus.
    prometheus.io/scrape: "true"
    prometheus.io/port: "8080"
spec:
  serviceAccountName: %[1]s
  initContainers:
  - name: linkerd-init
    image: cr.l5d.io/linkerd/proxy-init:v2.4.1
    args: ["--incoming-proxy-port", "4143"]
  containers:
%[3]s  volumes:
  - name: tmp
    emptyDir: {}
`, name, team(i), containers)
	switch {
	case i%20 == 7:
		return fmt.Sprintf(`apiVersion: batch/v1
kind: CronJob
metadata:
  name: %s
  namespace: %s
  labels:
    app.kubernetes.io/part-of: %s
spec:
  schedule: "*/15 * * * *"
  concurrencyPolicy: Forbid
  jobTemplate:
    spec:
      backoffLimit: 2
      template:
%s`, name, ns, team(i), indent(pod, "        "))
	case i%10 == 3:
		return fmt.Sprintf(`apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: %[1]s
  namespace: %[2]s
  labels:
    app.kubernetes.io/part-of: %[3]s
spec:
  serviceName: %[1]s
  replicas: 3
  selector:
    matchLabels:
      app.kubernetes.io/name: %[1]s
  template:
%[4]s  volumeClaimTemplates:
  - metadata:
      name: data
    spec:
      accessModes: ["ReadWriteOnce"]
      resources:
        requests:
          storage: 10Gi
`, name, ns, team(i), indent(pod, "    "))
	}
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s # owned by team %[3]s
  namespace: %[2]s
  labels:
    app.kubernetes.io/name: %[1]s
    app.kubernetes.io/part-of: %[3]s
spec:
  replicas: %[4]d
  selector:
    matchLabels:
      app.kubernetes.io/name: %[1]s
  strategy:
    rollingUpdate: {maxSurge: 25%%, maxUnavailable: 0}
  template:
%[5]s`, name, ns, team(i), 2+i%3, indent(pod, "    "))
}

func appContainer(i int) string {
	return fmt.Sprintf(`  # The application: serves HTTP on :8080 and calls other services on start.
  - name: app
    image: ghcr.io/example/%[1]s:1.%[2]d.%[3]d
    args: ["--listen=:8080", "--config=/etc/app/config.yaml"]
    env:
    - name: LOG_LEVEL
      value: info
    ports:
    - name: http
      containerPort: 8080
    readinessProbe:
      httpGet:
        path: /healthz
        port: http
      periodSeconds: 5
    livenessProbe:
      httpGet: {path: /livez, port: http}
      initialDelaySeconds: 10
    resources:
      requests: {cpu: 100m, memory: 128Mi}
`, team(i), i%20, i%7)
}

func proxy(i int) string {
	return `  # The Linkerd proxy, injected by hand.
  - name: linkerd-proxy
    image: cr.l5d.io/linkerd/proxy:edge-25.4.1
    ports:
    - name: linkerd-proxy
      containerPort: 4143
    - name: linkerd-admin
      containerPort: 4191
    readinessProbe:
      httpGet: {path: /ready, port: 4191}
      initialDelaySeconds: 2
    securityContext:
      runAsUser: 2102
      readOnlyRootFilesystem: true
`
}

func shipper(i int) string {
	return fmt.Sprintf(`  - name: log-shipper
    image: fluent/fluent-bit:3.%d
    resources:
      requests: {cpu: 10m, memory: 32Mi}
    volumeMounts:
    - {name: tmp, mountPath: /tmp}
`, i%3)
}

func service(i int) string {
	return fmt.Sprintf(`# Not a workload: passes through untouched.
apiVersion: v1
kind: Service
metadata:
  name: %[1]s-svc-%[2]d
  namespace: %[1]s-%[3]d
spec:
  selector:
    app.kubernetes.io/name: %[1]s-svc-%[2]d
  ports:
  - name: http
    port: 80 # plain HTTP inside the mesh
    targetPort: http
`, team(i), i, i/50)
}

func configMap(i int) string {
	return fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: %[1]s-svc-%[2]d-config
  namespace: %[1]s-%[3]d
data:
  config.yaml: |
    listen: :8080
    upstreams:
      - name: catalog
        url: http://catalog.catalog-%[3]d.svc.cluster.local
    # retries with backoff
    retries: 3
`, team(i), i, i/50)
}

func indent(text, prefix string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		if line != "" && line != "\n" {
			b.WriteString(prefix)
		}
		b.WriteString(line)
	}
	return b.String()
}
