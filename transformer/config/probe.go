package config

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
)

// validateProbe checks a startupProbe given in the config, which the
// function writes into pods as it is, as the API server checks it: one
// handler, a command for exec, valid ports, no negative timings, a successThreshold of 1, and a
// positive terminationGracePeriodSeconds when set.
func validateProbe(add func(string, string), at string, p *corev1.Probe) {
	if p == nil {
		return
	}
	var handlers []string
	for _, h := range []struct {
		name string
		set  bool
	}{{"exec", p.Exec != nil}, {"httpGet", p.HTTPGet != nil}, {"tcpSocket", p.TCPSocket != nil}, {"grpc", p.GRPC != nil}} {
		if h.set {
			handlers = append(handlers, h.name)
		}
	}
	if len(handlers) > 1 {
		add(at, fmt.Sprintf("has %d handlers (%s): keep one", len(handlers), strings.Join(handlers, ", ")))
	}
	for _, f := range []struct {
		name  string
		value int32
	}{{"initialDelaySeconds", p.InitialDelaySeconds}, {"timeoutSeconds", p.TimeoutSeconds}, {"periodSeconds", p.PeriodSeconds},
		{"successThreshold", p.SuccessThreshold}, {"failureThreshold", p.FailureThreshold}} {
		if f.value < 0 {
			add(at+"."+f.name, fmt.Sprintf("%d is negative: use 0 or more", f.value))
		}
	}
	if p.SuccessThreshold > 1 {
		add(at+".successThreshold", fmt.Sprintf("%d: a startupProbe's successThreshold must be 1", p.SuccessThreshold))
	}
	if g := p.TerminationGracePeriodSeconds; g != nil && *g <= 0 {
		add(at+".terminationGracePeriodSeconds", fmt.Sprintf("%d is not greater than 0: remove it or give a number of seconds", *g))
	} else if g != nil && *g > KubeletMaxSeconds {
		add(at+".terminationGracePeriodSeconds", fmt.Sprintf("%d is longer than kubelet can count (it multiplies the seconds by time.Second in an int64, which wraps around): give at most %d", *g, KubeletMaxSeconds))
	}
	if p.Exec != nil && len(p.Exec.Command) == 0 {
		add(at+".exec.command", "must not be empty")
	}
	if p.HTTPGet != nil {
		validatePort(add, at+".httpGet.port", p.HTTPGet.Port)
	}
	if p.TCPSocket != nil {
		validatePort(add, at+".tcpSocket.port", p.TCPSocket.Port)
	}
	if p.GRPC != nil {
		validatePortNumber(add, at+".grpc.port", p.GRPC.Port, "is required: a port number from 1 to 65535")
	}
}

// validatePort checks a port given as a number or an IANA service name.
func validatePort(add func(string, string), at string, port intstr.IntOrString) {
	if port.Type == intstr.Int {
		validatePortNumber(add, at, port.IntVal, "is required: a port number from 1 to 65535 or a port name")
		return
	}
	if len(validation.IsValidPortName(port.StrVal)) > 0 {
		add(at, fmt.Sprintf("%q is not a port name: use at most 15 lowercase letters, digits and hyphens, or a port number from 1 to 65535", port.StrVal))
	}
}

// validatePortNumber checks a port number; zero is an absent port.
func validatePortNumber(add func(string, string), at string, port int32, required string) {
	switch {
	case port == 0:
		add(at, required)
	case len(validation.IsValidPortNum(int(port))) > 0:
		add(at, fmt.Sprintf("%d is not a port number from 1 to 65535", port))
	}
}
