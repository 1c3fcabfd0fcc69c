//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// socketWatch records, while a vendor's proxy runs, the remote address of
// every TCP and UDP socket its processes hold: the suite's pods use the
// host's network, so the host's /proc shows them. A proxy that called out
// (its cloud API, a DNS server, an identity provider) would hold a socket
// whose remote address is not one of this machine's.
type socketWatch struct {
	program string
	mu      sync.Mutex
	// pids are the proxy's processes seen; sockets how many of their
	// sockets were read; remote the remote addresses of connected ones.
	pids    map[int]bool
	sockets int
	remote  map[string]bool
	done    chan struct{}
}

// watchSockets samples the sockets of every process whose program (the
// first word of its command line) is /program, every 50 ms until ctx ends.
func watchSockets(ctx context.Context, program string) *socketWatch {
	w := &socketWatch{program: "/" + program, pids: map[int]bool{}, remote: map[string]bool{}, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			w.sample()
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

// sample reads the sockets of the proxy's processes once.
func (w *socketWatch) sample() {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		cmdline, err := os.ReadFile(filepath.Join(dir, "cmdline"))
		if err != nil || string(bytes.SplitN(cmdline, []byte{0}, 2)[0]) != w.program {
			continue
		}
		inodes := socketInodes(dir)
		if len(inodes) == 0 {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(dir))
		found := 0
		var remote []string
		for _, table := range []string{"tcp", "tcp6", "udp", "udp6"} {
			for inode, addr := range socketTable(filepath.Join(dir, "net", table)) {
				if inodes[inode] {
					found++
					if addr != "" {
						remote = append(remote, addr)
					}
				}
			}
		}
		w.mu.Lock()
		w.pids[pid] = true
		w.sockets += found
		for _, a := range remote {
			w.remote[a] = true
		}
		w.mu.Unlock()
	}
}

// socketInodes are the inodes of the sockets a process holds open.
func socketInodes(proc string) map[string]bool {
	fds, _ := filepath.Glob(filepath.Join(proc, "fd", "*"))
	out := map[string]bool{}
	for _, fd := range fds {
		target, err := os.Readlink(fd)
		if err == nil && strings.HasPrefix(target, "socket:[") {
			out[strings.TrimSuffix(strings.TrimPrefix(target, "socket:["), "]")] = true
		}
	}
	return out
}

// socketTable reads a /proc/net table: each socket's inode, with its
// remote address ("ip:port"), or "" for a socket connected to nothing (a
// listener, an unconnected UDP socket).
func socketTable(path string) map[string]string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 {
			continue
		}
		ip, port := procAddr(fields[2])
		if ip == nil || (ip.IsUnspecified() && port == 0) {
			out[fields[9]] = ""
			continue
		}
		out[fields[9]] = net.JoinHostPort(ip.String(), strconv.Itoa(port))
	}
	return out
}

// procAddr decodes a /proc/net address ("0100007F:1F90"): the IP, its
// 32-bit words in host (little-endian) order, and the port.
func procAddr(s string) (net.IP, int) {
	host, portHex, ok := strings.Cut(s, ":")
	raw, err := hex.DecodeString(host)
	port, perr := strconv.ParseUint(portHex, 16, 16)
	if !ok || err != nil || perr != nil || (len(raw) != 4 && len(raw) != 16) {
		return nil, 0
	}
	ip := make(net.IP, len(raw))
	for i := 0; i < len(raw); i += 4 {
		ip[i], ip[i+1], ip[i+2], ip[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	return ip, int(port)
}

// local reports whether the IP is this machine's: loopback, or an address
// of one of its interfaces (the node's address, which the pods share).
func local(ip net.IP, own []net.IP) bool {
	return ip.IsLoopback() || slices.ContainsFunc(own, ip.Equal)
}

// check waits for the watcher to stop and returns a problem when it never
// saw the proxy or saw a socket whose remote address is not this machine's.
func (w *socketWatch) check() string {
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pids) == 0 || w.sockets == 0 {
		return fmt.Sprintf("the socket watch never saw %s's sockets: it shows nothing", w.program)
	}
	var own []net.IP
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				own = append(own, n.IP)
			}
		}
	}
	var outside []string
	for addr := range w.remote {
		host, _, _ := net.SplitHostPort(addr)
		if ip := net.ParseIP(host); ip == nil || !local(ip, own) {
			outside = append(outside, addr)
		}
	}
	if len(outside) > 0 {
		slices.Sort(outside)
		return fmt.Sprintf("%s connected off this machine: %s", w.program, strings.Join(outside, ", "))
	}
	return ""
}

// summary says what the watch saw, for the suite's summary.
func (w *socketWatch) summary() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return fmt.Sprintf("%s: %d processes, %d socket readings, %d remote addresses, all on this machine", w.program, len(w.pids), w.sockets, len(w.remote))
}
