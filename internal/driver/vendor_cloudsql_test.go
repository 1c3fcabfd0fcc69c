package driver_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/sidecar-lifecycle/sidecar-lifecycle/internal/workload"
)

// proxyFacts is what the Cloud SQL Auth Proxy or the AlloyDB Auth Proxy
// itself makes of a container, read here independently of the function:
// v2 flags win over their CSQL_PROXY_* variables (cloud-sql-proxy
// cmd/root.go), v1 has its own flags (cmd/cloud_sql_proxy/cloud_sql_proxy.go);
// the AlloyDB Auth Proxy reads the same flags as v2, and ALLOYDB_PROXY_*
// variables (alloydb-auth-proxy v1.15.2 cmd/root.go).
type proxyFacts struct {
	v1                   bool
	health, port, listen string
	tag                  string
	// program is the binary with the wait command (v2's, which a v1 image
	// lacks); env starts its variables.
	program, env string
}

func readProxy(c *yaml.RNode) (proxyFacts, bool) {
	image := yaml.GetValue(c.Field("image").Value)
	repo, tag, _ := strings.Cut(image, ":")
	f := proxyFacts{tag: tag, health: "false", listen: "localhost", port: "9090", program: "/cloud-sql-proxy", env: "CSQL_PROXY_"}
	switch filepath.Base(repo) {
	case "gce-proxy":
		f.v1, f.port, f.listen = true, "8090", "0.0.0.0"
	case "cloud-sql-proxy":
	case "alloydb-auth-proxy":
		f.program, f.env = "/alloydb-auth-proxy", "ALLOYDB_PROXY_"
	default:
		return f, false
	}
	if env := c.Field("env"); env != nil && !f.v1 {
		for _, e := range env.Value.YNode().Content {
			name, value := yaml.GetValue(yaml.NewRNode(e).Field("name").Value), ""
			if v := yaml.NewRNode(e).Field("value"); v != nil {
				value = yaml.GetValue(v.Value)
			}
			switch name {
			case f.env + "HEALTH_CHECK":
				f.health = value
			case f.env + "HTTP_PORT":
				f.port = value
			case f.env + "HTTP_ADDRESS":
				f.listen = value
			}
		}
	}
	var argv []string
	for _, field := range []string{"command", "args"} {
		if l := c.Field(field); l != nil {
			for i, n := range l.Value.YNode().Content {
				if field == "command" && i == 0 {
					continue
				}
				argv = append(argv, n.Value)
			}
		}
	}
	for i, a := range argv {
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !hasValue && i+1 < len(argv) {
			value = argv[i+1]
		}
		switch name {
		case "health-check", "use_http_health_check":
			f.health = "true"
			if hasValue {
				f.health = value
			}
		case "http-port", "health_check_port":
			f.port = value
		case "http-address":
			f.listen = value
		}
	}
	return f, true
}

// TestCloudSQLVendorExpectations checks the output of every *cloud-sql*
// golden case, and of the AlloyDB vendor case, the way the proxy and
// kubelet would run it: a startupProbe
// polls the port the proxy listens on, on an address kubelet reaches, with
// the health check on; a wait postStart runs a binary the image has, on
// the port the proxy listens on.
func TestCloudSQLVendorExpectations(t *testing.T) {
	dirs, _ := filepath.Glob("testdata/*cloud-sql*/expected.yaml")
	alloydb, _ := filepath.Glob("testdata/vendor/alloydb-auth-proxy/expected-*.yaml")
	dirs = append(dirs, alloydb...)
	checked := 0
	for _, path := range dirs {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		items, err := (&kio.ByteReader{Reader: strings.NewReader(string(b)), OmitReaderAnnotations: true}).Read()
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range items {
			w, ok := workload.Find(item, nil)
			if !ok {
				continue
			}
			spec, _ := w.PodSpec()
			for _, field := range []string{"initContainers", "containers"} {
				list := spec.Field(field)
				if list == nil {
					continue
				}
				for _, n := range list.Value.YNode().Content {
					c := yaml.NewRNode(n)
					f, ok := readProxy(c)
					if !ok {
						continue
					}
					at := path + ": " + item.GetName() + " " + field
					if probe, _ := c.Pipe(yaml.Lookup("startupProbe", "httpGet")); probe != nil {
						checked++
						if port := yaml.GetValue(probe.Field("port").Value); port != f.port {
							t.Errorf("%s: startupProbe on port %s, the proxy listens on %s", at, port, f.port)
						}
						if on, _ := strconv.ParseBool(f.health); !on {
							t.Errorf("%s: startupProbe, but the health check is off", at)
						}
						if f.listen != "0.0.0.0" {
							t.Errorf("%s: startupProbe, but the proxy listens on %s only", at, f.listen)
						}
					}
					cmd, _ := c.Pipe(yaml.Lookup("lifecycle", "postStart", "exec", "command"))
					if cmd == nil {
						continue
					}
					checked++
					var words []string
					for _, w := range cmd.YNode().Content {
						words = append(words, w.Value)
					}
					if words[0] != f.program {
						continue // the config's own command
					}
					if f.v1 {
						t.Errorf("%s: postStart %q, but the v1 image has only /cloud_sql_proxy", at, words)
					}
					if v := strings.Split(f.tag, "."); len(v) > 1 && v[0] == "2" && atoi(v[1]) < 8 {
						t.Errorf("%s: postStart %q, but proxy %s has no wait command (2.8.0 and newer)", at, words, f.tag)
					}
					if i := slices.Index(words, "--http-port"); i < 0 || i+1 >= len(words) || words[i+1] != f.port {
						t.Errorf("%s: postStart %q does not wait on port %s, where the proxy listens", at, words, f.port)
					}
					if on, _ := strconv.ParseBool(f.health); !on {
						t.Errorf("%s: wait postStart, but the health check is off", at)
					}
				}
			}
		}
	}
	if checked < 10 {
		t.Errorf("checked %d probes and waits, want the vendor corpus (at least 10)", checked)
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
